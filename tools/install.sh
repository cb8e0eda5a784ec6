#!/bin/sh
# make install / make uninstall, with a manifest: install records every file
# it writes and every directory it creates (relative to ROOT) in
# ROOT/share/traverse/install-manifest.txt; uninstall removes exactly
# those files, then those directories that are empty, deepest first, and
# keeps every directory that was there before. Installing again over an
# installation adds to its manifest, so what an older version installed
# is still removed.
# Usage: tools/install.sh install ROOT < LIST   (LIST: lines "MODE SOURCE DEST", DEST relative to ROOT)
#        tools/install.sh uninstall ROOT
set -eu
[ $# = 2 ] || { echo "usage: tools/install.sh install|uninstall ROOT" >&2; exit 2; }
ROOT=$2
MANIFEST=share/traverse/install-manifest.txt

# create DIR (relative to ROOT) and its missing parents, recording those
# created ("d DIR") in the manifest
makedirs() {
    case $1 in .) return 0 ;; esac
    [ -d "$ROOT/$1" ] && return 0
    makedirs "$(dirname "$1")"
    mkdir "$ROOT/$1"
    echo "d $1" >>"$ROOT/$MANIFEST"
}

install_all() {
    mkdir -p "$ROOT"
    # the manifest first, so that a failure half-way leaves a record of
    # what was written; its own directories are recorded once it exists
    d=$(dirname "$MANIFEST") created=""
    while [ "$d" != . ] && [ ! -d "$ROOT/$d" ]; do created="$d $created"; d=$(dirname "$d"); done
    mkdir -p "$ROOT/$(dirname "$MANIFEST")"
    for d in $created; do echo "d $d"; done >>"$ROOT/$MANIFEST"
    echo "f $MANIFEST" >>"$ROOT/$MANIFEST"
    n=0
    while read -r mode src dest; do
        [ -n "$dest" ] || { echo "install: bad list line: $mode $src" >&2; exit 1; }
        makedirs "$(dirname "$dest")"
        echo "f $dest" >>"$ROOT/$MANIFEST"
        install -m "$mode" "$src" "$ROOT/$dest"
        n=$((n + 1))
    done
    sort -u "$ROOT/$MANIFEST" >"$ROOT/$MANIFEST.tmp"
    mv "$ROOT/$MANIFEST.tmp" "$ROOT/$MANIFEST"
    echo "install: $n files under $ROOT (manifest: $ROOT/$MANIFEST)"
}

uninstall_all() {
    [ -f "$ROOT/$MANIFEST" ] || { echo "uninstall: no $ROOT/$MANIFEST: nothing installed there by make install" >&2; exit 1; }
    list=$(mktemp /tmp/trv-uninstall-XXXXXX)
    trap 'rm -f "$list"' EXIT
    cp "$ROOT/$MANIFEST" "$list"
    n=0
    while read -r kind path; do
        [ "$kind" = f ] || continue
        if [ -e "$ROOT/$path" ] || [ -L "$ROOT/$path" ]; then rm -f "$ROOT/$path" && n=$((n + 1)); fi
    done <"$list"
    # deepest first: a directory sorts after its parent
    sed -n 's/^d //p' "$list" | sort -r | while read -r path; do
        [ -d "$ROOT/$path" ] || continue
        rmdir "$ROOT/$path" 2>/dev/null || echo "uninstall: kept $ROOT/$path: not empty (files not installed by make install)"
    done
    echo "uninstall: removed $n files under $ROOT"
}

case $1 in
install) install_all ;;
uninstall) uninstall_all ;;
*) echo "usage: tools/install.sh install|uninstall ROOT" >&2; exit 2 ;;
esac
