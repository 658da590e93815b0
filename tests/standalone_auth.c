/* >>auth: the authorization flow's state machine (mcp__auth_*), internal to mcp.h, so this file
   is its own implementation. No sockets: every answer is a byte array given to
   mcp__auth_answer (a malloc'd copy of exactly its bytes, no NUL after them, so ASan sees a read
   past a body), the browser's redirect a string given to mcp__auth_redirect, the store a small
   table in memory behind desc.load/desc.save, the private_key_jwt signature fixed bytes.
   Every failure's sentence is searched for the secrets the case used (CLEAN).
   Usage: standalone_auth [DATA_DIR]   (DATA_DIR is not read) */
#define MCP_IMPLEMENTATION
#include "../mcp.h"               /* first: it sets the feature macros for the system headers */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "test.h"

#define SERVER "https://mcp.example.com/mcp"
#define ISSUER "https://auth.example.com"
#define REDIR "http://127.0.0.1:5555/callback"
#define VERSION "2025-11-25"
#define SECRET "s3cr3t-CLIENT"           /* every secret of these tests holds S3CR or s3cr */
#define CODE "code-S3CRET-42"
#define SIG "SIGBYTES-fixed"
#define PRM_OK "{\"resource\":\"" SERVER "\",\"authorization_servers\":[\"" ISSUER "\"]," \
               "\"scopes_supported\":[\"read\",\"write\"]}"
#define TOKEN_OK "{\"access_token\":\"at-S3CRET-1\",\"token_type\":\"Bearer\",\"expires_in\":3600," \
                 "\"refresh_token\":\"rt-S3CRET-1\"}"

/* ---- the store, the signer --------------------------------------------------------------- */

typedef struct store {
    int n, saves, deletes;
    char *key[16], *val[16];
} store;

static int st_find(const store *s, const char *key)
{
    int i;
    for (i = 0; i < s->n; i++) if (!strcmp(s->key[i], key)) return i;
    return -1;
}

static char *dup_s(const char *s)
{
    size_t n = strlen(s);
    char *p = (char *)malloc(n + 1);
    if (p) memcpy(p, s, n + 1);
    return p;
}

static int st_load(void *user, const char *key, mcp_buf *value)
{
    store *s = (store *)user;
    int i = st_find(s, key);
    if (i < 0) return 0;
    value->len = 0;
    return mcp_buf_append(value, s->val[i], strlen(s->val[i])) == MCP_OK;
}

static void st_put(store *s, const char *key, const char *value)
{
    int i = st_find(s, key);
    if (i >= 0) {
        free(s->val[i]);
        if (value) { s->val[i] = dup_s(value); return; }
        free(s->key[i]);
        s->key[i] = s->key[s->n - 1]; s->val[i] = s->val[s->n - 1];
        s->n--;
    } else if (value && s->n < 16) {
        s->key[s->n] = dup_s(key); s->val[s->n] = dup_s(value); s->n++;
    }
}

static void st_save(void *user, const char *key, const char *value)
{
    store *s = (store *)user;
    if (value) s->saves++; else s->deletes++;
    st_put(s, key, value);
}

static const char *st_get(const store *s, const char *key)
{
    int i = st_find(s, key);
    return i < 0 ? NULL : s->val[i];
}

static void st_free(store *s)
{
    int i;
    for (i = 0; i < s->n; i++) { free(s->key[i]); free(s->val[i]); }
    s->n = 0;
}

static char signed_input[1024];      /* what the last sign call was given */

static mcp_status fixed_sign(void *user, const char *input, size_t len, mcp_buf *sig, mcp_error *err)
{
    (void)user; (void)err;
    snprintf(signed_input, sizeof signed_input, "%.*s", (int)len, input);
    return mcp_buf_append(sig, SIG, strlen(SIG));
}

/* ---- the fixture -------------------------------------------------------------------------- */

typedef struct fx {
    mcp_auth d;
    mcp_auth_client cl[2];
    store s;
    mcp__auth a;
    mcp__auth_do x;                  /* what mcp__auth_next said last */
    int started;
} fx;

static void fx_init(fx *f)
{
    memset(f, 0, sizeof *f);
    f->d.user = &f->s;
    f->d.load = st_load;
    f->d.save = st_save;
}

static int nx(fx *f)
{
    mcp__auth_next(&f->a, &f->x);
    return f->x.what;
}

static int fx_start_at(fx *f, const char *server, const char *redirect)
{
    if (f->started) mcp__auth_free(&f->a);
    f->started = mcp__auth_init(&f->a, &f->d, server, VERSION, redirect);
    return f->started;
}

static void fx_free(fx *f)
{
    if (f->started) mcp__auth_free(&f->a);
    f->started = 0;
    st_free(&f->s);
}

/* The answer to the FETCH asked for, as exactly len bytes in their own allocation. */
static int ans_n(fx *f, int status, const char *ctype, const char *body, size_t len)
{
    char *copy = (char *)malloc(len ? len : 1);
    if (!copy) return -1;
    if (len) memcpy(copy, body, len);
    mcp__auth_answer(&f->a, status, ctype, copy, len);
    free(copy);
    return nx(f);
}

static int ans(fx *f, int status, const char *body)
{
    return ans_n(f, status, "application/json", body, strlen(body));
}

static int chal(fx *f, int status, const char *value)
{
    const char *v[1];
    v[0] = value;
    mcp__auth_challenge(&f->a, status, v, value ? 1 : 0);
    return nx(f);
}

static int redirect(fx *f, const char *q)
{
    mcp__auth_redirect(&f->a, q);
    return nx(f);
}

/* The FETCH asked for is a GET of url. */
static int is_get(fx *f, const char *url)
{
    return f->x.what == MCP__AD_FETCH && f->x.url && !strcmp(f->x.url, url) && !strcmp(f->x.method, "GET");
}

static int has_header(const fx *f, const char *h)
{
    size_t i;
    for (i = 0; f->x.headers && f->x.headers[i]; i++) if (!strcmp(f->x.headers[i], h)) return 1;
    return 0;
}

static const char *header_of(const fx *f, const char *prefix)
{
    size_t i, n = strlen(prefix);
    for (i = 0; f->x.headers && f->x.headers[i]; i++) if (!strncmp(f->x.headers[i], prefix, n)) return f->x.headers[i] + n;
    return NULL;
}

/* A parameter of a URL's query or of a form body, decoded (rotating buffers; NULL: absent). */
static const char *param(const char *s, const char *name)
{
    static char out[8][4096];
    static int k;
    mcp_buf b;
    const char *q;
    int r;
    if (!s) return NULL;
    q = strchr(s, '?') ? strchr(s, '?') + 1 : s;
    memset(&b, 0, sizeof b);
    r = mcp_http_form_get(q, strlen(q), name, &b, NULL);
    k = (k + 1) % 8;
    snprintf(out[k], sizeof out[k], "%s", r == 1 && b.data ? b.data : "");
    mcp_buf_free(&b);
    return r == 1 ? out[k] : NULL;
}

/* Whether needle is among the n bytes at h. */
static int has_mem(const char *h, size_t n, const char *needle)
{
    size_t i, k = strlen(needle);
    for (i = 0; h && i + k <= n; i++) if (!memcmp(h + i, needle, k)) return 1;
    return 0;
}

/* A parameter of the FETCH's body (body_len bytes, no NUL after them promised). */
static const char *bparam(const fx *f, const char *name)
{
    static char body[8192];
    if (!f->x.body || f->x.body_len >= sizeof body) return NULL;
    memcpy(body, f->x.body, f->x.body_len);
    body[f->x.body_len] = 0;
    return param(body, name);
}

static int streq(const char *a, const char *b) { return a && b && !strcmp(a, b); }

/* base64 or base64url, padding optional, into out (NUL-terminated); -1 if not base64. */
static int b64dec(const char *s, size_t n, char *out, size_t cap)
{
    size_t i, o = 0;
    unsigned acc = 0;
    int bits = 0, v;
    for (i = 0; i < n && s[i] != '='; i++) {
        char c = s[i];
        if (c >= 'A' && c <= 'Z') v = c - 'A';
        else if (c >= 'a' && c <= 'z') v = c - 'a' + 26;
        else if (c >= '0' && c <= '9') v = c - '0' + 52;
        else if (c == '+' || c == '-') v = 62;
        else if (c == '/' || c == '_') v = 63;
        else return -1;
        acc = (acc << 6) | (unsigned)v;
        bits += 6;
        if (bits >= 8) {
            bits -= 8;
            if (o + 1 >= cap) return -1;
            out[o++] = (char)((acc >> bits) & 0xFF);
        }
    }
    out[o] = 0;
    return (int)o;
}

/* No secret of these tests, nor the flow's verifier, in the failure's sentence. */
static int clean(const fx *f)
{
    static const char *const secrets[] = { "s3cr", "S3CR", SIG, CODE };
    const char *m = f->a.err.message;
    size_t i;
    for (i = 0; i < sizeof secrets / sizeof *secrets; i++) if (strstr(m, secrets[i])) return 0;
    if (f->a.verifier[0] && strstr(m, f->a.verifier)) return 0;
    return 1;
}
#define CLEAN(f) CHECKF(clean(f), "a secret in the sentence: %s", (f)->a.err.message)
#define FAILED(f, st) CHECKF((f)->x.what == MCP__AD_FAILED && (f)->a.err.status == (st) && (f)->a.err.message[0], \
                             "want failed %d, got what %d status %d: %s", (st), (f)->x.what, (f)->a.err.status,     \
                             (f)->a.err.message)
#define SAYS(f, text) CHECKF(strstr((f)->a.err.message, (text)) != NULL, "\"%s\" not in: %s", (text), (f)->a.err.message)

/* Authorization server metadata for iss, extra members appended (start with ','). */
static const char *asm_doc(char *buf, size_t cap, const char *iss, const char *extra)
{
    snprintf(buf, cap, "{\"issuer\":\"%s\",\"authorization_endpoint\":\"%s/authorize\",\"token_endpoint\":\"%s/token\","
             "\"registration_endpoint\":\"%s/register\",\"code_challenge_methods_supported\":[\"S256\"]%s}",
             iss, iss, iss, iss, extra ? extra : "");
    return buf;
}

/* The usual start: 401, the path-inserted PRM, the RFC 8414 ASM of ISSUER (with extra). */
static int to_client(fx *f, const char *prm, const char *extra)
{
    char doc[2048];
    if (!fx_start_at(f, SERVER, REDIR)) return -1;
    chal(f, 401, "Bearer realm=\"mcp\"");
    if (!is_get(f, "https://mcp.example.com/.well-known/oauth-protected-resource/mcp")) return -1;
    if (ans(f, 200, prm ? prm : PRM_OK) != MCP__AD_FETCH) return f->x.what;
    if (!is_get(f, ISSUER "/.well-known/oauth-authorization-server")) return -1;
    return ans(f, 200, asm_doc(doc, sizeof doc, ISSUER, extra));
}

/* ... and with a pre-registered public client, to the browser. */
static int to_browser(fx *f, const char *prm, const char *extra)
{
    if (!f->d.nclients) {
        f->cl[0].issuer = ISSUER; f->cl[0].client_id = "cid-pre";
        f->d.clients = f->cl; f->d.nclients = 1;
    }
    return to_client(f, prm, extra);
}

/* The browser comes back with the code, state and iss: the token request. */
static int come_back(fx *f)
{
    char q[512];
    snprintf(q, sizeof q, "code=%s&state=%s&iss=%s", CODE, param(f->x.url, "state"), "https%3A%2F%2Fauth.example.com");
    return redirect(f, q);
}

