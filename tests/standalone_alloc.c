/* The allocator hooks. This file is its own implementation: it defines MCP_MALLOC,
   MCP_REALLOC and MCP_FREE with counting allocators that can fail the Nth call, then checks
   that every allocation goes through them, that the ctx of mcp_json_opts reaches them, and
   that for every N, failing allocation N makes the call fail cleanly with MCP_ERR_NOMEM and
   leak nothing.   Usage: standalone_alloc [DATA_DIR]   (reads DATA_DIR/json-bench/twitter.json) */
#define _POSIX_C_SOURCE 200809L   /* mcp.h comes after system headers here (section 3) */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct alloc_state {
    long calls;       /* malloc and realloc calls so far */
    long fail_at;     /* the call number that fails; 0: none */
    long live;        /* blocks not yet freed */
    long total;       /* blocks ever handed out */
    long bad_free;    /* frees of pointers we did not hand out */
    long wrong_ctx;   /* a block freed or resized with another ctx than it was made with */
    int move;         /* realloc always moves the block (and scribbles over the old one) */
} alloc_state;

static alloc_state g_null_ctx;   /* allocations made with ctx == NULL */

/* Each block carries a header: a magic word and the state that owns it. */
typedef union hdr { struct { unsigned long magic; alloc_state *owner; size_t size; } h; double align_d;
                    long double align_ld; void *align_p; } hdr;
#define MAGIC 0x6d63702eUL

static alloc_state *state_of(void *ctx) { return ctx ? (alloc_state *)ctx : &g_null_ctx; }

static void *t_malloc(size_t sz, void *ctx)
{
    alloc_state *st = state_of(ctx);
    hdr *h;
    if (++st->calls == st->fail_at) return NULL;
    h = (hdr *)malloc(sizeof(hdr) + sz);
    if (!h) return NULL;
    h->h.magic = MAGIC; h->h.owner = st; h->h.size = sz;
    st->live++; st->total++;
    return h + 1;
}

static void t_free(void *p, void *ctx)
{
    hdr *h;
    if (!p) return;
    h = (hdr *)p - 1;
    if (h->h.magic != MAGIC) { state_of(ctx)->bad_free++; return; }
    if (h->h.owner != state_of(ctx)) state_of(ctx)->wrong_ctx++;
    h->h.magic = 0;
    h->h.owner->live--;
    free(h);
}

static void *t_realloc(void *p, size_t sz, void *ctx)
{
    alloc_state *st = state_of(ctx);
    hdr *h, *nh;
    if (!p) return t_malloc(sz, ctx);
    h = (hdr *)p - 1;
    if (h->h.magic != MAGIC) { st->bad_free++; return NULL; }
    if (h->h.owner != st) st->wrong_ctx++;
    if (++st->calls == st->fail_at) return NULL;   /* the old block stays valid */
    if (st->move) {
        nh = (hdr *)malloc(sizeof(hdr) + sz);
        if (!nh) return NULL;
        memcpy(nh, h, sizeof(hdr) + (sz < h->h.size ? sz : h->h.size));
        memset(h, 0xA5, sizeof(hdr) + h->h.size);   /* whatever still points here reads junk */
        free(h);
    } else if (!(nh = (hdr *)realloc(h, sizeof(hdr) + sz))) {
        return NULL;
    }
    nh->h.size = sz;
    return nh + 1;
}

#define MCP_MALLOC(sz, ctx) t_malloc((sz), (ctx))
#define MCP_REALLOC(p, sz, ctx) t_realloc((p), (sz), (ctx))
#define MCP_FREE(p, ctx) t_free((p), (ctx))
#define MCP_IMPLEMENTATION
#include "../mcp.h"
#include "test.h"

static void reset(alloc_state *st) { memset(st, 0, sizeof *st); }

static int clean(const alloc_state *st)
{
    return st->live == 0 && st->bad_free == 0 && st->wrong_ctx == 0;
}

/* A medium document touching every kind of value, nested, with escapes and long strings,
   built with the plain C library so it does not depend on the code under test. */
