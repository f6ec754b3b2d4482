# Shared by scripts/bench-apns.sh and scripts/bench.sh (sourced, not run). Loopback only; every process
# started here is stopped by the EXIT trap.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.."

BIN=.build/release
OUT=.build/bench
KEY_ID=ABC123DEFG
TEAM_ID=TEAM123456
CA=fixtures/tls/ca.pem
TOKEN=ce8be6272e43e85516033e24b4c289220eeda4879c477160b2545e95b68b5969
BODY='{"aps":{"alert":{"body":"Alice: hello","title":"Team"},"sound":"default","thread-id":"room-1"},"dittoChatRoomId":"room-1"}'
mkdir -p "$OUT"
for tool in "$BIN/push-relay" "$BIN/relay-bench"; do
    [ -x "$tool" ] || { echo "missing $tool: run 'make release'" >&2; exit 1; }
done
command -v h2load >/dev/null || { echo "missing h2load (nghttp2-client): run 'make setup'" >&2; exit 1; }

MOCK_PIDS=()
stop_mock() {
    local pid
    for pid in "${MOCK_PIDS[@]}"; do
        kill "$pid" 2>/dev/null || true
        wait "$pid" 2>/dev/null || true
    done
    MOCK_PIDS=()
}
trap stop_mock EXIT

# launch_mock NAME LOG READY COMMAND...: runs COMMAND in the background, its output in LOG, and waits until
# LOG has a line matching READY (grep); sets MOCK_PORT from LOG's first https://127.0.0.1:PORT.
launch_mock() {
    local name=$1 log=$2 ready=$3 pid
    shift 3
    "$@" >"$log" 2>&1 &
    pid=$!
    MOCK_PIDS+=("$pid")
    MOCK_PORT=
    for _ in $(seq 100); do
        if grep -q "$ready" "$log"; then
            MOCK_PORT=$(sed -n 's|.*https://127.0.0.1:\([0-9]*\).*|\1|p' "$log" | head -n 1)
            break
        fi
        kill -0 "$pid" 2>/dev/null || { cat "$log" >&2; exit 1; }
        sleep 0.1
    done
    [ -n "$MOCK_PORT" ] || { echo "$name did not start" >&2; exit 1; }
    echo "$name (pid $pid) on https://127.0.0.1:$MOCK_PORT"
}

# Starts ONE mock APNs over TLS on a free loopback port, trusting the fixture key; sets MOCK_URL, DEVICE_URL
# (the request URL for h2load) and AUTH (`bearer <JWT>`).
start_mock() {
    launch_mock "mock APNs" "$OUT/mock.log" 'https://127.0.0.1:' \
        "$BIN/push-relay" mock-apns --quiet --host 127.0.0.1 --port 0 \
        --key "$KEY_ID:$TEAM_ID:fixtures/keys/AuthKey_$KEY_ID.pub.pem"
    MOCK_URL="https://127.0.0.1:$MOCK_PORT"
    DEVICE_URL="$MOCK_URL/3/device/$TOKEN"
    AUTH=$("$BIN/relay-bench" jwt --key "fixtures/keys/AuthKey_$KEY_ID.p8" --key-id "$KEY_ID" --team "$TEAM_ID")
}

# Starts ONE mock FCM over TLS (the fixture certificate, as the mock APNs) on a free loopback port, with a
# new service account it trusts; sets FCM_URL and SERVICE_ACCOUNT (the account's key file).
start_fcm_mock() {
    SERVICE_ACCOUNT="$OUT/fcm-service-account.json"
    rm -f "$SERVICE_ACCOUNT"
    launch_mock "mock FCM" "$OUT/mock-fcm.log" 'service account written' \
        "$BIN/push-relay" mock-fcm --quiet --host 127.0.0.1 --port 0 --new-service-account "$SERVICE_ACCOUNT"
    FCM_URL="https://127.0.0.1:$MOCK_PORT"
}

