/* Tests of the HTTP transport's faults of issue 15, one function per defect, against
   tests/servers/http_server.c (the flags and paths named below are described in its header
   comment) and, for the non-blocking close, tests/servers/test_server.c over stdio.

   1. t_starvation: one call of 200 ms and 64 that are never answered, each on its own
      connection: the quick one succeeds in about 200 ms (the I/O used to poll only the first
      64 connections, the newest first), and an outside poll() loop sleeps while the 64 hang
      (it used to spin at ~49,000 turns a second). Both orders: quick one first, and last.
   2. t_connection_limit: 1,000 calls in flight with the soft fd limit at 256 all succeed
      (each used to open its own socket: EMFILE); the server never sees more than
      desc.max_connections (16) + the stream budget (8) open at once; with max_connections 1
      the requests go in order on one connection, and a request queued behind a call that
      never ends still times out by its own deadline, without ever being sent.
   3. t_resend: a reused keep-alive connection reset after the server read the request
      (reset_after_read): a tools/call is not sent again (the server ran it once; the call
      fails saying the server "may have run it"); a tools/list is sent again and succeeds;
      an idle connection the server closed is not reused: a new one, no re-send.
      stats.resent counts the re-sends.
   4. t_redirects: 307 and 308 to /mcp/ are followed, method, body and headers kept, and the
      final URL serves the rest of the session (POSTs, the GET stream, the DELETE); 5 hops
      are followed, the 6th refused; 301 is refused, naming the Location to use instead;
      another origin is refused unless desc.http_cross_origin, and then gets neither
      Authorization nor desc.headers. stats.redirects counts the hops followed.
   5. t_sentences: an HTML error page becomes "HTTP 503 Service Unavailable: <its title>" (or
      its first text), never markup; an SSE answer cut mid-chunk says why the stream ended.
   6. t_event_loop: mcp_client_pollfd_count; mcp_client_close_begin (a close without
      blocking, driven by polls: stdio with a server that ignores stdin's EOF, and HTTP with
      its DELETE); mcp_client_pid.

   Built with -DTEST_OLD_HEADER the parts that need the new API (desc.max_connections,
   desc.http_cross_origin, stats.resent/redirects, mcp_client_pollfd_count/close_begin/pid)
   are left out, so that the behaviour of an older mcp.h can be tested.

   Usage: test_http_faults [DATA_DIR [HTTP_SERVER]]   HTTP_SERVER: default env
   MCP_TEST_HTTP_SERVER, else http_server beside env MCP_TEST_SERVER, else build/http_server.
   The stdio server: env MCP_TEST_SERVER, else build/test_server. Upper time bounds are
   multiplied by 10 under valgrind, or by MCP_TEST_SLACK. */
#define _POSIX_C_SOURCE 200809L
#define _XOPEN_SOURCE 700           /* realpath */
#include "../mcp.h"
#include "test.h"
#include "calls.h"
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
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static char server_path[PATH_MAX];   /* the HTTP test server (http_srv.h starts it) */
static char stdio_path[PATH_MAX];    /* the stdio test server */
static int slack = 1;
#define LATE(ms) ((int64_t)(ms) * slack)

#include "http_srv.h"

static srv S;                        /* the shared server, no flags */

static const char *nn(const char *s) { return s ? s : "(null)"; }
#define EQST(st, want, err) CHECKF((st) == (want), "status %d (%s), want %d (%s); message: %s", (int)(st), \
                                   mcp_status_str(st), (int)(want), mcp_status_str(want), (err).message)

/* ---- clients ---------------------------------------------------------------------------------- */

static int closes;                   /* on_close calls */
static mcp_error close_why;

static void cb_close(void *user, mcp_client *c, const mcp_error *why)
{
    (void)user; (void)c;
    closes++;
    if (why) close_why = *why;
}

static void base_desc(mcp_client_desc *d, const char *url)
{
    memset(d, 0, sizeof *d);
    d->transport = MCP_HTTP;
    d->url = url;
    d->timeout_ms = (int)LATE(10000);
    d->http_listen = -1;             /* no GET stream unless a test asks for one */
    d->on_close = cb_close;
    closes = 0;
}

/* New and connected, or NULL (a failed check says why). */
static mcp_client *open_client(const mcp_client_desc *d)
{
    mcp_error err;
    mcp_client *c = mcp_client_new(d, &err);
    mcp_status st;
    if (!c) { CHECKF(0, "mcp_client_new failed: %s", err.message); return NULL; }
    st = mcp_client_connect(c, &err);
    if (st != MCP_OK) {
        CHECKF(0, "connect to %s failed: %s (%s)", nn(d->url ? d->url : d->command), err.message, mcp_status_str(st));
        mcp_client_free(c);
        return NULL;
    }
    return c;
}


static mcp_call *send_tool(mcp_client *c, const char *name, const char *args, int timeout_ms)
{
    mcp_call_opts o;
    mcp_error err;
    mcp_call *call;
    memset(&o, 0, sizeof o);
    o.timeout_ms = timeout_ms;
    call = mcp_client_send_tool(c, name, args, &o, &err);
    if (!call) CHECKF(0, "sending %s failed: %s", name, err.message);
    return call;
}

/* One turn of an outside event loop: the client's fds and deadline, poll(), then
   mcp_client_poll(c, 0). The sleep is capped at cap ms. Returns mcp_client_poll's status. */
#define MAXF 1200
static mcp_status loop_turn(mcp_client *c, int cap)
{
    static mcp_pollfd f[MAXF];
    static struct pollfd pf[MAXF];
    int n = mcp_client_pollfds(c, f, MAXF), i, to = mcp_client_next_timeout(c);
    for (i = 0; i < n; i++) { pf[i].fd = f[i].fd; pf[i].events = f[i].events; pf[i].revents = 0; }
    if (to < 0 || to > cap) to = cap;
    poll(pf, (nfds_t)n, to);
    return mcp_client_poll(c, 0);
}

