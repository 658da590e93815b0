/* Helpers shared by the client tests (include after mcp.h): a tool call's first text, and the
   recorder of what the client's callbacks saw.

   The recorder: a test defines SEEN_FIELDS (its own fields of `seen`, say what on_request
   saw; may be empty) before including this file, and gets
     seen      notes (each method and its params, dumped), closes (and the last why), logs
               (each on_log message), the first MAXREC of each kept, and its own fields;
     cb_note, cb_close, cb_log   the on_notification, on_close and on_log that fill it in
               (desc.user = the seen); seen_note records one notification, for a test's own
               on_notification that does more. */
#ifndef MCP_TEST_CALLS_H
#define MCP_TEST_CALLS_H
#include <stdio.h>

#if defined(__GNUC__) || defined(__clang__)
#define CALLS_UNUSED __attribute__((unused))
#else
#define CALLS_UNUSED
#endif

/* The text of a result's first content item, or NULL. */
CALLS_UNUSED static const char *text_of(const mcp_json *r)
{
    return mcp_json_str(mcp_json_get(mcp_json_at(mcp_json_get(r, "content"), 0), "text"));
}

/* Calls a tool, blocking; its first text goes to out ("(no text)" when it has none). */
CALLS_UNUSED static mcp_status tool(mcp_client *c, const char *name, const char *args, char *out, size_t n, mcp_error *err)
{
    mcp_json_doc *d = NULL;
    mcp_status st = mcp_client_call_tool(c, name, args, &d, err);
    if (out && n) {
        const char *t = text_of(mcp_json_root(d));
        snprintf(out, n, "%s", t ? t : "(no text)");
    }
    mcp_json_free(d);
    return st;
}

/* ---- what the callbacks saw ------------------------------------------------------------------ */

#define MAXREC 64

#ifdef SEEN_FIELDS
typedef struct seen {
    int notes; char note[MAXREC][64]; char note_params[MAXREC][256];
    int closes; mcp_error why;
    int logs; char log[MAXREC][512];
    SEEN_FIELDS
} seen;

CALLS_UNUSED static void seen_note(seen *s, const char *method, const mcp_json *params)
{
    char *p;
    if (s->notes < MAXREC) {
        snprintf(s->note[s->notes], sizeof s->note[0], "%s", method);
        p = params ? mcp_json_dump(params, 0, NULL) : NULL;
        snprintf(s->note_params[s->notes], sizeof s->note_params[0], "%s", p ? p : "(none)");
        mcp_free(p);
    }
    s->notes++;
}

CALLS_UNUSED static void cb_note(void *user, mcp_client *c, const char *method, const mcp_json *params)
{
    (void)c;
    seen_note((seen *)user, method, params);
}

CALLS_UNUSED static void cb_close(void *user, mcp_client *c, const mcp_error *why)
{
    seen *s = (seen *)user;
    (void)c;
    s->closes++;
    if (why) s->why = *why;
}

CALLS_UNUSED static void cb_log(void *user, mcp_client *c, const char *message)
{
    seen *s = (seen *)user;
    (void)c;
    if (s->logs < MAXREC) snprintf(s->log[s->logs], sizeof s->log[0], "%s", message);
    s->logs++;
}
#endif

#endif
