#!/usr/bin/env bash
# mcpc (examples/mcpc.c) against server-everything over stdio, as a user runs it: tools, call
# (text, image, resource links, progress, a task-required tool), tasks, prompts, completion, resources, templates, read,
# ping, --json, Ctrl-C; and config mode (--config): server-everything over stdio and Streamable
# HTTP and server-memory from an "mcpServers" file and a VS Code one: servers, tools, qualified
# calls, --server. Needs tests/interop/node_modules (run.sh installs it) and build/mcpc.
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
# a task-required tool (2025-11-25 tasks): the call follows the task, each status on stderr
run call simulate-research-query topic=cats
check "call of a task-required tool" 0 '^# Research Report: cats' \
    'err:simulate-research-query: task [0-9a-f-]+: working Gathering sources' \
    'err:simulate-research-query: task [0-9a-f-]+: completed'
run --json call simulate-research-query topic=dogs
check "call of a task-required tool, --json status lines" 0 'Research Report: dogs' 'err:"status":"completed"'
run tasks
check "tasks" 0 '.'
run --no-cache call get-sum a=2 b=40
check "call --no-cache" 0 '42'
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

# ---- config mode: the pinned reference servers from config files (the host) --------------------
# server-everything over stdio and over Streamable HTTP (its own process group on a free port,
# stopped on exit), server-memory over stdio; an "mcpServers" file and a VS Code "servers" one.
mem_js=$here/node_modules/@modelcontextprotocol/server-memory/dist/index.js
http_pid=""
stop_http() {
    [ -n "$http_pid" ] || return 0
    kill -TERM -- "-$http_pid" 2>/dev/null
    for _ in $(seq 30); do kill -0 -- "-$http_pid" 2>/dev/null || break; sleep 0.1; done
    kill -KILL -- "-$http_pid" 2>/dev/null
    wait "$http_pid" 2>/dev/null
    http_pid=""
}
trap 'stop_http; rm -rf "$tmp"' EXIT
port=$(node -e 'const s = require("net").createServer().listen(0, "127.0.0.1", () => { console.log(s.address().port); s.close(); })')
(export PORT=$port; exec setsid node "${everything[1]}" streamableHttp >"$tmp/http.log" 2>&1 </dev/null) &
http_pid=$!
for _ in $(seq 200); do (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null && break; sleep 0.1; done
cat >"$tmp/mcp.json" <<EOF
{
  // Claude Desktop's, Claude Code's and Cursor's format
  "mcpServers": {
    "everything": { "command": "node", "args": ["${everything[1]}", "stdio"] },
    "memory": { "command": "node", "args": ["$mem_js"], "env": { "MEMORY_FILE_PATH": "$tmp/memory.jsonl" } },
  }
}
EOF
cat >"$tmp/vscode.json" <<EOF
{ "servers": { "web": { "type": "http", "url": "http://127.0.0.1:$port/mcp" } }, "inputs": [] }
EOF
cfg=(--config "$tmp/mcp.json" --config "$tmp/vscode.json")
crun() { timeout 60 "$mcpc" "$@" >"$tmp/out" 2>"$tmp/err"; rc=$?; }
crun "${cfg[@]}" servers
check "config: servers (stdio and Streamable HTTP)" 0 '^everything +stdio +ready +[0-9]+ tools' \
    '^memory +stdio +ready +[0-9]+ tools' '^web +streamable-http +ready +[0-9]+ tools'
crun "${cfg[@]}" tools
check "config: tools, qualified" 0 '^everything__echo +message +Echoes back the input string$' \
    '^memory__create_entities +entities ' '^web__get-sum +a b '
crun --json "${cfg[@]}" tools
parses "config: tools --json"
crun "${cfg[@]}" call everything__get-sum a=2 b=40
check "config: call everything__get-sum (stdio)" 0 '42'
crun "${cfg[@]}" call web__echo message=hello
check "config: call web__echo (Streamable HTTP)" 0 '^Echo: hello$'
crun "${cfg[@]}" call memory__create_entities 'entities=[{"name":"Ada","entityType":"person","observations":["1815"]}]'
check "config: call memory__create_entities (an array of objects)" 0 'Ada'
if grep -q '"Ada"' "$tmp/memory.jsonl" 2>/dev/null; then pass=$((pass + 1)); else bad "config: Ada is in the memory file"; fi
crun "${cfg[@]}" --server web call get-sum a=2 b=40
check "config: --server web (Streamable HTTP), unqualified" 0 '42'
crun "${cfg[@]}" --server everything prompt args-prompt city=Paris
check "config: --server everything prompt" 0 '^user: .*Paris'
stop_http

echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
