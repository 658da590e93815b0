/* mcpc - a command-line MCP client on mcp.h: list and call a server's tools, read its resources,
   get its prompts, from a shell or a script. `mcpc --help` documents it all.

       mcpc build/demo_server tools
       mcpc build/demo_server call add a=2 b=40

   Every request goes out with mcp_client_send and is waited for in a loop of
   mcp_client_poll(client, 100), so Ctrl-C (a flag set by the SIGINT handler) can cancel it:
   mcp_call_cancel tells the server, and mcpc exits with status 130. */
#define _POSIX_C_SOURCE 200809L
#define MCP_IMPLEMENTATION
#include "../mcp.h"
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const char HELP[] =
"mcpc - a command-line client for MCP (Model Context Protocol) servers, built on mcp.h\n"
"\n"
"Usage:\n"
"  mcpc [options] SERVER [COMMAND [ARGS...]]                      a server program to run\n"
"  mcpc [options] SERVER SERVER-ARGS... -- [COMMAND [ARGS...]]    ... with its arguments\n"
"  mcpc [options] http://HOST[:PORT]/PATH [COMMAND [ARGS...]]     Streamable HTTP\n"
"  mcpc [options] --sse URL [COMMAND [ARGS...]]                   HTTP+SSE (2024-11-05)\n"
"\n"
"A stdio server is started as a child process and stopped when mcpc is done. If it takes\n"
"arguments, end them with --; without --, SERVER is one word and the rest is the command.\n"
"https:// needs TLS, which mcp.h leaves to a hook (examples/tls_openssl.c); mcpc has none.\n"
"\n"
"Commands (default: info):\n"
"  info                            server name, version, protocol, capabilities, instructions\n"
"  tools                           the tools and their arguments ([optional] in brackets)\n"
"  call TOOL [ARGS]                call a tool and print what it returns\n"
"  resources                       the resources\n"
"  templates                       the resource templates\n"
"  read URI                        read a resource\n"
"  prompts                         the prompts and their arguments\n"
"  prompt NAME [ARGS]              get a prompt\n"
"  complete prompt NAME ARG [VALUE]     completions for a prompt argument\n"
"  complete resource URI ARG [VALUE]    completions for a resource template argument\n"
"  ping                            check that the server answers\n"
"  request METHOD [ARGS]           any request; prints the result as JSON\n"
"\n"
"ARGS is one JSON object, '{\"a\": 2, \"b\": 40}', or key=value words: a=2 b=40. A value that\n"
"is valid JSON is sent as that JSON (42, true, null, [1,2], {\"k\":1}, \"quoted\"), anything\n"
"else as a string: text=hello sends \"hello\", n=42 sends 42, n='\"42\"' sends \"42\".\n"
"\n"
"Options (before SERVER, or after COMMAND):\n"
"  -H, --header 'Name: value'  an HTTP header (repeatable): -H 'Authorization: Bearer TOKEN'\n"
"  -e, --env KEY=VALUE         an environment variable for the server process (repeatable)\n"
"      --sse URL               connect to URL with the HTTP+SSE transport\n"
"  -t, --timeout MS            per-request timeout in ms (default 30000; 0: none); progress\n"
"                              from the server restarts it, up to 10 times the timeout in all\n"
"      --protocol VERSION      speak only this protocol version, e.g. 2025-06-18\n"
"      --json                  print the result as JSON (pretty on a terminal, else compact)\n"
"      --progress              show progress even when stderr is not a terminal\n"
"  -v, --verbose               server log messages and stderr, notifications, to stderr\n"
"  -h, --help                  this text\n"
"\n"
"Progress reported by the server shows on stderr when it is a terminal. Ctrl-C cancels the\n"
"request in flight (the server is told) and exits with status 130; a second Ctrl-C quits\n"
"at once.\n"
"\n"
"Exit status:\n"
"  0    success\n"
"  1    another failure (out of memory)\n"
"  2    usage: bad arguments or options, or a request the server did not declare support for\n"
"  3    connection: the server could not be started or reached, or went away (HTTP errors too)\n"
"  4    protocol: the server answered with a JSON-RPC error, or broke the protocol\n"
"  5    the tool ran and reported an error (isError: true)\n"
"  6    timeout\n"
"  130  cancelled with Ctrl-C\n"
"\n"
"Examples:\n"
"  mcpc build/demo_server tools\n"
"  mcpc build/demo_server call add a=2 b=40\n"
"  mcpc build/demo_server call echo '{\"text\": \"hello\"}'\n"
"  mcpc build/demo_server read demo://greeting/Ada\n"
"  mcpc build/demo_server prompt greet name=Ada style=pirate\n"
"  mcpc build/demo_server complete prompt greet name A\n"
"  mcpc --json build/demo_server call slow steps=3 | jq .content\n"
"  mcpc -e DEBUG=1 npx -y @modelcontextprotocol/server-everything -- call echo message=hi\n"
"  mcpc -H 'Authorization: Bearer TOKEN' http://localhost:3000/mcp tools\n"
"  mcpc --sse http://localhost:3001/sse ping\n";

