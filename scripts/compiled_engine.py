"""The compiled engine: the same engine and bot-search sources compiled to C extension modules by mypyc,
outside the tree.

The Thousand engine and its bots are plain typed Python, and that stays the reference: the editable install,
``make run``, ``make test`` and every edit run the ``.py`` files. Compiling the engine's hot modules with
mypyc makes the engine 2.2-2.4 times faster with no change to its source, which is what the engine
benchmark's goal needs (bench/README.md) and what a production image wants; compiling the searching bots'
modules with it makes a search 2.6 times as fast as interpreted (``bench/ismcts_speed.py --against`` a build:
a reference bot thinks more in the same budget, and the ladder's sets cost less). Two things keep the
compiled build honest:

* It is never built into the source tree. CPython imports ``deal.cpython-311-….so`` before ``deal.py``, so a
  compiled module left next to its source would silently run stale code after an edit. ``build()`` compiles
  a copy of ``engine/`` and ``bots/`` under ``build/compiled-engine/<hash of the sources>/``: a directory to
  put first on ``PYTHONPATH``, rebuilt whenever a source changes; a non-editable
  ``THOUSAND_COMPILE=1 pip install .`` (see setup.py) compiles the same modules into site-packages.
* Only modules whose public entry points check their arguments themselves are compiled. Compiled code checks
  argument types at every call and would answer ``PlayCard("x")`` or ``Rules(players="3")`` with a TypeError
  instead of the engine's InvalidActionError or RulesError, so the value types callers build (actions, rules)
  stay interpreted; tests/test_compiled_engine.py runs the engine's and the bots' own tests against the
  compiled build, and holds the searching bots' decisions in whole seeded games to the interpreted ones.

Run it to build (or find) the compiled copy and print the directory to prepend to ``PYTHONPATH``::

    PYTHONPATH=$(.venv/bin/python scripts/compiled_engine.py) .venv/bin/python bench/engine.py
"""

from __future__ import annotations

import argparse
import hashlib
import importlib.metadata
import os
import shutil
import subprocess
import sys
import sysconfig
import tempfile
from pathlib import Path
from typing import Final

ROOT: Final = Path(__file__).resolve().parent.parent
PACKAGES: Final = ("engine", "bots")
"""The packages copied whole into a build (a compiled module's package must come from the same copy)."""
CACHE: Final = ROOT / "build" / "compiled-engine"

MODULES: Final = (
    "engine/cards.py",
    "engine/errors.py",
    "engine/events.py",
    "engine/phases.py",
    "engine/layout.py",
    "engine/legal_tables.py",
    "engine/deal_state.py",
    "engine/deal_auction.py",
    "engine/deal.py",
    "engine/scoring.py",
    "engine/game.py",
    "engine/seeds.py",
    "engine/observer.py",
    "bots/cardlib.py",
    "bots/card_play.py",
    "bots/belief.py",
    "bots/valuation.py",
    "bots/hidden_plays.py",
    "bots/worlds.py",
    "bots/ismcts.py",
    "bots/solver.py",
    "bots/sheet_utility.py",
    "bots/inference.py",
    "bots/expert.py",
)
"""The modules compiled, relative to the repository root; every other module stays interpreted (the engine's
actions.py and rules.py on purpose: see the module docstring). Of the bots, the search's hot path: the
strategies a bot author may subclass (``heuristic``, ``greedy``, ``random``) stay interpreted, since
compiled classes cannot be subclassed by interpreted ones; ``expert`` subclasses ``ismcts`` and is compiled
with it."""

GROUP: Final = "thousand_engine"
"""mypyc's name for the shared library the compiled modules live in (``thousand_engine__mypyc…so``)."""


def can_build() -> bool:
    """Whether this machine has the C compiler a build needs (CPython's own, as sysconfig names it)."""
    return shutil.which(str(sysconfig.get_config_var("CC") or "cc").split()[0]) is not None


