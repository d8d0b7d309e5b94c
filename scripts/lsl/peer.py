#!/usr/bin/env python3
"""pylsl as pulsejack's independent LSL peer (the tests' and the bench's): outlets pulsejack reads
and an inlet that reads pulsejack's outlets. Each prints "ready" once its outlet is open (or its
inlet resolved), then runs; what it measured goes to --out as JSON.

  peer.py ecg --name N --seconds S --out F     MIT-BIH record 208 (scipy's ECG, 360 Hz, mV) in real
                                               time, chunks of 10 samples; --out: the R-peaks'
                                               outlet time stamps (scipy's find_peaks).
  peer.py eeg --name N --calm S --focused S    muse-lsl's layout (TP9, AF7, AF8, TP10, Right AUX;
                                               256 Hz, µV, chunks of 12): alpha-dominant, then beta.
  peer.py listen --name N --seconds S --out F  every sample of stream N: [stamp, received, value].
  peer.py markers --name N --gaps G,G,… --count C --marker M   C strings M, the gaps (s, in
                                               turn) apart; --out: their time stamps.
  peer.py rr --name N --on S --off S --again S RR intervals (ms) of a steady 75 bpm heart, one a
                                               beat: S seconds, gone for S, back for S.
  peer.py signal --name N --channel L --values V,V,... --every S   one float channel.
"""
import argparse
import json
import sys
import time

import numpy as np
import pylsl


def ready():
    print("ready", flush=True)


def described(name, kind, labels, unit, rate, fmt="float32"):
    info = pylsl.StreamInfo(name, kind, len(labels), rate, fmt, f"peer-{name}-{kind}")
    channels = info.desc().append_child("channels")
    for label in labels:
        channel = channels.append_child("channel")
        channel.append_child_value("label", label)
        channel.append_child_value("unit", unit)
        channel.append_child_value("type", kind)
    return info


def ecg(args):
    from scipy import signal
    from scipy.misc import electrocardiogram
    rate = 360.0
    data = electrocardiogram()[: int(args.seconds * rate)]
    b, a = signal.butter(3, [5 / (rate / 2), 20 / (rate / 2)], btype="band")
    filtered = signal.filtfilt(b, a, data)
    peaks, _ = signal.find_peaks(filtered, height=np.percentile(filtered, 98) * 0.35, distance=int(0.25 * rate))
    outlet = pylsl.StreamOutlet(described(args.name, "ECG", ["ECG"], "mV", rate), chunk_size=10)
    ready()
    time.sleep(args.wait)
    start = pylsl.local_clock()
    json.dump({"start": start, "peaks": [start + p / rate for p in peaks]}, open(args.out, "w"))
    for first in range(0, len(data), 10):
        chunk = data[first:first + 10]
        due = start + (first + len(chunk) - 1) / rate
        delay = due - pylsl.local_clock()
        if delay > 0:
            time.sleep(delay)
        for index, value in enumerate(chunk):
            outlet.push_sample([float(value)], start + (first + index) / rate, pushthrough=index == len(chunk) - 1)


def eeg(args):
    rate = 256
    labels = ["TP9", "AF7", "AF8", "TP10", "Right AUX"]
    outlet = pylsl.StreamOutlet(described(args.name, "EEG", labels, "microvolts", rate), chunk_size=12)
    ready()
    rng = np.random.default_rng(48)
    start, sent = pylsl.local_clock(), 0
    total = int((args.calm + args.focused) * rate)
    while sent < total:
        count = min(12, total - sent)
        t = (sent + np.arange(count)) / rate
        dominant = 10.0 if sent < args.calm * rate else 20.0
        other = 20.0 if dominant == 10.0 else 10.0
        # Band sums near 10^0.9 and 10^0.1 µV²/Hz: absolute powers in the 0…1 the mood ranges use.
        wave = 4 * np.sin(2 * np.pi * dominant * t) + 1.5 * np.sin(2 * np.pi * other * t)
        chunk = [[float(800 + w + rng.normal(0, 1)) for _ in labels] for w in wave]
        due = start + (sent + count - 1) / rate
        delay = due - pylsl.local_clock()
        if delay > 0:
            time.sleep(delay)
        outlet.push_chunk(chunk, [start + (sent + i) / rate for i in range(count)])
        sent += count


def listen(args):
    streams = pylsl.resolve_byprop("name", args.name, timeout=20)
    if not streams:
        sys.exit(f"no stream {args.name}")
    inlet = pylsl.StreamInlet(streams[0], max_buflen=60)
    inlet.open_stream(timeout=10)
    ready()
    got = []
    until = pylsl.local_clock() + args.seconds
    while pylsl.local_clock() < until:
        sample, stamp = inlet.pull_sample(timeout=0.05)
        if sample is not None:
            got.append([stamp, pylsl.local_clock(), sample[0] if len(sample) == 1 else sample])
    json.dump(got, open(args.out, "w"))


def markers(args):
    info = pylsl.StreamInfo(args.name, "Markers", 1, 0, "string", f"peer-{args.name}-markers")
    outlet = pylsl.StreamOutlet(info)
    ready()
    time.sleep(args.wait)
    gaps = [float(g) for g in args.gaps.split(",")]
    start = pylsl.local_clock() + 0.2
    stamps = [start + sum(gaps[j % len(gaps)] for j in range(i)) for i in range(args.count)]
    json.dump(stamps, open(args.out, "w"))
    for stamp in stamps:
        delay = stamp - pylsl.local_clock()
        if delay > 0:
            time.sleep(delay)
        outlet.push_sample([args.marker], stamp)
    time.sleep(1)


def rr(args):
    def stream(seconds):
        outlet = pylsl.StreamOutlet(described(args.name, "RR", ["RR"], "ms", pylsl.IRREGULAR_RATE))
        ready()
        until = pylsl.local_clock() + seconds
        while pylsl.local_clock() < until:
            time.sleep(0.8)
            outlet.push_sample([800.0], pylsl.local_clock())
        del outlet
    stream(args.on)
    time.sleep(args.off)
    stream(args.again)


def signal_stream(args):
    outlet = pylsl.StreamOutlet(described(args.name, "Level", [args.channel], "", pylsl.IRREGULAR_RATE))
    ready()
    time.sleep(args.wait)
    for value in [float(v) for v in args.values.split(",")]:
        outlet.push_sample([value], pylsl.local_clock())
        time.sleep(args.every)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("mode", choices=["ecg", "eeg", "listen", "markers", "rr", "signal"])
    parser.add_argument("--name", required=True)
    parser.add_argument("--seconds", type=float, default=20)
    parser.add_argument("--wait", type=float, default=0)
    parser.add_argument("--out")
    parser.add_argument("--calm", type=float, default=8)
    parser.add_argument("--focused", type=float, default=8)
    parser.add_argument("--every", type=float, default=0.3)
    parser.add_argument("--gaps", default="0.3")
    parser.add_argument("--count", type=int, default=10)
    parser.add_argument("--marker", default="voice/click")
    parser.add_argument("--on", type=float, default=5)
    parser.add_argument("--off", type=float, default=4)
    parser.add_argument("--again", type=float, default=5)
    parser.add_argument("--channel", default="level")
    parser.add_argument("--values", default="0.5")
    args = parser.parse_args()
    {"ecg": ecg, "eeg": eeg, "listen": listen, "markers": markers, "rr": rr, "signal": signal_stream}[args.mode](args)


if __name__ == "__main__":
    main()
