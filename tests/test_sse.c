/* Tests of the Server-Sent Events parser (>>sse), issue 3: "Sans-I/O framers ... correct at
   every split".

   1. All cases of tests/data/sse/vectors.json (read with mcp.h's own JSON parser): each is fed
      whole, in its listed chunks ("chunks"/"chunks_hex"), in pieces of its "chunk_size", split
      at every byte into two pieces, one byte at a time and in random small pieces; every run's
      event log (type, data, lastEventId of each event, then the final retry) must equal the
      one the vector expects.
   2. Extra golden cases: the max_event limits (a line, an event's data; sticky), comments
      longer than the limit (never buffered), UTF-8 repair, end of stream.
   3. Direct tests: mcp_sse_last_id, mcp_sse_reset (keeps the last id and retry), finish,
      retry range, API edges, and linear time on a 10 MB data line fed one byte at a time.

   Every piece is copied to end right before a PROT_NONE page (picohttpparser's trick) and
   scribbled over once taken. The driver checks the feed/next contract on every call and
   writes a breach into the log ("!! ..."), so it fails the comparison.

   Usage: test_sse [DATA_DIR]   (default tests/data; MCP_TEST_QUICK=1 shrinks big inputs) */
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


/* One more feeding plan, given as a list of pieces. */
static void run_pieces(const char *name, const char *mode, run_fn fn, const void *opt, const char *in,
                       size_t n, const piece *pc, size_t np, const char *golden)
{
    mcp_buf log = {0};
    fn(opt, in, n, pc, np, 0, &log);
    CHECKF(report(name, mode, lg_str(&log), golden), "case %s: the log differs when fed %s", name, mode);
    mcp_buf_free(&log);
}

/* ---- the SSE driver ------------------------------------------------------------------------- */

#define W_LINE "a line is longer than the limit"
#define W_DATA "an event's data is larger than the limit"

typedef struct sse_opt { size_t max_event; } sse_opt;

static size_t sse_drain(mcp_sse *p, mcp_buf *log)
{
    mcp_sse_event ev;
    mcp_status st;
    size_t got = 0, idn = 0;
    const char *id;
    while ((st = mcp_sse_next(p, &ev)) == MCP_OK) {
        got++;
        if (!ev.type || !ev.data || !ev.id) { viol(log, "an event field is NULL"); break; }
        if (ev.type[ev.type_len] || ev.data[ev.data_len] || ev.id[ev.id_len])
            viol(log, "an event field is not NUL-terminated");
        id = mcp_sse_last_id(p, &idn);
        if (!id || idn != ev.id_len || memcmp(id, ev.id, idn)) viol(log, "mcp_sse_last_id differs from the event's id");
        lg_item(log);
        lg(log, "EV type="); lg_q(log, ev.type, ev.type_len);
        lg(log, " data="); lg_q(log, ev.data, ev.data_len);
        lg(log, " id="); lg_q(log, ev.id, ev.id_len);
        if (got > 1) { viol(log, "next gave a second event for one feed"); break; }
    }
    if (st != MCP_AGAIN && st != MCP_OK) viol(log, "next returned %s after the events", sname(st));
    return got;
}

static void sse_sticky(mcp_sse *p, mcp_status st, mcp_buf *log)
{
    size_t used = 99;
    mcp_sse_event ev;
    mcp_status s2 = mcp_sse_feed(p, "data: x\n\n", 9, &used);
    if (s2 != st || used != 0) viol(log, "feed after the error gave %s, used %lu", sname(s2), (unsigned long)used);
    s2 = mcp_sse_next(p, &ev);
    if (s2 != st) viol(log, "next after the error gave %s", sname(s2));
    s2 = mcp_sse_finish(p);
    if (s2 != st) viol(log, "finish after the error gave %s", sname(s2));
    if (!p->what || !p->what[0]) viol(log, "no what after the error");
}

