/* Tests of the HTTP layer (>>http), issue 3: "Sans-I/O framers ... correct at every split".

   1. The response parser: golden event logs, llhttp style
          HEAD 200 v11 'OK' chunked ka=1 Transfer-Encoding:'chunked' | BODY 'hello' | END ka=1 | FIN ok
      (BODY pieces are joined, since how a body is cut depends on how it was fed; REST is what
      the parser left unconsumed after END; FIN is what mcp_http_resp_finish said at the end of
      the input, and where; ERR is a feed error with its `what`). Each case is fed whole, split
      at every byte into two pieces, one byte at a time and in random pieces; every piece is
      copied to end right before a PROT_NONE page (picohttpparser's trick) and scribbled over
      once taken. The driver also checks the feed/next contract on every call (AGAIN takes every
      byte, BODY points into the bytes that feed consumed, errors are sticky, bytes after END
      are not consumed, every header is found again by mcp_http_resp_header in any case) and
      writes a breach into the log ("!! ..."). The cases follow the response cases of
      picohttpparser's and llhttp's suites plus RFC 9112's framing rules.
   2. Direct tests: header lookup, reset and reuse (pipelined responses), streaming bodies,
      huge chunks, limits, linear time.
   3. The URL parser and the request writer: exact bytes, and every refusal.

   Usage: test_http [DATA_DIR]   (no data files needed; MCP_TEST_QUICK=1 shrinks big inputs) */
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
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static int quick;


/* ---- the response driver -------------------------------------------------------------------- */

typedef struct http_opt { int head_request; size_t max_head, max_headers; } http_opt;

static void h_flush(mcp_buf *log, mcp_buf *body)
{
    if (!body->len) return;
    lg_item(log); lg(log, "BODY "); lg_q(log, body->data, body->len);
    body->len = 0;
}

static int h_lower(int c) { return c >= 'A' && c <= 'Z' ? c + 32 : c; }
static int h_ieq(const char *a, const char *b)
{
    for (; *a && *b; a++, b++) if (h_lower((unsigned char)*a) != h_lower((unsigned char)*b)) return 0;
    return *a == *b;
}

static void h_head(const mcp_http_resp *r, mcp_buf *log)
{
    size_t i, j, n = mcp_http_resp_header_count(r);
    lg_item(log);
    lg(log, "HEAD %d v%d ", r->status, r->version);
    lg_q(log, r->reason ? r->reason : "(null)", r->reason ? strlen(r->reason) : 6);
    switch (r->framing) {
    case MCP_HTTP_NO_BODY: lg(log, " none"); break;
    case MCP_HTTP_LENGTH: lg(log, " length=%llu", (unsigned long long)r->content_length); break;
    case MCP_HTTP_CHUNKED: lg(log, " chunked"); break;
    case MCP_HTTP_UNTIL_CLOSE: lg(log, " close"); break;
    default: lg(log, " framing?%d", (int)r->framing);
    }
    lg(log, " ka=%d", r->keep_alive);
    for (i = 0; i < n; i++) {
        const char *v = NULL, *name = mcp_http_resp_header_at(r, i, &v);
        char lower[256], upper[256];
        size_t nth = 0, k;
        if (!name || !v) { viol(log, "header_at(%lu) is NULL", (unsigned long)i); return; }
        lg(log, " %s:", name);
        lg_q(log, v, strlen(v));
        /* found again by name, in any case, as the nth of its name */
        for (j = 0; j < i; j++) if (h_ieq(mcp_http_resp_header_at(r, j, NULL), name)) nth++;
        for (k = 0; name[k] && k < 255; k++) { lower[k] = (char)h_lower((unsigned char)name[k]); upper[k] = (char)(lower[k] >= 'a' && lower[k] <= 'z' ? lower[k] - 32 : lower[k]); }
        lower[k] = upper[k] = 0;
        if (name[k]) continue;                 /* a name too long for the buffers: not rechecked */
        if (mcp_http_resp_header(r, lower, nth) != v || mcp_http_resp_header(r, upper, nth) != v)
            viol(log, "mcp_http_resp_header(\"%s\", %lu) does not find header %lu", name, (unsigned long)nth, (unsigned long)i);
    }
    if (mcp_http_resp_header_at(r, n, NULL) != NULL) viol(log, "header_at(count) is not NULL");
}

/* Takes every waiting event. BODY must lie in [lo, hi): the bytes the last feed consumed. */
static size_t h_drain(mcp_http_resp *r, mcp_buf *log, mcp_buf *body, const char *lo, const char *hi,
                      int *heads, int *ended, mcp_status after)
{
    mcp_http_event ev;
    mcp_status st;
    size_t got = 0;
    while ((st = mcp_http_resp_next(r, &ev)) == MCP_OK) {
        got++;
        if (*ended) viol(log, "an event after END");
        switch (ev.type) {
        case MCP_HTTP_HEAD:
            h_flush(log, body);
            if ((*heads)++) viol(log, "a second HEAD");
            h_head(r, log);
            break;
        case MCP_HTTP_BODY:
            if (!*heads) viol(log, "BODY before HEAD");
            if (!ev.data || !ev.len) { viol(log, "an empty BODY"); break; }
            if (ev.data < lo || ev.data + ev.len > hi) { viol(log, "BODY outside the bytes that feed consumed"); break; }
            lg_raw(body, ev.data, ev.len);
            break;
        case MCP_HTTP_END:
            h_flush(log, body);
            if (!*heads) viol(log, "END before HEAD");
            lg_item(log); lg(log, "END ka=%d", r->keep_alive);
            *ended = 1;
            break;
        default:
            viol(log, "event type %d", (int)ev.type);
        }
        if (got > 1000000) break;
    }
    if (st != after) viol(log, "next returned %s after the events", sname(st));
    return got;
}

static void h_sticky(mcp_http_resp *r, mcp_status st, mcp_buf *log)
{
    size_t used = 99;
    mcp_http_event ev;
    mcp_status s2 = mcp_http_resp_feed(r, "HTTP/1.1 200 OK\r\n\r\n", 19, &used);
    if (s2 != st || used != 0) viol(log, "feed after the error gave %s, used %lu", sname(s2), (unsigned long)used);
    s2 = mcp_http_resp_next(r, &ev);
    if (s2 != st) viol(log, "next after the error gave %s", sname(s2));
    s2 = mcp_http_resp_finish(r);
    if (s2 != st) viol(log, "finish after the error gave %s", sname(s2));
    if (!r->what || !r->what[0]) viol(log, "no what after the error");
}

static void h_run(const void *opt, const char *in, size_t n, const piece *pc, size_t np, int low,
                  mcp_buf *log)
{
    const http_opt *o = (const http_opt *)opt;
    mcp_http_resp r;
    mcp_buf body = {0}, rest = {0};
    mcp_status st;
    size_t i, got;
    int heads = 0, ended = 0;
    (void)n;
    memset(&r, 0, sizeof r);
    r.head_request = o->head_request; r.max_head = o->max_head; r.max_headers = o->max_headers;
    for (i = 0; i < np; i++) {
        char *d = guard_put(in + pc[i].off, pc[i].len, low);
        size_t off = 0, len = pc[i].len;
        int first = 1;
        while (!ended && (off < len || first)) {
            size_t used = (size_t)-1;
            const char *lo = d + off;
            first = 0;
            st = mcp_http_resp_feed(&r, d + off, len - off, &used);
            if (used > len - off) { viol(log, "feed used %lu of %lu bytes", (unsigned long)used, (unsigned long)(len - off)); goto out; }
            off += used;
            if (st < 0) {
                h_flush(log, &body);
                lg_item(log); lg(log, "ERR %s ", sname(st)); lg_q(log, r.what ? r.what : "", r.what ? strlen(r.what) : 0);
                h_sticky(&r, st, log);
                goto out;
            }
            if (st != MCP_OK && st != MCP_AGAIN) { viol(log, "feed returned %d", (int)st); goto out; }
            got = h_drain(&r, log, &body, lo, lo + used, &heads, &ended, MCP_AGAIN);
            if (st == MCP_AGAIN && off != len) viol(log, "AGAIN but only %lu of %lu bytes taken", (unsigned long)off, (unsigned long)len);
            if (st == MCP_AGAIN && got) viol(log, "an event was waiting after AGAIN");
            if (st == MCP_OK && !got) { viol(log, "OK without an event"); goto out; }
            if (!used && !got && off < len) { viol(log, "no progress"); goto out; }
        }
        if (ended && off < len) {
            /* bytes after END belong to the next response: never consumed */
            size_t used = 99;
            mcp_http_event ev;
            st = mcp_http_resp_feed(&r, d + off, len - off, &used);
            if (st < 0 || used != 0) viol(log, "feed after END gave %s and used %lu", sname(st), (unsigned long)used);
            if (mcp_http_resp_next(&r, &ev) != MCP_AGAIN) viol(log, "an event after END");
            lg_raw(&rest, d + off, len - off);
        }
        memset(d, 0xA5, len);
    }
    h_flush(log, &body);
    if (rest.len) { lg_item(log); lg(log, "REST "); lg_q(log, rest.data, rest.len); }
    st = mcp_http_resp_finish(&r);
    lg_item(log);
    if (st == MCP_OK) lg(log, "FIN ok");
    else { lg(log, "FIN %s ", sname(st)); lg_q(log, r.what ? r.what : "", r.what ? strlen(r.what) : 0); }
    h_drain(&r, log, &body, NULL, NULL, &heads, &ended, st < 0 ? st : MCP_AGAIN);
    h_flush(log, &body);
    if (st < 0) h_sticky(&r, st, log);
    else if (!ended) viol(log, "finish OK without END");
out:
    mcp_http_resp_free(&r);
    mcp_buf_free(&body);
    mcp_buf_free(&rest);
}

/* ---- golden cases --------------------------------------------------------------------------- */

#define W_CR "the response has a carriage return that does not end a line"
#define W_SL "the response does not start with an HTTP/1.x status line"
#define W_SC "the status code is not three digits from 100 to 599"
#define W_REASON "the reason phrase has a control character"
#define W_FOLD "the response uses obsolete header line folding"
#define W_WSCOLON "a header name is followed by whitespace before the colon"
#define W_NAME "a header line has no name or a name with a character that is not allowed"
#define W_VALUE "a header value has a control character"
#define W_NHDRS "the response has more headers than the limit"
#define W_TE "a transfer coding follows chunked"
#define W_CLNUM "Content-Length is not a valid number"
#define W_CLCONF "the response has conflicting Content-Length values"
#define W_CLEMPTY "Content-Length is empty"
#define W_HEADBIG "the response head is larger than the limit"
#define W_CBIG "a chunk size is too large"
#define W_CHEX "a chunk size is not a hexadecimal number"
#define W_EXTBIG "a chunk extension is longer than 4096 bytes"
#define W_EXTCTL "a chunk extension has a control character"
#define W_CSIZECR "a chunk size line has a CR without LF"
#define W_CLONG "chunk data is longer than its chunk size"
#define W_CCRLF "chunk data is not followed by CRLF"
#define W_TBIG "the trailers are larger than the head limit"
#define W_TCTL "a trailer has a control character"
#define W_TCR "a trailer line has a CR without LF"
#define W_CEND "the chunked body does not end with CRLF"
#define W_FNONE "the connection closed before a response arrived"
#define W_FHEAD "the connection closed in the middle of the response head"
#define W_FCL "the connection closed before the whole Content-Length body arrived"
#define W_FCHUNK "the connection closed before the last chunk of a chunked body"

#define EP(w) "ERR PARSE '" w "'"
#define EL(w) "ERR LIMIT '" w "'"
#define FP(w) "FIN PARSE '" w "'"
#define OK200 "HTTP/1.1 200 OK\r\n"
#define TE_CH "Transfer-Encoding: chunked\r\n"
#define CL0 "Content-Length: 0\r\n"
#define CH_HEAD "HEAD 200 v11 'OK' chunked ka=1 Transfer-Encoding:'chunked'"
#define CL0_END "none ka=1 Content-Length:'0' | END ka=1 | FIN ok"
#define X10 "xxxxxxxxxx"
#define X50 X10 X10 X10 X10 X10

