/* libFuzzer target for config files (>>host.config) and JSON with comments (make fuzz).
   For every input:
   - JSON with comments accepts whatever strict JSON accepts, to an equal value, and what it
     accepts dumps to strict JSON that parses back equal;
   - mcp_config_parse (no environment; a program variable or two) either fails with
     MCP_ERR_PARSE or MCP_ERR_LIMIT and a sentence that begins "fuzz.json", calling each
     never, or succeeds; every sentence it logs begins with the file's name;
   - every entry has a name and a place (line, column from 1); a bad one is disabled, and
     its error names the file and the server; a good one has a transport that matches its
     fields (stdio: a command and no URL; http, sse: a URL and no command), "K=V" env items,
     "Name: value" headers of token names, no empty arrays, no negative timeout;
   - mcp_config_write of every good entry succeeds, and {"mcpServers": {name: that}} reads
     back as exactly one good entry with the same description.
   Any disagreement aborts, which libFuzzer reports as a crash. */
#define MCP_IMPLEMENTATION
#include "../../mcp.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "fuzz.h"

int LLVMFuzzerTestOneInput(const unsigned char *data, size_t size);

#define FILE_NAME "fuzz.json"

static const char *variable(void *user, const char *name)
{
    (void)user;
    if (!strcmp(name, "workspaceFolder")) return "/w";
    if (!strcmp(name, "input:k")) return "secret";
    if (!strcmp(name, "A")) return "";
    return NULL;
}

static void on_log(void *user, const char *msg)
{
    (void)user;
    REQUIRE(msg && !strncmp(msg, FILE_NAME, strlen(FILE_NAME)));
    REQUIRE(strlen(msg) < 1024);
}

/* The description as one text: what must survive a round trip. */
typedef struct text { char *p; size_t n, cap; } text;
static void put(text *t, const char *s)
{
    size_t n = strlen(s);
    if (t->n + n + 2 > t->cap) {
        t->cap = (t->n + n + 2) * 2;
        t->p = (char *)realloc(t->p, t->cap);
        REQUIRE(t->p != NULL);
    }
    memcpy(t->p + t->n, s, n);
    t->n += n;
    t->p[t->n++] = '\x1F';             /* a separator no field decides alone */
    t->p[t->n] = 0;
}
static void put_list(text *t, const char *label, const char *const *a)
{
    size_t i;
    put(t, label);
    for (i = 0; a && a[i]; i++) put(t, a[i]);
}
static char *describe(const mcp_server_config *s)
{
    text t = { NULL, 0, 0 };
    char num[64];
    const mcp_client_desc *d = &s->desc;
    snprintf(num, sizeof num, "%d %d %d", (int)d->transport, d->timeout_ms, s->disabled);
    put(&t, s->name);
    put(&t, num);
    put(&t, d->command ? d->command : "(none)");
    put(&t, d->cwd ? d->cwd : "(none)");
    put(&t, d->url ? d->url : "(none)");
    put_list(&t, "args", d->args);
    put_list(&t, "env", d->env);
    put_list(&t, "headers", d->headers);
    return t.p;
}

typedef struct reread { int n; char *first; } reread;
static void each_again(void *user, const mcp_server_config *s)
{
    reread *r = (reread *)user;
    REQUIRE(s->error == NULL);
    if (r->n++ == 0) r->first = describe(s);
}

