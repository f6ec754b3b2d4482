# PushRelay. `make run` starts the relay on its embedded defaults; `make test` is what CI runs.
SWIFT ?= swift
SWIFT_FLAGS ?=
BIN := .build/debug/push-relay
RELEASE_BIN := .build/release/push-relay
PROMTOOL := .build/tools/prometheus/usr/bin/promtool
PORT ?= 8080
# The admin listener (/metrics, /readyz with a check per app): its configured port (8081), or beside the
# API's when PORT moves it (0 for 0), or ADMIN_PORT.
ifneq ($(PORT),8080)
ADMIN_PORT ?= $(shell echo $$(( $(PORT) == 0 ? 0 : $(PORT) + 1 )))
endif

.PHONY: setup venv build release test lint format openapi run bench bench-apns clean

setup:
	@bash scripts/setup.sh

# The Python virtualenv .venv the checks after the Swift tests run from (from PyPI).
venv: setup
	@bash scripts/setup.sh --venv

build: setup
	$(SWIFT) build -Xswiftc -warnings-as-errors $(SWIFT_FLAGS)

release: setup
	$(SWIFT) build -c release $(SWIFT_FLAGS)

# PushRelayClient stays Foundation-only and iOS 15 / macOS 12 clean (scripts/check-client.sh).
lint:
	$(SWIFT) format lint --strict --recursive Package.swift Sources Tests
	bash scripts/check-client.sh

format:
	$(SWIFT) format --in-place --recursive Package.swift Sources Tests

# After the Swift tests: the served OpenAPI JSON must be docs/openapi.yaml's current conversion, every
# relative link and anchor in README.md, docs/*.md and docker/README.md must resolve
# (scripts/check-links.py), docker/ must hold together (scripts/check-docker.py, no Docker engine needed),
# the alert rules must pass promtool (unpacked by scripts/setup.sh) and its unit tests (docs/alerts-test.yml),
# and name, like the Grafana dashboard,
# only metrics a live relay shows (scripts/check-metric-names.py), and schemathesis fuzzes a live relay
# from the OpenAPI document (scripts/schemathesis.sh).
# Tests run at most TEST_WIDTH at a time: started all at once, several hundred tests queue on the two threads
# of Swift's cooperative pool for long enough that a test's open connection passes the server's 10 s header
# deadline before the test is scheduled again to write its request.
TEST_WIDTH ?= 24
test: venv build lint
	$(SWIFT) build --build-tests -Xswiftc -warnings-as-errors $(SWIFT_FLAGS)
	SWT_EXPERIMENTAL_MAXIMUM_PARALLELIZATION_WIDTH=$(TEST_WIDTH) bash scripts/test-servers.sh $(SWIFT) test --skip-build $(SWIFT_FLAGS)
	.venv/bin/python scripts/openapi-json.py --check
	.venv/bin/python scripts/check-links.py
	.venv/bin/python scripts/check-docker.py $(BIN)
	$(PROMTOOL) check rules docs/alerts.yml
	$(PROMTOOL) test rules docs/alerts-test.yml
	.venv/bin/python scripts/check-metric-names.py $(BIN)
	bash scripts/schemathesis.sh

# Regenerates Sources/RelayServer/Generated/OpenAPIJSON.swift (served at /openapi.json) from docs/openapi.yaml.
openapi: venv
	.venv/bin/python scripts/openapi-json.py

run: release
	$(if $(ADMIN_PORT),PUSH_RELAY_HTTP_ADMIN_PORT=$(ADMIN_PORT) )$(RELEASE_BIN) serve --port $(PORT)

bench-apns: release
	bash scripts/bench-apns.sh

bench: release
	bash scripts/bench.sh

clean:
	rm -rf .build
