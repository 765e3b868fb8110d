"""1000 Blagogo's ``Game.copy()`` against the old way, ``copy.deepcopy``, in the same run.

Usage::

    python bench/blagogo_copy.py [--players 4] [--rounds 0,3,10] [--seed 1] [--seconds 1]

A seeded game is played by the random player of :mod:`engine.blagogo.randomplay` (``turnover_limit`` 2, so
every round ends) for each of ``--rounds`` rounds and 40 actions into the next one, and both copies are timed
there (the mean over ``--seconds`` of repeated copies); the ratio is deepcopy / copy. The last line printed is
one JSON object with the figures.
"""

from __future__ import annotations

import sys
from pathlib import Path

# Run as ``python bench/blagogo_copy.py``: measure the working tree's engine, not bench/engine.py.
_BENCH_DIR = Path(__file__).resolve().parent
sys.path[:] = [p for p in sys.path if Path(p or ".").resolve() != _BENCH_DIR]
sys.path.insert(0, str(_BENCH_DIR.parent))

import argparse  # noqa: E402
import copy  # noqa: E402
import json  # noqa: E402
import random  # noqa: E402
import time  # noqa: E402
from collections.abc import Callable  # noqa: E402
from typing import Any  # noqa: E402

from engine.blagogo import BlagogoRules, Game  # noqa: E402
from engine.blagogo.randomplay import random_action  # noqa: E402


def played(players: int, rounds: int, seed: int) -> Game:
    """A seeded game after ``rounds`` whole rounds and 40 actions of the next (or its end, if sooner)."""
    rng = random.Random(seed)
    game = Game(BlagogoRules(players=players, turnover_limit=2), seed)
    into = 0
    while not game.is_over:
        if game.is_chance_node:
            game.apply_chance()
            continue
        if game.rounds_dealt > rounds:
            into += 1
            if into > 40:
                break
        seat = game.to_act
        assert seat is not None
        game.apply(seat, random_action(game, rng))
    return game


def per_call(fn: Callable[[], object], seconds: float) -> float:
    """Mean seconds per call over about ``seconds`` of calls."""
    calls, start = 0, time.perf_counter()
    while True:
        fn()
        calls += 1
        elapsed = time.perf_counter() - start
        if elapsed >= seconds:
            return elapsed / calls


def figures(players: int, rounds: list[int], seed: int, seconds: float) -> list[dict[str, Any]]:
    out = []
    for r in rounds:
        game = played(players, r, seed)
        fast = per_call(game.copy, seconds)
        deep = per_call(lambda game=game: copy.deepcopy(game), seconds)  # type: ignore[misc]
        out.append(
            {
                "rounds": r,
                "history": len(game.history),
                "copy_us": round(fast * 1e6, 1),
                "deepcopy_us": round(deep * 1e6, 1),
                "ratio": round(deep / fast, 1),
            }
        )
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--players", type=int, default=4)
    parser.add_argument("--rounds", default="0,3,10", help="rounds played before the copies, comma-separated")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--seconds", type=float, default=1.0)
    args = parser.parse_args(argv)
    rows = figures(args.players, [int(r) for r in args.rounds.split(",")], args.seed, args.seconds)
    for row in rows:
        print(
            f"after {row['rounds']} rounds ({row['history']} actions): Game.copy {row['copy_us']} us, "
            f"deepcopy {row['deepcopy_us']} us, ratio {row['ratio']}"
        )
    print(json.dumps({"players": args.players, "copies": rows}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
