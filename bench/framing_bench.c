/* framing_bench.c - throughput of mcp.h's sans-I/O framers: JSON lines, SSE, chunked HTTP.

   Build and run (what `make bench` does):
       cc -O2 -std=c99 -Wall -Wextra -Wpedantic -Wshadow -Werror bench/framing_bench.c \
          -o build/framing_bench
       build/framing_bench tests/data [--quick]

   argv[1] (the test data directory) is accepted for `make bench` but not used: every input is
   generated here, in memory, deterministically (a fixed-seed xorshift generator):
   - JSONL: typical MCP messages of mixed sizes, one per line (one line in ten ends in CRLF):
     progress and log notifications, pings and small responses, tools/call results of a few
     KB, tools/list results of tens of KB, and now and then a resources/read result of some
     hundreds of KB. Their text is mostly ASCII: one word in 50 is not.
   - SSE: the same kinds of messages as a Streamable HTTP event stream: "event: message", an
     "id:" on every other event, the JSON on one "data:" line, or pretty-printed over many
     "data:" lines for one event in ten; one event in ten with CRLF line ends; a ": keep-alive"
     comment every 64 events.
   - HTTP: a 200 response with Transfer-Encoding: chunked whose body is that SSE stream, cut
     into chunks of 1 byte to 1 MiB (mostly small), some chunk-size lines with an extension,
     then the last chunk and a trailer: one long-running response.
   Each input is 128 MB (MB = 1e6 bytes; 8 MB with --quick). It is fed to a framer in pieces
   of 64 KiB (a realistic read size) and of 1 KiB (a small one), feed/next until each piece is
   taken, and every event is consumed (counted, its length summed). The framers are reset
   between passes, keeping their buffers, so the timings are of a connection's steady state
   (a fresh framer's buffer growth costs ~2 ms of page faults on some VMs, which would swamp
   the --quick numbers). Beside each, the baseline: memchr scanning the same bytes in the same
   pieces for '\n', counting them. The ratio is framer time / memchr time: how many memchr
   passes one framer pass costs.
   Every timing runs once per round, the rounds cycling through all timings (10 rounds, 2 with
   --quick); the best round is reported. Takes about 5 s (1 s with --quick).

   Exit status: 0, unless a framer fails (an error status, or an event count or byte sum that
   differs from what was generated), then 1. Timings never fail. */
#define _POSIX_C_SOURCE 200809L
#define MCP_IMPLEMENTATION
#include "../mcp.h"

#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/utsname.h>

static void die(const char *fmt, ...)
{
    va_list ap;
    fflush(stdout);
    fprintf(stderr, "framing_bench: ");
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputc('\n', stderr);
    exit(1);
}

/* ---- generated MCP messages --------------------------------------------------------------------
   A pool of messages of each kind is built once with mcp_jw; the streams pick from it. */

static unsigned long long rng_state = 0x9E3779B97F4A7C15ull;
static unsigned rng(unsigned n)
{
    rng_state ^= rng_state << 13; rng_state ^= rng_state >> 7; rng_state ^= rng_state << 17;
    return (unsigned)((rng_state >> 32) % n);
}

static const char *words[] = {
    "the", "server", "returned", "file", "index", "of", "results", "for", "query", "and",
    "updated", "records", "in", "repository", "branch", "main", "build", "passed", "with",
    "warnings", "temperature", "forecast", "tool", "resource", "prompt", "completion",
    "sampling", "roots", "request", "id", "static", "return", "struct", "size_t", "{", "}" };
static const char *intl[] = { "café", "naïve", "résumé", "日本語", "données", "😀", "Größe", "±" };
enum { N_WORDS = sizeof words / sizeof words[0], N_INTL = sizeof intl / sizeof intl[0] };

/* n bytes or a little more of words separated by spaces, with a newline now and then; one
   word in 50 is not ASCII */
