/* The client's side of the transport table (struct mcp_transport, mcp_transport_report),
   tested byte for byte through tests/mem_transport.h: a scripted transport in memory, no
   process, no socket. What the client sends (each message's bytes, id, headers, flags), which
   operations it calls (abandon, resume, ready, close), and what it makes of each event.

   Groups, in order: the connect (server/discover then initialize after -32601 or silence,
   pinned 2025-11-25, a modern DiscoverResult, the HTTP headers; detect: each legacy answer to
   the probe, -32022 with its supported list, a DiscoverResult's versions, -32021 and -32020, a
   second probe, versions nobody speaks, pinned 2026-07-28 refused every way, pinned legacy
   versions); the events (MESSAGE and
   mcp_transport_report's return, text that is not JSON, STDERR, LOG, FAILED with and without
   a JSON-RPC body, SESSION_LOST and a new session or its failure, BROKEN for a request in
   both eras and for the connection, CLOSED with how the server ended); timeouts and cancels
   (cancel*: the bytes of notifications/cancelled with and without a reason, or none over HTTP;
   a second cancel, a free in flight, late answers logged and counted, from on_progress,
   initialize refusing it and only ping while connecting);
   input_required (MRTR: multi round-trip requests; mrtr_*: several questions at once, rounds,
   requestState alone, the bound of 8, refusals, answers given later, a cancel meanwhile,
   resources/read and prompts/get, input no client can give, unknown resultTypes); -32020 and
   the tools/list re-read; subscriptions/listen (listen_calls: the requests' bytes,
   notifications with their ids, no timeout unless opts sets one, cancel and free, a graceful
   end, the legacy era's refusal, on both tables; listen_breaks: re-listens under new ids); MCP_CUSTOM itself (the refusal, mcp_client_transport, pollfds/next_timeout/poll, stats, close steps);
   JSON-RPC error objects as mcp_error (rpc_errors: every code's sentence, in both eras); the less
   common cases (SESSION_LOST for no request, events for ids no longer in flight, a
   batch, requests from the server, close_now, BROKEN during the connect, -32020 in a FAILED's
   body and a re-read that fails); notifications (each to on_notification with its params or
   none, logging/setLevel and resources/subscribe byte for byte, batches); timeouts (the default,
   per call, none, progress resetting the clock, the maximum totals, the progressToken in _meta,
   a timed-out and a slow initialize); requests from the server (server_requests: the declared
   capabilities, replies at once and later, errors, an invalid result, ping, a request the
   server cancels, one held at close, no on_request; each reply byte for byte, on both tables).

   Usage: test_transport [DATA_DIR] (DATA_DIR is not read). */
#define _POSIX_C_SOURCE 200809L
#include "../mcp.h"
#include "test.h"
#include "mem_transport.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *nn(const char *s) { return s ? s : "(null)"; }
#define EQS(a, b) CHECKF(!strcmp(nn(a), (b)), "got \"%s\", want \"%s\"", nn(a), (b))
#define EQI(a, b) CHECKF((long long)(a) == (long long)(b), "%s is %lld, want %lld", #a, (long long)(a), (long long)(b))
#define EQST(st, want, err) CHECKF((st) == (want), "status %d (%s), want %d; message: %s", (int)(st), \
                                   mcp_status_str(st), (int)(want), (err).message)

/* The _meta members of every 2026-07-28 request from a client named "t" 1 */
#define META "\"_meta\":{\"io.modelcontextprotocol/protocolVersion\":\"2026-07-28\"," \
             "\"io.modelcontextprotocol/clientCapabilities\":{\"extensions\":{\"io.modelcontextprotocol/tasks\":{}}},\"io.modelcontextprotocol/clientInfo\":" \
             "{\"name\":\"t\",\"version\":\"1\"}}"
#define DISCOVER(id) "{\"jsonrpc\":\"2.0\",\"id\":" #id ",\"method\":\"server/discover\",\"params\":{" META "}}"
#define INITIALIZE(id) "{\"jsonrpc\":\"2.0\",\"id\":" #id ",\"method\":\"initialize\",\"params\":{\"protocolVersion\":" \
                       "\"2025-11-25\",\"capabilities\":{},\"clientInfo\":{\"name\":\"t\",\"version\":\"1\"}}}"
#define INITIALIZED "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}"

/* ---- what the callbacks saw ------------------------------------------------------------------- */

static char logs[8192], errs[2048], close_why[512], notes[8192];
static int ncloses;
static mcp_status close_status;

static void cat(char *buf, size_t n, const char *s, size_t len)
{
    size_t at = strlen(buf);
    snprintf(buf + at, n - at, "%.*s\n", (int)len, s);
}
static void on_log(void *u, mcp_client *c, const char *m) { (void)u; (void)c; cat(logs, sizeof logs, m, strlen(m)); }
static void on_stderr(void *u, mcp_client *c, const char *l, size_t n) { (void)u; (void)c; cat(errs, sizeof errs, l, n); }
static void on_note(void *u, mcp_client *c, const char *method, const mcp_json *params)
{
    char *p = params ? mcp_json_dump(params, 0, NULL) : NULL;    /* "(none)": no params at all */
    size_t at = strlen(notes);
    (void)u; (void)c;
    snprintf(notes + at, sizeof notes - at, "%s %s\n", method, p ? p : "(none)");
    mcp_free(p);
}
static void on_close(void *u, mcp_client *c, const mcp_error *why)
{
    (void)u; (void)c;
    ncloses++;
    close_status = why->status;
    snprintf(close_why, sizeof close_why, "%s", why->message);
}

/* ---- a scripted server: the handshake answered as it is asked ----------------------------------- */

enum { ERA_LEGACY, ERA_SILENT, ERA_MODERN };
static int era;
static const char *server_caps;          /* the server's capabilities; NULL: {"tools":{}} */

static int64_t id_of(const char *msg, char *method, size_t n)
{
    mcp_json_doc *d = mcp_json_parse(msg, strlen(msg), NULL);
    int64_t id = -1;
    mcp_json_int64(mcp_json_get(mcp_json_root(d), "id"), &id);
    snprintf(method, n, "%s", nn(mcp_json_str(mcp_json_get(mcp_json_root(d), "method"))));
    mcp_json_free(d);
    return id;
}

static void answer(int64_t id, const char *result)
{
    char m[4096];
    snprintf(m, sizeof m, "{\"jsonrpc\":\"2.0\",\"id\":%lld,\"result\":%s}", (long long)id, result);
    mem_msg(m);
}

static void answer_err(int64_t id, long code, const char *message)
{
    char m[1024];
    snprintf(m, sizeof m, "{\"jsonrpc\":\"2.0\",\"id\":%lld,\"error\":{\"code\":%ld,\"message\":\"%s\"}}",
             (long long)id, code, message);
    mem_msg(m);
}

static void handshake(const mem_sent *s, void *user)
{
    char method[64];
    int64_t id = id_of(s->msg, method, sizeof method);
    (void)user;
    if (!strcmp(method, "server/discover")) {
        if (era == ERA_LEGACY) answer_err(id, -32601, "Method not found");
        else if (era == ERA_MODERN) {
            char r[512];
            snprintf(r, sizeof r, "{\"resultType\":\"complete\",\"supportedVersions\":[\"2026-07-28\"],\"capabilities\":"
                     "%s,\"_meta\":{\"io.modelcontextprotocol/serverInfo\":{\"name\":\"mem\",\"version\":\"9\"}}}",
                     server_caps ? server_caps : "{\"tools\":{}}");
            answer(id, r);
        }
    } else if (!strcmp(method, "initialize")) {
        char r[512];
        snprintf(r, sizeof r, "{\"protocolVersion\":\"2025-11-25\",\"capabilities\":%s,\"serverInfo\":"
                 "{\"name\":\"mem\",\"version\":\"9\"}}", server_caps ? server_caps : "{\"tools\":{}}");
        answer(id, r);
    }
}

/* A client on the scripted transport (its state reset first), connected through handshake. */
static mcp_client *client(const mcp_transport *tp, int server_era, const char *version, int timeout_ms)
{
    mcp_client_desc d;
    mcp_error err;
    mcp_client *c;
    mcp_status st;
    mem_reset();
    logs[0] = errs[0] = close_why[0] = notes[0] = 0; ncloses = 0; close_status = MCP_OK;
    era = server_era;
    mem.respond = handshake;
    memset(&d, 0, sizeof d);
    d.transport = MCP_CUSTOM; d.custom = tp;
    d.protocol_version = version; d.timeout_ms = timeout_ms;
    d.client_name = "t"; d.client_version = "1";
    d.on_log = on_log; d.on_stderr = on_stderr; d.on_close = on_close; d.on_notification = on_note;
    c = mcp_client_new(&d, &err);
    CHECKF(c != NULL, "mcp_client_new: %s", err.message);
    if (!c) return NULL;
    st = mcp_client_connect(c, &err);
    EQST(st, MCP_OK, err);
    mem.respond = NULL;
    return c;
}

/* The call's outcome: its status, with the message in err */
static mcp_status outcome(mcp_call *call, mcp_error *err)
{
    mcp_json_doc *d = NULL;
    mcp_status st;
    mcp_call_wait(call, 3000);
    st = mcp_call_result(call, &d, err);
    mcp_json_free(d);
    return st;
}

/* ---- the connect ---------------------------------------------------------------------------------- */

TEST_CASE(connect)
{
    mcp_client *c;
    /* NULL version, a legacy server answering the probe with -32601 */
    c = client(&mem_transport, ERA_LEGACY, NULL, 0);
    EQI(mem.nsent, 3);
    EQS(mem_msg_at(0), DISCOVER(1));
    EQI(mem_at(0)->id, 1); EQI(mem_at(0)->how, MCP_SEND_REPEATABLE); EQS(mem_at(0)->headers, "");
    EQS(mem_msg_at(1), INITIALIZE(2));
    EQI(mem_at(1)->id, 2); EQI(mem_at(1)->how, MCP_SEND_REPEATABLE);
    EQS(mem_msg_at(2), INITIALIZED);
    EQI(mem_at(2)->id, -1); EQI(mem_at(2)->how, MCP_SEND_NOW);
    EQS(mem.ops, "ready 2025-11-25 0;");                /* answered (an error): nothing to abandon */
    EQS(mcp_client_protocol_version(c), "2025-11-25");
    EQS(mcp_json_str(mcp_json_get(mcp_client_server_info(c), "name")), "mem");
    EQI(mem.reports[0], 1); EQI(mem.reports[1], 1); EQI(mem.nreports, 2);
    mcp_client_free(c);
    EQS(mem.ops, "ready 2025-11-25 0;close 0;free;");
    EQI(ncloses, 1);
    EQS(close_why, "the client closed the connection");

    /* the same over an HTTP transport: the probe carries 2026-07-28's headers, initialize none */
    c = client(&mem_transport_http, ERA_LEGACY, NULL, 0);
    EQS(mem_at(0)->headers, "MCP-Protocol-Version: 2026-07-28\nMcp-Method: server/discover\n");
    EQS(mem_msg_at(1), INITIALIZE(2));
    EQS(mem_at(1)->headers, "");
    EQS(mem_at(2)->headers, "");
    mcp_client_free(c);

    /* a silent server: the probe times out after min(timeout / 2 + 1, 3000) ms, then initialize */
    {
        int64_t t0 = mcp_time_ms(), ms;
        c = client(&mem_transport, ERA_SILENT, NULL, 400);
        ms = mcp_time_ms() - t0;
        CHECKF(ms >= 200 && ms < 2000, "the probe waited %lld ms", (long long)ms);
        EQI(mem.nsent, 3);
        EQS(mem_msg_at(0), DISCOVER(1));
        EQS(mem_msg_at(1), INITIALIZE(2));
        EQS(mem_msg_at(2), INITIALIZED);
        EQS(mem.ops, "abandon 1;ready 2025-11-25 0;");   /* no notifications/cancelled for the probe */
        EQS(mcp_client_protocol_version(c), "2025-11-25");
        mcp_client_free(c);
    }

    /* pinned 2025-11-25: initialize straight away */
    c = client(&mem_transport, ERA_LEGACY, "2025-11-25", 0);
    EQI(mem.nsent, 2);
    EQS(mem_msg_at(0), INITIALIZE(1));
    EQS(mem_msg_at(1), INITIALIZED);
    EQS(mem.ops, "ready 2025-11-25 0;");
    mcp_client_free(c);

    /* a modern server: the DiscoverResult settles it, no handshake */
    c = client(&mem_transport, ERA_MODERN, NULL, 0);
    EQI(mem.nsent, 1);
    EQS(mem.ops, "ready 2026-07-28 1;");
    EQS(mcp_client_protocol_version(c), "2026-07-28");
    EQS(mcp_json_str(mcp_json_get(mcp_client_server_info(c), "version")), "9");
    {
        mcp_error err;
        mcp_call *call = mcp_client_send(c, "tools/list", NULL, NULL, &err);
        CHECK(call != NULL);
        EQS(mem_msg_at(1), "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"tools/list\",\"params\":{" META "}}");
        EQS(mem_at(1)->headers, "");                     /* not an HTTP transport */
        mcp_call_free(call);
    }
    mcp_client_free(c);

    /* modern over HTTP: MCP-Protocol-Version, Mcp-Method, Mcp-Name */
    c = client(&mem_transport_http, ERA_MODERN, NULL, 0);
    {
        mcp_error err;
        mcp_call *call = mcp_client_send_tool(c, "echo", "{\"text\":\"hi\"}", NULL, &err);
        CHECK(call != NULL);
        EQS(mem_msg_at(1), "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"tools/call\",\"params\":{\"name\":\"echo\","
                           "\"arguments\":{\"text\":\"hi\"}," META "}}");
        EQS(mem_at(1)->headers, "MCP-Protocol-Version: 2026-07-28\nMcp-Method: tools/call\nMcp-Name: echo\n");
        EQI(mem_at(1)->how, 0);
        answer(2, "{\"content\":[{\"type\":\"text\",\"text\":\"hi\"}]}");
        EQST(outcome(call, &err), MCP_OK, err);
        mcp_call_free(call);
    }
    mcp_client_free(c);
}


/* ---- era detection: what the client decides from the answers to server/discover ---------------- */

static const char *probe_answers[3];     /* the n-th server/discover's answer ("result":... or
                                            "error":...); NULL: never answered */
static int nprobes;

static void era_server(const mem_sent *s, void *user)
{
    char method[64], m[2048];
    int64_t id = id_of(s->msg, method, sizeof method);
    (void)user;
    if (!strcmp(method, "server/discover")) {
        const char *a = nprobes < 3 ? probe_answers[nprobes] : NULL;
        nprobes++;
        if (!a) return;
        snprintf(m, sizeof m, "{\"jsonrpc\":\"2.0\",\"id\":%lld,%s}", (long long)id, a);
        mem_msg(m);
    } else if (!strcmp(method, "initialize")) {         /* the version asked for, agreed */
        mcp_json_doc *d = mcp_json_parse(s->msg, s->len, NULL);
        const char *v = mcp_json_str(mcp_json_get(mcp_json_get(mcp_json_root(d), "params"), "protocolVersion"));
        snprintf(m, sizeof m, "{\"protocolVersion\":\"%s\",\"capabilities\":{\"tools\":{}},\"serverInfo\":"
                 "{\"name\":\"mem\",\"version\":\"9\"}}", nn(v));
        answer(id, m);
        mcp_json_free(d);
    }
}

/* A client pinned to version (NULL: detect) connected to era_server, which answers the first
   probe with a0 and the second with a1; the connect's status in *st. */
static mcp_client *era_connect(const char *version, int timeout_ms, const char *a0, const char *a1, mcp_status *st,
                               mcp_error *err)
{
    mcp_client_desc d;
    mcp_client *c;
    mem_reset();
    logs[0] = errs[0] = close_why[0] = notes[0] = 0; ncloses = 0; close_status = MCP_OK;
    probe_answers[0] = a0; probe_answers[1] = a1; probe_answers[2] = NULL; nprobes = 0;
    mem.respond = era_server;
    memset(&d, 0, sizeof d);
    d.transport = MCP_CUSTOM; d.custom = &mem_transport;
    d.protocol_version = version; d.timeout_ms = timeout_ms;
    d.client_name = "t"; d.client_version = "1";
    d.on_log = on_log; d.on_stderr = on_stderr; d.on_close = on_close; d.on_notification = on_note;
    c = mcp_client_new(&d, err);
    CHECKF(c != NULL, "mcp_client_new: %s", err->message);
    *st = c ? mcp_client_connect(c, err) : MCP_ERR_INVALID;
    mem.respond = NULL;
    return c;
}

#define ANS_ERR(code, msg) "\"error\":{\"code\":" #code ",\"message\":\"" msg "\"}"
#define ANS_DISCOVER(versions) "\"result\":{\"resultType\":\"complete\",\"supportedVersions\":[" versions "]," \
    "\"capabilities\":{\"tools\":{}},\"_meta\":{\"io.modelcontextprotocol/serverInfo\":{\"name\":\"mem\",\"version\":\"9\"}}}"
#define ANS_32022(versions) "\"error\":{\"code\":-32022,\"message\":\"Unsupported protocol version\",\"data\":" \
    "{\"supported\":[" versions "],\"requested\":\"2026-07-28\"}}"
#define INITIALIZE_V(id, v) "{\"jsonrpc\":\"2.0\",\"id\":" #id ",\"method\":\"initialize\",\"params\":{\"protocolVersion\":" \
                            "\"" v "\",\"capabilities\":{},\"clientInfo\":{\"name\":\"t\",\"version\":\"1\"}}}"

/* The connect failed: st and the sentence, nothing sent after the probes, closed once, and the
   client refuses what follows. */
static void era_refused(mcp_client *c, mcp_status st, const mcp_error *err, mcp_status want, const char *msg,
                        size_t nsent)
{
    mcp_error e2;
    EQST(st, want, *err);
    EQS(err->message, msg);
    EQI(mem.nsent, nsent);
    CHECK(mcp_client_protocol_version(c) == NULL);
    EQI(ncloses, 1);
    EQST(mcp_client_ping(c, &e2), MCP_ERR_CLOSED, e2);
    EQS(e2.message, "Transport closed");
    EQI(mem.nsent, nsent);
    EQI(ncloses, 1);
    EQS(logs, "");
}

