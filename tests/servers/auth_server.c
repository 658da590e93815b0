/* auth_server - a protected MCP server that is its own OAuth 2.1 authorization server, for
   tests/test_auth_client.c and tests/test_mcpc_auth.sh: the MCP authorization flow end to end
   on 127.0.0.1, without npm. Built on mcp.h's JSON, form, SHA-256 and base64url helpers and
   its own small HTTP/1.1 reader; single-threaded, one poll() loop; every answer closes its
   connection (Connection: close).

   Usage: auth_server [PORT] [--ttl=S] [--secret] [--no-s256] [--token500] [--bad-state]
   PORT 0 (the default) picks a free port. The first line on stdout is "PORT <n>". It exits
   with status 0 when its stdin ends, or on SIGTERM or SIGINT.
     --ttl=S      access tokens live S seconds (expires_in; default 3600)
     --secret     registration issues a client secret (token_endpoint_auth_method
                  client_secret_basic); the token endpoint then demands it
     --no-s256    the metadata lists only "plain" in code_challenge_methods_supported
     --token500   the token endpoint answers 500 with an HTML page
     --bad-state  /authorize redirects back with a state that is not the one it was given
     --cache-scope=S  tools/list's result carries ttlMs 60000 and cacheScope S (for the
                  client's cache: a 2025-era server ahead of its version)

   Endpoints (U = http://127.0.0.1:PORT)
     GET /sse, POST /messages   the same over HTTP+SSE (2024-11-05): the stream's endpoint
                  event names /messages; answers go on the stream; both need the token.
     POST /mcp    JSON-RPC, one message per POST, no session. Without a valid
                  "Authorization: Bearer T": 401 with WWW-Authenticate: Bearer
                  resource_metadata="U/.well-known/oauth-protected-resource/mcp" (and
                  error="invalid_token" when a token was sent). initialize, tools/list (echo),
                  tools/call echo (text = the arguments as JSON), ping; server/discover and
                  anything else with an id: -32601; notifications: 202. GET and DELETE: 405
                  (after the token check).
     GET /.well-known/oauth-protected-resource/mcp
                  resource U/mcp, authorization_servers [U/as], scopes_supported [mcp:tools]
     GET /.well-known/oauth-authorization-server/as    (RFC 8414, path inserted)
                  issuer U/as, U/as/authorize, U/as/token, U/as/register, S256, the auth
                  methods none, client_secret_basic and client_secret_post, scopes mcp:tools
                  and offline_access, authorization_response_iss_parameter_supported true
     POST /as/register  RFC 7591: redirect_uris required; 201 with a client_id
     GET /as/authorize  checks response_type=code, client_id registered, redirect_uri one of
                  its redirect_uris (a loopback one with any
                  port, RFC 8252 section 7.3; else 400, no redirect), code_challenge (43 base64url
                  characters), code_challenge_method=S256, state, resource = U/mcp, scope
                  within the supported ones; a failed check: 302 with error=invalid_request
                  (the reason in stats.last_error); else 302 to redirect_uri with code, state
                  and iss
     POST /as/token  authorization_code: the code once, for its client, redirect_uri and
                  resource, the PKCE verifier against the challenge; refresh_token: rotating,
                  each refresh token once: a reused one revokes its whole chain (its access and
                  refresh tokens) and answers invalid_grant (counted as refresh_reuse). A
                  refresh token only when offline_access was granted.
     GET /debug/stats    counters (JSON): registrations, authorizations, authorize_errors,
                  code_grants, refresh_grants, refresh_reuse, token_errors, unauthorized
                  (401s on /mcp), mcp_requests (authorized), tool_calls, last_error
     GET /debug/secrets  every access token, refresh token, code and client secret issued
                  (not the client IDs: the authorization URL shows them),
                  as a JSON array of strings
     GET /debug/expire   every access token issued so far stops being valid
     GET /debug/revoke   every refresh token issued so far is revoked (invalid_grant, not reuse)
     GET /debug/reset    the counters to 0 */
#define _POSIX_C_SOURCE 200809L
#define MCP_IMPLEMENTATION
#include "../../mcp.h"
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>
#include <unistd.h>
#include <sys/types.h>
#include <sys/socket.h>
#include <netinet/in.h>
#include <arpa/inet.h>

static int port, ttl = 3600, opt_secret, opt_no_s256, opt_token500, opt_bad_state;
static volatile sig_atomic_t stop_now;
static char base[64], mcp_url[96], issuer[96], prm_url[160];
static int opt_root;                           /* --resource-root: the resource is the origin (HTTP+SSE) */
static const char *opt_cache_scope;            /* --cache-scope=S */

static struct {
    long registrations, authorizations, authorize_errors, code_grants, refresh_grants, refresh_reuse,
         token_errors, unauthorized, mcp_requests, tool_calls, sse_streams;
} st;
static char last_error[200];

static void die(const char *what) { perror(what); exit(1); }

static char *xstrdup(const char *s)
{
    char *p = (char *)malloc(strlen(s) + 1);
    if (!p) die("malloc");
    strcpy(p, s);
    return p;
}

/* ---- what was issued ------------------------------------------------------------------------- */

#define MAXN 256
typedef struct client { char *id, *secret, *redirects[4]; int nredir; } client;
typedef struct code { char *code, *client, *redirect, *challenge, *scope; int used; } code;
typedef struct token { char *value, *client, *scope; int chain, used, revoked; int64_t expires; } token;
static client clients[MAXN]; static int nclients;
static code codes[MAXN]; static int ncodes;
static token access_tokens[MAXN]; static int naccess;
static token refresh_tokens[MAXN]; static int nrefresh;
static int nchains;
static mcp_buf secrets;                        /* JSON array items, comma-separated */

