"""Checks docker/ without a Docker engine: the compose file parses and names files that exist, every COPY
source of the Dockerfile exists and is not left out by .dockerignore (which leaves out .build, .venv, .data
and .git), the health checks (the image's is `push-relay health`, which reads the configuration as serve does,
so serve takes no --host/--port/--config; a compose service of the image that is not a relay has its own or
none), docker/README.md names only scripts that exist, every Debian library the binary links is in the
runtime stage's package list (scripts/setup.sh --runtime), the build stage's package resolves from exactly the files its COPY lines
bring (in a temporary folder, as the image's WORKDIR would hold them) and has the product its RUN builds,
and docker/relay.json passes `push-relay config check` once the container's /fixtures paths are mapped onto
the repository's fixtures/. Run by `make test` through the setup's venv."""
import fnmatch
import json
import os
import pathlib
import re
import shutil
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
    if "image" in service and "build" not in service:
        continue
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



def several_relays(services):
    """The compose file's shape for issue 14: a PostgreSQL service, and at least two relays (`serve`) on it,
    each with its own instance id and host port, started after the database is healthy."""
    found = []
    databases = {name for name, s in services.items() if str(s.get("image", "")).startswith("postgres")}
    if not databases:
        found.append("compose: no PostgreSQL service")
    relays = {name: s for name, s in services.items() if (s.get("command") or [None])[0] == "serve"}
    if len(relays) < 2:
        found.append(f"compose: {len(relays)} relay service(s), want at least two")
    ids, ports = {}, {}
    for name, service in relays.items():
        environment = service.get("environment", {})
        url = environment.get("PUSH_RELAY_STORAGE_POSTGRES_URL", "")
        host = re.match(r"postgres(?:ql)?://(?:[^@/]*@)?([^/:?]+)", url)
        if not host or host.group(1) not in databases:
            found.append(f"compose service {name}: PUSH_RELAY_STORAGE_POSTGRES_URL does not name the database service")
        elif service.get("depends_on", {}).get(host.group(1), {}).get("condition") != "service_healthy":
            found.append(f"compose service {name}: does not wait for {host.group(1)} to be healthy")
        instance = environment.get("PUSH_RELAY_DELIVERY_INSTANCE_ID")
        if not instance:
            found.append(f"compose service {name}: no PUSH_RELAY_DELIVERY_INSTANCE_ID")
        elif instance in ids:
            found.append(f"compose services {ids[instance]} and {name}: the same instance id {instance}")
        ids.setdefault(instance, name)
        for port in service.get("ports", []):
            if str(port).split(":")[-1] == "8081":
                found.append(f"compose service {name}: publishes the admin listener (8081) on the host")
            published = ":".join(str(port).split(":")[:-1])
            if published in ports:
                found.append(f"compose services {ports[published]} and {name}: the same host port {published}")
            ports.setdefault(published, name)
    return found


problems += several_relays(compose["services"])

parser = DockerfileParser(path=str(docker / "Dockerfile"))
for instruction in parser.structure:
    if instruction["instruction"] != "COPY" or instruction["value"].startswith("--from"):
        continue
    for source in instruction["value"].split()[:-1]:
        if not (root / source).exists():
            problems.append(f"Dockerfile line {instruction['startline'] + 1}: COPY source {source} does not exist")


def build_stage_resolves(structure):
    """Copies the first stage's COPY sources into a temporary WORKDIR and asks SwiftPM to resolve the package
    there (`swift package describe`, which refuses a manifest whose target folders are missing), then checks
    that the product the stage's RUN builds is one of the package's."""
    stage, froms = [], 0
    for instruction in structure:
        froms += instruction["instruction"] == "FROM"
        if froms > 1:
            break
        if froms == 1:
            stage.append(instruction)
    with tempfile.TemporaryDirectory() as work:
        for instruction in stage:
            if instruction["instruction"] != "COPY" or instruction["value"].startswith("--"):
                continue
            *sources, destination = instruction["value"].split()
            for source in sources:
                target = pathlib.Path(work) / destination / (pathlib.Path(source).name if destination.endswith("/") else "")
                origin = root / source
                if origin.is_dir():
                    shutil.copytree(origin, target, dirs_exist_ok=True)
                else:
                    target.parent.mkdir(parents=True, exist_ok=True)
                    shutil.copy2(origin, target)
        described = subprocess.run(
            ["swift", "package", "describe", "--type", "json"], cwd=work, capture_output=True, text=True
        )
        if described.returncode != 0:
            return [f"the build stage's files do not make a package: {described.stderr.strip()}"]
        products = {product["name"] for product in json.loads(described.stdout)["products"]}
        runs = " ".join(i["value"] for i in stage if i["instruction"] == "RUN")
        wanted = set(re.findall(r"--product\s+(\S+)", runs))
        return [f"the build stage builds product {name}, which the package does not have" for name in wanted - products]


problems += build_stage_resolves(parser.structure)


