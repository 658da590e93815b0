/* Tests of the host layer's config files (>>host.config): mcp_config_parse and
   mcp_config_write.

    1. The formats hosts write, from the files in DATA/config/ and from bytes in memory:
       Claude Desktop, Claude Code (.mcp.json), Cursor (comments, trailing commas), VS Code
       ("servers", "inputs", ${input:...}, ${workspaceFolder}); every field of every entry.
    2. Variables: ${VAR}, ${VAR:-default}, ${env:VAR}, the program's callback, unset ones
       (left as written, noted once), no_env, "$$", a lone '$', "${}", an unclosed "${",
       in every string field and in no other place.
    3. Errors: every bad entry with its exact sentence (file:line:col of the offending value,
       computed here independently from a marker in the text), one bad entry among good
       ones, errors of the whole file (not JSON, no server list, too large, NULL).
    4. Notes: unknown fields once per parse, the type aliases, both server lists, the cap.
    5. The writer: exact text, what it refuses, and parse -> write -> parse giving the same
       description for every entry of every sample file.
    6. Robustness: every prefix of every sample file, hostile input (deep nesting, huge
       strings, many variables, many servers, many bad entries on one line).

   Usage: test_config [DATA_DIR]   (default tests/data) */
#define _POSIX_C_SOURCE 200809L   /* setenv */
#include "../mcp.h"
#include "test.h"
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#if defined(MCP_NO_HOST) || (defined(MCP_NO_STDIO) && defined(MCP_NO_HTTP))
int main(void)
{
    SKIP("the host layer is left out of this build (MCP_NO_HOST, or no transport)");
    return TEST_DONE();
}
#else

static const char *datadir = "tests/data";

/* ---- capturing what mcp_config_parse hands out -------------------------------------------- */

/* One entry as a line of text: name, transport and every field that is set, in a fixed
   order; the error apart. */
typedef struct entry { char *text, *error, *name; int line, column, disabled; const char *file; } entry;

typedef struct capture {
    entry *e; int n, cap;
    char **logs; int nlogs, logcap;
    int keep;                 /* 0: count only (hostile inputs) */
} capture;

static char *dup_s(const char *s)
{
    size_t n = strlen(s) + 1;
    char *d = (char *)malloc(n);
    if (!d) { perror("malloc"); exit(2); }
    memcpy(d, s, n);
    return d;
}

typedef struct sb { char *p; size_t n, cap; } sb;
static void sb_add(sb *b, const char *fmt, ...)
{
    va_list ap;
    int k;
    for (;;) {
        va_start(ap, fmt);
        k = vsnprintf(b->p ? b->p + b->n : NULL, b->p ? b->cap - b->n : 0, fmt, ap);
        va_end(ap);
        if (k < 0) exit(2);
        if (b->p && b->n + (size_t)k < b->cap) { b->n += (size_t)k; return; }
        b->cap = (b->cap + (size_t)k + 64) * 2;
        b->p = (char *)realloc(b->p, b->cap);
        if (!b->p) { perror("realloc"); exit(2); }
    }
}

static void sb_list(sb *b, const char *label, const char *const *a)
{
    size_t i;
    if (!a) return;
    sb_add(b, " %s=", label);
    for (i = 0; a[i]; i++) sb_add(b, "%s%s", i ? "|" : "", a[i]);
}

static char *describe(const mcp_server_config *s)
{
    static const char *const kinds[] = { "stdio", "http", "sse", "custom" };
    const mcp_client_desc *d = &s->desc;
    sb b = { NULL, 0, 0 };
    sb_add(&b, "%s: %s", s->name, kinds[d->transport]);
    if (d->command) sb_add(&b, " command=%s", d->command);
    sb_list(&b, "args", d->args);
    sb_list(&b, "env", d->env);
    if (d->cwd) sb_add(&b, " cwd=%s", d->cwd);
    if (d->url) sb_add(&b, " url=%s", d->url);
    sb_list(&b, "headers", d->headers);
    if (d->timeout_ms) sb_add(&b, " timeout=%d", d->timeout_ms);
    if (s->disabled) sb_add(&b, " disabled");
    return b.p;
}

static void on_entry(void *user, const mcp_server_config *s)
{
    capture *c = (capture *)user;
    entry *e;
    if (c->n == c->cap) {
        c->cap = c->cap ? c->cap * 2 : 16;
        c->e = (entry *)realloc(c->e, (size_t)c->cap * sizeof *c->e);
        if (!c->e) { perror("realloc"); exit(2); }
    }
    e = &c->e[c->n++];
    memset(e, 0, sizeof *e);
    e->line = s->line; e->column = s->column; e->disabled = s->disabled; e->file = s->file;
    if (!c->keep) return;
    e->text = describe(s);
    e->name = dup_s(s->name);
    e->error = s->error ? dup_s(s->error) : NULL;
}

static void on_log(void *user, const char *msg)
{
    capture *c = (capture *)user;
    if (c->nlogs == c->logcap) {
        c->logcap = c->logcap ? c->logcap * 2 : 16;
        c->logs = (char **)realloc(c->logs, (size_t)c->logcap * sizeof *c->logs);
        if (!c->logs) { perror("realloc"); exit(2); }
    }
    c->logs[c->nlogs++] = c->keep ? dup_s(msg) : NULL;
}

static void cap_free(capture *c)
{
    int i;
    for (i = 0; i < c->n; i++) { free(c->e[i].text); free(c->e[i].error); free(c->e[i].name); }
    for (i = 0; i < c->nlogs; i++) free(c->logs[i]);
    free(c->e); free(c->logs);
    memset(c, 0, sizeof *c);
    c->keep = 1;
}

/* The program's variables, as VS Code has them. */
static const char *variable(void *user, const char *name)
{
    (void)user;
    if (!strcmp(name, "workspaceFolder")) return "/work/proj";
    if (!strcmp(name, "userHome")) return "/home/ada";
    if (!strcmp(name, "input:perplexity-key")) return "pplx-123";
    if (!strcmp(name, "env:CFG_TEST_ONLY_CB")) return "from-callback";
    if (!strcmp(name, "CFG_TEST_ONLY_CB")) return "from-callback";
    return NULL;
}

static mcp_config_opts opts_for(capture *c, int no_env, int with_vars)
{
    mcp_config_opts o;
    memset(&o, 0, sizeof o);
    o.user = c; o.on_log = on_log; o.no_env = no_env;
    if (with_vars) o.variable = variable;
    return o;
}

/* Parses text (n bytes) into c with the options; returns the status, err filled. */
static mcp_status parse_into(capture *c, const char *file, const char *text, size_t n,
                             const mcp_config_opts *o, mcp_error *err)
{
    c->keep = 1;
    return mcp_config_parse(file, text, n, o, on_entry, err);
}

static char *read_file(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    char *b = NULL;
    size_t cap = 0, n = 0, r;
    if (!f) return NULL;
    for (;;) {
        if (n == cap) {
            cap = cap ? cap * 2 : 4096;
            b = (char *)realloc(b, cap);
            if (!b) { perror("realloc"); exit(2); }
        }
        r = fread(b + n, 1, cap - n, f);
        if (r == 0) break;
        n += r;
    }
    fclose(f);
    *len = n;
    return b;
}

/* A file of the data directory's config/, read whole; one that cannot be read is a failed check (NULL). */
static char *data_file(const char *name, size_t *len)
{
    char path[1024];
    char *t;
    snprintf(path, sizeof path, "%s/config/%s", datadir, name);
    t = read_file(path, len);
    if (!t) CHECKF(0, "cannot read %s", path);
    return t;
}

