/* test_server - an MCP server over stdio for tests/test_client.c and tests/test_modern_stdio.c,
   built on mcp.h's own JSON and JSONL layers. Single-threaded: one poll() loop over stdin and a
   list of timers.

   By default it speaks the legacy era (2024-11-05 .. 2025-11-25): initialize (echoes the
   client's version when it knows it), tools/list (2 pages), tools/call, resources/list (2 pages),
   resources/templates/list, resources/read, resources/subscribe, resources/unsubscribe,
   prompts/list, prompts/get, completion/complete, logging/setLevel, ping. Every other method
   with an id gets -32601, except "test/never", which is never answered.

   Tools (arguments in braces):
     echo {...}            text = the arguments as compact JSON
     add {a, b}            text = a+b (%g), structuredContent {"sum": a+b}
     meta                  text = params._meta as JSON ("null" if none)
     slow {ms, every, no_total, honor_cancel}
                           answers "slept MS ms" after ms; with a progressToken, sends
                           notifications/progress every `every` ms (progress 1, 2, ..., total
                           ms/every, message "step K"; a server running late still sends
                           every step before the answer); honor_cancel: a notifications/cancelled
                           for it drops the answer (else the answer comes anyway, late)
     fail                  isError: true, text "the tool failed"
     never                 never answered
     defer                 held until the answer to the next request has been sent
     rev {n, batch}        held until n rev calls are held, then all answered, newest first
                           (batch: true on the last one: all in one JSON array, 2025-03-26);
                           text = the arguments as JSON
     ask {method, params, numeric_id, cancel}
                           sends that request to the client (id "s<K>", or the integer 1000+K)
                           and answers with the client's reply as text: {"result":..} or
                           {"error":..}; cancel: sends notifications/cancelled for it at once
                           and answers "cancelled" (a reply arriving later goes to history)
     notify                sends notifications/message (debug, info, warning, error; only those
                           at or above the level set with logging/setLevel), tools, resources
                           and prompts list_changed, resources/updated for each subscribed uri,
                           a progress for the unknown token "nobody", a cancelled for request
                           424242; then answers "notified"
     garbage               writes 9 malformed lines (see below), a blank line and a CRLF-ended
                           notifications/message, then answers "garbage sent"
     badids                writes 4 responses whose ids match nothing, then answers
     edge                  writes exactly 65536 bytes in one write: a notifications/message line
                           and the line "not json!", whose newline is the last byte; answers
     batch                 answers inside a JSON array, after a notifications/message
     longline {bytes}      writes a notifications/message line of about `bytes` bytes, answers
     stderr {bytes, newlines, linelen}
                           writes `bytes` bytes to stderr: 'x', or with newlines: true lines of
                           linelen 'x' each ended by '\n' (the newlines count in `bytes`); then
                           ends the last line if it is open and writes "stderr done\n"; answers
     flood {count}         answers, then stops reading stdin for good and writes `count`
                           notifications/message ("flood K") as fast as stdout takes them
     close_stdout          answers, then closes its stdout and keeps running
     close_stdin           closes its stdin, answers, and keeps running
     exit {code, stderr, how}
                           writes stderr (+ newline) and then: how "abort" calls abort(),
                           otherwise _exit(code)
     spawn {closefds, stubborn}
                           forks a grandchild in its process group that sleeps (up to 30 s);
                           closefds: its stdio goes to /dev/null; stubborn: it ignores SIGTERM;
                           text = its pid
     pid, cwd, env {name}  text = getpid(), getcwd(), getenv(name) or "(unset)"
     client                text = the initialize params the client sent, as JSON
     history               text = a JSON array: every notification received (whole message),
                           plus {"late_reply": msg} / {"unexpected_reply": msg} entries
   An unknown tool gets the JSON-RPC error -32602 "Unknown tool: NAME".

   Tools not in tools/list (the listing stays the same in every era):
     whoami                asks the user's name with elicitation/create (legacy: a request to
                           the client; 2026-07-28: input_required, key "name", requestState
                           "whoami"); text "Hello, NAME!", "You declined to give your name.",
                           "You cancelled." or "No name given."
     mrtr {inputs, rounds, no_state, ignore_caps}
                           2026-07-28 only: input_required with inputRequests for each letter of
                           inputs (default "esr"): e elicitation/create (key "elicit"), s
                           sampling/createMessage ("sample"), r roots/list ("roots"), x tasks/get
                           ("custom", which no client answers); "" asks nothing (requestState
                           only). The requestState carries the round, the questions, the request
                           ids so far, a hash of the arguments, awkward characters (quotes,
                           backslash, tab, non-ASCII) and a checksum: a retry whose state was
                           changed, that has other arguments, that reuses an id, or that answers
                           a question with something that is not an answer of its kind gets
                           -32602 with a sentence; a question left unanswered is asked again
                           (same round). After `rounds` rounds (default 1) the text is
                           {"rounds":K,"ids":[every request id],"inputResponses":<the last>,
                           "requestState":<the last>}. no_state: no requestState is sent, and one
                           coming back is an error. A question needs its capability declared in
                           _meta clientCapabilities, else -32021 with data.requiredCapabilities
                           (ignore_caps: ask anyway).
     badresult {type}      a result with resultType `type` (default "task")
     error {code, message, data}
                           the JSON-RPC error code (default -32603) with that message and data
     requests              text = a JSON array of every request received so far, this one
                           included: {"id", "method", and name, uri, _meta, requestState,
                           inputResponses, task, taskId when the params have them}
     fire {what, uri}      2026-07-28 only: what "tools", "resources", "prompts" or "updated"
                           (with uri): notifications/tools/list_changed, resources/list_changed,
                           prompts/list_changed or resources/updated {uri} on every open
                           subscription whose accepted filter has it (updated: lists the uri),
                           each with params._meta io.modelcontextprotocol/subscriptionId = that
                           listen's id; then answers "sent N" (N notifications, in opening order)
     end_listen {id}       2026-07-28 only: ends every subscription (or only the listen with that
                           id) with the result {"resultType":"complete","_meta":
                           {"io.modelcontextprotocol/subscriptionId":ID}}; answers "ended N"
     subscriptions         2026-07-28 only: text = [{"id", "notifications": the accepted filter}]
                           of the open subscriptions, in opening order
   In 2026-07-28, ask sends its request back as input_required (key "ask", requestState "ask")
   and the retry's text is {"result": inputResponses.ask} or {"error":"no answer"};
   resources/read "mrtr://gated" and prompts/get "gated" need an elicitation (key "confirm",
   requestState "gate:WHAT", {"ok": true} accepted) first.

   The malformed lines of `garbage`: "this is not json", a truncated object, {"hello":"world"},
   jsonrpc "1.0", an empty batch [], an object id, both result and error, a bare JSON string,
   invalid UTF-8.

   Flags (also read from the environment variable TEST_SERVER_MODE, space-separated, with or
   without the leading "--"):
     --version=V           answer initialize with protocol version V, whatever was asked
     --caps=LIST           comma-separated subset of tools,resources,subscribe,prompts,
                           logging,completions (default: all)
     --no-instructions     no "instructions" in the initialize result
     --init=MODE           exit: write a Node-style "Error: Cannot find module 'x'" to stderr
                           and exit with status 1 on initialize; exit-early: the same at startup,
                           before reading; crash: abort() on initialize; never: never answer it;
                           slow:MS: answer after MS; ping: ping the client first, answer after
                           its reply
     --stderr-hello        write "test_server: starting\r\n" "second line\n" to stderr at startup
                           and "bye" (no newline) when stdin ends
     --ignore-eof          keep running when stdin ends
     --ignore-term         ignore SIGTERM
     --term-file=PATH      on SIGTERM write "SIGTERM\n" to PATH, then die of SIGTERM
     --log=PATH            append every line received to PATH
     --era=legacy          the default: initialize, then calls; server/discover gets -32601
     --era=modern          2026-07-28 only: every request must carry _meta
                           io.modelcontextprotocol/protocolVersion and .../clientCapabilities
                           (else -32602) with a supported version (else -32022, data {supported,
                           requested}); server/discover answers a DiscoverResult
                           (supportedVersions, capabilities, _meta serverInfo, instructions);
                           results carry resultType "complete" and _meta serverInfo (lists,
                           resources/read and server/discover also ttlMs and cacheScope); initialize
                           gets -32022 naming the versions; ping, logging/setLevel and
                           resources/subscribe/unsubscribe get -32601; an unknown resource is
                           -32602 with data {uri}; notify sends notifications/message only when
                           the request's _meta has io.modelcontextprotocol/logLevel (at or above
                           it), and no list_changed. subscriptions/listen {notifications} (not
                           an object: -32602) is acknowledged at once with notifications/
                           subscriptions/acknowledged, _meta io.modelcontextprotocol/subscriptionId
                           = the request's id and notifications = the subset served:
                           toolsListChanged, resourcesListChanged, resourceSubscriptions (the
                           strings; each as --caps allows), never promptsListChanged; it then stays
                           open (several at once) until notifications/cancelled for its id, which
                           drops it and writes "test_server: subscription ID cancelled" to stderr,
                           or end_listen
     --era=dual            both: server/discover and requests with _meta (or any request before
                           initialize) are served as 2026-07-28, initialize starts a legacy session
                           in which requests without _meta are served as legacy
     --supported=LIST      2026-07-28: the versions supported (comma-separated; default 2026-07-28)
     --discover-any-version  server/discover is answered whatever version it asks for
     --discover-error=CODE the first server/discover gets this error (-32022 with data, -32021
                           with data.requiredCapabilities, -32020, or any code)
     --no-result-type      2026-07-28 results without resultType
     --notfound=CODE       2026-07-28: the code for an unknown resource (default -32602)
     --pages=MODE          tools/list pages for ever: "loop" answers nextCursor "page2" to every
                           page (the second one repeats the cursor it got), "endless" p1, p2, ...
     --probe=MODE          legacy: server/discover (sent before initialize) is answered with the
                           error CODE (a number), with the result {} ("result"), -32601 after MS
                           ("slow:MS"), or never ("silent"); default -32601 at once
   For tests/test_host.c and bench/host_bench.c (a host with many servers):
     --startup-delay=MS    sleep MS before reading anything (a slow-starting npx server)
     --exit-on-initialize  when initialize arrives: "test_server: exit-on-initialize: exiting
                           with status 3" on stderr, then exit(3)
     --tools=N             N more tools, named PREFIX1 .. PREFIXN (see --tool-prefix)
     --tool-prefix=NAME    the prefix of --tools' names (default "extra")
     --tool-names=LIST     more tools with exactly these names (comma-separated; a name with a
                           space or an odd byte only through argv). Every added tool is listed
                           after the usual ones (the two pages split the whole list) and answers
                           text "NAME: ARGS" (ARGS the arguments as compact JSON, "{}" if none)
     --list-changed-after=MS
                           MS after its first tools/list was answered, adds the tool
                           "added_later" (answering as the tools above) to its list and sends
                           notifications/tools/list_changed (2026-07-28: on every open
                           subscription that took toolsListChanged); once
     --exit-after-calls=K  once K tools/call requests have been handled (answered, for the
                           tools that answer at once): "test_server: exit-after-calls: exiting
                           after K calls" on stderr, then _exit(5)
     --ttl=MS[,CUR=MS...]  2026-07-28: the ttlMs of the cacheable results (default 60000; < 0:
                           none sent), and of the list pages asked with a cursor starting CUR
     --scope=S             2026-07-28: their cacheScope (default public)
     --pages=N             (a digit) tools/list in N pages: cursors page2 ... pageN
     --cursor-ms=MS        tools/list's cursor page2 is page2@T (T its time of issue), refused
                           with -32602 "Expired cursor" once older than MS
     --big=BYTES           each tools/list page also carries "pad", a string of BYTES bytes
     --tasks, --task-poll=MS, --task-ttl=MS, --task-page=N, --task-notify
                           the task mode, both eras: task tools, tasks/get, tasks/result,
                           tasks/list, tasks/cancel, tasks/update (see >>tasks below)
   It exits with status 0 when stdin ends (unless --ignore-eof). */
#define _POSIX_C_SOURCE 200809L
#define MCP_IMPLEMENTATION
#include "../../mcp.h"
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/types.h>
#include <sys/uio.h>

/* ---- options and state ---------------------------------------------------------------------- */

enum { ERA_LEGACY = 0, ERA_MODERN, ERA_DUAL };

static struct {
    const char *version, *caps, *init, *log, *term_file;
    int no_instructions, stderr_hello, ignore_eof, ignore_term;
    int era;                         /* ERA_LEGACY (default), ERA_MODERN, ERA_DUAL */
    const char *supported;           /* modern: comma-separated versions; default 2026-07-28 */
    const char *probe;               /* legacy: how server/discover is answered */
    const char *pages;               /* tools/list: "loop" or "endless" nextCursors */
    long discover_error;             /* modern: the first server/discover gets this error */
    int discover_any;                /* modern: server/discover answered whatever the version */
    int no_result_type;              /* modern: results without resultType */
    long notfound;                   /* modern: the code for an unknown resource (-32602) */
    int startup_delay;               /* ms slept before reading anything */
    int exit_on_initialize;          /* exit(3) when initialize arrives */
    int extra_tools;                 /* --tools=N */
    const char *tool_prefix;         /* their prefix; NULL: "extra" */
    const char *tool_names;          /* --tool-names=LIST */
    int list_changed_after;          /* ms after the first tools/list: "added_later" appears */
    long exit_after_calls;           /* exit after this many tools/call */
    const char *ttl, *scope;         /* modern: ttlMs (and per cursor), cacheScope */
    long cursor_ms, big;             /* tools/list: cursors that expire; padding per page */
} opt;

static char **extra;                 /* the added tools' names (--tools, --tool-names, added_later) */
static int nextra;
static long calls_handled;           /* tools/call requests handled (--exit-after-calls) */
static int list_change_armed;        /* --list-changed-after: the timer was started */

static int log_fd = -1;
static int reading = 1;              /* stdin still read */
static int out_closed;               /* stdout closed on purpose */
static int level = -1;               /* logging level index; -1: everything */
static mcp_buf history;              /* items of the history array, comma-separated */
static char *init_params;            /* what the client sent with initialize */
static char *subs[32]; static int nsubs;
static long flood_left, flood_n;
static int ask_seq;
static int sending_deferred;
static int cur_modern;               /* the request being answered is a 2026-07-28 one */
static const mcp_json *cur_meta;     /* ... and its params._meta */
static const char *cur_method;       /* ... and its method */
static const char *cur_cursor;       /* ... and its params.cursor */
static int initialized;              /* dual: initialize came, requests without _meta are legacy */
static int discover_count;           /* server/discover requests answered so far */
static mcp_buf reqlog;               /* items of the "requests" array, comma-separated */

typedef struct listen_sub {          /* 2026-07-28: an open subscriptions/listen */
    char *id;                        /* the request's id as JSON text: the subscriptionId */
    int tools, resources;            /* toolsListChanged, resourcesListChanged accepted */
    mcp_json_doc *uris;              /* resourceSubscriptions accepted (an array), or NULL */
    struct listen_sub *next;
} listen_sub;
static listen_sub *listens;          /* in the order they were opened */

static const char *const levels[] = { "debug", "info", "notice", "warning", "error", "critical",
                                      "alert", "emergency", NULL };

enum { IT_SLOW, IT_REV, IT_DEFER, IT_ASK, IT_INIT, IT_PROBE, IT_LISTCHG };
typedef struct item {
    int kind;
    char *id;                        /* the request's id as JSON text (NULL: nobody waits) */
    char *token;                     /* progress token as JSON text, or NULL */
    char *text;                      /* rev/defer: the answer; ask/init: our request's id */
    int64_t start, due, end;         /* due: -1 = no timer */
    int every, step, no_total, honor_cancel, ms;
    int modern;                      /* answered in the 2026-07-28 shape */
    int whoami;                      /* IT_ASK for the whoami tool: the answer is a greeting */
    struct item *next;
} item;
static item *items;

static char *xstrdup(const char *s)
{
    size_t n = strlen(s) + 1;
    char *d = (char *)malloc(n);
    if (!d) { perror("malloc"); _exit(3); }
    memcpy(d, s, n);
    return d;
}

static char *dump(const mcp_json *v)
{
    char *t = mcp_json_dump(v, 0, NULL), *d;
    if (!t) return xstrdup("null");
    d = xstrdup(t);
    mcp_free(t);
    return d;
}

/* Compact JSON of v in a buffer reused by every call (valid until the next one): no allocation
   per message. "null" (n = 4) if it cannot be written, as dump() says. */
static const char *dump_tmp(const mcp_json *v, size_t *n)
{
    static mcp_jw w;
    const char *t;
    mcp_jw_reset(&w);
    mcp_jw_value(&w, v);
    if ((t = mcp_jw_text(&w, n)) != NULL) return t;
    *n = 4;
    return "null";
}

static void item_free(item *it)
{
    free(it->id); free(it->token); free(it->text); free(it);
}

static void item_unlink(item *it)
{
    item **pp;
    for (pp = &items; *pp; pp = &(*pp)->next)
        if (*pp == it) { *pp = it->next; return; }
}

static item *item_new(int kind, const char *id)
{
    item *it = (item *)calloc(1, sizeof *it);
    if (!it) { perror("calloc"); _exit(3); }
    it->kind = kind; it->id = id ? xstrdup(id) : NULL; it->due = -1; it->modern = cur_modern;
    it->next = items; items = it;
    return it;
}

/* ---- output --------------------------------------------------------------------------------- */

static void write_all(int fd, const char *p, size_t n)
{
    while (n) {
        ssize_t r = write(fd, p, n);
        if (r < 0 && errno == EINTR) continue;
        if (r <= 0) { if (fd == 1) _exit(4); return; }
        p += r; n -= (size_t)r;
    }
}

static void err_str(const char *s) { write_all(2, s, strlen(s)); }

/* One message on stdout in one writev: its pieces (the last one ends with the newline), not
   copied together first. A short write goes on from where it stopped. */
static void send_iov(struct iovec *v, int cnt)
{
    ssize_t r;
    if (out_closed) return;
    while (cnt > 0) {
        r = writev(1, v, cnt);
        if (r < 0 && errno == EINTR) continue;
        if (r <= 0) _exit(4);
        while (cnt > 0 && (size_t)r >= v->iov_len) { r -= (ssize_t)v->iov_len; v++; cnt--; }
        if (cnt > 0) { v->iov_base = (char *)v->iov_base + r; v->iov_len -= (size_t)r; }
    }
}

