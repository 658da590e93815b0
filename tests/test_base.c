/* Tests of the base layer: status names, mcp_free, the monotonic clock, and how a failing
   call fills mcp_error. The allocator hooks are tested in standalone_alloc.c, which needs its
   own implementation.   Usage: test_base [DATA_DIR] */
#define _POSIX_C_SOURCE 200809L   /* nanosleep */
#include "../mcp.h"
#include "test.h"
#include <ctype.h>
#include <string.h>
#include <time.h>

#define STATUS(x) { x, #x }
static const struct { mcp_status s; const char *name; } statuses[] = {
    STATUS(MCP_OK), STATUS(MCP_AGAIN), STATUS(MCP_ERR_NOMEM), STATUS(MCP_ERR_INVALID),
    STATUS(MCP_ERR_PARSE), STATUS(MCP_ERR_LIMIT), STATUS(MCP_ERR_IO), STATUS(MCP_ERR_CLOSED),
    STATUS(MCP_ERR_TIMEOUT), STATUS(MCP_ERR_CANCELLED), STATUS(MCP_ERR_HTTP), STATUS(MCP_ERR_RPC),
    STATUS(MCP_ERR_PROTOCOL)
};
#define NSTATUS (sizeof statuses / sizeof statuses[0])

TEST_CASE(status_str)
{
    size_t i, j;
    int unknown[4];
    unknown[0] = 2; unknown[1] = -12; unknown[2] = 1000; unknown[3] = -1000;
    /* the enum's values are as the contract says */
    CHECK(MCP_OK == 0 && MCP_AGAIN == 1 && MCP_ERR_NOMEM == -1 && MCP_ERR_PROTOCOL == -11);
    for (i = 0; i < NSTATUS; i++) {
        const char *s = mcp_status_str(statuses[i].s);
        CHECKF(s && s[0], "mcp_status_str(%s) is empty", statuses[i].name);
        if (!s) continue;
        /* documented form: "MCP_ERR_PARSE: malformed input" */
        CHECKF(strncmp(s, statuses[i].name, strlen(statuses[i].name)) == 0 &&
               s[strlen(statuses[i].name)] == ':',
               "mcp_status_str(%s) = \"%s\" does not start with its name", statuses[i].name, s);
        for (j = 0; j < i; j++)
            CHECKF(strcmp(s, mcp_status_str(statuses[j].s)) != 0,
                   "%s and %s have the same text", statuses[i].name, statuses[j].name);
    }
    for (i = 0; i < sizeof unknown / sizeof unknown[0]; i++) {
        const char *s = mcp_status_str((mcp_status)unknown[i]);
        CHECKF(s && s[0], "mcp_status_str(%d) is empty", unknown[i]);
        if (!s) continue;
        for (j = 0; j < NSTATUS; j++)
            CHECKF(strcmp(s, mcp_status_str(statuses[j].s)) != 0,
                   "unknown status %d is named like %s", unknown[i], statuses[j].name);
    }
}

TEST_CASE(free)
{
    size_t len = 0;
    char *text;
    mcp_json_doc *doc = mcp_json_parse("[1]", 3, NULL);
    mcp_free(NULL);            /* must be a no-op */
    mcp_json_free(NULL);
    CHECK(doc != NULL);
    text = mcp_json_dump(mcp_json_root(doc), 0, &len);
    CHECK(text && len == 3 && strcmp(text, "[1]") == 0);
    mcp_free(text);            /* text the library returned */
    mcp_json_free(doc);
}

TEST_CASE(time)
{
    int64_t t0, prev, now, d;
    long i, backwards = 0;
    struct timespec ts;
    t0 = prev = mcp_time_ms();
    for (i = 0; i < 200000; i++) {
        now = mcp_time_ms();
        if (now < prev) backwards++;
        prev = now;
    }
    CHECKF(backwards == 0, "mcp_time_ms went backwards %ld times", backwards);
    ts.tv_sec = 0; ts.tv_nsec = 30 * 1000000L;
    now = mcp_time_ms();
    while (nanosleep(&ts, &ts) != 0) { }
    d = mcp_time_ms() - now;
    /* it counts milliseconds: a 30 ms sleep is at least 30 of them (upper bound generous) */
    CHECKF(d >= 30 && d < 60000, "30 ms sleep measured as %lld ms", (long long)d);
    CHECK(mcp_time_ms() >= t0);
}

/* Something to show a user: words, no control characters, no trailing newline or space. */
static int is_sentence(const char *m)
{
    size_t i, n = strlen(m);
    if (n < 10 || !isalpha((unsigned char)m[0]) || !strchr(m, ' ') || m[n - 1] == ' ')
        return 0;
    for (i = 0; i < n; i++)
        if ((unsigned char)m[i] < 0x20 || m[i] == 0x7f) return 0;
    return 1;
}

static void check_failure(const char *what, const char *text, size_t len,
                          const mcp_json_opts *opts, mcp_status want)
{
    mcp_error err;
    mcp_json_doc *doc;
    memset(&err, 0x5A, sizeof err);    /* garbage: every field must be overwritten */
    doc = opts ? mcp_json_parse_ex(text, len, opts, &err) : mcp_json_parse(text, len, &err);
    CHECKF(doc == NULL, "%s: parse succeeded", what);
    mcp_json_free(doc);
    CHECKF(err.status == want, "%s: status %d, want %d", what, (int)err.status, (int)want);
    CHECKF(memchr(err.message, 0, sizeof err.message) != NULL, "%s: message not terminated", what);
    if (memchr(err.message, 0, sizeof err.message))
        CHECKF(is_sentence(err.message), "%s: message \"%s\" is not a sentence", what, err.message);
    CHECKF(err.http_status == 0 && err.rpc_code == 0 && err.sys_errno == 0,
           "%s: unrelated fields not zeroed (%d %ld %d)", what, err.http_status, err.rpc_code,
           err.sys_errno);
    /* the same failure with a NULL mcp_error */
    doc = opts ? mcp_json_parse_ex(text, len, opts, NULL) : mcp_json_parse(text, len, NULL);
    CHECKF(doc == NULL, "%s: parse with NULL err succeeded", what);
    mcp_json_free(doc);
}

TEST_CASE(error)
{
    mcp_json_opts opts;
    mcp_error err;
    memset(&opts, 0, sizeof opts);
    check_failure("truncated array", "[1,2", 4, NULL, MCP_ERR_PARSE);
    check_failure("missing comma", "{\n  \"a\": 1\n  \"b\": 2}", 20, NULL, MCP_ERR_PARSE);
    check_failure("empty input", "", 0, NULL, MCP_ERR_PARSE);
    check_failure("NULL text with length", NULL, 5, NULL, MCP_ERR_INVALID);
    opts.max_depth = 2;
    check_failure("depth limit", "[[[1]]]", 7, &opts, MCP_ERR_LIMIT);
    opts.max_depth = 0; opts.max_size = 4;
    check_failure("size limit", "[1,2,3]", 7, &opts, MCP_ERR_LIMIT);

    /* the message says where: line and column of the documented form */
    memset(&err, 0, sizeof err);
    CHECK(mcp_json_parse("{\n  \"a\": 1\n  \"b\": 2}", 20, &err) == NULL);
    CHECKF(strncmp(err.message, "JSON parse error at line 3, column 3 ", 37) == 0,
           "message \"%s\"", err.message);
}

int main(int argc, char **argv)
{
    return test_main(argc, argv);
}
