#!/bin/sh
# make bench-scale: the streamed raster stages (docs/scale.md) at growing
# raster sizes: trv-krige from Jacksboro's 3" lon/lat DEM onto RES m (SCALE_RES,
# default "30 10 5"; three runs: krige = --nmax 16, the DEM only, the
# command the goal against gdalwarp is judged on; krige_def = the defaults;
# krige_std = the defaults with the std); Jacksboro's DEM resampled
# (gdalwarp, bilinear) to RES m, then trv-terrain, trv-speed and trv-cost
# on it, each timed with /usr/bin/time: CPU time (user + sys), wall time and
# peak RSS, and between two sizes the growth exponents k (time ∝ cells^k,
# memory ∝ cells^k: streamed stages aim at k ≈ 1 for time and k ≈ 0 for
# memory). TRV_BLOCK_ROWS as set (default: the tools' own).
# trv-roadmap on the cost stage's directory (roadmap; tiled by itself above
# 5e7 cells; below, also with --tile 1024: roadmap_tile), trv-route (time)
# between the demo's ends on the roadmap alone (route), then with --grid
# in its corridor and with --grid-whole, between the demo's ends
# (grid_corr, grid_whole) and over 7 km (grid_short, grid_shwh), up to
# SCALE_GRID_MAX cells (default 5e7: the whole-grid search holds about 40
# bytes a cell); above, the demo's ends with --grid --grid-memory
# SCALE_GRID_PAGED_MB (default 1000: the whole grid searched paged,
# grid_paged): docs/scale.md.
# Then, when mpirun and bin/mpi/trv-terrain are there (docs/cluster.md):
# trv-terrain, trv-speed and trv-cost (bin/mpi/trv-*) at MPI_RES m
# (default 10) single-process and over 1, 2 and 4
# MPI ranks (4 oversubscribed on a 2-core machine): wall time, speed-up
# against the single process, the serial fraction f that Amdahl's law
# S(N) = 1 / (f + (1 - f) / N) gives from the 2-rank speed-up, and the
# speed-up that f predicts for 8, 32 and 128 ranks.
# SCALE_STAGES (default "krige gdal_krige terrain gdal_terrain roadmap";
# terrain = trv-terrain, trv-speed, trv-cost; roadmap needs terrain) picks
# the parts, e.g. two runs side by side at 1 m.
# The GDAL chain at each size (gdal_krige, gdal_terrain): gdalwarp -r cubic
# from the lon/lat DEM onto trv-krige's grid (gdal_krige), and for
# trv-terrain's four layers gdal_translate (DEM) + gdaldem slope + gdalwarp
# -r mode (soil, land use) (gdal_terrain), all to tiled DEFLATE GeoTIFFs
# (bench/run.sh's chain), with CPU, wall and peak-RSS ratios (traverse / GDAL;
# trv-krige runs on the machine's cores, gdalwarp on one).
# Disk: the outputs' size per stage (du, MiB) after each stage.
# trv-roadmap and trv-route are skipped above SCALE_ROADMAP_MAX cells
# (default 1.1e9, Jacksboro at 1 m: the tiled build, automatic above 5e7
# cells, holds its class and layers by tile rows within caps: 1788 MiB
# peak, 696 s CPU at 1 m; trv-route there 1.8 GiB (time), 1.9 GiB (mmcr); docs/scale.md).
# At 1 m (10^9 cells) a Float32 layer is 4 GB: set SCALE_DIR to a scratch
# directory on a large disk (kept; a dem<RES>.tif found there is reused,
# else made and removed; SCALE_KEEP=1 moves each run directory there as
# t<RES>), default a temporary directory under /tmp.
# Environment: TRV_BIN (bin), TRV_DATADIR (data), SCALE_RES, MPI_RES,
# SCALE_DIR, SCALE_STAGES, SCALE_ROADMAP_MAX, SCALE_GRID_MAX, SCALE_GRID_PAGED_MB, SCALE_MPI (0: no MPI part).
set -eu
here=$(cd "$(dirname "$0")" && pwd)
root=$(dirname "$here")
BIN=${TRV_BIN:-$root/bin}
DATA=${TRV_DATADIR:-$root/data}
SCALE_RES=${SCALE_RES:-30 10 5}
SCALE_STAGES=${SCALE_STAGES:-krige gdal_krige terrain gdal_terrain roadmap}
has() { case " $SCALE_STAGES " in *" $1 "*) return 0 ;; esac; return 1; }
SCALE_ROADMAP_MAX=${SCALE_ROADMAP_MAX:-1100000000}
SCALE_GRID_MAX=${SCALE_GRID_MAX:-50000000}
SCALE_GRID_PAGED_MB=${SCALE_GRID_PAGED_MB:-1000}
le() { [ "$(echo "$1 $2" | awk '{print ($1 <= $2)}')" = 1 ]; }
J=$DATA/jacksboro
CO="-co TILED=YES -co BLOCKXSIZE=256 -co BLOCKYSIZE=256 -co COMPRESS=DEFLATE -co BIGTIFF=IF_SAFER"
if [ -n "${SCALE_DIR:-}" ]; then
    mkdir -p "$SCALE_DIR"
    w=$(mktemp -d "$SCALE_DIR/trv-scale-bench-XXXXXX")
