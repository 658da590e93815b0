/* Compile check for MCP_STATIC: a second translation unit with its own private copy of the
   implementation, linked with api.c's. Duplicate symbols would fail the link. */
#include "../../mcp.h"

int second_copy(void);
int second_copy(void)
{
    mcp_json_doc *doc = mcp_json_parse("{\"x\":1}", 7, NULL);
    int ok = doc && mcp_json_len(mcp_json_root(doc)) == 1;
    mcp_json_free(doc);
    return ok ? 0 : 50;
}
