#!/usr/bin/env bash
# OAuth interop (issue 17): mcp.h's authorization flow against a real authorization server,
# oidc-provider, in front of a real MCP server on the official TypeScript SDK v2.
#
#   bash tests/interop/oauth.sh          from anywhere; run by tests/interop/run.sh (make
#                                        interop); exits non-zero on any failure
#
# 1. npm ci in tests/interop/oauth (oidc-provider 9.13.3 and the npm package "node" 22.23.3,
#    whose install script brings the Node 22 oidc-provider 9 wants; allowScripts lets it run)
#    and in tests/interop (@modelcontextprotocol/server 2.4.0) when node_modules is missing or
#    was installed from another lock file (a checksum of the lock file is kept in node_modules);
# 2. builds build/oauth_client with the strict flags;
# 3. starts, each in its own process group, on free ports of 127.0.0.1 and with Node 22:
#    oauth/as.mjs (the authorization server, access tokens living OAUTH_TTL seconds, default
#    4) and oauth/mcp_server.mjs (the MCP server, which introspects tokens at it); waits for
#    each to say it listens;
# 4. runs build/oauth_client (the C test: connect through the whole flow with a scripted
#    browser, oauth/browser.mjs; a refresh after expiry; revocation and the flow again; a
#    second client from the same store; no secret printed or logged);
# 5. mcpc, the command-line client (examples/mcpc.c), the same way a user runs it:
#        XDG_CONFIG_HOME=TMP MCPC_BROWSER="node browser.mjs" build/mcpc URL tools
#    once through the flow, once more from its kept tokens with no browser. Skipped (and
#    counted as skipped) while `build/mcpc --help` does not mention MCPC_BROWSER;
# 6. mcpc over https: a second MCP server (MCP_PUBLIC_URL=https://127.0.0.1:RELAY/mcp, its
#    resource) behind tests/interop/tls_relay.mjs with a certificate made here by openssl;
#        XDG_CONFIG_HOME=NEW MCPC_BROWSER=... build/mcpc --cacert CERT https://127.0.0.1:RELAY/mcp tools
#    once through the flow, once more with MCPC_BROWSER=false. The authorization server stays
#    on http://127.0.0.1 (mcp.h takes http:// for an authorization server on this machine
#    only). Skipped (and counted as skipped) when mcpc has no auth yet, was built without TLS
#    (`mcpc --version` does not say "https: yes") or openssl is not installed;
# 7. looks for every token and code the test saw in all the output (the client's, mcpc's,
#    the servers', the relay's): none may be there;
# 8. stops the servers and the relay and checks that nothing of their process groups is left.
# Prints "N passed, N failed[, N skipped]" last (the C test's checks and these).
# Environment: CC (default cc), BUILD (default build), OAUTH_TTL (access token lifetime, s),
# OAUTH_VERBOSE=1 (both servers' event lines on stderr, and their logs at the end), OAUTH_KEEP=1
# (keep the temporary folder: the servers' logs and event lines; it holds the tokens too).
set -euo pipefail

here="$(cd "$(dirname "$0")" && pwd)"
oauth="$here/oauth"
root="$(cd "$here/../.." && pwd)"
cd "$root"
build="${BUILD:-build}"
cc="${CC:-cc}"
ttl="${OAUTH_TTL:-4}"
verbose="${OAUTH_VERBOSE:-0}"
t_start=$(date +%s)

passed=0 failed=0 skipped=0
pass() { echo "  PASS $*"; passed=$((passed + 1)); }
fail() { echo "  FAIL $*"; failed=$((failed + 1)); }
skip() { echo "  SKIP $*"; skipped=$((skipped + 1)); }
finish() {
    local line="$passed passed, $failed failed"
    [ "$skipped" -gt 0 ] && line="$line, $skipped skipped"
    echo "oauth: done in $(( $(date +%s) - t_start )) s"
    echo "$line"
    [ "$failed" -eq 0 ]
    exit $?
}

if ! command -v npm >/dev/null 2>&1; then
    echo "oauth: npm is not installed (it installs oidc-provider and Node 22)" >&2
    fail "npm is needed"; finish
fi

