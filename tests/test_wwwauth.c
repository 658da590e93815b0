/* Tests of the WWW-Authenticate parser, the Bearer challenge and the form/query codec (>>http,
   for the authorization layer).

   1. The parser: golden item logs, one item per entry
          S 'Bearer' | P 'scope'='files:read' | T 'abc==' | FIN ok     (or ERR PARSE '<what>')
      each case fed whole, split at every byte into two pieces, one byte at a time and in
      random pieces (tests/feed.h: every piece ends right before a PROT_NONE page and is
      scribbled over once taken). With `fields` set, an LF in the input ends one field value
      (the driver calls finish there), so several WWW-Authenticate fields are one case. The
      driver checks the feed/next/finish contract on every call (AGAIN takes every byte, OK
      leaves exactly one well-formed item, errors are sticky and their `what` is a sentence)
      and writes a breach into the log ("!! ..."), so the comparison fails.
   2. mcp_http_bearer_challenge on parsed responses and on field values.
   3. The form codec: exact bytes, round trips of every byte, every refusal, inputs placed
      against a guard page.

   Usage: test_wwwauth [DATA_DIR]   (no data files needed) */
#define _DEFAULT_SOURCE
#define _POSIX_C_SOURCE 200809L
#define _DARWIN_C_SOURCE
#include "../mcp.h"
#include "test.h"
#include "feed.h"
#include <stdlib.h>
#include <string.h>

/* ---- the parser driver ---------------------------------------------------------------------- */

typedef struct wa_opt { size_t max_item, max_items; int fields; } wa_opt;

static const wa_opt dflt = { 0, 0, 0 };
static const wa_opt multi = { 0, 0, 1 };

/* A full sentence: a capital letter (or an mcp_ function name) first, a period last. */
static int sentence(const char *s)
{
    size_t n = s ? strlen(s) : 0;
    return n > 20 && ((s[0] >= 'A' && s[0] <= 'Z') || !strncmp(s, "mcp_", 4)) && s[n - 1] == '.';
}

static void wa_item(const mcp_http_wwwauth_item *it, mcp_buf *log)
{
    lg_item(log);
    switch (it->kind) {
    case MCP_WWWAUTH_SCHEME:
        if (!it->name || !it->name_len || it->name[it->name_len] || it->value || it->value_len)
            viol(log, "a malformed scheme item");
        else { lg(log, "S "); lg_q(log, it->name, it->name_len); }
        break;
    case MCP_WWWAUTH_PARAM:
        if (!it->name || !it->name_len || it->name[it->name_len] || !it->value || it->value[it->value_len] ||
            memchr(it->value, 0, it->value_len))
            viol(log, "a malformed parameter item");
        else { lg(log, "P "); lg_q(log, it->name, it->name_len); lg(log, "="); lg_q(log, it->value, it->value_len); }
        break;
    case MCP_WWWAUTH_TOKEN68:
        if (it->name || it->name_len || !it->value || !it->value_len || it->value[it->value_len])
            viol(log, "a malformed token68 item");
        else { lg(log, "T "); lg_q(log, it->value, it->value_len); }
        break;
    default:
        viol(log, "an item of kind %d", (int)it->kind);
    }
}

static size_t wa_drain(mcp_http_wwwauth *p, mcp_buf *log)
{
    mcp_http_wwwauth_item it;
    mcp_status st;
    size_t got = 0;
    while ((st = mcp_http_wwwauth_next(p, &it)) == MCP_OK) {
        if (++got > 1) { viol(log, "next gave a second item for one feed"); break; }
        wa_item(&it, log);
    }
    if (st != MCP_AGAIN && st != MCP_OK) viol(log, "next returned %s after the items", sname(st));
    if (st == MCP_AGAIN && (it.name || it.value || it.kind)) viol(log, "next left an item filled in on AGAIN");
    return got;
}

/* Logs the error and checks that it is sticky and explained. */
static void wa_err(mcp_http_wwwauth *p, mcp_status st, mcp_buf *log)
{
    size_t used = 99;
    mcp_http_wwwauth_item it;
    lg_item(log); lg(log, "ERR %s ", sname(st)); lg_q(log, p->what ? p->what : "", p->what ? strlen(p->what) : 0);
    if (!sentence(p->what)) viol(log, "the what is not a sentence");
    if (mcp_http_wwwauth_feed(p, "Basic", 5, &used) != st || used != 0) viol(log, "feed after the error");
    if (mcp_http_wwwauth_next(p, &it) != st) viol(log, "next after the error");
    if (mcp_http_wwwauth_finish(p) != st) viol(log, "finish after the error");
}

/* The end of one field value: finish, then its last item. Returns 0 after an error. */
static int wa_finish(mcp_http_wwwauth *p, mcp_buf *log)
{
    mcp_status st = mcp_http_wwwauth_finish(p);
    if (st < 0) { wa_err(p, st, log); return 0; }
    if (st != MCP_OK) { viol(log, "finish returned %s", sname(st)); return 0; }
    wa_drain(p, log);
    lg_item(log); lg(log, "FIN ok");
    return 1;
}

/* Feeds d[0..len); returns 0 after an error. */
static int wa_feed(mcp_http_wwwauth *p, const char *d, size_t len, mcp_buf *log)
{
    size_t off = 0, got;
    int first = 1, idle = 0;
    while (off < len || first) {
        size_t used = (size_t)-1;
        mcp_status st;
        first = 0;
        st = mcp_http_wwwauth_feed(p, d + off, len - off, &used);
        if (used > len - off) { viol(log, "feed used %lu of %lu bytes", (unsigned long)used, (unsigned long)(len - off)); return 0; }
        off += used;
        if (st < 0) { wa_err(p, st, log); return 0; }
        if (st != MCP_OK && st != MCP_AGAIN) { viol(log, "feed returned %d", (int)st); return 0; }
        got = wa_drain(p, log);
        if (st == MCP_AGAIN && off != len) viol(log, "AGAIN but only %lu of %lu bytes taken", (unsigned long)off, (unsigned long)len);
        if (st == MCP_AGAIN && got) viol(log, "an item was waiting after AGAIN");
        if (st == MCP_OK && !got) { viol(log, "OK without an item"); return 0; }
        idle = used ? 0 : idle + 1;              /* an item may end before the byte that ends it */
        if (idle > 1) { viol(log, "two feeds in a row took no byte"); return 0; }
    }
    return 1;
}

