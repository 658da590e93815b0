#!/usr/bin/env bash
# The examples as a user runs them (make test runs this as `bash tests/test_examples.sh DATA`
# with BUILD, CC, CFLAGS and LDFLAGS in the environment):
#   - mcpc against the demo server: each command's readable output, --json output that parses,
#     key=value arguments, options, the exit status of each error class, progress, -v, Ctrl-C;
#   - minimal and event_loop against the demo server; custom_transport (its server in-process);
#   - http_client and mcpc over HTTP against $BUILD/http_server when it exists (else skipped:
#     a check that cannot run here is counted as skipped, never as passed).
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

. "$root/tests/lib.sh"      # pass, fail, skip: bad, skipped, summary, check, json_checker, json

# A loopback port nothing listens on (connection refused), for the "server is not there" checks:
# port 1 unless something listens there.
closed=1
while (exec 3<>"/dev/tcp/127.0.0.1/$closed") 2>/dev/null; do closed=$((closed + 1)); done

for p in mcpc demo_server minimal event_loop http_client custom_transport; do
    if [ ! -x "$build/$p" ]; then
        bad "$build/$p is missing (make builds it)"
        summary
        exit 1
    fi
done

if ! json_checker "$root"; then
    bad "could not build the JSON checker"
    summary
    exit 1
fi

# run ARGS...: mcpc ARGS, stdout in $tmp/out, stderr in $tmp/err, exit status in $rc
run() { "$mcpc" "$@" >"$tmp/out" 2>"$tmp/err"; rc=$?; }

# ---- help and usage errors (status 2) ----------------------------------------------------------
run --help
check "--help" 0 '^Usage:' 'call TOOL \[ARGS\]' 'complete prompt NAME ARG' '^Exit status' '130 +cancelled' '^Examples:' \
    'watch \[URI\.\.\.\]' '--log-level LEVEL' '--args-file FILE' '--for DURATION' '--cacert FILE' '--insecure'
# the examples of --help use the names of the demo server's arguments
for a in "call echo '{\"text\"" "call add a=2 b=40" "call book title=" "prompt greet name=Ada" "server-everything' call echo message="; do
    if grep -qF -- "$a" "$tmp/out"; then pass=$((pass + 1)); else bad "--help has no example with $a"; fi
done
run --version
check "--version" 0 '^mcpc, on mcp\.h [0-9]' '^https: (yes|no)'
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
run -H 'no colon' http://127.0.0.1:$closed/mcp tools
check "-H malformed" 2 'err:header'
run "$server" complete tool x y
check "complete with a bad kind" 2 'err:complete prompt NAME'

# ---- every command, readable -----------------------------------------------------------------
run "$server" info
check "info" 0 '^server: +demo_server 1\.0\.0 \(mcp\.h demo server\)$' '^protocol: +2025-11-25$' \
    '^transport: +stdio: ' '^capabilities: +tools, resources \(subscribe\), prompts, logging, completions$' '^instructions: +A demo'
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
check "a string argument: not JSON" 0 '^\[1, 2$'
run "$server" call echo 'text=[1, 2]'
check "a string argument stays a string, JSON or not" 0 '^\[1, 2\]$'
run "$server" call echo text=42
check "... a number too" 0 '^42$'
run "$server" call add a=2 b=40
check "call add: numbers" 0 '^42$'
run "$server" call add a=2.5 b=-0.25
check "call add: decimals" 0 '^2\.25$'
run "$server" call add 'a="2"' b=40
check "a number argument that is not a number: usage (2)" 2 'err:a="2" does not fit the tool "add": a is a number'
run "$server" call add '{"a": "2", "b": 40}'
check "a JSON object is sent as it is (add refuses the string)" 5 'err:add needs two numbers'
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
run --json "$server" call add '{"a": "x", "b": 1}'
json "call --json, a tool error: the JSON still printed" 'true' isError
if [ "$rc" -eq 5 ]; then pass=$((pass + 1)); else bad "call --json with isError: exit status $rc, expected 5"; fi

