/* json_bench.c - mcp.h's JSON parser and dump against cJSON: throughput, memory, allocations.

   Build and run (what `make bench` does; the cJSON part only when cJSON's header exists):
       cc -O2 -std=c99 -Wall -Wextra -Wpedantic -Wshadow -Werror \
          bench/json_bench.c -o build/json_bench [-DHAVE_CJSON -lcjson]
       build/json_bench tests/data

   argv[1] is the test data directory; the corpora are read from <dir>/json-bench/ (or from
   <dir> itself). Three typical MCP messages are generated here, deterministically: a
   tools/list result with 50 tools, a tools/call result, a notifications/progress.
   An optional second argument --quick makes every timing short (a smoke test, not numbers).
   The whole run takes about 40 seconds.

   What is measured:
   - parse: parse + free of the whole text, for both libraries (mcp_json_parse + mcp_json_free,
     cJSON_ParseWithLength + cJSON_Delete). MB/s of input, MB = 1e6 bytes.
   - dump: mcp_json_dump (compact, pretty) vs cJSON_PrintUnformatted / cJSON_Print of the same
     parsed document, output freed each time. MB/s of each library's own output.
   - memory: bytes the parsed document holds per input byte (live right after the parse, and
     the peak during it, scratch included), and the number of malloc/realloc calls of a parse.
     mcp.h is counted through its MCP_MALLOC/MCP_REALLOC/MCP_FREE hooks (with alloc_ctx set
     only for that measurement; the timings run with plain malloc), cJSON through
     cJSON_InitHooks (reset to malloc/free for the timings). Requested sizes are counted, not
     the allocator's own overhead.
   Before anything is timed, a correctness guard checks that both libraries parse every input
   and that mcp.h's compact and pretty dumps parse back equal (mcp_json_equal).
   Each timing repeats its operation in a loop for ~0.2 s, once per round; the rounds cycle
   through all timings of all inputs, so a slow spell of the machine spoils one round of many
   timings rather than every run of one. The best round is reported, and for parsing the ratio
   of the median rounds too.

   Exit status: 0, unless a correctness guard fails (a library cannot parse an input, or
   mcp.h's dump does not parse back to an equal document), then 1. Timings never fail. */
#define _POSIX_C_SOURCE 200809L

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/utsname.h>

/* ---- counting allocator ---------------------------------------------------------------------
   Each counted block carries its requested size in a header so that realloc and free can
   keep the live total. */

typedef struct bench_count { size_t live, peak, allocs; } bench_count;
typedef union bench_hdr { size_t size; long double ld; void *p; long long ll; } bench_hdr;

static void *count_malloc(bench_count *c, size_t n)
{
    bench_hdr *h = (bench_hdr *)malloc(sizeof *h + n);
    if (!h) return NULL;
    h->size = n;
    c->live += n;
    if (c->live > c->peak) c->peak = c->live;
    c->allocs++;
    return h + 1;
}

static void *count_realloc(bench_count *c, void *p, size_t n)
{
    bench_hdr *h;
    size_t old;
    if (!p) return count_malloc(c, n);
    old = ((bench_hdr *)p - 1)->size;
    h = (bench_hdr *)realloc((bench_hdr *)p - 1, sizeof *h + n);
    if (!h) return NULL;
    h->size = n;
    c->live = c->live - old + n;
    if (c->live > c->peak) c->peak = c->live;
    c->allocs++;
    return h + 1;
}

static void count_free(bench_count *c, void *p)
{
    if (!p) return;
    c->live -= ((bench_hdr *)p - 1)->size;
    free((bench_hdr *)p - 1);
}

/* mcp.h's hooks: plain malloc unless the parse was given a counter as alloc_ctx. */
static void *bench_mcp_malloc(size_t n, void *ctx)
{
    return ctx ? count_malloc((bench_count *)ctx, n) : malloc(n);
}
static void *bench_mcp_realloc(void *p, size_t n, void *ctx)
{
    return ctx ? count_realloc((bench_count *)ctx, p, n) : realloc(p, n);
}
static void bench_mcp_free(void *p, void *ctx)
{
    if (ctx) count_free((bench_count *)ctx, p);
    else free(p);
}

#define MCP_MALLOC(sz, ctx) bench_mcp_malloc((sz), (ctx))
#define MCP_REALLOC(p, sz, ctx) bench_mcp_realloc((p), (sz), (ctx))
#define MCP_FREE(p, ctx) bench_mcp_free((p), (ctx))
#define MCP_IMPLEMENTATION
#include "../mcp.h"

#ifdef HAVE_CJSON
#include <cjson/cJSON.h>

static bench_count cjson_count;   /* cJSON's hooks take no context */
static void *cjson_count_malloc(size_t n) { return count_malloc(&cjson_count, n); }
static void cjson_count_free(void *p) { count_free(&cjson_count, p); }
#endif

/* ---- inputs ----------------------------------------------------------------------------------- */

/* The six timings of an input; the odd ones are cJSON's. */
enum { T_PARSE_MCP, T_PARSE_CJ, T_DUMP_MCP, T_PRINT_CJ, T_PRETTY_MCP, T_PRETTY_CJ, N_TIMINGS };
enum { MAX_ROUNDS = 15 };

