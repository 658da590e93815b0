/* Tests of the MCP client over stdio (>>rpc, >>transport, >>client), issue 4: "The MCP client
   over stdio ... proven on real servers". Public API only, against tests/servers/test_server.c,
   a real process that behaves, and misbehaves on demand.

   Every scenario runs inside a guard that checks, when it ends: no fd leaked (the entries of
   /proc/self/fd), no child left (waitpid(-1, WNOHANG) says ECHILD: no zombie), the signal
   dispositions of SIGPIPE, SIGCHLD and SIGTERM and the signal mask unchanged, and no SIGPIPE
   left pending. SIGPIPE keeps its default disposition throughout: a write that raised it
   would kill this process, and the summary line would never be printed.

   Scenarios, in order: connect (server info, capabilities, instructions, misuse); version
   negotiation (pinned, another supported one, unsupported ones, a ping during initialize);
   every typed call, the generic request and notify; capabilities the server did not declare
   (refused locally, nothing sent); requests from the server (ping answered for us, roots,
   sampling, elicitation: results and errors, immediate and deferred, cancelled by the server,
   no on_request: -32601); notifications (logging with a level, list_changed, resource updated,
   progress, cancelled, batches); non-blocking use (thousands in flight, answered in reverse,
   random order, out of order, mcp_call_wait, an outside poll() loop); timeouts (default, per
   call, none, reset on progress, maximum total, late answers, initialize); cancellation over
   the pipe (the server is told, a late answer counted, one honoured; the rest is tested once
   against the in-memory transport: tests/test_transport.c, cancel*); malformed lines, unknown ids, line limits; stderr (lines, CRLF, the last line at
   EOF, megabytes with and without newlines); the server exiting or crashing (mid-call, during
   initialize, with a grandchild holding its stdout); pipes (stdin closed by the server: no
   SIGPIPE, the call times out; stdout closed; a server that stops reading and floods); close (in-flight calls,
   on_close once, SIGTERM, SIGKILL, grandchildren, from a callback); spawn errors, env, cwd,
   PATH, sh -c; blocking calls from callbacks; a bad line ending a full read (last: under
   AddressSanitizer a read past the buffer stops the program there).

   Usage: test_client [DATA_DIR [SERVER]]   SERVER: the test server binary; default: env
   MCP_TEST_SERVER, else build/test_server. MCP_TEST_QUICK=1 shrinks the big loops; upper time
   bounds are multiplied by 10 under valgrind, or by MCP_TEST_SLACK. */
#ifdef __linux__
#define _GNU_SOURCE                 /* sched_setaffinity: one CPU for client and server */
#else
#define _POSIX_C_SOURCE 200809L
#define _XOPEN_SOURCE 700           /* realpath */
#endif
#include "../mcp.h"
#include "test.h"
/* What the callbacks saw: calls.h's seen (notes, closes, logs) with these fields too. */
#define SEEN_FIELDS                                                                                           \
    long floods; char flood_last[64];                                                                         \
    int errs; char err[MAXREC][128]; size_t err_len[MAXREC]; size_t err_total, err_max;                       \
    int reqs; char req[MAXREC][64];                                                                           \
    mcp_request *held[8]; int nheld;                                                                          \
    int nested;                      /* 1: list_changed -> blocking list_tools; 2: roots -> blocking echo */  \
    mcp_status nested_st; int nested_tools; int nested_calls;                                                 \
    int close_on_note;               /* close the client from on_notification of this count */                \
    int progress; double prog[MAXREC], total[MAXREC]; char pmsg[MAXREC][32];
#include "calls.h"
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#ifdef __linux__
#include <sched.h>
#endif
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#ifdef __linux__
#include <sys/syscall.h>
#endif
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static const char *server;           /* absolute path of the test server */
static char server_dir[PATH_MAX];
static char tmpdir[PATH_MAX];
static int quick;
static int slack = 1;                /* upper time bounds are multiplied by this (valgrind: 10) */
#define LATE(ms) ((int64_t)(ms) * slack)

static const char *nn(const char *s) { return s ? s : "(null)"; }
#define EQS(a, b) CHECKF(!strcmp(nn(a), (b)), "got \"%s\", want \"%s\"", nn(a), (b))
#define EQST(st, want, err) CHECKF((st) == (want), "status %d (%s), want %d; message: %s", (int)(st), \
                                   mcp_status_str(st), (int)(want), (err).message)

/* ---- small helpers -------------------------------------------------------------------------- */

/* A process is gone when kill says ESRCH, or it is a zombie nobody has reaped yet. */
static int pid_gone(pid_t pid, int wait_ms)
{
    int64_t end = mcp_time_ms() + wait_ms;
    char path[64], buf[512], *p;
    for (;;) {
        FILE *f;
        if (kill(pid, 0) < 0 && errno == ESRCH) return 1;
        snprintf(path, sizeof path, "/proc/%ld/stat", (long)pid);
        if ((f = fopen(path, "r")) != NULL) {
            size_t n = fread(buf, 1, sizeof buf - 1, f);
            fclose(f);
            buf[n] = 0;
            p = strrchr(buf, ')');
            if (p && p[1] == ' ' && (p[2] == 'Z' || p[2] == 'X')) return 1;
        }
        if (mcp_time_ms() >= end) return 0;
        nap(10);
    }
}

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

static int starts(const char *s, const char *prefix) { return s && !strncmp(s, prefix, strlen(prefix)); }

/* ---- the scenario guard --------------------------------------------------------------------- */

typedef struct guard {
    const char *name;
    int fds;
    struct sigaction pipe, chld, term;
    sigset_t mask;
    int64_t t0;
    int checks;
} guard;

static int same_action(const struct sigaction *a, const struct sigaction *b)
{
    return a->sa_handler == b->sa_handler && a->sa_flags == b->sa_flags;
}

static void g_begin(guard *g, const char *name)
{
    g->name = name;
    g->fds = count_fds();
    sigaction(SIGPIPE, NULL, &g->pipe);
    sigaction(SIGCHLD, NULL, &g->chld);
    sigaction(SIGTERM, NULL, &g->term);
    sigprocmask(SIG_SETMASK, NULL, &g->mask);
    g->t0 = mcp_time_ms();
    g->checks = t_pass + t_fail;
}

static void g_end(guard *g)
{
    struct sigaction a;
    sigset_t m, pend;
    int fds = count_fds(), i, r;
    CHECKF(fds == g->fds, "%s: fd leak: %d open before, %d after", g->name, g->fds, fds);
    errno = 0;
    r = waitpid(-1, NULL, WNOHANG);
    CHECKF(r == -1 && errno == ECHILD, "%s: a child process is left (waitpid said %d, %s)", g->name, r,
           strerror(errno));
    sigaction(SIGPIPE, NULL, &a);
    CHECKF(same_action(&a, &g->pipe) && a.sa_handler == SIG_DFL, "%s: SIGPIPE disposition changed", g->name);
    sigaction(SIGCHLD, NULL, &a);
    CHECKF(same_action(&a, &g->chld), "%s: SIGCHLD disposition changed", g->name);
    sigaction(SIGTERM, NULL, &a);
    CHECKF(same_action(&a, &g->term), "%s: SIGTERM disposition changed", g->name);
    sigprocmask(SIG_SETMASK, NULL, &m);
    for (i = 1; i < 32; i++)
        if (sigismember(&m, i) != sigismember(&g->mask, i)) break;
    CHECKF(i == 32, "%s: the signal mask changed (signal %d)", g->name, i);
    sigpending(&pend);
    CHECKF(!sigismember(&pend, SIGPIPE), "%s: a SIGPIPE is left pending", g->name);
    printf("# %-34s %5lld ms %4d checks\n", g->name, (long long)(mcp_time_ms() - g->t0), t_pass + t_fail - g->checks);
    fflush(stdout);
}

/* ---- what the callbacks saw ----------------------------------------------------------------- */
/* (notes, closes and logs are calls.h's seen; the fields this test adds: SEEN_FIELDS, above) */

static char big[1 << 16];           /* tool texts */

/* calls.h's cb_note, but "flood N" messages only counted, and the nested call and the close
   a test asks for */
static void cb_note_client(void *user, mcp_client *c, const char *method, const mcp_json *params)
{
    seen *s = (seen *)user;
    const char *data = mcp_json_str(mcp_json_get(params, "data"));
    if (data && !strncmp(data, "flood ", 6)) {
        s->floods++;
        snprintf(s->flood_last, sizeof s->flood_last, "%s", data);
        return;
    }
    seen_note(s, method, params);
    if (s->nested == 1 && !strcmp(method, "notifications/tools/list_changed") && !s->nested_calls++) {
        mcp_json_doc *d = NULL;
        mcp_error e;
        s->nested_st = mcp_client_list_tools(c, &d, &e);
        s->nested_tools = (int)mcp_json_len(mcp_json_get(mcp_json_root(d), "tools"));
        mcp_json_free(d);
    }
    if (s->close_on_note && s->notes == s->close_on_note) mcp_client_close(c);
}

static void cb_stderr(void *user, mcp_client *c, const char *line, size_t len)
{
    seen *s = (seen *)user;
    (void)c;
    if (s->errs < MAXREC) {
        snprintf(s->err[s->errs], sizeof s->err[0], "%.*s", (int)(len < 127 ? len : 127), line);
        s->err_len[s->errs] = len;
    }
    s->errs++;
    s->err_total += len;
    if (len > s->err_max) s->err_max = len;
}

static void cb_request(void *user, mcp_client *c, mcp_request *req)
{
    seen *s = (seen *)user;
    const char *m = mcp_request_method(req);
    if (s->reqs < MAXREC) snprintf(s->req[s->reqs], sizeof s->req[0], "%s", m);
    s->reqs++;
    if (!strcmp(m, "roots/list")) {
        if (s->nested == 2) {
            char text[256], result[512];
            mcp_error e;
            s->nested_st = tool(c, "echo", "{\"from\":\"callback\"}", text, sizeof text, &e);
            s->nested_calls++;
            snprintf(result, sizeof result, "{\"roots\":[{\"uri\":\"file:///nested\",\"name\":\"%s\"}]}",
                     s->nested_st == MCP_OK ? "echoed" : "failed");
            mcp_request_reply(req, result, NULL);
            return;
        }
        mcp_request_reply(req, "{\"roots\":[{\"uri\":\"file:///work\",\"name\":\"work\"}]}", NULL);
    } else if (!strcmp(m, "sampling/createMessage") || !strcmp(m, "elicitation/create")) {
        if (s->nheld < 8) s->held[s->nheld++] = req;
        else mcp_request_reply_error(req, -32603, "too many held", NULL);
    } else {
        mcp_request_reply_error(req, -32601, "Method not found", NULL);
    }
}

/* Whether this system gives pidfds (mcp.h watches its child through one; without, it looks
   every 250 ms). Valgrind does not know the system call. */
static int have_pidfd(void)
{
#if defined(__linux__) && defined(SYS_pidfd_open)
    int fd = (int)syscall(SYS_pidfd_open, getpid(), 0);
    if (fd >= 0) { close(fd); return 1; }
#endif
    return 0;
}

