/* interop - mcp.h against the official MCP reference servers (issue 4) and a server on the
   official TypeScript SDK v2 (issue 7).

   Runs four Node servers from tests/interop/node_modules (pinned in package.json, installed
   from package-lock.json by tests/interop/run.sh) and drives each one through the public API
   of mcp.h only:

     server-everything   `node .../server-everything/dist/index.js stdio`: connect (server
                         info, negotiated version, instructions), every tool listed, echo,
                         get-sum, get-structured-content, a long-running operation with
                         progress, resources (list, templates, read static and templated,
                         subscribe and the resources/updated it triggers), prompts (list, get
                         with and without arguments, completion), roots (the server asks
                         roots/list after initialize; we answer, it logs the count back, its
                         get-roots-list tool shows our root; notifications/roots/list_changed
                         makes it ask again), sampling and elicitation requests made in the
                         middle of a tool call, logging (logging/setLevel, then the simulated
                         logging tool), the tools/list_changed it sends after initialize,
                         and gzip-file-as-resource (a data: URI): the resource it registers,
                         the resources/list_changed that announces it, listing and reading it;
                         tasks (2025-11-25): simulate-research-query, its only task tool
                         (taskSupport "required"; the -async tools need a client tasks
                         capability, which mcp.h does not declare, so they are not offered),
                         three at once through the non-blocking API (one completes with
                         MCP_AGAIN meanwhile and every stage reported to on_task, one is
                         cancelled in the middle, one asks its clarification through
                         tasks/result and on_request answers it: the report names it), one
                         through mcp_client_call_tool, tasks/list (the cancelled one is
                         "cancelled"), attach to a finished task and to an unknown id.
     server-filesystem   `node .../server-filesystem/dist/index.js TMPDIR`: list_directory of
                         a temporary folder with two files and a folder, read_text_file,
                         write_file (checked on disk), a path outside the allowed folder.
     server-memory       `node .../server-memory/dist/index.js` with MEMORY_FILE_PATH pointing
                         into a temporary folder (desc.env): create_entities, create_relations,
                         read_graph, search_nodes, and the file on disk.

   server-everything runs three times: over stdio as above, then as an HTTP server of its own
   (`node .../server-everything/dist/index.js streamableHttp`, then `... sse`, listening on
   the free port handed to it in PORT) reached through MCP_HTTP (http://127.0.0.1:PORT/mcp,
   with the GET event stream open for the server's own requests and notifications) and
   MCP_SSE (http://127.0.0.1:PORT/sse, the 2024-11-05 HTTP+SSE transport). Each HTTP run
   does the same checks as the stdio one; the server process (its own process group) is
   started before, waited for until it accepts connections, and stopped after (SIGTERM,
   then SIGKILL), and the run checks that nothing of its process group is left.

   modern-server         tests/interop/modern_server.mjs, a server written on the official
                         TypeScript SDK v2 (@modelcontextprotocol/server 2.4.0), which serves
                         protocol 2026-07-28 (stateless: per-request _meta, server/discover,
                         input_required) and, from the same handlers, the 2025 era. Over stdio
                         (`node modern_server.mjs stdio`) and Streamable HTTP (`... http` with
                         PORT, started and stopped like server-everything's), with
                         desc.protocol_version NULL: the probe must find 2026-07-28. Checked:
                         the era and version, server info from server/discover, tools/list,
                         echo, add (text and structuredContent), a refused argument, a tool
                         called before tools/list (x-mcp-header), resources (list, templates,
                         read static and templated, a URI outside ASCII, not found = -32602),
                         prompts (list, get, a missing argument), elicitation through
                         input_required with on_request (accept with content: the tool's
                         result shows the answer; decline; two rounds with requestState; an
                         answer given later, outside the callback; an error reply), progress
                         and log notifications (log level in _meta), cancellation (the tool
                         sees it), Mcp-Param-* values (ASCII, Base64 sentinel), and from the
                         server's side that no request was served in the legacy era. Then the
                         same server again with the client pinned to 2025-11-25 (initialize;
                         the SDK answers input_required handlers with real elicitation/create
                         requests on stdio; its 2025 HTTP serving is stateless, so there the
                         elicitation, log level and cancellation are not checked).
                         Then its tasks, over stdio and Streamable HTTP (a server of its own,
                         MODERN_SERVER_TASKS=1): the SDK has no tasks of its own, and the
                         script builds the 2026-07-28 extension on what it has (resultType
                         "task", tasks/get, tasks/update, tasks/cancel handlers; Mcp-Name
                         checked on HTTP): research through mcp_client_call_tool, non-blocking
                         with its clarification (inputRequests answered by tasks/update),
                         attach (done, and an unknown id), cancel in the middle (the server's
                         handler runs), and desc.no_tasks (not declared: answered at once).

   host                  one mcp_host (>>host, issue 18) with server-everything over stdio,
                         Streamable HTTP and HTTP+SSE (its two HTTP servers started as above),
                         server-memory over stdio and a command that does not exist: the
                         states (four READY, the missing one FAILED with MCP_ERR_IO naming it),
                         the union of their tools under qualified names (sorted, valid), a
                         call routed to each, and after mcp_host_free no fd, no child, nothing
                         of their process groups left. Only when every transport is wanted.

   Usage: interop [INTEROP_DIR]   INTEROP_DIR holds node_modules and modern_server.mjs
                                  (default: tests/interop).
   Environment: INTEROP_VERBOSE=1 prints every stderr line, log line and notification (and
   the HTTP servers' own output); INTEROP_TRANSPORTS="stdio streamableHttp sse" picks which
   server-everything and modern-server runs are done (default: all); INTEROP_ONLY=host runs the
   host section alone.
   Prints one count line per server and transport and "N passed, N failed" last; exits 1 on
   any failure. */
#define _POSIX_C_SOURCE 200809L
#define MCP_IMPLEMENTATION
#include "../../mcp.h"

#include <arpa/inet.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
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
#ifdef __linux__
#include <sys/prctl.h>
#endif

/* ---- checks ----------------------------------------------------------------------------------- */

static int passed, failed;            /* all servers */
static int s_passed, s_failed;        /* the current server */
static int verbose;

static void check(int ok, int line, const char *fmt, ...)
{
    va_list ap;
    printf("  %s ", ok ? "ok  " : "FAIL");
    va_start(ap, fmt);
    vprintf(fmt, ap);
    va_end(ap);
    if (!ok) printf("  (interop.c:%d)", line);
    printf("\n");
    if (ok) { passed++; s_passed++; } else { failed++; s_failed++; }
}
#define CHECK(cond, ...) check(!!(cond), __LINE__, __VA_ARGS__)

static const char *nn(const char *s) { return s ? s : "(null)"; }

/* ---- what the callbacks saw ------------------------------------------------------------------ */

#define MAX_SEEN 64
typedef struct seen {
    char method[96];
    int count;
} seen;

static struct {
    const char *name;                   /* server label for printing */
    seen notes[MAX_SEEN]; int nnotes;   /* notifications by method */
    char logs[32][256]; int nlogs;      /* notifications/message: "level: data" */
    int roots_asked, sampling_asked, elicitation_asked, other_asked;
    const char *roots_json;             /* what roots/list answers */
    int stderr_lines, log_lines;
    int closed;
    int modern_instances, legacy_instances;   /* modern_server.mjs says so on stderr */
    int slow_cancelled;                 /* ... and when its slow tool was cancelled */
    double progress_last, progress_total; int progress_count;
    long long sub_id; int sub_notes;    /* the last subscriptionId in _meta; how many carried one */
    char ack[256];                      /* the filter notifications/subscriptions/acknowledged gave */
    int research_asked;                 /* simulate-research-query's clarification (elicitation) */
    int late_ok;                        /* late answers seen after a cancelled task: its tasks/get in
                                           flight then (the answer to tasks/cancel is dropped quietly) */
    int late_more;                      /* ... and one may still come after that was counted */
} st;

static void reset_state(const char *name)
{
    memset(&st, 0, sizeof st);
    st.name = name;
    s_passed = s_failed = 0;
}

static int log_has(int from, const char *needle)
{
    int i;
    for (i = from; i < st.nlogs; i++) if (strstr(st.logs[i], needle)) return 1;
    return 0;
}

static int note_count(const char *method)
{
    int i;
    for (i = 0; i < st.nnotes; i++) if (!strcmp(st.notes[i].method, method)) return st.notes[i].count;
    return 0;
}

static void on_notification(void *user, mcp_client *c, const char *method, const mcp_json *params)
{
    int i;
    (void)user; (void)c;
    for (i = 0; i < st.nnotes; i++) if (!strcmp(st.notes[i].method, method)) break;
    if (i == st.nnotes && st.nnotes < MAX_SEEN) {
        snprintf(st.notes[i].method, sizeof st.notes[i].method, "%s", method);
        st.nnotes++;
    }
    if (i < MAX_SEEN) st.notes[i].count++;
    {   /* 2026-07-28 subscriptions: which listen request each notification belongs to */
        const mcp_json *sid = mcp_json_get(mcp_json_get(params, "_meta"), "io.modelcontextprotocol/subscriptionId");
        int64_t v;
        if (sid && mcp_json_int64(sid, &v)) { st.sub_id = (long long)v; st.sub_notes++; }
        if (!strcmp(method, "notifications/subscriptions/acknowledged")) {
            char *f = mcp_json_dump(mcp_json_get(params, "notifications"), 0, NULL);
            snprintf(st.ack, sizeof st.ack, "%s", nn(f));
            mcp_free(f);
        }
    }
    if (!strcmp(method, "notifications/message") && st.nlogs < 32) {
        const mcp_json *data = mcp_json_get(params, "data");
        char *dumped = NULL;
        const char *text = mcp_json_str(data);
        if (!text) text = dumped = mcp_json_dump(data, 0, NULL);
        snprintf(st.logs[st.nlogs], sizeof st.logs[0], "%s: %s",
                 nn(mcp_json_str(mcp_json_get(params, "level"))), nn(text));
        mcp_free(dumped);
        st.nlogs++;
    }
    if (verbose) {
        char *p = mcp_json_dump(params, 0, NULL);
        printf("    [%s notification] %s %.200s\n", st.name, method, nn(p));
        mcp_free(p);
    }
}

static void on_request(void *user, mcp_client *c, mcp_request *req)
{
    const char *m = mcp_request_method(req);
    mcp_error err;
    (void)user; (void)c;
    if (verbose) printf("    [%s request] %s\n", st.name, m);
    if (!strcmp(m, "roots/list")) {
        st.roots_asked++;
        if (mcp_request_reply(req, st.roots_json ? st.roots_json : "{\"roots\":[]}", &err) != MCP_OK)
            printf("    roots/list reply failed: %s\n", err.message);
    } else if (!strcmp(m, "sampling/createMessage")) {
        st.sampling_asked++;
        mcp_request_reply(req, "{\"role\":\"assistant\",\"content\":{\"type\":\"text\","
                          "\"text\":\"forty-two, from mcp.h\"},\"model\":\"mcp.h-canned\","
                          "\"stopReason\":\"endTurn\"}", NULL);
    } else if (!strcmp(m, "elicitation/create") &&
               strstr(nn(mcp_json_str(mcp_json_get(mcp_request_params(req), "message"))), "research query")) {
        st.research_asked++;              /* simulate-research-query, through tasks/result (tasks below) */
        mcp_request_reply(req, "{\"action\":\"accept\",\"content\":{\"interpretation\":\"snake\"}}", NULL);
    } else if (!strcmp(m, "elicitation/create")) {
        st.elicitation_asked++;
        mcp_request_reply(req, "{\"action\":\"accept\",\"content\":{\"name\":\"Ada Lovelace\","
                          "\"check\":true,\"email\":\"ada@example.com\"}}", NULL);
    } else {
        st.other_asked++;
        mcp_request_reply_error(req, -32601, "Method not found", NULL);
    }
}

static void on_stderr(void *user, mcp_client *c, const char *line, size_t len)
{
    char line_z[256];
    (void)user; (void)c;
    st.stderr_lines++;
    snprintf(line_z, sizeof line_z, "%.*s", (int)(len < sizeof line_z ? len : sizeof line_z - 1), line);
    if (strstr(line_z, "] new modern instance")) st.modern_instances++;
    if (strstr(line_z, "] new legacy instance")) st.legacy_instances++;
    if (strstr(line_z, "] slow: request ") && strstr(line_z, " cancelled")) st.slow_cancelled++;
    if (verbose || st.stderr_lines <= 3)
        printf("    [%s stderr] %.*s\n", st.name, (int)(len > 200 ? 200 : len), line);
}

static void on_log(void *user, mcp_client *c, const char *message)
{
    (void)user; (void)c;
    st.log_lines++;
    printf("    [%s mcp.h log] %s\n", st.name, message);
}

static void on_close(void *user, mcp_client *c, const mcp_error *why)
{
    (void)user; (void)c;
    st.closed++;
    if (verbose) printf("    [%s closed] %s\n", st.name, why ? why->message : "");
}

/* Polls until cond holds or ms pass. */
#define WAIT_UNTIL(c, cond, ms)                                                          \
    do {                                                                                \
        int64_t end_ = mcp_time_ms() + (ms);                                            \
        while (!(cond) && mcp_time_ms() < end_)                                         \
            if (mcp_client_poll((c), 20) == MCP_ERR_CLOSED) break;                      \
    } while (0)

/* ---- result helpers ------------------------------------------------------------------------- */

/* The text blocks of a tools/call or prompts/get result, joined by newlines, in buf. */
static const char *content_text(const mcp_json *content, char *buf, size_t n)
{
    size_t i, used = 0;
    const mcp_json *item;
    buf[0] = 0;
    mcp_json_foreach(content, i, item) {
        const char *t = mcp_json_str(mcp_json_get(item, "text"));
        const mcp_json *inner = mcp_json_get(item, "content");     /* prompt messages */
        if (!t && inner) t = mcp_json_str(mcp_json_get(inner, "text"));
        if (!t) continue;
        used += (size_t)snprintf(buf + used, n - used, "%s%s", used ? "\n" : "", t);
        if (used >= n) { used = n - 1; break; }
    }
    return buf;
}

static const char *tool_text(const mcp_json_doc *doc, char *buf, size_t n)
{
    return content_text(mcp_json_get(mcp_json_root(doc), "content"), buf, n);
}

/* 1 if the array has an item whose `key` is the string want. */
static int has_named(const mcp_json *arr, const char *key, const char *want)
{
    size_t i;
    const mcp_json *item;
    mcp_json_foreach(arr, i, item) {
        const char *s = mcp_json_str(mcp_json_get(item, key));
        if (s && !strcmp(s, want)) return 1;
    }
    return 0;
}

static void print_names(const char *what, const mcp_json *arr, const char *key)
{
    size_t i, col;
    const mcp_json *item;
    printf("    %s (%lu):", what, (unsigned long)mcp_json_len(arr));
    col = strlen(what) + 12;
    mcp_json_foreach(arr, i, item) {
        const char *s = nn(mcp_json_str(mcp_json_get(item, key)));
        if (col + strlen(s) + 2 > 100) { printf("\n     "); col = 5; }
        printf(" %s%s", s, mcp_json_at(arr, i + 1) ? "," : "");
        col += strlen(s) + 2;
    }
    printf("\n");
}

/* ---- files ------------------------------------------------------------------------------------ */

static int write_file(const char *dir, const char *name, const char *text)
{
    char path[1024];
    FILE *f;
    snprintf(path, sizeof path, "%s/%s", dir, name);
    if (!(f = fopen(path, "w"))) return 0;
    fputs(text, f);
    return fclose(f) == 0;
}

static char *read_whole(const char *path)
{
    FILE *f = fopen(path, "rb");
    char *b;
    long n;
    if (!f) return NULL;
    fseek(f, 0, SEEK_END); n = ftell(f); fseek(f, 0, SEEK_SET);
    if (n < 0 || !(b = (char *)malloc((size_t)n + 1))) { fclose(f); return NULL; }
    n = (long)fread(b, 1, (size_t)n, f);
    b[n] = 0;
    fclose(f);
    return b;
}

static void rm_tree(const char *path)
{
    struct stat sb;
    DIR *d;
    struct dirent *e;
    char sub[2048];
    if (lstat(path, &sb) < 0) return;
    if (S_ISDIR(sb.st_mode) && (d = opendir(path)) != NULL) {
        while ((e = readdir(d)) != NULL) {
            if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, "..")) continue;
            snprintf(sub, sizeof sub, "%s/%s", path, e->d_name);
            rm_tree(sub);
        }
        closedir(d);
        rmdir(path);
    } else {
        unlink(path);
    }
}