static void sse_run(const void *opt, const char *in, size_t n, const piece *pc, size_t np, int low,
                    mcp_buf *log)
{
    mcp_sse p;
    mcp_status st;
    size_t i, got;
    (void)n;
    memset(&p, 0, sizeof p);
    p.max_event = ((const sse_opt *)opt)->max_event;
    for (i = 0; i < np; i++) {
        char *d = guard_put(in + pc[i].off, pc[i].len, low);
        size_t off = 0, len = pc[i].len;
        int first = 1;
        while (off < len || first) {
            size_t used = (size_t)-1;
            first = 0;
            st = mcp_sse_feed(&p, d + off, len - off, &used);
            if (used > len - off) { viol(log, "feed used %lu of %lu bytes", (unsigned long)used, (unsigned long)(len - off)); goto out; }
            off += used;
            if (st < 0) {
                lg_item(log); lg(log, "ERR %s ", sname(st)); lg_q(log, p.what ? p.what : "", p.what ? strlen(p.what) : 0);
                sse_sticky(&p, st, log);
                goto out;
            }
            if (st != MCP_OK && st != MCP_AGAIN) { viol(log, "feed returned %d", (int)st); goto out; }
            got = sse_drain(&p, log);
            if (st == MCP_AGAIN && off != len) viol(log, "AGAIN but only %lu of %lu bytes taken", (unsigned long)off, (unsigned long)len);
            if (st == MCP_AGAIN && got) viol(log, "an event was waiting after AGAIN");
            if (st == MCP_OK && !got) { viol(log, "OK without an event"); goto out; }
            if (st == MCP_OK && !used) { viol(log, "OK without consuming"); goto out; }
        }
        memset(d, 0xA5, len);
    }
    st = mcp_sse_finish(&p);
    lg_item(log);
    lg(log, "FIN %s", st == MCP_OK ? "ok" : sname(st));
    if (sse_drain(&p, log)) viol(log, "an event after finish");
out:
    lg_item(log);
    if (p.has_retry) lg(log, "RETRY %lu", p.retry_ms);
    else lg(log, "RETRY null");
    mcp_sse_free(&p);
}

/* ---- the vectors ---------------------------------------------------------------------------- */

static char *read_file(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    char *buf = NULL;
    size_t cap = 0, n = 0, k;
    if (!f) return NULL;
    for (;;) {
        if (n == cap) {
            char *nb = (char *)realloc(buf, cap = cap ? cap * 2 : 65536);
            if (!nb) { free(buf); fclose(f); return NULL; }
            buf = nb;
        }
        k = fread(buf + n, 1, cap - n, f);
        if (!k) break;
        n += k;
    }
    fclose(f);
    *len = n;
    return buf;
}

static int hexval(int c)
{
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
}

/* appends the bytes of a string member: text as is, or hex decoded */
static int append_bytes(mcp_buf *b, const mcp_json *s, int hex)
{
    const char *t = mcp_json_str(s);
    size_t n = mcp_json_len(s), i;
    if (!t) return 0;
    if (!hex) { lg_raw(b, t, n); return 1; }
    if (n % 2) return 0;
    for (i = 0; i < n; i += 2) {
        int hi = hexval((unsigned char)t[i]), lo = hexval((unsigned char)t[i + 1]);
        char c;
        if (hi < 0 || lo < 0) return 0;
        c = (char)(hi * 16 + lo);
        lg_raw(b, &c, 1);
    }
    return 1;
}

static const char *dir = "tests/data";   /* argv[1] */

