#!/bin/sh
# Regenerates every shipped sound from synthesis with tools in Debian packages (sox, espeak-ng),
# reproducibly (sox's noise is seeded with -R). Run from anywhere: ./presets/make-sounds.sh
# The sounds are written at 44.1 kHz on purpose: the engine resamples them to the server's rate.
set -eu
cd "$(dirname "$0")/sounds"
command -v sox >/dev/null || { echo "make-sounds.sh needs sox (apt-get install sox)" >&2; exit 1; }
command -v espeak-ng >/dev/null || { echo "make-sounds.sh needs espeak-ng (apt-get install espeak-ng)" >&2; exit 1; }
S="sox -R -n -r 44100 -b 16 -c 1"

# The default preset: a heartbeat thump, a tick, a bell.
$S thump.wav synth 0.35 sine 70-45 fade q 0.003 0.35 0.33 gain -n -1
$S tick.wav synth 0.04 whitenoise gain -6 highpass 4000 fade q 0.001 0.04 0.038 gain -n -3
$S bell.wav synth 1.2 sine 880 sine 2376 remix 1,2 fade q 0.002 1.2 1.19 gain -n -3

# PulSonify's percussion: maraca, drips, bells (above), snap, two drums, two snares.
$S maraca.wav synth 0.09 whitenoise gain -6 bandpass 5000 1.5q fade q 0.01 0.09 0.07 gain -n -3
$S drips.wav synth 0.14 sine 500-1800 fade q 0.002 0.14 0.12 gain -n -3
$S snap.wav synth 0.05 whitenoise gain -6 highpass 2500 synth 0.05 sine mix 1800 fade q 0.0005 0.05 0.045 gain -n -2
$S drum1.wav synth 0.45 sine 90-48 fade q 0.002 0.45 0.43 gain -n -1
$S drum2.wav synth 0.35 sine 150-80 fade q 0.002 0.35 0.33 gain -n -1
$S snare1.wav synth 0.22 whitenoise gain -6 bandpass 2500 0.8q synth 0.22 sine mix 190 fade q 0.001 0.22 0.2 gain -n -2
$S snare2.wav synth 0.16 whitenoise gain -6 highpass 1500 fade q 0.001 0.16 0.15 gain -n -3

# Tap shoes: the ball of the foot (toe), the heel, and a brush (scuff).
$S tap-toe.wav synth 0.04 whitenoise gain -6 highpass 2000 synth 0.04 sine mix 2600 fade q 0.0005 0.04 0.035 gain -n -2
$S tap-heel.wav synth 0.07 whitenoise gain -6 lowpass 900 synth 0.07 sine mix 160 fade q 0.001 0.07 0.06 gain -n -2
$S tap-scuff.wav synth 0.1 whitenoise gain -6 bandpass 4500 1q fade q 0.03 0.1 0.06 gain -n -6

# The "uke" clip: Karplus-Strong plucks (sox's pluck) strumming C, G, Am and F on a GCEA ukulele.
strum() { # name, then four notes from the G string to the A string
  $S "uke-$1.wav" synth 0.55 pluck "$2" pluck "$3" pluck "$4" pluck "$5" delay 0 0.012 0.024 0.036 remix - fade q 0.001 0.55 0.05
}
S="sox -R -n -r 44100 -b 16 -c 4"
strum C G4 C4 E4 C5
strum G G4 D4 G4 B4
strum Am A4 C4 E4 A4
strum F A4 C4 F4 A4
sox -R uke-C.wav uke-G.wav uke-Am.wav uke-F.wav uke.wav gain -n -3
rm -f uke-C.wav uke-G.wav uke-Am.wav uke-F.wav

# The "singing" clip: espeak-ng sings the first words of "O salutaris hostia" slowly in Latin.
espeak-ng -v la -s 80 -p 45 -w singing-raw.wav "O salutaris hostia"
sox -R singing-raw.wav -r 44100 -b 16 -c 1 singing.wav gain -n -3
rm -f singing-raw.wav
# A small MusicMood library: tagged loops (FLAC keeps the comment that carries the tags).
cd ../musicmood/library
L="sox -R -n -r 44100 -b 16 -c 1"
$L --comment "Comment=#happy bpm=100" major-100.flac synth 0.6 pluck C4 pluck E4 pluck G4 pluck C5 delay 0 0.15 0.3 0.45 remix - fade q 0.001 0.6 0.05 repeat 9 gain -n -6
$L --comment "Comment=#happy bpm=120" bright-120.flac synth 0.5 pluck G4 pluck B4 pluck D5 pluck G5 delay 0 0.125 0.25 0.375 remix - fade q 0.001 0.5 0.05 repeat 11 gain -n -6
$L --comment "Comment=#sad bpm=70" minor-70.flac synth 0.857 pluck A3 pluck C4 pluck E4 pluck A4 delay 0 0.214 0.428 0.642 remix - fade q 0.001 0.857 0.1 repeat 6 gain -n -6
$L --comment "Comment=#sad bpm=60" slow-60.flac synth 1 pluck D3 pluck F3 pluck A3 pluck D4 delay 0 0.25 0.5 0.75 remix - fade q 0.001 1 0.1 repeat 5 gain -n -6
echo "sounds written to $(pwd)/../.. and $(pwd)"