/* ---- the server's log ----------------------------------------------------------------------------- */

/* "METHOD path status rpc @conn; ..." for every record, into out (for messages). */
static const char *log_summary(const srv *s, char *out, size_t n)
{
    mcp_json_doc *d = dbg_json(s, "log");
    const mcp_json *r;
    size_t i, len = 0;
    out[0] = 0;
    for (i = 0; (r = mcp_json_at(mcp_json_root(d), i)) != NULL && len + 1 < n; i++) {
        int w = snprintf(out + len, n - len, "%s%s %s %.0f %s @%.0f", i ? "; " : "", nn(mcp_json_str(mcp_json_get(r, "method"))),
                         nn(mcp_json_str(mcp_json_get(r, "path"))), mcp_json_num(mcp_json_get(r, "status")),
                         nn(mcp_json_str(mcp_json_get(r, "rpc"))), mcp_json_num(mcp_json_get(r, "conn")));
        if (w < 0) break;
        len += (size_t)w;
        if (len >= n) len = n - 1;
    }
    mcp_json_free(d);
    return out;
}

static int log_count(const srv *s, const char *key, const char *val) { return log_find(s, key, val, 0, NULL, 0); }

/* Records with method and path as given (NULL: any), counted. */
static int log_count2(const srv *s, const char *method, const char *path)
{
    mcp_json_doc *d = dbg_json(s, "log");
    const mcp_json *r;
    size_t i;
    int n = 0;
    for (i = 0; (r = mcp_json_at(mcp_json_root(d), i)) != NULL; i++) {
        const char *m = mcp_json_str(mcp_json_get(r, "method")), *p = mcp_json_str(mcp_json_get(r, "path"));
        if ((!method || (m && !strcmp(m, method))) && (!path || (p && !strcmp(p, path)))) n++;
    }
    mcp_json_free(d);
    return n;
}

/* Records whose path starts with prefix. */
static int log_prefix(const srv *s, const char *prefix)
{
    mcp_json_doc *d = dbg_json(s, "log");
    const mcp_json *r;
    size_t i;
    int n = 0;
    for (i = 0; (r = mcp_json_at(mcp_json_root(d), i)) != NULL; i++)
        if (starts_with(mcp_json_str(mcp_json_get(r, "path")), prefix)) n++;
    mcp_json_free(d);
    return n;
}

/* A numeric field of the nth record with key == val (-1: none). */
static long log_num(const srv *s, const char *key, const char *val, int nth, const char *field)
{
    char rec[2048];
    mcp_json_doc *d;
    long v = -1;
    if (log_find(s, key, val, nth, rec, sizeof rec) <= nth) return -1;
    d = mcp_json_parse(rec, strlen(rec), NULL);
    if (mcp_json_typeof(mcp_json_get(mcp_json_root(d), field)) == MCP_JSON_NUMBER) v = (long)mcp_json_num(mcp_json_get(mcp_json_root(d), field));
    mcp_json_free(d);
    return v;
}

/* A string field of the nth record with key == val (val NULL: any record), into out ("(null)"
   when none). */
static const char *log_str(const srv *s, const char *key, const char *val, int nth, const char *field, char *out, size_t n)
{
    char rec[2048];
    mcp_json_doc *d;
    snprintf(out, n, "(null)");
    if (log_find(s, key, val, nth, rec, sizeof rec) <= nth) return out;
    d = mcp_json_parse(rec, strlen(rec), NULL);
    if (mcp_json_str(mcp_json_get(mcp_json_root(d), field))) snprintf(out, n, "%s", mcp_json_str(mcp_json_get(mcp_json_root(d), field)));
    mcp_json_free(d);
    return out;
}

static char logbuf[8192];

/* ---- 1. starvation: every connection is polled ----------------------------------------------------- */

static void starvation(int quick_last)
{
    mcp_client_desc d;
    mcp_client *c;
    mcp_call *quick = NULL, *hang[64];
    mcp_error err;
    mcp_status st;
    int64_t t0, took = -1, w0, turns = 0;
    int i, pending = 0;
    const char *order = quick_last ? "64 hanging calls, then the quick one" : "the quick call, then 64 hanging ones";
    srv_reset(&S);
    base_desc(&d, S.url);
#ifndef TEST_OLD_HEADER
    d.max_connections = 100;             /* every call on its own connection: all must be polled */
#endif
    if (!(c = open_client(&d))) return;
    t0 = mcp_time_ms();
    if (!quick_last) quick = send_tool(c, "slow", "{\"ms\":200}", (int)LATE(10000));
    for (i = 0; i < 64; i++) hang[i] = send_tool(c, "never", NULL, (int)LATE(4000));
    if (quick_last) quick = send_tool(c, "slow", "{\"ms\":200}", (int)LATE(10000));
    if (!quick) { mcp_client_free(c); return; }
    while (mcp_call_status(quick) == MCP_AGAIN && mcp_time_ms() - t0 < LATE(2500)) loop_turn(c, 250);
    if (mcp_call_status(quick) != MCP_AGAIN) took = mcp_time_ms() - t0;
    st = mcp_call_result(quick, NULL, &err);
    CHECKF(st == MCP_OK && took >= 0 && took < LATE(2000),
           "%s: the 200 ms call %s after %lld ms (status %s: %s); want it done in < %lld ms", order,
           st == MCP_AGAIN ? "was still pending" : "ended", (long long)(took >= 0 ? took : mcp_time_ms() - t0),
           mcp_status_str(st), st == MCP_AGAIN ? "-" : err.message, (long long)LATE(2000));
    /* the 64 hang (4 s timeouts): the loop must sleep, not spin */
    w0 = mcp_time_ms();
    while (mcp_time_ms() - w0 < 1000) { loop_turn(c, 250); turns++; }
    CHECKF(turns < 200, "%s: the outside poll loop turned %lld times in 1 s while 64 calls hung (want < 200)",
           order, (long long)turns);
    for (i = 0; i < 64; i++) if (hang[i] && mcp_call_status(hang[i]) == MCP_AGAIN) pending++;
    CHECKF(pending == 64, "%s: %d of the 64 never-answered calls still pending after %lld ms (want all: their "
           "timeout is 4 s)", order, pending, (long long)(mcp_time_ms() - t0));
    CHECKF(stat_of(&S, "max_open") >= 65, "%s: the server saw at most %ld connections open at once (want 65: "
           "each call on its own)", order, stat_of(&S, "max_open"));
    for (i = 0; i < 64; i++) mcp_call_free(hang[i]);
    mcp_call_free(quick);
    mcp_client_free(c);
}

