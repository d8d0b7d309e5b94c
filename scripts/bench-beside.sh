#!/bin/bash
# Benchmark rows measured for two builds in one run: this tree's and the commit REV's (built in a
# clone of its own), each row run for one build and then the other, ROUNDS times, so the
# machine's drift over the run falls on both alike. Prints each run's row lines, labelled.
#   scripts/bench-beside.sh REV ROUNDS ROW...     e.g. scripts/bench-beside.sh eb82bda 3 modulation rest:1
# ROW: a `pulsejack-bench --only` name, with :N for N rounds of its own. Needs what `make bench`
# needs for those rows. BEFORE_TREE=DIR uses a clone already at REV (built there if needed, kept).
set -eu
cd "$(dirname "$0")/.."
[ $# -ge 3 ] || { echo "usage: scripts/bench-beside.sh REV ROUNDS ROW..." >&2; exit 2; }
rev=$1 rounds=$2
shift 2
before=$(mktemp -d)
trap 'rm -rf "$before"' EXIT
if [ -n "${BEFORE_TREE:-}" ]; then
    # A clone already at REV with its release build (the same run again, without building it again).
    [ "$(git -C "$BEFORE_TREE" rev-parse HEAD)" = "$(git rev-parse "$rev")" ] || { echo "BEFORE_TREE is not at $rev" >&2; exit 2; }
    ln -s "$(cd "$BEFORE_TREE" && pwd)" "$before/tree"
else
    git clone -q . "$before/tree"
    git -C "$before/tree" checkout -q "$rev"
fi
(cd "$before/tree" && swift build -c release --product pulsejack-bench >/dev/null && swift build -c release --product pulsejack >/dev/null)
swift build -c release --product pulsejack-bench >/dev/null
swift build -c release --product pulsejack >/dev/null
for round in $(seq "$rounds"); do
    for row in "$@"; do
        case $row in *:*) [ "$round" -le "${row#*:}" ] || continue; row=${row%%:*} ;; esac
        for build in "$rev:$before/tree" "this tree:$PWD"; do
            label=${build%%:*} folder=${build#*:}
            echo "## round $round, $row, $label"
            # --out names no file: the run prints its rows and writes none.
            (cd "$folder" && .build/release/pulsejack-bench --only "$row" --runs 1 --out "$before/none.md" 2>/dev/null) | grep ' | ' || true
        done
    done
done
