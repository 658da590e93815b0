/* Tests of the JSON-lines framer (>>jsonl), issue 3: "Sans-I/O framers ... correct at every split".

   Every case has a golden event log: each line the framer returns, then what mcp_jsonl_finish
   says (or the sticky error and its `what`). Each case is fed whole, split at every byte into
   two pieces, one byte at a time, in random small pieces, and from a buffer that starts right
   after a PROT_NONE page; every piece is copied so that it ends right before a PROT_NONE page
   (as picohttpparser's tests do) and is scribbled over once the framer has taken it, so an
   overread faults and a pointer kept into old input shows up in the log. The logs must all
   equal the golden one. The driver also checks the feed/next contract on every call
   (MCP_AGAIN takes every byte, MCP_OK has a line waiting, errors are sticky) and writes any
   breach into the log ("!! ..."), so it fails the comparison.

   Usage: test_jsonl [DATA_DIR]   (no data files needed; MCP_TEST_QUICK=1 shrinks big inputs) */
#define _DEFAULT_SOURCE
#define _POSIX_C_SOURCE 200809L
#define _DARWIN_C_SOURCE
#include "../mcp.h"
#include "test.h"
#include "feed.h"
#include <stdarg.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static int quick;


/* ---- the JSONL driver ----------------------------------------------------------------------- */

#define W_LONG "a line is longer than the limit"
#define W_TRUNC "the stream ended in the middle of a line"

typedef struct jl_opt { size_t max_line; } jl_opt;

/* Takes every waiting line; returns how many. */
static size_t jl_drain(mcp_jsonl *p, mcp_buf *log)
{
    const char *line;
    size_t len, got = 0;
    mcp_status st;
    while ((st = mcp_jsonl_next(p, &line, &len)) == MCP_OK) {
        got++;
        if (!line || !len) { viol(log, "next gave an empty line"); break; }
        if (memchr(line, '\n', len)) viol(log, "a line holds its LF");
        lg_item(log); lg(log, "LINE "); lg_q(log, line, len);
        if (got > 1) viol(log, "next gave a second line for one feed");
        if (got > 2) break;
    }
    if (st != MCP_AGAIN && st != MCP_OK) viol(log, "next returned %s after the lines", sname(st));
    if (st == MCP_AGAIN && (line != NULL || len != 0)) viol(log, "next returned AGAIN with a line");
    return got;
}

/* After an error: it is sticky for feed, next and finish. */
static void jl_sticky(mcp_jsonl *p, mcp_status st, mcp_buf *log)
{
    size_t used = 99, len = 99;
    const char *line = "x";
    mcp_status s2 = mcp_jsonl_feed(p, "{}\n", 3, &used);
    if (s2 != st || used != 0) viol(log, "feed after the error gave %s, used %lu", sname(s2), (unsigned long)used);
    s2 = mcp_jsonl_next(p, &line, &len);
    if (s2 != st || line || len) viol(log, "next after the error gave %s", sname(s2));
    s2 = mcp_jsonl_finish(p, NULL, NULL);
    if (s2 != st) viol(log, "finish after the error gave %s", sname(s2));
    if (!p->what || !p->what[0]) viol(log, "no what after the error");
}