static void wa_run(const void *optp, const char *in, size_t n, const piece *pc, size_t np, int low,
                   mcp_buf *log)
{
    const wa_opt *opt = (const wa_opt *)optp;
    mcp_http_wwwauth p;
    size_t i;
    (void)n;
    memset(&p, 0, sizeof p);
    p.max_item = opt->max_item; p.max_items = opt->max_items;
    for (i = 0; i < np; i++) {
        char *d = guard_put(in + pc[i].off, pc[i].len, low);
        size_t off = 0, len = pc[i].len;
        const char *lf;
        int ok = 1;
        do {                                     /* with fields: an LF ends a field value */
            lf = opt->fields ? (const char *)memchr(d + off, '\n', len - off) : NULL;
            ok = wa_feed(&p, d + off, lf ? (size_t)(lf - d) - off : len - off, log);
            if (ok && lf) ok = wa_finish(&p, log);
            off = lf ? (size_t)(lf - d) + 1 : len;
        } while (ok && lf);
        memset(d, 0xA5, len);
        if (!ok) goto out;
    }
    wa_finish(&p, log);
out:
    mcp_http_wwwauth_free(&p);
    mcp_http_wwwauth_free(&p);                   /* twice is harmless */
}

#define WA(name, in, golden) run_modes(name, wa_run, &dflt, in, sizeof in - 1, golden)

#define E_UNTERM  "ERR PARSE 'A quoted string in the WWW-Authenticate header has no closing '\"'.'"
#define E_QCTL    "ERR PARSE 'A quoted string in the WWW-Authenticate header has a control character.'"
#define E_CTL     "ERR PARSE 'The WWW-Authenticate header has a control character outside a quoted string.'"
#define E_CHAR    "ERR PARSE 'The WWW-Authenticate header has a character that is not allowed outside a quoted string in an auth-scheme, a parameter name or a token68.'"
#define E_NOVAL   "ERR PARSE 'A parameter in the WWW-Authenticate header has no value after its '='.'"
#define E_BEFORE  "ERR PARSE 'The WWW-Authenticate header has a parameter before any auth-scheme.'"
#define E_BOTH    "ERR PARSE 'A challenge in the WWW-Authenticate header has both a token68 and parameters.'"
#define E_COMMA   "ERR PARSE 'The WWW-Authenticate header has two items of a challenge without a comma between them.'"
#define E_UNQ     "ERR PARSE 'An unquoted parameter value in the WWW-Authenticate header has a character that is not allowed in a token; such a value must be quoted.'"
#define E_T68     "ERR PARSE 'A token68 in the WWW-Authenticate header has a character after its trailing '='.'"
#define E_WORDS   "ERR PARSE 'The WWW-Authenticate header has two words side by side in a challenge; parameters must be name=value, separated by commas.'"
#define E_LIMIT   "ERR LIMIT 'An item of the WWW-Authenticate header (an auth-scheme, a parameter or a token68) is longer than the limit.'"
#define E_ITEMS   "ERR LIMIT 'The WWW-Authenticate header has more items (auth-schemes, parameters and token68s) than the limit.'"

#define PRM "https://mcp.example.com/.well-known/oauth-protected-resource"

TEST_CASE(rfc_examples)
{
    /* RFC 9110 section 11.6.1 and 11.6.1's Basic; RFC 6750 section 3 */
    WA("rfc9110_two", "Newauth realm=\"apps\", type=1, title=\"Login to \\\"apps\\\"\", Basic realm=\"simple\"",
       "S 'Newauth' | P 'realm'='apps' | P 'type'='1' | P 'title'='Login to \"apps\"' | S 'Basic' | P 'realm'='simple' | FIN ok");
    WA("rfc9110_two_reversed", "Basic realm=\"simple\", Newauth realm=\"apps\", type=1, title=\"Login to \\\"apps\\\"\"",
       "S 'Basic' | P 'realm'='simple' | S 'Newauth' | P 'realm'='apps' | P 'type'='1' | P 'title'='Login to \"apps\"' | FIN ok");
    WA("rfc6750_realm", "Bearer realm=\"example\"", "S 'Bearer' | P 'realm'='example' | FIN ok");
    WA("rfc6750_expired", "Bearer realm=\"example\",   error=\"invalid_token\",\t"
       "error_description=\"The access token expired\"",
       "S 'Bearer' | P 'realm'='example' | P 'error'='invalid_token' | P 'error_description'='The access token expired' | FIN ok");
}

TEST_CASE(mcp_examples)
{
    WA("mcp_401", "Bearer resource_metadata=\"" PRM "\", scope=\"files:read\"",
       "S 'Bearer' | P 'resource_metadata'='" PRM "' | P 'scope'='files:read' | FIN ok");
    WA("mcp_403", "Bearer error=\"insufficient_scope\", scope=\"files:read files:write user:profile\", "
       "resource_metadata=\"" PRM "\", error_description=\"Additional file write permission required\"",
       "S 'Bearer' | P 'error'='insufficient_scope' | P 'scope'='files:read files:write user:profile' | "
       "P 'resource_metadata'='" PRM "' | P 'error_description'='Additional file write permission required' | FIN ok");
    WA("basic_then_bearer", "Basic realm=\"x\", Bearer resource_metadata=\"" PRM "\"",
       "S 'Basic' | P 'realm'='x' | S 'Bearer' | P 'resource_metadata'='" PRM "' | FIN ok");
}

