/* minimal - start an MCP server, call one tool, print its text. Runs the demo server that is
   built next to it unless you name another: minimal [SERVER-COMMAND] */
#define _POSIX_C_SOURCE 200809L
#define MCP_NO_AUTH                                 /* a stdio server: no sign-in flow, 28 KB less */
#define MCP_NO_HOST                                 /* one server: no config files or many servers */
#define MCP_IMPLEMENTATION
#include "../mcp.h"
#include <stdio.h>
#include <string.h>

int main(int argc, char **argv) {
    char server[4096];                              /* dirname(argv[0])/demo_server */
    const char *slash = strrchr(argv[0], '/');
    snprintf(server, sizeof server, "%.*sdemo_server", slash ? (int)(slash - argv[0] + 1) : 0, argv[0]);

    mcp_client_desc desc = {0};
    desc.command = argc > 1 ? argv[1] : server;     /* a stdio server: mcp.h starts it */
    mcp_error err;
    mcp_json_doc *result = NULL;
    mcp_client *c = mcp_client_new(&desc, &err);
    if (!c || mcp_client_connect(c, &err) != MCP_OK ||
        mcp_client_call_tool(c, "echo", "{\"text\": \"Hello from mcp.h!\"}", &result, &err) != MCP_OK) {
        fprintf(stderr, "minimal: %s\n", err.message);
        mcp_client_free(c);
        return 1;
    }
    const mcp_json *first = mcp_json_at(mcp_json_get(mcp_json_root(result), "content"), 0);
    printf("%s\n", mcp_json_str(mcp_json_get(first, "text")));  /* {"content":[{"type":"text","text":...}]} */
    mcp_json_free(result);
    mcp_client_free(c);                             /* closes the connection, stops the server */
    return 0;
}
