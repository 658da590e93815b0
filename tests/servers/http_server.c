/* http_server - an MCP server over HTTP/1.1 for tests/test_http_client.c and bench/http_bench.c,
   built on mcp.h's JSON layer and its own small HTTP request parser. Single-threaded: one poll()
   loop over the listening socket, stdin, every connection (many at once, keep-alive, pipelined
   requests answered in order) and the timers of pending answers.

   Usage: http_server [PORT] [--mode=FLAGS] [--retry=MS] [--idle-ms=MS] [--version=V] [--other=URL]
   It listens on 127.0.0.1 only. PORT 0 (the default) picks a free port. The first line on
   stdout is "PORT <n>"; nothing else is written there. It exits with status 0 on SIGTERM or
   SIGINT, or when its stdin ends (so a test that dies takes it along). It raises its own soft
   fd limit to 2048 (as far as the hard limit allows): a test may lower the limit it inherits.

   Endpoints
     POST /mcp        Streamable HTTP (2025-03-26 and later): one JSON-RPC message per POST.
                      initialize starts a session (Mcp-Session-Id on the answer); later requests
                      need the header (missing: 400, unknown or forgotten: 404). When the
                      session's version is 2025-06-18 or later, MCP-Protocol-Version must be
                      sent and equal it (else 400); an unknown version is always 400.
                      Notifications and responses: 202 Accepted, no body. Requests: the answer
                      as application/json, or as an SSE stream (see the sse flag; the tools
                      notify, ask and slow with a progress token always stream).
     GET /mcp         with Last-Event-ID "S-N": resumes stream S after event N (replays what
                      followed, then goes on live); without: the session's listener stream
                      (tool bcast writes to it). 405 with the noget flag.
     DELETE /mcp      ends the session (200; 405 with the nodelete flag).
     GET /sse         the 2024-11-05 HTTP+SSE transport: a new session whose stream starts
                      with an `endpoint` event, "/messages?session=ID" (flags absep, cross).
     POST /messages?session=ID
                      202 Accepted at once; answers, notifications and server requests go on
                      that session's stream as `message` events. Unknown session: 404.
                      Requests other than initialize and ping before initialize: -32600.
     /hop/N           (any method) 307 to /hop/N-1; /hop/0: 307 to /mcp. N + 1 hops in all.
     /moved           301 to http://127.0.0.1:PORT/mcp (absolute).
     /cross           307 to the URL of --other= (another origin: a second server); 404 without.
     /mcp/            the same endpoint as /mcp (where redir307 and redir308 send a client).
                      A redirect's body is "See the Location header."; stats counts redirects.
     GET /debug/...   for the tests (answered with Connection: close; these connections count
                      nowhere): stats, log (the last 512 requests: method, path, connection,
                      session, protocol version, Last-Event-ID, Authorization, JSON-RPC method,
                      status, time), history, sessions, reset (log, history and counters),
                      expire (forget every session), capture (record the bytes of the next
                      tools/call request and of its whole response), last (them, as JSON),
                      cancels (ids of 2026-07-28 requests whose stream the client closed),
                      listens (the open subscriptions/listen streams: [{id, filter}]),
                      arm_reset (the next JSON-RPC request POSTed to /mcp on a connection that
                      served one already is treated as reset_after_read says; each call arms
                      one more).
                      stats counts listens (opened), listen_closed (closed by the client),
                      listen_ended (ended by the server with end_listen), listen_dropped (broken
                      by drop_listen) and listen_refused (dropped unacknowledged, refuse_next);
                      max_open (MCP connections open at once, since the last reset; a reset
                      starts it from those open now), resets (requests reset after read),
                      redirects (3xx answers), and exec_METHOD ('/' as '_': exec_tools_call) for
                      each JSON-RPC method, the requests handed to it (the reset ones included).

   Flags: from --mode=a,b (every request), from the request header "X-Test-Mode: a,b" (one
   client's requests), or from "_mode" in a tools/call's arguments (that call only):
     sse          answer requests with an SSE stream (default: application/json)
     chunked      chunked bodies with chunk extensions and trailers (pieces of 1 and 61 bytes)
     until_close  bodies without a length, ended by closing the connection
     drip         the response is written one byte at a time, 1 ms apart
     cut          Content-Length, half the body, then the connection closes
     badchunk     chunked, with the chunk size "zz"
     bighead      70 headers of 1000 bytes (over mcp.h's 64 KiB head limit)
     manyhead     150 small headers (over mcp.h's 100 headers limit)
     ctype        JSON answers labelled Content-Type: text/plain
     auth         401 (WWW-Authenticate, Mcp-Auth-Server) unless "Authorization: Bearer good-token"
     noget        405 on GET /mcp without Last-Event-ID (with sseonly: 403 on the event stream)
     nodelete     405 on DELETE
     nosession    no Mcp-Session-Id (and none required)
     prime        SSE answers start with a priming event: an id and empty data
     noid         SSE events carry no id
     drop         SSE answers: a priming event with an id and "retry: R" (--retry, default 150),
                  then the connection closes; the answer waits for GET with Last-Event-ID
     dropnoid     SSE answers: the head, then the connection closes; no id, the answer is lost
     idle         an idle keep-alive connection is closed after --idle-ms (default 30)
     racy         a request arriving on a connection that already served one is not answered:
                  the connection closes (what a client sees when its keep-alive connection
                  was closed by the server just as it sent)
     hang         no request is ever answered
     cross        HTTP+SSE: the endpoint event names another origin
     absep        HTTP+SSE: the endpoint event is an absolute URL of this origin
     reset_after_read
                  a JSON-RPC request (POST /mcp) arriving on a connection that already served
                  one is read whole, counted as executed (exec_METHOD), then the connection is
                  reset (SO_LINGER 0, RST) without an answer: a reused keep-alive connection
                  that broke after the server took the request (a fresh connection is served)
     redir307     any request to /mcp: 307 Temporary Redirect, Location: /mcp/ (relative)
     redir308     the same with 308 Permanent Redirect
     html503      a JSON-RPC request: 503 Service Unavailable with an HTML page, its <title>
                  "Down for maintenance"
     html502      a JSON-RPC request: 502 Bad Gateway with an HTML page without a title, its
                  first text "The gateway got no answer upstream"
     cutchunk     a JSON-RPC request: a chunked SSE answer whose first chunk header promises
                  1024 bytes; the start of an event comes, then the connection closes
     ttl          tools/list results carry ttlMs 60000 and cacheScope public (2026-07-28:
                  instead of 0 and private; the 2025 era: as a server ahead of its version)

   Methods: initialize (echoes the client's version if it knows it; --version=V forces one),
   ping, tools/list (2 pages), tools/call, resources/list (2 pages), resources/templates/list,
   resources/read, resources/subscribe, resources/unsubscribe, prompts/list, prompts/get,
   completion/complete, logging/setLevel; anything else with an id: -32601.

   Tools (arguments in braces):
     echo {...}            text = the arguments as compact JSON
     add {a, b}            text = a+b (%g), structuredContent {"sum": a+b}
     fail                  isError: true, text "the tool failed"
     never                 never answered
     slow {ms, every}      answers "slept MS ms" after ms; with a progress token, streams
                           notifications/progress every `every` ms (progress K of ms/every,
                           message "step K")
     notify                streams notifications/message (info "hello"), tools, resources and
                           prompts list_changed, a progress for its token (if any), then answers
                           "notified"
     ask {method, params, notes}
                           sends that request to the client (id "aK") on the answer's stream
                           (HTTP+SSE: the session's stream) and answers with the client's reply
                           as text: {"result":..} or {"error":..}; notes: a notifications/message
                           "before" ahead of the request and "after" before the answer
     headers               text = this request's headers as a JSON object, lower-case names
     expire                answers "expired", then forgets the session (the next request: 404)
     hangup                never answered: closes the connection carrying the answer (HTTP+SSE:
                           the session's stream)
     bcast                 writes notifications/message "broadcast" on the session's listener
                           stream (GET /mcp); text "sent", or "no listener"
     big {bytes}           text of that many 'x'
     history               text = a JSON array of every notification the server received and
                           every reply to its requests ({"reply": msg})
     stats                 text = what /debug/stats says
   2026-07-28 (--era=modern, or a modern request to --era=dual) adds subscriptions/listen: the
   answer is an SSE stream that stays open, first notifications/subscriptions/acknowledged
   (_meta io.modelcontextprotocol/subscriptionId = the request's id; notifications = the filter's
   supported part: toolsListChanged, resourcesListChanged, resourceSubscriptions, never
   promptsListChanged), then what the tools below fire; closing it counts as a cancel. Tools
   (not in tools/list):
     fire {what, uri}      what: tools, resources, prompts (list_changed) or updated (resources/
                           updated for uri): written on every open listen stream whose filter
                           asked for it, tagged with that stream's id; text "sent N"
     end_listen            every open listen stream gets its result {"resultType":"complete",
                           "_meta":{subscriptionId}} and ends; text "ended N"
     drop_listen {refuse_next}
                           every open listen stream breaks: its connection closes, no result,
                           no last chunk; text "dropped N". refuse_next: the next that many
                           listen POSTs get the SSE head, then their connection closes (no
                           acknowledgment; /debug/reset forgets the count)
   An unknown tool gets the JSON-RPC error -32602 "Unknown tool: NAME". */
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
#include <sys/socket.h>
#include <sys/resource.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <arpa/inet.h>

/* ---- flags and options ------------------------------------------------------------------------ */

typedef uint64_t flags_t;              /* a set of flags: bit j is flag_names[j] */

enum {
    F_SSE = 1 << 0, F_CHUNKED = 1 << 1, F_UNTIL_CLOSE = 1 << 2, F_DRIP = 1 << 3, F_CUT = 1 << 4,
    F_BADCHUNK = 1 << 5, F_BIGHEAD = 1 << 6, F_MANYHEAD = 1 << 7, F_CTYPE = 1 << 8, F_AUTH = 1 << 9,
    F_NOGET = 1 << 10, F_NODELETE = 1 << 11, F_NOSESSION = 1 << 12, F_PRIME = 1 << 13,
    F_NOID = 1 << 14, F_DROP = 1 << 15, F_DROPNOID = 1 << 16, F_IDLE = 1 << 17, F_RACY = 1 << 18,
    F_HANG = 1 << 19, F_CROSS = 1 << 20, F_ABSEP = 1 << 21, F_PROBE404 = 1 << 22, F_PROBE405 = 1 << 23,
    F_PROBEJSON = 1 << 24, F_SSEONLY = 1 << 25, F_NODISCOVER = 1 << 26, F_V32022 = 1 << 27,
    F_PROBE200 = 1 << 28, F_HDRBAD = 1 << 29, F_LISTFAIL = 1 << 30
};
/* past an int's bits */
#define F_RESET     ((flags_t)1 << 31)
#define F_REDIR307  ((flags_t)1 << 32)
#define F_REDIR308  ((flags_t)1 << 33)
#define F_HTML503   ((flags_t)1 << 34)
#define F_HTML502   ((flags_t)1 << 35)
#define F_CUTCHUNK  ((flags_t)1 << 36)
#define F_TTL       ((flags_t)1 << 37)

static const char *const flag_names[] = { "sse", "chunked", "until_close", "drip", "cut", "badchunk",
    "bighead", "manyhead", "ctype", "auth", "noget", "nodelete", "nosession", "prime", "noid", "drop",
    "dropnoid", "idle", "racy", "hang", "cross", "absep", "probe404", "probe405", "probejson", "sseonly",
    "nodiscover", "v32022", "probe200", "hdrbad", "listfail", "reset_after_read", "redir307", "redir308",
    "html503", "html502", "cutchunk", "ttl", NULL };

static flags_t srv_flags;
static int retry_ms = 150, idle_ms = 30;
static const char *force_version;
static const char *other_url;          /* --other=URL: where /cross redirects */
static int port;
static int64_t t_start;
static volatile sig_atomic_t stop_now;
static int level = -1;
enum { ERA_LEGACY = 0, ERA_MODERN, ERA_DUAL };
static int era = ERA_LEGACY;           /* --era= */
static char supported[8][32];          /* --supported=: the modern versions served */
static int nsupported;
static int refuse_first;               /* --refuse-first=N: -32022 for the first N modern requests */
typedef struct flake { char key[32]; int seen; char ids[200]; } flake;   /* tool flaky's counts */
static flake flakes[16];
static int nflakes;

static flags_t parse_flags(const char *s, size_t n)
{
    flags_t f = 0;
    size_t i = 0, b, len;
    int j;
    while (s && i < n) {
        while (i < n && (s[i] == ',' || s[i] == ' ' || s[i] == '\t')) i++;
        b = i;
        while (i < n && s[i] != ',' && s[i] != ' ' && s[i] != '\t') i++;
        len = i - b;
        for (j = 0; len && flag_names[j]; j++)
            if (strlen(flag_names[j]) == len && !memcmp(flag_names[j], s + b, len)) f |= (flags_t)1 << j;
    }
    return f;
}

/* ---- small helpers ---------------------------------------------------------------------------- */

static void die(const char *what)
{
    fprintf(stderr, "http_server: %s: %s\n", what, strerror(errno));
    exit(3);
}

static char *xstrdup(const char *s)
{
    size_t n = strlen(s) + 1;
    char *d = (char *)malloc(n);
    if (!d) die("malloc");
    memcpy(d, s, n);
    return d;
}

static char *xstrndup(const char *s, size_t n)
{
    char *d = (char *)malloc(n + 1);
    if (!d) die("malloc");
    memcpy(d, s, n);
    d[n] = 0;
    return d;
}

static void buf_add(mcp_buf *b, const void *p, size_t n)
{
    if (n && mcp_buf_append(b, p, n) != MCP_OK) die("out of memory");
}

static void buf_str(mcp_buf *b, const char *s) { buf_add(b, s, strlen(s)); }

static void buf_fmt(mcp_buf *b, const char *fmt, ...)
{
    char tmp[2048];
    va_list ap;
    int n;
    va_start(ap, fmt);
    n = vsnprintf(tmp, sizeof tmp, fmt, ap);
    va_end(ap);
    if (n < 0 || (size_t)n >= sizeof tmp) { fprintf(stderr, "http_server: buf_fmt overflow\n"); exit(3); }
    buf_add(b, tmp, (size_t)n);
}

/* Compact JSON of a value; malloc'ed ("null" for NULL). */
static char *dump(const mcp_json *v)
{
    char *t = v ? mcp_json_dump(v, 0, NULL) : NULL, *d;
    if (!t) return xstrdup("null");
    d = xstrdup(t);
    mcp_free(t);
    return d;
}

/* A JSON string literal of s (quoted, escaped); malloc'ed. */
static char *jstr(const char *s, size_t n)
{
    mcp_jw w;
    char *t, *d;
    mcp_jw_init(&w, 0);
    mcp_jw_strn(&w, s, n);
    t = mcp_jw_finish(&w, NULL, NULL);
    d = xstrdup(t ? t : "\"\"");
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
    if (v && (t = mcp_jw_text(&w, n)) != NULL) return t;
    *n = 4;
    return "null";
}

/* Appends the JSON string literal of s (as jstr, through a reused writer). */
static void buf_jstr(mcp_buf *b, const char *s, size_t n)
{
    static mcp_jw w;
    const char *t;
    size_t tn;
    mcp_jw_reset(&w);
    mcp_jw_strn(&w, s, n);
    if ((t = mcp_jw_text(&w, &tn)) != NULL) buf_add(b, t, tn);
    else buf_add(b, "\"\"", 2);
}

/* Appends n in decimal (base 10) or hex (base 16), as %lu / %lx write it. */
static void buf_num(mcp_buf *b, unsigned long n, unsigned base)
{
    char t[24];
    size_t i = sizeof t;
    do { t[--i] = "0123456789abcdef"[n % base]; n /= base; } while (n);
    buf_add(b, t + i, sizeof t - i);
}

/* memmem, which POSIX lacks: memchr finds the candidates */
static const char *find(const char *h, size_t hn, const char *n, size_t nn)
{
    const char *p = h, *end;
    if (!nn || hn < nn) return NULL;
    end = h + hn;
    while ((size_t)(end - p) >= nn && (p = (const char *)memchr(p, n[0], (size_t)(end - p) - nn + 1)) != NULL) {
        if (!memcmp(p, n, nn)) return p;
        p++;
    }
    return NULL;
}

static int ieq(const char *a, const char *b)
{
    for (; *a && *b; a++, b++) {
        int x = *a >= 'A' && *a <= 'Z' ? *a + 32 : *a, y = *b >= 'A' && *b <= 'Z' ? *b + 32 : *b;
        if (x != y) return 0;
    }
    return *a == *b;
}

static int version_known(const char *v)
{
    static const char *const known[] = { "2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05", NULL };
    int i;
    for (i = 0; v && known[i]; i++) if (!strcmp(v, known[i])) return 1;
    return 0;
}

/* ---- the request log, counters, history ------------------------------------------------------- */

typedef struct rec {
    long n; int conn, status; int64_t t;
    char method[8], path[64], sid[48], ver[32], lei[48], auth[64], rpc[48], mode[64];
    char id[32], mmethod[48], mname[128], mparams[512];   /* JSON-RPC id; Mcp-* headers as sent */
} rec;

#define NLOG 512
static rec logv[NLOG];
static long nlog;                      /* records ever made (the ring keeps the last NLOG) */

