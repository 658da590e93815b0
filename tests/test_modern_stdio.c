/* Tests of protocol 2026-07-28 over stdio, and of the era detection that picks it or the legacy
   handshake (issue 7, stdio part). Public API only, against tests/servers/test_server.c run with
   --era=modern (2026-07-28 only), --era=dual (both) or --era=legacy (the default), and its
   misbehaviours.

   Every scenario runs inside a guard that checks, when it ends: no fd leaked (/proc/self/fd), no
   child left (waitpid(-1, WNOHANG) says ECHILD: no zombie), SIGPIPE still at its default and none
   pending.

   Scenarios, in order: era detection (a modern server: version from supportedVersions, server
   info, capabilities and instructions from the DiscoverResult; a legacy server answering the
   probe with -32601: legacy after one round trip; a silent legacy server: legacy after the
   probe timeout, min(timeout, 3000) ms; a late probe answer; a dual server; the server's -32022
   naming a legacy version; another error on a modern-only server; pinned 2026-07-28 on a modern
   server, a legacy version on a modern-only one. The client's other decisions from the probe's
   answers, byte for byte: test_transport:detect); _meta on every modern
   request (what the server received: version, capabilities, client info, log level after
   mcp_client_set_log_level, progress token, the caller's own _meta members); the typed calls in
   the modern era (tools, resources, templates, read, prompts, get_prompt, complete, ping ->
   server/discover, subscribe -> MCP_ERR_INVALID, capabilities not declared, results without
   resultType); input_required over stdio (elicitation, sampling and roots answered at once, the
   retry the server checks; undeclared capabilities -> -32021; the rest of input_required is
   tested once against the in-memory transport: tests/test_transport.c, mrtr_*); resource not found
   over stdio (-32602, and -32002 from a legacy server; the other sentences: test_transport's
   rpc_errors); a cancel sending notifications/cancelled over the pipe (the rest:
   test_transport's cancel); one program run unchanged against a legacy, a modern and a dual
   server with the same output; the test server's own 2026-07-28 checks, over raw pipes; and
   subscriptions/listen (the acknowledgment with the filter the server took, two at once each
   with only its own notifications and id, resources/updated only for the uri asked,
   mcp_call_cancel sending notifications/cancelled, the server's graceful end; no timeout, a
   timeout set in opts, mcp_call_free and the legacy era's refusal: test_transport's
   listen_calls).

   Usage: test_modern_stdio [DATA_DIR [SERVER]]   SERVER: the test server binary; default: env
   MCP_TEST_SERVER, else build/test_server. Upper time bounds are multiplied by 10 under
   valgrind, or by MCP_TEST_SLACK. */
#define _POSIX_C_SOURCE 200809L
#define _XOPEN_SOURCE 700           /* realpath */
#include "../mcp.h"
#include "test.h"
/* What the callbacks saw: calls.h's seen (notes, closes, logs) with these fields too. */
#define SEEN_FIELDS                                                                             \
    int reqs; char req[MAXREC][64]; char req_msg[MAXREC][128];                                  \
    int progress;                                                                               \
    char transcript[4096];           /* the same program: what on_request saw */
#include "calls.h"
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static const char *server;           /* absolute path of the test server */
static char tmpdir[PATH_MAX];
static int slack = 1;
#define LATE(ms) ((int64_t)(ms) * slack)

static const char *nn(const char *s) { return s ? s : "(null)"; }
#define EQS(a, b) CHECKF(!strcmp(nn(a), (b)), "got \"%s\", want \"%s\"", nn(a), (b))
#define EQST(st, want, err) CHECKF((st) == (want), "status %d (%s), want %d; message: %s", (int)(st), \
                                   mcp_status_str(st), (int)(want), (err).message)
#define EQI(a, b) CHECKF((long long)(a) == (long long)(b), "%s is %lld, want %lld", #a, (long long)(a), (long long)(b))

/* ---- small helpers -------------------------------------------------------------------------- */

static char *read_file(const char *path)
{
    FILE *f = fopen(path, "rb");
    char *b;
    long n;
    if (!f) return NULL;
    fseek(f, 0, SEEK_END); n = ftell(f); fseek(f, 0, SEEK_SET);
    b = (char *)malloc((size_t)n + 1);
    if (b) { b[fread(b, 1, (size_t)n, f)] = 0; }
    fclose(f);
    return b;
}

/* Equal values, where the members of an object may come in any order (they carry no meaning;
   the client writes input answers in the order they were given) */
static int json_same(const mcp_json *a, const mcp_json *b)
{
    size_t i, kl;
    const char *k;
    if (mcp_json_typeof(a) != MCP_JSON_OBJECT || mcp_json_typeof(b) != MCP_JSON_OBJECT) {
        if (mcp_json_typeof(a) != MCP_JSON_ARRAY || mcp_json_typeof(b) != MCP_JSON_ARRAY) return mcp_json_equal(a, b);
        if (mcp_json_len(a) != mcp_json_len(b)) return 0;
        for (i = 0; i < mcp_json_len(a); i++) if (!json_same(mcp_json_at(a, i), mcp_json_at(b, i))) return 0;
        return 1;
    }
    if (mcp_json_len(a) != mcp_json_len(b)) return 0;
    for (i = 0; i < mcp_json_len(a); i++) {
        k = mcp_json_key_at(a, i, &kl);
        if (!json_same(mcp_json_at(a, i), mcp_json_getn(b, k, kl))) return 0;
    }
    return 1;
}

/* v equals the JSON text want */
static int json_eq(const mcp_json *v, const char *want)
{
    mcp_json_doc *d = mcp_json_parse(want, strlen(want), NULL);
    int eq = d && v && json_same(v, mcp_json_root(d));
    mcp_json_free(d);
    return eq;
}

static char dumped[8192];
static const char *dumps(const mcp_json *v)
{
    char *t = v ? mcp_json_dump(v, 0, NULL) : NULL;
    snprintf(dumped, sizeof dumped, "%s", t ? t : "(absent)");
    mcp_free(t);
    return dumped;
}
#define EQJ(v, want) CHECKF(json_eq((v), (want)), "got %s, want %s", dumps(v), (want))

/* ---- the scenario guard --------------------------------------------------------------------- */

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
    struct sigaction a;
    sigset_t pend;
    int fds = count_fds(), r;
    CHECKF(fds == g->fds, "%s: fd leak: %d open before, %d after", g->name, g->fds, fds);
    errno = 0;
    r = waitpid(-1, NULL, WNOHANG);
    CHECKF(r == -1 && errno == ECHILD, "%s: a child process is left (waitpid said %d, %s)", g->name, r,
           strerror(errno));
    sigaction(SIGPIPE, NULL, &a);
    CHECKF(a.sa_handler == SIG_DFL, "%s: SIGPIPE disposition changed", g->name);
    sigpending(&pend);
    CHECKF(!sigismember(&pend, SIGPIPE), "%s: a SIGPIPE is left pending", g->name);
    printf("# %-40s %5lld ms %4d checks\n", g->name, (long long)(mcp_time_ms() - g->t0), t_pass + t_fail - g->checks);
    fflush(stdout);
}

/* ---- what the callbacks saw ----------------------------------------------------------------- */

#define ANS_E "{\"action\":\"accept\",\"content\":{\"name\":\"Ada\"}}"
#define ANS_S "{\"role\":\"assistant\",\"content\":{\"type\":\"text\",\"text\":\"Paris\"},\"model\":\"test-model\"," \
              "\"stopReason\":\"endTurn\"}"
#define ANS_R "{\"roots\":[{\"uri\":\"file:///work\",\"name\":\"work\"}]}"


static char big[1 << 16];

/* A tool's text, parsed as JSON (NULL if the call failed or the text is not JSON) */
static mcp_json_doc *tool_json(mcp_client *c, const char *name, const char *args, mcp_error *err)
{
    if (tool(c, name, args, big, sizeof big, err) != MCP_OK) return NULL;
    return mcp_json_parse(big, strlen(big), NULL);
}

/* on_request's answers (refusals, declines and answers held for later: test_transport's mrtr_*) */
static const char *canned(const char *method, const mcp_json *params)
{
    const char *msg = mcp_json_str(mcp_json_get(params, "message"));
    if (!strcmp(method, "elicitation/create"))
        return msg && !strncmp(msg, "Open ", 5) ? "{\"action\":\"accept\",\"content\":{\"ok\":true}}" : ANS_E;
    if (!strcmp(method, "sampling/createMessage")) return ANS_S;
    if (!strcmp(method, "roots/list")) return ANS_R;
    return NULL;
}

static void cb_request(void *user, mcp_client *c, mcp_request *req)
{
    seen *s = (seen *)user;
    const char *m = mcp_request_method(req), *ans;
    const char *msg = mcp_json_str(mcp_json_get(mcp_request_params(req), "message"));
    (void)c;
    if (s->reqs < MAXREC) {
        snprintf(s->req[s->reqs], sizeof s->req[0], "%s", m);
        snprintf(s->req_msg[s->reqs], sizeof s->req_msg[0], "%s", msg ? msg : "");
    }
    s->reqs++;
    ans = canned(m, mcp_request_params(req));
    if (ans) mcp_request_reply(req, ans, NULL);
    else mcp_request_reply_error(req, -32601, "Method not found", NULL);
}

static void desc_for(mcp_client_desc *d, seen *s, const char *const *args)
{
    memset(d, 0, sizeof *d);
    memset(s, 0, sizeof *s);
    d->transport = MCP_STDIO;
    d->command = server;
    d->args = args;
    d->user = s;
    d->on_notification = cb_note;
    d->on_close = cb_close;
    d->on_log = cb_log;
    d->timeout_ms = 5000;
    d->close_timeout_ms = 200;
}

