"""The web client's build (clients/web), for the tests that need it: ``make web`` installs its npm packages
exactly as ``package-lock.json`` pins them (``npm ci``, once per lock file) and builds the client into
``dist/`` and its tests into ``build/test/``. Run once per test session."""

from __future__ import annotations

import functools
import shutil
import subprocess
from pathlib import Path

from tests.live_server import ROOT

WEB = ROOT / "clients" / "web"


@functools.cache
def built() -> Path:
    make = shutil.which("make")
    assert make, "make is needed to build the web client (`make web`)"
    assert shutil.which("node") and shutil.which("npm"), "Node.js 18+ and npm are needed for the web client"
    done = subprocess.run(
        [make, "-s", "web"], cwd=ROOT, capture_output=True, text=True, timeout=600, check=False
    )
    assert done.returncode == 0, f"`make web` failed:\n{done.stdout[-4000:]}\n{done.stderr[-4000:]}"
    return WEB