static void desc_for(mcp_client_desc *d, seen *s, const char *const *args)
{
    memset(d, 0, sizeof *d);
    memset(s, 0, sizeof *s);
    d->transport = MCP_STDIO;
    d->command = server;
    d->args = args;
    d->user = s;
    d->on_notification = cb_note_client;
    d->on_stderr = cb_stderr;
    d->on_close = cb_close;
    d->on_log = cb_log;
    d->timeout_ms = 5000;
    d->close_timeout_ms = 200;
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

static const char *history(mcp_client *c)
{
    mcp_error err;
    if (tool(c, "history", NULL, big, sizeof big, &err) != MCP_OK) return "";
    return big;
}

static int server_pid(mcp_client *c)
{
    char t[64];
    mcp_error err;
    if (tool(c, "pid", NULL, t, sizeof t, &err) != MCP_OK) return -1;
    return atoi(t);
}

/* ---- 1. connect: server info, capabilities, instructions, versions ------------------------- */

TEST_CASE(connect)
{
    guard g;
    seen s;
    mcp_client_desc d;
    mcp_client *c;
    mcp_error err;
    mcp_status st;
    const mcp_json *caps;
    mcp_json_doc *doc;
    mcp_client_stats stats;
    g_begin(&g, "connect");
    desc_for(&d, &s, NULL);
    d.client_name = "test-client"; d.client_version = "9.9";

    c = mcp_client_new(&d, &err);
    CHECK(c != NULL);
    st = mcp_client_request(c, "ping", NULL, NULL, &err);   /* before connect */
    EQST(st, MCP_ERR_INVALID, err);
    EQS(err.message, "The client is not connected yet: call mcp_client_connect first.");
    CHECK(mcp_client_protocol_version(c) == NULL && mcp_client_server_info(c) == NULL);
    st = mcp_client_connect(c, &err);
    EQST(st, MCP_OK, err);
    EQS(mcp_client_protocol_version(c), "2025-11-25");
    EQS(mcp_json_str(mcp_json_get(mcp_client_server_info(c), "name")), "test_server");
    EQS(mcp_json_str(mcp_json_get(mcp_client_server_info(c), "version")), "1.2.3");
    EQS(mcp_json_str(mcp_json_get(mcp_client_server_info(c), "title")), "mcp.h test server");
    caps = mcp_client_server_capabilities(c);
    CHECK(mcp_json_is_true(mcp_json_get(mcp_json_get(caps, "tools"), "listChanged")));
    CHECK(mcp_json_is_true(mcp_json_get(mcp_json_get(caps, "resources"), "subscribe")));
    CHECK(mcp_json_get(caps, "prompts") && mcp_json_get(caps, "logging") && mcp_json_get(caps, "completions"));
    EQS(mcp_client_instructions(c), "Use the echo tool to test.\nEverything else is for misbehaving.");
    st = mcp_client_connect(c, &err);
    EQST(st, MCP_ERR_INVALID, err);
    EQS(err.message, "mcp_client_connect was already called on this client.");

    /* what the server saw: initialize params, then notifications/initialized */
    st = tool(c, "client", NULL, big, sizeof big, &err);
    EQST(st, MCP_OK, err);
    doc = mcp_json_parse(big, strlen(big), NULL);
    EQS(mcp_json_str(mcp_json_get(mcp_json_root(doc), "protocolVersion")), "2025-11-25");
    EQS(mcp_json_str(mcp_json_get(mcp_json_get(mcp_json_root(doc), "clientInfo"), "name")), "test-client");
    EQS(mcp_json_str(mcp_json_get(mcp_json_get(mcp_json_root(doc), "clientInfo"), "version")), "9.9");
    CHECK(mcp_json_typeof(mcp_json_get(mcp_json_root(doc), "capabilities")) == MCP_JSON_OBJECT &&
          mcp_json_len(mcp_json_get(mcp_json_root(doc), "capabilities")) == 0);   /* no on_request */
    mcp_json_free(doc);
    EQS(history(c), "[{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}]");
    mcp_client_get_stats(c, &stats);
    /* sent: the server/discover probe, initialize, notifications/initialized, 2 tool calls;
       received: the probe's error and 3 answers */
    CHECKF(stats.sent == 5 && stats.received == 4, "sent %llu received %llu", (unsigned long long)stats.sent,
           (unsigned long long)stats.received);
    CHECK(stats.dropped == 0 && stats.unknown_ids == 0);
    mcp_client_free(c);
    CHECKF(s.closes == 1, "on_close fired %d times", s.closes);
    EQST(s.why.status, MCP_ERR_CLOSED, s.why);
    EQS(s.why.message, "the client closed the connection");
    CHECK(s.notes == 0 && s.logs == 0 && s.errs == 0);

    /* no instructions */
    {
        const char *args[] = { "--no-instructions", NULL };
        desc_for(&d, &s, args);
        c = open_client(&d);
        CHECK(mcp_client_instructions(c) == NULL);
        EQS(mcp_json_str(mcp_json_get(mcp_client_server_info(c), "name")), "test_server");
        mcp_client_free(c);
    }
    /* bad descriptions */
    desc_for(&d, &s, NULL);
    d.protocol_version = "2099-01-01";
    CHECK(mcp_client_new(&d, &err) == NULL);
    EQST(err.status, MCP_ERR_INVALID, err);
    EQS(err.message, "Protocol version \"2099-01-01\" is not one this client speaks (2026-07-28, "
                     "2025-11-25, 2025-06-18, 2025-03-26, 2024-11-05).");
    desc_for(&d, &s, NULL);
    d.command = NULL;
    CHECK(mcp_client_new(&d, &err) == NULL);
    EQST(err.status, MCP_ERR_INVALID, err);
    desc_for(&d, &s, NULL);
    d.capabilities_json = "[1]";
    CHECK(mcp_client_new(&d, &err) == NULL);
    EQST(err.status, MCP_ERR_INVALID, err);
    EQS(err.message, "desc.capabilities_json is not a JSON object.");
    CHECK(mcp_client_new(NULL, &err) == NULL && err.status == MCP_ERR_INVALID);
    /* a client never connected: close and free are fine, calls fail as closed */
    desc_for(&d, &s, NULL);
    c = mcp_client_new(&d, &err);
    CHECK(mcp_client_close(c) == MCP_OK);
    st = mcp_client_ping(c, &err);
    EQST(st, MCP_ERR_CLOSED, err);
    EQS(err.message, "Transport closed");
    mcp_client_free(c);
    mcp_client_free(NULL);
    g_end(&g);
}

TEST_CASE(versions)
{
    guard g;
    seen s;
    mcp_client_desc d;
    mcp_client *c;
    mcp_error err;
    mcp_status st;
    mcp_json_doc *doc;
    g_begin(&g, "version negotiation");
    {   /* pinned: the server echoes it */
        desc_for(&d, &s, NULL);
        d.protocol_version = "2025-03-26";
        c = open_client(&d);
        EQS(mcp_client_protocol_version(c), "2025-03-26");
        tool(c, "client", NULL, big, sizeof big, &err);
        doc = mcp_json_parse(big, strlen(big), NULL);
        EQS(mcp_json_str(mcp_json_get(mcp_json_root(doc), "protocolVersion")), "2025-03-26");
        mcp_json_free(doc);
        st = tool(c, "echo", "{\"v\":1}", big, sizeof big, &err);
        EQST(st, MCP_OK, err);
        mcp_client_free(c);
    }
    {   /* the server answers another version this client supports: accepted */
        const char *args[] = { "--version=2024-11-05", NULL };
        desc_for(&d, &s, args);
        c = open_client(&d);
        EQS(mcp_client_protocol_version(c), "2024-11-05");
        st = mcp_client_ping(c, &err);
        EQST(st, MCP_OK, err);
        mcp_client_free(c);
    }
    {   /* an unsupported version: MCP_ERR_PROTOCOL naming both, and the client is closed */
        const char *args[] = { "--version=1999-01-01", NULL };
        desc_for(&d, &s, args);
        c = mcp_client_new(&d, &err);
        st = mcp_client_connect(c, &err);
        EQST(st, MCP_ERR_PROTOCOL, err);
        EQS(err.message, "The server answered initialize with protocol version \"1999-01-01\", but this client "
                         "asked for \"2025-11-25\" and supports 2025-11-25, 2025-06-18, 2025-03-26 and 2024-11-05.");
        CHECK(mcp_client_protocol_version(c) == NULL);
        st = mcp_client_ping(c, &err);
        EQST(st, MCP_ERR_CLOSED, err);
        EQS(err.message, "Transport closed");
        CHECKF(s.closes == 1, "on_close fired %d times", s.closes);
        mcp_client_free(c);
        CHECK(s.closes == 1);
    }
    {   /* pinned, and the server answers a different (supported) version */
        const char *args[] = { "--version=2025-03-26", NULL };
        desc_for(&d, &s, args);
        d.protocol_version = "2025-06-18";
        c = mcp_client_new(&d, &err);
        st = mcp_client_connect(c, &err);
        EQST(st, MCP_ERR_PROTOCOL, err);
        EQS(err.message, "The server answered initialize with protocol version \"2025-03-26\", but this client "
                         "was pinned to \"2025-06-18\".");
        mcp_client_free(c);
    }
    {   /* the server pings the client before it answers initialize: answered for us */
        const char *args[] = { "--init=ping", NULL };
        desc_for(&d, &s, args);
        c = open_client(&d);
        EQS(mcp_client_protocol_version(c), "2025-11-25");
        CHECK(s.reqs == 0);
        mcp_client_free(c);
    }
    g_end(&g);
}

/* ---- 2. every typed call, generic request and notify ---------------------------------------- */

TEST_CASE(typed)
{
    guard g;
    seen s;
    mcp_client_desc d;
    mcp_client *c;
    mcp_error err;
    mcp_status st;
    mcp_json_doc *doc = NULL;
    const mcp_json *r, *arr;
    mcp_client_stats s0, s1;
    g_begin(&g, "typed calls");
    desc_for(&d, &s, NULL);
    c = open_client(&d);

    st = mcp_client_list_tools(c, &doc, &err);           /* two pages */
    EQST(st, MCP_OK, err);
    arr = mcp_json_get(mcp_json_root(doc), "tools");
    CHECKF(mcp_json_len(arr) == 26, "%d tools", (int)mcp_json_len(arr));
    EQS(mcp_json_str(mcp_json_get(mcp_json_at(arr, 0), "name")), "echo");
    EQS(mcp_json_str(mcp_json_get(mcp_json_at(arr, 13), "name")), "batch");   /* first of page 2 */
    EQS(mcp_json_str(mcp_json_get(mcp_json_at(arr, 25), "name")), "history");
    CHECK(mcp_json_get(mcp_json_root(doc), "nextCursor") == NULL);
    mcp_json_free(doc);
    {   /* a server that pages for ever: the cursor handed back, or 10,000 pages, is an error */
        const char *loop[] = { "--pages=loop", NULL }, *endless[] = { "--pages=endless", NULL };
        mcp_client *p;
        seen ps;
        desc_for(&d, &ps, loop);
        p = open_client(&d);
        doc = NULL;
        st = mcp_client_list_tools(p, &doc, &err);
        EQST(st, MCP_ERR_PROTOCOL, err);
        EQS(err.message, "The server's tools/list returned the same nextCursor twice.");
        CHECK(doc == NULL);
        mcp_client_free(p);
        desc_for(&d, &ps, endless);
        p = open_client(&d);
        st = mcp_client_list_tools(p, &doc, &err);
        EQST(st, MCP_ERR_PROTOCOL, err);
        EQS(err.message, "The server's tools/list kept returning pages past 10000.");
        mcp_client_get_stats(p, &s1);
        CHECKF(s1.sent >= 10000 && s1.sent < 10010, "%llu messages sent", (unsigned long long)s1.sent);
        mcp_client_free(p);
        desc_for(&d, &s, NULL);
    }

    st = mcp_client_call_tool(c, "add", "{\"a\":2,\"b\":3.5}", &doc, &err);
    EQST(st, MCP_OK, err);
    r = mcp_json_root(doc);
    EQS(text_of(r), "5.5");
    CHECK(mcp_json_num(mcp_json_get(mcp_json_get(r, "structuredContent"), "sum")) == 5.5);
    CHECK(mcp_json_get(r, "isError") == NULL);
    mcp_json_free(doc);
    st = tool(c, "echo", "{\"s\":\"h\\u00e9 \\\"q\\\"\",\"n\":[1,2.5,null,true]}", big, sizeof big, &err);
    EQST(st, MCP_OK, err);
    EQS(big, "{\"s\":\"h\xc3\xa9 \\\"q\\\"\",\"n\":[1,2.5,null,true]}");
    st = tool(c, "echo", NULL, big, sizeof big, &err);   /* no arguments */
    EQST(st, MCP_OK, err);
    EQS(big, "{}");
    st = mcp_client_call_tool(c, "fail", NULL, &doc, &err);   /* a tool error is a result */
    EQST(st, MCP_OK, err);
    CHECK(mcp_json_is_true(mcp_json_get(mcp_json_root(doc), "isError")));
    EQS(text_of(mcp_json_root(doc)), "the tool failed");
    mcp_json_free(doc);
    st = mcp_client_call_tool(c, "nosuch", "{}", &doc, &err);
    EQST(st, MCP_ERR_RPC, err);
    CHECK(doc == NULL && err.rpc_code == -32602);
    EQS(err.message, "MCP error -32602: Unknown tool: nosuch");
    /* (how other error objects read: test_transport's rpc_errors) */

    /* the caller's own mistakes: nothing is sent */
    mcp_client_get_stats(c, &s0);
    st = mcp_client_call_tool(c, "echo", "{bad json", &doc, &err);
    EQST(st, MCP_ERR_INVALID, err);
    EQS(err.message, "The arguments are not valid JSON.");
    {   /* arguments are checked without building them (mcp__json_check): every kind of fault */
        static const char *const bad[] = { "{\"a\": \"\\ud800\"}", "{\"a\": \"\\u12G4\"}", "{\"a\": \"\xC0\x80\"}",
            "{\"a\": \"x\x01\"}", "{\"a\": [1, {\"b\": [2,]}]}", "{\"a\": 1} 2", "{\"a\": 01}", "" };
        size_t k;
        for (k = 0; k < sizeof bad / sizeof bad[0]; k++) {
            st = mcp_client_call_tool(c, "echo", bad[k], &doc, &err);
            CHECKF(st == MCP_ERR_INVALID && !strcmp(err.message, "The arguments are not valid JSON."),
                   "bad arguments %d: %s", (int)k, err.message);
        }
        st = mcp_client_request(c, "tools/call", "{\"name\": \"echo\", \"x\": \"\\udc00\"}", &doc, &err);
        EQST(st, MCP_ERR_INVALID, err);
    }
    mcp_client_get_stats(c, &s1);
    CHECK(s1.sent == s0.sent);
    /* valid ones, escapes and line breaks included, go out whole and on one line */
    st = mcp_client_call_tool(c, "echo", "{\r\n  \"a\": \"x\\ny\\u00e9\\ud83d\\ude00\",\n  \"b\": [1, {\"c\": null}]\n}", &doc, &err);
    EQST(st, MCP_OK, err);
    EQS(text_of(mcp_json_root(doc)), "{\"a\":\"x\\ny\u00e9\U0001F600\",\"b\":[1,{\"c\":null}]}");
    mcp_json_free(doc);
    /* params of the generic request: a lone CR, a lone LF and CRLF, inside the arguments too */
    st = mcp_client_request(c, "tools/call", "{\"name\":\r\"echo\",\n\"arguments\": {\"a\":\r\n[1,\n2]}\r}", &doc, &err);
    EQST(st, MCP_OK, err);
    EQS(text_of(mcp_json_root(doc)), "{\"a\":[1,2]}");
    mcp_json_free(doc);
    {
        mcp_call *call = mcp_client_send(c, "tools/call", "{\n\"name\": \"echo\", \"arguments\": {}\n}", NULL, &err);
        CHECK(call && mcp_call_wait(call, 5000) == MCP_OK);
        CHECK(mcp_call_result(call, &doc, &err) == MCP_OK);
        EQS(text_of(mcp_json_root(doc)), "{}");
        mcp_json_free(doc);
        mcp_call_free(call);
    }
    mcp_client_get_stats(c, &s0);
    st = mcp_client_request(c, "tools/call", "[1]", &doc, &err);
    EQST(st, MCP_ERR_INVALID, err);
    EQS(err.message, "The params must be a JSON object.");
    st = mcp_client_call_tool(c, NULL, NULL, &doc, &err);
    EQST(st, MCP_ERR_INVALID, err);
    st = mcp_client_request(c, NULL, NULL, &doc, &err);
    EQST(st, MCP_ERR_INVALID, err);
    mcp_client_get_stats(c, &s1);
    CHECK(s1.sent == s0.sent);

    st = mcp_client_list_resources(c, &doc, &err);
    EQST(st, MCP_OK, err);
    arr = mcp_json_get(mcp_json_root(doc), "resources");
    CHECK(mcp_json_len(arr) == 3);
    EQS(mcp_json_str(mcp_json_get(mcp_json_at(arr, 0), "uri")), "file:///a.txt");
    EQS(mcp_json_str(mcp_json_get(mcp_json_at(arr, 2), "uri")), "mem://counter");
    mcp_json_free(doc);
    st = mcp_client_list_resource_templates(c, &doc, &err);
    EQST(st, MCP_OK, err);
    arr = mcp_json_get(mcp_json_root(doc), "resourceTemplates");
    CHECK(mcp_json_len(arr) == 1);
    EQS(mcp_json_str(mcp_json_get(mcp_json_at(arr, 0), "uriTemplate")), "file:///tmpl/{path}");
    mcp_json_free(doc);
    st = mcp_client_read_resource(c, "file:///a.txt", &doc, &err);
    EQST(st, MCP_OK, err);
    r = mcp_json_at(mcp_json_get(mcp_json_root(doc), "contents"), 0);
    EQS(mcp_json_str(mcp_json_get(r, "text")), "content of file:///a.txt");
    EQS(mcp_json_str(mcp_json_get(r, "mimeType")), "text/plain");
    mcp_json_free(doc);
    st = mcp_client_read_resource(c, "file:///missing", &doc, &err);
    EQST(st, MCP_ERR_RPC, err);
    CHECK(err.rpc_code == -32002);
    EQS(err.message, "Resource not found: file:///missing (MCP error -32002: Resource not found)");
    st = mcp_client_read_resource(c, NULL, &doc, &err);
    EQST(st, MCP_ERR_INVALID, err);
    st = mcp_client_subscribe(c, "file:///a.txt", &err);
    EQST(st, MCP_OK, err);
    st = mcp_client_subscribe(c, "file:///b.txt", &err);
    EQST(st, MCP_OK, err);
    st = mcp_client_unsubscribe(c, "file:///b.txt", &err);
    EQST(st, MCP_OK, err);

    st = mcp_client_list_prompts(c, &doc, &err);
    EQST(st, MCP_OK, err);
    arr = mcp_json_get(mcp_json_root(doc), "prompts");
    CHECK(mcp_json_len(arr) == 2);
    EQS(mcp_json_str(mcp_json_get(mcp_json_at(arr, 1), "name")), "summarize");
    mcp_json_free(doc);
    st = mcp_client_get_prompt(c, "greet", "{\"name\":\"Ada\"}", &doc, &err);
    EQST(st, MCP_OK, err);
    r = mcp_json_at(mcp_json_get(mcp_json_root(doc), "messages"), 0);
    EQS(mcp_json_str(mcp_json_get(mcp_json_get(r, "content"), "text")), "Hello, Ada!");
    EQS(mcp_json_str(mcp_json_get(r, "role")), "user");
    mcp_json_free(doc);
    st = mcp_client_get_prompt(c, "greet", NULL, &doc, &err);
    EQST(st, MCP_ERR_RPC, err);
    EQS(err.message, "MCP error -32602: Missing required argument: name");
    st = mcp_client_complete(c, "{\"type\":\"ref/prompt\",\"name\":\"greet\"}", "name", "al", NULL, &doc, &err);
    EQST(st, MCP_OK, err);
    r = mcp_json_get(mcp_json_root(doc), "completion");
    CHECK(mcp_json_len(mcp_json_get(r, "values")) == 2);
    EQS(mcp_json_str(mcp_json_at(mcp_json_get(r, "values"), 0)), "alice");
    EQS(mcp_json_str(mcp_json_at(mcp_json_get(r, "values"), 1)), "albert");
    mcp_json_free(doc);
    st = mcp_client_complete(c, "{\"type\":\"ref/prompt\",\"name\":\"greet\"}", "name", "b",
                             "{\"arguments\":{\"x\":\"y\"}}", &doc, &err);
    EQST(st, MCP_OK, err);
    EQS(mcp_json_str(mcp_json_at(mcp_json_get(mcp_json_get(mcp_json_root(doc), "completion"), "values"), 0)), "bob");
    mcp_json_free(doc);
    st = mcp_client_set_log_level(c, "warning", &err);
    EQST(st, MCP_OK, err);
    st = mcp_client_set_log_level(c, "loud", &err);
    EQST(st, MCP_ERR_RPC, err);
    EQS(err.message, "MCP error -32602: Invalid log level");
    st = mcp_client_ping(c, &err);
    EQST(st, MCP_OK, err);

    /* generic request and notify */
    st = mcp_client_request(c, "custom/thing", "{\"x\":1}", &doc, &err);
    EQST(st, MCP_ERR_RPC, err);
    CHECK(err.rpc_code == -32601 && doc == NULL);
    EQS(err.message, "MCP error -32601: Method not found");
    st = mcp_client_request(c, "tools/call", "{\"name\":\"echo\",\"arguments\":{\"k\":\"v\"}}", &doc, &err);
    EQST(st, MCP_OK, err);
    EQS(text_of(mcp_json_root(doc)), "{\"k\":\"v\"}");
    mcp_json_free(doc);
    st = mcp_client_request(c, "ping", NULL, NULL, &err);
    EQST(st, MCP_OK, err);
    st = mcp_client_notify(c, "notifications/custom", "{\"x\":[1,2]}", &err);
    EQST(st, MCP_OK, err);
    st = mcp_client_notify(c, "notifications/roots/list_changed", NULL, &err);
    EQST(st, MCP_OK, err);
    st = mcp_client_notify(c, "notifications/custom", "nope", &err);
    EQST(st, MCP_ERR_INVALID, err);
    EQS(history(c), "[{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"},"
                    "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/custom\",\"params\":{\"x\":[1,2]}},"
                    "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/roots/list_changed\"}]");

    /* the subscription reaches the server: notify sends resources/updated for a.txt only */
    s.notes = 0;
    st = tool(c, "notify", NULL, big, sizeof big, &err);
    EQST(st, MCP_OK, err);
    {
        int i, updated = 0;
        for (i = 0; i < s.notes && i < MAXREC; i++)
            if (!strcmp(s.note[i], "notifications/resources/updated")) {
                updated++;
                EQS(s.note_params[i], "{\"uri\":\"file:///a.txt\"}");
            }
        CHECK(updated == 1);
    }
    mcp_client_free(c);
    CHECK(s.closes == 1 && s.logs == 0);
    g_end(&g);
}