typedef struct h_case {
    const char *name; const char *in; size_t len;
    int head_request; size_t max_head, max_headers;
    const char *golden;
} h_case;
#define IN(s) s, sizeof(s) - 1

static const h_case cases[] = {
    /* ---- status line */
    {"status_11", IN(OK200 "Content-Length: 5\r\n\r\nhello"), 0, 0, 0,
     "HEAD 200 v11 'OK' length=5 ka=1 Content-Length:'5' | BODY 'hello' | END ka=1 | FIN ok"},
    {"status_10", IN("HTTP/1.0 200 OK\r\nContent-Length: 2\r\n\r\nhi"), 0, 0, 0,
     "HEAD 200 v10 'OK' length=2 ka=0 Content-Length:'2' | BODY 'hi' | END ka=0 | FIN ok"},
    {"status_no_reason", IN("HTTP/1.1 204\r\n\r\n"), 0, 0, 0, "HEAD 204 v11 '' none ka=1 | END ka=1 | FIN ok"},
    {"status_empty_reason", IN("HTTP/1.1 204 \r\n\r\n"), 0, 0, 0, "HEAD 204 v11 '' none ka=1 | END ka=1 | FIN ok"},
    {"status_reason_text", IN("HTTP/1.1 404 Not \tFound \xe2\x9c\x97\r\n" CL0 "\r\n"), 0, 0, 0,
     "HEAD 404 v11 'Not \\tFound \\xe2\\x9c\\x97' " CL0_END},
    {"status_minor_2_read_as_11", IN("HTTP/1.2 200 OK\r\n" CL0 "\r\n"), 0, 0, 0, "HEAD 200 v11 'OK' " CL0_END},
    {"status_599", IN("HTTP/1.1 599 Custom\r\n" CL0 "\r\n"), 0, 0, 0, "HEAD 599 v11 'Custom' " CL0_END},
    {"status_100_is_interim_not_final", IN("HTTP/1.1 100 Continue\r\n\r\n"), 0, 0, 0, FP(W_FHEAD)},
    {"version_20", IN("HTTP/2.0 200 OK\r\n\r\n"), 0, 0, 0, EP(W_SL)},
    {"version_2", IN("HTTP/2 200 OK\r\n\r\n"), 0, 0, 0, EP(W_SL)},
    {"version_11x", IN("HTTP/1.1x 200 OK\r\n\r\n"), 0, 0, 0, EP(W_SL)},
    {"version_1", IN("HTTP/1 200 OK\r\n\r\n"), 0, 0, 0, EP(W_SL)},
    {"version_1a", IN("HTTP/1.a 200 OK\r\n\r\n"), 0, 0, 0, EP(W_SL)},
    {"version_lowercase", IN("http/1.1 200 OK\r\n\r\n"), 0, 0, 0, EP(W_SL)},
    {"version_https", IN("HTTPS/1.1 200 OK\r\n\r\n"), 0, 0, 0, EP(W_SL)},
    {"version_icy", IN("ICY 200 OK\r\n\r\n"), 0, 0, 0, EP(W_SL)},
    {"garbage", IN("garbage\r\n\r\n"), 0, 0, 0, EP(W_SL)},
    {"status_line_leading_space", IN(" HTTP/1.1 200 OK\r\n\r\n"), 0, 0, 0, EP(W_SL)},
    {"status_line_tab", IN("HTTP/1.1\t200 OK\r\n\r\n"), 0, 0, 0, EP(W_SL)},
    {"status_two_digits_short", IN("HTTP/1.1 20\r\n\r\n"), 0, 0, 0, EP(W_SL)},
    {"status_two_digits", IN("HTTP/1.1 20 OK\r\n\r\n"), 0, 0, 0, EP(W_SC)},
    {"status_four_digits", IN("HTTP/1.1 2000 OK\r\n\r\n"), 0, 0, 0, EP(W_SC)},
    {"status_letters", IN("HTTP/1.1 abc OK\r\n\r\n"), 0, 0, 0, EP(W_SC)},
    {"status_letter_o", IN("HTTP/1.1 2OO OK\r\n\r\n"), 0, 0, 0, EP(W_SC)},
    {"status_099", IN("HTTP/1.1 099 X\r\n\r\n"), 0, 0, 0, EP(W_SC)},
    {"status_600", IN("HTTP/1.1 600 X\r\n\r\n"), 0, 0, 0, EP(W_SC)},
    {"status_negative", IN("HTTP/1.1 -20 X\r\n\r\n"), 0, 0, 0, EP(W_SC)},
    {"status_no_space_before_reason", IN("HTTP/1.1 200OK\r\n\r\n"), 0, 0, 0, EP(W_SC)},
    {"reason_control_char", IN("HTTP/1.1 200 O\x01K\r\n\r\n"), 0, 0, 0, EP(W_REASON)},
    {"reason_del", IN("HTTP/1.1 200 O\x7fK\r\n\r\n"), 0, 0, 0, EP(W_REASON)},
    {"reason_nul", IN("HTTP/1.1 200 O\0K\r\n\r\n"), 0, 0, 0, EP(W_REASON)},
    {"leading_blank_lines", IN("\r\n\n\r\n" OK200 CL0 "\r\n"), 0, 0, 0, "HEAD 200 v11 'OK' " CL0_END},

    /* ---- header fields */
    {"headers_ows_trimmed_and_empty_values", IN(OK200 "A:   x y  \t\r\nB:\r\nC: \t \r\nD:z\r\n" CL0 "\r\n"), 0, 0, 0,
     "HEAD 200 v11 'OK' none ka=1 A:'x y' B:'' C:'' D:'z' Content-Length:'0' | END ka=1 | FIN ok"},
    {"headers_repeated_any_case", IN(OK200 "Set-Cookie: a=1\r\nset-cookie: b=2\r\nX-Mixed-Case: V\r\nSET-COOKIE: c=3\r\n" CL0 "\r\n"), 0, 0, 0,
     "HEAD 200 v11 'OK' none ka=1 Set-Cookie:'a=1' set-cookie:'b=2' X-Mixed-Case:'V' SET-COOKIE:'c=3' Content-Length:'0' | END ka=1 | FIN ok"},
    {"header_value_tab_and_obs_text", IN(OK200 "A: b\tc\r\nB: caf\xc3\xa9\r\n" CL0 "\r\n"), 0, 0, 0,
     "HEAD 200 v11 'OK' none ka=1 A:'b\\tc' B:'caf\\xc3\\xa9' Content-Length:'0' | END ka=1 | FIN ok"},
    {"header_name_every_tchar", IN(OK200 "!#$%&'*+-.^_`|~09azAZ: v\r\n" CL0 "\r\n"), 0, 0, 0,
     "HEAD 200 v11 'OK' none ka=1 !#$%&'*+-.^_`|~09azAZ:'v' Content-Length:'0' | END ka=1 | FIN ok"},
    {"header_value_with_colons", IN(OK200 "Location: http://h:80/a?b=c:d\r\n" CL0 "\r\n"), 0, 0, 0,
     "HEAD 200 v11 'OK' none ka=1 Location:'http://h:80/a?b=c:d' Content-Length:'0' | END ka=1 | FIN ok"},
    {"obs_fold_space", IN(OK200 "A: b\r\n  c\r\n" CL0 "\r\n"), 0, 0, 0, EP(W_FOLD)},
    {"obs_fold_tab", IN(OK200 "A: b\r\n\tc\r\n\r\n"), 0, 0, 0, EP(W_FOLD)},
    {"obs_fold_first_line", IN(OK200 " A: b\r\n\r\n"), 0, 0, 0, EP(W_FOLD)},
    {"space_before_colon", IN(OK200 "A : b\r\n\r\n"), 0, 0, 0, EP(W_WSCOLON)},
    {"tab_before_colon", IN(OK200 "A\t: b\r\n\r\n"), 0, 0, 0, EP(W_WSCOLON)},
    {"name_at_sign", IN(OK200 "A@B: c\r\n\r\n"), 0, 0, 0, EP(W_NAME)},
    {"name_paren", IN(OK200 "A(B): c\r\n\r\n"), 0, 0, 0, EP(W_NAME)},
    {"name_quote", IN(OK200 "A\"B: c\r\n\r\n"), 0, 0, 0, EP(W_NAME)},
    {"name_slash", IN(OK200 "A/B: c\r\n\r\n"), 0, 0, 0, EP(W_NAME)},
    {"name_non_ascii", IN(OK200 "\xc3\xa9: x\r\n\r\n"), 0, 0, 0, EP(W_NAME)},
    {"name_control_char", IN(OK200 "A\x01: b\r\n\r\n"), 0, 0, 0, EP(W_NAME)},
    {"name_nul", IN(OK200 "A\0B: c\r\n\r\n"), 0, 0, 0, EP(W_NAME)},
    {"name_empty", IN(OK200 ": v\r\n\r\n"), 0, 0, 0, EP(W_NAME)},
    {"name_no_colon", IN(OK200 "NoColon\r\n\r\n"), 0, 0, 0, EP(W_NAME)},
    {"value_control_char", IN(OK200 "A: b\x01" "c\r\n\r\n"), 0, 0, 0, EP(W_VALUE)},
    {"value_del", IN(OK200 "A: b\x7f\r\n\r\n"), 0, 0, 0, EP(W_VALUE)},
    {"value_nul", IN(OK200 "A: b\0c\r\n\r\n"), 0, 0, 0, EP(W_VALUE)},
    {"value_escape", IN(OK200 "A: \x1b[31m\r\n\r\n"), 0, 0, 0, EP(W_VALUE)},
    {"bare_cr_in_status_line", IN("HTTP/1.1 200 OK\rX: y\r\n\r\n"), 0, 0, 0, EP(W_CR)},
    {"bare_cr_in_value", IN(OK200 "A: b\rc\r\n\r\n"), 0, 0, 0, EP(W_CR)},
    {"bare_cr_after_name", IN(OK200 "A\r: b\r\n\r\n"), 0, 0, 0, EP(W_CR)},
    {"bare_cr_line_start", IN(OK200 "\rA: b\r\n\r\n"), 0, 0, 0, EP(W_CR)},
    {"bare_cr_blank_line", IN(OK200 "A: b\r\n\r\r\n\r\n"), 0, 0, 0, EP(W_CR)},
    {"bare_lf_everywhere", IN("HTTP/1.1 200 OK\nA: b\nTransfer-Encoding: chunked\n\n5\nhello\n3;x=y\nabc\n0\nT: 1\n\n"), 0, 0, 0,
     "HEAD 200 v11 'OK' chunked ka=1 A:'b' Transfer-Encoding:'chunked' | BODY 'helloabc' | END ka=1 | FIN ok"},
    {"bare_lf_content_length", IN("HTTP/1.0 200 OK\nContent-Length: 3\n\nabc"), 0, 0, 0,
     "HEAD 200 v10 'OK' length=3 ka=0 Content-Length:'3' | BODY 'abc' | END ka=0 | FIN ok"},
    {"crlf_and_lf_mixed", IN("HTTP/1.1 200 OK\r\nA: b\nContent-Length: 1\r\n\nZ"), 0, 0, 0,
     "HEAD 200 v11 'OK' length=1 ka=1 A:'b' Content-Length:'1' | BODY 'Z' | END ka=1 | FIN ok"},

    /* ---- limits (the defaults are tested with generated heads) */
    {"max_head_exact", IN(OK200 CL0 "\r\n"), 0, 38, 0, "HEAD 200 v11 'OK' " CL0_END},
    {"max_head_over_by_one", IN(OK200 CL0 "\r\n"), 0, 37, 0, EL(W_HEADBIG)},
    {"max_head_without_leading_blank_lines", IN("\r\n\r\n" OK200 CL0 "\r\n"), 0, 38, 0, "HEAD 200 v11 'OK' " CL0_END},
    {"max_head_per_response", IN("HTTP/1.1 100 Continue\r\n\r\n" OK200 CL0 "\r\n"), 0, 38, 0, "HEAD 200 v11 'OK' " CL0_END},
    {"max_head_unterminated_line", IN(OK200 "X: " X50), 0, 40, 0, EL(W_HEADBIG)},
    {"max_headers_exact", IN(OK200 "A: 1\r\n" CL0 "\r\n"), 0, 0, 2,
     "HEAD 200 v11 'OK' none ka=1 A:'1' Content-Length:'0' | END ka=1 | FIN ok"},
    {"max_headers_over_by_one", IN(OK200 "A: 1\r\nB: 2\r\n" CL0 "\r\n"), 0, 0, 2, EL(W_NHDRS)},
    {"max_headers_per_response", IN("HTTP/1.1 103 Early Hints\r\nLink: </a>\r\nLink: </b>\r\n\r\n" OK200 "A: 1\r\n" CL0 "\r\n"), 0, 0, 2,
     "HEAD 200 v11 'OK' none ka=1 A:'1' Content-Length:'0' | END ka=1 | FIN ok"},
    {"max_headers_in_interim_response", IN("HTTP/1.1 103 Early Hints\r\nLink: </a>\r\nLink: </b>\r\nLink: </c>\r\n\r\n" OK200 CL0 "\r\n"), 0, 0, 2, EL(W_NHDRS)},

    /* ---- Content-Length */
    {"cl_zero_then_next_response", IN(OK200 CL0 "\r\nHTTP/1.1 200 OK\r\n"), 0, 0, 0,
     "HEAD 200 v11 'OK' none ka=1 Content-Length:'0' | END ka=1 | REST 'HTTP/1.1 200 OK\\r\\n' | FIN ok"},
    {"cl_body_then_next_response", IN(OK200 "Content-Length: 3\r\n\r\nabcHTTP/1.1"), 0, 0, 0,
     "HEAD 200 v11 'OK' length=3 ka=1 Content-Length:'3' | BODY 'abc' | END ka=1 | REST 'HTTP/1.1' | FIN ok"},
    {"cl_duplicate_equal", IN(OK200 "Content-Length: 3\r\ncontent-length: 3\r\n\r\nabc"), 0, 0, 0,
     "HEAD 200 v11 'OK' length=3 ka=1 Content-Length:'3' content-length:'3' | BODY 'abc' | END ka=1 | FIN ok"},
    {"cl_duplicate_conflicting", IN(OK200 "Content-Length: 3\r\nContent-Length: 4\r\n\r\nabcd"), 0, 0, 0, EP(W_CLCONF)},
    {"cl_list_equal", IN(OK200 "Content-Length: 5, 5\r\n\r\nhello"), 0, 0, 0,
     "HEAD 200 v11 'OK' length=5 ka=1 Content-Length:'5, 5' | BODY 'hello' | END ka=1 | FIN ok"},
    {"cl_list_equal_no_space", IN(OK200 "Content-Length: 5,5\r\n\r\nhello"), 0, 0, 0,
     "HEAD 200 v11 'OK' length=5 ka=1 Content-Length:'5,5' | BODY 'hello' | END ka=1 | FIN ok"},
    {"cl_list_conflicting", IN(OK200 "Content-Length: 5, 6\r\n\r\nhello"), 0, 0, 0, EP(W_CLCONF)},
    {"cl_leading_zeros", IN(OK200 "Content-Length: 007\r\n\r\n1234567"), 0, 0, 0,
     "HEAD 200 v11 'OK' length=7 ka=1 Content-Length:'007' | BODY '1234567' | END ka=1 | FIN ok"},
    {"cl_letters", IN(OK200 "Content-Length: abc\r\n\r\n"), 0, 0, 0, EP(W_CLNUM)},
    {"cl_negative", IN(OK200 "Content-Length: -1\r\n\r\n"), 0, 0, 0, EP(W_CLNUM)},
    {"cl_plus", IN(OK200 "Content-Length: +5\r\n\r\nhello"), 0, 0, 0, EP(W_CLNUM)},
    {"cl_trailing_letter", IN(OK200 "Content-Length: 5a\r\n\r\nhello"), 0, 0, 0, EP(W_CLNUM)},
    {"cl_hex", IN(OK200 "Content-Length: 0x5\r\n\r\nhello"), 0, 0, 0, EP(W_CLNUM)},
    {"cl_inner_space", IN(OK200 "Content-Length: 5 5\r\n\r\nhello"), 0, 0, 0, EP(W_CLNUM)},
    {"cl_decimal_point", IN(OK200 "Content-Length: 5.0\r\n\r\nhello"), 0, 0, 0, EP(W_CLNUM)},
    {"cl_non_ascii_digit", IN(OK200 "Content-Length: \xd9\xa5\r\n\r\nhello"), 0, 0, 0, EP(W_CLNUM)},
    {"cl_2_pow_64", IN(OK200 "Content-Length: 18446744073709551616\r\n\r\n"), 0, 0, 0, EP(W_CLNUM)},
    {"cl_overflow", IN(OK200 "Content-Length: 99999999999999999999999\r\n\r\n"), 0, 0, 0, EP(W_CLNUM)},
    {"cl_empty", IN(OK200 "Content-Length:\r\n\r\n"), 0, 0, 0, EP(W_CLEMPTY)},
    {"cl_only_comma", IN(OK200 "Content-Length: ,\r\n\r\n"), 0, 0, 0, EP(W_CLEMPTY)},
    {"cl_large_cut_short", IN(OK200 "Content-Length: 1099511627776\r\n\r\nabc"), 0, 0, 0,
     "HEAD 200 v11 'OK' length=1099511627776 ka=1 Content-Length:'1099511627776' | BODY 'abc' | " FP(W_FCL)},

    /* ---- chunked */
    {"chunked_basic", IN(OK200 TE_CH "\r\n5\r\nhello\r\n6\r\n world\r\n0\r\n\r\n"), 0, 0, 0,
     CH_HEAD " | BODY 'hello world' | END ka=1 | FIN ok"},
    {"chunked_extensions", IN(OK200 TE_CH "\r\n5;foo=bar\r\nhello\r\n3 ; a=\"q;u o\\\"ted\"; b\r\nabc\r\n2\t;x\r\nde\r\n0;last=1\r\n\r\n"), 0, 0, 0,
     CH_HEAD " | BODY 'helloabcde' | END ka=1 | FIN ok"},
    {"chunked_trailers", IN(OK200 TE_CH "\r\n3\r\nabc\r\n0\r\nX-Checksum: 1\r\nY: 2\r\n\r\nNEXT"), 0, 0, 0,
     CH_HEAD " | BODY 'abc' | END ka=1 | REST 'NEXT' | FIN ok"},
    {"chunked_hex_case", IN(OK200 TE_CH "\r\na\r\n0123456789\r\nA\r\nabcdefghij\r\n1f\r\n" X10 X10 X10 "y\r\n1F\r\n" X10 X10 X10 "z\r\n0\r\n\r\n"), 0, 0, 0,
     CH_HEAD " | BODY '0123456789abcdefghij" X10 X10 X10 "y" X10 X10 X10 "z' | END ka=1 | FIN ok"},
    {"chunked_leading_zeros", IN(OK200 TE_CH "\r\n0005\r\nhello\r\n0000000000000000000001\r\n!\r\n000\r\n\r\n"), 0, 0, 0,
     CH_HEAD " | BODY 'hello!' | END ka=1 | FIN ok"},
    {"chunked_size_overflow", IN(OK200 TE_CH "\r\n10000000000000000\r\n"), 0, 0, 0, CH_HEAD " | " EP(W_CBIG)},
    {"chunked_size_overflow_f", IN(OK200 TE_CH "\r\nFFFFFFFFFFFFFFFFFFFF\r\n"), 0, 0, 0, CH_HEAD " | " EP(W_CBIG)},
    {"chunked_size_not_hex", IN(OK200 TE_CH "\r\ng\r\n"), 0, 0, 0, CH_HEAD " | " EP(W_CHEX)},
    {"chunked_size_empty", IN(OK200 TE_CH "\r\n\r\n"), 0, 0, 0, CH_HEAD " | " EP(W_CHEX)},
    {"chunked_size_negative", IN(OK200 TE_CH "\r\n-1\r\n"), 0, 0, 0, CH_HEAD " | " EP(W_CHEX)},
    {"chunked_size_0x", IN(OK200 TE_CH "\r\n0x5\r\nhello\r\n"), 0, 0, 0, CH_HEAD " | " EP(W_CHEX)},
    {"chunked_size_trailing_garbage", IN(OK200 TE_CH "\r\n5g\r\nhello\r\n"), 0, 0, 0, CH_HEAD " | " EP(W_CHEX)},
    {"chunked_size_leading_space", IN(OK200 TE_CH "\r\n 5\r\nhello\r\n"), 0, 0, 0, CH_HEAD " | " EP(W_CHEX)},
    {"chunked_size_only_extension", IN(OK200 TE_CH "\r\n;ext\r\n"), 0, 0, 0, CH_HEAD " | " EP(W_CHEX)},
    {"chunked_size_cr_without_lf", IN(OK200 TE_CH "\r\n5\rhello"), 0, 0, 0, CH_HEAD " | " EP(W_CSIZECR)},
    {"chunked_data_not_followed_by_crlf", IN(OK200 TE_CH "\r\n5\r\nhelloX\r\n0\r\n\r\n"), 0, 0, 0,
     CH_HEAD " | BODY 'hello' | " EP(W_CLONG)},
    {"chunked_data_cr_without_lf", IN(OK200 TE_CH "\r\n5\r\nhello\rX"), 0, 0, 0, CH_HEAD " | BODY 'hello' | " EP(W_CCRLF)},
    {"chunked_data_longer_than_size", IN(OK200 TE_CH "\r\n3\r\nhello\r\n0\r\n\r\n"), 0, 0, 0,
     CH_HEAD " | BODY 'hel' | " EP(W_CLONG)},
    {"chunked_extension_control_char", IN(OK200 TE_CH "\r\n5;a\x01\r\nhello\r\n0\r\n\r\n"), 0, 0, 0, CH_HEAD " | " EP(W_EXTCTL)},
    {"chunked_trailer_control_char", IN(OK200 TE_CH "\r\n0\r\nX: \x01\r\n\r\n"), 0, 0, 0, CH_HEAD " | " EP(W_TCTL)},
    {"chunked_trailer_cr_without_lf", IN(OK200 TE_CH "\r\n0\r\nX: y\rZ\r\n\r\n"), 0, 0, 0, CH_HEAD " | " EP(W_TCR)},
    {"chunked_final_cr_without_lf", IN(OK200 TE_CH "\r\n0\r\n\rX"), 0, 0, 0, CH_HEAD " | " EP(W_CEND)},
    {"chunked_trailers_over_head_limit", IN(OK200 TE_CH "\r\n0\r\nX: " X50 "\r\n\r\n"), 0, 50, 0, CH_HEAD " | " EL(W_TBIG)},
    {"chunked_last_chunk_missing", IN(OK200 TE_CH "\r\n5\r\nhello\r\n"), 0, 0, 0, CH_HEAD " | BODY 'hello' | " FP(W_FCHUNK)},
    {"chunked_cut_in_data", IN(OK200 TE_CH "\r\n5\r\nhel"), 0, 0, 0, CH_HEAD " | BODY 'hel' | " FP(W_FCHUNK)},
    {"chunked_cut_in_size", IN(OK200 TE_CH "\r\n5"), 0, 0, 0, CH_HEAD " | " FP(W_FCHUNK)},
    {"chunked_cut_after_last_chunk", IN(OK200 TE_CH "\r\n0\r\n"), 0, 0, 0, CH_HEAD " | " FP(W_FCHUNK)},
    {"chunked_cut_in_trailers", IN(OK200 TE_CH "\r\n0\r\nX: y\r\n"), 0, 0, 0, CH_HEAD " | " FP(W_FCHUNK)},
    {"chunked_cut_before_body", IN(OK200 TE_CH "\r\n"), 0, 0, 0, CH_HEAD " | " FP(W_FCHUNK)},

    /* ---- framing rules (RFC 9112 6.3) */
    {"cl_and_te_chunked_wins", IN(OK200 "Content-Length: 100\r\n" TE_CH "Connection: keep-alive\r\n\r\n3\r\nabc\r\n0\r\n\r\n"), 0, 0, 0,
     "HEAD 200 v11 'OK' chunked ka=0 Content-Length:'100' Transfer-Encoding:'chunked' Connection:'keep-alive' | BODY 'abc' | END ka=0 | FIN ok"},
    {"te_and_cl_chunked_wins", IN(OK200 TE_CH "Content-Length: 1\r\n\r\n3\r\nabc\r\n0\r\n\r\n"), 0, 0, 0,
     "HEAD 200 v11 'OK' chunked ka=0 Transfer-Encoding:'chunked' Content-Length:'1' | BODY 'abc' | END ka=0 | FIN ok"},
    {"te_gzip_read_until_close", IN(OK200 "Transfer-Encoding: gzip\r\n\r\nxyz"), 0, 0, 0,
     "HEAD 200 v11 'OK' close ka=0 Transfer-Encoding:'gzip' | BODY 'xyz' | FIN ok | END ka=0"},
    {"te_gzip_and_cl_read_until_close", IN(OK200 "Transfer-Encoding: gzip\r\nContent-Length: 1\r\n\r\nxyz"), 0, 0, 0,
     "HEAD 200 v11 'OK' close ka=0 Transfer-Encoding:'gzip' Content-Length:'1' | BODY 'xyz' | FIN ok | END ka=0"},
    {"te_gzip_chunked", IN(OK200 "Transfer-Encoding: gzip, chunked\r\n\r\n2\r\n\x1f\x8b\r\n0\r\n\r\n"), 0, 0, 0,
     "HEAD 200 v11 'OK' chunked ka=1 Transfer-Encoding:'gzip, chunked' | BODY '\\x1f\\x8b' | END ka=1 | FIN ok"},
    {"te_two_headers_last_chunked", IN(OK200 "Transfer-Encoding: gzip\r\n" TE_CH "\r\n1\r\nz\r\n0\r\n\r\n"), 0, 0, 0,
     "HEAD 200 v11 'OK' chunked ka=1 Transfer-Encoding:'gzip' Transfer-Encoding:'chunked' | BODY 'z' | END ka=1 | FIN ok"},
    {"te_chunked_then_gzip", IN(OK200 "Transfer-Encoding: chunked, gzip\r\n\r\n"), 0, 0, 0, EP(W_TE)},
    {"te_chunked_header_then_gzip_header", IN(OK200 TE_CH "Transfer-Encoding: gzip\r\n\r\n"), 0, 0, 0, EP(W_TE)},
    {"te_chunked_twice", IN(OK200 "Transfer-Encoding: chunked, chunked\r\n\r\n"), 0, 0, 0, EP(W_TE)},
    {"te_uppercase", IN(OK200 "Transfer-Encoding: CHUNKED\r\n\r\n1\r\nz\r\n0\r\n\r\n"), 0, 0, 0,
     "HEAD 200 v11 'OK' chunked ka=1 Transfer-Encoding:'CHUNKED' | BODY 'z' | END ka=1 | FIN ok"},
    {"te_in_http10", IN("HTTP/1.0 200 OK\r\nConnection: keep-alive\r\n" TE_CH "\r\n1\r\nz\r\n0\r\n\r\n"), 0, 0, 0,
     "HEAD 200 v10 'OK' chunked ka=0 Connection:'keep-alive' Transfer-Encoding:'chunked' | BODY 'z' | END ka=0 | FIN ok"},
    {"no_body_204_with_cl", IN("HTTP/1.1 204 No Content\r\nContent-Length: 5\r\n\r\nhello"), 0, 0, 0,
     "HEAD 204 v11 'No Content' none ka=1 Content-Length:'5' | END ka=1 | REST 'hello' | FIN ok"},
    {"no_body_304_chunked", IN("HTTP/1.1 304 Not Modified\r\n" TE_CH "\r\n"), 0, 0, 0,
     "HEAD 304 v11 'Not Modified' none ka=1 Transfer-Encoding:'chunked' | END ka=1 | FIN ok"},
    {"no_body_head_request_cl", IN(OK200 "Content-Length: 5\r\n\r\nHTTP/1.1 204 X\r\n\r\n"), 1, 0, 0,
     "HEAD 200 v11 'OK' none ka=1 Content-Length:'5' | END ka=1 | REST 'HTTP/1.1 204 X\\r\\n\\r\\n' | FIN ok"},
    {"no_body_head_request_chunked", IN(OK200 TE_CH "\r\n"), 1, 0, 0,
     "HEAD 200 v11 'OK' none ka=1 Transfer-Encoding:'chunked' | END ka=1 | FIN ok"},
    {"no_body_head_request_no_framing", IN(OK200 "\r\n"), 1, 0, 0, "HEAD 200 v11 'OK' none ka=1 | END ka=1 | FIN ok"},
    {"interim_100_continue", IN("HTTP/1.1 100 Continue\r\n\r\n" OK200 "Content-Length: 2\r\n\r\nok"), 0, 0, 0,
     "HEAD 200 v11 'OK' length=2 ka=1 Content-Length:'2' | BODY 'ok' | END ka=1 | FIN ok"},
    {"interim_several_with_headers", IN("HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 102 Processing\r\n\r\n"
                                         "HTTP/1.1 103 Early Hints\r\nLink: </style.css>; rel=preload\r\nLink: </app.js>; rel=preload\r\n\r\n"
                                         OK200 "Content-Length: 2\r\nX: y\r\n\r\nok"), 0, 0, 0,
     "HEAD 200 v11 'OK' length=2 ka=1 Content-Length:'2' X:'y' | BODY 'ok' | END ka=1 | FIN ok"},
    {"interim_bare_lf_then_blank_line", IN("HTTP/1.1 103 Early Hints\nLink: </a>\n\n\r\nHTTP/1.1 204 No Content\r\n\r\n"), 0, 0, 0,
     "HEAD 204 v11 'No Content' none ka=1 | END ka=1 | FIN ok"},
    {"interim_with_head_request", IN("HTTP/1.1 100 Continue\r\n\r\n" OK200 "Content-Length: 2\r\n\r\n"), 1, 0, 0,
     "HEAD 200 v11 'OK' none ka=1 Content-Length:'2' | END ka=1 | FIN ok"},
    {"interim_bad_header", IN("HTTP/1.1 103 Early Hints\r\nBad Header: x\r\n\r\n" OK200 CL0 "\r\n"), 0, 0, 0, EP(W_WSCOLON)},
    {"switching_protocols", IN("HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n\r\n\x81\x05hello"), 0, 0, 0,
     "HEAD 101 v11 'Switching Protocols' none ka=0 Upgrade:'websocket' Connection:'Upgrade' | END ka=0 | REST '\\x81\\x05hello' | FIN ok"},
    {"until_close_11", IN(OK200 "\r\nabc"), 0, 0, 0, "HEAD 200 v11 'OK' close ka=0 | BODY 'abc' | FIN ok | END ka=0"},
    {"until_close_10_keep_alive_ignored", IN("HTTP/1.0 200 OK\r\nConnection: keep-alive\r\n\r\nabc"), 0, 0, 0,
     "HEAD 200 v10 'OK' close ka=0 Connection:'keep-alive' | BODY 'abc' | FIN ok | END ka=0"},
    {"until_close_empty_body", IN(OK200 "\r\n"), 0, 0, 0, "HEAD 200 v11 'OK' close ka=0 | FIN ok | END ka=0"},
    {"sse_like_body_until_close", IN(OK200 "Content-Type: text/event-stream\r\nCache-Control: no-cache\r\n\r\ndata: 1\n\n: ping\n\ndata: 2\n\n"), 0, 0, 0,
     "HEAD 200 v11 'OK' close ka=0 Content-Type:'text/event-stream' Cache-Control:'no-cache' | BODY 'data: 1\\n\\n: ping\\n\\ndata: 2\\n\\n' | FIN ok | END ka=0"},
    {"sse_like_body_chunked_cut", IN(OK200 "Content-Type: text/event-stream\r\n" TE_CH "\r\n9\r\ndata: 1\n\n\r\n9\r\ndata: 2\n\n\r\n"), 0, 0, 0,
     "HEAD 200 v11 'OK' chunked ka=1 Content-Type:'text/event-stream' Transfer-Encoding:'chunked' | BODY 'data: 1\\n\\ndata: 2\\n\\n' | " FP(W_FCHUNK)},

    /* ---- end of stream */
    {"finish_no_bytes", IN(""), 0, 0, 0, "FIN CLOSED '" W_FNONE "'"},
    {"finish_mid_status_line", IN("HTT"), 0, 0, 0, FP(W_FHEAD)},
    {"finish_after_status_line", IN(OK200), 0, 0, 0, FP(W_FHEAD)},
    {"finish_mid_header", IN(OK200 "A: b"), 0, 0, 0, FP(W_FHEAD)},
    {"finish_before_blank_line", IN(OK200 CL0), 0, 0, 0, FP(W_FHEAD)},
    {"finish_mid_cl_body", IN(OK200 "Content-Length: 10\r\n\r\nabc"), 0, 0, 0,
     "HEAD 200 v11 'OK' length=10 ka=1 Content-Length:'10' | BODY 'abc' | " FP(W_FCL)},
    {"finish_before_cl_body", IN(OK200 "Content-Length: 10\r\n\r\n"), 0, 0, 0,
     "HEAD 200 v11 'OK' length=10 ka=1 Content-Length:'10' | " FP(W_FCL)},

    /* ---- keep-alive */
    {"ka_11_close", IN(OK200 "Connection: close\r\n" CL0 "\r\n"), 0, 0, 0,
     "HEAD 200 v11 'OK' none ka=0 Connection:'close' Content-Length:'0' | END ka=0 | FIN ok"},
    {"ka_11_close_uppercase", IN(OK200 "connection: CLOSE\r\n" CL0 "\r\n"), 0, 0, 0,
     "HEAD 200 v11 'OK' none ka=0 connection:'CLOSE' Content-Length:'0' | END ka=0 | FIN ok"},
    {"ka_10_default", IN("HTTP/1.0 200 OK\r\n" CL0 "\r\n"), 0, 0, 0,
     "HEAD 200 v10 'OK' none ka=0 Content-Length:'0' | END ka=0 | FIN ok"},
    {"ka_10_keep_alive", IN("HTTP/1.0 200 OK\r\nConnection: keep-alive\r\n" CL0 "\r\n"), 0, 0, 0,
     "HEAD 200 v10 'OK' none ka=1 Connection:'keep-alive' Content-Length:'0' | END ka=1 | FIN ok"},
    {"ka_10_keep_alive_mixed_case", IN("HTTP/1.0 200 OK\r\nConnection: Keep-Alive\r\nContent-Length: 1\r\n\r\nz"), 0, 0, 0,
     "HEAD 200 v10 'OK' length=1 ka=1 Connection:'Keep-Alive' Content-Length:'1' | BODY 'z' | END ka=1 | FIN ok"},
    {"ka_11_token_list", IN(OK200 "Connection: keep-alive, Upgrade\r\n" CL0 "\r\n"), 0, 0, 0,
     "HEAD 200 v11 'OK' none ka=1 Connection:'keep-alive, Upgrade' Content-Length:'0' | END ka=1 | FIN ok"},
    {"ka_11_token_list_with_close", IN(OK200 "Connection: Upgrade,close\r\n" CL0 "\r\n"), 0, 0, 0,
     "HEAD 200 v11 'OK' none ka=0 Connection:'Upgrade,close' Content-Length:'0' | END ka=0 | FIN ok"},
    {"ka_10_token_list", IN("HTTP/1.0 200 OK\r\nConnection: foo, keep-alive\r\n" CL0 "\r\n"), 0, 0, 0,
     "HEAD 200 v10 'OK' none ka=1 Connection:'foo, keep-alive' Content-Length:'0' | END ka=1 | FIN ok"},
    {"ka_11_similar_token", IN(OK200 "Connection: close-ish\r\n" CL0 "\r\n"), 0, 0, 0,
     "HEAD 200 v11 'OK' none ka=1 Connection:'close-ish' Content-Length:'0' | END ka=1 | FIN ok"},
    {"ka_two_connection_headers", IN(OK200 "Connection: keep-alive\r\nConnection: close\r\n" CL0 "\r\n"), 0, 0, 0,
     "HEAD 200 v11 'OK' none ka=0 Connection:'keep-alive' Connection:'close' Content-Length:'0' | END ka=0 | FIN ok"},
    {"ka_10_keep_alive_and_close", IN("HTTP/1.0 200 OK\r\nConnection: keep-alive, close\r\n" CL0 "\r\n"), 0, 0, 0,
     "HEAD 200 v10 'OK' none ka=0 Connection:'keep-alive, close' Content-Length:'0' | END ka=0 | FIN ok"},
};