/* "L:C" of the first byte of marker in text, searched from `from` on (bytes, from 1),
   counted here, not by mcp.h. */
static const char *pos_in(const char *text, const char *from, const char *marker)
{
    static char buf[8][32];
    static int k;
    const char *at = strstr(from, marker), *p;
    int line = 1, col = 1;
    char *o = buf[k = (k + 1) & 7];
    if (!at) { snprintf(o, sizeof buf[0], "(no %s)", marker); return o; }
    for (p = text; p < at; p++) {
        if (*p == '\n') { line++; col = 1; } else col++;
    }
    snprintf(o, sizeof buf[0], "%d:%d", line, col);
    return o;
}
static const char *pos_of(const char *text, const char *marker) { return pos_in(text, text, marker); }

static int has_log(const capture *c, const char *msg)
{
    int i;
    for (i = 0; i < c->nlogs; i++) if (c->logs[i] && !strcmp(c->logs[i], msg)) return 1;
    return 0;
}

static void dump_cap(const capture *c)
{
    int i;
    for (i = 0; i < c->n; i++)
        fprintf(stderr, "    entry %d (%d:%d): %s%s%s\n", i, c->e[i].line, c->e[i].column,
                c->e[i].text ? c->e[i].text : "", c->e[i].error ? "\n      error: " : "",
                c->e[i].error ? c->e[i].error : "");
    for (i = 0; i < c->nlogs; i++) fprintf(stderr, "    log: %s\n", c->logs[i] ? c->logs[i] : "");
}

/* Checks that entry i reads as want (and has no error). */
static int entry_is(const capture *c, int i, const char *want)
{
    if (i >= c->n) { fprintf(stderr, "  no entry %d\n", i); dump_cap(c); return 0; }
    if (strcmp(c->e[i].text, want) != 0 || c->e[i].error) {
        fprintf(stderr, "  entry %d:\n    got:  %s\n    want: %s\n    error: %s\n", i, c->e[i].text,
                want, c->e[i].error ? c->e[i].error : "(none)");
        return 0;
    }
    return 1;
}
#define ENTRY(c, i, want) CHECK(entry_is(&(c), (i), (want)))

static int error_is(const capture *c, int i, const char *want)
{
    if (i >= c->n) { fprintf(stderr, "  no entry %d\n", i); dump_cap(c); return 0; }
    if (!c->e[i].error || strcmp(c->e[i].error, want) != 0 || !c->e[i].disabled) {
        fprintf(stderr, "  entry %d's error:\n    got:  %s\n    want: %s\n", i,
                c->e[i].error ? c->e[i].error : "(none)", want);
        return 0;
    }
    return 1;
}
#define ERROR_IS(c, i, want) CHECK(error_is(&(c), (i), (want)))

/* ---- 1. the formats -------------------------------------------------------------------------- */

static void set_env(void)
{
    setenv("CFG_TEST_TOKEN", "ghp_secret", 1);
    setenv("CFG_TEST_KEY", "k-42", 1);
    setenv("CFG_TEST_HOME", "/home/test", 1);
    setenv("CFG_TEST_EMPTY", "", 1);
    unsetenv("CFG_TEST_BASE");
    unsetenv("CFG_TEST_UNSET");
    unsetenv("CFG_TEST_ONLY_CB");
}

TEST_CASE(claude_desktop)
{
    size_t n;
    char *t = data_file("claude_desktop_config.json", &n);
    capture c = { 0 };
    mcp_config_opts o = opts_for(&c, 0, 0);
    mcp_error err;
    const char *file = "claude_desktop_config.json";
    if (!t) return;
    CHECK(parse_into(&c, file, t, n, &o, &err) == MCP_OK && err.status == MCP_OK && !err.message[0]);
    CHECK(c.n == 2 && c.nlogs == 0);
    ENTRY(c, 0, "filesystem: stdio command=npx args=-y|@modelcontextprotocol/server-filesystem|"
                "/Users/me/Desktop|/Users/me/Downloads");
    ENTRY(c, 1, "github: stdio command=docker args=run|-i|--rm|-e|GITHUB_PERSONAL_ACCESS_TOKEN|"
                "ghcr.io/github/github-mcp-server env=GITHUB_PERSONAL_ACCESS_TOKEN=ghp_secret");
    CHECK(c.n == 2 && c.e[0].line == 3 && c.e[0].column == 5 && c.e[1].line == 12 && c.e[1].column == 5);
    CHECK(c.n == 2 && c.e[0].file == file);
    cap_free(&c);
    free(t);
}

TEST_CASE(claude_code)
{
    size_t n;
    char *t = data_file("claude_code_mcp.json", &n);
    capture c = { 0 };
    mcp_config_opts o = opts_for(&c, 0, 0);
    mcp_error err;
    if (!t) return;
    CHECK(parse_into(&c, ".mcp.json", t, n, &o, &err) == MCP_OK);
    CHECK(c.n == 3 && c.nlogs == 0);
    ENTRY(c, 0, "api-server: http url=https://api.example.com/mcp headers=Authorization: Bearer k-42");
    ENTRY(c, 1, "local: stdio command=/opt/servers/local-server env=LOG_LEVEL=debug|CACHE=/home/test/.cache "
                "timeout=20000");
    ENTRY(c, 2, "old-sse: sse url=http://127.0.0.1:8000/sse");
    cap_free(&c);
    /* the default gives way to the environment */
    setenv("CFG_TEST_BASE", "http://127.0.0.1:1234", 1);
    CHECK(parse_into(&c, ".mcp.json", t, n, &o, &err) == MCP_OK);
    ENTRY(c, 0, "api-server: http url=http://127.0.0.1:1234/mcp headers=Authorization: Bearer k-42");
    unsetenv("CFG_TEST_BASE");
    cap_free(&c);
    free(t);
}

TEST_CASE(cursor)
{
    size_t n;
    char *t = data_file("cursor_mcp.json", &n);
    capture c = { 0 };
    mcp_config_opts o = opts_for(&c, 0, 0);
    mcp_error err;
    char want[256];
    if (!t) return;
    CHECK(parse_into(&c, ".cursor/mcp.json", t, n, &o, &err) == MCP_OK);
    CHECK(c.n == 5);
    ENTRY(c, 0, "sqlite: stdio command=uvx args=mcp-server-sqlite|--db-path|/home/test/test.db");
    ENTRY(c, 1, "remote: http url=https://mcp.example.com/mcp headers=X-Api-Key: k-42");
    ENTRY(c, 2, "off: stdio command=node args=server.js disabled");
    ENTRY(c, 3, "streamable: http url=http://localhost:3000/mcp");
    ENTRY(c, 4, "disabled-too: stdio command=python args=-m|srv disabled");
    snprintf(want, sizeof want, ".cursor/mcp.json:%s: server \"streamable\": type \"streamable-http\" is "
             "read as \"http\"", pos_of(t, "\"streamable-http\""));
    CHECK(c.nlogs == 1 && has_log(&c, want));
    cap_free(&c);
    free(t);
}

