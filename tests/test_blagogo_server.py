"""1000 Blagogo on the gRPC server: the same tables, streams, bots and store as Thousand (server/games/).

Whole games with 2, 5 and 8 players (open seats played by scripted clients choosing among their Turn's
actions with a seeded generator, tests/blagogo_players.py; the other seats server-run ``random`` bots),
hidden information on the wire (B-21), every error a Blagogo action can meet, a LayMelds the Turn does not
list (B-22), resuming a stream and the metrics by game. A restart mid-game and the exported record are in
tests/test_blagogo_server_records.py.
"""

from __future__ import annotations

import asyncio
import itertools

import grpc
import pytest
from prometheus_client import generate_latest

from codec import blagogo as codec_blagogo
from codec import thousand as codec
from engine import Pass
from engine import blagogo as bg
from engine.blagogo import events as be
from engine.blagogo.cards import CARD_RANK, CARD_SUIT, FIRST_JOKER
from server.creations import SeatSpec
from server.metrics import Metrics
from server.registry import Registry
from server.telemetry import Telemetry
from tests.blagogo_players import (
    TARGET,
    TIMEOUT,
    TURNOVER_LIMIT,
    Player,
    assert_gap_free,
    blagogo_events,
    blagogo_table,
    seated,
    submit,
)
from tests.server_harness import expect_error, harness, run, token_md
from tests.table_driving import bot_to_act, play_bot
from tests.test_ops_metrics import Scrape
from thousand.v1 import table_service_pb2 as pb


def assert_hidden(viewer: int | None, messages: list[pb.StreamEventsResponse], log: list[object]) -> int:
    """B-21 on the wire: another seat's hand and drawn cards never arrive; each view shows only its own hand.

    ``log`` is the table's unfiltered log (sequence n is ``log[n - 1]``). Returns how many of another seat's
    draws the stream carried (all of them blanked).
    """
    blanked = 0
    for message in messages:
        if message.HasField("event") and message.event.HasField("blagogo"):
            event = message.event.blagogo
            full = log[message.sequence - 1]
            if isinstance(full, be.CardDrawn):
                assert event.HasField("card_drawn")
                if full.seat != viewer:
                    assert not event.card_drawn.HasField("card"), (viewer, full)
                    blanked += 1
                else:
                    assert codec_blagogo.card_from_proto(event.card_drawn.card) is full.card
            elif isinstance(full, be.HandDealt):
                mine = full.seat == viewer
                assert event.hand_dealt.cards_hidden is not mine
                assert len(event.hand_dealt.cards) == (full.count if mine else 0)
        views = []
        if message.HasField("snapshot") and message.snapshot.HasField("view"):
            views.append(message.snapshot.view.blagogo)
        if message.turn.HasField("view"):
            views.append(message.turn.view.blagogo)
        for view in views:
            if viewer is None:
                assert not view.HasField("viewer") and not view.hand
            else:
                assert view.viewer == viewer and len(view.hand) == view.card_counts[viewer]
    return blanked


# ---------------------------------------------------------------- whole games


@pytest.mark.parametrize(
    ("players", "bots", "target", "seed"), [(2, 1, 400, 3), (5, 2, 250, 5), (8, 4, TARGET, 8)]
)
def test_whole_game_with_clients_and_bots_keeps_hidden_information(
    players: int, bots: int, target: int, seed: int
) -> None:
    async def scenario() -> None:
        async with harness() as h:
            table_id, joins = await seated(h.stub, blagogo_table(players, bots, seed, target=target))
            assert len(joins) == players - bots
            clients = [Player(h.stub, table_id, seat, token) for seat, token in joins]
            spectator: list[pb.StreamEventsResponse] = []

            async def watch() -> None:
                async for message in h.stub.StreamEvents(pb.StreamEventsRequest(table_id=table_id)):
                    spectator.append(message)

            ended = await asyncio.wait_for(asyncio.gather(*(c.play() for c in clients), watch()), TIMEOUT)
            assert all(ended[:-1])
            final = (await h.stub.GetTable(pb.GetTableRequest(table_id=table_id))).table
            assert final.status == pb.TABLE_STATUS_FINISHED and final.game == pb.GAME_KIND_BLAGOGO
            assert final.rules.blagogo.players == players and final.rules.blagogo.target == target
            assert [s.strategy for s in final.seats][players - bots :] == ["random"] * bots
            table = h.server.registry.get(table_id)
            game = table.game
            assert isinstance(game, bg.Game) and game.is_over
            assert max(game.scores) >= target
            blanked = 0
            for client in clients:
                assert client.acted > 0
                assert_gap_free(client.messages, final.sequence)
                blanked += assert_hidden(client.seat, client.messages, table.log)
                # The stream is exactly the engine's events as this seat may see them (B-21).
                received = [codec_blagogo.event_from_proto(e) for e in blagogo_events(client.messages)]
                assert received == bg.events_for(game, client.seat)[-len(received) :]
                assert received[-1] == game.events[-1] and isinstance(received[-1], be.GameOver)
            assert_gap_free(spectator, final.sequence)
            blanked += assert_hidden(None, spectator, table.log)
            assert blanked > 0
            watched = [codec_blagogo.event_from_proto(e) for e in blagogo_events(spectator)]
            assert watched == bg.events_for(game, None)[-len(watched) :]

    run(scenario())


