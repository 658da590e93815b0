/* Tests of the MCP client over HTTP (>>transport: Streamable HTTP and the 2024-11-05 HTTP+SSE
   transport; >>client), issue 5. Public API only, against tests/servers/http_server.c, a real
   HTTP/1.1 server on loopback that behaves, and misbehaves on demand (see its header comment:
   flags from argv, from an X-Test-Mode request header the client sends with desc.headers, or
   from "_mode" in one tools/call's arguments). What the server saw is read back from its
   /debug pages (request log, counters, history) over a plain socket.

   Every scenario runs inside a guard that checks, when it ends: no fd leaked (the entries of
   /proc/self/fd), no child exited unreaped (a zombie, or a test server that died), the SIGPIPE
   disposition unchanged (SIGPIPE keeps its default throughout: a write that raised it would
   kill this process) and no SIGPIPE pending.

   Scenarios, in order: connect over Streamable HTTP (headers the server saw: no session or
   version on initialize, both after; the caller's headers; 202 for notifications; keep-alive:
   sequential calls on one connection; stats; close: DELETE with the session id, on_close once)
   and over HTTP+SSE (one event stream, everything POSTed to the endpoint it named); protocol
   versions and MCP-Protocol-Version; every typed call over both transports, with JSON and SSE
   answers and several body framings (chunked with extensions and trailers, until close), and
   a response dripped a byte at a time; notifications and server requests (roots, sampling,
   ping, an unknown method) interleaved on an answer's stream, answered by POST (the replies
   themselves: test_transport:server_requests); descriptions refused at mcp_client_new (CR/LF in a header, Content-Length, https://
   without a TLS hook, bad URLs); 401 with WWW-Authenticate and Mcp-Auth-Server; an expired
   session (404: a new initialize, the request again); the GET listener and 405; resumption of
   a dropped answer stream with Last-Event-ID after `retry:`, and a drop with no event id;
   keep-alive connections closed by the server (idle, and just as a request arrives, with one
   and with several pooled connections); broken responses (cut mid-body, a bad chunk size, too
   large or too many headers, a wrong content type, answers over max_message); timeouts and
   cancellation (notifications/cancelled reaches the server) and a server that never answers;
   the HTTP+SSE stream ending mid-call; connect refused; the test server's SIGTERM exit; calls
   in flight on their own connections; the non-blocking API in an outside poll() loop; close
   with a call in flight, messages sent just before close, DELETE refused, no session; last, a cross-origin endpoint event
   (under AddressSanitizer a use after free stops the program there).

   Usage: test_http_client [DATA_DIR [SERVER]]   SERVER: the HTTP test server; default: env
   MCP_TEST_HTTP_SERVER, else http_server beside env MCP_TEST_SERVER, else build/http_server.
   Upper time bounds are multiplied by 10 under valgrind, or by MCP_TEST_SLACK. */
#define _POSIX_C_SOURCE 200809L
#define _XOPEN_SOURCE 700           /* realpath */
#include "../mcp.h"
#include "test.h"
/* What the callbacks saw: calls.h's seen (notes, closes, logs) with these fields too. */
#define SEEN_FIELDS                                                                             \
    int reqs; char req[MAXREC][64]; char req_params[MAXREC][256];                               \
    int progress; double prog[MAXREC], total[MAXREC];
#include "calls.h"
#include <arpa/inet.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static char server_path[PATH_MAX];
static int slack = 1;                /* upper time bounds are multiplied by this (valgrind: 10) */
#define LATE(ms) ((int64_t)(ms) * slack)

static const char *nn(const char *s) { return s ? s : "(null)"; }
#define EQS(a, b) CHECKF(!strcmp(nn(a), (b)), "got \"%s\", want \"%s\"", nn(a), (b))
#define EQST(st, want, err) CHECKF((st) == (want), "status %d (%s), want %d; message: %s", (int)(st), \
                                   mcp_status_str(st), (int)(want), (err).message)
#define EQL(a, b) CHECKF((long)(a) == (long)(b), "%s is %ld, want %ld", #a, (long)(a), (long)(b))

/* ---- small helpers -------------------------------------------------------------------------- */

static char *fmt(const char *f, ...)    /* a malloc'ed printf */
{
    va_list ap;
    char *s;
    int n;
    va_start(ap, f);
    n = vsnprintf(NULL, 0, f, ap);
    va_end(ap);
    s = (char *)malloc((size_t)n + 1);
    va_start(ap, f);
    vsnprintf(s, (size_t)n + 1, f, ap);
    va_end(ap);
    return s;
}

/* ---- the test server -------------------------------------------------------------------------- */

#include "http_srv.h"

/* A field of a log record (JSON text as log_find gives it). */
static const char *rec_field(const char *rec, const char *key, char *out, size_t n)
{
    mcp_json_doc *d = mcp_json_parse(rec, strlen(rec), NULL);
    const mcp_json *v = mcp_json_get(mcp_json_root(d), key);
    if (mcp_json_typeof(v) == MCP_JSON_STRING) snprintf(out, n, "%s", mcp_json_str(v));
    else if (mcp_json_typeof(v) == MCP_JSON_NUMBER) snprintf(out, n, "%.0f", mcp_json_num(v));
    else snprintf(out, n, "(null)");
    mcp_json_free(d);
    return out;
}

/* ---- the scenario guard ------------------------------------------------------------------------ */

typedef struct guard { const char *name; int fds; int64_t t0; int checks; struct sigaction pipe; } guard;

static void g_begin(guard *g, const char *name)
{
    g->name = name;
    g->fds = count_fds();
    g->t0 = mcp_time_ms();
    g->checks = t_pass + t_fail;
    sigaction(SIGPIPE, NULL, &g->pipe);
}

static void g_end(guard *g)
{
    struct sigaction a;
    sigset_t pend;
    int fds = count_fds(), r;
    CHECKF(fds == g->fds, "%s: fd leak: %d open before, %d after", g->name, g->fds, fds);
    errno = 0;
    r = waitpid(-1, NULL, WNOHANG);
    CHECKF(r == 0 || (r == -1 && errno == ECHILD), "%s: a child process exited unreaped (waitpid said %d)", g->name, r);
    sigaction(SIGPIPE, NULL, &a);
    CHECKF(a.sa_handler == SIG_DFL && a.sa_handler == g->pipe.sa_handler, "%s: SIGPIPE disposition changed", g->name);
    sigpending(&pend);
    CHECKF(!sigismember(&pend, SIGPIPE), "%s: a SIGPIPE is left pending", g->name);
    printf("# %-36s %5lld ms %4d checks\n", g->name, (long long)(mcp_time_ms() - g->t0), t_pass + t_fail - g->checks);
    fflush(stdout);
}

/* ---- what the callbacks saw ---------------------------------------------------------------------- */
/* (notes, closes and logs are calls.h's seen; the fields this test adds: SEEN_FIELDS, above) */

static char big[1 << 20];

static void cb_request(void *user, mcp_client *c, mcp_request *req)
{
    seen *s = (seen *)user;
    const char *m = mcp_request_method(req);
    char *p = mcp_json_dump(mcp_request_params(req), 0, NULL);
    (void)c;
    if (s->reqs < MAXREC) {
        snprintf(s->req[s->reqs], sizeof s->req[0], "%s", m);
        snprintf(s->req_params[s->reqs], sizeof s->req_params[0], "%s", p ? p : "(none)");
    }
    mcp_free(p);
    s->reqs++;
    if (!strcmp(m, "roots/list")) mcp_request_reply(req, "{\"roots\":[{\"uri\":\"file:///work\",\"name\":\"work\"}]}", NULL);
    else if (!strcmp(m, "sampling/createMessage"))
        mcp_request_reply(req, "{\"role\":\"assistant\",\"content\":{\"type\":\"text\",\"text\":\"4\"},\"model\":\"m\"}", NULL);
    else mcp_request_reply_error(req, -32601, "Method not found", NULL);
}

static void cb_progress(void *user, mcp_call *call, double progress, double total, const char *message)
{
    seen *s = (seen *)user;
    (void)call; (void)message;
    if (s->progress < MAXREC) { s->prog[s->progress] = progress; s->total[s->progress] = total; }
    s->progress++;
}

static void desc_for(mcp_client_desc *d, seen *s, mcp_transport_kind kind, const srv *sv, const char *const *headers)
{
    memset(d, 0, sizeof *d);
    memset(s, 0, sizeof *s);
    d->transport = kind;
    d->url = kind == MCP_SSE ? sv->sse_url : sv->url;
    d->headers = headers;
    d->user = s;
    d->on_notification = cb_note;
    d->on_close = cb_close;
    d->on_log = cb_log;
    d->on_request = cb_request;
    d->capabilities = MCP_CAP_ROOTS | MCP_CAP_SAMPLING | MCP_CAP_ELICITATION;
    d->timeout_ms = (int)LATE(5000);
    d->http_listen = -1;         /* the GET stream only where a test asks for it (t_listen: the default) */
}

static mcp_client *open_client(const mcp_client_desc *d)
{
    mcp_error err;
    mcp_client *c = mcp_client_new(d, &err);
    mcp_status st;
    CHECKF(c != NULL, "mcp_client_new: %s", err.message);
    if (!c) return NULL;
    st = mcp_client_connect(c, &err);
    CHECKF(st == MCP_OK, "connect: %s (%s)", err.message, mcp_status_str(st));
    return c;
}

static const char *kind_name(mcp_transport_kind k) { return k == MCP_SSE ? "HTTP+SSE" : "Streamable HTTP"; }

static srv S;                        /* the shared server, no flags */

/* ---- 1. connect over Streamable HTTP ------------------------------------------------------------- */

