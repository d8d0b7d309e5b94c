#!/usr/bin/env bash
# Runs a command with a private JACK server (dummy driver, no sound card) that it starts first
# and stops afterwards (SIGTERM, then waits for it), whatever the command's outcome. The
# server's name is exported as PULSEJACK_TEST_SERVER; the user's own server is never touched.
#
# Names come from a small fixed set, pulsejack-test-1 … -4, one per concurrent run (held with
# flock): JACK's server registry has 8 slots, and a server that died uncleanly (kill -9, a run
# cut off) frees its slot only when a server of the same name starts again. A new name every
# run would fill the registry for good after eight such deaths.
set -uo pipefail
lockdir="${TMPDIR:-/tmp}"
name=""
for slot in 1 2 3 4; do
    exec {lock}>"$lockdir/pulsejack-test-$slot.lock"
    if flock -n "$lock"; then name="pulsejack-test-$slot"; break; fi
    exec {lock}>&-
done
if [ -z "$name" ]; then
    echo "four private test servers are in use already (pulsejack-test-1 … -4): wait for those runs to end" >&2
    exit 1
fi
log="$(mktemp -t pulsejack-jackd.XXXXXX)"
jackd_pid=""
start() {
    jackd --no-realtime -n "$name" -d dummy -r 48000 -p 256 >"$log" 2>&1 &
    jackd_pid=$!
    JACK_NO_START_SERVER=1 jack_wait -s "$name" -w -t 15 >/dev/null
}
stop() {
    if [ -n "$jackd_pid" ] && kill -TERM "$jackd_pid" 2>/dev/null; then wait "$jackd_pid" 2>/dev/null; fi
    rm -f "$log"
}
trap stop EXIT
trap 'exit 130' INT TERM
if ! start; then
    stop_failed=$jackd_pid
    kill -TERM "$stop_failed" 2>/dev/null && wait "$stop_failed" 2>/dev/null
    if grep -q "Too many servers already active" "$log"; then
        if ! pgrep -x jackd >/dev/null; then
            # No jackd runs at all: every slot is stale, and the registry can go.
            rm -f /dev/shm/jack-shm-registry
            echo "JACK's server registry was full of stale entries (no jackd was running): cleared /dev/shm/jack-shm-registry" >&2
            start || { echo "could not start a private jackd ($name) even with a fresh registry:" >&2; cat "$log" >&2; exit 1; }
        else
            echo "could not start a private jackd: JACK's server registry is full (8 slots). Stop the jackd processes you do not need (pgrep -a jackd), then run the tests again" >&2
            exit 1
        fi
    else
        echo "could not start a private jackd ($name):" >&2
        cat "$log" >&2
        exit 1
    fi
fi
echo "private jackd '$name' running (dummy driver, 48000 Hz, 256 frames)"
PULSEJACK_TEST_SERVER="$name" "$@"
