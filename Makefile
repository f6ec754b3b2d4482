# PushRelay. `make run` starts the relay on its embedded defaults; `make test` is what CI runs.
SWIFT ?= swift
SWIFT_FLAGS ?=
BIN := .build/debug/push-relay
RELEASE_BIN := .build/release/push-relay
PORT ?= 8080

.PHONY: setup build release test lint format run bench bench-apns clean

setup:
	@bash scripts/setup.sh

build: setup
	$(SWIFT) build -Xswiftc -warnings-as-errors $(SWIFT_FLAGS)

release: setup
	$(SWIFT) build -c release $(SWIFT_FLAGS)

lint:
	$(SWIFT) format lint --strict --recursive Package.swift Sources Tests

format:
	$(SWIFT) format --in-place --recursive Package.swift Sources Tests

test: build lint
	$(SWIFT) build --build-tests -Xswiftc -warnings-as-errors $(SWIFT_FLAGS)
	$(SWIFT) test --skip-build $(SWIFT_FLAGS)

run: release
	$(RELEASE_BIN) serve --port $(PORT)

bench-apns: release
	bash scripts/bench-apns.sh

bench: release
	bash scripts/bench.sh

clean:
	rm -rf .build
