#!/usr/bin/env bash
# The cold footprint of a period: the engine playing mda EPiano from a pad (as the host row of
# BENCHMARKS.md's row 9), each measured period after 96 MB were written, so every cache line it
# touches comes from memory, as it does live after the process thread slept while other processes
# ran. valgrind's callgrind simulates this machine's caches (64 KiB L1i, 48 KiB L1d, 32 MiB
# last level) and counts, inside the measured periods only, the instructions and the data lines
# fetched from memory, split into the plugin's own (EPiano and the libm it calls) and the rest,
# pulsejack's. A count that does not depend on the machine's load, where timing a cold period
# moves by ±50 % from one run to the next on this VM.
# Usage: scripts/callgrind-footprint.sh [path/to/pulsejack-bench]   (default .build/release/pulsejack-bench)
set -euo pipefail
binary="${1:-.build/release/pulsejack-bench}"
periods="${FOOTPRINT_PERIODS:-64}"
work="$(mktemp -d -t pulsejack-footprint.XXXXXX)"
trap 'rm -rf "$work"' EXIT
command -v valgrind >/dev/null || ./scripts/install-debs.sh valgrind
# valgrind 3.19 cannot read DWARF 5: a copy stripped of debug information.
objcopy --strip-debug "$binary" "$work/bench"
symbol=$(nm "$work/bench" | awk '/HostCostBench.*15footprintPeriod/ && ($2 == "t" || $2 == "T") && !found { found = $3 } END { print found }')
[ -n "$symbol" ] || { echo "callgrind-footprint: no footprintPeriod in $binary" >&2; exit 1; }
FOOTPRINT_PERIODS=$periods valgrind --tool=callgrind --cache-sim=yes \
    --I1=65536,8,64 --D1=49152,12,64 --LL=33554432,16,64 \
    --collect-atstart=no "--toggle-collect=$symbol" --callgrind-out-file="$work/callgrind.out" \
    "$work/bench" --only footprint >/dev/null 2>"$work/valgrind.log" || { cat "$work/valgrind.log" >&2; exit 1; }
# Self costs by object: Ir, and the data lines missed in the last level (DLmr + DLmw).
callgrind_annotate --show=Ir,DLmr,DLmw --threshold=100 "$work/callgrind.out" 2>/dev/null | awk -v periods="$periods" '
    /\[.*\]$/ && $1 ~ /^[0-9,]+$/ {
        gsub(",", "", $1); ir = $1 + 0
        n = 0; for (i = 2; i <= NF; i++) if ($i ~ /^[0-9,]+$/ || $i == ".") { v = $i; gsub(",", "", v); cost[++n] = (v == "." ? 0 : v + 0) }
        lines = cost[1] + cost[2]
        plugin = ($NF ~ /EPiano\.so|libm\.so/)
        if (plugin) { pir += ir; plines += lines } else { oir += ir; olines += lines }
    }
    END {
        printf "per cold period (%d periods): pulsejack %d instructions, %.1f data lines from memory; the plugin (EPiano, libm) %d instructions, %.1f lines\n",
            periods, oir / periods, olines / periods, pir / periods, plines / periods
    }'
