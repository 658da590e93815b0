/* libFuzzer target for the authorization flow (>>auth), make fuzz.

   Input: [setup][step...], each step [kind][len lo][len hi][len bytes] (a short last step
   takes what is left).
     setup  bit 0: the client_credentials grant; 1: a pre-registered client with a secret;
            2: a client ID metadata document URL; 3: private_key_jwt with a signing callback;
            4: the 401 advertises resource_metadata; 5: offline_access; 6: the store holds
            tokens for the server already; 7: no MCP-Protocol-Version.
     step   what the flow asked for decides what the bytes are:
              FETCH    the answer: status (kind bits 0-2: 200 201 404 500 400 401 403 302),
                       Content-Type (bits 3-4: application/json, none, text/html, JSON with a
                       charset), the body (PRM, ASM, registration or token answer); kind 0xFF:
                       the request could not be made (mcp__auth_unreachable)
              BROWSER  the redirect's query; kind bit 0: "state=<the URL's state>&" before it,
                       bit 1: "&iss=<the issuer>" after it, bit 2: as a whole URL
              DONE, FAILED  kind bit 0: a 403, else a 401, with the bytes as WWW-Authenticate;
                       bit 1: mcp__auth_due instead
   The engine is driven from the first 401 until the steps run out. After every call the
   flow must say FETCH (a method, a URL, headers, a body of body_len bytes), BROWSER (a URL),
   DONE (an access token) or FAILED (an error status and a sentence without the PKCE
   verifier); anything else aborts, which libFuzzer reports as a crash. Every body is a
   malloc'd copy of exactly its bytes, so ASan reports a read past it. */
#define MCP_IMPLEMENTATION
#include "../../mcp.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "fuzz.h"

int LLVMFuzzerTestOneInput(const unsigned char *data, size_t size);

#define NAME "fuzz_authmeta"
#define SERVER "https://mcp.example.com/mcp"
#define MAX_STEPS 64

/* ---- the store: a few keys in memory ------------------------------------------------------- */

typedef struct store { int n; char *key[8], *val[8]; } store;

static char *dup_n(const char *s, size_t n)
{
    char *p = (char *)malloc(n + 1);
    REQUIRE(p != NULL);
    memcpy(p, s, n);
    p[n] = 0;
    return p;
}

static int st_load(void *user, const char *key, mcp_buf *value)
{
    store *s = (store *)user;
    int i;
    for (i = 0; i < s->n; i++)
        if (!strcmp(s->key[i], key)) { value->len = 0; return mcp_buf_append(value, s->val[i], strlen(s->val[i])) == MCP_OK; }
    return 0;
}

static void st_save(void *user, const char *key, const char *value)
{
    store *s = (store *)user;
    int i;
    REQUIRE(key != NULL && !strncmp(key, "mcp-auth ", 9));
    for (i = 0; i < s->n; i++) {
        if (strcmp(s->key[i], key)) continue;
        free(s->val[i]);
        if (value) { s->val[i] = dup_n(value, strlen(value)); return; }
        free(s->key[i]);
        s->key[i] = s->key[s->n - 1]; s->val[i] = s->val[s->n - 1];
        s->n--;
        return;
    }
    if (value && s->n < 8) {
        s->key[s->n] = dup_n(key, strlen(key)); s->val[s->n] = dup_n(value, strlen(value)); s->n++;
    }
}

static void st_free(store *s)
{
    int i;
    for (i = 0; i < s->n; i++) { free(s->key[i]); free(s->val[i]); }
    s->n = 0;
}

static mcp_status fixed_sign(void *user, const char *input, size_t len, mcp_buf *sig, mcp_error *err)
{
    (void)user; (void)err;
    REQUIRE(input != NULL && len > 0 && memchr(input, '.', len) != NULL);
    return mcp_buf_append(sig, "fixed-signature", 15);
}

/* ---- the driver ------------------------------------------------------------------------------ */

typedef struct steps { const unsigned char *p; size_t left; } steps;

static int take(steps *s, int *kind, const char **bytes, size_t *len)
{
    size_t n;
    if (!s->left) return 0;
    *kind = s->p[0];
    n = s->left >= 3 ? (size_t)s->p[1] | (size_t)s->p[2] << 8 : 0;
    s->p += s->left >= 3 ? 3 : s->left;
    s->left -= s->left >= 3 ? 3 : s->left;
    if (n > s->left) n = s->left;
    *bytes = (const char *)s->p; *len = n;
    s->p += n; s->left -= n;
    return 1;
}

/* What the flow says must be one of the four, and well formed. */
static int check(const mcp__auth *a)
{
    mcp__auth_do d;
    size_t i;
    mcp__auth_next(a, &d);
    switch (d.what) {
    case MCP__AD_FETCH:
        REQUIRE(d.method && (!strcmp(d.method, "GET") || !strcmp(d.method, "POST")));
        REQUIRE(d.url && d.url[0] && d.headers && d.step && d.step[0]);
        for (i = 0; d.headers[i]; i++) REQUIRE(i < 4 && strchr(d.headers[i], ':'));
        REQUIRE((d.body == NULL) == (d.body_len == 0));
        if (d.body_len) REQUIRE(memchr(d.body, 0, d.body_len) == NULL);
        break;
    case MCP__AD_BROWSER:
        REQUIRE(d.url && d.url[0] && strstr(d.url, "code_challenge_method=S256") && strstr(d.url, "state="));
        break;
    case MCP__AD_DONE:
        REQUIRE(a->access && a->access[0]);
        break;
    case MCP__AD_FAILED:
        REQUIRE(a->err.status < 0 && a->err.message[0]);
        REQUIRE(!a->verifier[0] || !strstr(a->err.message, a->verifier));
        break;
    default:
        REQUIRE(!"the flow says neither FETCH, BROWSER, DONE nor FAILED");
    }
    return d.what;
}

