/* Minimal test harness shared by the tests: count checks, report failures with their place,
   print "N passed, N failed" last (", N skipped" added when a check could not run on this
   machine), exit non-zero on any failure. A skip is never a pass: tests/run_tests.sh fails a
   program that skipped everything and passed nothing.

   Test cases register themselves (as in sheredom's utest.h) and run in the order they are
   written in the file:

       TEST_CASE(reinit) { CHECK(1 + 1 == 2); }

       int main(int argc, char **argv) { return test_main(argc, argv); }

   or, when main has setup to do (a server to find, a directory to make) between reading the
   options and running the cases:

       test_args(&argc, argv);         takes --filter/--list out of argv (see below)
       ...setup, reading argv[1] (the data directory) and argv[2] as before...
       test_run();                     every selected case, in file order
       ...cleanup...
       return TEST_DONE();

   Options, before or after the other arguments:
       --filter TEXT (or --filter=TEXT)  only the cases whose name contains TEXT; given more
                                         than once, the cases matching any of them. A filter
                                         that matches no case is an error (exit status 2).
       --list                            print the names of the (selected) cases and exit.
   For example: build/test_client --filter reinit, build/test_json --list. */
#ifndef MCP_TEST_H
#define MCP_TEST_H
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#if defined(__GNUC__) || defined(__clang__) || defined(__TINYC__)
#define TEST_UNUSED __attribute__((unused))
#define TEST_CTOR __attribute__((constructor))
#else
#error "tests/test.h needs __attribute__((constructor)) (gcc, clang or tcc)"
#endif

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

/* ---- small helpers the tests share (POSIX: every test program sets its feature macros first) ---- */

/* The process's open fds (the entries of /proc/self/fd, less the one reading it), -1 without /proc:
   a case compares the count before and after to find a leak. */
TEST_UNUSED static int count_fds(void)
{
    DIR *d = opendir("/proc/self/fd");
    struct dirent *e;
    int n = 0;
    if (!d) return -1;
    while ((e = readdir(d)) != NULL) if (e->d_name[0] != '.') n++;
    closedir(d);
    return n - 1;                        /* the directory's own fd */
}

TEST_UNUSED static int contains(const char *s, const char *part) { return s && part && strstr(s, part) != NULL; }
TEST_UNUSED static int starts_with(const char *s, const char *p) { return s && !strncmp(s, p, strlen(p)); }

/* Sleeps ms, a signal notwithstanding. */
TEST_UNUSED static void nap(int ms)
{
    struct timespec ts;
    ts.tv_sec = ms / 1000; ts.tv_nsec = (long)(ms % 1000) * 1000000L;
    while (nanosleep(&ts, &ts) < 0 && errno == EINTR) {}
}

/* ---- registered cases ------------------------------------------------------------------------ */

typedef struct test_case_s {
    const char *name;
    void (*fn)(void);
    int line;                       /* where it is written: the cases run in this order */
    struct test_case_s *next;
} test_case_s;

static test_case_s *t_cases TEST_UNUSED;            /* sorted by line */
static const char *t_filters[16] TEST_UNUSED;
static int t_nfilters TEST_UNUSED;
/* Set by a program that wants each case's time printed ("# name  N ms") after it ran. */
static long long (*test_clock_ms)(void) TEST_UNUSED;

TEST_UNUSED static void t_register(test_case_s *tc)
{
    test_case_s **p = &t_cases;
    while (*p && (*p)->line <= tc->line) p = &(*p)->next;
    tc->next = *p;
    *p = tc;
}

/* TEST_CASE(name) { body }: a case named name (the function is tcase_name). Constructors of
   one file may run in any order; the list is kept in line order. */
#define TEST_CASE(name)                                                                     \
    static void tcase_##name(void);                                                         \
    static test_case_s tnode_##name = { #name, tcase_##name, __LINE__, NULL };              \
    TEST_CTOR static void treg_##name(void) { t_register(&tnode_##name); }                  \
    static void tcase_##name(void)

