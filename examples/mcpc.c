/* mcpc - a command-line MCP client on mcp.h: list and call a server's tools, read its resources,
   get its prompts, watch what it sends, from a shell or a script. `mcpc --help` documents it all.

       mcpc build/demo_server tools
       mcpc build/demo_server call add a=2 b=40
       mcpc --config mcp.json tools              (every server of a config file: the host)

   Every request goes out with mcp_client_send and is waited for in a loop of
   mcp_client_poll(client, 100), so Ctrl-C (a flag set by the SIGINT handler) can cancel it:
   mcp_call_cancel tells the server, and mcpc exits with status 130.

   key=value arguments of `call` are typed by the tool's inputSchema, read with tools/list
   first: the server sees 42 where the schema says integer and "42" where it says string.

   --config FILE and --server NAME read the servers of config files (mcp_config_parse): every
   server at once through the host (mcp_host_*: servers, tools, call SERVER__TOOL), or one
   of them run as a SERVER given on the command line would be.

   Built with -DMCPC_OPENSSL (and -lssl -lcrypto), mcpc reaches https:// servers through the
   TLS hook of examples/tls_openssl.c, which it includes.

   One file holds mcp.h's implementation too. -DMCPC_NO_IMPLEMENTATION leaves it out, for a
   build that compiles it apart (at the same time, on another core) and links it in: the
   Makefile links build/impl.o. */
#define _POSIX_C_SOURCE 200809L
#ifdef MCPC_NO_IMPLEMENTATION
#define TLS_OPENSSL_NO_IMPLEMENTATION
#elif !defined(MCPC_OPENSSL)
#define MCP_IMPLEMENTATION
#endif
#ifdef MCPC_OPENSSL
#define TLS_OPENSSL_NO_MAIN
#include "tls_openssl.c"            /* includes mcp.h (with its implementation, unless told not to) */
#else
#include "../mcp.h"
#endif
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>
#include <unistd.h>
#include <errno.h>
#include <fcntl.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/wait.h>

/* --help, in parts: C99 compilers need take no string over 4095 bytes */
static const char *const HELP[] = {
"mcpc - a command-line client for MCP (Model Context Protocol) servers, built on mcp.h\n"
"\n"
"Usage:\n"
"  mcpc [options] SERVER [COMMAND [ARGS...]]                      a server program to run\n"
"  mcpc [options] 'SERVER SERVER-ARGS...' [COMMAND [ARGS...]]     ... with its arguments\n"
"  mcpc [options] SERVER SERVER-ARGS... -- [COMMAND [ARGS...]]    ... the same, unquoted\n"
"  mcpc [options] http[s]://HOST[:PORT]/PATH [COMMAND [ARGS...]]  Streamable HTTP\n"
"  mcpc [options] --sse URL [COMMAND [ARGS...]]                   HTTP+SSE (2024-11-05)\n"
"  mcpc [options] --config FILE [COMMAND [ARGS...]]                every server of a config file\n"
"  mcpc [options] [--config FILE] --server NAME [COMMAND [ARGS...]]  one of them, as SERVER\n"
"\n"
"A stdio server is started as a child process and stopped when mcpc is done. SERVER is one\n"
"word. A word that names an existing file or a program on PATH runs as it is; any other word\n"
"with spaces is split as a shell splits it ('...', \"...\" and backslash quote; no shell runs):\n"
"mcpc \"node server.js --port 3\" tools. Unquoted server arguments end with --.\n"
"A URL whose server does not take POSTs (400, 404, 405) is tried with HTTP+SSE; info says so.\n"
"https:// needs a build with OpenSSL (mcpc --version tells).\n"
"\n"
"Commands (default: info):\n"
"  info                            server, protocol, transport, capabilities, instructions\n"
"  tools [NAME]                    the tools and their arguments ([optional] in brackets);\n"
"                                  with NAME, that tool in full: each argument's type,\n"
"                                  values, default and description, and the output schema\n"
"  call TOOL [ARGS]                call a tool and print what it returns; a tool the server\n"
"                                  runs as a task is followed to its end, each status on stderr\n"
"  resources                       the resources\n"
"  templates                       the resource templates\n"
"  read URI                        read a resource\n"
"  prompts                         the prompts and their arguments\n"
"  prompt NAME [ARGS]              get a prompt\n"
"  complete prompt NAME ARG [VALUE [ARGS]]   completions for a prompt argument, ARGS being\n"
"  complete resource URI ARG [VALUE [ARGS]]  ... or a template's; the other arguments' values\n"
"  tasks                           the server's tasks (2025-11-25 servers that list them)\n"
"  ping                            check that the server answers\n"
"  request METHOD [ARGS]           any request; prints the result as JSON\n"
"  watch [URI...]                  stay connected; print each notification and log message\n"
"                                  the server sends, until Ctrl-C or --for; URI: a resource\n"
"                                  to subscribe to (its updates are printed too)\n"
"\n",
"ARGS is key=value words (a=2 b=40), one JSON object ('{\"a\": 2, \"b\": 40}'), or a JSON\n"
"object followed by words, which replace its members. A value of `call` takes the type the\n"
"tool's input schema gives its key (mcpc SERVER tools TOOL shows them):\n"
"  string                 the word as it is: text=42 sends \"42\"\n"
"  integer, number        a number: n=42, x=-2.5e3; anything else is an error\n"
"  boolean, null          true or false; null\n"
"  enum, const            one of the values listed\n"
"  array, object          JSON: tags='[\"a\", \"b\"]' when='{\"day\": \"2026-05-01\"}'\n"
"  anyOf, oneOf, [types]  the first type the word is, string last\n"
"A key the schema does not list (warned about when it lists others), a value of `request`\n"
"and one a schema leaves open: JSON if it parses (42, true, [1,2], \"quoted\"), else a\n"
"string. Prompt arguments and completion context are always strings.\n"
"\n"
"Options (before SERVER, or after COMMAND):\n"
"  -H, --header 'Name: value'  an HTTP header (repeatable): -H 'Authorization: Bearer TOKEN'\n"
"      --no-auth               HTTP: no authorization flow; a 401 is an error\n"
"      --auth-port PORT        the port the sign-in's redirect comes back to (default: any)\n"
"  -e, --env KEY=VALUE         an environment variable for the server process (repeatable)\n"
"      --sse URL               connect to URL with the HTTP+SSE transport\n"
"      --config FILE           config mode: the servers of FILE (repeatable: read in order, a\n"
"                              later server replacing an earlier one of the same name)\n"
"      --server NAME           config mode: the server NAME alone, as SERVER (see below)\n"
"      --cacert FILE           https: trust the CAs in FILE (PEM) instead of the system's\n"
"      --insecure              https: do not verify the server's certificate (warned about)\n"
"  -t, --timeout MS            per-request timeout in ms (default 30000; 0: none); progress\n"
"                              from the server restarts it, up to 10 times the timeout in all\n"
"      --protocol VERSION      speak only this protocol version, e.g. 2025-06-18\n"
"      --no-cache              ask the server each time (keep no results for their ttlMs)\n"
"      --log-level LEVEL       ask for the server's log messages at LEVEL and above (debug,\n"
"                              info, notice, warning, error, critical, alert, emergency) and\n"
"                              show them on stderr\n"
"      --args-file FILE        call, prompt, request: the arguments, a JSON object, from FILE\n"
"                              (- for stdin); key=value words replace its members\n"
"      --for DURATION          watch: stop after DURATION: ms, or 500ms, 10s, 2m\n"
"      --json                  JSON output (pretty on a terminal, else compact), errors too\n"
"      --progress              show progress even when stderr is not a terminal\n"
"  -v, --verbose               notifications, server log messages and stderr, to stderr\n"
"  -V, --version               the version, and whether https:// is built in\n"
"  -h, --help                  this text\n"
"\n",
"Config mode: --config FILE or --server NAME instead of SERVER. A config file is JSON (comments\n"
"and trailing commas allowed) with {\"mcpServers\": {NAME: {...}, ...}} (Claude Desktop, Claude\n"
"Code, Cursor, Windsurf, ...) or VS Code's {\"servers\": {NAME: {...}, ...}}: \"command\",\n"
"\"args\", \"env\" and \"cwd\" for a stdio server, \"url\" and \"headers\" for an HTTP one (\"type\":\n"
"\"sse\" for HTTP+SSE), \"timeout\" (ms), \"disabled\": true to turn one off. ${VAR},\n"
"${VAR:-default}, ${env:VAR}, ${userHome} and ${workspaceFolder} (the folder that holds the\n"
"file's .vscode/ or .cursor/, else the current one) are replaced by their values; a field\n"
"mcpc does not read and a variable that is not set are warned about.\n"
"Without --server, the commands work on every server at once (all started in parallel):\n"
"  servers                    each server: name, transport, state, and its tool count or why\n"
"                             it is not ready (the default command)\n"
"  tools [SERVER__TOOL]       every server's tools, named SERVER__TOOL; with a name, that tool\n"
"  call SERVER__TOOL [ARGS]   call a tool (only the servers the name may be of are started)\n"
"  prompts                    every server's prompts, named SERVER__PROMPT\n"
"  prompt SERVER__PROMPT [ARGS], resources, read URI   as above\n"
"A server that cannot be started or reached is said on stderr with its sentence, the others\n"
"are listed all the same, and the exit status is the first failure's: servers, tools, prompts\n"
"and resources exit with 0 only when every server that its file does not turn off is ready.\n"
"-H, -e, --protocol and --log-level need --server; -t is the timeout of each server whose\n"
"entry gives none.\n"
"With --server NAME, NAME is run as a SERVER given above would be, every command working on it\n"
"with its own names (info, tools, call TOOL, watch, ...); -H and -e add to its headers and\n"
"environment, -t replaces its timeout; servers shows that one alone.\n"
"--server NAME without --config reads each of these files that is there, in this order, a\n"
"later one's server replacing an earlier one's: ~/.cursor/mcp.json, then\n"
"$XDG_CONFIG_HOME/mcpc/mcp.json (else ~/.config/mcpc/mcp.json), then in the current folder\n"
".vscode/mcp.json, .cursor/mcp.json and .mcp.json. One that cannot be read or parsed is warned\n"
"about and skipped (a --config FILE that cannot is an error, status 2). HTTP servers sign in\n"
"as below.\n"
"\n",
"Signing in: a server that answers 401 asks for authorization (OAuth 2.1, the MCP spec's\n"
"flow). mcpc prints the address to open and opens it in a browser where there is one\n"
"(xdg-open, open; MCPC_BROWSER=COMMAND runs COMMAND URL instead); the browser comes back to\n"
"mcpc on 127.0.0.1. Tokens and client registrations are kept in\n"
"$XDG_CONFIG_HOME/mcpc/auth.json (else ~/.config/mcpc/auth.json), mode 0600, locked while\n"
"mcpc reads and rewrites it, and used again next time; a refresh token keeps it going.\n"
"\n"
"Output: results go to stdout; progress, warnings, errors and what -v shows, to stderr.\n"
"With --json, stdout has the result as JSON (watch: one notification a line, {\"method\",\n"
"\"params\"}) and each line on stderr is one JSON object: {\"warning\": ...}, what -v shows\n"
"({\"method\", \"params\"}, {\"stderr\": ...}, {\"log\": ...}), {\"progress\", \"total\",\n"
"\"message\"}, and on failure, last, the error:\n"
"  {\"status\": \"MCP_ERR_RPC\", \"class\": \"protocol\", \"exit\": 4,\n"
"   \"message\": \"MCP error -32602: Unknown tool: x\", \"rpc_code\": -32602}\n"
"with \"http_status\" after an HTTP error, \"errno\" after a system error.\n"
"\n"
"Progress reported by the server shows on stderr when it is a terminal. Ctrl-C cancels the\n"
"request in flight (the server is told) and exits with status 130; a second Ctrl-C quits\n"
"at once. Ctrl-C ends watch with status 0. After a timeout or Ctrl-C a stdio server is\n"
"stopped at once (SIGTERM), without the usual wait for it to exit by itself.\n"
"\n"
"Exit status (the \"class\" of a JSON error):\n"
"  0    ok: success\n"
"  1    other: out of memory\n"
"  2    usage: bad arguments or options, a value that does not fit the tool's schema, a\n"
"       request the server did not declare support for\n"
"  3    connection: the server could not be started or reached (TLS refused, HTTP errors too),\n"
"       or went away\n"
"  4    protocol: the server answered with a JSON-RPC error, or broke the protocol\n"
"  5    tool: the tool ran and reported an error (isError: true)\n"
"  6    timeout\n"
"  130  cancelled with Ctrl-C\n"
"\n"
"Examples:\n"
"  mcpc build/demo_server tools\n"
"  mcpc build/demo_server tools book\n"
"  mcpc build/demo_server call add a=2 b=40\n"
"  mcpc build/demo_server call book title=Standup minutes=15 room=blue attendees='[\"Ada\"]'\n"
"  mcpc build/demo_server call echo '{\"text\": \"hello\"}'\n"
"  echo '{\"text\": \"from stdin\"}' | mcpc build/demo_server call echo --args-file -\n"
"  mcpc build/demo_server read demo://greeting/Ada\n"
"  mcpc build/demo_server prompt greet name=Ada style=pirate\n"
"  mcpc build/demo_server complete prompt greet name A\n"
"  mcpc build/demo_server complete resource 'demo://city/{country}/{city}' city '' country=Peru\n"
"  mcpc --log-level debug build/demo_server watch demo://clock --for 5s\n"
"  mcpc --json build/demo_server call slow steps=3 | jq .content\n"
"  mcpc 'npx -y @modelcontextprotocol/server-everything' call echo message=42\n"
"  mcpc -e DEBUG=1 npx -y @modelcontextprotocol/server-everything -- \\\n"
"       prompt resource-prompt resourceType=Text resourceId=3\n"
"  mcpc -H 'Authorization: Bearer TOKEN' https://example.com/mcp tools\n"
"  mcpc --sse http://localhost:3001/sse ping\n"
"  mcpc --config ~/.cursor/mcp.json servers\n"
"  mcpc --config mcp.json tools\n"
"  mcpc --config mcp.json call github__create_issue title=Bug body='It broke'\n"
"  mcpc --server github call create_issue title=Bug      (the usual files: see Config mode)\n",
NULL };

enum { RC_OK = 0, RC_OTHER = 1, RC_USAGE = 2, RC_CONNECT = 3, RC_PROTOCOL = 4, RC_TOOL = 5, RC_TIMEOUT = 6,
       RC_CANCELLED = 130 };

static struct {
    int json, pretty, verbose, progress, tty_progress, insecure, no_auth;
    unsigned auth_port;
    const char *headers[64], *env[64];
    int nheaders, nenv;
    const char *sse, *cacert, *log_level, *args_file;
    long watch_ms;                          /* --for; 0: until Ctrl-C */
    const char *configs[32];                /* --config FILE, in order */
    int nconfigs;
    const char *server;                     /* --server NAME */
} opt;

static mcp_client *volatile client;         /* volatile: the SIGINT handler reads it */
static mcp_client_desc desc;
static volatile sig_atomic_t interrupted;
static int progress_shown;                  /* a progress line is on the terminal */
static int watching;                        /* watch: notifications go to stdout */
static int abandon;                         /* a timeout or Ctrl-C: close without waiting */
static mcp_error closed_why;                /* why the connection ended (on_close) */
#ifdef MCPC_OPENSSL
static tls_openssl tls;
static int tls_on;
#endif

/* ---- text: UTF-8, widths, wrapping ----------------------------------------------------------- */

static size_t utf8_seq(const unsigned char *s)   /* bytes of the valid UTF-8 character at s, 0 if none */
{
    unsigned c = s[0], n, i, cp;
    if (c < 0x80) return 1;
    if (c >= 0xC2 && c <= 0xDF) n = 2;
    else if (c >= 0xE0 && c <= 0xEF) n = 3;
    else if (c >= 0xF0 && c <= 0xF4) n = 4;
    else return 0;
    cp = c & (0x7Fu >> n);
    for (i = 1; i < n; i++) {
        if ((s[i] & 0xC0) != 0x80) return 0;
        cp = cp << 6 | (s[i] & 0x3Fu);
    }
    if ((n == 3 && (cp < 0x800 || (cp >= 0xD800 && cp <= 0xDFFF))) || (n == 4 && (cp < 0x10000 || cp > 0x10FFFF)))
        return 0;
    return n;
}

/* Writes s as a JSON string; bytes that are not UTF-8 (the writer would refuse them, and spoil
   the whole line) become '?'. */
static void jw_text(mcp_jw *w, const char *s)
{
    size_t i = 0, k, n = strlen(s);
    char *copy;
    while (i < n && (k = utf8_seq((const unsigned char *)s + i)) != 0) i += k;
    if (i == n || !(copy = (char *)malloc(n + 1))) { mcp_jw_str(w, s); return; }
    for (i = 0; i < n; i += k ? k : 1) {
        k = utf8_seq((const unsigned char *)s + i);
        if (k) memcpy(copy + i, s + i, k);
        else copy[i] = '?';
    }
    copy[n] = 0;
    mcp_jw_str(w, copy);
    free(copy);
}

static size_t text_cols(const char *s, size_t n)   /* terminal columns: one per character */
{
    size_t i, cols = 0;
    for (i = 0; i < n && s[i]; i++)
        if (((unsigned char)s[i] & 0xC0) != 0x80 && s[i] != '\r') cols++;
    return cols;
}

static int term_width(void)                 /* stdout's columns; 100 when it is not a terminal */
{
#ifdef TIOCGWINSZ
    struct winsize ws;
    if (isatty(1) && ioctl(1, TIOCGWINSZ, &ws) == 0 && ws.ws_col >= 40) return ws.ws_col;
#endif
    return 100;
}

/* The next line of s wrapped to `width` columns: its length in *n, and where the line after it
   starts (NULL when s is done). Lines end at newlines and between words; a word longer than
   the width is cut only when `cut` is set (else the line runs over). */
static const char *wrap_next(const char *s, size_t width, int cut, size_t *n)
{
    size_t i, cols = 0, end = 0;            /* end: where the line may break, after a word */
    if (!s || !*s) return NULL;
    for (i = 0; s[i] && s[i] != '\n'; i++) {
        unsigned char ch = (unsigned char)s[i];
        int space = ch == ' ' || ch == '\t';
        if ((ch & 0xC0) == 0x80 || ch == '\r') continue;   /* inside a character, or no width */
        if (space && i > 0 && s[i - 1] != ' ' && s[i - 1] != '\t') end = i;
        if (!space && cols >= width && (end || cut)) {
            const char *next = s + (end ? end : i);
            *n = end ? end : i;
            while (*next == ' ' || *next == '\t') next++;
            return next;
        }
        cols++;
    }
    *n = i;
    while (*n > 0 && (s[*n - 1] == ' ' || s[*n - 1] == '\t' || s[*n - 1] == '\r')) (*n)--;
    return s[i] ? s + i + 1 : s + i;
}

static void put_line(FILE *f, const char *s, size_t n)   /* tabs as spaces, no CR */
{
    size_t i;
    for (i = 0; i < n; i++)
        if (s[i] != '\r') fputc(s[i] == '\t' ? ' ' : s[i], f);
}

/* text wrapped to the terminal, the cursor being at column `col` already; continuation lines
   start at column `indent`. Blank lines are kept (paragraphs). */
