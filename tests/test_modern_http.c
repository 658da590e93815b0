/* Tests of protocol 2026-07-28 over HTTP (>>client, >>transport; issue 7, the HTTP part), through
   the public API only, against tests/servers/http_server.c in its modern (--era=modern), dual
   (--era=dual) and legacy modes. What the server saw is read back from its /debug pages: the
   request log (JSON-RPC method and id, MCP-Protocol-Version, Mcp-Method, Mcp-Name, the Mcp-Param
   headers, session id, status), the raw bytes of one request (capture), the ids of requests
   whose stream the client closed (cancels) and counters.

   Scenarios, in order:
     era detection: a modern server (server/discover only, then stateless calls); a legacy one
       refusing the probe with a plain 400, 404 or 405, with a non-modern JSON-RPC error in a
       400, or with HTTP 200 and -32601 (each: initialize follows); an HTTP+SSE-only server
       (the probe and initialize refused: GET on the same URL, for /mcp and /sse); -32022 with
       a supported list (none of ours: MCP_ERR_PROTOCOL; ours after a refusal: sent again once;
       a legacy version in it: initialize); a modern server without server/discover (404 with
       -32601); pinned versions (modern on modern and legacy servers, legacy on dual and
       modern-only servers, where initialize gets -32022 and no HTTP+SSE fallback follows); a
       dual-era server speaking both at once;
     the headers of every modern request: MCP-Protocol-Version, Mcp-Method, Mcp-Name (tools,
       prompts, resources; Base64 for non-ASCII), Mcp-Param-* from x-mcp-header markings
       (strings, integers, booleans, nested; the =?base64?...?= sentinel for non-ASCII, spaces
       at either end, control characters and values that look like the sentinel; null and
       absent arguments send none), the raw request (names, _meta in the body, no session);
     tools/list: every kind of invalid x-mcp-header drops its tool with an on_log warning that
       names the tool and the reason; the valid ones stay, over two pages;
     input_required over HTTP: elicitation with an opaque requestState echoed exactly, the
       headers on the retry (a tool call and a resource read), capabilities not declared
       (-32021 in an HTTP 400); the rest of input_required is tested once against the
       in-memory transport (tests/test_transport.c, mrtr_*);
     a response stream dropped mid-call: sent again once with a new id, a second drop fails
       the call with MCP_ERR_PROTOCOL; no Last-Event-ID, no GET;
     cancellation closes the stream, of a JSON answer and of an SSE one (the server sees it),
       and sends no notifications/cancelled (the sentences and timeouts: test_transport's cancel);
     no Mcp-Session-Id, no GET stream (even with http_listen), no DELETE at close; ping, log
       level and subscribe in the modern era; 404 for an unknown method; the -32020, -32021 and
       -32022 sentences, with http_status and rpc_code;
     subscriptions/listen (mcp_client_listen): the acknowledgment with the request's id and the
       filter the server took (prompts dropped); notifications fired by tool calls (other POSTs)
       reach the stream that asked for them, tagged with its id, and only that one; open past
       a 200 ms client default timeout; mcp_call_cancel closes the stream (the server counts
       it), a graceful end by the server completes the call with MCP_OK; a dual-era server in
       2026-07-28 (the legacy era's refusal, opts' timeout, mcp_call_free: test_transport's
       listen_calls; the client's side of breaks: listen_breaks);
     a listen stream the server breaks: listened to again with a new id, acknowledged under it,
       notifications tagged with it reach the call; three breaks, each re-listen acknowledged,
       and the call lives on; a re-listen broken before its acknowledgment ends the call with
       MCP_ERR_PROTOCOL ("the stream broke twice", the last id), and nothing more is sent.

   Usage: test_modern_http [DATA_DIR [SERVER]]   SERVER: the HTTP test server; default: env
   MCP_TEST_HTTP_SERVER, else http_server beside env MCP_TEST_SERVER, else build/http_server.
   Upper time bounds are multiplied by 10 under valgrind, or by MCP_TEST_SLACK. */
#define _POSIX_C_SOURCE 200809L
#define _XOPEN_SOURCE 700           /* realpath */
#include "../mcp.h"
#include "test.h"
/* What the callbacks saw: calls.h's seen (notes, closes, logs) with these fields too. */
#define SEEN_FIELDS                                                                             \
    int reqs; char req[MAXREC][64]; char req_params[MAXREC][512];                               \
    int reply_error;                 /* answer input requests with an error */                  \
    int defer; mcp_request *held[8]; int nheld;   /* keep them, to answer later */              \
    int progress;
#include "calls.h"
#include <arpa/inet.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <netinet/in.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static char server_path[PATH_MAX];
static int slack = 1;
#define LATE(ms) ((int64_t)(ms) * slack)

static const char *nn(const char *s) { return s ? s : "(null)"; }
#define EQS(a, b) CHECKF(!strcmp(nn(a), (b)), "got \"%s\", want \"%s\"", nn(a), (b))
#define EQST(st, want, err) CHECKF((st) == (want), "status %d (%s), want %d; message: %s", (int)(st), \
                                   mcp_status_str(st), (int)(want), (err).message)
#define EQL(a, b) CHECKF((long)(a) == (long)(b), "%s is %ld, want %ld", #a, (long)(a), (long)(b))

/* ---- the test servers ------------------------------------------------------------------------- */

#include "http_srv.h"

/* Records in which the field is set at all (not null). */
static int log_with(const srv *s, const char *key)
{
    mcp_json_doc *d = dbg_json(s, "log");
    const mcp_json *r;
    size_t i;
    int count = 0;
    for (i = 0; (r = mcp_json_at(mcp_json_root(d), i)) != NULL; i++)
        if (mcp_json_typeof(mcp_json_get(r, key)) != MCP_JSON_NULL) count++;
    mcp_json_free(d);
    return count;
}

/* The log as one line per request: "METHOD path rpc status", joined by " | ". */
static void log_line(const srv *s, char *out, size_t n)
{
    mcp_json_doc *d = dbg_json(s, "log");
    const mcp_json *r;
    size_t i, k = 0;
    out[0] = 0;
    for (i = 0; (r = mcp_json_at(mcp_json_root(d), i)) != NULL && k + 1 < n; i++) {
        const char *rpc = mcp_json_str(mcp_json_get(r, "rpc"));
        int w = snprintf(out + k, n - k, "%s%s %s%s%s %.0f", i ? " | " : "", mcp_json_str(mcp_json_get(r, "method")),
                         mcp_json_str(mcp_json_get(r, "path")), rpc ? " " : "", rpc ? rpc : "",
                         mcp_json_num(mcp_json_get(r, "status")));
        if (w < 0) break;
        k += (size_t)w;
    }
    mcp_json_free(d);
}

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

/* A field of the nth record with rpc == method (a static buffer per slot). */
static const char *nth_field(const srv *s, const char *rpc, int nth, const char *key)
{
    static char bufs[4][4096];
    static int slot;
    char rec[8192];
    char *out = bufs[slot++ & 3];
    if (log_find(s, "rpc", rpc, nth, rec, sizeof rec) <= nth) { snprintf(out, 4096, "(no record)"); return out; }
    return rec_field(rec, key, out, 4096);
}

/* ---- the scenario guard ----------------------------------------------------------------------- */

typedef struct guard { const char *name; int fds; int64_t t0; int checks; } guard;

static void g_begin(guard *g, const char *name)
{
    g->name = name;
    g->fds = count_fds();
    g->t0 = mcp_time_ms();
    g->checks = t_pass + t_fail;
}

static void g_end(guard *g)
{
    int fds = count_fds(), r;
    sigset_t pend;
    CHECKF(fds == g->fds, "%s: fd leak: %d open before, %d after", g->name, g->fds, fds);
    errno = 0;
    r = waitpid(-1, NULL, WNOHANG);
    CHECKF(r == 0 || (r == -1 && errno == ECHILD), "%s: a child process exited unreaped (waitpid said %d)", g->name, r);
    sigpending(&pend);
    CHECKF(!sigismember(&pend, SIGPIPE), "%s: a SIGPIPE is left pending", g->name);
    printf("# %-40s %5lld ms %4d checks\n", g->name, (long long)(mcp_time_ms() - g->t0), t_pass + t_fail - g->checks);
    fflush(stdout);
}

/* ---- what the callbacks saw ------------------------------------------------------------------- */
/* (notes, closes and logs are calls.h's seen; the fields this test adds: SEEN_FIELDS, above) */

static char big[1 << 16];


static void answer(mcp_request *req)
{
    const char *m = mcp_request_method(req);
    if (!strcmp(m, "roots/list")) mcp_request_reply(req, "{\"roots\":[{\"uri\":\"file:///work\",\"name\":\"work\"}]}", NULL);
    else if (!strcmp(m, "sampling/createMessage"))
        mcp_request_reply(req, "{\"role\":\"assistant\",\"content\":{\"type\":\"text\",\"text\":\"4\"},\"model\":\"m\"}", NULL);
    else if (!strcmp(m, "elicitation/create"))
        mcp_request_reply(req, "{\"action\":\"accept\",\"content\":{\"name\":\"Ada\"}}", NULL);
    else mcp_request_reply_error(req, -32601, "Method not found", NULL);
}

static void cb_request(void *user, mcp_client *c, mcp_request *req)
{
    seen *s = (seen *)user;
    char *p = mcp_json_dump(mcp_request_params(req), 0, NULL);
    (void)c;
    if (s->reqs < MAXREC) {
        snprintf(s->req[s->reqs], sizeof s->req[0], "%s", mcp_request_method(req));
        snprintf(s->req_params[s->reqs], sizeof s->req_params[0], "%s", p ? p : "(none)");
    }
    mcp_free(p);
    s->reqs++;
    if (s->reply_error) { mcp_request_reply_error(req, -32000, "the user said no", NULL); return; }
    if (s->defer && s->nheld < 8) { s->held[s->nheld++] = req; return; }
    answer(req);
}

static void cb_progress(void *user, mcp_call *call, double progress, double total, const char *message)
{
    seen *s = (seen *)user;
    (void)call; (void)progress; (void)total; (void)message;
    s->progress++;
}

