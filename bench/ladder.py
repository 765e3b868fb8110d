"""The ladder's reference bots against each other in duplicate sets (issue 27): their strength order with
intervals, and how fast sets are played.

Two ways, both with the ladder's own parts (:mod:`server.ladder.pairing` picks each set's members, the least
played pairing first; :func:`~server.ladder.pairing.rotation_seats` seats every member in every seat once;
:func:`~server.ladder.results.set_results` totals and ranks a set; :func:`server.ratings.model.rate` is the
one Plackett-Luce update a set makes):

- **offline** (the default, :mod:`server.ladder.offline`): every set's tables are played here, in
  ``--workers`` processes, as the server plays a bot seat (:class:`server.games.adapter.SeatBot`: the
  registry's strategy at its default budget, each decision due within ``--per-move``); the rotations of a
  set deal the same deals (one seed), from the same first dealer. A table that reaches the server's move
  limit for bots-only tables voids its set, as the ladder does with a stopped table.
- **server** (``--server``): a real server in this process with ``--ladder`` and only reference bots, as many
  sets of them at once as ``--workers``, at the clock ``--per-move``, for ``--seconds``; it prints sets a
  minute, the scheduler's CPU per game (``Ladder.scheduler_seconds``: the thread CPU of its rounds, rating
  and store calls; creating the tables is CreateTable's), and the ladder's own standings.

Either prints each member's rating (mu, its interval mu ± 2 sigma as the standings give it, and the ordinal
the order follows), its mean points per game with a 95 % interval, whether each member's interval is clear
of the next one's, and its points a game over the next member's, paired over the sets both played (the same
deals: the finer measure); the last line is one JSON object.

    python bench/ladder.py [--game thousand] [--members random,greedy,heuristic,ismcts] [--sets 12]
                           [--workers 2] [--per-move 2.0] [--seed 1] [--iterations N]
                           [--server --seconds 120]

``--iterations N`` (offline) seats the searching members at N iterations a decision instead of the
registry's 50 ms: the same run on any machine, whatever its load (the test of the order plays so).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

# Run as ``python bench/ladder.py``, Python puts bench/ first on sys.path: the repository goes first instead,
# or second, after the compiled build that ``--engine compiled``'s rerun put first (its workers inherit it).
# The rerun is told by its environment mark, read from scripts.compiled_engine: the repository is put first to
# import it (scripts is not in the build), then moved behind the build if this is the rerun.
_BENCH_DIR = Path(__file__).resolve().parent
sys.path[:] = [p for p in sys.path if Path(p or ".").resolve() != _BENCH_DIR]
sys.path.insert(0, str(_BENCH_DIR.parent))

from scripts.compiled_engine import RERUN_MARK, rerun_compiled  # noqa: E402

if os.environ.get(RERUN_MARK):
    sys.path.insert(1, sys.path.pop(0))

import bots  # noqa: E402
import engine  # noqa: E402
from server.games import adapter_for_name  # noqa: E402
from server.ladder.offline import Member, play_sets, rate_sets, report  # noqa: E402
from server.ratings.model import BOT_PREFIX, Pool, RatingValue, bot_id  # noqa: E402


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
    started = time.perf_counter()
    sets = play_sets(
        args.game, members, args.players, args.sets, seed=args.seed, per_move=args.per_move,
        workers=args.workers, iterations=args.iterations,
    )  # fmt: skip
    seconds = time.perf_counter() - started
    played = [p for one in sets for p in one]
    table, void = rate_sets(members, sets)
    rows = report(table)
    decisions = sum(p.decisions for p in played)
    print(f"offline: {args.sets} sets ({len(played)} games, {decisions} decisions, {void} void) of"
          f" {args.game} for {args.players} in {seconds:.0f} s on {args.workers} workers:"
          f" {args.sets / seconds * 60:.2f} sets a minute")  # fmt: skip
    print_rows(rows)
    return {"mode": "offline", "engine": _engine(), "sets": args.sets, "void": void,
            "seconds": round(seconds, 1), "sets_per_minute": round(args.sets / seconds * 60, 3),
            "standings": rows}  # fmt: skip


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
    return {"mode": "server", "engine": _engine(), "sets": rated, "seconds": round(seconds, 1),
            "per_move": args.per_move,
            "sets_per_minute": round(rated / seconds * 60, 3), "process_cpu_s": round(process_cpu, 1),
            "scheduler_ms_per_game": round(per_game * 1000, 2),
            "scheduler_ms_per_second": round(scheduler / seconds * 1000, 2), "standings": rows}  # fmt: skip


def _engine() -> str:
    return "compiled" if engine.COMPILED and bots.COMPILED else "python"


def main(argv: list[str] | None = None) -> int:
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
    parser.add_argument(
        "--iterations", type=int, default=None,
        help="offline: searching bots at this many iterations a decision, not the registry's time budget",
    )  # fmt: skip
    parser.add_argument("--server", action="store_true", help="play on a real server's ladder instead")
    parser.add_argument("--seconds", type=float, default=120.0, help="server: how long to let it play")
    parser.add_argument(
        "--engine", choices=("python", "compiled"), default="python",
        help="python: the sources as they are; compiled: the engine and the searching bots compiled by"
        " mypyc as a production image runs them (scripts/compiled_engine.py, needs a C compiler): the same"
        " games, faster",
    )  # fmt: skip
    args = parser.parse_args(argv)
    if args.engine == "compiled" and _engine() != "compiled":
        interpreted = engine.__file__ if not engine.COMPILED else bots.__file__
        return rerun_compiled(Path(__file__).resolve(), argv, imported=interpreted)
    members = [bot_id(name.strip()) for name in args.members.split(",") if name.strip()]
    if len(members) < args.players:
        parser.error(f"--members needs at least {args.players} reference bots")
    figures = asyncio.run(served(args, members)) if args.server else offline(args, members)
    print(json.dumps(figures))
    return 0


if __name__ == "__main__":
    sys.exit(main())
