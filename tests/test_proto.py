"""The protobuf contract's tooling: generated code up to date, buf lint clean, no breaking change.

- The committed package ``thousand/`` must be exactly what ``make proto`` generates from ``proto/``.
- ``buf lint`` (STANDARD and COMMENTS, see ``proto/buf.yaml``) must report nothing.
- ``buf breaking`` must find no FILE-level breaking change against the released contract's image
  ``proto/released/thousand_v1.binpb`` (updated by ``make proto-release`` only when a version is released).
"""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
PROTO = ROOT / "proto"
RELEASED = PROTO / "released" / "thousand_v1.binpb"


def buf() -> str:
    """The buf of the venv's buf-bin (a dev dependency), else one on PATH."""
    found = shutil.which("buf", path=str(Path(sys.executable).parent)) or shutil.which("buf")
    assert found, "buf not found: install the dev dependencies (pip install -e '.[dev]', buf-bin)"
    return found


def run(*argv: str, cwd: Path = ROOT) -> subprocess.CompletedProcess[str]:
    return subprocess.run(argv, cwd=cwd, capture_output=True, text=True, timeout=300, check=False)


def package_files(root: Path) -> dict[str, bytes]:
    return {
        str(path.relative_to(root)): path.read_bytes()
        for path in sorted(root.rglob("*"))
        if path.is_file() and "__pycache__" not in path.parts
    }


def test_generated_code_is_up_to_date(tmp_path: Path) -> None:
    result = run(sys.executable, str(ROOT / "scripts" / "gen_proto.py"), "--out", str(tmp_path))
    assert result.returncode == 0, result.stderr
    fresh = package_files(tmp_path / "thousand")
    committed = package_files(ROOT / "thousand")
    stale = sorted(name for name in fresh.keys() | committed.keys() if fresh.get(name) != committed.get(name))
    assert not stale, (
        "thousand/ differs from what proto/ generates; run `make proto` and commit: "
        + ", ".join(
            f"thousand/{name}"
            + (" (missing)" if name not in committed else " (extra)" if name not in fresh else "")
            for name in stale
        )
    )


def test_web_client_generated_code_is_up_to_date(tmp_path: Path) -> None:
    """clients/web/src/gen must be exactly what ``make proto`` (scripts/gen_proto_web.py) generates."""
    from tests.web_build import WEB, built  # noqa: PLC0415 - builds the web client's npm packages

    built()
    result = run(sys.executable, str(ROOT / "scripts" / "gen_proto_web.py"), "--out", str(tmp_path))
    assert result.returncode == 0, result.stdout + result.stderr
    fresh = package_files(tmp_path)
    committed = package_files(WEB / "src" / "gen")
    stale = sorted(name for name in fresh.keys() | committed.keys() if fresh.get(name) != committed.get(name))
    assert fresh, "nothing was generated"
    assert not stale, (
        "clients/web/src/gen differs from what proto/ generates; run `make proto`: " + ", ".join(stale)
    )


def test_buf_lint_reports_nothing() -> None:
    result = run(buf(), "lint", "proto", "--error-format", "text")
    assert result.returncode == 0 and not result.stdout.strip(), result.stdout + result.stderr


def test_no_breaking_change_against_the_released_contract() -> None:
    assert RELEASED.exists(), f"{RELEASED.relative_to(ROOT)} is missing: run `make proto-release`"
    result = run(buf(), "breaking", "proto", "--against", str(RELEASED))
    assert result.returncode == 0, (
        "breaking change against the released contract:\n" + result.stdout + (result.stderr)
    )


def test_the_breaking_check_does_catch_a_breaking_change(tmp_path: Path) -> None:
    """Guard against a vacuous check: renaming a released field must fail ``buf breaking``."""
    copy = tmp_path / "proto"
    shutil.copytree(PROTO, copy, ignore=shutil.ignore_patterns("released"))
    cards = copy / "thousand" / "v1" / "cards.proto"
    text = cards.read_text(encoding="utf-8")
    assert "Suit suit = 1;" in text
    cards.write_text(text.replace("Suit suit = 1;", "Suit colour = 1;"), encoding="utf-8")
    result = run(buf(), "breaking", str(copy), "--against", str(RELEASED))
    assert result.returncode != 0
    assert "suit" in result.stdout + result.stderr


@pytest.mark.parametrize(
    "module",
    [
        *("cards", "thousand_rules", "thousand_actions", "thousand_events", "thousand_views"),
        *("blagogo_cards", "blagogo_rules", "blagogo_actions", "blagogo_events", "blagogo_views"),
    ],
)
def test_generated_modules_import_with_their_typed_stubs(module: str) -> None:
    __import__(f"thousand.v1.{module}_pb2")
    assert (ROOT / "thousand" / "v1" / f"{module}_pb2.pyi").exists()