# ---- the exit status of each error class ---------------------------------------------------------
run "$tmp/no-such-server" tools
check "a server that does not exist: connection (3)" 3 'err:Could not start the server'
run false
check "a server that exits at once: connection (3)" 3 'err:exited with status 1'
run http://127.0.0.1:$closed/mcp tools
check "an HTTP server that is not there: connection (3)" 3 "err:127\\.0\\.0\\.1:$closed"
run "$server" call no_such_tool
check "an unknown tool: RPC error (4)" 4 'err:MCP error -32602: Unknown tool: no_such_tool'
run "$server" read demo://nothing
check "an unknown resource: RPC error (4)" 4 'err:Resource not found'
run "$server" request no/such/method
check "an unknown method: RPC error (4)" 4 'err:-32601'
run "$server" call add '{"a": 1, "b": "x"}'
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

# ---- call: key=value words typed by the tool's inputSchema (the demo server's book) --------------
# jv NAME EXPECTED KEY...: as json, for the arguments book received (structuredContent.received)
jv() { local name=$1 want=$2; shift 2; json "$name" "$want" structuredContent received "$@"; }
run --json "$server" call book title=42 minutes=45 budget=2.5 online=true room=blue 'attendees=["Ada","Grace"]' \
    note=null floor=3 'when={"day":"2026-05-01","hour":9}'
jv "string: 42 stays a string" '"42"' title
jv "integer" '45' minutes
jv "number" '2.5' budget
jv "boolean" 'true' online
jv "enum" '"blue"' room
jv "array, as JSON" '["Ada","Grace"]' attendees
jv "a type list [string, null]: null" 'null' note
jv "anyOf [integer, string]: 3 is the integer" '3' floor
jv "\$ref to #/\$defs/slot: an object" '{"day":"2026-05-01","hour":9}' when
run --json "$server" call book title=x note=hello floor=roof minutes=1e2 budget=7
jv "a type list: a word that is no other type is the string" '"hello"' note
jv "anyOf: string last" '"roof"' floor
jv "integer: 1e2 is 100" '100' minutes
jv "number: 7" '7' budget
run "$server" call book title=x minutes=2.5
check "integer: 2.5 is refused (2)" 2 'err:minutes=2\.5 does not fit the tool "book": minutes is an integer$' '!.'
run "$server" call book title=x minutes=many
check "integer: a word is refused" 2 'err:minutes=many does not fit'
run "$server" call book title=x budget=cheap
check "number: a word is refused" 2 'err:budget=cheap does not fit the tool "book": budget is a number'
run "$server" call book title=x online=yes
check "boolean: only true or false" 2 'err:online is a boolean \(true or false\)'
run "$server" call book title=x room=pink
check "enum: a value not listed is refused" 2 'err:room=pink does not fit the tool "book": room is one of: red, blue, green'
run "$server" call book title=x attendees=Ada
check "array: not JSON is refused, with an example" 2 "err:attendees is an array of string, written in JSON: attendees='\\[\"a\", \"b\"\\]'"
run "$server" call book title=x when=3
check "\$ref: the object's type is followed" 2 'err:when is an object \(slot\)'
run --json "$server" call book title=x colour=red 'size=[1,2]'
jv "a key the schema does not list: a string if not JSON" '"red"' colour
jv "... JSON if it parses" '[1,2]' size
if grep -q 'warning: .*no argument colour' "$tmp/err" || grep -q '"warning":.*no argument colour' "$tmp/err"; then pass=$((pass + 1))
else bad "an unknown key is warned about: $(cat "$tmp/err")"; fi
run "$server" call book title=x colour=red
check "the warning names the tool's arguments" 0 'err:^mcpc: warning: the tool "book" has no argument colour \(its arguments: title, minutes, budget,'
run "$server" call book '{"title": 42}'
check "a JSON object is sent as it is: the server refuses the number" 5 'err:book needs a title'
run "$server" call book '{"title": 42}' title=ok minutes=5
check "a JSON object and words: the words replace its members, typed" 0 '"title":"ok"' '"minutes":5'
run "$server" call book title=a title=b
check "a key given twice: the last wins" 0 '^\{"title":"b"\}$'
run -t 2000 "$build/test_server" call echo n=42 s=hi
check "a schema that lists no properties ({\"type\": \"object\"}): JSON if it parses" 0 '^\{"n":42,"s":"hi"\}$'
if [ -s "$tmp/err" ]; then bad "... and no warning: $(cat "$tmp/err")"; else pass=$((pass + 1)); fi

