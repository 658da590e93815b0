/* Result caching in the client (>>client.cache, issue 19 item 4), through the public API,
   against tests/servers/test_server.c in its 2026-07-28 era (ttlMs 60000 on the cacheable
   results unless --ttl says otherwise) and tests/servers/http_server.c. What the server was
   asked is read back from it (test_server's requests tool, which logs each request's method
   and cursor or uri; http_server's exec_tools_list counter), and each case prints those
   request counts on a "# " line.

   Cases: fresh results are not asked again (every list page under its cursor, reads under
   their uri, the other lists, server/discover; ping always goes); mcp_client_request and
   mcp_client_send of the same method and params hit too, a hit completes the call at once
   and its document is the caller's own; stale ones are asked again (a short TTL, a wait past
   it); a stale middle page is asked again alone; list_changed and resources/updated drop what
   they name, and only that; opts.no_cache asks the server and keeps the answer; an
   input_required result and its retry are not kept; results without ttlMs (the legacy era,
   --ttl=-1) or with ttlMs 0 are not kept; a kept cursor the server refuses drops the kept
   pages and the list is read from its start; the budget (evictions, oldest first; a result
   over it not kept); desc.cache_max = MCP_CACHE_OFF; over HTTP, a new session after a 404
   drops everything, the x-mcp-header markings come from kept pages, a -32020 drops the kept
   tools/list pages, ttlMs 0 is not kept.
   The private results dropped on a new token: test_auth_client.c (kept_results_and_a_new_token);
   the memory held under huge lists with long TTLs: standalone_client_memory.c.

   Usage: test_cache [DATA_DIR [SERVER [HTTP_SERVER]]]   SERVER: default env MCP_TEST_SERVER,
   else build/test_server; HTTP_SERVER: http_server beside it. Waits are multiplied by 10
   under valgrind, or by MCP_TEST_SLACK. */
#define _POSIX_C_SOURCE 200809L
#define _XOPEN_SOURCE 700           /* realpath */
#include "../mcp.h"
#include "test.h"
#include "calls.h"
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <netinet/in.h>
#include <arpa/inet.h>
#include <time.h>
#include <unistd.h>

static char server_path[PATH_MAX];   /* http_srv.h's name for the HTTP server */
static char stdio_server[PATH_MAX];
static int slack = 1;
#define LATE(ms) ((int)(ms) * slack)

#include "http_srv.h"

#define EQI(a, b) CHECKF((long long)(a) == (long long)(b), "%s is %lld, want %lld", #a, (long long)(a), (long long)(b))

/* ---- a client of the test server ------------------------------------------------------------ */

static void on_request(void *user, mcp_client *c, mcp_request *req)
{
    (void)user; (void)c;                 /* the gate of mrtr://gated: {"ok": true} accepted */
    mcp_request_reply(req, "{\"action\":\"accept\",\"content\":{\"ok\":true}}", NULL);
}

/* A connected client of the test server run with these flags (NULL-ended; --era=modern is
   added unless legacy); cache_max as desc.cache_max. NULL (a failed check) if it did not. */
static mcp_client *start(const char *const *flags, int legacy, size_t cache_max)
{
    static const char *args[16];
    mcp_client_desc d;
    mcp_client *c;
    mcp_error err;
    int n = 0;
    if (!legacy) args[n++] = "--era=modern";
    while (flags && *flags && n < 15) args[n++] = *flags++;
    args[n] = NULL;
    memset(&d, 0, sizeof d);
    d.command = stdio_server;
    d.args = args;
    d.timeout_ms = LATE(10000);
    d.cache_max = cache_max;
    d.on_request = on_request;
    d.capabilities = MCP_CAP_ELICITATION;
    if (!(c = mcp_client_new(&d, &err))) { CHECKF(0, "mcp_client_new: %s", err.message); return NULL; }
    if (mcp_client_connect(c, &err) != MCP_OK) {
        CHECKF(0, "connect: %s", err.message);
        mcp_client_free(c);
        return NULL;
    }
    return c;
}

