#!/usr/bin/env bash
# mcpc's config mode (examples/mcpc.c on the >>host layer), as a user runs it, with config
# files written to a temporary folder that start $BUILD/demo_server and $BUILD/test_server:
#   - the formats: "mcpServers" (with comments and trailing commas) and VS Code's "servers"
#     (with ${workspaceFolder}, ${env:VAR} and "cwd"); several --config, a later server
#     replacing an earlier one of the same name;
#   - servers (text and --json), tools (qualified names, descriptions; one tool in full), a
#     qualified call (typed arguments, a tool error, an unknown tool, --json), prompts,
#     resources, prompt and read across servers;
#   - failures: a missing command, a bad entry, a file that is not JSON, a file that is not
#     there: each said with its sentence, the other servers listed all the same, the exit
#     status the first failure's;
#   - --server NAME: every single-server command on that one (unqualified names, info says
#     where it came from, -e added to its environment), and without --config the usual files
#     of the user ($HOME, $XDG_CONFIG_HOME) and of the project (the current folder) in order;
#   - an HTTP server in a config file ($BUILD/http_server), and the sign-in of one
#     ($BUILD/auth_server, the browser being curl; skipped without curl).
#   usage: bash tests/test_mcpc_host.sh [DATA_DIR]   (BUILD: the build folder, default build)
# Prints "N passed, N failed" last (", N skipped" when some checks cannot run here); exits
# non-zero on any failure.
set -uo pipefail

build=$(cd "${BUILD:-build}" 2>/dev/null && pwd) || build=${BUILD:-build}
mcpc=$build/mcpc demo=$build/demo_server ts=$build/test_server
tmp=$(mktemp -d "${TMPDIR:-/tmp}/mcpc_host.XXXXXX")
bg_pids=""
cleanup() {
    local p
    exec 8>&- 9>&- 2>/dev/null
    for p in $bg_pids; do kill "$p" 2>/dev/null; wait "$p" 2>/dev/null; done
    rm -rf "$tmp"
}
trap cleanup EXIT

root="$(cd "$(dirname "$0")/.." && pwd)"
. "$root/tests/lib.sh"      # pass, fail, skip: bad, skipped, summary, check, json_checker, json

for f in "$mcpc" "$demo" "$ts"; do
    if [ ! -x "$f" ]; then bad "$f is missing (make builds it)"; summary; exit 1; fi
done

# run ARGS...: mcpc ARGS (at most 60 s), stdout in $tmp/out, stderr in $tmp/err, status in $rc
run() { timeout 60 "$mcpc" "$@" >"$tmp/out" 2>"$tmp/err"; rc=$?; }
if ! json_checker "$root"; then
    bad "could not build the JSON checker"; summary; exit 1
fi

# ---- the files ----------------------------------------------------------------------------------
cd "$tmp" || exit 1
mkdir -p proj/.vscode home/.config/mcpc home/.cursor cwdtest
cat >main.json <<EOF
// servers for mcpc's config mode: comments and trailing commas are fine
{
  "mcpServers": {
    /* the demo server */
    "demo": { "command": "$demo", "args": [], },
    "test": {
      "command": "$ts",
      "env": { "MCPC_HOST_VAR": "from-\${env:MCPC_HOST_SRC}", },
    },
    "gone": { "command": "$tmp/no-such-server" },
  },
}
EOF
cat >good.json <<EOF
{"mcpServers": {"demo": {"command": "$demo"}, "test": {"command": "$ts"}}}
EOF
cat >override.json <<EOF
{"mcpServers": {"demo": {"command": "$ts"}}}
EOF
cat >badentry.json <<EOF
{
  "mcpServers": {
    "demo": {"command": "$demo"},
    "broken": {"args": "not a list"}
  }
}
EOF
printf '{"mcpServers": {"demo": {"command": "x"}\n' >notjson.json
cat >proj/.vscode/mcp.json <<EOF
{
  // VS Code's format: "servers", with "type", "inputs" and its variables
  "inputs": [],
  "servers": {
    "code": {
      "type": "stdio",
      "command": "$ts",
      "cwd": "\${workspaceFolder}",
      "env": { "MCPC_HOST_DIR": "\${workspaceFolder}/sub" }
    }
  }
}
EOF
export MCPC_HOST_SRC=env

