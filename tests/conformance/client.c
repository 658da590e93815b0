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
     auth/...                              desc.auth with a "browser" (browse: GETs the
                                           authorization URL, whose server redirects at once,
                                           and hands the Location to mcp_client_auth_redirect),
                                           the client ID metadata document URL the suite expects,
                                           and MCP_CONFORMANCE_CONTEXT's credentials (pre-
                                           registered; client_credentials with a secret or an
                                           ES256 assertion signed with OpenSSL); then the
                                           handshake and tools/list. resource-mismatch must fail
                                           to connect (MCP_ERR_AUTH) before any authorization;
                                           scope-step-up calls test-tool (403, more scope);
                                           scope-retry-limit must give up after 3 at most
     anything else                         the handshake, tools/list, then every tool called
                                           with arguments built from its input schema, and
                                           elicitation answered with the schema's defaults

   The suite judges the exchange from its side; this program's own checks go to stderr and
   its exit status (0: everything it expected happened) is reported by the suite too.
   Built by tests/conformance/run.sh with -std=c99 -Wall -Wextra -Wpedantic -Wshadow -Werror. */
#define _POSIX_C_SOURCE 200809L
#define MCP_IMPLEMENTATION
#include "../../mcp.h"

#include <netdb.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>
#ifdef HAVE_OPENSSL
#include <openssl/ec.h>
#include <openssl/evp.h>
#include <openssl/pem.h>
#endif

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

/* The object a schema describes, into w: each property with a fitting default gets it; a
   required property without one gets the first enum member or an empty value of its type. */
