"""The ladder's reference bots against each other in duplicate sets (issue 27): their strength order with
intervals, and how fast sets are played.

Two ways, both with the ladder's own parts (:mod:`server.ladder.pairing` picks each set's members, the least
played pairing first; :func:`~server.ladder.pairing.rotation_seats` seats every member in every seat once;
:func:`~server.ladder.results.set_results` totals and ranks a set; :func:`server.ratings.model.rate` is the
one Plackett-Luce update a set makes):

- **offline** (the default): every set's tables are played here, in ``--workers`` processes, as the server
  plays a bot seat (:class:`server.games.adapter.SeatBot`: the registry's strategy at its default budget,
  each decision due within ``--per-move``); the rotations of a set deal the same deals (one seed), from the
  same first dealer. A table that reaches the server's move limit for bots-only tables voids its set, as the
  ladder does with a stopped table.
- **server** (``--server``): a real server in this process with ``--ladder`` and only reference bots, as many
  sets of them at once as ``--workers``, at the clock ``--per-move``, for ``--seconds``; it prints sets a
  minute, the scheduler's CPU per game (``Ladder.scheduler_seconds``: the thread CPU of its rounds, rating
  and store calls; creating the tables is CreateTable's), and the ladder's own standings.

Either prints each member's rating (mu, its interval mu ± 2 sigma as the standings give it, and the ordinal
the order follows), its mean points per game with a 95 % interval, whether each member's interval is clear
of the next one's, and its points a game over the next member's, paired over the sets both played (the same
deals: the finer measure); the last line is one JSON object.

    python bench/ladder.py [--game thousand] [--members random,greedy,heuristic,ismcts] [--sets 12]
                           [--workers 2] [--per-move 2.0] [--seed 1] [--server --seconds 120]
"""

from __future__ import annotations

import argparse
import asyncio
import itertools
import json
import math
import random
import statistics
import sys
import tempfile
import time
from collections.abc import Sequence
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any

# Run as ``python bench/ladder.py``, Python puts bench/ first on sys.path: the repository goes first instead.
_BENCH_DIR = Path(__file__).resolve().parent
sys.path[:] = [p for p in sys.path if Path(p or ".").resolve() != _BENCH_DIR]
sys.path.insert(0, str(_BENCH_DIR.parent))

from server.games import adapter_for_name  # noqa: E402
from server.ladder.pairing import Pairing, PoolState, plan_sets, rotation_seats  # noqa: E402
from server.ladder.results import MemberResult, TableOutcome, set_results  # noqa: E402
from server.ladder.service import INTERVAL_SIGMAS  # noqa: E402
from server.pacing import DEFAULT_MAX_MOVES  # noqa: E402
from server.ratings.model import BOT_PREFIX, Pool, RatingValue, bot_id, rate  # noqa: E402
from thousand.v1 import table_service_pb2 as pb  # noqa: E402


@dataclass(frozen=True, slots=True)
class Table:
    """One table to play: its set, rotation and seats' members."""

    set_number: int
    rotation: int
    seats: tuple[str, ...]
    game: str
    seed: int
    per_move: float


@dataclass(frozen=True, slots=True)
class Played:
    """A table's outcome (None: it reached the move limit) and its decisions and seconds."""

    table: Table
    outcome: TableOutcome | None
    decisions: int
    seconds: float


def play_table(table: Table) -> Played:
    """The table's game, every seat a server bot seat of its member's strategy."""
    started = time.perf_counter()
    adapter: Any = adapter_for_name(table.game)
    rules = adapter.rules_from_request(pb.Rules(), len(table.seats))
    game = adapter.new_game(rules, table.seed, 0)
    bots = [adapter.new_bot(member.removeprefix(BOT_PREFIX)) for member in table.seats]
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
        mean, half = _mean(list(table[member].scores.values()))
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
        difference, half = _mean([table[above].scores[k] - table[below].scores[k] for k in common])
        upper["points_over_next"] = round(difference, 1)  # paired: the same sets, so the same deals
        upper["points_over_next_interval"] = round(half, 1)
    return rows


def _mean(values: list[float]) -> tuple[float, float]:
    """The mean and its 95 % half-interval (normal approximation)."""
    if not values:
        return 0.0, 0.0
    half = 1.96 * statistics.stdev(values) / math.sqrt(len(values)) if len(values) > 1 else 0.0
    return statistics.fmean(values), half


def print_rows(rows: list[dict[str, Any]]) -> None:
    print(f"{'place':>5} {'member':<10} {'mu':>6} {'interval (mu ± 2σ)':>20} {'ordinal':>8} {'sets':>5}"
          f" {'points a game (95 %)':>22}  clear of next  points over next, paired (95 %)")  # fmt: skip
    for place, row in enumerate(rows, start=1):
        interval = f"[{row['low']:6.2f}; {row['high']:6.2f}]"
        points = f"{row['points_per_game']:8.1f} ± {row['points_interval']:.1f}"
        clear = "" if "clear_of_next" not in row else ("yes" if row["clear_of_next"] else "no")
        over = ""
        if "points_over_next" in row:
            over = f"{row['points_over_next']:+.1f} ± {row['points_over_next_interval']:.1f}"
        print(f"{place:>5} {row['member']:<10} {row['mu']:6.2f} {interval:>20} {row['ordinal']:8.2f}"
              f" {row['sets']:>5} {points:>22}  {clear:<13} {over}")  # fmt: skip


