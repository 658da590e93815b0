/* The MCP authorization flow end to end (>>auth, >>client.auth), through the public API only,
   against tests/servers/auth_server.c: a protected MCP server on 127.0.0.1 that is its own
   authorization server (RFC 9728 and RFC 8414 metadata, RFC 7591 registration, /authorize
   checking every parameter, a token endpoint with PKCE and rotating refresh tokens). What the
   server saw is read from its /debug pages (tests/http_srv.h).

   The "browser" is open_url: a forked child (this program again, run with --browse URL) GETs the authorization URL, takes the 302's
   Location and GETs it (mcp.h's loopback receiver), checks the page, and exits with a status
   that says what went wrong; the parent is inside the blocking mcp_client_connect meanwhile,
   which keeps polling. Tokens live in an in-memory store behind load/save.

   Cases: the whole flow at connect (one registration, one authorization, one code grant),
   then tools/list and a call; an expired access token refreshed without a browser, the store
   holding the rotated refresh token; a revoked refresh token (invalid_grant: the flow again,
   the browser again); a second client on the same store (no browser; with an expired token:
   a refresh); mcp_client_auth_redirect with the program's own redirect URI and the
   non-blocking API; failures: a redirect with a wrong state (refused by the receiver, the
   wait goes on), a browser that never comes back, a token endpoint answering 500 with an
   HTML page, metadata without S256, and no desc.auth (MCP_ERR_HTTP with the challenge); kept
   results (the client's cache) and a new token after a refresh: a private tools/list asked
   again, a public one not. Every case checks that no token, code or client secret the server issued is in
   any error sentence, on_log line or URL given to open_url, and that no fd leaked.

   Usage: test_auth_client [DATA_DIR [SERVER]]   SERVER: default auth_server beside env
   MCP_TEST_SERVER, else build/auth_server. Upper time bounds are multiplied by 10 under
   valgrind, or by MCP_TEST_SLACK. */
#define _POSIX_C_SOURCE 200809L
#define _XOPEN_SOURCE 700           /* realpath */
#include "../mcp.h"
#include "test.h"
#include <arpa/inet.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static char server_path[PATH_MAX], self_path[PATH_MAX];
static int slack = 1;
#define LATE(ms) ((int)(ms) * slack)

#include "http_srv.h"

/* ---- a plain HTTP GET (the browser's, and the test's own) ----------------------------------- */

typedef struct page { int status; char location[2048]; char body[4096]; } page;

/* GET url (http://127.0.0.1:PORT/...); the status (-1: no answer), Location and body. */
static int http_get(const char *url, page *pg)
{
    struct sockaddr_in a;
    unsigned p = 0;
    int fd, n = 0;
    const char *path;
    char req[3072], *resp = NULL, *hend, *loc;
    size_t len = 0, cap = 0;
    memset(pg, 0, sizeof *pg);
    pg->status = -1;
    if (sscanf(url, "http://127.0.0.1:%u%n", &p, &n) != 1 || !(path = url + n) || *path != '/') return -1;
    if ((fd = socket(AF_INET, SOCK_STREAM, 0)) < 0) return -1;
    memset(&a, 0, sizeof a);
    a.sin_family = AF_INET; a.sin_port = htons((unsigned short)p); a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    snprintf(req, sizeof req, "GET %s HTTP/1.1\r\nHost: 127.0.0.1:%u\r\nConnection: close\r\n\r\n", path, p);
    if (connect(fd, (struct sockaddr *)&a, sizeof a) < 0 || send(fd, req, strlen(req), MSG_NOSIGNAL) < 0) {
        close(fd); return -1;
    }
    for (;;) {
        struct pollfd pf;
        ssize_t r;
        pf.fd = fd; pf.events = POLLIN;
        if (poll(&pf, 1, LATE(10000)) <= 0) break;
        if (cap - len < 4097) { char *t = (char *)realloc(resp, cap = cap * 2 + 8192); if (!t) break; resp = t; }
        if ((r = read(fd, resp + len, cap - len - 1)) < 0 && errno == EINTR) continue;
        if (r <= 0) break;
        len += (size_t)r;
    }
    close(fd);
    if (!resp) return -1;
    resp[len] = 0;
    if (sscanf(resp, "HTTP/1.%*c %d", &pg->status) != 1) pg->status = -1;
    if ((hend = strstr(resp, "\r\n\r\n")) != NULL) {
        *hend = 0;
        snprintf(pg->body, sizeof pg->body, "%s", hend + 4);
        if ((loc = strstr(resp, "\r\nLocation: ")) != NULL)
            snprintf(pg->location, sizeof pg->location, "%.*s", (int)strcspn(loc + 12, "\r\n"), loc + 12);
    }
    free(resp);
    return pg->status;
}

