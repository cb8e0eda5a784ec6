#!/bin/sh
# docs/ is generated from the tools' --help (tools/mkdocs.sh, `make docs`):
# regenerate it into a temporary directory and require it to equal the
# committed pages, so that the manual pages the README points to never
# drift from the tools. Ends with "N passed, N failed, N skipped".
set -u
BIN=${TRV_BIN:-bin}
here=$(cd "$(dirname "$0")/.." && pwd)
tmp=$(mktemp -d /tmp/trv-docs-test-XXXXXX)
trap 'rm -rf "$tmp"' EXIT
. "$(dirname "$0")/lib.sh"
if sh "$here/tools/mkdocs.sh" "$BIN" "$tmp/docs" >/dev/null 2>"$tmp/err"; then ok; else bad "mkdocs: $(cat "$tmp/err")"; fi
for f in "$tmp"/docs/*.md; do
    name=$(basename "$f")
    cmp -s "$f" "$here/docs/$name" && ok || bad "docs/$name is out of date with $BIN's --help (run make docs)"
done
for f in "$here"/docs/trv-*.md; do
    [ -e "$tmp/docs/$(basename "$f")" ] || bad "docs/$(basename "$f") has no tool"
done
summary