static char *medium_doc(size_t *len)
{
    size_t cap = 1 << 20, n = 0;
    char *s = (char *)malloc(cap);
    int i, j;
    if (!s) return NULL;
    n += (size_t)sprintf(s + n, "{\"items\":[");
    for (i = 0; i < 400; i++) {
        n += (size_t)sprintf(s + n, "%s{\"id\":%d,\"name\":\"item \\\"%d\\\" \\u00e9\\ud83d\\ude00\","
                             "\"price\":%d.%02d,\"tags\":[", i ? "," : "", i, i, i * 7, i % 100);
        for (j = 0; j < i % 7; j++) n += (size_t)sprintf(s + n, "%s\"t%d\"", j ? "," : "", j);
        n += (size_t)sprintf(s + n, "],\"ok\":%s,\"none\":null,\"deep\":[[[{\"x\":[%d]}]]]}",
                             i % 2 ? "true" : "false", -i);
    }
    n += (size_t)sprintf(s + n, "],\"text\":\"");
    for (i = 0; i < 3000; i++) s[n++] = (char)('a' + i % 26);
    n += (size_t)sprintf(s + n, "\",\"big\":123456789012345678,\"exp\":-1.5e-300}");
    *len = n;
    return s;
}

static char *read_file(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    char *buf = NULL;
    long sz;
    if (!f) return NULL;
    if (fseek(f, 0, SEEK_END) == 0 && (sz = ftell(f)) >= 0 && fseek(f, 0, SEEK_SET) == 0 &&
        (buf = (char *)malloc((size_t)sz + 1)) != NULL) {
        if (fread(buf, 1, (size_t)sz, f) != (size_t)sz) { free(buf); buf = NULL; }
        else *len = (size_t)sz;
    }
    fclose(f);
    return buf;
}

/* Everything goes through the hooks, with the right ctx. */
static void test_hooks_used(const char *text, size_t len)
{
    alloc_state mine;
    mcp_json_opts opts;
    mcp_json_doc *doc;
    char *dump;
    reset(&mine); reset(&g_null_ctx);
    memset(&opts, 0, sizeof opts);
    opts.alloc_ctx = &mine;
    doc = mcp_json_parse_ex(text, len, &opts, NULL);
    CHECK(doc != NULL);
    CHECKF(mine.total > 0, "parse_ex made no allocation through the hooks with its ctx");
    CHECKF(g_null_ctx.calls == 0, "parse_ex with a ctx allocated %ld times with ctx NULL",
           g_null_ctx.calls);
    dump = mcp_json_dump(mcp_json_root(doc), 1, NULL);
    CHECK(dump != NULL);
    CHECKF(g_null_ctx.live == 1, "dump holds %ld blocks, want 1", g_null_ctx.live);
    mcp_free(dump);
    mcp_json_free(doc);
    CHECKF(clean(&mine), "ctx state after free: live %ld bad %ld wrong ctx %ld", mine.live,
           mine.bad_free, mine.wrong_ctx);
    CHECKF(clean(&g_null_ctx), "NULL-ctx state: live %ld bad %ld wrong ctx %ld", g_null_ctx.live,
           g_null_ctx.bad_free, g_null_ctx.wrong_ctx);

    reset(&g_null_ctx);
    doc = mcp_json_parse(text, len, NULL);
    CHECK(doc != NULL && g_null_ctx.total > 0);
    mcp_json_free(doc);
    CHECK(clean(&g_null_ctx));
}

/* Parse with allocation N failing, for every N until the parse needs no more than N - 1. */
static void test_parse_failures(const char *what, const char *text, size_t len, int with_ctx)
{
    alloc_state mine, *st = with_ctx ? &mine : &g_null_ctx;
    mcp_json_opts opts;
    mcp_error err;
    mcp_json_doc *doc;
    long n, wrong = 0, leaks = 0, needed;
    memset(&opts, 0, sizeof opts);
    opts.alloc_ctx = with_ctx ? &mine : NULL;
    reset(st);
    doc = mcp_json_parse_ex(text, len, &opts, &err);
    CHECKF(doc != NULL, "%s: %s", what, err.message);
    needed = st->calls;
    mcp_json_free(doc);
    CHECKF(needed > 0 && clean(st), "%s: %ld allocations, live %ld", what, needed, st->live);
    for (n = 1; n <= needed + 1; n++) {
        reset(st);
        st->fail_at = n;
        memset(&err, 0, sizeof err);
        doc = mcp_json_parse_ex(text, len, &opts, &err);
        if (n <= needed) {
            if (doc || err.status != MCP_ERR_NOMEM || !err.message[0]) {
                wrong++;
                fprintf(stderr, "%s: allocation %ld failing: doc %p status %d\n", what, n,
                        (void *)doc, (int)err.status);
            }
        } else if (!doc) {
            wrong++;
            fprintf(stderr, "%s: failed with no allocation failing\n", what);
        }
        mcp_json_free(doc);
        if (!clean(st)) {
            leaks++;
            fprintf(stderr, "%s: allocation %ld failing: live %ld bad %ld wrong ctx %ld\n", what,
                    n, st->live, st->bad_free, st->wrong_ctx);
        }
    }
    CHECKF(wrong == 0, "%s: %ld of %ld failing allocations not reported as MCP_ERR_NOMEM", what,
           wrong, needed);
    CHECKF(leaks == 0, "%s: %ld of %ld failing allocations leaked", what, leaks, needed);
}