/* One message: the text and its newline in one write. */
static void send_line(const char *s, size_t n)
{
    struct iovec v[2];
    v[0].iov_base = (void *)s; v[0].iov_len = n;
    v[1].iov_base = (void *)"\n"; v[1].iov_len = 1;
    send_iov(v, 2);
}

static void send_str(const char *s) { send_line(s, strlen(s)); }

static void sendf(const char *fmt, ...)
{
    char buf[8192];
    va_list ap;
    int n;
    va_start(ap, fmt);
    n = vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    if (n < 0 || (size_t)n >= sizeof buf) { err_str("test_server: sendf overflow\n"); _exit(3); }
    send_line(buf, (size_t)n);
}

static void flush_deferred(void);

#define SERVER_INFO_META "{\"io.modelcontextprotocol/serverInfo\":{\"name\":\"test_server\",\"version\":\"1.2.3\"}}"

static int is_cacheable(const char *method)
{
    return method && (!strcmp(method, "tools/list") || !strcmp(method, "resources/list") ||
                      !strcmp(method, "resources/templates/list") || !strcmp(method, "prompts/list") ||
                      !strcmp(method, "resources/read") || !strcmp(method, "server/discover"));
}

/* --ttl: the ttlMs of the result being sent: the first number, or CUR=MS for a page asked with
   a cursor starting with CUR */
static long ttl_of(void)
{
    const char *p;
    size_t n;
    if (!opt.ttl) return 60000;
    for (p = strchr(opt.ttl, ','); p && cur_cursor; p = strchr(p + 1, ',')) {
        n = strcspn(p + 1, "=");
        if (p[1 + n] == '=' && !strncmp(cur_cursor, p + 1, n)) return atol(p + 2 + n);
    }
    return atol(opt.ttl);
}

/* A result in the 2026-07-28 shape: resultType "complete" first (unless the result names its
   own, as input_required does, or --no-result-type), the members, then _meta with serverInfo,
   and ttlMs and cacheScope on the cacheable results. NULL: leave the text as it is. */
static char *modernize(const char *result, size_t n)
{
    mcp_json_doc *d = mcp_json_parse(result, n, NULL);
    const mcp_json *r = mcp_json_root(d);
    mcp_jw w;
    char *t;
    size_t i, kl;
    const char *k;
    if (mcp_json_typeof(r) != MCP_JSON_OBJECT || mcp_json_get(r, "resultType")) { mcp_json_free(d); return NULL; }
    mcp_jw_init(&w, 0);
    mcp_jw_obj_begin(&w);
    if (!opt.no_result_type) { mcp_jw_key(&w, "resultType"); mcp_jw_str(&w, "complete"); }
    for (i = 0; i < mcp_json_len(r); i++) {
        k = mcp_json_key_at(r, i, &kl);
        mcp_jw_keyn(&w, k, kl); mcp_jw_value(&w, mcp_json_at(r, i));
    }
    if (!mcp_json_get(r, "_meta")) {
        mcp_jw_key(&w, "_meta");
        mcp_jw_raw(&w, SERVER_INFO_META, strlen(SERVER_INFO_META));
    }
    if (is_cacheable(cur_method) && !mcp_json_get(r, "ttlMs") && ttl_of() >= 0) {
        mcp_jw_key(&w, "ttlMs"); mcp_jw_int(&w, ttl_of());
        mcp_jw_key(&w, "cacheScope"); mcp_jw_str(&w, opt.scope ? opt.scope : "public");
    }
    mcp_jw_obj_end(&w);
    mcp_json_free(d);
    t = mcp_jw_finish(&w, NULL, NULL);
    if (!t) { err_str("test_server: modernize failed\n"); _exit(3); }
    return t;
}

/* {"jsonrpc":"2.0","id":ID,"result":RESULT} and its newline, written as three pieces in one
   writev: the head (built in a reused buffer), the result where it lies, the tail. */
static void send_resultn(const char *id, const char *result, size_t n)
{
    static mcp_buf head;
    struct iovec v[3];
    char *mod = cur_modern ? modernize(result, n) : NULL;
    if (mod) { result = mod; n = strlen(mod); }
    head.len = 0;
    mcp_buf_append(&head, "{\"jsonrpc\":\"2.0\",\"id\":", 22);
    mcp_buf_append(&head, id, strlen(id));
    if (mcp_buf_append(&head, ",\"result\":", 10) != MCP_OK) _exit(3);
    v[0].iov_base = head.data; v[0].iov_len = head.len;
    v[1].iov_base = (void *)result; v[1].iov_len = n;
    v[2].iov_base = (void *)"}\n"; v[2].iov_len = 2;
    send_iov(v, 3);
    mcp_free(mod);
    flush_deferred();
}

static void send_result(const char *id, const char *result) { send_resultn(id, result, strlen(result)); }

/* An error with data (JSON text, or NULL for none). */
static void send_error_data(const char *id, long code, const char *message, const char *data)
{
    static mcp_jw w;                          /* reused */
    const char *t;
    size_t n;
    mcp_jw_reset(&w);
    mcp_jw_obj_begin(&w);
    mcp_jw_key(&w, "jsonrpc"); mcp_jw_str(&w, "2.0");
    mcp_jw_key(&w, "id"); mcp_jw_raw(&w, id, strlen(id));
    mcp_jw_key(&w, "error"); mcp_jw_obj_begin(&w);
    mcp_jw_key(&w, "code"); mcp_jw_int(&w, code);
    mcp_jw_key(&w, "message"); mcp_jw_str(&w, message);
    if (data) { mcp_jw_key(&w, "data"); mcp_jw_raw(&w, data, strlen(data)); }
    mcp_jw_obj_end(&w);
    mcp_jw_obj_end(&w);
    if ((t = mcp_jw_text(&w, &n)) != NULL) send_line(t, n);
    else { err_str("test_server: send_error_data: bad data\n"); _exit(3); }
    flush_deferred();
}

static void send_error(const char *id, long code, const char *message)
{
    send_error_data(id, code, message, NULL);
}

/* A deferred answer goes out right after the next other answer. */
static void flush_deferred(void)
{
    item *it, *next;
    if (sending_deferred) return;
    sending_deferred = 1;
    for (it = items; it; it = next) {
        next = it->next;
        if (it->kind != IT_DEFER) continue;
        item_unlink(it);
        {
            int was = cur_modern;
            const char *was_method = cur_method;
            cur_modern = it->modern; cur_method = "tools/call";
            send_result(it->id, it->text);
            cur_modern = was; cur_method = was_method;
        }
        item_free(it);
        next = items;                         /* the list changed: start over */
    }
    sending_deferred = 0;
}

/* {"content":[{"type":"text","text":TEXT}] [,"isError":true] [,"structuredContent":SC]} */
static void write_tool_text(mcp_jw *w, const char *text, size_t n, int is_error, const char *structured)
{
    mcp_jw_obj_begin(w);
    mcp_jw_key(w, "content"); mcp_jw_arr_begin(w);
    mcp_jw_obj_begin(w);
    mcp_jw_key(w, "type"); mcp_jw_str(w, "text");
    mcp_jw_key(w, "text"); mcp_jw_strn(w, text, n);
    mcp_jw_obj_end(w);
    mcp_jw_arr_end(w);
    if (is_error) { mcp_jw_key(w, "isError"); mcp_jw_bool(w, 1); }
    if (structured) { mcp_jw_key(w, "structuredContent"); mcp_jw_raw(w, structured, strlen(structured)); }
    mcp_jw_obj_end(w);
}

/* The same, malloc'ed (mcp_free it), for answers kept or sent later. */
static char *tool_text(const char *text, int is_error, const char *structured)
{
    mcp_jw w;
    char *t;
    mcp_jw_init(&w, 0);
    write_tool_text(&w, text, strlen(text), is_error, structured);
    t = mcp_jw_finish(&w, NULL, NULL);
    if (!t) { err_str("test_server: tool_text failed\n"); _exit(3); }
    return t;
}

/* Answers with a tool result at once: built in a reused writer, no allocation. */
static void answer_tool(const char *id, const char *text, size_t n, int is_error, const char *structured)
{
    static mcp_jw w;
    const char *r;
    size_t rn;
    mcp_jw_reset(&w);
    write_tool_text(&w, text, n, is_error, structured);
    if (!(r = mcp_jw_text(&w, &rn))) { err_str("test_server: tool_text failed\n"); _exit(3); }
    send_resultn(id, r, rn);
}

static void answer_text(const char *id, const char *text) { answer_tool(id, text, strlen(text), 0, NULL); }

static void notify_log(const char *lvl, const char *data)
{
    static mcp_jw w;                          /* reused: flood sends thousands */
    const char *t;
    size_t n;
    mcp_jw_reset(&w);
    mcp_jw_obj_begin(&w);
    mcp_jw_key(&w, "jsonrpc"); mcp_jw_str(&w, "2.0");
    mcp_jw_key(&w, "method"); mcp_jw_str(&w, "notifications/message");
    mcp_jw_key(&w, "params"); mcp_jw_obj_begin(&w);
    mcp_jw_key(&w, "level"); mcp_jw_str(&w, lvl);
    mcp_jw_key(&w, "logger"); mcp_jw_str(&w, "test_server");
    mcp_jw_key(&w, "data"); mcp_jw_str(&w, data);
    mcp_jw_obj_end(&w);
    mcp_jw_obj_end(&w);
    if ((t = mcp_jw_text(&w, &n)) != NULL) send_line(t, n);
}

static void history_add(const char *json)
{
    if (history.len) mcp_buf_append(&history, ",", 1);
    mcp_buf_append(&history, json, strlen(json));
}

/* ---- signals, grandchildren ----------------------------------------------------------------- */

static void on_term(int sig)
{
    int fd;
    (void)sig;
    if (opt.term_file && (fd = open(opt.term_file, O_WRONLY | O_CREAT | O_TRUNC, 0644)) >= 0) {
        if (write(fd, "SIGTERM\n", 8) < 0) {}
        close(fd);
    }
    signal(SIGTERM, SIG_DFL);
    raise(SIGTERM);
}

static void nap_ms(int ms)
{
    struct timespec ts;
    ts.tv_sec = ms / 1000; ts.tv_nsec = (long)(ms % 1000) * 1000000L;
    while (nanosleep(&ts, &ts) < 0 && errno == EINTR) {}
}

/* Returns once the grandchild has set itself up (its signal disposition included). */
static pid_t spawn_grandchild(int closefds, int stubborn)
{
    int ready[2], i, fd;
    char b;
    pid_t pid;
    if (pipe(ready) < 0) return -1;
    pid = fork();
    if (pid != 0) {
        close(ready[1]);
        while (read(ready[0], &b, 1) < 0 && errno == EINTR) {}
        close(ready[0]);
        return pid;
    }
    close(ready[0]);
    if (closefds && (fd = open("/dev/null", O_RDWR)) >= 0) {
        dup2(fd, 0); dup2(fd, 1); dup2(fd, 2);
        if (fd > 2) close(fd);
    }
    if (log_fd >= 0) close(log_fd);
    signal(SIGTERM, stubborn ? SIG_IGN : SIG_DFL);
    if (write(ready[1], "r", 1) < 0) {}
    close(ready[1]);
    for (i = 0; i < 300; i++) nap_ms(100);    /* a safety net: never outlive a test run by long */
    _exit(0);
    return 0;                                  /* not reached */
}

/* the task mode (>>tasks, after the timers) */
static int task_flag(const char *a);
static void task_caps(mcp_jw *w);
static void task_list_tools(mcp_jw *w);
static int task_tool_call(const char *id, const char *name, const mcp_json *params);
static int task_request(const char *id, const char *method, const mcp_json *params);
static int task_reply(const mcp_json *m, mcp_msg_kind kind);
static void task_timers(int64_t now);
static int64_t task_next_due(int64_t best);
static void task_free_all(void);

/* ---- initialize ----------------------------------------------------------------------------- */

static int has_cap(const char *name)
{
    const char *c = opt.caps ? opt.caps : "tools,resources,subscribe,prompts,logging,completions";
    size_t n = strlen(name);
    while (*c) {
        const char *e = strchr(c, ',');
        size_t len = e ? (size_t)(e - c) : strlen(c);
        if (len == n && !memcmp(c, name, n)) return 1;
        if (!e) break;
        c = e + 1;
    }
    return 0;
}

static const char *init_version(void)
{
    static const char *const known[] = { "2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05", NULL };
    mcp_json_doc *d;
    const char *v;
    int i;
    static char picked[64];
    if (opt.version) return opt.version;
    strcpy(picked, "2025-11-25");
    d = init_params ? mcp_json_parse(init_params, strlen(init_params), NULL) : NULL;
    v = mcp_json_str(mcp_json_get(mcp_json_root(d), "protocolVersion"));
    for (i = 0; v && known[i]; i++)
        if (!strcmp(v, known[i])) { strcpy(picked, v); break; }
    mcp_json_free(d);
    return picked;
}

/* The server's capabilities (--caps), the same in both eras. */
static void write_caps(mcp_jw *wp)
{
    mcp_jw_obj_begin(wp);
    if (has_cap("tools")) { mcp_jw_key(wp, "tools"); mcp_jw_raw(wp, "{\"listChanged\":true}", 20); }
    if (has_cap("resources")) {
        mcp_jw_key(wp, "resources"); mcp_jw_obj_begin(wp);
        if (has_cap("subscribe")) { mcp_jw_key(wp, "subscribe"); mcp_jw_bool(wp, 1); }
        mcp_jw_key(wp, "listChanged"); mcp_jw_bool(wp, 1);
        mcp_jw_obj_end(wp);
    }
    if (has_cap("prompts")) { mcp_jw_key(wp, "prompts"); mcp_jw_raw(wp, "{\"listChanged\":true}", 20); }
    if (has_cap("logging")) { mcp_jw_key(wp, "logging"); mcp_jw_raw(wp, "{}", 2); }
    if (has_cap("completions")) { mcp_jw_key(wp, "completions"); mcp_jw_raw(wp, "{}", 2); }
    task_caps(wp);
    mcp_jw_obj_end(wp);
}

static const char *const instructions = "Use the echo tool to test.\nEverything else is for misbehaving.";

static void answer_initialize(const char *id)
{
    mcp_jw w;
    char *t;
    mcp_jw_init(&w, 0);
    mcp_jw_obj_begin(&w);
    mcp_jw_key(&w, "protocolVersion"); mcp_jw_str(&w, init_version());
    mcp_jw_key(&w, "capabilities"); write_caps(&w);
    mcp_jw_key(&w, "serverInfo"); mcp_jw_obj_begin(&w);
    mcp_jw_key(&w, "name"); mcp_jw_str(&w, "test_server");
    mcp_jw_key(&w, "title"); mcp_jw_str(&w, "mcp.h test server");
    mcp_jw_key(&w, "version"); mcp_jw_str(&w, "1.2.3");
    mcp_jw_obj_end(&w);
    if (!opt.no_instructions) {
        mcp_jw_key(&w, "instructions");
        mcp_jw_str(&w, instructions);
    }
    mcp_jw_obj_end(&w);
    t = mcp_jw_finish(&w, NULL, NULL);
    send_result(id, t);
    mcp_free(t);
}

static void node_error_exit(void)
{
    err_str("node:internal/modules/cjs/loader:1080\n"
            "  throw err;\n"
            "  ^\n"
            "\n"
            "Error: Cannot find module 'x'\n"
            "Require stack:\n"
            "- /srv/app/index.js\n"
            "    at Module._resolveFilename (node:internal/modules/cjs/loader:1077:15)\n"
            "    at Module._load (node:internal/modules/cjs/loader:922:27)\n"
            "\n"
            "Node.js v18.19.0\n");
    _exit(1);
}

static void on_initialize(const char *id, const mcp_json *params)
{
    item *it;
    free(init_params);
    init_params = params ? dump(params) : xstrdup("{}");
    if (opt.exit_on_initialize) {
        err_str("test_server: exit-on-initialize: exiting with status 3\n");
        exit(3);
    }
    if (opt.init && !strcmp(opt.init, "exit")) node_error_exit();
    if (opt.init && !strcmp(opt.init, "crash")) { err_str("test_server: crashing on initialize\n"); abort(); }
    if (opt.init && !strcmp(opt.init, "never")) return;
    if (opt.init && !strncmp(opt.init, "slow:", 5)) {
        it = item_new(IT_INIT, id);
        it->due = mcp_time_ms() + atoi(opt.init + 5);
        return;
    }
    if (opt.init && !strcmp(opt.init, "ping")) {
        it = item_new(IT_INIT, id);
        it->text = xstrdup("\"init-ping\"");
        send_str("{\"jsonrpc\":\"2.0\",\"id\":\"init-ping\",\"method\":\"ping\"}");
        return;
    }
    answer_initialize(id);
}

/* ---- the catalogue -------------------------------------------------------------------------- */

static const char *const tool_names[] = { "echo", "add", "meta", "slow", "fail", "never", "defer",
    "rev", "ask", "notify", "garbage", "badids", "edge", "batch", "longline", "stderr", "flood",
    "close_stdout", "close_stdin", "exit", "spawn", "pid", "cwd", "env", "client", "history", NULL };

static void extra_add(const char *name, size_t len)
{
    char **e = (char **)realloc(extra, (size_t)(nextra + 1) * sizeof *extra);
    if (!e) { perror("realloc"); _exit(3); }
    extra = e;
    extra[nextra] = (char *)malloc(len + 1);
    if (!extra[nextra]) { perror("malloc"); _exit(3); }
    memcpy(extra[nextra], name, len);
    extra[nextra][len] = 0;
    nextra++;
}

/* --tools, --tool-prefix and --tool-names, once the flags are all read */
static void extras_init(void)
{
    const char *p = opt.tool_names, *e;
    char name[256];
    int i;
    for (i = 1; i <= opt.extra_tools; i++) {
        int n = snprintf(name, sizeof name, "%s%d", opt.tool_prefix ? opt.tool_prefix : "extra", i);
        extra_add(name, n > 0 && (size_t)n < sizeof name ? (size_t)n : strlen(name));
    }
    while (p && *p) {
        e = strchr(p, ',');
        if (!e) e = p + strlen(p);
        if (e > p) extra_add(p, (size_t)(e - p));
        p = *e ? e + 1 : e;
    }
}

static int is_extra(const char *name)
{
    int i;
    for (i = 0; i < nextra; i++) if (!strcmp(extra[i], name)) return 1;
    return 0;
}

static int n_std_tools(void)
{
    int n = 0;
    while (tool_names[n]) n++;
    return n;
}

static const char *tool_name_at(int i)
{
    int n = n_std_tools();
    return i < n ? tool_names[i] : extra[i - n];
}

