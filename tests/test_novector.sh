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
# Prints "N passed, N failed" last.
set -uo pipefail

CC=${CC:-cc}
CFLAGS=${CFLAGS:--std=c99 -Wall -Wextra -Wpedantic -Wshadow -Werror -O2}
LDFLAGS=${LDFLAGS:-}
data=${1:-tests/data}
out=${BUILD:-build}/novector
mkdir -p "$out"

pass=0 fail=0
for macro in MCP_NO_VECTOR MCP_NO_AVX2 MCP__TEST_TWO_PASS_STRINGS; do
    if ! $CC $CFLAGS -D$macro -c tests/impl.c -o "$out/impl.o"; then
        echo "FAIL: tests/impl.c does not build with -D$macro"; fail=$((fail + 1)); continue
    fi
    tests="test_json test_sse test_jsonl test_http"
    [[ $macro == MCP__TEST_TWO_PASS_STRINGS ]] && tests=test_json
    for t in $tests; do
        if ! $CC $CFLAGS -D$macro "tests/$t.c" "$out/impl.o" -o "$out/$t" $LDFLAGS -lm; then
            echo "FAIL: tests/$t.c does not build with -D$macro"; fail=$((fail + 1)); continue
        fi
        last=$("$out/$t" "$data" 2>"$out/$t.err" | tail -n 1); rc=$?
        if [[ $rc -eq 0 && $last =~ ^([0-9]+)\ passed,\ 0\ failed$ ]]; then
            echo "ok   $t with -D$macro: $last"; pass=$((pass + 1))
        else
            echo "FAIL $t with -D$macro: ${last:-no summary} (exit $rc; stderr in $out/$t.err)"; fail=$((fail + 1))
        fi
    done
done
echo "$pass passed, $fail failed"
[[ $fail -eq 0 ]]
