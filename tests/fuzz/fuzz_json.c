/* libFuzzer target for the JSON layer (make fuzz). For every input:
   - mcp_json_parse, and mcp_json_parse_ex with a small depth limit, must agree: the limited
     parse succeeds only if the plain one does (to an equal value), and fails only with
     MCP_ERR_LIMIT where the plain one succeeded;
   - a failure fills mcp_error with a parse or limit status and a message;
   - an accepted document is walked completely through the accessors;
   - it is dumped compact and pretty; both texts parse back to an equal value, and dumping
     that again gives the same bytes;
   - the writer's deep copy (mcp_jw_value) and raw insertion (mcp_jw_raw) give the same text.
   Any disagreement aborts, which libFuzzer reports as a crash. */
#define MCP_IMPLEMENTATION
#include "../../mcp.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "fuzz.h"

#define SMALL_DEPTH 6

int LLVMFuzzerTestOneInput(const unsigned char *data, size_t size);

/* Visit every value; returns the number visited. Recursion is bounded by the parser's depth
   limit (default 512). */
static size_t walk(const mcp_json *v, size_t depth)
{
    size_t i, n = 1, len = mcp_json_len(v), klen;
    const mcp_json *item;
    const char *key, *s;
    int64_t iv;
    double d;
    REQUIRE(v != NULL && depth <= MCP_JSON_MAX_DEPTH + 1);
    switch (mcp_json_typeof(v)) {
    case MCP_JSON_NULL:
        REQUIRE(!mcp_json_is_true(v) && mcp_json_str(v) == NULL && mcp_json_at(v, 0) == NULL);
        break;
    case MCP_JSON_BOOL:
        REQUIRE(mcp_json_is_true(v) == 0 || mcp_json_is_true(v) == 1);
        break;
    case MCP_JSON_NUMBER:
        d = mcp_json_num(v);
        REQUIRE(d == d);                     /* never NaN */
        REQUIRE(d - d == 0);                 /* never infinite: it could not be written back */
        if (mcp_json_int64(v, &iv)) REQUIRE((double)iv == d);
        break;
    case MCP_JSON_STRING:
        s = mcp_json_str(v);
        REQUIRE(s != NULL && s[len] == 0);
        REQUIRE(strlen(s) <= len);           /* "\u0000" may shorten strlen, never lengthen */
        break;
    case MCP_JSON_ARRAY:
        i = 0;
        mcp_json_foreach(v, i, item) n += walk(item, depth + 1);
        REQUIRE(i == len && mcp_json_at(v, len) == NULL);
        REQUIRE(mcp_json_key_at(v, 0, &klen) == NULL);
        break;
    case MCP_JSON_OBJECT:
        i = 0;
        mcp_json_foreach(v, i, item) {
            const mcp_json *found;
            key = mcp_json_key_at(v, i, &klen);
            REQUIRE(key != NULL && key[klen] == 0);
            found = mcp_json_getn(v, key, klen);
            REQUIRE(found != NULL);
            if (strlen(key) == klen) REQUIRE(mcp_json_get(v, key) == found);
            if (len <= 64) {   /* found is the last member with this key: this one or later */
                size_t j, last = i, kl2;
                const char *k2;
                for (j = i + 1; j < len; j++) {
                    k2 = mcp_json_key_at(v, j, &kl2);
                    if (kl2 == klen && !memcmp(k2, key, klen)) last = j;
                }
                REQUIRE(found == mcp_json_at(v, last));
            }
            n += walk(item, depth + 1);
        }
        REQUIRE(i == len && mcp_json_at(v, len) == NULL && mcp_json_key_at(v, len, &klen) == NULL);
        break;
    default:
        REQUIRE(!"unknown type");
    }
    return n;
}

