"""Whole games in duplicate: ``thousand-bot tournament --games`` (:func:`main`).

The deal-by-deal tournament (:mod:`bots.tournament`) plays each deal on a fresh score sheet, so the barrel,
bolts, 555, the obligatory game and the race to 1000 never count. Here every duplicate *set* is one seeded
game played once per seating (the strategies rotated through the seats as :func:`~bots.tournament.seatings`
assigns them): every game of a set is dealt the same decks, deal number by deal number (the deck of the k-th
deal dealt follows from the tournament's seed, the set's number and k alone), from the same first dealer, so
the luck of the cards cancels as far as the games stay alike.

A strategy's result in a set is the mean, over the seats it held, of: a game won (1 or 0), its final score,
and its points per deal (its final score over the deals played). Results are means over sets with 95%
intervals (normal approximation over sets), and, for every pair, the paired difference with its interval.
A game that reaches ``max_deals`` deals without a winner is cut there (counted, and won by nobody).
"""

from __future__ import annotations

import argparse
import itertools
import json
import random
import sys
import time
from collections.abc import Iterator, Sequence
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, field

from bots.registry import STRATEGIES, make_strategy
from bots.strategy import StrategyOptions, decide
from bots.tournament import Setup, Stat, seatings, seeded_order, stat, stderr_progress
from engine import Game, Rules, Shuffle, view
from engine.cards import CARDS
from engine.seeds import derive_seed

MEASURES = ("won", "score", "per_deal")
"""What a set records of each strategy: games won, final score, points per deal."""


@dataclass(frozen=True, slots=True)
class GameSetup:
    base: Setup
    max_deals: int


def game_deck(seed: int, game: int, deal: int) -> Shuffle:
    """The deck of the ``deal``-th deal dealt in every game of set ``game``."""
    order, _ = seeded_order(CARDS, derive_seed(seed, f"game-tournament:{game}:{deal}"))
    return Shuffle(order)


def play_game(setup: GameSetup, number: int, seating: tuple[str, ...]) -> tuple[Game, bool]:
    """One game of set ``number`` with the given seating; the finished game and whether it was cut."""
    base = setup.base
    rules = base.rules
    dealer_rng = random.Random(derive_seed(base.seed, f"game-tournament:{number}:dealer"))
    dealer = dealer_rng.randrange(rules.players)
    game = Game(rules, base.seed, first_dealer=dealer)
    seats = [make_strategy(name, base.options) for name in seating]
    rngs = [random.Random(f"{base.seed}:{number}:{seat}:{name}") for seat, name in enumerate(seating)]
    while not game.is_over:
        if game.is_chance_node:
            if game.deals_played >= setup.max_deals:
                return game, True
            game.apply_chance(game_deck(base.seed, number, game.deals_dealt + 1))
        else:
            actor = game.to_act
            assert actor is not None
            v = view(game, actor)
            due = time.monotonic() + base.options.budget_ms / 1000.0 if base.options.budget_ms > 0 else None
            action = decide(seats[actor], v, rngs[actor], due)
            if action not in v.legal_actions:
                raise RuntimeError(f"{seating[actor]} chose an illegal action {action!r}")
            game.apply(actor, action)
        for s, strategy in enumerate(seats):
            strategy.observe(view(game, s))
    return game, False


@dataclass(slots=True)
class SetResult:
    """One set: each measure of each strategy (mean over its seats and the seatings), and cut games."""

    measures: dict[str, dict[str, float]]
    cut: int
    deals: int


def play_game_set(setup: GameSetup, number: int) -> SetResult:
    names = setup.base.strategies
    totals = {m: dict.fromkeys(names, 0.0) for m in MEASURES}
    counts = dict.fromkeys(names, 0)
    cut = deals = 0
    for seating in seatings(names, setup.base.players):
        game, was_cut = play_game(setup, number, seating)
        cut += was_cut
        deals += game.deals_played
        for seat, name in enumerate(seating):
            score = game.records[seat].score
            totals["won"][name] += 1.0 if game.winner == seat else 0.0
            totals["score"][name] += score
            totals["per_deal"][name] += score / max(game.deals_played, 1)
            counts[name] += 1
    measures = {m: {n: totals[m][n] / counts[n] for n in names} for m in MEASURES}
    return SetResult(measures, cut, deals)


@dataclass(slots=True)
class GameTournamentResult:
    strategies: tuple[str, ...]
    players: int
    sets: list[SetResult] = field(default_factory=list)
    seconds: float = 0.0

    def score(self, measure: str, name: str) -> Stat:
        return stat([s.measures[measure][name] for s in self.sets])

    def difference(self, measure: str, a: str, b: str) -> Stat:
        return stat([s.measures[measure][a] - s.measures[measure][b] for s in self.sets])

    def to_json(self) -> dict[str, object]:
        out: dict[str, object] = {
            "sets": len(self.sets),
            "cut_games": sum(s.cut for s in self.sets),
            "deals": sum(s.deals for s in self.sets),
        }
        for measure in MEASURES:
            row: dict[str, object] = {}
            for name in self.strategies:
                st = self.score(measure, name)
                row[name] = {"mean": round(st.mean, 3), "ci95": round(st.ci95, 3)}
            for a, b in itertools.combinations(self.strategies, 2):
                d = self.difference(measure, a, b)
                row[f"{a} - {b}"] = {"mean": round(d.mean, 3), "ci95": round(d.ci95, 3)}
            out[measure] = row
        return out


