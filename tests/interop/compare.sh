#!/usr/bin/env bash
# compare.sh - mcpc (examples/mcpc.c) and the MCP Inspector CLI (@modelcontextprotocol/inspector,
# pinned in tests/interop/package.json, run as `node .../clients/launcher/build/index.js --cli`,
# no npx) side by side against the pinned reference servers: server-everything over stdio,
# Streamable HTTP and HTTP+SSE, server-filesystem and server-memory over stdio.
#
#   bash tests/interop/compare.sh        from anywhere (make compare runs it)
#
# 1. Startup: the median wall time of COMPARE_RUNS (default 7) runs of one tools/list per
#    client and server/transport, each a whole process (starting the stdio server too), after
#    one run not counted; the client's peak RSS over Streamable HTTP (GNU time, when installed);
#    what each takes on disk.
# 2. Feature by feature: each row is decided by running both clients against the servers and
#    looking at what they print and how they exit ("yes", "no", or what happened instead);
#    the few rows that cannot be run here (OAuth, load testing, output files) say they come
#    from --help.
# Prints the machine (CPU, cores, OS, Node), the command, and one Markdown table to paste
# into the README. Exits 0 when the comparison ran (whatever it found), 1 when it could not.
# Environment: BUILD (default build; mcpc is $BUILD/mcpc, built if missing), MCPC (another
# mcpc), COMPARE_RUNS, COMPARE_LOG (a file that gets every command run and its output).
#
# The HTTP servers (and the TLS relay for https://, when openssl is installed) run in their own
# process groups on free ports and are stopped on exit; every run is bounded by timeout(1).
set -uo pipefail

here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/../.." && pwd)"
cd "$root"
build=${BUILD:-build}
mcpc=${MCPC:-$build/mcpc}
runs=${COMPARE_RUNS:-7}
log=${COMPARE_LOG:-/dev/null}
nm=$here/node_modules/@modelcontextprotocol
ev_js=$nm/server-everything/dist/index.js
fs_js=$nm/server-filesystem/dist/index.js
mem_js=$nm/server-memory/dist/index.js
insp_js=$nm/inspector/clients/launcher/build/index.js
tmp=$(mktemp -d "${TMPDIR:-/tmp}/mcpc_compare.XXXXXX")
groups=()

