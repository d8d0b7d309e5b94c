#!/usr/bin/env bash
# Runs a command against a private headless PipeWire (no sound card, its own runtime directory
# and session D-Bus, wireplumber for the `default` metadata object), through PipeWire's libjack:
# LD_LIBRARY_PATH points the whole command, and the JACK peers in its process, at it. The quantum
# is forced to 256 frames at 48 kHz, as the jackd pass runs. Everything it starts is stopped
# afterwards, whatever the command's outcome; the user's own PipeWire is never touched.
set -uo pipefail
jacklib=/usr/lib/x86_64-linux-gnu/pipewire-0.3/jack
[ -e "$jacklib/libjack.so.0" ] || { echo "PipeWire's libjack is missing ($jacklib): install pipewire-jack" >&2; exit 1; }
runtime="$(mktemp -d -t pulsejack-pipewire.XXXXXX)"
chmod 700 "$runtime"
export XDG_RUNTIME_DIR="$runtime" PIPEWIRE_RUNTIME_DIR="$runtime"
export DBUS_SESSION_BUS_ADDRESS="unix:path=$runtime/bus"
unset PIPEWIRE_REMOTE JACK_DEFAULT_SERVER
keepers=()
bus=""
stop() {
    # The keepers see `stopping`, so they only reap their daemon and end; the bus goes last.
    touch "$runtime/stopping"
    for name in wireplumber pipewire; do
        [ -e "$runtime/$name.pid" ] && kill -TERM "$(cat "$runtime/$name.pid")" 2>/dev/null
    done
    for pid in "${keepers[@]}"; do wait "$pid" 2>/dev/null; done
    [ -n "$bus" ] && kill -TERM "$bus" 2>/dev/null && wait "$bus" 2>/dev/null
    rm -rf "$runtime"
}
trap stop EXIT
trap 'exit 130' INT TERM
dbus-daemon --session --nofork --nopidfile --address="$DBUS_SESSION_BUS_ADDRESS" >"$runtime/dbus.log" 2>&1 &
bus=$!
for _ in $(seq 50); do [ -S "$runtime/bus" ] && break; sleep 0.1; done
# PipeWire and wireplumber are kept running: a test that kills PipeWire (its pid in
# $XDG_RUNTIME_DIR/pipewire.pid) sees it come back a second later, as a restarted desktop's does.
keep() {
    local name=$1
    while [ ! -e "$runtime/stopping" ]; do
        "$name" >>"$runtime/$name.log" 2>&1 &
        echo $! >"$runtime/$name.pid"
        wait $!
        [ -e "$runtime/stopping" ] || sleep 1
    done
}
keep pipewire &
keepers+=($!)
for _ in $(seq 100); do [ -S "$runtime/pipewire-0" ] && break; sleep 0.1; done
[ -S "$runtime/pipewire-0" ] || { echo "the private PipeWire did not start:" >&2; cat "$runtime/pipewire.log" >&2; exit 1; }
keep wireplumber &
keepers+=($!)
# The session manager's `default` metadata object holds JACK metadata (pretty names).
for _ in $(seq 100); do pw-metadata -n default 2>/dev/null | grep -q "Found \"default\" metadata" && break; sleep 0.1; done
pw-metadata -n settings 0 clock.force-rate 48000 >/dev/null
pw-metadata -n settings 0 clock.force-quantum 256 >/dev/null
version="$(pipewire --version | awk '/Linked with libpipewire/ {print $NF}')"
echo "private PipeWire $version running in $runtime (headless, 48000 Hz, quantum 256, wireplumber)"
LD_LIBRARY_PATH="$jacklib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}" PULSEJACK_TEST_SERVER=default "$@"