/* Dump and the writer with allocation N failing: NULL / MCP_ERR_NOMEM and no leak. */
static void test_writer_failures(const char *text, size_t len)
{
    mcp_json_doc *doc;
    const mcp_json *root;
    char *out;
    size_t outlen;
    long n, needed, wrong = 0, leaks = 0;
    int pretty;
    reset(&g_null_ctx);
    doc = mcp_json_parse(text, len, NULL);
    root = mcp_json_root(doc);
    CHECK(doc != NULL);
    for (pretty = 0; pretty < 2; pretty++) {
        reset(&g_null_ctx);
        out = mcp_json_dump(root, pretty, &outlen);
        needed = g_null_ctx.calls;
        CHECK(out != NULL && needed > 0);
        mcp_free(out);
        for (n = 1; n <= needed; n++) {
            reset(&g_null_ctx);
            g_null_ctx.fail_at = n;
            out = mcp_json_dump(root, pretty, &outlen);
            if (out) { wrong++; mcp_free(out); }
            if (!clean(&g_null_ctx)) leaks++;
        }
        CHECKF(wrong == 0, "dump(pretty %d): %ld failing allocations still gave text", pretty,
               wrong);
        CHECKF(leaks == 0, "dump(pretty %d): %ld failing allocations leaked", pretty, leaks);
    }
    /* The writer used by hand: the failure is sticky and reported by finish. */
    wrong = leaks = 0;
    for (n = 1; n <= 40; n++) {
        mcp_jw w;
        mcp_error err;
        int i;
        reset(&g_null_ctx);
        g_null_ctx.fail_at = n;
        mcp_jw_init(&w, (int)(n % 2));
        mcp_jw_obj_begin(&w);
        mcp_jw_key(&w, "list");
        mcp_jw_arr_begin(&w);
        for (i = 0; i < 300; i++) {
            mcp_jw_arr_begin(&w);
            mcp_jw_str(&w, "some text to fill the buffer");
            mcp_jw_int(&w, i);
            mcp_jw_num(&w, i + 0.5);
        }
        for (i = 0; i < 300; i++) mcp_jw_arr_end(&w);
        mcp_jw_arr_end(&w);
        mcp_jw_obj_end(&w);
        memset(&err, 0, sizeof err);
        out = mcp_jw_finish(&w, &outlen, &err);
        if (g_null_ctx.calls >= n) {       /* allocation n happened and failed */
            if (out || err.status != MCP_ERR_NOMEM) wrong++;
        } else if (!out) {
            wrong++;
        }
        mcp_free(out);
        mcp_jw_free(&w);
        if (!clean(&g_null_ctx)) leaks++;
    }
    CHECKF(wrong == 0, "writer: %ld runs with a failing allocation misreported", wrong);
    CHECKF(leaks == 0, "writer: %ld runs with a failing allocation leaked", leaks);
    mcp_json_free(doc);
}

/* mcp__json_trim, which the client applies to every message it keeps: the document reads
   the same whether realloc shrinks its block in place or moves it (every value then rebased);
   a failing realloc leaves it as it was; deep documents are left alone. */
static mcp_json_doc *trim_case(const char *text, size_t len, alloc_state *st, int result_root)
{
    mcp_json_opts opts;
    mcp_json_doc *doc, *ref;
    mcp_error err;
    memset(&opts, 0, sizeof opts);
    opts.alloc_ctx = st;
    doc = mcp_json_parse_ex(text, len, &opts, &err);
    ref = mcp_json_parse(text, len, NULL);
    CHECKF(doc && ref, "trim: parse failed: %s", err.message);
    if (!doc || !ref) { mcp_json_free(doc); mcp_json_free(ref); return NULL; }
    if (result_root) {                      /* as the client does before keeping an answer */
        doc->root = *mcp_json_get(mcp_json_root(doc), "result");
        ref->root = *mcp_json_get(mcp_json_root(ref), "result");
    }
    doc = mcp__json_trim(doc);
    CHECKF(mcp_json_equal(mcp_json_root(doc), mcp_json_root(ref)), "trim (move %d, fail_at %ld, %lu bytes) "
           "changed the document", st->move, st->fail_at, (unsigned long)len);
    mcp_json_free(ref);
    return doc;
}

