#!/usr/bin/env bash
# mcpc (examples/mcpc.c) against the pinned reference servers, feature by feature, as a user
# runs it: server-everything over stdio, Streamable HTTP and HTTP+SSE; server-filesystem and
# server-memory over stdio; tests/interop/schema_server.mjs (schemas the reference servers do
# not use: anyOf, oneOf, type lists, $ref; a tool that never answers) over stdio; and an
# https:// endpoint (tests/interop/tls_relay.mjs, a self-signed certificate made here with
# openssl) in front of server-everything's Streamable HTTP. Each check is judged by mcpc's
# output and exit status (and, for the filesystem and memory servers, by the files on disk).
#
#   bash tests/interop/mcpc_features.sh       from anywhere; run.sh calls it after mcpc.sh
#
# Environment: BUILD (default build; mcpc is $BUILD/mcpc, the certificates go to
# $BUILD/mcpc_features/), MCPC (another mcpc binary), MCPC_FEATURES_TIMEOUT (seconds any one
# mcpc run may take before it is killed, default 30), INTEROP_DIR (the folder with
# node_modules and the .mjs helpers, default this script's). Needs tests/interop/node_modules
# (run.sh installs it).
#
# The HTTP servers run in their own process groups on free ports (PORT), are waited for until
# they accept connections (at most 20 s), and are stopped on exit however the script ends
# (SIGTERM to the group, SIGKILL after 3 s). Every mcpc run is bounded by timeout(1).
# One line per check ("ok", "FAIL" with what was seen, "skip" with why); the last line is
# "N passed, N failed, N skipped". Exits non-zero on any failure.
set -uo pipefail

here="$(cd "${INTEROP_DIR:-$(dirname "$0")}" && pwd)"
root="$(cd "$here/../.." && pwd)"
cd "$root"
build=${BUILD:-build}
mcpc=${MCPC:-$build/mcpc}
limit=${MCPC_FEATURES_TIMEOUT:-30}
nm=$here/node_modules/@modelcontextprotocol
ev_js=$nm/server-everything/dist/index.js
fs_js=$nm/server-filesystem/dist/index.js
mem_js=$nm/server-memory/dist/index.js
schema_js=$here/schema_server.mjs
relay_js=$here/tls_relay.mjs
tmp=$(mktemp -d "${TMPDIR:-/tmp}/mcpc_features.XXXXXX")
pass=0 fail=0 skip=0
groups=()

# ---- servers: own process group, free port, always stopped --------------------------------------

stop_group() {    # PGID: SIGTERM to the group, SIGKILL after 3 s
    local g=$1 i
    kill -TERM -- "-$g" 2>/dev/null || return 0
    for i in $(seq 30); do kill -0 -- "-$g" 2>/dev/null || return 0; sleep 0.1; done
    kill -KILL -- "-$g" 2>/dev/null
}
cleanup() {
    local g
    for g in "${groups[@]}"; do stop_group "$g"; done
    wait 2>/dev/null
    rm -rf "$tmp"
}
trap cleanup EXIT
trap 'exit 130' INT TERM HUP

