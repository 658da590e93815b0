#!/usr/bin/env bash
# Run test programs and report one line each plus a summary; exit non-zero if any failed.
#
#   tests/run_tests.sh DATA_DIR PROGRAM...
#
# A PROGRAM is a test binary (run as `PROGRAM DATA_DIR`, prefixed by $TEST_WRAPPER when set,
# e.g. valgrind) or a tests/*.sh script (run as `bash SCRIPT DATA_DIR`, never wrapped).
# A program passes only if it exits 0 and the last line of its stdout is
# "N passed, 0 failed" with N > 0: a test that checked nothing did not pass. A program that
# could not run some checks on this machine ends with "N passed, 0 failed, N skipped": the
# skips are summed and reported apart, never counted as passes (N passed must still be > 0).
# Output of every program goes to $BUILD/logs/ (default build/logs); a failing program's
# output is printed. TEST_JOBS=N runs N programs at a time (the lines stay in order).
set -uo pipefail

data=${1:?usage: run_tests.sh DATA_DIR PROGRAM...}
shift
logs=${BUILD:-build}/logs
[ -n "${TEST_WRAPPER:-}" ] && logs=$logs/wrapped
mkdir -p "$logs"

# TEST_JOBS (default 1): how many programs run at once; their lines still come in order.
jobs=${TEST_JOBS:-1}
[[ $jobs =~ ^[1-9][0-9]*$ ]] || { echo "run_tests.sh: TEST_JOBS must be a positive number, not \"$jobs\""; exit 2; }

# run K PROG: runs it, its output into the logs, then its exit status and seconds into .K.rc
# (by position: a program named twice has two).
run() {
    local k=$1 prog=$2 name start rc
    name=$(basename "$prog")
    start=$(date +%s.%N)
    case $prog in
    *.sh) bash "$prog" "$data" >"$logs/$name.out" 2>"$logs/$name.err" ;;
    *)    ${TEST_WRAPPER:-} "$prog" "$data" >"$logs/$name.out" 2>"$logs/$name.err" ;;
    esac
    rc=$?
    echo "$rc $(awk -v a="$start" -v b="$(date +%s.%N)" 'BEGIN { printf "%.1f", b - a }')" >"$logs/.$k.rc.tmp"
    mv "$logs/.$k.rc.tmp" "$logs/.$k.rc"
}

# report K PROG: its line (and, when it failed, the ends of its output), from what run left.
report() {
    local k=$1 name out err rc secs last why p f s
    name=$(basename "$2")
    out=$logs/$name.out
    err=$logs/$name.err
    rc=127 secs=0                                  # (no status file: it could not be run)
    [ -f "$logs/.$k.rc" ] && read -r rc secs <"$logs/.$k.rc"
    rm -f "$logs/.$k.rc"
    nprog=$((nprog + 1))
    last=$(tail -n 1 "$out")
    why=""
    if [[ $last =~ ^([0-9]+)\ passed,\ ([0-9]+)\ failed(,\ ([0-9]+)\ skipped)?$ ]]; then
        p=${BASH_REMATCH[1]} f=${BASH_REMATCH[2]} s=${BASH_REMATCH[4]:-0}
        checks=$((checks + p))
        skips=$((skips + s))
        if [ "$s" -ne 0 ]; then skipped_names="$skipped_names $name"; fi
        if [ "$rc" -ne 0 ]; then why="exit status $rc"
        elif [ "$f" -ne 0 ]; then why="$f checks failed"
        elif [ "$p" -eq 0 ]; then why="no checks ran"; [ "$s" -ne 0 ] && why="$why, $s skipped"
        fi
    else
        why="exit status $rc, last line is not \"N passed, N failed\" (or \"..., N skipped\")"
    fi
    if [ -z "$why" ]; then
        printf 'PASS  %-28s %s  (%ss)\n' "$name" "$last" "$secs"
        grep -E '^(SKIPPED|SKIP)[: ]' "$out" | sed 's/^/      /'     # why, as the program said
    else
        nfail=$((nfail + 1))
        failed_names="$failed_names $name"
        printf 'FAIL  %-28s %s\n' "$name" "$why"
        echo "---- $name stderr (last 40 lines of $err):"
        tail -n 40 "$err"
        echo "---- $name stdout (last 10 lines of $out):"
        tail -n 10 "$out"
        echo "----"
    fi
}

nprog=0 nfail=0 checks=0 skips=0 skipped_names="" failed_names=""
progs=("$@")
rm -f "$logs"/.*.rc
if [ "$jobs" -eq 1 ]; then
    for k in "${!progs[@]}"; do run "$k" "${progs[$k]}"; report "$k" "${progs[$k]}"; done
else
    # at most $jobs at once; each line is printed once it and every one before it are done
    next=0
    for k in "${!progs[@]}"; do
        while [ "$(jobs -rp | wc -l)" -ge "$jobs" ]; do wait -n; done
        run "$k" "${progs[$k]}" &
        while [ "$next" -lt "${#progs[@]}" ] && [ -f "$logs/.$next.rc" ]; do
            report "$next" "${progs[$next]}"; next=$((next + 1))
        done
    done
    wait
    while [ "$next" -lt "${#progs[@]}" ]; do report "$next" "${progs[$next]}"; next=$((next + 1)); done
fi

if [ "$nprog" -eq 0 ]; then
    echo "TESTS FAILED: no test programs were given"
    exit 1
fi
if [ "$nfail" -ne 0 ]; then
    echo "TESTS FAILED: $nfail of $nprog programs failed:$failed_names${skipped_names:+ ($skips checks skipped in$skipped_names)}"
    exit 1
fi
skipped=""
if [ "$skips" -ne 0 ]; then skipped=", $skips checks skipped (in$skipped_names; see their SKIPPED lines in $logs/)"; fi
echo "ALL TESTS PASSED: $nprog programs, $checks checks$skipped${TEST_WRAPPER:+ (under ${TEST_WRAPPER%% *})}"
