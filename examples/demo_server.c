/* demo_server - the MCP server that `make demo` talks to: a small but complete MCP server over
   stdio, written on mcp.h's own JSON and JSON-lines layers.

     tools      echo {text}               returns the text
                add {a, b}                returns a + b, also as structured content {"sum": ...}
                slow {steps, ms}          works steps x ms (default 5 x 300 ms), sending
                                          notifications/progress when the client asks for it
                picture                   a tiny PNG image and a link to demo://readme
                book {title, minutes, ...}  typed arguments (integer, number, boolean,
                                          enum, array, nullable, anyOf, $ref): answers with
                                          what it received, and refuses a wrong type
     resource   demo://readme             a short Markdown text
                demo://clock              the time; once subscribed, updated every second
                                          (notifications/resources/updated, and a debug log)
     template   demo://greeting/{name}    "Hello, NAME!"
                demo://city/{country}/{city}   completions of city follow the country
     prompt     greet {name, style}       asks the model to greet someone
     and        completion/complete (names, styles, countries, cities), logging/setLevel,
                resources/subscribe and unsubscribe, ping

   Messages are JSON lines on stdin and stdout. One poll() loop serves stdin, the timers of
   the slow calls and the clock, so the server is single-threaded and answers while slow calls
   run. It writes
   to stderr only when a call is cancelled, and exits when stdin ends. */
#define _POSIX_C_SOURCE 200809L
#define MCP_IMPLEMENTATION
#define MCP_NO_STDIO                /* a server: of mcp.h it needs the JSON layer alone */
#define MCP_NO_HTTP
#define MCP_NO_AUTH
#define MCP_NO_HOST
#include "../mcp.h"
#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
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
      "\"inputSchema\":{\"type\":\"object\"}},"
    "{\"name\":\"book\",\"title\":\"Book a room\",\"description\":\"Books a meeting room. A demo of typed "
      "arguments: it answers with the arguments as it received them, as JSON, and refuses a value of the "
      "wrong type.\",\"inputSchema\":{\"type\":\"object\",\"properties\":{"
      "\"title\":{\"type\":\"string\",\"description\":\"What the meeting is about\"},"
      "\"minutes\":{\"type\":\"integer\",\"description\":\"How long, in minutes\",\"default\":30,\"minimum\":5},"
      "\"budget\":{\"type\":\"number\",\"description\":\"What it may cost, in euros\"},"
      "\"online\":{\"type\":\"boolean\",\"description\":\"Also open a video call\",\"default\":false},"
      "\"room\":{\"type\":\"string\",\"enum\":[\"red\",\"blue\",\"green\"],\"description\":\"Which room\"},"
      "\"attendees\":{\"type\":\"array\",\"items\":{\"type\":\"string\"},\"description\":\"Who comes\"},"
      "\"note\":{\"type\":[\"string\",\"null\"],\"description\":\"A note for the door, or null for none\"},"
      "\"floor\":{\"anyOf\":[{\"type\":\"integer\"},{\"type\":\"string\"}],"
        "\"description\":\"A floor number, or a name such as roof\"},"
      "\"when\":{\"$ref\":\"#/$defs/slot\"}},"
      "\"required\":[\"title\"],"
      "\"$defs\":{\"slot\":{\"type\":\"object\",\"description\":\"A day and an hour, as JSON\","
        "\"properties\":{\"day\":{\"type\":\"string\",\"format\":\"date\"},"
        "\"hour\":{\"type\":\"integer\",\"minimum\":0,\"maximum\":23}},\"required\":[\"day\"]}}},"
      "\"outputSchema\":{\"type\":\"object\",\"properties\":{"
        "\"booking\":{\"type\":\"integer\",\"description\":\"The booking's number\"},"
        "\"received\":{\"type\":\"object\",\"description\":\"The arguments as the server got them\"}},"
        "\"required\":[\"booking\",\"received\"]}}]}";

static const char RESOURCES[] = "{\"resources\":[{\"uri\":\"demo://readme\",\"name\":\"readme\","
    "\"description\":\"What this server is.\",\"mimeType\":\"text/markdown\"},"
    "{\"uri\":\"demo://clock\",\"name\":\"clock\",\"description\":\"The time (UTC); subscribe to it "
    "and it changes every second.\",\"mimeType\":\"text/plain\"}]}";

static const char TEMPLATES[] = "{\"resourceTemplates\":[{\"uriTemplate\":\"demo://greeting/{name}\","
    "\"name\":\"greeting\",\"description\":\"A greeting for anyone.\",\"mimeType\":\"text/plain\"},"
    "{\"uriTemplate\":\"demo://city/{country}/{city}\",\"name\":\"city\",\"description\":\"A city; "
    "the completions of city follow the country.\",\"mimeType\":\"text/plain\"}]}";

static const char PROMPTS[] = "{\"prompts\":[{\"name\":\"greet\",\"description\":\"Asks the model to "
    "greet someone.\",\"arguments\":[{\"name\":\"name\",\"description\":\"Who to greet\",\"required\":true},"
    "{\"name\":\"style\",\"description\":\"formal, casual or pirate\"}]}]}";

