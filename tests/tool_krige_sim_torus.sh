#!/bin/sh
# trv-krige --nsim with the simulation torus out of core (src/kriging/sim.h,
# docs/scale.md): with TRV_SIM_MEM below the torus's bytes its FFTs run
# through temporary files, and the realisations (dem_sim.tif), the kriged
# DEM and krige.json are the same bytes as the in-memory run's, for chunks
# of 1, 5, 33 and all the torus's columns (a note says so, and the
# eigenvalues' passes report progress); a TRV_SIM_MEM that is not a
# number is the default (in memory). A failing write (a file-size limit)
# and a full $TMPDIR (a private tmpfs, root only: the free space checked
# first, then a write that finds no space) exit 1 with the cause named,
# nothing written and no temporary left. Ends with "N passed, N failed,
# N skipped".
set -u
BIN=${TRV_BIN:-bin}
DATA=${TRV_DATADIR:-data}
tmp=$(mktemp -d /tmp/trv-krige-sim-torus-test-XXXXXX)
trap 'rm -rf "$tmp"' EXIT
. "$(dirname "$0")/lib.sh"

gdalwarp -q -t_srs EPSG:32616 -tr 90 90 -te 740010 4050000 741810 4051800 -r bilinear -ot Float32 \
    -dstnodata -32768 "$DATA/jacksboro/dem_3arcsec.tif" "$tmp/dem.tif" || { echo "cannot make the DEM"; exit 1; }
mkdir "$tmp/o"
run() { # NAME [MODEL OPTIONS]: the outputs into $tmp/NAME.*, stderr into $tmp/NAME.err
    _n=$1
    shift
    rm -f "$tmp/o/"*
    "$BIN/trv-krige" "$tmp/dem.tif" --seed 3 --nsim 3 "$@" -o "$tmp/o/k.tif" >/dev/null 2>"$tmp/$_n.err" || return 1
    for f in dem_sim.tif k.tif krige.json; do cp "$tmp/o/$f" "$tmp/$_n.$f"; done
}
same() { # NAME REF: the three outputs the same bytes
    for f in dem_sim.tif k.tif krige.json; do cmp -s "$tmp/$1.$f" "$tmp/$2.$f" || return 1; done
}
note() { grep 'simulation torus of' "$tmp/$1.err"; }

run mem && ok || bad "in memory: $(cat "$tmp/mem.err")"
[ -z "$(note mem)" ] && ok || bad "the default budget sent a small torus to disk: $(note mem)"
TRV_SIM_MEM=0 run c1 && ok || bad "TRV_SIM_MEM=0: $(cat "$tmp/c1.err")"
set -- $(note c1 | tail -1 | sed -n 's/.*torus of \([0-9]*\) x \([0-9]*\) nodes.*/\1 \2/p')
m1=${1:-0} m2=${2:-0}
[ "$m1" -gt 0 ] && [ "$m2" -gt 0 ] && ok || bad "TRV_SIM_MEM=0: no out-of-core note: $(cat "$tmp/c1.err")"
note c1 | grep -q ' 1 column at a time' && ok || bad "TRV_SIM_MEM=0: $(note c1)"
# the eigenvalues' passes report their progress out of core (to 100), not in memory
grep -q '^torus: 0\.\.\.10\.\.\..*100 - done\.$' "$tmp/c1.err" && ok || bad "TRV_SIM_MEM=0: no torus progress: $(cat "$tmp/c1.err")"
grep -q '^torus:' "$tmp/mem.err" && bad "in memory: a torus progress line" || ok
same c1 mem && ok || bad "TRV_SIM_MEM=0 (chunks of 1 column): other bytes than in memory"
for c in 5 33 "$m1"; do # the budget of c columns (sim_fft.c: a row's 24 m1 bytes and the plans' 32 (m1 + m2) beside)
    TRV_SIM_MEM=$((24 * m1 + 32 * (m1 + m2) + 16 * m2 * c)) run c$c && ok || bad "$c columns: $(cat "$tmp/c$c.err")"
    note c$c | grep -q " $c columns at a time" && ok || bad "$c columns: $(note c$c)"
    same c$c mem && ok || bad "chunks of $c columns: other bytes than in memory"