else
    w=$(mktemp -d /tmp/trv-scale-bench-XXXXXX)
fi
trap 'rm -rf "$w"' EXIT
trap 'exit 130' INT TERM
. "$here/lib.sh"

machine_line
echo "load: $(uptime | sed 's/.*load average: //'); GDAL $(gdalinfo --version | sed 's/GDAL \([^,]*\).*/\1/'); block rows ${TRV_BLOCK_ROWS:-default}"
# one timed run: "cpu_s,wall_s,maxrss_kB"
run() {
    /usr/bin/time -f "%U %S %e %M" -o "$w/time" "$@" >/dev/null 2>"$w/err" || { cat "$w/err" >&2; exit 1; }
    awk '{printf "%.2f,%.2f,%d\n", $1 + $2, $3, $4}' "$w/time"
}
printf '%-12s %6s %12s %9s %9s %10s %8s %8s\n' stage res_m cells cpu_s wall_s rss_MiB k_time k_rss
prev="" cur=""
# du_mib PATH...: their size on disk in MiB
du_mib() { du -sk "$@" | awk '{s += $1} END {printf "%.0f", s / 1024}'; }
# grid FILE: "nx ny xmin ymin xmax ymax"
grid() {
    gdalinfo "$1" | awk '/^Size is/{gsub(/,/,"");nx=$3;ny=$4} /^Origin =/{gsub(/[(),]/," ");x=$3;y=$4}
        /^Pixel Size =/{gsub(/[(),]/," ");dx=$4;dy=$5}
        END{printf "%d %d %.17g %.17g %.17g %.17g\n", nx, ny, x, y+ny*dy, x+nx*dx, y}'
}
# emit STAGE "cpu,wall,kB": its row, printed at once (a long run stopped
# part-way keeps the rows of the stages it finished), with k against the
# previous size's row of the same stage
emit() {
    # shellcheck disable=SC2046 # the three figures, split
    set -- "$1" $(echo "$2" | tr , ' ')
    line="$1 $res $cells $2 $3 $4"
    k=$(echo "$line $prev" | awk -v st="$1" '{
        n = split($0, a, " "); kt = "-"; km = "-"
        for (i = 7; i + 5 <= n; i += 6) if (a[i] == st && a[i + 2] > 0 && a[i + 3] > 0) {
            r = log(a[3] / a[i + 2]); kt = sprintf("%.2f", log(a[4] / a[i + 3]) / r); km = sprintf("%.2f", log(a[6] / a[i + 5]) / r) }
        print kt, km }')
    # shellcheck disable=SC2086 # k is two words
    printf '%-12s %6s %12s %9s %9s %10.0f %8s %8s\n' "$1" "$res" "$cells" "$2" "$3" "$(($4 / 1024))" $k
    cur="$cur $line"
}
for res in $SCALE_RES; do
    T=$w/t$res
    D=$w/dem$res.tif own=1
    [ -n "${SCALE_DIR:-}" ] && [ -f "$SCALE_DIR/dem$res.tif" ] && D=$SCALE_DIR/dem$res.tif own=0
    # shellcheck disable=SC2086 # CO is a list of options
    [ $own = 0 ] || gdalwarp -q -t_srs EPSG:32616 -tr "$res" "$res" -tap -r bilinear -ot Float32 -dstnodata -32768 \
        $CO "$J/dem_3arcsec.tif" "$D"
    cells=$(gdalinfo "$D" | sed -n 's/^Size is \([0-9]*\), \([0-9]*\)/\1 \2/p' | awk '{printf "%.0f", $1 * $2}')
    if has krige; then
        mkdir -p "$w/k$res"
        # krige: --nmax 16, the DEM only (the goal's command, as bench/krige.sh:
        # docs/benchmarks.md); krige_def: the defaults (nmax by leave-one-out);
        # krige_std: the defaults with the standard deviation, which GDAL
        # does not compute (its memory and disk)
        kk() { run "$BIN/trv-krige" -q "$J/dem_3arcsec.tif" --t_srs EPSG:32616 --tr "$res" -o "$w/k$res/dem.tif" "$@"; }
        rk=$(kk --nmax 16)
        kg=$(grid "$w/k$res/dem.tif")
        rm -rf "$w/k$res" && mkdir -p "$w/k$res"
        rd=$(kk)
        rm -rf "$w/k$res" && mkdir -p "$w/k$res"
        rs=$(kk --std "$w/k$res/std.tif")
        dk=$(du_mib "$w/k$res")
        rm -rf "$w/k$res"
        emit krige "$rk"
        emit krige_def "$rd"
        emit krige_std "$rs"
        if has gdal_krige; then
            mkdir -p "$w/g"
            # shellcheck disable=SC2086,SC2046 # CO is a list of options, the extent four numbers
            gk=$(run gdalwarp -q -r cubic -ot Float32 -t_srs EPSG:32616 -te $(echo "$kg" | cut -d' ' -f3-6) \
                -tr "$res" "$res" $CO "$J/dem_3arcsec.tif" "$w/g/krige.tif")
            rm -rf "$w/g"
            emit gdal_krige "$gk"
        fi
    fi
    if has terrain; then
        r1=$(run "$BIN/trv-terrain" -q --dem "$D" --soil "$J/soil_7p5arcsec.tif" \
            --landuse "$J/landuse_30m_utm16n.tif" --soil-classes "$DATA/classes/soils.csv" \
            --landuse-classes "$DATA/classes/landuse.csv" -o "$T")
        emit terrain "$r1"
        d1=$(du_mib "$T")
        r2=$(run "$BIN/trv-speed" -q --terrain "$T" --vehicle "$DATA/vehicles/ugv_hua2022.ini" \
            --soils "$DATA/classes/soils.csv" --landuse-classes "$DATA/classes/landuse.csv")
        emit speed "$r2"
        d2=$(du_mib "$T")
        r3=$(run "$BIN/trv-cost" -q --terrain "$T" --rules "$DATA/fuzzy/mobility.fcl" --soils "$DATA/classes/soils.csv")
        emit cost "$r3"
        d3=$(du_mib "$T")
    fi
    if has gdal_terrain; then
        mkdir -p "$w/g"
        ext=$(grid "$D" | cut -d' ' -f3-6)
        cat >"$w/chain.sh" <<EOC