static void list_tools(const char *id, const mcp_json *params)
{
    const char *cursor = mcp_json_str(mcp_json_get(params, "cursor"));
    int numbered = opt.pages && opt.pages[0] >= '1' && opt.pages[0] <= '9';
    int first, last, i, n = n_std_tools() + nextra, parts = numbered ? atoi(opt.pages) : 2, k = 0;   /* page k + 1 */
    mcp_jw w;
    char *t, nc[32];
    if (opt.list_changed_after > 0 && !list_change_armed) {     /* the first tools/list */
        item *it = item_new(IT_LISTCHG, NULL);
        it->due = mcp_time_ms() + opt.list_changed_after;
        list_change_armed = 1;
    }
    if (cursor && opt.cursor_ms && !strncmp(cursor, "page2@", 6)) {       /* --cursor-ms */
        if (mcp_time_ms() - atoll(cursor + 6) > opt.cursor_ms) { send_error(id, -32602, "Expired cursor"); return; }
        cursor = "page2";
    }
    if (cursor) {
        k = !strncmp(cursor, "page", 4) ? atoi(cursor + 4) - 1 : 0;
        snprintf(nc, sizeof nc, "page%d", k + 1);
        if (opt.pages && !numbered && cursor[0] == 'p') k = 1;    /* loop, endless: the second half */
        else if (k < 1 || k >= parts || strcmp(cursor, nc)) { send_error(id, -32602, "Invalid cursor"); return; }
    }
    first = n * k / parts;
    last = n * (k + 1) / parts;
    mcp_jw_init(&w, 0);
    mcp_jw_obj_begin(&w);
    mcp_jw_key(&w, "tools"); mcp_jw_arr_begin(&w);
    for (i = first; i < last; i++) {
        mcp_jw_obj_begin(&w);
        mcp_jw_key(&w, "name"); mcp_jw_str(&w, tool_name_at(i));
        mcp_jw_key(&w, "description"); mcp_jw_str(&w, "A test tool.");
        mcp_jw_key(&w, "inputSchema"); mcp_jw_raw(&w, "{\"type\":\"object\"}", 17);
        mcp_jw_obj_end(&w);
    }
    if (cursor) task_list_tools(&w);
    mcp_jw_arr_end(&w);
    if (opt.pages && !strcmp(opt.pages, "loop")) {       /* the cursor it was given, again */
        mcp_jw_key(&w, "nextCursor"); mcp_jw_str(&w, "page2");
    } else if (opt.pages && !strcmp(opt.pages, "endless")) {   /* p1, p2, ... for ever */
        char next[32];
        snprintf(next, sizeof next, "p%ld", cursor && cursor[0] == 'p' ? atol(cursor + 1) + 1 : 1);
        mcp_jw_key(&w, "nextCursor"); mcp_jw_str(&w, next);
    } else if (k + 1 < parts) {
        if (k == 0 && opt.cursor_ms) snprintf(nc, sizeof nc, "page2@%lld", (long long)mcp_time_ms());
        else snprintf(nc, sizeof nc, "page%d", k + 2);
        mcp_jw_key(&w, "nextCursor"); mcp_jw_str(&w, nc);
    }
    if (opt.big > 0) {                                   /* --big */
        char *pad = (char *)malloc((size_t)opt.big + 1);
        if (!pad) _exit(3);
        memset(pad, 'x', (size_t)opt.big); pad[opt.big] = 0;
        mcp_jw_key(&w, "pad"); mcp_jw_str(&w, pad);
        free(pad);
    }
    mcp_jw_obj_end(&w);
    t = mcp_jw_finish(&w, NULL, NULL);
    send_result(id, t);
    mcp_free(t);
}

static void list_resources(const char *id, const mcp_json *params)
{
    const char *cursor = mcp_json_str(mcp_json_get(params, "cursor"));
    if (!cursor)
        send_result(id, "{\"resources\":[{\"uri\":\"file:///a.txt\",\"name\":\"a.txt\",\"mimeType\":\"text/plain\"},"
                        "{\"uri\":\"file:///b.txt\",\"name\":\"b.txt\",\"mimeType\":\"text/plain\"}],"
                        "\"nextCursor\":\"r2\"}");
    else if (!strcmp(cursor, "r2"))
        send_result(id, "{\"resources\":[{\"uri\":\"mem://counter\",\"name\":\"counter\"}]}");
    else
        send_error(id, -32602, "Invalid cursor");
}

static int gate(const char *id, const mcp_json *params, const char *what, int *declined);

static void read_resource(const char *id, const mcp_json *params)
{
    const char *uri = mcp_json_str(mcp_json_get(params, "uri"));
    mcp_jw w;
    char *t, text[512];
    int declined = 0;
    if (cur_modern && uri && !strcmp(uri, "mrtr://gated")) {
        if (!gate(id, params, uri, &declined)) return;
    } else if (!uri || (strcmp(uri, "file:///a.txt") && strcmp(uri, "file:///b.txt") && strcmp(uri, "mem://counter") &&
                        strncmp(uri, "file:///tmpl/", 13))) {
        if (cur_modern) {                      /* 2026-07-28: -32602, with the uri in data */
            mcp_jw dw;
            char *data;
            mcp_jw_init(&dw, 0);
            mcp_jw_obj_begin(&dw);
            mcp_jw_key(&dw, "uri"); mcp_jw_str(&dw, uri);
            mcp_jw_obj_end(&dw);
            data = mcp_jw_finish(&dw, NULL, NULL);
            send_error_data(id, opt.notfound ? opt.notfound : -32602, "Resource not found", data);
            mcp_free(data);
        } else {
            send_error(id, -32002, "Resource not found");
        }
        return;
    }
    if (declined) snprintf(text, sizeof text, "%s stays closed", uri);
    else snprintf(text, sizeof text, "content of %s", uri);
    mcp_jw_init(&w, 0);
    mcp_jw_obj_begin(&w);
    mcp_jw_key(&w, "contents"); mcp_jw_arr_begin(&w);
    mcp_jw_obj_begin(&w);
    mcp_jw_key(&w, "uri"); mcp_jw_str(&w, uri);
    mcp_jw_key(&w, "mimeType"); mcp_jw_str(&w, "text/plain");
    mcp_jw_key(&w, "text"); mcp_jw_str(&w, text);
    mcp_jw_obj_end(&w);
    mcp_jw_arr_end(&w);
    mcp_jw_obj_end(&w);
    t = mcp_jw_finish(&w, NULL, NULL);
    send_result(id, t);
    mcp_free(t);
}

static void subscribe(const char *id, const mcp_json *params, int on)
{
    const char *uri = mcp_json_str(mcp_json_get(params, "uri"));
    int i;
    if (!uri) { send_error(id, -32602, "uri is required"); return; }
    for (i = 0; i < nsubs; i++)
        if (!strcmp(subs[i], uri)) break;
    if (on && i == nsubs && nsubs < 32) subs[nsubs++] = xstrdup(uri);
    if (!on && i < nsubs) { free(subs[i]); subs[i] = subs[--nsubs]; }
    send_result(id, "{}");
}

static void get_prompt(const char *id, const mcp_json *params)
{
    const char *name = mcp_json_str(mcp_json_get(params, "name"));
    const char *who = mcp_json_str(mcp_json_get(mcp_json_get(params, "arguments"), "name"));
    char text[300];
    mcp_jw w;
    char *t;
    int declined = 0;
    if (cur_modern && name && !strcmp(name, "gated")) {
        if (!gate(id, params, "the gated prompt", &declined)) return;
        snprintf(text, sizeof text, declined ? "Not confirmed." : "Confirmed.");
    } else {
        if (!name || strcmp(name, "greet")) { send_error(id, -32602, "Unknown prompt"); return; }
        if (!who) { send_error(id, -32602, "Missing required argument: name"); return; }
        snprintf(text, sizeof text, "Hello, %.200s!", who);
    }
    mcp_jw_init(&w, 0);
    mcp_jw_obj_begin(&w);
    mcp_jw_key(&w, "description"); mcp_jw_str(&w, "A greeting");
    mcp_jw_key(&w, "messages"); mcp_jw_arr_begin(&w);
    mcp_jw_obj_begin(&w);
    mcp_jw_key(&w, "role"); mcp_jw_str(&w, "user");
    mcp_jw_key(&w, "content"); mcp_jw_obj_begin(&w);
    mcp_jw_key(&w, "type"); mcp_jw_str(&w, "text");
    mcp_jw_key(&w, "text"); mcp_jw_str(&w, text);
    mcp_jw_obj_end(&w);
    mcp_jw_obj_end(&w);
    mcp_jw_arr_end(&w);
    mcp_jw_obj_end(&w);
    t = mcp_jw_finish(&w, NULL, NULL);
    send_result(id, t);
    mcp_free(t);
}

static void complete(const char *id, const mcp_json *params)
{
    static const char *const names[] = { "alice", "albert", "bob", NULL };
    const mcp_json *ref = mcp_json_get(params, "ref"), *arg = mcp_json_get(params, "argument");
    const char *value = mcp_json_str(mcp_json_get(arg, "value"));
    mcp_jw w;
    char *t;
    int i, n = 0;
    if (!mcp_json_str(mcp_json_get(ref, "type")) || !value) { send_error(id, -32602, "Invalid completion request"); return; }
    mcp_jw_init(&w, 0);
    mcp_jw_obj_begin(&w);
    mcp_jw_key(&w, "completion"); mcp_jw_obj_begin(&w);
    mcp_jw_key(&w, "values"); mcp_jw_arr_begin(&w);
    for (i = 0; names[i]; i++)
        if (!strncmp(names[i], value, strlen(value))) { mcp_jw_str(&w, names[i]); n++; }
    mcp_jw_arr_end(&w);
    mcp_jw_key(&w, "total"); mcp_jw_int(&w, n);
    mcp_jw_key(&w, "hasMore"); mcp_jw_bool(&w, 0);
    mcp_jw_obj_end(&w);
    mcp_jw_obj_end(&w);
    t = mcp_jw_finish(&w, NULL, NULL);
    send_result(id, t);
    mcp_free(t);
}

static void set_level(const char *id, const mcp_json *params)
{
    const char *l = mcp_json_str(mcp_json_get(params, "level"));
    int i;
    for (i = 0; l && levels[i]; i++)
        if (!strcmp(l, levels[i])) { level = i; send_result(id, "{}"); return; }
    send_error(id, -32602, "Invalid log level");
}

/* ---- tools ---------------------------------------------------------------------------------- */

static int64_t arg_int(const mcp_json *args, const char *key, int64_t dflt)
{
    const mcp_json *v = mcp_json_get(args, key);
    return v ? (int64_t)mcp_json_num(v) : dflt;
}

static void tool_notify(const char *id)
{
    static const char *const lv[] = { "debug", "info", "warning", "error" };
    static const int lvi[] = { 0, 1, 3, 4 };
    char data[64];
    int i, min = level;
    if (cur_modern) {                      /* 2026-07-28: only with a logLevel in this request's _meta */
        const char *l = mcp_json_str(mcp_json_get(cur_meta, "io.modelcontextprotocol/logLevel"));
        for (min = 0; l && levels[min] && strcmp(levels[min], l); min++) {}
        if (!l || !levels[min]) {
            answer_text(id, l ? "notified (unknown log level: no messages)" : "notified (no log level: no messages)");
            return;
        }
        for (i = 0; i < 4; i++) {
            if (lvi[i] < min) continue;
            snprintf(data, sizeof data, "log at %s", lv[i]);
            notify_log(lv[i], data);
        }
        answer_text(id, "notified");       /* no list_changed: those need subscriptions/listen */
        return;
    }
    for (i = 0; i < 4; i++) {
        if (min >= 0 && lvi[i] < min) continue;
        snprintf(data, sizeof data, "log at %s", lv[i]);
        notify_log(lv[i], data);
    }
    send_str("{\"jsonrpc\":\"2.0\",\"method\":\"notifications/tools/list_changed\"}");
    send_str("{\"jsonrpc\":\"2.0\",\"method\":\"notifications/resources/list_changed\"}");
    send_str("{\"jsonrpc\":\"2.0\",\"method\":\"notifications/prompts/list_changed\",\"params\":{}}");
    for (i = 0; i < nsubs; i++) {
        mcp_jw w;
        char *t;
        mcp_jw_init(&w, 0);
        mcp_jw_obj_begin(&w);
        mcp_jw_key(&w, "jsonrpc"); mcp_jw_str(&w, "2.0");
        mcp_jw_key(&w, "method"); mcp_jw_str(&w, "notifications/resources/updated");
        mcp_jw_key(&w, "params"); mcp_jw_obj_begin(&w);
        mcp_jw_key(&w, "uri"); mcp_jw_str(&w, subs[i]);
        mcp_jw_obj_end(&w);
        mcp_jw_obj_end(&w);
        t = mcp_jw_finish(&w, NULL, NULL);
        if (t) send_str(t);
        mcp_free(t);
    }
    send_str("{\"jsonrpc\":\"2.0\",\"method\":\"notifications/progress\",\"params\":{\"progressToken\":\"nobody\",\"progress\":1}}");
    send_str("{\"jsonrpc\":\"2.0\",\"method\":\"notifications/cancelled\",\"params\":{\"requestId\":424242,\"reason\":\"no such request\"}}");
    answer_text(id, "notified");
}

static void tool_garbage(const char *id)
{
    send_str("this is not json");
    send_str("{\"jsonrpc\":\"2.0\",\"method\":");
    send_str("{\"hello\":\"world\"}");
    send_str("{\"jsonrpc\":\"1.0\",\"id\":1,\"result\":{}}");
    send_str("[]");
    send_str("{\"jsonrpc\":\"2.0\",\"id\":{\"x\":1},\"result\":{}}");
    send_str("{\"jsonrpc\":\"2.0\",\"id\":7,\"result\":{},\"error\":{\"code\":1,\"message\":\"x\"}}");
    send_str("\"just a string\"");
    send_str("{\"jsonrpc\":\"2.0\",\"method\":\"x\",\"params\":\"\xff\xfe\"}");
    send_str("   \t ");
    send_str("{\"jsonrpc\":\"2.0\",\"method\":\"notifications/message\",\"params\":{\"level\":\"info\",\"data\":\"after garbage\"}}\r");
    answer_text(id, "garbage sent");
}

/* Exactly 64 KiB in one write: a notification, then a bad line whose newline is the last byte
   (of the last of the client's reads, whether it reads 16, 32 or 64 KiB at a time). */
static void tool_edge(const char *id)
{
    static char buf[65536];
    const char *head = "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/message\",\"params\":{\"level\":\"info\",\"data\":\"";
    const char *tail = "\"}}\nnot json!\n";
    size_t h = strlen(head), t = strlen(tail);
    memcpy(buf, head, h);
    memset(buf + h, 'e', sizeof buf - h - t);
    memcpy(buf + sizeof buf - t, tail, t);
    if (!out_closed) write_all(1, buf, sizeof buf);
    answer_text(id, "edge sent");
}

static void tool_badids(const char *id)
{
    send_str("{\"jsonrpc\":\"2.0\",\"id\":987654,\"result\":{}}");
    send_str("{\"jsonrpc\":\"2.0\",\"id\":\"nope\",\"result\":{}}");
    send_str("{\"jsonrpc\":\"2.0\",\"id\":null,\"error\":{\"code\":-32700,\"message\":\"Parse error\"}}");
    send_str("{\"jsonrpc\":\"2.0\",\"id\":987655,\"error\":{\"code\":-32000,\"message\":\"stale\"}}");
    answer_text(id, "bad ids sent");
}

static void tool_batch(const char *id)
{
    char *r = tool_text("batched", 0, NULL);
    mcp_buf b = {0};
    const char *head = "[{\"jsonrpc\":\"2.0\",\"method\":\"notifications/message\",\"params\":{\"level\":\"info\","
                       "\"data\":\"in a batch\"}},{\"jsonrpc\":\"2.0\",\"id\":";
    mcp_buf_append(&b, head, strlen(head));
    mcp_buf_append(&b, id, strlen(id));
    mcp_buf_append(&b, ",\"result\":", 10);
    mcp_buf_append(&b, r, strlen(r));
    mcp_buf_append(&b, "}]", 2);
    send_line(b.data, b.len);
    mcp_buf_free(&b);
    mcp_free(r);
    flush_deferred();
}

static void tool_longline(const char *id, const mcp_json *args)
{
    size_t n = (size_t)arg_int(args, "bytes", 100000), i;
    mcp_buf b = {0};
    const char *head = "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/message\",\"params\":{\"level\":\"info\",\"data\":\"";
    mcp_buf_append(&b, head, strlen(head));
    mcp_buf_reserve(&b, n + 8);
    for (i = 0; i < n; i++) b.data[b.len++] = 'y';
    mcp_buf_append(&b, "\"}}", 3);
    send_line(b.data, b.len);
    mcp_buf_free(&b);
    answer_text(id, "long line sent");
}

static void tool_stderr(const char *id, const mcp_json *args)
{
    size_t n = (size_t)arg_int(args, "bytes", 1 << 20), linelen = (size_t)arg_int(args, "linelen", 100), i, k;
    int nl = mcp_json_is_true(mcp_json_get(args, "newlines"));
    char *buf = (char *)malloc(65536);
    if (!buf) _exit(3);
    for (i = 0; i < n; ) {
        size_t chunk = n - i < 65536 ? n - i : 65536;
        for (k = 0; k < chunk; k++, i++) buf[k] = nl && linelen && (i + 1) % (linelen + 1) == 0 ? '\n' : 'x';
        write_all(2, buf, chunk);
    }
    free(buf);
    if (n && !(nl && linelen && n % (linelen + 1) == 0)) err_str("\n");   /* end the last line */
    err_str("stderr done\n");
    answer_text(id, "stderr written");
}

static void tool_ask(const char *id, const mcp_json *args)
{
    const char *method = mcp_json_str(mcp_json_get(args, "method"));
    const mcp_json *params = mcp_json_get(args, "params");
    char sid[32], *p;
    item *it;
    if (!method) { answer_text(id, "ask needs a method"); return; }
    ask_seq++;
    if (mcp_json_is_true(mcp_json_get(args, "numeric_id"))) snprintf(sid, sizeof sid, "%d", 1000 + ask_seq);
    else snprintf(sid, sizeof sid, "\"s%d\"", ask_seq);
    p = params ? dump(params) : NULL;
    if (p) sendf("{\"jsonrpc\":\"2.0\",\"id\":%s,\"method\":\"%s\",\"params\":%s}", sid, method, p);
    else sendf("{\"jsonrpc\":\"2.0\",\"id\":%s,\"method\":\"%s\"}", sid, method);
    free(p);
    if (mcp_json_is_true(mcp_json_get(args, "cancel"))) {
        sendf("{\"jsonrpc\":\"2.0\",\"method\":\"notifications/cancelled\",\"params\":{\"requestId\":%s,"
              "\"reason\":\"the server gave up\"}}", sid);
        it = item_new(IT_ASK, NULL);
        it->text = xstrdup(sid);
        answer_text(id, "cancelled");
        return;
    }
    it = item_new(IT_ASK, id);
    it->text = xstrdup(sid);
}