static void print_wrapped(const char *text, size_t col, size_t indent)
{
    size_t width = (size_t)term_width(), avail = width > col + 20 ? width - col : 20, n;
    const char *next;
    int first = 1;
    while ((next = wrap_next(text, avail, 1, &n)) != NULL) {
        if (!first && n > 0) printf("%*s", (int)indent, "");     /* (a blank line stays blank) */
        put_line(stdout, text, n);
        putchar('\n');
        text = next;
        first = 0;
        avail = width > indent + 20 ? width - indent : 20;
    }
    if (first) putchar('\n');
}

/* ---- messages on stderr: text, or one JSON object a line with --json -------------------------- */

static void end_progress(void)              /* clear the progress line before other output */
{
    if (progress_shown) { fputs("\r\033[K", stderr); progress_shown = 0; }
}

static void json_line(FILE *f, mcp_jw *w)   /* finishes w and prints it as one line */
{
    char *text = mcp_jw_finish(w, NULL, NULL);
    if (text) { fputs(text, f); fputc('\n', f); fflush(f); }
    mcp_free(text);
}

static void warn(const char *fmt, ...)
{
    char msg[1024];
    va_list ap;
    mcp_jw w;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    end_progress();
    if (!opt.json) { fprintf(stderr, "mcpc: warning: %s\n", msg); return; }
    mcp_jw_init(&w, 0);
    mcp_jw_obj_begin(&w); mcp_jw_key(&w, "warning"); jw_text(&w, msg); mcp_jw_obj_end(&w);
    json_line(stderr, &w);
}

static const char *rc_class(int rc)
{
    switch (rc) {
    case RC_OK: return "ok";
    case RC_USAGE: return "usage";
    case RC_CONNECT: return "connection";
    case RC_PROTOCOL: return "protocol";
    case RC_TOOL: return "tool";
    case RC_TIMEOUT: return "timeout";
    case RC_CANCELLED: return "cancelled";
    default: return "other";
    }
}

/* Prints an error, the library's sentence as it is (it already says "MCP error -32602: ..."),
   and returns rc. */
static int report(const mcp_error *err, int rc)
{
    const char *status = mcp_status_str(err->status);
    mcp_jw w;
    end_progress();
    if (!opt.json) { fprintf(stderr, "mcpc: %s\n", err->message); return rc; }
    mcp_jw_init(&w, 0);
    mcp_jw_obj_begin(&w);
    mcp_jw_key(&w, "status"); mcp_jw_strn(&w, status, strcspn(status, ":"));   /* "MCP_ERR_RPC" */
    mcp_jw_key(&w, "class"); mcp_jw_str(&w, rc_class(rc));
    mcp_jw_key(&w, "exit"); mcp_jw_int(&w, rc);
    mcp_jw_key(&w, "message"); jw_text(&w, err->message);
    if (err->http_status) { mcp_jw_key(&w, "http_status"); mcp_jw_int(&w, err->http_status); }
    if (err->rpc_code) { mcp_jw_key(&w, "rpc_code"); mcp_jw_int(&w, err->rpc_code); }
    if (err->sys_errno) { mcp_jw_key(&w, "errno"); mcp_jw_int(&w, err->sys_errno); }
    mcp_jw_obj_end(&w);
    json_line(stderr, &w);
    return rc;
}

static int rc_of(mcp_status st)
{
    switch (st) {
    case MCP_ERR_INVALID: return RC_USAGE;
    case MCP_ERR_IO: case MCP_ERR_CLOSED: case MCP_ERR_HTTP: return RC_CONNECT;
    case MCP_ERR_RPC: case MCP_ERR_PROTOCOL: case MCP_ERR_PARSE: case MCP_ERR_LIMIT: return RC_PROTOCOL;
    case MCP_ERR_TIMEOUT: return RC_TIMEOUT;
    case MCP_ERR_CANCELLED: return RC_CANCELLED;
    default: return RC_OTHER;
    }
}

/* The exit status for a failed request, after printing why. */
static int fail(const mcp_error *err)
{
    if (err->status == MCP_ERR_TIMEOUT || err->status == MCP_ERR_CANCELLED) abandon = 1;
    return report(err, rc_of(err->status));
}

static int vusage(int hint, const char *fmt, va_list ap)
{
    mcp_error e;
    memset(&e, 0, sizeof e);
    e.status = MCP_ERR_INVALID;
    vsnprintf(e.message, sizeof e.message, fmt, ap);
    report(&e, RC_USAGE);
    if (hint && !opt.json) fputs("Run 'mcpc --help' for usage.\n", stderr);
    return RC_USAGE;
}

static int usage(const char *fmt, ...)      /* a command line mcpc cannot take */
{
    va_list ap;
    int rc;
    va_start(ap, fmt); rc = vusage(1, fmt, ap); va_end(ap);
    return rc;
}

static int invalid(const char *fmt, ...)    /* the same class, without pointing at --help */
{
    va_list ap;
    int rc;
    va_start(ap, fmt); rc = vusage(0, fmt, ap); va_end(ap);
    return rc;
}

/* ---- small helpers -------------------------------------------------------------------------- */

static const char *str(const mcp_json *obj, const char *key)   /* "" when absent */
{
    const char *s = mcp_json_str(mcp_json_get(obj, key));
    return s ? s : "";
}

static void print_json(const mcp_json *v)
{
    char *text = mcp_json_dump(v, opt.pretty, NULL);
    if (text) puts(text);
    mcp_free(text);
}

static unsigned long base64_bytes(const char *b64)   /* decoded size of base64 text */
{
    size_t n = strlen(b64);
    while (n > 0 && b64[n - 1] == '=') n--;
    return (unsigned long)(n * 3 / 4);
}

static int key_is(const mcp_json *obj, size_t i, const char *key)   /* member i is named key */
{
    size_t klen;
    const char *k = mcp_json_key_at(obj, i, &klen);
    return k && klen == strlen(key) && !memcmp(k, key, klen);
}

/* params that hold nothing but _meta print as nothing; else the JSON without _meta */
static char *dump_without_meta(const mcp_json *params)
{
    const mcp_json *v;
    size_t i, klen;
    mcp_jw w;
    if (mcp_json_typeof(params) != MCP_JSON_OBJECT) return params ? mcp_json_dump(params, 0, NULL) : NULL;
    mcp_jw_init(&w, 0);
    mcp_jw_obj_begin(&w);
    mcp_json_foreach(params, i, v)
        if (!key_is(params, i, "_meta")) {
            const char *key = mcp_json_key_at(params, i, &klen);
            mcp_jw_keyn(&w, key, klen);
            mcp_jw_value(&w, v);
        }
    mcp_jw_obj_end(&w);
    if (mcp_json_len(params) == (mcp_json_get(params, "_meta") ? 1u : 0u)) { mcp_jw_free(&w); return NULL; }
    return mcp_jw_finish(&w, NULL, NULL);
}

/* ---- requests: sent without blocking, waited for with Ctrl-C in mind ------------------------- */

static void on_sigint(int sig)
{
    (void)sig;
    if (interrupted) _exit(RC_CANCELLED);    /* the second Ctrl-C: quit at once */
    interrupted = 1;
    if (client) mcp_client_interrupt(client);   /* stops a blocking call (logging/setLevel) */
}

static mcp_status wait_for(mcp_call *call, mcp_json_doc **result, mcp_error *err)
{
    mcp_status st;
    while (mcp_call_status(call) == MCP_AGAIN && !interrupted)
        if (mcp_client_poll(client, 100) == MCP_ERR_CLOSED && mcp_call_status(call) == MCP_AGAIN) break;
    if (mcp_call_status(call) == MCP_AGAIN && interrupted)
        mcp_call_cancel(call, "the user pressed Ctrl-C");    /* the server is told */
    if (mcp_call_status(call) == MCP_AGAIN) {    /* initialize (never cancelled), or closed */
        mcp_call_free(call);
        memset(err, 0, sizeof *err);
        err->status = interrupted ? MCP_ERR_CANCELLED : MCP_ERR_CLOSED;
        snprintf(err->message, sizeof err->message, "%s", interrupted ? "Request cancelled" : "Transport closed");
        return err->status;
    }
    st = mcp_call_result(call, result, err);
    mcp_call_free(call);
    return st;
}

static void on_progress(void *user, mcp_call *call, double progress, double total, const char *message)
{
    const char *what = (const char *)user;
    char bar[21];
    int i, fill;
    mcp_jw w;
    (void)call;
    if (!opt.progress) return;
    if (opt.json) {                         /* one JSON object a report */
        mcp_jw_init(&w, 0);
        mcp_jw_obj_begin(&w);
        mcp_jw_key(&w, "progress"); mcp_jw_num(&w, progress);
        if (total > 0) { mcp_jw_key(&w, "total"); mcp_jw_num(&w, total); }
        if (message) { mcp_jw_key(&w, "message"); jw_text(&w, message); }
        mcp_jw_obj_end(&w);
        json_line(stderr, &w);
        return;
    }
    if (!opt.tty_progress) {                /* not a terminal: one plain line per report */
        if (total > 0) fprintf(stderr, "%s: %g/%g%s%s\n", what, progress, total, message ? " " : "", message ? message : "");
        else fprintf(stderr, "%s: %g%s%s\n", what, progress, message ? " " : "", message ? message : "");
        return;
    }
    fprintf(stderr, "\r\033[K%s ", what);  /* a terminal: redraw one line */
    if (total > 0) {
        fill = (int)(20 * (progress > total ? 1 : progress / total));
        for (i = 0; i < 20; i++) bar[i] = i < fill ? '#' : '-';
        bar[20] = 0;
        fprintf(stderr, "[%s] %g/%g", bar, progress, total);
    } else {
        fprintf(stderr, "%g", progress);
    }
    if (message) fprintf(stderr, " %.60s", message);
    fflush(stderr);
    progress_shown = 1;
}

/* A call the server runs as a task: each status it reports, on stderr (a line, or a JSON
   object with --json), e.g. "simulate-research-query: task 5b66...: working Gathering sources..." */
static void on_task(void *user, mcp_call *call, const char *task_id, const char *status, const char *message)
{
    const char *what = (const char *)user;
    mcp_jw w;
    (void)call;
    if (progress_shown) { fputs("\r\033[K", stderr); progress_shown = 0; }   /* the progress line goes */
    if (opt.json) {
        mcp_jw_init(&w, 0);
        mcp_jw_obj_begin(&w);
        mcp_jw_key(&w, "task"); jw_text(&w, task_id);
        mcp_jw_key(&w, "status"); jw_text(&w, status);
        if (message) { mcp_jw_key(&w, "message"); jw_text(&w, message); }
        mcp_jw_obj_end(&w);
        json_line(stderr, &w);
        return;
    }
    fprintf(stderr, "%s: task %s: %s%s%s\n", what ? what : "call", task_id, status, message ? " " : "",
            message ? message : "");
}

/* A tool call's options: progress asked for (and restarting the timeout), task statuses shown,
   both under the tool's name. */
static void tool_opts(mcp_call_opts *o, const char *tool)
{
    memset(o, 0, sizeof *o);
    o->on_progress = on_progress;
    o->on_task = on_task;
    o->user = (void *)tool;
    o->reset_on_progress = 1;
}

/* One request: params is JSON text or NULL; `what` names it on the progress line. */
static mcp_status request(const char *method, const char *params, const char *what,
                          mcp_json_doc **result, mcp_error *err)
{
    mcp_call_opts o;
    mcp_call *call;
    memset(&o, 0, sizeof o);
    o.on_progress = on_progress;
    o.user = (void *)what;
    o.reset_on_progress = 1;
    call = mcp_client_send(client, method, params, what ? &o : NULL, err);
    return call ? wait_for(call, result, err) : err->status;
}

/* {"key": value}: params for the requests that take one string (mcp_free it) */
static char *params1(const char *key, const char *value)
{
    mcp_jw w;
    mcp_jw_init(&w, 0);
    mcp_jw_obj_begin(&w); mcp_jw_key(&w, key); mcp_jw_str(&w, value); mcp_jw_obj_end(&w);
    return mcp_jw_finish(&w, NULL, NULL);
}

/* A list method, every page: {"<key>": [all items]} */
static mcp_status list_all(const char *method, const char *key, mcp_json_doc **result, mcp_error *err)
{
    mcp_jw all;
    mcp_json_doc *page = NULL;
    mcp_status st = MCP_OK;
    const mcp_json *item;
    const char *cursor = NULL;
    size_t i, len;
    int pages = 0;
    char *params, *text;
    mcp_jw_init(&all, 0);
    mcp_jw_obj_begin(&all); mcp_jw_key(&all, key); mcp_jw_arr_begin(&all);
    do {
        params = cursor ? params1("cursor", cursor) : NULL;
        mcp_json_free(page);                /* the cursor pointed into it: copied just now */
        page = NULL;
        st = request(method, params, NULL, &page, err);
        mcp_free(params);
        if (st != MCP_OK) break;
        mcp_json_foreach(mcp_json_get(mcp_json_root(page), key), i, item) mcp_jw_value(&all, item);
        cursor = mcp_json_str(mcp_json_get(mcp_json_root(page), "nextCursor"));
    } while (cursor && *cursor && ++pages < 1000);
    mcp_jw_arr_end(&all); mcp_jw_obj_end(&all);
    mcp_json_free(page);
    if (st == MCP_OK && (text = mcp_jw_finish(&all, &len, err)) != NULL) {
        if (!(*result = mcp_json_parse(text, len, err))) st = err->status;
        mcp_free(text);
    } else if (st == MCP_OK) {
        st = err->status;
    }
    mcp_jw_free(&all);
    return st;
}

/* The tool named `name` in a tools/list result (NULL if none). */
static const mcp_json *find_tool(const mcp_json_doc *tools, const char *name)
{
    const mcp_json *t;
    size_t i;
    mcp_json_foreach(mcp_json_get(mcp_json_root(tools), "tools"), i, t)
        if (!strcmp(str(t, "name"), name)) return t;
    return NULL;
}

/* ---- JSON Schema: what an argument takes ----------------------------------------------------- */

/* One step of a JSON pointer, from p (just past its '/'), unescaped into step (~1 is /, ~0
   is ~); returns where the next step starts. */
static const char *pointer_step(const char *p, char *step, size_t size)
{
    size_t n = 0;
    for (; *p && *p != '/'; p++) {
        char c = *p;
        if (c == '~' && (p[1] == '0' || p[1] == '1')) c = *++p == '1' ? '/' : '~';
        if (n + 1 < size) step[n++] = c;
    }
    step[n] = 0;
    return p;
}

/* schema with a local $ref ("#/$defs/X", "#/definitions/X", any "#/a/b" pointer) followed;
   NULL when it leads nowhere (or round in circles). *name (if not NULL) gets the last step of
   the last ref: "X". */
static const mcp_json *follow_ref(const mcp_json *root, const mcp_json *schema, const char **name)
{
    char step[256];
    int hops;
    for (hops = 0; schema && hops < 16; hops++) {
        const char *ref = mcp_json_str(mcp_json_get(schema, "$ref")), *p;
        if (!ref) return schema;
        if (ref[0] != '#' || (ref[1] && ref[1] != '/')) return NULL;   /* not in this schema */
        for (schema = root, p = ref + 1; schema && *p == '/'; ) {
            p = pointer_step(p + 1, step, sizeof step);
            schema = mcp_json_typeof(schema) == MCP_JSON_ARRAY ? mcp_json_at(schema, (size_t)atol(step))
                                                                : mcp_json_get(schema, step);
        }
        if (name) *name = strrchr(ref, '/') ? strrchr(ref, '/') + 1 : ref;
    }
    return NULL;
}

static const mcp_json *any_of(const mcp_json *s)   /* anyOf or oneOf: alternatives */
{
    const mcp_json *a = mcp_json_get(s, "anyOf");
    return a ? a : mcp_json_get(s, "oneOf");
}

/* allOf's first member that says what the value is (pydantic wraps a $ref so, for a
   description beside it) */
static const mcp_json *all_of(const mcp_json *s)
{
    static const char *const says[] = { "type", "enum", "const", "anyOf", "oneOf", "$ref", "allOf", "properties" };
    const mcp_json *m;
    size_t i, k;
    mcp_json_foreach(mcp_json_get(s, "allOf"), i, m)
        for (k = 0; k < sizeof says / sizeof says[0]; k++)
            if (mcp_json_get(m, says[k])) return m;
    return NULL;
}

static void cat(char *out, size_t size, const char *fmt, ...)   /* appends, cut at size */
{
    size_t n = strlen(out);
    va_list ap;
    if (n + 1 >= size) return;
    va_start(ap, fmt);
    vsnprintf(out + n, size - n, fmt, ap);
    va_end(ap);
}

/* What a schema takes, in short: "integer", "string or null", "array of string",
   "one of: red, blue", "object (slot)". */
static void type_name(char *out, size_t size, const mcp_json *root, const mcp_json *s, int depth)
{
    const char *ref = NULL, *t;
    const mcp_json *v, *alts;
    size_t i;
    char *json;
    out[0] = 0;
    if (depth > 8 || !(s = follow_ref(root, s, &ref)) || mcp_json_typeof(s) != MCP_JSON_OBJECT) {
        snprintf(out, size, "any");
    } else if ((v = mcp_json_get(s, "const")) != NULL) {
        json = mcp_json_dump(v, 0, NULL);
        snprintf(out, size, "%s (always)", json ? json : "?");
        mcp_free(json);
    } else if ((v = mcp_json_get(s, "enum")) != NULL) {
        snprintf(out, size, "one of:");
        mcp_json_foreach(v, i, alts) {      /* a string with a blank or comma in quotes */
            json = mcp_json_str(alts) && !strpbrk(mcp_json_str(alts), " ,\"") && *mcp_json_str(alts) ? NULL
                                                                                    : mcp_json_dump(alts, 0, NULL);
            cat(out, size, "%s %s", i ? "," : "", json ? json : mcp_json_str(alts));
            mcp_free(json);
        }
    } else if ((alts = any_of(s)) != NULL || mcp_json_typeof(mcp_json_get(s, "type")) == MCP_JSON_ARRAY) {
        char part[256];
        mcp_json_foreach(alts ? alts : mcp_json_get(s, "type"), i, v) {
            if (alts) type_name(part, sizeof part, root, v, depth + 1);
            else snprintf(part, sizeof part, "%s", mcp_json_str(v) ? mcp_json_str(v) : "?");
            cat(out, size, "%s%s", i ? " or " : "", part);
        }
    } else if ((t = mcp_json_str(mcp_json_get(s, "type"))) != NULL) {
        snprintf(out, size, "%s", t);
        if (!strcmp(t, "array") && mcp_json_get(s, "items")) {
            char part[256];
            type_name(part, sizeof part, root, mcp_json_get(s, "items"), depth + 1);
            cat(out, size, " of %s", part);
        }
        if (*str(s, "format")) cat(out, size, " (%s)", str(s, "format"));
    } else if ((v = all_of(s)) != NULL) {
        type_name(out, size, root, v, depth + 1);
    } else {
        snprintf(out, size, mcp_json_get(s, "properties") ? "object" : "any");
    }
    if (ref && !strncmp(out, "object", 6) && !out[6]) cat(out, size, " (%s)", ref);
}

