/* Minimal test harness shared by the tests: count checks, report failures with their place,
   print "N passed, N failed" last, exit non-zero on any failure. */
#ifndef MCP_TEST_H
#define MCP_TEST_H
#include <stdio.h>

static int t_pass, t_fail;

#define CHECK(cond) CHECKF(cond, "%s", #cond)
#define CHECKF(cond, ...)                                                   \
    do {                                                                    \
        if (cond) t_pass++;                                                 \
        else {                                                              \
            t_fail++;                                                       \
            fprintf(stderr, "%s:%d: FAILED: ", __FILE__, __LINE__);         \
            fprintf(stderr, __VA_ARGS__);                                   \
            fputc('\n', stderr);                                            \
        }                                                                   \
    } while (0)

#define TEST_DONE() (printf("%d passed, %d failed\n", t_pass, t_fail), t_fail ? 1 : 0)

#endif