/* How many requests of method the server got: cursor NULL, all of them; "", those without a
   cursor (a list's first page); else those whose cursor or uri starts with it. */
static int asked(mcp_client *c, const char *method, const char *cursor)
{
    mcp_json_doc *d = NULL, *list;
    mcp_error err;
    const mcp_json *q;
    const char *t, *cur;
    size_t i;
    int n = 0;
    if (mcp_client_call_tool(c, "requests", NULL, &d, &err) != MCP_OK) {
        CHECKF(0, "the requests tool: %s", err.message);
        return -1;
    }
    t = text_of(mcp_json_root(d));
    list = t ? mcp_json_parse(t, strlen(t), NULL) : NULL;
    for (i = 0; (q = mcp_json_at(mcp_json_root(list), i)) != NULL; i++) {
        if (strcmp(mcp_json_str(mcp_json_get(q, "method")), method)) continue;
        cur = mcp_json_str(mcp_json_get(q, "cursor"));
        if (!cur) cur = mcp_json_str(mcp_json_get(q, "uri"));
        if (!cursor || (!*cursor && !cur) || (*cursor && cur && !strncmp(cur, cursor, strlen(cursor)))) n++;
    }
    mcp_json_free(list);
    mcp_json_free(d);
    return n;
}

static mcp_client_stats stats(const mcp_client *c)
{
    mcp_client_stats s;
    mcp_client_get_stats(c, &s);
    return s;
}

/* mcp_client_list_tools: its tool count (-1: it failed, a failed check) */
static int list_tools(mcp_client *c)
{
    mcp_json_doc *d = NULL;
    mcp_error err;
    int n;
    if (mcp_client_list_tools(c, &d, &err) != MCP_OK) { CHECKF(0, "list_tools: %s", err.message); return -1; }
    n = (int)mcp_json_len(mcp_json_get(mcp_json_root(d), "tools"));
    mcp_json_free(d);
    return n;
}

static const char *read_text(mcp_client *c, const char *uri, char *out, size_t n)
{
    mcp_json_doc *d = NULL;
    mcp_error err;
    out[0] = 0;
    if (mcp_client_read_resource(c, uri, &d, &err) != MCP_OK) { CHECKF(0, "read %s: %s", uri, err.message); return out; }
    snprintf(out, n, "%s", mcp_json_str(mcp_json_get(mcp_json_at(mcp_json_get(mcp_json_root(d), "contents"), 0), "text")));
    mcp_json_free(d);
    return out;
}

/* ---- stdio, 2026-07-28 ---------------------------------------------------------------------- */