# npm ci DIR STAMP CHECK-FILE...: when the lock file changed or a file is missing
install() {
    local dir="$1" stamp="$1/node_modules/$2" want have ok=1 f
    shift 2
    want="$(cksum <"$dir/package-lock.json")"
    have="$(cat "$stamp" 2>/dev/null || true)"
    for f in "$@"; do [ -e "$dir/node_modules/$f" ] || ok=0; done
    if [ "$want" != "$have" ] || [ "$ok" -ne 1 ]; then
        echo "oauth: npm ci in ${dir#"$root"/} (node_modules missing or stale)"
        (cd "$dir" && npm ci "${npm_flags[@]}" --no-audit --no-fund --loglevel=error)
        echo "$want" >"$stamp"
    fi
}
npm_flags=()
install "$oauth" .mcp-oauth-lock oidc-provider/package.json .bin/node
npm_flags=(--ignore-scripts)
install "$here" .mcp-interop-lock @modelcontextprotocol/server/dist/index.mjs \
    @modelcontextprotocol/server-everything/dist/index.js @modelcontextprotocol/server-filesystem/dist/index.js \
    @modelcontextprotocol/server-memory/dist/index.js @modelcontextprotocol/core/dist/index.mjs \
    @modelcontextprotocol/inspector/clients/launcher/build/index.js
node22="$oauth/node_modules/.bin/node"
if ! "$node22" --version >/dev/null 2>&1; then
    echo "oauth: $node22 does not run: the npm package \"node\" did not install its binary" >&2
    fail "Node 22 is needed"; finish
fi
echo "oauth: oidc-provider $("$node22" -p 'require(process.argv[1]).version' "$oauth/node_modules/oidc-provider/package.json")," \
     "@modelcontextprotocol/server $("$node22" -p 'require(process.argv[1]).version' "$here/node_modules/@modelcontextprotocol/server/package.json")," \
     "node $("$node22" --version) (npm package \"node\")"

mkdir -p "$build"
"$cc" -std=c99 -Wall -Wextra -Wpedantic -Wshadow -Werror -O2 tests/interop/oauth_client.c -o "$build/oauth_client" -lm

tmp="$(mktemp -d)"
pids=""
stop_all() {
    local p
    for p in $pids; do kill -TERM -- "-$p" 2>/dev/null || true; done
    for p in $pids; do
        for _ in $(seq 1 30); do kill -0 -- "-$p" 2>/dev/null || break; sleep 0.1; done
        kill -KILL -- "-$p" 2>/dev/null || true
    done
}
trap 'stop_all; [ "${OAUTH_KEEP:-0}" != 0 ] && echo "oauth: kept $tmp" || rm -rf "$tmp"' EXIT

free_port() {
    "$node22" -e 'const s = require("net").createServer().listen(0, "127.0.0.1", () => { console.log(s.address().port); s.close(); })'
}
# start NAME LOG CMD...: in its own process group; waits for its "listening" line
start() {
    local name="$1" log="$2" pid
    shift 2
    setsid "$@" >"$log" 2>&1 </dev/null &
    pid=$!
    pids="$pids $pid"
    for _ in $(seq 1 300); do
        if grep -q ' listening on ' "$log"; then echo "oauth: $(grep -m1 ' listening on ' "$log") (pid $pid)"; return 0; fi
        if ! kill -0 "$pid" 2>/dev/null; then break; fi
        sleep 0.1
    done
    echo "oauth: $name did not start; its output:"; sed 's/^/    | /' "$log"
    return 1
}

as_port="$(free_port)"
mcp_port="$(free_port)"
while [ "$mcp_port" = "$as_port" ]; do mcp_port="$(free_port)"; done
# the https variant (step 6): its MCP server's plain port, and the TLS relay's in front of it
mcps_port="$(free_port)"
while [ "$mcps_port" = "$as_port" ] || [ "$mcps_port" = "$mcp_port" ]; do mcps_port="$(free_port)"; done
relay_port="$(free_port)"
while [ "$relay_port" = "$as_port" ] || [ "$relay_port" = "$mcp_port" ] || [ "$relay_port" = "$mcps_port" ]; do
    relay_port="$(free_port)"
done
issuer="http://127.0.0.1:$as_port"
mcp_url="http://127.0.0.1:$mcp_port/mcp"
https_url="https://127.0.0.1:$relay_port/mcp"
export AS_EVENTS="$tmp/events" AS_RS_SECRET="rs-$RANDOM-$RANDOM-$$" AS_ACCESS_TTL="$ttl"
export BROWSER_SECRETS="$tmp/codes" OAUTH_SECRETS="$tmp/secrets"
if [ "$verbose" != "0" ]; then export AS_VERBOSE=1 MCP_VERBOSE=1; fi
: >"$AS_EVENTS"
if ! AS_PORT="$as_port" MCP_RESOURCE="$mcp_url $https_url" start "the authorization server" "$tmp/as.log" "$node22" "$oauth/as.mjs" ||
   ! MCP_PORT="$mcp_port" AS_ISSUER="$issuer" start "the MCP server" "$tmp/mcp.log" "$node22" "$oauth/mcp_server.mjs"; then
    fail "the servers start"; finish
