/* What the client holds per call, through the allocator hooks (a counting allocator): a call
   in flight costs a few hundred bytes besides its request, and a parsed answer waiting to be
   taken is trimmed to about its size (the parser's first block is 2.5x a small message); the
   results it keeps (>>client.cache) stay within desc.cache_max under a server that sends huge
   lists with long TTLs, and a result larger than that is not kept at all.
   Usage: standalone_client_memory [DATA_DIR]; the server is MCP_TEST_SERVER, else
   build/test_server. */
#define _POSIX_C_SOURCE 200809L   /* mcp.h comes after system headers here (section 3) */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef union hdr { size_t size; double align_d; long double align_ld; void *align_p; } hdr;
static size_t g_live;            /* bytes held through the hooks */

static void *t_malloc(size_t sz)
{
    hdr *h = (hdr *)malloc(sizeof(hdr) + sz);
    if (!h) return NULL;
    h->size = sz;
    g_live += sz;
    return h + 1;
}

static void t_free(void *p)
{
    hdr *h;
    if (!p) return;
    h = (hdr *)p - 1;
    g_live -= h->size;
    free(h);
}

static void *t_realloc(void *p, size_t sz)
{
    hdr *h, *nh;
    size_t old;
    if (!p) return t_malloc(sz);
    h = (hdr *)p - 1;
    old = h->size;
    if (!(nh = (hdr *)realloc(h, sizeof(hdr) + sz))) return NULL;
    nh->size = sz;
    g_live = g_live - old + sz;
    return nh + 1;
}

#define MCP_MALLOC(sz, ctx) ((void)(ctx), t_malloc(sz))
#define MCP_REALLOC(p, sz, ctx) ((void)(ctx), t_realloc((p), (sz)))
#define MCP_FREE(p, ctx) ((void)(ctx), t_free(p))
#define MCP_IMPLEMENTATION
#include "../mcp.h"
#include "test.h"

#define NCALLS 1000
#define NANSWERS 64

static mcp_client *start(void)
{
    const char *srv = getenv("MCP_TEST_SERVER");
    mcp_client_desc d;
    mcp_client *c;
    mcp_error err;
    memset(&d, 0, sizeof d);
    d.command = srv && *srv ? srv : "build/test_server";
    d.protocol_version = "2025-11-25";
    c = mcp_client_new(&d, &err);
    CHECKF(c != NULL, "mcp_client_new: %s", err.message);
    if (c && mcp_client_connect(c, &err) != MCP_OK) {
        CHECKF(0, "connect to %s: %s", d.command, err.message);
        mcp_client_free(c);
        return NULL;
    }
    return c;
}

/* What the stdio transport's buffers hold: how much of a queue builds up depends on the pipe's
   size and on how soon the server reads, not on the calls. */
static size_t buffered(const mcp_client *c)
{
    const mcp__stdio *s = (const mcp__stdio *)c->t;
    return s->out.cap + s->fr._part.cap + s->errline.cap;
}

/* Polls until nothing waits to be written (the server has read every request). */
static int drained(mcp_client *c)
{
    int64_t end = mcp_time_ms() + 10000;
    const mcp__stdio *s = (const mcp__stdio *)c->t;     /* the stdio transport's queue */
    while (s->out.len - s->out_off > 0 && mcp_time_ms() < end) mcp_client_poll(c, 10);
    mcp_client_poll(c, 0);
    return s->out.len == s->out_off;
}

/* NCALLS calls the server never answers: what each costs once its request is written. */
static void test_calls_in_flight(mcp_client *c)
{
    static mcp_call *call[NCALLS];
    mcp_error err;
    size_t base, held;
    int i, sent = 0;
    for (i = 0; i < NCALLS; i++) {               /* once, so the bookkeeping has grown */
        call[i] = mcp_client_send_tool(c, "never", NULL, NULL, &err);
        sent += call[i] != NULL;
    }
    CHECKF(sent == NCALLS && drained(c), "%d of %d calls sent (%s)", sent, NCALLS, err.message);
    for (i = 0; i < NCALLS; i++) mcp_call_free(call[i]);
    drained(c);
    base = g_live - buffered(c);
    for (i = 0, sent = 0; i < NCALLS; i++) {
        call[i] = mcp_client_send_tool(c, "never", NULL, NULL, &err);
        sent += call[i] != NULL;
    }
    CHECKF(sent == NCALLS && drained(c), "%d of %d calls sent (%s)", sent, NCALLS, err.message);
    held = g_live - buffered(c) - base;
    /* 240 bytes of call, its slots in the id table and the deadline heap (an mcp_error in each
       call would be 750) */
    CHECKF(held <= (size_t)NCALLS * 300, "%d calls in flight hold %lu bytes, %lu each (want at most 300)",
           NCALLS, (unsigned long)held, (unsigned long)(held / NCALLS));
    printf("# %d calls in flight: %lu bytes each\n", NCALLS, (unsigned long)(held / NCALLS));
    for (i = 0; i < NCALLS; i++) {
        CHECK(mcp_call_status(call[i]) == MCP_AGAIN);
        mcp_call_free(call[i]);                  /* cancels it */
    }
    drained(c);
}