TEST_CASE(cases)
{
    size_t i;
    for (i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        http_opt o;
        o.head_request = cases[i].head_request; o.max_head = cases[i].max_head; o.max_headers = cases[i].max_headers;
        run_modes(cases[i].name, h_run, &o, cases[i].in, cases[i].len, cases[i].golden);
    }
}

#define LIT(b, s) lg_raw((b), s, sizeof(s) - 1)

/* ---- generated cases ------------------------------------------------------------------------ */

static void run_generated(const char *name, const mcp_buf *in, size_t max_head, size_t max_headers, const char *golden)
{
    http_opt o;
    o.head_request = 0; o.max_head = max_head; o.max_headers = max_headers;
    run_modes(name, h_run, &o, in->data, in->len, golden);
}

/* A head of exactly `size` bytes: status line, X: padding, Content-Length: 0, blank line. */
static void make_head(mcp_buf *in, mcp_buf *gold, size_t size)
{
    size_t pad = size - 43, i;          /* 17 + "X: " + CRLF + 19 + 2 = 43 */
    in->len = 0; gold->len = 0;
    LIT(in, OK200 "X: ");
    for (i = 0; i < pad; i++) lg_raw(in, "a", 1);
    LIT(in, "\r\n" CL0 "\r\n");
    lg(gold, "HEAD 200 v11 'OK' none ka=1 X:");
    lg_q(gold, in->data + 20, pad);
    lg(gold, " Content-Length:'0' | END ka=1 | FIN ok");
}

