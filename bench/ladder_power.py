"""How many ladder sets until the leaderboard's intervals separate two members, by how often the stronger
finishes a set ahead (issue 27): the ladder's own scheduler and rating update on simulated set results.

Usage::

    python bench/ladder_power.py [--members random,greedy,heuristic,ismcts] [--rates 0.99,0.777,0.70]
                                 [--grid 0.7,0.75,0.8,0.85,0.9] [--sets 800] [--every 100] [--runs 40]

Playing sets to find out is slow (a set of whole games with a searching member takes seconds), and the answer
depends on one number a few dozen real sets measure well: the **set rate** of each pair of neighbours, the
share of the sets holding both in which the stronger ranks above the weaker. Given those, this plays the rest
on paper: each set's members are picked by :func:`server.ladder.offline.plan` (the ladder's scheduler, least
played pairing first), a member's showing in a set is its strength plus standard normal noise (Thurstone:
neighbours ``rate`` apart stand ``sqrt(2) * Phi^-1(rate)`` apart), the set is ranked by it, and
:func:`server.ratings.model.rate` (the ladder's one Plackett-Luce update, with its tau) rates it. After every
set it checks, for each pair of neighbours, whether the stronger's interval (mu ± ``INTERVAL_SIGMAS`` sigma,
the leaderboard's) is clear of the weaker's.

Printed per pair: the share of the runs in which the separation holds after every ``--every`` sets (a seeded
test of the order at N sets passes with about that chance on its seed). ``--grid`` varies the strongest
pair's rate instead, one block per rate; the last line is one JSON object.

The model leaves out what real sets have beyond the ranks' rates (a member stronger against some third
members than others), so it answers "about how many", which is what choosing a test's set count needs. The
default rates are the reference bots' measured over 800 real sets (bench/README.md, "The ladder"; ismcts at
48 iterations).
"""

from __future__ import annotations

import sys
from pathlib import Path

# Run as ``python bench/ladder_power.py``, Python puts bench/ first on sys.path: the repository goes first.
_BENCH_DIR = Path(__file__).resolve().parent
sys.path[:] = [p for p in sys.path if Path(p or ".").resolve() != _BENCH_DIR]
sys.path.insert(0, str(_BENCH_DIR.parent))

import argparse  # noqa: E402
import itertools  # noqa: E402
import json  # noqa: E402
import math  # noqa: E402
import random  # noqa: E402
import statistics  # noqa: E402
from collections.abc import Sequence  # noqa: E402

from server.ladder.offline import plan  # noqa: E402
from server.ladder.service import INTERVAL_SIGMAS  # noqa: E402
from server.ratings.model import RatingValue, rate  # noqa: E402

_NORMAL = statistics.NormalDist()


def strengths(rates: Sequence[float]) -> list[float]:
    """Each member's strength, weakest first, from the set rates of its neighbours (``rates[i]``: how often
    member ``i + 1`` ranks above member ``i``), on the scale of a showing's standard normal noise.

    >>> [round(s, 2) for s in strengths([0.5, 0.76])]
    [0.0, 0.0, 1.0]
    """
    out = [0.0]
    for p in rates:
        if not 0.0 < p < 1.0:
            raise ValueError(f"a set rate is a share strictly between 0 and 1, not {p}")
        out.append(out[-1] + math.sqrt(2.0) * _NORMAL.inv_cdf(p))
    return out


def simulate(rates: Sequence[float], players: int, sets: int, seed: int) -> list[list[bool]]:
    """One seeded run of ``sets`` sets among ``len(rates) + 1`` members: for each pair of neighbours
    (weakest pair first), whether the stronger's interval is clear of the weaker's after each set."""
    rng = random.Random(seed)
    names = [f"m{i}" for i in range(len(rates) + 1)]
    strength = dict(zip(names, strengths(rates), strict=True))
    ratings = {name: RatingValue() for name in names}
    clear: list[list[bool]] = [[] for _ in rates]
    for members in plan(names, players, sets, rng):
        showing = {m: strength[m] + rng.gauss(0.0, 1.0) for m in members}
        ranks = [1 + sum(showing[other] > showing[m] for other in members) for m in members]
        for member, after in zip(members, rate([ratings[m] for m in members], ranks), strict=True):
            ratings[member] = after
        for k, (lower, upper) in enumerate(itertools.pairwise(names)):
            low, high = ratings[lower], ratings[upper]
            clear[k].append(high.mu - INTERVAL_SIGMAS * high.sigma > low.mu + INTERVAL_SIGMAS * low.sigma)
    return clear


def shares(runs: list[list[list[bool]]], pair: int, checkpoints: Sequence[int]) -> dict[int, float]:
    """For one pair of neighbours, the share of runs in which it is clear after each checkpoint's set."""
    return {n: sum(run[pair][n - 1] for run in runs) / len(runs) for n in checkpoints}


def _rates(text: str) -> list[float]:
    return [float(x) for x in text.split(",") if x.strip()]


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--members", default="random,greedy,heuristic,ismcts", help="weakest first")
    parser.add_argument("--rates", default="0.99,0.777,0.70", help="each neighbour's set rate, weakest first")
    parser.add_argument("--grid", default="", help="set rates to try for the strongest pair instead")
    parser.add_argument("--players", type=int, default=3)
    parser.add_argument("--sets", type=int, default=800)
    parser.add_argument("--every", type=int, default=100, help="sets between checkpoints")
    parser.add_argument("--runs", type=int, default=40)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args(argv)
    members = [m.strip() for m in args.members.split(",") if m.strip()]
    if len(members) < max(2, args.players):
        parser.error(f"--members needs at least {max(2, args.players)} members")
    if not 0 < args.every <= args.sets or args.runs < 1:
        parser.error("--every must be from 1 to --sets, and --runs at least 1")
    try:
        rates = _rates(args.rates)
        grid = [[*rates[:-1], p] for p in _rates(args.grid)] or [rates]
        for candidate in grid:
            if len(candidate) != len(members) - 1:
                raise ValueError(f"--rates needs {len(members) - 1} rates for {len(members)} members")
            strengths(candidate)
    except ValueError as error:
        parser.error(str(error))
    checkpoints = list(range(args.every, args.sets + 1, args.every))
    figures = []
    print(f"share of {args.runs} runs with the stronger's interval clear of the weaker's, after set:")
    print(f"{'':>34}" + "".join(f"{n:>6}" for n in checkpoints))
    for candidate in grid:
        runs = [simulate(candidate, args.players, args.sets, args.seed + r) for r in range(args.runs)]
        pairs = {}
        for k, (lower, upper) in enumerate(itertools.pairwise(members)):
            found = shares(runs, k, checkpoints)
            pairs[f"{upper}>{lower}"] = {"rate": candidate[k], "clear": {str(n): v for n, v in found.items()}}
            label = f"{upper} over {lower} ({candidate[k]:.2f})"
            print(f"{label:>34}" + "".join(f"{v:>6.2f}" for v in found.values()))
        figures.append(pairs)
    print(json.dumps({"sets": args.sets, "runs": args.runs, "players": args.players, "figures": figures}))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