static int file_exists(const char *path)
{
    struct stat sb;
    return stat(path, &sb) == 0;
}

/* ---- one server ------------------------------------------------------------------------------- */

static char interop_dir[1024];

static void entry_point(const char *pkg, char *out, size_t n)
{
    snprintf(out, n, "%s/node_modules/@modelcontextprotocol/%s/dist/index.js", interop_dir, pkg);
}

static void base_desc(mcp_client_desc *d, const char *const *args)
{
    memset(d, 0, sizeof *d);
    d->transport = MCP_STDIO;
    d->command = "node";
    d->args = args;
    d->client_name = "mcp.h-interop";
    d->client_version = "0.1";
    d->timeout_ms = 20000;
    d->on_notification = on_notification;
    d->on_stderr = on_stderr;
    d->on_log = on_log;
    d->on_close = on_close;
}

/* Connects and prints what the server says about itself; NULL on failure (counted). The
   negotiated version must be want: what desc.protocol_version NULL settles on with that server
   (2026-07-28 with a modern one, 2025-11-25 after the fallback to initialize), or the pin. */
static mcp_client *start_version(const mcp_client_desc *d, const char *want)
{
    mcp_error err;
    mcp_client *c = mcp_client_new(d, &err);
    const mcp_json *info;
    const char *instr;
    int64_t t0 = mcp_time_ms();
    mcp_status s;
    CHECK(c != NULL, "mcp_client_new: %s", c ? "ok" : err.message);
    if (!c) return NULL;
    s = mcp_client_connect(c, &err);
    CHECK(s == MCP_OK, "connect: %s (%lld ms)", s == MCP_OK ? "handshake done" : err.message,
          (long long)(mcp_time_ms() - t0));
    if (s != MCP_OK) { mcp_client_free(c); return NULL; }
    info = mcp_client_server_info(c);
    instr = mcp_client_instructions(c);
    printf("    server: %s %s (title: %s), protocol version %s, instructions: %lu bytes\n",
           nn(mcp_json_str(mcp_json_get(info, "name"))), nn(mcp_json_str(mcp_json_get(info, "version"))),
           nn(mcp_json_str(mcp_json_get(info, "title"))), nn(mcp_client_protocol_version(c)),
           (unsigned long)(instr ? strlen(instr) : 0));
    {
        char *caps = mcp_json_dump(mcp_client_server_capabilities(c), 0, NULL);
        printf("    capabilities: %s\n", nn(caps));
        mcp_free(caps);
    }
    CHECK(mcp_json_str(mcp_json_get(info, "name")) != NULL, "serverInfo has a name");
    CHECK(mcp_client_protocol_version(c) != NULL && !strcmp(mcp_client_protocol_version(c), want),
          "negotiated protocol version %s (%s %s)", nn(mcp_client_protocol_version(c)),
          d->protocol_version ? "pinned to" : "expected", want);
    return c;
}

/* The reference servers of 2026.8.31 speak the initialize era: the server/discover probe fails
   and the client falls back to initialize, offering 2025-11-25. */
static mcp_client *start(const mcp_client_desc *d)
{
    return start_version(d, "2025-11-25");
}

static void finish(mcp_client *c)
{
    int64_t t0 = mcp_time_ms();
    mcp_client_stats stats;
    mcp_status s;
    memset(&stats, 0, sizeof stats);     /* mcp_client_get_stats leaves it untouched for a NULL client */
    mcp_client_get_stats(c, &stats);
    s = mcp_client_close(c);
    CHECK(s == MCP_OK && st.closed == 1, "close: status %s, on_close fired %d time(s), %lld ms",
          mcp_status_str(s), st.closed, (long long)(mcp_time_ms() - t0));
    CHECK(stats.dropped == 0 && stats.unknown_ids >= (uint64_t)st.late_ok &&
          stats.unknown_ids <= (uint64_t)(st.late_ok + st.late_more),
          "nothing dropped: %llu messages sent, %llu received, %llu dropped, %llu unknown ids%s, "
          "%llu stderr bytes", (unsigned long long)stats.sent, (unsigned long long)stats.received,
          (unsigned long long)stats.dropped, (unsigned long long)stats.unknown_ids,
          st.late_ok ? " (a late tasks/get answer after a cancel among them)" : "", (unsigned long long)stats.stderr_bytes);
    mcp_client_free(c);
}

static void count_line(void)
{
    printf("%s: %d passed, %d failed\n\n", st.name, s_passed, s_failed);
}

/* A tool call that must succeed; its text goes to buf. Returns the document or NULL. */
static mcp_json_doc *call_ok(mcp_client *c, const char *tool, const char *args, char *buf, size_t n)
{
    mcp_error err;
    mcp_json_doc *doc = NULL;
    mcp_status s = mcp_client_call_tool(c, tool, args, &doc, &err);
    buf[0] = 0;
    if (s != MCP_OK) {
        CHECK(0, "tools/call %s: %s", tool, err.message);
        return NULL;
    }
    tool_text(doc, buf, n);
    if (mcp_json_is_true(mcp_json_get(mcp_json_root(doc), "isError"))) {
        CHECK(0, "tools/call %s returned isError: %.300s", tool, buf);
        mcp_json_free(doc);
        return NULL;
    }
    return doc;
}

/* ---- server-everything -------------------------------------------------------------------- */

static void on_progress(void *user, mcp_call *call, double progress, double total, const char *message)
{
    (void)user; (void)call; (void)message;
    st.progress_count++;
    st.progress_last = progress;
    st.progress_total = total;
}

/* ---- server-everything's tasks (2025-11-25) ------------------------------------------------ */

/* What on_task saw of one call */
typedef struct task_seen {
    int n, working, input, completed;
    char first[160], last[160];
} task_seen;

static void on_task(void *user, mcp_call *call, const char *task_id, const char *status, const char *message)
{
    task_seen *t = (task_seen *)user;
    (void)call;
    t->n++;
    if (!strcmp(status, "working")) t->working++;
    if (!strcmp(status, "input_required")) t->input++;
    if (!strcmp(status, "completed")) t->completed++;
    snprintf(t->last, sizeof t->last, "%s: %s", status, nn(message));
    if (t->n == 1) snprintf(t->first, sizeof t->first, "%s: %s", status, nn(message));
    if (verbose) printf("    [%s task %s] %s: %s\n", st.name, task_id, status, nn(message));
}

/* The first line of a text, in place */
static const char *line1(char *text)
{
    char *nl = strchr(text, '\n');
    if (nl) *nl = 0;
    return text;
}

static const mcp_json *task_in(const mcp_json *tasks, const char *id)
{
    size_t i;
    const mcp_json *t;
    mcp_json_foreach(tasks, i, t)
        if (id && !strcmp(nn(mcp_json_str(mcp_json_get(t, "taskId"))), id)) return t;
    return NULL;
}

/* simulate-research-query declares execution.taskSupport "required" (four stages of a second;
   with "ambiguous": true it asks for a clarification with elicitation/create, which the SDK
   sends while tasks/result is open): three calls at once through the non-blocking API (one
   completes, one is cancelled in the middle, one is answered), one blocking call, the listing
   of the server's tasks, and an attach to a finished one. */
static void everything_tasks(mcp_client *c)
{
    static const char *const async_tools[] = { "trigger-sampling-request-async", "trigger-elicitation-request-async", NULL };
    mcp_json_doc *doc;
    mcp_error err;
    mcp_status s;
    mcp_call_opts o[3];
    task_seen seen3[3], one;
    mcp_call *call[3];
    const char *argv3[3] = { "{\"topic\":\"cats\"}", "{\"topic\":\"dogs\"}", "{\"topic\":\"python\",\"ambiguous\":true}" };
    char ids[4][128], text[8192];
    const mcp_json *arr, *tool;
    int i, agains = 0, cancelled = 0;
    int64_t t0, end;
    size_t k;
    mcp_client_stats before, after;

    mcp_client_get_stats(c, &before);

    /* which tools are tasks */
    s = mcp_client_list_tools(c, &doc, &err);
    if (s == MCP_OK) {
        int listed = 0, forbidden = 0;
        arr = mcp_json_get(mcp_json_root(doc), "tools");
        printf("    taskSupport:");
        mcp_json_foreach(arr, k, tool) {
            const char *ts = mcp_json_str(mcp_json_get(mcp_json_get(tool, "execution"), "taskSupport"));
            if (ts && strcmp(ts, "forbidden")) printf(" %s (%s)", nn(mcp_json_str(mcp_json_get(tool, "name"))), ts);
            else forbidden++;
        }
        printf("; %d other tool(s) forbidden or unset\n", forbidden);
        for (i = 0; async_tools[i]; i++) listed += has_named(arr, "name", async_tools[i]);
        mcp_json_foreach(arr, k, tool)
            if (!strcmp(nn(mcp_json_str(mcp_json_get(tool, "name"))), "simulate-research-query"))
                CHECK(!strcmp(nn(mcp_json_str(mcp_json_get(mcp_json_get(tool, "execution"), "taskSupport"))), "required"),
                      "simulate-research-query: execution.taskSupport \"required\"");
        CHECK(listed == 0, "the -async tools (the client would run the server's requests as tasks: a client tasks "
              "capability, which mcp.h does not declare) are not offered (%d listed)", listed);
        mcp_json_free(doc);
    } else CHECK(0, "tools/list: %s", err.message);

    /* three at once: non-blocking */
    memset(seen3, 0, sizeof seen3);
    memset(ids, 0, sizeof ids);
    t0 = mcp_time_ms();
    for (i = 0; i < 3; i++) {
        memset(&o[i], 0, sizeof o[i]);
        o[i].on_task = on_task;
        o[i].user = &seen3[i];
        call[i] = mcp_client_send_tool(c, "simulate-research-query", argv3[i], &o[i], &err);
        CHECK(call[i] != NULL, "simulate-research-query %s sent: %s", argv3[i], call[i] ? "ok" : err.message);
    }
    if (!call[0] || !call[1] || !call[2]) {
        for (i = 0; i < 3; i++) mcp_call_free(call[i]);
        return;
    }
    end = mcp_time_ms() + 30000;
    while ((mcp_call_status(call[0]) == MCP_AGAIN || mcp_call_status(call[2]) == MCP_AGAIN) && mcp_time_ms() < end) {
        if (mcp_call_status(call[0]) == MCP_AGAIN) agains++;
        if (!cancelled && seen3[1].working >= 2) {      /* "dogs" is in its second stage: cancel it */
            snprintf(ids[1], sizeof ids[1], "%s", nn(mcp_call_task_id(call[1])));
            s = mcp_call_cancel(call[1], "interop: cancelled in the middle");
            mcp_call_result(call[1], NULL, &err);
            CHECK(s == MCP_OK && mcp_call_status(call[1]) == MCP_ERR_CANCELLED && strstr(err.message, ids[1]),
                  "cancel in the middle (%s): \"%s\"", seen3[1].last, err.message);
            cancelled = 1;
        }
        if (mcp_client_poll(c, 50) == MCP_ERR_CLOSED) break;
    }
    CHECK(cancelled, "the cancelled call reached its second stage first (%d working statuses)", seen3[1].working);
    for (i = 0; i < 3; i += 2) snprintf(ids[i], sizeof ids[i], "%s", nn(mcp_call_task_id(call[i])));
    s = mcp_call_result(call[0], &doc, &err);
    if (s == MCP_OK) tool_text(doc, text, sizeof text);
    CHECK(s == MCP_OK && !strncmp(text, "# Research Report: cats", 23),
          "non-blocking: completed after %.1f s and %d polls that said MCP_AGAIN: \"%s\"",
          (double)(mcp_time_ms() - t0) / 1000.0, agains, s == MCP_OK ? line1(text) : err.message);
    if (s == MCP_OK) mcp_json_free(doc);
    CHECK(agains > 10 && seen3[0].working >= 4 && seen3[0].completed == 1,
          "on_task: %d statuses (%d working, from \"%s\" to \"%s\")", seen3[0].n, seen3[0].working, seen3[0].first,
          seen3[0].last);
    s = mcp_call_result(call[2], &doc, &err);
    if (s == MCP_OK) tool_text(doc, text, sizeof text);
    i = s == MCP_OK && strstr(text, "# Research Report: python (snake)") && strstr(text, "**Clarification**: snake");
    CHECK(i,
          "ambiguous: the clarification answered (elicitation/create x%d, on_task input_required x%d) is in the "
          "report: \"%s\"", st.research_asked, seen3[2].input, s == MCP_OK ? line1(text) : err.message);
    if (s == MCP_OK) mcp_json_free(doc);
    CHECK(st.research_asked == 1 && seen3[2].input >= 1, "one clarification asked, seen as input_required");
    for (i = 0; i < 3; i++) mcp_call_free(call[i]);

    /* blocking */
    t0 = mcp_time_ms();
    memset(&one, 0, sizeof one);
    s = mcp_client_call_tool(c, "simulate-research-query", "{\"topic\":\"mcp.h\"}", &doc, &err);
    if (s == MCP_OK) tool_text(doc, text, sizeof text);
    CHECK(s == MCP_OK && !strncmp(text, "# Research Report: mcp.h", 24),
          "mcp_client_call_tool: completed after %.1f s: \"%s\"", (double)(mcp_time_ms() - t0) / 1000.0,
          s == MCP_OK ? line1(text) : err.message);
    if (s == MCP_OK) mcp_json_free(doc);

    /* tasks/list: ours are there, the cancelled one cancelled */
    s = mcp_client_list_tasks(c, &doc, &err);
    if (s == MCP_OK) {
        arr = mcp_json_get(mcp_json_root(doc), "tasks");
        printf("    tasks/list: %lu task(s):", (unsigned long)mcp_json_len(arr));
        mcp_json_foreach(arr, k, tool) printf(" %s", nn(mcp_json_str(mcp_json_get(tool, "status"))));
        printf("\n");
        CHECK(task_in(arr, ids[0]) && task_in(arr, ids[2]) &&
              !strcmp(nn(mcp_json_str(mcp_json_get(task_in(arr, ids[0]), "status"))), "completed"),
              "tasks/list has the completed tasks (%s)", ids[0]);
        CHECK(!strcmp(nn(mcp_json_str(mcp_json_get(task_in(arr, ids[1]), "status"))), "cancelled"),
              "tasks/list: the task cancelled in the middle is \"%s\"",
              nn(mcp_json_str(mcp_json_get(task_in(arr, ids[1]), "status"))));
        mcp_json_free(doc);
    } else CHECK(0, "tasks/list: %s", err.message);

    /* attach to a finished task: its result again */
    memset(&one, 0, sizeof one);
    memset(&o[0], 0, sizeof o[0]);
    o[0].on_task = on_task;
    o[0].user = &one;
    call[0] = mcp_client_attach_task(c, ids[0], &o[0], &err);
    if (call[0]) {
        mcp_call_wait(call[0], 10000);
        s = mcp_call_result(call[0], &doc, &err);
        if (s == MCP_OK) tool_text(doc, text, sizeof text);
        CHECK(s == MCP_OK && !strncmp(text, "# Research Report: cats", 23),
              "mcp_client_attach_task to the finished task: \"%s\" (on_task: %s)", s == MCP_OK ? line1(text) : err.message,
              one.last);
        if (s == MCP_OK) mcp_json_free(doc);
        mcp_call_free(call[0]);
    } else CHECK(0, "mcp_client_attach_task: %s", err.message);
    call[0] = mcp_client_attach_task(c, "no-such-task", NULL, &err);
    if (call[0]) {
        mcp_call_wait(call[0], 10000);
        s = mcp_call_result(call[0], NULL, &err);
        CHECK(s == MCP_ERR_RPC && strstr(err.message, "no-such-task"), "attach to an unknown id: %s", err.message);
        mcp_call_free(call[0]);
    } else CHECK(0, "mcp_client_attach_task: %s", err.message);
    /* the answer to tasks/cancel is expected and dropped quietly; a tasks/get of the cancelled
       call, when one was in flight then, is answered late: mcp.h counts it in stats.unknown_ids */
    mcp_client_get_stats(c, &after);
    st.late_ok = (int)(after.unknown_ids - before.unknown_ids);
    st.late_more = 1;
    CHECK(st.late_ok >= 0 && st.late_ok <= 1 && after.dropped == before.dropped,
          "late answers ignored: %d (a tasks/get in flight at the cancel; tasks/cancel's own is quiet)", st.late_ok);
}

