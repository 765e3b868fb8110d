"""What a search bot needs from the engine, measured: ``Game.copy()`` against a replay of the game's
history, and a search strategy's decision time against its budget (p50, p99, max).

Usage::

    python bench/search.py [--deals 60] [--decisions 300] [--budget-ms 50] [--strategies ismcts,pimc]

``Game.copy`` is timed on one seeded game at its start and after ``--deals`` deals (random legal play),
against a replay (a new ``Game`` applying the history), the only way to copy a game before it existed; the
ratio is replay / copy. Decision times are the wall time of ``choose`` over ``--decisions`` decisions of
each strategy in a seat of seeded three-player games against the heuristic, the strategy given a deadline
(:func:`bots.strategy.decide`) of ``--budget-ms``. The last line printed is one JSON object with the figures.
"""

from __future__ import annotations

import sys
from pathlib import Path

# Run as ``python bench/search.py``: measure the working tree's packages, not bench/ shadowing them.
_BENCH_DIR = Path(__file__).resolve().parent
sys.path[:] = [p for p in sys.path if Path(p or ".").resolve() != _BENCH_DIR]
sys.path.insert(0, str(_BENCH_DIR.parent))

import argparse  # noqa: E402
import json  # noqa: E402
import random  # noqa: E402
import statistics  # noqa: E402
import time  # noqa: E402
from typing import Any  # noqa: E402

from bots.registry import make_strategy  # noqa: E402
from bots.strategy import StrategyOptions, decide  # noqa: E402
from engine import Game, Rules, view  # noqa: E402


def played(deals: int, seed: int) -> Game:
    """A seeded game after ``deals`` deals of random legal play (or its end, if sooner)."""
    rng = random.Random(seed)
    game = Game(Rules(players=3), seed)
    while not game.is_over and game.deals_dealt <= deals:
        if game.is_chance_node:
            if game.deals_dealt == deals:
                break
            game.apply_chance()
            continue
        seat = game.to_act
        assert seat is not None
        game.apply(seat, rng.choice(game.legal_actions()))
    return game


def replay(game: Game) -> Game:
    twin = Game(game.rules, game.seed, game.first_dealer)
    for seat, action in game.history:
        if seat is None:
            twin.apply_chance(action)  # type: ignore[arg-type]
        else:
            twin.apply(seat, action)  # type: ignore[arg-type]
    return twin


def per_call(fn: Any, arg: Game, seconds: float = 1.0) -> float:
    """Mean seconds of one call of ``fn(arg)``, over about ``seconds``."""
    calls, start = 0, time.perf_counter()
    while time.perf_counter() - start < seconds or calls < 3:
        fn(arg)
        calls += 1
    return (time.perf_counter() - start) / calls


def copy_figures(deals: int, seed: int, seconds: float = 1.0) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for label, n in (("after_1_deal", 1), (f"after_{deals}_deals", deals)):
        game = played(n, seed)
        copy_s, replay_s = per_call(Game.copy, game, seconds), per_call(replay, game, seconds)
        out[label] = {
            "deals": game.deals_dealt,
            "history": len(game.history),
            "copy_us": round(copy_s * 1e6, 1),
            "replay_us": round(replay_s * 1e6, 1),
            "replay_over_copy": round(replay_s / copy_s, 1),
        }
    return out


def decision_times(name: str, budget_ms: float, decisions: int, seed: int) -> dict[str, Any]:
    """``name`` in seat 0 of seeded games against the heuristic: each of its decisions' wall time."""
    times: list[float] = []
    game_seed = seed
    while len(times) < decisions:
        game = Game(Rules(players=3), game_seed)
        game_seed += 1
        seats = [make_strategy(name, StrategyOptions(budget_ms=budget_ms))] + [
            make_strategy("heuristic") for _ in range(2)
        ]
        rng = random.Random(game_seed)
        while not game.is_over and game.deals_dealt < 4 and len(times) < decisions:
            if game.is_chance_node:
                game.apply_chance()
            else:
                seat = game.to_act
                assert seat is not None
                v = view(game, seat)
                start = time.perf_counter()
                deadline = time.monotonic() + budget_ms / 1000.0 if seat == 0 else None
                action = decide(seats[seat], v, rng, deadline)
                if seat == 0 and len(v.legal_actions) > 1:
                    times.append((time.perf_counter() - start) * 1000.0)
                game.apply(seat, action)
            for s, strategy in enumerate(seats):
                strategy.observe(view(game, s))
    times.sort()
    return {
        "strategy": name,
        "budget_ms": budget_ms,
        "decisions": len(times),
        "p50_ms": round(statistics.median(times), 1),
        "p99_ms": round(times[min(len(times) - 1, int(0.99 * len(times)))], 1),
        "max_ms": round(times[-1], 1),
        "over_budget": sum(t > budget_ms for t in times),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--deals", type=int, default=60)
    parser.add_argument("--decisions", type=int, default=300)
    parser.add_argument("--budget-ms", type=float, default=50.0)
    parser.add_argument("--strategies", default="ismcts")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--copy-seconds", type=float, default=1.0, help="time each copy/replay measure")
    args = parser.parse_args()
    figures: dict[str, Any] = {
        "copy": copy_figures(args.deals, args.seed, args.copy_seconds),
        "decisions": [],
    }
    for label, row in figures["copy"].items():
        print(
            f"Game.copy {label} ({row['deals']} deals, {row['history']} actions): {row['copy_us']} µs;"
            f" replay {row['replay_us']} µs; replay/copy {row['replay_over_copy']}x"
        )
    for name in args.strategies.split(","):
        row = decision_times(name, args.budget_ms, args.decisions, args.seed)
        figures["decisions"].append(row)
        print(
            f"{name} at {args.budget_ms:g} ms: {row['decisions']} decisions, p50 {row['p50_ms']} ms,"
            f" p99 {row['p99_ms']} ms, max {row['max_ms']} ms, over budget {row['over_budget']}"
        )
    print(json.dumps(figures))


if __name__ == "__main__":
    main()