# ---- prompt arguments and completion context are strings -----------------------------------------
run "$server" prompt greet name=42
check "prompt: name=42 is the string \"42\"" 0 '^user: Please write a short, friendly greeting for 42\.$'
run "$server" prompt greet name=true style=null
check "prompt: true and null are strings too" 0 '^user: Please write a short, null greeting for true\.$'
run "$server" complete resource 'demo://city/{country}/{city}' city '' country=Japan
check "complete with context.arguments" 0 '^Tokyo$' '^Kyoto$' '!Paris' '!Lima'
run "$server" complete resource 'demo://city/{country}/{city}' city L country=France
check "complete with context and a value" 0 '^Lyon$' '!Lima'
run "$server" complete resource 'demo://city/{country}/{city}' city L
check "complete without context" 0 '^Lyon$' '^Lima$'
run -t 2000 "$build/test_server" complete prompt greet name A 'country=7'
check "complete: context words must be key=value" 0
run "$server" complete prompt greet name A country
check "complete: a context word without =" 2 'err:"country" is not key=value'

# ---- tools NAME, and the table's descriptions wrapped, not cut ---------------------------------------
run "$server" tools book
check "tools NAME" 0 '^tool: +book \(Book a room\)$' '^description: +Books a meeting room\.' '^arguments:$' \
    '^  title +string, required$' '^ +What the meeting is about$' '^  minutes +integer, default 30, minimum 5$' \
    '^  room +one of: red, blue, green$' '^  attendees +array of string$' '^  note +string or null$' \
    '^  floor +integer or string$' '^  when +object \(slot\)$' '^ +A day and an hour, as JSON$' \
    '^      day +string \(date\), required$' '^      hour +integer, minimum 0, maximum 23$' \
    '^output:$' '^  booking +integer, required$'
run "$server" tools echo
check "tools NAME: no output schema, no description of the argument" 0 '^tool: +echo$' '^  text +string, required$' '!^output'
run "$server" tools picture
check "tools NAME: no arguments" 0 '^arguments: +\(none\)$'
run "$server" tools nope
check "tools NAME: a tool the server does not have (2)" 2 'err:the server has no tool "nope"; its tools: echo, add, slow, picture, book$'
run --json "$server" tools book
json "tools NAME --json: the tool's entry" '"Book a room"' title
run "$server" tools
check "tools: a long description wraps" 0 '^book +title \[minutes\] \[budget\] \[online\] \[room\] +Books a meeting room\.' \
    '^ {9}\[attendees\] \[note\] \[floor\] \[when\] +it answers' '!\.\.\.$'
if awk 'length > 100 { exit 1 }' "$tmp/out"; then pass=$((pass + 1)); else bad "tools: a line is over 100 columns off a terminal"; fi
if tr -s ' \n' '  ' <"$tmp/out" | grep -qF 'as JSON, and refuses a value of the wrong type.'; then pass=$((pass + 1))
else bad "tools: the whole description is not there: $(cat "$tmp/out")"; fi
if script --version 2>/dev/null | grep -q util-linux; then
    script -qec "stty cols 60; $mcpc $server tools" /dev/null >"$tmp/out" 2>&1
    if tr -d '\r' <"$tmp/out" | awk 'length > 60 { exit 1 }' && grep -q 'Books a meeting' "$tmp/out"; then pass=$((pass + 1))
    else bad "tools on a 60-column terminal: $(cat "$tmp/out")"; fi
