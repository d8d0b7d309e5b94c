#!/usr/bin/env bash
# make soak: pulsejack live for SOAK_SECONDS (default 600) at a 64-frame period on a private
# dummy jackd, replaying a changing-tempo session, with mutated OSC packets arriving beside it
# and the output recorded. Prints RSS at start and end, xruns, frames run vs recorded (must be
# equal) and the run's beats vs an offline render of the session it applied. Exit 1 on a
# mismatch. Not part of `make test`.
set -uo pipefail
cd "$(dirname "$0")/.."
seconds="${SOAK_SECONDS:-600}"
server="pulsejack-soak"
work="$(mktemp -d -t pulsejack-soak.XXXXXX)"
pulsejack=.build/debug/pulsejack
port=$((20000 + RANDOM % 20000))

jackd --no-realtime -n "$server" -d dummy -r 48000 -p 64 >"$work/jackd.log" 2>&1 &
jackd_pid=$!
cleanup() {
    [ -n "${run_pid:-}" ] && kill "$run_pid" 2>/dev/null
    [ -n "${fuzz_pid:-}" ] && kill "$fuzz_pid" 2>/dev/null
    kill "$jackd_pid" 2>/dev/null && wait "$jackd_pid" 2>/dev/null
    rm -rf "$work"
}
trap cleanup EXIT
if ! JACK_NO_START_SERVER=1 jack_wait -s "$server" -w -t 15 >/dev/null; then
    echo "soak: could not start jackd -n $server (see $work/jackd.log)" >&2
    cat "$work/jackd.log" >&2
    exit 1
fi

# The heart: 60 → 140 BPM and back every 40 s, a new rate each second.
python3 - "$seconds" >"$work/session.csv" <<'PY'
import math, sys
print("time,bpm")
for second in range(int(sys.argv[1]) + 5):
    print(f"{second},{100 + 40 * math.sin(2 * math.pi * second / 40):.3f}")
PY

JACK_DEFAULT_SERVER="$server" "$pulsejack" run --preset presets/pulsonify --name pj-soak --osc-port "$port" \
    --replay "$work/session.csv" --record "$work/soak.wav" --record-session "$work/soak.log" >"$work/run.log" 2>&1 &
run_pid=$!
for _ in $(seq 50); do grep -q "playing" "$work/run.log" && break; sleep 0.1; done
sleep 2
rss_start=$(awk '/VmRSS/ {print $2}' "/proc/$run_pid/status")
python3 scripts/osc-fuzz-send.py "$port" "$((seconds - 5))" 1000 >"$work/fuzz.log" 2>&1 &
fuzz_pid=$!
sleep "$((seconds - 2))"
rss_end=$(awk '/VmRSS/ {print $2}' "/proc/$run_pid/status")
status=$("$pulsejack" status --osc-port "$port" 2>&1 | grep -E "^(xruns|frames_skipped|frames_rewound|malformed|received|kernel_drops|clipped_samples)" | tr '\n' ' ')
wait "$fuzz_pid"
fuzz_pid=
kill -INT "$run_pid"
wait "$run_pid"
run_pid=
summary=$(grep "stopped after" "$work/run.log")
frames=$(sed -E 's/.*stopped after ([0-9]+) frames.*/\1/' <<<"$summary")
beats=$(sed -E 's/.*frames: ([0-9]+) beats.*/\1/' <<<"$summary")
xruns=$(sed -E 's/.* ([0-9]+) xruns.*/\1/' <<<"$summary")
recorded=$(soxi -s "$work/soak.wav")
render=$("$pulsejack" render --preset presets/pulsonify --session "$work/soak.log" --out "$work/offline.wav" --period 64)
offline_beats=$(sed -E 's/.* ([0-9]+) beats.*/\1/' <<<"$render")

echo "soak: ${seconds} s live at 64 frames, pulsonify, changing tempo, $(cat "$work/fuzz.log" | sed 's/fuzz: //')"
echo "soak: RSS ${rss_start} kB at start, ${rss_end} kB at the end"
echo "soak: status: $status"
echo "soak: $summary"
echo "soak: frames run ${frames}, recorded ${recorded} (sox)"
echo "soak: beats live ${beats}, offline render of the applied session ${offline_beats}"
ok=0
[ "$frames" = "$recorded" ] || { echo "soak: FAILED: the recording has ${recorded} frames, the run ${frames}"; ok=1; }
[ "$beats" = "$offline_beats" ] || { echo "soak: FAILED: ${beats} beats live, ${offline_beats} offline"; ok=1; }
[ "$ok" = 0 ] || exit 1
echo "soak: passed (xruns: ${xruns})"
# The reliability row of BENCHMARKS.md (make bench keeps it).
row="| 8. Reliability | ${seconds} s live, 64-frame period, PulSonify preset, heart 60–140 BPM, $(sed -E 's/fuzz: sent ([0-9]+) .*/\1/' "$work/fuzz.log") mutated OSC packets beside it, recording | RSS ${rss_start} kB at start, ${rss_end} kB at the end; ${xruns} xruns; frames run ${frames} = recorded ${recorded}; beats live ${beats} = offline ${offline_beats}; 0 crashes | an offline render of the session log the run applied; the file's own length (sox) | \`make soak\` |"
python3 - "$row" <<'PY'
import sys
row = sys.argv[1]
lines = open("BENCHMARKS.md").read().split("\n")
lines = [line for line in lines if not line.endswith("`make soak` |")]
last = max(index for index, line in enumerate(lines) if line.startswith("| ") and line.endswith("` |"))
lines.insert(last + 1, row)
open("BENCHMARKS.md", "w").write("\n".join(lines))
PY
echo "soak: wrote its row into BENCHMARKS.md"