/* ---- 2026-07-28: input_required (multi round-trip requests) --------------------------------- */

static uint64_t fnv(const char *s, size_t n)
{
    uint64_t h = 1469598103934665603ULL;
    size_t i;
    for (i = 0; i < n; i++) { h ^= (unsigned char)s[i]; h *= 1099511628211ULL; }
    return h;
}

/* The input requests of the mrtr tool, by letter: e elicitation, s sampling, r roots, x a
   method no client answers (tasks/get). */
static const char *input_key(char l)
{
    return l == 'e' ? "elicit" : l == 's' ? "sample" : l == 'r' ? "roots" : "custom";
}

static const char *input_cap(char l)
{
    return l == 'e' ? "elicitation" : l == 's' ? "sampling" : l == 'r' ? "roots" : NULL;
}

#define ELICIT_NAME "{\"mode\":\"form\",\"message\":\"What is your name?\",\"requestedSchema\":{\"type\":" \
                    "\"object\",\"properties\":{\"name\":{\"type\":\"string\"}},\"required\":[\"name\"]}}"

static const char *input_request(char l)
{
    switch (l) {
    case 'e': return "{\"method\":\"elicitation/create\",\"params\":" ELICIT_NAME "}";
    case 's': return "{\"method\":\"sampling/createMessage\",\"params\":{\"messages\":[{\"role\":\"user\",\"content\":"
                     "{\"type\":\"text\",\"text\":\"What is the capital of France?\"}}],\"systemPrompt\":"
                     "\"You are a helpful assistant.\",\"maxTokens\":100}}";
    case 'r': return "{\"method\":\"roots/list\",\"params\":{}}";
    default:  return "{\"method\":\"tasks/get\",\"params\":{\"taskId\":\"t1\"}}";
    }
}

/* {"resultType":"input_required","inputRequests":REQUESTS,"requestState":STATE}; REQUESTS is an
   object as JSON text; either may be NULL (left out). */
static void send_input_required(const char *id, const char *requests, const char *state)
{
    mcp_jw w;
    char *t;
    mcp_jw_init(&w, 0);
    mcp_jw_obj_begin(&w);
    mcp_jw_key(&w, "resultType"); mcp_jw_str(&w, "input_required");
    if (requests) { mcp_jw_key(&w, "inputRequests"); mcp_jw_raw(&w, requests, strlen(requests)); }
    if (state) { mcp_jw_key(&w, "requestState"); mcp_jw_str(&w, state); }
    mcp_jw_obj_end(&w);
    t = mcp_jw_finish(&w, NULL, NULL);
    if (!t) { err_str("test_server: send_input_required: bad requests\n"); _exit(3); }
    send_result(id, t);
    mcp_free(t);
}

/* The inputRequests object for these letters, as JSON text (malloc'ed); NULL for none. */
static char *input_requests(const char *letters)
{
    mcp_buf b = {0};
    char *t;
    if (!*letters) return NULL;
    mcp_buf_append(&b, "{", 1);
    for (; *letters; letters++) {
        if (b.len > 1) mcp_buf_append(&b, ",", 1);
        mcp_buf_append(&b, "\"", 1);
        mcp_buf_append(&b, input_key(*letters), strlen(input_key(*letters)));
        mcp_buf_append(&b, "\":", 2);
        mcp_buf_append(&b, input_request(*letters), strlen(input_request(*letters)));
    }
    mcp_buf_append(&b, "}", 2);                    /* with the NUL */
    t = xstrdup(b.data);
    mcp_buf_free(&b);
    return t;
}

/* -32021 (with data.requiredCapabilities) unless this request's clientCapabilities declare what
   these letters need. 1: declared. */
static int caps_declared(const char *id, const char *letters)
{
    const mcp_json *caps = mcp_json_get(cur_meta, "io.modelcontextprotocol/clientCapabilities");
    char data[256];
    size_t n;
    int missing = 0;
    snprintf(data, sizeof data, "{\"requiredCapabilities\":{");
    for (; *letters; letters++) {
        const char *cap = input_cap(*letters);
        if (!cap || mcp_json_get(caps, cap) || strstr(data, cap)) continue;
        n = strlen(data);
        snprintf(data + n, sizeof data - n, "%s\"%s\":{}", missing ? "," : "", cap);
        missing++;
    }
    if (!missing) return 1;
    n = strlen(data);
    snprintf(data + n, sizeof data - n, "}}");
    send_error_data(id, -32021, "Missing required client capability", data);
    return 0;
}

static int valid_answer(char l, const mcp_json *v)
{
    const char *a;
    if (mcp_json_typeof(v) != MCP_JSON_OBJECT) return 0;
    switch (l) {
    case 'e':
        a = mcp_json_str(mcp_json_get(v, "action"));
        return a && (!strcmp(a, "accept") || !strcmp(a, "decline") || !strcmp(a, "cancel"));
    case 's': return mcp_json_str(mcp_json_get(v, "role")) && mcp_json_get(v, "content");
    case 'r': return mcp_json_typeof(mcp_json_get(v, "roots")) == MCP_JSON_ARRAY;
    default:  return 1;
    }
}

/* The mrtr tool's requestState: what it needs to go on without memory, plus a tag of awkward
   characters (the echo must be exact) and a checksum over all of it. */
#define STATE_TAG "\xc3\xa9 \"q\" \\ \t \xe2\x98\x83 </>"

static char *mrtr_state(int round, const char *asked, const char *ids, uint64_t argh)
{
    char body[2048], *t;
    size_t n;
    snprintf(body, sizeof body, "mrtr|r=%d|a=%s|ids=%s|h=%016llx|t=%s", round, asked, ids,
             (unsigned long long)argh, STATE_TAG);
    n = strlen(body);
    snprintf(body + n, sizeof body - n, "|s=%016llx", (unsigned long long)fnv(body, n));
    t = xstrdup(body);
    return t;
}

/* 1 if the state is one of ours, unchanged; fills the parts */
static int mrtr_parse(const char *st, int *round, char *asked, size_t an, char *ids, size_t idn, uint64_t *argh)
{
    const char *s = strstr(st, "|s="), *p, *q;
    char sum[32];
    while (s && strstr(s + 1, "|s=")) s = strstr(s + 1, "|s=");
    if (!s || strncmp(st, "mrtr|r=", 7)) return 0;
    snprintf(sum, sizeof sum, "%016llx", (unsigned long long)fnv(st, (size_t)(s - st)));
    if (strcmp(s + 3, sum)) return 0;
    *round = atoi(st + 7);
    if (!(p = strstr(st, "|a=")) || !(q = strchr(p + 3, '|')) || (size_t)(q - p - 3) >= an) return 0;
    memcpy(asked, p + 3, (size_t)(q - p - 3)); asked[q - p - 3] = 0;
    if (!(p = strstr(st, "|ids=")) || !(q = strchr(p + 5, '|')) || (size_t)(q - p - 5) >= idn) return 0;
    memcpy(ids, p + 5, (size_t)(q - p - 5)); ids[q - p - 5] = 0;
    if (!(p = strstr(st, "|h="))) return 0;
    *argh = strtoull(p + 3, NULL, 16);
    return 1;
}

static int id_in(const char *ids, const char *id)
{
    size_t n = strlen(id);
    const char *p = ids;
    for (;;) {
        if (!strncmp(p, id, n) && (p[n] == ',' || !p[n])) return 1;
        if (!(p = strchr(p, ','))) return 0;
        p++;
    }
}

/* {"rounds":K,"ids":[...],"inputResponses":...,"requestState":...} as the tool's text */
static void mrtr_done(const char *id, int rounds, const char *ids, const mcp_json *resp, const mcp_json *rs)
{
    mcp_jw w;
    char *t, *arr;
    size_t n = strlen(ids) + 3;
    arr = (char *)malloc(n);
    if (!arr) _exit(3);
    snprintf(arr, n, "[%s]", ids);
    mcp_jw_init(&w, 0);
    mcp_jw_obj_begin(&w);
    mcp_jw_key(&w, "rounds"); mcp_jw_int(&w, rounds);
    mcp_jw_key(&w, "ids"); mcp_jw_raw(&w, arr, strlen(arr));
    mcp_jw_key(&w, "inputResponses"); if (resp) mcp_jw_value(&w, resp); else mcp_jw_null(&w);
    mcp_jw_key(&w, "requestState"); if (rs) mcp_jw_value(&w, rs); else mcp_jw_null(&w);
    mcp_jw_obj_end(&w);
    t = mcp_jw_finish(&w, NULL, NULL);
    free(arr);
    answer_text(id, t ? t : "null");
    mcp_free(t);
}

/* mrtr {inputs, rounds, no_state, ignore_caps} */
static void tool_mrtr(const char *id, const mcp_json *params, const mcp_json *args)
{
    const char *inputs = mcp_json_str(mcp_json_get(args, "inputs"));
    int rounds = (int)arg_int(args, "rounds", 1), round = 0, no_state = mcp_json_is_true(mcp_json_get(args, "no_state"));
    const mcp_json *rs = mcp_json_get(params, "requestState"), *resp = mcp_json_get(params, "inputResponses");
    char asked[16], missing[16], ids[1024], msg[200], *ad, *state, *reqs;
    uint64_t argh, h = 0;
    size_t i, nm = 0;
    if (!inputs) inputs = "esr";
    if (strlen(inputs) >= sizeof asked) { send_error(id, -32602, "mrtr: too many inputs"); return; }
    ad = args ? dump(args) : xstrdup("{}");
    argh = fnv(ad, strlen(ad));
    free(ad);
    if (!mcp_json_is_true(mcp_json_get(args, "ignore_caps")) && !caps_declared(id, inputs)) return;
    if (rs && mcp_json_typeof(rs) != MCP_JSON_STRING) { send_error(id, -32602, "requestState must be a string"); return; }
    if (resp && mcp_json_typeof(resp) != MCP_JSON_OBJECT) { send_error(id, -32602, "inputResponses must be an object"); return; }
    if (no_state) {                                  /* nothing to remember: the answers say it all */
        if (rs) { send_error(id, -32602, "A requestState came back, but this server sent none."); return; }
        snprintf(asked, sizeof asked, "%s", inputs);
        snprintf(ids, sizeof ids, "%s", id);
    } else if (!rs) {
        if (resp) { send_error(id, -32602, "inputResponses came without the requestState this server sent."); return; }
        state = mrtr_state(1, inputs, id, argh);
        reqs = input_requests(inputs);
        send_input_required(id, reqs, state);
        free(state); free(reqs);
        return;
    } else {
        if (!mrtr_parse(mcp_json_str(rs), &round, asked, sizeof asked, ids, sizeof ids - 64, &h)) {
            send_error(id, -32602, "requestState failed verification: it is not the one this server sent.");
            return;
        }
        if (h != argh) { send_error(id, -32602, "requestState belongs to a request with other arguments."); return; }
        if (id_in(ids, id)) {
            snprintf(msg, sizeof msg, "The retry reused request id %.60s.", id);
            send_error(id, -32602, msg);
            return;
        }
        i = strlen(ids);
        snprintf(ids + i, sizeof ids - i, ",%s", id);
    }
    if (no_state && !resp) { reqs = input_requests(inputs); send_input_required(id, reqs, NULL); free(reqs); return; }
    for (i = 0; asked[i]; i++) {                     /* every question answered, and sensibly? */
        const mcp_json *v = mcp_json_get(resp, input_key(asked[i]));
        if (!v) { missing[nm++] = asked[i]; continue; }
        if (!valid_answer(asked[i], v)) {
            snprintf(msg, sizeof msg, "inputResponses.%s is not a valid answer to %s.", input_key(asked[i]),
                     input_cap(asked[i]) ? input_cap(asked[i]) : "the request");
            send_error(id, -32602, msg);
            return;
        }
    }
    missing[nm] = 0;
    if (nm) {                                        /* ask again for what is missing */
        reqs = input_requests(missing);
        state = no_state ? NULL : mrtr_state(round, missing, ids, argh);
        send_input_required(id, reqs, state);
        free(state); free(reqs);
        return;
    }
    if (!no_state && round < rounds) {               /* another round */
        state = mrtr_state(round + 1, inputs, ids, argh);
        reqs = input_requests(inputs);
        send_input_required(id, reqs, state);
        free(state); free(reqs);
        return;
    }
    mrtr_done(id, no_state ? 1 : round, ids, resp, rs);
}

/* whoami: asks the user's name (elicitation) and greets. Legacy: a request to the client;
   2026-07-28: input_required. The same text either way. */
static void whoami_text(const mcp_json *answer, char *out, size_t n)
{
    const char *action = mcp_json_str(mcp_json_get(answer, "action"));
    const char *name = mcp_json_str(mcp_json_get(mcp_json_get(answer, "content"), "name"));
    if (action && !strcmp(action, "accept") && name) snprintf(out, n, "Hello, %.200s!", name);
    else if (action && !strcmp(action, "decline")) snprintf(out, n, "You declined to give your name.");
    else if (action && !strcmp(action, "cancel")) snprintf(out, n, "You cancelled.");
    else snprintf(out, n, "No name given.");
}

static void tool_whoami(const char *id, const mcp_json *params)
{
    const mcp_json *rs = mcp_json_get(params, "requestState");
    char text[300];
    item *it;
    if (!cur_modern) {
        ask_seq++;
        it = item_new(IT_ASK, id);
        it->whoami = 1;
        snprintf(text, sizeof text, "\"s%d\"", ask_seq);
        it->text = xstrdup(text);
        sendf("{\"jsonrpc\":\"2.0\",\"id\":%s,\"method\":\"elicitation/create\",\"params\":" ELICIT_NAME "}", text);
        return;
    }
    if (!rs || strcmp(mcp_json_str(rs) ? mcp_json_str(rs) : "", "whoami")) {
        if (!caps_declared(id, "e")) return;
        send_input_required(id, "{\"name\":{\"method\":\"elicitation/create\",\"params\":" ELICIT_NAME "}}", "whoami");
        return;
    }
    whoami_text(mcp_json_get(mcp_json_get(params, "inputResponses"), "name"), text, sizeof text);
    answer_text(id, text);
}

/* ask in 2026-07-28: the request goes back as input_required; the retry's answer is the text */
static void tool_ask_modern(const char *id, const mcp_json *params, const mcp_json *args)
{
    const char *method = mcp_json_str(mcp_json_get(args, "method"));
    const mcp_json *rs = mcp_json_get(params, "requestState");
    const mcp_json *a = mcp_json_get(mcp_json_get(params, "inputResponses"), "ask");
    mcp_jw w;
    char *t;
    if (!method) { answer_text(id, "ask needs a method"); return; }
    mcp_jw_init(&w, 0);
    mcp_jw_obj_begin(&w);
    if (!rs || strcmp(mcp_json_str(rs) ? mcp_json_str(rs) : "", "ask")) {
        const char *l = !strcmp(method, "elicitation/create") ? "e" : !strcmp(method, "sampling/createMessage") ? "s"
                      : !strcmp(method, "roots/list") ? "r" : "";
        mcp_jw_free(&w);
        if (!caps_declared(id, l)) return;
        mcp_jw_init(&w, 0);
        mcp_jw_obj_begin(&w);
        mcp_jw_key(&w, "ask"); mcp_jw_obj_begin(&w);
        mcp_jw_key(&w, "method"); mcp_jw_str(&w, method);
        if (mcp_json_get(args, "params")) { mcp_jw_key(&w, "params"); mcp_jw_value(&w, mcp_json_get(args, "params")); }
        mcp_jw_obj_end(&w);
        mcp_jw_obj_end(&w);
        t = mcp_jw_finish(&w, NULL, NULL);
        send_input_required(id, t, "ask");
        mcp_free(t);
        return;
    }
    if (a) { mcp_jw_key(&w, "result"); mcp_jw_value(&w, a); }
    else { mcp_jw_key(&w, "error"); mcp_jw_str(&w, "no answer"); }
    mcp_jw_obj_end(&w);
    t = mcp_jw_finish(&w, NULL, NULL);
    answer_text(id, t ? t : "null");
    mcp_free(t);
}

/* resources/read mrtr://gated and prompts/get gated (2026-07-28): served once the user
   confirmed through an elicitation. 1: confirmed; 0: answered already (input_required, or
   the request's own error). *declined: the user said no. */
static int gate(const char *id, const mcp_json *params, const char *what, int *declined)
{
    const mcp_json *rs = mcp_json_get(params, "requestState");
    const mcp_json *a = mcp_json_get(mcp_json_get(params, "inputResponses"), "confirm");
    const char *action = mcp_json_str(mcp_json_get(a, "action"));
    char state[300], req[600];
    snprintf(state, sizeof state, "gate:%s", what);
    *declined = 0;
    if (rs && mcp_json_str(rs) && !strcmp(mcp_json_str(rs), state) && action) {
        if (strcmp(action, "accept") || !mcp_json_is_true(mcp_json_get(mcp_json_get(a, "content"), "ok"))) *declined = 1;
        return 1;
    }
    if (!caps_declared(id, "e")) return 0;
    snprintf(req, sizeof req, "{\"confirm\":{\"method\":\"elicitation/create\",\"params\":{\"message\":\"Open %.200s?\","
             "\"requestedSchema\":{\"type\":\"object\",\"properties\":{\"ok\":{\"type\":\"boolean\"}}}}}}", what);
    send_input_required(id, req, state);
    return 0;
}

/* ---- 2026-07-28: subscriptions/listen -------------------------------------------------------- */

static void listen_free(listen_sub *l)
{
    free(l->id); mcp_json_free(l->uris); free(l);
}

/* params._meta with the subscription's id, as the start of a params object: {"_meta":{...} */
static void sub_meta(mcp_jw *w, const char *id)
{
    mcp_jw_key(w, "_meta"); mcp_jw_obj_begin(w);
    mcp_jw_key(w, "io.modelcontextprotocol/subscriptionId"); mcp_jw_raw(w, id, strlen(id));
    mcp_jw_obj_end(w);
}