static void jl_run(const void *opt, const char *in, size_t n, const piece *pc, size_t np, int low,
                   mcp_buf *log)
{
    mcp_jsonl p;
    mcp_status st;
    size_t i, got, rest_len;
    const char *rest;
    (void)n;
    memset(&p, 0, sizeof p);
    p.max_line = ((const jl_opt *)opt)->max_line;
    for (i = 0; i < np; i++) {
        char *d = guard_put(in + pc[i].off, pc[i].len, low);
        size_t off = 0, len = pc[i].len;
        int first = 1;
        while (off < len || first) {          /* an empty piece is still fed once */
            size_t used = (size_t)-1;
            first = 0;
            st = mcp_jsonl_feed(&p, d + off, len - off, &used);
            if (used > len - off) { viol(log, "feed used %lu of %lu bytes", (unsigned long)used, (unsigned long)(len - off)); goto out; }
            off += used;
            if (st < 0) {
                lg_item(log); lg(log, "ERR %s ", sname(st)); lg_q(log, p.what ? p.what : "", p.what ? strlen(p.what) : 0);
                jl_sticky(&p, st, log);
                goto out;
            }
            if (st != MCP_OK && st != MCP_AGAIN) { viol(log, "feed returned %d", (int)st); goto out; }
            got = jl_drain(&p, log);
            if (st == MCP_AGAIN && off != len) viol(log, "AGAIN but only %lu of %lu bytes taken", (unsigned long)off, (unsigned long)len);
            if (st == MCP_AGAIN && got) viol(log, "a line was waiting after AGAIN");
            if (st == MCP_OK && !got) { viol(log, "OK without a line"); goto out; }
            if (st == MCP_OK && !used) { viol(log, "OK without consuming"); goto out; }
        }
        memset(d, 0xA5, len);                  /* the framer must not keep pointers into it */
    }
    rest = "junk"; rest_len = 77;
    st = mcp_jsonl_finish(&p, &rest, &rest_len);
    lg_item(log);
    if (st == MCP_OK) {
        lg(log, "FIN ok");
        if (rest || rest_len) viol(log, "finish OK but rest is set");
        if (jl_drain(&p, log)) viol(log, "a line after finish");
    } else {
        lg(log, "FIN %s rest=", sname(st));
        lg_q(log, rest ? rest : "", rest ? rest_len : 0);
        lg_raw(log, " ", 1);
        lg_q(log, p.what ? p.what : "", p.what ? strlen(p.what) : 0);
        jl_sticky(&p, st, log);
    }
out:
    mcp_jsonl_free(&p);
}

/* ---- golden cases --------------------------------------------------------------------------- */

typedef struct jl_case { const char *name; const char *in; size_t len; size_t max_line; const char *golden; } jl_case;
#define IN(s) s, sizeof(s) - 1

static const jl_case cases[] = {
    {"lf", IN("a\nb\n"), 0, "LINE 'a' | LINE 'b' | FIN ok"},
    {"crlf", IN("{\"a\":1}\r\n[2]\r\n"), 0, "LINE '{\"a\":1}' | LINE '[2]' | FIN ok"},
    {"mixed_endings", IN("1\r\n2\n3\r\n4\n"), 0, "LINE '1' | LINE '2' | LINE '3' | LINE '4' | FIN ok"},
    {"mcp_messages", IN("{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{}}\n"
                        "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/message\",\"params\":{\"level\":\"info\"}}\r\n"),
     0, "LINE '{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{}}' | "
        "LINE '{\"jsonrpc\":\"2.0\",\"method\":\"notifications/message\",\"params\":{\"level\":\"info\"}}' | FIN ok"},
    {"blank_and_whitespace_lines_skipped", IN("\n\n1\n\r\n \n\t\r\n \t \r\n\r\r\n2\n\n"), 0,
     "LINE '1' | LINE '2' | FIN ok"},
    {"whitespace_line_with_inner_cr", IN(" \r \n3\n"), 0, "LINE '3' | FIN ok"},
    {"surrounding_whitespace_kept", IN("  {} \t\n"), 0, "LINE '  {} \\t' | FIN ok"},
    {"lone_cr_inside_a_line_kept", IN("a\rb\n"), 0, "LINE 'a\\rb' | FIN ok"},
    {"only_one_cr_stripped", IN("x\r\r\n"), 0, "LINE 'x\\r' | FIN ok"},
    {"nul_byte_kept", IN("a\0b\n"), 0, "LINE 'a\\0b' | FIN ok"},
    {"utf8_kept", IN("\"\xc3\xa9\xe2\x82\xac\"\n"), 0, "LINE '\"\\xc3\\xa9\\xe2\\x82\\xac\"' | FIN ok"},
    {"empty_stream", IN(""), 0, "FIN ok"},
    {"only_blank_lines", IN("\n\r\n\n  \r\n"), 0, "FIN ok"},
    {"truncated_last_line", IN("1\n{\"tr"), 0, "LINE '1' | FIN PARSE rest='{\"tr' '" W_TRUNC "'"},
    {"truncated_after_cr", IN("1\nab\r"), 0, "LINE '1' | FIN PARSE rest='ab\\r' '" W_TRUNC "'"},
    {"truncated_no_newline_at_all", IN("[1,2]"), 0, "FIN PARSE rest='[1,2]' '" W_TRUNC "'"},
    {"pending_whitespace_only", IN("1\n  \t"), 0, "LINE '1' | FIN ok"},
    {"pending_cr_only", IN("1\n\r"), 0, "LINE '1' | FIN ok"},
    {"pending_mixed_blank", IN("1\n \r\t"), 0, "LINE '1' | FIN ok"},
    {"max_exact_lf", IN("12345\n"), 5, "LINE '12345' | FIN ok"},
    {"max_exact_crlf", IN("12345\r\n"), 5, "LINE '12345' | FIN ok"},
    {"max_exact_then_more", IN("12345\r\nabcde\n1\n"), 5, "LINE '12345' | LINE 'abcde' | LINE '1' | FIN ok"},
    {"max_blank_line_at_limit", IN("     \n12345\n"), 5, "LINE '12345' | FIN ok"},
    {"max_plus1_lf", IN("ok\n123456\nnext\n"), 5, "LINE 'ok' | ERR LIMIT '" W_LONG "'"},
    {"max_plus1_crlf", IN("123456\r\n"), 5, "ERR LIMIT '" W_LONG "'"},
    {"max_plus1_with_two_crs", IN("12345\r\r\n"), 5, "ERR LIMIT '" W_LONG "'"},
    {"max_plus2_unterminated", IN("1234567"), 5, "ERR LIMIT '" W_LONG "'"},
    {"max_plus1_huge_tail", IN("12345678901234567890\n"), 5, "ERR LIMIT '" W_LONG "'"},
    {"max_one", IN("a\r\nb\n\n"), 1, "LINE 'a' | LINE 'b' | FIN ok"},
    {"max_one_over", IN("ab\n"), 1, "ERR LIMIT '" W_LONG "'"},
};

