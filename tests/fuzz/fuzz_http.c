/* libFuzzer target for the HTTP/1.1 response parser (>>http), make fuzz.

   Input: [settings][max_head][split][stream...]
     settings  bit 0: head_request; bits 1-7: max_headers (0: the default, 100);
     max_head  0: the default (64 KiB), else twice that many bytes (2..510), so the head,
               header-count and trailer limits are fuzzed too;
     split     how the stream is cut into pieces (see plan());
     stream    the bytes the server sent: responses back to back.
   The stream is fed whole, then in the pieces the split byte chooses, then (when it is at most
   1024 bytes) one byte at a time; each run renders an event log and the logs must be
   identical. The log has each response's head (status, version, reason, framing,
   Content-Length, keep_alive, every header), its body (BODY pieces joined: how a body is cut
   depends on how it was fed), END with keep_alive, a feed error with its `what`, and what
   finish said at the end of the stream. When bytes follow an END, the driver checks that they
   are not consumed, calls mcp_http_resp_reset and parses the next response from them.
   Every piece is a malloc'd copy of exactly its bytes, freed once fed, so ASan reports a read
   past a piece or a pointer kept into it. The feed/next/finish contract is checked on every
   call (AGAIN takes every byte, OK leaves an event, BODY points into the bytes that feed
   consumed, errors are sticky, every header is found again by name in any case); any breach
   or difference aborts, which libFuzzer reports as a crash. */
#define MCP_IMPLEMENTATION
#include "../../mcp.h"
#define FEED_FUZZ
#include "../feed.h"
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "fuzz.h"

int LLVMFuzzerTestOneInput(const unsigned char *data, size_t size);

#define NAME "fuzz_http"
#define ONE_BYTE_MAX 1024      /* streams up to this long are also fed one byte at a time */

/* ---- the driver ----------------------------------------------------------------------------- */

typedef struct opts { int head_request; size_t max_head, max_headers; } opts;

typedef struct state {
    mcp_buf *log, body;        /* body: the BODY bytes since the last item */
    int heads, ended;          /* of the current response */
} state;

static void flush_body(state *s)
{
    if (!s->body.len) return;
    lg_item(s->log); lg(s->log, "BODY "); lg_q(s->log, s->body.data, s->body.len);
    s->body.len = 0;
}

static int lower(int c) { return c >= 'A' && c <= 'Z' ? c + 32 : c; }

static int ieq(const char *a, const char *b)
{
    for (; *a && *b; a++, b++) if (lower((unsigned char)*a) != lower((unsigned char)*b)) return 0;
    return *a == *b;
}

static void log_head(const mcp_http_resp *r, mcp_buf *log)
{
    size_t i, j, k, nth, n = mcp_http_resp_header_count(r);
    const char *name, *value;
    char lo[128], up[128];
    lg_item(log);
    lg(log, "HEAD %d v%d ", r->status, r->version);
    REQUIRE(r->reason != NULL);
    lg_q(log, r->reason, strlen(r->reason));
    REQUIRE(r->status >= 100 && r->status <= 599 && (r->version == 10 || r->version == 11));
    switch (r->framing) {
    case MCP_HTTP_NO_BODY: lg(log, " none"); break;
    case MCP_HTTP_LENGTH:
        REQUIRE(r->content_length > 0);
        lg(log, " length=%llu", (unsigned long long)r->content_length);
        break;
    case MCP_HTTP_CHUNKED: lg(log, " chunked"); break;
    case MCP_HTTP_UNTIL_CLOSE: lg(log, " close"); break;
    default: REQUIRE(!"a framing outside the enum");
    }
    REQUIRE(r->keep_alive == 0 || r->keep_alive == 1);
    lg(log, " ka=%d", r->keep_alive);
    for (i = 0; i < n; i++) {
        name = mcp_http_resp_header_at(r, i, &value);
        REQUIRE(name != NULL && value != NULL && name[0] != 0);
        lg(log, " "); lg_q(log, name, strlen(name)); lg(log, ":"); lg_q(log, value, strlen(value));
        /* found again by name, lower and upper case, as the nth header of that name */
        for (nth = 0, j = 0; j < i; j++) nth += ieq(mcp_http_resp_header_at(r, j, NULL), name);
        for (k = 0; name[k] && k < sizeof lo - 1; k++) {
            lo[k] = (char)lower((unsigned char)name[k]);
            up[k] = (char)(lo[k] >= 'a' && lo[k] <= 'z' ? lo[k] - 32 : lo[k]);
        }
        lo[k] = up[k] = 0;
        if (name[k]) continue;                 /* too long for the buffers: not looked up */
        REQUIRE(mcp_http_resp_header(r, lo, nth) == value && mcp_http_resp_header(r, up, nth) == value);
    }
    REQUIRE(mcp_http_resp_header_at(r, n, &value) == NULL && value == NULL);
}