TEST_CASE(fields)
{
    run_modes("two_fields", wa_run, &multi, "Basic realm=\"x\"\nBearer scope=\"a b\"", 34,
              "S 'Basic' | P 'realm'='x' | FIN ok | S 'Bearer' | P 'scope'='a b' | FIN ok");
    run_modes("three_fields", wa_run, &multi, "Negotiate\nNTLM abc=\nBearer", 26,
              "S 'Negotiate' | FIN ok | S 'NTLM' | T 'abc=' | FIN ok | S 'Bearer' | FIN ok");
    /* a field does not continue the last one's challenge, nor its quoted string */
    run_modes("param_in_new_field", wa_run, &multi, "Basic\nrealm=\"x\"", 15, "S 'Basic' | FIN ok | " E_BEFORE);
    run_modes("quote_across_fields", wa_run, &multi, "Basic realm=\"x\nBearer", 20, "S 'Basic' | " E_UNTERM);
    run_modes("empty_fields", wa_run, &multi, "\n\nBasic\n", 8, "FIN ok | FIN ok | S 'Basic' | FIN ok | FIN ok");
}

TEST_CASE(token68)
{
    WA("negotiate", "Negotiate abc==", "S 'Negotiate' | T 'abc==' | FIN ok");
    WA("t68_all_chars", "Negotiate aZ09-._~+/=", "S 'Negotiate' | T 'aZ09-._~+/=' | FIN ok");
    WA("t68_no_pad", "Negotiate abc", "S 'Negotiate' | T 'abc' | FIN ok");
    WA("t68_slash_first", "X /abc", "S 'X' | T '/abc' | FIN ok");
    WA("t68_then_challenge", "Negotiate abc=, Basic realm=\"x\"",
       "S 'Negotiate' | T 'abc=' | S 'Basic' | P 'realm'='x' | FIN ok");
    WA("t68_space_before_comma", "Negotiate abc= , Basic", "S 'Negotiate' | T 'abc=' | S 'Basic' | FIN ok");
    WA("t68_many_pad", "Negotiate a====  ,,", "S 'Negotiate' | T 'a====' | FIN ok");
    WA("first_param_not_t68", "Basic a=b", "S 'Basic' | P 'a'='b' | FIN ok");
    WA("param_not_t68_bws", "Basic a =b", "S 'Basic' | P 'a'='b' | FIN ok");
    WA("t68_then_param", "Negotiate abc==, realm=x", "S 'Negotiate' | T 'abc==' | " E_BOTH);
    WA("t68_then_quoted", "Negotiate abc==, realm=\"x\"", "S 'Negotiate' | T 'abc==' | " E_BOTH);
    WA("t68_char_after_pad", "Basic abc==x", "S 'Basic' | " E_T68);
    WA("t68_pad_then_value", "Basic realm==x", "S 'Basic' | " E_T68);
    WA("t68_then_word", "Basic abc== def", "S 'Basic' | T 'abc==' | " E_COMMA);
    WA("t68_bad_char", "Basic a/b!", "S 'Basic' | ERR PARSE 'The WWW-Authenticate header has a word after an auth-scheme that is neither a token68 nor a name=value parameter.'");
    WA("name_with_slash", "Basic a/b=1", "S 'Basic' | ERR PARSE 'A parameter name in the WWW-Authenticate header has a '/' in it.'");
}

TEST_CASE(quoting)
{
    WA("qpair", "X a=\"\\\\\\\"\\a\"", "S 'X' | P 'a'='\\\\\"a' | FIN ok");
    WA("qpair_sp_tab", "X a=\"\\ \\\t\"", "S 'X' | P 'a'=' \\t' | FIN ok");
    WA("qpair_obs_text", "X a=\"\\\xe9\"", "S 'X' | P 'a'='\\xe9' | FIN ok");
    WA("obs_text", "X t=\"caf\xc3\xa9\"", "S 'X' | P 't'='caf\\xc3\\xa9' | FIN ok");
    WA("tab_in_quoted", "X a=\"1\t2\"", "S 'X' | P 'a'='1\\t2' | FIN ok");
    WA("empty_quoted", "X a=\"\", b=\"\"", "S 'X' | P 'a'='' | P 'b'='' | FIN ok");
    WA("comma_in_quoted", "X a=\"1, b=2\", c=3", "S 'X' | P 'a'='1, b=2' | P 'c'='3' | FIN ok");
    WA("unterminated", "Basic realm=\"x", "S 'Basic' | " E_UNTERM);
    WA("unterminated_qpair", "Basic realm=\"x\\", "S 'Basic' | " E_UNTERM);
    WA("ctl_in_quoted", "Basic realm=\"a\x01\"", "S 'Basic' | " E_QCTL);
    WA("del_in_quoted", "Basic realm=\"a\x7f\"", "S 'Basic' | " E_QCTL);
    WA("lf_in_quoted", "Basic realm=\"a\nb\"", "S 'Basic' | " E_QCTL);
    WA("ctl_after_backslash", "Basic realm=\"a\\\x01\"", "S 'Basic' | ERR PARSE 'A backslash in a quoted string of the WWW-Authenticate header is followed by a control character.'");
}

