/* Compile check: the implementation alone (api.c is then built without it). Included twice:
   the second inclusion must add nothing. */
#define MCP_IMPLEMENTATION
#ifdef CHECK_HOOKS
#include "hooks.h"
#endif
#include "../../mcp.h"
#include "../../mcp.h"
