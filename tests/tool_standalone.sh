#!/bin/sh
# The repository stands alone: no tracked file names the design folder that
# sits beside a developer's checkout (the pattern is spelt in two pieces so
# that this file does not match itself), no tracked file reads the old
# variable that pointed there, and every relative link in README.md and docs/*.md
# points at a file inside the repository; the Markdown holds no control
# characters. Ends with "N passed, N failed, N skipped".
set -u
cd "$(dirname "$0")/.."
root=$(pwd)
. tests/lib.sh

if git rev-parse --is-inside-work-tree >/dev/null 2>&1; then
    files=$(git ls-files)
else
    files=$(find . -type f ! -path './build/*' ! -path './out/*' ! -path './bin/*' ! -path './lib/*' | sed 's|^\./||')
fi
[ -n "$files" ] && ok || bad "no files to check"

outside='\.\./'"shared"
env='TRV_'"SHARED"
for pat in "$outside" "$env"; do
    hits=$(echo "$files" | tr '\n' '\0' | xargs -0 grep -IlE -- "$pat" 2>/dev/null)
    if [ -z "$hits" ]; then ok; else bad "files refer to $pat: $(echo $hits)"; fi
done

# relative Markdown links: [text](path) or [text](path#anchor)
for md in README.md docs/*.md; do
    [ -f "$md" ] || continue
    dir=$(dirname "$md")
    for link in $(grep -oE '\]\([^)# ]+' "$md" | sed 's/^](//' | grep -vE '^[a-z]+:'); do
        target=$(cd "$dir" 2>/dev/null && realpath -m "$link")
        case "$target" in
            "$root"/*) if [ -e "$target" ]; then ok; else bad "$md links to $link, which does not exist"; fi ;;
            *) bad "$md links to $link, outside the repository" ;;
        esac
    done
done

# no control characters in the prose (a "\b" typed into a shell string once
# became a backspace where the formula's \beta belongs)
ctl=$(printf '[\001-\010\013\014\016-\037]')
hits=$(grep -l "$ctl" README.md docs/*.md docs/src/*.md 2>/dev/null)
if [ -z "$hits" ]; then ok; else bad "control characters in: $(echo $hits)"; fi

summary tool_standalone