TEST_CASE(case_and_space)
{
    WA("case_as_written", "bEaReR Scope=\"x\", ERROR=y", "S 'bEaReR' | P 'Scope'='x' | P 'ERROR'='y' | FIN ok");
    WA("scheme_alone", "Basic", "S 'Basic' | FIN ok");
    WA("schemes_alone", "Basic ,Bearer,  Digest  ", "S 'Basic' | S 'Bearer' | S 'Digest' | FIN ok");
    WA("empty", "", "FIN ok");
    WA("only_commas", " , ,\t,, ", "FIN ok");
    WA("empty_elements", ", ,Basic  realm = \"x\" ,, , type=1 ,", "S 'Basic' | P 'realm'='x' | P 'type'='1' | FIN ok");
    WA("tabs", "\tBasic\trealm\t=\t\"x\"\t,\ttype=1\t", "S 'Basic' | P 'realm'='x' | P 'type'='1' | FIN ok");
    WA("param_after_comma", "Basic, realm=\"x\"", "S 'Basic' | P 'realm'='x' | FIN ok");
    WA("tchar_names", "A!#$%&'*+-.^_`|~z b!#$%&'*+-.^_`|~=c!#$%&'*+-.^_`|~",
       "S 'A!#$%&'*+-.^_`|~z' | P 'b!#$%&'*+-.^_`|~'='c!#$%&'*+-.^_`|~' | FIN ok");
}

TEST_CASE(malformed)
{
    WA("param_first", "realm=\"x\"", E_BEFORE);
    WA("param_first_token", "realm=x, Basic", E_BEFORE);
    WA("no_value_later", "Basic a=1, realm=", "S 'Basic' | P 'a'='1' | " E_NOVAL);
    WA("no_value_comma", "Basic a=1, realm=, b=2", "S 'Basic' | P 'a'='1' | " E_NOVAL);
    WA("no_value_bws", "Basic realm =", "S 'Basic' | " E_NOVAL);
    WA("value_begins_eq", "Basic a=1, b==2", "S 'Basic' | P 'a'='1' | ERR PARSE 'A parameter value in the WWW-Authenticate header begins with '='; such a value must be quoted.'");
    WA("missing_comma", "Basic realm=\"x\" type=1", "S 'Basic' | P 'realm'='x' | " E_COMMA);
    WA("missing_comma_tight", "Basic realm=\"x\"type=1", "S 'Basic' | P 'realm'='x' | " E_COMMA);
    WA("unquoted_slash", "Basic realm=a/b", "S 'Basic' | " E_UNQ);
    WA("unquoted_colon_url", "Bearer resource_metadata=https://x/y", "S 'Bearer' | " E_UNQ);
    WA("unquoted_then_quote", "Basic realm=a\"b\"", "S 'Basic' | " E_UNQ);
    WA("unquoted_eq", "Basic a=b=c", "S 'Basic' | " E_UNQ);
    WA("two_words", "Basic abc def", "S 'Basic' | " E_WORDS);
    WA("quoted_scheme", "\"Basic\"", "ERR PARSE 'The WWW-Authenticate header has a quoted string where an auth-scheme, a parameter name or a token68 must be.'");
    WA("quote_after_scheme", "Basic \"x\"", "ERR PARSE 'The WWW-Authenticate header has a quoted string where an auth-scheme, a parameter name or a token68 must be.'");
    WA("quote_after_word", "Basic realm\"x\"", "S 'Basic' | ERR PARSE 'The WWW-Authenticate header has a quoted string where an auth-scheme, a parameter name or a token68 must be.'");
    WA("eq_first", "=x", "ERR PARSE 'The WWW-Authenticate header has an '=' with no parameter name before it.'");
    WA("eq_after_scheme", "Basic =x", E_BEFORE);
    WA("eq_after_comma", "Basic a=1, =x", "S 'Basic' | P 'a'='1' | ERR PARSE 'The WWW-Authenticate header has an '=' with no parameter name before it.'");
    WA("at_in_scheme", "B@sic", E_CHAR);
    WA("slash_in_scheme", "Ba/sic x", E_CHAR);
    WA("ctl_in_scheme", "Basic\x01", E_CTL);
    WA("ctl_after_item", "Basic realm=\"x\"\r\n", "S 'Basic' | P 'realm'='x' | " E_CTL);
    WA("ctl_after_t68", "Basic abc=\x7f", "S 'Basic' | " E_CTL);
    WA("ctl_in_token_value", "Basic a=b\x02", "S 'Basic' | " E_CTL);
    WA("lf_between", "Basic\nrealm=x", E_CTL);
    WA("non_ascii_scheme", "B\xc3\xa4sic", E_CHAR);
    run_modes("nul_in_name", wa_run, &dflt, "Basic r\0=1", 10, "S 'Basic' | " E_CTL);
    run_modes("nul_in_quoted", wa_run, &dflt, "Basic r=\"\0\"", 11, "S 'Basic' | " E_QCTL);
}

TEST_CASE(limits)
{
    wa_opt o = { 8, 0, 0 };
    run_modes("item_at_limit", wa_run, &o, "Basic abcdefgh, Abcdefgh", 24, "S 'Basic' | T 'abcdefgh' | S 'Abcdefgh' | FIN ok");
    run_modes("param_at_limit", wa_run, &o, "Basic ab=\"123456\"", 17, "S 'Basic' | P 'ab'='123456' | FIN ok");
    run_modes("param_over", wa_run, &o, "Basic ab=\"1234567\"", 18, "S 'Basic' | " E_LIMIT);
    run_modes("token_value_over", wa_run, &o, "Basic ab=1234567", 16, "S 'Basic' | " E_LIMIT);
    run_modes("t68_over", wa_run, &o, "Basic abcdefgh=", 15, "S 'Basic' | " E_LIMIT);
    run_modes("scheme_over", wa_run, &o, "Abcdefghi", 9, E_LIMIT);
    o.max_item = 0; o.max_items = 3;
    run_modes("items_at_limit", wa_run, &o, "Basic a=1, b=2", 14, "S 'Basic' | P 'a'='1' | P 'b'='2' | FIN ok");
    run_modes("items_over", wa_run, &o, "Basic a=1, b=2, c=3", 19, "S 'Basic' | P 'a'='1' | P 'b'='2' | " E_ITEMS);
    o.fields = 1;
    run_modes("items_over_fields", wa_run, &o, "Basic a=1\nBasic, c=3", 20, "S 'Basic' | P 'a'='1' | FIN ok | S 'Basic' | " E_ITEMS);
}

