#!/bin/sh
# Faults at the tool level (issue 15, defects 4-6): an output that is an
# input is refused by every tool (exit 2, "output 'X' is also an input",
# the input byte-identical afterwards), by resolved path and by inode; two
# outputs of one run that are one file are refused before any work (exit
# 2, "output 'X' is given twice", nothing created); a tool killed with
# SIGKILL while writing leaves its final names absent and only its hidden
# temporaries, which the next run into the directory removes; a read-only
# output directory fails the run and creates nothing; a full disk fails it
# naming the output and the cause and leaves nothing; two runs writing the
# same outputs at once both succeed with one run's bytes. Ends with
# "N passed, N failed, N skipped".
set -u
BIN=${TRV_BIN:-bin}
DATA=${TRV_DATADIR:-data}
tmp=$(mktemp -d /tmp/trv-faults-test-XXXXXX)
trap 'chmod -R u+w "$tmp" 2>/dev/null; rm -rf "$tmp"' EXIT
. "$(dirname "$0")/lib.sh"

# refused STATUS MESSAGE -- command...: exits STATUS, says MESSAGE, and
# leaves $I and $T exactly as their pristine copies (no file changed,
# none added)
refused() {
    want=$1 msg=$2
    shift 3
    "$@" >"$tmp/stdout" 2>"$tmp/stderr"
    got=$?
    if [ "$got" != "$want" ]; then bad "$* -> exit $got, want $want ($(cat "$tmp/stderr"))"; return; fi
    if ! grep -qF -- "$msg" "$tmp/stderr"; then bad "$* -> stderr lacks \"$msg\": $(cat "$tmp/stderr")"; return; fi
    if ! diff -r "$I" "$tmp/ref/in" >/dev/null || ! diff -r "$T" "$tmp/ref/t" >/dev/null; then
        bad "$* changed its inputs: $(diff -r "$I" "$tmp/ref/in"; diff -r "$T" "$tmp/ref/t")"
        return
    fi
    ok
}

# inputs: a real DEM, a CSV, a vehicle file; a run directory whose layers
# are placeholders (every check below is refused before anything is read)
I=$tmp/in T=$tmp/t
mkdir -p "$I" "$T/sim" "$tmp/ref"
cp "$DATA/jacksboro/dem_3arcsec.tif" "$I/dem.tif"
ln "$I/dem.tif" "$I/hard.tif"
printf 'slope,elevation,cone_index,speed\n5,300,80,20\n' >"$I/in.csv"
cp "$DATA/vehicles/truck_6x6.ini" "$I/v.ini"
printf '{"type":"FeatureCollection","features":[]}\n' >"$I/r.geojson"
for f in dem slope soil landuse speed gonogo cost class; do echo "$f" >"$T/$f.tif"; done
echo roadmap >"$T/roadmap.gpkg"
echo '{}' >"$T/sim/metrics.json"
cp "$DATA/scenarios/demo.ini" "$I/metrics.json"
cp -r "$I" "$tmp/ref/in" && cp -r "$T" "$tmp/ref/t"
# (the hard link is two files in the copy: the copy compares the bytes)
ALSO="is also an input"

