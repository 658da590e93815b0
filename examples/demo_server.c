/* demo_server - the MCP server that `make demo` talks to: a small but complete MCP server over
   stdio, written on mcp.h's own JSON and JSON-lines layers.

     tools      echo {text}               returns the text
                add {a, b}                returns a + b, also as structured content {"sum": ...}
                slow {steps, ms}          works steps x ms (default 5 x 300 ms), sending
                                          notifications/progress when the client asks for it
                picture                   a tiny PNG image and a link to demo://readme
     resource   demo://readme             a short Markdown text
     template   demo://greeting/{name}    "Hello, NAME!"
     prompt     greet {name, style}       asks the model to greet someone
     and        completion/complete (names and styles), logging/setLevel, ping

   Messages are JSON lines on stdin and stdout. One poll() loop serves stdin and the timers of
   the slow calls, so the server is single-threaded and answers while slow calls run. It writes
   to stderr only when a call is cancelled, and exits when stdin ends. */
#define _POSIX_C_SOURCE 200809L
#define MCP_IMPLEMENTATION
#include "../mcp.h"
#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* ---- what the server offers: mostly fixed JSON ----------------------------------------------- */

static const char TOOLS[] = "{\"tools\":["
    "{\"name\":\"echo\",\"description\":\"Returns the text you send.\",\"inputSchema\":{\"type\":\"object\","
      "\"properties\":{\"text\":{\"type\":\"string\"}},\"required\":[\"text\"]}},"
    "{\"name\":\"add\",\"description\":\"Adds two numbers.\",\"inputSchema\":{\"type\":\"object\","
      "\"properties\":{\"a\":{\"type\":\"number\"},\"b\":{\"type\":\"number\"}},\"required\":[\"a\",\"b\"]},"
      "\"outputSchema\":{\"type\":\"object\",\"properties\":{\"sum\":{\"type\":\"number\"}},\"required\":[\"sum\"]}},"
    "{\"name\":\"slow\",\"description\":\"Works for a while (steps x ms, default 5 x 300 ms) and reports "
      "progress.\",\"inputSchema\":{\"type\":\"object\",\"properties\":{\"steps\":{\"type\":\"integer\"},"
      "\"ms\":{\"type\":\"integer\"}}}},"
    "{\"name\":\"picture\",\"description\":\"Returns a tiny PNG image and a link to demo://readme.\","
      "\"inputSchema\":{\"type\":\"object\"}}]}";

static const char RESOURCES[] = "{\"resources\":[{\"uri\":\"demo://readme\",\"name\":\"readme\","
    "\"description\":\"What this server is.\",\"mimeType\":\"text/markdown\"}]}";

static const char TEMPLATES[] = "{\"resourceTemplates\":[{\"uriTemplate\":\"demo://greeting/{name}\","
    "\"name\":\"greeting\",\"description\":\"A greeting for anyone.\",\"mimeType\":\"text/plain\"}]}";

static const char PROMPTS[] = "{\"prompts\":[{\"name\":\"greet\",\"description\":\"Asks the model to "
    "greet someone.\",\"arguments\":[{\"name\":\"name\",\"description\":\"Who to greet\",\"required\":true},"
    "{\"name\":\"style\",\"description\":\"formal, casual or pirate\"}]}]}";

static const char README[] =
    "# demo_server\n\nThe example MCP server of mcp.h, a C99 single-header MCP client.\n"
    "Try its tools with mcpc:\n\n    mcpc build/demo_server call add a=2 b=40\n";

static const char PNG_1X1[] = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==";

static const char *const NAMES[] = { "Ada", "Alan", "Barbara", "Grace", "Linus", "Margaret", NULL };
static const char *const STYLES[] = { "formal", "casual", "pirate", NULL };
static const char *const LEVELS[] = { "debug", "info", "notice", "warning", "error", "critical",
                                      "alert", "emergency", NULL };
static int log_level = 1;            /* info and above, until logging/setLevel */

/* ---- writing messages: one JSON line each ---------------------------------------------------- */

static mcp_jw w;                     /* the message being written */

static void msg_begin(void)
{
    mcp_jw_reset(&w);
    mcp_jw_obj_begin(&w);
    mcp_jw_key(&w, "jsonrpc"); mcp_jw_str(&w, "2.0");
}

static void raw(const char *json) { mcp_jw_raw(&w, json, strlen(json)); }   /* JSON text as is */