enum { RC_OK = 0, RC_OTHER = 1, RC_USAGE = 2, RC_CONNECT = 3, RC_PROTOCOL = 4, RC_TOOL = 5, RC_TIMEOUT = 6,
       RC_CANCELLED = 130 };

static struct {
    int json, pretty, verbose, progress, tty_progress;
    const char *headers[64], *env[64];
    int nheaders, nenv;
    const char *sse;
} opt;

static mcp_client *client;
static mcp_client_desc desc;
static volatile sig_atomic_t interrupted;
static int progress_shown;                  /* a progress line is on the terminal */

/* ---- small helpers -------------------------------------------------------------------------- */

static int usage(const char *fmt, ...)
{
    va_list ap;
    fputs("mcpc: ", stderr);
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputs("\nRun 'mcpc --help' for usage.\n", stderr);
    return RC_USAGE;
}

static void end_progress(void)              /* clear the progress line before other output */
{
    if (progress_shown) { fputs("\r\033[K", stderr); progress_shown = 0; }
}

/* The exit status for an error, after printing the library's sentence. */
static int fail(const mcp_error *err)
{
    end_progress();
    fprintf(stderr, "mcpc: %s\n", err->message);
    switch (err->status) {
    case MCP_ERR_INVALID: return RC_USAGE;
    case MCP_ERR_IO: case MCP_ERR_CLOSED: case MCP_ERR_HTTP: return RC_CONNECT;
    case MCP_ERR_RPC: case MCP_ERR_PROTOCOL: case MCP_ERR_PARSE: case MCP_ERR_LIMIT: return RC_PROTOCOL;
    case MCP_ERR_TIMEOUT: return RC_TIMEOUT;
    case MCP_ERR_CANCELLED: return RC_CANCELLED;
    default: return RC_OTHER;
    }
}

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

/* The first line of a description, at most 100 bytes (cut at a UTF-8 boundary). */
static void one_line(char *out, size_t size, const char *text)
{
    size_t n = strcspn(text, "\r\n"), max = size - 4 < 100 ? size - 4 : 100;
    if (n > max) {
        n = max;
        while (n > 0 && ((unsigned char)text[n] & 0xC0) == 0x80) n--;
        snprintf(out, size, "%.*s...", (int)n, text);
    } else {
        snprintf(out, size, "%.*s", (int)n, text);
    }
}

static unsigned long base64_bytes(const char *b64)   /* decoded size of base64 text */
{
    size_t n = strlen(b64);
    while (n > 0 && b64[n - 1] == '=') n--;
    return (unsigned long)(n * 3 / 4);
}

/* ---- requests: sent without blocking, waited for with Ctrl-C in mind ------------------------- */