/* Takes every waiting event; BODY must lie in [lo, hi), the bytes the last feed consumed. */
static size_t drain(mcp_http_resp *r, state *s, const char *lo, const char *hi, mcp_status after)
{
    mcp_http_event ev;
    mcp_status st;
    size_t got = 0;
    while ((st = mcp_http_resp_next(r, &ev)) == MCP_OK) {
        got++;
        REQUIRE(!s->ended);                    /* nothing after END */
        switch (ev.type) {
        case MCP_HTTP_HEAD:
            REQUIRE(s->heads++ == 0);
            log_head(r, s->log);
            break;
        case MCP_HTTP_BODY:
            REQUIRE(s->heads == 1 && ev.data != NULL && ev.len > 0);
            REQUIRE(ev.data >= lo && ev.data + ev.len <= hi);
            lg_raw(&s->body, ev.data, ev.len);
            break;
        case MCP_HTTP_END:
            REQUIRE(s->heads == 1);
            flush_body(s);
            lg_item(s->log); lg(s->log, "END ka=%d", r->keep_alive);
            s->ended = 1;
            break;
        default:
            REQUIRE(!"an event type outside the enum");
        }
        REQUIRE(got <= 3);
    }
    REQUIRE(st == after && ev.type == 0 && ev.data == NULL && ev.len == 0);
    return got;
}

/* After an error: it is sticky for feed, next and finish, and `what` says it. */
static void sticky(mcp_http_resp *r, mcp_status st)
{
    size_t used = 99;
    mcp_http_event ev;
    REQUIRE(mcp_http_resp_feed(r, "HTTP/1.1 200 OK\r\n\r\n", 19, &used) == st && used == 0);
    REQUIRE(mcp_http_resp_next(r, &ev) == st);
    REQUIRE(mcp_http_resp_finish(r) == st);
    REQUIRE(r->what != NULL && r->what[0] != 0);
}

static void log_err(mcp_buf *log, const char *what_kind, mcp_status st, const mcp_http_resp *r)
{
    lg_item(log); lg(log, "%s %s ", what_kind, sname(st));
    lg_q(log, r->what ? r->what : "", r->what ? strlen(r->what) : 0);
}

