/* The one implementation object the tests link against (build/impl.o). */
#define MCP_IMPLEMENTATION
#include "../mcp.h"