/* The default item limit, on a value of exactly MCP_HTTP_WWWAUTH_MAX_ITEM bytes and one more. */
TEST_CASE(default_limit)
{
    size_t m = MCP_HTTP_WWWAUTH_MAX_ITEM, k;
    char *in = (char *)malloc(m + 16), *golden = (char *)malloc(m + 64);
    for (k = 0; k <= 1 && in && golden; k++) {
        size_t vlen = m - 1 + k;                 /* name "a" + value */
        memcpy(in, "X a=\"", 5); memset(in + 5, 'v', vlen); in[5 + vlen] = '"';
        if (!k) {
            memcpy(golden, "S 'X' | P 'a'='", 15); memset(golden + 15, 'v', vlen);
            strcpy(golden + 15 + vlen, "' | FIN ok");
        } else strcpy(golden, "S 'X' | " E_LIMIT);
        run_modes(k ? "default_over" : "default_at", wa_run, &dflt, in, vlen + 6, golden);
    }
    CHECK(in && golden);
    free(in); free(golden);
}

TEST_CASE(parser_api)
{
    mcp_http_wwwauth p;
    mcp_http_wwwauth_item it;
    size_t used = 0;
    memset(&p, 0, sizeof p);
    /* finish while an item waits is the caller's mistake, and says so */
    CHECK(mcp_http_wwwauth_feed(&p, "Basic realm=\"x\"", 15, &used) == MCP_OK);
    CHECK(mcp_http_wwwauth_finish(&p) == MCP_ERR_INVALID);
    CHECK(sentence(p.what));
    /* reset clears the error and the item count, keeps the limits */
    p.max_items = 2;
    mcp_http_wwwauth_reset(&p);
    CHECK(p.what == NULL && p.max_items == 2);
    CHECK(mcp_http_wwwauth_feed(&p, "A b=1", 5, &used) == MCP_OK && used == 2);
    CHECK(mcp_http_wwwauth_next(&p, &it) == MCP_OK && it.kind == MCP_WWWAUTH_SCHEME && it.name_len == 1);
    CHECK(mcp_http_wwwauth_feed(&p, "b=1", 3, &used) == MCP_AGAIN && used == 3);
    CHECK(mcp_http_wwwauth_finish(&p) == MCP_OK);
    CHECK(mcp_http_wwwauth_next(&p, &it) == MCP_OK && it.kind == MCP_WWWAUTH_PARAM && !strcmp(it.value, "1"));
    CHECK(mcp_http_wwwauth_next(&p, &it) == MCP_AGAIN && it.name == NULL && it.value == NULL);
    CHECK(mcp_http_wwwauth_feed(&p, "C", 1, &used) == MCP_AGAIN);
    CHECK(mcp_http_wwwauth_finish(&p) == MCP_ERR_LIMIT);
    mcp_http_wwwauth_reset(&p);
    CHECK(mcp_http_wwwauth_feed(&p, "C", 1, &used) == MCP_AGAIN && mcp_http_wwwauth_finish(&p) == MCP_OK);
    CHECK(mcp_http_wwwauth_next(&p, &it) == MCP_OK && !strcmp(it.name, "C"));
    mcp_http_wwwauth_free(&p);
    mcp_http_wwwauth_free(NULL);
}

/* ---- the Bearer challenge ------------------------------------------------------------------- */

/* Parses a response head (fed whole) into r; returns 1 when its HEAD event came. */
static int head(mcp_http_resp *r, const char *text)
{
    mcp_http_event ev;
    size_t used = 0;
    memset(r, 0, sizeof *r);
    return mcp_http_resp_feed(r, text, strlen(text), &used) == MCP_OK &&
           mcp_http_resp_next(r, &ev) == MCP_OK && ev.type == MCP_HTTP_HEAD;
}

static int streq(const char *a, const char *b) { return a && b ? !strcmp(a, b) : a == b; }

TEST_CASE(bearer_mcp)
{
    mcp_http_resp r;
    mcp_http_bearer b;
    mcp_error err;
    CHECK(head(&r, "HTTP/1.1 401 Unauthorized\r\nWWW-Authenticate: Bearer resource_metadata=\"" PRM
               "\",\r\n scope=\"files:read\"\r\nContent-Length: 0\r\n\r\n") == 0);  /* folded: refused */
    mcp_http_resp_free(&r);
    CHECK(head(&r, "HTTP/1.1 401 Unauthorized\r\nWWW-Authenticate: Bearer resource_metadata=\"" PRM
               "\", scope=\"files:read\"\r\nContent-Length: 0\r\n\r\n"));
    CHECK(mcp_http_bearer_challenge(&b, &r, &err) == MCP_OK && err.status == MCP_OK);
    CHECK(b.found == 1);
    CHECK(streq(b.resource_metadata, PRM) && streq(b.scope, "files:read"));
    CHECK(b.error == NULL && b.error_description == NULL);
    mcp_http_bearer_free(&b);
    CHECK(b.found == 0 && b.resource_metadata == NULL && b.scope == NULL && b._mem == NULL);
    mcp_http_bearer_free(&b);
    mcp_http_resp_free(&r);

    CHECK(head(&r, "HTTP/1.1 403 Forbidden\r\nwww-authenticate: Bearer error=\"insufficient_scope\", "
               "scope=\"files:read files:write user:profile\", resource_metadata=\"" PRM "\", "
               "error_description=\"Additional file write permission required\"\r\nContent-Length: 0\r\n\r\n"));
    CHECK(mcp_http_bearer_challenge(&b, &r, &err) == MCP_OK && b.found);
    CHECK(streq(b.error, "insufficient_scope") && streq(b.scope, "files:read files:write user:profile"));
    CHECK(streq(b.resource_metadata, PRM) && streq(b.error_description, "Additional file write permission required"));
    mcp_http_bearer_free(&b);
    mcp_http_resp_free(&r);
}