static void desc_for(mcp_client_desc *d, seen *s, const char *url, const char *const *headers)
{
    memset(d, 0, sizeof *d);
    memset(s, 0, sizeof *s);
    d->transport = MCP_HTTP;
    d->url = url;
    d->headers = headers;
    d->user = s;
    d->on_notification = cb_note;
    d->on_close = cb_close;
    d->on_log = cb_log;
    d->on_request = cb_request;
    d->capabilities = MCP_CAP_ROOTS | MCP_CAP_SAMPLING | MCP_CAP_ELICITATION;
    d->timeout_ms = (int)LATE(5000);
    d->http_listen = -1;         /* the GET stream only where a test asks for it (t_listen: the default) */
    d->client_name = "modern-test";
    d->client_version = "7.0";
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

/* Connects and expects a failure: returns the client (to free) with err filled. */
static mcp_client *fail_client(const mcp_client_desc *d, mcp_status want, mcp_error *err)
{
    mcp_client *c = mcp_client_new(d, err);
    mcp_status st;
    CHECKF(c != NULL, "mcp_client_new: %s", err->message);
    if (!c) return NULL;
    st = mcp_client_connect(c, err);
    EQST(st, want, *err);
    return c;
}

static srv M, S, D;                  /* modern, legacy, dual-era servers without flags */

/* ---- 1. era detection ------------------------------------------------------------------------- */

TEST_CASE(detect_modern)
{
    guard g;
    seen s;
    mcp_client_desc d;
    mcp_client *c;
    mcp_client_stats stats;
    mcp_error err;
    mcp_status st;
    char line[2048];
    g_begin(&g, "detect: modern server");
    srv_reset(&M);
    desc_for(&d, &s, M.url, NULL);
    d.http_listen = 1;                                   /* asked for, but 2026-07-28 has none */
    c = open_client(&d);
    EQS(mcp_client_protocol_version(c), "2026-07-28");
    {
        const char *why = "unset";
        CHECK(mcp_client_transport(c, &why) == MCP_HTTP && why == NULL);
    }
    EQS(mcp_json_str(mcp_json_get(mcp_client_server_info(c), "name")), "http_server");
    EQS(mcp_json_str(mcp_json_get(mcp_client_server_info(c), "version")), "2.0.0");
    EQS(mcp_client_instructions(c), "Stateless 2026-07-28, with misbehaviours on demand.");
    CHECK(mcp_json_get(mcp_client_server_capabilities(c), "tools") != NULL);
    log_line(&M, line, sizeof line);
    EQS(line, "POST /mcp server/discover 200");               /* the probe only: no initialize */
    EQS(nth_field(&M, "server/discover", 0, "ver"), "2026-07-28");
    EQS(nth_field(&M, "server/discover", 0, "mmethod"), "server/discover");
    EQS(nth_field(&M, "server/discover", 0, "mname"), "(null)");
    EQS(nth_field(&M, "server/discover", 0, "sid"), "(null)");
    mcp_client_get_stats(c, &stats);
    CHECKF(stats.sent == 1 && stats.received == 1, "sent %llu received %llu", (unsigned long long)stats.sent,
           (unsigned long long)stats.received);
    st = tool(c, "echo", "{\"x\":1}", big, sizeof big, &err);
    EQST(st, MCP_OK, err);
    EQS(big, "{\"x\":1}");
    mcp_client_close(c);
    log_line(&M, line, sizeof line);
    EQS(line, "POST /mcp server/discover 200 | POST /mcp tools/call 200");   /* no GET, no DELETE */
    CHECK(s.closes == 1);
    EQS(s.why.message, "the client closed the connection");
    mcp_client_free(c);
    CHECK(s.logs == 0 && s.notes == 0 && s.reqs == 0);
    g_end(&g);
}

/* A legacy server refuses the probe in its own way (X-Test-Mode); initialize follows. */
static void legacy_probe(const char *mode, const char *want_probe)
{
    seen s;
    mcp_client_desc d;
    mcp_client *c;
    mcp_error err;
    mcp_status st;
    char line[2048], hm[64];
    const char *hdrs[2] = { NULL, NULL };
    if (mode) { snprintf(hm, sizeof hm, "X-Test-Mode: %s", mode); hdrs[0] = hm; }
    srv_reset(&S);
    desc_for(&d, &s, S.url, hdrs);
    c = open_client(&d);
    EQS(mcp_client_protocol_version(c), "2025-11-25");
    EQS(mcp_json_str(mcp_json_get(mcp_client_server_info(c), "name")), "http_server");
    log_line(&S, line, sizeof line);
    EQS(line, want_probe);
    st = tool(c, "echo", "{\"y\":2}", big, sizeof big, &err);       /* legacy from now on */
    EQST(st, MCP_OK, err);
    EQS(big, "{\"y\":2}");
    EQS(nth_field(&S, "tools/call", 0, "ver"), "2025-11-25");
    EQS(nth_field(&S, "tools/call", 0, "mmethod"), "(null)");      /* no 2026-07-28 headers */
    CHECKF(strcmp(nth_field(&S, "tools/call", 0, "sid"), "(null)") != 0 || (mode && contains(mode, "nosession")),
           "%s: no session id on a legacy call", mode ? mode : "plain");
    mcp_client_free(c);
    CHECK(s.closes == 1);
}

TEST_CASE(detect_legacy)
{
    guard g;
    g_begin(&g, "detect: legacy (400, 404, 405, 200)");
    legacy_probe(NULL, "POST /mcp server/discover 400 | POST /mcp initialize 200 | POST /mcp notifications/initialized 202");
    legacy_probe("probe404", "POST /mcp server/discover 404 | POST /mcp initialize 200 | POST /mcp notifications/initialized 202");
    legacy_probe("probe405", "POST /mcp server/discover 405 | POST /mcp initialize 200 | POST /mcp notifications/initialized 202");
    /* a 400 whose body is a JSON-RPC error, but not a modern one (-32000) */
    legacy_probe("probejson", "POST /mcp server/discover 400 | POST /mcp initialize 200 | POST /mcp notifications/initialized 202");
    /* HTTP 200 with -32601 for server/discover */
    legacy_probe("probe200", "POST /mcp server/discover 200 | POST /mcp initialize 200 | POST /mcp notifications/initialized 202");
    /* a sessionless legacy server: the unknown MCP-Protocol-Version is refused with a plain 400 */
    legacy_probe("nosession", "POST /mcp server/discover 400 | POST /mcp initialize 200 | POST /mcp notifications/initialized 202");
    g_end(&g);
}

/* An HTTP+SSE server at the URL: the probe and initialize are refused (405 or 404), GET there. */
TEST_CASE(detect_sse)
{
    guard g;
    seen s;
    mcp_client_desc d;
    mcp_client *c;
    mcp_error err;
    mcp_status st;
    char line[2048];
    const char *hdrs[] = { "X-Test-Mode: sseonly", NULL };
    g_begin(&g, "detect: HTTP+SSE fallback");
    srv_reset(&S);
    desc_for(&d, &s, S.url, hdrs);
    c = open_client(&d);
    EQS(mcp_client_protocol_version(c), "2025-11-25");
    {
        const char *why = "unset";
        CHECK(mcp_client_transport(c, &why) == MCP_SSE);
        EQS(why, "POST answered 405");
        CHECK(mcp_client_transport(c, NULL) == MCP_SSE);
    }
    st = tool(c, "echo", "{\"z\":3}", big, sizeof big, &err);
    EQST(st, MCP_OK, err);
    EQS(big, "{\"z\":3}");
    log_line(&S, line, sizeof line);
    CHECKF(!strncmp(line, "POST /mcp server/discover 405 | POST /mcp initialize 405 | GET /mcp 200 | POST /messages?session=", 97),
           "log: %s", line);
    CHECK(log_find(&S, "rpc", "initialize", 0, NULL, 0) == 2);
    EQS(nth_field(&S, "initialize", 1, "status"), "202");           /* HTTP+SSE: the answer on the stream */
    EQS(nth_field(&S, "initialize", 1, "mmethod"), "(null)");
    mcp_client_free(c);
    CHECK(s.closes == 1 && s.logs == 0);
    /* the fallback's event stream refused (403): the connect fails with that status, not as a
       closed transport (the connect's call got a new id in the fallback, and was then not
       found by the id predicted when it started: MCP_ERR_CLOSED, "Transport closed (HTTP 403...") */
    {
        const char *refuse[] = { "X-Test-Mode: sseonly,noget", NULL };
        srv_reset(&S);
        desc_for(&d, &s, S.url, refuse);
        c = fail_client(&d, MCP_ERR_HTTP, &err);
        EQL(err.http_status, 403);
        EQS(err.message, "HTTP 403: the event stream is refused");
        mcp_client_free(c);
        CHECK(s.closes == 1);
    }
    /* the /sse URL of a legacy server: POST there is 404 */
    srv_reset(&S);
    desc_for(&d, &s, S.sse_url, NULL);
    c = open_client(&d);
    EQS(mcp_client_protocol_version(c), "2025-11-25");
    {
        const char *why = NULL;
        CHECK(mcp_client_transport(c, &why) == MCP_SSE);
        EQS(why, "POST answered 404");
    }
    st = tool(c, "echo", "{}", big, sizeof big, &err);
    EQST(st, MCP_OK, err);
    log_line(&S, line, sizeof line);
    CHECKF(!strncmp(line, "POST /sse server/discover 404 | POST /sse initialize 404 | GET /sse 200 | POST /messages?session=", 97),
           "log: %s", line);
    mcp_client_free(c);
    g_end(&g);
}

TEST_CASE(detect_32022)
{
    guard g;
    seen s;
    mcp_client_desc d;
    mcp_client *c;
    mcp_error err;
    mcp_status st;
    srv v;
    char line[2048], id0[32], id1[32];
    g_begin(&g, "detect: -32022 and its supported list");
    {   /* a modern server of another version only: nothing to fall back to */
        const char *args[] = { "--era=modern", "--supported=2027-03-01", NULL };
        if (srv_start(&v, args)) {
            desc_for(&d, &s, v.url, NULL);
            c = fail_client(&d, MCP_ERR_PROTOCOL, &err);
            EQS(err.message, "The server does not support protocol version 2026-07-28; it supports 2027-03-01 "
                             "(MCP error -32022).");
            CHECKF(err.http_status == 0 && err.rpc_code == 0, "a protocol error of the connect's own carries "
                   "http_status %d, rpc_code %ld (the 400 and the -32022 are in its message)", err.http_status, err.rpc_code);
            log_line(&v, line, sizeof line);
            EQS(line, "POST /mcp server/discover 400");              /* no initialize, no GET */
            CHECK(s.closes == 1);
            EQST(s.why.status, MCP_ERR_PROTOCOL, s.why);
            st = mcp_client_call_tool(c, "echo", "{}", NULL, &err);
            EQST(st, MCP_ERR_CLOSED, err);
            mcp_client_free(c);
            srv_stop(&v);
        }
    }
    {   /* a dual-era server of another modern version: its legacy versions, by initialize */
        const char *args[] = { "--era=dual", "--supported=2027-03-01", NULL };
        if (srv_start(&v, args)) {
            desc_for(&d, &s, v.url, NULL);
            c = open_client(&d);
            EQS(mcp_client_protocol_version(c), "2025-11-25");
            log_line(&v, line, sizeof line);
            EQS(line, "POST /mcp server/discover 400 | POST /mcp initialize 200 | POST /mcp notifications/initialized 202");
            st = tool(c, "echo", "{\"d\":1}", big, sizeof big, &err);
            EQST(st, MCP_OK, err);
            CHECK(strcmp(nth_field(&v, "tools/call", 0, "sid"), "(null)") != 0);
            mcp_client_free(c);
            CHECK(log_find(&v, "method", "DELETE", 0, NULL, 0) == 1);   /* a legacy session ends so */
            srv_stop(&v);
        }
    }
    {   /* refused once although the version is in the list: the probe goes again, once */
        const char *args[] = { "--era=modern", "--refuse-first=1", NULL };
        if (srv_start(&v, args)) {
            desc_for(&d, &s, v.url, NULL);
            c = open_client(&d);
            EQS(mcp_client_protocol_version(c), "2026-07-28");
            log_line(&v, line, sizeof line);
            EQS(line, "POST /mcp server/discover 400 | POST /mcp server/discover 200");
            snprintf(id0, sizeof id0, "%s", nth_field(&v, "server/discover", 0, "id"));
            snprintf(id1, sizeof id1, "%s", nth_field(&v, "server/discover", 1, "id"));
            CHECKF(strcmp(id0, id1) != 0, "the second probe reused id %s", id0);
            mcp_client_free(c);
            srv_stop(&v);
        }
    }
    {   /* refused twice: no third try */
        const char *args[] = { "--era=modern", "--refuse-first=2", NULL };
        if (srv_start(&v, args)) {
            desc_for(&d, &s, v.url, NULL);
            c = fail_client(&d, MCP_ERR_PROTOCOL, &err);
            EQS(err.message, "The server does not support protocol version 2026-07-28; it supports 2026-07-28 "
                             "(MCP error -32022).");
            log_line(&v, line, sizeof line);
            EQS(line, "POST /mcp server/discover 400 | POST /mcp server/discover 400");
            mcp_client_free(c);
            srv_stop(&v);
        }
    }
    g_end(&g);
}

TEST_CASE(detect_nodiscover)
{
    guard g;
    seen s;
    mcp_client_desc d;
    mcp_client *c;
    mcp_error err;
    mcp_status st;
    mcp_json_doc *doc = NULL;
    char line[2048];
    const char *hdrs[] = { "X-Test-Mode: nodiscover", NULL };
    g_begin(&g, "detect: 404 with -32601 (no discover)");
    srv_reset(&M);
    desc_for(&d, &s, M.url, hdrs);
    c = open_client(&d);
    EQS(mcp_client_protocol_version(c), "2026-07-28");
    CHECK(mcp_client_server_info(c) == NULL && mcp_client_instructions(c) == NULL);
    st = mcp_client_list_tools(c, &doc, &err);                      /* capabilities unknown: tried */
    EQST(st, MCP_OK, err);
    EQL(mcp_json_len(mcp_json_get(mcp_json_root(doc), "tools")), 17);
    mcp_json_free(doc);
    log_line(&M, line, sizeof line);
    EQS(line, "POST /mcp server/discover 404 | POST /mcp tools/list 200 | POST /mcp tools/list 200");
    mcp_client_free(c);
    g_end(&g);
}

TEST_CASE(pinned)
{
    guard g;
    seen s;
    mcp_client_desc d;
    mcp_client *c;
    mcp_error err;
    mcp_status st;
    char line[2048];
    g_begin(&g, "pinned versions");
    /* 2026-07-28 on a modern server */
    srv_reset(&M);
    desc_for(&d, &s, M.url, NULL);
    d.protocol_version = "2026-07-28";
    c = open_client(&d);
    EQS(mcp_client_protocol_version(c), "2026-07-28");
    st = tool(c, "echo", "{}", big, sizeof big, &err);
    EQST(st, MCP_OK, err);
    EQS(nth_field(&M, "tools/call", 0, "ver"), "2026-07-28");
    mcp_client_free(c);
    /* 2026-07-28 on a legacy server: the probe's refusal stands; no initialize */
    srv_reset(&S);
    desc_for(&d, &s, S.url, NULL);
    d.protocol_version = "2026-07-28";
    c = fail_client(&d, MCP_ERR_HTTP, &err);
    EQL(err.http_status, 400);
    EQS(err.message, "HTTP 400: Bad Request: Mcp-Session-Id header is required");
    log_line(&S, line, sizeof line);
    EQS(line, "POST /mcp server/discover 400");
    CHECK(s.closes == 1);
    mcp_client_free(c);
    /* ... one that answers it with HTTP 200 and -32601: the error, named as such */
    {
        const char *h200[] = { "X-Test-Mode: probe200", NULL }, *hhang[] = { "X-Test-Mode: hang", NULL };
        srv_reset(&S);
        desc_for(&d, &s, S.url, h200);
        d.protocol_version = "2026-07-28";
        c = fail_client(&d, MCP_ERR_RPC, &err);
        EQL(err.rpc_code, -32601);
        EQS(err.message, "The server does not speak protocol version 2026-07-28: server/discover got MCP error "
                         "-32601: Method not found");
        log_line(&S, line, sizeof line);
        EQS(line, "POST /mcp server/discover 200");
        mcp_client_free(c);
        /* ... one that never answers it: the timeout, named as such */
        srv_reset(&S);
        desc_for(&d, &s, S.url, hhang);
        d.protocol_version = "2026-07-28";
        d.timeout_ms = 300;
        c = fail_client(&d, MCP_ERR_TIMEOUT, &err);
        EQS(err.message, "The server does not speak protocol version 2026-07-28: server/discover got Request "
                         "timeout after 300ms");
        mcp_client_free(c);
    }
    /* 2025-11-25 on a dual-era server: initialize at once, a session, DELETE at close */
    srv_reset(&D);
    desc_for(&d, &s, D.url, NULL);
    d.protocol_version = "2025-11-25";
    c = open_client(&d);
    EQS(mcp_client_protocol_version(c), "2025-11-25");
    st = tool(c, "echo", "{}", big, sizeof big, &err);
    EQST(st, MCP_OK, err);
    EQS(nth_field(&D, "tools/call", 0, "ver"), "2025-11-25");
    mcp_client_free(c);
    log_line(&D, line, sizeof line);
    EQS(line, "POST /mcp initialize 200 | POST /mcp notifications/initialized 202 | POST /mcp tools/call 200 | "
              "DELETE /mcp 200");
    /* 2025-06-18 on the dual-era server */
    srv_reset(&D);
    desc_for(&d, &s, D.url, NULL);
    d.protocol_version = "2025-06-18";
    c = open_client(&d);
    EQS(mcp_client_protocol_version(c), "2025-06-18");
    mcp_client_free(c);
    /* 2025-11-25 on a modern-only server: initialize gets -32022 naming what it speaks */
    srv_reset(&M);
    desc_for(&d, &s, M.url, NULL);
    d.protocol_version = "2025-11-25";
    c = fail_client(&d, MCP_ERR_HTTP, &err);
    EQL(err.http_status, 400);
    EQL(err.rpc_code, -32022);
    EQS(err.message, "HTTP 400: MCP error -32022: the server does not support protocol version 2025-11-25; it "
                     "supports 2026-07-28 (Unsupported protocol version: this server speaks only 2026-07-28, which "
                     "has no initialize)");
    log_line(&M, line, sizeof line);
    EQS(line, "POST /mcp initialize 400");
    mcp_client_free(c);
    /* 2024-11-05 there: a modern error in the 400, so no HTTP+SSE fallback (no GET) */
    srv_reset(&M);
    desc_for(&d, &s, M.url, NULL);
    d.protocol_version = "2024-11-05";
    c = fail_client(&d, MCP_ERR_HTTP, &err);
    EQL(err.rpc_code, -32022);
    log_line(&M, line, sizeof line);
    EQS(line, "POST /mcp initialize 400");
    mcp_client_free(c);
    /* a modern version over MCP_SSE is refused at once */
    desc_for(&d, &s, M.sse_url, NULL);
    d.transport = MCP_SSE;
    d.protocol_version = "2026-07-28";
    CHECK(mcp_client_new(&d, &err) == NULL);
    EQST(err.status, MCP_ERR_INVALID, err);
    g_end(&g);
}

TEST_CASE(dual)
{
    guard g;
    seen s, s2;
    mcp_client_desc d, d2;
    mcp_client *c, *c2;
    mcp_error err;
    mcp_status st;
    char line[2048];
    g_begin(&g, "a dual-era server");
    srv_reset(&D);
    desc_for(&d, &s, D.url, NULL);
    c = open_client(&d);                                            /* unpinned: modern */
    EQS(mcp_client_protocol_version(c), "2026-07-28");
    EQS(mcp_client_instructions(c), "Both eras: 2026-07-28 and the initialize handshake.");
    desc_for(&d2, &s2, D.url, NULL);
    d2.protocol_version = "2025-11-25";
    c2 = open_client(&d2);                                          /* beside it: a legacy session */
    st = tool(c, "echo", "{\"m\":1}", big, sizeof big, &err);
    EQST(st, MCP_OK, err);
    EQS(big, "{\"m\":1}");
    st = tool(c2, "echo", "{\"l\":1}", big, sizeof big, &err);
    EQST(st, MCP_OK, err);
    EQS(big, "{\"l\":1}");
    EQS(nth_field(&D, "tools/call", 0, "sid"), "(null)");           /* the modern call */
    EQS(nth_field(&D, "tools/call", 0, "mmethod"), "tools/call");
    EQS(nth_field(&D, "tools/call", 0, "ver"), "2026-07-28");
    CHECK(strncmp(nth_field(&D, "tools/call", 1, "sid"), "mcp-", 4) == 0);   /* the legacy one */
    EQS(nth_field(&D, "tools/call", 1, "mmethod"), "(null)");
    EQS(nth_field(&D, "tools/call", 1, "ver"), "2025-11-25");
    mcp_client_free(c);
    mcp_client_free(c2);
    CHECK(log_find(&D, "method", "DELETE", 0, NULL, 0) == 1);      /* only the legacy client's */
    /* and HTTP+SSE on its /sse */
    srv_reset(&D);
    desc_for(&d, &s, D.sse_url, NULL);
    d.transport = MCP_SSE;
    c = open_client(&d);
    EQS(mcp_client_protocol_version(c), "2025-11-25");
    st = tool(c, "echo", "{}", big, sizeof big, &err);
    EQST(st, MCP_OK, err);
    log_line(&D, line, sizeof line);
    CHECKF(!strncmp(line, "GET /sse 200 | POST /messages?session=", 38), "log: %s", line);
    mcp_client_free(c);
    g_end(&g);
}

/* ---- 2. the headers of modern requests ----------------------------------------------------------- */

/* route answers with the Mcp-* headers it got (after checking each against the body). */
static void route_case(mcp_client *c, const char *args, const char *want)
{
    mcp_error err;
    mcp_status st = tool(c, "route", args, big, sizeof big, &err);
    EQST(st, MCP_OK, err);
    CHECKF(!strcmp(big, want), "route %s:\n   got  %s\n   want %s", args, big, want);
}

#define RH "{\"mcp-protocol-version\":\"2026-07-28\",\"mcp-method\":\"tools/call\",\"mcp-name\":\"route\""

TEST_CASE(headers)
{
    guard g;
    seen s;
    mcp_client_desc d;
    mcp_client *c;
    mcp_error err;
    mcp_status st;
    mcp_json_doc *doc = NULL, *cap;
    const char *req;
    const char *hdrs[] = { "X-Client-Tag: t7", NULL };
    g_begin(&g, "headers of modern requests");
    srv_reset(&M);
    desc_for(&d, &s, M.url, hdrs);
    c = open_client(&d);
    /* before tools/list the markings are unknown: no Mcp-Param, and the server says -32020;
       as the spec asks, tools/list is read (both pages) and the call sent again, now with the
       header */
    srv_reset(&M);
    st = tool(c, "route", "{\"region\":\"us-west1\"}", big, sizeof big, &err);
    EQS(nth_field(&M, "tools/call", 0, "mparams"), "(null)");
    EQS(nth_field(&M, "tools/call", 0, "status"), "400");
    EQST(st, MCP_OK, err);
    EQS(big, RH ",\"mcp-param-region\":\"us-west1\"}");
    EQL(log_find(&M, "rpc", "tools/list", 0, NULL, 0), 2);
    EQL(log_find(&M, "rpc", "tools/call", 0, NULL, 0), 2);
    EQS(nth_field(&M, "tools/call", 1, "mparams"), "mcp-param-region: us-west1");
    srv_reset(&M);
    st = mcp_client_list_tools(c, &doc, &err);
    EQST(st, MCP_OK, err);
    mcp_json_free(doc);
    EQL(log_find(&M, "rpc", "tools/list", 0, NULL, 0), 2);          /* two pages */
    EQS(nth_field(&M, "tools/list", 1, "mmethod"), "tools/list");
    EQS(nth_field(&M, "tools/list", 1, "mname"), "(null)");
    EQS(nth_field(&M, "tools/list", 1, "ver"), "2026-07-28");

    route_case(c, "{\"region\":\"us-west1\",\"count\":42,\"flag\":true,\"opts\":{\"tenant\":\"acme\"},\"query\":\"q\"}",
               RH ",\"mcp-param-region\":\"us-west1\",\"mcp-param-count\":\"42\",\"mcp-param-flag\":\"true\","
               "\"mcp-param-tenant\":\"acme\"}");
    route_case(c, "{\"region\":\"Hello, \xe4\xb8\x96\xe7\x95\x8c\",\"count\":-7,\"flag\":false}",
               RH ",\"mcp-param-region\":\"=?base64?SGVsbG8sIOS4lueVjA==?=\",\"mcp-param-count\":\"-7\","
               "\"mcp-param-flag\":\"false\"}");
    route_case(c, "{\"region\":\" padded \"}", RH ",\"mcp-param-region\":\"=?base64?IHBhZGRlZCA=?=\"}");
    route_case(c, "{\"region\":\"line1\\nline2\"}", RH ",\"mcp-param-region\":\"=?base64?bGluZTEKbGluZTI=?=\"}");
    route_case(c, "{\"region\":\"a\\tb\"}", RH ",\"mcp-param-region\":\"=?base64?YQli?=\"}");
    route_case(c, "{\"region\":\"=?base64?literal?=\"}", RH ",\"mcp-param-region\":\"=?base64?PT9iYXNlNjQ/bGl0ZXJhbD89?=\"}");
    route_case(c, "{\"region\":\"=?base64?half\"}", RH ",\"mcp-param-region\":\"=?base64?half\"}");   /* no ?= end: plain */
    route_case(c, "{\"region\":\"in side\",\"count\":9007199254740991}",
               RH ",\"mcp-param-region\":\"in side\",\"mcp-param-count\":\"9007199254740991\"}");
    route_case(c, "{\"region\":null,\"count\":null,\"opts\":{},\"query\":\"only\"}", RH "}");   /* none */
    route_case(c, "{}", RH "}");
    route_case(c, "{\"opts\":{\"tenant\":\"\xc3\xbcmlaut-\xc3\xa9\"}}", RH ",\"mcp-param-tenant\":\"=?base64?w7xtbGF1dC3DqQ==?=\"}");
    EQS(nth_field(&M, "tools/call", 1, "mparams"), "mcp-param-region: =?base64?SGVsbG8sIOS4lueVjA==?=\n"
                                                   "mcp-param-count: -7\nmcp-param-flag: false");

    /* Mcp-Name: plain, and Base64 when not ASCII, for tools, prompts and resources */
    st = tool(c, "gr\xc3\xbc\xc3\x9f", "{\"k\":\"v\"}", big, sizeof big, &err);
    EQST(st, MCP_OK, err);
    EQS(big, "{\"k\":\"v\"}");
    EQS(nth_field(&M, "tools/call", 11, "mname"), "=?base64?Z3LDvMOf?=");
    st = mcp_client_get_prompt(c, "greet", "{\"name\":\"Ada\"}", &doc, &err);
    EQST(st, MCP_OK, err);
    EQS(mcp_json_str(mcp_json_get(mcp_json_get(mcp_json_at(mcp_json_get(mcp_json_root(doc), "messages"), 0), "content"),
                                  "text")), "Hello, Ada!");
    EQS(mcp_json_str(mcp_json_get(mcp_json_root(doc), "resultType")), "complete");
    mcp_json_free(doc);
    EQS(nth_field(&M, "prompts/get", 0, "mmethod"), "prompts/get");
    EQS(nth_field(&M, "prompts/get", 0, "mname"), "greet");
    st = mcp_client_read_resource(c, "file:///a.txt", &doc, &err);
    EQST(st, MCP_OK, err);
    mcp_json_free(doc);
    EQS(nth_field(&M, "resources/read", 0, "mname"), "file:///a.txt");
    st = mcp_client_read_resource(c, "file:///caf\xc3\xa9 menu.txt", &doc, &err);
    EQST(st, MCP_OK, err);
    EQS(mcp_json_str(mcp_json_get(mcp_json_at(mcp_json_get(mcp_json_root(doc), "contents"), 0), "text")),
        "content of file:///caf\xc3\xa9 menu.txt");
    mcp_json_free(doc);
    EQS(nth_field(&M, "resources/read", 1, "mname"), "=?base64?ZmlsZTovLy9jYWbDqSBtZW51LnR4dA==?=");
    st = mcp_client_read_resource(c, "file:///missing", &doc, &err);      /* 2026-07-28: -32602 */
    EQST(st, MCP_ERR_RPC, err);
    EQL(err.rpc_code, -32602);
    EQS(err.message, "Resource not found: file:///missing (MCP error -32602: Resource not found)");
    st = mcp_client_list_resources(c, &doc, &err);
    EQST(st, MCP_OK, err);
    mcp_json_free(doc);
    EQS(nth_field(&M, "resources/list", 0, "mmethod"), "resources/list");
    EQS(nth_field(&M, "resources/list", 0, "mname"), "(null)");
    st = mcp_client_list_resource_templates(c, &doc, &err);
    EQST(st, MCP_OK, err);
    mcp_json_free(doc);
    st = mcp_client_list_prompts(c, &doc, &err);
    EQST(st, MCP_OK, err);
    mcp_json_free(doc);
    st = mcp_client_complete(c, "{\"type\":\"ref/prompt\",\"name\":\"greet\"}", "name", "al", NULL, &doc, &err);
    EQST(st, MCP_OK, err);
    EQL(mcp_json_len(mcp_json_get(mcp_json_get(mcp_json_root(doc), "completion"), "values")), 2);
    mcp_json_free(doc);
    EQS(nth_field(&M, "resources/templates/list", 0, "mmethod"), "resources/templates/list");
    EQS(nth_field(&M, "prompts/list", 0, "mmethod"), "prompts/list");
    EQS(nth_field(&M, "completion/complete", 0, "mmethod"), "completion/complete");
    EQS(nth_field(&M, "completion/complete", 0, "mname"), "(null)");          /* only for the three */
    EQL(log_find(&M, "ver", "2026-07-28", 0, NULL, 0), log_find(&M, NULL, NULL, 0, NULL, 0));   /* on all */

    /* the raw request: header names as the spec writes them, _meta in the body, no session */
    free(dbg(&M, "capture"));
    st = tool(c, "route", "{\"region\":\"r1\",\"flag\":true}", big, sizeof big, &err);
    EQST(st, MCP_OK, err);
    cap = dbg_json(&M, "last");
    req = mcp_json_str(mcp_json_get(mcp_json_root(cap), "request"));
    CHECKF(contains(req, "\r\nMCP-Protocol-Version: 2026-07-28\r\n") && contains(req, "\r\nMcp-Method: tools/call\r\n") &&
           contains(req, "\r\nMcp-Name: route\r\n") && contains(req, "\r\nMcp-Param-Region: r1\r\n") &&
           contains(req, "\r\nMcp-Param-Flag: true\r\n") && contains(req, "\r\nX-Client-Tag: t7\r\n") &&
           contains(req, "\r\nAccept: application/json, text/event-stream\r\n"), "request: %s", nn(req));
    CHECK(!contains(req, "Mcp-Session-Id") && !contains(req, "Last-Event-ID") && !contains(req, "Mcp-Param-Count"));
    CHECKF(contains(req, "\"_meta\":{\"io.modelcontextprotocol/protocolVersion\":\"2026-07-28\","
                         "\"io.modelcontextprotocol/clientCapabilities\":{\"roots\":{},\"sampling\":{},"
                         "\"elicitation\":{\"form\":{}},\"extensions\":{\"io.modelcontextprotocol/tasks\":{}}},\"io.modelcontextprotocol/clientInfo\":{\"name\":"
                         "\"modern-test\",\"version\":\"7.0\"}}"), "request: %s", nn(req));
    CHECK(!contains(mcp_json_str(mcp_json_get(mcp_json_root(cap), "response")), "Mcp-Session-Id"));
    mcp_json_free(cap);
    CHECK(log_with(&M, "sid") == 0);
    mcp_client_free(c);
    CHECK(s.closes == 1 && s.reqs == 0);
    g_end(&g);
}

/* Every answer as an SSE stream and in other framings (X-Test-Mode on every request). */
TEST_CASE(framings)
{
    static const char *const modes[] = { "sse", "chunked", "sse,chunked", "until_close", "sse,until_close", NULL };
    guard g;
    seen s;
    mcp_client_desc d;
    mcp_client *c;
    mcp_error err;
    mcp_status st;
    mcp_json_doc *doc = NULL;
    char hm[64];
    const char *hdrs[2] = { NULL, NULL };
    int m;
    g_begin(&g, "answers: SSE and framings");
    for (m = 0; modes[m]; m++) {
        snprintf(hm, sizeof hm, "X-Test-Mode: %s", modes[m]);
        hdrs[0] = hm;
        desc_for(&d, &s, M.url, hdrs);
        c = open_client(&d);
        if (!c) continue;
        EQS(mcp_client_protocol_version(c), "2026-07-28");
        EQS(mcp_json_str(mcp_json_get(mcp_client_server_info(c), "name")), "http_server");
        st = mcp_client_list_tools(c, &doc, &err);
        EQST(st, MCP_OK, err);
        EQL(mcp_json_len(mcp_json_get(mcp_json_root(doc), "tools")), 17);
        mcp_json_free(doc);
        route_case(c, "{\"region\":\"Hello, \xe4\xb8\x96\xe7\x95\x8c\",\"flag\":true}",
                   RH ",\"mcp-param-region\":\"=?base64?SGVsbG8sIOS4lueVjA==?=\",\"mcp-param-flag\":\"true\"}");
        st = tool(c, "elicit", "{}", big, sizeof big, &err);
        EQST(st, MCP_OK, err);
        EQS(big, "Hello, Ada (requestState intact)");
        st = mcp_client_get_prompt(c, "greet", "{\"name\":\"Bo\"}", &doc, &err);
        EQST(st, MCP_OK, err);
        mcp_json_free(doc);
        st = tool(c, "nosuch", "{}", big, sizeof big, &err);
        EQST(st, MCP_ERR_RPC, err);
        EQS(err.message, "MCP error -32602: Unknown tool: nosuch");
        CHECKF(s.reqs == 1 && s.closes == 0, "%s: %d requests, %d closes", modes[m], s.reqs, s.closes);
        mcp_client_free(c);
    }
    /* one answer dripped a byte at a time */
    desc_for(&d, &s, M.url, NULL);
    c = open_client(&d);
    st = tool(c, "echo", "{\"_mode\":\"sse,drip\",\"v\":1}", big, sizeof big, &err);
    EQST(st, MCP_OK, err);
    EQS(big, "{\"_mode\":\"sse,drip\",\"v\":1}");
    mcp_client_free(c);
    g_end(&g);
}

/* ---- 3. tools/list and invalid x-mcp-header markings ----------------------------------------------- */

TEST_CASE(xhdr_drop)
{
    static const char *const kept[] = { "echo", "add", "headers", "slow", "never", "notify", "flaky", "elicit",
        "multi", "rounds", "stateonly", "needs_sampling", "oddask", "weird", "plain", "route", "gr\xc3\xbc\xc3\x9f", NULL };
    static const char *const warned[] = {
        "Dropped the tool \"bad_number\" from tools/list: x-mcp-header on a parameter that is not a string, "
            "integer or boolean.",
        "Dropped the tool \"bad_items\" from tools/list: x-mcp-header on a property not reached through "
            "properties alone.",
        "Dropped the tool \"bad_anyof\" from tools/list: x-mcp-header on a property not reached through "
            "properties alone.",
        "Dropped the tool \"bad_dup\" from tools/list: a duplicate x-mcp-header.",
        "Dropped the tool \"bad_token\" from tools/list: an x-mcp-header that is not a header token.",
        "Dropped the tool \"bad_crlf\" from tools/list: an x-mcp-header that is not a header token.",
        "Dropped the tool \"bad_empty\" from tools/list: an empty x-mcp-header.",
        "Dropped the tool \"bad_root\" from tools/list: x-mcp-header on a property not reached through "
            "properties alone.",
        "Dropped the tool \"bad_defs\" from tools/list: x-mcp-header on a property not reached through "
            "properties alone.",
        NULL };
    guard g;
    seen s;
    mcp_client_desc d;
    mcp_client *c;
    mcp_error err;
    mcp_status st;
    mcp_json_doc *doc = NULL;
    const mcp_json *tools;
    int i, round;
    g_begin(&g, "tools/list drops invalid x-mcp-header");
    srv_reset(&M);
    desc_for(&d, &s, M.url, NULL);
    c = open_client(&d);
    for (round = 0; round < 2; round++) {                           /* the same each time */
        s.logs = 0;
        st = mcp_client_list_tools(c, &doc, &err);
        EQST(st, MCP_OK, err);
        tools = mcp_json_get(mcp_json_root(doc), "tools");
        for (i = 0; kept[i]; i++) EQS(mcp_json_str(mcp_json_get(mcp_json_at(tools, (size_t)i), "name")), kept[i]);
        EQL(mcp_json_len(tools), i);
        CHECK(mcp_json_get(mcp_json_get(mcp_json_get(mcp_json_get(mcp_json_at(tools, 15), "inputSchema"), "properties"),
                                        "region"), "x-mcp-header") != NULL);   /* the tool as the server sent it */
        mcp_json_free(doc);
        /* every warning is given by the time mcp_client_list_tools returns */
        for (i = 0; warned[i]; i++) CHECKF(i < s.logs && !strcmp(s.log[i], warned[i]), "warning %d: got \"%s\", want \"%s\"",
                                           i, i < s.logs ? s.log[i] : "(none)", warned[i]);
        EQL(s.logs, i);
        mcp_client_poll(c, 0);                                      /* late ones: not in the next round */
    }
    /* the markings learnt are route's: its call carries them */
    route_case(c, "{\"count\":1}", RH ",\"mcp-param-count\":\"1\"}");
    /* a dropped tool called anyway: no markings known, no Mcp-Param sent */
    st = tool(c, "bad_number", "{\"ratio\":0.5}", big, sizeof big, &err);
    EQST(st, MCP_OK, err);
    EQS(nth_field(&M, "tools/call", 1, "mparams"), "(null)");
    mcp_client_free(c);
    g_end(&g);
}

/* ---- 4. input_required rounds over HTTP ------------------------------------------------------------ */

/* Polls the client until the server's log holds n records of rpc (or 2 s pass). */
static int wait_log(mcp_client *c, const srv *sv, const char *rpc, int n)
{
    int64_t end = mcp_time_ms() + LATE(2000);
    int got;
    while ((got = log_find(sv, "rpc", rpc, 0, NULL, 0)) < n && mcp_time_ms() < end) mcp_client_poll(c, 10);
    return got;
}

TEST_CASE(mrtr)
{
    guard g;
    seen s;
    mcp_client_desc d;
    mcp_client *c;
    mcp_error err;
    mcp_status st;
    mcp_json_doc *doc = NULL;
    char id0[32], id1[32];
    int r0;
    g_begin(&g, "input_required rounds");
    srv_reset(&M);
    desc_for(&d, &s, M.url, NULL);
    c = open_client(&d);
    srv_reset(&M);
    /* elicitation, with an opaque requestState the server checks byte for byte */
    st = tool(c, "elicit", "{}", big, sizeof big, &err);
    EQST(st, MCP_OK, err);
    EQS(big, "Hello, Ada (requestState intact)");
    EQL(s.reqs, 1);
    EQS(s.req[0], "elicitation/create");
    EQS(s.req_params[0], "{\"mode\":\"form\",\"message\":\"Who are you?\",\"requestedSchema\":{\"type\":\"object\","
                         "\"properties\":{\"name\":{\"type\":\"string\"}},\"required\":[\"name\"]}}");
    EQL(log_find(&M, "rpc", "tools/call", 0, NULL, 0), 2);
    snprintf(id0, sizeof id0, "%s", nth_field(&M, "tools/call", 0, "id"));
    snprintf(id1, sizeof id1, "%s", nth_field(&M, "tools/call", 1, "id"));
    CHECKF(atol(id1) > atol(id0), "the retry's id %s is not new (first %s)", id1, id0);
    EQS(nth_field(&M, "tools/call", 1, "mname"), "elicit");          /* headers on the retry too */
    EQS(nth_field(&M, "tools/call", 1, "status"), "200");
    /* a resource read that needs input; Mcp-Name on both requests */
    srv_reset(&M);
    s.reqs = 0;
    st = mcp_client_read_resource(c, "mem://confirm", &doc, &err);
    EQST(st, MCP_OK, err);
    EQS(mcp_json_str(mcp_json_get(mcp_json_at(mcp_json_get(mcp_json_root(doc), "contents"), 0), "text")), "confirmed");
    mcp_json_free(doc);
    EQL(s.reqs, 1);
    EQL(log_find(&M, "rpc", "resources/read", 0, NULL, 0), 2);
    EQS(nth_field(&M, "resources/read", 1, "mname"), "mem://confirm");
    /* several questions at once, several rounds, requestState alone, answers given later and
       past the call's timeout, a cancel meanwhile, input no client can give, the bound of 8
       rounds, refusals, an unknown resultType or none, a client freed with a question
       unanswered: test_transport's mrtr_* cases (the in-memory transport) */
    mcp_client_free(c);
    CHECK(s.closes == 1);

    /* capabilities not declared: the server answers -32021 (HTTP 400) */
    desc_for(&d, &s, M.url, NULL);
    d.capabilities = 0;
    d.on_request = NULL;
    c = open_client(&d);
    r0 = log_find(&M, "rpc", "tools/call", 0, NULL, 0);
    st = tool(c, "elicit", NULL, big, sizeof big, &err);
    EQST(st, MCP_ERR_HTTP, err);
    EQL(err.http_status, 400);
    EQL(err.rpc_code, -32021);
    EQS(err.message, "HTTP 400: MCP error -32021: the server needs client capabilities that were not declared: "
                     "elicitation (Missing required client capability)");
    st = tool(c, "multi", NULL, big, sizeof big, &err);
    EQL(err.rpc_code, -32021);
    EQS(err.message, "HTTP 400: MCP error -32021: the server needs client capabilities that were not declared: "
                     "elicitation, sampling, roots (Missing required client capability)");
    EQL(log_find(&M, "rpc", "tools/call", 0, NULL, 0) - r0, 2);
    mcp_client_free(c);
    desc_for(&d, &s, M.url, NULL);
    d.capabilities = MCP_CAP_ELICITATION;
    c = open_client(&d);
    st = tool(c, "needs_sampling", NULL, big, sizeof big, &err);
    EQST(st, MCP_ERR_HTTP, err);
    EQS(err.message, "HTTP 400: MCP error -32021: the server needs client capabilities that were not declared: "
                     "sampling (Missing required client capability)");
    st = tool(c, "elicit", NULL, big, sizeof big, &err);
    EQST(st, MCP_OK, err);
    mcp_client_free(c);
    g_end(&g);
}

/* ---- 5. a response stream that breaks ---------------------------------------------------------------- */

TEST_CASE(reissue)
{
    guard g;
    seen s;
    mcp_client_desc d;
    mcp_client *c;
    mcp_error err;
    mcp_status st;
    char id0[32], id1[32], want[256];
    int i;
    g_begin(&g, "broken stream: sent again once");
    desc_for(&d, &s, M.url, NULL);
    c = open_client(&d);
    srv_reset(&M);
    st = tool(c, "flaky", "{\"key\":\"k1\",\"drops\":1}", big, sizeof big, &err);
    EQST(st, MCP_OK, err);
    EQL(log_find(&M, "rpc", "tools/call", 0, NULL, 0), 2);
    snprintf(id0, sizeof id0, "%s", nth_field(&M, "tools/call", 0, "id"));
    snprintf(id1, sizeof id1, "%s", nth_field(&M, "tools/call", 1, "id"));
    CHECKF(atol(id1) > atol(id0), "the re-issue's id %s is not new (first %s)", id1, id0);
    snprintf(want, sizeof want, "answered on attempt 2; ids %s,%s", id0, id1);
    EQS(big, want);
    EQS(nth_field(&M, "tools/call", 1, "mname"), "flaky");          /* the same request, headers too */
    EQS(nth_field(&M, "tools/call", 1, "lei"), "(null)");
    /* broken twice: the call fails, and there is no third request */
    st = tool(c, "flaky", "{\"key\":\"k2\",\"drops\":2}", big, sizeof big, &err);
    EQST(st, MCP_ERR_PROTOCOL, err);
    EQL(err.http_status, 0);
    snprintf(id0, sizeof id0, "%s", nth_field(&M, "tools/call", 2, "id"));
    snprintf(id1, sizeof id1, "%s", nth_field(&M, "tools/call", 3, "id"));
    CHECKF(atol(id1) > atol(id0), "the re-issue's id %s is not new (first %s)", id1, id0);
    snprintf(want, sizeof want, "No response received for request ID %s (the stream broke twice)", id1);
    EQS(err.message, want);
    for (i = 0; i < 10; i++) mcp_client_poll(c, 10);
    EQL(log_find(&M, "rpc", "tools/call", 0, NULL, 0), 4);
    EQL(stat_of(&M, "drops"), 3);
    CHECK(log_with(&M, "lei") == 0 && log_find(&M, "method", "GET", 0, NULL, 0) == 0);   /* no resuming */
    EQL(stat_of(&M, "cancels"), 0);                  /* the server broke them, not the client */
    /* a stream the server ends properly, but without the answer: the same */
    st = tool(c, "flaky", "{\"key\":\"k3\",\"drops\":1,\"clean\":true}", big, sizeof big, &err);
    EQST(st, MCP_OK, err);
    CHECKF(!strncmp(big, "answered on attempt 2; ids ", 27), "%s", big);
    EQL(log_find(&M, "rpc", "tools/call", 0, NULL, 0), 6);
    st = tool(c, "echo", "{\"after\":1}", big, sizeof big, &err);       /* the client goes on */
    EQST(st, MCP_OK, err);
    EQS(big, "{\"after\":1}");
    mcp_client_free(c);
    CHECK(s.closes == 1);
    g_end(&g);
}

/* ---- 6. cancellation: the stream closes ---------------------------------------------------------------- */

/* Polls until /debug/cancels is want (or 2 s pass); the last page read. */
static void wait_cancels(mcp_client *c, const srv *sv, const char *want, char *out, size_t n)
{
    int64_t end = mcp_time_ms() + LATE(2000);
    for (;;) {
        char *t = dbg(sv, "cancels");
        snprintf(out, n, "%s", t ? t : "(none)");
        free(t);
        if (!strcmp(out, want) || mcp_time_ms() >= end) return;
        if (c) mcp_client_poll(c, 10); else nap(10);
    }
}

TEST_CASE(cancel)
{
    guard g;
    seen s;
    mcp_client_desc d;
    mcp_client *c;
    mcp_error err;
    mcp_status st;
    mcp_call *call;
    mcp_call_opts o;
    char want[128], got[128], ids[2][32], *h;
    int i;
    g_begin(&g, "cancellation closes the stream");
    desc_for(&d, &s, M.url, NULL);
    c = open_client(&d);
    srv_reset(&M);
    /* a JSON answer on its way */
    call = mcp_client_send_tool(c, "slow", "{\"ms\":5000}", NULL, &err);
    CHECK(call != NULL);
    EQL(wait_log(c, &M, "tools/call", 1), 1);
    snprintf(ids[0], sizeof ids[0], "%lld", (long long)mcp_call_id(call));
    EQS(nth_field(&M, "tools/call", 0, "id"), ids[0]);
    CHECK(mcp_call_cancel(call, "user abort") == MCP_OK);
    EQL(mcp_call_status(call), MCP_ERR_CANCELLED);
    st = mcp_call_result(call, NULL, &err);
    EQST(st, MCP_ERR_CANCELLED, err);
    EQS(err.message, "Request cancelled: user abort");
    mcp_call_free(call);
    snprintf(want, sizeof want, "[%s]", ids[0]);
    wait_cancels(c, &M, want, got, sizeof got);
    EQS(got, want);
    /* an SSE answer with progress under way */
    memset(&o, 0, sizeof o);
    o.on_progress = cb_progress; o.user = &s;
    call = mcp_client_send_tool(c, "slow", "{\"ms\":5000,\"every\":50}", &o, &err);
    CHECK(call != NULL);
    for (i = 0; i < 200 && s.progress == 0; i++) mcp_client_poll(c, 10);
    CHECK(s.progress > 0);
    snprintf(ids[1], sizeof ids[1], "%lld", (long long)mcp_call_id(call));
    mcp_call_cancel(call, NULL);
    st = mcp_call_result(call, NULL, &err);
    EQST(st, MCP_ERR_CANCELLED, err);
    EQS(err.message, "Request cancelled");
    mcp_call_free(call);
    snprintf(want, sizeof want, "[%s,%s]", ids[0], ids[1]);
    wait_cancels(c, &M, want, got, sizeof got);
    EQS(got, want);
    /* and no notifications/cancelled went: nothing but the two calls reached the server (a
       timeout closes the stream the same way: test_transport:cancel) */
    for (i = 0; i < 20; i++) mcp_client_poll(c, 10);
    EQL(log_find(&M, "rpc", "notifications/cancelled", 0, NULL, 0), 0);
    EQL(log_find(&M, "rpc", NULL, 0, NULL, 0), 2);
    h = dbg(&M, "history");
    EQS(h, "[]");
    free(h);
    EQL(stat_of(&M, "cancels"), 2);
    st = tool(c, "echo", "{}", big, sizeof big, &err);              /* the client goes on */
    EQST(st, MCP_OK, err);
    mcp_client_free(c);
    g_end(&g);
}

/* ---- 7. no session, no GET, no DELETE; the other calls of the modern era ------------------------------ */

TEST_CASE(stateless)
{
    guard g;
    seen s;
    mcp_client_desc d;
    mcp_client *c;
    mcp_error err;
    mcp_status st;
    mcp_json_doc *doc = NULL, *cap;
    int i, n0;
    g_begin(&g, "stateless: no session, GET, DELETE");
    srv_reset(&M);
    desc_for(&d, &s, M.url, NULL);
    d.http_listen = 1;
    c = open_client(&d);
    for (i = 0; i < 3; i++) {
        st = tool(c, "echo", "{}", big, sizeof big, &err);
        EQST(st, MCP_OK, err);
    }
    st = tool(c, "notify", NULL, big, sizeof big, &err);            /* no log level: no message */
    EQST(st, MCP_OK, err);
    EQS(big, "notified");
    EQL(s.notes, 0);
    n0 = log_find(&M, NULL, NULL, 0, NULL, 0);
    st = mcp_client_set_log_level(c, "info", &err);                 /* a _meta member, not a request */
    EQST(st, MCP_OK, err);
    EQL(log_find(&M, NULL, NULL, 0, NULL, 0), n0);
    free(dbg(&M, "capture"));
    st = tool(c, "notify", NULL, big, sizeof big, &err);
    EQST(st, MCP_OK, err);
    EQL(s.notes, 1);
    EQS(s.note[0], "notifications/message");
    EQS(s.note_params[0], "{\"level\":\"info\",\"logger\":\"http_server\",\"data\":\"hello\"}");
    cap = dbg_json(&M, "last");
    CHECK(contains(mcp_json_str(mcp_json_get(mcp_json_root(cap), "request")), "\"io.modelcontextprotocol/logLevel\":\"info\""));
    mcp_json_free(cap);
    st = mcp_client_ping(c, &err);                                  /* no ping: server/discover */
    EQST(st, MCP_OK, err);
    EQL(log_find(&M, "rpc", "server/discover", 0, NULL, 0), 2);
    EQL(log_find(&M, "rpc", "ping", 0, NULL, 0), 0);
    st = mcp_client_subscribe(c, "file:///a.txt", &err);
    EQST(st, MCP_ERR_INVALID, err);
    EQS(err.message, "resources/subscribe does not exist in protocol version 2026-07-28: subscriptions/listen "
                     "replaces it (mcp_client_listen).");
    st = mcp_client_request(c, "custom/thing", "{\"x\":1}", &doc, &err);   /* 404 with -32601 */
    EQST(st, MCP_ERR_HTTP, err);
    CHECK(doc == NULL);
    EQL(err.http_status, 404);
    EQL(err.rpc_code, -32601);
    EQS(err.message, "HTTP 404: MCP error -32601: Method not found");
    EQS(nth_field(&M, "custom/thing", 0, "mmethod"), "custom/thing");
    mcp_client_close(c);
    CHECK(s.closes == 1);
    EQS(s.why.message, "the client closed the connection");
    CHECK(log_with(&M, "sid") == 0);
    EQL(log_find(&M, "method", "GET", 0, NULL, 0), 0);
    EQL(log_find(&M, "method", "DELETE", 0, NULL, 0), 0);
    EQL(log_find(&M, "method", "POST", 0, NULL, 0), log_find(&M, NULL, NULL, 0, NULL, 0));
    mcp_client_free(c);
    EQL(stat_of(&M, "open"), 0);
    g_end(&g);
}

/* ---- 8. the sentences of -32020, -32021 and -32022 ------------------------------------------------------ */

TEST_CASE(sentences)
{
    guard g;
    seen s;
    mcp_client_desc d;
    mcp_client *c;
    mcp_error err;
    mcp_status st;
    g_begin(&g, "-32020, -32021, -32022 mid-session");
    desc_for(&d, &s, M.url, NULL);
    c = open_client(&d);
    st = tool(c, "echo", "{\"_mode\":\"v32022\"}", big, sizeof big, &err);
    EQST(st, MCP_ERR_HTTP, err);
    EQL(err.http_status, 400);
    EQL(err.rpc_code, -32022);
    EQS(err.message, "HTTP 400: MCP error -32022: the server does not support protocol version 2026-07-28; it "
                     "supports 2026-07-28 (Unsupported protocol version)");
    EQS(mcp_client_protocol_version(c), "2026-07-28");               /* no fallback mid-session */
    st = tool(c, "echo", "{\"_mode\":\"hdrbad\"}", big, sizeof big, &err);   /* a mismatch no retry mends */
    EQST(st, MCP_ERR_HTTP, err);
    EQL(err.http_status, 400);
    EQL(err.rpc_code, -32020);
    EQS(err.message, "HTTP 400: MCP error -32020: the HTTP headers did not match the request body (Header "
                     "mismatch: Mcp-Name header value 'other' does not match body value 'this')");
    st = tool(c, "echo", "{}", big, sizeof big, &err);
    EQST(st, MCP_OK, err);
    mcp_client_free(c);
    CHECK(s.closes == 1);
    {   /* -32020, and the tools/list read again to mend it fails: the sentence says both */
        const char *lf[] = { "X-Test-Mode: listfail", NULL };
        srv_reset(&M);
        desc_for(&d, &s, M.url, lf);
        c = open_client(&d);
        st = tool(c, "route", "{\"region\":\"us-west1\"}", big, sizeof big, &err);
        EQST(st, MCP_ERR_HTTP, err);
        EQL(err.http_status, 500);
        EQS(err.message, "The tools/call got MCP error -32020 (its HTTP headers did not match), and reading tools/list "
                         "again failed: HTTP 500: MCP error -32603: Internal error: the tool list is unavailable");
        EQL(log_find(&M, "rpc", "tools/call", 0, NULL, 0), 1);
        EQL(log_find(&M, "rpc", "tools/list", 0, NULL, 0), 1);
        st = tool(c, "echo", "{}", big, sizeof big, &err);         /* the client carries on */
        EQST(st, MCP_OK, err);
        mcp_client_free(c);
    }
    g_end(&g);
}

/* ---- 9. subscriptions/listen: a stream that stays open ------------------------------------------------ */

/* Polls until the callbacks saw n notifications (or 3 s pass); the count. */
static int wait_notes(mcp_client *c, const seen *s, int n)
{
    int64_t end = mcp_time_ms() + LATE(3000);
    while (s->notes < n && mcp_time_ms() < end) mcp_client_poll(c, 10);
    return s->notes;
}

/* Polls until the server's counter is want (or 2 s pass); its last value. */
static long wait_stat(mcp_client *c, const srv *sv, const char *key, long want)
{
    int64_t end = mcp_time_ms() + LATE(2000);
    long v;
    while ((v = stat_of(sv, key)) != want && mcp_time_ms() < end) { if (c) mcp_client_poll(c, 10); else nap(10); }
    return v;
}

TEST_CASE(listen)
{
    guard g;
    seen s;
    mcp_client_desc d;
    mcp_client *c;
    mcp_error err;
    mcp_status st;
    mcp_call *a, *b;
    mcp_json_doc *doc = NULL;
    const mcp_json *meta;
    char want[512], got[128], ida[32], idb[32], *h;
    long long na, nb;
    int64_t t0;
    g_begin(&g, "subscriptions/listen");
    desc_for(&d, &s, M.url, NULL);
    d.timeout_ms = 200;                                  /* a small default: listen has none */
    c = open_client(&d);
    srv_reset(&M);
    /* one for tools and a resource (prompts asked for, but not supported), one for the resource list */
    t0 = mcp_time_ms();
    a = mcp_client_listen(c, "{\"toolsListChanged\":true,\"promptsListChanged\":true,"
                             "\"resourceSubscriptions\":[\"file:///a.txt\"]}", NULL, &err);
    CHECKF(a != NULL, "mcp_client_listen: %s", err.message);
    if (!a) { mcp_client_free(c); g_end(&g); return; }
    EQST(err.status, MCP_OK, err);
    na = (long long)mcp_call_id(a);
    snprintf(ida, sizeof ida, "%lld", na);
    EQL(wait_notes(c, &s, 1), 1);
    EQS(s.note[0], "notifications/subscriptions/acknowledged");
    snprintf(want, sizeof want, "{\"_meta\":{\"io.modelcontextprotocol/subscriptionId\":%lld},\"notifications\":"
             "{\"toolsListChanged\":true,\"resourceSubscriptions\":[\"file:///a.txt\"]}}", na);
    EQS(s.note_params[0], want);
    EQS(nth_field(&M, "subscriptions/listen", 0, "id"), ida);         /* the request as the server saw it */
    EQS(nth_field(&M, "subscriptions/listen", 0, "mmethod"), "subscriptions/listen");
    EQS(nth_field(&M, "subscriptions/listen", 0, "method"), "POST");
    EQL(mcp_call_status(a), MCP_AGAIN);
    b = mcp_client_listen(c, "{\"resourcesListChanged\":true}", NULL, &err);
    CHECKF(b != NULL, "mcp_client_listen: %s", err.message);
    if (!b) { mcp_call_free(a); mcp_client_free(c); g_end(&g); return; }
    nb = (long long)mcp_call_id(b);
    snprintf(idb, sizeof idb, "%lld", nb);
    CHECK(na != nb);
    EQL(wait_notes(c, &s, 2), 2);
    EQS(s.note[1], "notifications/subscriptions/acknowledged");
    snprintf(want, sizeof want, "{\"_meta\":{\"io.modelcontextprotocol/subscriptionId\":%lld},\"notifications\":"
             "{\"resourcesListChanged\":true}}", nb);
    EQS(s.note_params[1], want);
    h = dbg(&M, "listens");
    snprintf(want, sizeof want, "[{\"id\":%lld,\"filter\":{\"resourcesListChanged\":true}},{\"id\":%lld,\"filter\":"
             "{\"toolsListChanged\":true,\"resourceSubscriptions\":[\"file:///a.txt\"]}}]", nb, na);
    EQS(h, want);
    free(h);
    EQL(stat_of(&M, "listens"), 2);
    /* changes, fired by tool calls (other POSTs): each reaches only the stream that asked for it */
    st = tool(c, "fire", "{\"what\":\"tools\"}", big, sizeof big, &err);
    EQST(st, MCP_OK, err);
    EQS(big, "sent 1");
    EQL(wait_notes(c, &s, 3), 3);
    EQS(s.note[2], "notifications/tools/list_changed");
    snprintf(want, sizeof want, "{\"_meta\":{\"io.modelcontextprotocol/subscriptionId\":%lld}}", na);
    EQS(s.note_params[2], want);
    st = tool(c, "fire", "{\"what\":\"resources\"}", big, sizeof big, &err);
    EQST(st, MCP_OK, err);
    EQS(big, "sent 1");
    EQL(wait_notes(c, &s, 4), 4);
    EQS(s.note[3], "notifications/resources/list_changed");
    snprintf(want, sizeof want, "{\"_meta\":{\"io.modelcontextprotocol/subscriptionId\":%lld}}", nb);
    EQS(s.note_params[3], want);
    st = tool(c, "fire", "{\"what\":\"updated\",\"uri\":\"file:///a.txt\"}", big, sizeof big, &err);
    EQST(st, MCP_OK, err);
    EQS(big, "sent 1");
    EQL(wait_notes(c, &s, 5), 5);
    EQS(s.note[4], "notifications/resources/updated");
    snprintf(want, sizeof want, "{\"_meta\":{\"io.modelcontextprotocol/subscriptionId\":%lld},\"uri\":\"file:///a.txt\"}", na);
    EQS(s.note_params[4], want);
    /* nobody asked for these (prompts was asked for, but not acknowledged) */
    st = tool(c, "fire", "{\"what\":\"updated\",\"uri\":\"file:///b.txt\"}", big, sizeof big, &err);
    EQST(st, MCP_OK, err);
    EQS(big, "sent 0");
    st = tool(c, "fire", "{\"what\":\"prompts\"}", big, sizeof big, &err);
    EQST(st, MCP_OK, err);
    EQS(big, "sent 0");
    st = tool(c, "fire", "{\"what\":\"tools\"}", big, sizeof big, &err);   /* behind them on a's stream */
    EQST(st, MCP_OK, err);
    EQS(big, "sent 1");
    EQL(wait_notes(c, &s, 6), 6);
    EQS(s.note[5], "notifications/tools/list_changed");
    snprintf(want, sizeof want, "{\"_meta\":{\"io.modelcontextprotocol/subscriptionId\":%lld}}", na);
    EQS(s.note_params[5], want);
    /* no timeout: still open well past the client's 200 ms default */
    while (mcp_time_ms() - t0 < 500) mcp_client_poll(c, 10);
    EQL(mcp_call_status(a), MCP_AGAIN);
    EQL(mcp_call_status(b), MCP_AGAIN);
    st = mcp_call_result(a, &doc, &err);
    EQST(st, MCP_AGAIN, err);
    CHECK(doc == NULL);
    EQL(stat_of(&M, "listens"), 2);
    EQL(stat_of(&M, "listen_closed"), 0);
    /* cancelled: the stream closes, and the server sees it */
    CHECK(mcp_call_cancel(a, NULL) == MCP_OK);
    EQL(mcp_call_status(a), MCP_ERR_CANCELLED);
    st = mcp_call_result(a, NULL, &err);
    EQST(st, MCP_ERR_CANCELLED, err);
    EQS(err.message, "Request cancelled");
    mcp_call_free(a);
    EQL(wait_stat(c, &M, "listen_closed", 1), 1);
    snprintf(want, sizeof want, "[%s]", ida);
    wait_cancels(c, &M, want, got, sizeof got);
    EQS(got, want);
    h = dbg(&M, "listens");
    snprintf(want, sizeof want, "[{\"id\":%lld,\"filter\":{\"resourcesListChanged\":true}}]", nb);
    EQS(h, want);
    free(h);
    st = tool(c, "fire", "{\"what\":\"tools\"}", big, sizeof big, &err);   /* nobody listens for it now */
    EQST(st, MCP_OK, err);
    EQS(big, "sent 0");
    EQL(mcp_call_status(b), MCP_AGAIN);                              /* the other one is untouched */
    /* the server ends the other gracefully: the call completes */
    st = tool(c, "end_listen", NULL, big, sizeof big, &err);
    EQST(st, MCP_OK, err);
    EQS(big, "ended 1");
    st = mcp_call_wait(b, (int)LATE(3000));
    EQST(st, MCP_OK, err);
    st = mcp_call_result(b, &doc, &err);
    EQST(st, MCP_OK, err);
    CHECK(doc != NULL);
    meta = mcp_json_get(mcp_json_root(doc), "_meta");
    CHECKF(mcp_json_typeof(mcp_json_get(meta, "io.modelcontextprotocol/subscriptionId")) == MCP_JSON_NUMBER &&
           (long long)mcp_json_num(mcp_json_get(meta, "io.modelcontextprotocol/subscriptionId")) == nb,
           "the end's result names subscription %lld", nb);
    mcp_json_free(doc);
    mcp_call_free(b);
    EQL(s.notes, 6);                                                 /* nothing more came */
    EQL(stat_of(&M, "listen_ended"), 1);
    EQL(stat_of(&M, "listen_closed"), 1);
    h = dbg(&M, "listens");
    EQS(h, "[]");
    free(h);
    EQL(log_find(&M, "rpc", "notifications/cancelled", 0, NULL, 0), 0);   /* HTTP: closing is the cancel */
    h = dbg(&M, "history");
    EQS(h, "[]");
    free(h);
    st = tool(c, "echo", "{}", big, sizeof big, &err);              /* the client goes on */
    EQST(st, MCP_OK, err);
    mcp_client_free(c);
    CHECK(s.closes == 1);
    g_end(&g);

    g_begin(&g, "listen: a dual-era server");
    desc_for(&d, &s, D.url, NULL);                                   /* a dual-era server, spoken to in 2026-07-28 */
    c = open_client(&d);
    EQS(mcp_client_protocol_version(c), "2026-07-28");
    srv_reset(&D);
    a = mcp_client_listen(c, "{\"toolsListChanged\":true}", NULL, &err);
    CHECKF(a != NULL, "mcp_client_listen: %s", err.message);
    if (a) {
        EQL(wait_notes(c, &s, 1), 1);
        EQS(s.note[0], "notifications/subscriptions/acknowledged");
        snprintf(want, sizeof want, "{\"_meta\":{\"io.modelcontextprotocol/subscriptionId\":%lld},\"notifications\":"
                 "{\"toolsListChanged\":true}}", (long long)mcp_call_id(a));
        EQS(s.note_params[0], want);
        mcp_call_cancel(a, NULL);
        mcp_call_free(a);
        EQL(wait_stat(c, &D, "listen_closed", 1), 1);
    }
    mcp_client_free(c);
    g_end(&g);
}

/* The acknowledgment's params for subscription id with this filter (JSON text). */
static const char *ack_params(char *out, size_t n, long long id, const char *filter)
{
    snprintf(out, n, "{\"_meta\":{\"io.modelcontextprotocol/subscriptionId\":%lld},\"notifications\":%s}", id, filter);
    return out;
}

TEST_CASE(listen_breaks)
{
    guard g;
    seen s;
    mcp_client_desc d;
    mcp_client *c;
    mcp_error err;
    mcp_status st;
    mcp_call *a, *b;
    long long ids[4], id0, id1;
    char want[512], got[128], idt[32], *h;
    int k, j, n;
    g_begin(&g, "listen: broken streams re-listened");
    desc_for(&d, &s, M.url, NULL);
    d.timeout_ms = 200;
    c = open_client(&d);
    srv_reset(&M);
    a = mcp_client_listen(c, "{\"toolsListChanged\":true}", NULL, &err);
    CHECKF(a != NULL, "mcp_client_listen: %s", err.message);
    if (!a) { mcp_client_free(c); g_end(&g); return; }
    ids[0] = (long long)mcp_call_id(a);
    EQL(wait_notes(c, &s, 1), 1);
    EQS(s.note[0], "notifications/subscriptions/acknowledged");
    EQS(s.note_params[0], ack_params(want, sizeof want, ids[0], "{\"toolsListChanged\":true}"));
    n = 1;
    /* three breaks: each time listened to again under a new id, acknowledged, and served */
    for (k = 1; k <= 3; k++) {
        st = tool(c, "drop_listen", NULL, big, sizeof big, &err);
        EQST(st, MCP_OK, err);
        EQS(big, "dropped 1");
        EQL(wait_notes(c, &s, n + 1), n + 1);
        EQS(s.note[n], "notifications/subscriptions/acknowledged");
        ids[k] = (long long)mcp_call_id(a);
        for (j = 0; j < k; j++) CHECKF(ids[k] != ids[j], "break %d: id %lld again (after break %d)", k, ids[k], j);
        EQS(s.note_params[n], ack_params(want, sizeof want, ids[k], "{\"toolsListChanged\":true}"));
        n++;
        EQL(mcp_call_status(a), MCP_AGAIN);
        st = mcp_call_result(a, NULL, &err);
        EQST(st, MCP_AGAIN, err);
        EQL(log_find(&M, "rpc", "subscriptions/listen", 0, NULL, 0), k + 1);
        snprintf(idt, sizeof idt, "%lld", ids[k]);
        EQS(nth_field(&M, "subscriptions/listen", k, "id"), idt);       /* the re-listen as the server saw it */
        EQS(nth_field(&M, "subscriptions/listen", k, "mmethod"), "subscriptions/listen");
        h = dbg(&M, "listens");
        snprintf(want, sizeof want, "[{\"id\":%lld,\"filter\":{\"toolsListChanged\":true}}]", ids[k]);
        EQS(h, want);
        free(h);
        st = tool(c, "fire", "{\"what\":\"tools\"}", big, sizeof big, &err);
        EQST(st, MCP_OK, err);
        EQS(big, "sent 1");
        EQL(wait_notes(c, &s, n + 1), n + 1);
        EQS(s.note[n], "notifications/tools/list_changed");
        snprintf(want, sizeof want, "{\"_meta\":{\"io.modelcontextprotocol/subscriptionId\":%lld}}", ids[k]);
        EQS(s.note_params[n], want);
        n++;
    }
    EQL(stat_of(&M, "listen_dropped"), 3);
    EQL(stat_of(&M, "listens"), 4);
    EQL(stat_of(&M, "listen_refused"), 0);
    EQL(stat_of(&M, "listen_closed"), 0);                           /* the server broke them, not the client */
    EQL(stat_of(&M, "cancels"), 0);
    EQL(log_with(&M, "lei"), 0);                                    /* no resuming */
    CHECK(s.closes == 0);
    /* cancelled after all that: the stream of the latest id closes, and the server sees it */
    CHECK(mcp_call_cancel(a, NULL) == MCP_OK);
    EQL(mcp_call_status(a), MCP_ERR_CANCELLED);
    mcp_call_free(a);
    EQL(wait_stat(c, &M, "listen_closed", 1), 1);
    snprintf(want, sizeof want, "[%lld]", ids[3]);
    wait_cancels(c, &M, want, got, sizeof got);
    EQS(got, want);
    /* a re-listen broken before its acknowledgment: two breaks in a row end the call */
    b = mcp_client_listen(c, "{\"resourcesListChanged\":true}", NULL, &err);
    CHECKF(b != NULL, "mcp_client_listen: %s", err.message);
    if (!b) { mcp_client_free(c); g_end(&g); return; }
    id0 = (long long)mcp_call_id(b);
    for (j = 0; j < 4; j++) CHECK(id0 != ids[j]);
    EQL(wait_notes(c, &s, n + 1), n + 1);
    EQS(s.note[n], "notifications/subscriptions/acknowledged");
    EQS(s.note_params[n], ack_params(want, sizeof want, id0, "{\"resourcesListChanged\":true}"));
    n++;
    st = tool(c, "drop_listen", "{\"refuse_next\":1}", big, sizeof big, &err);
    EQST(st, MCP_OK, err);
    EQS(big, "dropped 1");
    st = mcp_call_wait(b, (int)LATE(3000));
    EQL(st, MCP_ERR_PROTOCOL);
    EQL(mcp_call_status(b), MCP_ERR_PROTOCOL);
    id1 = (long long)mcp_call_id(b);
    CHECKF(id1 != id0, "the re-listen's id %lld is not new", id1);
    st = mcp_call_result(b, NULL, &err);
    EQST(st, MCP_ERR_PROTOCOL, err);
    EQL(err.http_status, 0);
    snprintf(want, sizeof want, "No response received for request ID %lld (the stream broke twice)", id1);
    EQS(err.message, want);
    mcp_call_free(b);
    EQL(wait_stat(c, &M, "listen_refused", 1), 1);
    snprintf(idt, sizeof idt, "%lld", id1);
    EQS(nth_field(&M, "subscriptions/listen", 5, "id"), idt);           /* the refused re-listen */
    for (j = 0; j < 10; j++) mcp_client_poll(c, 10);
    EQL(log_find(&M, "rpc", "subscriptions/listen", 0, NULL, 0), 6);    /* no third one */
    EQL(s.notes, n);                                                     /* no acknowledgment for it */
    EQL(stat_of(&M, "listens"), 5);
    EQL(stat_of(&M, "listen_dropped"), 4);
    EQL(stat_of(&M, "cancels"), 1);
    h = dbg(&M, "listens");
    EQS(h, "[]");
    free(h);
    /* the refusal was for one listen only: the next is acknowledged */
    a = mcp_client_listen(c, "{\"toolsListChanged\":true}", NULL, &err);
    CHECKF(a != NULL, "mcp_client_listen: %s", err.message);
    if (a) {
        EQL(wait_notes(c, &s, n + 1), n + 1);
        EQS(s.note[n], "notifications/subscriptions/acknowledged");
        EQS(s.note_params[n], ack_params(want, sizeof want, (long long)mcp_call_id(a), "{\"toolsListChanged\":true}"));
        EQL(mcp_call_status(a), MCP_AGAIN);
        mcp_call_free(a);
        EQL(wait_stat(c, &M, "listen_closed", 2), 2);
    }
    st = tool(c, "echo", "{}", big, sizeof big, &err);                 /* the client goes on */
    EQST(st, MCP_OK, err);
    mcp_client_free(c);
    CHECK(s.closes == 1);
    g_end(&g);
}

int main(int argc, char **argv)
{
    const char *srvp;
    const char *modern[] = { "--era=modern", NULL }, *dual[] = { "--era=dual", NULL };
    char guess[PATH_MAX];
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
        fprintf(stderr, "test_modern_http: the HTTP test server \"%s\" is missing: build it from "
                        "tests/servers/http_server.c, or pass its path as argv[2] or MCP_TEST_HTTP_SERVER\n", srvp);
        CHECK(!"HTTP test server present");
        return TEST_DONE();
    }
    if (!srv_start(&M, modern) || !srv_start(&S, NULL) || !srv_start(&D, dual)) return TEST_DONE();

    test_run();

    srv_stop(&M); srv_stop(&S); srv_stop(&D);
    printf("# total %lld ms\n", (long long)(mcp_time_ms() - t0));
    return TEST_DONE();
}
