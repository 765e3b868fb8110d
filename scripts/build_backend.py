"""The project's PEP 517 build backend: setuptools, plus mypy when the engine is to be compiled.

``THOUSAND_COMPILE=1 pip install .`` builds a wheel whose hot engine modules are compiled by mypyc (setup.py,
scripts/compiled_engine.py); that build needs mypy (which ships mypyc) in its isolated build environment. All
other builds, the editable install of ``make`` among them, stay pure Python and need only setuptools.
"""

from __future__ import annotations

import os

from setuptools import build_meta as _setuptools
from setuptools.build_meta import *  # noqa: F403  (every other hook is setuptools' own)

COMPILER_REQUIRES = ["mypy>=1.10"]


def _compiling() -> bool:
    return os.environ.get("THOUSAND_COMPILE") == "1"


def get_requires_for_build_wheel(config_settings: dict[str, str | list[str]] | None = None) -> list[str]:
    if _compiling():  # setuptools' own hook runs setup.py, which needs mypyc: name it without running it
        return ["wheel", *COMPILER_REQUIRES]
    return list(_setuptools.get_requires_for_build_wheel(config_settings))


def get_requires_for_build_editable(config_settings: dict[str, str | list[str]] | None = None) -> list[str]:
    if _compiling():
        raise RuntimeError(
            "THOUSAND_COMPILE=1 builds only non-editable installs (pip install .): compiled modules next to "
            "their sources would shadow every later edit. In a working tree, scripts/compiled_engine.py "
            "compiles a copy outside it."
        )
    return list(_setuptools.get_requires_for_build_editable(config_settings))