static void on_sigint(int sig)
{
    (void)sig;
    if (interrupted) _exit(RC_CANCELLED);    /* the second Ctrl-C: quit at once */
    interrupted = 1;
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
    (void)call;
    if (!opt.progress) return;
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

/* ARGS: none, one JSON object, or key=value words. *out: JSON text (mcp_free it) or NULL. */
static int build_args(char **words, int n, char **out)
{
    mcp_jw w;
    mcp_json_doc *doc;
    mcp_error err;
    int i;
    *out = NULL;
    if (n == 0) return RC_OK;
    mcp_jw_init(&w, 0);
    if (words[0][0] == '{') {
        if (n > 1) return usage("give the arguments as one JSON object or as key=value words, not both");
        if (!(doc = mcp_json_parse(words[0], strlen(words[0]), &err)))
            return usage("the arguments are not valid JSON: %s", err.message);
        mcp_jw_value(&w, mcp_json_root(doc));
        mcp_json_free(doc);
    } else {
        mcp_jw_obj_begin(&w);
        for (i = 0; i < n; i++) {
            const char *eq = strchr(words[i], '=');
            if (!eq || eq == words[i]) {
                mcp_jw_free(&w);
                return usage("\"%s\" is not key=value (arguments are key=value words or one JSON object)", words[i]);
            }
            mcp_jw_keyn(&w, words[i], (size_t)(eq - words[i]));
            if ((doc = mcp_json_parse(eq + 1, strlen(eq + 1), NULL)) != NULL) mcp_jw_value(&w, mcp_json_root(doc));
            else mcp_jw_str(&w, eq + 1);    /* not JSON: a string */
            mcp_json_free(doc);
        }
        mcp_jw_obj_end(&w);
    }
    if (!(*out = mcp_jw_finish(&w, NULL, &err))) return usage("bad arguments: %s", err.message);
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

#define NCOL 4
typedef void (*row_fn)(const mcp_json *item, char cell[NCOL][256]);

/* An aligned table: one row per item, empty columns left out. */
static void print_table(const mcp_json *items, row_fn row, const char *none)
{
    size_t width[NCOL] = {0}, i, n;
    char cell[NCOL][256], line[NCOL * 260];
    const mcp_json *item;
    int k;
    if (mcp_json_len(items) == 0) { printf("(%s)\n", none); return; }
    mcp_json_foreach(items, i, item) {
        row(item, cell);
        for (k = 0; k < NCOL; k++)
            if (strlen(cell[k]) > width[k]) width[k] = strlen(cell[k]) > 60 ? 60 : strlen(cell[k]);
    }
    mcp_json_foreach(items, i, item) {
        row(item, cell);
        for (n = 0, k = 0; k < NCOL; k++)
            if (width[k]) n += (size_t)sprintf(line + n, "%-*s  ", (int)width[k], cell[k]);
        while (n > 0 && line[n - 1] == ' ') n--;
        printf("%.*s\n", (int)n, line);
    }
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

static void tool_row(const mcp_json *t, char cell[NCOL][256])
{
    snprintf(cell[0], 256, "%s", str(t, "name"));
    arg_names(cell[1], 256, mcp_json_get(t, "inputSchema"), NULL);
    one_line(cell[2], 256, str(t, "description"));
    cell[3][0] = 0;
}

static void prompt_row(const mcp_json *p, char cell[NCOL][256])
{
    snprintf(cell[0], 256, "%s", str(p, "name"));
    arg_names(cell[1], 256, NULL, mcp_json_get(p, "arguments"));
    one_line(cell[2], 256, str(p, "description"));
    cell[3][0] = 0;
}

static void resource_row(const mcp_json *r, char cell[NCOL][256])
{
    snprintf(cell[0], 256, "%s", *str(r, "uri") ? str(r, "uri") : str(r, "uriTemplate"));
    snprintf(cell[1], 256, "%s", str(r, "name"));
    snprintf(cell[2], 256, "%s", str(r, "mimeType"));
    one_line(cell[3], 256, str(r, "description"));
}

/* ---- the commands ---------------------------------------------------------------------------- */

static int cmd_info(char **a, int n, const char *args)
{
    const mcp_json *info = mcp_client_server_info(client), *caps = mcp_client_server_capabilities(client), *v, *f;
    const char *instr = mcp_client_instructions(client);
    size_t i, j, klen, flen;
    mcp_jw w;
    char *text;
    (void)a; (void)n; (void)args;
    if (opt.json) {
        mcp_jw_init(&w, opt.pretty);
        mcp_jw_obj_begin(&w);
        mcp_jw_key(&w, "protocolVersion"); mcp_jw_str(&w, mcp_client_protocol_version(client));
        mcp_jw_key(&w, "serverInfo"); mcp_jw_value(&w, info);
        mcp_jw_key(&w, "capabilities"); mcp_jw_value(&w, caps);
        if (instr) { mcp_jw_key(&w, "instructions"); mcp_jw_str(&w, instr); }
        mcp_jw_obj_end(&w);
        if ((text = mcp_jw_finish(&w, NULL, NULL)) != NULL) puts(text);
        mcp_free(text);
        return RC_OK;
    }
    printf("server:        %s %s", str(info, "name"), str(info, "version"));
    if (*str(info, "title")) printf(" (%s)", str(info, "title"));
    printf("\nprotocol:      %s\n", mcp_client_protocol_version(client));
    if (desc.transport == MCP_STDIO) {
        printf("transport:     stdio: %s", desc.command);
        for (i = 0; desc.args[i]; i++) printf(" %s", desc.args[i]);
        putchar('\n');
    } else {
        printf("transport:     %s %s\n", desc.transport == MCP_SSE ? "HTTP+SSE" : "Streamable HTTP", desc.url);
    }
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
    if (instr) {                            /* indented under its label */
        printf("instructions:  ");
        for (; *instr; instr++) {
            putchar(*instr);
            if (*instr == '\n' && instr[1]) printf("               ");
        }
        putchar('\n');
    }
    return RC_OK;
}

static int cmd_list(const char *method, const char *key, row_fn row, const char *none)
{
    mcp_json_doc *doc = NULL;
    mcp_error err;
    if (list_all(method, key, &doc, &err) != MCP_OK) return fail(&err);
    if (opt.json) print_json(mcp_json_root(doc));
    else print_table(mcp_json_get(mcp_json_root(doc), key), row, none);
    mcp_json_free(doc);
    return RC_OK;
}

static int cmd_tools(char **a, int n, const char *args)
{ (void)a; (void)n; (void)args; return cmd_list("tools/list", "tools", tool_row, "no tools"); }
static int cmd_resources(char **a, int n, const char *args)
{ (void)a; (void)n; (void)args; return cmd_list("resources/list", "resources", resource_row, "no resources"); }
static int cmd_templates(char **a, int n, const char *args)
{ (void)a; (void)n; (void)args; return cmd_list("resources/templates/list", "resourceTemplates", resource_row, "no resource templates"); }
static int cmd_prompts(char **a, int n, const char *args)
{ (void)a; (void)n; (void)args; return cmd_list("prompts/list", "prompts", prompt_row, "no prompts"); }

static int cmd_call(char **a, int n, const char *args)
{
    mcp_json_doc *doc = NULL;
    mcp_error err;
    mcp_call_opts o;
    mcp_call *call;
    const mcp_json *r, *item;
    size_t i;
    int is_error;
    (void)n;
    memset(&o, 0, sizeof o);
    o.on_progress = on_progress;            /* asks the server for progress */
    o.user = a[0];
    o.reset_on_progress = 1;
    call = mcp_client_send_tool(client, a[0], args, &o, &err);
    if (!call || wait_for(call, &doc, &err) != MCP_OK) return fail(&err);
    end_progress();
    r = mcp_json_root(doc);
    is_error = mcp_json_is_true(mcp_json_get(r, "isError"));
    if (opt.json) {
        print_json(r);
    } else {
        if (is_error) fprintf(stderr, "mcpc: the tool \"%s\" reported an error:\n", a[0]);
        mcp_json_foreach(mcp_json_get(r, "content"), i, item) print_content(is_error ? stderr : stdout, item);
        if (mcp_json_len(mcp_json_get(r, "content")) == 0 && mcp_json_get(r, "structuredContent"))
            print_json(mcp_json_get(r, "structuredContent"));
    }
    mcp_json_free(doc);
    return is_error ? RC_TOOL : RC_OK;
}

static int cmd_read(char **a, int n, const char *args)
{
    mcp_json_doc *doc = NULL;
    mcp_error err;
    const mcp_json *contents, *c;
    size_t i;
    mcp_status st;
    char *params = params1("uri", a[0]);
    (void)n; (void)args;
    st = request("resources/read", params, NULL, &doc, &err);
    mcp_free(params);
    if (st != MCP_OK) return fail(&err);
    contents = mcp_json_get(mcp_json_root(doc), "contents");
    if (opt.json) print_json(mcp_json_root(doc));
    else mcp_json_foreach(contents, i, c) {
        if (mcp_json_len(contents) > 1) printf("--- %s%s%s\n", str(c, "uri"), *str(c, "mimeType") ? " " : "", str(c, "mimeType"));
        if (mcp_json_get(c, "text")) print_text(stdout, str(c, "text"));
        else printf("[%s, %lu bytes]\n", *str(c, "mimeType") ? str(c, "mimeType") : "binary", base64_bytes(str(c, "blob")));
    }
    mcp_json_free(doc);
    return RC_OK;
}

static int cmd_prompt(char **a, int n, const char *args)
{
    mcp_json_doc *doc = NULL;
    mcp_error err;
    mcp_jw w;
    const mcp_json *m;
    size_t i;
    mcp_status st;
    char *params;
    (void)n;
    mcp_jw_init(&w, 0);
    mcp_jw_obj_begin(&w);
    mcp_jw_key(&w, "name"); mcp_jw_str(&w, a[0]);
    if (args) { mcp_jw_key(&w, "arguments"); mcp_jw_raw(&w, args, strlen(args)); }
    mcp_jw_obj_end(&w);
    params = mcp_jw_finish(&w, NULL, NULL);
    st = request("prompts/get", params, NULL, &doc, &err);
    mcp_free(params);
    if (st != MCP_OK) return fail(&err);
    if (opt.json) print_json(mcp_json_root(doc));
    else {
        if (*str(mcp_json_root(doc), "description")) printf("(%s)\n", str(mcp_json_root(doc), "description"));
        mcp_json_foreach(mcp_json_get(mcp_json_root(doc), "messages"), i, m) {
            printf("%s: ", str(m, "role"));
            print_content(stdout, mcp_json_get(m, "content"));
        }
    }
    mcp_json_free(doc);
    return RC_OK;
}

static int cmd_complete(char **a, int n, const char *args)
{
    mcp_json_doc *doc = NULL;
    mcp_error err;
    mcp_jw w;
    const mcp_json *c, *v;
    size_t i;
    mcp_status st;
    char *params;
    (void)args;
    mcp_jw_init(&w, 0);
    mcp_jw_obj_begin(&w);
    mcp_jw_key(&w, "ref"); mcp_jw_obj_begin(&w);
    mcp_jw_key(&w, "type"); mcp_jw_str(&w, a[0][0] == 'p' ? "ref/prompt" : "ref/resource");
    mcp_jw_key(&w, a[0][0] == 'p' ? "name" : "uri"); mcp_jw_str(&w, a[1]);
    mcp_jw_obj_end(&w);
    mcp_jw_key(&w, "argument"); mcp_jw_obj_begin(&w);
    mcp_jw_key(&w, "name"); mcp_jw_str(&w, a[2]);
    mcp_jw_key(&w, "value"); mcp_jw_str(&w, n > 3 ? a[3] : "");
    mcp_jw_obj_end(&w);
    mcp_jw_obj_end(&w);
    params = mcp_jw_finish(&w, NULL, NULL);
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

static int cmd_ping(char **a, int n, const char *args)
{
    mcp_json_doc *doc = NULL;
    mcp_error err;
    int64_t t0 = mcp_time_ms();
    (void)a; (void)n; (void)args;
    if (request("ping", NULL, NULL, &doc, &err) != MCP_OK) return fail(&err);
    if (opt.json) print_json(mcp_json_root(doc));
    else printf("pong (%lld ms)\n", (long long)(mcp_time_ms() - t0));
    mcp_json_free(doc);
    return RC_OK;
}

static int cmd_request(char **a, int n, const char *args)
{
    mcp_json_doc *doc = NULL;
    mcp_error err;
    (void)n;
    if (request(a[0], args, a[0], &doc, &err) != MCP_OK) return fail(&err);
    end_progress();
    print_json(mcp_json_root(doc));
    mcp_json_free(doc);
    return RC_OK;
}

typedef int (*cmd_fn)(char **a, int n, const char *args);
static const struct command {
    const char *name, *syntax;
    int min, max;                /* words after the command; max -1: ARGS follow min words */
    cmd_fn run;
} COMMANDS[] = {
    { "info", "info", 0, 0, cmd_info },
    { "tools", "tools", 0, 0, cmd_tools },
    { "call", "call TOOL [ARGS]", 1, -1, cmd_call },
    { "resources", "resources", 0, 0, cmd_resources },
    { "templates", "templates", 0, 0, cmd_templates },
    { "read", "read URI", 1, 1, cmd_read },
    { "prompts", "prompts", 0, 0, cmd_prompts },
    { "prompt", "prompt NAME [ARGS]", 1, -1, cmd_prompt },
    { "complete", "complete prompt NAME ARG [VALUE] | complete resource URI ARG [VALUE]", 3, 4, cmd_complete },
    { "ping", "ping", 0, 0, cmd_ping },
    { "request", "request METHOD [ARGS]", 1, -1, cmd_request },
};

/* ---- callbacks for -v ------------------------------------------------------------------------ */

static void on_notification(void *user, mcp_client *c, const char *method, const mcp_json *params)
{
    char *json;
    (void)user; (void)c;
    if (!opt.verbose || !strcmp(method, "notifications/progress")) return;
    end_progress();
    if (!strcmp(method, "notifications/message")) {     /* a server log message */
        const mcp_json *data = mcp_json_get(params, "data");
        json = mcp_json_typeof(data) == MCP_JSON_STRING ? NULL : mcp_json_dump(data, 0, NULL);
        fprintf(stderr, "[%s] %s%s%s\n", str(params, "level"), str(params, "logger"),
                *str(params, "logger") ? ": " : "", json ? json : mcp_json_str(data));
    } else {
        json = params ? mcp_json_dump(params, 0, NULL) : NULL;
        fprintf(stderr, "mcpc: notification %s%s%s\n", method, json ? " " : "", json ? json : "");
    }
    mcp_free(json);
}

static void on_stderr(void *user, mcp_client *c, const char *line, size_t len)
{
    (void)user; (void)c;
    end_progress();
    fprintf(stderr, "[server stderr] %.*s\n", (int)len, line);
}

static void on_log(void *user, mcp_client *c, const char *message)
{
    (void)user; (void)c;
    end_progress();
    fprintf(stderr, "mcpc: %s\n", message);
}

/* ---- main ------------------------------------------------------------------------------------ */

/* An option at argv[*i]: 1 if it was one (and consumed), 0 if not, -1 on a usage error. */
static int option(int argc, char **argv, int *i)
{
    const char *a = argv[*i], *val = NULL, *eq;
    static const char *const with_value[] = { "-H", "--header", "-e", "--env", "--sse", "-t", "--timeout",
                                              "--protocol", NULL };
    char name[32];
    int k;
    if (a[0] != '-' || !a[1] || !strcmp(a, "--")) return 0;
    eq = strncmp(a, "--", 2) ? NULL : strchr(a, '=');      /* --name=value */
    snprintf(name, sizeof name, "%.*s", eq ? (int)(eq - a) : (int)strlen(a), a);
    for (k = 0; with_value[k] && strcmp(with_value[k], name); k++) {}
    if (with_value[k]) {
        if (eq) val = eq + 1;
        else if (*i + 1 < argc) val = argv[++*i];
        else { usage("%s needs a value", name); return -1; }
    } else if (eq) {
        usage("%s takes no value", name);
        return -1;
    }
    if (!strcmp(name, "-H") || !strcmp(name, "--header")) {
        if (opt.nheaders == 63) { usage("too many headers"); return -1; }
        opt.headers[opt.nheaders++] = val;
    } else if (!strcmp(name, "-e") || !strcmp(name, "--env")) {
        if (!strchr(val, '=') || val[0] == '=') { usage("-e needs KEY=VALUE, not \"%s\"", val); return -1; }
        if (opt.nenv == 63) { usage("too many -e"); return -1; }
        opt.env[opt.nenv++] = val;
    } else if (!strcmp(name, "--sse")) opt.sse = val;
    else if (!strcmp(name, "-t") || !strcmp(name, "--timeout")) {
        char *end;
        long ms = strtol(val, &end, 10);
        if (*end || end == val || ms < 0 || ms > 0x7FFFFFFF) { usage("--timeout needs milliseconds, not \"%s\"", val); return -1; }
        desc.timeout_ms = ms ? (int)ms : -1;
    }
    else if (!strcmp(name, "--protocol")) desc.protocol_version = val;
    else if (!strcmp(name, "--json")) opt.json = 1;
    else if (!strcmp(name, "--progress")) opt.progress = 1;
    else if (!strcmp(name, "-v") || !strcmp(name, "--verbose")) opt.verbose = 1;
    else if (!strcmp(name, "-h") || !strcmp(name, "--help")) { fputs(HELP, stdout); exit(RC_OK); }
    else { usage("unknown option %s", a); return -1; }
    return 1;
}

static int is_url(const char *s) { return !strncmp(s, "http://", 7) || !strncmp(s, "https://", 8); }

int main(int argc, char **argv)
{
    static const char *no_args[] = { NULL };
    char *words[256], *args = NULL;
    const struct command *cmd = NULL;
    struct sigaction sa;
    mcp_error err;
    mcp_call *init;
    int i = 1, j, n = 0, r, k, nargs;
    size_t c;

    while (i < argc && (r = option(argc, argv, &i)) != 0) {   /* options before the server */
        if (r < 0) return RC_USAGE;
        i++;
    }
    if (i < argc && !strcmp(argv[i], "--")) i++;
    desc.args = no_args;
    if (opt.sse) {                                            /* the target */
        desc.transport = MCP_SSE; desc.url = opt.sse;
    } else if (i < argc && is_url(argv[i])) {
        desc.transport = MCP_HTTP; desc.url = argv[i++];
    } else if (i < argc) {
        desc.command = argv[i++];
        for (j = i; j < argc && strcmp(argv[j], "--"); j++) {}
        if (j < argc) {                                       /* SERVER SERVER-ARGS... -- */
            desc.args = (const char *const *)argv + i;
            argv[j] = NULL;                                   /* ends the args list */
            i = j;
        }
    } else {
        return usage("no server given: a command to run, an http:// URL or --sse URL");
    }
    if (desc.transport != MCP_STDIO && i < argc && !strcmp(argv[i], "--")) i++;
    else if (desc.args != no_args) i++;                       /* past the -- */
    for (; i < argc; i++) {                                   /* the command, its words, options */
        if ((r = option(argc, argv, &i)) < 0) return RC_USAGE;
        if (r == 0) {
            if (n == (int)(sizeof words / sizeof words[0])) return usage("too many arguments");
            words[n++] = argv[i];
        }
    }
    for (c = 0; n > 0 && c < sizeof COMMANDS / sizeof COMMANDS[0]; c++)
        if (!strcmp(COMMANDS[c].name, words[0])) cmd = &COMMANDS[c];
    if (n == 0) cmd = &COMMANDS[0];                           /* info */
    if (!cmd) {
        if (desc.transport == MCP_STDIO && desc.args == no_args)
            return usage("unknown command \"%s\" (if the server takes arguments, end them with --)", words[0]);
        return usage("unknown command \"%s\"", words[0]);
    }
    nargs = n > 0 ? n - 1 : 0;
    if (nargs < cmd->min || (cmd->max >= 0 && nargs > cmd->max))
        return usage("wrong number of arguments; the command is: %s", cmd->syntax);
    if (cmd->run == cmd_complete && strcmp(words[1], "prompt") && strcmp(words[1], "resource"))
        return usage("the command is: %s", cmd->syntax);
    if (cmd->max < 0 && (k = build_args(words + 1 + cmd->min, nargs - cmd->min, &args)) != RC_OK) return k;

    opt.pretty = isatty(1);
    opt.tty_progress = isatty(2);
    if (opt.tty_progress) opt.progress = 1;
    opt.headers[opt.nheaders] = NULL;
    opt.env[opt.nenv] = NULL;
    desc.headers = opt.headers;
    desc.env = opt.env;
    desc.client_name = "mcpc";
    desc.on_notification = on_notification;
    desc.on_log = opt.verbose ? on_log : NULL;
    desc.on_stderr = opt.verbose ? on_stderr : NULL;

    memset(&sa, 0, sizeof sa);                 /* Ctrl-C sets a flag; no SA_RESTART: poll wakes */
    sa.sa_handler = on_sigint;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGINT, &sa, NULL);

    if (!(client = mcp_client_new(&desc, &err))) { mcp_free(args); return fail(&err); }
    if (!(init = mcp_client_connect_begin(client, &err)) || wait_for(init, NULL, &err) != MCP_OK) {
        r = fail(&err);
    } else {
        if (opt.verbose) {
            const mcp_json *info = mcp_client_server_info(client);
            fprintf(stderr, "mcpc: connected to %s %s (protocol %s)\n", str(info, "name"), str(info, "version"),
                    mcp_client_protocol_version(client));
        }
        r = cmd->run(words + 1, nargs, args);
    }
    end_progress();
    mcp_client_free(client);                   /* tells the server, stops it, waits for it */
    mcp_free(args);
    return r;
}
