"""The exact open-card solver (:mod:`bots.solver`) timed by cards in hand, against a plain minimax over the
engine's own deals on the same positions (the reference).

Usage::

    python bench/solver.py [--positions 8] [--cards 4,5,6] [--reference-cards 3]

Positions are seeded three-player deals played by the heuristic until the seat to act holds ``cards`` cards
(the tests' ``endings``). For each count the p50 and max time of :func:`bots.solver.move_values` (every legal
card's value) are printed; at ``--reference-cards`` the reference, a minimax that copies the engine's
``Deal`` for every card (as ``tests/test_bots_solver.py`` checks the solver against), is timed on the same
positions and the ratio reference / solver printed. The last line printed is one JSON object.
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
import random  # noqa: E402
import statistics  # noqa: E402
import time  # noqa: E402
from typing import Any  # noqa: E402

from bots.heuristic import rollout_action  # noqa: E402
from bots.solver import move_values  # noqa: E402
from engine import Game, PlayCard, Rules  # noqa: E402
from engine.deal import Deal  # noqa: E402
from engine.phases import Phase  # noqa: E402


def endings(cards: int, count: int) -> list[Deal]:
    """``count`` seeded deals in card play with ``cards`` cards in the hand of the seat to act."""
    rng = random.Random(300 + cards)
    found: list[Deal] = []
    seed = 0
    while len(found) < count:
        seed += 1
        game = Game(Rules(players=3), seed)
        game.apply_chance()
        deal = game.deal
        assert deal is not None
        while not deal.is_over:
            seat = deal.to_act
            assert seat is not None
            if deal.phase is Phase.PLAY and deal.hands[seat].bit_count() <= cards:
                found.append(deal)
                break
            deal.apply(seat, rollout_action(deal, rng, 0.5))
    return found


def minimax(deal: Deal) -> int:
    """The reference: every legal card tried on a copy of the engine's deal (a K or Q of a marriage led
    declaring it, the solver's model)."""
    if deal.is_over:
        assert deal.declarer is not None
        return deal.deal_points(deal.declarer)
    plays = [a for a in deal.legal_actions() if isinstance(a, PlayCard)]
    declaring = {a.card.index for a in plays if a.marriage}
    values = []
    for action in plays:
        if action.card.index in declaring and not action.marriage:
            continue
        twin = deal.copy()
        seat = twin.to_act
        assert seat is not None
        twin.apply(seat, action)
        values.append(minimax(twin))
    return max(values) if deal.to_act == deal.declarer else min(values)


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
        times = timed(move_values, endings(cards, args.positions))
        row = {"cards": cards, "p50_ms": round(statistics.median(times), 2), "max_ms": round(max(times), 2)}
        figures["solver"].append(row)
        print(f"solver, {cards} cards in hand: p50 {row['p50_ms']} ms, max {row['max_ms']} ms")
    deals = endings(args.reference_cards, args.positions)
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