# ---- output = input, every tool ----
refused 2 "output '$I/dem.tif' $ALSO" -- "$BIN/trv-krige" "$I/dem.tif" -o "$I/dem.tif"
refused 2 "$ALSO" -- "$BIN/trv-krige" "$I/dem.tif" -o "$I/../in/./dem.tif"
refused 2 "output '$I/hard.tif' $ALSO" -- "$BIN/trv-krige" "$I/dem.tif" -o "$I/hard.tif"
refused 2 "output '$I/dem.tif' $ALSO" -- "$BIN/trv-krige" "$I/dem.tif" -o "$tmp/x.tif" --cv "$I/dem.tif"
refused 2 "output '$I/dem.tif' $ALSO" -- "$BIN/trv-krige" "$I/in.csv" -o "$tmp/x.tif" --like "$I/dem.tif" --std "$I/dem.tif"
# a relative output against an absolute input
refused 2 "output 'dem.tif' $ALSO" -- sh -c 'cd "$1" && exec "$2" "$1/dem.tif" -o dem.tif' sh "$I" "$(cd "$BIN" && pwd)/trv-krige"
refused 2 "output '$I/dem.tif' $ALSO" -- "$BIN/trv-render" "$I/dem.tif" -o "$I/dem.tif"
refused 2 "output '$I/r.geojson' $ALSO" -- "$BIN/trv-render" "$I/dem.tif" -o "$I/r.geojson" --overlay "$I/r.geojson"
refused 2 "output '$I/hard.tif' $ALSO" -- "$BIN/trv-render" "$T/slope.tif" -o "$I/hard.tif" --hillshade "$I/dem.tif"
refused 2 "output '$T/dem.tif' $ALSO" -- "$BIN/trv-terrain" --dem "$T/dem.tif" --soil "$T/soil.tif" --landuse "$T/landuse.tif" -o "$T"
refused 2 "output '$I/v.ini' $ALSO" -- "$BIN/trv-terrain" --dem "$I/dem.tif" --soil "$T/soil.tif" --landuse "$T/landuse.tif" \
    -o "$tmp/tt" --points "$I/v.ini" --soil-classes "$I/v.ini"
refused 2 "output '$I/v.ini' $ALSO" -- "$BIN/trv-speed" --terrain "$T" --vehicle "$I/v.ini" --report "$I/v.ini"
refused 2 "output '$T/slope.tif' $ALSO" -- "$BIN/trv-speed" --terrain "$T" --vehicle "$I/v.ini" --report "$T/slope.tif"
refused 2 "output '$I/in.csv' $ALSO" -- "$BIN/trv-cost" --rules "$DATA/fuzzy/mobility.fcl" --eval "$I/in.csv" -o "$I/in.csv"
refused 2 "output '$T/cost.tif' $ALSO" -- "$BIN/trv-cost" --terrain "$T" --rules "$T/cost.tif"
refused 2 "output '$T/speed.tif' $ALSO" -- "$BIN/trv-roadmap" --terrain "$T" -o "$T/speed.tif"
refused 2 "output '$T/roadmap.gpkg' $ALSO" -- "$BIN/trv-route" --roadmap "$T/roadmap.gpkg" --terrain "$T" \
    --from 1,1 --to 2,2 --srs EPSG:32616 -o "$T/roadmap.gpkg"
refused 2 "output '$T/cost.tif' $ALSO" -- "$BIN/trv-route" --roadmap "$T/roadmap.gpkg" --terrain "$T" \
    --from 1,1 --to 2,2 --srs EPSG:32616 -o "$tmp/r.geojson" --stats "$T/cost.tif"
refused 2 "output '$I/metrics.json' $ALSO" -- "$BIN/trv-sim" --terrain "$T" --scenario "$I/metrics.json" -o "$I"
refused 2 "output '$T/slope.tif' $ALSO" -- "$BIN/trv-project" "$T" -o "$T/slope.tif"
refused 2 "output '$T/dem.tif' $ALSO" -- "$BIN/trv-report" "$T" -o "$T/dem.tif"
refused 2 "output '$T/sim/metrics.json' $ALSO" -- "$BIN/trv-report" "$T" -o "$tmp/r.md" --html "$T/sim/metrics.json"

# ---- two outputs, one file: refused before any work, nothing created ----
D=$tmp/dup
mkdir "$D"
TWICE="is given twice"
refused 2 "output '$D/x.tif' $TWICE" -- "$BIN/trv-krige" "$I/dem.tif" -o "$D/x.tif" --std "$D/x.tif"
refused 2 "output '$D/./x.tif' $TWICE" -- "$BIN/trv-krige" "$I/dem.tif" -o "$D/x.tif" --std "$D/./x.tif"
refused 2 "output '$D/x.csv' $TWICE" -- "$BIN/trv-krige" "$I/dem.tif" -o "$D/k.tif" --cv "$D/x.csv" --points "$D/x.csv"
refused 2 "output '$D/x.csv' $TWICE" -- "$BIN/trv-route" --roadmap "$T/roadmap.gpkg" --terrain "$T" \
    --from 1,1 --to 2,2 --srs EPSG:32616 -o "$D/r.geojson" --csv "$D/x.csv" --stats "$D/x.csv"