TEST_CASE(detect)
{
    static const char *const legacy[] = { ANS_ERR(-32601, "Method not found"), ANS_ERR(-32602, "Invalid params"),
                                          ANS_ERR(-32000, "no"), ANS_ERR(-32603, "Discovery failed"), "\"result\":{}" };
    mcp_client *c;
    mcp_error err;
    mcp_status st;
    size_t i;
    int64_t t0, ms;
    /* a legacy answer to the probe, error or a result that is not a DiscoverResult: at once
       initialize under the next id, then notifications/initialized; legacy requests after */
    for (i = 0; i < sizeof legacy / sizeof legacy[0]; i++) {
        t0 = mcp_time_ms();
        c = era_connect(NULL, 0, legacy[i], NULL, &st, &err);
        ms = mcp_time_ms() - t0;
        CHECKF(st == MCP_OK, "%s: %s", legacy[i], err.message);
        CHECKF(ms < 1000, "%s: connect took %lld ms: one round trip, not the probe's 3000 ms", legacy[i], (long long)ms);
        EQI(mem.nsent, 3);
        EQS(mem_msg_at(0), DISCOVER(1));
        EQS(mem_msg_at(1), INITIALIZE(2));
        EQS(mem_msg_at(2), INITIALIZED);
        EQS(mem.ops, "ready 2025-11-25 0;");
        EQS(mcp_client_protocol_version(c), "2025-11-25");
        EQI(nprobes, 1);
        EQS(logs, "");
        mcp_client_free(c);
    }
    /* a DiscoverResult that also lists a version from the future: ours */
    c = era_connect(NULL, 0, ANS_DISCOVER("\"2099-01-01\",\"2026-07-28\""), NULL, &st, &err);
    EQST(st, MCP_OK, err);
    EQS(mcp_client_protocol_version(c), "2026-07-28");
    EQI(mem.nsent, 1);
    EQS(mem.ops, "ready 2026-07-28 1;");
    mcp_client_free(c);
    /* -32022 naming a legacy version only: initialize with it */
    c = era_connect(NULL, 0, ANS_32022("\"2025-11-25\""), NULL, &st, &err);
    EQST(st, MCP_OK, err);
    EQS(mcp_client_protocol_version(c), "2025-11-25");
    EQI(mem.nsent, 3);
    EQS(mem_msg_at(1), INITIALIZE(2));
    EQS(mem.ops, "ready 2025-11-25 0;");
    mcp_client_free(c);
    /* -32022 naming only versions nobody here speaks: no fallback, the connect fails */
    c = era_connect(NULL, 0, ANS_32022("\"2099-01-01\""), NULL, &st, &err);
    era_refused(c, st, &err, MCP_ERR_PROTOCOL, "The server does not support protocol version 2026-07-28; it supports "
                "2099-01-01 (MCP error -32022).", 1);
    mcp_client_free(c);
    /* -32022 naming the version asked for (a confused server): the probe once more, a new id */
    c = era_connect(NULL, 0, ANS_32022("\"2026-07-28\""), ANS_DISCOVER("\"2026-07-28\""), &st, &err);
    EQST(st, MCP_OK, err);
    EQS(mcp_client_protocol_version(c), "2026-07-28");
    EQI(mem.nsent, 2);
    EQS(mem_msg_at(1), DISCOVER(2));
    EQS(mem.ops, "ready 2026-07-28 1;");
    mcp_client_free(c);
    /* ... twice: no third probe, no initialize */
    c = era_connect(NULL, 0, ANS_32022("\"2026-07-28\""), ANS_32022("\"2026-07-28\""), &st, &err);
    era_refused(c, st, &err, MCP_ERR_PROTOCOL, "The server does not support protocol version 2026-07-28; it supports "
                "2026-07-28 (MCP error -32022).", 2);
    EQI(nprobes, 2);
    mcp_client_free(c);
    /* a DiscoverResult without our version but with legacy ones: initialize */
    c = era_connect(NULL, 0, ANS_DISCOVER("\"2025-11-25\",\"2025-06-18\""), NULL, &st, &err);
    EQST(st, MCP_OK, err);
    EQS(mcp_client_protocol_version(c), "2025-11-25");
    EQI(mem.nsent, 3);
    EQS(mem_msg_at(1), INITIALIZE(2));
    mcp_client_free(c);
    /* ... naming only versions nobody here speaks */
    c = era_connect(NULL, 0, ANS_DISCOVER("\"2099-01-01\",\"2100-01-01\""), NULL, &st, &err);
    era_refused(c, st, &err, MCP_ERR_PROTOCOL, "The server supports protocol versions 2099-01-01, 2100-01-01, and "
                "this client speaks none of them.", 1);
    mcp_client_free(c);
    /* -32021 and -32020 are modern errors: they stand, no initialize */
    c = era_connect(NULL, 0, "\"error\":{\"code\":-32021,\"message\":\"Missing required client capability\",\"data\":"
                    "{\"requiredCapabilities\":{\"elicitation\":{},\"roots\":{}}}}", NULL, &st, &err);
    era_refused(c, st, &err, MCP_ERR_RPC, "MCP error -32021: the server needs client capabilities that were not "
                "declared: elicitation, roots (Missing required client capability)", 1);
    EQI(err.rpc_code, -32021);
    mcp_client_free(c);
    c = era_connect(NULL, 0, ANS_ERR(-32020, "Header mismatch"), NULL, &st, &err);
    era_refused(c, st, &err, MCP_ERR_RPC, "MCP error -32020: the HTTP headers did not match the request body "
                "(Header mismatch)", 1);
    EQI(err.rpc_code, -32020);
    mcp_client_free(c);

    /* pinned to 2026-07-28: a DiscoverResult with it, the probe alone */
    c = era_connect("2026-07-28", 0, ANS_DISCOVER("\"2026-07-28\""), NULL, &st, &err);
    EQST(st, MCP_OK, err);
    EQI(mem.nsent, 1);
    EQS(mem_msg_at(0), DISCOVER(1));
    EQS(mem.ops, "ready 2026-07-28 1;");
    mcp_client_free(c);
    /* ... every legacy answer is a failure, named as such: no fallback */
    c = era_connect("2026-07-28", 0, ANS_ERR(-32601, "Method not found"), NULL, &st, &err);
    era_refused(c, st, &err, MCP_ERR_RPC, "The server does not speak protocol version 2026-07-28: server/discover got "
                "MCP error -32601: Method not found", 1);
    EQI(err.rpc_code, -32601);
    mcp_client_free(c);
    c = era_connect("2026-07-28", 0, "\"result\":{}", NULL, &st, &err);
    era_refused(c, st, &err, MCP_ERR_PROTOCOL, "The server's answer to server/discover is not a DiscoverResult: it "
                "does not speak protocol version 2026-07-28.", 1);
    mcp_client_free(c);
    /* ... silence: the whole timeout, not the probe's 3000 ms */
    t0 = mcp_time_ms();
    c = era_connect("2026-07-28", 300, NULL, NULL, &st, &err);
    ms = mcp_time_ms() - t0;
    era_refused(c, st, &err, MCP_ERR_TIMEOUT, "The server does not speak protocol version 2026-07-28: server/discover "
                "got Request timeout after 300ms", 1);
    CHECKF(ms >= 295 && ms < 2000, "connect took %lld ms", (long long)ms);
    mcp_client_free(c);
    /* ... -32022 naming other versions, and a DiscoverResult naming legacy ones only */
    c = era_connect("2026-07-28", 0, ANS_32022("\"2099-01-01\""), NULL, &st, &err);
    era_refused(c, st, &err, MCP_ERR_PROTOCOL, "The server does not support protocol version 2026-07-28; it supports "
                "2099-01-01 (MCP error -32022).", 1);
    mcp_client_free(c);
    c = era_connect("2026-07-28", 0, ANS_DISCOVER("\"2025-11-25\""), NULL, &st, &err);
    era_refused(c, st, &err, MCP_ERR_PROTOCOL, "The server supports protocol versions 2025-11-25, and this client was "
                "pinned to another.", 1);
    mcp_client_free(c);
    /* pinned to a legacy version: initialize with it at once, no probe */
    c = era_connect("2025-03-26", 0, NULL, NULL, &st, &err);
    EQST(st, MCP_OK, err);
    EQS(mcp_client_protocol_version(c), "2025-03-26");
    EQI(mem.nsent, 2);
    EQS(mem_msg_at(0), INITIALIZE_V(1, "2025-03-26"));
    EQS(mem_msg_at(1), INITIALIZED);
    EQS(mem.ops, "ready 2025-03-26 0;");
    EQI(nprobes, 0);
    mcp_client_free(c);
    c = era_connect("2025-06-18", 0, NULL, NULL, &st, &err);
    EQST(st, MCP_OK, err);
    EQS(mcp_client_protocol_version(c), "2025-06-18");
    EQS(mem_msg_at(0), INITIALIZE_V(1, "2025-06-18"));
    mcp_client_free(c);
}


/* ---- the events ---------------------------------------------------------------------------------- */

static mcp_call *send_ping(mcp_client *c)
{
    mcp_error err;
    mcp_call *call = mcp_client_send(c, "ping", NULL, NULL, &err);
    CHECKF(call != NULL, "ping: %s", err.message);
    return call;
}

TEST_CASE(message)
{
    mcp_client *c = client(&mem_transport, ERA_LEGACY, "2025-11-25", 0);
    mcp_error err;
    mcp_tev ev;
    mcp_client_stats st;
    mcp_call *call = send_ping(c);
    EQI(mcp_call_id(call), 2);
    EQS(mem_msg_at(2), "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"ping\"}");
    EQI(mem_at(2)->how, MCP_SEND_REPEATABLE);
    /* mcp_transport_report's answer: how many requests the message answers (request id, or with
       id -1 any in flight, each counted once) */
    memset(&ev, 0, sizeof ev);
    ev.kind = MCP_TEV_MESSAGE; ev.id = 7;
    ev.text = "{\"jsonrpc\":\"2.0\",\"id\":2,\"result\":{}}"; ev.len = strlen(ev.text);
    EQI(mcp_transport_report(c, &ev), 0);                 /* it answers 2, not 7 */
    ev.id = 2;
    EQI(mcp_transport_report(c, &ev), 1);
    ev.id = -1;
    EQI(mcp_transport_report(c, &ev), 0);                 /* 2 is in flight, but answered already */
    ev.text = "{\"jsonrpc\":\"2.0\",\"id\":99,\"result\":{}}"; ev.len = strlen(ev.text);
    EQI(mcp_transport_report(c, &ev), 0);                 /* no such request */
    ev.text = "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/message\",\"params\":{\"level\":\"info\",\"data\":\"x\"}}";
    ev.len = strlen(ev.text);
    EQI(mcp_transport_report(c, &ev), 0);                 /* not an answer */
    EQI(mcp_call_status(call), MCP_AGAIN);                /* reported, not yet dispatched */
    mcp_client_poll(c, 0);
    EQST(mcp_call_result(call, NULL, &err), MCP_OK, err);
    mcp_call_free(call);
    mcp_client_get_stats(c, &st);
    EQI(st.received, 6);                                  /* initialize's, and the 5 here */
    EQI(st.unknown_ids, 3);                               /* the two repeats of 2, and 99 */
    EQI(st.dropped, 0);
    /* text that is not JSON */
    logs[0] = 0;
    mem_msg("garbage");
    mcp_client_poll(c, 0);
    mcp_client_get_stats(c, &st);
    EQI(st.dropped, 1);
    CHECKF(strstr(logs, "Dropped a line from the server that is not JSON (") == logs && strstr(logs, "): garbage\n"),
           "on_log: %s", logs);
    /* STDERR and LOG */
    mem_event(MCP_TEV_STDERR, -1, MCP_OK, "warming up");
    mem_event(MCP_TEV_LOG, -1, MCP_OK, "a sentence for on_log");
    mem_event(MCP_TEV_LOG, -1, MCP_ERR_LIMIT, "A message over max_message was dropped.");
    logs[0] = 0;
    mcp_client_poll(c, 0);
    EQS(errs, "warming up\n");
    EQS(logs, "a sentence for on_log\nA message over max_message was dropped.\n");
    mcp_client_get_stats(c, &st);
    EQI(st.dropped, 2);                                   /* status < 0: a message lost */
    EQI(st.received, 8);                                  /* "garbage" and the message lost too */
    mcp_client_free(c);

    /* over HTTP the sentence does not quote the text */
    c = client(&mem_transport_http, ERA_LEGACY, "2025-11-25", 0);
    mem_msg("<html>");
    mcp_client_poll(c, 0);
    CHECKF(strstr(logs, "Dropped a message from the server that is not JSON (") == logs && !strstr(logs, "<html>"),
           "on_log: %s", logs);
    mcp_client_free(c);
}

TEST_CASE(failed)
{
    mcp_client *c = client(&mem_transport_http, ERA_LEGACY, "2025-11-25", 0);
    mcp_error err;
    mcp_call *call = send_ping(c);
    mcp_tev *ev;
    mem_ops_clear();
    mem_event(MCP_TEV_FAILED, 2, MCP_ERR_IO, "Could not send the request: Connection reset by peer");
    mem_last_event()->sys_errno = 104;
    EQST(outcome(call, &err), MCP_ERR_IO, err);
    EQS(err.message, "Could not send the request: Connection reset by peer");
    EQI(err.sys_errno, 104); EQI(err.http_status, 0); EQI(err.rpc_code, 0);
    EQS(mem.ops, "abandon 2;");
    mcp_call_free(call);
    /* an HTTP error whose body is a JSON-RPC error */
    call = send_ping(c);
    mem_event(MCP_TEV_FAILED, 3, MCP_ERR_HTTP, "HTTP 400 Bad Request");
    ev = mem_last_event();
    ev->http_status = 400;
    mem_event_body("{\"jsonrpc\":\"2.0\",\"id\":3,\"error\":{\"code\":-32602,\"message\":\"Invalid params: x\"}}");
    EQST(outcome(call, &err), MCP_ERR_HTTP, err);
    EQS(err.message, "HTTP 400: MCP error -32602: Invalid params: x");
    EQI(err.http_status, 400); EQI(err.rpc_code, -32602); EQI(err.sys_errno, 0);
    mcp_call_free(call);
    /* a body that is not JSON: the transport's sentence stands */
    call = send_ping(c);
    mem_event(MCP_TEV_FAILED, 4, MCP_ERR_HTTP, "HTTP 503 Service Unavailable: Down for maintenance");
    mem_last_event()->http_status = 503;
    mem_event_body("<html><title>Down for maintenance</title></html>");
    EQST(outcome(call, &err), MCP_ERR_HTTP, err);
    EQS(err.message, "HTTP 503 Service Unavailable: Down for maintenance");
    EQI(err.http_status, 503); EQI(err.rpc_code, 0);
    mcp_call_free(call);
    /* FAILED for a request no longer in flight: nothing happens */
    mem_event(MCP_TEV_FAILED, 4, MCP_ERR_HTTP, "late");
    EQI(mcp_client_poll(c, 0), MCP_OK);
    EQI(ncloses, 0);
    mcp_client_free(c);
}

TEST_CASE(session_lost)
{
    mcp_client *c = client(&mem_transport_http, ERA_LEGACY, "2025-11-25", 0);
    mcp_error err;
    mcp_client_stats st;
    mcp_call *call = send_ping(c);
    mem_ops_clear();
    mem_event(MCP_TEV_SESSION_LOST, 2, MCP_ERR_HTTP, "HTTP 404 Not Found");
    mcp_client_poll(c, 0);
    EQI(mem.nsent, 4);
    EQS(mem_msg_at(3), INITIALIZE(3));                    /* a new session */
    EQI(mem_at(3)->how, MCP_SEND_REPEATABLE);
    mcp_client_get_stats(c, &st);
    EQI(st.reinits, 1);
    EQS(mem.ops, "");                                     /* the request waits */
    answer(3, "{\"protocolVersion\":\"2025-11-25\",\"capabilities\":{},\"serverInfo\":{\"name\":\"mem\",\"version\":\"9\"}}");
    mcp_client_poll(c, 0);
    EQS(mem_msg_at(4), INITIALIZED);
    EQS(mem.ops, "resume 2;");
    EQI(mcp_call_status(call), MCP_AGAIN);
    answer(2, "{}");
    EQST(outcome(call, &err), MCP_OK, err);
    mcp_call_free(call);

    /* two requests meet the 404 together: one initialize; then it fails */
    {
        mcp_call *a = send_ping(c), *b = send_ping(c);   /* 4 and 5 */
        mem_ops_clear();
        mem_event(MCP_TEV_SESSION_LOST, 4, MCP_ERR_HTTP, "HTTP 404 Not Found");
        mem_event(MCP_TEV_SESSION_LOST, 5, MCP_ERR_HTTP, "HTTP 404 Not Found");
        mcp_client_poll(c, 0);
        EQI(mem.nsent, 8);
        EQS(mem_msg_at(7), INITIALIZE(6));
        mcp_client_get_stats(c, &st);
        EQI(st.reinits, 2);
        answer_err(6, -32603, "no sessions today");
        EQST(outcome(a, &err), MCP_ERR_HTTP, err);
        EQS(err.message, "HTTP 404: the session expired and a new one could not be started");
        EQI(err.http_status, 404);
        EQST(outcome(b, &err), MCP_ERR_HTTP, err);
        EQS(err.message, "HTTP 404: the session expired and a new one could not be started");
        EQS(mem.ops, "abandon 5;abandon 4;");           /* the new initialize (6) was answered */
        EQI(mem.nsent, 8);                                /* no notifications/initialized */
        mcp_call_free(a); mcp_call_free(b);
    }
    mcp_client_free(c);
}

