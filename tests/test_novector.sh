#!/usr/bin/env bash
# The string and line scanners on their other paths: mcp.h takes 64/32 bytes a step with
# GCC/Clang vector types (32-byte AVX2 vectors where an x86-64 CPU has them, else 16-byte SSE2
# or NEON ones) and falls back to 8-byte SWAR words (other compilers, or -DMCP_NO_VECTOR).
# This builds the parser tests (test_json, test_sse, test_jsonl, test_http) with -DMCP_NO_VECTOR
# (SWAR) and with -DMCP_NO_AVX2 (SSE2 on x86-64), and test_json with -DMCP__TEST_TWO_PASS_STRINGS
# (strings scanned, then copied: the parser's path when its arena block is short of room,
# otherwise taken only for errors), into $BUILD/novector/ and runs them, so every path is
# tested on every run, sanitizers included (make asan passes its flags through CFLAGS).
# Run from the repository root (make test does). Environment: CC CFLAGS LDFLAGS BUILD.
# Prints "N passed, N failed" last, one pass per program run; a run that skipped checks (test_json
# without a comma-decimal locale it can use or build) passes, and its skipped checks are summed
# into ", N skipped" (a run that skipped everything and passed nothing fails).
set -uo pipefail

CC=${CC:-cc}
CFLAGS=${CFLAGS:--std=c99 -Wall -Wextra -Wpedantic -Wshadow -Werror -O2}
LDFLAGS=${LDFLAGS:-}
data=${1:-tests/data}
out=${BUILD:-build}/novector
mkdir -p "$out"

pass=0 fail=0 skip=0
for macro in MCP_NO_VECTOR MCP_NO_AVX2 MCP__TEST_TWO_PASS_STRINGS; do
    # the parser tests need neither the authorization layer nor its compile time
    if ! $CC $CFLAGS -D$macro -DMCP_NO_AUTH -c tests/impl.c -o "$out/impl.o"; then
        echo "FAIL: tests/impl.c does not build with -D$macro"; fail=$((fail + 1)); continue
    fi
    tests="test_json test_sse test_jsonl test_http"
    [[ $macro == MCP__TEST_TWO_PASS_STRINGS ]] && tests=test_json
    for t in $tests; do
        if ! $CC $CFLAGS -D$macro -DMCP_NO_AUTH "tests/$t.c" "$out/impl.o" -o "$out/$t" $LDFLAGS -lm; then
            echo "FAIL: tests/$t.c does not build with -D$macro"; fail=$((fail + 1)); continue
        fi
        "$out/$t" "$data" >"$out/$t.out" 2>"$out/$t.err"; rc=$?
        last=$(tail -n 1 "$out/$t.out")
        if [[ $rc -eq 0 && $last =~ ^([0-9]+)\ passed,\ 0\ failed(,\ ([0-9]+)\ skipped)?$ ]] &&
           [[ ${BASH_REMATCH[1]} -gt 0 ]]; then
            echo "ok   $t with -D$macro: $last"; pass=$((pass + 1))
            skip=$((skip + ${BASH_REMATCH[3]:-0}))
            grep '^SKIPPED: ' "$out/$t.out" | sed "s/^SKIPPED: /SKIPPED: $t with -D$macro: /"
        else
            echo "FAIL $t with -D$macro: ${last:-no summary} (exit $rc; stderr in $out/$t.err)"; fail=$((fail + 1))
        fi
    done
done
if [[ $skip -ne 0 ]]; then echo "$pass passed, $fail failed, $skip skipped"; else echo "$pass passed, $fail failed"; fi
[[ $fail -eq 0 ]]