TEST_CASE(connect_http)
{
    guard g;
    seen s;
    mcp_client_desc d;
    mcp_client *c;
    mcp_error err;
    mcp_status st;
    mcp_json_doc *doc;
    const mcp_json *h;
    mcp_client_stats stats;
    char rec[1024], f[256], sid[128];
    const char *hdrs[] = { "Authorization: Bearer abc", "X-Client-Tag: t1", NULL };
    int i;
    long conns0;
    g_begin(&g, "connect: Streamable HTTP");
    srv_reset(&S);
    conns0 = stat_of(&S, "conns");
    desc_for(&d, &s, MCP_HTTP, &S, hdrs);
    d.client_name = "test-http"; d.client_version = "5.0";
    c = mcp_client_new(&d, &err);
    CHECK(c != NULL);
    st = mcp_client_connect(c, &err);
    EQST(st, MCP_OK, err);
    EQS(mcp_client_protocol_version(c), "2025-11-25");
    EQS(mcp_json_str(mcp_json_get(mcp_client_server_info(c), "name")), "http_server");
    EQS(mcp_json_str(mcp_json_get(mcp_client_server_info(c), "version")), "2.0.0");
    EQS(mcp_client_instructions(c), "Streamable HTTP and HTTP+SSE, with misbehaviours on demand.");

    /* what the server saw: initialize without a session or version header, then every later
       request with both, and the caller's headers on all of them */
    CHECK(log_find(&S, "rpc", "initialize", 0, rec, sizeof rec) == 1);
    EQS(rec_field(rec, "sid", f, sizeof f), "(null)");
    EQS(rec_field(rec, "ver", f, sizeof f), "(null)");
    EQS(rec_field(rec, "auth", f, sizeof f), "Bearer abc");
    EQS(rec_field(rec, "status", f, sizeof f), "200");
    CHECK(log_find(&S, "rpc", "notifications/initialized", 0, rec, sizeof rec) == 1);
    EQS(rec_field(rec, "ver", f, sizeof f), "2025-11-25");
    EQS(rec_field(rec, "status", f, sizeof f), "202");            /* a notification: 202 */
    CHECK(starts_with(rec_field(rec, "sid", sid, sizeof sid), "mcp-"));
    EQS(rec_field(rec, "auth", f, sizeof f), "Bearer abc");

    st = tool(c, "headers", NULL, big, sizeof big, &err);
    EQST(st, MCP_OK, err);
    doc = mcp_json_parse(big, strlen(big), NULL);
    h = mcp_json_root(doc);
    EQS(mcp_json_str(mcp_json_get(h, "mcp-session-id")), sid);
    EQS(mcp_json_str(mcp_json_get(h, "mcp-protocol-version")), "2025-11-25");
    EQS(mcp_json_str(mcp_json_get(h, "accept")), "application/json, text/event-stream");
    EQS(mcp_json_str(mcp_json_get(h, "content-type")), "application/json");
    EQS(mcp_json_str(mcp_json_get(h, "authorization")), "Bearer abc");
    EQS(mcp_json_str(mcp_json_get(h, "x-client-tag")), "t1");
    EQS(mcp_json_str(mcp_json_get(h, "host")), S.origin);
    CHECK(mcp_json_get(h, "content-length") != NULL && mcp_json_get(h, "transfer-encoding") == NULL);
    mcp_json_free(doc);

    /* keep-alive: sequential calls share one connection (connect used at most two: the
       initialized notification may still be on the first when the next request goes) */
    CHECKF(stat_of(&S, "conns") - conns0 <= 2, "%ld connections", stat_of(&S, "conns") - conns0);
    conns0 = stat_of(&S, "conns");
    for (i = 0; i < 20; i++) {
        st = tool(c, "echo", "{\"i\":1}", big, sizeof big, &err);
        EQST(st, MCP_OK, err);
    }
    EQS(big, "{\"i\":1}");
    EQL(stat_of(&S, "conns") - conns0, 0);
    mcp_client_get_stats(c, &stats);
    /* sent: the server/discover probe (refused with HTTP 400), initialize, initialized, headers,
       20 echo; received: 22 answers */
    CHECKF(stats.sent == 24 && stats.received == 22, "sent %llu received %llu", (unsigned long long)stats.sent,
           (unsigned long long)stats.received);
    CHECK(stats.dropped == 0 && stats.unknown_ids == 0);

    /* close: DELETE with the session id, on_close once, later calls fail as closed */
    mcp_client_close(c);
    CHECKF(log_find(&S, "method", "DELETE", 0, rec, sizeof rec) == 1, "DELETE requests: %d", log_find(&S, "method", "DELETE", 0, NULL, 0));
    EQS(rec_field(rec, "sid", f, sizeof f), sid);
    EQS(rec_field(rec, "status", f, sizeof f), "200");
    CHECKF(s.closes == 1, "on_close fired %d times", s.closes);
    EQST(s.why.status, MCP_ERR_CLOSED, s.why);
    EQS(s.why.message, "the client closed the connection");
    st = mcp_client_ping(c, &err);
    EQST(st, MCP_ERR_CLOSED, err);
    EQS(err.message, "Transport closed");
    mcp_client_free(c);
    CHECK(s.closes == 1 && s.logs == 0 && s.notes == 0);
    EQL(stat_of(&S, "open"), 0);                                   /* every connection closed */
    g_end(&g);
}

/* ---- 2. connect over HTTP+SSE (2024-11-05) ----------------------------------------------------- */

TEST_CASE(connect_sse)
{
    guard g;
    seen s;
    mcp_client_desc d;
    mcp_client *c;
    mcp_error err;
    mcp_status st;
    mcp_json_doc *doc;
    char rec[1024], f[256], path[256];
    const char *hdrs[] = { "Authorization: Bearer abc", NULL };
    int i, n;
    g_begin(&g, "connect: HTTP+SSE");
    srv_reset(&S);
    desc_for(&d, &s, MCP_SSE, &S, hdrs);
    c = mcp_client_new(&d, &err);
    st = mcp_client_connect(c, &err);
    EQST(st, MCP_OK, err);
    EQS(mcp_client_protocol_version(c), "2025-11-25");
    EQS(mcp_json_str(mcp_json_get(mcp_client_server_info(c), "name")), "http_server");
    /* one event stream; initialize and everything after it POSTed to the endpoint it named */
    n = log_find(&S, "path", "/sse", 0, rec, sizeof rec);
    CHECKF(n == 1, "GET /sse requests: %d (one stream, one session)", n);
    EQL(stat_of(&S, "sse_gets"), 1);
    EQS(rec_field(rec, "auth", f, sizeof f), "Bearer abc");
    CHECK(log_find(&S, "rpc", "initialize", 0, rec, sizeof rec) == 1);
    rec_field(rec, "path", path, sizeof path);
    CHECK(starts_with(path, "/messages?session=sse-"));
    EQS(rec_field(rec, "status", f, sizeof f), "202");
    CHECK(log_find(&S, "rpc", "notifications/initialized", 0, rec, sizeof rec) == 1);
    EQS(rec_field(rec, "path", f, sizeof f), path);
    for (i = 0; i < 5; i++) {
        st = tool(c, "echo", "{\"legacy\":true}", big, sizeof big, &err);
        EQST(st, MCP_OK, err);
        EQS(big, "{\"legacy\":true}");
    }
    CHECK(log_find(&S, "path", path, 0, NULL, 0) == 7);           /* initialize, initialized, 5 calls */
    /* no Streamable HTTP headers on this transport */
    st = tool(c, "headers", NULL, big, sizeof big, &err);
    EQST(st, MCP_OK, err);
    doc = mcp_json_parse(big, strlen(big), NULL);
    CHECK(mcp_json_get(mcp_json_root(doc), "mcp-session-id") == NULL);
    CHECK(mcp_json_get(mcp_json_root(doc), "mcp-protocol-version") == NULL);
    EQS(mcp_json_str(mcp_json_get(mcp_json_root(doc), "authorization")), "Bearer abc");
    mcp_json_free(doc);
    mcp_client_free(c);
    CHECKF(s.closes == 1, "on_close fired %d times", s.closes);
    EQS(s.why.message, "the client closed the connection");
    CHECK(s.logs == 0);
    CHECK(log_find(&S, "method", "DELETE", 0, NULL, 0) == 0);      /* no DELETE on this transport */
    for (i = 0; i < 100 && stat_of(&S, "open") != 0; i++) nap(10);
    EQL(stat_of(&S, "open"), 0);                                   /* the stream's connection closed */
    g_end(&g);
}

/* ---- 3. versions and their headers ------------------------------------------------------------- */

TEST_CASE(versions)
{
    guard g;
    seen s;
    mcp_client_desc d;
    mcp_client *c;
    mcp_error err;
    mcp_status st;
    char rec[1024], f[64];
    g_begin(&g, "versions and MCP-Protocol-Version");
    /* 2025-06-18 and later: the header on every request after initialize */
    srv_reset(&S);
    desc_for(&d, &s, MCP_HTTP, &S, NULL);
    d.protocol_version = "2025-06-18";
    c = open_client(&d);
    EQS(mcp_client_protocol_version(c), "2025-06-18");
    st = mcp_client_ping(c, &err);
    EQST(st, MCP_OK, err);
    CHECK(log_find(&S, "rpc", "ping", 0, rec, sizeof rec) == 1);
    EQS(rec_field(rec, "ver", f, sizeof f), "2025-06-18");
    mcp_client_free(c);
    /* 2025-03-26 had no such header: none is sent */
    srv_reset(&S);
    desc_for(&d, &s, MCP_HTTP, &S, NULL);
    d.protocol_version = "2025-03-26";
    c = open_client(&d);
    EQS(mcp_client_protocol_version(c), "2025-03-26");
    st = mcp_client_ping(c, &err);
    EQST(st, MCP_OK, err);
    CHECK(log_find(&S, "rpc", "ping", 0, rec, sizeof rec) == 1);
    EQS(rec_field(rec, "ver", f, sizeof f), "(null)");
    CHECK(log_find(&S, "ver", "2025-03-26", 0, NULL, 0) == 0);
    mcp_client_free(c);
    /* the server answers 2024-11-05 over Streamable HTTP: accepted, no header either */
    {
        srv v;
        const char *args[] = { "--version=2024-11-05", NULL };
        if (srv_start(&v, args)) {
            desc_for(&d, &s, MCP_HTTP, &v, NULL);
            c = open_client(&d);
            EQS(mcp_client_protocol_version(c), "2024-11-05");
            st = tool(c, "headers", NULL, big, sizeof big, &err);
            EQST(st, MCP_OK, err);
            CHECK(!contains(big, "mcp-protocol-version") && contains(big, "mcp-session-id"));
            mcp_client_free(c);
            /* an unsupported version: MCP_ERR_PROTOCOL, and the session is ended with DELETE */
            srv_stop(&v);
        }
        args[0] = "--version=1999-01-01";
        if (srv_start(&v, args)) {
            desc_for(&d, &s, MCP_HTTP, &v, NULL);
            c = mcp_client_new(&d, &err);
            st = mcp_client_connect(c, &err);
            EQST(st, MCP_ERR_PROTOCOL, err);
            EQS(err.message, "The server answered initialize with protocol version \"1999-01-01\", but this client "
                             "asked for \"2025-11-25\" and supports 2025-11-25, 2025-06-18, 2025-03-26 and 2024-11-05.");
            CHECK(s.closes == 1);
            CHECK(log_find(&v, "method", "DELETE", 0, NULL, 0) == 1);
            mcp_client_free(c);
            CHECK(s.closes == 1);
            srv_stop(&v);
        }
    }
    g_end(&g);
}

