/* Minimal test harness shared by the tests: count checks, report failures with their place,
   print "N passed, N failed" last (", N skipped" added when a check could not run on this
   machine), exit non-zero on any failure. A skip is never a pass: tests/run_tests.sh fails a
   program that skipped everything and passed nothing. */
#ifndef MCP_TEST_H
#define MCP_TEST_H
#include <stdio.h>

static int t_pass, t_fail, t_skip;

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

/* SKIP(...): a check that cannot run here (say why, on one line of stdout); counted apart. */
#define SKIP(...)                                                           \
    do {                                                                    \
        t_skip++;                                                           \
        printf("SKIPPED: ");                                                \
        printf(__VA_ARGS__);                                                \
        putchar('\n');                                                      \
    } while (0)

#define TEST_DONE()                                                               \
    ((t_skip ? printf("%d passed, %d failed, %d skipped\n", t_pass, t_fail, t_skip)  \
             : printf("%d passed, %d failed\n", t_pass, t_fail)),                   \
     t_fail ? 1 : 0)

#endif
