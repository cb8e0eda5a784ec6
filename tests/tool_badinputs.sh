#!/bin/sh
# docs/bad-inputs.md, the table of bad inputs and what each tool answers,
# kept true by the tests it cites (issue 15). For every row of its tables
# (| bad input | tools | exit | message | left on disk | test |):
# - the test column names one or more files under tests/ that exist, and
#   each holds at least one of the row's fragments;
# - every `fragment` of the message column and of the test column (other
#   than the file names) is found on one line of one of those files, its
#   pieces around "…" (U+2026, standing for a path or a number) in order.
#   A line is read with the shell variables the file sets to a plain
#   string ($ALSO="is also an input") put in and \" read as ";
# - where that line is an `expect N` or `refused N` call, N is the row's
#   exit status.
# And the other way: the message of every `refused` call of
# tests/tool_faults.sh and every message it greps for, its path variables
# written "…/", is a fragment of a row that cites tool_faults.sh and
# names the tool the call runs, so a new fault test without its row fails
# here. TRV_BADINPUTS_DOC overrides the
# page (to see this test fail on a wrong row).
# Ends with "N passed, N failed, N skipped".
set -u
here=$(cd "$(dirname "$0")/.." && pwd)
. "$(dirname "$0")/lib.sh"
doc=${TRV_BADINPUTS_DOC:-$here/docs/bad-inputs.md}
tmp=$(mktemp -d /tmp/trv-badinputs-test-XXXXXX)
trap 'rm -rf "$tmp"' EXIT
[ -s "$doc" ] || { bad "no $doc"; summary; exit 1; }

# the rows, one a line: exit TAB tools TAB test-files TAB fragments
# (fragments and files separated by \037); "\|" in a cell is a "|"
awk -v OFS='\t' '
function frags(cell, out,   s, i, j) {
    s = cell
    while ((i = index(s, "`")) > 0) {
        s = substr(s, i + 1)
        j = index(s, "`")
        if (j == 0) break
        out[++out[0]] = substr(s, 1, j - 1)
        s = substr(s, j + 1)
    }
}
/^\|/ {
    line = $0
    gsub(/\\\|/, "\036", line)
    n = split(line, c, "|")
    if (n < 8) next
    for (i = 2; i < n; i++) { gsub(/\036/, "|", c[i]); gsub(/^ +| +$/, "", c[i]) }
    if (c[2] == "bad input" || c[2] ~ /^-+$/) next
    delete m; m[0] = 0; frags(c[5], m)
    delete t; t[0] = 0; frags(c[7], t)
    files = ""; fr = ""
    for (i = 1; i <= m[0]; i++) fr = fr (fr == "" ? "" : "\037") m[i]
    for (i = 1; i <= t[0]; i++) {
        if (t[i] ~ /^tests\/[^ ]+\.(sh|c)$/) files = files (files == "" ? "" : "\037") t[i]
        else fr = fr (fr == "" ? "" : "\037") t[i]
    }
    ex = c[4]; gsub(/[^0-9]/, "", ex)
    # (read splits on tabs as on blanks: an empty field would vanish)
    print NR, ex == "" ? "-" : ex, c[3], files == "" ? "-" : files, fr == "" ? "-" : fr
}' "$doc" >"$tmp/rows"
nrows=$(wc -l <"$tmp/rows")
[ "$nrows" -ge 40 ] && ok || bad "$doc: $nrows rows read, want the whole table (40 or more)"