TEST_CASE(fresh_results_are_not_asked_again)
{
    mcp_client *c = start(NULL, 0, 0);
    mcp_json_doc *d = NULL;
    mcp_client_stats s;
    mcp_error err;
    char text[256];
    int i;
    if (!c) return;
    for (i = 0; i < 3; i++) EQI(list_tools(c), 26);
    EQI(asked(c, "tools/list", ""), 1);
    EQI(asked(c, "tools/list", "page2"), 1);
    s = stats(c);
    EQI(s.cache_hits, 4);                /* two pages, twice */
    EQI(s.cache_misses, 2);
    EQI(s.cache_stores, 2);
    CHECK(s.cache_bytes > 0 && s.cache_bytes < 8000);
    printf("# fresh: 3 listings of 2 pages: tools/list asked %d times (first page %d, page2 %d); %llu hits, "
           "%llu bytes kept\n", asked(c, "tools/list", NULL), asked(c, "tools/list", ""), asked(c, "tools/list", "page2"),
           (unsigned long long)s.cache_hits, (unsigned long long)s.cache_bytes);
    CHECK(!strcmp(read_text(c, "file:///a.txt", text, sizeof text), "content of file:///a.txt"));
    CHECK(!strcmp(read_text(c, "file:///a.txt", text, sizeof text), "content of file:///a.txt"));
    CHECK(!strcmp(read_text(c, "file:///b.txt", text, sizeof text), "content of file:///b.txt"));
    EQI(asked(c, "resources/read", "file:///a.txt"), 1);
    EQI(asked(c, "resources/read", "file:///b.txt"), 1);
    for (i = 0; i < 2; i++) {
        CHECK(mcp_client_list_prompts(c, &d, &err) == MCP_OK); mcp_json_free(d);
        CHECK(mcp_client_list_resources(c, &d, &err) == MCP_OK); mcp_json_free(d);
        CHECK(mcp_client_list_resource_templates(c, &d, &err) == MCP_OK); mcp_json_free(d);
        CHECK(mcp_client_request(c, "server/discover", NULL, &d, &err) == MCP_OK); mcp_json_free(d);
        CHECK(mcp_client_ping(c, &err) == MCP_OK);
    }
    EQI(asked(c, "prompts/list", NULL), 2);              /* each of their 2 pages once */
    EQI(asked(c, "resources/list", NULL), 2);
    EQI(asked(c, "resources/templates/list", NULL), 1);
    EQI(asked(c, "server/discover", NULL), 1 + 1 + 2);   /* the connect's, the first request, ping twice */
    printf("# fresh: 2 rounds: prompts/list asked %d, resources/list %d, resources/templates/list %d, "
           "server/discover %d (1 connect, 2 pings), resources/read of a.txt %d after 2 reads\n",
           asked(c, "prompts/list", NULL), asked(c, "resources/list", NULL), asked(c, "resources/templates/list", NULL),
           asked(c, "server/discover", NULL), asked(c, "resources/read", "file:///a.txt"));
    mcp_client_free(c);
}

/* mcp_client_request and mcp_client_send of the same method and params hit as well; the
   call is complete at once, like a real answer; the document is a copy of the caller's own. */
TEST_CASE(a_hit_is_a_complete_call)
{
    mcp_client *c = start(NULL, 0, 0);
    mcp_json_doc *d = NULL, *d2 = NULL;
    mcp_call *call;
    mcp_error err;
    mcp_client_stats s0, s1;
    if (!c) return;
    EQI(list_tools(c), 26);
    s0 = stats(c);
    CHECK(mcp_client_request(c, "tools/list", NULL, &d, &err) == MCP_OK);
    EQI(mcp_json_len(mcp_json_get(mcp_json_root(d), "tools")), 13);
    CHECK(!strcmp(mcp_json_str(mcp_json_get(mcp_json_root(d), "nextCursor")), "page2"));
    EQI(mcp_json_num(mcp_json_get(mcp_json_root(d), "ttlMs")), 60000);
    CHECK(mcp_client_request(c, "tools/list", "{}", &d2, &err) == MCP_OK);   /* {} is no params */
    CHECK(mcp_json_equal(mcp_json_root(d), mcp_json_root(d2)));
    CHECK(d != d2);
    mcp_json_free(d);                                    /* each its own: the cache keeps its text */
    mcp_json_free(d2);
    CHECK(mcp_client_request(c, "tools/list", " { \"cursor\" :\n \"page2\" } ", &d, &err) == MCP_OK);
    CHECK(!strcmp(mcp_json_str(mcp_json_get(mcp_json_at(mcp_json_get(mcp_json_root(d), "tools"), 0), "name")), "batch"));
    mcp_json_free(d);
    call = mcp_client_send(c, "tools/list", NULL, NULL, &err);
    CHECK(call && err.status == MCP_OK);
    CHECK(mcp_call_status(call) == MCP_OK);              /* done before any poll */
    CHECK(mcp_call_id(call) > 0);
    CHECK(mcp_call_wait(call, 0) == MCP_OK);
    CHECK(mcp_call_cancel(call, NULL) == MCP_OK);        /* over already: its status */
    CHECK(mcp_call_result(call, &d, &err) == MCP_OK && d && err.status == MCP_OK);
    CHECK(mcp_call_result(call, &d2, &err) == MCP_OK && !d2);   /* taken: NULL the second time */
    mcp_json_free(d);
    mcp_call_free(call);
    s1 = stats(c);
    EQI(s1.cache_hits - s0.cache_hits, 4);
    EQI(s1.sent - s0.sent, 0);                           /* none of them went out */
    call = mcp_client_send(c, "tools/list", NULL, NULL, &err);
    EQI(asked(c, "tools/list", NULL), 2);
    printf("# a hit: 4 requests answered from the cache, none sent; tools/list asked %d times\n",
           asked(c, "tools/list", NULL));
    mcp_client_free(c);
    CHECK(mcp_call_status(call) == MCP_OK);              /* a call outlives its client */
    CHECK(mcp_call_result(call, &d, &err) == MCP_OK && d);
    mcp_json_free(d);
    mcp_call_free(call);
}

