#!/usr/bin/env bash
# Instructions for a fixed offline render: 64 sample voices, each fired on every beat at 60 BPM,
# for SECONDS (default 60) of audio at 48 kHz, 256-frame periods, the WAV written to /dev/null.
# Counted by valgrind's callgrind, which does not depend on the machine's load. valgrind 3.19
# cannot read DWARF 5, so it runs a copy of the binary stripped of debug information.
# Usage: scripts/callgrind-render.sh [path/to/pulsejack]   (default .build/release/pulsejack)
set -euo pipefail
binary="${1:-.build/release/pulsejack}"
seconds="${SECONDS_OF_AUDIO:-60}"
work="$(mktemp -d -t pulsejack-callgrind.XXXXXX)"
trap 'rm -rf "$work"' EXIT
command -v valgrind >/dev/null || ./scripts/install-debs.sh valgrind
sox -n -r 48000 -c 2 "$work/sustain.wav" synth 1.1 sine 220 sine 330 vol 0.05
{
    printf 'name: callgrind-64\nvoices:\n'
    for index in $(seq 0 63); do
        printf '  - name: v%d\n    kind: sample\n    file: sustain.wav\n    gain: 0.01\n    polyphony: 2\n' "$index"
    done
} >"$work/preset.yaml"
printf 'time,bpm\n0,60\n%d,60\n' "$seconds" >"$work/session.csv"
objcopy --strip-debug "$binary" "$work/pulsejack"
valgrind --tool=callgrind --callgrind-out-file="$work/callgrind.out" \
    "$work/pulsejack" render --preset "$work/preset.yaml" --session "$work/session.csv" \
    --duration "$seconds" --out /dev/null >/dev/null 2>"$work/valgrind.log"
grep -o 'Collected : [0-9]*' "$work/valgrind.log" | awk '{print $3}'