TEST_CASE(generated)
{
    mcp_buf in = {0}, gold = {0};
    size_t i;
    char tmp[64];

    CHECK(MCP_HTTP_MAX_HEAD == 65536 && MCP_HTTP_MAX_HEADERS == 100);
    make_head(&in, &gold, 65536);
    CHECK(in.len == 65536);
    run_generated("default_max_head_exact", &in, 0, 0, lg_str(&gold));
    make_head(&in, &gold, 65537);
    run_generated("default_max_head_over_by_one", &in, 0, 0, EL(W_HEADBIG));
    make_head(&in, &gold, 300);
    run_generated("max_head_override_300_exact", &in, 300, 0, lg_str(&gold));
    run_generated("max_head_override_299", &in, 299, 0, EL(W_HEADBIG));
    make_head(&in, &gold, 70000);
    run_generated("max_head_override_above_default", &in, 70000, 0, lg_str(&gold));

    /* header count: 100 accepted, 101 refused by default; an override */
    in.len = 0; gold.len = 0;
    LIT(&in, OK200);
    lg(&gold, "HEAD 200 v11 'OK' none ka=1");
    for (i = 0; i < 99; i++) {
        int k = snprintf(tmp, sizeof tmp, "H%lu: %lu\r\n", (unsigned long)i, (unsigned long)i);
        lg_raw(&in, tmp, (size_t)k);
        lg(&gold, " H%lu:'%lu'", (unsigned long)i, (unsigned long)i);
    }
    LIT(&in, CL0 "\r\n");
    lg(&gold, " Content-Length:'0' | END ka=1 | FIN ok");
    run_generated("default_max_headers_exact", &in, 0, 0, lg_str(&gold));
    run_generated("max_headers_override_99", &in, 0, 99, EL(W_NHDRS));
    in.len -= 2;
    LIT(&in, "Extra: 1\r\n\r\n");
    run_generated("default_max_headers_over_by_one", &in, 0, 0, EL(W_NHDRS));

    /* chunk extensions: long ones are fine up to a bound, then MCP_ERR_LIMIT */
    in.len = 0;
    LIT(&in, OK200 TE_CH "\r\n5;e=");
    for (i = 0; i < 4000; i++) LIT(&in, "e");
    LIT(&in, "\r\nhello\r\n0\r\n\r\n");
    run_generated("chunk_extension_4000_bytes", &in, 0, 0, CH_HEAD " | BODY 'hello' | END ka=1 | FIN ok");
    in.len = 0;
    LIT(&in, OK200 TE_CH "\r\n5;e=");
    for (i = 0; i < 5000; i++) LIT(&in, "e");
    LIT(&in, "\r\nhello\r\n0\r\n\r\n");
    run_generated("chunk_extension_5000_bytes", &in, 0, 0, CH_HEAD " | " EL(W_EXTBIG));

    /* many small chunks, mixed sizes, extensions and line ends */
    in.len = 0; gold.len = 0;
    LIT(&in, OK200 TE_CH "\r\n");
    lg(&gold, CH_HEAD " | BODY '");
    for (i = 0; i < 400; i++) {
        size_t sz = 1 + i % 20, j;
        int k = snprintf(tmp, sizeof tmp, "%s%lx%s%s", i % 3 ? "" : "0", (unsigned long)sz, i % 4 ? "" : ";i=1", i % 2 ? "\n" : "\r\n");
        lg_raw(&in, tmp, (size_t)k);
        for (j = 0; j < sz; j++) { char c = (char)('a' + (i + j) % 26); lg_raw(&in, &c, 1); lg_raw(&gold, &c, 1); }
        lg_raw(&in, i % 5 ? "\r\n" : "\n", i % 5 ? 2 : 1);
    }
    LIT(&in, "0\r\nT: 1\r\n\r\n");
    lg(&gold, "' | END ka=1 | FIN ok");
    run_generated("many_small_chunks", &in, 0, 0, lg_str(&gold));

    mcp_buf_free(&in);
    mcp_buf_free(&gold);
}

