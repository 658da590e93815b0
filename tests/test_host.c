/* Tests of the host (>>host, issue 18): one mcp_host managing many configured servers at once.
   Public API only, against real server processes: the test server (tests/servers/test_server.c)
   in both eras and in the modes made for these tests (startup-delay, exit-on-initialize, more
   tools with odd names, list-changed-after), the demo server (examples/demo_server.c), the
   Streamable HTTP test server (tests/servers/http_server.c), a command that does not exist and
   an HTTP URL on a port nobody listens on.

   Every case runs inside a guard that checks, once its hosts are freed: no fd left open (the
   entries of /proc/self/fd, before and after), no child left (waitpid(-1, WNOHANG) says
   ECHILD; a child still there is named, killed and reaped, so the next case starts clean).

   Cases, in order: a config in the mcpServers format (and VS Code's "servers", a file, a bad
   entry, a later file replacing a server); config variables and fields, the reader's log, a
   server replaced while a call to it is in flight; one host with eight servers at once (states
   and on_state, the error sentences, the union of the tools under qualified names, sorted and
   valid, mcp_host_list, calls routed to each server, the breaker of a URL nobody answers); the
   backoff's growing retry_at and the breaker in detail; odd and long names (mapped, shortened
   with the hash, the same in a second host), the program's own qualify rule; a call to a
   server still connecting; a stdio server killed with a call in flight (the call fails naming
   the server, the next call restarts it, at most restarts_per_minute times; MCP_RESTART_NEVER
   and _ALWAYS); a server exiting on its own; server requests and notifications, timeouts, a
   call cut off by disable, mcp_host_add replacing a ready server; servers that keep failing,
   endless pages, 20 calls queued; prompts and resources; tools/list_changed in both eras
   (on_change, the list rebuilt); the cache file (a second host lists a slow server's tools at
   once and a call to one waits for it; a changed description takes no cache; an HTTP server
   gone the next time); disable, enable, retry; the host driven from an outside loop
   (mcp_host_pollfds, mcp_poll, mcp_host_poll(h, 0)), trusting mcp_host_next_timeout alone; a
   host freed while its servers connect and calls wait.

   Usage: test_host [DATA_DIR [SERVER]]   SERVER: the test server; default env MCP_TEST_SERVER,
   else build/test_server. The demo server and the HTTP test server are looked for beside it
   (demo_server, http_server). Upper time bounds are multiplied by 10 under valgrind, or by
   MCP_TEST_SLACK. Built with -DMCP_NO_HOST the host is not there: the host cases are skipped
   (one SKIPPED line) and a plain client against the test server is checked instead. */
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
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static char server_path[PATH_MAX];     /* the HTTP test server (http_srv.h's name for it) */
static char test_server[PATH_MAX], demo_server[PATH_MAX];
static int have_demo, have_http;
static char tmpdir[PATH_MAX - 64];   /* room for a file name after it */
static int slack = 1;                  /* upper time bounds are multiplied by this (valgrind: 10) */
#define LATE(ms) ((int)(ms) * slack)

static const char *nn(const char *s) { return s ? s : "(null)"; }
#define EQS(a, b) CHECKF(!strcmp(nn(a), (b)), "got \"%s\", want \"%s\"", nn(a), (b))
#define EQST(st, want, err) CHECKF((st) == (want), "status %d (%s), want %d; message: %s", (int)(st), \
                                   mcp_status_str(st), (int)(want), (err).message)
#define EQL(a, b) CHECKF((long)(a) == (long)(b), "%s is %ld, want %ld", #a, (long)(a), (long)(b))

/* ---- the guard: no fd, no child left once a case's hosts are freed ---------------------------- */

static int guard_fds;

static void guard_begin(void) { guard_fds = count_fds(); }

/* Children of this process still there (alive or zombies): named, killed, reaped; the count. */
static int children_left(char *names, size_t n)
{
    DIR *d = opendir("/proc");
    struct dirent *e;
    int found = 0;
    long me = (long)getpid();
    if (names && n) names[0] = 0;
    if (!d) return 0;
    while ((e = readdir(d)) != NULL) {
        char path[300], buf[512], *rp;
        long pid = atol(e->d_name), ppid = 0;
        FILE *f;
        if (pid <= 0) continue;
        snprintf(path, sizeof path, "/proc/%ld/stat", pid);
        if (!(f = fopen(path, "r"))) continue;
        if (!fgets(buf, sizeof buf, f)) buf[0] = 0;
        fclose(f);
        rp = strrchr(buf, ')');           /* "pid (comm) S ppid ..." */
        if (!rp || sscanf(rp + 2, "%*c %ld", &ppid) != 1 || ppid != me) continue;
        found++;
        if (names && strlen(names) + 80 < n)
            snprintf(names + strlen(names), n - strlen(names), " %.*s", (int)(rp - buf + 1 > 60 ? 60 : rp - buf + 1), buf);
        kill((pid_t)pid, SIGKILL);
        waitpid((pid_t)pid, NULL, 0);
    }
    closedir(d);
    return found;
}

static void guard_end(const char *what)
{
    char names[1024];
    int fds, left, i, st;
    pid_t r;
    for (i = 0; i < 50 && count_fds() != guard_fds; i++) nap(10);   /* none should be pending */
    fds = count_fds();
    CHECKF(fds == guard_fds, "%s: %d fds open after mcp_host_free, %d before", what, fds, guard_fds);
    r = waitpid(-1, &st, WNOHANG);
    CHECKF(r == -1 && errno == ECHILD, "%s: waitpid(-1, WNOHANG) gave %ld (%s): a child was left %s", what,
           (long)r, r < 0 ? strerror(errno) : "not ECHILD", r > 0 ? "unreaped (a zombie)" : "running");
    left = children_left(names, sizeof names);
    CHECKF(left == 0, "%s: %d children left after mcp_host_free:%s", what, left, names);
    while (waitpid(-1, &st, WNOHANG) > 0) {}
}

/* ---- the HTTP test server ---------------------------------------------------------------------- */

#include "http_srv.h"

/* A TCP port that nobody listens on now: bind port 0, see what the kernel gave, close. */
static int free_port(void)
{
    struct sockaddr_in a;
    socklen_t len = sizeof a;
    int fd = socket(AF_INET, SOCK_STREAM, 0), port = -1;
    if (fd < 0) return -1;
    memset(&a, 0, sizeof a);
    a.sin_family = AF_INET;
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    if (bind(fd, (struct sockaddr *)&a, sizeof a) == 0 && getsockname(fd, (struct sockaddr *)&a, &len) == 0)
        port = ntohs(a.sin_port);
    close(fd);
    return port;
}

/* The text of a result's first content item, or NULL. */
static const char *text_of(const mcp_json *r)
{
    return mcp_json_str(mcp_json_get(mcp_json_at(mcp_json_get(r, "content"), 0), "text"));
}

#ifndef MCP_NO_HOST

/* ---- what the host's callbacks saw ------------------------------------------------------------- */

#define MAXEV 256
typedef struct event {
    char server[80];
    mcp_server_state state;
    int has_why; mcp_status why_status; char why[600];
    int64_t at;
    int64_t retry_at;                    /* RETRYING: what mcp_host_server_get said in the callback */
} event;

typedef struct rec {
    event ev[MAXEV]; int nev;            /* on_state, in order */
    char changed[MAXEV][80]; int nchanged;   /* on_change: the server */
    char errline[64][300]; char errsrv[64][80]; int nerr;   /* on_stderr */
    int logs; char log[32][300];         /* on_log */
    int notes;                           /* on_notification */
} rec;

static const char *const state_names[] = { "DISABLED", "IDLE", "CONNECTING", "READY", "RETRYING",
                                           "FAILED", "NEEDS_AUTH" };
static const char *sname(int s) { return s >= 0 && s <= 6 ? state_names[s] : "?"; }

static void cb_state(void *user, mcp_host *h, const char *server, mcp_server_state state, const mcp_error *why)
{
    rec *r = (rec *)user;
    event *e;
    if (r->nev >= MAXEV) return;
    e = &r->ev[r->nev++];
    snprintf(e->server, sizeof e->server, "%s", nn(server));
    e->state = state;
    e->has_why = why != NULL;
    e->why_status = why ? why->status : MCP_OK;
    snprintf(e->why, sizeof e->why, "%s", why ? why->message : "");
    e->at = mcp_time_ms();
    e->retry_at = 0;
    if (state == MCP_SERVER_RETRYING) {
        mcp_host_server hs;
        long i = mcp_host_server_find(h, server);
        if (i >= 0 && mcp_host_server_get(h, (size_t)i, &hs) == MCP_OK) e->retry_at = hs.retry_at;
    }
}

static void cb_change(void *user, mcp_host *h, const char *server)
{
    rec *r = (rec *)user;
    (void)h;
    if (r->nchanged < MAXEV) snprintf(r->changed[r->nchanged], sizeof r->changed[0], "%s", nn(server));
    r->nchanged++;
}

static void cb_stderr(void *user, mcp_host *h, const char *server, const char *line, size_t len)
{
    rec *r = (rec *)user;
    (void)h;
    if (r->nerr < 64) {
        snprintf(r->errsrv[r->nerr], sizeof r->errsrv[0], "%s", nn(server));
        snprintf(r->errline[r->nerr], sizeof r->errline[0], "%.*s", (int)(len > 299 ? 299 : len), line);
    }
    r->nerr++;
}

static void cb_log(void *user, mcp_host *h, const char *server, const char *message)
{
    rec *r = (rec *)user;
    (void)h;
    if (r->logs < 32) snprintf(r->log[r->logs], sizeof r->log[0], "%s: %s", server ? server : "(host)", nn(message));
    r->logs++;
}

static void cb_note(void *user, mcp_host *h, const char *server, const char *method, const mcp_json *params)
{
    (void)h; (void)server; (void)method; (void)params;
    ((rec *)user)->notes++;
}

/* How many on_state calls said this server went to this state. */
static int saw(const rec *r, const char *server, mcp_server_state state)
{
    int i, n = 0;
    for (i = 0; i < r->nev && i < MAXEV; i++)
        if (!strcmp(r->ev[i].server, server) && r->ev[i].state == state) n++;
    return n;
}

/* Index of the first on_state call for this server and state at or after `from`; -1: none. */
static int saw_at(const rec *r, const char *server, mcp_server_state state, int from)
{
    int i;
    for (i = from < 0 ? 0 : from; i < r->nev && i < MAXEV; i++)
        if (!strcmp(r->ev[i].server, server) && r->ev[i].state == state) return i;
    return -1;
}

static int changes_of(const rec *r, const char *server)
{
    int i, n = 0;
    for (i = 0; i < r->nchanged && i < MAXEV; i++) if (!strcmp(r->changed[i], server)) n++;
    return n;
}

static void print_events(const rec *r)
{
    int i;
    for (i = 0; i < r->nev && i < MAXEV; i++)
        fprintf(stderr, "    on_state %-12s %-10s %s\n", r->ev[i].server, sname((int)r->ev[i].state), r->ev[i].why);
}

static void desc_init(mcp_host_desc *d, rec *r)
{
    memset(d, 0, sizeof *d);
    memset(r, 0, sizeof *r);
    d->client_name = "test_host";
    d->client_version = "1.0";
    d->user = r;
    d->on_state = cb_state;
    d->on_change = cb_change;
    d->on_stderr = cb_stderr;
    d->on_log = cb_log;
    d->on_notification = cb_note;
}

static mcp_host *host_new(const mcp_host_desc *d)
{
    mcp_error err;
    mcp_host *h = mcp_host_new(d, &err);
    CHECKF(h != NULL, "mcp_host_new: %s", err.message);
    return h;
}

/* A stdio server: the test server with these flags (NULL-ended), or another command. */
static mcp_status add_cmd(mcp_host *h, const char *name, const char *command, const char *const *args)
{
    mcp_client_desc d;
    mcp_error err;
    mcp_status st;
    memset(&d, 0, sizeof d);
    d.transport = MCP_STDIO;
    d.command = command;
    d.args = args;
    st = mcp_host_add(h, name, &d, &err);
    CHECKF(st == MCP_OK, "mcp_host_add(%s): %s", name, err.message);
    return st;
}

static mcp_status add_ts(mcp_host *h, const char *name, const char *f1, const char *f2, const char *f3)
{
    const char *args[4];
    int n = 0;
    if (f1) args[n++] = f1;
    if (f2) args[n++] = f2;
    if (f3) args[n++] = f3;
    args[n] = NULL;
    return add_cmd(h, name, test_server, args);
}

static mcp_status add_url(mcp_host *h, const char *name, mcp_transport_kind kind, const char *url)
{
    mcp_client_desc d;
    mcp_error err;
    mcp_status st;
    memset(&d, 0, sizeof d);
    d.transport = kind;
    d.url = url;
    st = mcp_host_add(h, name, &d, &err);
    CHECKF(st == MCP_OK, "mcp_host_add(%s): %s", name, err.message);
    return st;
}

/* The server as mcp_host_server_get tells it; 0 if there is none of that name. */
static int get(const mcp_host *h, const char *name, mcp_host_server *out)
{
    long i = mcp_host_server_find(h, name);
    memset(out, 0, sizeof *out);
    if (i < 0) return 0;
    return mcp_host_server_get(h, (size_t)i, out) == MCP_OK;
}

static int state_of(const mcp_host *h, const char *name)
{
    mcp_host_server s;
    return get(h, name, &s) ? (int)s.state : -1;
}

static const char *error_of(const mcp_host *h, const char *name, mcp_status *st)
{
    static char buf[600];
    mcp_host_server s;
    buf[0] = 0;
    if (st) *st = MCP_OK;
    if (get(h, name, &s) && s.error) {
        snprintf(buf, sizeof buf, "%s", s.error->message);
        if (st) *st = s.error->status;
    }
    return buf;
}

#define CHECK_STATE(h, name, want)                                                              \
    do {                                                                                        \
        int st_ = state_of((h), (name));                                                        \
        CHECKF(st_ == (int)(want), "server %s is %s, want %s (error: %s)", (name), sname(st_),  \
               sname((int)(want)), error_of((h), (name), NULL));                                \
    } while (0)