/* The checks against server-everything, over the transport `kind`: stdio (we spawn it, url is
   NULL) or MCP_HTTP / MCP_SSE to the server at url, which was started with MCP_INTEROP_MARK
   in its environment. The caller resets the counts before and prints them after. */
static void everything(const char *tmpdir, const char *label, mcp_transport_kind kind, const char *url)
{
    char entry[1200], text[8192], roots1[1400], roots2[2800], uri1[1100], uri2[1100];
    const char *args[3], *env[2];
    mcp_client_desc d;
    mcp_client *c;
    mcp_json_doc *doc;
    mcp_error err;
    mcp_status s;
    const mcp_json *arr;
    int n0, logs0;

    (void)label;
    if (url) printf("    %s at %s\n", kind == MCP_SSE ? "MCP_SSE" : "MCP_HTTP", url);
    entry_point("server-everything", entry, sizeof entry);
    args[0] = entry; args[1] = "stdio"; args[2] = NULL;
    base_desc(&d, args);
    env[0] = "MCP_INTEROP_MARK=set by desc.env"; env[1] = NULL;
    d.env = env;
    if (kind != MCP_STDIO) {
        d.transport = kind;
        d.command = NULL; d.args = NULL; d.env = NULL;
        d.url = url;
        d.http_listen = 1;               /* Streamable HTTP: the server's own requests and
                                            notifications (roots/list, logging) come on the GET stream */
    }
    d.on_request = on_request;
    d.capabilities = MCP_CAP_ROOTS | MCP_CAP_ROOTS_LIST_CHANGED | MCP_CAP_SAMPLING | MCP_CAP_ELICITATION;
    snprintf(uri1, sizeof uri1, "file://%s", tmpdir);
    snprintf(uri2, sizeof uri2, "file://%s/second", tmpdir);
    snprintf(roots1, sizeof roots1, "{\"roots\":[{\"uri\":\"%s\",\"name\":\"interop-root\"}]}", uri1);
    snprintf(roots2, sizeof roots2, "{\"roots\":[{\"uri\":\"%s\",\"name\":\"interop-root\"},"
             "{\"uri\":\"%s\",\"name\":\"second-root\"}]}", uri1, uri2);
    st.roots_json = roots1;
    if (!(c = start(&d))) return;

    /* logging first, so that the roots log line below is not filtered */
    s = mcp_client_set_log_level(c, "debug", &err);
    CHECK(s == MCP_OK, "logging/setLevel debug: %s", s == MCP_OK ? "ok" : err.message);

    /* roots: the server asks about 350 ms after notifications/initialized, then logs the count */
    WAIT_UNTIL(c, st.roots_asked >= 1 && log_has(0, "root(s) received"), 5000);
    CHECK(st.roots_asked == 1, "the server asked roots/list after initialize (%d time(s))", st.roots_asked);
    CHECK(log_has(0, "Roots updated: 1 root(s) received from client"),
          "our roots/list answer got through: the server logged \"%s\"", st.nlogs ? st.logs[0] : "(nothing)");

    /* list_changed: registering the capability-dependent tools after initialize announces them.
       Over Streamable HTTP the server sends it while it handles notifications/initialized,
       on the GET stream that no client can have opened by then (the TypeScript SDK's client
       opens it after the 202 to that notification): it is lost there, whoever the client.
       The resources/list_changed of gzip-file-as-resource below is checked everywhere. */
    if (kind != MCP_HTTP)
        CHECK(note_count("notifications/tools/list_changed") >= 1,
              "notifications/tools/list_changed after initialize (%d received)",
              note_count("notifications/tools/list_changed"));
    else
        printf("    (notifications/tools/list_changed after initialize: %d received; not checked over "
               "Streamable HTTP, where the server sends it before a GET stream can be open)\n",
               note_count("notifications/tools/list_changed"));

    /* tools */
    s = mcp_client_list_tools(c, &doc, &err);
    CHECK(s == MCP_OK, "tools/list: %s", s == MCP_OK ? "ok" : err.message);
    if (s == MCP_OK) {
        arr = mcp_json_get(mcp_json_root(doc), "tools");
        print_names("tools", arr, "name");
        CHECK(mcp_json_len(arr) >= 13, "at least 13 tools (%lu)", (unsigned long)mcp_json_len(arr));
        CHECK(has_named(arr, "name", "echo") && has_named(arr, "name", "get-sum") &&
              has_named(arr, "name", "get-roots-list") && has_named(arr, "name", "trigger-sampling-request") &&
              has_named(arr, "name", "trigger-elicitation-request"),
              "echo, get-sum and the roots, sampling and elicitation tools are listed");
        mcp_json_free(doc);
    }

    if ((doc = call_ok(c, "echo", "{\"message\":\"hello from mcp.h \\u00e9\\u4e16\"}", text, sizeof text))) {
        CHECK(!strcmp(text, "Echo: hello from mcp.h \xc3\xa9\xe4\xb8\x96"), "echo: \"%s\"", text);
        mcp_json_free(doc);
    }
    if ((doc = call_ok(c, "get-sum", "{\"a\":2,\"b\":40}", text, sizeof text))) {
        CHECK(!strcmp(text, "The sum of 2 and 40 is 42."), "get-sum {a:2,b:40}: \"%s\"", text);
        mcp_json_free(doc);
    }
    if ((doc = call_ok(c, "get-sum", "{\"a\":1.5,\"b\":-0.25}", text, sizeof text))) {
        CHECK(strstr(text, "is 1.25.") != NULL, "get-sum {a:1.5,b:-0.25}: \"%s\"", text);
        mcp_json_free(doc);
    }
    s = mcp_client_call_tool(c, "get-sum", "{\"a\":\"two\",\"b\":40}", &doc, &err);
    CHECK((s == MCP_OK && mcp_json_is_true(mcp_json_get(mcp_json_root(doc), "isError"))) || s == MCP_ERR_RPC,
          "get-sum with a string argument is refused (%s%s)", s == MCP_OK ? "isError: " : "",
          s == MCP_OK ? tool_text(doc, text, 160) : err.message);
    if (s == MCP_OK) mcp_json_free(doc);
    s = mcp_client_call_tool(c, "no-such-tool", "{}", &doc, &err);
    CHECK((s == MCP_OK && mcp_json_is_true(mcp_json_get(mcp_json_root(doc), "isError"))) || s == MCP_ERR_RPC,
          "an unknown tool is refused (%s)", s == MCP_OK ? tool_text(doc, text, 160) : err.message);
    if (s == MCP_OK) mcp_json_free(doc);
    if ((doc = call_ok(c, "get-structured-content", "{\"location\":\"New York\"}", text, sizeof text))) {
        const mcp_json *sc = mcp_json_get(mcp_json_root(doc), "structuredContent");
        CHECK(mcp_json_typeof(sc) == MCP_JSON_OBJECT && mcp_json_len(sc) > 0,
              "get-structured-content has structuredContent with %lu members", (unsigned long)mcp_json_len(sc));
        mcp_json_free(doc);
    }

    /* progress: a call with on_progress gets a progressToken; the server reports each step */
    {
        mcp_call_opts o;
        mcp_call *call;
        memset(&o, 0, sizeof o);
        o.on_progress = on_progress;
        call = mcp_client_send_tool(c, "trigger-long-running-operation", "{\"duration\":0.6,\"steps\":3}", &o, &err);
        CHECK(call != NULL, "trigger-long-running-operation sent: %s", call ? "ok" : err.message);
        if (call) {
            mcp_call_wait(call, 10000);
            s = mcp_call_result(call, &doc, &err);
            CHECK(s == MCP_OK && strstr(tool_text(doc, text, sizeof text), "completed"),
                  "trigger-long-running-operation: \"%s\"", s == MCP_OK ? text : err.message);
            CHECK(st.progress_count == 3 && st.progress_last == 3 && st.progress_total == 3,
                  "3 progress notifications reached on_progress (last %g of %g)", st.progress_last, st.progress_total);
            if (s == MCP_OK) mcp_json_free(doc);
            mcp_call_free(call);
        }
    }

    /* cancellation and timeout: the server is told (notifications/cancelled) and so never
       answers; a late answer would show up in stats.unknown_ids */
    {
        mcp_call_opts o;
        mcp_call *call;
        mcp_client_stats before, after;
        int64_t t0;
        mcp_client_get_stats(c, &before);
        call = mcp_client_send_tool(c, "trigger-long-running-operation", "{\"duration\":0.4,\"steps\":1}", NULL, &err);
        CHECK(call != NULL, "a 0.4 s operation sent: %s", call ? "ok" : err.message);
        if (call) {
            mcp_client_poll(c, 50);
            s = mcp_call_cancel(call, "interop test");
            CHECK(s == MCP_OK && mcp_call_status(call) == MCP_ERR_CANCELLED, "cancelled at once: %s",
                  mcp_status_str(mcp_call_status(call)));
            mcp_call_free(call);
        }
        memset(&o, 0, sizeof o);
        o.timeout_ms = 200;
        t0 = mcp_time_ms();
        call = mcp_client_send_tool(c, "trigger-long-running-operation", "{\"duration\":0.6,\"steps\":1}", &o, &err);
        if (call) {
            mcp_call_wait(call, 5000);
            s = mcp_call_result(call, NULL, &err);
            CHECK(s == MCP_ERR_TIMEOUT && !strcmp(err.message, "Request timeout after 200ms"),
                  "a 0.6 s operation with timeout_ms 200: \"%s\" after %lld ms", err.message,
                  (long long)(mcp_time_ms() - t0));
            mcp_call_free(call);
        } else CHECK(0, "a 0.6 s operation sent: %s", err.message);
        WAIT_UNTIL(c, 0, 900);                           /* both operations end meanwhile */
        mcp_client_get_stats(c, &after);
        CHECK(after.unknown_ids == before.unknown_ids && after.dropped == before.dropped,
              "the server honoured both notifications/cancelled: no late answer arrived");
        CHECK(mcp_client_ping(c, &err) == MCP_OK, "the session goes on (ping)");
    }

    /* desc.env reaches the server's environment; an image content block */
    if ((doc = call_ok(c, "get-env", "{}", text, sizeof text))) {
        CHECK(strstr(text, "\"MCP_INTEROP_MARK\": \"set by desc.env\"") != NULL, "get-env shows MCP_INTEROP_MARK %s",
              kind == MCP_STDIO ? "from desc.env" : "(set in the server's environment)");
        mcp_json_free(doc);
    }
    if ((doc = call_ok(c, "get-tiny-image", "{}", text, sizeof text))) {
        const mcp_json *item, *content = mcp_json_get(mcp_json_root(doc), "content");
        size_t i;
        int images = 0;
        mcp_json_foreach(content, i, item)
            if (!strcmp(nn(mcp_json_str(mcp_json_get(item, "type"))), "image") &&
                !strcmp(nn(mcp_json_str(mcp_json_get(item, "mimeType"))), "image/png") &&
                !strncmp(nn(mcp_json_str(mcp_json_get(item, "data"))), "iVBORw0KGgo", 11)) images++;
        CHECK(images == 1, "get-tiny-image: one image/png block (base64 PNG)");
        mcp_json_free(doc);
    }

    /* resources */
    s = mcp_client_list_resources(c, &doc, &err);
    CHECK(s == MCP_OK, "resources/list: %s", s == MCP_OK ? "ok" : err.message);
    if (s == MCP_OK) {
        arr = mcp_json_get(mcp_json_root(doc), "resources");
        print_names("resources", arr, "uri");
        CHECK(has_named(arr, "uri", "demo://resource/static/document/features.md"),
              "demo://resource/static/document/features.md is listed");
        mcp_json_free(doc);
    }
    s = mcp_client_list_resource_templates(c, &doc, &err);
    CHECK(s == MCP_OK, "resources/templates/list: %s", s == MCP_OK ? "ok" : err.message);
    if (s == MCP_OK) {
        arr = mcp_json_get(mcp_json_root(doc), "resourceTemplates");
        print_names("resource templates", arr, "uriTemplate");
        CHECK(has_named(arr, "uriTemplate", "demo://resource/dynamic/text/{resourceId}"),
              "demo://resource/dynamic/text/{resourceId} is a template");
        mcp_json_free(doc);
    }
    s = mcp_client_read_resource(c, "demo://resource/static/document/features.md", &doc, &err);
    if (s == MCP_OK) {
        const mcp_json *c0 = mcp_json_at(mcp_json_get(mcp_json_root(doc), "contents"), 0);
        const char *t = mcp_json_str(mcp_json_get(c0, "text"));
        CHECK(t && strlen(t) > 100 && !strcmp(nn(mcp_json_str(mcp_json_get(c0, "mimeType"))), "text/markdown"),
              "resources/read features.md: %lu bytes of %s", (unsigned long)(t ? strlen(t) : 0),
              nn(mcp_json_str(mcp_json_get(c0, "mimeType"))));
        mcp_json_free(doc);
    } else CHECK(0, "resources/read features.md: %s", err.message);
    s = mcp_client_read_resource(c, "demo://resource/dynamic/text/7", &doc, &err);
    if (s == MCP_OK) {
        const char *t = mcp_json_str(mcp_json_get(mcp_json_at(mcp_json_get(mcp_json_root(doc), "contents"), 0), "text"));
        CHECK(t && !strncmp(t, "Resource 7:", 11), "resources/read from the template: \"%.60s...\"", nn(t));
        mcp_json_free(doc);
    } else CHECK(0, "resources/read demo://resource/dynamic/text/7: %s", err.message);
    s = mcp_client_read_resource(c, "demo://no/such/thing", &doc, &err);
    CHECK(s == MCP_ERR_RPC, "resources/read of an unknown URI: %s (rpc_code %ld)", err.message, err.rpc_code);
    if (s == MCP_OK) mcp_json_free(doc);

    /* a resource made by a tool: gzip-file-as-resource registers it in the session, which
       sends notifications/resources/list_changed; the data is a data: URI (no network) */
    n0 = note_count("notifications/resources/list_changed");
    if ((doc = call_ok(c, "gzip-file-as-resource", "{\"name\":\"interop.txt.gz\",\"outputType\":\"resourceLink\","
                       "\"data\":\"data:text/plain;base64,aGVsbG8gZnJvbSBtY3AuaAo=\"}", text, sizeof text))) {
        const mcp_json *link = mcp_json_at(mcp_json_get(mcp_json_root(doc), "content"), 0);
        const char *uri = mcp_json_str(mcp_json_get(link, "uri"));
        char uribuf[256];
        snprintf(uribuf, sizeof uribuf, "%s", nn(uri));
        CHECK(!strcmp(nn(mcp_json_str(mcp_json_get(link, "type"))), "resource_link") &&
              !strcmp(uribuf, "demo://resource/session/interop.txt.gz"),
              "gzip-file-as-resource returned a resource_link to %s", uribuf);
        mcp_json_free(doc);
        WAIT_UNTIL(c, note_count("notifications/resources/list_changed") > n0, 3000);
        CHECK(note_count("notifications/resources/list_changed") > n0,
              "notifications/resources/list_changed after the new resource (%d)",
              note_count("notifications/resources/list_changed") - n0);
        s = mcp_client_list_resources(c, &doc, &err);
        CHECK(s == MCP_OK && has_named(mcp_json_get(mcp_json_root(doc), "resources"), "uri", uribuf),
              "resources/list now has %s", uribuf);
        if (s == MCP_OK) mcp_json_free(doc);
        s = mcp_client_read_resource(c, uribuf, &doc, &err);
        if (s == MCP_OK) {
            const mcp_json *c0 = mcp_json_at(mcp_json_get(mcp_json_root(doc), "contents"), 0);
            const char *blob = mcp_json_str(mcp_json_get(c0, "blob"));
            CHECK(blob && !strncmp(blob, "H4sI", 4) &&
                  !strcmp(nn(mcp_json_str(mcp_json_get(c0, "mimeType"))), "application/gzip"),
                  "resources/read of it: an application/gzip blob (base64 of a gzip stream, %lu bytes)",
                  (unsigned long)(blob ? strlen(blob) : 0));
            mcp_json_free(doc);
        } else CHECK(0, "resources/read %s: %s", uribuf, err.message);
    }

    /* subscribe, then the simulated updates tool sends resources/updated for it at once */
    n0 = note_count("notifications/resources/updated");
    s = mcp_client_subscribe(c, "demo://resource/static/document/features.md", &err);
    CHECK(s == MCP_OK, "resources/subscribe: %s", s == MCP_OK ? "ok" : err.message);
    if ((doc = call_ok(c, "toggle-subscriber-updates", "{}", text, sizeof text))) mcp_json_free(doc);
    WAIT_UNTIL(c, note_count("notifications/resources/updated") > n0, 3000);
    CHECK(note_count("notifications/resources/updated") > n0, "notifications/resources/updated received (%d)",
          note_count("notifications/resources/updated") - n0);
    if ((doc = call_ok(c, "toggle-subscriber-updates", "{}", text, sizeof text))) {
        CHECK(strstr(text, "Stopped") != NULL, "subscriber updates stopped again");
        mcp_json_free(doc);
    }
    s = mcp_client_unsubscribe(c, "demo://resource/static/document/features.md", &err);
    CHECK(s == MCP_OK, "resources/unsubscribe: %s", s == MCP_OK ? "ok" : err.message);

    /* prompts */
    s = mcp_client_list_prompts(c, &doc, &err);
    CHECK(s == MCP_OK, "prompts/list: %s", s == MCP_OK ? "ok" : err.message);
    if (s == MCP_OK) {
        arr = mcp_json_get(mcp_json_root(doc), "prompts");
        print_names("prompts", arr, "name");
        CHECK(has_named(arr, "name", "simple-prompt") && has_named(arr, "name", "args-prompt"),
              "simple-prompt and args-prompt are listed");
        mcp_json_free(doc);
    }
    s = mcp_client_get_prompt(c, "simple-prompt", NULL, &doc, &err);
    if (s == MCP_OK) {
        content_text(mcp_json_get(mcp_json_root(doc), "messages"), text, sizeof text);
        CHECK(!strcmp(text, "This is a simple prompt without arguments."), "prompts/get simple-prompt: \"%s\"", text);
        mcp_json_free(doc);
    } else CHECK(0, "prompts/get simple-prompt: %s", err.message);
    s = mcp_client_get_prompt(c, "args-prompt", "{\"city\":\"Paris\",\"state\":\"Texas\"}", &doc, &err);
    if (s == MCP_OK) {
        content_text(mcp_json_get(mcp_json_root(doc), "messages"), text, sizeof text);
        CHECK(!strcmp(text, "What's weather in Paris, Texas?"), "prompts/get args-prompt: \"%s\"", text);
        mcp_json_free(doc);
    } else CHECK(0, "prompts/get args-prompt: %s", err.message);
    s = mcp_client_complete(c, "{\"type\":\"ref/prompt\",\"name\":\"completable-prompt\"}", "name", "",
                            "{\"arguments\":{\"department\":\"Sales\"}}", &doc, &err);
    if (s == MCP_OK) {
        char *v = mcp_json_dump(mcp_json_get(mcp_json_get(mcp_json_root(doc), "completion"), "values"), 0, NULL);
        CHECK(v && !strcmp(v, "[\"David\",\"Eve\",\"Frank\"]"), "completion/complete with context: %s", nn(v));
        mcp_free(v);
        mcp_json_free(doc);
    } else CHECK(0, "completion/complete: %s", err.message);

    /* roots: the tool shows what we answered; list_changed makes the server ask again */
    if ((doc = call_ok(c, "get-roots-list", "{}", text, sizeof text))) {
        CHECK(strstr(text, uri1) && strstr(text, "(1 total)"), "get-roots-list shows our root %s", uri1);
        mcp_json_free(doc);
    }
    st.roots_json = roots2;
    logs0 = st.nlogs;
    s = mcp_client_notify(c, "notifications/roots/list_changed", NULL, &err);
    CHECK(s == MCP_OK, "notifications/roots/list_changed sent: %s", s == MCP_OK ? "ok" : err.message);
    WAIT_UNTIL(c, st.roots_asked >= 2 && log_has(logs0, "root(s) received"), 5000);
    CHECK(st.roots_asked == 2 && log_has(logs0, "Roots updated: 2 root(s) received from client"),
          "the server asked roots/list again after list_changed, and logged 2 roots");
    if ((doc = call_ok(c, "get-roots-list", "{}", text, sizeof text))) {
        CHECK(strstr(text, uri2) && strstr(text, "(2 total)"), "get-roots-list now shows both roots");
        mcp_json_free(doc);
    }

    /* server -> client requests in the middle of a tool call */
    if ((doc = call_ok(c, "trigger-sampling-request", "{\"prompt\":\"What is six times seven?\",\"maxTokens\":10}",
                       text, sizeof text))) {
        CHECK(st.sampling_asked == 1 && strstr(text, "forty-two, from mcp.h"),
              "sampling/createMessage answered inside trigger-sampling-request (%d request)", st.sampling_asked);
        mcp_json_free(doc);
    }
    if ((doc = call_ok(c, "trigger-elicitation-request", "{}", text, sizeof text))) {
        CHECK(st.elicitation_asked == 1 && strstr(text, "Ada Lovelace"),
              "elicitation/create answered inside trigger-elicitation-request");
        mcp_json_free(doc);
    }

    /* logging: the simulated logger sends one message at once (then every 5 s) */
    logs0 = st.nlogs;
    if ((doc = call_ok(c, "toggle-simulated-logging", "{}", text, sizeof text))) mcp_json_free(doc);
    WAIT_UNTIL(c, st.nlogs > logs0, 3000);
    CHECK(st.nlogs > logs0, "notifications/message from the simulated logger: \"%s\"",
          st.nlogs > logs0 ? st.logs[logs0] : "(none)");
    if ((doc = call_ok(c, "toggle-simulated-logging", "{}", text, sizeof text))) {
        CHECK(strstr(text, "Stopped") != NULL, "simulated logging stopped again");
        mcp_json_free(doc);
    }
    s = mcp_client_set_log_level(c, "emergency", &err);
    CHECK(s == MCP_OK, "logging/setLevel emergency: %s", s == MCP_OK ? "ok" : err.message);
    s = mcp_client_ping(c, &err);
    CHECK(s == MCP_OK, "ping: %s", s == MCP_OK ? "ok" : err.message);
    CHECK(st.other_asked == 0, "no unexpected request from the server (%d)", st.other_asked);

    everything_tasks(c);

    {
        int i;
        printf("    notifications received:");
        for (i = 0; i < st.nnotes; i++) printf(" %s x%d%s", st.notes[i].method, st.notes[i].count, i + 1 < st.nnotes ? "," : "");
        printf("\n    log messages:");
        for (i = 0; i < st.nlogs; i++) printf("\n      %s", st.logs[i]);
        printf("\n    requests answered: roots/list x%d, sampling/createMessage x%d, elicitation/create x%d\n",
               st.roots_asked, st.sampling_asked, st.elicitation_asked);
    }
    finish(c);
}