/* ---- what the program shows: collected, then searched for secrets -------------------------- */

static mcp_buf said;                         /* error sentences, on_log lines, URLs shown */

static void say(const char *text)
{
    mcp_buf_append(&said, text, strlen(text));
    mcp_buf_append(&said, "\n", 2);
    said.len--;                              /* NUL-terminated, the NUL not counted */
}

static void on_log(void *user, mcp_client *c, const char *message) { (void)user; (void)c; say(message); }

/* No secret the server issued is in what was said; returns how many secrets there were. */
static int no_secret_said(const srv *s)
{
    mcp_json_doc *d = dbg_json(s, "secrets");
    const mcp_json *v;
    size_t i;
    int n = 0;
    for (i = 0; (v = mcp_json_at(mcp_json_root(d), i)) != NULL; i++, n++)
        CHECKF(!said.data || !strstr(said.data, mcp_json_str(v)), "a secret (%.6s...) was shown: %s",
               mcp_json_str(v), said.data);
    mcp_json_free(d);
    return n;
}

/* ---- the token store ------------------------------------------------------------------------ */

typedef struct kv { char *key, *val; } kv;
static kv store[16];
static int saves;

static int st_load(void *user, const char *key, mcp_buf *value)
{
    int i;
    (void)user;
    for (i = 0; i < 16; i++)
        if (store[i].key && !strcmp(store[i].key, key)) return mcp_buf_append(value, store[i].val, strlen(store[i].val)) == MCP_OK;
    return 0;
}

static char *xdup(const char *s) { char *p = (char *)malloc(strlen(s) + 1); if (p) strcpy(p, s); return p; }

static void st_save(void *user, const char *key, const char *value)
{
    int i, free_slot = -1;
    (void)user;
    saves++;
    for (i = 0; i < 16; i++) {
        if (!store[i].key) { if (free_slot < 0) free_slot = i; continue; }
        if (strcmp(store[i].key, key)) continue;
        free(store[i].val);
        if (value) { store[i].val = xdup(value); return; }
        free(store[i].key); store[i].key = store[i].val = NULL;
        return;
    }
    if (value && free_slot >= 0) { store[free_slot].key = xdup(key); store[free_slot].val = xdup(value); }
}

static void store_clear(void)
{
    int i;
    for (i = 0; i < 16; i++) { free(store[i].key); free(store[i].val); store[i].key = store[i].val = NULL; }
    saves = 0;
}

static int store_has(const char *text)
{
    int i;
    for (i = 0; i < 16; i++) if (store[i].val && strstr(store[i].val, text)) return 1;
    return 0;
}

/* The last secret the server issued with this prefix ("rt-": a refresh token), into out. */
static int last_secret(const srv *s, const char *prefix, char *out, size_t n)
{
    mcp_json_doc *d = dbg_json(s, "secrets");
    const mcp_json *v;
    size_t i;
    out[0] = 0;
    for (i = 0; (v = mcp_json_at(mcp_json_root(d), i)) != NULL; i++)
        if (!strncmp(mcp_json_str(v), prefix, strlen(prefix))) snprintf(out, n, "%s", mcp_json_str(v));
    mcp_json_free(d);
    return out[0] != 0;
}

/* ---- the browser ------------------------------------------------------------------------------ */

enum { B_FOLLOW = 0, B_NEVER, B_KEEP };   /* follow the redirect (a child); never come back; keep the URL */
typedef struct browser { int mode, opens, nkids; pid_t kids[8]; char url[4096]; } browser;
static browser br;

/* The child (this program run again with --browse URL): authorization URL -> 302 -> the
   loopback receiver's page. Exit status: 0 fine, 10 no 302, 11 no Location, 12 the receiver
   did not answer 200, 13 not its page, 14 the page shows the code; 99 it could not start. */