TEST_CASE(broken)
{
    mcp_client *c = client(&mem_transport_http, ERA_LEGACY, "2025-11-25", 0);
    mcp_error err;
    mcp_call *call = send_ping(c);
    int i;
    char want[600];
    mem_ops_clear();
    for (i = 0; i < 5; i++) {                             /* resumable: resumed, 5 times */
        mem_event(MCP_TEV_BROKEN, 2, MCP_ERR_PROTOCOL, "the connection closed");
        mem_last_event()->resumable = 1;
        mcp_client_poll(c, 0);
    }
    EQS(mem.ops, "resume 2;resume 2;resume 2;resume 2;resume 2;");
    EQI(mcp_call_status(call), MCP_AGAIN);
    mem_event(MCP_TEV_BROKEN, 2, MCP_ERR_PROTOCOL, "the connection closed");
    mem_last_event()->resumable = 1;
    EQST(outcome(call, &err), MCP_ERR_PROTOCOL, err);
    EQS(err.message, "No response received for request ID 2: its event stream ended (the connection closed) and 5 "
                     "attempts to resume it failed");
    EQS(mem.ops, "resume 2;resume 2;resume 2;resume 2;resume 2;abandon 2;");
    mcp_call_free(call);
    /* not resumable: fails at once */
    call = send_ping(c);
    mem_ops_clear();
    mem_event(MCP_TEV_BROKEN, 3, MCP_ERR_PROTOCOL, "the stream ended");
    EQST(outcome(call, &err), MCP_ERR_PROTOCOL, err);
    EQS(err.message, "No response received for request ID 3: its event stream ended (the stream ended) without an "
                     "event id to resume it from");
    EQS(mem.ops, "abandon 3;");
    mcp_call_free(call);
    mcp_client_free(c);

    /* 2026-07-28: the request goes again under a new id, once */
    c = client(&mem_transport_http, ERA_MODERN, NULL, 0);
    call = send_ping(c);
    EQS(mem_msg_at(1), "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"ping\",\"params\":{" META "}}");
    mem_ops_clear();
    mem_event(MCP_TEV_BROKEN, 2, MCP_ERR_PROTOCOL, "the stream ended");
    mcp_client_poll(c, 0);
    EQS(mem.ops, "abandon 2;");
    EQI(mem.nsent, 3);
    EQS(mem_msg_at(2), "{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"ping\",\"params\":{" META "}}");
    EQS(mem_at(2)->headers, "MCP-Protocol-Version: 2026-07-28\nMcp-Method: ping\n");
    EQI(mcp_call_id(call), 3);
    mem_event(MCP_TEV_BROKEN, 3, MCP_ERR_PROTOCOL, "the stream ended");
    EQST(outcome(call, &err), MCP_ERR_PROTOCOL, err);
    EQS(err.message, "No response received for request ID 3 (the stream broke twice)");
    EQS(mem.ops, "abandon 2;abandon 3;");
    EQI(mem.nsent, 3);
    mcp_call_free(call);
    mcp_client_free(c);

    /* BROKEN id -1: the connection is gone, the client closes */
    c = client(&mem_transport, ERA_LEGACY, "2025-11-25", 0);
    call = send_ping(c);
    mem_ops_clear();
    mem_event(MCP_TEV_BROKEN, -1, MCP_ERR_IO, "Reading from the server failed: Input/output error");
    EQI(mcp_client_poll(c, 0), MCP_ERR_CLOSED);
    EQI(ncloses, 1);
    EQI(close_status, MCP_ERR_IO);
    EQS(close_why, "Reading from the server failed: Input/output error");
    EQS(mem.ops, "close 0;abandon 2;");
    EQST(mcp_call_result(call, NULL, &err), MCP_ERR_CLOSED, err);
    snprintf(want, sizeof want, "Transport closed (%s)", close_why);
    EQS(err.message, want);
    mcp_call_free(call);
    EQI(mcp_client_send(c, "ping", NULL, NULL, &err) == NULL, 1);
    EQS(err.message, "Transport closed");
    mcp_client_free(c);
    EQI(ncloses, 1);                                      /* once */
    EQS(mem.ops, "close 0;abandon 2;free;");
}

/* CLOSED: the sentence of how the server ended, its detail and stderr quote */
TEST_CASE(closed)
{
    mcp_client *c = client(&mem_transport, ERA_LEGACY, "2025-11-25", 0);
    mcp_error err;
    mcp_call *call = send_ping(c);
    mem.close_text = "the server exited with status 3";
    mem.close_detail = "exited with status 3";
    mem.close_body = "Error: config.json not found";
    mem.close_server_ended = 1;
    mem_event(MCP_TEV_BROKEN, -1, MCP_ERR_CLOSED, "");   /* "": CLOSED says how it ended */
    EQI(mcp_client_poll(c, 0), MCP_ERR_CLOSED);
    EQS(close_why, "the server exited with status 3: Error: config.json not found");
    EQI(close_status, MCP_ERR_CLOSED);
    EQST(mcp_call_result(call, NULL, &err), MCP_ERR_CLOSED, err);
    EQS(err.message, "Transport closed (the server exited with status 3: Error: config.json not found)");
    mcp_call_free(call);
    mcp_client_free(c);
    EQI(ncloses, 1);

    /* the same during initialize */
    {
        mcp_client_desc d;
        mcp_status st;
        mem_reset(); ncloses = 0;
        memset(&d, 0, sizeof d);
        d.transport = MCP_CUSTOM; d.custom = &mem_transport; d.protocol_version = "2025-11-25";
        d.on_close = on_close;
        c = mcp_client_new(&d, &err);
        mem.close_text = "the server exited with status 3";
        mem.close_detail = "exited with status 3";
        mem.close_body = "Error: config.json not found";
        mem.close_server_ended = 1;
        mem_event(MCP_TEV_BROKEN, -1, MCP_ERR_CLOSED, "");
        st = mcp_client_connect(c, &err);
        EQST(st, MCP_ERR_CLOSED, err);
        EQS(err.message, "Server exited with status 3 during initialize: Error: config.json not found");
        EQI(ncloses, 1);
        mcp_client_free(c);
    }
    /* the client's close, in steps */
    c = client(&mem_transport, ERA_LEGACY, "2025-11-25", 0);
    mem.close_steps = 2;
    mem.close_text = "the server exited with status 0";
    mem.close_server_ended = 1;
    EQI(mcp_client_close_begin(c), MCP_AGAIN);
    EQI(mem.close_calls, 1);                              /* begun: its first step only */
    EQI(mcp_client_next_timeout(c), 0);                   /* due: the close goes on */
    EQI(mcp_client_poll(c, 0), MCP_OK);
    EQI(mem.close_calls, 2);
    EQI(mcp_client_poll(c, 0), MCP_ERR_CLOSED);
    EQI(mem.close_calls, 3);
    EQI(ncloses, 1);
    EQS(close_why, "the client closed the connection");
    mcp_client_free(c);
    EQI(mem.close_calls, 3);
    EQI(ncloses, 1);
}

/* ---- timeouts and cancels ---------------------------------------------------------------------- */

#define CANCELLED(id) "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/cancelled\",\"params\":{\"requestId\":" #id "}}"
#define CANCELLED_FOR(id, why) "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/cancelled\",\"params\":{\"requestId\":" \
                               #id ",\"reason\":\"" why "\"}}"
#define LATE_LOG(id) "Ignored a late response to request " #id ", which was cancelled or timed out.\n"

static uint64_t unknown_ids(mcp_client *c)
{
    mcp_client_stats st;
    mcp_client_get_stats(c, &st);
    return st.unknown_ids;
}

TEST_CASE(cancel)
{
    mcp_client *c = client(&mem_transport, ERA_LEGACY, "2025-11-25", 0);
    mcp_error err;
    mcp_call_opts o;
    mcp_call *call;
    mcp_json_doc *doc = NULL;
    uint64_t u0;
    memset(&o, 0, sizeof o);
    o.timeout_ms = 30;
    call = mcp_client_send(c, "ping", NULL, &o, &err);
    mem_ops_clear();
    EQST(outcome(call, &err), MCP_ERR_TIMEOUT, err);
    EQS(err.message, "Request timeout after 30ms");
    EQS(mem.ops, "abandon 2;");
    EQI(mem.nsent, 4);
    EQS(mem_msg_at(3), CANCELLED_FOR(2, "Request timeout after 30ms"));
    EQI(mem_at(3)->id, -1); EQI(mem_at(3)->how, MCP_SEND_NOW);
    mcp_call_free(call);
    /* its late answer is noise, said so and counted */
    logs[0] = 0;
    u0 = unknown_ids(c);
    answer(2, "{}");
    mcp_client_poll(c, 0);
    EQS(logs, LATE_LOG(2));
    EQI(unknown_ids(c) - u0, 1);
    /* a cancel with a reason: at once, no round trip */
    call = mcp_client_send_tool(c, "slow", "{\"ms\":150}", NULL, &err);
    EQS(mem_msg_at(4), "{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"tools/call\",\"params\":{\"name\":\"slow\",\"arguments\":"
                       "{\"ms\":150}}}");
    mem_ops_clear();
    EQI(mcp_call_cancel(call, "user abort"), MCP_OK);
    EQS(mem.ops, "abandon 3;");
    EQI(mem.nsent, 6);
    EQS(mem_msg_at(5), CANCELLED_FOR(3, "user abort"));
    EQI(mem_at(5)->id, -1); EQI(mem_at(5)->how, MCP_SEND_NOW);
    EQI(mcp_call_status(call), MCP_ERR_CANCELLED);
    EQST(mcp_call_result(call, &doc, &err), MCP_ERR_CANCELLED, err);
    CHECK(doc == NULL);
    EQS(err.message, "Request cancelled: user abort");
    /* already over: a second cancel says how it ended and sends nothing; waiting returns at once */
    EQI(mcp_call_cancel(call, "again"), MCP_ERR_CANCELLED);
    EQI(mcp_call_wait(call, 100), MCP_ERR_CANCELLED);
    EQI(mem.nsent, 6);
    EQS(mem.ops, "abandon 3;");
    mcp_call_free(call);
    EQI(mem.nsent, 6);                                     /* freeing it then: nothing more */
    logs[0] = 0;
    u0 = unknown_ids(c);
    answer(3, "{\"content\":[]}");
    mcp_client_poll(c, 0);
    EQS(logs, LATE_LOG(3));
    EQI(unknown_ids(c) - u0, 1);
    /* no reason: none sent; a server that honours it sends no answer, and nothing is logged */
    call = send_ping(c);
    mem_ops_clear();
    EQI(mcp_call_cancel(call, NULL), MCP_OK);
    EQS(mem.ops, "abandon 4;");
    EQS(mem_msg_at(7), CANCELLED(4));
    EQST(mcp_call_result(call, NULL, &err), MCP_ERR_CANCELLED, err);
    EQS(err.message, "Request cancelled");
    mcp_call_free(call);
    /* freeing a call in flight cancels it, without a reason */
    call = send_ping(c);
    mem_ops_clear();
    mcp_call_free(call);
    EQS(mem.ops, "abandon 5;");
    EQI(mem.nsent, 10);
    EQS(mem_msg_at(9), CANCELLED(5));
    logs[0] = 0;
    u0 = unknown_ids(c);
    mcp_client_poll(c, 20);
    EQS(logs, "");
    EQI(unknown_ids(c), u0);
    mcp_client_free(c);

    /* 2026-07-28 over a plain transport: notifications/cancelled goes */
    c = client(&mem_transport, ERA_MODERN, NULL, 0);
    call = send_ping(c);
    mem_ops_clear();
    mcp_call_cancel(call, "stop");
    EQS(mem.ops, "abandon 2;");
    EQI(mem.nsent, 3);
    EQS(mem_msg_at(2), CANCELLED_FOR(2, "stop"));
    EQI(mem_at(2)->how, MCP_SEND_NOW);
    EQST(mcp_call_result(call, NULL, &err), MCP_ERR_CANCELLED, err);
    EQS(err.message, "Request cancelled: stop");
    mcp_call_free(call);
    /* a timeout is a cancellation too, with the timeout's sentence as the reason */
    call = mcp_client_send(c, "ping", NULL, &o, &err);
    mem_ops_clear();
    EQST(outcome(call, &err), MCP_ERR_TIMEOUT, err);
    EQS(err.message, "Request timeout after 30ms");
    EQS(mem.ops, "abandon 3;");
    EQI(mem.nsent, 5);
    EQS(mem_msg_at(4), CANCELLED_FOR(3, "Request timeout after 30ms"));
    mcp_call_free(call);
    /* not honoured: the late answers are counted and logged, once each */
    logs[0] = 0;
    u0 = unknown_ids(c);
    answer(3, "{}");
    answer(2, "{}");
    mcp_client_poll(c, 0);
    EQS(logs, LATE_LOG(3) LATE_LOG(2));
    EQI(unknown_ids(c) - u0, 2);
    mcp_client_free(c);
    /* ... over MCP_TRANSPORT_HTTP: closing the stream (abandon) says it, nothing is sent */
    c = client(&mem_transport_http, ERA_MODERN, NULL, 0);
    call = send_ping(c);
    mem_ops_clear();
    EQI(mcp_call_cancel(call, "user abort"), MCP_OK);
    EQS(mem.ops, "abandon 2;");
    EQI(mem.nsent, 2);
    EQI(mcp_call_status(call), MCP_ERR_CANCELLED);
    EQST(mcp_call_result(call, NULL, &err), MCP_ERR_CANCELLED, err);
    EQS(err.message, "Request cancelled: user abort");
    mcp_call_free(call);
    call = send_ping(c);
    mem_ops_clear();
    mcp_call_cancel(call, NULL);
    EQS(mem.ops, "abandon 3;");
    EQST(mcp_call_result(call, NULL, &err), MCP_ERR_CANCELLED, err);
    EQS(err.message, "Request cancelled");
    mcp_call_free(call);
    call = mcp_client_send(c, "ping", NULL, &o, &err);
    mem_ops_clear();
    EQST(outcome(call, &err), MCP_ERR_TIMEOUT, err);
    EQS(err.message, "Request timeout after 30ms");
    EQS(mem.ops, "abandon 4;");
    EQI(mem.nsent, 4);                                     /* the discover and three pings: no notification */
    EQS(mem_msg_at(3), "{\"jsonrpc\":\"2.0\",\"id\":4,\"method\":\"ping\",\"params\":{" META "}}");
    mcp_call_free(call);
    /* the client goes on */
    call = send_ping(c);
    answer(5, "{}");
    EQST(outcome(call, &err), MCP_OK, err);
    EQI(mem.nsent, 5);
    mcp_call_free(call);
    mcp_client_free(c);
}

/* Cancelled from the call's own on_progress, at the second report */
static int nprogress;
static void cancel_at_2(void *u, mcp_call *call, double progress, double total, const char *message)
{
    (void)u; (void)progress; (void)total; (void)message;
    if (++nprogress == 2) mcp_call_cancel(call, "enough progress");
}

static void progress(int64_t token, int n)
{
    char m[256];
    snprintf(m, sizeof m, "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/progress\",\"params\":{\"progressToken\":%lld,"
             "\"progress\":%d}}", (long long)token, n);
    mem_msg(m);
}

TEST_CASE(cancel_progress)
{
    int e;
    for (e = 0; e < 2; e++) {                          /* legacy stdio-like, then 2026-07-28 over HTTP */
        mcp_client *c = e ? client(&mem_transport_http, ERA_MODERN, NULL, 0)
                          : client(&mem_transport, ERA_LEGACY, "2025-11-25", 0);
        size_t n0 = mem.nsent;
        mcp_error err;
        mcp_call_opts o;
        mcp_call *call;
        memset(&o, 0, sizeof o);
        o.on_progress = cancel_at_2;
        nprogress = 0;
        call = mcp_client_send_tool(c, "slow", "{\"ms\":1000}", &o, &err);
        CHECKF(call != NULL, "send: %s", err.message);
        if (!call) { mcp_client_free(c); continue; }
        if (!e) EQS(mem_msg_at(n0), "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"tools/call\",\"params\":{\"name\":\"slow\","
                                    "\"arguments\":{\"ms\":1000},\"_meta\":{\"progressToken\":2}}}");
        mem_ops_clear();
        progress(2, 1); progress(2, 2); progress(2, 3);  /* the third comes after the cancel: dropped */
        EQI(mcp_call_wait(call, 3000), MCP_ERR_CANCELLED);
        EQI(nprogress, 2);
        EQST(mcp_call_result(call, NULL, &err), MCP_ERR_CANCELLED, err);
        EQS(err.message, "Request cancelled: enough progress");
        EQS(mem.ops, "abandon 2;");
        EQI(mem.nsent, n0 + (e ? 1 : 2));
        if (!e) EQS(mem_msg_at(n0 + 1), CANCELLED_FOR(2, "enough progress"));
        mcp_call_free(call);
        mcp_client_free(c);
    }
}

/* The handshake answered, and ping too */
static void handshake_ping(const mem_sent *s, void *user)
{
    char method[64];
    int64_t id = id_of(s->msg, method, sizeof method);
    if (!strcmp(method, "ping")) answer(id, "{}");
    else handshake(s, user);
}

static mcp_client *unconnected(void)
{
    mcp_client_desc d;
    mcp_error err;
    mcp_client *c;
    mem_reset();
    era = ERA_LEGACY;
    mem.respond = handshake_ping;
    memset(&d, 0, sizeof d);
    d.transport = MCP_CUSTOM; d.custom = &mem_transport;
    d.protocol_version = "2025-11-25";
    d.client_name = "t"; d.client_version = "1";
    c = mcp_client_new(&d, &err);
    CHECKF(c != NULL, "mcp_client_new: %s", err.message);
    return c;
}

TEST_CASE(cancel_connect)
{
    mcp_client *c = unconnected();
    mcp_error err;
    mcp_call *call, *p;
    if (!c) return;
    /* initialize cannot be cancelled: refused, nothing sent, the connect goes on */
    call = mcp_client_connect_begin(c, &err);
    CHECKF(call != NULL, "connect_begin: %s", err.message);
    EQI(mem.nsent, 1);
    EQS(mem_msg_at(0), INITIALIZE(1));
    mem_ops_clear();
    EQI(mcp_call_cancel(call, "no"), MCP_ERR_INVALID);
    EQI(mcp_call_status(call), MCP_AGAIN);
    EQS(mem.ops, "");
    EQI(mem.nsent, 1);
    EQI(mcp_call_wait(call, 3000), MCP_OK);
    EQST(mcp_call_result(call, NULL, &err), MCP_OK, err);
    mcp_call_free(call);
    EQI(mem.nsent, 2);
    EQS(mem_msg_at(1), INITIALIZED);
    EQS(mcp_client_protocol_version(c), "2025-11-25");
    EQST(mcp_client_ping(c, &err), MCP_OK, err);
    EQS(mem_msg_at(2), "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"ping\"}");
    mcp_client_free(c);
    /* other calls while connecting: only ping is allowed, and nothing else is sent */
    c = unconnected();
    if (!c) return;
    call = mcp_client_connect_begin(c, &err);
    CHECK(call != NULL);
    CHECK(mcp_client_send_tool(c, "echo", NULL, NULL, &err) == NULL);
    EQI(err.status, MCP_ERR_INVALID);
    EQI(mem.nsent, 1);
    p = mcp_client_send(c, "ping", NULL, NULL, &err);
    CHECKF(p != NULL, "ping: %s", err.message);
    EQI(mem.nsent, 2);
    EQS(mem_msg_at(1), "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"ping\"}");
    EQI(mcp_call_wait(p, 3000), MCP_OK);
    mcp_call_free(p);
    EQI(mcp_call_wait(call, 3000), MCP_OK);
    mcp_call_free(call);
    EQS(mem_msg_at(2), INITIALIZED);
    EQI(mem.nsent, 3);
    mcp_client_free(c);
    mem_reset();
}

