#!/usr/bin/env bash
# mcpc (examples/mcpc.c) signing in to tests/servers/auth_server.c: a protected MCP server that
# is its own authorization server (registration with a client secret, PKCE, rotating refresh
# tokens). The browser is MCPC_BROWSER: curl following the 302 to mcpc's loopback receiver,
# behind a wrapper that counts its runs. XDG_CONFIG_HOME is a temporary folder.
#   1. the first `mcpc URL tools` signs in (one browser, one code grant);
#      $XDG_CONFIG_HOME/mcpc/auth.json is mode 0600 and holds the refresh token
#   2. the second run needs no browser (MCPC_BROWSER=false), with -v
#   3. an expired access token: refreshed, no browser (-v)
#   4. the lock: the access token expired, two mcpc at once on the same token file; with
#      rotating refresh tokens both succeed (the second reads what the first saved), one
#      refresh, no refresh token used twice, no browser
#   and no token, code or client secret the server issued is in any of mcpc's output.
# Without curl the checks cannot run: reported as skipped (never a pass).
#   usage: bash tests/test_mcpc_auth.sh [DATA_DIR]   (BUILD: the build folder, default build)
set -u
build=${BUILD:-build}
mcpc=$build/mcpc srv=$build/auth_server
pass=0 fail=0 skip=0
ok()  { pass=$((pass + 1)); }
bad() { fail=$((fail + 1)); echo "FAILED: $*" >&2; }
check() { local what=$1; shift; if "$@"; then ok; else bad "$what"; fi; }

if ! command -v curl >/dev/null 2>&1; then
    echo "SKIPPED: curl is not installed (the browser mcpc runs)"
    echo "0 passed, 0 failed, 1 skipped"
    exit 0
fi
for f in "$mcpc" "$srv"; do
    if [ ! -x "$f" ]; then bad "$f is missing (make builds it)"; echo "$pass passed, $fail failed"; exit 1; fi
done

tmp=$(mktemp -d "${TMPDIR:-/tmp}/mcpc_auth.XXXXXX")
pid=""
cleanup() {
    exec 7>&- 2>/dev/null
    [ -n "$pid" ] && wait "$pid" 2>/dev/null
    rm -rf "$tmp"
}
trap cleanup EXIT

mkfifo "$tmp/in"
"$srv" 0 --secret <"$tmp/in" >"$tmp/port" 2>"$tmp/server.err" &
pid=$!
exec 7>"$tmp/in"                      # the server's stdin: closing it stops the server
for _ in $(seq 100); do grep -q '^PORT' "$tmp/port" 2>/dev/null && break; sleep 0.05; done
port=$(sed -n 's/^PORT //p' "$tmp/port")
if [ -z "$port" ]; then bad "the auth server did not start"; echo "$pass passed, $fail failed"; exit 1; fi
base=http://127.0.0.1:$port url=$base/mcp

sv() { curl -s "$base/debug/stats" | grep -o "\"$1\":[0-9]*" | cut -d: -f2; }
cat >"$tmp/browser.sh" <<EOF
echo run >>"$tmp/browser.log"
exec curl -s -L -o /dev/null --max-time 30 "\$1"
EOF
: >"$tmp/browser.log"
browsers() { wc -l <"$tmp/browser.log" | tr -d ' '; }
export XDG_CONFIG_HOME=$tmp/cfg
file=$XDG_CONFIG_HOME/mcpc/auth.json
run() {   # run NAME BROWSER ARGS...: mcpc, its output in $tmp/NAME.out and .err, bounded
    local name=$1 browser=$2; shift 2
    MCPC_BROWSER=$browser timeout 60 "$mcpc" "$@" >"$tmp/$name.out" 2>"$tmp/$name.err"
}

