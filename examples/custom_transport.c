/* custom_transport - an MCP server inside the program, behind a transport of our own.
   desc.transport = MCP_CUSTOM and desc.custom = a table of operations (struct mcp_transport):
   send hands each message to serve(), a tiny server with one tool, "echo"; its answers wait
   in a queue until the client's poll calls io, which reports them with mcp_transport_report.
   No process, no socket. Run: custom_transport */
#define MCP_IMPLEMENTATION
#include "../mcp.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct reply { struct reply *next; size_t len; char text[]; } reply;
typedef struct inproc {                 /* the transport's state, from open */
    mcp_client *c;
    reply *head, *tail;                 /* the server's answers, not yet reported */
    mcp_jw w;
} inproc;

/* The server: one request in, its answer queued (notifications get none). */
static void serve(inproc *t, const char *msg, size_t len) {
    mcp_json_doc *doc = mcp_json_parse(msg, len, NULL);
    const mcp_json *m = mcp_json_root(doc), *id = mcp_json_get(m, "id"), *params = mcp_json_get(m, "params");
    const char *method = mcp_json_str(mcp_json_get(m, "method")), *text;
    size_t n;
    if (!id || !method) { mcp_json_free(doc); return; }
    mcp_jw_reset(&t->w);
    mcp_jw_obj_begin(&t->w);
    mcp_jw_key(&t->w, "jsonrpc"); mcp_jw_str(&t->w, "2.0");
    mcp_jw_key(&t->w, "id"); mcp_jw_value(&t->w, id);
    if (!strcmp(method, "initialize")) {
        const char *r = "{\"protocolVersion\":\"2025-11-25\",\"capabilities\":{\"tools\":{}},"
                        "\"serverInfo\":{\"name\":\"inproc\",\"version\":\"1.0\"}}";
        mcp_jw_key(&t->w, "result"); mcp_jw_raw(&t->w, r, strlen(r));
    } else if (!strcmp(method, "tools/list")) {
        const char *r = "{\"tools\":[{\"name\":\"echo\",\"description\":\"Says the text back\",\"inputSchema\":"
                        "{\"type\":\"object\",\"properties\":{\"text\":{\"type\":\"string\"}}}}]}";
        mcp_jw_key(&t->w, "result"); mcp_jw_raw(&t->w, r, strlen(r));
    } else if (!strcmp(method, "tools/call") && (text = mcp_json_str(mcp_json_get(mcp_json_get(params, "arguments"),
                                                                                  "text"))) != NULL) {
        mcp_jw_key(&t->w, "result"); mcp_jw_obj_begin(&t->w);
        mcp_jw_key(&t->w, "content"); mcp_jw_arr_begin(&t->w); mcp_jw_obj_begin(&t->w);
        mcp_jw_key(&t->w, "type"); mcp_jw_str(&t->w, "text");
        mcp_jw_key(&t->w, "text"); mcp_jw_str(&t->w, text);
        mcp_jw_obj_end(&t->w); mcp_jw_arr_end(&t->w); mcp_jw_obj_end(&t->w);
    } else {            /* server/discover too: this is a 2025-11-25 server, so the client falls back */
        mcp_jw_key(&t->w, "error"); mcp_jw_obj_begin(&t->w);
        mcp_jw_key(&t->w, "code"); mcp_jw_int(&t->w, -32601);
        mcp_jw_key(&t->w, "message"); mcp_jw_str(&t->w, "Method not found");
        mcp_jw_obj_end(&t->w);
    }
    mcp_jw_obj_end(&t->w);
    mcp_json_free(doc);
    const char *out = mcp_jw_text(&t->w, &n);
    reply *r = out ? malloc(sizeof *r + n) : NULL;
    if (!r) return;                                 /* the client's timeout will say so */
    memcpy(r->text, out, n); r->len = n; r->next = NULL;
    if (t->tail) t->tail->next = r; else t->head = r;
    t->tail = r;
}

/* ---- the transport's operations (their contract: >>transport in mcp.h) ---- */
static void *open_fn(void *user, mcp_client *c, const mcp_client_desc *d, mcp_error *err) {
    (void)user; (void)d;
    inproc *t = calloc(1, sizeof *t);
    if (!t) { err->status = MCP_ERR_NOMEM; snprintf(err->message, sizeof err->message, "out of memory"); return NULL; }
    t->c = c;
    mcp_jw_init(&t->w, 0);
    return t;
}
static mcp_status send_fn(void *tp, const char *msg, size_t len, int64_t id, const char *headers, unsigned how,
                          mcp_error *err) {
    (void)id; (void)headers; (void)how; (void)err;
    serve(tp, msg, len);
    return MCP_OK;
}
static int pollfds_fn(void *tp, mcp_pollfd *fds, int max) { (void)tp; (void)fds; (void)max; return 0; }
static int64_t due_fn(void *tp) { return ((inproc *)tp)->head ? 0 : -1; }   /* answers waiting: io now */
static void io_fn(void *tp, int wait_ms) {
    inproc *t = tp;
    reply *r;
    (void)wait_ms;                                  /* everything is here already: no waiting */
    while ((r = t->head) != NULL) {
        mcp_tev ev = {0};
        t->head = r->next;
        if (!t->head) t->tail = NULL;
        ev.kind = MCP_TEV_MESSAGE; ev.id = -1; ev.text = r->text; ev.len = r->len;
        mcp_transport_report(t->c, &ev);            /* the client copies what it needs */
        free(r);
    }
}
static int close_fn(void *tp, int now, int wait_ms) { (void)tp; (void)now; (void)wait_ms; return 0; }  /* over */
static void free_fn(void *tp) {
    inproc *t = tp;
    while (t->head) { reply *r = t->head; t->head = r->next; free(r); }
    mcp_jw_free(&t->w);
    free(t);
}

static const mcp_transport inproc_transport = {
    .open = open_fn, .send = send_fn, .pollfds = pollfds_fn, .due = due_fn, .io = io_fn,
    .close = close_fn, .free = free_fn,             /* abandon, resume, ready ...: not needed */
};

int main(void) {
    mcp_client_desc desc = {0};
    desc.transport = MCP_CUSTOM;
    desc.custom = &inproc_transport;
    mcp_error err;
    mcp_json_doc *tools = NULL, *result = NULL;
    mcp_client *c = mcp_client_new(&desc, &err);
    if (!c || mcp_client_connect(c, &err) != MCP_OK || mcp_client_list_tools(c, &tools, &err) != MCP_OK ||
        mcp_client_call_tool(c, "echo", "{\"text\": \"Hello from inside the program!\"}", &result, &err) != MCP_OK) {
        fprintf(stderr, "custom_transport: %s\n", err.message);
        mcp_json_free(tools);
        mcp_client_free(c);
        return 1;
    }
    const mcp_json *list = mcp_json_get(mcp_json_root(tools), "tools");
    printf("connected to %s over %s\n", mcp_json_str(mcp_json_get(mcp_client_server_info(c), "name")),
           mcp_client_transport(c, NULL) == MCP_CUSTOM ? "a custom transport" : "?");
    for (size_t i = 0; i < mcp_json_len(list); i++)
        printf("tool: %s\n", mcp_json_str(mcp_json_get(mcp_json_at(list, i), "name")));
    printf("%s\n", mcp_json_str(mcp_json_get(mcp_json_at(mcp_json_get(mcp_json_root(result), "content"), 0), "text")));
    mcp_json_free(tools);
    mcp_json_free(result);
    mcp_client_close(c);
    mcp_client_free(c);
    return 0;
}
