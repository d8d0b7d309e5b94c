#!/usr/bin/env bash
# bounded.sh MINUTES COMMAND…: runs COMMAND, and stops it with everything it started if it runs
# longer than MINUTES (exit status 124, as timeout(1) gives).
#
# Not timeout(1): it signals its child or its child's process group, and `swift test` runs the
# test process in a group of its own (and leaves it running when terminated). Here the limit, an
# interrupt or a termination of this script signal the command's whole tree of processes: SIGTERM,
# then SIGKILL to what still runs 30 s later.
set -uo pipefail
minutes=$1
shift
# Launched with job control on: an asynchronous command of a script otherwise starts with SIGINT
# ignored, and passes that on to every program under it (a `jack_lsp` a test interrupts included).
set -m
"$@" &
command=$!
set +m
tree() {
    local child
    echo "$1"
    for child in $(pgrep -P "$1"); do tree "$child"; done
}
stop_tree() {
    local left
    left=$(tree "$command")
    kill -TERM $left 2>/dev/null
    for _ in $(seq 300); do
        left=$(for pid in $left $(tree "$command"); do kill -0 "$pid" 2>/dev/null && echo "$pid"; done | sort -u)
        [ -z "$left" ] && return 0
        kill -TERM $left 2>/dev/null
        sleep 0.1
    done
    kill -KILL $left 2>/dev/null
}
trap 'stop_tree; wait "$command"; exit 130' INT TERM HUP
sleep "${minutes}m" &
limit=$!
# Whichever ends first: the command, or the limit.
while true; do
    ended=""
    wait -n -p ended "$command" "$limit"
    status=$?
    if [ "$ended" = "$command" ]; then
        kill "$limit" 2>/dev/null
        exit "$status"
    elif [ "$ended" = "$limit" ]; then
        echo "bounded.sh: '$*' ran past its limit of $minutes minutes: stopped" >&2
        stop_tree
        wait "$command" 2>/dev/null
        exit 124
    fi
done
