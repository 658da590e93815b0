/* libFuzzer target for the form/query codec (>>http, mcp_http_form_get and _append), make
   fuzz.

   Input: [cut][data...]
     data  looked up as form data for a few fixed names and for the first pair's own name,
           each answer compared with a plain reference reader written here (split at '&',
           then at the first '=', decode '+' and %XX, compare whole names); errors must be
           MCP_ERR_PARSE with a sentence, and exactly when the reference finds a bad escape,
           a NUL or the name twice;
     cut   where data splits into a name and a value (data length * cut / 255) for the round
           trip: NUL bytes become 0x01, both are appended to a buffer that already holds a
           pair, the output may only hold unreserved characters, "%XX" (upper-case hex), '='
           and '&', and reading the name back gives the value.
   The form data is a malloc'd copy of exactly its bytes, so ASan sees a read past it. */
#define MCP_IMPLEMENTATION
#include "../../mcp.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "fuzz.h"

int LLVMFuzzerTestOneInput(const unsigned char *data, size_t size);

static int hexv(int c)
{
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
}

/* Decodes s[0..n) into out (room for n + 1); -1 when an escape is bad or gives NUL. */
static long ref_decode(const char *s, size_t n, char *out)
{
    size_t i, k = 0;
    for (i = 0; i < n; i++) {
        int c = (unsigned char)s[i];
        if (c == 0) return -1;
        if (c == '+') c = ' ';
        else if (c == '%') {
            if (i + 2 >= n) return -1;
            if (hexv((unsigned char)s[i + 1]) < 0 || hexv((unsigned char)s[i + 2]) < 0) return -1;
            c = hexv((unsigned char)s[i + 1]) * 16 + hexv((unsigned char)s[i + 2]);
            if (!c) return -1;
            i += 2;
        }
        out[k++] = (char)c;
    }
    out[k] = 0;
    return (long)k;
}

/* The reference: 1 found (value in val), 0 absent, -1 malformed, -2 name repeated. */
static int ref_get(const char *s, size_t len, const char *name, size_t name_len, char *tmp, char *val, long *vlen)
{
    size_t i = 0, pe, eq;
    int found = 0;
    long nl;
    /* escapes are checked over the whole data, pair boundaries or not */
    for (pe = 0; pe < len; pe++) {
        if (!s[pe]) return -1;
        if (s[pe] == '%' && pe + 2 >= len) return -1;
        if (s[pe] == '%' && (hexv((unsigned char)s[pe + 1]) < 0 || hexv((unsigned char)s[pe + 2]) < 0 ||
                             (s[pe + 1] == '0' && s[pe + 2] == '0'))) return -1;
    }
    while (i < len) {
        for (pe = i; pe < len && s[pe] != '&'; pe++) {}
        for (eq = i; eq < pe && s[eq] != '='; eq++) {}
        if (pe > i) {
            nl = ref_decode(s + i, eq - i, tmp);
            REQUIRE(nl >= 0);
            if ((size_t)nl == name_len && !memcmp(tmp, name, name_len)) {
                if (found) return -2;
                found = 1;
                *vlen = eq < pe ? ref_decode(s + eq + 1, pe - eq - 1, val) : 0;
                if (eq == pe) val[0] = 0;
                REQUIRE(*vlen >= 0);
            }
        }
        i = pe + 1;
    }
    return found;
}

static void lookup(const char *s, size_t len, const char *name, size_t name_len, char *tmp, char *val)
{
    mcp_buf out = {0};
    mcp_error err;
    long vlen = 0;
    int want = ref_get(s, len, name, name_len, tmp, val, &vlen), got;
    if (memchr(name, 0, name_len)) return;     /* a C string cannot name it */
    got = mcp_http_form_get(s, len, name, &out, &err);
    if (want == 1) {
        REQUIRE(got == 1 && out.len == (size_t)vlen && !memcmp(out.data, val, out.len) && !out.data[out.len]);
        REQUIRE(!memchr(out.data, 0, out.len) && err.status == MCP_OK);
    } else if (want == 0) {
        REQUIRE(got == 0 && out.len == 0 && err.status == MCP_OK);
    } else {
        size_t n = strlen(err.message);
        REQUIRE(got == MCP_ERR_PARSE && err.status == MCP_ERR_PARSE && out.len == 0);
        REQUIRE(n > 20 && err.message[0] >= 'A' && err.message[0] <= 'Z' && err.message[n - 1] == '.');
        REQUIRE((want == -2) == (strstr(err.message, "more than once") != NULL));
    }
    mcp_buf_free(&out);
}

static void round_trip(const char *name, const char *value, size_t vlen)
{
    mcp_buf out = {0}, back = {0};
    mcp_error err;
    size_t i, start;
    REQUIRE(mcp_http_form_append(&out, "zz", "1", &err) == MCP_OK);
    start = out.len;
    REQUIRE(mcp_http_form_append(&out, name, value, &err) == MCP_OK && out.len > start && out.data[start] == '&');
    for (i = 0; i < out.len; i++) {
        char c = out.data[i];
        if (c == '%') {
            REQUIRE(i + 2 < out.len && strchr("0123456789ABCDEF", out.data[i + 1]) && strchr("0123456789ABCDEF", out.data[i + 2]));
            REQUIRE(out.data[i + 1] && out.data[i + 2]);
            i += 2;
        } else {
            REQUIRE((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || (c && strchr("-._~=&", c)));
        }
    }
    if (strcmp(name, "zz")) {
        REQUIRE(mcp_http_form_get(out.data, out.len, name, &back, &err) == 1);
        REQUIRE(back.len == vlen && (!vlen || !memcmp(back.data, value, vlen)));
    }
    mcp_buf_free(&out);
    mcp_buf_free(&back);
}

int LLVMFuzzerTestOneInput(const unsigned char *data, size_t size)
{
    static const char *const names[] = { "code", "state", "iss", "error", "", "a", "a b" };
    char *s, *tmp, *val, *name, *value;
    size_t n, i, cut, first;
    if (size < 1 || size > 4096) return 0;
    n = size - 1;
    s = (char *)malloc(n ? n : 1); tmp = (char *)malloc(n + 1); val = (char *)malloc(n + 1);
    name = (char *)malloc(n + 1); value = (char *)malloc(n + 1);
    REQUIRE(s && tmp && val && name && value);
    if (n) memcpy(s, data + 1, n);
    for (i = 0; i < sizeof names / sizeof names[0]; i++) lookup(s, n, names[i], strlen(names[i]), tmp, val);
    for (first = 0; first < n && s[first] != '&' && s[first] != '='; first++) {}
    if (ref_decode(s, first, name) >= 0) lookup(s, n, name, strlen(name), tmp, val);

    cut = n * data[0] / 255;
    for (i = 0; i < n; i++) *(i < cut ? &name[i] : &value[i - cut]) = data[1 + i] ? (char)data[1 + i] : 1;
    name[cut] = 0; value[n - cut] = 0;
    round_trip(name, value, n - cut);
    free(s); free(tmp); free(val); free(name); free(value);
    return 0;
}