static struct {
    long conns, open, max_open, requests, posts, gets, deletes, sse_gets, inits, racy, resumes, drops;
    long modern, discovers, rejects, cancels;
    long listens, listen_closed, listen_ended;   /* subscriptions/listen: opened, closed by the client, ended by us */
    long listen_dropped, listen_refused;         /* broken by drop_listen; dropped before the acknowledgment */
    long resets, redirects;                      /* reset after read (reset_after_read, arm_reset); 3xx answers */
} stats;

/* JSON-RPC requests executed (handed to their method, or read whole and then reset), per
   method: /debug/stats shows each as "exec_METHOD", '/' written '_' (exec_tools_call). */
static struct { char method[48]; long n; } execs[32];
static int nexecs;
static int reset_armed;                /* /debug/arm_reset: requests still to reset after read */

static void exec_count(const char *method)
{
    int i;
    if (!method) return;
    for (i = 0; i < nexecs; i++) if (!strcmp(execs[i].method, method)) { execs[i].n++; return; }
    if (nexecs == 32 || strlen(method) >= sizeof execs[0].method) return;
    memcpy(execs[nexecs].method, method, strlen(method) + 1);
    execs[nexecs++].n = 1;
}

static int refuse_listens;             /* drop_listen's refuse_next: listen POSTs still to drop unacknowledged */

static mcp_buf cancels;                /* ids of modern requests whose stream the client closed */

static mcp_buf history;                /* items of a JSON array, comma-separated */

static void history_add(const char *json)
{
    if (history.len) buf_add(&history, ",", 1);
    buf_str(&history, json);
}

static void copy_field(char *dst, size_t n, const char *src)   /* as snprintf "%s", truncating */
{
    size_t l = src ? strnlen(src, n - 1) : 0;
    if (l) memcpy(dst, src, l);
    dst[l] = 0;
}

static char *stats_json(void)
{
    mcp_buf b = {0};
    char *d, *p;
    int i;
    buf_fmt(&b, "{\"conns\":%ld,\"open\":%ld,\"max_open\":%ld,\"requests\":%ld,\"posts\":%ld,\"gets\":%ld,"
                "\"deletes\":%ld,\"sse_gets\":%ld,\"inits\":%ld,\"racy\":%ld,\"resumes\":%ld,\"drops\":%ld,"
                "\"modern\":%ld,\"discovers\":%ld,\"rejects\":%ld,\"cancels\":%ld,\"listens\":%ld,"
                "\"listen_closed\":%ld,\"listen_ended\":%ld,\"listen_dropped\":%ld,\"listen_refused\":%ld}",
            stats.conns, stats.open, stats.max_open, stats.requests, stats.posts, stats.gets, stats.deletes,
            stats.sse_gets, stats.inits, stats.racy, stats.resumes, stats.drops, stats.modern, stats.discovers,
            stats.rejects, stats.cancels, stats.listens, stats.listen_closed, stats.listen_ended,
            stats.listen_dropped, stats.listen_refused);
    b.len--;                                     /* the closing brace: more fields follow */
    buf_fmt(&b, ",\"resets\":%ld,\"redirects\":%ld", stats.resets, stats.redirects);
    for (i = 0; i < nexecs; i++) {
        buf_str(&b, ",\"exec_");
        for (p = execs[i].method; *p; p++) buf_add(&b, *p == '/' ? "_" : p, 1);
        buf_fmt(&b, "\":%ld", execs[i].n);
    }
    buf_str(&b, "}");
    d = xstrndup(b.data, b.len);
    mcp_buf_free(&b);
    return d;
}

static void jw_field(mcp_jw *w, const char *key, const char *v)
{
    mcp_jw_key(w, key);
    if (*v) mcp_jw_str(w, v); else mcp_jw_null(w);
}

static char *log_json(void)
{
    mcp_jw w;
    long i, first = nlog > NLOG ? nlog - NLOG : 0;
    char *t, *d;
    mcp_jw_init(&w, 0);
    mcp_jw_arr_begin(&w);
    for (i = first; i < nlog; i++) {
        const rec *r = &logv[i % NLOG];
        mcp_jw_obj_begin(&w);
        mcp_jw_key(&w, "n"); mcp_jw_int(&w, r->n);
        mcp_jw_key(&w, "t"); mcp_jw_int(&w, r->t);
        mcp_jw_key(&w, "conn"); mcp_jw_int(&w, r->conn);
        mcp_jw_key(&w, "status"); mcp_jw_int(&w, r->status);
        jw_field(&w, "method", r->method);
        jw_field(&w, "path", r->path);
        jw_field(&w, "sid", r->sid);
        jw_field(&w, "ver", r->ver);
        jw_field(&w, "lei", r->lei);
        jw_field(&w, "auth", r->auth);
        jw_field(&w, "rpc", r->rpc);
        jw_field(&w, "mode", r->mode);
        jw_field(&w, "id", r->id);
        jw_field(&w, "mmethod", r->mmethod);
        jw_field(&w, "mname", r->mname);
        jw_field(&w, "mparams", r->mparams);
        mcp_jw_obj_end(&w);
    }
    mcp_jw_arr_end(&w);
    t = mcp_jw_finish(&w, NULL, NULL);
    d = xstrdup(t ? t : "[]");
    mcp_free(t);
    return d;
}

/* ---- connections ---------------------------------------------------------------------------- */

typedef struct conn {
    int id, fd, dead, mcp, nreq, busy, close_after, drip, capture;
    flags_t flags;                     /* of its latest request */
    mcp_buf in, out;
    size_t off;                        /* bytes of out already sent */
    int64_t next_drip, idle_at;
    long logi;                         /* the log record of the request being answered, -1 none */
    int stream;                        /* the SSE stream it carries, 0 none */
    struct conn *next;
} conn;

static conn *conns;
static int nconns, next_conn_id = 1;
static int capture_armed;
static mcp_buf cap_req, cap_resp;
static int cap_done;

static conn *conn_get(int id)
{
    conn *k;
    for (k = conns; k; k = k->next) if (k->id == id && !k->dead) return k;
    return NULL;
}

static void out_add(conn *k, const void *p, size_t n)
{
    buf_add(&k->out, p, n);
    if (k->capture) buf_add(&cap_resp, p, n);
}

static void out_str(conn *k, const char *s) { out_add(k, s, strlen(s)); }

static void out_num(conn *k, unsigned long n, unsigned base)
{
    size_t at = k->out.len;
    buf_num(&k->out, n, base);
    if (k->capture) buf_add(&cap_resp, k->out.data + at, k->out.len - at);
}

static void out_fmt(conn *k, const char *fmt, ...)
{
    char tmp[2048];
    va_list ap;
    int n;
    va_start(ap, fmt);
    n = vsnprintf(tmp, sizeof tmp, fmt, ap);
    va_end(ap);
    if (n < 0 || (size_t)n >= sizeof tmp) { fprintf(stderr, "http_server: out_fmt overflow\n"); exit(3); }
    out_add(k, tmp, (size_t)n);
}

static void stream_detach(int sid);

static void conn_close(conn *k)
{
    if (k->dead) return;
    k->dead = 1;
    close(k->fd);
    k->fd = -1;
    if (k->mcp) stats.open--;
    if (k->stream) { int s = k->stream; k->stream = 0; stream_detach(s); }
}

/* Sends what is queued, as far as the socket takes it (drip: one byte per millisecond). */
static void conn_flush(conn *k)
{
    ssize_t r;
    size_t n;
    while (!k->dead && k->off < k->out.len) {
        n = k->out.len - k->off;
        if (k->drip) {
            if (mcp_time_ms() < k->next_drip) return;
            n = 1;
        }
        r = send(k->fd, k->out.data + k->off, n, MSG_NOSIGNAL);
        if (r < 0 && errno == EINTR) continue;
        if (r < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) return;
        if (r <= 0) { conn_close(k); return; }
        k->off += (size_t)r;
        if (k->drip) { k->next_drip = mcp_time_ms() + 1; if (k->off < k->out.len) return; }
    }
    if (k->dead) return;
    k->off = k->out.len = 0;
    if (!k->busy) k->drip = 0;
    if (k->close_after) conn_close(k);
}

/* The response to the connection's current request is complete (queued). */
static void done_response(conn *k)
{
    k->busy = 0;
    k->logi = -1;
    if (k->capture) { k->capture = 0; cap_done = 1; }
    if (k->flags & F_IDLE) k->idle_at = mcp_time_ms() + idle_ms;
}

static void log_status(conn *k, int status)
{
    if (k->logi >= 0 && k->logi < nlog && k->logi >= nlog - NLOG) logv[k->logi % NLOG].status = status;
}

/* Status line and headers. framing: 'L' Content-Length len, 'C' chunked, 'X' until close. */
static void head(conn *k, int status, const char *reason, const char *ctype, const char *extra,
                 char framing, size_t len, flags_t fl)
{
    int i;
    out_str(k, "HTTP/1.1 "); out_num(k, (unsigned long)status, 10); out_str(k, " ");
    out_str(k, reason); out_str(k, "\r\n");
    if (ctype) { out_str(k, "Content-Type: "); out_str(k, ctype); out_str(k, "\r\n"); }
    if (extra) out_str(k, extra);
    if (fl & F_BIGHEAD) {
        static char pad[1001];
        if (!pad[0]) memset(pad, 'p', 1000);
        for (i = 0; i < 70; i++) out_fmt(k, "X-Pad-%d: %s\r\n", i, pad);
    }
    if (fl & F_MANYHEAD) for (i = 0; i < 150; i++) out_fmt(k, "X-Many-%d: v\r\n", i);
    if (framing == 'L') { out_str(k, "Content-Length: "); out_num(k, (unsigned long)len, 10); out_str(k, "\r\n"); }
    else if (framing == 'C') out_str(k, "Transfer-Encoding: chunked\r\n");
    else { out_str(k, "Connection: close\r\n"); k->close_after = 1; }
    out_str(k, "\r\n");
    log_status(k, status);
    if (fl & F_DRIP) { k->drip = 1; k->next_drip = 0; }
}

static void chunk(conn *k, const char *p, size_t n, int ext)
{
    static int piece;
    if (!n) return;
    if (ext) out_fmt(k, "%lx;piece=%d;note=\"a b\"\r\n", (unsigned long)n, ++piece);
    else { out_num(k, (unsigned long)n, 16); out_str(k, "\r\n"); }
    out_add(k, p, n);
    out_str(k, "\r\n");
}

static void chunk_end(conn *k, int ext)
{
    out_str(k, ext ? "0;last=yes\r\nX-Trailer: done\r\nX-Checksum: 1234\r\n\r\n" : "0\r\n\r\n");
}

/* A whole response with a body, framed as the flags say. */
static void respond(conn *k, int status, const char *reason, const char *ctype, const char *extra,
                    const char *body, size_t n, flags_t fl)
{
    size_t i, m;
    if ((fl & F_CTYPE) && ctype) ctype = "text/plain";
    if (fl & F_BADCHUNK) {
        head(k, status, reason, ctype, extra, 'C', 0, fl);
        out_str(k, "zz\r\n");
        out_add(k, body, n);
        k->close_after = 1;
    } else if (fl & F_CUT) {
        head(k, status, reason, ctype, extra, 'L', n, fl);
        out_add(k, body, n / 2);
        k->close_after = 1;
    } else if (fl & F_CHUNKED) {
        head(k, status, reason, ctype, extra, 'C', 0, fl);
        for (i = 0; i < n; i += m) {
            m = i == 0 ? 1 : n - i < 61 ? n - i : 61;
            chunk(k, body + i, m, 1);
        }
        chunk_end(k, 1);
    } else if (fl & F_UNTIL_CLOSE) {
        head(k, status, reason, ctype, extra, 'X', 0, fl);
        out_add(k, body, n);
    } else {
        head(k, status, reason, ctype, extra, 'L', n, fl);
        out_add(k, body, n);
    }
}

static void respond_text(conn *k, int status, const char *reason, const char *extra, const char *text)
{
    respond(k, status, reason, "text/plain", extra, text, strlen(text), 0);
    done_response(k);
}

/* ---- sessions and streams ---------------------------------------------------------------------- */

typedef struct sess {
    int num, legacy, inited, listener, stream;   /* listener: GET /mcp stream; stream: HTTP+SSE's */
    char sid[48], version[32];
    struct sess *next;
} sess;

static sess *sessions;
static sess nosession;                 /* the nosession flag: one shared, sessionless state */
static int next_sess = 1;

enum { S_POST = 1, S_LISTEN, S_LEGACY };

typedef struct stream {
    int id, kind, conn, ids, resumable, done, nev, json;
    int modern;                        /* 2026-07-28: no event ids, results carry resultType */
    char *rid;                         /* modern: the request's id (JSON text) */
    char *filter;                      /* subscriptions/listen: the accepted filter (JSON text); NULL else */
    sess *s;
    flags_t flags;
    char *extra;                       /* headers for a JSON answer (Mcp-Session-Id) */
    mcp_buf kept;                      /* every event as sent, for replay: texts, NUL-separated */
    size_t *kept_at; int nkept, capkept;
    struct stream *next;
} stream;

static stream *streams;
static int next_stream = 1;

static sess *sess_find(const char *sid)
{
    sess *s;
    for (s = sessions; sid && s; s = s->next) if (!strcmp(s->sid, sid)) return s;
    return NULL;
}

static sess *sess_new(int legacy)
{
    sess *s = (sess *)calloc(1, sizeof *s);
    if (!s) die("calloc");
    s->num = next_sess++;
    s->legacy = legacy;
    snprintf(s->sid, sizeof s->sid, "%s-%d-%lx%04x", legacy ? "sse" : "mcp", s->num,
             (unsigned long)getpid(), (unsigned)(mcp_time_ms() & 0xFFFF));
    s->next = sessions; sessions = s;
    return s;
}

static stream *stream_get(int id)
{
    stream *st;
    for (st = streams; id && st; st = st->next) if (st->id == id) return st;
    return NULL;
}

static void stream_free(stream *st)
{
    stream **pp;
    conn *k;
    for (pp = &streams; *pp; pp = &(*pp)->next) if (*pp == st) { *pp = st->next; break; }
    if (st->conn && (k = conn_get(st->conn)) != NULL && k->stream == st->id) k->stream = 0;
    if (st->s && st->s->listener == st->id) st->s->listener = 0;
    if (st->s && st->s->stream == st->id) st->s->stream = 0;
    free(st->extra);
    free(st->rid);
    free(st->filter);
    mcp_buf_free(&st->kept);
    free(st->kept_at);
    free(st);
}

static void sess_forget(sess *s)
{
    sess **pp;
    stream *st, *next;
    conn *k;
    if (s == &nosession) return;
    for (pp = &sessions; *pp; pp = &(*pp)->next) if (*pp == s) { *pp = s->next; break; }
    for (st = streams; st; st = next) {            /* its listener and HTTP+SSE streams end */
        next = st->next;
        if (st->s != s) continue;
        st->s = NULL;
        if (st->kind != S_POST) {
            k = conn_get(st->conn);
            stream_free(st);
            if (k) conn_close(k);
        }
    }
    free(s);
}

static stream *stream_new(int kind, sess *s, conn *k, flags_t fl)
{
    stream *st = (stream *)calloc(1, sizeof *st);
    if (!st) die("calloc");
    st->id = next_stream++;
    st->kind = kind; st->s = s; st->flags = fl;
    st->ids = kind == S_LEGACY ? 0 : !(fl & F_NOID) || (fl & F_DROP);
    st->resumable = st->ids;
    if (k) { st->conn = k->id; k->stream = st->id; }
    st->next = streams; streams = st;
    return st;
}

static void items_drop(int sid);

/* The connection carrying a stream is gone. */
static void stream_detach(int sid)
{
    stream *st = stream_get(sid);
    if (!st) return;
    st->conn = 0;
    if (st->modern && st->kind == S_POST && !st->done) {   /* 2026-07-28: the client cancelled */
        stats.cancels++;
        if (st->filter) stats.listen_closed++;
        if (cancels.len) buf_add(&cancels, ",", 1);
        buf_str(&cancels, st->rid ? st->rid : "null");
        items_drop(sid);
        stream_free(st);
        return;
    }
    if (st->kind == S_LEGACY) {                   /* HTTP+SSE: the session ends with its stream */
        sess *s = st->s;
        stream_free(st);
        if (s) sess_forget(s);
    } else if (st->kind == S_LISTEN || !st->resumable || st->json) {
        stream_free(st);
    }
}

static void sse_head(conn *k, const stream *st, const char *extra)
{
    static mcp_buf h;                            /* reused */
    int ca;
    h.len = 0;
    buf_str(&h, "Cache-Control: no-cache\r\n");
    if (extra) buf_str(&h, extra);
    buf_add(&h, "", 1);
    ca = k->close_after;
    head(k, 200, "OK", "text/event-stream", h.data, (st->flags & F_UNTIL_CLOSE) ? 'X' : 'C', 0, st->flags);
    k->close_after = ca;                         /* until close: only when the stream ends */
}

static void sse_write(conn *k, const stream *st, const char *text, size_t n)
{
    if (st->flags & F_UNTIL_CLOSE) out_add(k, text, n);
    else chunk(k, text, n, (st->flags & F_CHUNKED) != 0);
}