static int is_tchar(char c)
{
    return (c >= '0' && c <= '9') || (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') ||
           (c && strchr("!#$%&'*+-.^_`|~", c) != NULL);
}

static void check_good(const mcp_server_config *s)
{
    const mcp_client_desc *d = &s->desc;
    size_t i;
    const char *p;
    REQUIRE(s->error == NULL);
    REQUIRE(s->name[0] != 0);
    if (d->transport == MCP_STDIO) REQUIRE(d->command && d->command[0] && !d->url);
    else REQUIRE((d->transport == MCP_HTTP || d->transport == MCP_SSE) && d->url && d->url[0] && !d->command);
    REQUIRE(!d->cwd || d->cwd[0]);
    REQUIRE(d->timeout_ms >= 0);
    REQUIRE(!d->args || d->args[0]);
    REQUIRE(!d->env || d->env[0]);
    REQUIRE(!d->headers || d->headers[0]);
    for (i = 0; d->env && d->env[i]; i++) REQUIRE((p = strchr(d->env[i], '=')) != NULL && p > d->env[i]);
    for (i = 0; d->headers && d->headers[i]; i++) {
        for (p = d->headers[i]; *p && *p != ':'; p++) REQUIRE(is_tchar(*p));
        REQUIRE(*p == ':' && p > d->headers[i] && p[1] == ' ');
        for (; *p; p++) REQUIRE((unsigned char)*p >= 0x20 || *p == '\t');
    }
}

/* Writes s into {"mcpServers": {name: entry}} and reads it back. */
static void round_trip(const mcp_server_config *s)
{
    mcp_jw w;
    char *out, *want;
    size_t n;
    mcp_config_opts o;
    mcp_error err;
    reread r = { 0, NULL };
    mcp_status st;
    mcp_jw_init(&w, 0);
    mcp_jw_obj_begin(&w);
    mcp_jw_key(&w, "mcpServers");
    mcp_jw_obj_begin(&w);
    mcp_jw_key(&w, s->name);
    st = mcp_config_write(&w, s);
    if (st != MCP_OK) { fprintf(stderr, "fuzz_config: a good entry was not written: %d\n", (int)st); abort(); }
    mcp_jw_obj_end(&w);
    mcp_jw_obj_end(&w);
    out = mcp_jw_finish(&w, &n, &err);
    REQUIRE(out != NULL);
    memset(&o, 0, sizeof o);
    o.no_env = 1;                            /* what was left as written stays so */
    o.user = &r;
    o.max_size = n + 1;
    if (mcp_config_parse(FILE_NAME, out, n, &o, each_again, &err) != MCP_OK || r.n != 1) {
        fprintf(stderr, "fuzz_config: own entry not read back (%d entries): %s\n%s\n", r.n, err.message, out);
        abort();
    }
    want = describe(s);
    if (strcmp(want, r.first) != 0) {
        fprintf(stderr, "fuzz_config: round trip changed the entry:\n%s\n", out);
        abort();
    }
    free(want);
    free(r.first);
    mcp_free(out);
}

static void each(void *user, const mcp_server_config *s)
{
    int *count = (int *)user;
    (*count)++;
    REQUIRE(s->name != NULL && s->line >= 1 && s->column >= 1);
    REQUIRE(s->file != NULL && !strcmp(s->file, FILE_NAME));
    if (s->error) {
        REQUIRE(s->disabled == 1);
        REQUIRE(!strncmp(s->error, FILE_NAME ":", strlen(FILE_NAME) + 1) && strstr(s->error, ": server \""));
        return;
    }
    check_good(s);
    round_trip(s);
}

/* JSON with comments against strict JSON. */
static void comments(const char *t, size_t size)
{
    mcp_json_opts o;
    mcp_error err;
    mcp_json_doc *strict, *loose, *again;
    char *dump;
    size_t n;
    memset(&o, 0, sizeof o);
    o.comments = 1;
    strict = mcp_json_parse(t, size, NULL);
    loose = mcp_json_parse_ex(t, size, &o, &err);
    if (strict) REQUIRE(loose && mcp_json_equal(mcp_json_root(strict), mcp_json_root(loose)));
    if (!loose) {
        REQUIRE(err.status == MCP_ERR_PARSE || err.status == MCP_ERR_LIMIT);
        REQUIRE(!strncmp(err.message, "JSON parse error at line ", 25));
    } else {
        dump = mcp_json_dump(mcp_json_root(loose), 0, &n);
        REQUIRE(dump != NULL);
        again = mcp_json_parse(dump, n, NULL);
        REQUIRE(again && mcp_json_equal(mcp_json_root(again), mcp_json_root(loose)));
        mcp_json_free(again);
        mcp_free(dump);
    }
    mcp_json_free(strict);
    mcp_json_free(loose);
}

int LLVMFuzzerTestOneInput(const unsigned char *data, size_t size)
{
    const char *t = (const char *)data;
    mcp_config_opts o;
    mcp_error err;
    mcp_status st;
    int count = 0;
    comments(t, size);
    memset(&o, 0, sizeof o);
    o.no_env = 1;
    o.variable = variable;
    o.on_log = on_log;
    o.user = &count;
    st = mcp_config_parse(FILE_NAME, t, size, &o, each, &err);
    if (st != MCP_OK) {
        REQUIRE(st == MCP_ERR_PARSE || st == MCP_ERR_LIMIT);
        REQUIRE(err.status == st && !strncmp(err.message, FILE_NAME, strlen(FILE_NAME)));
        REQUIRE(count == 0);
    } else {
        REQUIRE(err.status == MCP_OK);
    }
    return 0;
}
