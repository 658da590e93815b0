#!/usr/bin/env bash
# mcpc (examples/mcpc.c) against server-everything over stdio, as a user runs it: tools, call
# (text, image, resource links, progress), prompts, completion, resources, templates, read,
# ping, --json, Ctrl-C. Needs tests/interop/node_modules (run.sh installs it) and build/mcpc.
#
#   bash tests/interop/mcpc.sh           from anywhere; BUILD (default build)
# Prints "N passed, N failed" last; exits non-zero on any failure.
set -uo pipefail

here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/../.." && pwd)"
cd "$root"
mcpc=${BUILD:-build}/mcpc
everything=(node "$here/node_modules/@modelcontextprotocol/server-everything/dist/index.js" stdio --)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
pass=0 fail=0
bad() { fail=$((fail + 1)); echo "mcpc interop: FAILED: $*"; }

if [ ! -x "$mcpc" ] || [ ! -f "${everything[1]}" ]; then
    bad "needs $mcpc (make) and server-everything (run.sh installs it)"
    echo "$pass passed, $fail failed"
    exit 1
fi

# run ARGS...: mcpc [options] server-everything -- ARGS; check NAME STATUS PATTERN... as in
# tests/test_examples.sh ("err:P" matches stderr); parses NAME: stdout is JSON
run() { local opts=(); while [ $# -gt 0 ] && [ "${1:0:1}" = - ]; do opts+=("$1"); shift; done
        "$mcpc" "${opts[@]}" "${everything[@]}" "$@" >"$tmp/out" 2>"$tmp/err"; rc=$?; }
check() {
    local name=$1 want=$2 p
    shift 2
    if [[ ! " $want " == *" $rc "* ]]; then
        bad "$name: exit status $rc, expected $want"; echo "  stderr: $(head -c 400 "$tmp/err")"; return
    fi
    for p in "$@"; do
        case $p in
        err:*) grep -qE -- "${p#err:}" "$tmp/err" || { bad "$name: stderr does not match /${p#err:}/"; return; } ;;
        *)     grep -qE -- "$p" "$tmp/out" || { bad "$name: stdout does not match /$p/"; echo "  stdout: $(head -c 400 "$tmp/out")"; return; } ;;
        esac
    done
    pass=$((pass + 1))
}
parses() {
    if [ "$rc" -eq 0 ] && node -e 'JSON.parse(require("fs").readFileSync(0, "utf8"))' <"$tmp/out"; then
        pass=$((pass + 1)); else bad "$1: exit status $rc or not JSON"; fi
}

run info
check "info" 0 '^server: +mcp-servers/everything ' '^capabilities: +tools'
run tools
check "tools" 0 '^echo +message +Echoes back the input string$' '^get-sum +a b +'
run call echo message=hello
check "call echo" 0 '^Echo: hello$'
run call get-sum a=2 b=40
check "call get-sum" 0 '42'
run --json call get-sum a=2 b=40
parses "call --json"
run --progress call trigger-long-running-operation duration=1 steps=2
check "call with progress" 0 'completed' 'err:trigger-long-running-operation: 2/2'
run call get-tiny-image
check "an image, summarised" 0 '^\[image/png, [0-9]+ bytes\]$'
run call get-resource-links count=2
check "resource links" 0 '^\[resource link\] demo://'
run call get-resource-reference
check "an embedded resource" 0 '^\[resource demo://'
run call no-such-tool
check "an unknown tool" "4 5" 'err:no-such-tool'
run prompts
check "prompts" 0 '^args-prompt +city \[state\]'
run prompt args-prompt city=Paris
check "prompt" 0 '^user: .*Paris'
run complete prompt completable-prompt department E
check "complete" 0 '^Engineering$'
run resources
check "resources" 0 'architecture\.md'
run templates
check "templates" 0 '\{resourceId\}'
run read demo://resource/dynamic/text/1
check "read" 0 'Resource 1'
run --json tools
parses "tools --json"
run ping
check "ping" 0 '^pong'

# Ctrl-C during a long call: status 130, the call cancelled
"$mcpc" --progress "${everything[@]}" call trigger-long-running-operation duration=20 steps=20 >"$tmp/out" 2>"$tmp/err" &
pid=$!
for _ in $(seq 100); do grep -q '1/20' "$tmp/err" && break; sleep 0.1; done
kill -INT "$pid"
wait "$pid"
rc=$?
check "Ctrl-C" 130 'err:Request cancelled'

echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
