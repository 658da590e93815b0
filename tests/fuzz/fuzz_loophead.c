/* libFuzzer target for the loopback listener's request-head parser (>>transport.once), make
   fuzz. The listener reads a browser's redirect (GET /callback?code=... HTTP/1.1) through it.

   Input: [split][head...]. The head is fed whole, then in pieces (the split byte: piece sizes
   of 1 + split % 16, or one byte at a time when split is 0), each piece a malloc'd copy of
   exactly its bytes, so ASan sees a read past it. Both runs must end alike: the same status,
   the same target (or the same `what`), the same number of bytes taken. The contract is
   checked on every call: AGAIN takes every byte; a verdict is sticky; OK gives a target that
   starts with '/' and lies inside the parser's buffer. A breach aborts (a crash to libFuzzer). */
#define MCP_IMPLEMENTATION
#include "../../mcp.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "fuzz.h"

int LLVMFuzzerTestOneInput(const unsigned char *data, size_t size);

typedef struct outcome { mcp_status st; size_t taken; char text[9000]; } outcome;

static void feed(const unsigned char *p, size_t n, size_t piece, outcome *o)
{
    mcp__loop_head h;
    size_t off = 0, used, len;
    mcp_status st = MCP_AGAIN, was;
    mcp__loop_head_reset(&h);
    o->taken = 0;
    while (off < n || !n) {
        len = piece && n - off > piece ? piece : n - off;
        {
            char *copy = (char *)malloc(len ? len : 1);
            REQUIRE(copy != NULL);
            if (len) memcpy(copy, p + off, len);
            was = h.st;
            used = (size_t)-1;
            st = mcp__loop_head_feed(&h, copy, len, &used);
            free(copy);
        }
        REQUIRE(used <= len);
        if (was != MCP_AGAIN) REQUIRE(st == was && used == 0);    /* a verdict is sticky */
        if (st == MCP_AGAIN) REQUIRE(used == len);                /* more wanted: all taken */
        o->taken += used;
        off += len;
        if (st != MCP_AGAIN || !n) break;
    }
    o->st = st;
    if (st == MCP_OK) {
        REQUIRE(h.target && h.target >= h.buf && h.target < h.buf + sizeof h.buf && h.target[0] == '/');
        snprintf(o->text, sizeof o->text, "target %s", h.target);
    } else if (st != MCP_AGAIN) {
        REQUIRE(h.what && *h.what);
        snprintf(o->text, sizeof o->text, "error %s", h.what);
    } else {
        o->text[0] = 0;
    }
}

int LLVMFuzzerTestOneInput(const unsigned char *data, size_t size)
{
    static outcome whole, split;
    size_t piece;
    if (!size) return 0;
    piece = data[0] ? 1 + data[0] % 16 : 1;
    feed(data + 1, size - 1, 0, &whole);
    feed(data + 1, size - 1, piece, &split);
    REQUIRE(whole.st == split.st);
    REQUIRE(!strcmp(whole.text, split.text));
    REQUIRE(whole.taken == split.taken);
    return 0;
}