/* The accepted filter: toolsListChanged, resourcesListChanged and resourceSubscriptions (with
   the caps that serve them); never promptsListChanged. */
static void write_filter(mcp_jw *w, const listen_sub *l)
{
    mcp_jw_obj_begin(w);
    if (l->tools) { mcp_jw_key(w, "toolsListChanged"); mcp_jw_bool(w, 1); }
    if (l->resources) { mcp_jw_key(w, "resourcesListChanged"); mcp_jw_bool(w, 1); }
    if (l->uris) { mcp_jw_key(w, "resourceSubscriptions"); mcp_jw_value(w, mcp_json_root(l->uris)); }
    mcp_jw_obj_end(w);
}

static void send_jw(mcp_jw *w)
{
    char *t = mcp_jw_finish(w, NULL, NULL);
    if (!t) { err_str("test_server: send_jw failed\n"); _exit(3); }
    send_str(t);
    mcp_free(t);
}

/* subscriptions/listen: acknowledged with the subset taken, then kept open until cancelled or
   ended with end_listen. */
static void on_listen(const char *id, const mcp_json *params)
{
    const mcp_json *f = mcp_json_get(params, "notifications"), *rs;
    listen_sub *l, **pp;
    mcp_jw w;
    size_t i;
    if (mcp_json_typeof(f) != MCP_JSON_OBJECT) {
        send_error(id, -32602, "Invalid params: notifications must be an object");
        return;
    }
    l = (listen_sub *)calloc(1, sizeof *l);
    if (!l) { perror("calloc"); _exit(3); }
    l->id = xstrdup(id);
    l->tools = has_cap("tools") && mcp_json_is_true(mcp_json_get(f, "toolsListChanged"));
    l->resources = has_cap("resources") && mcp_json_is_true(mcp_json_get(f, "resourcesListChanged"));
    rs = mcp_json_get(f, "resourceSubscriptions");
    if (has_cap("resources") && has_cap("subscribe") && mcp_json_typeof(rs) == MCP_JSON_ARRAY) {
        mcp_jw_init(&w, 0);
        mcp_jw_arr_begin(&w);
        for (i = 0; i < mcp_json_len(rs); i++)
            if (mcp_json_typeof(mcp_json_at(rs, i)) == MCP_JSON_STRING) mcp_jw_value(&w, mcp_json_at(rs, i));
        mcp_jw_arr_end(&w);
        {
            size_t n;
            char *t = mcp_jw_finish(&w, &n, NULL);
            l->uris = t ? mcp_json_parse(t, n, NULL) : NULL;
            mcp_free(t);
        }
    }
    for (pp = &listens; *pp; pp = &(*pp)->next) {}
    *pp = l;
    mcp_jw_init(&w, 0);
    mcp_jw_obj_begin(&w);
    mcp_jw_key(&w, "jsonrpc"); mcp_jw_str(&w, "2.0");
    mcp_jw_key(&w, "method"); mcp_jw_str(&w, "notifications/subscriptions/acknowledged");
    mcp_jw_key(&w, "params"); mcp_jw_obj_begin(&w);
    sub_meta(&w, id);
    mcp_jw_key(&w, "notifications"); write_filter(&w, l);
    mcp_jw_obj_end(&w);
    mcp_jw_obj_end(&w);
    send_jw(&w);
}

/* notifications/cancelled for a listen: the subscription is dropped (and said on stderr) */
static void listen_cancelled(const char *rid)
{
    listen_sub **pp, *l;
    for (pp = &listens; (l = *pp) != NULL; pp = &l->next)
        if (!strcmp(l->id, rid)) {
            *pp = l->next;
            err_str("test_server: subscription ");
            err_str(rid);
            err_str(" cancelled\n");
            listen_free(l);
            return;
        }
}

static int uri_listed(const listen_sub *l, const char *uri)
{
    const mcp_json *a = mcp_json_root(l->uris);
    size_t i;
    for (i = 0; uri && i < mcp_json_len(a); i++)
        if (!strcmp(mcp_json_str(mcp_json_at(a, i)), uri)) return 1;
    return 0;
}

/* fire {what, uri}: the notification on every subscription that took it; text "sent N" */
static void tool_fire(const char *id, const mcp_json *args)
{
    const char *what = mcp_json_str(mcp_json_get(args, "what"));
    const char *uri = mcp_json_str(mcp_json_get(args, "uri"));
    const char *method;
    listen_sub *l;
    mcp_jw w;
    int sent = 0, want;
    char buf[64];
    if (!what) what = "";
    if (!strcmp(what, "tools")) method = "notifications/tools/list_changed";
    else if (!strcmp(what, "resources")) method = "notifications/resources/list_changed";
    else if (!strcmp(what, "prompts")) method = "notifications/prompts/list_changed";
    else if (!strcmp(what, "updated") && uri) method = "notifications/resources/updated";
    else { send_error(id, -32602, "fire: what is tools, resources, prompts or updated (with a uri)"); return; }
    for (l = listens; l; l = l->next) {
        want = what[0] == 't' ? l->tools : what[0] == 'r' ? l->resources : what[0] == 'u' ? uri_listed(l, uri) : 0;
        if (!want) continue;
        mcp_jw_init(&w, 0);
        mcp_jw_obj_begin(&w);
        mcp_jw_key(&w, "jsonrpc"); mcp_jw_str(&w, "2.0");
        mcp_jw_key(&w, "method"); mcp_jw_str(&w, method);
        mcp_jw_key(&w, "params"); mcp_jw_obj_begin(&w);
        sub_meta(&w, l->id);
        if (what[0] == 'u') { mcp_jw_key(&w, "uri"); mcp_jw_str(&w, uri); }
        mcp_jw_obj_end(&w);
        mcp_jw_obj_end(&w);
        send_jw(&w);
        sent++;
    }
    snprintf(buf, sizeof buf, "sent %d", sent);
    answer_text(id, buf);
}

/* --list-changed-after: "added_later" joins the list, and the client is told: a plain
   notification in the legacy era (and a dual server's legacy session), on every subscription
   that took toolsListChanged in 2026-07-28 */
static void tools_changed(void)
{
    listen_sub *l;
    mcp_jw w;
    extra_add("added_later", 11);
    if (opt.era != ERA_MODERN && (opt.era == ERA_LEGACY || initialized))
        send_str("{\"jsonrpc\":\"2.0\",\"method\":\"notifications/tools/list_changed\"}");
    for (l = listens; l; l = l->next) {
        if (!l->tools) continue;
        mcp_jw_init(&w, 0);
        mcp_jw_obj_begin(&w);
        mcp_jw_key(&w, "jsonrpc"); mcp_jw_str(&w, "2.0");
        mcp_jw_key(&w, "method"); mcp_jw_str(&w, "notifications/tools/list_changed");
        mcp_jw_key(&w, "params"); mcp_jw_obj_begin(&w);
        sub_meta(&w, l->id);
        mcp_jw_obj_end(&w);
        mcp_jw_obj_end(&w);
        send_jw(&w);
    }
}

/* end_listen {id}: each subscription (or only that one) ends with its completion result */
static void tool_end_listen(const char *id, const mcp_json *args)
{
    const mcp_json *only = mcp_json_get(args, "id");
    char *oid = only ? dump(only) : NULL, buf[64];
    listen_sub **pp, *l;
    mcp_jw w;
    int ended = 0;
    for (pp = &listens; (l = *pp) != NULL; ) {
        if (oid && strcmp(oid, l->id)) { pp = &l->next; continue; }
        *pp = l->next;
        mcp_jw_init(&w, 0);
        mcp_jw_obj_begin(&w);
        mcp_jw_key(&w, "jsonrpc"); mcp_jw_str(&w, "2.0");
        mcp_jw_key(&w, "id"); mcp_jw_raw(&w, l->id, strlen(l->id));
        mcp_jw_key(&w, "result"); mcp_jw_obj_begin(&w);
        mcp_jw_key(&w, "resultType"); mcp_jw_str(&w, "complete");
        sub_meta(&w, l->id);
        mcp_jw_obj_end(&w);
        mcp_jw_obj_end(&w);
        send_jw(&w);
        listen_free(l);
        ended++;
    }
    free(oid);
    snprintf(buf, sizeof buf, "ended %d", ended);
    answer_text(id, buf);
}

/* subscriptions: text = [{"id": ID, "notifications": the accepted filter}, ...] */
static void tool_subscriptions(const char *id)
{
    listen_sub *l;
    mcp_jw w;
    char *t;
    mcp_jw_init(&w, 0);
    mcp_jw_arr_begin(&w);
    for (l = listens; l; l = l->next) {
        mcp_jw_obj_begin(&w);
        mcp_jw_key(&w, "id"); mcp_jw_raw(&w, l->id, strlen(l->id));
        mcp_jw_key(&w, "notifications"); write_filter(&w, l);
        mcp_jw_obj_end(&w);
    }
    mcp_jw_arr_end(&w);
    t = mcp_jw_finish(&w, NULL, NULL);
    answer_text(id, t ? t : "[]");
    mcp_free(t);
}

static void tool_call(const char *id, const mcp_json *params)
{
    const char *name = mcp_json_str(mcp_json_get(params, "name"));
    const mcp_json *args = mcp_json_get(params, "arguments"), *meta = mcp_json_get(params, "_meta");
    const mcp_json *tok = mcp_json_get(meta, "progressToken");
    char buf[512], *t;
    const char *tt;
    size_t tn;
    item *it;
    if (!name) { send_error(id, -32602, "Missing tool name"); return; }
    if (task_tool_call(id, name, params)) return;
    if (!strcmp(name, "echo")) {
        if (args) tt = dump_tmp(args, &tn);
        else { tt = "{}"; tn = 2; }
        answer_tool(id, tt, tn, 0, NULL);
    } else if (!strcmp(name, "add")) {
        double s = mcp_json_num(mcp_json_get(args, "a")) + mcp_json_num(mcp_json_get(args, "b"));
        char sc[64];
        int bn = snprintf(buf, sizeof buf, "%g", s);
        snprintf(sc, sizeof sc, "{\"sum\":%g}", s);
        answer_tool(id, buf, (size_t)bn, 0, sc);
    } else if (!strcmp(name, "meta")) {
        if (meta) tt = dump_tmp(meta, &tn);
        else { tt = "null"; tn = 4; }
        answer_tool(id, tt, tn, 0, NULL);
    } else if (!strcmp(name, "slow")) {
        int64_t now = mcp_time_ms();
        it = item_new(IT_SLOW, id);
        it->ms = (int)arg_int(args, "ms", 100);
        it->every = (int)arg_int(args, "every", 0);
        it->no_total = mcp_json_is_true(mcp_json_get(args, "no_total"));
        it->honor_cancel = mcp_json_is_true(mcp_json_get(args, "honor_cancel"));
        it->token = tok ? dump(tok) : NULL;
        it->start = now; it->end = now + it->ms; it->step = 1;
        it->due = it->token && it->every > 0 && it->every < it->ms ? now + it->every : it->end;
    } else if (!strcmp(name, "fail")) {
        answer_tool(id, "the tool failed", 15, 1, NULL);
    } else if (!strcmp(name, "never")) {
        /* nothing, ever */
    } else if (!strcmp(name, "defer")) {
        it = item_new(IT_DEFER, id);
        it->text = tool_text("deferred", 0, NULL);
        t = xstrdup(it->text); mcp_free(it->text); it->text = t;
    } else if (!strcmp(name, "rev")) {
        item *r, *next;
        int held = 0;
        int64_t n = arg_int(args, "n", 1);
        it = item_new(IT_REV, id);
        it->text = args ? dump(args) : xstrdup("{}");
        for (r = items; r; r = r->next) held += r->kind == IT_REV;
        if (held >= n) {
            int batch = mcp_json_is_true(mcp_json_get(args, "batch"));
            mcp_buf b = {0};
            for (r = items; r; r = next) {         /* newest first: the list is LIFO */
                next = r->next;
                if (r->kind != IT_REV) continue;
                item_unlink(r);
                if (batch) {                       /* all answers in one JSON array */
                    char *res = tool_text(r->text, 0, NULL);
                    mcp_buf_append(&b, b.len ? "," : "[", 1);
                    mcp_buf_append(&b, "{\"jsonrpc\":\"2.0\",\"id\":", 22);
                    mcp_buf_append(&b, r->id, strlen(r->id));
                    mcp_buf_append(&b, ",\"result\":", 10);
                    mcp_buf_append(&b, res, strlen(res));
                    mcp_buf_append(&b, "}", 1);
                    mcp_free(res);
                } else {
                    int was = cur_modern;
                    cur_modern = r->modern;
                    answer_text(r->id, r->text);
                    cur_modern = was;
                }
                item_free(r);
            }
            if (batch) {
                mcp_buf_append(&b, "]", 1);
                send_line(b.data, b.len);
                flush_deferred();
            }
            mcp_buf_free(&b);
        }
    } else if (!strcmp(name, "ask")) {
        if (cur_modern) tool_ask_modern(id, params, args);
        else tool_ask(id, args);
    } else if (!strcmp(name, "mrtr")) {
        if (cur_modern) tool_mrtr(id, params, args);
        else send_error(id, -32602, "mrtr is a 2026-07-28 tool (input_required)");
    } else if (!strcmp(name, "whoami")) {
        tool_whoami(id, params);
    } else if (!strcmp(name, "fire") || !strcmp(name, "end_listen") || !strcmp(name, "subscriptions")) {
        if (!cur_modern) {
            snprintf(buf, sizeof buf, "%s is a 2026-07-28 tool (subscriptions/listen)", name);
            send_error(id, -32602, buf);
        } else if (name[0] == 'f') tool_fire(id, args);
        else if (name[0] == 'e') tool_end_listen(id, args);
        else tool_subscriptions(id);
    } else if (!strcmp(name, "badresult")) {
        const char *type = mcp_json_str(mcp_json_get(args, "type"));
        mcp_jw w;
        mcp_jw_init(&w, 0);
        mcp_jw_obj_begin(&w);
        mcp_jw_key(&w, "resultType"); mcp_jw_str(&w, type ? type : "task");
        mcp_jw_key(&w, "content"); { static const char c[] = "[{\"type\":\"text\",\"text\":\"?\"}]"; mcp_jw_raw(&w, c, sizeof c - 1); }
        mcp_jw_obj_end(&w);
        t = mcp_jw_finish(&w, NULL, NULL);
        send_result(id, t ? t : "{}");
        mcp_free(t);
    } else if (!strcmp(name, "error")) {
        const mcp_json *data = mcp_json_get(args, "data");
        const char *msg = mcp_json_str(mcp_json_get(args, "message"));
        t = data ? dump(data) : NULL;
        send_error_data(id, (long)arg_int(args, "code", -32603), msg ? msg : "Test error", t);
        free(t);
    } else if (!strcmp(name, "requests")) {
        mcp_buf b = {0};
        mcp_buf_append(&b, "[", 1);
        if (reqlog.len) mcp_buf_append(&b, reqlog.data, reqlog.len);
        mcp_buf_append(&b, "]", 2);             /* with the NUL */
        answer_text(id, b.data);
        mcp_buf_free(&b);
    } else if (!strcmp(name, "notify")) {
        tool_notify(id);
    } else if (!strcmp(name, "garbage")) {
        tool_garbage(id);
    } else if (!strcmp(name, "edge")) {
        tool_edge(id);
    } else if (!strcmp(name, "badids")) {
        tool_badids(id);
    } else if (!strcmp(name, "batch")) {
        tool_batch(id);
    } else if (!strcmp(name, "longline")) {
        tool_longline(id, args);
    } else if (!strcmp(name, "stderr")) {
        tool_stderr(id, args);
    } else if (!strcmp(name, "flood")) {
        answer_text(id, "flooding");
        flood_left = (long)arg_int(args, "count", 10000);
        flood_n = 0;
        reading = 0;
    } else if (!strcmp(name, "close_stdout")) {
        answer_text(id, "closing stdout");
        close(1);
        out_closed = 1;
    } else if (!strcmp(name, "close_stdin")) {
        close(0);                              /* first: nothing reads what comes after the answer */
        reading = 0;
        answer_text(id, "closing stdin");
    } else if (!strcmp(name, "exit")) {
        const char *msg = mcp_json_str(mcp_json_get(args, "stderr"));
        const char *how = mcp_json_str(mcp_json_get(args, "how"));
        if (msg) { err_str(msg); err_str("\n"); }
        if (how && !strcmp(how, "abort")) abort();
        _exit((int)arg_int(args, "code", 1));
    } else if (!strcmp(name, "spawn")) {
        pid_t pid = spawn_grandchild(mcp_json_is_true(mcp_json_get(args, "closefds")),
                                     mcp_json_is_true(mcp_json_get(args, "stubborn")));
        snprintf(buf, sizeof buf, "%ld", (long)pid);
        answer_text(id, buf);
    } else if (!strcmp(name, "pid")) {
        snprintf(buf, sizeof buf, "%ld", (long)getpid());
        answer_text(id, buf);
    } else if (!strcmp(name, "cwd")) {
        answer_text(id, getcwd(buf, sizeof buf) ? buf : "(getcwd failed)");
    } else if (!strcmp(name, "env")) {
        const char *k = mcp_json_str(mcp_json_get(args, "name")), *v = k ? getenv(k) : NULL;
        answer_text(id, v ? v : "(unset)");
    } else if (!strcmp(name, "client")) {
        answer_text(id, init_params ? init_params : "null");
    } else if (!strcmp(name, "history")) {
        mcp_buf b = {0};
        mcp_buf_append(&b, "[", 1);
        if (history.len) mcp_buf_append(&b, history.data, history.len);
        mcp_buf_append(&b, "]", 2);             /* with the NUL */
        answer_text(id, b.data);
        mcp_buf_free(&b);
    } else if (is_extra(name)) {
        mcp_buf b = {0};
        if (args) tt = dump_tmp(args, &tn);
        else { tt = "{}"; tn = 2; }
        mcp_buf_append(&b, name, strlen(name));
        mcp_buf_append(&b, ": ", 2);
        mcp_buf_append(&b, tt, tn);
        answer_tool(id, b.data, b.len, 0, NULL);
        mcp_buf_free(&b);
    } else {
        snprintf(buf, sizeof buf, "Unknown tool: %.200s", name);
        send_error(id, -32602, buf);
    }
}

/* ---- incoming messages ---------------------------------------------------------------------- */