static void text_of(mcp_buf *b, size_t n)
{
    b->len = 0;
    while (b->len < n) {
        const char *w = rng(50) ? words[rng(N_WORDS)] : intl[rng(N_INTL)], *sep = rng(12) ? " " : ".\n";
        if (mcp_buf_append(b, w, strlen(w)) || mcp_buf_append(b, sep, strlen(sep)))
            die("out of memory");
    }
}

static char *finish_writer(mcp_jw *w, size_t *len)
{
    mcp_error err;
    char *text = mcp_jw_finish(w, len, &err);
    if (!text) die("building a message failed: %s", err.message);
    return text;
}

enum { K_PROGRESS, K_LOG, K_SMALL, K_CALL, K_LIST, K_READ, N_KINDS };
enum { VARIANTS = 12 };

typedef struct msg { char *text; size_t len; char *pretty; size_t pretty_len; } msg;
static msg pool[N_KINDS][VARIANTS];

static char *gen_msg(int kind, int v, size_t *len)
{
    mcp_jw w;
    mcp_buf t = {0};
    int i, j, n;
    char name[64];
    mcp_jw_init(&w, 0);
    mcp_jw_obj_begin(&w);
    mcp_jw_key(&w, "jsonrpc"); mcp_jw_str(&w, "2.0");
    switch (kind) {
    case K_PROGRESS:           /* ~150 bytes */
        mcp_jw_key(&w, "method"); mcp_jw_str(&w, "notifications/progress");
        mcp_jw_key(&w, "params"); mcp_jw_obj_begin(&w);
        mcp_jw_key(&w, "progressToken"); snprintf(name, sizeof name, "tok-%d", v); mcp_jw_str(&w, name);
        mcp_jw_key(&w, "progress"); mcp_jw_int(&w, 3 * v + 1);
        mcp_jw_key(&w, "total"); mcp_jw_int(&w, 120);
        mcp_jw_key(&w, "message"); mcp_jw_str(&w, "Indexing src/transport/http.c");
        mcp_jw_obj_end(&w);
        break;
    case K_LOG:                /* 200-600 bytes, non-ASCII */
        mcp_jw_key(&w, "method"); mcp_jw_str(&w, "notifications/message");
        mcp_jw_key(&w, "params"); mcp_jw_obj_begin(&w);
        mcp_jw_key(&w, "level"); mcp_jw_str(&w, v % 3 ? "info" : "warning");
        mcp_jw_key(&w, "logger"); mcp_jw_str(&w, "indexer");
        text_of(&t, 150 + 40 * (size_t)v);
        mcp_jw_key(&w, "data"); mcp_jw_strn(&w, t.data, t.len);
        mcp_jw_obj_end(&w);
        break;
    case K_SMALL:              /* ping, empty results: ~50 bytes */
        mcp_jw_key(&w, "id"); mcp_jw_int(&w, 1000 + v);
        if (v % 2) { mcp_jw_key(&w, "method"); mcp_jw_str(&w, "ping"); }
        else { mcp_jw_key(&w, "result"); mcp_jw_obj_begin(&w); mcp_jw_obj_end(&w); }
        break;
    case K_CALL:               /* tools/call result: 0.5-6 KB */
        mcp_jw_key(&w, "id"); mcp_jw_int(&w, 17 + v);
        mcp_jw_key(&w, "result"); mcp_jw_obj_begin(&w);
        mcp_jw_key(&w, "content"); mcp_jw_arr_begin(&w);
        for (i = 0; i < 1 + v % 3; i++) {
            mcp_jw_obj_begin(&w);
            mcp_jw_key(&w, "type"); mcp_jw_str(&w, "text");
            text_of(&t, 200 + 500 * (size_t)v);
            mcp_jw_key(&w, "text"); mcp_jw_strn(&w, t.data, t.len);
            mcp_jw_obj_end(&w);
        }
        mcp_jw_arr_end(&w);
        mcp_jw_key(&w, "isError"); mcp_jw_bool(&w, 0);
        mcp_jw_obj_end(&w);
        break;
    case K_LIST:               /* tools/list result: 10-40 KB */
        mcp_jw_key(&w, "id"); mcp_jw_int(&w, 2);
        mcp_jw_key(&w, "result"); mcp_jw_obj_begin(&w);
        mcp_jw_key(&w, "tools"); mcp_jw_arr_begin(&w);
        n = 30 + 10 * v;
        for (i = 0; i < n; i++) {
            mcp_jw_obj_begin(&w);
            snprintf(name, sizeof name, "%s_%s_%d", words[i % N_WORDS], words[(i * 7) % N_WORDS], i);
            mcp_jw_key(&w, "name"); mcp_jw_str(&w, name);
            text_of(&t, 80);
            mcp_jw_key(&w, "description"); mcp_jw_strn(&w, t.data, t.len);
            mcp_jw_key(&w, "inputSchema"); mcp_jw_obj_begin(&w);
            mcp_jw_key(&w, "type"); mcp_jw_str(&w, "object");
            mcp_jw_key(&w, "properties"); mcp_jw_obj_begin(&w);
            for (j = 0; j < 1 + i % 4; j++) {
                snprintf(name, sizeof name, "arg%d", j);
                mcp_jw_key(&w, name); mcp_jw_obj_begin(&w);
                mcp_jw_key(&w, "type"); mcp_jw_str(&w, j % 2 ? "integer" : "string");
                mcp_jw_obj_end(&w);
            }
            mcp_jw_obj_end(&w);
            mcp_jw_obj_end(&w);
            mcp_jw_obj_end(&w);
        }
        mcp_jw_arr_end(&w);
        mcp_jw_obj_end(&w);
        break;
    default:                   /* resources/read result: 64-600 KB of text */
        mcp_jw_key(&w, "id"); mcp_jw_int(&w, 90 + v);
        mcp_jw_key(&w, "result"); mcp_jw_obj_begin(&w);
        mcp_jw_key(&w, "contents"); mcp_jw_arr_begin(&w);
        mcp_jw_obj_begin(&w);
        mcp_jw_key(&w, "uri"); mcp_jw_str(&w, "file:///project/src/big_module.c");
        mcp_jw_key(&w, "mimeType"); mcp_jw_str(&w, "text/x-c");
        text_of(&t, 64000 + 48000 * (size_t)v);
        mcp_jw_key(&w, "text"); mcp_jw_strn(&w, t.data, t.len);
        mcp_jw_obj_end(&w);
        mcp_jw_arr_end(&w);
        mcp_jw_obj_end(&w);
        break;
    }
    mcp_jw_obj_end(&w);
    mcp_buf_free(&t);
    return finish_writer(&w, len);
}

