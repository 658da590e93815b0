/* http_bench.c - mcp.h's round trips over loopback HTTP/1.1 (Streamable HTTP, keep-alive) against
   a raw TCP request/response of the very same bytes.

   Build and run (what `make bench` does):
       cc -O2 -std=c99 -Wall -Wextra -Wpedantic -Wshadow -Werror bench/http_bench.c -o build/http_bench
       build/http_bench tests/data [--quick]

   The server is the HTTP test server (tests/servers/http_server.c): env MCP_TEST_HTTP_SERVER,
   else http_server beside this program (build/http_server). Without one the benchmark says so
   and exits 0. argv[1] (the data directory) is not used. --quick: short runs, for CI.

   What is measured, for three payloads (tools/call "echo" with arguments {"msg": S}, S of 5,
   1000 and 16000 bytes; the server answers with the arguments as the text), with the answer
   as application/json and as an SSE stream (the client sends "X-Test-Mode: sse"):
   - mcp.h: mcp_client_call_tool round trips one at a time over one kept-alive connection
     (params built, HTTP request written, poll, read, HTTP and SSE parsed, JSON parsed, result
     handed over, document freed). Median and p99 latency in microseconds, calls/s, the client's
     CPU time per call (getrusage), the server's CPU time per call (/proc/PID/stat), and the
     allocations the library makes per call (counted through MCP_MALLOC/MCP_REALLOC).
   - stub: a minimal HTTP server in this program (below) that answers each tools/call with the
     captured response, its id rewritten; no JSON parsing. mcp.h->stub and raw->stub (the raw
     client below, against the stub) are the pair the target is measured on: the same server,
     the same bytes, so their ratio is what the client library costs.
   - raw echo: the floor. A forked process that accepts one connection and, each time the
     request's length in bytes has arrived, writes the response in one write; the client writes
     the request in one write and reads until the response's length has arrived. The bytes
     are those of the exchange itself: the request mcp.h wrote and the response the server
     wrote, captured by the server (GET /debug/capture, then /debug/last). No parsing anywhere
     and a blocking loop, not poll(): the floor for moving those bytes over loopback TCP.
     (mcp.h cannot talk to it: its answers carry a fixed id.)
   - raw->server: the same raw client (the captured request, one write) against the real
     server, reading one whole HTTP response (Content-Length or chunked). mcp.h->server over
     this is the library's cost against the C test server; raw->server over raw echo is what
     that server costs.
   Rounds of the clients alternate, so a slow spell of the machine is shared. The target
   (issue 5): median(mcp.h->stub) at most 1.3 x median(raw->stub). MET / NOT MET lines report
   it, with mcp.h against raw echo and mcp.h->server against raw->server beside it; timings
   never fail the program.

   The server runs with MALLOC_TOP_PAD_=1048576 in its environment (as rpc_bench's servers):
   without it glibc's malloc may hand memory back to the kernel after every large message.

   A full run takes about 30 s, --quick about 3 s. Exit status: 0, unless something is wrong
   (the server cannot be started, a call fails, an answer is not the expected one), then 1. */
#define _POSIX_C_SOURCE 200809L

#include <stdio.h>
#include <stdlib.h>
#include <stddef.h>
#include <string.h>

/* ---- counting allocator: the library's own heap use -------------------------------------------- */

typedef union bench_hdr { size_t size; long double ld; void *p; long long ll; } bench_hdr;
static struct { size_t live, peak; unsigned long long allocs; } heap;

static void *bench_malloc(size_t n)
{
    bench_hdr *h = (bench_hdr *)malloc(sizeof *h + n);
    if (!h) return NULL;
    h->size = n;
    heap.live += n;
    if (heap.live > heap.peak) heap.peak = heap.live;
    heap.allocs++;
    return h + 1;
}

static void *bench_realloc(void *p, size_t n)
{
    bench_hdr *h;
    size_t old;
    if (!p) return bench_malloc(n);
    old = ((bench_hdr *)p - 1)->size;
    h = (bench_hdr *)realloc((bench_hdr *)p - 1, sizeof *h + n);
    if (!h) return NULL;
    h->size = n;
    heap.live = heap.live - old + n;
    if (heap.live > heap.peak) heap.peak = heap.live;
    heap.allocs++;
    return h + 1;
}

static void bench_free(void *p)
{
    if (!p) return;
    heap.live -= ((bench_hdr *)p - 1)->size;
    free((bench_hdr *)p - 1);
}