TEST_CASE(starvation)
{
    int fds = count_fds();
    starvation(0);
    starvation(1);
    CHECKF(count_fds() == fds, "starvation: %d fds open before, %d after", fds, count_fds());
}

/* ---- 2. a bound on connections ------------------------------------------------------------------------ */

TEST_CASE(connection_limit)
{
    enum { N = 1000 };
    static mcp_call *calls[N];
    struct rlimit old, low;
    mcp_client_desc d;
    mcp_client *c;
    mcp_error err, first;
    mcp_json_doc *doc;
    int i, ok = 0, sent = 0, fds = count_fds(), nfail = 0;
    long max_open;
    char want[64];
    int64_t t0;
    first.message[0] = 0;
    if (getrlimit(RLIMIT_NOFILE, &old) < 0 || old.rlim_max < 256) { SKIP("cannot set the fd limit to 256"); return; }
    low = old;
    low.rlim_cur = 256;
    CHECKF(setrlimit(RLIMIT_NOFILE, &low) == 0, "setrlimit(RLIMIT_NOFILE, 256): %s", strerror(errno));
    srv_reset(&S);
    base_desc(&d, S.url);
    d.timeout_ms = (int)LATE(30000);
    if ((c = open_client(&d)) != NULL) {
        t0 = mcp_time_ms();
        for (i = 0; i < N; i++) {
            char a[32];
            snprintf(a, sizeof a, "{\"i\":%d}", i);
            calls[i] = mcp_client_send_tool(c, "echo", a, NULL, &err);
            if (calls[i]) sent++;
            else if (!nfail++) first = err;
        }
        CHECKF(sent == N, "%d of %d calls could be sent; the first failure: %s", sent, N, first.message);
#ifndef TEST_OLD_HEADER
        CHECKF(mcp_client_pollfd_count(c) <= 24, "with %d calls in flight the client watches %d fds (want <= 16 + 8)",
               N, mcp_client_pollfd_count(c));
#endif
        for (i = 0; i < N; i++) {
            if (!calls[i]) continue;
            mcp_call_wait(calls[i], (int)LATE(30000));
            if (mcp_call_result(calls[i], &doc, &err) == MCP_OK) {
                snprintf(want, sizeof want, "{\"i\":%d}", i);
                if (text_of(mcp_json_root(doc)) && !strcmp(text_of(mcp_json_root(doc)), want)) ok++;
                else if (!nfail++) snprintf(first.message, sizeof first.message, "call %d answered %s", i, nn(text_of(mcp_json_root(doc))));
                mcp_json_free(doc);
            } else if (!nfail++) first = err;
            mcp_call_free(calls[i]);
        }
        CHECKF(ok == N, "with the fd limit at 256, %d of %d calls in flight succeeded (in %lld ms); the first "
               "failure: %s", ok, N, (long long)(mcp_time_ms() - t0), first.message);
        max_open = stat_of(&S, "max_open");
        CHECKF(max_open <= 16 + 8, "the server saw %ld connections open at once for %d calls (want <= 16 + 8)",
               max_open, N);
        mcp_client_free(c);
    }
    CHECKF(setrlimit(RLIMIT_NOFILE, &old) == 0, "restoring the fd limit: %s", strerror(errno));
#ifndef TEST_OLD_HEADER
    {   /* one connection: requests go in order; one queued behind a call that never ends times out
           by its own deadline and is never sent */
        mcp_call *never, *q, *seq[6];
        int64_t took;
        mcp_status st;
        long prev = -1;
        int inorder = 1;
        srv_reset(&S);
        base_desc(&d, S.url);
        d.max_connections = 1;
        if ((c = open_client(&d)) != NULL) {
            for (i = 0; i < 6; i++) seq[i] = send_tool(c, "echo", "{\"seq\":1}", (int)LATE(5000));
            for (i = 0; i < 6; i++) {
                st = seq[i] ? mcp_call_wait(seq[i], (int)LATE(5000)) : MCP_ERR_INVALID;
                if (seq[i]) mcp_call_result(seq[i], NULL, &err);
                EQST(st, MCP_OK, err);
                mcp_call_free(seq[i]);
            }
            for (i = 0; i < 6; i++) {             /* the JSON-RPC ids, in the order the server got them */
                char idtxt[32];
                log_str(&S, "rpc", "tools/call", i, "id", idtxt, sizeof idtxt);
                if (atol(idtxt) <= prev) inorder = 0;
                prev = atol(idtxt);
            }
            CHECKF(inorder && log_count(&S, "rpc", "tools/call") == 6, "max_connections 1: the 6 requests did not "
                   "reach the server once each, in order: %s", log_summary(&S, logbuf, sizeof logbuf));
            CHECKF(stat_of(&S, "max_open") == 1, "max_connections 1: the server saw %ld connections open at once",
                   stat_of(&S, "max_open"));
            srv_reset(&S);
            never = send_tool(c, "never", NULL, (int)LATE(5000));
            for (i = 0; i < 10 && log_count(&S, "rpc", "tools/call") < 1; i++) mcp_client_poll(c, 20);
            t0 = mcp_time_ms();
            q = send_tool(c, "echo", "{\"queued\":1}", 300);
            st = q ? mcp_call_wait(q, (int)LATE(5000)) : MCP_ERR_INVALID;
            took = mcp_time_ms() - t0;
            if (q) mcp_call_result(q, NULL, &err);
            EQST(st, MCP_ERR_TIMEOUT, err);
            CHECKF(took >= 250 && took < LATE(1500), "the queued call with a 300 ms timeout ended after %lld ms",
                   (long long)took);
            mcp_client_poll(c, 50);
            CHECKF(log_count(&S, "rpc", "tools/call") == 1, "the server saw %d tools/call (want only the never-"
                   "answered one: the queued call timed out before its turn): %s", log_count(&S, "rpc", "tools/call"),
                   log_summary(&S, logbuf, sizeof logbuf));
            CHECKF(never && mcp_call_status(never) == MCP_AGAIN, "the never-answered call ended (%s)",
                   never ? mcp_status_str(mcp_call_status(never)) : "not sent");
            mcp_call_free(q);
            mcp_call_free(never);
            mcp_client_free(c);
        }
    }
#endif
    CHECKF(count_fds() == fds, "connection limit: %d fds open before, %d after", fds, count_fds());
}

