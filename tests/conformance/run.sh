#!/usr/bin/env bash
# Conformance: mcp.h under the official MCP conformance suite's client scenarios.
# See tests/conformance/client.c.
#
#   bash tests/conformance/run.sh          from anywhere (make conformance); exits non-zero
#                                          if any scenario fails
#
# 1. npm ci (from package-lock.json: @modelcontextprotocol/conformance 0.1.16 and the npm
#    package "node" 22.23.3, whose install script fetches the Node 22 binary the suite needs;
#    package.json's allowScripts lets it run) when node_modules is missing or was installed
#    from another lock file (a checksum of the lock file is kept in node_modules);
# 2. builds build/conformance-client with the strict flags;
# 3. runs each non-auth client scenario alone with node_modules/.bin/node (Node 22):
#        node .../conformance/dist/index.js client --command BUILD/conformance-client \
#            --scenario NAME -o BUILD/conformance
#    and passes it when the suite exits 0, its summary says "0 failed, 0 warnings", every
#    check in its checks.json is SUCCESS or INFO (at least one SUCCESS) and the client exited
#    0. A failed scenario is run once more alone (sse-retry measures timing).
# Results stay under BUILD/conformance/ (git-ignored). Prints one summary line per scenario
# and "N passed, N failed" last.
# Environment: CC (default cc), BUILD (default build), CONFORMANCE_SCENARIOS (a subset, by
# name), CONFORMANCE_VERBOSE=1 (the suite's whole output for every scenario).
set -euo pipefail

here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/../.." && pwd)"
cd "$root"
build="${BUILD:-build}"
cc="${CC:-cc}"
# Every client scenario of the pinned suite but cross-app-access-complete-flow (an extension:
# an enterprise identity provider's token exchange, SEP-990, which mcp.h does not implement).
core="initialize tools_call elicitation-sep1034-client-defaults sse-retry"
auth="auth/metadata-default auth/metadata-var1 auth/metadata-var2 auth/metadata-var3 auth/basic-cimd
      auth/scope-from-www-authenticate auth/scope-from-scopes-supported auth/scope-omitted-when-undefined
      auth/scope-step-up auth/scope-retry-limit auth/token-endpoint-auth-basic auth/token-endpoint-auth-post
      auth/token-endpoint-auth-none auth/pre-registration auth/2025-03-26-oauth-metadata-backcompat
      auth/2025-03-26-oauth-endpoint-fallback auth/resource-mismatch auth/offline-access-scope
      auth/offline-access-not-supported auth/client-credentials-jwt auth/client-credentials-basic"
scenarios="${CONFORMANCE_SCENARIOS:-$core $auth}"
verbose="${CONFORMANCE_VERBOSE:-0}"

for tool in node npm; do
    if ! command -v "$tool" >/dev/null 2>&1; then
        echo "conformance: '$tool' is not installed; npm (with any Node.js) is needed to install the suite" >&2
        echo "0 passed, 1 failed"
        exit 1
    fi
done

stamp="$here/node_modules/.mcp-conformance-lock"
want="$(cksum <"$here/package-lock.json")"
have="$(cat "$stamp" 2>/dev/null || true)"
suite="$here/node_modules/@modelcontextprotocol/conformance/dist/index.js"
node22="$here/node_modules/.bin/node"
if [ "$want" != "$have" ] || [ ! -f "$suite" ] || ! "$node22" --version >/dev/null 2>&1; then
    echo "conformance: npm ci (node_modules missing or stale)"
    (cd "$here" && npm ci --no-audit --no-fund --loglevel=error)
    echo "$want" >"$stamp"
else
    echo "conformance: node_modules is up to date with package-lock.json"
fi
if ! "$node22" --version >/dev/null 2>&1; then
    echo "conformance: $node22 does not run: the npm package \"node\" did not install its binary" >&2
    echo "0 passed, 1 failed"
    exit 1
fi
suite_version="$("$node22" -p 'require(process.argv[1]).version' "$here/node_modules/@modelcontextprotocol/conformance/package.json")"
echo "conformance: @modelcontextprotocol/conformance $suite_version, node $("$node22" --version) (npm package \"node\"), npm $(npm --version)"

mkdir -p "$build"
# OpenSSL (when its headers are there) signs the client-credentials-jwt scenario's assertion
ssl=""
if printf '#include <openssl/evp.h>\nint main(void){return 0;}\n' | "$cc" -x c - -o /dev/null -lcrypto 2>/dev/null; then
    ssl="-DHAVE_OPENSSL -lcrypto"
fi
"$cc" -std=c99 -Wall -Wextra -Wpedantic -Wshadow -Werror -O2 \
    tests/conformance/client.c -o "$build/conformance-client" -lm $ssl
client="$(cd "$build" && pwd)/conformance-client"
results="$(cd "$build" && pwd)/conformance"
if [[ "$client" == *" "* ]]; then                       # the suite splits --command at spaces
    linkdir="$(mktemp -d)"
    trap 'rm -rf "$linkdir"' EXIT
    ln -s "$client" "$linkdir/conformance-client"
    client="$linkdir/conformance-client"
fi
rm -rf "$results"
mkdir -p "$results"