/* ---- 3. capabilities the server did not declare --------------------------------------------- */

TEST_CASE(caps)
{
    guard g;
    seen s;
    mcp_client_desc d;
    mcp_client *c;
    mcp_error err;
    mcp_status st;
    mcp_json_doc *doc = (mcp_json_doc *)&err;   /* must come back NULL */
    mcp_client_stats s0, s1;
    char logpath[PATH_MAX + 32], logarg[PATH_MAX + 64], *log;
    g_begin(&g, "undeclared capabilities");
    snprintf(logpath, sizeof logpath, "%s/caps.log", tmpdir);
    snprintf(logarg, sizeof logarg, "--log=%s", logpath);
    {
        const char *args[] = { "--caps=tools", logarg, NULL };
        desc_for(&d, &s, args);
        c = open_client(&d);
        mcp_client_get_stats(c, &s0);
        st = mcp_client_list_resources(c, &doc, &err);
        EQST(st, MCP_ERR_INVALID, err);
        CHECK(doc == NULL);
        EQS(err.message, "The server did not declare the \"resources\" capability, so it does not support resources/list.");
        st = mcp_client_read_resource(c, "file:///a.txt", &doc, &err);
        EQST(st, MCP_ERR_INVALID, err);
        EQS(err.message, "The server did not declare the \"resources\" capability, so it does not support resources/read.");
        st = mcp_client_list_resource_templates(c, &doc, &err);
        EQST(st, MCP_ERR_INVALID, err);
        st = mcp_client_subscribe(c, "file:///a.txt", &err);
        EQST(st, MCP_ERR_INVALID, err);
        st = mcp_client_list_prompts(c, &doc, &err);
        EQST(st, MCP_ERR_INVALID, err);
        EQS(err.message, "The server did not declare the \"prompts\" capability, so it does not support prompts/list.");
        st = mcp_client_get_prompt(c, "greet", NULL, &doc, &err);
        EQST(st, MCP_ERR_INVALID, err);
        st = mcp_client_complete(c, "{\"type\":\"ref/prompt\",\"name\":\"greet\"}", "name", "a", NULL, &doc, &err);
        EQST(st, MCP_ERR_INVALID, err);
        EQS(err.message, "The server did not declare the \"completions\" capability, so it does not support completion/complete.");
        st = mcp_client_set_log_level(c, "debug", &err);
        EQST(st, MCP_ERR_INVALID, err);
        EQS(err.message, "The server did not declare the \"logging\" capability, so it does not support logging/setLevel.");
        st = mcp_client_request(c, "prompts/get", "{\"name\":\"greet\"}", &doc, &err);
        EQST(st, MCP_ERR_INVALID, err);
        CHECK(mcp_client_send(c, "resources/list", NULL, NULL, &err) == NULL && err.status == MCP_ERR_INVALID);
        mcp_client_get_stats(c, &s1);
        CHECKF(s1.sent == s0.sent, "sent %llu messages", (unsigned long long)(s1.sent - s0.sent));
        st = mcp_client_ping(c, &err);                 /* ping needs no capability */
        EQST(st, MCP_OK, err);
        st = tool(c, "echo", "{}", big, sizeof big, &err);
        EQST(st, MCP_OK, err);
        mcp_client_free(c);
        log = read_file(logpath);
        CHECK(log && strstr(log, "\"method\":\"tools/call\""));
        CHECK(log && !strstr(log, "resources/") && !strstr(log, "prompts/") && !strstr(log, "completion/") &&
              !strstr(log, "logging/"));
        free(log);
        unlink(logpath);
    }
    {
        const char *args[] = { "--caps=tools,resources", NULL };
        desc_for(&d, &s, args);
        c = open_client(&d);
        st = mcp_client_subscribe(c, "file:///a.txt", &err);
        EQST(st, MCP_ERR_INVALID, err);
        EQS(err.message, "The server did not declare \"resources\": {\"subscribe\": true}, so it does not support "
                         "resources/subscribe.");
        st = mcp_client_unsubscribe(c, "file:///a.txt", &err);
        EQST(st, MCP_ERR_INVALID, err);
        st = mcp_client_list_resources(c, &doc, &err);
        EQST(st, MCP_OK, err);
        mcp_json_free(doc);
        mcp_client_free(c);
    }
    g_end(&g);
}

/* ---- 4. requests from the server ------------------------------------------------------------ */

static mcp_status ask(mcp_client *c, const char *args, mcp_error *err)
{
    return tool(c, "ask", args, big, sizeof big, err);
}