_UNITS = {"won": "games won (share)", "score": "final score", "per_deal": "points per deal"}


def format_games(result: GameTournamentResult) -> list[str]:
    n_games = len(result.sets) * len(seatings(result.strategies, result.players))
    cut = sum(s.cut for s in result.sets)
    deals = sum(s.deals for s in result.sets)
    lines = [
        f"{len(result.sets)} duplicate games x {len(seatings(result.strategies, result.players))} seatings"
        f" ({n_games} games, {deals} deals, {cut} cut), {result.players} players, {result.seconds:.0f} s"
    ]
    for measure in MEASURES:
        lines.append(f" {_UNITS[measure]}:")
        for name in sorted(result.strategies, key=lambda n: -result.score(measure, n).mean):
            st = result.score(measure, name)
            lines.append(f"  {name:<10} {st.mean:9.3f} ± {st.ci95:.3f}")
        for a, b in itertools.combinations(result.strategies, 2):
            d = result.difference(measure, a, b)
            verdict = a if d.mean - d.ci95 > 0 else b if d.mean + d.ci95 < 0 else "neither (not significant)"
            lines.append(f"  {a} - {b}: {d.mean:+.3f} ± {d.ci95:.3f}; better with 95% confidence: {verdict}")
    return lines


def _run(args: tuple[GameSetup, int]) -> tuple[int, SetResult]:
    setup, number = args
    return number, play_game_set(setup, number)


def game_tournament(
    strategies: list[str],
    games: int,
    seed: int,
    budget_ms: int = 50,
    players: int = 3,
    *,
    rules: Rules | None = None,
    iterations: int | None = None,
    max_deals: int = 200,
    workers: int = 1,
    progress: bool = True,
) -> GameTournamentResult:
    """Play ``games`` duplicate sets of whole games between ``strategies`` and score them."""
    for name in strategies:
        if name not in STRATEGIES:
            raise KeyError(f"no strategy {name!r} (known: {', '.join(sorted(STRATEGIES))})")
    if len(set(strategies)) != len(strategies):
        raise ValueError("each strategy may be named once")
    rules = rules or Rules(players=players)
    options = StrategyOptions(budget_ms=float(budget_ms), iterations=iterations)
    setup = GameSetup(Setup(tuple(strategies), seed, players, rules, options), max_deals)
    result = GameTournamentResult(tuple(strategies), players)
    start = time.monotonic()
    if progress:
        stderr_progress(0, games)
    done: dict[int, SetResult] = {}
    for number, res in _sets(setup, games, workers):
        done[number] = res
        if progress:
            stderr_progress(len(done), games)
    result.sets = [done[n] for n in sorted(done)]
    result.seconds = time.monotonic() - start
    return result


def _sets(setup: GameSetup, games: int, workers: int) -> Iterator[tuple[int, SetResult]]:
    if workers <= 1:
        for number in range(games):
            yield number, play_game_set(setup, number)
        return
    with ProcessPoolExecutor(max_workers=workers) as pool:
        yield from pool.map(_run, [(setup, n) for n in range(games)])


def main(argv: Sequence[str] | None = None) -> int:
    """``thousand-bot tournament --games N``: whole games in duplicate between named strategies."""
    parser = argparse.ArgumentParser(prog="thousand-bot tournament", description=__doc__.splitlines()[0])
    parser.add_argument("strategies", nargs="+", help=f"strategy names ({', '.join(sorted(STRATEGIES))})")
    parser.add_argument("--games", type=int, default=10, help="duplicate games (sets) to play")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--budget-ms", type=int, default=50)
    parser.add_argument("--iterations", type=int, default=None)
    parser.add_argument("--players", type=int, default=3, choices=(2, 3, 4))
    parser.add_argument("--max-deals", type=int, default=200, help="cut a game after this many deals")
    parser.add_argument("--workers", type=int, default=1)
    parser.add_argument("--json", action="store_true")
    parser.add_argument("--quiet", action="store_true")
    args = parser.parse_args(argv)
    try:
        result = game_tournament(
            list(args.strategies),
            args.games,
            args.seed,
            args.budget_ms,
            args.players,
            iterations=args.iterations,
            max_deals=args.max_deals,
            workers=args.workers,
            progress=not args.quiet,
        )
    except (KeyError, ValueError) as e:
        parser.error(str(e))
    for line in format_games(result):
        print(line)
    if args.json:
        print(json.dumps(result.to_json()))
    return 0


if __name__ == "__main__":
    sys.exit(main())