static void msg_send(void)
{
    size_t n;
    const char *text;
    mcp_jw_obj_end(&w);
    if ((text = mcp_jw_text(&w, &n)) == NULL) { fprintf(stderr, "demo_server: bad message\n"); exit(1); }
    fwrite(text, 1, n, stdout);
    fputc('\n', stdout);
    fflush(stdout);
}

/* {"jsonrpc":"2.0","id":ID,"result": ... then the caller writes the result and calls msg_send */
static void result_begin(const char *id)
{
    msg_begin();
    mcp_jw_key(&w, "id"); raw(id);
    mcp_jw_key(&w, "result");
}

static void reply_raw(const char *id, const char *result_json)
{
    result_begin(id);
    raw(result_json);
    msg_send();
}

static void reply_error(const char *id, int code, const char *message)
{
    msg_begin();
    mcp_jw_key(&w, "id"); raw(id);
    mcp_jw_key(&w, "error"); mcp_jw_obj_begin(&w);
    mcp_jw_key(&w, "code"); mcp_jw_int(&w, code);
    mcp_jw_key(&w, "message"); mcp_jw_str(&w, message);
    mcp_jw_obj_end(&w);
    msg_send();
}

static void text_item(const char *text)
{
    mcp_jw_obj_begin(&w);
    mcp_jw_key(&w, "type"); mcp_jw_str(&w, "text");
    mcp_jw_key(&w, "text"); mcp_jw_str(&w, text);
    mcp_jw_obj_end(&w);
}

/* A tool's answer: one text item; is_error marks a failure the model should see. */
static void reply_text(const char *id, const char *text, int is_error)
{
    result_begin(id);
    mcp_jw_obj_begin(&w);
    mcp_jw_key(&w, "content"); mcp_jw_arr_begin(&w); text_item(text); mcp_jw_arr_end(&w);
    if (is_error) { mcp_jw_key(&w, "isError"); mcp_jw_bool(&w, 1); }
    mcp_jw_obj_end(&w);
    msg_send();
}

static void log_message(const char *level, const char *text)   /* notifications/message */
{
    int i;
    for (i = 0; LEVELS[i] && strcmp(LEVELS[i], level); i++) {}
    if (i < log_level) return;
    msg_begin();
    mcp_jw_key(&w, "method"); mcp_jw_str(&w, "notifications/message");
    mcp_jw_key(&w, "params"); mcp_jw_obj_begin(&w);
    mcp_jw_key(&w, "level"); mcp_jw_str(&w, level);
    mcp_jw_key(&w, "logger"); mcp_jw_str(&w, "demo_server");
    mcp_jw_key(&w, "data"); mcp_jw_str(&w, text);
    mcp_jw_obj_end(&w);
    msg_send();
}

/* ---- slow calls: timers run by the main loop ------------------------------------------------- */

typedef struct job {
    char *id, *token;                /* JSON text; token NULL when no progress was asked for */
    int step, steps, ms;
    int64_t due;                     /* when the next step ends */
} job;
static job jobs[32];
static int njobs;

static void job_end(int i)
{
    free(jobs[i].id); mcp_free(jobs[i].token);
    jobs[i] = jobs[--njobs];
}

static void run_jobs(int64_t now)
{
    char text[96];
    int i;
    for (i = 0; i < njobs; i++) {
        job *j = &jobs[i];
        if (j->due > now) continue;
        j->step++;
        j->due += j->ms;
        if (j->token) {              /* notifications/progress with the caller's token */
            snprintf(text, sizeof text, "step %d of %d", j->step, j->steps);
            msg_begin();
            mcp_jw_key(&w, "method"); mcp_jw_str(&w, "notifications/progress");
            mcp_jw_key(&w, "params"); mcp_jw_obj_begin(&w);
            mcp_jw_key(&w, "progressToken"); raw(j->token);
            mcp_jw_key(&w, "progress"); mcp_jw_int(&w, j->step);
            mcp_jw_key(&w, "total"); mcp_jw_int(&w, j->steps);
            mcp_jw_key(&w, "message"); mcp_jw_str(&w, text);
            mcp_jw_obj_end(&w);
            msg_send();
        }
        if (j->step == j->steps) {
            snprintf(text, sizeof text, "done: %d steps of %d ms", j->steps, j->ms);
            reply_text(j->id, text, 0);
            job_end(i--);
        }
    }
}