/* ---- 3. requests sent twice ------------------------------------------------------------------------------ */

TEST_CASE(resend)
{
    mcp_client_desc d;
    mcp_client *c;
    mcp_error err;
    mcp_status st;
    mcp_json_doc *doc = NULL;
    char out[512];
    long n;
    int fds = count_fds();
#ifndef TEST_OLD_HEADER
    mcp_client_stats cs;
#endif
    /* (a) a tools/call on a reused connection reset after the server read it: run once, not again */
    srv_reset(&S);
    base_desc(&d, S.url);
    if ((c = open_client(&d)) != NULL) {
        st = tool(c, "echo", "{\"warm\":1}", out, sizeof out, &err);
        EQST(st, MCP_OK, err);
        srv_reset(&S);
        st = tool(c, "echo", "{\"_mode\":\"reset_after_read\",\"n\":1}", out, sizeof out, &err);
        CHECKF(st == MCP_ERR_IO || st == MCP_ERR_CLOSED, "a tools/call whose reused connection was reset after the "
               "server read it ended with %s (want MCP_ERR_IO or MCP_ERR_CLOSED): %s", mcp_status_str(st),
               st == MCP_OK ? out : err.message);
        CHECKF(contains(err.message, "may have run it"), "its message does not say the server may have run it: \"%s\"",
               st == MCP_OK ? "(none: it succeeded)" : err.message);
        n = stat_of(&S, "exec_tools_call");
        CHECKF(n == 1, "the server ran that tools/call %ld times (want once): %s", n, log_summary(&S, logbuf, sizeof logbuf));
        CHECKF(stat_of(&S, "resets") == 1, "the server reset %ld connections (want 1: the call must go out on the "
               "reused one)", stat_of(&S, "resets"));
        st = tool(c, "echo", "{\"after\":1}", out, sizeof out, &err);
        EQST(st, MCP_OK, err);
#ifndef TEST_OLD_HEADER
        mcp_client_get_stats(c, &cs);
        CHECKF(cs.resent == 0, "stats.resent is %llu after a tools/call that was not sent again (want 0)",
               (unsigned long long)cs.resent);
#endif
        mcp_client_free(c);
    }
    /* (b) a tools/list in the same situation is sent again, on a new connection, and succeeds */
    srv_reset(&S);
    base_desc(&d, S.url);
    if ((c = open_client(&d)) != NULL) {
        st = tool(c, "echo", "{\"warm\":2}", out, sizeof out, &err);
        EQST(st, MCP_OK, err);
        srv_reset(&S);
        free(dbg(&S, "arm_reset"));
        st = mcp_client_request(c, "tools/list", NULL, &doc, &err);
        EQST(st, MCP_OK, err);
        CHECKF(st != MCP_OK || mcp_json_len(mcp_json_get(mcp_json_root(doc), "tools")) > 0, "tools/list gave no tools");
        mcp_json_free(doc);
        n = stat_of(&S, "exec_tools_list");
        CHECKF(n == 2, "the server got tools/list %ld times (want 2: reset, then sent again): %s", n,
               log_summary(&S, logbuf, sizeof logbuf));
        CHECKF(stat_of(&S, "resets") == 1, "the server reset %ld connections (want 1)", stat_of(&S, "resets"));
        CHECKF(log_num(&S, "rpc", "tools/list", 0, "conn") != log_num(&S, "rpc", "tools/list", 1, "conn"),
               "tools/list was sent again on the connection that was reset: %s", log_summary(&S, logbuf, sizeof logbuf));
#ifndef TEST_OLD_HEADER
        mcp_client_get_stats(c, &cs);
        CHECKF(cs.resent == 1, "stats.resent is %llu after one tools/list sent again (want 1)", (unsigned long long)cs.resent);
#endif
        mcp_client_free(c);
    }
    /* (c) a connection the server closes after 1 s idle is not reused 2 s later: a new one, no re-send */
    {
        srv I;
        const char *args[] = { "--mode=idle", "--idle-ms=1000", NULL };
        long conns0;
        if (srv_start(&I, args)) {
            base_desc(&d, I.url);
            if ((c = open_client(&d)) != NULL) {
                st = tool(c, "echo", "{\"n\":1}", out, sizeof out, &err);
                EQST(st, MCP_OK, err);
                conns0 = stat_of(&I, "conns");
                nap(2000);
                st = tool(c, "echo", "{\"n\":2}", out, sizeof out, &err);
                EQST(st, MCP_OK, err);
                CHECKF(log_count(&I, "rpc", "tools/call") == 2, "the server got %d tools/call for 2 calls: %s",
                       log_count(&I, "rpc", "tools/call"), log_summary(&I, logbuf, sizeof logbuf));
                CHECKF(log_num(&I, "rpc", "tools/call", 0, "conn") != log_num(&I, "rpc", "tools/call", 1, "conn"),
                       "the second call went on the connection the server had closed: %s",
                       log_summary(&I, logbuf, sizeof logbuf));
                CHECKF(stat_of(&I, "conns") - conns0 == 1, "%ld new connections for the second call (want 1)",
                       stat_of(&I, "conns") - conns0);
#ifndef TEST_OLD_HEADER
                mcp_client_get_stats(c, &cs);
                CHECKF(cs.resent == 0, "stats.resent is %llu after a call on a fresh connection (want 0)",
                       (unsigned long long)cs.resent);
#endif
                mcp_client_free(c);
            }
            srv_stop(&I);
        }
    }
    CHECKF(count_fds() == fds, "re-sends: %d fds open before, %d after", fds, count_fds());
}