fi

echo "== oauth_client (mcp.h's API)"
crc=0
"$build/oauth_client" "$node22" "$oauth" "$mcp_url" "$issuer" "$AS_EVENTS" "$ttl" >"$tmp/client.log" 2>&1 || crc=$?
cat "$tmp/client.log"
cl="$(tail -n 1 "$tmp/client.log")"
if [[ "$cl" =~ ^([0-9]+)\ passed,\ ([0-9]+)\ failed$ ]]; then
    passed=$((passed + BASH_REMATCH[1])); failed=$((failed + BASH_REMATCH[2]))
    [ "$crc" -eq 0 ] || [ "${BASH_REMATCH[2]}" -ne 0 ] || fail "oauth_client exited $crc"
else
    fail "oauth_client's last line is not \"N passed, N failed\" (exit $crc)"
fi

# ---- mcpc ------------------------------------------------------------------------------------
# PLACEHOLDER until examples/mcpc.c has auth (being written): these steps skip while
# `mcpc --help` does not mention MCPC_BROWSER, and run as soon as it does.
echo "== mcpc (the command-line client)"
count() { grep -c -- "$1" "$AS_EVENTS" || true; }
# kept_secrets DIR: every string of 20 characters or more in the JSON files mcpc keeps in DIR
# goes to the list of secrets no output may show
kept_secrets() {
    find "$1" -type f -print0 2>/dev/null | while IFS= read -r -d '' f; do
        "$node22" -e '
            const walk = v => typeof v === "string" ? [v] : v && typeof v === "object" ? Object.values(v).flatMap(walk) : [];
            try { for (const s of walk(JSON.parse(require("fs").readFileSync(process.argv[1], "utf8")))) if (s.length >= 20) console.log(s); } catch {}
        ' "$f" >>"$OAUTH_SECRETS"
    done
}
if ! make --no-print-directory B="$build" "$build/mcpc" >"$tmp/mcpc_make.log" 2>&1; then
    fail "make $build/mcpc"; sed 's/^/    | /' "$tmp/mcpc_make.log" | tail -n 20
elif ! "$build/mcpc" --help 2>&1 | grep -q MCPC_BROWSER; then
    skip "mcpc: first run through the authorization flow (mcpc --help does not mention MCPC_BROWSER yet)"
    skip "mcpc: second run from its kept tokens, no browser (mcpc --help does not mention MCPC_BROWSER yet)"
else
    xdg="$tmp/xdg"
    mkdir -p "$xdg"
    # MCPC_BROWSER is run as `<command> URL`; a wrapper (no spaces in its path) counts the runs
    printf '#!/bin/sh\necho run >>"%s/mcpc_browser_runs"\nexec "%s" "%s/browser.mjs" "$@"\n' "$tmp" "$node22" "$oauth" >"$tmp/browser.sh"
    chmod +x "$tmp/browser.sh"
    codes0="$(count 'as grant authorization_code ')"
    rc1=0
    XDG_CONFIG_HOME="$xdg" MCPC_BROWSER="$tmp/browser.sh" timeout 120 "$build/mcpc" "$mcp_url" tools >"$tmp/mcpc1.log" 2>&1 || rc1=$?
    sed 's/^/    | /' "$tmp/mcpc1.log" | tail -n 30
    runs="$(wc -l <"$tmp/mcpc_browser_runs" 2>/dev/null || echo 0)"
    if [ "$rc1" -eq 0 ] && grep -q echo "$tmp/mcpc1.log" && grep -q whoami "$tmp/mcpc1.log" && [ "$runs" -eq 1 ] &&
       [ "$(count 'as grant authorization_code ')" -eq $((codes0 + 1)) ]; then
        pass "mcpc: first run: the flow through MCPC_BROWSER, then tools lists echo and whoami"
    else
        fail "mcpc: first run (exit $rc1, browser runs $runs, codes redeemed $(( $(count 'as grant authorization_code ') - codes0 )))"
    fi
    kept="$(find "$xdg/mcpc" -type f 2>/dev/null | wc -l)"
    loose="$(find "$xdg/mcpc" -type f ! -perm 0600 2>/dev/null | wc -l)"
    if [ "$kept" -ge 1 ] && [ "$loose" -eq 0 ]; then pass "mcpc: tokens kept in \$XDG_CONFIG_HOME/mcpc/ ($kept file(s), all mode 0600)"
    else fail "mcpc: tokens kept in \$XDG_CONFIG_HOME/mcpc/ with mode 0600 ($kept file(s), $loose with another mode)"; fi
    rc2=0
    XDG_CONFIG_HOME="$xdg" MCPC_BROWSER="$tmp/browser.sh" timeout 120 "$build/mcpc" "$mcp_url" tools >"$tmp/mcpc2.log" 2>&1 || rc2=$?
    runs2="$(wc -l <"$tmp/mcpc_browser_runs" 2>/dev/null || echo 0)"
    if [ "$rc2" -eq 0 ] && grep -q echo "$tmp/mcpc2.log" && [ "$runs2" -eq "$runs" ] &&
       [ "$(count 'as grant authorization_code ')" -eq $((codes0 + 1)) ]; then
        pass "mcpc: second run: no browser, the kept tokens do"
    else
        fail "mcpc: second run (exit $rc2, browser runs $((runs2 - runs)))"; sed 's/^/    | /' "$tmp/mcpc2.log" | tail -n 20
    fi
    # its kept tokens are secrets too: none in what it printed
    kept_secrets "$xdg/mcpc"