TEST_CASE(stale_results_are_asked_again)
{
    char ttl[32];
    const char *flags[] = { ttl, NULL };
    mcp_client *c;
    char text[256];
    int before, after;
    snprintf(ttl, sizeof ttl, "--ttl=%d", LATE(200));
    if (!(c = start(flags, 0, 0))) return;
    EQI(list_tools(c), 26);
    EQI(list_tools(c), 26);
    before = asked(c, "tools/list", NULL);
    read_text(c, "file:///a.txt", text, sizeof text);
    nap(LATE(400));                                      /* past the TTL */
    EQI(list_tools(c), 26);
    after = asked(c, "tools/list", NULL);
    EQI(before, 2);
    EQI(after, 4);
    read_text(c, "file:///a.txt", text, sizeof text);
    EQI(asked(c, "resources/read", "file:///a.txt"), 2);
    printf("# stale: ttlMs %d: tools/list asked %d times after 2 listings, %d after a third %d ms later\n",
           LATE(200), before, after, LATE(400));
    mcp_client_free(c);
}

TEST_CASE(a_stale_middle_page_is_asked_again_alone)
{
    char ttl[48];
    const char *flags[] = { "--pages=3", ttl, NULL };
    mcp_client *c;
    snprintf(ttl, sizeof ttl, "--ttl=60000,page2=%d", LATE(200));
    if (!(c = start(flags, 0, 0))) return;
    EQI(list_tools(c), 26);
    EQI(list_tools(c), 26);
    EQI(asked(c, "tools/list", NULL), 3);
    nap(LATE(400));
    EQI(list_tools(c), 26);
    EQI(asked(c, "tools/list", ""), 1);
    EQI(asked(c, "tools/list", "page2"), 2);
    EQI(asked(c, "tools/list", "page3"), 1);
    printf("# per page: 3 pages, page2 with ttlMs %d, 3 listings: first page asked %d, page2 %d, page3 %d\n",
           LATE(200), asked(c, "tools/list", ""), asked(c, "tools/list", "page2"), asked(c, "tools/list", "page3"));
    mcp_client_free(c);
}