/* ---- input_required (2026-07-28) --------------------------------------------------------------- */

static char asked[512];
static void on_request(void *u, mcp_client *c, mcp_request *req)
{
    char *p = mcp_json_dump(mcp_request_params(req), 0, NULL);
    (void)u; (void)c;
    snprintf(asked, sizeof asked, "%s %s", nn(mcp_request_method(req)), nn(p));
    mcp_free(p);
    mcp_request_reply(req, "{\"action\":\"accept\",\"content\":{\"name\":\"Ada\"}}", NULL);
}

TEST_CASE(mrtr)
{
    mcp_client *c = client(&mem_transport, ERA_MODERN, NULL, 0);
    mcp_error err;
    mcp_json_doc *d = NULL;
    mcp_call *call;
    mcp_client_free(c);
    {   /* a client that answers elicitations */
        mcp_client_desc desc;
        mem_reset(); era = ERA_MODERN; mem.respond = handshake; asked[0] = 0;
        memset(&desc, 0, sizeof desc);
        desc.transport = MCP_CUSTOM; desc.custom = &mem_transport;
        desc.client_name = "t"; desc.client_version = "1";
        desc.on_request = on_request; desc.capabilities = MCP_CAP_ELICITATION;
        c = mcp_client_new(&desc, &err);
        EQST(mcp_client_connect(c, &err), MCP_OK, err);
        mem.respond = NULL;
    }
#define EMETA "\"_meta\":{\"io.modelcontextprotocol/protocolVersion\":\"2026-07-28\"," \
              "\"io.modelcontextprotocol/clientCapabilities\":{\"elicitation\":{\"form\":{}},\"extensions\":{\"io.modelcontextprotocol/tasks\":{}}}," \
              "\"io.modelcontextprotocol/clientInfo\":{\"name\":\"t\",\"version\":\"1\"}}"
    call = mcp_client_send_tool(c, "ask", "{\"q\":1}", NULL, &err);
    EQS(mem_msg_at(1), "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"tools/call\",\"params\":{\"name\":\"ask\","
                       "\"arguments\":{\"q\":1}," EMETA "}}");
    answer(2, "{\"resultType\":\"input_required\",\"inputRequests\":{\"who\":{\"method\":\"elicitation/create\","
              "\"params\":{\"message\":\"Name?\",\"requestedSchema\":{\"type\":\"object\"}}}},"
              "\"requestState\":\"opaque-\\u00e9-1\"}");
    mcp_client_poll(c, 0);
    EQS(asked, "elicitation/create {\"message\":\"Name?\",\"requestedSchema\":{\"type\":\"object\"}}");
    EQI(mem.nsent, 3);
    EQS(mem_msg_at(2), "{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"tools/call\",\"params\":{\"name\":\"ask\","
                       "\"arguments\":{\"q\":1},\"inputResponses\":{\"who\":{\"action\":\"accept\",\"content\":"
                       "{\"name\":\"Ada\"}}},\"requestState\":\"opaque-\xc3\xa9-1\"," EMETA "}}");
    EQI(mem_at(2)->id, 3);
    EQI(mcp_call_id(call), 3);
    answer(3, "{\"content\":[{\"type\":\"text\",\"text\":\"Hello Ada\"}]}");
    mcp_call_wait(call, 3000);
    EQST(mcp_call_result(call, &d, &err), MCP_OK, err);
    EQS(mcp_json_str(mcp_json_get(mcp_json_at(mcp_json_get(mcp_json_root(d), "content"), 0), "text")), "Hello Ada");
    mcp_json_free(d);
    mcp_call_free(call);
    mcp_client_free(c);
}

/* The rest of input_required (MRTR: multi round-trip requests), once, against the in-memory
   transport: what used to be asserted twice, against the stdio test server
   (test_modern_stdio:mrtr) and the HTTP one (test_modern_http:mrtr). Each retry is checked byte
   for byte. What stays there: one round trip per transport, the HTTP headers on a retry, and
   -32021 in an HTTP 400. */

#define ANS_E "{\"action\":\"accept\",\"content\":{\"name\":\"Ada\"}}"
#define ANS_S "{\"role\":\"assistant\",\"content\":{\"type\":\"text\",\"text\":\"Paris\"},\"model\":\"m\"}"
#define ANS_R "{\"roots\":[{\"uri\":\"file:///work\",\"name\":\"work\"}]}"
#define Q_E "{\"method\":\"elicitation/create\",\"params\":{\"message\":\"Name?\",\"requestedSchema\":{\"type\":\"object\"}}}"
#define Q_S "{\"method\":\"sampling/createMessage\",\"params\":{\"messages\":[],\"maxTokens\":5}}"
#define Q_R "{\"method\":\"roots/list\"}"
/* The _meta of a client declaring elicitation, sampling and roots */
#define AMETA_MEMBERS "\"io.modelcontextprotocol/protocolVersion\":\"2026-07-28\"," \
              "\"io.modelcontextprotocol/clientCapabilities\":{\"roots\":{},\"sampling\":{},\"elicitation\":{\"form\":{}},\"extensions\":{\"io.modelcontextprotocol/tasks\":{}}}," \
              "\"io.modelcontextprotocol/clientInfo\":{\"name\":\"t\",\"version\":\"1\"}"
#define AMETA "\"_meta\":{" AMETA_MEMBERS "}"
#define TOOLS_CALL(id, rest) "{\"jsonrpc\":\"2.0\",\"id\":" #id ",\"method\":\"tools/call\",\"params\":{" rest AMETA "}}"

enum { ASK_ANSWER, ASK_HOLD, ASK_REFUSE, ASK_DECLINE, ASK_BADJSON };
static struct asker {
    int mode, refuse_left;
    int n; char method[16][64]; char params[16][256];
    mcp_request *held[16]; int nheld;
    mcp_status reply_st;                 /* what the last mcp_request_reply returned */
} ak;

static const char *ask_answer(const char *method)
{
    if (!strcmp(method, "elicitation/create")) return ak.mode == ASK_DECLINE ? "{\"action\":\"decline\"}" : ANS_E;
    if (!strcmp(method, "sampling/createMessage")) return ANS_S;
    if (!strcmp(method, "roots/list")) return ANS_R;
    return NULL;
}

static void on_ask(void *u, mcp_client *c, mcp_request *req)
{
    const char *m = mcp_request_method(req), *a;
    char *p = mcp_json_dump(mcp_request_params(req), 0, NULL);
    (void)u; (void)c;
    if (ak.n < 16) {
        snprintf(ak.method[ak.n], sizeof ak.method[0], "%s", m);
        snprintf(ak.params[ak.n], sizeof ak.params[0], "%s", p ? p : "(none)");
    }
    mcp_free(p);
    ak.n++;
    if (ak.mode == ASK_HOLD && ak.nheld < 16) { ak.held[ak.nheld++] = req; return; }
    if (ak.mode == ASK_REFUSE && ak.refuse_left > 0) {
        ak.refuse_left--;
        mcp_request_reply_error(req, -1, "the user closed the dialog", NULL);
        return;
    }
    if (ak.mode == ASK_BADJSON) { ak.reply_st = mcp_request_reply(req, "{not json", NULL); return; }
    a = ask_answer(m);
    if (a) mcp_request_reply(req, a, NULL);
    else mcp_request_reply_error(req, -32601, "Method not found", NULL);
}

/* A modern client on the plain in-memory transport; with ask, on_request answers as ak says
   and elicitation, sampling and roots are declared. */
static mcp_client *asking_client(int ask, const char *caps_json)
{
    mcp_client_desc desc;
    mcp_error err;
    mcp_client *c;
    mem_reset(); era = ERA_MODERN; mem.respond = handshake;
    server_caps = "{\"tools\":{},\"resources\":{},\"prompts\":{}}";
    logs[0] = 0;
    memset(&ak, 0, sizeof ak);
    memset(&desc, 0, sizeof desc);
    desc.transport = MCP_CUSTOM; desc.custom = &mem_transport;
    desc.client_name = "t"; desc.client_version = "1";
    desc.on_log = on_log;
    if (ask) { desc.on_request = on_ask; desc.capabilities = MCP_CAP_ELICITATION | MCP_CAP_SAMPLING | MCP_CAP_ROOTS; }
    desc.capabilities_json = caps_json;
    c = mcp_client_new(&desc, &err);
    CHECKF(c != NULL, "mcp_client_new: %s", err.message);
    if (!c) return NULL;
    EQST(mcp_client_connect(c, &err), MCP_OK, err);
    mem.respond = NULL;
    server_caps = NULL;
    return c;
}

/* The params of what on_request was asked with method (dumped), NULL when not asked */
static const char *asked_params(const char *method)
{
    int i;
    for (i = 0; i < ak.n && i < 16; i++)
        if (!strcmp(ak.method[i], method)) return ak.params[i];
    return NULL;
}

/* A member of sent message i's params, dumped: "a/b" for nested ones, "#" for how many members
   the object has; NULL when absent. One at a time (a static buffer). */
static const char *member(size_t i, const char *path)
{
    static char out[2048];
    mcp_json_doc *d = mcp_json_parse(mem_msg_at(i), strlen(mem_msg_at(i)), NULL);
    const mcp_json *v = mcp_json_get(mcp_json_root(d), "params");
    char key[64];
    const char *p = path, *slash;
    char *dump;
    out[0] = 0;
    while (v && *p) {
        slash = strchr(p, '/');
        snprintf(key, sizeof key, "%.*s", (int)(slash ? (size_t)(slash - p) : strlen(p)), p);
        if (!strcmp(key, "#")) { snprintf(out, sizeof out, "%d", (int)mcp_json_len(v)); mcp_json_free(d); return out; }
        v = mcp_json_get(v, key);
        p = slash ? slash + 1 : p + strlen(p);
    }
    if (!v) { mcp_json_free(d); return NULL; }
    dump = mcp_json_dump(v, 0, NULL);
    snprintf(out, sizeof out, "%s", dump ? dump : "");
    mcp_free(dump);
    mcp_json_free(d);
    return out;
}

/* An input_required result for request id: inputRequests (a JSON object) and a requestState
   (NULL: none) */
static void input_required(int64_t id, const char *requests, const char *state)
{
    char r[2048];
    snprintf(r, sizeof r, "{\"resultType\":\"input_required\",\"inputRequests\":%s%s%s%s}", requests,
             state ? ",\"requestState\":\"" : "", state ? state : "", state ? "\"" : "");
    answer(id, r);
}

TEST_CASE(mrtr_rounds)
{
    mcp_client *c = asking_client(1, NULL);
    mcp_error err;
    mcp_json_doc *d = NULL;
    mcp_call *call;
    int i;
    char want[2048], state[32];
    /* three questions at once, no requestState: each to on_request with its params, then one
       retry under a new id with every answer under its key and no requestState */
    call = mcp_client_send_tool(c, "multi", "{\"x\":1}", NULL, &err);
    EQS(mem_msg_at(1), TOOLS_CALL(2, "\"name\":\"multi\",\"arguments\":{\"x\":1},"));
    input_required(2, "{\"who\":" Q_E ",\"capital\":" Q_S ",\"roots\":" Q_R "}", NULL);
    mcp_client_poll(c, 0);
    EQI(ak.n, 3);                                         /* each once, in some order */
    EQS(asked_params("elicitation/create"), "{\"message\":\"Name?\",\"requestedSchema\":{\"type\":\"object\"}}");
    EQS(asked_params("sampling/createMessage"), "{\"messages\":[],\"maxTokens\":5}");
    EQS(asked_params("roots/list"), "null");                /* asked without params */
    EQI(mem.nsent, 3);
    EQI(mem_at(2)->id, 3);
    EQS(member(2, "name"), "\"multi\"");
    EQS(member(2, "arguments"), "{\"x\":1}");
    EQS(member(2, "_meta"), "{" AMETA_MEMBERS "}");
    CHECK(member(2, "requestState") == NULL);
    EQS(member(2, "inputResponses/who"), ANS_E);
    EQS(member(2, "inputResponses/capital"), ANS_S);
    EQS(member(2, "inputResponses/roots"), ANS_R);
    EQS(member(2, "inputResponses/#"), "3");
    EQS(member(2, "#"), "4");                              /* name, arguments, inputResponses, _meta */
    EQI(mcp_call_id(call), 3);
    EQI(mcp_call_status(call), MCP_AGAIN);
    /* several rounds: each retry has a new id and only the latest round's answers and state */
    input_required(3, "{\"step2\":" Q_E "}", "round-2");
    mcp_client_poll(c, 0);
    EQS(mem_msg_at(3), TOOLS_CALL(4, "\"name\":\"multi\",\"arguments\":{\"x\":1},\"inputResponses\":{\"step2\":" ANS_E
                                     "},\"requestState\":\"round-2\","));
    input_required(4, "{\"step3\":" Q_R "}", "round-3");
    mcp_client_poll(c, 0);
    EQS(mem_msg_at(4), TOOLS_CALL(5, "\"name\":\"multi\",\"arguments\":{\"x\":1},\"inputResponses\":{\"step3\":" ANS_R
                                     "},\"requestState\":\"round-3\","));
    EQI(ak.n, 5);
    answer(5, "{\"content\":[{\"type\":\"text\",\"text\":\"done after 3 rounds\"}]}");
    EQST(outcome(call, &err), MCP_OK, err);
    EQI(mem.nsent, 5);
    mcp_call_free(call);

    /* requestState alone (no questions): sent again at once, on_request never called */
    ak.n = 0;
    call = mcp_client_send_tool(c, "stateonly", NULL, NULL, &err);
    EQS(mem_msg_at(5), TOOLS_CALL(6, "\"name\":\"stateonly\","));
    input_required(6, "{}", "only-state");
    mcp_client_poll(c, 0);
    EQS(mem_msg_at(6), TOOLS_CALL(7, "\"name\":\"stateonly\",\"inputResponses\":{},\"requestState\":\"only-state\","));
    EQI(ak.n, 0);
    answer(7, "{\"content\":[]}");
    EQST(outcome(call, &err), MCP_OK, err);
    mcp_call_free(call);

    /* the bound: 8 rounds are answered, a 9th request for input gives the call up */
    ak.n = 0;
    call = mcp_client_send_tool(c, "rounds", NULL, NULL, &err);
    for (i = 0; i < 9; i++) {
        snprintf(state, sizeof state, "s%d", i + 1);
        input_required(8 + i, "{\"q\":" Q_R "}", state);
        mcp_client_poll(c, 0);
    }
    EQST(outcome(call, &err), MCP_ERR_PROTOCOL, err);
    EQS(err.message, "The server asked for more input 8 times in a row; the request was given up.");
    EQI(ak.n, 8);
    EQI(mem.nsent, 7 + 9);                                /* the first request and 8 retries */
    snprintf(want, sizeof want, TOOLS_CALL(16, "\"name\":\"rounds\",\"inputResponses\":{\"q\":" ANS_R
                                               "},\"requestState\":\"s8\","));
    EQS(mem_msg_at(15), want);
    mcp_call_free(call);
    mcp_client_poll(c, 0);
    EQI(mem.nsent, 16);

    /* resources/read and prompts/get may ask too: the retry keeps the uri and the name */
    ak.n = 0;
    call = mcp_client_send(c, "resources/read", "{\"uri\":\"mem://confirm\"}", NULL, &err);
    input_required(17, "{\"confirm\":" Q_E "}", "gate:read");
    mcp_client_poll(c, 0);
    EQS(mem_msg_at(17), "{\"jsonrpc\":\"2.0\",\"id\":18,\"method\":\"resources/read\",\"params\":{\"uri\":\"mem://confirm\","
                        "\"inputResponses\":{\"confirm\":" ANS_E "},\"requestState\":\"gate:read\"," AMETA "}}");
    answer(18, "{\"contents\":[{\"uri\":\"mem://confirm\",\"text\":\"confirmed\"}]}");
    EQST(outcome(call, &err), MCP_OK, err);
    mcp_call_free(call);
    call = mcp_client_send(c, "prompts/get", "{\"name\":\"gated\",\"arguments\":{\"a\":\"b\"}}", NULL, &err);
    input_required(19, "{\"confirm\":" Q_E "}", "gate:prompt");
    mcp_client_poll(c, 0);
    EQS(mem_msg_at(19), "{\"jsonrpc\":\"2.0\",\"id\":20,\"method\":\"prompts/get\",\"params\":{\"name\":\"gated\","
                        "\"arguments\":{\"a\":\"b\"},\"inputResponses\":{\"confirm\":" ANS_E "},"
                        "\"requestState\":\"gate:prompt\"," AMETA "}}");
    answer(20, "{\"messages\":[{\"role\":\"user\",\"content\":{\"type\":\"text\",\"text\":\"Confirmed.\"}}]}");
    EQST(mcp_call_wait(call, 3000), MCP_OK, err);
    EQST(mcp_call_result(call, &d, &err), MCP_OK, err);
    EQS(mcp_json_str(mcp_json_get(mcp_json_get(mcp_json_at(mcp_json_get(mcp_json_root(d), "messages"), 0), "content"),
                                  "text")), "Confirmed.");
    mcp_json_free(d);
    mcp_call_free(call);
    mcp_client_free(c);

    /* a declined elicitation is an answer like any other: it goes back */
    c = asking_client(1, NULL);
    ak.mode = ASK_DECLINE;
    call = mcp_client_send_tool(c, "whoami", NULL, NULL, &err);
    input_required(2, "{\"name\":" Q_E "}", "whoami");
    mcp_client_poll(c, 0);
    EQS(mem_msg_at(2), TOOLS_CALL(3, "\"name\":\"whoami\",\"inputResponses\":{\"name\":{\"action\":\"decline\"}},"
                                     "\"requestState\":\"whoami\","));
    answer(3, "{\"content\":[{\"type\":\"text\",\"text\":\"You declined to give your name.\"}]}");
    EQST(outcome(call, &err), MCP_OK, err);
    mcp_call_free(call);
    mcp_client_free(c);
}

