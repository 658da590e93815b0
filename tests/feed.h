/* The parser tests' feeder, shared by tests/test_jsonl.c, tests/test_sse.c, tests/test_http.c
   and the fuzzers tests/fuzz/fuzz_{jsonl,sse,http}.c (include after mcp.h):
     event logs    lg_raw, lg, lg_item, lg_q, lg_str, viol (a contract breach, into the log),
                   sname (a status's short name): what a driver writes, to compare whole;
     piece         one piece of the input a feeding plan cuts it into ({off, len}).
   In the tests (include after test.h; the file defines _POSIX_C_SOURCE and _DEFAULT_SOURCE
   before its first include, for mmap):
     guard_put     a copy of the piece placed to end right before a PROT_NONE page (or, low, to
                   start right after one), so an overread faults; guard_free at the end;
     run_modes     one case fed whole, whole after a guard page, split in two at every byte,
                   one byte at a time and in random pieces (rng, seeded alike every run), each
                   log checked (CHECK) against the golden one.
   In a fuzzer (#define FEED_FUZZ first; out of memory aborts rather than exits):
     plan          the pieces the input's split byte chooses. */
#ifndef MCP_TEST_FEED_H
#define MCP_TEST_FEED_H
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#if defined(__GNUC__) || defined(__clang__)
#define FEED_UNUSED __attribute__((unused))
#else
#define FEED_UNUSED
#endif

/* ---- event logs ----------------------------------------------------------------------------- */

FEED_UNUSED static void lg_raw(mcp_buf *b, const char *s, size_t n)
{
    if (mcp_buf_append(b, s, n) != MCP_OK) {
        fprintf(stderr, "out of memory\n");
#ifdef FEED_FUZZ
        abort();                    /* libFuzzer reports it, with the input */
#else
        exit(2);
#endif
    }
}

FEED_UNUSED static void lg(mcp_buf *b, const char *fmt, ...)
{
    char tmp[1024];
    va_list ap;
    int n;
    va_start(ap, fmt);
    n = vsnprintf(tmp, sizeof tmp, fmt, ap);
    va_end(ap);
    if (n < 0) n = 0;
    if ((size_t)n >= sizeof tmp) n = (int)sizeof tmp - 1;
    lg_raw(b, tmp, (size_t)n);
}

FEED_UNUSED static void lg_item(mcp_buf *b) { if (b->len) lg_raw(b, " | ", 3); }

/* 'text': backslash, control bytes, DEL and non-ASCII escaped */
FEED_UNUSED static void lg_q(mcp_buf *b, const char *s, size_t n)
{
    size_t i;
    lg_raw(b, "'", 1);
    for (i = 0; i < n; i++) {
        unsigned char c = (unsigned char)s[i];
        size_t j = i;
        while (j < n && (unsigned char)s[j] >= 0x20 && (unsigned char)s[j] < 0x7F && s[j] != '\\') j++;
        if (j > i) { lg_raw(b, s + i, j - i); i = j - 1; continue; }
        if (c == '\\') lg_raw(b, "\\\\", 2);
        else if (c == '\n') lg_raw(b, "\\n", 2);
        else if (c == '\r') lg_raw(b, "\\r", 2);
        else if (c == '\t') lg_raw(b, "\\t", 2);
        else if (c == 0) lg_raw(b, "\\0", 2);
        else if (c < 0x20 || c >= 0x7F) lg(b, "\\x%02x", c);
        else lg_raw(b, (const char *)&c, 1);
    }
    lg_raw(b, "'", 1);
}

FEED_UNUSED static const char *lg_str(mcp_buf *b)
{
    lg_raw(b, "", 1);
    b->len--;
    return b->data;
}