/* Ends a stream on its connection: the last chunk, or the close. */
static void sse_end(conn *k, const stream *st)
{
    if (st->flags & F_UNTIL_CLOSE) k->close_after = 1;
    else chunk_end(k, (st->flags & F_CHUNKED) != 0);
    k->stream = 0;
    done_response(k);
}

static void keep_event(stream *st, const char *ev, size_t n)
{
    if (st->nkept == st->capkept) {
        st->capkept = st->capkept ? st->capkept * 2 : 8;
        st->kept_at = (size_t *)realloc(st->kept_at, (size_t)st->capkept * sizeof *st->kept_at);
        if (!st->kept_at) die("realloc");
    }
    st->kept_at[st->nkept++] = st->kept.len;
    buf_add(&st->kept, ev, n);
    buf_add(&st->kept, "", 1);
}

/* An event on a stream: id "S-N" (unless noid), then data. last: the stream is freed right
   after it has been sent on its connection, so nobody can ask for it again: not kept. */
static void stream_event(stream *st, const char *fields, const char *data, size_t n, int last)
{
    static mcp_buf e;                            /* reused */
    conn *k = conn_get(st->conn);
    e.len = 0;
    st->nev++;
    if (st->ids) {
        buf_str(&e, "id: "); buf_num(&e, (unsigned long)st->id, 10);
        buf_str(&e, "-"); buf_num(&e, (unsigned long)st->nev, 10); buf_str(&e, "\n");
    }
    if (fields) buf_str(&e, fields);
    if (data) { buf_str(&e, "data: "); buf_add(&e, data, n); buf_str(&e, "\n"); }
    else buf_str(&e, "data:\n");
    buf_str(&e, "\n");
    if (st->resumable && !(last && k)) keep_event(st, e.data, e.len);
    if (k) sse_write(k, st, e.data, e.len);
}

static void stream_send(int sid, const char *msg, size_t n, int final);

/* A message for the client on stream sid; final: the answer to the stream's request. */
static void stream_send(int sid, const char *msg, size_t n, int final)
{
    stream *st = stream_get(sid);
    conn *k;
    if (!st) return;
    if (st->json) {
        if (!final) {                            /* a JSON answer has no room for it */
            if (st->s && st->s->listener) stream_send(st->s->listener, msg, n, 0);
            return;
        }
        if ((k = conn_get(st->conn)) != NULL) {
            k->stream = 0;
            respond(k, 200, "OK", "application/json", st->extra, msg, n, st->flags);
            done_response(k);
        }
        stream_free(st);
        return;
    }
    stream_event(st, st->kind == S_LEGACY ? "event: message\n" : NULL, msg, n, final && st->kind == S_POST);
    if (final && st->kind == S_POST) {
        st->done = 1;
        if ((k = conn_get(st->conn)) != NULL) { sse_end(k, st); stream_free(st); }
        else if (!st->resumable) stream_free(st);
    }
}

/* ---- JSON-RPC messages ------------------------------------------------------------------------ */

typedef struct ctx {
    conn *k;
    sess *s;
    int stream;                        /* where messages for this request go */
    const char *id;                    /* the request's id as JSON text */
    flags_t flags;
    int nh; char **hn, **hv;           /* the request's headers */
    const mcp_json *meta;              /* 2026-07-28: params._meta (NULL: a legacy request) */
} ctx;

/* The answer to a request. On a 2026-07-28 stream the result gets "resultType":"complete"
   unless it has a resultType (or raw is set: a result as an older server writes it). */
static void send_result_xn(int sid, const char *id, const char *result, size_t n, int raw)
{
    static mcp_buf b;                            /* reused */
    const stream *st = stream_get(sid);
    b.len = 0;
    buf_str(&b, "{\"jsonrpc\":\"2.0\",\"id\":");
    buf_str(&b, id);
    buf_str(&b, ",\"result\":");
    if (!raw && st && st->modern && n && result[0] == '{' && (n < 13 || memcmp(result, "{\"resultType\"", 13))) {
        buf_str(&b, "{\"resultType\":\"complete\"");
        if (n < 2 || result[1] != '}') buf_str(&b, ",");
        buf_add(&b, result + 1, n - 1);
    } else {
        buf_add(&b, result, n);
    }
    buf_str(&b, "}");
    stream_send(sid, b.data, b.len, 1);
}

static void send_result_x(int sid, const char *id, const char *result, int raw)
{
    send_result_xn(sid, id, result, strlen(result), raw);
}

static void send_result(int sid, const char *id, const char *result) { send_result_x(sid, id, result, 0); }

static void send_error(int sid, const char *id, long code, const char *message)
{
    mcp_buf b = {0};
    char *m = jstr(message, strlen(message));
    buf_fmt(&b, "{\"jsonrpc\":\"2.0\",\"id\":%s,\"error\":{\"code\":%ld,\"message\":%s}}", id, code, m);
    free(m);
    stream_send(sid, b.data, b.len, 1);
    mcp_buf_free(&b);
}

static void send_note(int sid, const char *json) { stream_send(sid, json, strlen(json), 0); }

static void note_log(int sid, const char *lvl, const char *data)
{
    mcp_buf b = {0};
    char *d = jstr(data, strlen(data));
    buf_fmt(&b, "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/message\",\"params\":{\"level\":\"%s\","
                "\"logger\":\"http_server\",\"data\":%s}}", lvl, d);
    free(d);
    stream_send(sid, b.data, b.len, 0);
    mcp_buf_free(&b);
}

static void note_progress(int sid, const char *token, int k, int total, const char *msg)
{
    mcp_buf b = {0};
    buf_fmt(&b, "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/progress\",\"params\":{\"progressToken\":%s,"
                "\"progress\":%d", token, k);
    if (total > 0) buf_fmt(&b, ",\"total\":%d", total);
    if (msg) buf_fmt(&b, ",\"message\":\"%s\"", msg);
    buf_str(&b, "}}");
    stream_send(sid, b.data, b.len, 0);
    mcp_buf_free(&b);
}

/* {"content":[{"type":"text","text":TEXT}] [,"isError":true] [,"structuredContent":SC]}, appended */
static void buf_tool_text(mcp_buf *b, const char *text, size_t n, int is_error, const char *structured)
{
    buf_str(b, "{\"content\":[{\"type\":\"text\",\"text\":");
    buf_jstr(b, text, n);
    buf_str(b, "}]");
    if (is_error) buf_str(b, ",\"isError\":true");
    if (structured) { buf_str(b, ",\"structuredContent\":"); buf_str(b, structured); }
    buf_str(b, "}");
}

/* The same, malloc'ed. */
static char *tool_text(const char *text, size_t n, int is_error, const char *structured)
{
    mcp_buf b = {0};
    char *d;
    buf_tool_text(&b, text, n, is_error, structured);
    d = xstrndup(b.data, b.len);
    mcp_buf_free(&b);
    return d;
}

/* Answers with a tool result, built in a reused buffer. */
static void answer_tool(const ctx *x, const char *text, size_t n, int is_error, const char *structured)
{
    static mcp_buf r;
    r.len = 0;
    buf_tool_text(&r, text, n, is_error, structured);
    send_result_xn(x->stream, x->id, r.data, r.len, 0);
}

static void answer_text(const ctx *x, const char *text) { answer_tool(x, text, strlen(text), 0, NULL); }

/* ---- pending answers -------------------------------------------------------------------------- */

enum { IT_SLOW = 1, IT_ASK };
typedef struct item {
    int kind, stream, every, step, steps, ms, notes;
    char *id, *token, *ask;
    int64_t start, due;
    struct item *next;
} item;
static item *items;
static int ask_seq;

static item *item_new(int kind, const ctx *x)
{
    item *it = (item *)calloc(1, sizeof *it);
    if (!it) die("calloc");
    it->kind = kind; it->stream = x->stream; it->id = xstrdup(x->id); it->due = -1;
    it->next = items; items = it;
    return it;
}

static void item_free(item *it)
{
    item **pp;
    for (pp = &items; *pp; pp = &(*pp)->next) if (*pp == it) { *pp = it->next; break; }
    free(it->id); free(it->token); free(it->ask); free(it);
}

/* A cancelled request's work stops. */
static void items_drop(int sid)
{
    item *it, *next;
    for (it = items; it; it = next) { next = it->next; if (it->stream == sid) item_free(it); }
}

/* ---- methods ---------------------------------------------------------------------------------- */

static const char *const tool_names[] = { "echo", "add", "fail", "never", "slow", "notify", "ask",
    "headers", "expire", "hangup", "bcast", "big", "history", "stats", NULL };

static void answer_initialize(const ctx *x, const mcp_json *params)
{
    const char *v = mcp_json_str(mcp_json_get(params, "protocolVersion"));
    char picked[32];
    mcp_buf b = {0};
    snprintf(picked, sizeof picked, "%s", force_version ? force_version : version_known(v) ? v : "2025-11-25");
    if (x->s) { snprintf(x->s->version, sizeof x->s->version, "%s", picked); x->s->inited = 1; }
    stats.inits++;
    buf_fmt(&b, "{\"protocolVersion\":\"%s\",\"capabilities\":{\"tools\":{\"listChanged\":true},"
                "\"resources\":{\"subscribe\":true,\"listChanged\":true},\"prompts\":{\"listChanged\":true},"
                "\"logging\":{},\"completions\":{}},\"serverInfo\":{\"name\":\"http_server\",\"title\":"
                "\"mcp.h HTTP test server\",\"version\":\"2.0.0\"},\"instructions\":\"Streamable HTTP and "
                "HTTP+SSE, with misbehaviours on demand.\"}", picked);
    buf_add(&b, "", 1);
    send_result(x->stream, x->id, b.data);
    mcp_buf_free(&b);
}

static void list_tools(const ctx *x, const mcp_json *params)
{
    const char *cursor = mcp_json_str(mcp_json_get(params, "cursor"));
    int first, last, i, n = 0;
    mcp_buf b = {0};
    while (tool_names[n]) n++;
    if (cursor && strcmp(cursor, "page2")) { send_error(x->stream, x->id, -32602, "Invalid cursor"); return; }
    first = cursor ? n / 2 : 0;
    last = cursor ? n : n / 2;
    buf_str(&b, "{\"tools\":[");
    for (i = first; i < last; i++)
        buf_fmt(&b, "%s{\"name\":\"%s\",\"description\":\"A test tool.\",\"inputSchema\":{\"type\":\"object\"}}",
                i > first ? "," : "", tool_names[i]);
    buf_str(&b, "]");
    if (!cursor) buf_str(&b, ",\"nextCursor\":\"page2\"");
    buf_str(&b, (x->flags & F_TTL) ? ",\"ttlMs\":60000,\"cacheScope\":\"public\"}" : "}");
    buf_add(&b, "", 1);
    send_result(x->stream, x->id, b.data);
    mcp_buf_free(&b);
}

static void read_resource(const ctx *x, const mcp_json *params)
{
    const char *uri = mcp_json_str(mcp_json_get(params, "uri"));
    char text[512], *u, *t;
    mcp_buf b = {0};
    if (!uri || (strcmp(uri, "file:///a.txt") && strcmp(uri, "file:///b.txt") && strcmp(uri, "mem://counter") &&
                 strncmp(uri, "file:///tmpl/", 13))) {
        send_error(x->stream, x->id, -32002, "Resource not found");
        return;
    }
    snprintf(text, sizeof text, "content of %.400s", uri);
    u = jstr(uri, strlen(uri)); t = jstr(text, strlen(text));
    buf_fmt(&b, "{\"contents\":[{\"uri\":%s,\"mimeType\":\"text/plain\",\"text\":%s}]}", u, t);
    buf_add(&b, "", 1);
    send_result(x->stream, x->id, b.data);
    free(u); free(t);
    mcp_buf_free(&b);
}

static void get_prompt(const ctx *x, const mcp_json *params)
{
    const char *name = mcp_json_str(mcp_json_get(params, "name"));
    const char *who = mcp_json_str(mcp_json_get(mcp_json_get(params, "arguments"), "name"));
    char text[300], *t;
    mcp_buf b = {0};
    if (!name || strcmp(name, "greet")) { send_error(x->stream, x->id, -32602, "Unknown prompt"); return; }
    if (!who) { send_error(x->stream, x->id, -32602, "Missing required argument: name"); return; }
    snprintf(text, sizeof text, "Hello, %.200s!", who);
    t = jstr(text, strlen(text));
    buf_fmt(&b, "{\"description\":\"A greeting\",\"messages\":[{\"role\":\"user\",\"content\":{\"type\":\"text\","
                "\"text\":%s}}]}", t);
    buf_add(&b, "", 1);
    send_result(x->stream, x->id, b.data);
    free(t);
    mcp_buf_free(&b);
}

static void complete(const ctx *x, const mcp_json *params)
{
    static const char *const names[] = { "alice", "albert", "bob", NULL };
    const char *value = mcp_json_str(mcp_json_get(mcp_json_get(params, "argument"), "value"));
    mcp_buf b = {0};
    int i, n = 0;
    if (!mcp_json_str(mcp_json_get(mcp_json_get(params, "ref"), "type")) || !value) {
        send_error(x->stream, x->id, -32602, "Invalid completion request");
        return;
    }
    buf_str(&b, "{\"completion\":{\"values\":[");
    for (i = 0; names[i]; i++)
        if (!strncmp(names[i], value, strlen(value))) buf_fmt(&b, "%s\"%s\"", n++ ? "," : "", names[i]);
    buf_fmt(&b, "],\"total\":%d,\"hasMore\":false}}", n);
    buf_add(&b, "", 1);
    send_result(x->stream, x->id, b.data);
    mcp_buf_free(&b);
}

static void set_level(const ctx *x, const mcp_json *params)
{
    static const char *const levels[] = { "debug", "info", "notice", "warning", "error", "critical",
                                          "alert", "emergency", NULL };
    const char *l = mcp_json_str(mcp_json_get(params, "level"));
    int i;
    for (i = 0; l && levels[i]; i++)
        if (!strcmp(l, levels[i])) { level = i; send_result(x->stream, x->id, "{}"); return; }
    send_error(x->stream, x->id, -32602, "Invalid log level");
}

static void tool_call(ctx *x, const mcp_json *params)
{
    const char *name = mcp_json_str(mcp_json_get(params, "name"));
    const mcp_json *args = mcp_json_get(params, "arguments");
    const mcp_json *tok = mcp_json_get(mcp_json_get(params, "_meta"), "progressToken");
    char *t, msg[300];
    if (!name) { send_error(x->stream, x->id, -32602, "tools/call needs a name"); return; }
    if (!strcmp(name, "echo")) {
        size_t n = 2;
        const char *a = args ? dump_tmp(args, &n) : "{}";
        answer_tool(x, a, n, 0, NULL);
    } else if (!strcmp(name, "add")) {
        double a = mcp_json_num(mcp_json_get(args, "a")), b = mcp_json_num(mcp_json_get(args, "b"));
        char text[64], sc[96];
        snprintf(text, sizeof text, "%g", a + b);
        snprintf(sc, sizeof sc, "{\"sum\":%s}", text);
        answer_tool(x, text, strlen(text), 0, sc);
    } else if (!strcmp(name, "fail")) {
        answer_tool(x, "the tool failed", 15, 1, NULL);
    } else if (!strcmp(name, "never")) {
        /* the stream stays open; the answer never comes */
    } else if (!strcmp(name, "slow")) {
        item *it = item_new(IT_SLOW, x);
        const mcp_json *every = mcp_json_get(args, "every");
        it->ms = (int)mcp_json_num(mcp_json_get(args, "ms"));
        it->every = every ? (int)mcp_json_num(every) : 0;
        it->start = mcp_time_ms();
        if (tok) it->token = dump(tok);
        if (it->token && it->every > 0) { it->steps = it->ms / it->every; it->due = it->start + it->every; }
        else it->due = it->start + it->ms;
    } else if (!strcmp(name, "notify")) {
        note_log(x->stream, "info", "hello");
        send_note(x->stream, "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/tools/list_changed\"}");
        send_note(x->stream, "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/resources/list_changed\"}");
        send_note(x->stream, "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/prompts/list_changed\",\"params\":{}}");
        if (tok) { t = dump(tok); note_progress(x->stream, t, 1, 2, "half"); free(t); }
        answer_text(x, "notified");
    } else if (!strcmp(name, "ask")) {
        const char *m = mcp_json_str(mcp_json_get(args, "method"));
        const mcp_json *p = mcp_json_get(args, "params");
        item *it;
        mcp_buf b = {0};
        if (!m) { send_error(x->stream, x->id, -32602, "ask needs a method"); return; }
        it = item_new(IT_ASK, x);
        it->notes = mcp_json_is_true(mcp_json_get(args, "notes"));
        snprintf(msg, sizeof msg, "\"a%d\"", ++ask_seq);
        it->ask = xstrdup(msg);
        if (it->notes) note_log(x->stream, "info", "before");
        t = jstr(m, strlen(m));
        buf_fmt(&b, "{\"jsonrpc\":\"2.0\",\"id\":%s,\"method\":%s", it->ask, t);
        free(t);
        if (p) { t = dump(p); buf_str(&b, ",\"params\":"); buf_str(&b, t); free(t); }
        buf_str(&b, "}");
        stream_send(x->stream, b.data, b.len, 0);
        mcp_buf_free(&b);
    } else if (!strcmp(name, "headers")) {
        mcp_jw w;
        int i;
        mcp_jw_init(&w, 0);
        mcp_jw_obj_begin(&w);
        for (i = 0; i < x->nh; i++) { mcp_jw_key(&w, x->hn[i]); mcp_jw_str(&w, x->hv[i]); }
        mcp_jw_obj_end(&w);
        t = mcp_jw_finish(&w, NULL, NULL);
        answer_text(x, t ? t : "{}");
        mcp_free(t);
    } else if (!strcmp(name, "expire")) {
        answer_text(x, "expired");
        if (x->s) sess_forget(x->s);
    } else if (!strcmp(name, "hangup")) {
        conn *k = x->s && x->s->legacy ? conn_get(stream_get(x->s->stream) ? stream_get(x->s->stream)->conn : 0)
                                       : x->k;
        if (k) conn_close(k);
    } else if (!strcmp(name, "bcast")) {
        if (x->s && x->s->listener) {
            note_log(x->s->listener, "info", "broadcast");
            answer_text(x, "sent");
        } else answer_text(x, "no listener");
    } else if (!strcmp(name, "big")) {
        size_t n = (size_t)mcp_json_num(mcp_json_get(args, "bytes"));
        char *big = (char *)malloc(n + 1);
        if (!big) die("malloc");
        memset(big, 'x', n);
        big[n] = 0;
        answer_text(x, big);
        free(big);
    } else if (!strcmp(name, "history")) {
        mcp_buf b = {0};
        buf_str(&b, "[");
        buf_add(&b, history.data, history.len);
        buf_str(&b, "]");
        buf_add(&b, "", 1);
        answer_text(x, b.data);
        mcp_buf_free(&b);
    } else if (!strcmp(name, "stats")) {
        t = stats_json();
        answer_text(x, t);
        free(t);
    } else {
        snprintf(msg, sizeof msg, "Unknown tool: %.200s", name);
        send_error(x->stream, x->id, -32602, msg);
    }
}