static void browse_child(const char *url)
{
    static page pg;
    char code[512] = "";
    const char *c;
    if (http_get(url, &pg) != 302) _exit(10);
    if (!pg.location[0]) _exit(11);
    if ((c = strstr(pg.location, "code=")) != NULL) snprintf(code, sizeof code, "%.*s", (int)strcspn(c + 5, "&"), c + 5);
    {
        static char loc[2048];
        snprintf(loc, sizeof loc, "%s", pg.location);
        if (http_get(loc, &pg) != 200) _exit(12);
    }
    if (!strstr(pg.body, "The program has its answer")) _exit(13);
    if (code[0] && strstr(pg.body, code)) _exit(14);
    _exit(0);
}

static void open_url(void *user, const char *url)
{
    browser *b = (browser *)user;
    b->opens++;
    snprintf(b->url, sizeof b->url, "%s", url);
    say(url);
    if (b->mode != B_FOLLOW) return;
    fflush(NULL);
    if (b->nkids < 8 && (b->kids[b->nkids++] = fork()) == 0) {
        /* the child runs this program again as the browser: a fresh process (under valgrind
           not traced, and without the parent's heap to be taken for leaks) */
        execl(self_path, self_path, "--browse", url, (char *)NULL);
        _exit(99);
    }
}

/* The browsers' verdict, once they are done: 0 every one went through, else the first
   failure's status; -1: none ran. */
static int browser_done(void)
{
    int status = 0, k, verdict = -1;
    for (k = 0; k < br.nkids; k++) {
        int v;
        if (br.kids[k] <= 0 || waitpid(br.kids[k], &status, 0) != br.kids[k]) v = 101;
        else v = WIFEXITED(status) ? WEXITSTATUS(status) : 100;
        if (verdict <= 0) verdict = v;
    }
    br.nkids = 0;
    return verdict;
}

/* ---- one case's setting ------------------------------------------------------------------------ */

static srv S;
static mcp_auth auth;
static mcp_client_desc desc;
static int fds_before, fails_before;

/* A server with these flags, a description with desc.auth (with_auth) for it. */
static int begin(const char *const *flags, int with_auth)
{
    fds_before = count_fds();
    fails_before = t_fail;
    said.len = 0;
    if (said.data) said.data[0] = 0;
    memset(&br, 0, sizeof br);
    store_clear();
    if (!srv_start(&S, flags)) return 0;
    memset(&auth, 0, sizeof auth);
    auth.client_name = "test_auth_client";
    auth.offline_access = 1;
    auth.timeout_ms = LATE(20000);
    auth.user = &br;
    auth.open_url = open_url;
    auth.load = st_load;
    auth.save = st_save;
    memset(&desc, 0, sizeof desc);
    desc.transport = MCP_HTTP;
    desc.url = S.url;
    desc.client_name = "test_auth_client";
    desc.timeout_ms = LATE(20000);
    desc.on_log = on_log;
    desc.auth = with_auth ? &auth : NULL;
    return 1;
}

static void end(void)
{
    int n;
    if (t_fail > fails_before) {
        char *t = dbg(&S, "stats");
        printf("# server stats: %s\n", t ? t : "(none)");
        free(t);
    }
    browser_done();
    n = no_secret_said(&S);
    (void)n;
    srv_stop(&S);
    store_clear();
    CHECKF(count_fds() == fds_before, "fd leak: %d open before, %d after", fds_before, count_fds());
}

static mcp_client *connect_client(mcp_status *st, mcp_error *err)
{
    mcp_client *c = mcp_client_new(&desc, err);
    if (!c) { say(err->message); *st = err->status; return NULL; }
    *st = mcp_client_connect(c, err);
    if (*st != MCP_OK) say(err->message);
    return c;
}

/* tools/list has echo, and echo answers with its arguments. */
static void use_tools(mcp_client *c, const char *args)
{
    mcp_json_doc *r = NULL;
    mcp_error err;
    mcp_status st = mcp_client_list_tools(c, &r, &err);
    const char *name;
    if (st != MCP_OK) say(err.message);
    CHECKF(st == MCP_OK, "tools/list: %s", err.message);
    name = mcp_json_str(mcp_json_get(mcp_json_at(mcp_json_get(mcp_json_root(r), "tools"), 0), "name"));
    CHECKF(st != MCP_OK || (name && !strcmp(name, "echo")), "tools/list names %s", name ? name : "no tool");
    mcp_json_free(r); r = NULL;
    st = mcp_client_call_tool(c, "echo", args, &r, &err);
    if (st != MCP_OK) say(err.message);
    CHECKF(st == MCP_OK, "tools/call echo: %s", err.message);
    if (st == MCP_OK) {
        const char *t = mcp_json_str(mcp_json_get(mcp_json_at(mcp_json_get(mcp_json_root(r), "content"), 0), "text"));
        CHECKF(t && !strcmp(t, args), "echo answered %s, not %s", t ? t : "(nothing)", args);
    }
    mcp_json_free(r);
}