TEST_UNUSED static int t_selected(const test_case_s *tc)
{
    int i;
    if (!t_nfilters) return 1;
    for (i = 0; i < t_nfilters; i++)
        if (strstr(tc->name, t_filters[i])) return 1;
    return 0;
}

TEST_UNUSED static void t_usage(const char *prog, FILE *f)
{
    fprintf(f, "usage: %s [DATA_DIR ...] [--filter TEXT]... [--list]\n"
               "  --filter TEXT  run only the cases whose name contains TEXT (any of several)\n"
               "  --list         print the case names and exit\n", prog);
}

/* Takes --filter TEXT, --filter=TEXT, --list and --help out of argv (the other arguments keep
   their order, so argv[1] is still the data directory); --list and --help exit here, as does
   a filter that matches no case (status 2) or an unknown --option. */
TEST_UNUSED static void test_args(int *argc, char **argv)
{
    const char *prog = *argc > 0 && argv[0] ? argv[0] : "test";
    const char *slash = strrchr(prog, '/');
    int i, n = 1, list = 0, matched = 0;
    test_case_s *tc;
    if (slash) prog = slash + 1;
    for (i = 1; i < *argc; i++) {
        const char *a = argv[i];
        if (!strcmp(a, "--filter") || !strncmp(a, "--filter=", 9)) {
            const char *f = a[8] == '=' ? a + 9 : (i + 1 < *argc ? argv[++i] : NULL);
            if (!f) { fprintf(stderr, "%s: --filter needs a text\n", prog); t_usage(prog, stderr); exit(2); }
            if (t_nfilters == (int)(sizeof t_filters / sizeof t_filters[0])) {
                fprintf(stderr, "%s: too many --filter options\n", prog); exit(2);
            }
            t_filters[t_nfilters++] = f;
        } else if (!strcmp(a, "--list")) list = 1;
        else if (!strcmp(a, "--help") || !strcmp(a, "-h")) { t_usage(prog, stdout); exit(0); }
        else if (!strncmp(a, "--", 2) && a[2]) {
            fprintf(stderr, "%s: unknown option %s\n", prog, a); t_usage(prog, stderr); exit(2);
        } else argv[n++] = argv[i];
    }
    *argc = n;
    argv[n] = NULL;
    for (tc = t_cases; tc; tc = tc->next)
        if (t_selected(tc)) {
            matched++;
            if (list) printf("%s\n", tc->name);
        }
    if (!matched && t_nfilters) {
        fprintf(stderr, "%s: no test case matches", prog);
        for (i = 0; i < t_nfilters; i++) fprintf(stderr, "%s \"%s\"", i ? " or" : "", t_filters[i]);
        fprintf(stderr, " (--list prints the names)\n");
        exit(2);
    }
    if (list) exit(0);
}

/* Runs every selected case in file order; returns how many ran. */
TEST_UNUSED static int test_run(void)
{
    test_case_s *tc;
    int ran = 0;
    if (t_nfilters) {
        printf("# cases:");
        for (tc = t_cases; tc; tc = tc->next)
            if (t_selected(tc)) printf(" %s", tc->name);
        printf("\n");
        fflush(stdout);
    }
    for (tc = t_cases; tc; tc = tc->next) {
        long long t0;
        if (!t_selected(tc)) continue;
        t0 = test_clock_ms ? test_clock_ms() : 0;
        tc->fn();
        ran++;
        if (test_clock_ms) {
            printf("# %-20s %6lld ms\n", tc->name, test_clock_ms() - t0);
            fflush(stdout);
        }
    }
    return ran;
}

/* main for a program without setup: options, every selected case, the summary line. */
TEST_UNUSED static int test_main(int argc, char **argv)
{
    test_args(&argc, argv);
    test_run();
    return TEST_DONE();
}

#endif