TEST_CASE(vectors)
{
    char path[1024];
    size_t flen = 0, i, j, ncases = 0;
    char *text;
    mcp_error err;
    mcp_json_doc *doc;
    const mcp_json *root, *cases, *c;
    sse_opt o;
    o.max_event = 0;
    snprintf(path, sizeof path, "%s/sse/vectors.json", dir);
    text = read_file(path, &flen);
    CHECKF(text != NULL, "cannot read %s", path);
    if (!text) return;
    doc = mcp_json_parse(text, flen, &err);
    CHECKF(doc != NULL, "%s: %s", path, doc ? "" : err.message);
    free(text);
    if (!doc) return;
    root = mcp_json_root(doc);
    CHECK(mcp_json_str(mcp_json_get(root, "format")) && !strcmp(mcp_json_str(mcp_json_get(root, "format")), "sse-vectors/1"));
    cases = mcp_json_get(root, "cases");
    CHECK(mcp_json_typeof(cases) == MCP_JSON_ARRAY);
    mcp_json_foreach(cases, i, c) {
        mcp_buf in = {0}, gold = {0}, joined = {0};
        const char *name = mcp_json_str(mcp_json_get(c, "name"));
        const mcp_json *events = mcp_json_get(c, "events"), *ev, *retry = mcp_json_get(c, "retry");
        const mcp_json *chunks = mcp_json_get(c, "chunks"), *chunks_hex = mcp_json_get(c, "chunks_hex");
        const mcp_json *csize = mcp_json_get(c, "chunk_size"), *ch;
        int hex = mcp_json_get(c, "input_hex") != NULL, ok;
        int64_t rv = 0;
        ncases++;
        if (!name) name = "(unnamed)";
        ok = append_bytes(&in, mcp_json_get(c, hex ? "input_hex" : "input"), hex);
        CHECKF(ok, "vector %s: no usable input", name);
        if (!ok) { mcp_buf_free(&in); continue; }
        CHECKF(mcp_json_typeof(events) == MCP_JSON_ARRAY, "vector %s: no events", name);
        mcp_json_foreach(events, j, ev) {
            const mcp_json *t = mcp_json_get(ev, "type"), *d = mcp_json_get(ev, "data"), *id = mcp_json_get(ev, "lastEventId");
            CHECKF(t && d && id, "vector %s: event %lu lacks a member", name, (unsigned long)j);
            lg_item(&gold);
            lg(&gold, "EV type="); lg_q(&gold, mcp_json_str(t) ? mcp_json_str(t) : "", mcp_json_len(t));
            lg(&gold, " data="); lg_q(&gold, mcp_json_str(d) ? mcp_json_str(d) : "", mcp_json_len(d));
            lg(&gold, " id="); lg_q(&gold, mcp_json_str(id) ? mcp_json_str(id) : "", mcp_json_len(id));
        }
        lg_item(&gold); lg(&gold, "FIN ok");
        lg_item(&gold);
        if (mcp_json_typeof(retry) == MCP_JSON_NUMBER && mcp_json_int64(retry, &rv)) lg(&gold, "RETRY %lu", (unsigned long)rv);
        else { CHECKF(mcp_json_typeof(retry) == MCP_JSON_NULL, "vector %s: bad retry", name); lg(&gold, "RETRY null"); }
        if (in.len == 0) lg_raw(&in, "", 0);

        run_modes(name, sse_run, &o, in.data ? in.data : "", in.len, lg_str(&gold));

        if (chunks || chunks_hex) {          /* the listed chunks */
            const mcp_json *list = chunks ? chunks : chunks_hex;
            piece *pc = (piece *)malloc((mcp_json_len(list) + 1) * sizeof *pc);
            size_t np = 0, off = 0;
            if (!pc) exit(2);
            mcp_json_foreach(list, j, ch) {
                size_t before = joined.len;
                CHECKF(append_bytes(&joined, ch, chunks == NULL), "vector %s: bad chunk %lu", name, (unsigned long)j);
                pc[np].off = off; pc[np].len = joined.len - before; off += pc[np].len; np++;
            }
            ok = joined.len == in.len && (!in.len || !memcmp(joined.data, in.data, in.len));
            CHECKF(ok, "vector %s: the chunks do not join to the input", name);
            if (ok) run_pieces(name, "in its listed chunks", sse_run, &o, in.data, in.len, pc, np, lg_str(&gold));
            free(pc);
        }
        if (csize) {                          /* pieces of chunk_size bytes */
            int64_t cs = 0;
            CHECKF(mcp_json_int64(csize, &cs) && cs > 0, "vector %s: bad chunk_size", name);
            if (cs > 0) {
                piece *pc = (piece *)malloc((in.len + 1) * sizeof *pc);
                size_t np = 0, off;
                if (!pc) exit(2);
                for (off = 0; off < in.len; off += (size_t)cs, np++) {
                    pc[np].off = off;
                    pc[np].len = in.len - off < (size_t)cs ? in.len - off : (size_t)cs;
                }
                run_pieces(name, "in pieces of chunk_size", sse_run, &o, in.data, in.len, pc, np, lg_str(&gold));
                free(pc);
            }
        }
        mcp_buf_free(&in); mcp_buf_free(&gold); mcp_buf_free(&joined);
    }
    CHECKF(ncases == 52, "vectors.json has %lu cases, expected 52", (unsigned long)ncases);
    mcp_json_free(doc);
}

