#!/bin/sh
# Section 1 manual pages (roff, man(7) macros) of the tools, from their own
# --help and docs/src/trv-<tool>.md, as tools/mkdocs.sh makes docs/:
# MANDIR/trv-<tool>.1 for every BINDIR/trv-*, with NAME (the purpose),
# SYNOPSIS, DESCRIPTION (the help's summary, then the page's DESCRIPTION),
# OPTIONS, EXIT STATUS, for the tools that read bundled files ENVIRONMENT
# and FILES (DATADIR: where `make install` puts them), EXAMPLES (the
# page's) and SEE ALSO. A --help whose layout this does not know is an
# error, not a page with a hole; so is Markdown outside the subset
# tools/helptext.sh describes.
# Usage: tools/mkman.sh BINDIR MANDIR [DATADIR]
#        (DATADIR default: /usr/local/share/traverse)
set -eu
[ $# -ge 2 ] || { echo "usage: tools/mkman.sh BINDIR MANDIR [DATADIR]" >&2; exit 2; }
BIN=$1
MAN=$2
DATADIR=${3:-/usr/local/share/traverse}
mkdir -p "$MAN"
tmp=$(mktemp -d /tmp/trv-mkman-XXXXXX)
trap 'rm -rf "$tmp"' EXIT

. "$(dirname "$0")/helptext.sh"

collect_help mkman "$BIN" "$tmp"
check_src mkman "$tools"
for t in $tools; do
    "$BIN/$t" --version >"$tmp/$t.version" 2>&1 || { echo "mkman: '$BIN/$t --version' failed" >&2; exit 1; }
done

# roff text: backslashes and hyphens escaped (\- is the minus that
# copies and pastes as one), a leading . or ' made literal
esc='function esc(s) {
    gsub(/\\/, "\\\\e", s); gsub(/-/, "\\\\-", s)
    if (s ~ /^[.'"'"']/) s = "\\&" s
    return s
}'

# Markdown of docs/src (the subset of tools/helptext.sh) as roff: a
# paragraph .PP, a "- " item .IP with a bullet, a ```sh block indented and
# unfilled; `code` and **bold** bold, *italic* italic, [text](link) its
# text; § the roff glyph, any other non-ASCII character an error
md2roff() {
    awk -v who="mkman: $1" "$esc"'
    function inline(s,    out, i, n, part, seg) {
        n = split(s, part, "`")
        if (n % 2 == 0) fail("an unclosed `")
        out = ""
        for (i = 1; i <= n; i++) {
            if (i % 2 == 0) { out = out "\\fB" esc(part[i]) "\\fR"; continue }
            seg = esc(part[i])
            while (match(seg, /\[[^]]*\]\([^)]*\)/)) {
                t = substr(seg, RSTART + 1, RLENGTH - 1); sub(/\]\(.*$/, "", t)
                seg = substr(seg, 1, RSTART - 1) t substr(seg, RSTART + RLENGTH)
            }
            while (match(seg, /\*\*[^*]+\*\*/)) seg = substr(seg, 1, RSTART - 1) "\\fB" substr(seg, RSTART + 2, RLENGTH - 4) "\\fR" substr(seg, RSTART + RLENGTH)
            while (match(seg, /\*[^* ][^*]*\*/)) seg = substr(seg, 1, RSTART - 1) "\\fI" substr(seg, RSTART + 1, RLENGTH - 2) "\\fR" substr(seg, RSTART + RLENGTH)
            out = out seg
        }
        gsub(/§/, "\\(sc", out)
        return out
    }
    function fail(why) { printf "%s, line %d: %s: %s\n", who, NR, why, $0 > "/dev/stderr"; bad = 1; exit 1 }
    /[^\001-\177]/ { t = $0; gsub(/§/, "", t); if (t ~ /[^\001-\177]/) fail("a non-ASCII character roff is not given") }
    code && /^```$/ { print ".fi"; print ".RE"; code = 0; pp = 1; next }
    code { print esc($0); next }
    /^```sh$/ { print ".PP"; print ".RS 4"; print ".nf"; code = 1; pp = 0; next }
    /^```/ { fail("a block other than ```sh") }
    /^$/ { pp = 1; next }
    /^- / { print ".IP \\(bu 2"; print inline(substr($0, 3)); pp = 0; next }
    { if (pp) print ".PP"; pp = 0; sub(/^ +/, ""); print inline($0) }
    END { if (!bad && code) { printf "%s: a ```sh block is not closed\n", who > "/dev/stderr"; exit 1 } }
    '
}