/* ---- 4. redirects -------------------------------------------------------------------------------------- */

/* Connects to url expecting a refusal: the status, err.http_status and the message. */
static void refused(const char *what, const char *url, int want_http, const char *must1, const char *must2)
{
    mcp_client_desc d;
    mcp_client *c;
    mcp_error err;
    mcp_status st;
    base_desc(&d, url);
    c = mcp_client_new(&d, &err);
    if (!c) { CHECKF(0, "%s: mcp_client_new: %s", what, err.message); return; }
    st = mcp_client_connect(c, &err);
    CHECKF(st == MCP_ERR_HTTP && err.http_status == want_http, "%s: connect ended with %s, http_status %d (want "
           "MCP_ERR_HTTP, %d): %s", what, mcp_status_str(st), err.http_status, want_http, err.message);
    CHECKF(contains(err.message, must1), "%s: the message does not contain \"%s\": \"%s\"", what, must1, err.message);
    if (must2) CHECKF(contains(err.message, must2), "%s: the message does not contain \"%s\": \"%s\"", what, must2, err.message);
    mcp_client_free(c);
}

TEST_CASE(redirects)
{
    srv A, B;
    char other[160], url[200], out[4096], want[200];
    const char *args[2];
    mcp_client_desc d;
    mcp_client *c;
    mcp_error err;
    mcp_status st;
    int i, total, fds = count_fds();
#ifndef TEST_OLD_HEADER
    mcp_client_stats cs;
#endif
    if (!srv_start(&B, NULL)) return;
    snprintf(other, sizeof other, "--other=%s", B.url);
    args[0] = other; args[1] = NULL;
    if (!srv_start(&A, args)) { srv_stop(&B); return; }

    /* 307 to /mcp/ (relative), the GET stream on: the final URL serves everything after */
    {
        const char *h[] = { "X-Test-Mode: redir307", NULL };
        srv_reset(&A);
        base_desc(&d, A.url);
        d.headers = h;
        d.http_listen = 0;
        if ((c = open_client(&d)) != NULL) {
            st = tool(c, "echo", "{\"via\":307}", out, sizeof out, &err);
            EQST(st, MCP_OK, err);
            CHECKF(st != MCP_OK || !strcmp(out, "{\"via\":307}"), "the call after the redirect answered %s", out);
            for (i = 0; i < 40 && log_count2(&A, "GET", NULL) == 0; i++) mcp_client_poll(c, 50);
#ifndef TEST_OLD_HEADER
            mcp_client_get_stats(c, &cs);
            CHECKF(cs.redirects == 1, "307: stats.redirects is %llu (want 1)", (unsigned long long)cs.redirects);
#endif
            mcp_client_free(c);
            total = log_count2(&A, NULL, NULL);
            CHECKF(log_count2(&A, NULL, "/mcp") == 1 && log_num(&A, "path", "/mcp", 0, "status") == 307,
                   "307: want one request to /mcp, answered 307, then all at /mcp/: %s", log_summary(&A, logbuf, sizeof logbuf));
            CHECKF(log_count2(&A, NULL, "/mcp/") == total - 1 && total >= 5, "307: %d of %d requests went to /mcp/ "
                   "(want all but the first): %s", log_count2(&A, NULL, "/mcp/"), total, log_summary(&A, logbuf, sizeof logbuf));
            CHECKF(log_count2(&A, "GET", "/mcp/") >= 1, "307: no GET stream at /mcp/: %s", log_summary(&A, logbuf, sizeof logbuf));
            CHECKF(log_count2(&A, "DELETE", "/mcp/") == 1, "307: no DELETE at /mcp/: %s", log_summary(&A, logbuf, sizeof logbuf));
            {   /* the redirected POST went again to /mcp/, the same message */
                char rpc0[64], rpc1[64], m1[16], p1[64];
                log_str(&A, "n", NULL, 0, "rpc", rpc0, sizeof rpc0);
                log_str(&A, "n", NULL, 1, "rpc", rpc1, sizeof rpc1);
                log_str(&A, "n", NULL, 1, "method", m1, sizeof m1);
                log_str(&A, "n", NULL, 1, "path", p1, sizeof p1);
                CHECKF(!strcmp(rpc0, rpc1) && strcmp(rpc0, "(null)") && !strcmp(m1, "POST") && !strcmp(p1, "/mcp/"),
                       "307: the request after the redirect is not the same POST at /mcp/: %s",
                       log_summary(&A, logbuf, sizeof logbuf));
            }
            CHECKF(log_count(&A, "mode", "redir307") == total, "307: %d of %d requests kept the caller's header",
                   log_count(&A, "mode", "redir307"), total);
        }
    }
    /* 308 */
    {
        const char *h[] = { "X-Test-Mode: redir308", NULL };
        srv_reset(&A);
        base_desc(&d, A.url);
        d.headers = h;
        if ((c = open_client(&d)) != NULL) {
            st = tool(c, "echo", "{\"via\":308}", out, sizeof out, &err);
            EQST(st, MCP_OK, err);
#ifndef TEST_OLD_HEADER
            mcp_client_get_stats(c, &cs);
            CHECKF(cs.redirects == 1, "308: stats.redirects is %llu (want 1)", (unsigned long long)cs.redirects);
#endif
            mcp_client_free(c);
            total = log_count2(&A, NULL, NULL);
            CHECKF(log_count2(&A, NULL, "/mcp") == 1 && log_num(&A, "path", "/mcp", 0, "status") == 308 &&
                   log_count2(&A, NULL, "/mcp/") == total - 1, "308: want one request to /mcp (308), the rest at /mcp/: %s",
                   log_summary(&A, logbuf, sizeof logbuf));
        }
    }
    /* 5 hops: /hop/4 -> 3 -> 2 -> 1 -> 0 -> /mcp */
    srv_reset(&A);
    snprintf(url, sizeof url, "http://127.0.0.1:%d/hop/4", A.port);
    base_desc(&d, url);
    if ((c = open_client(&d)) != NULL) {
        st = tool(c, "echo", "{\"hops\":5}", out, sizeof out, &err);
        EQST(st, MCP_OK, err);
#ifndef TEST_OLD_HEADER
        mcp_client_get_stats(c, &cs);
        CHECKF(cs.redirects == 5, "5 hops: stats.redirects is %llu (want 5)", (unsigned long long)cs.redirects);
#endif
        mcp_client_free(c);
        CHECKF(log_prefix(&A, "/hop/") == 5 && stat_of(&A, "redirects") == 5, "5 hops: %d requests to /hop/ (want 5): %s",
               log_prefix(&A, "/hop/"), log_summary(&A, logbuf, sizeof logbuf));
        CHECKF(log_count2(&A, NULL, "/mcp") == log_count2(&A, NULL, NULL) - 5, "5 hops: the requests after the "
               "connect did not go straight to /mcp: %s", log_summary(&A, logbuf, sizeof logbuf));
    }
    /* 6 hops: refused after the 6th 307 */
    srv_reset(&A);
    snprintf(url, sizeof url, "http://127.0.0.1:%d/hop/5", A.port);
    refused("6 hops", url, 307, "redirect", NULL);
    CHECKF(log_prefix(&A, "/hop/") == 6 && log_count2(&A, NULL, "/mcp") == 0, "6 hops: want 6 requests to /hop/ and none "
           "to /mcp: %s", log_summary(&A, logbuf, sizeof logbuf));
    /* 301: refused, naming the URL to use */
    srv_reset(&A);
    snprintf(url, sizeof url, "http://127.0.0.1:%d/moved", A.port);
    snprintf(want, sizeof want, "http://127.0.0.1:%d/mcp", A.port);
    refused("301", url, 301, want, "instead");
    CHECKF(log_count2(&A, NULL, "/mcp") == 0, "301: the client followed it: %s", log_summary(&A, logbuf, sizeof logbuf));
    /* another origin: refused by default */
    srv_reset(&A); srv_reset(&B);
    snprintf(url, sizeof url, "http://127.0.0.1:%d/cross", A.port);
    refused("307 to another origin", url, 307, "another origin", B.url);
    CHECKF(stat_of(&B, "requests") == 0, "307 to another origin: the other server got %ld requests (want none)",
           stat_of(&B, "requests"));
#ifndef TEST_OLD_HEADER
    {   /* ... followed with http_cross_origin, without Authorization or the caller's headers */
        const char *h[] = { "Authorization: Bearer s3cr3t", "X-Custom: secret-value", NULL };
        srv_reset(&A); srv_reset(&B);
        base_desc(&d, url);
        d.headers = h;
        d.http_cross_origin = 1;
        if ((c = open_client(&d)) != NULL) {
            st = tool(c, "headers", NULL, out, sizeof out, &err);
            EQST(st, MCP_OK, err);
            CHECKF(st == MCP_OK && !contains(out, "authorization") && !contains(out, "x-custom") && !contains(out, "s3cr3t"),
                   "cross origin: the other server got the caller's credentials or headers: %s", out);
            mcp_client_get_stats(c, &cs);
            CHECKF(cs.redirects == 1, "cross origin: stats.redirects is %llu (want 1)", (unsigned long long)cs.redirects);
            mcp_client_free(c);
            CHECKF(log_count2(&B, NULL, NULL) >= 3, "cross origin: the other server got %d requests (want the "
                   "initialize, notifications, the call, the DELETE): %s", log_count2(&B, NULL, NULL),
                   log_summary(&B, logbuf, sizeof logbuf));
            {
                mcp_json_doc *lg = dbg_json(&B, "log");
                const mcp_json *r;
                size_t j;
                int with_auth = 0;
                for (j = 0; (r = mcp_json_at(mcp_json_root(lg), j)) != NULL; j++)
                    if (mcp_json_typeof(mcp_json_get(r, "auth")) == MCP_JSON_STRING) with_auth++;
                mcp_json_free(lg);
                CHECKF(with_auth == 0, "cross origin: %d requests to the other origin carried Authorization", with_auth);
            }
            CHECKF(log_count2(&A, NULL, NULL) == 1 && log_find(&A, "auth", "Bearer s3cr3t", 0, NULL, 0) == 1,
                   "cross origin: want one request at the first origin, with the token: %s", log_summary(&A, logbuf, sizeof logbuf));
            CHECKF(log_count2(&B, "DELETE", "/mcp") == 1, "cross origin: no DELETE at the final URL: %s",
                   log_summary(&B, logbuf, sizeof logbuf));
        }
    }
#endif
    srv_stop(&A);
    srv_stop(&B);
    CHECKF(count_fds() == fds, "redirects: %d fds open before, %d after", fds, count_fds());
}