#define STAT(key) stat_of(&S, key)

/* ---- cases ------------------------------------------------------------------------------------- */

TEST_CASE(whole_flow_at_connect)
{
    static const char *const flags[] = { "--secret", NULL };
    mcp_error err;
    mcp_status st;
    mcp_client *c;
    char rt[128];
    if (!begin(flags, 1)) return;
    c = connect_client(&st, &err);
    CHECKF(st == MCP_OK, "connect: %s", err.message);
    CHECK(br.opens == 1);
    CHECKF(browser_done() == 0, "the browser did not get through (see browse_child's statuses)");
    CHECK(strstr(br.url, "code_challenge_method=S256") != NULL);
    CHECK(STAT("registrations") == 1);
    CHECK(STAT("authorizations") == 1);
    CHECK(STAT("authorize_errors") == 0);
    CHECK(STAT("code_grants") == 1);
    CHECK(STAT("refresh_grants") == 0);
    CHECK(STAT("token_errors") == 0);
    CHECK(STAT("unauthorized") >= 1);
    if (st == MCP_OK) use_tools(c, "{\"x\":1}");
    CHECK(STAT("tool_calls") == 1);
    CHECK(STAT("unauthorized") == 1);              /* after the flow every request had the token */
    CHECKF(last_secret(&S, "rt-", rt, sizeof rt) && store_has(rt), "the store holds the refresh token");
    CHECKF(last_secret(&S, "cs-", rt, sizeof rt) && store_has(rt), "the store holds the client secret");
    mcp_client_free(c);
    end();
}

/* HTTP+SSE (2024-11-05): the GET stream meets the 401 first; once authorized it opens again,
   and the POSTs to its endpoint carry the token too. */
TEST_CASE(http_sse_transport)
{
    static const char *const flags[] = { "--resource-root", NULL };
    mcp_error err;
    mcp_status st;
    mcp_client *c;
    if (!begin(flags, 1)) return;
    desc.transport = MCP_SSE;
    desc.url = S.sse_url;
    c = connect_client(&st, &err);
    CHECKF(st == MCP_OK, "connect over HTTP+SSE: %s", err.message);
    CHECK(br.opens == 1);
    CHECK(STAT("authorizations") == 1 && STAT("code_grants") == 1);
    CHECK(STAT("sse_streams") == 1);                /* the stream, opened once with the token */
    if (st == MCP_OK) use_tools(c, "{\"sse\":1}");
    CHECK(STAT("tool_calls") == 1);
    CHECK(STAT("unauthorized") == 1);               /* only the stream's first GET */
    mcp_client_free(c);
    end();
}

TEST_CASE(expired_access_token_is_refreshed)
{
    mcp_error err;
    mcp_status st;
    mcp_client *c;
    char rt1[128], rt2[128];
    if (!begin(NULL, 1)) return;
    c = connect_client(&st, &err);
    CHECKF(st == MCP_OK, "connect: %s", err.message);
    browser_done();
    CHECK(last_secret(&S, "rt-", rt1, sizeof rt1) && store_has(rt1));
    free(dbg(&S, "expire"));
    if (st == MCP_OK) use_tools(c, "{\"after\":\"expiry\"}");
    CHECK(br.opens == 1);                          /* no browser */
    CHECK(STAT("refresh_grants") == 1);
    CHECK(STAT("code_grants") == 1);
    CHECK(STAT("refresh_reuse") == 0);
    CHECK(STAT("tool_calls") == 1);
    CHECKF(last_secret(&S, "rt-", rt2, sizeof rt2) && strcmp(rt1, rt2), "a new refresh token was issued");
    CHECKF(store_has(rt2) && !store_has(rt1), "the store holds the rotated refresh token, not the old one");
    mcp_client_free(c);
    end();
}

