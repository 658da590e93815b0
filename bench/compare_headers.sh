#!/usr/bin/env bash
# compare_headers.sh - an old mcp.h beside a new one: speed, system calls, allocations, footprint,
# lines per section, longest functions. The evidence issue 16 asks of a redesign.
#
#   bash bench/compare_headers.sh OLD NEW [ROUNDS]
#
# OLD and NEW: each a path to a header file, or a git revision (then `git show REV:mcp.h`).
# ROUNDS (default 5): runs of each benchmark per header.
#
# What it does, in $B/ab/ (B=build unless set; the folder is rebuilt on every run):
#   - old/ and new/: the header copy (mcp.h) and copies of bench/rpc_bench.c, bench/http_bench.c
#     (in old/bench/, so their #include "../mcp.h" finds old/mcp.h), examples/minimal.c (in
#     old/examples/) and bench/ab/stdio_loop.c, each built as the Makefile builds the benchmarks
#     (-std=c99 -Wall -Wextra -Wpedantic -Wshadow -Werror -O2 -g, -DHAVE_CJSON -lcjson when cJSON
#     is installed; rpc_bench_static with musl-gcc when it is installed). The bench sources are
#     this checkout's, for both headers.
#   - srv/: the servers the benchmarks spawn (tests/servers/*.c), built once, with the NEW
#     header, so both sides talk to the very same server binaries (MCP_TEST_SERVER,
#     MCP_TEST_HTTP_SERVER).
#   - speed: rpc_bench and http_bench, ROUNDS runs each per header, interleaved old/new in
#     alternating order (round 1 old then new, round 2 new then old, ...: a drift of the machine
#     falls on both). Every table row of their output is parsed (median us, cpu us, allocs per
#     call; calls/s with 64 in flight; client memory) and the ratios the targets use are
#     computed per run (rpc: mcp.h / raw pipe, mcp.h / raw poll; http: mcp.h->stub / raw->stub,
#     mcp.h->server / raw->server). The report gives the median over the rounds for old and new
#     and new vs old in percent ("noise": the larger of the two median absolute deviations, in
#     percent of the median: a difference below it is not one).
#   - system calls: strace (this process only, not the server it forks) on stdio_loop, the
#     blocking mcp_client_call_tool in a loop of N calls against srv/test_server; the system
#     calls between the two getppid() it makes around the loop, per system call, / N (connect,
#     warm-up and exit left out). STRACE_REPS repetitions (default 3), interleaved, median. Skipped when strace is missing or
#     cannot trace here. Whether a call needs a poll() depends on timing (is the answer there at
#     the first read?), so read/poll per call move a little between runs; write per call not.
#   - instructions per call: the client's user-space instructions per blocking call (stdio_loop
#     under callgrind, N=3000 minus N=1000): a figure the machine's load does not move.
#   - allocations per call: rpc_bench's and http_bench's own column (MCP_MALLOC hooks), and
#     stdio_loop's count (the library's malloc+realloc during the loop only).
#   - footprint: examples/minimal.c with gcc -Os against each header: .text (size -A) and size's
#     text column.
#   - lines: wc -l, lines per >>section banner of the implementation (as
#     /work/shared/hooks/layers.py counts them; its OS-call figures are added when it is there,
#     LAYERS_PY=path to name another), and the 10 longest functions (a definition whose body
#     opens with "{" at column 0 and closes with "}" at column 0).
# The report goes to stdout and to $B/ab/report.txt; progress to stderr.
#
# Environment: B (build folder), CC (default cc), BENCH_ARGS (passed to both benchmarks, e.g.
# --quick for a fast, noisy check), STRACE_N (calls in the traced loop, 2000), STRACE_REPS (3).
# A run with ROUNDS=5 took 6.5 minutes on the 2-CPU VM (rpc_bench ~20-35 s, http_bench ~8-25 s a
# run, the more the busier the machine; ROUNDS=3 took 5 minutes at a load average of 20). On a busy
# machine even HEAD against HEAD moves the within-run ratios by up to +-9% (3 rounds, load 10-20):
# a 3% verdict needs a quiet machine, or more rounds. Exit status 0 when everything was measured, 1 when a build or a run failed (the report
# says which and still gives the rest), 2 on a usage error.
set -u