typedef struct bench_timing {
    long iters;                         /* per run, calibrated to ~target_s; 0: not measured */
    double mbs[MAX_ROUNDS];             /* MB/s of each round */
    double best, median;
} bench_timing;

typedef struct bench_input {
    char name[32];
    char *text; size_t len;
    mcp_json_doc *doc;                  /* parsed once, for the dump timings */
    size_t dump_len[2];                 /* mcp_json_dump compact, pretty */
#ifdef HAVE_CJSON
    cJSON *cj;
    size_t print_len[2];                /* cJSON_PrintUnformatted, cJSON_Print */
#endif
    /* results */
    bench_timing t[N_TIMINGS];
    bench_count mem_mcp, mem_cj;
} bench_input;

enum { N_INPUTS = 6 };
static bench_input inputs[N_INPUTS];
static int n_inputs;

static void die(const char *fmt, ...)
{
    va_list ap;
    fflush(stdout);
    fprintf(stderr, "json_bench: ");
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputc('\n', stderr);
    exit(1);
}

static bench_input *add_input(const char *name, char *text, size_t len)
{
    bench_input *in = &inputs[n_inputs++];
    memset(in, 0, sizeof *in);
    snprintf(in->name, sizeof in->name, "%s", name);
    in->text = text; in->len = len;
    return in;
}

static char *read_file(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    char *buf = NULL;
    size_t cap = 0, n = 0, got;
    if (!f) return NULL;
    for (;;) {
        if (cap - n < 65536) {
            char *nb = (char *)realloc(buf, cap = cap ? cap * 2 : 1 << 20);
            if (!nb) { free(buf); fclose(f); return NULL; }
            buf = nb;
        }
        got = fread(buf + n, 1, cap - n, f);
        n += got;
        if (got == 0) break;
    }
    if (ferror(f)) { free(buf); fclose(f); return NULL; }
    fclose(f);
    *len = n;
    return buf;
}

static void load_corpus(const char *dir, const char *name)
{
    char path[4096];
    size_t len = 0;
    char *text;
    snprintf(path, sizeof path, "%s/json-bench/%s", dir, name);
    text = read_file(path, &len);
    if (!text) {
        snprintf(path, sizeof path, "%s/%s", dir, name);
        text = read_file(path, &len);
    }
    if (!text) die("cannot read %s (looked in %s/json-bench/ and in the directory itself)", name, dir);
    add_input(name, text, len);
}

/* ---- generated MCP messages --------------------------------------------------------------------
   Deterministic: a fixed-seed xorshift generator picks among fixed word lists. */

static unsigned long long rng_state = 0x9E3779B97F4A7C15ull;
static unsigned rng(unsigned n)
{
    rng_state ^= rng_state << 13; rng_state ^= rng_state >> 7; rng_state ^= rng_state << 17;
    return (unsigned)((rng_state >> 32) % n);
}

typedef struct field_spec {
    const char *name, *type, *desc;
    const char *enums[4];               /* NULL-terminated, or none */
    int has_range; double lo, hi; int def;
} field_spec;

static const field_spec fields[] = {
    { "path", "string", "Absolute or workspace-relative path of the file or directory.", {0}, 0, 0, 0, 0 },
    { "query", "string", "Free-text search query; quoted phrases match exactly.", {0}, 0, 0, 0, 0 },
    { "limit", "integer", "Maximum number of results to return.", {0}, 1, 1, 100, 20 },
    { "offset", "integer", "Number of results to skip, for paging.", {0}, 1, 0, 10000, 0 },
    { "recursive", "boolean", "Whether to descend into subdirectories.", {0}, 0, 0, 0, 0 },
    { "format", "string", "Output format of the result.", { "json", "markdown", "text", NULL }, 0, 0, 0, 0 },
    { "units", "string", "Unit system for temperatures and distances.", { "metric", "imperial", NULL }, 0, 0, 0, 0 },
    { "state", "string", "Filter by state.", { "open", "closed", "all", NULL }, 0, 0, 0, 0 },
    { "labels", "array", "Labels the item must carry, all of them.", {0}, 0, 0, 0, 0 },
    { "threshold", "number", "Minimum relevance score, between 0 and 1.", {0}, 1, 0, 1, 0 },
    { "timeout_ms", "integer", "Give up after this many milliseconds.", {0}, 1, 100, 600000, 30000 },
    { "language", "string", "BCP 47 language tag of the text, e.g. \"en-GB\".", {0}, 0, 0, 0, 0 },
    { "owner", "string", "Account that owns the repository.", {0}, 0, 0, 0, 0 },
    { "since", "string", "Only items updated at or after this ISO 8601 time.", {0}, 0, 0, 0, 0 },
    { "sort", "string", "Sort key.", { "created", "updated", "relevance", NULL }, 0, 0, 0, 0 },
    { "include_archived", "boolean", "Also return archived items.", {0}, 0, 0, 0, 0 },
};
enum { N_FIELDS = sizeof fields / sizeof fields[0] };