static int to_done(fx *f, const char *extra, const char *token)
{
    if (to_browser(f, NULL, extra) != MCP__AD_BROWSER) return -1;
    if (come_back(f) != MCP__AD_FETCH) return -1;
    return ans(f, 200, token ? token : TOKEN_OK);
}

/* ---- protected resource metadata --------------------------------------------------------- */

TEST_CASE(prm_order_path_then_root)
{
    fx f;
    fx_init(&f);
    CHECK(fx_start_at(&f, SERVER, REDIR));
    CHECK(chal(&f, 401, "Bearer realm=\"mcp\"") == MCP__AD_FETCH);
    CHECK(is_get(&f, "https://mcp.example.com/.well-known/oauth-protected-resource/mcp"));
    CHECK(has_header(&f, "MCP-Protocol-Version: " VERSION));
    CHECK(has_header(&f, "Accept: application/json"));
    CHECK(f.x.body == NULL);
    CHECK(ans(&f, 404, "") == MCP__AD_FETCH);
    CHECK(is_get(&f, "https://mcp.example.com/.well-known/oauth-protected-resource"));
    CHECK(ans(&f, 200, PRM_OK) == MCP__AD_FETCH);
    CHECK(is_get(&f, ISSUER "/.well-known/oauth-authorization-server"));
    fx_free(&f);
}

TEST_CASE(prm_root_only_for_a_root_server)
{
    fx f;
    fx_init(&f);
    CHECK(fx_start_at(&f, "https://MCP.example.com:443/", REDIR));
    CHECK(chal(&f, 401, "Bearer") == MCP__AD_FETCH);
    CHECK(is_get(&f, "https://mcp.example.com/.well-known/oauth-protected-resource"));
    CHECK(ans(&f, 404, "") == MCP__AD_FETCH);      /* no PRM at all: 2025-03-26 */
    CHECK(is_get(&f, "https://mcp.example.com/.well-known/oauth-authorization-server"));
    fx_free(&f);
}

TEST_CASE(prm_challenge_url_only)
{
    fx f;
    fx_init(&f);
    CHECK(fx_start_at(&f, SERVER, REDIR));
    CHECK(chal(&f, 401, "Bearer resource_metadata=\"https://mcp.example.com/meta/prm.json\"") == MCP__AD_FETCH);
    CHECK(is_get(&f, "https://mcp.example.com/meta/prm.json"));
    CHECK(ans(&f, 404, "") == MCP__AD_FAILED);      /* no guessing besides the advertised URL */
    FAILED(&f, MCP_ERR_HTTP);
    SAYS(&f, "404");
    CLEAN(&f);
    /* the advertised URL that works */
    CHECK(fx_start_at(&f, SERVER, REDIR));
    CHECK(chal(&f, 401, "Bearer resource_metadata=\"https://mcp.example.com/meta/prm.json\"") == MCP__AD_FETCH);
    CHECK(ans(&f, 200, PRM_OK) == MCP__AD_FETCH);
    CHECK(is_get(&f, ISSUER "/.well-known/oauth-authorization-server"));
    /* a 403 at the advertised URL stops too */
    CHECK(fx_start_at(&f, SERVER, REDIR));
    chal(&f, 401, "Bearer resource_metadata=\"https://mcp.example.com/meta/prm.json\"");
    CHECK(ans(&f, 403, "") == MCP__AD_FAILED);
    FAILED(&f, MCP_ERR_HTTP);
    fx_free(&f);
}

TEST_CASE(prm_5xx_stops)
{
    fx f;
    int k;
    for (k = 0; k < 2; k++) {                        /* at the path-inserted one, at the root one */
        fx_init(&f);
        CHECK(fx_start_at(&f, SERVER, REDIR));
        chal(&f, 401, "Bearer");
        if (k) CHECK(ans(&f, 404, "") == MCP__AD_FETCH);
        CHECK(ans(&f, 503, "upstream down") == MCP__AD_FAILED);
        FAILED(&f, MCP_ERR_HTTP);
        SAYS(&f, "503");
        SAYS(&f, "protected resource metadata");
        CLEAN(&f);
        fx_free(&f);
    }
}

TEST_CASE(prm_resource_must_be_the_server)
{
    static const char *const bad[] = { "https://evil.example.com/mcp", "https://mcp.example.com/mcpx",
                                       "https://mcp.example.com/mcp/sub", "http://mcp.example.com/mcp",
                                       "https://mcp.example.com:8443/mcp", "not a url" };
    static const char *const good[] = { SERVER, "https://mcp.example.com", "https://mcp.example.com/",
                                        "https://MCP.EXAMPLE.COM/mcp/", "https://mcp.example.com:443/mcp" };
    char prm[512];
    size_t k;
    fx f;
    for (k = 0; k < sizeof bad / sizeof *bad; k++) {
        fx_init(&f);
        f.cl[0].client_id = "cid-pre"; f.d.clients = f.cl; f.d.nclients = 1;
        snprintf(prm, sizeof prm, "{\"resource\":\"%s\",\"authorization_servers\":[\"" ISSUER "\"]}", bad[k]);
        CHECKF(to_client(&f, prm, NULL) == MCP__AD_FAILED, "resource %s", bad[k]);
        FAILED(&f, MCP_ERR_AUTH);
        CHECK(f.a.state == MCP__AU_FAILED && f.a.authz_ep == NULL);   /* before any authorization URL */
        CLEAN(&f);
        fx_free(&f);
    }
    for (k = 0; k < sizeof good / sizeof *good; k++) {
        fx_init(&f);
        snprintf(prm, sizeof prm, "{\"resource\":\"%s\",\"authorization_servers\":[\"" ISSUER "\"]}", good[k]);
        CHECK(fx_start_at(&f, SERVER, REDIR));
        chal(&f, 401, "Bearer");
        CHECKF(ans(&f, 200, prm) == MCP__AD_FETCH && is_get(&f, ISSUER "/.well-known/oauth-authorization-server"),
               "resource %s: %s", good[k], f.a.err.message);
        fx_free(&f);
    }
    /* no resource at all */
    fx_init(&f);
    CHECK(fx_start_at(&f, SERVER, REDIR));
    chal(&f, 401, "Bearer");
    CHECK(ans(&f, 200, "{\"authorization_servers\":[\"" ISSUER "\"]}") == MCP__AD_FAILED);
    FAILED(&f, MCP_ERR_AUTH);
    fx_free(&f);
}

TEST_CASE(prm_without_authorization_servers)
{
    static const char *const docs[] = {
        "{\"resource\":\"" SERVER "\"}", "{\"resource\":\"" SERVER "\",\"authorization_servers\":[]}",
        "{\"resource\":\"" SERVER "\",\"authorization_servers\":\"" ISSUER "\"}",
        "{\"resource\":\"" SERVER "\",\"authorization_servers\":[7]}" };
    size_t k;
    fx f;
    for (k = 0; k < sizeof docs / sizeof *docs; k++) {
        fx_init(&f);
        CHECK(fx_start_at(&f, SERVER, REDIR));
        chal(&f, 401, "Bearer");
        CHECKF(ans(&f, 200, docs[k]) == MCP__AD_FAILED, "%s", docs[k]);
        FAILED(&f, MCP_ERR_PROTOCOL);
        SAYS(&f, "authorization_servers");
        fx_free(&f);
    }
}

/* ---- authorization server metadata --------------------------------------------------------- */

static void asm_walk(const char *issuer, const char *const *urls, size_t n)
{
    char prm[512];
    size_t k;
    fx f;
    fx_init(&f);
    snprintf(prm, sizeof prm, "{\"resource\":\"" SERVER "\",\"authorization_servers\":[\"%s\"]}", issuer);
    CHECK(fx_start_at(&f, SERVER, REDIR));
    chal(&f, 401, "Bearer");
    CHECK(ans(&f, 200, prm) == MCP__AD_FETCH);
    for (k = 0; k < n; k++) {
        CHECKF(is_get(&f, urls[k]), "step %lu: want %s, got %s", (unsigned long)k, urls[k], f.x.url ? f.x.url : "-");
        CHECK(has_header(&f, "MCP-Protocol-Version: " VERSION));
        ans(&f, k % 2 ? 404 : 400, "");             /* any 4xx moves on */
    }
    FAILED(&f, MCP_ERR_AUTH);
    SAYS(&f, "publishes no metadata");
    CLEAN(&f);
    fx_free(&f);
}

TEST_CASE(asm_order_issuer_with_path)
{
    static const char *const urls[] = {
        "https://auth.example.com/.well-known/oauth-authorization-server/tenant1",
        "https://auth.example.com/.well-known/openid-configuration/tenant1",
        "https://auth.example.com/tenant1/.well-known/openid-configuration" };
    asm_walk("https://auth.example.com/tenant1", urls, 3);
}

TEST_CASE(asm_order_issuer_without_path)
{
    static const char *const urls[] = {
        "https://auth.example.com/.well-known/oauth-authorization-server",
        "https://auth.example.com/.well-known/openid-configuration" };
    asm_walk(ISSUER, urls, 2);
}

TEST_CASE(asm_openid_found_second)
{
    char doc[1024];
    fx f;
    fx_init(&f);
    f.cl[0].client_id = "cid-pre"; f.d.clients = f.cl; f.d.nclients = 1;
    CHECK(fx_start_at(&f, SERVER, REDIR));
    chal(&f, 401, "Bearer");
    ans(&f, 200, "{\"resource\":\"" SERVER "\",\"authorization_servers\":[\"https://auth.example.com/t\"]}");
    CHECK(ans(&f, 404, "") == MCP__AD_FETCH);
    CHECK(is_get(&f, "https://auth.example.com/.well-known/openid-configuration/t"));
    CHECK(ans(&f, 200, asm_doc(doc, sizeof doc, "https://auth.example.com/t", NULL)) == MCP__AD_BROWSER);
    CHECK(!strncmp(f.x.url, "https://auth.example.com/t/authorize?", 37));
    fx_free(&f);
}

TEST_CASE(asm_5xx_stops)
{
    fx f;
    fx_init(&f);
    CHECK(fx_start_at(&f, SERVER, REDIR));
    chal(&f, 401, "Bearer");
    ans(&f, 200, PRM_OK);
    CHECK(ans(&f, 500, "") == MCP__AD_FAILED);
    FAILED(&f, MCP_ERR_HTTP);
    SAYS(&f, "500");
    fx_free(&f);
}

TEST_CASE(asm_issuer_must_match_exactly)
{
    static const char *const other[] = { "https://auth.example.com/", "https://AUTH.example.com",
                                         "https://auth.example.com/t", "https://evil.example.com" };
    char doc[1024];
    size_t k;
    fx f;
    for (k = 0; k < sizeof other / sizeof *other; k++) {
        fx_init(&f);
        f.cl[0].client_id = "cid-pre"; f.d.clients = f.cl; f.d.nclients = 1;
        CHECK(fx_start_at(&f, SERVER, REDIR));
        chal(&f, 401, "Bearer");
        ans(&f, 200, PRM_OK);
        CHECKF(ans(&f, 200, asm_doc(doc, sizeof doc, other[k], NULL)) == MCP__AD_FAILED, "issuer %s", other[k]);
        FAILED(&f, MCP_ERR_AUTH);
        SAYS(&f, "issuer");
        CHECK(f.a.authz_ep == NULL);
        fx_free(&f);
    }
    fx_init(&f);                                    /* no issuer at all */
    CHECK(fx_start_at(&f, SERVER, REDIR));
    chal(&f, 401, "Bearer");
    ans(&f, 200, PRM_OK);
    CHECK(ans(&f, 200, "{\"authorization_endpoint\":\"" ISSUER "/a\",\"token_endpoint\":\"" ISSUER "/t\","
                       "\"code_challenge_methods_supported\":[\"S256\"]}") == MCP__AD_FAILED);
    FAILED(&f, MCP_ERR_AUTH);
    fx_free(&f);
}

