# Sourced by tools/mkdocs.sh and tools/mkman.sh: the tools' --help texts,
# and what both read out of one (in a file).

# collect_help WHO BIN TMP: set $tools to the trv-* tools in BIN (sorted)
# and write each one's --help to TMP/<tool>.help; WHO names the caller in
# errors, which end the script
collect_help() {
    tools=$(ls "$2" | grep '^trv-' | sort)
    [ -n "$tools" ] || { echo "$1: no trv-* tools in '$2' (run make first)" >&2; exit 1; }
    for t in $tools; do
        "$2/$t" --help >"$3/$t.help" 2>&1 || { echo "$1: '$2/$t --help' failed" >&2; exit 1; }
    done
}

# the purpose: the summary paragraph (the first after the usage lines) up
# to its first ". " or ": " outside parentheses
purpose() {
    awk 'BEGIN { state = 0 }
        state == 0 && /^Usage/ { state = 1; next }
        state == 1 && /^$/ { state = 2; next }
        state == 2 && /^$/ { exit }
        state == 2 { text = text (text == "" ? "" : " ") $0 }
        END {
            depth = 0; out = text
            for (i = 1; i <= length(text); i++) {
                c = substr(text, i, 1); n = substr(text, i + 1, 1)
                if (c == "(") depth++
                else if (c == ")") depth--
                else if (depth == 0 && (c == "." || c == ":") && (n == " " || n == "")) { out = substr(text, 1, i - 1); break }
            }
            print out
        }' "$1"
}

# true when the tool reads bundled files ("... in the data directory")
uses_datadir() {
    grep -q 'in the data directory' "$1"
}

# The prose of a tool's page, kept by hand in docs/src/<tool>.md: exactly
# two sections, "## DESCRIPTION" then "## EXAMPLES", each with text, and
# the examples with at least one ```sh block. The Markdown is a subset
# that tools/mkman.sh turns into roff: paragraphs, "- " items (continued
# by lines indented two spaces), ```sh ... ``` blocks, `code`, **bold**,
# *italic* and [text](link); links are relative to docs/, where the page
# goes.

# src_dir: docs/src beside this script
src_dir() {
    echo "$(dirname "$0")/../docs/src"
}

# check_src WHO TOOLS: every tool has its source page, every source page
# a tool, each with its two sections; WHO names the caller in errors
check_src() {
    for t in $2; do
        f=$(src_dir)/$t.md
        [ -f "$f" ] || { echo "$1: no $f (the DESCRIPTION and EXAMPLES of $t)" >&2; exit 1; }
        awk -v who="$1" '
            /^```/ { if (!fence && $0 == "```sh" && sec == "EXAMPLES") sh++; fence = !fence; next }
            fence { next }
            /^## / { heads = heads $0 "|"; sec = $2; next }
            /^#/ { print who ": " FILENAME ":" NR ": only the two \"## \" headings belong here" > "/dev/stderr"; bad = 1 }
            sec == "" && NF { print who ": " FILENAME ":" NR ": text before ## DESCRIPTION" > "/dev/stderr"; bad = 1 }
            sec != "" && NF { text[sec]++ }
            END {
                if (bad) exit 1
                if (heads != "## DESCRIPTION|## EXAMPLES|") { print who ": " FILENAME ": the headings must be ## DESCRIPTION then ## EXAMPLES" > "/dev/stderr"; exit 1 }
                if (!text["DESCRIPTION"] || !text["EXAMPLES"]) { print who ": " FILENAME ": an empty section" > "/dev/stderr"; exit 1 }
                if (!sh) { print who ": " FILENAME ": EXAMPLES has no ```sh block" > "/dev/stderr"; exit 1 }
                if (fence) { print who ": " FILENAME ": a ``` block is not closed" > "/dev/stderr"; exit 1 }
            }' "$f" || exit 1
    done
    for f in "$(src_dir)"/trv-*.md; do
        [ -e "$f" ] || continue
        echo " $2 " | tr '\n' ' ' | grep -q " $(basename "$f" .md) " ||
            { echo "$1: $f has no tool in the tools' directory" >&2; exit 1; }
    done
}

# src_section TOOL NAME: the text of section NAME of the tool's source
# page, without its heading and the blank lines around it
src_section() {
    awk -v want="$2" '
        /^```/ { fence = !fence }
        !fence && /^## / { sec = $2; next }
        sec == want { line[++n] = $0 }
        END {
            first = 1; while (first <= n && line[first] == "") first++
            last = n; while (last >= first && line[last] == "") last--
            for (i = first; i <= last; i++) print line[i]
        }' "$(src_dir)/$1.md"
}
