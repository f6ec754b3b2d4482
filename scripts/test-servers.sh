#!/usr/bin/env bash
# Runs a command (the test run) with a folder of its own for the servers its tests start, named by
# PUSH_RELAY_TEST_SERVERS: each server writes a `<name>.stop` script there that stops it. The run's
# temporary files (TMPDIR: configs, keys, databases) go in a `tmp` folder inside it. The command runs in a
# session of its own, so every process it starts stays in its process group. When the command ends,
# however it ends (a failure, a crash of the test process, a hang cut short, Ctrl-C), every server listed
# is stopped, what is left of the group (a child a crashed test never stopped) is killed and the folder
# removed; folders left by earlier runs whose runner is gone are swept first. Exits with the command's
# status.
set -u
root="${TMPDIR:-/tmp}/push-relay-test-runs"

stop_all() {
    local folder="$1" stop
    for stop in "$folder"/*.stop; do
        [ -e "$stop" ] && sh "$stop" >/dev/null 2>&1
    done
    rm -rf "$folder"
}

mkdir -p "$root"
for folder in "$root"/*; do
    [ -d "$folder" ] || continue
    kill -0 "$(basename "$folder")" 2>/dev/null || stop_all "$folder"
done

run="$root/$$"
mkdir -p "$run/tmp" || exit 1
group=""
finish() {
    stop_all "$run"
    [ -n "$group" ] && kill -KILL -- "-$group" 2>/dev/null
}
trap finish EXIT
trap 'exit 130' INT
trap 'exit 143' TERM
# A background job of a shell without job control is no group leader, so setsid starts the session in
# that same process: its pid names the group.
PUSH_RELAY_TEST_SERVERS="$run" TMPDIR="$run/tmp" setsid "$@" &
group=$!
wait "$group"
