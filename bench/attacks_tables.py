"""The attacks on tables: ``bots`` (hundreds of tables of bots only from one client, beside a person's
game), ``never`` (games that never end) and ``quota`` (one client takes every table)."""

from __future__ import annotations

import asyncio
import socket
import time

from grpc import aio

from bench.attacks_shared import OPEN, TOKEN, Figures, Run, Served, bot, reason_of, seated, while_bystanding
from thousand.v1 import blagogo_rules_pb2 as bg_rules
from thousand.v1 import table_service_pb2 as pb
from thousand.v1 import table_service_pb2_grpc as pb_grpc

# -------------------------------------------------------------------------------------------------- 3 bots


async def person_decisions(stub: pb_grpc.TableServiceAsyncStub, seconds: float) -> float:
    """Decisions per second of a person (scripted: the first legal action) playing two greedy bots."""
    request = pb.CreateTableRequest(game=pb.GAME_KIND_THOUSAND, seats=[OPEN, bot("greedy"), bot("greedy")])
    table_id, (token,) = await seated(stub, request)
    metadata = ((TOKEN, token),)
    decisions = 0
    ends = time.monotonic() + seconds
    stream = stub.StreamEvents(pb.StreamEventsRequest(table_id=table_id), metadata=metadata)
    async for message in stream:
        if time.monotonic() >= ends:
            break
        turn = message.turn
        if turn.HasField("seat") and turn.seat == 0 and turn.legal_actions:
            last = message.sequence + len(message.more_events)
            try:
                await stub.SubmitAction(
                    pb.SubmitActionRequest(
                        table_id=table_id,
                        request_id=f"p{decisions}",
                        last_seen_sequence=last,
                        action=turn.legal_actions[0],
                    ),
                    metadata=metadata,
                )
                decisions += 1
            except aio.AioRpcError:
                pass
        if message.event.HasField("thousand") and message.event.thousand.HasField("game_over"):
            break
    stream.cancel()
    return round(decisions / seconds, 1)


async def bot_tables(run: Run, served: Served) -> Figures:
    async with served.channel() as channel:
        stub = pb_grpc.TableServiceStub(channel)
        before = served.rss_mb()
        baseline, calm = await while_bystanding(served, 3.0, person_decisions(stub, 2.5))
        request = pb.CreateTableRequest(game=pb.GAME_KIND_THOUSAND, seats=[bot("random")] * 3)
        wanted = run.sized(300, least=4)
        refused: dict[str, int] = {}
        began = time.perf_counter()

        async def create() -> None:
            try:
                await stub.CreateTable(request)
            except aio.AioRpcError as error:
                refused[reason_of(error)] = refused.get(reason_of(error), 0) + 1

        await asyncio.gather(*(create() for _ in range(wanted)))
        created_s = time.perf_counter() - began
        loaded, busy = await while_bystanding(served, 5.0, person_decisions(stub, 4.5))
        return {
            "asked": wanted,
            "created": wanted - sum(refused.values()),
            "refused": refused or 0,
            "create_s": round(created_s, 2),
            "bystander_p50_ms": f"{baseline['p50_ms']} -> {loaded['p50_ms']}",
            "bystander_p99_ms": f"{baseline['p99_ms']} -> {loaded['p99_ms']}",
            "person_decisions_per_s": f"{calm} -> {busy}",
            "rss_growth_mb": round(served.rss_mb() - before, 1),
        }


async def bots(run: Run) -> Figures:
    """Issue: 300 tables of three bots from one client: bystander p50 2.6 -> 96 ms, a person's game three
    times slower, RSS 61 -> 184 MB. After: the default quotas, then the quotas lifted (pacing alone)."""
    async with run.server() as served:
        figures = await bot_tables(run, served)
    if not run.after:
        return figures
    lifted = ["--max-bot-tables", "0", "--max-bot-tables-per-client", "0", "--max-tables-per-client", "0"]
    async with run.server(after_flags=lifted) as served:
        unlimited = await bot_tables(run, served)
    return {**figures, **{f"no_quota_{k}": v for k, v in unlimited.items()}}


