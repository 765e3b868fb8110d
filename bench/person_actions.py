"""What a person's action costs the server in CPU, in process: the table's own path without gRPC.

Usage::

    python bench/person_actions.py [--tables 20] [--actions 15000] [--rounds 3] [--server-tree DIR]
    python bench/person_actions.py --against DIR [--rounds 3]   # this tree and DIR, alternating, one run

It builds the server's registry and service in this process, on an in-memory SQLite store (the store's real
path: every action is one commit), creates ``--tables`` seeded tables of three open seats, joins every seat
and opens each seat's batched stream (as a Play stream is), with a task per stream taking its messages as
gRPC would. It then plays ``--actions`` actions through :meth:`TableService.act` (the handler Play and
SubmitAction share: decoding, the seat, the lock, deciding, storing, applying, rendering the Turn and events
for every stream), each table's acting seat choosing one of its Turn's actions by a seeded draw, and divides
the process's CPU time by the actions. The seeds are fixed, so two trees whose tables play alike do the same
work. What gRPC adds on top of this (a message in, three out) is what ``bench/server.py`` measures.

``--against DIR`` runs this tree and DIR (``git archive <commit> | tar -x -C DIR``) in fresh interpreters,
alternating (ABBA) ``--rounds`` times, and prints each tree's best and the ratio of this tree's CPU per
action to DIR's: the reference measured in the same run. The last line printed is one JSON object.
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
import random  # noqa: E402
import subprocess  # noqa: E402
import time  # noqa: E402
from typing import Any  # noqa: E402


async def _drain(responses: Any) -> None:
    """Take a stream's messages as gRPC would, until it ends."""
    async for _ in responses:
        pass


async def _play(tables: int, actions: int, seed: int) -> tuple[int, float]:
    """Actions applied and CPU seconds spent playing them on ``tables`` tables of three people."""
    import engine  # noqa: PLC0415  # from the tree measured, which sys.path names above
    from server.creations import SeatSpec  # noqa: PLC0415
    from server.registry import Registry  # noqa: PLC0415
    from server.service import TableService  # noqa: PLC0415
    from server.store_select import open_store  # noqa: PLC0415
    from server.streams import Subscriber  # noqa: PLC0415

    registry = Registry(open_store(":memory:"))
    service = TableService(registry)
    rng = random.Random(seed)
    played: list[tuple[Any, list[str]]] = []
    readers: list[asyncio.Task[None]] = []
    for index in range(tables):
        seats = [SeatSpec(bot=False) for _ in range(3)]
        table = await registry.create(engine.Rules(players=3), seats, 1000 + index, 0)
        tokens = []
        for seat in range(3):
            async with table.lock:
                _, token = await table.join(seat, f"p{seat}")
            tokens.append(token)
        for seat in range(3):
            stream = table.stream_to(Subscriber(seat, batch=True), None)
            readers.append(asyncio.create_task(_drain(stream)))
        played.append((table, tokens))
    await asyncio.sleep(0.05)
    gc.collect()
    done = 0
    started = time.process_time()
    while done < actions:
        for table, tokens in played:
            seat = table.game.to_act
            if seat is None or table.finished:
                continue
            action = rng.choice(table.adapter.turn_actions(table.game, seat))
            message = table.adapter.action_to_proto(action)
            await service.act(table, tokens[seat], f"r{done}", table.sequence, message)
            done += 1
        await asyncio.sleep(0)  # the streams take their messages
    await asyncio.sleep(0)
    spent = time.process_time() - started
    for reader in readers:
        reader.cancel()
    return done, spent


def _measure(args: argparse.Namespace) -> None:
    best: tuple[int, float] | None = None
    for _ in range(args.rounds):
        done, spent = asyncio.run(_play(args.tables, args.actions, args.seed))
        print(f"{done:,} actions, {spent:.2f} s CPU, {spent / done * 1e6:.1f} us per action", file=sys.stderr)
        if best is None or spent / done < best[1] / best[0]:
            best = (done, spent)
    assert best is not None
    done, spent = best
    print(
        json.dumps(
            {
                "tree": str(_tree(sys.argv)),
                "tables": args.tables,
                "actions": done,
                "cpu_s": round(spent, 3),
                "us_per_action": round(spent / done * 1e6, 1),
            }
        )
    )


def _against(args: argparse.Namespace) -> None:
    """This tree and ``--against``'s, alternating (ABBA), each in a fresh interpreter."""
    here = str(_BENCH_DIR.parent)
    trees = {"this": here, "reference": str(Path(args.against).resolve())}
    figures: dict[str, list[float]] = {"this": [], "reference": []}
    order = ["this", "reference", "reference", "this"]
    for index in range(args.rounds * 2):
        name = order[index % 4]
        argv = [sys.executable, __file__, "--server-tree", trees[name], "--rounds", "1"]
        argv += ["--tables", str(args.tables), "--actions", str(args.actions), "--seed", str(args.seed)]
        out = subprocess.run(argv, check=True, capture_output=True, text=True).stdout
        figure = json.loads(out.strip().splitlines()[-1])["us_per_action"]
        figures[name].append(figure)
        print(f"{name:9} {figure:7.1f} us per action", file=sys.stderr)
    this, reference = min(figures["this"]), min(figures["reference"])
    print(f"best: this {this:.1f} us, reference {reference:.1f} us, ratio {this / reference:.3f}")
    print(
        json.dumps(
            {
                "tree": here,
                "reference": trees["reference"],
                "us_per_action": this,
                "reference_us_per_action": reference,
                "ratio": round(this / reference, 3),
                "all": figures,
            }
        )
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--tables", type=int, default=20)
    parser.add_argument("--actions", type=int, default=15000)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--rounds", type=int, default=3, help="repeat the whole run, report the best")
    parser.add_argument("--server-tree", help="the source tree to measure (default: this one)")
    parser.add_argument("--against", help="a reference tree, measured alternately with this one")
    args = parser.parse_args()
    if args.against:
        _against(args)
    else:
        _measure(args)


if __name__ == "__main__":
    main()