TEST_CASE(vscode)
{
    size_t n;
    char *t = data_file("vscode_mcp.json", &n);
    capture c = { 0 };
    mcp_config_opts o = opts_for(&c, 0, 1);
    mcp_error err;
    char want[256];
    if (!t) return;
    CHECK(parse_into(&c, ".vscode/mcp.json", t, n, &o, &err) == MCP_OK);
    CHECK(c.n == 3);
    ENTRY(c, 0, "Perplexity: stdio command=docker args=run|-i|--rm|-e|PERPLEXITY_API_KEY|mcp/perplexity-ask "
                "env=PERPLEXITY_API_KEY=pplx-123");
    ENTRY(c, 1, "fetch: stdio command=uvx args=mcp-server-fetch cwd=/work/proj");
    ENTRY(c, 2, "github: http url=https://api.githubcopilot.com/mcp/ headers=Authorization: Bearer "
                "${input:github-token}");
    CHECK(c.nlogs == 2);
    snprintf(want, sizeof want, ".vscode/mcp.json:%s: server \"fetch\": field \"envFile\" is not read; ignored",
             pos_of(t, "\"envFile\""));
    CHECK(has_log(&c, want));
    snprintf(want, sizeof want, ".vscode/mcp.json:%s: server \"github\": variable ${input:github-token} is "
             "not set; left as written", pos_of(t, "${input:github-token}"));
    CHECK(has_log(&c, want));
    cap_free(&c);
    free(t);
}

/* The same bytes, from memory, with no file name. */
TEST_CASE(bytes)
{
    static const char text[] = "{\"mcpServers\":{\"a\":{\"command\":\"ls\",\"args\":[\"-l\"]},"
                               "\"b\":{\"url\":\"http://h/mcp\"}}}";
    capture c = { 0 };
    mcp_config_opts o = opts_for(&c, 1, 0);
    mcp_error err;
    CHECK(parse_into(&c, NULL, text, sizeof text - 1, &o, &err) == MCP_OK);
    ENTRY(c, 0, "a: stdio command=ls args=-l");
    ENTRY(c, 1, "b: http url=http://h/mcp");
    CHECK(c.n == 2 && c.e[0].file == NULL && c.e[0].line == 1 && c.e[0].column == 16 &&
          c.e[1].column == 51 && !strcmp(pos_of(text, "\"b\""), "1:51"));
    cap_free(&c);
    /* options NULL, each NULL: it still reads the file */
    CHECK(mcp_config_parse("x.json", text, sizeof text - 1, NULL, NULL, &err) == MCP_OK);
    CHECK(mcp_config_parse("x.json", text, sizeof text - 1, NULL, NULL, NULL) == MCP_OK);
    /* a byte order mark is skipped; columns count from after it */
    CHECK(parse_into(&c, "bom.json", "\xEF\xBB\xBF{\"servers\": {\"z\": {\"command\": \"z\"}}}", 39, &o, &err) == MCP_OK);
    ENTRY(c, 0, "z: stdio command=z");
    CHECK(c.n == 1 && c.e[0].line == 1 && c.e[0].column == 14);
    cap_free(&c);
    /* an empty server list is fine */
    CHECK(parse_into(&c, "e.json", "{\"mcpServers\": {}}", 18, &o, &err) == MCP_OK && c.n == 0);
    cap_free(&c);
    /* null is as if absent; duplicates come in order (the later replaces, for the host) */
    {
        static const char t2[] = "{\"mcpServers\": {\"a\": {\"command\": \"one\", \"args\": null, \"env\": null,"
                                 " \"timeout\": null, \"url\": null}, \"a\": {\"command\": \"two\"}}}";
        CHECK(parse_into(&c, "d.json", t2, sizeof t2 - 1, &o, &err) == MCP_OK);
        ENTRY(c, 0, "a: stdio command=one");
        ENTRY(c, 1, "a: stdio command=two");
        cap_free(&c);
    }
    /* a field given twice: the later */
    {
        static const char t3[] = "{\"mcpServers\": {\"a\": {\"command\": \"one\", \"args\": [\"x\"], "
                                 "\"command\": \"two\", \"args\": [\"y\", \"z\"], \"enabled\": false, \"enabled\": true}}}";
        CHECK(parse_into(&c, "d.json", t3, sizeof t3 - 1, &o, &err) == MCP_OK);
        ENTRY(c, 0, "a: stdio command=two args=y|z");
        cap_free(&c);
    }
    /* both lists: "mcpServers" is read, "servers" noted and ignored */
    {
        static const char t4[] = "{\"servers\": {\"v\": {\"command\": \"v\"}},\n \"mcpServers\": {\"m\": {\"command\": \"m\"}}}";
        char want[200];
        CHECK(parse_into(&c, "both.json", t4, sizeof t4 - 1, &o, &err) == MCP_OK);
        CHECK(c.n == 1);
        ENTRY(c, 0, "m: stdio command=m");
        snprintf(want, sizeof want, "both.json:1:2: both \"mcpServers\" and \"servers\" are given; "
                 "\"servers\" is ignored");
        CHECK(c.nlogs == 1 && has_log(&c, want));
        cap_free(&c);
    }
}

/* ---- 2. variables ---------------------------------------------------------------------------- */

static mcp_status parse_one(capture *c, const char *entry_json, int no_env, int with_vars)
{
    char text[4096];
    mcp_config_opts o = opts_for(c, no_env, with_vars);
    mcp_error err;
    snprintf(text, sizeof text, "{\"mcpServers\": {\"x\": %s}}", entry_json);
    return parse_into(c, "v.json", text, strlen(text), &o, &err);
}