fi

# ---- mcpc over https ---------------------------------------------------------------------------
# The MCP server behind a TLS relay (tls_relay.mjs: https://127.0.0.1:RELAY -> its plain port);
# it names https_url as its resource and wants tokens for that audience (MCP_PUBLIC_URL), and
# the authorization server issues them for it too (https_url is in its MCP_RESOURCE). The
# authorization server itself stays on http://127.0.0.1: mcp.h refuses http:// for an
# authorization server anywhere but on this machine (127.0.0.1, ::1, localhost).
echo "== mcpc over https (a TLS relay in front of the MCP server)"
https_logs=()
if [ ! -x "$build/mcpc" ]; then
    skip "mcpc https: first run through the authorization flow (no $build/mcpc)"
    skip "mcpc https: second run from its kept tokens, no browser (no $build/mcpc)"
elif ! "$build/mcpc" --help 2>&1 | grep -q MCPC_BROWSER; then
    skip "mcpc https: first run through the authorization flow (mcpc --help does not mention MCPC_BROWSER yet)"
    skip "mcpc https: second run from its kept tokens, no browser (mcpc --help does not mention MCPC_BROWSER yet)"
elif ! "$build/mcpc" --version 2>&1 | grep -q '^https: yes'; then
    skip "mcpc https: first run through the authorization flow ($build/mcpc was built without TLS: no OpenSSL)"
    skip "mcpc https: second run from its kept tokens, no browser ($build/mcpc was built without TLS: no OpenSSL)"
elif ! command -v openssl >/dev/null 2>&1; then
    skip "mcpc https: first run through the authorization flow (openssl is not installed: no test certificate)"
    skip "mcpc https: second run from its kept tokens, no browser (openssl is not installed: no test certificate)"
elif ! openssl req -x509 -newkey rsa:2048 -nodes -keyout "$tmp/tls_key.pem" -out "$tmp/tls_cert.pem" -days 2 \
          -subj /CN=127.0.0.1 -addext subjectAltName=IP:127.0.0.1,DNS:localhost >"$tmp/openssl.log" 2>&1; then
    fail "mcpc https: openssl req made no test certificate"; sed 's/^/    | /' "$tmp/openssl.log" | tail -n 5
elif ! MCP_PORT="$mcps_port" MCP_PUBLIC_URL="$https_url" AS_ISSUER="$issuer" \
          start "the https MCP server" "$tmp/mcp_https.log" "$node22" "$oauth/mcp_server.mjs" ||
     ! start "the TLS relay" "$tmp/relay.log" "$node22" "$here/tls_relay.mjs" "$tmp/tls_cert.pem" "$tmp/tls_key.pem" "$mcps_port" "$relay_port"; then
    fail "mcpc https: the https MCP server and its TLS relay start"
