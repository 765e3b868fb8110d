"""Whole games of 1000 Blagogo in duplicate: ``thousand-bot tournament --game blagogo --games N``.

As :mod:`bots.game_tournament` for Thousand: every duplicate *set* is one seeded game played once per
seating (:func:`bots.tournament.seatings`: the strategies rotated through the seats), each game dealt the
same decks round by round (the k-th round's deck follows from the seed, the set's number and k alone) from
the same first dealer, so the luck of the cards cancels as far as the games stay alike. Games are played to
the target (B-20) under the table's rules (``turnover_limit`` 0 unless given: rounds end by B-10 and the
project's reading of it, :mod:`engine.blagogo.dead_round`), each decision handed the Turn's deadline of
``budget_ms`` as a table's clock would (:func:`bots.blagogo.decide_blagogo`).

A strategy's result in a set is the mean over the seats it held of: the game won (1 or 0), its final score
and its points per round (its final score over the rounds played). Results are means over sets with 95%
intervals, and the paired difference for every pair. A round still going after :data:`MAX_ACTIONS` actions
is an error (no round may go on endlessly); a game not over after ``max_rounds`` rounds is cut (counted,
won by nobody). Each strategy's decision times are kept (p50, p99, max) to compare with the budget.
"""

from __future__ import annotations

import argparse
import itertools
import json
import random
import sys
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Final

from bots.blagogo import BLAGOGO_STRATEGIES, decide_blagogo, make_blagogo_strategy
from bots.strategy import StrategyOptions
from bots.tournament import Stat, seatings, seeded_order, stat, stderr_progress
from engine.blagogo import CARDS, BlagogoRules, Game, Shuffle, view
from engine.blagogo.game import derive_seed

MEASURES: Final = ("won", "score", "per_round")
MAX_ACTIONS: Final = 20_000
"""Actions in one round beyond which the round is taken to loop (a failure, not a result)."""
_UNITS: Final = {"won": "games won (share)", "score": "final score", "per_round": "points per round"}


def round_deck(seed: int, game: int, number: int) -> Shuffle:
    """The deck of round ``number`` in every game of set ``game``."""
    order, _ = seeded_order(CARDS, derive_seed(seed, f"blagogo-games:{game}:{number}"))
    return Shuffle(order)


@dataclass(frozen=True, slots=True)
class GamesSetup:
    strategies: tuple[str, ...]
    seed: int
    rules: BlagogoRules
    options: StrategyOptions
    max_rounds: int


@dataclass(slots=True)
class SetResult:
    measures: dict[str, dict[str, float]]
    cut: int
    rounds: int


