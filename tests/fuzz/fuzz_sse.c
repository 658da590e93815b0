/* libFuzzer target for the Server-Sent Events parser (>>sse), make fuzz.

   Input: [settings][split][stream...]
     settings  max_event: 0 the default (16 MiB), else that many bytes (1..255), so the line
               and data limits are fuzzed too;
     split     how the stream is cut into pieces (see plan());
     stream    the bytes of the event stream.
   The stream is fed whole, then in the pieces the split byte chooses, then (when it is at most
   1024 bytes) one byte at a time; each run renders an event log (each event's type, data and
   id with the retry in force when it was dispatched, a feed error with its `what`, what finish
   said, the final retry and last event id), and the logs must be identical.
   Every piece is a malloc'd copy of exactly its bytes, freed once fed, so ASan reports a read
   past a piece or a pointer kept into it. The feed/next/finish contract is checked on every
   call (AGAIN takes every byte, OK leaves exactly one event, fields are NUL-terminated valid
   UTF-8, mcp_sse_last_id agrees with the event, errors are sticky); any breach or difference
   aborts, which libFuzzer reports as a crash. */
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

#define NAME "fuzz_sse"
#define ONE_BYTE_MAX 1024      /* streams up to this long are also fed one byte at a time */

/* ---- the driver ----------------------------------------------------------------------------- */

/* Is s[0..n) valid UTF-8? (what the parser's repair must produce) */
static int utf8_ok(const char *s, size_t n)
{
    const unsigned char *u = (const unsigned char *)s;
    size_t i = 0;
    while (i < n) {
        unsigned c = u[i], lo = 0x80, hi = 0xBF, need, k;
        if (c < 0x80) { i++; continue; }
        if (c >= 0xC2 && c <= 0xDF) need = 1;
        else if (c >= 0xE0 && c <= 0xEF) { need = 2; if (c == 0xE0) lo = 0xA0; if (c == 0xED) hi = 0x9F; }
        else if (c >= 0xF0 && c <= 0xF4) { need = 3; if (c == 0xF0) lo = 0x90; if (c == 0xF4) hi = 0x8F; }
        else return 0;
        for (k = 1; k <= need; k++, lo = 0x80, hi = 0xBF)
            if (i + k >= n || u[i + k] < lo || u[i + k] > hi) return 0;
        i += need + 1;
    }
    return 1;
}

static void log_retry(const mcp_sse *p, mcp_buf *log)
{
    if (p->has_retry) { REQUIRE(p->retry_ms <= 1000000000ul); lg(log, "retry=%lu", p->retry_ms); }
    else { REQUIRE(p->retry_ms == 0); lg(log, "retry=null"); }
}

/* Takes the waiting event, if any; returns how many there were (0 or 1). */
static size_t drain(mcp_sse *p, mcp_buf *log)
{
    mcp_sse_event ev;
    mcp_status st;
    size_t got = 0, idn = 99;
    const char *id;
    while ((st = mcp_sse_next(p, &ev)) == MCP_OK) {
        REQUIRE(++got == 1);                             /* one event per feed */
        REQUIRE(ev.type != NULL && ev.data != NULL && ev.id != NULL);
        REQUIRE(!ev.type[ev.type_len] && !ev.data[ev.data_len] && !ev.id[ev.id_len]);
        REQUIRE(!memchr(ev.type, '\n', ev.type_len) && !memchr(ev.type, '\r', ev.type_len));
        REQUIRE(!memchr(ev.id, '\n', ev.id_len) && !memchr(ev.id, '\r', ev.id_len) && !memchr(ev.id, 0, ev.id_len));
        REQUIRE(!memchr(ev.data, '\r', ev.data_len));
        REQUIRE(utf8_ok(ev.type, ev.type_len) && utf8_ok(ev.data, ev.data_len) && utf8_ok(ev.id, ev.id_len));
        REQUIRE(ev.type_len > 0);
        id = mcp_sse_last_id(p, &idn);
        REQUIRE(id != NULL && idn == ev.id_len && !memcmp(id, ev.id, idn));
        lg_item(log);
        lg(log, "EV type="); lg_q(log, ev.type, ev.type_len);
        lg(log, " data="); lg_q(log, ev.data, ev.data_len);
        lg(log, " id="); lg_q(log, ev.id, ev.id_len);
        lg(log, " "); log_retry(p, log);
    }
    REQUIRE(st == MCP_AGAIN || st < 0);
    REQUIRE(ev.type == NULL && ev.data == NULL && ev.id == NULL && !ev.type_len && !ev.data_len && !ev.id_len);
    return got;
}

