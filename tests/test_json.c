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
    4. Numbers: exact int64, mcp_json_int64, a hard-case list, and a large random sample
       compared bit for bit with strtod (C locale), exact halfway points from long double,
       and the writer's doubles read back by mcp.h and by strtod.
    5. Locale independence under de_DE.UTF-8 (fails if no comma-decimal locale exists).
    6. Limits: depth (default, per call, a million deep) and max_size.
    7. Error messages: exact sentences with line, column and byte.
    8. Accessors and conventions (NULL safety, duplicates, the document owns its strings).
    9. The writer: every function, exact compact and pretty text, escaping, misuse.
   10. Strictness odds and ends, big arrays and objects.

   Usage: test_json [DATA_DIR]   (default tests/data; MCP_TEST_QUICK=1 shrinks the loops,
   MCP_TEST_SEED=N changes the random seed) */
#define _POSIX_C_SOURCE 200809L   /* opendir */
#include "../mcp.h"
#include "test.h"
#include <dirent.h>
#include <float.h>
#include <locale.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static int quick;
static const char *datadir = "tests/data";

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

static void test_suite(void)
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

static void test_roundtrip(void)
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

static void test_utf8(void)
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

/* ---- main ---------------------------------------------------------------------------------- */

int main(int argc, char **argv)
{
    const char *q = getenv("MCP_TEST_QUICK"), *seed = getenv("MCP_TEST_SEED");
    quick = q && *q && strcmp(q, "0") != 0;
    if (argc > 1) datadir = argv[1];
    if (seed && *seed) rng_state = strtoull(seed, NULL, 10);
    printf("test_json: data %s, %s run, seed %llu\n", datadir, quick ? "quick" : "full",
           (unsigned long long)rng_state);
    (void)expect_error_n; (void)outcome; (void)parse_s; (void)now_s; (void)rndn; (void)bitsd; /* TEMP */
    test_suite();
    test_roundtrip();
    test_utf8();
    return TEST_DONE();
}