def ignored_patterns():
    """The patterns of the repository's .dockerignore (the build context is the repository root)."""
    path = root / ".dockerignore"
    if not path.is_file():
        return None
    lines = (line.strip() for line in path.read_text().splitlines())
    return [line.rstrip("/") for line in lines if line and not line.startswith("#")]


def context_problems(structure, patterns):
    """.dockerignore leaves out what must never reach the builder, and none of what a COPY needs."""
    if patterns is None:
        return [".dockerignore is missing: a build sends .build, .venv, .data and .git to the builder"]
    found = [f".dockerignore does not leave out {name}" for name in (".build", ".venv", ".data", ".git")
             if not any(fnmatch.fnmatch(name, pattern) for pattern in patterns)]
    for instruction in structure:
        if instruction["instruction"] != "COPY" or instruction["value"].startswith("--"):
            continue
        for source in instruction["value"].split()[:-1]:
            if any(fnmatch.fnmatch(source.rstrip("/"), pattern) for pattern in patterns):
                found.append(f"Dockerfile line {instruction['startline'] + 1}: COPY source {source} is in .dockerignore")
    return found


def exec_form(value):
    """A CMD or HEALTHCHECK CMD in exec form as its list of words, None in shell form."""
    try:
        words = json.loads(value)
    except ValueError:
        return None
    return words if isinstance(words, list) else None


def health_problems(structure, services):
    """The image's health check runs `push-relay health`; serve gets its settings from the environment (which
    the health check reads too), never from options; services of the image that are not relays replace or
    disable the inherited check."""
    found = []
    checks = [i for i in structure if i["instruction"] == "HEALTHCHECK"]
    if not checks:
        return ["Dockerfile has no HEALTHCHECK"]
    command = checks[-1]["value"].split("CMD", 1)[-1].strip()
    words = exec_form(command)
    if not words or words[:2] != ["push-relay", "health"]:
        found.append(f"Dockerfile HEALTHCHECK runs {command}, not [\"push-relay\", \"health\", ...]")
    serve_options = ("--host", "--port", "--config")
    for instruction in structure:
        if instruction["instruction"] == "CMD":
            words = exec_form(instruction["value"]) or instruction["value"].split()
            if words[:1] == ["serve"] and any(w in serve_options for w in words):
                found.append("Dockerfile CMD gives serve options the health check cannot see: use PUSH_RELAY_*")
    for name, service in services.items():
        if "build" not in service:
            continue
        words = service.get("command") or ["serve"]
        if words[:1] == ["serve"]:
            if any(w in serve_options for w in words):
                found.append(f"compose service {name}: serve options the health check cannot see: use PUSH_RELAY_*")
        elif "healthcheck" not in service:
            found.append(f"compose service {name} ({words[0]}) inherits the relay's health check: give it its own")
    return found


def readme_problems():
    """Every script docker/README.md names exists."""
    text = (docker / "README.md").read_text()
    return [f"docker/README.md names {name}, which does not exist"
            for name in sorted(set(re.findall(r"scripts/[\w./-]*\w", text))) if not (root / name).exists()]


def runtime_library_problems(binary):
    """Each shared library the binary names (its NEEDED entries) that a Debian package here provides must come
    from a package of `setup.sh --runtime`, or the image's binary does not load. The C library's own packages
    are in every Debian image; libraries of no package (Swift's, linked statically in the image) are skipped."""
    setup = (root / "scripts" / "setup.sh").read_text()
    listed = re.search(r'"--runtime" \]; then\s+packages=\(([^)]*)\)', setup)
    if not listed:
        return ["scripts/setup.sh: no --runtime package list found"]
    runtime = set(listed.group(1).split()) | {"libc6", "libgcc-s1", "libstdc++6"}
    missing = [tool for tool in ("readelf", "ldd", "dpkg") if shutil.which(tool) is None]
    if missing:
        return [f"cannot check the runtime libraries without {', '.join(missing)} (Debian binutils, libc-bin, dpkg)"]
    dynamic = subprocess.run(["readelf", "-d", binary], capture_output=True, text=True).stdout
    needed = re.findall(r"\(NEEDED\)\s+Shared library: \[([^\]]+)\]", dynamic)
    resolved = dict(re.findall(r"^\s*(\S+) => (\S+)", subprocess.run(["ldd", binary], capture_output=True,
                                                                    text=True).stdout, re.MULTILINE))
    found = []
    for name in needed:
        path = resolved.get(name)
        if not path:
            continue
        owner = subprocess.run(["dpkg", "-S", os.path.realpath(path)], capture_output=True, text=True)
        if owner.returncode != 0:
            owner = subprocess.run(["dpkg", "-S", path.replace("/lib/", "/usr/lib/", 1)], capture_output=True,
                                   text=True)
        if owner.returncode != 0:
            continue
        package = owner.stdout.split(":")[0]
        if package not in runtime:
            found.append(f"the binary links {name} (Debian {package}), missing from setup.sh --runtime")
    return found


problems += context_problems(parser.structure, ignored_patterns())
problems += runtime_library_problems(sys.argv[1])
problems += health_problems(parser.structure, compose["services"])
problems += readme_problems()
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