gdal_translate -q $CO "$D" "$w/g/dem.tif" &&
gdaldem slope -q -compute_edges $CO -co PREDICTOR=3 "$D" "$w/g/slope.tif" &&
gdalwarp -q -r mode -t_srs EPSG:32616 -te $ext -tr $res $res $CO "$J/soil_7p5arcsec.tif" "$w/g/soil.tif" &&
gdalwarp -q -r mode -te $ext -tr $res $res $CO "$J/landuse_30m_utm16n.tif" "$w/g/landuse.tif"
EOC
        g1=$(run sh "$w/chain.sh")
        rm -rf "$w/g"
        emit gdal_terrain "$g1"
    fi
    if has roadmap && le "$cells" "$SCALE_ROADMAP_MAX"; then
        r4=$(run "$BIN/trv-roadmap" -q --terrain "$T" -o "$T/roadmap.gpkg" --seed 1)
        emit roadmap "$r4"
        if le "$cells" 50000000; then # above, the roadmap row is the tiled build
            r4t=$(run "$BIN/trv-roadmap" -q --terrain "$T" -o "$w/roadmap_tiled.gpkg" --seed 1 --tile 1024)
            rm -f "$w/roadmap_tiled.gpkg" "$w/roadmap_tiled.bin" "$w/roadmap.json"
            emit roadmap_tile "$r4t"
        fi
        R="$BIN/trv-route -q --roadmap $T/roadmap.gpkg --terrain $T --strategy time --no-timing -o $w/r.geojson"
        r9=$(run $R --from -84.3637,36.6957 --to -84.1994,36.5216)
        emit route "$r9"
        # --grid (time) between the demo's ends (30 km, corner to corner) and
        # over 7 km: in its corridor (grid_corr, grid_short) and on the whole grid
        if le "$cells" "$SCALE_GRID_MAX"; then
            r5=$(run $R --grid --from -84.3637,36.6957 --to -84.1994,36.5216)
            r6=$(run $R --grid --from -84.3637,36.6957 --to -84.1994,36.5216 --grid-whole)
            r7=$(run $R --grid --from -84.3637,36.6957 --to -84.30,36.67)
            r8=$(run $R --grid --from -84.3637,36.6957 --to -84.30,36.67 --grid-whole)
            emit grid_corr "$r5"
            emit grid_whole "$r6"
            emit grid_short "$r7"
            emit grid_shwh "$r8"
        else
            # above, the whole grid paged within SCALE_GRID_PAGED_MB (docs/scale.md "A bounded-memory --grid")
            r10=$(run $R --grid --grid-memory "$SCALE_GRID_PAGED_MB" --from -84.3637,36.6957 --to -84.1994,36.5216)
            emit grid_paged "$r10"
        fi
    fi
    ! has roadmap || le "$cells" "$SCALE_ROADMAP_MAX" ||
        echo "roadmap, route: skipped at $res m ($cells cells > SCALE_ROADMAP_MAX $SCALE_ROADMAP_MAX)"
    echo "$cur" | awk -v res="$res" '{
        for (i = 1; i <= NF; i += 6) { c[$i] = $(i + 3); e[$i] = $(i + 4); m[$i] = $(i + 5) }
        split("krige gdal_krige krige_def gdal_krige terrain gdal_terrain", p, " ")
        for (k = 1; k <= 5; k += 2) { st = p[k]; g = p[k + 1]
            if (c[st] > 0 && c[g] > 0 && e[g] > 0)
                printf "vs GDAL chain at %s m (traverse / GDAL): %s CPU %.2f, wall %.2f, RSS %.2f\n", res, st, c[st] / c[g], e[st] / e[g], m[st] / m[g] } }'
    ! has krige || echo "disk at $res m (MiB): trv-krige's outputs (dem, std) $dk"
    ! has terrain || echo "disk at $res m (MiB): the run directory after terrain $d1, speed $d2, cost $d3; input DEM $(du_mib "$D")"
    prev=$cur cur=""
    if [ -n "${SCALE_KEEP:-}" ] && [ -d "$T" ]; then
        rm -rf "$SCALE_DIR/t$res" && mv "$T" "$SCALE_DIR/t$res" && echo "kept: $SCALE_DIR/t$res"
    fi
    rm -rf "$T"
    [ $own = 0 ] || rm -f "$D"