static int64_t now_s(void) { return (int64_t)time(NULL); }

static void fail_reason(const char *why) { snprintf(last_error, sizeof last_error, "%s", why); }

/* A fresh value, prefix + 32 random bytes in base64url; a secret (all but client IDs, which
   the authorization URL shows) is recorded in secrets. */
static char *mint(const char *prefix)
{
    int secret = strcmp(prefix, "client-") != 0;
    unsigned char r[32];
    char enc[64], out[80];
    if (mcp_random(r, sizeof r, NULL) != MCP_OK) die("mcp_random");
    mcp_base64url(r, sizeof r, enc, sizeof enc);
    snprintf(out, sizeof out, "%s%s", prefix, enc);
    if (secret) {
        if (secrets.len) mcp_buf_append(&secrets, ",", 1);
        mcp_buf_append(&secrets, "\"", 1); mcp_buf_append(&secrets, out, strlen(out)); mcp_buf_append(&secrets, "\"", 1);
    }
    return xstrdup(out);
}

static client *client_find(const char *id)
{
    int i;
    for (i = 0; id && i < nclients; i++) if (!strcmp(clients[i].id, id)) return &clients[i];
    return NULL;
}

static token *token_find(token *v, int n, const char *value)
{
    int i;
    for (i = 0; value && i < n; i++) if (!strcmp(v[i].value, value)) return &v[i];
    return NULL;
}

static void revoke_chain(int chain)
{
    int i;
    for (i = 0; i < naccess; i++) if (access_tokens[i].chain == chain) access_tokens[i].revoked = 1;
    for (i = 0; i < nrefresh; i++) if (refresh_tokens[i].chain == chain) refresh_tokens[i].revoked = 1;
}

/* ---- HTTP ------------------------------------------------------------------------------------ */

typedef struct conn { int fd; char *buf; size_t len, cap; } conn;
#define MAXCONN 64
static conn conns[MAXCONN];

typedef struct req {
    char method[16], path[4096], *query;    /* query: after '?' in path, or "" */
    const char *head; size_t head_len;      /* the header lines */
    const char *body; size_t body_len;
} req;

/* The value of header name (case-insensitive), copied into out; 0 when absent. */
static int header(const req *rq, const char *name, char *out, size_t n)
{
    const char *p = rq->head, *end = rq->head + rq->head_len, *eol, *v;
    size_t nl = strlen(name);
    for (; p < end; p = eol + 2) {
        if (!(eol = strstr(p, "\r\n")) || eol > end) eol = end;
        if ((size_t)(eol - p) > nl && p[nl] == ':' && !strncasecmp(p, name, nl)) {
            for (v = p + nl + 1; *v == ' ' || *v == '\t'; v++) {}
            snprintf(out, n, "%.*s", (int)(eol - v), v);
            return 1;
        }
        if (eol == end) break;
    }
    return 0;
}

static void send_all(int fd, const char *p, size_t n)
{
    int fl = fcntl(fd, F_GETFL);
    fcntl(fd, F_SETFL, fl & ~O_NONBLOCK);
    while (n) {
        ssize_t w = send(fd, p, n, MSG_NOSIGNAL);
        if (w < 0 && errno == EINTR) continue;
        if (w <= 0) return;
        p += w; n -= (size_t)w;
    }
}

static void respond(int fd, int status, const char *reason, const char *ctype, const char *extra, const char *body)
{
    char headbuf[2048];
    size_t bl = body ? strlen(body) : 0;
    int n = snprintf(headbuf, sizeof headbuf, "HTTP/1.1 %d %s\r\n%s%s%s%sContent-Length: %lu\r\n"
                     "Cache-Control: no-store\r\nConnection: close\r\n\r\n", status, reason,
                     ctype ? "Content-Type: " : "", ctype ? ctype : "", ctype ? "\r\n" : "",
                     extra ? extra : "", (unsigned long)bl);
    send_all(fd, headbuf, (size_t)n);
    if (bl) send_all(fd, body, bl);
}

static void json_reply(int fd, int status, const char *reason, const char *body)
{
    respond(fd, status, reason, "application/json", NULL, body);
}

static void oauth_error(int fd, int status, const char *error, const char *desc)
{
    char b[512];
    snprintf(b, sizeof b, "{\"error\":\"%s\",\"error_description\":\"%s\"}", error, desc);
    fail_reason(desc);
    if (!strcmp(error, "invalid_grant") || status != 200) st.token_errors++;
    json_reply(fd, status, status == 401 ? "Unauthorized" : "Bad Request", b);
}

/* A form field into out (decoded); 0 when absent or malformed. */
static int field(const char *s, size_t n, const char *name, mcp_buf *out)
{
    return mcp_http_form_get(s, n, name, out, NULL) == 1;
}

/* ---- the MCP server -------------------------------------------------------------------------- */

static int bearer_ok(const req *rq, int *sent)
{
    char v[512];
    token *t;
    *sent = 0;
    if (!header(rq, "authorization", v, sizeof v) || strncasecmp(v, "Bearer ", 7)) return 0;
    *sent = 1;
    t = token_find(access_tokens, naccess, v + 7);
    return t && !t->revoked && now_s() < t->expires;
}

/* The answer to the JSON-RPC request in rq's body (mcp_free it), or NULL: *how says why
   (1: a notification, nothing to answer; 2: not a JSON-RPC request). */
