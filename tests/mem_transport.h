/* A scripted in-memory transport for the client tests (include after mcp.h): no process, no
   socket. One at a time, its state is the global `mem`:
     - every send is recorded (mem.sent[]: the exact message bytes, id, headers as
       "Name: value\n" lines, MCP_SEND_* flags);
     - every abandon, resume, ready and close call is appended to mem.ops, e.g.
       "ready 2025-11-25 0;abandon 3;resume 4;close 0;";
     - the test queues what the "server" does next (mem_msg, mem_event): each is reported on
       the next io, in order; due() is 0 while something is queued (or a close is under way),
       else -1; pollfds gives none;
     - close takes mem.close_steps steps, then reports CLOSED with mem.close_text, _detail,
       _body and _server_ended, and returns 0;
     - mem.respond, when set, is called after each send is recorded (answer as requests come).
   Two tables: mem_transport (flags 0, a stdio-like pipe) and mem_transport_http
   (MCP_TRANSPORT_HTTP: 2026-07-28's headers, cancellation by closing the stream).
   mem_reset() before each client (and at the end, for valgrind). */
#ifndef MCP_TEST_MEM_TRANSPORT_H
#define MCP_TEST_MEM_TRANSPORT_H
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

typedef struct mem_sent {
    char *msg; size_t len;               /* the message as sent, 0-ended */
    int64_t id;
    char *headers;                       /* "Name: value\n" each; "" when there were none */
    unsigned how;
} mem_sent;

typedef struct mem_qev {                 /* a queued event; its texts are owned copies */
    mcp_tev ev;
    struct mem_qev *next;
} mem_qev;

typedef struct mem_state {
    mcp_client *c;                       /* from open */
    int opened, freed;
    mem_sent *sent; size_t nsent, capsent;
    char ops[4096]; size_t opslen;       /* "abandon 3;resume 4;..." */
    mem_qev *qhead, *qtail;
    int reports[64]; size_t nreports;    /* what mcp_transport_report returned, per MESSAGE */
    int closing, close_steps, close_calls;
    const char *close_text, *close_detail, *close_body;
    int close_server_ended;
    int idle_waits;                      /* io(-1) with nothing to report */
    uint64_t add_resent;                 /* stats: added to mcp_client_stats.resent */
    void (*respond)(const mem_sent *s, void *user);
    void *respond_user;
} mem_state;

static mem_state mem;

#ifdef __GNUC__
#define MEM_UNUSED __attribute__((unused))
#else
#define MEM_UNUSED
#endif

static char *mem_dup(const char *s, size_t n)
{
    char *d = (char *)malloc(n + 1);
    if (!d) { fprintf(stderr, "mem_transport: out of memory\n"); exit(2); }
    if (n) memcpy(d, s, n);
    d[n] = 0;
    return d;
}