# ---- --help ---------------------------------------------------------------------------------------
run --help
check "--help documents config mode" 0 '--config FILE' '--server NAME' '^  servers ' 'SERVER__TOOL' \
    'mcpServers' '"servers"' '\.mcp\.json' '\.vscode/mcp\.json' '~/\.cursor/mcp\.json' 'mcpc/mcp\.json'

# ---- servers ------------------------------------------------------------------------------------
run --config main.json servers
check "servers: one line each, the missing command failed with its sentence (status 3)" 3 \
    '^demo +stdio +ready +5 tools, 1 prompt, 2 resources$' '^test +stdio +ready +[0-9]+ tools' \
    '^gone +stdio +failed +Server "gone": Could not start' 'no-such-server' '!^\(no servers\)'
run --config main.json
check "servers is the default command" 3 '^demo +stdio +ready' '^gone +stdio +failed'
run --config good.json servers
check "servers: every one ready, status 0" 0 '^demo +stdio +ready' '^test +stdio +ready' '!failed'
run --json --config main.json servers
json "servers --json: the first one's name" '"demo"' servers 0 name
json "servers --json: its state" '"ready"' servers 0 state
json "servers --json: its tool count" 5 servers 0 tools
json "servers --json: the failed one's state" '"failed"' servers 2 state
json "servers --json: its error's exit status" 3 servers 2 error exit
check "servers --json: its error's sentence" 3 '"message": ?"Server \\"gone\\": .*no-such-server'
run --config badentry.json servers
check "servers: a bad entry is off with its sentence (file:line), the other listed (status 2)" 2 \
    '^demo +stdio +ready' '^broken +[a-z+-]+ +off +badentry\.json:4:[0-9]+: .*broken'
run --config notjson.json servers
check "a --config file that is not JSON: its file:line:col, status 2" 2 'err:notjson\.json:[0-9]+:[0-9]+' '!.'
run --config no-such.json servers
check "a --config file that is not there: status 2" 2 'err:cannot read the config file no-such\.json: No such file'
run servers --config good.json
check "--config after the command" 0 '^demo +stdio +ready'

# ---- what the reader ignored, servers turned off ---------------------------------------------------
cat >warn.json <<EOF
{"mcpServers": {
  "demo": {"command": "$demo", "envFile": ".env", "env": {"X": "\${MCPC_HOST_UNSET_VAR}"}},
  "off": {"command": "$demo", "disabled": true}
}}
EOF
unset MCPC_HOST_UNSET_VAR
run --config warn.json call demo__add a=1 b=2
check "a field the reader ignores and a variable not set: warnings" 0 '^3$' \
    'err:^mcpc: warning: warn\.json:2:[0-9]+: server "demo": field "envFile"' 'err:MCPC_HOST_UNSET_VAR'
run --config warn.json servers
check "servers: one its file turns off is listed as off, and does not fail the command" 0 '^demo +stdio +ready' \
    '^off +stdio +off +turned off in warn\.json$'
run --config warn.json call off__add a=1 b=2
check "call: a tool of a server turned off says so (status 2)" 2 'err:the server "off" is turned off in warn\.json'
run --config warn.json --server off call add a=1 b=2
check "--server runs one turned off all the same (warned), without the other's warnings" 0 '^3$' \
    'err:"off" is turned off in warn\.json' '!err:envFile'

# ---- tools -------------------------------------------------------------------------------------
run --config good.json tools
check "tools: every server's, qualified, with descriptions (status 0)" 0 \
    '^demo__echo +text +Returns the text you send\.$' '^demo__add +a b +Adds two numbers\.$' '^test__echo ' '^test__rev ' \
    '!^echo'
run --config main.json tools
check "tools: the failed server said on stderr, the others listed (status 3)" 3 \
    '^demo__echo ' '^test__echo ' 'err:^mcpc: .*gone.*no-such-server'
