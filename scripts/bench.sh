#!/usr/bin/env bash
# make bench: end-to-end fan-out through the relay (webhook -> SQLite outbox -> dispatcher -> transport ->
# mock over TLS) to rooms of iOS devices (APNs, to the mock APNs) and of Android devices (FCM, to the mock
# FCM), each beside the client-only rate of its own client on the same mock at the same size, and h2load on
# the mock APNs, in the same run. The method, and how to read the table, are in docs/bench.md.
# Env: SIZES (default "1000 10000 100000"), KINDS (default "apns fcm"), H2LOAD_N (default 100000),
# CONCURRENCY (the fan-out's in flight, delivery.concurrency and perAppConcurrency, and the client's; default
# 200, what one app has in flight by default), BATCH (delivery.batchSize, default 1000), H2LOAD_STREAMS
# (default 100), REPEAT (default 5).
source "$(dirname "$0")/bench/lib.sh"
SIZES=${SIZES:-"1000 10000 100000"}
KINDS=${KINDS:-"apns fcm"}
H2LOAD_N=${H2LOAD_N:-100000}
CONCURRENCY=${CONCURRENCY:-200}
BATCH=${BATCH:-1000}
H2LOAD_STREAMS=${H2LOAD_STREAMS:-100}
REPEAT=${REPEAT:-5}
declare -A PLATFORM=([apns]=ios [fcm]=android)

# Each room is seeded once, by a process of its own, and copied afresh for every fan-out.
for kind in $KINDS; do
    for size in $SIZES; do
        seed="$OUT/seed-$kind-$size.sqlite"
        rm -f "$seed" "$seed-wal" "$seed-shm"
        echo "seeding $size ${PLATFORM[$kind]} devices"
        "$BIN/relay-bench" seed --platform "${PLATFORM[$kind]}" --devices "$size" --db "$seed"
    done
done

start_mock
start_fcm_mock
# What `relay-bench fanout` needs per kind besides the database: its platform's mock and credentials.
APNS_FANOUT=(--url "$MOCK_URL" --key "fixtures/keys/AuthKey_$KEY_ID.p8" --key-id "$KEY_ID" --team "$TEAM_ID")
FCM_FANOUT=(--platform android --fcm-url "$FCM_URL" --service-account "$SERVICE_ACCOUNT")
declare -A runs=()
add_run() { runs[$1]="${runs[$1]:+${runs[$1]},}$2"; }
# Each send to another device token, as in a fan-out (a new :path or body each time, which HPACK cannot
# index).
client_run() { # KIND SIZE RUN-LABEL
    local result="$OUT/fanout-$1-client-$2-$3.json"
    echo "client-only $1: $2 sends to distinct tokens, $CONCURRENCY tasks"
    "run_$1_client" "$2" "$CONCURRENCY" --distinct-tokens | tee "$result"
    add_run "$1-client-$2" "$result"
}
fanout_run() { # KIND SIZE RUN-LABEL
    local db="$OUT/fanout-$1-$2.sqlite" seed="$OUT/seed-$1-$2.sqlite" result="$OUT/fanout-$1-$2-$3.json"
    local -n flags="${1^^}_FANOUT"
    rm -f "$db" "$db-wal" "$db-shm"
    cp "$seed" "$db"
    if [ -f "$seed-wal" ]; then cp "$seed-wal" "$db-wal"; fi
    # The copy is setup: written back now, it is not flushed by the run's first fsync (ext4 writes a
    # file's newly allocated blocks before the journal commit that any later fsync waits for).
    sync "$db"*
    echo "fan-out $1 to $2 ${PLATFORM[$1]} devices (batch $BATCH, concurrency $CONCURRENCY)"
    "$BIN/relay-bench" fanout --db "$db" --ca "$CA" "${flags[@]}" --batch-size "$BATCH" \
        --concurrency "$CONCURRENCY" | tee "$result"
    rm -f "$db" "$db-wal" "$db-shm"
    add_run "$1-fanout-$2" "$result"
}
for run in $(seq "$REPEAT"); do
    echo "== run $run of $REPEAT"
    echo "h2load: $H2LOAD_N requests, $H2LOAD_STREAMS streams"
    run_h2load "$H2LOAD_N" "$H2LOAD_STREAMS" | tee "$OUT/fanout-h2load-$run.json"
    add_run h2load "$OUT/fanout-h2load-$run.json"
    # Each kind's client-only run and fan-out at one size right after the other (a pair), in turns first,
    # then the next kind's pair.
    for size in $SIZES; do
        pairs=4
        if [ "$size" -le 1000 ]; then pairs=8; fi
        for pair in $(seq "$pairs"); do
            for kind in $KINDS; do
                if [ $(((run + pair) % 2)) -eq 0 ]; then
                    client_run "$kind" "$size" "$run-$pair"
                    fanout_run "$kind" "$size" "$run-$pair"
                else
                    fanout_run "$kind" "$size" "$run-$pair"
                    client_run "$kind" "$size" "$run-$pair"
                fi
            done
        done
    done
done
stop_mock

rows=(h2load="${runs[h2load]}")
pairs=()
for kind in $KINDS; do
    for size in $SIZES; do rows+=("$kind-client-$size=${runs[$kind-client-$size]}"); done
    for size in $SIZES; do rows+=("$kind-fanout-$size=${runs[$kind-fanout-$size]}"); done
    pairs+=(--pair "$kind-fanout=$kind-client")
done
echo
"$BIN/relay-bench" table "${pairs[@]}" --target 0.9 --against h2load "${rows[@]}"