static void handle_request(ctx *x, const char *method, const mcp_json *params)
{
    if (!strcmp(method, "initialize")) answer_initialize(x, params);
    else if (!strcmp(method, "ping")) send_result(x->stream, x->id, "{}");
    else if (!strcmp(method, "tools/list")) list_tools(x, params);
    else if (!strcmp(method, "tools/call")) tool_call(x, params);
    else if (!strcmp(method, "resources/list")) {
        const char *cursor = mcp_json_str(mcp_json_get(params, "cursor"));
        if (!cursor)
            send_result(x->stream, x->id, "{\"resources\":[{\"uri\":\"file:///a.txt\",\"name\":\"a.txt\",\"mimeType\":"
                        "\"text/plain\"},{\"uri\":\"file:///b.txt\",\"name\":\"b.txt\",\"mimeType\":\"text/plain\"}],"
                        "\"nextCursor\":\"r2\"}");
        else if (!strcmp(cursor, "r2"))
            send_result(x->stream, x->id, "{\"resources\":[{\"uri\":\"mem://counter\",\"name\":\"counter\"}]}");
        else send_error(x->stream, x->id, -32602, "Invalid cursor");
    } else if (!strcmp(method, "resources/templates/list")) {
        send_result(x->stream, x->id, "{\"resourceTemplates\":[{\"uriTemplate\":\"file:///tmpl/{path}\",\"name\":\"tmpl\"}]}");
    } else if (!strcmp(method, "resources/read")) read_resource(x, params);
    else if (!strcmp(method, "resources/subscribe") || !strcmp(method, "resources/unsubscribe")) {
        if (!mcp_json_str(mcp_json_get(params, "uri"))) send_error(x->stream, x->id, -32602, "uri is required");
        else send_result(x->stream, x->id, "{}");
    } else if (!strcmp(method, "prompts/list")) {
        send_result(x->stream, x->id, "{\"prompts\":[{\"name\":\"greet\",\"arguments\":[{\"name\":\"name\",\"required\":true}]},"
                    "{\"name\":\"summarize\"}]}");
    } else if (!strcmp(method, "prompts/get")) get_prompt(x, params);
    else if (!strcmp(method, "completion/complete")) complete(x, params);
    else if (!strcmp(method, "logging/setLevel")) set_level(x, params);
    else send_error(x->stream, x->id, -32601, "Method not found");
}

/* A response from the client to one of our requests (ask). */
static void handle_reply(const mcp_json *m, const char *text)
{
    item *it;
    char *id = dump(mcp_json_get(m, "id")), *r, *t;
    mcp_buf b = {0};
    buf_str(&b, "{\"reply\":");
    buf_str(&b, text);
    buf_str(&b, "}");
    buf_add(&b, "", 1);
    history_add(b.data);
    mcp_buf_free(&b);
    for (it = items; it; it = it->next)
        if (it->kind == IT_ASK && !strcmp(it->ask, id)) break;
    free(id);
    if (!it) return;
    if (mcp_json_get(m, "result")) { t = dump(mcp_json_get(m, "result")); buf_str(&b, "{\"result\":"); }
    else { t = dump(mcp_json_get(m, "error")); buf_str(&b, "{\"error\":"); }
    buf_str(&b, t);
    buf_str(&b, "}");
    free(t);
    if (it->notes) note_log(it->stream, "info", "after");
    r = tool_text(b.data, b.len, 0, NULL);
    send_result(it->stream, it->id, r);
    free(r);
    mcp_buf_free(&b);
    item_free(it);
}

/* The timers of slow calls: progress steps (all of them, even when running late), then the answer. */
static void run_items(int64_t now)
{
    item *it, *next;
    char text[64], m[32], *r;
    for (it = items; it; it = next) {
        next = it->next;
        if (it->kind != IT_SLOW || it->due < 0 || it->due > now) continue;
        if (it->token && it->step < it->steps) {
            it->step++;
            snprintf(m, sizeof m, "step %d", it->step);
            note_progress(it->stream, it->token, it->step, it->steps, m);
            it->due = it->step < it->steps ? it->start + (int64_t)(it->step + 1) * it->every : it->start + it->ms;
            next = it;                               /* again, in case it is due already */
            continue;
        }
        snprintf(text, sizeof text, "slept %d ms", it->ms);
        r = tool_text(text, strlen(text), 0, NULL);
        send_result(it->stream, it->id, r);
        free(r);
        item_free(it);
        next = items;                                /* the list may have changed */
    }
}

/* ---- HTTP requests ---------------------------------------------------------------------------- */

#define MAXH 64
typedef struct req {
    char *head;                        /* a copy of the head, NULs put in */
    char *method, *target, *path, *query;
    int nh; char *hn[MAXH], *hv[MAXH];
    int close;                         /* Connection: close, or HTTP/1.0 */
    const char *body; size_t blen, total;
} req;

static const char *hdr(const req *rq, const char *name)
{
    int i;
    for (i = 0; i < rq->nh; i++) if (!strcmp(rq->hn[i], name)) return rq->hv[i];
    return NULL;
}

/* 1: a whole request (rq filled), 0: need more bytes, else the HTTP status to refuse it with. */
static int parse_req(conn *k, req *rq)
{
    char *e, *p, *line, *colon, *v, *end;
    size_t hl;
    long cl = 0;
    const char *s;
    memset(rq, 0, sizeof *rq);
    e = (char *)find(k->in.data, k->in.len, "\r\n\r\n", 4);
    if (!e) return k->in.len > 65536 ? 431 : 0;
    hl = (size_t)(e - k->in.data) + 4;
    if (hl > 65536) return 431;
    rq->head = xstrndup(k->in.data, hl - 2);
    p = rq->head;
    line = p; p = strstr(p, "\r\n"); *p = 0; p += 2;
    rq->method = line;
    if (!(v = strchr(line, ' '))) return 400;
    *v++ = 0;
    rq->target = v;
    if (!(v = strchr(v, ' '))) return 400;
    *v++ = 0;
    if (strcmp(v, "HTTP/1.1")) { if (!strcmp(v, "HTTP/1.0")) rq->close = 1; else return 505; }
    while (*p) {
        line = p;
        if (!(end = strstr(p, "\r\n"))) break;
        *end = 0; p = end + 2;
        if (!(colon = strchr(line, ':'))) return 400;
        *colon = 0;
        for (v = line; *v; v++) if (*v >= 'A' && *v <= 'Z') *v = (char)(*v + 32);
        v = colon + 1;
        while (*v == ' ' || *v == '\t') v++;
        end = v + strlen(v);
        while (end > v && (end[-1] == ' ' || end[-1] == '\t')) *--end = 0;
        if (rq->nh < MAXH) { rq->hn[rq->nh] = line; rq->hv[rq->nh] = v; rq->nh++; }
    }
    if (hdr(rq, "transfer-encoding")) return 501;
    if ((s = hdr(rq, "content-length")) != NULL) {
        char *q;
        cl = strtol(s, &q, 10);
        if (*q || cl < 0 || cl > (64L << 20)) return 400;
    }
    if ((s = hdr(rq, "connection")) != NULL && ieq(s, "close")) rq->close = 1;
    if (k->in.len < hl + (size_t)cl) return 0;
    rq->body = k->in.data + hl;
    rq->blen = (size_t)cl;
    rq->total = hl + (size_t)cl;
    rq->path = rq->target;
    if ((v = strchr(rq->target, '?')) != NULL) { rq->query = v + 1; }
    return 1;
}

static void refuse(conn *k, int status)
{
    const char *reason = status == 431 ? "Request Header Fields Too Large" : status == 501 ? "Not Implemented" :
                         status == 505 ? "HTTP Version Not Supported" : "Bad Request";
    k->busy = 1;
    respond_text(k, status, reason, NULL, reason);
    k->close_after = 1;
}

static void debug_request(conn *k, const req *rq)
{
    char *body = NULL;
    const char *p = rq->target + 7;
    k->busy = 1;
    k->close_after = 1;
    if (!strcmp(p, "stats")) body = stats_json();
    else if (!strcmp(p, "log")) body = log_json();
    else if (!strcmp(p, "history")) {
        mcp_buf b = {0};
        buf_str(&b, "[");
        buf_add(&b, history.data, history.len);
        buf_str(&b, "]");
        body = xstrndup(b.data, b.len);
        mcp_buf_free(&b);
    } else if (!strcmp(p, "cancels")) {
        mcp_buf b = {0};
        buf_str(&b, "[");
        buf_add(&b, cancels.data, cancels.len);
        buf_str(&b, "]");
        body = xstrndup(b.data, b.len);
        mcp_buf_free(&b);
    } else if (!strcmp(p, "listens")) {             /* the open subscriptions/listen streams */
        mcp_buf b = {0};
        stream *st;
        buf_str(&b, "[");
        for (st = streams; st; st = st->next)
            if (st->filter && !st->done)
            { buf_fmt(&b, "%s{\"id\":%.100s,\"filter\":", b.len > 1 ? "," : "", st->rid); buf_str(&b, st->filter); buf_str(&b, "}"); }
        buf_str(&b, "]");
        body = xstrndup(b.data, b.len);
        mcp_buf_free(&b);
    } else if (!strcmp(p, "sessions")) {
        mcp_buf b = {0};
        sess *s;
        buf_str(&b, "[");
        for (s = sessions; s; s = s->next)
            buf_fmt(&b, "%s{\"sid\":\"%s\",\"legacy\":%s,\"version\":\"%s\",\"listener\":%s}", b.len > 1 ? "," : "",
                    s->sid, s->legacy ? "true" : "false", s->version, s->listener ? "true" : "false");
        buf_str(&b, "]");
        body = xstrndup(b.data, b.len);
        mcp_buf_free(&b);
    } else if (!strcmp(p, "reset")) {
        long open = stats.open;
        memset(&stats, 0, sizeof stats);
        stats.open = stats.max_open = open;
        nlog = 0;
        history.len = 0;
        cancels.len = 0;
        nflakes = 0;
        memset(flakes, 0, sizeof flakes);
        ask_seq = 0;
        refuse_listens = 0;
        nexecs = 0;
        reset_armed = 0;
        {
            conn *c2;
            for (c2 = conns; c2; c2 = c2->next) c2->logi = -1;
        }
        body = xstrdup("{}");
    } else if (!strcmp(p, "expire")) {
        while (sessions) sess_forget(sessions);
        body = xstrdup("{}");
    } else if (!strcmp(p, "arm_reset")) {
        reset_armed++;
        body = xstrdup("{}");
    } else if (!strcmp(p, "capture")) {
        capture_armed = 1; cap_done = 0;
        cap_req.len = cap_resp.len = 0;
        body = xstrdup("{}");
    } else if (!strcmp(p, "last")) {
        char *a = jstr(cap_req.data ? cap_req.data : "", cap_req.len), *b2 = jstr(cap_resp.data ? cap_resp.data : "", cap_resp.len);
        mcp_buf b = {0};
        buf_fmt(&b, "{\"done\":%s,\"request\":", cap_done ? "true" : "false");
        buf_str(&b, a);
        buf_str(&b, ",\"response\":");
        buf_str(&b, b2);
        buf_str(&b, "}");
        body = xstrndup(b.data, b.len);
        mcp_buf_free(&b);
        free(a); free(b2);
    }
    if (!body) { respond_text(k, 404, "Not Found", NULL, "no such debug page"); return; }
    respond(k, 200, "OK", "application/json", "Connection: close\r\n", body, strlen(body), 0);
    done_response(k);
    free(body);
}

static void log_request(conn *k, const req *rq, flags_t fl)
{
    rec *r = &logv[nlog % NLOG];
    int j, m = 0;
    memset(r, 0, sizeof *r);
    r->n = nlog;
    r->t = mcp_time_ms() - t_start;
    r->conn = k->id;
    copy_field(r->method, sizeof r->method, rq->method);
    copy_field(r->path, sizeof r->path, rq->target);
    copy_field(r->sid, sizeof r->sid, hdr(rq, "mcp-session-id"));
    copy_field(r->ver, sizeof r->ver, hdr(rq, "mcp-protocol-version"));
    copy_field(r->lei, sizeof r->lei, hdr(rq, "last-event-id"));
    copy_field(r->auth, sizeof r->auth, hdr(rq, "authorization"));
    copy_field(r->mmethod, sizeof r->mmethod, hdr(rq, "mcp-method"));
    copy_field(r->mname, sizeof r->mname, hdr(rq, "mcp-name"));
    for (j = 0; j < rq->nh; j++)                          /* Mcp-Param-*, in order, one a line */
        if (!strncmp(rq->hn[j], "mcp-param-", 10)) {
            size_t l = strlen(r->mparams);
            snprintf(r->mparams + l, sizeof r->mparams - l, "%s%s: %s", l ? "\n" : "", rq->hn[j], rq->hv[j]);
        }
    for (j = 0; flag_names[j]; j++)
        if ((fl & ((flags_t)1 << j)) && m + strlen(flag_names[j]) + 2 < sizeof r->mode)
            m += snprintf(r->mode + m, sizeof r->mode - (size_t)m, "%s%s", m ? "," : "", flag_names[j]);
    k->logi = nlog++;
}

/* The JSON-RPC message of a POST: the flags of a tools/call's arguments._mode join in. */
static mcp_json_doc *parse_body(conn *k, const req *rq, flags_t *fl, const char **method, int *kind)
{
    mcp_json_doc *doc = mcp_json_parse(rq->body, rq->blen, NULL);
    const mcp_json *m = mcp_json_root(doc), *mode;
    rec *r = k->logi >= 0 ? &logv[k->logi % NLOG] : NULL;
    *method = mcp_json_str(mcp_json_get(m, "method"));
    *kind = 0;
    if (!doc || mcp_json_typeof(m) != MCP_JSON_OBJECT) { mcp_json_free(doc); return NULL; }
    if (*method && mcp_json_get(m, "id")) *kind = 'R';
    else if (*method) *kind = 'N';
    else if (mcp_json_get(m, "id") && (mcp_json_get(m, "result") || mcp_json_get(m, "error"))) *kind = 'A';
    if (r) copy_field(r->rpc, sizeof r->rpc, *kind == 'A' ? "(response)" : *method);
    if (r && mcp_json_get(m, "id")) {
        size_t n;
        const char *id = dump_tmp(mcp_json_get(m, "id"), &n);
        if (n > sizeof r->id - 1) n = sizeof r->id - 1;
        memcpy(r->id, id, n); r->id[n] = 0;
    }
    if (*kind == 'R' && !strcmp(*method, "tools/call") &&
        (mode = mcp_json_get(mcp_json_get(mcp_json_get(m, "params"), "arguments"), "_mode")) != NULL) {
        const char *ms = mcp_json_str(mode);
        *fl |= parse_flags(ms, ms ? strlen(ms) : 0);
        if (r && ms) { size_t l = strlen(r->mode); snprintf(r->mode + l, sizeof r->mode - l, "%s%s", l ? "," : "", ms); }
    }
    return doc;
}

/* Does this request's answer need a stream (notifications or requests before it)? */
static int wants_stream(const char *method, const mcp_json *params)
{
    const char *tool;
    if (strcmp(method, "tools/call")) return 0;
    tool = mcp_json_str(mcp_json_get(params, "name"));
    if (!tool) return 0;
    if (!strcmp(tool, "notify") || !strcmp(tool, "ask")) return 1;
    return !strcmp(tool, "slow") && mcp_json_get(mcp_json_get(params, "_meta"), "progressToken") &&
           mcp_json_get(mcp_json_get(params, "arguments"), "every");
}