else
    skipped "tools on a 60-column terminal: no util-linux script(1)"
fi

# ---- --args-file -----------------------------------------------------------------------------------
printf '{"title": "from a file", "minutes": 15}' >"$tmp/args.json"
run "$server" call book --args-file "$tmp/args.json"
check "--args-file FILE" 0 '^\{"title":"from a file","minutes":15\}$'
"$mcpc" "$server" call book --args-file - minutes=20 <"$tmp/args.json" >"$tmp/out" 2>"$tmp/err"; rc=$?
check "--args-file - (stdin), a word replacing a member" 0 '^\{"title":"from a file","minutes":20\}$'
echo '[1, 2]' | "$mcpc" "$server" call echo --args-file - >"$tmp/out" 2>"$tmp/err"; rc=$?
check "--args-file: not an object (2)" 2 'err:the arguments in stdin must be a JSON object'
run "$server" call echo --args-file "$tmp/no-such-file"
check "--args-file: no such file (2)" 2 'err:cannot read the arguments file'
run "$server" tools --args-file "$tmp/args.json"
check "--args-file with a command without ARGS (2)" 2 'err:--args-file goes with'
printf '{"name": "Ada", "style": "pirate"}' >"$tmp/prompt.json"
run "$server" prompt greet --args-file "$tmp/prompt.json"
check "--args-file for a prompt" 0 'pirate greeting for Ada'

# ---- a server command with arguments, quoted as one word ---------------------------------------------
run "env MCPC_QUOTED='two words' $build/test_server" call env name=MCPC_QUOTED
check "a quoted server command is split (quotes kept together)" 0 '^two words$'
run "env MCPC_QUOTED=\"a \\\"b\\\"\" $build/test_server" call env name=MCPC_QUOTED
check "... double quotes and backslashes" 0 '^a "b"$'
run "env MCPC_Q=1 $server" info
check "info shows the split command" 0 "^transport: +stdio: env MCPC_Q=1 $server$"
mkdir -p "$tmp/with space"
cp "$server" "$tmp/with space/demo server"
run "$tmp/with space/demo server" ping
check "a file whose path has spaces runs as it is" 0 '^pong'
run "$server 'open" ping
check "an unterminated quote (2)" 2 'err:has a quote that does not end'
run "$build/test_server" --version=2025-06-18 -- info
check "unquoted server arguments still end with --" 0 '^protocol: +2025-06-18$'

# ---- --json errors: one JSON object on stderr ------------------------------------------------------------
# jerr NAME EXPECTED KEY...: the last run's stderr is one JSON object whose KEY... is EXPECTED
jerr() {
    local name=$1 want=$2 got
    shift 2
    if [ "$(wc -l <"$tmp/err")" -ne 1 ]; then bad "$name: stderr is not one line: $(cat "$tmp/err")"; return; fi
    if ! got=$("$tmp/json_get" "$@" <"$tmp/err" 2>&1); then bad "$name: $got; stderr: $(cat "$tmp/err")"; return; fi
    if [ "$got" != "$want" ]; then bad "$name: $* is $got, expected $want"; return; fi
    pass=$((pass + 1))
}
run --json "$server" call no_such_tool
jerr "--json: an RPC error's status" '"MCP_ERR_RPC"' status
jerr "... its class" '"protocol"' class
jerr "... its exit status" '4' exit
jerr "... rpc_code" '-32602' rpc_code
jerr "... the message, once" '"MCP error -32602: Unknown tool: no_such_tool"' message
run --json "$server" frobnicate
jerr "--json: a usage error" '"MCP_ERR_INVALID"' status
run "$server" frobnicate --json
jerr "--json after the mistake still applies" '"usage"' class
run --json --timeout soon "$server" ping
jerr "--json: a bad option" '2' exit
run --json "$server" call book title=x minutes=x
jerr "--json: a value that does not fit the schema" '"usage"' class
run --json "$tmp/no-such-server" tools
jerr "--json: a server that cannot start" '"connection"' class
run --json http://127.0.0.1:$closed/mcp tools
jerr "--json: connection refused: errno" '111' errno
run --json --timeout 200 "$server" call slow
jerr "--json: a timeout" '"MCP_ERR_TIMEOUT"' status
run --json "$server" call add '{"a": 1, "b": "x"}'
jerr "--json: a tool error: class tool" '"tool"' class
jerr "... exit 5" '5' exit
json "... and the result on stdout" 'true' isError
run "$build/test_server" call error code=-32602 'message=MCP error -32602: already prefixed'
check "a message already prefixed is not prefixed again" 4 'err:^mcpc: MCP error -32602: already prefixed$'