static char *mcp_result(const req *rq, int *how)
{
    mcp_json_doc *doc = mcp_json_parse(rq->body, rq->body_len, NULL);
    const mcp_json *m = mcp_json_root(doc), *id = mcp_json_get(m, "id"), *params = mcp_json_get(m, "params");
    const char *method = mcp_json_str(mcp_json_get(m, "method"));
    char *ids = id ? mcp_json_dump(id, 0, NULL) : NULL;
    mcp_jw w;
    char *text = NULL;
    *how = 0;
    if (!doc || !method) { *how = 2; goto out; }
    if (!id) { *how = 1; goto out; }
    mcp_jw_init(&w, 0);
    mcp_jw_obj_begin(&w);
    mcp_jw_key(&w, "jsonrpc"); mcp_jw_str(&w, "2.0");
    mcp_jw_key(&w, "id"); mcp_jw_raw(&w, ids, strlen(ids));
    if (!strcmp(method, "initialize")) {
        const char *v = mcp_json_str(mcp_json_get(params, "protocolVersion"));
        mcp_jw_key(&w, "result"); mcp_jw_obj_begin(&w);
        mcp_jw_key(&w, "protocolVersion"); mcp_jw_str(&w, v ? v : "2025-06-18");
        mcp_jw_key(&w, "capabilities"); mcp_jw_raw(&w, "{\"tools\":{}}", 12);
        mcp_jw_key(&w, "serverInfo"); mcp_jw_raw(&w, "{\"name\":\"auth_server\",\"version\":\"1.0\"}", 38);
        mcp_jw_obj_end(&w);
    } else if (!strcmp(method, "ping")) {
        mcp_jw_key(&w, "result"); mcp_jw_raw(&w, "{}", 2);
    } else if (!strcmp(method, "tools/list")) {
        static const char tools[] = "[{\"name\":\"echo\",\"description\":\"the arguments as JSON text\","
                                    "\"inputSchema\":{\"type\":\"object\"}}]";
        mcp_jw_key(&w, "result"); mcp_jw_obj_begin(&w);
        mcp_jw_key(&w, "tools"); mcp_jw_raw(&w, tools, strlen(tools));
        if (opt_cache_scope) {
            mcp_jw_key(&w, "ttlMs"); mcp_jw_int(&w, 60000);
            mcp_jw_key(&w, "cacheScope"); mcp_jw_str(&w, opt_cache_scope);
        }
        mcp_jw_obj_end(&w);
    } else if (!strcmp(method, "tools/call") &&
               mcp_json_str(mcp_json_get(params, "name")) && !strcmp(mcp_json_str(mcp_json_get(params, "name")), "echo")) {
        char *args = mcp_json_get(params, "arguments") ? mcp_json_dump(mcp_json_get(params, "arguments"), 0, NULL) : NULL;
        st.tool_calls++;
        mcp_jw_key(&w, "result"); mcp_jw_obj_begin(&w);
        mcp_jw_key(&w, "content"); mcp_jw_arr_begin(&w); mcp_jw_obj_begin(&w);
        mcp_jw_key(&w, "type"); mcp_jw_str(&w, "text");
        mcp_jw_key(&w, "text"); mcp_jw_str(&w, args ? args : "{}");
        mcp_jw_obj_end(&w); mcp_jw_arr_end(&w);
        mcp_jw_obj_end(&w);
        mcp_free(args);
    } else {
        mcp_jw_key(&w, "error"); mcp_jw_obj_begin(&w);
        mcp_jw_key(&w, "code"); mcp_jw_int(&w, -32601);
        mcp_jw_key(&w, "message"); mcp_jw_str(&w, "Method not found");
        mcp_jw_obj_end(&w);
    }
    mcp_jw_obj_end(&w);
    text = mcp_jw_finish(&w, NULL, NULL);
out:
    mcp_free(ids);
    mcp_json_free(doc);
    return text;
}

static void mcp_answer(int fd, const req *rq)
{
    int how;
    char *text = mcp_result(rq, &how);
    if (how == 2) respond(fd, 400, "Bad Request", "text/plain", NULL, "not a JSON-RPC request\n");
    else if (how == 1) respond(fd, 202, "Accepted", NULL, NULL, NULL);
    else json_reply(fd, 200, "OK", text);
    mcp_free(text);
}

/* ---- HTTP+SSE (2024-11-05): GET /sse is the stream, POST /messages the requests ------------ */

static int sse_fd = -1;                        /* the open event stream, or -1 */

static int unauthorized(int fd, const req *rq)   /* 1: answered 401 */
{
    int sent;
    char extra[400];
    if (bearer_ok(rq, &sent)) return 0;
    st.unauthorized++;
    snprintf(extra, sizeof extra, "WWW-Authenticate: Bearer %sresource_metadata=\"%s\"\r\n",
             sent ? "error=\"invalid_token\", " : "", prm_url);
    respond(fd, 401, "Unauthorized", "application/json", extra, "{\"error\":\"invalid_token\"}");
    return 1;
}

/* 1: the connection stays open as the stream. */
static int sse_open(int fd, const req *rq)
{
    static const char head[] = "HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nCache-Control: no-store\r\n\r\n"
                               "event: endpoint\ndata: /messages\n\n";
    if (unauthorized(fd, rq)) return 0;
    st.sse_streams++;
    if (sse_fd >= 0) { shutdown(sse_fd, SHUT_RDWR); }   /* the newest stream is the one */
    send_all(fd, head, sizeof head - 1);
    sse_fd = fd;
    return 1;
}

