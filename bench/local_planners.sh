#!/bin/sh
# make bench, the local planners' study (issue 23 point 4; the table in
# docs/benchmarks.md beside Wu, Dai & Yang 2020's Table 1): N seeded
# scenarios (default 100) on the demo terrain (out/jacksboro, made by
# `make demo`), each a 500 m stretch of the demo's MMCR route with 1 to 3
# obstacles appearing on it at random times, never closer to the UGV than
# its stopping distance, driven with every local planner (none, vfh+,
# vfh*, vfh*-wu2020, dwa): bench/local_planners.py generates them into a
# scratch directory, runs them and prints the markdown table. A planner
# trv-sim refuses (its local_planner key unknown) is named, not run.
# Environment: TRV_BIN (tools, default bin), TRV_OUT (terrain, default
# out/jacksboro), N (scenarios, 100), SEED (1), JOBS (runs at a time, 2),
# LOCAL_WINDOW_M and LOCAL_LOOKAHEAD_M (60 and 40 m; "default": the
# planners' own, local_planner.h), LP_KEEP (set: keep the scenarios, the
# runs and scenarios.log, one line of ends per scenario).
set -eu
BIN=${TRV_BIN:-bin}
OUT=${TRV_OUT:-out/jacksboro}
here=$(cd "$(dirname "$0")/.." && pwd)
w=$(mktemp -d /tmp/trv-local-bench-XXXXXX)
trap '[ -n "${LP_KEEP:-}" ] && echo "kept: $w" >&2 || rm -rf "$w"' EXIT
die() { echo "local_planners.sh: $*" >&2; exit 1; }
. "$(dirname "$0")/lib.sh"
[ -f "$OUT/route.csv" ] || die "no $OUT/route.csv: run make demo first"
OUT=$(cd "$OUT" && pwd) # the scenarios, in a scratch directory, name the route by this path
[ -x "$BIN/trv-sim" ] || die "no $BIN/trv-sim: run make first"
machine_line
echo "load: $(uptime | sed 's/.*load average: //')"
python3 "$here/bench/local_planners.py" "$BIN/trv-sim" "$OUT" "$OUT/route.csv" "$here/data/vehicles/ugv_hua2022.ini" \
    "$w" "${N:-100}" "${SEED:-1}" 2>"$w/scenarios.log" || { cat "$w/scenarios.log" >&2; die "the study failed"; }
echo "load after: $(uptime | sed 's/.*load average: //')"