# ---- a timeout ends in time, even against a server that ignores EOF -----------------------------------
t0=$(date +%s%N)
run -t 1000 "$build/test_server --ignore-eof" call never
ms=$(( ($(date +%s%N) - t0) / 1000000 ))
check "-t 1000 against a tool that never answers (6)" 6 'err:Request timeout after 1000ms'
if [ "$ms" -lt 1500 ]; then pass=$((pass + 1)); else bad "-t 1000 took $ms ms (at most 1500)"; fi

# ---- --log-level, -v: log messages and notifications -------------------------------------------------------
run --log-level debug "$server" call echo text=hi
check "--log-level debug shows the server's debug log on stderr" 0 '^hi$' 'err:^\[debug\] demo_server: echo: text of 2 bytes$'
run "$server" call echo text=hi
check "without it, no debug log" 0 '!.*debug'
if grep -q debug "$tmp/err"; then bad "a debug log without --log-level"; else pass=$((pass + 1)); fi
run -v --log-level warning "$server" call slow steps=1 ms=10
check "--log-level warning hides info" 0 '^done'
if grep -q '\[info\]' "$tmp/err"; then bad "--log-level warning still shows info: $(cat "$tmp/err")"; else pass=$((pass + 1)); fi
run --log-level loud "$server" ping
check "--log-level: an unknown level (2)" 2 'err:--log-level is one of debug, info'
run --log-level debug "$build/test_server" --caps=tools -- call echo
check "--log-level: a server without logging: warned, and on" 0 'err:warning: the server does not declare the logging capability'
run --log-level debug "$build/test_server" --era=modern -- call notify
check "--log-level on 2026-07-28 (in each request's _meta)" 0 '^notified$' 'err:^\[debug\] ' 'err:^\[warning\] '
run --log-level error "$build/test_server" --era=modern -- call notify
check "... and its level is honoured" 0 '^notified$' 'err:^\[error\] '
if grep -q '\[warning\]' "$tmp/err"; then bad "--log-level error on 2026-07-28 shows warnings"; else pass=$((pass + 1)); fi
run -v "$build/test_server" call notify
check "-v: notifications and log messages (stdio)" 0 'err:^\[info\] ' 'err:^mcpc: notification notifications/tools/list_changed$'
run -v --json "$build/test_server" call notify
if "$tmp/json_get" method <<<"$(grep list_changed "$tmp/err" | head -1)" >/dev/null 2>&1 && \
   ! grep -qv '^{' "$tmp/err"; then pass=$((pass + 1))
else bad "-v --json: stderr is not JSON lines: $(head -c 600 "$tmp/err")"; fi

# ---- watch --------------------------------------------------------------------------------------------------
run "$server" watch demo://clock --for 2500
check "watch a resource: its updates" 0 '^[0-9:.]+ notifications/resources/updated \{"uri":"demo://clock"\}$'
run --log-level debug "$server" watch demo://clock --for 2500
check "watch with --log-level debug: the log messages too" 0 '^[0-9:.]+ \[debug\] demo_server: clock: '
run --json "$server" watch demo://clock --for 1800
json "watch --json: JSON lines" '"notifications/resources/updated"' method
run "$server" watch demo://nothing --for 500
check "watch a resource that is not there (4)" 4 'err:Resource not found'
run "$build/test_server" --caps=tools -- watch file:///a.txt --for 500
check "watch a URI on a server that cannot subscribe (2)" 2 'err:subscribe'
run "$server" ping --for 100
check "--for without watch (2)" 2 'err:--for goes with watch'
run "$server" watch --for soon
check "--for: a bad duration (2)" 2 'err:--for needs a duration'
run "$build/test_server" --era=modern -- watch file:///a.txt --for 800
check "2026-07-28 watch over stdio: one listen for what the capabilities offer, and the URIs" 0 \
    '^[0-9:.]+ notifications/subscriptions/acknowledged \{"notifications":\{"toolsListChanged":true,"resourcesListChanged":true,"resourceSubscriptions":\["file:///a.txt"\]\}\}$'
