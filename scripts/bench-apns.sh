#!/usr/bin/env bash
# make bench-apns: notifications/s through APNsClient to ONE mock APNs over TLS, beside h2load and a bare C
# libcurl multi loop against the same mock in the same run, and the client's RSS at 10/50/100 % of the sends.
# Env: N (client sends, default 200000), H2LOAD_N and CURL_N (default N), INFLIGHT (default 100).
source "$(dirname "$0")/bench/lib.sh"
N=${N:-200000}
H2LOAD_N=${H2LOAD_N:-$N}
CURL_N=${CURL_N:-$N}
INFLIGHT=${INFLIGHT:-100}

start_mock
echo "h2load: $H2LOAD_N requests, $INFLIGHT streams"
run_h2load "$H2LOAD_N" "$INFLIGHT" | tee "$OUT/apns-h2load.json"
echo "bare libcurl multi: $CURL_N requests, $INFLIGHT in flight"
run_libcurl apns "$CURL_N" "$INFLIGHT" | tee "$OUT/apns-libcurl.json"
echo "APNsClient: $N sends, $INFLIGHT tasks"
run_apns_client "$N" "$INFLIGHT" | tee "$OUT/apns-client.json"
stop_mock

echo
"$BIN/relay-bench" table --against libcurl,h2load \
    h2load="$OUT/apns-h2load.json" libcurl="$OUT/apns-libcurl.json" client="$OUT/apns-client.json"
echo
"$BIN/relay-bench" table --rss "$OUT/apns-client.json"
