/* Tests of the JSON layer (>>json): the strict parser, the accessors, iteration, the writer
   (mcp_jw_*) and mcp_json_dump.

    1. JSONTestSuite: every y_ file accepted, every n_ file rejected, every i_ file handled as
       the table i_expected below says (a behaviour change fails). Every file is parsed from a
       heap buffer of exactly its size, so ASan sees any read past the end; every proper
       prefix of a y_ container document is refused.
    2. Round trips: for every y_ file and the json-bench corpora, parse(dump(parse(x))) equals
       parse(x) value for value (compact and pretty), and dump is a fixed point byte for byte.
    3. UTF-8 in strings and keys: exhaustive lead/continuation pairs against an independent
       validator, boundaries, \u escapes, surrogates, NUL, control characters.
    4. Numbers: exact int64, mcp_json_int64 (and its edges at both ends of int64 in every
       form), a hard-case list, and a large random sample compared bit for bit with strtod
       (C locale), exact halfway points (big integers), and the writer's doubles read back by
       mcp.h and by strtod.
    5. Locale independence under a comma-decimal locale: one the system has, else de_DE.UTF-8
       built by localedef into BUILD/locale (no root needed), else a skip saying why.
    6. Limits: depth (default, per call, a million deep) and max_size.
    7. Error messages: exact sentences with line, column and byte.
    8. Accessors and conventions (NULL safety, duplicates, the document owns its strings).
    9. The writer: every function, exact compact and pretty text, escaping, misuse.
   10. Strictness odds and ends, big arrays and objects.
   11. Strings at the scanners' block boundaries: every kind of special byte (escapes, raw
       control characters, DEL, valid and invalid UTF-8) at every position of strings of
       0..200 bytes and some to 352, at every alignment, read and written against byte-loop
       references; random strings written and read back.
   12. JSON with comments (mcp_json_opts.comments): comments wherever whitespace may be, in
       every combination over a token list; trailing commas; what it still refuses, with exact
       sentences; strict mode refuses all of it; every y_ file of JSONTestSuite reads the same.

   Usage: test_json [DATA_DIR]   (default tests/data; MCP_TEST_QUICK=1 shrinks the loops,
   MCP_TEST_SEED=N changes the random seed) */
#define _POSIX_C_SOURCE 200809L   /* opendir */
#include "../mcp.h"
#include "test.h"
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <float.h>
#include <limits.h>
#include <locale.h>
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static int quick;
static const char *datadir = "tests/data";
static const char *progname = "test_json";   /* argv[0]: its folder holds a built locale */

/* ---- helpers --------------------------------------------------------------------------------- */

static uint64_t dbits(double d) { uint64_t u; memcpy(&u, &d, 8); return u; }
static double bitsd(uint64_t u) { double d; memcpy(&d, &u, 8); return d; }

static uint64_t rng_state = 0x9E3779B97F4A7C15u;
static uint64_t rnd(void)   /* splitmix64 */
{
    uint64_t z = (rng_state += 0x9E3779B97F4A7C15u);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9u;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBu;
    return z ^ (z >> 31);
}
static unsigned rndn(unsigned n) { return (unsigned)(rnd() % n); }

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

/* A heap copy of exactly n bytes (no terminator): ASan reports any read past the end. */
static char *exact_copy(const char *s, size_t n)
{
    char *b = (char *)malloc(n ? n : 1);
    if (!b) { perror("malloc"); exit(2); }
    if (n) memcpy(b, s, n);
    return b;
}

/* Parses from an exact-size heap copy that is scribbled over and freed before returning,
   so the document can only be right if it owns everything. */
static mcp_json_doc *parse_n(const char *s, size_t n, const mcp_json_opts *o, mcp_error *err)
{
    char *b = exact_copy(s, n);
    mcp_json_doc *d = mcp_json_parse_ex(b, n, o, err);
    if (n) memset(b, '#', n);
    free(b);
    return d;
}
static mcp_json_doc *parse_s(const char *s, mcp_error *err) { return parse_n(s, strlen(s), NULL, err); }

/* 1 if accepted, 0 if refused with MCP_ERR_PARSE or MCP_ERR_LIMIT and a proper message,
   -1 on anything else (a refusal with another status or an empty message). */
static int outcome_n(const char *s, size_t n)
{
    mcp_error err;
    mcp_json_doc *d;
    memset(&err, 0x55, sizeof err);
    d = parse_n(s, n, NULL, &err);
    if (d) { mcp_json_free(d); return err.status == MCP_OK ? 1 : -1; }
    if ((err.status == MCP_ERR_PARSE || err.status == MCP_ERR_LIMIT) &&
        strncmp(err.message, "JSON parse error at line ", 25) == 0 &&
        strlen(err.message) < sizeof err.message)
        return 0;
    return -1;
}
static int outcome(const char *s) { return outcome_n(s, strlen(s)); }

/* Printable form of a (short) byte string for failure messages. */
static const char *show(const char *s, size_t n)
{
    static char buf[4][200];
    static int k;
    char *o = buf[k = (k + 1) & 3];
    size_t i, j = 0;
    for (i = 0; i < n && j < sizeof buf[0] - 8; i++) {
        unsigned char c = (unsigned char)s[i];
        if (c >= 0x20 && c < 0x7F && c != '\\') o[j++] = (char)c;
        else j += (size_t)sprintf(o + j, "\\x%02X", c);
    }
    if (i < n) { memcpy(o + j, "...", 3); j += 3; }
    o[j] = 0;
    return o;
}
#define SHOW(s) show((s), strlen(s))

#define ACCEPT(s) CHECKF(outcome(s) == 1, "should be accepted: %s", SHOW(s))
#define REJECT(s) CHECKF(outcome(s) == 0, "should be refused (MCP_ERR_PARSE): %s", SHOW(s))
#define ACCEPT_N(s, n) CHECKF(outcome_n((s), (n)) == 1, "should be accepted: %s", show((s), (n)))
#define REJECT_N(s, n) CHECKF(outcome_n((s), (n)) == 0, "should be refused: %s", show((s), (n)))

/* Checks the exact error message and status of a refused text. */
static int expect_error_n(const char *s, size_t n, const mcp_json_opts *o, mcp_status st,
                          const char *msg)
{
    mcp_error err;
    mcp_json_doc *d = parse_n(s, n, o, &err);
    if (d) { mcp_json_free(d); fprintf(stderr, "  accepted: %s\n", show(s, n)); return 0; }
    if (err.status != st || strcmp(err.message, msg) != 0) {
        fprintf(stderr, "  input:    %s\n  status:   %d (want %d)\n  message:  %s\n  expected: %s\n",
                show(s, n), (int)err.status, (int)st, err.message, msg);
        return 0;
    }
    return 1;
}
#define EXPECT_ERROR(s, st, msg) CHECK(expect_error_n((s), strlen(s), NULL, (st), (msg)))

static char *read_file(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    char *b = NULL;
    size_t cap = 0, n = 0, r;
    if (!f) return NULL;
    for (;;) {
        if (n == cap) {
            char *nb;
            cap = cap ? cap * 2 : 65536;
            nb = (char *)realloc(b, cap);
            if (!nb) { free(b); fclose(f); return NULL; }
            b = nb;
        }
        r = fread(b + n, 1, cap - n, f);
        if (r == 0) break;
        n += r;
    }
    fclose(f);
    *len = n;
    return b;
}

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Sorted names of the regular *.json files in a directory; NULL-terminated. */
static char **list_dir(const char *dir, size_t *count)
{
    DIR *d = opendir(dir);
    struct dirent *e;
    char **v = NULL;
    size_t n = 0, cap = 0;
    *count = 0;
    if (!d) return NULL;
    while ((e = readdir(d)) != NULL) {
        size_t l = strlen(e->d_name);
        if (l < 6 || strcmp(e->d_name + l - 5, ".json") != 0) continue;
        if (n + 1 >= cap) {
            cap = cap ? cap * 2 : 512;
            v = (char **)realloc(v, cap * sizeof *v);
            if (!v) { perror("realloc"); exit(2); }
        }
        v[n] = (char *)malloc(l + 1);
        if (!v[n]) { perror("malloc"); exit(2); }
        memcpy(v[n], e->d_name, l + 1);
        n++;
    }
    closedir(d);
    if (v) { qsort(v, n, sizeof *v, cmp_str); v[n] = NULL; }
    *count = n;
    return v;
}

static void free_list(char **v, size_t n)
{
    size_t i;
    for (i = 0; i < n; i++) free(v[i]);
    free(v);
}

/* ---- 1. JSONTestSuite -------------------------------------------------------------------------- */

/* The implementation-defined cases: what mcp.h does with each, by design (section 8 of the
   header). Numbers that underflow become 0, integers beyond int64 become doubles, numbers
   beyond a double are refused; every string that is not valid UTF-8 or holds a lone
   surrogate is refused, as are UTF-16 and the byte order mark; 500 levels are within the
   default depth of 512. */
static const struct { const char *name; int accepted; } i_expected[] = {
    {"i_number_double_huge_neg_exp.json", 1},        /* [123.456e-789] -> 0.0 */
    {"i_number_huge_exp.json", 0},                   /* [0.4e00669999...] overflows */
    {"i_number_neg_int_huge_exp.json", 0},           /* [-1e+9999] */
    {"i_number_pos_double_huge_exp.json", 0},        /* [1.5e+9999] */
    {"i_number_real_neg_overflow.json", 0},          /* [-123123e100000] */
    {"i_number_real_pos_overflow.json", 0},          /* [123123e100000] */
    {"i_number_real_underflow.json", 1},             /* [123e-10000000] -> 0.0 */
    {"i_number_too_big_neg_int.json", 1},            /* [-123123123123123123123123123123] */
    {"i_number_too_big_pos_int.json", 1},            /* [100000000000000000000] */
    {"i_number_very_big_negative_int.json", 1},      /* [-237462374673276894279832749832423479823246327846] */
    {"i_object_key_lone_2nd_surrogate.json", 0},     /* {"\uDFAA":0} */
    {"i_string_1st_surrogate_but_2nd_missing.json", 0},
    {"i_string_1st_valid_surrogate_2nd_invalid.json", 0},
    {"i_string_UTF-16LE_with_BOM.json", 0},
    {"i_string_UTF-8_invalid_sequence.json", 0},
    {"i_string_UTF8_surrogate_U+D800.json", 0},      /* ED A0 80 */
    {"i_string_incomplete_surrogate_and_escape_valid.json", 0},
    {"i_string_incomplete_surrogate_pair.json", 0},
    {"i_string_incomplete_surrogates_escape_valid.json", 0},
    {"i_string_invalid_lonely_surrogate.json", 0},
    {"i_string_invalid_surrogate.json", 0},
    {"i_string_invalid_utf-8.json", 0},              /* FF */
    {"i_string_inverted_surrogates_U+1D11E.json", 0},
    {"i_string_iso_latin_1.json", 0},                /* E9 */
    {"i_string_lone_second_surrogate.json", 0},
    {"i_string_lone_utf8_continuation_byte.json", 0},/* 81 */
    {"i_string_not_in_unicode_range.json", 0},       /* F4 BF BF BF */
    {"i_string_overlong_sequence_2_bytes.json", 0},  /* C0 AF */
    {"i_string_overlong_sequence_6_bytes.json", 0},
    {"i_string_overlong_sequence_6_bytes_null.json", 0},
    {"i_string_truncated-utf-8.json", 0},            /* E0 FF */
    {"i_string_utf16BE_no_BOM.json", 0},
    {"i_string_utf16LE_no_BOM.json", 0},
    {"i_structure_500_nested_arrays.json", 1},
    {"i_structure_UTF-8_BOM_empty_object.json", 0},
};
#define N_I_EXPECTED (sizeof i_expected / sizeof i_expected[0])

/* The accepted i_number files read as strtod reads them (the text between the brackets). */
static void check_i_number_value(const char *name, const char *text, size_t n)
{
    mcp_json_doc *d;
    const mcp_json *v;
    char *inner, *end;
    double want;
    if (strncmp(name, "i_number_", 9) != 0 || n < 2 || text[0] != '[') return;
    inner = exact_copy(text + 1, n);
    inner[n - 1] = 0;
    if ((end = strchr(inner, ']')) != NULL) *end = 0;
    want = strtod(inner, NULL);
    d = parse_n(text, n, NULL, NULL);
    v = mcp_json_at(mcp_json_root(d), 0);
    CHECKF(d && mcp_json_typeof(v) == MCP_JSON_NUMBER && dbits(mcp_json_num(v)) == dbits(want),
           "%s: %.17g, strtod says %.17g", name, mcp_json_num(v), want);
    mcp_json_free(d);
    free(inner);
}

/* Every proper prefix of a document whose top-level value is a container ends before the
   container closes, so it must be refused (and never read past its end). */
static void check_prefixes(const char *name, const char *text, size_t n)
{
    size_t i = 0, last = n, bad = 0, k;
    while (i < n && strchr(" \t\r\n", text[i])) i++;
    if (i >= n || (text[i] != '[' && text[i] != '{')) return;
    while (last > 0 && strchr(" \t\r\n", text[last - 1])) last--;
    for (k = 0; k < last; k++)
        if (outcome_n(text, k) != 0) bad++;
    CHECKF(bad == 0, "%s: %lu proper prefixes were not refused", name, (unsigned long)bad);
}

TEST_CASE(suite)
{
    char dir[1024], path[1280];
    char **names;
    size_t count, i, j, len;
    int y_tot = 0, y_ok = 0, n_tot = 0, n_ok = 0, i_tot = 0, i_ok = 0;
    int seen[N_I_EXPECTED];
    memset(seen, 0, sizeof seen);
    snprintf(dir, sizeof dir, "%s/JSONTestSuite/test_parsing", datadir);
    names = list_dir(dir, &count);
    CHECKF(names && count >= 318, "%s: %lu test files (want the 318 of JSONTestSuite)", dir,
           (unsigned long)count);
    for (i = 0; i < count; i++) {
        const char *name = names[i];
        char *text;
        int r;
        snprintf(path, sizeof path, "%s/%s", dir, name);
        text = read_file(path, &len);
        CHECKF(text != NULL, "cannot read %s", path);
        if (!text) continue;
        r = outcome_n(text, len);
        if (name[0] == 'y') {
            y_tot++;
            if (r == 1) y_ok++;
            CHECKF(r == 1, "%s was not accepted", name);
            check_prefixes(name, text, len);
        } else if (name[0] == 'n') {
            n_tot++;
            if (r == 0) n_ok++;
            CHECKF(r == 0, "%s was not refused with MCP_ERR_PARSE/LIMIT and a message (%d)", name, r);
        } else if (name[0] == 'i') {
            i_tot++;
            for (j = 0; j < N_I_EXPECTED; j++)
                if (strcmp(i_expected[j].name, name) == 0) break;
            CHECKF(j < N_I_EXPECTED, "%s is not listed in i_expected", name);
            if (j < N_I_EXPECTED) {
                seen[j]++;
                CHECKF(r == i_expected[j].accepted, "%s: %s, the table says %s", name,
                       r == 1 ? "accepted" : r == 0 ? "refused" : "bad error",
                       i_expected[j].accepted ? "accepted" : "refused");
                if (r == i_expected[j].accepted) i_ok++;
                if (r == 1) check_i_number_value(name, text, len);
            }
        }
        free(text);
    }
    for (j = 0; j < N_I_EXPECTED; j++)
        CHECKF(seen[j] == 1, "%s from i_expected was not found in %s", i_expected[j].name, dir);
    CHECKF(y_tot == 95 && n_tot == 188 && i_tot == 35, "found %d y_, %d n_, %d i_ files (want 95, 188, 35)",
           y_tot, n_tot, i_tot);
    printf("JSONTestSuite: %d/%d y accepted, %d/%d n rejected, %d/%d i as listed\n",
           y_ok, y_tot, n_ok, n_tot, i_ok, i_tot);
    free_list(names, count);
}

/* ---- 2. round trips ---------------------------------------------------------------------------- */

/* parse(dump(parse(x))) == parse(x) for compact and pretty dumps, and dump(parse(dump(x)))
   == dump(x) byte for byte. Returns 1 if all held. */
static int roundtrip_one(const char *name, const char *text, size_t n)
{
    mcp_json_doc *d0, *d1;
    char *t1, *t2;
    size_t l1, l2;
    int pretty, ok = 1;
    d0 = parse_n(text, n, NULL, NULL);
    if (!d0) { CHECKF(0, "%s: not accepted", name); return 0; }
    for (pretty = 0; pretty < 2; pretty++) {
        t1 = mcp_json_dump(mcp_json_root(d0), pretty, &l1);
        CHECKF(t1 != NULL && strlen(t1) == l1, "%s: dump(pretty=%d) failed or has a NUL", name, pretty);
        if (!t1) { ok = 0; continue; }
        d1 = parse_n(t1, l1, NULL, NULL);
        CHECKF(d1 != NULL, "%s: dump(pretty=%d) is not accepted back: %s", name, pretty, show(t1, l1));
        if (!mcp_json_equal(mcp_json_root(d0), mcp_json_root(d1))) {
            CHECKF(0, "%s: parse(dump(pretty=%d)) differs from parse(x)", name, pretty);
            ok = 0;
        }
        t2 = mcp_json_dump(mcp_json_root(d1), pretty, &l2);
        if (!t2 || l1 != l2 || memcmp(t1, t2, l1) != 0) {
            CHECKF(0, "%s: dump(parse(dump)) differs (pretty=%d): %s / %s", name, pretty,
                   show(t1, l1), t2 ? show(t2, l2) : "NULL");
            ok = 0;
        }
        /* pretty and compact are the same values */
        if (pretty) {
            char *c = mcp_json_dump(mcp_json_root(d1), 0, &l2);
            mcp_json_doc *dc = c ? parse_n(c, l2, NULL, NULL) : NULL;
            CHECKF(dc && mcp_json_equal(mcp_json_root(dc), mcp_json_root(d0)),
                   "%s: compact dump of the pretty document differs", name);
            mcp_json_free(dc);
            mcp_free(c);
        }
        mcp_free(t1); mcp_free(t2);
        mcp_json_free(d1);
    }
    mcp_json_free(d0);
    return ok;
}

TEST_CASE(roundtrip)
{
    static const char *const bench[] = {"twitter.json", "citm_catalog.json", "canada.json"};
    char dir[1024], path[1280];
    char **names;
    size_t count, i, len;
    int tot = 0, good = 0;
    snprintf(dir, sizeof dir, "%s/JSONTestSuite/test_parsing", datadir);
    names = list_dir(dir, &count);
    for (i = 0; i < count; i++) {
        char *text;
        if (names[i][0] != 'y') continue;
        snprintf(path, sizeof path, "%s/%s", dir, names[i]);
        text = read_file(path, &len);
        if (!text) continue;
        tot++;
        good += roundtrip_one(names[i], text, len);
        free(text);
    }
    free_list(names, count);
    for (i = 0; i < sizeof bench / sizeof bench[0]; i++) {
        char *text;
        snprintf(path, sizeof path, "%s/json-bench/%s", datadir, bench[i]);
        text = read_file(path, &len);
        CHECKF(text != NULL && len > 100000, "cannot read %s", path);
        if (!text) continue;
        tot++;
        good += roundtrip_one(bench[i], text, len);
        free(text);
    }
    CHECKF(tot == 98, "round trips ran on %d documents, want 95 y_ files + 3 corpora", tot);
    printf("round trips: %d/%d documents (compact and pretty)\n", good, tot);
}

/* ---- 3. UTF-8 and escapes ---------------------------------------------------------------------- */

/* The reference: decode the code point and check it is in shortest form, not a surrogate
   and at most U+10FFFF (independent of mcp.h's byte-range tables). Returns the length of the
   valid sequence at s, or 0. */
static int ref_utf8(const unsigned char *s, size_t n)
{
    static const unsigned minv[5] = {0, 0, 0x80, 0x800, 0x10000};
    unsigned c = s[0], cp;
    size_t len, i;
    if (c < 0x80) return 1;
    if ((c & 0xE0) == 0xC0) { len = 2; cp = c & 0x1F; }
    else if ((c & 0xF0) == 0xE0) { len = 3; cp = c & 0x0F; }
    else if ((c & 0xF8) == 0xF0) { len = 4; cp = c & 0x07; }
    else return 0;
    if (n < len) return 0;
    for (i = 1; i < len; i++) {
        if ((s[i] & 0xC0) != 0x80) return 0;
        cp = cp << 6 | (s[i] & 0x3Fu);
    }
    if (cp < minv[len] || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) return 0;
    return (int)len;
}

/* Is raw string content (between the quotes, no escapes allowed) acceptable? */
static int ref_content(const unsigned char *s, size_t n)
{
    size_t i = 0;
    int k;
    while (i < n) {
        if (s[i] < 0x20 || s[i] == '"' || s[i] == '\\') return 0;
        if (!(k = ref_utf8(s + i, n - i))) return 0;
        i += (size_t)k;
    }
    return 1;
}

/* Parses content as a string value ["..."] (as_key 0) or as a key {"...":1} (as_key 1).
   Returns 1 if accepted with exactly those bytes, 0 if refused, -1 if accepted wrongly. */
static int try_content(const unsigned char *c, size_t n, int as_key)
{
    char buf[256];
    size_t len = 0, kl = 0;
    mcp_json_doc *d;
    const mcp_json *v;
    const char *got;
    int r;
    if (n > 200) return -1;
    memcpy(buf, as_key ? "{\"" : "[\"", 2); len = 2;
    memcpy(buf + len, c, n); len += n;
    memcpy(buf + len, as_key ? "\":1}" : "\"]", as_key ? 4 : 2); len += as_key ? 4 : 2;
    d = parse_n(buf, len, NULL, NULL);
    if (!d) return 0;
    v = mcp_json_root(d);
    if (as_key) { got = mcp_json_key_at(v, 0, &kl); }
    else { got = mcp_json_str(mcp_json_at(v, 0)); kl = mcp_json_len(mcp_json_at(v, 0)); }
    r = got && kl == n && memcmp(got, c, n) == 0 && got[n] == 0 ? 1 : -1;
    mcp_json_free(d);
    return r;
}

/* Checks content both as a value and as a key against the expectation. */
static int content_ok(const char *c, size_t n, int want)
{
    int a = try_content((const unsigned char *)c, n, 0), b = try_content((const unsigned char *)c, n, 1);
    return a == want && b == want;
}
#define STR_OK(c) CHECKF(content_ok((c), sizeof(c) - 1, 1), "string/key should be accepted as is: %s", show((c), sizeof(c) - 1))
#define STR_BAD(c) CHECKF(content_ok((c), sizeof(c) - 1, 0), "string/key should be refused: %s", show((c), sizeof(c) - 1))

/* The decoded bytes of an escaped string value "...", compared with want[0..wn). */
static int unescapes_to(const char *json_str, const char *want, size_t wn)
{
    char buf[256];
    mcp_json_doc *d;
    const mcp_json *v;
    int ok;
    snprintf(buf, sizeof buf, "[\"%s\"]", json_str);
    d = parse_n(buf, strlen(buf), NULL, NULL);
    v = mcp_json_at(mcp_json_root(d), 0);
    ok = d && mcp_json_len(v) == wn && mcp_json_str(v) && memcmp(mcp_json_str(v), want, wn) == 0 &&
         mcp_json_str(v)[wn] == 0;
    if (!ok) fprintf(stderr, "  \"%s\" decoded to %s\n", json_str,
                     d ? show(mcp_json_str(v) ? mcp_json_str(v) : "", mcp_json_len(v)) : "(refused)");
    mcp_json_free(d);
    /* the same escape inside a key */
    snprintf(buf, sizeof buf, "{\"%s\":0}", json_str);
    d = parse_n(buf, strlen(buf), NULL, NULL);
    if (ok) {
        size_t kl;
        const char *k = mcp_json_key_at(mcp_json_root(d), 0, &kl);
        ok = d && k && kl == wn && memcmp(k, want, wn) == 0 && k[wn] == 0;
        if (!ok) fprintf(stderr, "  key \"%s\" decoded wrongly\n", json_str);
    }
    mcp_json_free(d);
    return ok;
}
#define UNESC(j, w) CHECKF(unescapes_to((j), (w), sizeof(w) - 1), "\"%s\" should decode to %s", (j), show((w), sizeof(w) - 1))

