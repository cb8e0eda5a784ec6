#!/bin/sh
# make fuzz's runner: tests/fuzz/run.sh BINDIR SECONDS NAME...
# Runs BINDIR/fuzz_NAME under libFuzzer for SECONDS from the seed corpus
# tests/fuzz/corpus/NAME (new inputs kept in build/fuzz/corpus/NAME), one
# harness after the other; a crash, leak, timeout or sanitizer report is
# saved in tests/fuzz/crashes/NAME/ (make test replays it). Prints one
# line per harness (runs, coverage, result) and ends with
# "make fuzz: N passed, N failed, N skipped"; exit 1 when one failed.
set -u
bindir=$1 secs=$2
shift 2
here=$(cd "$(dirname "$0")" && pwd)
P=0 F=0
for n in "$@"; do
    work=build/fuzz/corpus/$n crashes=$here/crashes/$n
    mkdir -p "$work" "$crashes"
    log=build/fuzz/$n.log
    "$bindir/fuzz_$n" -max_total_time="$secs" -timeout=20 -rss_limit_mb=2048 -print_final_stats=1 \
        -artifact_prefix="$crashes/" "$work" "$here/corpus/$n" >"$log" 2>&1
    rc=$?
    runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log")
    cov=$(grep -o 'cov: [0-9]*' "$log" | tail -n 1)
    if [ "$rc" = 0 ]; then
        P=$((P + 1))
        echo "fuzz_$n: ${runs:-?} runs in ${secs} s, $cov, nothing found"
    else
        F=$((F + 1))
        echo "FAIL: fuzz_$n (exit $rc): $(grep -m1 -E 'ERROR|SUMMARY|runtime error' "$log") (log $log; input in $crashes/)"
    fi
    rmdir "$crashes" 2>/dev/null
done
echo "make fuzz: $P passed, $F failed, 0 skipped"
[ "$F" = 0 ]