TEST_CASE(asm_s256_required_for_code)
{
    static const char *const ccm[] = { "", ",\"code_challenge_methods_supported\":[\"plain\"]",
                                       ",\"code_challenge_methods_supported\":\"S256\"",
                                       ",\"code_challenge_methods_supported\":[]" };
    char doc[1024];
    size_t k;
    fx f;
    for (k = 0; k < sizeof ccm / sizeof *ccm; k++) {
        fx_init(&f);
        f.cl[0].client_id = "cid-pre"; f.d.clients = f.cl; f.d.nclients = 1;
        CHECK(fx_start_at(&f, SERVER, REDIR));
        chal(&f, 401, "Bearer");
        ans(&f, 200, PRM_OK);
        snprintf(doc, sizeof doc, "{\"issuer\":\"" ISSUER "\",\"authorization_endpoint\":\"" ISSUER "/authorize\","
                 "\"token_endpoint\":\"" ISSUER "/token\"%s}", ccm[k]);
        CHECKF(ans(&f, 200, doc) == MCP__AD_FAILED, "%s", doc);
        FAILED(&f, MCP_ERR_AUTH);
        SAYS(&f, "S256");
        fx_free(&f);
    }
    /* client_credentials uses no PKCE: no S256 is fine */
    fx_init(&f);
    f.d.grant = MCP_AUTH_CLIENT_CREDENTIALS;
    f.cl[0].client_id = "cid-m2m"; f.cl[0].client_secret = SECRET; f.d.clients = f.cl; f.d.nclients = 1;
    CHECK(fx_start_at(&f, SERVER, REDIR));
    chal(&f, 401, "Bearer");
    ans(&f, 200, PRM_OK);
    CHECK(ans(&f, 200, "{\"issuer\":\"" ISSUER "\",\"token_endpoint\":\"" ISSUER "/token\"}") == MCP__AD_FETCH);
    CHECK(streq(f.x.url, ISSUER "/token") && !strcmp(f.x.method, "POST"));
    fx_free(&f);
}

TEST_CASE(asm_without_endpoints)
{
    fx f;
    fx_init(&f);
    f.cl[0].client_id = "cid-pre"; f.d.clients = f.cl; f.d.nclients = 1;
    CHECK(fx_start_at(&f, SERVER, REDIR));
    chal(&f, 401, "Bearer");
    ans(&f, 200, PRM_OK);
    CHECK(ans(&f, 200, "{\"issuer\":\"" ISSUER "\",\"token_endpoint\":\"" ISSUER "/token\","
                       "\"code_challenge_methods_supported\":[\"S256\"]}") == MCP__AD_FAILED);
    FAILED(&f, MCP_ERR_PROTOCOL);
    SAYS(&f, "authorization_endpoint");
    fx_free(&f);
}

TEST_CASE(legacy_2025_03_26_metadata_at_origin)
{
    fx f;
    fx_init(&f);
    f.cl[0].client_id = "cid-pre"; f.d.clients = f.cl; f.d.nclients = 1;
    CHECK(fx_start_at(&f, SERVER, REDIR));
    chal(&f, 401, "Bearer");
    ans(&f, 404, "");
    CHECK(ans(&f, 404, "") == MCP__AD_FETCH);
    CHECK(is_get(&f, "https://mcp.example.com/.well-known/oauth-authorization-server"));
    CHECK(ans(&f, 200, "{\"issuer\":\"https://mcp.example.com\",\"authorization_endpoint\":\"https://login.example.com/a\","
                       "\"token_endpoint\":\"https://login.example.com/t\",\"code_challenge_methods_supported\":[\"S256\"]}")
          == MCP__AD_BROWSER);
    CHECK(!strncmp(f.x.url, "https://login.example.com/a?", 28));
    CHECK(streq(param(f.x.url, "resource"), SERVER));
    fx_free(&f);
}

TEST_CASE(legacy_2025_03_26_default_endpoints)
{
    fx f;
    fx_init(&f);
    CHECK(fx_start_at(&f, SERVER, REDIR));
    chal(&f, 401, "Bearer");
    ans(&f, 404, "");
    ans(&f, 404, "");
    CHECK(ans(&f, 404, "") == MCP__AD_FETCH);        /* no metadata: the default /register */
    CHECK(streq(f.x.url, "https://mcp.example.com/register") && !strcmp(f.x.method, "POST"));
    CHECK(ans(&f, 201, "{\"client_id\":\"cid-legacy\"}") == MCP__AD_BROWSER);
    CHECK(!strncmp(f.x.url, "https://mcp.example.com/authorize?", 34));
    CHECK(streq(param(f.x.url, "code_challenge_method"), "S256"));
    {
        char q[256];
        snprintf(q, sizeof q, "code=%s&state=%s", CODE, param(f.x.url, "state"));
        CHECK(redirect(&f, q) == MCP__AD_FETCH);     /* the issuer: the MCP server's origin */
    }
    CHECK(streq(f.x.url, "https://mcp.example.com/token"));
    CHECK(streq(bparam(&f, "client_id"), "cid-legacy"));
    fx_free(&f);
}

/* ---- client identity --------------------------------------------------------------------- */

TEST_CASE(client_pre_registered)
{
    fx f;
    int k;
    for (k = 0; k < 2; k++) {                        /* for this issuer; for whichever (NULL) */
        fx_init(&f);
        f.cl[0].issuer = "https://other.example.com"; f.cl[0].client_id = "cid-other";
        f.cl[1].issuer = k ? NULL : ISSUER; f.cl[1].client_id = "cid-pre";
        f.d.clients = f.cl; f.d.nclients = 2;
        CHECK(to_client(&f, NULL, NULL) == MCP__AD_BROWSER);   /* no registration */
        CHECK(streq(param(f.x.url, "client_id"), "cid-pre"));
        CHECK(f.s.saves == 1 && f.s.n == 1 && st_get(&f.s, "mcp-auth flow " SERVER));   /* the flow only */
        fx_free(&f);
    }
    /* only for another issuer: not used, registration instead */
    fx_init(&f);
    f.cl[0].issuer = "https://other.example.com"; f.cl[0].client_id = "cid-other"; f.cl[0].client_secret = SECRET;
    f.d.clients = f.cl; f.d.nclients = 1;
    CHECK(to_client(&f, NULL, NULL) == MCP__AD_FETCH);
    CHECK(streq(f.x.url, ISSUER "/register"));
    CHECK(!has_mem(f.x.body, f.x.body_len, "cid-other") && !has_mem(f.x.body, f.x.body_len, SECRET));
    fx_free(&f);
}

TEST_CASE(client_id_metadata_document)
{
    fx f;
    fx_init(&f);
    f.d.client_id_metadata_url = "https://app.example.com/client.json";
    CHECK(to_client(&f, NULL, ",\"client_id_metadata_document_supported\":true") == MCP__AD_BROWSER);
    CHECK(streq(param(f.x.url, "client_id"), "https://app.example.com/client.json"));
    fx_free(&f);
    /* not advertised: registration */
    fx_init(&f);
    f.d.client_id_metadata_url = "https://app.example.com/client.json";
    CHECK(to_client(&f, NULL, ",\"client_id_metadata_document_supported\":false") == MCP__AD_FETCH);
    CHECK(streq(f.x.url, ISSUER "/register"));
    fx_free(&f);
    /* pre-registered credentials come first */
    fx_init(&f);
    f.d.client_id_metadata_url = "https://app.example.com/client.json";
    f.cl[0].client_id = "cid-pre"; f.d.clients = f.cl; f.d.nclients = 1;
    CHECK(to_client(&f, NULL, ",\"client_id_metadata_document_supported\":true") == MCP__AD_BROWSER);
    CHECK(streq(param(f.x.url, "client_id"), "cid-pre"));
    fx_free(&f);
}

TEST_CASE(client_stored_registration_per_issuer)
{
    fx f;
    fx_init(&f);
    st_put(&f.s, "mcp-auth client " ISSUER, "{\"client_id\":\"cid-stored\",\"method\":\"none\"}");
    CHECK(to_client(&f, NULL, NULL) == MCP__AD_BROWSER);
    CHECK(streq(param(f.x.url, "client_id"), "cid-stored"));
    fx_free(&f);
    /* a registration with another issuer is never used here */
    fx_init(&f);
    st_put(&f.s, "mcp-auth client https://other.example.com", "{\"client_id\":\"cid-other\",\"client_secret\":\"" SECRET "\"}");
    CHECK(to_client(&f, NULL, NULL) == MCP__AD_FETCH);
    CHECK(streq(f.x.url, ISSUER "/register"));
    CHECK(!has_mem(f.x.body, f.x.body_len, "cid-other"));
    CHECK(ans(&f, 201, "{\"client_id\":\"cid-new\"}") == MCP__AD_BROWSER);
    CHECK(streq(param(f.x.url, "client_id"), "cid-new"));
    CHECK(strstr(st_get(&f.s, "mcp-auth client https://other.example.com"), "cid-other") != NULL);
    fx_free(&f);
}

TEST_CASE(client_dynamic_registration)
{
    mcp_json_doc *doc;
    const mcp_json *r, *g;
    size_t i;
    int code = 0, refresh = 0;
    fx f;
    fx_init(&f);
    f.d.client_name = "Test App";
    CHECK(to_client(&f, NULL, NULL) == MCP__AD_FETCH);
    CHECK(streq(f.x.url, ISSUER "/register") && !strcmp(f.x.method, "POST"));
    CHECK(has_header(&f, "Content-Type: application/json"));
    CHECK(!header_of(&f, "MCP-Protocol-Version"));  /* only on discovery */
    doc = mcp_json_parse(f.x.body, f.x.body_len, NULL);
    CHECK(doc != NULL);
    r = mcp_json_root(doc);
    CHECK(streq(mcp_json_str(mcp_json_get(r, "client_name")), "Test App"));
    CHECK(mcp_json_len(mcp_json_get(r, "redirect_uris")) == 1 &&
          streq(mcp_json_str(mcp_json_at(mcp_json_get(r, "redirect_uris"), 0)), REDIR));
    CHECK(streq(mcp_json_str(mcp_json_get(r, "application_type")), "native"));
    CHECK(streq(mcp_json_str(mcp_json_get(r, "token_endpoint_auth_method")), "none"));
    g = mcp_json_get(r, "grant_types");
    for (i = 0; i < mcp_json_len(g); i++) {
        code += streq(mcp_json_str(mcp_json_at(g, i)), "authorization_code");
        refresh += streq(mcp_json_str(mcp_json_at(g, i)), "refresh_token");
    }
    CHECK(code == 1 && refresh == 1);
    CHECK(streq(mcp_json_str(mcp_json_at(mcp_json_get(r, "response_types"), 0)), "code"));
    mcp_json_free(doc);
    CHECK(ans(&f, 201, "{\"client_id\":\"cid-reg\",\"client_secret\":\"" SECRET "\"}") == MCP__AD_BROWSER);
    CHECK(streq(param(f.x.url, "client_id"), "cid-reg"));
    fx_free(&f);
    /* a redirect URI that is not the loopback: a web application */
    fx_init(&f);
    f.d.redirect_uri = "https://app.example.com/cb";
    CHECK(fx_start_at(&f, SERVER, "https://app.example.com/cb"));
    chal(&f, 401, "Bearer");
    ans(&f, 200, PRM_OK);
    {
        char d2[1024];
        CHECK(ans(&f, 200, asm_doc(d2, sizeof d2, ISSUER, NULL)) == MCP__AD_FETCH);
    }
    CHECK(has_mem(f.x.body, f.x.body_len, "\"application_type\":\"web\""));
    CHECK(has_mem(f.x.body, f.x.body_len, "https://app.example.com/cb"));
    fx_free(&f);
}