static void sse_post(int fd, const req *rq)
{
    int how;
    char *text;
    if (unauthorized(fd, rq)) return;
    st.mcp_requests++;
    if (sse_fd < 0) { respond(fd, 400, "Bad Request", "text/plain", NULL, "no event stream is open\n"); return; }
    text = mcp_result(rq, &how);
    if (how == 2) { respond(fd, 400, "Bad Request", "text/plain", NULL, "not a JSON-RPC request\n"); return; }
    respond(fd, 202, "Accepted", NULL, NULL, NULL);
    if (text) {
        send_all(sse_fd, "event: message\ndata: ", 21);
        send_all(sse_fd, text, strlen(text));
        send_all(sse_fd, "\n\n", 2);
        mcp_free(text);
    }
}

static void mcp_endpoint(int fd, const req *rq)
{
    int sent;
    char extra[400];
    if (!bearer_ok(rq, &sent)) {
        st.unauthorized++;
        snprintf(extra, sizeof extra, "WWW-Authenticate: Bearer %sresource_metadata=\"%s\"\r\n",
                 sent ? "error=\"invalid_token\", " : "", prm_url);
        respond(fd, 401, "Unauthorized", "application/json", extra, "{\"error\":\"invalid_token\"}");
        return;
    }
    st.mcp_requests++;
    if (strcmp(rq->method, "POST")) { respond(fd, 405, "Method Not Allowed", NULL, "Allow: POST\r\n", NULL); return; }
    mcp_answer(fd, rq);
}

/* ---- the authorization server ---------------------------------------------------------------- */

static void metadata(int fd, int which)
{
    char b[2048];
    if (which == 0)
        snprintf(b, sizeof b, "{\"resource\":\"%s\",\"authorization_servers\":[\"%s\"],"
                 "\"scopes_supported\":[\"mcp:tools\"],\"bearer_methods_supported\":[\"header\"]}", opt_root ? base : mcp_url, issuer);
    else
        snprintf(b, sizeof b, "{\"issuer\":\"%s\",\"authorization_endpoint\":\"%s/authorize\","
                 "\"token_endpoint\":\"%s/token\",\"registration_endpoint\":\"%s/register\","
                 "\"response_types_supported\":[\"code\"],"
                 "\"grant_types_supported\":[\"authorization_code\",\"refresh_token\"],"
                 "\"code_challenge_methods_supported\":[%s],"
                 "\"token_endpoint_auth_methods_supported\":[\"none\",\"client_secret_basic\",\"client_secret_post\"],"
                 "\"scopes_supported\":[\"mcp:tools\",\"offline_access\"],"
                 "\"authorization_response_iss_parameter_supported\":true}",
                 issuer, issuer, issuer, issuer, opt_no_s256 ? "\"plain\"" : "\"S256\"");
    json_reply(fd, 200, "OK", b);
}

static void do_register(int fd, const req *rq)
{
    mcp_json_doc *doc = mcp_json_parse(rq->body, rq->body_len, NULL);
    const mcp_json *ru = mcp_json_get(mcp_json_root(doc), "redirect_uris");
    client *c;
    mcp_jw w;
    char *text;
    size_t i;
    if (!doc || mcp_json_typeof(ru) != MCP_JSON_ARRAY || !mcp_json_len(ru) || mcp_json_len(ru) > 4 || nclients == MAXN) {
        fail_reason("registration without redirect_uris");
        json_reply(fd, 400, "Bad Request", "{\"error\":\"invalid_redirect_uri\"}");
        mcp_json_free(doc);
        return;
    }
    c = &clients[nclients++];
    memset(c, 0, sizeof *c);
    c->id = mint("client-");
    for (i = 0; i < mcp_json_len(ru); i++)
        if (mcp_json_str(mcp_json_at(ru, i))) c->redirects[c->nredir++] = xstrdup(mcp_json_str(mcp_json_at(ru, i)));
    if (opt_secret) c->secret = mint("cs-");
    st.registrations++;
    mcp_jw_init(&w, 0);
    mcp_jw_obj_begin(&w);
    mcp_jw_key(&w, "client_id"); mcp_jw_str(&w, c->id);
    if (c->secret) { mcp_jw_key(&w, "client_secret"); mcp_jw_str(&w, c->secret); }
    mcp_jw_key(&w, "client_id_issued_at"); mcp_jw_int(&w, now_s());
    mcp_jw_key(&w, "redirect_uris"); mcp_jw_value(&w, ru);
    mcp_jw_key(&w, "grant_types"); mcp_jw_raw(&w, "[\"authorization_code\",\"refresh_token\"]", 38);
    mcp_jw_key(&w, "token_endpoint_auth_method"); mcp_jw_str(&w, c->secret ? "client_secret_basic" : "none");
    mcp_jw_obj_end(&w);
    text = mcp_jw_finish(&w, NULL, NULL);
    json_reply(fd, 201, "Created", text);
    mcp_free(text);
    mcp_json_free(doc);
}

/* RFC 8252 section 7.3 (OAuth 2.1 section 8.4.2): a loopback IP redirect URI matches a
   registered one whatever its port; any other must match exactly. */
static int redirect_matches(const char *reg, const char *uri)
{
    static const char lo[] = "http://127.0.0.1:";
    const char *a, *b;
    if (!strcmp(reg, uri)) return 1;
    if (strncmp(reg, lo, sizeof lo - 1) || strncmp(uri, lo, sizeof lo - 1)) return 0;
    a = reg + sizeof lo - 1; b = uri + sizeof lo - 1;
    a += strspn(a, "0123456789"); b += strspn(b, "0123456789");
    return (*a == '/' || !*a) && !strcmp(a, b);
}

