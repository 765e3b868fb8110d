"""The cost of a rating update (issue 26), on SQLite and on a real PostgreSQL, against a reference measured
in the same run on the same store: the same transaction with the table's record alone.

A rated table's end stores its RatingsUpdated record and its players' rows in one transaction
(:meth:`server.store.Store.transact` running :func:`server.ratings.store.update_ratings`): each player's row
made if new, read FOR UPDATE, rated with OpenSkill's Plackett-Luce, written, and each seat's before and
after kept. The reference is that transaction with the record only (what storing the event alone costs), so
``ratio`` is what rating adds to it; the model's own computation (``model_us``) is timed alone too. Players
are drawn from a population (``--players-pool``) at random, three a table by default.

    python bench/ratings.py [--updates 300] [--seats 3] [--players-pool 200] [--skip-postgres]

Prints a line per store and, last, one JSON object of the figures.
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
from collections.abc import Callable
from pathlib import Path
from typing import Any

# Run as ``python bench/ratings.py``, Python puts bench/ first on sys.path: the repository goes first instead.
_BENCH_DIR = Path(__file__).resolve().parent
sys.path[:] = [p for p in sys.path if Path(p or ".").resolve() != _BENCH_DIR]
sys.path.insert(0, str(_BENCH_DIR.parent))

from scripts.postgres import Postgres  # noqa: E402
from server.ratings.model import Pool, RatingValue, rate  # noqa: E402
from server.ratings.store import update_ratings  # noqa: E402
from server.store import Record, Sql, Store, TableConfig  # noqa: E402
from server.store_pg import PostgresStore  # noqa: E402
from server.store_sqlite import SqliteStore  # noqa: E402

CONFIG = TableConfig(rules=b"", seats=[(False, "")] * 3, seed=1, first_dealer=0, rated=True)


def timed(
    store: Store, tables: list[str], work: Callable[[str], Callable[[Sql], list[Record]]]
) -> list[float]:
    """Seconds of each table's transaction."""
    seconds = []
    for table_id in tables:
        started = time.perf_counter()
        store.transact(table_id, work(table_id))
        seconds.append(time.perf_counter() - started)
    return seconds


def measure(
    store: Store, label: str, *, updates: int, seats: int, population: int, rng: random.Random
) -> dict[str, Any]:
    """Alternate the reference and the update, table by table, so that both see the same store state."""
    pool = Pool("thousand", seats)
    ids = [f"player-{n:05d}" for n in range(population)]
    tables = [f"{label}-{n}" for n in range(2 * updates)]
    for table_id in tables:
        asyncio.run(store.create_table(table_id, 0, 0.0, CONFIG))
    record = Record("rating", -1, "", b"x" * 200)  # about a RatingsUpdated of three seats

    def alone(_table_id: str) -> Callable[[Sql], list[Record]]:
        return lambda _sql: [record]

    def rated(table_id: str) -> Callable[[Sql], list[Record]]:
        players = rng.sample(ids, seats)
        ranks = list(range(1, seats + 1))

        def work(sql: Sql) -> list[Record]:
            update_ratings(sql, table_id, pool, players, ranks, now=time.time())
            return [record]

        return work

    reference: list[float] = []
    update: list[float] = []
    for start in range(0, len(tables), 20):  # interleaved in blocks: drift affects both alike
        block = tables[start : start + 20]
        reference += timed(store, block[:10], alone)
        update += timed(store, block[10:], rated)
    ref_ms = statistics.median(reference) * 1000
    upd_ms = statistics.median(update) * 1000
    p99 = sorted(update)[int(0.99 * (len(update) - 1))] * 1000
    print(
        f"{label}: rating update {upd_ms:.3f} ms (p99 {p99:.3f} ms), the record alone {ref_ms:.3f} ms:"
        f" ratio {upd_ms / ref_ms:.2f}",
        flush=True,
    )
    return {"update_ms": upd_ms, "update_p99_ms": p99, "reference_ms": ref_ms, "ratio": upd_ms / ref_ms}


def model_cost(seats: int, repeats: int = 2000) -> float:
    """Microseconds of the model's computation alone (rate() of one table), the median of blocks of 100."""
    before = [RatingValue(25 + n, 8 - n / 10, n) for n in range(seats)]
    ranks = list(range(1, seats + 1))
    blocks = []
    for _ in range(repeats // 100):
        started = time.perf_counter()
        for _ in range(100):
            rate(before, ranks)
        blocks.append((time.perf_counter() - started) / 100)
    return statistics.median(blocks) * 1e6


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--updates", type=int, default=300, help="rating updates measured per store")
    parser.add_argument("--seats", type=int, default=3, help="players a table")
    parser.add_argument("--players-pool", type=int, default=200, help="players the tables are drawn from")
    parser.add_argument("--skip-postgres", action="store_true", help="SQLite only")
    args = parser.parse_args(argv)
    rng = random.Random(1)
    figures: dict[str, Any] = {
        "updates": args.updates,
        "seats": args.seats,
        "model_us": model_cost(args.seats),
    }
    print(
        f"the model alone (PlackettLuce.rate, {args.seats} players): {figures['model_us']:.1f} µs", flush=True
    )
    with tempfile.TemporaryDirectory(prefix="thousand-bench-ratings-") as directory:
        sqlite = SqliteStore(Path(directory) / "bench.db", group_commit=False)
        figures["sqlite"] = measure(
            sqlite, "sqlite", updates=args.updates, seats=args.seats, population=args.players_pool, rng=rng
        )
        sqlite.close()
    if not args.skip_postgres:
        database = Postgres(fsync=True)
        try:
            database.start()
            pg = PostgresStore(database.create_database("ratings"), node_id="bench")
            figures["postgres"] = measure(
                pg, "postgres", updates=args.updates, seats=args.seats, population=args.players_pool, rng=rng
            )
            pg.close()
        finally:
            database.remove()
    print(json.dumps(figures))


if __name__ == "__main__":
    main()