/* On_request refuses, or its reply is not JSON: the call is given up there (the spec asks for
   an answer to every input request before the retry), nothing is sent again. */
TEST_CASE(mrtr_refused)
{
    mcp_client *c = asking_client(1, NULL);
    mcp_error err;
    mcp_call *call;
    size_t n0;
    int i;
    ak.mode = ASK_REFUSE; ak.refuse_left = 1;
    call = mcp_client_send_tool(c, "mrtr", NULL, NULL, &err);
    input_required(2, "{\"elicit\":" Q_E "}", "st");
    EQST(outcome(call, &err), MCP_ERR_CANCELLED, err);
    EQS(err.message, "The request was given up: the server needs an answer to its elicitation/create request, "
                     "and on_request refused it (the user closed the dialog).");
    EQI(ak.n, 1);
    for (i = 0; i < 3; i++) mcp_client_poll(c, 1);
    EQI(mem.nsent, 2);                                    /* the first request only: no retry, no cancel */
    mcp_call_free(call);
    /* refused by the first callback: the other questions are never handed out */
    ak.n = 0; ak.refuse_left = 1;
    call = mcp_client_send_tool(c, "mrtr", NULL, NULL, &err);
    input_required(3, "{\"elicit\":" Q_E ",\"roots\":" Q_R "}", "st");
    EQST(outcome(call, &err), MCP_ERR_CANCELLED, err);
    EQI(ak.n, 1);
    EQI(mem.nsent, 3);
    mcp_call_free(call);
    /* held, then one refused: the others say they are cancelled, and their replies are dropped */
    ak.mode = ASK_HOLD; ak.n = 0; ak.nheld = 0;
    call = mcp_client_send_tool(c, "mrtr", NULL, NULL, &err);
    input_required(4, "{\"elicit\":" Q_E ",\"sample\":" Q_S ",\"roots\":" Q_R "}", "st");
    mcp_client_poll(c, 0);
    EQI(ak.nheld, 3);
    if (ak.nheld == 3) {
        n0 = mem.nsent;
        CHECK(!mcp_request_cancelled(ak.held[1]) && !mcp_request_cancelled(ak.held[2]));
        EQST(mcp_request_reply_error(ak.held[0], -1, "no", &err), MCP_OK, err);
        EQI(mcp_call_status(call), MCP_ERR_CANCELLED);
        CHECK(mcp_request_cancelled(ak.held[1]) && mcp_request_cancelled(ak.held[2]));
        EQST(mcp_request_reply(ak.held[1], ask_answer(mcp_request_method(ak.held[1])), &err), MCP_OK, err);
        EQST(mcp_request_reply_error(ak.held[2], -1, "late", &err), MCP_OK, err);
        for (i = 0; i < 3; i++) mcp_client_poll(c, 1);
        EQI(mem.nsent, n0);
    }
    mcp_call_free(call);
    mcp_client_free(c);

    /* a reply that is not JSON: the caller is told, and the call is given up like a refusal */
    c = asking_client(1, NULL);
    ak.mode = ASK_BADJSON;
    call = mcp_client_send_tool(c, "mrtr", NULL, NULL, &err);
    input_required(2, "{\"roots\":" Q_R "}", "st");
    EQST(outcome(call, &err), MCP_ERR_CANCELLED, err);
    EQI(ak.reply_st, MCP_ERR_INVALID);
    EQS(err.message, "The request was given up: the server needs an answer to its roots/list request, and "
                     "on_request refused it (Internal error: the client produced an invalid result).");
    EQI(mem.nsent, 2);
    mcp_call_free(call);
    mcp_client_free(c);
}

/* Answers given later, from the program's own loop */
TEST_CASE(mrtr_deferred)
{
    mcp_client *c = asking_client(1, NULL);
    mcp_error err;
    mcp_call *call;
    mcp_call_opts o;
    int i;
    int64_t t0;
    ak.mode = ASK_HOLD;
    /* the call's timeout waits while a person answers: 300 ms, answered after 450, in another
       order; the retry goes after the last answer */
    memset(&o, 0, sizeof o);
    o.timeout_ms = 300;
    call = mcp_client_send_tool(c, "mrtr", NULL, &o, &err);
    input_required(2, "{\"elicit\":" Q_E ",\"sample\":" Q_S ",\"roots\":" Q_R "}", "st");
    mcp_client_poll(c, 0);
    EQI(ak.nheld, 3);
    t0 = mcp_time_ms();
    while (mcp_time_ms() - t0 < 450) mcp_client_poll(c, 50);     /* past the call's timeout */
    EQI(mcp_call_status(call), MCP_AGAIN);                        /* a person may be typing */
    EQS(mem.ops, "ready 2026-07-28 1;");                          /* nothing abandoned */
    for (i = ak.nheld - 1; i >= 0; i--) {
        CHECK(!mcp_request_cancelled(ak.held[i]));
        EQST(mcp_request_reply(ak.held[i], ask_answer(mcp_request_method(ak.held[i])), &err), MCP_OK, err);
        mcp_client_poll(c, 0);
        if (i) { EQI(mcp_call_status(call), MCP_AGAIN); EQI(mem.nsent, 2); }
    }
    ak.nheld = 0;
    EQI(mem.nsent, 3);
    EQS(member(2, "inputResponses/elicit"), ANS_E);
    EQS(member(2, "inputResponses/sample"), ANS_S);
    EQS(member(2, "inputResponses/roots"), ANS_R);
    EQS(member(2, "requestState"), "\"st\"");
    answer(3, "{\"content\":[]}");
    EQST(outcome(call, &err), MCP_OK, err);
    mcp_call_free(call);

    /* cancelled while the answers are gathered: the call ends at once; the request that asked
       is answered already, so nothing goes to the server, and the late answer is dropped */
    call = mcp_client_send_tool(c, "mrtr", NULL, NULL, &err);
    input_required(4, "{\"elicit\":" Q_E "}", "st");
    mcp_client_poll(c, 0);
    EQI(ak.nheld, 1);
    mem_ops_clear();
    EQI(mcp_call_cancel(call, "user gave up"), MCP_OK);
    EQST(mcp_call_result(call, NULL, &err), MCP_ERR_CANCELLED, err);
    EQS(err.message, "Request cancelled: user gave up");
    mcp_call_free(call);
    if (ak.nheld == 1) EQST(mcp_request_reply(ak.held[0], ANS_E, &err), MCP_OK, err);   /* too late: dropped */
    ak.nheld = 0;
    mcp_client_poll(c, 0);
    EQI(mem.nsent, 4);                                            /* no notifications/cancelled, no retry */
    EQS(mem.ops, "");

    /* the client freed with a question unanswered: it frees the request; the call fails, closed */
    call = mcp_client_send_tool(c, "mrtr", NULL, NULL, &err);
    input_required(5, "{\"elicit\":" Q_E "}", "st");
    mcp_client_poll(c, 0);
    EQI(ak.nheld, 1);
    mcp_client_free(c);
    EQI(mcp_call_status(call), MCP_ERR_CLOSED);
    mcp_call_free(call);
}

/* Input the client cannot give, and results it does not know */
TEST_CASE(mrtr_cannot)
{
    mcp_client *c = asking_client(1, NULL);
    mcp_error err;
    mcp_call *call;
    char want[256];
    /* a question no client answers: the call fails before on_request sees anything */
    call = mcp_client_send_tool(c, "oddask", NULL, NULL, &err);
    input_required(2, "{\"custom\":{\"method\":\"tasks/get\",\"params\":{}}}", "st");
    EQST(outcome(call, &err), MCP_ERR_PROTOCOL, err);
    EQS(err.message, "The server needs input (tasks/get) that this client cannot give: set on_request and declare "
                     "the capability.");
    EQI(ak.n, 0);
    EQI(mem.nsent, 2);
    mcp_call_free(call);
    /* an unknown resultType; then the client goes on, and a result without one is complete */
    call = mcp_client_send_tool(c, "weird", NULL, NULL, &err);
    answer(3, "{\"resultType\":\"deferred\"}");
    EQST(outcome(call, &err), MCP_ERR_PROTOCOL, err);
    snprintf(want, sizeof want, "The server answered request %lld with resultType \"deferred\", which this client does not know.",
             (long long)mcp_call_id(call));
    EQS(err.message, want);
    EQI(mcp_call_id(call), 3);
    mcp_call_free(call);
    call = mcp_client_send_tool(c, "plain", NULL, NULL, &err);
    answer(4, "{\"content\":[{\"type\":\"text\",\"text\":\"no resultType\"}]}");
    EQST(outcome(call, &err), MCP_OK, err);
    mcp_call_free(call);
    mcp_client_free(c);

    /* capabilities declared (capabilities_json) but no on_request: a clear error, no retry;
       the same for each kind of question */
    c = asking_client(0, "{\"elicitation\":{},\"sampling\":{},\"roots\":{}}");
    call = mcp_client_send_tool(c, "mrtr", NULL, NULL, &err);
    input_required(2, "{\"elicit\":" Q_E ",\"sample\":" Q_S "}", "st");
    EQST(outcome(call, &err), MCP_ERR_PROTOCOL, err);
    EQS(err.message, "The server needs input (elicitation/create) that this client cannot give: set on_request "
                     "and declare the capability.");
    mcp_call_free(call);
    call = mcp_client_send_tool(c, "mrtr", NULL, NULL, &err);
    input_required(3, "{\"sample\":" Q_S "}", NULL);
    EQST(outcome(call, &err), MCP_ERR_PROTOCOL, err);
    EQS(err.message, "The server needs input (sampling/createMessage) that this client cannot give: set "
                     "on_request and declare the capability.");
    mcp_call_free(call);
    EQI(mem.nsent, 3);                                            /* no retries */
    mcp_client_free(c);
}

/* ---- JSON-RPC error objects -> mcp_error ------------------------------------------------------ */

/* Tested once here (it was asserted per transport: test_client:typed, test_modern_stdio:errors);
   the sentences in an HTTP error's body are the FAILED cases above and test_modern_http. */
static const char *error_object;         /* what reply_error answers every request with */
static void reply_error(const mem_sent *s, void *user)
{
    char m[2048];
    (void)user;
    if (s->id < 0) return;
    snprintf(m, sizeof m, "{\"jsonrpc\":\"2.0\",\"id\":%lld,\"error\":%s}", (long long)s->id, error_object);
    mem_msg(m);
}

/* Sends method (blocking, through the typed call when there is one) to a server that answers
   with error_object = obj; the status, with the message in err; the document must stay NULL. */
static mcp_status rpc_error(mcp_client *c, const char *method, const char *arg, const char *obj, mcp_error *err)
{
    mcp_json_doc *d = NULL;
    mcp_status st;
    error_object = obj;
    mem.respond = reply_error;
    if (!strcmp(method, "tools/call")) st = mcp_client_call_tool(c, arg, "{}", &d, err);
    else if (!strcmp(method, "resources/read")) st = mcp_client_read_resource(c, arg, &d, err);
    else if (!strcmp(method, "prompts/get")) st = mcp_client_get_prompt(c, arg, NULL, &d, err);
    else if (!strcmp(method, "logging/setLevel")) st = mcp_client_set_log_level(c, arg, err);
    else st = mcp_client_request(c, method, arg, &d, err);
    mem.respond = NULL;
    CHECKF(d == NULL, "%s: a document came back with the error", method);
    mcp_json_free(d);
    CHECKF(err->http_status == 0, "%s: http_status %d", method, err->http_status);
    return st;
}

#define ERR_OBJ(code, msg) "{\"code\":" #code ",\"message\":\"" msg "\"}"

TEST_CASE(rpc_errors)
{
    mcp_client *c;
    mcp_error err;
    server_caps = "{\"tools\":{},\"resources\":{},\"prompts\":{},\"logging\":{}}";
    c = client(&mem_transport, ERA_LEGACY, "2025-11-25", 0);
    EQST(rpc_error(c, "tools/call", "nosuch", ERR_OBJ(-32602, "Unknown tool: nosuch"), &err), MCP_ERR_RPC, err);
    EQI(err.rpc_code, -32602);
    EQS(err.message, "MCP error -32602: Unknown tool: nosuch");
    EQS(mem_msg_at(2), "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"tools/call\",\"params\":{\"name\":\"nosuch\","
                       "\"arguments\":{}}}");
    /* a message that already says "MCP error -32602:" (the TypeScript SDK's servers): once */
    rpc_error(c, "tools/call", "add", ERR_OBJ(-32602, "MCP error -32602: Invalid arguments for tool add"), &err);
    EQS(err.message, "MCP error -32602: Invalid arguments for tool add");
    rpc_error(c, "tools/call", "add", ERR_OBJ(-32603, "MCP error -32602: not this code"), &err);
    EQS(err.message, "MCP error -32603: MCP error -32602: not this code");   /* another code: kept */
    EQI(err.rpc_code, -32603);
    /* resource not found: the URI up front */
    EQST(rpc_error(c, "resources/read", "file:///missing", ERR_OBJ(-32002, "Resource not found"), &err), MCP_ERR_RPC, err);
    EQI(err.rpc_code, -32002);
    EQS(err.message, "Resource not found: file:///missing (MCP error -32002: Resource not found)");
    EQS(mem_last()->msg, "{\"jsonrpc\":\"2.0\",\"id\":5,\"method\":\"resources/read\",\"params\":{\"uri\":\"file:///missing\"}}");
    EQST(rpc_error(c, "prompts/get", "greet", ERR_OBJ(-32602, "Missing required argument: name"), &err), MCP_ERR_RPC, err);
    EQS(err.message, "MCP error -32602: Missing required argument: name");
    EQST(rpc_error(c, "logging/setLevel", "loud", ERR_OBJ(-32602, "Invalid log level"), &err), MCP_ERR_RPC, err);
    EQS(err.message, "MCP error -32602: Invalid log level");
    EQS(mem_last()->msg, "{\"jsonrpc\":\"2.0\",\"id\":7,\"method\":\"logging/setLevel\",\"params\":{\"level\":\"loud\"}}");
    EQST(rpc_error(c, "custom/thing", "{\"x\":1}", ERR_OBJ(-32601, "Method not found"), &err), MCP_ERR_RPC, err);
    EQI(err.rpc_code, -32601);
    EQS(err.message, "MCP error -32601: Method not found");
    mcp_client_free(c);

    /* 2026-07-28's codes name what they mean (over a plain transport -32020 is only an error) */
    server_caps = "{\"tools\":{},\"resources\":{},\"prompts\":{}}";
    c = client(&mem_transport, ERA_MODERN, NULL, 0);
    EQST(rpc_error(c, "tools/call", "error", ERR_OBJ(-32020, "Mcp-Name does not match params.name"), &err), MCP_ERR_RPC, err);
    EQI(err.rpc_code, -32020);
    EQS(err.message, "MCP error -32020: the HTTP headers did not match the request body (Mcp-Name does not match params.name)");
    EQST(rpc_error(c, "tools/call", "error", "{\"code\":-32021,\"message\":\"Missing capability\",\"data\":"
                   "{\"requiredCapabilities\":{\"sampling\":{},\"roots\":{\"listChanged\":true}}}}", &err), MCP_ERR_RPC, err);
    EQI(err.rpc_code, -32021);
    EQS(err.message, "MCP error -32021: the server needs client capabilities that were not declared: sampling, roots "
                     "(Missing capability)");
    rpc_error(c, "tools/call", "error", ERR_OBJ(-32021, "Missing capability"), &err);
    EQS(err.message, "MCP error -32021: the server needs client capabilities that were not declared: (unnamed) "
                     "(Missing capability)");
    EQST(rpc_error(c, "tools/call", "error", "{\"code\":-32022,\"message\":\"Unsupported protocol version\",\"data\":"
                   "{\"supported\":[\"2099-01-01\",\"2025-11-25\"],\"requested\":\"2026-07-28\"}}", &err), MCP_ERR_RPC, err);
    EQI(err.rpc_code, -32022);
    EQS(err.message, "MCP error -32022: the server does not support protocol version 2026-07-28; it supports "
                     "2099-01-01, 2025-11-25 (Unsupported protocol version)");
    EQS(mcp_client_protocol_version(c), "2026-07-28");   /* mid-session: no fallback */
    rpc_error(c, "tools/call", "error", ERR_OBJ(-32022, "no"), &err);
    EQS(err.message, "MCP error -32022: the server does not support protocol version the one asked for; it supports "
                     "(none) (no)");
    EQST(rpc_error(c, "tools/call", "error", ERR_OBJ(-32000, "boom"), &err), MCP_ERR_RPC, err);
    EQI(err.rpc_code, -32000);
    EQS(err.message, "MCP error -32000: boom");
    /* resource not found is -32602 now, the URI up front; -32002 still understood */
    EQST(rpc_error(c, "resources/read", "file:///nope", ERR_OBJ(-32602, "Resource not found"), &err), MCP_ERR_RPC, err);
    EQI(err.rpc_code, -32602);
    EQS(err.message, "Resource not found: file:///nope (MCP error -32602: Resource not found)");
    rpc_error(c, "resources/read", "mem://gone", ERR_OBJ(-32002, "Resource not found"), &err);
    EQI(err.rpc_code, -32002);
    EQS(err.message, "Resource not found: mem://gone (MCP error -32002: Resource not found)");
    /* a -32602 from another method is not about a resource */
    EQST(rpc_error(c, "prompts/get", "nope", ERR_OBJ(-32602, "Unknown prompt"), &err), MCP_ERR_RPC, err);
    EQS(err.message, "MCP error -32602: Unknown prompt");
    EQI(mem.nsent, 10);                                   /* discover and the 9 requests: no retry, no cancel */
    mcp_client_free(c);
    server_caps = NULL;
}

/* ---- -32020 on tools/call: tools/list again, every page, then the call with its headers ------- */

