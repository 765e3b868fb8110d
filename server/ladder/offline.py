"""The ladder's sets played offline, without a server (issue 27): what ``bench/ladder.py`` measures and the
test of the reference bots' order (tests/test_ladder_order.py) checks, with the ladder's own parts.

:func:`plan` picks each set's members as the ladder's scheduler does (:mod:`server.ladder.pairing`: the least
played pairing first), :func:`~server.ladder.pairing.rotation_seats` seats every member in every seat once,
one seed a set deals the same deals from the same first dealer, and every seat is a server bot seat
(:class:`server.games.adapter.SeatBot`: the registry's strategy at its default budget, each decision due
within ``per_move``; or a fixed number of iterations a decision for the searching ones, so that a run is the
same on every machine). A table that reaches the server's move limit for bots-only tables voids its set, as
the ladder does with a stopped table. :func:`rate_sets` rates the sets in order as the ladder does
(:func:`~server.ladder.results.set_results` totals and ranks a set, :func:`server.ratings.model.rate` is its
one Plackett-Luce update), and :func:`report` gives the standings as the leaderboard orders them (the
ordinal) with the interval it shows (mu ± ``INTERVAL_SIGMAS`` sigma), each member's points a game and its
points over the next member's, paired over the sets both played (the same deals: the finer measure).
"""

from __future__ import annotations

import itertools
import math
import multiprocessing
import random
import statistics
import time
from collections.abc import Sequence
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass
from typing import Any

from bots.strategy import StrategyOptions
from server.games import adapter_for_name
from server.games.adapter import SeatBot
from server.ladder.pairing import Pairing, PoolState, plan_sets, rotation_seats
from server.ladder.results import MemberResult, TableOutcome, set_results
from server.ladder.service import INTERVAL_SIGMAS
from server.pacing import DEFAULT_MAX_MOVES
from server.ratings.model import BOT_PREFIX, RatingValue, rate
from thousand.v1 import table_service_pb2 as pb


@dataclass(frozen=True, slots=True)
class LadderTable:
    """One table to play: its set, rotation and seats' members."""

    set_number: int
    rotation: int
    seats: tuple[str, ...]
    game: str
    seed: int
    per_move: float
    iterations: int | None = None
    """The searching members' fixed iterations a decision instead of the registry's time budget (None: the
    budget, as the server seats them): a run that is the same on every machine, whatever its load."""


@dataclass(frozen=True, slots=True)
class Played:
    """A table's outcome (None: it reached the move limit) and its decisions and seconds."""

    table: LadderTable
    outcome: TableOutcome | None
    decisions: int
    seconds: float


def play_table(table: LadderTable) -> Played:
    """The table's game, every seat a server bot seat of its member's strategy."""
    started = time.perf_counter()
    adapter: Any = adapter_for_name(table.game)
    rules = adapter.rules_from_request(pb.Rules(), len(table.seats))
    game = adapter.new_game(rules, table.seed, 0)
    options = None
    if table.iterations is not None:
        options = StrategyOptions(budget_ms=0, iterations=table.iterations)
    bots: list[SeatBot[Any, Any]] = [
        SeatBot(member.removeprefix(BOT_PREFIX), adapter.description, options) for member in table.seats
    ]
    rngs = [random.Random(f"{table.seed}:{table.rotation}:{seat}") for seat in range(len(table.seats))]
    decisions = 0
    while not game.is_over:
        if game.is_chance_node:
            game.apply_chance()
            continue
        if decisions >= DEFAULT_MAX_MOVES:
            return Played(table, None, decisions, time.perf_counter() - started)
        seat = game.to_act
        action = bots[seat].decide(game, seat, rngs[seat], time.monotonic() + table.per_move)
        game.apply(seat, action)
        decisions += 1
        for other, bot in enumerate(bots):
            if bot.observes:
                bot.observe(game, other)
    scores = [0] * len(table.seats)
    for standing in game.standings:
        scores[standing.seat] = standing.score
    outcome = TableOutcome(
        f"{table.set_number}-{table.rotation}", table.seats, tuple(scores), (0,) * len(scores)
    )
    return Played(table, outcome, decisions, time.perf_counter() - started)