/* Waits (polling the client, which delivers what it sends) until the server's history holds part. */
static int history_has(const srv *sv, mcp_client *c, const char *part, int wait_ms)
{
    int64_t end = mcp_time_ms() + LATE(wait_ms);
    for (;;) {
        char *h = dbg(sv, "history");
        int yes = contains(h, part);
        free(h);
        if (yes || mcp_time_ms() >= end) return yes;
        if (c) mcp_client_poll(c, 10); else nap(10);
    }
}

/* ---- 4. every typed call, over both transports ---------------------------------------------------- */

static void typed_calls(mcp_transport_kind kind, const char *mode)
{
    seen s;
    mcp_client_desc d;
    mcp_client *c;
    mcp_error err;
    mcp_status st;
    mcp_json_doc *doc = NULL;
    const mcp_json *r, *arr;
    char hmode[64], *hist;
    const char *hdrs[2] = { NULL, NULL };
    if (mode) { snprintf(hmode, sizeof hmode, "X-Test-Mode: %s", mode); hdrs[0] = hmode; }
    srv_reset(&S);
    desc_for(&d, &s, kind, &S, hdrs);
    c = open_client(&d);
    if (!c) return;
    st = mcp_client_list_tools(c, &doc, &err);                     /* two pages */
    EQST(st, MCP_OK, err);
    arr = mcp_json_get(mcp_json_root(doc), "tools");
    CHECKF(mcp_json_len(arr) == 14, "%d tools", (int)mcp_json_len(arr));
    EQS(mcp_json_str(mcp_json_get(mcp_json_at(arr, 0), "name")), "echo");
    EQS(mcp_json_str(mcp_json_get(mcp_json_at(arr, 7), "name")), "headers");
    EQS(mcp_json_str(mcp_json_get(mcp_json_at(arr, 13), "name")), "stats");
    mcp_json_free(doc);
    st = mcp_client_call_tool(c, "add", "{\"a\":2,\"b\":3.5}", &doc, &err);
    EQST(st, MCP_OK, err);
    r = mcp_json_root(doc);
    EQS(text_of(r), "5.5");
    CHECK(mcp_json_num(mcp_json_get(mcp_json_get(r, "structuredContent"), "sum")) == 5.5);
    mcp_json_free(doc);
    st = tool(c, "echo", "{\"s\":\"h\\u00e9 \\\"q\\\"\",\"n\":[1,2.5,null,true]}", big, sizeof big, &err);
    EQST(st, MCP_OK, err);
    EQS(big, "{\"s\":\"h\xc3\xa9 \\\"q\\\"\",\"n\":[1,2.5,null,true]}");
    st = tool(c, "echo", NULL, big, sizeof big, &err);
    EQST(st, MCP_OK, err);
    EQS(big, "{}");
    st = mcp_client_call_tool(c, "fail", NULL, &doc, &err);
    EQST(st, MCP_OK, err);
    CHECK(mcp_json_is_true(mcp_json_get(mcp_json_root(doc), "isError")));
    EQS(text_of(mcp_json_root(doc)), "the tool failed");
    mcp_json_free(doc);
    st = mcp_client_call_tool(c, "nosuch", "{}", &doc, &err);
    EQST(st, MCP_ERR_RPC, err);
    CHECK(doc == NULL && err.rpc_code == -32602 && err.http_status == 0);
    EQS(err.message, "MCP error -32602: Unknown tool: nosuch");
    st = tool(c, "big", "{\"bytes\":300000}", big, sizeof big, &err);   /* several reads, chunks */
    EQST(st, MCP_OK, err);
    CHECKF(strlen(big) == 300000 && big[0] == 'x' && big[299999] == 'x', "%d bytes", (int)strlen(big));
    {                                                              /* a 400 KB request */
        size_t n = 400000;
        char *args = (char *)malloc(n + 16);
        memcpy(args, "{\"msg\":\"", 8);
        memset(args + 8, 'q', n);
        memcpy(args + 8 + n, "\"}", 3);
        st = tool(c, "echo", args, big, sizeof big, &err);
        EQST(st, MCP_OK, err);
        CHECK(!strcmp(big, args));
        free(args);
    }

    st = mcp_client_list_resources(c, &doc, &err);
    EQST(st, MCP_OK, err);
    arr = mcp_json_get(mcp_json_root(doc), "resources");
    CHECK(mcp_json_len(arr) == 3);
    EQS(mcp_json_str(mcp_json_get(mcp_json_at(arr, 2), "uri")), "mem://counter");
    mcp_json_free(doc);
    st = mcp_client_list_resource_templates(c, &doc, &err);
    EQST(st, MCP_OK, err);
    EQS(mcp_json_str(mcp_json_get(mcp_json_at(mcp_json_get(mcp_json_root(doc), "resourceTemplates"), 0), "uriTemplate")),
        "file:///tmpl/{path}");
    mcp_json_free(doc);
    st = mcp_client_read_resource(c, "file:///a.txt", &doc, &err);
    EQST(st, MCP_OK, err);
    EQS(mcp_json_str(mcp_json_get(mcp_json_at(mcp_json_get(mcp_json_root(doc), "contents"), 0), "text")),
        "content of file:///a.txt");
    mcp_json_free(doc);
    st = mcp_client_read_resource(c, "file:///missing", &doc, &err);
    EQST(st, MCP_ERR_RPC, err);
    EQS(err.message, "Resource not found: file:///missing (MCP error -32002: Resource not found)");
    st = mcp_client_subscribe(c, "file:///a.txt", &err);
    EQST(st, MCP_OK, err);
    st = mcp_client_unsubscribe(c, "file:///a.txt", &err);
    EQST(st, MCP_OK, err);
    st = mcp_client_list_prompts(c, &doc, &err);
    EQST(st, MCP_OK, err);
    CHECK(mcp_json_len(mcp_json_get(mcp_json_root(doc), "prompts")) == 2);
    mcp_json_free(doc);
    st = mcp_client_get_prompt(c, "greet", "{\"name\":\"Ada\"}", &doc, &err);
    EQST(st, MCP_OK, err);
    EQS(mcp_json_str(mcp_json_get(mcp_json_get(mcp_json_at(mcp_json_get(mcp_json_root(doc), "messages"), 0), "content"),
                                  "text")), "Hello, Ada!");
    mcp_json_free(doc);
    st = mcp_client_get_prompt(c, "greet", NULL, &doc, &err);
    EQST(st, MCP_ERR_RPC, err);
    EQS(err.message, "MCP error -32602: Missing required argument: name");
    st = mcp_client_complete(c, "{\"type\":\"ref/prompt\",\"name\":\"greet\"}", "name", "al", NULL, &doc, &err);
    EQST(st, MCP_OK, err);
    CHECK(mcp_json_len(mcp_json_get(mcp_json_get(mcp_json_root(doc), "completion"), "values")) == 2);
    mcp_json_free(doc);
    st = mcp_client_set_log_level(c, "warning", &err);
    EQST(st, MCP_OK, err);
    st = mcp_client_set_log_level(c, "loud", &err);
    EQST(st, MCP_ERR_RPC, err);
    EQS(err.message, "MCP error -32602: Invalid log level");
    st = mcp_client_ping(c, &err);
    EQST(st, MCP_OK, err);
    st = mcp_client_request(c, "custom/thing", "{\"x\":1}", &doc, &err);
    EQST(st, MCP_ERR_RPC, err);
    EQS(err.message, "MCP error -32601: Method not found");
    st = mcp_client_request(c, "tools/call", "{\"name\":\"echo\",\"arguments\":{\"k\":\"v\"}}", &doc, &err);
    EQST(st, MCP_OK, err);
    EQS(text_of(mcp_json_root(doc)), "{\"k\":\"v\"}");
    mcp_json_free(doc);
    st = mcp_client_notify(c, "notifications/custom", "{\"x\":[1,2]}", &err);
    EQST(st, MCP_OK, err);
    CHECK(history_has(&S, c, "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/custom\",\"params\":{\"x\":[1,2]}}", 2000));
    hist = dbg(&S, "history");
    EQS(hist, "[{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"},"
              "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/custom\",\"params\":{\"x\":[1,2]}}]");
    free(hist);
    if (kind == MCP_HTTP) {                                        /* notifications got 202 */
        char rec[1024], f[32];
        CHECK(log_find(&S, "rpc", "notifications/custom", 0, rec, sizeof rec) == 1);
        EQS(rec_field(rec, "status", f, sizeof f), "202");
    }
    mcp_client_free(c);
    CHECK(s.closes == 1 && s.logs == 0 && s.notes == 0);
}

TEST_CASE(typed)
{
    guard g;
    g_begin(&g, "typed calls: Streamable HTTP");
    typed_calls(MCP_HTTP, NULL);
    g_end(&g);
    g_begin(&g, "typed calls: HTTP+SSE");
    typed_calls(MCP_SSE, NULL);
    g_end(&g);
}

/* ---- 5. JSON and SSE answers, body framings -------------------------------------------------------- */

/* Did every answer (200 to a JSON-RPC request) come on a connection of its own? */
static int answers_on_own_conns(const srv *sv)
{
    mcp_json_doc *d = dbg_json(sv, "log");
    const mcp_json *r;
    size_t i, j;
    int ok = 1, n = 0;
    long ids[512];
    for (i = 0; (r = mcp_json_at(mcp_json_root(d), i)) != NULL; i++) {
        const char *rpc = mcp_json_str(mcp_json_get(r, "rpc"));
        long conn = (long)mcp_json_num(mcp_json_get(r, "conn"));
        if (!rpc || strncmp(rpc, "notifications/", 14) == 0 || mcp_json_num(mcp_json_get(r, "status")) != 200) continue;
        for (j = 0; j < (size_t)n; j++) if (ids[j] == conn) ok = 0;
        if (n < 512) ids[n++] = conn;
    }
    mcp_json_free(d);
    return ok && n > 10;
}

