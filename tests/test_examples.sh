#!/usr/bin/env bash
# The examples as a user runs them (make test runs this as `bash tests/test_examples.sh DATA`
# with BUILD, CC, CFLAGS and LDFLAGS in the environment):
#   - mcpc against the demo server: each command's readable output, --json output that parses,
#     key=value arguments, options, the exit status of each error class, progress, -v, Ctrl-C;
#   - minimal and event_loop against the demo server;
#   - http_client and mcpc over HTTP against $BUILD/http_server when it exists (else skipped,
#     and the skip is not counted as a pass).
# Prints "N passed, N failed" last; exits non-zero on any failure.
set -uo pipefail

root="$(cd "$(dirname "$0")/.." && pwd)"
build=${BUILD:-build}
mcpc=$build/mcpc
server=$build/demo_server
tmp=$(mktemp -d)
bg_pids=""
cleanup() {
    local p
    for p in $bg_pids; do kill "$p" 2>/dev/null; done
    rm -rf "$tmp"
}
trap cleanup EXIT

pass=0 fail=0
bad() { fail=$((fail + 1)); echo "FAILED: $*"; }

for p in mcpc demo_server minimal event_loop http_client; do
    if [ ! -x "$build/$p" ]; then
        bad "$build/$p is missing (make builds it)"
        echo "$pass passed, $fail failed"
        exit 1
    fi
done

# A JSON checker on mcp.h: reads stdin, fails unless it is JSON; with keys (array indices as
# numbers) prints the compact JSON of the value at that path.
cat >"$tmp/json_get.c" <<'EOF'
#define MCP_IMPLEMENTATION
#include "mcp.h"
#include <stdio.h>
#include <stdlib.h>
int main(int argc, char **argv) {
    static char buf[1 << 20];
    size_t n = fread(buf, 1, sizeof buf, stdin);
    mcp_error err;
    mcp_json_doc *doc = mcp_json_parse(buf, n, &err);
    const mcp_json *v = mcp_json_root(doc);
    char *text;
    int i;
    if (!doc) { fprintf(stderr, "json_get: %s\n", err.message); return 1; }
    for (i = 1; i < argc && v; i++)
        v = (argv[i][0] >= '0' && argv[i][0] <= '9') ? mcp_json_at(v, (size_t)atoi(argv[i])) : mcp_json_get(v, argv[i]);
    if (!v) { fprintf(stderr, "json_get: no value at that path\n"); return 1; }
    if (argc > 1 && (text = mcp_json_dump(v, 0, NULL)) != NULL) { puts(text); mcp_free(text); }
    mcp_json_free(doc);
    return 0;
}
EOF
# shellcheck disable=SC2086
if ! ${CC:-cc} ${CFLAGS:--std=c99 -O2} -I"$root" "$tmp/json_get.c" -o "$tmp/json_get" ${LDFLAGS:-} -lm; then
    bad "could not build the JSON checker"
    echo "$pass passed, $fail failed"
    exit 1
fi

# run ARGS...: mcpc ARGS, stdout in $tmp/out, stderr in $tmp/err, exit status in $rc
run() { "$mcpc" "$@" >"$tmp/out" 2>"$tmp/err"; rc=$?; }

# check NAME STATUS [PATTERN...]: the last run exited with STATUS and its stdout matches each
# extended regex PATTERN (one written "err:PATTERN" is matched against stderr, one written
# "!PATTERN" must not match stdout). One check, one pass or failure.
check() {
    local name=$1 want=$2 p
    shift 2
    if [ "$rc" != "$want" ]; then
        bad "$name: exit status $rc, expected $want"
        echo "  stdout: $(head -c 600 "$tmp/out")"; echo "  stderr: $(head -c 600 "$tmp/err")"
        return
    fi
    for p in "$@"; do
        case $p in
        err:*) if ! grep -qE -- "${p#err:}" "$tmp/err"; then
                   bad "$name: stderr does not match /${p#err:}/"; echo "  stderr: $(head -c 600 "$tmp/err")"; return
               fi ;;
        !*)    if grep -qE -- "${p#!}" "$tmp/out"; then
                   bad "$name: stdout matches /${p#!}/"; echo "  stdout: $(head -c 600 "$tmp/out")"; return
               fi ;;
        *)     if ! grep -qE -- "$p" "$tmp/out"; then
                   bad "$name: stdout does not match /$p/"; echo "  stdout: $(head -c 600 "$tmp/out")"; return
               fi ;;
        esac
    done
    pass=$((pass + 1))
}

