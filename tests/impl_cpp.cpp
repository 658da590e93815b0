/* The implementation compiled as C++ (build/impl_cpp.o): the C++ tests link against it too,
   so mcp.h's implementation is exercised by a C++ compiler, not only compiled. */
#define MCP_IMPLEMENTATION
#include "../mcp.h"
