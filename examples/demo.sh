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
        if [[ $a =~ [^A-Za-z0-9_./:=@%+,-] ]]; then a="'$a'"; fi
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
say "Call a tool; arguments are key=value words (or one JSON object):"
run "$server" call echo text="Hello, MCP"
run "$server" call add a=2 b=40
say "The raw result, as JSON (compact when stdout is not a terminal):"
run --json "$server" call add a=2 b=40
say "A slow tool reports progress on stderr (on a terminal, one line redrawn in place):"
run --progress "$server" call slow
say "Images are summarised, resource links shown:"
run "$server" call picture
say "A tool error is marked and has its own exit status (5):"
run "$server" call add a=2 b=oops
say "Resources, templates and prompts:"
run "$server" resources
run "$server" read demo://readme
run "$server" templates
run "$server" read demo://greeting/Ada
run "$server" prompts
run "$server" prompt greet name=Ada style=pirate
run "$server" complete prompt greet name A
say "That's the tour. Next: $mcpc --help, and the examples: examples/minimal.c (30 lines),"
echo "# examples/event_loop.c (your own poll loop at 60 Hz), examples/http_client.c (HTTP)."