TEST_CASE(variables)
{
    capture c = { 0 };
    char want[512];
    const char *text;
    /* every string field; not names */
    CHECK(parse_one(&c, "{\"command\": \"${CFG_TEST_HOME}/bin/srv\", \"args\": [\"--key=${CFG_TEST_KEY}\", "
                        "\"${CFG_TEST_KEY}${CFG_TEST_KEY}\"], \"env\": {\"${CFG_TEST_KEY}\": \"${CFG_TEST_TOKEN}\"}, "
                        "\"cwd\": \"${CFG_TEST_HOME}\"}", 0, 0) == MCP_OK);
    ENTRY(c, 0, "x: stdio command=/home/test/bin/srv args=--key=k-42|k-42k-42 env=${CFG_TEST_KEY}=ghp_secret "
                "cwd=/home/test");
    cap_free(&c);
    CHECK(parse_one(&c, "{\"url\": \"http://${CFG_TEST_KEY}.example/mcp\", \"headers\": {\"X-${CFG_TEST_KEY}\": "
                        "\"v ${CFG_TEST_KEY}\"}}", 0, 0) == MCP_OK);
    CHECK(c.n == 1 && c.e[0].error && strstr(c.e[0].error, "\"headers\" name \"X-${CFG_TEST_KEY}\" is not a valid header name"));
    cap_free(&c);
    CHECK(parse_one(&c, "{\"url\": \"http://${CFG_TEST_KEY}.example/mcp\", \"headers\": {\"X-Key\": "
                        "\"v ${CFG_TEST_KEY}\"}}", 0, 0) == MCP_OK);
    ENTRY(c, 0, "x: http url=http://k-42.example/mcp headers=X-Key: v k-42");
    cap_free(&c);

    /* defaults, env:, empty values */
    CHECK(parse_one(&c, "{\"command\": \"c\", \"args\": [\"${CFG_TEST_UNSET:-dflt}\", \"${CFG_TEST_KEY:-dflt}\", "
                        "\"${CFG_TEST_EMPTY:-dflt}\", \"[${CFG_TEST_EMPTY}]\", \"${CFG_TEST_UNSET:-}\", "
                        "\"${env:CFG_TEST_KEY}\", \"${env:CFG_TEST_UNSET:-d2}\", \"${CFG_TEST_UNSET:-a:-b}\"]}", 0, 0) == MCP_OK);
    ENTRY(c, 0, "x: stdio command=c args=dflt|k-42|dflt|[]||k-42|d2|a:-b");
    CHECK(c.nlogs == 0);
    cap_free(&c);

    /* what is left as it is */
    CHECK(parse_one(&c, "{\"command\": \"c\", \"args\": [\"$$\", \"$\", \"a$b\", \"$${CFG_TEST_KEY}\", \"${}\", "
                        "\"${CFG_TEST_KEY\", \"$CFG_TEST_KEY\", \"${\", \"end$\", \"$ {CFG_TEST_KEY}\"]}", 0, 0) == MCP_OK);
    ENTRY(c, 0, "x: stdio command=c args=$$|$|a$b|$${CFG_TEST_KEY}|${}|${CFG_TEST_KEY|$CFG_TEST_KEY|${|end$|$ {CFG_TEST_KEY}");
    CHECK(c.nlogs == 0);
    cap_free(&c);

    /* the callback: program variables, and environment names the environment lacks */
    CHECK(parse_one(&c, "{\"command\": \"c\", \"args\": [\"${workspaceFolder}/src\", \"${userHome}\", "
                        "\"${input:perplexity-key}\", \"${CFG_TEST_ONLY_CB}\", \"${env:CFG_TEST_ONLY_CB}\"]}", 0, 1) == MCP_OK);
    ENTRY(c, 0, "x: stdio command=c args=/work/proj/src|/home/ada|pplx-123|from-callback|from-callback");
    cap_free(&c);
    /* no_env: the environment is never read, the callback still is */
    CHECK(parse_one(&c, "{\"command\": \"c\", \"args\": [\"${CFG_TEST_KEY:-none}\", \"${workspaceFolder}\", "
                        "\"${CFG_TEST_ONLY_CB}\"]}", 1, 1) == MCP_OK);
    ENTRY(c, 0, "x: stdio command=c args=none|/work/proj|from-callback");
    cap_free(&c);

    /* unset: left as written, noted once per parse (the first place), with its position */
    text = "{\"mcpServers\": {\n"
           "  \"x\": {\"command\": \"c\", \"args\": [\"a ${CFG_TEST_UNSET} b\", \"${CFG_TEST_UNSET}\"]},\n"
           "  \"y\": {\"command\": \"${CFG_TEST_UNSET}\", \"args\": [\"\\u00e9\\t${input:nope}\"]}\n}}";
    {
        mcp_config_opts o = opts_for(&c, 0, 1);
        mcp_error err;
        CHECK(parse_into(&c, "mcp.json", text, strlen(text), &o, &err) == MCP_OK);
    }
    ENTRY(c, 0, "x: stdio command=c args=a ${CFG_TEST_UNSET} b|${CFG_TEST_UNSET}");
    ENTRY(c, 1, "y: stdio command=${CFG_TEST_UNSET} args=\xC3\xA9\t${input:nope}");
    CHECK(c.nlogs == 2);
    snprintf(want, sizeof want, "mcp.json:%s: server \"x\": variable ${CFG_TEST_UNSET} is not set; left as written",
             pos_of(text, "${CFG_TEST_UNSET}"));
    CHECKF(has_log(&c, want), "%s", want);
    snprintf(want, sizeof want, "mcp.json:%s: server \"y\": variable ${input:nope} is not set; left as written",
             pos_of(text, "${input:nope}"));       /* escapes before it counted as in the text */
    CHECKF(has_log(&c, want), "%s", want);
    if (c.nlogs != 2) dump_cap(&c);
    cap_free(&c);

    /* a header value that expands to a line break is refused, not sent */
    setenv("CFG_TEST_EVIL", "a\r\nX-Injected: 1", 1);
    CHECK(parse_one(&c, "{\"url\": \"http://h\", \"headers\": {\"X\": \"${CFG_TEST_EVIL}\"}}", 0, 0) == MCP_OK);
    CHECK(c.n == 1 && c.e[0].error && c.e[0].disabled &&
          strstr(c.e[0].error, "the value of header \"X\" holds a line break or another control character"));
    unsetenv("CFG_TEST_EVIL");
    cap_free(&c);
}

/* ---- 3. errors ------------------------------------------------------------------------------- */

/* The entry "x" (JSON at marker's place) is bad with this reason, at the marker. */
static int bad_entry(const char *entry_json, const char *marker, const char *why)
{
    char text[4096], want[1024];
    capture c = { 0 };
    mcp_config_opts o = opts_for(&c, 1, 0);
    mcp_error err;
    int ok;
    snprintf(text, sizeof text, "{\n  \"mcpServers\": {\n    \"first\": {\"command\": \"ok\"},\n    \"x\": %s,\n"
             "    \"last\": {\"url\": \"http://ok\"}\n  }\n}\n", entry_json);
    snprintf(want, sizeof want, "mcp.json:%s: server \"x\": %s", pos_in(text, strstr(text, "\n    \"x\"") + 5,
             marker), why);
    ok = parse_into(&c, "mcp.json", text, strlen(text), &o, &err) == MCP_OK && c.n == 3 &&
         entry_is(&c, 0, "first: stdio command=ok") && entry_is(&c, 2, "last: http url=http://ok") &&
         error_is(&c, 1, want) && has_log(&c, want);
    if (!ok) { fprintf(stderr, "  text:\n%s", text); dump_cap(&c); }
    cap_free(&c);
    return ok;
}
#define BAD(entry, marker, why) CHECKF(bad_entry((entry), (marker), (why)), "%s", (entry))

