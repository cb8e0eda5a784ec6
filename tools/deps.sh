#!/bin/sh
# Install the Debian packages traverse needs, when missing.
# Usage: tools/deps.sh PACKAGE...
# As root: apt-get update && apt-get install. Otherwise: print the exact
# command and fail, so that nothing half-works.
set -eu
missing=""
for p in "$@"; do
    if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
        missing="$missing $p"
    fi
done
[ -z "$missing" ] && exit 0
echo "traverse: missing Debian packages:$missing" >&2
if [ "$(id -u)" = 0 ]; then
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -qq
    # shellcheck disable=SC2086
    apt-get install -y -qq --no-install-recommends $missing
else
    echo "traverse: run this as root, then try again:" >&2
    echo "    sudo apt-get update && sudo apt-get install -y --no-install-recommends$missing" >&2
    exit 1
fi
