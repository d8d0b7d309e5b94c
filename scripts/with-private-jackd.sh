#!/usr/bin/env bash
# Runs a command with a private JACK server (dummy driver, no sound card) that it starts first
# and stops afterwards (SIGTERM, then waits for it), whatever the command's outcome. The
# server's name is exported as PULSEJACK_TEST_SERVER; the user's own server is never touched.
#
# Names come from a small fixed set, pulsejack-test-1 … -4, one per concurrent run (held with
# flock): JACK's server registry has 8 slots, and a server that died uncleanly (kill -9, a run
# cut off) frees its slot only when a server of the same name starts again. A new name every
# run would fill the registry for good after eight such deaths.
#
# JACK keeps state in /dev/shm that outlives its processes: the registry, and the metadata store
# (a Berkeley DB in /dev/shm/jack_db-UID, shared by every server of the user, removed by whichever
# server exits first). A process killed while holding one of that store's locks leaves it held
# for good, and every later jackd then hangs in its first client's close. So as root (CI) the
# command runs in a mount namespace of its own with a fresh /dev/shm: nothing left over from an
# earlier run, or from the user's own server, can reach it, and nothing it leaves reaches them.
# Elsewhere a store left by servers no longer running is cleared before starting.
set -uo pipefail
if [ "$(id -u)" = 0 ] && [ -z "${PULSEJACK_PRIVATE_SHM:-}" ] \
    && unshare --mount --propagation private true 2>/dev/null; then
    export PULSEJACK_PRIVATE_SHM=1
    exec unshare --mount --propagation private -- \
        bash -c 'mount -t tmpfs -o mode=1777,nosuid,nodev pulsejack-shm /dev/shm && exec "$0" "$@"' "$0" "$@"
fi
if [ -z "${PULSEJACK_PRIVATE_SHM:-}" ] && [ -d "/dev/shm/jack_db-$(id -u)" ] && ! pgrep -x jackd >/dev/null; then
    rm -rf "/dev/shm/jack_db-$(id -u)"
    echo "cleared JACK's metadata store left by servers no longer running (/dev/shm/jack_db-$(id -u))" >&2
fi
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
    # jack_wait's own -t bounds its wait for the server, not its close, which a wedged server
    # never answers.
    JACK_NO_START_SERVER=1 timeout -k 5 25 jack_wait -s "$name" -w -t 15 >/dev/null
}
# SIGTERM, and after 10 s SIGKILL: a server that hangs must not hang the run.
stop_server() {
    local pid=$1
    kill -TERM "$pid" 2>/dev/null || return 0
    for _ in $(seq 100); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
    if kill -0 "$pid" 2>/dev/null; then
        echo "the private jackd ($name) did not stop within 10 s of SIGTERM: killed" >&2
        kill -KILL "$pid" 2>/dev/null
    fi
    wait "$pid" 2>/dev/null
}
stop() {
    [ -n "$jackd_pid" ] && stop_server "$jackd_pid"
    rm -f "$log"
}
trap stop EXIT
trap 'exit 130' INT TERM
if ! start; then
    stop_server "$jackd_pid"
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
        echo "could not start a private jackd ($name): it did not serve clients within 25 s. A jackd that hangs so" \
             "is most often waiting on JACK's metadata store (/dev/shm/jack_db-$(id -u)) locked by a killed process:" \
             "with no jackd running, remove that folder. What the server said:" >&2
        cat "$log" >&2
        exit 1
    fi
fi
echo "private jackd '$name' running (dummy driver, 48000 Hz, 256 frames${PULSEJACK_PRIVATE_SHM:+, a private /dev/shm})"
PULSEJACK_TEST_SERVER="$name" "$@"