static int ms_to_next_job(int64_t now)   /* the poll() timeout: -1 when nothing is running */
{
    int i, wait = -1;
    for (i = 0; i < njobs; i++) {
        int left = jobs[i].due <= now ? 0 : (int)(jobs[i].due - now);
        if (wait < 0 || left < wait) wait = left;
    }
    return wait;
}

/* notifications/cancelled: the client gave up on a request; drop it if it is ours */
static void cancel(const mcp_json *params)
{
    char *id = mcp_json_dump(mcp_json_get(params, "requestId"), 0, NULL);
    const char *reason = mcp_json_str(mcp_json_get(params, "reason"));
    int i;
    for (i = 0; id && i < njobs; i++)
        if (!strcmp(jobs[i].id, id)) {
            fprintf(stderr, "demo_server: request %s cancelled (%s)\n", id, reason ? reason : "no reason given");
            job_end(i);
            break;
        }
    mcp_free(id);
}

/* ---- requests ------------------------------------------------------------------------------- */

static void initialize(const char *id, const mcp_json *params)
{
    static const char *const known[] = { "2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05", NULL };
    const char *asked = mcp_json_str(mcp_json_get(params, "protocolVersion"));
    const char *version = known[0];  /* the client's version if we know it, else our newest */
    int i;
    for (i = 0; asked && known[i]; i++)
        if (!strcmp(asked, known[i])) version = known[i];
    result_begin(id);
    mcp_jw_obj_begin(&w);
    mcp_jw_key(&w, "protocolVersion"); mcp_jw_str(&w, version);
    mcp_jw_key(&w, "capabilities");
    raw("{\"tools\":{},\"resources\":{},\"prompts\":{},\"logging\":{},\"completions\":{}}");
    mcp_jw_key(&w, "serverInfo");
    raw("{\"name\":\"demo_server\",\"title\":\"mcp.h demo server\",\"version\":\"1.0.0\"}");
    mcp_jw_key(&w, "instructions");
    mcp_jw_str(&w, "A demo: echo and add answer at once, slow reports progress, picture returns an image.");
    mcp_jw_obj_end(&w);
    msg_send();
}

static void call_tool(const char *id, const mcp_json *params)
{
    const char *name = mcp_json_str(mcp_json_get(params, "name"));
    const mcp_json *args = mcp_json_get(params, "arguments");
    char text[128];
    if (!name) name = "";
    if (!strcmp(name, "echo")) {
        const mcp_json *t = mcp_json_get(args, "text");
        char *json = mcp_json_typeof(t) == MCP_JSON_STRING ? NULL : mcp_json_dump(t, 0, NULL);
        reply_text(id, json ? json : mcp_json_str(t), 0);      /* not a string: echo its JSON */
        mcp_free(json);
    } else if (!strcmp(name, "add")) {
        const mcp_json *a = mcp_json_get(args, "a"), *b = mcp_json_get(args, "b");
        double sum;
        if (mcp_json_typeof(a) != MCP_JSON_NUMBER || mcp_json_typeof(b) != MCP_JSON_NUMBER) {
            reply_text(id, "add needs two numbers, a and b.", 1);
            return;
        }
        sum = mcp_json_num(a) + mcp_json_num(b);
        snprintf(text, sizeof text, "%.17g", sum);
        result_begin(id);
        mcp_jw_obj_begin(&w);
        mcp_jw_key(&w, "content"); mcp_jw_arr_begin(&w); text_item(text); mcp_jw_arr_end(&w);
        mcp_jw_key(&w, "structuredContent"); mcp_jw_obj_begin(&w);
        mcp_jw_key(&w, "sum");
        if (sum > -1e15 && sum < 1e15 && sum == (double)(int64_t)sum) mcp_jw_int(&w, (int64_t)sum);
        else mcp_jw_num(&w, sum);                               /* 42, not 42.0 */
        mcp_jw_obj_end(&w);
        mcp_jw_obj_end(&w);
        msg_send();
    } else if (!strcmp(name, "slow")) {
        const mcp_json *token = mcp_json_get(mcp_json_get(params, "_meta"), "progressToken");
        const mcp_json *steps = mcp_json_get(args, "steps"), *ms = mcp_json_get(args, "ms");
        job *j;
        if (njobs == (int)(sizeof jobs / sizeof jobs[0])) { reply_text(id, "Too many slow calls.", 1); return; }
        j = &jobs[njobs++];
        j->steps = steps ? (int)mcp_json_num(steps) : 5;
        j->ms = ms ? (int)mcp_json_num(ms) : 300;
        if (j->steps < 1 || j->steps > 1000) j->steps = 5;
        if (j->ms < 0 || j->ms > 60000) j->ms = 300;
        j->step = 0;
        j->due = mcp_time_ms() + j->ms;
        j->id = strdup(id);
        j->token = token ? mcp_json_dump(token, 0, NULL) : NULL;
        snprintf(text, sizeof text, "slow: working for %d steps of %d ms", j->steps, j->ms);
        log_message("info", text);
    } else if (!strcmp(name, "picture")) {
        result_begin(id);
        mcp_jw_obj_begin(&w);
        mcp_jw_key(&w, "content"); mcp_jw_arr_begin(&w);
        text_item("A 1x1 PNG:");
        mcp_jw_obj_begin(&w);
        mcp_jw_key(&w, "type"); mcp_jw_str(&w, "image");
        mcp_jw_key(&w, "data"); mcp_jw_str(&w, PNG_1X1);
        mcp_jw_key(&w, "mimeType"); mcp_jw_str(&w, "image/png");
        mcp_jw_obj_end(&w);
        raw("{\"type\":\"resource_link\",\"uri\":\"demo://readme\",\"name\":\"readme\","
            "\"mimeType\":\"text/markdown\"}");
        mcp_jw_arr_end(&w);
        mcp_jw_obj_end(&w);
        msg_send();
    } else {
        snprintf(text, sizeof text, "Unknown tool: %.80s", name);
        reply_error(id, -32602, text);
    }
}

