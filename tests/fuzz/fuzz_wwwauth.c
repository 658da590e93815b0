/* libFuzzer target for the WWW-Authenticate parser (>>http, mcp_http_wwwauth), make fuzz.

   Input: [settings][split][value...]
     settings  low 4 bits: max_item (0: the default, else 1..15 bytes, so the limit is hit);
               bit 4: an LF in the value ends one field value (finish is called there), so
               several fields go through one parser;
     split     how the value is cut into pieces (see plan() in tests/feed.h);
     value     the field value bytes.
   The value is fed whole, then in the pieces the split byte chooses, then (when it is at most
   1024 bytes) one byte at a time; each run renders an item log (each item, each finish, an
   error with its `what`) and the logs must be identical. Every piece is a malloc'd copy of
   exactly its bytes, freed once fed, so ASan reports a read past a piece or a pointer kept
   into it. The contract is checked on every call: AGAIN takes every byte, OK leaves exactly
   one item, items are well-formed (kind, NUL-terminated, names made of token characters,
   within max_item, values without NUL or control bytes but HTAB), two feeds in a row never
   both take nothing, errors are sticky and their `what` is a sentence. A breach or a
   difference aborts (a crash to libFuzzer). */
#define MCP_IMPLEMENTATION
#include "../../mcp.h"
#define FEED_FUZZ
#include "../feed.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "fuzz.h"

int LLVMFuzzerTestOneInput(const unsigned char *data, size_t size);

#define NAME "fuzz_wwwauth"
#define ONE_BYTE_MAX 1024

typedef struct cfg { size_t max_item; int fields; } cfg;

static int is_tchar(int c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
           (c && strchr("!#$%&'*+-.^_`|~", c) != NULL);
}

static int all(const char *s, size_t n, int (*ok)(int))
{
    size_t i;
    for (i = 0; i < n; i++) if (!ok((unsigned char)s[i])) return 0;
    return 1;
}

static int t68c(int c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || (c && strchr("-._~+/=", c)); }
static int qc(int c) { return c == '\t' || (c >= 0x20 && c != 0x7F); }

static void check_item(const cfg *c, const mcp_http_wwwauth_item *it, mcp_buf *log)
{
    size_t max = c->max_item ? c->max_item : MCP_HTTP_WWWAUTH_MAX_ITEM;
    lg_item(log);
    switch (it->kind) {
    case MCP_WWWAUTH_SCHEME:
        REQUIRE(it->name && it->name_len && !it->name[it->name_len] && !it->value && !it->value_len);
        REQUIRE(all(it->name, it->name_len, is_tchar) && it->name_len <= max);
        lg(log, "S "); lg_q(log, it->name, it->name_len);
        break;
    case MCP_WWWAUTH_PARAM:
        REQUIRE(it->name && it->name_len && !it->name[it->name_len] && it->value && !it->value[it->value_len]);
        REQUIRE(all(it->name, it->name_len, is_tchar) && all(it->value, it->value_len, qc));
        REQUIRE(it->name_len + it->value_len <= max);
        lg(log, "P "); lg_q(log, it->name, it->name_len); lg(log, "="); lg_q(log, it->value, it->value_len);
        break;
    case MCP_WWWAUTH_TOKEN68:
        REQUIRE(!it->name && !it->name_len && it->value && it->value_len && !it->value[it->value_len]);
        REQUIRE(all(it->value, it->value_len, t68c) && it->value[0] != '=' && it->value_len <= max);
        lg(log, "T "); lg_q(log, it->value, it->value_len);
        break;
    default:
        REQUIRE(it->kind == MCP_WWWAUTH_SCHEME);     /* an unknown kind */
    }
}

static size_t drain(const cfg *c, mcp_http_wwwauth *p, mcp_buf *log)
{
    mcp_http_wwwauth_item it;
    mcp_status st;
    size_t got = 0;
    while ((st = mcp_http_wwwauth_next(p, &it)) == MCP_OK) {
        REQUIRE(++got == 1);
        check_item(c, &it, log);
    }
    REQUIRE(st == MCP_AGAIN || st < 0);
    REQUIRE(!it.name && !it.value && !it.kind);
    return got;
}

