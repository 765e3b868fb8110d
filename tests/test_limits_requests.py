"""Issue 21, items 5 and 7: one client cannot take every table, and small hostile requests get clear,
bounded refusals. Each test attacks a real in-process server over the contract.

Two clients on one machine: one calls over TCP on 127.0.0.1, the other over a Unix socket the same server
listens on, so the server sees two different peers.
"""

from __future__ import annotations

import asyncio
import logging
import os
import tempfile
import time
from collections.abc import AsyncIterator, Awaitable
from contextlib import asynccontextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import grpc
import pytest
from grpc import aio

from scripts.ports import free_port
from server.app import Server
from server.settings import Settings, parse_settings
from tests.server_harness import expect_error, run, thousand_table, token_md
from tests.test_ops_metrics import Scrape, scrape
from thousand.v1 import blagogo_actions_pb2 as bg_pb
from thousand.v1 import blagogo_cards_pb2 as bg_cards
from thousand.v1 import cards_pb2
from thousand.v1 import table_service_pb2 as pb
from thousand.v1 import table_service_pb2_grpc as pb_grpc


@dataclass
class TwoClients:
    server: Server
    tcp: pb_grpc.TableServiceAsyncStub
    """Calls from 127.0.0.1."""
    unix: pb_grpc.TableServiceAsyncStub
    """Calls over a Unix socket: another client."""

    async def metrics(self) -> Scrape:
        return await scrape(self.server)


@asynccontextmanager
async def two_clients(db: str = ":memory:", **settings: Any) -> AsyncIterator[TwoClients]:
    server = Server(Settings(host="127.0.0.1", port=0, db=db, metrics_port=free_port(), **settings))
    directory = tempfile.mkdtemp(prefix="i21-")  # a short path: a socket's path has at most 107 bytes
    socket_path = os.path.join(directory, "s")
    server.grpc.add_insecure_port(f"unix:{socket_path}")
    await server.start()
    try:
        async with (
            aio.insecure_channel(f"127.0.0.1:{server.port}") as tcp,
            aio.insecure_channel(f"unix:{socket_path}") as unix,
        ):
            yield TwoClients(server, pb_grpc.TableServiceStub(tcp), pb_grpc.TableServiceStub(unix))
    finally:
        await server.stop(grace=0.2)
        Path(socket_path).unlink(missing_ok=True)
        os.rmdir(directory)


def bots_only() -> pb.CreateTableRequest:
    return thousand_table(3, bots=3)


# ------------------------------------------------------------------------------------------ item 5: quotas


def test_one_client_cannot_take_every_table_slot() -> None:
    """Before: one client created 10,000 waiting tables and every other client got TOO_MANY_TABLES. Now a
    client holds at most its share; another client still creates tables until the server's total."""

    async def scenario() -> None:
        async with two_clients(max_tables=5, max_tables_per_client=3) as c:
            for _ in range(3):
                await c.tcp.CreateTable(thousand_table())
            info = await expect_error(
                c.tcp.CreateTable(thousand_table()), "TOO_MANY_TABLES", grpc.StatusCode.RESOURCE_EXHAUSTED
            )
            assert dict(info.metadata) == {"limit": "tables_per_client", "max": "3"}
            for _ in range(2):
                await c.unix.CreateTable(thousand_table())  # the other client is not refused
            info = await expect_error(
                c.unix.CreateTable(thousand_table()), "TOO_MANY_TABLES", grpc.StatusCode.RESOURCE_EXHAUSTED
            )
            assert dict(info.metadata) == {"limit": "tables", "max": "5"}
            metrics = await c.metrics()
            assert metrics.value("thousand_limit_refusals_total", limit="tables_per_client") == 1
            assert metrics.value("thousand_limit_refusals_total", limit="tables") == 1

    run(scenario())


