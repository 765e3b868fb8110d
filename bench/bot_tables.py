"""What tables played by bots only cost in CPU per event, in process: no gRPC, no watcher, no store.

Usage::

    python bench/bot_tables.py [--tables 10] [--strategy greedy] [--server-tree DIR] [--rounds 1]

It builds the server's registry in this process (``--server-tree``: another source tree's, to compare two
commits in one run), creates ``--tables`` seeded tables of three server-run bots, lets their bots play every
game to the end on one event loop (their moves paced as the server paces them, ``server.pacing``), and
divides the process's CPU time by the events the tables logged. The seeds are fixed, so two trees whose
bots play alike log the same events and the figures compare the same work. The last line printed is one JSON
object.
"""

from __future__ import annotations

import sys
from pathlib import Path

_BENCH_DIR = Path(__file__).resolve().parent
sys.path[:] = [p for p in sys.path if Path(p or ".").resolve() != _BENCH_DIR]


def _tree(argv: list[str]) -> Path:
    """The source tree to measure: ``--server-tree DIR``, else this one."""
    if "--server-tree" in argv:
        return Path(argv[argv.index("--server-tree") + 1]).resolve()
    return _BENCH_DIR.parent


sys.path.insert(0, str(_tree(sys.argv)))

import argparse  # noqa: E402
import asyncio  # noqa: E402
import gc  # noqa: E402
import json  # noqa: E402
import time  # noqa: E402
from typing import Any  # noqa: E402


async def _play(tables: int, strategy: str) -> tuple[int, float, int]:
    """Events logged, CPU seconds spent and games finished by ``tables`` bot tables played to the end."""
    import engine  # noqa: PLC0415  # from the tree measured, which sys.path names above
    from server.creations import SeatSpec  # noqa: PLC0415
    from server.registry import Registry  # noqa: PLC0415

    registry = Registry()
    made: list[Any] = []
    for index in range(tables):
        seats = [SeatSpec(bot=True, strategy=strategy) for _ in range(3)]
        made.append(await registry.create(engine.Rules(players=3), seats, 1000 + index, 0))
    gc.collect()
    started = time.process_time()
    for table in made:
        table.ensure_bots_running()
    while any(not table.finished for table in made):
        await asyncio.sleep(0.01)
    spent = time.process_time() - started
    finished = sum(1 for table in made if table.game.is_over)
    return sum(table.sequence for table in made), spent, finished


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--tables", type=int, default=10)
    parser.add_argument("--strategy", default="greedy")
    parser.add_argument("--rounds", type=int, default=1, help="repeat the whole run, report the best")
    parser.add_argument("--server-tree", help="the source tree to measure (default: this one)")
    args = parser.parse_args()
    best: tuple[int, float, int] | None = None
    for _ in range(args.rounds):
        result = asyncio.run(_play(args.tables, args.strategy))
        per = result[1] / result[0] * 1e6
        print(f"{result[0]:,} events, {result[1]:.2f} s CPU, {per:.1f} us per event, {result[2]} games over")
        if best is None or result[1] / result[0] < best[1] / best[0]:
            best = result
    assert best is not None
    events, spent, finished = best
    print(
        json.dumps(
            {
                "tree": str(_tree(sys.argv)),
                "tables": args.tables,
                "events": events,
                "cpu_s": round(spent, 3),
                "us_per_event": round(spent / events * 1e6, 1),
                "games_over": finished,
            }
        )
    )


if __name__ == "__main__":
    main()
