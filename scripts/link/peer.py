#!/usr/bin/env python3
"""Ableton Link's independent peer for pulsejack's tests: LinkPython-extern (Link 4 compiled in).

    peer.py watch --out FILE [--seconds S]    join, wait for a peer, then record the session
    peer.py lead --bpm 133 --out FILE ...     the same, committing its own tempo once a peer joined

It says "ready" once joined, then records, every 5 ms, [Link clock µs, beat at that time for the
quantum, tempo, playing, peers] until S seconds after the first peer came, and writes them as
JSON with the time the peer came. `--stop-after T` stops the session's playing T seconds after
the peer came (with --start-stop, a start-stop-synced peer's transport stops with it).
Run only inside a network namespace of the test's own: Link multicasts on every interface up.
"""
import argparse
import json
import sys
import time

import link


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("mode", choices=["watch", "lead"])
    parser.add_argument("--bpm", type=float, default=120)
    parser.add_argument("--quantum", type=float, default=4)
    parser.add_argument("--seconds", type=float, default=10)
    parser.add_argument("--wait", type=float, default=20, help="seconds to wait for a peer")
    parser.add_argument("--start-stop", action="store_true")
    parser.add_argument("--stop-after", type=float)
    parser.add_argument("--out", required=True)
    args = parser.parse_args()

    session = link.Link(args.bpm)
    session.startStopSyncEnabled = args.start_stop
    session.enabled = True
    print("ready", flush=True)
    deadline = time.monotonic() + args.wait
    while session.numPeers() < 1:
        if time.monotonic() > deadline:
            print("no Link peer joined within %g s" % args.wait, file=sys.stderr)
            return 2
        time.sleep(0.002)
    came = session.clock().micros()
    if args.mode == "lead":
        state = session.captureAppSessionState()
        state.setTempo(args.bpm, came)
        session.commitAppSessionState(state)
    samples, stopped = [], False
    end = time.monotonic() + args.seconds
    while time.monotonic() < end:
        now = session.clock().micros()
        if args.stop_after is not None and not stopped and now - came >= args.stop_after * 1e6:
            state = session.captureAppSessionState()
            state.setIsPlaying(False, now)
            session.commitAppSessionState(state)
            stopped = True
        state = session.captureAppSessionState()
        samples.append([now, state.beatAtTime(now, args.quantum), state.tempo(), state.isPlaying(), session.numPeers()])
        time.sleep(0.005)
    with open(args.out, "w") as out:
        json.dump({"came": came, "samples": samples}, out)
    session.enabled = False
    return 0


if __name__ == "__main__":
    sys.exit(main())
