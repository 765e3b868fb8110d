"""The 1000 Blagogo planner against the heuristic in whole games, in duplicate (issue 31).

Usage::

    python bench/blagogo_bots.py [--games 12] [--players 3] [--budget-ms 50] [--seed 1] [--target 1000]

:func:`games.tournament.tournament` (``--game blagogo --games N``): every set is one seeded game played
once per seating (the same decks round by round, seats rotated), to the target under the table's rules,
each decision handed a deadline of ``--budget-ms``. Printed: points per round, final score and games won,
each with its 95% interval and the paired difference, and each strategy's decision time (p50, p99, max)
against the budget.
The last line is one JSON object with the figures.
"""

from __future__ import annotations

import sys
from pathlib import Path

# Run as ``python bench/blagogo_bots.py``: measure the working tree's packages, not bench/ shadowing them.
_BENCH_DIR = Path(__file__).resolve().parent
sys.path[:] = [p for p in sys.path if Path(p or ".").resolve() != _BENCH_DIR]
sys.path.insert(0, str(_BENCH_DIR.parent))

from games import tournament_cli  # noqa: E402

if __name__ == "__main__":
    argv = sys.argv[1:]
    if not any(not a.startswith("-") for a in argv[:1]):
        argv = ["planner", "heuristic", *argv]
    # whole games under the table's rules (no turnover limit) and ten sets, unless told (the last one counts)
    argv = ["--game", "blagogo", "--turnover-limit", "0", "--games", "10", *argv]
    sys.exit(tournament_cli.main([*argv, "--json"] if "--json" not in argv else argv))