static void build_pool(void)
{
    int k, v;
    for (k = 0; k < N_KINDS; k++)
        for (v = 0; v < VARIANTS; v++) {
            msg *m = &pool[k][v];
            mcp_json_doc *doc;
            m->text = gen_msg(k, v, &m->len);
            doc = mcp_json_parse(m->text, m->len, NULL);
            if (!doc) die("a generated message does not parse");
            m->pretty = mcp_json_dump(mcp_json_root(doc), 1, &m->pretty_len);
            if (!m->pretty) die("out of memory");
            mcp_json_free(doc);
        }
}

/* A message kind: progress 30%, log 20%, small 15%, tools/call 25%, tools/list 8%,
   resources/read 2%. */
static const msg *pick(void)
{
    unsigned r = rng(100);
    int k = r < 30 ? K_PROGRESS : r < 50 ? K_LOG : r < 65 ? K_SMALL : r < 90 ? K_CALL : r < 98 ? K_LIST : K_READ;
    return &pool[k][rng(VARIANTS)];
}

/* ---- the three inputs ------------------------------------------------------------------------- */

typedef struct expect { size_t events; uint64_t bytes; } expect;  /* events, payload bytes */

typedef struct input {
    const char *name;
    mcp_buf text;
    expect want;
} input;

enum { IN_JSONL, IN_SSE, IN_HTTP, N_INPUTS };
static input inputs[N_INPUTS];