static void test_trim(void)
{
    alloc_state mine;
    mcp_json_doc *doc;
    char text[4096], deep[1200];
    const char *str;
    size_t n = 0, cap;
    int i, move;
    n += (size_t)sprintf(text, "{\"jsonrpc\":\"2.0\",\"id\":7,\"result\":{\"content\":[{\"type\":\"text\","
                         "\"text\":\"line \\\"one\\\"\\n");
    for (i = 0; i < 1500; i++) text[n++] = (char)('a' + i % 26);
    n += (size_t)sprintf(text + n, "\"},{\"type\":\"text\",\"text\":\"\"}],\"isError\":false,\"n\":[1,2.5,-3e9,null,"
                         "true,{},[]],\"k\":{\"\":\"empty key\"}}}");
    for (move = 0; move < 2; move++) {
        for (i = 0; i < 2; i++) {
            reset(&mine); mine.move = move;
            doc = trim_case(text, n, &mine, i);
            if (!doc) continue;
            cap = doc->blocks->cap;
            CHECKF(cap < 2 * n && mine.calls == 2, "trim (move %d): the block holds %lu bytes for a %lu-byte "
                   "text after %ld allocations", move, (unsigned long)cap, (unsigned long)n, mine.calls);
            str = mcp_json_str(mcp_json_get(mcp_json_at(mcp_json_get(i ? mcp_json_root(doc) :
                  mcp_json_get(mcp_json_root(doc), "result"), "content"), 0), "text"));
            CHECKF(str && strlen(str) == 11 + 1500 && !memcmp(str, "line \"one\"\nabc", 14) &&
                   str[11 + 1499] == 'a' + 1499 % 26, "trim (move %d): the text reads wrong", move);
            mcp_json_free(doc);
            CHECKF(clean(&mine), "trim (move %d): live %ld bad %ld", move, mine.live, mine.bad_free);
        }
        reset(&mine); mine.move = move; mine.fail_at = 2;        /* the realloc fails */
        doc = trim_case(text, n, &mine, 0);
        mcp_json_free(doc);
        CHECKF(clean(&mine), "trim with a failing realloc: live %ld bad %ld", mine.live, mine.bad_free);
    }
    /* nested deeper than the parser's inline frames: not trimmed (no realloc) */
    n = 0;
    for (i = 0; i < 40; i++) deep[n++] = '[';
    n += (size_t)sprintf(deep + n, "\"");
    for (i = 0; i < 600; i++) deep[n++] = 'x';
    deep[n++] = '"';
    for (i = 0; i < 40; i++) deep[n++] = ']';
    reset(&mine); mine.move = 1;
    doc = trim_case(deep, n, &mine, 0);
    CHECKF(mine.calls == 1 + (mine.total > 1), "trim of a deep document reallocated (%ld calls)", mine.calls);
    mcp_json_free(doc);
    CHECK(clean(&mine));
}

int main(int argc, char **argv)
{
    const char *data = argc > 1 ? argv[1] : "tests/data";
    char path[1024];
    size_t len = 0, tlen = 0;
    char *medium = medium_doc(&len), *twitter;
    char deep[2 * 500 + 1];
    memset(deep, '[', 500); memset(deep + 500, ']', 500); deep[1000] = 0;
    snprintf(path, sizeof path, "%s/json-bench/twitter.json", data);
    twitter = read_file(path, &tlen);
    CHECKF(medium != NULL, "could not build the medium document");
    CHECKF(twitter != NULL, "could not read %s (pass the data directory as argv[1])", path);
    if (medium) {
        CHECKF(len > 50000, "medium document is only %lu bytes", (unsigned long)len);
        test_hooks_used(medium, len);
        test_parse_failures("medium, ctx NULL", medium, len, 0);
        test_parse_failures("medium, ctx set", medium, len, 1);
        test_parse_failures("deep nesting", deep, sizeof deep - 1, 1);
        test_writer_failures(medium, len);
    }
    if (twitter) test_parse_failures("twitter.json", twitter, tlen, 1);
    test_trim();
    reset(&g_null_ctx);
    free(medium);
    free(twitter);
    return TEST_DONE();
}