static void values_from_schema(mcp_jw *w0, const mcp_json *schema, int *filled)
{
    const mcp_json *props = mcp_json_get(schema, "properties"), *req = mcp_json_get(schema, "required");
    const mcp_json *prop, *def;
    size_t i, klen;
    mcp_jw *w = w0;
    *filled = 0;
    mcp_jw_obj_begin(w);
    mcp_json_foreach(props, i, prop) {
        const char *key = mcp_json_key_at(props, i, &klen);
        const char *type = mcp_json_str(mcp_json_get(prop, "type"));
        def = mcp_json_get(prop, "default");
        if (def && default_fits(prop, def)) {
            mcp_jw_keyn(w, key, klen);
            mcp_jw_value(w, def);
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
        mcp_jw_keyn(w, key, klen);
        if (mcp_json_at(mcp_json_get(prop, "enum"), 0)) mcp_jw_value(w, mcp_json_at(mcp_json_get(prop, "enum"), 0));
        else if (type && !strcmp(type, "boolean")) mcp_jw_bool(w, 0);
        else if (type && (!strcmp(type, "integer") || !strcmp(type, "number"))) mcp_jw_int(w, 0);
        else if (type && !strcmp(type, "array")) { mcp_jw_arr_begin(w); mcp_jw_arr_end(w); }
        else if (type && !strcmp(type, "object")) { mcp_jw_obj_begin(w); mcp_jw_obj_end(w); }
        else mcp_jw_str(w, "");
    }
    mcp_jw_obj_end(w);
}

/* {"action":"accept","content":{...}} with the schema's defaults. */
static char *accept_with_defaults(const mcp_json *schema, int *filled)
{
    mcp_jw w;
    mcp_error err;
    char *text;
    mcp_jw_init(&w, 0);
    mcp_jw_obj_begin(&w);
    mcp_jw_key(&w, "action"); mcp_jw_str(&w, "accept");
    mcp_jw_key(&w, "content"); values_from_schema(&w, schema, filled);
    mcp_jw_obj_end(&w);
    text = mcp_jw_finish(&w, NULL, &err);
    if (!text) say("elicitation: could not write the answer: %s", err.message);
    return text;
}

/* A scenario this client does not know: every tool called with arguments built from its
   input schema (defaults, else the first enum member, else an empty value of the type). */
static void call_every_tool(mcp_client *c, const mcp_json_doc *tools)
{
    size_t i;
    const mcp_json *t;
    mcp_json_foreach(mcp_json_get(mcp_json_root(tools), "tools"), i, t) {
        const char *name = mcp_json_str(mcp_json_get(t, "name"));
        mcp_json_doc *doc = NULL;
        mcp_jw w;
        mcp_error err;
        char *args;
        int filled;
        mcp_status s;
        if (!name) continue;
        mcp_jw_init(&w, 0);
        values_from_schema(&w, mcp_json_get(t, "inputSchema"), &filled);
        if (!(args = mcp_jw_finish(&w, NULL, &err))) { expect(0, "tools/call %s: %s", name, err.message); continue; }
        s = mcp_client_call_tool(c, name, args, &doc, &err);
        expect(s == MCP_OK && !mcp_json_is_true(mcp_json_get(mcp_json_root(doc), "isError")),
               "tools/call %s %s: %s", name, args, s == MCP_OK ? "ok" : err.message);
        mcp_free(args);
        mcp_json_free(doc);
    }
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

/* ---- authorization: the suite's "browser" and its credentials ------------------------------- */

static mcp_client *the_client;
static int authorizations;
static char context_id[256], context_secret[256], context_key[4096], context_alg[32];

/* The browser: GET the authorization URL (plain http://, the suite's authorization server
   answers at once with 302 to the redirect URI), and hand the Location to mcp.h. */
static void browse(void *user, const char *url)
{
    char host[256], port[8] = "80", req[4096], resp[8192], *loc, *end;
    const char *p = url + 7, *path;
    struct addrinfo hints, *ai = NULL;
    size_t hl, got = 0;
    long r;
    int fd = -1;
    mcp_error err;
    (void)user;
    authorizations++;
    say("browser: authorization request %d", authorizations);
    if (strncmp(url, "http://", 7)) { expect(0, "browser: not an http:// URL"); return; }
    path = strchr(p, '/');
    hl = path ? (size_t)(path - p) : strlen(p);
    if (hl >= sizeof host) { expect(0, "browser: host too long"); return; }
    memcpy(host, p, hl); host[hl] = 0;
    if (strchr(host, ':')) { snprintf(port, sizeof port, "%s", strchr(host, ':') + 1); *strchr(host, ':') = 0; }
    memset(&hints, 0, sizeof hints);
    hints.ai_socktype = SOCK_STREAM;
    if (getaddrinfo(host, port, &hints, &ai) != 0 || (fd = socket(ai->ai_family, SOCK_STREAM, 0)) < 0 ||
        connect(fd, ai->ai_addr, ai->ai_addrlen) < 0) {
        expect(0, "browser: could not connect to %s:%s", host, port);
        if (fd >= 0) close(fd);
        if (ai) freeaddrinfo(ai);
        return;
    }
    freeaddrinfo(ai);
    snprintf(req, sizeof req, "GET %s HTTP/1.1\r\nHost: %s:%s\r\nConnection: close\r\n\r\n", path ? path : "/", host, port);
    if (write(fd, req, strlen(req)) < 0) { close(fd); expect(0, "browser: write failed"); return; }
    while (got < sizeof resp - 1 && (r = read(fd, resp + got, sizeof resp - 1 - got)) > 0) got += (size_t)r;
    close(fd);
    resp[got] = 0;
    if (!(loc = strstr(resp, "\r\nLocation: ")) && !(loc = strstr(resp, "\r\nlocation: "))) {
        expect(0, "browser: the authorization endpoint did not redirect: %.200s", resp);
        return;
    }
    loc += 12;
    if ((end = strstr(loc, "\r\n")) != NULL) *end = 0;
    if (mcp_client_auth_redirect(the_client, loc, &err) != MCP_OK) say("browser: mcp.h refused the redirect: %s", err.message);
}

/* MCP_CONFORMANCE_CONTEXT: {"client_id", "client_secret"} or {"client_id", "private_key_pem",
   "signing_algorithm"}. */
static void read_context(void)
{
    const char *ctx = getenv("MCP_CONFORMANCE_CONTEXT");
    mcp_json_doc *doc = ctx ? mcp_json_parse(ctx, strlen(ctx), NULL) : NULL;
    const mcp_json *r = mcp_json_root(doc);
    snprintf(context_id, sizeof context_id, "%s", nn(mcp_json_str(mcp_json_get(r, "client_id"))));
    if (mcp_json_str(mcp_json_get(r, "client_secret")))
        snprintf(context_secret, sizeof context_secret, "%s", mcp_json_str(mcp_json_get(r, "client_secret")));
    if (mcp_json_str(mcp_json_get(r, "private_key_pem")))
        snprintf(context_key, sizeof context_key, "%s", mcp_json_str(mcp_json_get(r, "private_key_pem")));
    snprintf(context_alg, sizeof context_alg, "%s", mcp_json_str(mcp_json_get(r, "signing_algorithm")) ?
             mcp_json_str(mcp_json_get(r, "signing_algorithm")) : "ES256");
    mcp_json_free(doc);
}

/* private_key_jwt: ES256 over the signing input with the context's P-256 key; JWS wants the
   raw R || S (32 bytes each), OpenSSL gives DER. */
static mcp_status sign_es256(void *user, const char *input, size_t len, mcp_buf *sig, mcp_error *err)
{
#ifdef HAVE_OPENSSL
    BIO *bio = BIO_new_mem_buf(context_key, -1);
    EVP_PKEY *key = bio ? PEM_read_bio_PrivateKey(bio, NULL, NULL, NULL) : NULL;
    EVP_MD_CTX *md = EVP_MD_CTX_new();
    unsigned char der[128], raw[64];
    const unsigned char *dp = der;
    size_t dl = sizeof der;
    ECDSA_SIG *es = NULL;
    const BIGNUM *br, *bs;
    mcp_status st = MCP_ERR_AUTH;
    (void)user;
    if (key && md && EVP_DigestSignInit(md, NULL, EVP_sha256(), NULL, key) == 1 &&
        EVP_DigestSign(md, der, &dl, (const unsigned char *)input, len) == 1 &&
        (es = d2i_ECDSA_SIG(NULL, &dp, (long)dl)) != NULL) {
        ECDSA_SIG_get0(es, &br, &bs);
        if (BN_bn2binpad(br, raw, 32) == 32 && BN_bn2binpad(bs, raw + 32, 32) == 32 &&
            mcp_buf_append(sig, raw, 64) == MCP_OK)
            st = MCP_OK;
    }
    if (es) ECDSA_SIG_free(es);
    EVP_MD_CTX_free(md);
    EVP_PKEY_free(key);
    BIO_free(bio);
    if (st != MCP_OK && err) { err->status = st; snprintf(err->message, sizeof err->message, "ES256 signing failed."); }
    return st;
#else
    (void)user; (void)input; (void)len; (void)sig;
    if (err) { err->status = MCP_ERR_AUTH; snprintf(err->message, sizeof err->message, "Built without OpenSSL: no ES256."); }
    return MCP_ERR_AUTH;
#endif
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
    if (strcmp(scenario, "initialize") && strcmp(scenario, "tools_call") && strcmp(scenario, "sse-retry")) {
        d.on_request = on_request;           /* elicitation answered with the schema's defaults */
        d.capabilities = MCP_CAP_ELICITATION;
        d.http_listen = 1;           /* the server asks outside the call: on the GET stream */
    }

    if (!strncmp(scenario, "auth/", 5)) {
        static mcp_auth auth;
        static mcp_auth_client pre;
        memset(&auth, 0, sizeof auth);
        auth.client_name = "mcp.h-conformance";
        auth.redirect_uri = "http://localhost:3000/callback";    /* the browser hands it over */
        auth.client_id_metadata_url = "https://conformance-test.local/client-metadata.json";
        auth.open_url = browse;
        auth.offline_access = 1;
        auth.timeout_ms = 10000;
        read_context();
        if (context_id[0] && strcmp(context_id, "(null)")) {
            memset(&pre, 0, sizeof pre);
            pre.client_id = context_id;        /* the suite's one authorization server (issuer NULL) */
            pre.client_secret = context_secret[0] ? context_secret : NULL;
            if (context_key[0]) { pre.auth_method = "private_key_jwt"; auth.sign = sign_es256; auth.sign_alg = context_alg; }
            auth.clients = &pre; auth.nclients = 1;
            if (!strncmp(scenario, "auth/client-credentials", 23)) auth.grant = MCP_AUTH_CLIENT_CREDENTIALS;
        }
        d.auth = &auth;
        d.timeout_ms = 10000;
    }

    c = mcp_client_new(&d, &err);
    if (!c) { expect(0, "mcp_client_new: %s", err.message); return 1; }
    the_client = c;
    s = mcp_client_connect(c, &err);
    if (!strcmp(scenario, "auth/scope-retry-limit") && s != MCP_OK) {
        /* the server never accepts the scope it asks for: mcp.h gives up after a few tries */
        expect(s == MCP_ERR_AUTH && authorizations >= 1 && authorizations <= 3, "%d authorizations, then: %s",
               authorizations, err.message);
        mcp_client_free(c);
        return failures ? 1 : 0;
    }
    if (!strcmp(scenario, "auth/resource-mismatch")) {
        /* the metadata names another resource: mcp.h must stop before any authorization */
        expect(s == MCP_ERR_AUTH && authorizations == 0, "connect refused: %s", s == MCP_OK ? "it connected" : err.message);
        mcp_client_free(c);
        return failures ? 1 : 0;
    }
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
    } else if (!strcmp(scenario, "auth/scope-step-up") || !strcmp(scenario, "auth/scope-retry-limit")) {
        mcp_json_doc *doc = NULL;
        s = mcp_client_call_tool(c, "test-tool", "{}", &doc, &err);
        if (!strcmp(scenario, "auth/scope-step-up")) expect(s == MCP_OK, "tools/call test-tool after the step-up: %s", s == MCP_OK ? "ok" : err.message);
        else expect(s != MCP_OK && authorizations <= 3, "the scope that never comes: %d authorizations, then %s",
                    authorizations, s == MCP_OK ? "it succeeded" : err.message);
        mcp_json_free(doc);
    } else if (!strcmp(scenario, "sse-retry")) {
        expect(has_tool(tools, "test_reconnection"), "test_reconnection is listed");
        call_expect(c, "test_reconnection", "{}", "Reconnection test completed successfully");
    } else if (strcmp(scenario, "initialize") && strncmp(scenario, "auth/", 5) && tools) {
        call_every_tool(c, tools);
    }
    mcp_json_free(tools);

    s = mcp_client_close(c);
    expect(s == MCP_OK, "close: %s", mcp_status_str(s));
    mcp_client_free(c);
    say("%s in %lld ms", failures ? "FAILED" : "done", (long long)(mcp_time_ms() - t0));
    return failures ? 1 : 0;
}