TEST_CASE(answers)
{
    static const char *const modes[] = { "sse", "chunked", "sse,chunked", "until_close", "sse,until_close",
                                         "sse,prime", "sse,noid", NULL };
    guard g;
    int i;
    g_begin(&g, "answers: JSON, SSE, framings");
    for (i = 0; modes[i]; i++) {
        char rec[1024];
        long conns0;
        srv_reset(&S);
        conns0 = stat_of(&S, "conns");
        typed_calls(MCP_HTTP, modes[i]);
        CHECKF(log_find(&S, "mode", modes[i], 0, rec, sizeof rec) > 0, "mode %s not seen by the server", modes[i]);
        if (strstr(modes[i], "until_close"))                       /* a connection per answer */
            CHECKF(answers_on_own_conns(&S), "%s: a connection carried two answers", modes[i]);
        else
            CHECKF(stat_of(&S, "conns") - conns0 <= 3, "%s: %ld connections", modes[i], stat_of(&S, "conns") - conns0);
    }
    /* one answer written a byte at a time, 1 ms apart */
    {
        seen s;
        mcp_client_desc d;
        mcp_client *c;
        mcp_error err;
        mcp_status st;
        int64_t t0;
        desc_for(&d, &s, MCP_HTTP, &S, NULL);
        c = open_client(&d);
        t0 = mcp_time_ms();
        st = tool(c, "echo", "{\"_mode\":\"drip\",\"x\":\"slowly\"}", big, sizeof big, &err);
        EQST(st, MCP_OK, err);
        EQS(big, "{\"_mode\":\"drip\",\"x\":\"slowly\"}");
        CHECKF(mcp_time_ms() - t0 >= 150, "a dripped answer took %lld ms", (long long)(mcp_time_ms() - t0));
        st = tool(c, "echo", "{\"_mode\":\"drip,sse\",\"x\":\"slowly\"}", big, sizeof big, &err);
        EQST(st, MCP_OK, err);
        EQS(big, "{\"_mode\":\"drip,sse\",\"x\":\"slowly\"}");
        st = tool(c, "echo", "{\"_mode\":\"drip,chunked\"}", big, sizeof big, &err);
        EQST(st, MCP_OK, err);
        st = tool(c, "echo", "{\"after\":\"drips\"}", big, sizeof big, &err);   /* same connection, fine */
        EQST(st, MCP_OK, err);
        mcp_client_free(c);
        CHECK(s.logs == 0);
    }
    g_end(&g);
}

/* ---- 6. notifications and server requests on the answer's stream ---------------------------------- */

static void stream_messages(mcp_transport_kind kind)
{
    seen s;
    mcp_client_desc d;
    mcp_client *c;
    mcp_error err;
    mcp_status st;
    mcp_call *call;
    mcp_call_opts o;
    mcp_json_doc *doc = NULL;
    char *hist;
    int reqs;
    srv_reset(&S);
    desc_for(&d, &s, kind, &S, NULL);
    c = open_client(&d);
    if (!c) return;
    /* notify: four notifications, in order, then the answer; progress to the call's callback */
    memset(&o, 0, sizeof o);
    o.on_progress = cb_progress; o.user = &s;
    call = mcp_client_send_tool(c, "notify", NULL, &o, &err);
    CHECK(call != NULL);
    st = mcp_call_wait(call, (int)LATE(5000));
    EQST(st, MCP_OK, err);
    st = mcp_call_result(call, &doc, &err);
    EQS(text_of(mcp_json_root(doc)), "notified");
    mcp_json_free(doc);
    mcp_call_free(call);
    CHECKF(s.notes == 5, "%d notifications", s.notes);
    EQS(s.note[0], "notifications/message");
    EQS(s.note_params[0], "{\"level\":\"info\",\"logger\":\"http_server\",\"data\":\"hello\"}");
    EQS(s.note[1], "notifications/tools/list_changed");
    EQS(s.note[2], "notifications/resources/list_changed");
    EQS(s.note[3], "notifications/prompts/list_changed");
    EQS(s.note[4], "notifications/progress");
    CHECK(s.progress == 1 && s.prog[0] == 1 && s.total[0] == 2);
    /* slow with progress every 40 ms: 5 steps, then the answer */
    s.progress = 0;
    call = mcp_client_send_tool(c, "slow", "{\"ms\":200,\"every\":40}", &o, &err);
    st = mcp_call_wait(call, (int)LATE(5000));
    EQST(st, MCP_OK, err);
    st = mcp_call_result(call, &doc, &err);
    EQS(text_of(mcp_json_root(doc)), "slept 200 ms");
    mcp_json_free(doc);
    mcp_call_free(call);
    CHECKF(s.progress == 5 && s.prog[4] == 5 && s.total[4] == 5, "%d progress calls", s.progress);
    /* requests from the server, interleaved with notifications; our answers go by POST */
    s.notes = 0;
    st = tool(c, "ask", "{\"method\":\"roots/list\",\"notes\":true}", big, sizeof big, &err);
    EQST(st, MCP_OK, err);
    EQS(big, "{\"result\":{\"roots\":[{\"uri\":\"file:///work\",\"name\":\"work\"}]}}");
    CHECK(s.reqs == 1);
    EQS(s.req[0], "roots/list");
    CHECKF(s.notes == 2, "%d notifications", s.notes);
    EQS(s.note_params[0], "{\"level\":\"info\",\"logger\":\"http_server\",\"data\":\"before\"}");
    EQS(s.note_params[1], "{\"level\":\"info\",\"logger\":\"http_server\",\"data\":\"after\"}");
    st = tool(c, "ask", "{\"method\":\"sampling/createMessage\",\"params\":{\"messages\":[],\"maxTokens\":5}}",
              big, sizeof big, &err);
    EQST(st, MCP_OK, err);
    EQS(big, "{\"result\":{\"role\":\"assistant\",\"content\":{\"type\":\"text\",\"text\":\"4\"},\"model\":\"m\"}}");
    EQS(s.req_params[1], "{\"messages\":[],\"maxTokens\":5}");
    reqs = s.reqs;
    st = tool(c, "ask", "{\"method\":\"ping\"}", big, sizeof big, &err);          /* answered for us */
    EQST(st, MCP_OK, err);
    EQS(big, "{\"result\":{}}");
    st = tool(c, "ask", "{\"method\":\"nosuch/method\"}", big, sizeof big, &err);
    EQST(st, MCP_OK, err);
    EQS(big, "{\"error\":{\"code\":-32601,\"message\":\"Method not found\"}}");
    CHECK(s.reqs == reqs);
    /* the server got every answer, on_request's and the library's, as a POSTed JSON-RPC
       response (202 each); the replies themselves: test_transport:server_requests */
    hist = dbg(&S, "history");
    CHECK(contains(hist, "{\"reply\":{\"jsonrpc\":\"2.0\",\"id\":\"a1\",\"result\":{\"roots\":"));
    CHECK(contains(hist, "{\"reply\":{\"jsonrpc\":\"2.0\",\"id\":\"a3\",\"result\":{}}}"));
    CHECK(contains(hist, "{\"reply\":{\"jsonrpc\":\"2.0\",\"id\":\"a4\",\"error\":{\"code\":-32601,"));
    free(hist);
    if (kind == MCP_HTTP) {
        char rec[1024], f[32];
        CHECK(log_find(&S, "rpc", "(response)", 0, rec, sizeof rec) == 4);
        EQS(rec_field(rec, "status", f, sizeof f), "202");
    }
    mcp_client_free(c);
    CHECK(s.closes == 1 && s.logs == 0);
}

TEST_CASE(stream_messages)
{
    guard g;
    g_begin(&g, "stream messages: Streamable HTTP");
    stream_messages(MCP_HTTP);
    g_end(&g);
    g_begin(&g, "stream messages: HTTP+SSE");
    stream_messages(MCP_SSE);
    g_end(&g);
}

/* ---- 7. headers, URLs, TLS: refused at mcp_client_new ----------------------------------------------- */

TEST_CASE(bad_desc)
{
    guard g;
    seen s;
    mcp_client_desc d;
    mcp_error err;
    const char *crlf[] = { "Authorization: Bearer x", "X-Bad: a\r\nInjected: 1", NULL };
    const char *lf[] = { "X-Bad: a\nb", NULL };
    const char *cl[] = { "Content-Length: 5", NULL };
    const char *noname[] = { "no colon here", NULL };
    g_begin(&g, "descriptions refused at new");
    desc_for(&d, &s, MCP_HTTP, &S, crlf);
    CHECK(mcp_client_new(&d, &err) == NULL);
    EQST(err.status, MCP_ERR_INVALID, err);
    EQS(err.message, "The value of the HTTP header \"X-Bad\" contains a carriage return; CR, LF and other control "
                     "characters are not allowed in header values.");
    desc_for(&d, &s, MCP_SSE, &S, lf);
    CHECK(mcp_client_new(&d, &err) == NULL);
    EQST(err.status, MCP_ERR_INVALID, err);
    EQS(err.message, "The value of the HTTP header \"X-Bad\" contains a line feed; CR, LF and other control "
                     "characters are not allowed in header values.");
    desc_for(&d, &s, MCP_HTTP, &S, cl);
    CHECK(mcp_client_new(&d, &err) == NULL);
    EQST(err.status, MCP_ERR_INVALID, err);
    EQS(err.message, "The HTTP header \"Content-Length\" is set by mcp.h itself; leave it out.");
    desc_for(&d, &s, MCP_HTTP, &S, noname);
    CHECK(mcp_client_new(&d, &err) == NULL);
    EQST(err.status, MCP_ERR_INVALID, err);
    desc_for(&d, &s, MCP_HTTP, &S, NULL);
    d.url = "https://127.0.0.1:1/mcp";
    CHECK(mcp_client_new(&d, &err) == NULL);
    EQST(err.status, MCP_ERR_INVALID, err);
    EQS(err.message, "https:// URLs need a TLS hook in desc.tls, because libc has no TLS; examples/tls_openssl.c "
                     "shows one on OpenSSL.");
    d.transport = MCP_SSE;
    CHECK(mcp_client_new(&d, &err) == NULL);
    EQST(err.status, MCP_ERR_INVALID, err);
    d.url = "ftp://127.0.0.1/mcp";
    CHECK(mcp_client_new(&d, &err) == NULL);
    EQST(err.status, MCP_ERR_INVALID, err);
    EQS(err.message, "Invalid URL \"ftp://127.0.0.1/mcp\": only http:// and https:// URLs are supported.");
    d.url = NULL;
    CHECK(mcp_client_new(&d, &err) == NULL);
    EQST(err.status, MCP_ERR_INVALID, err);
    EQS(err.message, "The HTTP transports need desc.url, the server's MCP endpoint.");
    CHECK(s.closes == 0);
    g_end(&g);
}

/* ---- 8. 401 with WWW-Authenticate ------------------------------------------------------------------ */