/* ---- server-filesystem ------------------------------------------------------------------- */

static void filesystem(const char *tmpdir)
{
    char entry[1200], dir[1100], path[1200], text[8192], argsbuf[2600];
    const char *args[3];
    mcp_client_desc d;
    mcp_client *c;
    mcp_json_doc *doc;
    mcp_error err;
    mcp_status s;
    char *disk;

    reset_state("server-filesystem");
    printf("== %s\n", st.name);
    snprintf(dir, sizeof dir, "%s/files", tmpdir);
    snprintf(path, sizeof path, "%s/gamma", dir);
    CHECK(mkdir(dir, 0700) == 0 && write_file(dir, "alpha.txt", "hello alpha\nsecond line\n") &&
          write_file(dir, "beta.md", "# beta\n") && mkdir(path, 0700) == 0,
          "test folder %s with alpha.txt, beta.md and gamma/", dir);
    entry_point("server-filesystem", entry, sizeof entry);
    args[0] = entry; args[1] = dir; args[2] = NULL;
    base_desc(&d, args);                 /* no roots: the server would replace its folders with ours */
    if (!(c = start(&d))) { count_line(); return; }

    s = mcp_client_list_tools(c, &doc, &err);
    CHECK(s == MCP_OK, "tools/list: %s", s == MCP_OK ? "ok" : err.message);
    if (s == MCP_OK) {
        const mcp_json *arr = mcp_json_get(mcp_json_root(doc), "tools");
        print_names("tools", arr, "name");
        CHECK(has_named(arr, "name", "list_directory") && has_named(arr, "name", "read_text_file") &&
              has_named(arr, "name", "write_file"), "list_directory, read_text_file and write_file are listed");
        mcp_json_free(doc);
    }
    snprintf(argsbuf, sizeof argsbuf, "{\"path\":\"%s\"}", dir);
    if ((doc = call_ok(c, "list_directory", argsbuf, text, sizeof text))) {
        const char *sc = mcp_json_str(mcp_json_get(mcp_json_get(mcp_json_root(doc), "structuredContent"), "content"));
        printf("    list_directory %s: ", dir);
        for (disk = text; *disk; disk++) if (*disk == '\n') printf(" | "); else putchar(*disk);
        printf("\n");
        CHECK(strstr(text, "[FILE] alpha.txt") && strstr(text, "[FILE] beta.md") && strstr(text, "[DIR] gamma"),
              "list_directory shows [FILE] alpha.txt, [FILE] beta.md, [DIR] gamma");
        CHECK(sc && !strcmp(sc, text), "structuredContent.content equals the text");
        mcp_json_free(doc);
    }
    snprintf(argsbuf, sizeof argsbuf, "{\"path\":\"%s/alpha.txt\"}", dir);
    if ((doc = call_ok(c, "read_text_file", argsbuf, text, sizeof text))) {
        CHECK(!strcmp(text, "hello alpha\nsecond line\n"), "read_text_file alpha.txt: the file's bytes");
        mcp_json_free(doc);
    }
    snprintf(argsbuf, sizeof argsbuf, "{\"path\":\"%s/written.txt\",\"content\":\"written by node \\u2713\\n\"}", dir);
    if ((doc = call_ok(c, "write_file", argsbuf, text, sizeof text))) {
        snprintf(path, sizeof path, "%s/written.txt", dir);
        disk = read_whole(path);
        CHECK(disk && !strcmp(disk, "written by node \xe2\x9c\x93\n"), "write_file: the file on disk has the text");
        free(disk);
        mcp_json_free(doc);
    }
    s = mcp_client_call_tool(c, "list_directory", "{\"path\":\"/etc\"}", &doc, &err);
    CHECK((s == MCP_OK && mcp_json_is_true(mcp_json_get(mcp_json_root(doc), "isError"))) || s == MCP_ERR_RPC,
          "list_directory /etc (outside the allowed folder) is refused: %.120s",
          s == MCP_OK ? tool_text(doc, text, sizeof text) : err.message);
    if (s == MCP_OK) mcp_json_free(doc);
    finish(c);
    count_line();
}

/* ---- server-memory ------------------------------------------------------------------------ */

static void memory(const char *tmpdir)
{
    char entry[1200], envbuf[1200], file[1100], text[16384];
    const char *args[2], *env[2];
    mcp_client_desc d;
    mcp_client *c;
    mcp_json_doc *doc;
    mcp_error err;
    mcp_status s;
    char *disk;

    reset_state("server-memory");
    printf("== %s\n", st.name);
    snprintf(file, sizeof file, "%s/memory.jsonl", tmpdir);
    snprintf(envbuf, sizeof envbuf, "MEMORY_FILE_PATH=%s", file);
    entry_point("server-memory", entry, sizeof entry);
    args[0] = entry; args[1] = NULL;
    env[0] = envbuf; env[1] = NULL;
    base_desc(&d, args);
    d.env = env;
    if (!(c = start(&d))) { count_line(); return; }

    s = mcp_client_list_tools(c, &doc, &err);
    CHECK(s == MCP_OK, "tools/list: %s", s == MCP_OK ? "ok" : err.message);
    if (s == MCP_OK) {
        const mcp_json *arr = mcp_json_get(mcp_json_root(doc), "tools");
        print_names("tools", arr, "name");
        CHECK(has_named(arr, "name", "create_entities") && has_named(arr, "name", "read_graph"),
              "create_entities and read_graph are listed");
        mcp_json_free(doc);
    }
    if ((doc = call_ok(c, "create_entities",
                       "{\"entities\":[{\"name\":\"mcp.h\",\"entityType\":\"library\",\"observations\":"
                       "[\"single header\",\"C99\"]},{\"name\":\"Node\",\"entityType\":\"runtime\","
                       "\"observations\":[\"v20\"]}]}", text, sizeof text))) {
        const mcp_json *ents = mcp_json_get(mcp_json_get(mcp_json_root(doc), "structuredContent"), "entities");
        CHECK(mcp_json_len(ents) == 2, "create_entities created 2 entities");
        mcp_json_free(doc);
    }
    if ((doc = call_ok(c, "create_relations", "{\"relations\":[{\"from\":\"mcp.h\",\"to\":\"Node\","
                       "\"relationType\":\"talks_to\"}]}", text, sizeof text)))
        mcp_json_free(doc);
    if ((doc = call_ok(c, "read_graph", "{}", text, sizeof text))) {
        const mcp_json *sc = mcp_json_get(mcp_json_root(doc), "structuredContent");
        const mcp_json *ents = mcp_json_get(sc, "entities"), *rels = mcp_json_get(sc, "relations");
        const mcp_json *obs = NULL;
        size_t i;
        const mcp_json *e;
        mcp_json_foreach(ents, i, e)
            if (!strcmp(nn(mcp_json_str(mcp_json_get(e, "name"))), "mcp.h")) obs = mcp_json_get(e, "observations");
        CHECK(mcp_json_len(ents) == 2 && has_named(ents, "name", "mcp.h") && has_named(ents, "name", "Node"),
              "read_graph shows both entities");
        CHECK(mcp_json_len(obs) == 2 && !strcmp(nn(mcp_json_str(mcp_json_at(obs, 1))), "C99"),
              "with their observations");
        CHECK(mcp_json_len(rels) == 1 && !strcmp(nn(mcp_json_str(mcp_json_get(mcp_json_at(rels, 0), "relationType"))), "talks_to"),
              "and the relation");
        CHECK(strstr(text, "\"single header\"") != NULL, "the text content is the same graph as JSON");
        mcp_json_free(doc);
    }
    if ((doc = call_ok(c, "search_nodes", "{\"query\":\"header\"}", text, sizeof text))) {
        const mcp_json *ents = mcp_json_get(mcp_json_get(mcp_json_root(doc), "structuredContent"), "entities");
        CHECK(mcp_json_len(ents) == 1 && has_named(ents, "name", "mcp.h"), "search_nodes \"header\" finds mcp.h");
        mcp_json_free(doc);
    }
    disk = read_whole(file);
    CHECK(disk && strstr(disk, "\"name\":\"mcp.h\"") && strstr(disk, "\"relationType\":\"talks_to\""),
          "MEMORY_FILE_PATH (desc.env) took effect: %s holds the graph", file);
    free(disk);
    finish(c);
    count_line();
}

/* ---- server-everything as an HTTP server of our own ------------------------------------- */

typedef struct http_server {
    const char *mode;                    /* a label: "streamableHttp", "sse", "modern-server" */
    pid_t pid;                           /* the node process, leader of its own process group */
    int port;
    char log[1100];                      /* its stdout and stderr */
} http_server;

static http_server *live_servers[2];     /* stopped by the signal handler too */

static void sleep_ms(int ms)
{
    struct timespec ts;
    ts.tv_sec = ms / 1000;
    ts.tv_nsec = (long)(ms % 1000) * 1000000L;
    while (nanosleep(&ts, &ts) < 0 && errno == EINTR) {}
}

/* A TCP port that is free now on the loopback: bind port 0 and see what the kernel gave. */
static int free_port(void)
{
    struct sockaddr_in a;
    socklen_t len = sizeof a;
    int fd = socket(AF_INET, SOCK_STREAM, 0), port = -1;
    if (fd < 0) return -1;
    memset(&a, 0, sizeof a);
    a.sin_family = AF_INET;
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    a.sin_port = 0;
    if (bind(fd, (struct sockaddr *)&a, sizeof a) == 0 && getsockname(fd, (struct sockaddr *)&a, &len) == 0)
        port = ntohs(a.sin_port);
    close(fd);
    return port;
}

/* 1 if something accepts TCP connections on 127.0.0.1:port. */
static int port_listens(int port)
{
    struct sockaddr_in a;
    int fd = socket(AF_INET, SOCK_STREAM, 0), ok;
    if (fd < 0) return 0;
    memset(&a, 0, sizeof a);
    a.sin_family = AF_INET;
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    a.sin_port = htons((unsigned short)port);
    ok = connect(fd, (struct sockaddr *)&a, sizeof a) == 0;
    close(fd);
    return ok;
}

