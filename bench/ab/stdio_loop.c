/* stdio_loop.c - N blocking tools/call round trips over stdio, for bench/compare_headers.sh.

   Built by compare_headers.sh against each header it compares (cc -I DIR-OF-HEADER ...):
       stdio_loop SERVER N
   starts SERVER (the C test server, build/test_server) over stdio as rpc_bench does
   (protocol 2025-11-25, MALLOC_TOP_PAD_=1048576 in its environment), makes 10 warm-up calls,
   then N calls of mcp_client_call_tool(c, "echo", {"msg":"hello"}) one at a time, each answer
   checked and freed, and prints one line:
       calls N allocs A allocs/call X bytes-peak P
   where A counts the library's MCP_MALLOC + MCP_REALLOC calls during the N calls only.
   System calls are counted from outside: strace on this process (without -f: the server it
   forks is not traced), counting the calls between the two getppid() this program makes right
   before and right after the N calls (the library never calls getppid), so connect, warm-up
   and exit are left out. Not a benchmark of its own: it lives in bench/ab/, outside
   the bench/NAME.c files that `make bench` runs. */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <stddef.h>
#include <string.h>
#include <unistd.h>

typedef union ab_hdr { size_t size; long double ld; void *p; long long ll; } ab_hdr;
static struct { size_t live, peak; unsigned long long allocs; } heap;

static void *ab_malloc(size_t n)
{
    ab_hdr *h = (ab_hdr *)malloc(sizeof *h + n);
    if (!h) return NULL;
    h->size = n;
    heap.live += n;
    if (heap.live > heap.peak) heap.peak = heap.live;
    heap.allocs++;
    return h + 1;
}

static void *ab_realloc(void *p, size_t n)
{
    ab_hdr *h;
    size_t old;
    if (!p) return ab_malloc(n);
    old = ((ab_hdr *)p - 1)->size;
    h = (ab_hdr *)realloc((ab_hdr *)p - 1, sizeof *h + n);
    if (!h) return NULL;
    h->size = n;
    heap.live = heap.live - old + n;
    if (heap.live > heap.peak) heap.peak = heap.live;
    heap.allocs++;
    return h + 1;
}

static void ab_free(void *p)
{
    if (!p) return;
    heap.live -= ((ab_hdr *)p - 1)->size;
    free((ab_hdr *)p - 1);
}

#define MCP_MALLOC(sz, ctx) ((void)(ctx), ab_malloc(sz))
#define MCP_REALLOC(p, sz, ctx) ((void)(ctx), ab_realloc((p), (sz)))
#define MCP_FREE(p, ctx) ((void)(ctx), ab_free(p))
#define MCP_IMPLEMENTATION
#include "mcp.h"

static void call(mcp_client *c, const char *args)
{
    mcp_json_doc *doc;
    mcp_error err;
    const char *text;
    if (mcp_client_call_tool(c, "echo", args, &doc, &err) != MCP_OK) {
        fprintf(stderr, "stdio_loop: tools/call echo: %s\n", err.message);
        exit(1);
    }
    text = mcp_json_str(mcp_json_get(mcp_json_at(mcp_json_get(mcp_json_root(doc), "content"), 0), "text"));
    if (!text || strcmp(text, args)) {
        fprintf(stderr, "stdio_loop: the echo tool did not echo the arguments\n");
        exit(1);
    }
    mcp_json_free(doc);
}

int main(int argc, char **argv)
{
    static const char *env[] = { "MALLOC_TOP_PAD_=1048576", NULL };
    const char *args = "{\"msg\":\"hello\"}";
    mcp_client_desc d;
    mcp_error err;
    mcp_client *c;
    long i, n;
    unsigned long long a0;
    if (argc < 3 || (n = atol(argv[2])) <= 0) {
        fprintf(stderr, "usage: stdio_loop SERVER N\n");
        return 2;
    }
    memset(&d, 0, sizeof d);
    d.command = argv[1];
    d.protocol_version = "2025-11-25";
    d.timeout_ms = 60000;
    d.env = env;
    if (!(c = mcp_client_new(&d, &err)) || mcp_client_connect(c, &err) != MCP_OK) {
        fprintf(stderr, "stdio_loop: connect: %s\n", err.message);
        return 1;
    }
    for (i = 0; i < 10; i++) call(c, args);
    a0 = heap.allocs;
    (void)getppid();   /* markers for a trace: the calls between the two getppid() are the loop's */
    for (i = 0; i < n; i++) call(c, args);
    (void)getppid();
    printf("calls %ld allocs %llu allocs/call %.3f bytes-peak %lu\n", n, heap.allocs - a0,
           (double)(heap.allocs - a0) / (double)n, (unsigned long)heap.peak);
    mcp_client_free(c);
    return 0;
}