/* ---- direct tests of the response parser ---------------------------------------------------- */

/* Feeds s (whole, in a loop) until END or an error; returns the status that stopped it and
   *used_total; the body is collected into body. */
static mcp_status feed_resp(mcp_http_resp *r, const char *s, size_t n, size_t *used_total, mcp_buf *body, int *ended)
{
    size_t off = 0, used;
    mcp_status st = MCP_AGAIN;
    mcp_http_event ev;
    *ended = 0;
    while (off < n && !*ended) {
        st = mcp_http_resp_feed(r, s + off, n - off, &used);
        off += used;
        if (st < 0) break;
        while (mcp_http_resp_next(r, &ev) == MCP_OK) {
            if (ev.type == MCP_HTTP_BODY && body) lg_raw(body, ev.data, ev.len);
            if (ev.type == MCP_HTTP_END) *ended = 1;
        }
        if (!used && !*ended) { st = MCP_ERR_INVALID; break; }
    }
    *used_total = off;
    return st;
}

TEST_CASE(header_lookup)
{
    static const char resp[] = OK200 "Content-Type: text/event-stream\r\nSet-Cookie: a=1\r\n"
                               "set-cookie: b=2\r\nX-Empty:\r\nSET-COOKIE: c=3\r\nContent-Length: 0\r\n\r\n";
    mcp_http_resp r;
    size_t used;
    int ended;
    const char *v = "x", *name;
    memset(&r, 0, sizeof r);
    CHECK(mcp_http_resp_header_count(&r) == 0 && mcp_http_resp_header(&r, "a", 0) == NULL);
    CHECK(feed_resp(&r, resp, sizeof resp - 1, &used, NULL, &ended) >= 0 && ended && used == sizeof resp - 1);
    CHECK(mcp_http_resp_header_count(&r) == 6);
    v = mcp_http_resp_header(&r, "content-type", 0);
    CHECK(v && !strcmp(v, "text/event-stream"));
    v = mcp_http_resp_header(&r, "CONTENT-TYPE", 0);
    CHECK(v && !strcmp(v, "text/event-stream"));
    CHECK(mcp_http_resp_header(&r, "Content-Type", 1) == NULL);
    v = mcp_http_resp_header(&r, "Set-Cookie", 0); CHECK(v && !strcmp(v, "a=1"));
    v = mcp_http_resp_header(&r, "Set-Cookie", 1); CHECK(v && !strcmp(v, "b=2"));
    v = mcp_http_resp_header(&r, "set-COOKIE", 2); CHECK(v && !strcmp(v, "c=3"));
    CHECK(mcp_http_resp_header(&r, "Set-Cookie", 3) == NULL);
    v = mcp_http_resp_header(&r, "x-empty", 0); CHECK(v && !strcmp(v, ""));
    CHECK(mcp_http_resp_header(&r, "Content", 0) == NULL);         /* a prefix is not a match */
    CHECK(mcp_http_resp_header(&r, "Content-Type-X", 0) == NULL);  /* nor a longer name */
    CHECK(mcp_http_resp_header(&r, "", 0) == NULL);
    CHECK(mcp_http_resp_header(&r, "Missing", 0) == NULL);
    name = mcp_http_resp_header_at(&r, 0, &v);
    CHECK(name && !strcmp(name, "Content-Type") && v && !strcmp(v, "text/event-stream"));
    name = mcp_http_resp_header_at(&r, 4, &v);
    CHECK(name && !strcmp(name, "SET-COOKIE") && v && !strcmp(v, "c=3"));
    name = mcp_http_resp_header_at(&r, 5, NULL);
    CHECK(name && !strcmp(name, "Content-Length"));
    v = "x";
    CHECK(mcp_http_resp_header_at(&r, 6, &v) == NULL && v == NULL);
    CHECK(mcp_http_resp_header_at(&r, (size_t)-1, NULL) == NULL);
    CHECK(r.reason && !strcmp(r.reason, "OK"));
    /* still valid after the response ended; gone after reset */
    mcp_http_resp_reset(&r);
    CHECK(mcp_http_resp_header_count(&r) == 0 && mcp_http_resp_header(&r, "Set-Cookie", 0) == NULL);
    CHECK(r.status == 0 && r.keep_alive == 0);
    mcp_http_resp_free(&r);
}