run --config good.json tools demo__book
check "tools SERVER__TOOL: that tool in full" 0 '^tool: +demo__book' '^  minutes +integer'
run --config good.json tools demo__nothing
check "tools: an unknown qualified name (status 2)" 2 'err:no server has a tool "demo__nothing"'
run --json --config good.json tools
json "tools --json: qualified names, sorted" '"demo__add"' tools 0 name

# ---- call -------------------------------------------------------------------------------------
run --config main.json call demo__add a=2 b=40
check "call SERVER__TOOL: routed, and the failing server is not started" 0 '^42$' '!err:gone'
run --config good.json call demo__book title=Standup minutes=15 online=true
check "call: arguments typed by the tool's schema" 0 '"minutes": ?15' '"online": ?true' '"title": ?"Standup"'
run --config good.json call demo__book title=Standup minutes=soon
check "call: a value that does not fit the schema (status 2)" 2 'err:minutes=soon does not fit the tool "demo__book"'
run --config good.json call test__fail
check "call: a tool error (status 5)" 5 'err:the tool "test__fail" reported an error' 'err:the tool failed'
run --config good.json call test__env name=MCPC_HOST_VAR
check "call: the server's env from its entry" 0 '^\(unset\)$'
run --config main.json call test__env name=MCPC_HOST_VAR
check "call: \${env:VAR} in the entry's env" 0 '^from-env$'
run --json --config good.json call demo__echo text=hi
json "call --json: the result" '"hi"' content 0 text
run --config good.json call demo__nothing
check "call: an unknown tool (status 2)" 2 'err:no server has a tool "demo__nothing"'
run --config main.json call gone__anything
check "call: a tool of the server that failed: its sentence (status 3)" 3 'err:gone.*no-such-server'
run --config good.json call echo text=hi
check "call: an unqualified name says how names are made (status 2)" 2 'err:SERVER__NAME'

# ---- prompts, resources ---------------------------------------------------------------------------
run --config good.json prompts
check "prompts: qualified" 0 '^demo__greet +name \[style\]'
run --config good.json prompt demo__greet name=Ada
check "prompt SERVER__PROMPT" 0 'Ada'
run --config good.json resources
check "resources: every server's" 0 '^demo://readme '
run --config good.json read demo://readme
check "read URI: routed to its server" 0 '^# demo_server$'

# ---- -v, Ctrl-C ---------------------------------------------------------------------------------
run -v --config good.json call demo__add a=1 b=2
check "-v: each server's state as it changes" 0 '^3$' 'err:^mcpc: demo: connecting$' 'err:^mcpc: demo: ready$'
cat >slow.json <<EOF
{"mcpServers": {"test": {"command": "$ts", "args": ["--log=$tmp/slow.log"]}}}
EOF
timeout 60 "$mcpc" --config slow.json call test__slow ms=20000 >"$tmp/out" 2>"$tmp/err" &
cpid=$!
for _ in $(seq 200); do grep -q '"tools/call"' "$tmp/slow.log" 2>/dev/null && break; sleep 0.05; done
kill -INT "$cpid"
wait "$cpid"; rc=$?
check "Ctrl-C during a routed call: status 130, the call cancelled" 130 'err:Server "test": Request cancelled'

# ---- several files: a later server replaces an earlier one ----------------------------------------
run --config good.json --config override.json tools
check "a later file's server replaces the earlier one of the same name" 0 '^demo__rev ' '!^demo__book'
run --config override.json --config good.json tools
check "... in the order given" 0 '^demo__book '

# ---- --server NAME: one server, as SERVER ---------------------------------------------------------
run --config good.json --server demo tools
check "--server: its tools under their own names" 0 '^echo +text +Returns the text you send\.$' '!demo__'
run --config good.json --server demo call add a=2 b=40
check "--server: call TOOL" 0 '^42$'
run --config good.json --server demo
check "--server: info is the default, and says where the server came from" 0 '^server: +demo_server' \
    '^transport: +stdio: .*demo_server' '^config: +demo, good\.json:1$'