#define MCP_MALLOC(sz, ctx) ((void)(ctx), bench_malloc(sz))
#define MCP_REALLOC(p, sz, ctx) ((void)(ctx), bench_realloc((p), (sz)))
#define MCP_FREE(p, ctx) ((void)(ctx), bench_free(p))
#define MCP_IMPLEMENTATION
#include "../mcp.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <time.h>
#include <unistd.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/utsname.h>
#include <sys/wait.h>

#define NPAY 3
#define NMODE 2

static const size_t pay_len[NPAY] = { 5, 1000, 16000 };
static const char *const pay_name[NPAY] = { "5 B", "1000 B", "16000 B" };
static const char *const mode_name[NMODE] = { "JSON", "SSE" };

static int quick;
static char server_path[4096];
static pid_t server_pid;
static int server_in = -1, server_port;

/* ---- small helpers -------------------------------------------------------------------------- */

static uint64_t now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static double cpu_us(void)                 /* user + system time of this process */
{
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    return (double)ru.ru_utime.tv_sec * 1e6 + (double)ru.ru_utime.tv_usec +
           (double)ru.ru_stime.tv_sec * 1e6 + (double)ru.ru_stime.tv_usec;
}

static double proc_cpu_us(pid_t pid)       /* utime + stime of another process, /proc/PID/stat */
{
    char path[64], buf[1024], *p;
    unsigned long ut = 0, st = 0;
    FILE *f;
    size_t n;
    int i;
    snprintf(path, sizeof path, "/proc/%ld/stat", (long)pid);
    if (!(f = fopen(path, "r"))) return 0;
    n = fread(buf, 1, sizeof buf - 1, f);
    fclose(f);
    buf[n] = 0;
    if (!(p = strrchr(buf, ')'))) return 0;
    for (i = 0; i < 12 && p; i++) p = strchr(p + 1, ' ');     /* to field 14, utime */
    if (!p || sscanf(p, " %lu %lu", &ut, &st) != 2) return 0;
    return (double)(ut + st) * 1e6 / (double)sysconf(_SC_CLK_TCK);
}

static void die(const char *fmt, const char *a)
{
    fprintf(stderr, "http_bench: ");
    fprintf(stderr, fmt, a ? a : "");
    fprintf(stderr, "\n");
    if (server_pid > 0) kill(server_pid, SIGTERM);
    exit(1);
}

static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

static char *args_json(size_t n)          /* {"msg":"abcd..."} */
{
    char *s = (char *)malloc(n + 16);
    size_t i;
    if (!s) die("out of memory%s", NULL);
    memcpy(s, "{\"msg\":\"", 8);
    for (i = 0; i < n; i++) s[8 + i] = (char)('a' + i % 26);
    memcpy(s + 8 + n, "\"}", 3);
    return s;
}

static void write_all(int fd, const char *s, size_t n)
{
    while (n) {
        ssize_t r = write(fd, s, n);
        if (r < 0 && errno == EINTR) continue;
        if (r <= 0) die("write failed: %s", strerror(errno));
        s += r; n -= (size_t)r;
    }
}

static int tcp_connect(int port)
{
    struct sockaddr_in a;
    int fd = socket(AF_INET, SOCK_STREAM, 0), one = 1;
    if (fd < 0) die("socket failed%s", NULL);
    memset(&a, 0, sizeof a);
    a.sin_family = AF_INET;
    a.sin_port = htons((unsigned short)port);
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    if (connect(fd, (struct sockaddr *)&a, sizeof a) < 0) die("connect failed: %s", strerror(errno));
    setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    return fd;
}

/* ---- the server ------------------------------------------------------------------------------ */

static void server_start(void)
{
    int in[2], out[2];
    char line[64];
    size_t got = 0;
    ssize_t r;
    if (pipe(in) < 0 || pipe(out) < 0) die("pipe failed%s", NULL);
    fcntl(in[1], F_SETFD, FD_CLOEXEC); fcntl(out[0], F_SETFD, FD_CLOEXEC);
    server_pid = fork();
    if (server_pid < 0) die("fork failed%s", NULL);
    if (server_pid == 0) {
        dup2(in[0], 0); dup2(out[1], 1);
        close(in[0]); close(out[1]);
        setenv("MALLOC_TOP_PAD_", "1048576", 1);
        execl(server_path, server_path, "0", (char *)NULL);
        _exit(127);
    }
    close(in[0]); close(out[1]);
    server_in = in[1];
    while (got < sizeof line - 1) {
        r = read(out[0], line + got, 1);
        if (r < 0 && errno == EINTR) continue;
        if (r <= 0 || line[got] == '\n') break;
        got++;
    }
    line[got] = 0;
    close(out[0]);
    if (sscanf(line, "PORT %d", &server_port) != 1) die("the server did not start (it said \"%s\")", line);
}

