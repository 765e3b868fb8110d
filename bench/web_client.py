"""The web client's benchmark: its size, and the time from opening a page to a table's first view.

Usage::

    python bench/web_client.py [--runs 5]

It builds the client (``make web``), then prints the size of each built file, raw and gzipped (level 9, as a
server or CDN would send it; the budget is 150 KB in all), and starts the game server on 127.0.0.1 with its
web port, as an operator would (``python -m server.app --web-port N --db :memory:``). Over gRPC it prepares
three tables: a Thousand table whose open seat it joins (two greedy bots, fair deals), a 1000 Blagogo table
likewise, and a finished Thousand game of three bots, seeded so that its length is the same every run (a long
history: the page replays all of it, since a fresh page reads a table from its first event). Then Chromium
(Debian's, driven by playwright-core: ``clients/web/bench/first-view.ts``) opens each page ``--runs`` times in
a fresh context (empty cache and storage): the seat's page (its token put in localStorage first, as after a
JoinTable), the spectator's page of the finished game, and the lobby. Each run reports the moment, from the
navigation's start, at which the table's board first shows cards (the lobby: its table list), and as the
reference in the same run the page's own load event (the static files alone, no call to the TableService). The
last line printed is one JSON object with the figures; ``first_view_ms`` is the median of the runs, ``ratio``
the first view over the load event (what the TableService's calls and the rendering add to the page's own
load).
"""

from __future__ import annotations

import sys
from pathlib import Path

_BENCH_DIR = Path(__file__).resolve().parent
sys.path[:] = [p for p in sys.path if Path(p or ".").resolve() != _BENCH_DIR]
sys.path.insert(0, str(_BENCH_DIR.parent))

import argparse  # noqa: E402
import asyncio  # noqa: E402
import gzip  # noqa: E402
import json  # noqa: E402
import secrets  # noqa: E402
import shutil  # noqa: E402
import statistics  # noqa: E402
import subprocess  # noqa: E402
import tempfile  # noqa: E402
from typing import Any, Final  # noqa: E402

from grpc import aio  # noqa: E402

from bench import procs  # noqa: E402
from scripts.ports import free_port  # noqa: E402
from thousand.v1 import blagogo_rules_pb2  # noqa: E402
from thousand.v1 import table_service_pb2 as pb  # noqa: E402
from thousand.v1 import table_service_pb2_grpc as pb_grpc  # noqa: E402

WEB: Final = procs.ROOT / "clients" / "web"
CHROMIUM: Final = "/usr/bin/chromium"
BUDGET_KB: Final = 150.0
TARGET_MS: Final = 1000.0


def build() -> None:
    subprocess.run(["make", "-s", "web"], cwd=procs.ROOT, check=True)


def sizes() -> dict[str, dict[str, int]]:
    return {
        p.name: {"bytes": p.stat().st_size, "gzip": len(gzip.compress(p.read_bytes(), 9))}
        for p in sorted((WEB / "dist").iterdir())
        if p.is_file()
    }


async def tables(grpc_port: int) -> dict[str, Any]:
    """The bench's tables: two seats to open, and a finished game to watch."""
    async with aio.insecure_channel(f"{procs.HOST}:{grpc_port}") as channel:
        stub: pb_grpc.TableServiceAsyncStub = pb_grpc.TableServiceStub(channel)
        bots = [pb.SeatConfig(kind=pb.SEAT_KIND_BOT, strategy="greedy")] * 2
        open_seat = pb.SeatConfig(kind=pb.SEAT_KIND_OPEN)

        async def seated(request: pb.CreateTableRequest) -> dict[str, Any]:
            table = (await stub.CreateTable(request)).table
            token = secrets.token_urlsafe(32)
            joined = await stub.JoinTable(
                pb.JoinTableRequest(table_id=table.table_id, player_name="bench", seat_token=token)
            )
            return {"tableId": table.table_id, "seat": joined.seat, "token": token}

        thousand = await seated(pb.CreateTableRequest(game=pb.GAME_KIND_THOUSAND, seats=[open_seat, *bots]))
        blagogo_rules = pb.Rules(blagogo=blagogo_rules_pb2.BlagogoRules(players=2))
        blagogo = await seated(
            pb.CreateTableRequest(
                game=pb.GAME_KIND_BLAGOGO,
                rules=blagogo_rules,
                seats=[open_seat, pb.SeatConfig(kind=pb.SEAT_KIND_BOT, strategy="random")],
            )
        )
        finished = (
            await stub.CreateTable(
                pb.CreateTableRequest(
                    game=pb.GAME_KIND_THOUSAND,
                    seed=1,
                    seats=[*bots, pb.SeatConfig(kind=pb.SEAT_KIND_BOT, strategy="random")],
                )
            )
        ).table
        for _ in range(600):
            table = (await stub.GetTable(pb.GetTableRequest(table_id=finished.table_id))).table
            if table.status == pb.TABLE_STATUS_FINISHED:
                break
            await asyncio.sleep(0.05)
        return {
            "thousand": thousand,
            "blagogo": blagogo,
            "finished": table.table_id,
            "events": table.sequence,
        }