TEST_CASE(client_registration_refused)
{
    static const char reason[] = "{\"error\":\"invalid_redirect_uri\"}";
    fx f;
    fx_init(&f);
    CHECK(to_client(&f, NULL, NULL) == MCP__AD_FETCH);
    /* exactly these bytes, no NUL after them: the sentence quotes no more (ASan) */
    CHECK(ans_n(&f, 400, "application/json", reason, sizeof reason - 1) == MCP__AD_FAILED);
    FAILED(&f, MCP_ERR_AUTH);
    SAYS(&f, "400: {\"error\":\"invalid_redirect_uri\"}");
    CHECK(strlen(strstr(f.a.err.message, "400: ")) == 5 + sizeof reason - 1);
    CLEAN(&f);
    fx_free(&f);
}

TEST_CASE(client_registration_without_client_id)
{
    fx f;
    /* an answer without a client_id */
    fx_init(&f);
    CHECK(to_client(&f, NULL, NULL) == MCP__AD_FETCH);
    CHECK(ans(&f, 201, "{\"client_secret\":\"" SECRET "\"}") == MCP__AD_FAILED);
    FAILED(&f, MCP_ERR_PROTOCOL);
    SAYS(&f, "client_id");
    CLEAN(&f);
    fx_free(&f);
}

TEST_CASE(client_none_available)
{
    char doc[1024];
    fx f;
    int k;
    for (k = 0; k < 2; k++) {
        fx_init(&f);
        if (k) f.d.client_id_metadata_url = "https://app.example.com/client.json";
        CHECK(fx_start_at(&f, SERVER, REDIR));
        chal(&f, 401, "Bearer");
        ans(&f, 200, PRM_OK);
        snprintf(doc, sizeof doc, "{\"issuer\":\"" ISSUER "\",\"authorization_endpoint\":\"" ISSUER "/a\","
                 "\"token_endpoint\":\"" ISSUER "/t\",\"code_challenge_methods_supported\":[\"S256\"]}");
        CHECK(ans(&f, 200, doc) == MCP__AD_FAILED);
        FAILED(&f, MCP_ERR_AUTH);
        SAYS(&f, "desc.auth->clients");
        SAYS(&f, k ? "takes no client ID metadata document" : "client ID metadata document URL");
        SAYS(&f, ISSUER);
        fx_free(&f);
    }
}

/* ---- the authorization URL ---------------------------------------------------------------- */

TEST_CASE(authorization_url_parameters)
{
    unsigned char h[32];
    char want[64], raw[4096];
    const char *u, *verifier, *q;
    fx f;
    fx_init(&f);
    CHECK(to_browser(&f, NULL, NULL) == MCP__AD_BROWSER);
    u = f.x.url;
    CHECK(!strncmp(u, ISSUER "/authorize?", strlen(ISSUER "/authorize?")));
    CHECK(streq(param(u, "response_type"), "code"));
    CHECK(streq(param(u, "client_id"), "cid-pre"));
    CHECK(streq(param(u, "redirect_uri"), REDIR));
    CHECK(streq(param(u, "code_challenge_method"), "S256"));
    CHECK(streq(param(u, "resource"), SERVER));
    CHECK(streq(param(u, "scope"), "read write"));
    CHECK(param(u, "state") && strlen(param(u, "state")) >= 16);
    /* form encoding, as written */
    snprintf(raw, sizeof raw, "%s", u);
    q = strchr(raw, '?') + 1;
    CHECK(strstr(q, "redirect_uri=http%3A%2F%2F127.0.0.1%3A5555%2Fcallback") != NULL);
    CHECK(strstr(q, "resource=https%3A%2F%2Fmcp.example.com%2Fmcp") != NULL);
    CHECK(strstr(q, "scope=read%20write") != NULL);
    CHECK(!strchr(q, ' ') && !strchr(q, '#'));
    snprintf(raw, sizeof raw, "%s", param(u, "code_challenge"));
    /* the verifier the token request carries is the one the challenge was made from */
    CHECK(come_back(&f) == MCP__AD_FETCH);
    verifier = bparam(&f, "code_verifier");
    CHECK(verifier && strlen(verifier) >= 43 && strlen(verifier) <= 128);
    if (verifier) {
        mcp_sha256(verifier, strlen(verifier), h);
        mcp_base64url(h, sizeof h, want, sizeof want);
        CHECKF(!strcmp(raw, want), "code_challenge %s, base64url(sha256(verifier)) %s", raw, want);
    }
    fx_free(&f);
}

TEST_CASE(authorization_url_fresh_each_time)
{
    char st1[64], ch1[64];
    fx f;
    fx_init(&f);
    CHECK(to_browser(&f, NULL, NULL) == MCP__AD_BROWSER);
    snprintf(st1, sizeof st1, "%s", param(f.x.url, "state"));
    snprintf(ch1, sizeof ch1, "%s", param(f.x.url, "code_challenge"));
    CHECK(to_browser(&f, NULL, NULL) == MCP__AD_BROWSER);
    CHECK(strcmp(st1, param(f.x.url, "state")) && strcmp(ch1, param(f.x.url, "code_challenge")));
    fx_free(&f);
}

TEST_CASE(authorization_url_endpoint_with_query)
{
    fx f;
    fx_init(&f);
    f.cl[0].client_id = "cid pre&x"; f.d.clients = f.cl; f.d.nclients = 1;
    CHECK(fx_start_at(&f, SERVER, REDIR));
    chal(&f, 401, "Bearer");
    ans(&f, 200, PRM_OK);
    CHECK(ans(&f, 200, "{\"issuer\":\"" ISSUER "\",\"authorization_endpoint\":\"" ISSUER "/authorize?tenant=a\","
                       "\"token_endpoint\":\"" ISSUER "/token\",\"code_challenge_methods_supported\":[\"S256\"]}")
          == MCP__AD_BROWSER);
    CHECK(!strncmp(f.x.url, ISSUER "/authorize?tenant=a&response_type=code&", strlen(ISSUER "/authorize?tenant=a&response_type=code&")));
    CHECK(strstr(f.x.url, "client_id=cid%20pre%26x&") != NULL);
    CHECK(streq(param(f.x.url, "client_id"), "cid pre&x"));
    fx_free(&f);
}

TEST_CASE(scope_selection)
{
    fx f;
    /* the challenge's scope wins over scopes_supported */
    fx_init(&f);
    f.cl[0].client_id = "cid-pre"; f.d.clients = f.cl; f.d.nclients = 1;
    CHECK(fx_start_at(&f, SERVER, REDIR));
    chal(&f, 401, "Bearer scope=\"files:read files:write\"");
    ans(&f, 200, PRM_OK);
    {
        char doc[1024];
        CHECK(ans(&f, 200, asm_doc(doc, sizeof doc, ISSUER, NULL)) == MCP__AD_BROWSER);
    }
    CHECK(streq(param(f.x.url, "scope"), "files:read files:write"));
    fx_free(&f);
    /* else scopes_supported of the resource */
    fx_init(&f);
    CHECK(to_browser(&f, NULL, ",\"scopes_supported\":[\"as-only\"]") == MCP__AD_BROWSER);
    CHECK(streq(param(f.x.url, "scope"), "read write"));
    fx_free(&f);
    /* else none */
    fx_init(&f);
    CHECK(to_browser(&f, "{\"resource\":\"" SERVER "\",\"authorization_servers\":[\"" ISSUER "\"]}", NULL) == MCP__AD_BROWSER);
    CHECK(param(f.x.url, "scope") == NULL);
    fx_free(&f);
    /* the program's own scopes are added */
    fx_init(&f);
    f.d.scope = "extra read";
    CHECK(to_browser(&f, NULL, NULL) == MCP__AD_BROWSER);
    CHECK(streq(param(f.x.url, "scope"), "read write extra"));
    fx_free(&f);
}

TEST_CASE(scope_offline_access)
{
    static const char adv[] = ",\"scopes_supported\":[\"openid\",\"offline_access\"]";
    fx f;
    /* advertised and wanted */
    fx_init(&f);
    f.d.offline_access = 1;
    CHECK(to_browser(&f, NULL, adv) == MCP__AD_BROWSER);
    CHECK(streq(param(f.x.url, "scope"), "read write offline_access"));
    fx_free(&f);
    /* wanted, not advertised */
    fx_init(&f);
    f.d.offline_access = 1;
    CHECK(to_browser(&f, NULL, ",\"scopes_supported\":[\"openid\"]") == MCP__AD_BROWSER);
    CHECK(streq(param(f.x.url, "scope"), "read write"));
    fx_free(&f);
    /* advertised, not wanted */
    fx_init(&f);
    CHECK(to_browser(&f, NULL, adv) == MCP__AD_BROWSER);
    CHECK(streq(param(f.x.url, "scope"), "read write"));
    fx_free(&f);
    /* the only scope asked */
    fx_init(&f);
    f.d.offline_access = 1;
    CHECK(to_browser(&f, "{\"resource\":\"" SERVER "\",\"authorization_servers\":[\"" ISSUER "\"]}", adv) == MCP__AD_BROWSER);
    CHECK(streq(param(f.x.url, "scope"), "offline_access"));
    fx_free(&f);
}

/* ---- the redirect -------------------------------------------------------------------------- */

static void redirect_case(const char *extra, const char *q_fmt, int want_ok, const char *says)
{
    char q[1024], state[64];
    fx f;
    fx_init(&f);
    CHECK(to_browser(&f, NULL, extra) == MCP__AD_BROWSER);
    snprintf(state, sizeof state, "%s", param(f.x.url, "state"));
    snprintf(q, sizeof q, q_fmt, state);
    if (want_ok) {
        CHECKF(redirect(&f, q) == MCP__AD_FETCH && streq(bparam(&f, "code"), CODE), "%s: %s", q, f.a.err.message);
    } else {
        CHECKF(redirect(&f, q) == MCP__AD_FAILED, "%s", q);
        FAILED(&f, MCP_ERR_AUTH);
        if (says) SAYS(&f, says);
        CLEAN(&f);
        CHECK(f.a.access == NULL);
    }
    fx_free(&f);
}

#define ISS_ON ",\"authorization_response_iss_parameter_supported\":true"
#define ISS_Q "iss=https%%3A%%2F%%2Fauth.example.com"   /* in a format */

TEST_CASE(redirect_state)
{
    redirect_case(NULL, "code=" CODE "&state=%s", 1, NULL);
    redirect_case(NULL, "code=" CODE "&state=%sX", 0, "wrong state");
    redirect_case(NULL, "code=" CODE "&state=", 0, "wrong state");
    redirect_case(NULL, "code=" CODE "&x=%s", 0, "no state");
    redirect_case(NULL, "code=" CODE "&state=%s&state=x", 0, "malformed");
    redirect_case(NULL, "http://127.0.0.1:5555/callback?code=" CODE "&state=%s#frag", 1, NULL);
    redirect_case(NULL, "/callback?state=%s&code=" CODE, 1, NULL);
}