/* ---- 5. sentences ---------------------------------------------------------------------------------------- */

static void html_error(mcp_client *c, const char *mode, int code, const char *prefix, const char *text)
{
    char args[64], out[256];
    mcp_error err;
    mcp_status st;
    snprintf(args, sizeof args, "{\"_mode\":\"%s\"}", mode);
    st = tool(c, "echo", args, out, sizeof out, &err);
    CHECKF(st == MCP_ERR_HTTP && err.http_status == code, "%s: %s, http_status %d (want MCP_ERR_HTTP, %d): %s", mode,
           mcp_status_str(st), err.http_status, code, err.message);
    CHECKF(starts_with(err.message, prefix), "%s: the message does not start with \"%s\": \"%s\"", mode, prefix, err.message);
    CHECKF(contains(err.message, text), "%s: the message does not contain \"%s\": \"%s\"", mode, text, err.message);
    CHECKF(!strchr(err.message, '<'), "%s: the message has markup: \"%s\"", mode, err.message);
}

TEST_CASE(sentences)
{
    mcp_client_desc d;
    mcp_client *c;
    mcp_call *call;
    mcp_error err;
    mcp_status st;
    char out[256], want[128];
    srv_reset(&S);
    base_desc(&d, S.url);
    if (!(c = open_client(&d))) return;
    html_error(c, "html503", 503, "HTTP 503 Service Unavailable: ", "Down for maintenance");
    html_error(c, "html502", 502, "HTTP 502 Bad Gateway: ", "The gateway got no answer upstream");
    /* an SSE answer cut in the middle of a chunk */
    call = send_tool(c, "echo", "{\"_mode\":\"cutchunk\"}", (int)LATE(5000));
    if (call) {
        snprintf(want, sizeof want, "No response received for request ID %lld", (long long)mcp_call_id(call));
        mcp_call_wait(call, (int)LATE(5000));
        st = mcp_call_result(call, NULL, &err);
        CHECKF(st != MCP_OK && st != MCP_AGAIN, "cutchunk: the call ended with %s", mcp_status_str(st));
        CHECKF(contains(err.message, want) && (contains(err.message, "chunk") || contains(err.message, "closed")),
               "cutchunk: the message does not say the stream was cut: \"%s\"", err.message);
        mcp_call_free(call);
    }
    st = tool(c, "echo", "{\"ok\":1}", out, sizeof out, &err);
    EQST(st, MCP_OK, err);
    mcp_client_free(c);
}