run --config good.json --server demo prompts
check "--server: prompts" 0 '^greet +name \[style\]'
run --config good.json --server demo read demo://readme
check "--server: read" 0 '^# demo_server$'
run --config good.json --server demo ping
check "--server: ping" 0 '^pong'
run --config good.json --server demo complete prompt greet name A
check "--server: complete" 0 '^Ada$'
run --config main.json --server test -e MCPC_HOST_VAR=cli call env name=MCPC_HOST_VAR
check "--server: -e replaces the entry's variable of the same name" 0 '^cli$'
run --config main.json --server test call env name=MCPC_HOST_VAR
check "--server: the entry's env" 0 '^from-env$'
run --config good.json --server demo servers
check "--server with servers: that one alone" 0 '^demo +stdio +ready' '!^test'
run --config good.json --server nope tools
check "--server: a name no file has (status 2), the names it has" 2 'err:no server "nope".*demo, test'
run --config main.json --server gone tools
check "--server: a server that cannot start (status 3)" 3 'err:no-such-server'
run --config badentry.json --server broken tools
check "--server: a bad entry's sentence (status 2)" 2 'err:badentry\.json:4:'
run --config good.json --config override.json --server demo tools
check "--server: the later file's entry" 0 '^rev '

# ---- VS Code's format, its variables and cwd --------------------------------------------------------
run --config proj/.vscode/mcp.json servers
check "VS Code's servers format" 0 '^code +stdio +ready'
run --config proj/.vscode/mcp.json call code__cwd
check "cwd \${workspaceFolder}: the folder holding .vscode/" 0 "^$tmp/proj\$"
run --config proj/.vscode/mcp.json --server code call env name=MCPC_HOST_DIR
check "\${workspaceFolder} in env" 0 "^$tmp/proj/sub\$"

# ---- usage errors -------------------------------------------------------------------------------
run --config good.json info
check "info without --server says to add it (status 2)" 2 'err:info works on one server: add --server NAME'
run --config good.json -H 'X-A: b' tools
check "-H without --server (status 2)" 2 'err:-H goes with one server'
run --config good.json --sse http://127.0.0.1:1/sse tools
check "--sse with --config (status 2)" 2 'err:--sse goes with a URL'
run --config good.json frobnicate
check "an unknown command (status 2)" 2 'err:unknown command "frobnicate"'
run "$demo" -- tools --config good.json
check "--config with a server (status 2)" 2 'err:take the place of SERVER'

# ---- --server alone: the usual files, user then project -------------------------------------------
cat >home/.config/mcpc/mcp.json <<EOF
{"mcpServers": {"pick": {"command": "$ts"}, "useronly": {"command": "$demo"}}}
EOF
printf '{"mcpServers": ' >home/.cursor/mcp.json       # broken: warned about, skipped
cat >cwdtest/.mcp.json <<EOF
{"mcpServers": {"pick": {"command": "$demo"}}}
EOF
cd cwdtest || exit 1
HOME=$tmp/home XDG_CONFIG_HOME='' run --server pick tools
check "--server alone: the project's .mcp.json replaces the user's server; a broken file is warned about" 0 \
    '^book ' 'err:warning: .*\.cursor/mcp\.json'
HOME=$tmp/home XDG_CONFIG_HOME='' run --server useronly call add a=1 b=2
check "--server alone: ~/.config/mcpc/mcp.json" 0 '^3$'
mkdir -p xdg/mcpc
cat >xdg/mcpc/mcp.json <<EOF
{"mcpServers": {"xdgonly": {"command": "$demo"}}}
EOF
HOME=$tmp/home XDG_CONFIG_HOME=$tmp/cwdtest/xdg run --server xdgonly call add a=1 b=2
check "--server alone: \$XDG_CONFIG_HOME/mcpc/mcp.json" 0 '^3$'
HOME=$tmp/home XDG_CONFIG_HOME=$tmp/cwdtest/xdg run --server useronly tools
check "--server alone: with \$XDG_CONFIG_HOME, ~/.config/mcpc is not read (status 2)" 2 'err:no server "useronly"'
cd "$tmp/proj" || exit 1
HOME=$tmp/nohome XDG_CONFIG_HOME='' run --server code call cwd
check "--server alone: ./.vscode/mcp.json" 0 "^$tmp/proj\$"
cd "$tmp" || exit 1
HOME=$tmp/nohome XDG_CONFIG_HOME='' run --server pick tools
check "--server alone, no file there: says which it looked for (status 2)" 2 'err:no config file names the server "pick"' \
    'err:\.mcp\.json'