/* ---- extra golden cases --------------------------------------------------------------------- */

typedef struct sse_case { const char *name; const char *in; size_t len; size_t max_event; const char *golden; } sse_case;
#define IN(s) s, sizeof(s) - 1
#define X10 "xxxxxxxxxx"
#define X50 X10 X10 X10 X10 X10
#define X300 X50 X50 X50 X50 X50 X50
#define D10 "data: 0123456789\n"
#define EVD(d) "EV type='message' data='" d "' id=''"
#define FFFD "\\xef\\xbf\\xbd"

static const sse_case extra[] = {
    /* max_event: a line of exactly the limit is accepted; one byte more is MCP_ERR_LIMIT, at
       every split (the contract: "a line or an event's data over max_event"). */
    {"limit_line_exact", IN("data: 0123456789\n\n"), 16, EVD("0123456789") " | FIN ok | RETRY null"},
    {"limit_line_over_by_one", IN("data: 01234567890\n\n"), 16, "ERR LIMIT '" W_LINE "' | RETRY null"},
    {"limit_long_data_line", IN("data: " X50 X50 "\n\n"), 64, "ERR LIMIT '" W_LINE "' | RETRY null"},
    {"limit_long_data_line_unterminated", IN("data: " X50 X50), 64, "ERR LIMIT '" W_LINE "' | RETRY null"},
    {"limit_long_event_line", IN("event: " X10 X10 X10 "\ndata: x\n\n"), 16, "ERR LIMIT '" W_LINE "' | RETRY null"},
    {"limit_long_id_line", IN("id: " X10 X10 X10 "\ndata: x\n\n"), 16, "ERR LIMIT '" W_LINE "' | RETRY null"},
    {"limit_long_unknown_field_line", IN("x-field: " X10 X10 X10 "\ndata: x\n\n"), 16, "ERR LIMIT '" W_LINE "' | RETRY null"},
    {"limit_after_an_event", IN("data: ok\n\ndata: " X50 X50 "\n\ndata: never\n\n"), 64,
     EVD("ok") " | ERR LIMIT '" W_LINE "' | RETRY null"},
    /* an event's data (the joined data: lines, as delivered) of exactly max_event is accepted */
    {"limit_data_exact", IN(D10 D10 D10 "\n"), 32, EVD("0123456789\\n0123456789\\n0123456789") " | FIN ok | RETRY null"},
    {"limit_data_over_by_one", IN(D10 D10 "data: 01234567890\n\n"), 32, "ERR LIMIT '" W_DATA "' | RETRY null"},
    {"limit_data_many_lines", IN(D10 D10 D10 D10 D10 "\n"), 32, "ERR LIMIT '" W_DATA "' | RETRY null"},
    {"limit_data_is_per_event", IN(D10 D10 "\n" D10 D10 "\n"), 32,
     EVD("0123456789\\n0123456789") " | " EVD("0123456789\\n0123456789") " | FIN ok | RETRY null"},
    {"limit_retry_survives_error", IN("retry: 250\ndata: " X50 X50 "\n"), 64, "ERR LIMIT '" W_LINE "' | RETRY 250"},
    /* comments are skipped as they stream: a comment longer than max_event is fine */
    {"long_comment_lf", IN(":" X300 "\ndata: ok\n\n"), 16, EVD("ok") " | FIN ok | RETRY null"},
    {"long_comment_crlf", IN(":" X300 "\r\ndata: ok\r\n\r\n"), 16, EVD("ok") " | FIN ok | RETRY null"},
    {"long_comment_cr", IN(":" X300 "\rdata: ok\r\r"), 16, EVD("ok") " | FIN ok | RETRY null"},
    {"long_comment_between_data_lines", IN("data: a\n: " X300 "\r\ndata: b\n\n"), 16, EVD("a\\nb") " | FIN ok | RETRY null"},
    {"long_comments_only", IN(":" X300 "\n\n:" X300 "\n"), 16, "FIN ok | RETRY null"},
    {"long_comment_unterminated", IN("data: a\n\n:" X300), 16, EVD("a") " | FIN ok | RETRY null"},
    {"long_comment_after_bom", IN("\xEF\xBB\xBF:" X300 "\ndata: ok\n\n"), 16, EVD("ok") " | FIN ok | RETRY null"},
    /* UTF-8 repair as the WHATWG decoder does it: one U+FFFD per maximal invalid subpart */
    {"utf8_overlong", IN("data: \xC0\x80\n\n"), 0, EVD(FFFD FFFD) " | FIN ok | RETRY null"},
    {"utf8_surrogate", IN("data: \xED\xA0\x80\n\n"), 0, EVD(FFFD FFFD FFFD) " | FIN ok | RETRY null"},
    {"utf8_above_10ffff", IN("data: \xF4\x90\x80\x80\n\n"), 0, EVD(FFFD FFFD FFFD FFFD) " | FIN ok | RETRY null"},
    {"utf8_truncated_then_ascii", IN("data: \xF0\x9F\x98" "A\n\n"), 0, EVD(FFFD "A") " | FIN ok | RETRY null"},
    {"utf8_truncated_at_line_end", IN("data: \xE6\x97\ndata: \xE6\x97\xA5\n\n"), 0, EVD(FFFD "\\n\\xe6\\x97\\xa5") " | FIN ok | RETRY null"},
    {"utf8_lone_continuation", IN("data: a\x80" "b\n\n"), 0, EVD("a" FFFD "b") " | FIN ok | RETRY null"},
    {"utf8_four_byte_kept", IN("data: \xF0\x9F\x98\x80\n\n"), 0, EVD("\\xf0\\x9f\\x98\\x80") " | FIN ok | RETRY null"},
    {"utf8_in_event_and_id", IN("event: \xFF\nid: a\xFE\ndata: x\n\n"), 0,
     "EV type='" FFFD "' data='x' id='a" FFFD "' | FIN ok | RETRY null"},
    {"utf8_in_field_name", IN("d\xFFta: x\n\n"), 0, "FIN ok | RETRY null"},
    /* other */
    {"nul_inside_data", IN("data: a\0b\n\n"), 0, EVD("a\\0b") " | FIN ok | RETRY null"},
    {"event_field_without_colon", IN("event\ndata: x\n\n"), 0, EVD("x") " | FIN ok | RETRY null"},
    {"retry_zero", IN("retry: 0\n"), 0, "FIN ok | RETRY 0"},
    {"retry_empty_ignored", IN("retry\nretry:\nretry: \n"), 0, "FIN ok | RETRY null"},
    {"finish_discards_pending_event", IN("data: x\n\ndata: y\nid: 9\nevent: e\n"), 0, EVD("x") " | FIN ok | RETRY null"},
    {"finish_discards_pending_line", IN("data: x\n\ndata: y\n\r\ndata: z"), 0,
     EVD("x") " | " EVD("y") " | FIN ok | RETRY null"},
    {"cr_dispatch_then_lf_next_event", IN("id: 1\rdata: a\r\r\ndata: b\n\n"), 0,
     "EV type='message' data='a' id='1' | EV type='message' data='b' id='1' | FIN ok | RETRY null"},
    {"type_and_id_mcp", IN("event: message\r\nid: s1-0\r\ndata: {\"jsonrpc\":\"2.0\",\"id\":1}\r\n\r\n"
                            ": keep-alive\r\n\r\nid: s1-1\r\ndata: {}\r\n\r\n"), 0,
     "EV type='message' data='{\"jsonrpc\":\"2.0\",\"id\":1}' id='s1-0' | EV type='message' data='{}' id='s1-1' | FIN ok | RETRY null"},
};