static int scope_ok(const char *s)
{
    char buf[256], *tok, *save = NULL;
    snprintf(buf, sizeof buf, "%s", s);
    for (tok = strtok_r(buf, " ", &save); tok; tok = strtok_r(NULL, " ", &save))
        if (strcmp(tok, "mcp:tools") && strcmp(tok, "offline_access")) return 0;
    return 1;
}

/* The redirect back: Location = redirect_uri ? code or error, state, iss. */
static void redirect_back(int fd, const char *to, const char *what, const char *value, const char *state)
{
    mcp_buf q = {0}, loc = {0};
    mcp_http_form_append(&q, what, value, NULL);
    mcp_http_form_append(&q, "state", state, NULL);
    mcp_http_form_append(&q, "iss", issuer, NULL);
    mcp_buf_append(&loc, "Location: ", 10);
    mcp_buf_append(&loc, to, strlen(to));
    mcp_buf_append(&loc, strchr(to, '?') ? "&" : "?", 1);
    mcp_buf_append(&loc, q.data, q.len);
    mcp_buf_append(&loc, "\r\n", 3);
    respond(fd, 302, "Found", "text/plain", loc.data, "See the Location header.\n");
    mcp_buf_free(&q); mcp_buf_free(&loc);
}

static void do_authorize(int fd, const req *rq)
{
    static const char *const names[] = { "response_type", "client_id", "redirect_uri", "code_challenge",
                                         "code_challenge_method", "state", "resource", "scope" };
    mcp_buf v[8];
    const char *q = rq->query, *bad = NULL;
    size_t n = strlen(q), i, k;
    int got[8];
    client *c;
    memset(v, 0, sizeof v);
    for (k = 0; k < 8; k++) got[k] = field(q, n, names[k], &v[k]);
    c = got[1] ? client_find(v[1].data) : NULL;
    for (i = 0; c && got[2] && i < (size_t)c->nredir; i++) if (redirect_matches(c->redirects[i], v[2].data)) break;
    if (!c || !got[2] || i == (size_t)c->nredir) {
        st.authorize_errors++;
        fail_reason(!c ? "authorize: unknown client_id" : "authorize: redirect_uri not registered");
        respond(fd, 400, "Bad Request", "text/plain", NULL, "unknown client or redirect_uri\n");
        goto out;
    }
    if (!got[0] || strcmp(v[0].data, "code")) bad = "authorize: response_type is not code";
    else if (!got[3] || v[3].len != 43 || strspn(v[3].data, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
                                                             "0123456789-_") != 43) bad = "authorize: code_challenge is not S256-shaped";
    else if (!got[4] || strcmp(v[4].data, "S256")) bad = "authorize: code_challenge_method is not S256";
    else if (!got[5] || !v[5].len) bad = "authorize: no state";
    else if (!got[6] || strcmp(v[6].data, opt_root ? base : mcp_url)) bad = "authorize: resource is not the MCP server's URL";
    else if (got[7] && !scope_ok(v[7].data)) bad = "authorize: a scope that is not supported";
    if (bad || ncodes == MAXN) {
        st.authorize_errors++;
        fail_reason(bad ? bad : "authorize: too many codes");
        redirect_back(fd, v[2].data, "error", "invalid_request", got[5] ? v[5].data : "");
        goto out;
    }
    {
        code *cd = &codes[ncodes++];
        memset(cd, 0, sizeof *cd);
        cd->code = mint("code-");
        cd->client = xstrdup(c->id);
        cd->redirect = xstrdup(v[2].data);
        cd->challenge = xstrdup(v[3].data);
        cd->scope = xstrdup(got[7] ? v[7].data : "");
        st.authorizations++;
        redirect_back(fd, v[2].data, "code", cd->code, opt_bad_state ? "not-the-state" : v[5].data);
    }
out:
    for (k = 0; k < 8; k++) mcp_buf_free(&v[k]);
}

/* Client authentication at the token endpoint: the client, or NULL (the error answered). */
static client *token_client(int fd, const req *rq, const char *form, size_t n)
{
    char h[512];
    mcp_buf id = {0}, sec = {0};
    client *c = NULL;
    int basic = header(rq, "authorization", h, sizeof h) && !strncasecmp(h, "Basic ", 6);
    if (basic) {              /* base64 of "id:secret" (each form-encoded; ours need no escapes) */
        unsigned char raw[400];
        size_t len = 0, i;
        unsigned acc = 0;
        int bits = 0;
        const char *al = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
        char *colon;
        for (i = 6; h[i] && h[i] != '=' && len < sizeof raw - 1; i++) {
            const char *p = strchr(al, h[i]);
            if (!p) break;
            acc = (acc << 6) | (unsigned)(p - al); bits += 6;
            if (bits >= 8) { bits -= 8; raw[len++] = (unsigned char)(acc >> bits); acc &= (1u << bits) - 1; }
        }
        raw[len] = 0;
        if ((colon = strchr((char *)raw, ':')) != NULL) {
            *colon = 0;
            mcp_buf_append(&id, raw, strlen((char *)raw) + 1);
            mcp_buf_append(&sec, colon + 1, strlen(colon + 1) + 1);
        }
    } else {
        field(form, n, "client_id", &id);
        field(form, n, "client_secret", &sec);
    }
    if (!(c = client_find(id.data))) oauth_error(fd, 401, "invalid_client", "token: unknown client");
    else if (c->secret && (!sec.data || strcmp(sec.data, c->secret))) {
        oauth_error(fd, 401, "invalid_client", "token: wrong or missing client secret");
        c = NULL;
    }
    mcp_buf_free(&id); mcp_buf_free(&sec);
    return c;
}

