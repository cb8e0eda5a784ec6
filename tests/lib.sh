# Shared by the tests/tool_*.sh scripts (sourced, after `set -u`): the
# counters, the skip rule and the summary line that tests/run.sh adds up.
#
#   ok                   one check passed
#   bad MESSAGE          one check failed: prints "FAIL: MESSAGE"
#   skip REASON          one check cannot run here: prints "SKIPPED: REASON"
#   skip_pkg PKG REASON  one check cannot run because the Debian package PKG
#                        is missing: a skip, except under CI (CI=true) when
#                        PKG is one that make test installs itself (the
#                        Makefile's TEST_PKGS, passed as TRV_TEST_PKGS): then
#                        a failure, since the missing package is a broken
#                        install, not a machine without it
#   summary [NAME]       the last line, "[NAME: ]N passed, N failed, N
#                        skipped"; its status is 0 when nothing failed
pass=0 fail=0 nskip=0

ok() { pass=$((pass + 1)); }
bad() { fail=$((fail + 1)); echo "FAIL: $*"; }
skip() { nskip=$((nskip + 1)); echo "SKIPPED: $*"; }
skip_pkg() {
    _pkg=$1
    shift
    case " ${TRV_TEST_PKGS:-} " in
    *" $_pkg "*)
        if [ "${CI:-}" = true ]; then
            bad "$* (CI=true: the make target running this installs $_pkg, so its absence is a failure)"
            return
        fi ;;
    esac
    skip "$*"
}
summary() {
    echo "${1:+$1: }$pass passed, $fail failed, $nskip skipped"
    [ "$fail" = 0 ]
}

