#!/usr/bin/env python3
"""Band powers of EEG windows with known content, by scipy's Welch estimate: the independent
reference for pulsejack's Muse band powers (EEGBandPowers).

Each line: {"samples": [256 µV], "absolute": {band: log10(sum of the PSD over the band)},
"relative": {band: its share of the five}} for a 256-sample window at 256 Hz holding sines of
known frequencies and amplitudes (one per band, in turn dominant) with seeded noise and an
offset. A bin at f Hz belongs to a band when lo <= f < hi.
"""
import json

import numpy as np
from scipy import signal

RATE = 256
BANDS = {"delta": (1, 4), "theta": (4, 8), "alpha": (7.5, 13), "beta": (13, 30), "gamma": (30, 44)}


def bands(samples):
    f, psd = signal.welch(samples, fs=RATE, window="hamming", nperseg=256, detrend="constant", scaling="density")
    sums = {name: float(psd[(f >= lo) & (f < hi)].sum()) for name, (lo, hi) in BANDS.items()}
    total = sum(sums.values())
    return {k: float(np.log10(v)) for k, v in sums.items()}, {k: v / total for k, v in sums.items()}


def main():
    rng = np.random.default_rng(27)
    t = np.arange(256) / RATE
    for dominant, hz in [("delta", 2.0), ("theta", 6.0), ("alpha", 10.0), ("beta", 20.0), ("gamma", 38.0), (None, 0)]:
        x = 800 + rng.normal(0, 3, 256)
        for name, (lo, hi) in BANDS.items():
            x = x + (40 if name == dominant else 4) * np.sin(2 * np.pi * (hz if name == dominant else (lo + hi) / 2) * t + rng.uniform(0, 6.28))
        absolute, relative = bands(x)
        print(json.dumps({"dominant": dominant, "samples": x.tolist(), "absolute": absolute, "relative": relative}))


if __name__ == "__main__":
    main()