TEST_CASE(extra)
{
    size_t i;
    for (i = 0; i < sizeof extra / sizeof extra[0]; i++) {
        sse_opt o;
        o.max_event = extra[i].max_event;
        run_modes(extra[i].name, sse_run, &o, extra[i].in, extra[i].len, extra[i].golden);
    }
}

/* Many events in one buffer, with types, ids, comments and all three line ends. */
TEST_CASE(many_events)
{
    mcp_buf in = {0}, gold = {0};
    sse_opt o;
    int i, n = quick ? 200 : 1500;
    const char *eol[3];
    char tmp[160];
    eol[0] = "\n"; eol[1] = "\r\n"; eol[2] = "\r";
    o.max_event = 0;
    for (i = 0; i < n; i++) {
        const char *e = eol[i % 3];
        int k = snprintf(tmp, sizeof tmp, "%s%s%sid: %d%sdata: {\"n\":%d}%sdata: x%s%s",
                         i % 5 ? "" : ": ping", i % 5 ? "" : e, i % 2 ? "event: t\n" : "",
                         i, e, i, e, e, e);
        lg_raw(&in, tmp, (size_t)k);
        lg_item(&gold);
        lg(&gold, "EV type='%s' data='{\"n\":%d}\\nx' id='%d'", i % 2 ? "t" : "message", i, i);
    }
    lg_item(&gold); lg(&gold, "FIN ok | RETRY null");
    run_modes("many_events", sse_run, &o, in.data, in.len, lg_str(&gold));
    mcp_buf_free(&in);
    mcp_buf_free(&gold);
}