# ---------------------------------------------------------------- errors and B-22


def _first_turn_with_a_low_meld() -> tuple[int, bg.LayMelds, bg.LayMelds]:
    """A seed whose first player (seat 1, dealer 0) holds a natural 3-card meld worth less than the opening
    minimum (B-11) and is offered a candidate opening: the seed, that meld, that candidate."""
    rules = bg.BlagogoRules(players=2, target=TARGET, turnover_limit=TURNOVER_LIMIT)
    for seed in range(500):
        game = bg.Game(rules, seed, 0)
        game.apply_chance()
        assert game.round is not None and game.to_act == 1
        openings = [a for a in game.candidate_melds() if isinstance(a, bg.LayMelds)]
        naturals = [
            c for c in game.round.hand(1) if c.index < FIRST_JOKER and CARD_RANK[c.index] <= bg.Rank.NINE
        ]
        for trio in itertools.combinations(naturals, 3):
            ranks = sorted(CARD_RANK[c.index] for c in trio)
            suits = {CARD_SUIT[c.index] for c in trio}
            is_set = len(set(ranks)) == 1 and len(suits) == 3
            is_run = len(suits) == 1 and ranks == list(range(ranks[0], ranks[0] + 3))
            if (is_set or is_run) and openings:
                return seed, bg.LayMelds((bg.MeldSpec(trio),)), openings[0]
    raise AssertionError("no seed with a low meld and a candidate opening")


