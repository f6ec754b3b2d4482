#!/usr/bin/env bash
# Fuzzes a live relay from docs/openapi.yaml with schemathesis (from the .venv that scripts/setup.sh makes):
# starts `.build/debug/push-relay serve` on a free loopback port with a throw-away data directory (the
# development app and its in-process mock APNs), then runs every documented operation with generated valid
# and invalid requests (examples, coverage, fuzzing and stateful phases; links chain a registration or a
# webhook to the calls that use its answer), checking every answer against the document (see `checks`).
# Run after `swift build` (make test does). Ends with
# "schemathesis: N passed, M failed" (operations) and exits non-zero on any failure.
#
# SCHEMATHESIS_MAX_EXAMPLES (default 50) bounds the generated cases per operation and phase;
# SCHEMATHESIS_SEED (default 20240601) makes the run repeatable.
set -euo pipefail
cd "$(dirname "$0")/.."

# Operations documented ahead of their routes (while a branch is unmerged) are left out of the run; none now.
pending_paths=()
# Paths of the admin listener (http.admin), which this run does not fuzz: the API's listener answers 404 to
# any method there.
admin_paths=(/metrics)

bin=.build/debug/push-relay
schemathesis=.venv/bin/schemathesis
max_examples=${SCHEMATHESIS_MAX_EXAMPLES:-50}
seed=${SCHEMATHESIS_SEED:-20240601}
[ -x "$bin" ] || { echo "schemathesis: $bin is missing; run swift build first" >&2; exit 1; }
[ -x "$schemathesis" ] || { echo "schemathesis: $schemathesis is missing; run scripts/setup.sh" >&2; exit 1; }

work=$(mktemp -d)
relay_pid=""
stop_relay() {
    if [ -n "$relay_pid" ] && kill -0 "$relay_pid" 2>/dev/null; then
        kill -TERM "$relay_pid" 2>/dev/null || true
        for _ in $(seq 1 100); do kill -0 "$relay_pid" 2>/dev/null || break; sleep 0.1; done
        kill -KILL "$relay_pid" 2>/dev/null || true
        wait "$relay_pid" 2>/dev/null || true
    fi
    rm -rf "$work"
}
trap stop_relay EXIT

# Only the settings given here: no configuration file or PUSH_RELAY_* variable from the caller's shell.
: >"$work/relay.out"
while IFS= read -r name; do unset "$name"; done < <(compgen -e | grep '^PUSH_RELAY_' || true)
# Every request comes from 127.0.0.1: the per-address credential-check limit (http.credentialFailures) would
# soon answer the user-credential cases 429 and leave the logic behind them untested, so it is lifted here.
PUSH_RELAY_HTTP_CREDENTIAL_FAILURES_PER_ADDRESS_BURST=1000000 \
    PUSH_RELAY_HTTP_CREDENTIAL_FAILURES_PER_PREFIX_BURST=1000000 \
    PUSH_RELAY_STORAGE_SQLITE_PATH="$work/db.sqlite" "$bin" serve --host 127.0.0.1 --port 0 --log-level warning \
    >"$work/relay.out" 2>"$work/relay.log" &
relay_pid=$!

port=""
for _ in $(seq 1 300); do
    port=$(sed -n 's|^PushRelay listening on http://127\.0\.0\.1:\([0-9]*\)$|\1|p' "$work/relay.out")
    [ -n "$port" ] && break
    kill -0 "$relay_pid" 2>/dev/null || break
    sleep 0.1
done
if [ -z "$port" ] || [ ! -s "$work/dev-api-key" ]; then
    echo "schemathesis: the relay did not start" >&2
    cat "$work/relay.out" "$work/relay.log" >&2
    exit 1
fi
key=$(cat "$work/dev-api-key")
echo "schemathesis: relay on port $port, $max_examples examples per operation, seed $seed"

# What every answer must satisfy: no 5xx; status, Content-Type, headers and body as documented; a method a
# path does not serve gets 405 with a correct Allow; a /v1 call without the API key is refused.
# (negative_data_rejection and positive_data_acceptance are left out: JSON Schema cannot say "256 bytes of
# UTF-8" or "hex with optional spaces", so they would flag correct answers.)
checks=not_a_server_error,status_code_conformance,content_type_conformance,response_headers_conformance
checks+=,response_schema_conformance,unsupported_method,allow_header_conformance,ignored_auth
exclude=()
for path in "${pending_paths[@]}" "${admin_paths[@]}"; do exclude+=(--exclude-path "$path"); done
# No crash cache (.schemathesis/ in the work tree): a failure is reproduced from the seed. A method no route
# serves (PATCH, TRACE, QUERY, …) is refused with 501 before routing, so the unsupported_method check (405
# with Allow) is asked only of the methods the relay serves on other paths.
printf '[cache]\nenabled = false\n[phases.coverage]\nunexpected-methods = ["get", "put", "post", "delete"]\n' \
    >"$work/schemathesis.toml"
status=0
"$schemathesis" --config-file "$work/schemathesis.toml" run docs/openapi.yaml \
    --url "http://127.0.0.1:$port" \
    --header "Authorization: Bearer $key" \
    --checks "$checks" \
    --phases examples,coverage,fuzzing,stateful \
    ${exclude[@]+"${exclude[@]}"} \
    --max-examples "$max_examples" \
    --seed "$seed" \
    --generation-database none \
    --workers 1 \
    --request-timeout 10 \
    --no-color \
    --report junit --report-junit-path "$work/junit.xml" || status=$?

if ! kill -0 "$relay_pid" 2>/dev/null; then
    echo "schemathesis: the relay exited during the run" >&2
    status=1
fi
if [ "$status" -ne 0 ]; then
    echo "schemathesis: relay log (warnings and errors):" >&2
    tail -n 50 "$work/relay.log" >&2 || true
fi
# One JUnit test case per operation.
counts=$(.venv/bin/python - "$work/junit.xml" <<'PY'
import sys
import xml.etree.ElementTree as ET
try:
    cases = ET.parse(sys.argv[1]).getroot().iter("testcase")
except (OSError, ET.ParseError):
    print("0 0")
    sys.exit()
passed = failed = 0
for case in cases:
    if case.find("failure") is not None or case.find("error") is not None:
        failed += 1
    elif case.find("skipped") is None:
        passed += 1
print(passed, failed)
PY
)
read -r passed failed <<<"$counts"
if [ "$status" -ne 0 ] && [ "$failed" -eq 0 ]; then failed=1; fi
echo "schemathesis: $passed passed, $failed failed"
exit "$status"