TEST_CASE(revoked_refresh_token_starts_over)
{
    mcp_error err;
    mcp_status st;
    mcp_client *c;
    if (!begin(NULL, 1)) return;
    c = connect_client(&st, &err);
    CHECKF(st == MCP_OK, "connect: %s", err.message);
    CHECK(browser_done() == 0);
    free(dbg(&S, "revoke"));
    free(dbg(&S, "expire"));
    if (st == MCP_OK) use_tools(c, "{\"after\":\"revoke\"}");
    CHECK(br.opens == 2);                          /* invalid_grant: the browser again */
    CHECKF(browser_done() == 0, "the second browser did not get through");
    CHECK(STAT("token_errors") == 1);              /* the refresh's invalid_grant */
    CHECK(STAT("refresh_reuse") == 0);
    CHECK(STAT("authorizations") == 2);
    CHECK(STAT("code_grants") == 2);
    CHECK(STAT("registrations") == 1);             /* the registration held */
    CHECK(STAT("tool_calls") == 1);
    mcp_client_free(c);
    end();
}

TEST_CASE(second_client_on_the_same_store)
{
    mcp_error err;
    mcp_status st;
    mcp_client *c;
    if (!begin(NULL, 1)) return;
    c = connect_client(&st, &err);
    CHECKF(st == MCP_OK, "connect: %s", err.message);
    CHECK(browser_done() == 0);
    mcp_client_free(c);
    c = connect_client(&st, &err);                 /* the access token from the store */
    CHECKF(st == MCP_OK, "the second connect: %s", err.message);
    if (st == MCP_OK) use_tools(c, "{\"client\":2}");
    mcp_client_free(c);
    CHECK(br.opens == 1);
    CHECK(STAT("unauthorized") == 1);
    free(dbg(&S, "expire"));
    c = connect_client(&st, &err);                 /* the refresh token from the store */
    CHECKF(st == MCP_OK, "the third connect: %s", err.message);
    if (st == MCP_OK) use_tools(c, "{\"client\":3}");
    mcp_client_free(c);
    CHECK(br.opens == 1);
    CHECK(STAT("registrations") == 1);
    CHECK(STAT("authorizations") == 1);
    CHECK(STAT("refresh_grants") == 1);
    CHECK(STAT("tool_calls") == 2);
    end();
}

TEST_CASE(program_redirect_uri_and_auth_redirect)
{
    mcp_error err;
    mcp_status st = MCP_AGAIN;
    mcp_client *c;
    mcp_call *init;
    page pg;
    int64_t until;
    if (!begin(NULL, 1)) return;
    br.mode = B_KEEP;
    auth.redirect_uri = "http://127.0.0.1:1/callback";   /* nobody listens there */
    c = mcp_client_new(&desc, &err);
    CHECKF(c != NULL, "mcp_client_new: %s", err.message);
    if (!c) { end(); return; }
    init = mcp_client_connect_begin(c, &err);
    CHECKF(init != NULL, "connect_begin: %s", err.message);
    until = mcp_time_ms() + LATE(10000);
    while (init && !br.opens && mcp_time_ms() < until) mcp_client_poll(c, 50);
    CHECK(br.opens == 1);
    CHECK(init && mcp_call_status(init) == MCP_AGAIN);      /* the connect waits for the redirect */
    if (br.opens) {
        CHECK(http_get(br.url, &pg) == 302);
        CHECKF(!strncmp(pg.location, "http://127.0.0.1:1/callback?", 28), "Location: %s", pg.location);
        st = mcp_client_auth_redirect(c, pg.location, &err);
        if (st != MCP_OK) say(err.message);
        CHECKF(st == MCP_OK, "mcp_client_auth_redirect: %s", err.message);
    }
    while (init && mcp_call_status(init) == MCP_AGAIN && mcp_time_ms() < until) mcp_client_poll(c, 50);
    st = init ? mcp_call_result(init, NULL, &err) : MCP_ERR_INVALID;
    if (st != MCP_OK) say(err.message);
    CHECKF(st == MCP_OK, "the connect after the redirect: %s", err.message);
    if (init) mcp_call_free(init);
    CHECK(STAT("code_grants") == 1);
    CHECK(mcp_client_auth_redirect(c, "http://127.0.0.1:1/callback?code=x&state=y", &err) == MCP_ERR_INVALID);
    if (st == MCP_OK) use_tools(c, "{\"via\":\"auth_redirect\"}");
    mcp_client_free(c);
    end();
}

/* A program that shows the URL and exits: its next run (a new client on the same store)
   hands the redirect over before connecting; the flow the first left in the store is
   finished (the code redeemed with its verifier), and the connect needs no new sign-in. */