static void put(mcp_buf *b, const char *s, size_t n)
{
    if (mcp_buf_append(b, s, n) != MCP_OK) die("out of memory");
}
static void puts_(mcp_buf *b, const char *s) { put(b, s, strlen(s)); }

static void gen_jsonl(input *in, size_t size)
{
    in->name = "JSONL";
    if (mcp_buf_reserve(&in->text, size + (1 << 20)) != MCP_OK) die("out of memory");
    while (in->text.len < size) {
        const msg *m = pick();
        put(&in->text, m->text, m->len);
        puts_(&in->text, rng(10) ? "\n" : "\r\n");
        in->want.events++; in->want.bytes += m->len;
    }
}

static void gen_sse(input *in, size_t size)
{
    char id[64];
    const char *eol;
    size_t i, j, ids = 0;
    in->name = "SSE";
    if (mcp_buf_reserve(&in->text, size + (1 << 20)) != MCP_OK) die("out of memory");
    for (i = 0; in->text.len < size; i++) {
        const msg *m = pick();
        eol = rng(10) ? "\n" : "\r\n";
        if (i % 64 == 63) { puts_(&in->text, ": keep-alive"); puts_(&in->text, eol); puts_(&in->text, eol); }
        puts_(&in->text, "event: message"); puts_(&in->text, eol);
        if (i % 2 == 0) {
            snprintf(id, sizeof id, "id: 7b4c1e09-%lu", (unsigned long)ids++);
            puts_(&in->text, id); puts_(&in->text, eol);
        }
        if (rng(10)) {                       /* the JSON on one data: line */
            puts_(&in->text, "data: "); put(&in->text, m->text, m->len); puts_(&in->text, eol);
            in->want.bytes += m->len;
        } else {                             /* pretty-printed, a data: line per line */
            for (j = 0; j < m->pretty_len; ) {
                const char *s = m->pretty + j, *nl = (const char *)memchr(s, '\n', m->pretty_len - j);
                size_t n = nl ? (size_t)(nl - s) : m->pretty_len - j;
                puts_(&in->text, "data: "); put(&in->text, s, n); puts_(&in->text, eol);
                j += n + 1;
            }
            in->want.bytes += m->pretty_len;
        }
        puts_(&in->text, eol);
        in->want.events++;
    }
}

/* The SSE stream as the chunked body of one response. Events: HEAD, END; bytes: the body. */
static void gen_http(input *in, const input *sse)
{
    char line[64];
    size_t off = 0, n;
    unsigned r;
    in->name = "HTTP chunked";
    if (mcp_buf_reserve(&in->text, sse->text.len + sse->text.len / 8 + 4096) != MCP_OK) die("out of memory");
    puts_(&in->text, "HTTP/1.1 200 OK\r\nDate: Mon, 02 Mar 2026 10:00:00 GMT\r\n"
          "Content-Type: text/event-stream\r\nCache-Control: no-cache\r\n"
          "Mcp-Session-Id: 1868a90c-7b4c-4e09-a1d3-5a2f6b1c9e77\r\nTransfer-Encoding: chunked\r\n\r\n");
    while (off < sse->text.len) {
        r = rng(100);                        /* 1 B - 1 MiB, mostly small */
        n = r < 40 ? 1 + rng(512) : r < 70 ? 512 + rng(7680) : r < 90 ? 8192 + rng(57344) : 65536 + rng(983040);
        if (n > sse->text.len - off) n = sse->text.len - off;
        if (rng(10)) snprintf(line, sizeof line, "%lx\r\n", (unsigned long)n);
        else snprintf(line, sizeof line, "%lX;seq=%lu\r\n", (unsigned long)n, (unsigned long)off);
        puts_(&in->text, line);
        put(&in->text, sse->text.data + off, n);
        puts_(&in->text, "\r\n");
        off += n;
    }
    puts_(&in->text, "0\r\nX-Stream-End: ok\r\n\r\n");
    in->want.events = 2;
    in->want.bytes = sse->text.len;
}