/* ---- direct tests --------------------------------------------------------------------------- */

/* Feeds s whole (in a loop); returns the last status; *ev gets the last event (copied data into
   buf). */
static mcp_status sse_feed_str(mcp_sse *p, const char *s, int *events, char *last_data, size_t cap)
{
    size_t off = 0, n = strlen(s), used;
    mcp_status st = MCP_AGAIN;
    mcp_sse_event ev;
    *events = 0;
    if (last_data && cap) last_data[0] = 0;
    while (off < n) {
        st = mcp_sse_feed(p, s + off, n - off, &used);
        if (st < 0) return st;
        off += used;
        while (mcp_sse_next(p, &ev) == MCP_OK) {
            (*events)++;
            if (last_data && cap) snprintf(last_data, cap, "%s|%s|%s", ev.type, ev.data, ev.id);
        }
        if (st == MCP_OK && !used) return MCP_ERR_INVALID;
    }
    return st;
}

TEST_CASE(last_id_and_reset)
{
    mcp_sse p;
    size_t n = 99;
    const char *id;
    char last[256];
    int events;
    mcp_status st;
    memset(&p, 0, sizeof p);
    id = mcp_sse_last_id(&p, &n);
    CHECK(id && !strcmp(id, "") && n == 0);
    CHECK(mcp_sse_last_id(&p, NULL) != NULL);

    st = sse_feed_str(&p, "retry: 1500\nid: 42\ndata: a\n\n", &events, last, sizeof last);
    CHECK(st != MCP_ERR_INVALID && st >= 0 && events == 1 && !strcmp(last, "message|a|42"));
    id = mcp_sse_last_id(&p, &n);
    CHECK(id && !strcmp(id, "42") && n == 2);
    CHECK(p.has_retry == 1 && p.retry_ms == 1500);

    /* an id not yet dispatched does not count; reset drops it and the pending data */
    st = sse_feed_str(&p, "id: 43\ndata: lost\n", &events, last, sizeof last);
    CHECK(st == MCP_AGAIN && events == 0);
    id = mcp_sse_last_id(&p, &n);
    CHECK(id && !strcmp(id, "42") && n == 2);
    mcp_sse_reset(&p);
    id = mcp_sse_last_id(&p, &n);
    CHECKF(id && !strcmp(id, "42") && n == 2, "after reset the last id is \"%s\"", id ? id : "(null)");
    CHECK(p.has_retry == 1 && p.retry_ms == 1500 && p.what == NULL);

    /* the next stream's events carry the old id until a new one comes; a BOM is allowed again */
    st = sse_feed_str(&p, "\xEF\xBB\xBF" "data: b\n\n", &events, last, sizeof last);
    CHECKF(events == 1 && !strcmp(last, "message|b|42"), "first event after reset: %d events, %s", events, last);
    st = sse_feed_str(&p, "id\ndata: c\n\n", &events, last, sizeof last);
    CHECK(events == 1 && !strcmp(last, "message|c|"));
    id = mcp_sse_last_id(&p, &n);
    CHECK(id && !strcmp(id, "") && n == 0);

    /* reset clears a sticky error and keeps max_event */
    p.max_event = 8;
    st = sse_feed_str(&p, "data: 0123456789\n\n", &events, NULL, 0);
    CHECK(st == MCP_ERR_LIMIT && p.what && p.what[0]);
    mcp_sse_reset(&p);
    CHECK(p.what == NULL && p.max_event == 8);
    st = sse_feed_str(&p, "data: ok\n\n", &events, last, sizeof last);
    CHECK(events == 1 && !strcmp(last, "message|ok|"));
    st = sse_feed_str(&p, "data: 0123456789\n\n", &events, NULL, 0);
    CHECK(st == MCP_ERR_LIMIT);

    mcp_sse_free(&p);
    CHECK(p.has_retry == 0 && p.retry_ms == 0);
    mcp_sse_free(&p);
    mcp_sse_free(NULL);
}

