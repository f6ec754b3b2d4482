#!/usr/bin/env bash
# Runs a command (the test run) with a folder of its own for the servers its tests start, named by
# PUSH_RELAY_TEST_SERVERS: each server writes a `<name>.stop` script there that stops it. The run's
# temporary files (TMPDIR: configs, keys, databases) go in a `tmp` folder inside it. When the command
# ends, however it ends (a failure, a hang cut short, Ctrl-C), every server listed is stopped and the folder
# removed; folders left by earlier runs whose runner is gone are swept first. Exits with the command's status.
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
trap 'stop_all "$run"' EXIT
trap 'exit 130' INT
trap 'exit 143' TERM
PUSH_RELAY_TEST_SERVERS="$run" TMPDIR="$run/tmp" "$@"