/* 2026-07-28 subscription events (the same names as the notifications of the 2025 era). */
TEST_CASE(list_changed_drops_what_it_names)
{
    mcp_client *c = start(NULL, 0, 0);
    mcp_json_doc *d = NULL;
    mcp_call *sub;
    mcp_error err;
    char text[256];
    if (!c) return;
    sub = mcp_client_listen(c, "{\"toolsListChanged\":true,\"resourcesListChanged\":true,"
                               "\"resourceSubscriptions\":[\"file:///a.txt\"]}", NULL, &err);
    CHECKF(sub != NULL, "listen: %s", err.message);
    EQI(list_tools(c), 26);
    CHECK(mcp_client_list_prompts(c, &d, &err) == MCP_OK); mcp_json_free(d);
    CHECK(mcp_client_list_resources(c, &d, &err) == MCP_OK); mcp_json_free(d);
    CHECK(mcp_client_list_resource_templates(c, &d, &err) == MCP_OK); mcp_json_free(d);
    read_text(c, "file:///a.txt", text, sizeof text);
    read_text(c, "file:///b.txt", text, sizeof text);
    CHECK(tool(c, "fire", "{\"what\":\"tools\"}", text, sizeof text, &err) == MCP_OK && !strcmp(text, "sent 1"));
    EQI(list_tools(c), 26);
    CHECK(mcp_client_list_prompts(c, &d, &err) == MCP_OK); mcp_json_free(d);
    CHECK(mcp_client_list_resources(c, &d, &err) == MCP_OK); mcp_json_free(d);
    EQI(asked(c, "tools/list", NULL), 4);                /* asked again */
    EQI(asked(c, "prompts/list", NULL), 2);              /* not: kept */
    EQI(asked(c, "resources/list", NULL), 2);
    CHECK(tool(c, "fire", "{\"what\":\"resources\"}", text, sizeof text, &err) == MCP_OK && !strcmp(text, "sent 1"));
    CHECK(mcp_client_list_resources(c, &d, &err) == MCP_OK); mcp_json_free(d);
    CHECK(mcp_client_list_resource_templates(c, &d, &err) == MCP_OK); mcp_json_free(d);
    EQI(list_tools(c), 26);
    EQI(asked(c, "resources/list", NULL), 4);
    EQI(asked(c, "resources/templates/list", NULL), 2);
    EQI(asked(c, "tools/list", NULL), 4);
    CHECK(tool(c, "fire", "{\"what\":\"updated\",\"uri\":\"file:///a.txt\"}", text, sizeof text, &err) == MCP_OK &&
          !strcmp(text, "sent 1"));
    read_text(c, "file:///a.txt", text, sizeof text);
    read_text(c, "file:///b.txt", text, sizeof text);
    EQI(asked(c, "resources/read", "file:///a.txt"), 2);
    EQI(asked(c, "resources/read", "file:///b.txt"), 1);
    printf("# list_changed: tools/list asked %d (2 pages, before and after tools/list_changed), prompts/list %d "
           "(never dropped), resources/list %d, resources/templates/list %d (resources/list_changed), reads of "
           "a.txt %d and b.txt %d (resources/updated for a.txt)\n", asked(c, "tools/list", NULL),
           asked(c, "prompts/list", NULL), asked(c, "resources/list", NULL), asked(c, "resources/templates/list", NULL),
           asked(c, "resources/read", "file:///a.txt"), asked(c, "resources/read", "file:///b.txt"));
    mcp_call_cancel(sub, NULL);
    mcp_call_free(sub);
    mcp_client_free(c);
}

TEST_CASE(no_cache_asks_the_server_and_keeps_the_answer)
{
    mcp_client *c = start(NULL, 0, 0);
    mcp_call_opts o;
    mcp_call *call;
    mcp_json_doc *d = NULL;
    mcp_error err;
    mcp_client_stats s0, s1;
    if (!c) return;
    EQI(list_tools(c), 26);
    s0 = stats(c);
    memset(&o, 0, sizeof o);
    o.no_cache = 1;
    call = mcp_client_send(c, "tools/list", NULL, &o, &err);
    CHECK(call && mcp_call_status(call) == MCP_AGAIN);   /* it went */
    CHECK(mcp_call_wait(call, LATE(5000)) == MCP_OK);
    CHECK(mcp_call_result(call, &d, &err) == MCP_OK);
    EQI(mcp_json_len(mcp_json_get(mcp_json_root(d), "tools")), 13);
    mcp_json_free(d);
    mcp_call_free(call);
    EQI(list_tools(c), 26);                              /* kept pages: the new first one too */
    s1 = stats(c);
    EQI(asked(c, "tools/list", ""), 2);
    EQI(asked(c, "tools/list", "page2"), 1);
    EQI(s1.cache_misses - s0.cache_misses, 1);
    EQI(s1.cache_stores - s0.cache_stores, 1);
    EQI(s1.cache_hits - s0.cache_hits, 2);
    EQI(s1.cache_bytes, s0.cache_bytes);                 /* replaced, not added */
    printf("# no_cache: tools/list first page asked %d times (one listing, one no_cache call, one listing)\n",
           asked(c, "tools/list", ""));
    mcp_client_free(c);
}

