#!/usr/bin/env python3
"""Checks that every PushRelay metric docs/alerts.yml and docs/grafana-dashboard.json name exists in a live
relay's /metrics.

Usage: check-metric-names.py BIN (the push-relay binary; make test passes .build/debug/push-relay).

The rules' and panels' expressions are read with a PromQL parser (PyPI promql-parser, from the .venv that
scripts/setup.sh makes), never by hand: every vector selector whose name starts with `pushrelay_` must be a
series name the relay shows. The relay runs `serve` with a throw-away data directory and an app with every
feature the dashboard and the rules watch (the development mock APNs and FCM, a Ditto ingest secret, a Kafka
consumer of a stream whose brokers never answer), and is asked once on
its API listener so request counters exist; every other counter is there at zero from the start. Grafana's
interval variables are replaced by a duration and a `label_values(EXPR, label)` variable query by EXPR
before parsing. Exits non-zero naming what is missing.
"""
import json
import os
import re
import subprocess
import sys
import tempfile
import time
import urllib.request

import promql_parser
import yaml

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
GRAFANA_INTERVALS = re.compile(r"\$__(rate_interval|interval|range)\b|\$\{__(rate_interval|interval|range)\}")


def expressions():
    """(where, PromQL text) of every alert rule and dashboard query."""
    found = []
    with open(os.path.join(ROOT, "docs/alerts.yml")) as f:
        for group in yaml.safe_load(f)["groups"]:
            for rule in group["rules"]:
                found.append((f"alerts.yml {rule.get('alert', rule.get('record'))}", rule["expr"]))
    with open(os.path.join(ROOT, "docs/grafana-dashboard.json")) as f:
        dashboard = json.load(f)

    def panels(items):
        for panel in items:
            yield panel
            yield from panels(panel.get("panels", []))

    for panel in panels(dashboard["panels"]):
        for target in panel.get("targets", []):
            found.append((f"dashboard panel '{panel['title']}'", target["expr"]))
    for variable in dashboard.get("templating", {}).get("list", []):
        if variable.get("type") != "query":
            continue
        query = variable["query"]["query"] if isinstance(variable["query"], dict) else variable["query"]
        match = re.fullmatch(r"\s*label_values\((.*),\s*[A-Za-z_][A-Za-z0-9_]*\s*\)\s*", query)
        found.append((f"dashboard variable '{variable['name']}'", match.group(1) if match else query))
    return found


def metric_names(text):
    """The names of the vector selectors in PromQL `text`."""
    names = []

    def visit(node):
        if isinstance(node, promql_parser.VectorSelector) and node.name:
            names.append(node.name)
        return True

    promql_parser.walk(promql_parser.parse(GRAFANA_INTERVALS.sub("5m", text)), visit)
    return names


def start_relay(binary, work):
    """Starts `serve` on free loopback ports; returns (process, API port, admin port)."""
    environment = {k: v for k, v in os.environ.items() if not k.startswith("PUSH_RELAY_")}
    # Nobody calls with these credentials: they only switch the features on (an ingest secret is never an
    # API key, so the two differ).
    environment["PUSH_RELAY_APPS"] = json.dumps(
        [{"id": "ops", "topic": "com.example.ops", "apiKeySHA256": ["0" * 64],
          "ditto": {"ingestSecretSHA256": ["1" * 64],
                    # A consumer of brokers that never answer: its state gauge is there from the start.
                    "kafka": {"bootstrapServers": "127.0.0.1:9", "topics": ["ops-cdc"]}}}]
    )
    environment["PUSH_RELAY_STORAGE_SQLITE_PATH"] = os.path.join(work, "db.sqlite")
    out = open(os.path.join(work, "relay.out"), "w")
    log = open(os.path.join(work, "relay.log"), "w")
    process = subprocess.Popen(
        [binary, "serve", "--host", "127.0.0.1", "--port", "0", "--log-level", "warning"],
        stdout=out, stderr=log, env=environment,
    )
    api = admin = None
    deadline = time.monotonic() + 60
    while (api is None or admin is None) and time.monotonic() < deadline and process.poll() is None:
        with open(os.path.join(work, "relay.out")) as f:
            text = f.read()
        api = re.search(r"^PushRelay listening on http://127\.0\.0\.1:(\d+)$", text, re.M)
        admin = re.search(r"^PushRelay admin on http://127\.0\.0\.1:(\d+)$", text, re.M)
        api, admin = (int(api.group(1)) if api else None), (int(admin.group(1)) if admin else None)
        time.sleep(0.1)
    if api is None or admin is None:
        process.kill()
        process.wait()
        with open(os.path.join(work, "relay.log")) as f:
            sys.exit("check-metric-names: the relay did not start:\n" + f.read())
    return process, api, admin


def main():
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    wanted = {}
    for where, text in expressions():
        try:
            names = metric_names(text)
        except Exception as error:  # the parser's own error type is not exported
            sys.exit(f"check-metric-names: {where}: not PromQL: {error}")
        for name in names:
            if name.startswith("pushrelay_"):
                wanted.setdefault(name, []).append(where)
    with tempfile.TemporaryDirectory() as work:
        process, api, admin = start_relay(sys.argv[1], work)
        try:
            urllib.request.urlopen(f"http://127.0.0.1:{api}/healthz", timeout=10).read()
            exposition = urllib.request.urlopen(f"http://127.0.0.1:{admin}/metrics", timeout=10).read().decode()
        finally:
            process.terminate()
            try:
                process.wait(timeout=30)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()
    shown = {re.split(r"[{ ]", line, maxsplit=1)[0] for line in exposition.splitlines() if line and line[0] != "#"}
    missing = {name: places for name, places in wanted.items() if name not in shown}
    for name, places in sorted(missing.items()):
        print(f"check-metric-names: {name} is not in a live relay's /metrics (named by {', '.join(places)})")
    if missing:
        sys.exit(1)
    print(f"check-metric-names: {len(wanted)} metric names of the alert rules and dashboard, all in /metrics")


if __name__ == "__main__":
    main()
