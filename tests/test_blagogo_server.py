"""1000 Blagogo on the gRPC server: the same tables, streams, bots and store as Thousand (server/games/).

Whole games with 2, 5 and 8 players (open seats played by scripted clients choosing among their Turn's
actions with a seeded generator, the other seats server-run ``random`` bots), hidden information on the wire
(B-21), every error a Blagogo action can meet, a LayMelds the Turn does not list (B-22), resuming a stream,
a restart on the same database mid-game, and the exported record of the finished game replaying exactly.

The tables use a small ``target`` and ``turnover_limit=1`` (rules B-20, B-10): random players rarely go out,
and without the limit a round whose cards are all dead would never end.
"""

from __future__ import annotations

import asyncio
import itertools
import json
import random
from dataclasses import dataclass, field
from pathlib import Path

import grpc
import pytest
from grpc import aio
from prometheus_client import generate_latest

from clients.bots.blagogo import BlagogoRandomStrategy
from codec import blagogo as codec_blagogo
from codec import thousand as codec
from engine import Pass
from engine import blagogo as bg
from engine.blagogo import events as be
from engine.blagogo.cards import CARD_RANK, CARD_SUIT, FIRST_JOKER
from server.app import Server
from server.creations import SeatSpec
from server.export import action_from_json, action_json, record_of, replay
from server.games import BLAGOGO
from server.metrics import Metrics
from server.registry import Registry
from server.settings import Settings
from server.store import TableConfig
from server.stores import open_store
from server.telemetry import Telemetry
from tests.server_harness import expect_error, harness, run, token_md
from tests.test_ops_metrics import Scrape
from thousand.v1 import blagogo_events_pb2
from thousand.v1 import table_service_pb2 as pb
from thousand.v1 import table_service_pb2_grpc as pb_grpc

TARGET = 100
TURNOVER_LIMIT = 1
TIMEOUT = 60


def blagogo_table(players: int, bots: int, seed: int, **rules: object) -> pb.CreateTableRequest:
    seats = [pb.SeatConfig(kind=pb.SEAT_KIND_OPEN) for _ in range(players - bots)]
    seats += [pb.SeatConfig(kind=pb.SEAT_KIND_BOT, strategy="random") for _ in range(bots)]
    request = pb.CreateTableRequest(
        game=pb.GAME_KIND_BLAGOGO, seats=seats, seed=seed, practice=True, first_dealer=0
    )
    request.rules.blagogo.target = TARGET
    request.rules.blagogo.turnover_limit = TURNOVER_LIMIT
    for name, value in rules.items():
        setattr(request.rules.blagogo, name, value)
    return request


async def seated(
    stub: pb_grpc.TableServiceAsyncStub, request: pb.CreateTableRequest
) -> tuple[str, list[tuple[int, str]]]:
    table = (await stub.CreateTable(request)).table
    joins = []
    for seat in table.seats:
        if seat.kind == pb.SEAT_KIND_OPEN:
            joined = await stub.JoinTable(
                pb.JoinTableRequest(table_id=table.table_id, player_name=f"p{seat.seat}")
            )
            joins.append((joined.seat, joined.seat_token))
    return table.table_id, joins


def submit(
    table_id: str, request_id: str, action: bg.Action, last_seen: int | None = None
) -> pb.SubmitActionRequest:
    request = pb.SubmitActionRequest(
        table_id=table_id,
        request_id=request_id,
        action=pb.Action(blagogo=codec_blagogo.action_to_proto(action)),
    )
    if last_seen is not None:
        request.last_seen_sequence = last_seen
    return request


@dataclass
class Player:
    """A scripted client: streams its seat and plays a seeded random choice among its Turn's actions."""

    stub: pb_grpc.TableServiceAsyncStub
    table_id: str
    seat: int
    token: str
    messages: list[pb.StreamEventsResponse] = field(default_factory=list)
    acted: int = 0
    rng: random.Random = field(init=False)
    strategy: BlagogoRandomStrategy = field(default_factory=BlagogoRandomStrategy)

    def __post_init__(self) -> None:
        self.rng = random.Random(1000 + self.seat)

    async def play(self, *, stop_after: int | None = None, after: int | None = None) -> bool:
        """Play to the game's end (True), or stop at this seat's turn after ``stop_after`` actions (False)."""
        request = pb.StreamEventsRequest(table_id=self.table_id)
        if after is not None:
            request.after_sequence = after
        call = self.stub.StreamEvents(request, metadata=token_md(self.token))
        async for message in call:
            self.messages.append(message)
            turn = message.turn
            if turn.HasField("seat") and turn.seat == self.seat and turn.HasField("view"):
                if stop_after is not None and self.acted >= stop_after:
                    call.cancel()
                    return False
                view = codec_blagogo.view_from_proto(turn.view.blagogo)
                assert view.viewer == self.seat and view.to_act == self.seat
                choices = [codec_blagogo.action_from_proto(a.blagogo) for a in turn.legal_actions]
                assert choices, "the acting seat's stream carries its actions"
                assert set(view.legal_actions) <= set(choices), "the simple legal actions come first"
                action = self.strategy.choose(view, choices, self.rng)
                self.acted += 1
                await self.stub.SubmitAction(
                    submit(self.table_id, f"{self.seat}-{self.acted}", action, message.sequence),
                    metadata=token_md(self.token),
                )
        return any(e.HasField("game_over") for e in blagogo_events(self.messages))


def blagogo_events(messages: list[pb.StreamEventsResponse]) -> list[blagogo_events_pb2.BlagogoEvent]:
    return [m.event.blagogo for m in messages if m.HasField("event") and m.event.HasField("blagogo")]


