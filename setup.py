"""Compiles the engine's hot modules with mypyc when ``THOUSAND_COMPILE=1``; the rest is in pyproject.toml.

The compiled build is for non-editable installs (a production image, ``pip install .``): an editable install
would put the compiled modules next to their sources, where CPython imports them before the ``.py`` files and
an edit would silently run stale code. scripts/compiled_engine.py says which modules are compiled and why.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

from setuptools import setup

sys.path.insert(0, str(Path(__file__).resolve().parent))

from scripts.compiled_engine import GROUP, MODULES

if os.environ.get("THOUSAND_COMPILE") == "1":
    if "editable_wheel" in sys.argv:
        raise SystemExit(
            "THOUSAND_COMPILE=1 builds only non-editable installs (pip install .); for the working tree use "
            "scripts/compiled_engine.py, which compiles a copy outside it"
        )
    from mypyc.build import mypycify

    setup(ext_modules=mypycify(list(MODULES), group_name=GROUP))
else:
    setup()