TEST_CASE(redirect_iss_rfc9207)
{
    /* advertised, present: compared exactly */
    redirect_case(ISS_ON, "code=" CODE "&state=%s&" ISS_Q, 1, NULL);
    redirect_case(ISS_ON, "code=" CODE "&state=%s&" ISS_Q "%%2F", 0, "another issuer");
    redirect_case(ISS_ON, "code=" CODE "&state=%s&iss=https%%3A%%2F%%2Fevil.example.com", 0, "another issuer");
    /* advertised, absent: rejected */
    redirect_case(ISS_ON, "code=" CODE "&state=%s", 0, "lacks the iss");
    /* not advertised, present: compared */
    redirect_case(NULL, "code=" CODE "&state=%s&" ISS_Q, 1, NULL);
    redirect_case(NULL, "code=" CODE "&state=%s&iss=https%%3A%%2F%%2Fevil.example.com", 0, "another issuer");
    /* not advertised, absent: on */
    redirect_case(",\"authorization_response_iss_parameter_supported\":false", "code=" CODE "&state=%s", 1, NULL);
}

TEST_CASE(redirect_error)
{
    /* iss checks pass: the error and its description are told */
    redirect_case(ISS_ON, "error=access_denied&error_description=The%%20user%%20said%%20no&state=%s&" ISS_Q, 0,
                  "access_denied: The user said no");
    redirect_case(NULL, "error=access_denied&state=%s", 0, "refused: access_denied.");
    /* iss checks fail: the description is not believed */
    {
        char q[512], state[64];
        fx f;
        fx_init(&f);
        CHECK(to_browser(&f, NULL, ISS_ON) == MCP__AD_BROWSER);
        snprintf(state, sizeof state, "%s", param(f.x.url, "state"));
        snprintf(q, sizeof q, "error=access_denied&error_description=Visit%%20evil.example&state=%s", state);
        CHECK(redirect(&f, q) == MCP__AD_FAILED);
        FAILED(&f, MCP_ERR_AUTH);
        CHECK(!strstr(f.a.err.message, "evil") && !strstr(f.a.err.message, "access_denied"));
        fx_free(&f);
    }
    /* state wrong: nor here */
    redirect_case(NULL, "error=access_denied&error_description=Visit%%20evil.example&state=%sZ", 0, "wrong state");
}

TEST_CASE(redirect_missing_code_malformed)
{
    redirect_case(NULL, "state=%s", 0, "no authorization code");
    redirect_case(NULL, "code=&state=%s", 0, "no authorization code");
    redirect_case(NULL, "code=" CODE "%%ZZ&state=%s", 0, "malformed");
    redirect_case(NULL, "code=" CODE "%%00&state=%s", 0, "malformed");
    redirect_case(NULL, "code=" CODE "&code=x&state=%s", 0, "malformed");
    redirect_case(NULL, "", 0, "no state");
}

TEST_CASE(redirect_only_when_waiting)
{
    fx f;
    fx_init(&f);
    CHECK(fx_start_at(&f, SERVER, REDIR));
    chal(&f, 401, "Bearer");
    CHECK(redirect(&f, "code=x&state=y") == MCP__AD_FETCH);   /* ignored: no browser out */
    CHECK(is_get(&f, "https://mcp.example.com/.well-known/oauth-protected-resource/mcp"));
    fx_free(&f);
}

/* ---- the token request -------------------------------------------------------------------- */

TEST_CASE(token_method_none)
{
    fx f;
    fx_init(&f);
    CHECK(to_browser(&f, NULL, ",\"token_endpoint_auth_methods_supported\":[\"none\"]") == MCP__AD_BROWSER);
    CHECK(come_back(&f) == MCP__AD_FETCH);
    CHECK(streq(f.x.url, ISSUER "/token") && !strcmp(f.x.method, "POST"));
    CHECK(has_header(&f, "Content-Type: application/x-www-form-urlencoded"));
    CHECK(!header_of(&f, "Authorization:"));
    CHECK(!header_of(&f, "MCP-Protocol-Version"));
    CHECK(streq(bparam(&f, "grant_type"), "authorization_code"));
    CHECK(streq(bparam(&f, "code"), CODE));
    CHECK(streq(bparam(&f, "redirect_uri"), REDIR));
    CHECK(streq(bparam(&f, "client_id"), "cid-pre"));
    CHECK(streq(bparam(&f, "resource"), SERVER));
    CHECK(bparam(&f, "client_secret") == NULL && bparam(&f, "client_assertion") == NULL);
    CHECK(ans(&f, 200, TOKEN_OK) == MCP__AD_DONE);
    CHECK(streq(f.a.access, "at-S3CRET-1") && streq(f.a.refresh, "rt-S3CRET-1"));
    fx_free(&f);
}

TEST_CASE(token_method_client_secret_basic)
{
    char dec[256];
    const char *h;
    fx f;
    fx_init(&f);
    f.cl[0].issuer = ISSUER; f.cl[0].client_id = "cid:pre"; f.cl[0].client_secret = SECRET " &+=";
    f.d.clients = f.cl; f.d.nclients = 1;
    CHECK(to_browser(&f, NULL, NULL) == MCP__AD_BROWSER);   /* the methods not listed: basic */
    CHECK(come_back(&f) == MCP__AD_FETCH);
    h = header_of(&f, "Authorization: Basic ");
    CHECK(h != NULL);
    if (h) {
        CHECK(b64dec(h, strlen(h), dec, sizeof dec) > 0);
        CHECKF(!strcmp(dec, "cid%3Apre:" SECRET "%20%26%2B%3D"), "decoded: %s", dec);
        CHECK(strlen(h) % 4 == 0 && !strchr(h, '-') && !strchr(h, '_'));
    }
    CHECK(bparam(&f, "client_id") == NULL && bparam(&f, "client_secret") == NULL);
    CHECK(!has_mem(f.x.body, f.x.body_len, "s3cr"));
    fx_free(&f);
}

TEST_CASE(token_method_client_secret_post)
{
    fx f;
    int k;
    for (k = 0; k < 2; k++) {                        /* chosen by the program; picked from the list */
        fx_init(&f);
        f.cl[0].issuer = ISSUER; f.cl[0].client_id = "cid-pre"; f.cl[0].client_secret = SECRET;
        f.cl[0].auth_method = k ? NULL : "client_secret_post";
        f.d.clients = f.cl; f.d.nclients = 1;
        CHECK(to_browser(&f, NULL, ",\"token_endpoint_auth_methods_supported\":[\"client_secret_post\"]") == MCP__AD_BROWSER);
        CHECK(come_back(&f) == MCP__AD_FETCH);
        CHECK(!header_of(&f, "Authorization:"));
        CHECK(streq(bparam(&f, "client_id"), "cid-pre"));
        CHECK(streq(bparam(&f, "client_secret"), SECRET));
        fx_free(&f);
    }
}

TEST_CASE(token_method_private_key_jwt)
{
    char part[3][512], dec[512];
    const char *as, *p, *dot;
    mcp_json_doc *doc;
    const mcp_json *r;
    int64_t iat = 0, exp = 0;
    int n;
    fx f;
    fx_init(&f);
    f.cl[0].issuer = ISSUER; f.cl[0].client_id = "cid-jwt"; f.cl[0].auth_method = "private_key_jwt";
    f.d.clients = f.cl; f.d.nclients = 1;
    f.d.sign = fixed_sign; f.d.sign_alg = "ES256";
    CHECK(to_browser(&f, NULL, ",\"token_endpoint_auth_methods_supported\":[\"private_key_jwt\"]") == MCP__AD_BROWSER);
    CHECK(come_back(&f) == MCP__AD_FETCH);
    CHECK(streq(bparam(&f, "client_assertion_type"), "urn:ietf:params:oauth:client-assertion-type:jwt-bearer"));
    CHECK(streq(bparam(&f, "client_id"), "cid-jwt"));
    as = bparam(&f, "client_assertion");
    CHECK(as != NULL);
    if (!as) { fx_free(&f); return; }
    for (n = 0, p = as; n < 3; n++) {
        dot = strchr(p, '.');
        snprintf(part[n], sizeof part[n], "%.*s", (int)(dot ? (size_t)(dot - p) : strlen(p)), p);
        if (!dot) { n++; break; }
        p = dot + 1;
    }
    CHECK(n == 3 && !strchr(p, '.'));
    /* header */
    CHECK(b64dec(part[0], strlen(part[0]), dec, sizeof dec) > 0);
    doc = mcp_json_parse(dec, strlen(dec), NULL);
    CHECK(doc && streq(mcp_json_str(mcp_json_get(mcp_json_root(doc), "alg")), "ES256"));
    CHECK(doc && streq(mcp_json_str(mcp_json_get(mcp_json_root(doc), "typ")), "JWT"));
    mcp_json_free(doc);
    /* claims */
    CHECK(b64dec(part[1], strlen(part[1]), dec, sizeof dec) > 0);
    doc = mcp_json_parse(dec, strlen(dec), NULL);
    CHECK(doc != NULL);
    r = mcp_json_root(doc);
    CHECK(streq(mcp_json_str(mcp_json_get(r, "iss")), "cid-jwt"));
    CHECK(streq(mcp_json_str(mcp_json_get(r, "sub")), "cid-jwt"));
    CHECK(streq(mcp_json_str(mcp_json_get(r, "aud")), ISSUER));
    CHECK(mcp_json_str(mcp_json_get(r, "jti")) && strlen(mcp_json_str(mcp_json_get(r, "jti"))) >= 16);
    CHECK(mcp_json_int64(mcp_json_get(r, "iat"), &iat) && mcp_json_int64(mcp_json_get(r, "exp"), &exp));
    CHECK(exp > iat && iat > 0 && iat <= (int64_t)time(NULL) && exp <= (int64_t)time(NULL) + 3600);
    mcp_json_free(doc);
    /* the signature is the callback's, over header.claims */
    CHECK(b64dec(part[2], strlen(part[2]), dec, sizeof dec) == (int)strlen(SIG) && !strcmp(dec, SIG));
    snprintf(dec, sizeof dec, "%s.%s", part[0], part[1]);
    CHECK(!strcmp(signed_input, dec));
    fx_free(&f);
}

TEST_CASE(token_method_private_key_jwt_without_signer)
{
    fx f;
    fx_init(&f);
    f.cl[0].issuer = ISSUER; f.cl[0].client_id = "cid-jwt"; f.cl[0].auth_method = "private_key_jwt";
    f.d.clients = f.cl; f.d.nclients = 1;
    CHECK(to_browser(&f, NULL, NULL) == MCP__AD_BROWSER);
    CHECK(come_back(&f) == MCP__AD_FAILED);
    FAILED(&f, MCP_ERR_AUTH);
    SAYS(&f, "desc.auth->sign");
    CLEAN(&f);
    fx_free(&f);
}

