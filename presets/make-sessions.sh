#!/bin/sh
# Regenerates the shipped sessions that are synthesized rather than recorded, the same every
# time (awk, no randomness). Run from anywhere: ./presets/make-sessions.sh
set -eu
cd "$(dirname "$0")/sessions"

# Resonance breathing, then ordinary breathing: the RR intervals of a resting heart whose rhythm
# follows the breath (respiratory sinus arrhythmia) — 6 breaths a minute with a deep ±70 ms swing
# for 90 s, then 15 a minute with a ±25 ms swing — and a little beat-to-beat wander.
awk 'BEGIN {
  print "# Resonance breathing (6/min, RSA ±70 ms) for 90 s, then 15 breaths/min (±25 ms): presets/make-sessions.sh"
  print "time,rr"
  t = 0; phase = 0
  for (i = 0; t < 180; i++) {
    slow = t < 90
    rate = slow ? 6 : 15; swing = slow ? 0.070 : 0.025; base = slow ? 0.94 : 0.84
    rr = base + swing * sin(phase) + 0.006 * sin(i * 2.399) + 0.004 * sin(i * 0.731)
    t += rr; phase += 2 * 3.14159265358979 * rate / 60 * rr
    printf "%.4f,%.4f\n", t, rr
  }
}' > breathing-rr.csv

# Hands that rise and spread: the right hand climbs from the hip to above the head over 20 s
# while the left sweeps out and back, 50 readings a second.
awk 'BEGIN {
  print "# The right hand rises over 20 s while the left sweeps out and back: presets/make-sessions.sh"
  print "time,lx,ly,rx,ry"
  for (i = 0; i <= 1000; i++) { t = i / 50
    printf "%.2f,%.4f,%.4f,%.4f,%.4f\n", t, -0.2 - 0.5 * sin(t * 3.14159265 / 10) ^ 2, -0.1, 0.25, -0.4 + 1.5 * t / 20 }
}' > hands-rising.csv

# Eyes closing: EEG band powers over 40 s, 4 readings a second, alpha rising from 0.2 to 0.9 as
# beta falls (Mind Monitor's absolute band powers scaled 0…1).
awk 'BEGIN {
  print "# Eyes closing: alpha rises from 0.2 to 0.9 over 40 s as beta falls: presets/make-sessions.sh"
  print "time,alpha,beta,delta,theta,gamma"
  for (i = 0; i <= 160; i++) { t = i / 4; a = 0.2 + 0.7 * t / 40
    printf "%.2f,%.4f,%.4f,0.3000,0.3500,0.1000\n", t, a, 0.8 - 0.5 * t / 40 }
}' > eyes-closing.csv
