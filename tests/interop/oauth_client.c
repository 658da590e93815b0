/* oauth_client - mcp.h's authorization flow against a real authorization server (issue 17).

   tests/interop/oauth.sh starts tests/interop/oauth/as.mjs (oidc-provider: dynamic
   registration, PKCE S256, resource indicators, rotating refresh tokens, the iss response
   parameter, its own sign-in and consent pages) and tests/interop/oauth/mcp_server.mjs (an MCP
   server on the official SDK v2 that wants a bearer token for itself, checked by
   introspection), then runs

       oauth_client NODE OAUTH_DIR MCP_URL ISSUER EVENTS TTL

   NODE runs OAUTH_DIR/browser.mjs and OAUTH_DIR/revoke.mjs; EVENTS is the file both servers
   append what they saw to ("as grant refresh_token ...", "rs refused ..."); TTL is the access
   tokens' lifetime in seconds. Through the public API of mcp.h only (desc.transport MCP_HTTP,
   desc.auth with redirect_uri NULL: mcp.h's loopback receiver; open_url forks the scripted
   browser and returns at once, so mcp.h's polls serve the loopback while it runs; load and
   save over an in-memory store), each step checked and printed:

     1. connect: the server's 401, discovery, registration, the browser (sign-in, consent,
        the loopback page), the code redeemed; tools/list, tools/call echo and whoami;
     2. past the access token's lifetime, a call: the token is refreshed (the authorization
        server saw a refresh_token grant; no browser; the refresh token was rotated);
     3. the refresh token revoked at the revocation endpoint (oidc-provider revokes its whole
        grant: the access token ends with it, and the MCP server, asking the introspection
        endpoint, refuses it at once), a call: 401, the refresh refused (invalid_grant), the
        whole flow again (a second browser), the call succeeds;
     4. a second client with the same store connects and calls without a browser;
     5. no access token, refresh token or authorization code in anything this program printed
        or mcp.h logged (desc.on_log). The secrets go to $OAUTH_SECRETS (mode 0600) when set,
        for oauth.sh to look for them in the servers' output as well.

   Prints "N passed, N failed" last; exits 1 on any failure. Built by tests/interop/oauth.sh
   with -std=c99 -Wall -Wextra -Wpedantic -Wshadow -Werror. */
#define _POSIX_C_SOURCE 200809L
#define MCP_IMPLEMENTATION
#include "../../mcp.h"

#include <errno.h>
#include <fcntl.h>
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

static const char *node, *dir, *mcp_url, *issuer, *events;
static int ttl;
static int passed, failed;
static mcp_buf said;                    /* everything printed, and every mcp.h log line */

/* ---- output ---------------------------------------------------------------------------- */

static void say(const char *fmt, ...)
{
    char line[2048];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(line, sizeof line, fmt, ap);
    va_end(ap);
    fputs(line, stdout);
    fputc('\n', stdout);
    fflush(stdout);
    mcp_buf_append(&said, line, strlen(line));
    mcp_buf_append(&said, "\n", 1);
}

