"""Local duplicate tournaments between strategies: ``thousand-bot tournament`` (:func:`main`).

Every seeded deal is played once per *seating*: the strategies are assigned to the seats in every rotation
of the patterns ``(s[o], s[o+1], ...)`` (all offsets ``o``), so that each strategy sits in each seat equally
often with the same cards and the luck of the deal cancels. Each game is a fresh :class:`engine.Game` (a fresh
score sheet: no barrel or bolt effects) dealt from the seeded deck with a stacked :class:`engine.Shuffle`;
a seat's score is the deal's delta from the ``DealScored`` event (0 for a redeal, which nobody scores).

A duplicate *set* is one seeded deal with all its seatings; a strategy's score in a set is the mean delta of
its seats there. Results are the mean over sets with a 95% confidence interval (normal approximation over
sets), plus, for every pair of strategies, the mean difference with its own interval (the paired comparison,
tighter than the two intervals side by side).
"""

from __future__ import annotations

import argparse
import itertools
import json
import math
import random
import sys
import time
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, field
from typing import TypeVar

from bots.registry import STRATEGIES, make_strategy
from bots.strategy import StrategyOptions
from engine import Game, Rules, Shuffle, view
from engine.cards import CARDS
from engine.events import DealScored
from engine.seeds import derive_seed

Progress = Callable[[int, int], None]

T = TypeVar("T")


def seatings(strategies: Sequence[str], players: int) -> list[tuple[str, ...]]:
    """Distinct assignments of strategies to seats, each strategy in each seat equally often."""
    k = len(strategies)
    out: list[tuple[str, ...]] = []
    for offset in range(k):
        pattern = [strategies[(i + offset) % k] for i in range(players)]
        for r in range(players):
            seating = tuple(pattern[(s + r) % players] for s in range(players))
            if seating not in out:
                out.append(seating)
    return out


def seeded_order(cards: Sequence[T], key: int) -> tuple[tuple[T, ...], int]:
    """A duplicate deal's (or round's) deck: ``cards`` shuffled by a generator seeded with ``key`` (the
    game's own derivation of the tournament seed and the set's number), and a salt for its dealer."""
    order = list(cards)
    rng = random.Random(key)
    rng.shuffle(order)
    return tuple(order), rng.randrange(1 << 30)


def deal_order(seed: int, number: int) -> tuple[Shuffle, int]:
    """The seeded deck of duplicate deal ``number`` and its dealer."""
    order, salt = seeded_order(CARDS, derive_seed(seed, f"tournament:{number}"))
    return Shuffle(order), salt


@dataclass(frozen=True, slots=True)
class Setup:
    strategies: tuple[str, ...]
    seed: int
    players: int
    rules: Rules
    options: StrategyOptions


def play_deal(setup: Setup, number: int, seating: tuple[str, ...]) -> tuple[tuple[int, ...], tuple[int, ...]]:
    """Play one seeded deal with the given seating: each seat's score delta, and the seats that played."""
    rules = setup.rules
    shuffle, salt = deal_order(setup.seed, number)
    dealer = salt % rules.players
    game = Game(rules, setup.seed, first_dealer=dealer)
    seats = [make_strategy(name, setup.options) for name in seating]
    rngs = [random.Random(f"{setup.seed}:{number}:{seat}:{name}") for seat, name in enumerate(seating)]
    events = game.apply_chance(shuffle)
    for s, strategy in enumerate(seats):
        strategy.observe(view(game, s))
    deal = game.deal
    assert deal is not None
    while not deal.is_over:
        actor = game.to_act
        assert actor is not None
        v = view(game, actor)
        action = seats[actor].choose(v, rngs[actor])
        if action not in v.legal_actions:
            raise RuntimeError(f"{seating[actor]} chose an illegal action {action!r}")
        events = game.apply(actor, action)
        for s, strategy in enumerate(seats):
            strategy.observe(view(game, s))
    for event in events:
        if isinstance(event, DealScored):
            return event.deltas, deal.active
    return (0,) * rules.players, deal.active  # a redeal: nobody scores