TEST_CASE(cases)
{
    size_t i;
    for (i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        jl_opt o;
        o.max_line = cases[i].max_line;
        run_modes(cases[i].name, jl_run, &o, cases[i].in, cases[i].len, cases[i].golden);
    }
}

/* Many lines in one buffer, LF and CRLF alternating, with blank lines in between. */
TEST_CASE(many_lines)
{
    mcp_buf in = {0}, gold = {0};
    jl_opt o;
    int i, n = quick ? 300 : 2000;
    char tmp[64];
    o.max_line = 0;
    for (i = 0; i < n; i++) {
        int k = snprintf(tmp, sizeof tmp, "{\"id\":%d}%s%s", i, i % 2 ? "\r\n" : "\n", i % 7 ? "" : "\n \r\n");
        lg_raw(&in, tmp, (size_t)k);
        lg_item(&gold); lg(&gold, "LINE '{\"id\":%d}'", i);
    }
    lg_item(&gold); lg(&gold, "FIN ok");
    run_modes("many_lines", jl_run, &o, in.data, in.len, lg_str(&gold));

    {   /* the same buffer in one feed call loop: each OK consumes exactly one line */
        mcp_jsonl p;
        size_t off = 0, used, len, count = 0;
        const char *line;
        int order_ok = 1;
        memset(&p, 0, sizeof p);
        while (off < in.len) {
            mcp_status st = mcp_jsonl_feed(&p, in.data + off, in.len - off, &used);
            if (st < 0) break;
            off += used;
            while (mcp_jsonl_next(&p, &line, &len) == MCP_OK) {
                int k = snprintf(tmp, sizeof tmp, "{\"id\":%lu}", (unsigned long)count);
                if (len != (size_t)k || memcmp(line, tmp, len)) order_ok = 0;
                count++;
            }
            if (st == MCP_OK && used == 0) break;
        }
        CHECKF(count == (size_t)n && order_ok, "one buffer of %d lines gave %lu lines (in order: %d)", n, (unsigned long)count, order_ok);
        CHECK(mcp_jsonl_finish(&p, NULL, NULL) == MCP_OK);
        mcp_jsonl_free(&p);
    }
    mcp_buf_free(&in);
    mcp_buf_free(&gold);
}