done

[ "${SCALE_MPI:-1}" != 0 ] || { echo "MPI: skipped (SCALE_MPI=0)"; exit 0; }
command -v mpirun >/dev/null 2>&1 && [ -x "$BIN/mpi/trv-terrain" ] || { echo "MPI: skipped (no mpirun or $BIN/mpi/trv-terrain)"; exit 0; }
res=${MPI_RES:-10}
ROOT=
[ "$(id -u)" = 0 ] && ROOT=--allow-run-as-root
gdalwarp -q -t_srs EPSG:32616 -tr "$res" "$res" -tap -r bilinear -ot Float32 -dstnodata -32768 \
    -co TILED=YES -co COMPRESS=DEFLATE "$J/dem_3arcsec.tif" "$w/dem.tif"
IN="-q --dem $w/dem.tif --soil $J/soil_7p5arcsec.tif --landuse $J/landuse_30m_utm16n.tif --soil-classes $DATA/classes/soils.csv --landuse-classes $DATA/classes/landuse.csv"
SPEED="-q --vehicle $DATA/vehicles/ugv_hua2022.ini --soils $DATA/classes/soils.csv --landuse-classes $DATA/classes/landuse.csv"
COST="-q --rules $DATA/fuzzy/mobility.fcl --soils $DATA/classes/soils.csv"
"$BIN/trv-terrain" $IN -o "$w/t0" && "$BIN/trv-speed" $SPEED --terrain "$w/t0" >/dev/null
# mpi_stage TOOL ARGS...: TOOL single-process and over 1, 2 and 4 ranks, each
# in a fresh copy of the terrain run $w/t0 ($w/m; trv-terrain writes it anew)
mpi_stage() {
    tool=$1
    shift
    [ -x "$BIN/mpi/$tool" ] || { echo "MPI: $tool skipped (no $BIN/mpi/$tool)"; return 0; }
    echo "MPI: $tool at $res m; load $(uptime | sed 's/.*load average: //')"
    printf '%-10s %9s %9s %8s\n' ranks cpu_s wall_s speedup
    fresh() { rm -rf "$w/m"; [ "$tool" = trv-terrain ] || cp -r "$w/t0" "$w/m"; }
    fresh
    one=$(run "$BIN/$tool" "$@")
    printf '%-10s %9s %9s %8s\n' single $(echo "$one" | tr , ' ' | cut -d' ' -f1-2) 1.00
    s2=
    for np in 1 2 4; do
        fresh
        r=$(run mpirun $ROOT --mca mpi_yield_when_idle 1 -np $np --oversubscribe "$BIN/mpi/$tool" "$@")
        s=$(echo "$one $r" | tr , ' ' | awk '{printf "%.2f", $2 / $5}')
        [ $np = 2 ] && s2=$s
        printf '%-10s %9s %9s %8s\n' "mpi $np" $(echo "$r" | tr , ' ' | cut -d' ' -f1-2) "$s"
    done
    echo "$s2" | awk '{f = 2 / $1 - 1; f = f < 0 ? 0 : f > 1 ? 1 : f
        printf "Amdahl: serial fraction f = %.2f (from the 2-rank speed-up %.2f); expected speed-up", f, $1
        n = split("8 32 128", N, " "); for (i = 1; i <= n; i++) printf " %s ranks %.1f%s", N[i], 1 / (f + (1 - f) / N[i]), i < n ? "," : "\n" }'
}
mpi_stage trv-terrain $IN -o "$w/m"
mpi_stage trv-speed $SPEED --terrain "$w/m"
mpi_stage trv-cost $COST --terrain "$w/m"