/* Pipelined responses on one parser: reset between them. */
TEST_CASE(reuse)
{
    static const char stream[] =
        OK200 "Content-Length: 5\r\n\r\nhello"
        OK200 TE_CH "\r\n3\r\nabc\r\n0\r\n\r\n"
        "HTTP/1.1 204 No Content\r\n\r\n"
        "HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 200 OK\r\nConnection: close\r\nContent-Length: 1\r\n\r\nz";
    static const char *const bodies[] = {"hello", "abc", "", "z"};
    static const int statuses[] = {200, 200, 204, 200}, kas[] = {1, 1, 1, 0};
    mcp_http_resp r;
    mcp_buf body = {0};
    size_t off = 0, used, i;
    int ended;
    mcp_status st;
    memset(&r, 0, sizeof r);
    r.max_head = 200;
    for (i = 0; i < 4; i++) {
        body.len = 0;
        st = feed_resp(&r, stream + off, sizeof stream - 1 - off, &used, &body, &ended);
        CHECKF(st >= 0 && ended, "response %lu: %s, ended %d", (unsigned long)i, sname(st), ended);
        CHECKF(r.status == statuses[i] && r.keep_alive == kas[i], "response %lu: status %d ka %d", (unsigned long)i, r.status, r.keep_alive);
        CHECKF(body.len == strlen(bodies[i]) && (!body.len || !memcmp(body.data, bodies[i], body.len)), "response %lu: wrong body", (unsigned long)i);
        off += used;
        mcp_http_resp_reset(&r);
        CHECK(r.max_head == 200);   /* settings survive reset */
    }
    CHECK(off == sizeof stream - 1);
    /* the server closes an idle connection: nothing of a response arrived */
    CHECK(mcp_http_resp_finish(&r) == MCP_ERR_CLOSED && r.what && r.what[0]);

    /* reset clears a sticky error */
    mcp_http_resp_reset(&r);
    CHECK(r.what == NULL);
    st = feed_resp(&r, "HTTP/9.9 200 OK\r\n\r\n", 19, &used, NULL, &ended);
    CHECK(st == MCP_ERR_PARSE && r.what && r.what[0]);
    CHECK(mcp_http_resp_feed(&r, OK200, 17, &used) == MCP_ERR_PARSE && used == 0);
    mcp_http_resp_reset(&r);
    CHECK(r.what == NULL);
    st = feed_resp(&r, OK200 CL0 "\r\n", 38, &used, NULL, &ended);
    CHECK(st >= 0 && ended && r.status == 200 && used == 38);

    /* the limit still applies after reset; head_request is the caller's per request */
    mcp_http_resp_reset(&r);
    r.max_head = 20;
    st = feed_resp(&r, OK200 CL0 "\r\n", 38, &used, NULL, &ended);
    CHECK(st == MCP_ERR_LIMIT);
    mcp_http_resp_reset(&r);
    r.max_head = 0;
    r.head_request = 1;
    st = feed_resp(&r, OK200 "Content-Length: 5\r\n\r\n", 38, &used, NULL, &ended);
    CHECK(st >= 0 && ended && used == 38 && r.framing == MCP_HTTP_NO_BODY);
    mcp_http_resp_free(&r);
    mcp_buf_free(&body);
}

/* A body that never ends (an SSE stream) is delivered as it arrives, and so is a chunk that is
   only partly there. */
TEST_CASE(streaming)
{
    static const char head[] = OK200 "Content-Type: text/event-stream\r\n\r\n";
    static const char chead[] = OK200 "Content-Type: text/event-stream\r\n" TE_CH "\r\n";
    mcp_http_resp r;
    mcp_http_event ev;
    size_t used, i;
    char piece_buf[32];
    int ok = 1;
    memset(&r, 0, sizeof r);
    CHECK(mcp_http_resp_feed(&r, head, sizeof head - 1, &used) == MCP_OK && used == sizeof head - 1);
    CHECK(mcp_http_resp_next(&r, &ev) == MCP_OK && ev.type == MCP_HTTP_HEAD);
    CHECK(r.framing == MCP_HTTP_UNTIL_CLOSE);
    CHECK(mcp_http_resp_next(&r, &ev) == MCP_AGAIN);
    for (i = 0; i < 1000 && ok; i++) {
        int k = snprintf(piece_buf, sizeof piece_buf, "data: %lu\n\n", (unsigned long)i);
        if (mcp_http_resp_feed(&r, piece_buf, (size_t)k, &used) != MCP_OK || used != (size_t)k) ok = 0;
        else if (mcp_http_resp_next(&r, &ev) != MCP_OK || ev.type != MCP_HTTP_BODY || ev.data != piece_buf || ev.len != (size_t)k) ok = 0;
        else if (mcp_http_resp_next(&r, &ev) != MCP_AGAIN) ok = 0;
    }
    CHECKF(ok, "an endless body was not delivered piece by piece (piece %lu)", (unsigned long)i);
    CHECK(mcp_http_resp_finish(&r) == MCP_OK);
    CHECK(mcp_http_resp_next(&r, &ev) == MCP_OK && ev.type == MCP_HTTP_END && r.keep_alive == 0);

    /* chunked: a chunk's bytes come out before the chunk is complete */
    mcp_http_resp_reset(&r);
    CHECK(mcp_http_resp_feed(&r, chead, sizeof chead - 1, &used) == MCP_OK && used == sizeof chead - 1);
    CHECK(mcp_http_resp_next(&r, &ev) == MCP_OK && ev.type == MCP_HTTP_HEAD && r.framing == MCP_HTTP_CHUNKED);
    CHECK(mcp_http_resp_feed(&r, "1a\r\ndata: {\"x\":", 15, &used) == MCP_OK && used == 15);
    CHECK(mcp_http_resp_next(&r, &ev) == MCP_OK && ev.type == MCP_HTTP_BODY && ev.len == 11 && !memcmp(ev.data, "data: {\"x\":", 11));
    CHECK(mcp_http_resp_feed(&r, "1}\n\n", 4, &used) == MCP_OK && used == 4);
    CHECK(mcp_http_resp_next(&r, &ev) == MCP_OK && ev.type == MCP_HTTP_BODY && ev.len == 4);
    CHECK(mcp_http_resp_feed(&r, "xxxxxxxxxxx\r\n", 13, &used) == MCP_OK && used == 11);
    CHECK(mcp_http_resp_next(&r, &ev) == MCP_OK && ev.type == MCP_HTTP_BODY && ev.len == 11);
    CHECK(mcp_http_resp_feed(&r, "\r\n", 2, &used) == MCP_AGAIN && used == 2);
    CHECK(mcp_http_resp_next(&r, &ev) == MCP_AGAIN);
    mcp_http_resp_free(&r);
}

/* A 1 MiB chunk fed in 4 KiB pieces, and a chunk size far larger than any buffer. */
TEST_CASE(large_chunks)
{
    size_t size = (size_t)1 << 20, piece_len = 4096, off, used, total = 0, events = 0;
    mcp_buf in = {0};
    mcp_http_resp r;
    mcp_http_event ev;
    mcp_status st = MCP_AGAIN;
    int ok = 1, ended = 0;
    memset(&r, 0, sizeof r);
    LIT(&in, OK200 TE_CH "\r\n100000;big\r\n");
    for (off = 0; off < size; off++) { char c = (char)('A' + off % 23); lg_raw(&in, &c, 1); }
    LIT(&in, "\r\n0\r\n\r\n");
    for (off = 0; off < in.len && ok && !ended; ) {
        size_t n = in.len - off < piece_len ? in.len - off : piece_len, poff = 0;
        while (poff < n && !ended) {
            st = mcp_http_resp_feed(&r, in.data + off + poff, n - poff, &used);
            if (st < 0) { ok = 0; break; }
            while (mcp_http_resp_next(&r, &ev) == MCP_OK) {
                if (ev.type == MCP_HTTP_BODY) {
                    size_t k;
                    if (ev.len > piece_len || ev.data < in.data + off + poff || ev.data + ev.len > in.data + off + poff + used) ok = 0;
                    for (k = 0; k < ev.len; k++) if (ev.data[k] != (char)('A' + (total + k) % 23)) { ok = 0; break; }
                    total += ev.len; events++;
                } else if (ev.type == MCP_HTTP_END) ended = 1;
            }
            poff += used;
        }
        off += n;
    }
    CHECKF(ok && ended && total == size && events >= size / piece_len, "1 MiB chunk in 4 KiB pieces: %s, ok %d, ended %d, %lu bytes in %lu events",
           sname(st), ok, ended, (unsigned long)total, (unsigned long)events);
    mcp_buf_free(&in);

    /* 0x7fffffffffff bytes announced: streamed, nothing allocated for it, cut short at close */
    mcp_http_resp_reset(&r);
    {
        static const char big[] = OK200 TE_CH "\r\n7fffffffffff\r\nsome bytes";
        st = feed_resp(&r, big, sizeof big - 1, &used, NULL, &ended);
        CHECK(st == MCP_OK && used == sizeof big - 1 && !ended);
        CHECK(mcp_http_resp_finish(&r) == MCP_ERR_PARSE && r.what && !strcmp(r.what, W_FCHUNK));
    }
    mcp_http_resp_reset(&r);
    {   /* the largest size the parser takes must still fit in uint64: 15 hex digits */
        static const char big[] = OK200 TE_CH "\r\nfffffffffffffff\r\nabc";
        st = feed_resp(&r, big, sizeof big - 1, &used, NULL, &ended);
        CHECK(st == MCP_OK && used == sizeof big - 1);
    }
    mcp_http_resp_free(&r);
}

TEST_CASE(api_edges)
{
    mcp_http_resp r;
    mcp_http_event ev;
    size_t used = 9;
    memset(&r, 0, sizeof r);
    CHECK(mcp_http_resp_next(&r, &ev) == MCP_AGAIN);
    CHECK(mcp_http_resp_feed(&r, "", 0, &used) == MCP_AGAIN && used == 0);
    /* a waiting event: feed consumes nothing until it is taken */
    CHECK(mcp_http_resp_feed(&r, OK200 "Content-Length: 2\r\n\r\nok", 40, &used) == MCP_OK && used == 38);
    CHECK(mcp_http_resp_feed(&r, "ok", 2, &used) == MCP_OK && used == 0);
    CHECK(mcp_http_resp_next(&r, &ev) == MCP_OK && ev.type == MCP_HTTP_HEAD);
    CHECK(r.status == 200 && r.version == 11 && r.framing == MCP_HTTP_LENGTH && r.content_length == 2 && r.keep_alive == 1);
    CHECK(mcp_http_resp_feed(&r, "okHTTP", 6, &used) == MCP_OK && used == 2);
    CHECK(mcp_http_resp_next(&r, &ev) == MCP_OK && ev.type == MCP_HTTP_BODY && ev.len == 2);
    CHECK(mcp_http_resp_next(&r, &ev) == MCP_OK && ev.type == MCP_HTTP_END);
    CHECK(mcp_http_resp_next(&r, &ev) == MCP_AGAIN);
    CHECK(mcp_http_resp_feed(&r, "HTTP", 4, &used) >= 0 && used == 0);   /* after END: not ours */
    CHECK(mcp_http_resp_finish(&r) == MCP_OK);

    /* the connection closes while a BODY waits: the BODY comes first, then END */
    mcp_http_resp_reset(&r);
    CHECK(mcp_http_resp_feed(&r, OK200 "\r\n", 19, &used) == MCP_OK && used == 19);
    CHECK(mcp_http_resp_next(&r, &ev) == MCP_OK && ev.type == MCP_HTTP_HEAD && r.framing == MCP_HTTP_UNTIL_CLOSE);
    CHECK(mcp_http_resp_feed(&r, "tail", 4, &used) == MCP_OK && used == 4);
    CHECK(mcp_http_resp_finish(&r) == MCP_OK);
    CHECK(mcp_http_resp_next(&r, &ev) == MCP_OK && ev.type == MCP_HTTP_BODY && ev.len == 4 && !memcmp(ev.data, "tail", 4));
    CHECK(mcp_http_resp_next(&r, &ev) == MCP_OK && ev.type == MCP_HTTP_END);
    CHECK(mcp_http_resp_next(&r, &ev) == MCP_AGAIN);
    CHECK(mcp_http_resp_finish(&r) == MCP_OK);   /* twice is harmless */

    /* a HEAD event not yet taken when the connection closes */
    mcp_http_resp_reset(&r);
    CHECK(mcp_http_resp_feed(&r, OK200 "\r\n", 19, &used) == MCP_OK && used == 19);
    CHECK(mcp_http_resp_finish(&r) == MCP_OK);
    CHECK(mcp_http_resp_next(&r, &ev) == MCP_OK && ev.type == MCP_HTTP_HEAD);
    CHECK(mcp_http_resp_next(&r, &ev) == MCP_OK && ev.type == MCP_HTTP_END);
    mcp_http_resp_free(&r);
    mcp_http_resp_free(&r);
    mcp_http_resp_free(NULL);
}

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