# ------------------------------------------------------------------------------------------------- 4 never


async def never(run: Run) -> Figures:
    """Issue: a Blagogo table of 8 random bots with target 2147483647 was accepted and played for ever;
    tables of bots that cannot finish (three random Thousand bots rarely do) played on without end."""
    moves = run.sized(20_000, least=300)
    flags = ["--bot-table-max-moves", str(moves)]
    async with run.server(after_flags=flags) as served, served.channel() as channel:
        stub = pb_grpc.TableServiceStub(channel)
        rules = pb.Rules(blagogo=bg_rules.BlagogoRules(players=8, target=2**31 - 1))
        huge = pb.CreateTableRequest(game=pb.GAME_KIND_BLAGOGO, rules=rules, seats=[bot("random")] * 8)
        try:
            await stub.CreateTable(huge)
            target = "accepted"
        except aio.AioRpcError as error:
            target = reason_of(error)
        request = pb.CreateTableRequest(game=pb.GAME_KIND_THOUSAND, seats=[bot("random")] * 3, seed=11)
        table_id = (await stub.CreateTable(request)).table.table_id
        began = time.monotonic()
        limit = run.seconds(60, least=20)
        while time.monotonic() - began < limit:
            table = (await stub.GetTable(pb.GetTableRequest(table_id=table_id))).table
            if table.status == pb.TABLE_STATUS_FINISHED:
                break
            await asyncio.sleep(0.25)
        status = pb.TableStatus.Name(table.status)
        return {
            "huge_target": target,
            "random_bots_table": status,
            "after_s": round(time.monotonic() - began, 1),
            "events": table.sequence,
        }


# ------------------------------------------------------------------------------------------------- 5 quota


def ipv6_loopback() -> bool:
    try:
        with socket.socket(socket.AF_INET6, socket.SOCK_STREAM) as probe:
            probe.bind(("::1", 0))
    except OSError:
        return False
    return True


async def quota(run: Run) -> Figures:
    """Issue: one client created 10,000 waiting tables in 67 s; every other client got TOO_MANY_TABLES. Here
    the server holds at most 2,000 tables (scaled) and listens on 127.0.0.1 and ::1: two clients."""
    total = run.sized(2000, least=120)
    if not ipv6_loopback():
        return {"skipped": "no IPv6 loopback here: the second client needs another address"}
    async with (
        run.server("--max-tables", str(total), "--host", "localhost") as served,
        served.channel() as channel,
        served.channel(address=f"[::1]:{served.port}") as other,
    ):
        stub = pb_grpc.TableServiceStub(channel)
        before = served.rss_mb()
        created = 0
        refusal = "none"
        began = time.perf_counter()
        limit = asyncio.Semaphore(16)

        async def create() -> bool:
            nonlocal created, refusal
            async with limit:
                try:
                    await stub.CreateTable(pb.CreateTableRequest(game=pb.GAME_KIND_THOUSAND))
                    created += 1
                    return True
                except aio.AioRpcError as error:
                    refusal = reason_of(error)
                    return False

        for _ in range(0, total + 16, 64):
            if not all(await asyncio.gather(*(create() for _ in range(64)))):
                break
        seconds = time.perf_counter() - began
        try:
            await pb_grpc.TableServiceStub(other).CreateTable(
                pb.CreateTableRequest(game=pb.GAME_KIND_THOUSAND)
            )
            second = "created"
        except aio.AioRpcError as error:
            second = reason_of(error)
        return {
            "server_max_tables": total,
            "first_client_created": created,
            "first_client_refused_with": refusal,
            "seconds": round(seconds, 2),
            "other_client": second,
            "rss_growth_mb": round(served.rss_mb() - before, 1),
        }