TEST_CASE(utf8)
{
    unsigned b0, b1, t, i, pos, bad;
    unsigned char c[16];
    static const unsigned char tails[4][3] = {{0, 0, 0}, {1, 0x80, 0}, {2, 0xBF, 0xBF}, {2, 0x80, 'x'}};
    static const unsigned char alpha[] = {
        0x00, 0x1F, ' ', 'a', '"', 0x7F, 0x80, 0x8F, 0x90, 0x9F, 0xA0, 0xBF, 0xC0, 0xC1, 0xC2,
        0xDF, 0xE0, 0xE1, 0xEC, 0xED, 0xEE, 0xEF, 0xF0, 0xF1, 0xF3, 0xF4, 0xF5, 0xF7, 0xF8, 0xFC, 0xFF};
    unsigned long nfuzz = quick ? 20000 : 300000, f;

    /* valid boundaries, raw */
    STR_OK("\xC2\x80");              /* U+0080 */
    STR_OK("\xDF\xBF");              /* U+07FF */
    STR_OK("\xE0\xA0\x80");          /* U+0800 */
    STR_OK("\xED\x9F\xBF");          /* U+D7FF */
    STR_OK("\xEE\x80\x80");          /* U+E000 */
    STR_OK("\xEF\xBF\xBF");          /* U+FFFF */
    STR_OK("\xF0\x90\x80\x80");      /* U+10000 */
    STR_OK("\xF4\x8F\xBF\xBF");      /* U+10FFFF */
    STR_OK("\x7F");                  /* DEL is not a control character for JSON */
    STR_OK("a\xC3\xA9z \xE2\x82\xAC \xF0\x9F\x98\x80!");
    STR_OK("");
    /* overlong forms */
    STR_BAD("\xC0\x80"); STR_BAD("\xC0\xAF"); STR_BAD("\xC1\xBF");
    STR_BAD("\xE0\x80\x80"); STR_BAD("\xE0\x9F\xBF");
    STR_BAD("\xF0\x80\x80\x80"); STR_BAD("\xF0\x8F\xBF\xBF");
    STR_BAD("\xF8\x88\x80\x80\x80"); STR_BAD("\xFC\x84\x80\x80\x80\x80");
    /* encoded surrogates */
    STR_BAD("\xED\xA0\x80"); STR_BAD("\xED\xAF\xBF"); STR_BAD("\xED\xB0\x80"); STR_BAD("\xED\xBF\xBF");
    STR_BAD("\xED\xA0\xBD\xED\xB8\x80");   /* CESU-8 pair */
    /* above U+10FFFF */
    STR_BAD("\xF4\x90\x80\x80"); STR_BAD("\xF4\xBF\xBF\xBF"); STR_BAD("\xF5\x80\x80\x80");
    STR_BAD("\xF7\xBF\xBF\xBF"); STR_BAD("\xF8"); STR_BAD("\xFE"); STR_BAD("\xFF");
    /* truncated sequences right before the closing quote, and before other characters */
    STR_BAD("\xC3"); STR_BAD("\xE2\x82"); STR_BAD("\xE2"); STR_BAD("\xF0\x9F\x98"); STR_BAD("\xF0\x9F");
    STR_BAD("\xF0"); STR_BAD("a\xC3"); STR_BAD("\xC3" "a"); STR_BAD("\xE2\x82" "a"); STR_BAD("\xF0\x9F\x98 ");
    /* lone continuation bytes */
    STR_BAD("\x80"); STR_BAD("\xBF"); STR_BAD("a\x80" "b"); STR_BAD("\xC3\xA9\xA9");
    /* truncated at the very end of the input (no closing quote) */
    REJECT_N("[\"\xC3", 3); REJECT_N("\"\xE2\x82", 3); REJECT_N("\"\xF0\x9F\x98", 4);
    REJECT_N("{\"\xC3", 3);

    /* exhaustive: every lead byte 0x80..0xFF with every second byte and four tails, as a
       value and as a key, against the reference */
    bad = 0;
    for (b0 = 0x80; b0 <= 0xFF; b0++)
        for (b1 = 0; b1 <= 0xFF; b1++)
            for (t = 0; t < 4; t++) {
                size_t n = 2 + tails[t][0];
                int want;
                if (quick && (b1 & 7) != 0 && b1 < 0x80) continue;
                c[0] = (unsigned char)b0; c[1] = (unsigned char)b1;
                c[2] = tails[t][1]; c[3] = tails[t][2];
                want = ref_content(c, n);
                if (try_content(c, n, 0) != want || try_content(c, n, 1) != want) {
                    if (bad++ < 10) fprintf(stderr, "  %s: mcp.h disagrees with the reference (%d)\n",
                                            show((const char *)c, n), want);
                }
            }
    CHECKF(bad == 0, "%u lead/second-byte combinations judged wrongly", bad);

    /* every byte at every offset of a 16-byte string (the 8-byte scanner's lanes) */
    bad = 0;
    for (pos = 0; pos < 16; pos++)
        for (b0 = 0; b0 <= 0xFF; b0++) {
            int want;
            memset(c, 'x', 16);
            c[pos] = (unsigned char)b0;
            want = ref_content(c, 16);
            if (try_content(c, 16, 0) != want || try_content(c, 16, 1) != want) {
                if (bad++ < 10) fprintf(stderr, "  byte 0x%02X at %u judged wrongly\n", b0, pos);
            }
        }
    CHECKF(bad == 0, "%u byte/offset combinations judged wrongly", bad);

    /* random short strings over an alphabet of boundary bytes */
    bad = 0;
    for (f = 0; f < nfuzz; f++) {
        size_t n = 1 + rndn(8), k;
        int want;
        for (k = 0; k < n; k++) c[k] = alpha[rndn(sizeof alpha)];
        want = ref_content(c, n);
        if (try_content(c, n, f & 1) != want) {
            if (bad++ < 10) fprintf(stderr, "  %s judged wrongly (%d)\n", show((const char *)c, n), want);
        }
    }
    CHECKF(bad == 0, "%u random strings judged wrongly", bad);

    /* control characters: refused raw, accepted escaped (with exactly that byte) */
    bad = 0;
    for (i = 0; i < 0x20; i++) {
        char esc[8], want[1];
        c[0] = 'a'; c[1] = (unsigned char)i; c[2] = 'b';
        if (try_content(c, 3, 0) != 0 || try_content(c, 3, 1) != 0) bad++;
        snprintf(esc, sizeof esc, "\\u%04X", i);
        want[0] = (char)i;
        if (!unescapes_to(esc, want, 1)) bad++;
        snprintf(esc, sizeof esc, "\\u%04x", i);
        if (!unescapes_to(esc, want, 1)) bad++;
    }
    CHECKF(bad == 0, "%u control characters handled wrongly", bad);

    /* escapes */
    UNESC("\\\"\\\\\\/\\b\\f\\n\\r\\t", "\"\\/\b\f\n\r\t");
    UNESC("\\u0041", "A");
    UNESC("\\u007F", "\x7F");
    UNESC("\\u0080", "\xC2\x80");
    UNESC("\\u00e9\\u00E9", "\xC3\xA9\xC3\xA9");
    UNESC("\\u07FF", "\xDF\xBF");
    UNESC("\\u0800", "\xE0\xA0\x80");
    UNESC("\\u20AC", "\xE2\x82\xAC");
    UNESC("\\uD7FF", "\xED\x9F\xBF");
    UNESC("\\uE000", "\xEE\x80\x80");
    UNESC("\\uFFFF", "\xEF\xBF\xBF");
    UNESC("\\uFEFF", "\xEF\xBB\xBF");
    UNESC("\\uD800\\uDC00", "\xF0\x90\x80\x80");
    UNESC("\\uD83D\\uDE00", "\xF0\x9F\x98\x80");
    UNESC("\\ud83d\\ude00", "\xF0\x9F\x98\x80");
    UNESC("\\uD834\\uDD1E", "\xF0\x9D\x84\x9E");
    UNESC("\\uDBFF\\uDFFF", "\xF4\x8F\xBF\xBF");
    UNESC("x\\u00e9y\xC3\xA9z\\n", "x\xC3\xA9y\xC3\xA9z\n");
    UNESC("\\u0000", "\0");
    UNESC("a\\u0000b", "a\0b");
    UNESC("\\u0000\\u0000", "\0\0");
    /* every \uXXXX alone: the UTF-8 encoding of the code point, surrogates refused; and
       random high/low pairs combined */
    bad = 0;
    for (i = 0; i < 0x10000; i += quick ? 7 : 1) {
        char doc[16], want[4];
        size_t wn;
        mcp_json_doc *d;
        const mcp_json *v;
        int ok;
        if (i < 0x80) { want[0] = (char)i; wn = 1; }
        else if (i < 0x800) { want[0] = (char)(0xC0 | i >> 6); want[1] = (char)(0x80 | (i & 0x3F)); wn = 2; }
        else { want[0] = (char)(0xE0 | i >> 12); want[1] = (char)(0x80 | (i >> 6 & 0x3F)); want[2] = (char)(0x80 | (i & 0x3F)); wn = 3; }
        snprintf(doc, sizeof doc, (i & 1) ? "\"\\u%04X\"" : "\"\\u%04x\"", i);
        d = parse_n(doc, 8, NULL, NULL);
        v = mcp_json_root(d);
        if (i >= 0xD800 && i <= 0xDFFF) ok = d == NULL;
        else ok = d && mcp_json_len(v) == wn && memcmp(mcp_json_str(v), want, wn) == 0;
        if (!ok && bad++ < 10) fprintf(stderr, "  %s decoded wrongly\n", doc);
        mcp_json_free(d);
    }
    for (i = 0; i < (quick ? 1000u : 20000u); i++) {
        unsigned hi = 0xD800 + rndn(1024), lo = 0xDC00 + rndn(1024), cp = 0x10000 + ((hi - 0xD800) << 10) + (lo - 0xDC00);
        char doc[24], want[4];
        mcp_json_doc *d;
        const mcp_json *v;
        want[0] = (char)(0xF0 | cp >> 18); want[1] = (char)(0x80 | (cp >> 12 & 0x3F));
        want[2] = (char)(0x80 | (cp >> 6 & 0x3F)); want[3] = (char)(0x80 | (cp & 0x3F));
        snprintf(doc, sizeof doc, "\"\\u%04X\\u%04x\"", hi, lo);
        d = parse_n(doc, 14, NULL, NULL);
        v = mcp_json_root(d);
        if (!(d && mcp_json_len(v) == 4 && memcmp(mcp_json_str(v), want, 4) == 0) && bad++ < 10)
            fprintf(stderr, "  %s decoded wrongly\n", doc);
        mcp_json_free(d);
        snprintf(doc, sizeof doc, "\"\\u%04X\\u%04X\"", lo, hi);   /* inverted */
        d = parse_n(doc, 14, NULL, NULL);
        if (d && bad++ < 10) fprintf(stderr, "  %s accepted\n", doc);
        mcp_json_free(d);
    }
    CHECKF(bad == 0, "%u \\u escapes decoded wrongly", bad);
    /* lone, inverted and broken surrogates */
    REJECT("[\"\\uD800\"]"); REJECT("[\"\\uDBFF\"]"); REJECT("[\"\\uD800x\"]");
    REJECT("[\"\\uD800\\u0041\"]"); REJECT("[\"\\uD800\\n\"]"); REJECT("[\"\\uD800\\uD800\"]");
    REJECT("[\"\\uD800\\\\uDC00\"]"); REJECT("[\"\\uD800\\uDC0\"]"); REJECT("[\"\\uD800\\u\"]");
    REJECT("[\"\\uDC00\"]"); REJECT("[\"\\uDFFF\"]"); REJECT("[\"a\\uDC00b\"]");
    REJECT("[\"\\uDC00\\uD800\"]"); REJECT("[\"\\uDE00\\uD83D\"]");
    REJECT("{\"\\uD800\":1}"); REJECT("{\"\\uDC00\":1}"); REJECT("{\"\\uDC00\\uD800\":1}");
    /* malformed escapes */
    REJECT("[\"\\u\"]"); REJECT("[\"\\u1\"]"); REJECT("[\"\\u12\"]"); REJECT("[\"\\u123\"]");
    REJECT("[\"\\u12G4\"]"); REJECT("[\"\\u-123\"]"); REJECT("[\"\\U0041\"]"); REJECT("[\"\\x41\"]");
    REJECT("[\"\\a\"]"); REJECT("[\"\\'\"]"); REJECT("[\"\\0\"]"); REJECT("[\"\\ \"]");
    REJECT("[\"\\"); REJECT("[\"\\\"]"); REJECT("[\"\\u00"); REJECT("[\"abc");
    REJECT("[\"\\\xC3\xA9\"]"); REJECT("[\"\\\x01\"]");

    /* the NUL kept inside: mcp_json_len counts it, the string is NUL-terminated after it */
    {
        mcp_json_doc *d = parse_s("{\"k\\u0000ey\":\"a\\u0000b\"}", NULL);
        const mcp_json *v = mcp_json_at(mcp_json_root(d), 0);
        size_t kl = 0;
        const char *k = mcp_json_key_at(mcp_json_root(d), 0, &kl);
        CHECK(d && mcp_json_len(v) == 3 && memcmp(mcp_json_str(v), "a\0b", 4) == 0);
        CHECK(strlen(mcp_json_str(v)) == 1);
        CHECK(k && kl == 4 && memcmp(k, "k\0ey", 5) == 0);
        CHECK(mcp_json_getn(mcp_json_root(d), "k\0ey", 4) == v);
        CHECK(mcp_json_get(mcp_json_root(d), "k") == NULL);
        mcp_json_free(d);
    }
}

/* ---- 4. numbers -------------------------------------------------------------------------------- */

/* Parses text as a top-level value; on success fills the number's double bits and, when
   mcp_json_int64 says it is an exact integer, *i64 (else *has_i64 = 0). Returns the status. */
static mcp_status num_parse(const char *text, size_t n, uint64_t *bits, int *has_i64, int64_t *i64)
{
    mcp_error err;
    mcp_json_doc *d = parse_n(text, n, NULL, &err);
    const mcp_json *v;
    if (!d) return err.status;
    v = mcp_json_root(d);
    if (mcp_json_typeof(v) != MCP_JSON_NUMBER) { mcp_json_free(d); return MCP_ERR_INVALID; }
    *bits = dbits(mcp_json_num(v));
    *has_i64 = mcp_json_int64(v, i64);
    mcp_json_free(d);
    return MCP_OK;
}

/* The text parses to a double with exactly these bits. */
static int num_bits_are(const char *text, uint64_t want)
{
    uint64_t b = 0;
    int h;
    int64_t i;
    mcp_status st = num_parse(text, strlen(text), &b, &h, &i);
    if (st != MCP_OK || b != want) {
        fprintf(stderr, "  %s: status %d, bits 0x%016llX (%.17g), want 0x%016llX (%.17g)\n",
                show(text, strlen(text)), (int)st, (unsigned long long)b, bitsd(b),
                (unsigned long long)want, bitsd(want));
        return 0;
    }
    return 1;
}
#define NUM_BITS(t, b) CHECKF(num_bits_are((t), (b)), "%s should read as 0x%016llX", SHOW(t), (unsigned long long)(b))

/* The text is an integer literal kept exactly: mcp_json_int64 gives want. */
static int num_int_is(const char *text, int64_t want)
{
    mcp_json_doc *d = parse_s(text, NULL);
    const mcp_json *v = mcp_json_root(d);
    int64_t got = 0;
    int ok = d && mcp_json_int64(v, &got) && got == want && mcp_json_num(v) == (double)want;
    char *back = ok ? mcp_json_dump(v, 0, NULL) : NULL;
    char want_txt[32];
    snprintf(want_txt, sizeof want_txt, "%lld", (long long)want);
    ok = ok && back && strcmp(back, want_txt) == 0;   /* written back as an integer */
    if (!ok) fprintf(stderr, "  %s -> %lld, dumped %s\n", text, (long long)got, back ? back : "-");
    mcp_free(back);
    mcp_json_free(d);
    return ok;
}
#define NUM_INT(t, i) CHECKF(num_int_is((t), (i)), "%s should be the exact integer %lld", (t), (long long)(i))

static int num_refused(const char *text, size_t n)
{
    mcp_error err;
    mcp_json_doc *d = parse_n(text, n, NULL, &err);
    int ok = !d && err.status == MCP_ERR_PARSE && strstr(err.message, "too large for a double");
    if (!ok) fprintf(stderr, "  %s: %s\n", show(text, n), d ? "accepted" : err.message);
    mcp_json_free(d);
    return ok;
}
#define NUM_REFUSED(t) CHECKF(num_refused((t), strlen(t)), "%s should be refused as too large", SHOW(t))

/* mcp_json_int64 of a parsed double */
static int int64_of(const char *text, int64_t *out)
{
    mcp_json_doc *d = parse_s(text, NULL);
    int r = d ? mcp_json_int64(mcp_json_root(d), out) : -1;
    mcp_json_free(d);
    return r;
}

/* The writer's text for one double, NUL-terminated in buf. */
static const char *write_num(double v, char *buf, size_t cap)
{
    mcp_jw w;
    const char *t;
    size_t n;
    mcp_jw_init(&w, 0);
    if (mcp_jw_num(&w, v) != MCP_OK || !(t = mcp_jw_text(&w, &n)) || n >= cap) {
        mcp_jw_free(&w);
        return NULL;
    }
    memcpy(buf, t, n); buf[n] = 0;
    mcp_jw_free(&w);
    return buf;
}

