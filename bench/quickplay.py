"""The quick-play benchmark (issue 26): how fast the queue seats people, and how long a player waits.

``python bench/quickplay.py [--waiting 1000] [--rounds 20] [--no-postgres]`` measures:

- **Matcher**: one matching round over ``--waiting`` tickets spread over games, player counts, presets and
  rated or not, ratings drawn around 0 (σ 8) and waits of 0 to 90 s (:func:`server.matchmaking.matching
  .form_matches`, the pure function a round runs under the matcher's lock): rounds a second and matches a
  second. The reference of the same run is the same number of tickets in one unrated pool (oldest first,
  no ratings): the spread's figure as a ratio to it carries over to another machine.
- **Seating**: ``--waiting`` players ask at once (one client process opening QuickPlay streams as fast as
  it can, unrated, over a spread of rules that all fill up) at real server processes: one node with SQLite
  (the reference), one node with PostgreSQL, and two PostgreSQL nodes (the players split between them, one
  queue): the time until every one is seated, tables (matches) a second, the wait p50 and p99 each saw.
- **Wait**: simulated arrivals (a virtual clock, the real matcher every 0.25 s) of rated players for
  3-player Thousand at several rates a minute, ratings around 0 (σ 8), bots allowed after 60 s: the wait a
  player sees, p50 and p90, and the share seated with bots.

Everything talks to 127.0.0.1 only and stops by itself; the last line printed is one JSON object.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import random
import statistics
import sys
import tempfile
import time
from collections.abc import Iterator, Sequence
from contextlib import ExitStack, contextmanager
from pathlib import Path
from typing import Any

# Run as ``python bench/quickplay.py``, Python puts bench/ first on sys.path, where bench/server.py would
# shadow the server package: the repository's root instead.
_BENCH_DIR = Path(__file__).resolve().parent
sys.path[:] = [p for p in sys.path if Path(p or ".").resolve() != _BENCH_DIR]
sys.path.insert(0, str(_BENCH_DIR.parent))

from bench.procs import HOST, percentile, server_argv, start, stop, wait_for_port  # noqa: E402
from clients.quickplay import quick_play, quick_play_request  # noqa: E402
from clients.routing import Route  # noqa: E402
from scripts.ports import free_port  # noqa: E402
from scripts.postgres import Postgres  # noqa: E402
from server.matchmaking.matching import form_matches, pool_of  # noqa: E402
from server.matchmaking.queue_store import Ticket  # noqa: E402
from server.matchmaking.ratings import bot_for  # noqa: E402

POOLS = (("thousand", 3, "standard"), ("thousand", 3, "dark"), ("thousand", 4, "standard"),
         ("thousand", 2, "golden"), ("blagogo", 4, "standard"), ("blagogo", 2, "standard"))  # fmt: skip
"""The spread of rules the players ask for (game, players, preset)."""


def tickets(count: int, *, spread: bool, now: float, rng: random.Random) -> list[Ticket]:
    made = []
    for i in range(count):
        game, players, preset = rng.choice(POOLS) if spread else POOLS[0]
        rated = spread and rng.random() < 0.5
        at = now - rng.uniform(0, 90)
        made.append(
            Ticket(
                ticket_id=f"{i:064x}",
                pool=pool_of(game, players, preset.encode(), rated),
                digest="",
                game=game,
                players=players,
                rules=preset.encode(),
                rated=rated,
                bots_ok=spread and rng.random() < 0.3,
                max_wait=60.0,
                rating=rng.gauss(0, 8) if rated else 0.0,
                player_id="",
                player_name="p",
                client_seed="",
                enqueue_time=at,
                seen_time=now,
            )
        )
    return made


def matcher(count: int, rounds: int) -> dict[str, Any]:
    """Rounds a second over ``count`` tickets, spread and in one pool (the reference)."""
    rng = random.Random(26)
    figures: dict[str, Any] = {}
    for name, spread in (("one_pool", False), ("spread", True)):
        now = time.time()
        waiting = tickets(count, spread=spread, now=now, rng=rng)
        started = time.perf_counter()
        formed = 0
        for _ in range(rounds):
            formed = len(form_matches(waiting, now, lambda g, p, r: bot_for(g, r)))
        elapsed = (time.perf_counter() - started) / rounds
        figures[name] = {
            "round_ms": round(elapsed * 1000, 2),
            "matches_per_round": formed,
            "matches_per_s": round(formed / elapsed),
        }
        print(f"matcher, {name}: a round over {count} tickets {elapsed * 1000:.1f} ms, {formed} matches")
    figures["spread_round_ratio"] = round(figures["spread"]["round_ms"] / figures["one_pool"]["round_ms"], 2)
    return figures


@contextmanager
def servers(workdir: Path, db: str, count: int) -> Iterator[list[str]]:
    """``count`` server processes on ``db`` (cluster nodes for a PostgreSQL URL); their addresses."""
    with ExitStack() as stack:
        addresses = []
        for n in range(count):
            port = free_port()
            argv = [*server_argv(port, db), "--max-tables", "0"]
            if db.startswith("postgresql://"):
                argv += ["--node-id", f"n{n}", "--advertise-address", f"{HOST}:{port}"]
            log = workdir / f"server-{n}-{Path(db).name[:12]}.log"
            process = start(argv, log, quotas=False)
            stack.callback(stop, process)
            wait_for_port(port, process, log, timeout=60)
            addresses.append(f"{HOST}:{port}")
        yield addresses


async def seat_everyone(addresses: Sequence[str], count: int) -> dict[str, Any]:
    """``count`` players ask at once, spread over the nodes and the pools (every pool fills up)."""
    routes = [Route(address) for address in addresses]
    plan = [POOLS[i % len(POOLS)] for i in range(count)]
    asked = time.perf_counter()
    waits: list[float] = []

    async def one(i: int) -> str:
        game, players, preset = plan[i]
        request = quick_play_request(game, players, preset=preset, max_wait=600)
        seated = await quick_play(routes[i % len(routes)], request)
        waits.append(time.perf_counter() - asked)
        return seated.table.table_id

    try:
        tables = await asyncio.gather(*(one(i) for i in range(count)))
    finally:
        for route in routes:
            await route.close()
    elapsed = time.perf_counter() - asked
    matches = len(set(tables))
    return {
        "players": count,
        "tables": matches,
        "seconds": round(elapsed, 2),
        "matches_per_s": round(matches / elapsed, 1),
        "wait_p50_s": round(percentile(waits, 0.5), 2),
        "wait_p99_s": round(percentile(waits, 0.99), 2),
    }


def fill(count: int) -> int:
    """The players that fill every pool's tables exactly: whole tables of each pool in turn."""
    per_cycle = len(POOLS)
    cycles = max(1, count // per_cycle)
    while any((cycles * 1) % players for _, players, _ in POOLS):  # each pool gets ``cycles`` players
        cycles += 1
    return cycles * per_cycle


def seating(workdir: Path, count: int, postgres: bool) -> dict[str, Any]:
    players = fill(count)
    runs: dict[str, Any] = {}
    cases: list[tuple[str, str, int]] = [("sqlite_1", str(workdir / "quickplay.db"), 1)]
    database = Postgres(fsync=False) if postgres else None
    try:
        if database is not None:
            database.start()
            cases += [
                ("postgres_1", database.create_database("one"), 1),
                ("postgres_2", database.create_database("two"), 2),
            ]
        for name, db, nodes in cases:
            with servers(workdir, db, nodes) as addresses:
                figures = asyncio.run(seat_everyone(addresses, players))
            runs[name] = figures
            print(
                f"seating, {name}: {players} players at {figures['tables']} tables in {figures['seconds']} s,"
                f" {figures['matches_per_s']} matches/s, wait p50 {figures['wait_p50_s']} s"
            )
    finally:
        if database is not None:
            database.remove()
    reference = runs["sqlite_1"]["matches_per_s"]
    for name in list(runs):
        runs[name]["ratio"] = round(runs[name]["matches_per_s"] / reference, 2)
    return runs


def waits(rates_per_minute: Sequence[float], players: int, rng: random.Random) -> dict[str, Any]:
    """Simulated arrivals at each rate: the wait each arriving player sees, with the real matcher."""
    figures: dict[str, Any] = {}
    tick = 0.25
    for rate in rates_per_minute:
        now, bots = 0.0, 0
        queue: list[Ticket] = []
        seen: list[float] = []
        arrivals = 0
        next_arrival = rng.expovariate(rate / 60)
        while arrivals < players or queue:
            while next_arrival <= now and arrivals < players:
                queue.append(
                    Ticket(
                        f"{arrivals:064x}",
                        "p",
                        "",
                        "thousand",
                        3,
                        b"",
                        True,
                        True,
                        60.0,
                        rng.gauss(0, 8),
                        "",
                        "p",
                        "",
                        next_arrival,
                        next_arrival,
                    )
                )
                arrivals += 1
                next_arrival += rng.expovariate(rate / 60)
            for match in form_matches(queue, now, lambda g, p, r: bot_for(g, r)):
                ids = {s.ticket_id for s in match.seats if not s.bot}
                seen += [now - t.enqueue_time for t in queue if t.ticket_id in ids]
                bots += len(ids) if match.bots else 0
                queue = [t for t in queue if t.ticket_id not in ids]
            now += tick
        figures[f"{rate:g}_per_min"] = {
            "wait_p50_s": round(statistics.median(seen), 1),
            "wait_p90_s": round(percentile(seen, 0.9), 1),
            "with_bots": round(bots / len(seen), 2),
        }
        print(
            f"wait at {rate:g} arrivals a minute: p50 {statistics.median(seen):.1f} s,"
            f" p90 {percentile(seen, 0.9):.1f} s, {bots / len(seen):.0%} seated with bots"
        )
    return figures


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--waiting", type=int, default=1000, help="players waiting (matcher, seating)")
    parser.add_argument("--rounds", type=int, default=20, help="matcher rounds timed")
    parser.add_argument("--no-postgres", action="store_true", help="seating with SQLite only")
    parser.add_argument("--rates", default="1,6,30,120", help="arrival rates a minute (wait simulation)")
    parser.add_argument("--arrivals", type=int, default=300, help="players arriving per simulated rate")
    args = parser.parse_args(argv)
    result: dict[str, Any] = {"waiting": args.waiting}
    result["matcher"] = matcher(args.waiting, args.rounds)
    with tempfile.TemporaryDirectory(prefix="bench-quickplay-") as tmp:
        result["seating"] = seating(Path(tmp), args.waiting, not args.no_postgres)
    rates = [float(r) for r in args.rates.split(",") if r]
    result["wait"] = waits(rates, args.arrivals, random.Random(26))
    print(json.dumps(result))
    return 0


if __name__ == "__main__":
    sys.exit(main())
