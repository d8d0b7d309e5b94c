#!/usr/bin/env bash
# The cold footprint of a period: the engine playing mda EPiano from a pad (as the host row of
# BENCHMARKS.md's row 9), each measured period after 96 MB were written, so every cache line it
# touches comes from memory, as it does live after the process thread slept while other processes
# ran. valgrind's callgrind simulates this machine's caches (64 KiB L1i, 48 KiB L1d, 32 MiB
# last level) and counts, inside the measured periods only, the instructions, the data lines
# fetched from memory and the lines of code run, split into the plugin's own (EPiano and the libm
# it calls) and the rest, pulsejack's. Counts that do not depend on the machine's load, where
# timing a cold period moves by ±50 % from one run to the next on this VM; with Swift's hashing
# seeded and no address randomisation (which moved the data lines by ±3), the same every run.
# Each period is also profiled on its own (dumped after it): the lines of code a period runs, averaged.
# With --functions, pulsejack's functions that run the most lines of code follow, with their data lines.
# Usage: scripts/callgrind-footprint.sh [--functions] [path/to/pulsejack-bench]   (default .build/release/pulsejack-bench)
set -euo pipefail
functions=0
if [ "${1:-}" = --functions ]; then functions=1; shift; fi
binary="${1:-.build/release/pulsejack-bench}"
periods="${FOOTPRINT_PERIODS:-64}"
work="$(mktemp -d -t pulsejack-footprint.XXXXXX)"
trap 'rm -rf "$work"' EXIT
command -v valgrind >/dev/null || ./scripts/install-debs.sh valgrind
# valgrind 3.19 cannot read DWARF 5: a copy stripped of debug information.
objcopy --strip-debug "$binary" "$work/bench"
symbol=$(nm "$work/bench" | awk '/HostCostBench.*15footprintPeriod/ && ($2 == "t" || $2 == "T") && !found { found = $3 } END { print found }')
[ -n "$symbol" ] || { echo "callgrind-footprint: no footprintPeriod in $binary" >&2; exit 1; }
SWIFT_DETERMINISTIC_HASHING=1 FOOTPRINT_PERIODS=$periods setarch "$(uname -m)" --addr-no-randomize valgrind --tool=callgrind --cache-sim=yes --dump-instr=yes \
    --I1=65536,8,64 --D1=49152,12,64 --LL=33554432,16,64 \
    --collect-atstart=no "--toggle-collect=$symbol" "--dump-after=$symbol" --callgrind-out-file="$work/callgrind.out" \
    "$work/bench" --only footprint >/dev/null 2>"$work/valgrind.log" || { cat "$work/valgrind.log" >&2; exit 1; }
# Self costs per instruction address, by object: instructions, the data lines missed in the last
# level (DLmr + DLmw), and the distinct 64-byte lines of code run (over all the measured periods:
# those with a note-on and those without). The plugin's: EPiano and the libm it calls.
python3 - "$work" "$periods" "$functions" <<'PARSE'
import glob, re, sys
import subprocess
work, periods, functions = sys.argv[1], int(sys.argv[2]), sys.argv[3] == "1"
names, function_names = {}, {}
by_function = {}  # pulsejack's: name -> [code lines, data lines]
instructions, lines, code = {True: 0, False: 0}, {True: 0, False: 0}, {True: set(), False: set()}
# One profile a period (dumped after each): the lines of code each period runs, averaged.
per_period = {True: [], False: []}
def position(token, last):
    if token == "*": return last
    if token[0] in "+-": return last + int(token, 0) if token[0] == "+" else last - int(token[1:], 0)
    return int(token, 0)
for path in glob.glob(work + "/callgrind.out.*"):
    current, function, address, call = None, None, 0, False
    period_code = {True: set(), False: set()}
    with open(path) as profile:
        for raw in profile:
            line = raw.strip()
            named = re.match(r"^(c?)ob=\((\d+)\)(?: (.*))?$", line)
            if named:
                if named.group(3): names[named.group(2)] = named.group(3)
                if not named.group(1): current = names[named.group(2)]
                continue
            named = re.match(r"^(c?)fn=\((\d+)\)(?: (.*))?$", line)
            if named:
                if named.group(3): function_names[named.group(2)] = named.group(3)
                if not named.group(1): function = function_names[named.group(2)]
                continue
            if line.startswith("calls="): call = True; continue
            if not line or not (line[0].isdigit() or line[0] in "+-*"): continue
            fields = line.split()
            address = position(fields[0], address)
            if call: call = False; continue  # a call's inclusive cost, not this object's own
            costs = [int(field) for field in fields[2:]] + [0] * 9
            plugin = bool(re.search(r"EPiano\.so|libm\.so", current or ""))
            instructions[plugin] += costs[0]
            lines[plugin] += costs[7] + costs[8]
            if costs[0]: period_code[plugin].add((current, address >> 6))
            if costs[0] and (current, address >> 6) not in code[plugin]:
                code[plugin].add((current, address >> 6))
                if not plugin: by_function.setdefault(function, [0, 0])[0] += 1
            if not plugin and costs[7] + costs[8]: by_function.setdefault(function, [0, 0])[1] += costs[7] + costs[8]
    if period_code[False]:
        for plugin in (False, True): per_period[plugin].append(len(period_code[plugin]))
assert len(per_period[False]) == periods, "one profile a measured period"
for plugin, name in ((False, "pulsejack"), (True, "the plugin (EPiano, libm)")):
    print("%s: %d instructions, %.1f data lines from memory a cold period; %d lines of code run (%d periods), %.1f a period"
          % (name, instructions[plugin] // periods, lines[plugin] / periods, len(code[plugin]), periods,
             sum(per_period[plugin]) / periods))
if functions:
    top = sorted(by_function.items(), key=lambda item: -item[1][0])[:20]
    readable = subprocess.run(["swift", "demangle", "--simplified"], input="\n".join(name or "?" for name, _ in top),
                              capture_output=True, text=True).stdout.splitlines()
    print("pulsejack's functions by lines of code run (and data lines from memory a cold period):")
    for (name, (lines_run, missed)), shown in zip(top, readable):
        print("  %4d  %6.1f  %s" % (lines_run, missed / periods, shown[:140]))
PARSE