# json NAME EXPECTED KEY...: the last run's stdout is JSON and the value at KEY... is EXPECTED
json() {
    local name=$1 want=$2 got
    shift 2
    if ! got=$("$tmp/json_get" "$@" <"$tmp/out" 2>&1); then bad "$name: $got"; echo "  stdout: $(head -c 600 "$tmp/out")"; return; fi
    if [ "$got" != "$want" ]; then bad "$name: $* is $got, expected $want"; return; fi
    pass=$((pass + 1))
}

# ---- help and usage errors (status 2) ----------------------------------------------------------
run --help
check "--help" 0 '^Usage:' 'call TOOL \[ARGS\]' 'complete prompt NAME ARG' '^Exit status:' '130 +cancelled' '^Examples:'
run
check "no server" 2 'err:no server given'
run "$server" frobnicate
check "unknown command" 2 'err:unknown command "frobnicate"' 'err:--help'
run --frob "$server" tools
check "unknown option" 2 'err:unknown option --frob'
run "$server" call
check "call without a tool" 2 'err:call TOOL'
run "$server" read a b
check "read with two URIs" 2 'err:read URI'
run "$server" call echo '{"text": '
check "arguments that are not JSON" 2 'err:not valid JSON'
run "$server" call echo text
check "an argument without =" 2 'err:"text" is not key=value'
run --timeout soon "$server" ping
check "--timeout without a number" 2 'err:--timeout needs milliseconds'
run --protocol 1999-01-01 "$server" info
check "--protocol unknown" 2 'err:1999-01-01'
run -H 'no colon' http://127.0.0.1:1/mcp tools
check "-H malformed" 2 'err:header'
run "$server" complete tool x y
check "complete with a bad kind" 2 'err:complete prompt NAME'

# ---- every command, readable -----------------------------------------------------------------
run "$server" info
check "info" 0 '^server: +demo_server 1\.0\.0 \(mcp\.h demo server\)$' '^protocol: +2025-11-25$' \
    '^transport: +stdio: ' '^capabilities: +tools, resources, prompts, logging, completions$' '^instructions: +A demo'
run "$server"
check "no command means info" 0 '^server: +demo_server'
run --protocol 2024-11-05 "$server" info
check "--protocol 2024-11-05" 0 '^protocol: +2024-11-05$'
run "$server" tools
check "tools" 0 '^echo +text +Returns the text you send\.$' '^add +a b +Adds two numbers\.$' \
    '^slow +\[steps\] \[ms\] +Works for a while' '^picture +Returns a tiny PNG'
run "$server" call echo text=hello
check "call echo key=value" 0 '^hello$'
run "$server" call echo '{"text": "JSON arguments"}'
check "call echo JSON" 0 '^JSON arguments$'
run "$server" call echo 'text=two words'
check "call echo, a value with a space" 0 '^two words$'
run "$server" call echo 'text=[1, 2'
check "a value that is not JSON is a string" 0 '^\[1, 2$'
run "$server" call echo 'text=[1, 2]'
check "a value that is JSON is JSON" 0 '^\[1,2\]$'
run "$server" call add a=2 b=40
check "call add: numbers" 0 '^42$'
run "$server" call add a=2.5 b=-0.25
check "call add: decimals" 0 '^2\.25$'
run "$server" call add 'a="2"' b=40
check "a quoted value is a string (add refuses it)" 5 'err:add needs two numbers'
run "$server" call picture
check "call picture: image summarised, link shown" 0 '^A 1x1 PNG:$' '^\[image/png, 70 bytes\]$' \
    '^\[resource link\] demo://readme +readme \(text/markdown\)$'
