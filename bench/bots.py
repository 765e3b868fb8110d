"""The bots benchmark: ISMCTS iterations per second, and how fast determinized worlds are built.

Usage::

    python bench/bots.py [--seconds 20] [--budget-ms 50] [--players 3] [--seed 1]

Seeded games are played with ``ismcts`` in every seat at the given time budget per decision, each seat fed its
views after every action as a tournament does; for every searched decision the benchmark records the search's
iterations (one rollout each: a sampled world played out to the end of the deal) and its time. Card play is
searched with a tree; the auction, exchange and contract with paired rollouts of a few candidate actions. It
also times :class:`bots.worlds.WorldSampler` alone (sampling and replaying a world) on the same
decisions. The last line printed is one JSON object with the figures.
"""

from __future__ import annotations

import sys
from pathlib import Path

# Run as ``python bench/bots.py``: measure the working tree's packages, not bench/ shadowing them.
_BENCH_DIR = Path(__file__).resolve().parent
sys.path[:] = [p for p in sys.path if Path(p or ".").resolve() != _BENCH_DIR]
sys.path.insert(0, str(_BENCH_DIR.parent))

import argparse  # noqa: E402
import json  # noqa: E402
import platform  # noqa: E402
import random  # noqa: E402
import time  # noqa: E402
from collections.abc import Callable  # noqa: E402
from dataclasses import dataclass  # noqa: E402
from typing import Any  # noqa: E402

from bots.belief import Belief  # noqa: E402
from bots.ismcts import IsmctsStrategy  # noqa: E402
from bots.strategy import StrategyOptions  # noqa: E402
from bots.worlds import WorldSampler  # noqa: E402
from engine import Game, Rules, View, view  # noqa: E402


@dataclass(slots=True)
class Tally:
    decisions: int = 0
    iterations: int = 0
    seconds: float = 0.0
    worlds: int = 0

    def rate(self) -> float:
        return self.iterations / self.seconds if self.seconds else 0.0


def run(args: argparse.Namespace, out: Callable[[str], None]) -> dict[str, Any]:
    rules = Rules(players=args.players)
    options = StrategyOptions(budget_ms=args.budget_ms)
    tallies: dict[str, Tally] = {}
    samples: list[tuple[View, Belief]] = []
    rng = random.Random(args.seed)
    deadline = time.perf_counter() + args.seconds
    games = deals = 0
    while time.perf_counter() < deadline:
        game = Game(rules, rng.getrandbits(32))
        games += 1
        bots = [IsmctsStrategy(options) for _ in range(rules.players)]
        beliefs = [Belief(s) for s in range(rules.players)]
        while not game.is_over and game.deals_dealt < 3 and time.perf_counter() < deadline:
            if game.is_chance_node:
                game.apply_chance()
                deals += 1
            else:
                seat = game.to_act
                assert seat is not None
                v = view(game, seat)
                action = bots[seat].choose(v, rng)
                stats = bots[seat].stats
                if stats.iterations:
                    assert v.phase is not None
                    tally = tallies.setdefault(v.phase.value, Tally())
                    tally.decisions += 1
                    tally.iterations += stats.iterations
                    tally.seconds += stats.seconds
                    tally.worlds += stats.worlds
                    if len(samples) < 400 and rng.random() < 0.3:
                        samples.append((v, _copy_belief(beliefs[seat])))
                game.apply(seat, action)
            for s in range(rules.players):
                v = view(game, s)
                bots[s].observe(v)
                beliefs[s].update(v)
    total = Tally()
    for tally in tallies.values():
        total.decisions += tally.decisions
        total.iterations += tally.iterations
        total.seconds += tally.seconds
        total.worlds += tally.worlds
    out(
        f"{platform.python_implementation()} {platform.python_version()}; {rules.players} players; ismcts at "
        f"{args.budget_ms:g} ms per decision: {games} games, {deals} deals, {total.decisions} searches"
    )
    for phase, tally in sorted(tallies.items()):
        per = tally.iterations / tally.decisions
        out(
            f"  {phase:<9} {tally.decisions:5} searches  {per:7.1f} iterations each"
            f"  {tally.rate():8.0f} iterations/s  {tally.worlds / tally.decisions:5.1f} worlds each"
        )
    out(f"  all       {total.decisions:5} searches  {total.rate():8.0f} iterations/s")
    worlds_per_s, failed = _time_worlds(samples, random.Random(args.seed))
    out(f"world sampling alone: {worlds_per_s:.0f} worlds/s ({len(samples)} decisions, {failed} failures)")
    return {
        "bench": "bots",
        "players": rules.players,
        "budget_ms": args.budget_ms,
        "searches": total.decisions,
        "iterations_per_s": round(total.rate(), 1),
        "iterations_per_search": round(total.iterations / total.decisions, 1) if total.decisions else 0.0,
        "by_phase": {
            phase: {
                "searches": t.decisions,
                "iterations_per_s": round(t.rate(), 1),
                "iterations_per_search": round(t.iterations / t.decisions, 1),
            }
            for phase, t in sorted(tallies.items())
        },
        "worlds_per_s": round(worlds_per_s, 1),
    }


def _copy_belief(belief: Belief) -> Belief:
    import copy  # noqa: PLC0415

    return copy.deepcopy(belief)


def _time_worlds(samples: list[tuple[View, Belief]], rng: random.Random) -> tuple[float, int]:
    built = failed = 0
    start = time.perf_counter()
    for v, belief in samples:
        sampler = WorldSampler(v, belief)
        for _ in range(10):
            if sampler.sample(rng) is None:
                failed += 1
            else:
                built += 1
    elapsed = time.perf_counter() - start
    return (built / elapsed if elapsed else 0.0), failed


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=20.0, help="how long to play (whole decisions)")
    parser.add_argument("--budget-ms", type=float, default=50.0, help="ismcts time budget per decision")
    parser.add_argument("--players", type=int, default=3, choices=(2, 3, 4))
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args(argv)
    result = run(args, print)
    print(json.dumps(result))
    return 0


if __name__ == "__main__":
    sys.exit(main())