static const char README[] =
    "# demo_server\n\nThe example MCP server of mcp.h, a C99 single-header MCP client.\n"
    "Try its tools with mcpc:\n\n    mcpc build/demo_server call add a=2 b=40\n";

static const char PNG_1X1[] = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==";

static const char *const NAMES[] = { "Ada", "Alan", "Barbara", "Grace", "Linus", "Margaret", NULL };
static const char *const STYLES[] = { "formal", "casual", "pirate", NULL };
static const char *const COUNTRIES[] = { "France", "Japan", "Peru", NULL };
static const char *const CITIES[][4] = {           /* in the order of COUNTRIES */
    { "Paris", "Lyon", "Nice", NULL }, { "Tokyo", "Osaka", "Kyoto", NULL }, { "Lima", "Cusco", "Arequipa", NULL } };
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
    raw("{\"tools\":{},\"resources\":{\"subscribe\":true},\"prompts\":{},\"logging\":{},\"completions\":{}}");
    mcp_jw_key(&w, "serverInfo");
    raw("{\"name\":\"demo_server\",\"title\":\"mcp.h demo server\",\"version\":\"1.0.0\"}");
    mcp_jw_key(&w, "instructions");
    mcp_jw_str(&w, "A demo: echo and add answer at once, slow reports progress, picture returns an image, "
                   "book takes typed arguments; subscribe to demo://clock and it changes every second.");
    mcp_jw_obj_end(&w);
    msg_send();
}

/* ---- book: what a strict server does with typed arguments ------------------------------------ */

enum { T_STR = 1, T_INT = 2, T_NUM = 4, T_BOOL = 8, T_ARR = 16, T_OBJ = 32, T_NULL = 64 };
static const struct { const char *key; int types; const char *what; } BOOK_ARGS[] = {
    { "title", T_STR, "a string" }, { "minutes", T_INT, "an integer" }, { "budget", T_NUM, "a number" },
    { "online", T_BOOL, "true or false" }, { "room", T_STR, "red, blue or green" },
    { "attendees", T_ARR, "an array of names" }, { "note", T_STR | T_NULL, "a string or null" },
    { "floor", T_INT | T_STR, "an integer or a string" }, { "when", T_OBJ, "an object {day, hour}" } };

static int json_types(const mcp_json *v)      /* the T_* a value fits: 42 is a number and an integer */
{
    int64_t i;
    switch (mcp_json_typeof(v)) {
    case MCP_JSON_STRING: return T_STR;
    case MCP_JSON_NUMBER: return T_NUM | (mcp_json_int64(v, &i) ? T_INT : 0);
    case MCP_JSON_BOOL: return T_BOOL;
    case MCP_JSON_ARRAY: return T_ARR;
    case MCP_JSON_OBJECT: return T_OBJ;
    default: return T_NULL;
    }
}

/* The first argument of the wrong type, as a sentence (NULL: all fit). Unknown keys pass, as a
   lenient server lets them. */
static const char *book_check(const mcp_json *args, char *text, size_t size)
{
    const char *room = mcp_json_str(mcp_json_get(args, "room"));
    size_t i, k, klen;
    if (!mcp_json_str(mcp_json_get(args, "title"))) return "book needs a title (a string).";
    for (i = 0; i < mcp_json_len(args); i++) {
        const char *key = mcp_json_key_at(args, i, &klen);
        for (k = 0; k < sizeof BOOK_ARGS / sizeof BOOK_ARGS[0]; k++)
            if (strlen(BOOK_ARGS[k].key) == klen && !memcmp(BOOK_ARGS[k].key, key, klen) &&
                !(json_types(mcp_json_at(args, i)) & BOOK_ARGS[k].types)) {
                snprintf(text, size, "book: %s must be %s.", BOOK_ARGS[k].key, BOOK_ARGS[k].what);
                return text;
            }
    }
    if (room && strcmp(room, "red") && strcmp(room, "blue") && strcmp(room, "green")) return "book: room must be red, blue or green.";
    return NULL;
}

static void book(const char *id, const mcp_json *args)
{
    static int bookings;
    char text[128], *json;
    const char *wrong = book_check(args, text, sizeof text);
    if (wrong) { reply_text(id, wrong, 1); return; }
    json = mcp_json_dump(args, 0, NULL);
    result_begin(id);
    mcp_jw_obj_begin(&w);
    mcp_jw_key(&w, "content"); mcp_jw_arr_begin(&w); text_item(json ? json : "{}"); mcp_jw_arr_end(&w);
    mcp_jw_key(&w, "structuredContent"); mcp_jw_obj_begin(&w);
    mcp_jw_key(&w, "booking"); mcp_jw_int(&w, ++bookings);
    mcp_jw_key(&w, "received"); mcp_jw_value(&w, args);
    mcp_jw_obj_end(&w);
    mcp_jw_obj_end(&w);
    msg_send();
    mcp_free(json);
}