/* After an error: it is sticky for feed, next and finish, and `what` says it. */
static void sticky(mcp_sse *p, mcp_status st)
{
    size_t used = 99;
    mcp_sse_event ev;
    REQUIRE(mcp_sse_feed(p, "data: x\n\n", 9, &used) == st && used == 0);
    REQUIRE(mcp_sse_next(p, &ev) == st);
    REQUIRE(mcp_sse_finish(p) == st);
    REQUIRE(p->what != NULL && p->what[0] != 0);
}

static void run(size_t max_event, const unsigned char *in, const piece *pc, size_t np, mcp_buf *log)
{
    mcp_sse p;
    mcp_status st;
    size_t i, got, idn = 99;
    const char *id;
    memset(&p, 0, sizeof p);
    p.max_event = max_event;
    for (i = 0; i < np; i++) {
        size_t off = 0, len = pc[i].len;
        char *d = (char *)malloc(len ? len : 1);
        int first = 1;
        REQUIRE(d != NULL);
        if (len) memcpy(d, in + pc[i].off, len);
        while (off < len || first) {                   /* an empty piece is fed once too */
            size_t used = (size_t)-1;
            first = 0;
            st = mcp_sse_feed(&p, d + off, len - off, &used);
            REQUIRE(used <= len - off);
            off += used;
            if (st < 0) {
                REQUIRE(st == MCP_ERR_LIMIT);
                lg_item(log); lg(log, "ERR %s ", sname(st));
                lg_q(log, p.what ? p.what : "", p.what ? strlen(p.what) : 0);
                sticky(&p, st);
                free(d);
                goto out;
            }
            REQUIRE(st == MCP_OK || st == MCP_AGAIN);
            got = drain(&p, log);
            if (st == MCP_AGAIN) REQUIRE(off == len && got == 0);
            else REQUIRE(got == 1 && used > 0);
        }
        free(d);                                       /* the parser must not keep pointers into it */
    }
    st = mcp_sse_finish(&p);
    REQUIRE(st == MCP_OK);
    lg_item(log); lg(log, "FIN ok");
    REQUIRE(drain(&p, log) == 0);                      /* an unfinished event is dropped */
    REQUIRE(mcp_sse_finish(&p) == MCP_OK);
out:
    lg_item(log); log_retry(&p, log);
    id = mcp_sse_last_id(&p, &idn);
    REQUIRE(id != NULL && !id[idn]);
    lg(log, " last_id="); lg_q(log, id, idn);
    mcp_sse_free(&p);
    mcp_sse_free(&p);                                  /* free twice is harmless */
}

static void differ(const char *mode, unsigned settings, unsigned split, const char *got, const char *want)
{
    fprintf(stderr, NAME ": the log differs when fed %s (settings 0x%02x, split 0x%02x)\n"
            "   got: %.3000s\n  want: %.3000s\n", mode, settings, split, got, want);
    abort();
}

int LLVMFuzzerTestOneInput(const unsigned char *data, size_t size)
{
    const unsigned char *in;
    unsigned settings, split;
    size_t n, np, i;
    piece *pc;
    mcp_buf want = {0}, got = {0};
    if (size < 2) return 0;
    settings = data[0]; split = data[1];
    in = data + 2; n = size - 2;
    pc = (piece *)malloc((2 * n + 2) * sizeof *pc);
    REQUIRE(pc != NULL);

    pc[0].off = 0; pc[0].len = n;
    run(settings, in, pc, 1, &want);
    lg_str(&want);
#ifdef FUZZ_PRINT_LOG                  /* -DFUZZ_PRINT_LOG: show each input's log */
    fprintf(stderr, "%s\n", want.data);
#endif

    np = plan(pc, in, n, split);
    run(settings, in, pc, np, &got);
    if (strcmp(lg_str(&got), want.data)) differ("in the planned pieces", settings, split, got.data, want.data);

    if (n <= ONE_BYTE_MAX && n > 1) {
        for (i = 0; i < n; i++) { pc[i].off = i; pc[i].len = 1; }
        got.len = 0;
        run(settings, in, pc, n, &got);
        if (strcmp(lg_str(&got), want.data)) differ("one byte at a time", settings, split, got.data, want.data);
    }
    mcp_buf_free(&want);
    mcp_buf_free(&got);
    free(pc);
    return 0;
}