static void print_log_tail(const http_server *sv, int lines)
{
    char *text = read_whole(sv->log), *p;
    int n = 0;
    if (!text) return;
    for (p = text + strlen(text); p > text; p--)
        if (p[-1] == '\n' && p[0] && ++n > lines) break;
    printf("    --- the last lines of the %s server's output (%s):\n", sv->mode, sv->log);
    for (; *p; p++) {
        if (p == text || p[-1] == '\n') printf("    | ");
        putchar(*p);
    }
    if (p > text && p[-1] != '\n') putchar('\n');
    free(text);
}

/* Kills the server's process group (TERM, then KILL after 3 s) and reaps it. Returns 1 when
   the process exited and nothing of its group is left. */
static int http_server_stop(http_server *sv)
{
    int64_t end;
    int wst, reaped = 0, i, empty;
    pid_t r;
    if (sv->pid <= 0) return 1;
    kill(-sv->pid, SIGTERM);
    for (end = mcp_time_ms() + 3000; mcp_time_ms() < end; sleep_ms(20))
        if ((r = waitpid(sv->pid, &wst, WNOHANG)) == sv->pid || (r < 0 && errno == ECHILD)) { reaped = 1; break; }
    if (!reaped) {
        printf("    the %s server did not end within 3 s of SIGTERM: SIGKILL\n", sv->mode);
        kill(-sv->pid, SIGKILL);
        waitpid(sv->pid, &wst, 0);
    }
    for (i = 0; i < 50 && kill(-sv->pid, 0) == 0; i++) sleep_ms(20);    /* stragglers */
    if (kill(-sv->pid, 0) == 0) { kill(-sv->pid, SIGKILL); sleep_ms(100); }
    empty = kill(-sv->pid, 0) < 0 && errno == ESRCH;
    for (i = 0; i < 2; i++) if (live_servers[i] == sv) live_servers[i] = NULL;
    sv->pid = 0;
    return empty;
}

static void on_fatal_signal(int sig)
{
    int i;
    for (i = 0; i < 2; i++) if (live_servers[i] && live_servers[i]->pid > 0) kill(-live_servers[i]->pid, SIGKILL);
    signal(sig, SIG_DFL);
    raise(sig);
}

/* Starts `node SCRIPT ARG` with PORT set to a free port, MCP_INTEROP_MARK (and
   MODERN_SERVER_VERBOSE) in its environment, in its own process group, output to the log file
   TMPDIR/LOGNAME.log; waits until it accepts connections. MODE labels it in messages. Returns
   1 on success (counted either way). */
static int http_server_start_cmd(http_server *sv, const char *mode, const char *script, const char *arg,
                                 const char *logname, const char *tmpdir)
{
    char portbuf[16];
    int attempt, wst;
    int64_t t0 = mcp_time_ms(), end;
    memset(sv, 0, sizeof *sv);
    sv->mode = mode;
    snprintf(sv->log, sizeof sv->log, "%s/%s.log", tmpdir, logname);
    for (attempt = 1; attempt <= 3; attempt++) {
        pid_t pid;
        if ((sv->port = free_port()) < 0) { CHECK(0, "a free port for the %s server: %s", mode, strerror(errno)); return 0; }
        snprintf(portbuf, sizeof portbuf, "%d", sv->port);
        fflush(stdout);
        pid = fork();
        if (pid < 0) { CHECK(0, "fork for the %s server: %s", mode, strerror(errno)); return 0; }
        if (pid == 0) {
            int fd = open(sv->log, O_WRONLY | O_CREAT | O_APPEND, 0600), nul = open("/dev/null", O_RDONLY);
            setpgid(0, 0);
#ifdef __linux__
            prctl(PR_SET_PDEATHSIG, SIGKILL);    /* never outlive this program */
#endif
            if (fd >= 0) { dup2(fd, 1); dup2(fd, 2); close(fd); }
            if (nul >= 0) { dup2(nul, 0); close(nul); }
            setenv("PORT", portbuf, 1);
            setenv("MCP_INTEROP_MARK", "set by desc.env", 1);
            setenv("MODERN_SERVER_VERBOSE", "1", 1);     /* modern_server.mjs: one line per request */
            execlp("node", "node", script, arg, (char *)NULL);
            _exit(127);
        }
        setpgid(pid, pid);                       /* both sides: no race with the kill */
        sv->pid = pid;
        live_servers[live_servers[0] ? 1 : 0] = sv;
        for (end = mcp_time_ms() + 20000; mcp_time_ms() < end; sleep_ms(25)) {
            if (waitpid(pid, &wst, WNOHANG) == pid) { sv->pid = 0; break; }
            if (port_listens(sv->port)) {
                CHECK(1, "%s server started: pid %ld, PORT=%d, accepting connections after %lld ms",
                      mode, (long)pid, sv->port, (long long)(mcp_time_ms() - t0));
                return 1;
            }
        }
        if (sv->pid) {                           /* not listening after 20 s */
            http_server_stop(sv);
            print_log_tail(sv, 20);
            CHECK(0, "the %s server did not accept connections on port %d within 20 s", mode, sv->port);
            return 0;
        }
        printf("    the %s server exited at once (%s %d, attempt %d of 3; port %d taken meanwhile?)\n", mode,
               WIFEXITED(wst) ? "status" : "signal", WIFEXITED(wst) ? WEXITSTATUS(wst) : WTERMSIG(wst), attempt, sv->port);
        live_servers[live_servers[0] == sv ? 0 : 1] = NULL;
    }
    print_log_tail(sv, 20);
    CHECK(0, "the %s server could not be started", mode);
    return 0;
}

/* `node server-everything/dist/index.js MODE` (MODE: streamableHttp or sse) */
static int http_server_start(http_server *sv, const char *mode, const char *tmpdir)
{
    char entry[1200], logname[64];
    entry_point("server-everything", entry, sizeof entry);
    snprintf(logname, sizeof logname, "server-everything-%s", mode);
    return http_server_start_cmd(sv, mode, entry, mode, logname, tmpdir);
}

/* server-everything over one HTTP transport: start its server, the checks, stop it. */
static void everything_http(const char *tmpdir, const char *mode)
{
    char label[64], url[128];
    http_server sv;
    int gone;
    snprintf(label, sizeof label, "server-everything (%s)", mode);
    reset_state(label);
    printf("== %s\n", label);
    if (!http_server_start(&sv, mode, tmpdir)) { count_line(); return; }
    snprintf(url, sizeof url, "http://127.0.0.1:%d/%s", sv.port, strcmp(mode, "sse") ? "mcp" : "sse");
    everything(tmpdir, label, strcmp(mode, "sse") ? MCP_HTTP : MCP_SSE, url);
    gone = http_server_stop(&sv);
    CHECK(gone, "%s server stopped: process group %s", mode, gone ? "empty, no orphan" : "NOT empty");
    {   /* one client, one session: what the server logged for each new one */
        const char *mark = strcmp(mode, "sse") ? "Session initialized with ID" : "Client Connected:";
        char *log = read_whole(sv.log), *p;
        int sessions = 0;
        for (p = log; p && (p = strstr(p, mark)) != NULL; p += strlen(mark)) sessions++;
        free(log);
        CHECK(sessions == 1, "the server saw one session (%s: it logged \"%s\" %d time(s))",
              strcmp(mode, "sse") ? "initialize without Mcp-Session-Id" : "GET /sse", mark, sessions);
    }
    if (s_failed || verbose) print_log_tail(&sv, verbose ? 100000 : 15);
    count_line();
}

/* ---- modern-server: the official TypeScript SDK v2 (tests/interop/modern_server.mjs) ------- */

/* What the elicitation answers. The server's questions arrive inside input_required results
   (2026-07-28) or as elicitation/create requests (the SDK's legacy shim on 2025-11-25), and
   mcp.h hands both to on_request the same way. */
enum { ANSWER_ACCEPT, ANSWER_DECLINE, ANSWER_LATER, ANSWER_ERROR };
static struct {
    int mode;                           /* ANSWER_* */
    int asked, other;                   /* elicitation/create requests seen; any other method */
    int form_ok;                        /* mode "form" (or absent) and a requestedSchema object */
    char message[256];                  /* the last one's message */
    mcp_request *later;                 /* ANSWER_LATER: kept, answered from the test's loop */
} mq;

static void modern_answer(mcp_request *req, const char *why)
{
    const mcp_json *props = mcp_json_get(mcp_json_get(mcp_request_params(req), "requestedSchema"), "properties");
    mcp_error err;
    const char *answer = mcp_json_get(props, "colour")
        ? "{\"action\":\"accept\",\"content\":{\"colour\":\"green\"}}"
        : "{\"action\":\"accept\",\"content\":{\"name\":\"Ada Lovelace\"}}";
    if (mcp_request_reply(req, answer, &err) != MCP_OK) printf("    elicitation reply (%s) failed: %s\n", why, err.message);
}

static void modern_on_request(void *user, mcp_client *c, mcp_request *req)
{
    const char *m = mcp_request_method(req), *mode;
    const mcp_json *p = mcp_request_params(req);
    (void)user; (void)c;
    if (verbose) {
        char *t = mcp_json_dump(p, 0, NULL);
        printf("    [%s request] %s %.300s\n", st.name, m, nn(t));
        mcp_free(t);
    }
    if (strcmp(m, "elicitation/create")) {
        mq.other++;
        mcp_request_reply_error(req, -32601, "Method not found", NULL);
        return;
    }
    mq.asked++;
    mode = mcp_json_str(mcp_json_get(p, "mode"));
    mq.form_ok = (!mode || !strcmp(mode, "form")) &&
                 mcp_json_typeof(mcp_json_get(p, "requestedSchema")) == MCP_JSON_OBJECT;
    snprintf(mq.message, sizeof mq.message, "%s", nn(mcp_json_str(mcp_json_get(p, "message"))));
    if (mq.mode == ANSWER_DECLINE) mcp_request_reply(req, "{\"action\":\"decline\"}", NULL);
    else if (mq.mode == ANSWER_ERROR) mcp_request_reply_error(req, -32603, "no user at the keyboard", NULL);
    else if (mq.mode == ANSWER_LATER && !mq.later) mq.later = req;
    else modern_answer(req, "in the callback");
}

static void modern_script(char *out, size_t n)
{
    snprintf(out, n, "%s/modern_server.mjs", interop_dir);
}

/* How many times needle occurs in text (the server's own log: a line per request and instance) */
static int log_count(const char *text, const char *needle)
{
    const char *p;
    int n = 0;
    for (p = text; p && (p = strstr(p, needle)) != NULL; p += strlen(needle)) n++;
    return n;
}

/* Progress and log notifications on a request's own stream, cancellation, Mcp-Param-* headers
   from x-mcp-header and Mcp-Name for a URI outside plain ASCII, against the SDK's own checks. */
/* Polls until pred() holds or ms pass; returns pred(). */
static int poll_until(mcp_client *c, int (*pred)(void), int ms)
{
    int64_t end = mcp_time_ms() + ms;
    while (!pred() && mcp_time_ms() < end) mcp_client_poll(c, 20);
    return pred();
}
static int got_ack(void) { return st.ack[0] != 0; }
static int got_changes(void)
{
    return note_count("notifications/tools/list_changed") > 0 && note_count("notifications/resources/list_changed") > 0;
}

/* subscriptions/listen (2026-07-28): the acknowledgment with the filter the server took, the
   list_changed notifications the changed tool sends (stdio: one server instance; over HTTP each
   request has its own, so only the acknowledgment comes), all tagged with the listen request's
   id; a cancel ends it. In the legacy era mcp_client_listen is refused with a sentence. */
static void modern_listen(mcp_client *c, int modern_era, int http)
{
    static const char filter[] = "{\"toolsListChanged\":true,\"resourcesListChanged\":true}";
    char text[512];
    mcp_json_doc *doc;
    mcp_error err;
    mcp_call *sub;
    mcp_status s;
    int subs0;
    st.ack[0] = 0; st.sub_id = -1;
    sub = mcp_client_listen(c, filter, NULL, &err);
    if (!modern_era) {
        CHECK(!sub && err.status == MCP_ERR_INVALID && strstr(err.message, "2026-07-28 only"),
              "mcp_client_listen in the legacy era: %s", sub ? "sent" : err.message);
        if (sub) mcp_call_free(sub);
        return;
    }
    CHECK(sub != NULL, "subscriptions/listen sent: %s", sub ? "ok" : err.message);
    if (!sub) return;
    poll_until(c, got_ack, 5000);                       /* before CHECK: its arguments print the state */
    CHECK(got_ack() && st.sub_id == (long long)mcp_call_id(sub) &&
          strstr(st.ack, "\"toolsListChanged\":true") && !strstr(st.ack, "promptsListChanged"),
          "acknowledged, subscriptionId %lld (the listen request is %lld), filter %s", st.sub_id,
          (long long)mcp_call_id(sub), st.ack[0] ? st.ack : "(none)");
    CHECK(mcp_call_status(sub) == MCP_AGAIN, "the subscription stays open: %s", mcp_status_str(mcp_call_status(sub)));
    subs0 = st.sub_notes;
    if ((doc = call_ok(c, "changed", "{}", text, sizeof text))) mcp_json_free(doc);
    if (!http) {
        poll_until(c, got_changes, 5000);
        CHECK(got_changes() && st.sub_notes >= subs0 + 2 && st.sub_id == (long long)mcp_call_id(sub) &&
              note_count("notifications/prompts/list_changed") == 0,
              "tools and resources list_changed came on the subscription (%d tagged), prompts not (not asked): "
              "tools %d, resources %d, prompts %d", st.sub_notes - subs0, note_count("notifications/tools/list_changed"),
              note_count("notifications/resources/list_changed"), note_count("notifications/prompts/list_changed"));
    }
    CHECK(mcp_call_cancel(sub, "done listening") == MCP_OK, "the subscription cancelled");
    s = mcp_call_result(sub, NULL, &err);
    CHECK(s == MCP_ERR_CANCELLED, "listen ends with %s: %s", mcp_status_str(s), err.message);
    mcp_call_free(sub);
    if ((doc = call_ok(c, "echo", "{\"message\":\"after listen\"}", text, sizeof text))) mcp_json_free(doc);
}