TEST_CASE(token_client_credentials)
{
    char doc[1024];
    const char *h;
    char dec[128];
    fx f;
    fx_init(&f);
    f.d.grant = MCP_AUTH_CLIENT_CREDENTIALS;
    f.cl[0].issuer = ISSUER; f.cl[0].client_id = "cid-m2m"; f.cl[0].client_secret = SECRET;
    f.d.clients = f.cl; f.d.nclients = 1;
    CHECK(fx_start_at(&f, SERVER, NULL));
    chal(&f, 401, "Bearer scope=\"jobs\"");
    ans(&f, 200, PRM_OK);
    CHECK(ans(&f, 200, asm_doc(doc, sizeof doc, ISSUER, NULL)) == MCP__AD_FETCH);   /* no browser */
    CHECK(streq(f.x.url, ISSUER "/token"));
    CHECK(streq(bparam(&f, "grant_type"), "client_credentials"));
    CHECK(streq(bparam(&f, "scope"), "jobs"));
    CHECK(streq(bparam(&f, "resource"), SERVER));
    CHECK(bparam(&f, "code") == NULL && bparam(&f, "redirect_uri") == NULL);
    h = header_of(&f, "Authorization: Basic ");
    CHECK(h && b64dec(h, strlen(h), dec, sizeof dec) > 0 && !strcmp(dec, "cid-m2m:" SECRET));
    CHECK(ans(&f, 200, "{\"access_token\":\"at-S3CRET-m2m\",\"token_type\":\"bearer\"}") == MCP__AD_DONE);
    CHECK(streq(f.a.access, "at-S3CRET-m2m") && f.a.refresh == NULL && f.a.expires == 0);
    fx_free(&f);
    /* without credentials: a sentence saying what to provide */
    fx_init(&f);
    f.d.grant = MCP_AUTH_CLIENT_CREDENTIALS;
    f.d.client_id_metadata_url = "https://app.example.com/client.json";
    CHECK(fx_start_at(&f, SERVER, NULL));
    chal(&f, 401, "Bearer");
    ans(&f, 200, PRM_OK);
    CHECK(ans(&f, 200, asm_doc(doc, sizeof doc, ISSUER, ",\"client_id_metadata_document_supported\":true")) == MCP__AD_FAILED);
    FAILED(&f, MCP_ERR_AUTH);
    SAYS(&f, "desc.auth->clients");
    fx_free(&f);
}

TEST_CASE(token_answer_errors)
{
    static const struct { int status; const char *body; mcp_status st; const char *says; } c[] = {
        { 200, "{\"token_type\":\"Bearer\"}", MCP_ERR_PROTOCOL, "an access_token" },
        { 200, "{\"access_token\":\"\",\"token_type\":\"Bearer\"}", MCP_ERR_PROTOCOL, "an access_token" },
        { 200, "{\"access_token\":\"at-S3CRET-9\",\"token_type\":\"mac\"}", MCP_ERR_PROTOCOL, "token_type Bearer" },
        { 200, "{\"access_token\":\"at-S3CRET-9\"}", MCP_ERR_PROTOCOL, "token_type Bearer" },
        { 400, "{\"error\":\"invalid_grant\",\"error_description\":\"The code has expired\"}", MCP_ERR_AUTH,
          "400: invalid_grant: The code has expired" },
        { 200, "{\"error\":\"invalid_client\",\"access_token\":\"at-S3CRET-9\"}", MCP_ERR_AUTH, "invalid_client." },
        { 401, "{}", MCP_ERR_AUTH, "401: (no error code)" },
    };
    size_t k;
    fx f;
    for (k = 0; k < sizeof c / sizeof *c; k++) {
        fx_init(&f);
        CHECK(to_browser(&f, NULL, NULL) == MCP__AD_BROWSER);
        CHECK(come_back(&f) == MCP__AD_FETCH);
        CHECKF(ans(&f, c[k].status, c[k].body) == MCP__AD_FAILED, "%s", c[k].body);
        FAILED(&f, c[k].st);
        SAYS(&f, c[k].says);
        CLEAN(&f);
        CHECK(f.a.access == NULL && st_get(&f.s, "mcp-auth tokens " SERVER) == NULL);
        fx_free(&f);
    }
}

TEST_CASE(token_refresh_keeps_or_rotates)
{
    const char *stored;
    fx f;
    fx_init(&f);
    CHECK(to_done(&f, NULL, NULL) == MCP__AD_DONE);
    /* a 401 with a refresh token in hand: a refresh, no discovery */
    CHECK(chal(&f, 401, "Bearer error=\"invalid_token\"") == MCP__AD_FETCH);
    CHECK(streq(f.x.url, ISSUER "/token"));
    CHECK(streq(bparam(&f, "grant_type"), "refresh_token"));
    CHECK(streq(bparam(&f, "refresh_token"), "rt-S3CRET-1"));
    CHECK(streq(bparam(&f, "resource"), SERVER));
    CHECK(streq(bparam(&f, "client_id"), "cid-pre"));
    CHECK(bparam(&f, "code") == NULL && bparam(&f, "code_verifier") == NULL);
    /* none comes: the old one stays */
    CHECK(ans(&f, 200, "{\"access_token\":\"at-S3CRET-2\",\"token_type\":\"Bearer\"}") == MCP__AD_DONE);
    CHECK(streq(f.a.access, "at-S3CRET-2") && streq(f.a.refresh, "rt-S3CRET-1"));
    stored = st_get(&f.s, "mcp-auth tokens " SERVER);
    CHECK(stored && strstr(stored, "at-S3CRET-2") && strstr(stored, "rt-S3CRET-1"));
    /* a rotated one is taken */
    CHECK(chal(&f, 401, "Bearer") == MCP__AD_FETCH);
    CHECK(streq(bparam(&f, "refresh_token"), "rt-S3CRET-1"));
    CHECK(ans(&f, 200, "{\"access_token\":\"at-S3CRET-3\",\"token_type\":\"Bearer\",\"refresh_token\":\"rt-S3CRET-2\"}")
          == MCP__AD_DONE);
    CHECK(streq(f.a.refresh, "rt-S3CRET-2"));
    stored = st_get(&f.s, "mcp-auth tokens " SERVER);
    CHECK(stored && strstr(stored, "rt-S3CRET-2") && !strstr(stored, "rt-S3CRET-1"));
    CHECK(chal(&f, 401, "Bearer") == MCP__AD_FETCH);
    CHECK(streq(bparam(&f, "refresh_token"), "rt-S3CRET-2"));
    fx_free(&f);
}

TEST_CASE(token_refresh_invalid_grant_starts_over_once)
{
    char doc[1024];
    fx f;
    fx_init(&f);
    CHECK(to_done(&f, NULL, NULL) == MCP__AD_DONE);
    CHECK(st_get(&f.s, "mcp-auth tokens " SERVER) != NULL);
    CHECK(chal(&f, 401, "Bearer") == MCP__AD_FETCH && streq(bparam(&f, "grant_type"), "refresh_token"));
    CHECK(ans(&f, 400, "{\"error\":\"invalid_grant\"}") == MCP__AD_FETCH);
    /* the stored tokens are gone, the flow begins again */
    CHECK(st_get(&f.s, "mcp-auth tokens " SERVER) == NULL && f.s.deletes == 2);   /* the flow's, then these */
    CHECK(f.a.access == NULL && f.a.refresh == NULL);
    CHECK(is_get(&f, "https://mcp.example.com/.well-known/oauth-protected-resource/mcp"));
    CHECK(ans(&f, 200, PRM_OK) == MCP__AD_FETCH);
    CHECK(ans(&f, 200, asm_doc(doc, sizeof doc, ISSUER, NULL)) == MCP__AD_BROWSER);
    CHECK(come_back(&f) == MCP__AD_FETCH);
    CHECK(ans(&f, 200, TOKEN_OK) == MCP__AD_DONE);
    /* the second invalid_grant on a refresh: over */
    CHECK(chal(&f, 401, "Bearer") == MCP__AD_FETCH && streq(bparam(&f, "grant_type"), "refresh_token"));
    CHECK(ans(&f, 400, "{\"error\":\"invalid_grant\",\"error_description\":\"revoked\"}") == MCP__AD_FAILED);
    FAILED(&f, MCP_ERR_AUTH);
    SAYS(&f, "invalid_grant: revoked");
    CLEAN(&f);
    fx_free(&f);
    /* another error on a refresh does not start over */
    fx_init(&f);
    CHECK(to_done(&f, NULL, NULL) == MCP__AD_DONE);
    chal(&f, 401, "Bearer");
    CHECK(ans(&f, 400, "{\"error\":\"invalid_client\"}") == MCP__AD_FAILED);
    FAILED(&f, MCP_ERR_AUTH);
    fx_free(&f);
}

TEST_CASE(token_expiry_due)
{
    fx f;
    fx_init(&f);
    CHECK(to_done(&f, NULL, NULL) == MCP__AD_DONE);             /* expires in an hour */
    CHECK(f.a.expires >= (int64_t)time(NULL) + 3500 && f.a.expires <= (int64_t)time(NULL) + 3600);
    CHECK(mcp__auth_due(&f.a) == MCP__AD_DONE && nx(&f) == MCP__AD_DONE);
    fx_free(&f);
    fx_init(&f);
    CHECK(to_done(&f, NULL, "{\"access_token\":\"at-S3CRET-1\",\"token_type\":\"Bearer\",\"expires_in\":10,"
                            "\"refresh_token\":\"rt-S3CRET-1\"}") == MCP__AD_DONE);
    /* a 10 s token is refreshed in its last third, not at once */
    CHECK(mcp__auth_due(&f.a) == MCP__AD_DONE && f.a.lifetime == 10);
    f.a.expires = (int64_t)time(NULL) + 2;
    CHECK(mcp__auth_due(&f.a) == MCP__AD_FETCH && nx(&f) == MCP__AD_FETCH);
    CHECK(streq(bparam(&f, "grant_type"), "refresh_token") && streq(bparam(&f, "resource"), SERVER));
    CHECK(ans(&f, 200, TOKEN_OK) == MCP__AD_DONE);
    CHECK(mcp__auth_due(&f.a) == MCP__AD_DONE);
    fx_free(&f);
    /* about to expire, no refresh token: nothing to do but use it */
    fx_init(&f);
    CHECK(to_done(&f, NULL, "{\"access_token\":\"at-S3CRET-1\",\"token_type\":\"Bearer\",\"expires_in\":10}") == MCP__AD_DONE);
    CHECK(mcp__auth_due(&f.a) == MCP__AD_DONE);
    fx_free(&f);
}

TEST_CASE(token_401_again_gives_up)
{
    fx f;
    int k, fetches = 0;
    fx_init(&f);
    CHECK(to_done(&f, NULL, "{\"access_token\":\"at-S3CRET-1\",\"token_type\":\"Bearer\"}") == MCP__AD_DONE);
    for (k = 0; k < 5 && chal(&f, 401, "Bearer") == MCP__AD_FETCH; k++) {
        char doc[1024];
        fetches++;
        if (ans(&f, 200, PRM_OK) != MCP__AD_FETCH || ans(&f, 200, asm_doc(doc, sizeof doc, ISSUER, NULL)) != MCP__AD_BROWSER ||
            come_back(&f) != MCP__AD_FETCH || ans(&f, 200, "{\"access_token\":\"at-S3CRET-1\",\"token_type\":\"Bearer\"}") != MCP__AD_DONE)
            break;
    }
    CHECK(fetches == 2);
    FAILED(&f, MCP_ERR_AUTH);
    SAYS(&f, "refuses the access token");
    fx_free(&f);
}

