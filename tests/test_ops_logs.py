"""Structured logs: JSON lines captured during a whole game (one line per RPC with its context, table and
game lifecycle lines, and never a seat token or a dealt card), request ids, the standard library's lines in
the same format, the console format and how the format is chosen."""

from __future__ import annotations

import asyncio
import io
import logging
from typing import Any

import grpc
import pytest
from grpc import aio
from prometheus_client import generate_latest

from engine.blagogo import BlagogoRules
from engine.blagogo.events import RoundScored
from engine.events import DealScored, HandDealt
from server.creations import SeatSpec
from server.errors import ErrorReason, ServiceError
from server.logs import configure_logging, get_logger, resolve_format, unconfigure_logging
from server.metrics import Metrics
from server.registry import Registry
from server.settings import parse_settings
from server.table import Table
from server.telemetry import Telemetry
from tests.blagogo_players import TURNOVER_LIMIT
from tests.conftest import Captured
from tests.server_harness import Client, harness, run, seated, thousand_table, token_md
from tests.table_driving import bot_to_act, play_bot
from tests.test_ops_metrics import Scrape
from thousand.v1 import table_service_pb2 as pb


def test_a_whole_game_logged_as_json_without_tokens_or_cards(captured: Captured) -> None:
    async def scenario() -> tuple[str, list[Client], Any]:
        async with harness() as h:
            table_id, joins = await seated(h, thousand_table(3))
            clients = [Client(h.stub, table_id, seat, token) for seat, token in joins]
            await asyncio.wait_for(asyncio.gather(*(c.play() for c in clients)), timeout=120)
            return table_id, clients, h.server.registry.get(table_id)

    table_id, clients, table = run(scenario())
    lines = captured.lines()
    text = captured.text
    assert lines

    # secrets: no seat token, no card anyone was dealt, no field that carries cards
    for client in clients:
        assert client.token not in text
    dealt = {card for e in table.log if isinstance(e, HandDealt) and e.cards for card in e.cards}
    assert len(dealt) == 24
    for card in dealt:
        assert str(card) not in text and repr(card) not in text
    for line in lines:
        assert not {"cards", "hand", "hands", "token", "seat_token", "seed", "view"} & set(line)

    # every line has the common fields
    for line in lines:
        assert {"timestamp", "level", "logger", "msg"} <= set(line), line

    # one line per RPC, with method, code, duration, table id, seat and request id
    submits = captured.find("rpc", grpc_method="SubmitAction")
    assert len(submits) == sum(c.acted for c in clients)
    for line in submits:
        assert line["grpc_service"] == "thousand.v1.TableService" and line["grpc_type"] == "UNARY"
        assert line["grpc_code"] == "OK" and line["level"] == "info" and line["logger"] == "thousand.rpc"
        assert line["table_id"] == table_id and line["seat"] in (0, 1, 2)
        assert isinstance(line["duration_s"], float) and line["duration_s"] >= 0
        assert len(line["request_id"]) == 32
        assert line["peer"].startswith("ipv4:127.0.0.1:")
    assert len({line["request_id"] for line in submits}) == len(submits)
    joins = captured.find("rpc", grpc_method="JoinTable")
    assert sorted(line["seat"] for line in joins) == [0, 1, 2]
    streams = captured.find("rpc", grpc_method="StreamEvents")
    assert len(streams) == 3
    for line, client in zip(sorted(streams, key=lambda x: x["seat"]), clients, strict=True):
        assert line["grpc_type"] == "SERVER_STREAM" and line["grpc_code"] == "OK"
        assert line["seat"] == client.seat and line["messages_sent"] == len(client.messages)
    created = captured.find("rpc", grpc_method="CreateTable")
    assert len(created) == 1 and created[0]["table_id"] == table_id

    # table and game lifecycle
    (made,) = captured.find("table created", table_id=table_id)
    assert made["players"] == 3 and made["bots"] == 0 and made["logger"] == "thousand.table"
    assert made["request_id"] == created[0]["request_id"]  # logged inside the CreateTable call
    assert len(captured.find("table started", table_id=table_id)) == 1
    deals = [e for e in table.log if isinstance(e, DealScored)]
    finished = captured.find("deal finished", table_id=table_id)
    assert [line["deal"] for line in finished] == [e.number for e in deals]
    assert finished[-1]["totals"] == list(deals[-1].totals)
    (over,) = captured.find("game over", table_id=table_id)
    assert over["winner"] in (0, 1, 2) and len(over["scores"]) == 3
    assert len(captured.find("table finished", table_id=table_id)) == 1
    order = [line["msg"] for line in lines if line["msg"] != "rpc" and line.get("table_id") == table_id]
    assert order[0] == "table created" and order[1] == "table started" and order[-1] == "table finished"