/* ---- arguments: key=value words, typed by the tool's input schema ---------------------------- */

enum { ARGS_JSON, ARGS_STRINGS, ARGS_SCHEMA };   /* how key=value words become JSON values */

typedef struct argspec {
    char **words; int n;                    /* key=value words */
    mcp_json_doc *base;                     /* a JSON object (first word or --args-file), or NULL */
} argspec;

/* A value as JSON if it parses, else as a string: what a key no schema describes gets. */
static void put_loose(mcp_jw *w, const char *word)
{
    mcp_json_doc *doc = mcp_json_parse(word, strlen(word), NULL);
    if (doc) mcp_jw_value(w, mcp_json_root(doc));
    else mcp_jw_str(w, word);
    mcp_json_free(doc);
}

/* The word as one JSON type (a JSON Schema "type" name), written if it is one: 1, else 0.
   no_string: "string" fits nothing (the first pass over a union). */
static int put_type(mcp_jw *w, const char *type, const char *word, int no_string)
{
    mcp_json_doc *doc;
    const mcp_json *v;
    mcp_json_type jt;
    int64_t i;
    int ok = 0;
    if (!strcmp(type, "string")) {
        if (!no_string) mcp_jw_str(w, word);
        return !no_string;
    }
    if (!(doc = mcp_json_parse(word, strlen(word), NULL))) return 0;
    v = mcp_json_root(doc);
    jt = mcp_json_typeof(v);
    if (!strcmp(type, "integer") && jt == MCP_JSON_NUMBER) {
        double x = mcp_json_num(v);
        ok = 1;
        if (mcp_json_int64(v, &i)) mcp_jw_int(w, i);
        else if (x > -9.2e18 && x < 9.2e18 && x == (double)(int64_t)x) mcp_jw_int(w, (int64_t)x);   /* 1e3 */
        else if (x <= -9.2e18 || x >= 9.2e18) mcp_jw_value(w, v);   /* that large, a double is whole */
        else ok = 0;                                                /* 2.5 */
    } else if (!strcmp(type, "number") && jt == MCP_JSON_NUMBER) {   /* as written: 1e3, 0.1 */
        size_t from = strspn(word, " \t\r\n"), to = strlen(word);
        while (to > from && strchr(" \t\r\n", word[to - 1])) to--;
        mcp_jw_raw(w, word + from, to - from);
        ok = 1;
    } else if ((!strcmp(type, "boolean") && jt == MCP_JSON_BOOL) ||
               (!strcmp(type, "null") && jt == MCP_JSON_NULL) || (!strcmp(type, "array") && jt == MCP_JSON_ARRAY) ||
               (!strcmp(type, "object") && jt == MCP_JSON_OBJECT)) {
        mcp_jw_value(w, v);
        ok = 1;
    }
    mcp_json_free(doc);
    return ok;
}

/* enum and const: the word is this value (a string compared as it is, others as JSON) */
static int put_choice(mcp_jw *w, const mcp_json *value, const char *word)
{
    mcp_json_doc *doc;
    int ok;
    if (mcp_json_str(value)) {
        if (strcmp(mcp_json_str(value), word)) return 0;
        mcp_jw_value(w, value);
        return 1;
    }
    doc = mcp_json_parse(word, strlen(word), NULL);
    if ((ok = doc && mcp_json_equal(mcp_json_root(doc), value)) != 0) mcp_jw_value(w, value);
    mcp_json_free(doc);
    return ok;
}

/* Writes the word as the schema s wants it: 1, or 0 (nothing written) if it does not fit.
   Unions (anyOf, oneOf, a list of types) try every choice but a plain string first. */
static int put_typed(mcp_jw *w, const mcp_json *root, const mcp_json *s, const char *word, int no_string, int depth)
{
    const mcp_json *v, *alts, *types;
    size_t i;
    int pass;
    if (depth > 16) return 0;
    s = follow_ref(root, s, NULL);
    if (mcp_json_typeof(s) != MCP_JSON_OBJECT) {   /* true, or a $ref to nowhere: anything */
        if (!no_string) { put_loose(w, word); return 1; }
        return put_type(w, "null", word, 1) || put_type(w, "number", word, 1) || put_type(w, "boolean", word, 1) ||
               put_type(w, "array", word, 1) || put_type(w, "object", word, 1);
    }
    if (mcp_json_is_true(mcp_json_get(s, "nullable")) && !strcmp(word, "null")) return mcp_jw_null(w) == MCP_OK;
    if ((v = mcp_json_get(s, "const")) != NULL) return put_choice(w, v, word);
    if ((v = mcp_json_get(s, "enum")) != NULL) {
        mcp_json_foreach(v, i, alts) if (put_choice(w, alts, word)) return 1;
        return 0;
    }
    alts = any_of(s);
    types = mcp_json_get(s, "type");
    if (alts || mcp_json_typeof(types) == MCP_JSON_ARRAY) {
        for (pass = 1; pass >= no_string; pass--)   /* 1: all but string; 0: string too */
            mcp_json_foreach(alts ? alts : types, i, v)
                if (alts ? put_typed(w, root, v, word, pass, depth + 1)
                         : put_type(w, mcp_json_str(v) ? mcp_json_str(v) : "", word, pass))
                    return 1;
        return 0;
    }
    if (mcp_json_str(types)) return put_type(w, mcp_json_str(types), word, no_string);
    if ((v = all_of(s)) != NULL) return put_typed(w, root, v, word, no_string, depth + 1);
    if (mcp_json_get(s, "properties")) return put_type(w, "object", word, no_string);
    return put_typed(w, root, NULL, word, no_string, depth + 1);        /* no type said: anything */
}

static const char *article(const char *type)   /* "an integer", "a string", "one of: ..." */
{
    if (!strncmp(type, "one of", 6) || type[0] == '"' || (type[0] >= '0' && type[0] <= '9')) return "";
    return strchr("aeiou", type[0]) ? "an " : "a ";
}

/* key=word does not fit the schema: which type would, and how arrays and objects are written */
static int bad_value(const char *tool, const char *key, size_t klen, const mcp_json *root, const mcp_json *prop,
                     const char *word)
{
    char type[256], hint[300] = "";
    type_name(type, sizeof type, root, prop, 0);
    if (strstr(type, "boolean")) cat(type, sizeof type, " (true or false)");
    if (!strncmp(type, "array", 5) || strstr(type, " or array"))
        snprintf(hint, sizeof hint, ", written in JSON: %.*s='[\"a\", \"b\"]'", (int)klen, key);
    else if (!strncmp(type, "object", 6) || strstr(type, " or object"))
        snprintf(hint, sizeof hint, ", written in JSON: %.*s='{\"k\": 1}'", (int)klen, key);
    return invalid("%.*s=%s does not fit the tool \"%s\": %.*s is %s%s%s", (int)klen, key, word, tool, (int)klen, key,
                   article(type), type, hint);
}

/* "a b [c]": the names of an input schema's properties or a prompt's arguments */
static void arg_names(char *out, size_t size, const mcp_json *schema, const mcp_json *prompt_args)
{
    const mcp_json *props = mcp_json_get(schema, "properties"), *req = mcp_json_get(schema, "required"), *v;
    size_t i, j, n = 0, count = prompt_args ? mcp_json_len(prompt_args) : mcp_json_len(props), klen;
    out[0] = 0;
    for (i = 0; i < count && n + 1 < size; i++) {
        const char *name;
        int required = 0;
        if (prompt_args) {
            name = str(mcp_json_at(prompt_args, i), "name"); klen = strlen(name);
            required = mcp_json_is_true(mcp_json_get(mcp_json_at(prompt_args, i), "required"));
        } else {
            name = mcp_json_key_at(props, i, &klen);
            mcp_json_foreach(req, j, v)
                if (mcp_json_len(v) == klen && !memcmp(mcp_json_str(v), name, klen)) required = 1;
        }
        n += (size_t)snprintf(out + n, size - n, required ? "%s%.*s" : "%s[%.*s]", n ? " " : "", (int)klen, name);
    }
    if (n >= size) strcpy(out + size - 4, "...");
}

/* One key=value word as JSON. ARGS_SCHEMA: typed by the input schema (NULL: the tool is not
   listed, so as given). */
static int put_arg(mcp_jw *w, int mode, const mcp_json *schema, const char *tool, const char *key, size_t klen,
                   const char *value)
{
    const mcp_json *top = follow_ref(schema, schema, NULL), *props = mcp_json_get(top, "properties"), *prop, *extra;
    char names[256] = "";
    size_t i, n;
    if (mode == ARGS_STRINGS) { mcp_jw_str(w, value); return RC_OK; }
    if (mode == ARGS_JSON || !schema) { put_loose(w, value); return RC_OK; }
    prop = mcp_json_getn(props, key, klen);
    extra = mcp_json_get(top, "additionalProperties");
    if (!prop && mcp_json_typeof(extra) == MCP_JSON_OBJECT) prop = extra;   /* a schema for any other key */
    if (!prop && (mcp_json_is_true(extra) || (!props && !extra))) {          /* any key is welcome */
        put_loose(w, value);
        return RC_OK;
    }
    if (!prop) {                            /* not listed, or additionalProperties: false */
        for (i = 0; i < mcp_json_len(props); i++) {
            const char *name = mcp_json_key_at(props, i, &n);
            cat(names, sizeof names, "%s%.*s", i ? ", " : "", (int)n, name);
        }
        warn("the tool \"%s\" has no argument %.*s (%s%s); it is sent as given", tool, (int)klen, key,
             *names ? "its arguments: " : "it takes none", names);
        put_loose(w, value);
        return RC_OK;
    }
    return put_typed(w, schema, prop, value, 0, 0) ? RC_OK : bad_value(tool, key, klen, schema, prop, value);
}

static int word_sets(const argspec *a, int from, const char *key, size_t klen)   /* a word from `from` on sets key */
{
    int k;
    for (k = from; k < a->n; k++)
        if (!strncmp(a->words[k], key, klen) && a->words[k][klen] == '=') return 1;
    return 0;
}

/* The arguments as a JSON object (mcp_free *out; NULL when there are none): the base object's
   members, then the words, a later word replacing an earlier one or a member. */
static int build_args(const argspec *a, int mode, const mcp_json *schema, const char *tool, char **out)
{
    const mcp_json *base = mcp_json_root(a->base), *v;
    mcp_jw w;
    mcp_error err;
    size_t i, klen;
    int k, rc;
    *out = NULL;
    if (!a->base && a->n == 0) return RC_OK;
    mcp_jw_init(&w, 0);
    mcp_jw_obj_begin(&w);
    mcp_json_foreach(base, i, v) {
        const char *key = mcp_json_key_at(base, i, &klen);
        if (word_sets(a, 0, key, klen)) continue;
        mcp_jw_keyn(&w, key, klen);
        mcp_jw_value(&w, v);
    }
    for (k = 0; k < a->n; k++) {
        klen = (size_t)(strchr(a->words[k], '=') - a->words[k]);
        if (word_sets(a, k + 1, a->words[k], klen)) continue;
        mcp_jw_keyn(&w, a->words[k], klen);
        if ((rc = put_arg(&w, mode, schema, tool, a->words[k], klen, a->words[k] + klen + 1)) != RC_OK) {
            mcp_jw_free(&w);
            return rc;
        }
    }
    mcp_jw_obj_end(&w);
    if (!(*out = mcp_jw_finish(&w, NULL, &err))) return invalid("bad arguments: %s", err.message);
    return RC_OK;
}

static int read_args_file(const char *path, mcp_json_doc **doc)   /* --args-file: a JSON object */
{
    const char *name = strcmp(path, "-") ? path : "stdin";
    FILE *f = strcmp(path, "-") ? fopen(path, "rb") : stdin;
    mcp_buf b;
    mcp_error err;
    char chunk[65536];
    size_t got;
    memset(&b, 0, sizeof b);
    if (!f) return invalid("cannot read the arguments file %s: %s", path, strerror(errno));
    while ((got = fread(chunk, 1, sizeof chunk, f)) > 0)
        if (mcp_buf_append(&b, chunk, got) != MCP_OK) break;
    if (f != stdin) fclose(f);
    *doc = mcp_json_parse(b.data ? b.data : "", b.len, &err);
    mcp_buf_free(&b);
    if (!*doc) return invalid("the arguments in %s are not valid JSON: %s", name, err.message);
    if (mcp_json_typeof(mcp_json_root(*doc)) != MCP_JSON_OBJECT) {
        mcp_json_free(*doc);
        *doc = NULL;
        return invalid("the arguments in %s must be a JSON object", name);
    }
    return RC_OK;
}

/* ARGS before connecting: --args-file, a JSON object, key=value words; checked, not yet typed */
static int parse_args(char **words, int n, argspec *a)
{
    mcp_error err;
    int i = 0, rc;
    if (opt.args_file && (rc = read_args_file(opt.args_file, &a->base)) != RC_OK) return rc;
    if (n > 0 && words[0][0] == '{') {
        if (a->base) return usage("give the arguments in --args-file or as a JSON object, not both");
        if (!(a->base = mcp_json_parse(words[0], strlen(words[0]), &err)))
            return usage("the arguments are not valid JSON: %s", err.message);
        if (mcp_json_typeof(mcp_json_root(a->base)) != MCP_JSON_OBJECT) return usage("the arguments must be a JSON object");
        i = 1;
    }
    a->words = words + i;
    a->n = n - i;
    for (; i < n; i++) {
        const char *eq = strchr(words[i], '=');
        if (!eq || eq == words[i])
            return usage("\"%s\" is not key=value (arguments are key=value words or one JSON object)", words[i]);
    }
    return RC_OK;
}

/* ---- printing what came back ----------------------------------------------------------------- */

static void print_text(FILE *f, const char *text)   /* ends with a newline */
{
    size_t n = strlen(text);
    fputs(text, f);
    if (n == 0 || text[n - 1] != '\n') fputc('\n', f);
}

/* One content item of a tool result or prompt message: text as text, the rest summarised. */
static void print_content(FILE *f, const mcp_json *item)
{
    const char *type = str(item, "type"), *mime = str(item, "mimeType");
    const mcp_json *res = mcp_json_get(item, "resource");
    if (!strcmp(type, "text")) {
        print_text(f, str(item, "text"));
    } else if (!strcmp(type, "image") || !strcmp(type, "audio")) {
        fprintf(f, "[%s, %lu bytes]\n", *mime ? mime : type, base64_bytes(str(item, "data")));
    } else if (!strcmp(type, "resource_link")) {
        fprintf(f, "[resource link] %s%s%s%s%s%s\n", str(item, "uri"), *str(item, "name") ? "  " : "",
                str(item, "name"), *mime ? " (" : "", mime, *mime ? ")" : "");
    } else if (!strcmp(type, "resource") && mcp_json_get(res, "text")) {
        fprintf(f, "[resource %s]\n", str(res, "uri"));
        print_text(f, str(res, "text"));
    } else if (!strcmp(type, "resource")) {
        fprintf(f, "[resource %s, %s, %lu bytes]\n", str(res, "uri"), *str(res, "mimeType") ? str(res, "mimeType") :
                "binary", base64_bytes(str(res, "blob")));
    } else {
        char *json = mcp_json_dump(item, 0, NULL);
        fprintf(f, "[%s content] %s\n", *type ? type : "unknown", json ? json : "");
        mcp_free(json);
    }
}

/* ---- tables: one row per item, the description wrapped --------------------------------------- */

#define NCELL 3
#define CELL_MAX 40                         /* columns; a wider cell wraps at its spaces */
typedef struct row { char cell[NCELL][256]; const char *text; } row;   /* text: the last column */
typedef void (*row_fn)(const mcp_json *item, row *r);

static void buf_line(mcp_buf *b, const char *s, size_t n)   /* tabs as spaces, no CR */
{
    size_t i;
    for (i = 0; i < n; i++)
        if (s[i] != '\r') mcp_buf_append(b, s[i] == '\t' ? " " : s + i, 1);
}

static void pad(mcp_buf *b, size_t n)
{
    while (n-- > 0) mcp_buf_append(b, " ", 1);
}

/* One item's row: as many lines as its longest cell takes. */
static void print_row(const row *r, const size_t *width, size_t avail)
{
    const char *pos[NCELL + 1], *next;
    mcp_buf line;
    size_t n, cols;
    int k, more;
    memset(&line, 0, sizeof line);
    for (k = 0; k < NCELL; k++) pos[k] = r->cell[k];
    pos[NCELL] = r->text;
    do {
        line.len = 0;
        for (k = 0; k <= NCELL; k++) {
            if (k < NCELL && !width[k]) continue;
            while (k == NCELL && pos[k] && (*pos[k] == '\n' || *pos[k] == '\r')) pos[k]++;   /* no blank lines */
            next = wrap_next(pos[k], k < NCELL ? width[k] : avail, k == NCELL, &n);
            cols = next ? text_cols(pos[k], n) : 0;
            if (next) buf_line(&line, pos[k], n);
            pos[k] = next;
            if (k < NCELL) pad(&line, (cols < width[k] ? width[k] - cols : 0) + 2);   /* to the next column */
        }
        while (line.len > 0 && line.data[line.len - 1] == ' ') line.len--;
        if (line.data) fwrite(line.data, 1, line.len, stdout);
        putchar('\n');
        for (more = 0, k = 0; k <= NCELL; k++) more |= pos[k] && *pos[k] && (k == NCELL || width[k]);
    } while (more);
    mcp_buf_free(&line);
}

/* An aligned table, empty columns left out; the last column wraps to the terminal's width
   (100 columns when stdout is not one). */
static void print_table(const mcp_json *items, row_fn fill, const char *none)
{
    size_t width[NCELL] = {0}, i, start = 0, avail, total = (size_t)term_width(), c;
    const mcp_json *item;
    row r;
    int k;
    if (mcp_json_len(items) == 0) { printf("(%s)\n", none); return; }
    mcp_json_foreach(items, i, item) {
        fill(item, &r);
        for (k = 0; k < NCELL; k++)
            if ((c = text_cols(r.cell[k], sizeof r.cell[k])) > width[k]) width[k] = c > CELL_MAX ? CELL_MAX : c;
    }
    for (;;) {                              /* a narrow terminal: the widest cell column gives */
        int widest = 0;
        for (start = 0, k = 0; k < NCELL; k++) {
            start += width[k] ? width[k] + 2 : 0;
            if (width[k] > width[widest]) widest = k;
        }
        if (start + 30 <= total || width[widest] <= 12) break;
        width[widest]--;
    }
    avail = total > start + 30 ? total - start : 30;
    mcp_json_foreach(items, i, item) {
        fill(item, &r);
        print_row(&r, width, avail);
    }
}

static void tool_row(const mcp_json *t, row *r)
{
    snprintf(r->cell[0], sizeof r->cell[0], "%s", str(t, "name"));
    arg_names(r->cell[1], sizeof r->cell[1], mcp_json_get(t, "inputSchema"), NULL);
    r->cell[2][0] = 0;
    r->text = str(t, "description");
}

static void prompt_row(const mcp_json *p, row *r)
{
    snprintf(r->cell[0], sizeof r->cell[0], "%s", str(p, "name"));
    arg_names(r->cell[1], sizeof r->cell[1], NULL, mcp_json_get(p, "arguments"));
    r->cell[2][0] = 0;
    r->text = str(p, "description");
}