TEST_CASE(server_requests)
{
    guard g;
    seen s;
    mcp_client_desc d;
    mcp_client *c;
    mcp_error err;
    mcp_status st;
    mcp_call *call;
    mcp_json_doc *doc;
    int i;
    g_begin(&g, "server requests");
    desc_for(&d, &s, NULL);
    d.on_request = cb_request;
    d.capabilities = MCP_CAP_ROOTS | MCP_CAP_ROOTS_LIST_CHANGED | MCP_CAP_SAMPLING | MCP_CAP_ELICITATION;
    c = open_client(&d);
    tool(c, "client", NULL, big, sizeof big, &err);
    doc = mcp_json_parse(big, strlen(big), NULL);
    {
        char *caps = mcp_json_dump(mcp_json_get(mcp_json_root(doc), "capabilities"), 0, NULL);
        EQS(caps, "{\"roots\":{\"listChanged\":true},\"sampling\":{},\"elicitation\":{\"form\":{}}}");
        mcp_free(caps);
    }
    mcp_json_free(doc);

    /* The pipe's part: the server sees the capabilities, each reply reaches it, its cancel reaches
       us. Every kind of request and reply is tested once, byte for byte, in test_transport
       (server_requests). */
    /* an immediate reply */
    st = ask(c, "{\"method\":\"roots/list\"}", &err);
    EQST(st, MCP_OK, err);
    EQS(big, "{\"result\":{\"roots\":[{\"uri\":\"file:///work\",\"name\":\"work\"}]}}");
    CHECK(s.reqs == 1);
    EQS(s.req[0], "roots/list");
    /* ping is answered by the library, on_request never sees it */
    st = ask(c, "{\"method\":\"ping\"}", &err);
    EQST(st, MCP_OK, err);
    EQS(big, "{\"result\":{}}");
    CHECK(s.reqs == 1);

    /* deferred: on_request keeps it, the program answers later from its own loop */
    call = mcp_client_send_tool(c, "ask", "{\"method\":\"sampling/createMessage\",\"params\":{\"messages\":"
                                "[{\"role\":\"user\",\"content\":{\"type\":\"text\",\"text\":\"hi\"}}],\"maxTokens\":5}}",
                                NULL, &err);
    CHECK(call != NULL);
    for (i = 0; i < 200 && s.nheld == 0; i++) mcp_client_poll(c, 10);
    CHECK(s.nheld == 1);
    if (s.nheld == 1) {
        const mcp_json *p = mcp_request_params(s.held[0]);
        EQS(mcp_request_method(s.held[0]), "sampling/createMessage");
        CHECK(mcp_json_num(mcp_json_get(p, "maxTokens")) == 5);
        CHECK(!mcp_request_cancelled(s.held[0]));
        CHECK(mcp_call_status(call) == MCP_AGAIN);
        mcp_client_poll(c, 30);
        CHECK(mcp_call_status(call) == MCP_AGAIN);     /* the server still waits for us */
        st = mcp_request_reply(s.held[0], "{\"role\":\"assistant\",\"content\":{\"type\":\"text\",\"text\":\"sampled\"},"
                               "\"model\":\"test-model\",\"stopReason\":\"endTurn\"}", &err);
        EQST(st, MCP_OK, err);
        s.nheld = 0;
    }
    st = mcp_call_wait(call, 2000);
    CHECK(st == MCP_OK);
    st = mcp_call_result(call, &doc, &err);
    EQST(st, MCP_OK, err);
    EQS(text_of(mcp_json_root(doc)), "{\"result\":{\"role\":\"assistant\",\"content\":{\"type\":\"text\",\"text\":"
                                     "\"sampled\"},\"model\":\"test-model\",\"stopReason\":\"endTurn\"}}");
    mcp_json_free(doc);
    mcp_call_free(call);

    /* the server cancels its request: the request is marked, the reply is not sent */
    s.notes = 0;
    st = ask(c, "{\"method\":\"sampling/createMessage\",\"params\":{},\"cancel\":true}", &err);
    EQST(st, MCP_OK, err);
    EQS(big, "cancelled");
    CHECK(s.nheld == 1);
    CHECK(s.notes == 1);
    EQS(s.note[0], "notifications/cancelled");
    EQS(s.note_params[0], "{\"requestId\":\"s4\",\"reason\":\"the server gave up\"}");
    if (s.nheld == 1) {
        CHECK(mcp_request_cancelled(s.held[0]) == 1);
        st = mcp_request_reply(s.held[0], "{\"role\":\"assistant\",\"content\":{\"type\":\"text\",\"text\":\"late\"},"
                               "\"model\":\"m\"}", &err);
        EQST(st, MCP_OK, err);
        s.nheld = 0;
    }
    CHECK(!strstr(history(c), "late_reply"));        /* nothing reached the server */
    CHECK(!strstr(big, "unexpected_reply"));
    mcp_client_free(c);
    CHECK(s.closes == 1);

    g_end(&g);
}

/* ---- 5. notifications ----------------------------------------------------------------------- */

TEST_CASE(notifications)
{
    /* The pipe's part: the server's notifications reach on_notification, and the log level and
       the subscription reach the server (it filters by them). What the client makes of each
       notification, and of batches, is tested once in test_transport (notifications). */
    guard g;
    seen s;
    mcp_client_desc d;
    mcp_client *c;
    mcp_error err;
    mcp_status st;
    g_begin(&g, "notifications");
    desc_for(&d, &s, NULL);
    c = open_client(&d);
    st = tool(c, "notify", NULL, big, sizeof big, &err);     /* every level, no subscription */
    EQST(st, MCP_OK, err);
    EQS(big, "notified");
    CHECKF(s.notes == 9, "%d notifications", s.notes);
    EQS(s.note_params[0], "{\"level\":\"debug\",\"logger\":\"test_server\",\"data\":\"log at debug\"}");
    EQS(s.note[4], "notifications/tools/list_changed");
    s.notes = 0;
    CHECK(mcp_client_set_log_level(c, "warning", &err) == MCP_OK);
    CHECK(mcp_client_subscribe(c, "mem://counter", &err) == MCP_OK);
    st = tool(c, "notify", NULL, big, sizeof big, &err);
    EQST(st, MCP_OK, err);
    CHECKF(s.notes == 8, "%d notifications", s.notes);
    EQS(s.note_params[0], "{\"level\":\"warning\",\"logger\":\"test_server\",\"data\":\"log at warning\"}");
    EQS(s.note[5], "notifications/resources/updated");
    EQS(s.note_params[5], "{\"uri\":\"mem://counter\"}");
    CHECK(s.logs == 0);
    mcp_client_free(c);
    g_end(&g);
}

/* ---- 6. non-blocking use -------------------------------------------------------------------- */

TEST_CASE(nonblocking)
{
    guard g;
    seen s;
    mcp_client_desc d;
    mcp_client *c;
    mcp_error err;
    mcp_status st;
    mcp_json_doc *doc;
    int n = quick ? 200 : 3000, i, bad, again;
    mcp_call **calls = (mcp_call **)calloc((size_t)n, sizeof *calls);
    char args[128];
    int64_t t0;
    g_begin(&g, "non-blocking: many in flight");
    desc_for(&d, &s, NULL);
    c = open_client(&d);

    /* n calls in flight at once, answered newest first */
    for (i = 0; i < n; i++) {
        snprintf(args, sizeof args, "{\"i\":%d,\"n\":%d}", i, n);
        calls[i] = mcp_client_send_tool(c, "rev", args, NULL, &err);
        if (!calls[i]) break;
    }
    CHECKF(i == n, "send %d failed: %s", i, err.message);
    for (i = 1, bad = 0; i < n; i++) bad += calls[i] && mcp_call_id(calls[i]) <= mcp_call_id(calls[i - 1]);
    CHECK(bad == 0);
    for (i = 0, again = 0; i < n; i++) again += calls[i] && mcp_call_status(calls[i]) == MCP_AGAIN;
    CHECK(again == n);
    st = mcp_call_result(calls[0], &doc, &err);
    CHECK(st == MCP_AGAIN && doc == NULL);
    t0 = mcp_time_ms();
    while (mcp_call_status(calls[0]) == MCP_AGAIN && mcp_time_ms() - t0 < 10000) mcp_client_poll(c, 100);
    for (i = 0, bad = 0; i < n; i++) {
        const char *t;
        if (!calls[i]) { bad++; continue; }
        st = mcp_call_result(calls[i], &doc, &err);
        snprintf(args, sizeof args, "{\"i\":%d,\"n\":%d}", i, n);
        t = text_of(mcp_json_root(doc));
        if (st != MCP_OK || !t || strcmp(t, args)) bad++;
        mcp_json_free(doc);
        st = mcp_call_result(calls[i], &doc, &err);    /* the second time: OK, no document */
        if (st != MCP_OK || doc) bad++;
        mcp_call_free(calls[i]);
    }
    CHECKF(bad == 0, "%d of %d calls went wrong", bad, n);

    /* completing in any order: random sleeps */
    {
        int *ms = (int *)calloc((size_t)n, sizeof *ms);
        srand(4);
        for (i = 0; i < n / 10; i++) {
            ms[i] = 1 + rand() % 80;
            snprintf(args, sizeof args, "{\"ms\":%d}", ms[i]);
            calls[i] = mcp_client_send_tool(c, "slow", args, NULL, &err);
        }
        for (i = 0, bad = 0; i < n / 10; i++) {
            char want[64];
            mcp_call_wait(calls[i], 5000);
            st = mcp_call_result(calls[i], &doc, &err);
            snprintf(want, sizeof want, "slept %d ms", ms[i]);
            if (st != MCP_OK || !text_of(mcp_json_root(doc)) || strcmp(text_of(mcp_json_root(doc)), want)) bad++;
            mcp_json_free(doc);
            mcp_call_free(calls[i]);
        }
        CHECKF(bad == 0, "%d random-order calls went wrong", bad);
        free(ms);
    }

    /* out of order: defer is answered only after the next answer */
    {
        mcp_call *dc = mcp_client_send_tool(c, "defer", NULL, NULL, &err);
        st = tool(c, "echo", "{\"after\":\"defer\"}", big, sizeof big, &err);
        EQST(st, MCP_OK, err);
        EQS(big, "{\"after\":\"defer\"}");
        CHECK(mcp_call_wait(dc, 2000) == MCP_OK);
        mcp_call_result(dc, &doc, &err);
        EQS(text_of(mcp_json_root(doc)), "deferred");
        mcp_json_free(doc);
        mcp_call_free(dc);
    }

    /* mcp_call_wait with a bound */
    {
        mcp_call *sc = mcp_client_send_tool(c, "slow", "{\"ms\":600}", NULL, &err);
        int64_t t1 = mcp_time_ms(), el;
        st = mcp_call_wait(sc, 50);
        el = mcp_time_ms() - t1;
        CHECKF(st == MCP_AGAIN && el >= 45 && el < LATE(500), "wait(50): %d after %lld ms", (int)st, (long long)el);
        st = mcp_call_wait(sc, -1);
        CHECK(st == MCP_OK);
        mcp_call_result(sc, &doc, &err);
        EQS(text_of(mcp_json_root(doc)), "slept 600 ms");
        mcp_json_free(doc);
        mcp_call_free(sc);
    }

    /* an outside poll() loop: pollfds + next_timeout, then mcp_client_poll(c, 0) */
    {
        mcp_call *oc[40];
        mcp_pollfd f[8];
        struct pollfd pf[8];
        int k, m, done, rounds = 0, to, saw_timeout = 0, pollbad = 0;
        mcp_call_opts o;
        memset(&o, 0, sizeof o);
        o.timeout_ms = 300;
        for (k = 0; k < 39; k++) {
            snprintf(args, sizeof args, "{\"k\":%d}", k);
            oc[k] = mcp_client_send_tool(c, "echo", args, NULL, &err);
        }
        oc[39] = mcp_client_send_tool(c, "never", NULL, &o, &err);
        to = mcp_client_next_timeout(c);
        CHECKF(to >= 0 && to <= 300, "next_timeout %d", to);
        m = mcp_client_pollfds(c, f, 8);
        CHECKF(m >= 2, "%d fds", m);
        for (;;) {
            for (k = 0, done = 0; k < 40; k++) done += mcp_call_status(oc[k]) != MCP_AGAIN;
            if (done == 40 || rounds++ > 1000) break;
            m = mcp_client_pollfds(c, f, 8);
            for (k = 0; k < m; k++) { pf[k].fd = f[k].fd; pf[k].events = f[k].events; pf[k].revents = 0; }
            to = mcp_client_next_timeout(c);
            if (to > 0 && mcp_call_status(oc[39]) == MCP_AGAIN) saw_timeout = 1;
            poll(pf, (nfds_t)m, to < 0 ? 1000 : to);
            pollbad += mcp_client_poll(c, 0) != MCP_OK;
        }
        CHECK(done == 40 && saw_timeout && pollbad == 0);
        for (k = 0, bad = 0; k < 39; k++) {
            snprintf(args, sizeof args, "{\"k\":%d}", k);
            mcp_call_result(oc[k], &doc, &err);
            if (!text_of(mcp_json_root(doc)) || strcmp(text_of(mcp_json_root(doc)), args)) bad++;
            mcp_json_free(doc);
            mcp_call_free(oc[k]);
        }
        CHECK(bad == 0);
        st = mcp_call_result(oc[39], &doc, &err);
        EQST(st, MCP_ERR_TIMEOUT, err);
        EQS(err.message, "Request timeout after 300ms");
        mcp_call_free(oc[39]);
        /* nothing in flight: no deadline, unless there is no pidfd (valgrind knows none): then
           mcp.h looks at the child every 250 ms */
        to = mcp_client_next_timeout(c);
        CHECKF(have_pidfd() ? to == -1 : to >= 0 && to <= 250, "next_timeout %d", to);
    }
    mcp_client_free(c);
    free(calls);
    CHECK(s.closes == 1);
    g_end(&g);
}