TEST_CASE(input_required_is_not_kept)
{
    mcp_client *c = start(NULL, 0, 0);
    mcp_json_doc *d = NULL;
    mcp_error err;
    char text[256];
    int i;
    if (!c) return;
    CHECK(!strcmp(read_text(c, "mrtr://gated", text, sizeof text), "content of mrtr://gated"));
    CHECK(!strcmp(read_text(c, "mrtr://gated", text, sizeof text), "content of mrtr://gated"));
    EQI(asked(c, "resources/read", "mrtr://gated"), 4);   /* each: input_required, then the retry */
    for (i = 0; i < 2; i++) {                            /* requestState in the params: never kept */
        CHECK(mcp_client_request(c, "resources/read", "{\"uri\":\"file:///a.txt\",\"requestState\":\"x\"}", &d, &err) ==
              MCP_OK);
        mcp_json_free(d);
    }
    EQI(asked(c, "resources/read", "file:///a.txt"), 2);
    EQI(stats(c).cache_stores, 0);
    printf("# input_required: 2 reads of mrtr://gated asked %d times (input_required and the retry, each "
           "time); 2 reads with requestState asked %d\n", asked(c, "resources/read", "mrtr://gated"),
           asked(c, "resources/read", "file:///a.txt"));
    mcp_client_free(c);
}

TEST_CASE(results_without_a_positive_ttl_are_not_kept)
{
    static const char *const none[] = { "--ttl=-1", NULL }, *zero[] = { "--ttl=0", NULL };
    static const char *const *const modes[] = { NULL, none, zero };
    static const char *const names[] = { "legacy era (no ttlMs)", "2026-07-28 without ttlMs", "ttlMs 0" };
    mcp_client *c;
    int k;
    for (k = 0; k < 3; k++) {
        if (!(c = start(modes[k], k == 0, 0))) continue;
        EQI(list_tools(c), 26);
        EQI(list_tools(c), 26);
        EQI(asked(c, "tools/list", NULL), 4);
        EQI(stats(c).cache_stores, 0);
        EQI(stats(c).cache_hits, 0);
        printf("# %s: tools/list asked %d times for 2 listings\n", names[k], asked(c, "tools/list", NULL));
        mcp_client_free(c);
    }
}

/* caching.mdx: a cursor that became invalid means the kept pages are out of date. */
TEST_CASE(a_refused_kept_cursor_reads_the_list_again)
{
    char cur[32], ttl[48];
    const char *flags[] = { cur, ttl, NULL };
    mcp_client *c;
    snprintf(cur, sizeof cur, "--cursor-ms=%d", LATE(200));
    snprintf(ttl, sizeof ttl, "--ttl=60000,page2=%d", LATE(100));
    if (!(c = start(flags, 0, 0))) return;
    EQI(list_tools(c), 26);
    nap(LATE(400));           /* page2 is stale, and its cursor (kept in the first page) expired */
    EQI(list_tools(c), 26);
    EQI(asked(c, "tools/list", ""), 2);                  /* from the start */
    EQI(asked(c, "tools/list", "page2"), 3);             /* the old cursor (refused), the new one */
    EQI(list_tools(c), 26);                              /* all kept again */
    EQI(asked(c, "tools/list", NULL), 5);
    printf("# refused cursor: tools/list first page asked %d times, page2 %d (the second listing: page2 with the "
           "kept cursor refused, then from the start)\n", asked(c, "tools/list", ""), asked(c, "tools/list", "page2"));
    mcp_client_free(c);
}