TEST_CASE(auth)
{
    guard g;
    seen s;
    mcp_client_desc d;
    mcp_client *c;
    mcp_error err;
    mcp_status st;
    srv a;
    char *want;
    const char *args[] = { "--mode=auth", NULL };
    const char *good[] = { "Authorization: Bearer good-token", NULL };
    const char *bad[] = { "Authorization: Bearer stale", NULL };
    g_begin(&g, "401 and the Authorization header");
    if (!srv_start(&a, args)) { g_end(&g); return; }
    want = fmt("HTTP 401: Unauthorized: a valid bearer token is required (WWW-Authenticate: Bearer resource_metadata="
               "\"http://127.0.0.1:%d/.well-known/oauth-protected-resource\") (Mcp-Auth-Server: http://127.0.0.1:%d/auth)",
               a.port, a.port);
    desc_for(&d, &s, MCP_HTTP, &a, bad);
    c = mcp_client_new(&d, &err);
    st = mcp_client_connect(c, &err);
    EQST(st, MCP_ERR_HTTP, err);
    EQL(err.http_status, 401);
    EQS(err.message, want);
    CHECK(s.closes == 1);
    st = mcp_client_ping(c, &err);
    EQST(st, MCP_ERR_CLOSED, err);
    mcp_client_free(c);
    CHECK(s.closes == 1);
    desc_for(&d, &s, MCP_SSE, &a, NULL);                           /* the event stream refused */
    c = mcp_client_new(&d, &err);
    st = mcp_client_connect(c, &err);
    EQST(st, MCP_ERR_HTTP, err);
    EQL(err.http_status, 401);
    EQS(err.message, want);
    mcp_client_free(c);
    CHECK(s.closes == 1);
    /* with the right token: every request carries it */
    srv_reset(&a);
    desc_for(&d, &s, MCP_HTTP, &a, good);
    c = open_client(&d);
    st = tool(c, "echo", "{}", big, sizeof big, &err);
    EQST(st, MCP_OK, err);
    mcp_client_free(c);
    CHECK(log_find(&a, "auth", "Bearer good-token", 0, NULL, 0) == log_find(&a, NULL, NULL, 0, NULL, 0));
    CHECK(log_find(&a, "auth", "Bearer good-token", 0, NULL, 0) == 5);   /* server/discover probe, initialize,
                                                                             initialized, echo, DELETE */
    desc_for(&d, &s, MCP_SSE, &a, good);
    c = open_client(&d);
    st = tool(c, "echo", "{}", big, sizeof big, &err);
    EQST(st, MCP_OK, err);
    mcp_client_free(c);
    free(want);
    srv_stop(&a);
    g_end(&g);
}

/* ---- 9. an expired session: 404, a new initialize, the request again ------------------------------- */

TEST_CASE(expired)
{
    guard g;
    seen s;
    mcp_client_desc d;
    mcp_client *c;
    mcp_error err;
    mcp_status st;
    char rec[1024], f[128], sid1[128], sid2[128];
    mcp_client_stats cs;
    g_begin(&g, "404: expired session");
    srv_reset(&S);
    desc_for(&d, &s, MCP_HTTP, &S, NULL);
    c = open_client(&d);
    st = tool(c, "expire", NULL, big, sizeof big, &err);
    EQST(st, MCP_OK, err);
    EQS(big, "expired");
    log_find(&S, "rpc", "initialize", 0, rec, sizeof rec);
    log_find(&S, "rpc", "tools/call", 0, rec, sizeof rec);
    rec_field(rec, "sid", sid1, sizeof sid1);
    st = tool(c, "echo", "{\"after\":\"expiry\"}", big, sizeof big, &err);
    EQST(st, MCP_OK, err);
    EQS(big, "{\"after\":\"expiry\"}");
    /* the server saw: the echo refused with 404 for the old session, a new initialize without
       a session, initialized and the echo again in the new one */
    CHECK(log_find(&S, "rpc", "tools/call", 1, rec, sizeof rec) == 3);
    EQS(rec_field(rec, "status", f, sizeof f), "404");
    EQS(rec_field(rec, "sid", f, sizeof f), sid1);
    CHECK(log_find(&S, "rpc", "initialize", 1, rec, sizeof rec) == 2);
    EQS(rec_field(rec, "sid", f, sizeof f), "(null)");
    CHECK(log_find(&S, "rpc", "notifications/initialized", 1, rec, sizeof rec) == 2);
    rec_field(rec, "sid", sid2, sizeof sid2);
    CHECK(strcmp(sid1, sid2) != 0 && starts_with(sid2, "mcp-"));
    log_find(&S, "rpc", "tools/call", 2, rec, sizeof rec);
    EQS(rec_field(rec, "status", f, sizeof f), "200");
    EQS(rec_field(rec, "sid", f, sizeof f), sid2);
    EQS(rec_field(rec, "ver", f, sizeof f), "2025-11-25");
    /* again, expired from outside, with a ping */
    free(dbg(&S, "expire"));
    st = mcp_client_ping(c, &err);
    EQST(st, MCP_OK, err);
    CHECK(log_find(&S, "rpc", "initialize", 0, NULL, 0) == 3);
    EQL(stat_of(&S, "inits"), 3);
    /* and with four calls in flight when it expires: one new session, all four go again */
    free(dbg(&S, "expire"));
    {
        mcp_call *calls[4];
        int i;
        for (i = 0; i < 4; i++) calls[i] = mcp_client_send_tool(c, "echo", "{\"four\":1}", NULL, &err);
        for (i = 0; i < 4; i++) {
            EQST(mcp_call_wait(calls[i], (int)LATE(5000)), MCP_OK, err);
            mcp_call_free(calls[i]);
        }
    }
    EQL(stat_of(&S, "inits"), 4);
    mcp_client_get_stats(c, &cs);
    CHECK(cs.dropped == 0 && cs.unknown_ids == 0);
    mcp_client_free(c);
    CHECK(s.closes == 1 && s.logs == 0);
    g_end(&g);
}

/* ---- 10. the GET listener stream ------------------------------------------------------------------ */

TEST_CASE(listen)
{
    guard g;
    seen s;
    mcp_client_desc d;
    mcp_client *c;
    mcp_error err;
    mcp_status st;
    char rec[1024], f[128], sid[128];
    const char *noget[] = { "X-Test-Mode: noget", NULL };
    int i;
    g_begin(&g, "GET listener, 405");
    /* http_listen -1: no GET stream at all */
    srv_reset(&S);
    desc_for(&d, &s, MCP_HTTP, &S, NULL);
    c = open_client(&d);
    st = tool(c, "echo", "{\"n\":1}", big, sizeof big, &err);
    EQST(st, MCP_OK, err);
    mcp_client_poll(c, 50);
    mcp_client_free(c);
    CHECK(log_find(&S, "method", "GET", 0, NULL, 0) == 0);
    /* the default (0): the client opens it after the handshake */
    srv_reset(&S);
    desc_for(&d, &s, MCP_HTTP, &S, NULL);
    d.http_listen = 0;
    c = open_client(&d);
    st = mcp_client_ping(c, &err);
    EQST(st, MCP_OK, err);
    for (i = 0; i < 100 && !log_find(&S, "method", "GET", 0, NULL, 0); i++) mcp_client_poll(c, 10);
    CHECK(log_find(&S, "method", "GET", 0, rec, sizeof rec) == 1);
    EQS(rec_field(rec, "status", f, sizeof f), "200");
    EQS(rec_field(rec, "ver", f, sizeof f), "2025-11-25");
    CHECK(starts_with(rec_field(rec, "sid", sid, sizeof sid), "mcp-"));
    st = tool(c, "bcast", NULL, big, sizeof big, &err);
    EQST(st, MCP_OK, err);
    EQS(big, "sent");
    for (i = 0; i < 100 && s.notes == 0; i++) mcp_client_poll(c, 10);
    CHECKF(s.notes == 1, "%d notifications", s.notes);
    EQS(s.note_params[0], "{\"level\":\"info\",\"logger\":\"http_server\",\"data\":\"broadcast\"}");
    mcp_client_free(c);
    CHECK(s.closes == 1 && s.logs == 0);
    CHECK(log_find(&S, "method", "DELETE", 0, NULL, 0) == 1);
    for (i = 0; i < 100 && stat_of(&S, "open") != 0; i++) nap(10);
    EQL(stat_of(&S, "open"), 0);
    /* 405: the server offers no listener; silently off, calls unaffected, no retries */
    srv_reset(&S);
    desc_for(&d, &s, MCP_HTTP, &S, noget);
    d.http_listen = 1;
    c = open_client(&d);
    for (i = 0; i < 5; i++) {
        st = tool(c, "echo", "{\"n\":5}", big, sizeof big, &err);
        EQST(st, MCP_OK, err);
        mcp_client_poll(c, 20);
    }
    CHECK(log_find(&S, "method", "GET", 0, rec, sizeof rec) == 1);
    EQS(rec_field(rec, "status", f, sizeof f), "405");
    mcp_client_free(c);
    CHECKF(s.logs == 0, "%d log messages, the first: %s", s.logs, s.log[0]);
    CHECK(s.closes == 1);
    g_end(&g);
}

/* ---- 11. resumption: a dropped answer stream --------------------------------------------------------- */

TEST_CASE(resume)
{
    guard g;
    seen s;
    mcp_client_desc d;
    mcp_client *c;
    mcp_error err;
    mcp_status st;
    mcp_call *call;
    char rec[1024], f[128], sid[128], want[256];
    int64_t t0, took;
    int sn = 0, en = 0;
    g_begin(&g, "resumption with Last-Event-ID");
    srv_reset(&S);
    desc_for(&d, &s, MCP_HTTP, &S, NULL);
    c = open_client(&d);
    t0 = mcp_time_ms();
    st = tool(c, "echo", "{\"_mode\":\"drop\",\"v\":7}", big, sizeof big, &err);
    took = mcp_time_ms() - t0;
    EQST(st, MCP_OK, err);
    EQS(big, "{\"_mode\":\"drop\",\"v\":7}");
    CHECKF(took >= 150 && took < LATE(1000), "resumed after %lld ms (retry: 150)", (long long)took);
    EQL(stat_of(&S, "drops"), 1);
    EQL(stat_of(&S, "resumes"), 1);
    CHECK(log_find(&S, "method", "GET", 0, rec, sizeof rec) == 1);
    EQS(rec_field(rec, "status", f, sizeof f), "200");
    rec_field(rec, "lei", f, sizeof f);
    CHECKF(sscanf(f, "%d-%d", &sn, &en) == 2 && en == 1, "Last-Event-ID: %s", f);
    log_find(&S, "rpc", "notifications/initialized", 0, rec, sizeof rec);
    rec_field(rec, "sid", sid, sizeof sid);
    log_find(&S, "method", "GET", 0, rec, sizeof rec);
    EQS(rec_field(rec, "sid", f, sizeof f), sid);
    EQS(rec_field(rec, "ver", f, sizeof f), "2025-11-25");
    /* what came after the drop (notifications, then the answer) arrives through the resumption */
    s.notes = 0;
    st = tool(c, "notify", "{\"_mode\":\"drop\"}", big, sizeof big, &err);
    EQST(st, MCP_OK, err);
    EQS(big, "notified");
    CHECKF(s.notes == 4, "%d notifications", s.notes);
    EQS(s.note[3], "notifications/prompts/list_changed");
    EQL(stat_of(&S, "resumes"), 2);
    /* a drop with no event id: nothing to resume; the call fails at once */
    call = mcp_client_send_tool(c, "echo", "{\"_mode\":\"dropnoid\"}", NULL, &err);
    t0 = mcp_time_ms();
    st = mcp_call_wait(call, (int)LATE(5000));
    EQST(st, MCP_ERR_PROTOCOL, err);
    mcp_call_result(call, NULL, &err);
    snprintf(want, sizeof want, "No response received for request ID %lld: its event stream ended (the connection "
             "closed before the last chunk of a chunked body) without an event id to resume it from",
             (long long)mcp_call_id(call));
    EQS(err.message, want);
    CHECKF(mcp_time_ms() - t0 < LATE(500), "took %lld ms", (long long)(mcp_time_ms() - t0));
    mcp_call_free(call);
    EQL(stat_of(&S, "resumes"), 2);
    st = tool(c, "echo", "{\"still\":\"fine\"}", big, sizeof big, &err);
    EQST(st, MCP_OK, err);
    mcp_client_free(c);
    CHECK(s.closes == 1 && s.logs == 0);
    g_end(&g);
}