static void fill_ctx(ctx *x, conn *k, req *rq, sess *s, flags_t fl)
{
    memset(x, 0, sizeof *x);
    x->k = k; x->s = s; x->flags = fl;
    x->nh = rq->nh; x->hn = rq->hn; x->hv = rq->hv;
}

/* ---- 2026-07-28 (modern): stateless requests, header validation, input_required ------------- */

static const char *const legacy_versions[] = { "2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05", NULL };

/* The versions served, as a JSON array: the modern ones, then (dual era) the legacy ones. */
static void versions_json(mcp_buf *b)
{
    int i, n = 0;
    buf_str(b, "[");
    for (i = 0; i < nsupported; i++) buf_fmt(b, "%s\"%s\"", n++ ? "," : "", supported[i]);
    if (era == ERA_DUAL) for (i = 0; legacy_versions[i]; i++) buf_fmt(b, "%s\"%s\"", n++ ? "," : "", legacy_versions[i]);
    buf_str(b, "]");
}

static int modern_supported(const char *v)
{
    int i;
    for (i = 0; v && i < nsupported; i++) if (!strcmp(v, supported[i])) return 1;
    return 0;
}

/* An HTTP error whose body is a JSON-RPC error; id and data are JSON text (NULL: null, none). */
static void http_rpc_error(conn *k, int status, const char *id, long code, const char *message, const char *data)
{
    mcp_buf b = {0};
    char *m = jstr(message, strlen(message));
    const char *reason = status == 400 ? "Bad Request" : status == 404 ? "Not Found" : "Error";
    buf_fmt(&b, "{\"jsonrpc\":\"2.0\",\"id\":%s,\"error\":{\"code\":%ld,\"message\":", id ? id : "null", code);
    buf_str(&b, m);
    if (data) { buf_str(&b, ",\"data\":"); buf_str(&b, data); }
    buf_str(&b, "}}");
    free(m);
    stats.rejects++;
    respond(k, status, reason, "application/json", NULL, b.data, b.len, 0);
    done_response(k);
    mcp_buf_free(&b);
}

static int b64_val(int ch)
{
    if (ch >= 'A' && ch <= 'Z') return ch - 'A';
    if (ch >= 'a' && ch <= 'z') return ch - 'a' + 26;
    if (ch >= '0' && ch <= '9') return ch - '0' + 52;
    return ch == '+' ? 62 : ch == '/' ? 63 : -1;
}

/* Strict Base64 (padded, standard alphabet); 0 if malformed. */
static int b64_decode(const char *s, size_t n, mcp_buf *out)
{
    size_t i;
    int j, v[4], pad;
    unsigned char o[3];
    if (n % 4) return 0;
    for (i = 0; i < n; i += 4) {
        pad = 0;
        for (j = 0; j < 4; j++) {
            if (s[i + j] == '=' && i + 4 == n && (j == 3 || (j == 2 && s[i + 3] == '='))) { v[j] = 0; pad++; continue; }
            if ((v[j] = b64_val((unsigned char)s[i + j])) < 0 || pad) return 0;
        }
        o[0] = (unsigned char)(v[0] << 2 | v[1] >> 4);
        o[1] = (unsigned char)((v[1] & 15) << 4 | v[2] >> 2);
        o[2] = (unsigned char)((v[2] & 3) << 6 | v[3]);
        buf_add(out, o, (size_t)(3 - pad));
    }
    return 1;
}

/* A header value as 2026-07-28 sends it: visible ASCII, space and tab only, and
   =?base64?...?= decoded. 1 with the bytes in out; 0: invalid characters or bad Base64. */
static int hdr_decode(const char *v, mcp_buf *out)
{
    size_t n = strlen(v), i;
    out->len = 0;
    for (i = 0; i < n; i++) {
        unsigned char ch = (unsigned char)v[i];
        if (ch != '\t' && (ch < 0x20 || ch > 0x7E)) return 0;
    }
    if (n >= 11 && !memcmp(v, "=?base64?", 9) && !memcmp(v + n - 2, "?=", 2)) return b64_decode(v + 9, n - 11, out);
    buf_add(out, v, n);
    return 1;
}

/* Tools of the modern era: plain ones, input_required ones, and x-mcp-header markings, valid
   (route) and invalid (bad_*: a client drops these from tools/list). Two pages. */
static const char *const modern_tools[] = {
    "{\"name\":\"echo\",\"inputSchema\":{\"type\":\"object\"}}",
    "{\"name\":\"add\",\"inputSchema\":{\"type\":\"object\",\"properties\":{\"a\":{\"type\":\"number\"},\"b\":{\"type\":\"number\"}}}}",
    "{\"name\":\"headers\",\"inputSchema\":{\"type\":\"object\"}}",
    "{\"name\":\"slow\",\"inputSchema\":{\"type\":\"object\",\"properties\":{\"ms\":{\"type\":\"integer\"},\"every\":{\"type\":\"integer\"}}}}",
    "{\"name\":\"never\",\"inputSchema\":{\"type\":\"object\"}}",
    "{\"name\":\"notify\",\"inputSchema\":{\"type\":\"object\"}}",
    "{\"name\":\"flaky\",\"inputSchema\":{\"type\":\"object\",\"properties\":{\"key\":{\"type\":\"string\"},\"drops\":{\"type\":\"integer\"}}}}",
    "{\"name\":\"elicit\",\"inputSchema\":{\"type\":\"object\"}}",
    "{\"name\":\"multi\",\"inputSchema\":{\"type\":\"object\"}}",
    "{\"name\":\"rounds\",\"inputSchema\":{\"type\":\"object\",\"properties\":{\"n\":{\"type\":\"integer\"}}}}",
    "{\"name\":\"stateonly\",\"inputSchema\":{\"type\":\"object\"}}",
    "{\"name\":\"needs_sampling\",\"inputSchema\":{\"type\":\"object\"}}",
    "{\"name\":\"oddask\",\"inputSchema\":{\"type\":\"object\"}}",
    "{\"name\":\"weird\",\"inputSchema\":{\"type\":\"object\"}}",
    "{\"name\":\"plain\",\"inputSchema\":{\"type\":\"object\"}}",
    "{\"name\":\"route\",\"inputSchema\":{\"type\":\"object\",\"properties\":{"
        "\"region\":{\"type\":\"string\",\"x-mcp-header\":\"Region\"},"
        "\"count\":{\"type\":\"integer\",\"x-mcp-header\":\"Count\"},"
        "\"flag\":{\"type\":\"boolean\",\"x-mcp-header\":\"Flag\"},"
        "\"opts\":{\"type\":\"object\",\"properties\":{\"tenant\":{\"type\":\"string\",\"x-mcp-header\":\"Tenant\"}}},"
        "\"query\":{\"type\":\"string\"}}}}",
    "{\"name\":\"bad_number\",\"inputSchema\":{\"type\":\"object\",\"properties\":{"
        "\"ratio\":{\"type\":\"number\",\"x-mcp-header\":\"Ratio\"}}}}",
    "{\"name\":\"bad_items\",\"inputSchema\":{\"type\":\"object\",\"properties\":{"
        "\"tags\":{\"type\":\"array\",\"items\":{\"type\":\"string\",\"x-mcp-header\":\"Tag\"}}}}}",
    "{\"name\":\"bad_anyof\",\"inputSchema\":{\"type\":\"object\",\"properties\":{"
        "\"id\":{\"anyOf\":[{\"type\":\"string\",\"x-mcp-header\":\"Id\"},{\"type\":\"integer\"}]}}}}",
    /* page 2 */
    "{\"name\":\"bad_dup\",\"inputSchema\":{\"type\":\"object\",\"properties\":{"
        "\"a\":{\"type\":\"string\",\"x-mcp-header\":\"Region\"},\"b\":{\"type\":\"string\",\"x-mcp-header\":\"REGION\"}}}}",
    "{\"name\":\"bad_token\",\"inputSchema\":{\"type\":\"object\",\"properties\":{"
        "\"a\":{\"type\":\"string\",\"x-mcp-header\":\"Bad Name\"}}}}",
    "{\"name\":\"bad_crlf\",\"inputSchema\":{\"type\":\"object\",\"properties\":{"
        "\"a\":{\"type\":\"string\",\"x-mcp-header\":\"X\\r\\nEvil: 1\"}}}}",
    "{\"name\":\"bad_empty\",\"inputSchema\":{\"type\":\"object\",\"properties\":{"
        "\"a\":{\"type\":\"string\",\"x-mcp-header\":\"\"}}}}",
    "{\"name\":\"bad_root\",\"inputSchema\":{\"type\":\"object\",\"x-mcp-header\":\"Root\",\"properties\":{}}}",
    "{\"name\":\"bad_defs\",\"inputSchema\":{\"type\":\"object\",\"properties\":{\"a\":{\"$ref\":\"#/$defs/a\"}},"
        "\"$defs\":{\"a\":{\"type\":\"string\",\"x-mcp-header\":\"A\"}}}}",
    "{\"name\":\"gr\xc3\xbc\xc3\x9f\",\"inputSchema\":{\"type\":\"object\"}}",
    NULL
};
#define MODERN_PAGE1 19

/* The Mcp-Param headers the server expects for route (the only tool with valid markings). */
static const struct { const char *header; const char *path[2]; char type; } route_marks[] = {
    { "Region", { "region", NULL }, 's' }, { "Count", { "count", NULL }, 'i' },
    { "Flag", { "flag", NULL }, 'b' }, { "Tenant", { "opts", "tenant" }, 's' }
};

static void list_tools_modern(const ctx *x, const mcp_json *params)
{
    const char *cursor = mcp_json_str(mcp_json_get(params, "cursor"));
    int i, first, n = 0;
    mcp_buf b = {0};
    while (modern_tools[n]) n++;
    if (cursor && strcmp(cursor, "page2")) { send_error(x->stream, x->id, -32602, "Invalid cursor"); return; }
    first = cursor ? MODERN_PAGE1 : 0;
    buf_str(&b, "{\"tools\":[");
    for (i = first; i < (cursor ? n : MODERN_PAGE1); i++) { if (i > first) buf_str(&b, ","); buf_str(&b, modern_tools[i]); }
    buf_str(&b, "]");
    if (!cursor) buf_str(&b, ",\"nextCursor\":\"page2\"");
    buf_str(&b, (x->flags & F_TTL) ? ",\"ttlMs\":60000,\"cacheScope\":\"public\"}" : ",\"ttlMs\":0,\"cacheScope\":\"private\"}");
    buf_add(&b, "", 1);
    send_result(x->stream, x->id, b.data);
    mcp_buf_free(&b);
}

/* Checks route's Mcp-Param headers against its arguments; 0, or 1 with the -32020 message. */
static int check_params(const req *rq, const mcp_json *params, char *msg, size_t n)
{
    const mcp_json *args = mcp_json_get(params, "arguments"), *v;
    const char *tool = mcp_json_str(mcp_json_get(params, "name")), *hv;
    char hname[64], *end;
    mcp_buf dv = {0};
    size_t i, j;
    int bad = 0;
    if (!tool || strcmp(tool, "route")) return 0;
    for (i = 0; !bad && i < sizeof route_marks / sizeof route_marks[0]; i++) {
        snprintf(hname, sizeof hname, "mcp-param-%s", route_marks[i].header);
        for (j = 10; hname[j]; j++) if (hname[j] >= 'A' && hname[j] <= 'Z') hname[j] = (char)(hname[j] + 32);
        v = args;
        for (j = 0; j < 2 && route_marks[i].path[j]; j++) v = mcp_json_get(v, route_marks[i].path[j]);
        hv = hdr(rq, hname);
        if (!v || mcp_json_typeof(v) == MCP_JSON_NULL) {
            if (hv) { snprintf(msg, n, "Header mismatch: Mcp-Param-%s was sent, but the argument is absent", route_marks[i].header); bad = 1; }
            continue;
        }
        if (!hv) { snprintf(msg, n, "Header mismatch: the Mcp-Param-%s header is required", route_marks[i].header); bad = 1; continue; }
        if (!hdr_decode(hv, &dv)) {
            snprintf(msg, n, "Header mismatch: the Mcp-Param-%s header value has invalid characters or bad Base64",
                     route_marks[i].header);
            bad = 1;
            continue;
        }
        buf_add(&dv, "", 1);
        if (route_marks[i].type == 's')
            bad = mcp_json_typeof(v) != MCP_JSON_STRING || dv.len - 1 != mcp_json_len(v) || memcmp(dv.data, mcp_json_str(v), dv.len - 1);
        else if (route_marks[i].type == 'i')
            bad = mcp_json_typeof(v) != MCP_JSON_NUMBER || !dv.data[0] || strtod(dv.data, &end) != mcp_json_num(v) || *end;
        else
            bad = mcp_json_typeof(v) != MCP_JSON_BOOL || strcmp(dv.data, mcp_json_is_true(v) ? "true" : "false");
        if (bad) {
            char *bv = dump(v);
            snprintf(msg, n, "Header mismatch: Mcp-Param-%s header value '%.100s' does not match body value %.100s",
                     route_marks[i].header, hv, bv);
            free(bv);
        }
    }
    mcp_buf_free(&dv);
    return bad;
}

static int modern_method(const char *m)
{
    static const char *const known[] = { "server/discover", "tools/list", "tools/call", "resources/list",
        "resources/templates/list", "resources/read", "prompts/list", "prompts/get", "completion/complete",
        "subscriptions/listen", NULL };
    int i;
    for (i = 0; known[i]; i++) if (!strcmp(m, known[i])) return 1;
    return 0;
}

/* The client capabilities a request needs ("a,b"), or NULL. */
static const char *caps_needed(const char *method, const mcp_json *params)
{
    const char *name = mcp_json_str(mcp_json_get(params, "name")), *uri = mcp_json_str(mcp_json_get(params, "uri"));
    if (!strcmp(method, "tools/call") && name) {
        if (!strcmp(name, "elicit") || !strcmp(name, "rounds")) return "elicitation";
        if (!strcmp(name, "multi")) return "elicitation,sampling,roots";
        if (!strcmp(name, "needs_sampling")) return "sampling";
    }
    if (!strcmp(method, "resources/read") && uri && !strcmp(uri, "mem://confirm")) return "elicitation";
    return NULL;
}

static int wants_stream_modern(const char *method, const mcp_json *params)
{
    const mcp_json *meta = mcp_json_get(params, "_meta");
    const char *tool = mcp_json_str(mcp_json_get(params, "name"));
    if (!strcmp(method, "subscriptions/listen")) return 1;   /* a stream that stays open */
    if (strcmp(method, "tools/call") || !tool) return 0;
    if (!strcmp(tool, "flaky")) return 1;
    if (!strcmp(tool, "notify"))
        return mcp_json_get(meta, "io.modelcontextprotocol/logLevel") || mcp_json_get(meta, "progressToken");
    return !strcmp(tool, "slow") && mcp_json_get(meta, "progressToken") && mcp_json_get(mcp_json_get(params, "arguments"), "every");
}

static void discover(const ctx *x)
{
    mcp_buf b = {0};
    buf_str(&b, "{\"resultType\":\"complete\",\"supportedVersions\":");
    versions_json(&b);
    buf_str(&b, ",\"capabilities\":{\"tools\":{\"listChanged\":true},\"resources\":{},\"prompts\":{},\"completions\":{},"
                "\"logging\":{}},\"_meta\":{\"io.modelcontextprotocol/serverInfo\":{\"name\":\"http_server\",\"title\":"
                "\"mcp.h HTTP test server\",\"version\":\"2.0.0\"}},\"instructions\":");
    buf_str(&b, era == ERA_DUAL ? "\"Both eras: 2026-07-28 and the initialize handshake.\""
                                : "\"Stateless 2026-07-28, with misbehaviours on demand.\"");
    buf_str(&b, ",\"ttlMs\":60000,\"cacheScope\":\"public\"}");
    buf_add(&b, "", 1);
    stats.discovers++;
    send_result(x->stream, x->id, b.data);
    mcp_buf_free(&b);
}

/* requestState of elicit: opaque, and hard to echo exactly (quotes, backslash, UTF-8, JSON) */
static const char elicit_state[] = "opaque \"blob\" \\ \xc3\xa9 \xe2\x9c\x93 {\"n\":1}\t/end";

static const char elicit_form[] = "{\"method\":\"elicitation/create\",\"params\":{\"mode\":\"form\",\"message\":"
    "\"Who are you?\",\"requestedSchema\":{\"type\":\"object\",\"properties\":{\"name\":{\"type\":\"string\"}},"
    "\"required\":[\"name\"]}}}";

/* {"resultType":"input_required", "inputRequests": {REQS} (when given), "requestState": STATE
   (when given)} */
static void input_required(const ctx *x, const char *reqs, const char *state, size_t state_len)
{
    mcp_buf b = {0};
    char *s = state ? jstr(state, state_len) : NULL;
    buf_str(&b, "{\"resultType\":\"input_required\"");
    if (reqs) { buf_str(&b, ",\"inputRequests\":{"); buf_str(&b, reqs); buf_str(&b, "}"); }
    if (s) { buf_str(&b, ",\"requestState\":"); buf_str(&b, s); }
    buf_str(&b, "}");
    buf_add(&b, "", 1);
    send_result(x->stream, x->id, b.data);
    mcp_buf_free(&b);
    free(s);
}

