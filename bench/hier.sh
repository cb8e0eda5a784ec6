#!/bin/sh
# The roadmap query flat and on the hierarchical index (docs/scale.md,
# docs/method.md §4.13): bench_hier (compiled here against the library) on
# a run directory DIR and a tiled build's ROADMAP.gpkg (with ROADMAP.hier
# beside it: trv-roadmap --tile N), HIER_PAIRS seeded random GO pairs
# (default 100, seed HIER_SEED, default 1) per strategy in HIER_STRATEGIES
# (default "time mdr"; mmcr with the admissible heuristic). Per strategy:
# pairs routed, costs equal (1e-9 relative; a failing pair fails both ways
# with one message), the median CPU time of a query (the faster of two runs
# each) and the median roadmap edges and matrix entries read, flat against
# the index; the index's size. Exits 1 when a cost differs.
#   sh bench/hier.sh DIR ROADMAP.gpkg
# Environment: TRV_LIB (default lib/libtraverse.a), HIER_PAIRS, HIER_SEED,
# HIER_STRATEGIES.
# shellcheck disable=SC2046 # pkg-config's flags are split on purpose
set -eu
[ $# = 2 ] || { echo "usage: sh bench/hier.sh DIR ROADMAP.gpkg" >&2; exit 2; }
here=$(cd "$(dirname "$0")" && pwd)
LIB=${TRV_LIB:-$here/../lib/libtraverse.a}
w=$(mktemp -d /tmp/trv-hier-bench-XXXXXX)
trap 'rm -rf "$w"' EXIT
. "$here/lib.sh"
machine_line
echo "load: $(uptime | sed 's/.*load average: //')"
${CC:-cc} -std=c11 -O2 -Wall -Wextra -Werror -D_DEFAULT_SOURCE -pthread -I"$here/../src" \
    $(pkg-config --cflags gdal proj) "$here/bench_hier.c" "$LIB" -o "$w/bench_hier" \
    $(pkg-config --libs gdal libtiff-4 proj lapacke openblas libpng freetype2 json-c) -lwebsockets -lcap -lode -lglpk -lm -pthread
status=0
for s in ${HIER_STRATEGIES:-time mdr}; do
    "$w/bench_hier" "$1" "$2" "${HIER_PAIRS:-100}" "${HIER_SEED:-1}" "$s" >"$w/out" || status=1
    awk -v s="$s" '$1 == "summary" {
        printf "%s: %d pairs, %d routed, %d equal; CPU per query median %.4f s flat, %.4f s index (%.2fx); ", s, $2, $3, $4, $5, $6, $5 / $6
        printf "edges read median %d flat, %d index (%.1fx fewer) + %d matrix entries; ", $7, $8, $7 / $8, $9
        printf "roadmap %d nodes, %d edges (%d B each); index %d tiles, %d border nodes, %.1f MiB, built in %.2f s CPU\n", $10, $11, $12, $13, $14, $15 / 1048576, $16 }' "$w/out"
done
exit $status
