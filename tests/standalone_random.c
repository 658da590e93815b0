/* mcp_random's other sources, on a Linux machine whose own is getrandom: this file is its own
   implementation with MCP__RANDOM 2, so test_base's cases run again with getentropy (the
   source on macOS and the BSDs, 256 bytes a call) behind mcp_random, and the /dev/urandom
   reader (every system's fallback) is called directly.   Usage: standalone_random [DATA_DIR] */
#define MCP__RANDOM 2
#define MCP_IMPLEMENTATION
#include "test_base.c"

TEST_CASE(random_urandom)
{
    static unsigned char buf[1000 + 1];
    const char *what = "";
    size_t i, len[4];
    int k, e;
    len[0] = 0; len[1] = 1; len[2] = 32; len[3] = 1000;
    for (k = 0; k < 4; k++) {
        memset(buf, 0, sizeof buf);
        buf[len[k]] = 0xA5;
        e = mcp__random_urandom(buf, len[k], &what);
        CHECKF(e == 0, "/dev/urandom, %lu bytes: %s: %s", (unsigned long)len[k], what, strerror(e));
        CHECKF(buf[len[k]] == 0xA5, "/dev/urandom, %lu bytes: wrote past the end", (unsigned long)len[k]);
        for (i = 0; i + 16 <= len[k]; i += 16)
            CHECKF(!all_zero(buf + i, 16), "/dev/urandom, %lu bytes: bytes %lu.. stayed zero",
                   (unsigned long)len[k], (unsigned long)i);
    }
}