TEST_CASE(finish)
{
    mcp_sse p;
    mcp_sse_event ev;
    int events;
    char last[64];
    memset(&p, 0, sizeof p);
    CHECK(sse_feed_str(&p, "event: e\ndata: x\n", &events, NULL, 0) == MCP_AGAIN && events == 0);
    CHECK(mcp_sse_finish(&p) == MCP_OK);
    CHECK(mcp_sse_next(&p, &ev) == MCP_AGAIN);
    /* discarded, not delayed: a blank line after finish dispatches nothing */
    CHECK(sse_feed_str(&p, "\n", &events, NULL, 0) == MCP_AGAIN && events == 0);
    CHECK(sse_feed_str(&p, "data: y\n\n", &events, last, sizeof last) == MCP_OK && events == 1 && !strcmp(last, "message|y|"));
    /* finish with an event waiting keeps it */
    mcp_sse_reset(&p);
    {
        size_t used;
        CHECK(mcp_sse_feed(&p, "data: z\n\n", 9, &used) == MCP_OK && used == 9);
        CHECK(mcp_sse_finish(&p) == MCP_OK);
        CHECK(mcp_sse_next(&p, &ev) == MCP_OK && ev.data_len == 1 && !strcmp(ev.data, "z"));
    }
    mcp_sse_free(&p);
}

TEST_CASE(api_edges)
{
    mcp_sse p;
    mcp_sse_event ev;
    size_t used = 5;
    memset(&p, 0, sizeof p);
    CHECK(mcp_sse_next(&p, &ev) == MCP_AGAIN);
    CHECK(mcp_sse_feed(&p, "", 0, &used) == MCP_AGAIN && used == 0);
    CHECK(mcp_sse_finish(&p) == MCP_OK);
    /* feed while an event waits: nothing consumed */
    CHECK(mcp_sse_feed(&p, "data: 1\n\ndata: 2\n\n", 18, &used) == MCP_OK && used == 9);
    CHECK(mcp_sse_feed(&p, "data: 2\n\n", 9, &used) == MCP_OK && used == 0);
    CHECK(mcp_sse_next(&p, &ev) == MCP_OK && !strcmp(ev.data, "1") && !strcmp(ev.type, "message") && !strcmp(ev.id, ""));
    CHECK(mcp_sse_next(&p, &ev) == MCP_AGAIN);
    CHECK(mcp_sse_feed(&p, "data: 2\n\n", 9, &used) == MCP_OK && used == 9);
    CHECK(mcp_sse_next(&p, &ev) == MCP_OK && !strcmp(ev.data, "2"));
    mcp_sse_free(&p);
}

/* retry: "interpreted as an integer in base ten"; a value too large for retry_ms must not wrap
   to a small one, and a larger value never gives a smaller delay. */