refused 2 "output '$D/x.md' $TWICE" -- "$BIN/trv-report" "$T" -o "$D/x.md" --html "$D/x.md"
[ -z "$(ls -A "$D")" ] && ok || bad "a refused run left files: $(ls -A "$D")"

# ---- kill -9 mid-write, then a rerun into the same directory ----
# trv-krige stages its QGIS styles, then writes the layers (6 MB) under
# their temporary names: killed as soon as the first temporary appears
K=$tmp/k
mkdir "$K"
cp "$DATA/jacksboro/dem_3arcsec.tif" "$K/src.tif"
krige() { "$BIN/trv-krige" -q "$K/src.tif" -o "$K/dem.tif" --std "$K/std.tif" --threads 1; }
krige &
pid=$!
i=0
while [ $i -lt 6000 ] && ! ls -A "$K" | grep -q '\.tmp'; do
    sleep 0.005
    i=$((i + 1))
done
kill -9 "$pid" 2>/dev/null
wait "$pid"
rc=$?
if [ "$rc" != 137 ]; then
    skip "kill -9 mid-write: trv-krige ended (status $rc) before it could be killed"
else
    ok
    ls -A "$K" | grep -q '^\.dem\.tmp[0-9]*\.' && ok || bad "no temporary of the killed run: $(ls -A "$K")"
    [ ! -e "$K/dem.tif" ] && [ ! -e "$K/std.tif" ] && [ ! -e "$K/krige.json" ] && ok ||
        bad "the killed run left final names: $(ls -A "$K")"
fi
# another process's temporary (alive: this shell) and another name's stay
echo live >"$K/.dem.tmp$$.tif"
echo other >"$K/.src2.tmp$pid.tif"
if krige 2>"$tmp/stderr"; then ok; else bad "the rerun: $(cat "$tmp/stderr")"; fi
left=$(ls -A "$K" | grep '\.tmp' | grep -v "^\.dem\.tmp$$\.tif\$" | grep -v "^\.src2\.tmp$pid\.tif\$")
[ -z "$left" ] && ok || bad "the rerun left the killed run's temporaries: $left"
[ -e "$K/.dem.tmp$$.tif" ] && [ -e "$K/.src2.tmp$pid.tif" ] && ok ||
    bad "the rerun removed a live process's temporary or another name's: $(ls -A "$K")"
gdalinfo -checksum "$K/dem.tif" 2>/dev/null | grep -q 'Checksum=' && cmp -s "$K/src.tif" "$DATA/jacksboro/dem_3arcsec.tif" && ok ||
    bad "the rerun's DEM is not readable or the input changed"

# ---- read-only output directory: fails, creates nothing ----
R=$tmp/ro
mkdir "$R"
if can_make_readonly "$R"; then
    readonly_run "$R" "$BIN/trv-krige" -q "$DATA/jacksboro/dem_3arcsec.tif" -o "$R/x.tif" --threads 1 >/dev/null 2>"$tmp/stderr"
    rc=$?
    [ "$rc" = 1 ] && grep -qF "is not writable (" "$tmp/stderr" && grep -qF "'$R'" "$tmp/stderr" && ok ||
        bad "read-only directory: exit $rc, $(cat "$tmp/stderr")"
    [ -z "$(ls -A "$R")" ] && ok || bad "read-only directory: files appeared: $(ls -A "$R")"
else
    skip "cannot make a directory read-only here"
fi