# Counts the checks of one checks.json: "SUCCESS FAILURE WARNING INFO OTHER".
count_checks() {
    "$node22" -e '
        const checks = JSON.parse(require("fs").readFileSync(process.argv[1], "utf8"));
        const n = { SUCCESS: 0, FAILURE: 0, WARNING: 0, INFO: 0, OTHER: 0 };
        for (const c of checks) n[c.status in n ? c.status : "OTHER"]++;
        console.log([n.SUCCESS, n.FAILURE, n.WARNING, n.INFO, n.OTHER].join(" "));
        for (const c of checks) {
            const d = c.details || {};
            if (d.actualDelayMs !== undefined)
                console.error("    " + c.id + ": reconnected after " + d.actualDelayMs + " ms (retry " +
                              d.expectedRetryMs + " ms, accepted " + d.minAcceptableMs + "-" + d.maxAcceptableMs + ")");
        }
        for (const c of checks)
            if (c.status !== "SUCCESS" && c.status !== "INFO")
                console.error("    " + c.status + " " + c.id + ": " + c.description +
                              (c.errorMessage ? " (" + c.errorMessage + ")" : ""));
    ' "$1"
}

# Runs one scenario once; prints its result lines; returns 0 when it passed. Sets `line`.
run_one() {
    local name="$1" log="$results/${1//\//_}.log" rc=0 t0 t1 dir summary counts ok=1 why=""
    local marker="$results/.started" checks=""
    touch "$marker"
    sleep 0.01
    t0=$(date +%s%N)
    "$node22" "$suite" client --command "$client" --scenario "$name" -o "$results" \
        >"$log" 2>&1 || rc=$?
    t1=$(date +%s%N)
    sed -i 's/\x1b\[[0-9;]*m//g' "$log"                  # the suite colours its output
    checks="$(find "$results" -name checks.json -newer "$marker" | head -n 1)"
    dir="$(dirname "${checks:-.}")"
    if [ "$verbose" != "0" ]; then sed 's/^/    | /' "$log"; fi
    # the suite's check lines and summary, and the client's own verdict lines
    grep -E '^\[?[0-9T:.-]+Z\]? +\[' "$log" | grep -vE '\] INFO +' | sed 's/^[0-9T:.-]*Z /    /' || true
    # the client's own verdicts (its stderr is in the results; the suite shows it on failure)
    if [ -n "$checks" ] && [ -f "$dir/stderr.txt" ]; then
        grep -E '^conformance-client .*(FAIL|FAILED|done in)' "$dir/stderr.txt" | sed 's/^/    /' || true
    fi
    summary="$(grep -E '^Passed: [0-9]+/[0-9]+, [0-9]+ failed, [0-9]+ warnings' "$log" | tail -n 1 || true)"
    echo "    $name: ${summary:-no summary line} (suite exit $rc, $(( (t1 - t0) / 1000000 )) ms)"
    if [ "$rc" -ne 0 ]; then ok=0; why="the suite exited $rc"; fi
    # (a scenario may allow the client to fail; this client's own checks still decide: it exits 0
    # only when what it expected happened, a refusal included)
    if grep -qE 'CLIENT EXITED WITH ERROR|CLIENT TIMED OUT|^Client exited with code' "$log"; then ok=0; why="${why:+$why; }the client failed or timed out"; fi
    if ! echo "$summary" | grep -qE ', 0 failed, 0 warnings$'; then ok=0; why="${why:+$why; }the summary is not \"0 failed, 0 warnings\""; fi
    if [ -n "$checks" ]; then
        counts="$(count_checks "$checks")"
        read -r ns nf nw ni no <<<"$counts"
        echo "    $name: checks.json: $ns SUCCESS, $nf FAILURE, $nw WARNING, $ni INFO$([ "$no" -ne 0 ] && echo ", $no other") (${dir#"$root"/})"
        if [ "$nf" -ne 0 ] || [ "$nw" -ne 0 ] || [ "$no" -ne 0 ] || [ "$ns" -eq 0 ]; then
            ok=0; why="${why:+$why; }checks.json has checks other than SUCCESS and INFO (or no SUCCESS)"
        fi
    else
        ok=0; why="${why:+$why; }no checks.json was written"
    fi
    line="$summary"
    if [ "$ok" -ne 1 ]; then
        echo "    $name: FAILED: $why; the suite's output:"
        sed 's/^/    | /' "$log" | tail -n 80
        return 1
    fi
    return 0
}

declare -A final
passed=0; failed=0; t_all=$(date +%s)
for name in $scenarios; do
    echo "== $name"
    if run_one "$name"; then
        final[$name]="PASS  $line"
        passed=$((passed + 1))
    else
        echo "conformance: $name failed; running it once more alone"
        if run_one "$name"; then
            final[$name]="PASS  $line (on the second run)"
            passed=$((passed + 1))
        else
            final[$name]="FAIL  ${line:-no summary}"
            failed=$((failed + 1))
        fi
    fi
done

echo
echo "conformance summary (@modelcontextprotocol/conformance $suite_version, $(( $(date +%s) - t_all )) s):"
for name in $scenarios; do
    printf '  %-40s %s\n' "$name" "${final[$name]}"
done
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
