"""The server's unary requests on loopback: every error reason with its status code (nothing changed by a
refusal), an idempotent retry, a race for one seat, ListTables' filters and pages, and the bounds on
tables and message size."""

from __future__ import annotations

import asyncio

import grpc
import pytest
from grpc import aio

from codec import thousand as codec
from engine import Bid, Pass
from server.app import Server
from server.settings import Settings
from tests.server_harness import error_info, expect_error, harness, run, seated, thousand_table, token_md
from thousand.v1 import table_service_pb2 as pb
from thousand.v1 import table_service_pb2_grpc as pb_grpc


def test_every_error_reason() -> None:
    """Each documented reason, with its status code and a message; nothing changes on a refusal."""

    async def scenario() -> None:
        async with harness() as h:
            s = h.stub
            await expect_error(
                s.GetTable(pb.GetTableRequest(table_id="nope")), "TABLE_NOT_FOUND", grpc.StatusCode.NOT_FOUND
            )
            await expect_error(
                s.GetTable(pb.GetTableRequest()), "INVALID_ARGUMENT", grpc.StatusCode.INVALID_ARGUMENT
            )
            info = await expect_error(
                s.CreateTable(thousand_table(2, dark=True)), "INVALID_RULES", grpc.StatusCode.INVALID_ARGUMENT
            )
            assert info.metadata["field"] == "dark"
            bad_bot = thousand_table(3)
            bad_bot.seats[2].kind = pb.SEAT_KIND_BOT
            bad_bot.seats[2].strategy = "genius"
            await expect_error(s.CreateTable(bad_bot), "UNKNOWN_STRATEGY", grpc.StatusCode.INVALID_ARGUMENT)
            await expect_error(
                s.CreateTable(pb.CreateTableRequest()), "INVALID_ARGUMENT", grpc.StatusCode.INVALID_ARGUMENT
            )

            table = (await s.CreateTable(thousand_table(3, bots=1))).table
            tid = table.table_id
            first = await s.JoinTable(pb.JoinTableRequest(table_id=tid, seat=0))
            await expect_error(
                s.JoinTable(pb.JoinTableRequest(table_id=tid, seat=0)),
                "SEAT_TAKEN",
                grpc.StatusCode.ALREADY_EXISTS,
            )
            await expect_error(
                s.JoinTable(pb.JoinTableRequest(table_id=tid, seat=2)),
                "SEAT_NOT_OPEN",
                grpc.StatusCode.FAILED_PRECONDITION,
            )
            pass_action = pb.Action(thousand=codec.action_to_proto(Pass()))
            submit = pb.SubmitActionRequest(table_id=tid, request_id="r1", action=pass_action)
            await expect_error(
                s.SubmitAction(submit, metadata=token_md(first.seat_token)),
                "GAME_NOT_STARTED",
                grpc.StatusCode.FAILED_PRECONDITION,
            )
            second = await s.JoinTable(pb.JoinTableRequest(table_id=tid))
            assert second.seat == 1
            await expect_error(
                s.JoinTable(pb.JoinTableRequest(table_id=tid)),
                "TABLE_FULL",
                grpc.StatusCode.RESOURCE_EXHAUSTED,
            )
            await expect_error(
                s.SubmitAction(submit), "SPECTATOR_CANNOT_ACT", grpc.StatusCode.PERMISSION_DENIED
            )
            await expect_error(
                s.SubmitAction(submit, metadata=token_md("x" * 43)),
                "SEAT_TOKEN_INVALID",
                grpc.StatusCode.UNAUTHENTICATED,
            )
            # Dealer 0: seat 1 opened with the forced 100, seat 2 (the bot) or seat 0 acts next.
            snapshot = await anext(aiter(s.StreamEvents(pb.StreamEventsRequest(table_id=tid))))
            to_act = snapshot.turn.seat
            waiting = first if to_act != 0 else second
            tokens = {0: first.seat_token, 1: second.seat_token}
            await expect_error(
                s.SubmitAction(submit, metadata=token_md(waiting.seat_token)),
                "NOT_YOUR_TURN",
                grpc.StatusCode.FAILED_PRECONDITION,
            )
            assert to_act in tokens, "the bot moved already or is to act"
            bid_too_low = pb.Action(thousand=codec.action_to_proto(Bid(100)))
            info = await expect_error(
                s.SubmitAction(
                    pb.SubmitActionRequest(table_id=tid, request_id="r2", action=bid_too_low),
                    metadata=token_md(tokens[to_act]),
                ),
                "ILLEGAL_ACTION",
                grpc.StatusCode.FAILED_PRECONDITION,
            )
            assert info.metadata["rule"] == "BID_TOO_LOW"
            await expect_error(
                s.SubmitAction(
                    pb.SubmitActionRequest(
                        table_id=tid, request_id="r3", last_seen_sequence=1, action=pass_action
                    ),
                    metadata=token_md(tokens[to_act]),
                ),
                "STALE_SEQUENCE",
                grpc.StatusCode.ABORTED,
            )
            await expect_error(
                s.SubmitAction(
                    pb.SubmitActionRequest(table_id=tid, request_id="", action=pass_action),
                    metadata=token_md(tokens[to_act]),
                ),
                "INVALID_ARGUMENT",
                grpc.StatusCode.INVALID_ARGUMENT,
            )
            after = (await s.GetTable(pb.GetTableRequest(table_id=tid))).table
            assert after.sequence == snapshot.sequence  # nothing changed
            done = await s.SubmitAction(
                pb.SubmitActionRequest(table_id=tid, request_id="r4", action=pass_action),
                metadata=token_md(tokens[to_act]),
            )
            assert done.sequence > after.sequence
            await expect_error(
                s.SubmitAction(
                    pb.SubmitActionRequest(table_id=tid, request_id="r4", action=bid_too_low),
                    metadata=token_md(tokens[to_act]),
                ),
                "REQUEST_ID_REUSED",
                grpc.StatusCode.INVALID_ARGUMENT,
            )

    run(scenario())