def play_set(setup: Setup, number: int) -> dict[str, float]:
    """One duplicate set: the deal in every seating; each strategy's mean delta."""
    return duplicate_set(setup.strategies, setup.players, lambda seating: play_deal(setup, number, seating))


def duplicate_set(
    strategies: Sequence[str],
    players: int,
    play: Callable[[tuple[str, ...]], tuple[Sequence[int], Sequence[int]]],
) -> dict[str, float]:
    """``play`` one seating after another (it returns each seat's delta and the seats that count: not a
    four-player sitter's, T-6); each strategy's mean delta over the seats it held."""
    totals = dict.fromkeys(strategies, 0.0)
    counts = dict.fromkeys(strategies, 0)
    for seating in seatings(strategies, players):
        deltas, counted = play(seating)
        for seat in counted:
            totals[seating[seat]] += deltas[seat]
            counts[seating[seat]] += 1
    return {name: totals[name] / counts[name] for name in strategies}


@dataclass(frozen=True, slots=True)
class Stat:
    mean: float
    ci95: float
    n: int


def stat(values: Sequence[float]) -> Stat:
    n = len(values)
    if not n:
        return Stat(0.0, 0.0, 0)
    mean = sum(values) / n
    if n < 2:
        return Stat(mean, math.inf, n)
    var = sum((v - mean) ** 2 for v in values) / (n - 1)
    return Stat(mean, 1.96 * math.sqrt(var / n), n)


@dataclass(slots=True)
class TournamentResult:
    strategies: tuple[str, ...]
    players: int
    sets: list[dict[str, float]] = field(default_factory=list)
    seconds: float = 0.0

    def score(self, name: str) -> Stat:
        return stat([s[name] for s in self.sets])

    def difference(self, a: str, b: str) -> Stat:
        return stat([s[a] - s[b] for s in self.sets])

    def to_json(self) -> dict[str, object]:
        results: dict[str, object] = {}
        for name in self.strategies:
            st = self.score(name)
            vs = {}
            for other in self.strategies:
                if other != name:
                    d = self.difference(name, other)
                    vs[other] = {"mean_diff": round(d.mean, 2), "ci95": round(d.ci95, 2)}
            results[name] = {
                "mean_score": round(st.mean, 2),
                "ci95": round(st.ci95, 2),
                "deals": st.n,
                "vs": vs,
            }
        return {"results": results}


def stderr_progress(done: int, total: int) -> None:
    """A plain-text progress bar on stderr (the tournament calls it with 0 first, then after every set)."""
    now = time.monotonic()
    if done == 0:
        _PROGRESS_START[0] = now
    elapsed = now - _PROGRESS_START[0]
    width = 30
    filled = width * done // max(total, 1)
    eta = elapsed / done * (total - done) if done else 0.0
    sys.stderr.write(
        f"\r[{'#' * filled}{'.' * (width - filled)}] {done}/{total} deals  {elapsed:6.0f}s  eta {eta:5.0f}s"
    )
    if done >= total:
        sys.stderr.write("\n")
    sys.stderr.flush()


_PROGRESS_START = [0.0]


def _run_chunk(args: tuple[Setup, list[int]]) -> list[tuple[int, dict[str, float]]]:
    setup, numbers = args
    return [(n, play_set(setup, n)) for n in numbers]


def tournament(  # noqa: PLR0917 - the positional signature is the documented API
    strategies: list[str],
    deals: int,
    seed: int,
    budget_ms: int = 50,
    players: int = 3,
    progress: Progress | None = stderr_progress,
    *,
    rules: Rules | None = None,
    iterations: int | None = None,
    relative: float = StrategyOptions().relative,
    workers: int = 1,
) -> TournamentResult:
    """Play ``deals`` duplicate sets between ``strategies`` (names of :data:`STRATEGIES`) and score them."""
    for name in strategies:
        if name not in STRATEGIES:
            raise KeyError(f"no strategy {name!r} (known: {', '.join(sorted(STRATEGIES))})")
    if len(set(strategies)) != len(strategies):
        raise ValueError("each strategy may be named once")
    rules = rules or Rules(players=players)
    if rules.players != players:
        raise ValueError(f"rules for {rules.players} players, not {players}")
    options = StrategyOptions(budget_ms=float(budget_ms), iterations=iterations, relative=relative)
    setup = Setup(tuple(strategies), seed, players, rules, options)
    result = TournamentResult(tuple(strategies), players)
    start = time.monotonic()
    if progress is not None:
        progress(0, deals)
    done: dict[int, dict[str, float]] = {}
    for number, scores in _sets(setup, deals, workers):
        done[number] = scores
        if progress is not None:
            progress(len(done), deals)
    result.sets = [done[n] for n in sorted(done)]
    result.seconds = time.monotonic() - start
    return result


