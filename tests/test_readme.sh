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
# Then it checks that what README.md says elsewhere is still true of the code:
#   - every mcp_* and MCP_* name it uses exists in mcp.h (a name ending in _ is a prefix);
#   - every desc.FIELD is a member of mcp_client_desc, every o.FIELD one of mcp_call_opts;
#   - every `make TARGET` it names is a target of the Makefile;
#   - every examples/, tests/ and bench/ path it names exists;
#   - every option in the mcpc usage block (the ```text block after "## mcpc") appears in
#     `$BUILD/mcpc --help`, and every line of its ```sh blocks that runs
#     `build/mcpc build/demo_server ...` succeeds (run with $BUILD's mcpc and demo server);
#   - the figures it gives for the header ("N lines, N bytes" in What it costs) are within
#     10% of `wc -l mcp.h` and `wc -c mcp.h`, and the number of test programs it gives
#     ("(N programs and scripts") is what `make test` runs: tests/test_*.c, standalone_*.c,
#     test_*.cpp twice, tls_test.c (built where OpenSSL's headers are; README.md gives the
#     count with it) and tests/test_*.sh.
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
    # -O0: the implementation is built with the strict flags at -O2 elsewhere in make test;
    # here it is the README's program that must compile, and -O2 would double the time
    if $CC $CFLAGS -O0 -I. "$out/$src.c" -o "$out/$src" $LDFLAGS 2>"$out/$src.cc.log"; then
        ok
        run_one "$out/$src" "$src (C)"
    else
        bad "$src does not compile as C with $CC $CFLAGS:"; cat "$out/$src.cc.log" >&2
    fi
    # as C++
    if $CXX $CXXFLAGS -O0 -I. -x c++ "$out/$src.c" -x none -o "$out/$src.cpp" $LDFLAGS \
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

# ---- the rest of README.md against the code ------------------------------------------------

# mcp_* and MCP_* names: each must occur in mcp.h as a whole word (a prefix: at a word start)
missing=""
for id in $(grep -oE '\b(mcp|MCP)_[A-Za-z0-9_]*' README.md | sort -u); do
    case $id in
    *_) grep -qE "(^|[^A-Za-z0-9_])$id" mcp.h || missing="$missing $id" ;;
    *)  grep -qw -- "$id" mcp.h || missing="$missing $id" ;;
    esac
done
if [ -z "$missing" ]; then ok; else bad "README.md names what mcp.h does not have:$missing"; fi

# desc.FIELD and o.FIELD: members of mcp_client_desc and mcp_call_opts
struct_body() {   # $1: the struct's name
    awk -v n="$1" '$0 ~ "typedef struct " n " *[{]" { on = 1 } on { print } on && $0 ~ "^} *" n ";" { exit }' mcp.h
}
check_fields() {   # $1: prefix in README.md, $2: struct name
    local body miss="" f
    body=$(struct_body "$2" | sed 's,/\*[^*]*\*/,,g; s,/\*.*,,')
    if [ -z "$body" ]; then bad "mcp.h has no typedef struct $2"; return; fi
    for f in $(grep -oE "(^|[^A-Za-z0-9_.>])$1\.[a-z_]+" README.md | sed "s/.*$1\.//" | sort -u); do
        grep -qw -- "$f" <<<"$body" || miss="$miss $1.$f"
    done
    if [ -z "$miss" ]; then ok; else bad "README.md uses fields $2 does not have:$miss"; fi
}
check_fields desc mcp_client_desc
check_fields o mcp_call_opts

# `make TARGET`: a target of the Makefile
missing=""
for t in $(grep -oE '`make [a-z][a-z-]*' README.md | sed 's/`make //' | sort -u); do
    grep -qE "^$t:|^\.PHONY:.* $t( |$)" Makefile || missing="$missing $t"
done
if [ -z "$missing" ]; then ok; else bad "README.md names make targets the Makefile does not have:$missing"; fi