free_port() {
    node -e 'const s = require("net").createServer().listen(0, "127.0.0.1", () => { console.log(s.address().port); s.close(); })'
}
accepts() { (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; }
# start NAME PORT CMD...: CMD in a process group of its own, PORT in its environment, output in
# $tmp/NAME.log; waits (at most 20 s) until 127.0.0.1:PORT accepts connections.
start() {
    local name=$1 port=$2 i pid
    shift 2
    (export PORT=$port; exec setsid "$@" >"$tmp/$name.log" 2>&1 </dev/null) &
    pid=$!
    groups+=("$pid")                  # setsid in a child that leads no group: pgid = pid
    for i in $(seq 200); do
        accepts "$port" && return 0
        kill -0 "$pid" 2>/dev/null || break
        sleep 0.1
    done
    echo "mcpc features: $name did not accept connections on port $port; its output:"
    sed 's/^/  /' "$tmp/$name.log" | head -20
    return 1
}

# ---- checks ---------------------------------------------------------------------------------------

ok()    { pass=$((pass + 1)); echo "ok   $1"; }
bad()   { local n=$1; shift; fail=$((fail + 1)); echo "FAIL $n${1:+: $1}"; }
skipped() { skip=$((skip + 1)); echo "skip $1"; }
seen() {
    echo "     exit status $rc, ${ms} ms"
    echo "     stdout: $(head -c 400 "$tmp/out" | tr '\n' '|')"
    echo "     stderr: $(head -c 400 "$tmp/err" | tr '\n' '|')"
}

# mc ARGS...: mcpc ARGS, stdin from $tmp/in when it exists (else /dev/null), bounded by
# $limit s; sets rc, ms (wall time); stdout in $tmp/out, stderr in $tmp/err.
mc() {
    local t0 t1 in=/dev/null
    [ -f "$tmp/in" ] && in=$tmp/in
    t0=$(date +%s%N)
    timeout -k 3 "$limit" "$mcpc" "$@" >"$tmp/out" 2>"$tmp/err" <"$in"
    rc=$?
    t1=$(date +%s%N)
    ms=$(((t1 - t0) / 1000000))
    rm -f "$tmp/in"
}

# The targets: server-everything over each transport, the other servers over stdio.
target() {
    case $1 in
    stdio) tgt=(node "$ev_js" stdio --) ;;
    http)  tgt=("http://127.0.0.1:$http_port/mcp") ;;
    sse)   tgt=(--sse "http://127.0.0.1:$sse_port/sse") ;;
    fs)    tgt=(node "$fs_js" "$tmp/fs" --) ;;
    mem)   tgt=(-e "MEMORY_FILE_PATH=$tmp/memory.jsonl" node "$mem_js" --) ;;
    schema) tgt=(node "$schema_js" --) ;;
    esac
}
# on TARGET [OPTIONS... ::] COMMAND...: mcpc OPTIONS TARGET COMMAND
on() {
    local t=$1 opts=() i
    shift
    for ((i = 1; i <= $#; i++)); do
        if [ "${!i}" = :: ]; then opts=("${@:1:i-1}"); shift "$i"; break; fi
    done
    target "$t"
    mc "${opts[@]}" "${tgt[@]}" "$@"
}

# expect NAME STATUSES PATTERN...: the exit status is one of STATUSES (space-separated) and
# each pattern matches: P (an ERE) on stdout, err:P on stderr, any:P on either, !P / !err:P
# must not match, count=N:TEXT stderr holds TEXT exactly N times.
expect() {
    local name=$1 want=$2 p f n
    shift 2
    if [[ ! " $want " == *" $rc "* ]]; then bad "$name" "exit status $rc, expected $want"; seen; return 1; fi
    for p in "$@"; do
        local neg=0
        [ "${p:0:1}" = '!' ] && { neg=1; p=${p:1}; }
        case $p in
        err:*) f=$tmp/err; p=${p#err:} ;;
        any:*) cat "$tmp/out" "$tmp/err" >"$tmp/any"; f=$tmp/any; p=${p#any:} ;;
        count=*)
            n=${p#count=}; n=${n%%:*}; p=${p#count=*:}
            local c
            c=$(grep -oF -- "$p" "$tmp/err" | wc -l)
            if [ "$c" -ne "$n" ]; then bad "$name" "stderr holds \"$p\" $c times, expected $n"; seen; return 1; fi
            continue ;;
        *) f=$tmp/out ;;
        esac
        if grep -qE -- "$p" "$f"; then
            [ $neg -eq 1 ] && { bad "$name" "$( [ "$f" = "$tmp/err" ] && echo stderr || echo output) matches /$p/"; seen; return 1; }
        else
            [ $neg -eq 0 ] && { bad "$name" "$( [ "$f" = "$tmp/err" ] && echo stderr || echo output) does not match /$p/"; seen; return 1; }
        fi
    done
    ok "$name"
}
# the arguments schema_server.mjs's args tool received hold each FRAGMENT (compact JSON)
args_hold() {
    local name=$1 f
    shift
    if [ "$rc" -ne 0 ]; then bad "$name" "exit status $rc"; seen; return; fi
    for f in "$@"; do
        grep -qF -- "$f" "$tmp/out" || { bad "$name" "the tool received $(grep -o 'ARGS .*' "$tmp/out" | head -c 300), not $f"; return; }
    done
    ok "$name"
}
# stdout is one JSON value (KIND: value) or one JSON value per line (lines)
json_out() {
    local name=$1 kind=${2:-value} want=${3:-0}
    if [[ ! " $want " == *" $rc "* ]]; then bad "$name" "exit status $rc, expected $want"; seen; return; fi
    if node -e '
        const t = require("fs").readFileSync(process.argv[1], "utf8");
        if (process.argv[2] === "lines") {
            const l = t.split("\n").filter(s => s.trim());
            if (!l.length) throw new Error("no output");
            l.forEach(s => JSON.parse(s));
        } else JSON.parse(t);' "$tmp/out" "$kind" 2>"$tmp/node_err"; then
        ok "$name"
    else
        bad "$name" "stdout is not JSON ($(head -c 200 "$tmp/node_err" | tr '\n' ' '))"; seen
    fi
}
# stderr is one JSON object with a message, a status and the exit status
json_err() {
    local name=$1 want=$2
    if [ "$rc" -ne "$want" ]; then bad "$name" "exit status $rc, expected $want"; seen; return; fi
    if node -e '
        const t = require("fs").readFileSync(process.argv[1], "utf8").trim();
        const rc = Number(process.argv[2]);
        const e = JSON.parse(t);
        if (!e || typeof e !== "object" || Array.isArray(e)) throw new Error("not an object");
        if (typeof e.message !== "string" || !e.message) throw new Error("no message");
        if (!("status" in e)) throw new Error("no status");
        const nums = Object.entries(e).filter(([k, v]) => /exit|code/i.test(k) && v === rc);
        if (!nums.length) throw new Error("no member holds the exit status " + rc);' "$tmp/err" "$rc" 2>"$tmp/node_err"; then
        ok "$name"
    else
        bad "$name" "stderr is not one JSON error object ($(grep -m1 Error "$tmp/node_err" | head -c 200))"; seen
    fi
}
# took NAME MAX_MS: the last run took at most MAX_MS (and at least MIN_MS, if given)
took() {
    local name=$1 max=$2 min=${3:-0}
    if [ "$ms" -le "$max" ] && [ "$ms" -ge "$min" ]; then ok "$name (${ms} ms)"; else
        bad "$name" "took ${ms} ms, expected $min..$max"; seen; fi
}

# ---- setup ----------------------------------------------------------------------------------------

for f in "$mcpc" "$ev_js" "$fs_js" "$mem_js" "$schema_js" "$relay_js"; do
    if [ ! -e "$f" ]; then
        bad "setup" "$f is missing (make builds mcpc; run.sh installs node_modules)"
        echo "$pass passed, $fail failed, $skip skipped"
        exit 1
    fi
done
command -v timeout >/dev/null || { bad setup "timeout(1) is needed"; echo "$pass passed, $fail failed, $skip skipped"; exit 1; }
mkdir -p "$tmp/fs/sub"
printf 'alpha\nbeta\n' >"$tmp/fs/a.txt"
printf 'one\n' >"$tmp/fs/b.txt"

http_port=$(free_port)
start everything-http "$http_port" node "$ev_js" streamableHttp || bad "setup" "server-everything streamableHttp"
sse_port=$(free_port)
start everything-sse "$sse_port" node "$ev_js" sse || bad "setup" "server-everything sse"
all=(stdio http sse)
uri=demo://resource/static/document/architecture.md
echo "mcpc features: $mcpc; server-everything on stdio, http://127.0.0.1:$http_port/mcp, http://127.0.0.1:$sse_port/sse"

# Sections: each "# == feature: KEY" block checks one feature, up to the next such line.

# == feature: typed-json -- typed arguments: what a value's JSON already gives (numbers, booleans, enums, arrays, objects)
for t in "${all[@]}"; do
    on $t call get-sum a=2.5 b=40
    expect "[$t] call get-sum a=2.5 b=40: numbers" 0 '42\.5'
done
on stdio call get-annotated-message messageType=success includeImage=true
expect "[stdio] call get-annotated-message messageType=success includeImage=true: an enum, a boolean" 0 \
    'success|Success' '\[image/png'
on stdio call get-resource-reference resourceType=Blob resourceId=2
expect "[stdio] call get-resource-reference resourceType=Blob resourceId=2" 0 'blob/2'
on schema call args n=42 x=2.5 flag=true colour=red level=2 'tags=["a","b"]' 'obj={"k":1}'
args_hold "[schema] integer, number, boolean, enum, integer enum, array, object" \
    '"n":42' '"x":2.5' '"flag":true' '"colour":"red"' '"level":2' '"tags":["a","b"]' '"obj":{"k":1}'
on schema call args ab=true
args_hold "[schema] anyOf [string, boolean]: true is the boolean" '"ab":true'
on schema call args os=7
args_hold "[schema] oneOf [string, integer]: 7 is the integer" '"os":7'
on schema call args tl=3.5
args_hold "[schema] type [string, number]: 3.5 is the number" '"tl":3.5'
on schema call args rd=5
args_hold "[schema] \$ref #/definitions/count (an integer): 5" '"rd":5'
on schema call args zz=5 zy=abc
args_hold "[schema] keys not in the schema: JSON if it parses (5), else a string" '"zz":5' '"zy":"abc"'
on fs call read_text_file "path=$tmp/fs/a.txt" head=1
expect "[filesystem] read_text_file head=1: a number" 0 '^alpha$' '!beta'
on fs call read_multiple_files "paths=[\"$tmp/fs/a.txt\",\"$tmp/fs/b.txt\"]"
expect "[filesystem] read_multiple_files paths=[...]: an array" 0 'alpha' 'one'
on fs call edit_file "path=$tmp/fs/a.txt" 'edits=[{"oldText":"beta","newText":"gamma"}]' dryRun=true
if [ "$rc" -eq 0 ] && grep -q '+gamma' "$tmp/out" && grep -qx beta "$tmp/fs/a.txt"; then
    ok "[filesystem] edit_file edits=[{...}] dryRun=true: a diff, the file unchanged"
else bad "[filesystem] edit_file edits=[{...}] dryRun=true: a diff, the file unchanged"; seen; fi
on fs call list_directory_with_sizes "path=$tmp/fs" sortBy=size
expect "[filesystem] list_directory_with_sizes sortBy=size: an enum" 0 'a\.txt' 'b\.txt'
on mem call create_entities 'entities=[{"name":"Ada","entityType":"person","observations":["1815","wrote notes"]}]'
expect "[memory] create_entities entities=[{...}]: an array of objects" 0 'Ada'
on mem call open_nodes 'names=["Ada"]'
expect "[memory] open_nodes names=[\"Ada\"]" 0 'wrote notes'
if grep -q '"Ada"' "$tmp/memory.jsonl" 2>/dev/null; then ok "[memory] Ada is in the memory file"
else bad "[memory] Ada is in the memory file" "$(head -c 200 "$tmp/memory.jsonl" 2>/dev/null)"; fi

# == feature: verbose -- -v shows log messages on every transport, notifications on stdio and HTTP+SSE
for t in "${all[@]}"; do
    on $t -v :: call toggle-simulated-logging
    expect "[$t] -v: the log message toggle-simulated-logging sends" 0 'err:(-level message|level-message)'
done
for t in stdio sse; do
    on $t -v :: call trigger-long-running-operation duration=1 steps=1
    expect "[$t] -v: the tools/list_changed notification sent after initialize" 0 'err:notifications/tools/list_changed'
done

# == feature: transports -- the sse endpoint as a plain URL works (Streamable HTTP falls back to HTTP+SSE)
mc "http://127.0.0.1:$sse_port/sse" call echo message=fallback
expect "[sse as a plain URL] call echo" 0 '^Echo: fallback$'
on sse info
expect "[sse] info with --sse: HTTP+SSE, no fallback" 0 '^transport: .*HTTP\+SSE' '!fallback'
on http info
expect "[http] info: Streamable HTTP, no fallback" 0 '^transport: .*Streamable HTTP' '!fallback'

# == feature: once -- a TypeScript-SDK error message is reported once
for t in "${all[@]}"; do
    on $t call get-sum '{"a": "two", "b": 40}'
    expect "[$t] call get-sum with a string for a number: MCP error -32602 once" "4 5" 'count=1:MCP error -32602' \
        'err:expected number'
    on $t prompt no-such-prompt
    expect "[$t] prompt no-such-prompt: MCP error -32602 once" 4 'count=1:MCP error -32602' 'err:no-such-prompt'
    on $t read demo://no/such
    expect "[$t] read demo://no/such: MCP error -32602 once" 4 'count=1:MCP error -32602' 'err:demo://no/such'
done

# == feature: timeout -- -t 1000 on a tool that never answers, or a long one over HTTP, returns within 1.5 s
on schema ping
base=$ms
on schema -t 1000 :: call hang
expect "[schema] -t 1000 call hang: a timeout" 6 'err:[Tt]ime'
took "[schema] -t 1000 call hang: within 1.5 s (plus the server's start, ${base} ms)" $((1500 + base)) 1000
for t in http sse; do
    on $t ping
    base=$ms
    on $t -t 1000 :: call trigger-long-running-operation duration=30 steps=1
    expect "[$t] -t 1000 call trigger-long-running-operation duration=30: a timeout" 6 'err:[Tt]ime'
    took "[$t] ... within 1.5 s (plus connecting, ${base} ms)" $((1500 + base)) 1000
done

# == feature: json-out -- --json: stdout is JSON
for c in info tools "call get-sum a=2 b=40" resources templates "read $uri" prompts \
         "prompt args-prompt city=Paris" "complete prompt completable-prompt department E" ping \
         "request tools/list"; do
    read -r -a words <<<"$c"
    on stdio --json :: "${words[@]}"
    json_out "[stdio] --json $c"
done

# == end
echo "$pass passed, $fail failed, $skip skipped"
[ "$fail" -eq 0 ]