/* Polls the host until the server is in that state, or ms pass; 1 if it got there. */
static int poll_until_state(mcp_host *h, const char *name, mcp_server_state want, int ms)
{
    int64_t end = mcp_time_ms() + ms;
    while (state_of(h, name) != (int)want && mcp_time_ms() < end) mcp_host_poll(h, 20);
    return state_of(h, name) == (int)want;
}

static long server_pid(const mcp_host *h, const char *name)
{
    mcp_host_server s;
    return get(h, name, &s) && s.client ? mcp_client_pid(s.client) : 0;
}

/* Index of the tool with this qualified name in the host's list; -1: none. */
static long find_tool(const mcp_host *h, const char *qualified)
{
    size_t i, n = mcp_host_count(h, MCP_HOST_TOOLS);
    mcp_host_item it;
    for (i = 0; i < n; i++)
        if (mcp_host_item_get(h, MCP_HOST_TOOLS, i, &it) == MCP_OK && !strcmp(nn(it.qualified), qualified))
            return (long)i;
    return -1;
}

/* The qualified name the host gave (server, name); "" if none. */
static const char *qualified_of(const mcp_host *h, const char *server, const char *name, char *out, size_t n)
{
    size_t i, cnt = mcp_host_count(h, MCP_HOST_TOOLS);
    mcp_host_item it;
    out[0] = 0;
    for (i = 0; i < cnt; i++)
        if (mcp_host_item_get(h, MCP_HOST_TOOLS, i, &it) == MCP_OK && !strcmp(nn(it.server), server) &&
            !strcmp(nn(it.name), name)) {
            snprintf(out, n, "%s", nn(it.qualified));
            break;
        }
    return out;
}

/* Tools listed for one server. */
static size_t tools_of(const mcp_host *h, const char *server)
{
    size_t i, cnt = mcp_host_count(h, MCP_HOST_TOOLS), k = 0;
    mcp_host_item it;
    for (i = 0; i < cnt; i++)
        if (mcp_host_item_get(h, MCP_HOST_TOOLS, i, &it) == MCP_OK && !strcmp(nn(it.server), server)) k++;
    return k;
}

/* A blocking call; its first text into out ("(no text)" / "" on failure). */
static mcp_status call(mcp_host *h, const char *qualified, const char *args, char *out, size_t n, mcp_error *err)
{
    mcp_json_doc *d = NULL;
    mcp_status st = mcp_host_call_tool(h, qualified, args, &d, err);
    if (out && n) {
        const char *t = st == MCP_OK ? text_of(mcp_json_root(d)) : NULL;
        snprintf(out, n, "%s", t ? t : st == MCP_OK ? "(no text)" : "");
    }
    mcp_json_free(d);
    return st;
}

/* A call that succeeds with this first text; a macro, so that a failure names the case's line. */
#define CHECK_CALL(h, qualified, args, want)                                                    \
    do {                                                                                        \
        char out_[1024];                                                                        \
        mcp_error err_;                                                                         \
        mcp_status st_ = call((h), (qualified), (args), out_, sizeof out_, &err_);              \
        EQST(st_, MCP_OK, err_);                                                                \
        EQS(out_, (want));                                                                      \
    } while (0)

/* A name a model API takes: [A-Za-z0-9_-], 1 to 64 bytes. */
static int valid_name(const char *s)
{
    size_t i, n = s ? strlen(s) : 0;
    if (n == 0 || n > 64) return 0;
    for (i = 0; i < n; i++) {
        char c = s[i];
        if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' || c == '-'))
            return 0;
    }
    return 1;
}

/* Ends in '_' and 8 hex digits: a changed or shortened name, as >>host.lists says. */
static int hashed_suffix(const char *s)
{
    size_t n = s ? strlen(s) : 0, i;
    if (n < 9 || s[n - 9] != '_') return 0;
    for (i = n - 8; i < n; i++)
        if (!((s[i] >= '0' && s[i] <= '9') || (s[i] >= 'a' && s[i] <= 'f') || (s[i] >= 'A' && s[i] <= 'F'))) return 0;
    return 1;
}

/* Checks the tool list as >>host.lists promises it: sorted by qualified name (each once),
   valid names, item->name the server's own, every item from a known server. Returns the
   count. */
static size_t check_tool_list(const mcp_host *h, const char *what)
{
    size_t i, n = mcp_host_count(h, MCP_HOST_TOOLS), bad_order = 0, bad_name = 0, bad_item = 0;
    char prev[128] = "";
    mcp_host_item it;
    for (i = 0; i < n; i++) {
        mcp_status st = mcp_host_item_get(h, MCP_HOST_TOOLS, i, &it);
        if (st != MCP_OK) { CHECKF(0, "%s: mcp_host_item_get(%lu) failed", what, (unsigned long)i); continue; }
        if (i > 0 && strcmp(prev, nn(it.qualified)) >= 0) {
            if (bad_order++ < 3) fprintf(stderr, "  %s: \"%s\" listed after \"%s\"\n", what, nn(it.qualified), prev);
        }
        if (!valid_name(it.qualified)) {
            if (bad_name++ < 3) fprintf(stderr, "  %s: \"%s\" is not [A-Za-z0-9_-]{1,64}\n", what, nn(it.qualified));
        }
        if (!it.server || !it.name || !it.item || mcp_host_server_find(h, it.server) < 0 ||
            strcmp(nn(mcp_json_str(mcp_json_get(it.item, "name"))), nn(it.name))) {
            if (bad_item++ < 3) fprintf(stderr, "  %s: item %lu: server %s, name %s, item's name %s\n", what,
                                        (unsigned long)i, nn(it.server), nn(it.name),
                                        nn(mcp_json_str(mcp_json_get(it.item, "name"))));
        }
        snprintf(prev, sizeof prev, "%s", nn(it.qualified));
    }
    CHECKF(bad_order == 0, "%s: the tool list is sorted by qualified name, each once (%lu out of order)", what,
           (unsigned long)bad_order);
    CHECKF(bad_name == 0, "%s: every qualified name is [A-Za-z0-9_-], at most 64 bytes (%lu not)", what,
           (unsigned long)bad_name);
    CHECKF(bad_item == 0, "%s: every item names its server and its own name (%lu do not)", what,
           (unsigned long)bad_item);
    CHECKF(mcp_host_item_get(h, MCP_HOST_TOOLS, n, &it) != MCP_OK, "%s: mcp_host_item_get past the end fails", what);
    return n;
}

/* ---- a config in the mcpServers format ------------------------------------------------------- */

TEST_CASE(config_text)
{
    mcp_host_desc hd;
    rec r;
    mcp_host *h;
    mcp_host_server s;
    mcp_error err;
    mcp_status st;
    char text[4096], path[PATH_MAX];
    int n;
    FILE *f;
    guard_begin();
    desc_init(&hd, &r);
    if (!(h = host_new(&hd))) return;
    n = snprintf(text, sizeof text,
        "// the user's file: comments and trailing commas, as hosts write them\n"
        "{\n"
        "  \"mcpServers\": {\n"
        "    \"demo\": { \"command\": \"%s\" },\n"
        "    \"legacy\": { \"command\": \"%s\", \"args\": [\"--era=legacy\"],\n"
        "                \"env\": { \"HOST_TEST_VAR\": \"from-config\" } },\n"
        "    \"off\": { \"command\": \"%s\", \"disabled\": true },\n"
        "    \"bad\": { \"command\": 42 },\n"
        "  },\n"
        "}\n", have_demo ? demo_server : test_server, test_server, test_server);
    st = mcp_host_load_text(h, "user.json", text, (size_t)n, &err);
    EQST(st, MCP_OK, err);
    EQL(mcp_host_server_count(h), 4);
    CHECK(mcp_host_server_find(h, "demo") == 0 && mcp_host_server_find(h, "legacy") == 1);
    CHECK(mcp_host_server_find(h, "nobody") == -1);
    CHECK(get(h, "demo", &s) && s.state == MCP_SERVER_IDLE && s.transport == MCP_STDIO && !strcmp(nn(s.name), "demo"));
    EQS(s.file, "user.json");
    CHECK(get(h, "off", &s) && s.state == MCP_SERVER_DISABLED);
    CHECK(get(h, "bad", &s) && s.state == MCP_SERVER_DISABLED);
    CHECKF(s.error && contains(s.error->message, "bad") && contains(s.error->message, "user.json"),
           "a bad entry is disabled with a sentence naming the file and the server: %s",
           s.error ? s.error->message : "(no error)");
    CHECK(mcp_host_server_get(h, 4, &s) == MCP_ERR_INVALID);

    /* the project's file: a later server replaces the earlier one of the same name */
    n = snprintf(text, sizeof text,
        "{ \"mcpServers\": { \"legacy\": { \"command\": \"%s\", \"args\": [\"--era=legacy\"],"
        " \"env\": { \"HOST_TEST_VAR\": \"from-project\" } } } }", test_server);
    st = mcp_host_load_text(h, "project.json", text, (size_t)n, &err);
    EQST(st, MCP_OK, err);
    EQL(mcp_host_server_count(h), 4);
    CHECK(get(h, "legacy", &s));
    EQS(s.file, "project.json");

    /* VS Code's "servers", from a file on disk */
    snprintf(path, sizeof path, "%s/vscode.json", tmpdir);
    if ((f = fopen(path, "w")) != NULL) {
        fprintf(f, "{ \"servers\": { \"vs\": { \"type\": \"stdio\", \"command\": \"%s\", \"args\": [\"--era=modern\"] } } }\n",
                test_server);
        fclose(f);
    }
    st = mcp_host_load(h, path, &err);
    EQST(st, MCP_OK, err);
    EQL(mcp_host_server_count(h), 5);
    CHECK(get(h, "vs", &s) && s.state == MCP_SERVER_IDLE && s.transport == MCP_STDIO);
    EQS(s.file, path);
    unlink(path);

    /* not a config: the file, line and column */
    st = mcp_host_load_text(h, "broken.json", "{ \"mcpServers\": { ", 18, &err);
    CHECKF(st == MCP_ERR_PARSE && contains(err.message, "broken.json"), "status %s: %s", mcp_status_str(st), err.message);
    st = mcp_host_load_text(h, "other.json", "{ \"editor\": {} }", 16, &err);
    CHECKF(st == MCP_ERR_PARSE, "neither mcpServers nor servers: status %s: %s", mcp_status_str(st), err.message);
    st = mcp_host_load(h, "/nonexistent/mcp-host-test.json", &err);
    CHECKF(st != MCP_OK && contains(err.message, "/nonexistent/mcp-host-test.json"),
           "a missing file: status %s: %s", mcp_status_str(st), err.message);
    EQL(mcp_host_server_count(h), 5);

    st = mcp_host_connect(h, &err);
    EQST(st, MCP_OK, err);
    st = mcp_host_wait(h, LATE(10000));
    CHECKF(st == MCP_OK, "mcp_host_wait: %s", mcp_status_str(st));
    CHECK_STATE(h, "demo", MCP_SERVER_READY);
    CHECK_STATE(h, "legacy", MCP_SERVER_READY);
    CHECK_STATE(h, "vs", MCP_SERVER_READY);
    CHECK_STATE(h, "off", MCP_SERVER_DISABLED);
    CHECK_STATE(h, "bad", MCP_SERVER_DISABLED);
    CHECK(saw(&r, "off", MCP_SERVER_CONNECTING) == 0 && saw(&r, "bad", MCP_SERVER_CONNECTING) == 0);
    CHECK_CALL(h, "legacy__env", "{\"name\":\"HOST_TEST_VAR\"}", "from-project"); /* the env of the entry that replaced the first */
    CHECK_CALL(h, "vs__echo", "{\"v\":\"s\"}", "{\"v\":\"s\"}");
    check_tool_list(h, "config_text");
    mcp_host_free(h);
    guard_end("config_text");
}

/* Variables, every field, a config's own log, a server replaced by a later file while in use. */
static const char *cfg_var(void *user, const char *name)
{
    (void)user;
    return !strcmp(name, "workspaceFolder") ? "/tmp" : NULL;
}

static int cfg_logs;
static char cfg_log_last[600];

static void cfg_on_log(void *user, const char *message)
{
    (void)user;
    cfg_logs++;
    snprintf(cfg_log_last, sizeof cfg_log_last, "%s", nn(message));
}