static const char *verbs[12] = { "get", "list", "search", "create", "update", "delete", "read",
                                 "write", "run", "fetch", "summarize", "translate" };
static const char *nouns[12] = { "file", "issue", "weather", "calendar_event", "email",
                                 "repository", "database_row", "ticket", "document", "image",
                                 "contact", "invoice" };
static const char *verb_text[12] = { "Gets", "Lists", "Searches for", "Creates", "Updates",
                                     "Deletes", "Reads", "Writes", "Runs a job on", "Fetches",
                                     "Summarizes", "Translates" };

static char *finish_writer(mcp_jw *w, size_t *len, const char *what)
{
    mcp_error err;
    char *text = mcp_jw_finish(w, len, &err);
    if (!text) die("building the %s message failed: %s", what, err.message);
    return text;
}

/* (a) tools/list result with 50 tools */
static char *gen_tools_list(size_t *len)
{
    mcp_jw w;
    char buf[256];
    int i, j, k;
    mcp_jw_init(&w, 0);
    mcp_jw_obj_begin(&w);
    mcp_jw_key(&w, "jsonrpc"); mcp_jw_str(&w, "2.0");
    mcp_jw_key(&w, "id"); mcp_jw_int(&w, 2);
    mcp_jw_key(&w, "result"); mcp_jw_obj_begin(&w);
    mcp_jw_key(&w, "tools"); mcp_jw_arr_begin(&w);
    for (i = 0; i < 50; i++) {
        int v = i % 12, n = (i / 12 + 5 * i) % 12;   /* 50 distinct verb/noun pairs */
        int nf = 3 + (int)rng(4), chosen[6];
        mcp_jw_obj_begin(&w);
        snprintf(buf, sizeof buf, "%s_%s", verbs[v], nouns[n]);
        mcp_jw_key(&w, "name"); mcp_jw_str(&w, buf);
        snprintf(buf, sizeof buf, "%s the %s identified by the arguments and returns the "
                 "result as structured content plus a short human-readable summary.",
                 verb_text[v], nouns[n]);
        mcp_jw_key(&w, "description"); mcp_jw_str(&w, buf);
        mcp_jw_key(&w, "inputSchema"); mcp_jw_obj_begin(&w);
        mcp_jw_key(&w, "type"); mcp_jw_str(&w, "object");
        mcp_jw_key(&w, "properties"); mcp_jw_obj_begin(&w);
        for (j = 0; j < nf; j++) {
            const field_spec *f;
            int pick, dup;
            do {                                   /* distinct fields within one tool */
                pick = (int)rng(N_FIELDS); dup = 0;
                for (k = 0; k < j; k++) dup |= chosen[k] == pick;
            } while (dup);
            chosen[j] = pick;
            f = &fields[pick];
            mcp_jw_key(&w, f->name); mcp_jw_obj_begin(&w);
            mcp_jw_key(&w, "type"); mcp_jw_str(&w, f->type);
            mcp_jw_key(&w, "description"); mcp_jw_str(&w, f->desc);
            if (f->enums[0]) {
                mcp_jw_key(&w, "enum"); mcp_jw_arr_begin(&w);
                for (k = 0; f->enums[k]; k++) mcp_jw_str(&w, f->enums[k]);
                mcp_jw_arr_end(&w);
            }
            if (f->has_range) {
                int is_int = !strcmp(f->type, "integer");
                mcp_jw_key(&w, "minimum");
                if (is_int) mcp_jw_int(&w, (int64_t)f->lo); else mcp_jw_num(&w, f->lo);
                mcp_jw_key(&w, "maximum");
                if (is_int) mcp_jw_int(&w, (int64_t)f->hi); else mcp_jw_num(&w, f->hi);
                if (is_int) { mcp_jw_key(&w, "default"); mcp_jw_int(&w, f->def); }
            }
            if (!strcmp(f->type, "array")) {
                mcp_jw_key(&w, "items"); mcp_jw_obj_begin(&w);
                mcp_jw_key(&w, "type"); mcp_jw_str(&w, "string");
                mcp_jw_obj_end(&w);
            }
            mcp_jw_obj_end(&w);
        }
        mcp_jw_obj_end(&w);                        /* properties */
        mcp_jw_key(&w, "required"); mcp_jw_arr_begin(&w);
        mcp_jw_str(&w, fields[chosen[0]].name);
        if (rng(2)) mcp_jw_str(&w, fields[chosen[1]].name);
        mcp_jw_arr_end(&w);
        mcp_jw_key(&w, "additionalProperties"); mcp_jw_bool(&w, 0);
        mcp_jw_obj_end(&w);                        /* inputSchema */
        mcp_jw_obj_end(&w);                        /* tool */
    }
    mcp_jw_arr_end(&w);
    mcp_jw_key(&w, "nextCursor"); mcp_jw_str(&w, "eyJwYWdlIjoyfQ==");
    mcp_jw_obj_end(&w);
    mcp_jw_obj_end(&w);
    return finish_writer(&w, len, "tools/list");
}

