#!/usr/bin/env bash
# make bench: end-to-end fan-out through the relay (webhook -> SQLite outbox -> dispatcher -> transport ->
# mock over TLS) to rooms of iOS devices (APNs, to the mock APNs), of Android devices (FCM, to the mock FCM)
# and of browsers (Web Push, to the mock push service, which decrypts every message), each beside the
# client-only rate of its own client on the same mock at the same size, a bare libcurl multi loop sending
# the same requests (APNs and FCM: the CPU per push reference), h2load on the mock APNs, and `push-relay
# serve` on SQLite and on PostgreSQL, in the same run. The method, and how to read the table, are in
# docs/bench.md.
# Env: SIZES (default "1000 10000 100000"), KINDS (default "apns fcm web"), H2LOAD_N (default 100000),
# CONCURRENCY (the fan-out's in flight, delivery.concurrency and perAppConcurrency, and the client's; default
# 200, what one app has in flight by default), WEB_CONCURRENCY (the same for web pairs; default CONCURRENCY,
# at most 100), BATCH (delivery.batchSize, default 1000), H2LOAD_STREAMS (default 100), REPEAT (default 5),
# APNS_CONNECTIONS (the APNs fan-out's delivery.apnsConnections, one row each; default "1 2 4"), INSTANCES
# (relay instances on one PostgreSQL, one row each; default "1 2 3"), LATENCY_RATE and LATENCY_SECONDS (the
# latency runs' webhooks a second and length; default 20 and 30). Relays log at info, to files.
source "$(dirname "$0")/bench/lib.sh"
SIZES=${SIZES:-"1000 10000 100000"}
KINDS=${KINDS:-"apns fcm web"}
H2LOAD_N=${H2LOAD_N:-100000}
CONCURRENCY=${CONCURRENCY:-200}
# WebPushClient takes at most 100 requests in flight to one origin (maxInFlightPerOrigin) and the bench's
# subscriptions are all at the mock's: above that the web fan-out measures the outbox's back-off after
# OriginBusy refusals (docs/bench.md, "Web Push rows"), so web pairs run at most 100 unless told.
WEB_CONCURRENCY=${WEB_CONCURRENCY:-$((CONCURRENCY < 100 ? CONCURRENCY : 100))}
declare -A IN_FLIGHT=([apns]=$CONCURRENCY [fcm]=$CONCURRENCY [web]=$WEB_CONCURRENCY)
BATCH=${BATCH:-1000}
H2LOAD_STREAMS=${H2LOAD_STREAMS:-100}
REPEAT=${REPEAT:-5}
APNS_CONNECTIONS=${APNS_CONNECTIONS:-"1 2 4"}
LATENCY_RATE=${LATENCY_RATE:-20}
LATENCY_SECONDS=${LATENCY_SECONDS:-30}
INSTANCES=${INSTANCES:-"1 2 3"}
declare -A PLATFORM=([apns]=ios [fcm]=android [web]=web)

start_mock
start_fcm_mock
# Before seeding: web devices are subscriptions of this mock (its URL, its subscriptions directory).
start_webpush_mock
# What `relay-bench seed` needs per kind besides the size: web subscriptions are made at the mock.
APNS_SEED=()
FCM_SEED=()
WEB_SEED=(--url "$WEBPUSH_URL" --subscriptions "$WEBPUSH_SUBSCRIPTIONS")
# Each room is seeded once, by a process of its own, and copied afresh for every fan-out.
for kind in $KINDS; do
    declare -n seed_flags="${kind^^}_SEED"
    for size in $SIZES; do
        seed="$OUT/seed-$kind-$size.sqlite"
        rm -f "$seed" "$seed-wal" "$seed-shm"
        echo "seeding $size ${PLATFORM[$kind]} devices"
        "$BIN/relay-bench" seed --platform "${PLATFORM[$kind]}" --devices "$size" --db "$seed" "${seed_flags[@]}"
    done
    unset -n seed_flags
done