/* ---- 7. timeouts and progress --------------------------------------------------------------- */

static void on_progress(void *user, mcp_call *call, double progress, double total, const char *message)
{
    seen *s = (seen *)user;
    (void)call;
    if (s->progress < MAXREC) {
        s->prog[s->progress] = progress;
        s->total[s->progress] = total;
        snprintf(s->pmsg[s->progress], sizeof s->pmsg[0], "%s", message ? message : "(null)");
    }
    s->progress++;
}

static mcp_call *send_opts(mcp_client *c, const char *name, const char *args, int timeout, int reset, int max_total,
                           seen *s)
{
    mcp_call_opts o;
    mcp_error err;
    memset(&o, 0, sizeof o);
    o.timeout_ms = timeout;
    o.reset_on_progress = reset;
    o.max_total_ms = max_total;
    if (s) { o.on_progress = on_progress; o.user = s; }
    return mcp_client_send_tool(c, name, args, &o, &err);
}

TEST_CASE(timeouts)
{
    /* The stdio path only: the timeouts, progress, its reset and the maximum totals are tested once
       in test_transport (timeouts). Here the notifications/cancelled reaches the server, progress
       comes through the pipe, and a timed-out initialize is not cancelled to the server. */
    guard g;
    seen s;
    mcp_client_desc d;
    mcp_client *c;
    mcp_error err;
    mcp_status st;
    mcp_call *call;
    mcp_json_doc *doc;
    int64_t t0, el, id;
    char want[256];
    g_begin(&g, "timeouts and progress");
    desc_for(&d, &s, NULL);
    d.timeout_ms = 200;
    c = open_client(&d);

    /* the client's default */
    call = mcp_client_send_tool(c, "never", NULL, NULL, &err);
    id = mcp_call_id(call);
    t0 = mcp_time_ms();
    st = mcp_call_wait(call, -1);
    el = mcp_time_ms() - t0;
    CHECK(st == MCP_ERR_TIMEOUT);
    CHECKF(el >= 190 && el < LATE(1000), "timed out after %lld ms", (long long)el);
    st = mcp_call_result(call, &doc, &err);
    EQST(st, MCP_ERR_TIMEOUT, err);
    EQS(err.message, "Request timeout after 200ms");
    mcp_call_free(call);
    snprintf(want, sizeof want, "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/cancelled\",\"params\":{\"requestId\":%lld,"
             "\"reason\":\"Request timeout after 200ms\"}}", (long long)id);
    CHECKF(strstr(history(c), want) != NULL, "the server was not told: %s", big);

    /* progress resets the clock: 600 ms of work with a 150 ms timeout */
    s.progress = 0;
    call = send_opts(c, "slow", "{\"ms\":600,\"every\":50}", 150, 1, 0, &s);
    t0 = mcp_time_ms();
    st = mcp_call_wait(call, -1);
    el = mcp_time_ms() - t0;
    CHECKF(st == MCP_OK, "reset on progress: %d after %lld ms", (int)st, (long long)el);
    CHECK(el >= 590);
    mcp_call_result(call, &doc, &err);
    EQS(text_of(mcp_json_root(doc)), "slept 600 ms");
    mcp_json_free(doc);
    mcp_call_free(call);
    CHECKF(s.progress == 11, "%d progress callbacks", s.progress);
    mcp_client_free(c);

    /* initialize times out too; it is never "cancelled" to the server */
    {
        char logpath[PATH_MAX + 32], logarg[PATH_MAX + 64], *log;
        const char *args[] = { "--init=never", logarg, NULL };
        snprintf(logpath, sizeof logpath, "%s/init.log", tmpdir);
        snprintf(logarg, sizeof logarg, "--log=%s", logpath);
        desc_for(&d, &s, args);
        d.timeout_ms = 150;
        c = mcp_client_new(&d, &err);
        st = mcp_client_connect(c, &err);
        EQST(st, MCP_ERR_TIMEOUT, err);
        EQS(err.message, "Request timeout after 150ms");
        CHECK(s.closes == 1);
        mcp_client_free(c);
        log = read_file(logpath);
        CHECK(log && strstr(log, "\"method\":\"initialize\""));
        CHECK(log && !strstr(log, "notifications/cancelled"));
        free(log);
        unlink(logpath);
    }
    g_end(&g);
}

/* ---- 8. cancellation ------------------------------------------------------------------------ */

TEST_CASE(cancel)
{
    /* A smoke test over stdio: the cancel reaches the server through the pipe (one it ignores,
       whose late answer comes back; one it honours). The rest (sentences, a second cancel, a
       free in flight, from on_progress, initialize) is in test_transport:cancel*. */
    guard g;
    seen s;
    mcp_client_desc d;
    mcp_client *c;
    mcp_error err;
    mcp_status st;
    mcp_call *call;
    mcp_client_stats s0, s1;
    int64_t t0, id, id2;
    char want[512];
    int i;
    g_begin(&g, "cancellation");
    desc_for(&d, &s, NULL);
    c = open_client(&d);
    mcp_client_get_stats(c, &s0);

    call = mcp_client_send_tool(c, "slow", "{\"ms\":150}", NULL, &err);
    id = mcp_call_id(call);
    mcp_client_poll(c, 20);
    t0 = mcp_time_ms();
    CHECK(mcp_call_cancel(call, "user abort") == MCP_OK);
    CHECK(mcp_time_ms() - t0 < LATE(500));                         /* local: no round trip */
    st = mcp_call_result(call, NULL, &err);
    EQST(st, MCP_ERR_CANCELLED, err);
    EQS(err.message, "Request cancelled: user abort");
    mcp_call_free(call);
    /* the late answer arrives through the pipe, is ignored and counted */
    s.logs = 0;
    for (i = 0; i < 50 && s.logs == 0; i++) mcp_client_poll(c, 10);
    mcp_client_get_stats(c, &s1);
    CHECK(s1.unknown_ids == s0.unknown_ids + 1);
    snprintf(want, sizeof want, "Ignored a late response to request %lld, which was cancelled or timed out.", (long long)id);
    CHECK(s.logs == 1);
    EQS(s.log[0], want);

    /* no reason; honoured by the server: no late answer */
    call = mcp_client_send_tool(c, "slow", "{\"ms\":100,\"honor_cancel\":true}", NULL, &err);
    id2 = mcp_call_id(call);
    CHECK(mcp_call_cancel(call, NULL) == MCP_OK);
    mcp_call_free(call);
    nap(150);
    s.logs = 0;
    mcp_client_get_stats(c, &s0);
    st = mcp_client_ping(c, &err);
    EQST(st, MCP_OK, err);
    mcp_client_get_stats(c, &s1);
    CHECK(s1.unknown_ids == s0.unknown_ids && s.logs == 0);

    /* what the server received */
    history(c);
    snprintf(want, sizeof want, "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/cancelled\",\"params\":{\"requestId\":%lld,"
             "\"reason\":\"user abort\"}}", (long long)id);
    CHECKF(strstr(big, want) != NULL, "missing %s in %s", want, big);
    snprintf(want, sizeof want, "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/cancelled\",\"params\":{\"requestId\":%lld}}",
             (long long)id2);
    CHECKF(strstr(big, want) != NULL, "missing %s in %s", want, big);
    mcp_client_free(c);
    g_end(&g);
}

/* ---- 9. malformed output, unknown ids, limits ----------------------------------------------- */

TEST_CASE(malformed)
{
    guard g;
    seen s;
    mcp_client_desc d;
    mcp_client *c;
    mcp_error err;
    mcp_status st;
    mcp_client_stats s0, s1;
    static const char *const logs[] = {
        "Dropped a message from the server that is not JSON-RPC 2.0: its \"jsonrpc\" member is not \"2.0\".",
        "Dropped a message from the server that is not JSON-RPC 2.0: its \"jsonrpc\" member is not \"2.0\".",
        "Dropped an empty batch from the server.",
        "Dropped a message from the server that is not JSON-RPC 2.0: its \"id\" is neither a string nor an integer.",
        "Dropped a message from the server that is not JSON-RPC 2.0: it has both \"result\" and \"error\".",
        "Dropped a message from the server that is not JSON-RPC 2.0: it is not a JSON object.",
    };
    int i;
    g_begin(&g, "malformed lines, unknown ids");
    desc_for(&d, &s, NULL);
    c = open_client(&d);
    mcp_client_get_stats(c, &s0);
    st = tool(c, "garbage", NULL, big, sizeof big, &err);
    EQST(st, MCP_OK, err);
    EQS(big, "garbage sent");
    mcp_client_get_stats(c, &s1);
    CHECKF(s1.dropped - s0.dropped == 9, "%llu dropped", (unsigned long long)(s1.dropped - s0.dropped));
    CHECK(s1.unknown_ids == s0.unknown_ids);
    CHECKF(s.logs == 9, "%d logs", s.logs);
    /* Lines that are not JSON are logged as they are read, the others as they are dispatched,
       so only the order within each kind is fixed. */
    {
        static const char *const parse[] = {
            "Dropped a line from the server that is not JSON (JSON parse error at line 1, column 1 (byte 0): "
            "expected a value, found 't'): this is not json",
            "Dropped a line from the server that is not JSON (JSON parse error at line 1, column 27 (byte 26): "
            "expected a value but the input ended): {\"jsonrpc\":\"2.0\",\"method\":",
            "Dropped a line from the server that is not JSON (JSON parse error at line 1, column 41 (byte 40): "
            "invalid UTF-8 (byte 0xFF) in a string): {\"jsonrpc\":\"2.0\",\"method\":\"x\",\"params\":\"\xff\xfe\"}",
        };
        int np = 0, nd = 0;
        for (i = 0; i < s.logs && i < MAXREC; i++) {
            if (starts(s.log[i], "Dropped a line from the server that is not JSON")) {
                if (np < 3) EQS(s.log[i], parse[np]);
                np++;
            } else {
                if (nd < 6) EQS(s.log[i], logs[nd]);
                nd++;
            }
        }
        CHECK(np == 3 && nd == 6);
    }
    CHECK(s.notes == 1);                          /* the CRLF-ended line after the garbage */
    EQS(s.note_params[0], "{\"level\":\"info\",\"data\":\"after garbage\"}");
    st = tool(c, "echo", "{\"still\":\"alive\"}", big, sizeof big, &err);
    EQST(st, MCP_OK, err);
    EQS(big, "{\"still\":\"alive\"}");

    s.logs = 0;
    mcp_client_get_stats(c, &s0);
    st = tool(c, "badids", NULL, big, sizeof big, &err);
    EQST(st, MCP_OK, err);
    mcp_client_get_stats(c, &s1);
    CHECK(s1.unknown_ids - s0.unknown_ids == 4 && s1.dropped == s0.dropped);
    CHECK(s.logs == 4);
    EQS(s.log[0], "Dropped a response whose id matches no request in flight.");
    EQS(s.log[1], "Dropped a response whose id matches no request in flight.");
    EQS(s.log[2], "The server reported an error for no request: MCP error -32700: Parse error");
    EQS(s.log[3], "Dropped a response whose id matches no request in flight.");
    CHECK(s.closes == 0);
    mcp_client_free(c);
    CHECK(s.closes == 1);

    /* a long line within the limit, then one over it: the transport closes */
    desc_for(&d, &s, NULL);
    c = open_client(&d);
    st = tool(c, "longline", "{\"bytes\":3000000}", big, sizeof big, &err);
    EQST(st, MCP_OK, err);
    CHECK(s.notes == 1 && s.logs == 0);
    mcp_client_free(c);
    desc_for(&d, &s, NULL);
    d.max_message = 4096;
    c = open_client(&d);
    {
        mcp_call *other = mcp_client_send_tool(c, "never", NULL, NULL, &err);
        st = tool(c, "longline", "{\"bytes\":5000}", big, sizeof big, &err);
        EQST(st, MCP_ERR_CLOSED, err);
        EQS(err.message, "Transport closed (the server sent a message longer than the limit of 4096 bytes)");
        st = mcp_call_result(other, NULL, &err);
        EQST(st, MCP_ERR_CLOSED, err);
        EQS(err.message, "Transport closed (the server sent a message longer than the limit of 4096 bytes)");
        mcp_call_free(other);
    }
    CHECK(s.closes == 1);
    EQST(s.why.status, MCP_ERR_LIMIT, s.why);
    EQS(s.why.message, "the server sent a message longer than the limit of 4096 bytes");
    st = mcp_client_ping(c, &err);
    EQST(st, MCP_ERR_CLOSED, err);
    EQS(err.message, "Transport closed");
    mcp_client_free(c);
    CHECK(s.closes == 1);
    g_end(&g);
}

/* ---- 10. stderr ----------------------------------------------------------------------------- */