TEST_CASE(header_mismatch)
{
    mcp_client *c = client(&mem_transport_http, ERA_MODERN, NULL, 0);
    mcp_error err;
    mcp_call *call = mcp_client_send_tool(c, "echo", "{\"text\":\"hi\",\"region\":\"eu-west\",\"n\":5}", NULL, &err);
    EQS(mem_at(1)->headers, "MCP-Protocol-Version: 2026-07-28\nMcp-Method: tools/call\nMcp-Name: echo\n");
    answer_err(2, -32020, "Mcp-Param-Region is missing");
    mcp_client_poll(c, 0);
    EQI(mem.nsent, 3);
    EQS(mem_msg_at(2), "{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"tools/list\",\"params\":{" META "}}");
    EQS(mem_at(2)->headers, "MCP-Protocol-Version: 2026-07-28\nMcp-Method: tools/list\n");
    EQS(logs, "The server reported MCP error -32020 for a tools/call; reading tools/list again for its headers.\n");
    answer(3, "{\"tools\":[{\"name\":\"other\",\"inputSchema\":{\"type\":\"object\"}}],\"nextCursor\":\"page-2\"}");
    mcp_client_poll(c, 0);
    EQI(mem.nsent, 4);
    EQS(mem_msg_at(3), "{\"jsonrpc\":\"2.0\",\"id\":4,\"method\":\"tools/list\",\"params\":{\"cursor\":\"page-2\"," META "}}");
    answer(4, "{\"tools\":[{\"name\":\"echo\",\"inputSchema\":{\"type\":\"object\",\"properties\":{"
              "\"text\":{\"type\":\"string\"},\"region\":{\"type\":\"string\",\"x-mcp-header\":\"Region\"},"
              "\"n\":{\"type\":\"integer\",\"x-mcp-header\":\"N\"}}}}]}");
    mcp_client_poll(c, 0);
    EQI(mem.nsent, 5);
    EQS(mem_msg_at(4), "{\"jsonrpc\":\"2.0\",\"id\":5,\"method\":\"tools/call\",\"params\":{\"name\":\"echo\","
                       "\"arguments\":{\"text\":\"hi\",\"region\":\"eu-west\",\"n\":5}," META "}}");
    EQS(mem_at(4)->headers, "MCP-Protocol-Version: 2026-07-28\nMcp-Method: tools/call\nMcp-Name: echo\n"
                            "Mcp-Param-Region: eu-west\nMcp-Param-N: 5\n");
    answer(5, "{\"content\":[]}");
    EQST(outcome(call, &err), MCP_OK, err);
    mcp_call_free(call);
    /* once only: a second -32020 fails the call */
    call = mcp_client_send_tool(c, "echo", "{\"region\":\"x\"}", NULL, &err);
    EQS(mem_at(5)->headers, "MCP-Protocol-Version: 2026-07-28\nMcp-Method: tools/call\nMcp-Name: echo\n"
                            "Mcp-Param-Region: x\n");
    answer_err(6, -32020, "still wrong");
    mcp_client_poll(c, 0);
    EQI(mem.nsent, 7);                                    /* tools/list again: a new call, a new chance */
    answer(7, "{\"tools\":[]}");
    mcp_client_poll(c, 0);
    EQI(mem.nsent, 8);
    answer_err(8, -32020, "still wrong");
    EQST(outcome(call, &err), MCP_ERR_RPC, err);
    EQS(err.message, "MCP error -32020: the HTTP headers did not match the request body (still wrong)");
    EQI(err.rpc_code, -32020);
    EQI(mem.nsent, 8);
    mcp_call_free(call);
    mcp_client_free(c);

    /* over a plain transport -32020 is only an error */
    c = client(&mem_transport, ERA_MODERN, NULL, 0);
    call = mcp_client_send_tool(c, "echo", "{}", NULL, &err);
    answer_err(2, -32020, "no");
    EQST(outcome(call, &err), MCP_ERR_RPC, err);
    EQI(mem.nsent, 2);
    mcp_call_free(call);
    mcp_client_free(c);
}

/* ---- subscriptions/listen ---------------------------------------------------------------------- */

TEST_CASE(listen)
{
    mcp_client *c = client(&mem_transport_http, ERA_MODERN, NULL, 0);
    mcp_error err;
    char note[300];
    mcp_call *call = mcp_client_listen(c, "{\"toolsListChanged\":true}", NULL, &err);
    CHECKF(call != NULL, "listen: %s", err.message);
    EQS(mem_msg_at(1), "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"subscriptions/listen\",\"params\":{\"notifications\":"
                       "{\"toolsListChanged\":true}," META "}}");
    EQI(mem_at(1)->how, MCP_SEND_STREAM);
    EQS(mem_at(1)->headers, "MCP-Protocol-Version: 2026-07-28\nMcp-Method: subscriptions/listen\n");
    EQI(mcp_client_next_timeout(c), -1);                  /* a stream: no timeout */
    mem_ops_clear();
    mem_event(MCP_TEV_BROKEN, 2, MCP_ERR_PROTOCOL, "the stream ended");
    mcp_client_poll(c, 0);
    EQS(mem.ops, "abandon 2;");
    EQI(mem.nsent, 3);
    EQS(mem_msg_at(2), "{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"subscriptions/listen\",\"params\":{\"notifications\":"
                       "{\"toolsListChanged\":true}," META "}}");
    EQI(mem_at(2)->how, MCP_SEND_STREAM);
    /* acknowledged: listening again, so a later break re-listens too */
    snprintf(note, sizeof note, "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/subscriptions/acknowledged\",\"params\":"
             "{\"_meta\":{\"io.modelcontextprotocol/subscriptionId\":3}}}");
    mem_msg(note);
    mem_event(MCP_TEV_BROKEN, 3, MCP_ERR_PROTOCOL, "the stream ended");
    mcp_client_poll(c, 0);
    EQI(mem.nsent, 4);
    EQI(mem_at(3)->id, 4);
    EQI(mcp_call_status(call), MCP_AGAIN);
    /* not acknowledged this time: the second break ends it */
    mem_event(MCP_TEV_BROKEN, 4, MCP_ERR_PROTOCOL, "the stream ended");
    EQST(outcome(call, &err), MCP_ERR_PROTOCOL, err);
    EQS(err.message, "No response received for request ID 4 (the stream broke twice)");
    EQI(mem.nsent, 4);
    mcp_call_free(call);
    mcp_client_free(c);
}

#define SUB "\"_meta\":{\"io.modelcontextprotocol/subscriptionId\":"
#define LISTEN(id, filter) "{\"jsonrpc\":\"2.0\",\"id\":" #id ",\"method\":\"subscriptions/listen\",\"params\":" \
                           "{\"notifications\":" filter "," META "}}"

/* What a server sends on subscription id: method with params {_meta: {subscriptionId}, more} */
static void sub_note(int64_t id, const char *method, const char *more)
{
    char m[512];
    snprintf(m, sizeof m, "{\"jsonrpc\":\"2.0\",\"method\":\"%s\",\"params\":{" SUB "%lld}%s}}", method,
             (long long)id, more);
    mem_msg(m);
}

TEST_CASE(listen_calls)
{
    int h;
    for (h = 0; h < 2; h++) {                          /* a plain transport, then MCP_TRANSPORT_HTTP */
        const mcp_transport *tp = h ? &mem_transport_http : &mem_transport;
        mcp_client *c = client(tp, ERA_LEGACY, NULL, 0);
        mcp_error err;
        mcp_call *a, *b, *t, *f;
        mcp_call_opts o;
        mcp_json_doc *doc = (mcp_json_doc *)&err;
        char want[1024], *r;
        size_t n0;
        int64_t t0;
        /* the legacy era has none: refused, nothing sent */
        n0 = mem.nsent;
        mem_ops_clear();
        CHECK(mcp_client_listen(c, "{\"toolsListChanged\":true}", NULL, &err) == NULL);
        EQST(err.status, MCP_ERR_INVALID, err);
        EQS(err.message, "subscriptions/listen exists in protocol version 2026-07-28 only; this connection speaks "
                         "2025-11-25: use mcp_client_subscribe (and the GET stream) instead.");
        EQI(mem.nsent, n0);
        EQS(mem.ops, "");
        mcp_client_free(c);

        c = client(tp, ERA_MODERN, NULL, 40);          /* a small default timeout: listen has none */
        a = mcp_client_listen(c, "{\"toolsListChanged\":true,\"resourceSubscriptions\":[\"file:///a\"]}", NULL, &err);
        CHECKF(a != NULL, "listen: %s", err.message);
        EQST(err.status, MCP_OK, err);
        b = mcp_client_listen(c, "{\"resourcesListChanged\":true}", NULL, &err);
        CHECKF(b != NULL, "listen: %s", err.message);
        if (!a || !b) { mcp_call_free(a); mcp_call_free(b); mcp_client_free(c); continue; }
        EQI(mcp_call_id(a), 2); EQI(mcp_call_id(b), 3);
        EQI(mem.nsent, 3);
        EQS(mem_msg_at(1), LISTEN(2, "{\"toolsListChanged\":true,\"resourceSubscriptions\":[\"file:///a\"]}"));
        EQS(mem_msg_at(2), LISTEN(3, "{\"resourcesListChanged\":true}"));
        EQI(mem_at(1)->id, 2); EQI(mem_at(2)->id, 3);
        if (h) EQS(mem_at(2)->headers, "MCP-Protocol-Version: 2026-07-28\nMcp-Method: subscriptions/listen\n");
        /* the acknowledgments and what follows reach on_notification, each with its subscription's id */
        sub_note(2, "notifications/subscriptions/acknowledged", ",\"notifications\":{\"toolsListChanged\":true}");
        sub_note(3, "notifications/subscriptions/acknowledged", ",\"notifications\":{\"resourcesListChanged\":true}");
        sub_note(2, "notifications/tools/list_changed", "");
        sub_note(3, "notifications/resources/list_changed", "");
        sub_note(2, "notifications/resources/updated", ",\"uri\":\"file:///a\"");
        /* no timeout: still open well past the client's 40 ms, nothing sent, nothing abandoned */
        mem_ops_clear();
        t0 = mcp_time_ms();
        while (mcp_time_ms() - t0 < 150) mcp_client_poll(c, 10);
        EQS(notes, "notifications/subscriptions/acknowledged {" SUB "2},\"notifications\":{\"toolsListChanged\":true}}\n"
                   "notifications/subscriptions/acknowledged {" SUB "3},\"notifications\":{\"resourcesListChanged\":true}}\n"
                   "notifications/tools/list_changed {" SUB "2}}\n"
                   "notifications/resources/list_changed {" SUB "3}}\n"
                   "notifications/resources/updated {" SUB "2},\"uri\":\"file:///a\"}\n");
        EQI(mcp_call_status(a), MCP_AGAIN);
        EQI(mcp_call_status(b), MCP_AGAIN);
        EQST(mcp_call_result(a, &doc, &err), MCP_AGAIN, err);
        CHECK(doc == NULL);
        EQI(mem.nsent, 3);
        EQS(mem.ops, "");
        /* ... unless opts sets one: it times out like any call (plain: the server is told) */
        memset(&o, 0, sizeof o);
        o.timeout_ms = 30;
        t = mcp_client_listen(c, "{\"toolsListChanged\":true}", &o, &err);
        CHECKF(t != NULL, "listen: %s", err.message);
        sub_note(4, "notifications/subscriptions/acknowledged", ",\"notifications\":{\"toolsListChanged\":true}");
        notes[0] = 0;
        mem_ops_clear();
        EQST(outcome(t, &err), MCP_ERR_TIMEOUT, err);
        EQS(err.message, "Request timeout after 30ms");
        mcp_call_free(t);
        EQS(notes, "notifications/subscriptions/acknowledged {" SUB "4},\"notifications\":{\"toolsListChanged\":true}}\n");
        EQS(mem.ops, "abandon 4;");
        EQI(mem.nsent, h ? 4 : 5);
        if (!h) EQS(mem_msg_at(4), CANCELLED_FOR(4, "Request timeout after 30ms"));
        /* mcp_call_cancel: MCP_ERR_CANCELLED, its stream abandoned (plain: notifications/cancelled) */
        n0 = mem.nsent;
        mem_ops_clear();
        EQI(mcp_call_cancel(b, "done listening"), MCP_OK);
        EQI(mcp_call_status(b), MCP_ERR_CANCELLED);
        EQST(mcp_call_result(b, NULL, &err), MCP_ERR_CANCELLED, err);
        EQS(err.message, "Request cancelled: done listening");
        mcp_call_free(b);
        EQS(mem.ops, "abandon 3;");
        EQI(mem.nsent, n0 + (h ? 0 : 1));
        if (!h) EQS(mem_msg_at(n0), CANCELLED_FOR(3, "done listening"));
        EQI(unknown_ids(c), 0);
        EQI(mcp_call_status(a), MCP_AGAIN);            /* the other one is untouched */
        /* mcp_call_free on an open one cancels it too, without a reason */
        f = mcp_client_listen(c, "{\"resourcesListChanged\":true}", NULL, &err);
        CHECKF(f != NULL, "listen: %s", err.message);
        EQI(mcp_call_id(f), 5);
        n0 = mem.nsent;
        mem_ops_clear();
        mcp_call_free(f);
        EQS(mem.ops, "abandon 5;");
        EQI(mem.nsent, n0 + (h ? 0 : 1));
        if (!h) EQS(mem_msg_at(n0), CANCELLED(5));
        /* a graceful end from the server: MCP_OK with its result */
        answer(2, "{\"resultType\":\"complete\",\"_meta\":{\"io.modelcontextprotocol/subscriptionId\":2}}");
        doc = NULL;
        mcp_call_wait(a, 3000);
        EQST(mcp_call_result(a, &doc, &err), MCP_OK, err);
        r = mcp_json_dump(mcp_json_root(doc), 0, NULL);
        snprintf(want, sizeof want, "{\"resultType\":\"complete\",\"_meta\":{\"io.modelcontextprotocol/subscriptionId\":2}}");
        EQS(r, want);
        mcp_free(r);
        mcp_json_free(doc);
        mcp_call_free(a);
        EQI(unknown_ids(c), 0);
        EQI(ncloses, 0);
        mcp_client_free(c);
    }
    mem_reset();
}

TEST_CASE(listen_breaks)
{
    mcp_client *c = client(&mem_transport_http, ERA_MODERN, NULL, 0);
    mcp_error err;
    mcp_call *a, *b;
    int64_t id = 2;
    int k;
    a = mcp_client_listen(c, "{\"toolsListChanged\":true}", NULL, &err);
    CHECKF(a != NULL, "listen: %s", err.message);
    if (!a) { mcp_client_free(c); return; }
    sub_note(2, "notifications/subscriptions/acknowledged", ",\"notifications\":{\"toolsListChanged\":true}");
    mcp_client_poll(c, 0);
    /* three breaks, each acknowledged: listened to again each time under a new id, and served */
    for (k = 1; k <= 3; k++) {
        char want[512];
        mem_ops_clear();
        mem_event(MCP_TEV_BROKEN, id, MCP_ERR_PROTOCOL, "the stream ended");
        mcp_client_poll(c, 0);
        snprintf(want, sizeof want, "abandon %lld;", (long long)id);
        EQS(mem.ops, want);                            /* abandoned, never resumed */
        id = 2 + k;
        EQI(mcp_call_id(a), id);
        EQI(mem.nsent, 2 + k);
        snprintf(want, sizeof want, "{\"jsonrpc\":\"2.0\",\"id\":%lld,\"method\":\"subscriptions/listen\",\"params\":"
                 "{\"notifications\":{\"toolsListChanged\":true}," META "}}", (long long)id);
        EQS(mem_msg_at(1 + (size_t)k), want);
        EQI(mem_at(1 + (size_t)k)->how, MCP_SEND_STREAM);
        EQI(mcp_call_status(a), MCP_AGAIN);
        EQST(mcp_call_result(a, NULL, &err), MCP_AGAIN, err);
        notes[0] = 0;
        sub_note(id, "notifications/subscriptions/acknowledged", ",\"notifications\":{\"toolsListChanged\":true}");
        sub_note(id, "notifications/tools/list_changed", "");
        mcp_client_poll(c, 0);
        snprintf(want, sizeof want, "notifications/subscriptions/acknowledged {" SUB "%lld},\"notifications\":"
                 "{\"toolsListChanged\":true}}\nnotifications/tools/list_changed {" SUB "%lld}}\n", (long long)id,
                 (long long)id);
        EQS(notes, want);
    }
    EQI(ncloses, 0);
    /* cancelled after all that: the latest id's stream is abandoned, nothing sent */
    mem_ops_clear();
    EQI(mcp_call_cancel(a, NULL), MCP_OK);
    EQI(mcp_call_status(a), MCP_ERR_CANCELLED);
    mcp_call_free(a);
    EQS(mem.ops, "abandon 5;");
    EQI(mem.nsent, 5);
    /* a re-listen broken before its acknowledgment: two breaks in a row end the call */
    b = mcp_client_listen(c, "{\"resourcesListChanged\":true}", NULL, &err);
    CHECKF(b != NULL, "listen: %s", err.message);
    if (!b) { mcp_client_free(c); return; }
    EQI(mcp_call_id(b), 6);
    sub_note(6, "notifications/subscriptions/acknowledged", ",\"notifications\":{\"resourcesListChanged\":true}");
    mem_event(MCP_TEV_BROKEN, 6, MCP_ERR_PROTOCOL, "the stream ended");
    mcp_client_poll(c, 0);
    EQI(mcp_call_id(b), 7);
    EQI(mem.nsent, 7);
    EQS(mem_msg_at(6), "{\"jsonrpc\":\"2.0\",\"id\":7,\"method\":\"subscriptions/listen\",\"params\":"
                       "{\"notifications\":{\"resourcesListChanged\":true}," META "}}");
    mem_ops_clear();
    mem_event(MCP_TEV_BROKEN, 7, MCP_ERR_PROTOCOL, "the stream ended");
    EQI(mcp_call_wait(b, 3000), MCP_ERR_PROTOCOL);
    EQST(mcp_call_result(b, NULL, &err), MCP_ERR_PROTOCOL, err);
    EQI(err.http_status, 0);
    EQS(err.message, "No response received for request ID 7 (the stream broke twice)");
    mcp_call_free(b);
    mcp_client_poll(c, 20);
    EQI(mem.nsent, 7);                                 /* no third one */
    CHECK(strstr(mem.ops, "resume") == NULL);
    /* that was for one listen only: the next is sent and served */
    a = mcp_client_listen(c, "{\"toolsListChanged\":true}", NULL, &err);
    CHECKF(a != NULL, "listen: %s", err.message);
    EQI(mem.nsent, 8);
    EQI(mem_at(7)->id, 8);
    EQI(mcp_call_status(a), MCP_AGAIN);
    mcp_call_free(a);
    /* the client goes on */
    a = send_ping(c);
    answer(9, "{}");
    EQST(outcome(a, &err), MCP_OK, err);
    mcp_call_free(a);
    EQI(ncloses, 0);
    mcp_client_free(c);
}

/* ---- MCP_CUSTOM itself -------------------------------------------------------------------------- */