static void browser(mcp__auth *a, int kind, const char *bytes, size_t len)
{
    mcp__auth_do d;
    mcp_buf q, tmp;
    const char *st;
    size_t sl;
    memset(&q, 0, sizeof q); memset(&tmp, 0, sizeof tmp);
    mcp__auth_next(a, &d);
    if (kind & 4) REQUIRE(mcp_buf_append(&q, "http://127.0.0.1:5555/callback?", 31) == MCP_OK);
    if ((kind & 1) && (st = strstr(d.url, "state=")) != NULL) {
        sl = strcspn(st, "&");
        REQUIRE(mcp_buf_append(&q, st, sl) == MCP_OK && mcp_buf_append(&q, "&", 1) == MCP_OK);
    }
    REQUIRE(mcp_buf_append(&q, bytes, len) == MCP_OK);
    if ((kind & 2) && a->issuer) {
        REQUIRE(mcp_http_form_append(&tmp, "iss", a->issuer, NULL) == MCP_OK);
        REQUIRE(mcp_buf_append(&q, "&", 1) == MCP_OK && mcp_buf_append(&q, tmp.data, tmp.len) == MCP_OK);
    }
    REQUIRE(mcp_buf_append(&q, "", 1) == MCP_OK);
    mcp__auth_redirect(a, q.data);               /* a NUL among the bytes ends the query there */
    mcp_buf_free(&q); mcp_buf_free(&tmp);
}

static void challenge(mcp__auth *a, int kind, const char *bytes, size_t len)
{
    const char *v[1];
    char *copy;
    if (kind & 2) { mcp__auth_due(a); return; }
    copy = dup_n(bytes, len);
    v[0] = copy;
    mcp__auth_challenge(a, kind & 1 ? 403 : 401, v, 1);
    free(copy);
}

int LLVMFuzzerTestOneInput(const unsigned char *data, size_t size)
{
    static const int statuses[] = { 200, 201, 404, 500, 400, 401, 403, 302 };
    static const char *const ctypes[] = { "application/json", NULL, "text/html", "application/json; charset=utf-8" };
    mcp_auth d;
    mcp_auth_client cl;
    mcp__auth a;
    store s;
    steps in;
    const char *bytes, *first;
    size_t len, n;
    int setup, kind, what, k;
    char *body;
    mcp_error e;
    if (size < 1) return 0;
    setup = data[0];
    in.p = data + 1; in.left = size - 1;
    memset(&d, 0, sizeof d); memset(&cl, 0, sizeof cl); memset(&s, 0, sizeof s);
    d.grant = setup & 1 ? MCP_AUTH_CLIENT_CREDENTIALS : MCP_AUTH_CODE;
    if (setup & 2) {
        cl.client_id = "fz-client"; cl.client_secret = "fz-S3CRET";
        d.clients = &cl; d.nclients = 1;
    }
    if (setup & 4) d.client_id_metadata_url = "https://app.example.com/client.json";
    if (setup & 8) {
        d.sign = fixed_sign; d.sign_alg = "ES256";
        if (setup & 2) { cl.client_secret = NULL; cl.auth_method = "private_key_jwt"; }
    }
    d.offline_access = (setup & 32) != 0;
    d.scope = "extra";
    d.user = &s; d.load = st_load; d.save = st_save;
    if (setup & 64)
        st_save(&s, "mcp-auth tokens " SERVER, "{\"issuer\":\"https://auth.example.com\",\"token_endpoint\":"
                "\"https://auth.example.com/token\",\"client_id\":\"fz-client\",\"method\":\"none\","
                "\"access_token\":\"fz-at\",\"refresh_token\":\"fz-rt\",\"expires_at\":1}");
    REQUIRE(mcp__auth_init(&a, &d, SERVER, setup & 128 ? NULL : "2025-11-25", "http://127.0.0.1:5555/callback"));
    first = setup & 16 ? "Bearer resource_metadata=\"https://mcp.example.com/.well-known/oauth-protected-resource\", "
                         "scope=\"read\"" : "Bearer realm=\"mcp\"";
    mcp__auth_challenge(&a, 401, &first, 1);
    what = check(&a);
    for (k = 0; k < MAX_STEPS && take(&in, &kind, &bytes, &len); k++) {
        if (what == MCP__AD_FETCH && kind == 0xFF) {
            memset(&e, 0, sizeof e);
            e.status = MCP_ERR_TIMEOUT;
            snprintf(e.message, sizeof e.message, "No answer.");
            mcp__auth_unreachable(&a, &e);
        } else if (what == MCP__AD_FETCH) {
            n = len;
            body = (char *)malloc(n ? n : 1);     /* exactly the bytes: ASan sees a read past them */
            REQUIRE(body != NULL);
            if (n) memcpy(body, bytes, n);
            mcp__auth_answer(&a, statuses[kind & 7], ctypes[(kind >> 3) & 3], body, n);
            free(body);
        } else if (what == MCP__AD_BROWSER) {
            browser(&a, kind, bytes, len);
        } else {
            challenge(&a, kind, bytes, len);
        }
        what = check(&a);
#ifdef FUZZ_PRINT_LOG                  /* -DFUZZ_PRINT_LOG: show each step's outcome */
        fprintf(stderr, "step %d kind 0x%02x len %lu -> %d %s\n", k, kind, (unsigned long)len, what,
                what == MCP__AD_FAILED ? a.err.message : "");
#endif
    }
    mcp__auth_free(&a);
    st_free(&s);
    return 0;
}