/* The retry's requestState is what we sent, byte for byte? (NULL want: there must be none.) */
static int state_ok(const ctx *x, const mcp_json *params, const char *want, size_t wn)
{
    const mcp_json *rs = mcp_json_get(params, "requestState");
    char m[300];
    if (!want && !rs) return 1;
    if (!want) { send_error(x->stream, x->id, -32602, "requestState was sent, but none was given"); return 0; }
    if (mcp_json_typeof(rs) == MCP_JSON_STRING && mcp_json_len(rs) == wn && !memcmp(mcp_json_str(rs), want, wn)) return 1;
    snprintf(m, sizeof m, "requestState was changed: %.200s", rs ? mcp_json_str(rs) ? mcp_json_str(rs) : "(not a string)" : "(none)");
    send_error(x->stream, x->id, -32602, m);
    return 0;
}

/* ---- subscriptions/listen: long-lived SSE streams of change notifications ---------------------- */

/* Opens one: the stream (SSE, already headed) stays open; the first event is the acknowledgment
   with the supported subset of the filter (no promptsListChanged). */
static void listen_open(const ctx *x, const mcp_json *params)
{
    const mcp_json *f = mcp_json_get(params, "notifications"), *u = mcp_json_get(f, "resourceSubscriptions");
    stream *st = stream_get(x->stream);
    mcp_jw w;
    mcp_buf b = {0};
    char *t;
    size_t i;
    if (!st) return;
    if (refuse_listens > 0) {                     /* drop_listen's refuse_next: broken before the acknowledgment */
        refuse_listens--;
        stats.listen_refused++;
        x->k->close_after = 1; x->k->stream = 0;  /* the head goes out, then the connection closes */
        stream_free(st);
        return;
    }
    if (mcp_json_typeof(f) != MCP_JSON_OBJECT || (u && mcp_json_typeof(u) != MCP_JSON_ARRAY)) {
        send_error(x->stream, x->id, -32602, "Invalid params: notifications must be an object");
        return;
    }
    mcp_jw_init(&w, 0);
    mcp_jw_obj_begin(&w);
    if (mcp_json_is_true(mcp_json_get(f, "toolsListChanged"))) { mcp_jw_key(&w, "toolsListChanged"); mcp_jw_bool(&w, 1); }
    if (mcp_json_is_true(mcp_json_get(f, "resourcesListChanged"))) { mcp_jw_key(&w, "resourcesListChanged"); mcp_jw_bool(&w, 1); }
    if (u) {
        mcp_jw_key(&w, "resourceSubscriptions");
        mcp_jw_arr_begin(&w);
        for (i = 0; i < mcp_json_len(u); i++)
            if (mcp_json_typeof(mcp_json_at(u, i)) == MCP_JSON_STRING) mcp_jw_value(&w, mcp_json_at(u, i));
        mcp_jw_arr_end(&w);
    }
    mcp_jw_obj_end(&w);
    t = mcp_jw_finish(&w, NULL, NULL);
    st->filter = xstrdup(t ? t : "{}");
    mcp_free(t);
    stats.listens++;
    buf_fmt(&b, "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/subscriptions/acknowledged\",\"params\":{\"_meta\":"
                "{\"io.modelcontextprotocol/subscriptionId\":%.100s},\"notifications\":", st->rid);
    buf_str(&b, st->filter);
    buf_str(&b, "}}");
    stream_send(st->id, b.data, b.len, 0);
    mcp_buf_free(&b);
}

/* Does the filter ask for it? what: tools, resources, prompts or updated (with uri). */
static int listen_wants(const stream *st, const char *what, const char *uri)
{
    mcp_json_doc *d = mcp_json_parse(st->filter, strlen(st->filter), NULL);
    const mcp_json *f = mcp_json_root(d), *u;
    int yes = 0;
    size_t i;
    if (!strcmp(what, "tools")) yes = mcp_json_is_true(mcp_json_get(f, "toolsListChanged"));
    else if (!strcmp(what, "resources")) yes = mcp_json_is_true(mcp_json_get(f, "resourcesListChanged"));
    else if (!strcmp(what, "prompts")) yes = mcp_json_is_true(mcp_json_get(f, "promptsListChanged"));
    else if (!strcmp(what, "updated") && uri) {
        u = mcp_json_get(f, "resourceSubscriptions");
        for (i = 0; !yes && i < mcp_json_len(u); i++) yes = mcp_json_str(mcp_json_at(u, i)) && !strcmp(mcp_json_str(mcp_json_at(u, i)), uri);
    }
    mcp_json_free(d);
    return yes;
}

/* The open listen streams' ids (0-terminated, at most n - 1). */
static int listen_streams(int *ids, int n)
{
    stream *st;
    int k = 0;
    for (st = streams; st && k < n - 1; st = st->next)
        if (st->filter && !st->done && conn_get(st->conn)) ids[k++] = st->id;
    ids[k] = 0;
    return k;
}

/* tool fire {what, uri}: the notification on every open listen stream that asked for it, each
   tagged with its own subscription id; the number of streams written to. */
static int listen_fire(const char *what, const char *uri)
{
    int ids[64], i, sent = 0;
    stream *st;
    mcp_buf b = {0};
    char *u;
    const char *method = !strcmp(what, "tools") ? "notifications/tools/list_changed"
                       : !strcmp(what, "resources") ? "notifications/resources/list_changed"
                       : !strcmp(what, "prompts") ? "notifications/prompts/list_changed"
                       : !strcmp(what, "updated") ? "notifications/resources/updated" : NULL;
    if (!method) return -1;
    listen_streams(ids, 64);
    for (i = 0; ids[i]; i++) {
        if (!(st = stream_get(ids[i])) || !listen_wants(st, what, uri)) continue;
        b.len = 0;
        buf_fmt(&b, "{\"jsonrpc\":\"2.0\",\"method\":\"%s\",\"params\":{\"_meta\":{\"io.modelcontextprotocol/"
                    "subscriptionId\":%.100s}", method, st->rid);
        if (!strcmp(what, "updated")) { u = jstr(uri, strlen(uri)); buf_str(&b, ",\"uri\":"); buf_str(&b, u); free(u); }
        buf_str(&b, "}}");
        stream_send(st->id, b.data, b.len, 0);
        sent++;
    }
    mcp_buf_free(&b);
    return sent;
}

/* tool end_listen: every open listen stream ends gracefully (its result, then the stream's end). */
static int listen_end_all(void)
{
    int ids[64], i, n = 0;
    stream *st;
    char r[160];
    listen_streams(ids, 64);
    for (i = 0; ids[i]; i++) {
        if (!(st = stream_get(ids[i]))) continue;
        snprintf(r, sizeof r, "{\"_meta\":{\"io.modelcontextprotocol/subscriptionId\":%.100s}}", st->rid);
        {
            char *rid = xstrdup(st->rid);
            send_result(st->id, rid, r);          /* adds resultType complete; frees the stream */
            free(rid);
        }
        stats.listen_ended++;
        n++;
    }
    return n;
}

/* tool drop_listen: every open listen stream breaks (its connection closes: no result, no last
   chunk; not a cancel by the client). */
static int listen_drop_all(void)
{
    int ids[64], i, n = 0;
    stream *st;
    conn *k;
    listen_streams(ids, 64);
    for (i = 0; ids[i]; i++) {
        if (!(st = stream_get(ids[i]))) continue;
        k = conn_get(st->conn);
        items_drop(st->id);
        stream_free(st);                          /* clears k->stream: the close is no cancel */
        if (k) conn_close(k);
        stats.listen_dropped++;
        n++;
    }
    return n;
}

static void tool_call_modern(ctx *x, const mcp_json *params)
{
    const char *name = mcp_json_str(mcp_json_get(params, "name"));
    const mcp_json *args = mcp_json_get(params, "arguments"), *ir = mcp_json_get(params, "inputResponses");
    const mcp_json *rs = mcp_json_get(params, "requestState");
    const mcp_json *tok = mcp_json_get(mcp_json_get(params, "_meta"), "progressToken");
    char text[600], *t;
    if (!name) { send_error(x->stream, x->id, -32602, "tools/call needs a name"); return; }
    if (!strcmp(name, "echo") || !strcmp(name, "add") || !strcmp(name, "headers") || !strcmp(name, "slow") ||
        !strcmp(name, "never")) {
        tool_call(x, params);
    } else if (!strcmp(name, "notify")) {
        const char *lv = mcp_json_str(mcp_json_get(x->meta, "io.modelcontextprotocol/logLevel"));
        if (lv && (!strcmp(lv, "debug") || !strcmp(lv, "info"))) note_log(x->stream, "info", "hello");
        if (tok) { t = dump(tok); note_progress(x->stream, t, 1, 2, "half"); free(t); }
        answer_text(x, "notified");
    } else if (!strcmp(name, "flaky")) {
        const char *key = mcp_json_str(mcp_json_get(args, "key"));
        int drops = (int)mcp_json_num(mcp_json_get(args, "drops")), i;
        flake *f = NULL;
        for (i = 0; key && i < nflakes; i++) if (!strcmp(flakes[i].key, key)) f = &flakes[i];
        if (!f && key && nflakes < 16) { f = &flakes[nflakes++]; snprintf(f->key, sizeof f->key, "%s", key); }
        if (!f) { send_error(x->stream, x->id, -32602, "flaky needs a key"); return; }
        f->seen++;
        snprintf(f->ids + strlen(f->ids), sizeof f->ids - strlen(f->ids), "%s%s", f->ids[0] ? "," : "", x->id);
        if (f->seen <= drops) {                       /* the stream breaks before the answer */
            stream *st = stream_get(x->stream);
            sse_write(x->k, st, ": working\n\n", 12);
            stats.drops++;
            if (mcp_json_is_true(mcp_json_get(args, "clean"))) {   /* ended properly, but unanswered */
                sse_end(x->k, st);
                st->done = 1;
            } else {
                x->k->close_after = 1; x->k->stream = 0;
            }
            stream_free(st);
            return;
        }
        snprintf(text, sizeof text, "answered on attempt %d; ids %s", f->seen, f->ids);
        answer_text(x, text);
    } else if (!strcmp(name, "elicit")) {
        const mcp_json *login = mcp_json_get(ir, "login");
        if (rs && !state_ok(x, params, elicit_state, sizeof elicit_state - 1)) return;
        if (!rs || !login) {
            mcp_buf b = {0};
            buf_str(&b, "\"login\":"); buf_str(&b, elicit_form); buf_add(&b, "", 1);
            input_required(x, b.data, elicit_state, sizeof elicit_state - 1);
            mcp_buf_free(&b);
            return;
        }
        if (strcmp(mcp_json_str(mcp_json_get(login, "action")) ? mcp_json_str(mcp_json_get(login, "action")) : "", "accept")) {
            answer_text(x, "declined");
            return;
        }
        snprintf(text, sizeof text, "Hello, %.200s (requestState intact)",
                 mcp_json_str(mcp_json_get(mcp_json_get(login, "content"), "name")) ?
                 mcp_json_str(mcp_json_get(mcp_json_get(login, "content"), "name")) : "?");
        answer_text(x, text);
    } else if (!strcmp(name, "multi")) {
        const mcp_json *who = mcp_json_get(ir, "who"), *cap = mcp_json_get(ir, "capital"), *dirs = mcp_json_get(ir, "dirs");
        if (!state_ok(x, params, NULL, 0)) return;
        if (!who || !cap || !dirs) {
            mcp_buf b = {0};
            buf_str(&b, "\"who\":"); buf_str(&b, elicit_form);
            buf_str(&b, ",\"capital\":{\"method\":\"sampling/createMessage\",\"params\":{\"messages\":[{\"role\":\"user\","
                        "\"content\":{\"type\":\"text\",\"text\":\"2+2?\"}}],\"maxTokens\":100}},"
                        "\"dirs\":{\"method\":\"roots/list\",\"params\":{}}");
            buf_add(&b, "", 1);
            input_required(x, b.data, NULL, 0);
            mcp_buf_free(&b);
            return;
        }
        snprintf(text, sizeof text, "who=%.100s capital=%.100s roots=%.100s",
                 mcp_json_str(mcp_json_get(mcp_json_get(who, "content"), "name")),
                 mcp_json_str(mcp_json_get(mcp_json_get(cap, "content"), "text")),
                 mcp_json_str(mcp_json_get(mcp_json_at(mcp_json_get(dirs, "roots"), 0), "uri")));
        answer_text(x, text);
    } else if (!strcmp(name, "rounds")) {
        int n = (int)mcp_json_num(mcp_json_get(args, "n")), k = 0;
        char st[32];
        const char *s = mcp_json_str(rs);
        if (rs && (!s || sscanf(s, "round-%d", &k) != 1)) { send_error(x->stream, x->id, -32602, "requestState was changed"); return; }
        if (rs && mcp_json_get(ir, "step")) k++;
        if (k >= n) { snprintf(text, sizeof text, "done after %d rounds", k); answer_text(x, text); return; }
        snprintf(st, sizeof st, "round-%d", k);
        snprintf(text, sizeof text, "\"step\":{\"method\":\"elicitation/create\",\"params\":{\"message\":\"step %d\","
                 "\"requestedSchema\":{\"type\":\"object\",\"properties\":{}}}}", k + 1);
        input_required(x, text, st, strlen(st));
    } else if (!strcmp(name, "stateonly")) {
        if (!rs) { input_required(x, NULL, "only-state", 10); return; }
        if (!state_ok(x, params, "only-state", 10)) return;
        answer_text(x, "state only: ok");
    } else if (!strcmp(name, "oddask")) {              /* input of a kind no client gives */
        input_required(x, "\"x\":{\"method\":\"tasks/get\",\"params\":{}}", "odd", 3);
    } else if (!strcmp(name, "needs_sampling")) {
        answer_text(x, "ok");
    } else if (!strcmp(name, "fire")) {                /* subscriptions/listen: a change happens */
        const char *what = mcp_json_str(mcp_json_get(args, "what")), *uri = mcp_json_str(mcp_json_get(args, "uri"));
        int n = what ? listen_fire(what, uri) : -1;
        if (n < 0) { send_error(x->stream, x->id, -32602, "fire needs what: tools, resources, prompts or updated"); return; }
        snprintf(text, sizeof text, "sent %d", n);
        answer_text(x, text);
    } else if (!strcmp(name, "end_listen")) {
        snprintf(text, sizeof text, "ended %d", listen_end_all());
        answer_text(x, text);
    } else if (!strcmp(name, "drop_listen")) {         /* the listen streams break; refuse_next: so do the next */
        const mcp_json *rn = mcp_json_get(args, "refuse_next");
        if (rn) refuse_listens = (int)mcp_json_num(rn);
        snprintf(text, sizeof text, "dropped %d", listen_drop_all());
        answer_text(x, text);
    } else if (!strcmp(name, "weird")) {
        send_result(x->stream, x->id, "{\"resultType\":\"task\",\"taskId\":\"t1\"}");
    } else if (!strcmp(name, "plain")) {
        t = tool_text("no resultType", 13, 0, NULL);
        send_result_x(x->stream, x->id, t, 1);
        free(t);
    } else if (!strcmp(name, "route")) {
        mcp_jw w;
        int i;
        mcp_jw_init(&w, 0);
        mcp_jw_obj_begin(&w);
        for (i = 0; i < x->nh; i++)
            if (!strncmp(x->hn[i], "mcp-", 4)) { mcp_jw_key(&w, x->hn[i]); mcp_jw_str(&w, x->hv[i]); }
        mcp_jw_obj_end(&w);
        t = mcp_jw_finish(&w, NULL, NULL);
        answer_text(x, t ? t : "{}");
        mcp_free(t);
    } else if (!strncmp(name, "bad_", 4) || !strcmp(name, "gr\xc3\xbc\xc3\x9f")) {
        t = args ? dump(args) : xstrdup("{}");
        answer_text(x, t);
        free(t);
    } else {
        snprintf(text, sizeof text, "Unknown tool: %.200s", name);
        send_error(x->stream, x->id, -32602, text);
    }
}

static void read_resource_modern(const ctx *x, const mcp_json *params)
{
    const char *uri = mcp_json_str(mcp_json_get(params, "uri"));
    char text[512], *u, *t;
    mcp_buf b = {0};
    if (uri && !strcmp(uri, "mem://confirm")) {
        const mcp_json *ok = mcp_json_get(mcp_json_get(params, "inputResponses"), "ok");
        if (!ok) {
            input_required(x, "\"ok\":{\"method\":\"elicitation/create\",\"params\":{\"message\":\"Read it?\","
                              "\"requestedSchema\":{\"type\":\"object\",\"properties\":{}}}}", "confirm-1", 9);
            return;
        }
        if (!state_ok(x, params, "confirm-1", 9)) return;
        snprintf(text, sizeof text, "confirmed");
    } else if (uri && (!strcmp(uri, "file:///a.txt") || !strcmp(uri, "file:///caf\xc3\xa9 menu.txt"))) {
        snprintf(text, sizeof text, "content of %.400s", uri);
    } else {
        send_error(x->stream, x->id, -32602, "Resource not found");   /* 2026-07-28: no more -32002 */
        return;
    }
    u = jstr(uri, strlen(uri)); t = jstr(text, strlen(text));
    buf_fmt(&b, "{\"contents\":[{\"uri\":%s,\"mimeType\":\"text/plain\",\"text\":%s}],\"ttlMs\":0,\"cacheScope\":\"private\"}", u, t);
    buf_add(&b, "", 1);
    send_result(x->stream, x->id, b.data);
    free(u); free(t);
    mcp_buf_free(&b);
}

