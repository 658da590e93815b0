#!/usr/bin/env bash
# The quick starts must work as printed. Extracts
#   - the ```c block under the "Quick start" heading of README.md, and
#   - the program in section "2. QUICK START" of the doc block at the top of mcp.h,
# compiles each as C (CC, CFLAGS: the strict flags) and as C++ (CXX, CXXFLAGS), runs them and
# compares their output with the ```text block that follows the C block in README.md.
# Run from the repository root (make test does). Environment: CC CXX CFLAGS CXXFLAGS LDFLAGS
# BUILD. Prints "N passed, N failed" last.
set -uo pipefail

CC=${CC:-cc}
CXX=${CXX:-c++}
CFLAGS=${CFLAGS:--std=c99 -Wall -Wextra -Wpedantic -Wshadow -Werror -O2}
CXXFLAGS=${CXXFLAGS:--std=c++11 -Wall -Wextra -Wpedantic -Werror -O2}
LDFLAGS=${LDFLAGS:-}
out=${BUILD:-build}/readme
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

# mcp.h: the lines between the "2. QUICK START" banner and the next banner, minus the
# banner's own ==== line and the doc block's 7-space indent.
awk '
    /^ *2\. QUICK START *$/  { inqs = 1; getline; next }
    inqs && /^ *=====/       { exit }
    inqs                     { line[++n] = $0; if ($0 !~ /^ *$/) last = n }
    END                      { for (i = 1; i <= last; i++) print line[i] }
' mcp.h | sed 's/^       //' >"$out/header_quickstart.c"

for f in readme_quickstart.c header_quickstart.c expected.txt; do
    if [ -s "$out/$f" ]; then ok; else bad "could not extract $f (empty)"; fi
done
if grep -q 'int main' "$out/readme_quickstart.c" && grep -q 'int main' "$out/header_quickstart.c"
then ok; else bad "an extracted quick start has no main()"; fi

for src in readme_quickstart header_quickstart; do
    # as C, with the strict flags
    if $CC $CFLAGS -I. "$out/$src.c" -o "$out/$src" $LDFLAGS 2>"$out/$src.cc.log"; then
        ok
        if "$out/$src" >"$out/$src.out" 2>&1 && cmp -s "$out/$src.out" "$out/expected.txt"
        then ok
        else bad "$src (C) printed something else:"; diff "$out/expected.txt" "$out/$src.out" >&2
        fi
    else
        bad "$src does not compile as C with $CC $CFLAGS:"; cat "$out/$src.cc.log" >&2
    fi
    # as C++
    if $CXX $CXXFLAGS -I. -x c++ "$out/$src.c" -x none -o "$out/$src.cpp" $LDFLAGS \
        2>"$out/$src.cxx.log"; then
        ok
        if "$out/$src.cpp" >"$out/$src.cpp.out" 2>&1 && cmp -s "$out/$src.cpp.out" "$out/expected.txt"
        then ok
        else bad "$src (C++) printed something else:"; diff "$out/expected.txt" "$out/$src.cpp.out" >&2
        fi
    else
        bad "$src does not compile as C++ with $CXX $CXXFLAGS:"; cat "$out/$src.cxx.log" >&2
    fi
done

# The two quick starts are meant to be the same program.
if cmp -s "$out/readme_quickstart.c" "$out/header_quickstart.c"; then ok
else bad "README.md and mcp.h quick starts differ:"; diff "$out/header_quickstart.c" "$out/readme_quickstart.c" >&2
fi

echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
