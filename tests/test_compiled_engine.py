"""The compiled engine (scripts/compiled_engine.py) is the same engine and bots as the interpreted sources,
faster.

The engine benchmark's goal is met by the mypyc-compiled build of the engine's own sources, the searching
bots run 2.6 times as many iterations a second compiled, and production images run both, so the build
is held to the same tests: its behaviour fingerprint (tests/engine_fingerprint.py) equals the interpreted
engine's, the engine's rule, property, perft, golden-transcript and bot tests pass on it, and the searching
bots (``ismcts``, ``expert``) decide every move of whole seeded games as the interpreted ones do. Each check
runs in a fresh interpreter that imports the compiled copy before anything else.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from scripts.compiled_engine import build, can_build
from tests.engine_fingerprint import fingerprint

ROOT = Path(__file__).resolve().parent.parent
ENGINE_TESTS = (
    "tests/test_rules_dealing.py",
    "tests/test_rules_auction.py",
    "tests/test_rules_talon.py",
    "tests/test_rules_redeals.py",
    "tests/test_rules_play.py",
    "tests/test_rules_refusals.py",
    "tests/test_rules_scoring.py",
    "tests/test_properties_rules.py",
    "tests/test_properties_cards.py",
    "tests/test_properties_actions.py",
    "tests/test_properties_views.py",
    "tests/test_engine_conformance.py",
    "tests/test_golden.py",
    "tests/test_perft.py",
    "tests/test_engine_tables.py",
    "tests/test_game_copy.py",
    "tests/test_sampled_games.py",
    "tests/test_transcript.py",
    "tests/test_verify.py",
    "tests/test_selfplay.py",
    "tests/test_bots_strategies.py",
    "tests/test_bots_search_speed.py",
    "tests/test_bots_heuristic_sheet.py",
    "tests/test_bots_inference.py",
    "tests/test_bots_solver.py",
    "tests/test_bots_sheet_utility.py",
    "tests/test_game_tournament.py",
)

pytestmark = pytest.mark.skipif(not can_build(), reason="no C compiler: no compiled build here")


@pytest.fixture(scope="module")
def compiled() -> Path:
    return build()


def _run_compiled(where: Path, code: str, *args: str) -> subprocess.CompletedProcess[str]:
    """Run ``code`` in a fresh interpreter whose ``engine`` is the compiled copy in ``where``.

    The working directory is the copy (``python -c`` puts it first on sys.path) and the repository follows on
    PYTHONPATH for the tests package; the code imports ``engine`` and checks it is compiled before anything
    else can import the interpreted one.
    """
    env = {**os.environ, "PYTHONPATH": os.pathsep.join((str(where), str(ROOT)))}
    prologue = "import bots, engine, sys\nassert engine.COMPILED and bots.COMPILED, engine.__file__\n"
    return subprocess.run(
        [sys.executable, "-c", prologue + code, *args],
        cwd=where,
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )


def test_the_compiled_copy_is_compiled_and_the_tree_is_not(compiled: Path) -> None:
    import bots  # noqa: PLC0415
    import engine  # noqa: PLC0415

    assert not engine.COMPILED, "the working tree must run its .py files (no .so next to them)"
    assert not bots.COMPILED
    assert not list((ROOT / "engine").rglob("*.so"))
    assert not list((ROOT / "bots").rglob("*.so"))
    assert list((compiled / "engine").glob("deal.*.so"))
    assert list((compiled / "bots").glob("ismcts.*.so"))


def test_compiled_engine_has_the_interpreted_engines_fingerprint(compiled: Path) -> None:
    """T-34, T-35: every event, legal list, view and rejection, the same in both builds."""
    done = _run_compiled(compiled, "from tests.engine_fingerprint import fingerprint\nprint(fingerprint())")
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == fingerprint()


def test_engine_tests_pass_on_the_compiled_engine(compiled: Path) -> None:
    """The rule tests (T-1 to T-35), properties, golden transcripts and bot tests, on the compiled build."""
    done = _run_compiled(
        compiled,
        "import pytest\nsys.exit(pytest.main(['-q', '-p', 'no:cacheprovider', '--rootdir', sys.argv[1],"
        " *sys.argv[2:]]))",
        str(ROOT),
        *(str(ROOT / name) for name in ENGINE_TESTS),
    )
    assert done.returncode == 0, done.stdout[-4000:] + done.stderr[-2000:]


def test_the_compiled_searching_bots_decide_whole_games_as_the_interpreted_ones(
    compiled: Path, tmp_path: Path
) -> None:
    """``ismcts`` and ``expert`` (16 iterations a decision, seeded) in three whole games (3, 2 and 4 players,
    bench/ismcts_speed.py's): every decision of every seat the same in both builds."""
    recorded = tmp_path / "interpreted.json"
    script = str(ROOT / "bench" / "ismcts_speed.py")
    interpreted = subprocess.run(
        [sys.executable, script, "--games", "3", "--record", str(recorded)],
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )
    assert interpreted.returncode == 0, interpreted.stderr
    # --tree puts the compiled copy first on the script's path.
    done = _run_compiled(
        compiled,
        "import runpy\nsys.argv = sys.argv[1:]\nrunpy.run_path(sys.argv[0], run_name='__main__')",
        script,
        "--games",
        "3",
        "--tree",
        str(compiled),
        "--check",
        str(recorded),
    )
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]
    assert f"identical to {recorded}" in done.stdout