static void issue(int fd, const client *c, const char *scope, int chain)
{
    token *a = &access_tokens[naccess++], *r = NULL;
    mcp_jw w;
    char *text;
    memset(a, 0, sizeof *a);
    a->value = mint("at-"); a->client = xstrdup(c->id); a->scope = xstrdup(scope); a->chain = chain;
    a->expires = now_s() + ttl;
    if (strstr(scope, "offline_access")) {
        r = &refresh_tokens[nrefresh++];
        memset(r, 0, sizeof *r);
        r->value = mint("rt-"); r->client = xstrdup(c->id); r->scope = xstrdup(scope); r->chain = chain;
    }
    mcp_jw_init(&w, 0);
    mcp_jw_obj_begin(&w);
    mcp_jw_key(&w, "access_token"); mcp_jw_str(&w, a->value);
    mcp_jw_key(&w, "token_type"); mcp_jw_str(&w, "Bearer");
    mcp_jw_key(&w, "expires_in"); mcp_jw_int(&w, ttl);
    if (r) { mcp_jw_key(&w, "refresh_token"); mcp_jw_str(&w, r->value); }
    mcp_jw_key(&w, "scope"); mcp_jw_str(&w, scope);
    mcp_jw_obj_end(&w);
    text = mcp_jw_finish(&w, NULL, NULL);
    json_reply(fd, 200, "OK", text);
    mcp_free(text);
}

static void grant_code(int fd, const client *c, const char *form, size_t n)
{
    mcp_buf cv = {0}, ver = {0}, ru = {0}, res = {0};
    code *cd = NULL;
    int i;
    unsigned char h[32];
    char chal[64];
    field(form, n, "code", &cv);
    for (i = 0; cv.data && i < ncodes; i++) if (!strcmp(codes[i].code, cv.data)) cd = &codes[i];
    if (!cd || cd->used) oauth_error(fd, 400, "invalid_grant", cd ? "token: the code was used already" : "token: unknown code");
    else if (strcmp(cd->client, c->id)) oauth_error(fd, 400, "invalid_grant", "token: the code is another client's");
    else if (!field(form, n, "redirect_uri", &ru) || strcmp(ru.data, cd->redirect))
        oauth_error(fd, 400, "invalid_grant", "token: redirect_uri differs from the authorization request's");
    else if (!field(form, n, "resource", &res) || strcmp(res.data, opt_root ? base : mcp_url))
        oauth_error(fd, 400, "invalid_target", "token: resource is not the MCP server's URL");
    else if (!field(form, n, "code_verifier", &ver) || ver.len < 43 || ver.len > 128)
        oauth_error(fd, 400, "invalid_grant", "token: no code_verifier");
    else {
        mcp_sha256(ver.data, ver.len, h);
        mcp_base64url(h, sizeof h, chal, sizeof chal);
        if (strcmp(chal, cd->challenge)) oauth_error(fd, 400, "invalid_grant", "token: the PKCE verifier does not match");
        else if (naccess == MAXN || nrefresh == MAXN) oauth_error(fd, 400, "invalid_request", "token: too many tokens");
        else { cd->used = 1; st.code_grants++; issue(fd, c, cd->scope, ++nchains); }
    }
    if (cd && !cd->used) cd->used = 1;             /* a code is tried once, right or wrong */
    mcp_buf_free(&cv); mcp_buf_free(&ver); mcp_buf_free(&ru); mcp_buf_free(&res);
}

static void grant_refresh(int fd, const client *c, const char *form, size_t n)
{
    mcp_buf rv = {0}, res = {0};
    token *r;
    field(form, n, "refresh_token", &rv);
    r = token_find(refresh_tokens, nrefresh, rv.data);
    if (!r) oauth_error(fd, 400, "invalid_grant", "refresh: unknown refresh token");
    else if (r->used) {
        st.refresh_reuse++;
        revoke_chain(r->chain);
        oauth_error(fd, 400, "invalid_grant", "refresh: a refresh token used twice: its chain is revoked");
    } else if (r->revoked) oauth_error(fd, 400, "invalid_grant", "refresh: the refresh token was revoked");
    else if (strcmp(r->client, c->id)) oauth_error(fd, 400, "invalid_grant", "refresh: the token is another client's");
    else if (field(form, n, "resource", &res) && strcmp(res.data, opt_root ? base : mcp_url))
        oauth_error(fd, 400, "invalid_target", "refresh: resource is not the MCP server's URL");
    else if (naccess == MAXN || nrefresh == MAXN) oauth_error(fd, 400, "invalid_request", "token: too many tokens");
    else { r->used = 1; st.refresh_grants++; issue(fd, c, r->scope, r->chain); }
    mcp_buf_free(&rv); mcp_buf_free(&res);
}