/* Feeds s one byte at a time; returns body bytes seen, or (size_t)-1 on a contract breach. */
static size_t feed_bytewise(mcp_http_resp *r, const char *s, size_t n, int *ended, mcp_status *last)
{
    size_t i, used, body = 0;
    mcp_http_event ev;
    double t0 = now_s();
    *ended = 0;
    for (i = 0; i < n && !*ended; i++) {
        if (!(i & 0xFFFF) && now_s() - t0 > 5.0) break;   /* quadratic: give up early */
        *last = mcp_http_resp_feed(r, s + i, 1, &used);
        if (*last < 0 || used != 1) return (size_t)-1;
        while (mcp_http_resp_next(r, &ev) == MCP_OK) {
            if (ev.type == MCP_HTTP_BODY) body += ev.len;
            if (ev.type == MCP_HTTP_END) *ended = 1;
        }
    }
    return body;
}

/* 10 MB bodies and a 60 KB head fed one byte at a time: linear, not quadratic. */
TEST_CASE(linear)
{
    size_t n = quick ? (size_t)1 << 19 : (size_t)10 << 20, i, got;
    mcp_buf in = {0};
    mcp_http_resp r;
    mcp_status st = MCP_AGAIN;
    int ended;
    double t0, dt;
    char tmp[64];
    memset(&r, 0, sizeof r);

    snprintf(tmp, sizeof tmp, OK200 "Content-Length: %lu\r\n\r\n", (unsigned long)n);
    lg_raw(&in, tmp, strlen(tmp));
    for (i = 0; i < n; i++) LIT(&in, "b");
    t0 = now_s();
    got = feed_bytewise(&r, in.data, in.len, &ended, &st);
    dt = now_s() - t0;
    CHECKF(got == n && ended, "%lu-byte Content-Length body byte by byte: %s, %lu bytes, ended %d", (unsigned long)n, sname(st), (unsigned long)got, ended);
    CHECKF(dt < 5.0, "a %lu-byte body one byte at a time took %.2f s", (unsigned long)n, dt);
    printf("linear: %lu-byte Content-Length body fed one byte at a time in %.3f s\n", (unsigned long)n, dt);

    mcp_http_resp_reset(&r);
    in.len = 0;
    LIT(&in, OK200 TE_CH "\r\n");
    for (i = 0; i < n; i += 65536) {
        size_t k, c = n - i < 65536 ? n - i : 65536;
        snprintf(tmp, sizeof tmp, "%lx\r\n", (unsigned long)c);
        lg_raw(&in, tmp, strlen(tmp));
        for (k = 0; k < c; k++) LIT(&in, "c");
        LIT(&in, "\r\n");
    }
    LIT(&in, "0\r\n\r\n");
    t0 = now_s();
    got = feed_bytewise(&r, in.data, in.len, &ended, &st);
    dt = now_s() - t0;
    CHECKF(got == n && ended, "%lu-byte chunked body byte by byte: %s, %lu bytes, ended %d", (unsigned long)n, sname(st), (unsigned long)got, ended);
    CHECKF(dt < 5.0, "a %lu-byte chunked body one byte at a time took %.2f s", (unsigned long)n, dt);

    /* a head just under the limit, 1600 headers, one byte at a time */
    mcp_http_resp_reset(&r);
    r.max_headers = 5000;
    in.len = 0;
    LIT(&in, OK200);
    for (i = 0; i < 1600; i++) {
        snprintf(tmp, sizeof tmp, "Header-%04lu: value-%018lu\r\n", (unsigned long)i, (unsigned long)i);
        lg_raw(&in, tmp, strlen(tmp));
    }
    LIT(&in, CL0 "\r\n");
    CHECK(in.len < 65536 && in.len > 60000);
    t0 = now_s();
    got = feed_bytewise(&r, in.data, in.len, &ended, &st);
    dt = now_s() - t0;
    CHECKF(got == 0 && ended && mcp_http_resp_header_count(&r) == 1601, "1600-header head byte by byte: %s, ended %d, %lu headers",
           sname(st), ended, (unsigned long)mcp_http_resp_header_count(&r));
    {
        const char *v = mcp_http_resp_header(&r, "header-1599", 0);
        CHECK(v && !strcmp(v, "value-000000000000001599"));
    }
    CHECKF(dt < 2.0, "a 60 KB head one byte at a time took %.2f s", dt);
    mcp_http_resp_free(&r);
    mcp_buf_free(&in);
}

/* ---- URL parser ----------------------------------------------------------------------------- */

typedef struct url_good {
    const char *url; int https, ipv6; unsigned port; int port_given;
    const char *host, *target, *host_line;   /* host_line: the Host header the writer sends */
} url_good;

static const url_good good_urls[] = {
    {"http://example.com", 0, 0, 80, 0, "example.com", "/", "Host: example.com"},
    {"https://example.com", 1, 0, 443, 0, "example.com", "/", "Host: example.com"},
    {"http://example.com:8080/mcp", 0, 0, 8080, 1, "example.com", "/mcp", "Host: example.com:8080"},
    {"https://example.com:443/a/b", 1, 0, 443, 1, "example.com", "/a/b", "Host: example.com"},
    {"http://example.com:443/", 0, 0, 443, 1, "example.com", "/", "Host: example.com:443"},
    {"https://example.com:80/", 1, 0, 80, 1, "example.com", "/", "Host: example.com:80"},
    {"http://[::1]:3000/mcp", 0, 1, 3000, 1, "::1", "/mcp", "Host: [::1]:3000"},
    {"https://[2001:db8::1]/", 1, 1, 443, 0, "2001:db8::1", "/", "Host: [2001:db8::1]"},
    {"http://[::ffff:192.0.2.1]/x", 0, 1, 80, 0, "::ffff:192.0.2.1", "/x", "Host: [::ffff:192.0.2.1]"},
    {"http://[FE80::A]:80", 0, 1, 80, 1, "FE80::A", "/", "Host: [FE80::A]"},
    {"http://h?q=1", 0, 0, 80, 0, "h", "/?q=1", "Host: h"},
    {"http://h:81?q", 0, 0, 81, 1, "h", "/?q", "Host: h:81"},
    {"http://h/p?q=1&r=2#frag", 0, 0, 80, 0, "h", "/p?q=1&r=2", "Host: h"},
    {"http://h#frag", 0, 0, 80, 0, "h", "/", "Host: h"},
    {"http://h/#", 0, 0, 80, 0, "h", "/", "Host: h"},
    {"http://h?#", 0, 0, 80, 0, "h", "/?", "Host: h"},
    {"HTTP://Example.COM/A", 0, 0, 80, 0, "Example.COM", "/A", "Host: Example.COM"},
    {"HtTpS://h", 1, 0, 443, 0, "h", "/", "Host: h"},
    {"http://h/a%20b%7e%7E", 0, 0, 80, 0, "h", "/a%20b%7e%7E", "Host: h"},
    {"http://h:/", 0, 0, 80, 0, "h", "/", "Host: h"},
    {"http://127.0.0.1:65535/", 0, 0, 65535, 1, "127.0.0.1", "/", "Host: 127.0.0.1:65535"},
    {"http://h:1", 0, 0, 1, 1, "h", "/", "Host: h:1"},
    {"http://h:00080/", 0, 0, 80, 1, "h", "/", "Host: h"},
    {"http://h/p;a=b:c@d!$&'()*+,=~-._", 0, 0, 80, 0, "h", "/p;a=b:c@d!$&'()*+,=~-._", "Host: h"},
    {"http://my-host.example_1.com/", 0, 0, 80, 0, "my-host.example_1.com", "/", "Host: my-host.example_1.com"},
    {"http://h//double//slash", 0, 0, 80, 0, "h", "//double//slash", "Host: h"},
    {"http://h/?a=/b?c", 0, 0, 80, 0, "h", "/?a=/b?c", "Host: h"},
};

static const char *const bad_urls[] = {
    "ftp://h/", "h/path", "//h/", "http:/h", "http:h", "mailto:a@b", "", "http//h", "ws://h/", "https:/",
    "http://user:pw@h/", "http://user@h/", "http://@h/", "http://u@[::1]/",
    "http://exa mple.com/", "http://h/a b", "http://h/a\tb", "http://h/\x01", "http://h\r\n/",
    "http://h/\x7f", "http://h/a\r\nX-Injected: 1", "http://h /",
    "http://", "http:///p", "http://:80/", "http://?q", "http://#f",
    "http://[]/", "http://[::1/", "http://[zz::1]/", "http://[::1]x/", "http://[::1%25eth0]/",
    "http://h:0/", "http://h:65536/", "http://h:99999999999999999999/", "http://h:8a/", "http://h:abc/",
    "http://h:-1/", "http://h: 80/", "http://h:80:80/",
    "http://h/%", "http://h/%2", "http://h/%zz", "http://h/a%g0", "http://h/?%", "http://%41/",
    "http://h/\xc3\xa9", "http://h\xc3\xa9.com/", "http://h/?q=\xff",
    "http://h\\evil.com/", "http://h/a\\b", "http://h/a\"b", "http://h/<x>", "http://h/a{b}", "http://h/a^b",
    "http://h/#a b", "http://h/#x\r\nX-Injected: 1",
};

TEST_CASE(url)
{
    size_t i;
    mcp_error err;
    mcp_http_url u;
    char host[300];
    mcp_buf out = {0};
    for (i = 0; i < sizeof good_urls / sizeof good_urls[0]; i++) {
        const url_good *g = &good_urls[i];
        mcp_status st = mcp_http_url_parse(&u, g->url, &err);
        CHECKF(st == MCP_OK && err.status == MCP_OK && err.message[0] == 0, "url %s: %s (%s)", g->url, sname(st), err.message);
        if (st != MCP_OK) continue;
        CHECKF(u.https == g->https && u.ipv6 == g->ipv6 && u.port == g->port && u.port_given == g->port_given,
               "url %s: https %d ipv6 %d port %u given %d", g->url, u.https, u.ipv6, u.port, u.port_given);
        CHECKF(u.host && !strcmp(u.host, g->host), "url %s: host \"%s\", want \"%s\"", g->url, u.host ? u.host : "(null)", g->host);
        CHECKF(u.target && !strcmp(u.target, g->target), "url %s: target \"%s\", want \"%s\"", g->url, u.target ? u.target : "(null)", g->target);
        out.len = 0;
        st = mcp_http_write_request(&out, "GET", &u, NULL, NULL, NULL, 0, &err);
        if (st == MCP_OK) {
            char want[512];
            snprintf(want, sizeof want, "GET %s HTTP/1.1\r\n%s\r\n\r\n", g->target, g->host_line);
            CHECKF(out.len == strlen(want) && !memcmp(out.data, want, out.len), "url %s: request\n%.*s\nwant\n%s", g->url, (int)out.len, out.data, want);
        } else CHECKF(0, "url %s: write_request %s", g->url, err.message);
        mcp_http_url_free(&u);
        CHECK(u.host == NULL && u.target == NULL);
    }
    for (i = 0; i < sizeof bad_urls / sizeof bad_urls[0]; i++) {
        mcp_status st;
        size_t ml;
        memset(&err, 0, sizeof err);
        st = mcp_http_url_parse(&u, bad_urls[i], &err);
        ml = strlen(err.message);
        CHECKF(st == MCP_ERR_INVALID && err.status == MCP_ERR_INVALID, "bad url #%lu \"%s\" gave %s", (unsigned long)i, bad_urls[i], sname(st));
        CHECKF(ml > 20 && err.message[ml - 1] == '.' && !strncmp(err.message, "Invalid URL", 11),
               "bad url #%lu: message \"%s\" is not a sentence", (unsigned long)i, err.message);
        if (st == MCP_OK) mcp_http_url_free(&u);
        else CHECK(u.host == NULL && u.target == NULL);
    }
    CHECK(mcp_http_url_parse(&u, NULL, &err) == MCP_ERR_INVALID && err.message[0]);
    CHECK(mcp_http_url_parse(&u, "bad", NULL) == MCP_ERR_INVALID);   /* err may be NULL */

    /* host names: 253 characters are fine, 254 are not */
    memset(host, 'a', sizeof host);
    memcpy(host, "http://", 7);
    strcpy(host + 7 + 253, "/x");
    CHECK(mcp_http_url_parse(&u, host, &err) == MCP_OK && u.host && strlen(u.host) == 253 && !strcmp(u.target, "/x"));
    mcp_http_url_free(&u);
    host[7 + 253] = 'a';
    strcpy(host + 7 + 254, "/x");
    CHECK(mcp_http_url_parse(&u, host, &err) == MCP_ERR_INVALID);
    mcp_http_url_free(&u);   /* harmless on a failed parse */
    mcp_http_url_free(NULL);
    mcp_buf_free(&out);
}