# serve PROGRAM NAME FD VAR: PROGRAM 0 (a test server that prints "PORT n") in the background, its
# stdin the fifo $tmp/NAME_in held open on fd FD (closed by cleanup, which stops it), its stdout
# and stderr in $tmp/NAME_out and $tmp/NAME_err; VAR is set to its port (empty if none in 5 s)
serve() {
    local prog=$1 name=$2 fd=$3 var=$4 p="" _
    mkfifo "$tmp/${name}_in"
    "$prog" 0 <"$tmp/${name}_in" >"$tmp/${name}_out" 2>"$tmp/${name}_err" &
    bg_pids="$bg_pids $!"
    eval "exec $fd>\"\$tmp/${name}_in\""
    for _ in $(seq 100); do
        p=$(sed -n 's/^PORT \([0-9][0-9]*\)$/\1/p' "$tmp/${name}_out")
        [ -n "$p" ] && break
        sleep 0.05
    done
    printf -v "$var" '%s' "$p"
}

# ---- HTTP: build/http_server in a config file -----------------------------------------------------
closed=1
while (exec 3<>"/dev/tcp/127.0.0.1/$closed") 2>/dev/null; do closed=$((closed + 1)); done
if [ -x "$build/http_server" ]; then
    serve "$build/http_server" hs 9 port
    cat >http.json <<EOF
{"mcpServers": {"web": {"url": "http://127.0.0.1:$port/mcp"}, "demo": {"command": "$demo"},
                "down": {"url": "http://127.0.0.1:$closed/mcp"}}}
EOF
    run --no-auth --config http.json servers
    check "servers: an HTTP server ready, one that is not there said (status 3)" 3 '^web +streamable-http +ready +[0-9]+ tools' \
        '^demo +stdio +ready' '^down +streamable-http +(failed|retrying) +.+'
    run --config http.json call web__add a=2 b=40
    check "call over HTTP" 0 '^42$'
    run --config http.json --server web tools
    check "--server: an HTTP server" 0 '^add '
else
    skipped "HTTP in a config file: $build/http_server is not built"
fi

# ---- sign-in: build/auth_server in a config file (the browser is curl) ---------------------------
if [ -x "$build/auth_server" ] && command -v curl >/dev/null 2>&1; then
    serve "$build/auth_server" as 8 aport
    cat >auth.json <<EOF
{"mcpServers": {"locked": {"url": "http://127.0.0.1:$aport/mcp"}, "demo": {"command": "$demo"}}}
EOF
    cat >"$tmp/browser.sh" <<EOF
echo run >>"$tmp/browser.log"
exec curl -s -L -o /dev/null --max-time 30 "\$1"
EOF
    : >"$tmp/browser.log"
    export XDG_CONFIG_HOME=$tmp/authcfg
    MCPC_BROWSER="bash $tmp/browser.sh" run --config auth.json call locked__echo a=1
    check "call: an HTTP server of the file signs in (one browser)" 0 '\{"a": ?1\}' 'err:the server "locked" wants you to sign in'
    [ "$(wc -l <"$tmp/browser.log" | tr -d ' ')" = 1 ] && pass=$((pass + 1)) || bad "one browser run, saw $(wc -l <"$tmp/browser.log")"
    MCPC_BROWSER=false run --config auth.json tools
    check "tools: the token kept from the sign-in (no browser)" 0 '^locked__echo ' '^demo__echo '
    MCPC_BROWSER=false run --config auth.json --server locked call echo b=2
    check "--server: the same token" 0 '\{"b": ?2\}'
    run --no-auth --config auth.json servers
    check "--no-auth: the server that wants a sign-in fails (status 3)" 3 '^locked +streamable-http +(failed|retrying) +.*401' '^demo +stdio +ready'
    unset XDG_CONFIG_HOME
else
    skipped "sign-in from a config file: needs $build/auth_server and curl"
fi

summary
[ "$fail" -eq 0 ]