static void failed(mcp_http_wwwauth *p, mcp_status st, mcp_buf *log)
{
    size_t used = 99, n = p->what ? strlen(p->what) : 0;
    mcp_http_wwwauth_item it;
    REQUIRE(st == MCP_ERR_PARSE || st == MCP_ERR_LIMIT);
    REQUIRE(n > 20 && p->what[0] >= 'A' && p->what[0] <= 'Z' && p->what[n - 1] == '.');
    REQUIRE(mcp_http_wwwauth_feed(p, "x", 1, &used) == st && used == 0);
    REQUIRE(mcp_http_wwwauth_next(p, &it) == st);
    REQUIRE(mcp_http_wwwauth_finish(p) == st);
    lg_item(log); lg(log, "ERR %s ", sname(st)); lg_q(log, p->what, n);
}

/* Feeds d[0..len); 0 after an error. */
static int feed(const cfg *c, mcp_http_wwwauth *p, const char *d, size_t len, mcp_buf *log)
{
    size_t off = 0, used, got;
    int first = 1, idle = 0;
    mcp_status st;
    while (off < len || first) {
        first = 0;
        used = (size_t)-1;
        st = mcp_http_wwwauth_feed(p, d + off, len - off, &used);
        REQUIRE(used <= len - off);
        off += used;
        if (st < 0) { failed(p, st, log); return 0; }
        REQUIRE(st == MCP_OK || st == MCP_AGAIN);
        got = drain(c, p, log);
        if (st == MCP_AGAIN) REQUIRE(off == len && got == 0);
        else REQUIRE(got == 1);
        idle = used ? 0 : idle + 1;
        REQUIRE(idle < 2);
    }
    return 1;
}

static int finish(const cfg *c, mcp_http_wwwauth *p, mcp_buf *log)
{
    mcp_status st = mcp_http_wwwauth_finish(p);
    if (st < 0) { failed(p, st, log); return 0; }
    REQUIRE(st == MCP_OK);
    drain(c, p, log);
    lg_item(log); lg(log, "FIN");
    return 1;
}

static void run(const cfg *c, const unsigned char *in, const piece *pc, size_t np, mcp_buf *log)
{
    mcp_http_wwwauth p;
    size_t i;
    memset(&p, 0, sizeof p);
    p.max_item = c->max_item;
    for (i = 0; i < np; i++) {
        size_t off = 0, len = pc[i].len;
        char *d = (char *)malloc(len ? len : 1);
        const char *lf;
        int ok = 1;
        REQUIRE(d != NULL);
        if (len) memcpy(d, in + pc[i].off, len);
        do {
            lf = c->fields ? (const char *)memchr(d + off, '\n', len - off) : NULL;
            ok = feed(c, &p, d + off, lf ? (size_t)(lf - d) - off : len - off, log);
            if (ok && lf) ok = finish(c, &p, log);
            off = lf ? (size_t)(lf - d) + 1 : len;
        } while (ok && lf);
        free(d);                                   /* the parser must not keep pointers into it */
        if (!ok) goto out;
    }
    finish(c, &p, log);
out:
    mcp_http_wwwauth_free(&p);
}

static void differ(const char *mode, const char *got, const char *want)
{
    fprintf(stderr, NAME ": the log differs when fed %s\n   got: %.3000s\n  want: %.3000s\n", mode, got, want);
    abort();
}

int LLVMFuzzerTestOneInput(const unsigned char *data, size_t size)
{
    const unsigned char *in;
    cfg c;
    size_t n, np, i;
    piece *pc;
    mcp_buf want = {0}, got = {0};
    if (size < 2) return 0;
    c.max_item = data[0] & 15; c.fields = (data[0] >> 4) & 1;
    in = data + 2; n = size - 2;
    pc = (piece *)malloc((2 * n + 2) * sizeof *pc);
    REQUIRE(pc != NULL);
    pc[0].off = 0; pc[0].len = n;
    run(&c, in, pc, 1, &want);
    lg_str(&want);
#ifdef FUZZ_PRINT_LOG
    fprintf(stderr, "%s\n", want.data);
#endif
    np = plan(pc, in, n, data[1]);
    run(&c, in, pc, np, &got);
    if (strcmp(lg_str(&got), want.data)) differ("in the planned pieces", got.data, want.data);
    if (n <= ONE_BYTE_MAX && n > 1) {
        for (i = 0; i < n; i++) { pc[i].off = i; pc[i].len = 1; }
        got.len = 0;
        run(&c, in, pc, n, &got);
        if (strcmp(lg_str(&got), want.data)) differ("one byte at a time", got.data, want.data);
    }
    mcp_buf_free(&want);
    mcp_buf_free(&got);
    free(pc);
    return 0;
}