def test_blagogo_errors_and_a_meld_the_turn_does_not_list() -> None:
    """Blagogo rejections are ILLEGAL_ACTION with the engine's reason as `rule` (or INVALID_ARGUMENT for a
    malformed action); a legal LayMelds is accepted whether or not the Turn lists it (B-22)."""
    seed, low, opening = _first_turn_with_a_low_meld()

    async def scenario() -> None:
        async with harness() as h:
            s = h.stub
            request = blagogo_table(9, 0, seed)
            info = await expect_error(
                s.CreateTable(request), "INVALID_RULES", grpc.StatusCode.INVALID_ARGUMENT
            )
            assert info.metadata["field"] == "players"
            request = blagogo_table(3, 1, seed)
            request.seats[2].strategy = "greedy"  # a Thousand strategy
            await expect_error(s.CreateTable(request), "UNKNOWN_STRATEGY", grpc.StatusCode.INVALID_ARGUMENT)
            request = pb.CreateTableRequest(game=pb.GAME_KIND_BLAGOGO)
            request.rules.thousand.players = 3
            info = await expect_error(
                s.CreateTable(request), "INVALID_ARGUMENT", grpc.StatusCode.INVALID_ARGUMENT
            )
            assert info.metadata["field"] == "rules"
            request = pb.CreateTableRequest(game=7)  # type: ignore[arg-type]
            info = await expect_error(
                s.CreateTable(request), "INVALID_ARGUMENT", grpc.StatusCode.INVALID_ARGUMENT
            )
            assert info.metadata["field"] == "game"
            defaults = (await s.CreateTable(pb.CreateTableRequest(game=pb.GAME_KIND_BLAGOGO))).table
            assert (
                len(defaults.seats) == 4 and defaults.rules.blagogo.target == 1000
            )  # every default explicit
            assert defaults.rules.blagogo.HasField("turnover_limit")

            table_id, joins = await seated(s, blagogo_table(2, 0, seed))
            tokens = dict(joins)
            snapshot = await anext(
                aiter(s.StreamEvents(pb.StreamEventsRequest(table_id=table_id), metadata=token_md(tokens[1])))
            )
            assert snapshot.turn.seat == 1 and snapshot.snapshot.table.game == pb.GAME_KIND_BLAGOGO
            listed = [codec_blagogo.action_from_proto(a.blagogo) for a in snapshot.turn.legal_actions]
            assert opening in listed and low not in listed
            hand = codec_blagogo.view_from_proto(snapshot.turn.view.blagogo).hand
            foreign = next(c for c in bg.CARDS if c not in hand)

            async def refused(action: bg.Action, rule: str, seat: int = 1) -> None:
                info = await expect_error(
                    s.SubmitAction(submit(table_id, f"r-{rule}", action), metadata=token_md(tokens[seat])),
                    "ILLEGAL_ACTION",
                    grpc.StatusCode.FAILED_PRECONDITION,
                )
                assert info.metadata["rule"] == rule, info

            await refused(low, "OPENING_TOO_LOW")  # B-11
            await refused(bg.DrawFromDeck(), "WRONG_PHASE")  # B-8: the first player's first turn has no draw
            await refused(bg.Discard(foreign), "NO_SUCH_CARD")
            await refused(bg.LayMelds((bg.MeldSpec(hand[:2]),)), "MELD_TOO_SHORT")  # B-14
            await refused(bg.AddToMeld(0, (hand[0],), (), bg.End.HIGH), "NO_SUCH_MELD")
            await refused(bg.LayMelds((bg.MeldSpec(hand[-1:] * 3),)), "CARD_USED_TWICE")
            await expect_error(
                s.SubmitAction(submit(table_id, "r-turn", bg.Discard(hand[0])), metadata=token_md(tokens[0])),
                "NOT_YOUR_TURN",
                grpc.StatusCode.FAILED_PRECONDITION,
            )
            info = await expect_error(
                s.SubmitAction(submit(table_id, "r-empty", bg.LayMelds(())), metadata=token_md(tokens[1])),
                "INVALID_ARGUMENT",
                grpc.StatusCode.INVALID_ARGUMENT,
            )
            assert info.metadata["field"] == "action"
            thousand_action = pb.SubmitActionRequest(
                table_id=table_id,
                request_id="r-thousand",
                action=pb.Action(thousand=codec.action_to_proto(Pass())),
            )
            info = await expect_error(
                s.SubmitAction(thousand_action, metadata=token_md(tokens[1])),
                "INVALID_ARGUMENT",
                grpc.StatusCode.INVALID_ARGUMENT,
            )
            assert info.metadata["field"] == "action"
            unchanged = (await s.GetTable(pb.GetTableRequest(table_id=table_id))).table
            assert unchanged.sequence == snapshot.sequence

            # B-22: the candidate opening with its cards in another order is not listed, and is legal.
            reordered = bg.LayMelds(tuple(bg.MeldSpec(m.cards[::-1], m.jokers[::-1]) for m in opening.melds))
            assert reordered not in listed
            done = await s.SubmitAction(
                submit(table_id, "open", reordered, snapshot.sequence), metadata=token_md(tokens[1])
            )
            table = h.server.registry.get(table_id)
            laid = table.log[done.sequence - 1]
            assert isinstance(laid, be.MeldsLaid) and laid.opening and laid.seat == 1
            left = next(c for c in hand if all(c not in m.cards for m in opening.melds))
            await s.SubmitAction(submit(table_id, "discard", bg.Discard(left)), metadata=token_md(tokens[1]))
            await refused(bg.TakeFromBridge(0), "NOT_OPENED", seat=0)  # B-9: seat 0 has not opened

            # ListTables by game
            thousand_id = (
                await s.CreateTable(
                    pb.CreateTableRequest(game=pb.GAME_KIND_THOUSAND, seats=[pb.SeatConfig()] * 3)
                )
            ).table.table_id
            for game, present, absent in (
                (pb.GAME_KIND_BLAGOGO, table_id, thousand_id),
                (pb.GAME_KIND_THOUSAND, thousand_id, table_id),
            ):
                listed_ids = [
                    t.table_id
                    for t in (await s.ListTables(pb.ListTablesRequest(game=game, page_size=100))).tables
                ]
                assert present in listed_ids and absent not in listed_ids
                assert all(
                    t.game == game for t in (await s.ListTables(pb.ListTablesRequest(game=game))).tables
                )
            every = [t.table_id for t in (await s.ListTables(pb.ListTablesRequest(page_size=100))).tables]
            assert {table_id, thousand_id, defaults.table_id} <= set(every)
            await expect_error(
                s.ListTables(pb.ListTablesRequest(game=9)),  # type: ignore[arg-type]
                "INVALID_ARGUMENT",
                grpc.StatusCode.INVALID_ARGUMENT,
            )

    run(scenario())