TEST_CASE(config_more)
{
    mcp_host_desc hd;
    static rec r;
    mcp_host *h;
    mcp_host_server s;
    mcp_host_call *hc;
    mcp_json_doc *doc = NULL;
    mcp_error err;
    mcp_status st;
    char text[4096], out[512];
    int n, i, logs0;
    guard_begin();
    setenv("HOST_TEST_HOME", "/home/tester", 1);
    unsetenv("HOST_TEST_UNSET");
    desc_init(&hd, &r);
    hd.config.variable = cfg_var;
    if (!(h = host_new(&hd))) return;
    n = snprintf(text, sizeof text,
        "{ \"mcpServers\": {\n"
        "  \"vars\": { \"command\": \"%s\", \"cwd\": \"${workspaceFolder}\", \"timeout\": 7000,\n"
        "            \"env\": { \"A\": \"${HOST_TEST_HOME}/x\", \"B\": \"${HOST_TEST_UNSET:-fallback}\",\n"
        "                     \"C\": \"${env:HOST_TEST_HOME}\", \"D\": \"${HOST_TEST_UNSET}\" },\n"
        "            \"alwaysAllow\": [\"echo\"] },\n"
        "  \"off2\": { \"command\": \"%s\", \"enabled\": false },\n"
        "  \"web\": { \"url\": \"http://127.0.0.1:9/mcp\", \"headers\": { \"X-Key\": \"k\" }, \"disabled\": true },\n"
        "  \"old\": { \"type\": \"sse\", \"url\": \"http://127.0.0.1:9/sse\", \"disabled\": true },\n"
        "  \"badargs\": { \"command\": \"%s\", \"args\": \"--era=legacy\" }\n"
        "} }\n", test_server, test_server, test_server);
    st = mcp_host_load_text(h, "mcp.json", text, (size_t)n, &err);
    EQST(st, MCP_OK, err);
    EQL(mcp_host_server_count(h), 5);
    CHECK(get(h, "off2", &s) && s.state == MCP_SERVER_DISABLED && !s.error);
    CHECK(get(h, "web", &s) && s.state == MCP_SERVER_DISABLED && s.transport == MCP_HTTP);
    CHECK(get(h, "old", &s) && s.state == MCP_SERVER_DISABLED && s.transport == MCP_SSE);
    CHECK(get(h, "badargs", &s) && s.state == MCP_SERVER_DISABLED && s.error);
    CHECKF(s.error && starts_with(s.error->message, "mcp.json:9:") && contains(s.error->message, "badargs") &&
           contains(s.error->message, "args"), "a bad entry's sentence has the place: %s",
           s.error ? s.error->message : "(none)");
    for (i = 0, n = 0; i < r.logs && i < 32; i++) {
        if (contains(r.log[i], "alwaysAllow")) n++;
        if (contains(r.log[i], "HOST_TEST_UNSET") && !contains(r.log[i], "fallback")) n += 10;
    }
    CHECKF(n == 11, "on_log (server NULL) named the unknown field once and the unset variable (%d; %d lines)", n, r.logs);
    mcp_host_connect(h, &err);
    CHECK(mcp_host_wait(h, LATE(10000)) == MCP_OK);
    CHECK_STATE(h, "vars", MCP_SERVER_READY);
    CHECK_CALL(h, "vars__cwd", NULL, "/tmp");      /* ${workspaceFolder} through the program */
    call(h, "vars__env", "{\"name\":\"A\"}", out, sizeof out, &err);
    EQS(out, "/home/tester/x");
    call(h, "vars__env", "{\"name\":\"B\"}", out, sizeof out, &err);
    EQS(out, "fallback");
    call(h, "vars__env", "{\"name\":\"C\"}", out, sizeof out, &err);
    EQS(out, "/home/tester");
    call(h, "vars__env", "{\"name\":\"D\"}", out, sizeof out, &err);
    EQS(out, "${HOST_TEST_UNSET}");                /* unset: left as written */
    st = call(h, "off2__echo", "{}", out, sizeof out, &err);
    CHECK(st != MCP_OK);

    /* the project's file replaces "vars" while a call to it is in flight */
    hc = mcp_host_send_tool(h, "vars__slow", "{\"ms\":5000}", NULL, &err);
    for (i = 0; i < 3; i++) mcp_host_poll(h, 10);
    n = snprintf(text, sizeof text, "{ \"mcpServers\": { \"vars\": { \"command\": \"%s\", \"args\": [\"--era=modern\"] } } }",
                 test_server);
    st = mcp_host_load_text(h, "project.json", text, (size_t)n, &err);
    EQST(st, MCP_OK, err);
    if (hc) {
        mcp_host_call_wait(hc, LATE(3000));
        st = mcp_host_call_result(hc, &doc, &err);
        CHECKF(st != MCP_OK && st != MCP_AGAIN, "the call to the replaced server failed: %s %s", mcp_status_str(st),
               err.message);
        mcp_json_free(doc);
        doc = NULL;
        mcp_host_call_free(hc);
    }
    mcp_host_connect(h, &err);
    CHECK(poll_until_state(h, "vars", MCP_SERVER_READY, LATE(5000)));
    CHECK(get(h, "vars", &s) && s.client && !strcmp(nn(mcp_client_protocol_version(s.client)), "2026-07-28"));
    EQS(s.file, "project.json");
    mcp_host_free(h);

    /* desc.config.on_log: "variables and logging for mcp_host_load" */
    desc_init(&hd, &r);
    hd.on_log = NULL;
    hd.config.on_log = cfg_on_log;
    hd.config.no_env = 1;
    cfg_logs = 0;
    if ((h = host_new(&hd)) != NULL) {
        logs0 = cfg_logs;
        n = snprintf(text, sizeof text, "{ \"mcpServers\": { \"x\": { \"command\": \"%s\", \"env\": "
                     "{ \"H\": \"${HOST_TEST_HOME}\" }, \"autoApprove\": [] } } }", test_server);
        st = mcp_host_load_text(h, "cfg.json", text, (size_t)n, &err);
        EQST(st, MCP_OK, err);
        /* desc.config.on_log hears the reader too, beside the host's on_log */
        CHECKF(cfg_logs > logs0, "desc.config.on_log told of the unknown field (%d lines; last: %s)", cfg_logs - logs0,
               cfg_log_last);
        mcp_host_connect(h, &err);
        CHECK(mcp_host_wait(h, LATE(10000)) == MCP_OK);
        call(h, "x__env", "{\"name\":\"H\"}", out, sizeof out, &err);
        EQS(out, "${HOST_TEST_HOME}");             /* no_env: the environment is not read */
        mcp_host_free(h);
    }
    unsetenv("HOST_TEST_HOME");
    guard_end("config_more");
}

/* ---- one host, many servers ------------------------------------------------------------------ */

TEST_CASE(many_servers)
{
    static const char *const missing_args[] = { "--flag", NULL };
    const char *const names[] = { "demo", "legacy", "modern", "slow", "http" };
    mcp_host_desc hd;
    static rec r;
    mcp_host *h;
    mcp_host_server s;
    mcp_error err;
    mcp_status st, est;
    srv hs;
    char dead_url[128], out[1024];
    const char *msg;
    size_t total, sum = 0, i;
    int64_t t0;
    int k, ready_tools_ok = 1, http_up = 0, idx;
    mcp_json_doc *doc = NULL;
    long pl, pm;

    int fails0 = t_fail;
    guard_begin();
    memset(&hs, 0, sizeof hs);
    if (have_http) http_up = srv_start(&hs, NULL);
    snprintf(dead_url, sizeof dead_url, "http://127.0.0.1:%d/mcp", free_port());
    desc_init(&hd, &r);
    hd.retry_min_ms = 50;
    hd.retry_max_ms = 1000;
    hd.retry_limit = 3;
    hd.retry_window_ms = 60000;
    if (!(h = host_new(&hd))) { srv_stop(&hs); return; }
    if (have_demo) add_cmd(h, "demo", demo_server, NULL);
    add_ts(h, "legacy", "--era=legacy", NULL, NULL);
    add_ts(h, "modern", "--era=modern", NULL, NULL);
    add_cmd(h, "missing", "/nonexistent/mcp-host-test-no-such-server", missing_args);
    add_ts(h, "dies", "--exit-on-initialize", NULL, NULL);
    add_ts(h, "slow", "--startup-delay=700", NULL, NULL);
    if (http_up) add_url(h, "http", MCP_HTTP, hs.url);
    add_url(h, "deadhttp", MCP_HTTP, dead_url);
    CHECK_STATE(h, "legacy", MCP_SERVER_IDLE);

    t0 = mcp_time_ms();
    st = mcp_host_connect(h, &err);
    EQST(st, MCP_OK, err);
    CHECKF(mcp_time_ms() - t0 < LATE(300), "mcp_host_connect does not block: %lld ms",
           (long long)(mcp_time_ms() - t0));
    CHECK_STATE(h, "slow", MCP_SERVER_CONNECTING);
    CHECK(saw(&r, "slow", MCP_SERVER_CONNECTING) == 1);
    st = mcp_host_wait(h, LATE(15000));
    CHECKF(st == MCP_OK, "mcp_host_wait: %s after %lld ms", mcp_status_str(st), (long long)(mcp_time_ms() - t0));
    CHECKF(mcp_time_ms() - t0 >= 600, "the wait lasted until the slow server was up: %lld ms",
           (long long)(mcp_time_ms() - t0));
    CHECKF(mcp_time_ms() - t0 < LATE(5000), "in parallel: every server up in %lld ms",
           (long long)(mcp_time_ms() - t0));
    for (i = 0; i < sizeof names / sizeof names[0]; i++) {
        if ((!have_demo && i == 0) || (!http_up && i == 4)) continue;
        CHECK_STATE(h, names[i], MCP_SERVER_READY);
        CHECKF(saw_at(&r, names[i], MCP_SERVER_CONNECTING, 0) >= 0 &&
               saw_at(&r, names[i], MCP_SERVER_READY, saw_at(&r, names[i], MCP_SERVER_CONNECTING, 0)) >= 0,
               "on_state: %s CONNECTING, then READY", names[i]);
        CHECKF(changes_of(&r, names[i]) >= 1, "on_change for %s once its tools were listed", names[i]);
        if (get(h, names[i], &s)) {
            sum += s.tools;
            if (s.tools == 0 || s.tools != tools_of(h, names[i]) || s.cached || !s.client) ready_tools_ok = 0;
        }
    }
    CHECKF(ready_tools_ok, "each ready server: tools counted and listed, not cached, a client");
    CHECK(get(h, "modern", &s) && s.client && !strcmp(nn(mcp_client_protocol_version(s.client)), "2026-07-28"));
    CHECK(get(h, "legacy", &s) && s.client && strcmp(nn(mcp_client_protocol_version(s.client)), "2026-07-28") != 0);
    CHECK(get(h, "http", &s) || !http_up);
    if (http_up) CHECK(s.transport == MCP_HTTP);

    /* the command that does not exist */
    CHECK_STATE(h, "missing", MCP_SERVER_FAILED);
    msg = error_of(h, "missing", &est);
    CHECKF(est == MCP_ERR_IO && contains(msg, "/nonexistent/mcp-host-test-no-such-server"),
           "missing: MCP_ERR_IO and a sentence naming the command: %s %s", mcp_status_str(est), msg);
    idx = saw_at(&r, "missing", MCP_SERVER_FAILED, 0);
    CHECKF(idx >= 0 && r.ev[idx].has_why && r.ev[idx].why_status == MCP_ERR_IO,
           "on_state(missing, FAILED) with why MCP_ERR_IO (%s)", idx >= 0 ? r.ev[idx].why : "no such call");
    /* the server that exits during initialize */
    CHECK_STATE(h, "dies", MCP_SERVER_FAILED);
    msg = error_of(h, "dies", &est);
    CHECKF(est == MCP_ERR_CLOSED && contains(msg, "exit-on-initialize: exiting with status 3"),
           "dies: MCP_ERR_CLOSED with its stderr quoted: %s %s", mcp_status_str(est), msg);
    idx = saw_at(&r, "dies", MCP_SERVER_FAILED, 0);
    CHECKF(idx >= 0 && r.ev[idx].has_why && r.ev[idx].why_status == MCP_ERR_CLOSED,
           "on_state(dies, FAILED) with why MCP_ERR_CLOSED (%s)", idx >= 0 ? r.ev[idx].why : "no such call");
    for (k = 0, idx = 0; k < r.nerr && k < 64; k++)
        if (!strcmp(r.errsrv[k], "dies") && contains(r.errline[k], "exit-on-initialize")) idx = 1;
    CHECKF(idx, "on_stderr gave the dying server's line, with its name");
    CHECK(get(h, "dies", &s) && s.tools == 0 && tools_of(h, "dies") == 0);
    /* the HTTP URL nobody answers: retrying (the wait does not wait for it) */
    k = state_of(h, "deadhttp");
    CHECKF(k == MCP_SERVER_RETRYING || k == MCP_SERVER_FAILED, "deadhttp is RETRYING (or FAILED), not %s", sname(k));

    /* the union of the tools, sorted, under qualified names */
    total = check_tool_list(h, "many_servers");
    CHECKF(total == sum, "the list is the union: %lu tools, the ready servers offer %lu", (unsigned long)total,
           (unsigned long)sum);
    if (have_demo) CHECK(find_tool(h, "demo__echo") >= 0 && find_tool(h, "demo__add") >= 0);
    CHECK(find_tool(h, "legacy__pid") >= 0 && find_tool(h, "modern__pid") >= 0 && find_tool(h, "slow__echo") >= 0);
    if (http_up) CHECK(find_tool(h, "http__echo") >= 0 && find_tool(h, "http__stats") >= 0);  /* both pages */
    CHECK(find_tool(h, "legacy__history") >= 0);                /* the test server's second page */
    CHECK(tools_of(h, "legacy") == 26 && tools_of(h, "modern") == 26);
    {
        mcp_host_item it;
        size_t cnt = mcp_host_count(h, MCP_HOST_TOOLS), bad = 0;
        char want[200];
        for (i = 0; i < cnt; i++)
            if (mcp_host_item_get(h, MCP_HOST_TOOLS, i, &it) == MCP_OK) {
                snprintf(want, sizeof want, "%s__%s", nn(it.server), nn(it.name));
                if (strcmp(want, nn(it.qualified))) bad++;
            }
        CHECKF(bad == 0, "plain names are qualified as server__tool (%lu are not)", (unsigned long)bad);
    }
    st = mcp_host_list(h, MCP_HOST_TOOLS, &doc, &err);
    EQST(st, MCP_OK, err);
    if (st == MCP_OK) {
        const mcp_json *arr = mcp_json_get(mcp_json_root(doc), "tools");
        mcp_host_item it;
        CHECKF(mcp_json_len(arr) == total, "mcp_host_list: %lu tools, %lu listed", (unsigned long)mcp_json_len(arr),
               (unsigned long)total);
        if (mcp_host_item_get(h, MCP_HOST_TOOLS, 0, &it) == MCP_OK)
            EQS(mcp_json_str(mcp_json_get(mcp_json_at(arr, 0), "name")), nn(it.qualified));
        CHECK(mcp_json_get(mcp_json_at(arr, 0), "inputSchema") != NULL);
        mcp_json_free(doc);
    }
    CHECK(mcp_host_count(h, MCP_HOST_PROMPTS) > 0);
    CHECK(mcp_host_count(h, MCP_HOST_RESOURCES) > 0);

    /* calls routed to the right server */
    pl = server_pid(h, "legacy");
    pm = server_pid(h, "modern");
    CHECK(pl > 0 && pm > 0 && pl != pm);
    st = call(h, "legacy__pid", NULL, out, sizeof out, &err);
    EQST(st, MCP_OK, err);
    CHECKF(atol(out) == pl, "legacy__pid ran in the legacy server (%s, its pid %ld)", out, pl);
    st = call(h, "modern__pid", NULL, out, sizeof out, &err);
    EQST(st, MCP_OK, err);
    CHECKF(atol(out) == pm, "modern__pid ran in the modern server (%s, its pid %ld)", out, pm);
    CHECK_CALL(h, "slow__add", "{\"a\":2,\"b\":40}", "42");
    if (have_demo) {
        CHECK_CALL(h, "demo__echo", "{\"text\":\"hello host\"}", "hello host");
    }
    if (http_up) {
        st = call(h, "http__echo", "{\"via\":\"http\"}", out, sizeof out, &err);
        EQST(st, MCP_OK, err);
        CHECKF(contains(out, "\"via\":\"http\""), "http__echo: %s", out);
    }
    st = call(h, "nosuch__tool", "{}", out, sizeof out, &err);
    CHECKF(st != MCP_OK, "a qualified name nobody has fails: %s", err.message);
    st = call(h, "legacy__nosuch", "{}", out, sizeof out, &err);
    CHECKF(st != MCP_OK, "a tool the server does not list fails: %s", err.message);
    st = call(h, "legacy__fail", "{}", out, sizeof out, &err);
    EQST(st, MCP_OK, err);                    /* isError is a result, not a failure */

    if (http_up) CHECKF(stat_of(&hs, "exec_tools_call") == 1, "the HTTP server ran the one call routed to it");

    /* deadhttp: the breaker opens after retry_limit attempts (timings: http_backoff) */
    for (t0 = mcp_time_ms(); mcp_time_ms() - t0 < LATE(8000) && state_of(h, "deadhttp") != MCP_SERVER_FAILED;)
        mcp_host_poll(h, 20);
    CHECK_STATE(h, "deadhttp", MCP_SERVER_FAILED);
    CHECKF(saw(&r, "deadhttp", MCP_SERVER_RETRYING) >= 1, "on_state(deadhttp, RETRYING) %d times",
           saw(&r, "deadhttp", MCP_SERVER_RETRYING));
    CHECK(get(h, "deadhttp", &s));
    CHECKF(s.attempts >= 2 && s.attempts <= hd.retry_limit + 1, "deadhttp: %d attempts (retry_limit %d)",
           s.attempts, hd.retry_limit);
    CHECKF(s.error && s.error->status == MCP_ERR_IO, "deadhttp: FAILED with MCP_ERR_IO: %s",
           s.error ? s.error->message : "(none)");
    if (t_fail > fails0) print_events(&r);
    mcp_host_free(h);
    srv_stop(&hs);
    guard_end("many_servers");
}

