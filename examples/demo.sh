#!/usr/bin/env bash
# The two-minute tour that `make demo` runs: mcpc, the command-line MCP client
# (examples/mcpc.c), talks to the demo server (examples/demo_server.c) over stdio.
#
#   bash examples/demo.sh [BUILD-DIR]      (default: build; both programs are built there)
set -uo pipefail

build=${1:-build}
mcpc=$build/mcpc
server=$build/demo_server
for p in "$mcpc" "$server"; do
    if [ ! -x "$p" ]; then echo "demo: $p is missing; run make first" >&2; exit 1; fi
done

bold='' plain=''
if [ -t 1 ]; then bold=$'\033[1m' plain=$'\033[0m'; fi

# say TEXT: what the next step shows; run ARGS...: print the command line, then run it
# (stderr joins stdout, so progress and errors show where they happen)
say() { printf '\n%s\n' "# $*"; }
run() {
    local a line=""
    for a in "$@"; do
        if [[ -z $a || $a =~ [^A-Za-z0-9_./:=@%+,-] ]]; then a="'$a'"; fi
        line+=" $a"
    done
    printf '%s$ mcpc%s%s\n' "$bold" "$line" "$plain"
    "$mcpc" "$@" 2>&1
    local rc=$?
    if [ $rc -ne 0 ]; then echo "(exit status $rc)"; fi
}

echo "mcpc, a command-line MCP client built on mcp.h, and the demo MCP server."
echo "mcpc starts the server as a child process and talks MCP to it over stdin/stdout."

say "Who is the server, and what can it do?"
run "$server" info
say "Its tools, with their arguments ([optional] ones in brackets):"
run "$server" tools
say "One tool in full: each argument's type, values, default and description:"
run "$server" tools book
say "Call a tool; arguments are key=value words (or one JSON object):"
run "$server" call echo text="Hello, MCP"
run "$server" call add a=2 b=40
say "Each value takes the type the tool's schema gives it (book answers with what it got):"
run "$server" call book title=42 minutes=15 online=true room=blue attendees='["Ada","Grace"]' note=null
say "A value that does not fit is refused before anything is sent (exit status 2):"
run "$server" call book title=Standup minutes=soon
say "The raw result, as JSON (compact when stdout is not a terminal):"
run --json "$server" call add a=2 b=40
say "A slow tool reports progress on stderr (on a terminal, one line redrawn in place):"
run --progress "$server" call slow
say "Images are summarised, resource links shown:"
run "$server" call picture
say "A tool error is marked and has its own exit status (5); a JSON object is sent as it is:"
run "$server" call add '{"a": 2, "b": "oops"}'
say "With --json, an error is one JSON object on stderr, for scripts:"
run --json "$server" call no_such_tool
say "Resources, templates and prompts:"
run "$server" resources
run "$server" read demo://readme
run "$server" templates
run "$server" read demo://greeting/Ada
run "$server" prompts
run "$server" prompt greet name=Ada style=pirate
run "$server" complete prompt greet name A
say "Completions may depend on the other arguments (context):"
run "$server" complete resource 'demo://city/{country}/{city}' city '' country=Japan
say "Stay connected and print what the server sends on its own (here for 2.5 s; Ctrl-C stops):"
run --log-level debug "$server" watch demo://clock --for 2500
say "That's the tour. Next: $mcpc --help, and the examples: examples/minimal.c (30 lines),"
echo "# examples/event_loop.c (your own poll loop at 60 Hz), examples/http_client.c (HTTP)."