#ifdef __GNUC__
static void mem_op(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
#endif
static void mem_op(const char *fmt, ...)
{
    va_list ap;
    int n;
    va_start(ap, fmt);
    n = vsnprintf(mem.ops + mem.opslen, sizeof mem.ops - mem.opslen, fmt, ap);
    va_end(ap);
    if (n > 0) mem.opslen += (size_t)n < sizeof mem.ops - mem.opslen ? (size_t)n : sizeof mem.ops - mem.opslen - 1;
}

MEM_UNUSED static void mem_ops_clear(void) { mem.ops[0] = 0; mem.opslen = 0; }

/* Queues an event; its texts are copied (text/body: len bytes, NULL: none). */
MEM_UNUSED static void mem_event(mcp_tev_kind kind, int64_t id, mcp_status st, const char *text)
{
    mem_qev *q = (mem_qev *)calloc(1, sizeof *q);
    if (!q) exit(2);
    q->ev.kind = kind; q->ev.id = id; q->ev.status = st;
    if (text) { q->ev.text = mem_dup(text, strlen(text)); q->ev.len = strlen(text); }
    if (mem.qtail) mem.qtail->next = q; else mem.qhead = q;
    mem.qtail = q;
}

/* The last event queued, to set its other fields (http_status, body, resumable ...). */
MEM_UNUSED static mcp_tev *mem_last_event(void) { return &mem.qtail->ev; }

MEM_UNUSED static void mem_event_body(const char *body)
{
    mcp_tev *ev = mem_last_event();
    ev->body = mem_dup(body, strlen(body)); ev->body_len = strlen(body);
}

/* A message from the server, reported for request id (-1: none in particular). */
MEM_UNUSED static void mem_msg_for(int64_t id, const char *text) { mem_event(MCP_TEV_MESSAGE, id, MCP_OK, text); }
MEM_UNUSED static void mem_msg(const char *text) { mem_msg_for(-1, text); }

static void mem_qev_free(mem_qev *q)
{
    free((char *)q->ev.text); free((char *)q->ev.body); free((char *)q->ev.detail);
    free(q);
}

static void mem_reset(void)
{
    size_t i;
    mem_qev *q, *n;
    for (i = 0; i < mem.nsent; i++) { free(mem.sent[i].msg); free(mem.sent[i].headers); }
    free(mem.sent);
    for (q = mem.qhead; q; q = n) { n = q->next; mem_qev_free(q); }
    memset(&mem, 0, sizeof mem);
}

MEM_UNUSED static const mem_sent *mem_at(size_t i) { return i < mem.nsent ? &mem.sent[i] : NULL; }
MEM_UNUSED static const mem_sent *mem_last(void) { return mem.nsent ? &mem.sent[mem.nsent - 1] : NULL; }
MEM_UNUSED static const char *mem_msg_at(size_t i) { return i < mem.nsent ? mem.sent[i].msg : "(not sent)"; }

/* ---- the operations -------------------------------------------------------------------------- */

static void *mem_open(void *user, mcp_client *c, const mcp_client_desc *d, mcp_error *err)
{
    (void)user; (void)d; (void)err;
    mem.c = c; mem.opened++;
    return &mem;
}

static mcp_status mem_send(void *t, const char *msg, size_t len, int64_t id, const char *headers, unsigned how,
                           mcp_error *err)
{
    mem_sent *s;
    char lines[2048];
    size_t n = 0, hl;
    (void)t; (void)err;
    if (mem.nsent == mem.capsent) {
        mem.capsent = mem.capsent ? 2 * mem.capsent : 16;
        mem.sent = (mem_sent *)realloc(mem.sent, mem.capsent * sizeof *mem.sent);
        if (!mem.sent) exit(2);
    }
    for (; headers && *headers && n + 2 < sizeof lines; headers += hl + 1) {   /* "a\0b\0\0" -> "a\nb\n" */
        hl = strlen(headers);
        n += (size_t)snprintf(lines + n, sizeof lines - n, "%s\n", headers);
        if (n >= sizeof lines) n = sizeof lines - 1;
    }
    lines[n] = 0;
    s = &mem.sent[mem.nsent++];
    s->msg = mem_dup(msg, len); s->len = len; s->id = id; s->how = how;
    s->headers = mem_dup(lines, n);
    if (mem.respond) mem.respond(s, mem.respond_user);
    return MCP_OK;
}

static int mem_pollfds(void *t, mcp_pollfd *fds, int max) { (void)t; (void)fds; (void)max; return 0; }

static int64_t mem_due(void *t) { (void)t; return mem.qhead || mem.closing ? 0 : -1; }

static void mem_io(void *t, int wait_ms)
{
    mem_qev *q;
    (void)t;
    if (!mem.qhead) {                    /* nothing: the wait passes (1 ms when it is endless) */
        struct timespec ts;
        if (wait_ms == 0) return;
        if (wait_ms < 0) mem.idle_waits++;
        ts.tv_sec = 0; ts.tv_nsec = (wait_ms < 0 ? 1 : wait_ms > 50 ? 50 : wait_ms) * 1000000L;
        nanosleep(&ts, NULL);
        return;
    }
    while ((q = mem.qhead) != NULL) {    /* everything queued, in order */
        int r;
        mem.qhead = q->next;
        if (!mem.qhead) mem.qtail = NULL;
        r = mcp_transport_report(mem.c, &q->ev);
        if (q->ev.kind == MCP_TEV_MESSAGE && mem.nreports < 64) mem.reports[mem.nreports++] = r;
        mem_qev_free(q);
    }
}

static void mem_abandon(void *t, int64_t id) { (void)t; mem_op("abandon %lld;", (long long)id); }
static void mem_resume(void *t, int64_t id) { (void)t; mem_op("resume %lld;", (long long)id); }
static void mem_ready(void *t, const char *version, int modern) { (void)t; mem_op("ready %s %d;", version, modern); }

static int mem_close(void *t, int now, int wait_ms)
{
    mcp_tev ev;
    (void)t; (void)wait_ms;
    mem.close_calls++;
    if (!mem.closing) { mem.closing = 1; mem_op("close %d;", now); }
    if (mem.close_steps > 0) { mem.close_steps--; return 1; }
    mem.closing = 0;
    memset(&ev, 0, sizeof ev);
    ev.kind = MCP_TEV_CLOSED; ev.id = -1; ev.status = MCP_ERR_CLOSED;
    if (mem.close_text) { ev.text = mem.close_text; ev.len = strlen(mem.close_text); }
    ev.detail = mem.close_detail;
    if (mem.close_body) { ev.body = mem.close_body; ev.body_len = strlen(mem.close_body); }
    ev.server_ended = mem.close_server_ended;
    mcp_transport_report(mem.c, &ev);
    return 0;
}

static void mem_free(void *t) { (void)t; mem.freed++; mem_op("free;"); }

static void mem_stats(void *t, mcp_client_stats *add) { (void)t; add->resent += mem.add_resent; }

static const mcp_transport mem_transport = {
    0, mem_open, mem_send, mem_pollfds, mem_due, mem_io, mem_abandon, mem_close, mem_free,
    mem_resume, mem_ready, NULL, NULL, mem_stats, NULL, NULL
};
static const mcp_transport mem_transport_http = {
    MCP_TRANSPORT_HTTP, mem_open, mem_send, mem_pollfds, mem_due, mem_io, mem_abandon, mem_close, mem_free,
    mem_resume, mem_ready, NULL, NULL, mem_stats, NULL, NULL
};

#endif