TEST_CASE(entry_errors)
{
    size_t n;
    char *t;
    capture c = { 0 };
    mcp_config_opts o = opts_for(&c, 1, 0);
    mcp_error err;
    char want[512];

    BAD("{\"command\": \"gh\", \"args\": \"mcp serve\"}", "\"mcp serve\"", "\"args\" must be an array of strings");
    BAD("{\"command\": \"gh\", \"args\": [\"a\", 17]}", "17]", "\"args\" must be an array of strings");
    BAD("{\"command\": \"gh\", \"args\": [[\"a\"]]}", "[\"a\"]]", "\"args\" must be an array of strings");
    BAD("{\"command\": \"gh\", \"env\": {\"A\": 1}}", "1}", "\"env\" must be an object of strings");
    BAD("{\"command\": \"gh\", \"env\": [\"A=1\"]}", "[\"A=1\"]", "\"env\" must be an object of strings");
    BAD("{\"command\": \"gh\", \"env\": {\"A=B\": \"1\"}}", "\"A=B\"", "\"env\" name \"A=B\" is not a valid variable name");
    BAD("{\"command\": \"gh\", \"env\": {\"\": \"1\"}}", "\"\": \"1\"", "\"env\" name \"\" is not a valid variable name");
    BAD("{\"url\": \"http://h\", \"headers\": {\"Auth\": true}}", "true", "\"headers\" must be an object of strings");
    BAD("{\"url\": \"http://h\", \"headers\": \"Auth: x\"}", "\"Auth: x\"", "\"headers\" must be an object of strings");
    BAD("{\"url\": \"http://h\", \"headers\": {\"Bad Name\": \"v\"}}", "\"Bad Name\"",
        "\"headers\" name \"Bad Name\" is not a valid header name");
    BAD("{\"url\": \"http://h\", \"headers\": {\"X\": \"a\\nb\"}}", "\"a\\nb\"",
        "the value of header \"X\" holds a line break or another control character");
    BAD("{\"command\": \"gh\", \"timeout\": 0}", "0}", "\"timeout\" must be a positive whole number of milliseconds");
    BAD("{\"command\": \"gh\", \"timeout\": -5}", "-5", "\"timeout\" must be a positive whole number of milliseconds");
    BAD("{\"command\": \"gh\", \"timeout\": 1.5}", "1.5", "\"timeout\" must be a positive whole number of milliseconds");
    BAD("{\"command\": \"gh\", \"timeout\": \"100\"}", "\"100\"", "\"timeout\" must be a positive whole number of milliseconds");
    BAD("{\"command\": \"gh\", \"timeout\": 3000000000}", "3000000000", "\"timeout\" must be a positive whole number of milliseconds");
    BAD("{\"type\": \"websocket\", \"url\": \"ws://h\"}", "\"websocket\"", "\"type\" must be \"stdio\", \"http\" or \"sse\"");
    BAD("{\"type\": 1, \"url\": \"ws://h\"}", "1, ", "\"type\" must be \"stdio\", \"http\" or \"sse\"");
    BAD("{\"command\": \"x\", \"url\": \"http://h\"}", "\"http://h\"",
        "both \"command\" and \"url\" are given; a server has one or the other");
    BAD("{\"url\": \"http://h\", \"command\": \"x\"}", "\"x\"}",
        "both \"command\" and \"url\" are given; a server has one or the other");
    BAD("{\"cwd\": \"/tmp\"}", "\"x\"", "needs \"command\" (a local server) or \"url\" (a remote one)");
    BAD("{}", "\"x\"", "needs \"command\" (a local server) or \"url\" (a remote one)");
    BAD("{\"type\": \"stdio\", \"url\": \"http://h\"}", "\"stdio\"", "type \"stdio\" needs \"command\"");
    BAD("{\"type\": \"http\", \"command\": \"x\"}", "\"http\"", "type \"http\" needs \"url\"");
    BAD("{\"type\": \"sse\"}", "\"sse\"", "type \"sse\" needs \"url\"");
    BAD("{\"command\": \"\"}", "\"\"}", "\"command\" must be a non-empty string");
    BAD("{\"command\": [\"npx\", \"x\"]}", "[\"npx\"", "\"command\" must be a non-empty string");
    BAD("{\"url\": 5}", "5}", "\"url\" must be a non-empty string");
    BAD("{\"command\": \"x\", \"cwd\": \"\"}", "\"\"}", "\"cwd\" must be a non-empty string");
    BAD("{\"command\": \"x\", \"disabled\": \"yes\"}", "\"yes\"", "\"disabled\" must be true or false");
    BAD("{\"command\": \"x\", \"enabled\": 0}", "0}", "\"enabled\" must be true or false");
    BAD("\"npx -y server\"", "\"npx -y server\"", "the entry must be an object");
    BAD("[\"npx\"]", "[\"npx\"]", "the entry must be an object");
    BAD("{\"command\": \"x\", \"args\": [\"a\\u0000b\"]}", "\"a\\u0000b\"", "\"args\" holds a NUL character (\\u0000)");
    BAD("{\"command\": \"x\\u0000y\"}", "\"x\\u0000y\"", "\"command\" holds a NUL character (\\u0000)");
    /* the first error in file order is the one kept */
    BAD("{\"args\": 1, \"timeout\": 0}", "1, ", "\"args\" must be an array of strings");
    /* with comments and line breaks between */
    BAD("{\n      // the server\n      \"command\": \"x\",\n      /* its flags */ \"args\": {\"a\": 1}\n    }",
        "{\"a\": 1}", "\"args\" must be an array of strings");

    /* names: empty, with NUL, long, with control characters */
    {
        static const char t1[] = "{\"mcpServers\": {\"\": {\"command\": \"x\"}, \"a\\u0000b\": {\"command\": \"x\"}}}";
        CHECK(parse_into(&c, "n.json", t1, sizeof t1 - 1, &o, &err) == MCP_OK && c.n == 2);
        ERROR_IS(c, 0, "n.json:1:17: server \"\": a server's name must not be empty");
        ERROR_IS(c, 1, "n.json:1:39: server \"a?b\": a server's name must not hold a NUL character");
        cap_free(&c);
    }
    {
        char t2[600], name[301];
        memset(name, 'n', 300); name[300] = 0;
        memcpy(name + 79, "\xC3\xA9", 2);   /* a character across the cut */
        snprintf(t2, sizeof t2, "{\"mcpServers\": {\"%s\": {\"args\": 1}, \"t\\u0001\\n\": {\"args\": 1}}}", name);
        CHECK(parse_into(&c, "long.json", t2, strlen(t2), &o, &err) == MCP_OK && c.n == 2);
        snprintf(want, sizeof want, "long.json:1:%d: server \"%.79s...\": \"args\" must be an array of strings",
                 (int)(strstr(t2, "1}") - t2) + 1, name);
        ERROR_IS(c, 0, want);
        CHECK(c.n == 2 && strcmp(c.e[0].name, name) == 0);       /* the name itself is whole */
        CHECK(c.n == 2 && c.e[1].error && strstr(c.e[1].error, "server \"t??\": "));
        cap_free(&c);
    }

    /* the file of bad entries: the good ones unaffected */
    t = data_file("bad_entries.json", &n);
    if (!t) return;
    CHECK(parse_into(&c, "bad_entries.json", t, n, &o, &err) == MCP_OK && c.n == 6);
    ENTRY(c, 0, "good: stdio command=echo args=hi");
    snprintf(want, sizeof want, "bad_entries.json:%s: server \"github\": \"args\" must be an array of strings",
             pos_of(t, "\"mcp serve\""));
    ERROR_IS(c, 1, want);
    CHECK(strcmp(want, "bad_entries.json:4:42: server \"github\": \"args\" must be an array of strings") == 0);
    ENTRY(c, 2, "also-good: http url=http://localhost:9000/mcp");
    ERROR_IS(c, 3, "bad_entries.json:6:38: server \"both\": both \"command\" and \"url\" are given; a server "
                   "has one or the other");
    ERROR_IS(c, 4, "bad_entries.json:7:23: server \"typo\": \"type\" must be \"stdio\", \"http\" or \"sse\"");
    ERROR_IS(c, 5, "bad_entries.json:8:5: server \"neither\": needs \"command\" (a local server) or \"url\" (a "
                   "remote one)");
    CHECK(c.nlogs == 4);                   /* each bad entry's sentence, through on_log too */
    /* a bad entry keeps what was read before its error, disabled */
    CHECK(c.n == 6 && c.e[1].text && strcmp(c.e[1].text, "github: stdio command=gh disabled") == 0);
    cap_free(&c);
    free(t);
}

/* Errors of the whole file: MCP_ERR_PARSE (or LIMIT, INVALID) and no entry at all. */
static int file_error(const char *text, size_t n, mcp_status st, const char *msg)
{
    capture c = { 0 };
    mcp_config_opts o = opts_for(&c, 1, 0);
    mcp_error err;
    mcp_status got = parse_into(&c, "mcp.json", text, n, &o, &err);
    int ok = got == st && err.status == st && !strcmp(err.message, msg) && c.n == 0;
    if (!ok) fprintf(stderr, "  status %d (want %d)\n  got:  %s\n  want: %s\n", (int)got, (int)st, err.message, msg);
    cap_free(&c);
    return ok;
}
#define FILE_ERROR(text, st, msg) CHECK(file_error((text), strlen(text), (st), (msg)))

