#!/usr/bin/env bash
# make bench: end-to-end fan-out through the relay (webhook -> SQLite outbox -> dispatcher -> APNsClient ->
# mock APNs over TLS) for rooms of 1k, 10k and 100k devices, beside the client-only rate and h2load on the
# same mock in the same run. Each room is seeded by a separate `relay-bench seed` process, so the fan-out
# process's peak RSS (VmHWM) is the fan-out's own.
# Env: SIZES (default "1000 10000 100000"), CLIENT_N (default 100000), CONCURRENCY (delivery.concurrency and
# the client's in-flight, default 1000), BATCH (delivery.batchSize, default 1000), H2LOAD_STREAMS (default 100).
source "$(dirname "$0")/bench/lib.sh"
SIZES=${SIZES:-"1000 10000 100000"}
CLIENT_N=${CLIENT_N:-100000}
CONCURRENCY=${CONCURRENCY:-1000}
BATCH=${BATCH:-1000}
H2LOAD_STREAMS=${H2LOAD_STREAMS:-100}

start_mock
echo "h2load: $CLIENT_N requests, $H2LOAD_STREAMS streams"
run_h2load "$CLIENT_N" "$H2LOAD_STREAMS" | tee "$OUT/fanout-h2load.json"
echo "client-only: $CLIENT_N sends, $CONCURRENCY tasks"
run_client "$CLIENT_N" "$CONCURRENCY" | tee "$OUT/fanout-client.json"
rows=(h2load="$OUT/fanout-h2load.json" client="$OUT/fanout-client.json")
for size in $SIZES; do
    db="$OUT/fanout-$size.sqlite"
    rm -f "$db" "$db-wal" "$db-shm"
    echo "seeding $size devices"
    "$BIN/relay-bench" seed --devices "$size" --db "$db"
    echo "fan-out to $size devices (batch $BATCH, concurrency $CONCURRENCY)"
    "$BIN/relay-bench" fanout --db "$db" --url "$MOCK_URL" --ca "$CA" --key "fixtures/keys/AuthKey_$KEY_ID.p8" \
        --key-id "$KEY_ID" --team "$TEAM_ID" --batch-size "$BATCH" --concurrency "$CONCURRENCY" \
        | tee "$OUT/fanout-$size.json"
    rm -f "$db" "$db-wal" "$db-shm"
    rows+=("fanout-$size=$OUT/fanout-$size.json")
done
stop_mock

echo
"$BIN/relay-bench" table --against client,h2load "${rows[@]}"
