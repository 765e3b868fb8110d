"""Local duplicate tournaments of 1000 Blagogo strategies: ``thousand-bot tournament --game blagogo``.

Like :mod:`bots.tournament` for Thousand: every seeded round (a stacked
:class:`engine.blagogo.Shuffle` and a dealer, both derived from the seed and the round's number) is played
once per *seating* (:func:`bots.tournament.seatings`: every rotation, so each strategy sits in
each seat equally often with the same cards), each time in a fresh :class:`engine.blagogo.Game`. A seat's
score is the round's delta from the ``RoundScored`` event (B-18, B-19). The strategies see only their seat's
view and the Turn's actions (the simple legal actions, then the candidate melds), exactly as over gRPC.

A round must end: the tournament's rules set ``turnover_limit`` (default 2: the round ends with no winner when
the deck runs out after the bridge was turned over twice), and a round still going after
:data:`MAX_ACTIONS` actions is scored 0 for everyone and counted as ``stalled``.

A duplicate *set* is one seeded round with all its seatings; results are means over sets with 95% confidence
intervals (:class:`bots.tournament.TournamentResult`), and the paired difference between strategies.
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import time
from collections.abc import Sequence
from dataclasses import dataclass, field

from bots.blagogo import BLAGOGO_STRATEGIES, make_blagogo_strategy
from bots.strategy import StrategyOptions
from bots.tournament import (
    Progress,
    TournamentResult,
    duplicate_set,
    score_lines,
    seatings,
    seeded_order,
    stderr_progress,
)
from engine.blagogo import CARDS, BlagogoRules, Game, Shuffle, view
from engine.blagogo.events import RoundScored
from engine.blagogo.game import derive_seed

MAX_ACTIONS = 5000
"""A round not over after this many actions is abandoned (scored 0 for everyone): a dead round."""
DEFAULT_TURNOVER_LIMIT = 2


def round_order(seed: int, number: int) -> tuple[Shuffle, int]:
    """The seeded deck of duplicate round ``number`` and a salt for its dealer."""
    order, salt = seeded_order(CARDS, derive_seed(seed, f"tournament:{number}"))
    return Shuffle(order), salt


@dataclass(frozen=True, slots=True)
class Setup:
    strategies: tuple[str, ...]
    seed: int
    rules: BlagogoRules
    options: StrategyOptions


@dataclass(slots=True)
class Counters:
    rounds: int = 0
    stalled: int = 0
    actions: int = 0
    went_out: dict[str, int] = field(default_factory=dict)


def play_round(
    setup: Setup, number: int, seating: tuple[str, ...], counters: Counters | None = None
) -> tuple[int, ...]:
    """Play one seeded round with the given seating: each seat's score delta (zeros for a stalled round)."""
    rules = setup.rules
    shuffle, salt = round_order(setup.seed, number)
    game = Game(rules, setup.seed, first_dealer=salt % rules.players)
    seats = [make_blagogo_strategy(name, setup.options) for name in seating]
    rngs = [random.Random(f"{setup.seed}:{number}:{seat}:{name}") for seat, name in enumerate(seating)]
    events = game.apply_chance(shuffle)
    for s, strategy in enumerate(seats):
        strategy.observe(view(game, s))
    rnd = game.round
    assert rnd is not None
    actions = 0
    while not rnd.is_over:
        if actions >= MAX_ACTIONS:
            if counters is not None:
                counters.stalled += 1
                counters.actions += actions
            return (0,) * rules.players
        actor = game.to_act
        assert actor is not None
        choices = (*game.legal_actions(), *game.candidate_melds())
        action = seats[actor].choose(view(game, actor), choices, rngs[actor])
        if not game.is_legal(actor, action):
            raise RuntimeError(f"{seating[actor]} chose an illegal action {action!r}")
        events = game.apply(actor, action)
        actions += 1
        for s, strategy in enumerate(seats):
            strategy.observe(view(game, s))
    if counters is not None:
        counters.rounds += 1
        counters.actions += actions
        if rnd.winner is not None:
            name = seating[rnd.winner]
            counters.went_out[name] = counters.went_out.get(name, 0) + 1
    for event in events:
        if isinstance(event, RoundScored):
            return event.deltas
    raise AssertionError("a round ended without RoundScored")