static void resource_row(const mcp_json *res, row *r)
{
    snprintf(r->cell[0], sizeof r->cell[0], "%s", *str(res, "uri") ? str(res, "uri") : str(res, "uriTemplate"));
    snprintf(r->cell[1], sizeof r->cell[1], "%s", str(res, "name"));
    snprintf(r->cell[2], sizeof r->cell[2], "%s", str(res, "mimeType"));
    r->text = str(res, "description");
}

/* ---- one tool in full ------------------------------------------------------------------------ */

static int is_required(const mcp_json *schema, const char *key, size_t klen)
{
    const mcp_json *v;
    size_t i;
    mcp_json_foreach(mcp_json_get(schema, "required"), i, v)
        if (mcp_json_len(v) == klen && mcp_json_str(v) && !memcmp(mcp_json_str(v), key, klen)) return 1;
    return 0;
}

/* "integer, required, default 30, minimum 5" */
static void describe_prop(char *out, size_t size, const mcp_json *root, const mcp_json *prop, int required)
{
    static const char *const limits[] = { "minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum",
                                          "minLength", "maxLength", "minItems", "maxItems", "pattern" };
    const mcp_json *s = follow_ref(root, prop, NULL), *v;
    size_t k;
    char *json;
    type_name(out, size, root, prop, 0);
    if (required) cat(out, size, ", required");
    if ((v = mcp_json_get(prop, "default")) != NULL || (v = mcp_json_get(s, "default")) != NULL) {
        json = mcp_json_dump(v, 0, NULL);
        cat(out, size, ", default %s", json ? json : "?");
        mcp_free(json);
    }
    for (k = 0; k < sizeof limits / sizeof limits[0]; k++)
        if ((v = mcp_json_get(s, limits[k])) != NULL) {
            json = mcp_json_dump(v, 0, NULL);
            cat(out, size, ", %s %s", limits[k], json ? json : "?");
            mcp_free(json);
        }
    if (mcp_json_is_true(mcp_json_get(s, "deprecated"))) cat(out, size, ", deprecated");
}

/* The object schema's properties, one a line, each description under its type; properties of
   an object (or of an array's items) nested below, up to 3 deep. */
static void print_props(const mcp_json *root, const mcp_json *schema, int indent, int depth)
{
    const mcp_json *s = follow_ref(root, schema, NULL), *props, *p, *inner;
    size_t i, klen, width = 0;
    char text[512];
    if (!mcp_json_get(s, "properties") && all_of(s)) s = follow_ref(root, all_of(s), NULL);
    props = mcp_json_get(s, "properties");
    for (i = 0; i < mcp_json_len(props); i++)
        if (mcp_json_key_at(props, i, &klen) && klen > width) width = klen > 24 ? 24 : klen;
    mcp_json_foreach(props, i, p) {
        const char *key = mcp_json_key_at(props, i, &klen), *about = str(p, "description");
        int col = indent + (int)(klen > width ? klen : width) + 2;
        describe_prop(text, sizeof text, root, p, is_required(s, key, klen));
        printf("%*s%-*.*s  ", indent, "", (int)width, (int)klen, key);
        print_wrapped(text, (size_t)col, (size_t)(indent + (int)width + 2));
        if (!*about) about = str(follow_ref(root, p, NULL), "description");
        if (*about) {
            printf("%*s", indent + (int)width + 2, "");
            print_wrapped(about, (size_t)(indent + (int)width + 2), (size_t)(indent + (int)width + 2));
        }
        inner = follow_ref(root, p, NULL);
        if (!mcp_json_get(inner, "properties") && mcp_json_get(inner, "items")) inner = follow_ref(root, mcp_json_get(inner, "items"), NULL);
        if (depth < 3 && mcp_json_len(mcp_json_get(inner, "properties")) > 0) print_props(root, inner, indent + 4, depth + 1);
    }
}

static void print_tool(const mcp_json *t)
{
    const mcp_json *in = mcp_json_get(t, "inputSchema"), *out = mcp_json_get(t, "outputSchema");
    const mcp_json *ann = mcp_json_get(t, "annotations"), *v;
    const char *title = *str(t, "title") ? str(t, "title") : str(ann, "title");
    char text[256];
    size_t i, klen;
    int n = 0;
    printf("tool:          %s%s%s%s\n", str(t, "name"), *title ? " (" : "", title, *title ? ")" : "");
    if (*str(t, "description")) { printf("description:   "); print_wrapped(str(t, "description"), 15, 15); }
    if (mcp_json_len(mcp_json_get(follow_ref(in, in, NULL), "properties")) == 0) printf("arguments:     (none)\n");
    else { printf("arguments:\n"); print_props(in, in, 2, 0); }
    if (out && mcp_json_len(mcp_json_get(follow_ref(out, out, NULL), "properties")) == 0) {
        type_name(text, sizeof text, out, out, 0);
        printf("output:        %s\n", text);
    } else if (out) {
        printf("output:\n");
        print_props(out, out, 2, 0);
    }
    mcp_json_foreach(ann, i, v)             /* readOnlyHint: true, ... (the title is shown above) */
        if (!key_is(ann, i, "title")) {
            const char *key = mcp_json_key_at(ann, i, &klen);
            char *json = mcp_json_dump(v, 0, NULL);
            printf("%s%.*s: %s", n++ ? ", " : "annotations:   ", (int)klen, key, json ? json : "?");
            mcp_free(json);
        }
    if (n) putchar('\n');
}

/* ---- the commands ---------------------------------------------------------------------------- */

static const char *config_server, *config_file;   /* --server: the entry run, and its file */
static int config_line;

static int is_modern(void)                  /* 2026-07-28 or later: the stateless era */
{
    const char *v = mcp_client_protocol_version(client);
    return v && strcmp(v, "2026-07-28") >= 0;
}

static void print_command(void)             /* the stdio server's command line, words quoted */
{
    size_t i;
    printf("%s", desc.command);
    for (i = 0; desc.args[i]; i++)
        printf(strpbrk(desc.args[i], " \t'\"\\$*?;&|<>()") || !*desc.args[i] ? " '%s'" : " %s", desc.args[i]);
}

static void info_json(void)
{
    const char *instr = mcp_client_instructions(client), *why = NULL;
    mcp_transport_kind kind = mcp_client_transport(client, &why);
    mcp_jw w;
    char *text;
    size_t i;
    mcp_jw_init(&w, opt.pretty);
    mcp_jw_obj_begin(&w);
    mcp_jw_key(&w, "protocolVersion"); mcp_jw_str(&w, mcp_client_protocol_version(client));
    mcp_jw_key(&w, "serverInfo"); mcp_jw_value(&w, mcp_client_server_info(client));
    mcp_jw_key(&w, "capabilities"); mcp_jw_value(&w, mcp_client_server_capabilities(client));
    if (instr) { mcp_jw_key(&w, "instructions"); mcp_jw_str(&w, instr); }
    mcp_jw_key(&w, "transport"); mcp_jw_obj_begin(&w);
    mcp_jw_key(&w, "type"); mcp_jw_str(&w, kind == MCP_STDIO ? "stdio" : kind == MCP_SSE ? "http+sse" : "streamable-http");
    if (kind == MCP_STDIO) {
        mcp_jw_key(&w, "command"); mcp_jw_arr_begin(&w);
        jw_text(&w, desc.command);
        for (i = 0; desc.args[i]; i++) jw_text(&w, desc.args[i]);
        mcp_jw_arr_end(&w);
    } else {
        mcp_jw_key(&w, "url"); jw_text(&w, desc.url);
    }
    if (why) { mcp_jw_key(&w, "fallback"); mcp_jw_str(&w, why); }
    mcp_jw_obj_end(&w);
    if (config_server) {
        mcp_jw_key(&w, "config"); mcp_jw_obj_begin(&w);
        mcp_jw_key(&w, "server"); jw_text(&w, config_server);
        mcp_jw_key(&w, "file"); jw_text(&w, config_file);
        mcp_jw_key(&w, "line"); mcp_jw_int(&w, config_line);
        mcp_jw_obj_end(&w);
    }
    mcp_jw_obj_end(&w);
    if ((text = mcp_jw_finish(&w, NULL, NULL)) != NULL) puts(text);
    mcp_free(text);
}

static int cmd_info(char **a, int n, const argspec *args)
{
    const mcp_json *info = mcp_client_server_info(client), *caps = mcp_client_server_capabilities(client), *v, *f;
    const char *instr = mcp_client_instructions(client), *why = NULL;
    mcp_transport_kind kind = mcp_client_transport(client, &why);
    size_t i, j, klen, flen;
    (void)a; (void)n; (void)args;
    if (opt.json) { info_json(); return RC_OK; }
    printf("server:        %s %s", str(info, "name"), str(info, "version"));
    if (*str(info, "title")) printf(" (%s)", str(info, "title"));
    printf("\nprotocol:      %s\n", mcp_client_protocol_version(client));
    if (kind == MCP_STDIO) {
        printf("transport:     stdio: ");
        print_command();
        putchar('\n');
    } else {                                /* what was used: a URL may have fallen back */
        printf("transport:     %s%s%s%s %s\n", kind == MCP_SSE ? "HTTP+SSE" : "Streamable HTTP",
               why ? " (fallback: " : "", why ? why : "", why ? ")" : "", desc.url);
    }
    if (config_server) printf("config:        %s, %s:%d\n", config_server, config_file, config_line);
    printf("capabilities: ");
    mcp_json_foreach(caps, i, v) {          /* tools, resources (subscribe, listChanged), ... */
        const char *key = mcp_json_key_at(caps, i, &klen);
        int open = 0;
        printf("%s %.*s", i ? "," : "", (int)klen, key);
        mcp_json_foreach(v, j, f)
            if (mcp_json_is_true(f)) {
                const char *flag = mcp_json_key_at(v, j, &flen);
                printf("%s%.*s", open++ ? ", " : " (", (int)flen, flag);
            }
        if (open) putchar(')');
    }
    if (mcp_json_len(caps) == 0) printf(" (none)");
    putchar('\n');
    if (instr) { printf("instructions:  "); print_wrapped(instr, 15, 15); }
    return RC_OK;
}

static int cmd_list(const char *method, const char *key, row_fn fill, const char *none)
{
    mcp_json_doc *doc = NULL;
    mcp_error err;
    if (list_all(method, key, &doc, &err) != MCP_OK) return fail(&err);
    if (opt.json) print_json(mcp_json_root(doc));
    else print_table(mcp_json_get(mcp_json_root(doc), key), fill, none);
    mcp_json_free(doc);
    return RC_OK;
}

static int no_tool(const mcp_json_doc *tools, const char *name)
{
    char names[400] = "";
    const mcp_json *t;
    size_t i;
    mcp_json_foreach(mcp_json_get(mcp_json_root(tools), "tools"), i, t) cat(names, sizeof names, "%s%s", i ? ", " : "", str(t, "name"));
    return invalid("the server has no tool \"%s\"; its tools: %s", name, *names ? names : "none");
}

static int cmd_tools(char **a, int n, const argspec *args)
{
    mcp_json_doc *doc = NULL;
    const mcp_json *t;
    mcp_error err;
    int rc = RC_OK;
    (void)args;
    if (n == 0) return cmd_list("tools/list", "tools", tool_row, "no tools");
    if (list_all("tools/list", "tools", &doc, &err) != MCP_OK) return fail(&err);
    if (!(t = find_tool(doc, a[0]))) rc = no_tool(doc, a[0]);
    else if (opt.json) print_json(t);
    else print_tool(t);
    mcp_json_free(doc);
    return rc;
}

static int cmd_resources(char **a, int n, const argspec *args)
{ (void)a; (void)n; (void)args; return cmd_list("resources/list", "resources", resource_row, "no resources"); }
static int cmd_templates(char **a, int n, const argspec *args)
{ (void)a; (void)n; (void)args; return cmd_list("resources/templates/list", "resourceTemplates", resource_row, "no resource templates"); }
static int cmd_prompts(char **a, int n, const argspec *args)
{ (void)a; (void)n; (void)args; return cmd_list("prompts/list", "prompts", prompt_row, "no prompts"); }

/* key=value words of call need the tool's inputSchema: tools/list, then the tool's entry */
static int call_args(const char *tool, const argspec *args, char **json)
{
    mcp_json_doc *tools = NULL;
    const mcp_json *schema = NULL;
    mcp_error err;
    int rc;
    if (args->n > 0) {
        if (list_all("tools/list", "tools", &tools, &err) == MCP_OK)
            schema = mcp_json_get(find_tool(tools, tool), "inputSchema");
        else if (err.status == MCP_ERR_CANCELLED || err.status == MCP_ERR_CLOSED || err.status == MCP_ERR_TIMEOUT)
            return fail(&err);
        else if (err.status != MCP_ERR_INVALID)     /* (no tools capability: the call says so) */
            warn("could not read the tool's input schema (%s); the arguments are sent as given", err.message);
    }
    rc = build_args(args, ARGS_SCHEMA, schema, tool, json);
    mcp_json_free(tools);
    return rc;
}

/* What a tools/call answered (doc freed here): its content, or the result as JSON; status 5
   when the tool reported an error. */
static int print_call_result(const char *tool, mcp_json_doc *doc)
{
    const mcp_json *r = mcp_json_root(doc), *item;
    mcp_error err;
    size_t i;
    int is_error = mcp_json_is_true(mcp_json_get(r, "isError"));
    end_progress();
    if (opt.json) {
        print_json(r);
        if (is_error) {                     /* and the error object on stderr, as for any failure */
            const char *text = str(mcp_json_at(mcp_json_get(r, "content"), 0), "text");
            memset(&err, 0, sizeof err);
            snprintf(err.message, sizeof err.message, "the tool \"%s\" reported an error%s%s", tool, *text ? ": " : "", text);
            report(&err, RC_TOOL);
        }
    } else {
        if (is_error) fprintf(stderr, "mcpc: the tool \"%s\" reported an error:\n", tool);
        mcp_json_foreach(mcp_json_get(r, "content"), i, item) print_content(is_error ? stderr : stdout, item);
        if (mcp_json_len(mcp_json_get(r, "content")) == 0 && mcp_json_get(r, "structuredContent"))
            print_json(mcp_json_get(r, "structuredContent"));
    }
    mcp_json_free(doc);
    return is_error ? RC_TOOL : RC_OK;
}

static int cmd_call(char **a, int n, const argspec *args)
{
    mcp_json_doc *doc = NULL;
    mcp_error err;
    mcp_call_opts o;
    mcp_call *call;
    char *json = NULL;
    int rc;
    (void)n;
    if ((rc = call_args(a[0], args, &json)) != RC_OK) return rc;
    tool_opts(&o, a[0]);
    call = mcp_client_send_tool(client, a[0], json, &o, &err);
    mcp_free(json);
    if (!call || wait_for(call, &doc, &err) != MCP_OK) return fail(&err);
    return print_call_result(a[0], doc);
}

static void print_read_result(mcp_json_doc *doc)   /* resources/read's contents (doc freed here) */
{
    const mcp_json *contents = mcp_json_get(mcp_json_root(doc), "contents"), *c;
    size_t i;
    if (opt.json) print_json(mcp_json_root(doc));
    else mcp_json_foreach(contents, i, c) {
        if (mcp_json_len(contents) > 1) printf("--- %s%s%s\n", str(c, "uri"), *str(c, "mimeType") ? " " : "", str(c, "mimeType"));
        if (mcp_json_get(c, "text")) print_text(stdout, str(c, "text"));
        else printf("[%s, %lu bytes]\n", *str(c, "mimeType") ? str(c, "mimeType") : "binary", base64_bytes(str(c, "blob")));
    }
    mcp_json_free(doc);
}

static int cmd_read(char **a, int n, const argspec *args)
{
    mcp_json_doc *doc = NULL;
    mcp_error err;
    mcp_status st;
    char *params = params1("uri", a[0]);
    (void)n; (void)args;
    st = request("resources/read", params, NULL, &doc, &err);
    mcp_free(params);
    if (st != MCP_OK) return fail(&err);
    print_read_result(doc);
    return RC_OK;
}

/* prompts/get's params, {"name", "arguments"} (mcp_free *params): RC_OK or a usage error */
static int prompt_params(const char *name, const argspec *args, char **params)
{
    mcp_jw w;
    char *json = NULL;
    int rc;
    *params = NULL;
    if ((rc = build_args(args, ARGS_STRINGS, NULL, name, &json)) != RC_OK) return rc;   /* MCP: strings */
    mcp_jw_init(&w, 0);
    mcp_jw_obj_begin(&w);
    mcp_jw_key(&w, "name"); mcp_jw_str(&w, name);
    if (json) { mcp_jw_key(&w, "arguments"); mcp_jw_raw(&w, json, strlen(json)); }
    mcp_jw_obj_end(&w);
    mcp_free(json);
    *params = mcp_jw_finish(&w, NULL, NULL);
    return RC_OK;
}

static void print_prompt_result(mcp_json_doc *doc)   /* prompts/get's messages (doc freed here) */
{
    const mcp_json *m;
    size_t i;
    if (opt.json) print_json(mcp_json_root(doc));
    else {
        if (*str(mcp_json_root(doc), "description")) printf("(%s)\n", str(mcp_json_root(doc), "description"));
        mcp_json_foreach(mcp_json_get(mcp_json_root(doc), "messages"), i, m) {
            printf("%s: ", str(m, "role"));
            print_content(stdout, mcp_json_get(m, "content"));
        }
    }
    mcp_json_free(doc);
}

static int cmd_prompt(char **a, int n, const argspec *args)
{
    mcp_json_doc *doc = NULL;
    mcp_error err;
    mcp_status st;
    char *params;
    int rc;
    (void)n;
    if ((rc = prompt_params(a[0], args, &params)) != RC_OK) return rc;
    st = request("prompts/get", params, NULL, &doc, &err);
    mcp_free(params);
    if (st != MCP_OK) return fail(&err);
    print_prompt_result(doc);
    return RC_OK;
}

/* complete prompt NAME ARG [VALUE [k=v ...]]: the words after VALUE are context.arguments */
static char *complete_params(char **a, int n, const char *context)
{
    mcp_jw w;
    int prompt = !strcmp(a[0], "prompt");
    mcp_jw_init(&w, 0);
    mcp_jw_obj_begin(&w);
    mcp_jw_key(&w, "ref"); mcp_jw_obj_begin(&w);
    mcp_jw_key(&w, "type"); mcp_jw_str(&w, prompt ? "ref/prompt" : "ref/resource");
    mcp_jw_key(&w, prompt ? "name" : "uri"); mcp_jw_str(&w, a[1]);
    mcp_jw_obj_end(&w);
    mcp_jw_key(&w, "argument"); mcp_jw_obj_begin(&w);
    mcp_jw_key(&w, "name"); mcp_jw_str(&w, a[2]);
    mcp_jw_key(&w, "value"); mcp_jw_str(&w, n > 3 ? a[3] : "");
    mcp_jw_obj_end(&w);
    if (context) { mcp_jw_key(&w, "context"); mcp_jw_obj_begin(&w); mcp_jw_key(&w, "arguments"); mcp_jw_raw(&w, context, strlen(context)); mcp_jw_obj_end(&w); }
    mcp_jw_obj_end(&w);
    return mcp_jw_finish(&w, NULL, NULL);
}

