#!/bin/sh
# make test's runner: runs every test program and script it is given
# (tests/test_* cmocka programs, tests/tool_*.sh scripts run with sh), shows
# their output as it comes, and ends with the sum over all of them:
#   make test: N passed, N failed, N skipped
# Exit status 0 when nothing failed.
#
# How each is counted:
# - a script: its last line, "[NAME: ]N passed, N failed, N skipped"
#   (tests/lib.sh's summary). Every "SKIPPED: " line it printed must be
#   counted there: a skip it did not count is a failure of that script.
# - a cmocka program: cmocka's own "[  PASSED  ] N test(s)." and
#   "[  FAILED  ] N test(s)" lines count tests; skipped is the number of
#   "SKIPPED: " lines it printed (tests/test_common.h's skip_test, a whole
#   test, and skip_check, one check inside a test that goes on, each print
#   one), or cmocka's "[  SKIPPED ] N test(s)" when that is more.
# - either: a non-zero exit with nothing counted failed, or no summary at
#   all (a crash, an exit half-way), is one failure.
set -u
tmp=$(mktemp -d /tmp/trv-run-XXXXXX)
trap 'rm -rf "$tmp"' EXIT
P=0 F=0 S=0 failed=""
for t in "$@"; do
    echo "== $t"
    case $t in
    *.sh) { sh "$t" 2>&1; echo $? >"$tmp/rc"; } | tee "$tmp/log" ;;
    *) { "$t" 2>&1; echo $? >"$tmp/rc"; } | tee "$tmp/log" ;;
    esac
    rc=$(cat "$tmp/rc")
    lines=$(grep -c '^SKIPPED: ' "$tmp/log")
    case $t in
    *.sh)
        last=$(tail -n 1 "$tmp/log" | sed -n 's/^\([A-Za-z0-9_.-]*: \)\{0,1\}\([0-9][0-9]*\) passed, \([0-9][0-9]*\) failed, \([0-9][0-9]*\) skipped$/\2 \3 \4/p')
        if [ -z "$last" ]; then
            echo "FAIL: $t: its last line is not 'N passed, N failed, N skipped' (exit $rc)"
            p=0 f=1 s=$lines
        else
            read -r p f s <<EOF
$last
EOF
            if [ "$lines" != "$s" ]; then
                echo "FAIL: $t printed $lines 'SKIPPED:' lines but counted $s skipped"
                f=$((f + 1))
            fi
        fi ;;
    *)
        p=$(sed -n 's/^\[  PASSED  \] \([0-9][0-9]*\) test(s)\.$/\1/p' "$tmp/log" | tail -n 1)
        f=$(sed -n 's/^\[  FAILED  \] \([0-9][0-9]*\) test(s).*/\1/p' "$tmp/log" | tail -n 1)
        c=$(sed -n 's/^\[  SKIPPED \] \([0-9][0-9]*\) test(s).*/\1/p' "$tmp/log" | tail -n 1)
        s=$lines
        [ "${c:-0}" -gt "$s" ] && s=$c
        if [ -z "$p" ]; then
            echo "FAIL: $t printed no cmocka summary (exit $rc)"
            p=0 f=$((${f:-0} + 1))
        fi
        f=${f:-0} ;;
    esac
    [ "$rc" != 0 ] && [ "$f" = 0 ] && f=1 && echo "FAIL: $t exited $rc with no failure counted"
    [ "$f" != 0 ] && failed="$failed $t"
    P=$((P + p)) F=$((F + f)) S=$((S + s))
done
[ -n "$failed" ] && echo "failed in:$failed"
echo "make test: $P passed, $F failed, $S skipped"
[ "$F" = 0 ]