/* ---- the clock: demo://clock changes every second while subscribed ------------------------------ */

static int clock_subscribed;
static int64_t clock_due;            /* the next tick */

static void clock_text(char *out, size_t size)
{
    time_t now = time(NULL);
    struct tm tm;
    gmtime_r(&now, &tm);
    strftime(out, size, "%H:%M:%S UTC", &tm);
}

static void run_clock(int64_t now)  /* notifications/resources/updated, and a debug log line */
{
    char text[64], when[32];
    if (!clock_subscribed || clock_due > now) return;
    clock_due += 1000;
    msg_begin();
    mcp_jw_key(&w, "method"); mcp_jw_str(&w, "notifications/resources/updated");
    mcp_jw_key(&w, "params"); raw("{\"uri\":\"demo://clock\"}");
    msg_send();
    clock_text(when, sizeof when);
    snprintf(text, sizeof text, "clock: %s", when);
    log_message("debug", text);
}

static void subscribe(const char *id, const mcp_json *params, int on)
{
    const char *uri = mcp_json_str(mcp_json_get(params, "uri"));
    if (!uri || (strcmp(uri, "demo://clock") && strcmp(uri, "demo://readme"))) {
        reply_error(id, -32002, "Resource not found");
        return;
    }
    if (!strcmp(uri, "demo://clock")) {
        if (on && !clock_subscribed) clock_due = mcp_time_ms() + 1000;
        clock_subscribed = on;
    }
    reply_raw(id, "{}");
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
        snprintf(text, sizeof text, "echo: %s of %zu bytes", json ? "JSON" : "text", strlen(json ? json : mcp_json_str(t) ? mcp_json_str(t) : ""));
        log_message("debug", text);                            /* seen after logging/setLevel debug */
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
    } else if (!strcmp(name, "book")) {
        book(id, args);
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
    } else if (uri && !strcmp(uri, "demo://clock")) {
        clock_text(buf, sizeof buf);
        text = buf;
    } else if (uri && !strncmp(uri, "demo://city/", 12) && strchr(uri + 12, '/') && strchr(uri + 12, '/')[1]) {
        const char *slash = strchr(uri + 12, '/');
        snprintf(buf, sizeof buf, "%.60s, in %.*s.", slash + 1, (int)(slash - uri - 12 > 60 ? 60 : slash - uri - 12), uri + 12);
        text = buf;
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

/* completion/complete: names for greet's "name" and the template's {name}, styles for "style",
   countries, and the cities of the country in context.arguments (all cities without it) */
static void complete(const char *id, const mcp_json *params)
{
    const mcp_json *arg = mcp_json_get(params, "argument");
    const char *which = mcp_json_str(mcp_json_get(arg, "name"));
    const char *prefix = mcp_json_str(mcp_json_get(arg, "value"));
    const char *country = mcp_json_str(mcp_json_get(mcp_json_get(mcp_json_get(params, "context"), "arguments"), "country"));
    const char *list[16];
    int i, k, n = 0, found = 0;
    if (!prefix) prefix = "";
    if (!which) which = "";
    for (i = 0; !strcmp(which, "name") && NAMES[i]; i++) list[n++] = NAMES[i];
    for (i = 0; !strcmp(which, "style") && STYLES[i]; i++) list[n++] = STYLES[i];
    for (i = 0; !strcmp(which, "country") && COUNTRIES[i]; i++) list[n++] = COUNTRIES[i];
    for (i = 0; !strcmp(which, "city") && COUNTRIES[i]; i++)
        if (!country || !strcmp(country, COUNTRIES[i]))
            for (k = 0; CITIES[i][k]; k++) list[n++] = CITIES[i][k];
    result_begin(id);
    mcp_jw_obj_begin(&w);
    mcp_jw_key(&w, "completion"); mcp_jw_obj_begin(&w);
    mcp_jw_key(&w, "values"); mcp_jw_arr_begin(&w);
    for (i = 0; i < n; i++)
        if (!strncmp(list[i], prefix, strlen(prefix))) { mcp_jw_str(&w, list[i]); found++; }
    mcp_jw_arr_end(&w);
    mcp_jw_key(&w, "total"); mcp_jw_int(&w, found);
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
    else if (!strcmp(method, "resources/subscribe")) subscribe(id, params, 1);
    else if (!strcmp(method, "resources/unsubscribe")) subscribe(id, params, 0);
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
        int64_t now = mcp_time_ms();
        int wait;
        run_jobs(now);
        run_clock(now);
        wait = ms_to_next_job(now);
        if (clock_subscribed && (wait < 0 || clock_due - now < wait)) wait = clock_due > now ? (int)(clock_due - now) : 0;
        pfd.fd = 0; pfd.events = POLLIN; pfd.revents = 0;
        if (poll(&pfd, 1, wait) <= 0) continue;             /* a timer is due */
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