TEST_CASE(the_budget_keeps_the_newest)
{
    static const char *const big[] = { "--pages=5", "--big=20000", NULL };
    static const char *const huge[] = { "--big=300000", NULL };
    mcp_client *c = start(big, 0, 70000);
    mcp_client_stats s;
    if (c) {
        EQI(list_tools(c), 26);
        s = stats(c);
        EQI(s.cache_stores, 5);
        CHECK(s.cache_evictions >= 2);                   /* 5 pages of 20 KB in 70 KB */
        CHECKF(s.cache_bytes <= 70000 && s.cache_bytes > 40000, "%llu bytes kept", (unsigned long long)s.cache_bytes);
        EQI(list_tools(c), 26);                          /* the oldest went first: from page 1 again */
        printf("# budget 70000: 5 pages of 20 KB: %llu bytes kept, %llu evictions; tools/list asked %d times for 2 "
               "listings\n", (unsigned long long)stats(c).cache_bytes, (unsigned long long)stats(c).cache_evictions,
               asked(c, "tools/list", NULL));
        CHECK(stats(c).cache_bytes <= 70000);
        mcp_client_free(c);
    }
    if ((c = start(huge, 0, 200000)) != NULL) {          /* a page of 300 KB: over the budget */
        EQI(list_tools(c), 26);
        EQI(list_tools(c), 26);
        s = stats(c);
        EQI(s.cache_stores, 0);
        EQI(s.cache_evictions, 0);
        EQI(s.cache_bytes, 0);
        EQI(asked(c, "tools/list", NULL), 4);
        mcp_client_free(c);
    }
}

TEST_CASE(cache_off)
{
    mcp_client *c = start(NULL, 0, MCP_CACHE_OFF);
    mcp_client_stats s;
    char text[256];
    if (!c) return;
    EQI(list_tools(c), 26);
    EQI(list_tools(c), 26);
    read_text(c, "file:///a.txt", text, sizeof text);
    read_text(c, "file:///a.txt", text, sizeof text);
    EQI(asked(c, "tools/list", NULL), 4);
    EQI(asked(c, "resources/read", NULL), 2);
    s = stats(c);
    CHECK(!s.cache_hits && !s.cache_misses && !s.cache_stores && !s.cache_bytes);
    printf("# MCP_CACHE_OFF: tools/list asked %d times for 2 listings\n", asked(c, "tools/list", NULL));
    mcp_client_free(c);
}

/* ---- HTTP (tests/servers/http_server.c) ----------------------------------------------------- */

static int http_ok;                  /* the HTTP server exists */

static mcp_client *start_http(const srv *s, const char *const *headers)
{
    mcp_client_desc d;
    mcp_client *c;
    mcp_error err;
    memset(&d, 0, sizeof d);
    d.transport = MCP_HTTP;
    d.url = s->url;
    d.headers = headers;
    d.timeout_ms = LATE(10000);
    if (!(c = mcp_client_new(&d, &err))) { CHECKF(0, "mcp_client_new: %s", err.message); return NULL; }
    if (mcp_client_connect(c, &err) != MCP_OK) { CHECKF(0, "connect: %s", err.message); mcp_client_free(c); return NULL; }
    return c;
}

/* A 2025-era session whose tools/list carries ttlMs (mode ttl): after a 404, the new session
   starts with nothing kept. */
TEST_CASE(http_a_new_session_drops_everything)
{
    static const char *const ttl[] = { "X-Test-Mode: ttl", NULL };
    srv s;
    mcp_client *c;
    mcp_error err;
    long before;
    if (!http_ok || !srv_start(&s, NULL)) return;
    if ((c = start_http(&s, ttl)) != NULL) {
        EQI(list_tools(c), 14);
        EQI(list_tools(c), 14);
        before = stat_of(&s, "exec_tools_list");
        EQI(before, 2);
        free(dbg(&s, "expire"));                         /* the session is forgotten: 404 */
        CHECK(tool(c, "echo", "{}", NULL, 0, &err) == MCP_OK);
        EQI(stats(c).reinits, 1);
        EQI(list_tools(c), 14);
        EQI(stat_of(&s, "exec_tools_list"), 4);
        printf("# HTTP new session: tools/list asked %ld times for 2 listings, %ld after a 404 and a third\n",
               before, stat_of(&s, "exec_tools_list"));
        mcp_client_free(c);
    }
    srv_stop(&s);
}