TEST_CASE(auth_redirect_in_a_later_run)
{
    mcp_error err;
    mcp_status st;
    mcp_client *c;
    mcp_call *init;
    page pg;
    int64_t until;
    if (!begin(NULL, 1)) return;
    br.mode = B_KEEP;
    auth.redirect_uri = "http://127.0.0.1:1/callback";
    c = mcp_client_new(&desc, &err);
    CHECKF(c != NULL, "mcp_client_new: %s", err.message);
    if (!c) { end(); return; }
    init = mcp_client_connect_begin(c, &err);
    until = mcp_time_ms() + LATE(10000);
    while (init && !br.opens && mcp_time_ms() < until) mcp_client_poll(c, 50);
    CHECK(br.opens == 1);
    if (init) mcp_call_free(init);
    mcp_client_free(c);                                   /* the first run ends here */
    CHECK(store_has("code_verifier"));                    /* its flow waits in the store */
    CHECK(br.opens == 1 && http_get(br.url, &pg) == 302);
    c = mcp_client_new(&desc, &err);                      /* the next run */
    CHECKF(c != NULL, "mcp_client_new: %s", err.message);
    if (!c) { end(); return; }
    st = mcp_client_auth_redirect(c, pg.location, &err);
    CHECKF(st == MCP_OK, "mcp_client_auth_redirect before the connect: %s", err.message);
    CHECK(STAT("code_grants") == 1);
    CHECK(!store_has("code_verifier"));                   /* over: nothing waits now */
    st = mcp_client_connect(c, &err);
    CHECKF(st == MCP_OK, "the connect with the token: %s", err.message);
    if (st == MCP_OK) use_tools(c, "{\"run\":2}");
    CHECK(br.opens == 1 && STAT("authorizations") == 1);
    mcp_client_free(c);
    end();
}

/* A redirect with another state is not this flow's answer (a forged one, an old tab): the
   loopback receiver refuses it (400) and goes on waiting, here until the browser's timeout. */
TEST_CASE(state_mismatch_refused)
{
    static const char *const flags[] = { "--bad-state", NULL };
    mcp_error err;
    mcp_status st;
    mcp_client *c;
    if (!begin(flags, 1)) return;
    auth.timeout_ms = 1500;
    c = connect_client(&st, &err);
    CHECKF(st == MCP_ERR_AUTH, "connect: %s (%s)", mcp_status_str(st), err.message);
    CHECKF(strstr(err.message, "browser") != NULL, "the sentence names the browser: %s", err.message);
    CHECK(browser_done() != 0);                    /* the receiver refused the redirect */
    CHECK(STAT("authorizations") == 1);
    CHECK(STAT("code_grants") == 0);               /* the code was not redeemed */
    mcp_client_free(c);
    end();
}

TEST_CASE(browser_never_comes_back)
{
    mcp_error err;
    mcp_status st;
    mcp_client *c;
    int64_t t0;
    if (!begin(NULL, 1)) return;
    br.mode = B_NEVER;
    auth.timeout_ms = 300;
    t0 = mcp_time_ms();
    c = connect_client(&st, &err);
    CHECKF(st == MCP_ERR_AUTH, "connect: %s (%s)", mcp_status_str(st), err.message);
    CHECKF(strstr(err.message, "browser") != NULL, "the sentence names the browser: %s", err.message);
    CHECK(mcp_time_ms() - t0 >= 300);
    CHECKF(mcp_time_ms() - t0 < LATE(5000), "it took %lld ms", (long long)(mcp_time_ms() - t0));
    CHECK(br.opens == 1);
    CHECK(STAT("code_grants") == 0);
    mcp_client_free(c);
    end();
}

/* A token endpoint answering 500 with an HTML page (a broken server, a proxy): MCP_ERR_HTTP
   naming the step and the status, after one browser (a failed flow on the server/discover
   probe does not make the connect try initialize and run the flow again). */
TEST_CASE(token_endpoint_500_html)
{
    static const char *const flags[] = { "--token500", NULL };
    int bs;
    mcp_error err;
    mcp_status st;
    mcp_client *c;
    if (!begin(flags, 1)) return;
    c = connect_client(&st, &err);
    CHECKF(st == MCP_ERR_HTTP, "connect: %s (%s)", mcp_status_str(st), err.message);
    CHECKF(strstr(err.message, "500") && strstr(err.message, "token endpoint"), "the sentence: %s", err.message);
    CHECKF((bs = browser_done()) == 0, "the browser: status %d", bs);
    CHECKF(br.opens == 1, "%d browsers opened", br.opens);
    CHECKF(STAT("authorizations") == 1, "%ld authorizations", STAT("authorizations"));
    CHECK(STAT("token_errors") == STAT("authorizations"));      /* every code met the 500 */
    mcp_client_free(c);
    end();
}

