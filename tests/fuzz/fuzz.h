/* fuzz.h - what every fuzz target shares: REQUIRE, a contract check that aborts (libFuzzer
   keeps the input that did it). Included after mcp.h and <stdio.h>, <stdlib.h>. */
#ifndef TESTS_FUZZ_H
#define TESTS_FUZZ_H

#define REQUIRE(cond)                                                                       \
    do {                                                                                    \
        if (!(cond)) {                                                                      \
            fprintf(stderr, "%s:%d: requirement failed: %s\n", __FILE__, __LINE__, #cond);  \
            abort();                                                                        \
        }                                                                                   \
    } while (0)

#endif
