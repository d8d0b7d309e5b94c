#!/usr/bin/env python3
"""Sends mutated OSC packets from the seed corpus to 127.0.0.1:PORT for a bounded time: the
hostile sender beside `make soak`. Seeded; loopback only; stops by itself.

usage: osc-fuzz-send.py PORT SECONDS [RATE] — RATE packets a second (default 1000)
Seeds that could change the tempo (/pulse/…, /heartrate) are left out, so the run's beats
still follow its replayed session and can be checked against an offline render.
"""
import os
import random
import socket
import sys
import time

port, seconds = int(sys.argv[1]), float(sys.argv[2])
rate = float(sys.argv[3]) if len(sys.argv) > 3 else 1000.0
folder = os.path.join(os.path.dirname(__file__), "..", "Tests", "Corpus", "osc")
seeds = []
for name in sorted(os.listdir(folder)):
    data = open(os.path.join(folder, name), "rb").read()
    if b"/pulse/" in data or b"/heartrate" in data or b"/meter" in data:
        continue
    seeds.append(bytearray(data))

generator = random.Random(0x50AC)
sender = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
sent, start = 0, time.monotonic()
deadline = start + seconds
while time.monotonic() < deadline and sent < rate * seconds + 1:
    packet = bytearray(generator.choice(seeds))
    for _ in range(generator.randrange(4)):
        if packet and generator.random() < 0.5:
            packet[generator.randrange(len(packet))] = generator.randrange(256)
        elif packet:
            del packet[generator.randrange(len(packet)):]
    try:
        sender.sendto(bytes(packet), ("127.0.0.1", port))
    except OSError:
        pass
    sent += 1
    ahead = sent / rate - (time.monotonic() - start)
    if ahead > 0:
        time.sleep(ahead)
print(f"fuzz: sent {sent} mutated packets in {time.monotonic() - start:.0f} s")