static void read_resource(const char *id, const mcp_json *params)
{
    const char *uri = mcp_json_str(mcp_json_get(params, "uri")), *mime = "text/plain", *text;
    char buf[160];
    if (uri && !strcmp(uri, "demo://readme")) {
        text = README; mime = "text/markdown";
    } else if (uri && !strncmp(uri, "demo://greeting/", 16) && uri[16]) {
        snprintf(buf, sizeof buf, "Hello, %.100s!", uri + 16);
        text = buf;
    } else {
        snprintf(buf, sizeof buf, "Resource not found: %.100s", uri ? uri : "(no uri)");
        reply_error(id, -32002, buf);
        return;
    }
    result_begin(id);
    mcp_jw_obj_begin(&w);
    mcp_jw_key(&w, "contents"); mcp_jw_arr_begin(&w); mcp_jw_obj_begin(&w);
    mcp_jw_key(&w, "uri"); mcp_jw_str(&w, uri);
    mcp_jw_key(&w, "mimeType"); mcp_jw_str(&w, mime);
    mcp_jw_key(&w, "text"); mcp_jw_str(&w, text);
    mcp_jw_obj_end(&w); mcp_jw_arr_end(&w);
    mcp_jw_obj_end(&w);
    msg_send();
}

static void get_prompt(const char *id, const mcp_json *params)
{
    const char *prompt = mcp_json_str(mcp_json_get(params, "name"));
    const mcp_json *args = mcp_json_get(params, "arguments");
    const char *name = mcp_json_str(mcp_json_get(args, "name"));
    const char *style = mcp_json_str(mcp_json_get(args, "style"));
    char text[256];
    if (!prompt || strcmp(prompt, "greet")) { reply_error(id, -32602, "Unknown prompt"); return; }
    if (!name) { reply_error(id, -32602, "The prompt greet needs the argument name."); return; }
    snprintf(text, sizeof text, "Please write a short, %.20s greeting for %.100s.", style ? style : "friendly", name);
    result_begin(id);
    mcp_jw_obj_begin(&w);
    mcp_jw_key(&w, "description"); mcp_jw_str(&w, "A greeting");
    mcp_jw_key(&w, "messages"); mcp_jw_arr_begin(&w); mcp_jw_obj_begin(&w);
    mcp_jw_key(&w, "role"); mcp_jw_str(&w, "user");
    mcp_jw_key(&w, "content"); text_item(text);
    mcp_jw_obj_end(&w); mcp_jw_arr_end(&w);
    mcp_jw_obj_end(&w);
    msg_send();
}