static void run(const opts *o, const unsigned char *in, const piece *pc, size_t np, mcp_buf *log)
{
    mcp_http_resp r;
    mcp_status st;
    state s;
    size_t i, got;
    memset(&r, 0, sizeof r);
    memset(&s, 0, sizeof s);
    s.log = log;
    r.head_request = o->head_request; r.max_head = o->max_head; r.max_headers = o->max_headers;
    for (i = 0; i < np; i++) {
        size_t off = 0, len = pc[i].len;
        char *d = (char *)malloc(len ? len : 1);
        int first = 1;
        REQUIRE(d != NULL);
        if (len) memcpy(d, in + pc[i].off, len);
        while (off < len || first) {                   /* an empty piece is fed once too */
            size_t used = (size_t)-1;
            first = 0;
            if (s.ended) {
                if (off == len) break;
                /* bytes after END are not consumed; they start the next response */
                st = mcp_http_resp_feed(&r, d + off, len - off, &used);
                REQUIRE(st >= 0 && used == 0);
                drain(&r, &s, NULL, NULL, MCP_AGAIN);
                REQUIRE(mcp_http_resp_finish(&r) == MCP_OK);
                mcp_http_resp_reset(&r);
                REQUIRE(r.head_request == o->head_request && r.max_head == o->max_head &&
                        r.max_headers == o->max_headers && r.what == NULL && r.status == 0 &&
                        mcp_http_resp_header_count(&r) == 0);
                s.heads = s.ended = 0;
                lg_item(log); lg(log, "NEXT");
                continue;
            }
            st = mcp_http_resp_feed(&r, d + off, len - off, &used);
            REQUIRE(used <= len - off);
            off += used;
            if (st < 0) {
                flush_body(&s);
                log_err(log, "ERR", st, &r);
                sticky(&r, st);
                free(d);
                goto out;
            }
            REQUIRE(st == MCP_OK || st == MCP_AGAIN);
            got = drain(&r, &s, d + off - used, d + off, MCP_AGAIN);
            if (st == MCP_AGAIN) REQUIRE(off == len && got == 0);
            else REQUIRE(got > 0);
        }
        free(d);                                       /* the parser must not keep pointers into it */
    }
    st = mcp_http_resp_finish(&r);
    if (st == MCP_OK) {
        drain(&r, &s, NULL, NULL, MCP_AGAIN);          /* END of a body read until close */
        REQUIRE(s.ended);
        flush_body(&s);
        lg_item(log); lg(log, "FIN ok");
    } else {
        REQUIRE(st == MCP_ERR_PARSE || st == MCP_ERR_CLOSED);
        REQUIRE(!s.ended);
        drain(&r, &s, NULL, NULL, st);
        flush_body(&s);
        log_err(log, "FIN", st, &r);
        sticky(&r, st);
    }
out:
    mcp_http_resp_free(&r);
    mcp_http_resp_free(&r);                            /* free twice is harmless */
    mcp_buf_free(&s.body);
}

static void differ(const char *mode, const unsigned char *hdr, const char *got, const char *want)
{
    fprintf(stderr, NAME ": the log differs when fed %s (settings 0x%02x, max_head 0x%02x, "
            "split 0x%02x)\n   got: %.3000s\n  want: %.3000s\n", mode, hdr[0], hdr[1], hdr[2], got, want);
    abort();
}

int LLVMFuzzerTestOneInput(const unsigned char *data, size_t size)
{
    const unsigned char *in;
    size_t n, np, i;
    piece *pc;
    mcp_buf want = {0}, got = {0};
    opts o;
    if (size < 3) return 0;
    o.head_request = data[0] & 1;
    o.max_headers = data[0] >> 1;
    o.max_head = (size_t)data[1] * 2;
    in = data + 3; n = size - 3;
    pc = (piece *)malloc((2 * n + 2) * sizeof *pc);
    REQUIRE(pc != NULL);

    pc[0].off = 0; pc[0].len = n;
    run(&o, in, pc, 1, &want);
    lg_str(&want);
#ifdef FUZZ_PRINT_LOG                  /* -DFUZZ_PRINT_LOG: show each input's log */
    fprintf(stderr, "%s\n", want.data);
#endif

    np = plan(pc, in, n, data[2]);
    run(&o, in, pc, np, &got);
    if (strcmp(lg_str(&got), want.data)) differ("in the planned pieces", data, got.data, want.data);

    if (n <= ONE_BYTE_MAX && n > 1) {
        for (i = 0; i < n; i++) { pc[i].off = i; pc[i].len = 1; }
        got.len = 0;
        run(&o, in, pc, n, &got);
        if (strcmp(lg_str(&got), want.data)) differ("one byte at a time", data, got.data, want.data);
    }
    mcp_buf_free(&want);
    mcp_buf_free(&got);
    free(pc);
    return 0;
}