static int cmd_complete(char **a, int n, const argspec *args)
{
    mcp_json_doc *doc = NULL;
    mcp_error err;
    const mcp_json *c, *v;
    size_t i;
    mcp_status st;
    char *params, *context = NULL;
    int rc;
    if ((rc = build_args(args, ARGS_STRINGS, NULL, a[1], &context)) != RC_OK) return rc;
    params = complete_params(a, n, context);
    mcp_free(context);
    st = request("completion/complete", params, NULL, &doc, &err);
    mcp_free(params);
    if (st != MCP_OK) return fail(&err);
    c = mcp_json_get(mcp_json_root(doc), "completion");
    if (opt.json) print_json(mcp_json_root(doc));
    else {
        mcp_json_foreach(mcp_json_get(c, "values"), i, v) printf("%s\n", mcp_json_str(v));
        if (mcp_json_is_true(mcp_json_get(c, "hasMore"))) printf("(more: %g in all)\n", mcp_json_num(mcp_json_get(c, "total")));
    }
    mcp_json_free(doc);
    return RC_OK;
}

static int cmd_tasks(char **a, int n, const argspec *args)
{
    mcp_json_doc *doc = NULL;
    mcp_error err;
    const mcp_json *tasks, *t;
    size_t i;
    (void)a; (void)n; (void)args;
    if (mcp_client_list_tasks(client, &doc, &err) != MCP_OK) return fail(&err);
    tasks = mcp_json_get(mcp_json_root(doc), "tasks");
    if (opt.json) print_json(mcp_json_root(doc));
    else if (!mcp_json_len(tasks)) printf("no tasks\n");
    else mcp_json_foreach(tasks, i, t)
        printf("%s  %s%s%s%s%s\n", str(t, "taskId"), str(t, "status"), *str(t, "createdAt") ? "  " : "",
               str(t, "createdAt"), *str(t, "statusMessage") ? "  " : "", str(t, "statusMessage"));
    mcp_json_free(doc);
    return RC_OK;
}

static int cmd_ping(char **a, int n, const argspec *args)
{
    mcp_json_doc *doc = NULL;
    mcp_error err;
    int64_t t0 = mcp_time_ms();
    (void)a; (void)n; (void)args;
    /* 2026-07-28 has no ping: server/discover is its cheapest question (as mcp_client_ping) */
    if (request(is_modern() ? "server/discover" : "ping", NULL, NULL, &doc, &err) != MCP_OK) return fail(&err);
    if (opt.json) printf("{\"ms\":%lld}\n", (long long)(mcp_time_ms() - t0));
    else printf("pong (%lld ms)\n", (long long)(mcp_time_ms() - t0));
    mcp_json_free(doc);
    return RC_OK;
}

static int cmd_request(char **a, int n, const argspec *args)
{
    mcp_json_doc *doc = NULL;
    mcp_error err;
    char *json = NULL;
    mcp_status st;
    int rc;
    (void)n;
    if ((rc = build_args(args, ARGS_JSON, NULL, NULL, &json)) != RC_OK) return rc;
    st = request(a[0], json, a[0], &doc, &err);
    mcp_free(json);
    if (st != MCP_OK) return fail(&err);
    end_progress();
    print_json(mcp_json_root(doc));
    mcp_json_free(doc);
    return RC_OK;
}

/* ---- watch ----------------------------------------------------------------------------------- */

/* 2026-07-28: one subscriptions/listen for every change the server's capabilities offer, and
   the URIs. NULL with err->status MCP_OK when there is nothing to listen for. */
static mcp_call *listen_all(char **uris, int n, mcp_error *err)
{
    static const char *const offers[][2] = { { "tools", "toolsListChanged" }, { "prompts", "promptsListChanged" },
                                             { "resources", "resourcesListChanged" } };
    const mcp_json *caps = mcp_client_server_capabilities(client);
    mcp_call *sub = NULL;
    mcp_jw w;
    char *filter;
    int i, any = n > 0;
    size_t k;
    memset(err, 0, sizeof *err);
    mcp_jw_init(&w, 0);
    mcp_jw_obj_begin(&w);
    for (k = 0; k < sizeof offers / sizeof offers[0]; k++)
        if (mcp_json_is_true(mcp_json_get(mcp_json_get(caps, offers[k][0]), "listChanged"))) {
            mcp_jw_key(&w, offers[k][1]); mcp_jw_bool(&w, 1);
            any = 1;
        }
    if (n > 0) {
        mcp_jw_key(&w, "resourceSubscriptions"); mcp_jw_arr_begin(&w);
        for (i = 0; i < n; i++) mcp_jw_str(&w, uris[i]);
        mcp_jw_arr_end(&w);
    }
    mcp_jw_obj_end(&w);
    filter = mcp_jw_finish(&w, NULL, NULL);
    if (!any) warn("the server offers no change notifications (no listChanged capability) and no URI was given: "
                   "there is nothing to listen for");
    else sub = mcp_client_listen(client, filter, NULL, err);
    mcp_free(filter);
    return sub;
}

static int closed(void)                     /* the connection ended: why, from on_close */
{
    mcp_error err = closed_why;
    if (err.status == MCP_OK) {
        err.status = MCP_ERR_CLOSED;
        snprintf(err.message, sizeof err.message, "Transport closed");
    }
    return fail(&err);
}

static int listen_ended(mcp_call *sub)      /* the server ended the subscription */
{
    mcp_json_doc *doc = NULL;
    mcp_error err;
    if (mcp_call_result(sub, &doc, &err) != MCP_OK) return fail(&err);
    mcp_json_free(doc);
    warn("the server ended the subscription");
    return RC_OK;
}

static int cmd_watch(char **a, int n, const argspec *args)
{
    mcp_call *sub = NULL;
    mcp_json_doc *doc = NULL;
    mcp_error err;
    int64_t end = opt.watch_ms > 0 ? mcp_time_ms() + opt.watch_ms : -1, left;
    int i, rc = RC_OK;
    char *params;
    (void)args;
    if (is_modern()) {
        if (!(sub = listen_all(a, n, &err)) && err.status != MCP_OK) return fail(&err);
    } else {
        for (i = 0; i < n; i++) {           /* legacy: resources/subscribe each URI */
            mcp_status st = request("resources/subscribe", params = params1("uri", a[i]), NULL, &doc, &err);
            mcp_free(params);
            mcp_json_free(doc);
            doc = NULL;
            if (st != MCP_OK) return fail(&err);
        }
    }
    watching = 1;
    if (!opt.json && isatty(2))
        fprintf(stderr, "mcpc: watching %s; Ctrl-C stops\n", str(mcp_client_server_info(client), "name"));
    while (!interrupted && (end < 0 || (left = end - mcp_time_ms()) > 0)) {
        if (mcp_client_poll(client, end < 0 || left > 100 ? 100 : (int)left) == MCP_ERR_CLOSED) { rc = closed(); break; }
        if (sub && mcp_call_status(sub) != MCP_AGAIN) { rc = listen_ended(sub); break; }
    }
    watching = 0;
    if (interrupted) abandon = 1;           /* Ctrl-C ends a watch: no need to wait politely */
    mcp_call_free(sub);                     /* ends the subscription if it is still open */
    return rc;
}

typedef int (*cmd_fn)(char **a, int n, const argspec *args);
static const struct command {
    const char *name, *syntax;
    int min, max;                /* words after the command; max -1: no limit */
    int args_at;                 /* ARGS start at this word (-1: none) */
    cmd_fn run;
} COMMANDS[] = {
    { "info", "info", 0, 0, -1, cmd_info },
    { "tools", "tools [NAME]", 0, 1, -1, cmd_tools },
    { "call", "call TOOL [ARGS]", 1, -1, 1, cmd_call },
    { "resources", "resources", 0, 0, -1, cmd_resources },
    { "templates", "templates", 0, 0, -1, cmd_templates },
    { "read", "read URI", 1, 1, -1, cmd_read },
    { "prompts", "prompts", 0, 0, -1, cmd_prompts },
    { "prompt", "prompt NAME [ARGS]", 1, -1, 1, cmd_prompt },
    { "complete", "complete prompt NAME ARG [VALUE [ARGS]] | complete resource URI ARG [VALUE [ARGS]]", 3, -1, 4,
      cmd_complete },
    { "tasks", "tasks", 0, 0, -1, cmd_tasks },
    { "ping", "ping", 0, 0, -1, cmd_ping },
    { "request", "request METHOD [ARGS]", 1, -1, 1, cmd_request },
    { "watch", "watch [URI...]", 0, -1, -1, cmd_watch },
};

/* ---- callbacks: what the server sends on its own, -v ----------------------------------------- */

static void print_clock(FILE *f)            /* 12:03:04.123, for watch */
{
    struct timespec ts;
    struct tm tm;
    char hms[16];
    clock_gettime(CLOCK_REALTIME, &ts);
    localtime_r(&ts.tv_sec, &tm);
    strftime(hms, sizeof hms, "%H:%M:%S", &tm);
    fprintf(f, "%s.%03ld ", hms, (long)(ts.tv_nsec / 1000000));
}

/* A notification: with --json {"method", "params"}; else a log message as "[level] logger: text"
   and anything else as its method and params. server: the config's name for the server that
   sent it (config mode without --server), else NULL. */
static void show_notification(FILE *f, const char *server, const char *method, const mcp_json *params)
{
    mcp_jw w;
    char *json;
    end_progress();
    if (opt.json) {
        mcp_jw_init(&w, 0);
        mcp_jw_obj_begin(&w);
        if (server) { mcp_jw_key(&w, "server"); jw_text(&w, server); }
        mcp_jw_key(&w, "method"); mcp_jw_str(&w, method);
        if (params) { mcp_jw_key(&w, "params"); mcp_jw_value(&w, params); }
        mcp_jw_obj_end(&w);
        json_line(f, &w);
        return;
    }
    if (watching) print_clock(f);
    if (server) fprintf(f, "%s: ", server);
    if (!strcmp(method, "notifications/message")) {
        const mcp_json *data = mcp_json_get(params, "data");
        json = mcp_json_typeof(data) == MCP_JSON_STRING ? NULL : mcp_json_dump(data, 0, NULL);
        fprintf(f, "[%s] %s%s%s\n", str(params, "level"), str(params, "logger"),
                *str(params, "logger") ? ": " : "", json ? json : mcp_json_str(data));
    } else {
        json = dump_without_meta(params);
        fprintf(f, "%s%s%s%s\n", watching ? "" : "mcpc: notification ", method, json ? " " : "", json ? json : "");
    }
    mcp_free(json);
    fflush(f);
}

static void on_notification(void *user, mcp_client *c, const char *method, const mcp_json *params)
{
    int log = !strcmp(method, "notifications/message");
    (void)user; (void)c;
    if (watching) show_notification(stdout, NULL, method, params);   /* everything, on stdout */
    else if (strcmp(method, "notifications/progress") && (opt.verbose || (log && opt.log_level)))
        show_notification(stderr, NULL, method, params);            /* progress: on_progress */
}

static void on_stderr(void *user, mcp_client *c, const char *line, size_t len)
{
    mcp_jw w;
    (void)user; (void)c;
    end_progress();
    if (!opt.json) { fprintf(stderr, "[server stderr] %.*s\n", (int)len, line); return; }
    mcp_jw_init(&w, 0);
    mcp_jw_obj_begin(&w); mcp_jw_key(&w, "stderr");
    {
        char *copy = (char *)malloc(len + 1);       /* jw_text wants a C string */
        if (copy) { memcpy(copy, line, len); copy[len] = 0; jw_text(&w, copy); free(copy); }
        else mcp_jw_str(&w, "");
    }
    mcp_jw_obj_end(&w);
    json_line(stderr, &w);
}

static void on_log(void *user, mcp_client *c, const char *message)
{
    mcp_jw w;
    (void)user; (void)c;
    end_progress();
    if (!opt.json) { fprintf(stderr, "mcpc: %s\n", message); return; }
    mcp_jw_init(&w, 0);
    mcp_jw_obj_begin(&w); mcp_jw_key(&w, "log"); jw_text(&w, message); mcp_jw_obj_end(&w);
    json_line(stderr, &w);
}

static void on_close(void *user, mcp_client *c, const mcp_error *why)
{
    (void)user; (void)c;
    if (why) closed_why = *why;
}

/* ---- the command line ------------------------------------------------------------------------ */

static const char *const LEVELS[] = { "debug", "info", "notice", "warning", "error", "critical", "alert",
                                      "emergency", NULL };
static mcp_error parse_err;                 /* the first bad option, reported once all are read
                                               (so that a later --json still applies to it) */
static char **split_words_v, *split_buf;    /* a quoted server command, split */
static int dashdash;                        /* the server's arguments ended with -- */
static const char **server_argv;            /* desc.args when they are put together here */

static int bad_option(const char *fmt, ...)
{
    va_list ap;
    if (parse_err.status == MCP_OK) {
        parse_err.status = MCP_ERR_INVALID;
        va_start(ap, fmt);
        vsnprintf(parse_err.message, sizeof parse_err.message, fmt, ap);
        va_end(ap);
    }
    return -1;
}

static int parse_ms(const char *val, long *ms)   /* 1500, 1500ms, 2s, 1m */
{
    char *end;
    long n = strtol(val, &end, 10), unit = !strcmp(end, "s") ? 1000 : !strcmp(end, "m") ? 60000 : 1;
    if (end == val || n < 0 || (*end && strcmp(end, "ms") && unit == 1) || n > 0x7FFFFFFF / unit) return 0;
    *ms = n * unit;
    return 1;
}

static void print_version(void)
{
    printf("mcpc, on mcp.h %s\n", MCP_VERSION);
#ifdef MCPC_OPENSSL
    printf("https: yes (%s)\n", OpenSSL_version(OPENSSL_VERSION));
#else
    printf("https: no (built without OpenSSL: install libssl-dev, or openssl-devel, and rebuild with make)\n");
#endif
}

/* An option that takes a value, set from val: 1, or -1 if val is wrong. */
static int set_option(const char *name, const char *val)
{
    long ms;
    int k;
    if (!strcmp(name, "-H") || !strcmp(name, "--header")) {
        if (opt.nheaders == 63) return bad_option("too many headers");
        opt.headers[opt.nheaders++] = val;
    } else if (!strcmp(name, "-e") || !strcmp(name, "--env")) {
        if (!strchr(val, '=') || val[0] == '=') return bad_option("-e needs KEY=VALUE, not \"%s\"", val);
        if (opt.nenv == 63) return bad_option("too many -e");
        opt.env[opt.nenv++] = val;
    } else if (!strcmp(name, "--sse")) opt.sse = val;
    else if (!strcmp(name, "--cacert")) opt.cacert = val;
    else if (!strcmp(name, "--args-file")) opt.args_file = val;
    else if (!strcmp(name, "--config")) {
        if (opt.nconfigs == 32) return bad_option("too many --config");
        opt.configs[opt.nconfigs++] = val;
    } else if (!strcmp(name, "--server")) {
        if (!*val) return bad_option("--server needs a server's name");
        opt.server = val;
    }
    else if (!strcmp(name, "--auth-port")) {
        char *end;
        unsigned long p = strtoul(val, &end, 10);
        if (*end || !*val || p > 65535) return bad_option("--auth-port needs a port number, not \"%s\"", val);
        opt.auth_port = (unsigned)p;
    }
    else if (!strcmp(name, "-t") || !strcmp(name, "--timeout")) {
        if (!parse_ms(val, &ms) || strpbrk(val, "sm")) return bad_option("--timeout needs milliseconds, not \"%s\"", val);
        desc.timeout_ms = ms ? (int)ms : -1;
    } else if (!strcmp(name, "--for")) {
        if (!parse_ms(val, &ms) || ms == 0) return bad_option("--for needs a duration (1500, 1500ms, 2s, 1m), not \"%s\"", val);
        opt.watch_ms = ms;
    } else if (!strcmp(name, "--log-level")) {
        for (k = 0; LEVELS[k] && strcmp(LEVELS[k], val); k++) {}
        if (!LEVELS[k]) return bad_option("--log-level is one of debug, info, notice, warning, error, critical, "
                                          "alert, emergency, not \"%s\"", val);
        opt.log_level = val;
    } else desc.protocol_version = val;     /* --protocol */
    return 1;
}

/* An option at argv[*i]: 1 if it was one (and consumed), 0 if not, -1 if it is wrong. */
static int option(int argc, char **argv, int *i)
{
    const char *a = argv[*i], *eq;
    static const char *const with_value[] = { "-H", "--header", "-e", "--env", "--sse", "-t", "--timeout",
                                              "--protocol", "--cacert", "--log-level", "--args-file", "--for",
                                              "--auth-port", "--config", "--server", NULL };
    char name[32];
    int k;
    if (a[0] != '-' || !a[1] || !strcmp(a, "--")) return 0;
    eq = strncmp(a, "--", 2) ? NULL : strchr(a, '=');      /* --name=value */
    snprintf(name, sizeof name, "%.*s", eq ? (int)(eq - a) : (int)strlen(a), a);
    for (k = 0; with_value[k] && strcmp(with_value[k], name); k++) {}
    if (with_value[k]) {
        if (eq) return set_option(name, eq + 1);
        if (*i + 1 < argc) return set_option(name, argv[++*i]);
        return bad_option("%s needs a value", name);
    }
    if (eq) return bad_option("%s takes no value", name);
    if (!strcmp(name, "--json")) opt.json = 1;
    else if (!strcmp(name, "--progress")) opt.progress = 1;
    else if (!strcmp(name, "--insecure")) opt.insecure = 1;
    else if (!strcmp(name, "--no-auth")) opt.no_auth = 1;
    else if (!strcmp(name, "--no-cache")) desc.cache_max = MCP_CACHE_OFF;
    else if (!strcmp(name, "-v") || !strcmp(name, "--verbose")) opt.verbose = 1;
    else if (!strcmp(name, "-h") || !strcmp(name, "--help")) {
        for (k = 0; HELP[k]; k++) fputs(HELP[k], stdout);
        exit(RC_OK);
    }
    else if (!strcmp(name, "-V") || !strcmp(name, "--version")) { print_version(); exit(RC_OK); }
    else return bad_option("unknown option %s", a);
    return 1;
}

static int is_url(const char *s) { return !strncmp(s, "http://", 7) || !strncmp(s, "https://", 8); }

static int on_path(const char *word)        /* an executable of that name in a directory of PATH */
{
    const char *p = getenv("PATH"), *colon;
    char full[4096];
    for (p = p ? p : "/usr/bin:/bin"; ; p = colon + 1) {
        size_t n = (colon = strchr(p, ':')) != NULL ? (size_t)(colon - p) : strlen(p);
        snprintf(full, sizeof full, "%.*s/%s", (int)n, n ? p : ".", word);
        if (access(full, X_OK) == 0) return 1;
        if (!colon) return 0;
    }
}

/* Splits s as a shell splits a simple command: blanks part words; '...' keeps everything,
   "..." all but \" \\ \$ \` (the backslash goes), and outside quotes a backslash keeps the next
   character. Nothing is expanded. The words (NULL-ended) point into *buf: free both. Returns
   their number, or -1 for an unterminated quote. */
