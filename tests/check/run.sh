#!/usr/bin/env bash
# make check: compile mcp.h with every compiler and build option, warnings as errors.
#
#   tests/check/run.sh [OUT_DIR]        (run from the repository root; default build/check)
#
# For each compiler and each variant, two modes:
#   decl  api.c without the implementation, linked with impl.c (which has it), then run.
#         For MCP_STATIC this is a negative check: its functions are static, so a file with
#         MCP_STATIC must also define MCP_IMPLEMENTATION, and the header stops with #error.
#   impl  api.c as a whole program with MCP_IMPLEMENTATION, then run; with MCP_STATIC,
#         linked with second.c, a second private copy of the library.
# Then the negative check: defining only some of MCP_MALLOC/MCP_REALLOC/MCP_FREE must stop
# the compile with the header's #error; last, examples/mcpc.c built as one file. One line per
# combination; exit 1 if any failed.
set -uo pipefail

out=${1:-build/check}
src=tests/check
mkdir -p "$out"

C_STRICT="-std=c99 -Wall -Wextra -Wpedantic -Wshadow -Werror -O2"
CXX_STRICT="-std=c++11 -Wall -Wextra -Wpedantic -Werror -O2"

# name | compiler | flags for compiling one .c file | flags for linking
compilers=(
    "gcc|gcc|$C_STRICT|"
    "clang|clang|$C_STRICT|"
    "g++|g++|-x c++ $CXX_STRICT|"
    "clang++|clang++|-x c++ $CXX_STRICT|"
    "tcc|tcc|-Wall -Werror|"
    "musl|musl-gcc|-static $C_STRICT|-static"
)
# name | -D options
variants=(
    "default|"
    "MCP_STATIC|-DMCP_STATIC"
    "MCP_NO_STDIO|-DMCP_NO_STDIO"
    "MCP_NO_HTTP|-DMCP_NO_HTTP"
    "NO_STDIO+NO_HTTP|-DMCP_NO_STDIO -DMCP_NO_HTTP"
    "MCP_NO_AUTH|-DMCP_NO_AUTH"
    "NO_STDIO+NO_HTTP+NO_AUTH|-DMCP_NO_STDIO -DMCP_NO_HTTP -DMCP_NO_AUTH"
    "MCP_NO_HOST|-DMCP_NO_HOST"
    "NO_AUTH+NO_HOST|-DMCP_NO_AUTH -DMCP_NO_HOST"
    "NO_STDIO+NO_HTTP+NO_AUTH+NO_HOST|-DMCP_NO_STDIO -DMCP_NO_HTTP -DMCP_NO_AUTH -DMCP_NO_HOST"
    "alloc_hooks|-DCHECK_HOOKS"
)
# partial hook definitions that must fail
partial=(
    "only MCP_MALLOC|-DMCP_MALLOC(sz,ctx)=malloc(sz)"
    "only MCP_REALLOC|-DMCP_REALLOC(p,sz,ctx)=realloc(p,sz)"
    "only MCP_FREE|-DMCP_FREE(p,ctx)=free(p)"
    "MALLOC+FREE, no REALLOC|-DMCP_MALLOC(sz,ctx)=malloc(sz) -DMCP_FREE(p,ctx)=free(p)"
)

log=""

report() {   # $1: 0 ok / else failed; $2: label
    if [ "$1" -eq 0 ]; then
        printf 'ok    %s\n' "$2"
    else
        printf 'FAIL  %s\n' "$2"
        sed 's/^/      | /' "$log" | tail -n 25
    fi
}

# cc_one NAME CC CFLAGS DEFS OBJ SOURCE: compile one file to an object, output to $log
cc_one() {
    # shellcheck disable=SC2086
    $2 $3 $4 -c "$6" -o "$5" >>"$log" 2>&1
}