usage() { echo "usage: bash bench/compare_headers.sh OLD NEW [ROUNDS]   (OLD, NEW: a header file or a git revision)" >&2; exit 2; }
[ $# -ge 2 ] && [ $# -le 3 ] || usage
OLD_SPEC=$1 NEW_SPEC=$2 ROUNDS=${3:-5}
case $ROUNDS in ''|*[!0-9]*) usage ;; esac
[ "$ROUNDS" -ge 1 ] || usage

# paths given relative to the caller's folder: resolve them before moving to the checkout
abs_if_file() { if [ -f "$1" ]; then echo "$(cd "$(dirname "$1")" && pwd)/$(basename "$1")"; else echo "$1"; fi; }
OLD_SPEC=$(abs_if_file "$OLD_SPEC"); NEW_SPEC=$(abs_if_file "$NEW_SPEC")

ROOT=$(cd "$(dirname "$0")/.." && pwd)
cd "$ROOT" || exit 2
B=${B:-build}
case $B in /*) ;; *) B=$ROOT/$B ;; esac
AB=$B/ab
CC=${CC:-cc}
WARN="-Wall -Wextra -Wpedantic -Wshadow -Werror"
CFLAGS="-std=c99 $WARN -O2 -g"
BENCH_ARGS=${BENCH_ARGS:-}
STRACE_N=${STRACE_N:-2000} STRACE_REPS=${STRACE_REPS:-3}
LAYERS_PY=${LAYERS_PY:-/work/shared/hooks/layers.py}
BENCH_CFLAGS="" BENCH_LIBS=""
if [ -f /usr/include/cjson/cJSON.h ]; then BENCH_CFLAGS="-DHAVE_CJSON"; BENCH_LIBS="-lcjson"; fi
FAILED=0
note() { echo "compare_headers: $*" >&2; }

rm -rf "$AB"
mkdir -p "$AB/old" "$AB/new" "$AB/srv/tests/servers" "$AB/runs" || exit 1

# ---- the two headers ------------------------------------------------------------------------
declare -A DESC
get_header() {   # SPEC VARIANT
    local spec=$1 v=$2 out=$AB/$2/mcp.h
    if [ -f "$spec" ]; then
        cp "$spec" "$out" || exit 1
        DESC[$v]="file $spec"
    elif git rev-parse --verify -q "$spec^{commit}" >/dev/null 2>&1; then
        git show "$spec:mcp.h" > "$out" 2>/dev/null || { note "no mcp.h in revision $spec"; exit 2; }
        DESC[$v]="revision $spec = $(git log -1 --format='%h %s' "$spec" | cut -c1-90)"
    else
        note "$spec: neither a file nor a git revision"; exit 2
    fi
    DESC[$v]="${DESC[$v]} (sha1 of the header $(sha1sum < "$out" | cut -c1-12), $(wc -l < "$out") lines)"
}
get_header "$OLD_SPEC" old
get_header "$NEW_SPEC" new
cp "$AB/new/mcp.h" "$AB/srv/mcp.h"

# ---- builds (in parallel; each logs to its own file) ----------------------------------------
note "building into $AB/ ..."
build() {   # OUTPUT LOG COMMAND...
    local out=$1 log=$2; shift 2
    "$@" > "$log" 2>&1 || { rm -f "$out"; echo "(exit $?)" >> "$log"; }
}
for v in old new; do
    d=$AB/$v
    mkdir -p "$d/bench" "$d/examples"
    cp bench/rpc_bench.c bench/http_bench.c "$d/bench/"
    cp examples/minimal.c "$d/examples/"
    cp bench/ab/stdio_loop.c "$d/"
    build "$d/rpc_bench" "$d/rpc_bench.log" $CC $CFLAGS $BENCH_CFLAGS "$d/bench/rpc_bench.c" -o "$d/rpc_bench" $BENCH_LIBS -lm &
    build "$d/http_bench" "$d/http_bench.log" $CC $CFLAGS $BENCH_CFLAGS "$d/bench/http_bench.c" -o "$d/http_bench" $BENCH_LIBS -lm &
    if command -v musl-gcc >/dev/null 2>&1; then
        build "$d/rpc_bench_static" "$d/rpc_bench_static.log" musl-gcc -std=c99 $WARN -O2 -static "$d/bench/rpc_bench.c" -o "$d/rpc_bench_static" -lm &
    fi
    build "$d/stdio_loop" "$d/stdio_loop.log" $CC $CFLAGS "$d/stdio_loop.c" -o "$d/stdio_loop" -lm &
    build "$d/minimal_Os" "$d/minimal_Os.log" $CC -std=c99 $WARN -Os "$d/examples/minimal.c" -o "$d/minimal_Os" -lm &
done
for s in tests/servers/*.c; do
    n=$(basename "$s" .c)
    cp "$s" "$AB/srv/tests/servers/"
    build "$AB/srv/$n" "$AB/srv/$n.log" $CC $CFLAGS "$AB/srv/tests/servers/$n.c" -o "$AB/srv/$n" -lm &
done
wait
BUILD_FAILS=""
for f in "$AB"/old/*.log "$AB"/new/*.log "$AB"/srv/*.log; do
    [ -x "${f%.log}" ] || { BUILD_FAILS="$BUILD_FAILS ${f%.log}"; FAILED=1; note "build failed: ${f%.log} (see $f)"; }
done
export MCP_TEST_SERVER=$AB/srv/test_server
export MCP_TEST_HTTP_SERVER=$AB/srv/http_server

# ---- awk: parse a benchmark's output into records  VARIANT \t KIND \t LABEL \t METRIC \t VALUE --
cat > "$AB/parse.awk" <<'EOF'
function num(s) { return s ~ /^-?[0-9]+(\.[0-9]+)?$/ }
function trim(s) { sub(/^[ \t]+/, "", s); sub(/[ \t]+$/, "", s); return s }
function out(kind, label, metric, value) { printf "%s\t%s\t%s\t%s\t%s\n", variant, kind, label, metric, value }
function row(group, client, med, cpu, al) {
    if (!(group in gseen)) { gseen[group] = 1; groups[++ng] = group }
    out(bench " seq", sprintf("%-23s %s", group, client), "median us", med)
    out(bench " seq", sprintf("%-23s %s", group, client), "cpu us", cpu)
    if (num(al)) out(bench " seq", sprintf("%-23s %s", group, client), "allocs/call", al)
    medv[group, client] = med
}
function ratio(group, a, b) {
    if (((group, a) in medv) && ((group, b) in medv) && medv[group, b] > 0)
        out(bench " ratio", sprintf("%-23s %s / %s", group, a, b), "ratio", medv[group, a] / medv[group, b])
}
/^sequential round trips/        { mode = "seq"; next }
/calls in flight: throughput/    { mode = "inflight"; next }
/^client memory/                 { mode = "mem"; next }
/^targets/                       { mode = "targets"; next }
/^\[[^]]+\]/                     { pl = substr($0, 2, index($0, "]") - 2); next }
bench == "rpc" && mode == "seq" && /^  [0-9]+ B / && NF >= 11 && num($(NF-4)) && num($(NF-1)) {
    client = $3; for (i = 4; i <= NF - 8; i++) client = client " " $i
    row("[" pl "] " $1 " " $2, client, $(NF-4), $(NF-1), $NF); next
}
bench == "http" && mode == "seq" && NF >= 10 && num($(NF-5)) && num($(NF-2)) && num($(NF-8)) {
    first = 1
    if ($1 ~ /^[A-Z]+$/ && num($2) && $3 == "B") { answer = $1; payload = $2 " " $3; first = 4 }
    client = $first; for (i = first + 1; i <= NF - 9; i++) client = client " " $i
    row(answer " " payload, client, $(NF-5), $(NF-2), $NF); next
}
bench == "rpc" && mode == "inflight" && /^  [0-9]+ B / && NF >= 6 && num($3) && num($4) {
    r = $6; sub(/x$/, "", r)
    out("rpc inflight", "[" pl "] " $1 " " $2, "mcp.h calls/s", $3)
    out("rpc inflight", "[" pl "] " $1 " " $2, "raw pipe calls/s", $4)
    if (num(r)) out("rpc inflight", "[" pl "] " $1 " " $2, "mcp.h/raw pipe", r)
    next
}
bench == "rpc" && mode == "mem" && /VmHWM KiB/ { build = trim(substr($0, 1, index($0, "VmHWM") - 1)); next }
bench == "rpc" && mode == "mem" && NF >= 5 && num($(NF-3)) && num($(NF-1)) {
    what = $1; for (i = 2; i <= NF - 4; i++) what = what " " $i
    out("rpc mem", "[" build "] " what, "VmHWM KiB", $(NF-3))
    if (num($NF)) out("rpc mem", "[" build "] " what, "lib heap KiB", $NF)
    next
}
END {
    for (g = 1; g <= ng; g++) {
        if (bench == "rpc") { ratio(groups[g], "mcp.h", "raw pipe"); ratio(groups[g], "mcp.h", "raw poll") }
        else { ratio(groups[g], "mcp.h->stub", "raw->stub"); ratio(groups[g], "mcp.h->server", "raw->server") }
    }
}
EOF

# ---- awk: records -> a table of medians, old beside new -------------------------------------
cat > "$AB/table.awk" <<'EOF'
function sortv(a, n,   i, j, t) { for (i = 2; i <= n; i++) { t = a[i]; for (j = i - 1; j >= 1 && a[j] > t; j--) a[j+1] = a[j]; a[j+1] = t } }
function median(key, v,   n, i, a) {
    n = cnt[key, v]; if (!n) return ""
    for (i = 1; i <= n; i++) a[i] = val[key, v, i] + 0
    sortv(a, n)
    return n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2
}
function minv(key, v,   n, i, m) {
    n = cnt[key, v]; if (!n) return ""
    m = val[key, v, 1] + 0; for (i = 2; i <= n; i++) if (val[key, v, i] + 0 < m) m = val[key, v, i] + 0
    return m
}
function mad(key, v, m,   n, i, a) {       # median absolute deviation / median, percent
    n = cnt[key, v]; if (n < 2 || m == 0) return 0
    for (i = 1; i <= n; i++) { a[i] = val[key, v, i] - m; if (a[i] < 0) a[i] = -a[i] }
    sortv(a, n)
    return 100 * (n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2) / m
}
function fmt(metric, x) {
    if (x == "") return "-"
    if (metric ~ /calls\/s|KiB/) return sprintf("%.0f", x)
    if (metric ~ /ratio|\/raw/) return sprintf("%.3fx", x)
    if (metric ~ /per call|allocs/) return sprintf("%.2f", x)
    return sprintf("%.1f", x)
}
function delta(metric, o, n) {
    if (o == "" || n == "") return "-"
    if (metric ~ /per call|allocs/) { d = n - o; if (d < 0.005 && d > -0.005) d = 0; return sprintf("%+.2f", d) }   # counts: the difference
    if (o == 0) return n == 0 ? "+0.0%" : "-"
    d = 100 * (n - o) / o; if (d < 0.05 && d > -0.05) d = 0
    return sprintf("%+.1f%%", d)
}
BEGIN { FS = "\t" }
$2 == want {
    k = $3
    if (!(k in seen)) { seen[k] = 1; keys[++nk] = k }
    if (!(($4) in mseen)) { mseen[$4] = 1; mets[++nm] = $4 }
    c = ++cnt[k SUBSEP $4, $1]; val[k SUBSEP $4, $1, c] = $5
    has[k SUBSEP $4] = 1
}
END {
    if (!nk) { print "  (nothing parsed)"; exit }
    w = 0; for (i = 1; i <= nk; i++) if (length(keys[i]) > w) w = length(keys[i])
    line = sprintf("  %-" w "s", "")
    for (j = 1; j <= nm; j++) {
        line = line sprintf(" | %-29s", mets[j] ": old  new  new/old")
        if (j == 1 && best) line = line sprintf(" | %-29s", "best of the rounds: old  new")
    }
    if (noise) line = line "  noise"
    print line
    for (i = 1; i <= nk; i++) {
        line = sprintf("  %-" w "s", keys[i]); nz = 0
        for (j = 1; j <= nm; j++) {
            key = keys[i] SUBSEP mets[j]
            if (!(key in has)) { line = line sprintf(" | %-29s", ""); continue }
            o = median(key, "old"); n = median(key, "new")
            line = line sprintf(" | %9s %9s %8s", fmt(mets[j], o), fmt(mets[j], n), delta(mets[j], o, n))
            if (j == 1 && best) { bo = minv(key, "old"); bn = minv(key, "new")
                line = line sprintf(" | %9s %9s %8s", fmt(mets[j], bo), fmt(mets[j], bn), delta(mets[j], bo, bn)) }
            if (j == 1) { a = mad(key, "old", o); b = mad(key, "new", n); nz = a > b ? a : b }
        }
        if (noise) line = line sprintf("  %4.1f%%", nz)
        print line
    }
}
EOF
table() { awk -v want="$1" -v noise="${2:-0}" -v best="${3:-0}" -f "$AB/table.awk" "$AB"/runs/*.tsv; }

# ---- speed: interleaved rounds --------------------------------------------------------------
RUN_FAILS=""
declare -A LOADS
runbench() {   # BENCH VARIANT ROUND
    local bin=$AB/$2/${1}_bench out=$AB/runs/$1.$2.$3
    [ -x "$bin" ] || return 0
    LOADS[$1.$2]="${LOADS[$1.$2]:-} $(cut -d' ' -f1 /proc/loadavg 2>/dev/null)"
    "$bin" tests/data $BENCH_ARGS > "$out.txt" 2>&1 || { RUN_FAILS="$RUN_FAILS $1.$2.$3"; FAILED=1; note "$bin failed (see $out.txt)"; }
    if grep -q 'skipped' "$out.txt"; then RUN_FAILS="$RUN_FAILS $1.$2.$3"; FAILED=1; note "$bin skipped: $(head -1 "$out.txt")"; fi
    awk -v variant="$2" -v bench="$1" -f "$AB/parse.awk" "$out.txt" > "$out.tsv"
}
T0=$(date +%s)
for r in $(seq 1 "$ROUNDS"); do
    if [ $((r % 2)) = 1 ]; then order="old new"; else order="new old"; fi
    for bench in rpc http; do
        for v in $order; do
            note "round $r/$ROUNDS: ${bench}_bench $v ($(( $(date +%s) - T0 )) s)"
            runbench "$bench" "$v" "$r"
        done
    done
done

# ---- system calls per blocking stdio call ---------------------------------------------------
STRACE_STATE=""
if ! command -v strace >/dev/null 2>&1; then
    STRACE_STATE="skipped: strace is not installed (apt-get install strace)"
elif ! strace -o /dev/null true >/dev/null 2>&1; then
    STRACE_STATE="skipped: strace cannot trace here (ptrace not permitted?)"
fi
sys_count() {   # VARIANT TRACE: records per system call, between the two getppid() markers
    awk -v variant="$1" -v n="$STRACE_N" '
        { line[NR] = $0 }
        /^getppid\(/ { if (!first) first = NR; last = NR }
        END { for (i = first + 1; i < last; i++) if (match(line[i], /^[a-z_0-9]+\(/)) {
                  name = substr(line[i], 1, RLENGTH - 1); if (line[i] ~ /= -1 EAGAIN/) name = name " (= -1 EAGAIN)"; if (!(name in c)) ord[++k] = name; c[name]++; tot++ }
              if (!first || first == last) { print "stdio_loop: no getppid markers in the trace" > "/dev/stderr"; exit 1 }
              for (j = 1; j <= k; j++) printf "%s\tsys\t%s\tper call\t%.4f\n", variant, ord[j], c[ord[j]] / n
              printf "%s\tsys\t(all system calls)\tper call\t%.4f\n", variant, tot / n }' "$2"
}
for rep in $(seq 1 "$STRACE_REPS"); do
    if [ $((rep % 2)) = 1 ]; then order="old new"; else order="new old"; fi
    for v in $order; do
        bin=$AB/$v/stdio_loop
        [ -x "$bin" ] && [ -x "$MCP_TEST_SERVER" ] || continue
        note "stdio_loop $v, repetition $rep/$STRACE_REPS"
        o=$AB/runs/loop.$v.$rep
        # allocations: counted inside the program, over the loop only
        if "$bin" "$MCP_TEST_SERVER" "$STRACE_N" > "$o.allocs" 2>&1; then
            awk -v variant="$v" '$1 == "calls" { printf "%s\tloop\tstdio_loop: mcp_client_call_tool echo {\"msg\":\"hello\"}\tallocs/call\t%s\n", variant, $6 }' "$o.allocs" > "$o.a.tsv"
        else
            RUN_FAILS="$RUN_FAILS loop.$v.$rep"; FAILED=1; note "$bin failed (see $o.allocs)"
        fi
        [ -z "$STRACE_STATE" ] || continue
        if strace -o "$o.trace" "$bin" "$MCP_TEST_SERVER" "$STRACE_N" >/dev/null 2>&1 &&
           sys_count "$v" "$o.trace" > "$o.s.tsv"; then
            gzip -f "$o.trace"
        else
            RUN_FAILS="$RUN_FAILS strace.$v.$rep"; FAILED=1; note "strace of $bin failed"
        fi
    done
done

# ---- instructions per blocking stdio call: callgrind, deterministic where timing is not ------
# The client's user-space instructions per call: stdio_loop with N=1000 and N=3000 under
# callgrind (this process only, not the server), (I3 - I1) / 2000, so connect, warm-up and exit
# cancel out. The same loop the system calls are counted on; it does not move with the machine's
# load as the timings do (only the few instructions of a poll() that had to wait).
INSN=""
cg_insns() {   # BINARY N -> instructions collected
    valgrind --tool=callgrind --callgrind-out-file=/dev/null "$1" "$MCP_TEST_SERVER" "$2" 2>&1 |
        sed -n 's/.*Collected : *//p'
}
if command -v valgrind >/dev/null 2>&1; then
    for v in old new; do
        bin=$AB/$v/stdio_loop
        [ -x "$bin" ] && [ -x "$MCP_TEST_SERVER" ] || continue
        note "callgrind: stdio_loop $v"
        i1=$(cg_insns "$bin" 1000); i3=$(cg_insns "$bin" 3000)
        if [ -n "$i1" ] && [ -n "$i3" ]; then eval "INSN_$v=$(( (i3 - i1) / 2000 ))"
        else RUN_FAILS="$RUN_FAILS callgrind.$v"; FAILED=1; note "callgrind of $bin failed"; fi
    done
