#!/usr/bin/env bash
# The quick starts must work as printed. Extracts
#   - the ```c block under the "Quick start" heading of README.md and the ```text block after
#     it (the expected output), and
#   - the program in section "2. QUICK START" of the doc block at the top of mcp.h (the title
#     between two ===== lines, any case; the CONTENTS entry does not count): the first
#     run of lines indented 6 or more columns in that section (blank lines inside included,
#     a less indented line ends it), minus the indentation of its first line; a second such
#     run, when there is one, is the output the doc block shows, and must equal README.md's
#     ```text block,
# requires the two programs to be identical, compiles each as C (CC, CFLAGS: the strict flags)
# and as C++ (CXX, CXXFLAGS), runs each with "$BUILD/demo_server" as its argument (the quick
# start is an MCP client; `make` builds the demo server) and compares what it prints with the
# expected output, byte for byte.
# Run from the repository root (make test does). Environment: CC CXX CFLAGS CXXFLAGS LDFLAGS
# BUILD. Prints "N passed, N failed" last.
set -uo pipefail

CC=${CC:-cc}
CXX=${CXX:-c++}
CFLAGS=${CFLAGS:--std=c99 -Wall -Wextra -Wpedantic -Wshadow -Werror -O2}
CXXFLAGS=${CXXFLAGS:--std=c++11 -Wall -Wextra -Wpedantic -Werror -O2}
LDFLAGS=${LDFLAGS:-}
build=${BUILD:-build}
server=$build/demo_server
out=$build/readme
mkdir -p "$out"

pass=0 fail=0
ok()  { pass=$((pass + 1)); }
bad() { fail=$((fail + 1)); echo "FAILED: $*" >&2; }

# README.md: the first ```c block in the "Quick start" section (up to the next heading) and
# the first ```text block after it, the expected output.
readme_block() {   # $1: c or text
    awk -v want="$1" '
        /^```/ && infence       { infence = 0; if (grab) exit; next }
        /^```/                  { infence = 1
                                  if (inqs && $0 ~ "^```" want " *$" && (want == "c" || seen_c)) grab = 1
                                  if ($0 ~ /^```c *$/) seen_c = 1
                                  next }
        infence                 { if (grab) print; next }
        /^#+ *Quick start *$/   { inqs = 1; next }
        /^#/                    { inqs = 0 }
    ' README.md
}
readme_block c >"$out/readme_quickstart.c"
readme_block text >"$out/expected.txt"

# mcp.h: run number $1 (1: the program, 2: its output) of indented lines in section 2.
header_block() {
    awk -v want="$1" '
        function indent(s) { match(s, /^ */); return RLENGTH }
        !inqs                   { if (banner && toupper($0) ~ /^ *2\. *QUICK START *$/) {
                                      inqs = 1; getline; next     # skip the closing =====
                                  }
                                  banner = ($0 ~ /^ *=====/); next }
        /^ *=====/ || /^\*\//   { exit }
        /^ *$/                  { if (inrun && run == want) line[++n] = ""; next }
        indent($0) >= 6         { if (!inrun) { inrun = 1; run++; base = indent($0) }
                                  if (run == want) { line[++n] = substr($0, base + 1); last = n }
                                  next }
                                { if (inrun && run == want) exit; inrun = 0 }
        END                     { for (i = 1; i <= last; i++) print line[i] }
    ' mcp.h
}
header_block 1 >"$out/header_quickstart.c"
header_block 2 >"$out/header_output.txt"

for f in readme_quickstart.c header_quickstart.c expected.txt; do
    if [ -s "$out/$f" ]; then ok; else bad "could not extract $f (empty)"; fi
done
if grep -q 'int main' "$out/readme_quickstart.c" && grep -q 'int main' "$out/header_quickstart.c"
then ok; else bad "an extracted quick start has no main()"; fi
if [ -x "$server" ]; then ok; else bad "$server is missing (make builds it); the quick start runs it"; fi

run_one() {   # $1: executable, $2: label
    if "$1" "$server" >"$1.out" 2>&1 && cmp -s "$1.out" "$out/expected.txt"; then ok
    else bad "$2 printed something else:"; diff "$out/expected.txt" "$1.out" >&2
    fi
}

for src in readme_quickstart header_quickstart; do
    # as C, with the strict flags
    if $CC $CFLAGS -I. "$out/$src.c" -o "$out/$src" $LDFLAGS 2>"$out/$src.cc.log"; then
        ok
        run_one "$out/$src" "$src (C)"
    else
        bad "$src does not compile as C with $CC $CFLAGS:"; cat "$out/$src.cc.log" >&2
    fi
    # as C++
    if $CXX $CXXFLAGS -I. -x c++ "$out/$src.c" -x none -o "$out/$src.cpp" $LDFLAGS \
        2>"$out/$src.cxx.log"; then
        ok
        run_one "$out/$src.cpp" "$src (C++)"
    else
        bad "$src does not compile as C++ with $CXX $CXXFLAGS:"; cat "$out/$src.cxx.log" >&2
    fi
done

# The two quick starts are meant to be the same program, printing the same output.
if cmp -s "$out/readme_quickstart.c" "$out/header_quickstart.c"; then ok
else bad "README.md and mcp.h quick starts differ (README.md's is the reference: copy it into section 2 of mcp.h's doc block, indented by 7):"
     diff "$out/header_quickstart.c" "$out/readme_quickstart.c" >&2
fi
if [ -s "$out/header_output.txt" ]; then
    if cmp -s "$out/header_output.txt" "$out/expected.txt"; then ok
    else bad "the output shown in mcp.h's section 2 differs from README.md's:"
         diff "$out/header_output.txt" "$out/expected.txt" >&2
    fi
fi

echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