/* ---- an HTTP server nobody answers: backoff, then the breaker ------------------------------------ */

TEST_CASE(http_backoff)
{
    mcp_host_desc hd;
    static rec r;
    mcp_host *h;
    mcp_host_server s;
    mcp_error err;
    char url[128];
    int64_t t0, gaps[16], samples[16];
    int ngaps = 0, nsamples = 0, i, grows = 1, before;
    int fails0 = t_fail;
    guard_begin();
    snprintf(url, sizeof url, "http://127.0.0.1:%d/mcp", free_port());
    desc_init(&hd, &r);
    hd.retry_min_ms = 100;
    hd.retry_max_ms = 2000;
    hd.retry_limit = 4;
    hd.retry_window_ms = 60000;
    if (!(h = host_new(&hd))) return;
    add_url(h, "nobody", MCP_HTTP, url);
    add_ts(h, "fine", NULL, NULL, NULL);
    t0 = mcp_time_ms();
    CHECK(mcp_host_connect(h, &err) == MCP_OK);
    while (mcp_time_ms() - t0 < LATE(10000) && state_of(h, "nobody") != MCP_SERVER_FAILED) {
        if (get(h, "nobody", &s) && s.state == MCP_SERVER_RETRYING && nsamples < 16 &&
            (nsamples == 0 || samples[nsamples - 1] != s.retry_at)) {
            int64_t now = mcp_time_ms();
            CHECKF(s.retry_at > now - 20 && s.retry_at <= now + LATE(2500),
                   "nobody: retry_at %lld ms from now (retry_max_ms 2000)", (long long)(s.retry_at - now));
            CHECKF(s.error && s.error->status == MCP_ERR_IO, "nobody: retrying after MCP_ERR_IO (%s)",
                   s.error ? s.error->message : "no error");
            samples[nsamples++] = s.retry_at;
        }
        mcp_host_poll(h, 5);
    }
    CHECK_STATE(h, "nobody", MCP_SERVER_FAILED);
    CHECK_STATE(h, "fine", MCP_SERVER_READY);
    /* the delays, from each RETRYING on_state to the retry_at it announced */
    for (i = 0; i < r.nev && ngaps < 16; i++)
        if (!strcmp(r.ev[i].server, "nobody") && r.ev[i].state == MCP_SERVER_RETRYING) {
            gaps[ngaps++] = r.ev[i].retry_at - r.ev[i].at;
            CHECKF(r.ev[i].has_why && r.ev[i].why_status == MCP_ERR_IO, "on_state(RETRYING) with why: %s", r.ev[i].why);
        }
    CHECKF(ngaps == 3, "%d RETRYING before FAILED (retry_limit 4: four attempts, three waits between)", ngaps);
    CHECKF(nsamples == ngaps, "mcp_host_server_get showed %d retry_at values, on_state %d", nsamples, ngaps);
    for (i = 1; i < ngaps; i++) if (gaps[i] <= gaps[i - 1]) grows = 0;
    CHECKF(ngaps >= 2 && grows, "the delays grow: %lld, %lld, %lld ms (retry_min_ms 100)", (long long)(ngaps > 0 ? gaps[0] : -1),
           (long long)(ngaps > 1 ? gaps[1] : -1), (long long)(ngaps > 2 ? gaps[2] : -1));
    CHECKF(ngaps > 0 && gaps[0] >= 50 && gaps[0] <= 250, "the first delay is about retry_min_ms: %lld ms",
           (long long)(ngaps > 0 ? gaps[0] : -1));
    CHECK(get(h, "nobody", &s));
    CHECKF(s.attempts == 4, "nobody: %d attempts (retry_limit 4)", s.attempts);
    CHECKF(s.error && s.error->status == MCP_ERR_IO && contains(s.error->message, "127.0.0.1"),
           "FAILED with MCP_ERR_IO, a sentence naming where: %s", s.error ? s.error->message : "(none)");
    i = saw_at(&r, "nobody", MCP_SERVER_FAILED, 0);
    CHECKF(i >= 0 && r.ev[i].has_why && r.ev[i].why_status == MCP_ERR_IO, "on_state(nobody, FAILED) with why");
    /* failed: no timer runs for it any more */
    before = s.attempts;
    for (t0 = mcp_time_ms(); mcp_time_ms() - t0 < 400;) mcp_host_poll(h, 50);
    CHECK(get(h, "nobody", &s) && s.state == MCP_SERVER_FAILED && s.attempts == before);
    CHECK(saw(&r, "nobody", MCP_SERVER_RETRYING) == 3);
    /* retry: at once, the breaker reset */
    CHECK(mcp_host_retry(h, "nobody", &err) == MCP_OK);
    mcp_host_poll(h, 0);
    CHECK(get(h, "nobody", &s) && s.state != MCP_SERVER_FAILED && s.attempts <= 1);
    CHECKF(poll_until_state(h, "nobody", MCP_SERVER_RETRYING, LATE(2000)), "retried, and retrying again: %s",
           sname(state_of(h, "nobody")));
    CHECK(get(h, "nobody", &s) && s.retry_at - mcp_time_ms() <= 250);   /* from retry_min_ms again */
    if (t_fail > fails0) print_events(&r);
    mcp_host_free(h);
    guard_end("http_backoff");
}

/* ---- odd names, long names, stable names -------------------------------------------------------- */

#define LONG_TOOL "a_tool_with_a_name_that_is_much_too_long_for_any_model_api_to_take_as_is_really"
#define LONG_SERVER "a_server_whose_name_alone_is_sixty_bytes_long_so_none_fit_xy"

static mcp_host *odd_host(rec *r)
{
    static const char *const odd_args[] = { "--tool-names=weird name!,dotted.name,caf\xc3\xa9,"
                                            LONG_TOOL ",dash-ok,dot_ted,dot.ted", NULL };
    mcp_host_desc hd;
    mcp_host *h;
    desc_init(&hd, r);
    if (!(h = host_new(&hd))) return NULL;
    add_cmd(h, "odd", test_server, odd_args);
    add_ts(h, LONG_SERVER, NULL, NULL, NULL);
    add_ts(h, "we.ird srv", NULL, NULL, NULL);
    return h;
}

static size_t my_qualify(void *user, const char *server, const char *name, char *out, size_t cap)
{
    int n;
    (void)user;
    if (strcmp(server, "mine")) return 0;           /* the default rule for the others */
    n = snprintf(out, cap, "m-%s", name);
    return n > 0 && (size_t)n < cap ? (size_t)n : 0;
}

TEST_CASE(names)
{
    /* the names the rule gives (>>host.lists): other bytes become '_'; too long, or mapped onto
       another name ("dot.ted" onto "dot_ted"): cut, '_' and 8 hex digits (NULL here) */
    const char *const odd[] = { "weird name!", "dotted.name", "caf\xc3\xa9", LONG_TOOL, "dash-ok", "echo", "dot_ted",
                                "dot.ted" };
    const char *const mapped[] = { "odd__weird_name_", "odd__dotted_name", "odd__caf__", NULL, "odd__dash-ok", "odd__echo",
                                   "odd__dot_ted", NULL };
    static rec r1, r2;
    mcp_host *h1, *h2;
    mcp_host_desc hd;
    mcp_error err;
    mcp_status st;
    char q1[128], q2[128], out[512], want[600];
    size_t i, n, hashed = 0;
    guard_begin();
    h1 = odd_host(&r1);
    h2 = odd_host(&r2);
    if (!h1 || !h2) { mcp_host_free(h1); mcp_host_free(h2); guard_end("names"); return; }
    CHECK(mcp_host_connect(h1, &err) == MCP_OK && mcp_host_connect(h2, &err) == MCP_OK);
    CHECK(mcp_host_wait(h1, LATE(10000)) == MCP_OK && mcp_host_wait(h2, LATE(10000)) == MCP_OK);
    CHECK_STATE(h1, "odd", MCP_SERVER_READY);
    CHECK_STATE(h1, LONG_SERVER, MCP_SERVER_READY);
    CHECK_STATE(h1, "we.ird srv", MCP_SERVER_READY);
    n = check_tool_list(h1, "names");
    CHECKF(n == 33 + 26 + 26, "%lu tools (33 + 26 + 26)", (unsigned long)n);
    for (i = 0; i < sizeof odd / sizeof odd[0]; i++) {
        qualified_of(h1, "odd", odd[i], q1, sizeof q1);
        qualified_of(h2, "odd", odd[i], q2, sizeof q2);
        CHECKF(*q1 && !strcmp(q1, q2), "odd/%s: the same name in two hosts (\"%s\", \"%s\")", odd[i], q1, q2);
        CHECKF(valid_name(q1), "odd/%s: \"%s\" is a valid name", odd[i], q1);
        if (mapped[i]) CHECKF(!strcmp(q1, mapped[i]), "odd/%s: \"%s\", want \"%s\"", odd[i], q1, mapped[i]);
        else CHECKF(hashed_suffix(q1) && starts_with(q1, "odd__") && strlen(q1) <= 64,
                    "odd/%s: too long or taken, so \"%s\" is cut and ends in _ and 8 hex digits", odd[i], q1);
        snprintf(want, sizeof want, "%s: {\"i\":%lu}", odd[i], (unsigned long)i);
        if (strcmp(odd[i], "echo")) {
            char args[32];
            snprintf(args, sizeof args, "{\"i\":%lu}", (unsigned long)i);
            st = call(h1, q1, args, out, sizeof out, &err);
            EQST(st, MCP_OK, err);
            CHECKF(!strcmp(out, want), "%s routed to odd's \"%s\": %s", q1, odd[i], out);
        }
    }
    qualified_of(h1, "odd", "dot.ted", q1, sizeof q1);  /* "dot.ted" would be "dot_ted" without the hash */
    qualified_of(h1, "odd", "dot_ted", q2, sizeof q2);
    CHECKF(*q1 && *q2 && strcmp(q1, q2) != 0, "dot.ted and dot_ted: two names (\"%s\", \"%s\")", q1, q2);
    /* a server whose name makes every qualified name too long: each shortened, each distinct */
    for (i = 0, n = mcp_host_count(h1, MCP_HOST_TOOLS); i < n; i++) {
        mcp_host_item it, jt;
        if (mcp_host_item_get(h1, MCP_HOST_TOOLS, i, &it) != MCP_OK || strcmp(nn(it.server), LONG_SERVER)) continue;
        if (hashed_suffix(it.qualified)) hashed++;
        qualified_of(h2, LONG_SERVER, nn(it.name), q2, sizeof q2);
        CHECKF(!strcmp(nn(it.qualified), q2), "%s/%s: the same in two hosts (\"%s\", \"%s\")", LONG_SERVER,
               nn(it.name), nn(it.qualified), q2);
        if (i + 1 < n && mcp_host_item_get(h1, MCP_HOST_TOOLS, i + 1, &jt) == MCP_OK)
            CHECK(strcmp(nn(it.qualified), nn(jt.qualified)) != 0);
    }
    CHECKF(hashed == 26, "the long server's qualified names (all past 64 bytes) are shortened with the hash (%lu of 26)",
           (unsigned long)hashed);
    qualified_of(h1, LONG_SERVER, "pid", q1, sizeof q1);           /* 60 + 2 + 3 = 65 bytes */
    CHECKF(strlen(q1) <= 64 && hashed_suffix(q1), "%s", q1);
    qualified_of(h1, LONG_SERVER, "pid", q1, sizeof q1);
    st = call(h1, q1, NULL, out, sizeof out, &err);
    EQST(st, MCP_OK, err);
    CHECKF(atol(out) == server_pid(h1, LONG_SERVER), "%s ran in its server: %s", q1, out);
    /* a server name with odd bytes */
    qualified_of(h1, "we.ird srv", "echo", q1, sizeof q1);
    EQS(q1, "we_ird_srv__echo");
    CHECK_CALL(h1, q1, "{\"w\":1}", "{\"w\":1}");
    mcp_host_free(h1);
    mcp_host_free(h2);

    /* the program's own rule, and another separator */
    desc_init(&hd, &r1);
    hd.qualify = my_qualify;
    hd.separator = "-";
    if ((h1 = host_new(&hd)) != NULL) {
        add_ts(h1, "mine", NULL, NULL, NULL);
        add_ts(h1, "theirs", NULL, NULL, NULL);
        mcp_host_connect(h1, &err);
        CHECK(mcp_host_wait(h1, LATE(10000)) == MCP_OK);
        check_tool_list(h1, "qualify");
        CHECK(find_tool(h1, "m-echo") >= 0);
        CHECK(find_tool(h1, "theirs-echo") >= 0);
        CHECK(find_tool(h1, "theirs__echo") < 0);
        CHECK_CALL(h1, "m-echo", "{\"m\":1}", "{\"m\":1}");
        mcp_host_free(h1);
    }
    guard_end("names");
}