# paths in the repository
missing=""
for p in $(grep -oE '\b(examples|tests|bench)/[A-Za-z0-9_./-]*[A-Za-z0-9_]' README.md | sort -u); do
    [ -e "$p" ] || missing="$missing $p"
done
if [ -z "$missing" ]; then ok; else bad "README.md names files that do not exist:$missing"; fi

# mcpc: the usage block's options are in --help, the sh lines against the demo server succeed
mcpc=$build/mcpc
usage=$(awk '/^## mcpc/ { on = 1; next } on && /^## / { exit }
             on && /^```text/ { inb = 1; next } inb && /^```/ { exit } inb { print }' README.md)
if [ -z "$usage" ]; then bad "no \`\`\`text block (mcpc's usage) under '## mcpc' in README.md"
elif [ ! -x "$mcpc" ]; then bad "$mcpc is missing (make builds it); README.md's mcpc lines need it"
else
    help=$("$mcpc" --help 2>&1)
    missing=""
    for o in $(grep -oE '(^|[ ,(])--?[A-Za-z][A-Za-z-]*' <<<"$usage" | sed 's/^[ ,(]//' | sort -u); do
        grep -qe "$o\b" <<<"$help" || missing="$missing $o"
    done
    if [ -z "$missing" ]; then ok; else bad "README.md's mcpc usage names options mcpc --help does not:$missing"; fi
    n=0
    while IFS= read -r line; do
        n=$((n + 1))
        rest=${line#build/mcpc }
        # split into words as a shell would, quotes included (the line is README.md's own text)
        if eval "set -- $rest" 2>/dev/null; then
            args=()
            for a in "$@"; do
                if [ "$a" = build/demo_server ]; then args+=("$build/demo_server"); else args+=("$a"); fi
            done
            if timeout 20 "$mcpc" "${args[@]}" </dev/null >"$out/mcpc.$n.out" 2>&1; then ok
            else bad "README.md's '$line' failed (exit $?):"; cat "$out/mcpc.$n.out" >&2
            fi
        else bad "README.md's '$line' is not a shell command line"
        fi
    done < <(awk '/^```sh/ { on = 1; next } on && /^```/ { on = 0 } on' README.md |
             sed 's/[[:space:]]*#.*$//' | grep -E '^build/mcpc( .*)? build/demo_server( |$)')
    [ "$n" -gt 0 ] || bad "README.md's \`\`\`sh blocks have no 'build/mcpc ... build/demo_server' line to run"
fi

# figures: the header's size, the number of test programs
lines=$(wc -l <mcp.h) bytes=$(wc -c <mcp.h)
said=$(grep -oE '[0-9,]+ lines, [0-9,]+ bytes' README.md | head -n 1 | tr -d ,)
if [ -z "$said" ]; then bad "README.md gives no 'N lines, N bytes' for mcp.h"
else
    sl=${said%% lines*} sb=${said#* lines }; sb=${sb%% bytes}
    if awk -v a="$sl" -v b="$lines" -v c="$sb" -v d="$bytes" \
        'BEGIN { exit !(a >= 0.9 * b && a <= 1.1 * b && c >= 0.9 * d && c <= 1.1 * d) }'
    then ok
    else bad "README.md says mcp.h is $sl lines, $sb bytes; it is $lines lines, $bytes bytes (wc)"
    fi
fi
count() { local n=0 f; for f in "$@"; do [ -e "$f" ] && n=$((n + 1)); done; echo "$n"; }
ntests=$(( $(count tests/test_*.c) + $(count tests/standalone_*.c) + 2 * $(count tests/test_*.cpp) \
         + $(count tests/test_*.sh) ))
[ -f tests/tls_test.c ] && ntests=$((ntests + 1))   # built where OpenSSL's headers are
said=$(grep -oE '\(([0-9]+) programs and scripts' README.md | head -n 1 | tr -dc 0-9)
if [ "$said" = "$ntests" ]; then ok
else bad "README.md says make test runs '${said:-?}' programs and scripts; it runs $ntests here"
fi

echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