def test_request_ids_refusals_and_bot_lines(captured: Captured) -> None:
    async def scenario() -> str:
        async with harness() as h:
            stub = h.stub
            with pytest.raises(aio.AioRpcError):
                await stub.GetTable(
                    pb.GetTableRequest(table_id="nope"), metadata=(("x-request-id", "req-42"),)
                )
            with pytest.raises(aio.AioRpcError):
                await stub.GetTable(pb.GetTableRequest(table_id="nope"), metadata=(("x-request-id", "a b"),))
            with pytest.raises(aio.AioRpcError) as refused:
                await stub.SubmitAction(
                    pb.SubmitActionRequest(table_id="nope"), metadata=token_md("secret-tok")
                )
            assert refused.value.code() == grpc.StatusCode.NOT_FOUND
            table = (
                await stub.CreateTable(thousand_table(3, bots=3), metadata=(("x-request-id", "mk"),))
            ).table
            [m async for m in stub.StreamEvents(pb.StreamEventsRequest(table_id=table.table_id))]
            return table.table_id

    table_id = run(scenario())
    (given,) = captured.find("rpc", request_id="req-42")
    assert given["grpc_method"] == "GetTable" and given["grpc_code"] == "NotFound"
    assert given["error_reason"] == "TABLE_NOT_FOUND" and given["table_id"] == "nope"
    assert given["level"] == "info"
    refusals = captured.find("rpc", grpc_method="GetTable", grpc_code="NotFound")
    assert len(refusals) == 2
    generated = next(line for line in refusals if line["request_id"] != "req-42")
    assert len(generated["request_id"]) == 32  # "a b" is not a usable id: one was generated
    assert "secret-tok" not in captured.text
    # the bots play in a task of their own: their lines do not carry the CreateTable call's context
    (made,) = captured.find("table created", table_id=table_id)
    assert made["request_id"] == "mk"
    over = captured.find("game over", table_id=table_id)
    assert len(over) == 1 and "request_id" not in over[0] and "grpc_method" not in over[0]
    (stream,) = captured.find("rpc", grpc_method="StreamEvents")
    assert stream["grpc_code"] == "OK" and "seat" not in stream


def test_standard_library_and_grpc_lines_share_the_format(captured: Captured) -> None:
    logging.getLogger("grpc._cython.cygrpc").warning("something %s", "odd")
    get_logger("thousand.test").info("hello", answer=42)
    try:
        raise ValueError("boom")
    except ValueError:
        logging.getLogger("some.library").exception("it failed")
    foreign, own, failed = captured.lines()
    assert foreign["logger"] == "grpc._cython.cygrpc" and foreign["msg"] == "something odd"
    assert foreign["level"] == "warning" and "timestamp" in foreign
    assert own == {**own, "msg": "hello", "answer": 42, "level": "info", "logger": "thousand.test"}
    assert failed["level"] == "error" and "ValueError: boom" in failed["exception"]


def test_console_format_is_readable() -> None:
    stream = io.StringIO()
    handler = configure_logging("console", "info", stream=stream)
    try:
        get_logger("thousand.test").info("table created", table_id="abc123", players=3)
    finally:
        unconfigure_logging(handler)
    line = stream.getvalue().strip()
    assert "table created" in line and "table_id=abc123" in line and "players=3" in line
    assert not line.startswith("{") and "\x1b[" not in line  # no JSON, no colours off a terminal


