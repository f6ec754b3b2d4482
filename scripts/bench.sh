#!/usr/bin/env bash
# make bench: end-to-end fan-out through the relay (webhook -> SQLite outbox -> dispatcher -> APNsClient ->
# mock APNs over TLS) for rooms of 1k, 10k and 100k devices, beside the client-only rate and h2load on the
# same mock in the same run. Each room is seeded once by a separate `relay-bench seed` process (so the
# fan-out process's peak RSS, VmHWM, is the fan-out's own) and copied afresh for every run.
# The client-only reference is measured at every size (N sends to distinct tokens from a fresh process, as
# the fan-out to N devices is), so each fan-out is compared with the same pipeline filling and draining; the
# table also compares every row with the largest client run and with h2load.
# The machine is shared (2 cores, other work): every measurement is repeated REPEAT times, interleaved, and
# the table shows each one's fastest run and highest peak RSS; a short run is disturbed more by a moment of
# the machine's, so each round runs the 1k pair eight times, the 10k pair four times and the 100k pair four
# times (two runs of the same sends back to back differ by up to 20 % at 100k and by up to 2x at 1k here;
# with 20 1k pairs the median ranged from 0.89x to 1.00x, with 10 10k pairs from 0.89x to 1.06x, with 10
# 100k pairs from 0.87x to 1.02x). The fan-out target (>= 0.9x the client-only rate) is read by the median
# of the paired ratios, printed under the table.
# Env: SIZES (default "1000 10000 100000"), H2LOAD_N (default 100000), CONCURRENCY (the fan-out's in flight,
# delivery.concurrency and perAppConcurrency, and the client's; default 200, what one app has in flight by
# default), BATCH (delivery.batchSize, default 1000), H2LOAD_STREAMS (default 100), REPEAT (default 5).
source "$(dirname "$0")/bench/lib.sh"
SIZES=${SIZES:-"1000 10000 100000"}
H2LOAD_N=${H2LOAD_N:-100000}
CONCURRENCY=${CONCURRENCY:-200}
BATCH=${BATCH:-1000}
H2LOAD_STREAMS=${H2LOAD_STREAMS:-100}
REPEAT=${REPEAT:-5}

for size in $SIZES; do
    seed="$OUT/seed-$size.sqlite"
    rm -f "$seed" "$seed-wal" "$seed-shm"
    echo "seeding $size devices"
    "$BIN/relay-bench" seed --devices "$size" --db "$seed"
done

start_mock
declare -A runs=()
add_run() { runs[$1]="${runs[$1]:+${runs[$1]},}$2"; }
# Each send to another device token, as in a fan-out (a new :path each time, which HPACK cannot index).
client_run() { # SIZE RUN-LABEL
    echo "client-only: $1 sends to distinct tokens, $CONCURRENCY tasks"
    run_client "$1" "$CONCURRENCY" --distinct-tokens | tee "$OUT/fanout-client-$1-$2.json"
    add_run "client-$1" "$OUT/fanout-client-$1-$2.json"
}
fanout_run() { # SIZE RUN-LABEL
    local db="$OUT/fanout-$1.sqlite"
    rm -f "$db" "$db-wal" "$db-shm"
    cp "$OUT/seed-$1.sqlite" "$db"
    if [ -f "$OUT/seed-$1.sqlite-wal" ]; then cp "$OUT/seed-$1.sqlite-wal" "$db-wal"; fi
    # The copy is setup: written back now, it is not flushed by the run's first fsync (ext4 writes a
    # file's newly allocated blocks before the journal commit that any later fsync waits for).
    sync "$db"*
    echo "fan-out to $1 devices (batch $BATCH, concurrency $CONCURRENCY)"
    "$BIN/relay-bench" fanout --db "$db" --url "$MOCK_URL" --ca "$CA" --key "fixtures/keys/AuthKey_$KEY_ID.p8" \
        --key-id "$KEY_ID" --team "$TEAM_ID" --batch-size "$BATCH" --concurrency "$CONCURRENCY" \
        | tee "$OUT/fanout-$1-$2.json"
    rm -f "$db" "$db-wal" "$db-shm"
    add_run "fanout-$1" "$OUT/fanout-$1-$2.json"
}
for run in $(seq "$REPEAT"); do
    echo "== run $run of $REPEAT"
    echo "h2load: $H2LOAD_N requests, $H2LOAD_STREAMS streams"
    run_h2load "$H2LOAD_N" "$H2LOAD_STREAMS" | tee "$OUT/fanout-h2load-$run.json"
    add_run h2load "$OUT/fanout-h2load-$run.json"
    # Each size's client-only run and fan-out one right after the other (a pair), in turns first.
    for size in $SIZES; do
        pairs=4
        if [ "$size" -le 1000 ]; then pairs=8; fi
        for pair in $(seq "$pairs"); do
            if [ $(((run + pair) % 2)) -eq 0 ]; then
                client_run "$size" "$run-$pair"
                fanout_run "$size" "$run-$pair"
            else
                fanout_run "$size" "$run-$pair"
                client_run "$size" "$run-$pair"
            fi
        done
    done
done
stop_mock

rows=(h2load="${runs[h2load]}")
largest=0
for size in $SIZES; do
    rows+=("client-$size=${runs[client-$size]}")
    if [ "$size" -gt "$largest" ]; then largest=$size; fi
done
for size in $SIZES; do rows+=("fanout-$size=${runs[fanout-$size]}"); done
echo
"$BIN/relay-bench" table --same-size client --target fanout=0.9 --against "client-$largest,h2load" "${rows[@]}"
