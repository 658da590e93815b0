/* conformance client - mcp.h under the official MCP conformance suite (issue 5).

   The suite (@modelcontextprotocol/conformance, pinned in tests/conformance/package.json)
   starts a test server for one scenario and runs this program as

       conformance-client [ARGS...] SERVER_URL         with MCP_CONFORMANCE_SCENARIO=NAME

   The server URL is the last argument. The client connects over Streamable HTTP through the
   public API of mcp.h only and does what the scenario needs:

     initialize                            the handshake, then tools/list (this server
                                           declares no capabilities: mcp.h must refuse
                                           tools/list without sending it)
     tools_call                            tools/list, then add_numbers {a:5, b:3}
     elicitation-sep1034-client-defaults   declares the elicitation capability; on_request
                                           accepts elicitation/create and fills every property
                                           of requestedSchema that has a default with it; then
                                           calls test_client_elicitation_defaults (the server
                                           asks outside the call, so the GET stream is open)
     sse-retry                             calls test_reconnection: the server closes the
                                           call's SSE stream after a priming event with
                                           retry: 500, and mcp.h must resume it with GET and
                                           Last-Event-ID after that interval
     anything else                         the handshake and tools/list

   The suite judges the exchange from its side; this program's own checks go to stderr and
   its exit status (0: everything it expected happened) is reported by the suite too.
   Built by tests/conformance/run.sh with -std=c99 -Wall -Wextra -Wpedantic -Wshadow -Werror. */
#define _POSIX_C_SOURCE 200809L
#define MCP_IMPLEMENTATION
#include "../../mcp.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int failures;
static int elicitations;
static const char *scenario = "";

static void say(const char *fmt, ...)
{
    va_list ap;
    fprintf(stderr, "conformance-client [%s]: ", scenario);
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputc('\n', stderr);
}

static void expect(int ok, const char *fmt, ...)
{
    va_list ap;
    fprintf(stderr, "conformance-client [%s]: %s ", scenario, ok ? "ok  " : "FAIL");
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputc('\n', stderr);
    if (!ok) failures++;
}

static const char *nn(const char *s) { return s ? s : "(null)"; }

/* ---- elicitation: accept with the schema's defaults --------------------------------------- */

/* 1 if v is one of the items of the array en (or en is absent). */
static int in_enum(const mcp_json *en, const mcp_json *v)
{
    size_t i;
    const mcp_json *item;
    if (!en) return 1;
    mcp_json_foreach(en, i, item) if (mcp_json_equal(item, v)) return 1;
    return 0;
}

/* A default fits its property when its JSON type matches the declared one (an integer for
   "integer") and, for an enum, it is one of the members. */
static int default_fits(const mcp_json *prop, const mcp_json *def)
{
    const char *type = mcp_json_str(mcp_json_get(prop, "type"));
    int64_t i64;
    mcp_json_type t = mcp_json_typeof(def);
    if (!in_enum(mcp_json_get(prop, "enum"), def)) return 0;
    if (!type) return 1;
    if (!strcmp(type, "string")) return t == MCP_JSON_STRING;
    if (!strcmp(type, "integer")) return t == MCP_JSON_NUMBER && mcp_json_int64(def, &i64);
    if (!strcmp(type, "number")) return t == MCP_JSON_NUMBER;
    if (!strcmp(type, "boolean")) return t == MCP_JSON_BOOL;
    if (!strcmp(type, "array")) return t == MCP_JSON_ARRAY;
    return 1;
}

/* {"action":"accept","content":{...}}: each property with a fitting default gets it; a
   required property without one gets the first enum member or an empty value of its type. */
