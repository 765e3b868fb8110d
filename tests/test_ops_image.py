"""The container image's build, without a Docker daemon: deploy/Dockerfile's own build steps run here as
written (the Python stage: a fresh virtual environment, the compiled install from the build context the
dockerignore lets in, the self-check; the web stage: npm ci and the build), with the container's paths
mapped into a temporary directory. And the pins the image installs: one lock (requirements.lock) that
development installs too, and the Node version the web client's packages accept.

The compiled install takes about 35 s of one core (mypyc); pip's and npm's caches serve the packages."""

from __future__ import annotations

import fnmatch
import json
import os
import re
import shutil
import subprocess
import sys
import tomllib
from dataclasses import dataclass, field
from pathlib import Path

from packaging.requirements import Requirement
from packaging.utils import canonicalize_name

from tests.test_ops_deploy import DEPLOY, ROOT, dockerfile

LOCK = ROOT / "requirements.lock"


@dataclass
class Stage:
    """One stage of the Dockerfile: its base image argument, name and steps."""

    base: str
    name: str
    steps: list[tuple[str, str]] = field(default_factory=list)


def stages() -> dict[str, Stage]:
    found: dict[str, Stage] = {}
    current: Stage | None = None
    for instruction, arguments in dockerfile():
        if instruction == "FROM":
            base, _, name = arguments.partition(" AS ")
            current = Stage(base.strip(), name.strip() or "final")
            found[current.name] = current
        elif current is not None:
            current.steps.append((instruction, arguments))
    return found


def locked() -> dict[str, str]:
    """requirements.lock as {canonical name: version}."""
    pins: dict[str, str] = {}
    for line in LOCK.read_text().splitlines():
        if line and not line.startswith("#"):
            name, _, version = line.partition("==")
            assert version, f"requirements.lock: {line!r} is not name==version"
            pins[canonicalize_name(name)] = version
    return pins


def test_one_lock_pins_every_dependency_for_development_and_the_image() -> None:
    """Issue #30, 1 and 6: the lock holds a version of every dependency within pyproject.toml's range; the
    Makefile's install and the image's both use it; this environment (made by the Makefile) is the lock's."""
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())
    pins = locked()
    extras = project["project"]["optional-dependencies"]
    wanted = [*project["project"]["dependencies"], *extras["dev"], *extras["rl"]]
    for text in wanted:
        requirement = Requirement(text)
        name = canonicalize_name(requirement.name)
        assert name in pins, f"{requirement.name} is not in requirements.lock: run `make lock`"
        assert requirement.specifier.contains(pins[name], prereleases=True), (text, pins[name])
    makefile = (ROOT / "Makefile").read_text()
    assert "LOCK := requirements.lock" in makefile
    assert "pip install --quiet -c $(LOCK) -e '.[dev,rl]'" in makefile
    build = stages()["build"]
    installs = [a for i, a in build.steps if i == "RUN" and "pip install " in a]
    assert installs and all("PIP_CONSTRAINT=/src/requirements.lock" in a for a in installs)
    assert "!requirements.lock" in (DEPLOY / "Dockerfile.dockerignore").read_text().splitlines()
    installed = subprocess.run(
        [sys.executable, "-m", "pip", "list", "--format=json", "--exclude-editable"],
        check=True,
        capture_output=True,
        text=True,
    ).stdout
    here: dict[str, str] = {canonicalize_name(p["name"]): p["version"] for p in json.loads(installed)}
    for package, version in pins.items():
        if package in here:  # packages of other extras (bench) may be missing
            assert here[package] == version, f"{package}: {here[package]} installed, {version} locked (make)"


def _accepts(version: int, engines: str) -> bool:
    """Whether Node ``version`` (a major, as ``x.0.0``) meets an engines range of the forms in the lock."""
    for alternative in engines.split("||"):
        bounds = alternative.split()
        if all(_meets(version, bound) for bound in bounds):
            return True
    return False


def _meets(version: int, bound: str) -> bool:
    match = re.fullmatch(r">=\s*(\d+)(?:\.(\d+))?(?:\.(\d+))?", bound)
    assert match is not None, f"an engines range this test does not read: {bound!r}"
    return (version, 0, 0) >= tuple(int(part or 0) for part in match.groups())


def test_the_image_builds_the_web_client_with_a_node_its_packages_accept() -> None:
    """Issue #30, 6: every package the web build installs (npm ci: dependencies and dev dependencies, not
    other platforms' optional ones) accepts the Node of the image's web stage."""
    web = stages()["web"]
    argument = {a.split("=", 1)[0]: a.split("=", 1)[1] for i, a in dockerfile() if i == "ARG" and "=" in a}
    image = argument[web.base.removeprefix("${").removesuffix("}")]
    major = int(re.fullmatch(r"node:(\d+)-[\w.-]+", image).group(1))  # type: ignore[union-attr]
    lock = json.loads((ROOT / "clients" / "web" / "package-lock.json").read_text())
    refused = {
        path or "clients/web": entry["engines"]["node"]
        for path, entry in lock["packages"].items()
        if "node" in entry.get("engines", {})
        and not entry.get("optional")
        and not _accepts(major, entry["engines"]["node"])
    }
    assert not refused, f"Node {major} is refused by {refused}"
    assert not _accepts(20, ">=22")  # the check can fail: Node 20 was the image's before


# ---------------------------------------------------------------- the build's steps, run here