TEST_CASE(bearer_fields)
{
    mcp_http_resp r;
    mcp_http_bearer b;
    mcp_error err;
    /* several fields; the Bearer challenge is the second of the second field */
    CHECK(head(&r, "HTTP/1.1 401 Unauthorized\r\nWWW-Authenticate: Basic realm=\"x\"\r\nX-Other: y\r\n"
               "WWW-Authenticate: Negotiate abc==, bearer scope=\"a\", Basic realm=\"z\"\r\nContent-Length: 0\r\n\r\n"));
    CHECK(mcp_http_bearer_challenge(&b, &r, &err) == MCP_OK && b.found && streq(b.scope, "a"));
    CHECK(b.resource_metadata == NULL && b.error == NULL);
    mcp_http_bearer_free(&b);
    mcp_http_resp_free(&r);
    /* no WWW-Authenticate at all, or no Bearer in it */
    CHECK(head(&r, "HTTP/1.1 401 Unauthorized\r\nContent-Length: 0\r\n\r\n"));
    CHECK(mcp_http_bearer_challenge(&b, &r, &err) == MCP_OK && !b.found && b._mem == NULL);
    mcp_http_resp_free(&r);
    CHECK(head(&r, "HTTP/1.1 401 Unauthorized\r\nWWW-Authenticate: Basic realm=\"x\"\r\nContent-Length: 0\r\n\r\n"));
    CHECK(mcp_http_bearer_challenge(&b, &r, &err) == MCP_OK && !b.found && b.scope == NULL);
    mcp_http_resp_free(&r);
    /* a malformed field before the Bearer one */
    CHECK(head(&r, "HTTP/1.1 401 Unauthorized\r\nWWW-Authenticate: Basic realm=x/y\r\n"
               "WWW-Authenticate: Bearer scope=\"a\"\r\nContent-Length: 0\r\n\r\n"));
    CHECK(mcp_http_bearer_challenge(&b, &r, &err) == MCP_ERR_PARSE && !b.found && b._mem == NULL);
    CHECK(err.status == MCP_ERR_PARSE && strstr(err.message, "field 1 ") && strstr(err.message, "must be quoted."));
    mcp_http_bearer_free(&b);
    mcp_http_resp_free(&r);
    CHECK(mcp_http_bearer_challenge(&b, NULL, &err) == MCP_ERR_INVALID && sentence(err.message));
}

TEST_CASE(bearer_values)
{
    mcp_http_bearer b;
    mcp_error err;
    const char *v1[] = { "Bearer" };
    const char *v2[] = { "Bearer scope=\"a\", Bearer scope=\"b\"" };           /* the first wins */
    const char *v3[] = { "Bearer scope=\"a\", Basic realm=\"x" };            /* read up to its end */
    const char *v4[] = { "Bearer foo=1, foo=2, error=e" };                    /* not RFC 6750's */
    const char *v5[] = { "Basic", NULL };
    CHECK(mcp_http_bearer_from_values(&b, v1, 1, &err) == MCP_OK && b.found && !b.scope && !b.error);
    mcp_http_bearer_free(&b);
    CHECK(mcp_http_bearer_from_values(&b, v2, 1, &err) == MCP_OK && streq(b.scope, "a"));
    mcp_http_bearer_free(&b);
    CHECK(mcp_http_bearer_from_values(&b, v3, 1, &err) == MCP_OK && streq(b.scope, "a"));
    mcp_http_bearer_free(&b);
    CHECK(mcp_http_bearer_from_values(&b, v4, 1, &err) == MCP_OK && streq(b.error, "e"));
    mcp_http_bearer_free(&b);
    CHECK(mcp_http_bearer_from_values(&b, v5, 2, &err) == MCP_ERR_INVALID && sentence(err.message));
    CHECK(mcp_http_bearer_from_values(&b, v5, 0, &err) == MCP_OK && !b.found);
}

TEST_CASE(bearer_repeated)
{
    static const char *const rep[] = {
        "Bearer scope=\"a\", scope=\"b\"", "Bearer Scope=a, SCOPE=\"a\"", "Bearer realm=x, error=y, realm=x",
        "Bearer error_uri=\"u\", error_uri=\"u\"", "Bearer resource_metadata=\"" PRM "\", resource_metadata=\"" PRM "\"",
        "Bearer error=a,, error=a", "Basic realm=\"x\", Bearer error=a, error_description=\"d\", error_description=\"d\""
    };
    size_t i;
    mcp_http_bearer b;
    mcp_error err;
    for (i = 0; i < sizeof rep / sizeof rep[0]; i++) {
        CHECKF(mcp_http_bearer_from_values(&b, &rep[i], 1, &err) == MCP_ERR_PARSE, "%s", rep[i]);
        CHECKF(!b.found && !b._mem && !b.scope && strstr(err.message, "more than once") && sentence(err.message), "%s", rep[i]);
    }
}