/* ---- 6. what an event loop needs ----------------------------------------------------------------------------- */

#ifndef TEST_OLD_HEADER
TEST_CASE(event_loop)
{
    static mcp_pollfd f[MAXF];
    mcp_client_desc d;
    mcp_client *c;
    mcp_call *calls[12];
    mcp_error err;
    mcp_status st;
    char out[64];
    int i, n, turns, fds = count_fds();
    int64_t t0, took;
    long pid;
    /* (a) mcp_client_pollfd_count: every fd, whatever max is given */
    srv_reset(&S);
    base_desc(&d, S.url);
    if ((c = open_client(&d)) != NULL) {
        for (i = 0; i < 12; i++) calls[i] = send_tool(c, "never", NULL, (int)LATE(5000));
        for (i = 0; i < 100 && log_count(&S, "rpc", "tools/call") < 12; i++) mcp_client_poll(c, 20);
        n = mcp_client_pollfd_count(c);
        CHECKF(n > 8, "mcp_client_pollfd_count is %d with 12 calls in flight on their connections (want > 8)", n);
        CHECKF(mcp_client_pollfds(c, f, 8) == 8, "mcp_client_pollfds(c, f, 8) filled %d", mcp_client_pollfds(c, f, 8));
        CHECKF(mcp_client_pollfds(c, f, n) == n, "mcp_client_pollfds(c, f, %d) filled %d", n, mcp_client_pollfds(c, f, n));
        CHECKF(mcp_client_pollfds(c, f, MAXF) == n, "mcp_client_pollfds(c, f, %d) filled %d, the count is %d", MAXF,
               mcp_client_pollfds(c, f, MAXF), n);
        CHECKF(mcp_client_pid(c) == 0, "mcp_client_pid of an HTTP client is %ld (want 0)", mcp_client_pid(c));
        for (i = 0; i < 12; i++) mcp_call_free(calls[i]);
        mcp_client_free(c);
    }
    /* (b) a close that does not block: stdio, a server that ignores stdin's EOF (SIGTERM after
       close_timeout_ms) */
    {
        const char *a[] = { "--ignore-eof", NULL };
        memset(&d, 0, sizeof d);
        d.transport = MCP_STDIO;
        d.command = stdio_path;
        d.args = a;
        d.close_timeout_ms = 500;
        d.timeout_ms = (int)LATE(10000);
        d.on_close = cb_close;
        closes = 0;
        if ((c = open_client(&d)) != NULL) {
            pid = mcp_client_pid(c);
            CHECKF(pid > 0 && kill((pid_t)pid, 0) == 0, "mcp_client_pid is %ld (kill(pid, 0): %s)", pid,
                   pid > 0 && kill((pid_t)pid, 0) ? strerror(errno) : "ok");
            st = tool(c, "pid", NULL, out, sizeof out, &err);
            EQST(st, MCP_OK, err);
            CHECKF(atol(out) == pid, "the server says its pid is %s, mcp_client_pid says %ld", out, pid);
            t0 = mcp_time_ms();
            st = mcp_client_close_begin(c);
            took = mcp_time_ms() - t0;
            CHECKF(st == MCP_AGAIN, "stdio: mcp_client_close_begin returned %s (want MCP_AGAIN: the server ignores EOF)",
                   mcp_status_str(st));
            CHECKF(took < LATE(100), "stdio: mcp_client_close_begin took %lld ms (want < 100)", (long long)took);
            for (turns = 0; mcp_time_ms() - t0 < LATE(5000); turns++) if (loop_turn(c, 250) == MCP_ERR_CLOSED) break;
            took = mcp_time_ms() - t0;
            CHECKF(mcp_client_poll(c, 0) == MCP_ERR_CLOSED, "stdio: still not closed after %lld ms", (long long)took);
            CHECKF(took >= 400 && took < LATE(2500), "stdio: the close took %lld ms (want about close_timeout_ms, 500)",
                   (long long)took);
            CHECKF(turns < 500, "stdio: the outside loop turned %d times during the close (want < 500)", turns);
            CHECKF(closes == 1, "stdio: on_close fired %d times", closes);
            errno = 0;
            CHECKF(pid > 0 && kill((pid_t)pid, 0) < 0 && errno == ESRCH, "stdio: the server (pid %ld) is still there "
                   "after the close (kill: %s)", pid, strerror(errno));
            t0 = mcp_time_ms();
            mcp_client_free(c);
            took = mcp_time_ms() - t0;
            CHECKF(took < LATE(100), "stdio: mcp_client_free after the close took %lld ms", (long long)took);
            CHECKF(closes == 1, "stdio: on_close fired %d times after free", closes);
        }
    }
    /* ... HTTP: the DELETE goes out during the polls */
    srv_reset(&S);
    base_desc(&d, S.url);
    if ((c = open_client(&d)) != NULL) {
        char sid[64];
        t0 = mcp_time_ms();
        st = mcp_client_close_begin(c);
        took = mcp_time_ms() - t0;
        CHECKF(st == MCP_AGAIN, "HTTP: mcp_client_close_begin returned %s (want MCP_AGAIN: the DELETE is to be sent)",
               mcp_status_str(st));
        CHECKF(took < LATE(100), "HTTP: mcp_client_close_begin took %lld ms", (long long)took);
        for (turns = 0; mcp_time_ms() - t0 < LATE(5000); turns++) if (loop_turn(c, 250) == MCP_ERR_CLOSED) break;
        CHECKF(mcp_client_poll(c, 0) == MCP_ERR_CLOSED, "HTTP: still not closed after %lld ms",
               (long long)(mcp_time_ms() - t0));
        CHECKF(log_count2(&S, "DELETE", "/mcp") == 1, "HTTP: want one DELETE during the polls: %s",
               log_summary(&S, logbuf, sizeof logbuf));
        log_str(&S, "method", "DELETE", 0, "sid", sid, sizeof sid);
        CHECKF(starts_with(sid, "mcp-"), "HTTP: the DELETE carried session id %s", sid);
        CHECKF(closes == 1, "HTTP: on_close fired %d times", closes);
        t0 = mcp_time_ms();
        mcp_client_free(c);
        CHECKF(mcp_time_ms() - t0 < LATE(100), "HTTP: mcp_client_free after the close took %lld ms",
               (long long)(mcp_time_ms() - t0));
    }
    /* ... a client never connected closes at once */
    base_desc(&d, S.url);
    if ((c = mcp_client_new(&d, &err)) != NULL) {
        st = mcp_client_close_begin(c);
        CHECKF(st == MCP_OK, "a client never connected: mcp_client_close_begin returned %s (want MCP_OK)", mcp_status_str(st));
        CHECKF(mcp_client_poll(c, 0) == MCP_ERR_CLOSED, "a client never connected: poll after close_begin did not say closed");
        mcp_client_free(c);
    }
    CHECKF(count_fds() == fds, "event loop: %d fds open before, %d after", fds, count_fds());
}
#endif