def _ignored(path: str, rules: list[str]) -> bool:
    """Docker's rule: the last pattern that matches a path (or a parent of it) decides; ``!`` lets in."""
    ignored = False
    parts = path.split("/")
    prefixes = ["/".join(parts[: i + 1]) for i in range(len(parts))]
    for rule in rules:
        negated = rule.startswith("!")
        pattern = rule.removeprefix("!").rstrip("/")
        if pattern.startswith("**/"):
            hit = any(fnmatch.fnmatch(part, pattern[3:]) for part in parts)
        else:
            hit = any(fnmatch.fnmatchcase(prefix, pattern) for prefix in prefixes)
        if hit:
            ignored = not negated
    return ignored


def build_context(destination: Path) -> None:
    """Copy what `docker build` would send (the repository as Dockerfile.dockerignore filters it)."""
    rules = [
        line.strip()
        for line in (DEPLOY / "Dockerfile.dockerignore").read_text().splitlines()
        if line.strip() and not line.startswith("#")
    ]
    tracked = subprocess.run(
        ["git", "ls-files", "--cached", "--others", "--exclude-standard"],
        cwd=ROOT,
        check=True,
        capture_output=True,
        text=True,
    ).stdout.splitlines()
    for relative in tracked:
        source = ROOT / relative
        if source.is_file() and not _ignored(relative, rules):
            target = destination / relative
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(source, target)


class Emulator:
    """Runs a stage's steps with the container's absolute paths under ``root``."""

    def __init__(self, root: Path, tools: Path, dropped: tuple[str, ...] = ()) -> None:
        self.root = root
        self.dropped = dropped
        """ENV settings of the image not taken here."""
        self.env = {k: v for k, v in os.environ.items() if k not in ("VIRTUAL_ENV", "PYTHONPATH")}
        self.env["PATH"] = f"{tools}:{self.env['PATH']}"
        self.workdir = root

    def path(self, text: str) -> str:
        """Container paths (/opt/…, /src/…) moved under the root; ``cd /`` leaves it for a directory outside
        any source tree."""
        text = re.sub(r"(?<![\w.])/(opt|src)\b", lambda m: f"{self.root}/{m.group(1)}", text)
        return text.replace("cd / ", f"cd {self.root}/outside ")

    def run(self, stage: Stage, context: Path) -> None:
        for instruction, arguments in stage.steps:
            if instruction == "WORKDIR":
                self.workdir = Path(self.path(arguments))
                self.workdir.mkdir(parents=True, exist_ok=True)
            elif instruction == "ENV":
                for pair in re.findall(r"(\w+)=(\S+)", arguments):
                    self.env[pair[0]] = pair[1]
                for name in self.dropped:
                    self.env.pop(name, None)
            elif instruction == "COPY":
                *sources, target = arguments.split()
                into = self.workdir / target if not target.startswith("/") else Path(self.path(target))
                for source in sources:
                    from_context = context / source
                    if from_context.is_dir():
                        shutil.copytree(from_context, into, dirs_exist_ok=True)
                    else:
                        into.mkdir(parents=True, exist_ok=True)
                        shutil.copy2(from_context, into / from_context.name)
            elif instruction == "RUN":
                done = subprocess.run(
                    ["sh", "-c", self.path(arguments)],
                    cwd=self.workdir,
                    env=self.env,
                    capture_output=True,
                    text=True,
                    timeout=1800,
                    check=False,
                )
                assert done.returncode == 0, f"RUN {arguments}\n{done.stdout[-3000:]}\n{done.stderr[-3000:]}"


def test_the_images_build_steps_install_the_compiled_server_and_build_the_web_client(tmp_path: Path) -> None:
    """Issue #30, 1: the Dockerfile's build and web stages, run as written, install the server with the
    compiled engine into a fresh environment at the lock's versions (the self-check, run outside the source
    tree, passes: it failed from /src, where the source engine/ shadows the compiled one), and build the
    web client."""
    context = tmp_path / "context"
    build_context(context)
    assert (context / "requirements.lock").is_file() and not (context / "tests").exists()
    tools = tmp_path / "tools"  # `python` as the build image has it: the interpreter the tests run on
    tools.mkdir()
    base = Path(getattr(sys, "_base_executable", sys.executable))
    (tools / "python").symlink_to(base)
    root = tmp_path / "image"
    (root / "outside").mkdir(parents=True)
    every = stages()

    # The image keeps no pip cache; the test uses the machine's (the downloads took minutes without it).
    python_stage = Emulator(root, tools, dropped=("PIP_NO_CACHE_DIR",))
    python_stage.run(every["build"], context)
    venv = root / "opt" / "thousand"
    frozen = subprocess.run(
        [str(venv / "bin" / "python"), "-m", "pip", "freeze"],  # not pip, setuptools: the venv's own
        check=True,
        capture_output=True,
        text=True,
    ).stdout.splitlines()
    pins = locked()
    for line in frozen:
        package, _, version = line.partition("==")
        if version and canonicalize_name(package) in pins:
            assert pins[canonicalize_name(package)] == version, line
    assert any(line.startswith("grpcio==") for line in frozen)
    checked = subprocess.run(
        [
            str(venv / "bin" / "python"),
            "-c",
            "import bots, engine; print(engine.COMPILED, bots.COMPILED, engine.__file__)",
        ],
        cwd=root / "outside",
        check=True,
        capture_output=True,
        text=True,
    ).stdout.split()
    assert checked[:2] == ["True", "True"] and checked[2].startswith(str(venv))

    web_stage = Emulator(root / "web", tools)
    web_stage.run(every["web"], context)
    assert (root / "web" / "src" / "clients" / "web" / "dist" / "index.html").is_file()
