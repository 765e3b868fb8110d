"""The exact open-card solver (:mod:`bots.solver`) timed by cards in hand, against a plain minimax over the
engine's own deals on the same positions (the reference).

Usage::

    python bench/solver.py [--positions 8] [--cards 4,5,6] [--reference-cards 3]

Positions are seeded three-player deals played by the heuristic until the seat to act holds ``cards`` cards
(:func:`scripts.solver_reference.endings`, as the tests find theirs). For each count the p50 and max time of
:func:`bots.solver.move_values` (every legal card's value) are printed; at ``--reference-cards`` the
reference, a minimax that copies the engine's ``Deal`` for every card
(:func:`scripts.solver_reference.minimax`, which ``tests/test_bots_solver.py`` checks the solver against), is
timed on the same positions and the ratio reference / solver printed. The last line printed is one JSON
object.
"""

from __future__ import annotations

import sys
from pathlib import Path

# Run as ``python bench/solver.py``: measure the working tree's packages, not bench/ shadowing them.
_BENCH_DIR = Path(__file__).resolve().parent
sys.path[:] = [p for p in sys.path if Path(p or ".").resolve() != _BENCH_DIR]
sys.path.insert(0, str(_BENCH_DIR.parent))

import argparse  # noqa: E402
import json  # noqa: E402
import statistics  # noqa: E402
import time  # noqa: E402
from typing import Any  # noqa: E402

from bots.solver import move_values  # noqa: E402
from engine import Rules  # noqa: E402
from engine.deal import Deal  # noqa: E402
from scripts.solver_reference import endings, minimax  # noqa: E402

RULES = Rules(players=3)  # the positions are three-player deals


def timed(fn: Any, deals: list[Deal]) -> list[float]:
    out = []
    for deal in deals:
        start = time.perf_counter()
        fn(deal)
        out.append((time.perf_counter() - start) * 1000.0)
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--positions", type=int, default=8)
    parser.add_argument("--cards", default="4,5,6")
    parser.add_argument("--reference-cards", type=int, default=3)
    args = parser.parse_args()
    figures: dict[str, Any] = {"solver": [], "reference": {}}
    for cards in (int(c) for c in args.cards.split(",")):
        times = timed(move_values, endings(RULES, cards, args.positions))
        row = {"cards": cards, "p50_ms": round(statistics.median(times), 2), "max_ms": round(max(times), 2)}
        figures["solver"].append(row)
        print(f"solver, {cards} cards in hand: p50 {row['p50_ms']} ms, max {row['max_ms']} ms")
    deals = endings(RULES, args.reference_cards, args.positions)
    solver = sum(timed(move_values, deals))
    reference = sum(timed(minimax, deals))
    figures["reference"] = {
        "cards": args.reference_cards,
        "solver_ms": round(solver, 2),
        "minimax_ms": round(reference, 2),
        "minimax_over_solver": round(reference / solver, 1),
    }
    print(
        f"{args.reference_cards} cards, {len(deals)} positions: solver {solver:.1f} ms,"
        f" engine minimax {reference:.1f} ms; minimax/solver {reference / solver:.1f}x"
    )
    print(json.dumps(figures))


if __name__ == "__main__":
    main()
