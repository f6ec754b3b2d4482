#!/usr/bin/env bash
# make bench: end-to-end fan-out through the relay (webhook -> SQLite outbox -> dispatcher -> APNsClient ->
# mock APNs over TLS) for rooms of 1k, 10k and 100k devices, beside the client-only rate and h2load on the
# same mock in the same run. Each room is seeded once by a separate `relay-bench seed` process (so the
# fan-out process's peak RSS, VmHWM, is the fan-out's own) and copied afresh for every run.
# The machine is shared (2 cores, other work): every measurement is repeated REPEAT times, interleaved, and
# the table shows each one's fastest run and highest peak RSS.
# Env: SIZES (default "1000 10000 100000"), CLIENT_N (default 100000), CONCURRENCY (the fan-out's in flight,
# delivery.concurrency and perAppConcurrency, and the client's; default 200, what one app has in flight by
# default), BATCH (delivery.batchSize, default 1000), H2LOAD_STREAMS (default 100), REPEAT (default 3).
source "$(dirname "$0")/bench/lib.sh"
SIZES=${SIZES:-"1000 10000 100000"}
CLIENT_N=${CLIENT_N:-100000}
CONCURRENCY=${CONCURRENCY:-200}
BATCH=${BATCH:-1000}
H2LOAD_STREAMS=${H2LOAD_STREAMS:-100}
REPEAT=${REPEAT:-3}

for size in $SIZES; do
    seed="$OUT/seed-$size.sqlite"
    rm -f "$seed" "$seed-wal" "$seed-shm"
    echo "seeding $size devices"
    "$BIN/relay-bench" seed --devices "$size" --db "$seed"
done

start_mock
declare -A runs=()
add_run() { runs[$1]="${runs[$1]:+${runs[$1]},}$2"; }
for run in $(seq "$REPEAT"); do
    echo "== run $run of $REPEAT"
    echo "h2load: $CLIENT_N requests, $H2LOAD_STREAMS streams"
    run_h2load "$CLIENT_N" "$H2LOAD_STREAMS" | tee "$OUT/fanout-h2load-$run.json"
    add_run h2load "$OUT/fanout-h2load-$run.json"
    # Each send to another device token, as in a fan-out (a new :path each time, which HPACK cannot index).
    echo "client-only: $CLIENT_N sends to distinct tokens, $CONCURRENCY tasks"
    run_client "$CLIENT_N" "$CONCURRENCY" --distinct-tokens | tee "$OUT/fanout-client-$run.json"
    add_run client "$OUT/fanout-client-$run.json"
    for size in $SIZES; do
        db="$OUT/fanout-$size.sqlite"
        rm -f "$db" "$db-wal" "$db-shm"
        cp "$OUT/seed-$size.sqlite" "$db"
        if [ -f "$OUT/seed-$size.sqlite-wal" ]; then cp "$OUT/seed-$size.sqlite-wal" "$db-wal"; fi
        echo "fan-out to $size devices (batch $BATCH, concurrency $CONCURRENCY)"
        "$BIN/relay-bench" fanout --db "$db" --url "$MOCK_URL" --ca "$CA" --key "fixtures/keys/AuthKey_$KEY_ID.p8" \
            --key-id "$KEY_ID" --team "$TEAM_ID" --batch-size "$BATCH" --concurrency "$CONCURRENCY" \
            | tee "$OUT/fanout-$size-$run.json"
        rm -f "$db" "$db-wal" "$db-shm"
        add_run "fanout-$size" "$OUT/fanout-$size-$run.json"
    done
done
stop_mock

rows=(h2load="${runs[h2load]}" client="${runs[client]}")
for size in $SIZES; do rows+=("fanout-$size=${runs[fanout-$size]}"); done
echo
"$BIN/relay-bench" table --against client,h2load "${rows[@]}"