# ---- a full disk: fails naming the output and the cause, leaves nothing ----
# a 256 kB tmpfs filled up, in a private mount namespace (root only); each
# writer in turn: trv-krige (its QGIS style, then GDAL's GeoTIFF), libpng
# (trv-render), stdio (trv-cost --eval's CSV); the message names a final
# path (not a hidden temporary) and the cause. The listing is taken inside
# the namespace.
F=$tmp/full
mkdir "$F"
printf 'slope,elevation,ci,speed\n5,300,800,20\n' >"$tmp/eval.csv"
full_run() { # NAME COMMAND...: run it on the full disk F; F's listing after it in $tmp/full.ls
    unshare --mount /bin/sh -c 'mount -t tmpfs -o size=256k tmpfs "$0" && dd if=/dev/zero of="$0/fill" bs=4k 2>/dev/null
        ls_to=$1; shift; "$@"; rc=$?; ls -A "$0" >"$ls_to.ls"; exit $rc' "$F" "$tmp/full" "$@"
}
if [ "$(id -u)" != 0 ] || ! unshare --mount /bin/sh -c 'mount -t tmpfs -o size=64k tmpfs "$0"' "$F" 2>/dev/null; then
    skip "a full disk: needs root and mount namespaces for a private tmpfs"
else
    for job in "krige:x.tif" "render:x.png" "cost:x.csv"; do
        out=$F/${job#*:}
        case $job in
        krige*) set -- "$BIN/trv-krige" -q "$DATA/jacksboro/dem_3arcsec.tif" -o "$out" --threads 1 ;;
        render*) set -- "$BIN/trv-render" -q "$DATA/jacksboro/dem_3arcsec.tif" -o "$out" ;;
        cost*) set -- "$BIN/trv-cost" -q --rules "$DATA/fuzzy/mobility.fcl" --eval "$tmp/eval.csv" -o "$out" ;;
        esac
        full_run "$@" >/dev/null 2>"$tmp/stderr"
        rc=$?
        [ "$rc" = 1 ] && grep -qF "cannot write '$F/" "$tmp/stderr" && ! grep -q '\.tmp' "$tmp/stderr" &&
            grep -q "No space left on device" "$tmp/stderr" &&
            ok || bad "full disk, ${job%%:*}: exit $rc, $(cat "$tmp/stderr")"
        [ "$(cat "$tmp/full.ls")" = fill ] && ok || bad "full disk, ${job%%:*}: left $(tr '\n' ' ' <"$tmp/full.ls")"
    done
fi

# ---- concurrent writers: two runs into the same names at once ----
# each writes its own temporaries and renames them into place: both
# succeed, the result is one run's bytes (the same inputs give the same
# bytes), no temporary is left, and neither removes the other's live one
C=$tmp/conc
mkdir "$C"
krige1() { "$BIN/trv-krige" -q "$DATA/jacksboro/dem_3arcsec.tif" -o "$1/dem.tif" --std "$1/std.tif" --threads 1 --seed 7; }
krige1 "$C" 2>"$tmp/c1" &
p1=$!
krige1 "$C" 2>"$tmp/c2" &
p2=$!
wait $p1; r1=$?
wait $p2; r2=$?
[ "$r1" = 0 ] && [ "$r2" = 0 ] && ok || bad "concurrent writers: exits $r1 and $r2: $(cat "$tmp/c1" "$tmp/c2")"
mkdir "$C/both"
mv "$C/dem.tif" "$C/std.tif" "$C/krige.json" "$C/both/"
krige1 "$C" # alone, into the same names (the paths are in the metadata)
cmp -s "$C/dem.tif" "$C/both/dem.tif" && cmp -s "$C/std.tif" "$C/both/std.tif" && cmp -s "$C/krige.json" "$C/both/krige.json" &&
    ok || bad "concurrent writers: the result differs from a run alone"
left=$(ls -A "$C" | grep '\.tmp')
[ -z "$left" ] && ok || bad "concurrent writers left temporaries: $left"

summary tool_faults
