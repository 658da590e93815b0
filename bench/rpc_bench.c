/* rpc_bench.c - mcp.h's round trips over stdio against a raw pipe ping-pong; client memory.

   Build and run (what `make bench` does):
       cc -O2 -std=c99 -Wall -Wextra -Wpedantic -Wshadow -Werror bench/rpc_bench.c -o build/rpc_bench
       build/rpc_bench tests/data [--quick]

   The server is the C test server (tests/servers/test_server.c): env MCP_TEST_SERVER, else
   test_server beside this program (build/test_server). Without one the benchmark says so and
   exits 0. argv[1] (the data directory) is not used. --quick: short runs, for CI.

   What is measured, for three payloads (tools/call "echo" with arguments {"msg": S}, S of 5,
   1000 and 16000 bytes; the test server answers with the arguments as the text):
   - mcp.h sequential: mcp_client_call_tool round trips one at a time (the blocking API:
     params built, request written, read (poll first if nothing is there yet), parse, result
     handed over, document freed).
     Median and p99 latency in microseconds, calls/s, client CPU time per call (getrusage),
     and the allocations the library makes per call (counted through MCP_MALLOC/MCP_REALLOC).
   - raw pipe: the baseline. A forked child that answers each line it reads with one line;
     the parent writes the request line and reads the response line with blocking read/write.
     The lines are the very bytes of the JSON-RPC exchange: the request mcp.h wrote (captured
     with the test server's --log) and the response the test server wrote (captured by
     sending that request to it). No JSON anywhere: the floor for moving those bytes.
     mcp.h's stdio transport uses pipes too: its child's stdin, stdout and stderr are pipes
     (mcp.h keeps a read end of the stdin pipe open and never reads it, so a write to a child
     that has died cannot raise SIGPIPE in the host); the raw pipe's child has the same pipes
     for its stdin and stdout. What differs is the waiting: the raw client blocks in read;
     mcp.h cannot (below), so it reads the child's stdout without blocking and, when nothing
     is there yet, polls the child's stdout, stderr and a pidfd (Linux) before reading again.
   - raw poll: the raw pipe client waiting as mcp.h does when the answer is not there yet.
     mcp.h cannot block in read: a server that writes megabytes to its stderr must never
     block, the child's exit must be noticed even when a grandchild keeps its stdout open, and
     calls have timeouts. So after writing a request it reads stdout (non-blocking); if that
     finds nothing it calls poll() on the child's stdout, its stderr and a pidfd of the child
     (Linux: pidfd_open), with the call's deadline as the timeout (30000 ms by default), and
     reads when poll says stdout is readable. On one CPU the first read usually finds the
     answer (writing the request let the server run and answer), so mcp.h seldom polls there;
     on separate CPUs the server is still working and mcp.h polls. raw poll always polls:
     an echo child of its own (the same kind, the same bytes), its stdout non-blocking, its
     stderr a pipe the child never writes to; poll() on stdout, stderr and the pidfd with a
     30000 ms timeout before each read, then reads until the line is whole (poll again when a
     read says EAGAIN). raw poll - raw pipe is the price of poll() itself (about 2 us per
     round trip on the 2-CPU VM, in both placements); with separate CPUs, mcp.h - raw poll is
     what the library costs beyond it. Without a pidfd (not
     Linux, or pidfd_open fails) it polls stdout and stderr only, and says so. Informational:
     the targets stay against the raw pipe.
   - raw to server: the same raw client (prebuilt request, blocking write, read to the
     newline) against the real test server. mcp.h over this is what the client library costs
     beyond a client that does nothing; raw pipe to this is what the server costs.
   - 64 in flight: throughput with 64 calls outstanding (mcp_client_send_tool, mcp_client_poll;
     raw pipe and raw->server with a non-blocking poll() loop), calls/s.
   Rounds of the four sequential clients alternate, so a slow spell of the machine is shared.

   Placement: where the scheduler runs a client and its peer matters more than either client.
   On a 2-CPU VM a round trip takes ~14-18 us when both run on one CPU and ~21-30 us when they
   run on two. On one CPU the round trip is the CPU work of both processes, one after the
   other (a local wakeup, the bytes still in that CPU's cache); on two it also holds the
   wakeup across CPUs (the other CPU woken, maybe from idle) and the bytes moving between
   caches. Left alone, the kernel places each process on its own, so in one run the raw pipe's
   child could share the client's CPU while mcp.h's server did not, or the reverse (ratios of
   2.41x and 0.86x were seen). A ratio means something only within one placement. So when this
   process may run on two CPUs or more (sched_getaffinity), the sequential rounds run twice,
   on the first two allowed CPUs, A and B:
   - separate CPUs: every client (this process) on A, every peer (the echo children of raw
     pipe and raw poll, the test server mcp.h spawns, raw->server's test server) on B;
   - one CPU: the clients and every peer on A.
   The peers are pinned by inheritance: this process moves itself to the peer's CPU, forks the
   peer (or mcp_client_connect spawns it), and moves back to A; sched_getaffinity checks this
   process and every child. Each placement has its own table and target lines. With one
   allowed CPU only "one CPU" runs; if sched_setaffinity fails, one unpinned run, labelled so.
   The 64-in-flight throughput and the memory run once, in "separate CPUs" when it runs.
   mcp.h adds 3-7 us to the raw round trip on the 2-CPU VM: its JSON work, the test server's,
   and with separate CPUs the poll (one CPU: its first read usually finds the answer).
   The targets (issue 4): median(mcp.h) at most 1.3 x median(raw pipe), in each placement;
   client peak RSS under 2 MiB. MET / NOT MET lines report them; timings never fail the program.
   Under each round-trip target line, an informational line gives raw poll's median and
   mcp.h's ratio to it.

   Memory: this program runs itself again (exec, a fresh image: none of the benchmark's
   buffers) as a process that does only the client's work - connect, sequential calls of each
   payload, then calls with 64 in flight of each payload in turn (5 B, 1000 B, 16000 B; a peak
   after each) - and reports its VmHWM (/proc/self/status) and ru_maxrss,
   beside the same program exec'ed to do nothing (libc and the binary alone), and the peak of
   the bytes the library held (MCP_MALLOC hooks). With --cpus=A,B (what the benchmark passes in
   "separate CPUs") that process runs on A and the server it spawns on B.

   The test servers run with MALLOC_TOP_PAD_=1048576 in their environment (the client process
   does not): without it the test server's glibc malloc hands ~144 KiB back to the kernel after
   every 16 KB message (brk down, brk up, page faults), ~600 us per call on a small VM, which
   would hide the client. --server-malloc-default runs them untouched.

   A full run takes about 13 s, --quick about 2 s. Exit status: 0, unless something is wrong
   (the server cannot be started, a call fails, an answer is not the expected one), then 1. 
   History worth keeping: params copied into a separate buffer kept for each call's life made
   glibc's heap shrink and regrow (brk, page faults) with many large calls in flight, 3x slower
   at 64 x 16 KB in flight; mcp__start now copies them into the call's own allocation. */