static long long clock_ms(void) { return (long long)mcp_time_ms(); }

int main(int argc, char **argv)
{
    const char *srvp;
    const char *ts = getenv("MCP_TEST_SERVER");
    char guess[PATH_MAX];
    int64_t t0 = mcp_time_ms();
    test_args(&argc, argv);
    srvp = argc > 2 ? argv[2] : getenv("MCP_TEST_HTTP_SERVER");
    if (!srvp || !*srvp) {
        const char *slash = ts ? strrchr(ts, '/') : NULL;
        if (slash) snprintf(guess, sizeof guess, "%.*s/http_server", (int)(slash - ts), ts);
        else snprintf(guess, sizeof guess, "build/http_server");
        srvp = guess;
    }
    if (getenv("LD_PRELOAD") && strstr(getenv("LD_PRELOAD"), "vgpreload")) slack = 10;
    if (getenv("MCP_TEST_SLACK") && atoi(getenv("MCP_TEST_SLACK")) > 0) slack = atoi(getenv("MCP_TEST_SLACK"));
    if (!realpath(srvp, server_path) || access(server_path, X_OK)) {
        fprintf(stderr, "test_http_faults: the HTTP test server \"%s\" is missing\n", srvp);
        CHECK(!"HTTP test server present");
        return TEST_DONE();
    }
    if (!realpath(ts && *ts ? ts : "build/test_server", stdio_path) || access(stdio_path, X_OK)) {
        fprintf(stderr, "test_http_faults: the stdio test server \"%s\" is missing\n", ts && *ts ? ts : "build/test_server");
        CHECK(!"stdio test server present");
        return TEST_DONE();
    }
    if (!srv_start(&S, NULL)) return TEST_DONE();
    test_clock_ms = clock_ms;             /* "# case  N ms" after each case */
    test_run();
    srv_stop(&S);
    printf("# total %lld ms\n", (long long)(mcp_time_ms() - t0));
    return TEST_DONE();
}
