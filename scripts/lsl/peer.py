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
  peer.py hostile --name P --seconds S         what a hostile or broken peer sends, for S seconds:
                                               P-marks (Markers), P-rr (RR, ms), P-ecg (ECG 360 Hz),
                                               P-eeg (EEG 256 Hz, 4 channels), P-level (one float
                                               channel; gone from 40 % to 60 % of the run) and P-wide
                                               (1,000 channels at 256 Hz): good samples beside ones
                                               stamped NaN, +Inf, -Inf, now + 1e15 s, now - 1e9 s,
                                               and samples whose values are NaN, +Inf, -Inf, 1e38.

Every mode refuses to start where a network interface other than loopback is up, unless
--any-network says so: LSL discovers peers by multicast and broadcast on every interface, and a
test's traffic stays on the machine (the tests run each peer inside a network namespace of their own).
"""
import argparse
import json
import math
import os
import sys
import time

import numpy as np
import pylsl


def interfaces_up_besides_loopback():
    up = []
    for name in os.listdir("/sys/class/net"):
        try:
            flags = int(open(f"/sys/class/net/{name}/flags").read().strip(), 16)
        except OSError:
            continue
        if flags & 0x1 and name != "lo":
            up.append(name)
    return up


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
            outlet.push_sample([args.interval], pylsl.local_clock())
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


BAD_STAMPS = [math.nan, math.inf, -math.inf, 1e15, -1e9]  # the last two added to now
BAD_VALUES = [math.nan, math.inf, -math.inf, 1e38]


def bad_stamp(index):
    bad = BAD_STAMPS[index % len(BAD_STAMPS)]
    return pylsl.local_clock() + bad if abs(bad) < math.inf and bad == bad and abs(bad) > 1 else bad


def hostile(args):
    from scipy.misc import electrocardiogram
    marks = pylsl.StreamOutlet(pylsl.StreamInfo(f"{args.name}-marks", "Markers", 1, 0, "string", f"peer-{args.name}-marks"))
    rr = pylsl.StreamOutlet(described(f"{args.name}-rr", "RR", ["RR"], "ms", pylsl.IRREGULAR_RATE))
    ecg = pylsl.StreamOutlet(described(f"{args.name}-ecg", "ECG", ["ECG"], "mV", 360.0))
    eeg = pylsl.StreamOutlet(described(f"{args.name}-eeg", "EEG", ["TP9", "AF7", "AF8", "TP10"], "microvolts", 256.0))
    wide = pylsl.StreamOutlet(described(f"{args.name}-wide", "EEG", [f"E{i}" for i in range(1000)], "microvolts", 256.0))
    level_info = lambda: described(f"{args.name}-level", "Level", ["level"], "", pylsl.IRREGULAR_RATE)
    level = pylsl.StreamOutlet(level_info())
    trace = electrocardiogram()
    ready()
    start = pylsl.local_clock()
    tick, ecg_sent, eeg_sent = 0, 0, 0
    while (now := pylsl.local_clock()) < start + args.seconds:
        elapsed = now - start
        # Regular streams: every sample due by now, one a tick with a bad stamp, one with a bad value.
        ecg_due = int(elapsed * 360)
        for index in range(ecg_sent, ecg_due):
            value = float(trace[index % len(trace)])
            stamp = start + index / 360
            if index % 90 == 7:
                stamp = bad_stamp(index // 90)
            if index % 90 == 40:
                value = BAD_VALUES[(index // 90) % len(BAD_VALUES)]
            ecg.push_sample([value], stamp)
        ecg_sent = ecg_due
        eeg_due = int(elapsed * 256)
        for index in range(eeg_sent, eeg_due):
            t = index / 256
            row = [float(800 + 4 * math.sin(2 * math.pi * 10 * t))] * 4
            stamp = start + t
            if index % 64 == 5:
                stamp = bad_stamp(index // 64)
            if index % 64 == 30:
                row[index % 4] = BAD_VALUES[(index // 64) % len(BAD_VALUES)]
            eeg.push_sample(row, stamp)
            wide.push_sample(row * 250, start + t)
        eeg_sent = eeg_due
        # Irregular ones: a good sample and a bad one each tick.
        marks.push_sample(["voice/click"], now)
        marks.push_sample(["voice/click"], bad_stamp(tick))
        rr.push_sample([800.0], now)
        rr.push_sample([800.0], bad_stamp(tick))
        rr.push_sample([BAD_VALUES[tick % len(BAD_VALUES)]], now)
        gone = 0.4 * args.seconds <= elapsed < 0.6 * args.seconds
        if gone and level is not None:
            del level
            level = None
        elif not gone and level is None:
            level = pylsl.StreamOutlet(level_info())
        if level is not None:
            level.push_sample([0.5], now)
            level.push_sample([0.25], bad_stamp(tick))
            level.push_sample([BAD_VALUES[tick % len(BAD_VALUES)]], now)
        tick += 1
        time.sleep(0.25)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("mode", choices=["ecg", "eeg", "listen", "markers", "rr", "signal", "hostile"])
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
    parser.add_argument("--interval", type=float, default=800.0, help="rr: the interval sent, ms")
    parser.add_argument("--any-network", action="store_true",
                        help="run where interfaces besides loopback are up (a person trying pulsejack on a lab's network; the tests never pass it)")
    args = parser.parse_args()
    up = interfaces_up_besides_loopback()
    if up and not args.any_network:
        sys.exit(f"peer.py: refusing to start: {', '.join(up)} up besides loopback (LSL's discovery would leave the machine); "
                 "run it inside a network namespace with loopback alone")
    {"ecg": ecg, "eeg": eeg, "listen": listen, "markers": markers, "rr": rr, "signal": signal_stream,
     "hostile": hostile}[args.mode](args)


if __name__ == "__main__":
    main()