/* ---- 12. keep-alive: reuse, idle close, a close that races the request ------------------------------ */

TEST_CASE(keepalive)
{
    guard g;
    seen s;
    mcp_client_desc d;
    mcp_client *c;
    mcp_error err;
    mcp_status st;
    const char *idle[] = { "X-Test-Mode: idle", NULL };
    const char *racy[] = { "X-Test-Mode: racy", NULL };
    char r1[1024], r2[1024], f1[32], f2[32];
    long conns0;
    int i;
    g_begin(&g, "keep-alive: idle close, racy close");
    srv_reset(&S);
    desc_for(&d, &s, MCP_HTTP, &S, idle);
    c = open_client(&d);
    st = tool(c, "echo", "{\"n\":1}", big, sizeof big, &err);
    EQST(st, MCP_OK, err);
    conns0 = stat_of(&S, "conns");
    nap(100);                                                       /* the server closes it at 30 ms */
    st = tool(c, "echo", "{\"n\":2}", big, sizeof big, &err);
    EQST(st, MCP_OK, err);
    EQS(big, "{\"n\":2}");
    EQL(stat_of(&S, "conns") - conns0, 1);
    log_find(&S, "rpc", "tools/call", 0, r1, sizeof r1);
    log_find(&S, "rpc", "tools/call", 1, r2, sizeof r2);
    CHECK(strcmp(rec_field(r1, "conn", f1, sizeof f1), rec_field(r2, "conn", f2, sizeof f2)) != 0);
    mcp_client_free(c);
    CHECK(s.logs == 0 && s.closes == 1);
    /* the server closes a kept-alive connection just as the next request arrives: a request
       that is safe to repeat goes again, once, on a new connection; a tools/call does not (the
       server may have run it) and fails saying so */
    srv_reset(&S);
    desc_for(&d, &s, MCP_HTTP, &S, racy);
    c = open_client(&d);                                  /* initialize was repeated already */
    for (i = 0; i < 5; i++) {
        mcp_json_doc *doc = NULL;
        st = mcp_client_list_tools(c, &doc, &err);
        EQST(st, MCP_OK, err);
        mcp_json_free(doc);
    }
    CHECKF(stat_of(&S, "racy") >= 3, "%ld requests closed on arrival", stat_of(&S, "racy"));
    CHECK(log_find(&S, "rpc", "tools/list", 0, NULL, 0) >= 5);
    {
        mcp_client_stats cs;
        mcp_client_get_stats(c, &cs);
        CHECKF(cs.resent >= 3 && (long)cs.resent <= stat_of(&S, "racy"), "resent %llu, racy %ld",
               (unsigned long long)cs.resent, stat_of(&S, "racy"));
    }
    st = tool(c, "echo", "{\"r\":1}", big, sizeof big, &err);
    CHECK(st == MCP_ERR_CLOSED || st == MCP_ERR_IO);
    CHECKF(strstr(err.message, "after the tools/call request was sent, before any answer; the server may have run "
                  "it, so it was not sent again.") != NULL, "%s", err.message);
    mcp_client_free(c);
    CHECKF(s.logs == 0, "%d log messages, the first: %s", s.logs, s.log[0]);
    CHECK(s.closes == 1);
    /* the same with several kept-alive connections in the pool (calls were in flight at once):
       servers close idle connections on a timer, so when one turned out stale the others are
       too; the request must still go out once more and succeed */
    srv_reset(&S);
    desc_for(&d, &s, MCP_HTTP, &S, racy);
    c = open_client(&d);
    {
        mcp_call *calls[3];
        for (i = 0; i < 3; i++) calls[i] = mcp_client_send(c, "tools/list", NULL, NULL, &err);   /* safe to repeat */
        for (i = 0; i < 3; i++) {
            EQST(mcp_call_wait(calls[i], (int)LATE(5000)), MCP_OK, err);
            mcp_call_free(calls[i]);
        }
    }
    CHECKF(stat_of(&S, "open") >= 3, "%ld connections open", stat_of(&S, "open"));
    for (i = 0; i < 3; i++) {
        st = mcp_client_ping(c, &err);
        EQST(st, MCP_OK, err);
    }
    mcp_client_free(c);
    CHECKF(s.logs == 0, "%d log messages, the first: %s", s.logs, s.log[0]);
    g_end(&g);
}

/* ---- 13. broken responses ---------------------------------------------------------------------------- */

TEST_CASE(broken)
{
    guard g;
    seen s;
    mcp_client_desc d;
    mcp_client *c;
    mcp_error err;
    mcp_status st;
    mcp_call *call;
    char want[512];
    long id;
    g_begin(&g, "broken responses");
    srv_reset(&S);
    desc_for(&d, &s, MCP_HTTP, &S, NULL);
    c = open_client(&d);
    /* the connection closes in the middle of a Content-Length body */
    call = mcp_client_send_tool(c, "echo", "{\"_mode\":\"cut\",\"pad\":\"0123456789\"}", NULL, &err);
    id = (long)mcp_call_id(call);
    st = mcp_call_wait(call, (int)LATE(5000));
    mcp_call_result(call, NULL, &err);
    EQST(st, MCP_ERR_PROTOCOL, err);
    snprintf(want, sizeof want, "No response received for request ID %ld (the connection to %s closed: the connection "
             "closed before the whole Content-Length body arrived)", id, S.origin);
    EQS(err.message, want);
    mcp_call_free(call);
    st = tool(c, "echo", "{\"ok\":1}", big, sizeof big, &err);
    EQST(st, MCP_OK, err);
    /* an invalid chunk size */
    st = tool(c, "echo", "{\"_mode\":\"badchunk\"}", big, sizeof big, &err);
    EQST(st, MCP_ERR_PARSE, err);
    snprintf(want, sizeof want, "The HTTP response from %s is malformed: a chunk size is not a hexadecimal number.", S.origin);
    EQS(err.message, want);
    CHECK(err.http_status == 0 && err.rpc_code == 0);
    st = tool(c, "echo", "{\"ok\":2}", big, sizeof big, &err);
    EQST(st, MCP_OK, err);
    /* response headers over the limit */
    st = tool(c, "echo", "{\"_mode\":\"bighead\"}", big, sizeof big, &err);
    EQST(st, MCP_ERR_LIMIT, err);
    snprintf(want, sizeof want, "The HTTP response from %s is too large: the response head is larger than the limit.", S.origin);
    EQS(err.message, want);
    st = tool(c, "echo", "{\"_mode\":\"manyhead\"}", big, sizeof big, &err);
    EQST(st, MCP_ERR_LIMIT, err);
    snprintf(want, sizeof want, "The HTTP response from %s is too large: the response has more headers than the limit.", S.origin);
    EQS(err.message, want);
    st = tool(c, "echo", "{\"ok\":3}", big, sizeof big, &err);
    EQST(st, MCP_OK, err);
    /* a wrong content type */
    st = tool(c, "echo", "{\"_mode\":\"ctype\"}", big, sizeof big, &err);
    EQST(st, MCP_ERR_PROTOCOL, err);
    EQS(err.message, "The server answered with Content-Type \"text/plain\", where application/json or "
                     "text/event-stream was expected");
    CHECK(err.http_status == 0);
    st = tool(c, "echo", "{\"ok\":4}", big, sizeof big, &err);
    EQST(st, MCP_OK, err);
    EQS(big, "{\"ok\":4}");
    mcp_client_free(c);
    CHECK(s.closes == 1);
    /* answers over desc.max_message: as JSON, and as an SSE event */
    desc_for(&d, &s, MCP_HTTP, &S, NULL);
    d.max_message = 100000;
    c = open_client(&d);
    st = tool(c, "big", "{\"bytes\":200000}", big, sizeof big, &err);
    EQST(st, MCP_ERR_LIMIT, err);
    EQS(err.message, "The server's response is larger than the limit of 100000 bytes.");
    st = tool(c, "big", "{\"bytes\":200000,\"_mode\":\"sse,prime\"}", big, sizeof big, &err);
    EQST(st, MCP_ERR_LIMIT, err);
    st = tool(c, "big", "{\"bytes\":90000,\"_mode\":\"sse\"}", big, sizeof big, &err);
    EQST(st, MCP_OK, err);
    mcp_client_free(c);
    CHECK(s.closes == 1);
    g_end(&g);
}

/* ---- 14. timeouts and cancellation -------------------------------------------------------------------- */