: >"$tmp/out"; : >"$tmp/err"                 # not what an earlier run left there
"$mcpc" "$server" watch demo://clock >"$tmp/out" 2>"$tmp/err" &
pid=$!
bg_pids="$bg_pids $pid"
for _ in $(seq 50); do grep -q updated "$tmp/out" && break; sleep 0.1; done
kill -INT "$pid"
wait "$pid"
rc=$?
check "Ctrl-C ends a watch with status 0" 0 'updated'

# ---- Ctrl-C cancels a call: status 130, and the server is told ---------------------------------------
: >"$tmp/out"; : >"$tmp/err"                 # not what an earlier run left there
"$mcpc" -v --progress "$server" call slow steps=200 ms=50 >"$tmp/out" 2>"$tmp/err" &
pid=$!
bg_pids="$bg_pids $pid"
for _ in $(seq 100); do grep -q 'slow: 1/200' "$tmp/err" && break; sleep 0.1; done
kill -INT "$pid"
wait "$pid"
rc=$?
check "Ctrl-C cancels the call (130)" 130 'err:Request cancelled' '!done:'
# the server is told: test_server logs each line it reads (and ignores the SIGTERM of mcpc's
# prompt close, so it reads them all)
: >"$tmp/out"; : >"$tmp/err"                 # not what an earlier run left there
"$mcpc" --progress "$build/test_server" --ignore-term --log="$tmp/srv.log" -- call slow ms=20000 every=50 \
    >"$tmp/out" 2>"$tmp/err" &
pid=$!
bg_pids="$bg_pids $pid"
for _ in $(seq 100); do grep -q 'slow: 1/' "$tmp/err" && break; sleep 0.1; done
kill -INT "$pid"
wait "$pid"
rc=$?
check "Ctrl-C: the server gets notifications/cancelled" 130 'err:Request cancelled'
for _ in $(seq 30); do grep -q 'notifications/cancelled' "$tmp/srv.log" && break; sleep 0.1; done
if grep -q '"notifications/cancelled".*the user pressed Ctrl-C' "$tmp/srv.log"; then pass=$((pass + 1))
else bad "the server was not told of the Ctrl-C: $(tail -c 400 "$tmp/srv.log")"; fi

# ---- on a terminal: the progress line is redrawn in place (needs util-linux script) -----------------
if script --version 2>/dev/null | grep -q util-linux; then
    script -qec "$mcpc $server call slow steps=2 ms=20" /dev/null >"$tmp/out" 2>&1
    rc=$?
    check "progress on a terminal" 0 $'\r\033\\[Kslow \\[##########----------\\] 1/2 step 1 of 2' \
        $'\r\033\\[Kslow \\[####################\\] 2/2 step 2 of 2\r\033\\[Kdone: 2 steps'
else
    skipped "progress on a terminal: no util-linux script(1)"
fi