run "$server" call slow steps=2 ms=20
check "call slow, no progress off a terminal" 0 '^done: 2 steps of 20 ms$' '!slow: 1/2'
if grep -q 'slow: 1/2' "$tmp/err"; then bad "progress shown without --progress off a terminal"; else pass=$((pass + 1)); fi
run --progress "$server" call slow steps=3 ms=50
check "call slow --progress" 0 '^done: 3 steps of 50 ms$' 'err:^slow: 1/3 step 1 of 3$' 'err:^slow: 3/3 step 3 of 3$'
run "$server" resources
check "resources" 0 '^demo://readme +readme +text/markdown +What this server is\.$'
run "$server" templates
check "templates" 0 '^demo://greeting/\{name\} +greeting +text/plain +A greeting for anyone\.$'
run "$server" read demo://readme
check "read demo://readme" 0 '^# demo_server$' 'mcpc build/demo_server call add a=2 b=40'
run "$server" read demo://greeting/Ada
check "read a template's resource" 0 '^Hello, Ada!$'
run "$server" prompts
check "prompts" 0 '^greet +name \[style\] +Asks the model to greet someone\.$'
run "$server" prompt greet name=Ada
check "prompt greet" 0 '^user: Please write a short, friendly greeting for Ada\.$'
run "$server" prompt greet '{"name": "Grace", "style": "pirate"}'
check "prompt greet, JSON arguments" 0 '^user: Please write a short, pirate greeting for Grace\.$'
run "$server" complete prompt greet name A
check "complete prompt" 0 '^Ada$' '^Alan$' '!Grace'
run "$server" complete prompt greet style
check "complete prompt, no value" 0 '^formal$' '^casual$' '^pirate$'
run "$server" complete resource 'demo://greeting/{name}' name G
check "complete resource" 0 '^Grace$' '!Ada'
run "$server" ping
check "ping" 0 '^pong \([0-9]+ ms\)$'
run "$server" request tools/list
json "request tools/list" '"echo"' tools 0 name
run "$server" request completion/complete '{"ref": {"type": "ref/prompt", "name": "greet"}, "argument": {"name": "name", "value": "L"}}'
json "request with JSON params" '["Linus"]' completion values

# ---- --json: the raw result, compact off a terminal ---------------------------------------------
run --json "$server" info
json "info --json" '"demo_server"' serverInfo name
run "$server" tools --json
json "tools --json (option after the command)" '"add"' tools 1 name
if [ "$(wc -l <"$tmp/out")" -eq 1 ]; then pass=$((pass + 1)); else bad "--json off a terminal is not one line"; fi
run --json "$server" call add a=2 b=40
json "call --json" '42' structuredContent sum
run --json "$server" call picture
json "call picture --json" '"image/png"' content 1 mimeType
for cmd in resources templates prompts ping "read demo://readme" "prompt greet name=Ada" "complete prompt greet name A"; do
    # shellcheck disable=SC2086
    run --json "$server" $cmd
    if [ "$rc" -eq 0 ] && "$tmp/json_get" <"$tmp/out" 2>"$tmp/jerr"; then pass=$((pass + 1))
    else bad "$cmd --json: exit status $rc, $(cat "$tmp/jerr")"; fi
done
run --json "$server" read demo://greeting/Ada
json "read --json" '"Hello, Ada!"' contents 0 text
run --json "$server" call add a=x b=1
json "call --json, a tool error: the JSON still printed" 'true' isError
if [ "$rc" -eq 5 ]; then pass=$((pass + 1)); else bad "call --json with isError: exit status $rc, expected 5"; fi

# ---- the exit status of each error class ---------------------------------------------------------
run "$tmp/no-such-server" tools
check "a server that does not exist: connection (3)" 3 'err:Could not start the server'
run false
check "a server that exits at once: connection (3)" 3 'err:exited with status 1'
run http://127.0.0.1:1/mcp tools
check "an HTTP server that is not there: connection (3)" 3 'err:127\.0\.0\.1:1'
run "$server" call no_such_tool
check "an unknown tool: RPC error (4)" 4 'err:MCP error -32602: Unknown tool: no_such_tool'
run "$server" read demo://nothing
check "an unknown resource: RPC error (4)" 4 'err:Resource not found'
run "$server" request no/such/method
check "an unknown method: RPC error (4)" 4 'err:-32601'
run "$server" call add a=1 b=x
check "a tool error: isError (5)" 5 'err:the tool "add" reported an error' 'err:add needs two numbers, a and b\.'
run --timeout 200 "$server" call slow
check "a timeout (6)" 6 'err:Request timeout after 200ms'