TEST_CASE(bearer_errors)
{
    mcp_http_bearer b;
    mcp_error err;
    const char *v1[] = { "Bearer error_description=\"s3cr3t-token" };
    const char *v2[] = { "Basic", "Bearer error=\"x\" s3cr3t" };
    char *big = (char *)malloc(MCP_HTTP_WWWAUTH_MAX_ITEM + 32);
    const char *v3[1];
    CHECK(mcp_http_bearer_from_values(&b, v1, 1, &err) == MCP_ERR_PARSE);
    CHECK(strstr(err.message, "no closing") && !strstr(err.message, "s3cr3t") && sentence(err.message));
    CHECK(mcp_http_bearer_from_values(&b, v2, 2, &err) == MCP_ERR_PARSE);
    CHECK(strstr(err.message, "field 2 ") && !strstr(err.message, "s3cr3t"));
    if (big) {
        memcpy(big, "Bearer scope=\"", 14);
        memset(big + 14, 's', MCP_HTTP_WWWAUTH_MAX_ITEM);
        strcpy(big + 14 + MCP_HTTP_WWWAUTH_MAX_ITEM, "\"");
        v3[0] = big;
        CHECK(mcp_http_bearer_from_values(&b, v3, 1, &err) == MCP_ERR_LIMIT && !b._mem && sentence(err.message));
        big[14 + MCP_HTTP_WWWAUTH_MAX_ITEM - 5] = '"'; big[15 + MCP_HTTP_WWWAUTH_MAX_ITEM - 5] = 0;  /* scope + value = limit */
        CHECK(mcp_http_bearer_from_values(&b, v3, 1, &err) == MCP_OK && b.scope && strlen(b.scope) == MCP_HTTP_WWWAUTH_MAX_ITEM - 5);
        mcp_http_bearer_free(&b);
    }
    CHECK(big != NULL);
    free(big);
}

/* ---- the form codec ------------------------------------------------------------------------- */

/* mcp_http_form_get on a copy of s placed against a guard page (after it when low, before it
   otherwise), so a read outside s[0..len) faults. */
static int fget_at(const char *s, size_t len, const char *name, mcp_buf *out, mcp_error *err, int low)
{
    return mcp_http_form_get(guard_put(s, len, low), len, name, out, err);
}

/* Both placements must agree; returns what they said. */
static int fget(const char *s, const char *name, mcp_buf *out, mcp_error *err)
{
    size_t len = strlen(s);
    int a = fget_at(s, len, name, out, err, 1);
    int b = fget_at(s, len, name, out, err, 0);
    CHECKF(a == b, "form_get on \"%s\" for %s: %d after a guard page, %d before one", s, name, a, b);
    return b;
}

TEST_CASE(form_append)
{
    mcp_buf out = {0};
    size_t n;
    mcp_error err;
    CHECK(mcp_http_form_append(&out, "grant_type", "authorization_code", &err) == MCP_OK);
    CHECK(mcp_http_form_append(&out, "redirect_uri", "http://127.0.0.1:8080/cb?x=1", &err) == MCP_OK);
    CHECK(mcp_http_form_append(&out, "scope", "files:read files:write", &err) == MCP_OK);
    CHECK(mcp_http_form_append(&out, "a+b", "AZaz09-._~ +&=%", &err) == MCP_OK);
    CHECK(mcp_http_form_append(&out, "empty", "", &err) == MCP_OK && err.status == MCP_OK);
    CHECK(mcp_buf_append(&out, "", 1) == MCP_OK);
    CHECK(!strcmp(out.data, "grant_type=authorization_code&redirect_uri=http%3A%2F%2F127.0.0.1%3A8080%2Fcb%3Fx%3D1"
                  "&scope=files%3Aread%20files%3Awrite&a%2Bb=AZaz09-._~%20%2B%26%3D%25&empty="));
    n = --out.len;
    CHECK(mcp_http_form_append(&out, NULL, "x", &err) == MCP_ERR_INVALID && sentence(err.message));
    CHECK(mcp_http_form_append(&out, "x", NULL, &err) == MCP_ERR_INVALID && out.len == n);
    out.len = 0;
    CHECK(mcp_http_form_append(&out, "", "", &err) == MCP_OK && out.len == 1 && out.data[0] == '=');
    out.len = 0;
    CHECK(mcp_http_form_append(&out, "\xff\x01", "\x80", &err) == MCP_OK && out.len == 10 && !memcmp(out.data, "%FF%01=%80", 10));
    mcp_buf_free(&out);
}

TEST_CASE(form_round_trip)
{
    char all[256], one[2];
    mcp_buf out = {0}, val = {0};
    mcp_error err;
    int c, ok = 1;
    for (c = 1; c < 256; c++) all[c - 1] = (char)c;
    all[255] = 0;
    CHECK(mcp_http_form_append(&out, "other", "1", &err) == MCP_OK);
    CHECK(mcp_http_form_append(&out, all, all, &err) == MCP_OK);    /* every byte as name and value */
    CHECK(mcp_http_form_append(&out, "v", all, &err) == MCP_OK);
    CHECK(mcp_buf_append(&out, "", 1) == MCP_OK);
    CHECK(fget(out.data, all, &val, &err) == 1 && val.len == 255 && !memcmp(val.data, all, 255) && !val.data[255]);
    CHECK(fget(out.data, "v", &val, &err) == 1 && val.len == 255 && !memcmp(val.data, all, 255));
    CHECK(fget(out.data, "other", &val, &err) == 1 && !strcmp(val.data, "1"));
    for (c = 1; c < 256; c++) {                 /* and each byte alone */
        one[0] = (char)c; one[1] = 0;
        out.len = 0;
        ok &= mcp_http_form_append(&out, one, one, &err) == MCP_OK && mcp_buf_append(&out, "", 1) == MCP_OK;
        ok &= fget_at(out.data, out.len - 1, one, &val, &err, 0) == 1 && val.len == 1 && val.data[0] == (char)c;
    }
    CHECK(ok);
    mcp_buf_free(&out);
    mcp_buf_free(&val);
}