/* ---- a call to a server still connecting -------------------------------------------------------- */

TEST_CASE(call_while_connecting)
{
    mcp_host_desc hd;
    static rec r;
    mcp_host *h;
    mcp_host_call *hc;
    mcp_json_doc *doc = NULL;
    mcp_error err;
    mcp_status st;
    int64_t t0;
    guard_begin();
    desc_init(&hd, &r);
    if (!(h = host_new(&hd))) return;
    add_ts(h, "slow", "--startup-delay=600", NULL, NULL);
    /* slow2 takes longer, so it is still connecting once the blocking call to slow is done (the
       same delay let it finish first under load) */
    add_ts(h, "slow2", "--startup-delay=2500", "--era=modern", NULL);
    t0 = mcp_time_ms();
    CHECK(mcp_host_connect(h, &err) == MCP_OK);
    CHECK_STATE(h, "slow", MCP_SERVER_CONNECTING);
    /* a server still connecting, nothing cached: the name's prefix routes it, and it waits */
    CHECK_CALL(h, "slow__echo", "{\"early\":true}", "{\"early\":true}");
    CHECKF(mcp_time_ms() - t0 >= 500, "the call waited for the server: %lld ms", (long long)(mcp_time_ms() - t0));
    CHECK(poll_until_state(h, "slow", MCP_SERVER_READY, LATE(5000)));
    /* the same without blocking: the call waits in the host, MCP_AGAIN meanwhile */
    CHECK_STATE(h, "slow2", MCP_SERVER_CONNECTING);
    hc = mcp_host_send_tool(h, "slow2__add", "{\"a\":1,\"b\":2}", NULL, &err);
    CHECKF(hc != NULL, "mcp_host_send_tool to a connecting server: %s", err.message);
    if (hc) {
        if (state_of(h, "slow2") == MCP_SERVER_CONNECTING) CHECK(mcp_host_call_status(hc) == MCP_AGAIN);
        st = mcp_host_call_wait(hc, LATE(10000));
        EQST(st, MCP_OK, err);
        st = mcp_host_call_result(hc, &doc, &err);
        EQST(st, MCP_OK, err);
        EQS(text_of(mcp_json_root(doc)), "3");
        mcp_json_free(doc);
        doc = NULL;
        mcp_host_call_free(hc);
    }
    CHECK(poll_until_state(h, "slow2", MCP_SERVER_READY, LATE(5000)));
    mcp_host_free(h);

    /* by the server's name (mcp_host_send): no tool list needed */
    desc_init(&hd, &r);
    if (!(h = host_new(&hd))) return;
    add_ts(h, "slow3", "--startup-delay=600", NULL, NULL);
    t0 = mcp_time_ms();
    CHECK(mcp_host_connect(h, &err) == MCP_OK);
    CHECK_STATE(h, "slow3", MCP_SERVER_CONNECTING);
    hc = mcp_host_send(h, "slow3", "tools/call", "{\"name\":\"echo\",\"arguments\":{\"n\":3}}", NULL, &err);
    CHECKF(hc != NULL, "mcp_host_send to a connecting server: %s", err.message);
    if (hc) {
        CHECK(mcp_host_call_status(hc) == MCP_AGAIN);
        st = mcp_host_call_wait(hc, LATE(10000));
        EQST(st, MCP_OK, err);
        st = mcp_host_call_result(hc, &doc, &err);
        EQST(st, MCP_OK, err);
        EQS(text_of(mcp_json_root(doc)), "{\"n\":3}");
        CHECKF(mcp_time_ms() - t0 >= 500, "it waited for the server: %lld ms", (long long)(mcp_time_ms() - t0));
        mcp_json_free(doc);
        mcp_host_call_free(hc);
    }
    mcp_host_free(h);
    guard_end("call_while_connecting");
}

/* ---- a stdio server killed: the call in flight fails, the next call restarts it ---------------- */

/* Kills the server's process with SIGKILL and polls until the host saw it end (state FAILED). */
static int kill_server(mcp_host *h, const char *name, long *pid_out)
{
    long pid = server_pid(h, name);
    *pid_out = pid;
    CHECKF(pid > 0, "%s has a pid (%ld)", name, pid);
    if (pid <= 0) return 0;
    kill((pid_t)pid, SIGKILL);
    return poll_until_state(h, name, MCP_SERVER_FAILED, LATE(5000));
}

TEST_CASE(kill_restart)
{
    mcp_host_desc hd;
    static rec r;
    mcp_host *h;
    mcp_host_call *hc;
    mcp_json_doc *doc = NULL;
    mcp_error err;
    mcp_status st;
    char out[256];
    long pid1, pid2 = 0, pid3 = 0, dead;
    int i, st_wait;
    int fails0 = t_fail;
    guard_begin();
    desc_init(&hd, &r);
    hd.restarts_per_minute = 2;
    if (!(h = host_new(&hd))) return;
    add_ts(h, "victim", NULL, NULL, NULL);
    add_ts(h, "bystander", NULL, NULL, NULL);
    mcp_host_connect(h, &err);
    CHECK(mcp_host_wait(h, LATE(10000)) == MCP_OK);
    CHECK_STATE(h, "victim", MCP_SERVER_READY);
    pid1 = server_pid(h, "victim");
    CHECK(pid1 > 0);

    /* a call in flight when the process dies */
    hc = mcp_host_send_tool(h, "victim__slow", "{\"ms\":20000}", NULL, &err);
    CHECKF(hc != NULL, "send: %s", err.message);
    for (i = 0; i < 5; i++) mcp_host_poll(h, 20);            /* the request is out */
    if (hc) CHECK(mcp_host_call_status(hc) == MCP_AGAIN);
    kill((pid_t)pid1, SIGKILL);
    if (hc) {
        st = mcp_host_call_wait(hc, LATE(5000));
        CHECKF(st != MCP_OK && st != MCP_AGAIN && st != MCP_ERR_TIMEOUT, "the call in flight failed: %s",
               mcp_status_str(st));
        st = mcp_host_call_result(hc, &doc, &err);
        CHECKF(st != MCP_OK && starts_with(err.message, "Server \"victim\": "),
               "its sentence names the server: %s %s", mcp_status_str(st), err.message);
        mcp_json_free(doc);
        doc = NULL;
        mcp_host_call_free(hc);
    }
    st_wait = poll_until_state(h, "victim", MCP_SERVER_FAILED, LATE(3000));
    CHECKF(st_wait, "victim is FAILED after its process died (default policy: restart at the next call); it is %s",
           sname(state_of(h, "victim")));
    CHECK(saw(&r, "victim", MCP_SERVER_FAILED) == 1);
    CHECK_STATE(h, "bystander", MCP_SERVER_READY);
    for (i = 0; i < 50 && (dead = waitpid((pid_t)pid1, NULL, WNOHANG)) == 0; i++) nap(10);
    CHECKF(waitpid((pid_t)pid1, NULL, WNOHANG) == -1 && errno == ECHILD, "the host reaped the killed process");
    CHECK(find_tool(h, "victim__pid") >= 0);   /* its tools stay callable: a call restarts it */

    /* restart 1: at the next call */
    st = call(h, "victim__pid", NULL, out, sizeof out, &err);
    EQST(st, MCP_OK, err);
    pid2 = atol(out);
    CHECKF(pid2 > 0 && pid2 != pid1 && pid2 == server_pid(h, "victim"), "restarted: pid %ld, then %ld", pid1, pid2);
    CHECK(poll_until_state(h, "victim", MCP_SERVER_READY, LATE(3000)));   /* its lists may still be coming */
    /* restart 2 */
    CHECK(kill_server(h, "victim", &dead));
    st = call(h, "victim__pid", NULL, out, sizeof out, &err);
    EQST(st, MCP_OK, err);
    pid3 = atol(out);
    CHECKF(pid3 > 0 && pid3 != pid2, "restarted again: pid %ld", pid3);
    CHECK(poll_until_state(h, "victim", MCP_SERVER_READY, LATE(3000)));
    /* a third death within the minute: restarts_per_minute 2 are used up */
    CHECK(kill_server(h, "victim", &dead));
    st = call(h, "victim__pid", NULL, out, sizeof out, &err);
    CHECKF(st != MCP_OK && starts_with(err.message, "Server \"victim\": "),
           "no third restart within a minute (restarts_per_minute 2): %s %s", mcp_status_str(st), err.message);
    CHECK_STATE(h, "victim", MCP_SERVER_FAILED);
    CHECK(server_pid(h, "victim") == 0);
    /* the program's choice overrides it */
    st = mcp_host_retry(h, "victim", &err);
    EQST(st, MCP_OK, err);
    CHECK(poll_until_state(h, "victim", MCP_SERVER_READY, LATE(5000)));
    st = call(h, "victim__echo", "{\"back\":1}", out, sizeof out, &err);
    EQST(st, MCP_OK, err);
    st = call(h, "bystander__echo", "{\"b\":1}", out, sizeof out, &err);
    EQST(st, MCP_OK, err);
    CHECK(saw(&r, "bystander", MCP_SERVER_FAILED) == 0);
    if (t_fail > fails0) print_events(&r);
    mcp_host_free(h);

    /* MCP_RESTART_NEVER: failed until mcp_host_retry; MCP_RESTART_ALWAYS: back at once */
    desc_init(&hd, &r);
    hd.restart = MCP_RESTART_NEVER;
    if ((h = host_new(&hd)) != NULL) {
        add_ts(h, "never", NULL, NULL, NULL);
        mcp_host_connect(h, &err);
        CHECK(mcp_host_wait(h, LATE(10000)) == MCP_OK);
        CHECK(kill_server(h, "never", &dead));
        st = call(h, "never__echo", "{}", out, sizeof out, &err);
        CHECKF(st != MCP_OK && starts_with(err.message, "Server \"never\": "), "MCP_RESTART_NEVER: %s", err.message);
        CHECK(server_pid(h, "never") == 0);
        mcp_host_free(h);
    }
    desc_init(&hd, &r);
    hd.restart = MCP_RESTART_ALWAYS;
    hd.retry_min_ms = 50;
    if ((h = host_new(&hd)) != NULL) {
        add_ts(h, "always", NULL, NULL, NULL);
        mcp_host_connect(h, &err);
        CHECK(mcp_host_wait(h, LATE(10000)) == MCP_OK);
        pid1 = server_pid(h, "always");
        kill((pid_t)pid1, SIGKILL);
        CHECKF(poll_until_state(h, "always", MCP_SERVER_RETRYING, LATE(3000)),
               "MCP_RESTART_ALWAYS: RETRYING after the process died; it is %s", sname(state_of(h, "always")));
        CHECKF(poll_until_state(h, "always", MCP_SERVER_READY, LATE(5000)), "and READY again without a call");
        CHECK(server_pid(h, "always") > 0 && server_pid(h, "always") != pid1);
        mcp_host_free(h);
    }
    guard_end("kill_restart");
}

/* ---- a server that exits on its own ------------------------------------------------------------ */

TEST_CASE(server_exits)
{
    mcp_host_desc hd;
    static rec r;
    mcp_host *h;
    mcp_error err;
    mcp_status st, est;
    char out[256];
    const char *msg;
    long pid1;
    guard_begin();
    desc_init(&hd, &r);
    if (!(h = host_new(&hd))) return;
    add_ts(h, "quitter", "--exit-after-calls=2", NULL, NULL);
    mcp_host_connect(h, &err);
    CHECK(mcp_host_wait(h, LATE(10000)) == MCP_OK);
    pid1 = server_pid(h, "quitter");
    st = call(h, "quitter__echo", "{\"n\":1}", out, sizeof out, &err);
    EQST(st, MCP_OK, err);
    CHECK_CALL(h, "quitter__echo", "{\"n\":2}", "{\"n\":2}");            /* answered, then it exits */
    CHECKF(poll_until_state(h, "quitter", MCP_SERVER_FAILED, LATE(3000)), "FAILED once it exited; it is %s",
           sname(state_of(h, "quitter")));
    msg = error_of(h, "quitter", &est);
    CHECKF(est == MCP_ERR_CLOSED && starts_with(msg, "Server \"quitter\": ") && contains(msg, "exit-after-calls") &&
           contains(msg, "5"), "its error names it, quotes its stderr and the status: %s %s", mcp_status_str(est), msg);
    st = call(h, "quitter__pid", NULL, out, sizeof out, &err);
    EQST(st, MCP_OK, err);
    CHECKF(atol(out) > 0 && atol(out) != pid1, "the next call started it again (pid %ld, then %s)", pid1, out);
    mcp_host_free(h);
    guard_end("server_exits");
}

/* ---- replacing a server, timeouts, a call cut off by disable, the server's own requests ------------ */

static char req_server[80], req_method[80];
static int req_count;

static void cb_request(void *user, mcp_host *h, const char *server, mcp_request *req)
{
    mcp_error err;
    (void)user; (void)h;
    req_count++;
    snprintf(req_server, sizeof req_server, "%s", nn(server));
    snprintf(req_method, sizeof req_method, "%s", nn(mcp_request_method(req)));
    if (!strcmp(req_method, "roots/list"))
        mcp_request_reply(req, "{\"roots\":[{\"uri\":\"file:///host-root\",\"name\":\"host\"}]}", &err);
    else
        mcp_request_reply_error(req, -32601, "Method not found", &err);
}

static char note_server[80];
static int note_messages;

static void cb_note_msg(void *user, mcp_host *h, const char *server, const char *method, const mcp_json *params)
{
    (void)h; (void)params;
    ((rec *)user)->notes++;
    if (!strcmp(method, "notifications/message")) {
        note_messages++;
        snprintf(note_server, sizeof note_server, "%s", nn(server));
    }
}