# ---- minimal and event_loop -------------------------------------------------------------------------
"$build/minimal" >"$tmp/out" 2>"$tmp/err"; rc=$?
check "minimal" 0 '^Hello from mcp\.h!$'
"$build/minimal" "$tmp/no-such-server" >"$tmp/out" 2>"$tmp/err"; rc=$?
check "minimal, no server" 1 'err:^minimal: Could not start the server'
"$build/custom_transport" >"$tmp/out" 2>"$tmp/err"; rc=$?
check "custom_transport: an in-process server behind MCP_CUSTOM" 0 '^connected to inproc over a custom transport$' \
    '^tool: echo$' '^Hello from inside the program!$'
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
        run "$url/sse" info
        check "info: a URL that fell back to HTTP+SSE says so" 0 '^transport: +HTTP\+SSE \(fallback: POST answered 404\) http://'
        run --json "$url/sse" info
        json "info --json: the fallback" '"POST answered 404"' transport fallback
        run "$url/mcp" info
        check "info: Streamable HTTP, no fallback" 0 '^transport: +Streamable HTTP http://' '!fallback'
        run -v "$url/mcp" call notify
        check "-v over Streamable HTTP: notifications on a POST's stream" 0 '^notified$' 'err:^\[info\] http_server: hello$' \
            'err:^mcpc: notification notifications/tools/list_changed$'
        # (the GET stream opens after the handshake, on a connection of its own: the call may
        # come first and find no listener, or its answer come before the broadcast; then try
        # again)
        for _ in 1 2 3 4 5 6 7 8; do
            run -v "$url/mcp" call bcast x=1
            grep -q '^sent$' "$tmp/out" && grep -q '^\[info\] http_server: broadcast$' "$tmp/err" && break
        done
        check "-v over Streamable HTTP: the GET stream" 0 '^sent$' 'err:^\[info\] http_server: broadcast$'
        run -v --sse "$url/sse" call notify
        check "-v over HTTP+SSE" 0 '^notified$' 'err:^\[info\] http_server: hello$'
        run --log-level debug "$url/mcp" call echo
        check "--log-level over HTTP (logging/setLevel)" 0 '^\{\}$'
        # ---- 2026-07-28 over HTTP: watch is a subscriptions/listen; another client fires
        mkfifo "$tmp/hm_in"
        "$build/http_server" 0 --era=modern <"$tmp/hm_in" >"$tmp/hm_out" 2>"$tmp/hm_err" &
        bg_pids="$bg_pids $!"
        exec 7>"$tmp/hm_in"
        mport=""
        for _ in $(seq 100); do
            mport=$(sed -n 's/^PORT \([0-9][0-9]*\)$/\1/p' "$tmp/hm_out")
            [ -n "$mport" ] && break
            sleep 0.05
        done
        if [ -z "$mport" ]; then
            bad "http_server --era=modern did not say its port: $(cat "$tmp/hm_err")"
        else
            "$mcpc" "http://127.0.0.1:$mport/mcp" watch --for 4000 >"$tmp/wout" 2>"$tmp/werr" &
            wpid=$!
            bg_pids="$bg_pids $wpid"
            for _ in $(seq 60); do grep -q acknowledged "$tmp/wout" && break; sleep 0.05; done
            run "http://127.0.0.1:$mport/mcp" call fire what=tools
            check "2026-07-28: fire reaches the open listen" 0 '^sent 1$'
            wait "$wpid"
            rc=$?
            cp "$tmp/wout" "$tmp/out"; cp "$tmp/werr" "$tmp/err"
            check "2026-07-28 watch over HTTP: acknowledged, then the change" 0 \
                '^[0-9:.]+ notifications/subscriptions/acknowledged \{"notifications":\{"toolsListChanged":true\}\}$' \
                '^[0-9:.]+ notifications/tools/list_changed$'
            run --log-level debug "http://127.0.0.1:$mport/mcp" call notify
            check "2026-07-28 over HTTP: --log-level" 0 '^notified$' 'err:^\[info\] http_server: hello$'
        fi
        exec 7>&-
        # ---- https://: through a TLS relay in front of http_server (python3's ssl, a certificate made
        # here with openssl(1)), when this mcpc has TLS; else the sentence saying how to get it
        if ! "$mcpc" --version | grep -q '^https: yes'; then
            run "https://127.0.0.1:$port/mcp" ping
            check "https:// in a build without TLS: how to get one (2)" 2 'err:built without TLS.*libssl-dev.*rebuild it with make'
            skipped "https:// against a TLS server: this mcpc has no TLS (OpenSSL's headers were not there)"
        elif ! command -v python3 >/dev/null || ! command -v openssl >/dev/null; then
            skipped "https://: no python3 or openssl(1) for the TLS relay"
        elif ! openssl req -x509 -newkey rsa:2048 -nodes -keyout "$tmp/key.pem" -out "$tmp/cert.pem" -days 2 \
                -subj /CN=localhost -addext 'subjectAltName=DNS:localhost,IP:127.0.0.1' >/dev/null 2>&1; then
            bad "openssl could not make a certificate"
        else
            cat >"$tmp/relay.py" <<'PYEOF'
