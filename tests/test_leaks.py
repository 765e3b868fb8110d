"""No hidden card ever leaves the server where T-33 forbids it.

Every seat's and a spectator's stream over whole random games is checked against an oracle written apart from
the observer: the cards each seat may know by the rules alone."""

from __future__ import annotations

import asyncio

import pytest

import server.streams as streams_module
from engine import Rules
from engine.cards import Card, Rank, Suit
from server.creations import SeatSpec
from server.registry import Registry
from tests.table_driving import bot_to_act, play_bot
from thousand.v1 import table_service_pb2 as pb
from thousand.v1.cards_pb2 import Card as CardMessage


def card_of(message: CardMessage) -> Card:
    return Card(Suit(message.suit - 1), Rank(message.rank - 1))


class Oracle:
    """What one viewer may know, built only from the rules of T-33 and the unfiltered deal."""

    def __init__(self, viewer: int | None) -> None:
        self.viewer = viewer
        self.allowed: set[Card] = set()

    def public(self, cards: list[Card]) -> None:
        self.allowed.update(cards)

    def private(self, seat: int | None, cards: list[Card]) -> None:
        if seat is not None and seat == self.viewer:
            self.allowed.update(cards)

    def reset(self) -> None:
        self.allowed = set()


def cards_in(message: object) -> list[Card]:
    """Every Card message inside ``message``, however deep."""
    found: list[Card] = []

    def walk(m: object) -> None:
        if isinstance(m, CardMessage):
            found.append(card_of(m))
            return
        for field, value in m.ListFields():  # type: ignore[attr-defined]
            if field.message_type is None:
                continue
            if field.is_repeated:
                for item in value:
                    walk(item)
            else:
                walk(value)

    walk(message)
    return found


@pytest.mark.parametrize("seed", range(6))
def test_no_stream_receives_a_card_its_viewer_may_not_see(seed: int) -> None:
    rules = Rules(players=3 + seed % 2, dark=seed % 3 == 0, golden_deals=seed % 2 == 0)

    async def scenario() -> None:
        registry = Registry()
        table = await registry.create(
            rules, [SeatSpec(True, "random")] * rules.players, seed=seed, first_dealer=0
        )
        audiences: list[int | None] = [*range(rules.players), None]
        received: dict[int | None, list[pb.StreamEventsResponse]] = {a: [] for a in audiences}

        async def consume(audience: int | None) -> None:
            async for data in table.stream(audience, 0):
                received[audience].append(pb.StreamEventsResponse.FromString(data))

        readers = [asyncio.create_task(consume(a)) for a in audiences]
        await asyncio.sleep(0)
        while table.game.deals_dealt < 8 and (seat := bot_to_act(table)) is not None:
            await play_bot(table, seat)
            for _ in range(3):
                await asyncio.sleep(0)  # let every stream take what was queued
        for reader in readers:
            reader.cancel()
        await asyncio.gather(*readers, return_exceptions=True)
        assert all(len(received[a]) > 100 for a in audiences)
        for audience in audiences:
            check(audience, received[audience])

    asyncio.run(scenario())


def check(viewer: int | None, messages: list[pb.StreamEventsResponse]) -> None:
    oracle = Oracle(viewer)
    for message in messages:
        if message.HasField("snapshot"):
            oracle.reset()  # a resync: the snapshot's own view is checked by the engine's property tests
            continue
        event = message.event.thousand
        kind = event.WhichOneof("event")
        if kind is None:
            continue
        body = getattr(event, kind)
        if kind == "deal_started":
            oracle.reset()
        elif kind == "hand_dealt":
            oracle.private(body.seat, [card_of(c) for c in body.cards])
        elif kind == "talon_taken":
            cards = [card_of(c) for c in body.cards]
            oracle.public(cards) if body.face_up else oracle.private(body.seat, cards)
        elif kind == "card_given":
            if body.HasField("card"):
                receiver = body.to_seat if body.HasField("to_seat") else None
                assert viewer in (body.seat, receiver), f"{viewer} saw the card {body.seat} gave"
                oracle.private(viewer, [card_of(body.card)])
        elif kind in ("card_played", "trick_taken", "last_talon_taken", "deal_revealed"):
            oracle.public(cards_in(body))  # played cards are public; a finished deal may be revealed
        if kind not in ("hand_dealt", "talon_taken", "card_given"):
            continue
        leaked = set(cards_in(body)) - oracle.allowed
        assert not leaked, f"viewer {viewer} received {sorted(map(str, leaked))} in {kind}"
        if message.turn.HasField("view"):
            assert message.turn.seat == viewer


def test_a_lagging_stream_of_a_released_seat_ends_without_a_snapshot(monkeypatch: pytest.MonkeyPatch) -> None:
    """A stream that fell behind is normally resynchronized with a snapshot of its seat; once the seat is
    given up it must end instead, with nothing more of that seat (T-33)."""
    monkeypatch.setattr(streams_module, "STREAM_QUEUE_SIZE", 4)

    async def scenario() -> None:
        table = await Registry().create(Rules(), [SeatSpec(bot=False)] * 3, seed=5, first_dealer=0)
        for seat in range(3):
            await table.join(seat, f"p{seat}")
        stream = table.stream(0, None)
        assert pb.StreamEventsResponse.FromString(await anext(stream)).HasField("snapshot")
        for step in range(40):  # nobody reads: the stream's queue overflows
            seat = table.game.to_act
            assert seat is not None
            await table.submit(seat, f"r{step}", None, table.game.legal_actions()[0])
        await table.leave(0)
        with pytest.raises(StopAsyncIteration):
            await anext(stream)

    asyncio.run(scenario())