static void timeouts(mcp_transport_kind kind)
{
    seen s;
    mcp_client_desc d;
    mcp_client *c;
    mcp_error err;
    mcp_status st;
    mcp_call *call;
    mcp_call_opts o;
    char want[256];
    int64_t t0, took;
    srv_reset(&S);
    desc_for(&d, &s, kind, &S, NULL);
    c = open_client(&d);
    memset(&o, 0, sizeof o);
    o.timeout_ms = 300;
    t0 = mcp_time_ms();
    call = mcp_client_send_tool(c, "never", NULL, &o, &err);
    st = mcp_call_wait(call, -1);
    took = mcp_time_ms() - t0;
    EQST(st, MCP_ERR_TIMEOUT, err);
    mcp_call_result(call, NULL, &err);
    EQS(err.message, "Request timeout after 300ms");
    CHECKF(took >= 300 && took < LATE(1000), "took %lld ms", (long long)took);
    snprintf(want, sizeof want, "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/cancelled\",\"params\":{\"requestId\":%lld,"
             "\"reason\":\"Request timeout after 300ms\"}}", (long long)mcp_call_id(call));
    CHECKF(history_has(&S, c, want, 1000), "the server did not get %s", want);
    mcp_call_free(call);
    call = mcp_client_send_tool(c, "never", NULL, NULL, &err);
    mcp_client_poll(c, 50);
    st = mcp_call_cancel(call, "user abort");
    EQST(st, MCP_OK, err);
    st = mcp_call_result(call, NULL, &err);
    EQST(st, MCP_ERR_CANCELLED, err);
    EQS(err.message, "Request cancelled: user abort");
    snprintf(want, sizeof want, "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/cancelled\",\"params\":{\"requestId\":%lld,"
             "\"reason\":\"user abort\"}}", (long long)mcp_call_id(call));
    mcp_call_free(call);
    mcp_client_poll(c, 0);
    CHECKF(history_has(&S, c, want, 1000), "the server did not get %s", want);
    st = tool(c, "echo", "{\"alive\":true}", big, sizeof big, &err);
    EQST(st, MCP_OK, err);
    mcp_client_free(c);
    CHECK(s.closes == 1 && s.logs == 0);
}

TEST_CASE(timeouts)
{
    guard g;
    seen s;
    mcp_client_desc d;
    mcp_client *c;
    mcp_error err;
    mcp_status st;
    srv h;
    const char *args[] = { "--mode=hang", NULL };
    g_begin(&g, "timeouts, cancellation: Streamable HTTP");
    timeouts(MCP_HTTP);
    g_end(&g);
    g_begin(&g, "timeouts, cancellation: HTTP+SSE");
    timeouts(MCP_SSE);
    g_end(&g);
    g_begin(&g, "a server that never answers");
    if (srv_start(&h, args)) {
        desc_for(&d, &s, MCP_HTTP, &h, NULL);
        d.timeout_ms = 300;
        c = mcp_client_new(&d, &err);
        st = mcp_client_connect(c, &err);
        EQST(st, MCP_ERR_TIMEOUT, err);
        EQS(err.message, "Request timeout after 300ms");
        CHECK(s.closes == 1);
        mcp_client_free(c);
        desc_for(&d, &s, MCP_SSE, &h, NULL);
        d.timeout_ms = 300;
        c = mcp_client_new(&d, &err);
        st = mcp_client_connect(c, &err);
        EQST(st, MCP_ERR_TIMEOUT, err);
        EQS(err.message, "Request timeout after 300ms");
        mcp_client_free(c);
        CHECK(s.closes == 1);
        srv_stop(&h);
    }
    g_end(&g);
}

/* ---- 15. HTTP+SSE: the endpoint event, the stream's end ---------------------------------------------- */

TEST_CASE(legacy)
{
    guard g;
    seen s;
    mcp_client_desc d;
    mcp_client *c;
    mcp_error err;
    mcp_status st;
    const char *abs_ep[] = { "X-Test-Mode: absep", NULL };
    g_begin(&g, "HTTP+SSE: endpoint, stream end");
    srv_reset(&S);                                                 /* an absolute URL, same origin */
    desc_for(&d, &s, MCP_SSE, &S, abs_ep);
    c = open_client(&d);
    st = tool(c, "echo", "{\"abs\":1}", big, sizeof big, &err);
    EQST(st, MCP_OK, err);
    mcp_client_free(c);
    /* the stream ends while a call is in flight: the transport is closed */
    desc_for(&d, &s, MCP_SSE, &S, NULL);
    c = open_client(&d);
    st = tool(c, "hangup", NULL, big, sizeof big, &err);
    EQST(st, MCP_ERR_CLOSED, err);
    EQS(err.message, "Transport closed (the server closed the event stream (the connection closed before the last "
                     "chunk of a chunked body))");
    CHECK(s.closes == 1);
    EQST(s.why.status, MCP_ERR_CLOSED, s.why);
    EQS(s.why.message, "the server closed the event stream (the connection closed before the last chunk of a chunked "
                       "body)");
    st = mcp_client_ping(c, &err);
    EQST(st, MCP_ERR_CLOSED, err);
    EQS(err.message, "Transport closed");
    CHECK(mcp_client_poll(c, 0) == MCP_ERR_CLOSED);
    mcp_client_free(c);
    CHECK(s.closes == 1);
    g_end(&g);
}
/* ---- 16. connect errors ------------------------------------------------------------------------------- */

static int closed_port(void)
{
    struct sockaddr_in a;
    socklen_t l = sizeof a;
    int fd = socket(AF_INET, SOCK_STREAM, 0), p;
    memset(&a, 0, sizeof a);
    a.sin_family = AF_INET;
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    bind(fd, (struct sockaddr *)&a, sizeof a);
    getsockname(fd, (struct sockaddr *)&a, &l);
    p = ntohs(a.sin_port);
    close(fd);                                                     /* nobody listens there now */
    return p;
}

TEST_CASE(refused)
{
    guard g;
    seen s;
    mcp_client_desc d;
    mcp_client *c;
    mcp_error err;
    mcp_status st;
    srv fake;
    char want[256];
    int k;
    g_begin(&g, "connect refused");
    memset(&fake, 0, sizeof fake);
    fake.port = closed_port();
    snprintf(fake.url, sizeof fake.url, "http://127.0.0.1:%d/mcp", fake.port);
    snprintf(fake.sse_url, sizeof fake.sse_url, "http://127.0.0.1:%d/sse", fake.port);
    snprintf(want, sizeof want, "Could not connect to 127.0.0.1:%d: Connection refused.", fake.port);
    for (k = 0; k < 2; k++) {
        desc_for(&d, &s, k ? MCP_SSE : MCP_HTTP, &fake, NULL);
        c = mcp_client_new(&d, &err);
        st = mcp_client_connect(c, &err);
        EQST(st, MCP_ERR_IO, err);
        EQL(err.sys_errno, ECONNREFUSED);
        EQS(err.message, want);
        CHECK(s.closes == 1);
        st = mcp_client_ping(c, &err);
        EQST(st, MCP_ERR_CLOSED, err);
        mcp_client_free(c);
        CHECK(s.closes == 1);
    }
    g_end(&g);
}

/* A listener whose accept queue is full: the SYN is dropped, the connect times out. */
TEST_CASE(connect_timeout)
{
    guard g;
    seen s;
    mcp_client_desc d;
    mcp_client *c;
    mcp_error err;
    mcp_status st;
    struct sockaddr_in a;
    socklen_t l = sizeof a;
    int lfd, f1, f2, k;
    int64_t t0;
    srv fake;
    char want[256];
    g_begin(&g, "connect timeout");
    lfd = socket(AF_INET, SOCK_STREAM, 0);
    memset(&a, 0, sizeof a);
    a.sin_family = AF_INET;
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    bind(lfd, (struct sockaddr *)&a, sizeof a);
    listen(lfd, 0);
    getsockname(lfd, (struct sockaddr *)&a, &l);
    f1 = socket(AF_INET, SOCK_STREAM, 0);
    connect(f1, (struct sockaddr *)&a, sizeof a);                 /* fills the queue */
    f2 = socket(AF_INET, SOCK_STREAM, 0);
    fcntl(f2, F_SETFL, O_NONBLOCK);
    connect(f2, (struct sockaddr *)&a, sizeof a);
    memset(&fake, 0, sizeof fake);
    fake.port = ntohs(a.sin_port);
    snprintf(fake.url, sizeof fake.url, "http://127.0.0.1:%d/mcp", fake.port);
    snprintf(fake.sse_url, sizeof fake.sse_url, "http://127.0.0.1:%d/sse", fake.port);
    snprintf(want, sizeof want, "Could not connect to 127.0.0.1:%d: no answer within 300 ms.", fake.port);
    for (k = 0; k < 2; k++) {
        desc_for(&d, &s, k ? MCP_SSE : MCP_HTTP, &fake, NULL);
        d.connect_timeout_ms = 300;
        c = mcp_client_new(&d, &err);
        t0 = mcp_time_ms();
        st = mcp_client_connect(c, &err);
        EQST(st, MCP_ERR_TIMEOUT, err);
        EQS(err.message, want);
        EQL(err.sys_errno, ETIMEDOUT);
        CHECKF(mcp_time_ms() - t0 >= 290 && mcp_time_ms() - t0 < LATE(1500), "took %lld ms", (long long)(mcp_time_ms() - t0));
        mcp_client_free(c);
        CHECK(s.closes == 1);
    }
    close(f1); close(f2); close(lfd);
    g_end(&g);
}

/* The test server itself: it exits with status 0 on SIGTERM too (the tests stop it by stdin). */
TEST_CASE(server_sigterm)
{
    guard g;
    srv t;
    int status = 0, i;
    pid_t r = 0;
    g_begin(&g, "test server: SIGTERM");
    if (srv_start(&t, NULL)) {
        free(dbg(&t, "stats"));
        kill(t.pid, SIGTERM);
        for (i = 0; i < 300 && (r = waitpid(t.pid, &status, WNOHANG)) == 0; i++) nap(10);
        if (r == 0) { kill(t.pid, SIGKILL); waitpid(t.pid, &status, 0); }
        CHECKF(r == t.pid && WIFEXITED(status) && WEXITSTATUS(status) == 0, "status %d", status);
        close(t.in);
    }
    g_end(&g);
}

/* ---- 17. several calls in flight, each on its own connection ------------------------------------------ */

