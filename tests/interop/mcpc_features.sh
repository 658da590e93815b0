#!/usr/bin/env bash
# mcpc (examples/mcpc.c) against the pinned reference servers, feature by feature, as a user
# runs it: server-everything over stdio, Streamable HTTP and HTTP+SSE; server-filesystem and
# server-memory over stdio; tests/interop/schema_server.mjs (schemas the reference servers do
# not use: anyOf, oneOf, type lists, $ref; a tool that never answers; log messages sent
# unasked, for watch) over stdio; and https:// endpoints (tests/interop/tls_relay.mjs, with a
# self-signed certificate made here by openssl) in front of server-everything's Streamable
# HTTP and HTTP+SSE servers. Each check is judged by mcpc's output and exit status (and, for
# the filesystem and memory servers, by the files on disk). One "# == feature: KEY" section
# per feature of mcpc.
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
# must not match, count=N:TEXT stderr holds TEXT exactly N times, min=N:P at least N lines
# of stdout match P.
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
        min=*)
            n=${p#min=}; n=${n%%:*}; p=${p#min=*:}
            local c
            c=$(grep -cE -- "$p" "$tmp/out")
            if [ "$c" -lt "$n" ]; then bad "$name" "$c lines of the output match /$p/, expected $n or more"; seen; return 1; fi
            continue ;;
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
# each stderr line is a JSON object, the last one the error: status, class, exit (the exit
# status) and message
json_err() {
    local name=$1 want=$2
    if [ "$rc" -ne "$want" ]; then bad "$name" "exit status $rc, expected $want"; seen; return; fi
    if node -e '
        const lines = require("fs").readFileSync(process.argv[1], "utf8").split("\n").filter(s => s.trim());
        const rc = Number(process.argv[2]);
        if (!lines.length) throw new Error("stderr is empty");
        const all = lines.map(l => JSON.parse(l));
        const e = all[all.length - 1];
        if (!e || typeof e !== "object" || Array.isArray(e)) throw new Error("the last line is not an object");
        if (typeof e.message !== "string" || !e.message) throw new Error("no message");
        if (typeof e.status !== "string" || !e.status.startsWith("MCP_")) throw new Error("no status");
        if (typeof e.class !== "string") throw new Error("no class");
        if (e.exit !== rc) throw new Error("exit is " + e.exit + ", the exit status " + rc);' "$tmp/err" "$rc" 2>"$tmp/node_err"; then
        ok "$name"
    else
        bad "$name" "stderr is not JSON lines ending in the error ($(grep -m1 Error "$tmp/node_err" | head -c 200))"; seen
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

# == feature: typed -- arguments follow the tool's input schema (a word that parses as JSON of another type)
for t in "${all[@]}"; do
    on $t call echo message=42
    expect "[$t] call echo message=42: the schema says string, \"42\" is sent" 0 '^Echo: 42$'
    on $t call echo message=true
    expect "[$t] call echo message=true: a string" 0 '^Echo: true$'
done
on stdio call echo 'message={"k": 1}'
expect "[stdio] call echo message={\"k\": 1}: a string, as typed" 0 '^Echo: \{"k": 1\}$'
on stdio call echo message=hi colour=blue
expect "[stdio] a key the schema does not have: sent, with a warning on stderr naming it" 0 '^Echo: hi$' 'err:colour'
on schema call args s=true
args_hold "[schema] string: s=true is \"true\"" '"s":"true"'
on schema call args s=42
args_hold "[schema] string: s=42 is \"42\"" '"s":"42"'
on schema call args ab=42
args_hold "[schema] anyOf [string, boolean]: 42 is the string \"42\" (string last)" '"ab":"42"'
on schema call args os=7.5
args_hold "[schema] oneOf [string, integer]: 7.5 is the string \"7.5\"" '"os":"7.5"'
on schema call args tl=null
args_hold "[schema] type [string, number]: null is the string \"null\"" '"tl":"null"'
on schema call args rs=42
args_hold "[schema] \$ref #/\$defs/name (a string): 42 is \"42\"" '"rs":"42"'
on schema call args zz=5 zy=abc
if grep -q zz "$tmp/err" && grep -q zy "$tmp/err"; then ok "[schema] keys not in the schema: a warning on stderr naming them"
else bad "[schema] keys not in the schema: a warning on stderr naming zz and zy"; seen; fi
on fs call write_file "path=$tmp/fs/n.txt" content=42
if [ "$rc" -eq 0 ] && [ "$(cat "$tmp/fs/n.txt" 2>/dev/null)" = 42 ]; then ok "[filesystem] write_file content=42: the file holds 42"
else bad "[filesystem] write_file content=42: the file holds 42" "it holds: $(head -c 80 "$tmp/fs/n.txt" 2>/dev/null)"; seen; fi
on mem call search_nodes query=1815
expect "[memory] search_nodes query=1815: the string \"1815\", which finds Ada" 0 'Ada'
on stdio call get-sum a=two b=40
expect "[stdio] call get-sum a=two: not a number, a usage error naming a" 2 'err:\<a\>'
on stdio call get-annotated-message messageType=bogus
expect "[stdio] call get-annotated-message messageType=bogus: not one of the enum's values, a usage error" 2 \
    'err:messageType|bogus'
on stdio call get-annotated-message messageType=error includeImage=yes
expect "[stdio] call get-annotated-message includeImage=yes: not a boolean, a usage error" 2 'err:includeImage|yes'
on schema call args n=2.5
expect "[schema] n=2.5 for an integer: a usage error" 2 'err:\<n\>|2\.5'

# == feature: promptargs -- prompt arguments are always strings
for t in "${all[@]}"; do
    on $t prompt resource-prompt resourceType=Text resourceId=3
    expect "[$t] prompt resource-prompt resourceType=Text resourceId=3" 0 'Text resource with id: 3' 'demo://resource/dynamic/text/3'
done
on stdio prompt args-prompt city=42 state=true
expect "[stdio] prompt args-prompt city=42 state=true: strings" 0 'weather in 42, true'

# == feature: toolinfo -- tools NAME shows one tool in full; the tools table wraps descriptions
on stdio tools echo
expect "[stdio] tools echo: description, argument, type, required, its description" 0 \
    'Echoes back the input string' 'message.*string' '[Rr]equired' 'Message to echo'
on stdio tools get-annotated-message
expect "[stdio] tools get-annotated-message: enum values, boolean, default" 0 \
    'messageType' 'error.*success.*debug' 'includeImage.*boolean' '[Dd]efault.*false|false.*[Dd]efault'
on stdio tools trigger-long-running-operation
expect "[stdio] tools trigger-long-running-operation: defaults" 0 'duration.*number' '10' 'steps' '5'
on stdio tools get-structured-content
expect "[stdio] tools get-structured-content: the output schema" 0 '[Oo]utput' 'temperature' 'humidity'
on fs tools edit_file
expect "[filesystem] tools edit_file: an array of objects, a boolean" 0 'edits.*array' 'dryRun.*boolean'
on stdio tools no-such-tool
expect "[stdio] tools no-such-tool: an error naming it" "2 4" 'err:no-such-tool'
on stdio --json :: tools echo
json_out "[stdio] --json tools echo"
on stdio tools
long="Simulates a deep research operation that gathers, analyzes, and synthesizes information. Demonstrates MCP task-based operations with progress through multiple stages. If 'ambiguous' is true and client supports elicitation, sends an elicitation request for clarification."
if [ "$rc" -eq 0 ] && tr -s ' \n' '  ' <"$tmp/out" | grep -qF -- "$long" && ! grep -q '\.\.\.$' "$tmp/out" &&
   ! grep -q 'simulate-research-query.*for clarification' "$tmp/out"; then
    ok "[stdio] tools: a long description is wrapped onto more lines, whole"
else bad "[stdio] tools: a long description is wrapped onto more lines, whole"; seen; fi

# == feature: loglevel -- --log-level sets the server's log level before the command
for t in "${all[@]}"; do
    on $t --log-level info :: request resources/subscribe uri=$uri
    expect "[$t] --log-level info: the info message of resources/subscribe, on stderr" 0 'err:Received Subscribe Resource request'
    on $t -v --log-level warning :: request resources/subscribe uri=$uri
    expect "[$t] -v --log-level warning: it is not sent" 0 '!err:Received Subscribe Resource request'
    on $t --log-level debug :: call toggle-simulated-logging
    expect "[$t] --log-level debug: the message toggle-simulated-logging sends" 0 'err:(-level message|level-message)'
done
on stdio --log-level loud :: ping
expect "[stdio] --log-level loud: a usage error" 2 'err:loud'

# == feature: verbose -- -v shows log messages on every transport, notifications on stdio and HTTP+SSE
for t in "${all[@]}"; do
    on $t -v :: call toggle-simulated-logging
    expect "[$t] -v: the log message toggle-simulated-logging sends" 0 'err:(-level message|level-message)'
done
for t in stdio sse; do
    on $t -v :: call trigger-long-running-operation duration=1 steps=1
    expect "[$t] -v: the tools/list_changed notification sent after initialize" 0 'err:notifications/tools/list_changed'
done
# (over Streamable HTTP that one is sent while the POST of notifications/initialized is
# answered, before the GET stream is open: the server keeps it for a replay nobody asks for)
for t in "${all[@]}"; do
    on $t -v :: call gzip-file-as-resource name=v-$t.gz 'data=data:text/plain;base64,aGVsbG8='
    expect "[$t] -v: the resources/list_changed notification gzip-file-as-resource sends" 0 \
        'err:notifications/resources/list_changed'
done

# == feature: watch -- watch [URI...] stays connected and prints every notification and log message until Ctrl-C or --for
# watch_run SECONDS_TO_SIGINT MCPC-ARGS...: watch, stopped with SIGINT after the seconds given
watch_run() {
    local after=$1 t0
    shift
    t0=$(date +%s%N)
    timeout --preserve-status -k 3 -s INT "$after" "$mcpc" "$@" >"$tmp/out" 2>"$tmp/err" </dev/null
    rc=$?
    ms=$((($(date +%s%N) - t0) / 1000000))
}
for t in "${all[@]}"; do
    on $t ping
    base=$ms
    on $t --log-level info --for 3s :: watch "$uri"
    expect "[$t] --log-level info watch URI --for 3s: the log message of its resources/subscribe" 0 \
        'any:Received Subscribe Resource request'
    took "[$t] watch --for 3s: connected 3 s, then done (plus connecting, ${base} ms)" $((3000 + base + 1500)) 3000
done
for t in stdio sse; do
    target $t
    watch_run 3 "${tgt[@]}" watch
    expect "[$t] watch, Ctrl-C after 3 s: the tools/list_changed notification on stdout, status 0" 0 \
        'notifications/tools/list_changed'
    [ "$ms" -ge 2900 ] && ok "[$t] watch: still connected when Ctrl-C came (${ms} ms)" || { bad "[$t] watch: still connected when Ctrl-C came"; seen; }
done
target http
watch_run 3 "${tgt[@]}" watch
expect "[http] watch, Ctrl-C after 3 s: status 0" 0
# schema_server.mjs --tick 300: a log message every 300 ms, info and warning in turn
tick=(node "$schema_js" --tick 300 --)
for p in 2025-11-25 auto; do
    popt=(); [ $p = auto ] || popt=(--protocol $p)
    mc "${popt[@]}" --for 2s "${tick[@]}" watch
    expect "[schema, $p] watch --for 2s: the log messages sent while it watches, on stdout (4 or more)" 0 \
        'tick [0-9]+ \(info\)' 'tick [0-9]+ \(warning\)' 'min=4:tick [0-9]+ '
done
mc --protocol 2025-11-25 --log-level warning --for 2s "${tick[@]}" watch
expect "[schema] --log-level warning watch: the warnings, not the info messages" 0 'tick 2 \(warning\)' '!\(info\)'
mc --protocol 2025-11-25 --json --for 2s "${tick[@]}" watch
json_out "[schema] --json watch: one JSON object a line" lines 0
grep -q '"method":"notifications/message"' "$tmp/out" && ok "[schema] --json watch: {\"method\": \"notifications/message\", ...} lines" ||
    { bad "[schema] --json watch: {\"method\": \"notifications/message\", ...} lines"; seen; }
watch_run 2 --protocol 2025-11-25 "${tick[@]}" watch
expect "[schema] watch, Ctrl-C after 2 s: status 0, the messages until then" 0 'min=3:tick [0-9]+ '

# == feature: https -- mcpc built with OpenSSL reaches https:// servers (--cacert, --insecure)
if ! command -v openssl >/dev/null 2>&1 || [ ! -f /usr/include/openssl/ssl.h ]; then
    skipped "https: openssl or the OpenSSL headers are not installed"
else
    certs=$build/mcpc_features
    mkdir -p "$certs"
    if openssl req -x509 -newkey rsa:2048 -nodes -keyout "$certs/key.pem" -out "$certs/cert.pem" -days 2 \
            -subj /CN=127.0.0.1 -addext subjectAltName=IP:127.0.0.1,DNS:localhost >"$tmp/openssl.log" 2>&1 &&
       openssl req -x509 -newkey rsa:2048 -nodes -keyout "$certs/other-key.pem" -out "$certs/other-cert.pem" -days 2 \
            -subj /CN=other.invalid -addext subjectAltName=DNS:other.invalid >>"$tmp/openssl.log" 2>&1; then
        tls_port=$(free_port)
        start tls-relay "$tls_port" node "$relay_js" "$certs/cert.pem" "$certs/key.pem" "$http_port" "$tls_port"
        other_port=$(free_port)
        start tls-relay-other "$other_port" node "$relay_js" "$certs/other-cert.pem" "$certs/other-key.pem" "$http_port" "$other_port"
        https=https://127.0.0.1:$tls_port/mcp
        mc --cacert "$certs/cert.pem" "$https" info
        expect "[https] --cacert: info" 0 '^server: +mcp-servers/everything' "https://127\.0\.0\.1:$tls_port"
        mc --cacert "$certs/cert.pem" "$https" call echo message=tls
        expect "[https] --cacert: call echo" 0 '^Echo: tls$'
        mc "$https" ping
        expect "[https] a self-signed certificate without --cacert: refused" 3 'err:[Cc]ertificate|verif'
        mc --insecure "$https" ping
        expect "[https] --insecure: connects, with a warning" 0 'err:insecure|not verified|verification'
        mc --cacert "$certs/other-cert.pem" "https://127.0.0.1:$other_port/mcp" ping
        expect "[https] a certificate for another name: refused" 3 'err:[Cc]ertificate|verif|name|host'
        sse_tls_port=$(free_port)
        start tls-relay-sse "$sse_tls_port" node "$relay_js" "$certs/cert.pem" "$certs/key.pem" "$sse_port" "$sse_tls_port"
        mc --cacert "$certs/cert.pem" --sse "https://127.0.0.1:$sse_tls_port/sse" call echo message=tls-sse
        expect "[https] --cacert --sse https://...: call echo over HTTP+SSE" 0 '^Echo: tls-sse$'
        mc --cacert "$certs/cert.pem" "https://127.0.0.1:$sse_tls_port/sse" info
        expect "[https] the sse endpoint as a plain https:// URL: the fallback, named" 0 \
            '^transport: .*HTTP\+SSE.*\(fallback: POST answered 404\)'
    else
        bad "https: openssl req failed" "$(tail -3 "$tmp/openssl.log")"
    fi
fi

# == feature: context -- complete prompt NAME ARG VALUE other=value passes context.arguments
for t in "${all[@]}"; do
    on $t complete prompt completable-prompt name A department=Engineering
    expect "[$t] complete ... name A department=Engineering: Alice" 0 '^Alice$' '!Bob'
    on $t complete prompt completable-prompt name '' department=Sales
    expect "[$t] complete ... name '' department=Sales: David, Eve, Frank" 0 '^David$' '^Eve$' '^Frank$'
done
on stdio complete prompt completable-prompt name A
expect "[stdio] complete ... name A without the department: none" 0 '!Alice'

# == feature: transports -- the sse endpoint as a plain URL works (Streamable HTTP falls back to HTTP+SSE)
mc "http://127.0.0.1:$sse_port/sse" call echo message=fallback
expect "[sse as a plain URL] call echo" 0 '^Echo: fallback$'
on sse info
expect "[sse] info with --sse: HTTP+SSE, no fallback" 0 '^transport: .*HTTP\+SSE' '!fallback'
on http info
expect "[http] info: Streamable HTTP, no fallback" 0 '^transport: .*Streamable HTTP' '!fallback'

# == feature: fallback -- a URL that falls back from Streamable HTTP to HTTP+SSE says so
mc "http://127.0.0.1:$sse_port/sse" info
expect "[sse as a plain URL] info: HTTP+SSE (fallback: POST answered 404)" 0 \
    '^transport: .*HTTP\+SSE.*\(fallback: POST answered 404\)'

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

# == feature: timeout-stdio -- ... and over stdio, where the server still has the operation's timer running
on stdio ping
base=$ms
on stdio -t 1000 :: call trigger-long-running-operation duration=30 steps=1
expect "[stdio] -t 1000 call trigger-long-running-operation duration=30: a timeout" 6 'err:[Tt]ime'
took "[stdio] ... within 1.5 s (plus the server's start, ${base} ms)" $((1500 + base)) 1000

# == feature: json-out -- --json: stdout is JSON
for c in info tools "call get-sum a=2 b=40" resources templates "read $uri" prompts \
         "prompt args-prompt city=Paris" "complete prompt completable-prompt department E" ping \
         "request tools/list"; do
    read -r -a words <<<"$c"
    on stdio --json :: "${words[@]}"
    json_out "[stdio] --json $c"
done

# == feature: json-err -- --json: an error is one JSON object on stderr (status, exit status, message)
for t in stdio http; do
    on $t --json :: prompt no-such-prompt
    json_err "[$t] --json prompt no-such-prompt: the error as JSON on stderr" 4
    on $t --json :: read demo://no/such
    json_err "[$t] --json read demo://no/such: the error as JSON on stderr" 4
done
on stdio --json -t 1000 :: call trigger-long-running-operation duration=30 steps=1
json_err "[stdio] --json -t 1000: the timeout as JSON on stderr" 6
mc --json "http://127.0.0.1:1/mcp" info
json_err "[http] --json, nothing listening: the connection error as JSON on stderr" 3
on stdio --json :: no-such-command
json_err "[stdio] --json no-such-command: the usage error as JSON on stderr" 2
on stdio --json :: call get-sum a=two b=40
json_err "[stdio] --json call get-sum a=two: the usage error as JSON on stderr" 2
on stdio --json :: call echo message=hi colour=blue
if [ "$rc" -eq 0 ] && node -e '
    const l = require("fs").readFileSync(process.argv[1], "utf8").split("\n").filter(s => s.trim()).map(s => JSON.parse(s));
    if (!l.some(o => typeof o.warning === "string" && o.warning.includes("colour"))) process.exit(1);' "$tmp/err" 2>/dev/null; then
    ok "[stdio] --json: the warning for a key not in the schema is {\"warning\": ...} on stderr"
else bad "[stdio] --json: the warning for a key not in the schema is {\"warning\": ...} on stderr"; seen; fi

# == feature: argsfile -- --args-file FILE|-
printf '{"a": 2, "b": 40}\n' >"$tmp/args.json"
on stdio --args-file "$tmp/args.json" :: call get-sum
expect "[stdio] call get-sum --args-file FILE" 0 '42'
printf '{"message": "from stdin"}\n' >"$tmp/in"
on stdio --args-file - :: call echo
expect "[stdio] call echo --args-file -" 0 '^Echo: from stdin$'
on stdio --args-file "$tmp/args.json" :: call get-sum b=1
expect "[stdio] call get-sum --args-file FILE b=1: the word replaces b" 0 '\<3\>'
on stdio call get-sum '{"a": 2, "b": 1}' b=40
expect "[stdio] call get-sum '{...}' b=40: a JSON object, then a word replacing b" 0 '42'
printf '{"city": "Lyon"}\n' >"$tmp/args.json"
on stdio --args-file "$tmp/args.json" :: prompt args-prompt
expect "[stdio] prompt args-prompt --args-file FILE" 0 'Lyon'

# == feature: quoted -- a quoted server command works without --
mc "node $ev_js stdio" tools
expect "[stdio] \"node .../index.js stdio\" tools: a quoted server command" 0 '^echo '
mc "node $ev_js stdio" call echo message=quoted
expect "[stdio] \"node .../index.js stdio\" call echo" 0 '^Echo: quoted$'

# == end
echo "$pass passed, $fail failed, $skip skipped"
[ "$fail" -eq 0 ]