static void noop_io(void *t, int w) { (void)t; (void)w; }

TEST_CASE(custom)
{
    mcp_client_desc d;
    mcp_error err;
    mcp_client *c;
    mcp_call *call;
    mcp_pollfd fds[4];
    mcp_client_stats st;
    const char *fb = "x";
    mcp_transport partial = mem_transport;
    int nt;
    memset(&d, 0, sizeof d);
    d.transport = MCP_CUSTOM;
    c = mcp_client_new(&d, &err);
    CHECK(c == NULL);
    EQI(err.status, MCP_ERR_INVALID);
    EQS(err.message, "MCP_CUSTOM needs desc.custom, a transport with open, send, pollfds, due, io, close and free.");
    partial.io = NULL;
    d.custom = &partial;
    CHECK(mcp_client_new(&d, &err) == NULL);
    EQS(err.message, "MCP_CUSTOM needs desc.custom, a transport with open, send, pollfds, due, io, close and free.");
    partial.io = noop_io; partial.abandon = NULL; partial.resume = NULL; partial.ready = NULL; partial.stats = NULL;
    c = mcp_client_new(&d, &err);                         /* the optional ones may be NULL */
    CHECKF(c != NULL, "%s", err.message);
    mcp_client_free(c);

    c = client(&mem_transport, ERA_LEGACY, "2025-11-25", 0);
    EQI(mcp_client_transport(c, &fb), MCP_CUSTOM);
    CHECK(fb == NULL);
    EQI(mcp_client_transport(c, NULL), MCP_CUSTOM);
    EQI(mcp_client_pollfds(c, fds, 4), 0);
    EQI(mcp_client_pollfd_count(c), 0);
    EQI(mcp_client_pid(c), 0);                            /* no pid operation */
    EQI(mcp_client_next_timeout(c), -1);                  /* nothing due */
    mem.add_resent = 7;
    mcp_client_get_stats(c, &st);
    EQI(st.resent, 7);                                    /* the transport's counters added */
    EQI(st.sent, 2);
    {
        mcp_call_opts o;
        memset(&o, 0, sizeof o);
        o.timeout_ms = 5000;
        call = mcp_client_send(c, "ping", NULL, &o, &err);
    }
    nt = mcp_client_next_timeout(c);
    CHECKF(nt > 4000 && nt <= 5000, "next_timeout %d", nt);
    answer(2, "{}");
    EQI(mcp_client_next_timeout(c), 0);                   /* something queued: io now */
    EQI(mcp_client_poll(c, 0), MCP_OK);
    EQI(mcp_call_status(call), MCP_OK);
    EQI(mem.idle_waits, 0);
    mcp_call_free(call);
    EQI(mcp_client_next_timeout(c), -1);
    mcp_client_free(c);
    EQI(mem.freed, 1);
    EQI(mem.opened, 1);
}

/* ---- the less common cases ------------------------------------------------------------------------ */

TEST_CASE(more)
{
    mcp_client *c = client(&mem_transport_http, ERA_LEGACY, "2025-11-25", 0);
    mcp_error err;
    mcp_call *call, *a, *b;
    mcp_client_desc d;
    /* SESSION_LOST for no request (a notification's POST): resumed after the new session */
    mem_ops_clear();
    mem_event(MCP_TEV_SESSION_LOST, -1, MCP_ERR_HTTP, "HTTP 404 Not Found");
    mcp_client_poll(c, 0);
    EQS(mem_msg_at(2), INITIALIZE(2));
    answer(2, "{\"protocolVersion\":\"2025-11-25\",\"capabilities\":{}}");
    mcp_client_poll(c, 0);
    EQS(mem_msg_at(3), INITIALIZED);
    EQS(mem.ops, "resume -1;");
    /* SESSION_LOST and BROKEN for a request no longer in flight: its exchange is dropped */
    mem_ops_clear();
    mem_event(MCP_TEV_SESSION_LOST, 40, MCP_ERR_HTTP, "HTTP 404 Not Found");
    mem_event(MCP_TEV_BROKEN, 41, MCP_ERR_PROTOCOL, "the stream ended");
    mcp_client_poll(c, 0);
    EQS(mem.ops, "abandon 40;abandon 41;");
    EQI(mem.nsent, 4);
    /* a batch: each message on its own */
    a = send_ping(c); b = send_ping(c);                   /* 3 and 4 */
    mem_msg("[{\"jsonrpc\":\"2.0\",\"id\":4,\"result\":{}},{\"jsonrpc\":\"2.0\",\"id\":3,\"result\":{}}]");
    mcp_client_poll(c, 0);
    EQI(mem.reports[mem.nreports - 1], 2);                /* the report counts both answers */
    EQI(mcp_call_status(a), MCP_OK); EQI(mcp_call_status(b), MCP_OK);
    mcp_call_free(a); mcp_call_free(b);
    /* a request from the server: ping is answered, others get -32601 without on_request */
    mem_msg("{\"jsonrpc\":\"2.0\",\"id\":\"s1\",\"method\":\"ping\"}");
    mem_msg("{\"jsonrpc\":\"2.0\",\"id\":7,\"method\":\"roots/list\"}");
    mcp_client_poll(c, 0);
    EQI(mem.nsent, 8);
    EQS(mem_msg_at(6), "{\"jsonrpc\":\"2.0\",\"id\":\"s1\",\"result\":{}}");
    EQI(mem_at(6)->id, -1); EQI(mem_at(6)->how, MCP_SEND_NOW);
    EQS(mem_msg_at(7), "{\"jsonrpc\":\"2.0\",\"id\":7,\"error\":{\"code\":-32601,\"message\":\"Method not found\"}}");
    /* close_now: the close begins without the polite waits */
    mem_ops_clear();
    EQI(mcp_client_close_now(c), MCP_OK);
    EQS(mem.ops, "close 1;");
    mcp_client_free(c);

    /* BROKEN id -1 during the connect: the connect fails with the transport's sentence */
    mem_reset(); ncloses = 0;
    memset(&d, 0, sizeof d);
    d.transport = MCP_CUSTOM; d.custom = &mem_transport_http; d.on_close = on_close;
    c = mcp_client_new(&d, &err);
    mem_event(MCP_TEV_BROKEN, -1, MCP_ERR_IO, "Could not connect to 127.0.0.1:1: Connection refused");
    mem_last_event()->sys_errno = 111;
    EQST(mcp_client_connect(c, &err), MCP_ERR_IO, err);
    EQS(err.message, "Could not connect to 127.0.0.1:1: Connection refused");
    EQI(err.sys_errno, 111);
    EQI(ncloses, 1);
    EQS(close_why, "the connect failed");                 /* the connect's own words (the call has the why) */
    EQS(mem.ops, "abandon 1;close 0;");
    mcp_client_free(c);

    /* -32020 in an HTTP 400's body (FAILED) re-reads tools/list too */
    c = client(&mem_transport_http, ERA_MODERN, NULL, 0);
    call = mcp_client_send_tool(c, "echo", "{}", NULL, &err);
    mem_event(MCP_TEV_FAILED, 2, MCP_ERR_HTTP, "HTTP 400 Bad Request");
    mem_last_event()->http_status = 400;
    mem_event_body("{\"jsonrpc\":\"2.0\",\"id\":2,\"error\":{\"code\":-32020,\"message\":\"header mismatch\"}}");
    mcp_client_poll(c, 0);
    EQI(mem.nsent, 3);
    EQS(mem_msg_at(2), "{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"tools/list\",\"params\":{" META "}}");
    mem_event(MCP_TEV_FAILED, 3, MCP_ERR_IO, "Connection reset");
    EQST(outcome(call, &err), MCP_ERR_IO, err);
    EQS(err.message, "The tools/call got MCP error -32020 (its HTTP headers did not match), and reading tools/list "
                     "again failed: Connection reset");
    mcp_call_free(call);
    mcp_client_free(c);
}

/* ---- notifications, progress and timeouts --------------------------------------------------------- */

/* Every request answered with an empty result (the handshake as handshake does) */
static void answer_all(const mem_sent *s, void *user)
{
    char method[64];
    int64_t id = id_of(s->msg, method, sizeof method);
    if (!strcmp(method, "initialize") || !strcmp(method, "server/discover")) handshake(s, user);
    else if (id >= 0) answer(id, "{}");
}

TEST_CASE(notifications)
{
    mcp_client *c;
    mcp_error err;
    mcp_call *call, *rc[5];
    mcp_json_doc *doc = NULL;
    size_t n0;
    int i, bad = 0;
    server_caps = "{\"tools\":{},\"resources\":{\"subscribe\":true},\"logging\":{}}";
    c = client(&mem_transport, ERA_LEGACY, "2025-11-25", 0);
    server_caps = NULL;
    if (!c) return;
    n0 = mem.nsent;
    /* each to on_notification with its method and params, in order; none answered, none logged */
    mem_msg("{\"jsonrpc\":\"2.0\",\"method\":\"notifications/message\",\"params\":{\"level\":\"warning\",\"logger\":"
            "\"srv\",\"data\":\"log at warning\"}}");
    mem_msg("{\"jsonrpc\":\"2.0\",\"method\":\"notifications/tools/list_changed\"}");
    mem_msg("{\"jsonrpc\":\"2.0\",\"method\":\"notifications/prompts/list_changed\",\"params\":{}}");
    mem_msg("{\"jsonrpc\":\"2.0\",\"method\":\"notifications/resources/updated\",\"params\":{\"uri\":\"mem://counter\"}}");
    mem_msg("{\"jsonrpc\":\"2.0\",\"method\":\"notifications/progress\",\"params\":{\"progressToken\":\"nobody\","
            "\"progress\":1}}");
    mem_msg("{\"jsonrpc\":\"2.0\",\"method\":\"notifications/cancelled\",\"params\":{\"requestId\":424242,"
            "\"reason\":\"no such request\"}}");
    mcp_client_poll(c, 0);
    EQS(notes, "notifications/message {\"level\":\"warning\",\"logger\":\"srv\",\"data\":\"log at warning\"}\n"
               "notifications/tools/list_changed (none)\n"
               "notifications/prompts/list_changed {}\n"
               "notifications/resources/updated {\"uri\":\"mem://counter\"}\n"
               "notifications/progress {\"progressToken\":\"nobody\",\"progress\":1}\n"
               "notifications/cancelled {\"requestId\":424242,\"reason\":\"no such request\"}\n");
    EQI(mem.nsent, n0);
    /* the level and the subscription the server filters by: their requests, byte for byte */
    mem.respond = answer_all;
    EQST(mcp_client_set_log_level(c, "warning", &err), MCP_OK, err);
    EQS(mem_msg_at(n0), "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"logging/setLevel\",\"params\":{\"level\":\"warning\"}}");
    EQST(mcp_client_subscribe(c, "mem://counter", &err), MCP_OK, err);
    EQS(mem_msg_at(n0 + 1), "{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"resources/subscribe\",\"params\":"
                            "{\"uri\":\"mem://counter\"}}");
    mem.respond = NULL;
    /* a batch (2025-03-26): a notification and the answer in one array */
    notes[0] = 0;
    call = mcp_client_send_tool(c, "batch", NULL, NULL, &err);
    CHECKF(call != NULL, "send: %s", err.message);
    mem_msg("[{\"jsonrpc\":\"2.0\",\"method\":\"notifications/message\",\"params\":{\"level\":\"info\",\"data\":"
            "\"in a batch\"}},{\"jsonrpc\":\"2.0\",\"id\":4,\"result\":{\"content\":[{\"type\":\"text\",\"text\":"
            "\"batched\"}]}}]");
    EQI(mcp_call_wait(call, 3000), MCP_OK);
    EQST(mcp_call_result(call, &doc, &err), MCP_OK, err);
    EQS(mcp_json_str(mcp_json_get(mcp_json_at(mcp_json_get(mcp_json_root(doc), "content"), 0), "text")), "batched");
    mcp_json_free(doc); doc = NULL;
    mcp_call_free(call);
    EQS(notes, "notifications/message {\"level\":\"info\",\"data\":\"in a batch\"}\n");
    /* a batch of five responses, newest first: each to its own call */
    for (i = 0; i < 5; i++) rc[i] = send_ping(c);          /* ids 5 to 9 */
    mem_msg("[{\"jsonrpc\":\"2.0\",\"id\":9,\"result\":{\"i\":4}},{\"jsonrpc\":\"2.0\",\"id\":8,\"result\":{\"i\":3}},"
            "{\"jsonrpc\":\"2.0\",\"id\":7,\"result\":{\"i\":2}},{\"jsonrpc\":\"2.0\",\"id\":6,\"result\":{\"i\":1}},"
            "{\"jsonrpc\":\"2.0\",\"id\":5,\"result\":{\"i\":0}}]");
    for (i = 0; i < 5; i++) {
        if (!rc[i]) { bad++; continue; }
        if (mcp_call_wait(rc[i], 3000) != MCP_OK || mcp_call_result(rc[i], &doc, &err) != MCP_OK) bad++;
        else if (mcp_json_num(mcp_json_get(mcp_json_root(doc), "i")) != i) bad++;
        mcp_json_free(doc); doc = NULL;
        mcp_call_free(rc[i]);
    }
    EQI(bad, 0);
    EQI(mem.reports[mem.nreports - 1], 5);
    EQS(logs, "");
    mcp_client_free(c);
}

static struct prog { int n; double prog[32], total[32]; char msg[32][32]; } pg;
static void on_prog(void *u, mcp_call *call, double progress_, double total, const char *message)
{
    (void)u; (void)call;
    if (pg.n < 32) {
        pg.prog[pg.n] = progress_; pg.total[pg.n] = total;
        snprintf(pg.msg[pg.n], sizeof pg.msg[0], "%s", message ? message : "(null)");
    }
    pg.n++;
}

/* A progress report for token: step n of total (< 0: none), "step n" */
static void step(int64_t token, int n, int total)
{
    char m[256], t[32] = "";
    if (total >= 0) snprintf(t, sizeof t, ",\"total\":%d", total);
    snprintf(m, sizeof m, "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/progress\",\"params\":{\"progressToken\":%lld,"
             "\"progress\":%d%s,\"message\":\"step %d\"}}", (long long)token, n, t, n);
    mem_msg(m);
}

static mcp_call *send_opts(mcp_client *c, const char *name, int timeout, int reset, int max_total, int with_progress)
{
    mcp_call_opts o;
    mcp_error err;
    mcp_call *call;
    memset(&o, 0, sizeof o);
    o.timeout_ms = timeout; o.reset_on_progress = reset; o.max_total_ms = max_total;
    if (with_progress) o.on_progress = on_prog;
    call = mcp_client_send_tool(c, name, NULL, &o, &err);
    CHECKF(call != NULL, "send: %s", err.message);
    return call;
}

/* Reports progress on call every every_ms until it ends or n steps are sent; its status */
static mcp_status steps_until_done(mcp_client *c, mcp_call *call, int every_ms, int n, int total)
{
    int i;
    for (i = 1; i <= n && mcp_call_status(call) == MCP_AGAIN; i++) {
        step(mcp_call_id(call), i, total);
        mcp_client_poll(c, 0);
        mcp_call_wait(call, every_ms);
    }
    return mcp_call_status(call);
}

