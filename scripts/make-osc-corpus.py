#!/usr/bin/env python3
"""Writes the seed corpus of OSC packets the fuzz test mutates (Tests/Corpus/osc).

One file per packet: every address pulsejack routes, with good and bad arguments, timetagged
and nested bundles, and the shapes that broke parsers elsewhere (huge addresses, deep nesting,
element sizes that lie). Run it again after adding an address: python3 scripts/make-osc-corpus.py
"""
import os
import struct

out = os.path.join(os.path.dirname(__file__), "..", "Tests", "Corpus", "osc")


def pad(data: bytes) -> bytes:
    return data + b"\0" * (4 - len(data) % 4)


def message(address: str, *arguments) -> bytes:
    tags, body = ",", b""
    for argument in arguments:
        if isinstance(argument, bool):
            tags += "T" if argument else "F"
        elif isinstance(argument, int):
            tags += "i"
            body += struct.pack(">i", argument)
        elif isinstance(argument, float):
            tags += "f"
            body += struct.pack(">f", argument)
        else:
            tags += "s"
            body += pad(argument.encode())
    return pad(address.encode()) + pad(tags.encode()) + body


def bundle(timetag: int, *elements: bytes) -> bytes:
    data = b"#bundle\0" + struct.pack(">Q", timetag)
    for element in elements:
        data += struct.pack(">i", len(element)) + element
    return data


soon = (3_900_000_000 << 32)


def nested(depth: int) -> bytes:
    """Bundles inside bundles, deeper than the decoder accepts."""
    data = message("/pulse/beat")
    for level in range(depth):
        data = bundle(soon + level, data)
    return data


seeds = {
    "bpm": message("/pulse/bpm", 72.0),
    "bpm-int": message("/pulse/bpm", 90),
    "bpm-nan": message("/pulse/bpm", float("nan")),
    "bpm-huge": message("/pulse/bpm", 1e30),
    "rr": message("/pulse/rr", 0.8),
    "beat": message("/pulse/beat", 1.0),
    "beat-bare": message("/pulse/beat"),
    "ppg": message("/pulse/ppg", *[float(i % 7) for i in range(32)]),
    "ppg-rate": message("/pulse/ppg/rate", 250.0),
    "gain": message("/voice/uke/gain", 0.5),
    "pan": message("/voice/uke/pan", -0.5),
    "enable": message("/voice/maraca/enable", 0),
    "rate": message("/voice/arpeggio/rate", 2, 3),
    "trigger": message("/voice/maraca/trigger", 1.0),
    "unknown-voice": message("/voice/tuba/gain", 1.0),
    "region": message("/region/left-up", 1.0),
    "mode": message("/mode", "recording"),
    "pose": message("/pose/hands", -0.5, 0.9, 0.45, 0.05),
    "muse": message("/muse/elements/alpha_absolute", 0.6),
    "muse-four": message("/muse/elements/beta_absolute", 0.1, 0.2, 0.3, 0.4),
    "heartrate": message("/heartrate", 66),
    "status": message("/pulse/status"),
    "meter": message("/meter/subscribe", 9001),
    "string-arg": message("/voice/uke/gain", "loud"),
    "bool-arg": message("/voice/uke/enable", True),
    "bundle": bundle(soon, message("/voice/maraca/trigger", 1.0), message("/mode", "playing")),
    "bundle-now": bundle(1, message("/pulse/bpm", 80.0)),
    "bundle-nested": bundle(soon, bundle(soon + 1, bundle(soon + 2, message("/pulse/beat")))),
    "bundle-deep": nested(10),
    "bundle-lying-size": b"#bundle\0" + struct.pack(">Q", soon) + struct.pack(">i", 4096) + message("/pulse/beat"),
    "bundle-empty": bundle(soon),
    "address-long": message("/" + "a" * 4000, 1.0),
    "no-slash": b"pulse\0\0\0,f\0\0" + struct.pack(">f", 1.0),
    "unaligned": message("/pulse/bpm", 72.0)[:-1],
    "empty": b"",
}

os.makedirs(out, exist_ok=True)
for name, data in seeds.items():
    with open(os.path.join(out, name + ".osc"), "wb") as file:
        file.write(data)
print(f"{len(seeds)} seed packets in {os.path.normpath(out)}")