TEST_CASE(more_calls)
{
    mcp_host_desc hd;
    static rec r;
    mcp_host *h;
    mcp_host_call *hc;
    mcp_call_opts co;
    mcp_client_desc d;
    mcp_json_doc *doc = NULL;
    mcp_error err;
    mcp_status st;
    char out[512];
    const char *env1[] = { "HOST_TEST_VAR=first", NULL }, *env2[] = { "HOST_TEST_VAR=second", NULL };
    long pid;
    int64_t t0;
    int i;
    guard_begin();
    desc_init(&hd, &r);
    hd.capabilities = MCP_CAP_ROOTS;
    hd.on_request = cb_request;
    hd.on_notification = cb_note_msg;
    hd.timeout_ms = LATE(400);
    if (!(h = host_new(&hd))) return;
    memset(&d, 0, sizeof d);
    d.transport = MCP_STDIO;
    d.command = test_server;
    d.env = env1;
    CHECK(mcp_host_add(h, "t", &d, &err) == MCP_OK);
    add_ts(h, "mute", "--init=never", NULL, NULL);
    add_ts(h, "u", NULL, NULL, NULL);
    t0 = mcp_time_ms();
    mcp_host_connect(h, &err);
    st = mcp_host_wait(h, LATE(100));
    CHECKF(st == MCP_ERR_TIMEOUT, "mcp_host_wait(100 ms) with a server that never answers initialize: %s",
           mcp_status_str(st));
    CHECK_STATE(h, "mute", MCP_SERVER_CONNECTING);
    st = mcp_host_wait(h, LATE(5000));
    CHECKF(st == MCP_OK, "then the server's own timeout (400 ms) ends its connect: %s after %lld ms", mcp_status_str(st),
           (long long)(mcp_time_ms() - t0));
    CHECK_STATE(h, "mute", MCP_SERVER_FAILED);
    {
        mcp_status est;
        const char *msg = error_of(h, "mute", &est);
        CHECKF(est == MCP_ERR_TIMEOUT && starts_with(msg, "Server \"mute\": "), "mute: %s %s", mcp_status_str(est), msg);
    }
    CHECK_STATE(h, "t", MCP_SERVER_READY);

    /* the server's requests go to on_request, with its name; its notifications to on_notification */
    st = call(h, "t__ask", "{\"method\":\"roots/list\"}", out, sizeof out, &err);
    EQST(st, MCP_OK, err);
    CHECKF(contains(out, "file:///host-root"), "the server got the host's answer: %s", out);
    CHECK(req_count == 1 && !strcmp(req_server, "t") && !strcmp(req_method, "roots/list"));
    st = call(h, "u__notify", NULL, out, sizeof out, &err);
    EQST(st, MCP_OK, err);
    for (i = 0; i < 10; i++) mcp_host_poll(h, 10);
    CHECKF(note_messages >= 1 && !strcmp(note_server, "u"), "on_notification(u, notifications/message): %d, from %s",
           note_messages, note_server);

    /* a call's own timeout, and one that never ends: the sentence names the server */
    memset(&co, 0, sizeof co);
    co.timeout_ms = LATE(200);
    hc = mcp_host_send_tool(h, "u__never", "{}", &co, &err);
    CHECK(hc != NULL);
    if (hc) {
        st = mcp_host_call_wait(hc, LATE(3000));
        st = mcp_host_call_result(hc, &doc, &err);
        CHECKF(st == MCP_ERR_TIMEOUT && starts_with(err.message, "Server \"u\": "), "timeout: %s %s", mcp_status_str(st),
               err.message);
        mcp_json_free(doc);
        doc = NULL;
        mcp_host_call_free(hc);
    }
    CHECK_STATE(h, "u", MCP_SERVER_READY);     /* a call's timeout is not the server's failure */

    /* a call in flight when its server is disabled */
    hc = mcp_host_send_tool(h, "u__slow", "{\"ms\":5000}", NULL, &err);
    for (i = 0; i < 3; i++) mcp_host_poll(h, 10);
    CHECK(mcp_host_disable(h, "u", &err) == MCP_OK);
    if (hc) {
        mcp_host_call_wait(hc, LATE(3000));
        st = mcp_host_call_result(hc, &doc, &err);
        CHECKF(st != MCP_OK && st != MCP_AGAIN && starts_with(err.message, "Server \"u\": "),
               "the call in flight failed with the disable: %s %s", mcp_status_str(st), err.message);
        mcp_json_free(doc);
        doc = NULL;
        mcp_host_call_free(hc);
    }

    /* mcp_host_add with the name of a ready server: replaced (closed), the new one from connect */
    pid = server_pid(h, "t");
    d.env = env2;
    st = mcp_host_add(h, "t", &d, &err);
    EQST(st, MCP_OK, err);
    EQL(mcp_host_server_count(h), 3);
    for (i = 0; i < 300 && waitpid((pid_t)pid, NULL, WNOHANG) == 0 && kill((pid_t)pid, 0) == 0; i++) mcp_host_poll(h, 10);
    CHECK(kill((pid_t)pid, 0) < 0);
    CHECK(state_of(h, "t") == MCP_SERVER_IDLE || state_of(h, "t") == MCP_SERVER_CONNECTING);
    mcp_host_connect(h, &err);
    CHECK(poll_until_state(h, "t", MCP_SERVER_READY, LATE(5000)));
    CHECK_CALL(h, "t__env", "{\"name\":\"HOST_TEST_VAR\"}", "second");
    CHECK(server_pid(h, "t") != pid);
    /* ... and with a call in flight: the call fails (its server is gone), nothing else */
    hc = mcp_host_send_tool(h, "t__slow", "{\"ms\":5000}", NULL, &err);
    CHECK(hc != NULL);
    for (i = 0; i < 3; i++) mcp_host_poll(h, 10);
    d.env = env1;
    st = mcp_host_add(h, "t", &d, &err);
    EQST(st, MCP_OK, err);
    if (hc) {
        st = mcp_host_call_wait(hc, LATE(3000));
        CHECKF(st != MCP_OK && st != MCP_AGAIN, "the call to the replaced server ended: %s", mcp_status_str(st));
        st = mcp_host_call_result(hc, &doc, &err);
        /* the server was replaced under the call: the sentence still names it */
        CHECKF(st != MCP_OK && starts_with(err.message, "Server \"t\": "), "and failed naming it: %s %s",
               mcp_status_str(st), err.message);
        mcp_json_free(doc);
        doc = NULL;
        mcp_host_call_free(hc);
    }
    mcp_host_connect(h, &err);
    CHECK(poll_until_state(h, "t", MCP_SERVER_READY, LATE(5000)));
    CHECK_CALL(h, "t__env", "{\"name\":\"HOST_TEST_VAR\"}", "first");
    mcp_host_free(h);
    guard_end("more_calls");
}

/* ---- servers that keep failing, endless lists, many calls queued ---------------------------------- */

TEST_CASE(misbehaving)
{
    mcp_host_desc hd;
    static rec r;
    mcp_host *h;
    mcp_host_call *hc[20];
    mcp_host_server s;
    mcp_json_doc *doc = NULL;
    mcp_error err;
    mcp_status st;
    int64_t t0;
    int i, ok = 0, state;
    char args[64];
    guard_begin();
    desc_init(&hd, &r);
    hd.restart = MCP_RESTART_ALWAYS;
    hd.retry_min_ms = 20;
    hd.retry_max_ms = 100;
    hd.retry_limit = 3;
    if (!(h = host_new(&hd))) return;
    add_ts(h, "crashy", "--exit-on-initialize", NULL, NULL);
    add_ts(h, "loopy", "--pages=loop", NULL, NULL);
    add_ts(h, "late", "--startup-delay=400", NULL, NULL);
    t0 = mcp_time_ms();
    mcp_host_connect(h, &err);
    /* 20 calls for a server still starting, by its name: queued, all answered */
    for (i = 0; i < 20; i++) {
        snprintf(args, sizeof args, "{\"name\":\"echo\",\"arguments\":{\"i\":%d}}", i);
        hc[i] = mcp_host_send(h, "late", "tools/call", args, NULL, &err);
    }
    for (i = 0; i < 20; i++) {
        if (!hc[i]) continue;
        if (mcp_host_call_wait(hc[i], LATE(10000)) == MCP_OK && mcp_host_call_result(hc[i], &doc, &err) == MCP_OK) {
            snprintf(args, sizeof args, "{\"i\":%d}", i);
            if (!strcmp(nn(text_of(mcp_json_root(doc))), args)) ok++;
        }
        mcp_json_free(doc);
        doc = NULL;
        mcp_host_call_free(hc[i]);
    }
    CHECKF(ok == 20, "20 calls queued for a starting server: %d answered right", ok);
    /* a stdio server that dies at every start, MCP_RESTART_ALWAYS: the breaker stops it */
    while (mcp_time_ms() - t0 < LATE(5000) && state_of(h, "crashy") != MCP_SERVER_FAILED) mcp_host_poll(h, 10);
    CHECK_STATE(h, "crashy", MCP_SERVER_FAILED);
    CHECK(get(h, "crashy", &s));
    CHECKF(s.attempts == 3 && saw(&r, "crashy", MCP_SERVER_RETRYING) == 2,
           "crashy: %d attempts, %d RETRYING (retry_limit 3)", s.attempts, saw(&r, "crashy", MCP_SERVER_RETRYING));
    for (t0 = mcp_time_ms(); mcp_time_ms() - t0 < 300;) mcp_host_poll(h, 20);
    CHECK(saw(&r, "crashy", MCP_SERVER_CONNECTING) == 3);
    /* a server whose tools/list never ends */
    st = mcp_host_wait(h, LATE(10000));
    CHECKF(st == MCP_OK, "a server with endless pages does not keep the host waiting: %s", mcp_status_str(st));
    state = state_of(h, "loopy");
    printf("# misbehaving: a server with endless tools/list pages ends %s (%s)\n", sname(state), error_of(h, "loopy", NULL));
    CHECKF(state == MCP_SERVER_FAILED || state == MCP_SERVER_READY, "loopy is %s (%s)", sname(state),
           error_of(h, "loopy", NULL));
    CHECK_STATE(h, "late", MCP_SERVER_READY);
    check_tool_list(h, "misbehaving");
    mcp_host_free(h);
    guard_end("misbehaving");
}

/* ---- prompts and resources ------------------------------------------------------------------------ */

TEST_CASE(prompts_resources)
{
    mcp_host_desc hd;
    static rec r;
    mcp_host *h;
    mcp_host_item it;
    mcp_json_doc *doc = NULL;
    mcp_error err;
    mcp_status st;
    size_t i, n;
    int first_a = 1, found = 0;
    guard_begin();
    desc_init(&hd, &r);
    if (!(h = host_new(&hd))) return;
    add_ts(h, "a", NULL, NULL, NULL);
    add_ts(h, "b", "--era=modern", NULL, NULL);
    mcp_host_connect(h, &err);
    CHECK(mcp_host_wait(h, LATE(10000)) == MCP_OK);
    n = mcp_host_count(h, MCP_HOST_PROMPTS);
    CHECKF(n == 4, "prompts: greet and summarize of each (%lu)", (unsigned long)n);
    for (i = 0; i < n; i++)
        if (mcp_host_item_get(h, MCP_HOST_PROMPTS, i, &it) == MCP_OK && !strcmp(nn(it.qualified), "b__greet") &&
            !strcmp(nn(it.server), "b") && !strcmp(nn(it.name), "greet")) found = 1;
    CHECK(found);
    st = mcp_host_get_prompt(h, "b__greet", "{\"name\":\"Ann\"}", &doc, &err);
    EQST(st, MCP_OK, err);
    EQS(mcp_json_str(mcp_json_get(mcp_json_get(mcp_json_at(mcp_json_get(mcp_json_root(doc), "messages"), 0), "content"),
                                  "text")), "Hello, Ann!");
    mcp_json_free(doc);
    doc = NULL;
    st = mcp_host_get_prompt(h, "a__nope", "{}", &doc, &err);
    CHECK(st != MCP_OK);
    mcp_json_free(doc);
    doc = NULL;
    /* resources keep their URIs; the same URI from two servers is listed once, the first's */
    n = mcp_host_count(h, MCP_HOST_RESOURCES);
    CHECKF(n == 3, "resources: three URIs, each once (%lu)", (unsigned long)n);
    for (i = 0; i < n; i++)
        if (mcp_host_item_get(h, MCP_HOST_RESOURCES, i, &it) == MCP_OK &&
            (strcmp(nn(it.server), "a") || strcmp(nn(it.qualified), nn(it.name)))) first_a = 0;
    CHECK(first_a);
    st = mcp_host_read_resource(h, "file:///b.txt", &doc, &err);
    EQST(st, MCP_OK, err);
    EQS(mcp_json_str(mcp_json_get(mcp_json_at(mcp_json_get(mcp_json_root(doc), "contents"), 0), "text")),
        "content of file:///b.txt");
    mcp_json_free(doc);
    doc = NULL;
    st = mcp_host_read_resource(h, "file:///nobody-has-it", &doc, &err);
    CHECK(st != MCP_OK);
    mcp_json_free(doc);
    doc = NULL;
    st = mcp_host_list(h, MCP_HOST_PROMPTS, &doc, &err);
    EQST(st, MCP_OK, err);
    CHECK(mcp_json_len(mcp_json_get(mcp_json_root(doc), "prompts")) == 4);
    mcp_json_free(doc);
    doc = NULL;
    st = mcp_host_list(h, MCP_HOST_RESOURCES, &doc, &err);
    EQST(st, MCP_OK, err);
    CHECK(mcp_json_len(mcp_json_get(mcp_json_root(doc), "resources")) == 3);
    mcp_json_free(doc);
    /* disabling the first: its URIs come from the other server now */
    CHECK(mcp_host_disable(h, "a", &err) == MCP_OK);
    n = mcp_host_count(h, MCP_HOST_RESOURCES);
    CHECKF(n == 3 && mcp_host_item_get(h, MCP_HOST_RESOURCES, 0, &it) == MCP_OK && !strcmp(nn(it.server), "b"),
           "with a disabled: %lu resources, the first from %s", (unsigned long)n, n ? nn(it.server) : "-");
    CHECK(mcp_host_count(h, MCP_HOST_PROMPTS) == 2);
    mcp_host_free(h);
    guard_end("prompts_resources");
}