TEST_CASE(metadata_without_s256)
{
    static const char *const flags[] = { "--no-s256", NULL };
    mcp_error err;
    mcp_status st;
    mcp_client *c;
    if (!begin(flags, 1)) return;
    c = connect_client(&st, &err);
    CHECKF(st == MCP_ERR_AUTH, "connect: %s (%s)", mcp_status_str(st), err.message);
    CHECKF(strstr(err.message, "S256") != NULL, "the sentence names S256: %s", err.message);
    CHECK(br.opens == 0);
    CHECK(STAT("registrations") == 0);
    CHECK(STAT("authorizations") == 0);
    mcp_client_free(c);
    end();
}

TEST_CASE(no_desc_auth_keeps_the_401)
{
    mcp_error err;
    mcp_status st;
    mcp_client *c;
    if (!begin(NULL, 0)) return;
    c = connect_client(&st, &err);
    CHECKF(st == MCP_ERR_HTTP && err.http_status == 401, "connect: %s, HTTP %d (%s)", mcp_status_str(st),
           err.http_status, err.message);
    CHECKF(strstr(err.message, "WWW-Authenticate") && strstr(err.message, "resource_metadata"),
           "the sentence quotes the challenge: %s", err.message);
    CHECK(br.opens == 0);
    CHECK(STAT("registrations") == 0);
    mcp_client_free(c);
    end();
}

/* Kept results (>>client.cache) and a new access token: a private tools/list (cacheScope
   "private") is dropped when the refresh installs another token, a public one stays. The
   server counts the authorized requests: a kept result is not one. */
static long lists_after_a_new_token(const char *scope)
{
    char flag[40];
    const char *flags[] = { flag, NULL };
    mcp_error err;
    mcp_status st;
    mcp_client *c;
    mcp_client_stats cs;
    long n0, n1, asked = -1;
    snprintf(flag, sizeof flag, "--cache-scope=%s", scope);
    if (!begin(flags, 1)) return -1;
    c = connect_client(&st, &err);
    CHECKF(st == MCP_OK, "connect: %s", err.message);
    browser_done();
    if (st == MCP_OK) {
        use_tools(c, "{\"n\":1}");                       /* tools/list, then echo */
        n0 = STAT("mcp_requests");
        use_tools(c, "{\"n\":2}");                       /* tools/list kept: only echo is asked */
        CHECK(STAT("mcp_requests") == n0 + 1);
        free(dbg(&S, "expire"));
        use_tools(c, "{\"n\":3}");                       /* kept list; echo meets 401: a refresh */
        CHECK(STAT("refresh_grants") == 1);
        n1 = STAT("mcp_requests");
        use_tools(c, "{\"n\":4}");                       /* the new token: private asked again */
        asked = STAT("mcp_requests") - n1 - 1;
        mcp_client_get_stats(c, &cs);
        printf("# auth, cacheScope %s: tools/list asked %ld time(s) after the token changed (%llu hits in all)\n",
               scope, asked, (unsigned long long)cs.cache_hits);
        CHECK(br.opens == 1);
    }
    mcp_client_free(c);
    end();
    return asked;
}

TEST_CASE(kept_results_and_a_new_token)
{
    CHECK(lists_after_a_new_token("private") == 1);
    CHECK(lists_after_a_new_token("public") == 0);
}

#ifndef MCP_NO_HOST
/* A host's HTTP server that needs a sign-in: NEEDS_AUTH with the URL to show, no retry on a
   timer while the user takes their time, READY once the browser came back; its tools are
   then listed and called with the token. */
static int host_states[8], host_nstates;
static void host_state(void *user, mcp_host *h, const char *server, mcp_server_state st, const mcp_error *why)
{
    (void)user; (void)h; (void)server; (void)why;
    if (host_nstates < 8) host_states[host_nstates++] = (int)st;
}

