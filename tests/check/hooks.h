/* Allocator hooks for the compile check: count blocks handed out and still live. Included
   before mcp.h; the counters and functions are defined in the TU with MCP_IMPLEMENTATION. */
#ifndef CHECK_HOOKS_H
#define CHECK_HOOKS_H
#if defined(MCP_IMPLEMENTATION) && !defined(_POSIX_C_SOURCE)
#define _POSIX_C_SOURCE 200809L   /* mcp.h needs it and stdlib.h comes first here */
#endif
#include <stdlib.h>

#ifdef __cplusplus
extern "C" {
#endif
extern long check_allocs, check_live;
void *check_malloc(size_t sz, void *ctx);
void *check_realloc(void *p, size_t sz, void *ctx);
void  check_free(void *p, void *ctx);
#ifdef __cplusplus
}
#endif

#define MCP_MALLOC(sz, ctx) check_malloc((sz), (ctx))
#define MCP_REALLOC(p, sz, ctx) check_realloc((p), (sz), (ctx))
#define MCP_FREE(p, ctx) check_free((p), (ctx))

#ifdef MCP_IMPLEMENTATION
long check_allocs, check_live;
void *check_malloc(size_t sz, void *ctx)
{
    void *p = malloc(sz);
    (void)ctx;
    if (p) { check_allocs++; check_live++; }
    return p;
}
void *check_realloc(void *p, size_t sz, void *ctx)
{
    void *np;
    if (!p) return check_malloc(sz, ctx);
    np = realloc(p, sz);
    if (np) check_allocs++;
    return np;
}
void check_free(void *p, void *ctx)
{
    (void)ctx;
    if (p) { check_live--; free(p); }
}
#endif
#endif