/* ---- direct tests --------------------------------------------------------------------------- */

/* Feeds a whole buffer in pieces of `chunk` bytes; returns the status that stopped it (or of
   finish), the number of lines and the length of the last one. */
static mcp_status feed_all(mcp_jsonl *p, const char *s, size_t n, size_t chunk, size_t *lines, size_t *last_len, const char **last)
{
    size_t off = 0, used, len;
    const char *line;
    mcp_status st;
    *lines = 0; *last_len = 0;
    while (off < n) {
        size_t plen = n - off < chunk ? n - off : chunk, poff = 0;
        while (poff < plen) {
            st = mcp_jsonl_feed(p, s + off + poff, plen - poff, &used);
            if (st < 0) return st;
            poff += used;
            while (mcp_jsonl_next(p, &line, &len) == MCP_OK) {
                (*lines)++; *last_len = len;
                if (last) *last = line;
            }
            if (st == MCP_OK && !used) return MCP_ERR_INVALID;
        }
        off += plen;
    }
    return mcp_jsonl_finish(p, NULL, NULL);
}

TEST_CASE(cr_lf_across_pieces)
{
    mcp_jsonl p;
    size_t used = 0, len = 0;
    const char *line = NULL;
    mcp_status st;
    memset(&p, 0, sizeof p);
    st = mcp_jsonl_feed(&p, "abc\r", 4, &used);
    CHECK(st == MCP_AGAIN && used == 4);
    CHECK(mcp_jsonl_next(&p, &line, &len) == MCP_AGAIN && line == NULL && len == 0);
    st = mcp_jsonl_feed(&p, "\ndef\n", 5, &used);
    CHECK(st == MCP_OK && used == 1);
    CHECK(mcp_jsonl_next(&p, &line, &len) == MCP_OK && len == 3 && line && !memcmp(line, "abc", 3));
    st = mcp_jsonl_feed(&p, "def\n", 4, &used);
    CHECK(st == MCP_OK && used == 4);
    CHECK(mcp_jsonl_next(&p, &line, &len) == MCP_OK && len == 3 && line && !memcmp(line, "def", 3));
    CHECK(mcp_jsonl_next(&p, &line, &len) == MCP_AGAIN);
    mcp_jsonl_free(&p);
}

TEST_CASE(api_edges)
{
    mcp_jsonl p;
    size_t used = 7, len = 7;
    const char *line = "x", *rest = "x";
    mcp_status st;
    memset(&p, 0, sizeof p);
    CHECK(mcp_jsonl_next(&p, &line, &len) == MCP_AGAIN && line == NULL && len == 0);
    st = mcp_jsonl_feed(&p, "", 0, &used);
    CHECK(st == MCP_AGAIN && used == 0);
    CHECK(mcp_jsonl_finish(&p, &rest, &len) == MCP_OK && rest == NULL && len == 0);
    CHECK(mcp_jsonl_finish(&p, NULL, NULL) == MCP_OK);

    /* feed while a line waits: nothing consumed, the waiting line is unchanged */
    mcp_jsonl_reset(&p);
    st = mcp_jsonl_feed(&p, "one\ntwo\n", 8, &used);
    CHECK(st == MCP_OK && used == 4);
    st = mcp_jsonl_feed(&p, "two\n", 4, &used);
    CHECK(st == MCP_OK && used == 0);
    CHECK(mcp_jsonl_next(&p, &line, &len) == MCP_OK && len == 3 && !memcmp(line, "one", 3));
    st = mcp_jsonl_feed(&p, "two\n", 4, &used);
    CHECK(st == MCP_OK && used == 4);
    CHECK(mcp_jsonl_next(&p, &line, &len) == MCP_OK && len == 3 && !memcmp(line, "two", 3));

    /* finish with NULL out-pointers still reports a truncated line */
    mcp_jsonl_reset(&p);
    st = mcp_jsonl_feed(&p, "{\"a\"", 4, &used);
    CHECK(st == MCP_AGAIN && used == 4);
    CHECK(mcp_jsonl_finish(&p, NULL, NULL) == MCP_ERR_PARSE);
    CHECK(p.what && !strcmp(p.what, W_TRUNC));

    mcp_jsonl_free(&p);
    mcp_jsonl_free(&p);        /* twice is harmless */
    mcp_jsonl_free(NULL);
    CHECK(p.what == NULL);
}