check_compiler() {   # one compiler, every combination; prints one line per combination
    local cname=$1 cc=$2 cflags=$3 ldflags=$4 v vname defs dir mode rc objs extra p pname
    if ! command -v "$cc" >/dev/null 2>&1; then
        printf 'FAIL  %-8s not installed (%s)\n' "$cname" "$cc"
        return
    fi
    for v in "${variants[@]}"; do
        IFS='|' read -r vname defs <<<"$v"
        dir=$out/$cname/$vname
        mkdir -p "$dir"
        for mode in decl impl; do
            log=$dir/$mode.log
            : >"$log"
            rc=0
            if [ "$mode" = decl ] && [ "$vname" = MCP_STATIC ]; then
                # shellcheck disable=SC2086
                if $cc $cflags $defs -c $src/api.c -o "$dir/api.o" >>"$log" 2>&1; then
                    echo "compiled, but the header should have stopped with #error" >>"$log"; rc=1
                elif ! grep -q 'MCP_STATIC gives this file a private copy' "$log"; then
                    echo "failed, but not with the header's #error" >>"$log"; rc=1
                fi
                report $rc "$(printf '%-8s %-5s %s without MCP_IMPLEMENTATION is an #error' "$cname" "neg" "$vname")"
                continue
            elif [ "$mode" = decl ]; then
                cc_one "$cname" "$cc" "$cflags" "$defs" "$dir/api.o" $src/api.c &&
                cc_one "$cname" "$cc" "$cflags" "$defs" "$dir/impl.o" $src/impl.c &&
                $cc $ldflags "$dir/api.o" "$dir/impl.o" -o "$dir/decl" >>"$log" 2>&1 &&
                "$dir/decl" >>"$log" 2>&1 || rc=1
            else
                objs="$dir/api_impl.o"
                extra=""
                if [ "$vname" = MCP_STATIC ]; then
                    extra="-DCHECK_STATIC"
                    objs="$objs $dir/second.o"
                    cc_one "$cname" "$cc" "$cflags" "$defs -DMCP_IMPLEMENTATION" "$dir/second.o" \
                        $src/second.c || rc=1
                fi
                if [ $rc -eq 0 ]; then
                    # shellcheck disable=SC2086
                    cc_one "$cname" "$cc" "$cflags" "$defs $extra -DMCP_IMPLEMENTATION" \
                        "$dir/api_impl.o" $src/api.c &&
                    $cc $ldflags $objs -o "$dir/impl" >>"$log" 2>&1 &&
                    "$dir/impl" >>"$log" 2>&1 || rc=1
                fi
            fi
            report $rc "$(printf '%-8s %-5s %s' "$cname" "$mode" "$vname")"
        done
    done
    for p in "${partial[@]}"; do
        IFS='|' read -r pname defs <<<"$p"
        log=$out/$cname/partial_hooks.log
        : >"$log"
        # shellcheck disable=SC2086
        if $cc $cflags $defs -c $src/impl.c -o "$out/$cname/partial.o" >>"$log" 2>&1; then
            echo "compiled, but the header should have stopped with #error" >>"$log"
            rc=1
        elif grep -q 'Must define all or none of MCP_MALLOC' "$log"; then
            rc=0
        else
            echo "failed, but not with the header's #error" >>"$log"
            rc=1
        fi
        report $rc "$(printf '%-8s %-5s %s is an #error' "$cname" "neg" "$pname")"
    done
}

# The compilers run in parallel; their lines are printed in order once all are done.
for c in "${compilers[@]}"; do
    IFS='|' read -r cname cc cflags ldflags <<<"$c"
    mkdir -p "$out/$cname"
    check_compiler "$cname" "$cc" "$cflags" "$ldflags" >"$out/$cname.lines" 2>&1 &
done
wait
cat_lines() { for c in "${compilers[@]}"; do cat "$out/${c%%|*}.lines"; done; }
cat_lines
total=$(cat_lines | grep -cE '^(ok|FAIL) ')
failed=$(cat_lines | grep -cE '^FAIL ')
skipped=$(cat_lines | grep -cE '^skip ')
expected=$(( ${#compilers[@]} * (${#variants[@]} * 2 + ${#partial[@]}) ))
if [ "$failed" -eq 0 ] && [ $((total + skipped)) -ne "$expected" ]; then
    echo "CHECK FAILED: $((total + skipped)) combinations reported, $expected expected"
    exit 1
fi

# mcpc as one file, as the README builds it (the Makefile links it with build/impl.o instead):
# with its own copy of the implementation, and with the TLS hook's where OpenSSL is installed
mcpc_one() {   # $1: label; the rest: extra compiler flags and libraries
    local label=$1
    shift
    if gcc $C_STRICT -o "$out/mcpc_one" examples/mcpc.c "$@" -lm >"$out/mcpc_one.log" 2>&1 &&
       "$out/mcpc_one" --help >/dev/null 2>>"$out/mcpc_one.log"; then
        printf 'ok    %s\n' "mcpc as one file ($label)"
    else
        printf 'FAIL  %s\n' "mcpc as one file ($label)"
        sed 's/^/      | /' "$out/mcpc_one.log" | tail -n 25
        failed=$((failed + 1))
    fi
    total=$((total + 1))
}
mcpc_one "cc -O2 examples/mcpc.c"
if [ -e /usr/include/openssl/ssl.h ]; then mcpc_one "with -DMCPC_OPENSSL" -DMCPC_OPENSSL -lssl -lcrypto
else printf 'skip  %s\n' "mcpc as one file (with -DMCPC_OPENSSL): no OpenSSL headers"; skipped=$((skipped + 1)); fi

if [ "$failed" -ne 0 ]; then
    echo "CHECK FAILED: $failed of $total combinations"
    exit 1
fi
echo "CHECK PASSED: all $total combinations ($skipped not applicable, listed as skip)"