die() { echo "compare: $*" >&2; exit 1; }
stop_group() {
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

# ---- what is needed: node, the pinned packages (as run.sh installs them), mcpc ----------------

command -v node >/dev/null 2>&1 || die "node is not installed (the servers and the Inspector run on it)"
command -v timeout >/dev/null 2>&1 || die "timeout(1) is needed"
stamp="$here/node_modules/.mcp-interop-lock"
if [ "$(cksum <"$here/package-lock.json")" != "$(cat "$stamp" 2>/dev/null)" ] || [ ! -f "$insp_js" ] || [ ! -f "$ev_js" ]; then
    command -v npm >/dev/null 2>&1 || die "npm is needed to install tests/interop/node_modules"
    echo "compare: npm ci (node_modules missing or stale)" >&2
    (cd "$here" && npm ci --ignore-scripts --no-audit --no-fund --loglevel=error) >&2 || die "npm ci failed"
    cksum <"$here/package-lock.json" >"$stamp"
fi
if [ ! -x "$mcpc" ]; then make --no-print-directory B="$build" "$build/mcpc" >&2 || die "could not build $mcpc"; fi
inspector=(node "$insp_js" --cli)
insp_version=$(node -e 'console.log(require(process.argv[1]).version)' "$nm/inspector/package.json")

# ---- servers ------------------------------------------------------------------------------------

free_port() {
    node -e 'const s = require("net").createServer().listen(0, "127.0.0.1", () => { console.log(s.address().port); s.close(); })'
}
start() {    # start NAME PORT CMD...: own process group, PORT set; waits (20 s at most) for the port
    local name=$1 port=$2 i pid
    shift 2
    (export PORT=$port; exec setsid "$@" >"$tmp/$name.log" 2>&1 </dev/null) &
    pid=$!
    groups+=("$pid")
    for i in $(seq 200); do
        (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null && return 0
        kill -0 "$pid" 2>/dev/null || break
        sleep 0.1
    done
    die "$name did not start: $(head -c 300 "$tmp/$name.log")"
}
http_port=$(free_port); start everything-http "$http_port" node "$ev_js" streamableHttp
sse_port=$(free_port);  start everything-sse "$sse_port" node "$ev_js" sse
http_url=http://127.0.0.1:$http_port/mcp
sse_url=http://127.0.0.1:$sse_port/sse
mkdir -p "$tmp/fs"
printf 'alpha\n' >"$tmp/fs/a.txt"
closed_port=$(free_port)          # nothing listens there

# ---- running a client -----------------------------------------------------------------------------

# x CMD...: runs CMD (at most 60 s; stdin /dev/null), sets rc and ms; output in $tmp/out, $tmp/err
x() {
    local t0
    t0=$(date +%s%N)
    timeout -k 3 60 "$@" >"$tmp/out" 2>"$tmp/err" </dev/null
    rc=$?
    ms=$((($(date +%s%N) - t0) / 1000000))
    { echo "\$ $*"; echo "  exit $rc, $ms ms"; head -c 600 "$tmp/out" | sed 's/^/  out: /'; echo
      head -c 600 "$tmp/err" | sed 's/^/  err: /'; echo; } >>"$log"
}
# xt CMD...: as x, and first_ms: when the first line of stdout came (the answer, for tools/list)
xt() {
    local t0
    rm -f "$tmp/t1"
    t0=$(date +%s%N)
    timeout -k 3 60 "$@" 2>"$tmp/err" </dev/null |
        { IFS= read -r l && { date +%s%N >"$tmp/t1"; printf '%s\n' "$l"; cat; }; } >"$tmp/out"
    rc=${PIPESTATUS[0]}
    ms=$((($(date +%s%N) - t0) / 1000000))
    first_ms=$ms
    [ -f "$tmp/t1" ] && first_ms=$((($(cat "$tmp/t1") - t0) / 1000000))
    echo "\$ $*  (exit $rc, $ms ms, first line at $first_ms ms)" >>"$log"
}
M() { x "$mcpc" "$@"; }
I() { x "${inspector[@]}" "$@"; }
out() { grep -qE -- "$1" "$tmp/out"; }
err() { grep -qE -- "$1" "$tmp/err"; }
any() { cat "$tmp/out" "$tmp/err" | grep -qE -- "$1"; }
# the first line of stderr that says what went wrong, shortened, for a table cell
first_err() {
    { grep -m1 'MCP error' "$tmp/err" || grep -m1 -E 'error|cannot|refused|failed' "$tmp/err" || head -n 1 "$tmp/err"; } |
        sed 's/^mcpc: //' | cut -c1-80 | sed 's/|/\\|/g'
}

rows=()
row() { rows+=("| $1 | $2 | $3 | $4 |"); }

# ---- 1. startup ---------------------------------------------------------------------------------

median() { sort -n | awk '{ v[NR] = $1 } END { if (NR == 0) print "-"; else if (NR % 2) print v[(NR + 1) / 2]; else print int((v[NR / 2] + v[NR / 2 + 1]) / 2) }'; }
# startup LABEL WANT NOTE MCPC-ARGS... @@ INSPECTOR-ARGS...: median ms of each client's
# tools/list (WANT: what stdout must hold)
startup() {
    local label=$1 want=$2 note=$3 margs=() iargs=() i side=m mt=() it=() mfirst=() ifirst=() mfail=0 ifail=0 a ml il
    shift 3
    for a in "$@"; do
        if [ "$a" = @@ ]; then side=i; continue; fi
        if [ $side = m ]; then margs+=("$a"); else iargs+=("$a"); fi
    done
    for i in $(seq 0 "$runs"); do
        xt "$mcpc" "${margs[@]}"
        if [ $rc -ne 0 ] || ! out "$want"; then mfail=$((mfail + 1)); elif [ "$i" -gt 0 ]; then mt+=("$ms"); mfirst+=("$first_ms"); fi
        xt "${inspector[@]}" "${iargs[@]}"
        if [ $rc -ne 0 ] || ! out "$want"; then ifail=$((ifail + 1)); elif [ "$i" -gt 0 ]; then it+=("$ms"); ifirst+=("$first_ms"); fi
    done
    local mm im mfm ifm
    mm=$(printf '%s\n' "${mt[@]}" | grep . | median)
    im=$(printf '%s\n' "${it[@]}" | grep . | median)
    mfm=$(printf '%s\n' "${mfirst[@]}" | grep . | median)
    ifm=$(printf '%s\n' "${ifirst[@]}" | grep . | median)
    ml="$mm ms (answer at $mfm)"; [ $mfail -eq 0 ] || ml="$ml; $mfail of $((runs + 1)) failed"
    il="$im ms (answer at $ifm)"; [ $ifail -eq 0 ] || il="$il; $ifail of $((runs + 1)) failed"
    row "tools/list, $label: median of $runs" "$ml" "$il" "$note"
    [ $mfail -eq 0 ] && list_m+=("$label") || list_mfail+=("$label")
    [ $ifail -eq 0 ] && list_i+=("$label") || list_ifail+=("$label")
}
list_m=() list_i=() list_mfail=() list_ifail=()
echo "compare: startup, $runs runs (and one not counted) per client and server..." >&2
spawn="start to exit (and to the first line of the answer), starting and stopping the server"
up="start to exit (and to the first line of the answer); the server already up"
startup "server-everything, stdio" 'echo' "$spawn" node "$ev_js" stdio -- tools @@ node "$ev_js" stdio --method tools/list
startup "server-everything, Streamable HTTP" 'echo' "$up" "$http_url" tools @@ "$http_url" --method tools/list
startup "server-everything, HTTP+SSE" 'echo' "$up" --sse "$sse_url" tools @@ "$sse_url" --method tools/list
startup "server-filesystem, stdio" 'read_text_file' "$spawn" node "$fs_js" "$tmp/fs" -- tools @@ \
    node "$fs_js" "$tmp/fs" --method tools/list
startup "server-memory, stdio" 'create_entities' "$spawn" -e "MEMORY_FILE_PATH=$tmp/m1.jsonl" node "$mem_js" -- tools @@ \
    -e "MEMORY_FILE_PATH=$tmp/m2.jsonl" node "$mem_js" --method tools/list

# peak RSS of the client alone (over HTTP, so no server child is counted)
if [ -x /usr/bin/time ]; then
    rss() {
        /usr/bin/time -f %M -o "$tmp/rss" "$@" >/dev/null 2>&1 </dev/null
        awk '{ k = $1 } END { printf "%.1f MiB\n", k / 1024 }' "$tmp/rss"
    }
    row "peak RSS of the client, tools/list over Streamable HTTP" "$(rss "$mcpc" "$http_url" tools)" \
        "$(rss "${inspector[@]}" "$http_url" --method tools/list)" "GNU time's maximum resident set size"
else
    row "peak RSS of the client" "not measured" "not measured" "/usr/bin/time (GNU time) is not installed"
fi

# on disk: mcpc's binary and the libraries it links; the Inspector's package and what it pulls in
mlibs=$(ldd "$mcpc" 2>/dev/null | awk '$1 ~ /^lib/ { sub(/\.so.*/, "", $1); printf "%s%s", sep, $1; sep = ", " }')
msize=$(( $(stat -c %s "$mcpc") / 1024 ))
if command -v strip >/dev/null 2>&1 && strip -o "$tmp/mcpc.stripped" "$mcpc" 2>/dev/null; then
    msize="$msize KiB as built, $(( $(stat -c %s "$tmp/mcpc.stripped") / 1024 )) KiB stripped"
else msize="$msize KiB"; fi
isize=$(cd "$here" && node -e '
    const fs = require("fs"), path = require("path");
    const lock = JSON.parse(fs.readFileSync("package-lock.json", "utf8")).packages;
    const find = (from, dep) => {
        for (let base = from; ; ) {
            const p = (base ? base + "/" : "") + "node_modules/" + dep;
            if (lock[p]) return p;
            if (!base) return null;
            const i = base.lastIndexOf("/node_modules/");
            base = i < 0 ? "" : base.slice(0, i);
        }
    };
    const seen = new Set(), todo = ["node_modules/@modelcontextprotocol/inspector"];
    while (todo.length) {
        const p = todo.pop();
        if (seen.has(p) || !fs.existsSync(p)) continue;
        seen.add(p);
        const e = lock[p];
        for (const d of Object.keys({ ...e.dependencies, ...e.optionalDependencies, ...e.peerDependencies })) {
            const q = find(p, d);
            if (q) todo.push(q);
        }
    }
    console.log(seen.size + " " + [...seen].join(" "));')
ipkgs=${isize%% *}
# shellcheck disable=SC2086
ikb=$(cd "$here" && du -sk --exclude=node_modules ${isize#* } 2>/dev/null | awk '{ s += $1 } END { print s }')
row "on disk" "${msize}; one file (links ${mlibs:-nothing})" \
    "$(( ikb / 1024 )) MiB in $ipkgs npm packages, and Node.js ($(node -e 'console.log(require(process.argv[1]).engines.node)' "$nm/inspector/package.json") wanted)" \
    "du of the Inspector and its dependencies in node_modules"

# ---- 2. feature by feature ------------------------------------------------------------------------

echo "compare: feature by feature..." >&2
E=(node "$ev_js" stdio)

# listing tools on every transport and server: from the startup runs
join() { local IFS=,; echo "$*" | sed 's/,/, /g'; }
[ ${#list_mfail[@]} -eq 0 ] && mv=yes || mv="failed on $(join "${list_mfail[@]}")"
[ ${#list_ifail[@]} -eq 0 ] && iv=yes || iv="failed on $(join "${list_ifail[@]}")"
row "list tools: stdio, Streamable HTTP, HTTP+SSE; filesystem, memory" "$mv" "$iv" "the startup runs above"

M "${E[@]}" -- tools echo
if [ $rc -eq 0 ] && out 'Message to echo' && out 'string'; then mv="yes (\`tools echo\`: types, defaults, enums, output schema)"
else mv="no (\`tools echo\`: exit $rc)"; fi
I "${E[@]}" --method tools/list --tool-name echo
if [ $rc -eq 0 ] && out '"name": *"get-sum"'; then iv="no (\`--method tools/list\` prints every tool's JSON)"
else iv="no"; fi
row "one tool in full" "$mv" "$iv" "server-everything's echo"

M "${E[@]}" -- call echo message=42
if [ $rc -eq 0 ] && out '^Echo: 42$'; then mv=yes; else mv="no: sent 42, a number (exit $rc)"; fi
I "${E[@]}" --method tools/call --tool-name echo --tool-arg message=42
if [ $rc -eq 0 ] && out 'Echo: 42"'; then iv=yes; else iv="no: sent 42, a number (exit $rc)"; fi
row "key=value arguments typed by the tool's schema" "$mv" "$iv" "\`echo message=42\`: its schema says string"

M "${E[@]}" -- call get-sum '{"a": 2, "b": 40}'
out '42' && [ $rc -eq 0 ] && mv=yes || mv="no (exit $rc)"
I "${E[@]}" --method tools/call --tool-name get-sum --tool-args-json '{"a": 2, "b": 40}'
out 'is 42' && [ $rc -eq 0 ] && iv="yes (\`--tool-args-json\`)" || iv="no (exit $rc)"
row "arguments as one JSON object" "$mv" "$iv" "get-sum"

ent='entities=[{"name":"Ada","entityType":"person","observations":["x"]}]'
M -e "MEMORY_FILE_PATH=$tmp/m3.jsonl" node "$mem_js" -- call create_entities "$ent"
out 'Ada' && [ $rc -eq 0 ] && mv=yes || mv="no (exit $rc)"
I -e "MEMORY_FILE_PATH=$tmp/m4.jsonl" node "$mem_js" --method tools/call --tool-name create_entities --tool-arg "$ent"
out 'Ada' && [ $rc -eq 0 ] && iv=yes || iv="no (exit $rc)"
row "an array of objects as key=value" "$mv" "$iv" "server-memory's create_entities"

okm=0 oki=0
M "${E[@]}" -- resources;  [ $rc -eq 0 ] && out 'architecture\.md' && okm=$((okm + 1))
M "${E[@]}" -- templates;  [ $rc -eq 0 ] && out '\{resourceId\}' && okm=$((okm + 1))
M "${E[@]}" -- read demo://resource/dynamic/text/1; [ $rc -eq 0 ] && out 'Resource 1' && okm=$((okm + 1))
I "${E[@]}" --method resources/list; [ $rc -eq 0 ] && out 'architecture\.md' && oki=$((oki + 1))
I "${E[@]}" --method resources/templates/list; [ $rc -eq 0 ] && out '\{resourceId\}' && oki=$((oki + 1))
I "${E[@]}" --method resources/read --uri demo://resource/dynamic/text/1; [ $rc -eq 0 ] && out 'Resource 1' && oki=$((oki + 1))
verdict3() { [ "$1" -eq 3 ] && echo yes || echo "$1 of 3"; }
row "resources: list, templates, read" "$(verdict3 $okm)" "$(verdict3 $oki)" "server-everything"

M "${E[@]}" -- prompt resource-prompt resourceType=Text resourceId=3
[ $rc -eq 0 ] && out 'id: 3' && mv=yes || mv="no: $(first_err)"
I "${E[@]}" --method prompts/get --prompt-name resource-prompt --prompt-args resourceType=Text resourceId=3
[ $rc -eq 0 ] && out 'id: 3' && iv=yes || iv="no (exit $rc)"
row "a prompt with arguments" "$mv" "$iv" "\`resource-prompt resourceType=Text resourceId=3\`"

M "${E[@]}" -- complete prompt completable-prompt department E
[ $rc -eq 0 ] && out '^Engineering$' && mv=yes || mv="no (exit $rc)"
I "${E[@]}" --method prompts/complete --complete-ref-type ref/prompt --complete-ref completable-prompt \
    --complete-arg-name department --complete-arg-value E
[ $rc -eq 0 ] && out 'Engineering' && iv=yes || { any 'Unsupported method' && iv="no (not a --cli method)" || iv="no (exit $rc)"; }
row "completion" "$mv" "$iv" "completable-prompt's department, E"

M "${E[@]}" -- complete prompt completable-prompt name A department=Engineering
[ $rc -eq 0 ] && out '^Alice$' && mv=yes || mv="no (exit $rc)"
row "completion with the other arguments (context)" "$mv" "no (no completion)" "name A with department=Engineering"

uri=demo://resource/static/document/architecture.md
M --log-level warning -v "${E[@]}" -- request resources/subscribe uri=$uri
a=$rc; ! err 'Received Subscribe'; b=$?
M --log-level info "${E[@]}" -- request resources/subscribe uri=$uri
if [ $a -eq 0 ] && [ $b -eq 0 ] && [ $rc -eq 0 ] && err 'Received Subscribe'; then mv="yes (\`--log-level\`, then the command)"
else mv="no (exit $a)"; fi
I "${E[@]}" --method logging/setLevel --log-level warning
[ $rc -eq 0 ] && iv="only as a command of its own (\`--method logging/setLevel\`), not before another" || iv="no (exit $rc)"
row "set the server's log level" "$mv" "$iv" "the info message of resources/subscribe filtered at warning"

M -v "${E[@]}" -- call toggle-simulated-logging
[ $rc -eq 0 ] && err 'level message|level-message' && mv="yes (\`-v\`, or \`--log-level\`)" || mv="no (exit $rc)"
I "${E[@]}" --method tools/call --tool-name toggle-simulated-logging
any 'level message|level-message' && iv=yes || iv="no (not printed)"
row "log messages sent during a call, shown" "$mv" "$iv" "toggle-simulated-logging sends one at once"

M -v "${E[@]}" -- call gzip-file-as-resource name=c.gz 'data=data:text/plain;base64,aGk='
[ $rc -eq 0 ] && err 'resources/list_changed' && mv="yes (\`-v\`)" || mv="no (exit $rc)"
I "${E[@]}" --method tools/call --tool-name gzip-file-as-resource --tool-arg name=c.gz 'data=data:text/plain;base64,aGk='
any 'list_changed' && iv=yes || iv="no (not printed)"
row "notifications during a call, shown" "$mv" "$iv" "gzip-file-as-resource's resources/list_changed"

x timeout --preserve-status -s INT 3 "$mcpc" "${E[@]}" -- watch
[ $rc -eq 0 ] && out 'notifications/tools/list_changed' && mv="yes (\`watch [URI...]\`, \`--for\`)" || mv="no (exit $rc)"
I "${E[@]}" --method logging/tail
any 'Unsupported method' && iv="no (\`logging/tail\` is not a --cli method)" || iv="no (exit $rc)"
row "stay connected, print what the server sends" "$mv" "$iv" "server-everything's tools/list_changed after initialize"

M --progress "${E[@]}" -- call trigger-long-running-operation duration=1 steps=2
[ $rc -eq 0 ] && err '2/2' && mv="yes (\`--progress\`; on a terminal always)" || mv="no (exit $rc)"
I "${E[@]}" --method tools/call --tool-name trigger-long-running-operation --tool-arg duration=1 steps=2
any '2/2|progress' && iv=yes || iv="no (not printed)"
row "progress" "$mv" "$iv" "trigger-long-running-operation, 2 steps"

M -t 1000 "${E[@]}" -- call trigger-long-running-operation duration=5 steps=1
[ $rc -eq 6 ] && mv="yes (\`-t 1000\`: exit 6 after $ms ms)" || mv="no (exit $rc after $ms ms)"
cat >"$tmp/insp.json" <<EOF
{"mcpServers": {"everything": {"command": "node", "args": ["$ev_js", "stdio"], "requestTimeout": 1000}}}
EOF
I --config "$tmp/insp.json" --server everything --method tools/call --tool-name trigger-long-running-operation \
    --tool-arg duration=5 steps=1
if [ $ms -lt 4000 ]; then iv="yes (mcp.json \`requestTimeout\`: exit $rc after $ms ms)"
else iv="no option; mcp.json \`requestTimeout: 1000\` did not stop it (exit $rc after $ms ms)"; fi
row "per-request timeout" "$mv" "$iv" "a 5 s operation, a 1 s timeout"

# https: a TLS relay with a self-signed certificate in front of the Streamable HTTP server
notls=""
"$mcpc" --version 2>/dev/null | grep -q '^https: no' && notls="no: this mcpc was built without TLS (OpenSSL)"
if command -v openssl >/dev/null 2>&1 &&
   openssl req -x509 -newkey rsa:2048 -nodes -keyout "$tmp/key.pem" -out "$tmp/cert.pem" -days 2 -subj /CN=127.0.0.1 \
       -addext subjectAltName=IP:127.0.0.1,DNS:localhost >/dev/null 2>&1; then
    tls_port=$(free_port)
    start tls-relay "$tls_port" node "$here/tls_relay.mjs" "$tmp/cert.pem" "$tmp/key.pem" "$http_port" "$tls_port"
    https=https://127.0.0.1:$tls_port/mcp
    M --cacert "$tmp/cert.pem" "$https" tools
    [ $rc -eq 0 ] && out '^echo' && mv="yes (\`--cacert FILE\`)" || mv=${notls:-"no: $(first_err)"}
    x env NODE_EXTRA_CA_CERTS="$tmp/cert.pem" "${inspector[@]}" "$https" --method tools/list
    [ $rc -eq 0 ] && out '"echo"' && iv="yes (Node's \`NODE_EXTRA_CA_CERTS\`; no option)" || iv="no (exit $rc)"
    row "https://, a private CA" "$mv" "$iv" "a local TLS relay, self-signed certificate"
    M "$https" tools
    a=$rc
    I "$https" --method tools/list
    row "https://, an unknown certificate refused" "$([ $a -eq 3 ] && echo "yes (exit 3)" || echo "${notls:-exit $a}")" \
        "$([ $rc -ne 0 ] && any 'self-signed|certificate' && echo "yes (exit $rc)" || echo "exit $rc")" "no CA given"
    M --insecure "$https" tools
    [ $rc -eq 0 ] && out '^echo' && mv="yes (\`--insecure\`, warned)" || mv=${notls:-"no: $(first_err)"}
    x env NODE_TLS_REJECT_UNAUTHORIZED=0 "${inspector[@]}" "$https" --method tools/list
    [ $rc -eq 0 ] && out '"echo"' && iv="yes (Node's \`NODE_TLS_REJECT_UNAUTHORIZED=0\`, warned)" || iv="no (exit $rc)"
    row "https://, certificate not checked" "$mv" "$iv" "the same relay"
else
    row "https://" "not run" "not run" "openssl is not installed"
fi

M --json "${E[@]}" -- tools
node -e 'JSON.parse(require("fs").readFileSync(process.argv[1], "utf8"))' "$tmp/out" 2>/dev/null && mv="yes (\`--json\`)" || mv="no"
I "${E[@]}" --method tools/list
node -e 'JSON.parse(require("fs").readFileSync(process.argv[1], "utf8"))' "$tmp/out" 2>/dev/null && iv="yes (always; \`--format json\` drops banners)" || iv="no"
row "JSON output" "$mv" "$iv" "tools/list parsed with node"

json_last() { node -e '
    const l = require("fs").readFileSync(process.argv[1], "utf8").split("\n").filter(s => s.trim());
    const e = JSON.parse(l[l.length - 1]);
    process.stdout.write(JSON.stringify(e).slice(0, 200));' "$tmp/err" 2>/dev/null; }
M --json "${E[@]}" -- prompt no-such-prompt
j=$(json_last) && mv="yes: \`${j:0:64}...\`" || mv="no (text: $(first_err))"
mc_proto=$rc
I "${E[@]}" --method prompts/get --prompt-name no-such-prompt
ji=$(json_last) && iv="yes: \`${ji:0:64}...\`" || iv="no"
i_proto=$rc
row "an error as JSON on stderr" "$mv" "$iv" "an unknown prompt"
c=$(grep -o 'MCP error -32602' "$tmp/err" | wc -l)
M "${E[@]}" -- prompt no-such-prompt
cm=$(grep -o 'MCP error -32602' "$tmp/err" | wc -l)
row "the server's 'MCP error -32602:' said once" "$([ "$cm" -eq 1 ] && echo yes || echo "$cm times")" \
    "$([ "$c" -eq 1 ] && echo yes || echo "$c times")" "the same error"

M "${E[@]}" -- call echo message=hi
a=$rc
M "${E[@]}" -- call get-sum '{"a": "x", "b": 1}'; m_tool=$rc
M "http://127.0.0.1:$closed_port/mcp" tools; m_conn=$rc
I "${E[@]}" --method tools/call --tool-name get-sum --tool-args-json '{"a": "x", "b": 1}'; i_tool=$rc
I "http://127.0.0.1:$closed_port/mcp" --method tools/list; i_conn=$rc
row "exit status: JSON-RPC error / tool error / unreachable / timeout" "$mc_proto / $m_tool / $m_conn / 6" \
    "$i_proto / $i_tool / $i_conn / none" "unknown prompt, get-sum with a string, a closed port, the timeout row"

M "http://127.0.0.1:$sse_port/sse" info
if [ $rc -eq 0 ] && out 'HTTP\+SSE'; then mv="yes ($(grep -m1 '^transport' "$tmp/out" | sed 's/^transport: *//; s/http:[^ ]*//; s/  */ /g; s/ *$//; s/|/\\|/g'))"
else mv="no (exit $rc)"; fi
I --transport http "http://127.0.0.1:$sse_port/sse" --method tools/list
[ $rc -eq 0 ] && iv=yes || iv="no: picks the transport from the URL's path (/sse: HTTP+SSE); as http it fails (exit $rc)"
row "Streamable HTTP falls back to HTTP+SSE" "$mv" "$iv" "server-everything's sse server, given as a plain URL"

M "node $ev_js stdio" tools
[ $rc -eq 0 ] && out '^echo' && mv=yes || mv="no (exit $rc)"
I "node $ev_js stdio" --method tools/list
[ $rc -eq 0 ] && out '"echo"' && iv=yes || { grep -q 'ENOENT' "$tmp/err" && iv="no: runs the whole string as one program (ENOENT)" || iv="no (exit $rc)"; }
row "the server command as one quoted word" "$mv" "$iv" "\"node .../index.js stdio\""

printf '{"a": 2, "b": 40}\n' >"$tmp/args.json"
M --args-file "$tmp/args.json" "${E[@]}" -- call get-sum
[ $rc -eq 0 ] && out '42' && mv="yes (\`--args-file FILE\`, \`-\` for stdin)" || mv="no (exit $rc)"
row "arguments from a file or stdin" "$mv" "no option (\`--tool-args-json \"\$(cat FILE)\"\`)" "get-sum"

M -e MCPC_COMPARE=yes "${E[@]}" -- call get-env
[ $rc -eq 0 ] && out 'MCPC_COMPARE' && mv="yes (\`-e\`)" || mv="no (exit $rc)"
I -e MCPC_COMPARE=yes "${E[@]}" --method tools/call --tool-name get-env
[ $rc -eq 0 ] && out 'MCPC_COMPARE' && iv="yes (\`-e\`)" || iv="no (exit $rc)"
row "environment for a stdio server" "$mv" "$iv" "server-everything's get-env"

cat >"$tmp/mcp.json" <<EOF
{"mcpServers": {"everything": {"command": "node", "args": ["$ev_js", "stdio"]}}}
EOF
M --config "$tmp/mcp.json" --server everything tools
[ $rc -eq 0 ] && out '^echo' && mv="yes (\`--config FILE\`: every server at once, \`--server NAME\`: one)" || mv="no (\`--config\`: exit $rc)"
I --config "$tmp/mcp.json" --server everything --method tools/list
[ $rc -eq 0 ] && out '"echo"' && iv="yes (\`--config FILE --server NAME\`)" || iv="no (exit $rc)"
row "servers from a config file (mcp.json)" "$mv" "$iv" "one stdio server in mcpServers"

M "${E[@]}" -- call simulate-research-query topic=mcp
[ $rc -eq 0 ] && out 'Research Report' && mv=yes || mv="no: $(first_err | cut -c1-72)..."
I "${E[@]}" --method tools/call --tool-name simulate-research-query --tool-arg topic=mcp
[ $rc -eq 0 ] && out 'Research Report' && iv="yes (tools/call as a task, polled, $ms ms)" || iv="no (exit $rc)"
row "tasks (a tool with taskSupport: required)" "$mv" "$iv" "simulate-research-query"

M --json "${E[@]}" -- tools
grep -q '"get-roots-list"' "$tmp/out" && mv=yes || mv="no (the server does not offer get-roots-list)"
I "${E[@]}" --method tools/list
grep -q '"get-roots-list"' "$tmp/out" && iv="yes (declared; the list from mcp.json \`roots\`, empty by default)" || iv=no
row "roots (the client declares them)" "$mv" "$iv" "server-everything registers get-roots-list only for such a client"
grep -q '"trigger-sampling-request"' "$tmp/out" && iv=yes || iv=no
M --json "${E[@]}" -- tools
grep -q '"trigger-sampling-request"' "$tmp/out" && mv=yes || mv=no
row "sampling, elicitation (answered by the client)" "$mv" "$iv" "... and trigger-sampling-request only for sampling"

M node "$here/modern_server.mjs" stdio -- info
mv=$(grep -m1 '^protocol' "$tmp/out" | awk '{ print $2 }')
I --protocol-era auto node "$here/modern_server.mjs" stdio --method initialize
iv=$(grep -o '"protocolVersion": *"[^"]*"' "$tmp/out" | head -1 | sed 's/.*: *"//; s/"//')
row "protocol 2026-07-28 (an SDK v2 server)" "${mv:-failed} (found by itself)" "${iv:-failed} (\`--protocol-era auto\`; legacy by default)" \
    "tests/interop/modern_server.mjs"

"$mcpc" --help >"$tmp/mhelp" 2>&1
"${inspector[@]}" --help >"$tmp/ihelp" 2>&1
h() { grep -qE -e "$1" "$2" && echo "yes (\`$3\`)" || echo no; }
row "OAuth" "$(h 'OAuth|oauth' "$tmp/mhelp" oauth) (a bearer token with \`-H\`)" "$(h '--client-id' "$tmp/ihelp" '--client-id, stored tokens...')" "--help only: no authorization server here"
row "load testing a tool" "$(h '--load' "$tmp/mhelp" --load)" "$(h '--load ' "$tmp/ihelp" '--load')" "--help only"
row "output to a file" "$(h '--output' "$tmp/mhelp" --output) (the shell's >)" "$(h '--output ' "$tmp/ihelp" '--output FILE')" "--help only"

# ---- the report -----------------------------------------------------------------------------------

cpu=$(awk -F': ' '/^model name/ { print $2; exit }' /proc/cpuinfo 2>/dev/null)
os=$(. /etc/os-release 2>/dev/null && echo "$PRETTY_NAME")
mver=$("$mcpc" --version 2>/dev/null | head -n 1)
echo "Machine: ${cpu:-unknown CPU}, $(nproc) cores; ${os:-$(uname -s)} (Linux $(uname -r)); Node.js $(node --version)"
if [ -z "${MCPC:-}" ]; then
    src="built from this checkout, git $(git rev-parse --short HEAD 2>/dev/null)"
    git diff --quiet HEAD -- mcp.h examples/mcpc.c examples/tls_openssl.c 2>/dev/null || src="$src plus uncommitted changes"
else src="given as MCPC"; fi
echo "mcpc: $mcpc (${mver:-?}; $src), $("$mcpc" --version 2>/dev/null | grep '^https' | cut -c1-40)"
echo "Inspector: @modelcontextprotocol/inspector $insp_version, \`node .../clients/launcher/build/index.js --cli\`"
echo "Servers: server-everything $(node -e 'console.log(require(process.argv[1]).version)' "$nm/server-everything/package.json"), server-filesystem, server-memory (pinned in tests/interop/package.json); HTTP ones on 127.0.0.1"
echo "Command: bash tests/interop/compare.sh (COMPARE_RUNS=$runs)"
echo
echo "| | mcpc | MCP Inspector CLI $insp_version | checked with |"
echo "|---|---|---|---|"
printf '%s\n' "${rows[@]}"
mcpdo=$nm/inspector/clients/mcpdo/build/mcp-bin.js
if [ -f "$mcpdo" ] && timeout 20 node "$mcpdo" --help >"$tmp/dohelp" 2>&1; then
    have=$(grep -oE '^ +(prompts/complete|logging/tail|resources/subscribe|tasks/list|elicitation/respond)' "$tmp/dohelp" | tr -d ' ' | paste -sd, - | sed 's/,/, /g')
    echo
    echo "The Inspector package also ships mcpdo, a CLI that keeps connections open in a daemon; its --help lists ${have:-none of} $( [ -n "$have" ] && echo "(not measured here)")."
fi