TEST_CASE(file_errors)
{
    char *big;
    mcp_error err;
    mcp_config_opts o;
    FILE_ERROR("{\n  \"mcpServers\": {\n    \"a\": {\"command\": \"x\"}\n    \"b\": {}\n  }\n}", MCP_ERR_PARSE,
               "mcp.json:4:5: the file is not valid JSON: expected ',' or '}', found '\"'");
    FILE_ERROR("{\"mcpServers\": {/* never closed }}", MCP_ERR_PARSE,
               "mcp.json:1:17: the file is not valid JSON: unterminated block comment (no */ after its /*)");
    FILE_ERROR("", MCP_ERR_PARSE, "mcp.json:1:1: the file is not valid JSON: expected a value but the input ended");
    FILE_ERROR("// just a comment\n", MCP_ERR_PARSE,
               "mcp.json:2:1: the file is not valid JSON: expected a value but the input ended");
    FILE_ERROR("{\"mcpServers\": {\"a\": {\"command\": \"\xC3\xA9\xC3\" }}}", MCP_ERR_PARSE,
               "mcp.json:1:37: the file is not valid JSON: invalid UTF-8 (byte 0xC3) in a string");
    FILE_ERROR("[{\"mcpServers\": {}}]", MCP_ERR_PARSE,
               "mcp.json:1:1: the file must hold an object with \"mcpServers\" or \"servers\"");
    FILE_ERROR("\n  \"text\"", MCP_ERR_PARSE,
               "mcp.json:2:3: the file must hold an object with \"mcpServers\" or \"servers\"");
    FILE_ERROR("{\"globalShortcut\": \"x\", \"mcp\": {}}", MCP_ERR_PARSE,
               "mcp.json:1:1: the file has neither \"mcpServers\" nor \"servers\"");
    FILE_ERROR("{\"mcpServers\": [\n  {\"command\": \"x\"}]}", MCP_ERR_PARSE,
               "mcp.json:1:16: \"mcpServers\" must be an object of servers");
    FILE_ERROR("{\"servers\": null}", MCP_ERR_PARSE, "mcp.json:1:13: \"servers\" must be an object of servers");
    /* the last "mcpServers" counts, as mcp_json_get has it */
    FILE_ERROR("{\"mcpServers\": {}, \"mcpServers\": 1}", MCP_ERR_PARSE,
               "mcp.json:1:34: \"mcpServers\" must be an object of servers");
    CHECK(mcp_config_parse("mcp.json", NULL, 3, NULL, NULL, &err) == MCP_ERR_INVALID &&
          !strcmp(err.message, "mcp_config_parse was given a NULL text of 3 bytes."));
    CHECK(mcp_config_parse(NULL, NULL, 0, NULL, NULL, &err) == MCP_ERR_PARSE &&
          !strcmp(err.message, "<config>:1:1: the file is not valid JSON: expected a value but the input ended"));
    /* size: 4 MiB by default, max_size otherwise */
    big = (char *)malloc((4 << 20) + 2);
    if (!big) { perror("malloc"); exit(2); }
    memset(big, ' ', (4 << 20) + 1);
    memcpy(big, "{\"mcpServers\": {}}", 18);
    CHECK(mcp_config_parse("big.json", big, 4 << 20, NULL, NULL, &err) == MCP_OK);
    CHECK(mcp_config_parse("big.json", big, (4 << 20) + 1, NULL, NULL, &err) == MCP_ERR_LIMIT &&
          !strcmp(err.message, "big.json: the file is 4194305 bytes, over the limit of 4194304 bytes "
                               "(raise mcp_config_opts.max_size)."));
    memset(&o, 0, sizeof o);
    o.max_size = 100;
    CHECK(mcp_config_parse("big.json", big, 101, &o, NULL, &err) == MCP_ERR_LIMIT);
    CHECK(mcp_config_parse("big.json", big, 100, &o, NULL, &err) == MCP_OK);
    o.max_size = (size_t)8 << 20;
    CHECK(mcp_config_parse("big.json", big, (4 << 20) + 1, &o, NULL, &err) == MCP_OK);
    free(big);
}

/* ---- 4. notes -------------------------------------------------------------------------------- */

TEST_CASE(notes)
{
    static const char text[] =
        "{\"mcpServers\": {\n"
        "  \"a\": {\"command\": \"x\", \"envFile\": \".env\", \"autoApprove\": []},\n"
        "  \"b\": {\"command\": \"y\", \"envFile\": \".env2\", \"Command\": \"z\"},\n"
        "  \"c\": {\"type\": \"streamableHttp\", \"url\": \"http://h\"}\n"
        "}}";
    capture c = { 0 };
    mcp_config_opts o = opts_for(&c, 1, 0);
    mcp_error err;
    char want[256];
    int i;
    CHECK(parse_into(&c, "mcp.json", text, sizeof text - 1, &o, &err) == MCP_OK && c.n == 3);
    ENTRY(c, 0, "a: stdio command=x");
    ENTRY(c, 1, "b: stdio command=y");
    ENTRY(c, 2, "c: http url=http://h");
    CHECK(c.nlogs == 4);
    CHECK(has_log(&c, "mcp.json:2:25: server \"a\": field \"envFile\" is not read; ignored"));
    snprintf(want, sizeof want, "mcp.json:%s: server \"a\": field \"autoApprove\" is not read; ignored",
             pos_of(text, "\"autoApprove\""));
    CHECK(has_log(&c, want));
    snprintf(want, sizeof want, "mcp.json:%s: server \"b\": field \"Command\" is not read; ignored",
             pos_of(text, "\"Command\""));
    CHECK(has_log(&c, want));
    snprintf(want, sizeof want, "mcp.json:%s: server \"c\": type \"streamableHttp\" is read as \"http\"",
             pos_of(text, "\"streamableHttp\""));
    CHECK(has_log(&c, want));
    if (c.nlogs != 4) dump_cap(&c);
    cap_free(&c);
    /* without on_log nothing is said, and nothing else changes */
    o.on_log = NULL;
    CHECK(parse_into(&c, "mcp.json", text, sizeof text - 1, &o, &err) == MCP_OK && c.n == 3 && c.nlogs == 0);
    cap_free(&c);
    /* the cap: 100 notes, then one saying the rest are left out */
    {
        sb b = { NULL, 0, 0 };
        o.on_log = on_log;
        sb_add(&b, "{\"mcpServers\": {\"a\": {\"command\": \"x\"");
        for (i = 0; i < 300; i++) sb_add(&b, ", \"f%d\": %d", i, i);
        sb_add(&b, ", \"args\": [");
        for (i = 0; i < 300; i++) sb_add(&b, "%s\"${V%d}\"", i ? "," : "", i);
        sb_add(&b, "]}}}");
        CHECK(parse_into(&c, "many.json", b.p, b.n, &o, &err) == MCP_OK && c.n == 1 && !c.e[0].error);
        CHECK(c.nlogs == 101);
        CHECK(c.nlogs == 101 && !strcmp(c.logs[100], "many.json: more notes about this file are left out (100 were given)."));
        snprintf(want, sizeof want, "many.json:%s: server \"a\": field \"f99\" is not read; ignored",
                 pos_of(b.p, "\"f99\""));
        CHECK(c.nlogs == 101 && !strcmp(c.logs[99], want));
        cap_free(&c);
        free(b.p);
    }
}

/* ---- 5. the writer --------------------------------------------------------------------------- */

