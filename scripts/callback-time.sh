#!/bin/bash
# The process callback's own cost, pulsejack against jalv: an LD_PRELOAD shim
# (scripts/callback-time.c) times every call of each client's process callback. Each round is a
# private dummy jackd at 256 frames with pulsejack and jalv, started in turn in either order;
# each callback's median and mean over the same 20 s. Prints each round and the medians over
# the rounds. Two cases:
#   rest   `pulsejack run` (the click preset at 73 BPM, OSC on) and jalv hosting eg-amp, at rest
#   piano  both hosting mda EPiano, played from one JACK MIDI pad (scripts/midi-pad.c: a note
#          every 8 periods, held 4, as row 9's pad)
#   scripts/callback-time.sh [ROUNDS] [rest|piano]   (default 6 rest; needs .build/release/pulsejack, gcc, jalv)
set -eu
cd "$(dirname "$0")/.."
rounds=${1:-6}
case=${2:-rest}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
gcc -O2 -Wall -shared -fPIC -o "$work/callback-time.so" scripts/callback-time.c -ldl -lpthread
case $case in
    rest)
        pulsejack_arguments=(--preset presets/click --bpm 73 --osc-port 0)
        jalv_plugin=http://lv2plug.in/plugins/eg-amp ;;
    piano)
        gcc -O2 -Wall -o "$work/midi-pad" scripts/midi-pad.c -ljack
        printf '%s\n' 'name: callback-time-piano' 'voices:' '  - name: piano' '    kind: lv2' \
            '    plugin: http://drobilla.net/plugins/mda/EPiano' '    on_beat: false' '    midi_note: 60' \
            '    length: 0.021333' > "$work/piano.yaml"
        pulsejack_arguments=(--preset "$work/piano.yaml" --no-osc)
        jalv_plugin=http://drobilla.net/plugins/mda/EPiano ;;
    *) echo "usage: scripts/callback-time.sh [ROUNDS] [rest|piano]" >&2; exit 2 ;;
esac
export CALLBACK_TIME_DIR="$work"
snapshot() { cat "$work/$1" 2>/dev/null || echo 0; }
# "median_ns mean_ns calls" of the calls between two snapshots (50 ns bins: the median is the bin's middle).
between() {
    awk -v before="$1" -v after="$2" 'BEGIN {
        n = split(before, b, " "); split(after, a, " ")
        calls = a[1] - b[1]; total = a[2] - b[2]; seen = 0
        for (bin = 3; bin <= n; bin++) { seen += a[bin] - b[bin]; if (seen * 2 >= calls) { median = (bin - 3) * 50 + 25; break } }
        printf "%d %d %d", median, total / calls, calls }'
}
pj_medians=() jalv_medians=() pj_means=() jalv_means=()
for round in $(seq 1 "$rounds"); do
    server="pj-cbtime-$$-$round"
    jackd --no-realtime -n "$server" -d dummy -r 48000 -p 256 >/dev/null 2>&1 & jackd_pid=$!
    sleep 1.5
    start_pj() {
        JACK_DEFAULT_SERVER=$server LD_PRELOAD="$work/callback-time.so" .build/release/pulsejack run --name pj-cbtime \
            "${pulsejack_arguments[@]}" >/dev/null 2>&1 < /dev/null & pj_pid=$!
        sleep 1.5
    }
    start_jalv() {
        # Its console quits at the end of its input: a pipe kept open until the round ends.
        mkfifo "$work/jalv-input-$round"
        JACK_DEFAULT_SERVER=$server LD_PRELOAD="$work/callback-time.so" jalv -x -n jalv-cbtime \
            "$jalv_plugin" < "$work/jalv-input-$round" >/dev/null 2>&1 & jalv_pid=$!
        exec 3> "$work/jalv-input-$round"
        sleep 1.5
    }
    if [ $((round % 2)) -eq 1 ]; then start_pj; start_jalv; first=pulsejack; else start_jalv; start_pj; first=jalv; fi
    pad_pid=
    if [ "$case" = piano ]; then
        JACK_DEFAULT_SERVER=$server "$work/midi-pad" pj-cbtime:midi_in jalv-cbtime:event_in & pad_pid=$!
    fi
    sleep 3
    pj_before=$(snapshot "$pj_pid") jalv_before=$(snapshot "$jalv_pid")
    sleep 20
    pj_after=$(snapshot "$pj_pid") jalv_after=$(snapshot "$jalv_pid")
    # The pad leaves first, and wholly, before the clients it plays.
    [ -z "$pad_pid" ] || { kill "$pad_pid"; wait "$pad_pid" 2>/dev/null || true; }
    kill -INT "$pj_pid"; kill "$jalv_pid" 2>/dev/null || true
    exec 3>&-
    wait "$pj_pid" "$jalv_pid" 2>/dev/null || true
    kill "$jackd_pid"; wait "$jackd_pid" 2>/dev/null || true
    read -r pj_median pj_mean pj_calls <<< "$(between "$pj_before" "$pj_after")"
    read -r jalv_median jalv_mean jalv_calls <<< "$(between "$jalv_before" "$jalv_after")"
    pj_medians+=("$pj_median") jalv_medians+=("$jalv_median") pj_means+=("$pj_mean") jalv_means+=("$jalv_mean")
    echo "round $round ($first first): pulsejack median $pj_median ns, mean $pj_mean ns; jalv median $jalv_median ns, mean $jalv_mean ns ($pj_calls and $jalv_calls periods)"
done
median() { printf '%s\n' "$@" | sort -n | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : int((v[NR / 2] + v[NR / 2 + 1]) / 2) }'; }
echo "process callback ($case), over $rounds rounds: pulsejack median $(median "${pj_medians[@]}") ns (mean $(median "${pj_means[@]}") ns), jalv median $(median "${jalv_medians[@]}") ns (mean $(median "${jalv_means[@]}") ns) a period"
