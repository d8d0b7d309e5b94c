#!/usr/bin/env bash
# The fingerprint of every shipped preset and session rendered offline: one line per render with
# the SHA-256 of its WAV, of its fired events (--events-out) and of each stem. A structural change
# that must not change behaviour is checked by running this before and after and comparing:
#
#   scripts/render-fingerprints.sh > before.txt          # on the old build
#   scripts/render-fingerprints.sh > after.txt           # on the new one
#   diff before.txt after.txt                            # no output: bit-identical
#
# PULSEJACK names the tool (default .build/debug/pulsejack). Sessions the presets do not ship (a
# hand pose, EEG band powers, beats, RR intervals, a pulse wave) are written here, the same every
# time, so Tambour's regions, MusicMood's moods and every heart source are covered too.
set -euo pipefail
cd "$(dirname "$0")/.."
tool=${PULSEJACK:-.build/debug/pulsejack}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# Hands moving through Tambour's six regions: 20 s, 50 readings a second.
awk 'BEGIN { print "time,lx,ly,rx,ry"; for (i = 0; i < 1000; i++) { t = i / 50;
  printf "%.2f,%.4f,%.4f,%.4f,%.4f\n", t, -0.3 + 0.5 * sin(t * 1.3), 0.6 * sin(t * 2.1), 0.3 + 0.5 * sin(t * 0.9 + 1), 0.7 * sin(t * 1.7 + 2) } }' \
  > "$work/pose.csv"
# Band powers that swing between sad and happy moods: 60 s, 4 readings a second.
awk 'BEGIN { print "time,alpha,beta,delta,theta,gamma"; for (i = 0; i < 240; i++) { t = i / 4; a = 0.5 + 0.4 * sin(t / 6);
  printf "%.2f,%.4f,%.4f,0.2,0.3,0.1\n", t, a, 1 - a } }' > "$work/eeg.csv"
# Explicit beats, RR intervals and a pulse wave with wander.
awk 'BEGIN { print "time,beat"; t = 0; for (i = 0; i < 40; i++) { t += 0.7 + 0.1 * sin(i); printf "%.4f,1\n", t } }' > "$work/beats.csv"
awk 'BEGIN { print "time,rr"; t = 0; for (i = 0; i < 40; i++) { rr = 0.8 + 0.05 * sin(i / 2); t += rr; printf "%.4f,%.4f\n", t, rr } }' > "$work/rr.csv"
awk 'BEGIN { print "time,ppg"; for (i = 0; i < 2000; i++) { t = i / 100; p = (t * 1.2) - int(t * 1.2);
  printf "%.2f,%.5f\n", t, exp(-((p - 0.2) ^ 2) / 0.004) + 0.2 * sin(t / 3) } }' > "$work/ppg.csv"

render() {  # NAME ARGS…: one render, its fingerprint line
  local name=$1; shift
  local out="$work/$name"
  mkdir -p "$out"
  "$tool" render "$@" --out "$out/out.wav" --events-out "$out/events.jsonl" > "$out/log" 2>&1 \
    || { echo "$name: render failed: $(tail -1 "$out/log")"; return; }
  local line="$name wav=$(sha256sum < "$out/out.wav" | cut -c1-16) events=$(sha256sum < "$out/events.jsonl" | cut -c1-16)"
  if [ -d "$out/stems" ]; then
    for stem in "$out"/stems/*.wav; do line+=" $(basename "$stem" .wav)=$(sha256sum < "$stem" | cut -c1-16)"; done
  fi
  echo "$line"
}

demo=presets/default/demo-session.csv
for preset in presets/*/preset.yaml presets/voices/*.yaml; do
  name=$(echo "$preset" | sed 's|presets/||; s|/preset.yaml||; s|\.yaml||; s|/|-|g')
  render "$name" --preset "$preset" --session "$demo" --duration 30
done
render duo-sessions --preset presets/duo --session alice=presets/duo/alice.csv --session bob=presets/duo/bob.csv \
  --stems "$work/duo-sessions/stems"
render pulsonify-stems --preset presets/pulsonify --session "$demo" --duration 20 --stems "$work/pulsonify-stems/stems"
render click-73 --preset presets/click --session presets/sessions/73bpm.csv --duration 60
render default-44k --session "$demo" --rate 44100 --period 128 --duration 20
render tambour-pose --preset presets/tambour --session "$work/pose.csv"
render musicmood-eeg --preset presets/musicmood --session "$work/eeg.csv"
for session in beats rr ppg; do
  render "default-$session" --session "$work/$session.csv"
  render "pulsonify-$session" --preset presets/pulsonify --session "$work/$session.csv"
done
