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