/* (b) tools/call result: two text items of a few hundred bytes, structuredContent, isError */
static char *gen_tools_call(size_t *len)
{
    static const char *days[3] = { "2026-03-02", "2026-03-03", "2026-03-04" };
    static const double highs[3] = { 22.1, 19.6, 17.25 }, lows[3] = { 14.0, 12.3, 11.8 };
    static const double rain[3] = { 0.1, 0.45, 0.8 };
    mcp_jw w;
    int i;
    mcp_jw_init(&w, 0);
    mcp_jw_obj_begin(&w);
    mcp_jw_key(&w, "jsonrpc"); mcp_jw_str(&w, "2.0");
    mcp_jw_key(&w, "id"); mcp_jw_int(&w, 17);
    mcp_jw_key(&w, "result"); mcp_jw_obj_begin(&w);
    mcp_jw_key(&w, "content"); mcp_jw_arr_begin(&w);
    mcp_jw_obj_begin(&w);
    mcp_jw_key(&w, "type"); mcp_jw_str(&w, "text");
    mcp_jw_key(&w, "text");
    mcp_jw_str(&w, "Current weather in Lisbon, Portugal: 21.4 \xC2\xB0" "C and partly cloudy, "
               "humidity 63%, wind 14 km/h from the north-west.\nThe next three days stay "
               "mild: highs around 22 \xC2\xB0" "C on Monday falling to 17 \xC2\xB0" "C by "
               "Wednesday, when a band of rain moves in from the Atlantic (80% chance in the "
               "afternoon).\nUV index is moderate; air quality is \"good\" at every station "
               "that reported in the last hour.");
    mcp_jw_obj_end(&w);
    mcp_jw_obj_begin(&w);
    mcp_jw_key(&w, "type"); mcp_jw_str(&w, "text");
    mcp_jw_key(&w, "text");
    mcp_jw_str(&w, "| day | high | low | rain |\n|---|---|---|---|\n"
               "| Mon 2026-03-02 | 22.1 | 14.0 | 10% |\n| Tue 2026-03-03 | 19.6 | 12.3 | 45% |\n"
               "| Wed 2026-03-04 | 17.3 | 11.8 | 80% |\n"
               "Source: national weather service, issued 2026-03-01T18:00:00Z.");
    mcp_jw_obj_end(&w);
    mcp_jw_arr_end(&w);
    mcp_jw_key(&w, "structuredContent"); mcp_jw_obj_begin(&w);
    mcp_jw_key(&w, "location"); mcp_jw_str(&w, "Lisbon, PT");
    mcp_jw_key(&w, "latitude"); mcp_jw_num(&w, 38.7223);
    mcp_jw_key(&w, "longitude"); mcp_jw_num(&w, -9.1393);
    mcp_jw_key(&w, "temperature_c"); mcp_jw_num(&w, 21.4);
    mcp_jw_key(&w, "humidity"); mcp_jw_num(&w, 0.63);
    mcp_jw_key(&w, "conditions"); mcp_jw_str(&w, "partly cloudy");
    mcp_jw_key(&w, "wind"); mcp_jw_obj_begin(&w);
    mcp_jw_key(&w, "speed_kmh"); mcp_jw_int(&w, 14);
    mcp_jw_key(&w, "direction"); mcp_jw_str(&w, "NW");
    mcp_jw_obj_end(&w);
    mcp_jw_key(&w, "forecast"); mcp_jw_arr_begin(&w);
    for (i = 0; i < 3; i++) {
        mcp_jw_obj_begin(&w);
        mcp_jw_key(&w, "date"); mcp_jw_str(&w, days[i]);
        mcp_jw_key(&w, "high_c"); mcp_jw_num(&w, highs[i]);
        mcp_jw_key(&w, "low_c"); mcp_jw_num(&w, lows[i]);
        mcp_jw_key(&w, "precipitation_probability"); mcp_jw_num(&w, rain[i]);
        mcp_jw_obj_end(&w);
    }
    mcp_jw_arr_end(&w);
    mcp_jw_key(&w, "alerts"); mcp_jw_arr_begin(&w); mcp_jw_arr_end(&w);
    mcp_jw_obj_end(&w);
    mcp_jw_key(&w, "isError"); mcp_jw_bool(&w, 0);
    mcp_jw_obj_end(&w);
    mcp_jw_obj_end(&w);
    return finish_writer(&w, len, "tools/call");
}

/* (c) notifications/progress */
static char *gen_progress(size_t *len)
{
    mcp_jw w;
    mcp_jw_init(&w, 0);
    mcp_jw_obj_begin(&w);
    mcp_jw_key(&w, "jsonrpc"); mcp_jw_str(&w, "2.0");
    mcp_jw_key(&w, "method"); mcp_jw_str(&w, "notifications/progress");
    mcp_jw_key(&w, "params"); mcp_jw_obj_begin(&w);
    mcp_jw_key(&w, "progressToken"); mcp_jw_str(&w, "b5f1c2d4-7e3a-4c1f-9a2e-3d8f6b0c1a27");
    mcp_jw_key(&w, "progress"); mcp_jw_int(&w, 37);
    mcp_jw_key(&w, "total"); mcp_jw_int(&w, 120);
    mcp_jw_key(&w, "message"); mcp_jw_str(&w, "Indexing src/transport/http.c (37 of 120 files)");
    mcp_jw_obj_end(&w);
    mcp_jw_obj_end(&w);
    return finish_writer(&w, len, "notifications/progress");
}