TEST_CASE(stderr)
{
    guard g;
    seen s;
    mcp_client_desc d;
    mcp_client *c;
    mcp_error err;
    mcp_status st;
    mcp_client_stats stats;
    size_t n = quick ? 300000 : 3000000;
    char args[128];
    int i, bad;
    g_begin(&g, "stderr lines and floods");
    {
        const char *a[] = { "--stderr-hello", NULL };
        desc_for(&d, &s, a);
        c = open_client(&d);
        CHECK(mcp_client_ping(c, &err) == MCP_OK);
        for (i = 0; i < 20 && s.errs < 2; i++) mcp_client_poll(c, 10);
        CHECK(s.errs == 2);
        EQS(s.err[0], "test_server: starting");    /* CR of CRLF dropped */
        EQS(s.err[1], "second line");
        mcp_client_free(c);
        CHECK(s.errs == 3);                         /* the unfinished last line, at EOF */
        EQS(s.err[2], "bye");
        CHECK(s.closes == 1);
        EQS(s.why.message, "the client closed the connection: bye");
    }
    /* megabytes without a newline: pieces of at most 4096 bytes */
    desc_for(&d, &s, NULL);
    c = open_client(&d);
    snprintf(args, sizeof args, "{\"bytes\":%lu}", (unsigned long)n);
    st = tool(c, "stderr", args, big, sizeof big, &err);
    EQST(st, MCP_OK, err);
    for (i = 0; i < 100 && (s.errs == 0 || strcmp(s.err[s.errs < MAXREC ? s.errs - 1 : 0], "stderr done")); i++)
        mcp_client_poll(c, 10);
    mcp_client_get_stats(c, &stats);
    CHECKF(stats.stderr_bytes == n + 13, "%llu stderr bytes", (unsigned long long)stats.stderr_bytes);
    CHECKF(s.err_total == n + 11, "%lu bytes in lines", (unsigned long)s.err_total);
    CHECK(s.err_max == 4096);
    CHECKF(s.errs == (int)((n + 4095) / 4096) + 1, "%d lines", s.errs);
    st = tool(c, "echo", "{}", big, sizeof big, &err);
    EQST(st, MCP_OK, err);
    mcp_client_free(c);
    /* lines of exactly 4096 bytes are lines, not a piece and an empty line */
    desc_for(&d, &s, NULL);
    c = open_client(&d);
    st = tool(c, "stderr", "{\"bytes\":12291,\"newlines\":true,\"linelen\":4096}", big, sizeof big, &err);
    EQST(st, MCP_OK, err);
    for (i = 0; i < 100 && (s.errs == 0 || strcmp(s.err[s.errs < MAXREC ? s.errs - 1 : 0], "stderr done")); i++)
        mcp_client_poll(c, 10);
    CHECKF(s.errs == 4, "%d stderr lines for 3 lines of 4096 bytes and one of 11", s.errs);
    for (i = 0, bad = 0; i < 3 && i < s.errs; i++) bad += s.err_len[i] != 4096;
    CHECK(bad == 0);
    mcp_client_free(c);
    /* lines of 100 */
    desc_for(&d, &s, NULL);
    c = open_client(&d);
    snprintf(args, sizeof args, "{\"bytes\":%lu,\"newlines\":true,\"linelen\":100}", (unsigned long)(101 * (n / 101)));
    st = tool(c, "stderr", args, big, sizeof big, &err);
    EQST(st, MCP_OK, err);
    for (i = 0; i < 100 && s.errs < (int)(n / 101) + 1; i++) mcp_client_poll(c, 10);
    CHECKF(s.errs == (int)(n / 101) + 1, "%d lines", s.errs);
    CHECK(s.err_max == 100 && s.err_total == 100 * (n / 101) + 11);
    mcp_client_free(c);
#ifdef __linux__
    /* Client and server on one CPU: writing a request lets the server run and answer, so the
       read before poll takes most answers without a poll. stderr still comes through while the
       calls go on (a poll at least every 16 such answers), not only once the client waits. */
    {
        cpu_set_t old, one;
        int cpu = sched_getcpu(), k;
        if (cpu >= 0 && sched_getaffinity(0, sizeof old, &old) == 0) {
            CPU_ZERO(&one);
            CPU_SET(cpu, &one);
            CHECK(sched_setaffinity(0, sizeof one, &one) == 0);
            desc_for(&d, &s, NULL);
            c = open_client(&d);                     /* its server inherits the one CPU */
            for (k = 0, st = MCP_OK; k < 200 && st == MCP_OK; k++)
                st = tool(c, "stderr", "{\"bytes\":20,\"newlines\":true,\"linelen\":19}", big, sizeof big, &err);
            EQST(st, MCP_OK, err);
            CHECKF(s.errs >= 2 * (200 - 16), "%d stderr lines read during 200 calls that wrote 400", s.errs);
            mcp_client_free(c);
            CHECKF(s.errs == 400, "%d stderr lines in all", s.errs);
            CHECK(sched_setaffinity(0, sizeof old, &old) == 0);
        }
    }
#endif
    /* a flood nobody listens to */
    desc_for(&d, &s, NULL);
    d.on_stderr = NULL;
    c = open_client(&d);
    snprintf(args, sizeof args, "{\"bytes\":%lu}", (unsigned long)n);
    st = tool(c, "stderr", args, big, sizeof big, &err);
    EQST(st, MCP_OK, err);
    st = tool(c, "echo", "{}", big, sizeof big, &err);
    EQST(st, MCP_OK, err);
    mcp_client_free(c);
    CHECK(s.errs == 0);
    g_end(&g);
}

/* ---- 11. the server dies ------------------------------------------------------------------------ */

TEST_CASE(crash)
{
    guard g;
    seen s;
    mcp_client_desc d;
    mcp_client *c;
    mcp_error err;
    mcp_status st;
    mcp_call *other;
    g_begin(&g, "server exits and crashes");
    /* exits mid-call, with another call in flight */
    desc_for(&d, &s, NULL);
    c = open_client(&d);
    other = mcp_client_send_tool(c, "never", NULL, NULL, &err);
    st = tool(c, "exit", "{\"code\":1,\"stderr\":\"fatal: boom\"}", big, sizeof big, &err);
    EQST(st, MCP_ERR_CLOSED, err);
    EQS(err.message, "Transport closed (the server exited with status 1: fatal: boom)");
    st = mcp_call_result(other, NULL, &err);
    EQST(st, MCP_ERR_CLOSED, err);
    EQS(err.message, "Transport closed (the server exited with status 1: fatal: boom)");
    mcp_call_free(other);
    CHECK(s.closes == 1);
    EQST(s.why.status, MCP_ERR_CLOSED, s.why);
    EQS(s.why.message, "the server exited with status 1: fatal: boom");
    CHECK(s.errs == 1);
    EQS(s.err[0], "fatal: boom");
    st = mcp_client_ping(c, &err);
    EQST(st, MCP_ERR_CLOSED, err);
    EQS(err.message, "Transport closed");
    CHECK(mcp_client_send_tool(c, "echo", NULL, NULL, &err) == NULL && err.status == MCP_ERR_CLOSED);
    st = mcp_client_notify(c, "notifications/x", NULL, &err);
    EQST(st, MCP_ERR_CLOSED, err);
    CHECK(mcp_client_poll(c, 0) == MCP_ERR_CLOSED);
    CHECK(mcp_client_close(c) == MCP_OK);
    mcp_client_free(c);
    CHECK(s.closes == 1);

    /* abort() mid-call */
    desc_for(&d, &s, NULL);
    c = open_client(&d);
    st = tool(c, "exit", "{\"how\":\"abort\",\"stderr\":\"panic: oh no\"}", big, sizeof big, &err);
    EQST(st, MCP_ERR_CLOSED, err);
    EQS(err.message, "Transport closed (the server was killed by signal 6 (SIGABRT): panic: oh no)");
    mcp_client_free(c);
    CHECK(s.closes == 1);

    /* exit during initialize, after a Node-style error on stderr */
    {
        const char *a[] = { "--init=exit", NULL };
        desc_for(&d, &s, a);
        c = mcp_client_new(&d, &err);
        st = mcp_client_connect(c, &err);
        EQST(st, MCP_ERR_CLOSED, err);
        EQS(err.message, "Server exited with status 1 during initialize: Error: Cannot find module 'x'");
        CHECK(s.closes == 1);
        EQS(s.why.message, "the server exited with status 1: Error: Cannot find module 'x'");
        CHECK(s.errs == 11);
        EQS(s.err[4], "Error: Cannot find module 'x'");
        st = mcp_client_ping(c, &err);
        EQST(st, MCP_ERR_CLOSED, err);
        mcp_client_free(c);
    }
    {   /* ... before even reading the request */
        const char *a[] = { "--init=exit-early", NULL };
        desc_for(&d, &s, a);
        c = mcp_client_new(&d, &err);
        st = mcp_client_connect(c, &err);
        EQST(st, MCP_ERR_CLOSED, err);
        EQS(err.message, "Server exited with status 1 during initialize: Error: Cannot find module 'x'");
        CHECK(s.closes == 1);
        mcp_client_free(c);
    }
    {   /* abort() during initialize */
        const char *a[] = { "--init=crash", NULL };
        desc_for(&d, &s, a);
        c = mcp_client_new(&d, &err);
        st = mcp_client_connect(c, &err);
        EQST(st, MCP_ERR_CLOSED, err);
        EQS(err.message, "Server was killed by signal 6 (SIGABRT) during initialize: test_server: crashing on initialize");
        mcp_client_free(c);
    }
    {   /* TEST_SERVER_MODE in desc.env reaches the server's flags */
        const char *env[] = { "TEST_SERVER_MODE=init=exit", NULL };
        desc_for(&d, &s, NULL);
        d.env = env;
        c = mcp_client_new(&d, &err);
        st = mcp_client_connect(c, &err);
        EQST(st, MCP_ERR_CLOSED, err);
        EQS(err.message, "Server exited with status 1 during initialize: Error: Cannot find module 'x'");
        mcp_client_free(c);
    }
    /* the server dies while a grandchild still holds its stdout: the exit alone must end the
       transport, as the seed says ("when process exits or stream closes") */
    {
        int64_t t0, el;
        long gpid;
        desc_for(&d, &s, NULL);
        d.timeout_ms = 3000;
        c = open_client(&d);
        st = tool(c, "spawn", NULL, big, sizeof big, &err);
        EQST(st, MCP_OK, err);
        gpid = atol(big);
        CHECK(gpid > 0);
        t0 = mcp_time_ms();
        st = tool(c, "exit", "{\"code\":3}", big, sizeof big, &err);
        el = mcp_time_ms() - t0;
        EQST(st, MCP_ERR_CLOSED, err);
        EQS(err.message, "Transport closed (the server exited with status 3)");
        CHECKF(el < LATE(1500), "the exit was noticed after %lld ms", (long long)el);
        mcp_client_free(c);
        CHECK(gpid > 0 && pid_gone((pid_t)gpid, 2000));
        if (gpid > 0) kill((pid_t)gpid, SIGKILL);
    }
    g_end(&g);
}

/* ---- 12. the server stops reading, closes its ends, writes to a dead pipe (SIGPIPE) ---------- */