static void modern_more(mcp_client *c, int modern_era, int http, const char *logpath)
{
    char text[4096];
    mcp_json_doc *doc;
    mcp_error err;
    mcp_status s;
    mcp_call_opts o;
    mcp_call *call;
    int logs0, legacy_http = http && !modern_era;

    /* progress and logging: the count tool reports each step (SSE answer over HTTP) */
    if (modern_era) {
        logs0 = st.nlogs;
        if ((doc = call_ok(c, "count", "{\"steps\":2}", text, sizeof text))) mcp_json_free(doc);
        CHECK(st.nlogs == logs0, "2026-07-28: no log level in _meta, no notifications/message (%d)", st.nlogs - logs0);
    }
    s = mcp_client_set_log_level(c, "info", &err);
    CHECK(s == MCP_OK, "log level info (%s): %s", modern_era ? "_meta of each request" : "logging/setLevel",
          s == MCP_OK ? "ok" : err.message);
    logs0 = st.nlogs;
    st.progress_count = 0; st.progress_last = st.progress_total = 0;
    memset(&o, 0, sizeof o);
    o.on_progress = on_progress;
    call = mcp_client_send_tool(c, "count", "{\"steps\":3}", &o, &err);
    if (call) {
        mcp_call_wait(call, 10000);
        s = mcp_call_result(call, &doc, &err);
        CHECK(s == MCP_OK && !strcmp(tool_text(doc, text, sizeof text), "Counted to 3."), "count {steps: 3}: \"%s\"",
              s == MCP_OK ? text : err.message);
        if (s == MCP_OK) mcp_json_free(doc);
        mcp_call_free(call);
    } else CHECK(0, "count sent: %s", err.message);
    CHECK(st.progress_count == 3 && st.progress_last == 3 && st.progress_total == 3,
          "3 progress notifications reached on_progress (%d, last %g of %g)", st.progress_count,
          st.progress_last, st.progress_total);
    if (!legacy_http)
        CHECK(st.nlogs - logs0 == 3 && log_has(logs0, "info: count: step 3"),
              "3 notifications/message at info (\"%s\")", st.nlogs > logs0 ? st.logs[st.nlogs - 1] : "none");
    else   /* a new server instance per POST: the level set by logging/setLevel is not kept */
        printf("    (%d notifications/message over stateless 2025-era HTTP; not checked)\n", st.nlogs - logs0);

    /* cancellation: notifications/cancelled on stdio and 2025 HTTP, the closed stream on 2026 HTTP */
    st.slow_cancelled = 0;
    call = mcp_client_send_tool(c, "slow", "{\"ms\":4000}", NULL, &err);
    CHECK(call != NULL, "slow {ms: 4000} sent: %s", call ? "ok" : err.message);
    if (call) {
        int64_t t0 = mcp_time_ms(), end;
        char *log = NULL;
        int stopped = 0;
        WAIT_UNTIL(c, 0, 300);                           /* let the server start on it */
        s = mcp_call_cancel(call, "interop test");
        CHECK(s == MCP_OK && mcp_call_status(call) == MCP_ERR_CANCELLED, "cancelled: %s",
              mcp_status_str(mcp_call_status(call)));
        mcp_call_free(call);
        for (end = mcp_time_ms() + 3000; !stopped && mcp_time_ms() < end; ) {
            mcp_client_poll(c, 50);
            if (logpath) { free(log); log = read_whole(logpath); stopped = log && strstr(log, "slow: request ") != NULL; }
            else stopped = st.slow_cancelled > 0;
        }
        free(log);
        if (!legacy_http)
            CHECK(stopped, "the server stopped the tool: it logged the cancellation after %lld ms",
                  (long long)(mcp_time_ms() - t0));
        else   /* the notification reaches a new instance, which knows nothing of the call */
            printf("    (cancellation over stateless 2025-era HTTP: the server %s; not checked)\n",
                   stopped ? "stopped the tool" : "did not stop the tool");
    }

    /* x-mcp-header: the region argument goes into Mcp-Param-Region over HTTP; the SDK compares
       it with the body (-32020 when missing or different) */
    {
        static const struct { const char *args, *want, *why; } cases[] = {
            { "{\"region\":\"us-west1\",\"query\":\"q\"}", "region=us-west1 query=q", "plain ASCII" },
            { "{\"region\":\"Z\\u00fcrich\"}", "region=Z\xc3\xbcrich query=", "non-ASCII: Base64 sentinel" },
            { "{\"region\":\" padded \"}", "region= padded  query=", "leading and trailing spaces" },
            { "{\"region\":\"=?base64?literal?=\"}", "region==?base64?literal?= query=", "looks like the sentinel" }
        };
        size_t i;
        for (i = 0; i < sizeof cases / sizeof cases[0]; i++) {
            s = mcp_client_call_tool(c, "where", cases[i].args, &doc, &err);
            CHECK(s == MCP_OK && !strcmp(tool_text(doc, text, sizeof text), cases[i].want) &&
                  !mcp_json_is_true(mcp_json_get(mcp_json_root(doc), "isError")),
                  "where %s (%s): \"%s\"", cases[i].args, cases[i].why, s == MCP_OK ? text : err.message);
            if (s == MCP_OK) mcp_json_free(doc);
        }
    }

    /* Mcp-Name for a resource URI outside plain ASCII */
    s = mcp_client_read_resource(c, "modern://greeting/Zo\xc3\xab", &doc, &err);
    if (s == MCP_OK) {
        const char *t = mcp_json_str(mcp_json_get(mcp_json_at(mcp_json_get(mcp_json_root(doc), "contents"), 0), "text"));
        CHECK(!strcmp(nn(t), "Greetings, Zo\xc3\xab!"), "resources/read modern://greeting/Zo\xc3\xab: \"%s\"", nn(t));
        mcp_json_free(doc);
    } else CHECK(0, "resources/read modern://greeting/Zo\xc3\xab: %s", err.message);
}

/* The checks against modern_server.mjs over stdio (url NULL) or Streamable HTTP (url). With
   pin NULL the client negotiates (server/discover first) and must land on 2026-07-28; with
   pin "2025-11-25" it speaks the initialize era to the same server (a shorter run: the
   SDK's legacy serving of the same handlers). logpath: the HTTP server's output, or NULL. */
static void modern(const char *url, const char *pin, const char *logpath)
{
    char script[1200], text[4096];
    const char *args[3], *env[2];
    const char *want = pin ? pin : "2026-07-28";
    mcp_client_desc d;
    mcp_client *c;
    mcp_json_doc *doc;
    mcp_error err;
    mcp_status s;
    const mcp_json *arr, *caps;
    int modern_era, legacy_http = pin && url;

    memset(&mq, 0, sizeof mq);
    modern_script(script, sizeof script);
    args[0] = script; args[1] = "stdio"; args[2] = NULL;
    env[0] = "MODERN_SERVER_VERBOSE=1"; env[1] = NULL;     /* it names each instance's era on stderr */
    base_desc(&d, args);
    d.env = env;
    if (url) {
        printf("    MCP_HTTP at %s\n", url);
        d.transport = MCP_HTTP;
        d.command = NULL; d.args = NULL; d.env = NULL;
        d.url = url;
    }
    d.protocol_version = pin;
    d.on_request = modern_on_request;
    d.capabilities = MCP_CAP_ELICITATION;
    if (!(c = start_version(&d, want))) return;

    /* the era: 2026-07-28 has no initialize; the discover result carried the server's identity */
    modern_era = !strcmp(nn(mcp_client_protocol_version(c)), "2026-07-28");
    printf("    era: %s (protocol version %s, %s)\n", modern_era ? "modern" : "legacy",
           nn(mcp_client_protocol_version(c)),
           modern_era ? "server/discover answered, no initialize handshake"
                      : "initialize handshake");
    CHECK(modern_era == !pin, "era detected: %s", modern_era ? "modern (2026-07-28)" : "legacy (initialize)");
    CHECK(!strcmp(nn(mcp_json_str(mcp_json_get(mcp_client_server_info(c), "name"))), "mcp-h-modern-server"),
          "server info: %s", nn(mcp_json_str(mcp_json_get(mcp_client_server_info(c), "name"))));
    caps = mcp_client_server_capabilities(c);
    CHECK(mcp_json_get(caps, "tools") && mcp_json_get(caps, "resources") && mcp_json_get(caps, "prompts"),
          "capabilities: tools, resources, prompts");
    CHECK(mcp_client_instructions(c) && strstr(mcp_client_instructions(c), "ask-name"), "instructions: %.60s...",
          nn(mcp_client_instructions(c)));

    /* A tool called by name before any tools/list (as `mcpc URL call where region=...` does).
       Over 2026-07-28 HTTP its x-mcp-header marking asks for Mcp-Param-Region; mcp.h learns
       the markings from tools/list, so it sends none and the SDK answers 400 -32020
       (HeaderMismatch); as the spec asks, mcp.h then reads tools/list and sends the call again,
       with the header. */
    s = mcp_client_call_tool(c, "where", "{\"region\":\"us-west1\"}", &doc, &err);
    CHECK(s == MCP_OK && !strcmp(tool_text(doc, text, sizeof text), "region=us-west1 query="),
          "where {region: us-west1} before any tools/list: %s", s == MCP_OK ? text : err.message);
    if (s == MCP_OK) mcp_json_free(doc);

    /* tools */
    s = mcp_client_list_tools(c, &doc, &err);
    CHECK(s == MCP_OK, "tools/list: %s", s == MCP_OK ? "ok" : err.message);
    if (s == MCP_OK) {
        arr = mcp_json_get(mcp_json_root(doc), "tools");
        print_names("tools", arr, "name");
        CHECK(mcp_json_len(arr) == 8 && has_named(arr, "name", "changed") && has_named(arr, "name", "echo") && has_named(arr, "name", "add") &&
              has_named(arr, "name", "ask-name") && has_named(arr, "name", "survey") &&
              has_named(arr, "name", "count") && has_named(arr, "name", "slow") && has_named(arr, "name", "where"),
              "the 8 tools are listed: echo, add, ask-name, survey, count, slow, where, changed");
        mcp_json_free(doc);
    }
    if (modern_era) {   /* one page through the generic request: the whole result, cache hint included */
        s = mcp_client_request(c, "tools/list", NULL, &doc, &err);
        CHECK(s == MCP_OK && mcp_json_typeof(mcp_json_get(mcp_json_root(doc), "ttlMs")) == MCP_JSON_NUMBER &&
              mcp_json_str(mcp_json_get(mcp_json_root(doc), "cacheScope")) &&
              !strcmp(nn(mcp_json_str(mcp_json_get(mcp_json_root(doc), "resultType"))), "complete"),
              "mcp_client_request tools/list: resultType %s, ttlMs %g, cacheScope %s%s%s",
              s == MCP_OK ? nn(mcp_json_str(mcp_json_get(mcp_json_root(doc), "resultType"))) : "-",
              s == MCP_OK ? mcp_json_num(mcp_json_get(mcp_json_root(doc), "ttlMs")) : 0.0,
              s == MCP_OK ? nn(mcp_json_str(mcp_json_get(mcp_json_root(doc), "cacheScope"))) : "-",
              s == MCP_OK ? "" : ": ", s == MCP_OK ? "" : err.message);
        if (s == MCP_OK) mcp_json_free(doc);
    }
    if ((doc = call_ok(c, "echo", "{\"message\":\"hello from mcp.h \\u00e9\\u4e16\"}", text, sizeof text))) {
        CHECK(!strcmp(text, "Echo: hello from mcp.h \xc3\xa9\xe4\xb8\x96"), "echo: \"%s\"", text);
        if (modern_era)
            CHECK(!strcmp(nn(mcp_json_str(mcp_json_get(mcp_json_root(doc), "resultType"))), "complete"),
                  "the result says resultType \"complete\"");
        mcp_json_free(doc);
    }
    if ((doc = call_ok(c, "add", "{\"a\":2,\"b\":40}", text, sizeof text))) {
        int64_t sum = 0;
        CHECK(!strcmp(text, "The sum of 2 and 40 is 42."), "add {a:2,b:40}: \"%s\"", text);
        CHECK(mcp_json_int64(mcp_json_get(mcp_json_get(mcp_json_root(doc), "structuredContent"), "sum"), &sum) &&
              sum == 42, "add: structuredContent.sum is 42");
        mcp_json_free(doc);
    }
    if ((doc = call_ok(c, "add", "{\"a\":1.5,\"b\":-0.25}", text, sizeof text))) {
        CHECK(!strcmp(text, "The sum of 1.5 and -0.25 is 1.25."), "add {a:1.5,b:-0.25}: \"%s\"", text);
        mcp_json_free(doc);
    }
    s = mcp_client_call_tool(c, "add", "{\"a\":\"two\",\"b\":40}", &doc, &err);
    CHECK((s == MCP_OK && mcp_json_is_true(mcp_json_get(mcp_json_root(doc), "isError"))) || s == MCP_ERR_RPC,
          "add with a string argument is refused (%s%.120s)", s == MCP_OK ? "isError: " : "",
          s == MCP_OK ? tool_text(doc, text, sizeof text) : err.message);
    if (s == MCP_OK) mcp_json_free(doc);

    /* resources */
    s = mcp_client_list_resources(c, &doc, &err);
    CHECK(s == MCP_OK, "resources/list: %s", s == MCP_OK ? "ok" : err.message);
    if (s == MCP_OK) {
        arr = mcp_json_get(mcp_json_root(doc), "resources");
        print_names("resources", arr, "uri");
        CHECK(has_named(arr, "uri", "modern://info"), "modern://info is listed");
        mcp_json_free(doc);
    }
    s = mcp_client_list_resource_templates(c, &doc, &err);
    CHECK(s == MCP_OK && has_named(mcp_json_get(mcp_json_root(doc), "resourceTemplates"), "uriTemplate",
                                   "modern://greeting/{name}"),
          "resources/templates/list: modern://greeting/{name}%s%s", s == MCP_OK ? "" : ": ", s == MCP_OK ? "" : err.message);
    if (s == MCP_OK) mcp_json_free(doc);
    s = mcp_client_read_resource(c, "modern://info", &doc, &err);
    if (s == MCP_OK) {
        const mcp_json *item = mcp_json_at(mcp_json_get(mcp_json_root(doc), "contents"), 0);
        CHECK(!strcmp(nn(mcp_json_str(mcp_json_get(item, "mimeType"))), "text/plain") &&
              strstr(nn(mcp_json_str(mcp_json_get(item, "text"))), "served by @modelcontextprotocol/server v2"),
              "resources/read modern://info: \"%s\"", nn(mcp_json_str(mcp_json_get(item, "text"))));
        mcp_json_free(doc);
    } else CHECK(0, "resources/read modern://info: %s", err.message);
    s = mcp_client_read_resource(c, "modern://greeting/Ada%20Lovelace", &doc, &err);
    if (s == MCP_OK) {
        const char *t = mcp_json_str(mcp_json_get(mcp_json_at(mcp_json_get(mcp_json_root(doc), "contents"), 0), "text"));
        CHECK(!strcmp(nn(t), "Greetings, Ada Lovelace!"), "resources/read modern://greeting/Ada%%20Lovelace: \"%s\"", nn(t));
        mcp_json_free(doc);
    } else CHECK(0, "resources/read modern://greeting/Ada%%20Lovelace: %s", err.message);
    s = mcp_client_read_resource(c, "modern://nothing-here", &doc, &err);
    CHECK(s == MCP_ERR_RPC && err.rpc_code == -32602, "an unknown resource is MCP_ERR_RPC -32602: \"%s\"",
          s == MCP_OK ? "(it was found)" : err.message);
    if (s == MCP_OK) mcp_json_free(doc);

    /* prompts */
    s = mcp_client_list_prompts(c, &doc, &err);
    CHECK(s == MCP_OK, "prompts/list: %s", s == MCP_OK ? "ok" : err.message);
    if (s == MCP_OK) {
        const mcp_json *pr = mcp_json_at(mcp_json_get(mcp_json_root(doc), "prompts"), 0);
        const mcp_json *pa = mcp_json_get(pr, "arguments");
        print_names("prompts", mcp_json_get(mcp_json_root(doc), "prompts"), "name");
        CHECK(!strcmp(nn(mcp_json_str(mcp_json_get(pr, "name"))), "greet") && mcp_json_len(pa) == 2 &&
              has_named(pa, "name", "name") && mcp_json_is_true(mcp_json_get(mcp_json_at(pa, 0), "required")),
              "greet is listed with its arguments (name required, style)");
        mcp_json_free(doc);
    }
    s = mcp_client_get_prompt(c, "greet", "{\"name\":\"Ada\",\"style\":\"formal\"}", &doc, &err);
    if (s == MCP_OK) {
        const mcp_json *msgs = mcp_json_get(mcp_json_root(doc), "messages");
        content_text(msgs, text, sizeof text);
        CHECK(mcp_json_len(msgs) == 1 && !strcmp(text, "Please greet Ada formally.") &&
              !strcmp(nn(mcp_json_str(mcp_json_get(mcp_json_at(msgs, 0), "role"))), "user"),
              "prompts/get greet {name: Ada, style: formal}: \"%s\"", text);
        mcp_json_free(doc);
    } else CHECK(0, "prompts/get greet: %s", err.message);
    s = mcp_client_get_prompt(c, "greet", "{}", &doc, &err);
    CHECK(s == MCP_ERR_RPC, "prompts/get greet without its required argument: MCP_ERR_RPC (%s)",
          s == MCP_OK ? "it was accepted" : err.message);
    if (s == MCP_OK) mcp_json_free(doc);

    /* elicitation: the tool asks for the user's name; on_request accepts with content and the
       tool's result shows the answer arrived */
    if (legacy_http) {
        /* 2025-era HTTP on SDK v2 is stateless (a new instance per POST): an instance that never
           saw initialize knows no client capabilities, so the shim cannot ask */
        s = mcp_client_call_tool(c, "ask-name", "{}", &doc, &err);
        CHECK(mq.asked == 0 && ((s == MCP_OK && mcp_json_is_true(mcp_json_get(mcp_json_root(doc), "isError"))) ||
                                s == MCP_ERR_RPC),
              "ask-name over the SDK's stateless 2025-era HTTP is refused, not asked (%s%.110s...)",
              s == MCP_OK ? "isError: " : "", s == MCP_OK ? tool_text(doc, text, sizeof text) : err.message);
        if (s == MCP_OK) mcp_json_free(doc);
    } else {
        mq.mode = ANSWER_ACCEPT; mq.asked = 0;
        if ((doc = call_ok(c, "ask-name", "{}", text, sizeof text))) {
            CHECK(!strcmp(text, "Hello, Ada Lovelace! (answer received in round 2, requestState echoed intact)"),
                  "ask-name, accepted with {name: Ada Lovelace}: \"%s\"", text);
            mcp_json_free(doc);
        }
        CHECK(mq.asked == 1 && mq.other == 0 && mq.form_ok && !strcmp(mq.message, "What is your name?"),
              "on_request got one elicitation/create, form mode with a requestedSchema: \"%s\"", mq.message);

        mq.mode = ANSWER_DECLINE; mq.asked = 0;
        if ((doc = call_ok(c, "ask-name", "{\"greeting\":\"Bonjour\"}", text, sizeof text))) {
            CHECK(mq.asked == 1 && !strcmp(text, "The user did not answer (decline)."),
                  "ask-name, declined: \"%s\"", text);
            mcp_json_free(doc);
        }

        mq.mode = ANSWER_ACCEPT; mq.asked = 0;
        if ((doc = call_ok(c, "survey", "{}", text, sizeof text))) {
            CHECK(!strcmp(text, "Survey: Ada Lovelace likes green."), "survey, two questions: \"%s\"", text);
            mcp_json_free(doc);
        }
        CHECK(mq.asked == 2 && strstr(mq.message, "Thanks, Ada Lovelace"),
              "the second question knew the first answer (%d asked; \"%s\")", mq.asked, mq.message);

        {   /* non-blocking, answered later from our own loop rather than inside on_request */
            mcp_call *call;
            mq.mode = ANSWER_LATER; mq.asked = 0; mq.later = NULL;
            call = mcp_client_send_tool(c, "ask-name", "{\"greeting\":\"Hi\"}", NULL, &err);
            CHECK(call != NULL, "ask-name sent without blocking: %s", call ? "ok" : err.message);
            if (call) {
                WAIT_UNTIL(c, mq.later != NULL || mcp_call_status(call) != MCP_AGAIN, 10000);
                CHECK(mq.later != NULL && mcp_call_status(call) == MCP_AGAIN,
                      "the question is held while the call stays in flight (%s)", mcp_status_str(mcp_call_status(call)));
                if (mq.later) { modern_answer(mq.later, "later"); mq.later = NULL; }
                mcp_call_wait(call, 10000);
                s = mcp_call_result(call, &doc, &err);
                CHECK(s == MCP_OK && !strcmp(tool_text(doc, text, sizeof text),
                                             "Hi, Ada Lovelace! (answer received in round 2, requestState echoed intact)"),
                      "answered later: \"%s\"", s == MCP_OK ? text : err.message);
                if (s == MCP_OK) mcp_json_free(doc);
                mcp_call_free(call);
            }
        }

        {   /* on_request cannot answer (mcp_request_reply_error). 2025-11-25: the server gets the
               error once and the tool ends (the SDK: an isError result). 2026-07-28: every input
               request must be answered before the retry, and the server is not waiting for an
               answer, so mcp.h gives the call up there (MCP_ERR_CANCELLED), asked once */
            mcp_call *call;
            mq.mode = ANSWER_ERROR; mq.asked = 0;
            call = mcp_client_send_tool(c, "ask-name", "{}", NULL, &err);
            if (call) {
                mcp_call_wait(call, 10000);
                s = mcp_call_result(call, &doc, &err);
                CHECK(mq.asked == 1 && mcp_call_status(call) != MCP_AGAIN &&
                      (!modern_era || s == MCP_ERR_CANCELLED),
                      "on_request replies with an error: asked %d time(s) (want 1), then %s: %.160s",
                      mq.asked, mcp_status_str(s), s == MCP_OK ? tool_text(doc, text, sizeof text) : err.message);
                if (s == MCP_OK) mcp_json_free(doc);
                mcp_call_free(call);
            } else CHECK(0, "ask-name sent: %s", err.message);
            mq.mode = ANSWER_ACCEPT;
        }
    }
    modern_more(c, modern_era, url != NULL, logpath);
    modern_listen(c, modern_era, url != NULL);
    CHECK(mcp_client_ping(c, &err) == MCP_OK, "ping (%s): ok", modern_era ? "server/discover" : "ping");
    finish(c);
    if (!url)     /* the server's own word on the era of each instance it made (its stderr) */
        CHECK(pin ? st.legacy_instances == 1 && st.modern_instances == 0
                  : st.modern_instances >= 1 && st.legacy_instances == 0,
              "the server made %d modern and %d legacy instance(s) for this connection (its stderr)",
              st.modern_instances, st.legacy_instances);
}

