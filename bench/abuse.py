"""The abuse benchmark: each attack of issue 21 on a real server, before and after its limits, in one run.

Usage::

    git archive <commit before the limits> | tar -x -C /tmp/before
    python bench/abuse.py [--before /tmp/before] [--attacks unread,resume,bots,never,quota,freeze,small]
                          [--scale 1.0]

Each attack (``bench/attacks.py``) starts a game server of its own (``python -m server.app --db :memory:
--log-level warning``, its output in a log file), from the working tree ("after") and, with ``--before``,
from that source tree too ("before", the same attack with the same figures), so the two columns compare
within one run on one machine. A bystander, another process, calls ``GetTable`` every 5 ms during the
attacks that load the server and reports its latencies: the cost of the attack to everyone else. The
server's memory is its ``VmRSS``. ``--scale`` shrinks or grows every attack's size (the smoke test runs it
at 0.01).

The attacks, as the issue measured them: ``unread`` (a Play stream that sends without reading), ``resume``
(StreamEvents from sequence 0 of a long history, alone, 20 at once and 300 unread), ``bots`` (300 tables of
bots only from one client, with a person's game beside them), ``never`` (a game that never ends), ``quota``
(one client takes every table), ``freeze`` (SIGSTOP while a seat's action is in flight, with a turn clock),
``small`` (an unknown SeatKind, a 5 KB table id, a reused CreateTable request id, a 50 KB LayMelds).

Everything above the last line is for people: one line per attack and tree. The last line is one JSON
object: ``{attack: {tree: {figure: value}}}``.
"""

from __future__ import annotations

import sys
from pathlib import Path

# Run as ``python bench/abuse.py``: use the working tree's packages, not bench/ shadowing them.
_BENCH_DIR = Path(__file__).resolve().parent
sys.path[:] = [p for p in sys.path if Path(p or ".").resolve() != _BENCH_DIR]
sys.path.insert(0, str(_BENCH_DIR.parent))

import argparse  # noqa: E402
import asyncio  # noqa: E402
import json  # noqa: E402
import tempfile  # noqa: E402
import time  # noqa: E402
from typing import Any  # noqa: E402

from grpc import aio  # noqa: E402

from bench import attacks, attacks_shared, procs  # noqa: E402
from thousand.v1 import table_service_pb2 as pb  # noqa: E402
from thousand.v1 import table_service_pb2_grpc as pb_grpc  # noqa: E402


async def bystand(address: str, seconds: float) -> dict[str, float]:
    """Call GetTable every 5 ms for ``seconds``; the latencies in milliseconds."""
    latencies: list[float] = []
    async with aio.insecure_channel(address) as channel:
        stub = pb_grpc.TableServiceStub(channel)
        table_id = (await stub.CreateTable(pb.CreateTableRequest(game=pb.GAME_KIND_THOUSAND))).table.table_id
        request = pb.GetTableRequest(table_id=table_id)
        end = time.monotonic() + seconds
        while time.monotonic() < end:
            began = time.perf_counter()
            await stub.GetTable(request, timeout=60)
            latencies.append((time.perf_counter() - began) * 1000)
            await asyncio.sleep(0.005)
    return {
        "p50_ms": round(procs.percentile(latencies, 0.5), 2),
        "p99_ms": round(procs.percentile(latencies, 0.99), 2),
        "max_ms": round(max(latencies, default=0.0), 2),
        "calls": len(latencies),
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--before", help="the server's source tree before the limits (git archive of a commit)"
    )
    parser.add_argument("--attacks", default=",".join(attacks.ATTACKS), help="comma-separated attacks to run")
    parser.add_argument("--scale", type=float, default=1.0, help="every attack's size, times this")
    parser.add_argument("--bystander", help=argparse.SUPPRESS)  # internal: be the bystander of ADDRESS
    parser.add_argument("--seconds", type=float, default=0.0, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.bystander:
        print(json.dumps(asyncio.run(bystand(args.bystander, args.seconds))))
        return 0
    chosen = [name.strip() for name in args.attacks.split(",") if name.strip()]
    unknown = [name for name in chosen if name not in attacks.ATTACKS]
    if unknown:
        parser.error(f"unknown attacks {unknown}; known: {', '.join(attacks.ATTACKS)}")
    trees: list[tuple[str, str | None]] = [("before", args.before)] if args.before else []
    trees.append(("after", None))
    figures: dict[str, dict[str, Any]] = {}
    with tempfile.TemporaryDirectory(prefix="abuse-") as workdir:
        for name in chosen:
            figures[name] = {}
            for label, tree in trees:
                run = attacks_shared.Run(label, tree, Path(workdir), args.scale)
                result = asyncio.run(attacks.ATTACKS[name](run))
                figures[name][label] = result
                print(f"{name:7} {label:6} " + "  ".join(f"{k}={v}" for k, v in result.items()), flush=True)
    print(json.dumps(figures))
    return 0


if __name__ == "__main__":
    sys.exit(main())