TEST_CASE(pipes)
{
    guard g;
    seen s;
    mcp_client_desc d;
    mcp_client *c;
    mcp_error err;
    mcp_status st;
    mcp_call *call;
    int64_t t0, el;
    long flood = quick ? 3000 : 30000;
    char args[64];
    int i;
    g_begin(&g, "stdin/stdout closed, SIGPIPE");

    /* the server closes its stdin and keeps running. The client holds a read end of that pipe
       (never read), so writing to it neither raises SIGPIPE nor fails: the request waits in
       the pipe, unread, and the call times out. More than a pipe holds waits in our buffer. */
    desc_for(&d, &s, NULL);
    d.timeout_ms = 300;
    c = open_client(&d);
    st = tool(c, "close_stdin", NULL, big, sizeof big, &err);
    EQST(st, MCP_OK, err);
    t0 = mcp_time_ms();
    st = tool(c, "echo", "{}", big, sizeof big, &err);     /* no SIGPIPE kills us */
    el = mcp_time_ms() - t0;
    EQST(st, MCP_ERR_TIMEOUT, err);
    CHECKF(el >= 250 && el < LATE(2000), "the unread request timed out after %lld ms", (long long)el);
    {
        size_t bn = 300000;
        char *huge = (char *)malloc(bn + 16);
        memcpy(huge, "{\"x\":\"", 6); memset(huge + 6, 'y', bn); memcpy(huge + 6 + bn, "\"}", 3);
        t0 = mcp_time_ms();
        call = mcp_client_send_tool(c, "echo", huge, NULL, &err);
        CHECK(call != NULL);
        CHECK(mcp_call_wait(call, 5000) == MCP_ERR_TIMEOUT);
        el = mcp_time_ms() - t0;
        CHECKF(el < LATE(2000), "a request larger than the pipe timed out after %lld ms", (long long)el);
        mcp_call_free(call);
        free(huge);
    }
    CHECK(s.logs == 0 && s.closes == 0);
    mcp_client_free(c);

    /* requests the server does not read are capped (desc.max_queued): a request larger than
       the cap still goes when nothing waits; behind it, the next one is refused */
    desc_for(&d, &s, NULL);
    d.timeout_ms = 300;
    d.max_queued = 100000;
    c = open_client(&d);
    st = tool(c, "close_stdin", NULL, big, sizeof big, &err);
    EQST(st, MCP_OK, err);
    {
        size_t bn = 300000;
        char *huge = (char *)malloc(bn + 16);
        mcp_call *next;
        memcpy(huge, "{\"x\":\"", 6); memset(huge + 6, 'y', bn); memcpy(huge + 6 + bn, "\"}", 3);
        call = mcp_client_send_tool(c, "echo", huge, NULL, &err);
        CHECK(call != NULL);
        next = mcp_client_send_tool(c, "echo", "{}", NULL, &err);
        CHECK(next == NULL);
        EQST(err.status, MCP_ERR_LIMIT, err);
        CHECKF(strstr(err.message, "The server has not read the last ") &&
               strstr(err.message, "is it still reading its standard input?") &&
               strstr(err.message, "mcp_client_desc.max_queued (100000 bytes)"), "message: %s", err.message);
        mcp_call_free(next);
        CHECK(mcp_call_wait(call, 5000) == MCP_ERR_TIMEOUT);   /* the one that went waits as before */
        mcp_call_free(call);
        free(huge);
    }
    CHECK(s.logs == 0 && s.closes == 0);
    t0 = mcp_time_ms();
    mcp_client_free(c);                 /* stdin EOF means nothing to it: SIGTERM after 200 ms */
    el = mcp_time_ms() - t0;
    CHECKF(el < LATE(1500), "close took %lld ms", (long long)el);
    CHECK(s.closes == 1);

    /* the same with SIGPIPE blocked by the program: none is left pending by the library, and
       one the program had pending stays pending */
    {
        sigset_t set, old, pend;
        sigemptyset(&set); sigaddset(&set, SIGPIPE);
        sigprocmask(SIG_BLOCK, &set, &old);
        desc_for(&d, &s, NULL);
        c = open_client(&d);
        tool(c, "close_stdin", NULL, big, sizeof big, &err);
        call = mcp_client_send_tool(c, "echo", NULL, NULL, &err);
        mcp_call_free(call);
        sigpending(&pend);
        CHECK(!sigismember(&pend, SIGPIPE));
        mcp_client_free(c);
        desc_for(&d, &s, NULL);
        c = open_client(&d);
        tool(c, "close_stdin", NULL, big, sizeof big, &err);
        raise(SIGPIPE);
        call = mcp_client_send_tool(c, "echo", NULL, NULL, &err);
        mcp_call_free(call);
        sigpending(&pend);
        CHECK(sigismember(&pend, SIGPIPE));
        {
            int sig;
            sigwait(&set, &sig);                          /* consume ours */
        }
        mcp_client_free(c);
        sigprocmask(SIG_SETMASK, &old, NULL);
    }

    /* writing to a server that has exited (before its EOF was read) */
    desc_for(&d, &s, NULL);
    c = open_client(&d);
    call = mcp_client_send_tool(c, "exit", "{\"code\":0}", NULL, &err);
    nap(100);
    {
        mcp_call *c2 = mcp_client_send_tool(c, "echo", "{\"x\":\"after death\"}", NULL, &err);
        if (c2) {
            CHECK(mcp_call_wait(c2, 2000) == MCP_ERR_CLOSED);
            mcp_call_result(c2, NULL, &err);
            EQS(err.message, "Transport closed (the server exited with status 0)");
        } else {
            EQST(err.status, MCP_ERR_CLOSED, err);
        }
        mcp_call_free(c2);
    }
    CHECK(mcp_call_wait(call, 2000) == MCP_ERR_CLOSED);
    mcp_call_result(call, NULL, &err);
    EQS(err.message, "Transport closed (the server exited with status 0)");
    mcp_call_free(call);
    mcp_client_free(c);

    /* the server closes its stdout and keeps running: EOF ends the transport */
    desc_for(&d, &s, NULL);
    c = open_client(&d);
    st = tool(c, "close_stdout", NULL, big, sizeof big, &err);
    EQST(st, MCP_OK, err);
    for (i = 0; i < 100 && mcp_client_poll(c, 10) == MCP_OK; i++) {}
    CHECK(s.closes == 1);
    EQS(s.why.message, "the server exited with status 0");
    st = mcp_client_ping(c, &err);
    EQST(st, MCP_ERR_CLOSED, err);
    mcp_client_free(c);
    {   /* ... and also ignores stdin EOF: SIGTERM */
        const char *a[] = { "--ignore-eof", NULL };
        desc_for(&d, &s, a);
        c = open_client(&d);
        call = mcp_client_send_tool(c, "never", NULL, NULL, &err);
        st = tool(c, "close_stdout", NULL, big, sizeof big, &err);
        EQST(st, MCP_OK, err);
        for (i = 0; i < 100 && mcp_client_poll(c, 10) == MCP_OK; i++) {}
        CHECK(s.closes == 1);
        EQS(s.why.message, "the server closed its standard output");   /* and was then stopped */
        mcp_call_result(call, NULL, &err);
        EQST(err.status, MCP_ERR_CLOSED, err);
        EQS(err.message, "Transport closed (the server closed its standard output)");
        mcp_call_free(call);
        mcp_client_free(c);
    }

    /* the server stops reading stdin and floods stdout: we keep reading, our writes queue up,
       timers still fire */
    desc_for(&d, &s, NULL);
    c = open_client(&d);
    snprintf(args, sizeof args, "{\"count\":%ld}", flood);
    st = tool(c, "flood", args, big, sizeof big, &err);
    EQST(st, MCP_OK, err);
    {
        size_t len = 256 << 10, k;                 /* 4 x the pipe's capacity */
        char *payload = (char *)malloc(len + 32);
        mcp_call_opts o;
        mcp_pollfd f[4];
        int m, pollout = 0;
        memcpy(payload, "{\"s\":\"", 6);
        for (k = 6; k < len + 6; k++) payload[k] = 'z';
        memcpy(payload + len + 6, "\"}", 3);
        memset(&o, 0, sizeof o);
        o.timeout_ms = 300;
        t0 = mcp_time_ms();
        call = mcp_client_send_tool(c, "echo", payload, &o, &err);
        el = mcp_time_ms() - t0;
        CHECK(call != NULL);
        /* a blocking write would never return: the server does not read */
        CHECKF(el < LATE(1500), "a send to a server that does not read took %lld ms", (long long)el);
        m = mcp_client_pollfds(c, f, 4);
        for (k = 0; k < (size_t)m; k++) pollout |= (f[k].events & POLLOUT) != 0;
        CHECK(pollout);
        t0 = mcp_time_ms();
        st = mcp_call_wait(call, -1);
        el = mcp_time_ms() - t0;
        CHECK(st == MCP_ERR_TIMEOUT);
        CHECKF(el < LATE(2000), "timed out after %lld ms", (long long)el);
        mcp_call_result(call, NULL, &err);
        EQS(err.message, "Request timeout after 300ms");
        mcp_call_free(call);
        free(payload);
    }
    for (i = 0; i < 500 && s.floods < flood; i++) mcp_client_poll(c, 10);
    CHECKF(s.floods == flood, "%ld of %ld notifications", s.floods, flood);
    snprintf(args, sizeof args, "flood %ld", flood);
    EQS(s.flood_last, args);
    t0 = mcp_time_ms();
    mcp_client_free(c);
    el = mcp_time_ms() - t0;
    CHECKF(el >= 190 && el < LATE(1000), "close took %lld ms", (long long)el);
    CHECK(s.closes == 1);
    g_end(&g);
}

/* ---- 13. close -------------------------------------------------------------------------------- */

TEST_CASE(close)
{
    guard g;
    seen s;
    mcp_client_desc d;
    mcp_client *c;
    mcp_error err;
    mcp_status st;
    mcp_call *calls[3];
    int64_t t0, el;
    int i, pid;
    char path[PATH_MAX + 32], arg[PATH_MAX + 64], *txt;
    g_begin(&g, "close semantics");
    desc_for(&d, &s, NULL);
    d.close_timeout_ms = 3000;                    /* a plain close never waits for it */
    c = open_client(&d);
    for (i = 0; i < 3; i++) calls[i] = mcp_client_send_tool(c, "never", NULL, NULL, &err);
    t0 = mcp_time_ms();
    CHECK(mcp_client_close(c) == MCP_OK);
    el = mcp_time_ms() - t0;
    CHECKF(el < LATE(1000), "a plain close took %lld ms", (long long)el);
    for (i = 0; i < 3; i++) {
        st = mcp_call_result(calls[i], NULL, &err);
        EQST(st, MCP_ERR_CLOSED, err);
        EQS(err.message, "Transport closed");
    }
    CHECK(s.closes == 1);
    EQST(s.why.status, MCP_ERR_CLOSED, s.why);
    EQS(s.why.message, "the client closed the connection");
    CHECK(mcp_client_close(c) == MCP_OK);
    CHECK(s.closes == 1);
    CHECK(mcp_client_poll(c, 0) == MCP_ERR_CLOSED);
    st = tool(c, "echo", NULL, big, sizeof big, &err);
    EQST(st, MCP_ERR_CLOSED, err);
    EQS(err.message, "Transport closed");
    st = mcp_client_list_tools(c, NULL, &err);
    EQST(st, MCP_ERR_CLOSED, err);
    mcp_client_free(c);
    for (i = 0; i < 3; i++) {                     /* calls outlive their client */
        CHECK(mcp_call_status(calls[i]) == MCP_ERR_CLOSED);
        CHECK(mcp_call_wait(calls[i], 10) == MCP_ERR_CLOSED);
        mcp_call_free(calls[i]);
    }
    CHECK(s.closes == 1);

    /* free with calls still in flight and held by the program */
    desc_for(&d, &s, NULL);
    c = open_client(&d);
    calls[0] = mcp_client_send_tool(c, "never", NULL, NULL, &err);
    mcp_client_free(c);
    CHECK(mcp_call_status(calls[0]) == MCP_ERR_CLOSED);
    mcp_call_free(calls[0]);
    CHECK(s.closes == 1);

    /* a server that ignores stdin EOF gets SIGTERM after close_timeout_ms */
    snprintf(path, sizeof path, "%s/term", tmpdir);
    snprintf(arg, sizeof arg, "--term-file=%s", path);
    {
        const char *a[] = { "--ignore-eof", arg, NULL };
        desc_for(&d, &s, a);
        c = open_client(&d);
        pid = server_pid(c);
        t0 = mcp_time_ms();
        mcp_client_free(c);
        el = mcp_time_ms() - t0;
        CHECKF(el >= 195 && el < LATE(1500), "close of an EOF-ignoring server took %lld ms", (long long)el);
        txt = read_file(path);
        EQS(txt, "SIGTERM\n");
        free(txt);
        unlink(path);
        CHECK(pid > 0 && pid_gone(pid, 0));
        CHECK(s.closes == 1);
        EQS(s.why.message, "the client closed the connection");
    }
    {   /* mcp_client_close_now: SIGTERM at once, without the wait for the EOF to be seen */
        const char *a[] = { "--ignore-eof", arg, NULL };
        const char *why = "unset";
        desc_for(&d, &s, a);
        d.close_timeout_ms = 1500;
        c = open_client(&d);
        CHECK(mcp_client_transport(c, &why) == MCP_STDIO && why == NULL);
        pid = server_pid(c);
        t0 = mcp_time_ms();
        CHECK(mcp_client_close_now(c) == MCP_OK);
        el = mcp_time_ms() - t0;
        CHECKF(el < LATE(700), "close_now of an EOF-ignoring server took %lld ms (the polite close: 1500)",
               (long long)el);
        txt = read_file(path);
        EQS(txt, "SIGTERM\n");
        free(txt);
        unlink(path);
        CHECK(pid > 0 && pid_gone(pid, 0));
        CHECK(s.closes == 1);
        EQS(s.why.message, "the client closed the connection");
        st = mcp_client_ping(c, &err);
        EQST(st, MCP_ERR_CLOSED, err);
        mcp_client_free(c);                              /* already closed: nothing more to wait for */
        CHECK(s.closes == 1);
        CHECK(mcp_client_close_now(NULL) == MCP_ERR_INVALID);
    }
    {   /* ... one that also ignores SIGTERM is SIGKILLed */
        const char *a[] = { "--ignore-eof", "--ignore-term", NULL };
        desc_for(&d, &s, a);
        d.close_timeout_ms = 100;
        c = open_client(&d);
        pid = server_pid(c);
        t0 = mcp_time_ms();
        mcp_client_free(c);
        el = mcp_time_ms() - t0;
        CHECKF(el >= 195 && el < LATE(1000), "close of a SIGTERM-ignoring server took %lld ms", (long long)el);
        CHECK(pid > 0 && pid_gone(pid, 0));
    }
    {   /* the same through TEST_SERVER_MODE */
        const char *env[] = { "TEST_SERVER_MODE=--ignore-eof ignore-term", NULL };
        desc_for(&d, &s, NULL);
        d.env = env;
        d.close_timeout_ms = 50;
        c = open_client(&d);
        pid = server_pid(c);
        t0 = mcp_time_ms();
        mcp_client_free(c);
        el = mcp_time_ms() - t0;
        CHECKF(el >= 95 && el < LATE(1000), "close took %lld ms", (long long)el);
        CHECK(pid > 0 && pid_gone(pid, 0));
    }

    /* grandchildren: none outlives the close */
    {
        static const char *const how[] = { "{}", "{\"closefds\":true}", "{\"stubborn\":true}",
                                           "{\"closefds\":true,\"stubborn\":true}" };
        for (i = 0; i < 4; i++) {
            long gpid;
            desc_for(&d, &s, NULL);
            d.close_timeout_ms = 100;
            c = open_client(&d);
            st = tool(c, "spawn", how[i], big, sizeof big, &err);
            EQST(st, MCP_OK, err);
            gpid = atol(big);
            CHECK(gpid > 0 && !pid_gone((pid_t)gpid, 0));
            mcp_client_free(c);
            CHECKF(gpid > 0 && pid_gone((pid_t)gpid, 1000), "grandchild %s outlived the close", how[i]);
            if (gpid > 0) kill((pid_t)gpid, SIGKILL);
        }
    }

    /* close from inside a callback, while a blocking call waits and another call is in flight.
       The blocking call may already have its answer read (then it completes) or not. */
    desc_for(&d, &s, NULL);
    s.close_on_note = 1;
    c = open_client(&d);
    calls[0] = mcp_client_send_tool(c, "never", NULL, NULL, &err);
    st = tool(c, "notify", NULL, big, sizeof big, &err);
    CHECKF(st == MCP_OK || (st == MCP_ERR_CLOSED && !strcmp(err.message, "Transport closed")),
           "the blocking call: %d %s", (int)st, err.message);
    st = mcp_call_result(calls[0], NULL, &err);
    EQST(st, MCP_ERR_CLOSED, err);
    EQS(err.message, "Transport closed");
    mcp_call_free(calls[0]);
    CHECK(s.closes == 1);
    EQS(s.why.message, "the client closed the connection");
    i = s.notes;
    CHECK(mcp_client_poll(c, 20) == MCP_ERR_CLOSED);
    CHECK(s.notes == i);                          /* nothing more after the close */
    st = mcp_client_ping(c, &err);
    EQST(st, MCP_ERR_CLOSED, err);
    mcp_client_free(c);
    CHECK(s.closes == 1);
    g_end(&g);
}