@dataclass(slots=True)
class GamesResult:
    strategies: tuple[str, ...]
    players: int
    sets: list[SetResult] = field(default_factory=list)
    times: dict[str, list[float]] = field(default_factory=dict)
    """Each strategy's decision times, seconds."""
    seconds: float = 0.0

    def score(self, measure: str, name: str) -> Stat:
        return stat([s.measures[measure][name] for s in self.sets])

    def difference(self, measure: str, a: str, b: str) -> Stat:
        return stat([s.measures[measure][a] - s.measures[measure][b] for s in self.sets])

    def timing(self, name: str) -> dict[str, float]:
        """p50, p99 and max decision time of ``name``, milliseconds."""
        times = sorted(self.times.get(name, []))
        if not times:
            return {"p50": 0.0, "p99": 0.0, "max": 0.0}

        def at(q: float) -> float:
            return round(1000 * times[min(len(times) - 1, int(q * len(times)))], 1)

        return {"p50": at(0.5), "p99": at(0.99), "max": round(1000 * times[-1], 1)}

    def to_json(self) -> dict[str, object]:
        out: dict[str, object] = {
            "game": "blagogo",
            "players": self.players,
            "sets": len(self.sets),
            "cut_games": sum(s.cut for s in self.sets),
            "rounds": sum(s.rounds for s in self.sets),
            "seconds": round(self.seconds, 1),
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
        out["decision_ms"] = {name: self.timing(name) for name in self.strategies}
        return out


def play_game(
    setup: GamesSetup, number: int, seating: tuple[str, ...], times: dict[str, list[float]]
) -> tuple[Game, bool]:
    """One game of set ``number`` with the given seating; the finished game and whether it was cut."""
    rules = setup.rules
    dealer = random.Random(derive_seed(setup.seed, f"blagogo-games:{number}:dealer")).randrange(rules.players)
    game = Game(rules, setup.seed, first_dealer=dealer)
    seats = [make_blagogo_strategy(name, setup.options) for name in seating]
    rngs = [random.Random(f"{setup.seed}:{number}:{seat}:{name}") for seat, name in enumerate(seating)]
    budget = setup.options.budget_ms / 1000.0 if setup.options.budget_ms > 0 else None
    actions = 0
    while not game.is_over:
        if game.is_chance_node:
            if game.rounds_dealt >= setup.max_rounds:
                return game, True
            game.apply_chance(round_deck(setup.seed, number, game.rounds_dealt + 1))
            actions = 0
        else:
            actor = game.to_act
            assert actor is not None
            choices = (*game.legal_actions(), *game.candidate_melds())
            begun = time.monotonic()
            due = None if budget is None else begun + budget
            action = decide_blagogo(seats[actor], view(game, actor), choices, rngs[actor], due)
            times.setdefault(seating[actor], []).append(time.monotonic() - begun)
            if not game.is_legal(actor, action):
                raise RuntimeError(f"{seating[actor]} chose an illegal action {action!r}")
            game.apply(actor, action)
            actions += 1
            if actions > MAX_ACTIONS:
                raise RuntimeError(f"set {number}, round {game.rounds_dealt}: {actions} actions, still going")
        for s, strategy in enumerate(seats):
            strategy.observe(view(game, s))
    return game, False


def play_set(setup: GamesSetup, number: int, times: dict[str, list[float]]) -> SetResult:
    names = setup.strategies
    totals = {m: dict.fromkeys(names, 0.0) for m in MEASURES}
    counts = dict.fromkeys(names, 0)
    cut = rounds = 0
    for seating in seatings(names, setup.rules.players):
        game, was_cut = play_game(setup, number, seating, times)
        cut += was_cut
        rounds += game.rounds_dealt
        for seat, name in enumerate(seating):
            score = game.scores[seat]
            totals["won"][name] += 1.0 if game.winner == seat else 0.0
            totals["score"][name] += score
            totals["per_round"][name] += score / max(game.rounds_dealt, 1)
            counts[name] += 1
    return SetResult({m: {n: totals[m][n] / counts[n] for n in names} for m in MEASURES}, cut, rounds)


def games_tournament(
    strategies: Sequence[str],
    games: int,
    seed: int,
    *,
    players: int = 3,
    budget_ms: float = 50.0,
    rules: BlagogoRules | None = None,
    max_rounds: int = 100,
    progress: bool = True,
) -> GamesResult:
    """Play ``games`` duplicate sets of whole 1000 Blagogo games between ``strategies``."""
    for name in strategies:
        if name not in BLAGOGO_STRATEGIES:
            raise KeyError(
                f"no 1000 Blagogo strategy {name!r} (known: {', '.join(sorted(BLAGOGO_STRATEGIES))})"
            )
    if len(set(strategies)) != len(strategies):
        raise ValueError("each strategy may be named once")
    rules = rules or BlagogoRules(players=players)
    setup = GamesSetup(tuple(strategies), seed, rules, StrategyOptions(budget_ms=budget_ms), max_rounds)
    result = GamesResult(tuple(strategies), rules.players)
    start = time.monotonic()
    for number in range(games):
        if progress:
            stderr_progress(number, games)
        result.sets.append(play_set(setup, number, result.times))
    if progress:
        stderr_progress(games, games)
    result.seconds = time.monotonic() - start
    return result


def format_games(result: GamesResult) -> list[str]:
    per_set = len(seatings(result.strategies, result.players))
    cut = sum(s.cut for s in result.sets)
    rounds = sum(s.rounds for s in result.sets)
    lines = [
        f"{len(result.sets)} duplicate games of 1000 Blagogo x {per_set} seatings"
        f" ({len(result.sets) * per_set} games, {rounds} rounds, {cut} cut), {result.players} players,"
        f" {result.seconds:.0f} s"
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
    for name in result.strategies:
        t = result.timing(name)
        lines.append(f" decision time {name}: p50 {t['p50']} ms, p99 {t['p99']} ms, max {t['max']} ms")
    return lines


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="thousand-bot tournament --game blagogo --games N")
    parser.add_argument(
        "strategies", nargs="+", help=f"strategy names ({', '.join(sorted(BLAGOGO_STRATEGIES))})"
    )
    parser.add_argument("--games", type=int, default=10, help="duplicate sets (one game per seating each)")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--players", type=int, default=3, choices=range(2, 9), metavar="{2..8}")
    parser.add_argument("--budget-ms", type=float, default=50.0)
    parser.add_argument("--target", type=int, default=1000)
    parser.add_argument("--turnover-limit", type=int, default=0)
    parser.add_argument("--json", action="store_true")
    parser.add_argument("--quiet", action="store_true")
    args = parser.parse_args(argv)
    rules = BlagogoRules(players=args.players, target=args.target, turnover_limit=args.turnover_limit)
    try:
        result = games_tournament(
            args.strategies,
            args.games,
            args.seed,
            players=args.players,
            budget_ms=args.budget_ms,
            rules=rules,
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