TEST_CASE(inflight)
{
    guard g;
    seen s;
    mcp_client_desc d;
    mcp_client *c;
    mcp_error err;
    mcp_status st;
    mcp_call *calls[6];
    mcp_json_doc *doc;
    int64_t t0, took;
    int i, k;
    g_begin(&g, "calls in flight");
    for (k = 0; k < 2; k++) {
        srv_reset(&S);
        desc_for(&d, &s, k ? MCP_SSE : MCP_HTTP, &S, NULL);
        c = open_client(&d);
        t0 = mcp_time_ms();
        for (i = 0; i < 6; i++) {
            char a[64];
            snprintf(a, sizeof a, "{\"ms\":%d}", 300 - 40 * i);   /* the last sent answers first */
            calls[i] = mcp_client_send_tool(c, "slow", a, NULL, &err);
            CHECK(calls[i] != NULL);
        }
        for (i = 0; i < 6; i++) {
            char want[64];
            st = mcp_call_wait(calls[i], (int)LATE(5000));
            EQST(st, MCP_OK, err);
            mcp_call_result(calls[i], &doc, &err);
            snprintf(want, sizeof want, "slept %d ms", 300 - 40 * i);
            EQS(text_of(mcp_json_root(doc)), want);
            mcp_json_free(doc);
            mcp_call_free(calls[i]);
        }
        took = mcp_time_ms() - t0;
        CHECKF(took >= 300 && took < LATE(900), "%s: 6 calls in flight took %lld ms", kind_name(d.transport),
               (long long)took);
        if (!k) CHECKF(stat_of(&S, "max_open") >= 6, "at most %ld connections open at once", stat_of(&S, "max_open"));
        mcp_client_free(c);
    }
    g_end(&g);
}

/* ---- 18. the non-blocking API in an outside poll() loop ----------------------------------------------- */

static void outside_loop(mcp_transport_kind kind)
{
    seen s;
    mcp_client_desc d;
    mcp_client *c;
    mcp_error err;
    mcp_call *calls[3];
    mcp_json_doc *doc;
    mcp_pollfd f[16];
    struct pollfd pf[16];
    int i, n, rounds = 0, maxfds = 0, done;
    int64_t end;
    mcp_call *conn_call;
    srv_reset(&S);
    desc_for(&d, &s, kind, &S, NULL);
    c = mcp_client_new(&d, &err);
    conn_call = mcp_client_connect_begin(c, &err);                 /* connect without blocking too */
    CHECK(conn_call != NULL);
    end = mcp_time_ms() + LATE(5000);
    while (mcp_call_status(conn_call) == MCP_AGAIN && mcp_time_ms() < end) {
        n = mcp_client_pollfds(c, f, 16);
        for (i = 0; i < n; i++) { pf[i].fd = f[i].fd; pf[i].events = f[i].events; pf[i].revents = 0; }
        poll(pf, (nfds_t)n, mcp_client_next_timeout(c));
        mcp_client_poll(c, 0);
    }
    EQST(mcp_call_status(conn_call), MCP_OK, err);
    mcp_call_free(conn_call);
    calls[0] = mcp_client_send_tool(c, "echo", "{\"loop\":1}", NULL, &err);
    calls[1] = mcp_client_send_tool(c, "slow", "{\"ms\":100}", NULL, &err);
    calls[2] = mcp_client_send_tool(c, "notify", NULL, NULL, &err);
    for (done = 0; !done && mcp_time_ms() < end; rounds++) {
        n = mcp_client_pollfds(c, f, 16);
        if (n > maxfds) maxfds = n;
        for (i = 0; i < n; i++) {
            pf[i].fd = f[i].fd; pf[i].events = f[i].events; pf[i].revents = 0;
            CHECK(f[i].fd >= 0 && (f[i].events == POLLIN || f[i].events == POLLOUT));
        }
        poll(pf, (nfds_t)n, mcp_client_next_timeout(c));
        mcp_client_poll(c, 0);
        for (done = 1, i = 0; i < 3; i++) if (mcp_call_status(calls[i]) == MCP_AGAIN) done = 0;
    }
    CHECK(done);
    CHECKF(maxfds >= 2, "at most %d fds to watch", maxfds);
    for (i = 0; i < 3; i++) {
        static const char *const want[] = { "{\"loop\":1}", "slept 100 ms", "notified" };
        EQST(mcp_call_result(calls[i], &doc, &err), MCP_OK, err);
        EQS(text_of(mcp_json_root(doc)), want[i]);
        mcp_json_free(doc);
        mcp_call_free(calls[i]);
    }
    CHECK(s.notes == 4);
    CHECK(rounds < 200);
    CHECK(mcp_client_next_timeout(c) == -1);                       /* nothing due */
    mcp_client_free(c);
    CHECK(s.closes == 1);
}

TEST_CASE(outside_loop)
{
    guard g;
    g_begin(&g, "outside poll loop");
    outside_loop(MCP_HTTP);
    outside_loop(MCP_SSE);
    g_end(&g);
}

/* ---- 19. close: in-flight calls, DELETE refused ---------------------------------------------------------- */

TEST_CASE(close)
{
    guard g;
    seen s;
    mcp_client_desc d;
    mcp_client *c;
    mcp_error err;
    mcp_status st;
    mcp_call *call;
    const char *nodelete[] = { "X-Test-Mode: nodelete", NULL };
    char rec[1024], f[32];
    int64_t t0;
    int k;
    g_begin(&g, "close");
    for (k = 0; k < 2; k++) {
        srv_reset(&S);
        desc_for(&d, &s, k ? MCP_SSE : MCP_HTTP, &S, NULL);
        c = open_client(&d);
        call = mcp_client_send_tool(c, "never", NULL, NULL, &err);
        mcp_client_poll(c, 50);
        t0 = mcp_time_ms();
        mcp_client_close(c);
        CHECKF(mcp_time_ms() - t0 < LATE(500), "close took %lld ms", (long long)(mcp_time_ms() - t0));
        st = mcp_call_result(call, NULL, &err);
        EQST(st, MCP_ERR_CLOSED, err);
        EQS(err.message, "Transport closed");
        CHECK(s.closes == 1);
        mcp_call_free(call);
        mcp_client_free(c);
        CHECK(s.closes == 1);
        CHECK(log_find(&S, "method", "DELETE", 0, NULL, 0) == (k ? 0 : 1));
    }
    /* what was sent just before close still reaches the server: a cancellation, a notification */
    for (k = 0; k < 2; k++) {
        char want[256];
        srv_reset(&S);
        desc_for(&d, &s, k ? MCP_SSE : MCP_HTTP, &S, NULL);
        c = open_client(&d);
        call = mcp_client_send_tool(c, "never", NULL, NULL, &err);
        mcp_client_poll(c, 50);
        mcp_call_cancel(call, "bye");
        snprintf(want, sizeof want, "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/cancelled\",\"params\":{\"requestId\":%lld,"
                 "\"reason\":\"bye\"}}", (long long)mcp_call_id(call));
        mcp_call_free(call);
        st = mcp_client_notify(c, "notifications/custom", "{\"last\":1}", &err);
        EQST(st, MCP_OK, err);
        mcp_client_free(c);
        CHECKF(history_has(&S, NULL, want, 500), "%s: the server never got %s", kind_name(d.transport), want);
        CHECKF(history_has(&S, NULL, "\"method\":\"notifications/custom\",\"params\":{\"last\":1}}", 500),
               "%s: the server never got the last notification", kind_name(d.transport));
    }
    /* the server does not let sessions be deleted (405): close is fine anyway */
    srv_reset(&S);
    desc_for(&d, &s, MCP_HTTP, &S, nodelete);
    c = open_client(&d);
    mcp_client_free(c);
    CHECK(log_find(&S, "method", "DELETE", 0, rec, sizeof rec) == 1);
    EQS(rec_field(rec, "status", f, sizeof f), "405");
    CHECK(s.closes == 1);
    EQS(s.why.message, "the client closed the connection");
    /* a session-less server: no DELETE at all */
    {
        const char *nosess[] = { "X-Test-Mode: nosession", NULL };
        srv_reset(&S);
        desc_for(&d, &s, MCP_HTTP, &S, nosess);
        c = open_client(&d);
        st = tool(c, "headers", NULL, big, sizeof big, &err);
        EQST(st, MCP_OK, err);
        CHECK(!contains(big, "mcp-session-id"));
        mcp_client_free(c);
        CHECK(log_find(&S, "method", "DELETE", 0, NULL, 0) == 0);
    }
    g_end(&g);
}


/* Last: under AddressSanitizer a use after free stops the program here. */
TEST_CASE(cross_origin)
{
    guard g;
    seen s;
    mcp_client_desc d;
    mcp_client *c;
    mcp_error err;
    mcp_status st;
    srv x;
    const char *cross[] = { "--mode=cross", NULL };
    g_begin(&g, "HTTP+SSE: cross-origin endpoint");
    if (srv_start(&x, cross)) {                                    /* another origin: refused */
        desc_for(&d, &s, MCP_SSE, &x, NULL);
        c = mcp_client_new(&d, &err);
        st = mcp_client_connect(c, &err);
        EQST(st, MCP_ERR_PROTOCOL, err);
        CHECKF(contains(err.message, "names another origin (http://evil.example:") &&
               contains(err.message, "); it was refused"), "message: %s", err.message);
        CHECK(s.closes == 1);
        EQST(s.why.status, MCP_ERR_PROTOCOL, s.why);
        CHECK(log_find(&x, "method", "POST", 0, NULL, 0) == 0);   /* nothing was sent there */
        mcp_client_free(c);
        srv_stop(&x);
    }
    g_end(&g);
}

int main(int argc, char **argv)
{
    const char *srvp;
    char guess[PATH_MAX];
    struct sigaction sa;
    int64_t t0 = mcp_time_ms();
    test_args(&argc, argv);
    srvp = argc > 2 ? argv[2] : getenv("MCP_TEST_HTTP_SERVER");
    if (!srvp || !*srvp) {
        const char *ts = getenv("MCP_TEST_SERVER");
        const char *slash = ts ? strrchr(ts, '/') : NULL;
        if (slash) snprintf(guess, sizeof guess, "%.*s/http_server", (int)(slash - ts), ts);
        else snprintf(guess, sizeof guess, "build/http_server");
        srvp = guess;
    }
    if (getenv("LD_PRELOAD") && strstr(getenv("LD_PRELOAD"), "vgpreload")) slack = 10;   /* valgrind */
    if (getenv("MCP_TEST_SLACK") && atoi(getenv("MCP_TEST_SLACK")) > 0) slack = atoi(getenv("MCP_TEST_SLACK"));
    if (!realpath(srvp, server_path) || access(server_path, X_OK)) {
        fprintf(stderr, "test_http_client: the HTTP test server \"%s\" is missing: build it from "
                        "tests/servers/http_server.c, or pass its path as argv[2] or MCP_TEST_HTTP_SERVER\n", srvp);
        CHECK(!"HTTP test server present");
        return TEST_DONE();
    }
    sigaction(SIGPIPE, NULL, &sa);
    CHECKF(sa.sa_handler == SIG_DFL, "SIGPIPE must keep its default disposition in this test");
    if (!srv_start(&S, NULL)) return TEST_DONE();

    test_run();

    srv_stop(&S);
    printf("# total %lld ms\n", (long long)(mcp_time_ms() - t0));
    return TEST_DONE();
}