else
    INSN="not measured: valgrind is not installed"
fi

# ---- footprint, lines, functions ------------------------------------------------------------
text_size() { [ -x "$1" ] && size -A "$1" | awk '$1 == ".text" { print $2 }'; }
berkeley() { [ -x "$1" ] && size "$1" | awk 'NR == 2 { print $1 " " $2 " " $3 }'; }

sections() {   # HEADER: "name lines" per section, as layers.py counts them
    awk '
        !impl && (/^#[ \t]*define[ \t]+MCP_IMPLEMENTATION_ONCE/) { impl = NR }
        { line[NR] = $0 }
        END {
            if (!impl) for (i = 1; i <= NR; i++) if (line[i] ~ /^#[ \t]*ifdef[ \t]+MCP_IMPLEMENTATION([^A-Za-z0-9_]|$)/) { impl = i; break }
            if (!impl) { print "(no-implementation-part) " NR; exit }
            print "(declarations+docs) " impl - 1
            for (i = impl; i <= NR; i++) if (match(line[i], /^[ \t]?[ \t]?[ \t]?[ \t]?>>[a-z][a-z0-9_.]*/)) {
                s = substr(line[i], RSTART, RLENGTH); sub(/^[ \t]*/, "", s); at[++n] = i; nm[n] = s }
            if (!n) print "(implementation) " NR - impl + 1
            else if (at[1] > impl) print "(implementation-before-the-first-banner) " at[1] - impl
            for (k = 1; k <= n; k++) print nm[k] " " ((k < n ? at[k + 1] : NR + 1) - at[k])
        }' "$1"
}
functions() {   # HEADER: "lines name" for every function definition, longest first
    awk '
        /^[A-Za-z_]/ && !inf {
            if (/\(/ && !/;[ \t]*$/ && !/^(typedef|struct|union|enum)[ \t]/) { sig = $0; sigl = NR } else sig = ""
        }
        /^\{/ && !inf && sig != "" {
            p = index(sig, "("); head = substr(sig, 1, p - 1)
            if (p && head !~ /=/) { sub(/[ \t]+$/, "", head); n = split(head, w, /[ \t*]+/); name = w[n]; inf = 1; start = sigl }
            next
        }
        /^\}/ && inf { printf "%d %s\n", NR - start + 1, name; inf = 0; sig = "" }
    ' "$1" | sort -k1,1nr -k2,2
}

# ---- the report ---------------------------------------------------------------------------
{
echo "compare_headers: old vs new mcp.h ($(date -u '+%Y-%m-%d %H:%M UTC'), $(uname -srm), $(nproc) CPUs, $($CC --version | head -1))"
echo "  old: ${DESC[old]}"
echo "  new: ${DESC[new]}"
echo "  rounds: $ROUNDS per benchmark per header, interleaved (odd rounds old first, even rounds new first)${BENCH_ARGS:+; benchmark arguments: $BENCH_ARGS}"
echo "  servers: $AB/srv/ (tests/servers/*.c built with the new header, the same binaries for both)"
[ -z "$BUILD_FAILS" ] || echo "  BUILD FAILED:$BUILD_FAILS (logs beside them; what they would measure is missing below)"
[ -z "$RUN_FAILS" ] || echo "  RUN FAILED:$RUN_FAILS (outputs in $AB/runs/)"
echo "  the machine: 1-minute load average at the start of each run, rounds in order (this script's own"
echo "  benchmark adds about 2; a busy spell moves the absolute figures of its rounds, the within-run"
echo "  ratios much less: judge \"within 3%\" on the ratio tables, and on a run whose loads stay low):"
for k in rpc.old rpc.new http.old http.new; do echo "    $k:${LOADS[$k]:- -}"; done
echo "  (noise: median absolute deviation of the first column over the rounds, % of its median, the"
echo "  larger of old and new; best: the fastest round, which a slow spell cannot make faster)"
echo
echo "== rpc_bench (stdio): sequential round trips, medians over the rounds"
table "rpc seq" 1 1
echo "-- ratios within each run (the issue-4 target: mcp.h / raw pipe), median over the rounds"
table "rpc ratio" 1
echo "-- 64 calls in flight"
table "rpc inflight" 1
echo "-- client memory"
table "rpc mem"
echo
echo "== http_bench (loopback HTTP/1.1): sequential round trips, medians over the rounds"
table "http seq" 1 1
echo "-- ratios within each run (the issue-5 target: mcp.h->stub / raw->stub), median over the rounds"
table "http ratio" 1
echo
echo "== system calls per blocking stdio call (strace, the client process only, the N=$STRACE_N calls of the loop"
echo "   between two getppid() markers, / N; median of $STRACE_REPS runs; new/old: the difference)"
if [ -n "$STRACE_STATE" ]; then echo "  $STRACE_STATE"; else table "sys"; fi
echo
echo "== client instructions per blocking stdio call (callgrind: stdio_loop N=3000 minus N=1000, / 2000)"
if [ -n "$INSN" ]; then echo "  $INSN"
elif [ -n "${INSN_old:-}" ] && [ -n "${INSN_new:-}" ]; then
    printf "  old %d  new %d  new/old %+.1f%%\n" "$INSN_old" "$INSN_new" "$(awk -v a="$INSN_old" -v b="$INSN_new" 'BEGIN { print 100 * (b - a) / a }')"
else echo "  not measured (see RUN FAILED above)"; fi
echo
echo "== allocations per call (the library's MCP_MALLOC + MCP_REALLOC; new/old: the difference)"
table "loop"
echo "  (rpc_bench and http_bench: the allocs/call column above)"
echo
echo "== footprint: examples/minimal.c, $CC -std=c99 -Os"
to=$(text_size "$AB/old/minimal_Os"); tn=$(text_size "$AB/new/minimal_Os")
bo=$(berkeley "$AB/old/minimal_Os"); bn=$(berkeley "$AB/new/minimal_Os")
if [ -n "$to" ] && [ -n "$tn" ]; then
    printf "  .text (size -A)        old %8d  new %8d  new-old %+7d bytes (%+.1f%%)\n" "$to" "$tn" $((tn - to)) "$(awk -v a="$to" -v b="$tn" 'BEGIN { print 100 * (b - a) / a }')"
    printf "  size: text data bss    old %-22s new %-22s\n" "$bo" "$bn"
else
    echo "  not measured: a build of minimal.c failed (see $AB/*/minimal_Os.log)"
fi
echo
echo "== lines: wc -l old $(wc -l < "$AB/old/mcp.h")  new $(wc -l < "$AB/new/mcp.h")  new-old $(( $(wc -l < "$AB/new/mcp.h") - $(wc -l < "$AB/old/mcp.h") ))"
sections "$AB/old/mcp.h" > "$AB/sections.old"; sections "$AB/new/mcp.h" > "$AB/sections.new"
awk 'FNR == NR { o[$1] = $2; if (!($1 in seen)) { seen[$1] = 1; ord[++n] = $1 }; next }
     { nw[$1] = $2; if (!($1 in seen)) { seen[$1] = 1; ord[++n] = $1 } }
     END { printf "  %-40s %7s %7s %8s\n", "section (>>banner)", "old", "new", "new-old"
           for (i = 1; i <= n; i++) { k = ord[i]
               printf "  %-40s %7s %7s %8s\n", k, (k in o) ? o[k] : "-", (k in nw) ? nw[k] : "-",
                      ((k in o) && (k in nw)) ? sprintf("%+d", nw[k] - o[k]) : ((k in nw) ? "new" : "gone") } }' \
    "$AB/sections.old" "$AB/sections.new"
if [ -f "$LAYERS_PY" ] && command -v python3 >/dev/null 2>&1; then
    echo "-- $LAYERS_PY (OS calls and transport-kind branches per section)"
    for v in old new; do echo "  $v:"; python3 "$LAYERS_PY" "$AB/$v/mcp.h" | sed 's/^/  /'; done
fi
echo
echo "== the 10 longest functions (lines, from the signature to the closing brace)"
functions "$AB/old/mcp.h" > "$AB/functions.old"; functions "$AB/new/mcp.h" > "$AB/functions.new"
printf "  %-44s | %s\n" "old" "new (old's length of the same name)"
paste -d'|' <(head -10 "$AB/functions.old") <(head -10 "$AB/functions.new") |
awk -F'|' -v oldf="$AB/functions.old" '
    BEGIN { while ((getline l < oldf) > 0) { split(l, w, " "); if (!(w[2] in ol)) ol[w[2]] = w[1] } }
    { split($1, a, " "); split($2, b, " ")
      printf "  %5s %-38s | %5s %-38s (%s)\n", a[1], a[2], b[1], b[2], (b[2] in ol) ? ol[b[2]] : "not in old" }'
echo "  functions: old $(wc -l < "$AB/functions.old"), new $(wc -l < "$AB/functions.new")"
echo
echo "raw outputs: $AB/runs/; this report: $AB/report.txt"
} | tee "$AB/report.txt"
exit $FAILED