def play_set(setup: Setup, number: int, counters: Counters | None = None) -> dict[str, float]:
    """One duplicate set: the round in every seating; each strategy's mean delta over its seats."""
    every_seat = range(setup.rules.players)
    return duplicate_set(
        setup.strategies,
        setup.rules.players,
        lambda seating: (play_round(setup, number, seating, counters), every_seat),
    )


def tournament(
    strategies: Sequence[str],
    rounds: int,
    seed: int,
    *,
    players: int = 4,
    rules: BlagogoRules | None = None,
    progress: Progress | None = stderr_progress,
    counters: Counters | None = None,
) -> TournamentResult:
    """Play ``rounds`` duplicate sets between ``strategies`` (names of :data:`BLAGOGO_STRATEGIES`)."""
    for name in strategies:
        if name not in BLAGOGO_STRATEGIES:
            known = ", ".join(sorted(BLAGOGO_STRATEGIES))
            raise KeyError(f"no 1000 Blagogo strategy {name!r} (known: {known})")
    if len(set(strategies)) != len(strategies):
        raise ValueError("each strategy may be named once")
    rules = rules or BlagogoRules(players=players, turnover_limit=DEFAULT_TURNOVER_LIMIT)
    if rules.players != players:
        raise ValueError(f"rules for {rules.players} players, not {players}")
    setup = Setup(tuple(strategies), seed, rules, StrategyOptions())
    result = TournamentResult(tuple(strategies), players)
    start = time.monotonic()
    if progress is not None:
        progress(0, rounds)
    for number in range(rounds):
        result.sets.append(play_set(setup, number, counters))
        if progress is not None:
            progress(number + 1, rounds)
    result.seconds = time.monotonic() - start
    return result


def format_result(result: TournamentResult, counters: Counters | None = None) -> list[str]:
    lines = [
        f"{len(result.sets)} duplicate rounds of 1000 Blagogo, {result.players} players, "
        f"{len(seatings(result.strategies, result.players))} seatings each, {result.seconds:.1f} s"
    ]
    lines += score_lines(result, "round")
    if counters is not None:
        out = ", ".join(f"{n} {k}" for n, k in sorted(counters.went_out.items()))
        lines.append(
            f"  rounds played {counters.rounds}, stalled {counters.stalled}, "
            f"actions {counters.actions}; went out: {out or 'nobody'}"
        )
    return lines


def main(argv: Sequence[str] | None = None) -> int:
    """``thousand-bot tournament --game blagogo``: a duplicate tournament between Blagogo strategies."""
    parser = argparse.ArgumentParser(
        prog="thousand-bot tournament --game blagogo", description=__doc__.splitlines()[0]
    )
    parser.add_argument(
        "strategies", nargs="+", help=f"strategy names ({', '.join(sorted(BLAGOGO_STRATEGIES))})"
    )
    parser.add_argument("--rounds", type=int, default=100, help="duplicate rounds (sets) to play")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--players", type=int, default=4, choices=range(2, 9), metavar="{2..8}")
    parser.add_argument(
        "--turnover-limit",
        type=int,
        default=DEFAULT_TURNOVER_LIMIT,
        help="end a round with no winner after this many turnovers of the deck (0: never)",
    )
    parser.add_argument("--json", action="store_true", help="print one JSON line of results last")
    parser.add_argument("--quiet", action="store_true", help="no progress bar")
    args = parser.parse_args(argv)
    rules = BlagogoRules(players=args.players, turnover_limit=args.turnover_limit)
    counters = Counters()
    try:
        result = tournament(
            list(args.strategies),
            args.rounds,
            args.seed,
            players=args.players,
            rules=rules,
            progress=None if args.quiet else stderr_progress,
            counters=counters,
        )
    except (KeyError, ValueError) as e:
        parser.error(str(e))
    for line in format_result(result, counters):
        print(line)
    if args.json:
        data = result.to_json()
        data.update(
            {
                "game": "blagogo",
                "players": args.players,
                "rounds": counters.rounds,
                "stalled": counters.stalled,
                "went_out": counters.went_out,
            }
        )
        print(json.dumps(data))
    return 0


if __name__ == "__main__":
    sys.exit(main())
