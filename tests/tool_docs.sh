#!/bin/sh
# docs/ is generated (tools/mkdocs.sh, `make docs`) from the tools' --help
# and the prose of docs/src/trv-*.md: regenerate it into a temporary
# directory and require it to equal the committed pages, so that the
# manual pages the README points to never drift from the tools. Every tool
# page has its DESCRIPTION and EXAMPLES, and the examples work: each ```sh
# block of the EXAMPLES, in the pipeline's order (the pages build one run
# directory), is run from the repository root with the tools on the PATH
# and /tmp/ moved into a temporary directory, and must exit 0.
# Ends with "N passed, N failed, N skipped".
set -u
BIN=${TRV_BIN:-bin}
here=$(cd "$(dirname "$0")/.." && pwd)
case $BIN in /*) ;; *) BIN=$here/$BIN ;; esac
tmp=$(mktemp -d /tmp/trv-docs-test-XXXXXX)
trap 'rm -rf "$tmp"' EXIT
. "$(dirname "$0")/lib.sh"
if sh "$here/tools/mkdocs.sh" "$BIN" "$tmp/docs" >/dev/null 2>"$tmp/err"; then ok; else bad "mkdocs: $(cat "$tmp/err")"; fi
for f in "$tmp"/docs/*.md; do
    [ -e "$f" ] || continue
    name=$(basename "$f")
    cmp -s "$f" "$here/docs/$name" && ok || bad "docs/$name is out of date with $BIN's --help or docs/src/$name (run make docs)"
done
for f in "$here"/docs/trv-*.md; do
    [ -e "$tmp/docs/$(basename "$f")" ] || bad "docs/$(basename "$f") has no tool"
done

# each page: a DESCRIPTION with text, then the options, then EXAMPLES
# with a shell block
for f in "$here"/docs/trv-*.md; do
    heads=$(grep '^## ' "$f" | tr '\n' '|')
    case $heads in "## DESCRIPTION|## SYNOPSIS AND OPTIONS|## EXAMPLES|"*) ok ;;
        *) bad "$(basename "$f"): sections '$heads', not DESCRIPTION, SYNOPSIS AND OPTIONS, EXAMPLES first" ;; esac
    words=$(sed -n '/^## DESCRIPTION$/,/^## /p' "$f" | grep -v '^## ' | wc -w)
    [ "$words" -ge 40 ] && ok || bad "$(basename "$f"): the DESCRIPTION has $words words"
    sed -n '/^## EXAMPLES$/,/^## /p' "$f" | grep -q '^```sh$' && ok || bad "$(basename "$f"): EXAMPLES without a \`\`\`sh block"
done

# the prose the man pages are made from: ASCII and the section sign only
# (tools/mkman.sh refuses anything else, and make install would fail)
for f in "$here"/docs/src/trv-*.md; do
    odd=$(LC_ALL=C grep -n "$(printf '[^\001-\177\302\247]')" "$f" | head -1)
    [ -z "$odd" ] && ok || bad "$(basename "$f"): a character the man pages cannot take, line $odd"
done

# the examples, in the order the pages build the run directory
order="trv-krige trv-terrain trv-speed trv-cost trv-roadmap trv-route trv-fleet trv-sim trv-render trv-project trv-report trv-export"
tools=$(cd "$BIN" && ls trv-* | sort | tr '\n' ' ')
[ "$(echo $order | tr ' ' '\n' | sort | tr '\n' ' ')" = "$tools" ] && ok ||
    bad "the examples' order ($order) does not name every tool in $BIN ($tools)"
ex=$tmp/ex
mkdir -p "$ex"
for t in $order; do
    page=$here/docs/$t.md
    [ -f "$page" ] || { bad "no docs/$t.md"; continue; }
    # the ```sh blocks of EXAMPLES, one file each
    sed -n '/^## EXAMPLES$/,/^## /p' "$page" |
        awk -v out="$tmp/$t.block" '/^```sh$/ { n++; on = 1; next } /^```$/ { on = 0; next } on { print > (out n) }'
    for b in "$tmp/$t".block*; do
        [ -e "$b" ] || { bad "$t: no example ran"; break; }
        sed "s|/tmp/|$ex/|g" "$b" >"$b.sh"
        if (cd "$here" && PATH="$BIN:$PATH" sh -e "$b.sh") >"$b.log" 2>&1; then ok; else
            bad "docs/$t.md: example ${b##*.block} failed: $(head -3 "$b") ... : $(tail -3 "$b.log")"
        fi
    done
done
# the run directory the examples built is a whole run
for f in dem_kriged.tif dem.tif slope.tif soil.tif landuse.tif speed.tif gonogo.tif cost.tif class.tif roadmap.gpkg \
    route.geojson route_stats.csv sim/metrics.json png/routes.png project.qgs report.md report.html nav2/map.pgm nav2_mdr/waypoints.yaml; do
    [ -s "$ex/jacksboro/$f" ] && ok || bad "the examples left no jacksboro/$f"
done

summary
