"""A client process of the server benchmark (``bench/server.py --role client``).

It opens its share of the tables (:mod:`bench.server_tables`) and of the floors' callers
(:mod:`bench.server_floors`), says it is ready, and then runs one side at a time when the controller says so:
each command on stdin names a side and a slice of the monotonic clock every process shares, and each answer
on stdout is one JSON line with the latencies and errors of that slice.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
import time
from typing import Any, Final

from bench.server_floors import FanoutTable, echo_caller, echo_payload
from bench.server_shared import DRAIN_SECONDS, ClientShared, Window
from bench.server_tables import GameTable

SETUP_CONCURRENCY: Final = 32
"""Tables a client opens at once."""


async def run_client(args: argparse.Namespace) -> None:
    shared = ClientShared(args)
    loop = asyncio.get_running_loop()
    began = time.perf_counter()
    tables = [GameTable(shared, i) for i in range(args.tables)]
    limit = asyncio.Semaphore(SETUP_CONCURRENCY)

    async def open_one(table: GameTable) -> None:
        async with limit:
            await table.open()

    await asyncio.gather(*(open_one(t) for t in tables))
    actors = [asyncio.create_task(t.play()) for t in tables]
    payload = echo_payload()
    callers = [asyncio.create_task(echo_caller(shared, payload)) for _ in range(args.tables)]
    fanouts = [FanoutTable(shared, i) for i in range(args.tables if args.fanout else 0)]
    for fanout in fanouts:
        fanout.open()
    callers += [asyncio.create_task(f.play()) for f in fanouts]
    _reply({"ready": True, "tables": len(tables), "setup_s": round(time.perf_counter() - began, 3)})
    try:
        for _ in range(10_000):
            line = await loop.run_in_executor(None, sys.stdin.readline)
            if not line or time.monotonic() >= shared.deadline:
                break
            command = json.loads(line)
            if command["cmd"] == "quit":
                break
            _reply(await _slice(shared, command["side"], command["start"], command["end"]))
    finally:
        for task in [*actors, *callers]:
            task.cancel()
        readers = [r for t in tables for r in t.readers] + [r for f in fanouts for r in f.readers]
        for reader in readers:
            reader.cancel()
        await asyncio.gather(*actors, *callers, *readers, return_exceptions=True)
        await shared.close()


async def _slice(shared: ClientShared, side: str, start: float, end: float) -> dict[str, Any]:
    """Run ``side`` from ``start`` to ``end`` (the monotonic clock every process shares), then drain it."""
    window = Window(start=time.perf_counter() + (start - time.monotonic()))
    window.end = window.start + (end - start)
    shared.window = window
    replaced = shared.replaced
    await asyncio.sleep(max(0.0, start - time.monotonic()))
    shared.running[side].set()
    await asyncio.sleep(max(0.0, end - time.monotonic()))
    shared.running[side].clear()
    drain_deadline = time.monotonic() + DRAIN_SECONDS
    for _ in range(int(DRAIN_SECONDS / 0.01)):
        if shared.in_flight[side] <= 0 or time.monotonic() >= drain_deadline:
            break
        await asyncio.sleep(0.01)
    return {
        "side": side,
        "latencies_ms": [round(s * 1000, 3) for s in window.latencies],
        "messages": window.messages,
        "errors": dict(window.errors),
        "replaced": shared.replaced - replaced,
        "undrained": shared.in_flight[side],
    }


def _reply(message: dict[str, Any]) -> None:
    sys.stdout.write(json.dumps(message) + "\n")
    sys.stdout.flush()