import os, socket, ssl, sys, threading
ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
ctx.load_cert_chain(sys.argv[1], sys.argv[2])
upstream = int(sys.argv[3])
ls = socket.socket()
ls.bind(("127.0.0.1", 0))
ls.listen(16)
print("PORT", ls.getsockname()[1], flush=True)
def pipe(a, b):
        try:
            while True:
                data = a.recv(65536)
                if not data:
                    break
                b.sendall(data)
        except OSError:
            pass
        for s in (a, b):
            try:
                s.close()
            except OSError:
                pass
def serve(c):
        try:
            t = ctx.wrap_socket(c, server_side=True)
        except (OSError, ssl.SSLError):
            c.close()
            return
        u = socket.create_connection(("127.0.0.1", upstream))
        threading.Thread(target=pipe, args=(t, u), daemon=True).start()
        pipe(u, t)
def quit_at_eof():
        sys.stdin.read()
        os._exit(0)
threading.Thread(target=quit_at_eof, daemon=True).start()
while True:
        conn, _ = ls.accept()
        threading.Thread(target=serve, args=(conn,), daemon=True).start()
PYEOF
            mkfifo "$tmp/relay_in"
            python3 "$tmp/relay.py" "$tmp/cert.pem" "$tmp/key.pem" "$port" <"$tmp/relay_in" >"$tmp/relay_out" 2>"$tmp/relay_err" &
            bg_pids="$bg_pids $!"
            exec 8>"$tmp/relay_in"                    # the relay exits when this closes
            tport=""
            for _ in $(seq 100); do
                tport=$(sed -n 's/^PORT \([0-9][0-9]*\)$/\1/p' "$tmp/relay_out")
                [ -n "$tport" ] && break
                sleep 0.05
            done
            if [ -z "$tport" ]; then
                bad "the TLS relay did not start: $(cat "$tmp/relay_err")"
            else
                run "https://127.0.0.1:$tport/mcp" ping
                check "https://: a certificate nothing vouches for is refused (3), with a hint" 3 \
                    'err:certificate was rejected' 'err:--cacert FILE trusts'
                run --cacert "$tmp/cert.pem" "https://127.0.0.1:$tport/mcp" call add a=2 b=40
                check "https:// --cacert FILE" 0 '^42$'
                run --cacert "$tmp/cert.pem" "https://localhost:$tport/mcp" info
                check "https:// --cacert, by name" 0 '^transport: +Streamable HTTP https://localhost:'
                run --insecure "https://127.0.0.1:$tport/mcp" ping
                check "https:// --insecure: works, with a warning" 0 '^pong' "err:warning: --insecure: the server's certificate is not checked"
                run --cacert "$tmp/no-such-ca.pem" "https://127.0.0.1:$tport/mcp" ping
                check "https:// --cacert: a file that cannot be read (2)" 2 'err:Could not load the trusted CAs'
            fi
            exec 8>&-
        fi
    fi
    exec 9>&-
    wait "$hs" 2>/dev/null
else
    skipped "http_client: no $build/http_server to talk to; run it by hand:"
    echo "     $build/http_client http://HOST:PORT/mcp   or   $build/http_client --sse http://HOST:PORT/sse"
fi

summary
[ "$fail" -eq 0 ]