/* ---- request writer ------------------------------------------------------------------------- */

static int expect_bytes(const mcp_buf *b, size_t from, const char *want, size_t wlen)
{
    return b->len - from == wlen && !memcmp(b->data + from, want, wlen);
}
#define EXPECT(b, from, lit) expect_bytes((b), (from), lit, sizeof(lit) - 1)

TEST_CASE(writer)
{
    mcp_http_url u, u6, up;
    mcp_error err;
    mcp_buf out = {0};
    mcp_status st;
    size_t i, before;
    const char *h1[3], *h2[2], *h3[3];
    static const char *const bad_headers[] = {
        "X: a\r\nEvil: 1", "X: a\nEvil: 1", "X: a\rb", "X: \x01", "X: a\x7f", "X: \x1b[0m", "X: a\x0b",
        "Bad Name: x", " X: y", "X : y", "X\t: y", ": v", "NoColon", "X\x01: y", "\xc3\xa9: x", "X(Y): z",
        "X/Y: z", "X@Y: z", "", "\r\nX: y",
        "Content-Length: 5", "content-length: 5", "Transfer-Encoding: chunked", "TRANSFER-ENCODING: gzip",
    };
    static const char *const bad_methods[] = {"GE T", "", "GET\r\n", "GET /", "G\x01T", "GET:"};

    CHECK(mcp_http_url_parse(&u, "http://example.com/mcp?x=1", &err) == MCP_OK);
    CHECK(mcp_http_url_parse(&u6, "http://[::1]:3000/mcp", &err) == MCP_OK);
    CHECK(mcp_http_url_parse(&up, "https://api.example.com:8443", &err) == MCP_OK);

    st = mcp_http_write_request(&out, "GET", &u, NULL, NULL, NULL, 0, &err);
    CHECK(st == MCP_OK && err.status == MCP_OK && err.message[0] == 0);
    CHECK(EXPECT(&out, 0, "GET /mcp?x=1 HTTP/1.1\r\nHost: example.com\r\n\r\n"));

    /* headers from both lists, in order; Host with a non-default port */
    out.len = 0;
    h1[0] = "Accept: text/event-stream"; h1[1] = "Cache-Control: no-cache"; h1[2] = NULL;
    h2[0] = "Mcp-Session-Id: abc"; h2[1] = NULL;
    st = mcp_http_write_request(&out, "GET", &up, h1, h2, NULL, 0, &err);
    CHECK(st == MCP_OK);
    CHECK(EXPECT(&out, 0, "GET / HTTP/1.1\r\nHost: api.example.com:8443\r\nAccept: text/event-stream\r\n"
                          "Cache-Control: no-cache\r\nMcp-Session-Id: abc\r\n\r\n"));

    /* POST: Content-Length always, even for an empty body (and a NULL one) */
    out.len = 0;
    h1[0] = "Content-Type: application/json"; h1[1] = NULL;
    st = mcp_http_write_request(&out, "POST", &u6, h1, NULL, "{\"a\":1}", 7, &err);
    CHECK(st == MCP_OK);
    CHECK(EXPECT(&out, 0, "POST /mcp HTTP/1.1\r\nHost: [::1]:3000\r\nContent-Type: application/json\r\n"
                          "Content-Length: 7\r\n\r\n{\"a\":1}"));
    out.len = 0;
    st = mcp_http_write_request(&out, "POST", &u, NULL, NULL, "", 0, &err);
    CHECK(st == MCP_OK && EXPECT(&out, 0, "POST /mcp?x=1 HTTP/1.1\r\nHost: example.com\r\nContent-Length: 0\r\n\r\n"));
    out.len = 0;
    st = mcp_http_write_request(&out, "POST", &u, NULL, NULL, NULL, 0, &err);
    CHECK(st == MCP_OK && EXPECT(&out, 0, "POST /mcp?x=1 HTTP/1.1\r\nHost: example.com\r\nContent-Length: 0\r\n\r\n"));
    out.len = 0;
    st = mcp_http_write_request(&out, "PUT", &u, NULL, NULL, NULL, 0, &err);
    CHECK(st == MCP_OK && EXPECT(&out, 0, "PUT /mcp?x=1 HTTP/1.1\r\nHost: example.com\r\nContent-Length: 0\r\n\r\n"));
    out.len = 0;
    st = mcp_http_write_request(&out, "DELETE", &u, h2, NULL, NULL, 0, &err);
    CHECK(st == MCP_OK && EXPECT(&out, 0, "DELETE /mcp?x=1 HTTP/1.1\r\nHost: example.com\r\nMcp-Session-Id: abc\r\n\r\n"));
    out.len = 0;
    st = mcp_http_write_request(&out, "GET", &u, NULL, NULL, "xy", 2, &err);
    CHECK(st == MCP_OK && EXPECT(&out, 0, "GET /mcp?x=1 HTTP/1.1\r\nHost: example.com\r\nContent-Length: 2\r\n\r\nxy"));

    /* Host override, from either list, in any case; tab and obs-text values; empty value */
    out.len = 0;
    h3[0] = "X-A: 1\t2"; h3[1] = "X-Empty:"; h3[2] = NULL;
    h2[0] = "host: proxy.example:99"; h2[1] = NULL;
    st = mcp_http_write_request(&out, "GET", &u6, h3, h2, NULL, 0, &err);
    CHECK(st == MCP_OK && EXPECT(&out, 0, "GET /mcp HTTP/1.1\r\nX-A: 1\t2\r\nX-Empty:\r\nhost: proxy.example:99\r\n\r\n"));
    out.len = 0;
    h3[0] = "Host: other"; h3[1] = "X-Name: caf\xc3\xa9"; h3[2] = NULL;
    st = mcp_http_write_request(&out, "GET", &u, h3, NULL, NULL, 0, &err);
    CHECK(st == MCP_OK && EXPECT(&out, 0, "GET /mcp?x=1 HTTP/1.1\r\nHost: other\r\nX-Name: caf\xc3\xa9\r\n\r\n"));

    /* appends: a second request follows the first */
    out.len = 0;
    CHECK(mcp_http_write_request(&out, "GET", &u, NULL, NULL, NULL, 0, &err) == MCP_OK);
    before = out.len;
    CHECK(mcp_http_write_request(&out, "POST", &u, NULL, NULL, "z", 1, &err) == MCP_OK);
    CHECK(EXPECT(&out, before, "POST /mcp?x=1 HTTP/1.1\r\nHost: example.com\r\nContent-Length: 1\r\n\r\nz"));
    CHECK(before == 44 && !memcmp(out.data, "GET /mcp?x=1 HTTP/1.1\r\nHost: example.com\r\n\r\n", 44));

    /* refusals: MCP_ERR_INVALID with a sentence, nothing written, from either list */
    for (i = 0; i < sizeof bad_headers / sizeof bad_headers[0]; i++) {
        int list;
        for (list = 0; list < 2; list++) {
            const char *one[3];
            before = out.len;
            one[0] = "X-Ok: 1"; one[1] = bad_headers[i]; one[2] = NULL;
            memset(&err, 0, sizeof err);
            st = mcp_http_write_request(&out, "POST", &u, list ? h1 : one, list ? one : NULL, "{}", 2, &err);
            CHECKF(st == MCP_ERR_INVALID && err.status == MCP_ERR_INVALID && err.message[0] && out.len == before,
                   "header #%lu \"%s\" (list %d): %s, %lu bytes written", (unsigned long)i, bad_headers[i], list + 1, sname(st), (unsigned long)(out.len - before));
        }
    }
    for (i = 0; i < sizeof bad_methods / sizeof bad_methods[0]; i++) {
        before = out.len;
        st = mcp_http_write_request(&out, bad_methods[i], &u, NULL, NULL, NULL, 0, &err);
        CHECKF(st == MCP_ERR_INVALID && err.message[0] && out.len == before, "method \"%s\": %s", bad_methods[i], sname(st));
    }
    before = out.len;
    CHECK(mcp_http_write_request(&out, NULL, &u, NULL, NULL, NULL, 0, &err) == MCP_ERR_INVALID && out.len == before);
    CHECK(mcp_http_write_request(&out, "GET", NULL, NULL, NULL, NULL, 0, &err) == MCP_ERR_INVALID && out.len == before);
    {
        mcp_http_url empty;
        memset(&empty, 0, sizeof empty);
        CHECK(mcp_http_write_request(&out, "GET", &empty, NULL, NULL, NULL, 0, &err) == MCP_ERR_INVALID && out.len == before);
    }
    CHECK(mcp_http_write_request(&out, "GET", &u, NULL, NULL, NULL, 0, NULL) == MCP_OK);   /* err may be NULL */

    /* the writer's request reads back through a parser as the same bytes: a server's view is
       beyond this layer, but the head must end at the blank line and the body length match */
    {
        size_t sizes[4], k;
        sizes[0] = 9999; sizes[1] = 99999; sizes[2] = 100000; sizes[3] = 123456;
        for (k = 0; k < 4; k++) {
            char *body = (char *)malloc(sizes[k]), want[64];
            size_t wl;
            if (!body) exit(2);
            memset(body, 'b', sizes[k]);
            out.len = 0;
            st = mcp_http_write_request(&out, "POST", &u, NULL, NULL, body, sizes[k], &err);
            wl = (size_t)snprintf(want, sizeof want, "Content-Length: %lu\r\n\r\n", (unsigned long)sizes[k]);
            CHECKF(st == MCP_OK && out.len > sizes[k] + wl &&
                   !memcmp(out.data + out.len - sizes[k] - wl, want, wl) &&
                   !memcmp(out.data + out.len - sizes[k], body, sizes[k]),
                   "a %lu-byte body: the request does not end with \"Content-Length: %lu\\r\\n\\r\\n\" and the body",
                   (unsigned long)sizes[k], (unsigned long)sizes[k]);
            free(body);
        }
    }
    mcp_http_url_free(&u);
    mcp_http_url_free(&u6);
    mcp_http_url_free(&up);
    mcp_buf_free(&out);
}

/* A body of 1 MB or more (seven digits of Content-Length), in a child process: if the writer
   overruns its number buffer under AddressSanitizer, the child dies and this check fails
   instead of the whole test. */
TEST_CASE(writer_big_body)
{
    pid_t pid;
    int status = 0;
    fflush(stdout); fflush(stderr);
    pid = fork();
    if (pid == 0) {
        mcp_http_url u;
        mcp_buf out = {0};
        size_t n = 1000000, wl;
        char *body = (char *)malloc(n), want[64];
        int ok;
        if (!body || mcp_http_url_parse(&u, "http://h/", NULL) != MCP_OK) _exit(3);
        memset(body, 'q', n);
        ok = mcp_http_write_request(&out, "POST", &u, NULL, NULL, body, n, NULL) == MCP_OK;
        wl = (size_t)snprintf(want, sizeof want, "POST / HTTP/1.1\r\nHost: h\r\nContent-Length: %lu\r\n\r\n", (unsigned long)n);
        ok = ok && out.len == wl + n && !memcmp(out.data, want, wl);
        free(body);
        mcp_buf_free(&out);
        mcp_http_url_free(&u);
        _exit(ok ? 0 : 2);
    }
    CHECK(pid > 0);
    if (pid <= 0) return;
    CHECK(waitpid(pid, &status, 0) == pid);
    CHECKF(WIFEXITED(status) && WEXITSTATUS(status) == 0,
           "a 1000000-byte POST body: the child %s %d (2: wrong Content-Length line; 1 or a signal: it crashed)",
           WIFEXITED(status) ? "exited with" : "died of signal", WIFEXITED(status) ? WEXITSTATUS(status) : WTERMSIG(status));
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