/* modern-server over stdio */
static void modern_stdio(const char *pin)
{
    char label[96];
    snprintf(label, sizeof label, pin ? "modern-server pinned to %s (stdio)" : "modern-server (stdio)", pin);
    reset_state(label);
    printf("== %s\n", label);
    modern(NULL, pin, NULL);
    count_line();
}

/* modern-server over Streamable HTTP: `node modern_server.mjs http` on a free port, the checks
   negotiated (2026-07-28), then pinned to 2025-11-25, then stopped */
static void modern_http(const char *tmpdir)
{
    char script[1200], url[128], label[96];
    http_server sv;
    char *log;
    int gone, i;
    modern_script(script, sizeof script);
    for (i = 0; i < 2; i++) {
        const char *pin = i ? "2025-11-25" : NULL;
        snprintf(label, sizeof label, pin ? "modern-server pinned to %s (streamableHttp)"
                                          : "modern-server (streamableHttp)", pin);
        reset_state(label);
        printf("== %s\n", label);
        if (!http_server_start_cmd(&sv, "modern-server", script, "http",
                                   i ? "modern-server-http-2025" : "modern-server-http", tmpdir)) {
            count_line();
            continue;
        }
        snprintf(url, sizeof url, "http://127.0.0.1:%d/mcp", sv.port);
        modern(url, pin, sv.log);
        gone = http_server_stop(&sv);
        CHECK(gone, "modern-server stopped: process group %s", gone ? "empty, no orphan" : "NOT empty");
        log = read_whole(sv.log);
        if (!pin)   /* MODERN_SERVER_VERBOSE: a line per request and per instance */
            CHECK(log && log_count(log, "new modern instance") > 0 && !log_count(log, "new legacy instance") &&
                  !log_count(log, "POST initialize"),
                  "the server served every request in the modern era: %d modern instance(s), %d legacy, "
                  "%d initialize", log_count(log, "new modern instance"), log_count(log, "new legacy instance"),
                  log_count(log, "POST initialize"));
        else
            CHECK(log && log_count(log, "POST initialize") == 1 && log_count(log, "new legacy instance") > 0,
                  "the server served the pinned client in the legacy era: %d initialize, %d legacy instance(s)",
                  log_count(log, "POST initialize"), log_count(log, "new legacy instance"));
        free(log);
        if (s_failed || verbose) print_log_tail(&sv, verbose ? 100000 : 15);
        count_line();
    }
}

/* ---- the host: every reference server in one mcp_host (>>host, issue 18) ---------------------- */

#ifndef MCP_NO_HOST
static struct {
    char server[16][48]; int state[16]; int n;   /* the last on_state of each server */
    int changes;
} hst;

static void host_on_state(void *user, mcp_host *h, const char *server, mcp_server_state state, const mcp_error *why)
{
    static const char *const names[] = { "DISABLED", "IDLE", "CONNECTING", "READY", "RETRYING", "FAILED", "NEEDS_AUTH" };
    int i;
    (void)user; (void)h;
    for (i = 0; i < hst.n && strcmp(hst.server[i], server); i++) {}
    if (i == hst.n && hst.n < 16) snprintf(hst.server[hst.n++], sizeof hst.server[0], "%s", server);
    if (i < 16) hst.state[i] = (int)state;
    if (verbose || why)
        printf("    [host] %s: %s%s%s\n", server, (unsigned)state < 7 ? names[state] : "?", why ? ": " : "",
               why ? why->message : "");
}

static void host_on_change(void *user, mcp_host *h, const char *server)
{
    (void)user; (void)h; (void)server;
    hst.changes++;
}

static void host_on_stderr(void *user, mcp_host *h, const char *server, const char *line, size_t len)
{
    (void)user; (void)h;
    if (verbose) printf("    [host %s stderr] %.*s\n", server, (int)(len > 200 ? 200 : len), line);
}

static int count_fds(void)
{
    DIR *d = opendir("/proc/self/fd");
    struct dirent *e;
    int n = 0;
    if (!d) return -1;
    while ((e = readdir(d)) != NULL) if (e->d_name[0] != '.') n++;
    closedir(d);
    return n - 1;
}

/* A routed call that must succeed; its first text into buf. */
static int host_call_ok(mcp_host *h, const char *qualified, const char *args, char *buf, size_t n)
{
    mcp_json_doc *doc = NULL;
    mcp_error err;
    mcp_status s = mcp_host_call_tool(h, qualified, args, &doc, &err);
    buf[0] = 0;
    if (s != MCP_OK) { CHECK(0, "mcp_host_call_tool %s: %s", qualified, err.message); return 0; }
    tool_text(doc, buf, n);
    mcp_json_free(doc);
    return 1;
}

/* One host: server-everything over stdio, Streamable HTTP and HTTP+SSE, server-memory over
   stdio, and a command that does not exist; states, the union of their tools under qualified
   names, a call routed to each, and nothing left once the host is freed. */
static void host_all(const char *tmpdir)
{
    static const char *const missing_args[] = { "--stdio", NULL };
    http_server shttp, ssse;
    char entry_e[1200], entry_m[1200], envbuf[1200], file[1100], url_h[128], url_s[128], text[16384];
    const char *args_e[3], *args_m[2], *env_m[2];
    const char *const ready[] = { "everything", "everything_http", "everything_sse", "memory" };
    mcp_host_desc hd;
    mcp_client_desc d;
    mcp_host *h;
    mcp_host_server sv;
    mcp_host_item it;
    mcp_error err;
    mcp_status s;
    long pids[2] = { 0, 0 };
    size_t i, n, sum = 0, bad_name = 0, bad_order = 0;
    int fds0, fds1, up_h, up_s, k, gone;
    int64_t t0;
    char prev[128] = "";

    reset_state("host (server-everything x3, server-memory, a missing command)");
    printf("== %s\n", st.name);
    memset(&hst, 0, sizeof hst);
    up_h = http_server_start(&shttp, "streamableHttp", tmpdir);
    up_s = http_server_start(&ssse, "sse", tmpdir);
    if (!up_h || !up_s) {
        if (up_h) http_server_stop(&shttp);
        if (up_s) http_server_stop(&ssse);
        count_line();
        return;
    }
    snprintf(url_h, sizeof url_h, "http://127.0.0.1:%d/mcp", shttp.port);
    snprintf(url_s, sizeof url_s, "http://127.0.0.1:%d/sse", ssse.port);
    entry_point("server-everything", entry_e, sizeof entry_e);
    entry_point("server-memory", entry_m, sizeof entry_m);
    snprintf(file, sizeof file, "%s/host-memory.jsonl", tmpdir);
    snprintf(envbuf, sizeof envbuf, "MEMORY_FILE_PATH=%s", file);
    args_e[0] = entry_e; args_e[1] = "stdio"; args_e[2] = NULL;
    args_m[0] = entry_m; args_m[1] = NULL;
    env_m[0] = envbuf; env_m[1] = NULL;

    fds0 = count_fds();
    memset(&hd, 0, sizeof hd);
    hd.client_name = "mcp.h-interop-host";
    hd.client_version = "0.1";
    hd.timeout_ms = 20000;
    hd.on_state = host_on_state;
    hd.on_change = host_on_change;
    hd.on_stderr = host_on_stderr;
    h = mcp_host_new(&hd, &err);
    CHECK(h != NULL, "mcp_host_new: %s", h ? "ok" : err.message);
    if (!h) { http_server_stop(&shttp); http_server_stop(&ssse); count_line(); return; }
    memset(&d, 0, sizeof d);
    d.transport = MCP_STDIO; d.command = "node"; d.args = args_e;
    CHECK(mcp_host_add(h, "everything", &d, &err) == MCP_OK, "add everything (stdio): %s", err.message);
    memset(&d, 0, sizeof d);
    d.transport = MCP_HTTP; d.url = url_h;
    CHECK(mcp_host_add(h, "everything_http", &d, &err) == MCP_OK, "add everything_http (%s): %s", url_h, err.message);
    memset(&d, 0, sizeof d);
    d.transport = MCP_SSE; d.url = url_s;
    CHECK(mcp_host_add(h, "everything_sse", &d, &err) == MCP_OK, "add everything_sse (%s): %s", url_s, err.message);
    memset(&d, 0, sizeof d);
    d.transport = MCP_STDIO; d.command = "node"; d.args = args_m; d.env = env_m;
    CHECK(mcp_host_add(h, "memory", &d, &err) == MCP_OK, "add memory (stdio): %s", err.message);
    memset(&d, 0, sizeof d);
    d.transport = MCP_STDIO; d.command = "mcp-host-interop-no-such-command"; d.args = missing_args;
    CHECK(mcp_host_add(h, "missing", &d, &err) == MCP_OK, "add missing: %s", err.message);

    t0 = mcp_time_ms();
    s = mcp_host_connect(h, &err);
    CHECK(s == MCP_OK, "mcp_host_connect: %s", s == MCP_OK ? "ok" : err.message);
    s = mcp_host_wait(h, 60000);
    CHECK(s == MCP_OK, "mcp_host_wait: %s after %lld ms", mcp_status_str(s), (long long)(mcp_time_ms() - t0));
    for (k = 0; k < 4; k++) {
        long idx = mcp_host_server_find(h, ready[k]);
        int ok = idx >= 0 && mcp_host_server_get(h, (size_t)idx, &sv) == MCP_OK;
        CHECK(ok && sv.state == MCP_SERVER_READY && sv.tools > 0 && sv.client,
              "%s: READY with %lu tools (%s, state %d)%s%s", ready[k], ok ? (unsigned long)sv.tools : 0UL,
              ok && sv.client ? nn(mcp_client_protocol_version(sv.client)) : "no client", ok ? (int)sv.state : -1,
              ok && sv.error ? ": " : "", ok && sv.error ? sv.error->message : "");
        if (ok) {
            sum += sv.tools;
            if (k == 0) pids[0] = mcp_client_pid(sv.client);
            if (k == 3) pids[1] = mcp_client_pid(sv.client);
            if (k == 2) CHECK(sv.transport == MCP_SSE && mcp_client_transport(sv.client, NULL) == MCP_SSE,
                              "everything_sse runs over HTTP+SSE");
        }
    }
    printf("    every server up in %lld ms (in parallel)\n", (long long)(mcp_time_ms() - t0));
    {
        long idx = mcp_host_server_find(h, "missing");
        int ok = idx >= 0 && mcp_host_server_get(h, (size_t)idx, &sv) == MCP_OK;
        CHECK(ok && sv.state == MCP_SERVER_FAILED && sv.error && sv.error->status == MCP_ERR_IO &&
              strstr(sv.error->message, "mcp-host-interop-no-such-command") != NULL,
              "missing: FAILED with MCP_ERR_IO naming the command: %s", ok && sv.error ? sv.error->message : "(none)");
    }
    CHECK(hst.changes >= 4, "on_change fired for the servers' lists (%d times)", hst.changes);

    /* the union, sorted, qualified */
    n = mcp_host_count(h, MCP_HOST_TOOLS);
    for (i = 0; i < n; i++) {
        const char *q;
        size_t j, ql;
        if (mcp_host_item_get(h, MCP_HOST_TOOLS, i, &it) != MCP_OK) { bad_name++; continue; }
        q = nn(it.qualified);
        ql = strlen(q);
        if (ql == 0 || ql > 64) bad_name++;
        for (j = 0; j < ql; j++)
            if (!((q[j] >= 'a' && q[j] <= 'z') || (q[j] >= 'A' && q[j] <= 'Z') || (q[j] >= '0' && q[j] <= '9') ||
                  q[j] == '_' || q[j] == '-')) { bad_name++; break; }
        if (i && strcmp(prev, q) >= 0) bad_order++;
        snprintf(prev, sizeof prev, "%s", q);
        if (verbose) printf("    tool %-48s (%s: %s)\n", q, nn(it.server), nn(it.name));
    }
    CHECK(n == sum && n > 0, "the tool list is the union: %lu tools, the four servers offer %lu", (unsigned long)n,
          (unsigned long)sum);
    CHECK(bad_name == 0 && bad_order == 0, "sorted (%lu out of order), every name [A-Za-z0-9_-]{1,64} (%lu not)",
          (unsigned long)bad_order, (unsigned long)bad_name);
    {
        const char *const want[] = { "everything__echo", "everything_http__echo", "everything_sse__echo",
                                     "everything__get-sum", "memory__read_graph", "memory__create_entities" };
        int found = 0;
        for (k = 0; k < 6; k++)
            for (i = 0; i < n; i++)
                if (mcp_host_item_get(h, MCP_HOST_TOOLS, i, &it) == MCP_OK && !strcmp(nn(it.qualified), want[k])) {
                    found++;
                    break;
                }
        CHECK(found == 6, "server__tool names: everything__echo, everything_http__echo, everything_sse__echo, "
              "everything__get-sum, memory__read_graph, memory__create_entities (%d of 6)", found);
    }

    /* a call routed to each */
    if (host_call_ok(h, "everything__echo", "{\"message\":\"via stdio\"}", text, sizeof text))
        CHECK(!strcmp(text, "Echo: via stdio"), "everything__echo: \"%s\"", text);
    if (host_call_ok(h, "everything_http__echo", "{\"message\":\"via streamable http\"}", text, sizeof text))
        CHECK(!strcmp(text, "Echo: via streamable http"), "everything_http__echo: \"%s\"", text);
    if (host_call_ok(h, "everything_sse__get-sum", "{\"a\":2,\"b\":40}", text, sizeof text))
        CHECK(!strcmp(text, "The sum of 2 and 40 is 42."), "everything_sse__get-sum: \"%s\"", text);
    if (host_call_ok(h, "memory__create_entities", "{\"entities\":[{\"name\":\"host\",\"entityType\":\"test\","
                     "\"observations\":[\"one host, five servers\"]}]}", text, sizeof text))
        CHECK(1, "memory__create_entities");
    if (host_call_ok(h, "memory__read_graph", "{}", text, sizeof text))
        CHECK(strstr(text, "one host, five servers") != NULL, "memory__read_graph shows the entity");
    s = mcp_host_call_tool(h, "missing__anything", "{}", NULL, &err);
    CHECK(s != MCP_OK, "a call for the missing server fails: %s", err.message);

    t0 = mcp_time_ms();
    mcp_host_free(h);
    printf("    mcp_host_free: %lld ms\n", (long long)(mcp_time_ms() - t0));
    for (k = 0; k < 50 && count_fds() != fds0; k++) sleep_ms(20);
    fds1 = count_fds();
    CHECK(fds1 == fds0, "no fd left: %d open before the host, %d after mcp_host_free", fds0, fds1);
    CHECK(pids[0] > 0 && pids[1] > 0 && kill((pid_t)pids[0], 0) < 0 && kill((pid_t)pids[1], 0) < 0 &&
          waitpid((pid_t)pids[0], NULL, WNOHANG) < 0 && waitpid((pid_t)pids[1], NULL, WNOHANG) < 0,
          "the stdio servers (pids %ld, %ld) ended and were reaped", pids[0], pids[1]);
    CHECK(kill(-(pid_t)pids[0], 0) < 0 && kill(-(pid_t)pids[1], 0) < 0, "nothing of their process groups is left");
    gone = http_server_stop(&shttp);
    CHECK(gone, "streamableHttp server stopped: process group %s", gone ? "empty" : "NOT empty");
    gone = http_server_stop(&ssse);
    CHECK(gone, "sse server stopped: process group %s", gone ? "empty" : "NOT empty");
    CHECK(waitpid(-1, NULL, WNOHANG) < 0 && errno == ECHILD, "no child of this program left");
    count_line();
}
#endif /* MCP_NO_HOST */