static void on_reply(const mcp_json *m, mcp_msg_kind kind)
{
    char *sid = dump(mcp_json_get(m, "id")), *msg = dump(m), *t;
    item *it;
    for (it = items; it; it = it->next)
        if ((it->kind == IT_ASK || it->kind == IT_INIT) && it->text && !strcmp(it->text, sid)) break;
    if (!it) {
        mcp_buf b = {0};
        mcp_buf_append(&b, "{\"unexpected_reply\":", 20);
        mcp_buf_append(&b, msg, strlen(msg));
        mcp_buf_append(&b, "}", 2);
        history_add(b.data);
        mcp_buf_free(&b);
    } else if (it->kind == IT_INIT) {
        item_unlink(it);
        answer_initialize(it->id);
        item_free(it);
    } else if (it->whoami) {
        char text[300];
        whoami_text(kind == MCP_MSG_RESULT ? mcp_json_get(m, "result") : NULL, text, sizeof text);
        item_unlink(it);
        answer_text(it->id, text);
        item_free(it);
    } else if (!it->id) {
        mcp_buf b = {0};
        mcp_buf_append(&b, "{\"late_reply\":", 14);
        mcp_buf_append(&b, msg, strlen(msg));
        mcp_buf_append(&b, "}", 2);
        history_add(b.data);
        mcp_buf_free(&b);
        item_unlink(it);
        item_free(it);
    } else {
        mcp_jw w;
        mcp_jw_init(&w, 0);
        mcp_jw_obj_begin(&w);
        if (kind == MCP_MSG_RESULT) { mcp_jw_key(&w, "result"); mcp_jw_value(&w, mcp_json_get(m, "result")); }
        else { mcp_jw_key(&w, "error"); mcp_jw_value(&w, mcp_json_get(m, "error")); }
        mcp_jw_obj_end(&w);
        t = mcp_jw_finish(&w, NULL, NULL);
        item_unlink(it);
        answer_text(it->id, t ? t : "null");
        mcp_free(t);
        item_free(it);
    }
    free(sid); free(msg);
}

static void on_notification(const mcp_json *m)
{
    const char *method = mcp_json_str(mcp_json_get(m, "method"));
    char *msg = dump(m);
    history_add(msg);
    free(msg);
    if (!strcmp(method, "notifications/cancelled")) {
        char *rid = dump(mcp_json_get(mcp_json_get(m, "params"), "requestId"));
        item *it, *next;
        for (it = items; it; it = next) {
            next = it->next;
            if (it->kind == IT_SLOW && it->honor_cancel && it->id && !strcmp(it->id, rid)) {
                item_unlink(it);
                item_free(it);
            }
        }
        listen_cancelled(rid);
        free(rid);
    }
}

/* Every request, as {"id", "method", "name"?, "uri"?, "_meta"?, "requestState"?, "inputResponses"?},
   for the requests tool. */
static void log_request(const char *id, const char *method, const mcp_json *params)
{
    static const char *const keys[] = { "name", "uri", "cursor", "_meta", "requestState", "inputResponses", "task", "taskId", NULL };
    static mcp_jw w;                          /* reused */
    const char *t;
    size_t n;
    int i;
    mcp_jw_reset(&w);
    mcp_jw_obj_begin(&w);
    mcp_jw_key(&w, "id"); mcp_jw_raw(&w, id, strlen(id));
    mcp_jw_key(&w, "method"); mcp_jw_str(&w, method);
    for (i = 0; keys[i]; i++)
        if (mcp_json_get(params, keys[i])) { mcp_jw_key(&w, keys[i]); mcp_jw_value(&w, mcp_json_get(params, keys[i])); }
    mcp_jw_obj_end(&w);
    if ((t = mcp_jw_text(&w, &n)) != NULL) {
        if (reqlog.len) mcp_buf_append(&reqlog, ",", 1);
        mcp_buf_append(&reqlog, t, n);
    }
}

/* ---- 2026-07-28: _meta, versions, server/discover ------------------------------------------ */

static const char *supported_list(void) { return opt.supported ? opt.supported : "2026-07-28"; }

static int supported_version(const char *v)
{
    const char *c = supported_list();
    size_t n = strlen(v);
    while (*c) {
        const char *e = strchr(c, ',');
        size_t len = e ? (size_t)(e - c) : strlen(c);
        if (len == n && !memcmp(c, v, n)) return 1;
        if (!e) break;
        c = e + 1;
    }
    return 0;
}

static void write_supported(mcp_jw *w)
{
    const char *c = supported_list();
    mcp_jw_arr_begin(w);
    while (*c) {
        const char *e = strchr(c, ',');
        size_t len = e ? (size_t)(e - c) : strlen(c);
        mcp_jw_strn(w, c, len);
        if (!e) break;
        c = e + 1;
    }
    mcp_jw_arr_end(w);
}

/* -32022 with data {supported, requested} */
static void send_unsupported(const char *id, const char *message, const char *requested)
{
    mcp_jw w;
    char *data;
    mcp_jw_init(&w, 0);
    mcp_jw_obj_begin(&w);
    mcp_jw_key(&w, "supported"); write_supported(&w);
    mcp_jw_key(&w, "requested"); mcp_jw_str(&w, requested ? requested : "");
    mcp_jw_obj_end(&w);
    data = mcp_jw_finish(&w, NULL, NULL);
    send_error_data(id, -32022, message, data);
    mcp_free(data);
}

/* The required _meta members (else -32602) and a version this server supports (else -32022). */
static int check_meta(const char *id, const char *method, const mcp_json *params)
{
    const mcp_json *meta = mcp_json_get(params, "_meta");
    const mcp_json *pv = mcp_json_get(meta, "io.modelcontextprotocol/protocolVersion");
    const mcp_json *caps = mcp_json_get(meta, "io.modelcontextprotocol/clientCapabilities");
    if (mcp_json_typeof(pv) != MCP_JSON_STRING) {
        send_error(id, -32602, "Invalid params: _meta[\"io.modelcontextprotocol/protocolVersion\"] is required");
        return 0;
    }
    if (mcp_json_typeof(caps) != MCP_JSON_OBJECT) {
        send_error(id, -32602, "Invalid params: _meta[\"io.modelcontextprotocol/clientCapabilities\"] is required");
        return 0;
    }
    if (!supported_version(mcp_json_str(pv)) && !(opt.discover_any && !strcmp(method, "server/discover"))) {
        send_unsupported(id, "Unsupported protocol version", mcp_json_str(pv));
        return 0;
    }
    return 1;
}

static void discover(const char *id)
{
    mcp_jw w;
    char *t;
    if (++discover_count == 1 && opt.discover_error) {
        long code = opt.discover_error;
        if (code == -32022) send_unsupported(id, "Unsupported protocol version",
            mcp_json_str(mcp_json_get(cur_meta, "io.modelcontextprotocol/protocolVersion")));
        else if (code == -32021)
            send_error_data(id, code, "Missing required client capability",
                            "{\"requiredCapabilities\":{\"elicitation\":{},\"roots\":{}}}");
        else if (code == -32020) send_error(id, code, "Header mismatch");
        else send_error(id, code, "Discovery failed");
        return;
    }
    mcp_jw_init(&w, 0);
    mcp_jw_obj_begin(&w);
    mcp_jw_key(&w, "resultType"); mcp_jw_str(&w, "complete");
    mcp_jw_key(&w, "supportedVersions"); write_supported(&w);
    mcp_jw_key(&w, "capabilities"); write_caps(&w);
    mcp_jw_key(&w, "_meta"); mcp_jw_obj_begin(&w);
    mcp_jw_key(&w, "io.modelcontextprotocol/serverInfo"); mcp_jw_obj_begin(&w);
    mcp_jw_key(&w, "name"); mcp_jw_str(&w, "test_server");
    mcp_jw_key(&w, "title"); mcp_jw_str(&w, "mcp.h test server");
    mcp_jw_key(&w, "version"); mcp_jw_str(&w, "1.2.3");
    mcp_jw_obj_end(&w);
    mcp_jw_obj_end(&w);
    if (!opt.no_instructions) { mcp_jw_key(&w, "instructions"); mcp_jw_str(&w, instructions); }
    if (ttl_of() >= 0) {
        mcp_jw_key(&w, "ttlMs"); mcp_jw_int(&w, ttl_of());
        mcp_jw_key(&w, "cacheScope"); mcp_jw_str(&w, opt.scope ? opt.scope : "public");
    }
    mcp_jw_obj_end(&w);
    t = mcp_jw_finish(&w, NULL, NULL);
    send_result(id, t);
    mcp_free(t);
}

/* A modern-only server names its versions when a legacy client tries initialize. */
static void refuse_initialize(const char *id, const mcp_json *params)
{
    char msg[400];
    snprintf(msg, sizeof msg, "This server speaks only protocol version %.200s: no initialize, _meta on "
             "every request", supported_list());
    send_unsupported(id, msg, mcp_json_str(mcp_json_get(params, "protocolVersion")));
}

/* Legacy (--probe=MODE): how server/discover, unknown before initialize, is answered. 1: done. */
static int legacy_probe(const char *id)
{
    const char *p = opt.probe;
    item *it;
    if (!p) return 0;                         /* the default: -32601 like any unknown method */
    if (!strcmp(p, "silent")) return 1;
    if (!strcmp(p, "result")) { send_result(id, "{}"); return 1; }
    if (!strncmp(p, "slow:", 5)) {            /* -32601, but late */
        it = item_new(IT_PROBE, id);
        it->due = mcp_time_ms() + atoi(p + 5);
        return 1;
    }
    send_error(id, atol(p), "Server not initialized");
    return 1;
}

static int is_modern_request(const char *method, const mcp_json *params)
{
    if (opt.era == ERA_MODERN) return 1;
    if (opt.era != ERA_DUAL) return 0;
    return !strcmp(method, "server/discover") || !initialized ||
           mcp_json_get(mcp_json_get(params, "_meta"), "io.modelcontextprotocol/protocolVersion") != NULL;
}

/* The methods both eras share. */
static void dispatch(const char *id, const char *method, const mcp_json *params)
{
    if (task_request(id, method, params)) return;
    if (!strcmp(method, "tools/list")) list_tools(id, params);
    else if (!strcmp(method, "tools/call")) {
        tool_call(id, params);
        if (opt.exit_after_calls > 0 && ++calls_handled >= opt.exit_after_calls) {
            char msg[96];
            snprintf(msg, sizeof msg, "test_server: exit-after-calls: exiting after %ld calls\n", calls_handled);
            err_str(msg);
            _exit(5);
        }
    }
    else if (!strcmp(method, "resources/list")) list_resources(id, params);
    else if (!strcmp(method, "resources/templates/list"))
        send_result(id, "{\"resourceTemplates\":[{\"uriTemplate\":\"file:///tmpl/{path}\",\"name\":\"tmpl\"}]}");
    else if (!strcmp(method, "resources/read")) read_resource(id, params);
    else if (!strcmp(method, "prompts/list")) {
        const char *cursor = mcp_json_str(mcp_json_get(params, "cursor"));
        if (!cursor)
            send_result(id, "{\"prompts\":[{\"name\":\"greet\",\"arguments\":[{\"name\":\"name\",\"required\":true}]}],"
                            "\"nextCursor\":\"p2\"}");
        else
            send_result(id, "{\"prompts\":[{\"name\":\"summarize\"}]}");
    }
    else if (!strcmp(method, "prompts/get")) get_prompt(id, params);
    else if (!strcmp(method, "completion/complete")) complete(id, params);
    else if (!strcmp(method, "test/never")) { /* never answered */ }
    else send_error(id, -32601, "Method not found");
}

static void on_request(const mcp_json *m)
{
    const char *method = mcp_json_str(mcp_json_get(m, "method"));
    const mcp_json *params = mcp_json_get(m, "params");
    static mcp_buf idb;                       /* the id as JSON text, NUL-terminated; reused */
    const char *id;
    size_t n;
    id = dump_tmp(mcp_json_get(m, "id"), &n);
    idb.len = 0;
    mcp_buf_append(&idb, id, n);
    if (mcp_buf_append(&idb, "", 1) != MCP_OK) _exit(3);
    id = idb.data;
    log_request(id, method, params);
    if (!strcmp(method, "initialize")) {
        if (opt.era == ERA_MODERN) refuse_initialize(id, params);
        else { initialized = 1; on_initialize(id, params); }
    } else if (is_modern_request(method, params)) {
        if (check_meta(id, method, params)) {
            cur_modern = 1; cur_meta = mcp_json_get(params, "_meta"); cur_method = method;
            cur_cursor = mcp_json_str(mcp_json_get(params, "cursor"));
            if (!strcmp(method, "server/discover")) discover(id);
            else if (!strcmp(method, "subscriptions/listen")) on_listen(id, params);
            else if (!strcmp(method, "ping") || !strcmp(method, "logging/setLevel") ||
                     !strcmp(method, "resources/subscribe") || !strcmp(method, "resources/unsubscribe"))
                send_error(id, -32601, "Method not found");      /* gone in 2026-07-28 */
            else dispatch(id, method, params);
            cur_modern = 0; cur_meta = NULL; cur_method = NULL; cur_cursor = NULL;
        }
    } else if (!strcmp(method, "server/discover") && legacy_probe(id)) {
        /* answered (or not) as --probe says */
    } else if (!strcmp(method, "ping")) send_result(id, "{}");
    else if (!strcmp(method, "resources/subscribe")) subscribe(id, params, 1);
    else if (!strcmp(method, "resources/unsubscribe")) subscribe(id, params, 0);
    else if (!strcmp(method, "logging/setLevel")) set_level(id, params);
    else dispatch(id, method, params);
}

static void on_line(const char *line, size_t len)
{
    mcp_json_doc *d;
    const mcp_json *m;
    mcp_msg_kind kind;
    if (log_fd >= 0) { write_all(log_fd, line, len); write_all(log_fd, "\n", 1); }
    d = mcp_json_parse(line, len, NULL);
    if (!d) { send_error("null", -32700, "Parse error"); return; }
    m = mcp_json_root(d);
    kind = mcp_rpc_classify(m, NULL);
    switch (kind) {
    case MCP_MSG_REQUEST: on_request(m); break;
    case MCP_MSG_NOTIFICATION: on_notification(m); break;
    case MCP_MSG_RESULT: case MCP_MSG_ERROR: if (!task_reply(m, kind)) on_reply(m, kind); break;
    default: send_error("null", -32600, "Invalid Request"); break;
    }
    mcp_json_free(d);
}

/* ---- timers --------------------------------------------------------------------------------- */

static void send_progress(const item *it)
{
    if (it->no_total)
        sendf("{\"jsonrpc\":\"2.0\",\"method\":\"notifications/progress\",\"params\":{\"progressToken\":%s,"
              "\"progress\":%d,\"message\":\"step %d\"}}", it->token, it->step, it->step);
    else
        sendf("{\"jsonrpc\":\"2.0\",\"method\":\"notifications/progress\",\"params\":{\"progressToken\":%s,"
              "\"progress\":%d,\"total\":%d,\"message\":\"step %d\"}}", it->token, it->step,
              it->ms / it->every, it->step);
}

static void run_timers(int64_t now)
{
    item *it, *next;
    char buf[256];
    task_timers(now);
    for (it = items; it; it = next) {
        next = it->next;
        if (it->due < 0 || it->due > now) continue;
        if (it->kind == IT_INIT) {
            item_unlink(it);
            answer_initialize(it->id);
            item_free(it);
            next = items;
            continue;
        }
        if (it->kind == IT_LISTCHG) {
            item_unlink(it);
            item_free(it);
            tools_changed();
            next = items;
            continue;
        }
        if (it->kind == IT_PROBE) {
            item_unlink(it);
            send_error(it->id, -32601, "Method not found");
            item_free(it);
            next = items;
            continue;
        }
        if (it->kind != IT_SLOW) continue;
        if (now >= it->end) {
            while (it->token && it->every > 0 && (int64_t)it->step * it->every < it->ms) {
                send_progress(it);                /* late: the steps still all come, in order */
                it->step++;
            }
            item_unlink(it);
            snprintf(buf, sizeof buf, "slept %d ms", it->ms);
            cur_modern = it->modern; cur_method = "tools/call";
            answer_text(it->id, buf);
            cur_modern = 0; cur_method = NULL;
            item_free(it);
            next = items;
            continue;
        }
        send_progress(it);
        it->step++;
        it->due = it->start + (int64_t)it->step * it->every;
        if (it->due > it->end) it->due = it->end;
    }
}

static int next_wait(int64_t now)
{
    item *it;
    int64_t best = -1;
    for (it = items; it; it = it->next)
        if (it->due >= 0 && (best < 0 || it->due < best)) best = it->due;
    best = task_next_due(best);
    if (best < 0) return -1;
    return best <= now ? 0 : best - now > 1000000 ? 1000000 : (int)(best - now);
}