# ---------------------------------------------------------------- resume


def test_resume_from_a_sequence_number_returns_exactly_the_missed_events() -> None:
    async def scenario() -> None:
        async with harness() as h:
            table_id, joins = await seated(h.stub, blagogo_table(3, 2, seed=21))
            seat, token = joins[0]
            player = Player(h.stub, table_id, seat, token)
            assert not await asyncio.wait_for(player.play(stop_after=12), TIMEOUT)
            first = player.messages
            seen = first[-1].sequence
            # Nothing missed: the resumed stream starts with the turn alone.
            call = h.stub.StreamEvents(
                pb.StreamEventsRequest(table_id=table_id, after_sequence=seen), metadata=token_md(token)
            )
            alone = await anext(aiter(call))
            call.cancel()
            assert alone.WhichOneof("payload") is None and alone.sequence == seen and alone.turn.seat == seat
            # From an earlier point: exactly the events after it, as they were first sent, then play on.
            earlier = seen - 15
            player.messages = []
            assert await asyncio.wait_for(player.play(after=earlier), TIMEOUT)
            resumed = player.messages
            assert not any(m.HasField("snapshot") for m in resumed)
            assert [m.sequence for m in resumed] == list(range(earlier + 1, resumed[-1].sequence + 1))
            before = {m.sequence: m.event for m in first if m.HasField("event")}
            again = {m.sequence: m.event for m in resumed if m.sequence <= seen}
            assert again == {n: before[n] for n in range(earlier + 1, seen + 1)}
            assert blagogo_events(resumed)[-1].HasField("game_over")

    run(scenario())


# ---------------------------------------------------------------- metrics


def test_a_blagogo_table_is_counted_under_its_own_game() -> None:
    """Metrics and lifecycle by game: a table of Blagogo bots counts under game="blagogo", its rounds as
    deals of kind "round"."""

    async def scenario() -> None:
        metrics = Metrics()
        telemetry = Telemetry(metrics.game)
        registry = Registry(None, telemetry)
        metrics.watch(registry, telemetry)
        rules = bg.BlagogoRules(players=3, target=TARGET, turnover_limit=TURNOVER_LIMIT)
        table = await registry.create(
            rules, [SeatSpec(bot=True, strategy="random")] * 3, seed=4, first_dealer=None
        )
        applied = 0
        while (seat := bot_to_act(table)) is not None:
            await play_bot(table, seat)
            applied += 1
        assert table.finished
        rounds = sum(1 for e in table.log if isinstance(e, be.RoundScored))
        m = Scrape(generate_latest(metrics.registry).decode())
        game = {"game": "blagogo"}
        assert m.value("thousand_tables_created_total", **game) == 1
        assert m.value("thousand_tables", status="finished", **game) == 1
        assert m.value("thousand_tables", status="finished", game="thousand") == 0
        assert m.value("thousand_seats_taken", kind="bot", **game) == 3
        assert m.value("thousand_actions_total", outcome="applied", **game) == applied
        assert m.value("thousand_actions_total", outcome="applied", kind="discard", **game) > 0
        assert m.value("thousand_actions_total", outcome="applied", kind="lay_melds", **game) > 0
        assert m.value("thousand_deals_finished_total", kind="round", **game) == rounds > 0
        assert m.value("thousand_games_finished_total", **game) == 1
        assert m.value("thousand_bot_decision_seconds_count", strategy="random") == applied

    run(scenario())