/* a breach of the feed/next contract: recorded in the log so the comparison fails */
FEED_UNUSED static void viol(mcp_buf *b, const char *fmt, ...)
{
    char tmp[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(tmp, sizeof tmp, fmt, ap);
    va_end(ap);
    lg_item(b);
    lg(b, "!! %s", tmp);
}

FEED_UNUSED static const char *sname(mcp_status s)
{
    switch (s) {
    case MCP_OK: return "OK";
    case MCP_AGAIN: return "AGAIN";
    case MCP_ERR_NOMEM: return "NOMEM";
    case MCP_ERR_INVALID: return "INVALID";
    case MCP_ERR_PARSE: return "PARSE";
    case MCP_ERR_LIMIT: return "LIMIT";
    case MCP_ERR_CLOSED: return "CLOSED";
    default: return "OTHER";
    }
}

typedef struct piece { size_t off, len; } piece;

#ifdef FEED_FUZZ

/* Cuts n bytes into pieces as the split byte says: low 2 bits the pattern, the other 6 bits
   (k) its parameter. 0: pieces of k+1 bytes; 1: pseudo-random sizes 0..k%16+1; 2: sizes read
   from the stream itself (byte % (k+2)); 3: two pieces, cut at n*k/63. Never two empty pieces
   in a row, so pc needs room for 2n+1. Returns the number of pieces. */
static size_t plan(piece *pc, const unsigned char *s, size_t n, unsigned split)
{
    unsigned pat = split & 3, k = split >> 2;
    uint64_t x = 0x9E3779B97F4A7C15u ^ ((uint64_t)split << 32) ^ n;
    size_t np = 0, off = 0, len;
    int last_empty = 0;
    if (pat == 3) {
        len = n * k / 63;
        pc[0].off = 0; pc[0].len = len; pc[1].off = len; pc[1].len = n - len;
        return 2;
    }
    while (off < n) {
        if (pat == 0) len = k + 1;
        else if (pat == 1) {
            x ^= x << 13; x ^= x >> 7; x ^= x << 17;
            len = (size_t)(x % (k % 16 + 2));
        } else len = s[np % n] % (k + 2);
        if (len == 0 && last_empty) len = 1;
        if (len > n - off) len = n - off;
        last_empty = len == 0;
        pc[np].off = off; pc[np].len = len; np++;
        off += len;
    }
    return np;
}


#else /* the tests */

#ifndef MCP_TEST_H
#error "include tests/test.h before tests/feed.h (run_modes counts checks)"
#endif
#include <sys/mman.h>
#include <unistd.h>
#ifndef MAP_ANONYMOUS
#define MAP_ANONYMOUS MAP_ANON
#endif

/* ---- guard pages ---------------------------------------------------------------------------- */

static char *g_map;
static size_t g_maplen, g_page, g_cap;   /* usable bytes: [g_map + g_page, + g_cap) */

static char *guard_area(size_t n)
{
    if (!g_page) g_page = (size_t)sysconf(_SC_PAGESIZE);
    if (!g_map || n > g_cap) {
        size_t cap = (n + g_page - 1) / g_page * g_page;
        if (!cap) cap = g_page;
        if (g_map) munmap(g_map, g_maplen);
        g_maplen = cap + 2 * g_page;
        g_map = (char *)mmap(NULL, g_maplen, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        if (g_map == MAP_FAILED) { perror("mmap"); exit(2); }
        if (mprotect(g_map, g_page, PROT_NONE) || mprotect(g_map + g_page + cap, g_page, PROT_NONE)) {
            perror("mprotect"); exit(2);
        }
        g_cap = cap;
    }
    return g_map + g_page;
}

/* n bytes placed to end right before the upper guard page, or (low) to start right after the
   lower one. */
static char *guard_put(const char *src, size_t n, int low)
{
    char *a = guard_area(n), *d = low ? a : a + g_cap - n;
    if (n) memcpy(d, src, n);
    return d;
}

static void guard_free(void)
{
    if (g_map) munmap(g_map, g_maplen);
    g_map = NULL; g_cap = 0;
}

static uint64_t rng_state = 0x9E3779B97F4A7C15u;
static uint64_t rng(void)
{
    rng_state ^= rng_state << 13; rng_state ^= rng_state >> 7; rng_state ^= rng_state << 17;
    return rng_state;
}

typedef void (*run_fn)(const void *opt, const char *in, size_t n, const piece *pc, size_t np,
                       int low, mcp_buf *log);

static int report(const char *name, const char *mode, const char *got, const char *want)
{
    if (!strcmp(got, want)) return 1;
    fprintf(stderr, "case %s, fed %s:\n   got: %.3000s\n  want: %.3000s\n", name, mode, got, want);
    return 0;
}

/* Runs one case in every feeding mode and compares each log with the golden one. */
static void run_modes(const char *name, run_fn fn, const void *opt, const char *in, size_t n,
                      const char *golden)
{
    piece *pc = (piece *)malloc((n + 2) * sizeof *pc);
    mcp_buf log = {0};
    size_t i, k, np, step, bad_k = 0;
    int ok, r;
    char mode[64];
    if (!pc) exit(2);

    pc[0].off = 0; pc[0].len = n;
    fn(opt, in, n, pc, 1, 0, &log);
    CHECK(report(name, "whole", lg_str(&log), golden));
    log.len = 0;
    fn(opt, in, n, pc, 1, 1, &log);
    CHECK(report(name, "whole, after a guard page", lg_str(&log), golden));

    /* every 2-piece split (sampled for long inputs: both ends plus a stride) */
    step = n <= 4096 ? 1 : n / 127;
    ok = 1;
    for (k = 0; k <= n && ok; k++) {
        if (step > 1 && k > 80 && k + 80 < n && k % step) continue;
        pc[0].off = 0; pc[0].len = k; pc[1].off = k; pc[1].len = n - k;
        log.len = 0;
        fn(opt, in, n, pc, 2, 0, &log);
        snprintf(mode, sizeof mode, "in two pieces split at %lu", (unsigned long)k);
        if (!report(name, mode, lg_str(&log), golden)) { ok = 0; bad_k = k; }
    }
    CHECKF(ok, "case %s: the log differs when split at %lu", name, (unsigned long)bad_k);

    for (i = 0; i < n; i++) { pc[i].off = i; pc[i].len = 1; }
    log.len = 0;
    fn(opt, in, n, pc, n, 0, &log);
    CHECK(report(name, "one byte at a time", lg_str(&log), golden));

    ok = 1;
    for (r = 0; r < 8 && ok; r++) {
        for (np = 0, i = 0; i < n; np++) {
            size_t len = (size_t)(rng() % 9);   /* 0..8: empty pieces too */
            if (len > n - i) len = n - i;
            pc[np].off = i; pc[np].len = len; i += len;
        }
        log.len = 0;
        fn(opt, in, n, pc, np, 0, &log);
        if (!report(name, "in random pieces of 0-8 bytes", lg_str(&log), golden)) ok = 0;
    }
    CHECKF(ok, "case %s: the log differs when fed in random pieces", name);
    mcp_buf_free(&log);
    free(pc);
}

#endif /* FEED_FUZZ */
#endif
