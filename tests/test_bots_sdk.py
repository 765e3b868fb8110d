"""The bot SDK and ``thousand-bot``: bots as real gRPC clients of a live server."""

from __future__ import annotations

import asyncio
import json
import random
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from bots.blagogo import make_blagogo_strategy
from clients.bots.cli import main
from clients.bots.example import CautiousBot
from clients.bots.sdk import ASK, NETWORK_MARGIN, run_bot, turn_deadline
from clients.messages import Turn
from clients.session import TableSession
from engine import Rules
from engine.blagogo import BlagogoRules
from tests.live_server import live_server


def last_json(out: str) -> dict[str, object]:
    parsed: dict[str, object] = json.loads(out.strip().splitlines()[-1])
    return parsed


def test_match_plays_a_whole_game_over_grpc(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    with live_server(tmp_path) as server:
        code = main(
            [
                "match",
                "--server",
                server.address,
                "--strategies",
                "heuristic,greedy,example",
                "--seed",
                "3",
                "--json",
            ]
        )
    out = capsys.readouterr().out
    assert code == 0
    result = last_json(out)
    assert result["finished"] is True
    standings = result["standings"]
    assert isinstance(standings, list) and len(standings) == 3
    assert sorted(s["strategy"] for s in standings) == ["example", "greedy", "heuristic"]
    assert "Final standings:" in out


def test_play_joins_a_live_table_and_the_example_bot_finishes_the_game(tmp_path: Path) -> None:
    """The example bot (a few dozen lines) plays a whole game against two server-side bots via the SDK."""

    async def scenario(address: str) -> None:
        async with TableSession(address) as lobby:
            table = await lobby.create_table(
                Rules(), [None, "greedy", "greedy"], seed=8, practice=True, first_dealer=0
            )
        result = await asyncio.wait_for(run_bot(CautiousBot(), server=address, table_id=table.table_id), 120)
        assert result.finished
        assert result.decisions > 10
        assert result.refused == 0
        assert {s.seat for s in result.standings} == {0, 1, 2}

    with live_server(tmp_path) as server:
        asyncio.run(scenario(server.address))


def test_unknown_strategy_is_a_usage_error(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as stop:
        main(["play", "--table", "t", "--strategy", "genius"])
    assert stop.value.code == 2
    assert "unknown strategy 'genius'" in capsys.readouterr().err


def test_tournament_command(capsys: pytest.CaptureFixture[str]) -> None:
    code = main(
        [
            "tournament",
            "--game",
            "thousand",
            "--strategies",
            "random,greedy",
            "--deals",
            "3",
            "--seed",
            "2",
            "--json",
            "--quiet",
        ]
    )
    assert code == 0
    results = last_json(capsys.readouterr().out)["results"]
    assert isinstance(results, dict) and set(results) == {"random", "greedy"}


def test_one_bot_loop_plays_a_blagogo_seat_taken_over_with_its_token(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """run_bot plays either game: a Blagogo strategy takes over a joined seat by its token (the session learns
    the table's game from the server), plays to the end; a table of another game than ``game`` is refused."""

    async def scenario(address: str) -> None:
        async with TableSession(address) as lobby:
            rules = BlagogoRules(players=3, target=60, turnover_limit=1)
            table = await lobby.create_table(
                rules, [None, "random", "random"], seed=4, practice=True, first_dealer=0
            )
            seat = await lobby.join(table.table_id, name="joined")
            token = lobby.seat_token
            thousand = await lobby.create_table(Rules(), [None, "greedy", "greedy"], seed=1, practice=True)
        strategy = make_blagogo_strategy("heuristic")
        result = await asyncio.wait_for(
            run_bot(
                strategy, server=address, table_id=table.table_id, seat=seat, seat_token=token, game="blagogo"
            ),
            120,
        )
        assert result.finished and result.decisions > 3 and result.refused == 0
        assert {s.seat for s in result.standings} == {0, 1, 2}
        with pytest.raises(ValueError, match="plays Thousand, not blagogo"):
            await run_bot(strategy, server=address, table_id=thousand.table_id, game="blagogo")
        command = ["play", "--game", "blagogo", "--server", address, "--table", thousand.table_id]
        code = await asyncio.to_thread(main, [*command, "--strategy", "random"])
        assert code == 2
        async with TableSession(address) as lobby:
            assert (await lobby.get_table(thousand.table_id)).open_seats == 1  # each bot gave its seat up

    with live_server(tmp_path) as server:
        asyncio.run(scenario(server.address))
    assert "plays Thousand, not blagogo" in capsys.readouterr().err


def test_a_turns_deadline_reaches_a_strategy_that_takes_one() -> None:
    """The SDK turns a Turn's deadline into a ``time.monotonic()`` instant less its network margin and hands
    it to a strategy with ``choose_by`` (bots.strategy.decide); one without a clock gets none."""
    seen: list[float] = []

    class Timed:
        name = "timed"

        def choose(self, view: object, rng: random.Random) -> str:
            return "plain"

        def choose_by(self, view: object, rng: random.Random, deadline: float) -> str:
            seen.append(deadline)
            return "timed"

        def observe(self, view: object) -> None:
            return None

    clocked: Turn[object, object] = Turn(seat=0, deadline=datetime.now(UTC) + timedelta(seconds=2))
    due = turn_deadline(clocked)
    assert due is not None and 1.5 < due - time.monotonic() <= 2.0 - NETWORK_MARGIN + 0.05
    unclocked: Turn[object, object] = Turn(seat=0)
    assert turn_deadline(unclocked) is None
    ask = ASK["thousand"]
    assert ask(Timed(), None, (), random.Random(1), due) == "timed" and seen == [due]
    assert ask(Timed(), None, (), random.Random(1), None) == "plain"