/* ---- >>tasks  the task mode (--tasks) -------------------------------------------------------
   --tasks declares tasks: 2025-11-25 capabilities.tasks {list, cancel, requests.tools.call};
   2026-07-28 (and server/discover in dual) capabilities.extensions["io.modelcontextprotocol/
   tasks"]. The task tools come last on the second page of tools/list, with execution.taskSupport
   (no execution member: forbidden):
     task_slow {polls, ms, notify}    required. Working: each tasks/get answers the next
                                      statusMessage "step K of N" (N = polls, default 3) and, when
                                      the call carried a progressToken (2025-11-25), sends
                                      notifications/progress {progress K, total N, message
                                      "step K"} first; the get after the last step completes it:
                                      text "task_slow done after N polls". ms: completes after ms
                                      instead (statusMessage "working"), whatever the polls.
     task_input {polls, rounds, lag}  required. Working for polls gets (default 1), then
                                      input_required: 2025-11-25: when tasks/result comes, the
                                      server sends elicitation/create (id "tq<K>", _meta
                                      related-task) while that request stays open, and answers it
                                      at the end; 2026-07-28: tasks/get carries inputRequests
                                      {"name": {elicitation/create}} (round 2: "quest") until
                                      tasks/update answers it; lag: that many gets after the answer
                                      still show the answered question (a server catching up).
                                      After the last round (rounds, default 1; at most 2) it is
                                      working one get ("thanks") and then completed (2025-11-25:
                                      at once): text "task_input: name=V[ quest=V]" (V the
                                      answer's content.name / content.quest, or "(ACTION)").
     task_fail {polls, iserror}       required. Working for polls gets (default 1), then failed:
                                      statusMessage "the task failed", tasks/result (2025-11-25) is
                                      the JSON-RPC error -32603 "disk full", 2026-07-28 inlines
                                      error {code -32603, message "disk full"}. iserror: completed
                                      instead, with the tool result isError true, "the tool failed".
     task_cancelled {polls}           required. Then cancelled, "cancelled by the server".
     task_forever                     required. Working for ever ("still working").
     task_forget {polls}              required. Then the server forgets it: tasks/get,
                                      tasks/result, tasks/update and tasks/cancel of its id get
                                      -32602 "Unknown task: ID"; not in tasks/list.
     task_ttl                         required, ttl --task-ttl (default 500 ms), working for ever.
     task_optional {polls}            optional. A task (like task_slow, polls default 1) when the
                                      call asked (2025-11-25: params.task; 2026-07-28: the client
                                      declared the extension), else text "task_optional: direct".
     task_forbidden                   forbidden: text "task_forbidden: direct".
     task_stats {id}                  text = {"gets","results","updates","cancels","lists",
                                      "created","tasks":[{"id","tool","status","gets","first_ms",
                                      "min_gap","max_gap","cancel","dup_answers"}]} (with id: that
                                      task's object only); gaps are between its tasks/get, in ms.
     task_spawn {tool, arguments}     creates a task of that tool as if it had been called as one
                                      (nobody follows it); text = its id.
   Every task tool takes poll (pollInterval in ms; default --task-poll, else 100; -1: none sent),
   ttl (default 60000) and mute (the mute-th tasks/get of the task is never answered; 0: none). Ids are "task-<K>". The rules: 2025-11-25: params.task on a tool
   that is not optional or required (any tool) is -32601; a required tool without it is -32601;
   2026-07-28: params.task is -32602 (no per-request opt-in); a required tool called without the
   extension declared in _meta clientCapabilities is -32021 with data.requiredCapabilities
   {"extensions": {"io.modelcontextprotocol/tasks": {}}}. Methods: tasks/get (the task; 2026-07-28
   with inputRequests, result or error inlined), tasks/result (2025-11-25 only: held until the
   task is terminal; the call's result with _meta related-task, or its error; cancelled: -32603),
   tasks/list (2025-11-25 only: --task-page tasks a page, default 2, nextCursor "tl<index>"; a bad
   cursor is -32602), tasks/cancel (-32602 when unknown or already terminal; 2025-11-25 answers
   the task, 2026-07-28 {}), tasks/update (2026-07-28 only; answers to keys not outstanding are
   ignored and counted as dup_answers). A held tasks/result of a task cancelled by the client gets
   -32603 "Task cancelled". notify (or --task-notify): every status change is also sent as
   notifications/tasks/status (2025-11-25) or notifications/tasks (2026-07-28, the whole task). */

enum { TK_SLOW, TK_INPUT, TK_FAIL, TK_CANCELLED, TK_FOREVER, TK_FORGET, TK_TTL, TK_OPTIONAL, TK_FORBIDDEN,
       TK_STATS, TK_SPAWN };

static const struct { const char *name, *support; int kind; } task_tools[] = {
    { "task_slow", "required", TK_SLOW }, { "task_input", "required", TK_INPUT },
    { "task_fail", "required", TK_FAIL }, { "task_cancelled", "required", TK_CANCELLED },
    { "task_forever", "required", TK_FOREVER }, { "task_forget", "required", TK_FORGET },
    { "task_ttl", "required", TK_TTL }, { "task_optional", "optional", TK_OPTIONAL },
    { "task_forbidden", "forbidden", TK_FORBIDDEN }, { "task_stats", NULL, TK_STATS },
    { "task_spawn", NULL, TK_SPAWN }, { NULL, NULL, 0 }
};

static struct {
    int on, poll, ttl, page, notify;    /* --tasks, --task-poll, --task-ttl, --task-page, --task-notify */
    long gets, results, updates, cancels, lists, created;
} topt = { 0, 100, 500, 2, 0, 0, 0, 0, 0, 0, 0 };

typedef struct task {
    char id[32];
    int tool;                        /* index in task_tools */
    int kind, modern;
    int polls, steps, phase;         /* gets answered; gets before the next phase; kind's phase */
    char status[16], msg[160];
    char *result;                    /* completed: the result (JSON text) */
    long ecode; char emsg[64];       /* failed */
    char *token;                     /* 2025-11-25: the call's progress token (JSON text) */
    char created[32], updated[32];   /* ISO 8601 */
    int64_t t0, due, last_get;       /* due: completes then (task_slow ms); -1 none */
    int first_ms, min_gap, max_gap;
    int ttl, poll, notify, forgotten, cancel_asked, dup_answers, mute;
    char *held;                      /* 2025-11-25: the id of the tasks/result waiting (JSON text) */
    char ask[24];                    /* 2025-11-25: the id of our elicitation/create in flight */
    int rounds, round, lag;          /* task_input */
    char answers[256];
    struct task *next;
} task;
static task *tasks_all;              /* newest first */
static int task_seq, task_ask_seq;

static int task_flag(const char *a)
{
    if (!strcmp(a, "tasks")) topt.on = 1;
    else if (!strncmp(a, "task-poll=", 10)) topt.poll = atoi(a + 10);
    else if (!strncmp(a, "task-ttl=", 9)) topt.ttl = atoi(a + 9);
    else if (!strncmp(a, "task-page=", 10)) topt.page = atoi(a + 10) > 0 ? atoi(a + 10) : 1;
    else if (!strcmp(a, "task-notify")) topt.notify = 1;
    else return 0;
    return 1;
}

static void task_caps(mcp_jw *w)
{
    if (!topt.on) return;
    if (cur_modern) {
        static const char ext[] = "{\"io.modelcontextprotocol/tasks\":{}}";
        mcp_jw_key(w, "extensions"); mcp_jw_raw(w, ext, sizeof ext - 1);
    } else {
        static const char caps[] = "{\"list\":{},\"cancel\":{},\"requests\":{\"tools\":{\"call\":{}}}}";
        mcp_jw_key(w, "tasks"); mcp_jw_raw(w, caps, sizeof caps - 1);
    }
}

/* The task tools, at the end of tools/list's last page. */
static void task_list_tools(mcp_jw *w)
{
    int i;
    if (!topt.on) return;
    for (i = 0; task_tools[i].name; i++) {
        mcp_jw_obj_begin(w);
        mcp_jw_key(w, "name"); mcp_jw_str(w, task_tools[i].name);
        mcp_jw_key(w, "description"); mcp_jw_str(w, "A task test tool.");
        mcp_jw_key(w, "inputSchema"); mcp_jw_raw(w, "{\"type\":\"object\"}", 17);
        if (task_tools[i].support) {
            mcp_jw_key(w, "execution"); mcp_jw_obj_begin(w);
            mcp_jw_key(w, "taskSupport"); mcp_jw_str(w, task_tools[i].support);
            mcp_jw_obj_end(w);
        }
        mcp_jw_obj_end(w);
    }
}

static void iso_now(char *out, size_t n)
{
    time_t now = time(NULL);
    struct tm tmv;
    gmtime_r(&now, &tmv);
    strftime(out, n, "%Y-%m-%dT%H:%M:%SZ", &tmv);
}

static task *task_find(const mcp_json *params)
{
    const char *tid = mcp_json_str(mcp_json_get(params, "taskId"));
    task *t;
    for (t = tasks_all; tid && t; t = t->next)
        if (!strcmp(t->id, tid) && !t->forgotten) return t;
    return NULL;
}

static int task_terminal(const task *t)
{
    return !strcmp(t->status, "completed") || !strcmp(t->status, "failed") || !strcmp(t->status, "cancelled");
}

/* The question of round r (0: name, 1: quest), as the params of elicitation/create. */
static const char *task_question(int r)
{
    return r == 0 ? ELICIT_NAME
                  : "{\"mode\":\"form\",\"message\":\"What is your quest?\",\"requestedSchema\":{\"type\":\"object\","
                    "\"properties\":{\"quest\":{\"type\":\"string\"}},\"required\":[\"quest\"]}}";
}
static const char *task_key(int r) { return r == 0 ? "name" : "quest"; }

/* The members of the task object (no braces); detailed: 2026-07-28's inlined payload. */
static void task_members(mcp_jw *w, const task *t, int detailed)
{
    mcp_jw_key(w, "taskId"); mcp_jw_str(w, t->id);
    mcp_jw_key(w, "status"); mcp_jw_str(w, t->status);
    if (t->msg[0]) { mcp_jw_key(w, "statusMessage"); mcp_jw_str(w, t->msg); }
    mcp_jw_key(w, "createdAt"); mcp_jw_str(w, t->created);
    mcp_jw_key(w, "lastUpdatedAt"); mcp_jw_str(w, t->updated);
    mcp_jw_key(w, t->modern ? "ttlMs" : "ttl"); mcp_jw_int(w, t->ttl);
    if (t->poll >= 0) { mcp_jw_key(w, t->modern ? "pollIntervalMs" : "pollInterval"); mcp_jw_int(w, t->poll); }
    if (!detailed || !t->modern) return;
    if (!strcmp(t->status, "input_required")) {
        int r = t->phase == 2 ? t->round - 1 : t->round;     /* lagging: the question answered */
        mcp_jw_key(w, "inputRequests"); mcp_jw_obj_begin(w);
        mcp_jw_key(w, task_key(r)); mcp_jw_obj_begin(w);
        mcp_jw_key(w, "method"); mcp_jw_str(w, "elicitation/create");
        mcp_jw_key(w, "params"); mcp_jw_raw(w, task_question(r), strlen(task_question(r)));
        mcp_jw_obj_end(w);
        mcp_jw_obj_end(w);
    } else if (!strcmp(t->status, "completed") && t->result) {
        mcp_jw_key(w, "result"); mcp_jw_raw(w, t->result, strlen(t->result));
    } else if (!strcmp(t->status, "failed")) {
        mcp_jw_key(w, "error"); mcp_jw_obj_begin(w);
        mcp_jw_key(w, "code"); mcp_jw_int(w, t->ecode);
        mcp_jw_key(w, "message"); mcp_jw_str(w, t->emsg);
        mcp_jw_obj_end(w);
    }
}

/* Sends the task object: as a result (how: 0 tasks/get, 1 CreateTaskResult), or as a
   notification (how 2). */
static void task_send(const char *id, const task *t, int how)
{
    mcp_jw w;
    char *txt;
    int was = cur_modern;
    mcp_jw_init(&w, 0);
    mcp_jw_obj_begin(&w);
    if (how == 2) {
        mcp_jw_key(&w, "jsonrpc"); mcp_jw_str(&w, "2.0");
        mcp_jw_key(&w, "method"); mcp_jw_str(&w, t->modern ? "notifications/tasks" : "notifications/tasks/status");
        mcp_jw_key(&w, "params"); mcp_jw_obj_begin(&w);
        task_members(&w, t, 1);
        mcp_jw_obj_end(&w);
    } else if (how == 1 && !t->modern) {
        mcp_jw_key(&w, "task"); mcp_jw_obj_begin(&w); task_members(&w, t, 0); mcp_jw_obj_end(&w);
    } else {
        if (how == 1) { mcp_jw_key(&w, "resultType"); mcp_jw_str(&w, "task"); }
        task_members(&w, t, 1);
    }
    mcp_jw_obj_end(&w);
    txt = mcp_jw_finish(&w, NULL, NULL);
    if (!txt) { err_str("test_server: task_send failed\n"); _exit(3); }
    if (how == 2) send_str(txt);
    else { cur_modern = t->modern; send_result(id, txt); cur_modern = was; }
    mcp_free(txt);
}

/* 2025-11-25: the held tasks/result of a terminal task gets its answer. */
static void task_answer_held(task *t)
{
    mcp_jw w;
    char *txt, meta[96];
    mcp_json_doc *d;
    size_t i, kl;
    if (!t->held || !task_terminal(t)) return;
    if (!strcmp(t->status, "failed")) send_error(t->held, t->ecode, t->emsg);
    else if (!strcmp(t->status, "cancelled")) send_error(t->held, -32603, "Task cancelled");
    else {
        d = mcp_json_parse(t->result, strlen(t->result), NULL);
        mcp_jw_init(&w, 0);
        mcp_jw_obj_begin(&w);
        for (i = 0; i < mcp_json_len(mcp_json_root(d)); i++) {
            const char *k = mcp_json_key_at(mcp_json_root(d), i, &kl);
            mcp_jw_keyn(&w, k, kl); mcp_jw_value(&w, mcp_json_at(mcp_json_root(d), i));
        }
        snprintf(meta, sizeof meta, "{\"io.modelcontextprotocol/related-task\":{\"taskId\":\"%s\"}}", t->id);
        mcp_jw_key(&w, "_meta"); mcp_jw_raw(&w, meta, strlen(meta));
        mcp_jw_obj_end(&w);
        mcp_json_free(d);
        txt = mcp_jw_finish(&w, NULL, NULL);
        send_result(t->held, txt ? txt : "{}");
        mcp_free(txt);
    }
    free(t->held);
    t->held = NULL;
}

/* A new status (and message); notified when asked, the held tasks/result answered. */
static void task_set(task *t, const char *status, const char *msg)
{
    int changed = strcmp(t->status, status) || strcmp(t->msg, msg);
    snprintf(t->status, sizeof t->status, "%s", status);
    snprintf(t->msg, sizeof t->msg, "%s", msg);
    iso_now(t->updated, sizeof t->updated);
    if (changed && t->notify) task_send(NULL, t, 2);
    task_answer_held(t);
}

static void task_complete(task *t, const char *text, int is_error)
{
    free(t->result);
    {
        char *r = tool_text(text, is_error, NULL);
        t->result = xstrdup(r);
        mcp_free(r);
    }
    task_set(t, "completed", is_error ? "completed with an error" : "done");
}

static void task_input_done(task *t)
{
    char text[320];
    snprintf(text, sizeof text, "task_input:%s", t->answers);
    task_complete(t, text, 0);
}

/* 2025-11-25: asks the question of the current round, while tasks/result is open. */
static void task_ask_client(task *t)
{
    snprintf(t->ask, sizeof t->ask, "\"tq%d\"", ++task_ask_seq);
    sendf("{\"jsonrpc\":\"2.0\",\"id\":%s,\"method\":\"elicitation/create\",\"params\":%.*s,"
          "\"_meta\":{\"io.modelcontextprotocol/related-task\":{\"taskId\":\"%s\"}}}}",
          t->ask, (int)strlen(task_question(t->round)) - 1, task_question(t->round), t->id);
}

/* An answer to a question of round r: " key=value" added to the answers. */
static void task_note_answer(task *t, int r, const mcp_json *answer)
{
    const char *action = mcp_json_str(mcp_json_get(answer, "action"));
    const char *v = mcp_json_str(mcp_json_get(mcp_json_get(answer, "content"), task_key(r)));
    size_t n = strlen(t->answers);
    if (action && !strcmp(action, "accept") && v)
        snprintf(t->answers + n, sizeof t->answers - n, " %s=%.60s", task_key(r), v);
    else snprintf(t->answers + n, sizeof t->answers - n, " %s=(%.20s)", task_key(r), action ? action : "no answer");
}

/* What a tasks/get finds: the task moves on one step. */
static void task_step(task *t)
{
    char msg[96];
    int64_t now = mcp_time_ms();
    int gap = (int)(now - t->last_get);
    t->polls++;
    if (t->polls == 1) t->first_ms = gap;
    else {
        if (t->min_gap < 0 || gap < t->min_gap) t->min_gap = gap;
        if (gap > t->max_gap) t->max_gap = gap;
    }
    t->last_get = now;
    if (task_terminal(t)) return;
    switch (t->kind) {
    case TK_SLOW: case TK_OPTIONAL:
        if (t->due >= 0) { task_set(t, "working", "working"); break; }
        if (t->polls <= t->steps) {
            snprintf(msg, sizeof msg, "step %d of %d", t->polls, t->steps);
            if (t->token)
                sendf("{\"jsonrpc\":\"2.0\",\"method\":\"notifications/progress\",\"params\":{\"progressToken\":%s,"
                      "\"progress\":%d,\"total\":%d,\"message\":\"step %d\"}}", t->token, t->polls, t->steps, t->polls);
            task_set(t, "working", msg);
        } else {
            snprintf(msg, sizeof msg, "%s done after %d polls", task_tools[t->tool].name, t->steps);
            task_complete(t, msg, 0);
        }
        break;
    case TK_INPUT:
        if (t->phase == 0 && t->polls > t->steps) t->phase = 1;
        if (t->phase == 2) {                             /* answered (2026-07-28) */
            if (t->lag > 0) {                            /* the server has not caught up yet */
                t->lag--;
                task_set(t, "input_required", t->round == 1 ? "waiting for your name" : "waiting for your quest");
                break;
            }
            t->phase = t->round < t->rounds ? 1 : 3;
        }
        if (t->phase == 0) task_set(t, "working", "preparing the questions");
        else if (t->phase == 1) task_set(t, "input_required", t->round == 0 ? "waiting for your name" : "waiting for your quest");
        else if (t->phase == 3) { task_set(t, "working", "thanks"); t->phase = 4; }
        else task_input_done(t);
        break;
    case TK_FAIL:
        if (t->polls <= t->steps) task_set(t, "working", "trying");
        else if (t->ecode) task_set(t, "failed", "the task failed");
        else task_complete(t, "the tool failed", 1);
        break;
    case TK_CANCELLED:
        task_set(t, t->polls <= t->steps ? "working" : "cancelled", t->polls <= t->steps ? "trying" : "cancelled by the server");
        break;
    case TK_FORGET:
        if (t->polls > t->steps) t->forgotten = 1;
        else task_set(t, "working", "about to forget");
        break;
    default:
        task_set(t, "working", "still working");
        break;
    }
}

static task *task_new(int tool, const mcp_json *args, const mcp_json *meta)
{
    task *t = (task *)calloc(1, sizeof *t);
    const mcp_json *tok = mcp_json_get(meta, "progressToken");
    if (!t) { perror("calloc"); _exit(3); }
    t->tool = tool;
    t->kind = task_tools[tool].kind;
    t->modern = cur_modern;
    snprintf(t->id, sizeof t->id, "task-%d", ++task_seq);
    snprintf(t->status, sizeof t->status, "working");
    snprintf(t->msg, sizeof t->msg, "started");
    iso_now(t->created, sizeof t->created);
    memcpy(t->updated, t->created, sizeof t->updated);
    t->t0 = t->last_get = mcp_time_ms();
    t->due = -1;
    t->min_gap = -1;
    t->poll = (int)arg_int(args, "poll", topt.poll);
    t->ttl = (int)arg_int(args, "ttl", t->kind == TK_TTL ? topt.ttl : 60000);
    t->steps = (int)arg_int(args, "polls", t->kind == TK_SLOW ? 3 : 1);
    t->notify = topt.notify || mcp_json_is_true(mcp_json_get(args, "notify"));
    t->rounds = (int)arg_int(args, "rounds", 1);
    if (t->rounds < 1) t->rounds = 1;
    if (t->rounds > 2) t->rounds = 2;
    t->lag = (int)arg_int(args, "lag", 0);
    t->mute = (int)arg_int(args, "mute", 0);
    if (t->kind == TK_FAIL) {
        t->ecode = mcp_json_is_true(mcp_json_get(args, "iserror")) ? 0 : -32603;
        snprintf(t->emsg, sizeof t->emsg, "disk full");
    }
    if (t->kind == TK_SLOW && mcp_json_get(args, "ms")) t->due = t->t0 + arg_int(args, "ms", 0);
    if (tok && !cur_modern) t->token = dump(tok);
    t->next = tasks_all;
    tasks_all = t;
    topt.created++;
    return t;
}