# 1. sign in
run first "bash $tmp/browser.sh" "$url" tools
st=$?
check "the first run succeeds (status $st): $(tail -n 3 "$tmp/first.err")" [ $st -eq 0 ]
check "the first run lists the echo tool" grep -q '^echo' "$tmp/first.out"
check "one browser for the sign-in (saw $(browsers))" [ "$(browsers)" = 1 ]
check "the sign-in URL was printed" grep -q "$base/as/authorize?" "$tmp/first.err"
check "one registration, one authorization, one code grant" \
    [ "$(sv registrations) $(sv authorizations) $(sv code_grants)" = "1 1 1" ]
check "auth.json exists" [ -f "$file" ]
check "auth.json is mode 0600 ($(stat -c %a "$file" 2>/dev/null))" [ "$(stat -c %a "$file" 2>/dev/null)" = 600 ]
secrets() { curl -s "$base/debug/secrets" | grep -o '"[^"]*"' | tr -d '"'; }
last_rt() { secrets | grep '^rt-' | tail -n 1; }
check "auth.json holds the refresh token" grep -qF "$(last_rt)" "$file"

# 2. again, no browser, with -v
run second false -v "$url" call echo a=1
st=$?
check "the second run succeeds without a browser (status $st): $(tail -n 3 "$tmp/second.err")" [ $st -eq 0 ]
check "the second run's answer" grep -qF '{"a":1}' "$tmp/second.out"
check "no browser the second time" [ "$(browsers)" = 1 ]
check "still one code grant, no refresh" [ "$(sv code_grants) $(sv refresh_grants)" = "1 0" ]

# 3. an expired access token, refreshed (-v)
curl -s "$base/debug/expire" >/dev/null
old_rt=$(last_rt)
run third false -v "$url" call echo b=2
st=$?
check "the run after expiry succeeds (status $st): $(tail -n 3 "$tmp/third.err")" [ $st -eq 0 ]
check "its answer" grep -qF '{"b":2}' "$tmp/third.out"
check "one refresh, no browser" [ "$(sv refresh_grants) $(browsers)" = "1 1" ]
check "auth.json holds the rotated refresh token, not the old one" \
    bash -c "grep -qF '$(last_rt)' '$file' && ! grep -qF '$old_rt' '$file'"

# 4. the lock: two at once on one expired token and one rotating refresh token
curl -s "$base/debug/expire" >/dev/null
before=$(sv refresh_grants)
run race1 false "$url" call echo n=1 & r1=$!
run race2 false "$url" call echo n=2 & r2=$!
wait $r1; s1=$?
wait $r2; s2=$?
check "the first of the two succeeds (status $s1): $(tail -n 3 "$tmp/race1.err")" [ $s1 -eq 0 ]
check "the second of the two succeeds (status $s2): $(tail -n 3 "$tmp/race2.err")" [ $s2 -eq 0 ]
check "their answers" bash -c "grep -qF '{\"n\":1}' '$tmp/race1.out' && grep -qF '{\"n\":2}' '$tmp/race2.out'"
check "no refresh token used twice (refresh_reuse $(sv refresh_reuse))" [ "$(sv refresh_reuse)" = 0 ]
check "one refresh for the two ($before, then $(sv refresh_grants))" [ "$(sv refresh_grants)" = $((before + 1)) ]
check "no browser for either" [ "$(browsers)" = 1 ]
check "no token error at the server" [ "$(sv token_errors)" = 0 ]

# no secret in any output (the file does hold them: the search can find them)
n=0 leaks=0
for s in $(secrets); do
    n=$((n + 1))
    for f in "$tmp"/*.out "$tmp"/*.err; do
        case $f in *server.err) continue ;; esac
        if grep -qF "$s" "$f"; then leaks=$((leaks + 1)); echo "a secret (${s:0:6}...) is in $(basename "$f")" >&2; fi
    done
done
check "the server issued secrets to look for ($n)" [ "$n" -ge 6 ]
check "no secret in mcpc's output ($leaks found)" [ "$leaks" = 0 ]

exec 7>&-
wait "$pid"; rc=$?
pid=""
check "the server exited cleanly (status $rc)" [ $rc -eq 0 ]
echo "$pass passed, $fail failed"
[ $fail -eq 0 ]
