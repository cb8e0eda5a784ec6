# Sourced by tools/mkdocs.sh and tools/mkman.sh: what both read out of a
# tool's --help text (in a file).

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
