"""Server-run bot seats play every strategy of their game's registry (bots/registry.py), each seat
with one strategy object for the whole game that is shown its seat's view after every change (T-33, B-21),
as the local tournament shows it; a restart rebuilds those memories as they were."""

from __future__ import annotations

import asyncio
import copy
import pickle
import random
from collections.abc import Callable
from pathlib import Path

import pytest

from bots.belief import Belief
from bots.blagogo import BLAGOGO_STRATEGIES
from bots.heuristic import HeuristicStrategy
from bots.ismcts import IsmctsStrategy
from bots.registry import STRATEGIES
from engine import Game, Rules, view
from server.bots import SeededOnUse
from server.creations import SeatSpec
from server.games import BLAGOGO, THOUSAND, SeatBot
from server.registry import Registry
from server.store_select import open_store
from server.table import Table
from tests.blagogo_players import TURNOVER_LIMIT, blagogo_events
from tests.cli_harness import run, serving
from tests.server_harness import harness
from tests.table_driving import bot_to_act, play_bot
from tests.test_cli_blagogo_plain import converse
from thousand.v1 import table_service_pb2 as pb


def test_the_server_seats_every_strategy_of_each_games_registry() -> None:
    assert THOUSAND.strategy_names() == sorted(STRATEGIES)
    assert BLAGOGO.strategy_names() == sorted(BLAGOGO_STRATEGIES)
    assert "heuristic" in BLAGOGO.strategy_names()
    searching = {name: THOUSAND.new_bot(name).searching for name in THOUSAND.strategy_names()}
    assert searching == {"expert": True, "greedy": False, "heuristic": False, "ismcts": True, "random": False}
    observing = {name: BLAGOGO.new_bot(name).observes for name in BLAGOGO.strategy_names()}
    assert observing == {"heuristic": False, "planner": True, "random": False}  # the planner remembers


def test_a_blagogo_table_of_heuristic_bots_plays_to_its_end() -> None:
    """B-20: four server-run ``heuristic`` bots play a whole game, watched by a spectator over gRPC."""

    async def scenario() -> None:
        async with harness() as h:
            request = pb.CreateTableRequest(game=pb.GAME_KIND_BLAGOGO, seed=7, first_dealer=0)
            request.seats.extend(pb.SeatConfig(kind=pb.SEAT_KIND_BOT, strategy="heuristic") for _ in range(4))
            request.rules.blagogo.target = 300  # a few rounds
            request.rules.blagogo.turnover_limit = TURNOVER_LIMIT
            table = (await h.stub.CreateTable(request)).table
            assert [s.strategy for s in table.seats] == ["heuristic"] * 4
            assert table.status == pb.TABLE_STATUS_PLAYING
            # From the first event on (after_sequence 0), however far the bots got before the stream opened.
            call = h.stub.StreamEvents(pb.StreamEventsRequest(table_id=table.table_id, after_sequence=0))
            messages = await asyncio.wait_for(_all(call), timeout=120)
            final = (await h.stub.GetTable(pb.GetTableRequest(table_id=table.table_id))).table
            assert final.status == pb.TABLE_STATUS_FINISHED
            events = blagogo_events(messages)
            if not messages[-1].HasField("snapshot"):  # a spectator that kept up sees the GameOver itself
                assert events[-1].HasField("game_over")
            assert any(e.HasField("melds_laid") for e in events)
            assert sum(e.HasField("round_scored") for e in events) > 1

    run(scenario(), timeout=150)


async def _all(call: object) -> list[pb.StreamEventsResponse]:
    return [m async for m in call]  # type: ignore[attr-defined]


def test_thousand_new_seats_heuristic_bots_at_a_blagogo_table() -> None:
    """``thousand new --game blagogo --bots 3 --strategy heuristic``: the table is made (it was refused with
    UNKNOWN_STRATEGY) and the game is played to its end against the three heuristic bots."""

    async def scenario() -> tuple[int, list[str]]:
        async with serving() as address:
            code, lines, _ = await converse(
                [
                    "new", "--game", "blagogo", "--plain", "--server", address, "--players", "4",
                    "--bots", "3", "--strategy", "heuristic", "--target", "60", "--turnover-limit", "1",
                    "--opening-min-points", "0", "--seed", "3", "--first-dealer", "1", "--name", "Ann",
                ]
            )  # fmt: skip
            return code, lines

    code, lines = run(scenario(), timeout=120)
    assert code == 0
    text = "\n".join(lines)
    assert "heuristic bot (seat 2) is dealt" in text
    assert "Game over — winner: " in text


