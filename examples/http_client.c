/* http_client - an MCP client over HTTP: connect to a server's URL, list its tools, call one.

       http_client [--sse] URL [TOOL [JSON-ARGS]]
       http_client http://127.0.0.1:3001/mcp
       http_client --sse http://127.0.0.1:3001/sse echo '{"message": "hi"}'

   URL is a Streamable HTTP endpoint, or with --sse the event stream of the older HTTP+SSE
   transport (2024-11-05). Without TOOL it calls echo with {"text": "hello over HTTP"}.
   Headers such as Authorization go in desc.headers; https:// needs a TLS hook in desc.tls
   (see examples/tls_openssl.c). */
#define _POSIX_C_SOURCE 200809L
#define MCP_IMPLEMENTATION
#include "../mcp.h"
#include <stdio.h>
#include <string.h>

int main(int argc, char **argv)
{
    const char *headers[] = { "User-Agent: mcp.h-http-client", NULL };
    mcp_client_desc desc;
    mcp_client *c;
    mcp_error err;
    mcp_json_doc *tools = NULL, *result = NULL;
    const mcp_json *tool, *item;
    const char *name, *args;
    size_t i;
    int sse = argc > 1 && !strcmp(argv[1], "--sse");

    if (argc < 2 + sse) {
        fprintf(stderr, "usage: http_client [--sse] URL [TOOL [JSON-ARGS]]\n");
        return 2;
    }
    name = argc > 2 + sse ? argv[2 + sse] : "echo";
    args = argc > 3 + sse ? argv[3 + sse] : "{\"text\": \"hello over HTTP\"}";

    memset(&desc, 0, sizeof desc);
    desc.transport = sse ? MCP_SSE : MCP_HTTP;
    desc.url = argv[1 + sse];
    desc.headers = headers;
    desc.timeout_ms = 10000;
    if (!(c = mcp_client_new(&desc, &err)) || mcp_client_connect(c, &err) != MCP_OK ||
        mcp_client_list_tools(c, &tools, &err) != MCP_OK) {
        fprintf(stderr, "http_client: %s\n", err.message);
        mcp_client_free(c);
        return 1;
    }
    printf("connected to %s over %s, protocol %s\n",
           mcp_json_str(mcp_json_get(mcp_client_server_info(c), "name")),
           sse ? "HTTP+SSE" : "Streamable HTTP", mcp_client_protocol_version(c));
    printf("tools:");
    mcp_json_foreach(mcp_json_get(mcp_json_root(tools), "tools"), i, tool)
        printf(" %s", mcp_json_str(mcp_json_get(tool, "name")));
    printf("\n");

    if (mcp_client_call_tool(c, name, args, &result, &err) != MCP_OK) {
        fprintf(stderr, "http_client: %s\n", err.message);
        mcp_json_free(tools);
        mcp_client_free(c);
        return 1;
    }
    printf("%s %s:\n", name, args);
    mcp_json_foreach(mcp_json_get(mcp_json_root(result), "content"), i, item)
        if (mcp_json_str(mcp_json_get(item, "text"))) printf("%s\n", mcp_json_str(mcp_json_get(item, "text")));
    mcp_json_free(result);
    mcp_json_free(tools);
    mcp_client_free(c);                         /* ends the session (DELETE) */
    return 0;
}
