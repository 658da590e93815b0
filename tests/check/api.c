/* Compile check: uses the whole public API. Built by tests/check/run.sh with every compiler and
   build option, both as a whole program (-DMCP_IMPLEMENTATION) and as a declarations-only
   object linked with impl.c. Valid C99 and C++11. Prints nothing; exits 0 if every call
   behaved, else the number of the first failed step.
   CHECK_HOOKS: count allocations through MCP_MALLOC/MCP_REALLOC/MCP_FREE (hooks.h).
   CHECK_STATIC: with MCP_STATIC, second.c holds a second private copy of the library. */
#ifdef CHECK_HOOKS
#include "hooks.h"
#endif
#include "../../mcp.h"
#include <stdio.h>
#include <string.h>

#ifdef CHECK_STATIC
int second_copy(void);   /* second.c */
#endif

#define STEP(n, cond) do { if (!(cond)) return (n); } while (0)

#if !defined(MCP_NO_HOST) && (!defined(MCP_NO_STDIO) || !defined(MCP_NO_HTTP))
/* >>host.config: a config file read, its entry written back. */
static void config_entry(void *user, const mcp_server_config *s)
{
    mcp_jw w;
    char *text;
    mcp_jw_init(&w, 0);
    if (mcp_config_write(&w, s) == MCP_OK && (text = mcp_jw_finish(&w, NULL, NULL)) != NULL) {
        *(int *)user += !strcmp(text, "{\"type\":\"stdio\",\"command\":\"x\",\"args\":[\"-v\"]}");
        mcp_free(text);
    }
    mcp_jw_free(&w);
}

static int use_config(void)
{
    const char *text = "{\"mcpServers\": {\"a\": {\"command\": \"x\", \"args\": [\"-v\"],}}} // c";
    mcp_config_opts o;
    int good = 0;
    memset(&o, 0, sizeof o);
    o.user = &good;
    o.no_env = 1;
    STEP(30, mcp_config_parse("a.json", text, strlen(text), &o, config_entry, NULL) == MCP_OK);
    STEP(31, good == 1);
    return 0;
}
#else
static int use_config(void) { return 0; }
#endif

static int use_api(void)
{
    const char *text = "{\"a\":[1,2.5,\"x\",true,null,{\"k\":false}],\"b\":-7}";
    mcp_error err;
    mcp_json_opts opts;
    mcp_json_doc *doc;
    const mcp_json *root, *a, *item;
    size_t i, n = 0, klen = 0;
    int64_t iv = 0;
    char *dump;
    mcp_jw w;

    STEP(1, mcp_status_str(MCP_ERR_PARSE) != NULL);
    STEP(2, mcp_time_ms() <= mcp_time_ms());
    mcp_free(NULL);

    memset(&opts, 0, sizeof opts);
    opts.max_depth = 8;
    doc = mcp_json_parse_ex(text, strlen(text), &opts, &err);
    STEP(3, doc != NULL);
    root = mcp_json_root(doc);
    a = mcp_json_get(root, "a");
    STEP(4, mcp_json_typeof(a) == MCP_JSON_ARRAY && mcp_json_len(a) == 6);
    mcp_json_foreach(a, i, item) n += (size_t)mcp_json_typeof(item);
    STEP(5, n == 2 + 2 + 3 + 1 + 0 + 5);
    STEP(6, mcp_json_int64(mcp_json_getn(root, "bxyz", 1), &iv) && iv == -7);
    STEP(7, mcp_json_num(mcp_json_at(a, 1)) == 2.5 && !strcmp(mcp_json_str(mcp_json_at(a, 2)), "x"));
    STEP(8, mcp_json_is_true(mcp_json_at(a, 3)) && !mcp_json_is_true(mcp_json_at(a, 4)));
    STEP(9, !strncmp(mcp_json_key_at(root, 1, &klen), "b", klen) && klen == 1);
    dump = mcp_json_dump(root, 0, &n);
    STEP(10, dump && n == strlen(text) && !strcmp(dump, "{\"a\":[1,2.5,\"x\",true,null,"
                                                         "{\"k\":false}],\"b\":-7}"));
    mcp_free(dump);

    mcp_jw_init(&w, 1);
    mcp_jw_obj_begin(&w);
    mcp_jw_key(&w, "v");
    mcp_jw_value(&w, root);
    mcp_jw_keyn(&w, "raw", 3);
    mcp_jw_raw(&w, "[1, 2]", 6);
    mcp_jw_key(&w, "s");
    mcp_jw_strn(&w, "abc", 2);
    mcp_jw_key(&w, "n");
    mcp_jw_num(&w, 0.25);
    mcp_jw_key(&w, "i");
    mcp_jw_int(&w, -3);
    mcp_jw_key(&w, "t");
    mcp_jw_bool(&w, 1);
    mcp_jw_key(&w, "z");
    mcp_jw_null(&w);
    mcp_jw_key(&w, "e");
    mcp_jw_arr_begin(&w);
    mcp_jw_str(&w, "q");
    mcp_jw_arr_end(&w);
    mcp_jw_obj_end(&w);
    STEP(11, mcp_jw_status(&w, &err) == MCP_OK && mcp_jw_text(&w, &n) != NULL);
    dump = mcp_jw_finish(&w, &n, &err);
    STEP(12, dump != NULL);
    mcp_jw_free(&w);
    mcp_json_free(doc);
    doc = mcp_json_parse(dump, n, &err);
    mcp_free(dump);
    STEP(13, doc && mcp_json_len(mcp_json_get(mcp_json_root(doc), "s")) == 2);
    STEP(14, mcp_json_equal(mcp_json_get(mcp_json_root(doc), "raw"),
                            mcp_json_get(mcp_json_root(doc), "raw")));
    mcp_json_free(doc);
    STEP(15, mcp_json_parse("[1,", 3, &err) == NULL && err.status == MCP_ERR_PARSE);

    mcp_jw_init(&w, 0);
    mcp_jw_int(&w, 1);
    mcp_jw_reset(&w);
    mcp_jw_int(&w, 2);
    dump = mcp_jw_finish(&w, &n, NULL);
    STEP(16, dump && n == 1 && dump[0] == '2');
    mcp_free(dump);
    mcp_jw_free(&w);
#ifndef MCP_NO_AUTH
    {
        unsigned char d[32], r[16];
        char b64[44];
        mcp_sha256("abc", 3, d);
        STEP(17, d[0] == 0xba && d[31] == 0xad);
        STEP(18, mcp_base64url(d, sizeof d, b64, sizeof b64) == 43 && b64[42] && !b64[43]);
        STEP(19, mcp_random(r, sizeof r, &err) == MCP_OK);
    }
#endif
    return 0;
}

int main(void)
{
    int r = use_api();
    if (!r) r = use_config();
#ifdef CHECK_STATIC
    if (!r) r = second_copy();
#endif
#ifdef CHECK_HOOKS
    if (!r && (check_allocs == 0 || check_live != 0)) r = 100;   /* the hooks were used, balanced */
#endif
    if (r) printf("api check failed at step %d\n", r);
    return r;
}
