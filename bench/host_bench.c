/* host_bench.c - the host (>>host, issue 18) with many stdio servers: parallel connects, and
   the cost of one poll round over many idle servers, each beside a baseline measured in the
   same run.

   Build and run (what `make bench` does):
       cc -O2 -std=c99 -Wall -Wextra -Wpedantic -Wshadow -Werror bench/host_bench.c -o build/host_bench
       build/host_bench tests/data [--quick] [--servers=N]

   The servers are the C test server (tests/servers/test_server.c): env MCP_TEST_SERVER, else
   test_server beside this program (build/test_server). Without one the benchmark says so and
   exits 0. argv[1] (the data directory) is not used. --quick: fewer repetitions, for CI.
   --servers=N: N servers instead of 50.

   What is measured:
   (a) Connect. Every server is `test_server --startup-delay=500`: it sleeps 500 ms before it
       reads anything, as a server started through npx or uvx spends its first half second
       installing and loading. Timed from mcp_host_connect until every server is READY
       (mcp_host_wait, then each state checked):
         one alone (host)    a host with one such server
         one alone (client)  mcp_client_new + mcp_client_connect on one such server (no host)
         serial sum          50 x one alone (host): what connecting them one after the other
                             would take (computed, not run: 25 s)
         50 in one host      the 50 at once
       Target: the 50 READY in under 1.5 s, i.e. started in parallel (the serial sum is 25 s).
       The median of the repetitions (3; --quick 1).
   (b) One poll round over 50 idle READY servers (no call in flight, nothing to read):
         mcp_host_poll(h, 0)         one round of the host over its 50 servers
         50 x mcp_client_poll(c, 0)  one client's idle poll, on an idle READY client of its own
                                     (the same test server), times 50: what a program polling
                                     each of its 50 clients itself pays per round
         raw poll()                  poll(2) with timeout 0 on the very descriptors
                                     mcp_host_pollfds gives for the 50 servers: the floor
       Microseconds per round: the median over batches (each batch many rounds, the three
       kinds alternating batch by batch, so a slow spell of the machine is shared).
       Target: mcp_host_poll(h, 0) no dearer than 50 x mcp_client_poll(c, 0) (ratio <= 1.00):
       a host's round over its servers costs no more than polling each client yourself.
   Also reported: mcp_host_free of the 50 (each server closed, in parallel).
   MET / NOT MET lines report the targets; timings never fail the program. Exit status 0,
   unless something is wrong (a server not READY, a call failing), then 1. */
#define _POSIX_C_SOURCE 200809L
#define MCP_IMPLEMENTATION
#include "../mcp.h"

#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/utsname.h>

#define DELAY_MS 500
#define MAXSRV 200

static int quick;
static int nsrv = 50;
static char server_path[4096];
static const char *const srv_args[] = { "--startup-delay=500", NULL };

/* ---- small helpers ------------------------------------------------------------------------- */

static uint64_t now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static double ms_since(uint64_t t0) { return (double)(now_ns() - t0) / 1e6; }