/* 2026-07-28 over HTTP: tools/call's Mcp-Param headers come from kept pages as well (no -32020,
   no new tools/list); a -32020 drops the kept pages; ttlMs 0 (the server's default) keeps
   nothing. */
TEST_CASE(http_modern_markings_and_ttl_zero)
{
    static const char *const modern[] = { "--era=modern", NULL };
    static const char *const ttl[] = { "X-Test-Mode: ttl", NULL };
    srv s;
    mcp_client *c;
    mcp_error err;
    char text[512];
    long n = 0;
    if (!http_ok || !srv_start(&s, modern)) return;
    if ((c = start_http(&s, ttl)) != NULL) {
        CHECK(list_tools(c) > 0);
        CHECK(list_tools(c) > 0);
        n = stat_of(&s, "exec_tools_list");
        CHECK(tool(c, "route", "{\"region\":\"eu\"}", text, sizeof text, &err) == MCP_OK);
        CHECKF(strstr(text, "\"mcp-param-region\":\"eu\"") != NULL, "route got %s", text);
        EQI(n, 2);
        EQI(stat_of(&s, "exec_tools_list"), 2);
        /* -32020 for a tools/call: tools/list is read again, and the kept pages are dropped */
        CHECK(tool(c, "echo", "{\"_mode\":\"hdrbad\"}", text, sizeof text, &err) != MCP_OK && err.rpc_code == -32020);
        EQI(stat_of(&s, "exec_tools_list"), 4);
        CHECK(list_tools(c) > 0);
        EQI(stat_of(&s, "exec_tools_list"), 6);
        printf("# HTTP -32020: tools/list asked %ld times: 2 listings, the refresh, a listing after it\n",
               stat_of(&s, "exec_tools_list"));
        mcp_client_free(c);
    }
    if ((c = start_http(&s, NULL)) != NULL) {
        CHECK(list_tools(c) > 0);
        CHECK(list_tools(c) > 0);
        EQI(stat_of(&s, "exec_tools_list"), 6 + 4);
        EQI(stats(c).cache_stores, 0);
        printf("# HTTP 2026-07-28: tools/list asked %ld times for 2 listings and a tools/call with headers (ttlMs "
               "60000), %ld more for 2 listings with ttlMs 0\n", n, stat_of(&s, "exec_tools_list") - 6);
        mcp_client_free(c);
    }
    srv_stop(&s);
}

int main(int argc, char **argv)
{
    const char *p;
    char guess[PATH_MAX];
    int fds;
    test_args(&argc, argv);
    p = argc > 2 ? argv[2] : getenv("MCP_TEST_SERVER");
    if (!p || !*p) p = "build/test_server";
    if (!realpath(p, stdio_server) || access(stdio_server, X_OK)) {
        fprintf(stderr, "test_cache: the test server \"%s\" is missing: build it from tests/servers/test_server.c\n", p);
        CHECK(!"test server present");
        return TEST_DONE();
    }
    if (argc > 3) snprintf(guess, sizeof guess, "%s", argv[3]);
    else snprintf(guess, sizeof guess, "%.*s/http_server", (int)(strrchr(stdio_server, '/') - stdio_server), stdio_server);
    http_ok = realpath(guess, server_path) && !access(server_path, X_OK);
    if (!http_ok) SKIP("the HTTP cases: no http_server at %s", guess);
    if (getenv("LD_PRELOAD") && strstr(getenv("LD_PRELOAD"), "vgpreload")) slack = 10;   /* valgrind */
    if (getenv("MCP_TEST_SLACK") && atoi(getenv("MCP_TEST_SLACK")) > 0) slack = atoi(getenv("MCP_TEST_SLACK"));
    signal(SIGPIPE, SIG_DFL);
    fds = count_fds();
    test_run();
    CHECKF(count_fds() == fds, "fd leak: %d open before the cases, %d after", fds, count_fds());
    return TEST_DONE();
}