def assert_gap_free(messages: list[pb.StreamEventsResponse], last: int) -> None:
    """A snapshot, then every sequence number after it up to ``last``, once each."""
    assert messages[0].HasField("snapshot")
    sequences = [m.sequence for m in messages[1:] if m.WhichOneof("payload")]
    assert sequences == list(range(messages[0].sequence + 1, last + 1))


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


# ---------------------------------------------------------------- durability and export


def test_restart_on_the_same_database_mid_game_then_finish_and_export(tmp_path: Path) -> None:
    """Stop the server mid-game; restarted on the same database the table is the same (sequence, seats,
    tokens, game and rules), the game finishes, the client's events equal an engine replay of the stored
    actions, and the exported record replays exactly."""
    db = str(tmp_path / "b.db")

    async def scenario() -> tuple[str, int, list[pb.StreamEventsResponse]]:
        server = Server(Settings(host="127.0.0.1", port=0, db=db))
        await server.start()
        async with aio.insecure_channel(f"127.0.0.1:{server.port}") as channel:
            stub = pb_grpc.TableServiceStub(channel)
            table_id, joins = await seated(stub, blagogo_table(3, 2, seed=31, bridge_take_must_meld=True))
            seat, token = joins[0]
            player = Player(stub, table_id, seat, token)
            assert not await asyncio.wait_for(player.play(stop_after=10), TIMEOUT)
            before = (await stub.GetTable(pb.GetTableRequest(table_id=table_id))).table
        await server.stop(grace=0.2)

        restarted = Server(Settings(host="127.0.0.1", port=0, db=db))
        await restarted.start()
        try:
            async with aio.insecure_channel(f"127.0.0.1:{restarted.port}") as channel:
                stub = pb_grpc.TableServiceStub(channel)
                after = (await stub.GetTable(pb.GetTableRequest(table_id=table_id))).table
                assert after == before
                assert after.game == pb.GAME_KIND_BLAGOGO and after.rules.blagogo.bridge_take_must_meld
                player.stub = stub
                seen = player.messages[-1].sequence
                assert await asyncio.wait_for(player.play(after=seen), TIMEOUT)
                final = (await stub.GetTable(pb.GetTableRequest(table_id=table_id))).table
                assert final.status == pb.TABLE_STATUS_FINISHED
        finally:
            await restarted.stop(grace=0.2)
        return table_id, seat, player.messages

    table_id, seat, messages = asyncio.run(scenario())
    assert_gap_free(messages, messages[-1].sequence)

    stored = open_store(db).get(table_id)
    assert stored is not None and stored.config.game == "blagogo"
    game = bg.Game(
        BLAGOGO.rules_from_bytes(stored.config.rules), stored.config.seed, stored.config.first_dealer
    )
    for record in stored.records:
        while game.is_chance_node:
            game.apply_chance()
        if record.kind == "action":
            game.apply(record.seat, BLAGOGO.action_from_bytes(record.data))
    assert game.is_over
    received = [codec_blagogo.event_from_proto(e) for e in blagogo_events(messages)]
    assert received == bg.events_for(game, seat)[-len(received) :]

    record = json.loads(json.dumps(record_of(stored), ensure_ascii=False))
    assert record["game"] == "blagogo" and record["finished"] is True
    assert record["rules"]["bridge_take_must_meld"] is True and record["rules"]["target"] == TARGET
    replayed = replay(record)
    assert isinstance(replayed, bg.Game)
    assert replayed.events == game.events  # the whole game, hidden cards included, exactly
    assert replayed.winner == record["winner"] == game.winner
    assert [[s.seat, s.place, s.score] for s in replayed.standings] == [
        [s["seat"], s["place"], s["score"]] for s in record["standings"]
    ]
    engine_events = [e for e in record["events"] if "blagogo" in e]
    assert len(engine_events) == len(game.events)
    assert engine_events[-1]["blagogo"]["gameOver"].get("winner", 0) == game.winner  # JSON leaves out a 0
    kinds = {a["action"]["kind"] for a in record["actions"]}
    assert {"draw_from_deck", "lay_melds", "discard"} <= kinds


def test_blagogo_actions_round_trip_through_the_records_json() -> None:
    card = bg.Card.parse
    actions: list[bg.Action] = [
        bg.DrawFromDeck(),
        bg.TakeFromBridge(4),
        bg.LayMelds(
            (
                bg.MeldSpec((card("Q♠"), card("★1"), card("★2")), (bg.Stands(bg.Rank.QUEEN),) * 2),
                bg.MeldSpec((card("5♥'"), card("★4"), card("7♥")), (bg.Stands(bg.Rank.SIX, bg.Suit.HEARTS),)),
            )
        ),
        bg.AddToMeld(2, (card("10♦"), card("★3")), (bg.Stands(bg.Rank.JACK, bg.Suit.DIAMONDS),), bg.End.HIGH),
        bg.AddToMeld(0, (card("Q♣'"),)),
        bg.SwapJoker(1, card("6♥")),
        bg.Discard(card("A♠'")),
    ]
    for action in actions:
        assert action_from_json(json.loads(json.dumps(action_json(action))), "blagogo") == action
    with pytest.raises(ValueError, match="unknown action kind"):
        action_from_json({"kind": "bid", "value": 100}, "blagogo")


def test_tables_stored_before_blagogo_are_thousand_tables() -> None:
    old = '{"rules": "", "seats": [[false, ""], [false, ""], [false, ""]], "seed": "5", "first_dealer": null}'
    assert TableConfig.from_json(old).game == "thousand"
    new = TableConfig(b"", [(True, "random")] * 2, 5, 0, game="blagogo")
    assert TableConfig.from_json(new.to_json()) == new


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
        while (seat := table.bot_to_act()) is not None:
            await table.play_bot(seat)
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