static void server_stop(void)
{
    int status;
    close(server_in);
    while (waitpid(server_pid, &status, 0) < 0 && errno == EINTR) {}
    server_pid = 0;
}

/* GET /debug/PAGE; the body, malloc'ed. */
static char *debug_get(const char *page)
{
    int fd = tcp_connect(server_port);
    char req[256], *b = NULL, *body;
    size_t len = 0, cap = 0;
    ssize_t r;
    snprintf(req, sizeof req, "GET /debug/%s HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n", page);
    write_all(fd, req, strlen(req));
    for (;;) {
        if (cap - len < 65536) { cap = cap * 2 + 65536; if (!(b = (char *)realloc(b, cap))) die("out of memory%s", NULL); }
        r = read(fd, b + len, cap - len - 1);
        if (r < 0 && errno == EINTR) continue;
        if (r <= 0) break;
        len += (size_t)r;
    }
    close(fd);
    b[len] = 0;
    if (!(body = strstr(b, "\r\n\r\n"))) die("bad debug answer: %s", b);
    body = strdup(body + 4);
    free(b);
    return body;
}

/* ---- the exchange's bytes --------------------------------------------------------------------- */

typedef struct exchange { char *req, *resp; size_t req_len, resp_len; } exchange;

static mcp_client *client_start(int sse, int port)
{
    static const char *const hdr_sse[] = { "X-Test-Mode: sse", NULL };
    mcp_client_desc d;
    mcp_error err;
    mcp_client *c;
    char url[128];
    memset(&d, 0, sizeof d);
    snprintf(url, sizeof url, "http://127.0.0.1:%d/mcp", port);
    d.transport = MCP_HTTP;
    d.url = url;
    d.headers = sse ? hdr_sse : NULL;
    d.protocol_version = "2025-11-25";   /* the handshake era: no server/discover probe first */
    d.timeout_ms = 60000;
    if (!(c = mcp_client_new(&d, &err))) die("mcp_client_new: %s", err.message);
    if (mcp_client_connect(c, &err) != MCP_OK) die("connect: %s", err.message);
    return c;
}

static void mcp_echo(mcp_client *c, const char *args, int check)
{
    mcp_json_doc *doc;
    mcp_error err;
    if (mcp_client_call_tool(c, "echo", args, &doc, &err) != MCP_OK) die("tools/call echo: %s", err.message);
    if (check) {
        const char *t = mcp_json_str(mcp_json_get(mcp_json_at(mcp_json_get(mcp_json_root(doc), "content"), 0), "text"));
        if (!t || strcmp(t, args)) die("the echo tool did not echo the arguments: %.200s", t);
    }
    mcp_json_free(doc);
}

/* The request mcp.h writes for one call and the server's whole response to it. */
static void capture(mcp_client *c, const char *args, exchange *x)
{
    char *last;
    mcp_json_doc *d;
    const mcp_json *r;
    free(debug_get("capture"));
    mcp_echo(c, args, 1);
    last = debug_get("last");
    d = mcp_json_parse(last, strlen(last), NULL);
    r = mcp_json_root(d);
    if (!mcp_json_is_true(mcp_json_get(r, "done"))) die("the server did not capture the exchange: %.300s", last);
    x->req_len = mcp_json_len(mcp_json_get(r, "request"));
    x->resp_len = mcp_json_len(mcp_json_get(r, "response"));
    x->req = (char *)malloc(x->req_len + 1);
    x->resp = (char *)malloc(x->resp_len + 1);
    if (!x->req || !x->resp) die("out of memory%s", NULL);
    memcpy(x->req, mcp_json_str(mcp_json_get(r, "request")), x->req_len + 1);
    memcpy(x->resp, mcp_json_str(mcp_json_get(r, "response")), x->resp_len + 1);
    mcp_json_free(d);
    free(last);
    if (strncmp(x->req, "POST /mcp HTTP/1.1\r\n", 20) || strncmp(x->resp, "HTTP/1.1 200 OK\r\n", 17))
        die("unexpected capture: %.300s", x->req);
}

/* ---- the raw echo server: answers each request-sized read with the response ------------------ */

static void echo_server(int lfd, const exchange *x)
{
    static char buf[1 << 17];
    size_t have = 0;
    int fd, one = 1;
    ssize_t r;
    fd = accept(lfd, NULL, NULL);
    close(lfd);
    if (fd < 0) _exit(1);
    setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    for (;;) {
        r = read(fd, buf, sizeof buf);
        if (r < 0 && errno == EINTR) continue;
        if (r <= 0) _exit(0);
        have += (size_t)r;
        while (have >= x->req_len) {
            have -= x->req_len;
            write_all(fd, x->resp, x->resp_len);
        }
    }
}