/* NANSWERS answers of about 1 KB, all in, none taken yet: each holds about its size. */
static void test_answers_waiting(mcp_client *c)
{
    mcp_call *call[NANSWERS];
    mcp_json_doc *doc;
    mcp_error err;
    char args[1100];
    size_t base = 0, held;
    int i, round, done, ok = 1;
    int64_t end;
    memcpy(args, "{\"msg\":\"", 8);
    memset(args + 8, 'm', 1000);
    memcpy(args + 1008, "\"}", 3);
    for (round = 0; round < 2; round++) {        /* round 0 grows the buffers; round 1 counts */
        if (round) base = g_live - buffered(c);
        for (i = 0; i < NANSWERS; i++) ok &= (call[i] = mcp_client_send_tool(c, "echo", args, NULL, &err)) != NULL;
        CHECKF(ok, "send: %s", err.message);
        if (!ok) return;
        end = mcp_time_ms() + 10000;
        do {
            mcp_client_poll(c, 10);
            for (i = 0, done = 0; i < NANSWERS; i++) done += mcp_call_status(call[i]) != MCP_AGAIN;
        } while (done < NANSWERS && mcp_time_ms() < end);
        CHECKF(done == NANSWERS, "%d of %d answers came", done, NANSWERS);
        held = g_live - buffered(c) - base;
        if (round) {
            /* a 1088-byte answer: its text and ~15 values of 16 bytes, plus the call; untrimmed
               the document alone would be ~3000 bytes */
            CHECKF(held <= (size_t)NANSWERS * 1900, "%d answers of 1088 bytes waiting hold %lu bytes, %lu each "
                   "(want at most 1900)", NANSWERS, (unsigned long)held, (unsigned long)(held / NANSWERS));
            printf("# %d answers of 1088 bytes waiting: %lu bytes each, with their calls\n", NANSWERS,
                   (unsigned long)(held / NANSWERS));
        }
        for (i = 0; i < NANSWERS; i++) {
            if (mcp_call_result(call[i], &doc, &err) != MCP_OK) { CHECKF(0, "echo: %s", err.message); ok = 0; }
            else if (strlen(mcp_json_str(mcp_json_get(mcp_json_at(mcp_json_get(mcp_json_root(doc), "content"), 0),
                            "text"))) != 1010) { CHECKF(0, "answer %d is not the echo", i); ok = 0; }
            mcp_json_free(doc);
            mcp_call_free(call[i]);
        }
        if (!ok) return;
    }
}

/* 40 tools/list pages of 64 KB each, ttlMs an hour, listed twice into a 1 MiB budget: what
   the client holds between the listings is the kept pages, within the budget (the rest of the
   client is the same as before the first); then a budget smaller than one page keeps none. */
static void test_cache_within_cap(void)
{
    static const char *const args[] = { "--era=modern", "--pages=40", "--big=65536", "--ttl=3600000", NULL };
    const char *srv = getenv("MCP_TEST_SERVER");
    const size_t caps[2] = { (size_t)1 << 20, 60000 };
    mcp_client_desc d;
    mcp_client_stats st;
    mcp_json_doc *doc;
    mcp_client *c;
    mcp_error err;
    size_t base, held;
    int k, round;
    static char pad[70016];
    memcpy(pad, "{\"pad\":\"", 8);
    memset(pad + 8, 'x', 70000);
    memcpy(pad + 70008, "\"}", 3);
    for (k = 0; k < 2; k++) {
        memset(&d, 0, sizeof d);
        d.command = srv && *srv ? srv : "build/test_server";
        d.args = args;
        d.cache_max = caps[k];
        if (!(c = mcp_client_new(&d, &err)) || mcp_client_connect(c, &err) != MCP_OK) {
            CHECKF(0, "connect to %s: %s", d.command, err.message);
            mcp_client_free(c);
            return;
        }
        if (mcp_client_call_tool(c, "echo", pad, &doc, &err) != MCP_OK) CHECKF(0, "echo: %s", err.message);
        mcp_json_free(doc);                              /* the client's buffers grown for 64 KB */
        base = g_live;
        for (round = 0; round < 2; round++) {
            if (mcp_client_list_tools(c, &doc, &err) != MCP_OK) { CHECKF(0, "list_tools: %s", err.message); break; }
            CHECK(mcp_json_len(mcp_json_get(mcp_json_root(doc), "tools")) == 26);
            mcp_json_free(doc);
            mcp_client_get_stats(c, &st);
            held = g_live - base;
            CHECKF(st.cache_bytes <= caps[k], "%llu bytes kept, over the budget of %lu", (unsigned long long)st.cache_bytes,
                   (unsigned long)caps[k]);
            CHECKF(held <= caps[k] + 16 * 1024, "the client holds %lu bytes more than before listing (budget %lu)",
                   (unsigned long)held, (unsigned long)caps[k]);
            printf("# cache budget %lu, 40 pages of 64 KB (ttlMs an hour), listing %d: %lu bytes held, %llu kept, "
                   "%llu stored, %llu evicted, %llu hits\n", (unsigned long)caps[k], round + 1, (unsigned long)held,
                   (unsigned long long)st.cache_bytes, (unsigned long long)st.cache_stores,
                   (unsigned long long)st.cache_evictions, (unsigned long long)st.cache_hits);
        }
        if (k == 0) CHECK(st.cache_stores == 80 && st.cache_evictions > 60 && st.cache_bytes > (size_t)900 << 10);
        else CHECK(st.cache_stores == 0 && st.cache_bytes == 0);
        mcp_client_free(c);
    }
}

int main(int argc, char **argv)
{
    mcp_client *c;
    (void)argc; (void)argv;
    c = start();
    if (c) {
        test_calls_in_flight(c);
        test_answers_waiting(c);
        mcp_client_free(c);
        CHECKF(g_live == 0, "%lu bytes still held after mcp_client_free", (unsigned long)g_live);
    }
    test_cache_within_cap();
    CHECKF(g_live == 0, "%lu bytes still held after the cache's clients were freed", (unsigned long)g_live);
    return TEST_DONE();
}