TEST_CASE(number_cases)
{
    char buf[64], *big;
    int64_t i64 = 0;
    size_t i, n;

    /* integers kept exactly */
    NUM_INT("0", 0); NUM_INT("-0", 0); NUM_INT("1", 1); NUM_INT("-1", -1);
    NUM_INT("9223372036854775807", INT64_MAX);
    NUM_INT("-9223372036854775808", INT64_MIN);
    NUM_INT("9223372036854775806", INT64_MAX - 1);
    NUM_INT("-9223372036854775807", -INT64_MAX);
    NUM_INT("9007199254740993", 9007199254740993);   /* not a double, but exact */
    NUM_INT("1000000000000000000", 1000000000000000000);
    NUM_INT("  42 ", 42);
    {   /* -0 as a literal integer is the integer 0; -0.0 is the negative zero double */
        mcp_json_doc *d = parse_s("[-0,-0.0,0.0,-0e0]", NULL);
        const mcp_json *r = mcp_json_root(d);
        char *t = mcp_json_dump(r, 0, NULL);
        CHECK(d && dbits(mcp_json_num(mcp_json_at(r, 1))) == 0x8000000000000000u);
        CHECK(d && dbits(mcp_json_num(mcp_json_at(r, 2))) == 0);
        CHECK(d && dbits(mcp_json_num(mcp_json_at(r, 3))) == 0x8000000000000000u);
        CHECKF(t && strcmp(t, "[0,-0.0,0.0,-0.0]") == 0, "dump: %s", t ? t : "NULL");
        mcp_free(t);
        mcp_json_free(d);
    }
    /* just outside int64: the correctly rounded double */
    NUM_BITS("9223372036854775808", 0x43E0000000000000u);            /* 2^63 */
    NUM_BITS("-9223372036854775809", 0xC3E0000000000000u);           /* -2^63 */
    NUM_BITS("18446744073709551615", 0x43F0000000000000u);           /* 2^64 */
    NUM_BITS("18446744073709551616", 0x43F0000000000000u);
    NUM_BITS("100000000000000000000", 0x4415AF1D78B58C40u);          /* 1e20 */
    NUM_BITS("9223372036854775807.0", 0x43E0000000000000u);
    CHECK(int64_of("9223372036854775808", &i64) == 0);
    CHECK(int64_of("18446744073709551616", &i64) == 0);
    i64 = 7; CHECK(int64_of("-9223372036854775809", &i64) == 0 && i64 == 7);  /* the double -2^63 is not the literal */
    {
        mcp_json_doc *d = parse_s("9223372036854775808", NULL);
        char *t = mcp_json_dump(mcp_json_root(d), 0, NULL);
        CHECKF(t && strcmp(t, "9223372036854776000.0") == 0, "2^63 dumps as %s", t ? t : "NULL");
        mcp_free(t);
        mcp_json_free(d);
    }
    /* mcp_json_int64 on doubles */
    i64 = 7; CHECK(int64_of("3.0", &i64) == 1 && i64 == 3);
    i64 = 7; CHECK(int64_of("-3.0e0", &i64) == 1 && i64 == -3);
    i64 = 7; CHECK(int64_of("1e2", &i64) == 1 && i64 == 100);
    i64 = 7; CHECK(int64_of("-0.0", &i64) == 1 && i64 == 0);
    i64 = 7; CHECK(int64_of("1e18", &i64) == 1 && i64 == 1000000000000000000);
    i64 = 7; CHECK(int64_of("9007199254740993.0", &i64) == 0 && i64 == 7);   /* rounded to 2^53 */
    i64 = 7; CHECK(int64_of("9223372036854774784.0", &i64) == 1 && i64 == 9223372036854774784);
    i64 = 7; CHECK(int64_of("-9223372036854775808.0", &i64) == 1 && i64 == INT64_MIN);
    i64 = 7; CHECK(int64_of("1e300", &i64) == 0 && i64 == 7);
    i64 = 7; CHECK(int64_of("1e19", &i64) == 0 && i64 == 7);
    i64 = 7; CHECK(int64_of("-1e19", &i64) == 0 && i64 == 7);
    i64 = 7; CHECK(int64_of("0.5", &i64) == 0 && i64 == 7);
    i64 = 7; CHECK(int64_of("-2.5", &i64) == 0 && i64 == 7);
    i64 = 7; CHECK(int64_of("5e-324", &i64) == 0 && i64 == 7);
    i64 = 7; CHECK(int64_of("\"3\"", &i64) == 0 && i64 == 7);
    i64 = 7; CHECK(int64_of("true", &i64) == 0 && i64 == 7);
    {
        mcp_json_doc *d = parse_s("12", NULL);
        CHECK(mcp_json_int64(mcp_json_root(d), NULL) == 1);   /* out may be NULL */
        CHECK(mcp_json_int64(NULL, &i64) == 0);
        mcp_json_free(d);
    }

    /* the hard cases */
    NUM_BITS("2.2250738585072011e-308", 0x000FFFFFFFFFFFFFu);
    NUM_BITS("2.2250738585072012e-308", 0x0010000000000000u);
    NUM_BITS("2.2250738585072014e-308", 0x0010000000000000u);
    NUM_BITS("2.2250738585072009e-308", 0x000FFFFFFFFFFFFFu);
    NUM_BITS("4.4501477170144023e-308", 0x001FFFFFFFFFFFFFu);
    NUM_BITS("4.9406564584124654e-324", 0x0000000000000001u);
    NUM_BITS("2.4703282292062327e-324", 0x0000000000000000u);
    NUM_BITS("2.4703282292062328e-324", 0x0000000000000001u);
    NUM_BITS("-2.4703282292062328e-324", 0x8000000000000001u);
    NUM_BITS("-2.4703282292062327e-324", 0x8000000000000000u);
    NUM_BITS("1.7976931348623157e308", 0x7FEFFFFFFFFFFFFFu);
    NUM_BITS("1.7976931348623158e308", 0x7FEFFFFFFFFFFFFFu);
    NUM_BITS("-1.7976931348623158e+308", 0xFFEFFFFFFFFFFFFFu);
    NUM_REFUSED("1.7976931348623159e308");
    NUM_REFUSED("-1.7976931348623159e308");
    /* exactly halfway between DBL_MAX and 2^1024 rounds to even, that is to infinity */
    NUM_REFUSED("179769313486231580793728971405303415079934132710037826936173778980444968292764750946649017977587207096330286416692887910946555547851940402630657488671505820681908902000708383676273854845817711531764475730270069855571366959622842914819860834936475292719074168444365510704342711559699508093042880177904174497792");
    NUM_BITS("179769313486231580793728971405303415079934132710037826936173778980444968292764750946649017977587207096330286416692887910946555547851940402630657488671505820681908902000708383676273854845817711531764475730270069855571366959622842914819860834936475292719074168444365510704342711559699508093042880177904174497791.999999999999999999999999", 0x7FEFFFFFFFFFFFFFu);
    NUM_REFUSED("1e309"); NUM_REFUSED("1e400"); NUM_REFUSED("-1e400"); NUM_REFUSED("1e99999999999999999999");
    NUM_REFUSED("123456789e301");
    NUM_BITS("123456789e300", 0x7FE5F9DD9ED1A813u);
    NUM_BITS("9007199254740993.0", 0x4340000000000000u);
    NUM_BITS("9007199254740993e0", 0x4340000000000000u);
    NUM_BITS("90071992547409930e-1", 0x4340000000000000u);
    NUM_BITS("900719925474099300e-2", 0x4340000000000000u);
    NUM_BITS("9007199254740995.0", 0x4340000000000002u);
    NUM_BITS("9007199254740993.0000000000000000000000000000000000001", 0x4340000000000001u);
    NUM_BITS("4503599627370497.5", 0x4330000000000002u);
    NUM_BITS("4503599627370496.5", 0x4330000000000000u);
    NUM_BITS("1.00000000000000011102230246251565404236316680908203125", 0x3FF0000000000000u);
    NUM_BITS("1.000000000000000111022302462515654042363166809082031251", 0x3FF0000000000001u);
    NUM_BITS("1.00000000000000011102230246251565404236316680908203124999999999999999999999", 0x3FF0000000000000u);
    NUM_BITS("0.1", 0x3FB999999999999Au);
    NUM_BITS("0.3", 0x3FD3333333333333u);
    NUM_BITS("1e23", 0x44B52D02C7E14AF6u);
    NUM_BITS("8.41e21", 0x447C7E83209E90B2u);
    NUM_BITS("5e-324", 0x0000000000000001u);
    NUM_BITS("1e-400", 0x0000000000000000u);
    NUM_BITS("-1e-400", 0x8000000000000000u);
    NUM_BITS("1e308", 0x7FE1CCF385EBC8A0u);
    NUM_BITS("1E+2", 0x4059000000000000u);
    NUM_BITS("1e-2", 0x3F847AE147AE147Bu);
    NUM_BITS("0e0", 0); NUM_BITS("0.0e-999999", 0); NUM_BITS("0e999999999999999999999", 0);
    NUM_BITS("-0.000e+999", 0x8000000000000000u);
    NUM_BITS("1e00000000000000000000000000001", 0x4024000000000000u);   /* leading zeros in the exponent */
    NUM_BITS("1e-0000000000000000000000000001", 0x3FB999999999999Au);
    NUM_BITS("123.456e-789", 0); NUM_BITS("123e-10000000", 0);
    {   /* 0.(330 zeros)1e330 is 0.1 */
        char z[400];
        memcpy(z, "0.", 2);
        memset(z + 2, '0', 330);
        strcpy(z + 332, "1e330");
        CHECK(num_bits_are(z, 0x3FB999999999999Au));
        strcpy(z + 332, "1e-330");   /* 1e-661 */
        CHECK(num_bits_are(z, 0));
    }

    /* halfway with a 1 after many zeros, beyond the 800 digits the slow path keeps */
    big = (char *)malloc(4096);
    if (!big) exit(2);
    strcpy(big, "1.00000000000000011102230246251565404236316680908203125");
    n = strlen(big);
    for (i = 0; i < 2000; i++) big[n++] = '0';
    big[n] = 0;
    CHECK(num_bits_are(big, 0x3FF0000000000000u));        /* still exactly halfway: even */
    big[n++] = '1'; big[n] = 0;
    CHECK(num_bits_are(big, 0x3FF0000000000001u));        /* just above: up */
    /* 9007199254740993 with 900 zeros and e-900, then with a trailing 1 */
    strcpy(big, "9007199254740993");
    n = strlen(big);
    for (i = 0; i < 900; i++) big[n++] = '0';
    memcpy(big + n, "e-900", 6);
    CHECK(num_bits_are(big, 0x4340000000000000u));
    big[n++] = '1';
    memcpy(big + n, "e-901", 6);
    CHECK(num_bits_are(big, 0x4340000000000001u));
    /* 800+ digit mantissas against strtod */
    for (i = 0; i < 50; i++) {
        size_t nd = 780 + rndn(400), k;
        int ok;
        uint64_t want;
        n = 0;
        if (i & 1) big[n++] = '-';
        big[n++] = '0'; big[n++] = '.';
        for (k = 0; k < nd; k++) big[n++] = (char)('0' + (k < 3 ? 9 - rndn(2) * 9 : rndn(10)));
        n += (size_t)sprintf(big + n, "e%d", (int)rndn(600) - 300);
        want = dbits(strtod(big, NULL));
        ok = num_bits_are(big, want);
        CHECKF(ok, "an %lu-digit mantissa is not read like strtod", (unsigned long)nd);
    }
    free(big);

    /* numbers whose digits are compensated by a large exponent (more than 100000 digits):
       1 followed by 1000010 zeros, e-1000000, is 1e10; 0.(1000000 zeros)1e1000005 is 1e4 */
    big = (char *)malloc(1100000);
    if (!big) exit(2);
    big[0] = '1';
    memset(big + 1, '0', 1000010);
    strcpy(big + 1000011, "e-1000000");
    CHECK(num_bits_are(big, dbits(1e10)));
    memcpy(big, "0.", 2);
    memset(big + 2, '0', 1000000);
    strcpy(big + 1000002, "1e1000005");
    CHECK(num_bits_are(big, dbits(1e4)));
    free(big);

    /* the writer's format */
    {
        static const struct { double v; const char *t; } fmt[] = {
            {0.0, "0.0"}, {1.0, "1.0"}, {-2.5, "-2.5"}, {0.1, "0.1"}, {0.3, "0.3"},
            {123.456, "123.456"}, {1e20, "100000000000000000000.0"}, {1e21, "1e21"},
            {1e22, "1e22"}, {1.5e-7, "1.5e-7"}, {0.000001, "0.000001"}, {1e300, "1e300"},
            {5e-324, "5e-324"}, {1.7976931348623157e308, "1.7976931348623157e308"},
            {9007199254740992.0, "9007199254740992.0"}, {2.2250738585072014e-308, "2.2250738585072014e-308"},
            {-1e-100, "-1e-100"}, {0.1 + 0.2, "0.30000000000000004"}, {0.000025, "0.000025"}, {1e-7, "1e-7"}};
        for (i = 0; i < sizeof fmt / sizeof fmt[0]; i++) {
            const char *t = write_num(fmt[i].v, buf, sizeof buf);
            CHECKF(t && strcmp(t, fmt[i].t) == 0, "%.17g is written as %s, want %s", fmt[i].v,
                   t ? t : "NULL", fmt[i].t);
        }
        CHECKF(write_num(-0.0, buf, sizeof buf) && strcmp(buf, "-0.0") == 0, "-0.0 written as %s", buf);
    }
    /* NaN and infinities are refused */
    {
        double bad[3];
        mcp_jw w;
        mcp_error err;
        bad[0] = NAN; bad[1] = INFINITY; bad[2] = -INFINITY;
        for (i = 0; i < 3; i++) {
            mcp_jw_init(&w, 0);
            CHECK(mcp_jw_num(&w, bad[i]) == MCP_ERR_INVALID);
            CHECK(w.len == 0 && mcp_jw_text(&w, NULL) == NULL);
            CHECK(mcp_jw_finish(&w, NULL, &err) == NULL && err.status == MCP_ERR_INVALID &&
                  strcmp(err.message, "JSON writer error: a number that is NaN or infinite (JSON has neither).") == 0);
            mcp_jw_init(&w, 0);
            mcp_jw_arr_begin(&w);
            mcp_jw_int(&w, 1);
            CHECK(mcp_jw_num(&w, bad[i]) == MCP_ERR_INVALID);
            CHECK(w.len == 2 && memcmp(w.buf, "[1", 2) == 0);   /* nothing written */
            mcp_jw_free(&w);
        }
    }
}

/* ---- 4b. the random sample against strtod ------------------------------------------------------ */

#define NB 2048
static struct {
    char json[NB * 64 + 16];         /* "[n1,n2,...]" */
    size_t len, count;
    size_t off[NB];
    double ref[NB];
    unsigned char zero_int[NB];      /* the literal is an integer zero: compare values, not bits */
} nb;
static unsigned long n_total, n_bad, n_refused, n_bad_refuse, n_written, n_bad_write;
static unsigned long n_short_tested, n_not_shortest;

/* The fewest significant digits (%.*e) that read back to v. */
static int shortest_digits(double v)
{
    char t[40];
    int p;
    for (p = 1; p < 17; p++) {
        snprintf(t, sizeof t, "%.*e", p - 1, v);
        if (dbits(strtod(t, NULL)) == dbits(v)) return p;
    }
    return 17;
}
static mcp_jw nb_w;

static void num_flush(void)
{
    mcp_error err;
    mcp_json_doc *d;
    const mcp_json *r;
    const char *t;
    size_t i, tl;
    if (!nb.count) return;
    nb.json[nb.len++] = ']';
    d = mcp_json_parse(nb.json, nb.len, &err);
    CHECKF(d != NULL, "a batch of numbers was refused: %s", err.message);
    if (!d) { n_bad += nb.count; nb.count = 0; nb.len = 0; return; }
    r = mcp_json_root(d);
    CHECK(mcp_json_len(r) == nb.count);
    mcp_jw_reset(&nb_w);
    mcp_jw_arr_begin(&nb_w);
    for (i = 0; i < nb.count; i++) {
        const mcp_json *v = mcp_json_at(r, i);
        double got = mcp_json_num(v);
        int ok = nb.zero_int[i] ? got == 0 : dbits(got) == dbits(nb.ref[i]);
        n_total++;
        if (!ok) {
            const char *s = nb.json + nb.off[i];
            size_t l = strcspn(s, ",]");
            if (n_bad++ < 20)
                fprintf(stderr, "  %.*s: mcp.h %.17g (0x%016llX), strtod %.17g (0x%016llX)\n",
                        (int)(l > 120 ? 120 : l), s, got, (unsigned long long)dbits(got),
                        nb.ref[i], (unsigned long long)dbits(nb.ref[i]));
        }
        mcp_jw_num(&nb_w, got);
    }
    mcp_jw_arr_end(&nb_w);
    t = mcp_jw_text(&nb_w, &tl);
    CHECKF(t != NULL, "the writer failed on a batch of doubles");
    if (t) {
        /* read back by mcp.h and by strtod: the same bits; '.' or 'e' in every number */
        mcp_json_doc *d2 = mcp_json_parse(t, tl, &err);
        const char *p = t + 1;
        char tok[64];
        CHECKF(d2 && mcp_json_len(mcp_json_root(d2)) == nb.count, "the written batch does not parse: %s", err.message);
        for (i = 0; i < nb.count && d2; i++) {
            double v = mcp_json_num(mcp_json_at(r, i));
            size_t l = strcspn(p, ",]"), k, nd = 0;
            int ok = l < sizeof tok, seen = 0;
            if (ok) {
                memcpy(tok, p, l); tok[l] = 0;
                ok = dbits(strtod(tok, NULL)) == dbits(v) &&
                     dbits(mcp_json_num(mcp_json_at(mcp_json_root(d2), i))) == dbits(v) &&
                     strpbrk(tok, ".e") != NULL && !strchr(tok, 'E') && !strchr(tok, '+');
                for (k = 0; k < l && tok[k] != 'e'; k++) {   /* significant digits */
                    if (tok[k] >= '1' && tok[k] <= '9') { nd += (size_t)seen + 1; seen = 0; }
                    else if (tok[k] == '0' && nd) seen++;   /* zeros count once a digit follows */
                }
                ok = ok && nd <= 17;
                if (ok && (i & 31) == 0 && v != 0) {   /* "shortest or nearly": count the longer ones */
                    int sd = shortest_digits(v);
                    n_short_tested++;
                    if ((int)nd > sd) n_not_shortest++;
                }
            }
            n_written++;
            if (!ok && n_bad_write++ < 20)
                fprintf(stderr, "  %.17g (0x%016llX) was written as %.*s\n", v,
                        (unsigned long long)dbits(v), (int)l, p);
            p += l + 1;
        }
        mcp_json_free(d2);
        /* mcp_json_dump writes the same doubles (and integer literals as integers) */
        {
            size_t dl;
            char *dt = mcp_json_dump(r, 0, &dl);
            const char *q = dt ? dt + 1 : NULL;
            int same = dt != NULL && dt[0] == '[';
            p = t + 1;
            for (i = 0; i < nb.count && same; i++) {
                const char *src = nb.json + nb.off[i];
                size_t sl = strcspn(src, ",]"), l = strcspn(p, ",]"), ql = strcspn(q, ",]");
                char *end;
                long long iv;
                errno = 0;
                iv = strtoll(src, &end, 10);
                if (end == src + sl && errno == 0) {   /* an int64 literal: written as an integer */
                    char it[32];
                    same = (size_t)sprintf(it, "%lld", iv) == ql && memcmp(it, q, ql) == 0;
                } else {
                    same = l == ql && memcmp(p, q, l) == 0;
                }
                if (!same) fprintf(stderr, "  %.*s: dumped as %.*s, written as %.*s\n", (int)sl, src, (int)ql, q, (int)l, p);
                p += l + 1; q += ql + 1;
            }
            CHECKF(same && q == dt + dl, "mcp_json_dump of a batch differs from the writer's numbers");
            mcp_free(dt);
        }
    }
    mcp_json_free(d);
    nb.count = 0; nb.len = 0;
}

/* One number literal (valid JSON grammar): compared with strtod, or refused if it overflows. */
static void num_case(const char *s)
{
    char *end;
    double ref;
    size_t l = strlen(s);
    ref = strtod(s, &end);
    if (*end) { CHECKF(0, "generator bug: %s", s); return; }
    if (isinf(ref)) {
        n_refused++;
        if (!num_refused(s, l) && n_bad_refuse++ < 20) fprintf(stderr, "  %s overflows but was not refused\n", s);
        return;
    }
    if (l > 60) {   /* long ones alone */
        uint64_t b = 0;
        int h;
        int64_t i;
        mcp_status st = num_parse(s, l, &b, &h, &i);
        n_total++;
        if (st != MCP_OK || b != dbits(ref)) {
            if (n_bad++ < 20) fprintf(stderr, "  %s: mcp.h 0x%016llX (status %d), strtod 0x%016llX\n", s,
                                      (unsigned long long)b, (int)st, (unsigned long long)dbits(ref));
        }
        return;
    }
    if (nb.count == NB) num_flush();
    nb.json[nb.len++] = nb.count ? ',' : '[';
    nb.off[nb.count] = nb.len;
    memcpy(nb.json + nb.len, s, l); nb.len += l;
    nb.ref[nb.count] = ref;
    nb.zero_int[nb.count] = ref == 0 && !strpbrk(s, ".eE");
    nb.count++;
}

/* A random finite double from its bit pattern. */
static double rnd_double(void)
{
    double d;
    do d = bitsd(rnd()); while (isnan(d) || isinf(d));
    return d;
}

static void gen_from_bits(char *out)
{
    static const int prec[3] = {17, 16, 15};
    int p = prec[rndn(3)];   /* two statements: the order of the calls is fixed */
    sprintf(out, "%.*g", p, rnd_double());
}

/* 1..40 random digits, a random decimal point, maybe an exponent in [-350, 330] */
static void gen_digits(char *out)
{
    char dig[48];
    unsigned nd = 1 + rndn(40), k = rndn(nd + 1), i, mode = rndn(4);
    size_t o = 0;
    for (i = 0; i < nd; i++) {
        if (mode == 0) dig[i] = (char)('0' + rndn(10));
        else if (mode == 1) dig[i] = rndn(2) ? '0' : '9';
        else if (mode == 2) dig[i] = rndn(4) ? '0' : (char)('1' + rndn(9));
        else dig[i] = i == 0 || rndn(3) ? (char)('0' + rndn(10)) : dig[i - 1];
    }
    if (rndn(2)) out[o++] = '-';
    if (k == 0) {
        out[o++] = '0'; out[o++] = '.';
        memcpy(out + o, dig, nd); o += nd;
    } else {
        if (k > 1 && dig[0] == '0') dig[0] = (char)('1' + rndn(9));
        memcpy(out + o, dig, k); o += k;
        if (k < nd) { out[o++] = '.'; memcpy(out + o, dig + k, nd - k); o += nd - k; }
    }
    if (rndn(4)) {
        int e = (int)rndn(681) - 350;
        out[o++] = rndn(2) ? 'e' : 'E';
        if (e < 0) out[o++] = '-';
        else if (rndn(2)) out[o++] = '+';
        if (!rndn(8)) out[o++] = '0';
        o += (size_t)sprintf(out + o, "%d", e < 0 ? -e : e);
    }
    out[o] = 0;
}

/* Doubles near the subnormal boundary, the smallest values and the overflow boundary,
   printed with various precisions (some too short to round-trip, some long). */
static void gen_boundary(char *out)
{
    static const unsigned expo[] = {0, 0, 1, 2, 0x7FE, 0x7FE, 0x7FD, 0x3FF, 0x433, 0x434};
    static const int prec[] = {15, 16, 17, 18, 20, 25, 30};
    uint64_t mant = rnd() & 0x000FFFFFFFFFFFFFu;
    unsigned ex = expo[rndn(sizeof expo / sizeof expo[0])];
    int p = prec[rndn(sizeof prec / sizeof prec[0])];
    double d;
    switch (rndn(4)) {
    case 0: mant &= 0xFF; break;                                     /* smallest mantissas */
    case 1: mant |= 0x000FFFFFFFFFFF00u; break;                       /* largest */
    default: break;
    }
    d = bitsd((uint64_t)ex << 52 | mant | (rndn(2) ? (uint64_t)1 << 63 : 0));
    if (rndn(2)) sprintf(out, "%.*g", p, d);
    else sprintf(out, "%.*e", p - 1, d);
}

/* The exact decimal expansion of odd * 2^k as "D.DDD...e+X" (base-10^9 limbs; at most 769
   significant digits for the numbers below). */
static void exact_dyadic(uint64_t odd, int k, char *out)
{
    uint32_t limb[128];
    int n = 0, i, dexp = 0, nd, o = 0;
    char dig[1200];
    limb[n++] = (uint32_t)(odd % 1000000000u);
    odd /= 1000000000u;
    while (odd) { limb[n++] = (uint32_t)(odd % 1000000000u); odd /= 1000000000u; }
    if (k < 0) dexp = k;                         /* odd * 5^-k * 10^k */
    for (k = k < 0 ? -k : k; k > 0; ) {
        int neg = dexp < 0, st = neg ? (k > 13 ? 13 : k) : (k > 29 ? 29 : k);
        uint64_t f = 1, carry = 0;
        for (i = 0; i < st; i++) f *= neg ? 5 : 2;
        for (i = 0; i < n; i++) {
            uint64_t cur = (uint64_t)limb[i] * f + carry;
            limb[i] = (uint32_t)(cur % 1000000000u);
            carry = cur / 1000000000u;
        }
        while (carry) { limb[n++] = (uint32_t)(carry % 1000000000u); carry /= 1000000000u; }
        k -= st;
    }
    nd = sprintf(dig, "%u", limb[n - 1]);
    for (i = n - 2; i >= 0; i--) nd += sprintf(dig + nd, "%09u", limb[i]);
    while (nd > 1 && dig[nd - 1] == '0') { nd--; dexp++; }
    out[o++] = dig[0];
    if (nd > 1) { out[o++] = '.'; memcpy(out + o, dig + 1, (size_t)nd - 1); o += nd - 1; }
    sprintf(out + o, "e%+d", dexp + nd - 1);
}

/* Exact halfway points between a double and the next one (computed with big integers):
   exactly, a hair above (a 1 after 830 digits) and a hair below. Expected: round half to
   even, up, down; and strtod agrees. */
static unsigned long hw_total, hw_bad;
static void halfway_case(double lo)
{
    char s[2048], *e;
    double hi = nextafter(lo, INFINITY);
    uint64_t want[3], u = dbits(lo), m;
    int ex, v;
    size_t ml;
    if (isinf(hi) || lo < 0) return;
    ex = (int)(u >> 52);
    m = u & 0x000FFFFFFFFFFFFFu;
    if (ex) m |= (uint64_t)1 << 52;
    exact_dyadic(2 * m + 1, (ex ? ex - 1075 : -1074) - 1, s);   /* lo + ulp/2 */
    e = strchr(s, 'e');
    ml = (size_t)(e - s);
    want[0] = dbits(lo) & 1 ? dbits(hi) : dbits(lo);
    want[1] = dbits(hi);
    want[2] = dbits(lo);
    for (v = 0; v < 3; v++) {
        char t[2100];
        size_t o = 0;
        int neg = (int)rndn(2);
        uint64_t b = 0, sign = neg ? (uint64_t)1 << 63 : 0;
        int h, ok;
        int64_t i;
        mcp_status st;
        if (neg) t[o++] = '-';
        memcpy(t + o, s, ml); o += ml;
        if (v > 0 && !memchr(s, '.', ml)) t[o++] = '.';
        if (v == 1) { while (o < 830) t[o++] = '0'; t[o++] = '1'; }
        if (v == 2) {
            size_t k = o - 1;
            while (t[k] == '.') k--;
            t[k]--;                          /* the last digit is not 0 */
            memcpy(t + o, "99999", 5); o += 5;
        }
        strcpy(t + o, e);
        st = num_parse(t, strlen(t), &b, &h, &i);
        ok = st == MCP_OK && b == (want[v] | sign) && dbits(strtod(t, NULL)) == (want[v] | sign);
        hw_total++;
        if (!ok && hw_bad++ < 10)
            fprintf(stderr, "  halfway variant %d between %.17g and %.17g: mcp.h 0x%016llX (status %d), want 0x%016llX, strtod 0x%016llX\n  %s\n",
                    v, lo, hi, (unsigned long long)b, (int)st, (unsigned long long)(want[v] | sign),
                    (unsigned long long)dbits(strtod(t, NULL)), t);
    }
}

/* mcp_json_int64 at both ends of int64, in every form a number can take: exact (1, *out set)
   only when the literal's value is a whole number inside int64; otherwise 0 and *out untouched
   (-9223372036854775809 reads as the double -2^63 = INT64_MIN, and must not be called exact).
   mcp_json_num stays the literal's correctly rounded double (strtod in the C locale) either way,
   and a number that is not exact is not written back as an integer. */