def offline(args: argparse.Namespace, members: list[str]) -> dict[str, Any]:
    rng = random.Random(args.seed)
    chosen = plan(members, args.players, args.sets, rng)
    seeds = [rng.randrange(2**62) for _ in chosen]  # one seed a set: its rotations deal the same deals
    tables = [
        Table(n, r, rotation_seats(seats, r), args.game, seeds[n], args.per_move)
        for n, seats in enumerate(chosen)
        for r in range(args.players)
    ]
    started = time.perf_counter()
    with ProcessPoolExecutor(args.workers) as pool:
        played = list(pool.map(play_table, tables))
    seconds = time.perf_counter() - started
    sets = [played[i : i + args.players] for i in range(0, len(played), args.players)]
    table, void = rate_sets(members, sets)
    rows = report(table)
    decisions = sum(p.decisions for p in played)
    print(f"offline: {args.sets} sets ({len(tables)} games, {decisions} decisions, {void} void) of"
          f" {args.game} for {args.players} in {seconds:.0f} s on {args.workers} workers:"
          f" {args.sets / seconds * 60:.2f} sets a minute")  # fmt: skip
    print_rows(rows)
    return {"mode": "offline", "sets": args.sets, "void": void, "seconds": round(seconds, 1),
            "sets_per_minute": round(args.sets / seconds * 60, 3), "standings": rows}  # fmt: skip


async def served(args: argparse.Namespace, members: list[str]) -> dict[str, Any]:
    """A real server with the ladder and reference bots only, for ``--seconds``."""
    from grpc import aio  # noqa: PLC0415  # the offline run needs no server

    from server.app import Server  # noqa: PLC0415
    from server.settings import Settings  # noqa: PLC0415
    from thousand.v1 import ladder_service_pb2 as ladder_pb  # noqa: PLC0415
    from thousand.v1 import ladder_service_pb2_grpc as ladder_grpc  # noqa: PLC0415

    names = ",".join(m.removeprefix(BOT_PREFIX) for m in members)
    with tempfile.TemporaryDirectory() as directory:
        settings = Settings(
            host="127.0.0.1", port=0, db=str(Path(directory) / "ladder.db"), ladder=True,
            ladder_per_move=args.per_move, ladder_references=f"{args.game}={names}",
            ladder_reference_sets=args.workers, ladder_seed=args.seed, log_level="warning",
        )  # fmt: skip
        server = Server(settings)
        await server.start()
        started, cpu = time.perf_counter(), time.process_time()
        try:
            await asyncio.sleep(args.seconds)
            seconds = time.perf_counter() - started
            process_cpu = time.process_time() - cpu
            scheduler = server.ladder.scheduler_seconds
            pool = Pool(args.game, args.players, ladder=True)
            recent = server.ladder.store.recent(pool, 1_000_000)  # every rated set, for the points a game
            async with aio.insecure_channel(f"127.0.0.1:{server.port}") as channel:
                stub = ladder_grpc.LadderServiceStub(channel)
                kind = adapter_for_name(args.game).kind
                found = await stub.GetLadderStandings(
                    ladder_pb.GetLadderStandingsRequest(game=kind, players=args.players)
                )
        finally:
            await server.stop(grace=0.2)
    table = {
        s.member_id: Member(RatingValue(s.rating.mu, s.rating.sigma, s.sets), {}) for s in found.standings
    }
    for row in recent:
        for rated_member in row.results:
            result = rated_member.result
            table[result.member_id].scores[row.set_id] = result.total_score / args.players
    rows = report(table)
    rated = len(recent)
    games = rated * args.players
    per_game = scheduler / games if games else float("nan")
    print(f"server: {rated} sets rated ({games} games) of {args.game} for {args.players} in {seconds:.0f} s"
          f" at {args.per_move} s a move, {args.workers} at once: {rated / seconds * 60:.2f} sets a minute;"
          f" scheduler CPU {scheduler * 1000:.0f} ms ({per_game * 1000:.1f} ms a game,"
          f" {scheduler / seconds * 1000:.1f} ms a second) of the process's {process_cpu:.0f} s")  # fmt: skip
    print_rows(rows)
    return {"mode": "server", "sets": rated, "seconds": round(seconds, 1), "per_move": args.per_move,
            "sets_per_minute": round(rated / seconds * 60, 3), "process_cpu_s": round(process_cpu, 1),
            "scheduler_ms_per_game": round(per_game * 1000, 2),
            "scheduler_ms_per_second": round(scheduler / seconds * 1000, 2), "standings": rows}  # fmt: skip


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--game", choices=("thousand", "blagogo"), default="thousand")
    parser.add_argument(
        "--members", default="random,greedy,heuristic", help="reference bots, comma-separated"
    )
    parser.add_argument("--players", type=int, default=3)
    parser.add_argument("--sets", type=int, default=12, help="offline: sets to play")
    parser.add_argument("--workers", type=int, default=2, help="processes (offline); sets at once (server)")
    parser.add_argument("--per-move", type=float, default=2.0, help="the clock: seconds a decision")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--server", action="store_true", help="play on a real server's ladder instead")
    parser.add_argument("--seconds", type=float, default=120.0, help="server: how long to let it play")
    args = parser.parse_args(argv)
    members = [bot_id(name.strip()) for name in args.members.split(",") if name.strip()]
    if len(members) < args.players:
        parser.error(f"--members needs at least {args.players} reference bots")
    figures = asyncio.run(served(args, members)) if args.server else offline(args, members)
    print(json.dumps(figures))


if __name__ == "__main__":
    main()