TEST_CASE(host_server_needs_authorization)
{
    mcp_host_desc hd;
    mcp_host_server sv;
    mcp_host *h;
    mcp_error err;
    mcp_json_doc *r = NULL;
    mcp_status st;
    int64_t until;
    int i;
    if (!begin(NULL, 1)) return;
    br.mode = B_KEEP;                                    /* the user has not opened it yet */
    memset(&hd, 0, sizeof hd);
    hd.auth = &auth;
    hd.on_state = host_state;
    hd.retry_min_ms = 50;                                /* a timer, if one ran, would show at once */
    host_nstates = 0;
    h = mcp_host_new(&hd, &err);
    CHECK(h && mcp_host_add(h, "secured", &desc, &err) == MCP_OK);
    CHECK(mcp_host_connect(h, &err) == MCP_OK);
    CHECK(mcp_host_wait(h, LATE(10000)) == MCP_OK);
    CHECK(mcp_host_server_get(h, 0, &sv) == MCP_OK);
    CHECKF(sv.state == MCP_SERVER_NEEDS_AUTH, "state %d", (int)sv.state);
    CHECK(sv.auth_url && !strcmp(sv.auth_url, br.url) && strstr(sv.auth_url, "code_challenge=") != NULL);
    CHECK(br.opens == 1);                                /* the program's open_url was called too */
    for (i = 0; i < 10; i++) mcp_host_poll(h, 50);       /* half a second: nothing retries */
    CHECK(mcp_host_server_get(h, 0, &sv) == MCP_OK && sv.state == MCP_SERVER_NEEDS_AUTH && sv.attempts == 1);
    CHECK(br.opens == 1);
    fflush(NULL);
    if (br.nkids < 8 && (br.kids[br.nkids++] = fork()) == 0) {   /* now the user signs in */
        execl(self_path, self_path, "--browse", br.url, (char *)NULL);
        _exit(99);
    }
    until = mcp_time_ms() + LATE(15000);
    while (mcp_host_server_get(h, 0, &sv) == MCP_OK && sv.state != MCP_SERVER_READY && mcp_time_ms() < until)
        mcp_host_poll(h, 100);
    CHECKF(sv.state == MCP_SERVER_READY, "state %d after the sign-in", (int)sv.state);
    CHECK(sv.auth_url == NULL && sv.tools >= 1);
    CHECKF(browser_done() == 0, "the browser did not get through");
    st = mcp_host_call_tool(h, "secured__echo", "{\"x\":1}", &r, &err);
    CHECKF(st == MCP_OK, "call: %s", err.message);
    mcp_json_free(r);
    CHECK(host_nstates >= 3 && host_states[0] == MCP_SERVER_CONNECTING && host_states[1] == MCP_SERVER_NEEDS_AUTH &&
          host_states[host_nstates - 1] == MCP_SERVER_READY);
    CHECK(STAT("code_grants") == 1);
    mcp_host_free(h);
    end();
}
#endif

int main(int argc, char **argv)
{
    const char *srvp;
    char guess[PATH_MAX];
    if (argc == 3 && !strcmp(argv[1], "--browse")) browse_child(argv[2]);    /* open_url's child */
    if (!realpath(argv[0], self_path)) snprintf(self_path, sizeof self_path, "%s", argv[0]);
    test_args(&argc, argv);
    srvp = argc > 2 ? argv[2] : NULL;
    if (!srvp) {
        const char *ts = getenv("MCP_TEST_SERVER");
        const char *slash = ts ? strrchr(ts, '/') : NULL;
        if (slash) snprintf(guess, sizeof guess, "%.*s/auth_server", (int)(slash - ts), ts);
        else snprintf(guess, sizeof guess, "build/auth_server");
        srvp = guess;
    }
    if (getenv("LD_PRELOAD") && strstr(getenv("LD_PRELOAD"), "vgpreload")) slack = 10;   /* valgrind */
    if (getenv("MCP_TEST_SLACK") && atoi(getenv("MCP_TEST_SLACK")) > 0) slack = atoi(getenv("MCP_TEST_SLACK"));
    if (!realpath(srvp, server_path) || access(server_path, X_OK)) {
        fprintf(stderr, "test_auth_client: the test server \"%s\" is missing: build it from "
                        "tests/servers/auth_server.c, or pass its path as argv[2]\n", srvp);
        CHECK(!"auth test server present");
        return TEST_DONE();
    }
    signal(SIGPIPE, SIG_DFL);
    test_run();
    mcp_buf_free(&said);
    return TEST_DONE();
}