/* A server that refuses every token, refreshed or not: the refreshes stop. */
TEST_CASE(token_refused_fresh_gives_up)
{
    fx f;
    int k, refreshes = 0;
    char tok[128];
    fx_init(&f);
    CHECK(to_done(&f, NULL, NULL) == MCP__AD_DONE);
    for (k = 0; k < 8 && chal(&f, 401, "Bearer error=\"invalid_token\"") == MCP__AD_FETCH; k++) {
        refreshes++;
        CHECK(streq(bparam(&f, "grant_type"), "refresh_token"));
        snprintf(tok, sizeof tok, "{\"access_token\":\"at-S3CRET-%d\",\"token_type\":\"Bearer\"}", k + 2);
        if (ans(&f, 200, tok) != MCP__AD_DONE) break;
    }
    CHECK(refreshes == 3);
    FAILED(&f, MCP_ERR_AUTH);
    SAYS(&f, "refused four access tokens in a row");
    CLEAN(&f);
    fx_free(&f);
}

/* The authorization waiting for its browser is in the store: another run of the program
   finishes it from the redirect alone (the verifier and state came back), then it is gone. */
TEST_CASE(store_flow_finished_by_another_run)
{
    char state[64], q[512];
    const char *rec, *v;
    fx f;
    fx_init(&f);
    CHECK(to_browser(&f, NULL, NULL) == MCP__AD_BROWSER);
    rec = st_get(&f.s, "mcp-auth flow " SERVER);
    CHECK(rec && strstr(rec, "\"code_verifier\"") && strstr(rec, "\"state\"") && strstr(rec, ISSUER "/token"));
    CHECK(rec && !strstr(rec, "client_secret"));
    snprintf(state, sizeof state, "%s", param(f.x.url, "state"));
    /* a new engine on the same store, as a new process: it waits for that redirect */
    mcp__auth_free(&f.a);
    f.started = 0;
    CHECK(fx_start_at(&f, SERVER, REDIR));
    CHECK(f.a.state == MCP__AU_BROWSER && streq(f.a.nonce, state));
    snprintf(q, sizeof q, "http://127.0.0.1:5555/callback?code=%s&state=%s&iss=%s", CODE, state,
             "https%3A%2F%2Fauth.example.com");
    CHECK(redirect(&f, q) == MCP__AD_FETCH);
    CHECK(streq(f.x.url, ISSUER "/token") && streq(bparam(&f, "code"), CODE));
    CHECK((v = bparam(&f, "code_verifier")) != NULL && strlen(v) == 43);
    CHECK(st_get(&f.s, "mcp-auth flow " SERVER) == NULL);          /* answered: nothing waits */
    CHECK(ans(&f, 200, TOKEN_OK) == MCP__AD_DONE);
    CHECK(st_get(&f.s, "mcp-auth tokens " SERVER) != NULL);
    /* a forged redirect for the stored flow is refused, and ends it */
    fx_free(&f);
    fx_init(&f);
    CHECK(to_browser(&f, NULL, NULL) == MCP__AD_BROWSER);
    mcp__auth_free(&f.a);
    f.started = 0;
    CHECK(fx_start_at(&f, SERVER, REDIR));
    CHECK(redirect(&f, "code=x&state=forged") == MCP__AD_FAILED);
    FAILED(&f, MCP_ERR_AUTH);
    CHECK(st_get(&f.s, "mcp-auth flow " SERVER) == NULL);
    CLEAN(&f);
    fx_free(&f);
}

TEST_CASE(unreachable)
{
    mcp_error e;
    fx f;
    fx_init(&f);
    CHECK(fx_start_at(&f, SERVER, REDIR));
    chal(&f, 401, "Bearer");
    memset(&e, 0, sizeof e);
    e.status = MCP_ERR_TIMEOUT;
    snprintf(e.message, sizeof e.message, "No answer within 5 s.");
    mcp__auth_unreachable(&f.a, &e);
    CHECK(nx(&f) == MCP__AD_FAILED);
    FAILED(&f, MCP_ERR_TIMEOUT);
    SAYS(&f, "protected resource metadata could not be reached: No answer within 5 s.");
    fx_free(&f);
}

/* ---- step-up ------------------------------------------------------------------------------- */

TEST_CASE(step_up_union)
{
    char q[256];
    fx f;
    fx_init(&f);
    CHECK(to_done(&f, NULL, NULL) == MCP__AD_DONE);
    CHECK(chal(&f, 403, "Bearer error=\"insufficient_scope\", scope=\"admin read\"") == MCP__AD_BROWSER);
    CHECK(streq(param(f.x.url, "scope"), "read write admin"));   /* no discovery again */
    CHECK(streq(param(f.x.url, "client_id"), "cid-pre"));
    snprintf(q, sizeof q, "code=%s&state=%s", CODE, param(f.x.url, "state"));
    CHECK(redirect(&f, q) == MCP__AD_FETCH);
    CHECK(ans(&f, 200, TOKEN_OK) == MCP__AD_DONE);
    fx_free(&f);
}

TEST_CASE(step_up_gives_up)
{
    char q[256];
    fx f;
    int k, browsers = 0;
    fx_init(&f);
    CHECK(to_done(&f, NULL, NULL) == MCP__AD_DONE);
    CHECK(chal(&f, 403, "Bearer error=\"insufficient_scope\", scope=\"admin\"") == MCP__AD_BROWSER);
    for (k = 0; k < 10; k++) {
        snprintf(q, sizeof q, "code=%s&state=%s", CODE, param(f.x.url, "state"));
        if (redirect(&f, q) != MCP__AD_FETCH || ans(&f, 200, TOKEN_OK) != MCP__AD_DONE) break;
        if (chal(&f, 403, "Bearer error=\"insufficient_scope\", scope=\"admin\"") != MCP__AD_BROWSER) break;
        browsers++;
        CHECK(streq(param(f.x.url, "scope"), "read write admin"));
    }
    CHECK(browsers == MCP__AUTH_STEP_UPS);
    FAILED(&f, MCP_ERR_AUTH);
    SAYS(&f, "insufficient_scope (admin)");
    CLEAN(&f);
    fx_free(&f);
}

/* The step-up shortcut (no discovery) only with an authorization endpoint and a client in
   hand: not after tokens loaded from the store (their record names neither), nor after a
   flow that failed before them; the client_credentials grant asks the token endpoint again. */
TEST_CASE(step_up_needs_the_endpoints)
{
    char doc[1024];
    fx f;
    fx_init(&f);
    f.cl[0].client_id = "cid-pre"; f.d.clients = f.cl; f.d.nclients = 1;
    st_put(&f.s, "mcp-auth tokens " SERVER, "{\"issuer\":\"" ISSUER "\",\"token_endpoint\":\"" ISSUER "/token\","
           "\"client_id\":\"cid-pre\",\"method\":\"none\",\"access_token\":\"at-S3CRET-7\",\"scope\":\"read\"}");
    CHECK(fx_start_at(&f, SERVER, REDIR));
    CHECK(f.a.state == MCP__AU_DONE && f.a.authz_ep == NULL);
    CHECK(chal(&f, 403, "Bearer error=\"insufficient_scope\", scope=\"admin\"") == MCP__AD_FETCH);
    CHECK(is_get(&f, "https://mcp.example.com/.well-known/oauth-protected-resource/mcp"));
    CHECK(ans(&f, 200, PRM_OK) == MCP__AD_FETCH);
    CHECK(ans(&f, 200, asm_doc(doc, sizeof doc, ISSUER, NULL)) == MCP__AD_BROWSER);
    CHECK(streq(param(f.x.url, "scope"), "read admin"));
    fx_free(&f);
    /* the metadata had no authorization_endpoint: failed; a 403 then starts over */
    fx_init(&f);
    f.cl[0].client_id = "cid-pre"; f.d.clients = f.cl; f.d.nclients = 1;
    CHECK(fx_start_at(&f, SERVER, REDIR));
    chal(&f, 401, "Bearer");
    ans(&f, 200, PRM_OK);
    CHECK(ans(&f, 200, "{\"issuer\":\"" ISSUER "\",\"token_endpoint\":\"" ISSUER "/token\","
                       "\"code_challenge_methods_supported\":[\"S256\"]}") == MCP__AD_FAILED);
    CHECK(chal(&f, 403, "Bearer error=\"insufficient_scope\", scope=\"admin\"") == MCP__AD_FETCH);
    CHECK(is_get(&f, "https://mcp.example.com/.well-known/oauth-protected-resource/mcp"));
    fx_free(&f);
    /* client_credentials: no browser, the token endpoint with the union */
    fx_init(&f);
    f.d.grant = MCP_AUTH_CLIENT_CREDENTIALS;
    f.cl[0].client_id = "cid-m2m"; f.cl[0].client_secret = SECRET; f.d.clients = f.cl; f.d.nclients = 1;
    CHECK(fx_start_at(&f, SERVER, NULL));
    chal(&f, 401, "Bearer scope=\"jobs\"");
    ans(&f, 200, PRM_OK);
    CHECK(ans(&f, 200, "{\"issuer\":\"" ISSUER "\",\"token_endpoint\":\"" ISSUER "/token\"}") == MCP__AD_FETCH);
    CHECK(ans(&f, 200, "{\"access_token\":\"at-S3CRET-m2m\",\"token_type\":\"Bearer\"}") == MCP__AD_DONE);
    CHECK(chal(&f, 403, "Bearer error=\"insufficient_scope\", scope=\"admin\"") == MCP__AD_FETCH);
    CHECK(streq(f.x.url, ISSUER "/token"));
    CHECK(streq(bparam(&f, "grant_type"), "client_credentials"));
    CHECK(streq(bparam(&f, "scope"), "jobs admin"));
    fx_free(&f);
}

TEST_CASE(step_up_other_403_fails)
{
    fx f;
    fx_init(&f);
    CHECK(to_done(&f, NULL, NULL) == MCP__AD_DONE);
    CHECK(chal(&f, 403, "Bearer error=\"invalid_token\"") == MCP__AD_FAILED);
    FAILED(&f, MCP_ERR_HTTP);
    SAYS(&f, "403");
    CHECK(chal(&f, 403, NULL) == MCP__AD_FAILED);
    FAILED(&f, MCP_ERR_HTTP);
    fx_free(&f);
}

TEST_CASE(challenge_malformed)
{
    fx f;
    fx_init(&f);
    CHECK(fx_start_at(&f, SERVER, REDIR));
    CHECK(chal(&f, 401, "Bearer scope=\"a\", scope=\"b\"") == MCP__AD_FAILED);
    FAILED(&f, MCP_ERR_AUTH);
    SAYS(&f, "WWW-Authenticate");
    fx_free(&f);
}

/* ---- the store ----------------------------------------------------------------------------- */

