#!/usr/bin/env bash
# Runs a command with a private JACK server (dummy driver, no sound card) that it starts first
# and stops afterwards, whatever the command's outcome. The server's name is exported as
# PULSEJACK_TEST_SERVER; the user's own server, if any, is never touched.
set -uo pipefail
name="pulsejack-test-$$"
log="$(mktemp -t pulsejack-jackd.XXXXXX)"
jackd --no-realtime -n "$name" -d dummy -r 48000 -p 256 >"$log" 2>&1 &
jackd_pid=$!
stop() {
    kill "$jackd_pid" 2>/dev/null && wait "$jackd_pid" 2>/dev/null
    rm -f "$log"
}
trap stop EXIT
trap 'exit 130' INT TERM
if ! JACK_NO_START_SERVER=1 jack_wait -s "$name" -w -t 15 >/dev/null; then
    echo "could not start a private jackd ($name):" >&2
    cat "$log" >&2
    exit 1
fi
echo "private jackd '$name' running (dummy driver, 48000 Hz, 256 frames)"
PULSEJACK_TEST_SERVER="$name" "$@"