/* ---- notifications/tools/list_changed ------------------------------------------------------------ */

TEST_CASE(list_changed)
{
    mcp_host_desc hd;
    static rec r;
    mcp_host *h;
    mcp_host_server s;
    mcp_error err;
    int c0, m0;
    int64_t t0;
    guard_begin();
    desc_init(&hd, &r);
    if (!(h = host_new(&hd))) return;
    add_ts(h, "lc", "--list-changed-after=400", NULL, NULL);
    add_ts(h, "lcm", "--list-changed-after=400", "--era=modern", NULL);
    add_ts(h, "calm", NULL, NULL, NULL);
    mcp_host_connect(h, &err);
    CHECK(mcp_host_wait(h, LATE(10000)) == MCP_OK);
    CHECK(find_tool(h, "lc__added_later") < 0);
    CHECK(get(h, "lc", &s) && s.tools == 26);
    c0 = changes_of(&r, "lc");
    m0 = changes_of(&r, "lcm");
    for (t0 = mcp_time_ms(); mcp_time_ms() - t0 < LATE(3000) && find_tool(h, "lc__added_later") < 0;)
        mcp_host_poll(h, 50);
    CHECKF(find_tool(h, "lc__added_later") >= 0, "list_changed: the new tool is listed");
    CHECKF(changes_of(&r, "lc") > c0, "on_change(lc) fired for the list_changed (%d, then %d)", c0, changes_of(&r, "lc"));
    CHECK(get(h, "lc", &s) && s.tools == 27 && tools_of(h, "lc") == 27);
    CHECK(tools_of(h, "calm") == 26);
    check_tool_list(h, "list_changed");
    CHECK_CALL(h, "lc__added_later", NULL, "added_later: {}");
    /* 2026-07-28: told on the subscription the host keeps open */
    for (t0 = mcp_time_ms(); mcp_time_ms() - t0 < LATE(2000) && find_tool(h, "lcm__added_later") < 0;)
        mcp_host_poll(h, 50);
    CHECKF(find_tool(h, "lcm__added_later") >= 0 && changes_of(&r, "lcm") > m0,
           "list_changed from a 2026-07-28 server (subscriptions/listen): listed %d, on_change %d then %d",
           find_tool(h, "lcm__added_later") >= 0, m0, changes_of(&r, "lcm"));
    CHECK_STATE(h, "lc", MCP_SERVER_READY);
    mcp_host_free(h);
    guard_end("list_changed");
}

/* ---- the cache file ------------------------------------------------------------------------------ */

static mcp_host *cache_host(rec *r, const char *file)
{
    mcp_host_desc hd;
    mcp_host *h;
    desc_init(&hd, r);
    hd.cache_file = file;
    if (!(h = host_new(&hd))) return NULL;
    add_ts(h, "late", "--startup-delay=900", "--tools=2", "--tool-prefix=cached_");
    add_ts(h, "quick", "--tool-names=q1", NULL, NULL);
    return h;
}

TEST_CASE(cache_file)
{
    static rec r;
    mcp_host *h;
    mcp_host_server s;
    mcp_error err;
    char file[PATH_MAX + 32], *text = NULL;
    struct stat sb;
    FILE *f;
    int64_t t0;
    size_t listed;
    guard_begin();
    snprintf(file, sizeof file, "%s/host-cache.json", tmpdir);
    unlink(file);
    if (!(h = cache_host(&r, file))) return;
    mcp_host_connect(h, &err);
    CHECK(get(h, "late", &s) && s.cached == 0 && s.tools == 0);     /* no cache yet */
    CHECK(mcp_host_wait(h, LATE(10000)) == MCP_OK);
    CHECK_STATE(h, "late", MCP_SERVER_READY);
    CHECK(get(h, "late", &s) && s.tools == 28 && !s.cached);
    mcp_host_free(h);
    CHECKF(stat(file, &sb) == 0 && sb.st_size > 0, "the first host wrote the cache file %s", file);
    if ((f = fopen(file, "r")) != NULL) {
        text = (char *)calloc(1, (size_t)sb.st_size + 1);
        if (text && fread(text, 1, (size_t)sb.st_size, f) != (size_t)sb.st_size) text[0] = 0;
        fclose(f);
    }
    CHECKF(contains(text, "cached_2") && contains(text, "\"late\"") && contains(text, "q1"),
           "it holds the servers' tools");
    {
        mcp_json_doc *d = text ? mcp_json_parse(text, strlen(text), NULL) : NULL;
        CHECK(d != NULL);                     /* JSON */
        mcp_json_free(d);
    }
    free(text);

    /* the second host: the slow server's tools at once, from the cache */
    if (!(h = cache_host(&r, file))) return;
    t0 = mcp_time_ms();
    mcp_host_connect(h, &err);
    mcp_host_poll(h, 0);
    CHECK_STATE(h, "late", MCP_SERVER_CONNECTING);
    CHECKF(get(h, "late", &s) && s.cached == 1 && s.tools == 28, "late: cached %d, %lu tools while connecting",
           s.cached, (unsigned long)s.tools);
    CHECK(find_tool(h, "late__cached_1") >= 0 && find_tool(h, "late__echo") >= 0);
    CHECK(tools_of(h, "late") == 28);
    listed = check_tool_list(h, "cache_file");
    CHECKF(listed >= 28, "%lu tools listed at once", (unsigned long)listed);
    CHECKF(mcp_time_ms() - t0 < 500, "at once: %lld ms", (long long)(mcp_time_ms() - t0));
    /* a call to a cached tool waits for the server */
    CHECK_CALL(h, "late__cached_2", "{\"k\":2}", "cached_2: {\"k\":2}");
    CHECKF(mcp_time_ms() - t0 >= 700, "it waited for the server to start: %lld ms", (long long)(mcp_time_ms() - t0));
    CHECK(poll_until_state(h, "late", MCP_SERVER_READY, LATE(3000)));    /* its lists may still be coming */
    CHECK(get(h, "late", &s) && s.cached == 0 && s.tools == 28);
    CHECK(find_tool(h, "quick__q1") >= 0);
    mcp_host_free(h);

    /* a server whose description changed does not take the old one's cache */
    {
        mcp_host_desc hd;
        desc_init(&hd, &r);
        hd.cache_file = file;
        if ((h = host_new(&hd)) != NULL) {
            add_ts(h, "late", "--startup-delay=900", "--tools=3", "--tool-prefix=cached_");
            add_ts(h, "quick", "--tool-names=q1", NULL, NULL);
            mcp_host_connect(h, &err);
            mcp_host_poll(h, 0);
            CHECKF(get(h, "late", &s) && s.cached == 0 && s.tools == 0 && find_tool(h, "late__cached_1") < 0,
                   "another description: not cached (cached %d, %lu tools)", s.cached, (unsigned long)s.tools);
            CHECK(get(h, "quick", &s) && (s.cached == 1 || s.state == MCP_SERVER_READY) && s.tools == 27);
            CHECK(mcp_host_wait(h, LATE(10000)) == MCP_OK);
            CHECK(get(h, "late", &s) && s.state == MCP_SERVER_READY && s.tools == 29);
            mcp_host_free(h);
        }
    }
    unlink(file);

    /* a cache file that is not JSON: ignored (a log line), the servers start as without */
    if ((f = fopen(file, "w")) != NULL) { fputs("{ not json", f); fclose(f); }
    if ((h = cache_host(&r, file)) != NULL) {
        mcp_host_connect(h, &err);
        CHECK(get(h, "late", &s) && s.cached == 0 && s.tools == 0);
        CHECK(mcp_host_wait(h, LATE(10000)) == MCP_OK);
        CHECK_STATE(h, "late", MCP_SERVER_READY);
        mcp_host_free(h);
    }
    unlink(file);
    guard_end("cache_file");
}

/* The cache of an HTTP server that is gone the next time: its tools listed at once, a call to
   one waits while it retries, then fails naming it once the breaker opens. */
TEST_CASE(cache_http)
{
    mcp_host_desc hd;
    static rec r;
    mcp_host *h;
    mcp_host_server s;
    mcp_error err;
    mcp_status st;
    srv hs;
    char file[PATH_MAX + 32], url[128], out[256];
    int64_t t0;
    if (!have_http) { SKIP("cache_http: no HTTP test server"); return; }
    guard_begin();
    snprintf(file, sizeof file, "%s/host-cache-http.json", tmpdir);
    unlink(file);
    if (!srv_start(&hs, NULL)) return;
    snprintf(url, sizeof url, "%s", hs.url);
    desc_init(&hd, &r);
    hd.cache_file = file;
    hd.retry_min_ms = 50;
    hd.retry_limit = 3;
    if ((h = host_new(&hd)) != NULL) {
        add_url(h, "web", MCP_HTTP, url);
        mcp_host_connect(h, &err);
        CHECK(mcp_host_wait(h, LATE(10000)) == MCP_OK);
        CHECK_STATE(h, "web", MCP_SERVER_READY);
        mcp_host_free(h);
    }
    srv_stop(&hs);                            /* gone: nobody listens on its port now */
    if ((h = host_new(&hd)) != NULL) {
        add_url(h, "web", MCP_HTTP, url);
        mcp_host_connect(h, &err);
        CHECKF(get(h, "web", &s) && s.cached == 1 && s.tools == 14 && find_tool(h, "web__echo") >= 0,
               "the HTTP server's 14 tools listed from the cache (cached %d, %lu tools)", s.cached, (unsigned long)s.tools);
        t0 = mcp_time_ms();
        st = call(h, "web__echo", "{}", out, sizeof out, &err);
        CHECKF(st != MCP_OK && starts_with(err.message, "Server \"web\": "), "the call fails naming the server: %s %s",
               mcp_status_str(st), err.message);
        CHECKF(mcp_time_ms() - t0 < LATE(3000), "once the breaker opened (%lld ms), not at the call's timeout",
               (long long)(mcp_time_ms() - t0));
        CHECK_STATE(h, "web", MCP_SERVER_FAILED);
        CHECKF(get(h, "web", &s) && s.tools == 14 && s.cached == 1, "a failed server's cached tools stay listed "
               "(cached %d, %lu tools)", s.cached, (unsigned long)s.tools);
        mcp_host_free(h);
    }
    unlink(file);
    guard_end("cache_http");
}

/* ---- disable, enable, retry ------------------------------------------------------------------------ */

TEST_CASE(disable_enable_retry)
{
    mcp_host_desc hd;
    static rec r;
    mcp_host *h;
    mcp_host_server s;
    mcp_error err;
    mcp_status st;
    char out[256];
    long pid;
    int i, failed0;
    guard_begin();
    desc_init(&hd, &r);
    if (!(h = host_new(&hd))) return;
    add_ts(h, "t", NULL, NULL, NULL);
    add_ts(h, "u", NULL, NULL, NULL);
    add_cmd(h, "gone", "/nonexistent/mcp-host-test-gone", NULL);
    mcp_host_connect(h, &err);
    CHECK(mcp_host_wait(h, LATE(10000)) == MCP_OK);
    CHECK_STATE(h, "t", MCP_SERVER_READY);
    CHECK_STATE(h, "gone", MCP_SERVER_FAILED);
    pid = server_pid(h, "t");
    CHECK(pid > 0 && tools_of(h, "t") == 26);

    st = mcp_host_disable(h, "t", &err);
    EQST(st, MCP_OK, err);
    CHECK_STATE(h, "t", MCP_SERVER_DISABLED);
    CHECK(saw(&r, "t", MCP_SERVER_DISABLED) == 1);
    for (i = 0; i < 20; i++) mcp_host_poll(h, 20);
    CHECKF(tools_of(h, "t") == 0 && find_tool(h, "t__echo") < 0, "a disabled server's tools are not listed (%lu)",
           (unsigned long)tools_of(h, "t"));
    CHECK(tools_of(h, "u") == 26);
    CHECK(get(h, "t", &s) && s.client == NULL);
    for (i = 0; i < 300 && kill((pid_t)pid, 0) == 0 && waitpid((pid_t)pid, NULL, WNOHANG) == 0; i++)
        mcp_host_poll(h, 10);
    CHECKF(waitpid((pid_t)pid, NULL, WNOHANG) == -1 && errno == ECHILD, "the disabled server's process ended and was reaped");
    st = call(h, "t__echo", "{}", out, sizeof out, &err);
    CHECKF(st != MCP_OK, "a call to a disabled server fails: %s", err.message);
    CHECK_STATE(h, "t", MCP_SERVER_DISABLED);
    st = mcp_host_connect(h, &err);            /* connect starts idle servers, not disabled ones */
    CHECK_STATE(h, "t", MCP_SERVER_DISABLED);

    st = mcp_host_enable(h, "t", &err);
    EQST(st, MCP_OK, err);
    CHECK(state_of(h, "t") == MCP_SERVER_CONNECTING || state_of(h, "t") == MCP_SERVER_IDLE ||
          state_of(h, "t") == MCP_SERVER_READY);
    CHECK(poll_until_state(h, "t", MCP_SERVER_READY, LATE(5000)));
    CHECK(tools_of(h, "t") == 26);
    CHECK_CALL(h, "t__echo", "{\"again\":1}", "{\"again\":1}");

    /* retry: a failed server connects at once */
    failed0 = saw(&r, "gone", MCP_SERVER_FAILED);
    st = mcp_host_retry(h, "gone", &err);
    EQST(st, MCP_OK, err);
    CHECK(mcp_host_wait(h, LATE(5000)) == MCP_OK);
    CHECK_STATE(h, "gone", MCP_SERVER_FAILED);
    CHECKF(saw(&r, "gone", MCP_SERVER_FAILED) == failed0 + 1, "it tried again and failed again (%d, then %d)",
           failed0, saw(&r, "gone", MCP_SERVER_FAILED));
    CHECK(saw(&r, "gone", MCP_SERVER_CONNECTING) >= 2);
    /* disable a failed one; enable a ready one: nothing changes */
    st = mcp_host_disable(h, "gone", &err);
    EQST(st, MCP_OK, err);
    CHECK_STATE(h, "gone", MCP_SERVER_DISABLED);
    pid = server_pid(h, "u");
    st = mcp_host_enable(h, "u", &err);
    CHECK(st == MCP_OK && state_of(h, "u") == MCP_SERVER_READY && server_pid(h, "u") == pid);
    /* names nobody has */
    CHECK(mcp_host_disable(h, "nobody", &err) != MCP_OK);
    CHECK(mcp_host_enable(h, "nobody", &err) != MCP_OK);
    CHECK(mcp_host_retry(h, "nobody", &err) != MCP_OK);
    mcp_host_free(h);
    guard_end("disable_enable_retry");
}

