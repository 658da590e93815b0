/* Helpers shared by the client tests (include after mcp.h): a tool call's first text. */
#ifndef MCP_TEST_CALLS_H
#define MCP_TEST_CALLS_H
#include <stdio.h>

/* The text of a result's first content item, or NULL. */
static const char *text_of(const mcp_json *r)
{
    return mcp_json_str(mcp_json_get(mcp_json_at(mcp_json_get(r, "content"), 0), "text"));
}

/* Calls a tool, blocking; its first text goes to out ("(no text)" when it has none). */
static mcp_status tool(mcp_client *c, const char *name, const char *args, char *out, size_t n, mcp_error *err)
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

#endif