static int check(int ok, const char *fmt, ...)
{
    char line[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(line, sizeof line, fmt, ap);
    va_end(ap);
    say("  %s %s", ok ? "PASS" : "FAIL", line);
    if (ok) passed++; else failed++;
    return ok;
}

static void on_log(void *user, mcp_client *c, const char *message)
{
    (void)user; (void)c;
    say("  mcp.h log: %s", message);
}

/* ---- secrets: every token the store was given, every code the browser carried ------------ */

static char *secrets[64];
static int nsecrets, naccess, nrefresh, ncodes;

static void remember(const char *s, int *count)
{
    int k;
    if (!s || !*s) return;
    for (k = 0; k < nsecrets; k++) if (!strcmp(secrets[k], s)) return;
    if (nsecrets < (int)(sizeof secrets / sizeof secrets[0])) {
        secrets[nsecrets] = strdup(s);
        if (secrets[nsecrets]) { nsecrets++; (*count)++; }
    }
}

/* ---- the store (auth.load / auth.save) ------------------------------------------------------ */

struct entry { char *key, *value; };
static struct entry store[16];
static int nstore, saves;

static struct entry *find(const char *key)
{
    int k;
    for (k = 0; k < nstore; k++) if (!strcmp(store[k].key, key)) return &store[k];
    return NULL;
}

static int st_load(void *user, const char *key, mcp_buf *value)
{
    struct entry *e = find(key);
    (void)user;
    if (!e) return 0;
    return mcp_buf_append(value, e->value, strlen(e->value)) == MCP_OK;
}

static void st_save(void *user, const char *key, const char *value)
{
    struct entry *e = find(key);
    mcp_json_doc *doc;
    (void)user;
    saves++;
    if (!value) {                                           /* deleted */
        if (e) { free(e->key); free(e->value); *e = store[--nstore]; }
        return;
    }
    if ((doc = mcp_json_parse(value, strlen(value), NULL)) != NULL) {
        remember(mcp_json_str(mcp_json_get(mcp_json_root(doc), "access_token")), &naccess);
        remember(mcp_json_str(mcp_json_get(mcp_json_root(doc), "refresh_token")), &nrefresh);
        mcp_json_free(doc);
    }
    if (!e) {
        if (nstore == (int)(sizeof store / sizeof store[0])) return;
        e = &store[nstore++];
        e->key = strdup(key);
        e->value = NULL;
    }
    free(e->value);
    e->value = strdup(value);
}

/* A field of the stored tokens (a copy to free), or NULL. */
static char *stored(const char *field)
{
    int k;
    char *out = NULL;
    for (k = 0; k < nstore && !out; k++) {
        mcp_json_doc *doc;
        const char *v;
        if (strncmp(store[k].key, "mcp-auth tokens ", 16)) continue;
        if (!(doc = mcp_json_parse(store[k].value, strlen(store[k].value), NULL))) continue;
        v = mcp_json_str(mcp_json_get(mcp_json_root(doc), field));
        if (v) out = strdup(v);
        mcp_json_free(doc);
    }
    return out;
}

/* ---- the browser (auth.open_url) ------------------------------------------------------------ */

static pid_t browsers[8];
static int nbrowsers, reaped;

static void open_url(void *user, const char *url)
{
    pid_t pid;
    const char *q = strchr(url, '?');
    (void)user;
    if (nbrowsers == (int)(sizeof browsers / sizeof browsers[0])) return;
    say("  open_url: the authorization URL (%.*s?...) goes to the scripted browser", q ? (int)(q - url) : 60, url);
    fflush(NULL);
    pid = fork();
    if (pid == 0) {
        char script[4096];
        int fd;
        for (fd = 3; fd < 1024; fd++) close(fd);           /* mcp.h's sockets stay ours */
        snprintf(script, sizeof script, "%s/browser.mjs", dir);
        execl(node, node, script, url, (char *)NULL);
        _exit(127);
    }
    if (pid > 0) browsers[nbrowsers++] = pid;
    else say("  open_url: fork failed: %s", strerror(errno));
}

/* Waits for the browsers started so far; each must have signed in, consented and seen the
   loopback receiver's "You can close this window" (browser.mjs exits 0 only then). */
static void reap_browsers(void)
{
    for (; reaped < nbrowsers; reaped++) {
        int st = 0;
        pid_t r;
        do r = waitpid(browsers[reaped], &st, 0); while (r < 0 && errno == EINTR);
        check(r == browsers[reaped] && WIFEXITED(st) && WEXITSTATUS(st) == 0,
              "browser %d: signed in, consented and was told the window can be closed (exit %d)",
              reaped + 1, r == browsers[reaped] && WIFEXITED(st) ? WEXITSTATUS(st) : -1);
    }
}

/* ---- what the servers saw ---------------------------------------------------------------- */

static int seen(const char *what)       /* lines of EVENTS that hold `what` */
{
    FILE *f = fopen(events, "r");
    char line[4096];
    int n = 0;
    if (!f) return 0;
    while (fgets(line, sizeof line, f)) if (strstr(line, what)) n++;
    fclose(f);
    return n;
}

/* ---- calls ------------------------------------------------------------------------------- */

/* tools/call NAME ARGS: the first text of the result holds `want`. */
static int call_tool(mcp_client *c, const char *name, const char *args, const char *want, const char *why)
{
    mcp_json_doc *res = NULL;
    mcp_error e;
    const char *t = NULL;
    mcp_status st = mcp_client_call_tool(c, name, args, &res, &e);
    if (st == MCP_OK) t = mcp_json_str(mcp_json_get(mcp_json_at(mcp_json_get(mcp_json_root(res), "content"), 0), "text"));
    check(st == MCP_OK && t && strstr(t, want), "%s: tools/call %s -> %s", why, name,
          st == MCP_OK ? (t ? t : "(no text)") : e.message);
    mcp_json_free(res);
    return st == MCP_OK;
}

static mcp_client *client(const mcp_auth *auth)
{
    mcp_client_desc d;
    mcp_error e;
    mcp_client *c;
    memset(&d, 0, sizeof d);
    d.transport = MCP_HTTP;
    d.url = mcp_url;
    d.client_name = "mcp.h-oauth-interop";
    d.timeout_ms = 30000;
    d.on_log = on_log;
    d.auth = auth;
    if (!(c = mcp_client_new(&d, &e))) check(0, "mcp_client_new: %s", e.message);
    return c;
}

static void pause_past_ttl(void)
{
    struct timespec ts;
    ts.tv_sec = ttl + 1; ts.tv_nsec = 0;
    say("  (waiting %d s: past the access token's lifetime of %d s)", ttl + 1, ttl);
    while (nanosleep(&ts, &ts) < 0 && errno == EINTR) {}
}

/* Revokes the stored refresh token at the revocation endpoint (revoke.mjs, token on stdin). */
static int revoke(void)
{
    char cmd[8192];
    char *rt = stored("refresh_token"), *id = stored("client_id"), *iss = stored("issuer");
    FILE *p;
    int rc = -1;
    if (rt && id && iss && !strchr(id, '\'') && !strchr(iss, '\'') && !strchr(dir, '\'') && !strchr(node, '\'')) {
        snprintf(cmd, sizeof cmd, "'%s' '%s/revoke.mjs' '%s' '%s'", node, dir, iss, id);
        if ((p = popen(cmd, "w")) != NULL) {
            fputs(rt, p);
            rc = pclose(p);
        }
    }
    free(rt); free(id); free(iss);
    return rc == 0;
}

int main(int argc, char **argv)
{
    mcp_auth auth;
    mcp_client *a, *b;
    mcp_json_doc *res = NULL;
    mcp_error e;
    mcp_status st;
    char *rt0, *rt1;
    int k, refreshes, refused, codes, leaks;
    time_t t0 = time(NULL);

    if (argc != 7) {
        fprintf(stderr, "usage: oauth_client NODE OAUTH_DIR MCP_URL ISSUER EVENTS TTL\n");
        return 2;
    }
    node = argv[1]; dir = argv[2]; mcp_url = argv[3]; issuer = argv[4]; events = argv[5]; ttl = atoi(argv[6]);
    signal(SIGPIPE, SIG_IGN);

    memset(&auth, 0, sizeof auth);
    auth.client_name = "mcp.h oauth interop";
    auth.redirect_uri = NULL;            /* mcp.h's loopback receiver, on any free port */
    auth.offline_access = 1;             /* a refresh token, please */
    auth.timeout_ms = 60000;
    auth.open_url = open_url;
    auth.load = st_load;
    auth.save = st_save;

    say("oauth: mcp.h against oidc-provider (%s) and an SDK v2 server (%s), access tokens live %d s", issuer, mcp_url, ttl);

    /* 1. the whole flow */
    say("== 1. connect: 401, discovery, registration, browser, token");
    if (!(a = client(&auth))) goto done;
    st = mcp_client_connect(a, &e);
    check(st == MCP_OK, "connect -> %s", st == MCP_OK ? "connected" : e.message);
    reap_browsers();
    check(nbrowsers == 1, "the browser was opened once (%d)", nbrowsers);
    check(seen("rs refused POST without a token -> 401") >= 1, "the MCP server answered 401 to the first request (%d)",
          seen("rs refused POST without a token -> 401"));
    check(seen("rs metadata /.well-known/oauth-protected-resource/mcp -> 200") >= 1,
          "mcp.h read the protected resource metadata");
    check(seen("as registered ") == 1 && seen("application_type=native") == 1 && seen("auth=none") == 1,
          "mcp.h registered once (dynamic registration: a native, public client)");
    check(seen("as authorize ") >= 1 && seen("pkce=S256") >= 1 && seen("resource=" ) >= 1,
          "the authorization request had PKCE S256 and the resource");
    check(seen("as interaction login") >= 1 && seen("as interaction consent") >= 1,
          "the authorization server asked for sign-in and consent");
    check(seen("as grant authorization_code ") == 1, "the code was redeemed once (%d)", seen("as grant authorization_code "));
    rt0 = stored("refresh_token");
    check(rt0 != NULL, "the store holds the tokens, a refresh token among them");
    if (st != MCP_OK) { free(rt0); goto done; }

    st = mcp_client_list_tools(a, &res, &e);
    {
        const mcp_json *tools = st == MCP_OK ? mcp_json_get(mcp_json_root(res), "tools") : NULL;
        int echo = 0, who = 0;
        for (k = 0; tools && k < (int)mcp_json_len(tools); k++) {
            const char *n = mcp_json_str(mcp_json_get(mcp_json_at(tools, (size_t)k), "name"));
            if (n && !strcmp(n, "echo")) echo = 1;
            if (n && !strcmp(n, "whoami")) who = 1;
        }
        check(st == MCP_OK && echo && who, "tools/list -> %s", st == MCP_OK ? (echo && who ? "echo, whoami" : "not both tools") : e.message);
    }
    mcp_json_free(res); res = NULL;
    call_tool(a, "echo", "{\"message\":\"hello through OAuth\"}", "Echo: hello through OAuth", "authorized");
    call_tool(a, "whoami", "{}", "You are alice through ", "the token is alice's");
    refreshes = seen("as grant refresh_token ");
    if (refreshes)
        say("  note: %d refresh_token grant(s) already, before the token's %d s were over (a refresh ahead of expiry)",
            refreshes, ttl);

    /* 2. expiry: refreshed */
    say("== 2. the access token expires: refreshed, no browser");
    pause_past_ttl();
    call_tool(a, "echo", "{\"message\":\"after expiry\"}", "Echo: after expiry", "after expiry");
    check(seen("as grant refresh_token ") > refreshes, "the authorization server saw a refresh_token grant (%d in all)",
          seen("as grant refresh_token "));
    say("  note: the refresh came %s", seen("rs refused POST with a token -> 401") ? "after the MCP server's 401 to the expired token"
        : "ahead of the expiry (no 401)");
    check(seen("as grant-error") == 0, "no grant failed (%d)", seen("as grant-error"));
    rt1 = stored("refresh_token");
    check(rt0 && rt1 && strcmp(rt0, rt1), "the refresh token was rotated and the new one stored");
    check(nbrowsers == 1 && seen("as grant authorization_code ") == 1, "no browser, no new authorization");
    free(rt0); free(rt1);

    /* 3. revoked: the flow again */
    say("== 3. the refresh token is revoked: invalid_grant, the whole flow again");
    check(revoke(), "the refresh token was revoked at the revocation endpoint");
    check(seen("as grant-revoked") == 1, "the authorization server revoked it and its grant");
    /* no wait: the grant's access token ended with it, and introspection says so at once */
    refused = seen("rs refused POST with a token -> 401");
    codes = seen("as grant authorization_code ");
    call_tool(a, "echo", "{\"message\":\"after revocation\"}", "Echo: after revocation", "after revocation");
    reap_browsers();
    check(seen("rs refused POST with a token -> 401") == refused + 1,
          "the MCP server refused the revoked grant's access token at once (401)");
    check(seen("as grant-error refresh_token invalid_grant") == 1, "then the refresh was refused (invalid_grant)");
    check(nbrowsers == 2, "the browser was opened again (%d in all)", nbrowsers);
    check(seen("as grant authorization_code ") == codes + 1, "a new code was redeemed (%d in all)", seen("as grant authorization_code "));
    check(seen("as registered ") == 1, "the registration was reused");
    call_tool(a, "whoami", "{}", "You are alice through ", "the new token is alice's");
    mcp_client_free(a);

    /* 4. the store: tokens reused */
    say("== 4. a second client with the same store: no browser");
    codes = seen("as grant authorization_code ");
    if (!(b = client(&auth))) goto done;
    st = mcp_client_connect(b, &e);
    check(st == MCP_OK, "connect -> %s", st == MCP_OK ? "connected" : e.message);
    if (st == MCP_OK) call_tool(b, "echo", "{\"message\":\"from the store\"}", "Echo: from the store", "second client");
    reap_browsers();
    check(nbrowsers == 2 && seen("as grant authorization_code ") == codes, "no browser, no new authorization (%d browsers)", nbrowsers);
    mcp_client_free(b);

done:
    reap_browsers();
    /* 5. no secret in what was printed or logged */
    say("== 5. no token and no code in what this program printed or mcp.h logged");
    {
        FILE *f;
        char line[4096];
        const char *path = getenv("BROWSER_SECRETS");
        if (path && (f = fopen(path, "r")) != NULL) {
            while (fgets(line, sizeof line, f)) { line[strcspn(line, "\r\n")] = 0; remember(line, &ncodes); }
            fclose(f);
        }
    }
    leaks = 0;
    mcp_buf_append(&said, "", 1);
    for (k = 0; k < nsecrets; k++) if (strstr(said.data, secrets[k])) leaks++;
    check(naccess >= 3 && nrefresh >= 3 && ncodes >= 2, "secrets known: %d access tokens, %d refresh tokens, %d codes",
          naccess, nrefresh, ncodes);
    check(leaks == 0, "none of them in %lu bytes of output and log lines (%d found)", (unsigned long)said.len, leaks);
    if (getenv("OAUTH_SECRETS")) {
        int fd = open(getenv("OAUTH_SECRETS"), O_WRONLY | O_CREAT | O_TRUNC, 0600);
        FILE *f = fd >= 0 ? fdopen(fd, "w") : NULL;
        for (k = 0; f && k < nsecrets; k++) fprintf(f, "%s\n", secrets[k]);
        if (f) fclose(f);
    }
    for (k = 0; k < nsecrets; k++) { memset(secrets[k], 0, strlen(secrets[k])); free(secrets[k]); }
    for (k = 0; k < nstore; k++) { free(store[k].key); free(store[k].value); }
    mcp_buf_free(&said);
    printf("oauth_client: done in %ld s\n", (long)(time(NULL) - t0));
    printf("%d passed, %d failed\n", passed, failed);
    return failed ? 1 : 0;
}
