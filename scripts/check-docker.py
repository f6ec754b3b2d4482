"""Checks docker/ without a Docker engine: the compose file parses and names files that exist, every COPY
source of the Dockerfile exists, and docker/relay.json passes `push-relay config check` once the container's
/fixtures paths are mapped onto the repository's fixtures/. Run by `make test` through the setup's venv."""
import json
import pathlib
import subprocess
import sys
import tempfile

import yaml
from dockerfile_parse import DockerfileParser

root = pathlib.Path(__file__).resolve().parent.parent
docker = root / "docker"
problems = []

compose = yaml.safe_load((docker / "compose.yaml").read_text())
for name, service in compose["services"].items():
    build = service.get("build", {})
    context = (docker / build.get("context", ".")).resolve()
    if not (context / build.get("dockerfile", "Dockerfile")).is_file():
        problems.append(f"compose service {name}: no Dockerfile at {build}")
    for volume in service.get("volumes", []):
        source = volume.split(":")[0]
        if source.startswith(".") and not (docker / source).exists():
            problems.append(f"compose service {name}: volume source {source} does not exist")
for volume in compose.get("volumes", {}):
    if not any(v.startswith(volume + ":") for s in compose["services"].values() for v in s.get("volumes", [])):
        problems.append(f"compose volume {volume} is not used")

parser = DockerfileParser(path=str(docker / "Dockerfile"))
for instruction in parser.structure:
    if instruction["instruction"] != "COPY" or instruction["value"].startswith("--from"):
        continue
    for source in instruction["value"].split()[:-1]:
        if not (root / source).exists():
            problems.append(f"Dockerfile line {instruction['startline'] + 1}: COPY source {source} does not exist")
if not any(i["instruction"] == "HEALTHCHECK" for i in parser.structure):
    problems.append("Dockerfile has no HEALTHCHECK")
if not any(i["instruction"] == "USER" and i["value"] not in ("root", "0") for i in parser.structure):
    problems.append("Dockerfile does not switch to a non-root user")

config = (docker / "relay.json").read_text().replace('"/fixtures/', f'"{root}/fixtures/')
with tempfile.NamedTemporaryFile("w", suffix=".json") as mapped:
    mapped.write(config)
    mapped.flush()
    check = subprocess.run([sys.argv[1], "config", "check", "--config", mapped.name], capture_output=True, text=True)
    if check.returncode != 0:
        problems.append("docker/relay.json: " + check.stderr.strip())

for problem in problems:
    print("check-docker:", problem)
print(f"check-docker: {'ok' if not problems else str(len(problems)) + ' problem(s)'}")
sys.exit(1 if problems else 0)