static int split_words(const char *s, char ***words, char **buf)
{
    size_t len = strlen(s);
    char *o = *buf = (char *)malloc(len + 1), **v = *words = (char **)malloc((len / 2 + 2) * sizeof *v), q = 0;
    int n = 0, in_word = 0;
    if (!o || !v) return -1;
    for (; *s; s++) {
        if (q == '\'') { if (*s == '\'') q = 0; else *o++ = *s; continue; }
        if (q == '"') {
            if (*s == '"') q = 0;
            else if (*s == '\\' && s[1] && strchr("\"\\$`", s[1])) *o++ = *++s;
            else *o++ = *s;
            continue;
        }
        if (*s == ' ' || *s == '\t' || *s == '\n') { if (in_word) { *o++ = 0; in_word = 0; } continue; }
        if (!in_word) { v[n++] = o; in_word = 1; }
        if (*s == '\'' || *s == '"') q = *s;
        else if (*s == '\\' && s[1]) *o++ = *++s;
        else *o++ = *s;
    }
    if (in_word) *o = 0;
    v[n] = NULL;
    return q ? -1 : n;
}

/* The stdio server: `word` runs as it is if it names a file or a program on PATH; else a word
   with blanks is a command line, split here. extra: the arguments before --. */
static int set_server(const char *word, char **extra, int nextra)
{
    struct stat st;
    int n = 0, k;
    if (stat(word, &st) != 0 && (strchr(word, '/') || !on_path(word)) && strpbrk(word, " \t\n")) {
        if ((n = split_words(word, &split_words_v, &split_buf)) < 0)
            return bad_option("the server command %s has a quote that does not end", word);
        if (n == 0) return bad_option("the server command is empty");
        word = split_words_v[0];
    }
    if (!(server_argv = (const char **)malloc((size_t)(n + nextra + 1) * sizeof *server_argv)))
        return bad_option("out of memory");
    for (k = 1; k < n; k++) server_argv[k - 1] = split_words_v[k];
    for (k = 0; k < nextra; k++) server_argv[(n ? n - 1 : 0) + k] = extra[k];
    server_argv[(n ? n - 1 : 0) + nextra] = NULL;
    desc.command = word;
    desc.args = server_argv;
    return 0;
}

/* https:// goes through the TLS hook of examples/tls_openssl.c, when it is built in: set up
   once, for the first https:// URL (*hook gets it; untouched for other URLs). */
static int start_tls(const char *url, const mcp_tls **hook)
{
#ifdef MCPC_OPENSSL
    mcp_error err;
#endif
    if (!url || strncmp(url, "https://", 8)) return RC_OK;
#ifdef MCPC_OPENSSL
    if (!tls_on) {
        if (!tls_openssl_init(&tls, opt.cacert, &err)) return report(&err, RC_USAGE);
        tls_on = 1;
        if (opt.insecure) {
            tls_openssl_insecure(&tls);
            warn("--insecure: the server's certificate is not checked, so anyone between here and %s could read "
                 "and change what is sent", url);
        }
    }
    *hook = &tls.hook;
    return RC_OK;
#else
    (void)hook;
    return invalid("this mcpc was built without TLS, so it cannot reach https:// servers. Install OpenSSL's "
                   "development files (libssl-dev on Debian and Ubuntu, openssl-devel on Fedora) and rebuild "
                   "it with make");
#endif
}

static int setup_tls(void) { return start_tls(desc.url, &desc.tls); }

/* The connect error, with a hint where a certificate was refused. A TLS handshake that failed
   (MCP_ERR_PROTOCOL: TLS refused it) is a server that could not be reached: status 3. */
static int connect_failed(mcp_error *err)
{
    if (!opt.cacert && !opt.insecure && strstr(err->message, "certificate was rejected"))
        cat(err->message, sizeof err->message, " A private or self-signed certificate? --cacert FILE trusts "
            "the CA in FILE; --insecure skips the check.");
    if (err->status == MCP_ERR_PROTOCOL && !strncmp(err->message, "TLS handshake", 13)) return report(err, RC_CONNECT);
    return fail(err);
}

static int set_log_level(void)              /* --log-level, before the command */
{
    mcp_error err;
    if (!opt.log_level) return RC_OK;
    if (!mcp_json_get(mcp_client_server_capabilities(client), "logging")) {
        warn("the server does not declare the logging capability, so --log-level %s is not sent", opt.log_level);
        return RC_OK;
    }
    /* legacy: logging/setLevel now; 2026-07-28: the level goes in each request's _meta */
    return mcp_client_set_log_level(client, opt.log_level, &err) == MCP_OK ? RC_OK : fail(&err);
}

/* ---- signing in: the browser, the token file ------------------------------------------------- */

static mcp_auth auth;
static char auth_path[1024], auth_lock_path[1040];
static int auth_lock_fd = -1;

/* Runs argv without waiting for it and without leaving a zombie (the middle child exits at once). */
static void spawn_detached(char *const *argv)
{
    pid_t pid = fork();
    if (pid == 0) {
        if (fork() == 0) {
            int null = open("/dev/null", O_RDWR);
            if (null >= 0) { dup2(null, 0); dup2(null, 1); if (null > 2) close(null); }
            execvp(argv[0], argv);
            _exit(127);
        }
        _exit(0);
    }
    if (pid > 0) waitpid(pid, NULL, 0);
}

static char signing_in[256];                /* config mode: the server whose sign-in is asked for */

/* The authorization URL: printed, and opened where a browser can be (MCPC_BROWSER first). */
static void open_url(void *user, const char *url)
{
    const char *browser = getenv("MCPC_BROWSER");
    char **words = NULL, *buf = NULL;
    int n;
    (void)user;
    end_progress();
    if (opt.json) {
        mcp_jw w;
        mcp_jw_init(&w, 0);
        mcp_jw_obj_begin(&w);
        if (signing_in[0]) { mcp_jw_key(&w, "server"); jw_text(&w, signing_in); }
        mcp_jw_key(&w, "sign_in"); jw_text(&w, url);
        mcp_jw_obj_end(&w);
        json_line(stderr, &w);
    } else if (signing_in[0]) {
        fprintf(stderr, "mcpc: the server \"%s\" wants you to sign in; open this address in a browser:\n  %s\n",
                signing_in, url);
    } else fprintf(stderr, "mcpc: the server wants you to sign in; open this address in a browser:\n  %s\n", url);
    if (browser && *browser) {
        if ((n = split_words(browser, &words, &buf)) > 0) {
            char **argv = (char **)malloc((size_t)(n + 2) * sizeof *argv);
            int k;
            if (argv) {
                for (k = 0; k < n; k++) argv[k] = words[k];
                argv[n] = (char *)url; argv[n + 1] = NULL;
                spawn_detached(argv);
                free(argv);
            }
        }
        free(words); free(buf);
        return;
    }
#ifdef __APPLE__
    {
        char *argv[3];
        argv[0] = (char *)"open"; argv[1] = (char *)url; argv[2] = NULL;
        spawn_detached(argv);
    }
#else
    if (getenv("DISPLAY") || getenv("WAYLAND_DISPLAY")) {
        char *argv[3];
        argv[0] = (char *)"xdg-open"; argv[1] = (char *)url; argv[2] = NULL;
        spawn_detached(argv);
    }
#endif
}

/* $XDG_CONFIG_HOME/mcpc (or ~/.config/mcpc), made 0700 if missing; 0 when there is none. */
static int auth_files(void)
{
    const char *xdg = getenv("XDG_CONFIG_HOME"), *home = getenv("HOME");
    char dir[1000];
    if (xdg && *xdg) snprintf(dir, sizeof dir, "%s/mcpc", xdg);
    else if (home && *home) snprintf(dir, sizeof dir, "%s/.config/mcpc", home);
    else return 0;
    {
        char parent[1000];                   /* the folder above it, if that is missing too */
        snprintf(parent, sizeof parent, "%.*s", (int)(strrchr(dir, '/') - dir), dir);
        mkdir(parent, 0700);
    }
    if (mkdir(dir, 0700) != 0 && errno != EEXIST) return 0;
    snprintf(auth_path, sizeof auth_path, "%s/auth.json", dir);
    snprintf(auth_lock_path, sizeof auth_lock_path, "%s/auth.lock", dir);
    return 1;
}

/* The token file is locked (fcntl, the whole of auth.lock) from before the client reads the
   tokens until the connect is over, and around each rewrite: two mcpc sharing a rotating
   refresh token take turns, the second reading what the first saved. */
static void auth_lock(void)
{
    struct flock fl;
    if (auth_lock_fd >= 0 || !auth_lock_path[0]) return;
    if ((auth_lock_fd = open(auth_lock_path, O_RDWR | O_CREAT | O_CLOEXEC, 0600)) < 0) return;
    memset(&fl, 0, sizeof fl);
    fl.l_type = F_WRLCK; fl.l_whence = SEEK_SET;
    while (fcntl(auth_lock_fd, F_SETLKW, &fl) < 0 && errno == EINTR) {}
}

static void auth_unlock(void)
{
    if (auth_lock_fd >= 0) { close(auth_lock_fd); auth_lock_fd = -1; }   /* closing releases it */
}

/* The whole token file (an object of key: text), or NULL. */
static mcp_json_doc *auth_read(void)
{
    FILE *f = fopen(auth_path, "rb");
    char *text = NULL;
    size_t len = 0, cap = 0, got;
    mcp_json_doc *doc;
    if (!f) return NULL;
    for (;;) {
        if (len + 4096 > cap) { char *t = (char *)realloc(text, cap = cap ? cap * 2 : 8192); if (!t) break; text = t; }
        if ((got = fread(text + len, 1, cap - len, f)) == 0) break;
        len += got;
    }
    fclose(f);
    doc = text ? mcp_json_parse(text, len, NULL) : NULL;
    if (text) { memset(text, 0, cap); free(text); }
    return doc;
}

static int auth_load(void *user, const char *key, mcp_buf *value)
{
    mcp_json_doc *doc = auth_read();
    const char *v = mcp_json_str(mcp_json_get(mcp_json_root(doc), key));
    int found = v && mcp_buf_append(value, v, strlen(v)) == MCP_OK;
    (void)user;
    mcp_json_free(doc);
    return found;
}

/* Rewrites the file with key set to value (NULL: removed): a new file, 0600, renamed over. */
static void auth_save(void *user, const char *key, const char *value)
{
    mcp_json_doc *doc;
    const mcp_json *r, *v;
    mcp_jw w;
    char tmp[1100], *text;
    size_t i, kl, len;
    int fd, held = auth_lock_fd >= 0;
    (void)user;
    if (!held) auth_lock();
    doc = auth_read();
    r = mcp_json_root(doc);
    mcp_jw_init(&w, 1);
    mcp_jw_obj_begin(&w);
    mcp_json_foreach(r, i, v) {
        const char *k = mcp_json_key_at(r, i, &kl);
        if (strlen(key) == kl && !memcmp(k, key, kl)) continue;
        mcp_jw_keyn(&w, k, kl); mcp_jw_value(&w, v);
    }
    if (value) { mcp_jw_key(&w, key); mcp_jw_str(&w, value); }
    mcp_jw_obj_end(&w);
    mcp_json_free(doc);
    if ((text = mcp_jw_finish(&w, &len, NULL)) != NULL) {
        snprintf(tmp, sizeof tmp, "%s.%ld", auth_path, (long)getpid());
        if ((fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600)) >= 0) {
            int ok = write(fd, text, len) == (ssize_t)len && write(fd, "\n", 1) == 1 && fsync(fd) == 0;
            close(fd);
            if (!ok || rename(tmp, auth_path) != 0) { unlink(tmp); warn("could not save the sign-in to %s", auth_path); }
        }
        memset(text, 0, len);
        mcp_free(text);
    }
    if (!held) auth_unlock();
}

static void init_auth(void)                 /* the sign-in: browser, token file */
{
    memset(&auth, 0, sizeof auth);
    auth.client_name = "mcpc";
    auth.port = (unsigned short)opt.auth_port;
    auth.offline_access = 1;
    auth.open_url = open_url;
    if (auth_files()) { auth.load = auth_load; auth.save = auth_save; }
}

/* An HTTP server gets the authorization flow unless --no-auth or an Authorization header. */
static void setup_auth(void)
{
    int k;
    if (desc.transport == MCP_STDIO || opt.no_auth) return;
    for (k = 0; desc.headers && desc.headers[k]; k++) if (!strncasecmp(desc.headers[k], "authorization:", 14)) return;
    init_auth();
    desc.auth = &auth;
}

static void catch_sigint(void)              /* Ctrl-C sets a flag; no SA_RESTART: poll wakes */
{
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_sigint;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGINT, &sa, NULL);
}

/* Connects and runs the command. */
static int run(const struct command *cmd, char **a, int n, const argspec *args)
{
    mcp_error err;
    mcp_call *init;
    char line[600];
    int rc;
    catch_sigint();
    if (desc.auth) auth_lock();                  /* until the connect is over: see auth_lock */
    if (!(client = mcp_client_new(&desc, &err))) { auth_unlock(); return fail(&err); }
    if (!(init = mcp_client_connect_begin(client, &err)) || wait_for(init, NULL, &err) != MCP_OK) {
        auth_unlock();
        return connect_failed(&err);
    }
    auth_unlock();
    if (opt.verbose) {
        const mcp_json *info = mcp_client_server_info(client);
        snprintf(line, sizeof line, "connected to %s %s (protocol %s)", str(info, "name"), str(info, "version"),
                 mcp_client_protocol_version(client));
        on_log(NULL, client, line);
    }
    if ((rc = set_log_level()) != RC_OK) return rc;
    return cmd->run(a, n, args);
}

static void setup_desc(void)
{
    opt.pretty = isatty(1);
    opt.tty_progress = isatty(2);
    if (opt.tty_progress) opt.progress = 1;
    opt.headers[opt.nheaders] = NULL;
    opt.env[opt.nenv] = NULL;
    desc.headers = opt.headers;
    desc.env = opt.env;
    desc.client_name = "mcpc";
    desc.on_notification = on_notification;
    desc.on_close = on_close;
    desc.on_log = opt.verbose ? on_log : NULL;
    desc.on_stderr = opt.verbose ? on_stderr : NULL;
}

/* The target (a URL, --sse, or a server to run), from argv[*i]; *i moves past it (and past the
   -- that ends a server's arguments). 0, or -1 if it is wrong. */
static int target(int argc, char **argv, int *i)
{
    const char *word;
    int j, first;
    if (opt.sse || (*i < argc && is_url(argv[*i]))) {
        desc.transport = opt.sse ? MCP_SSE : MCP_HTTP;
        desc.url = opt.sse ? opt.sse : argv[(*i)++];
        if (*i < argc && !strcmp(argv[*i], "--")) (*i)++;
        return 0;
    }
    if (*i >= argc) return bad_option("no server given: a command to run, an http:// URL or --sse URL");
    word = argv[(*i)++];
    for (first = j = *i; j < argc && strcmp(argv[j], "--"); j++) {}
    if (j == argc) return set_server(word, NULL, 0);        /* SERVER COMMAND ... */
    *i = j + 1;                                             /* SERVER SERVER-ARGS... -- COMMAND ... */
    dashdash = 1;
    return set_server(word, argv + first, j - first);
}

/* ---- config mode: the servers of config files, through the host (>>host) ----------------------

   --config FILE (any number, read in order) or --server NAME. Without --server every server of
   the files is the host's: servers, tools, call SERVER__TOOL ... With --server the one server
   NAME is run as a SERVER given on the command line would be, every command as usual, from its
   entry in the files (read with mcp_config_parse, the reader the host uses); only `servers`
   takes the host then, with that server alone. */

static int config_mode;                     /* --config or --server */
static mcp_host *host;
typedef struct config_text { const char *path; mcp_buf text; } config_text;
static config_text configs[40];
static int nconfigs;
static const char *config_path;             /* the file being parsed: ${workspaceFolder} */
static char usual_paths[8][1100];           /* --server alone: the files looked for */
static int nusual;
static void **kept;                         /* what the chosen entry's strings were copied into */
static size_t nkept, capkept;

static void *keep(void *p)                  /* freed at exit (forget_kept) */
{
    if (p && nkept == capkept) {
        void **k = (void **)realloc(kept, (capkept = capkept ? capkept * 2 : 32) * sizeof *k);
        if (!k) { free(p); return NULL; }
        kept = k;
    }
    if (p) kept[nkept++] = p;
    return p;
}

static void forget_kept(void)
{
    size_t i;
    for (i = 0; i < nkept; i++) free(kept[i]);
    free(kept);
}

static char *keep_str(const char *s)
{
    char *c;
    if (!s || !(c = (char *)keep(malloc(strlen(s) + 1)))) return NULL;
    return strcpy(c, s);
}

/* "KEY=V" and "KEY=W" (sep '='), "Name: v" and "name: w" (sep ':', any case): the same key */
static int same_key(const char *a, const char *b, char sep)
{
    size_t n = strcspn(a, sep == '=' ? "=" : ":");
    if (n != strcspn(b, sep == '=' ? "=" : ":")) return 0;
    return sep == '=' ? !strncmp(a, b, n) : !strncasecmp(a, b, n);
}

/* A NULL-ended copy of list (may be NULL) and then more (nmore of them, the command line's -e
   or -H), an entry of list left out where more sets its key. NULL: out of memory. */
static const char **keep_list(const char *const *list, const char *const *more, int nmore, char sep)
{
    size_t n = 0, k = 0, i;
    const char **out;
    int j, dup;
    while (list && list[n]) n++;
    if (!(out = (const char **)keep(malloc((n + (size_t)nmore + 1) * sizeof *out)))) return NULL;
    for (i = 0; i < n; i++) {
        for (dup = 0, j = 0; j < nmore; j++) dup |= same_key(list[i], more[j], sep);
        if (!dup && !(out[k++] = keep_str(list[i]))) return NULL;
    }
    for (j = 0; j < nmore; j++) out[k++] = more[j];
    out[k] = NULL;
    return out;
}

/* ${workspaceFolder}: the folder a .vscode/ (or .cursor/) holding the file is in, else the
   current one; ${userHome}; ${pathSeparator} and ${/}. Others: unknown (left as written). */
static const char *config_variable(void *user, const char *name)
{
    static char folder[4096], base[4096];
    const char *slash = config_path ? strrchr(config_path, '/') : NULL, *dir;
    char parent[4096];
    (void)user;
    if (!strcmp(name, "userHome")) return getenv("HOME");
    if (!strcmp(name, "pathSeparator") || !strcmp(name, "/")) return "/";
    if (strcmp(name, "workspaceFolder") && strcmp(name, "workspaceFolderBasename")) return NULL;
    snprintf(parent, sizeof parent, "%.*s", slash ? (int)(slash - config_path) : 0, config_path ? config_path : "");
    dir = strrchr(parent, '/') ? strrchr(parent, '/') + 1 : parent;
    if (!strcmp(dir, ".vscode") || !strcmp(dir, ".cursor")) {
        parent[dir - parent > 1 ? dir - parent - 1 : dir - parent] = 0;   /* "a/b", "/" or "" */
        if (parent[0] == '/') snprintf(folder, sizeof folder, "%s", parent);
        else if (!getcwd(base, sizeof base)) snprintf(folder, sizeof folder, "%s", parent[0] ? parent : ".");
        else snprintf(folder, sizeof folder, "%.2040s%s%.2040s", base, parent[0] ? "/" : "", parent);
    } else if (!getcwd(folder, sizeof folder)) {
        strcpy(folder, ".");
    }
    if (!strcmp(name, "workspaceFolder")) return folder;
    snprintf(base, sizeof base, "%s", strrchr(folder, '/') && strrchr(folder, '/')[1] ? strrchr(folder, '/') + 1 : folder);
    return base;
}