static void handle_modern(ctx *x, const char *method, const mcp_json *params)
{
    if (!strcmp(method, "server/discover")) discover(x);
    else if (!strcmp(method, "tools/list")) list_tools_modern(x, params);
    else if (!strcmp(method, "tools/call")) tool_call_modern(x, params);
    else if (!strcmp(method, "resources/read")) read_resource_modern(x, params);
    else if (!strcmp(method, "subscriptions/listen")) listen_open(x, params);
    else handle_request(x, method, params);        /* lists, prompts, completion: as before */
}

/* Does this POST speak 2026-07-28 (a dual-era server's question)? */
static int is_modern_request(const req *rq, const mcp_json *m)
{
    const char *ver = hdr(rq, "mcp-protocol-version");
    if (hdr(rq, "mcp-session-id")) return 0;
    if (mcp_json_get(mcp_json_get(mcp_json_get(m, "params"), "_meta"), "io.modelcontextprotocol/protocolVersion")) return 1;
    return ver && !version_known(ver);
}

/* A 2026-07-28 POST: every check of the transport page, then the method, statelessly. */
static void modern_post(conn *k, req *rq, flags_t fl, const mcp_json *m, const char *method, int kind)
{
    const mcp_json *params = mcp_json_get(m, "params"), *meta = mcp_json_get(params, "_meta"), *v;
    const mcp_json *caps = mcp_json_get(meta, "io.modelcontextprotocol/clientCapabilities");
    const char *hv = hdr(rq, "mcp-protocol-version"), *pv, *mm, *mn, *need;
    char *id, *text, msg[600];
    mcp_buf b = {0}, dv = {0};
    stream *st;
    ctx x;
    int name_bad = 0;
    stats.modern++;
    if (kind == 'N') {                                   /* none are defined; taken and kept */
        text = dump(m);
        history_add(text);
        free(text);
        respond(k, 202, "Accepted", NULL, NULL, "", 0, 0);
        done_response(k);
        return;
    }
    if (kind == 'A') { http_rpc_error(k, 400, NULL, -32600, "Invalid Request: a client sends no responses in 2026-07-28", NULL); return; }
    id = dump(mcp_json_get(m, "id"));
    pv = mcp_json_str(mcp_json_get(meta, "io.modelcontextprotocol/protocolVersion"));
    mn = hdr(rq, "mcp-name");
    v = mcp_json_get(params, strcmp(method, "resources/read") ? "name" : "uri");
    if (!strcmp(method, "tools/call") || !strcmp(method, "prompts/get") || !strcmp(method, "resources/read"))
        name_bad = !mn || !hdr_decode(mn, &dv) || mcp_json_typeof(v) != MCP_JSON_STRING || dv.len != mcp_json_len(v) ||
                   (dv.len && memcmp(dv.data, mcp_json_str(v), dv.len));
    if (!strcmp(method, "initialize")) {                 /* modern only: name what we speak */
        v = mcp_json_get(params, "protocolVersion");
        text = dump(v);
        buf_str(&b, "{\"supported\":"); versions_json(&b); buf_str(&b, ",\"requested\":"); buf_str(&b, text); buf_str(&b, "}");
        buf_add(&b, "", 1);
        free(text);
        http_rpc_error(k, 400, id, -32022, "Unsupported protocol version: this server speaks only 2026-07-28, which "
                       "has no initialize", b.data);
    } else if (!hv) {
        http_rpc_error(k, 400, id, -32020, "Header mismatch: the MCP-Protocol-Version header is required", NULL);
    } else if (!pv || mcp_json_typeof(caps) != MCP_JSON_OBJECT) {
        http_rpc_error(k, 400, id, -32602, "Invalid params: _meta needs io.modelcontextprotocol/protocolVersion and "
                       "io.modelcontextprotocol/clientCapabilities", NULL);
    } else if (strcmp(hv, pv)) {
        snprintf(msg, sizeof msg, "Header mismatch: MCP-Protocol-Version header value '%.100s' does not match body "
                 "value '%.100s'", hv, pv);
        http_rpc_error(k, 400, id, -32020, msg, NULL);
    } else if (refuse_first > 0 || !modern_supported(pv) || (fl & F_V32022)) {
        if (refuse_first > 0 && !(fl & F_V32022)) refuse_first--;
        text = jstr(pv, strlen(pv));
        buf_str(&b, "{\"supported\":"); versions_json(&b); buf_str(&b, ",\"requested\":"); buf_str(&b, text); buf_str(&b, "}");
        buf_add(&b, "", 1);
        free(text);
        http_rpc_error(k, 400, id, -32022, "Unsupported protocol version", b.data);
    } else if (!(mm = hdr(rq, "mcp-method"))) {
        http_rpc_error(k, 400, id, -32020, "Header mismatch: the Mcp-Method header is required", NULL);
    } else if (strcmp(mm, method)) {
        snprintf(msg, sizeof msg, "Header mismatch: Mcp-Method header value '%.100s' does not match body value '%.100s'",
                 mm, method);
        http_rpc_error(k, 400, id, -32020, msg, NULL);
    } else if (fl & F_HDRBAD) {                           /* as if something on the way changed it */
        http_rpc_error(k, 400, id, -32020, "Header mismatch: Mcp-Name header value 'other' does not match body "
                       "value 'this'", NULL);
    } else if (name_bad) {
        if (!mn) snprintf(msg, sizeof msg, "Header mismatch: the Mcp-Name header is required");
        else snprintf(msg, sizeof msg, "Header mismatch: Mcp-Name header value '%.200s' does not match body value '%.200s'",
                      mn, mcp_json_str(v) ? mcp_json_str(v) : "(none)");
        http_rpc_error(k, 400, id, -32020, msg, NULL);
    } else if (!strcmp(method, "tools/call") && check_params(rq, params, msg, sizeof msg)) {
        http_rpc_error(k, 400, id, -32020, msg, NULL);
    } else if (!modern_method(method) || (!strcmp(method, "server/discover") && (fl & F_NODISCOVER))) {
        http_rpc_error(k, 404, id, -32601, "Method not found", NULL);
    } else if ((fl & F_LISTFAIL) && !strcmp(method, "tools/list")) {
        http_rpc_error(k, 500, id, -32603, "Internal error: the tool list is unavailable", NULL);
    } else {
        const char *p, *q;
        int missing = 0;
        buf_str(&b, "{\"requiredCapabilities\":{");
        for (p = need = caps_needed(method, params); p && *p; p = *q ? q + 1 : q) {
            char one[32];
            q = strchr(p, ',');
            if (!q) q = p + strlen(p);
            snprintf(one, sizeof one, "%.*s", (int)(q - p), p);
            if (!mcp_json_get(caps, one)) buf_fmt(&b, "%s\"%s\":{}", missing++ ? "," : "", one);
        }
        buf_str(&b, "}}");
        buf_add(&b, "", 1);
        if (missing) {
            http_rpc_error(k, 400, id, -32021, "Missing required client capability", b.data);
        } else {
            fill_ctx(&x, k, rq, NULL, fl);
            x.meta = meta; x.id = id;
            st = stream_new(S_POST, NULL, k, fl);
            st->modern = 1; st->ids = st->resumable = 0;   /* no event ids, no resuming */
            st->rid = xstrdup(id);
            x.stream = st->id;
            if (!(fl & F_SSE) && !wants_stream_modern(method, params)) st->json = 1;
            else sse_head(k, st, NULL);
            exec_count(method);
            handle_modern(&x, method, params);
        }
    }
    free(id);
    mcp_buf_free(&b);
    mcp_buf_free(&dv);
}

/* Pages of the html503 and html502 flags: what a proxy or a maintenance page sends. */
static const char page503[] = "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
    "<title>Down for maintenance</title>\n<style>body { font: 16px sans-serif; }</style>\n</head>\n<body>\n"
    "<h1>Back soon</h1>\n<p>The service is being upgraded &amp; returns shortly.</p>\n</body>\n</html>\n";
static const char page502[] = "<html>\n<body>\n<h1>The gateway got no answer upstream</h1>\n<p>Try again "
    "later.</p>\n</body>\n</html>\n";

/* A JSON-RPC request (read whole) that the flags say to mistreat: reset_after_read (and
   /debug/arm_reset) on a connection that served a request already: counted as executed,
   then the connection is reset (RST: SO_LINGER 0), no answer; html503 / html502: an HTML
   error page; cutchunk: an SSE answer whose first chunk promises 1024 bytes, 40 come, then
   the connection closes. 1 if it did (the request is done with), 0 to go on normally. */
static int misbehave(conn *k, flags_t fl, const char *method)
{
    if (k->nreq > 1 && ((fl & F_RESET) || reset_armed > 0)) {
        struct linger lg;
        if (!(fl & F_RESET)) reset_armed--;
        exec_count(method);
        stats.resets++;
        log_status(k, -2);
        lg.l_onoff = 1; lg.l_linger = 0;
        setsockopt(k->fd, SOL_SOCKET, SO_LINGER, &lg, sizeof lg);
        conn_close(k);
        return 1;
    }
    if (fl & F_HTML503) {
        respond(k, 503, "Service Unavailable", "text/html; charset=utf-8", NULL, page503, sizeof page503 - 1, 0);
        done_response(k);
        return 1;
    }
    if (fl & F_HTML502) {
        respond(k, 502, "Bad Gateway", "text/html", NULL, page502, sizeof page502 - 1, 0);
        done_response(k);
        return 1;
    }
    if (fl & F_CUTCHUNK) {
        head(k, 200, "OK", "text/event-stream", "Cache-Control: no-cache\r\n", 'C', 0, fl);
        out_str(k, "400\r\n");                     /* 1024 bytes promised */
        out_str(k, "event: message\ndata: {\"jsonrpc\":\"2.0\",\"id\":");
        k->close_after = 1;
        return 1;
    }
    return 0;
}

static void mcp_post(conn *k, req *rq, flags_t fl)
{
    const char *method, *sid = hdr(rq, "mcp-session-id"), *ver = hdr(rq, "mcp-protocol-version");
    int kind, is_init;
    mcp_json_doc *doc;
    const mcp_json *m, *params;
    sess *s = NULL;
    stream *st;
    ctx x;
    char extra[128], *id, *text;
    stats.posts++;
    doc = parse_body(k, rq, &fl, &method, &kind);
    if (!doc || !kind) { mcp_json_free(doc); respond_text(k, 400, "Bad Request", NULL, "Bad Request: not a JSON-RPC message"); return; }
    if (kind == 'R' && misbehave(k, fl, method)) { mcp_json_free(doc); return; }
    m = mcp_json_root(doc);
    params = mcp_json_get(m, "params");
    if (era == ERA_MODERN || (era == ERA_DUAL && is_modern_request(rq, m))) {
        modern_post(k, rq, fl, m, method, kind);
        mcp_json_free(doc);
        return;
    }
    is_init = kind == 'R' && !strcmp(method, "initialize");
    if (!is_init && !sid && !(fl & F_NOSESSION) && (fl & (F_PROBE404 | F_PROBE405 | F_PROBEJSON | F_PROBE200))) {
        if (fl & F_PROBE200) {                             /* HTTP 200, and -32601 inside */
            char *rid = dump(mcp_json_get(m, "id"));
            mcp_buf b = {0};
            buf_fmt(&b, "{\"jsonrpc\":\"2.0\",\"id\":%s,\"error\":{\"code\":-32601,\"message\":\"Method not found\"}}", rid);
            respond(k, 200, "OK", "application/json", NULL, b.data, b.len, 0);
            done_response(k);
            mcp_buf_free(&b);
            free(rid);
            mcp_json_free(doc);
            return;
        }
        mcp_json_free(doc);                                /* how some legacy servers refuse it */
        if (fl & F_PROBE404) respond_text(k, 404, "Not Found", NULL, "Not Found");
        else if (fl & F_PROBE405) respond_text(k, 405, "Method Not Allowed", "Allow: GET, DELETE\r\n", "Method Not Allowed");
        else {
            static const char b[] = "{\"jsonrpc\":\"2.0\",\"error\":{\"code\":-32000,\"message\":\"Bad Request: "
                                    "Server not initialized\"},\"id\":null}";
            respond(k, 400, "Bad Request", "application/json", NULL, b, sizeof b - 1, 0);
            done_response(k);
        }
        return;
    }
    if (fl & F_NOSESSION) s = &nosession;
    else if (is_init) s = sess_new(0);
    else if (!sid) { mcp_json_free(doc); respond_text(k, 400, "Bad Request", NULL, "Bad Request: Mcp-Session-Id header is required"); return; }
    else if (!(s = sess_find(sid)) || s->legacy) { mcp_json_free(doc); respond_text(k, 404, "Not Found", NULL, "Session not found"); return; }
    if (ver && !version_known(ver)) {
        mcp_json_free(doc);
        respond_text(k, 400, "Bad Request", NULL, "Bad Request: Unsupported protocol version");
        return;
    }
    if (!is_init && s->inited && strcmp(s->version, "2025-06-18") >= 0 && (!ver || strcmp(ver, s->version))) {
        mcp_json_free(doc);
        respond_text(k, 400, "Bad Request", NULL, "Bad Request: MCP-Protocol-Version must be the negotiated version");
        return;
    }
    if (kind != 'R') {                                     /* a notification or a response: 202 */
        text = dump(m);
        if (kind == 'N') history_add(text);
        respond(k, 202, "Accepted", NULL, NULL, "", 0, 0);
        done_response(k);
        if (kind == 'A') handle_reply(m, text);
        free(text);
        mcp_json_free(doc);
        return;
    }
    fill_ctx(&x, k, rq, s, fl);
    id = dump(mcp_json_get(m, "id"));
    x.id = id;
    st = stream_new(S_POST, s, k, fl);
    x.stream = st->id;
    extra[0] = 0;
    if (is_init && !(fl & F_NOSESSION)) snprintf(extra, sizeof extra, "Mcp-Session-Id: %s\r\n", s->sid);
    if (!(fl & (F_SSE | F_DROP | F_DROPNOID)) && !wants_stream(method, params)) {
        st->json = 1;
        if (extra[0]) st->extra = xstrdup(extra);
    } else {
        sse_head(k, st, extra[0] ? extra : NULL);
        if (fl & F_DROPNOID) {                                 /* the head, then gone: no id, no answer */
            st->ids = st->resumable = 0;
            stats.drops++;
            k->close_after = 1;
            k->stream = 0; st->conn = 0;
            k->busy = 1;
        } else if (fl & (F_PRIME | F_DROP)) {
            char f[32];
            snprintf(f, sizeof f, "retry: %d\n", retry_ms);
            stream_event(st, (fl & F_DROP) ? f : NULL, NULL, 0, 0);
            if (fl & F_DROP) {                                 /* the connection goes, the stream stays */
                stats.drops++;
                st->flags &= ~(flags_t)F_DROP;
                k->close_after = 1;
                k->stream = 0; st->conn = 0;
            }
        }
    }
    exec_count(method);
    handle_request(&x, method, params);
    if ((st = stream_get(x.stream)) != NULL && !st->conn && !st->resumable) stream_free(st);   /* dropnoid */
    free(id);
    mcp_json_free(doc);
}

static void mcp_get(conn *k, req *rq, flags_t fl)
{
    const char *sid = hdr(rq, "mcp-session-id"), *lei = hdr(rq, "last-event-id");
    sess *s = NULL;
    stream *st;
    int sn = 0, en = 0, i;
    stats.gets++;
    if (!(fl & F_NOSESSION)) {
        if (!sid) { respond_text(k, 400, "Bad Request", NULL, "Bad Request: Mcp-Session-Id header is required"); return; }
        if (!(s = sess_find(sid)) || s->legacy) { respond_text(k, 404, "Not Found", NULL, "Session not found"); return; }
    } else s = &nosession;
    if (lei) {                                                 /* resumption */
        if (sscanf(lei, "%d-%d", &sn, &en) != 2 || !(st = stream_get(sn)) || st->kind != S_POST || !st->resumable ||
            st->s != s) {
            respond_text(k, 404, "Not Found", NULL, "Unknown Last-Event-ID");
            return;
        }
        stats.resumes++;
        if (st->conn) { conn *old = conn_get(st->conn); st->conn = 0; if (old) { old->stream = 0; conn_close(old); } }
        st->conn = k->id; k->stream = st->id;
        st->flags = (st->flags & ~(flags_t)(F_DROP | F_DROPNOID)) | (fl & F_DRIP);
        sse_head(k, st, NULL);
        for (i = en; i < st->nkept; i++)
            sse_write(k, st, st->kept.data + st->kept_at[i], strlen(st->kept.data + st->kept_at[i]));
        if (st->done) { sse_end(k, st); stream_free(st); }
        return;
    }
    if (fl & F_NOGET) { respond_text(k, 405, "Method Not Allowed", "Allow: POST, DELETE\r\n", "Method Not Allowed"); return; }
    if (s->listener) { respond_text(k, 409, "Conflict", NULL, "Conflict: the session has a listener stream already"); return; }
    st = stream_new(S_LISTEN, s, k, fl & ~(flags_t)(F_DROP | F_DROPNOID));
    s->listener = st->id;
    sse_head(k, st, NULL);
}