# ---- options: -e, -v, a server with arguments ------------------------------------------------------
run -e MCPC_TEST_SERVER="$server" sh -c 'exec "$MCPC_TEST_SERVER"' -- ping
check "-e reaches the server's environment" 0 '^pong'
run sh -c 'exec "$MCPC_TEST_SERVER_UNSET"' -- ping
check "... and without -e the server does not start" 3
run -v "$server" call slow steps=2 ms=20
check "-v: server log messages on stderr" 0 '^done: 2 steps' 'err:connected to demo_server 1\.0\.0' \
    'err:^\[info\] demo_server: slow: working for 2 steps of 20 ms$'

# ---- Ctrl-C cancels a call: status 130, and the server is told ---------------------------------------
"$mcpc" -v --progress "$server" call slow steps=200 ms=50 >"$tmp/out" 2>"$tmp/err" &
pid=$!
bg_pids="$bg_pids $pid"
for _ in $(seq 100); do grep -q 'slow: 1/200' "$tmp/err" && break; sleep 0.1; done
kill -INT "$pid"
wait "$pid"
rc=$?
check "Ctrl-C cancels the call (130)" 130 'err:Request cancelled' \
    'err:\[server stderr\] demo_server: request [0-9]+ cancelled \(the user pressed Ctrl-C\)' '!done:'

# ---- on a terminal: the progress line is redrawn in place (needs util-linux script) -----------------
if script --version 2>/dev/null | grep -q util-linux; then
    script -qec "$mcpc $server call slow steps=2 ms=20" /dev/null >"$tmp/out" 2>&1
    rc=$?
    check "progress on a terminal" 0 $'\r\033\\[Kslow \\[##########----------\\] 1/2 step 1 of 2' \
        $'\r\033\\[Kslow \\[####################\\] 2/2 step 2 of 2\r\033\\[Kdone: 2 steps'
else
    echo "SKIP progress on a terminal: no util-linux script(1) (not counted)"
fi

# ---- minimal and event_loop -------------------------------------------------------------------------
"$build/minimal" >"$tmp/out" 2>"$tmp/err"; rc=$?
check "minimal" 0 '^Hello from mcp\.h!$'
"$build/minimal" "$tmp/no-such-server" >"$tmp/out" 2>"$tmp/err"; rc=$?
check "minimal, no server" 1 'err:^minimal: Could not start the server'
"$build/event_loop" >"$tmp/out" 2>"$tmp/err"; rc=$?
check "event_loop" 0 '^frame +1  echo answered: hello from frame 0$' 'slow: progress 5/5' \
    'slow answered: done: 5 steps of 300 ms' 'frames/s, 1 call in flight' '^[0-9]+ frames in [0-9.]+ s: '

# ---- HTTP: http_client and mcpc against build/http_server, when it is there --------------------------
if [ -x "$build/http_server" ]; then
    mkfifo "$tmp/hs_in"
    "$build/http_server" 0 <"$tmp/hs_in" >"$tmp/hs_out" 2>"$tmp/hs_err" &
    hs=$!
    bg_pids="$bg_pids $hs"
    exec 9>"$tmp/hs_in"                       # its stdin: it exits when this closes
    port=""
    for _ in $(seq 100); do
        port=$(sed -n 's/^PORT \([0-9][0-9]*\)$/\1/p' "$tmp/hs_out")
        [ -n "$port" ] && break
        sleep 0.05
    done
    if [ -z "$port" ]; then
        bad "http_server did not say its port: $(cat "$tmp/hs_err")"
    else
        url=http://127.0.0.1:$port
        "$build/http_client" "$url/mcp" >"$tmp/out" 2>"$tmp/err"; rc=$?
        check "http_client, Streamable HTTP" 0 '^connected to .* over Streamable HTTP' '^tools:.* echo' 'hello over HTTP'
        "$build/http_client" --sse "$url/sse" add '{"a": 2, "b": 40}' >"$tmp/out" 2>"$tmp/err"; rc=$?
        check "http_client --sse" 0 '^connected to .* over HTTP\+SSE' '^42$'
        run -H 'X-Test: 1' "$url/mcp" call add a=2 b=40
        check "mcpc over Streamable HTTP" 0 '^42$'
        run --sse "$url/sse" tools
        check "mcpc --sse" 0 '^echo'
    fi
    exec 9>&-
    wait "$hs" 2>/dev/null
else
    echo "SKIP http_client: no $build/http_server to talk to (not counted); run it by hand:"
    echo "     $build/http_client http://HOST:PORT/mcp   or   $build/http_client --sse http://HOST:PORT/sse"
fi

echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