static void do_token(int fd, const req *rq)
{
    mcp_buf gt = {0};
    client *c;
    if (opt_token500) {
        st.token_errors++;
        respond(fd, 500, "Internal Server Error", "text/html", NULL, "<html><body>token endpoint down</body></html>\n");
        return;
    }
    if (!(c = token_client(fd, rq, rq->body, rq->body_len))) return;
    field(rq->body, rq->body_len, "grant_type", &gt);
    if (gt.data && !strcmp(gt.data, "authorization_code")) grant_code(fd, c, rq->body, rq->body_len);
    else if (gt.data && !strcmp(gt.data, "refresh_token")) grant_refresh(fd, c, rq->body, rq->body_len);
    else oauth_error(fd, 400, "unsupported_grant_type", "token: grant_type is neither authorization_code nor refresh_token");
    mcp_buf_free(&gt);
}

static void debug(int fd, const char *page)
{
    char b[1024];
    int i;
    if (!strcmp(page, "stats")) {
        snprintf(b, sizeof b, "{\"registrations\":%ld,\"authorizations\":%ld,\"authorize_errors\":%ld,"
                 "\"code_grants\":%ld,\"refresh_grants\":%ld,\"refresh_reuse\":%ld,\"token_errors\":%ld,"
                 "\"unauthorized\":%ld,\"mcp_requests\":%ld,\"tool_calls\":%ld,\"sse_streams\":%ld,"
                 "\"last_error\":\"%s\"}",
                 st.registrations, st.authorizations, st.authorize_errors, st.code_grants, st.refresh_grants,
                 st.refresh_reuse, st.token_errors, st.unauthorized, st.mcp_requests, st.tool_calls,
                 st.sse_streams, last_error);          /* our own sentences: no quote or backslash in them */
        json_reply(fd, 200, "OK", b);
        return;
    }
    if (!strcmp(page, "secrets")) {
        mcp_buf o = {0};
        mcp_buf_append(&o, "[", 1);
        if (secrets.len) mcp_buf_append(&o, secrets.data, secrets.len);
        mcp_buf_append(&o, "]", 2);
        json_reply(fd, 200, "OK", o.data);
        mcp_buf_free(&o);
        return;
    }
    if (!strcmp(page, "expire")) for (i = 0; i < naccess; i++) access_tokens[i].expires = 0;
    else if (!strcmp(page, "revoke")) for (i = 0; i < nrefresh; i++) refresh_tokens[i].revoked = 1;
    else if (!strcmp(page, "reset")) { memset(&st, 0, sizeof st); last_error[0] = 0; }
    else { respond(fd, 404, "Not Found", "text/plain", NULL, "no such debug page\n"); return; }
    json_reply(fd, 200, "OK", "{}");
}

/* ---- the loop -------------------------------------------------------------------------------- */

static int route(int fd, req *rq)          /* 1: the connection stays open (the event stream) */
{
    if (getenv("AUTH_SERVER_VERBOSE")) {
        char a[64] = "";
        header(rq, "authorization", a, 20);
        fprintf(stderr, "auth_server: %s %s %.60s [%s] %.*s\n", rq->method, rq->path, rq->query, a,
                (int)(rq->body_len < 80 ? rq->body_len : 80), rq->body);
    }
    if (!strcmp(rq->path, "/sse") && !strcmp(rq->method, "GET")) return sse_open(fd, rq);
    if (!strcmp(rq->path, "/messages") && !strcmp(rq->method, "POST")) { sse_post(fd, rq); return 0; }
    if (!strncmp(rq->path, "/debug/", 7)) debug(fd, rq->path + 7);
    else if (!strcmp(rq->path, "/mcp")) mcp_endpoint(fd, rq);
    else if (!strcmp(rq->path, "/.well-known/oauth-protected-resource/mcp") && !strcmp(rq->method, "GET")) metadata(fd, 0);
    else if (!strcmp(rq->path, "/.well-known/oauth-authorization-server/as") && !strcmp(rq->method, "GET")) metadata(fd, 1);
    else if (!strcmp(rq->path, "/as/register") && !strcmp(rq->method, "POST")) do_register(fd, rq);
    else if (!strcmp(rq->path, "/as/authorize") && !strcmp(rq->method, "GET")) do_authorize(fd, rq);
    else if (!strcmp(rq->path, "/as/token") && !strcmp(rq->method, "POST")) do_token(fd, rq);
    else respond(fd, 404, "Not Found", "text/plain", NULL, "not found\n");
    return 0;
}

/* A whole request in k's buffer: handled, 1 (2: and the connection stays, the event stream);
   not yet, 0; malformed: 400, 1. */
static int try_request(conn *k)
{
    req rq;
    char *he, *sp, *sp2, cl[32];
    size_t hl;
    if (!(he = strstr(k->buf, "\r\n\r\n"))) return 0;
    memset(&rq, 0, sizeof rq);
    hl = (size_t)(he - k->buf);
    sp = memchr(k->buf, ' ', hl);
    sp2 = sp ? memchr(sp + 1, ' ', hl - (size_t)(sp + 1 - k->buf)) : NULL;
    if (!sp || !sp2 || sp - k->buf >= (long)sizeof rq.method || sp2 - sp - 1 >= (long)sizeof rq.path) {
        respond(k->fd, 400, "Bad Request", "text/plain", NULL, "bad request line\n");
        return 1;
    }
    snprintf(rq.method, sizeof rq.method, "%.*s", (int)(sp - k->buf), k->buf);
    snprintf(rq.path, sizeof rq.path, "%.*s", (int)(sp2 - sp - 1), sp + 1);
    rq.query = strchr(rq.path, '?');
    if (rq.query) *rq.query++ = 0; else rq.query = rq.path + strlen(rq.path);
    rq.head = memchr(k->buf, '\n', hl);
    rq.head = rq.head ? rq.head + 1 : he;
    rq.head_len = (size_t)(he + 2 - rq.head);
    rq.body = he + 4;
    rq.body_len = header(&rq, "content-length", cl, sizeof cl) ? (size_t)strtoul(cl, NULL, 10) : 0;
    if (k->len < (size_t)(rq.body - k->buf) + rq.body_len) return 0;
    return route(k->fd, &rq) ? 2 : 1;
}