# ---------------------------------------------------------------------------------- memory for the whole game


def beliefs(table: Table) -> dict[int, Belief | None]:
    """What each bot seat's strategy remembers of the deal (ISMCTS: its own belief and its heuristic's)."""
    out: dict[int, Belief | None] = {}
    for seat in range(len(table.seats)):
        bot = table.bots.player(seat)
        assert isinstance(bot, SeatBot)
        player = bot.player
        if isinstance(player, IsmctsStrategy):
            assert player._belief == player._heuristic._belief
            out[seat] = player._belief
        else:
            assert isinstance(player, HeuristicStrategy)
            out[seat] = player._belief
    return out


def beliefs_from_every_view(game: Game) -> dict[int, Belief]:
    """Each seat's belief when it is shown its view after every step of ``game``'s history (replayed)."""
    replay = Game(game.rules, game.seed, game.first_dealer)
    seen = {seat: Belief(seat) for seat in range(game.rules.players)}
    for seat, action in game.history:
        if seat is None:
            replay.apply_chance(action)  # type: ignore[arg-type]
        else:
            replay.apply(seat, action)  # type: ignore[arg-type]
        if not replay.is_chance_node or replay.is_over:
            for s, belief in seen.items():
                belief.update(view(replay, s))
    return seen


async def bot_moves(table: Table, count: int) -> None:
    for _ in range(count):
        async with table.lock:
            seat = bot_to_act(table)
            assert seat is not None
            await play_bot(table, seat)


@pytest.mark.parametrize("moves", [25, 60])
def test_a_bot_seat_keeps_its_strategy_and_remembers_every_change(tmp_path: Path, moves: int) -> None:
    """Each seat keeps one strategy object; its memory equals a belief shown the seat's view after every
    step, and the same memory is rebuilt from the stored records when the server restarts."""
    db = tmp_path / "bots.db"

    async def scenario() -> None:
        store = open_store(db)
        seats = [SeatSpec(True, "heuristic"), SeatSpec(True, "ismcts"), SeatSpec(True, "heuristic")]
        table = await Registry(store).create(Rules(), seats, seed=5, first_dealer=0)
        players = [table.bots.player(seat) for seat in range(3)]
        await bot_moves(table, moves)
        assert [table.bots.player(seat) for seat in range(3)] == players  # the same objects all along
        remembered = beliefs(table)
        expected = beliefs_from_every_view(table.game)
        assert remembered == expected
        store.close()

        restarted = Registry(open_store(db))
        assert restarted.restore() == 1
        again = restarted.get(table.table_id)
        assert again.sequence == table.sequence
        assert beliefs(again) == remembered
        assert restarted.store is not None
        restarted.store.close()

    run(scenario(), timeout=120)


@pytest.mark.parametrize("seed", ["1000:bot:1:45", "7:takeover:0:3"])
def test_a_decisions_generator_seeded_on_first_use_draws_what_random_random_draws(seed: str) -> None:
    """A bot decision's generator is seeded when first drawn from (server.bots.SeededOnUse): every way of
    drawing gives the numbers ``random.Random(seed)`` gives, and the generator is a plain one after."""
    draws: list[Callable[[random.Random], object]] = [
        lambda r: [r.choice(range(50)) for _ in range(20)],
        lambda r: [r.random() for _ in range(5)],
        lambda r: r.sample(range(100), 10),
        lambda r: [r.gauss(0, 1) for _ in range(3)],
        lambda r: r.randbytes(9),
        lambda r: [r.randrange(3) for _ in range(50)] + [r.randrange(10**30)],
        _shuffled,
        lambda r: r.getstate(),
        lambda r: pickle.loads(pickle.dumps(r)).random(),
        lambda r: copy.deepcopy(r).random(),
        _seeded_again,
    ]
    for draw in draws:
        lazy, plain = SeededOnUse(seed), random.Random(seed)
        assert draw(lazy) == draw(plain)
        assert type(lazy) is random.Random
        assert lazy.getstate() == plain.getstate() and vars(lazy) == vars(plain)


def _shuffled(rng: random.Random) -> list[int]:
    cards = list(range(32))
    rng.shuffle(cards)
    return cards


def _seeded_again(rng: random.Random) -> float:
    rng.seed(5)
    return rng.random()
