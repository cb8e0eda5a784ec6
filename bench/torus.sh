#!/bin/sh
# The simulation torus in memory and out of core (docs/scale.md, "The
# simulation torus out of core"): bench_torus (compiled here against the
# library) on lattices of 5400² (a torus of 5760², just under the 2^25
# nodes of the old cap), 6000² (6400², above it) and, with BIG=1, 12000²
# (12500², 3.75 GB in memory), each in memory and out of core (a budget of
# 64 MiB, 256 MiB for the largest); an exponential model of range 20
# cells. Best of REPS (default 3) by wall; CPU = user + sys, peak RSS from
# /usr/bin/time; the draw's own wall and CPU; bytes read and written.
# Exits 1 when the two paths' fields differ (their sums, printed to 17
# digits, must be equal).
#   sh bench/torus.sh
# Environment: TRV_LIB (default lib/libtraverse.a), REPS, BIG, TMPDIR (the
# out-of-core files: 24 bytes a node, 3.75 GB with BIG=1).
# shellcheck disable=SC2046 # pkg-config's flags are split on purpose
set -eu
here=$(cd "$(dirname "$0")" && pwd)
LIB=${TRV_LIB:-$here/../lib/libtraverse.a}
REPS=${REPS:-3}
w=$(mktemp -d /tmp/trv-torus-bench-XXXXXX)
trap 'rm -rf "$w"' EXIT
. "$here/lib.sh"
machine_line
echo "load: $(uptime | sed 's/.*load average: //')"
${CC:-cc} -std=c11 -O2 -Wall -Wextra -Werror -D_DEFAULT_SOURCE -pthread -I"$here/../src" \
    $(pkg-config --cflags gdal proj) "$here/bench_torus.c" "$LIB" -o "$w/bench_torus" \
    $(pkg-config --libs gdal libtiff-4 proj lapacke openblas libpng freetype2 json-c) -lwebsockets -lcap -lode -lglpk -lm -pthread
echo
echo "| lattice | torus | path | CPU s | wall s | draw wall / CPU s | peak RSS MB | read + written GB |"
echo "|---|---|---|---|---|---|---|---|"
status=0
cases="5400 67108864 6000 67108864"
[ "${BIG:-0}" = 1 ] && cases="$cases 12000 268435456"
set -- $cases
while [ $# -ge 2 ]; do
    n=$1 small=$2
    shift 2
    ref=""
    for mem in 8000000000 "$small"; do
        b=""
        i=0
        while [ $i -lt "$REPS" ]; do
            /usr/bin/time -f "%U %S %e %M" -o "$w/time" "$w/bench_torus" "$n" "$n" "$mem" 20 >"$w/out"
            r="$(cat "$w/time") $(cat "$w/out")"
            if [ -z "$b" ] || [ "$(awk -v x="${r#* * }" -v y="${b#* * }" 'BEGIN { print (x + 0 < y + 0) }')" = 1 ]; then
                b=$r
            fi
            i=$((i + 1))
        done
        echo "$b" | tr -d ';' | awk -v n="$n" -v mem="$mem" '{
            path = $8 ? sprintf("out of core, %d MiB (%d columns)", mem / 1048576, $9) : "in memory"
            printf "| %d² | %d² (2^%.2f) | %s | %.2f | %.2f | %.2f / %.2f | %.0f | %.2f |\n", n, $6, log($6 * $7) / log(2), path,
                $1 + $2, $3, $14, $15, $4 / 1000, ($20 + $21) / 1e9 }'
        sums=$(echo "$b" | sed 's/.*sum //')
        [ -z "$ref" ] && ref=$sums
        [ "$sums" = "$ref" ] || { echo "lattice $n: the fields differ out of core ($sums, in memory $ref)"; status=1; }
    done
done
exit $status