static char *write_entry(const mcp_server_config *s, int pretty, mcp_status *st)
{
    mcp_jw w;
    char *out;
    mcp_jw_init(&w, pretty);
    *st = mcp_config_write(&w, s);
    out = mcp_jw_finish(&w, NULL, NULL);
    return out;
}

TEST_CASE(writer)
{
    const char *args[] = { "-y", "srv", NULL }, *env[] = { "A=1", "B=x=y", NULL };
    const char *hdr[] = { "Authorization: Bearer t", "X-Empty:", "X-Two:  two spaces", NULL };
    const char *unset_env[] = { "HOME", NULL }, *bad_hdr[] = { "no colon", NULL };
    mcp_server_config s;
    mcp_status st;
    char *t;
    mcp_jw w;

    memset(&s, 0, sizeof s);
    s.name = "x";
    s.desc.command = "npx"; s.desc.args = args; s.desc.env = env; s.desc.cwd = "/srv";
    s.desc.timeout_ms = 5000;
    t = write_entry(&s, 0, &st);
    CHECK(st == MCP_OK && t && !strcmp(t, "{\"type\":\"stdio\",\"command\":\"npx\",\"args\":[\"-y\",\"srv\"],"
                                       "\"env\":{\"A\":\"1\",\"B\":\"x=y\"},\"cwd\":\"/srv\",\"timeout\":5000}"));
    mcp_free(t);
    memset(&s, 0, sizeof s);
    s.desc.transport = MCP_HTTP; s.desc.url = "https://h/mcp"; s.desc.headers = hdr; s.disabled = 1;
    t = write_entry(&s, 0, &st);
    CHECK(st == MCP_OK && t && !strcmp(t, "{\"type\":\"http\",\"url\":\"https://h/mcp\",\"headers\":{\"Authorization\":"
                                       "\"Bearer t\",\"X-Empty\":\"\",\"X-Two\":\" two spaces\"},\"disabled\":true}"));
    mcp_free(t);
    s.desc.transport = MCP_SSE; s.desc.headers = NULL; s.disabled = 0;
    t = write_entry(&s, 1, &st);
    CHECK(st == MCP_OK && t && !strcmp(t, "{\n  \"type\": \"sse\",\n  \"url\": \"https://h/mcp\"\n}"));
    mcp_free(t);

    /* refused, with the writer's sticky error; nothing half-written */
#define REFUSED(what) do { t = write_entry(&s, 0, &st); CHECKF(st == MCP_ERR_INVALID && !t, "%s", what); mcp_free(t); } while (0)
    s.desc.transport = MCP_CUSTOM; REFUSED("custom");
    s.desc.transport = MCP_HTTP; s.desc.url = NULL; REFUSED("no url");
    s.desc.url = ""; REFUSED("empty url");
    s.desc.transport = MCP_STDIO; s.desc.command = NULL; REFUSED("no command");
    s.desc.command = "x"; s.desc.env = unset_env; REFUSED("unset env");
    s.desc.env = NULL; s.desc.headers = bad_hdr; REFUSED("header without colon");
    s.desc.headers = NULL; s.desc.timeout_ms = -1; REFUSED("no timeout");
    s.desc.timeout_ms = 0; s.error = "mcp.json:1:1: server \"x\": bad"; REFUSED("bad entry");
    s.error = NULL; s.desc.cwd = ""; REFUSED("empty cwd");
    s.desc.cwd = NULL;
    CHECK(mcp_config_write(NULL, &s) == MCP_ERR_INVALID);
    mcp_jw_init(&w, 0);
    CHECK(mcp_config_write(&w, NULL) == MCP_ERR_INVALID);
    mcp_jw_free(&w);
    /* inside an object, after a key: what a program writes its config with */
    mcp_jw_init(&w, 0);
    mcp_jw_obj_begin(&w); mcp_jw_key(&w, "mcpServers"); mcp_jw_obj_begin(&w); mcp_jw_key(&w, "x");
    CHECK(mcp_config_write(&w, &s) == MCP_OK);
    mcp_jw_obj_end(&w); mcp_jw_obj_end(&w);
    t = mcp_jw_finish(&w, NULL, NULL);
    CHECK(t && !strcmp(t, "{\"mcpServers\":{\"x\":{\"type\":\"stdio\",\"command\":\"x\"}}}"));
    mcp_free(t);
}

/* parse -> write -> parse: every entry reads back the same. */
typedef struct rt { int entries, same; } rt;
static void round_trip_each(void *user, const mcp_server_config *s)
{
    rt *r = (rt *)user;
    mcp_jw w;
    capture c = { 0 };
    mcp_config_opts o;
    mcp_error err;
    char *text, *want;
    size_t n;
    int pretty;
    r->entries++;
    if (s->error) { r->same++; return; }
    want = describe(s);
    for (pretty = 0; pretty < 2; pretty++) {
        mcp_jw_init(&w, pretty);
        mcp_jw_obj_begin(&w); mcp_jw_key(&w, "mcpServers"); mcp_jw_obj_begin(&w); mcp_jw_key(&w, s->name);
        mcp_config_write(&w, s);
        mcp_jw_obj_end(&w); mcp_jw_obj_end(&w);
        text = mcp_jw_finish(&w, &n, NULL);
        o = opts_for(&c, 1, 0);
        if (text && parse_into(&c, "rt.json", text, n, &o, &err) == MCP_OK && c.n == 1 && !c.e[0].error &&
            !strcmp(c.e[0].text, want)) {
            if (pretty) r->same++;
        } else {
            fprintf(stderr, "  round trip of %s:\n    wrote %s\n", want, text ? text : "(nothing)");
            dump_cap(&c);
        }
        mcp_free(text);
        cap_free(&c);
    }
    free(want);
}

static const char *const samples[] = { "claude_desktop_config.json", "claude_code_mcp.json", "cursor_mcp.json",
                                       "vscode_mcp.json", "bad_entries.json" };
#define NSAMPLES (sizeof samples / sizeof samples[0])

TEST_CASE(round_trip)
{
    size_t i, n;
    rt r = { 0, 0 };
    mcp_config_opts o;
    for (i = 0; i < NSAMPLES; i++) {
        char *t = data_file(samples[i], &n);
        if (!t) continue;
        memset(&o, 0, sizeof o);
        o.user = &r; o.no_env = 1;            /* variables stay as written: they read back so */
        CHECK(mcp_config_parse(samples[i], t, n, &o, round_trip_each, NULL) == MCP_OK);
        memset(&o, 0, sizeof o);
        o.user = &r; o.variable = variable;   /* and expanded */
        CHECK(mcp_config_parse(samples[i], t, n, &o, round_trip_each, NULL) == MCP_OK);
        free(t);
    }
    CHECKF(r.entries == 2 * (2 + 3 + 5 + 3 + 6) && r.same == r.entries, "%d of %d entries read back the same",
           r.same, r.entries);
}

/* ---- 6. robustness --------------------------------------------------------------------------- */

