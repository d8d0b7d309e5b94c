#!/usr/bin/env python3
"""RR intervals (seconds, one a line) of a real heart: the R-peaks of scipy's ECG recording
(scipy.misc.electrocardiogram(): MIT-BIH Arrhythmia Database record 208, 360 Hz), found by
scipy.signal.find_peaks on the band-passed signal, between --start and --end seconds.
An independent source of beats for pulsejack's strap tests and bench.

  ecg-rr.py [--start 0] [--end 60] [--peaks]   (--peaks: the R-peak times instead)
"""
import argparse

import numpy as np
from scipy import signal
from scipy.misc import electrocardiogram


def r_peaks(ecg, rate):
    b, a = signal.butter(3, [5 / (rate / 2), 20 / (rate / 2)], btype="band")
    filtered = signal.filtfilt(b, a, ecg)
    peaks, _ = signal.find_peaks(filtered, height=np.percentile(filtered, 98) * 0.35, distance=int(0.25 * rate))
    return peaks / rate


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--start", type=float, default=0)
    parser.add_argument("--end", type=float, default=60)
    parser.add_argument("--peaks", action="store_true")
    args = parser.parse_args()
    times = [t for t in r_peaks(electrocardiogram(), 360.0) if args.start <= t <= args.end]
    values = times if args.peaks else np.diff(times)
    for value in values:
        print(f"{value:.6f}")


if __name__ == "__main__":
    main()