TEST_CASE(store_what_and_where)
{
    const char *cl, *tk;
    mcp_json_doc *jd;
    const mcp_json *r;
    int64_t at = 0;
    fx f;
    fx_init(&f);
    CHECK(to_client(&f, NULL, NULL) == MCP__AD_FETCH);
    CHECK(ans(&f, 201, "{\"client_id\":\"cid-reg\",\"client_secret\":\"" SECRET "\","
                       "\"token_endpoint_auth_method\":\"client_secret_post\"}") == MCP__AD_BROWSER);
    CHECK(f.s.n == 2 && st_get(&f.s, "mcp-auth flow " SERVER));     /* the registration, the flow */
    cl = st_get(&f.s, "mcp-auth client " ISSUER);
    CHECK(cl != NULL);
    jd = cl ? mcp_json_parse(cl, strlen(cl), NULL) : NULL;
    r = mcp_json_root(jd);
    CHECK(streq(mcp_json_str(mcp_json_get(r, "client_id")), "cid-reg"));
    CHECK(streq(mcp_json_str(mcp_json_get(r, "client_secret")), SECRET));
    CHECK(streq(mcp_json_str(mcp_json_get(r, "method")), "client_secret_post"));
    mcp_json_free(jd);
    CHECK(come_back(&f) == MCP__AD_FETCH);
    CHECK(streq(bparam(&f, "client_secret"), SECRET));
    CHECK(ans(&f, 200, TOKEN_OK) == MCP__AD_DONE);
    CHECK(f.s.n == 2);
    tk = st_get(&f.s, "mcp-auth tokens " SERVER);
    CHECK(tk != NULL);
    jd = tk ? mcp_json_parse(tk, strlen(tk), NULL) : NULL;
    r = mcp_json_root(jd);
    CHECK(streq(mcp_json_str(mcp_json_get(r, "issuer")), ISSUER));
    CHECK(streq(mcp_json_str(mcp_json_get(r, "resource")), SERVER));
    CHECK(streq(mcp_json_str(mcp_json_get(r, "token_endpoint")), ISSUER "/token"));
    CHECK(streq(mcp_json_str(mcp_json_get(r, "client_id")), "cid-reg"));
    CHECK(streq(mcp_json_str(mcp_json_get(r, "method")), "client_secret_post"));
    CHECK(streq(mcp_json_str(mcp_json_get(r, "access_token")), "at-S3CRET-1"));
    CHECK(streq(mcp_json_str(mcp_json_get(r, "refresh_token")), "rt-S3CRET-1"));
    CHECK(streq(mcp_json_str(mcp_json_get(r, "scope")), "read write"));
    CHECK(mcp_json_int64(mcp_json_get(r, "expires_at"), &at) && at > (int64_t)time(NULL) + 3500);
    CHECK(mcp_json_get(r, "client_secret") == NULL && !strstr(tk, SECRET));   /* the secret stays in one place */
    mcp_json_free(jd);
    /* a new engine with the same store: tokens in hand, a refresh with the stored client */
    mcp__auth_free(&f.a);
    f.started = 0;
    CHECK(fx_start_at(&f, SERVER, REDIR));
    CHECK(f.a.state == MCP__AU_DONE && streq(f.a.access, "at-S3CRET-1"));
    CHECK(mcp__auth_due(&f.a) == MCP__AD_DONE);
    CHECK(chal(&f, 401, "Bearer") == MCP__AD_FETCH);
    CHECK(streq(f.x.url, ISSUER "/token"));
    CHECK(streq(bparam(&f, "refresh_token"), "rt-S3CRET-1"));
    CHECK(streq(bparam(&f, "client_id"), "cid-reg") && streq(bparam(&f, "client_secret"), SECRET));
    CHECK(ans(&f, 200, TOKEN_OK) == MCP__AD_DONE);
    /* another server's engine sees none of it */
    CHECK(fx_start_at(&f, "https://mcp.example.com/other", REDIR));
    CHECK(f.a.state == MCP__AU_IDLE && f.a.access == NULL);
    fx_free(&f);
}

TEST_CASE(store_tokens_loaded_at_init)
{
    fx f;
    fx_init(&f);
    st_put(&f.s, "mcp-auth tokens " SERVER, "{\"issuer\":\"" ISSUER "\",\"token_endpoint\":\"" ISSUER "/token\","
           "\"client_id\":\"cid-x\",\"method\":\"none\",\"access_token\":\"at-S3CRET-7\",\"refresh_token\":\"rt-S3CRET-7\","
           "\"expires_at\":1}");
    CHECK(fx_start_at(&f, SERVER, REDIR));
    CHECK(f.a.state == MCP__AU_DONE && streq(f.a.access, "at-S3CRET-7"));
    CHECK(mcp__auth_due(&f.a) == MCP__AD_FETCH && nx(&f) == MCP__AD_FETCH);   /* expired long ago */
    CHECK(streq(bparam(&f, "refresh_token"), "rt-S3CRET-7") && streq(bparam(&f, "client_id"), "cid-x"));
    fx_free(&f);
    /* a record without the issuer or client is not used */
    fx_init(&f);
    st_put(&f.s, "mcp-auth tokens " SERVER, "{\"access_token\":\"at-S3CRET-7\"}");
    CHECK(fx_start_at(&f, SERVER, REDIR));
    CHECK(f.a.state == MCP__AU_IDLE && f.a.access == NULL);
    fx_free(&f);
    /* nor one that is not JSON */
    fx_init(&f);
    st_put(&f.s, "mcp-auth tokens " SERVER, "at-S3CRET-7");
    CHECK(fx_start_at(&f, SERVER, REDIR));
    CHECK(f.a.state == MCP__AU_IDLE);
    fx_free(&f);
    /* a secret-method record whose client is not known: no refresh with it */
    fx_init(&f);
    st_put(&f.s, "mcp-auth tokens " SERVER, "{\"issuer\":\"" ISSUER "\",\"token_endpoint\":\"" ISSUER "/token\","
           "\"client_id\":\"cid-x\",\"method\":\"client_secret_basic\",\"access_token\":\"at-S3CRET-7\","
           "\"refresh_token\":\"rt-S3CRET-7\"}");
    st_put(&f.s, "mcp-auth client " ISSUER, "{\"client_id\":\"cid-y\",\"client_secret\":\"" SECRET "\"}");
    CHECK(fx_start_at(&f, SERVER, REDIR));
    CHECK(f.a.state == MCP__AU_DONE && f.a.refresh == NULL);
    CHECK(chal(&f, 401, "Bearer") == MCP__AD_FETCH);    /* the flow, not a refresh */
    CHECK(is_get(&f, "https://mcp.example.com/.well-known/oauth-protected-resource/mcp"));
    fx_free(&f);
}

TEST_CASE(store_tokens_found_again_for_a_parent_resource)
{
    fx f;
    fx_init(&f);
    f.cl[0].client_id = "cid-pre"; f.d.clients = f.cl; f.d.nclients = 1;
    CHECK(to_browser(&f, "{\"resource\":\"https://mcp.example.com\",\"authorization_servers\":[\"" ISSUER "\"]}", NULL)
          == MCP__AD_BROWSER);
    CHECK(streq(param(f.x.url, "resource"), "https://mcp.example.com"));
    CHECK(come_back(&f) == MCP__AD_FETCH);
    CHECK(streq(bparam(&f, "resource"), "https://mcp.example.com"));
    CHECK(ans(&f, 200, TOKEN_OK) == MCP__AD_DONE);
    CHECK(f.s.n == 1 && st_get(&f.s, "mcp-auth tokens " SERVER) != NULL);   /* under the server's URL */
    mcp__auth_free(&f.a);
    f.started = 0;
    CHECK(fx_start_at(&f, SERVER, REDIR));
    CHECKF(f.a.state == MCP__AU_DONE && streq(f.a.access, "at-S3CRET-1"), "keys stored: %s%s%s",
           f.s.n > 0 ? f.s.key[0] : "", f.s.n > 1 ? ", " : "", f.s.n > 1 ? f.s.key[1] : "");
    CHECK(chal(&f, 401, "Bearer") == MCP__AD_FETCH);
    CHECK(streq(bparam(&f, "grant_type"), "refresh_token"));
    CHECK(streq(bparam(&f, "resource"), "https://mcp.example.com"));   /* the resource the token is for */
    fx_free(&f);
}

TEST_CASE(store_without_callbacks)
{
    fx f;
    fx_init(&f);
    f.d.load = NULL; f.d.save = NULL;
    CHECK(to_client(&f, NULL, NULL) == MCP__AD_FETCH);
    CHECK(ans(&f, 201, "{\"client_id\":\"cid-reg\"}") == MCP__AD_BROWSER);
    CHECK(come_back(&f) == MCP__AD_FETCH);
    CHECK(ans(&f, 200, TOKEN_OK) == MCP__AD_DONE);
    CHECK(f.s.n == 0);
    fx_free(&f);
}

/* ---- limits --------------------------------------------------------------------------------- */

/* At each answer of the flow (PRM, ASM, registration, token), a bad body. */
static void bad_body(const char *ctype, const char *body, size_t len, mcp_status st, const char *says)
{
    char doc[1024];
    fx f;
    int k;
    for (k = 0; k < 4; k++) {
        fx_init(&f);
        CHECK(fx_start_at(&f, SERVER, REDIR));
        chal(&f, 401, "Bearer");
        if (k > 0) ans(&f, 200, PRM_OK);
        if (k > 1) CHECK(ans(&f, 200, asm_doc(doc, sizeof doc, ISSUER, NULL)) == MCP__AD_FETCH);
        if (k > 2) {
            ans(&f, 201, "{\"client_id\":\"cid-reg\"}");
            CHECK(come_back(&f) == MCP__AD_FETCH);
        }
        CHECKF(ans_n(&f, k == 2 ? 201 : 200, ctype, body, len) == MCP__AD_FAILED, "answer %d: %.40s", k, body);
        FAILED(&f, st);
        if (says) SAYS(&f, says);
        CLEAN(&f);
        fx_free(&f);
    }
}

TEST_CASE(limits_bodies)
{
    size_t big = MCP__AUTH_MAX_DOC + 1;
    char *b = (char *)malloc(big);
    CHECK(b != NULL);
    if (b) {
        memset(b, ' ', big);
        memcpy(b, "{\"access_token\":\"at-S3CRET-1\"", 29);
        b[big - 1] = '}';
        bad_body("application/json", b, big, MCP_ERR_LIMIT, NULL);
        free(b);
    }
    bad_body("text/html", "{\"x\":1}", 7, MCP_ERR_PROTOCOL, "content type \"text/html\"");
    bad_body("application/json", "[\"at-S3CRET-1\"]", 15, MCP_ERR_PROTOCOL, "not a JSON object");
    bad_body("application/json", "\"at-S3CRET-1\"", 13, MCP_ERR_PROTOCOL, "not a JSON object");
    bad_body(NULL, "{\"access_token\":\"at-S3CRET-1\"", 29, MCP_ERR_PROTOCOL, "not a JSON object");
    bad_body("application/json", "", 0, MCP_ERR_PROTOCOL, "not a JSON object");
    bad_body("application/json", "{\"a\":1}\0{}", 10, MCP_ERR_PROTOCOL, NULL);
}

TEST_CASE(limits_json_content_types)
{
    static const char *const ok[] = { NULL, "application/json; charset=utf-8", "Application/JSON",
                                      "application/problem+json" };
    size_t k;
    fx f;
    for (k = 0; k < sizeof ok / sizeof *ok; k++) {
        fx_init(&f);
        CHECK(fx_start_at(&f, SERVER, REDIR));
        chal(&f, 401, "Bearer");
        CHECKF(ans_n(&f, 200, ok[k], PRM_OK, strlen(PRM_OK)) == MCP__AD_FETCH, "%s: %s", ok[k] ? ok[k] : "(none)",
               f.a.err.message);
        fx_free(&f);
    }
}

TEST_CASE(answers_out_of_turn)
{
    fx f;
    fx_init(&f);
    CHECK(fx_start_at(&f, SERVER, REDIR));
    CHECK(nx(&f) == MCP__AD_NOTHING);
    CHECK(ans(&f, 200, PRM_OK) == MCP__AD_NOTHING);     /* nothing was asked */
    CHECK(mcp__auth_due(&f.a) == MCP__AD_NOTHING);
    CHECK(to_browser(&f, NULL, NULL) == MCP__AD_BROWSER);
    CHECK(ans(&f, 200, TOKEN_OK) == MCP__AD_BROWSER && f.a.access == NULL);
    fx_free(&f);
}

int main(int argc, char **argv)
{
    return test_main(argc, argv);
}
