/* libFuzzer target for the JSON-lines framer (>>jsonl), make fuzz.

   Input: [settings][split][stream...]
     settings  max_line: 0 the default (16 MiB), 0xFF SIZE_MAX, else that many bytes (1..254),
               so the limit paths are fuzzed too;
     split     how the stream is cut into pieces (see plan());
     stream    the bytes fed to the framer.
   The stream is fed whole, then in the pieces the split byte chooses, then (when it is at most
   1024 bytes) one byte at a time; each run renders an event log (every line with its bytes,
   a feed error with its `what`, what finish said with the bytes it left), and the logs must be
   identical. The framer is then reset and fed the whole stream again: the same log once more.
   Every piece is a malloc'd copy of exactly its bytes, freed once fed, so ASan reports a read
   past a piece or a pointer kept into it. The feed/next/finish contract is checked on every
   call (AGAIN takes every byte, OK leaves exactly one line, errors are sticky); any breach or
   difference aborts, which libFuzzer reports as a crash. */
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

#define NAME "fuzz_jsonl"
#define ONE_BYTE_MAX 1024      /* streams up to this long are also fed one byte at a time */

/* ---- the driver ----------------------------------------------------------------------------- */

/* Takes the waiting line, if any; returns how many lines there were (0 or 1). */
static size_t drain(mcp_jsonl *p, mcp_buf *log)
{
    const char *line = "x";
    size_t len = 99, got = 0;
    mcp_status st;
    while ((st = mcp_jsonl_next(p, &line, &len)) == MCP_OK) {
        REQUIRE(++got == 1);                             /* one line per feed */
        REQUIRE(line != NULL && len > 0 && !memchr(line, '\n', len));
        lg_item(log); lg(log, "LINE "); lg_q(log, line, len);
        line = "x"; len = 99;
    }
    REQUIRE(st == MCP_AGAIN && line == NULL && len == 0);
    return got;
}

/* After an error: it is sticky for feed, next and finish, and `what` says it. */
static void sticky(mcp_jsonl *p, mcp_status st)
{
    size_t used = 99, len = 99;
    const char *line = "x";
    REQUIRE(mcp_jsonl_feed(p, "{}\n", 3, &used) == st && used == 0);
    REQUIRE(mcp_jsonl_next(p, &line, &len) == st && line == NULL && len == 0);
    REQUIRE(mcp_jsonl_finish(p, NULL, NULL) == st);
    REQUIRE(p->what != NULL && p->what[0] != 0);
}

/* Feeds the pieces to p (fresh or reset) and renders the log. */
static void run(mcp_jsonl *p, const unsigned char *in, const piece *pc, size_t np, mcp_buf *log)
{
    mcp_status st;
    size_t i, got, rest_len;
    const char *rest;
    for (i = 0; i < np; i++) {
        size_t off = 0, len = pc[i].len;
        char *d = (char *)malloc(len ? len : 1);
        int first = 1;
        REQUIRE(d != NULL);
        if (len) memcpy(d, in + pc[i].off, len);
        while (off < len || first) {                   /* an empty piece is fed once too */
            size_t used = (size_t)-1;
            first = 0;
            st = mcp_jsonl_feed(p, d + off, len - off, &used);
            REQUIRE(used <= len - off);
            off += used;
            if (st < 0) {
                lg_item(log); lg(log, "ERR %s ", sname(st));
                lg_q(log, p->what ? p->what : "", p->what ? strlen(p->what) : 0);
                sticky(p, st);
                free(d);
                return;
            }
            REQUIRE(st == MCP_OK || st == MCP_AGAIN);
            got = drain(p, log);
            if (st == MCP_AGAIN) REQUIRE(off == len && got == 0);
            else REQUIRE(got == 1 && used > 0);
        }
        free(d);                                       /* the framer must not keep pointers into it */
    }
    rest = "junk"; rest_len = 77;
    st = mcp_jsonl_finish(p, &rest, &rest_len);
    lg_item(log);
    if (st == MCP_OK) {
        lg(log, "FIN ok");
        REQUIRE(rest == NULL && rest_len == 0);
        REQUIRE(drain(p, log) == 0);
    } else {
        REQUIRE(st == MCP_ERR_PARSE && rest != NULL && rest_len > 0);
        lg(log, "FIN %s rest=", sname(st)); lg_q(log, rest, rest_len);
        lg(log, " "); lg_q(log, p->what ? p->what : "", p->what ? strlen(p->what) : 0);
        sticky(p, st);
    }
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
    mcp_jsonl p;
    if (size < 2) return 0;
    settings = data[0]; split = data[1];
    in = data + 2; n = size - 2;
    pc = (piece *)malloc((2 * n + 2) * sizeof *pc);
    REQUIRE(pc != NULL);

    memset(&p, 0, sizeof p);
    p.max_line = settings == 0xFF ? (size_t)-1 : settings;
    pc[0].off = 0; pc[0].len = n;
    run(&p, in, pc, 1, &want);
    lg_str(&want);
#ifdef FUZZ_PRINT_LOG                  /* -DFUZZ_PRINT_LOG: show each input's log */
    fprintf(stderr, "%s\n", want.data);
#endif

    mcp_jsonl_reset(&p);                               /* again on the same framer */
    REQUIRE(p.max_line == (settings == 0xFF ? (size_t)-1 : settings) && p.what == NULL);
    run(&p, in, pc, 1, &got);
    if (strcmp(lg_str(&got), want.data)) differ("whole after mcp_jsonl_reset", settings, split, got.data, want.data);
    mcp_jsonl_free(&p);
    mcp_jsonl_free(&p);                                /* free twice is harmless */

    memset(&p, 0, sizeof p);
    p.max_line = settings == 0xFF ? (size_t)-1 : settings;
    np = plan(pc, in, n, split);
    got.len = 0;
    run(&p, in, pc, np, &got);
    if (strcmp(lg_str(&got), want.data)) differ("in the planned pieces", settings, split, got.data, want.data);
    mcp_jsonl_free(&p);

    if (n <= ONE_BYTE_MAX && n > 1) {
        memset(&p, 0, sizeof p);
        p.max_line = settings == 0xFF ? (size_t)-1 : settings;
        for (i = 0; i < n; i++) { pc[i].off = i; pc[i].len = 1; }
        got.len = 0;
        run(&p, in, pc, n, &got);
        if (strcmp(lg_str(&got), want.data)) differ("one byte at a time", settings, split, got.data, want.data);
        mcp_jsonl_free(&p);
    }
    mcp_buf_free(&want);
    mcp_buf_free(&got);
    free(pc);
    return 0;
}
