#!/usr/bin/env python3
"""Writes docs/openapi.yaml as one line of JSON into Sources/RelayServer/Generated/OpenAPIJSON.swift (the
document the relay serves at /openapi.json), or with --check fails when that file is not the YAML's current
conversion. docs/openapi.yaml is the document to read and edit; the generated line only carries it into the
binary.

Run with the project's virtualenv (scripts/setup.sh makes it): `make openapi`, or
`.venv/bin/python scripts/openapi-json.py [--check]`. YAML is read by PyYAML, JSON written by the json module.
"""
import json
import pathlib
import sys

import yaml

ROOT = pathlib.Path(__file__).resolve().parent.parent
SOURCE = ROOT / "docs" / "openapi.yaml"
TARGET = ROOT / "Sources" / "RelayServer" / "Generated" / "OpenAPIJSON.swift"


def render() -> str:
    document = yaml.safe_load(SOURCE.read_text(encoding="utf-8"))
    text = json.dumps(document, separators=(",", ":"), ensure_ascii=False)
    delimiter = "#"
    while f'"{delimiter}' in text:
        delimiter += "#"
    return (
        "// swift-format-ignore-file\n"
        "// Generated from docs/openapi.yaml by scripts/openapi-json.py (`make openapi`); do not edit.\n"
        f'extension OpenAPIDocument {{ static let jsonText = {delimiter}"{text}"{delimiter} }}\n'
    )


def main() -> int:
    expected = render()
    if "--check" in sys.argv[1:]:
        current = TARGET.read_text(encoding="utf-8") if TARGET.exists() else ""
        if current != expected:
            print(f"openapi: {TARGET.relative_to(ROOT)} is stale; run `make openapi`", file=sys.stderr)
            return 1
        print("openapi: served JSON matches docs/openapi.yaml")
        return 0
    TARGET.parent.mkdir(exist_ok=True)
    TARGET.write_text(expected, encoding="utf-8")
    print(f"openapi: wrote {TARGET.relative_to(ROOT)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