# a test file with its plain-string variables put in: expanded/NAME
expand() {
    awk '
    FNR == NR {
        if (match($0, /^[ \t]*[A-Za-z_][A-Za-z_0-9]*="[^"$`\\]*"[ \t]*$/)) {
            s = $0; sub(/^[ \t]*/, "", s); k = s; sub(/=.*/, "", k)
            v = s; sub(/^[^=]*="/, "", v); sub(/"[ \t]*$/, "", v); val[k] = v
        }
        next
    }
    function put(s,   k, i, out, rest, nx, name) {
        for (k in val) {
            out = ""; rest = s
            while ((i = index(rest, "$" k)) > 0) {
                nx = substr(rest, i + 1 + length(k), 1)
                if (nx ~ /[A-Za-z_0-9]/) { out = out substr(rest, 1, i + length(k)); rest = substr(rest, i + 1 + length(k)); continue }
                out = out substr(rest, 1, i - 1) val[k]; rest = substr(rest, i + 1 + length(k))
            }
            s = out rest
            out = ""; rest = s; name = "${" k "}"
            while ((i = index(rest, name)) > 0) { out = out substr(rest, 1, i - 1) val[k]; rest = substr(rest, i + length(name)) }
            s = out rest
        }
        return s
    }
    { s = put($0); gsub(/\\"/, "\"", s); print s } # and \" as the tool prints it
    ' "$1" "$1"
}
# the lines of FILE holding FRAGMENT (its pieces around ... in order): "NR<TAB>line"
lines_with() {
    TRV_FRAG=$2 awk '
    BEGIN { n = split(ENVIRON["TRV_FRAG"], p, "\342\200\246") }
    { s = $0; ok = 1
      for (i = 1; i <= n; i++) { if (p[i] == "") continue; j = index(s, p[i]); if (!j) { ok = 0; break } s = substr(s, j + length(p[i])) }
      if (ok) print FNR "\t" $0 }' "$1"
}
# the expansion works: $ALSO is put in on tool_faults.sh's lines
expand "$here/tests/tool_faults.sh" | grep -q "refused 2 \"output '\$I/dem.tif' is also an input\"" && ok ||
    bad "the variable expansion of tests/tool_faults.sh does not put \$ALSO in"

# ---- every row: its files, its fragments, its exit status ----
while IFS='	' read -r nr ex tools files fr; do
    where="$(basename "$doc"):$nr"
    [ "$files" != - ] || { bad "$where: no test file (\`tests/...\`) in the test column"; continue; }
    [ "$fr" != - ] || { bad "$where: no \`fragment\` in the message or test column"; continue; }
    : >"$tmp/found"
    missing=0
    IFS=$(printf '\037')
    for f in $files; do
        if [ ! -f "$here/$f" ]; then bad "$where: no file $f"; missing=1; continue; fi
        [ -f "$tmp/x.$(echo "$f" | tr / _)" ] || expand "$here/$f" >"$tmp/x.$(echo "$f" | tr / _)"
    done
    [ $missing = 0 ] || { IFS=' 	
'; continue; }
    for g in $fr; do
        hit=0 status_ok=0 status_seen=0
        for f in $files; do
            lines_with "$tmp/x.$(echo "$f" | tr / _)" "$g" >"$tmp/hits"
            [ -s "$tmp/hits" ] || continue
            hit=1
            echo "$f" >>"$tmp/found"
            calls=$(sed -n -e 's/^[0-9]*	[ 	]*expect \([0-9]\) .*/\1/p' -e 's/^[0-9]*	[ 	]*refused \([0-9]\) .*/\1/p' "$tmp/hits" | sort -u)
            if [ -n "$calls" ]; then
                status_seen=1
                echo "$calls" | grep -qx "$ex" && status_ok=1
            fi
        done
        if [ $hit = 0 ]; then bad "$where: \`$g\` is in none of $(echo "$files" | tr '\037' ' ')"
        elif [ $status_seen = 1 ] && [ $status_ok = 0 ]; then bad "$where: \`$g\`: the test expects exit $calls, the row says $ex"
        else ok; fi
    done
    for f in $files; do
        grep -qxF "$f" "$tmp/found" && ok || bad "$where: $f holds none of the row's fragments"
    done
    IFS=' 	
'
done <"$tmp/rows"

# ---- every fault test of tool_faults.sh has its row ----
# each `refused` call's message and each message grepped for, with its
# variables put in and a path variable ($I/) written "…/", must be one of
# the fragments of a row citing tool_faults.sh, whose tools column names
# the tool the call runs
F=tests/tool_faults.sh
expand "$here/$F" | awk '
    function out(m, rest,   tool) {
        gsub(/\$\{?[A-Za-z_][A-Za-z_0-9]*\}?\//, "\342\200\246/", m)
        tool = "-"; if (match(rest, /trv-[a-z]+/)) tool = substr(rest, RSTART, RLENGTH)
        print FNR "\t" tool "\t" m
    }
    /^[ \t]*refused [0-9] "/ {
        s = $0; sub(/^[ \t]*refused [0-9] "/, "", s); m = s; sub(/".*/, "", m)
        out(m, substr(s, length(m) + 2)); next
    }
    { s = $0
      while (match(s, /grep -q[A-Za-z]* (-- )?"[^"]*"/)) {
          m = substr(s, RSTART, RLENGTH); s = substr(s, RSTART + RLENGTH)
          sub(/^[^"]*"/, "", m); sub(/"$/, "", m)
          if (m ~ /^[^$]* /) out(m, "")
      } }' >"$tmp/faults"
[ "$(wc -l <"$tmp/faults")" -ge 25 ] && ok || bad "$F: fewer than 25 refused calls and messages read: the reading is broken"
grep -F "$F" "$tmp/rows" >"$tmp/frows"
while IFS='	' read -r lno tool msg; do
    found=0
    while IFS='	' read -r nr ex tools files fr; do
        if [ "$tool" != - ]; then
            case " $(echo "$tools" | tr -c 'a-z-' ' ') " in *" $tool "*) ;; *) continue ;; esac
        fi
        echo "$fr" | tr '\037' '\n' | grep -qxF -- "$msg" && { found=1; break; }
    done <"$tmp/frows"
    [ $found = 1 ] && ok || bad "$F:$lno: no row of $(basename "$doc") has \`$msg\`$([ "$tool" = - ] || echo " with $tool in its tools column")"
done <"$tmp/faults"

summary tool_badinputs