/* ---- timing ----------------------------------------------------------------------------------- */

static double clock_s(clockid_t id)
{
    struct timespec ts;
    clock_gettime(id, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}
static double now(void) { return clock_s(CLOCK_MONOTONIC); }

static double target_s = 0.2;           /* one timed run lasts about this long */
static int rounds = 5;                  /* runs per timing, spread over the whole benchmark */
static volatile size_t sink;            /* keeps results observable */
static double run_min_s = 1e9, run_max_s;  /* shortest and longest timed run */
static double cpu_share = 1;            /* CPU time / wall time of all timed runs */

/* One operation on an input; returns the bytes it counts (input or output bytes). */
typedef size_t (*bench_op)(bench_input *in);

static size_t op_mcp_parse(bench_input *in)
{
    mcp_json_doc *doc = mcp_json_parse(in->text, in->len, NULL);
    if (!doc) die("mcp_json_parse failed on %s while timing", in->name);
    sink += mcp_json_typeof(mcp_json_root(doc));
    mcp_json_free(doc);
    return in->len;
}

static size_t op_mcp_dump(bench_input *in, int pretty)
{
    size_t n;
    char *text = mcp_json_dump(mcp_json_root(in->doc), pretty, &n);
    if (!text) die("mcp_json_dump failed on %s while timing", in->name);
    sink += (unsigned char)text[0];
    mcp_free(text);
    return n;
}
static size_t op_mcp_dump_compact(bench_input *in) { return op_mcp_dump(in, 0); }
static size_t op_mcp_dump_pretty(bench_input *in) { return op_mcp_dump(in, 1); }

#ifdef HAVE_CJSON
static size_t op_cj_parse(bench_input *in)
{
    cJSON *j = cJSON_ParseWithLength(in->text, in->len);
    if (!j) die("cJSON_ParseWithLength failed on %s while timing", in->name);
    sink += (size_t)j->type;
    cJSON_Delete(j);
    return in->len;
}

static size_t op_cj_print(bench_input *in, int pretty)
{
    char *text = pretty ? cJSON_Print(in->cj) : cJSON_PrintUnformatted(in->cj);
    if (!text) die("cJSON_Print failed on %s while timing", in->name);
    sink += (unsigned char)text[0];
    cJSON_free(text);
    return in->print_len[pretty];   /* measured once beforehand: no strlen in the timing */
}
static size_t op_cj_print_compact(bench_input *in) { return op_cj_print(in, 0); }
static size_t op_cj_print_pretty(bench_input *in) { return op_cj_print(in, 1); }
#endif

/* Runs op `iters` times; returns the seconds taken and adds the bytes to *bytes. */
static double run(bench_op op, bench_input *in, long iters, double *bytes)
{
    double t0 = now(), total = 0;
    long i;
    for (i = 0; i < iters; i++) total += (double)op(in);
    *bytes = total;
    return now() - t0;
}

/* Iterations for one timed run of about target_s (also warms the caches up). */
static long calibrate(bench_op op, bench_input *in)
{
    long iters = 1;
    double bytes, t;
    for (;;) {
        t = run(op, in, iters, &bytes);
        if (t >= target_s / 4 || iters > (1L << 40)) break;
        iters *= t < target_s / 1000 ? 16 : 2;
    }
    iters = (long)((double)iters * target_s / (t > 1e-9 ? t : 1e-9));
    if (iters < 1) iters = 1;
    t = run(op, in, iters, &bytes);        /* once more, warm, to correct the estimate */
    iters = (long)((double)iters * target_s / (t > 1e-9 ? t : 1e-9));
    return iters < 1 ? 1 : iters;
}

static const bench_op ops[N_TIMINGS] = {
    op_mcp_parse, NULL, op_mcp_dump_compact, NULL, op_mcp_dump_pretty, NULL };

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

/* Every timing of every input is calibrated, then run once per round: a slow spell of the
   machine lands in one round of many timings rather than in all runs of one. Each timing
   keeps its best and its median round. */
static void measure_all(void)
{
    bench_op op[N_TIMINGS];
    int i, k, r;
    double bytes, sec, sorted[MAX_ROUNDS], wall0, cpu0;
    memcpy(op, ops, sizeof op);
#ifdef HAVE_CJSON
    op[T_PARSE_CJ] = op_cj_parse; op[T_PRINT_CJ] = op_cj_print_compact;
    op[T_PRETTY_CJ] = op_cj_print_pretty;
#endif
    for (i = 0; i < n_inputs; i++)
        for (k = 0; k < N_TIMINGS; k++)
            if (op[k]) inputs[i].t[k].iters = calibrate(op[k], &inputs[i]);
    wall0 = now(); cpu0 = clock_s(CLOCK_PROCESS_CPUTIME_ID);
    for (r = 0; r < rounds; r++)
        for (i = 0; i < n_inputs; i++)
            for (k = 0; k < N_TIMINGS; k++) {
                bench_timing *t = &inputs[i].t[k];
                if (!t->iters) continue;
                sec = run(op[k], &inputs[i], t->iters, &bytes);
                t->mbs[r] = bytes / sec / 1e6;
                if (sec < run_min_s) run_min_s = sec;
                if (sec > run_max_s) run_max_s = sec;
            }
    cpu_share = (clock_s(CLOCK_PROCESS_CPUTIME_ID) - cpu0) / (now() - wall0);
    for (i = 0; i < n_inputs; i++)
        for (k = 0; k < N_TIMINGS; k++) {
            bench_timing *t = &inputs[i].t[k];
            if (!t->iters) continue;
            memcpy(sorted, t->mbs, (size_t)rounds * sizeof sorted[0]);
            qsort(sorted, (size_t)rounds, sizeof sorted[0], cmp_double);
            t->best = sorted[rounds - 1];
            t->median = rounds % 2 ? sorted[rounds / 2] : (sorted[rounds / 2 - 1] + sorted[rounds / 2]) / 2;
        }
}

/* ---- correctness guard and memory ------------------------------------------------------------ */

static void guard(bench_input *in)
{
    mcp_error err;
    int pretty;
    in->doc = mcp_json_parse(in->text, in->len, &err);
    if (!in->doc) die("CORRECTNESS GUARD FAILED: mcp.h cannot parse %s: %s", in->name, err.message);
    for (pretty = 0; pretty < 2; pretty++) {
        size_t n;
        char *text = mcp_json_dump(mcp_json_root(in->doc), pretty, &n);
        mcp_json_doc *back;
        if (!text) die("CORRECTNESS GUARD FAILED: mcp_json_dump failed on %s", in->name);
        back = mcp_json_parse(text, n, &err);
        if (!back)
            die("CORRECTNESS GUARD FAILED: mcp.h's dump of %s does not parse back: %s", in->name, err.message);
        if (!mcp_json_equal(mcp_json_root(in->doc), mcp_json_root(back)))
            die("CORRECTNESS GUARD FAILED: mcp.h's %s dump of %s parses back to a different document",
                pretty ? "pretty" : "compact", in->name);
        in->dump_len[pretty] = n;
        mcp_json_free(back);
        mcp_free(text);
    }
#ifdef HAVE_CJSON
    in->cj = cJSON_ParseWithLength(in->text, in->len);
    if (!in->cj) {
        const char *at = cJSON_GetErrorPtr();
        char where[64] = "";
        if (at && at >= in->text && at <= in->text + in->len)
            snprintf(where, sizeof where, " (near byte %lu)", (unsigned long)(at - in->text));
        die("CORRECTNESS GUARD FAILED: cJSON cannot parse %s%s", in->name, where);
    }
    for (pretty = 0; pretty < 2; pretty++) {
        char *text = pretty ? cJSON_Print(in->cj) : cJSON_PrintUnformatted(in->cj);
        if (!text) die("CORRECTNESS GUARD FAILED: cJSON cannot print %s", in->name);
        in->print_len[pretty] = strlen(text);
        cJSON_free(text);
    }
#endif
}

static void measure_memory(bench_input *in)
{
    bench_count c;
    mcp_json_opts opts;
    mcp_json_doc *doc;
    memset(&c, 0, sizeof c);
    memset(&opts, 0, sizeof opts);
    opts.alloc_ctx = &c;
    doc = mcp_json_parse_ex(in->text, in->len, &opts, NULL);
    if (!doc) die("mcp_json_parse_ex failed on %s", in->name);
    in->mem_mcp = c;                        /* live = what the document holds */
    mcp_json_free(doc);
    if (c.live != 0) fprintf(stderr, "json_bench: warning: mcp.h left %lu bytes allocated after "
                             "mcp_json_free (%s)\n", (unsigned long)c.live, in->name);
#ifdef HAVE_CJSON
    {
        cJSON_Hooks hooks;
        cJSON *j;
        hooks.malloc_fn = cjson_count_malloc;
        hooks.free_fn = cjson_count_free;
        memset(&cjson_count, 0, sizeof cjson_count);
        cJSON_InitHooks(&hooks);
        j = cJSON_ParseWithLength(in->text, in->len);
        if (!j) die("cJSON_ParseWithLength failed on %s", in->name);
        in->mem_cj = cjson_count;
        cJSON_Delete(j);
        if (cjson_count.live != 0)
            fprintf(stderr, "json_bench: warning: cJSON left %lu bytes allocated (%s)\n",
                    (unsigned long)cjson_count.live, in->name);
        cJSON_InitHooks(NULL);              /* back to malloc/realloc/free for the timings */
    }
#endif
}

/* ---- report ------------------------------------------------------------------------------------ */

static void print_header(void)
{
    struct utsname u;
    char cpu[256] = "unknown", line[512], date[64] = "unknown";
    FILE *f = fopen("/proc/cpuinfo", "r");
    time_t t = time(NULL);
    struct tm *tm = gmtime(&t);
    if (f) {
        while (fgets(line, sizeof line, f)) {
            if (!strncmp(line, "model name", 10) || !strncmp(line, "Model", 5) ||
                !strncmp(line, "cpu model", 9) || !strncmp(line, "Processor", 9)) {
                char *v = strchr(line, ':');
                if (v) {
                    v++;
                    while (*v == ' ' || *v == '\t') v++;
                    v[strcspn(v, "\n")] = 0;
                    snprintf(cpu, sizeof cpu, "%s", v);
                    break;
                }
            }
        }
        fclose(f);
    }
    if (tm) strftime(date, sizeof date, "%Y-%m-%d %H:%M:%S UTC", tm);
    printf("mcp.h JSON benchmark\n");
    printf("  machine:  %s, CPU: %s\n", uname(&u) == 0 ? u.machine : "unknown", cpu);
#ifdef __VERSION__
    printf("  compiler: %s%s\n", __VERSION__,
#ifdef __OPTIMIZE__
           ""
#else
           "  (WARNING: built without optimization, numbers are meaningless)"
#endif
    );
#endif
#ifdef HAVE_CJSON
    printf("  cJSON:    %s\n", cJSON_Version());
#else
    printf("  cJSON:    not available (built without HAVE_CJSON)\n");
#endif
    printf("  date:     %s\n", date);
    printf("  method:   MB = 1e6 bytes. Every timing runs its operation in a loop for ~%.2f s, once\n"
           "            per round, %d rounds spread over the whole run; the best round is shown\n",
           target_s, rounds);
}

/* "123.4", or "-" for a timing that was not measured */
static const char *fmt_mbs(char *buf, size_t size, const bench_timing *t)
{
    if (t->iters) snprintf(buf, size, "%.1f", t->best);
    else snprintf(buf, size, "-");
    return buf;
}

static const char *fmt_ratio(char *buf, size_t size, double a, double b)
{
    if (a > 0 && b > 0) snprintf(buf, size, "%.2fx", a / b);
    else snprintf(buf, size, "-");
    return buf;
}

static void print_parse_table(double *min_ratio)
{
    int i;
    char a[32], b[32], r[32], rm[32], ua[32], ub[32];
    printf("1. Parse throughput: parse + free, MB/s of input (MB = 1e6 bytes), best round\n");
    printf("%-23s %8s %9s %9s %9s %9s %9s %9s\n", "input", "bytes", "mcp.h", "cJSON",
           "mcp/cJSON", "(median)", "mcp.h us", "cJSON us");
    for (i = 0; i < n_inputs; i++) {
        bench_input *in = &inputs[i];
        const bench_timing *m = &in->t[T_PARSE_MCP], *c = &in->t[T_PARSE_CJ];
        snprintf(ua, sizeof ua, "%.2f", (double)in->len / m->best);   /* 1 MB/s = 1 byte/us */
        if (c->iters) snprintf(ub, sizeof ub, "%.2f", (double)in->len / c->best);
        else snprintf(ub, sizeof ub, "-");
        printf("%-23s %8lu %9s %9s %9s %9s %9s %9s\n", in->name, (unsigned long)in->len,
               fmt_mbs(a, sizeof a, m), fmt_mbs(b, sizeof b, c),
               fmt_ratio(r, sizeof r, m->best, c->best), fmt_ratio(rm, sizeof rm, m->median, c->median),
               ua, ub);
        if (c->iters && (i == 0 || m->best / c->best < *min_ratio)) *min_ratio = m->best / c->best;
    }
    printf("  mcp/cJSON: ratio of the best rounds; (median): ratio of the median rounds;\n"
           "  us: microseconds per parse + free\n\n");
}

static void print_dump_table(void)
{
    int i;
    char a[32], b[32], r[32], a2[32], b2[32], r2[32], cl[32], cl2[32];
    printf("2. Serialization throughput: MB/s of each library's own output, best round\n");
    printf("   compact: mcp_json_dump(v, 0) vs cJSON_PrintUnformatted; "
           "pretty: mcp_json_dump(v, 1) vs cJSON_Print\n");
    printf("%-23s %9s %9s %9s %9s %9s %9s\n", "input", "mcp cmp", "cJSON cmp", "mcp/cJSON",
           "mcp pty", "cJSON pty", "mcp/cJSON");
    for (i = 0; i < n_inputs; i++) {
        bench_input *in = &inputs[i];
        const bench_timing *t = in->t;
        printf("%-23s %9s %9s %9s %9s %9s %9s\n", in->name,
               fmt_mbs(a, sizeof a, &t[T_DUMP_MCP]), fmt_mbs(b, sizeof b, &t[T_PRINT_CJ]),
               fmt_ratio(r, sizeof r, t[T_DUMP_MCP].best, t[T_PRINT_CJ].best),
               fmt_mbs(a2, sizeof a2, &t[T_PRETTY_MCP]), fmt_mbs(b2, sizeof b2, &t[T_PRETTY_CJ]),
               fmt_ratio(r2, sizeof r2, t[T_PRETTY_MCP].best, t[T_PRETTY_CJ].best));
    }
    printf("  output bytes, compact / pretty:\n");
    for (i = 0; i < n_inputs; i++) {
        bench_input *in = &inputs[i];
        snprintf(cl, sizeof cl, "-"); snprintf(cl2, sizeof cl2, "-");
#ifdef HAVE_CJSON
        snprintf(cl, sizeof cl, "%lu", (unsigned long)in->print_len[0]);
        snprintf(cl2, sizeof cl2, "%lu", (unsigned long)in->print_len[1]);
#endif
        printf("    %-22s mcp.h %8lu / %8lu   cJSON %8s / %8s\n", in->name,
               (unsigned long)in->dump_len[0], (unsigned long)in->dump_len[1], cl, cl2);
    }
    printf("\n");
}

static void print_memory_table(int have_cj)
{
    int i;
    char a[32], b[32], n[32], c1[32], c2[32], c3[32];
    printf("3. Memory of one parsed document, in bytes allocated per input byte, and allocations\n"
           "   per parse. live: held by the document right after the parse; peak: high-water mark\n"
           "   during the parse (scratch stacks included). Requested bytes, without malloc's own\n"
           "   per-block overhead.\n");
    printf("%-23s %9s %9s %10s %9s %9s %10s\n", "input", "mcp live", "mcp peak", "mcp allocs",
           "cJ live", "cJ peak", "cJ allocs");
    for (i = 0; i < n_inputs; i++) {
        bench_input *in = &inputs[i];
        double len = (double)in->len;
        snprintf(a, sizeof a, "%.2f", (double)in->mem_mcp.live / len);
        snprintf(b, sizeof b, "%.2f", (double)in->mem_mcp.peak / len);
        snprintf(n, sizeof n, "%lu", (unsigned long)in->mem_mcp.allocs);
        snprintf(c1, sizeof c1, "-"); snprintf(c2, sizeof c2, "-"); snprintf(c3, sizeof c3, "-");
        if (have_cj) {
            snprintf(c1, sizeof c1, "%.2f", (double)in->mem_cj.live / len);
            snprintf(c2, sizeof c2, "%.2f", (double)in->mem_cj.peak / len);
            snprintf(c3, sizeof c3, "%lu", (unsigned long)in->mem_cj.allocs);
        }
        printf("%-23s %9s %9s %10s %9s %9s %10s\n", in->name, a, b, n, c1, c2, c3);
    }
    printf("\n");
}

int main(int argc, char **argv)
{
    const char *dir = argc > 1 ? argv[1] : "tests/data";
    int have_cj = 0, i;
    double min_ratio = 0;
    size_t len;
    char *text;
#ifdef HAVE_CJSON
    have_cj = 1;
#endif
    if (argc > 2 && !strcmp(argv[2], "--quick")) { target_s = 0.02; rounds = 2; }
    else if (argc > 2 || (argc > 1 && argv[1][0] == '-')) {
        fprintf(stderr, "usage: %s [DATA_DIR [--quick]]   (DATA_DIR defaults to tests/data)\n", argv[0]);
        return 2;
    }

    load_corpus(dir, "twitter.json");
    load_corpus(dir, "citm_catalog.json");
    load_corpus(dir, "canada.json");
    text = gen_tools_list(&len);   add_input("mcp tools/list (50)", text, len);
    text = gen_tools_call(&len);   add_input("mcp tools/call result", text, len);
    text = gen_progress(&len);     add_input("mcp progress notif.", text, len);

    print_header();
    for (i = 0; i < n_inputs; i++) guard(&inputs[i]);
    printf("  guard:    %s parse all %d inputs; mcp.h's compact and pretty dumps of each parse\n"
           "            back equal (mcp_json_equal)\n", have_cj ? "both libraries" : "mcp.h can", n_inputs);
    fflush(stdout);

    for (i = 0; i < n_inputs; i++) measure_memory(&inputs[i]);
    measure_all();

    printf("  timed runs lasted %.2f to %.2f s each; the benchmark had %.0f%% of a CPU while timing\n",
           run_min_s, run_max_s, 100 * cpu_share);
    if (cpu_share < 0.95)
        printf("  WARNING: other processes competed for the CPU, so these numbers are unreliable;\n"
               "           run again on an idle machine\n");
    printf("\n");
    print_parse_table(&min_ratio);
    print_dump_table();
    print_memory_table(have_cj);

    if (have_cj) {
        printf("Target: mcp.h parse >= 3x cJSON on every input: %s (min ratio %.2f)\n",
               min_ratio >= 3.0 ? "MET" : "NOT MET", min_ratio);
    } else {
        printf("cJSON was not found at build time, so only mcp.h was measured. To compare:\n"
               "    apt-get install libcjson-dev    (Debian/Ubuntu; or your system's cJSON package)\n"
               "    make bench\n");
        printf("Target: mcp.h parse >= 3x cJSON on every input: NOT MEASURED (no cJSON)\n");
    }

    for (i = 0; i < n_inputs; i++) {
        mcp_json_free(inputs[i].doc);
#ifdef HAVE_CJSON
        cJSON_Delete(inputs[i].cj);
#endif
        if (i < 3) free(inputs[i].text);
        else mcp_free(inputs[i].text);
    }
    return 0;
}