/* What the reader said (a field it ignored, a variable not set, a bad entry), kept until it is
   known which servers run: then said as warnings (config_said), for those servers alone. */
static char *config_notes[64];
static int nnotes;

static void config_log(void *user, const char *message)
{
    int k;
    (void)user;
    for (k = 0; k < nnotes; k++) if (config_notes[k] && !strcmp(config_notes[k], message)) return;
    if (nnotes < (int)(sizeof config_notes / sizeof config_notes[0])) config_notes[nnotes++] = keep_str(message);
}

/* The server a note is about ("file:1:2: server "NAME": ..."): NAME in out, or "" */
static void note_server(const char *note, char *out, size_t size)
{
    const char *p = strstr(note, ": server \""), *q;
    out[0] = 0;
    if (p && (q = strstr(p + 10, "\": ")) != NULL && (size_t)(q - p - 10) < size)
        snprintf(out, size, "%.*s", (int)(q - p - 10), p + 10);
}

/* The notes, as warnings: each about no server in particular or about one that `runs` says
   runs, and not a bad entry's error (that is said as the server's failure). -v: every note. */
static void config_said(int (*runs)(const char *server, const char *note))
{
    char name[512];
    int k;
    for (k = 0; k < nnotes; k++) {
        if (!config_notes[k]) continue;
        note_server(config_notes[k], name, sizeof name);
        if (opt.verbose) on_log(NULL, NULL, config_notes[k]);
        else if (!name[0] || runs(name, config_notes[k])) warn("%s", config_notes[k]);
    }
    nnotes = 0;
}

static mcp_config_opts config_opts(void)
{
    mcp_config_opts o;
    memset(&o, 0, sizeof o);
    o.variable = config_variable;
    o.on_log = config_log;
    return o;
}

/* --server alone: the files of the user, then of the project (the current folder); a later
   file's server replaces an earlier one's of the same name. */
static void usual_files(void)
{
    const char *home = getenv("HOME"), *xdg = getenv("XDG_CONFIG_HOME");
    nusual = 0;
    if (home && *home) snprintf(usual_paths[nusual++], sizeof usual_paths[0], "%s/.cursor/mcp.json", home);
    if (xdg && *xdg) snprintf(usual_paths[nusual++], sizeof usual_paths[0], "%s/mcpc/mcp.json", xdg);
    else if (home && *home) snprintf(usual_paths[nusual++], sizeof usual_paths[0], "%s/.config/mcpc/mcp.json", home);
    snprintf(usual_paths[nusual++], sizeof usual_paths[0], ".vscode/mcp.json");
    snprintf(usual_paths[nusual++], sizeof usual_paths[0], ".cursor/mcp.json");
    snprintf(usual_paths[nusual++], sizeof usual_paths[0], ".mcp.json");
}

/* Reads one config file into configs[]: 1; 0 when a usual file is not there; -1 when it
   cannot be read (said: an error for a --config file, a warning for a usual one). */
static int read_config(const char *path, int given)
{
    FILE *f;
    mcp_buf b;
    char chunk[65536];
    size_t got;
    int e = 0;
    if (nconfigs == (int)(sizeof configs / sizeof configs[0])) { invalid("too many config files"); return -1; }
    if (!(f = fopen(path, "rb"))) {
        e = errno;
        if (!given && (e == ENOENT || e == ENOTDIR)) return 0;
    } else {
        memset(&b, 0, sizeof b);
        while ((got = fread(chunk, 1, sizeof chunk, f)) > 0)
            if (mcp_buf_append(&b, chunk, got) != MCP_OK) { e = ENOMEM; break; }
        if (!e && ferror(f)) e = errno ? errno : EIO;
        fclose(f);
        if (!e) {
            configs[nconfigs].path = path;
            configs[nconfigs++].text = b;
            return 1;
        }
        mcp_buf_free(&b);
    }
    if (given) invalid("cannot read the config file %s: %s", path, strerror(e));
    else warn("cannot read the config file %s: %s", path, strerror(e));
    return -1;
}

/* The config files: the --config ones (each must be there), else the usual ones (those that
   are there). RC_OK, or the usage error's status. */
static int read_configs(void)
{
    int k, found = 0;
    if (opt.nconfigs) {
        for (k = 0; k < opt.nconfigs; k++)
            if (read_config(opt.configs[k], 1) < 0) return RC_USAGE;
        return RC_OK;
    }
    usual_files();
    for (k = 0; k < nusual; k++) found += read_config(usual_paths[k], 0) != 0;
    if (!found) {
        char list[2000] = "";
        for (k = 0; k < nusual; k++) cat(list, sizeof list, "%s%s", k ? ", " : "", usual_paths[k]);
        return invalid("no config file names the server \"%s\": there is none of %s (--config FILE reads another)",
                       opt.server, list);
    }
    return RC_OK;
}

static const char *config_list(void)        /* "a.json, b.json": the files read */
{
    static char list[2000];
    int k;
    list[0] = 0;
    for (k = 0; k < nconfigs; k++) cat(list, sizeof list, "%s%s", k ? ", " : "", configs[k].path);
    return list;
}

/* ---- --server NAME: that server's entry, as SERVER ---------------------------------------------- */

static struct {
    int found, disabled;
    mcp_client_desc desc;
    const char *file, *error;
    int line;
    char names[400];                        /* the other servers, for "no server NAME" */
} pick;

static void pick_entry(void *user, const mcp_server_config *s)
{
    (void)user;
    if (strcmp(s->name, opt.server)) {
        char quoted[300];
        snprintf(quoted, sizeof quoted, "%s, ", s->name);
        if (!strstr(pick.names, quoted) && strlen(pick.names) + strlen(quoted) < sizeof pick.names) strcat(pick.names, quoted);
        return;
    }
    memset(&pick.desc, 0, sizeof pick.desc);
    pick.found = 1;
    pick.disabled = s->disabled;
    pick.error = keep_str(s->error);
    pick.file = keep_str(s->file);
    pick.line = s->line;
    pick.desc.transport = s->desc.transport;
    pick.desc.command = keep_str(s->desc.command);
    pick.desc.args = keep_list(s->desc.args, NULL, 0, '=');
    pick.desc.env = keep_list(s->desc.env, NULL, 0, '=');
    pick.desc.cwd = keep_str(s->desc.cwd);
    pick.desc.url = keep_str(s->desc.url);
    pick.desc.headers = keep_list(s->desc.headers, NULL, 0, ':');
    pick.desc.timeout_ms = s->desc.timeout_ms;
}

static int picked(const char *server, const char *note)   /* a note about the server to run */
{
    return !strcmp(server, opt.server) && !(pick.error && !strcmp(note, pick.error));
}

/* Finds opt.server in the files (the last entry of that name) and makes it the server to run:
   desc gets its transport, command, arguments, environment, folder, URL and headers (-e and -H
   added, replacing the entry's of the same name), and its timeout unless -t was given. */
static int pick_server(void)
{
    mcp_config_opts o = config_opts();
    mcp_error err;
    int k, rc;
    if ((rc = read_configs()) != RC_OK) return rc;
    for (k = 0; k < nconfigs; k++) {
        config_path = configs[k].path;
        if (mcp_config_parse(configs[k].path, configs[k].text.data ? configs[k].text.data : "", configs[k].text.len,
                             &o, pick_entry, &err) != MCP_OK) {
            if (opt.nconfigs) return invalid("%s", err.message);
            warn("%s", err.message);        /* a usual file: the others may still have it */
        }
    }
    config_path = NULL;
    config_said(picked);
    if (!pick.found) {
        size_t n = strlen(pick.names);
        if (n >= 2) pick.names[n - 2] = 0;
        return invalid("no server \"%s\" in %s; %s%s", opt.server, config_list(), *pick.names ? "the servers there: " :
                       "there are no servers there", pick.names);
    }
    if (pick.error) return invalid("%s", pick.error);
    if (pick.disabled) warn("the server \"%s\" is turned off in %s; --server runs it all the same", opt.server, pick.file);
    if (!pick.desc.args || !pick.desc.env || !pick.desc.headers) return invalid("out of memory");
    desc.transport = pick.desc.transport;
    desc.command = pick.desc.command;
    desc.args = pick.desc.args;
    desc.cwd = pick.desc.cwd;
    desc.url = pick.desc.url;
    desc.env = keep_list(pick.desc.env, opt.env, opt.nenv, '=');
    desc.headers = keep_list(pick.desc.headers, opt.headers, opt.nheaders, ':');
    if (!desc.timeout_ms) desc.timeout_ms = pick.desc.timeout_ms;
    if (!desc.env || !desc.headers) return invalid("out of memory");
    config_server = opt.server;
    config_file = pick.file;
    config_line = pick.line;
    return RC_OK;
}

/* ---- the host: every server of the files --------------------------------------------------------- */

static const char *state_name(mcp_server_state st)
{
    switch (st) {
    case MCP_SERVER_DISABLED: return "off";
    case MCP_SERVER_IDLE: return "idle";
    case MCP_SERVER_CONNECTING: return "connecting";
    case MCP_SERVER_READY: return "ready";
    case MCP_SERVER_RETRYING: return "retrying";
    case MCP_SERVER_FAILED: return "failed";
    case MCP_SERVER_NEEDS_AUTH: return "sign-in";
    }
    return "?";
}

static const char *transport_name(mcp_transport_kind kind)   /* as info --json names them */
{
    return kind == MCP_STDIO ? "stdio" : kind == MCP_SSE ? "http+sse" : kind == MCP_HTTP ? "streamable-http" : "custom";
}

static void host_on_state(void *user, mcp_host *h, const char *server, mcp_server_state st, const mcp_error *why)
{
    char line[1200];
    (void)user; (void)h;
    if (st == MCP_SERVER_NEEDS_AUTH) snprintf(signing_in, sizeof signing_in, "%s", server);   /* open_url follows */
    if (!opt.verbose) return;
    snprintf(line, sizeof line, "%s: %s%s%s", server, state_name(st), why ? ": " : "", why ? why->message : "");
    on_log(NULL, NULL, line);
}

static void host_on_notification(void *user, mcp_host *h, const char *server, const char *method, const mcp_json *params)
{
    (void)user; (void)h;
    if (strcmp(method, "notifications/progress")) show_notification(stderr, server, method, params);
}

static void host_on_stderr(void *user, mcp_host *h, const char *server, const char *line, size_t len)
{
    mcp_jw w;
    char *copy;
    (void)user; (void)h;
    end_progress();
    if (!opt.json) { fprintf(stderr, "[%s stderr] %.*s\n", server, (int)len, line); return; }
    mcp_jw_init(&w, 0);
    mcp_jw_obj_begin(&w);
    mcp_jw_key(&w, "server"); jw_text(&w, server);
    mcp_jw_key(&w, "stderr");
    if ((copy = (char *)malloc(len + 1)) != NULL) { memcpy(copy, line, len); copy[len] = 0; jw_text(&w, copy); free(copy); }
    else mcp_jw_str(&w, "");
    mcp_jw_obj_end(&w);
    json_line(stderr, &w);
}

static int host_loading;                    /* mcp_host_load_text is reading a file */
static void host_on_log(void *user, mcp_host *h, const char *server, const char *message)
{
    char line[1200];
    (void)user; (void)h;
    if (!server && host_loading) return;    /* the reader's notes: config_log has them too */
    if (!opt.verbose) return;
    if (!server) { on_log(NULL, NULL, message); return; }
    snprintf(line, sizeof line, "%s: %s", server, message);
    on_log(NULL, NULL, line);
}

static char https_url[1024];                /* the first https:// URL of the files: TLS is needed */
static void note_https(void *user, const mcp_server_config *s)
{
    (void)user;
    if (!https_url[0] && s->desc.url && !strncmp(s->desc.url, "https://", 8) && !s->disabled)
        snprintf(https_url, sizeof https_url, "%s", s->desc.url);
}

/* The host, with every server of the files (none started yet). RC_OK, or the status of the
   error said. */
static int host_open(void)
{
    mcp_host_desc hd;
    mcp_config_opts quiet = config_opts();
    mcp_error err;
    const mcp_tls *hook = NULL;
    int k, rc;
    if ((rc = read_configs()) != RC_OK) return rc;
    quiet.on_log = NULL;
    for (k = 0; k < nconfigs && !https_url[0]; k++) {   /* https:// anywhere: TLS, for the host's desc */
        config_path = configs[k].path;
        mcp_config_parse(configs[k].path, configs[k].text.data ? configs[k].text.data : "", configs[k].text.len,
                         &quiet, note_https, &err);
    }
#ifdef MCPC_OPENSSL
    if (https_url[0] && (rc = start_tls(https_url, &hook)) != RC_OK) return rc;
#else
    if (https_url[0])                       /* those servers fail, the others work */
        warn("this mcpc was built without TLS, so it cannot reach https:// servers (%s). Install OpenSSL's "
             "development files (libssl-dev on Debian and Ubuntu, openssl-devel on Fedora) and rebuild it with make",
             https_url);
#endif
    memset(&hd, 0, sizeof hd);
    hd.client_name = "mcpc";
    hd.timeout_ms = desc.timeout_ms;
    hd.tls = hook;
    if (!opt.no_auth) { init_auth(); hd.auth = &auth; }
    hd.config = config_opts();
    hd.on_notification = opt.verbose ? host_on_notification : NULL;
    hd.on_state = host_on_state;
    hd.on_stderr = opt.verbose ? host_on_stderr : NULL;
    hd.on_log = host_on_log;
    if (!(host = mcp_host_new(&hd, &err))) return fail(&err);
    for (k = 0; k < nconfigs; k++) {
        config_path = configs[k].path;
        host_loading = 1;
        rc = mcp_host_load_text(host, configs[k].path, configs[k].text.data ? configs[k].text.data : "",
                                configs[k].text.len, &err) != MCP_OK;
        host_loading = 0;
        if (rc) {
            if (opt.nconfigs) { config_path = NULL; return invalid("%s", err.message); }
            warn("%s", err.message);
        }
    }
    config_path = NULL;
    return RC_OK;
}

/* server is one a qualified name may belong to: its name (as qualified names write it: bytes
   other than A-Z a-z 0-9 _ - become _) and the separator start it. */
static int may_own(const char *server, const char *qualified)
{
    size_t k;
    for (k = 0; server[k]; k++) {
        char c = server[k];
        int plain = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' || c == '-';
        if (qualified[k] != (plain ? c : '_')) return 0;
    }
    return !strncmp(qualified + k, "__", 2);
}

static int starting(mcp_server_state st)
{
    return st == MCP_SERVER_IDLE || st == MCP_SERVER_CONNECTING || st == MCP_SERVER_NEEDS_AUTH;
}

static int started(const char *server, const char *note)  /* a note about a server that starts */
{
    mcp_host_server s;
    long i = mcp_host_server_find(host, server);
    return i >= 0 && mcp_host_server_get(host, (size_t)i, &s) == MCP_OK && s.state != MCP_SERVER_DISABLED &&
           !(s.error && !strcmp(s.error->message, note));
}

/* Starts the servers and waits until each is ready, failed, retrying or off (a sign-in waits
   for the browser), or Ctrl-C. route: a qualified name, only the servers it may belong to are
   started (all when none may); only: that server alone (turned on if its file turns it off). */
static int host_start(const char *route, const char *only)
{
    mcp_host_server s;
    mcp_error err;
    size_t i, n = mcp_host_server_count(host);
    char name[512];
    int owners = 0, busy = 1;
    catch_sigint();
    for (i = 0; route && i < n; i++)
        if (mcp_host_server_get(host, i, &s) == MCP_OK && s.state != MCP_SERVER_DISABLED && may_own(s.name, route)) owners++;
    for (i = 0; (route && owners) || only ? i < n : 0; i++) {
        if (mcp_host_server_get(host, i, &s) != MCP_OK) continue;
        snprintf(name, sizeof name, "%s", s.name);
        if (only ? strcmp(name, only) != 0 : !may_own(name, route)) {
            if (s.state != MCP_SERVER_DISABLED) mcp_host_disable(host, name, &err);
        } else if (only && s.state == MCP_SERVER_DISABLED && !s.error) {
            mcp_host_enable(host, name, &err);
        }
    }
    config_said(started);
    if (!opt.no_auth) auth_lock();          /* until the connects are over: see auth_lock */
    if (mcp_host_connect(host, &err) != MCP_OK) { auth_unlock(); return fail(&err); }
    while (busy && !interrupted) {
        for (busy = 0, i = 0; i < n && !busy; i++)
            busy = mcp_host_server_get(host, i, &s) == MCP_OK && starting(s.state);
        if (busy) mcp_host_poll(host, 100);
    }
    auth_unlock();
    if (interrupted) {
        memset(&err, 0, sizeof err);
        err.status = MCP_ERR_CANCELLED;
        snprintf(err.message, sizeof err.message, "Cancelled while the servers were starting");
        return fail(&err);
    }
    return RC_OK;
}

/* Why the server s is not usable, in *e (named), and the exit status that goes with it; RC_OK
   when it is ready or its file turns it off. */
static int why_not(const mcp_host_server *s, mcp_error *e)
{
    char quoted[300];
    memset(e, 0, sizeof *e);
    if (s->state == MCP_SERVER_READY || (s->state == MCP_SERVER_DISABLED && !s->error)) return RC_OK;
    if (s->error) *e = *s->error;
    else e->status = MCP_ERR_CLOSED;
    if (s->state == MCP_SERVER_NEEDS_AUTH)
        snprintf(e->message, sizeof e->message, "Server \"%s\": waiting for you to sign in%s%s", s->name,
                 s->auth_url ? " at " : "", s->auth_url ? s->auth_url : "");
    else if (!s->error)
        snprintf(e->message, sizeof e->message, "Server \"%s\": %s", s->name, state_name(s->state));
    snprintf(quoted, sizeof quoted, "\"%s\"", s->name);
    if (s->error && !strstr(e->message, quoted)) {           /* the sentence names its server */
        char msg[sizeof e->message + 320];
        size_t n = (size_t)snprintf(msg, sizeof msg, "Server \"%.300s\": %s", s->name, e->message);
        if (n >= sizeof e->message) n = sizeof e->message - 1;
        memcpy(e->message, msg, n);
        e->message[n] = 0;
    }
    if (s->state == MCP_SERVER_DISABLED) return RC_USAGE;    /* a bad entry */
    if (s->state == MCP_SERVER_NEEDS_AUTH) return RC_CONNECT;
    return rc_of(e->status) == RC_OTHER || rc_of(e->status) == RC_USAGE ? RC_CONNECT : rc_of(e->status);
}

/* Each server that is not usable (of those route may belong to, when given): said on stderr.
   The exit status of the first, or RC_OK. */
static int host_failures(const char *route)
{
    mcp_host_server s;
    mcp_error e;
    size_t i;
    int rc = RC_OK, r;
    for (i = 0; i < mcp_host_server_count(host); i++) {
        if (mcp_host_server_get(host, i, &s) != MCP_OK || (route && !may_own(s.name, route))) continue;
        if ((r = why_not(&s, &e)) != RC_OK) {
            report(&e, r);
            if (rc == RC_OK) rc = r;
        }
    }
    return rc;
}