static char *accept_with_defaults(const mcp_json *schema, int *filled)
{
    const mcp_json *props = mcp_json_get(schema, "properties"), *req = mcp_json_get(schema, "required");
    const mcp_json *prop, *def;
    size_t i, klen;
    mcp_jw w;
    mcp_error err;
    char *text;
    *filled = 0;
    mcp_jw_init(&w, 0);
    mcp_jw_obj_begin(&w);
    mcp_jw_key(&w, "action"); mcp_jw_str(&w, "accept");
    mcp_jw_key(&w, "content"); mcp_jw_obj_begin(&w);
    mcp_json_foreach(props, i, prop) {
        const char *key = mcp_json_key_at(props, i, &klen);
        const char *type = mcp_json_str(mcp_json_get(prop, "type"));
        def = mcp_json_get(prop, "default");
        if (def && default_fits(prop, def)) {
            mcp_jw_keyn(&w, key, klen);
            mcp_jw_value(&w, def);
            (*filled)++;
            say("elicitation: %.*s (%s) = its default", (int)klen, key, nn(type));
            continue;
        }
        if (def) say("elicitation: %.*s: the default does not fit the schema; left out", (int)klen, key);
        {
            size_t j;
            const mcp_json *r;
            int required = 0;
            mcp_json_foreach(req, j, r) {
                const char *s = mcp_json_str(r);
                if (s && strlen(s) == klen && !memcmp(s, key, klen)) required = 1;
            }
            if (!required) continue;
        }
        mcp_jw_keyn(&w, key, klen);
        if (mcp_json_at(mcp_json_get(prop, "enum"), 0)) mcp_jw_value(&w, mcp_json_at(mcp_json_get(prop, "enum"), 0));
        else if (type && !strcmp(type, "boolean")) mcp_jw_bool(&w, 0);
        else if (type && (!strcmp(type, "integer") || !strcmp(type, "number"))) mcp_jw_int(&w, 0);
        else mcp_jw_str(&w, "");
    }
    mcp_jw_obj_end(&w);
    mcp_jw_obj_end(&w);
    text = mcp_jw_finish(&w, NULL, &err);
    if (!text) say("elicitation: could not write the answer: %s", err.message);
    return text;
}

static void on_request(void *user, mcp_client *c, mcp_request *req)
{
    const char *m = mcp_request_method(req);
    mcp_error err;
    (void)user; (void)c;
    say("server request %s", m);
    if (!strcmp(m, "elicitation/create")) {
        const mcp_json *params = mcp_request_params(req);
        const char *mode = mcp_json_str(mcp_json_get(params, "mode"));
        int filled = 0;
        char *answer;
        elicitations++;
        if (mode && strcmp(mode, "form")) {
            mcp_request_reply(req, "{\"action\":\"decline\"}", NULL);
            return;
        }
        answer = accept_with_defaults(mcp_json_get(params, "requestedSchema"), &filled);
        if (!answer) { mcp_request_reply_error(req, -32603, "Internal error", NULL); return; }
        say("elicitation answer (%d default(s)): %s", filled, answer);
        if (mcp_request_reply(req, answer, &err) != MCP_OK) expect(0, "elicitation reply: %s", err.message);
        mcp_free(answer);
    } else if (!strcmp(m, "roots/list")) {
        mcp_request_reply(req, "{\"roots\":[]}", NULL);
    } else {
        mcp_request_reply_error(req, -32601, "Method not found", NULL);
    }
}

static void on_notification(void *user, mcp_client *c, const char *method, const mcp_json *params)
{
    (void)user; (void)c; (void)params;
    say("notification %s", method);
}

static void on_log(void *user, mcp_client *c, const char *message)
{
    (void)user; (void)c;
    say("mcp.h: %s", message);
}

/* ---- the scenarios ------------------------------------------------------------------------- */

static int has_tool(const mcp_json_doc *tools, const char *name)
{
    size_t i;
    const mcp_json *t;
    mcp_json_foreach(mcp_json_get(mcp_json_root(tools), "tools"), i, t)
        if (!strcmp(nn(mcp_json_str(mcp_json_get(t, "name"))), name)) return 1;
    return 0;
}

/* The text blocks of a tools/call result, joined by newlines. */
static void tool_text(const mcp_json_doc *doc, char *buf, size_t n)
{
    size_t i, used = 0;
    const mcp_json *item;
    buf[0] = 0;
    mcp_json_foreach(mcp_json_get(mcp_json_root(doc), "content"), i, item) {
        const char *t = mcp_json_str(mcp_json_get(item, "text"));
        if (!t) continue;
        used += (size_t)snprintf(buf + used, n - used, "%s%s", used ? "\n" : "", t);
        if (used >= n) break;
    }
}

/* Calls a tool that must succeed and whose text must contain want. */
static void call_expect(mcp_client *c, const char *tool, const char *args, const char *want)
{
    mcp_json_doc *doc = NULL;
    mcp_error err;
    char text[2048];
    int64_t t0 = mcp_time_ms();
    mcp_status s = mcp_client_call_tool(c, tool, args, &doc, &err);
    if (s != MCP_OK) { expect(0, "tools/call %s: %s", tool, err.message); return; }
    tool_text(doc, text, sizeof text);
    expect(!mcp_json_is_true(mcp_json_get(mcp_json_root(doc), "isError")) && strstr(text, want) != NULL,
           "tools/call %s (%lld ms): \"%.300s\"", tool, (long long)(mcp_time_ms() - t0), text);
    mcp_json_free(doc);
}