/* with on_request answering roots, sampling and elicitation (declared) */
static void desc_asking(mcp_client_desc *d, seen *s, const char *const *args)
{
    desc_for(d, s, args);
    d->on_request = cb_request;
    d->capabilities = MCP_CAP_ROOTS | MCP_CAP_SAMPLING | MCP_CAP_ELICITATION;
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

/* Connects; returns the status, the time it took, and the client (free it) */
static mcp_client *connect_timed(const mcp_client_desc *d, mcp_status *st, int64_t *ms, mcp_error *err)
{
    mcp_client *c = mcp_client_new(d, err);
    int64_t t0 = mcp_time_ms();
    CHECKF(c != NULL, "mcp_client_new: %s", err->message);
    if (!c) { *st = err->status; return NULL; }
    *st = mcp_client_connect(c, err);
    *ms = mcp_time_ms() - t0;
    return c;
}

/* The requests the server received, as a parsed array (mcp_json_free it) */
static mcp_json_doc *server_requests(mcp_client *c)
{
    mcp_error err;
    mcp_json_doc *d = tool_json(c, "requests", NULL, &err);
    CHECKF(d != NULL, "the requests tool: %s", err.message);
    return d;
}

/* "m1 m2 ..." of the requests the server received (the requests call itself included) */
static const char *methods_of(const mcp_json *reqs, char *out, size_t n)
{
    size_t i, k = 0;
    out[0] = 0;
    for (i = 0; i < mcp_json_len(reqs) && k + 1 < n; i++) {
        int w = snprintf(out + k, n - k, "%s%s", i ? " " : "", nn(mcp_json_str(mcp_json_get(mcp_json_at(reqs, i), "method"))));
        if (w < 0) break;
        k += (size_t)w;
    }
    return out;
}

static const char *history(mcp_client *c)
{
    mcp_error err;
    if (tool(c, "history", NULL, big, sizeof big, &err) != MCP_OK) return "";
    return big;
}

static int64_t int_of(const mcp_json *v)
{
    int64_t x = -1;
    return mcp_json_int64(v, &x) ? x : -1;
}

/* ---- 1. era detection ----------------------------------------------------------------------- */

TEST_CASE(detect_modern)
{
    guard g;
    seen s;
    mcp_client_desc d;
    mcp_client *c;
    mcp_error err;
    mcp_status st;
    int64_t ms;
    mcp_client_stats stats;
    mcp_json_doc *reqs;
    const mcp_json *r0, *caps;
    char m[512];
    const char *args[] = { "--era=modern", NULL };
    g_begin(&g, "detect: a modern server");
    desc_for(&d, &s, args);
    d.client_name = "test-client"; d.client_version = "9.9";
    c = connect_timed(&d, &st, &ms, &err);
    EQST(st, MCP_OK, err);
    CHECKF(ms < LATE(1000), "connect took %lld ms", (long long)ms);
    EQS(mcp_client_protocol_version(c), "2026-07-28");
    EQS(mcp_json_str(mcp_json_get(mcp_client_server_info(c), "name")), "test_server");
    EQS(mcp_json_str(mcp_json_get(mcp_client_server_info(c), "title")), "mcp.h test server");
    EQS(mcp_json_str(mcp_json_get(mcp_client_server_info(c), "version")), "1.2.3");
    caps = mcp_client_server_capabilities(c);
    EQJ(caps, "{\"tools\":{\"listChanged\":true},\"resources\":{\"subscribe\":true,\"listChanged\":true},"
              "\"prompts\":{\"listChanged\":true},\"logging\":{},\"completions\":{}}");
    EQS(mcp_client_instructions(c), "Use the echo tool to test.\nEverything else is for misbehaving.");
    mcp_client_get_stats(c, &stats);
    CHECKF(stats.sent == 1 && stats.received == 1, "sent %llu received %llu: the probe and its answer only",
           (unsigned long long)stats.sent, (unsigned long long)stats.received);
    /* what the server received: server/discover with the modern _meta, and no initialize */
    reqs = server_requests(c);
    EQS(methods_of(mcp_json_root(reqs), m, sizeof m), "server/discover tools/call");
    r0 = mcp_json_at(mcp_json_root(reqs), 0);
    EQI(int_of(mcp_json_get(r0, "id")), 1);
    EQJ(mcp_json_get(r0, "_meta"), "{\"io.modelcontextprotocol/protocolVersion\":\"2026-07-28\","
                                   "\"io.modelcontextprotocol/clientCapabilities\":{\"extensions\":{\"io.modelcontextprotocol/tasks\":{}}},"
                                   "\"io.modelcontextprotocol/clientInfo\":{\"name\":\"test-client\",\"version\":\"9.9\"}}");
    mcp_json_free(reqs);
    st = tool(c, "client", NULL, big, sizeof big, &err);          /* no initialize params */
    EQST(st, MCP_OK, err);
    EQS(big, "null");
    EQS(history(c), "[]");                                        /* no notifications/initialized */
    mcp_client_free(c);
    CHECKF(s.closes == 1, "on_close fired %d times", s.closes);
    EQS(s.why.message, "the client closed the connection");
    CHECK(s.logs == 0 && s.notes == 0);

    {   /* without instructions */
        const char *a2[] = { "--era=modern", "--no-instructions", NULL };
        desc_for(&d, &s, a2);
        c = open_client(&d);
        CHECK(mcp_client_instructions(c) == NULL);
        EQS(mcp_client_protocol_version(c), "2026-07-28");
        mcp_client_free(c);
    }
    {   /* the TEST_SERVER_MODE environment variable works as well as flags */
        const char *env[] = { "TEST_SERVER_MODE=era=modern", NULL };
        desc_for(&d, &s, NULL);
        d.env = env;
        c = open_client(&d);
        EQS(mcp_client_protocol_version(c), "2026-07-28");
        mcp_client_free(c);
    }
    g_end(&g);
}

/* A legacy server that answers the probe at once, with an error or a non-DiscoverResult: one
   round trip, then initialize. */
static void legacy_one_round(const char *flag, const char *label)
{
    seen s;
    mcp_client_desc d;
    mcp_client *c;
    mcp_error err;
    mcp_status st;
    int64_t ms;
    mcp_client_stats stats;
    mcp_json_doc *reqs;
    char m[512];
    const char *args[] = { flag, NULL };
    desc_for(&d, &s, flag ? args : NULL);
    d.timeout_ms = 0;                                   /* the default: the probe waits up to 3000 ms */
    c = connect_timed(&d, &st, &ms, &err);
    CHECKF(st == MCP_OK, "%s: connect: %s", label, err.message);
    CHECKF(ms < LATE(300), "%s: connect took %lld ms: one round trip, far below the 3000 ms probe timeout",
           label, (long long)ms);
    EQS(mcp_client_protocol_version(c), "2025-11-25");
    EQS(mcp_json_str(mcp_json_get(mcp_client_server_info(c), "name")), "test_server");
    EQS(mcp_client_instructions(c), "Use the echo tool to test.\nEverything else is for misbehaving.");
    CHECK(mcp_json_get(mcp_client_server_capabilities(c), "tools") != NULL);
    mcp_client_get_stats(c, &stats);
    CHECKF(stats.sent == 3 && stats.received == 2, "%s: sent %llu received %llu (probe, initialize, initialized)",
           label, (unsigned long long)stats.sent, (unsigned long long)stats.received);
    CHECK(stats.unknown_ids == 0 && stats.dropped == 0);
    reqs = server_requests(c);
    CHECKF(!strcmp(methods_of(mcp_json_root(reqs), m, sizeof m), "server/discover initialize tools/call"),
           "%s: the server got %s", label, m);
    mcp_json_free(reqs);
    /* legacy from now on: no modern _meta on requests, notifications/initialized was sent */
    st = tool(c, "meta", NULL, big, sizeof big, &err);
    EQST(st, MCP_OK, err);
    EQS(big, "null");
    EQS(history(c), "[{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}]");
    st = mcp_client_ping(c, &err);                      /* a real ping in the legacy era */
    EQST(st, MCP_OK, err);
    mcp_client_free(c);
    CHECK(s.closes == 1 && s.logs == 0);
}

TEST_CASE(detect_legacy)
{
    guard g;
    g_begin(&g, "detect: legacy, probe answered");
    legacy_one_round(NULL, "-32601");
    legacy_one_round("--era=legacy", "--era=legacy");
    g_end(&g);
}

TEST_CASE(detect_silent)
{
    guard g;
    seen s;
    mcp_client_desc d;
    mcp_client *c;
    mcp_error err;
    mcp_status st;
    int64_t ms;
    mcp_client_stats stats;
    mcp_json_doc *reqs;
    char m[512];
    int i;
    g_begin(&g, "detect: legacy, silent on the probe");
    {   /* timeout 700 ms: the probe waits half of it (under 6 s), inside the connect's 700 */
        const char *args[] = { "--probe=silent", NULL };
        desc_for(&d, &s, args);
        d.timeout_ms = 700;
        c = connect_timed(&d, &st, &ms, &err);
        EQST(st, MCP_OK, err);
        CHECKF(ms >= 345 && ms < 351 + LATE(400), "connect took %lld ms, want about 351", (long long)ms);
        EQS(mcp_client_protocol_version(c), "2025-11-25");
        reqs = server_requests(c);
        EQS(methods_of(mcp_json_root(reqs), m, sizeof m), "server/discover initialize tools/call");
        EQI(int_of(mcp_json_get(mcp_json_at(mcp_json_root(reqs), 0), "id")), 1);
        EQI(int_of(mcp_json_get(mcp_json_at(mcp_json_root(reqs), 1), "id")), 2);   /* a new id */
        mcp_json_free(reqs);
        /* the probe is not cancelled: a legacy server knows nothing before initialize */
        EQS(history(c), "[{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}]");
        mcp_client_get_stats(c, &stats);
        CHECKF(stats.sent == 5 && stats.received == 3, "sent %llu received %llu", (unsigned long long)stats.sent,
               (unsigned long long)stats.received);
        mcp_client_free(c);
        CHECK(s.closes == 1);
    }
    {   /* the default timeout (30 s): the probe gives up after 3000 ms */
        const char *args[] = { "--probe=silent", NULL };
        desc_for(&d, &s, args);
        d.timeout_ms = 0;
        c = connect_timed(&d, &st, &ms, &err);
        EQST(st, MCP_OK, err);
        CHECKF(ms >= 2995 && ms < 3000 + LATE(500), "connect took %lld ms, want about 3000", (long long)ms);
        EQS(mcp_client_protocol_version(c), "2025-11-25");
        st = tool(c, "echo", "{\"after\":\"silence\"}", big, sizeof big, &err);
        EQST(st, MCP_OK, err);
        EQS(big, "{\"after\":\"silence\"}");
        mcp_client_free(c);
    }
    {   /* silent to everything: the probe counts inside the connect's timeout, so the connect
           fails after 1000 ms in all (it took 2000: the probe's 1000, then initialize's 1000) */
        const char *args[] = { "--probe=silent", "--init=never", NULL };
        desc_for(&d, &s, args);
        d.timeout_ms = 1000;
        c = connect_timed(&d, &st, &ms, &err);
        EQST(st, MCP_ERR_TIMEOUT, err);
        CHECKF(ms >= 990 && ms < 1000 + LATE(400), "a silent server failed the connect after %lld ms, want about 1000",
               (long long)ms);
        EQS(err.message, "Request timeout after 1000ms");
        mcp_client_free(c);
    }
    {   /* no timeout at all (< 0): the probe still gives up after 3000 ms */
        const char *args[] = { "--probe=silent", NULL };
        desc_for(&d, &s, args);
        d.timeout_ms = -1;
        c = connect_timed(&d, &st, &ms, &err);
        EQST(st, MCP_OK, err);
        CHECKF(ms >= 2995 && ms < 3000 + LATE(500), "connect took %lld ms, want about 3000", (long long)ms);
        EQS(mcp_client_protocol_version(c), "2025-11-25");
        mcp_client_free(c);
    }
    {   /* the probe's answer comes after the fallback: ignored, counted */
        const char *args[] = { "--probe=slow:600", NULL };
        desc_for(&d, &s, args);
        d.timeout_ms = 300;
        c = connect_timed(&d, &st, &ms, &err);
        EQST(st, MCP_OK, err);
        CHECKF(ms >= 145 && ms < 151 + LATE(250), "connect took %lld ms, want about 151", (long long)ms);
        EQS(mcp_client_protocol_version(c), "2025-11-25");
        for (i = 0; i < 100; i++) {
            mcp_client_get_stats(c, &stats);
            if (stats.unknown_ids) break;
            mcp_client_poll(c, 20);
        }
        CHECKF(stats.unknown_ids == 1, "unknown ids %llu", (unsigned long long)stats.unknown_ids);
        st = tool(c, "echo", "{}", big, sizeof big, &err);      /* the session goes on */
        EQST(st, MCP_OK, err);
        mcp_client_free(c);
        CHECK(s.closes == 1);
    }
    g_end(&g);
}

TEST_CASE(detect_dual)
{
    guard g;
    seen s;
    mcp_client_desc d;
    mcp_client *c;
    mcp_error err;
    mcp_status st;
    int64_t ms;
    mcp_json_doc *reqs, *doc;
    char m[512];
    const char *args[] = { "--era=dual", NULL };
    g_begin(&g, "detect: a dual-era server");
    desc_for(&d, &s, args);
    c = connect_timed(&d, &st, &ms, &err);
    EQST(st, MCP_OK, err);
    CHECK(ms < LATE(1000));
    EQS(mcp_client_protocol_version(c), "2026-07-28");          /* modern wins */
    EQS(mcp_json_str(mcp_json_get(mcp_client_server_info(c), "name")), "test_server");
    doc = tool_json(c, "meta", NULL, &err);
    EQS(mcp_json_str(mcp_json_get(mcp_json_root(doc), "io.modelcontextprotocol/protocolVersion")), "2026-07-28");
    mcp_json_free(doc);
    reqs = server_requests(c);
    EQS(methods_of(mcp_json_root(reqs), m, sizeof m), "server/discover tools/call tools/call");
    mcp_json_free(reqs);
    mcp_client_free(c);

    /* pinned to a legacy version: initialize at once, no probe */
    desc_for(&d, &s, args);
    d.protocol_version = "2025-06-18";
    c = open_client(&d);
    EQS(mcp_client_protocol_version(c), "2025-06-18");
    st = tool(c, "meta", NULL, big, sizeof big, &err);
    EQST(st, MCP_OK, err);
    EQS(big, "null");
    reqs = server_requests(c);
    EQS(methods_of(mcp_json_root(reqs), m, sizeof m), "initialize tools/call tools/call");
    mcp_json_free(reqs);
    mcp_client_free(c);

    /* pinned to 2026-07-28: modern */
    desc_for(&d, &s, args);
    d.protocol_version = "2026-07-28";
    c = open_client(&d);
    EQS(mcp_client_protocol_version(c), "2026-07-28");
    mcp_client_free(c);
    g_end(&g);
}

TEST_CASE(detect_versions)
{
    guard g;
    seen s;
    mcp_client_desc d;
    mcp_client *c;
    mcp_error err;
    mcp_status st;
    int64_t ms;
    mcp_json_doc *reqs;
    char m[512];
    g_begin(&g, "detect: versions and modern errors");
    {   /* -32022 naming only a legacy version: modern server, but we go legacy with it */
        const char *args[] = { "--era=dual", "--supported=2025-11-25", NULL };
        desc_for(&d, &s, args);
        c = connect_timed(&d, &st, &ms, &err);
        EQST(st, MCP_OK, err);
        CHECK(ms < LATE(1000));
        EQS(mcp_client_protocol_version(c), "2025-11-25");
        reqs = server_requests(c);
        EQS(methods_of(mcp_json_root(reqs), m, sizeof m), "server/discover initialize tools/call");
        mcp_json_free(reqs);
        st = tool(c, "meta", NULL, big, sizeof big, &err);
        EQS(big, "null");
        mcp_client_free(c);
    }
    {   /* any other error means legacy, even from a server that is in fact modern-only: then
           initialize is refused, with the versions it speaks */
        const char *args[] = { "--era=modern", "--discover-error=-32603", NULL };
        desc_for(&d, &s, args);
        c = connect_timed(&d, &st, &ms, &err);
        EQST(st, MCP_ERR_RPC, err);
        EQI(err.rpc_code, -32022);
        EQS(err.message, "MCP error -32022: the server does not support protocol version 2025-11-25; it supports "
                         "2026-07-28 (This server speaks only protocol version 2026-07-28: no initialize, _meta on "
                         "every request)");
        CHECK(s.closes == 1);
        mcp_client_free(c);
    }
    {   /* the same error from a dual server: initialize works */
        const char *args[] = { "--era=dual", "--discover-error=-32603", NULL };
        desc_for(&d, &s, args);
        c = connect_timed(&d, &st, &ms, &err);
        EQST(st, MCP_OK, err);
        EQS(mcp_client_protocol_version(c), "2025-11-25");
        mcp_client_free(c);
    }
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
    int64_t ms;
    char logp[PATH_MAX + 16], *log;
    g_begin(&g, "detect: pinned versions");
    {   /* 2026-07-28 against a modern server */
        const char *args[] = { "--era=modern", NULL };
        desc_for(&d, &s, args);
        d.protocol_version = "2026-07-28";
        c = open_client(&d);
        EQS(mcp_client_protocol_version(c), "2026-07-28");
        mcp_client_free(c);
    }
    {   /* a legacy version against a modern-only server: initialize, refused with its versions */
        const char *args[] = { "--era=modern", logp, NULL };
        snprintf(logp, sizeof logp, "--log=%s/pin.log", tmpdir);
        desc_for(&d, &s, args);
        d.protocol_version = "2025-11-25";
        c = connect_timed(&d, &st, &ms, &err);
        EQST(st, MCP_ERR_RPC, err);
        EQI(err.rpc_code, -32022);
        EQS(err.message, "MCP error -32022: the server does not support protocol version 2025-11-25; it supports "
                         "2026-07-28 (This server speaks only protocol version 2026-07-28: no initialize, _meta on "
                         "every request)");
        mcp_client_free(c);
        log = read_file(logp + 6);                     /* one line: initialize, no probe */
        CHECKF(log && strstr(log, "\"method\":\"initialize\"") && !strstr(log, "server/discover") &&
               strchr(log, '\n') == log + strlen(log) - 1, "the server got: %s", nn(log));
        free(log);
    }
    g_end(&g);
}

/* ---- 2. _meta on every modern request ------------------------------------------------------- */

static void on_progress(void *user, mcp_call *call, double progress, double total, const char *message)
{
    seen *s = (seen *)user;
    (void)call; (void)progress; (void)total; (void)message;
    s->progress++;
}

TEST_CASE(meta)
{
    guard g;
    seen s;
    mcp_client_desc d;
    mcp_client *c;
    mcp_error err;
    mcp_status st;
    mcp_json_doc *doc = NULL, *reqs;
    mcp_client_stats s0, s1;
    mcp_call *call;
    mcp_call_opts o;
    const mcp_json *arr, *r, *meta;
    char m[1024];
    size_t i;
    int before_level;
    const char *args[] = { "--era=modern", NULL };
    const char *want_caps = "{\"roots\":{},\"sampling\":{},\"elicitation\":{\"form\":{}},\"extensions\":{\"io.modelcontextprotocol/tasks\":{}}}";
    g_begin(&g, "_meta on every modern request");
    desc_asking(&d, &s, args);
    d.client_name = "meta-client"; d.client_version = "3.1";
    c = open_client(&d);
    EQS(mcp_client_protocol_version(c), "2026-07-28");
    st = mcp_client_list_tools(c, &doc, &err); mcp_json_free(doc);          /* 2 pages */
    EQST(st, MCP_OK, err);
    st = mcp_client_list_resources(c, &doc, &err); mcp_json_free(doc);      /* 2 pages */
    EQST(st, MCP_OK, err);
    st = mcp_client_list_resource_templates(c, &doc, &err); mcp_json_free(doc);
    EQST(st, MCP_OK, err);
    st = mcp_client_read_resource(c, "file:///a.txt", &doc, &err); mcp_json_free(doc);
    EQST(st, MCP_OK, err);
    st = mcp_client_list_prompts(c, &doc, &err); mcp_json_free(doc);        /* 2 pages */
    EQST(st, MCP_OK, err);
    st = mcp_client_get_prompt(c, "greet", "{\"name\":\"Ada\"}", &doc, &err); mcp_json_free(doc);
    EQST(st, MCP_OK, err);
    st = mcp_client_complete(c, "{\"type\":\"ref/prompt\",\"name\":\"greet\"}", "name", "al", NULL, &doc, &err);
    mcp_json_free(doc);
    EQST(st, MCP_OK, err);
    st = mcp_client_ping(c, &err);
    EQST(st, MCP_OK, err);
    /* the caller's own _meta members stay; the protocol members are ours */
    st = mcp_client_request(c, "tools/call", "{\"name\":\"echo\",\"arguments\":{},\"_meta\":{\"com.example/trace\":\"t-1\","
                            "\"io.modelcontextprotocol/protocolVersion\":\"1999-01-01\"}}", &doc, &err);
    EQST(st, MCP_OK, err);
    mcp_json_free(doc);
    /* a progress token joins the protocol members */
    memset(&o, 0, sizeof o);
    o.on_progress = on_progress; o.user = &s;
    call = mcp_client_send_tool(c, "slow", "{\"ms\":60,\"every\":20}", &o, &err);
    st = mcp_call_wait(call, -1);
    EQST(st, MCP_OK, err);
    CHECKF(s.progress == 2, "%d progress callbacks", s.progress);
    mcp_call_free(call);
    /* without a log level: no notifications/message */
    st = tool(c, "notify", NULL, big, sizeof big, &err);
    EQST(st, MCP_OK, err);
    EQS(big, "notified (no log level: no messages)");
    CHECKF(s.notes == 2, "%d notifications (progress only)", s.notes);       /* the 2 progress */
    /* the log level: nothing sent now, a _meta member of every request from now on */
    mcp_client_get_stats(c, &s0);
    st = mcp_client_set_log_level(c, "warning", &err);
    EQST(st, MCP_OK, err);
    mcp_client_get_stats(c, &s1);
    CHECK(s1.sent == s0.sent);
    s.notes = 0;
    st = tool(c, "notify", NULL, big, sizeof big, &err);
    EQST(st, MCP_OK, err);
    EQS(big, "notified");
    CHECKF(s.notes == 2, "%d notifications", s.notes);
    EQS(s.note[0], "notifications/message");
    EQS(s.note_params[0], "{\"level\":\"warning\",\"logger\":\"test_server\",\"data\":\"log at warning\"}");
    EQS(s.note_params[1], "{\"level\":\"error\",\"logger\":\"test_server\",\"data\":\"log at error\"}");
    st = mcp_client_set_log_level(c, "debug", &err);
    EQST(st, MCP_OK, err);
    s.notes = 0;
    st = tool(c, "notify", NULL, big, sizeof big, &err);
    CHECKF(s.notes == 4, "%d notifications at debug", s.notes);

    reqs = server_requests(c);
    arr = mcp_json_root(reqs);
    EQS(methods_of(arr, m, sizeof m), "server/discover tools/list tools/list resources/list resources/list "
        "resources/templates/list resources/read prompts/list prompts/list prompts/get completion/complete "
        "server/discover tools/call tools/call tools/call tools/call tools/call tools/call");
    before_level = 15;                                   /* requests before set_log_level */
    for (i = 0; (r = mcp_json_at(arr, i)) != NULL; i++) {
        meta = mcp_json_get(r, "_meta");
        CHECKF(json_eq(mcp_json_get(meta, "io.modelcontextprotocol/protocolVersion"), "\"2026-07-28\""),
               "request %d: protocolVersion %s", (int)i, dumps(meta));
        CHECKF(json_eq(mcp_json_get(meta, "io.modelcontextprotocol/clientCapabilities"), want_caps),
               "request %d: clientCapabilities %s", (int)i, dumps(meta));
        CHECKF(json_eq(mcp_json_get(meta, "io.modelcontextprotocol/clientInfo"), "{\"name\":\"meta-client\",\"version\":\"3.1\"}"),
               "request %d: clientInfo %s", (int)i, dumps(meta));
        if ((int)i < before_level)
            CHECKF(mcp_json_get(meta, "io.modelcontextprotocol/logLevel") == NULL, "request %d: %s", (int)i, dumps(meta));
        else
            CHECKF(json_eq(mcp_json_get(meta, "io.modelcontextprotocol/logLevel"), (int)i == 15 ? "\"warning\"" : "\"debug\""),
                   "request %d: logLevel %s", (int)i, dumps(meta));
    }
    EQI(mcp_json_len(arr), 18);
    /* page 2 asked with its cursor (the second tools/list) - the cursor is a param, not _meta */
    EQS(mcp_json_str(mcp_json_get(mcp_json_get(mcp_json_at(arr, 12), "_meta"), "com.example/trace")), "t-1");
    meta = mcp_json_get(mcp_json_at(arr, 13), "_meta");                      /* the slow call */
    CHECK(int_of(mcp_json_get(meta, "progressToken")) > 0);
    EQI(mcp_json_len(meta), 4);
    EQI(mcp_json_len(mcp_json_get(mcp_json_at(arr, 0), "_meta")), 3);        /* the probe */
    mcp_json_free(reqs);
    mcp_client_free(c);
    CHECK(s.logs == 0 && s.reqs == 0);

    {   /* capabilities_json is sent as the clientCapabilities, as it is */
        desc_for(&d, &s, args);
        d.capabilities_json = "{\"experimental\":{\"x\":{}},\"elicitation\":{\"url\":{}}}";
        c = open_client(&d);
        doc = tool_json(c, "meta", NULL, &err);
        EQJ(mcp_json_get(mcp_json_root(doc), "io.modelcontextprotocol/clientCapabilities"),
            "{\"experimental\":{\"x\":{}},\"elicitation\":{\"url\":{}}}");
        EQJ(mcp_json_get(mcp_json_root(doc), "io.modelcontextprotocol/clientInfo"),
            "{\"name\":\"mcp.h\",\"version\":\"" MCP_VERSION "\"}");
        mcp_json_free(doc);
        mcp_client_free(c);
    }
    g_end(&g);
}

/* ---- 3. typed calls in the modern era ------------------------------------------------------- */

TEST_CASE(typed_modern)
{
    guard g;
    seen s;
    mcp_client_desc d;
    mcp_client *c;
    mcp_error err;
    mcp_status st;
    mcp_json_doc *doc = NULL, *reqs;
    mcp_client_stats s0, s1;
    const mcp_json *r, *arr;
    char m[512];
    const char *args[] = { "--era=modern", NULL };
    g_begin(&g, "typed calls, modern");
    desc_for(&d, &s, args);
    c = open_client(&d);

    st = mcp_client_list_tools(c, &doc, &err);
    EQST(st, MCP_OK, err);
    arr = mcp_json_get(mcp_json_root(doc), "tools");
    EQI(mcp_json_len(arr), 26);
    EQS(mcp_json_str(mcp_json_get(mcp_json_at(arr, 0), "name")), "echo");
    EQS(mcp_json_str(mcp_json_get(mcp_json_at(arr, 25), "name")), "history");
    mcp_json_free(doc);

    st = mcp_client_call_tool(c, "add", "{\"a\":2,\"b\":3.5}", &doc, &err);
    EQST(st, MCP_OK, err);
    r = mcp_json_root(doc);
    EQS(text_of(r), "5.5");
    EQJ(mcp_json_get(r, "structuredContent"), "{\"sum\":5.5}");
    EQS(mcp_json_str(mcp_json_get(r, "resultType")), "complete");           /* passed through */
    EQJ(mcp_json_get(r, "_meta"), "{\"io.modelcontextprotocol/serverInfo\":{\"name\":\"test_server\",\"version\":\"1.2.3\"}}");
    mcp_json_free(doc);
    st = mcp_client_call_tool(c, "fail", NULL, &doc, &err);
    EQST(st, MCP_OK, err);
    CHECK(mcp_json_is_true(mcp_json_get(mcp_json_root(doc), "isError")));
    mcp_json_free(doc);
    st = tool(c, "nope", NULL, big, sizeof big, &err);
    EQST(st, MCP_ERR_RPC, err);
    EQS(err.message, "MCP error -32602: Unknown tool: nope");

    st = mcp_client_list_resources(c, &doc, &err);
    EQST(st, MCP_OK, err);
    EQJ(mcp_json_root(doc), "{\"resources\":[{\"uri\":\"file:///a.txt\",\"name\":\"a.txt\",\"mimeType\":\"text/plain\"},"
                            "{\"uri\":\"file:///b.txt\",\"name\":\"b.txt\",\"mimeType\":\"text/plain\"},"
                            "{\"uri\":\"mem://counter\",\"name\":\"counter\"}]}");
    mcp_json_free(doc);
    st = mcp_client_list_resource_templates(c, &doc, &err);
    EQST(st, MCP_OK, err);
    EQJ(mcp_json_root(doc), "{\"resourceTemplates\":[{\"uriTemplate\":\"file:///tmpl/{path}\",\"name\":\"tmpl\"}]}");
    mcp_json_free(doc);
    st = mcp_client_read_resource(c, "file:///tmpl/x", &doc, &err);
    EQST(st, MCP_OK, err);
    r = mcp_json_root(doc);
    EQJ(mcp_json_get(r, "contents"), "[{\"uri\":\"file:///tmpl/x\",\"mimeType\":\"text/plain\",\"text\":\"content of file:///tmpl/x\"}]");
    CHECK(mcp_json_num(mcp_json_get(r, "ttlMs")) == 60000);
    EQS(mcp_json_str(mcp_json_get(r, "cacheScope")), "public");
    mcp_json_free(doc);
    st = mcp_client_list_prompts(c, &doc, &err);
    EQST(st, MCP_OK, err);
    EQJ(mcp_json_root(doc), "{\"prompts\":[{\"name\":\"greet\",\"arguments\":[{\"name\":\"name\",\"required\":true}]},"
                            "{\"name\":\"summarize\"}]}");
    mcp_json_free(doc);
    st = mcp_client_get_prompt(c, "greet", "{\"name\":\"Ada\"}", &doc, &err);
    EQST(st, MCP_OK, err);
    EQJ(mcp_json_get(mcp_json_root(doc), "messages"), "[{\"role\":\"user\",\"content\":{\"type\":\"text\",\"text\":\"Hello, Ada!\"}}]");
    mcp_json_free(doc);
    st = mcp_client_get_prompt(c, "greet", NULL, &doc, &err);
    EQST(st, MCP_ERR_RPC, err);
    EQS(err.message, "MCP error -32602: Missing required argument: name");
    st = mcp_client_complete(c, "{\"type\":\"ref/prompt\",\"name\":\"greet\"}", "name", "al", NULL, &doc, &err);
    EQST(st, MCP_OK, err);
    EQJ(mcp_json_get(mcp_json_root(doc), "completion"), "{\"values\":[\"alice\",\"albert\"],\"total\":2,\"hasMore\":false}");
    mcp_json_free(doc);

    /* ping is server/discover; subscribe and unsubscribe do not exist (nothing is sent) */
    st = mcp_client_ping(c, &err);
    EQST(st, MCP_OK, err);
    mcp_client_get_stats(c, &s0);
    st = mcp_client_subscribe(c, "file:///a.txt", &err);
    EQST(st, MCP_ERR_INVALID, err);
    EQS(err.message, "resources/subscribe does not exist in protocol version 2026-07-28: subscriptions/listen replaces it "
        "(mcp_client_listen).");
    st = mcp_client_unsubscribe(c, "file:///a.txt", &err);
    EQST(st, MCP_ERR_INVALID, err);
    EQS(err.message, "resources/unsubscribe does not exist in protocol version 2026-07-28: subscriptions/listen replaces it "
        "(mcp_client_listen).");
    mcp_client_get_stats(c, &s1);
    CHECK(s1.sent == s0.sent);
    /* the generic request: ping is gone in 2026-07-28 (the server says so) */
    st = mcp_client_request(c, "ping", NULL, &doc, &err);
    EQST(st, MCP_ERR_RPC, err);
    EQS(err.message, "MCP error -32601: Method not found");
    st = mcp_client_request(c, "server/discover", NULL, &doc, &err);
    EQST(st, MCP_OK, err);
    EQJ(mcp_json_get(mcp_json_root(doc), "supportedVersions"), "[\"2026-07-28\"]");
    mcp_json_free(doc);
    reqs = server_requests(c);           /* the last server/discover came from the cache: ping's */
    EQS(methods_of(mcp_json_root(reqs), m, sizeof m), "server/discover tools/list tools/list tools/call tools/call "
        "tools/call resources/list resources/list resources/templates/list resources/read prompts/list prompts/list "
        "prompts/get prompts/get completion/complete server/discover ping tools/call");
    mcp_json_free(reqs);
    mcp_client_free(c);
    CHECK(s.closes == 1 && s.logs == 0);

    {   /* capabilities the server did not declare: refused locally */
        const char *a2[] = { "--era=modern", "--caps=tools", NULL };
        desc_for(&d, &s, a2);
        c = open_client(&d);
        mcp_client_get_stats(c, &s0);
        st = mcp_client_list_prompts(c, &doc, &err);
        EQST(st, MCP_ERR_INVALID, err);
        EQS(err.message, "The server did not declare the \"prompts\" capability, so it does not support prompts/list.");
        st = mcp_client_set_log_level(c, "info", &err);
        EQST(st, MCP_ERR_INVALID, err);
        EQS(err.message, "The server did not declare the \"logging\" capability, so it does not support logging/setLevel.");
        st = mcp_client_read_resource(c, "file:///a.txt", &doc, &err);
        EQST(st, MCP_ERR_INVALID, err);
        mcp_client_get_stats(c, &s1);
        CHECK(s1.sent == s0.sent);
        st = tool(c, "echo", "{}", big, sizeof big, &err);
        EQST(st, MCP_OK, err);
        mcp_client_free(c);
    }
    {   /* results without resultType are complete */
        const char *a2[] = { "--era=modern", "--no-result-type", NULL };
        desc_for(&d, &s, a2);
        c = open_client(&d);
        st = mcp_client_call_tool(c, "echo", "{\"k\":true}", &doc, &err);
        EQST(st, MCP_OK, err);
        EQS(text_of(mcp_json_root(doc)), "{\"k\":true}");
        CHECK(mcp_json_get(mcp_json_root(doc), "resultType") == NULL);
        mcp_json_free(doc);
        st = mcp_client_list_tools(c, &doc, &err);
        EQST(st, MCP_OK, err);
        EQI(mcp_json_len(mcp_json_get(mcp_json_root(doc), "tools")), 26);
        mcp_json_free(doc);
        mcp_client_free(c);
    }
    g_end(&g);
}

/* ---- 4. input_required ---------------------------------------------------------------------- */

/* the mrtr tool's text: rounds, ids, inputResponses, requestState */
static mcp_json_doc *mrtr(mcp_client *c, const char *args, mcp_error *err, mcp_status *st)
{
    mcp_json_doc *d = NULL, *t = NULL;
    *st = mcp_client_call_tool(c, "mrtr", args, &d, err);
    if (*st == MCP_OK) {
        const char *text = text_of(mcp_json_root(d));
        t = text ? mcp_json_parse(text, strlen(text), NULL) : NULL;
        CHECKF(t != NULL, "mrtr text: %s", nn(text));
    }
    mcp_json_free(d);
    return t;
}

/* ids strictly increasing, n of them */
static int ids_ok(const mcp_json *ids, size_t n)
{
    size_t i;
    if (mcp_json_len(ids) != n) return 0;
    for (i = 1; i < n; i++) if (int_of(mcp_json_at(ids, i)) <= int_of(mcp_json_at(ids, i - 1))) return 0;
    return 1;
}

#define STATE_TAG "|t=\xc3\xa9 \"q\" \\ \t \xe2\x98\x83 </>|s="

TEST_CASE(mrtr)
{
    guard g;
    seen s;
    mcp_client_desc d;
    mcp_client *c;
    mcp_error err;
    mcp_status st;
    mcp_json_doc *t, *reqs;
    mcp_client_stats s0, s1;
    const mcp_json *r, *arr;
    const char *rs;
    char m[1024];
    int i;
    const char *args[] = { "--era=modern", NULL };
    g_begin(&g, "input_required");
    desc_asking(&d, &s, args);
    c = open_client(&d);

    /* elicitation, sampling and roots answered at once */
    mcp_client_get_stats(c, &s0);
    t = mrtr(c, "{}", &err, &st);
    EQST(st, MCP_OK, err);
    r = mcp_json_root(t);
    EQI(mcp_json_num(mcp_json_get(r, "rounds")), 1);
    CHECKF(ids_ok(mcp_json_get(r, "ids"), 2), "ids %s", dumps(mcp_json_get(r, "ids")));
    EQJ(mcp_json_get(r, "inputResponses"), "{\"elicit\":" ANS_E ",\"sample\":" ANS_S ",\"roots\":" ANS_R "}");
    rs = mcp_json_str(mcp_json_get(r, "requestState"));
    CHECKF(rs && !strncmp(rs, "mrtr|r=1|a=esr|ids=", 19) && strstr(rs, STATE_TAG), "requestState %s", nn(rs));
    mcp_json_free(t);
    mcp_client_get_stats(c, &s1);
    CHECK(s1.sent - s0.sent == 2 && s1.received - s0.received == 2);
    EQI(s.reqs, 3);
    /* on_request got each question with its params (in some order) */
    {
        int e = 0, sa = 0, ro = 0;
        for (i = 0; i < s.reqs; i++) {
            e += !strcmp(s.req[i], "elicitation/create") && !strcmp(s.req_msg[i], "What is your name?");
            sa += !strcmp(s.req[i], "sampling/createMessage");
            ro += !strcmp(s.req[i], "roots/list");
        }
        CHECK(e == 1 && sa == 1 && ro == 1);
    }
    /* the retry: the same name and arguments, the answers, the state, a new id */
    reqs = server_requests(c);
    arr = mcp_json_root(reqs);
    EQS(methods_of(arr, m, sizeof m), "server/discover tools/call tools/call tools/call");
    CHECK(mcp_json_get(mcp_json_at(arr, 1), "inputResponses") == NULL);
    CHECK(mcp_json_get(mcp_json_at(arr, 1), "requestState") == NULL);
    EQS(mcp_json_str(mcp_json_get(mcp_json_at(arr, 2), "name")), "mrtr");
    CHECK(mcp_json_get(mcp_json_at(arr, 2), "inputResponses") != NULL);
    CHECK(int_of(mcp_json_get(mcp_json_at(arr, 2), "id")) == int_of(mcp_json_get(mcp_json_at(arr, 1), "id")) + 1);
    EQS(mcp_json_str(mcp_json_get(mcp_json_get(mcp_json_at(arr, 2), "_meta"), "io.modelcontextprotocol/protocolVersion")),
        "2026-07-28");
    mcp_json_free(reqs);

    /* one kind at a time; the ask tool (sampling) gives the answer back */
    s.reqs = 0;
    st = tool(c, "ask", "{\"method\":\"sampling/createMessage\",\"params\":{\"messages\":[],\"maxTokens\":5}}", big, sizeof big, &err);
    EQST(st, MCP_OK, err);
    EQS(big, "{\"result\":" ANS_S "}");
    EQI(s.reqs, 1);
    st = tool(c, "ask", "{\"method\":\"roots/list\"}", big, sizeof big, &err);
    EQST(st, MCP_OK, err);
    EQS(big, "{\"result\":" ANS_R "}");
    st = tool(c, "whoami", NULL, big, sizeof big, &err);
    EQST(st, MCP_OK, err);
    EQS(big, "Hello, Ada!");

    /* several rounds, the bound of 8, requestState alone or none, refusals, answers given
       later, a cancel meanwhile, resources/read and prompts/get, declines, input no client can
       give and an unknown resultType: test_transport's mrtr_* cases (the in-memory transport) */
    mcp_client_free(c);
    CHECK(s.closes == 1);

    {   /* nothing declared: the server refuses with -32021 */
        desc_for(&d, &s, args);
        c = open_client(&d);
        t = mrtr(c, "{}", &err, &st);
        EQST(st, MCP_ERR_RPC, err);
        EQI(err.rpc_code, -32021);
        EQS(err.message, "MCP error -32021: the server needs client capabilities that were not declared: elicitation, "
                         "sampling, roots (Missing required client capability)");
        /* (asked anyway, without on_request: test_transport's mrtr_cannot) */
        mcp_client_free(c);
    }
    {   /* on_request set, but only elicitation declared */
        desc_asking(&d, &s, args);
        d.capabilities = MCP_CAP_ELICITATION;
        c = open_client(&d);
        t = mrtr(c, "{}", &err, &st);
        EQST(st, MCP_ERR_RPC, err);
        EQS(err.message, "MCP error -32021: the server needs client capabilities that were not declared: sampling, "
                         "roots (Missing required client capability)");
        t = mrtr(c, "{\"inputs\":\"e\"}", &err, &st);
        EQST(st, MCP_OK, err);
        mcp_json_free(t);
        mcp_client_free(c);
    }
    g_end(&g);
}

/* ---- 5. error sentences --------------------------------------------------------------------- */

TEST_CASE(errors)
{
    guard g;
    seen s;
    mcp_client_desc d;
    mcp_client *c;
    mcp_error err;
    mcp_status st;
    mcp_json_doc *doc = NULL;
    const char *args[] = { "--era=modern", NULL };
    g_begin(&g, "error sentences");
    desc_for(&d, &s, args);
    c = open_client(&d);
    /* -32020, -32021, -32022, -32000, a -32602 not about a resource and -32002 from a modern
       server: test_transport's rpc_errors (the in-memory transport) */
    /* resource not found: -32602 now, with the URI up front */
    st = mcp_client_read_resource(c, "file:///nope", &doc, &err);
    EQST(st, MCP_ERR_RPC, err);
    EQI(err.rpc_code, -32602);
    EQS(err.message, "Resource not found: file:///nope (MCP error -32602: Resource not found)");
    CHECK(doc == NULL);
    mcp_client_free(c);
    {   /* a legacy server: -32002, the same sentence */
        desc_for(&d, &s, NULL);
        c = open_client(&d);
        EQS(mcp_client_protocol_version(c), "2025-11-25");
        st = mcp_client_read_resource(c, "file:///nope", &doc, &err);
        EQST(st, MCP_ERR_RPC, err);
        EQI(err.rpc_code, -32002);
        EQS(err.message, "Resource not found: file:///nope (MCP error -32002: Resource not found)");
        mcp_client_free(c);
    }
    g_end(&g);
}

/* ---- 6. cancellation ------------------------------------------------------------------------ */

TEST_CASE(cancel_modern)
{
    /* A smoke test: 2026-07-28 over stdio still sends notifications/cancelled, and the server
       reads it from the pipe (it honours it: no late answer). The sentences, a timeout as a
       cancel, late answers logged: test_transport:cancel. */
    guard g;
    seen s;
    mcp_client_desc d;
    mcp_client *c;
    mcp_error err;
    mcp_status st;
    mcp_call *call;
    mcp_client_stats s0, s1;
    int64_t id, t0;
    char want[1024];
    int i;
    const char *args[] = { "--era=modern", NULL };
    g_begin(&g, "cancellation, modern stdio");
    desc_for(&d, &s, args);
    c = open_client(&d);
    mcp_client_get_stats(c, &s0);
    call = mcp_client_send_tool(c, "slow", "{\"ms\":2000,\"honor_cancel\":true}", NULL, &err);
    id = mcp_call_id(call);
    mcp_client_poll(c, 20);
    t0 = mcp_time_ms();
    CHECK(mcp_call_cancel(call, "user abort") == MCP_OK);
    CHECK(mcp_time_ms() - t0 < LATE(200));
    st = mcp_call_result(call, NULL, &err);
    EQST(st, MCP_ERR_CANCELLED, err);
    EQS(err.message, "Request cancelled: user abort");
    mcp_call_free(call);
    mcp_client_get_stats(c, &s1);
    EQI(s1.sent - s0.sent, 2);                     /* the call and its notifications/cancelled */
    snprintf(want, sizeof want, "[{\"jsonrpc\":\"2.0\",\"method\":\"notifications/cancelled\",\"params\":{\"requestId\":%lld,"
             "\"reason\":\"user abort\"}}]", (long long)id);
    EQS(history(c), want);
    /* honoured: no late answer arrives */
    for (i = 0; i < 5; i++) mcp_client_poll(c, 20);
    mcp_client_get_stats(c, &s1);
    EQI(s1.unknown_ids, 0);
    mcp_client_free(c);
    g_end(&g);
}

/* ---- 7. the same program against both eras -------------------------------------------------- */

static void say(char *out, size_t n, const char *fmt, ...)
{
    va_list ap;
    size_t k = strlen(out);
    va_start(ap, fmt);
    vsnprintf(out + k, n - k, fmt, ap);
    va_end(ap);
}

static void names_of(const mcp_json *arr, const char *key, char *out, size_t n)
{
    size_t i;
    const mcp_json *it;
    mcp_json_foreach(arr, i, it) say(out, n, "%s%s", i ? ", " : "", nn(mcp_json_str(mcp_json_get(it, key))));
}

static void app_request(void *user, mcp_client *c, mcp_request *req)
{
    seen *s = (seen *)user;
    const mcp_json *p = mcp_request_params(req);
    (void)c;
    say(s->transcript, sizeof s->transcript, "[asked: %s \"%s\"]", mcp_request_method(req),
        nn(mcp_json_str(mcp_json_get(p, "message"))));
    if (!strcmp(mcp_request_method(req), "elicitation/create"))
        mcp_request_reply(req, "{\"action\":\"accept\",\"content\":{\"name\":\"Grace\"}}", NULL);
    else
        mcp_request_reply_error(req, -32601, "Method not found", NULL);
}

/* What an application does with an MCP server, written once against the API, printing what it
   would show. Nothing in it knows the protocol era. */
static void app_session(const char *const *args, char *out, size_t n, const char **version)
{
    seen s;
    mcp_client_desc d;
    mcp_client *c;
    mcp_error err;
    mcp_status st;
    mcp_json_doc *doc = NULL;
    const mcp_json *r;
    char *t, *paren;
    desc_for(&d, &s, args);
    d.on_request = app_request;
    d.capabilities = MCP_CAP_ELICITATION;
    d.client_name = "my-app"; d.client_version = "1.0";
    out[0] = 0;
    c = mcp_client_new(&d, &err);
    if (!c || mcp_client_connect(c, &err) != MCP_OK) {
        say(out, n, "connect failed: %s\n", err.message);
        mcp_client_free(c);
        return;
    }
    *version = mcp_client_protocol_version(c);
    *version = !*version ? "?" : !strcmp(*version, "2026-07-28") ? "2026-07-28" : "legacy";
    r = mcp_client_server_info(c);
    say(out, n, "server %s %s\n", nn(mcp_json_str(mcp_json_get(r, "name"))), nn(mcp_json_str(mcp_json_get(r, "version"))));
    say(out, n, "instructions: %s\n", nn(mcp_client_instructions(c)));
    if ((st = mcp_client_list_tools(c, &doc, &err)) == MCP_OK) {
        say(out, n, "%d tools: ", (int)mcp_json_len(mcp_json_get(mcp_json_root(doc), "tools")));
        names_of(mcp_json_get(mcp_json_root(doc), "tools"), "name", out, n);
        say(out, n, "\n");
    } else say(out, n, "tools: %s\n", err.message);
    mcp_json_free(doc); doc = NULL;
    if ((st = mcp_client_call_tool(c, "echo", "{\"text\":\"hello\",\"n\":[1,2.5]}", &doc, &err)) == MCP_OK)
        say(out, n, "echo: %s\n", nn(text_of(mcp_json_root(doc))));
    else say(out, n, "echo: %s\n", err.message);
    mcp_json_free(doc); doc = NULL;
    if ((st = mcp_client_call_tool(c, "add", "{\"a\":40,\"b\":2}", &doc, &err)) == MCP_OK) {
        t = mcp_json_dump(mcp_json_get(mcp_json_root(doc), "structuredContent"), 0, NULL);
        say(out, n, "add: %s %s\n", nn(text_of(mcp_json_root(doc))), nn(t));
        mcp_free(t);
    } else say(out, n, "add: %s\n", err.message);
    mcp_json_free(doc); doc = NULL;
    if ((st = mcp_client_call_tool(c, "fail", NULL, &doc, &err)) == MCP_OK)
        say(out, n, "fail: %s%s\n", mcp_json_is_true(mcp_json_get(mcp_json_root(doc), "isError")) ? "tool error: " : "",
            nn(text_of(mcp_json_root(doc))));
    mcp_json_free(doc); doc = NULL;
    st = mcp_client_call_tool(c, "nope", NULL, &doc, &err);
    say(out, n, "nope: %s %s\n", mcp_status_str(st), err.message);
    if ((st = mcp_client_list_resources(c, &doc, &err)) == MCP_OK) {
        say(out, n, "resources: ");
        names_of(mcp_json_get(mcp_json_root(doc), "resources"), "uri", out, n);
        say(out, n, "\n");
    }
    mcp_json_free(doc); doc = NULL;
    if ((st = mcp_client_read_resource(c, "file:///b.txt", &doc, &err)) == MCP_OK) {
        r = mcp_json_at(mcp_json_get(mcp_json_root(doc), "contents"), 0);
        say(out, n, "read: %s %s\n", nn(mcp_json_str(mcp_json_get(r, "mimeType"))), nn(mcp_json_str(mcp_json_get(r, "text"))));
    } else say(out, n, "read: %s\n", err.message);
    mcp_json_free(doc); doc = NULL;
    st = mcp_client_read_resource(c, "file:///missing", &doc, &err);
    paren = strstr(err.message, " (");                  /* what a user is shown: the sentence */
    if (paren) *paren = 0;
    say(out, n, "read missing: %s %s\n", mcp_status_str(st), err.message);
    if ((st = mcp_client_list_prompts(c, &doc, &err)) == MCP_OK) {
        say(out, n, "prompts: ");
        names_of(mcp_json_get(mcp_json_root(doc), "prompts"), "name", out, n);
        say(out, n, "\n");
    }
    mcp_json_free(doc); doc = NULL;
    if ((st = mcp_client_get_prompt(c, "greet", "{\"name\":\"Ada\"}", &doc, &err)) == MCP_OK) {
        t = mcp_json_dump(mcp_json_get(mcp_json_root(doc), "messages"), 0, NULL);
        say(out, n, "prompt: %s %s\n", nn(mcp_json_str(mcp_json_get(mcp_json_root(doc), "description"))), nn(t));
        mcp_free(t);
    } else say(out, n, "prompt: %s\n", err.message);
    mcp_json_free(doc); doc = NULL;
    if ((st = mcp_client_complete(c, "{\"type\":\"ref/prompt\",\"name\":\"greet\"}", "name", "al", NULL, &doc, &err)) == MCP_OK) {
        t = mcp_json_dump(mcp_json_get(mcp_json_get(mcp_json_root(doc), "completion"), "values"), 0, NULL);
        say(out, n, "complete: %s\n", nn(t));
        mcp_free(t);
    }
    mcp_json_free(doc); doc = NULL;
    s.transcript[0] = 0;
    if ((st = mcp_client_call_tool(c, "whoami", NULL, &doc, &err)) == MCP_OK)
        say(out, n, "whoami: %s %s\n", s.transcript, nn(text_of(mcp_json_root(doc))));
    else say(out, n, "whoami: %s\n", err.message);
    mcp_json_free(doc); doc = NULL;
    st = mcp_client_ping(c, &err);
    say(out, n, "ping: %s\n", mcp_status_str(st));
    mcp_client_free(c);
    say(out, n, "closed: %d\n", s.closes);
}

TEST_CASE(same_program)
{
    guard g;
    static char legacy[8192], modern[8192], dual[8192];
    const char *vl = "?", *vm = "?", *vd = "?";
    const char *al[] = { "--era=legacy", NULL };
    const char *am[] = { "--era=modern", NULL };
    const char *ad[] = { "--era=dual", NULL };
    g_begin(&g, "one program, both eras");
    app_session(al, legacy, sizeof legacy, &vl);
    app_session(am, modern, sizeof modern, &vm);
    app_session(ad, dual, sizeof dual, &vd);
    EQS(vl, "legacy");
    EQS(vm, "2026-07-28");
    EQS(vd, "2026-07-28");
    CHECKF(!strcmp(legacy, modern), "legacy and modern differ:\n--- legacy\n%s--- modern\n%s", legacy, modern);
    CHECKF(!strcmp(legacy, dual), "legacy and dual differ:\n--- legacy\n%s--- dual\n%s", legacy, dual);
    /* and it is a real session, not two identical failures */
    EQS(legacy,
        "server test_server 1.2.3\n"
        "instructions: Use the echo tool to test.\nEverything else is for misbehaving.\n"
        "26 tools: echo, add, meta, slow, fail, never, defer, rev, ask, notify, garbage, badids, edge, batch, "
        "longline, stderr, flood, close_stdout, close_stdin, exit, spawn, pid, cwd, env, client, history\n"
        "echo: {\"text\":\"hello\",\"n\":[1,2.5]}\n"
        "add: 42 {\"sum\":42}\n"
        "fail: tool error: the tool failed\n"
        "nope: MCP_ERR_RPC: JSON-RPC error response MCP error -32602: Unknown tool: nope\n"
        "resources: file:///a.txt, file:///b.txt, mem://counter\n"
        "read: text/plain content of file:///b.txt\n"
        "read missing: MCP_ERR_RPC: JSON-RPC error response Resource not found: file:///missing\n"
        "prompts: greet, summarize\n"
        "prompt: A greeting [{\"role\":\"user\",\"content\":{\"type\":\"text\",\"text\":\"Hello, Ada!\"}}]\n"
        "complete: [\"alice\",\"albert\"]\n"
        "whoami: [asked: elicitation/create \"What is your name?\"] Hello, Grace!\n"
        "ping: MCP_OK: success\n"
        "closed: 1\n");
    g_end(&g);
}

/* ---- 8. the test server's own 2026-07-28 checks, over raw pipes ------------------------------ */

/* Runs the server with args, writes input to it, closes its stdin, returns all it wrote. */
static char *raw_exchange(const char *const *args, const char *input)
{
    int in[2], out[2];
    pid_t pid;
    mcp_buf b = {0};
    char buf[4096], *argv[8];
    ssize_t r;
    int i, n = 0;
    if (pipe(in) < 0) return NULL;
    if (pipe(out) < 0) { close(in[0]); close(in[1]); return NULL; }
    argv[n++] = (char *)server;
    for (i = 0; args && args[i] && n < 7; i++) argv[n++] = (char *)args[i];
    argv[n] = NULL;
    pid = fork();
    if (pid == 0) {
        dup2(in[0], 0); dup2(out[1], 1);
        close(in[0]); close(in[1]); close(out[0]); close(out[1]);
        execv(server, argv);
        _exit(127);
    }
    close(in[0]); close(out[1]);
    if (pid > 0 && write(in[1], input, strlen(input)) < 0) {}
    close(in[1]);
    while ((r = read(out[0], buf, sizeof buf)) > 0 || (r < 0 && errno == EINTR))
        if (r > 0) mcp_buf_append(&b, buf, (size_t)r);
    close(out[0]);
    if (pid > 0) while (waitpid(pid, NULL, 0) < 0 && errno == EINTR) {}
    mcp_buf_append(&b, "", 1);
    return b.data;
}

/* the line of the answer to request `id` */
static const char *answer_line(const char *all, int id, char *out, size_t n)
{
    char key[32];
    const char *p, *e;
    snprintf(key, sizeof key, "\"id\":%d,", id);
    p = all ? strstr(all, key) : NULL;
    if (!p) { snprintf(out, n, "(no answer to %d)", id); return out; }
    while (p > all && p[-1] != '\n') p--;
    e = strchr(p, '\n');
    snprintf(out, n, "%.*s", (int)(e ? e - p : (long)strlen(p)), p);
    return out;
}

#define META(v) "\"_meta\":{\"io.modelcontextprotocol/protocolVersion\":\"" v "\",\"io.modelcontextprotocol/clientCapabilities\":{}}"

TEST_CASE(server_self)
{
    guard g;
    char *all, line[2048], input[8192], state[1024];
    const char *args[] = { "--era=modern", NULL };
    const char *dual[] = { "--era=dual", NULL };
    mcp_json_doc *d;
    const char *rs;
    g_begin(&g, "test server: its own checks");
    all = raw_exchange(args,
        "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/list\",\"params\":{}}\n"
        "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"tools/list\"}\n"
        "{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"tools/list\",\"params\":{\"_meta\":{\"io.modelcontextprotocol/protocolVersion\":\"2026-07-28\"}}}\n"
        "{\"jsonrpc\":\"2.0\",\"id\":4,\"method\":\"tools/list\",\"params\":{\"_meta\":{\"io.modelcontextprotocol/clientCapabilities\":{}}}}\n"
        "{\"jsonrpc\":\"2.0\",\"id\":5,\"method\":\"tools/list\",\"params\":{" META("2025-11-25") "}}\n"
        "{\"jsonrpc\":\"2.0\",\"id\":6,\"method\":\"initialize\",\"params\":{\"protocolVersion\":\"2025-06-18\",\"capabilities\":{},"
        "\"clientInfo\":{\"name\":\"x\",\"version\":\"1\"}}}\n"
        "{\"jsonrpc\":\"2.0\",\"id\":7,\"method\":\"ping\",\"params\":{" META("2026-07-28") "}}\n"
        "{\"jsonrpc\":\"2.0\",\"id\":8,\"method\":\"server/discover\",\"params\":{" META("2026-07-28") "}}\n"
        "{\"jsonrpc\":\"2.0\",\"id\":9,\"method\":\"tools/call\",\"params\":{\"name\":\"mrtr\",\"arguments\":{\"inputs\":\"\"},"
        META("2026-07-28") "}}\n");
    CHECK(all != NULL);
    EQS(answer_line(all, 1, line, sizeof line), "{\"jsonrpc\":\"2.0\",\"id\":1,\"error\":{\"code\":-32602,\"message\":"
        "\"Invalid params: _meta[\\\"io.modelcontextprotocol/protocolVersion\\\"] is required\"}}");
    EQS(answer_line(all, 2, line, sizeof line), "{\"jsonrpc\":\"2.0\",\"id\":2,\"error\":{\"code\":-32602,\"message\":"
        "\"Invalid params: _meta[\\\"io.modelcontextprotocol/protocolVersion\\\"] is required\"}}");
    EQS(answer_line(all, 3, line, sizeof line), "{\"jsonrpc\":\"2.0\",\"id\":3,\"error\":{\"code\":-32602,\"message\":"
        "\"Invalid params: _meta[\\\"io.modelcontextprotocol/clientCapabilities\\\"] is required\"}}");
    EQS(answer_line(all, 4, line, sizeof line), "{\"jsonrpc\":\"2.0\",\"id\":4,\"error\":{\"code\":-32602,\"message\":"
        "\"Invalid params: _meta[\\\"io.modelcontextprotocol/protocolVersion\\\"] is required\"}}");
    EQS(answer_line(all, 5, line, sizeof line), "{\"jsonrpc\":\"2.0\",\"id\":5,\"error\":{\"code\":-32022,\"message\":"
        "\"Unsupported protocol version\",\"data\":{\"supported\":[\"2026-07-28\"],\"requested\":\"2025-11-25\"}}}");
    EQS(answer_line(all, 6, line, sizeof line), "{\"jsonrpc\":\"2.0\",\"id\":6,\"error\":{\"code\":-32022,\"message\":"
        "\"This server speaks only protocol version 2026-07-28: no initialize, _meta on every request\",\"data\":"
        "{\"supported\":[\"2026-07-28\"],\"requested\":\"2025-06-18\"}}}");
    EQS(answer_line(all, 7, line, sizeof line), "{\"jsonrpc\":\"2.0\",\"id\":7,\"error\":{\"code\":-32601,\"message\":"
        "\"Method not found\"}}");
    EQS(answer_line(all, 8, line, sizeof line), "{\"jsonrpc\":\"2.0\",\"id\":8,\"result\":{\"resultType\":\"complete\","
        "\"supportedVersions\":[\"2026-07-28\"],\"capabilities\":{\"tools\":{\"listChanged\":true},\"resources\":"
        "{\"subscribe\":true,\"listChanged\":true},\"prompts\":{\"listChanged\":true},\"logging\":{},\"completions\":{}},"
        "\"_meta\":{\"io.modelcontextprotocol/serverInfo\":{\"name\":\"test_server\",\"title\":\"mcp.h test server\","
        "\"version\":\"1.2.3\"}},\"instructions\":\"Use the echo tool to test.\\nEverything else is for misbehaving.\","
        "\"ttlMs\":60000,\"cacheScope\":\"public\"}}");
    /* the state the server issued, then the retries a broken client could send */
    answer_line(all, 9, line, sizeof line);
    d = mcp_json_parse(line, strlen(line), NULL);
    rs = mcp_json_str(mcp_json_get(mcp_json_get(mcp_json_root(d), "result"), "requestState"));
    EQS(mcp_json_str(mcp_json_get(mcp_json_get(mcp_json_root(d), "result"), "resultType")), "input_required");
    CHECK(rs != NULL);
    {
        mcp_jw w;
        char *q;
        mcp_jw_init(&w, 0);
        mcp_jw_str(&w, rs ? rs : "");
        q = mcp_jw_finish(&w, NULL, NULL);
        snprintf(state, sizeof state, "%s", q ? q : "\"\"");
        mcp_free(q);
    }
    mcp_json_free(d);
    free(all);
    snprintf(input, sizeof input,
        /* the same id again */
        "{\"jsonrpc\":\"2.0\",\"id\":9,\"method\":\"tools/call\",\"params\":{\"name\":\"mrtr\",\"arguments\":{\"inputs\":\"\"},"
        "\"requestState\":%s," META("2026-07-28") "}}\n"
        /* other arguments */
        "{\"jsonrpc\":\"2.0\",\"id\":10,\"method\":\"tools/call\",\"params\":{\"name\":\"mrtr\",\"arguments\":{\"inputs\":\"\",\"x\":1},"
        "\"requestState\":%s," META("2026-07-28") "}}\n"
        /* a changed state */
        "{\"jsonrpc\":\"2.0\",\"id\":11,\"method\":\"tools/call\",\"params\":{\"name\":\"mrtr\",\"arguments\":{\"inputs\":\"\"},"
        "\"requestState\":\"mrtr|r=1|a=|ids=9|h=0|t=x|s=0\"," META("2026-07-28") "}}\n"
        /* right: a new id, the same state */
        "{\"jsonrpc\":\"2.0\",\"id\":12,\"method\":\"tools/call\",\"params\":{\"name\":\"mrtr\",\"arguments\":{\"inputs\":\"\"},"
        "\"requestState\":%s," META("2026-07-28") "}}\n"
        /* answers without a state */
        "{\"jsonrpc\":\"2.0\",\"id\":13,\"method\":\"tools/call\",\"params\":{\"name\":\"mrtr\",\"arguments\":{\"inputs\":\"r\"},"
        "\"inputResponses\":{\"roots\":{\"roots\":[]}},\"_meta\":{\"io.modelcontextprotocol/protocolVersion\":\"2026-07-28\","
        "\"io.modelcontextprotocol/clientCapabilities\":{\"roots\":{}}}}}\n"
        /* a state where none was sent */
        "{\"jsonrpc\":\"2.0\",\"id\":14,\"method\":\"tools/call\",\"params\":{\"name\":\"mrtr\",\"arguments\":{\"inputs\":\"r\","
        "\"no_state\":true},\"requestState\":\"x\",\"_meta\":{\"io.modelcontextprotocol/protocolVersion\":\"2026-07-28\","
        "\"io.modelcontextprotocol/clientCapabilities\":{\"roots\":{}}}}}\n",
        state, state, state);
    all = raw_exchange(args, input);
    EQS(answer_line(all, 9, line, sizeof line), "{\"jsonrpc\":\"2.0\",\"id\":9,\"error\":{\"code\":-32602,\"message\":"
        "\"The retry reused request id 9.\"}}");
    EQS(answer_line(all, 10, line, sizeof line), "{\"jsonrpc\":\"2.0\",\"id\":10,\"error\":{\"code\":-32602,\"message\":"
        "\"requestState belongs to a request with other arguments.\"}}");
    EQS(answer_line(all, 11, line, sizeof line), "{\"jsonrpc\":\"2.0\",\"id\":11,\"error\":{\"code\":-32602,\"message\":"
        "\"requestState failed verification: it is not the one this server sent.\"}}");
    CHECKF(strstr(answer_line(all, 12, line, sizeof line), "\"resultType\":\"complete\"") &&
           strstr(line, "\\\"ids\\\":[9,12]"), "got %s", line);
    EQS(answer_line(all, 13, line, sizeof line), "{\"jsonrpc\":\"2.0\",\"id\":13,\"error\":{\"code\":-32602,\"message\":"
        "\"inputResponses came without the requestState this server sent.\"}}");
    EQS(answer_line(all, 14, line, sizeof line), "{\"jsonrpc\":\"2.0\",\"id\":14,\"error\":{\"code\":-32602,\"message\":"
        "\"A requestState came back, but this server sent none.\"}}");
    free(all);
    /* dual: _meta (or nothing yet) means modern; after initialize, no _meta means legacy */
    all = raw_exchange(dual,
        "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/call\",\"params\":{\"name\":\"echo\"}}\n"
        "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"initialize\",\"params\":{\"protocolVersion\":\"2025-06-18\",\"capabilities\":{},"
        "\"clientInfo\":{\"name\":\"x\",\"version\":\"1\"}}}\n"
        "{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"tools/call\",\"params\":{\"name\":\"echo\"}}\n"
        "{\"jsonrpc\":\"2.0\",\"id\":4,\"method\":\"tools/call\",\"params\":{\"name\":\"echo\"," META("2026-07-28") "}}\n");
    CHECK(strstr(answer_line(all, 1, line, sizeof line), "\"code\":-32602") != NULL);
    CHECK(strstr(answer_line(all, 2, line, sizeof line), "\"protocolVersion\":\"2025-06-18\"") != NULL);
    EQS(answer_line(all, 3, line, sizeof line), "{\"jsonrpc\":\"2.0\",\"id\":3,\"result\":{\"content\":[{\"type\":\"text\","
        "\"text\":\"{}\"}]}}");
    CHECK(strstr(answer_line(all, 4, line, sizeof line), "{\"jsonrpc\":\"2.0\",\"id\":4,\"result\":{\"resultType\":\"complete\",") == line);
    free(all);
    g_end(&g);
}

/* ---- 8. subscriptions/listen ------------------------------------------------------------------ */

#define SUB_KEY "io.modelcontextprotocol/subscriptionId"

static int64_t note_sub[MAXREC];     /* each notification's params._meta subscriptionId (-1: none) */
static char listen_stderr[4096];     /* the server's stderr lines, each ended by '\n' */

static void cb_sub_note(void *user, mcp_client *c, const char *method, const mcp_json *params)
{
    seen *s = (seen *)user;
    if (s->notes < MAXREC) note_sub[s->notes] = int_of(mcp_json_get(mcp_json_get(params, "_meta"), SUB_KEY));
    cb_note(user, c, method, params);
}

static void cb_stderr(void *user, mcp_client *c, const char *line, size_t len)
{
    size_t k = strlen(listen_stderr);
    (void)user; (void)c;
    snprintf(listen_stderr + k, sizeof listen_stderr - k, "%.*s\n", (int)len, line);
}

/* polls until s->notes reaches n, at most LATE(2000) ms */
static void notes_wait(mcp_client *c, seen *s, int n)
{
    int64_t t0 = mcp_time_ms();
    while (s->notes < n && mcp_time_ms() - t0 < LATE(2000)) mcp_client_poll(c, 20);
}

/* notification i is `method` on subscription `id` with exactly these params */
static void note_is(const seen *s, int i, const char *method, int64_t id, const char *params)
{
    mcp_json_doc *d = mcp_json_parse(s->note_params[i], strlen(s->note_params[i]), NULL);
    EQS(s->note[i], method);
    CHECKF(note_sub[i] == id, "notification %d (%s): subscriptionId %lld, want %lld", i, s->note[i],
           (long long)note_sub[i], (long long)id);
    CHECKF(d && json_eq(mcp_json_root(d), params), "notification %d: params %s, want %s", i, s->note_params[i], params);
    mcp_json_free(d);
}

/* the fire tool: its text must be want, and exactly the notifications it sent arrived by then */
static void fire(mcp_client *c, seen *s, const char *args, const char *want)
{
    char out[128];
    mcp_error err;
    mcp_status st;
    s->notes = 0;
    st = tool(c, "fire", args, out, sizeof out, &err);
    EQST(st, MCP_OK, err);
    EQS(out, want);
}

/* the server's open subscriptions (the subscriptions tool) equal want */
static void server_subs(mcp_client *c, const char *want)
{
    mcp_error err;
    mcp_json_doc *d = tool_json(c, "subscriptions", NULL, &err);
    CHECKF(d != NULL, "the subscriptions tool: %s", err.message);
    EQJ(mcp_json_root(d), want);
    mcp_json_free(d);
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
    mcp_json_doc *r = NULL;
    mcp_client_stats s0, s1;
    int64_t ida, idb, t0;
    char want[1024], p[512];
    const char *args[] = { "--era=modern", NULL };
    g_begin(&g, "subscriptions/listen, modern stdio");
    desc_for(&d, &s, args);
    d.on_notification = cb_sub_note;
    d.on_stderr = cb_stderr;
    listen_stderr[0] = 0;
    c = open_client(&d);
    EQS(mcp_client_protocol_version(c), "2026-07-28");

    /* acknowledged with the subset served: promptsListChanged dropped */
    a = mcp_client_listen(c, "{\"toolsListChanged\":true,\"promptsListChanged\":true,"
                             "\"resourceSubscriptions\":[\"file:///a\"]}", NULL, &err);
    CHECKF(a != NULL, "listen: %s", err.message);
    EQST(err.status, MCP_OK, err);
    if (!a) { mcp_client_free(c); g_end(&g); return; }
    ida = mcp_call_id(a);
    notes_wait(c, &s, 1);
    EQI(s.notes, 1);
    snprintf(want, sizeof want, "{\"_meta\":{\"" SUB_KEY "\":%lld},\"notifications\":{\"toolsListChanged\":true,"
             "\"resourceSubscriptions\":[\"file:///a\"]}}", (long long)ida);
    note_is(&s, 0, "notifications/subscriptions/acknowledged", ida, want);
    EQI(mcp_call_status(a), MCP_AGAIN);

    /* a second one at once, with another filter and its own id */
    s.notes = 0;
    b = mcp_client_listen(c, "{\"toolsListChanged\":false,\"resourcesListChanged\":true,"
                             "\"resourceSubscriptions\":[\"file:///b\"]}", NULL, &err);
    CHECKF(b != NULL, "listen: %s", err.message);
    if (!b) { mcp_call_free(a); mcp_client_free(c); g_end(&g); return; }
    idb = mcp_call_id(b);
    CHECK(idb != ida);
    notes_wait(c, &s, 1);
    EQI(s.notes, 1);
    snprintf(want, sizeof want, "{\"_meta\":{\"" SUB_KEY "\":%lld},\"notifications\":{\"resourcesListChanged\":true,"
             "\"resourceSubscriptions\":[\"file:///b\"]}}", (long long)idb);
    note_is(&s, 0, "notifications/subscriptions/acknowledged", idb, want);
    snprintf(want, sizeof want, "[{\"id\":%lld,\"notifications\":{\"toolsListChanged\":true,\"resourceSubscriptions\":"
             "[\"file:///a\"]}},{\"id\":%lld,\"notifications\":{\"resourcesListChanged\":true,\"resourceSubscriptions\":"
             "[\"file:///b\"]}}]", (long long)ida, (long long)idb);
    server_subs(c, want);

    /* each subscription gets only what it asked for, tagged with its own id; the notifications
       precede the tool's answer on the pipe, so they have all arrived when it returns */
    snprintf(p, sizeof p, "{\"_meta\":{\"" SUB_KEY "\":%lld}}", (long long)ida);
    fire(c, &s, "{\"what\":\"tools\"}", "sent 1");
    EQI(s.notes, 1);
    note_is(&s, 0, "notifications/tools/list_changed", ida, p);
    snprintf(p, sizeof p, "{\"_meta\":{\"" SUB_KEY "\":%lld}}", (long long)idb);
    fire(c, &s, "{\"what\":\"resources\"}", "sent 1");
    EQI(s.notes, 1);
    note_is(&s, 0, "notifications/resources/list_changed", idb, p);
    fire(c, &s, "{\"what\":\"prompts\"}", "sent 0");       /* asked for by a, but not served */
    EQI(s.notes, 0);
    /* resources/updated only for the subscribed uri */
    snprintf(p, sizeof p, "{\"_meta\":{\"" SUB_KEY "\":%lld},\"uri\":\"file:///a\"}", (long long)ida);
    fire(c, &s, "{\"what\":\"updated\",\"uri\":\"file:///a\"}", "sent 1");
    EQI(s.notes, 1);
    note_is(&s, 0, "notifications/resources/updated", ida, p);
    snprintf(p, sizeof p, "{\"_meta\":{\"" SUB_KEY "\":%lld},\"uri\":\"file:///b\"}", (long long)idb);
    fire(c, &s, "{\"what\":\"updated\",\"uri\":\"file:///b\"}", "sent 1");
    EQI(s.notes, 1);
    note_is(&s, 0, "notifications/resources/updated", idb, p);
    fire(c, &s, "{\"what\":\"updated\",\"uri\":\"file:///c\"}", "sent 0");
    EQI(s.notes, 0);

    /* mcp_call_cancel: MCP_ERR_CANCELLED, notifications/cancelled, and nothing more for it */
    mcp_client_get_stats(c, &s0);
    CHECK(mcp_call_cancel(b, "done listening") == MCP_OK);
    st = mcp_call_result(b, NULL, &err);
    EQST(st, MCP_ERR_CANCELLED, err);
    EQS(err.message, "Request cancelled: done listening");
    mcp_call_free(b);
    snprintf(want, sizeof want, "[{\"jsonrpc\":\"2.0\",\"method\":\"notifications/cancelled\","
             "\"params\":{\"requestId\":%lld,\"reason\":\"done listening\"}}]", (long long)idb);
    EQS(history(c), want);
    snprintf(want, sizeof want, "[{\"id\":%lld,\"notifications\":{\"toolsListChanged\":true,\"resourceSubscriptions\":"
             "[\"file:///a\"]}}]", (long long)ida);
    server_subs(c, want);
    fire(c, &s, "{\"what\":\"resources\"}", "sent 0");
    EQI(s.notes, 0);
    fire(c, &s, "{\"what\":\"updated\",\"uri\":\"file:///b\"}", "sent 0");
    EQI(s.notes, 0);
    snprintf(want, sizeof want, "test_server: subscription %lld cancelled\n", (long long)idb);
    t0 = mcp_time_ms();
    while (!strstr(listen_stderr, want) && mcp_time_ms() - t0 < LATE(2000)) mcp_client_poll(c, 20);
    CHECKF(strstr(listen_stderr, want) != NULL, "stderr: \"%s\", want a line \"%s\"", listen_stderr, want);
    mcp_client_get_stats(c, &s1);
    EQI(s1.unknown_ids - s0.unknown_ids, 0);
    /* the one still open still works */
    snprintf(p, sizeof p, "{\"_meta\":{\"" SUB_KEY "\":%lld}}", (long long)ida);
    fire(c, &s, "{\"what\":\"tools\"}", "sent 1");
    EQI(s.notes, 1);
    note_is(&s, 0, "notifications/tools/list_changed", ida, p);

    /* a graceful end from the server: MCP_OK with its result */
    {
        char out[64];
        st = tool(c, "end_listen", NULL, out, sizeof out, &err);
        EQST(st, MCP_OK, err);
        EQS(out, "ended 1");
    }
    EQI(mcp_call_status(a), MCP_OK);
    st = mcp_call_result(a, &r, &err);
    EQST(st, MCP_OK, err);
    snprintf(want, sizeof want, "{\"resultType\":\"complete\",\"_meta\":{\"" SUB_KEY "\":%lld}}", (long long)ida);
    EQJ(mcp_json_root(r), want);
    mcp_json_free(r);
    mcp_call_free(a);
    server_subs(c, "[]");
    mcp_client_get_stats(c, &s1);
    EQI(s1.unknown_ids, 0);
    mcp_client_free(c);

    g_end(&g);
}

int main(int argc, char **argv)
{
    static char abs_server[PATH_MAX];
    const char *srv;
    struct sigaction sa;
    int64_t t0 = mcp_time_ms();
    test_args(&argc, argv);
    srv = argc > 2 ? argv[2] : getenv("MCP_TEST_SERVER");
    if (!srv || !*srv) srv = "build/test_server";
    if (getenv("LD_PRELOAD") && strstr(getenv("LD_PRELOAD"), "vgpreload")) slack = 10;   /* valgrind */
    if (getenv("MCP_TEST_SLACK") && atoi(getenv("MCP_TEST_SLACK")) > 0) slack = atoi(getenv("MCP_TEST_SLACK"));
    if (!realpath(srv, abs_server) || access(abs_server, X_OK)) {
        fprintf(stderr, "test_modern_stdio: the test server \"%s\" is missing: build it from "
                        "tests/servers/test_server.c, or pass its path as argv[2] or MCP_TEST_SERVER\n", srv);
        CHECK(!"test server present");
        return TEST_DONE();
    }
    server = abs_server;
    snprintf(tmpdir, sizeof tmpdir, "%s/mcp_test_modern_%ld", getenv("TMPDIR") && *getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp",
             (long)getpid());                    /* $TMPDIR, as mktemp(1) has it */
    if (mkdir(tmpdir, 0700) < 0 && errno != EEXIST) { perror("mkdir"); return 2; }
    sigaction(SIGPIPE, NULL, &sa);
    CHECKF(sa.sa_handler == SIG_DFL, "SIGPIPE must keep its default disposition in this test");

    test_run();

    {
        char p[PATH_MAX + 32];
        const char *const logs[] = { "dup.log", "d21.log", "pin.log", NULL };
        int i;
        for (i = 0; logs[i]; i++) { snprintf(p, sizeof p, "%s/%s", tmpdir, logs[i]); unlink(p); }
        rmdir(tmpdir);
    }
    printf("# total %lld ms\n", (long long)(mcp_time_ms() - t0));
    return TEST_DONE();
}