# the help text (sections: usage lines, the summary, Options:, Exit
# status:) as the body of a page, the roff file $3 after the summary
body() {
    awk -v tool="$1" -v prose="$3" "$esc"'
    # an option: "-o, --output FILE" bold names, italic values
    function optline(left,    n, w, i, out, tok) {
        n = split(left, w, " ")
        out = ""
        for (i = 1; i <= n; i++) {
            tok = w[i]
            if (tok ~ /^-/) {
                sub(/,$/, "", tok)
                out = out (out == "" ? "" : " ") "\\fB" esc(tok) "\\fR" (w[i] ~ /,$/ ? "," : "")
            } else
                out = out " \\fI" esc(tok) "\\fR"
        }
        return out
    }
    function flush_opt() { if (opt != "") { print ".TP"; print optline(opt); print esc(help) } opt = help = "" }
    function fail(why) { printf "mkman: %s, line %d: %s: %s\n", FILENAME, NR, why, $0 > "/dev/stderr"; bad = 1; exit 1 }
    BEGIN { state = "usage"; print ".SH SYNOPSIS" }
    state == "usage" && /^Usage: / { sub(/^Usage: [^ ]+ /, ""); print ".B " esc(tool); print esc($0); next }
    state == "usage" && /^   or: / { sub(/^   or: [^ ]+ /, ""); print ".br"; print ".B " esc(tool); print esc($0); next }
    state == "usage" && /^ +[^ ]/ { sub(/^ +/, ""); print esc($0); next }
    state == "usage" && /^$/ { state = "summary"; print ".SH DESCRIPTION"; next }
    # indented lines (a list such as the palettes) unfilled; a blank line
    # a new paragraph, unless the options follow
    state == "summary" && /^Options:$/ {
        if (nf) print ".fi"; nf = pp = 0
        while ((getline line < prose) > 0) print line
        state = "options"; print ".SH OPTIONS"; next
    }
    state == "summary" && /^$/ { if (nf) print ".fi"; nf = 0; pp = 1; next }
    state == "summary" { if (pp) print ".PP"; pp = 0 }
    state == "summary" && /^  / { if (!nf) print ".nf"; nf = 1; print esc($0); next }
    state == "summary" { if (nf) print ".fi"; nf = 0; print esc($0); next }
    # a help line continued: 32 spaces (spelt out: mawk has no {32})
    state == "options" && /^                                [^ ]/ { if (opt == "") fail("help text without its option"); sub(/^ +/, ""); help = help " " $0; next }
    state == "options" && /^  [- ]/ {
        flush_opt()
        if (length($0) > 32 && substr($0, 31, 2) == "  ") { opt = substr($0, 3, 28); help = substr($0, 33) }
        else opt = substr($0, 3)
        sub(/ +$/, "", opt); sub(/^ +/, "", opt)
        next
    }
    state == "options" && /^$/ { flush_opt(); state = "end"; next }
    state == "end" && /^Exit status: / { sub(/^Exit status: /, ""); print ".SH EXIT STATUS"; print esc($0); state = "done"; next }
    { fail("unexpected in state " state) }
    END { if (!bad && state != "done") { printf "mkman: %s: no \"Exit status:\" line\n", FILENAME > "/dev/stderr"; exit 1 } }
    ' "$2"
}

# the data directory, for the tools that read bundled files
datadir_sections() {
    awk -v dir="$DATADIR" "$esc"'BEGIN {
        print ".SH ENVIRONMENT"
        print ".TP"
        print ".B TRV_DATADIR"
        print esc("The data directory to look in first. Each bundled file is looked up in $TRV_DATADIR, then in")
        print esc("../data beside the directory of the tool (a source tree), then in ../share/traverse beside it")
        print esc("(an installation), so that an installed tree can be moved as a whole.")
        print ".SH FILES"
        print ".TP"
        print ".I " esc(dir "/")
        print esc("The data directory of this installation: classes/ (soil and land-use class tables),")
        print esc("vehicles/ (vehicle files), fuzzy/ (FCL rules), scenarios/ (simulator scenarios),")
        print esc("jacksboro/ (the demo area: DEM, soil and land-use maps), paper/ (the source paper'"'"'s tables).")
    }'
}

for t in $tools; do
    up=$(echo "$t" | tr '[:lower:]' '[:upper:]')
    version=$(sed -n '1s/^.* (traverse) //p' "$tmp/$t.version")
    [ -n "$version" ] || { echo "mkman: '$BIN/$t --version' does not name the traverse version" >&2; exit 1; }
    {
        echo ".\\\" Generated by tools/mkman.sh from '$t --help'; do not edit by hand."
        echo ".TH $up 1 \"\" \"traverse $version\" \"traverse manual\""
        echo ".SH NAME"
        purpose "$tmp/$t.help" | awk -v tool="$t" "$esc"'{ print esc(tool) " \\- " esc($0) }'
        src_section "$t" DESCRIPTION | md2roff "$t DESCRIPTION" >"$tmp/$t.desc" || exit 1
        { echo ".PP"; cat "$tmp/$t.desc"; } >"$tmp/$t.prose"
        body "$t" "$tmp/$t.help" "$tmp/$t.prose"
        if uses_datadir "$tmp/$t.help"; then datadir_sections; fi
        echo ".SH EXAMPLES"
        src_section "$t" EXAMPLES | md2roff "$t EXAMPLES" || exit 1
        echo ".SH SEE ALSO"
        for o in $tools; do [ "$o" = "$t" ] || echo "$o"; done |
            awk "$esc"'{ o[NR] = $0 } END { for (i = 1; i <= NR; i++) print ".BR " esc(o[i]) " (1)" (i < NR ? "," : "") }'
    } >"$tmp/$t.1"
    mv "$tmp/$t.1" "$MAN/$t.1"
done
echo "mkman: wrote $(echo "$tools" | wc -w) pages in $MAN/"