/* ---- the framers ------------------------------------------------------------------------------- */

/* Feeds the input in pieces of `piece` bytes and consumes every event; returns what it saw.
   One framer per input and piece size lives through the whole run, reset before each pass
   (reset keeps its buffers), as a connection's framer would: buffer growth is paid once, in
   the untimed warm-up pass, and the timings are the steady state. */
typedef expect (*framer_fn)(const input *in, size_t piece, int slot);

static mcp_jsonl jsonl_fr[2];
static mcp_sse sse_fr[2];
static mcp_http_resp http_fr[2];

static expect run_jsonl(const input *in, size_t piece, int slot)
{
    mcp_jsonl *p = &jsonl_fr[slot];
    expect got = {0, 0};
    const char *s = in->text.data, *line;
    size_t n = in->text.len, off, len, k, used, ll;
    mcp_status st;
    mcp_jsonl_reset(p);
    for (off = 0; off < n; off += len) {
        len = n - off < piece ? n - off : piece;
        for (k = 0; k < len; k += used) {
            st = mcp_jsonl_feed(p, s + off + k, len - k, &used);
            if (st < 0) die("JSONL: mcp_jsonl_feed failed near byte %lu: %s", (unsigned long)(off + k), p->what);
            while (mcp_jsonl_next(p, &line, &ll) == MCP_OK) { got.events++; got.bytes += ll; }
        }
    }
    if (mcp_jsonl_finish(p, NULL, NULL) != MCP_OK) die("JSONL: mcp_jsonl_finish failed: %s", p->what);
    return got;
}

static expect run_sse(const input *in, size_t piece, int slot)
{
    mcp_sse *p = &sse_fr[slot];
    mcp_sse_event ev;
    expect got = {0, 0};
    const char *s = in->text.data;
    size_t n = in->text.len, off, len, k, used;
    mcp_status st;
    mcp_sse_reset(p);
    for (off = 0; off < n; off += len) {
        len = n - off < piece ? n - off : piece;
        for (k = 0; k < len; k += used) {
            st = mcp_sse_feed(p, s + off + k, len - k, &used);
            if (st < 0) die("SSE: mcp_sse_feed failed near byte %lu: %s", (unsigned long)(off + k), p->what);
            while (mcp_sse_next(p, &ev) == MCP_OK) { got.events++; got.bytes += ev.data_len; }
        }
    }
    if (mcp_sse_finish(p) != MCP_OK) die("SSE: mcp_sse_finish failed: %s", p->what);
    return got;
}

static expect run_http(const input *in, size_t piece, int slot)
{
    mcp_http_resp *r = &http_fr[slot];
    mcp_http_event ev;
    expect got = {0, 0};
    const char *s = in->text.data;
    size_t n = in->text.len, off, len, k, used;
    mcp_status st;
    mcp_http_resp_reset(r);
    for (off = 0; off < n; off += len) {
        len = n - off < piece ? n - off : piece;
        for (k = 0; k < len; k += used) {
            st = mcp_http_resp_feed(r, s + off + k, len - k, &used);
            if (st < 0) die("HTTP: mcp_http_resp_feed failed near byte %lu: %s", (unsigned long)(off + k), r->what);
            while (mcp_http_resp_next(r, &ev) == MCP_OK) {
                if (ev.type == MCP_HTTP_BODY) got.bytes += ev.len;
                else got.events++;
            }
            if (!used) die("HTTP: bytes after the end of the response near byte %lu", (unsigned long)(off + k));
        }
    }
    if (mcp_http_resp_finish(r) != MCP_OK) die("HTTP: mcp_http_resp_finish failed: %s", r->what);
    if (r->status != 200 || r->framing != MCP_HTTP_CHUNKED) die("HTTP: the head was not read right");
    return got;
}