TEST_CASE(int64_edges)
{
    static const struct { const char *text; int exact; int64_t want; } cases[] = {
        /* the low end */
        {"-9223372036854775808", 1, INT64_MIN},
        {"-9223372036854775807", 1, -INT64_MAX},
        {"-9223372036854775809", 0, 0},          /* one below INT64_MIN, rounds to -2^63 */
        {"-9223372036854775810", 0, 0},
        {"-9223372036854776832", 0, 0},          /* halfway to the next double: still -2^63 */
        {"-9223372036854775808.0", 1, INT64_MIN},
        {"-9223372036854775808e0", 1, INT64_MIN},
        {"-9.223372036854775808e18", 1, INT64_MIN},
        {"-92233720368547758080e-1", 1, INT64_MIN},
        {"-0.9223372036854775808E19", 1, INT64_MIN},
        {"-9223372036854775809.0", 0, 0},
        {"-9223372036854775809e0", 0, 0},
        {"-9.223372036854775809e18", 0, 0},
        {"-922337203685477580.9e1", 0, 0},
        {"-9223372036854775808.5", 0, 0},        /* not whole, rounds to -2^63 */
        {"-9223372036854775807.5", 0, 0},
        {"-9223372036854775808.000000000000000000001", 0, 0},
        {"-1e19", 0, 0},
        {"-18446744073709551616", 0, 0},
        /* the high end */
        {"9223372036854775807", 1, INT64_MAX},
        {"9223372036854775806", 1, INT64_MAX - 1},
        {"9223372036854775808", 0, 0},           /* one above INT64_MAX, 2^63 */
        {"9223372036854775807e0", 0, 0},         /* the double is 2^63, outside int64 */
        {"9223372036854775807.0", 0, 0},
        {"9.223372036854775807e18", 0, 0},
        {"9223372036854775808.0", 0, 0},
        {"9.223372036854775808e18", 0, 0},
        {"9223372036854774784", 1, 9223372036854774784},     /* the last double below 2^63 */
        {"9223372036854774784.0", 1, 9223372036854774784},
        {"9.223372036854774784e18", 1, 9223372036854774784},
        {"9223372036854774785.0", 0, 0},         /* rounds to the one above */
        {"1e19", 0, 0},
        {"1E19", 0, 0},
        {"1e18", 1, 1000000000000000000},
        /* zero and small whole doubles */
        {"-0", 1, 0},
        {"0", 1, 0},
        {"-0.0", 1, 0},
        {"-0e0", 1, 0},
        {"-0E-5", 1, 0},
        {"0e400", 1, 0},
        {"2.0", 1, 2},
        {"-2.5e0", 0, 0},
        /* 2^53 + 1: an exact integer as a literal, rounded to 2^53 as a double */
        {"9007199254740993", 1, 9007199254740993},
        {"9007199254740993e0", 0, 0},
        {"9007199254740993.0", 0, 0},
        {"9007199254740992.0", 1, 9007199254740992},
        /* below 2^53: a literal that is not whole but rounds to a whole double */
        {"1e-400", 0, 0},                        /* rounds to 0, but is not 0 */
        {"-1e-400", 0, 0},
        {"1.00000000000000000001", 0, 0},        /* rounds to 1 */
        {"0.99999999999999999999", 0, 0},
        {"2.0000000000000001", 0, 0},
        {"4503599627370496.5", 0, 0},            /* 2^52 + 0.5: ties to even, 2^52 */
        {"4503599627370497.5", 0, 0},            /* ties to even, 2^52 + 2 */
    };
    size_t i;
    for (i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        const char *t = cases[i].text;
        mcp_json_doc *d = parse_s(t, NULL);
        const mcp_json *v = mcp_json_root(d);
        double want_d = strtod(t, NULL);
        int64_t got = 7;
        int r = mcp_json_int64(v, &got);
        char *back;
        CHECKF(d != NULL, "%s was not parsed", t);
        if (!d) continue;
        CHECKF(r == cases[i].exact, "mcp_json_int64(%s) = %d, should be %d", t, r, cases[i].exact);
        CHECKF(got == (cases[i].exact ? cases[i].want : 7), "mcp_json_int64(%s) set %lld, should %s %lld", t,
               (long long)got, cases[i].exact ? "set" : "leave", (long long)(cases[i].exact ? cases[i].want : 7));
        CHECKF(mcp_json_int64(v, NULL) == cases[i].exact, "mcp_json_int64(%s, NULL) differs", t);
        /* the double: the literal's, bit for bit where the literal is not an integer ("-0" is
           the integer 0, whose double is +0) */
        if (strpbrk(t, ".eE"))
            CHECKF(dbits(mcp_json_num(v)) == dbits(want_d), "mcp_json_num(%s) = %.17g, strtod gives %.17g", t,
                   mcp_json_num(v), want_d);
        else
            CHECKF(mcp_json_num(v) == want_d, "mcp_json_num(%s) = %.17g, strtod gives %.17g", t, mcp_json_num(v), want_d);
        /* written back: an integer only when exact and an integer literal */
        back = mcp_json_dump(v, 0, NULL);
        if (cases[i].exact && !strpbrk(t, ".eE")) {
            char want_t[32];
            snprintf(want_t, sizeof want_t, "%lld", (long long)cases[i].want);
            CHECKF(back && strcmp(back, want_t) == 0, "%s is written back as %s", t, back ? back : "NULL");
        } else
            CHECKF(back && strpbrk(back, ".e") && strtod(back, NULL) == want_d, "%s is written back as %s", t,
                   back ? back : "NULL");
        mcp_free(back);
        mcp_json_free(d);
    }
}

TEST_CASE(number_sample)
{
    char s[128];
    unsigned long n = quick ? 20000 : 1000000, i, nh = quick ? 300 : 6000;
    double t0 = now_s();
    n_total = n_bad = n_refused = n_bad_refuse = n_written = n_bad_write = 0;
    n_short_tested = n_not_shortest = 0;
    mcp_jw_init(&nb_w, 0);
    for (i = 0; i < n; i++) {
        switch (i % 5) {
        case 0: case 1: gen_from_bits(s); break;
        case 2: case 3: gen_digits(s); break;
        default: gen_boundary(s); break;
        }
        num_case(s);
    }
    num_flush();
    mcp_jw_free(&nb_w);
    CHECKF(n_bad == 0, "%lu of %lu numbers differ from strtod", n_bad, n_total);
    CHECKF(n_bad_refuse == 0, "%lu of %lu overflowing numbers were not refused", n_bad_refuse, n_refused);
    CHECKF(n_bad_write == 0, "%lu of %lu written doubles do not read back", n_bad_write, n_written);
    /* Grisu2 misses the shortest form when it lies on the rounding boundary (about 0.2%) */
    CHECKF(n_not_shortest * 100 <= n_short_tested, "%lu of %lu written doubles are not in the shortest form",
           n_not_shortest, n_short_tested);
    CHECKF(n_total + n_refused == n, "%lu numbers checked, want %lu", n_total + n_refused, n);
    CHECKF(n_refused > n / 100, "only %lu overflowing numbers in the sample", n_refused);
    /* halfway points */
    hw_total = hw_bad = 0;
    {
        halfway_case(0.0);
        halfway_case(DBL_MIN);
        halfway_case(1.0);
        halfway_case(nextafter(DBL_MAX, 0));
        halfway_case(9007199254740992.0);
        for (i = 0; i < nh; i++) {
            double d = fabs(rnd_double());
            if (i % 4 == 0) d = bitsd(rnd() & 0x001FFFFFFFFFFFFFu);   /* subnormal or tiny */
            halfway_case(d);
        }
        CHECKF(hw_bad == 0, "%lu of %lu halfway cases rounded wrongly", hw_bad, hw_total);
        CHECK(hw_total == 3 * (5 + nh));
    }
    printf("numbers: %lu read like strtod, %lu overflowing refused, %lu written and read back, "
           "%lu halfway cases (%.1f s)\n", n_total, n_refused, n_written, hw_total, now_s() - t0);
    printf("writer: %lu of %lu sampled doubles are longer than the shortest form\n",
           n_not_shortest, n_short_tested);
}

/* ---- 5. locale independence -------------------------------------------------------------------- */

/* The first comma-decimal locale setlocale accepts, or NULL. */
static const char *comma_locale(void)
{
    static const char *const names[] = {"de_DE.UTF-8", "de_DE.utf8", "de_DE", "de_DE.ISO-8859-1",
                                        "fr_FR.UTF-8", "fr_FR.utf8", "nl_NL.UTF-8", "ru_RU.UTF-8"};
    size_t i;
    for (i = 0; i < sizeof names / sizeof names[0]; i++)
        if (setlocale(LC_ALL, names[i]) && strcmp(localeconv()->decimal_point, ",") == 0) return names[i];
    return NULL;
}

/* 1 if an executable NAME is in a directory of PATH (as execvp would find it). */
static int on_path(const char *name)
{
    const char *p = getenv("PATH"), *e;
    char f[PATH_MAX];
    if (!p) p = "/bin:/usr/bin";
    for (;; p = e + 1) {
        size_t n;
        e = strchr(p, ':');
        if (!e) e = p + strlen(p);
        n = (size_t)(e - p);
        snprintf(f, sizeof f, "%.*s/%s", n ? (int)n : 1, n ? p : ".", name);
        if (access(f, X_OK) == 0) return 1;
        if (!*e) return 0;
    }
}

/* Runs argv[0] (looked up on PATH) with stdout and stderr appended to log; its exit status,
   127 if it could not be started, -1 if it died of a signal or could not be forked. */