TEST_CASE(retry_range)
{
    mcp_sse p;
    int events;
    unsigned long a, b, c;
    memset(&p, 0, sizeof p);
    sse_feed_str(&p, "retry: 4000000\n", &events, NULL, 0);
    CHECK(p.has_retry && p.retry_ms == 4000000ul);
    sse_feed_str(&p, "retry: 1000000009\n", &events, NULL, 0);
    a = p.retry_ms;
    sse_feed_str(&p, "retry: 2000000000\n", &events, NULL, 0);
    b = p.retry_ms;
    sse_feed_str(&p, "retry: 99999999999999999999999999999999\n", &events, NULL, 0);
    c = p.retry_ms;
    CHECKF(a >= 1000000000ul && b >= 1000000000ul && c >= 1000000000ul,
           "large retry values wrapped: %lu %lu %lu", a, b, c);
    CHECKF(b >= a && c >= b, "retry is not monotonic: 1000000009 -> %lu, 2000000000 -> %lu, 1e32 -> %lu", a, b, c);
    mcp_sse_free(&p);
}

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

/* A 10 MB data line fed one byte at a time: linear, not quadratic. Then a 10 MB event made of
   many data lines, fed whole. */
TEST_CASE(linear)
{
    size_t n = quick ? (size_t)1 << 19 : (size_t)10 << 20, i, used, events = 0, dlen = 0;
    mcp_sse p;
    mcp_sse_event ev;
    mcp_status st = MCP_AGAIN;
    const char *prefix = "data: ";
    double t0 = now_s(), dt;
    int ok = 1, content_ok = 1;
    char c;
    memset(&p, 0, sizeof p);
    for (i = 0; i < n + 8 && ok; i++) {
        if (!(i & 0xFFFF) && now_s() - t0 > 5.0) break;   /* quadratic: give up early */
        c = i < 6 ? prefix[i] : i < n + 6 ? (char)('a' + i % 26) : '\n';
        st = mcp_sse_feed(&p, &c, 1, &used);
        if (st < 0 || used != 1) { ok = 0; break; }
        if (st == MCP_OK) {
            if (mcp_sse_next(&p, &ev) != MCP_OK) { ok = 0; break; }
            events++; dlen = ev.data_len;
            if (dlen == n) {
                size_t k;
                for (k = 0; k < n; k += 4099) if (ev.data[k] != (char)('a' + (k + 6) % 26)) content_ok = 0;
                if (ev.data[n] != 0) content_ok = 0;
            }
        }
    }
    dt = now_s() - t0;
    CHECKF(ok && events == 1 && dlen == n && content_ok, "%lu-byte data line byte by byte: %s, %lu events, %lu bytes",
           (unsigned long)n, sname(st), (unsigned long)events, (unsigned long)dlen);
    CHECKF(dt < 5.0, "%lu bytes one at a time took %.2f s (quadratic?)", (unsigned long)n, dt);
    printf("linear: %lu-byte data line fed one byte at a time in %.3f s\n", (unsigned long)n, dt);

    {   /* many lines joined into one event */
        mcp_buf in = {0};
        size_t lines = n / 1024, off = 0;
        char line[1031];
        memcpy(line, "data: ", 6);
        memset(line + 6, 'z', 1024);
        line[1030] = '\n';
        for (i = 0; i < lines; i++) lg_raw(&in, line, sizeof line);
        lg_raw(&in, "\n", 1);
        mcp_sse_reset(&p);
        events = 0; dlen = 0;
        t0 = now_s();
        while (off < in.len) {
            st = mcp_sse_feed(&p, in.data + off, in.len - off, &used);
            if (st < 0) break;
            off += used;
            while (mcp_sse_next(&p, &ev) == MCP_OK) { events++; dlen = ev.data_len; }
        }
        dt = now_s() - t0;
        CHECKF(st == MCP_OK && events == 1 && dlen == lines * 1025 - 1, "%lu data lines: %s, %lu events, %lu bytes",
               (unsigned long)lines, sname(st), (unsigned long)events, (unsigned long)dlen);
        CHECKF(dt < 5.0, "%lu data lines took %.2f s", (unsigned long)lines, dt);
        mcp_buf_free(&in);
    }
    mcp_sse_free(&p);
}

int main(int argc, char **argv)
{
    const char *q = getenv("MCP_TEST_QUICK");
    test_args(&argc, argv);
    if (argc > 1) dir = argv[1];
    quick = q && *q && strcmp(q, "0");
    test_run();
    guard_free();
    return TEST_DONE();
}