def plan(members: Sequence[str], players: int, sets: int, rng: random.Random) -> list[tuple[str, ...]]:
    """``sets`` sets of reference bots, each chosen as the ladder's scheduler chooses one (least played
    pairing first, at random among equals), seated in the order of its first table."""
    counts: dict[Pairing, int] = {}
    planned: list[tuple[str, ...]] = []
    for _ in range(sets):
        state = PoolState(players, [], list(members), counts, 0)
        (chosen,) = plan_sets(state, max_same=sets + 1, reference_sets=1, rng=rng)
        counts[frozenset(chosen)] = counts.get(frozenset(chosen), 0) + 1
        planned.append(chosen)
    return planned


@dataclass(slots=True)
class Member:
    rating: RatingValue
    scores: dict[str, float]
    """Its points a game in each set it played, by set."""


def rate_sets(members: Sequence[str], sets: list[list[Played]]) -> tuple[dict[str, Member], int]:
    """Every set's update in set order, as the ladder rates them; returns the members and the void sets."""
    table = {m: Member(RatingValue(), {}) for m in members}
    void = 0
    for number, played in enumerate(sets):
        outcomes = [p.outcome for p in played]
        if any(o is None for o in outcomes):
            void += 1
            continue
        seats = played[0].table.seats
        results: list[MemberResult] = set_results(seats, [o for o in outcomes if o is not None])
        after = rate([table[r.member_id].rating for r in results], [r.rank for r in results])
        for result, rating in zip(results, after, strict=True):
            table[result.member_id].rating = rating
            table[result.member_id].scores[str(number)] = result.total_score / len(seats)
    return table, void


def report(table: dict[str, Member]) -> list[dict[str, Any]]:
    """Best ordinal first, with intervals; each row says whether its interval is clear of the next one's."""
    order = sorted(table, key=lambda m: -table[m].rating.ordinal)
    rows: list[dict[str, Any]] = []
    for member in order:
        r = table[member].rating
        mean, half = mean_interval(list(table[member].scores.values()))
        rows.append({
            "member": member.removeprefix(BOT_PREFIX),
            "mu": round(r.mu, 2),
            "low": round(r.mu - INTERVAL_SIGMAS * r.sigma, 2),
            "high": round(r.mu + INTERVAL_SIGMAS * r.sigma, 2),
            "ordinal": round(r.ordinal, 2),
            "sets": r.games,
            "points_per_game": round(mean, 1),
            "points_interval": round(half, 1),
        })  # fmt: skip
    for (upper, lower), (above, below) in zip(
        itertools.pairwise(rows), itertools.pairwise(order), strict=True
    ):
        upper["clear_of_next"] = float(upper["low"]) > float(lower["high"])
        common = table[above].scores.keys() & table[below].scores.keys()
        difference, half = mean_interval([table[above].scores[k] - table[below].scores[k] for k in common])
        upper["points_over_next"] = round(difference, 1)  # paired: the same sets, so the same deals
        upper["points_over_next_interval"] = round(half, 1)
    return rows


def mean_interval(values: list[float]) -> tuple[float, float]:
    """The mean and its 95 % half-interval (normal approximation)."""
    if not values:
        return 0.0, 0.0
    half = 1.96 * statistics.stdev(values) / math.sqrt(len(values)) if len(values) > 1 else 0.0
    return statistics.fmean(values), half


def play_sets(
    game: str,
    members: Sequence[str],
    players: int,
    sets: int,
    *,
    seed: int,
    per_move: float,
    workers: int,
    iterations: int | None = None,
) -> list[list[Played]]:
    """``sets`` sets chosen by the ladder's scheduler from ``members`` (seeded), every rotation of each played
    in ``workers`` processes; each set's tables in rotation order."""
    rng = random.Random(seed)
    chosen = plan(members, players, sets, rng)
    seeds = [rng.randrange(2**62) for _ in chosen]  # one seed a set: its rotations deal the same deals
    tables = [
        LadderTable(n, r, rotation_seats(seats, r), game, seeds[n], per_move, iterations)
        for n, seats in enumerate(chosen)
        for r in range(players)
    ]
    # Spawned, not forked: a worker forked from a long-lived process (the test suite's) inherits its heap, and
    # the garbage collector walks all of it again and again (400 sets took 25 minutes there, 50 s alone).
    with ProcessPoolExecutor(workers, mp_context=multiprocessing.get_context("spawn")) as pool:
        played = list(pool.map(play_table, tables, chunksize=8))
    return [played[i : i + players] for i in range(0, len(played), players)]