#define _GNU_SOURCE   /* sched_setaffinity, CPU_SET (Linux) */

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
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#ifdef __linux__
#include <sched.h>
#include <sys/syscall.h>
#endif

#define INFLIGHT 64
#define NPAY 3

static const size_t pay_len[NPAY] = { 5, 1000, 16000 };
static const char *const pay_name[NPAY] = { "5 B", "1000 B", "16000 B" };

static int quick;
static const char *server_path;

/* The test server's environment. Its glibc malloc otherwise gives ~144 KiB back to the kernel
   (brk down, then up and page faults) after every 16 KB message, which costs ~600 us per call
   on a small VM and hides the client. Same for every server this program starts; the client
   process itself runs untuned. --server-malloc-default leaves the server's environment alone. */
static const char *server_env[2] = { "MALLOC_TOP_PAD_=1048576", NULL };

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

static void die(const char *fmt, const char *a)
{
    fprintf(stderr, "rpc_bench: ");
    fprintf(stderr, fmt, a ? a : "");
    fprintf(stderr, "\n");
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

/* "VmHWM:    1234 kB" -> 1234 */
static long status_kb(const char *key)
{
    FILE *f = fopen("/proc/self/status", "r");
    char line[256];
    size_t kl = strlen(key);
    long v = -1;
    if (!f) return -1;
    while (fgets(line, sizeof line, f))
        if (!strncmp(line, key, kl) && line[kl] == ':') { v = strtol(line + kl + 1, NULL, 10); break; }
    fclose(f);
    return v;
}

static long maxrss_kb(void)
{
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    return ru.ru_maxrss;
}

/* ---- placement: the CPU of each process ------------------------------------------------------ */

/* While `pinned`, this process (the clients) runs on cpus_client, and every peer is started
   with this process moved to cpus_peer for the fork, so the child inherits that set. */
static int pinned;
static int pin_trouble;                    /* a set did not take, or a child is not on it */
#ifdef __linux__
#define BENCH_AFFINITY 1
static cpu_set_t cpus_client, cpus_peer;

static void cpus_one(cpu_set_t *s, int cpu)
{
    CPU_ZERO(s);
    CPU_SET(cpu, s);
}

static int cpus_is(pid_t pid, const cpu_set_t *want)
{
    cpu_set_t got;
    CPU_ZERO(&got);
    return sched_getaffinity(pid, sizeof got, &got) == 0 && CPU_EQUAL(&got, want);
}

static int cpus_set(const cpu_set_t *want)    /* this process onto want; 0 if it did not take */
{
    return sched_setaffinity(0, sizeof *want, want) == 0 && cpus_is(0, want);
}
#endif

static void as_peer(void)                  /* before a peer is forked */
{
#ifdef BENCH_AFFINITY
    if (pinned && !cpus_set(&cpus_peer)) pin_trouble = 1;
#endif
}

static void as_client(pid_t child)         /* after: back to the client's CPU; the child checked */
{
#ifdef BENCH_AFFINITY
    if (!pinned) return;
    if (!cpus_set(&cpus_client)) pin_trouble = 1;
    if (child > 0 && !cpus_is(child, &cpus_peer)) pin_trouble = 1;
#else
    (void)child;
#endif
}

/* Every child of this process (the peers; mcp.h's test server among them, whose pid mcp.h
   does not give) on cpus_peer? Linux lists them in /proc/PID/task/PID/children. Returns how
   many were checked. */
static int check_children(void)
{
    int n = 0;
#ifdef BENCH_AFFINITY
    char path[64];
    long pid;
    FILE *f;
    if (!pinned) return 0;
    snprintf(path, sizeof path, "/proc/%ld/task/%ld/children", (long)getpid(), (long)getpid());
    if (!(f = fopen(path, "r"))) return 0;
    while (fscanf(f, "%ld", &pid) == 1) {
        if (!cpus_is((pid_t)pid, &cpus_peer)) pin_trouble = 1;
        n++;
    }
    fclose(f);
#endif
    return n;
}

/* ---- raw pipes ---------------------------------------------------------------------------------- */

/* in: we write (the child's stdin); out: we read (its stdout). Both pipes. With `waited`
   (raw poll's child) also err, a pipe for its stderr, and pidfd, a pidfd of it (-1 if none:
   pidfd_errno says why, 0 when the system has no pidfd_open), and out is non-blocking. */
typedef struct rawproc { pid_t pid; int in, out, err, pidfd, pidfd_errno; } rawproc;

/* The library's own pidfd_open (this file holds the implementation): -1 and *why (errno; 0
   where the system has no pidfd_open) when there is none. */
static int pidfd_of(pid_t pid, int *why)
{
    int fd;
    errno = 0;
    fd = mcp__pidfd_open(pid);
    *why = fd < 0 ? errno : 0;
    return fd;
}

static void rawproc_start(rawproc *p, const char *exe, char *const *argv, void (*fn)(const char *), int waited)
{
    int a[2], b[2], e[2] = { -1, -1 };
    int fd;
    if (pipe(a) < 0 || pipe(b) < 0 || (waited && pipe(e) < 0)) die("pipe failed%s", NULL);
    fcntl(a[1], F_SETFD, FD_CLOEXEC); fcntl(b[0], F_SETFD, FD_CLOEXEC);
    if (waited) fcntl(e[0], F_SETFD, FD_CLOEXEC);
    p->err = p->pidfd = -1;
    p->pidfd_errno = 0;
    p->pid = fork();
    if (p->pid < 0) die("fork failed%s", NULL);
    if (p->pid == 0) {
        dup2(a[0], 0); dup2(b[1], 1);
        if (waited) dup2(e[1], 2);
        for (fd = 3; fd < 1024; fd++) close(fd);      /* no other pipe's end stays open here */
        if (fn) { fn(NULL); _exit(0); }
        if (!strcmp(exe, server_path) && server_env[0]) {
            const char *eq = strchr(server_env[0], '=');
            char name[64];
            snprintf(name, sizeof name, "%.*s", (int)(eq - server_env[0]), server_env[0]);
            setenv(name, eq + 1, 1);
        }
        execv(exe, argv);
        _exit(127);
    }
    close(a[0]); close(b[1]);
    p->in = a[1]; p->out = b[0];
    if (waited) {
        close(e[1]);
        p->err = e[0];
        fcntl(p->out, F_SETFL, fcntl(p->out, F_GETFL) | O_NONBLOCK);
        p->pidfd = pidfd_of(p->pid, &p->pidfd_errno);
    }
}

static void peer_start(rawproc *p, const char *exe, char *const *argv, void (*fn)(const char *), int waited)
{
    as_peer();
    rawproc_start(p, exe, argv, fn, waited);
    as_client(p->pid);
}

static void rawproc_stop(rawproc *p)
{
    int status;
    close(p->in);
    close(p->out);
    if (p->err >= 0) close(p->err);
    if (p->pidfd >= 0) close(p->pidfd);
    while (waitpid(p->pid, &status, 0) < 0 && errno == EINTR) {}
}

static void write_all(int fd, const char *s, size_t n)
{
    while (n) {
        ssize_t r = write(fd, s, n);
        if (r < 0 && errno == EINTR) continue;
        if (r <= 0) die("write failed%s", NULL);
        s += r; n -= (size_t)r;
    }
}

/* A line reader for the raw clients: keeps bytes after the newline for the next line. */
typedef struct lines { char *buf; size_t len, cap; } lines;

/* Reads until a whole line is buffered; returns its length (newline included), 0 at EOF. */
static size_t line_read(lines *l, int fd)
{
    char *nl;
    for (;;) {
        if (l->len && (nl = (char *)memchr(l->buf, '\n', l->len)) != NULL) return (size_t)(nl - l->buf) + 1;
        if (l->cap - l->len < 65536) {
            l->cap = l->cap * 2 + 65536;
            if (!(l->buf = (char *)realloc(l->buf, l->cap))) die("out of memory%s", NULL);
        }
        {
            ssize_t r = read(fd, l->buf + l->len, l->cap - l->len);
            if (r < 0 && errno == EINTR) continue;
            if (r <= 0) return 0;
            l->len += (size_t)r;
        }
    }
}

/* line_read for raw poll: out is non-blocking; before each read, poll() on out, err and the
   pidfd (when there is one) with a 30 s timeout, as mcp.h waits; reads again at once until
   the line is whole or a read says EAGAIN. Returns 0 if the child closed or exited. */
static size_t line_read_polled(lines *l, const rawproc *rp)
{
    struct pollfd pf[3];
    int npf = 2, ready = 0;
    char *nl;
    pf[0].fd = rp->out; pf[1].fd = rp->err; pf[2].fd = rp->pidfd;
    if (rp->pidfd >= 0) npf = 3;
    for (;;) {
        if (l->len && (nl = (char *)memchr(l->buf, '\n', l->len)) != NULL) return (size_t)(nl - l->buf) + 1;
        if (l->cap - l->len < 65536) {
            l->cap = l->cap * 2 + 65536;
            if (!(l->buf = (char *)realloc(l->buf, l->cap))) die("out of memory%s", NULL);
        }
        if (!ready) {
            int r, i;
            for (i = 0; i < npf; i++) { pf[i].events = POLLIN; pf[i].revents = 0; }
            r = poll(pf, (nfds_t)npf, 30000);
            if (r < 0 && errno == EINTR) continue;
            if (r < 0) die("poll failed%s", NULL);
            if (r == 0) die("raw poll: no answer in 30 s%s", NULL);
            if (pf[1].revents) {               /* the echo child never writes there: its end, then */
                char junk[4096];
                if (read(rp->err, junk, sizeof junk) <= 0) pf[1].fd = -1;   /* poll skips it */
            }
            if (pf[0].revents) ready = 1;      /* its last answer, even if it has exited */
            else if (npf == 3 && pf[2].revents) return 0;
            else continue;
        }
        {
            ssize_t r = read(rp->out, l->buf + l->len, l->cap - l->len);
            if (r < 0 && errno == EINTR) continue;
            if (r < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) { ready = 0; continue; }
            if (r <= 0) return 0;
            l->len += (size_t)r;
        }
    }
}

static void line_drop(lines *l, size_t n)
{
    memmove(l->buf, l->buf + n, l->len - n);
    l->len -= n;
}

/* The echo child: answers each line it reads with the response line, one write per line. */
static const char *echo_response;
static size_t echo_response_len;

static void echo_child(const char *unused)
{
    static char buf[65536];
    (void)unused;
    for (;;) {
        ssize_t r = read(0, buf, sizeof buf), i;
        if (r < 0 && errno == EINTR) continue;
        if (r <= 0) return;
        for (i = 0; i < r; i++) {               /* memchr: the floor, not a byte loop */
            const char *nl = (const char *)memchr(buf + i, '\n', (size_t)(r - i));
            if (!nl) break;
            i = nl - buf;
            write_all(1, echo_response, echo_response_len);
        }
    }
}

/* ---- the exchange's bytes -------------------------------------------------------------------- */


typedef struct exchange {
    char *init_req, *initialized, *call_req;   /* lines mcp.h wrote, with their newlines */
    char *call_resp;                           /* the test server's answer to call_req */
    size_t call_req_len, call_resp_len;
} exchange;

static mcp_client *client_start(const char *log_arg)
{
    mcp_client_desc d;
    mcp_error err;
    mcp_client *c;
    const char *args[2];
    memset(&d, 0, sizeof d);
    args[0] = log_arg; args[1] = NULL;
    d.command = server_path;
    d.args = log_arg ? args : NULL;
    d.protocol_version = "2025-11-25";   /* the handshake era: no server/discover probe first */
    d.timeout_ms = 60000;
    d.env = server_env[0] ? server_env : NULL;
    if (!(c = mcp_client_new(&d, &err))) die("mcp_client_new: %s", err.message);
    as_peer();                            /* the server mcp_client_connect spawns is a peer */
    if (mcp_client_connect(c, &err) != MCP_OK) die("connect: %s", err.message);
    as_client(0);
    return c;
}

/* One echo call; checks the answer. */
static void mcp_echo(mcp_client *c, const char *args)
{
    mcp_json_doc *doc;
    mcp_error err;
    if (mcp_client_call_tool(c, "echo", args, &doc, &err) != MCP_OK) die("tools/call echo: %s", err.message);
    mcp_json_free(doc);
}

static char *read_file(const char *path)
{
    FILE *f = fopen(path, "rb");
    char *b;
    long n;
    if (!f) return NULL;
    fseek(f, 0, SEEK_END); n = ftell(f); fseek(f, 0, SEEK_SET);
    if (n < 0 || !(b = (char *)malloc((size_t)n + 1))) { fclose(f); return NULL; }
    n = (long)fread(b, 1, (size_t)n, f);
    b[n] = 0;
    fclose(f);
    return b;
}

static char *line_dup(const char *s, size_t n)
{
    char *d = (char *)malloc(n + 1);
    if (!d) die("out of memory%s", NULL);
    memcpy(d, s, n); d[n] = 0;
    return d;
}

/* Captures what mcp.h writes (test server --log) and what the server answers to it. */
static void capture(exchange *x, const char *args)
{
    char logpath[] = "/tmp/rpc_bench_log_XXXXXX", logarg[64], *log, *p, *e, *lines3[3];
    int fd = mkstemp(logpath), n = 0;
    mcp_client *c;
    rawproc rp;
    lines in = { NULL, 0, 0 };
    size_t len;
    char *argv[2];
    if (fd < 0) die("mkstemp failed%s", NULL);
    close(fd);
    snprintf(logarg, sizeof logarg, "--log=%s", logpath);
    c = client_start(logarg);
    {
        mcp_json_doc *doc;
        mcp_error err;
        const char *text;
        if (mcp_client_call_tool(c, "echo", args, &doc, &err) != MCP_OK) die("tools/call echo: %s", err.message);
        text = mcp_json_str(mcp_json_get(mcp_json_at(mcp_json_get(mcp_json_root(doc), "content"), 0), "text"));
        if (!text || strcmp(text, args)) die("the echo tool did not echo the arguments: %.200s", text);
        mcp_json_free(doc);
    }
    mcp_client_free(c);
    log = read_file(logpath);
    unlink(logpath);
    if (!log) die("cannot read the test server's log%s", NULL);
    for (p = log; *p && n < 3; p = e + 1) {
        if (!(e = strchr(p, '\n'))) break;
        lines3[n++] = line_dup(p, (size_t)(e - p) + 1);
    }
    free(log);
    if (n != 3 || !strstr(lines3[0], "\"initialize\"") || !strstr(lines3[2], "\"tools/call\""))
        die("the test server's log is not initialize, initialized, tools/call%s", NULL);
    x->init_req = lines3[0]; x->initialized = lines3[1]; x->call_req = lines3[2];
    x->call_req_len = strlen(x->call_req);

    argv[0] = (char *)server_path; argv[1] = NULL;
    rawproc_start(&rp, server_path, argv, NULL, 0);
    write_all(rp.in, x->init_req, strlen(x->init_req));
    if (!(len = line_read(&in, rp.out))) die("the test server did not answer initialize%s", NULL);
    line_drop(&in, len);
    write_all(rp.in, x->initialized, strlen(x->initialized));
    write_all(rp.in, x->call_req, x->call_req_len);
    if (!(len = line_read(&in, rp.out))) die("the test server did not answer tools/call%s", NULL);
    x->call_resp = line_dup(in.buf, len);
    x->call_resp_len = len;
    if (!strstr(x->call_resp, "\"result\"")) die("unexpected answer: %s", x->call_resp);
    free(in.buf);
    rawproc_stop(&rp);
}

/* ---- measurements -------------------------------------------------------------------------- */

typedef struct stats {
    uint64_t *ns; size_t n, cap;         /* per-call latencies */
    double wall_ns, cpu_us;              /* summed over rounds */
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

static void stats_clear(stats *s)         /* after a warm-up: keeps the buffer */
{
    s->n = 0; s->wall_ns = s->cpu_us = 0; s->allocs = 0;
}

static double pct_us(stats *s, double q)
{
    size_t i;
    if (!s->n) return 0;
    qsort(s->ns, s->n, sizeof *s->ns, cmp_u64);
    i = (size_t)(q * (double)(s->n - 1) + 0.5);
    return (double)s->ns[i] / 1000.0;
}

/* A round of n sequential calls of each kind. */
static void round_mcp(mcp_client *c, const char *args, size_t n, stats *s)
{
    size_t i;
    uint64_t t0, t1, start = now_ns();
    double cpu0 = cpu_us();
    unsigned long long a0 = heap.allocs;
    for (i = 0; i < n; i++) {
        t0 = now_ns();
        mcp_echo(c, args);
        t1 = now_ns();
        stats_add(s, t1 - t0);
    }
    s->wall_ns += (double)(now_ns() - start);
    s->cpu_us += cpu_us() - cpu0;
    s->allocs += heap.allocs - a0;
}

/* raw pipe and raw->server (blocking read), or raw poll (rp made `waited`: poll, then read) */
static void round_raw(rawproc *rp, lines *in, const exchange *x, size_t n, stats *s)
{
    size_t i, len;
    uint64_t t0, t1, start = now_ns();
    double cpu0 = cpu_us();
    for (i = 0; i < n; i++) {
        t0 = now_ns();
        write_all(rp->in, x->call_req, x->call_req_len);
        len = rp->err >= 0 ? line_read_polled(in, rp) : line_read(in, rp->out);
        if (!len) die("raw: the peer closed%s", NULL);
        line_drop(in, len);
        t1 = now_ns();
        if (len != x->call_resp_len) die("raw: an answer is not the captured one%s", NULL);
        stats_add(s, t1 - t0);
    }
    s->wall_ns += (double)(now_ns() - start);
    s->cpu_us += cpu_us() - cpu0;
}

/* n calls with INFLIGHT outstanding; returns calls/s. */
static double pipelined_mcp(mcp_client *c, const char *args, size_t n)
{
    mcp_call *slot[INFLIGHT];
    mcp_error err;
    mcp_json_doc *doc;
    size_t sent = 0, done = 0, i;
    uint64_t t0 = now_ns();
    for (i = 0; i < INFLIGHT; i++) {
        slot[i] = sent < n ? mcp_client_send_tool(c, "echo", args, NULL, &err) : NULL;
        if (sent < n && !slot[i]) die("send: %s", err.message);
        if (slot[i]) sent++;
    }
    while (done < n) {
        if (mcp_client_poll(c, -1) == MCP_ERR_CLOSED) die("the server closed%s", NULL);
        for (i = 0; i < INFLIGHT; i++) {
            if (!slot[i] || mcp_call_status(slot[i]) == MCP_AGAIN) continue;
            if (mcp_call_result(slot[i], &doc, &err) != MCP_OK) die("tools/call echo: %s", err.message);
            mcp_json_free(doc);
            mcp_call_free(slot[i]);
            done++;
            slot[i] = NULL;
            if (sent < n) {
                if (!(slot[i] = mcp_client_send_tool(c, "echo", args, NULL, &err))) die("send: %s", err.message);
                sent++;
            }
        }
    }
    return (double)n / ((double)(now_ns() - t0) / 1e9);
}

static double pipelined_raw(rawproc *rp, const exchange *x, size_t n)
{
    size_t sent = 0, done = 0, queued = 0, wrote = 0, got = 0, i;
    char *out;
    char rbuf[65536];
    struct pollfd pf[2];
    uint64_t t0 = now_ns();
    int fl;
    /* the outgoing queue: up to INFLIGHT requests */
    out = (char *)malloc(x->call_req_len * INFLIGHT);
    if (!out) die("out of memory%s", NULL);
    fl = fcntl(rp->in, F_GETFL); fcntl(rp->in, F_SETFL, fl | O_NONBLOCK);
    for (i = 0; i < INFLIGHT && sent < n; i++, sent++) { memcpy(out + queued, x->call_req, x->call_req_len); queued += x->call_req_len; }
    while (done < n) {
        pf[0].fd = rp->out; pf[0].events = POLLIN; pf[0].revents = 0;
        pf[1].fd = rp->in; pf[1].events = POLLOUT; pf[1].revents = 0;
        if (poll(pf, wrote < queued ? 2 : 1, -1) < 0) { if (errno == EINTR) continue; die("poll failed%s", NULL); }
        if (pf[0].revents) {
            ssize_t r = read(rp->out, rbuf, sizeof rbuf), k;
            if (r <= 0) { if (r < 0 && (errno == EINTR || errno == EAGAIN)) continue; die("raw: the peer closed%s", NULL); }
            got += (size_t)r;
            for (k = 0; k < r; k++)
                if (rbuf[k] == '\n') {
                    done++;
                    if (sent < n) {
                        if (wrote == queued) wrote = queued = 0;
                        if (queued + x->call_req_len > x->call_req_len * INFLIGHT) {   /* compact */
                            memmove(out, out + wrote, queued - wrote); queued -= wrote; wrote = 0;
                        }
                        memcpy(out + queued, x->call_req, x->call_req_len); queued += x->call_req_len;
                        sent++;
                    }
                }
        }
        while (wrote < queued) {
            ssize_t r = write(rp->in, out + wrote, queued - wrote);
            if (r < 0 && errno == EINTR) continue;
            if (r < 0 && errno == EAGAIN) break;
            if (r <= 0) die("raw: write failed%s", NULL);
            wrote += (size_t)r;
        }
        if (wrote == queued) wrote = queued = 0;
    }
    fcntl(rp->in, F_SETFL, fl);
    free(out);
    if (got != n * x->call_resp_len) die("raw: the answers are not the captured ones%s", NULL);
    return (double)n / ((double)(now_ns() - t0) / 1e9);
}

/* ---- the client-only process, for its memory ---------------------------------------------- */

/* Prints 1 + NPAY lines "VmHWM ru_maxrss RssAnon heap_peak": after the sequential calls, then
   after the calls with 64 in flight of each payload in turn (5 B, 1000 B, 16000 B: a peak so far). */
static int rss_child(int idle)
{
    mcp_client *c = idle ? NULL : client_start(NULL);
    size_t p, i, n = quick ? 200 : 2000;
    char *args[NPAY];
    for (p = 0; p < NPAY; p++) args[p] = args_json(pay_len[p]);
    for (p = 0; c && p < NPAY; p++)
        for (i = 0; i < n; i++) mcp_echo(c, args[p]);
    printf("%ld %ld %ld %lu\n", status_kb("VmHWM"), maxrss_kb(), status_kb("RssAnon"), (unsigned long)heap.peak);
    for (p = 0; p < NPAY; p++) {
        if (c) pipelined_mcp(c, args[p], 5 * n);
        printf("%ld %ld %ld %lu\n", status_kb("VmHWM"), maxrss_kb(), status_kb("RssAnon"), (unsigned long)heap.peak);
    }
    fflush(stdout);
    mcp_client_free(c);
    for (p = 0; p < NPAY; p++) free(args[p]);
    return 0;
}

/* The memory is measured in two builds of this program: the one running (gcc, glibc, dynamic)
   and, when the Makefile found musl-gcc, build/rpc_bench_static (musl, static), the build of
   an embedded or self-contained program. Most of the first one's RSS is glibc's and the
   program's mapped pages before the client does anything (the idle row). */
#define NBUILD 2
#define STATIC_TWIN "rpc_bench_static"
static const char *const build_name[NBUILD] = { "gcc, glibc, dynamic", "musl, static" };

/* buf = the static build beside this program, if it is there */
static int static_twin(char *buf, size_t cap)
{
    char self[4096];
    ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
    char *slash;
    if (n <= 0) return 0;
    self[n] = 0;
    if (!(slash = strrchr(self, '/'))) return 0;
    *slash = 0;
    if ((size_t)snprintf(buf, cap, "%s/%s", self, STATIC_TWIN) >= cap) return 0;
    return access(buf, X_OK) == 0;
}

static void memory_table(const char *build, int ok, long client[1 + NPAY][4], long idle[1 + NPAY][4])
{
    size_t p;
    printf("  %-30s %12s %12s %12s %12s\n", build, "VmHWM KiB", "ru_maxrss", "RssAnon KiB", "lib heap KiB");
    if (!ok) { printf("    could not measure (the child process failed)\n"); return; }
    printf("    %-28s %12ld %12ld %12ld %12s\n", "idle (same program)", idle[NPAY][0], idle[NPAY][1], idle[NPAY][2], "-");
    printf("    %-28s %12ld %12ld %12ld %12.1f\n", "client, sequential calls", client[0][0], client[0][1],
           client[0][2], (double)client[0][3] / 1024.0);
    for (p = 0; p < NPAY; p++) {
        char what[40];
        snprintf(what, sizeof what, "  + 64 in flight, %s", pay_name[p]);
        printf("    %-28s %12ld %12ld %12ld %12.1f\n", what, client[1 + p][0], client[1 + p][1],
               client[1 + p][2], (double)client[1 + p][3] / 1024.0);
    }
}

static void memory_targets(const char *build, long client[1 + NPAY][4], long idle[1 + NPAY][4])
{
    size_t p;
    printf("  %s: [%s] client peak RSS, sequential calls: %.2f MiB (target < 2 MiB; %.2f MiB above an idle "
           "process)\n", client[0][0] < 2048 ? "MET    " : "NOT MET", build, (double)client[0][0] / 1024.0,
           (double)(client[0][0] - idle[NPAY][0]) / 1024.0);
    for (p = 0; p < NPAY; p++)
        printf("  %s: [%s] client peak RSS, with 64 calls of %s in flight too: %.2f MiB (target < 2 MiB; %.2f MiB "
               "above an idle process)%s\n", client[1 + p][0] < 2048 ? "MET    " : "NOT MET", build, pay_name[p],
               (double)client[1 + p][0] / 1024.0, (double)(client[1 + p][0] - idle[NPAY][0]) / 1024.0,
               pay_len[p] * INFLIGHT >= 512 * 1024 ? "\n           (64 requests and 64 answers of that size are about 2 MiB: "
               "the caller's calls in flight, held until the server reads them and the caller takes them)" : "");
}

/* cpus: "--cpus=A,B" (the child on A, the server it spawns on B) or "" */
static int run_rss_child(const char *self, int idle, const char *cpus, long out[1 + NPAY][4])
{
    char *argv[7], buf[256];
    rawproc rp;
    lines in = { NULL, 0, 0 };
    size_t len;
    int ok, i;
    char sarg[4200];
    snprintf(sarg, sizeof sarg, "--server=%s", server_path);
    argv[0] = (char *)"rpc_bench"; argv[1] = (char *)(idle ? "--rss-idle" : "--rss-client");
    argv[2] = (char *)(quick ? "--quick" : ""); argv[3] = sarg;
    argv[4] = (char *)(server_env[0] ? "" : "--server-malloc-default"); argv[5] = (char *)cpus; argv[6] = NULL;
    rawproc_start(&rp, self, argv, NULL, 0);
    for (i = 0, ok = 1; i < 1 + NPAY && ok; i++) {
        len = line_read(&in, rp.out);
        ok = len > 0 && len < sizeof buf;
        if (ok) {
            memcpy(buf, in.buf, len); buf[len] = 0;
            ok = sscanf(buf, "%ld %ld %ld %ld", &out[i][0], &out[i][1], &out[i][2], &out[i][3]) == 4;
            line_drop(&in, len);
        }
    }
    free(in.buf);
    rawproc_stop(&rp);
    return ok;
}

/* ---- placements ------------------------------------------------------------------------------ */

#define NPLACE 2

typedef struct placement {
    const char *name;                      /* "separate CPUs", "one CPU" or "unpinned" */
    int pinned, cpu_client, cpu_peer;
    int trouble, checked;                  /* after its run: the pinning did not hold; children checked */
} placement;

static void placement_set(placement *pl, const char *name, int is_pinned, int a, int b)
{
    memset(pl, 0, sizeof *pl);
    pl->name = name; pl->pinned = is_pinned; pl->cpu_client = a; pl->cpu_peer = b;
}

/* The placements to run, in pl; note: why there are not two pinned ones, or "". */
static int placements(placement *pl, char *note, size_t cap)
{
#ifdef BENCH_AFFINITY
    cpu_set_t allowed;
    int a = -1, b = -1, k;
    CPU_ZERO(&allowed);
    errno = 0;
    if (sched_getaffinity(0, sizeof allowed, &allowed) == 0)
        for (k = 0; k < CPU_SETSIZE && b < 0; k++)
            if (CPU_ISSET(k, &allowed)) { if (a < 0) a = k; else b = k; }
    if (a < 0) {
        snprintf(note, cap, "sched_getaffinity failed (%s): one run, unpinned", strerror(errno));
    } else {
        cpus_one(&cpus_client, a);
        cpus_one(&cpus_peer, b >= 0 ? b : a);
        errno = 0;
        if (cpus_set(&cpus_peer) && cpus_set(&cpus_client)) {
            if (b < 0) {
                snprintf(note, cap, "this process may run on CPU %d only: one placement, \"one CPU\"", a);
                placement_set(&pl[0], "one CPU", 1, a, a);
                return 1;
            }
            placement_set(&pl[0], "separate CPUs", 1, a, b);
            placement_set(&pl[1], "one CPU", 1, a, a);
            return 2;
        }
        snprintf(note, cap, "sched_setaffinity failed (%s): one run, unpinned",
                 errno ? strerror(errno) : "the set did not take");
        sched_setaffinity(0, sizeof allowed, &allowed);
    }
#else
    snprintf(note, cap, "no sched_setaffinity on this system: one run, unpinned");
#endif
    placement_set(&pl[0], "unpinned", 0, -1, -1);
    return 1;
}

static void placement_apply(const placement *pl)
{
    pinned = pl->pinned;
    pin_trouble = 0;
#ifdef BENCH_AFFINITY
    if (pinned) {
        cpus_one(&cpus_client, pl->cpu_client);
        cpus_one(&cpus_peer, pl->cpu_peer);
        if (!cpus_set(&cpus_client)) pin_trouble = 1;
    }
#endif
}

static const char *placement_what(const placement *pl)
{
    static char buf[160];
    if (!pl->pinned) snprintf(buf, sizeof buf, "the kernel places each process");
    else if (pl->cpu_client != pl->cpu_peer)
        snprintf(buf, sizeof buf, "the clients on CPU %d, every peer on CPU %d", pl->cpu_client, pl->cpu_peer);
    else snprintf(buf, sizeof buf, "the clients and every peer on CPU %d", pl->cpu_client);
    return buf;
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
    printf("rpc_bench: mcp.h tools/call round trips over stdio vs a raw pipe ping-pong%s\n",
           quick ? " (--quick: short runs, not numbers to quote)" : "");
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
    printf("  server:   %s%s%s\n", server_path, server_env[0] ? ", environment " : "", server_env[0] ? server_env[0] : "");
}

int main(int argc, char **argv)
{
    static char server_buf[4096];
    const char *env = getenv("MCP_TEST_SERVER");
    struct stat sb;
    exchange x[NPAY];
    static stats sm[NPLACE][NPAY], sr[NPLACE][NPAY], ss[NPLACE][NPAY], sp[NPLACE][NPAY];
    double thr[NPAY][3];
    placement pl[NPLACE];
    char note[256] = "", cpus_arg[64] = "";
    char *args[NPAY];
    size_t p, n_seq, rounds, r, n_pipe;
    int i, q, np, idle = -1, rss_a = -1, rss_b = -1;
    long rss[NBUILD][2][1 + NPAY][4];      /* per build: [0] the client, [1] idle */
    int have[NBUILD], nbuild = 1;
    char exe[NBUILD][4096];
    int pidfd_missing = -1;                /* raw poll's children: -1 all had a pidfd; else errno, 0: no pidfd_open */
    char pollwhat[160];
    mcp_client *c;
    rawproc echo, echo_poll, srv;
    lines echo_in = { NULL, 0, 0 }, poll_in = { NULL, 0, 0 }, srv_in = { NULL, 0, 0 };

    for (i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--quick")) quick = 1;
        else if (!strcmp(argv[i], "--rss-client")) idle = 0;
        else if (!strcmp(argv[i], "--rss-idle")) idle = 1;
        else if (!strncmp(argv[i], "--server=", 9)) env = argv[i] + 9;
        else if (!strcmp(argv[i], "--server-malloc-default")) server_env[0] = NULL;
        else if (!strncmp(argv[i], "--cpus=", 7) && sscanf(argv[i] + 7, "%d,%d", &rss_a, &rss_b) != 2) rss_a = -1;
    }
    if (env && *env) snprintf(server_buf, sizeof server_buf, "%s", env);
    else {
        const char *slash = strrchr(argv[0], '/');
        if (slash) snprintf(server_buf, sizeof server_buf, "%.*s/test_server", (int)(slash - argv[0]), argv[0]);
        else snprintf(server_buf, sizeof server_buf, "./test_server");
    }
    server_path = server_buf;
    if (idle >= 0) {                       /* the memory child; --cpus=A,B: itself on A, its server on B */
        if (rss_a >= 0 && rss_b >= 0) {
            placement one;
            placement_set(&one, "", 1, rss_a, rss_b);
            placement_apply(&one);
        }
        return rss_child(idle);
    }
    setvbuf(stdout, NULL, _IOLBF, 0);
    if (stat(server_path, &sb) != 0 || !(sb.st_mode & S_IXUSR)) {
        printf("rpc_bench: skipped: no test server at %s (build it with `make`, or set MCP_TEST_SERVER)\n", server_path);
        return 0;
    }
    signal(SIGPIPE, SIG_IGN);
    header();
    np = placements(pl, note, sizeof note);
    printf("  placement (peers: the echo children of raw pipe and raw poll, the test server mcp.h spawns,\n"
           "             raw->server's test server):\n");
    for (q = 0; q < np; q++) printf("            %-13s = %s\n", pl[q].name, placement_what(&pl[q]));
    if (*note) printf("            (%s)\n", note);

    n_seq = quick ? 300 : 4000;          /* per round */
    rounds = quick ? 2 : 5;
    n_pipe = quick ? 5000 : 100000;

    for (p = 0; p < NPAY; p++) {
        args[p] = args_json(pay_len[p]);
        capture(&x[p], args[p]);
    }
    for (q = 0; q < np; q++) {
        placement_apply(&pl[q]);
        for (p = 0; p < NPAY; p++) {
            size_t n = pay_len[p] > 5000 ? n_seq / 4 : n_seq;
            char *sargv[2];
            echo_response = x[p].call_resp; echo_response_len = x[p].call_resp_len;
            peer_start(&echo, NULL, NULL, echo_child, 0);
            peer_start(&echo_poll, NULL, NULL, echo_child, 1);
            if (echo_poll.pidfd < 0) pidfd_missing = echo_poll.pidfd_errno;
            sargv[0] = (char *)server_path; sargv[1] = NULL;
            peer_start(&srv, server_path, sargv, NULL, 0);
            write_all(srv.in, x[p].init_req, strlen(x[p].init_req));
            line_drop(&srv_in, line_read(&srv_in, srv.out));
            write_all(srv.in, x[p].initialized, strlen(x[p].initialized));
            c = client_start(NULL);
            pl[q].checked += check_children();
            for (r = 0; r <= rounds; r++) {    /* round 0 warms up: page faults, buffers grown, caches */
                size_t k = r ? n : n / 10 + 10;
                if (r == 1) { stats_clear(&sr[q][p]); stats_clear(&sp[q][p]); stats_clear(&sm[q][p]); stats_clear(&ss[q][p]); }
                round_raw(&echo, &echo_in, &x[p], k, &sr[q][p]);
                round_raw(&echo_poll, &poll_in, &x[p], k, &sp[q][p]);
                round_mcp(c, args[p], k, &sm[q][p]);
                round_raw(&srv, &srv_in, &x[p], k, &ss[q][p]);
            }
            if (q == 0) {                      /* throughput: in the first placement only */
                thr[p][0] = pipelined_mcp(c, args[p], pay_len[p] > 5000 ? n_pipe / 4 : n_pipe);
                thr[p][1] = pipelined_raw(&echo, &x[p], pay_len[p] > 5000 ? n_pipe / 4 : n_pipe);
                thr[p][2] = pipelined_raw(&srv, &x[p], pay_len[p] > 5000 ? n_pipe / 4 : n_pipe);
            }
            mcp_client_free(c);
            rawproc_stop(&echo);
            rawproc_stop(&echo_poll);
            rawproc_stop(&srv);
            echo_in.len = poll_in.len = srv_in.len = 0;
        }
        pl[q].trouble = pin_trouble;
    }

    if (pidfd_missing < 0) snprintf(pollwhat, sizeof pollwhat, "stdout, stderr and a pidfd");
    else if (pidfd_missing) snprintf(pollwhat, sizeof pollwhat, "stdout and stderr only, no pidfd (pidfd_open failed: %s)",
                                     strerror(pidfd_missing));
    else snprintf(pollwhat, sizeof pollwhat, "stdout and stderr only, no pidfd (no pidfd_open on this system)");
    for (q = 0; q < np; q++) {
        printf("\nsequential round trips, one call at a time (%lu rounds, alternating clients)\n", (unsigned long)rounds);
        printf("[%s] %s", pl[q].name, placement_what(&pl[q]));
        if (pl[q].pinned && !pl[q].trouble && pl[q].checked)
            printf(" (sched_getaffinity: this process and %d peers checked)", pl[q].checked);
        printf("\n");
        if (pl[q].trouble)
            printf("  WARNING: the pinning did not hold (a CPU set did not take, or a peer was not on its CPU):\n"
                   "  these figures are not placement-controlled\n");
        printf("  %-8s %-13s %6s %7s %7s %9s %9s %9s %9s %8s\n", "payload", "client", "req B", "resp B", "calls",
               "median us", "p99 us", "calls/s", "cpu us", "allocs");
        for (p = 0; p < NPAY; p++) {
            stats *all[4];
            const char *names[4] = { "mcp.h", "raw pipe", "raw poll", "raw->server" };
            all[0] = &sm[q][p]; all[1] = &sr[q][p]; all[2] = &sp[q][p]; all[3] = &ss[q][p];
            for (i = 0; i < 4; i++) {
                stats *s = all[i];
                printf("  %-8s %-13s %6lu %7lu %7lu %9.1f %9.1f %9.0f %9.1f ", pay_name[p], names[i],
                       (unsigned long)x[p].call_req_len, (unsigned long)x[p].call_resp_len, (unsigned long)s->n,
                       pct_us(s, 0.5), pct_us(s, 0.99), (double)s->n / (s->wall_ns / 1e9), s->cpu_us / (double)s->n);
                if (i == 0) printf("%8.1f\n", (double)s->allocs / (double)s->n); else printf("%8s\n", "-");
            }
        }
    }
    printf("  (cpu us: this process's user+system time per call; allocs: the library's malloc+realloc per call;\n"
           "   raw poll: the raw pipe client, polling before each read as mcp.h does when the answer\n"
           "   is not there yet, on %s)\n", pollwhat);

    printf("\n%d calls in flight: throughput, calls/s\n", INFLIGHT);
    printf("[%s] %s\n", pl[0].name, placement_what(&pl[0]));
    printf("  %-8s %12s %12s %12s %16s\n", "payload", "mcp.h", "raw pipe", "raw->server", "mcp.h/raw pipe");
    for (p = 0; p < NPAY; p++)
        printf("  %-8s %12.0f %12.0f %12.0f %15.2fx\n", pay_name[p], thr[p][0], thr[p][1], thr[p][2], thr[p][0] / thr[p][1]);

    /* the memory child is forked on the client's CPU; with --cpus it spawns its server on the peer's */
    snprintf(exe[0], sizeof exe[0], "%s", access("/proc/self/exe", X_OK) == 0 ? "/proc/self/exe" : argv[0]);
    if (static_twin(exe[1], sizeof exe[1])) nbuild = 2;
    placement_apply(&pl[0]);
    if (pl[0].pinned) snprintf(cpus_arg, sizeof cpus_arg, "--cpus=%d,%d", pl[0].cpu_client, pl[0].cpu_peer);
    for (i = 0; i < nbuild; i++)
        have[i] = run_rss_child(exe[i], 0, cpus_arg, rss[i][0]) && run_rss_child(exe[i], 1, cpus_arg, rss[i][1]);
    printf("\nclient memory: a fresh process that only connects and makes the calls above (sequential and\n"
           "%d in flight, every payload), beside the same program exec'ed to do nothing\n", INFLIGHT);
    printf("[%s] %s\n", pl[0].name, pl[0].pinned && pl[0].cpu_client != pl[0].cpu_peer ?
           "the client on its CPU, its test server on the peers' CPU" : placement_what(&pl[0]));
    for (i = 0; i < nbuild; i++) memory_table(build_name[i], have[i], rss[i][0], rss[i][1]);
    printf("  (VmHWM: peak RSS of the exec'ed image; ru_maxrss: the same, but Linux also counts the forked\n"
           "   copy of this benchmark before exec in it; RssAnon: anonymous memory at that moment; lib heap:\n"
           "   the peak of the bytes the library held through MCP_MALLOC)\n");
    if (nbuild == 1) printf("  (no %s next to this program: musl-gcc was not there when it was built)\n", STATIC_TWIN);

    printf("\ntargets (issue 4)%s\n", quick ? " - a --quick run: indicative only" : "");
    for (q = 0; q < np; q++)
        for (p = 0; p < NPAY; p++) {
            double ratio = pct_us(&sm[q][p], 0.5) / pct_us(&sr[q][p], 0.5);
            printf("  %s: [%s] median round trip %s: %.1f us = %.2fx the raw pipe's %.1f us (target <= 1.30x; "
                   "%.2fx raw->server)\n", ratio <= 1.3 ? "MET    " : "NOT MET", pl[q].name, pay_name[p],
                   pct_us(&sm[q][p], 0.5), ratio, pct_us(&sr[q][p], 0.5), pct_us(&sm[q][p], 0.5) / pct_us(&ss[q][p], 0.5));
            printf("           (raw poll, a raw client that always polls before reading, on %s: %.1f us; "
                   "mcp.h = %.2fx that)\n", pollwhat, pct_us(&sp[q][p], 0.5), pct_us(&sm[q][p], 0.5) / pct_us(&sp[q][p], 0.5));
        }
    for (i = 0; i < nbuild; i++)
        if (have[i]) memory_targets(build_name[i], rss[i][0], rss[i][1]);
    for (p = 0; p < NPAY; p++) {
        free(x[p].init_req); free(x[p].initialized); free(x[p].call_req); free(x[p].call_resp);
        free(args[p]);
        for (q = 0; q < np; q++) { free(sm[q][p].ns); free(sr[q][p].ns); free(sp[q][p].ns); free(ss[q][p].ns); }
    }
    free(echo_in.buf); free(poll_in.buf); free(srv_in.buf);
    return 0;
}