/* ---- 14. spawn errors, env, cwd, PATH ------------------------------------------------------- */

TEST_CASE(spawn)
{
    guard g;
    seen s;
    mcp_client_desc d;
    mcp_client *c;
    mcp_error err;
    mcp_status st;
    char want[PATH_MAX * 2 + 200], path[PATH_MAX + 64], real[PATH_MAX];
    g_begin(&g, "spawn errors, env, cwd");
    desc_for(&d, &s, NULL);
    d.command = "mcp-test-no-such-command-xyz";
    c = mcp_client_new(&d, &err);
    CHECK(c != NULL);
    st = mcp_client_connect(c, &err);
    EQST(st, MCP_ERR_IO, err);
    CHECK(err.sys_errno == ENOENT);
    EQS(err.message, "Could not start the server: \"mcp-test-no-such-command-xyz\" was not found on PATH.");
    st = mcp_client_ping(c, &err);
    EQST(st, MCP_ERR_CLOSED, err);
    mcp_client_free(c);

    desc_for(&d, &s, NULL);
    d.command = "/nonexistent/dir/server";
    c = mcp_client_new(&d, &err);
    st = mcp_client_connect(c, &err);
    EQST(st, MCP_ERR_IO, err);
    CHECK(err.sys_errno == ENOENT);
    EQS(err.message, "Could not start the server \"/nonexistent/dir/server\" (/nonexistent/dir/server): "
                     "No such file or directory.");
    mcp_client_free(c);

    snprintf(path, sizeof path, "%s/not-executable", tmpdir);
    {
        FILE *f = fopen(path, "w");
        if (f) { fputs("#!/bin/sh\n", f); fclose(f); }
        chmod(path, 0644);
    }
    desc_for(&d, &s, NULL);
    d.command = path;
    c = mcp_client_new(&d, &err);
    st = mcp_client_connect(c, &err);
    EQST(st, MCP_ERR_IO, err);
    CHECK(err.sys_errno == EACCES || getuid() == 0);
    if (getuid() != 0) {
        snprintf(want, sizeof want, "Could not start the server \"%s\" (%s): Permission denied.", path, path);
        EQS(err.message, want);
    }
    mcp_client_free(c);
    unlink(path);

    desc_for(&d, &s, NULL);
    d.cwd = "/nonexistent-cwd";
    c = mcp_client_new(&d, &err);
    st = mcp_client_connect(c, &err);
    EQST(st, MCP_ERR_IO, err);
    CHECK(err.sys_errno == ENOENT);
    snprintf(want, sizeof want, "Could not start the server \"%s\": cannot change to directory \"/nonexistent-cwd\": "
             "No such file or directory.", server);
    EQS(err.message, want);
    mcp_client_free(c);

    /* env overrides, removals and inheritance; cwd */
    setenv("MCP_T_INHERIT", "inherited", 1);
    setenv("MCP_T_REMOVE", "should not be seen", 1);
    setenv("MCP_T_OVERRIDE", "old", 1);
    {
        const char *env[] = { "MCP_T_NEW=hello world", "MCP_T_REMOVE", "MCP_T_OVERRIDE=new", "MCP_T_EMPTY=", NULL };
        desc_for(&d, &s, NULL);
        d.env = env;
        d.cwd = tmpdir;
        c = open_client(&d);
        tool(c, "env", "{\"name\":\"MCP_T_NEW\"}", big, sizeof big, &err);
        EQS(big, "hello world");
        tool(c, "env", "{\"name\":\"MCP_T_REMOVE\"}", big, sizeof big, &err);
        EQS(big, "(unset)");
        tool(c, "env", "{\"name\":\"MCP_T_OVERRIDE\"}", big, sizeof big, &err);
        EQS(big, "new");
        tool(c, "env", "{\"name\":\"MCP_T_INHERIT\"}", big, sizeof big, &err);
        EQS(big, "inherited");
        tool(c, "env", "{\"name\":\"MCP_T_EMPTY\"}", big, sizeof big, &err);
        EQS(big, "");
        tool(c, "cwd", NULL, big, sizeof big, &err);
        EQS(big, realpath(tmpdir, real) ? real : tmpdir);
        mcp_client_free(c);
    }
    {   /* no env: everything inherited; no cwd: ours */
        char here[PATH_MAX];
        desc_for(&d, &s, NULL);
        c = open_client(&d);
        tool(c, "env", "{\"name\":\"MCP_T_REMOVE\"}", big, sizeof big, &err);
        EQS(big, "should not be seen");
        tool(c, "cwd", NULL, big, sizeof big, &err);
        EQS(big, getcwd(here, sizeof here) ? here : "?");
        mcp_client_free(c);
    }
    unsetenv("MCP_T_INHERIT"); unsetenv("MCP_T_REMOVE"); unsetenv("MCP_T_OVERRIDE");
    {   /* a bare command name is looked up on the PATH the child will have */
        char pathvar[PATH_MAX + 64];
        const char *env[] = { pathvar, NULL };
        const char *base = strrchr(server, '/') ? strrchr(server, '/') + 1 : server;
        snprintf(pathvar, sizeof pathvar, "PATH=/nonexistent-dir:%s", server_dir);
        desc_for(&d, &s, NULL);
        d.command = base;
        d.env = env;
        c = open_client(&d);
        CHECK(mcp_client_ping(c, &err) == MCP_OK);
        tool(c, "env", "{\"name\":\"PATH\"}", big, sizeof big, &err);
        EQS(big, pathvar + 5);
        mcp_client_free(c);
    }
    {   /* started through sh -c, with arguments */
        char cmd[PATH_MAX + 64];
        const char *a[] = { "-c", cmd, NULL };
        snprintf(cmd, sizeof cmd, "exec '%s' --no-instructions", server);
        desc_for(&d, &s, a);
        d.command = "sh";
        c = open_client(&d);
        CHECK(mcp_client_instructions(c) == NULL);
        CHECK(mcp_client_ping(c, &err) == MCP_OK);
        mcp_client_free(c);
    }
    g_end(&g);
}

/* ---- 15. callbacks that make blocking calls ------------------------------------------------- */

TEST_CASE(nested)
{
    guard g;
    seen s;
    mcp_client_desc d;
    mcp_client *c;
    mcp_error err;
    mcp_status st;
    g_begin(&g, "blocking calls from callbacks");
    desc_for(&d, &s, NULL);
    d.on_request = cb_request;
    d.capabilities = MCP_CAP_ROOTS;
    c = open_client(&d);
    s.nested = 1;
    st = tool(c, "notify", NULL, big, sizeof big, &err);
    EQST(st, MCP_OK, err);
    EQS(big, "notified");
    CHECK(s.nested_calls == 1);
    EQST(s.nested_st, MCP_OK, err);
    CHECK(s.nested_tools == 26);
    CHECK(s.notes == 9);
    s.nested = 2;
    s.nested_calls = 0;
    st = ask(c, "{\"method\":\"roots/list\"}", &err);
    EQST(st, MCP_OK, err);
    EQS(big, "{\"result\":{\"roots\":[{\"uri\":\"file:///nested\",\"name\":\"echoed\"}]}}");
    CHECK(s.nested_calls == 1);
    EQST(s.nested_st, MCP_OK, err);
    st = tool(c, "echo", "{\"after\":1}", big, sizeof big, &err);
    EQST(st, MCP_OK, err);
    mcp_client_free(c);
    CHECK(s.closes == 1);
    g_end(&g);
}

/* ---- 16. a bad line at the very end of a full read (64 KiB: two of mcp.h's 32 KiB reads) ---- */
/* Last on purpose: a read past the line (and past the read buffer) shows up as junk in the log
   message here, and under AddressSanitizer stops the program. */

TEST_CASE(edge)
{
    guard g;
    seen s;
    mcp_client_desc d;
    mcp_client *c;
    mcp_error err;
    mcp_status st;
    int i, found = 0;
    g_begin(&g, "bad line ending a 64 KiB read");
    desc_for(&d, &s, NULL);
    c = open_client(&d);
    for (i = 0; i < 3; i++) {
        s.logs = 0;
        st = tool(c, "edge", NULL, big, sizeof big, &err);
        EQST(st, MCP_OK, err);
        EQS(big, "edge sent");
        CHECK(s.logs == 1);
        EQS(s.log[0], "Dropped a line from the server that is not JSON (JSON parse error at line 1, column 1 "
                      "(byte 0): expected a value, found 'n'): not json!");
        found += s.logs == 1;
    }
    CHECK(found == 3 && s.notes == 3);
    mcp_client_free(c);
    g_end(&g);
}

/* ---- main ------------------------------------------------------------------------------------ */

int main(int argc, char **argv)
{
    static char abs_server[PATH_MAX];
    const char *srv;
    struct sigaction sa;
    char *slash;
    int64_t t0 = mcp_time_ms();
    test_args(&argc, argv);
    srv = argc > 2 ? argv[2] : getenv("MCP_TEST_SERVER");
    if (!srv || !*srv) srv = "build/test_server";
    quick = getenv("MCP_TEST_QUICK") && atoi(getenv("MCP_TEST_QUICK")) > 0;
    if (getenv("LD_PRELOAD") && strstr(getenv("LD_PRELOAD"), "vgpreload")) slack = 10;   /* valgrind */
    if (getenv("MCP_TEST_SLACK") && atoi(getenv("MCP_TEST_SLACK")) > 0) slack = atoi(getenv("MCP_TEST_SLACK"));
    if (!realpath(srv, abs_server) || access(abs_server, X_OK)) {
        fprintf(stderr, "test_client: the test server \"%s\" is missing: build it from "
                        "tests/servers/test_server.c, or pass its path as argv[2] or MCP_TEST_SERVER\n", srv);
        CHECK(!"test server present");
        return TEST_DONE();
    }
    server = abs_server;
    snprintf(server_dir, sizeof server_dir, "%s", server);
    if ((slash = strrchr(server_dir, '/')) != NULL) *slash = 0;
    snprintf(tmpdir, sizeof tmpdir, "%s/mcp_test_client_%ld", getenv("TMPDIR") && *getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp",
             (long)getpid());                    /* $TMPDIR, as mktemp(1) has it */
    if (mkdir(tmpdir, 0700) < 0 && errno != EEXIST) { perror("mkdir"); return 2; }
    sigaction(SIGPIPE, NULL, &sa);
    CHECKF(sa.sa_handler == SIG_DFL, "SIGPIPE must keep its default disposition in this test");

    test_run();

    rmdir(tmpdir);
    printf("# total %lld ms\n", (long long)(mcp_time_ms() - t0));
    return TEST_DONE();
}