TEST_CASE(form_get)
{
    mcp_buf v = {0};
    mcp_error err;
    CHECK(fget("code=SplxlOBeZQQYbYS6WxSbIA&state=xyz&iss=https%3A%2F%2Fauth.example.com", "iss", &v, &err) == 1);
    CHECK(!strcmp(v.data, "https://auth.example.com") && err.status == MCP_OK);
    CHECK(fget("code=SplxlOBeZQQYbYS6WxSbIA&state=xyz", "code", &v, &err) == 1 && !strcmp(v.data, "SplxlOBeZQQYbYS6WxSbIA"));
    CHECK(fget("error=access_denied&error_description=The+user+denied%20access", "error_description", &v, &err) == 1);
    CHECK(!strcmp(v.data, "The user denied access"));
    CHECK(fget("a=x+y%2By", "a", &v, &err) == 1 && !strcmp(v.data, "x y+y"));
    CHECK(fget("a+b=1", "a b", &v, &err) == 1 && !strcmp(v.data, "1"));
    CHECK(fget("a%20b=2", "a b", &v, &err) == 1 && !strcmp(v.data, "2"));
    CHECK(fget("c%6fde=3", "code", &v, &err) == 1 && !strcmp(v.data, "3"));
    CHECK(fget("a=%C3%A9%c3%a9", "a", &v, &err) == 1 && !strcmp(v.data, "\xc3\xa9\xc3\xa9"));
    CHECK(fget("code=a=b", "code", &v, &err) == 1 && !strcmp(v.data, "a=b"));
    /* an empty value, with and without '=' */
    CHECK(fget("code=&state=x", "code", &v, &err) == 1 && v.len == 0 && v.data && !v.data[0]);
    CHECK(fget("state=x&code", "code", &v, &err) == 1 && v.len == 0);
    CHECK(fget("=x", "", &v, &err) == 1 && !strcmp(v.data, "x"));
    /* absent; names are whole and exact */
    CHECK(fget("state=x", "code", &v, &err) == 0 && v.len == 0 && err.status == MCP_OK);
    CHECK(fget("code_x=1&code=2", "code", &v, &err) == 1 && !strcmp(v.data, "2"));
    CHECK(fget("code=2&code_x=1", "code_x", &v, &err) == 1 && !strcmp(v.data, "1"));
    CHECK(fget("codex=1&xcode=2&cod=3&Code=4&code%20=5", "code", &v, &err) == 0);
    CHECK(fget("code=1", "cod", &v, &err) == 0 && fget("code=1", "code=1", &v, &err) == 0);
    CHECK(fget("&&code=1&&", "code", &v, &err) == 1 && !strcmp(v.data, "1"));
    CHECK(fget("", "code", &v, &err) == 0 && fget("&", "", &v, &err) == 0);
    CHECK(mcp_http_form_get(NULL, 0, "code", &v, &err) == 0);
    CHECK(mcp_http_form_get(NULL, 1, "code", &v, &err) == MCP_ERR_INVALID && sentence(err.message));
    CHECK(mcp_http_form_get("a", 1, NULL, &v, &err) == MCP_ERR_INVALID);
    /* a length, not a NUL, ends the data */
    CHECK(mcp_http_form_get("code=12&code=3", 7, "code", &v, &err) == 1 && !strcmp(v.data, "12"));
    mcp_buf_free(&v);
}

TEST_CASE(form_refused)
{
    static const char *const bad[] = {
        "a=%", "a=%4", "a=%zz", "a=%4g", "a=%g4", "%=1", "x%2=1&a=1", "a=1&b=%", "a=%%41", "a=%0"
    };
    mcp_buf v = {0};
    mcp_error err;
    size_t i;
    char *big;
    for (i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        CHECKF(fget(bad[i], "a", &v, &err) == MCP_ERR_PARSE && strstr(err.message, "two hex digits") && sentence(err.message), "%s", bad[i]);
        CHECKF(v.len == 0, "%s", bad[i]);
    }
    CHECK(fget("a=x%00y", "a", &v, &err) == MCP_ERR_PARSE && strstr(err.message, "NUL byte (%00 at byte 3)"));
    CHECK(fget("%00=1&a=2", "a", &v, &err) == MCP_ERR_PARSE);
    CHECK(fget_at("a=x\0y", 5, "a", &v, &err, 0) == MCP_ERR_PARSE && strstr(err.message, "NUL byte (at byte 3)"));
    /* repeated, also when spelt differently; other names may repeat */
    CHECK(fget("code=1&state=x&code=1", "code", &v, &err) == MCP_ERR_PARSE && v.len == 0);
    CHECK(strstr(err.message, "\"code\" appears more than once") && sentence(err.message));
    CHECK(fget("code=1&c%6Fde=2", "code", &v, &err) == MCP_ERR_PARSE);
    CHECK(fget("code&code=", "code", &v, &err) == MCP_ERR_PARSE);
    CHECK(fget("x=1&x=2&code=3", "code", &v, &err) == 1 && !strcmp(v.data, "3"));
    /* no value in the sentence */
    CHECK(fget("code=s3cr3t%zz", "code", &v, &err) == MCP_ERR_PARSE && !strstr(err.message, "s3cr3t"));
    CHECK(fget("code=s3cr3t&code=s3cr3t", "code", &v, &err) == MCP_ERR_PARSE && !strstr(err.message, "s3cr3t"));
    /* the size limit */
    big = (char *)malloc(MCP_HTTP_FORM_MAX + 1);
    if (big) {
        memset(big, 'a', MCP_HTTP_FORM_MAX + 1);
        CHECK(mcp_http_form_get(big, MCP_HTTP_FORM_MAX + 1, "a", &v, &err) == MCP_ERR_LIMIT && sentence(err.message));
        big[MCP_HTTP_FORM_MAX - 2] = '=';
        CHECK(mcp_http_form_get(big, MCP_HTTP_FORM_MAX, "a", &v, &err) == 0);
    }
    CHECK(big != NULL);
    free(big);
    mcp_buf_free(&v);
}

int main(int argc, char **argv)
{
    int rc = test_main(argc, argv);
    guard_free();
    return rc;
}