else
    https_logs=("$tmp/mcp_https.log" "$tmp/relay.log")
    xdgs="$tmp/xdg_https"
    mkdir -p "$xdgs"
    printf '#!/bin/sh\necho run >>"%s/mcpc_https_browser_runs"\nexec "%s" "%s/browser.mjs" "$@"\n' "$tmp" "$node22" "$oauth" >"$tmp/browser_https.sh"
    chmod +x "$tmp/browser_https.sh"
    codes0="$(count 'as grant authorization_code ')"
    asked0="$(grep -c -F -- "resource=$https_url " "$AS_EVENTS" || true)"
    rc1=0
    XDG_CONFIG_HOME="$xdgs" MCPC_BROWSER="$tmp/browser_https.sh" timeout 120 \
        "$build/mcpc" --cacert "$tmp/tls_cert.pem" "$https_url" tools >"$tmp/mcpc_https1.log" 2>&1 || rc1=$?
    https_logs+=("$tmp/mcpc_https1.log")
    sed 's/^/    | /' "$tmp/mcpc_https1.log" | tail -n 30
    runs="$(wc -l <"$tmp/mcpc_https_browser_runs" 2>/dev/null || echo 0)"
    asked="$(( $(grep -c -F -- "resource=$https_url " "$AS_EVENTS" || true) - asked0 ))"
    if [ "$rc1" -eq 0 ] && grep -q echo "$tmp/mcpc_https1.log" && grep -q whoami "$tmp/mcpc_https1.log" && [ "$runs" -eq 1 ] &&
       [ "$asked" -ge 1 ] && [ "$(count 'as grant authorization_code ')" -eq $((codes0 + 1)) ]; then
        pass "mcpc https: first run: the flow through MCPC_BROWSER for resource $https_url, then tools lists echo and whoami"
    else
        fail "mcpc https: first run (exit $rc1, browser runs $runs, authorization requests for the https resource $asked, codes redeemed $(( $(count 'as grant authorization_code ') - codes0 )))"
    fi
    rc2=0
    XDG_CONFIG_HOME="$xdgs" MCPC_BROWSER=false timeout 60 \
        "$build/mcpc" --cacert "$tmp/tls_cert.pem" "$https_url" tools >"$tmp/mcpc_https2.log" 2>&1 || rc2=$?
    https_logs+=("$tmp/mcpc_https2.log")
    runs2="$(wc -l <"$tmp/mcpc_https_browser_runs" 2>/dev/null || echo 0)"
    if [ "$rc2" -eq 0 ] && grep -q echo "$tmp/mcpc_https2.log" && [ "$runs2" -eq "$runs" ] &&
       [ "$(count 'as grant authorization_code ')" -eq $((codes0 + 1)) ]; then
        pass "mcpc https: second run: MCPC_BROWSER=false, the kept tokens do"
    else
        fail "mcpc https: second run (exit $rc2, browser runs $((runs2 - runs)), codes redeemed $(( $(count 'as grant authorization_code ') - codes0 )))"
        sed 's/^/    | /' "$tmp/mcpc_https2.log" | tail -n 20
    fi
    # its kept tokens are secrets too
    kept_secrets "$xdgs/mcpc"
fi

# ---- secrets in any output -------------------------------------------------------------------
echo "== no token and no code in any output"
cat "$BROWSER_SECRETS" >>"$OAUTH_SECRETS" 2>/dev/null || true
nsec="$(grep -c . "$OAUTH_SECRETS" 2>/dev/null || echo 0)"
logs=("$tmp/client.log" "$tmp/as.log" "$tmp/mcp.log" "$AS_EVENTS")
for f in "$tmp"/mcpc1.log "$tmp"/mcpc2.log "${https_logs[@]}"; do [ -f "$f" ] && logs+=("$f"); done
if [ "$nsec" -lt 5 ]; then
    fail "the secrets to look for are known ($nsec)"
elif grep -q -F -f "$OAUTH_SECRETS" "${logs[@]}"; then
    fail "a token or code appears in: $(grep -l -F -f "$OAUTH_SECRETS" "${logs[@]}" | xargs -n1 basename | tr '\n' ' ')"
else
    pass "none of $nsec tokens and codes appears in the client's, mcpc's, the servers' or the relay's output"
fi

if [ "$verbose" != "0" ]; then
    echo "== the servers' output"
    sed 's/^/    as | /' "$tmp/as.log"; sed 's/^/    mcp | /' "$tmp/mcp.log"
    for f in "${https_logs[@]}"; do case "$f" in *mcp_https.log) sed 's/^/    mcp https | /' "$f" ;; *relay.log) sed 's/^/    relay | /' "$f" ;; esac; done
fi
errors="$(grep -c 'server-error' "$AS_EVENTS" || true)"
if [ "$errors" -eq 0 ]; then pass "the authorization server had no internal error"
else fail "the authorization server had $errors internal error(s)"; grep 'server-error' "$AS_EVENTS" | head -n 5; fi

# ---- stop everything -------------------------------------------------------------------------
stop_all
left=""
for p in $pids; do kill -0 -- "-$p" 2>/dev/null && left="$left $p"; done
pids=""
if [ -z "$left" ]; then pass "the servers (and the relay) stopped; nothing of their process groups is left"
else fail "process group(s)$left still running"; fi
finish
