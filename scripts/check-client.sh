#!/usr/bin/env bash
# PushRelayClient must build for iOS 15 and macOS 12 with Foundation alone, so an app adds this package and
# gets it. Linux builds do not check Apple availability, so this does: every file under
# Sources/PushRelayClient imports only Foundation (FoundationNetworking under `#if canImport`) and names
# none of the newer APIs below. Comments are left out of the search.
set -euo pipefail
cd "$(dirname "$0")/.."

dir=Sources/PushRelayClient
# Synchronization's Mutex and Atomic need iOS 18; Duration, the Clock types and Task.sleep(for:) iOS 16.
newer='\b(Synchronization|Mutex|Atomic|Duration|ContinuousClock|SuspendingClock)\b|Task\.sleep\(for:'
status=0

for file in "$dir"/*.swift; do
    code=$(sed -e 's://.*$::' "$file")
    bad_imports=$(printf '%s\n' "$code" | grep -nE '^[[:space:]]*(@[A-Za-z_]+[[:space:]]+)*import[[:space:]]' |
        grep -vE 'import[[:space:]]+(Foundation|FoundationNetworking)[[:space:]]*$' || true)
    if [[ -n "$bad_imports" ]]; then
        echo "$file imports more than Foundation:" >&2
        printf '%s\n' "$bad_imports" | sed 's/^/  line /' >&2
        status=1
    fi
    newer_uses=$(printf '%s\n' "$code" | grep -nE "$newer" || true)
    if [[ -n "$newer_uses" ]]; then
        echo "$file uses an API newer than iOS 15 / macOS 12:" >&2
        printf '%s\n' "$newer_uses" | sed 's/^/  line /' >&2
        status=1
    fi
done

if [[ $status -eq 0 ]]; then echo "PushRelayClient: Foundation only, nothing newer than iOS 15 / macOS 12"; fi
exit $status