static char row_text[1200];                 /* the servers table's last column */
static void server_row(const mcp_json *s, row *r)
{
    const mcp_json *err = mcp_json_get(s, "error");
    double tools = mcp_json_num(mcp_json_get(s, "tools")), prompts = mcp_json_num(mcp_json_get(s, "prompts"));
    double resources = mcp_json_num(mcp_json_get(s, "resources"));
    snprintf(r->cell[0], sizeof r->cell[0], "%s", str(s, "name"));
    snprintf(r->cell[1], sizeof r->cell[1], "%s", str(s, "transport"));
    snprintf(r->cell[2], sizeof r->cell[2], "%s", str(s, "state"));
    row_text[0] = 0;
    if (err) snprintf(row_text, sizeof row_text, "%s", str(err, "message"));
    else if (*str(s, "auth_url")) snprintf(row_text, sizeof row_text, "sign in at %s", str(s, "auth_url"));
    else if (!strcmp(str(s, "state"), "off"))
        snprintf(row_text, sizeof row_text, "turned off%s%s", *str(s, "file") ? " in " : "", str(s, "file"));
    else if (!strcmp(str(s, "state"), "ready") || mcp_json_is_true(mcp_json_get(s, "cached"))) {
        snprintf(row_text, sizeof row_text, "%g tool%s", tools, tools == 1 ? "" : "s");
        if (prompts > 0) cat(row_text, sizeof row_text, ", %g prompt%s", prompts, prompts == 1 ? "" : "s");
        if (resources > 0) cat(row_text, sizeof row_text, ", %g resource%s", resources, resources == 1 ? "" : "s");
        if (mcp_json_is_true(mcp_json_get(s, "cached"))) cat(row_text, sizeof row_text, " (cached)");
    }
    r->text = row_text;
}

/* servers: one row each, name, transport, state, and what it offers or why it is not ready.
   Exit status: that of the first server not ready (and not turned off), else 0. */
static int host_servers(char **a, int n, const argspec *args)
{
    mcp_host_server s;
    mcp_json_doc *doc;
    mcp_error e, err;
    mcp_jw w;
    size_t i, len;
    char *text;
    int rc = RC_OK, r;
    (void)a; (void)n; (void)args;
    if (opt.server && mcp_host_server_find(host, opt.server) < 0)
        return invalid("no server \"%s\" in %s", opt.server, config_list());
    if ((rc = host_start(NULL, opt.server)) != RC_OK) return rc;
    mcp_jw_init(&w, opt.pretty);
    mcp_jw_obj_begin(&w);
    mcp_jw_key(&w, "servers"); mcp_jw_arr_begin(&w);
    for (i = 0; i < mcp_host_server_count(host); i++) {
        if (mcp_host_server_get(host, i, &s) != MCP_OK || (opt.server && strcmp(s.name, opt.server))) continue;
        r = why_not(&s, &e);
        if (rc == RC_OK) rc = r;
        mcp_jw_obj_begin(&w);
        mcp_jw_key(&w, "name"); jw_text(&w, s.name);
        mcp_jw_key(&w, "transport"); mcp_jw_str(&w, transport_name(s.transport));
        mcp_jw_key(&w, "state"); mcp_jw_str(&w, state_name(s.state));
        if (s.file) { mcp_jw_key(&w, "file"); jw_text(&w, s.file); }
        if (s.state == MCP_SERVER_READY || s.cached) {
            mcp_jw_key(&w, "tools"); mcp_jw_int(&w, (int64_t)s.tools);
            mcp_jw_key(&w, "prompts"); mcp_jw_int(&w, (int64_t)s.prompts);
            mcp_jw_key(&w, "resources"); mcp_jw_int(&w, (int64_t)s.resources);
        }
        if (s.cached) { mcp_jw_key(&w, "cached"); mcp_jw_bool(&w, 1); }
        if (s.auth_url) { mcp_jw_key(&w, "auth_url"); jw_text(&w, s.auth_url); }
        if (r != RC_OK && s.state != MCP_SERVER_NEEDS_AUTH) {
            const char *st = mcp_status_str(e.status);
            mcp_jw_key(&w, "error"); mcp_jw_obj_begin(&w);
            mcp_jw_key(&w, "status"); mcp_jw_strn(&w, st, strcspn(st, ":"));
            mcp_jw_key(&w, "exit"); mcp_jw_int(&w, r);
            mcp_jw_key(&w, "message"); jw_text(&w, s.error ? s.error->message : e.message);
            mcp_jw_obj_end(&w);
        }
        mcp_jw_obj_end(&w);
    }
    mcp_jw_arr_end(&w); mcp_jw_obj_end(&w);
    if (!(text = mcp_jw_finish(&w, &len, &err))) return report(&err, RC_OTHER);
    if (opt.json) puts(text);
    else if ((doc = mcp_json_parse(text, len, &err)) != NULL) {
        print_table(mcp_json_get(mcp_json_root(doc), "servers"), server_row, "no servers");
        mcp_json_free(doc);
    }
    mcp_free(text);
    return rc;
}

/* tools, prompts, resources: the one list of every ready server, names qualified; the servers
   that are not ready said on stderr (and the exit status is the first one's). */
static int host_list(mcp_host_kind kind, const char *key, row_fn fill, const char *none)
{
    mcp_json_doc *doc = NULL;
    mcp_error err;
    int rc = host_start(NULL, NULL);
    if (rc != RC_OK) return rc;
    rc = host_failures(NULL);
    if (mcp_host_list(host, kind, &doc, &err) != MCP_OK) return fail(&err);
    if (opt.json) print_json(mcp_json_root(doc));
    else print_table(mcp_json_get(mcp_json_root(doc), key), fill, none);
    mcp_json_free(doc);
    return rc;
}

/* The item of that qualified name (tools, prompts) or URI (resources): 1 and *out, else 0. */
static int host_find(mcp_host_kind kind, const char *name, mcp_host_item *out)
{
    size_t i;
    for (i = 0; i < mcp_host_count(host, kind); i++)
        if (mcp_host_item_get(host, kind, i, out) == MCP_OK && !strcmp(out->qualified, name)) return 1;
    return 0;
}

/* No item of that name: the server it names failed (said), or no server has it. */
static int host_none(mcp_host_kind kind, const char *name)
{
    const char *what = kind == MCP_HOST_TOOLS ? "tool" : kind == MCP_HOST_PROMPTS ? "prompt" : "resource";
    mcp_host_item it;
    char names[400] = "";
    size_t i;
    mcp_host_server s;
    int rc = host_failures(name);
    if (rc != RC_OK) return rc;
    for (i = 0; i < mcp_host_server_count(host); i++)       /* of a server its file turns off */
        if (mcp_host_server_get(host, i, &s) == MCP_OK && s.state == MCP_SERVER_DISABLED && !s.error && may_own(s.name, name))
            return invalid("the server \"%s\" is turned off%s%s; --server %s runs it all the same", s.name,
                           s.file ? " in " : "", s.file ? s.file : "", s.name);
    for (i = 0; i < mcp_host_count(host, kind) && strlen(names) < 300; i++)
        if (mcp_host_item_get(host, kind, i, &it) == MCP_OK) cat(names, sizeof names, "%s%s", i ? ", " : "", it.qualified);
    return invalid("no server has a %s \"%s\"%s; the %ss: %s", what, name,
                   kind != MCP_HOST_RESOURCES && !strstr(name, "__") ? " (names are SERVER__NAME)" : "", what,
                   *names ? names : "none");
}

static mcp_status host_wait(mcp_host_call *hc, mcp_json_doc **result, mcp_error *err)
{
    mcp_status st;
    while (mcp_host_call_status(hc) == MCP_AGAIN && !interrupted) mcp_host_poll(host, 100);
    if (mcp_host_call_status(hc) == MCP_AGAIN && interrupted)
        mcp_host_call_cancel(hc, "the user pressed Ctrl-C");   /* the server is told */
    if (mcp_host_call_status(hc) == MCP_AGAIN) {
        mcp_host_call_free(hc);
        memset(err, 0, sizeof *err);
        err->status = MCP_ERR_CANCELLED;
        snprintf(err->message, sizeof err->message, "Request cancelled");
        return err->status;
    }
    st = mcp_host_call_result(hc, result, err);
    mcp_host_call_free(hc);
    return st;
}

static int host_tools(char **a, int n, const argspec *args)
{
    mcp_json_doc *doc = NULL;
    mcp_error err;
    const mcp_json *t;
    size_t i;
    int rc;
    (void)args;
    if (n == 0) return host_list(MCP_HOST_TOOLS, "tools", tool_row, "no tools");
    if ((rc = host_start(a[0], NULL)) != RC_OK) return rc;
    if (mcp_host_list(host, MCP_HOST_TOOLS, &doc, &err) != MCP_OK) return fail(&err);
    mcp_json_foreach(mcp_json_get(mcp_json_root(doc), "tools"), i, t)
        if (!strcmp(str(t, "name"), a[0])) break;
    if (!t) rc = host_none(MCP_HOST_TOOLS, a[0]);
    else if (opt.json) print_json(t);
    else print_tool(t);
    mcp_json_free(doc);
    return rc;
}

static int host_call(char **a, int n, const argspec *args)
{
    mcp_json_doc *doc = NULL;
    mcp_host_item it;
    mcp_host_call *hc;
    mcp_call_opts o;
    mcp_error err;
    char *json = NULL;
    int rc;
    (void)n;
    if ((rc = host_start(a[0], NULL)) != RC_OK) return rc;
    if (!host_find(MCP_HOST_TOOLS, a[0], &it)) return host_none(MCP_HOST_TOOLS, a[0]);
    if ((rc = build_args(args, ARGS_SCHEMA, mcp_json_get(it.item, "inputSchema"), a[0], &json)) != RC_OK) return rc;
    tool_opts(&o, a[0]);
    hc = mcp_host_send_tool(host, a[0], json, &o, &err);
    mcp_free(json);
    if (!hc || host_wait(hc, &doc, &err) != MCP_OK) return fail(&err);
    return print_call_result(a[0], doc);
}

static int host_prompts(char **a, int n, const argspec *args)
{ (void)a; (void)n; (void)args; return host_list(MCP_HOST_PROMPTS, "prompts", prompt_row, "no prompts"); }
static int host_resources(char **a, int n, const argspec *args)
{ (void)a; (void)n; (void)args; return host_list(MCP_HOST_RESOURCES, "resources", resource_row, "no resources"); }

/* A request to the server of an item: its method, and params made of the item's own name. */
static int host_prompt(char **a, int n, const argspec *args)
{
    mcp_json_doc *doc = NULL;
    mcp_host_item it;
    mcp_host_call *hc;
    mcp_error err;
    char server[512], *params;
    int rc;
    (void)n;
    if ((rc = host_start(a[0], NULL)) != RC_OK) return rc;
    if (!host_find(MCP_HOST_PROMPTS, a[0], &it)) return host_none(MCP_HOST_PROMPTS, a[0]);
    snprintf(server, sizeof server, "%s", it.server);
    if ((rc = prompt_params(it.name, args, &params)) != RC_OK) return rc;
    hc = mcp_host_send(host, server, "prompts/get", params, NULL, &err);
    mcp_free(params);
    if (!hc || host_wait(hc, &doc, &err) != MCP_OK) return fail(&err);
    print_prompt_result(doc);
    return RC_OK;
}

static int host_read(char **a, int n, const argspec *args)
{
    mcp_json_doc *doc = NULL;
    mcp_host_item it;
    mcp_host_call *hc;
    mcp_error err;
    char server[512], *params;
    int rc;
    (void)n; (void)args;
    if ((rc = host_start(NULL, NULL)) != RC_OK) return rc;
    if (!host_find(MCP_HOST_RESOURCES, a[0], &it)) {    /* not listed (a template's?): the host routes it */
        if (mcp_host_read_resource(host, a[0], &doc, &err) != MCP_OK) {
            host_failures(NULL);
            return fail(&err);
        }
    } else {
        snprintf(server, sizeof server, "%s", it.server);
        params = params1("uri", a[0]);
        hc = mcp_host_send(host, server, "resources/read", params, NULL, &err);
        mcp_free(params);
        if (!hc || host_wait(hc, &doc, &err) != MCP_OK) return fail(&err);
    }
    print_read_result(doc);
    return RC_OK;
}

/* Without --server: the commands on every server at once (`servers` the default). */
static const struct command HOST_COMMANDS[] = {
    { "servers", "servers", 0, 0, -1, host_servers },
    { "tools", "tools [SERVER__TOOL]", 0, 1, -1, host_tools },
    { "call", "call SERVER__TOOL [ARGS]", 1, -1, 1, host_call },
    { "prompts", "prompts", 0, 0, -1, host_prompts },
    { "prompt", "prompt SERVER__PROMPT [ARGS]", 1, -1, 1, host_prompt },
    { "resources", "resources", 0, 0, -1, host_resources },
    { "read", "read URI", 1, 1, -1, host_read },
};
static const struct command SERVERS_COMMAND = { "servers", "servers", 0, 0, -1, host_servers };

/* --config or --server after the first word (`mcpc tools --config F`), where no -- says that
   words are a server's arguments. */
static int config_later(int argc, char **argv, int i)
{
    int k;
    for (k = i; k < argc; k++) if (!strcmp(argv[k], "--")) return 0;
    for (k = i; k < argc; k++)
        if (!strcmp(argv[k], "--config") || !strcmp(argv[k], "--server") || !strncmp(argv[k], "--config=", 9) ||
            !strncmp(argv[k], "--server=", 9))
            return 1;
    return 0;
}

static const struct command *find_command(char **words, int n)
{
    size_t c;
    if (n == 0) return &COMMANDS[0];                        /* info */
    for (c = 0; c < sizeof COMMANDS / sizeof COMMANDS[0]; c++)
        if (!strcmp(COMMANDS[c].name, words[0])) return &COMMANDS[c];
    return NULL;
}

/* The command and its words, checked: RC_OK, or the usage error's status. */
static int check_command(const struct command *cmd, char **words, int n, argspec *args)
{
    int nargs = n > 0 ? n - 1 : 0, at = cmd->args_at;
    if (nargs < cmd->min || (cmd->max >= 0 && nargs > cmd->max))
        return usage("wrong number of arguments; the command is: %s", cmd->syntax);
    if (cmd->run == cmd_complete && strcmp(words[1], "prompt") && strcmp(words[1], "resource"))
        return usage("the command is: %s", cmd->syntax);
    if (opt.args_file && at < 0) return usage("--args-file goes with the commands that take ARGS: call, prompt, request");
    if (opt.watch_ms && cmd->run != cmd_watch) return usage("--for goes with watch");
    if (at >= 0) return parse_args(words + 1 + at, nargs > at ? nargs - at : 0, args);
    return RC_OK;
}

static const struct command *find_host_command(char **words, int n)
{
    size_t c;
    if (n == 0) return &HOST_COMMANDS[0];                   /* servers */
    for (c = 0; c < sizeof HOST_COMMANDS / sizeof HOST_COMMANDS[0]; c++)
        if (!strcmp(HOST_COMMANDS[c].name, words[0])) return &HOST_COMMANDS[c];
    return NULL;
}

/* Config mode: the command on every server of the files (the host), or with --server on that
   one as on a SERVER (`servers` taking the host, with it alone). */
static int config_main(char **words, int n, argspec *args)
{
    const struct command *cmd;
    int rc, on_host = !opt.server || (n > 0 && !strcmp(words[0], "servers"));
    catch_sigint();                         /* from the first file read: a Ctrl-C is said */
    if (opt.sse) return usage("--sse goes with a URL, not with --config or --server");
    cmd = !on_host ? find_command(words, n) : opt.server ? &SERVERS_COMMAND : find_host_command(words, n);
    if (!cmd && !opt.server && find_command(words, n))
        return usage("%s works on one server: add --server NAME (mcpc --config FILE servers lists them)", words[0]);
    if (!cmd) return usage("unknown command \"%s\"", words[0]);
    if (!opt.server) {
        const char *one = opt.nheaders ? "-H" : opt.nenv ? "-e" : desc.protocol_version ? "--protocol" :
                          opt.log_level ? "--log-level" : NULL;
        if (one) return usage("%s goes with one server: add --server NAME", one);
    }
    if ((rc = check_command(cmd, words, n, args)) != RC_OK) return rc;
    setup_desc();
    if (on_host) return (rc = host_open()) != RC_OK ? rc : cmd->run(words + 1, n > 0 ? n - 1 : 0, args);
    if ((rc = pick_server()) != RC_OK) return rc;
    setup_auth();
    if ((rc = setup_tls()) != RC_OK) return rc;
    return run(cmd, words + 1, n > 0 ? n - 1 : 0, args);
}

int main(int argc, char **argv)
{
    char *words[256];
    const struct command *cmd = NULL;
    argspec args;
    int i = 1, n = 0, rc;
    memset(&args, 0, sizeof args);
    while (i < argc && option(argc, argv, &i) != 0) i++;   /* options before the server */
    if (i < argc && !strcmp(argv[i], "--")) i++;
    config_mode = opt.nconfigs || opt.server || config_later(argc, argv, i);
    if (!config_mode) target(argc, argv, &i);
    for (; i < argc; i++)                                   /* the command, its words, options */
        if (option(argc, argv, &i) == 0) {
            if (n == (int)(sizeof words / sizeof words[0])) { bad_option("too many arguments"); break; }
            words[n++] = argv[i];
        }
    if (!config_mode && (opt.nconfigs || opt.server))
        bad_option("--config and --server take the place of SERVER: give them without a server");
    if (parse_err.status != MCP_OK) rc = usage("%s", parse_err.message);
    else if (config_mode) rc = config_main(words, n, &args);
    else if (!(cmd = find_command(words, n)))
        rc = usage("unknown command \"%s\"%s", words[0], desc.transport == MCP_STDIO && !dashdash ?
                   " (a server's arguments go in quotes with it, \"SERVER ARGS\", or end with --)" : "");
    else if ((rc = check_command(cmd, words, n, &args)) == RC_OK) {
        setup_desc();
        setup_auth();
        if ((rc = setup_tls()) == RC_OK) rc = run(cmd, words + 1, n > 0 ? n - 1 : 0, &args);
    }
    end_progress();
    if (client && (abandon || interrupted)) mcp_client_close_now(client);   /* no polite waits */
    mcp_client_free(client);                   /* tells the server, stops it, waits for it */
    if (host && (abandon || interrupted)) {    /* the same for each of the host's servers */
        mcp_host_server s;
        size_t k;
        for (k = 0; k < mcp_host_server_count(host); k++)
            if (mcp_host_server_get(host, k, &s) == MCP_OK && s.client) mcp_client_close_now(s.client);
    }
    mcp_host_free(host);
    for (i = 0; i < nconfigs; i++) mcp_buf_free(&configs[i].text);
    forget_kept();
    mcp_json_free(args.base);
    free(split_words_v);
    free(split_buf);
    free((void *)server_argv);
#ifdef MCPC_OPENSSL
    if (tls_on) tls_openssl_free(&tls);
#endif
    return rc;
}