/* Parse text that the library wrote; it must be accepted and equal to v. Returns the doc. */
static mcp_json_doc *reparse(const char *text, size_t len, const mcp_json *v)
{
    mcp_error err;
    mcp_json_doc *doc;
    REQUIRE(text != NULL);
    doc = mcp_json_parse(text, len, &err);
    if (!doc) {
        fprintf(stderr, "fuzz_json: own output rejected: %s\n%.*s\n", err.message,
                (int)(len > 2000 ? 2000 : len), text);
        abort();
    }
    REQUIRE(mcp_json_equal(mcp_json_root(doc), v));
    REQUIRE(mcp_json_equal(v, mcp_json_root(doc)));
    return doc;
}

static void round_trip(const mcp_json *root)
{
    size_t clen = 0, plen = 0, len2 = 0;
    char *compact = mcp_json_dump(root, 0, &clen);
    char *pretty = mcp_json_dump(root, 1, &plen);
    char *again, *copy, *raw;
    mcp_json_doc *d1, *d2;
    mcp_jw w;

    REQUIRE(compact != NULL && pretty != NULL);
    REQUIRE(strlen(compact) <= clen && compact[clen] == 0 && pretty[plen] == 0);
    d1 = reparse(compact, clen, root);
    d2 = reparse(pretty, plen, root);

    /* dumping is a fixed point: the re-parsed value dumps to the same bytes */
    again = mcp_json_dump(mcp_json_root(d1), 0, &len2);
    REQUIRE(again != NULL && len2 == clen && memcmp(again, compact, clen) == 0);
    mcp_free(again);
    again = mcp_json_dump(mcp_json_root(d2), 1, &len2);
    REQUIRE(again != NULL && len2 == plen && memcmp(again, pretty, plen) == 0);
    mcp_free(again);

    /* the writer: a value copied in, and the same text inserted raw, inside an array */
    mcp_jw_init(&w, 0);
    mcp_jw_arr_begin(&w);
    mcp_jw_value(&w, root);
    mcp_jw_raw(&w, pretty, plen);
    mcp_jw_arr_end(&w);
    copy = mcp_jw_finish(&w, &len2, NULL);
    REQUIRE(copy != NULL);
    raw = (char *)malloc(2 * clen + 4);
    REQUIRE(raw != NULL);
    raw[0] = '[';
    memcpy(raw + 1, compact, clen);
    raw[1 + clen] = ',';
    memcpy(raw + 2 + clen, compact, clen);
    raw[2 + 2 * clen] = ']';
    REQUIRE(len2 == 2 * clen + 3 && memcmp(copy, raw, len2) == 0);
    free(raw);
    mcp_free(copy);
    mcp_jw_free(&w);

    mcp_json_free(d1);
    mcp_json_free(d2);
    mcp_free(compact);
    mcp_free(pretty);
}

int LLVMFuzzerTestOneInput(const unsigned char *data, size_t size)
{
    const char *text = (const char *)data;
    mcp_error err, err_small;
    mcp_json_opts opts;
    mcp_json_doc *doc, *small;

    memset(&opts, 0, sizeof opts);
    opts.max_depth = SMALL_DEPTH;
    doc = mcp_json_parse(text, size, &err);
    small = mcp_json_parse_ex(text, size, &opts, &err_small);

    if (!doc) {
        REQUIRE(err.status == MCP_ERR_PARSE || err.status == MCP_ERR_LIMIT);
        REQUIRE(err.message[0] != 0 && memchr(err.message, 0, sizeof err.message) != NULL);
        REQUIRE(small == NULL);
        REQUIRE(err_small.status == MCP_ERR_PARSE || err_small.status == MCP_ERR_LIMIT);
        return 0;
    }
    if (small) REQUIRE(mcp_json_equal(mcp_json_root(doc), mcp_json_root(small)));
    else REQUIRE(err_small.status == MCP_ERR_LIMIT);

    walk(mcp_json_root(doc), 0);
    round_trip(mcp_json_root(doc));
    mcp_json_free(small);
    mcp_json_free(doc);
    return 0;
}