# What `relay-bench fanout` needs per kind besides the database: its platform's mock and credentials.
APNS_FANOUT=(--url "$MOCK_URL" --key "fixtures/keys/AuthKey_$KEY_ID.p8" --key-id "$KEY_ID" --team "$TEAM_ID")
FCM_FANOUT=(--platform android --fcm-url "$FCM_URL" --service-account "$SERVICE_ACCOUNT")
WEB_FANOUT=(--platform web --web-url "$WEBPUSH_URL" --vapid-key "$VAPID_KEY")
declare -A runs=()
add_run() { runs[$1]="${runs[$1]:+${runs[$1]},}$2"; }
# Each send to another device token, as in a fan-out (a new :path or body each time, which HPACK cannot
# index).
client_run() { # KIND SIZE RUN-LABEL
    local result="$OUT/fanout-$1-client-$2-$3.json"
    echo "client-only $1: $2 sends to distinct tokens, ${IN_FLIGHT[$1]} tasks"
    "run_$1_client" "$2" "${IN_FLIGHT[$1]}" --distinct-tokens | tee "$result"
    add_run "$1-client-$2" "$result"
}
# The kinds with a bare libcurl reference (scripts/bench/curl-multi.c): the requests their clients render.
LIBCURL_KINDS=" apns fcm "
libcurl_run() { # KIND SIZE RUN-LABEL
    local result="$OUT/fanout-$1-libcurl-$2-$3.json"
    echo "bare libcurl $1: $2 requests to distinct tokens, ${IN_FLIGHT[$1]} in flight"
    run_libcurl "$1" "$2" "${IN_FLIGHT[$1]}" --distinct-tokens | tee "$result"
    add_run "$1-libcurl-$2" "$result"
}
fanout_run() { # KIND SIZE RUN-LABEL [ROW FLAGS...]: ROW (default KIND-fanout) labels the row
    local row=${4:-$1-fanout}
    local db="$OUT/fanout-$1-$2.sqlite" seed="$OUT/seed-$1-$2.sqlite" result="$OUT/$row-$2-$3.json"
    local -n flags="${1^^}_FANOUT"
    rm -f "$db" "$db-wal" "$db-shm"
    cp "$seed" "$db"
    if [ -f "$seed-wal" ]; then cp "$seed-wal" "$db-wal"; fi
    # The copy is setup: written back now, it is not flushed by the run's first fsync (ext4 writes a
    # file's newly allocated blocks before the journal commit that any later fsync waits for).
    sync "$db"*
    echo "fan-out $1 to $2 ${PLATFORM[$1]} devices (batch $BATCH, concurrency ${IN_FLIGHT[$1]}) ${*:5}"
    # The relay logs as `push-relay serve` does, a line per push, to a file as a deployment's collector reads.
    "$BIN/relay-bench" fanout --db "$db" --ca "$CA" "${flags[@]}" --batch-size "$BATCH" \
        --concurrency "${IN_FLIGHT[$1]}" "${@:5}" 2>"$OUT/$row-$2-$3.log" | tee "$result"
    rm -f "$db" "$db-wal" "$db-shm"
    add_run "$row-$2" "$result"
}
# Each row of a kind's fan-out (APNs: one per connection count), as ROW FLAGS... words for fanout_run.
fanout_rows() { # KIND
    if [ "$1" = apns ]; then
        for connections in $APNS_CONNECTIONS; do echo "apns-fanout-c$connections --apns-connections $connections"; done
        echo "apns-fanout-badge --badge"
    else
        echo "$1-fanout"
    fi
}
fanouts() { # KIND SIZE RUN-LABEL: every fan-out row of KIND at SIZE
    local line
    while read -r line; do
        # shellcheck disable=SC2086
        fanout_run "$1" "$2" "$3" $line
    done < <(fanout_rows "$1")
}
# N `push-relay serve` processes on one throwaway PostgreSQL cluster (STORE postgres), or one on a SQLite file
# (STORE sqlite), the room seeded there, the webhook to the first instance (relay-bench cluster).
cluster_run() { # STORE INSTANCES SIZE RUN-LABEL
    local row="apns-pg-i$2"
    if [ "$1" = sqlite ]; then row=apns-sqlite-i1; fi
    local result="$OUT/$row-$3-$4.json"
    echo "fan-out apns to $3 ios devices from $2 relay instance(s) on $1"
    "$BIN/relay-bench" cluster --store "$1" --instances "$2" --devices "$3" --relay "$BIN/push-relay" --ca "$CA" \
        "${APNS_FANOUT[@]}" --batch-size "$BATCH" --concurrency "$CONCURRENCY" | tee "$result"
    add_run "$row-$3" "$result"
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
                    if [[ "$LIBCURL_KINDS" == *" $kind "* ]]; then libcurl_run "$kind" "$size" "$run-$pair"; fi
                    fanouts "$kind" "$size" "$run-$pair"
                else
                    fanouts "$kind" "$size" "$run-$pair"
                    if [[ "$LIBCURL_KINDS" == *" $kind "* ]]; then libcurl_run "$kind" "$size" "$run-$pair"; fi
                    client_run "$kind" "$size" "$run-$pair"
                fi
            done
        done
        if [[ " $KINDS " == *" apns "* ]]; then
            cluster_run sqlite 1 "$size" "$run"
            for instances in $INSTANCES; do cluster_run postgres "$instances" "$size" "$run"; done
        fi
    done
done
# Webhook-to-push latency at low load, on each store: LATENCY_RATE webhooks a second to rooms of 5 devices.
for store in sqlite postgres; do
    echo "latency on $store: $LATENCY_RATE webhooks/s for $LATENCY_SECONDS s"
    "$BIN/relay-bench" latency --store "$store" --rate "$LATENCY_RATE" --seconds "$LATENCY_SECONDS" \
        --relay "$BIN/push-relay" --ca "$CA" "${APNS_FANOUT[@]}" | tee "$OUT/latency-$store.json"
done
stop_mock

rows=(h2load="${runs[h2load]}")
pairs=()
for kind in $KINDS; do
    for size in $SIZES; do rows+=("$kind-client-$size=${runs[$kind-client-$size]}"); done
    if [[ "$LIBCURL_KINDS" == *" $kind "* ]]; then
        for size in $SIZES; do rows+=("$kind-libcurl-$size=${runs[$kind-libcurl-$size]}"); done
    fi
    while read -r row _; do
        for size in $SIZES; do rows+=("$row-$size=${runs[$row-$size]}"); done
        pairs+=(--pair "$row=$kind-client")
        if [[ "$LIBCURL_KINDS" == *" $kind "* ]]; then pairs+=(--cpu-pair "$row=$kind-libcurl"); fi
    done < <(fanout_rows "$kind")
    if [ "$kind" = apns ]; then
        # The same `push-relay serve` on SQLite and on PostgreSQL: PostgreSQL's one instance against SQLite's
        # (target 0.8x), and every instance count against one.
        for size in $SIZES; do rows+=("apns-sqlite-i1-$size=${runs[apns-sqlite-i1-$size]}"); done
        pairs+=(--cpu-pair "apns-sqlite-i1=apns-libcurl")
        for instances in $INSTANCES; do
            for size in $SIZES; do rows+=("apns-pg-i$instances-$size=${runs[apns-pg-i$instances-$size]}"); done
            if [ "$instances" = 1 ]; then
                pairs+=(--pair "apns-pg-i1=apns-sqlite-i1@0.8")
            else
                pairs+=(--pair "apns-pg-i$instances=apns-pg-i1@1.0")
            fi
            pairs+=(--cpu-pair "apns-pg-i$instances=apns-libcurl")
        done
    fi
done
echo
"$BIN/relay-bench" table "${pairs[@]}" --target 0.9 --cpu-target 1.1 --against h2load "${rows[@]}"
echo
for store in sqlite postgres; do echo "latency $store: $(cat "$OUT/latency-$store.json")"; done