static void task_stats_one(mcp_jw *w, const task *t)
{
    mcp_jw_obj_begin(w);
    mcp_jw_key(w, "id"); mcp_jw_str(w, t->id);
    mcp_jw_key(w, "tool"); mcp_jw_str(w, task_tools[t->tool].name);
    mcp_jw_key(w, "status"); mcp_jw_str(w, t->forgotten ? "forgotten" : t->status);
    mcp_jw_key(w, "gets"); mcp_jw_int(w, t->polls);
    mcp_jw_key(w, "first_ms"); mcp_jw_int(w, t->first_ms);
    mcp_jw_key(w, "min_gap"); mcp_jw_int(w, t->min_gap);
    mcp_jw_key(w, "max_gap"); mcp_jw_int(w, t->max_gap);
    mcp_jw_key(w, "cancel"); mcp_jw_bool(w, t->cancel_asked);
    mcp_jw_key(w, "dup_answers"); mcp_jw_int(w, t->dup_answers);
    mcp_jw_obj_end(w);
}

static void task_stats(const char *id, const mcp_json *args)
{
    const char *want = mcp_json_str(mcp_json_get(args, "id"));
    mcp_jw w;
    char *txt;
    task *t, *order[1024];
    int n = 0, i;
    for (t = tasks_all; t && n < 1024; t = t->next) order[n++] = t;
    mcp_jw_init(&w, 0);
    if (want) {
        for (i = 0; i < n && strcmp(order[i]->id, want); i++) {}
        if (i < n) task_stats_one(&w, order[i]);
        else { static const char none[] = "{\"error\":\"no such task\"}"; mcp_jw_raw(&w, none, sizeof none - 1); }
    } else {
        mcp_jw_obj_begin(&w);
        mcp_jw_key(&w, "gets"); mcp_jw_int(&w, topt.gets);
        mcp_jw_key(&w, "results"); mcp_jw_int(&w, topt.results);
        mcp_jw_key(&w, "updates"); mcp_jw_int(&w, topt.updates);
        mcp_jw_key(&w, "cancels"); mcp_jw_int(&w, topt.cancels);
        mcp_jw_key(&w, "lists"); mcp_jw_int(&w, topt.lists);
        mcp_jw_key(&w, "created"); mcp_jw_int(&w, topt.created);
        mcp_jw_key(&w, "tasks"); mcp_jw_arr_begin(&w);
        for (i = n - 1; i >= 0; i--) task_stats_one(&w, order[i]);     /* oldest first */
        mcp_jw_arr_end(&w);
        mcp_jw_obj_end(&w);
    }
    txt = mcp_jw_finish(&w, NULL, NULL);
    answer_text(id, txt ? txt : "null");
    mcp_free(txt);
}

static int task_tool_index(const char *name)
{
    int i;
    for (i = 0; name && task_tools[i].name; i++)
        if (!strcmp(task_tools[i].name, name)) return i;
    return -1;
}

/* tools/call in the task mode: 1 when answered here. */
static int task_tool_call(const char *id, const char *name, const mcp_json *params)
{
    const mcp_json *tp = mcp_json_get(params, "task"), *args = mcp_json_get(params, "arguments");
    const char *support;
    char buf[256];
    int i, asked;
    task *t;
    if (!topt.on) return 0;
    i = task_tool_index(name);
    support = i >= 0 ? task_tools[i].support : NULL;
    if (cur_modern) {
        const mcp_json *caps = mcp_json_get(cur_meta, "io.modelcontextprotocol/clientCapabilities");
        int declared = mcp_json_get(mcp_json_get(caps, "extensions"), "io.modelcontextprotocol/tasks") != NULL;
        if (tp) {
            send_error(id, -32602, "params.task is the 2025-11-25 form: 2026-07-28 has no per-request task opt-in");
            return 1;
        }
        if (support && !strcmp(support, "required") && !declared) {
            snprintf(buf, sizeof buf, "Tool %s runs only as a task: declare the tasks extension", name);
            send_error_data(id, -32021, buf, "{\"requiredCapabilities\":{\"extensions\":{\"io.modelcontextprotocol/tasks\":{}}}}");
            return 1;
        }
        asked = declared && support && strcmp(support, "forbidden");
    } else {
        asked = tp != NULL;
        if (asked && (!support || !strcmp(support, "forbidden"))) {
            snprintf(buf, sizeof buf, "Tool %.100s does not support task-augmented execution", name);
            send_error(id, -32601, buf);
            return 1;
        }
        if (!asked && support && !strcmp(support, "required")) {
            snprintf(buf, sizeof buf, "Tool %.100s requires task-augmented execution (params.task)", name);
            send_error(id, -32601, buf);
            return 1;
        }
    }
    if (i < 0) return 0;
    if (task_tools[i].kind == TK_STATS) { task_stats(id, args); return 1; }
    if (task_tools[i].kind == TK_SPAWN) {
        int k = task_tool_index(mcp_json_str(mcp_json_get(args, "tool")));
        if (k < 0 || !task_tools[k].support || !strcmp(task_tools[k].support, "forbidden")) {
            send_error(id, -32602, "task_spawn needs the name of a task tool");
            return 1;
        }
        t = task_new(k, mcp_json_get(args, "arguments"), NULL);
        answer_text(id, t->id);
        return 1;
    }
    if (!asked) {
        snprintf(buf, sizeof buf, "%s: direct", name);
        answer_text(id, buf);
        return 1;
    }
    t = task_new(i, args, mcp_json_get(params, "_meta"));
    task_send(id, t, 1);
    return 1;
}

/* tasks/list (2025-11-25): pages of topt.page tasks, oldest first. */
static void task_list(const char *id, const mcp_json *params)
{
    const char *cursor = mcp_json_str(mcp_json_get(params, "cursor"));
    task *t, *order[1024];
    int n = 0, i, from = 0;
    mcp_jw w;
    char *txt, next[32];
    topt.lists++;
    if (cursor && (strncmp(cursor, "tl", 2) || (from = atoi(cursor + 2)) <= 0)) {
        send_error(id, -32602, "Invalid cursor");
        return;
    }
    for (t = tasks_all; t && n < 1024; t = t->next) if (!t->forgotten) order[n++] = t;
    mcp_jw_init(&w, 0);
    mcp_jw_obj_begin(&w);
    mcp_jw_key(&w, "tasks"); mcp_jw_arr_begin(&w);
    for (i = from; i < n && i < from + topt.page; i++) {
        mcp_jw_obj_begin(&w); task_members(&w, order[n - 1 - i], 0); mcp_jw_obj_end(&w);
    }
    mcp_jw_arr_end(&w);
    if (from + topt.page < n) {
        snprintf(next, sizeof next, "tl%d", from + topt.page);
        mcp_jw_key(&w, "nextCursor"); mcp_jw_str(&w, next);
    }
    mcp_jw_obj_end(&w);
    txt = mcp_jw_finish(&w, NULL, NULL);
    send_result(id, txt ? txt : "{}");
    mcp_free(txt);
}

static void task_unknown(const char *id, const mcp_json *params)
{
    char buf[160];
    snprintf(buf, sizeof buf, "Unknown task: %.100s", mcp_json_str(mcp_json_get(params, "taskId")) ? mcp_json_str(mcp_json_get(params, "taskId")) : "(none)");
    send_error(id, -32602, buf);
}

/* tasks/update (2026-07-28): the answers to the outstanding question. */
static void task_update(const char *id, task *t, const mcp_json *params)
{
    const mcp_json *resp = mcp_json_get(params, "inputResponses");
    size_t i, kl;
    topt.updates++;
    for (i = 0; i < mcp_json_len(resp); i++) {
        const char *k = mcp_json_key_at(resp, i, &kl);
        if (t->kind == TK_INPUT && t->phase == 1 && kl == strlen(task_key(t->round)) && !memcmp(k, task_key(t->round), kl)) {
            task_note_answer(t, t->round, mcp_json_at(resp, i));
            t->round++;
            t->phase = 2;
        } else t->dup_answers++;
    }
    send_result(id, "{}");
}

/* The tasks/ methods: 1 when answered here. */
static int task_request(const char *id, const char *method, const mcp_json *params)
{
    task *t;
    if (!topt.on || strncmp(method, "tasks/", 6)) return 0;
    if (!strcmp(method, "tasks/list")) {
        if (cur_modern) send_error(id, -32601, "tasks/list is not part of the 2026-07-28 tasks extension");
        else task_list(id, params);
        return 1;
    }
    if (strcmp(method, "tasks/get") && strcmp(method, "tasks/result") && strcmp(method, "tasks/cancel") &&
        strcmp(method, "tasks/update")) return 0;
    if (!strcmp(method, "tasks/get")) topt.gets++;
    if (!strcmp(method, "tasks/result")) topt.results++;
    if (!strcmp(method, "tasks/cancel")) topt.cancels++;
    if ((!strcmp(method, "tasks/result") && cur_modern) || (!strcmp(method, "tasks/update") && !cur_modern)) {
        send_error(id, -32601, "Method not found");
        return 1;
    }
    if (!(t = task_find(params))) { task_unknown(id, params); return 1; }
    if (!strcmp(method, "tasks/get")) {
        task_step(t);
        if (t->mute && t->polls == t->mute) { /* never answered */ }
        else if (t->forgotten) task_unknown(id, params);
        else task_send(id, t, 0);
    } else if (!strcmp(method, "tasks/result")) {
        free(t->held);
        t->held = xstrdup(id);
        if (task_terminal(t)) task_answer_held(t);
        else if (t->kind == TK_INPUT && !strcmp(t->status, "input_required") && !t->ask[0]) task_ask_client(t);
    } else if (!strcmp(method, "tasks/cancel")) {
        t->cancel_asked = 1;
        if (task_terminal(t)) {
            char buf[160];
            snprintf(buf, sizeof buf, "Task %s is already %s", t->id, t->status);
            send_error(id, -32602, buf);
        } else {
            task_set(t, "cancelled", "cancelled at the client's request");
            if (t->modern) send_result(id, "{}");
            else task_send(id, t, 0);
        }
    } else task_update(id, t, params);
    return 1;
}

/* 2025-11-25: the client's answer to our elicitation/create. 1: it was ours. */
static int task_reply(const mcp_json *m, mcp_msg_kind kind)
{
    char *sid;
    task *t;
    if (!topt.on) return 0;
    sid = dump(mcp_json_get(m, "id"));
    for (t = tasks_all; t && strcmp(t->ask, sid); t = t->next) {}
    free(sid);
    if (!t) return 0;
    t->ask[0] = 0;
    task_note_answer(t, t->round, kind == MCP_MSG_RESULT ? mcp_json_get(m, "result") : NULL);
    if (task_terminal(t)) return 1;                      /* cancelled meanwhile */
    if (++t->round < t->rounds) {
        task_set(t, "input_required", "waiting for your quest");
        task_ask_client(t);
    } else task_input_done(t);
    return 1;
}

static void task_timers(int64_t now)
{
    task *t;
    char msg[96];
    for (t = tasks_all; t; t = t->next)
        if (t->due >= 0 && t->due <= now && !task_terminal(t) && !t->forgotten) {
            t->due = -1;
            snprintf(msg, sizeof msg, "%s done after %lld ms", task_tools[t->tool].name, (long long)(now - t->t0));
            task_complete(t, msg, 0);
        }
}

static int64_t task_next_due(int64_t best)
{
    task *t;
    for (t = tasks_all; t; t = t->next)
        if (t->due >= 0 && !task_terminal(t) && (best < 0 || t->due < best)) best = t->due;
    return best;
}

static void task_free_all(void)
{
    while (tasks_all) {
        task *t = tasks_all;
        tasks_all = t->next;
        free(t->result); free(t->token); free(t->held); free(t);
    }
}

/* ---- main ----------------------------------------------------------------------------------- */

static void flag(const char *a)
{
    if (!strncmp(a, "--", 2)) a += 2;
    if (!strncmp(a, "version=", 8)) opt.version = a + 8;
    else if (!strncmp(a, "caps=", 5)) opt.caps = a + 5;
    else if (!strcmp(a, "no-instructions")) opt.no_instructions = 1;
    else if (!strncmp(a, "init=", 5)) opt.init = a + 5;
    else if (!strcmp(a, "stderr-hello")) opt.stderr_hello = 1;
    else if (!strcmp(a, "ignore-eof")) opt.ignore_eof = 1;
    else if (!strcmp(a, "ignore-term")) opt.ignore_term = 1;
    else if (!strncmp(a, "term-file=", 10)) opt.term_file = a + 10;
    else if (!strncmp(a, "log=", 4)) opt.log = a + 4;
    else if (!strcmp(a, "era=legacy")) opt.era = ERA_LEGACY;
    else if (!strcmp(a, "era=modern")) opt.era = ERA_MODERN;
    else if (!strcmp(a, "era=dual")) opt.era = ERA_DUAL;
    else if (!strncmp(a, "supported=", 10)) opt.supported = a + 10;
    else if (!strncmp(a, "probe=", 6)) opt.probe = a + 6;
    else if (!strncmp(a, "pages=", 6)) opt.pages = a + 6;
    else if (!strncmp(a, "discover-error=", 15)) opt.discover_error = atol(a + 15);
    else if (!strcmp(a, "discover-any-version")) opt.discover_any = 1;
    else if (!strcmp(a, "no-result-type")) opt.no_result_type = 1;
    else if (!strncmp(a, "notfound=", 9)) opt.notfound = atol(a + 9);
    else if (!strncmp(a, "startup-delay=", 14)) opt.startup_delay = atoi(a + 14);
    else if (!strcmp(a, "exit-on-initialize")) opt.exit_on_initialize = 1;
    else if (!strncmp(a, "tools=", 6)) opt.extra_tools = atoi(a + 6);
    else if (!strncmp(a, "tool-prefix=", 12)) opt.tool_prefix = a + 12;
    else if (!strncmp(a, "tool-names=", 11)) opt.tool_names = a + 11;
    else if (!strncmp(a, "list-changed-after=", 19)) opt.list_changed_after = atoi(a + 19);
    else if (!strncmp(a, "exit-after-calls=", 17)) opt.exit_after_calls = atol(a + 17);
    else if (!strncmp(a, "ttl=", 4)) opt.ttl = a + 4;
    else if (!strncmp(a, "scope=", 6)) opt.scope = a + 6;
    else if (!strncmp(a, "cursor-ms=", 10)) opt.cursor_ms = atol(a + 10);
    else if (!strncmp(a, "big=", 4)) opt.big = atol(a + 4);
    else if (task_flag(a)) { /* the task mode (>>tasks) */ }
    else if (*a) { err_str("test_server: unknown flag: "); err_str(a); err_str("\n"); _exit(2); }
}

int main(int argc, char **argv)
{
    static char rbuf[65536];
    mcp_jsonl fr;
    char *mode = NULL;
    int i;
    memset(&fr, 0, sizeof fr);
    for (i = 1; i < argc; i++) flag(argv[i]);
    if (getenv("TEST_SERVER_MODE")) {
        char *p, *save = NULL;
        mode = xstrdup(getenv("TEST_SERVER_MODE"));
        for (p = strtok_r(mode, " ", &save); p; p = strtok_r(NULL, " ", &save)) flag(p);
    }
    if (opt.ignore_term) signal(SIGTERM, SIG_IGN);
    else if (opt.term_file) signal(SIGTERM, on_term);
    if (opt.log) log_fd = open(opt.log, O_WRONLY | O_CREAT | O_APPEND, 0644);
    if (opt.stderr_hello) err_str("test_server: starting\r\nsecond line\n");
    if (opt.init && !strcmp(opt.init, "exit-early")) node_error_exit();
    extras_init();
    if (opt.startup_delay > 0) nap_ms(opt.startup_delay);

    for (;;) {
        struct pollfd pf;
        int64_t now = mcp_time_ms();
        int wait, r;
        run_timers(now);
        if (flood_left > 0) {
            char data[64];
            int k;
            for (k = 0; k < 64 && flood_left > 0; k++, flood_left--) {
                snprintf(data, sizeof data, "flood %ld", ++flood_n);
                notify_log("info", data);
            }
            continue;
        }
        wait = next_wait(mcp_time_ms());
        if (!reading || wait >= 0) {       /* timers pending: wait for input or the next one */
            pf.fd = 0; pf.events = POLLIN; pf.revents = 0;
            r = poll(&pf, reading ? 1 : 0, wait);
            if (r < 0 && errno != EINTR) { perror("test_server: poll"); return 3; }
            if (r <= 0 || !reading) continue;
        }                                  /* else nothing to do but read: block in read() */
        {
            ssize_t n = read(0, rbuf, sizeof rbuf);
            size_t off, used, len;
            const char *line;
            mcp_status st;
            if (n < 0 && (errno == EINTR || errno == EAGAIN)) continue;
            if (n <= 0) {
                if (opt.stderr_hello) err_str("bye");
                if (opt.ignore_eof) { reading = 0; continue; }
                break;
            }
            for (off = 0; off < (size_t)n && reading; off += used) {
                st = mcp_jsonl_feed(&fr, rbuf + off, (size_t)n - off, &used);
                while (mcp_jsonl_next(&fr, &line, &len) == MCP_OK) on_line(line, len);
                if (st < 0) { err_str("test_server: line too long\n"); return 3; }
            }
        }
    }
    mcp_jsonl_free(&fr);
    while (items) { item *it = items; items = it->next; item_free(it); }
    task_free_all();
    for (i = 0; i < nsubs; i++) free(subs[i]);
    while (listens) { listen_sub *l = listens; listens = l->next; listen_free(l); }
    mcp_buf_free(&history);
    mcp_buf_free(&reqlog);
    free(init_params);
    for (i = 0; i < nextra; i++) free(extra[i]);
    free(extra);
    free(mode);
    if (log_fd >= 0) close(log_fd);
    return 0;
}
