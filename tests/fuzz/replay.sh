#!/bin/sh
# make test's replay of the fuzz corpora (no fuzzing): each harness built
# without libFuzzer ($TRV_FUZZ_BIN/replay_NAME, tests/fuzz/driver.c) reads
# every seed of tests/fuzz/corpus/NAME and every past crash input of
# tests/fuzz/crashes/NAME (when there are any) once. One check per
# harness: it exits 0 (under SAN=1: with no sanitizer report) and fed as
# many inputs as the directories hold. Ends with
# "fuzz_replay: N passed, N failed, N skipped".
set -u
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../lib.sh"
bin=${TRV_FUZZ_BIN:-build/rel/tests/fuzz}
err=$(mktemp /tmp/trv-fuzz-replay-XXXXXX)
trap 'rm -f "$err"' EXIT
for c in "$here"/corpus/*/; do
    n=$(basename "$c")
    dirs=$c
    [ -d "$here/crashes/$n" ] && dirs="$dirs $here/crashes/$n"
    # shellcheck disable=SC2086
    want=$(find $dirs -type f ! -name '.*' | wc -l)
    # shellcheck disable=SC2086
    out=$("$bin/replay_$n" $dirs 2>"$err")
    rc=$?
    # under SAN=1 a sanitizer report fails the run (its exit status)
    if [ "$rc" = 0 ] && [ "$out" = "$want inputs" ] && [ "$want" -gt 0 ]; then
        ok
    else
        bad "replay_$n on $dirs (exit $rc, $want files): $out $(tail -n 5 "$err")"
    fi
done
summary fuzz_replay
