#!/usr/bin/env python3
"""Writes Benchmarks/scsynth/pj_sample.scsyndef: the SynthDef scsynth plays in the mixing
comparison of `make bench` (row "Offline render beside scsynth"). It is pulsejack's sample voice
and mixer for one note: the stereo buffer played once from the start at rate 1, each channel
scaled by the channel gain pulsejack's pan law gives (ampL = gain·min(1, 1−pan),
ampR = gain·min(1, 1+pan)), written sample-accurately with OffsetOut, freed when done.

SynthDef file format 2 (SCgf), as documented in SuperCollider's "Synth Definition File Format";
written here directly so that the benchmark needs no sclang or supriya.
Usage: scripts/make-scsynth-synthdef.py [OUT]
"""
import struct
import sys

def pstring(text):
    data = text.encode()
    return struct.pack(">B", len(data)) + data

CONTROL, AUDIO = 1, 2
constants = [0.0, 1.0, 2.0]          # indices 0, 1, 2
def const(value):
    return (-1, constants.index(value))

params = [("buf", 0.0), ("ampL", 0.0), ("ampR", 0.0)]
# (class, rate, inputs, number of outputs, output rate, special index)
ugens = [
    ("Control", CONTROL, [], 3, CONTROL, 0),
    # PlayBuf.ar(2, buf, rate 1, trigger 1, start 0, loop 0, doneAction 2)
    ("PlayBuf", AUDIO, [(0, 0), const(1.0), const(1.0), const(0.0), const(0.0), const(2.0)], 2, AUDIO, 0),
    ("BinaryOpUGen", AUDIO, [(1, 0), (0, 1)], 1, AUDIO, 2),   # left × ampL (special 2: multiply)
    ("BinaryOpUGen", AUDIO, [(1, 1), (0, 2)], 1, AUDIO, 2),   # right × ampR
    ("OffsetOut", AUDIO, [const(0.0), (2, 0), (3, 0)], 0, AUDIO, 0),
]

out = bytearray(b"SCgf" + struct.pack(">iH", 2, 1))
out += pstring("pj_sample")
out += struct.pack(">i", len(constants)) + b"".join(struct.pack(">f", c) for c in constants)
out += struct.pack(">i", len(params)) + b"".join(struct.pack(">f", v) for _, v in params)
out += struct.pack(">i", len(params))
for index, (name, _) in enumerate(params):
    out += pstring(name) + struct.pack(">i", index)
out += struct.pack(">i", len(ugens))
for name, rate, inputs, outputs, output_rate, special in ugens:
    out += pstring(name) + struct.pack(">biih", rate, len(inputs), outputs, special)
    for source, index in inputs:
        out += struct.pack(">ii", source, index)
    out += struct.pack(">b", output_rate) * outputs
out += struct.pack(">h", 0)  # variants

path = sys.argv[1] if len(sys.argv) > 1 else "Benchmarks/scsynth/pj_sample.scsyndef"
with open(path, "wb") as handle:
    handle.write(out)
print(f"wrote {path} ({len(out)} bytes)")
