#!/bin/sh
# trv-route's route explained (issue 22 §3) on a 90 m Jacksboro terrain
# made by the pipeline, direction-aware: --profile's time and distance sum
# to each route's statistics in route.json (1e-6 relative); --time-shares
# sum to 1 per route and kind, their times to the route's time, and agree
# with route.json's time_shares, the profile's own rows and the console;
# every piece names its soil, land use and limit; --profile-png's size;
# bad output paths (an input, a directory, twice), nothing left. Ends with "N passed, N failed, N skipped".
set -u
BIN=${TRV_BIN:-bin}
DATA=${TRV_DATADIR:-data}
tmp=$(mktemp -d /tmp/trv-profile-test-XXXXXX)
trap 'rm -rf "$tmp"' EXIT
. "$(dirname "$0")/lib.sh"
expect() { # status message -- command...: and no route file left
    want=$1 msg=$2
    shift 3
    rm -f "$tmp/x.geojson"
    "$@" >"$tmp/stdout" 2>"$tmp/stderr"
    got=$?
    if [ "$got" != "$want" ]; then bad "$* -> exit $got, want $want ($(cat "$tmp/stderr"))"; return; fi
    if [ -n "$msg" ] && ! grep -qF -- "$msg" "$tmp/stderr"; then bad "$* -> stderr lacks '$msg': $(cat "$tmp/stderr")"; return; fi
    if [ -e "$tmp/x.geojson" ]; then bad "$* left a route behind"; return; fi
    ok
}

T=$tmp/t
terrain90 "$T" truck_6x6.ini "$tmp/rm.gpkg" ||
    { echo "cannot make the terrain and roadmap"; exit 1; }
FROM=-84.3637,36.6957 TO=-84.1994,36.5216
O=$tmp/o
mkdir -p "$O"
if "$BIN/trv-route" --roadmap "$tmp/rm.gpkg" --terrain "$T" --from $FROM --to $TO --compare --grid --no-timing \
    -o "$O/route.geojson" --stats "$O/stats.csv" --profile "$O/profile.csv" --time-shares "$O/shares.csv" \
    --profile-png "$O/profile.png" >"$tmp/out" 2>"$tmp/err"; then ok; else bad "route: $(cat "$tmp/err")"; fi
# the console: one line of shares per route, after the table
[ "$(grep -c ': time by land use ' "$tmp/out")" = 8 ] && ok || bad "console shares: $(cat "$tmp/out")"
gdalinfo "$O/profile.png" 2>/dev/null | grep -q 'Size is 1200, 560' && ok || bad "profile.png is not 1200 x 560"

if command -v python3 >/dev/null 2>&1; then
    cat >"$tmp/check.py" <<'EOF'
import csv, json, math, sys
o = sys.argv[1]
rj = json.load(open(o + "/route.json"))
prof = list(csv.DictReader(open(o + "/profile.csv")))
shares = list(csv.DictReader(open(o + "/shares.csv")))
bad = []
for r in rj["routes"]:
    name, T, D = r["route"], r["time_h"] * 3600, r["distance_m"]
    rows = [p for p in prof if p["route"] == name]
    if not rows:
        bad.append(name + ": no profile rows"); continue
    ts = sum(float(p["time_s"]) for p in rows)
    ls = sum(float(p["len_m"]) for p in rows)
    for what, got, want in (("time", ts, T), ("cum time", float(rows[-1]["cum_time_s"]), T),
                            ("length", ls, D), ("distance", float(rows[-1]["dist_m"]), D)):
        if not abs(got - want) <= 1e-6 * want:
            bad.append("%s: %s %.9g, route.json %.9g" % (name, what, got, want))
    if any(p["limit"] == "" or p["landuse"] == "" or p["soil"] == "" for p in rows):
        bad.append(name + ": a piece without limit, land use or soil (direction-aware)")
    for kind in ("landuse", "limit"):
        s = [x for x in shares if x["route"] == name and x["kind"] == kind]
        if abs(sum(float(x["share"]) for x in s) - 1) > 1e-5:
            bad.append("%s: %s shares sum to %g" % (name, kind, sum(float(x["share"]) for x in s)))
        if abs(sum(float(x["time_s"]) for x in s) - T) > 1e-3 * len(s):
            bad.append("%s: %s share times do not sum to the route's" % (name, kind))
        # the shares from the profile's own rows
        col = "landuse" if kind == "landuse" else "limit"
        for x in s:
            t = sum(float(p["time_s"]) for p in rows if p[col] == x["name"])
            if abs(t - float(x["time_s"])) > 1e-3 + 1e-6 * T:
                bad.append("%s: %s %s: %g s in the profile, %s in the shares" % (name, kind, x["name"], t, x["time_s"]))
            js = r["time_shares"][kind].get(x["name"])
            if js is None or abs(js - float(x["share"])) > 2e-6:
                bad.append("%s: route.json's %s share of %s is %s" % (name, kind, x["name"], js))
print("\n".join(bad) if bad else "ok")
EOF
    python3 "$tmp/check.py" "$O" >"$tmp/res" 2>&1
    [ "$(cat "$tmp/res")" = ok ] && ok || bad "$(head -5 "$tmp/res")"
else
    skip "python3 is needed to read route.json"
fi
# bad output paths: an input (the roadmap, a layer), a directory, a missing folder; nothing left
expect 2 "output '$tmp/rm.gpkg' is also an input" -- "$BIN/trv-route" --roadmap "$tmp/rm.gpkg" --terrain "$T" --from $FROM --to $TO -o "$tmp/x.geojson" --profile "$tmp/rm.gpkg"
expect 2 "output '$T/dem.tif' is also an input" -- "$BIN/trv-route" --roadmap "$tmp/rm.gpkg" --terrain "$T" --from $FROM --to $TO -o "$tmp/x.geojson" --profile-png "$T/dem.tif"
mkdir -p "$tmp/dir.csv"
expect 1 "cannot write '$tmp/dir.csv': a directory is in the way" -- "$BIN/trv-route" --roadmap "$tmp/rm.gpkg" --terrain "$T" --from $FROM --to $TO -o "$tmp/x.geojson" --profile "$tmp/dir.csv"
expect 1 "cannot write '$tmp/none/p.png': the folder '$tmp/none' does not exist" -- "$BIN/trv-route" --roadmap "$tmp/rm.gpkg" --terrain "$T" --from $FROM --to $TO -o "$tmp/x.geojson" --profile-png "$tmp/none/p.png"
expect 2 "output '$tmp/s.csv' is given twice" -- "$BIN/trv-route" --roadmap "$tmp/rm.gpkg" --terrain "$T" --from $FROM --to $TO -o "$tmp/x.geojson" --profile "$tmp/s.csv" --time-shares "$tmp/s.csv"

summary