def test_bot_only_tables_are_limited_per_client_and_in_total() -> None:
    async def scenario() -> None:
        async with two_clients(max_bot_tables=3, max_bot_tables_per_client=2) as c:
            for _ in range(2):
                await c.tcp.CreateTable(bots_only())
            info = await expect_error(
                c.tcp.CreateTable(bots_only()), "TOO_MANY_TABLES", grpc.StatusCode.RESOURCE_EXHAUSTED
            )
            assert dict(info.metadata) == {"limit": "bot_tables_per_client", "max": "2"}
            await c.tcp.CreateTable(thousand_table(3, bots=2))  # a table a person joins is not of bots only
            await c.unix.CreateTable(bots_only())
            info = await expect_error(
                c.unix.CreateTable(bots_only()), "TOO_MANY_TABLES", grpc.StatusCode.RESOURCE_EXHAUSTED
            )
            assert dict(info.metadata) == {"limit": "bot_tables", "max": "3"}

    run(scenario())


def test_waiting_tables_expire_much_sooner_and_free_the_clients_share() -> None:
    """A table nobody joins leaves after --waiting-table-idle-seconds, not the day a played one may idle."""

    async def scenario() -> None:
        async with two_clients(
            table_idle_seconds=3600, waiting_table_idle_seconds=0.3, max_tables_per_client=2
        ) as c:
            waiting = (await c.tcp.CreateTable(thousand_table())).table.table_id
            playing = (await c.tcp.CreateTable(thousand_table(3, bots=2))).table.table_id
            await c.tcp.JoinTable(pb.JoinTableRequest(table_id=playing))  # starts; waits for the person
            await expect_error(
                c.tcp.CreateTable(thousand_table()), "TOO_MANY_TABLES", grpc.StatusCode.RESOURCE_EXHAUSTED
            )
            deadline = time.monotonic() + 10
            while time.monotonic() < deadline:
                listed = await c.tcp.ListTables(pb.ListTablesRequest())
                if waiting not in {t.table_id for t in listed.tables}:
                    break
                await asyncio.sleep(0.05)
            await expect_error(
                c.tcp.GetTable(pb.GetTableRequest(table_id=waiting)),
                "TABLE_NOT_FOUND",
                grpc.StatusCode.NOT_FOUND,
            )
            table = (await c.tcp.GetTable(pb.GetTableRequest(table_id=playing))).table
            assert table.status == pb.TABLE_STATUS_PLAYING  # idle as long, but played: it stays
            await c.tcp.CreateTable(thousand_table())  # the expired table's slot is the client's again

    run(scenario())


def test_quota_settings_from_flags_and_environment() -> None:
    defaults = parse_settings([], {})
    assert defaults.max_tables_per_client > 0 and defaults.max_bot_tables_per_client > 0
    assert 0 < defaults.waiting_table_idle_seconds < defaults.table_idle_seconds
    env = {"THOUSAND_MAX_TABLES_PER_CLIENT": "7", "THOUSAND_MAX_BOT_TABLES": "9"}
    settings = parse_settings(["--max-bot-tables-per-client", "0", "--waiting-table-idle-seconds", "60"], env)
    assert settings.quotas.tables_per_client == 7 and settings.quotas.bot_tables == 9
    assert settings.quotas.bot_tables_per_client == 0 and settings.waiting_table_idle_seconds == 60
    with pytest.raises(SystemExit):
        parse_settings(["--max-tables-per-client", "-1"], {})


# ------------------------------------------------------------------------------------- item 7: small ones


def test_unknown_seat_kinds_are_refused() -> None:
    async def scenario() -> None:
        async with two_clients() as c:
            for kind in (3, 99, -5):
                request = thousand_table()
                request.seats[1].kind = kind  # type: ignore[assignment]
                info = await expect_error(
                    c.tcp.CreateTable(request), "INVALID_ARGUMENT", grpc.StatusCode.INVALID_ARGUMENT
                )
                assert info.metadata["field"] == "seats"
            assert not (await c.tcp.ListTables(pb.ListTablesRequest())).tables

    run(scenario())


