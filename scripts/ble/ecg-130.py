#!/usr/bin/env python3
"""A real ECG as Polar's H10 streams it, and its R-peaks found independently: scipy's recording
(MIT-BIH record 208, 360 Hz, mV) between --start and --end seconds, resampled to 130 Hz in µV
(scipy.signal.resample_poly), and the R-peak times of the 360 Hz original by
scripts/ble/ecg-rr.py's detector (band-pass, scipy.signal.find_peaks).

Prints one JSON object: {"rate": 130, "start": S, "samples": [µV …], "peaks": [seconds …]};
sample i is at start + i/130 s. With --original: the 360 Hz samples themselves (an LSL ECG
stream's rate), {"rate": 360, …}.
"""
import argparse
import importlib.util
import json
import os

import numpy as np
from scipy import signal
from scipy.misc import electrocardiogram


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--start", type=float, default=0)
    parser.add_argument("--end", type=float, default=60)
    parser.add_argument("--original", action="store_true")
    args = parser.parse_args()
    spec = importlib.util.spec_from_file_location("ecg_rr", os.path.join(os.path.dirname(__file__), "ecg-rr.py"))
    ecg_rr = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(ecg_rr)
    ecg = electrocardiogram()
    peaks = [t for t in ecg_rr.r_peaks(ecg, 360.0) if args.start <= t <= args.end]
    piece = ecg[int(args.start * 360):int(args.end * 360)]
    if args.original:
        print(json.dumps({"rate": 360, "start": args.start, "samples": [float(v) * 1000 for v in piece], "peaks": peaks}))
        return
    samples = signal.resample_poly(piece, 13, 36) * 1000
    print(json.dumps({"rate": 130, "start": args.start, "samples": [round(float(v)) for v in samples], "peaks": peaks}))


if __name__ == "__main__":
    main()
