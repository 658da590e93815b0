#!/usr/bin/env bash
# Interop: mcp.h against the official MCP reference servers: server-everything over stdio,
# Streamable HTTP and HTTP+SSE, server-filesystem and server-memory over stdio; and against
# tests/interop/modern_server.mjs, a server on the official TypeScript SDK v2
# (@modelcontextprotocol/server 2.4.0, protocol 2026-07-28 and the 2025 era), over stdio and
# Streamable HTTP; and one mcp_host (>>host) with server-everything on all three transports,
# server-memory and a missing command at once. See tests/interop/interop.c.
#
#   bash tests/interop/run.sh            from anywhere; exits non-zero on any failure
#
# 1. npm ci (from package-lock.json, exact versions) when node_modules is missing or was
#    installed from another lock file (a hash of the lock file is kept in node_modules);
# 2. builds build/interop with the strict flags;
# 3. runs it: it starts the HTTP servers itself (server-everything's `... streamableHttp` and
#    `... sse`, and `node modern_server.mjs http`, with PORT set to a free port, each in its own
#    process group), waits until each accepts connections, and stops each after its checks.
#    Its last line is "N passed, N failed";
# 4. runs mcpc (the command-line client) as a user does: tests/interop/mcpc.sh (server-everything
#    over stdio) and tests/interop/mcpc_features.sh (feature by feature: server-everything on
#    all three transports, server-filesystem, server-memory, schema_server.mjs, https through
#    tls_relay.mjs); the last line adds up all three runs;
# 5. runs tests/interop/oauth.sh: mcp.h's authorization flow (and mcpc's, once it has one)
#    against a real authorization server, oidc-provider (pinned in oauth/package.json, with
#    the Node 22 it needs), in front of an MCP server on the SDK v2 that checks tokens;
# 6. checks that no HTTP server of this folder is left running.
# Environment: CC (default cc), BUILD (default build), INTEROP_VERBOSE=1 (every stderr line,
# request and notification, and the HTTP servers' output), INTEROP_TRANSPORTS (a subset of
# "stdio streamableHttp sse" for server-everything and modern-server).
set -euo pipefail

here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/../.." && pwd)"
cd "$root"
build="${BUILD:-build}"
cc="${CC:-cc}"

for tool in node npm; do
    if ! command -v "$tool" >/dev/null 2>&1; then
        echo "interop: '$tool' is not installed; the reference servers need Node.js 18 or newer and npm" >&2
        echo "0 passed, 1 failed"
        exit 1
    fi
done
echo "interop: node $(node --version), npm $(npm --version)"

stamp="$here/node_modules/.mcp-interop-lock"
want="$(cksum <"$here/package-lock.json")"
have="$(cat "$stamp" 2>/dev/null || true)"
entries_ok=1
for pkg in server-everything server-filesystem server-memory; do
    [ -f "$here/node_modules/@modelcontextprotocol/$pkg/dist/index.js" ] || entries_ok=0
done
for pkg in server core; do
    [ -f "$here/node_modules/@modelcontextprotocol/$pkg/dist/index.mjs" ] || entries_ok=0
done
# the MCP Inspector CLI, which tests/interop/compare.sh measures mcpc against
[ -f "$here/node_modules/@modelcontextprotocol/inspector/clients/launcher/build/index.js" ] || entries_ok=0
if [ "$want" != "$have" ] || [ "$entries_ok" -ne 1 ]; then
    echo "interop: npm ci (node_modules missing or stale)"
    (cd "$here" && npm ci --ignore-scripts --no-audit --no-fund --loglevel=error)
    echo "$want" >"$stamp"
else
    echo "interop: node_modules is up to date with package-lock.json"
fi
(cd "$here" && node -e '
    for (const p of ["server-everything", "server-filesystem", "server-memory", "server", "core", "inspector"]) {
        const j = require("./node_modules/@modelcontextprotocol/" + p + "/package.json");
        console.log("interop: " + j.name + " " + j.version);
    }')

mkdir -p "$build"
export MCP_INTEROP_RUN="$$-$(date +%s%N)"     # marks what this run starts (the orphan check)
"$cc" -std=c99 -Wall -Wextra -Wpedantic -Wshadow -Werror -O2 \
    tests/interop/interop.c -o "$build/interop" -lm

rc=0
"$build/interop" "$here" | tee "$build/interop.log" || rc=$?
last="$(tail -n 1 "$build/interop.log")"

# mcpc, the command-line client, against server-everything over stdio
make --no-print-directory B="$build" "$build/mcpc" >/dev/null || rc=1     # (again only when stale)
BUILD="$build" bash "$here/mcpc.sh" | tee "$build/interop_mcpc.log" || rc=1
mlast="$(tail -n 1 "$build/interop_mcpc.log")"
# ... and feature by feature, on every transport and the other servers (mcpc_features.sh)
BUILD="$build" bash "$here/mcpc_features.sh" | tee "$build/interop_mcpc_features.log" || rc=1
flast="$(tail -n 1 "$build/interop_mcpc_features.log")"
# the authorization flow against a real authorization server (oauth.sh)
BUILD="$build" bash "$here/oauth.sh" | tee "$build/interop_oauth.log" || rc=1
olast="$(tail -n 1 "$build/interop_oauth.log")"
tp=0 tf=0 ts=0
for l in "$last" "$mlast" "$flast" "$olast"; do        # "N passed, N failed[, N skipped]"
    p=${l%% passed*}; f=${l#*passed, }; f=${f%% failed*}; s=0
    if [[ "$l" == *skipped* ]]; then s=${l#*failed, }; s=${s%% skipped*}; fi
    if [[ "$p$f$s" =~ ^[0-9]+$ ]]; then tp=$((tp + p)); tf=$((tf + f)); ts=$((ts + s)); else tf=$((tf + 1)); fi
done
last="$tp passed, $tf failed"
if [ "$ts" -gt 0 ]; then last="$last, $ts skipped"; fi

# No orphans: interop.c and the scripts stop their servers (and interop.c checks their process
# groups are empty); a server of this folder still running now would be one they lost. Only
# this run's count: every process it starts inherits MCP_INTEROP_RUN, so a server that
# another run (another user of this checkout) has going at the same time is not taken for one.
if command -v pgrep >/dev/null 2>&1; then
    left=""
    for pid in $(pgrep -f "$here/(node_modules/@modelcontextprotocol/server-everything/dist/index.js (streamableHttp|sse)|modern_server.mjs (http|stdio)|tls_relay.mjs|schema_server.mjs|oauth/(as|mcp_server|browser).mjs)" || true); do
        if tr '\0' '\n' <"/proc/$pid/environ" 2>/dev/null | grep -qx "MCP_INTEROP_RUN=$MCP_INTEROP_RUN"; then
            left="$left $pid"
        elif [ ! -r "/proc/$pid/environ" ] && kill -0 "$pid" 2>/dev/null; then
            left="$left $pid"              # cannot tell (no /proc): counted, as before
        fi
    done
    if [ -n "$left" ]; then
        echo "interop: FAILED: server(s) of $here still running after the run: pid(s)$left"
        echo "0 passed, 1 failed"
        exit 1
    fi
    echo "interop: no server-everything, modern-server, schema-server, TLS relay or OAuth test process of this run left running"
    echo "$last"
fi
exit "$rc"