def test_idempotent_retry_applies_once() -> None:
    """A retried SubmitAction with the same request_id returns the first outcome and acts once."""

    async def scenario() -> None:
        async with harness() as h:
            table_id, joins = await seated(h, thousand_table(3))
            tokens = dict(joins)
            snapshot = await anext(aiter(h.stub.StreamEvents(pb.StreamEventsRequest(table_id=table_id))))
            seat = snapshot.turn.seat
            request = pb.SubmitActionRequest(
                table_id=table_id,
                request_id="once",
                action=pb.Action(thousand=codec.action_to_proto(Pass())),
            )
            first = await h.stub.SubmitAction(request, metadata=token_md(tokens[seat]))
            again = await h.stub.SubmitAction(request, metadata=token_md(tokens[seat]))
            assert first.sequence == again.sequence
            table = (await h.stub.GetTable(pb.GetTableRequest(table_id=table_id))).table
            assert table.sequence == first.sequence

    run(scenario())


def test_two_clients_race_for_one_seat() -> None:
    async def scenario() -> None:
        async with harness() as h:
            table = (await h.stub.CreateTable(thousand_table(3))).table
            calls = [h.stub.JoinTable(pb.JoinTableRequest(table_id=table.table_id, seat=1)) for _ in range(2)]
            results = await asyncio.gather(*calls, return_exceptions=True)
            ok = [r for r in results if isinstance(r, pb.JoinTableResponse)]
            failed = [r for r in results if isinstance(r, aio.AioRpcError)]
            assert len(ok) == 1 and len(failed) == 1
            assert error_info(failed[0]).reason == "SEAT_TAKEN"

    run(scenario())


def test_list_tables_filters_and_pages() -> None:
    async def scenario() -> None:
        async with harness() as h:
            ids = [(await h.stub.CreateTable(thousand_table(3))).table.table_id for _ in range(5)]
            full_id, _ = await seated(h, thousand_table(3, bots=2))
            page = await h.stub.ListTables(pb.ListTablesRequest(page_size=2))
            assert [t.table_id for t in page.tables] == [full_id, ids[4]]
            seen = [t.table_id for t in page.tables]
            while page.next_page_token:
                page = await h.stub.ListTables(
                    pb.ListTablesRequest(page_size=2, page_token=page.next_page_token)
                )
                seen += [t.table_id for t in page.tables]
            assert seen == [full_id, *reversed(ids)]
            open_only = await h.stub.ListTables(pb.ListTablesRequest(only_open_seats=True, page_size=100))
            assert full_id not in [t.table_id for t in open_only.tables]
            await expect_error(
                h.stub.ListTables(pb.ListTablesRequest(page_token="garbage")),
                "INVALID_ARGUMENT",
                grpc.StatusCode.INVALID_ARGUMENT,
            )

    run(scenario())


def test_limits_on_tables_and_message_size() -> None:
    """Hostile input is bounded: a server holds at most max_tables unfinished tables, and an oversized
    request is refused before it is parsed."""

    async def scenario() -> None:
        server = Server(Settings(host="127.0.0.1", port=0, max_tables=2, max_message_bytes=4096))
        await server.start()
        try:
            async with aio.insecure_channel(f"127.0.0.1:{server.port}") as channel:
                stub = pb_grpc.TableServiceStub(channel)
                for _ in range(2):
                    await stub.CreateTable(thousand_table(3))
                await expect_error(
                    stub.CreateTable(thousand_table(3)), "TOO_MANY_TABLES", grpc.StatusCode.RESOURCE_EXHAUSTED
                )
                with pytest.raises(aio.AioRpcError) as caught:
                    await stub.GetTable(pb.GetTableRequest(table_id="x" * 10_000))
                assert caught.value.code() == grpc.StatusCode.RESOURCE_EXHAUSTED
        finally:
            await server.stop(grace=0.1)

    run(scenario())