static void mcp_delete(conn *k, req *rq, flags_t fl)
{
    const char *sid = hdr(rq, "mcp-session-id");
    sess *s;
    stats.deletes++;
    if (fl & F_NODELETE) { respond_text(k, 405, "Method Not Allowed", "Allow: POST, GET\r\n", "Method Not Allowed"); return; }
    if (!sid) { respond_text(k, 400, "Bad Request", NULL, "Bad Request: Mcp-Session-Id header is required"); return; }
    if (!(s = sess_find(sid)) || s->legacy) { respond_text(k, 404, "Not Found", NULL, "Session not found"); return; }
    sess_forget(s);
    respond(k, 200, "OK", NULL, NULL, "", 0, 0);
    done_response(k);
}

static void legacy_get(conn *k, flags_t fl)
{
    sess *s = sess_new(1);
    stream *st = stream_new(S_LEGACY, s, k, fl & ~(flags_t)(F_DROP | F_DROPNOID));
    char ep[200];
    stats.sse_gets++;
    s->stream = st->id;
    sse_head(k, st, NULL);
    if (fl & F_CROSS) snprintf(ep, sizeof ep, "http://evil.example:%d/messages?session=%s", port, s->sid);
    else if (fl & F_ABSEP) snprintf(ep, sizeof ep, "http://127.0.0.1:%d/messages?session=%s", port, s->sid);
    else snprintf(ep, sizeof ep, "/messages?session=%s", s->sid);
    stream_event(st, "event: endpoint\n", ep, strlen(ep), 0);
}

static void legacy_post(conn *k, req *rq, flags_t fl)
{
    const char *method, *q = rq->query;
    char sid[64];
    int kind;
    sess *s;
    mcp_json_doc *doc;
    const mcp_json *m;
    ctx x;
    char *id, *text;
    stats.posts++;
    sid[0] = 0;
    if (q && !strncmp(q, "session=", 8)) snprintf(sid, sizeof sid, "%s", q + 8);
    if (!(s = sess_find(sid)) || !s->legacy || !s->stream) { respond_text(k, 404, "Not Found", NULL, "Could not find session"); return; }
    doc = parse_body(k, rq, &fl, &method, &kind);
    if (!doc || !kind) { mcp_json_free(doc); respond_text(k, 400, "Bad Request", NULL, "Bad Request: not a JSON-RPC message"); return; }
    m = mcp_json_root(doc);
    respond(k, 202, "Accepted", "text/plain", NULL, "Accepted", 8, 0);
    done_response(k);
    text = dump(m);
    if (kind == 'N') history_add(text);
    else if (kind == 'A') handle_reply(m, text);
    else {
        fill_ctx(&x, k, rq, s, fl);
        id = dump(mcp_json_get(m, "id"));
        x.id = id;
        x.stream = s->stream;
        if (!s->inited && strcmp(method, "initialize") && strcmp(method, "ping"))
            send_error(x.stream, id, -32600, "Session not initialized: send initialize first");
        else { exec_count(method); handle_request(&x, method, mcp_json_get(m, "params")); }
        free(id);
    }
    free(text);
    mcp_json_free(doc);
}

/* A POST refused before its body is looked at: its JSON-RPC method still goes in the log. */
static void log_body(conn *k, const req *rq)
{
    flags_t fl = 0;
    const char *method;
    int kind;
    if (!strcmp(rq->method, "POST")) mcp_json_free(parse_body(k, rq, &fl, &method, &kind));
}

/* The redirecting paths: /hop/N answers 307 to /hop/N-1, /hop/0 to /mcp (N + 1 hops in all);
   /moved 301 to http://127.0.0.1:PORT/mcp; /cross 307 to --other's URL; /mcp with redir307 or
   redir308 that status to /mcp/ (relative). The request's body is read and logged, no more. */
static void redirect(conn *k, const req *rq, flags_t fl)
{
    char loc[300], extra[320];
    int status = 307;
    const char *reason = "Temporary Redirect";
    log_body(k, rq);
    if (!strncmp(rq->path, "/hop/", 5)) {
        int n = atoi(rq->path + 5);
        if (n > 0) snprintf(loc, sizeof loc, "/hop/%d", n - 1);
        else snprintf(loc, sizeof loc, "/mcp");
    } else if (!strcmp(rq->path, "/moved")) {
        status = 301; reason = "Moved Permanently";
        snprintf(loc, sizeof loc, "http://127.0.0.1:%d/mcp", port);
    } else if (!strcmp(rq->path, "/cross")) {
        if (!other_url) { respond_text(k, 404, "Not Found", NULL, "Not Found: the server has no --other URL"); return; }
        snprintf(loc, sizeof loc, "%.290s", other_url);
    } else {
        if (fl & F_REDIR308) { status = 308; reason = "Permanent Redirect"; }
        snprintf(loc, sizeof loc, "/mcp/");
    }
    stats.redirects++;
    snprintf(extra, sizeof extra, "Location: %s\r\n", loc);
    respond_text(k, status, reason, extra, "See the Location header.");
}

static void handle_http(conn *k, req *rq)
{
    const char *mode = hdr(rq, "x-test-mode"), *origin = hdr(rq, "origin"), *auth = hdr(rq, "authorization");
    flags_t fl = srv_flags | parse_flags(mode, mode ? strlen(mode) : 0);
    k->nreq++;
    k->idle_at = 0;
    if (!strncmp(rq->target, "/debug/", 7)) { debug_request(k, rq); return; }
    if (!k->mcp) {
        k->mcp = 1;
        stats.conns++;
        if (++stats.open > stats.max_open) stats.max_open = stats.open;
    }
    stats.requests++;
    k->flags = fl;
    k->busy = 1;
    log_request(k, rq, fl);
    if (rq->close) k->close_after = 1;
    if ((fl & F_RACY) && k->nreq > 1) {                   /* closed as the request arrived */
        stats.racy++;
        log_status(k, -1);
        conn_close(k);
        return;
    }
    if (fl & F_HANG) return;                              /* busy for ever */
    if (origin && strncmp(origin, "http://127.0.0.1", 16) && strncmp(origin, "http://localhost", 16)) {
        respond_text(k, 403, "Forbidden", NULL, "Forbidden: bad Origin");
        return;
    }
    if ((fl & F_AUTH) && (!auth || strcmp(auth, "Bearer good-token"))) {
        char extra[300];
        snprintf(extra, sizeof extra, "WWW-Authenticate: Bearer resource_metadata=\"http://127.0.0.1:%d/.well-known/"
                 "oauth-protected-resource\"\r\nMcp-Auth-Server: http://127.0.0.1:%d/auth\r\n", port, port);
        respond_text(k, 401, "Unauthorized", extra, "Unauthorized: a valid bearer token is required");
        return;
    }
    rq->path = rq->target;
    if (rq->query) rq->query[-1] = 0;
    if (!strncmp(rq->path, "/hop/", 5) || !strcmp(rq->path, "/moved") || !strcmp(rq->path, "/cross") ||
        ((fl & (F_REDIR307 | F_REDIR308)) && !strcmp(rq->path, "/mcp"))) {
        redirect(k, rq, fl);
        return;
    }
    if (!strcmp(rq->path, "/mcp/")) rq->path[4] = 0;      /* the endpoint is there too */
    if (!strcmp(rq->path, "/mcp")) {
        if ((fl & F_SSEONLY) && era == ERA_LEGACY) {         /* an HTTP+SSE server on this URL */
            if (!strcmp(rq->method, "GET") && (fl & F_NOGET))        /* ... that refuses its stream */
                respond_text(k, 403, "Forbidden", NULL, "the event stream is refused");
            else if (!strcmp(rq->method, "GET")) legacy_get(k, fl);
            else { log_body(k, rq); respond_text(k, 405, "Method Not Allowed", "Allow: GET\r\n", "Method Not Allowed"); }
        } else if (era == ERA_MODERN && strcmp(rq->method, "POST")) {   /* no GET stream, no sessions */
            respond_text(k, 405, "Method Not Allowed", "Allow: POST\r\n", "Method Not Allowed");
        } else if (!strcmp(rq->method, "POST")) mcp_post(k, rq, fl);
        else if (!strcmp(rq->method, "GET")) mcp_get(k, rq, fl);
        else if (!strcmp(rq->method, "DELETE")) mcp_delete(k, rq, fl);
        else respond_text(k, 405, "Method Not Allowed", "Allow: POST, GET, DELETE\r\n", "Method Not Allowed");
    } else if (era != ERA_MODERN && !strcmp(rq->path, "/sse") && !strcmp(rq->method, "GET")) {
        legacy_get(k, fl);
    } else if (era != ERA_MODERN && !strcmp(rq->path, "/messages") && !strcmp(rq->method, "POST")) {
        legacy_post(k, rq, fl);
    } else {
        log_body(k, rq);
        respond_text(k, 404, "Not Found", NULL, "Not Found");
    }
}

/* Answers the complete requests buffered on k, in order, while it is free for them. */
static void conn_process(conn *k)
{
    req rq;
    int r;
    while (!k->dead && !k->busy && !k->close_after && k->in.len) {
        r = parse_req(k, &rq);
        if (r == 0) { free(rq.head); break; }
        if (r != 1) { free(rq.head); refuse(k, r); break; }
        if (capture_armed && !strncmp(rq.target, "/mcp", 4) && rq.blen && find(rq.body, rq.blen, "\"tools/call\"", 12)) {
            capture_armed = 0;
            cap_req.len = cap_resp.len = 0;
            buf_add(&cap_req, k->in.data, rq.total);
            k->capture = 1;
        }
        handle_http(k, &rq);
        free(rq.head);
        if (!k->dead) {
            memmove(k->in.data, k->in.data + rq.total, k->in.len - rq.total);
            k->in.len -= rq.total;
        }
    }
}

static void conn_read(conn *k)
{
    ssize_t r;
    for (;;) {                                /* straight into k->in: 64 KiB at a time */
        if (mcp_buf_reserve(&k->in, 65536) != MCP_OK) die("out of memory");
        r = recv(k->fd, k->in.data + k->in.len, 65536, 0);
        if (r > 0) {
            k->in.len += (size_t)r;
            if (r < 65536) break;
            continue;
        }
        if (r < 0 && errno == EINTR) continue;
        if (r < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) break;
        conn_process(k);                      /* EOF or an error: the client is gone */
        if (!k->dead) conn_flush(k);
        conn_close(k);
        return;
    }
    if (k->in.len > (96u << 20)) { conn_close(k); return; }
    conn_process(k);
}

/* ---- the loop ----------------------------------------------------------------------------------- */

static void on_signal(int sig) { (void)sig; stop_now = 1; }

static int listen_on(int want)
{
    struct sockaddr_in a;
    socklen_t l = sizeof a;
    int fd = socket(AF_INET, SOCK_STREAM, 0), one = 1;
    if (fd < 0) die("socket");
    fcntl(fd, F_SETFD, FD_CLOEXEC);
    setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
    memset(&a, 0, sizeof a);
    a.sin_family = AF_INET;
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    a.sin_port = htons((unsigned short)want);
    if (bind(fd, (struct sockaddr *)&a, sizeof a) < 0) die("bind");
    if (listen(fd, 128) < 0) die("listen");
    if (getsockname(fd, (struct sockaddr *)&a, &l) < 0) die("getsockname");
    port = ntohs(a.sin_port);
    fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK);
    return fd;
}

static void accept_all(int lfd)
{
    int fd, one = 1;
    conn *k;
    for (;;) {
        fd = accept(lfd, NULL, NULL);
        if (fd < 0) { if (errno == EINTR) continue; return; }
        if (nconns >= 1000) { close(fd); continue; }
        fcntl(fd, F_SETFD, FD_CLOEXEC);
        fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK);
        setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
        k = (conn *)calloc(1, sizeof *k);
        if (!k) die("calloc");
        k->fd = fd; k->id = next_conn_id++; k->logi = -1;
        k->next = conns; conns = k;
        nconns++;
    }
}

static void sweep(void)
{
    conn **pp = &conns, *k;
    while ((k = *pp) != NULL) {
        if (!k->dead) { pp = &k->next; continue; }
        *pp = k->next;
        mcp_buf_free(&k->in); mcp_buf_free(&k->out);
        free(k);
        nconns--;
    }
}

int main(int argc, char **argv)
{
    static struct pollfd pf[1100];
    static conn *pk[1100];
    struct sigaction sa;
    int lfd, i, n, want = 0, timeout, stdin_open = 1;
    int64_t now, due;
    conn *k;
    item *it;
    for (i = 1; i < argc; i++) {
        if (!strncmp(argv[i], "--mode=", 7)) srv_flags |= parse_flags(argv[i] + 7, strlen(argv[i] + 7));
        else if (!strncmp(argv[i], "--retry=", 8)) retry_ms = atoi(argv[i] + 8);
        else if (!strncmp(argv[i], "--idle-ms=", 10)) idle_ms = atoi(argv[i] + 10);
        else if (!strncmp(argv[i], "--version=", 10)) force_version = argv[i] + 10;
        else if (!strncmp(argv[i], "--other=", 8)) other_url = argv[i] + 8;
        else if (!strcmp(argv[i], "--era=modern")) era = ERA_MODERN;
        else if (!strcmp(argv[i], "--era=dual")) era = ERA_DUAL;
        else if (!strcmp(argv[i], "--era=legacy")) era = ERA_LEGACY;
        else if (!strncmp(argv[i], "--refuse-first=", 15)) refuse_first = atoi(argv[i] + 15);
        else if (!strncmp(argv[i], "--supported=", 12)) {
            const char *p = argv[i] + 12, *q;
            for (; *p && nsupported < 8; p = *q ? q + 1 : q) {
                q = strchr(p, ',');
                if (!q) q = p + strlen(p);
                snprintf(supported[nsupported++], sizeof supported[0], "%.*s", (int)(q - p), p);
            }
        }
        else if (argv[i][0] >= '0' && argv[i][0] <= '9') want = atoi(argv[i]);
        else { fprintf(stderr, "http_server: unknown argument %s\n", argv[i]); return 2; }
    }
    if (!nsupported) snprintf(supported[nsupported++], sizeof supported[0], "2026-07-28");
    {   /* a client test may lower its own fd limit before starting us: we need ~1,000 */
        struct rlimit rl;
        if (!getrlimit(RLIMIT_NOFILE, &rl) && rl.rlim_cur < 2048 && rl.rlim_cur < rl.rlim_max) {
            rl.rlim_cur = rl.rlim_max < 2048 ? rl.rlim_max : 2048;
            setrlimit(RLIMIT_NOFILE, &rl);
        }
    }
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_signal;
    sigaction(SIGTERM, &sa, NULL);
    sigaction(SIGINT, &sa, NULL);
    signal(SIGPIPE, SIG_IGN);
    t_start = mcp_time_ms();
    snprintf(nosession.version, sizeof nosession.version, "%s", "");
    lfd = listen_on(want);
    printf("PORT %d\n", port);
    fflush(stdout);
    while (!stop_now) {
        now = mcp_time_ms();
        n = 0;
        pf[n].fd = lfd; pf[n].events = POLLIN; pk[n++] = NULL;
        if (stdin_open) { pf[n].fd = 0; pf[n].events = POLLIN; pk[n++] = NULL; }
        due = -1;
        for (k = conns; k; k = k->next) {
            if (k->dead) continue;
            pf[n].fd = k->fd;
            pf[n].events = POLLIN;
            if (k->off < k->out.len) {
                if (!k->drip || k->next_drip <= now) pf[n].events |= POLLOUT;
                else if (due < 0 || k->next_drip < due) due = k->next_drip;
            }
            if (k->idle_at && (due < 0 || k->idle_at < due)) due = k->idle_at;
            pk[n++] = k;
        }
        for (it = items; it; it = it->next)
            if (it->due >= 0 && (due < 0 || it->due < due)) due = it->due;
        timeout = due < 0 ? -1 : due <= now ? 0 : (int)(due - now);
        for (i = 0; i < n; i++) pf[i].revents = 0;
        if (poll(pf, (nfds_t)n, timeout) < 0 && errno != EINTR) die("poll");
        if (stop_now) break;
        for (i = 0; i < n; i++) {
            if (!pf[i].revents) continue;
            if (pf[i].fd == lfd && !pk[i]) accept_all(lfd);
            else if (pf[i].fd == 0 && !pk[i]) {
                char b[256];
                ssize_t r = read(0, b, sizeof b);
                if (r == 0 || (r < 0 && errno != EINTR && errno != EAGAIN)) { stop_now = 1; stdin_open = 0; }
            } else if ((k = pk[i]) != NULL && !k->dead) {
                if (pf[i].revents & (POLLIN | POLLHUP | POLLERR)) conn_read(k);
                if (!k->dead && (pf[i].revents & POLLOUT)) conn_flush(k);
            }
        }
        now = mcp_time_ms();
        run_items(now);
        for (k = conns; k; k = k->next) {
            if (k->dead) continue;
            if (k->idle_at && k->idle_at <= now && !k->busy && k->off >= k->out.len && !k->in.len) { conn_close(k); continue; }
            if (k->off < k->out.len) conn_flush(k);
            if (!k->dead && !k->busy && k->in.len) { conn_process(k); if (!k->dead) conn_flush(k); }
        }
        sweep();
    }
    for (k = conns; k; k = k->next) conn_close(k);
    sweep();
    while (streams) stream_free(streams);
    while (sessions) sess_forget(sessions);
    while (items) item_free(items);
    mcp_buf_free(&history); mcp_buf_free(&cap_req); mcp_buf_free(&cap_resp); mcp_buf_free(&cancels);
    close(lfd);
    return 0;
}