TEST_CASE(reset)
{
    mcp_jsonl p;
    size_t used, len;
    const char *line;
    mcp_status st;
    memset(&p, 0, sizeof p);
    p.max_line = 8;

    /* a partial line is dropped */
    st = mcp_jsonl_feed(&p, "abc", 3, &used);
    CHECK(st == MCP_AGAIN && used == 3);
    mcp_jsonl_reset(&p);
    st = mcp_jsonl_feed(&p, "def\n", 4, &used);
    CHECK(st == MCP_OK && mcp_jsonl_next(&p, &line, &len) == MCP_OK && len == 3 && !memcmp(line, "def", 3));

    /* a waiting line is dropped */
    st = mcp_jsonl_feed(&p, "x\ny\n", 4, &used);
    CHECK(st == MCP_OK && used == 2);
    mcp_jsonl_reset(&p);
    CHECK(mcp_jsonl_next(&p, &line, &len) == MCP_AGAIN);
    CHECK(mcp_jsonl_finish(&p, NULL, NULL) == MCP_OK);

    /* an error is cleared, the setting kept */
    st = mcp_jsonl_feed(&p, "123456789\n", 10, &used);
    CHECK(st == MCP_ERR_LIMIT && p.what && !strcmp(p.what, W_LONG));
    mcp_jsonl_reset(&p);
    CHECK(p.what == NULL && p.max_line == 8);
    st = mcp_jsonl_feed(&p, "12345678\n", 9, &used);
    CHECK(st == MCP_OK && mcp_jsonl_next(&p, &line, &len) == MCP_OK && len == 8);
    st = mcp_jsonl_feed(&p, "123456789\n", 10, &used);
    CHECK(st == MCP_ERR_LIMIT);   /* the limit still applies after reset */

    /* after a finish error, reset starts a clean stream */
    mcp_jsonl_reset(&p);
    st = mcp_jsonl_feed(&p, "tail", 4, &used);
    CHECK(st == MCP_AGAIN && mcp_jsonl_finish(&p, NULL, NULL) == MCP_ERR_PARSE);
    mcp_jsonl_reset(&p);
    st = mcp_jsonl_feed(&p, "ok\n", 3, &used);
    CHECK(st == MCP_OK && mcp_jsonl_next(&p, &line, &len) == MCP_OK && len == 2 && !memcmp(line, "ok", 2));
    CHECK(mcp_jsonl_finish(&p, NULL, NULL) == MCP_OK);
    mcp_jsonl_free(&p);
}

/* max_line = SIZE_MAX is the natural way to say "no limit" (the buffer is bounded by memory). */
TEST_CASE(max_limit_value)
{
    mcp_jsonl p;
    size_t lines, last;
    mcp_status st;
    memset(&p, 0, sizeof p);
    p.max_line = (size_t)-1;
    st = feed_all(&p, "{\"a\":1}\nxyz\r\n", 13, 13, &lines, &last, NULL);
    CHECKF(st == MCP_OK && lines == 2, "max_line = SIZE_MAX: %s, %lu lines (want OK, 2)", sname(st), (unsigned long)lines);
    mcp_jsonl_reset(&p);
    st = feed_all(&p, "{\"a\":1}\nxyz\r\n", 13, 1, &lines, &last, NULL);
    CHECKF(st == MCP_OK && lines == 2, "max_line = SIZE_MAX, byte by byte: %s, %lu lines (want OK, 2)", sname(st), (unsigned long)lines);
    mcp_jsonl_free(&p);
}

