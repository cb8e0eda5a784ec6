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
#   readonly_run DIR COMMAND...
#                        run COMMAND unable to write into DIR, whoever runs
#                        the tests (see below)
#   can_make_readonly DIR
#                        status 0 when readonly_run can make DIR unwritable
#                        here (it tries to write into DIR that way)
#   nonfinite_pair SRC XOFF YOFF DIR
#                        from the 12 x 10 cells of the Float32 GeoTIFF SRC
#                        (nodata -32768) at column XOFF, row YOFF: DIR/inf.tif
#                        with +Inf at cell (3, 3) and -Inf at (8, 6), and
#                        DIR/ref.tif with nodata there instead (written as
#                        ENVI raw floats, then GeoTIFF)
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
# PY: the first of /usr/bin/python3 and python3 that imports the modules
# named (default "osgeo.gdal, numpy": GDAL's bindings and numpy, the tests'
# independent reader); empty when neither does.
find_gdal_python() {
    PY=
    for _p in /usr/bin/python3 python3; do
        "$_p" -c "import ${1:-osgeo.gdal, numpy}" 2>/dev/null && { PY=$_p; return 0; }
    done
    return 0
}
summary() {
    echo "${1:+$1: }$pass passed, $fail failed, $nskip skipped"
    [ "$fail" = 0 ]
}

# A directory its owner cannot write into: for a user, chmod a-w (restored
# afterwards); root writes whatever the mode says, so for root DIR becomes a
# read-only bind mount of itself inside a private mount namespace (unshare
# --mount, util-linux), which only COMMAND sees. (Dropping to nobody with
# setpriv is not used: nobody cannot reach a checkout inside a private
# directory, such as the mode-700 folder .ci/run clones into.)
readonly_run() {
    _dir=$1
    shift
    if [ "$(id -u)" != 0 ]; then
        chmod a-w "$_dir"
        "$@"
        _rc=$?
        chmod u+w "$_dir"
        return $_rc
    fi
    unshare --mount /bin/sh -c 'mount --bind "$0" "$0" && mount -o remount,bind,ro "$0" && exec "$@"' "$_dir" "$@"
}
can_make_readonly() {
    readonly_run "$1" /bin/sh -c 'if true >"$0/.trv-probe" 2>/dev/null; then rm -f "$0/.trv-probe"; exit 1; fi' "$1" 2>/dev/null
}

nonfinite_pair() {
    gdal_translate -q -srcwin "$2" "$3" 12 10 -of ENVI "$1" "$4/nf_src.bin" || return 1
    python3 - "$4" <<'EOF' || return 1
import struct, sys
d = open(sys.argv[1] + "/nf_src.bin", "rb").read()
for name, a, b in (("inf", float("inf"), float("-inf")), ("ref", -32768.0, -32768.0)):
    o = bytearray(d)
    struct.pack_into("<f", o, 4 * (3 * 12 + 3), a)
    struct.pack_into("<f", o, 4 * (6 * 12 + 8), b)
    open("%s/nf_%s.bin" % (sys.argv[1], name), "wb").write(o)
EOF
    for n in inf ref; do
        cp "$4/nf_src.hdr" "$4/nf_$n.hdr" && gdal_translate -q "$4/nf_$n.bin" "$4/$n.tif" || return 1
    done
}

# The 90 m Jacksboro run directory the route tests plan on: the bundled DEM
# warped to 90 m UTM 16N (beside DIR: dem90.tif), trv-terrain, trv-speed
# with the vehicle VEHICLE (a file of data/vehicles), trv-cost; with
# ROADMAP, trv-roadmap --seed 4 into it. Uses BIN and DATA.
# plane_terrain DIR TMP: the simulator tests' run directory, a plane GO
# everywhere: 100 x 100 cells of 10 m at (500000, 4000000) in EPSG:32616,
# class 3, gonogo 0, cost 0.2, dem 100 + 0.01 column, slope 0.06, speed 20
# km/h (the ASCII grids in TMP); non-zero when it cannot be made.
plane_terrain() {
    mkdir -p "$1"
    for spec in "class 3 Byte" "gonogo 0 Byte" "cost 0.2 Float32" "dem (100+0.01*c) Float32" "slope 0.06 Float32" \
        "speed 20 Float32"; do
        set -- "$1" "$2" $spec
        awk "BEGIN {
            print \"ncols 100\"; print \"nrows 100\"; print \"xllcorner 500000\"; print \"yllcorner 4000000\";
            print \"cellsize 10\";
            for (r = 0; r < 100; r++) { line = \"\"; for (c = 0; c < 100; c++) line = line \" \" ($4); print line } }" \
            >"$2/$3.asc"
        gdal_translate -q -a_srs EPSG:32616 -ot "$5" "$2/$3.asc" "$1/$3.tif" || return 1
    done
    [ -f "$1/speed.tif" ]
}

terrain90() { # DIR VEHICLE [ROADMAP.gpkg]
    t90_dem=$(dirname "$1")/dem90.tif
    gdalwarp -q -t_srs EPSG:32616 -tr 90 90 -tap -r bilinear -ot Float32 -dstnodata -32768 \
        "$DATA/jacksboro/dem_3arcsec.tif" "$t90_dem" &&
        "$BIN/trv-terrain" -q --dem "$t90_dem" --soil "$DATA/jacksboro/soil_7p5arcsec.tif" \
            --landuse "$DATA/jacksboro/landuse_30m_utm16n.tif" --soil-classes "$DATA/classes/soils.csv" \
            --landuse-classes "$DATA/classes/landuse.csv" -o "$1" &&
        "$BIN/trv-speed" -q --terrain "$1" --vehicle "$DATA/vehicles/$2" --soils "$DATA/classes/soils.csv" \
            --landuse-classes "$DATA/classes/landuse.csv" &&
        "$BIN/trv-cost" -q --terrain "$1" --soils "$DATA/classes/soils.csv" --rules "$DATA/fuzzy/mobility.fcl" &&
        { [ -z "${3:-}" ] || "$BIN/trv-roadmap" -q --terrain "$1" -o "$3" --seed 4; }
}
