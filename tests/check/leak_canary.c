/* Leaks on purpose: `make asan` runs it first and requires LeakSanitizer to report the leak,
   which proves leak detection is really on before the tests are trusted to be leak-free. */
#include <stdio.h>
#include <stdlib.h>

static void *volatile sink;

int main(void)
{
    sink = malloc(64);
    sink = NULL;              /* the only pointer is gone: a definite leak */
    printf("canary leaked 64 bytes\n");
    return 0;
}
