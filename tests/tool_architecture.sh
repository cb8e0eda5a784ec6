#!/bin/sh
# The architecture of docs/ARCHITECTURE.md holds in the code:
#  - each module's #include lines name exactly the modules its row of the
#    table says it depends on (no upward and no undeclared arrow), and no
#    module includes another's private header (*_priv.h);
#  - GDAL, OGR, PROJ, CPL and libtiff headers are included in src/geo/ only;
#  - every symbol libtraverse.a exports carries its module's prefix;
#  - no file of src/ or tools/ outside src/run/ spells a file of the run
#    directory ("slope.tif", "route.json"): the names come from the run
#    tables;
#  - nothing reads a tool's printed output: the Makefile saves none
#    (`> $(OUT)/x.txt`) and src/ opens no such file.
# Ends with "N passed, N failed, N skipped".
set -u
cd "$(dirname "$0")/.."
. tests/lib.sh
LIB=${TRV_LIB:-lib/libtraverse.a}
arch=docs/ARCHITECTURE.md

# the table's rows: "| module | `prefix_` | dep dep | what |"
rows=$(sed -n 's/^| \([a-z]*\) | `\([a-z]*_\)` | \([a-z -]*\) | .*/\1 \2 \3/p' "$arch")
[ "$(echo "$rows" | wc -l)" -ge 10 ] && ok || bad "$arch: the module table has fewer than 10 rows"
for m in $(ls -d src/*/ | xargs -n1 basename); do
    echo "$rows" | grep -q "^$m " && ok || bad "module src/$m/ has no row in $arch"
done

echo "$rows" | while read -r m prefix deps; do
    [ -d "src/$m" ] || { echo "FAIL: $arch names module $m, but there is no src/$m/"; continue; }
    want=$(echo "$deps" | tr ' ' '\n' | grep -v '^-$' | grep -v '^$' | sort -u | tr '\n' ' ')
    have=$(grep -ho '#include "[a-z]*/' src/"$m"/*.[ch] | sed 's/#include "//; s|/$||' | sort -u | grep -vx "$m" | tr '\n' ' ')
    [ "$want" = "$have" ] || echo "FAIL: src/$m includes [$have] but $arch says it depends on [$want]"
    priv=$(grep -n '#include "[a-z]*/[a-z_]*_priv\.h"' src/"$m"/*.[ch] | grep -v "\"$m/" || true)
    [ -z "$priv" ] || echo "FAIL: src/$m includes another module's private header: $priv"
done >"${TMPDIR:-/tmp}/trv-arch.$$"
if [ -s "${TMPDIR:-/tmp}/trv-arch.$$" ]; then
    while read -r line; do bad "${line#FAIL: }"; done <"${TMPDIR:-/tmp}/trv-arch.$$"
else
    ok
fi
rm -f "${TMPDIR:-/tmp}/trv-arch.$$"

gdal=$(grep -ln '#include <\(gdal\|ogr_\|cpl_\|proj\|tiffio\)' src/*/*.[ch] tools/*.[ch] | grep -v '^src/geo/' || true)
[ -z "$gdal" ] && ok || bad "GDAL/OGR/PROJ/CPL/libtiff included outside src/geo/: $gdal"

if [ -f "$LIB" ] && command -v nm >/dev/null 2>&1; then
    # member (object) -> its module through the source file of that name
    # (several modules may have one: prm/terrain.c and terrain/terrain.c;
    # the symbol must carry the prefix of one of them)
    wrong=$(nm -g --defined-only "$LIB" 2>/dev/null | awk '
        /^$/ { next }
        /:$/ { obj = substr($0, 1, length($0) - 1); sub(/\.o$/, "", obj); next }
        NF == 3 { print obj, $3 }' | while read -r obj sym; do
        found=0
        for src in src/*/"$obj".c; do
            [ -f "$src" ] || continue
            m=$(basename "$(dirname "$src")")
            prefix=$(echo "$rows" | awk -v m="$m" '$1 == m { print $2 }')
            case "$sym" in "$prefix"*) found=1 ;; esac
        done
        [ $found = 1 ] || echo "$obj.o:$sym"
    done)
    [ -z "$wrong" ] && ok || bad "exported without the module prefix: $(echo $wrong)"
else
    skip "no $LIB or no nm: build first (make)"
fi

# the layers (first schema of run.h) and the other files (second schema;
# SIM/ is a simulator run's folder, png/ a folder)
files=$(sed -n 's/^ \*   \([a-z_]*\.tif\) .*/\1/p' src/run/run.h)
[ "$(echo "$files" | wc -w)" -ge 10 ] && ok || bad "src/run/run.h: fewer than 10 layer rows in its schema comment"
others=$(sed -n 's/^ \*   \(SIM\/\)\{0,1\}\([a-z_]*\.[a-z]*\)  .*/\2/p' src/run/run.h | grep -v '\.tif$')
[ "$(echo "$others" | wc -w)" -ge 16 ] && ok || bad "src/run/run.h: fewer than 16 rows of other files in its schema comment"
for f in $files $others; do
    hits=$(grep -n "\"$f\"" src/*/*.c tools/*.c | grep -v '^src/run/' || true)
    [ -z "$hits" ] && ok || bad "run-directory file \"$f\" spelt outside src/run/: $hits"
done

saved=$(grep -n '> *\$(OUT)/[a-z_]*\.txt' Makefile || true)
[ -z "$saved" ] && ok || bad "the Makefile saves a tool's printed output: $saved"
txt=$(grep -n '"[a-z_]*\.txt"' src/*/*.c || true)
[ -z "$txt" ] && ok || bad "src/ opens a printed-output file: $txt"

summary tool_architecture