static void die(const char *what, const char *detail)
{
    fprintf(stderr, "host_bench: %s%s%s\n", what, detail ? ": " : "", detail ? detail : "");
    exit(1);
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

static double median(double *v, int n)
{
    qsort(v, (size_t)n, sizeof *v, cmp_double);
    return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

static void server_desc(mcp_client_desc *d, const char *const *args)
{
    memset(d, 0, sizeof *d);
    d->transport = MCP_STDIO;
    d->command = server_path;
    d->args = args;
    d->client_name = "host_bench";
    d->client_version = "1.0";
}

/* A host with n test servers (startup-delay=500 when slow), not yet connected. */
static mcp_host *host_with(int n, int slow)
{
    mcp_host_desc hd;
    mcp_client_desc d;
    mcp_error err;
    mcp_host *h;
    char name[32];
    int i;
    memset(&hd, 0, sizeof hd);
    hd.client_name = "host_bench";
    hd.client_version = "1.0";
    if (!(h = mcp_host_new(&hd, &err))) die("mcp_host_new", err.message);
    server_desc(&d, slow ? srv_args : NULL);
    for (i = 0; i < n; i++) {
        snprintf(name, sizeof name, "s%02d", i);
        if (mcp_host_add(h, name, &d, &err) != MCP_OK) die("mcp_host_add", err.message);
    }
    return h;
}

/* Every server READY? Says which is not. */
static int all_ready(const mcp_host *h)
{
    size_t i, n = mcp_host_server_count(h);
    mcp_host_server s;
    for (i = 0; i < n; i++) {
        if (mcp_host_server_get(h, i, &s) != MCP_OK) return 0;
        if (s.state != MCP_SERVER_READY) {
            fprintf(stderr, "host_bench: server %s is in state %d: %s\n", s.name, (int)s.state,
                    s.error ? s.error->message : "(no error)");
            return 0;
        }
    }
    return 1;
}

/* mcp_host_connect until every server is READY: ms. */
static double connect_all(mcp_host *h)
{
    mcp_error err;
    uint64_t t0 = now_ns();
    double ms;
    mcp_status st;
    if (mcp_host_connect(h, &err) != MCP_OK) die("mcp_host_connect", err.message);
    st = mcp_host_wait(h, 60000);
    ms = ms_since(t0);
    if (st != MCP_OK) die("mcp_host_wait", mcp_status_str(st));
    if (!all_ready(h)) die("a server did not get READY", NULL);
    return ms;
}

static double client_connect_ms(mcp_client **out)
{
    mcp_client_desc d;
    mcp_error err;
    mcp_client *c;
    uint64_t t0;
    double ms;
    server_desc(&d, srv_args);
    t0 = now_ns();
    if (!(c = mcp_client_new(&d, &err))) die("mcp_client_new", err.message);
    if (mcp_client_connect(c, &err) != MCP_OK) die("mcp_client_connect", err.message);
    ms = ms_since(t0);
    if (out) *out = c;
    else mcp_client_free(c);
    return ms;
}

static void header(void)
{
    struct utsname u;
    char cpu[256] = "unknown", line[512];
    FILE *f = fopen("/proc/cpuinfo", "r");
    struct rlimit rl;
    if (f) {
        while (fgets(line, sizeof line, f))
            if (!strncmp(line, "model name", 10) && strchr(line, ':')) {
                char *v = strchr(line, ':') + 2;
                v[strcspn(v, "\n")] = 0;
                snprintf(cpu, sizeof cpu, "%s", v);
                break;
            }
        fclose(f);
    }
    printf("host_bench: one host with %d stdio servers: parallel connects, idle poll rounds%s\n", nsrv,
           quick ? " (--quick: short runs, not numbers to quote)" : "");
    if (uname(&u) == 0) printf("  machine:  %s %s %s, CPU: %s, %ld online\n", u.sysname, u.release, u.machine, cpu,
                               sysconf(_SC_NPROCESSORS_ONLN));
#ifdef __VERSION__
    printf("  compiler: %s%s\n", __VERSION__,
#ifdef __OPTIMIZE__
           ", optimized"
#else
           ", NOT optimized"
#endif
           );
#endif
    printf("  server:   %s --startup-delay=%d (sleeps %d ms before reading: a slow npx start)\n", server_path,
           DELAY_MS, DELAY_MS);
    if (getrlimit(RLIMIT_NOFILE, &rl) == 0)
        printf("  fd limit: %llu (soft)\n", (unsigned long long)rl.rlim_cur);
}

/* ---- (b) poll rounds ----------------------------------------------------------------------------- */

typedef struct rounds {
    double host_us, client_us, raw_us;      /* per round (client: one call; x nsrv later) */
    int fds;
} rounds;

static void poll_rounds(mcp_host *h, mcp_client *c, int batches, int per_batch, rounds *out)
{
    static mcp_pollfd hfds[MAXSRV * 8];
    static struct pollfd pfds[MAXSRV * 8];
    double *hb = (double *)malloc(sizeof(double) * (size_t)batches);
    double *cb = (double *)malloc(sizeof(double) * (size_t)batches);
    double *rb = (double *)malloc(sizeof(double) * (size_t)batches);
    int b, i, n, per_client = per_batch * nsrv;
    uint64_t t0;
    if (!hb || !cb || !rb) die("out of memory", NULL);
    n = mcp_host_pollfds(h, hfds, (int)(sizeof hfds / sizeof hfds[0]));
    if (n < 0) n = 0;
    for (i = 0; i < n; i++) { pfds[i].fd = hfds[i].fd; pfds[i].events = hfds[i].events; pfds[i].revents = 0; }
    out->fds = n;
    for (i = 0; i < per_batch; i++) mcp_host_poll(h, 0);           /* warm up */
    for (i = 0; i < per_client; i++) mcp_client_poll(c, 0);
    for (b = 0; b < batches; b++) {
        t0 = now_ns();
        for (i = 0; i < per_batch; i++) mcp_host_poll(h, 0);
        hb[b] = (double)(now_ns() - t0) / 1e3 / per_batch;
        t0 = now_ns();
        for (i = 0; i < per_client; i++) mcp_client_poll(c, 0);
        cb[b] = (double)(now_ns() - t0) / 1e3 / per_client;
        t0 = now_ns();
        for (i = 0; i < per_batch; i++) poll(pfds, (nfds_t)n, 0);
        rb[b] = (double)(now_ns() - t0) / 1e3 / per_batch;
    }
    out->host_us = median(hb, batches);
    out->client_us = median(cb, batches);
    out->raw_us = median(rb, batches);
    free(hb); free(cb); free(rb);
}

int main(int argc, char **argv)
{
    const char *env = getenv("MCP_TEST_SERVER");
    struct stat sb;
    int i, reps, k;
    double one_host[5], one_client[5], many[5], one_h, one_c, many_ms, serial, free_ms;
    mcp_host *h;
    mcp_client *c = NULL;
    mcp_json_doc *doc = NULL;
    mcp_error err;
    rounds r;
    uint64_t t0;
    struct rlimit rl;

    for (i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--quick")) quick = 1;
        else if (!strncmp(argv[i], "--servers=", 10)) nsrv = atoi(argv[i] + 10);
        else if (!strncmp(argv[i], "--server=", 9)) env = argv[i] + 9;
    }
    if (nsrv < 1 || nsrv > MAXSRV) die("--servers=N: N from 1 to 200", NULL);
    if (env && *env) snprintf(server_path, sizeof server_path, "%s", env);
    else {
        const char *slash = strrchr(argv[0], '/');
        if (slash) snprintf(server_path, sizeof server_path, "%.*s/test_server", (int)(slash - argv[0]), argv[0]);
        else snprintf(server_path, sizeof server_path, "./test_server");
    }
    setvbuf(stdout, NULL, _IOLBF, 0);
    if (stat(server_path, &sb) != 0 || !(sb.st_mode & S_IXUSR)) {
        printf("host_bench: skipped: no test server at %s (build it with `make`, or set MCP_TEST_SERVER)\n", server_path);
        return 0;
    }
    if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur < rl.rlim_max && rl.rlim_cur < 4096) {
        rl.rlim_cur = rl.rlim_max < 4096 ? rl.rlim_max : 4096;      /* 50 servers: ~200 fds */
        setrlimit(RLIMIT_NOFILE, &rl);
    }
    header();
    reps = quick ? 1 : 3;

    /* (a) connects: the baselines first, then the many, alternating over the repetitions */
    for (k = 0; k < reps; k++) {
        h = host_with(1, 1);
        one_host[k] = connect_all(h);
        mcp_host_free(h);
        one_client[k] = client_connect_ms(NULL);
        h = host_with(nsrv, 1);
        many[k] = connect_all(h);
        if (k + 1 < reps) mcp_host_free(h);
    }
    one_h = median(one_host, reps);
    one_c = median(one_client, reps);
    many_ms = median(many, reps);
    serial = one_h * nsrv;

    /* the last host of (a) stays: its servers are READY and idle. A call on one, to be sure. */
    if (mcp_host_call_tool(h, "s00__echo", "{\"ok\":1}", &doc, &err) != MCP_OK) die("a call through the host", err.message);
    mcp_json_free(doc);
    client_connect_ms(&c);                 /* the client for the baseline of (b), idle */
    for (i = 0; i < 20; i++) mcp_host_poll(h, 10);      /* let the startup traffic settle */
    poll_rounds(h, c, quick ? 15 : 41, quick ? 100 : 400, &r);
    mcp_client_free(c);
    t0 = now_ns();
    mcp_host_free(h);
    free_ms = ms_since(t0);

    printf("\n(a) connect: from mcp_host_connect until every server is READY (median of %d)\n", reps);
    printf("  %-34s %10s %12s\n", "case", "ms", "x one alone");
    printf("  %-34s %10.1f %11.2fx\n", "one server alone (host)", one_h, 1.0);
    printf("  %-34s %10.1f %11.2fx\n", "one server alone (client, no host)", one_c, one_c / one_h);
    printf("  %-34s %10.1f %11.2fx\n", "serial sum (computed)", serial, (double)nsrv);
    {
        char label[64];
        snprintf(label, sizeof label, "%d servers in one host", nsrv);
        printf("  %-34s %10.1f %11.2fx   (%.3fx the serial sum)\n", label, many_ms, many_ms / one_h, many_ms / serial);
    }
    printf("  (each server sleeps %d ms before it reads: %d ms is the floor for one)\n", DELAY_MS, DELAY_MS);

    printf("\n(b) one poll round over %d idle READY servers (%d descriptors), microseconds\n", nsrv, r.fds);
    printf("  %-34s %10s %16s\n", "case", "us/round", "x mcp_host_poll");
    printf("  %-34s %10.2f %15.2fx\n", "mcp_host_poll(h, 0)", r.host_us, 1.0);
    {
        char label[64];
        snprintf(label, sizeof label, "%d x mcp_client_poll(c, 0)", nsrv);
        printf("  %-34s %10.2f %15.2fx   (one: %.3f us)\n", label, r.client_us * nsrv, r.client_us * nsrv / r.host_us,
               r.client_us);
        snprintf(label, sizeof label, "raw poll() of the %d fds", r.fds);
        printf("  %-34s %10.2f %15.2fx\n", label, r.raw_us, r.raw_us / r.host_us);
    }
    printf("\n  mcp_host_free of the %d servers: %.1f ms\n", nsrv, free_ms);

    printf("\ntargets (issue 18)%s\n", quick ? " - a --quick run: indicative only" : "");
    printf("  %s: %d servers READY in %.0f ms (target < 1500 ms: in parallel; one alone %.0f ms, the serial sum %.0f ms)\n",
           many_ms < 1500 ? "MET    " : "NOT MET", nsrv, many_ms, one_h, serial);
    printf("  %s: mcp_host_poll(h, 0) over %d idle servers: %.2f us = %.2fx %d x mcp_client_poll(c, 0)'s %.2f us "
           "(target <= 1.00x; raw poll() %.2f us, the host %.1fx that)\n",
           r.host_us <= r.client_us * nsrv ? "MET    " : "NOT MET", nsrv, r.host_us, r.host_us / (r.client_us * nsrv),
           nsrv, r.client_us * nsrv, r.raw_us, r.host_us / r.raw_us);
    return 0;
}
