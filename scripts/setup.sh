#!/usr/bin/env bash
# Installs the Debian packages PushRelay builds and tests with, only those that are missing.
# Fast (no apt call at all) when everything is present. On Debian 12 (bookworm), libcurl 8.x comes
# from bookworm-backports; the backports line is derived from the machine's own apt sources, so no
# mirror is named here. With --venv (make venv, for make test and make openapi) it makes only the Python
# virtualenv .venv (see setup_venv), from PyPI, and unpacks promtool (see setup_promtool); `make run` and the
# builds need only the Debian packages.
set -euo pipefail
cd "$(dirname "$0")/.."

# --runtime (the Docker image's last stage): only the shared libraries the binary loads, and the CA bundle.
if [ "${1:-}" = "--runtime" ]; then
    packages=(libcurl4 libssl3 libnghttp2-14 libsqlite3-0 libpq5 libmicrohttpd12 libjansson4 librdkafka1 libjemalloc2 ca-certificates)
else
    # postgresql: the tests start a throwaway cluster of their own (RelayTestSupport.PostgresCluster).
    # librdkafka-dev brings librdkafka and its mock cluster (rdkafka_mock.h); kcat is the hand tool for Kafka.
    # libjemalloc-dev: the executables' malloc (RelayAllocator).
    packages=(libcurl4-openssl-dev libssl-dev libnghttp2-dev libsqlite3-dev libpq-dev libmicrohttpd-dev libjansson-dev
              libjemalloc-dev pkg-config nghttp2-client curl postgresql librdkafka-dev kcat)
fi

as_root() {
    if [ "$(id -u)" -eq 0 ]; then "$@"; elif command -v sudo >/dev/null; then sudo "$@"; else
        echo "setup: need root (or sudo) to run: $*" >&2; exit 1; fi
}

# The Python virtualenv `make test` runs schemathesis from (scripts/schemathesis.sh) and that converts
# docs/openapi.yaml to JSON (scripts/openapi-json.py). A stamp holding the pinned requirements keeps a
# second run instant.
venv_requirements="schemathesis==4.32.5 PyYAML==6.0.3 dockerfile-parse==2.0.1 promql-parser==0.11.0"
setup_venv() {
    local stamp=.venv/.push-relay-requirements
    if [ -x .venv/bin/python ] && [ "$(cat "$stamp" 2>/dev/null)" = "$venv_requirements" ]; then return; fi
    if ! python3 -c 'import venv, ensurepip' 2>/dev/null; then
        echo "setup: installing python3-venv"
        as_root apt-get update -qq
        DEBIAN_FRONTEND=noninteractive as_root apt-get install -y -qq --no-install-recommends python3-venv >/dev/null
    fi
    echo "setup: creating .venv with $venv_requirements"
    python3 -m venv .venv
    # shellcheck disable=SC2086 # one word per requirement
    .venv/bin/python -m pip install --quiet --disable-pip-version-check $venv_requirements
    echo "$venv_requirements" >"$stamp"
}
# promtool, which checks docs/alerts.yml (make test), from Debian's `prometheus` package unpacked into
# .build/tools: installing the package would start a Prometheus server. Nothing to do when it is there.
promtool_dir=.build/tools/prometheus
setup_promtool() {
    [ -x "$promtool_dir/usr/bin/promtool" ] && return
    local download
    download=$(mktemp -d)
    chmod 755 "$download"  # apt-get download writes as the _apt user where it can
    echo "setup: unpacking promtool from Debian's prometheus package into $promtool_dir"
    if ! (cd "$download" && apt-get download -qq prometheus 2>/dev/null); then
        as_root apt-get update -qq
        (cd "$download" && apt-get download -qq prometheus 2>/dev/null)
    fi
    mkdir -p "$promtool_dir"
    dpkg-deb -x "$download"/prometheus_*.deb "$promtool_dir"
    rm -rf "$download"
    "$promtool_dir/usr/bin/promtool" --version >/dev/null
}
if [ "${1:-}" = "--venv" ]; then
    setup_venv
    setup_promtool
    exit 0
fi

# The major version of the libcurl installed (from dpkg, so it works without the -dev package too).
curl_major() { dpkg-query -W -f='${Version}' libcurl4 2>/dev/null | cut -d. -f1 | sed 's/^[0-9]*://'; }

missing=()
for p in "${packages[@]}"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p")
done
need_curl8=0
if [ "$(curl_major)" != "" ] && [ "$(curl_major)" -lt 8 ]; then need_curl8=1; fi
codename=$(. /etc/os-release && echo "${VERSION_CODENAME:-}")
if [ "${#missing[@]}" -eq 0 ] && [ "$need_curl8" -eq 0 ]; then exit 0; fi

export DEBIAN_FRONTEND=noninteractive
apt_updated=0
apt_update() { [ "$apt_updated" -eq 1 ] || { as_root apt-get update -qq; apt_updated=1; }; }

# The URI the machine's own sources use for the main bookworm suite (deb822 or one-line format).
own_debian_uri() {
    local f uri=""
    for f in /etc/apt/sources.list.d/*.sources; do
        [ -f "$f" ] || continue
        uri=$(awk -v c="$codename" '
            /^URIs:/ { u=$2 } /^Suites:/ { for (i=2;i<=NF;i++) if ($i==c) found=u }
            /^$/ { u="" } END { if (found) print found }' "$f")
        [ -n "$uri" ] && { echo "$uri"; return; }
    done
    for f in /etc/apt/sources.list /etc/apt/sources.list.d/*.list; do
        [ -f "$f" ] || continue
        uri=$(awk -v c="$codename" '$1=="deb" { for (i=2;i<=NF;i++) if ($i==c) { print $(i-1); exit } }' "$f")
        [ -n "$uri" ] && { echo "$uri"; return; }
    done
}

curl_pkgs=()
if [ "$codename" = "bookworm" ]; then
    # Debian 12 ships libcurl 7.88.1, which resets every finished HTTP/2 stream; take 8.x from backports.
    if ! grep -rqs "bookworm-backports" /etc/apt/sources.list /etc/apt/sources.list.d/; then
        uri=$(own_debian_uri)
        if [ -z "$uri" ]; then echo "setup: cannot find this machine's bookworm apt source" >&2; exit 1; fi
        echo "setup: adding bookworm-backports from $uri"
        echo "deb $uri bookworm-backports main" | as_root tee /etc/apt/sources.list.d/push-relay-backports.list >/dev/null
    fi
    # curl the command depends on the exact libcurl4 version: take it from backports too, or apt would
    # rather remove it.
    curl_pkgs=(libcurl4/bookworm-backports curl/bookworm-backports)
    [ "${1:-}" = "--runtime" ] || curl_pkgs+=(libcurl4-openssl-dev/bookworm-backports)
fi

apt_update
rest=()
for p in "${missing[@]}"; do
    case "$p" in libcurl4-openssl-dev|libcurl4|curl) [ "${#curl_pkgs[@]}" -gt 0 ] && continue ;; esac
    rest+=("$p")
done
echo "setup: installing ${rest[*]} ${curl_pkgs[*]}"
as_root apt-get install -y -qq --no-install-recommends ${rest[@]+"${rest[@]}"} ${curl_pkgs[@]+"${curl_pkgs[@]}"} >/dev/null
if [ "$(curl_major)" -lt 8 ] 2>/dev/null; then
    echo "setup: WARNING: libcurl $(curl_major).x is below 8; HTTP/2 reuse will suffer" >&2
fi
echo "setup: libcurl $(dpkg-query -W -f='${Version}' libcurl4)"