TEST_CASE(timeouts)
{
    mcp_client *c = client(&mem_transport, ERA_LEGACY, "2025-11-25", 200);
    mcp_error err;
    mcp_call *call;
    mcp_json_doc *doc = NULL;
    int64_t t0, el;
    size_t n0;
    int i, mono;
    if (!c) return;
    /* the client's default, and notifications/cancelled with the timeout's sentence */
    call = send_opts(c, "never", 0, 0, 0, 0);
    t0 = mcp_time_ms();
    EQI(mcp_call_wait(call, -1), MCP_ERR_TIMEOUT);
    el = mcp_time_ms() - t0;
    CHECKF(el >= 190 && el < 1000, "timed out after %lld ms", (long long)el);
    EQST(mcp_call_result(call, &doc, &err), MCP_ERR_TIMEOUT, err);
    EQS(err.message, "Request timeout after 200ms");
    CHECK(doc == NULL);
    mcp_call_free(call);
    EQS(mem_msg_at(2), "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"tools/call\",\"params\":{\"name\":\"never\"}}");
    EQS(mem_msg_at(3), CANCELLED_FOR(2, "Request timeout after 200ms"));
    /* a generic request and a blocking typed call time out the same way */
    EQST(mcp_client_request(c, "test/never", NULL, &doc, &err), MCP_ERR_TIMEOUT, err);
    EQS(err.message, "Request timeout after 200ms");
    EQS(mem_msg_at(4), "{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"test/never\"}");
    EQS(mem_msg_at(5), CANCELLED_FOR(3, "Request timeout after 200ms"));
    EQST(mcp_client_call_tool(c, "never", NULL, &doc, &err), MCP_ERR_TIMEOUT, err);
    EQS(err.message, "Request timeout after 200ms");
    EQS(mem_msg_at(7), CANCELLED_FOR(4, "Request timeout after 200ms"));
    /* per call: shorter, and none at all */
    call = send_opts(c, "never", 80, 0, 0, 0);
    t0 = mcp_time_ms();
    mcp_call_wait(call, -1);
    el = mcp_time_ms() - t0;
    EQST(mcp_call_result(call, NULL, &err), MCP_ERR_TIMEOUT, err);
    EQS(err.message, "Request timeout after 80ms");
    CHECKF(el >= 75 && el < 1000, "per-call timeout after %lld ms", (long long)el);
    mcp_call_free(call);
    call = send_opts(c, "slow", -1, 0, 0, 0);            /* id 6 */
    EQI(mcp_call_wait(call, 300), MCP_AGAIN);            /* past the default: still waiting */
    answer(6, "{\"content\":[]}");
    EQI(mcp_call_wait(call, 3000), MCP_OK);
    mcp_call_free(call);
    /* progress resets the clock: 11 reports 50 ms apart with a 150 ms timeout */
    memset(&pg, 0, sizeof pg);
    call = send_opts(c, "slow", 150, 1, 0, 1);           /* id 7 */
    t0 = mcp_time_ms();
    EQI(steps_until_done(c, call, 50, 11, 12), MCP_AGAIN);
    el = mcp_time_ms() - t0;
    CHECKF(el >= 540, "the reports took %lld ms", (long long)el);
    answer(7, "{\"content\":[{\"type\":\"text\",\"text\":\"slept 600 ms\"}]}");
    EQI(mcp_call_wait(call, 3000), MCP_OK);
    mcp_call_free(call);
    EQI(pg.n, 11);
    for (i = 0, mono = 1; i < pg.n && i < 32; i++) {
        char m[32];
        snprintf(m, sizeof m, "step %d", i + 1);
        if (pg.prog[i] != i + 1 || pg.total[i] != 12 || strcmp(pg.msg[i], m)) mono = 0;
    }
    CHECK(mono);
    /* the same without reset: times out; the reports before still reach the callback */
    memset(&pg, 0, sizeof pg);
    call = send_opts(c, "slow", 150, 0, 0, 1);
    EQI(steps_until_done(c, call, 60, 11, 12), MCP_ERR_TIMEOUT);     /* reports at 0, 60, 120 ms */
    EQST(mcp_call_result(call, NULL, &err), MCP_ERR_TIMEOUT, err);
    EQS(err.message, "Request timeout after 150ms");
    CHECKF(pg.n >= 1 && pg.n <= 3, "%d progress callbacks", pg.n);
    mcp_call_free(call);
    /* the maximum total cuts a call that keeps making progress */
    call = send_opts(c, "slow", 150, 1, 350, 1);
    t0 = mcp_time_ms();
    EQI(steps_until_done(c, call, 40, 50, 50), MCP_ERR_TIMEOUT);
    el = mcp_time_ms() - t0;
    CHECKF(el >= 340 && el < 1500, "max total after %lld ms", (long long)el);
    EQST(mcp_call_result(call, NULL, &err), MCP_ERR_TIMEOUT, err);
    EQS(err.message, "Request timeout after 350ms (the maximum total time)");
    mcp_call_free(call);
    /* the default maximum: 10 x the timeout */
    call = send_opts(c, "slow", 40, 1, 0, 1);
    t0 = mcp_time_ms();
    EQI(steps_until_done(c, call, 20, 200, 200), MCP_ERR_TIMEOUT);
    el = mcp_time_ms() - t0;
    EQST(mcp_call_result(call, NULL, &err), MCP_ERR_TIMEOUT, err);
    EQS(err.message, "Request timeout after 400ms (the maximum total time)");
    CHECKF(el >= 390 && el < 2000, "default max total after %lld ms", (long long)el);
    mcp_call_free(call);
    /* no total: the callback gets total < 0 */
    memset(&pg, 0, sizeof pg);
    call = send_opts(c, "slow", 0, 0, 0, 1);
    for (i = 1; i <= 3; i++) step(mcp_call_id(call), i, -1);
    answer(mcp_call_id(call), "{\"content\":[]}");
    EQI(mcp_call_wait(call, 3000), MCP_OK);
    CHECK(pg.n == 3 && pg.total[0] < 0 && pg.prog[2] == 3);
    EQS(pg.msg[0], "step 1");
    mcp_call_free(call);
    /* the progressToken in _meta is the call's id, the caller's other _meta members kept; none
       without an on_progress */
    {
        mcp_call_opts o;
        memset(&o, 0, sizeof o);
        o.on_progress = on_prog;
        n0 = mem.nsent;
        call = mcp_client_send(c, "tools/call", "{\"name\":\"meta\",\"_meta\":{\"progressToken\":\"mine\",\"k\":1}}", &o, &err);
        CHECKF(call != NULL, "send: %s", err.message);
        EQS(mem_msg_at(n0), "{\"jsonrpc\":\"2.0\",\"id\":12,\"method\":\"tools/call\",\"params\":{\"name\":\"meta\","
                            "\"_meta\":{\"progressToken\":12,\"k\":1}}}");
        mcp_call_free(call);
        n0 = mem.nsent;
        call = mcp_client_send(c, "tools/call", "{\"name\":\"meta\"}", NULL, &err);
        EQS(mem_msg_at(n0), "{\"jsonrpc\":\"2.0\",\"id\":13,\"method\":\"tools/call\",\"params\":{\"name\":\"meta\"}}");
        mcp_call_free(call);
    }
    mcp_client_free(c);

    /* initialize times out too; it is never "cancelled" to the server */
    {
        mcp_client_desc d;
        memset(&d, 0, sizeof d);
        mem_reset(); ncloses = 0;
        d.transport = MCP_CUSTOM; d.custom = &mem_transport;
        d.protocol_version = "2025-11-25"; d.timeout_ms = 150; d.on_close = on_close;
        d.client_name = "t"; d.client_version = "1";
        c = mcp_client_new(&d, &err);
        CHECKF(c != NULL, "mcp_client_new: %s", err.message);
        if (!c) return;
        t0 = mcp_time_ms();
        EQST(mcp_client_connect(c, &err), MCP_ERR_TIMEOUT, err);
        el = mcp_time_ms() - t0;
        EQS(err.message, "Request timeout after 150ms");
        CHECKF(el >= 145 && el < 1000, "initialize timed out after %lld ms", (long long)el);
        EQI(ncloses, 1);
        EQI(mem.nsent, 1);
        EQS(mem_msg_at(0), INITIALIZE(1));
        EQST(mcp_client_ping(c, &err), MCP_ERR_CLOSED, err);
        EQI(mem.nsent, 1);
        mcp_client_free(c);
    }
    /* a slow initialize within the timeout */
    {
        mcp_client_desc d;
        mcp_call *init;
        memset(&d, 0, sizeof d);
        mem_reset();
        d.transport = MCP_CUSTOM; d.custom = &mem_transport;
        d.protocol_version = "2025-11-25"; d.timeout_ms = 1000;
        d.client_name = "t"; d.client_version = "1";
        c = mcp_client_new(&d, &err);
        if (!c) return;
        init = mcp_client_connect_begin(c, &err);
        CHECKF(init != NULL, "connect_begin: %s", err.message);
        EQI(mcp_call_wait(init, 150), MCP_AGAIN);
        answer(1, "{\"protocolVersion\":\"2025-11-25\",\"capabilities\":{}}");
        EQI(mcp_call_wait(init, 3000), MCP_OK);
        mcp_call_free(init);
        EQS(mem_msg_at(1), INITIALIZED);
        mem.respond = answer_all;
        EQST(mcp_client_ping(c, &err), MCP_OK, err);
        mcp_client_free(c);
    }
}

/* ---- requests from the server (sampling, elicitation, roots) --------------------------------------- */

#define INIT_CAPS(id, caps) "{\"jsonrpc\":\"2.0\",\"id\":" #id ",\"method\":\"initialize\",\"params\":{\"protocolVersion\":" \
                            "\"2025-11-25\",\"capabilities\":" caps ",\"clientInfo\":{\"name\":\"t\",\"version\":\"1\"}}}"
#define REPLY(id, result) "{\"jsonrpc\":\"2.0\",\"id\":" id ",\"result\":" result "}"
#define REPLY_ERR(id, code, msg) "{\"jsonrpc\":\"2.0\",\"id\":" id ",\"error\":{\"code\":" #code ",\"message\":\"" msg "\"}}"

/* on_request as a program would: roots/list at once, sampling and elicitation held for later,
   anything else -32601 */
static struct served { int n; char method[16][64]; mcp_request *held[8]; int nheld; } sv;
static void on_serve(void *u, mcp_client *c, mcp_request *req)
{
    const char *m = mcp_request_method(req);
    (void)u; (void)c;
    if (sv.n < 16) snprintf(sv.method[sv.n], sizeof sv.method[0], "%s", m);
    sv.n++;
    if (!strcmp(m, "roots/list")) mcp_request_reply(req, ANS_R, NULL);
    else if ((!strcmp(m, "sampling/createMessage") || !strcmp(m, "elicitation/create")) && sv.nheld < 8)
        sv.held[sv.nheld++] = req;
    else mcp_request_reply_error(req, -32601, "Method not found", NULL);
}

/* A 2025-11-25 client declaring caps (and caps_json), with on_serve when serve */
static mcp_client *serving(const mcp_transport *tp, unsigned caps, const char *caps_json, int serve)
{
    mcp_client_desc d;
    mcp_error err;
    mcp_client *c;
    mem_reset(); era = ERA_LEGACY; mem.respond = handshake;
    notes[0] = logs[0] = 0; ncloses = 0;
    memset(&sv, 0, sizeof sv);
    memset(&d, 0, sizeof d);
    d.transport = MCP_CUSTOM; d.custom = tp;
    d.protocol_version = "2025-11-25";
    d.client_name = "t"; d.client_version = "1";
    d.on_log = on_log; d.on_close = on_close; d.on_notification = on_note;
    if (serve) d.on_request = on_serve;
    d.capabilities = caps; d.capabilities_json = caps_json;
    c = mcp_client_new(&d, &err);
    CHECKF(c != NULL, "mcp_client_new: %s", err.message);
    if (!c) return NULL;
    EQST(mcp_client_connect(c, &err), MCP_OK, err);
    mem.respond = NULL;
    return c;
}

TEST_CASE(server_requests)
{
    mcp_client *c;
    mcp_error err;
    mcp_call *call;
    size_t n0;
    int t;
    for (t = 0; t < 2; t++) {                            /* a plain transport, then an HTTP one */
        c = serving(t ? &mem_transport_http : &mem_transport,
                    MCP_CAP_ROOTS | MCP_CAP_ROOTS_LIST_CHANGED | MCP_CAP_SAMPLING | MCP_CAP_ELICITATION, NULL, 1);
        if (!c) continue;
        EQS(mem_msg_at(0), INIT_CAPS(1, "{\"roots\":{\"listChanged\":true},\"sampling\":{},\"elicitation\":{\"form\":{}}}"));
        n0 = mem.nsent;
        /* answered at once, for a string and an integer id: each reply sent now, no headers */
        mem_msg("{\"jsonrpc\":\"2.0\",\"id\":\"s1\",\"method\":\"roots/list\"}");
        mem_msg("{\"jsonrpc\":\"2.0\",\"id\":7,\"method\":\"roots/list\",\"params\":{}}");
        mcp_client_poll(c, 0);
        EQI(mem.nsent, n0 + 2);
        EQS(mem_msg_at(n0), REPLY("\"s1\"", ANS_R));
        EQI(mem_at(n0)->id, -1); EQI(mem_at(n0)->how, MCP_SEND_NOW); EQS(mem_at(n0)->headers, "");
        EQS(mem_msg_at(n0 + 1), REPLY("7", ANS_R));
        EQI(sv.n, 2);
        EQS(sv.method[0], "roots/list");
        /* ping is answered by the library, and a method it does not know: on_request sees neither */
        mem_msg("{\"jsonrpc\":\"2.0\",\"id\":\"s2\",\"method\":\"ping\"}");
        mem_msg("{\"jsonrpc\":\"2.0\",\"id\":\"s3\",\"method\":\"x/unknown\",\"params\":{\"a\":1}}");
        mcp_client_poll(c, 0);
        EQS(mem_msg_at(n0 + 2), REPLY("\"s2\"", "{}"));
        EQS(mem_msg_at(n0 + 3), REPLY_ERR("\"s3\"", -32601, "Method not found"));
        EQI(sv.n, 2);                                    /* an unknown method is the library's -32601 too */
        /* deferred: kept by on_request, answered later from the program's loop; a call of ours
           meanwhile stays in flight */
        call = send_ping(c);                             /* id 2 */
        n0 = mem.nsent;
        mem_msg("{\"jsonrpc\":\"2.0\",\"id\":\"s4\",\"method\":\"sampling/createMessage\",\"params\":{\"messages\":"
                "[{\"role\":\"user\",\"content\":{\"type\":\"text\",\"text\":\"hi\"}}],\"maxTokens\":5}}");
        mcp_client_poll(c, 0);
        EQI(sv.nheld, 1);
        if (sv.nheld == 1) {
            const mcp_json *p = mcp_request_params(sv.held[0]);
            EQS(mcp_request_method(sv.held[0]), "sampling/createMessage");
            CHECK(mcp_json_num(mcp_json_get(p, "maxTokens")) == 5);
            CHECK(!mcp_request_cancelled(sv.held[0]));
            mcp_client_poll(c, 30);
            EQI(mem.nsent, n0);                          /* nothing until the program answers */
            EQI(mcp_call_status(call), MCP_AGAIN);
            EQST(mcp_request_reply(sv.held[0], "{\"role\":\"assistant\",\"content\":{\"type\":\"text\",\"text\":"
                                   "\"sampled\"},\"model\":\"test-model\",\"stopReason\":\"endTurn\"}", &err), MCP_OK, err);
            EQS(mem_msg_at(n0), REPLY("\"s4\"", "{\"role\":\"assistant\",\"content\":{\"type\":\"text\",\"text\":"
                                      "\"sampled\"},\"model\":\"test-model\",\"stopReason\":\"endTurn\"}"));
            EQI(mem_at(n0)->how, MCP_SEND_NOW);
        }
        answer(2, "{}");
        EQI(mcp_call_wait(call, 3000), MCP_OK);
        mcp_call_free(call);
        /* a deferred error for an elicitation with an integer id; an accept; an invalid result */
        sv.nheld = 0; n0 = mem.nsent;
        mem_msg("{\"jsonrpc\":\"2.0\",\"id\":5,\"method\":\"elicitation/create\",\"params\":{\"message\":\"Name?\","
                "\"requestedSchema\":{\"type\":\"object\"}}}");
        mem_msg("{\"jsonrpc\":\"2.0\",\"id\":\"s6\",\"method\":\"elicitation/create\",\"params\":{\"message\":\"ok?\"}}");
        mem_msg("{\"jsonrpc\":\"2.0\",\"id\":\"s7\",\"method\":\"sampling/createMessage\",\"params\":{}}");
        mcp_client_poll(c, 0);
        EQI(sv.nheld, 3);
        if (sv.nheld == 3) {
            EQS(mcp_request_method(sv.held[0]), "elicitation/create");
            EQS(mcp_json_str(mcp_json_get(mcp_request_params(sv.held[0]), "message")), "Name?");
            EQST(mcp_request_reply_error(sv.held[0], -32000, "user went away", &err), MCP_OK, err);
            EQS(mem_msg_at(n0), REPLY_ERR("5", -32000, "user went away"));
            EQST(mcp_request_reply(sv.held[1], ANS_E, &err), MCP_OK, err);
            EQS(mem_msg_at(n0 + 1), REPLY("\"s6\"", ANS_E));
            EQST(mcp_request_reply(sv.held[2], "{oops", &err), MCP_ERR_INVALID, err);
            CHECKF(!strncmp(err.message, "The result is not valid JSON: ", 30), "%s", err.message);
            EQS(mem_msg_at(n0 + 2), REPLY_ERR("\"s7\"", -32603, "Internal error: the client produced an invalid result"));
            EQI(mem.nsent, n0 + 3);
        }
        /* the server cancels its request: marked, and the reply is not sent */
        sv.nheld = 0; n0 = mem.nsent; notes[0] = 0;
        mem_msg("{\"jsonrpc\":\"2.0\",\"id\":\"s9\",\"method\":\"sampling/createMessage\",\"params\":{}}");
        mem_msg("{\"jsonrpc\":\"2.0\",\"method\":\"notifications/cancelled\",\"params\":{\"requestId\":\"s9\","
                "\"reason\":\"the server gave up\"}}");
        mcp_client_poll(c, 0);
        EQS(notes, "notifications/cancelled {\"requestId\":\"s9\",\"reason\":\"the server gave up\"}\n");
        EQI(sv.nheld, 1);
        if (sv.nheld == 1) {
            EQI(mcp_request_cancelled(sv.held[0]), 1);
            EQST(mcp_request_reply(sv.held[0], "{\"role\":\"assistant\",\"content\":{\"type\":\"text\",\"text\":\"late\"},"
                                   "\"model\":\"m\"}", &err), MCP_OK, err);
        }
        EQI(mem.nsent, n0);                              /* nothing reached the server */
        EQS(logs, "");
        mcp_client_free(c);
        EQI(ncloses, 1);
    }

    /* a request held when the client closes: the call in flight and the reply report it closed */
    c = serving(&mem_transport, MCP_CAP_SAMPLING, NULL, 1);
    if (!c) return;
    EQS(mem_msg_at(0), INIT_CAPS(1, "{\"sampling\":{}}"));
    call = mcp_client_send_tool(c, "ask", NULL, NULL, &err);
    CHECKF(call != NULL, "send: %s", err.message);
    mem_msg("{\"jsonrpc\":\"2.0\",\"id\":\"s1\",\"method\":\"sampling/createMessage\",\"params\":{}}");
    mcp_client_poll(c, 0);
    EQI(sv.nheld, 1);
    n0 = mem.nsent;
    mcp_client_close(c);
    EQST(mcp_call_status(call), MCP_ERR_CLOSED, err);
    if (sv.nheld == 1) {
        EQST(mcp_request_reply(sv.held[0], "{}", &err), MCP_ERR_CLOSED, err);
        EQS(err.message, "Transport closed");
    }
    EQI(mem.nsent, n0);
    mcp_call_free(call);
    mcp_client_free(c);

    /* no on_request: every request but ping gets -32601, and no capability is declared */
    c = serving(&mem_transport, MCP_CAP_ROOTS | MCP_CAP_SAMPLING, NULL, 0);
    if (!c) return;
    EQS(mem_msg_at(0), INITIALIZE(1));
    n0 = mem.nsent;
    mem_msg("{\"jsonrpc\":\"2.0\",\"id\":\"s1\",\"method\":\"roots/list\"}");
    mem_msg("{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"sampling/createMessage\",\"params\":{}}");
    mem_msg("{\"jsonrpc\":\"2.0\",\"id\":\"s3\",\"method\":\"ping\"}");
    mcp_client_poll(c, 0);
    EQI(mem.nsent, n0 + 3);
    EQS(mem_msg_at(n0), REPLY_ERR("\"s1\"", -32601, "Method not found"));
    EQS(mem_msg_at(n0 + 1), REPLY_ERR("2", -32601, "Method not found"));
    EQS(mem_msg_at(n0 + 2), REPLY("\"s3\"", "{}"));
    mcp_client_free(c);

    /* capabilities as JSON text */
    c = serving(&mem_transport, 0, "{\"roots\":{},\"experimental\":{\"x\":{\"y\":1}}}", 0);
    if (!c) return;
    EQS(mem_msg_at(0), INIT_CAPS(1, "{\"roots\":{},\"experimental\":{\"x\":{\"y\":1}}}"));
    mcp_client_free(c);
    mem_reset();
}

int main(int argc, char **argv)
{
    int st = test_main(argc, argv);
    mem_reset();
    return st;
}