int main(int argc, char **argv)
{
    const char *url = argc > 1 ? argv[argc - 1] : NULL;
    mcp_client_desc d;
    mcp_client *c;
    mcp_json_doc *tools = NULL;
    mcp_error err;
    mcp_status s;
    int64_t t0 = mcp_time_ms();

    scenario = getenv("MCP_CONFORMANCE_SCENARIO") ? getenv("MCP_CONFORMANCE_SCENARIO") : "";
    if (!url || strncmp(url, "http", 4)) {
        fprintf(stderr, "usage: MCP_CONFORMANCE_SCENARIO=NAME %s SERVER_URL\n", argv[0]);
        return 2;
    }
    say("server %s", url);

    memset(&d, 0, sizeof d);
    d.transport = MCP_HTTP;
    d.url = url;
    d.client_name = "mcp.h-conformance";
    d.client_version = "0.1";
    d.timeout_ms = 15000;
    d.on_notification = on_notification;
    d.on_log = on_log;
    if (!strcmp(scenario, "elicitation-sep1034-client-defaults")) {
        d.on_request = on_request;
        d.capabilities = MCP_CAP_ELICITATION;
        d.http_listen = 1;           /* the server asks outside the call: on the GET stream */
    }

    c = mcp_client_new(&d, &err);
    if (!c) { expect(0, "mcp_client_new: %s", err.message); return 1; }
    s = mcp_client_connect(c, &err);
    expect(s == MCP_OK, "initialize: %s", s == MCP_OK ? "handshake done" : err.message);
    if (s != MCP_OK) { mcp_client_free(c); return 1; }
    say("server %s %s, protocol version %s",
        nn(mcp_json_str(mcp_json_get(mcp_client_server_info(c), "name"))),
        nn(mcp_json_str(mcp_json_get(mcp_client_server_info(c), "version"))), nn(mcp_client_protocol_version(c)));

    s = mcp_client_list_tools(c, &tools, &err);
    if (!mcp_json_get(mcp_client_server_capabilities(c), "tools"))
        /* mcp.h sends no request the server did not declare: it refuses tools/list locally */
        expect(s == MCP_ERR_INVALID, "tools/list: the server declared no \"tools\" capability, so mcp.h "
               "refuses it without asking (%s)", s == MCP_OK ? "but it was sent" : err.message);
    else
        expect(s == MCP_OK, "tools/list: %s (%lu tools)", s == MCP_OK ? "ok" : err.message,
               (unsigned long)mcp_json_len(mcp_json_get(mcp_json_root(tools), "tools")));

    if (!strcmp(scenario, "tools_call")) {
        expect(has_tool(tools, "add_numbers"), "add_numbers is listed");
        call_expect(c, "add_numbers", "{\"a\":5,\"b\":3}", "The sum of 5 and 3 is 8");
    } else if (!strcmp(scenario, "elicitation-sep1034-client-defaults")) {
        expect(has_tool(tools, "test_client_elicitation_defaults"), "test_client_elicitation_defaults is listed");
        /* the server drops a request made while no GET stream is open: give the one
           mcp.h opened after initialize a moment to be answered before the call */
        {
            int64_t end = mcp_time_ms() + 150;
            while (mcp_time_ms() < end && mcp_client_poll(c, 20) != MCP_ERR_CLOSED) {}
        }
        call_expect(c, "test_client_elicitation_defaults", "{}", "Elicitation completed");
        expect(elicitations == 1, "one elicitation/create answered (%d)", elicitations);
    } else if (!strcmp(scenario, "sse-retry")) {
        expect(has_tool(tools, "test_reconnection"), "test_reconnection is listed");
        call_expect(c, "test_reconnection", "{}", "Reconnection test completed successfully");
    }
    mcp_json_free(tools);

    s = mcp_client_close(c);
    expect(s == MCP_OK, "close: %s", mcp_status_str(s));
    mcp_client_free(c);
    say("%s in %lld ms", failures ? "FAILED" : "done", (long long)(mcp_time_ms() - t0));
    return failures ? 1 : 0;
}