def test_an_oversized_table_id_is_refused_not_echoed(caplog: pytest.LogCaptureFixture) -> None:
    """Before: a 4 KB table_id was echoed into the message, the trailers passed the client's 8 KiB limit and
    the client saw RESOURCE_EXHAUSTED "Stream removed" instead of the error; log lines reached 20 KB."""
    huge = "x" * 5000

    async def scenario() -> None:
        async with two_clients() as c:
            calls: list[Awaitable[object]] = [
                c.tcp.GetTable(pb.GetTableRequest(table_id=huge)),
                c.tcp.JoinTable(pb.JoinTableRequest(table_id=huge)),
                c.tcp.ExportTable(pb.ExportTableRequest(table_id=huge)),
                c.tcp.SubmitAction(
                    pb.SubmitActionRequest(table_id=huge, request_id="r"), metadata=token_md("t" * 40)
                ),
            ]
            for call in calls:
                with pytest.raises(aio.AioRpcError) as caught:
                    await call
                assert caught.value.code() == grpc.StatusCode.INVALID_ARGUMENT
                assert len(caught.value.details() or "") < 200
            stream = c.tcp.StreamEvents(pb.StreamEventsRequest(table_id=huge))
            with pytest.raises(aio.AioRpcError) as caught:
                await stream.read()
            assert caught.value.code() == grpc.StatusCode.INVALID_ARGUMENT
            request = thousand_table(3, bots=1)
            request.seats[2].strategy = "s" * 5000
            await expect_error(
                c.tcp.CreateTable(request), "UNKNOWN_STRATEGY", grpc.StatusCode.INVALID_ARGUMENT
            )

    with caplog.at_level(logging.INFO):
        run(scenario())
    assert caplog.records
    assert max(len(r.getMessage()) for r in caplog.records) < 2000


def test_a_create_request_id_reused_for_another_request_is_refused(tmp_path: Path) -> None:
    """Before: the second request silently got the first request's table."""
    db = str(tmp_path / "t.db")

    async def scenario() -> None:
        first = thousand_table()
        first.request_id = "create-1"
        other = thousand_table(3, bots=1)
        other.request_id = "create-1"
        async with two_clients(db) as c:
            table = (await c.tcp.CreateTable(first)).table
            again = (await c.unix.CreateTable(first)).table  # a retry, from wherever: the same table
            assert again.table_id == table.table_id
            info = await expect_error(
                c.tcp.CreateTable(other), "REQUEST_ID_REUSED", grpc.StatusCode.INVALID_ARGUMENT
            )
            assert info.metadata["field"] == "request_id"
        async with two_clients(db) as c:  # after a restart as well
            assert (await c.tcp.CreateTable(first)).table.table_id == table.table_id
            await expect_error(
                c.tcp.CreateTable(other), "REQUEST_ID_REUSED", grpc.StatusCode.INVALID_ARGUMENT
            )
            assert len((await c.tcp.ListTables(pb.ListTablesRequest())).tables) == 1

    run(scenario())


def test_an_oversized_action_is_refused_before_it_is_decoded() -> None:
    """Before: a 50 KB LayMelds of 5,000 melds cost 63 ms of the event loop (bench/abuse.py measures it)."""

    async def scenario() -> None:
        async with two_clients() as c:
            request = pb.CreateTableRequest(
                game=pb.GAME_KIND_BLAGOGO,
                seats=[pb.SeatConfig(kind=pb.SEAT_KIND_OPEN)] * 2,
                seed=3,
                practice=True,
            )
            table_id = (await c.tcp.CreateTable(request)).table.table_id
            tokens = [
                (await c.tcp.JoinTable(pb.JoinTableRequest(table_id=table_id))).seat_token for _ in range(2)
            ]
            before = (await c.tcp.GetTable(pb.GetTableRequest(table_id=table_id))).table.sequence
            card = bg_cards.BlagogoCard(rank=bg_cards.BLAGOGO_RANK_FIVE, suit=cards_pb2.SUIT_SPADES)
            meld = bg_pb.BlagogoMeldSpec(cards=[card])
            action = pb.Action(
                blagogo=bg_pb.BlagogoAction(lay_melds=bg_pb.BlagogoAction.LayMelds(melds=[meld] * 5000))
            )
            assert 40_000 < action.ByteSize() < 64_000  # under the message size limit
            for token in tokens:
                info = await expect_error(
                    c.tcp.SubmitAction(
                        pb.SubmitActionRequest(table_id=table_id, request_id="big", action=action),
                        metadata=token_md(token),
                    ),
                    "INVALID_ARGUMENT",
                    grpc.StatusCode.INVALID_ARGUMENT,
                )
                assert info.metadata["field"] == "action"
            table = (await c.tcp.GetTable(pb.GetTableRequest(table_id=table_id))).table
            assert table.sequence == before

    run(scenario())