/* ---- modern-server's tasks: the 2026-07-28 tasks extension on the SDK v2 ------------------------
   The SDK (2.4.0) has no tasks of its own; modern_server.mjs, run with MODERN_SERVER_TASKS=1,
   builds them on what it has (a tools/call result with resultType "task", tasks/get,
   tasks/update and tasks/cancel registered with its own schemas, Mcp-Name checked against
   params.taskId on HTTP): research {topic, steps, ambiguous}. */

static void tasks_on_request(void *user, mcp_client *c, mcp_request *req)
{
    (void)user; (void)c;
    if (strcmp(mcp_request_method(req), "elicitation/create")) {
        st.other_asked++;
        mcp_request_reply_error(req, -32601, "Method not found", NULL);
        return;
    }
    st.research_asked++;
    mcp_request_reply(req, "{\"action\":\"accept\",\"content\":{\"interpretation\":\"snake\"}}", NULL);
}

static int stderr_cancels;                /* "task ID: tasks/cancel" lines of modern_server.mjs (stdio) */

static void tasks_on_stderr(void *user, mcp_client *c, const char *line, size_t len)
{
    char z[256];
    snprintf(z, sizeof z, "%.*s", (int)(len < sizeof z ? len : sizeof z - 1), line);
    if (strstr(z, ": tasks/cancel")) stderr_cancels++;
    on_stderr(user, c, line, len);
}

static void modern_tasks(const char *url, const char *logpath)
{
    char script[1200], text[4096], id[128];
    const char *args[3], *env[2];
    mcp_client_desc d;
    mcp_client *c;
    mcp_json_doc *doc;
    mcp_error err;
    mcp_status s;
    mcp_call_opts o;
    mcp_call *call;
    task_seen seen1;
    mcp_client_stats before, after;
    int agains = 0, ok;
    int64_t end;

    modern_script(script, sizeof script);
    args[0] = script; args[1] = "stdio"; args[2] = NULL;
    env[0] = "MODERN_SERVER_TASKS=1"; env[1] = NULL;
    base_desc(&d, args);
    d.env = env;
    d.on_stderr = tasks_on_stderr;
    if (url) {
        printf("    MCP_HTTP at %s\n", url);
        d.transport = MCP_HTTP;
        d.command = NULL; d.args = NULL; d.env = NULL;
        d.url = url;
    }
    d.on_request = tasks_on_request;
    d.capabilities = MCP_CAP_ELICITATION;
    stderr_cancels = 0;
    if (!(c = start_version(&d, "2026-07-28"))) return;
    mcp_client_get_stats(c, &before);
    CHECK(mcp_json_get(mcp_json_get(mcp_client_server_capabilities(c), "extensions"), "io.modelcontextprotocol/tasks") != NULL,
          "server/discover declares the tasks extension");

    /* blocking */
    s = mcp_client_call_tool(c, "research", "{\"topic\":\"cats\"}", &doc, &err);
    CHECK(s == MCP_OK && !strcmp(tool_text(doc, text, sizeof text), "Report on cats after 3 stages"),
          "research through mcp_client_call_tool: %s", s == MCP_OK ? text : err.message);
    if (s == MCP_OK) mcp_json_free(doc);

    /* non-blocking, with the clarification: inputRequests answered through tasks/update */
    memset(&seen1, 0, sizeof seen1);
    memset(&o, 0, sizeof o);
    o.on_task = on_task;
    o.user = &seen1;
    call = mcp_client_send_tool(c, "research", "{\"topic\":\"python\",\"ambiguous\":true}", &o, &err);
    if (call) {
        for (end = mcp_time_ms() + 10000; mcp_call_status(call) == MCP_AGAIN && mcp_time_ms() < end; agains++)
            mcp_client_poll(c, 20);
        snprintf(id, sizeof id, "%s", nn(mcp_call_task_id(call)));
        s = mcp_call_result(call, &doc, &err);
        if (s == MCP_OK) tool_text(doc, text, sizeof text);
        CHECK(s == MCP_OK && !strcmp(text, "Report on python (snake) after 3 stages"),
              "research, ambiguous, non-blocking (%d polls saw MCP_AGAIN): %s", agains, s == MCP_OK ? text : err.message);
        if (s == MCP_OK) mcp_json_free(doc);
        CHECK(st.research_asked == 1 && seen1.input == 1 && seen1.working >= 3 && seen1.completed == 1,
              "elicitation asked %d time(s); on_task: %d statuses, input_required x%d, last \"%s\"", st.research_asked,
              seen1.n, seen1.input, seen1.last);
        mcp_call_free(call);
    } else CHECK(0, "research sent: %s", err.message);

    /* attach to it, done: the result again */
    call = mcp_client_attach_task(c, id, NULL, &err);
    if (call) {
        mcp_call_wait(call, 10000);
        s = mcp_call_result(call, &doc, &err);
        CHECK(s == MCP_OK && !strcmp(tool_text(doc, text, sizeof text), "Report on python (snake) after 3 stages"),
              "mcp_client_attach_task %s: %s", id, s == MCP_OK ? text : err.message);
        if (s == MCP_OK) mcp_json_free(doc);
        mcp_call_free(call);
    } else CHECK(0, "attach: %s", err.message);
    call = mcp_client_attach_task(c, "research-0", NULL, &err);
    if (call) {
        mcp_call_wait(call, 10000);
        s = mcp_call_result(call, NULL, &err);
        CHECK(s == MCP_ERR_RPC && err.rpc_code == -32602 && strstr(err.message, "research-0"),
              "attach to an unknown id: %s", err.message);
        mcp_call_free(call);
    } else CHECK(0, "attach: %s", err.message);

    /* cancel in the middle: tasks/cancel reaches the handler (over HTTP: its Mcp-Name accepted) */
    memset(&seen1, 0, sizeof seen1);
    call = mcp_client_send_tool(c, "research", "{\"topic\":\"dogs\",\"steps\":20}", &o, &err);
    if (call) {
        for (end = mcp_time_ms() + 10000; seen1.working < 3 && mcp_call_status(call) == MCP_AGAIN && mcp_time_ms() < end; )
            mcp_client_poll(c, 20);
        s = mcp_call_cancel(call, "interop: cancelled in the middle");
        mcp_call_result(call, NULL, &err);
        CHECK(s == MCP_OK && mcp_call_status(call) == MCP_ERR_CANCELLED && strstr(err.message, "research-"),
              "cancelled at \"%s\": %s", seen1.last, err.message);
        mcp_call_free(call);
        for (end = mcp_time_ms() + 3000; mcp_time_ms() < end; ) {
            char *log;
            mcp_client_poll(c, 50);
            if (!url && stderr_cancels) break;
            if (url && (log = read_whole(logpath)) != NULL) {
                ok = log_count(log, ": tasks/cancel") > 0;
                free(log);
                if (ok) { stderr_cancels = 1; break; }
            }
        }
        CHECK(stderr_cancels == 1, "the server's tasks/cancel handler ran (%d)", stderr_cancels);
        WAIT_UNTIL(c, 0, 300);                            /* its answer arrives */
    } else CHECK(0, "research sent: %s", err.message);

    mcp_client_get_stats(c, &after);
    st.late_ok = (int)(after.unknown_ids - before.unknown_ids);
    st.late_more = 1;
    CHECK(st.late_ok >= 0 && st.late_ok <= 1, "late answers ignored: %d (a tasks/get in flight then; tasks/cancel's own "
          "is quiet)", st.late_ok);
    finish(c);

    /* desc.no_tasks: the extension is not declared, so the server answers at once */
    st.closed = 0;
    st.late_ok = st.late_more = 0;
    base_desc(&d, args);
    d.env = env;
    if (url) { d.transport = MCP_HTTP; d.command = NULL; d.args = NULL; d.env = NULL; d.url = url; }
    d.no_tasks = 1;
    if (!(c = start_version(&d, "2026-07-28"))) return;
    s = mcp_client_call_tool(c, "research", "{\"topic\":\"owls\"}", &doc, &err);
    CHECK(s == MCP_OK && !strcmp(tool_text(doc, text, sizeof text), "Report on owls after 3 stages"),
          "desc.no_tasks: not a task (the extension undeclared), answered at once: %s", s == MCP_OK ? text : err.message);
    if (s == MCP_OK) mcp_json_free(doc);
    finish(c);
}

static void modern_tasks_stdio(void)
{
    reset_state("modern-server tasks (stdio)");
    printf("== %s\n", st.name);
    modern_tasks(NULL, NULL);
    count_line();
}

static void modern_tasks_http(const char *tmpdir)
{
    char script[1200], url[128];
    http_server sv;
    int gone;
    modern_script(script, sizeof script);
    reset_state("modern-server tasks (streamableHttp)");
    printf("== %s\n", st.name);
    setenv("MODERN_SERVER_TASKS", "1", 1);               /* inherited by the server */
    gone = http_server_start_cmd(&sv, "modern-server", script, "http", "modern-server-http-tasks", tmpdir);
    unsetenv("MODERN_SERVER_TASKS");
    if (!gone) { count_line(); return; }
    snprintf(url, sizeof url, "http://127.0.0.1:%d/mcp", sv.port);
    modern_tasks(url, sv.log);
    gone = http_server_stop(&sv);
    CHECK(gone, "modern-server stopped: process group %s", gone ? "empty, no orphan" : "NOT empty");
    if (s_failed || verbose) print_log_tail(&sv, verbose ? 100000 : 15);
    count_line();
}

/* INTEROP_TRANSPORTS (space-separated) names the server-everything runs; unset: all. */
static int wants(const char *transport)
{
    const char *list = getenv("INTEROP_TRANSPORTS"), *p;
    size_t n = strlen(transport);
    if (!list || !*list) return 1;
    for (p = list; (p = strstr(p, transport)) != NULL; p += n)
        if ((p == list || p[-1] == ' ' || p[-1] == ',') && (!p[n] || p[n] == ' ' || p[n] == ',')) return 1;
    return 0;
}

int main(int argc, char **argv)
{
    char tmpl[] = "/tmp/mcp-interop-XXXXXX", entry[1200];
    const char *tmpdir;
    const char *pkgs[3] = { "server-everything", "server-filesystem", "server-memory" };
    int i, missing = 0;
    int64_t t0 = mcp_time_ms();

    setvbuf(stdout, NULL, _IOLBF, 0);
    verbose = getenv("INTEROP_VERBOSE") && *getenv("INTEROP_VERBOSE") && strcmp(getenv("INTEROP_VERBOSE"), "0");
    snprintf(interop_dir, sizeof interop_dir, "%s", argc > 1 ? argv[1] : "tests/interop");
    for (i = 0; i < 3; i++) {
        entry_point(pkgs[i], entry, sizeof entry);
        if (!file_exists(entry)) { printf("missing %s: run npm ci in %s\n", entry, interop_dir); missing++; }
    }
    snprintf(entry, sizeof entry, "%s/node_modules/@modelcontextprotocol/server/dist/index.mjs", interop_dir);
    if (!file_exists(entry)) { printf("missing %s: run npm ci in %s\n", entry, interop_dir); missing++; }
    modern_script(entry, sizeof entry);
    if (!file_exists(entry)) { printf("missing %s\n", entry); missing++; }
    if (missing) { printf("0 passed, %d failed\n", missing); return 1; }
    if (!(tmpdir = mkdtemp(tmpl))) { perror("mkdtemp"); printf("0 passed, 1 failed\n"); return 1; }

    signal(SIGINT, on_fatal_signal);          /* an interrupted run takes its servers along */
    signal(SIGTERM, on_fatal_signal);
    signal(SIGHUP, on_fatal_signal);
#ifndef MCP_NO_HOST
    if (getenv("INTEROP_ONLY") && !strcmp(getenv("INTEROP_ONLY"), "host")) {   /* the host section alone */
        host_all(tmpdir);
        rm_tree(tmpdir);
        printf("%d passed, %d failed\n", passed, failed);
        return failed ? 1 : 0;
    }
#endif
    if (wants("stdio")) {
        reset_state("server-everything (stdio)");
        printf("== %s\n", st.name);
        everything(tmpdir, st.name, MCP_STDIO, NULL);
        count_line();
    }
    if (wants("streamableHttp")) everything_http(tmpdir, "streamableHttp");
    if (wants("sse")) everything_http(tmpdir, "sse");
    filesystem(tmpdir);
    memory(tmpdir);
    if (wants("stdio")) { modern_stdio(NULL); modern_stdio("2025-11-25"); modern_tasks_stdio(); }
    if (wants("streamableHttp")) { modern_http(tmpdir); modern_tasks_http(tmpdir); }
#ifndef MCP_NO_HOST
    if (wants("stdio") && wants("streamableHttp") && wants("sse")) host_all(tmpdir);
#endif

    rm_tree(tmpdir);
    printf("interop: %.1f s\n", (double)(mcp_time_ms() - t0) / 1000.0);
    printf("%d passed, %d failed\n", passed, failed);
    return failed ? 1 : 0;
}