def _sets(setup: Setup, deals: int, workers: int) -> Iterator[tuple[int, dict[str, float]]]:
    if workers <= 1:
        for number in range(deals):
            yield number, play_set(setup, number)
        return
    chunks = [list(range(i, min(i + 2, deals))) for i in range(0, deals, 2)]
    with ProcessPoolExecutor(max_workers=workers) as pool:
        for part in pool.map(_run_chunk, [(setup, c) for c in chunks]):
            yield from part


def format_result(result: TournamentResult) -> list[str]:
    head = (
        f"{len(result.sets)} duplicate deals, {result.players} players, "
        f"{len(seatings(result.strategies, result.players))} seatings each, {result.seconds:.0f} s"
    )
    return [head, *score_lines(result, "deal")]


def score_lines(result: TournamentResult, unit: str) -> list[str]:
    """Each strategy's mean score per ``unit`` (a deal, a round) with its 95% interval, best first, then
    every pair's paired difference and which is better, if either is, with 95% confidence."""
    lines = []
    width = max(len(n) for n in result.strategies)
    for name in sorted(result.strategies, key=lambda n: -result.score(n).mean):
        st = result.score(name)
        lines.append(f"  {name:<{width}}  {st.mean:8.2f} ± {st.ci95:6.2f} points per {unit}")
    for a, b in itertools.combinations(result.strategies, 2):
        d = result.difference(a, b)
        verdict = a if d.mean - d.ci95 > 0 else b if d.mean + d.ci95 < 0 else "neither (not significant)"
        lines.append(f"  {a} - {b}: {d.mean:+.2f} ± {d.ci95:.2f}; better with 95% confidence: {verdict}")
    return lines


def main(argv: Sequence[str] | None = None) -> int:
    """``thousand-bot tournament``: a duplicate tournament between named strategies."""
    parser = argparse.ArgumentParser(prog="thousand-bot tournament", description=__doc__.splitlines()[0])
    parser.add_argument("strategies", nargs="+", help=f"strategy names ({', '.join(sorted(STRATEGIES))})")
    parser.add_argument("--deals", type=int, default=100, help="duplicate deals (sets) to play")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--budget-ms", type=int, default=50, help="thinking time per decision of searchers")
    parser.add_argument(
        "--iterations", type=int, default=None, help="iteration cap per decision of searchers"
    )
    parser.add_argument("--players", type=int, default=3, choices=(2, 3, 4))
    parser.add_argument("--relative", type=float, default=StrategyOptions().relative)
    parser.add_argument("--workers", type=int, default=1, help="processes to play the sets in")
    parser.add_argument("--dark", action="store_true", help="play with dark (T-31)")
    parser.add_argument("--golden", action="store_true", help="golden deals (T-30): every deal is golden")
    parser.add_argument("--json", action="store_true", help="print one JSON line of results last")
    parser.add_argument("--quiet", action="store_true", help="no progress bar")
    args = parser.parse_args(argv)
    rules = Rules(players=args.players, dark=args.dark, golden_deals=args.golden)
    try:
        result = tournament(
            list(args.strategies),
            args.deals,
            args.seed,
            args.budget_ms,
            args.players,
            None if args.quiet else stderr_progress,
            rules=rules,
            iterations=args.iterations,
            relative=args.relative,
            workers=args.workers,
        )
    except (KeyError, ValueError) as e:
        parser.error(str(e))
    for line in format_result(result):
        print(line)
    if args.json:
        print(json.dumps(result.to_json()))
    return 0


if __name__ == "__main__":
    sys.exit(main())