/* ---- the program's own loop ------------------------------------------------------------------------ */

/* One round of an outside loop: the host's descriptors, mcp_poll, mcp_host_poll(h, 0). */
static int outside_round(mcp_host *h, int cap_ms)
{
    mcp_pollfd fds[64];
    int n = mcp_host_pollfd_count(h), got, t = mcp_host_next_timeout(h);
    got = mcp_host_pollfds(h, fds, 64);
    if (got < 0 || got > 64 || got > n) return -1;
    if (t < 0 || t > cap_ms) t = cap_ms;
    mcp_poll(fds, got, t);
    mcp_host_poll(h, 0);
    return got;
}

TEST_CASE(outside_loop)
{
    mcp_host_desc hd;
    static rec r;
    mcp_host *h;
    mcp_host_call *a, *b;
    mcp_json_doc *doc = NULL;
    mcp_error err;
    mcp_status st;
    int64_t t0;
    int rounds = 0, most = 0, bad = 0, got;
    guard_begin();
    desc_init(&hd, &r);
    if (!(h = host_new(&hd))) return;
    add_ts(h, "one", NULL, NULL, NULL);
    add_ts(h, "two", "--era=modern", NULL, NULL);
    add_ts(h, "three", "--startup-delay=300", NULL, NULL);
    CHECK(mcp_host_next_timeout(h) == -1 || mcp_host_next_timeout(h) >= 0);
    CHECK(mcp_host_connect(h, &err) == MCP_OK);
    for (t0 = mcp_time_ms(); mcp_time_ms() - t0 < LATE(10000);) {
        if (state_of(h, "one") == MCP_SERVER_READY && state_of(h, "two") == MCP_SERVER_READY &&
            state_of(h, "three") == MCP_SERVER_READY) break;
        got = outside_round(h, 200);
        if (got < 0) bad++;
        if (got > most) most = got;
        rounds++;
    }
    CHECK(bad == 0);
    CHECKF(most >= 3, "the host gave at least a descriptor per stdio server (%d)", most);
    CHECK_STATE(h, "one", MCP_SERVER_READY);
    CHECK_STATE(h, "two", MCP_SERVER_READY);
    CHECK_STATE(h, "three", MCP_SERVER_READY);
    CHECKF(rounds < 2000, "%d rounds: the loop waited in mcp_poll, not spinning", rounds);
    a = mcp_host_send_tool(h, "one__slow", "{\"ms\":100}", NULL, &err);
    b = mcp_host_send_tool(h, "three__echo", "{\"x\":3}", NULL, &err);
    CHECK(a && b);
    for (t0 = mcp_time_ms(), rounds = 0; a && b && mcp_time_ms() - t0 < LATE(5000) &&
         (mcp_host_call_status(a) == MCP_AGAIN || mcp_host_call_status(b) == MCP_AGAIN); rounds++)
        if (outside_round(h, 200) < 0) bad++;
    CHECK(bad == 0);
    if (a) {
        st = mcp_host_call_result(a, &doc, &err);
        EQST(st, MCP_OK, err);
        EQS(text_of(mcp_json_root(doc)), "slept 100 ms");
        mcp_json_free(doc);
        doc = NULL;
        mcp_host_call_free(a);
    }
    if (b) {
        st = mcp_host_call_result(b, &doc, &err);
        EQST(st, MCP_OK, err);
        EQS(text_of(mcp_json_root(doc)), "{\"x\":3}");
        mcp_json_free(doc);
        mcp_host_call_free(b);
    }
    CHECKF(rounds < 500, "%d rounds for two calls", rounds);
    /* idle: mcp_host_poll(h, 0) returns at once */
    t0 = mcp_time_ms();
    st = mcp_host_poll(h, 0);
    CHECKF(st == MCP_OK && mcp_time_ms() - t0 < LATE(50), "an idle mcp_host_poll(h, 0): %s in %lld ms",
           mcp_status_str(st), (long long)(mcp_time_ms() - t0));
    /* mcp_host_send to a server by name */
    a = mcp_host_send(h, "two", "tools/list", NULL, NULL, &err);
    CHECKF(a != NULL, "mcp_host_send: %s", err.message);
    if (a) {
        CHECK(mcp_host_call_wait(a, LATE(5000)) == MCP_OK);
        st = mcp_host_call_result(a, &doc, &err);
        EQST(st, MCP_OK, err);
        CHECK(mcp_json_len(mcp_json_get(mcp_json_root(doc), "tools")) > 0);
        mcp_json_free(doc);
        mcp_host_call_free(a);
    }
    /* a call cancelled */
    a = mcp_host_send_tool(h, "one__slow", "{\"ms\":5000}", NULL, &err);
    if (a) {
        for (rounds = 0; rounds < 3; rounds++) outside_round(h, 20);
        st = mcp_host_call_cancel(a, "the user pressed stop");
        EQST(st, MCP_OK, err);
        CHECK(mcp_host_call_status(a) == MCP_ERR_CANCELLED);
        mcp_host_call_free(a);
    }
    mcp_host_free(h);
    guard_end("outside_loop");
}

/* The outside loop trusts mcp_host_next_timeout alone: the retries of a server nobody answers
   and a call's deadline must come through it (a -1 there would block such a loop for ever). */
TEST_CASE(outside_loop_timers)
{
    mcp_host_desc hd;
    static rec r;
    mcp_host *h;
    mcp_host_call *hc;
    mcp_call_opts co;
    mcp_pollfd fds[64];
    mcp_error err;
    char url[128];
    int64_t t0;
    int n, t, rounds = 0, blocked = 0;
    guard_begin();
    snprintf(url, sizeof url, "http://127.0.0.1:%d/mcp", free_port());
    desc_init(&hd, &r);
    hd.retry_min_ms = 50;
    hd.retry_limit = 3;
    if (!(h = host_new(&hd))) return;
    add_url(h, "nobody", MCP_HTTP, url);
    add_ts(h, "t", NULL, NULL, NULL);
    mcp_host_connect(h, &err);
    for (t0 = mcp_time_ms(); mcp_time_ms() - t0 < LATE(5000) && state_of(h, "nobody") != MCP_SERVER_FAILED; rounds++) {
        n = mcp_host_pollfds(h, fds, 64);
        t = mcp_host_next_timeout(h);
        if (state_of(h, "nobody") == MCP_SERVER_RETRYING && t < 0) { blocked++; t = 100; }
        if (t > 3000) t = 3000;
        mcp_poll(fds, n, t);
        mcp_host_poll(h, 0);
    }
    CHECKF(blocked == 0, "mcp_host_next_timeout gave -1 while a server was RETRYING (%d rounds)", blocked);
    CHECK_STATE(h, "nobody", MCP_SERVER_FAILED);
    CHECKF(mcp_time_ms() - t0 < LATE(2000), "the retries came on time through the loop: %lld ms, %d rounds",
           (long long)(mcp_time_ms() - t0), rounds);
    CHECK(poll_until_state(h, "t", MCP_SERVER_READY, LATE(5000)));
    /* a call's deadline */
    memset(&co, 0, sizeof co);
    co.timeout_ms = 150;
    hc = mcp_host_send_tool(h, "t__never", "{}", &co, &err);
    for (t0 = mcp_time_ms(), blocked = 0; hc && mcp_host_call_status(hc) == MCP_AGAIN && mcp_time_ms() - t0 < LATE(3000);) {
        n = mcp_host_pollfds(h, fds, 64);
        t = mcp_host_next_timeout(h);
        if (t < 0 || t > 1000) { blocked++; t = 100; }
        mcp_poll(fds, n, t);
        mcp_host_poll(h, 0);
    }
    CHECKF(blocked == 0, "mcp_host_next_timeout covered the call's deadline (%d rounds without)", blocked);
    if (hc) {
        CHECK(mcp_host_call_status(hc) == MCP_ERR_TIMEOUT);
        CHECKF(mcp_time_ms() - t0 < LATE(600), "timed out at its deadline: %lld ms", (long long)(mcp_time_ms() - t0));
        mcp_host_call_free(hc);
    }
    mcp_host_free(h);
    guard_end("outside_loop_timers");
}

/* ---- freed in the middle ------------------------------------------------------------------------------ */

TEST_CASE(free_while_busy)
{
    mcp_host_desc hd;
    static rec r;
    mcp_host *h;
    mcp_host_call *hc, *hc2;
    mcp_error err;
    mcp_json_doc *doc = NULL;
    int64_t t0;
    guard_begin();
    desc_init(&hd, &r);
    if (!(h = host_new(&hd))) return;
    add_ts(h, "starting", "--startup-delay=2000", NULL, NULL);
    add_ts(h, "busy", NULL, NULL, NULL);
    add_ts(h, "stubborn", "--ignore-term", "--ignore-eof", NULL);
    mcp_host_connect(h, &err);
    CHECK(poll_until_state(h, "busy", MCP_SERVER_READY, LATE(5000)));
    hc = mcp_host_send_tool(h, "busy__slow", "{\"ms\":10000}", NULL, &err);
    hc2 = mcp_host_send(h, "starting", "tools/call", "{\"name\":\"echo\"}", NULL, &err);
    CHECK(hc != NULL && hc2 != NULL);
    mcp_host_poll(h, 50);
    t0 = mcp_time_ms();
    mcp_host_free(h);
    CHECKF(mcp_time_ms() - t0 < LATE(5000), "mcp_host_free took %lld ms (one server ignores SIGTERM and EOF)",
           (long long)(mcp_time_ms() - t0));
    if (hc) {
        CHECKF(mcp_host_call_status(hc) != MCP_AGAIN && mcp_host_call_status(hc) != MCP_OK,
               "a call not yet freed failed, detached: %s", mcp_status_str(mcp_host_call_status(hc)));
        CHECK(mcp_host_call_result(hc, &doc, &err) != MCP_OK);
        mcp_json_free(doc);
        mcp_host_call_free(hc);
    }
    if (hc2) {
        CHECK(mcp_host_call_status(hc2) != MCP_AGAIN && mcp_host_call_status(hc2) != MCP_OK);
        mcp_host_call_free(hc2);
    }
    mcp_host_free(NULL);
    guard_end("free_while_busy");
}

#endif /* MCP_NO_HOST */

/* ---- main --------------------------------------------------------------------------------------- */

#ifdef MCP_NO_HOST
/* Without the host: what remains, a plain client against the test server, still works. */
TEST_CASE(no_host_client)
{
    static const char *const args[] = { "--era=legacy", NULL };
    mcp_client_desc d;
    mcp_client *c;
    mcp_error err;
    mcp_json_doc *doc = NULL;
    memset(&d, 0, sizeof d);
    d.transport = MCP_STDIO;
    d.command = test_server;
    d.args = args;
    SKIP("built with MCP_NO_HOST: the host cases are not in this build");
    c = mcp_client_new(&d, &err);
    CHECKF(c != NULL, "mcp_client_new: %s", err.message);
    if (!c) return;
    CHECK(mcp_client_connect(c, &err) == MCP_OK);
    CHECK(mcp_client_call_tool(c, "echo", "{\"n\":1}", &doc, &err) == MCP_OK);
    EQS(text_of(mcp_json_root(doc)), "{\"n\":1}");
    mcp_json_free(doc);
    mcp_client_free(c);
}
#endif

static int exists_x(const char *p) { return access(p, X_OK) == 0; }

int main(int argc, char **argv)
{
    const char *srvp;
    char dir[PATH_MAX], guess[PATH_MAX + 32], *slash;
    struct sigaction sa;
    int64_t t0 = mcp_time_ms();
    test_args(&argc, argv);
    srvp = argc > 2 ? argv[2] : getenv("MCP_TEST_SERVER");
    if (!srvp || !*srvp) srvp = "build/test_server";
    if (getenv("LD_PRELOAD") && strstr(getenv("LD_PRELOAD"), "vgpreload")) slack = 10;   /* valgrind */
    if (getenv("MCP_TEST_SLACK") && atoi(getenv("MCP_TEST_SLACK")) > 0) slack = atoi(getenv("MCP_TEST_SLACK"));
    if (!realpath(srvp, test_server) || !exists_x(test_server)) {
        fprintf(stderr, "test_host: the test server \"%s\" is missing: build it from "
                        "tests/servers/test_server.c, or pass its path as argv[2] or MCP_TEST_SERVER\n", srvp);
        CHECK(!"test server present");
        return TEST_DONE();
    }
    snprintf(dir, sizeof dir, "%s", test_server);
    if ((slash = strrchr(dir, '/')) != NULL) *slash = 0;
#ifndef MCP_NO_HOST
    snprintf(guess, sizeof guess, "%s/demo_server", dir);
    have_demo = realpath(guess, demo_server) && exists_x(demo_server);
    if (!have_demo) SKIP("no demo server beside the test server (%s): the cases use the test server instead", guess);
    snprintf(guess, sizeof guess, "%s/http_server", dir);
    have_http = realpath(guess, server_path) && exists_x(server_path);
    if (!have_http) SKIP("no HTTP test server beside the test server (%s): no HTTP server in many_servers", guess);
#else
    (void)guess; (void)have_demo; (void)have_http; (void)demo_server;
#endif
    snprintf(tmpdir, sizeof tmpdir, "%s/mcp_test_host_%ld", getenv("TMPDIR") && *getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp",
             (long)getpid());
    if (mkdir(tmpdir, 0700) < 0 && errno != EEXIST) { perror("mkdir"); return 2; }
    sigaction(SIGPIPE, NULL, &sa);
    CHECKF(sa.sa_handler == SIG_DFL, "SIGPIPE must keep its default disposition in this test");
    (void)contains; (void)starts_with; (void)free_port; (void)stat_of; (void)srv_start; (void)srv_stop; (void)guard_begin; (void)guard_end;

    test_run();

    rmdir(tmpdir);
    printf("# total %lld ms\n", (long long)(mcp_time_ms() - t0));
    return TEST_DONE();
}