class _Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_log_format_choice_flags_and_environment() -> None:
    assert resolve_format("auto", _Terminal()) == "console"
    assert resolve_format("auto", io.StringIO()) == "json"
    assert resolve_format("json", _Terminal()) == "json"
    assert resolve_format("console", io.StringIO()) == "console"
    with pytest.raises(ValueError):
        resolve_format("xml", io.StringIO())
    assert parse_settings([], {}).log_format == "auto"
    assert parse_settings([], {"THOUSAND_LOG_FORMAT": "json"}).log_format == "json"
    env = {"THOUSAND_LOG_FORMAT": "json", "THOUSAND_LOG_LEVEL": "debug"}
    settings = parse_settings(["--log-format", "console"], env)
    assert settings.log_format == "console" and settings.log_level == "debug"
    with pytest.raises(SystemExit):
        parse_settings(["--log-format", "xml"], {})


def test_blagogo_rounds_are_logged_and_counted_by_their_outcome(captured: Captured) -> None:
    """The game's description says what a round scored (games.blagogo): each round a "round finished" line
    and a count of kind "round" by outcome (went_out, kantrame, no_winner: B-18, B-19, B-10)."""

    async def scenario() -> tuple[Table, Metrics]:
        metrics = Metrics()
        telemetry = Telemetry(metrics.game)
        registry = Registry(None, telemetry)
        rules = BlagogoRules(players=3, target=600, turnover_limit=TURNOVER_LIMIT)
        seats = [SeatSpec(bot=True, strategy="random")] * 3
        table = await registry.create(rules, seats, seed=7, first_dealer=None)  # a kantrame among 4 rounds
        while (seat := bot_to_act(table)) is not None:
            await play_bot(table, seat)
        return table, metrics

    table, metrics = asyncio.run(scenario())
    rounds = [e for e in table.log if isinstance(e, RoundScored)]
    outcomes = ["no_winner" if e.winner is None else "kantrame" if e.kantrame else "went_out" for e in rounds]
    lines = captured.find("round finished", table_id=table.table_id)
    assert len(rounds) > 1 and "kantrame" in outcomes
    assert [line["round"] for line in lines] == [e.number for e in rounds]
    assert [line["outcome"] for line in lines] == outcomes
    assert [line["winner"] for line in lines] == [e.winner for e in rounds]
    assert [line["totals"] for line in lines] == [list(e.totals) for e in rounds]
    assert not captured.find("deal finished", table_id=table.table_id)
    scrape = Scrape(generate_latest(metrics.registry).decode())
    for outcome in ("went_out", "kantrame", "no_winner"):
        counted = scrape.value("thousand_deals_finished_total", game="blagogo", kind="round", outcome=outcome)
        assert counted == outcomes.count(outcome)


def test_play_names_its_table_and_a_table_moving_is_no_error(captured: Captured) -> None:
    """Issue #30, 5 and 6: a Play call's `rpc` line carries its table_id; a stream ended by its table moving
    (what every drain of a cluster node does) is logged at info with its reason, not as an error, and the
    Play stream's reader ends without an "AbortError" warning."""

    async def scenario() -> str:
        async with harness() as h:
            table_id, [(_, token)] = await seated(h, thousand_table(3, bots=2))
            start = pb.PlayRequest(start=pb.PlayStart(table_id=table_id))
            requests: asyncio.Queue[pb.PlayRequest | None] = asyncio.Queue()
            await requests.put(start)

            async def sent() -> Any:
                while (request := await requests.get()) is not None:
                    yield request

            call = h.stub.Play(sent(), metadata=token_md(token))
            await call.read()  # the snapshot: the stream is live
            moving = ServiceError(ErrorReason.TABLE_MOVING, "the node is stopping", retry_delay=0.5)
            h.server.registry.drop(table_id, moving)
            with pytest.raises(aio.AioRpcError) as ended:
                while await call.read() is not aio.EOF:
                    pass
            assert ended.value.code() == grpc.StatusCode.UNAVAILABLE
            await requests.put(None)
            await asyncio.sleep(0.2)  # the reader task sees the call end
            return table_id

    table_id = run(scenario())
    (play,) = captured.find("rpc", grpc_method="Play")
    assert play["table_id"] == table_id
    assert play["grpc_code"] == "Unavailable" and play["error_reason"] == "TABLE_MOVING"
    assert play["level"] == "info"
    assert not [line for line in captured.lines() if line["level"] in ("warning", "error")], captured.text
