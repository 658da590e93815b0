# Helpers of the script tests (tests/test_examples.sh, tests/test_mcpc_host.sh), sourced by them
# after they set $tmp (their temporary folder) and a run() that leaves the last command's stdout
# in $tmp/out, its stderr in $tmp/err and its exit status in $rc. Not a test itself: the Makefile
# runs tests/test_*.sh only.

pass=0 fail=0 skip=0
bad() { fail=$((fail + 1)); echo "FAILED: $*"; }
skipped() { skip=$((skip + 1)); echo "SKIPPED: $*"; }     # could not run here: counted apart
summary() { echo "$pass passed, $fail failed$([ "$skip" -gt 0 ] && echo ", $skip skipped")"; }

# check NAME STATUS [PATTERN...]: the last run exited with STATUS and its stdout matches each
# extended regex PATTERN ("err:P": stderr matches; "!P": stdout must not match; "!err:P": stderr
# must not match). One check, one pass or failure.
check() {
    local name=$1 want=$2 p
    shift 2
    if [ "$rc" != "$want" ]; then
        bad "$name: exit status $rc, expected $want"
        echo "  stdout: $(head -c 800 "$tmp/out")"; echo "  stderr: $(head -c 800 "$tmp/err")"
        return
    fi
    for p in "$@"; do
        case $p in
        err:*)  grep -qE -- "${p#err:}" "$tmp/err" || { bad "$name: stderr does not match /${p#err:}/"; echo "  stderr: $(head -c 800 "$tmp/err")"; return; } ;;
        !err:*) ! grep -qE -- "${p#!err:}" "$tmp/err" || { bad "$name: stderr matches /${p#!err:}/"; echo "  stderr: $(head -c 800 "$tmp/err")"; return; } ;;
        !*)     ! grep -qE -- "${p#!}" "$tmp/out" || { bad "$name: stdout matches /${p#!}/"; echo "  stdout: $(head -c 800 "$tmp/out")"; return; } ;;
        *)      grep -qE -- "$p" "$tmp/out" || { bad "$name: stdout does not match /$p/"; echo "  stdout: $(head -c 800 "$tmp/out")"; return; } ;;
        esac
    done
    pass=$((pass + 1))
}

# json_checker ROOT: builds $tmp/json_get on ROOT/mcp.h (CC, CFLAGS, LDFLAGS), a JSON checker:
# it reads stdin, fails unless it is JSON, and with keys (array indices as numbers) prints the
# compact JSON of the value at that path. Non-zero if it does not build.
json_checker() {
    cat >"$tmp/json_get.c" <<'EOF'
#define MCP_IMPLEMENTATION
#include "mcp.h"
#include <stdio.h>
#include <stdlib.h>
int main(int argc, char **argv) {
    static char buf[1 << 20];
    size_t n = fread(buf, 1, sizeof buf, stdin);
    mcp_error err;
    mcp_json_doc *doc = mcp_json_parse(buf, n, &err);
    const mcp_json *v = mcp_json_root(doc);
    char *text;
    int i;
    if (!doc) { fprintf(stderr, "json_get: %s\n", err.message); return 1; }
    for (i = 1; i < argc && v; i++)
        v = (argv[i][0] >= '0' && argv[i][0] <= '9') ? mcp_json_at(v, (size_t)atoi(argv[i])) : mcp_json_get(v, argv[i]);
    if (!v) { fprintf(stderr, "json_get: no value at that path\n"); return 1; }
    if (argc > 1 && (text = mcp_json_dump(v, 0, NULL)) != NULL) { puts(text); mcp_free(text); }
    mcp_json_free(doc);
    return 0;
}
EOF
    # shellcheck disable=SC2086
    ${CC:-cc} ${CFLAGS:--std=c99 -O2} -I"$1" "$tmp/json_get.c" -o "$tmp/json_get" ${LDFLAGS:-} -lm
}

# json NAME EXPECTED KEY...: the last run's stdout is JSON and the value at KEY... is EXPECTED
json() {
    local name=$1 want=$2 got
    shift 2
    if ! got=$("$tmp/json_get" "$@" <"$tmp/out" 2>&1); then bad "$name: $got"; echo "  stdout: $(head -c 800 "$tmp/out")"; return; fi
    [ "$got" = "$want" ] && pass=$((pass + 1)) || bad "$name: $* is $got, expected $want"
}