done
TRV_SIM_MEM=lots run junk && [ -z "$(note junk)" ] && same junk mem && ok || bad "TRV_SIM_MEM=lots: $(cat "$tmp/junk.err")"
TRV_SIM_MEM=-5 run neg && [ -z "$(note neg)" ] && ok || bad "TRV_SIM_MEM=-5: $(cat "$tmp/neg.err")"

# A write that fails (a file-size limit of 40 blocks: the torus's work file
# is 16 bytes a node, 4.2 MB here): exit 1, the cause, nothing written.
rm -f "$tmp/o/"*
sh -c 'trap "" XFSZ; ulimit -f 40; exec "$@"' sh env TRV_SIM_MEM=0 "$BIN/trv-krige" -q "$tmp/dem.tif" --seed 3 \
    --nsim 3 -o "$tmp/o/k.tif" 2>"$tmp/err"
rc=$?
[ $rc = 1 ] && grep -q "cannot write the simulation torus's temporary file in '.*': File too large" "$tmp/err" &&
    [ -z "$(ls -A "$tmp/o")" ] && ok || bad "file-size limit: exit $rc, $(cat "$tmp/err"), left: $(ls -A "$tmp/o")"

# A full $TMPDIR (root: a private tmpfs). An exponential model of range 10 m
# makes a 72 x 72 torus (n + reach / dx + 1 = 64 + 5 + 1 -> 72): 24 bytes a
# node is 124416 bytes, 30.4 pages of 4 KiB. With 30 pages the check before
# the first write fails; with 31 it passes, but the work file takes 21
# pages and sq's 11 (rounded up each), so the last write finds no space.
F=$tmp/full
mkdir "$F"
EXP="--model exp --nugget 0 --psill 100 --range 10"
# (its progress reaches 100 although 72 rows are not a multiple of 64)
TRV_SIM_MEM=0 run exp $EXP && note exp | grep -q 'torus of 72 x 72 nodes' && ok ||
    bad "the exponential model's torus: $(cat "$tmp/exp.err")"
grep -q '^torus: 0\.\.\.10\.\.\..*100 - done\.$' "$tmp/exp.err" && ok || bad "72 rows: the torus progress: $(cat "$tmp/exp.err")"
if [ "$(id -u)" != 0 ] || ! unshare --mount /bin/sh -c 'mount -t tmpfs -o size=64k tmpfs "$0"' "$F" 2>/dev/null; then
    skip "a full TMPDIR: needs root and mount namespaces for a private tmpfs"
else
    for pages in 30 31; do
        rm -f "$tmp/o/"*
        unshare --mount /bin/sh -c 'mount -t tmpfs -o size="$1"k tmpfs "$0" && shift 2 && "$@"; rc=$?; ls -A "$0" >&2; exit $rc' \
            "$F" $((4 * pages)) x env TMPDIR="$F" TRV_SIM_MEM=0 "$BIN/trv-krige" -q "$tmp/dem.tif" --seed 3 --nsim 3 \
            $EXP -o "$tmp/o/k.tif" 2>"$tmp/err"
        rc=$?
        if [ $pages = 30 ]; then
            want="no space left in '$F' for the simulation torus of 72 x 72 nodes: it needs 0.000124 GB"
        else
            want="no space left in '$F' for the simulation torus's temporary files: set TMPDIR to a larger disk"
        fi
        # one line: the message (the tmpfs's listing after the run, on stderr, is empty)
        [ $rc = 1 ] && [ "$(wc -l <"$tmp/err")" = 1 ] && grep -qF "trv-krige: $want" "$tmp/err" &&
            [ -z "$(ls -A "$tmp/o")" ] && ok || bad "$pages pages of TMPDIR: exit $rc, $(cat "$tmp/err"), left: $(ls -A "$tmp/o")"
    done
fi

summary tool_krige_sim_torus
