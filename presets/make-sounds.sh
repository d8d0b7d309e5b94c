#!/bin/sh
# Regenerates every shipped sound from sox synthesis, reproducibly (no recordings, no random
# seeds that differ between runs). Run from anywhere: ./presets/make-sounds.sh
# The sounds are written at 44.1 kHz on purpose: the engine resamples them to the server's rate.
set -eu
cd "$(dirname "$0")/sounds"
command -v sox >/dev/null || { echo "make-sounds.sh needs sox (apt-get install sox)" >&2; exit 1; }

# A heartbeat thump: a low sine falling from 70 to 45 Hz with a fast exponential decay.
sox -n -r 44100 -b 16 -c 1 thump.wav synth 0.35 sine 70-45 fade q 0.003 0.35 0.33 gain -n -1
# A tick: a short burst of high-passed noise (sox's noise is seeded by -R for repeatability).
sox -R -n -r 44100 -b 16 -c 1 tick.wav synth 0.04 whitenoise gain -6 highpass 4000 fade q 0.001 0.04 0.038 gain -n -3
# A bell: two inharmonic partials with a long decay.
sox -n -r 44100 -b 16 -c 1 bell.wav synth 1.2 sine 880 sine 2376 remix 1,2 fade q 0.002 1.2 1.19 gain -n -3
echo "sounds written to $(pwd)"