TEST_CASE(prefixes)
{
    size_t i, k, n;
    int bad = 0, total = 0;
    for (i = 0; i < NSAMPLES; i++) {
        char *t = data_file(samples[i], &n), *copy;
        capture c = { 0 };
        mcp_config_opts o = opts_for(&c, 0, 1);
        mcp_error err;
        int full;
        if (!t) continue;
        c.keep = 0;
        mcp_config_parse(samples[i], t, n, &o, on_entry, &err);
        full = c.n;
        for (k = 0; k < n; k++) {
            mcp_status st;
            c.n = 0;
            copy = (char *)malloc(k ? k : 1);    /* exactly k bytes: ASan sees a read past them */
            if (!copy) exit(2);
            memcpy(copy, t, k);
            c.keep = 0;
            st = mcp_config_parse(samples[i], copy, k, &o, on_entry, &err);
            total++;
            if (!(st == MCP_ERR_PARSE || (st == MCP_OK && c.n <= full))) bad++;
            if (st != MCP_OK && (c.n != 0 || strncmp(err.message, samples[i], strlen(samples[i])) != 0)) bad++;
            free(copy);
        }
        cap_free(&c);
        free(t);
    }
    CHECKF(bad == 0, "%d of %d prefixes misread", bad, total);
}

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

/* Hostile files: each must be read in bounded time and memory, with the right outcome. */
TEST_CASE(hostile)
{
    sb b = { NULL, 0, 0 };
    capture c = { 0 };
    mcp_config_opts o = opts_for(&c, 0, 1);
    mcp_error err;
    int i;
    double t0;
    char want[256];

    /* deep nesting: past the parser's limit, and just within it in an unknown field */
    sb_add(&b, "{\"mcpServers\": {\"a\": {\"command\": \"x\", \"deep\": ");
    for (i = 0; i < 100000; i++) sb_add(&b, "[");
    CHECK(parse_into(&c, "deep.json", b.p, b.n, &o, &err) == MCP_ERR_LIMIT && c.n == 0 &&
          !strcmp(err.message, "deep.json:1:556: the file cannot be read: nesting is deeper than the limit of 512 levels"));
    cap_free(&c);
    b.n = 0;
    sb_add(&b, "{\"mcpServers\": {\"a\": {\"command\": \"x\", \"deep\": ");
    for (i = 0; i < 250; i++) sb_add(&b, "[{\"s\":\"]}\",\"c\":/*]*/");   /* 503 levels in all */
    sb_add(&b, "0");
    for (i = 0; i < 250; i++) sb_add(&b, "}]");
    sb_add(&b, ", \"args\": [\"after\"]}}}");
    CHECK(parse_into(&c, "deep.json", b.p, b.n, &o, &err) == MCP_OK);
    ENTRY(c, 0, "a: stdio command=x args=after");
    CHECK(c.nlogs == 1 && has_log(&c, "deep.json:1:39: server \"a\": field \"deep\" is not read; ignored"));
    cap_free(&c);

    /* a huge string: 3 MiB of one argument; a string that would expand past the bound */
    b.n = 0;
    sb_add(&b, "{\"mcpServers\": {\"a\": {\"command\": \"x\", \"args\": [\"");
    for (i = 0; i < 3 << 20; i += 16) sb_add(&b, "0123456789abcdef");
    sb_add(&b, "\"]}}}");
    CHECK(parse_into(&c, "huge.json", b.p, b.n, &o, &err) == MCP_OK && c.n == 1 && !c.e[0].error &&
          strlen(c.e[0].text) == 24 + ((size_t)3 << 20));
    cap_free(&c);
    setenv("CFG_TEST_LONG", "....................................................................................................", 1);
    b.n = 0;
    sb_add(&b, "{\"mcpServers\": {\"a\": {\"command\": \"x\", \"args\": [\"");
    for (i = 0; i < 100000; i++) sb_add(&b, "${CFG_TEST_LONG}");   /* 1.6 MB, 10 MB expanded */
    sb_add(&b, "\"]}, \"b\": {\"command\": \"ok\"}}}");
    t0 = now_s();
    CHECK(parse_into(&c, "vars.json", b.p, b.n, &o, &err) == MCP_OK && c.n == 2);
    CHECK(c.n == 2 && c.e[0].error && !strcmp(c.e[0].error, "vars.json:1:48: server \"a\": its strings grow past "
                                                           "8388608 bytes with their variables expanded"));
    ENTRY(c, 1, "b: stdio command=ok");
    CHECKF(now_s() - t0 < 10, "%.1f s", now_s() - t0);
    cap_free(&c);
    unsetenv("CFG_TEST_LONG");

    /* many variables, each unset and different: noted up to the cap, callback asked each time */
    b.n = 0;
    sb_add(&b, "{\"mcpServers\": {\"a\": {\"command\": \"x\", \"args\": [\"");
    for (i = 0; i < 200000; i++) sb_add(&b, "${input:v%d}", i);
    sb_add(&b, "\"]}}}");
    t0 = now_s();
    c.keep = 0;
    CHECK(mcp_config_parse("vars.json", b.p, b.n, &o, on_entry, &err) == MCP_OK && c.n == 1 && !c.e[0].error);
    CHECK(c.nlogs == 101);
    CHECKF(now_s() - t0 < 10, "%.1f s", now_s() - t0);
    cap_free(&c);

    /* many servers, and many bad ones on one line (line:col must not rescan the text) */
    b.n = 0;
    sb_add(&b, "{\"mcpServers\": {");
    for (i = 0; i < 100000; i++) sb_add(&b, "%s\"s%d\": {\"args\": %d}", i ? "," : "", i, i);
    sb_add(&b, "}}");
    t0 = now_s();
    c.keep = 0;
    CHECK(mcp_config_parse("many.json", b.p, b.n, &o, on_entry, &err) == MCP_OK && c.n == 100000);
    CHECK(c.nlogs == 100000);                 /* every bad entry is said */
    CHECK(c.n == 100000 && c.e[99999].line == 1 && c.e[99999].column == (int)(strstr(b.p, "\"s99999\"") - b.p) + 1);
    CHECKF(now_s() - t0 < 10, "%.1f s", now_s() - t0);
    cap_free(&c);
    b.n = 0;
    sb_add(&b, "{\"mcpServers\": {\n");
    for (i = 0; i < 100000; i++) sb_add(&b, "%s\"s%d\": {\n\"env\": {\"K\": \"${CFG_TEST_KEY}\"},\n\"cwd\": \"/\"}", i ? ",\n" : "", i);
    sb_add(&b, "}}");
    t0 = now_s();
    c.keep = 0;
    o.max_size = (size_t)16 << 20;
    CHECK(mcp_config_parse("many.json", b.p, b.n, &o, on_entry, &err) == MCP_OK && c.n == 100000);
    o.max_size = 0;
    CHECK(c.n == 100000 && c.e[99999].disabled && c.e[99999].line == 2 + 3 * 99999 && c.e[99999].column == 1);
    CHECKF(now_s() - t0 < 10, "%.1f s", now_s() - t0);
    cap_free(&c);

    /* a long line of spaces before each name */
    b.n = 0;
    sb_add(&b, "{\"mcpServers\": {");
    for (i = 0; i < 200; i++) { sb_add(&b, "%s\n%*s\"s%d\": {\"url\": 1}", i ? "," : "", 10000, "", i); }
    sb_add(&b, "}}");
    c.keep = 1;
    CHECK(mcp_config_parse("wide.json", b.p, b.n, &o, on_entry, &err) == MCP_OK && c.n == 200);
    snprintf(want, sizeof want, "wide.json:201:10017: server \"s199\": \"url\" must be a non-empty string");
    CHECK(c.n == 200 && c.e[199].error && !strcmp(c.e[199].error, want));
    cap_free(&c);
    free(b.p);
}

int main(int argc, char **argv)
{
    setvbuf(stdout, NULL, _IOLBF, 0);
    test_args(&argc, argv);
    if (argc > 1) datadir = argv[1];
    set_env();
    test_run();
    return TEST_DONE();
}
#endif