TEST_CASE(default_limit)
{
    size_t big = (size_t)16 << 20, lines, last;
    char *buf = (char *)malloc(big + 3);
    mcp_jsonl p;
    mcp_status st;
    const char *line = NULL;
    CHECK(MCP_JSONL_MAX_LINE == ((size_t)16 << 20));   /* 16 MiB, as the header documents */
    if (!buf) { CHECK(buf != NULL); return; }
    memset(buf, '7', big + 1);

    /* exactly 16 MiB: accepted with the default limit, whole and in two pieces, LF and CRLF */
    memset(&p, 0, sizeof p);
    buf[big] = '\n';
    st = feed_all(&p, buf, big + 1, big + 1, &lines, &last, &line);
    CHECKF(st == MCP_OK && lines == 1 && last == big, "16 MiB line: %s, %lu lines, %lu bytes", sname(st), (unsigned long)lines, (unsigned long)last);
    CHECK(line != NULL && line[0] == '7' && line[big - 1] == '7');
    mcp_jsonl_reset(&p);
    buf[big] = '\r'; buf[big + 1] = '\n';
    st = feed_all(&p, buf, big + 2, big / 2 + 1, &lines, &last, NULL);
    CHECKF(st == MCP_OK && lines == 1 && last == big, "16 MiB line + CRLF in pieces: %s, %lu lines, %lu bytes", sname(st), (unsigned long)lines, (unsigned long)last);
    CHECK(p.max_line == 0);   /* the default is not written into the setting */
    mcp_jsonl_reset(&p);

    /* one more byte: MCP_ERR_LIMIT */
    buf[big] = '7'; buf[big + 1] = '\n';
    st = feed_all(&p, buf, big + 2, big + 2, &lines, &last, NULL);
    CHECKF(st == MCP_ERR_LIMIT && lines == 0, "16 MiB + 1 line: %s", sname(st));
    CHECK(p.what && p.what[0]);
    mcp_jsonl_reset(&p);
    st = feed_all(&p, buf, big + 2, 65536, &lines, &last, NULL);
    CHECKF(st == MCP_ERR_LIMIT && lines == 0, "16 MiB + 1 line in pieces: %s", sname(st));
    mcp_jsonl_free(&p);
    free(buf);
}

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

/* A 10 MB line fed one byte at a time: linear, not quadratic. */
TEST_CASE(linear)
{
    size_t n = quick ? (size_t)1 << 20 : (size_t)10 << 20, i, used, len = 0, lines = 0;
    mcp_jsonl p;
    const char *line = NULL;
    mcp_status st = MCP_AGAIN;
    double t0 = now_s(), dt;
    int content_ok = 1, protocol_ok = 1;
    char c;
    memset(&p, 0, sizeof p);
    for (i = 0; i <= n + 1; i++) {
        if (!(i & 0xFFFF) && now_s() - t0 > 5.0) break;   /* quadratic: give up early */
        c = i < n ? (char)('a' + i % 26) : i == n ? '\r' : '\n';
        st = mcp_jsonl_feed(&p, &c, 1, &used);
        if (st < 0 || used != 1) { protocol_ok = 0; break; }
        if (st == MCP_OK) {
            if (mcp_jsonl_next(&p, &line, &len) != MCP_OK) protocol_ok = 0;
            lines++;
        } else if (i > n) protocol_ok = 0;
    }
    dt = now_s() - t0;
    CHECKF(protocol_ok && lines == 1 && len == n, "%lu-byte line byte by byte: %s, %lu lines of %lu bytes",
           (unsigned long)n, sname(st), (unsigned long)lines, (unsigned long)len);
    if (line && len == n)
        for (i = 0; i < n; i += 4093) if (line[i] != (char)('a' + i % 26)) { content_ok = 0; break; }
    CHECK(content_ok && line && line[n - 1] == (char)('a' + (n - 1) % 26));
    CHECKF(dt < 5.0, "%lu bytes one at a time took %.2f s (quadratic?)", (unsigned long)n, dt);
    printf("linear: %lu bytes fed one at a time in %.3f s\n", (unsigned long)n, dt);
    mcp_jsonl_free(&p);
}

int main(int argc, char **argv)
{
    const char *q = getenv("MCP_TEST_QUICK");
    test_args(&argc, argv);
    quick = q && *q && strcmp(q, "0");
    test_run();
    guard_free();
    return TEST_DONE();
}
