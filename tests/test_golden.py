"""Golden transcripts: a few seeded games, rendered by engine.transcript and checked in under tests/golden/.

Each game is driven by seeded, uniformly random players (tests/randomplay.py) for a fixed number of deals,
so any change to what the engine does (or lets a seat see) shows up as a readable diff in review. After an
intended change, regenerate with ``UPDATE_GOLDEN=1 .venv/bin/pytest tests/test_golden.py`` and review the
diff.
"""

from __future__ import annotations

import difflib
import os
from dataclasses import dataclass
from pathlib import Path

import pytest

from engine import Rules, events_for
from engine.transcript import render
from tests.randomplay import play

GOLDEN_DIR = Path(__file__).parent / "golden"
DEALS = 6
UPDATE = os.environ.get("UPDATE_GOLDEN") == "1"


@dataclass(frozen=True)
class Case:
    name: str
    rules: Rules
    seed: int
    """Seeds the game and the players; picked so that the six deals show varied play."""
    seat: int | None = None
    """Render the events as this seat receives them (engine.events_for); None for the full record."""

    @property
    def path(self) -> Path:
        return GOLDEN_DIR / f"{self.name}.txt"


CASES = (
    Case("two_players", Rules(players=2), seed=392),
    Case("three_players", Rules(players=3), seed=100),
    Case("three_players_as_seat_0", Rules(players=3), seed=100, seat=0),
    Case("four_players", Rules(players=4), seed=326),
    Case("three_players_golden_deals_and_dark", Rules(players=3, golden_deals=True, dark=True), seed=14),
)


def transcript(case: Case) -> str:
    """The golden file's text: a header with the rules and the seed, then the rendered events."""
    game = play(case.rules, case.seed, DEALS)
    events = game.events if case.seat is None else events_for(game, case.seat)
    shown = "all events, unfiltered" if case.seat is None else f"as seat {case.seat} sees them (events_for)"
    header = [
        "# Golden transcript: tests/test_golden.py (UPDATE_GOLDEN=1 .venv/bin/pytest tests/test_golden.py)",
        f"# seed: {case.seed} (the game's seed and the random players' random.Random seed)",
        f"# players: uniformly random legal actions (tests/randomplay.py), {DEALS} deals",
        f"# events: {shown}",
        "# rules:",
        *(f"#   {line}" for line in case.rules.describe()),
    ]
    return "\n".join(header) + "\n\n" + render(events) + "\n"


@pytest.mark.parametrize("case", CASES, ids=[c.name for c in CASES])
def test_golden_transcript(case: Case) -> None:
    """T-35 (a seeded game is reproducible) and T-33 (the seat's transcript shows what the seat may see)."""
    actual = transcript(case)
    if UPDATE:
        GOLDEN_DIR.mkdir(exist_ok=True)
        case.path.write_text(actual, encoding="utf-8")
        return
    if not case.path.exists():
        pytest.fail(f"{case.path} is missing: run UPDATE_GOLDEN=1 .venv/bin/pytest tests/test_golden.py")
    expected = case.path.read_text(encoding="utf-8")
    if actual != expected:
        diff = difflib.unified_diff(
            expected.splitlines(keepends=True),
            actual.splitlines(keepends=True),
            fromfile=f"{case.path.name} (checked in)",
            tofile=f"{case.path.name} (now)",
        )
        pytest.fail(
            "transcript changed; if intended, regenerate with UPDATE_GOLDEN=1 and review the diff:\n"
            + "".join(diff),
            pytrace=False,
        )


def test_golden_dir_holds_only_known_files() -> None:
    """A renamed or removed case must not leave a stale golden file behind."""
    known = {c.path.name for c in CASES} | {"README.md"}
    assert {p.name for p in GOLDEN_DIR.iterdir()} <= known