/* completion/complete: names for greet's "name" and the template's {name}, styles for "style" */
static void complete(const char *id, const mcp_json *params)
{
    const mcp_json *arg = mcp_json_get(params, "argument");
    const char *which = mcp_json_str(mcp_json_get(arg, "name"));
    const char *prefix = mcp_json_str(mcp_json_get(arg, "value"));
    const char *const *list = which && !strcmp(which, "style") ? STYLES : which && !strcmp(which, "name") ? NAMES : NULL;
    int i, n = 0;
    if (!prefix) prefix = "";
    result_begin(id);
    mcp_jw_obj_begin(&w);
    mcp_jw_key(&w, "completion"); mcp_jw_obj_begin(&w);
    mcp_jw_key(&w, "values"); mcp_jw_arr_begin(&w);
    for (i = 0; list && list[i]; i++)
        if (!strncmp(list[i], prefix, strlen(prefix))) { mcp_jw_str(&w, list[i]); n++; }
    mcp_jw_arr_end(&w);
    mcp_jw_key(&w, "total"); mcp_jw_int(&w, n);
    mcp_jw_key(&w, "hasMore"); mcp_jw_bool(&w, 0);
    mcp_jw_obj_end(&w);
    mcp_jw_obj_end(&w);
    msg_send();
}

static void set_level(const char *id, const mcp_json *params)
{
    const char *level = mcp_json_str(mcp_json_get(params, "level"));
    int i;
    for (i = 0; level && LEVELS[i]; i++)
        if (!strcmp(LEVELS[i], level)) { log_level = i; reply_raw(id, "{}"); return; }
    reply_error(id, -32602, "Unknown logging level");
}

static void on_message(const char *line, size_t len)
{
    mcp_json_doc *doc = mcp_json_parse(line, len, NULL);
    const mcp_json *msg = mcp_json_root(doc), *params = mcp_json_get(msg, "params");
    const mcp_json *idv = mcp_json_get(msg, "id");
    const char *method = mcp_json_str(mcp_json_get(msg, "method"));
    char *id = idv ? mcp_json_dump(idv, 0, NULL) : NULL;          /* NULL: a notification */
    if (!doc) reply_error("null", -32700, "Parse error");
    else if (!method) {}                                           /* a response: we ask nothing */
    else if (!id) { if (!strcmp(method, "notifications/cancelled")) cancel(params); }
    else if (!strcmp(method, "initialize")) initialize(id, params);
    else if (!strcmp(method, "ping")) reply_raw(id, "{}");
    else if (!strcmp(method, "tools/list")) reply_raw(id, TOOLS);
    else if (!strcmp(method, "tools/call")) call_tool(id, params);
    else if (!strcmp(method, "resources/list")) reply_raw(id, RESOURCES);
    else if (!strcmp(method, "resources/templates/list")) reply_raw(id, TEMPLATES);
    else if (!strcmp(method, "resources/read")) read_resource(id, params);
    else if (!strcmp(method, "prompts/list")) reply_raw(id, PROMPTS);
    else if (!strcmp(method, "prompts/get")) get_prompt(id, params);
    else if (!strcmp(method, "completion/complete")) complete(id, params);
    else if (!strcmp(method, "logging/setLevel")) set_level(id, params);
    else reply_error(id, -32601, "Method not found");
    mcp_free(id);
    mcp_json_free(doc);
}

int main(void)
{
    static char buf[65536];
    mcp_jsonl in;
    const char *line;
    size_t len, off, used;
    memset(&in, 0, sizeof in);
    mcp_jw_init(&w, 0);
    for (;;) {
        struct pollfd pfd;
        ssize_t n;
        run_jobs(mcp_time_ms());
        pfd.fd = 0; pfd.events = POLLIN; pfd.revents = 0;
        if (poll(&pfd, 1, ms_to_next_job(mcp_time_ms())) <= 0) continue;   /* a timer is due */
        n = read(0, buf, sizeof buf);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) break;                                  /* stdin ended: the client is gone */
        for (off = 0; off < (size_t)n; off += used) {
            if (mcp_jsonl_feed(&in, buf + off, (size_t)n - off, &used) < 0) {
                fprintf(stderr, "demo_server: %s\n", in.what);
                return 1;
            }
            while (mcp_jsonl_next(&in, &line, &len) == MCP_OK) on_message(line, len);
        }
    }
    while (njobs) job_end(0);
    mcp_jsonl_free(&in);
    mcp_jw_free(&w);
    return 0;
}