static int run_logged(char *const argv[], const char *log)
{
    pid_t pid;
    int st;
    fflush(NULL);
    pid = fork();
    if (pid < 0) return -1;
    if (pid == 0) {
        int fd = open(log, O_WRONLY | O_CREAT | O_APPEND, 0644);
        if (fd >= 0) { dup2(fd, 1); dup2(fd, 2); close(fd); }
        execvp(argv[0], argv);
        _exit(127);
    }
    while (waitpid(pid, &st, 0) < 0)
        if (errno != EINTR) return -1;
    return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

static int exists(const char *path) { struct stat st; return stat(path, &st) == 0; }

/* snprintf into a path buffer; 0 (and a message in why) if it did not fit. */
static int pathf(char *buf, size_t cap, char *why, size_t whycap, const char *fmt, ...)
{
    va_list ap;
    int n;
    va_start(ap, fmt);
    n = vsnprintf(buf, cap, fmt, ap);
    va_end(ap);
    if (n >= 0 && (size_t)n < cap) return 1;
    snprintf(why, whycap, "a path is longer than %zu bytes", cap - 1);
    return 0;
}

/* No comma-decimal locale is installed: de_DE.UTF-8 is built, without root, with
     localedef -c -i de_DE -f UTF-8 DIR/de_DE.UTF-8
   where DIR is $BUILD/locale (make test's build folder), else the folder of this program plus
   /locale, and used through LOCPATH (glibc reads it at every setlocale; a LOCPATH also hides
   the system's locale-archive, not its locale folders). A locale built by an earlier run is
   used again (*reused = 1), as is one another test program built meanwhile (*reused = 2: make test
   runs several at once, and test_novector.sh runs test_json too). Needs localedef (libc-bin) and the locale sources in /usr/share/i18n (Debian's
   package "locales"); without either, *skip says why and NULL is returned. NULL without *skip
   means building failed although it could be done: why says how. */
static const char *built_locale(char *dir, size_t cap, int *reused, const char **skip, char *why, size_t whycap)
{
    const char *b = getenv("BUILD"), *slash = strrchr(progname, '/');
    char base[PATH_MAX], cwd[PATH_MAX], out[PATH_MAX], tmp[PATH_MAX], log[PATH_MAX], probe[PATH_MAX];
    char made[PATH_MAX];
    char *rm_argv[4], *ld_argv[8];
    int rc, tried = 0, ok;
    FILE *f;

    *skip = NULL;
    *reused = 0;
    why[0] = 0;
    if (b && *b) ok = pathf(base, sizeof base, why, whycap, "%s/locale", b);
    else if (slash) ok = pathf(base, sizeof base, why, whycap, "%.*s/locale", slash == progname ? 1 : (int)(slash - progname), progname);
    else ok = pathf(base, sizeof base, why, whycap, "locale");
    if (!ok) return NULL;
    if (mkdir(base, 0755) != 0 && errno != EEXIST) {
        snprintf(why, whycap, "cannot make the folder %s: %s", base, strerror(errno));
        return NULL;
    }
    if (base[0] == '/') ok = pathf(dir, cap, why, whycap, "%s", base);
    else if (getcwd(cwd, sizeof cwd)) ok = pathf(dir, cap, why, whycap, "%s/%s", cwd, base);
    else { snprintf(why, whycap, "getcwd: %s", strerror(errno)); return NULL; }
    if (!ok || !pathf(out, sizeof out, why, whycap, "%s/de_DE.UTF-8", dir) ||
        !pathf(tmp, sizeof tmp, why, whycap, "%s.new.%ld", out, (long)getpid()) ||   /* this run's own */
        !pathf(log, sizeof log, why, whycap, "%s/localedef.%ld.log", dir, (long)getpid()) ||
        !pathf(probe, sizeof probe, why, whycap, "%s/LC_NUMERIC", out)) return NULL;
    memcpy(made, probe, sizeof made);
    if (exists(probe)) {                                   /* built by an earlier run */
        setenv("LOCPATH", dir, 1);
        tried = 1;
        if (setlocale(LC_ALL, "de_DE.UTF-8") && strcmp(localeconv()->decimal_point, ",") == 0) {
            *reused = 1;
            return "de_DE.UTF-8";
        }
    }
    if (!on_path("localedef")) { *skip = "no localedef on PATH (glibc's libc-bin package has it)"; return NULL; }
    if (!exists("/usr/share/i18n/locales/de_DE") && !getenv("I18NPATH")) {
        *skip = "localedef has no locale sources (no /usr/share/i18n/locales/de_DE: Debian's package "
                "\"locales\" is not installed)";
        return NULL;
    }
    if ((f = fopen(log, "w")) != NULL) fclose(f);
    rm_argv[0] = (char *)"rm"; rm_argv[1] = (char *)"-rf"; rm_argv[2] = tmp; rm_argv[3] = NULL;
    run_logged(rm_argv, log);
    ld_argv[0] = (char *)"localedef"; ld_argv[1] = (char *)"-c"; ld_argv[2] = (char *)"-i";
    ld_argv[3] = (char *)"de_DE"; ld_argv[4] = (char *)"-f"; ld_argv[5] = (char *)"UTF-8";
    ld_argv[6] = tmp; ld_argv[7] = NULL;
    rc = run_logged(ld_argv, log);                          /* 1: written, with warnings */
    if (!pathf(probe, sizeof probe, why, whycap, "%s/LC_NUMERIC", tmp)) return NULL;
    if ((rc != 0 && rc != 1) || !exists(probe)) {
        snprintf(why, whycap, "localedef -c -i de_DE -f UTF-8 DIR/de_DE.UTF-8.new.%ld failed (exit status %d); "
                 "its output is in DIR/localedef.%ld.log, DIR = %.*s", (long)getpid(), rc, (long)getpid(),
                 (int)(whycap > 200 ? whycap - 200 : 0), dir);
        return NULL;
    }
    if (tried) {                                            /* an unusable one of an earlier run */
        rm_argv[2] = out;
        run_logged(rm_argv, log);
        rm_argv[2] = tmp;
    }
    if (rename(tmp, out) != 0) {
        if ((errno != ENOTEMPTY && errno != EEXIST) || !exists(made)) {
            snprintf(why, whycap, "rename DIR/de_DE.UTF-8.new.%ld to DIR/de_DE.UTF-8: %s, DIR = %.*s", (long)getpid(),
                     strerror(errno), (int)(whycap > 200 ? whycap - 200 : 0), dir);
            return NULL;
        }
        run_logged(rm_argv, log);                           /* another program's came first: that one */
        *reused = 2;
    }
    remove(log);
    /* glibc remembers a failed lookup by the folder's name: after a rebuild, name it anew */
    if (!pathf(probe, sizeof probe, why, whycap, tried ? "%s/." : "%s", dir)) return NULL;
    setenv("LOCPATH", probe, 1);
    if (setlocale(LC_ALL, "de_DE.UTF-8") && strcmp(localeconv()->decimal_point, ",") == 0) return "de_DE.UTF-8";
    snprintf(why, whycap, "localedef built DIR/de_DE.UTF-8, but with LOCPATH=DIR setlocale(LC_ALL, \"de_DE.UTF-8\") "
             "gives no decimal comma; DIR = %.*s", (int)(whycap > 200 ? whycap - 200 : 0), dir);
    return NULL;
}

TEST_CASE(locale)
{
    const char *got, *skip = NULL, *old = getenv("LOCPATH");
    char dir[PATH_MAX], why[PATH_MAX + 200], *saved = old ? strdup(old) : NULL;
    int reused;
    size_t i;
    got = comma_locale();
    if (!got) {
        got = built_locale(dir, sizeof dir, &reused, &skip, why, sizeof why);
        if (got) printf("locale: no comma-decimal locale is installed; %s %s in %s (LOCPATH)\n", got,
                        reused == 1 ? "built with localedef by an earlier run" :
                        reused ? "built with localedef by another test program" : "built with localedef", dir);
        else if (skip) SKIP("locale independence: no comma-decimal locale is installed and none can be built: %s", skip);
        else CHECKF(0, "no comma-decimal locale is installed, and building de_DE.UTF-8 failed: %s", why);
    }
    if (got) {
        static const char *const nums[] = {"1.5", "2.25e3", "0.1", "-7.125", "1e23", "2.4703282292062328e-324",
            "1.7976931348623157e308", "0.30000000000000004", "4503599627370497.5", "123456789012345678901234567890.5"};
        mcp_json_doc *d;
        const mcp_json *r;
        char buf[64], *t;
        CHECKF(strtod("1,5", NULL) == 1.5, "the %s locale is not in effect for strtod", got);
        d = parse_s("[1.5, 2.25e3, 0.1]", NULL);
        r = mcp_json_root(d);
        CHECKF(d && mcp_json_len(r) == 3, "under %s \"[1.5, 2.25e3, 0.1]\" was not parsed", got);
        CHECK(dbits(mcp_json_num(mcp_json_at(r, 0))) == dbits(1.5));
        CHECK(dbits(mcp_json_num(mcp_json_at(r, 1))) == dbits(2250.0));
        CHECK(dbits(mcp_json_num(mcp_json_at(r, 2))) == dbits(0.1));
        t = mcp_json_dump(r, 0, NULL);
        CHECKF(t && strcmp(t, "[1.5,2250.0,0.1]") == 0, "under %s the dump is %s", got, t ? t : "NULL");
        mcp_free(t);
        t = mcp_json_dump(r, 1, NULL);
        CHECKF(t && strcmp(t, "[\n  1.5,\n  2250.0,\n  0.1\n]") == 0, "under %s the pretty dump is %s", got, t ? t : "NULL");
        mcp_free(t);
        mcp_json_free(d);
        /* numbers on every conversion path; the bits were fixed in the C locale above */
        for (i = 0; i < sizeof nums / sizeof nums[0]; i++) {
            uint64_t b = 0, want;
            int h;
            int64_t i64;
            const char *w;
            setlocale(LC_NUMERIC, "C");
            want = dbits(strtod(nums[i], NULL));
            setlocale(LC_NUMERIC, got);
            CHECKF(num_parse(nums[i], strlen(nums[i]), &b, &h, &i64) == MCP_OK && b == want,
                   "under %s %s reads as %.17g", got, nums[i], bitsd(b));
            w = write_num(bitsd(want), buf, sizeof buf);
            CHECKF(w && !strchr(w, ',') && strpbrk(w, ".e"), "under %s %.17g is written as %s", got,
                   bitsd(want), w ? w : "NULL");
            CHECKF(w && num_parse(w, strlen(w), &b, &h, &i64) == MCP_OK && b == want,
                   "under %s the written %s does not read back", got, w ? w : "NULL");
        }
        printf("locale: %s (decimal point \"%s\") does not change numbers\n", got, localeconv()->decimal_point);
    }
    setlocale(LC_ALL, "C");
    CHECK(strcmp(localeconv()->decimal_point, ".") == 0);
    if (saved) setenv("LOCPATH", saved, 1);
    else unsetenv("LOCPATH");
    free(saved);
}

/* ---- 6. limits --------------------------------------------------------------------------------- */

/* n levels: "[[[...]]]" or {"a":{"a":...1}} (with_close: the closers too) */
static char *nested(size_t n, int obj, int with_close, size_t *len)
{
    size_t per = obj ? 5 : 1, o = 0, i;
    char *b = (char *)malloc(n * (per + 1) + 4);
    if (!b) { perror("malloc"); exit(2); }
    for (i = 0; i < n; i++) {
        if (obj) { memcpy(b + o, "{\"a\":", 5); o += 5; }
        else b[o++] = '[';
    }
    if (obj) b[o++] = '1';
    if (with_close)
        for (i = 0; i < n; i++) b[o++] = obj ? '}' : ']';
    b[o] = 0;
    *len = o;
    return b;
}

static int depth_outcome(size_t n, int obj, int with_close, size_t max_depth, mcp_error *err)
{
    size_t len;
    char *b = nested(n, obj, with_close, &len);
    mcp_json_opts o;
    mcp_json_doc *d;
    memset(&o, 0, sizeof o);
    o.max_depth = max_depth;
    d = mcp_json_parse_ex(b, len, &o, err);
    free(b);
    mcp_json_free(d);
    return d != NULL;
}

TEST_CASE(limits)
{
    mcp_error err;
    mcp_json_opts o;
    char msg[200];
    size_t len, i, deep = quick ? 100000 : 1000000;
    int obj;
    char *b, *t;
    mcp_json_doc *d, *d2;

    for (obj = 0; obj < 2; obj++) {
        CHECKF(depth_outcome(512, obj, 1, 0, &err), "%s 512 deep: %s", obj ? "objects" : "arrays", err.message);
        CHECK(err.status == MCP_OK);
        CHECKF(!depth_outcome(513, obj, 1, 0, &err) && err.status == MCP_ERR_LIMIT,
               "%s 513 deep: not refused with MCP_ERR_LIMIT", obj ? "objects" : "arrays");
        snprintf(msg, sizeof msg, "JSON parse error at line 1, column %d (byte %d): nesting is deeper than the limit of 512 levels",
                 obj ? 512 * 5 + 1 : 513, obj ? 512 * 5 : 512);
        CHECKF(strcmp(err.message, msg) == 0, "message: %s", err.message);
        /* a million levels, open only and closed too: refused, no stack overflow */
        CHECK(!depth_outcome(1000000, obj, 0, 0, &err) && err.status == MCP_ERR_LIMIT);
        CHECK(!depth_outcome(1000000, obj, 1, 0, &err) && err.status == MCP_ERR_LIMIT);
        /* per call */
        CHECK(depth_outcome(3, obj, 1, 3, &err));
        CHECK(!depth_outcome(4, obj, 1, 3, &err) && err.status == MCP_ERR_LIMIT &&
              strstr(err.message, "nesting is deeper than the limit of 3 levels") != NULL);
        CHECK(depth_outcome(1000, obj, 1, 2000, &err));
        CHECK(depth_outcome(2000, obj, 1, 2000, &err));
        CHECK(!depth_outcome(2001, obj, 1, 2000, &err) && err.status == MCP_ERR_LIMIT);
        CHECK(depth_outcome(1, obj, 1, 1, &err));
        CHECK(!depth_outcome(2, obj, 1, 1, &err) && err.status == MCP_ERR_LIMIT);
    }
    /* depth counts nesting, not containers: many siblings at depth 2 */
    memset(&o, 0, sizeof o);
    o.max_depth = 2;
    d = mcp_json_parse_ex("[[],[1],{},{\"a\":2},[[]]]", 24, &o, &err);
    CHECK(d == NULL && err.status == MCP_ERR_LIMIT);
    d = mcp_json_parse_ex("[[],[1],{},{\"a\":2},[3]]", 23, &o, &err);
    CHECK(d != NULL && mcp_json_len(mcp_json_root(d)) == 5);
    mcp_json_free(d);
    o.max_depth = 0;   /* 0: the default */
    CHECK(depth_outcome(512, 0, 1, 0, &err) && !depth_outcome(513, 0, 1, 0, &err));

    /* a million (quick: 100000) levels with max_depth 2000000: parse, dump, compare */
    for (obj = 0; obj < 2; obj++) {
        const mcp_json *v;
        size_t levels = 0;
        b = nested(deep, obj, 1, &len);
        memset(&o, 0, sizeof o);
        o.max_depth = 2000000;
        d = mcp_json_parse_ex(b, len, &o, &err);
        CHECKF(d != NULL, "%lu levels with max_depth 2000000: %s", (unsigned long)deep, err.message);
        for (v = mcp_json_root(d); v && mcp_json_typeof(v) != MCP_JSON_NUMBER && mcp_json_len(v) == 1; v = mcp_json_at(v, 0))
            levels++;
        /* objects: deep levels down to the 1; arrays: deep - 1 levels down to the innermost [] */
        CHECKF(obj ? levels == deep && mcp_json_num(v) == 1
                   : levels == deep - 1 && mcp_json_typeof(v) == MCP_JSON_ARRAY && mcp_json_len(v) == 0,
               "walked %lu levels of %lu", (unsigned long)levels, (unsigned long)deep);
        t = mcp_json_dump(mcp_json_root(d), 0, &i);
        CHECKF(t && i == len && memcmp(t, b, len) == 0, "the deep document does not dump as itself");
        d2 = t ? mcp_json_parse_ex(t, i, &o, &err) : NULL;
        CHECK(d2 && mcp_json_equal(mcp_json_root(d), mcp_json_root(d2)));
        mcp_json_free(d2);
        mcp_free(t);
        mcp_json_free(d);
        free(b);
    }

    /* max_size */
    memset(&o, 0, sizeof o);
    o.max_size = 10;
    d = mcp_json_parse_ex("[1,2,3,45]", 10, &o, &err);
    CHECK(d != NULL && err.status == MCP_OK);
    mcp_json_free(d);
    d = mcp_json_parse_ex("[1,2,3,456]", 11, &o, &err);
    CHECK(d == NULL && err.status == MCP_ERR_LIMIT);
    CHECKF(strcmp(err.message, "The JSON text is 11 bytes, over the limit of 10 bytes (raise mcp_json_opts.max_size).") == 0,
           "message: %s", err.message);
    d = mcp_json_parse_ex("                    1", 21, &o, &err);   /* whitespace counts too */
    CHECK(d == NULL && err.status == MCP_ERR_LIMIT);
    o.max_size = 1 << 20;
    d = mcp_json_parse_ex("[1,2,3,456]", 11, &o, &err);
    CHECK(d != NULL);
    mcp_json_free(d);
    /* the default, 128 MiB: the length is checked before any byte is read */
    b = (char *)malloc(((size_t)128 << 20) + 1);
    if (b) {
        d = mcp_json_parse(b, ((size_t)128 << 20) + 1, &err);
        CHECK(d == NULL && err.status == MCP_ERR_LIMIT &&
              strstr(err.message, "134217729 bytes, over the limit of 134217728 bytes") != NULL);
        mcp_json_free(d);
        free(b);
    }
    /* NULL text */
    d = mcp_json_parse(NULL, 5, &err);
    CHECK(d == NULL && err.status == MCP_ERR_INVALID &&
          strcmp(err.message, "mcp_json_parse was given a NULL text of 5 bytes.") == 0);
}

/* ---- 7. error messages ------------------------------------------------------------------------- */

TEST_CASE(errors)
{
    mcp_error err;
    mcp_json_doc *d;
    const char *three = "{\"name\": \"example\",\n \"version\": \"1.0\",\n  \"on\": true \"x\": 1}";

    CHECK(strchr(three, '"') && three[52] == '"');
    EXPECT_ERROR(three, MCP_ERR_PARSE,
                 "JSON parse error at line 3, column 14 (byte 52): expected ',' or '}', found '\"'");
    EXPECT_ERROR("", MCP_ERR_PARSE, "JSON parse error at line 1, column 1 (byte 0): expected a value but the input ended");
    EXPECT_ERROR(" \n\t ", MCP_ERR_PARSE, "JSON parse error at line 2, column 3 (byte 4): expected a value but the input ended");
    EXPECT_ERROR("[1] x", MCP_ERR_PARSE, "JSON parse error at line 1, column 5 (byte 4): unexpected data after the JSON value");
    EXPECT_ERROR("{}{}", MCP_ERR_PARSE, "JSON parse error at line 1, column 3 (byte 2): unexpected data after the JSON value");
    EXPECT_ERROR("1 2", MCP_ERR_PARSE, "JSON parse error at line 1, column 3 (byte 2): unexpected data after the JSON value");
    EXPECT_ERROR("\xEF\xBB\xBF{}", MCP_ERR_PARSE,
                 "JSON parse error at line 1, column 1 (byte 0): a byte order mark is not allowed before JSON text");
    EXPECT_ERROR("[01]", MCP_ERR_PARSE, "JSON parse error at line 1, column 2 (byte 1): numbers must not have leading zeros");
    EXPECT_ERROR("-012", MCP_ERR_PARSE, "JSON parse error at line 1, column 1 (byte 0): numbers must not have leading zeros");
    EXPECT_ERROR("[\"a\\x\"]", MCP_ERR_PARSE, "JSON parse error at line 1, column 4 (byte 3): invalid escape '\\x' in a string");
    EXPECT_ERROR("[\"\\\x01\"]", MCP_ERR_PARSE,
                 "JSON parse error at line 1, column 3 (byte 2): invalid escape (backslash before byte 0x01) in a string");
    EXPECT_ERROR("[\"abc", MCP_ERR_PARSE, "JSON parse error at line 1, column 2 (byte 1): unterminated string");
    EXPECT_ERROR("[\"abc\\", MCP_ERR_PARSE, "JSON parse error at line 1, column 2 (byte 1): unterminated string");
    EXPECT_ERROR("[\"a\tb\"]", MCP_ERR_PARSE,
                 "JSON parse error at line 1, column 4 (byte 3): control character U+0009 must be escaped in a string");
    EXPECT_ERROR("[\"\xC3(\"]", MCP_ERR_PARSE, "JSON parse error at line 1, column 3 (byte 2): invalid UTF-8 (byte 0xC3) in a string");
    EXPECT_ERROR("[\"\xC3\xA9\xE2\x82\xAC\xF0\x9F\x98\x80\", x]", MCP_ERR_PARSE,   /* columns count characters */
                 "JSON parse error at line 1, column 9 (byte 14): expected a value, found 'x'");
    EXPECT_ERROR("[1,]", MCP_ERR_PARSE, "JSON parse error at line 1, column 4 (byte 3): expected a value, found ']'");
    EXPECT_ERROR("{\"a\" 1}", MCP_ERR_PARSE, "JSON parse error at line 1, column 6 (byte 5): expected ':' after the key, found '1'");
    EXPECT_ERROR("{1:2}", MCP_ERR_PARSE, "JSON parse error at line 1, column 2 (byte 1): expected a string key, found '1'");
    EXPECT_ERROR("{\"a\":1,}", MCP_ERR_PARSE, "JSON parse error at line 1, column 8 (byte 7): expected a string key, found '}'");
    EXPECT_ERROR("[1 2]", MCP_ERR_PARSE, "JSON parse error at line 1, column 4 (byte 3): expected ',' or ']', found '2'");
    EXPECT_ERROR("[1", MCP_ERR_PARSE, "JSON parse error at line 1, column 3 (byte 2): expected ',' or ']' but the input ended");
    EXPECT_ERROR("{\"a\":1", MCP_ERR_PARSE, "JSON parse error at line 1, column 7 (byte 6): expected ',' or '}' but the input ended");
    EXPECT_ERROR("[\x01]", MCP_ERR_PARSE, "JSON parse error at line 1, column 2 (byte 1): expected a value, found byte 0x01");
    EXPECT_ERROR("[1 \xC3\xA9]", MCP_ERR_PARSE, "JSON parse error at line 1, column 4 (byte 3): expected ',' or ']', found byte 0xC3");
    EXPECT_ERROR("[1 ]]", MCP_ERR_PARSE, "JSON parse error at line 1, column 5 (byte 4): unexpected data after the JSON value");
    EXPECT_ERROR("tru", MCP_ERR_PARSE, "JSON parse error at line 1, column 1 (byte 0): expected a value, found 't'");
    EXPECT_ERROR("-", MCP_ERR_PARSE, "JSON parse error at line 1, column 2 (byte 1): expected a digit after '-' but the input ended");
    EXPECT_ERROR("[-x]", MCP_ERR_PARSE, "JSON parse error at line 1, column 3 (byte 2): expected a digit after '-', found 'x'");
    EXPECT_ERROR("1.", MCP_ERR_PARSE, "JSON parse error at line 1, column 3 (byte 2): expected a digit after the decimal point but the input ended");
    EXPECT_ERROR("1e", MCP_ERR_PARSE, "JSON parse error at line 1, column 3 (byte 2): expected a digit in the exponent but the input ended");
    EXPECT_ERROR("1e+x", MCP_ERR_PARSE, "JSON parse error at line 1, column 4 (byte 3): expected a digit in the exponent, found 'x'");
    EXPECT_ERROR("[\"\\uD800\"]", MCP_ERR_PARSE,
                 "JSON parse error at line 1, column 3 (byte 2): high surrogate \\uD800 is not followed by a low surrogate");
    EXPECT_ERROR("[\"\\uDC00\"]", MCP_ERR_PARSE, "JSON parse error at line 1, column 3 (byte 2): lone low surrogate \\uDC00 in a string");
    EXPECT_ERROR("[\"\\u12\"]", MCP_ERR_PARSE, "JSON parse error at line 1, column 3 (byte 2): a \\u escape needs four hex digits");
    EXPECT_ERROR("[1e400]", MCP_ERR_PARSE, "JSON parse error at line 1, column 2 (byte 1): the number 1e400 is too large for a double");
    EXPECT_ERROR("[12345678901234567890123456789012345678901234567890e300]", MCP_ERR_PARSE,
                 "JSON parse error at line 1, column 2 (byte 1): the number 1234567890123456789012345678901234567890... is too large for a double");
    EXPECT_ERROR("[\r\n1\r\nx]", MCP_ERR_PARSE, "JSON parse error at line 3, column 1 (byte 6): expected ',' or ']', found 'x'");
    EXPECT_ERROR("[\n\n\n", MCP_ERR_PARSE, "JSON parse error at line 4, column 1 (byte 4): expected a value but the input ended");
    CHECK(expect_error_n("[1]\0", 4, NULL, MCP_ERR_PARSE,
                         "JSON parse error at line 1, column 4 (byte 3): unexpected data after the JSON value"));

    /* the other fields are cleared; success clears the message; a NULL err is accepted */
    memset(&err, 0x5A, sizeof err);
    d = mcp_json_parse("[", 1, &err);
    CHECK(d == NULL && err.status == MCP_ERR_PARSE && err.http_status == 0 && err.rpc_code == 0 && err.sys_errno == 0);
    memset(&err, 0x5A, sizeof err);
    d = mcp_json_parse("[1]", 3, &err);
    CHECK(d != NULL && err.status == MCP_OK && err.message[0] == 0);
    mcp_json_free(d);
    CHECK(mcp_json_parse("[", 1, NULL) == NULL);
    CHECK(mcp_json_parse("\xEF\xBB\xBF", 3, NULL) == NULL);
    CHECK(mcp_json_parse(NULL, 3, NULL) == NULL);
    d = mcp_json_parse("{\"a\":[1]}", 9, NULL);
    CHECK(d != NULL);
    mcp_json_free(d);
    {
        mcp_json_opts o;
        memset(&o, 0, sizeof o);
        o.max_depth = 1;
        CHECK(mcp_json_parse_ex("[[1]]", 5, &o, NULL) == NULL);
        d = mcp_json_parse_ex("[1]", 3, NULL, NULL);   /* NULL opts: the defaults */
        CHECK(d != NULL);
        mcp_json_free(d);
    }
}

/* ---- 8. accessors and conventions -------------------------------------------------------------- */

TEST_CASE(accessors)
{
    const char *text = "{\"a\":{\"b\":[10,\"x\",true,false,null,2.5,{}]},\"s\":\"str\",\"n\":-3,"
                       "\"dup\":1,\"e\":[],\"dup\":2,\"\":\"empty\",\"ab\":\"AB\",\"dup\":3}";
    mcp_json_doc *d = parse_s(text, NULL);
    const mcp_json *r = mcp_json_root(d), *a, *b, *v, *item;
    size_t kl = 99, i;
    int64_t i64 = 0;
    double sum = 0;
    char keys[64];
    size_t ko = 0;

    CHECK(d != NULL && mcp_json_typeof(r) == MCP_JSON_OBJECT && mcp_json_len(r) == 9);
    /* NULL everywhere */
    CHECK(mcp_json_typeof(NULL) == MCP_JSON_NULL);
    CHECK(mcp_json_len(NULL) == 0);
    CHECK(mcp_json_get(NULL, "a") == NULL && mcp_json_get(r, NULL) == NULL);
    CHECK(mcp_json_getn(NULL, "a", 1) == NULL && mcp_json_getn(r, NULL, 0) == NULL);
    CHECK(mcp_json_at(NULL, 0) == NULL);
    CHECK(mcp_json_key_at(NULL, 0, &kl) == NULL && kl == 0);
    CHECK(mcp_json_key_at(NULL, 0, NULL) == NULL);
    CHECK(mcp_json_str(NULL) == NULL && mcp_json_num(NULL) == 0 && mcp_json_is_true(NULL) == 0);
    CHECK(mcp_json_int64(NULL, &i64) == 0);
    CHECK(mcp_json_root(NULL) == NULL);
    CHECK(mcp_json_equal(NULL, NULL) == 1 && mcp_json_equal(NULL, r) == 0 && mcp_json_equal(r, NULL) == 0);
    mcp_json_free(NULL);
    {
        size_t l = 0;
        char *t = mcp_json_dump(NULL, 0, &l);
        CHECKF(t && strcmp(t, "null") == 0 && l == 4, "mcp_json_dump(NULL) = %s", t ? t : "NULL");
        mcp_free(t);
        mcp_free(NULL);
    }
    /* chains */
    a = mcp_json_get(r, "a");
    b = mcp_json_get(a, "b");
    CHECK(mcp_json_typeof(b) == MCP_JSON_ARRAY && mcp_json_len(b) == 7);
    CHECK(mcp_json_get(mcp_json_get(r, "zz"), "b") == NULL);
    CHECK(mcp_json_at(mcp_json_get(mcp_json_get(r, "zz"), "b"), 0) == NULL);
    CHECK(mcp_json_str(mcp_json_get(mcp_json_get(mcp_json_get(r, "a"), "b"), "c")) == NULL);
    CHECK(mcp_json_num(mcp_json_at(mcp_json_get(mcp_json_get(r, "a"), "b"), 0)) == 10);
    /* wrong types */
    CHECK(mcp_json_get(b, "0") == NULL);                  /* get on an array */
    CHECK(mcp_json_get(mcp_json_get(r, "s"), "s") == NULL);
    CHECK(mcp_json_at(mcp_json_get(r, "s"), 0) == NULL);  /* at on a string */
    CHECK(mcp_json_at(mcp_json_get(r, "n"), 0) == NULL);
    kl = 99;
    CHECK(mcp_json_key_at(b, 0, &kl) == NULL && kl == 0); /* key_at on an array */
    CHECK(mcp_json_str(mcp_json_get(r, "n")) == NULL);
    CHECK(mcp_json_num(mcp_json_get(r, "s")) == 0);
    CHECK(mcp_json_len(mcp_json_get(r, "n")) == 0 && mcp_json_len(mcp_json_at(b, 2)) == 0 &&
          mcp_json_len(mcp_json_at(b, 4)) == 0);
    CHECK(mcp_json_is_true(mcp_json_at(b, 2)) == 1 && mcp_json_is_true(mcp_json_at(b, 3)) == 0);
    CHECK(mcp_json_is_true(mcp_json_at(b, 0)) == 0 && mcp_json_is_true(mcp_json_get(r, "s")) == 0);
    CHECK(mcp_json_typeof(mcp_json_at(b, 0)) == MCP_JSON_NUMBER && mcp_json_typeof(mcp_json_at(b, 1)) == MCP_JSON_STRING &&
          mcp_json_typeof(mcp_json_at(b, 2)) == MCP_JSON_BOOL && mcp_json_typeof(mcp_json_at(b, 4)) == MCP_JSON_NULL &&
          mcp_json_typeof(mcp_json_at(b, 6)) == MCP_JSON_OBJECT && mcp_json_typeof(mcp_json_get(r, "e")) == MCP_JSON_ARRAY);
    /* the null value is a value, not a missing one */
    CHECK(mcp_json_at(b, 4) != NULL && mcp_json_at(b, 7) == NULL && mcp_json_at(b, (size_t)-1) == NULL);
    /* lengths */
    CHECK(mcp_json_len(mcp_json_get(r, "s")) == 3 && mcp_json_len(mcp_json_get(r, "e")) == 0 &&
          mcp_json_len(mcp_json_at(b, 6)) == 0 && mcp_json_len(a) == 1);
    /* the last duplicate wins; all are kept in order */
    CHECK(mcp_json_num(mcp_json_get(r, "dup")) == 3);
    CHECK(mcp_json_num(mcp_json_getn(r, "dup", 3)) == 3);
    CHECK(mcp_json_num(mcp_json_at(r, 3)) == 1 && mcp_json_num(mcp_json_at(r, 5)) == 2);
    CHECK(mcp_json_getn(r, "dupx", 3) == mcp_json_get(r, "dup"));   /* only keylen bytes count */
    CHECK(mcp_json_get(r, "du") == NULL && mcp_json_get(r, "dupe") == NULL && mcp_json_get(r, "A") == NULL);
    CHECK(strcmp(mcp_json_str(mcp_json_getn(r, "abc", 2)), "AB") == 0);
    CHECK(strcmp(mcp_json_str(mcp_json_get(r, "")), "empty") == 0);
    CHECK(mcp_json_getn(r, "", 0) == mcp_json_get(r, ""));
    /* at and key_at on objects */
    CHECK(mcp_json_at(r, 1) == mcp_json_get(r, "s"));
    CHECK(mcp_json_at(r, 9) == NULL);
    CHECK(strcmp(mcp_json_key_at(r, 1, &kl), "s") == 0 && kl == 1);
    CHECK(strcmp(mcp_json_key_at(r, 6, &kl), "") == 0 && kl == 0);
    CHECK(mcp_json_key_at(r, 8, NULL) != NULL && strcmp(mcp_json_key_at(r, 8, NULL), "dup") == 0);
    kl = 99;
    CHECK(mcp_json_key_at(r, 9, &kl) == NULL && kl == 0);
    /* foreach: arrays and objects, in order */
    mcp_json_foreach(b, i, item) if (mcp_json_typeof(item) == MCP_JSON_NUMBER) sum += mcp_json_num(item);
    CHECK(i == 7 && sum == 12.5);
    mcp_json_foreach(r, i, v) {
        size_t l;
        const char *k = mcp_json_key_at(r, i, &l);
        CHECK(v == mcp_json_at(r, i));
        if (ko + l + 1 < sizeof keys) { memcpy(keys + ko, k, l); ko += l; keys[ko++] = ','; }
    }
    keys[ko] = 0;
    CHECKF(i == 9 && strcmp(keys, "a,s,n,dup,e,dup,,ab,dup,") == 0, "foreach keys: %s", keys);
    i = 5;
    mcp_json_foreach(mcp_json_get(r, "e"), i, item) CHECK(0);
    CHECK(i == 0);
    mcp_json_foreach(mcp_json_get(r, "s"), i, item) CHECK(0);   /* not a container */
    mcp_json_foreach(NULL, i, item) CHECK(0);
    /* equality: 1 and 1.0 differ, so do 0.0 and -0.0; strings by every byte */
    {
        mcp_json_doc *e = parse_s("[1,1.0,0.0,-0.0,\"a\\u0000b\",\"a\\u0000c\",\"a\",{\"x\":1},{\"x\":1},{\"y\":1},[1,2],[1,2,3]]", NULL);
        const mcp_json *x = mcp_json_root(e);
        CHECK(e != NULL);
        CHECK(!mcp_json_equal(mcp_json_at(x, 0), mcp_json_at(x, 1)));
        CHECK(!mcp_json_equal(mcp_json_at(x, 2), mcp_json_at(x, 3)));
        CHECK(!mcp_json_equal(mcp_json_at(x, 4), mcp_json_at(x, 5)));
        CHECK(!mcp_json_equal(mcp_json_at(x, 4), mcp_json_at(x, 6)));
        CHECK(mcp_json_equal(mcp_json_at(x, 7), mcp_json_at(x, 8)));
        CHECK(!mcp_json_equal(mcp_json_at(x, 7), mcp_json_at(x, 9)));
        CHECK(!mcp_json_equal(mcp_json_at(x, 10), mcp_json_at(x, 11)));
        CHECK(mcp_json_equal(x, x));
        mcp_json_free(e);
    }
    mcp_json_free(d);

    /* the document owns its strings: parse from a heap copy, overwrite and free it, then
       compare every value (strings included) with a parse of an untouched copy */
    {
        char path[1280], *orig, *copy;
        size_t len;
        mcp_json_doc *d1, *d2;
        snprintf(path, sizeof path, "%s/json-bench/twitter.json", datadir);
        orig = read_file(path, &len);
        CHECKF(orig != NULL, "cannot read %s", path);
        if (orig) {
            char *t1, *t2;
            copy = exact_copy(orig, len);
            d1 = mcp_json_parse(copy, len, NULL);
            memset(copy, 'X', len);
            free(copy);
            d2 = mcp_json_parse(orig, len, NULL);
            CHECK(d1 && d2 && mcp_json_equal(mcp_json_root(d1), mcp_json_root(d2)));
            t1 = mcp_json_dump(mcp_json_root(d1), 0, NULL);
            t2 = mcp_json_dump(mcp_json_root(d2), 0, NULL);
            CHECK(t1 && t2 && strcmp(t1, t2) == 0 && !strstr(t1, "XXXX"));
            CHECK(strcmp(mcp_json_str(mcp_json_get(mcp_json_at(mcp_json_get(mcp_json_root(d1), "statuses"), 0), "created_at")),
                         "Sun Aug 31 00:29:15 +0000 2014") == 0);
            mcp_free(t1); mcp_free(t2);
            mcp_json_free(d1); mcp_json_free(d2);
            free(orig);
        }
    }
}

/* ---- 9. the writer ----------------------------------------------------------------------------- */

static void build_all(mcp_jw *w, const mcp_json *val)
{
    mcp_jw_obj_begin(w);
    mcp_jw_key(w, "str"); mcp_jw_str(w, "a\"b\\c/d\x01\xC3\xA9");
    mcp_jw_keyn(w, "strnXX", 4); mcp_jw_strn(w, "xy\0z", 4);
    mcp_jw_key(w, "min"); mcp_jw_int(w, INT64_MIN);
    mcp_jw_key(w, "max"); mcp_jw_int(w, INT64_MAX);
    mcp_jw_key(w, "pi"); mcp_jw_num(w, 3.25);
    mcp_jw_key(w, "t"); mcp_jw_bool(w, 1);
    mcp_jw_key(w, "f"); mcp_jw_bool(w, 0);
    mcp_jw_key(w, "nil"); mcp_jw_null(w);
    mcp_jw_key(w, "nul"); mcp_jw_str(w, NULL);
    mcp_jw_key(w, "arr"); mcp_jw_arr_begin(w);
    mcp_jw_int(w, 1); mcp_jw_arr_begin(w); mcp_jw_arr_end(w); mcp_jw_obj_begin(w); mcp_jw_obj_end(w);
    mcp_jw_str(w, "x"); mcp_jw_bool(w, 42);
    mcp_jw_arr_end(w);
    mcp_jw_key(w, "val"); mcp_jw_value(w, val);
    mcp_jw_key(w, "raw"); mcp_jw_raw(w, " [ 1 , {\"a\" : 2.50} ] ", 22);
    mcp_jw_key(w, "e"); mcp_jw_obj_begin(w); mcp_jw_obj_end(w);
    mcp_jw_obj_end(w);
}

/* The escaped form, written independently: short escapes, \u00xx (lowercase) for the other
   control characters, nothing else escaped. */
static size_t ref_escape(const unsigned char *s, size_t n, char *out)
{
    size_t i, o = 0;
    out[o++] = '"';
    for (i = 0; i < n; i++) {
        unsigned c = s[i];
        switch (c) {
        case '"': out[o++] = '\\'; out[o++] = '"'; break;
        case '\\': out[o++] = '\\'; out[o++] = '\\'; break;
        case 8: out[o++] = '\\'; out[o++] = 'b'; break;
        case 9: out[o++] = '\\'; out[o++] = 't'; break;
        case 10: out[o++] = '\\'; out[o++] = 'n'; break;
        case 12: out[o++] = '\\'; out[o++] = 'f'; break;
        case 13: out[o++] = '\\'; out[o++] = 'r'; break;
        default:
            if (c < 0x20) o += (size_t)sprintf(out + o, "\\u%04x", c);
            else out[o++] = (char)c;
        }
    }
    out[o++] = '"';
    return o;
}

/* One misuse: setup calls already made on w; the bad call returned st and wrote nothing;
   later calls are ignored; finish fails with the sentence. */
static void misuse_end(mcp_jw *w, mcp_status got, size_t len_before, const char *what)
{
    mcp_error err;
    char want[256];
    size_t l = 7;
    snprintf(want, sizeof want, "JSON writer error: %s.", what);
    CHECKF(got == MCP_ERR_INVALID, "misuse \"%s\" returned %d", what, (int)got);
    CHECKF(w->len == len_before, "misuse \"%s\" wrote something: %s", what,
           show(w->buf ? w->buf : "", w->len));
    len_before = w->len;
    /* sticky: everything after is refused with the same status and writes nothing */
    CHECK(mcp_jw_int(w, 1) == MCP_ERR_INVALID && mcp_jw_null(w) == MCP_ERR_INVALID &&
          mcp_jw_arr_begin(w) == MCP_ERR_INVALID && mcp_jw_arr_end(w) == MCP_ERR_INVALID &&
          mcp_jw_obj_end(w) == MCP_ERR_INVALID && mcp_jw_key(w, "k") == MCP_ERR_INVALID &&
          mcp_jw_str(w, "s") == MCP_ERR_INVALID && mcp_jw_raw(w, "1", 1) == MCP_ERR_INVALID &&
          mcp_jw_num(w, 1.5) == MCP_ERR_INVALID && mcp_jw_bool(w, 1) == MCP_ERR_INVALID);
    CHECKF(w->len == len_before, "calls after misuse \"%s\" wrote something", what);
    CHECK(mcp_jw_status(w, &err) == MCP_ERR_INVALID && strcmp(err.message, want) == 0);
    CHECK(mcp_jw_text(w, &l) == NULL && l == 0);
    memset(&err, 0, sizeof err);
    l = 7;
    CHECK(mcp_jw_finish(w, &l, &err) == NULL && l == 0);
    CHECKF(err.status == MCP_ERR_INVALID && strcmp(err.message, want) == 0,
           "finish after \"%s\": %s", what, err.message);
    CHECK(w->buf == NULL && w->stack == NULL);   /* finish released the memory */
    mcp_jw_free(w);
}

TEST_CASE(writer)
{
    mcp_json_doc *vd = parse_s("{\"k\":[1,2.5,\"v\",null,true]}", NULL);
    const mcp_json *val = mcp_json_root(vd);
    mcp_jw w;
    mcp_error err;
    char *t;
    size_t len, before, i, n;
    const char *compact =
        "{\"str\":\"a\\\"b\\\\c/d\\u0001\xC3\xA9\",\"strn\":\"xy\\u0000z\",\"min\":-9223372036854775808,"
        "\"max\":9223372036854775807,\"pi\":3.25,\"t\":true,\"f\":false,\"nil\":null,\"nul\":null,"
        "\"arr\":[1,[],{},\"x\",true],\"val\":{\"k\":[1,2.5,\"v\",null,true]},\"raw\":[1,{\"a\":2.5}],\"e\":{}}";
    const char *pretty =
        "{\n"
        "  \"str\": \"a\\\"b\\\\c/d\\u0001\xC3\xA9\",\n"
        "  \"strn\": \"xy\\u0000z\",\n"
        "  \"min\": -9223372036854775808,\n"
        "  \"max\": 9223372036854775807,\n"
        "  \"pi\": 3.25,\n"
        "  \"t\": true,\n"
        "  \"f\": false,\n"
        "  \"nil\": null,\n"
        "  \"nul\": null,\n"
        "  \"arr\": [\n"
        "    1,\n"
        "    [],\n"
        "    {},\n"
        "    \"x\",\n"
        "    true\n"
        "  ],\n"
        "  \"val\": {\n"
        "    \"k\": [\n"
        "      1,\n"
        "      2.5,\n"
        "      \"v\",\n"
        "      null,\n"
        "      true\n"
        "    ]\n"
        "  },\n"
        "  \"raw\": [\n"
        "    1,\n"
        "    {\n"
        "      \"a\": 2.5\n"
        "    }\n"
        "  ],\n"
        "  \"e\": {}\n"
        "}";
    CHECK(vd != NULL);

    /* every function, compact and pretty, exact text */
    mcp_jw_init(&w, 0);
    build_all(&w, val);
    CHECK(mcp_jw_status(&w, &err) == MCP_OK && err.status == MCP_OK);
    CHECK(mcp_jw_text(&w, &len) != NULL && len == strlen(compact));
    t = mcp_jw_finish(&w, &len, &err);
    CHECKF(t && strcmp(t, compact) == 0 && len == strlen(compact), "compact:\n%s\nwant:\n%s", t ? t : "NULL", compact);
    mcp_free(t);
    mcp_jw_init(&w, 1);
    build_all(&w, val);
    t = mcp_jw_finish(&w, &len, &err);
    CHECKF(t && strcmp(t, pretty) == 0 && len == strlen(pretty), "pretty:\n%s\nwant:\n%s", t ? t : "NULL", pretty);
    mcp_free(t);
    /* mcp_json_dump agrees with the writer */
    {
        mcp_json_doc *d = parse_s(compact, NULL);
        char *c = mcp_json_dump(mcp_json_root(d), 0, &len), *pr = mcp_json_dump(mcp_json_root(d), 1, NULL);
        CHECK(d && c && strcmp(c, compact) == 0 && len == strlen(compact));
        CHECK(pr && strcmp(pr, pretty) == 0);
        mcp_free(c); mcp_free(pr);
        mcp_json_free(d);
    }
    /* a zero-initialised writer works; top-level scalars and empty containers */
    {
        static const char *const want[] = {"5", "\"s\"", "null", "true", "{}", "[]", "-1.5"};
        int k, pr;
        for (pr = 0; pr < 2; pr++)
            for (k = 0; k < 7; k++) {
                memset(&w, 0, sizeof w);
                w.pretty = pr;
                switch (k) {
                case 0: mcp_jw_int(&w, 5); break;
                case 1: mcp_jw_str(&w, "s"); break;
                case 2: mcp_jw_null(&w); break;
                case 3: mcp_jw_bool(&w, 1); break;
                case 4: mcp_jw_obj_begin(&w); mcp_jw_obj_end(&w); break;
                case 5: mcp_jw_arr_begin(&w); mcp_jw_arr_end(&w); break;
                default: mcp_jw_num(&w, -1.5); break;
                }
                t = mcp_jw_finish(&w, &len, NULL);
                CHECKF(t && strcmp(t, want[k]) == 0 && len == strlen(want[k]), "top-level %s: %s", want[k], t ? t : "NULL");
                mcp_free(t);
            }
    }
    /* a value from inside a document, nested in the writer's own containers (pretty) */
    mcp_jw_init(&w, 1);
    mcp_jw_arr_begin(&w); mcp_jw_obj_begin(&w); mcp_jw_key(&w, "v");
    mcp_jw_value(&w, mcp_json_get(val, "k"));
    mcp_jw_key(&w, "n"); mcp_jw_value(&w, NULL);
    mcp_jw_obj_end(&w); mcp_jw_arr_end(&w);
    t = mcp_jw_finish(&w, NULL, NULL);
    CHECKF(t && strcmp(t, "[\n  {\n    \"v\": [\n      1,\n      2.5,\n      \"v\",\n      null,\n      true\n    ],\n    \"n\": null\n  }\n]") == 0,
           "nested value: %s", t ? t : "NULL");
    mcp_free(t);

    /* escaping: every byte 0x00..0x7F and some UTF-8, as a value and as a key */
    {
        unsigned char all[140];
        char got_ref[1024];
        size_t rl;
        mcp_json_doc *d;
        for (i = 0; i < 128; i++) all[i] = (unsigned char)i;
        memcpy(all + 128, "\xC3\xA9\xE2\x82\xAC\xF0\x9F\x98\x80/", 10);
        n = 138;
        rl = ref_escape(all, n, got_ref);
        got_ref[rl] = 0;
        mcp_jw_init(&w, 0);
        mcp_jw_strn(&w, (const char *)all, n);
        t = mcp_jw_finish(&w, &len, NULL);
        CHECKF(t && len == rl && memcmp(t, got_ref, rl) == 0, "escaped: %s\nwant:    %s", t ? t : "NULL", got_ref);
        CHECK(t && strstr(t, "\\u001f\\u0020") == NULL && strstr(t, "\\u001f !") != NULL);   /* lowercase hex */
        d = t ? parse_n(t, len, NULL, NULL) : NULL;
        CHECK(d && mcp_json_len(mcp_json_root(d)) == n && memcmp(mcp_json_str(mcp_json_root(d)), all, n) == 0);
        mcp_json_free(d);
        mcp_free(t);
        mcp_jw_init(&w, 0);
        mcp_jw_obj_begin(&w); mcp_jw_keyn(&w, (const char *)all, n); mcp_jw_int(&w, 0); mcp_jw_obj_end(&w);
        t = mcp_jw_finish(&w, &len, NULL);
        CHECK(t && len == rl + 4 && t[0] == '{' && memcmp(t + 1, got_ref, rl) == 0 && strcmp(t + 1 + rl, ":0}") == 0);
        mcp_free(t);
    }
    /* invalid UTF-8 in a string or a key: MCP_ERR_INVALID, nothing written */
    {
        static const char *const bad[] = {"\xC3", "\xC0\x80", "\xC1\xBF", "\xE0\x80\x80", "\xED\xA0\x80",
            "\xED\xBF\xBF", "\xF4\x90\x80\x80", "\xF5\x80\x80\x80", "\x80", "\xBF", "\xFF", "a\xE2\x82", "\xF0\x9F\x98",
            "ok\xC3(", "\xF8\x88\x80\x80\x80"};
        unsigned b0, b1, tl, wrong = 0;
        for (i = 0; i < sizeof bad / sizeof bad[0]; i++) {
            mcp_jw_init(&w, 0);
            mcp_jw_arr_begin(&w);
            before = w.len;
            misuse_end(&w, mcp_jw_str(&w, bad[i]), before, "a string that is not valid UTF-8");
            mcp_jw_init(&w, 0);
            mcp_jw_obj_begin(&w);
            CHECK(mcp_jw_key(&w, bad[i]) == MCP_ERR_INVALID && mcp_jw_keyn(&w, "k", 1) == MCP_ERR_INVALID);
            CHECK(mcp_jw_finish(&w, NULL, &err) == NULL && err.status == MCP_ERR_INVALID);
        }
        /* not the first item or member: the separator must not be left behind either */
        mcp_jw_init(&w, 0); mcp_jw_arr_begin(&w); mcp_jw_int(&w, 1); before = w.len;
        misuse_end(&w, mcp_jw_strn(&w, "\xC3", 1), before, "a string that is not valid UTF-8");
        mcp_jw_init(&w, 1); mcp_jw_arr_begin(&w); mcp_jw_int(&w, 1); before = w.len;
        misuse_end(&w, mcp_jw_str(&w, "\xFF"), before, "a string that is not valid UTF-8");
        mcp_jw_init(&w, 0); mcp_jw_obj_begin(&w); before = w.len;
        misuse_end(&w, mcp_jw_key(&w, "\xC3"), before, "a string that is not valid UTF-8");
        mcp_jw_init(&w, 1); mcp_jw_obj_begin(&w); mcp_jw_key(&w, "a"); mcp_jw_int(&w, 1); before = w.len;
        misuse_end(&w, mcp_jw_keyn(&w, "\xED\xA0\x80", 3), before, "a string that is not valid UTF-8");
        /* exhaustively, against the reference */
        for (b0 = 0x80; b0 <= 0xFF; b0++)
            for (b1 = 0; b1 <= 0xFF; b1++)
                for (tl = 0; tl < 3; tl++) {
                    unsigned char c[4];
                    int want, got;
                    c[0] = (unsigned char)b0; c[1] = (unsigned char)b1; c[2] = 0x80; c[3] = 0x80;
                    want = ref_utf8(c, 2 + tl) == 2 + (int)tl ||
                           (ref_utf8(c, 2 + tl) && ref_content(c + ref_utf8(c, 2 + tl), 2 + tl - (size_t)ref_utf8(c, 2 + tl)));
                    if (b1 < 0x20 || b1 == '"' || b1 == '\\') continue;   /* valid, but escaped */
                    mcp_jw_init(&w, 0);
                    got = mcp_jw_strn(&w, (const char *)c, 2 + tl) == MCP_OK;
                    mcp_jw_free(&w);
                    if (got != want && wrong++ < 10)
                        fprintf(stderr, "  writer: %s judged %d\n", show((const char *)c, 2 + tl), got);
                }
        CHECKF(wrong == 0, "the writer judged %u byte sequences wrongly", wrong);
    }

    /* misuse */
    mcp_jw_init(&w, 0); mcp_jw_obj_begin(&w); before = w.len;
    misuse_end(&w, mcp_jw_int(&w, 1), before, "a value where an object key is due");
    mcp_jw_init(&w, 0); mcp_jw_obj_begin(&w); mcp_jw_key(&w, "a"); mcp_jw_int(&w, 1); before = w.len;
    misuse_end(&w, mcp_jw_str(&w, "v"), before, "a value where an object key is due");
    mcp_jw_init(&w, 0); mcp_jw_obj_begin(&w); before = w.len;
    misuse_end(&w, mcp_jw_arr_begin(&w), before, "a value where an object key is due");
    mcp_jw_init(&w, 0); mcp_jw_obj_begin(&w); before = w.len;
    misuse_end(&w, mcp_jw_value(&w, val), before, "a value where an object key is due");
    mcp_jw_init(&w, 0); mcp_jw_obj_begin(&w); before = w.len;
    misuse_end(&w, mcp_jw_raw(&w, "[1]", 3), before, "a value where an object key is due");
    mcp_jw_init(&w, 0); mcp_jw_arr_begin(&w); before = w.len;
    misuse_end(&w, mcp_jw_key(&w, "a"), before, "a key outside an object");
    mcp_jw_init(&w, 0); before = w.len;
    misuse_end(&w, mcp_jw_key(&w, "a"), before, "a key outside an object");
    mcp_jw_init(&w, 0); mcp_jw_obj_begin(&w); mcp_jw_key(&w, "a"); before = w.len;
    misuse_end(&w, mcp_jw_key(&w, "b"), before, "a key where a value is due");
    mcp_jw_init(&w, 0); mcp_jw_obj_begin(&w); before = w.len;
    misuse_end(&w, mcp_jw_key(&w, NULL), before, "a NULL key");
    mcp_jw_init(&w, 0); mcp_jw_arr_begin(&w); before = w.len;
    misuse_end(&w, mcp_jw_obj_end(&w), before, "an object end while an array is open");
    mcp_jw_init(&w, 0); mcp_jw_obj_begin(&w); before = w.len;
    misuse_end(&w, mcp_jw_arr_end(&w), before, "an array end while an object is open");
    mcp_jw_init(&w, 0); before = w.len;
    misuse_end(&w, mcp_jw_obj_end(&w), before, "an object end with no object open");
    mcp_jw_init(&w, 0); before = w.len;
    misuse_end(&w, mcp_jw_arr_end(&w), before, "an array end with no array open");
    mcp_jw_init(&w, 0); mcp_jw_arr_begin(&w); mcp_jw_arr_end(&w); before = w.len;
    misuse_end(&w, mcp_jw_arr_end(&w), before, "an array end with no array open");
    mcp_jw_init(&w, 0); mcp_jw_obj_begin(&w); mcp_jw_key(&w, "a"); before = w.len;
    misuse_end(&w, mcp_jw_obj_end(&w), before, "an object end right after a key");
    mcp_jw_init(&w, 1); mcp_jw_obj_begin(&w); mcp_jw_key(&w, "a"); before = w.len;
    misuse_end(&w, mcp_jw_obj_end(&w), before, "an object end right after a key");
    mcp_jw_init(&w, 0); mcp_jw_int(&w, 1); before = w.len;
    misuse_end(&w, mcp_jw_int(&w, 2), before, "a second value after the complete top-level value");
    mcp_jw_init(&w, 0); mcp_jw_arr_begin(&w); mcp_jw_arr_end(&w); before = w.len;
    misuse_end(&w, mcp_jw_obj_begin(&w), before, "a second value after the complete top-level value");
    mcp_jw_init(&w, 0); mcp_jw_str(&w, "x"); before = w.len;
    misuse_end(&w, mcp_jw_raw(&w, "1", 1), before, "a second value after the complete top-level value");
    mcp_jw_init(&w, 0); mcp_jw_arr_begin(&w); before = w.len;
    misuse_end(&w, mcp_jw_raw(&w, "[1,", 3), before, "raw text that is not valid JSON");
    mcp_jw_init(&w, 0); before = w.len;
    misuse_end(&w, mcp_jw_raw(&w, "", 0), before, "raw text that is not valid JSON");
    mcp_jw_init(&w, 0); mcp_jw_arr_begin(&w); before = w.len;
    misuse_end(&w, mcp_jw_raw(&w, "1 2", 3), before, "raw text that is not valid JSON");
    mcp_jw_init(&w, 0); mcp_jw_arr_begin(&w); before = w.len;
    misuse_end(&w, mcp_jw_raw(&w, "[\"\xC3\"]", 5), before, "raw text that is not valid JSON");
    /* finish with containers open, with nothing written */
    mcp_jw_init(&w, 0); mcp_jw_arr_begin(&w); mcp_jw_obj_begin(&w);
    CHECK(mcp_jw_text(&w, &len) == NULL && len == 0);
    CHECK(mcp_jw_status(&w, &err) == MCP_ERR_INVALID);
    t = mcp_jw_finish(&w, &len, &err);
    CHECKF(t == NULL && err.status == MCP_ERR_INVALID && strcmp(err.message, "JSON writer error: 2 containers are still open.") == 0,
           "finish with 2 open: %s", err.message);
    mcp_jw_init(&w, 0); mcp_jw_obj_begin(&w); mcp_jw_key(&w, "a");
    t = mcp_jw_finish(&w, &len, &err);
    CHECKF(t == NULL && err.status == MCP_ERR_INVALID && strcmp(err.message, "JSON writer error: 1 container is still open.") == 0,
           "finish with 1 open: %s", err.message);
    mcp_jw_init(&w, 0);
    CHECK(mcp_jw_text(&w, &len) == NULL && len == 0);
    t = mcp_jw_finish(&w, &len, &err);
    CHECKF(t == NULL && err.status == MCP_ERR_INVALID && strcmp(err.message, "JSON writer error: nothing was written.") == 0,
           "finish with nothing: %s", err.message);
    CHECK(mcp_jw_finish(&w, NULL, NULL) == NULL);   /* NULL len and err accepted */
    mcp_jw_free(&w);
    mcp_jw_free(NULL);

    /* mcp_jw_text is NULL until the value is complete; reset reuses the buffer and clears
       an error */
    mcp_jw_init(&w, 0);
    mcp_jw_arr_begin(&w);
    CHECK(mcp_jw_text(&w, NULL) == NULL);
    mcp_jw_int(&w, 1);
    CHECK(mcp_jw_text(&w, NULL) == NULL);
    mcp_jw_arr_end(&w);
    {
        const char *tx = mcp_jw_text(&w, &len);
        char *keep = w.buf;
        CHECK(tx && len == 3 && memcmp(tx, "[1]", 3) == 0);
        mcp_jw_reset(&w);
        CHECK(mcp_jw_text(&w, NULL) == NULL && w.len == 0);
        mcp_jw_obj_begin(&w); mcp_jw_key(&w, "b"); mcp_jw_bool(&w, 0); mcp_jw_obj_end(&w);
        tx = mcp_jw_text(&w, &len);
        CHECK(tx && len == 11 && memcmp(tx, "{\"b\":false}", 11) == 0 && w.buf == keep);
        mcp_jw_reset(&w);
        CHECK(mcp_jw_obj_end(&w) == MCP_ERR_INVALID);
        mcp_jw_reset(&w);
        CHECK(mcp_jw_status(&w, NULL) == MCP_ERR_INVALID);   /* nothing written yet */
        CHECK(mcp_jw_int(&w, 7) == MCP_OK);
        tx = mcp_jw_text(&w, &len);
        CHECK(tx && len == 1 && tx[0] == '7' && w.buf == keep);
        t = mcp_jw_finish(&w, &len, NULL);
        CHECK(t && strcmp(t, "7") == 0 && len == 1);
        mcp_free(t);
    }
    /* a large text: 100000 strings, every one of them escaped */
    mcp_jw_init(&w, 1);
    n = quick ? 10000 : 100000;
    mcp_jw_arr_begin(&w);
    for (i = 0; i < n; i++) {
        char sb[32];
        snprintf(sb, sizeof sb, "item\t%lu\"", (unsigned long)i);
        mcp_jw_str(&w, sb);
    }
    mcp_jw_arr_end(&w);
    t = mcp_jw_finish(&w, &len, NULL);
    {
        mcp_json_doc *d = t ? parse_n(t, len, NULL, NULL) : NULL;
        const mcp_json *r = mcp_json_root(d);
        int ok = d && mcp_json_len(r) == n;
        for (i = 0; ok && i < n; i++) {
            char sb[32];
            snprintf(sb, sizeof sb, "item\t%lu\"", (unsigned long)i);
            ok = strcmp(mcp_json_str(mcp_json_at(r, i)), sb) == 0;
        }
        CHECKF(ok, "a large written array does not read back");
        mcp_json_free(d);
    }
    mcp_free(t);
    mcp_json_free(vd);
}

/* ---- 10. strictness odds and ends, big documents ----------------------------------------------- */

TEST_CASE(strict)
{
    static const char *const bad[] = {
        /* literals */
        "tru", "t", "nul", "fals", "True", "FALSE", "NULL", "nan", "NaN", "Infinity", "-Infinity",
        "+Infinity", "undefined", "truex", "true1", "nulll", "[true false]", "[tRue]", "'a'", "[nul]",
        /* numbers */
        "-", "1.", ".5", "1e", "1e+", "1E-", "+1", "0x1", "0X1F", "01", "-01", "00", "-00", "1.e1",
        "1e1.5", "- 1", "--1", "1ee2", "1.2.3", "0.", "-.5", "1_000", "1,000", "\xD9\xA1", "1e+-1",
        "[1e]", "[.1]", "[1.]", "[-]", "[+1]", "[0x10]", "[012]", "1f", "1d", "1L", "0b1", "1e1e1",
        "[1 000]", "-0x0", ".", "e1", "[e1]", "1.0.", "2.e-3",
        /* structure */
        "[1,]", "[,1]", "[1,,2]", "[,]", "{,}", "{\"a\":1,}", "{\"a\"}", "{\"a\":}", "{\"a\" \"b\"}",
        "{'a':1}", "['a']", "[1]]", "[[1]", "{}}", "{{}}", "{\"a\":1 \"b\":2}", "{\"a\":1,,\"b\":2}",
        "/* c */[1]", "[1]//c", "[1]#", "1,", "[1];", "{\"a\"::1}", "{\"a\":1:2}", "{[]:1}", "{null:1}",
        "{a:1}", "[", "]", "{", "}", "[}", "{]", "[1}", "{\"a\":1]", "\"abc", "abc\"", "[\"a\" \"b\"]",
        "{\"a\":1}{", "[1][", "[]]",
        /* whitespace: only space, tab, CR and LF */
        "[1,\f2]", "[\v1]", "\f[1]", "[1]\f", "\xC2\xA0[1]", "[1]\xC2\xA0", "[1\xE2\x80\xA8]", "[\xE2\x80\x89" "1]",
        "[1,\xEF\xBB\xBF" "2]", "\x1F[]", "[]\x1F", "\x0B{}",
    };
    static const char *const good[] = {
        "true", "false", "null", " true ", "\t\r\n null \n\r\t", "0", "-0", "0.0", "0e0", "0E+0",
        "-0.0e-0", "1E5", "123.456e78", "1e-1", "[-1.5E+3]", "\"\"", "\" \"", "[]", "{}", "[[]]",
        "{\"\":{}}", "[[],{},[[]],{\"a\":{}},[{}]]", " \t\r\n[ \t\r\n1 \t\r\n, \t\r\n2 \t\r\n] \t\r\n",
        "{ \"a\" : 1 , \"b\" : [ ] }", "[0,-0,0.5,-0.5,10,100,1e0,1e00,1e-00]", "[\"\\/\"]",
        "{\"a\":1,\"a\":2}", "[null,true,false]", "[\"\\u0000\"]", "[1e1, 1E1, 1e+1, 1e-1, 1.5e1]",
    };
    size_t i, n, len, o;
    char *b, *t;
    mcp_json_doc *d;
    const mcp_json *r;
    int ok;

    for (i = 0; i < sizeof bad / sizeof bad[0]; i++) REJECT(bad[i]);
    for (i = 0; i < sizeof good / sizeof good[0]; i++) ACCEPT(good[i]);
    /* bytes outside the value, NULs */
    REJECT_N("[1]\0", 4); REJECT_N("[\0]", 3); REJECT_N("\0", 1); REJECT_N(" \0 1", 4); REJECT_N("[\"a\0\"]", 6);
    ACCEPT_N("123abc", 3); ACCEPT_N("[1,2] garbage", 5); REJECT_N("[1,2]", 3); REJECT_N("true", 3);
    REJECT_N("null", 2); REJECT_N("false", 4); REJECT_N("\"ab\"", 3);
    /* every byte as a whole document and after a value: only the grammar's bytes work */
    for (i = 0; i < 256; i++) {
        char one[4];
        one[0] = (char)i;
        CHECKF(outcome_n(one, 1) == (i >= '0' && i <= '9' ? 1 : 0), "the one-byte document 0x%02X", (unsigned)i);
        one[0] = '['; one[1] = '1'; one[2] = (char)i; one[3] = ']';
        /* "[1" byte "]": only whitespace or another digit keeps it valid */
        CHECKF(outcome_n(one, 4) == (i == ' ' || i == '\t' || i == '\r' || i == '\n' || (i >= '0' && i <= '9')),
               "\"[1\" 0x%02X \"]\" judged wrongly", (unsigned)i);
    }
    /* nested empty containers keep their shape */
    d = parse_s("[[],{},[[]],{\"a\":{}},[{}]]", NULL);
    r = mcp_json_root(d);
    CHECK(d && mcp_json_len(r) == 5 && mcp_json_len(mcp_json_at(r, 0)) == 0 &&
          mcp_json_typeof(mcp_json_at(r, 1)) == MCP_JSON_OBJECT && mcp_json_len(mcp_json_at(r, 2)) == 1 &&
          mcp_json_typeof(mcp_json_get(mcp_json_at(r, 3), "a")) == MCP_JSON_OBJECT &&
          mcp_json_typeof(mcp_json_at(mcp_json_at(r, 4), 0)) == MCP_JSON_OBJECT);
    t = mcp_json_dump(r, 0, NULL);
    CHECK(t && strcmp(t, "[[],{},[[]],{\"a\":{}},[{}]]") == 0);
    mcp_free(t);
    t = mcp_json_dump(r, 1, NULL);
    CHECKF(t && strcmp(t, "[\n  [],\n  {},\n  [\n    []\n  ],\n  {\n    \"a\": {}\n  },\n  [\n    {}\n  ]\n]") == 0,
           "pretty: %s", t ? t : "NULL");
    mcp_free(t);
    mcp_json_free(d);

    /* keys with escapes */
    d = parse_s("{\"a\\nb\":1,\"\\u0041\":2,\"\\\"q\\\"\":3,\"\\/\":4,\"\\u00e9\":5,\"\\ud83d\\ude00\":6,\"\\\\\":7}", NULL);
    r = mcp_json_root(d);
    CHECK(d && mcp_json_num(mcp_json_get(r, "a\nb")) == 1 && mcp_json_num(mcp_json_get(r, "A")) == 2 &&
          mcp_json_num(mcp_json_get(r, "\"q\"")) == 3 && mcp_json_num(mcp_json_get(r, "/")) == 4 &&
          mcp_json_num(mcp_json_get(r, "\xC3\xA9")) == 5 && mcp_json_num(mcp_json_get(r, "\xF0\x9F\x98\x80")) == 6 &&
          mcp_json_num(mcp_json_get(r, "\\")) == 7);
    CHECK(mcp_json_get(r, "a\\nb") == NULL && mcp_json_get(r, "\\u0041") == NULL);
    t = mcp_json_dump(r, 0, NULL);
    CHECKF(t && strcmp(t, "{\"a\\nb\":1,\"A\":2,\"\\\"q\\\"\":3,\"/\":4,\"\xC3\xA9\":5,\"\xF0\x9F\x98\x80\":6,\"\\\\\":7}") == 0,
           "keys dumped as %s", t ? t : "NULL");
    mcp_free(t);
    mcp_json_free(d);

    /* an array of a million items (quick: 100000) */
    n = quick ? 100000 : 1000000;
    b = (char *)malloc(n * 12 + 8);
    if (!b) exit(2);
    o = 0;
    b[o++] = '[';
    for (i = 0; i < n; i++) o += (size_t)sprintf(b + o, i ? ",%lu" : "%lu", (unsigned long)(i * 7));
    b[o++] = ']';
    d = mcp_json_parse(b, o, NULL);
    r = mcp_json_root(d);
    ok = d && mcp_json_typeof(r) == MCP_JSON_ARRAY && mcp_json_len(r) == n && mcp_json_at(r, n) == NULL;
    for (i = 0; ok && i < n; i++) {
        int64_t v;
        ok = mcp_json_int64(mcp_json_at(r, i), &v) && v == (int64_t)(i * 7);
    }
    CHECKF(ok, "an array of %lu items was not read back item for item", (unsigned long)n);
    t = mcp_json_dump(r, 0, &len);
    CHECK(t && len == o && memcmp(t, b, o) == 0);
    mcp_free(t);
    mcp_json_free(d);
    free(b);

    /* lookups in a big object, with a duplicate at the end */
    n = quick ? 2000 : 10000;
    b = (char *)malloc(n * 24 + 64);
    if (!b) exit(2);
    o = 0;
    b[o++] = '{';
    for (i = 0; i < n; i++) o += (size_t)sprintf(b + o, "%s\"k%lu\":%lu", i ? "," : "", (unsigned long)i, (unsigned long)i);
    o += (size_t)sprintf(b + o, ",\"k0\":-1}");
    d = mcp_json_parse(b, o, NULL);
    r = mcp_json_root(d);
    ok = d && mcp_json_len(r) == n + 1;
    for (i = 1; ok && i < n; i++) {
        char k[24];
        size_t kl;
        snprintf(k, sizeof k, "k%lu", (unsigned long)i);
        ok = mcp_json_num(mcp_json_get(r, k)) == (double)i && mcp_json_getn(r, k, strlen(k)) == mcp_json_at(r, i) &&
             strcmp(mcp_json_key_at(r, i, &kl), k) == 0 && kl == strlen(k);
    }
    CHECKF(ok, "lookups in an object of %lu members failed", (unsigned long)n);
    CHECK(mcp_json_num(mcp_json_get(r, "k0")) == -1 && mcp_json_get(r, "k") == NULL &&
          mcp_json_get(r, "k00") == NULL && mcp_json_get(r, "K1") == NULL);
    {
        char k[24];
        snprintf(k, sizeof k, "k%lu", (unsigned long)n);
        CHECK(mcp_json_get(r, k) == NULL);
    }
    mcp_json_free(d);
    free(b);

    /* many long strings and big strings: the arena grows beyond its first block */
    n = quick ? 2000 : 20000;
    b = (char *)malloc(n * 130 + 16);
    if (!b) exit(2);
    o = 0;
    b[o++] = '[';
    for (i = 0; i < n; i++) {
        if (i) b[o++] = ',';
        o += (size_t)sprintf(b + o, "\"\\u00e9%0120lu\"", (unsigned long)i);
    }
    b[o++] = ']';
    d = parse_n(b, o, NULL, NULL);
    r = mcp_json_root(d);
    ok = d && mcp_json_len(r) == n;
    for (i = 0; ok && i < n; i++) {
        char want[140];
        snprintf(want, sizeof want, "\xC3\xA9%0120lu", (unsigned long)i);
        ok = mcp_json_len(mcp_json_at(r, i)) == 122 && strcmp(mcp_json_str(mcp_json_at(r, i)), want) == 0;
    }
    CHECKF(ok, "an array of %lu escaped strings was not read back", (unsigned long)n);
    mcp_json_free(d);
    free(b);
}

/* ---- 11. strings at the scanners' block boundaries --------------------------------------------- */

/* mcp.h's string scanners (the parser, the writer's escaping and UTF-8 check) pass over plain
   bytes 64, 32 and 8 at a time before a byte loop decides; a mistake at a block edge would
   pass every test above that has its special bytes at the usual places. Here every kind of
   special byte is put at every position of strings of 0..200 bytes, read and written, and
   compared with plain byte-loop references. These tests have their own fixed seed
   (MCP_TEST_SEED does not move them). */

static uint64_t sb_state;
static uint64_t sb_rnd(void)   /* splitmix64, like rnd() */
{
    uint64_t z = (sb_state += 0x9E3779B97F4A7C15u);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9u;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBu;
    return z ^ (z >> 31);
}
static unsigned sb_rndn(unsigned n) { return (unsigned)(sb_rnd() % n); }

/* The lengths tried: 0..200 (quick: 0..80), then some past the scanners' 64 inline bytes and
   their 128-byte vector steps (a special byte in each of a step's four vectors). */
static size_t sb_len_next(size_t len)
{
    static const size_t longer[] = { 255, 256, 257, 300, 319, 320, 321, 351, 352 };
    size_t i;
    if (len < (quick ? 80u : 200u)) return len + 1;
    for (i = 0; i < sizeof longer / sizeof longer[0]; i++)
        if (longer[i] > len) return longer[i];
    return (size_t)-1;
}

static unsigned sb_shown;   /* failures described on stderr, at most 10 per run */
#define SB_SHOW(...) do { if (sb_shown++ < 10) fprintf(stderr, __VA_ARGS__); } while (0)

static int ref_hex4(const unsigned char *p, unsigned *out)
{
    unsigned v = 0, i, d;
    for (i = 0; i < 4; i++) {
        if (p[i] >= '0' && p[i] <= '9') d = p[i] - '0';
        else if (p[i] >= 'a' && p[i] <= 'f') d = p[i] - 'a' + 10u;
        else if (p[i] >= 'A' && p[i] <= 'F') d = p[i] - 'A' + 10u;
        else return 0;
        v = v << 4 | d;
    }
    *out = v;
    return 1;
}

static size_t ref_put_utf8(unsigned cp, unsigned char *o)
{
    if (cp < 0x80) { o[0] = (unsigned char)cp; return 1; }
    if (cp < 0x800) { o[0] = (unsigned char)(0xC0 | cp >> 6); o[1] = (unsigned char)(0x80 | (cp & 0x3F)); return 2; }
    if (cp < 0x10000) {
        o[0] = (unsigned char)(0xE0 | cp >> 12); o[1] = (unsigned char)(0x80 | (cp >> 6 & 0x3F));
        o[2] = (unsigned char)(0x80 | (cp & 0x3F));
        return 3;
    }
    o[0] = (unsigned char)(0xF0 | cp >> 18); o[1] = (unsigned char)(0x80 | (cp >> 12 & 0x3F));
    o[2] = (unsigned char)(0x80 | (cp >> 6 & 0x3F)); o[3] = (unsigned char)(0x80 | (cp & 0x3F));
    return 4;
}

/* Is s[0..n) valid UTF-8 (control characters included)? */
static int ref_utf8_all(const unsigned char *s, size_t n)
{
    size_t i = 0;
    int k;
    while (i < n) {
        if (!(k = ref_utf8(s + i, n - i))) return 0;
        i += (size_t)k;
    }
    return 1;
}

/* The reference string reader, one byte at a time. c[0..n) is the text between the quotes
   (the generators never put a raw '"' in it nor end it with a lone backslash). Accepted:
   returns -1 with the value in out[0..*olen). Refused: returns the offset of the error in c,
   the parser's sentence in msg. As in mcp.h, the bytes are checked in a first pass over the
   whole string and the \u escapes when they are decoded, in a second one. */
static long ref_string(const unsigned char *c, size_t n, unsigned char *out, size_t *olen, char *msg)
{
    size_t i = 0, o = 0;
    unsigned cp, lo, e;
    int k;
    while (i < n) {
        if (c[i] == '\\') {
            e = c[i + 1];
            if (e == 0 || !strchr("\"\\/bfnrtu", (int)e)) {
                if (e >= 0x21 && e < 0x7F) sprintf(msg, "invalid escape '\\%c' in a string", (int)e);
                else sprintf(msg, "invalid escape (backslash before byte 0x%02X) in a string", e);
                return (long)i;
            }
            i += 2;
        } else if (c[i] < 0x20) {
            sprintf(msg, "control character U+%04X must be escaped in a string", (unsigned)c[i]);
            return (long)i;
        } else if (!(k = ref_utf8(c + i, n - i))) {
            sprintf(msg, "invalid UTF-8 (byte 0x%02X) in a string", (unsigned)c[i]);
            return (long)i;
        } else i += (size_t)k;
    }
    for (i = 0; i < n;) {
        if (c[i] != '\\') { out[o++] = c[i++]; continue; }
        e = c[i + 1];
        if (e != 'u') {
            out[o++] = (unsigned char)(e == 'b' ? 8 : e == 'f' ? 12 : e == 'n' ? 10 : e == 'r' ? 13 : e == 't' ? 9 : e);
            i += 2;
            continue;
        }
        if (n - i < 6 || !ref_hex4(c + i + 2, &cp)) { sprintf(msg, "a \\u escape needs four hex digits"); return (long)i; }
        if (cp >= 0xDC00 && cp <= 0xDFFF) { sprintf(msg, "lone low surrogate \\u%04X in a string", cp); return (long)i; }
        if (cp >= 0xD800 && cp <= 0xDBFF) {
            if (n - i < 12 || c[i + 6] != '\\' || c[i + 7] != 'u' || !ref_hex4(c + i + 8, &lo) || lo < 0xDC00 ||
                lo > 0xDFFF) {
                sprintf(msg, "high surrogate \\u%04X is not followed by a low surrogate", cp);
                return (long)i;
            }
            cp = 0x10000 + ((cp - 0xD800) << 10) + (lo - 0xDC00);
            i += 6;
        }
        i += 6;
        o += ref_put_utf8(cp, out + o);
    }
    *olen = o;
    return -1;
}

/* The parser's sentence for an error at doc[pos]: lines counted at '\n', columns in characters. */
static void ref_error(const char *doc, size_t pos, const char *msg, char *want, size_t cap)
{
    unsigned long line = 1, col = 1;
    size_t i;
    for (i = 0; i < pos; i++) {
        if (doc[i] == '\n') { line++; col = 1; }
        else if (((unsigned char)doc[i] & 0xC0) != 0x80) col++;
    }
    snprintf(want, cap, "JSON parse error at line %lu, column %lu (byte %lu): %s", line, col, (unsigned long)pos, msg);
}

/* Parses the string content c[0..n) in a document: `pre` spaces, then the string alone (wrap 0),
   in an array (1), as an object's value (2) or key (3), then `post` spaces; compares with the
   reference: the same bytes, or the same sentence at the same place. 1 if they agree. */
static int sb_parse_one(const unsigned char *c, size_t n, int wrap, size_t pre, size_t post)
{
    static const char *const open[4] = {"", "[", "{\"k\":", "{"}, *const close[4] = {"", "]", "}", ":0}"};
    char doc[800], msg[128], want[900];
    unsigned char ref[400];
    size_t at, len = 0, rl = 0, kl = 0;
    long bad;
    mcp_error err;
    mcp_json_doc *d;
    const mcp_json *r;
    const char *got = NULL;
    int ok;
    memset(doc, ' ', pre); len = pre;
    memcpy(doc + len, open[wrap], strlen(open[wrap])); len += strlen(open[wrap]);
    doc[len++] = '"';
    at = len;
    memcpy(doc + len, c, n); len += n;
    doc[len++] = '"';
    memcpy(doc + len, close[wrap], strlen(close[wrap])); len += strlen(close[wrap]);
    memset(doc + len, ' ', post); len += post;
    bad = ref_string(c, n, ref, &rl, msg);
    memset(&err, 0x55, sizeof err);
    d = parse_n(doc, len, NULL, &err);
    r = mcp_json_root(d);
    if (bad < 0) {
        if (wrap == 3) got = mcp_json_key_at(r, 0, &kl);
        else {
            if (wrap == 1) r = mcp_json_at(r, 0);
            else if (wrap == 2) r = mcp_json_get(r, "k");
            got = mcp_json_str(r);
            kl = mcp_json_len(r);
        }
        ok = d && err.status == MCP_OK && got && kl == rl && memcmp(got, ref, rl) == 0 && got[rl] == 0;
        if (!ok) SB_SHOW("  %s\n    read as %s\n    want    %s\n", show(doc, len),
                         d ? (got ? show(got, kl) : "(no string)") : err.message, show((const char *)ref, rl));
    } else {
        ref_error(doc, at + (size_t)bad, msg, want, sizeof want);
        ok = !d && err.status == MCP_ERR_PARSE && strcmp(err.message, want) == 0;
        if (!ok) SB_SHOW("  %s\n    got  %s\n    want %s\n", show(doc, len), d ? "(accepted)" : err.message, want);
    }
    mcp_json_free(d);
    return ok;
}

/* The special pieces put into a string. The JSON text ones for the parser; a piece with
   several forms takes them in turn; at_end pieces go only at the end of the string. */
typedef struct { const char *form[10]; int at_end; } sb_piece;
static const sb_piece sb_json_pieces[] = {
    {{"\\\""}, 0}, {{"\\\\"}, 0}, {{"\\/"}, 0}, {{"\\n", "\\b", "\\f", "\\r", "\\t"}, 0},
    {{"\\u00e9", "\\u00E9", "\\u0000", "\\u001f", "\\u007F", "\\u0022", "\\u005c"}, 0},
    {{"\\u20AC", "\\u0800", "\\uffff", "\\uD7FF", "\\uE000"}, 0},
    {{"\\ud83d\\ude00", "\\uDBFF\\uDFFF", "\\uD800\\uDC00"}, 0},
    {{"\x7F"}, 0},                                                     /* DEL: allowed raw */
    {{"\xC3\xA9", "\xC2\x80", "\xDF\xBF"}, 0},                         /* valid UTF-8 */
    {{"\xE2\x82\xAC", "\xE0\xA0\x80", "\xED\x9F\xBF", "\xEE\x80\x80", "\xEF\xBF\xBF"}, 0},
    {{"\xF0\x9F\x98\x80", "\xF0\x90\x80\x80", "\xF4\x8F\xBF\xBF", "\xF3\xBF\xBF\xBF"}, 0},
    {{"\x80", "\xBF"}, 0},                                             /* invalid UTF-8 */
    {{"\xC0\x80", "\xC1\xBF", "\xE0\x9F\xBF"}, 0},
    {{"\xED\xA0\x80", "\xED\xBF\xBF"}, 0},
    {{"\xF5", "\xF5\x80\x80\x80", "\xF4\x90\x80\x80", "\xF8\x88\x80\x80\x80", "\xFF"}, 0},
    {{"\xC3" "a", "\xE2\x82" "a", "\xF0\x9F\x98" "a", "\xE2" "\xC3\xA9"}, 0},   /* cut short */
    {{"\xC3", "\xE2\x82", "\xF0\x9F\x98", "\xE2", "\xF0"}, 1},         /* cut short by the end */
    {{"\\x", "\\U", "\\'", "\\ ", "\\\x7F", "\\\x01", "\\\xC3\xA9"}, 0}, /* bad escapes */
    {{"\\u12g4", "\\u00", "\\ud800", "\\udc00", "\\ud83d\\u0041", "\\uDBFF\\n"}, 0},
    {{"\\u12", "\\ud83d", "\\ud83d\\ude0"}, 1},
};

/* The filler around the pieces: printable ASCII (never '"' or '\\'), bytes next to the
   special ones included. */
static const char sb_filler[] = "The quick brown fox! #$%&'()*+,-./0123456789:;<=>?@[]^_`{|}~ \x7F" "abcXYZ";

static void sb_content(unsigned char *c, size_t len, size_t k, const char *piece, size_t pl, int ctl)
{
    size_t i;
    for (i = 0; i < len; i++) c[i] = (unsigned char)sb_filler[(i * 7 + len) % (sizeof sb_filler - 1)];
    if (ctl >= 0) c[k] = (unsigned char)ctl;
    else if (pl) memcpy(c + k, piece, pl);
}

static void test_string_parse_blocks(void)
{
    size_t len, k, i, pl, nk = sizeof sb_json_pieces / sizeof sb_json_pieces[0];
    unsigned long runs = 0, bad = 0, pre, wrap;
    unsigned char c[400];
    sb_state = 0x5EED5EED12345678u;
    /* every piece at every position of every length; the document's alignment, wrapping and
       trailing spaces (how far the end of the input is) drawn at random */
    for (len = 0; len != (size_t)-1; len = sb_len_next(len))
        for (i = 0; i <= nk; i++)                        /* i == nk: a raw control character */
            for (k = 0; k < len; k++) {
                const char *piece = NULL;
                uint64_t r = sb_rnd();
                int ctl = -1;
                if (i == nk) { ctl = (int)((k * 5 + len) % 32); pl = 1; }
                else {
                    const sb_piece *p = &sb_json_pieces[i];
                    int nf = 0;
                    while (nf < 10 && p->form[nf]) nf++;
                    piece = p->form[(k + len) % (size_t)nf];
                    pl = strlen(piece);
                    if (pl > len - k || (p->at_end && k != len - pl)) continue;
                }
                sb_content(c, len, k, piece, pl, ctl);
                runs++;
                if (!sb_parse_one(c, len, (int)(r & 3), (size_t)(r >> 8) % 64, (size_t)(r >> 16) % 80)) bad++;
            }
    /* every alignment (0..63 spaces before) and wrapping for strings around 32 and 64 bytes,
       with a raw control character, an escape, a 4-byte character and a lone continuation byte
       at every position */
    {
        static const size_t lens[] = {0, 1, 8, 9, 31, 33, 63, 64, 65, 72};
        static const char *const few[] = {NULL, "\\n", "\xF0\x9F\x98\x80", "\x80"};
        size_t li, fi;
        for (pre = 0; pre < 64; pre += quick ? 7 : 1)
            for (wrap = 0; wrap < 4; wrap++)
                for (li = 0; li < sizeof lens / sizeof lens[0]; li++)
                    for (fi = 0; fi < 4; fi++)
                        for (len = lens[li], k = 0; k < len; k++) {
                            pl = few[fi] ? strlen(few[fi]) : 1;
                            if (pl > len - k) continue;
                            sb_content(c, len, k, few[fi], pl, few[fi] ? -1 : (int)(k % 32));
                            runs++;
                            if (!sb_parse_one(c, len, (int)wrap, pre, (size_t)((k + pre) % 72))) bad++;
                        }
    }
    CHECKF(bad == 0, "strings with special bytes at every position: %lu of %lu read wrongly", bad, runs);
    CHECK(runs > (quick ? 5000ul : 100000ul));

    /* plain strings of every length at every alignment and distance from the end */
    bad = runs = 0;
    for (len = 0; len <= 140; len++)
        for (pre = 0; pre < 64; pre += 9)
            for (k = 0; k < 72; k += quick ? 13 : 3) {
                sb_content(c, len, 0, NULL, 0, -1);
                if (len) c[0] = (unsigned char)sb_filler[len % (sizeof sb_filler - 1)];
                runs++;
                if (!sb_parse_one(c, len, (int)((len + pre) & 3), pre, k)) bad++;
            }
    CHECKF(bad == 0, "plain strings: %lu of %lu read wrongly", bad, runs);

    /* random mixtures: several pieces (any kind) and non-ASCII filler in one string */
    bad = runs = 0;
    for (i = 0; i < (quick ? 3000u : 30000u); i++) {
        size_t want = sb_rndn(201), n = 0, specials = sb_rndn(4);
        unsigned per = 1 + sb_rndn(40);
        while (n < want) {
            unsigned r = sb_rndn(per * 3);
            if (r == 0 && specials) {
                const sb_piece *p = &sb_json_pieces[sb_rndn((unsigned)nk)];
                int nf = 0;
                const char *f;
                while (nf < 10 && p->form[nf]) nf++;
                f = p->form[sb_rndn((unsigned)nf)];
                pl = strlen(f);
                if (n + pl > want || (p->at_end && n + pl != want)) continue;
                memcpy(c + n, f, pl); n += pl; specials--;
            } else if (r == 1 && specials) {
                c[n++] = (unsigned char)sb_rndn(32); specials--;
            } else if (r == 2 && n + 3 <= want) {
                memcpy(c + n, "\xE2\x82\xAC", 3); n += 3;
            } else c[n++] = (unsigned char)sb_filler[sb_rndn(sizeof sb_filler - 1)];
        }
        runs++;
        if (!sb_parse_one(c, n, (int)sb_rndn(4), sb_rndn(64), sb_rndn(80))) bad++;
    }
    CHECKF(bad == 0, "random strings: %lu of %lu read wrongly", bad, runs);
}

/* Writes s[0..n) (from an exact-size heap copy) with mcp_jw_strn (as_key 0) or mcp_jw_keyn
   (1) into w (reset, compact or pretty), as the first item or member (ctx 0; a value ctx 0 is
   the top-level value) or after one (ctx 1). Valid UTF-8: the text so far must be exactly
   what the reference escaper gives; otherwise the call fails with the sentence and writes
   nothing, not even the separator. 1 if so. */
static int sb_write_one(mcp_jw *w, const unsigned char *s, size_t n, int as_key, int ctx)
{
    char want[2200], head[32];
    size_t hl, wl, before;
    char *copy = exact_copy((const char *)s, n);
    mcp_status st;
    mcp_error err;
    int ok;
    mcp_jw_reset(w);
    if (as_key) {
        mcp_jw_obj_begin(w);
        if (ctx) { mcp_jw_key(w, "a"); mcp_jw_int(w, 1); }
        strcpy(head, !ctx ? "{" : w->pretty ? "{\n  \"a\": 1" : "{\"a\":1");
    } else {
        if (ctx) { mcp_jw_arr_begin(w); mcp_jw_int(w, 1); }
        strcpy(head, !ctx ? "" : w->pretty ? "[\n  1" : "[1");
    }
    hl = strlen(head);
    before = w->len;
    st = as_key ? mcp_jw_keyn(w, copy, n) : mcp_jw_strn(w, copy, n);
    if (ref_utf8_all(s, n)) {
        memcpy(want, head, hl); wl = hl;
        if (ctx) want[wl++] = ',';
        if (w->pretty && (ctx || as_key)) { memcpy(want + wl, "\n  ", 3); wl += 3; }
        wl += ref_escape(s, n, want + wl);
        if (as_key) { memcpy(want + wl, w->pretty ? ": " : ":", w->pretty ? 2u : 1u); wl += w->pretty ? 2u : 1u; }
        ok = st == MCP_OK && before == hl && w->len == wl && memcmp(w->buf, want, wl) == 0;
        if (!ok) SB_SHOW("  %s(%s) %s:\n    wrote %s\n    want  %s\n", as_key ? "mcp_jw_keyn" : "mcp_jw_strn",
                         show((const char *)s, n), w->pretty ? "pretty" : "compact",
                         show(w->buf ? w->buf : "", w->len), show(want, wl));
    } else {
        ok = st == MCP_ERR_INVALID && before == hl && w->len == hl && (!hl || memcmp(w->buf, head, hl) == 0) &&
             mcp_jw_status(w, &err) == MCP_ERR_INVALID &&
             strcmp(err.message, "JSON writer error: a string that is not valid UTF-8.") == 0;
        if (!ok) SB_SHOW("  %s(%s) %s after %s: status %d, wrote %s\n", as_key ? "mcp_jw_keyn" : "mcp_jw_strn",
                         show((const char *)s, n), w->pretty ? "pretty" : "compact", show(head, hl), (int)st,
                         show(w->buf ? w->buf : "", w->len));
    }
    free(copy);
    return ok;
}

static void test_string_write_blocks(void)
{
    /* raw bytes for the writer: to be escaped, copied, or refused (invalid UTF-8) */
    static const sb_piece raw[] = {
        {{"\""}, 0}, {{"\\"}, 0}, {{"/"}, 0}, {{"\x7F"}, 0},
        {{"\xC3\xA9", "\xC2\x80", "\xDF\xBF"}, 0},
        {{"\xE2\x82\xAC", "\xE0\xA0\x80", "\xED\x9F\xBF", "\xEE\x80\x80", "\xEF\xBF\xBF"}, 0},
        {{"\xF0\x9F\x98\x80", "\xF0\x90\x80\x80", "\xF4\x8F\xBF\xBF"}, 0},
        {{"\x80", "\xBF"}, 0}, {{"\xC0\x80", "\xC1\xBF", "\xE0\x9F\xBF"}, 0}, {{"\xED\xA0\x80", "\xED\xBF\xBF"}, 0},
        {{"\xF5", "\xF5\x80\x80\x80", "\xF4\x90\x80\x80", "\xF8\x88\x80\x80\x80", "\xFF"}, 0},
        {{"\xC3" "a", "\xE2\x82" "a", "\xF0\x9F\x98" "a", "\xE2" "\xC3\xA9", "\xC3\x80\x80"}, 0},
        {{"\xC3", "\xE2\x82", "\xF0\x9F\x98", "\xE2", "\xF0"}, 1},
    };
    size_t len, k, i, pl, nk = sizeof raw / sizeof raw[0];
    unsigned long runs = 0, bad = 0, ctr = 0;
    unsigned char c[400];
    mcp_jw w[2];
    mcp_jw_init(&w[0], 0);
    mcp_jw_init(&w[1], 1);
    for (len = 0; len != (size_t)-1; len = sb_len_next(len))
        for (i = 0; i <= nk; i++)                        /* i == nk: a control character */
            for (k = 0; k < (len ? len : 1); k++) {
                const char *piece = NULL;
                int ctl = -1, nf = 0;
                if (i == nk) { ctl = (int)((k * 5 + len) % 32); pl = 1; }
                else {
                    while (nf < 10 && raw[i].form[nf]) nf++;
                    piece = raw[i].form[(k + len) % (size_t)nf];
                    pl = strlen(piece);
                }
                if (pl > len - k || (i < nk && raw[i].at_end && k != len - pl)) {
                    if (len) continue;
                    pl = 0; ctl = -1; piece = "";           /* len 0: the empty string */
                }
                sb_content(c, len, k, piece, pl, ctl);
                ctr++;
                runs += 2;
                if (!sb_write_one(&w[ctr & 1], c, len, 0, (int)(ctr >> 1 & 1))) bad++;
                if (!sb_write_one(&w[ctr >> 2 & 1], c, len, 1, (int)(ctr >> 3 & 1))) bad++;
            }
    mcp_jw_free(&w[0]);
    mcp_jw_free(&w[1]);
    CHECKF(bad == 0, "writing strings with special bytes at every position: %lu of %lu wrong", bad, runs);
    CHECK(runs > (quick ? 5000ul : 100000ul));

    /* invalid UTF-8 at every position of a 150-byte string, in all eight places */
    bad = runs = 0;
    mcp_jw_init(&w[0], 0);
    mcp_jw_init(&w[1], 1);
    for (k = 0; k < 150; k++) {
        int p, key, ctx;
        sb_content(c, 150, k, "\xF0\x9F\x98", 3, -1);
        if (k + 3 < 150) c[k + 3] = 'z';
        for (p = 0; p < 2; p++)
            for (key = 0; key < 2; key++)
                for (ctx = 0; ctx < 2; ctx++) {
                    runs++;
                    if (!sb_write_one(&w[p], c, k + 3 <= 150 ? 150 : k + 3, key, ctx)) bad++;
                }
    }
    mcp_jw_free(&w[0]);
    mcp_jw_free(&w[1]);
    CHECKF(bad == 0, "invalid UTF-8 at every position: %lu of %lu wrong", bad, runs);
}

/* Random valid strings (ASCII, '"', '\\', control characters, DEL, 2-, 3- and 4-byte UTF-8)
   of up to 300 bytes, with a fixed seed: written as a value and as a key, read back, the same
   bytes; dumped, the reference's escaping. The first tenth again all in one document. */
static void test_string_roundtrip_blocks(void)
{
    static unsigned char s[310];
    static char esc[310 * 6 + 8];
    size_t i, n, nkept = 0, count = quick ? 2000 : 20000;
    unsigned long bad = 0;
    char **kept = (char **)calloc(count / 10, sizeof *kept);
    size_t *kept_len = (size_t *)calloc(count / 10, sizeof *kept_len);
    mcp_jw all;
    if (!kept || !kept_len) exit(2);
    sb_state = 0xC0FFEE0123456789u;
    mcp_jw_init(&all, 1);
    mcp_jw_arr_begin(&all);
    for (i = 0; i < count; i++) {
        size_t want = sb_rndn(301), kl = 0, len, el;
        unsigned ascii = sb_rndn(101);   /* how much plain ASCII, in percent */
        mcp_jw w;
        mcp_json_doc *d;
        const mcp_json *r, *v;
        const char *k;
        char *t, *dump;
        int ok;
        n = 0;
        for (;;) {
            unsigned char tok[4];
            size_t tl;
            unsigned pick = sb_rndn(100), cp;
            if (pick < ascii) { tok[0] = (unsigned char)(0x20 + sb_rndn(95)); tl = 1; }
            else if ((pick = sb_rndn(10)) < 2) { tok[0] = (unsigned char)"\"\\/\x7F"[sb_rndn(4)]; tl = 1; }
            else if (pick < 4) { tok[0] = (unsigned char)sb_rndn(32); tl = 1; }
            else {
                static const unsigned lo[3] = {0x80, 0x800, 0x10000}, hi[3] = {0x7FF, 0xFFFF, 0x10FFFF};
                unsigned b = sb_rndn(3);
                do cp = lo[b] + sb_rndn(hi[b] - lo[b] + 1); while (cp >= 0xD800 && cp <= 0xDFFF);
                tl = ref_put_utf8(cp, tok);
            }
            if (n + tl > want) break;
            memcpy(s + n, tok, tl); n += tl;
        }
        mcp_jw_init(&w, (int)(i & 1));
        mcp_jw_arr_begin(&w);
        mcp_jw_int(&w, (int64_t)i);
        mcp_jw_strn(&w, (const char *)s, n);
        mcp_jw_obj_begin(&w);
        mcp_jw_key(&w, "x"); mcp_jw_null(&w);
        mcp_jw_keyn(&w, (const char *)s, n); mcp_jw_int(&w, 0);
        mcp_jw_obj_end(&w);
        mcp_jw_arr_end(&w);
        t = mcp_jw_finish(&w, &len, NULL);
        d = t ? parse_n(t, len, NULL, NULL) : NULL;
        r = mcp_json_root(d);
        v = mcp_json_at(r, 1);
        k = mcp_json_key_at(mcp_json_at(r, 2), 1, &kl);
        ok = d && mcp_json_len(r) == 3 && mcp_json_len(v) == n && mcp_json_str(v) &&
             memcmp(mcp_json_str(v), s, n) == 0 && mcp_json_str(v)[n] == 0 && k && kl == n && memcmp(k, s, n) == 0;
        el = ref_escape(s, n, esc);
        dump = ok ? mcp_json_dump(v, 0, &len) : NULL;
        ok = ok && dump && len == el && memcmp(dump, esc, el) == 0;
        if (!ok) { bad++; SB_SHOW("  round trip of %s: %s\n", show((const char *)s, n), t ? show(t, strlen(t)) : "(not written)"); }
        mcp_free(dump);
        mcp_free(t);
        mcp_json_free(d);
        if (nkept < count / 10) {
            kept[nkept] = exact_copy((const char *)s, n);
            kept_len[nkept++] = n;
            mcp_jw_strn(&all, (const char *)s, n);
        }
    }
    CHECKF(bad == 0, "random strings: %lu of %lu did not survive writing and reading", bad, (unsigned long)count);
    {   /* the kept ones in one pretty document */
        size_t bl;
        char *bt;
        mcp_json_doc *d;
        const mcp_json *r;
        int ok;
        mcp_jw_arr_end(&all);
        bt = mcp_jw_finish(&all, &bl, NULL);
        d = bt ? parse_n(bt, bl, NULL, NULL) : NULL;
        r = mcp_json_root(d);
        ok = d && mcp_json_len(r) == nkept;
        for (i = 0; i < nkept; i++) {
            const mcp_json *v = mcp_json_at(r, i);
            ok = ok && mcp_json_len(v) == kept_len[i] && mcp_json_str(v) && memcmp(mcp_json_str(v), kept[i], kept_len[i]) == 0;
            free(kept[i]);
        }
        CHECKF(ok, "%lu random strings in one document were not read back", (unsigned long)nkept);
        mcp_json_free(d);
        mcp_free(bt);
        free(kept);
        free(kept_len);
    }
}

TEST_CASE(string_blocks)
{
    double t0 = now_s();
    test_string_parse_blocks();
    test_string_write_blocks();
    test_string_roundtrip_blocks();
    printf("string block tests: %.2f s\n", now_s() - t0);
}

/* ---- 12. JSON with comments ------------------------------------------------------------------- */

static mcp_json_doc *parse_c(const char *s, size_t n, mcp_error *err)
{
    mcp_json_opts o;
    memset(&o, 0, sizeof o);
    o.comments = 1;
    return parse_n(s, n, &o, err);
}

/* s parses with comments to the value of strict text want, and strict mode refuses s
   (unless s is itself strict JSON: strict_ok). */
static int comments_same(const char *s, const char *want, int strict_ok)
{
    mcp_error err;
    mcp_json_doc *c = parse_c(s, strlen(s), &err), *w = parse_s(want, NULL), *strict;
    int ok = c && w && mcp_json_equal(mcp_json_root(c), mcp_json_root(w));
    if (!c) fprintf(stderr, "  with comments, refused: %s\n  %s\n", SHOW(s), err.message);
    strict = parse_s(s, NULL);
    if ((strict != NULL) != strict_ok) {
        fprintf(stderr, "  strict mode %s: %s\n", strict ? "accepted" : "refused", SHOW(s));
        ok = 0;
    }
    mcp_json_free(c); mcp_json_free(w); mcp_json_free(strict);
    return ok;
}
#define SAME_C(s, want) CHECKF(comments_same((s), (want), 0), "%s", SHOW(s))

static int expect_error_c(const char *s, const char *msg)
{
    mcp_json_opts o;
    memset(&o, 0, sizeof o);
    o.comments = 1;
    return expect_error_n(s, strlen(s), &o, MCP_ERR_PARSE, msg);
}
#define EXPECT_ERROR_C(s, msg) CHECK(expect_error_c((s), (msg)))

TEST_CASE(comments)
{
    /* every gap between tokens gets each separator, one gap at a time and all at once */
    static const char *const tok[] = { "{", "\"a\"", ":", "[", "1", ",", "-2.5e3", ",", "{",
        "\"b\"", ":", "null", "}", ",", "[", "]", ",", "{", "}", ",", "\"x//y/*z*/\"", "]", ",",
        "\"c\"", ":", "true", "}" };
    static const char *const sep[] = { "/**/", "/* c */", "//\n", "// c\r\n", " /* a\n b */ // c\n\t",
        "/***/", "/*/ */", "/* /* */", "// /*\n", "/*//*/" };
    const size_t nt = sizeof tok / sizeof tok[0], ns = sizeof sep / sizeof sep[0];
    char want[512], buf[4096];
    size_t gap, k, i;
    mcp_error err;
    mcp_json_doc *d;
    int bad = 0;

    want[0] = 0;
    for (i = 0; i < nt; i++) strcat(want, tok[i]);
    for (k = 0; k < ns; k++)
        for (gap = 0; gap <= nt; gap++) {       /* gap nt: all of them, before and after too */
            buf[0] = 0;
            for (i = 0; i <= nt; i++) {
                if (i == gap || gap == nt) strcat(buf, sep[k]);
                if (i < nt) strcat(buf, tok[i]);
            }
            if (!comments_same(buf, want, 0)) bad++;
        }
    CHECKF(bad == 0, "%d of %lu texts with comments misread", bad, (unsigned long)(ns * (nt + 1)));
    CHECK(comments_same(want, want, 1));      /* strict text reads the same in both modes */
    SAME_C("1//end", "1");
    SAME_C("1/*end*/", "1");
    SAME_C("true/**/", "true");
    SAME_C("\"s\"//", "\"s\"");
    SAME_C("// only a comment first\n[]", "[]");
    SAME_C("[/**/]", "[]");
    SAME_C("{/**/}", "{}");
    SAME_C("[ // nothing\n]", "[]");

    /* trailing commas */
    SAME_C("[1,]", "[1]");
    SAME_C("[1 , ]", "[1]");
    SAME_C("[[],]", "[[]]");
    SAME_C("{\"a\":1,}", "{\"a\":1}");
    SAME_C("{\"a\":[1,2,],\"b\":{\"c\":{},},}", "{\"a\":[1,2],\"b\":{\"c\":{}}}");
    SAME_C("[1, /* last */ ]", "[1]");
    SAME_C("{\"a\": 1, // last\n}", "{\"a\":1}");

    /* still refused, with comments */
    EXPECT_ERROR_C("[,]", "JSON parse error at line 1, column 2 (byte 1): expected a value, found ','");
    EXPECT_ERROR_C("{,}", "JSON parse error at line 1, column 2 (byte 1): expected a string key, found ','");
    EXPECT_ERROR_C("[1,,]", "JSON parse error at line 1, column 4 (byte 3): expected a value, found ','");
    EXPECT_ERROR_C("{\"a\":1,,}", "JSON parse error at line 1, column 8 (byte 7): expected a string key, found ','");
    EXPECT_ERROR_C("{\"a\":}", "JSON parse error at line 1, column 6 (byte 5): expected a value, found '}'");
    EXPECT_ERROR_C("{\"a\":]", "JSON parse error at line 1, column 6 (byte 5): expected a value, found ']'");
    EXPECT_ERROR_C("]", "JSON parse error at line 1, column 1 (byte 0): expected a value, found ']'");
    EXPECT_ERROR_C("[1,]]", "JSON parse error at line 1, column 5 (byte 4): unexpected data after the JSON value");
    EXPECT_ERROR_C("[1}", "JSON parse error at line 1, column 3 (byte 2): expected ',' or ']', found '}'");
    EXPECT_ERROR_C("[1,}", "JSON parse error at line 1, column 4 (byte 3): expected ',' or ']', found '}'");
    EXPECT_ERROR_C("{\"a\":1]", "JSON parse error at line 1, column 7 (byte 6): expected ',' or '}', found ']'");
    EXPECT_ERROR_C("{\"a\":1,]", "JSON parse error at line 1, column 8 (byte 7): expected ',' or '}', found ']'");
    EXPECT_ERROR_C("{\n  \"a\": 1 /* open\n", "JSON parse error at line 2, column 10 (byte 11): "
                   "unterminated block comment (no */ after its /*)");
    EXPECT_ERROR_C("/*", "JSON parse error at line 1, column 1 (byte 0): unterminated block comment (no */ after its /*)");
    EXPECT_ERROR_C("/*/", "JSON parse error at line 1, column 1 (byte 0): unterminated block comment (no */ after its /*)");
    EXPECT_ERROR_C("[1, /* x *", "JSON parse error at line 1, column 5 (byte 4): unterminated block comment (no */ after its /*)");
    EXPECT_ERROR_C("/", "JSON parse error at line 1, column 1 (byte 0): a '/' that begins no comment (// or /*)");
    EXPECT_ERROR_C("1 /", "JSON parse error at line 1, column 3 (byte 2): a '/' that begins no comment (// or /*)");
    EXPECT_ERROR_C("[1,/]", "JSON parse error at line 1, column 4 (byte 3): a '/' that begins no comment (// or /*)");
    EXPECT_ERROR_C("{\"a\" /x: 1}", "JSON parse error at line 1, column 6 (byte 5): a '/' that begins no comment (// or /*)");
    EXPECT_ERROR_C("{/ }", "JSON parse error at line 1, column 2 (byte 1): a '/' that begins no comment (// or /*)");
    EXPECT_ERROR_C("/* a */ */ 1", "JSON parse error at line 1, column 9 (byte 8): expected a value, found '*'");
    EXPECT_ERROR_C("// nothing but a comment", "JSON parse error at line 1, column 25 (byte 24): expected a value but the input ended");
    EXPECT_ERROR_C("[1] // c\n x", "JSON parse error at line 2, column 2 (byte 10): unexpected data after the JSON value");
    EXPECT_ERROR_C("/* \xC3\xA9 */ x", "JSON parse error at line 1, column 9 (byte 9): expected a value, found 'x'");
    EXPECT_ERROR_C("{\"a\",}", "JSON parse error at line 1, column 6 (byte 5): expected ':' after the key, found '}'");
    EXPECT_ERROR_C("[\"a\" \"b\"]", "JSON parse error at line 1, column 6 (byte 5): expected ',' or ']', found '\"'");

    /* strict mode: the old sentences, comments and trailing commas refused */
    EXPECT_ERROR("[1,]", MCP_ERR_PARSE, "JSON parse error at line 1, column 4 (byte 3): expected a value, found ']'");
    EXPECT_ERROR("{\"a\":1,}", MCP_ERR_PARSE, "JSON parse error at line 1, column 8 (byte 7): expected a string key, found '}'");
    EXPECT_ERROR("[1 /**/]", MCP_ERR_PARSE, "JSON parse error at line 1, column 4 (byte 3): expected ',' or ']', found '/'");
    EXPECT_ERROR("// c\n1", MCP_ERR_PARSE, "JSON parse error at line 1, column 1 (byte 0): expected a value, found '/'");
    EXPECT_ERROR("1 // c", MCP_ERR_PARSE, "JSON parse error at line 1, column 3 (byte 2): unexpected data after the JSON value");
    EXPECT_ERROR("{\"a\"/**/:1}", MCP_ERR_PARSE, "JSON parse error at line 1, column 5 (byte 4): expected ':' after the key, found '/'");
    EXPECT_ERROR("{/**/}", MCP_ERR_PARSE, "JSON parse error at line 1, column 2 (byte 1): expected a string key, found '/'");

    /* a document read with comments is an ordinary document: it dumps as strict JSON */
    d = parse_c("{ // c\n \"k\": [1, 2, ], /* d */ }", 32, &err);
    CHECK(d != NULL);
    if (d) {
        char *t = mcp_json_dump(mcp_json_root(d), 0, NULL);
        CHECK(t && strcmp(t, "{\"k\":[1,2]}") == 0);
        mcp_free(t);
        mcp_json_free(d);
    }
    /* the depth limit still holds */
    {
        mcp_json_opts o;
        memset(&o, 0, sizeof o);
        o.comments = 1; o.max_depth = 2;
        CHECK(expect_error_n("[/**/[/**/[]]]", 14, &o, MCP_ERR_LIMIT,
                             "JSON parse error at line 1, column 11 (byte 10): nesting is deeper than the limit of 2 levels"));
    }
}

/* Every y_ file of JSONTestSuite reads the same with comments allowed; every proper prefix
   of a container document is still refused. */
TEST_CASE(comments_suite)
{
    char dir[1024], path[1280];
    char **names;
    size_t count, i, len, k, last;
    int y = 0, same = 0, prefix_bad = 0;
    snprintf(dir, sizeof dir, "%s/JSONTestSuite/test_parsing", datadir);
    names = list_dir(dir, &count);
    if (!names) { SKIP("no %s", dir); return; }
    for (i = 0; i < count; i++) {
        char *text;
        mcp_json_doc *a, *b;
        if (names[i][0] != 'y') continue;
        snprintf(path, sizeof path, "%s/%s", dir, names[i]);
        if (!(text = read_file(path, &len))) continue;
        y++;
        a = parse_n(text, len, NULL, NULL);
        b = parse_c(text, len, NULL);
        if (a && b && mcp_json_equal(mcp_json_root(a), mcp_json_root(b))) same++;
        else fprintf(stderr, "  %s: reads differently with comments\n", names[i]);
        last = len;
        while (last > 0 && strchr(" \t\r\n", text[last - 1])) last--;
        if (len && (text[0] == '[' || text[0] == '{'))
            for (k = 0; k < last; k++) {
                mcp_json_doc *p = parse_c(text, k, NULL);
                if (p) { prefix_bad++; mcp_json_free(p); }
            }
        mcp_json_free(a); mcp_json_free(b);
        free(text);
    }
    free_list(names, count);
    CHECKF(y > 90 && same == y, "%d of %d y_ files read the same with comments", same, y);
    CHECKF(prefix_bad == 0, "%d proper prefixes accepted with comments", prefix_bad);
}

/* ---- last: a NULL text of length 0 ------------------------------------------------------------- */

/* mcp_json_parse(NULL, 0) is an empty text (only NULL with a nonzero length is refused as
   MCP_ERR_INVALID). Run last: mcp.h computes NULL + 0 here, which UBSan reports as undefined
   behaviour and, with -fno-sanitize-recover, aborts on (see the report). */
TEST_CASE(null_text)
{
    printf("before the NULL-text check: %d passed, %d failed\n", t_pass, t_fail);
    mcp_error err;
    mcp_json_doc *d = mcp_json_parse(NULL, 0, &err);
    CHECK(d == NULL && err.status == MCP_ERR_PARSE &&
          strcmp(err.message, "JSON parse error at line 1, column 1 (byte 0): expected a value but the input ended") == 0);
    CHECK(mcp_json_parse_ex(NULL, 0, NULL, NULL) == NULL);
}

/* ---- main ---------------------------------------------------------------------------------- */

int main(int argc, char **argv)
{
    const char *q = getenv("MCP_TEST_QUICK"), *seed = getenv("MCP_TEST_SEED");
    setvbuf(stdout, NULL, _IOLBF, 0);   /* keep the lines if a sanitizer aborts */
    test_args(&argc, argv);
    quick = q && *q && strcmp(q, "0") != 0;
    if (argc > 1) datadir = argv[1];
    if (argc > 0 && argv[0]) progname = argv[0];
    if (seed && *seed) rng_state = strtoull(seed, NULL, 10);
    printf("test_json: data %s, %s run, seed %llu\n", datadir, quick ? "quick" : "full",
           (unsigned long long)rng_state);
    test_run();   /* null_text last: it aborts under UBSan until mcp.h is fixed */
    return TEST_DONE();
}
