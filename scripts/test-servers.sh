#!/usr/bin/env bash
# Runs a command (the test run) with a folder of its own for the servers its tests start, named by
# PUSH_RELAY_TEST_SERVERS: each server writes a `<name>.stop` script there that stops it. The run's
# temporary files (TMPDIR: configs, keys, databases) go in a `tmp` folder inside it. The command runs in a
# session of its own: every process it starts, in whatever process group, stays in that session. When the
# command ends, however it ends (a failure, a crash of the test process, a hang cut short, Ctrl-C), every
# server listed is stopped, what is left of the session (a child a crashed test never stopped) is killed
# and the folder removed; folders left by earlier runs whose runner is gone are swept first. Exits with the
# command's status.
set -u
root="${TMPDIR:-/tmp}/push-relay-test-runs"

stop_servers() {
    local stop
    for stop in "$1"/*.stop; do
        [ -e "$stop" ] && sh "$stop" >/dev/null 2>&1
    done
}

# Fields of /proc/PID/stat after the command name: state, parent, group, session, ...
stat_fields() {
    local line
    read -r line 2>/dev/null <"/proc/$1/stat" || return 1
    echo "${line##*) }"
}

# Whether process $1 runs (a zombie has ended).
running() {
    local fields
    fields=$(stat_fields "$1") && [ "${fields%% *}" != Z ]
}

# Kills every process of session $1, and waits up to 5 seconds in all until each has ended (a signal is
# delivered when its process next runs, which on a busy machine comes after kill returns).
kill_session() {
    local stat pid fields left killed=()
    for stat in /proc/[0-9]*/stat; do
        pid="${stat#/proc/}"
        pid="${pid%/stat}"
        fields=$(stat_fields "$pid") || continue
        set -- "$1" $fields
        [ "${5:-}" = "$1" ] && kill -KILL "$pid" 2>/dev/null && killed+=("$pid")
    done
    for _ in $(seq 50); do
        left=0
        for pid in ${killed[@]+"${killed[@]}"}; do running "$pid" && left=1 && break; done
        [ "$left" = 0 ] && break
        sleep 0.1
    done
}

mkdir -p "$root"
for folder in "$root"/*; do
    [ -d "$folder" ] || continue
    kill -0 "$(basename "$folder")" 2>/dev/null || { stop_servers "$folder"; rm -rf "$folder"; }
done

run="$root/$$"
mkdir -p "$run/tmp" || exit 1
session=""
finish() {
    if [ -n "$session" ] && running "$session"; then
        # Cut short: the command gets the interrupt the terminal would have given it (swift test passes it
        # on to the test process) and 10 seconds to end.
        kill -INT "$session" 2>/dev/null
        for _ in $(seq 50); do running "$session" || break; sleep 0.2; done
    fi
    stop_servers "$run"
    [ -n "$session" ] && kill_session "$session"
    rm -rf "$run"
}
trap finish EXIT
trap 'exit 130' INT
trap 'exit 143' TERM
# A background job of a shell without job control is no group leader, so setsid makes that same process
# the leader of a new session: its pid names the session. Such a job starts with interrupts ignored; env
# gives the command the default again, so an interrupt passed on reaches it.
PUSH_RELAY_TEST_SERVERS="$run" TMPDIR="$run/tmp" setsid env --default-signal=INT "$@" &
session=$!
wait "$session"