/* The baseline: memchr for '\n' over the same pieces. */
static size_t run_memchr(const input *in, size_t piece)
{
    const char *s = in->text.data, *q, *end;
    size_t n = in->text.len, off, len, count = 0;
    for (off = 0; off < n; off += len) {
        len = n - off < piece ? n - off : piece;
        for (q = s + off, end = q + len; (q = (const char *)memchr(q, '\n', (size_t)(end - q))) != NULL; q++)
            count++;
    }
    return count;
}

/* ---- timing ------------------------------------------------------------------------------------ */

static double clock_s(clockid_t id)
{
    struct timespec ts;
    clock_gettime(id, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}
static double now(void) { return clock_s(CLOCK_MONOTONIC); }

static const framer_fn framers[N_INPUTS] = { run_jsonl, run_sse, run_http };
static const size_t pieces[2] = { 64 << 10, 1 << 10 };
static volatile size_t sink;

typedef struct timing { double framer, memchr; } timing;   /* best seconds */
static timing best[N_INPUTS][2];
static size_t newlines[N_INPUTS];

static void check(const input *in, expect got, size_t piece)
{
    if (got.events != in->want.events || got.bytes != in->want.bytes)
        die("%s in %lu-byte pieces: %lu events with %llu payload bytes, but %lu with %llu were generated",
            in->name, (unsigned long)piece, (unsigned long)got.events, (unsigned long long)got.bytes,
            (unsigned long)in->want.events, (unsigned long long)in->want.bytes);
}

static void print_header(size_t size, int rounds)
{
    struct utsname u;
    char cpu[256] = "unknown", line[512], date[64] = "unknown";
    FILE *f = fopen("/proc/cpuinfo", "r");
    time_t t = time(NULL);
    struct tm *tm = gmtime(&t);
    if (f) {
        while (fgets(line, sizeof line, f)) {
            if (!strncmp(line, "model name", 10) || !strncmp(line, "Model", 5) ||
                !strncmp(line, "cpu model", 9) || !strncmp(line, "Processor", 9)) {
                char *v = strchr(line, ':');
                if (v) {
                    v++;
                    while (*v == ' ' || *v == '\t') v++;
                    v[strcspn(v, "\n")] = 0;
                    snprintf(cpu, sizeof cpu, "%s", v);
                    break;
                }
            }
        }
        fclose(f);
    }
    if (tm) strftime(date, sizeof date, "%Y-%m-%d %H:%M:%S UTC", tm);
    printf("mcp.h framing benchmark\n");
    printf("  machine:  %s, CPU: %s\n", uname(&u) == 0 ? u.machine : "unknown", cpu);
#ifdef __VERSION__
    printf("  compiler: %s%s\n", __VERSION__,
#ifdef __OPTIMIZE__
           ""
#else
           "  (WARNING: built without optimization, numbers are meaningless)"
#endif
    );
#endif
    printf("  date:     %s\n", date);
    printf("  method:   MB = 1e6 bytes. Inputs of %.0f MB generated in memory, fed in pieces of\n"
           "            64 KiB and 1 KiB, every event consumed; baseline: memchr for '\\n' over the\n"
           "            same pieces. Best of %d rounds.\n", (double)size / 1e6, rounds);
}

int main(int argc, char **argv)
{
    size_t size = 128000000;
    int rounds = 10, r, i, k;
    double wall0, cpu0, share;
    if (argc > 2 && !strcmp(argv[2], "--quick")) { size = 8000000; rounds = 2; }
    else if (argc > 2 || (argc > 1 && argv[1][0] == '-')) {
        fprintf(stderr, "usage: %s [DATA_DIR [--quick]]   (DATA_DIR is not used)\n", argv[0]);
        return 2;
    }
    print_header(size, rounds);
    fflush(stdout);

    build_pool();
    gen_jsonl(&inputs[IN_JSONL], size);
    gen_sse(&inputs[IN_SSE], size);
    gen_http(&inputs[IN_HTTP], &inputs[IN_SSE]);

    /* a correctness pass (also warms up), then the timed rounds */
    for (i = 0; i < N_INPUTS; i++)
        for (k = 0; k < 2; k++) {
            check(&inputs[i], framers[i](&inputs[i], pieces[k], k), pieces[k]);
            newlines[i] = run_memchr(&inputs[i], pieces[k]);
            best[i][k].framer = best[i][k].memchr = 1e30;
        }
    printf("  guard:    every framer gives the generated number of events and payload bytes\n");
    fflush(stdout);

    wall0 = now(); cpu0 = clock_s(CLOCK_PROCESS_CPUTIME_ID);
    for (r = 0; r < rounds; r++)
        for (i = 0; i < N_INPUTS; i++)
            for (k = 0; k < 2; k++) {
                double t0 = now(), t1, t2;
                expect got = framers[i](&inputs[i], pieces[k], k);
                t1 = now();
                sink += run_memchr(&inputs[i], pieces[k]);
                t2 = now();
                check(&inputs[i], got, pieces[k]);
                if (t1 - t0 < best[i][k].framer) best[i][k].framer = t1 - t0;
                if (t2 - t1 < best[i][k].memchr) best[i][k].memchr = t2 - t1;
            }
    share = (clock_s(CLOCK_PROCESS_CPUTIME_ID) - cpu0) / (now() - wall0);
    printf("  the benchmark had %.0f%% of a CPU while timing\n", 100 * share);
    if (share < 0.95)
        printf("  WARNING: other processes competed for the CPU, so these numbers are unreliable;\n"
               "           run again on an idle machine\n");
    printf("\n");

    printf("%-13s %11s %9s %10s %6s %10s %10s %8s\n", "input", "bytes", "events", "avg bytes",
           "piece", "framer", "memchr", "ratio");
    printf("%-13s %11s %9s %10s %6s %10s %10s %8s\n", "", "", "", "per event", "", "MB/s", "MB/s", "");
    for (i = 0; i < N_INPUTS; i++) {
        const input *in = &inputs[i];
        char avg[32] = "-";
        if (i != IN_HTTP) snprintf(avg, sizeof avg, "%.0f", (double)in->want.bytes / (double)in->want.events);
        for (k = 0; k < 2; k++) {
            double mb = (double)in->text.len / 1e6;
            printf("%-13s %11lu %9lu %10s %6s %10.1f %10.1f %7.2fx\n", k ? "" : in->name,
                   (unsigned long)in->text.len, (unsigned long)in->want.events, avg, k ? "1K" : "64K",
                   mb / best[i][k].framer, mb / best[i][k].memchr, best[i][k].framer / best[i][k].memchr);
        }
    }
    printf("  ratio: framer time / memchr time over the same bytes and pieces (lower is better).\n"
           "  events: lines (JSONL), dispatched events (SSE), HEAD and END (HTTP; its body is the\n"
           "  SSE input, its length checked). The chunked framer reads only the chunk-size lines:\n"
           "  BODY events point into the input, so it beats a memchr pass over the same bytes.\n"
           "  '\\n' per input: JSONL %lu, SSE %lu, HTTP %lu.\n",
           (unsigned long)newlines[IN_JSONL], (unsigned long)newlines[IN_SSE], (unsigned long)newlines[IN_HTTP]);

    for (k = 0; k < 2; k++) {
        mcp_jsonl_free(&jsonl_fr[k]); mcp_sse_free(&sse_fr[k]); mcp_http_resp_free(&http_fr[k]);
    }
    for (i = 0; i < N_INPUTS; i++) mcp_buf_free(&inputs[i].text);
    for (i = 0; i < N_KINDS; i++)
        for (k = 0; k < VARIANTS; k++) { mcp_free(pool[i][k].text); mcp_free(pool[i][k].pretty); }
    return 0;
}