# run_h2load N INFLIGHT > FILE: h2load, one TLS connection, INFLIGHT streams, same headers and body; prints
# {"requests","ok","seconds"} from h2load's summary (full output kept in $OUT/h2load.txt). Now and then "ok"
# is INFLIGHT - 1 short: h2load opened its first INFLIGHT streams before it read the mock's SETTINGS, which
# allow one stream until a provider token has been proven (as APNs does), and the mock refused the rest.
run_h2load() {
    printf '%s' "$BODY" >"$OUT/body.json"
    h2load -n "$1" -c 1 -m "$2" -d "$OUT/body.json" \
        -H "authorization: $AUTH" -H "apns-topic: com.example.chat" -H "apns-push-type: alert" \
        -H "apns-priority: 10" -H "content-type: application/json" "$DEVICE_URL" >"$OUT/h2load.txt" 2>&1
    awk '
        /^finished in/ { t = $3; sub(/,$/, "", t)
            if (t ~ /ms$/) { sub(/ms$/, "", t); t = t / 1000 } else if (t ~ /us$/) { sub(/us$/, "", t); t = t / 1e6 } else { sub(/s$/, "", t) } }
        /^status codes:/ { ok = $3 }
        /^requests:/ { n = $2 }
        END { printf "{\"requests\":%d,\"ok\":%d,\"seconds\":%.4f}\n", n, ok, t }' "$OUT/h2load.txt"
}

# run_libcurl KIND N INFLIGHT [CLIENT ARGS...]: the bare C libcurl multi loop (scripts/bench/curl-multi.c,
# compiled once) sending N of the requests KIND's client (apns or fcm) renders, with CLIENT ARGS (e.g.
# --distinct-tokens), written beforehand to $OUT/requests-KIND.txt.
run_libcurl() {
    if [ ! -x "$OUT/curl-multi" ] || [ scripts/bench/curl-multi.c -nt "$OUT/curl-multi" ]; then
        # shellcheck disable=SC2046
        "${CC:-cc}" -O2 -o "$OUT/curl-multi" scripts/bench/curl-multi.c $(pkg-config --cflags --libs libcurl)
    fi
    "run_$1_client" 1 1 --requests-out "$OUT/requests-$1.txt" "${@:4}"
    "$OUT/curl-multi" "$CA" "$OUT/requests-$1.txt" "$2" "$3"
}

# run_apns_client N INFLIGHT [ARGS...]: relay-bench apns, APNsClient.send with INFLIGHT tasks.
run_apns_client() {
    "$BIN/relay-bench" apns --url "$MOCK_URL" --ca "$CA" --key "fixtures/keys/AuthKey_$KEY_ID.p8" \
        --key-id "$KEY_ID" --team "$TEAM_ID" --count "$1" --in-flight "$2" "${@:3}"
}

# run_fcm_client N INFLIGHT [ARGS...]: relay-bench fcm, FCMClient.send with INFLIGHT tasks.
run_fcm_client() {
    "$BIN/relay-bench" fcm --url "$FCM_URL" --ca "$CA" --service-account "$SERVICE_ACCOUNT" --count "$1" \
        --in-flight "$2" "${@:3}"
}

# Starts ONE mock Web Push service over TLS (the fixture certificate, as the other mocks) on a free loopback
# port, its subscriptions (their private keys) in a fresh directory where `relay-bench seed --platform web`
# and `relay-bench web` make theirs; a new VAPID key signs. Sets WEBPUSH_URL, WEBPUSH_SUBSCRIPTIONS and
# VAPID_KEY.
start_webpush_mock() {
    WEBPUSH_SUBSCRIPTIONS="$OUT/webpush-subscriptions"
    VAPID_KEY="$OUT/webpush-vapid.pem"
    rm -rf "$WEBPUSH_SUBSCRIPTIONS" "$OUT/webpush-client.jsonl" "$VAPID_KEY"
    "$BIN/push-relay" keys vapid --out "$VAPID_KEY" >/dev/null
    launch_mock "mock Web Push" "$OUT/mock-webpush.log" 'mock Web Push listening on' \
        "$BIN/push-relay" mock-webpush --quiet --host 127.0.0.1 --port 0 --subscriptions "$WEBPUSH_SUBSCRIPTIONS"
    WEBPUSH_URL="https://127.0.0.1:$MOCK_PORT"
}

# run_web_client N INFLIGHT [ARGS...]: relay-bench web, WebPushClient.send with INFLIGHT tasks, to
# subscriptions of the mock listed (made on first use) in $OUT/webpush-client.jsonl.
run_web_client() {
    "$BIN/relay-bench" web --url "$WEBPUSH_URL" --ca "$CA" --subscriptions "$WEBPUSH_SUBSCRIPTIONS" \
        --list "$OUT/webpush-client.jsonl" --vapid-key "$VAPID_KEY" --count "$1" --in-flight "$2" "${@:3}"
}