HAND: Final = ".board .hand .card"
"""A seat's first view: the board with the hand's cards."""


def page(name: str, table_id: str, seat: dict[str, Any] | None, ready: str) -> dict[str, Any]:
    spec: dict[str, Any] = {"name": name, "hash": f"#/table/{table_id}", "ready": ready}
    if seat is not None:
        spec["seat"] = seat
    return spec


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args()
    node = shutil.which("node")
    if node is None or not Path(CHROMIUM).exists():
        raise SystemExit(f"needs node and Chromium at {CHROMIUM} (make web; make system)")
    build()
    size = sizes()
    total = sum(f["gzip"] for f in size.values())
    for name, f in size.items():
        print(f"{name:12} {f['bytes'] / 1024:8.1f} KB  gzip {f['gzip'] / 1024:7.1f} KB")
    print(f"{'total':12} {'':8}     gzip {total / 1024:7.1f} KB   (budget {BUDGET_KB:.0f} KB)")

    grpc_port, web_port = free_port(), free_port()
    with tempfile.TemporaryDirectory() as tmp:
        log = Path(tmp) / "server.log"
        server = procs.start([*procs.server_argv(grpc_port), "--web-port", str(web_port)], log)
        try:
            procs.wait_for_port(grpc_port, server, log)
            procs.wait_for_port(web_port, server, log)
            made = asyncio.run(tables(grpc_port))
            spec = {
                "url": f"http://{procs.HOST}:{web_port}",
                "chromium": CHROMIUM,
                "runs": args.runs,
                "pages": [
                    page("thousand_seat", made["thousand"]["tableId"], made["thousand"], HAND),
                    page("blagogo_seat", made["blagogo"]["tableId"], made["blagogo"], HAND),
                    page("finished_game_spectator", made["finished"], None, ".board .standings"),
                    {"name": "lobby", "hash": "#/", "ready": ".table-list tbody tr[data-table]"},
                ],
            }
            done = subprocess.run(
                [node, str(WEB / "build" / "bench" / "first-view.mjs"), json.dumps(spec)],
                cwd=WEB,
                capture_output=True,
                text=True,
                timeout=600,
                check=True,
            )
        finally:
            procs.stop(server)
    measured: dict[str, dict[str, list[int]]] = json.loads(done.stdout.strip().splitlines()[-1])
    figures: dict[str, Any] = {"gzip_kb": round(total / 1024, 1), "budget_kb": BUDGET_KB, "pages": {}}
    print(
        f"\nfrom opening the page to the first view, {args.runs} runs each"
        f" (the finished game: {made['events']} events)"
    )
    for name, runs in measured.items():
        first, load = statistics.median(runs["first_view_ms"]), statistics.median(runs["load_ms"])
        figures["pages"][name] = {
            "first_view_ms": first,
            "max_ms": max(runs["first_view_ms"]),
            "load_ms": load,
            "ratio": round(first / load, 2) if load else None,
        }
        print(
            f"{name:26} first view {first:6.0f} ms (max {max(runs['first_view_ms']):4d})   "
            f"page load {load:5.0f} ms   ratio {first / load if load else 0:4.2f}"
            f"   target < {TARGET_MS:.0f} ms"
        )
    print(json.dumps(figures))


if __name__ == "__main__":
    main()