def sources_digest() -> str:
    """A key for the engine's sources and the toolchain: any change means a new build."""
    digest = hashlib.sha256()
    for path in sorted(p for package in PACKAGES for p in (ROOT / package).rglob("*.py")):
        digest.update(path.relative_to(ROOT).as_posix().encode())
        digest.update(b"\0")
        digest.update(path.read_bytes())
    digest.update(importlib.metadata.version("mypy").encode())
    digest.update(sysconfig.get_config_var("EXT_SUFFIX").encode())
    digest.update(" ".join(MODULES).encode())
    return digest.hexdigest()[:16]


def build(cache: Path = CACHE, *, quiet: bool = True) -> Path:
    """Compile a copy of the engine unless an up-to-date one exists; return the directory that holds it."""
    target = cache / sources_digest()
    if all((target / package).is_dir() for package in PACKAGES):
        return target
    cache.mkdir(parents=True, exist_ok=True)
    work = Path(tempfile.mkdtemp(prefix="building-", dir=cache))
    try:
        skip = shutil.ignore_patterns("__pycache__", "*.so")
        for package in PACKAGES:
            shutil.copytree(ROOT / package, work / package, ignore=skip)
        done = subprocess.run(
            [sys.executable, "-c", _COMPILE, GROUP, *MODULES],
            cwd=work,
            capture_output=quiet,
            text=True,
            check=False,
        )
        if done.returncode != 0:
            raise RuntimeError(f"mypyc failed ({done.returncode}):\n{done.stdout}\n{done.stderr}")
        shutil.rmtree(work / "build", ignore_errors=True)
        try:
            work.rename(target)
        except OSError:  # built at the same time by another process: theirs is as good
            if not all((target / package).is_dir() for package in PACKAGES):
                raise
    finally:
        shutil.rmtree(work, ignore_errors=True)
    _prune(cache, keep=target)
    return target


_COMPILE: Final = """
import sys
from setuptools import setup
from mypyc.build import mypycify

group, *modules = sys.argv[1:]
sys.argv = [sys.argv[0], "build_ext", "--inplace"]
setup(name="compiled-engine", ext_modules=mypycify(modules, group_name=group))
"""
"""Compiles the given modules in place in the current (scratch) directory."""


def _prune(cache: Path, *, keep: Path) -> None:
    """Remove builds of older sources so the cache holds one; scratch directories belong to live builds."""
    for entry in cache.iterdir():
        if entry != keep and entry.is_dir() and not entry.name.startswith("building-"):
            shutil.rmtree(entry, ignore_errors=True)


RERUN_MARK: Final = "THOUSAND_BENCH_COMPILED"
"""Set in a rerun's environment (:func:`rerun_compiled`): the rerun imports the compiled build first, so a
rerun that finds itself on the interpreted sources must stop rather than rerun again."""


def rerun_compiled(script: Path, argv: list[str] | None, *, imported: str | None) -> int:
    """Run ``script`` again in a fresh interpreter with the compiled build first on its path: a benchmark's
    ``--engine compiled``, called when ``script`` found the interpreted sources, with its ``main``'s ``argv``
    (None: the command line's) and ``imported``, the file it imported (named in the error).

    The exit status is the rerun's, or 2 if the build failed or ``script`` already is a rerun: then the build
    was put first on its path and something was imported ahead of it (an installed copy of the engine, say);
    rerunning again would loop."""
    name = script.name
    if os.environ.get(RERUN_MARK):
        print(
            f"{name}: error: the compiled build was built but {imported} was imported ahead of it",
            file=sys.stderr,
        )
        return 2
    print(f"{name}: building the compiled engine (scripts/compiled_engine.py; cached by the sources' hash)")
    sys.stdout.flush()
    try:
        where = build()
    except (RuntimeError, OSError) as error:  # no C compiler or Python headers, most likely
        print(f"{name}: the compiled engine could not be built: {error}", file=sys.stderr)
        print(f"{name}: measure the interpreted sources with --engine python", file=sys.stderr)
        return 2
    env = {**os.environ, RERUN_MARK: "1"}
    env["PYTHONPATH"] = os.pathsep.join(p for p in (str(where), env.get("PYTHONPATH", "")) if p)
    return subprocess.call([sys.executable, str(script), *(sys.argv[1:] if argv is None else argv)], env=env)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--verbose", action="store_true", help="show mypyc's and the C compiler's output")
    args = parser.parse_args(argv)
    print(build(quiet=not args.verbose))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