static void conn_end(conn *k)
{
    if (k->fd == sse_fd) sse_fd = -1;
    shutdown(k->fd, SHUT_WR);
    close(k->fd);
    free(k->buf);
    memset(k, 0, sizeof *k);
    k->fd = -1;
}

static void conn_read(conn *k)
{
    for (;;) {
        ssize_t r;
        if (k->cap - k->len < 4097) {
            k->cap = k->cap * 2 + 8192;
            if (k->cap > (1u << 20) || !(k->buf = (char *)realloc(k->buf, k->cap))) { conn_end(k); return; }
        }
        r = recv(k->fd, k->buf + k->len, k->cap - k->len - 1, 0);
        if (r < 0 && errno == EINTR) continue;
        if (r < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) return;
        if (r <= 0) { conn_end(k); return; }
        k->len += (size_t)r;
        k->buf[k->len] = 0;
        if (k->fd == sse_fd) { k->len = 0; continue; }    /* the stream: nothing more is read */
        r = try_request(k);
        if (r == 2) { k->len = 0; return; }
        if (r) { conn_end(k); return; }
    }
}

static void on_signal(int sig) { (void)sig; stop_now = 1; }

static void parse_args(int argc, char **argv)
{
    int i;
    for (i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (!strncmp(a, "--ttl=", 6)) ttl = atoi(a + 6);
        else if (!strcmp(a, "--secret")) opt_secret = 1;
        else if (!strcmp(a, "--no-s256")) opt_no_s256 = 1;
        else if (!strcmp(a, "--token500")) opt_token500 = 1;
        else if (!strcmp(a, "--bad-state")) opt_bad_state = 1;
        else if (!strcmp(a, "--resource-root")) opt_root = 1;
        else if (!strncmp(a, "--cache-scope=", 14)) opt_cache_scope = a + 14;
        else if (a[0] >= '0' && a[0] <= '9') port = atoi(a);
        else { fprintf(stderr, "auth_server: unknown argument %s\n", a); exit(2); }
    }
}

int main(int argc, char **argv)
{
    struct sockaddr_in sa;
    socklen_t sl = sizeof sa;
    struct sigaction sig;
    struct pollfd pf[MAXCONN + 2];
    int lfd, one = 1, i, n, stdin_open = 1;
    parse_args(argc, argv);
    memset(&sig, 0, sizeof sig);
    sig.sa_handler = on_signal;
    sigaction(SIGTERM, &sig, NULL);
    sigaction(SIGINT, &sig, NULL);
    signal(SIGPIPE, SIG_IGN);
    for (i = 0; i < MAXCONN; i++) conns[i].fd = -1;
    if ((lfd = socket(AF_INET, SOCK_STREAM, 0)) < 0) die("socket");
    setsockopt(lfd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
    memset(&sa, 0, sizeof sa);
    sa.sin_family = AF_INET;
    sa.sin_port = htons((unsigned short)port);
    sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    if (bind(lfd, (struct sockaddr *)&sa, sizeof sa) < 0 || listen(lfd, 64) < 0 ||
        getsockname(lfd, (struct sockaddr *)&sa, &sl) < 0) die("bind");
    fcntl(lfd, F_SETFL, fcntl(lfd, F_GETFL) | O_NONBLOCK);
    port = ntohs(sa.sin_port);
    snprintf(base, sizeof base, "http://127.0.0.1:%d", port);
    snprintf(mcp_url, sizeof mcp_url, "%s/mcp", base);
    snprintf(issuer, sizeof issuer, "%s/as", base);
    snprintf(prm_url, sizeof prm_url, "%s/.well-known/oauth-protected-resource/mcp", base);
    printf("PORT %d\n", port);
    fflush(stdout);
    while (!stop_now) {
        n = 0;
        pf[n].fd = lfd; pf[n++].events = POLLIN;
        if (stdin_open) { pf[n].fd = 0; pf[n++].events = POLLIN; }
        for (i = 0; i < MAXCONN; i++) if (conns[i].fd >= 0) { pf[n].fd = conns[i].fd; pf[n++].events = POLLIN; }
        if (poll(pf, (nfds_t)n, 1000) < 0) { if (errno == EINTR) continue; die("poll"); }
        for (i = 1; i < n; i++) {
            int k;
            if (!pf[i].revents) continue;
            if (pf[i].fd == 0) {
                char b[256];
                ssize_t r = read(0, b, sizeof b);
                if (r == 0 || (r < 0 && errno != EINTR && errno != EAGAIN)) { stdin_open = 0; stop_now = 1; }
                continue;
            }
            for (k = 0; k < MAXCONN; k++) if (conns[k].fd == pf[i].fd) { conn_read(&conns[k]); break; }
        }
        if (pf[0].revents) {
            int fd;
            while ((fd = accept(lfd, NULL, NULL)) >= 0) {
                for (i = 0; i < MAXCONN && conns[i].fd >= 0; i++) {}
                if (i == MAXCONN) { close(fd); continue; }
                fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK);
                conns[i].fd = fd;
            }
        }
    }
    for (i = 0; i < MAXCONN; i++) if (conns[i].fd >= 0) conn_end(&conns[i]);
    close(lfd);
    return 0;
}