typedef struct raw { pid_t pid; int fd; } raw;

static void echo_start(raw *e, const exchange *x)
{
    struct sockaddr_in a;
    socklen_t l = sizeof a;
    int lfd = socket(AF_INET, SOCK_STREAM, 0), one = 1;
    setsockopt(lfd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
    memset(&a, 0, sizeof a);
    a.sin_family = AF_INET;
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    if (bind(lfd, (struct sockaddr *)&a, sizeof a) < 0 || listen(lfd, 4) < 0) die("echo server: bind failed%s", NULL);
    getsockname(lfd, (struct sockaddr *)&a, &l);
    e->pid = fork();
    if (e->pid < 0) die("fork failed%s", NULL);
    if (e->pid == 0) { echo_server(lfd, x); _exit(0); }
    close(lfd);
    e->fd = tcp_connect(ntohs(a.sin_port));
}

static void raw_stop(raw *e)
{
    int status;
    close(e->fd);
    if (e->pid > 0) while (waitpid(e->pid, &status, 0) < 0 && errno == EINTR) {}
}

/* Reads exactly n bytes. */
static void read_n(int fd, char *buf, size_t n)
{
    size_t got = 0;
    ssize_t r;
    while (got < n) {
        r = read(fd, buf + got, n - got);
        if (r < 0 && errno == EINTR) continue;
        if (r <= 0) die("raw: the peer closed%s", NULL);
        got += (size_t)r;
    }
}

/* Reads one whole HTTP response (Content-Length or chunked, ended by "0\r\n\r\n"). */
static void read_response(int fd, char *buf, size_t cap)
{
    size_t got = 0, head = 0, want = 0;
    ssize_t r;
    char *e, *cl;
    for (;;) {
        r = read(fd, buf + got, cap - got - 1);
        if (r < 0 && errno == EINTR) continue;
        if (r <= 0) die("raw->server: the server closed%s", NULL);
        got += (size_t)r;
        buf[got] = 0;
        if (!head && (e = strstr(buf, "\r\n\r\n")) != NULL) {
            head = (size_t)(e - buf) + 4;
            if ((cl = strstr(buf, "Content-Length: ")) != NULL && cl < e) want = head + (size_t)strtoul(cl + 16, NULL, 10);
        }
        if (head && want && got >= want) return;
        if (head && !want && got >= head + 5 && !memcmp(buf + got - 5, "0\r\n\r\n", 5)) return;
        if (got + 1 >= cap) die("raw->server: the response is too large%s", NULL);
    }
}

/* ---- the stub server: the captured response for every tools/call, its id rewritten -------------
   mcp.h's requests differ from call to call only in their id, and the answer must carry that id,
   so mcp.h cannot talk to the raw echo server. The stub is its counterpart: it reads each request
   (head and Content-Length body), answers initialize with a small fixed result, notifications
   and DELETE with no body, and a tools/call with the captured response whose JSON-RPC id is
   replaced (and its Content-Length or chunk size fixed). No JSON parsing, one write per
   answer: mcp.h against the stub against the raw client against the raw echo is the library's
   own cost. */

typedef struct tmpl {
    char *head; size_t head_len;             /* status line and headers, no framing header */
    char *pre, *post; size_t pre_len, post_len;   /* the body around the id's digits */
    int chunked;
    char sid[128];                           /* Mcp-Session-Id to hand out (same length as the real one) */
} tmpl;

static void tmpl_make(tmpl *t, const exchange *x)
{
    const char *e = strstr(x->resp, "\r\n\r\n"), *te, *cl, *p, *body, *id;
    mcp_buf b = {0}, h = {0};
    size_t hl, n;
    const char *sid = strstr(x->req, "Mcp-Session-Id: ");
    memset(t, 0, sizeof *t);
    if (!e) die("bad capture%s", NULL);
    hl = (size_t)(e - x->resp) + 2;                          /* keep the last header's CRLF */
    te = strstr(x->resp, "Transfer-Encoding: chunked\r\n");
    cl = strstr(x->resp, "Content-Length: ");
    t->chunked = te && te < e;
    for (p = x->resp; p < x->resp + hl; ) {                  /* the head without its framing line */
        const char *eol = strstr(p, "\r\n") + 2;
        if (p != te && p != cl) mcp_buf_append(&h, p, (size_t)(eol - p));
        p = eol;
    }
    body = e + 4;
    if (t->chunked) {                                        /* de-chunk */
        while ((n = (size_t)strtoul(body, NULL, 16)) != 0) {
            body = strstr(body, "\r\n") + 2;
            mcp_buf_append(&b, body, n);
            body += n + 2;
        }
    } else mcp_buf_append(&b, body, x->resp_len - (size_t)(body - x->resp));
    mcp_buf_append(&b, "", 1);
    if (!(id = strstr(b.data, "\"id\":"))) die("no id in the captured response%s", NULL);
    id += 5;
    t->pre_len = (size_t)(id - b.data);
    while (*id >= '0' && *id <= '9') id++;
    t->post_len = strlen(id);
    t->pre = (char *)malloc(t->pre_len + 1); t->post = (char *)malloc(t->post_len + 1);
    memcpy(t->pre, b.data, t->pre_len); memcpy(t->post, id, t->post_len + 1);
    t->head = (char *)malloc(h.len + 1);
    if (!t->head || !t->pre || !t->post) die("out of memory%s", NULL);
    memcpy(t->head, h.data, h.len);
    t->head_len = h.len;
    mcp_buf_free(&h);
    if (sid) sscanf(sid + 16, "%127[^\r]", t->sid);
    mcp_buf_free(&b);
}

static void tmpl_free(tmpl *t) { free(t->head); free(t->pre); free(t->post); }

/* Answers one complete request in `in` (head + body); returns its length, 0 if incomplete. */
static size_t stub_answer(int fd, const tmpl *t, const char *in, size_t len, mcp_buf *out)
{
    const char *e, *cl, *body, *id;
    size_t hl, bl, n;
    char idbuf[32], num[64];
    e = NULL;
    for (n = 0; n + 3 < len; n++) if (!memcmp(in + n, "\r\n\r\n", 4)) { e = in + n; break; }
    if (!e) return 0;
    hl = (size_t)(e - in) + 4;
    cl = strstr(in, "Content-Length: ");
    bl = cl && cl < e ? (size_t)strtoul(cl + 16, NULL, 10) : 0;
    if (len < hl + bl) return 0;
    body = in + hl;
    out->len = 0;
    if (!strncmp(in, "DELETE", 6) || !bl || !(id = strstr(body, "\"id\":")) || id > body + bl) {
        mcp_buf_append(out, "HTTP/1.1 202 Accepted\r\nContent-Length: 0\r\n\r\n", 45);
        if (!strncmp(in, "DELETE", 6)) { out->len = 0; mcp_buf_append(out, "HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n", 38); }
    } else {
        id += 5;
        for (n = 0; n < sizeof idbuf - 1 && id[n] >= '0' && id[n] <= '9'; n++) idbuf[n] = id[n];
        idbuf[n] = 0;
        if (strstr(body, "\"initialize\"") && strstr(body, "\"initialize\"") < body + bl) {
            char r[512];
            int m = snprintf(r, sizeof r, "{\"jsonrpc\":\"2.0\",\"id\":%s,\"result\":{\"protocolVersion\":\"2025-11-25\","
                             "\"capabilities\":{\"tools\":{}},\"serverInfo\":{\"name\":\"stub\",\"version\":\"0\"}}}", idbuf);
            mcp_buf_append(out, num, (size_t)snprintf(num, sizeof num, "HTTP/1.1 200 OK\r\nContent-Length: %d\r\n", m));
            mcp_buf_append(out, "Content-Type: application/json\r\nMcp-Session-Id: ", 48);
            mcp_buf_append(out, t->sid, strlen(t->sid));
            mcp_buf_append(out, "\r\n\r\n", 4);
            mcp_buf_append(out, r, (size_t)m);
        } else {
            size_t blen = t->pre_len + strlen(idbuf) + t->post_len;
            mcp_buf_append(out, t->head, t->head_len);
            if (t->chunked) mcp_buf_append(out, num, (size_t)snprintf(num, sizeof num, "Transfer-Encoding: chunked\r\n\r\n%lx\r\n",
                                                                     (unsigned long)blen));
            else mcp_buf_append(out, num, (size_t)snprintf(num, sizeof num, "Content-Length: %lu\r\n\r\n", (unsigned long)blen));
            mcp_buf_append(out, t->pre, t->pre_len);
            mcp_buf_append(out, idbuf, strlen(idbuf));
            mcp_buf_append(out, t->post, t->post_len);
            if (t->chunked) mcp_buf_append(out, "\r\n0\r\n\r\n", 7);
        }
    }
    write_all(fd, out->data, out->len);
    return hl + bl;
}

static void stub_server(int lfd, const tmpl *t)
{
    struct pollfd pf[9];
    mcp_buf in[9], out = {0};
    int n = 1, i, j, fd, one = 1;
    ssize_t r;
    size_t used;
    char buf[1 << 16];
    memset(in, 0, sizeof in);
    pf[0].fd = lfd; pf[0].events = POLLIN;
    for (;;) {
        for (i = 0; i < n; i++) pf[i].revents = 0;
        if (poll(pf, (nfds_t)n, -1) < 0) { if (errno == EINTR) continue; _exit(1); }
        if ((pf[0].revents & POLLIN) && n < 9 && (fd = accept(lfd, NULL, NULL)) >= 0) {
            setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
            pf[n].fd = fd; pf[n].events = POLLIN; in[n].len = 0; n++;
        }
        for (i = 1; i < n; i++) {
            if (!pf[i].revents) continue;
            r = read(pf[i].fd, buf, sizeof buf);
            if (r <= 0) {
                if (r < 0 && errno == EINTR) continue;
                close(pf[i].fd);
                mcp_buf_free(&in[i]);
                for (j = i; j + 1 < n; j++) { pf[j] = pf[j + 1]; in[j] = in[j + 1]; }
                memset(&in[n - 1], 0, sizeof in[0]);
                n--; i--;
                if (n == 1) _exit(0);                      /* the client is done */
                continue;
            }
            mcp_buf_append(&in[i], buf, (size_t)r);
            mcp_buf_append(&in[i], "", 1); in[i].len--;    /* NUL-terminated for strstr */
            while ((used = stub_answer(pf[i].fd, t, in[i].data, in[i].len, &out)) != 0) {
                memmove(in[i].data, in[i].data + used, in[i].len - used + 1);
                in[i].len -= used;
            }
        }
    }
}

static int stub_start(raw *e, const tmpl *t)
{
    struct sockaddr_in a;
    socklen_t l = sizeof a;
    int lfd = socket(AF_INET, SOCK_STREAM, 0), one = 1;
    setsockopt(lfd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
    memset(&a, 0, sizeof a);
    a.sin_family = AF_INET;
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    if (bind(lfd, (struct sockaddr *)&a, sizeof a) < 0 || listen(lfd, 8) < 0) die("stub: bind failed%s", NULL);
    getsockname(lfd, (struct sockaddr *)&a, &l);
    e->pid = fork();
    if (e->pid < 0) die("fork failed%s", NULL);
    if (e->pid == 0) { stub_server(lfd, t); _exit(0); }
    close(lfd);
    e->fd = -1;
    return ntohs(a.sin_port);
}

/* ---- measurements -------------------------------------------------------------------------- */

typedef struct stats {
    uint64_t *ns; size_t n, cap;         /* per-call latencies */
    double wall_ns, cpu_us, srv_us;      /* summed over rounds */
    unsigned long long allocs;
} stats;

static void stats_add(stats *s, uint64_t v)
{
    if (s->n == s->cap) {
        s->cap = s->cap ? s->cap * 2 : 4096;
        if (!(s->ns = (uint64_t *)realloc(s->ns, s->cap * sizeof *s->ns))) die("out of memory%s", NULL);
    }
    s->ns[s->n++] = v;
}

static double pct_us(stats *s, double q)
{
    size_t i;
    if (!s->n) return 0;
    qsort(s->ns, s->n, sizeof *s->ns, cmp_u64);
    i = (size_t)(q * (double)(s->n - 1) + 0.5);
    return (double)s->ns[i] / 1000.0;
}

static void reset(stats *s) { s->n = 0; s->wall_ns = s->cpu_us = s->srv_us = 0; s->allocs = 0; }

static void round_mcp(mcp_client *c, const char *args, size_t n, stats *s, pid_t srv)
{
    size_t i;
    uint64_t t0, t1, start = now_ns();
    double cpu0 = cpu_us(), srv0 = proc_cpu_us(srv);
    unsigned long long a0 = heap.allocs;
    for (i = 0; i < n; i++) {
        t0 = now_ns();
        mcp_echo(c, args, 0);
        t1 = now_ns();
        stats_add(s, t1 - t0);
    }
    s->wall_ns += (double)(now_ns() - start);
    s->cpu_us += cpu_us() - cpu0;
    s->srv_us += proc_cpu_us(srv) - srv0;
    s->allocs += heap.allocs - a0;
}

static char rbuf[1 << 17];

static void round_raw(int fd, const exchange *x, int to_server, size_t n, stats *s, pid_t srv)
{
    size_t i;
    uint64_t t0, t1, start = now_ns();
    double cpu0 = cpu_us(), srv0 = proc_cpu_us(srv);
    for (i = 0; i < n; i++) {
        t0 = now_ns();
        write_all(fd, x->req, x->req_len);
        if (to_server) read_response(fd, rbuf, sizeof rbuf);
        else read_n(fd, rbuf, x->resp_len);
        t1 = now_ns();
        stats_add(s, t1 - t0);
    }
    s->wall_ns += (double)(now_ns() - start);
    s->cpu_us += cpu_us() - cpu0;
    s->srv_us += proc_cpu_us(srv) - srv0;
}

/* ---- main ------------------------------------------------------------------------------------ */

static void header(void)
{
    struct utsname u;
    char cpu[256] = "unknown", line[512];
    FILE *f = fopen("/proc/cpuinfo", "r");
    if (f) {
        while (fgets(line, sizeof line, f))
            if (!strncmp(line, "model name", 10) && strchr(line, ':')) {
                char *v = strchr(line, ':') + 2;
                v[strcspn(v, "\n")] = 0;
                snprintf(cpu, sizeof cpu, "%s", v);
                break;
            }
        fclose(f);
    }
    printf("http_bench: mcp.h tools/call round trips over loopback HTTP/1.1 keep-alive vs a raw TCP "
           "request/response%s\n", quick ? " (--quick: short runs, not numbers to quote)" : "");
    if (uname(&u) == 0) printf("  machine:  %s %s %s, CPU: %s, %ld online\n", u.sysname, u.release, u.machine, cpu,
                               sysconf(_SC_NPROCESSORS_ONLN));
#ifdef __VERSION__
    printf("  compiler: %s%s%s\n", __VERSION__,
#ifdef __clang__
           " (clang)",
#else
           "",
#endif
#ifdef __OPTIMIZE__
           ", optimized"
#else
           ", NOT optimized"
#endif
           );
#endif
    printf("  server:   %s (port %d), environment MALLOC_TOP_PAD_=1048576\n", server_path, server_port);
}

int main(int argc, char **argv)
{
    const char *env = getenv("MCP_TEST_HTTP_SERVER");
    struct stat sb;
    exchange x[NMODE][NPAY];
    stats sm[NMODE][NPAY], se[NMODE][NPAY], ss[NMODE][NPAY], st[NMODE][NPAY], sr[NMODE][NPAY];
    size_t p, n_seq, rounds, r, n;
    int i, m, all_met = 1;
    mcp_client *c, *cs;
    raw echo, stub;
    tmpl t;
    int sfd, stub_port, tfd;

    for (i = 1; i < argc; i++) if (!strcmp(argv[i], "--quick")) quick = 1;
    if (env && *env) snprintf(server_path, sizeof server_path, "%s", env);
    else {
        const char *slash = strrchr(argv[0], '/');
        if (slash) snprintf(server_path, sizeof server_path, "%.*s/http_server", (int)(slash - argv[0]), argv[0]);
        else snprintf(server_path, sizeof server_path, "./http_server");
    }
    setvbuf(stdout, NULL, _IOLBF, 0);
    if (stat(server_path, &sb) != 0 || !(sb.st_mode & S_IXUSR)) {
        printf("http_bench: skipped: no HTTP test server at %s (build it with `make`, or set MCP_TEST_HTTP_SERVER)\n",
               server_path);
        return 0;
    }
    signal(SIGPIPE, SIG_IGN);
    server_start();
    header();

    n_seq = quick ? 300 : 2000;          /* per round */
    rounds = quick ? 2 : 5;
    memset(sm, 0, sizeof sm); memset(se, 0, sizeof se); memset(ss, 0, sizeof ss); memset(st, 0, sizeof st); memset(sr, 0, sizeof sr);
    for (m = 0; m < NMODE; m++) {
        c = client_start(m, server_port);
        for (p = 0; p < NPAY; p++) {
            char *args = args_json(pay_len[p]);
            n = pay_len[p] > 5000 ? n_seq / 2 : n_seq;
            capture(c, args, &x[m][p]);
            tmpl_make(&t, &x[m][p]);
            echo_start(&echo, &x[m][p]);
            stub_port = stub_start(&stub, &t);
            cs = client_start(m, stub_port);
            mcp_echo(cs, args, 1);
            sfd = tcp_connect(server_port);
            tfd = tcp_connect(stub_port);
            /* warm up: page faults, buffers grown, caches */
            round_mcp(cs, args, n / 10 + 10, &st[m][p], stub.pid); reset(&st[m][p]);
            round_raw(tfd, &x[m][p], 1, n / 10 + 10, &sr[m][p], stub.pid); reset(&sr[m][p]);
            round_raw(echo.fd, &x[m][p], 0, n / 10 + 10, &se[m][p], echo.pid); reset(&se[m][p]);
            round_mcp(c, args, n / 10 + 10, &sm[m][p], server_pid); reset(&sm[m][p]);
            round_raw(sfd, &x[m][p], 1, n / 10 + 10, &ss[m][p], server_pid); reset(&ss[m][p]);
            for (r = 0; r < rounds; r++) {
                round_raw(echo.fd, &x[m][p], 0, n, &se[m][p], echo.pid);
                round_raw(tfd, &x[m][p], 1, n, &sr[m][p], stub.pid);
                round_mcp(cs, args, n, &st[m][p], stub.pid);
                round_mcp(c, args, n, &sm[m][p], server_pid);
                round_raw(sfd, &x[m][p], 1, n, &ss[m][p], server_pid);
            }
            mcp_echo(c, args, 1);                                  /* still right */
            mcp_echo(cs, args, 1);
            mcp_client_free(cs);
            close(tfd);
            raw_stop(&stub);
            close(sfd);
            raw_stop(&echo);
            tmpl_free(&t);
            free(args);
        }
        mcp_client_free(c);
    }

    printf("\nsequential round trips, one call at a time over one keep-alive connection (%lu rounds, "
           "alternating clients)\n", (unsigned long)rounds);
    printf("  %-6s %-8s %-12s %6s %7s %7s %9s %9s %9s %8s %8s %7s\n", "answer", "payload", "client", "req B", "resp B",
           "calls", "median us", "p99 us", "calls/s", "cpu us", "srv us", "allocs");
    for (m = 0; m < NMODE; m++)
        for (p = 0; p < NPAY; p++) {
            stats *all[5];
            const char *names[5] = { "mcp.h->stub", "raw->stub", "raw echo", "mcp.h->server", "raw->server" };
            all[0] = &st[m][p]; all[1] = &sr[m][p]; all[2] = &se[m][p]; all[3] = &sm[m][p]; all[4] = &ss[m][p];
            for (i = 0; i < 5; i++) {
                stats *s = all[i];
                printf("  %-6s %-8s %-13s %5lu %7lu %7lu %9.1f %9.1f %9.0f %8.1f %8.1f ", i ? "" : mode_name[m],
                       i ? "" : pay_name[p], names[i], (unsigned long)x[m][p].req_len, (unsigned long)x[m][p].resp_len,
                       (unsigned long)s->n, pct_us(s, 0.5), pct_us(s, 0.99), (double)s->n / (s->wall_ns / 1e9),
                       s->cpu_us / (double)s->n, s->srv_us / (double)s->n);
                if (i == 0 || i == 3) printf("%7.1f\n", (double)s->allocs / (double)s->n);
                else printf("%7s\n", "-");
            }
        }
    printf("  (cpu us: this process's user+system time per call; srv us: the server's (stub, echo or\n"
           "   http_server), from /proc in clock ticks; allocs: the library's malloc+realloc per call; req B\n"
           "   and resp B: the captured exchange; mcp.h's ids, and http_server's SSE event ids, add a digit\n"
           "   now and then)\n");

    printf("\ntargets (issue 5)%s\n  the library's round trip (mcp.h->stub) against the raw round trip of the same bytes to the\n"
           "  same server (raw->stub); beside it, against the floor (raw echo: a blocking read/write loop)\n",
           quick ? " - a --quick run: indicative only" : "");
    for (m = 0; m < NMODE; m++)
        for (p = 0; p < NPAY; p++) {
            double ratio = pct_us(&st[m][p], 0.5) / pct_us(&sr[m][p], 0.5);
            if (ratio > 1.3) all_met = 0;
            printf("  %s: %-4s %-7s median %.1f us = %.2fx the raw round trip's %.1f us (target <= 1.30x); "
                   "%.2fx raw echo; with http_server: %.2fx raw->server\n", ratio <= 1.3 ? "MET    " : "NOT MET",
                   mode_name[m], pay_name[p], pct_us(&st[m][p], 0.5), ratio, pct_us(&sr[m][p], 0.5),
                   pct_us(&st[m][p], 0.5) / pct_us(&se[m][p], 0.5), pct_us(&sm[m][p], 0.5) / pct_us(&ss[m][p], 0.5));
        }
    printf("Target: at most 1.3x the raw round trip: %s\n", all_met ? "MET" : "NOT MET");
    for (m = 0; m < NMODE; m++)
        for (p = 0; p < NPAY; p++) {
            free(x[m][p].req); free(x[m][p].resp);
            free(sm[m][p].ns); free(se[m][p].ns); free(ss[m][p].ns); free(st[m][p].ns); free(sr[m][p].ns);
        }
    server_stop();
    return 0;
}
