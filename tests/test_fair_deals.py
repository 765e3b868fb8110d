"""Fair deals over the contract only (issue 19): what clients receive, nothing of the server's insides.

The issue's attack (find the seed that gives a revealed deal, then compute the next deal from it) succeeds in
a fraction of a second against a practice table with a small seed, and fails against an unseeded table after
any number of revealed deals: no message sent before a deal is revealed holds that deal's secret or the
table's. A seeded table says so everywhere a client sees it. A seat's own check (engine.verify, fed with the
decoded wire messages) passes on an honest game and fails on a tampered deck, a tampered commitment or a
dropped seed. A server killed after a seat was taken, and restarted, deals the cards that the commitment
it published before the crash and the seats' seeds give.
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import random
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import grpc
from grpc import aio

from bots.strategy import greedy_player
from clients.messages import EventMessage
from clients.session import TableSession
from codec import thousand as codec
from engine import Game, Rules, events_for
from engine.events import DealRevealed, DeckShuffled, Event, GameOver
from engine.seeds import deal_key, deal_salt, seeded_shuffle
from engine.verify import DealChecker, Witness, commitment
from scripts.ports import free_port
from server.export import replay
from tests.in_process import serving
from tests.live_server import LiveServer
from tests.server_harness import expect_error, run, token_md
from thousand.v1 import table_service_pb2 as pb
from thousand.v1 import table_service_pb2_grpc as pb_grpc

OPEN = pb.SeatConfig(kind=pb.SEAT_KIND_OPEN)
GREEDY = pb.SeatConfig(kind=pb.SEAT_KIND_BOT, strategy="greedy")
TIMEOUT = 90


def table_request(seats: list[pb.SeatConfig], **fields: object) -> pb.CreateTableRequest:
    return pb.CreateTableRequest(game=pb.GAME_KIND_THOUSAND, seats=seats, **fields)  # type: ignore[arg-type]


def seed_of(name: str) -> str:
    """A seat's seed (64 hex digits: any 16 to 128 of A-Z a-z 0-9 - _ would do)."""
    return hashlib.sha256(name.encode()).hexdigest()


@dataclass
class Seat:
    """One client seat: the table as read before joining, its seed and token, everything its stream sent."""

    stub: pb_grpc.TableServiceAsyncStub
    table: pb.Table
    seat: int
    seed: str
    token: str = ""
    messages: list[pb.StreamEventsResponse] = field(default_factory=list)

    @staticmethod
    async def join(stub: pb_grpc.TableServiceAsyncStub, table_id: str, seat: int, seed: str) -> Seat:
        before = (await stub.GetTable(pb.GetTableRequest(table_id=table_id))).table
        request = pb.JoinTableRequest(table_id=table_id, seat=seat, player_name=f"p{seat}", client_seed=seed)
        joined = await stub.JoinTable(request)
        assert joined.table.fairness == before.fairness  # the commitment does not change as seats are taken
        return Seat(stub, before, joined.seat, seed, joined.seat_token)

    @property
    def witness(self) -> Witness:
        return Witness(self.table.fairness.commitment, self.seat, self.seed)

    def events(self) -> list[Event]:
        return [
            codec.event_from_proto(m.event.thousand)
            for m in self.messages
            if m.HasField("event") and m.event.HasField("thousand")
        ]

    async def play(self, until: Callable[[list[Event]], bool] = lambda _: False) -> None:
        """Stream from the table's first event (so the first deal's commitment is seen) and play greedily
        until ``until`` holds for the events so far, or the game is over."""
        md = token_md(self.token)
        request = pb.StreamEventsRequest(table_id=self.table.table_id, after_sequence=len(self.messages))
        rng = random.Random(self.seat)
        events: list[Event] = self.events()
        call = self.stub.StreamEvents(request, metadata=md)
        async for message in call:
            self.messages.append(message)
            if message.HasField("event") and message.event.HasField("thousand"):
                events.append(codec.event_from_proto(message.event.thousand))
                if isinstance(events[-1], GameOver):
                    return
            if until(events):
                call.cancel()
                return
            turn = message.turn
            if turn.HasField("seat") and turn.seat == self.seat and turn.HasField("view"):
                action = greedy_player(codec.view_from_proto(turn.view.thousand), rng)
                await self.stub.SubmitAction(
                    pb.SubmitActionRequest(
                        table_id=self.table.table_id,
                        request_id=f"{self.seat}-{message.sequence}",
                        last_seen_sequence=message.sequence,
                        action=pb.Action(thousand=codec.action_to_proto(action)),
                    ),
                    metadata=md,
                )


def revealed(events: list[Event]) -> list[DealRevealed]:
    return [e for e in events if isinstance(e, DealRevealed)]


def shuffled(events: list[Event], number: int) -> DeckShuffled | None:
    return next((e for e in events if isinstance(e, DeckShuffled) and e.number == number), None)


def attack(deal: DealRevealed, next_commitment: str, seeds: range = range(10_000)) -> int | None:
    """The issue's attack: the seed whose deal gives the revealed one (its deal_seed when revealed, else its
    order), then the next deal computed from it and matched against the next deal's commitment, sent before
    any of its cards. Returns the seed when the next deal was predicted."""
    for seed in seeds:
        key = deal_key(seed, deal.number)
        if key == deal.deal_seed or (
            deal.deal_seed is None and seeded_shuffle(seed, deal.number).order == deal.order
        ):
            n = deal.number + 1
            predicted = commitment(deal_salt(seed, n), deal_key(seed, n), seeded_shuffle(seed, n).order)
            return seed if predicted == next_commitment else None
    return None


def deals_revealed(count: int) -> Callable[[list[Event]], bool]:
    """Stop once ``count`` deals are revealed and the next one's commitment has been sent."""
    return lambda events: len(revealed(events)) >= count and shuffled(events, count + 1) is not None


# ---------------------------------------------------------------- the attack


def test_the_seed_attack_succeeds_on_a_small_seed_and_fails_on_every_unseeded_table() -> None:
    async def scenario() -> None:
        async with serving() as (_, stub):
            practice = (
                await stub.CreateTable(table_request([OPEN, GREEDY, GREEDY], seed=8028, practice=True))
            ).table
            seat = await Seat.join(stub, practice.table_id, 0, seed_of("practice"))
            await asyncio.wait_for(seat.play(deals_revealed(1)), TIMEOUT)
            events = seat.events()
            next_commitment = shuffled(events, 2)
            assert next_commitment is not None
            started = time.perf_counter()
            assert attack(revealed(events)[0], next_commitment.commitment) == 8028
            assert time.perf_counter() - started < 5

            for round_ in range(2):
                table = (await stub.CreateTable(table_request([OPEN, GREEDY, GREEDY]))).table
                seat = await Seat.join(stub, table.table_id, 0, seed_of(f"fair {round_}"))
                deals = 5
                await asyncio.wait_for(seat.play(deals_revealed(deals)), TIMEOUT)
                events = seat.events()
                shown = revealed(events)
                assert len(shown) >= deals
                for deal in shown:
                    following = shuffled(events, deal.number + 1)
                    assert deal.deal_seed is None and len(deal.salt) == 64
                    if following is not None:
                        assert attack(deal, following.commitment) is None
                # Nothing any message carried before a deal was revealed holds its secret, nor the
                # table's: what a seat saw up to then cannot give the deal.
                secrets_of = {deal.number: deal.salt for deal in shown}
                for number, salt in secrets_of.items():
                    for message in seat.messages:
                        event = message.event.thousand
                        if event.HasField("deal_revealed") and event.deal_revealed.number == number:
                            break
                        data = message.SerializeToString()
                        assert salt.encode() not in data and bytes.fromhex(salt) not in data
                final = (await stub.GetTable(pb.GetTableRequest(table_id=table.table_id))).table
                assert final.fairness.secret == ""  # the game goes on: the table's secret is kept

    run(scenario())


# ---------------------------------------------------------------- seeded tables


def test_a_seeded_table_says_so_and_needs_practice_with_an_open_seat() -> None:
    async def scenario() -> None:
        async with serving() as (_, stub):
            for seats in ([OPEN, GREEDY, GREEDY], [OPEN, OPEN, OPEN]):
                refused = await expect_error(
                    stub.CreateTable(table_request(seats, seed=7)),
                    "INVALID_ARGUMENT",
                    grpc.StatusCode.INVALID_ARGUMENT,
                )
                assert refused.metadata["field"] == "seed"
            practice = (
                await stub.CreateTable(table_request([OPEN, GREEDY, GREEDY], seed=7, practice=True))
            ).table
            bots_only = (await stub.CreateTable(table_request([GREEDY] * 3, seed=7))).table
            fair = (await stub.CreateTable(table_request([OPEN, GREEDY, GREEDY], practice=True))).table
            for table in (practice, bots_only):
                assert table.seeded and not table.HasField("fairness")
            assert not fair.seeded and fair.fairness.scheme == "thousand.fair.v1"
            assert len(fair.fairness.commitment) == 64 and fair.fairness.secret == ""
            listed = {t.table_id: t for t in (await stub.ListTables(pb.ListTablesRequest())).tables}
            assert listed[practice.table_id].seeded and listed[bots_only.table_id].seeded
            assert not listed[fair.table_id].seeded
            assert listed[fair.table_id].fairness.commitment == fair.fairness.commitment
            got = (await stub.GetTable(pb.GetTableRequest(table_id=practice.table_id))).table
            assert got.seeded
            joined = await stub.JoinTable(pb.JoinTableRequest(table_id=practice.table_id))
            assert joined.table.seeded
            stream = stub.StreamEvents(
                pb.StreamEventsRequest(table_id=practice.table_id), metadata=token_md(joined.seat_token)
            )
            first = await stream.read()
            assert isinstance(first, pb.StreamEventsResponse) and first.snapshot.table.seeded
            stream.cancel()
            # A seat's seed must be one the scheme takes.
            for bad in ("short", "has spaces in it, sixteen+", "x" * 129):
                await expect_error(
                    stub.JoinTable(pb.JoinTableRequest(table_id=fair.table_id, client_seed=bad)),
                    "INVALID_ARGUMENT",
                    grpc.StatusCode.INVALID_ARGUMENT,
                )

    run(scenario())


# ---------------------------------------------------------------- a seat's own check


def _tampered(
    messages: list[pb.StreamEventsResponse], change: Callable[[pb.StreamEventsResponse], None]
) -> list[Event]:
    events = []
    for message in messages:
        if message.HasField("event") and message.event.HasField("thousand"):
            copy = pb.StreamEventsResponse()
            copy.CopyFrom(message)
            change(copy)
            events.append(codec.event_from_proto(copy.event.thousand))
    return events


def _checked(witness: Witness, events: list[Event]) -> DealChecker:
    checker = DealChecker(witness)
    for event in events:
        checker.see(event)
    return checker


def test_each_seat_verifies_a_whole_fair_game_and_catches_tampering() -> None:
    async def scenario() -> None:
        async with serving() as (_, stub):
            table = (await stub.CreateTable(table_request([OPEN, OPEN, GREEDY]))).table
            seats = [await Seat.join(stub, table.table_id, s, seed_of(f"seat {s}")) for s in (0, 1)]
            await asyncio.wait_for(asyncio.gather(*(s.play() for s in seats)), TIMEOUT)
            final = (await stub.GetTable(pb.GetTableRequest(table_id=table.table_id))).table
            assert final.status == pb.TABLE_STATUS_FINISHED and len(final.fairness.secret) == 64
            for seat in seats:
                events = seat.events()
                checker = _checked(seat.witness, events)
                assert checker.problems == []
                assert checker.verified == [d.number for d in revealed(events)] and checker.verified
                assert checker.secret_checked
                over = events[-1]
                assert isinstance(over, GameOver) and over.table_secret == final.fairness.secret
                assert all(d.client_seeds == (seats[0].seed, seats[1].seed, "") for d in revealed(events))

            # The game record holds the table's secret and each deal's seeds, and replays the game exactly.
            # A long game's record outgrows one message of a default client's 4 MiB: it is read in parts
            # (StreamTableRecord, tests/test_export_size.py), as long as the game these greedy seats play.
            request = pb.StreamTableRecordRequest(table_id=table.table_id)
            record = json.loads(b"".join([r.record_part async for r in stub.StreamTableRecord(request)]))
            assert record["seeded"] is False and record["fair"]["secret"] == final.fairness.secret
            assert record["fair"]["commitment"] == table.fairness.commitment
            replayed = replay(record)
            assert isinstance(replayed, Game)
            for seat in seats:
                assert events_for(replayed, seat.seat) == seat.events()

            seat = seats[0]

            def swap_cards(message: pb.StreamEventsResponse) -> None:
                event = message.event.thousand
                if event.HasField("deal_revealed") and event.deal_revealed.number == 2:
                    order = event.deal_revealed.order
                    a, b = order[0].SerializeToString(), order[1].SerializeToString()
                    order[0].ParseFromString(b)
                    order[1].ParseFromString(a)

            def other_commitment(message: pb.StreamEventsResponse) -> None:
                event = message.event.thousand
                if event.HasField("deck_shuffled") and event.deck_shuffled.number == 1:
                    event.deck_shuffled.commitment = hashlib.sha256(b"another deal").hexdigest()

            def drop_my_seed(message: pb.StreamEventsResponse) -> None:
                event = message.event.thousand
                if event.HasField("deal_revealed") and event.deal_revealed.number == 3:
                    event.deal_revealed.client_seeds[0] = ""

            failed = {
                "deck": _checked(seat.witness, _tampered(seat.messages, swap_cards)).problems,
                "commitment": _checked(seat.witness, _tampered(seat.messages, other_commitment)).problems,
                "seed": _checked(seat.witness, _tampered(seat.messages, drop_my_seed)).problems,
            }
            assert failed == {
                "deck": ["deal 2: the revealed order does not match the commitment"],
                "commitment": ["deal 1: the revealed order does not match the commitment"],
                "seed": ["deal 3: your seed is not the one the deal was dealt from"],
            }
            # A commitment the seat did not read before joining (another table's) proves nothing.
            elsewhere = Witness(hashlib.sha256(b"another table").hexdigest(), 0, seat.seed)
            assert _checked(elsewhere, seat.events()).problems == [
                "the table's secret does not match the commitment published before the game"
            ]

    run(scenario())


def test_the_python_library_adds_a_seed_of_its_own_and_verifies_every_deal() -> None:
    """TableSession.join draws the seat's seed after reading the table's commitment; TableSession.deals
    checks every deal the stream reveals, and the table's secret at the end."""

    async def scenario() -> None:
        async with serving() as (server, _), TableSession(f"127.0.0.1:{server.port}") as session:
            table = await session.create_table(Rules(), [None, "greedy", "greedy"])
            assert not table.seeded and table.fairness.commitment
            seat = await session.join(table.table_id)
            seed = session.client_seed
            assert seed is not None and len(seed) == 43
            rng = random.Random(1)
            seeds_seen: set[tuple[str, ...]] = set()
            async for item in session.stream(from_start=True):
                if not isinstance(item, EventMessage):
                    continue
                if isinstance(item.event, DealRevealed):
                    seeds_seen.add(item.event.client_seeds)
                turn = item.turn
                if turn is not None and turn.seat == seat and turn.view is not None and turn.legal_actions:
                    await session.submit(greedy_player(turn.view, rng))
            assert session.deals.problems == [] and session.deals.secret_checked
            assert len(session.deals.verified) >= 2
            assert seeds_seen == {(seed, "", "")}

    run(scenario())


# ---------------------------------------------------------------- a restart


def test_a_restarted_server_deals_the_cards_committed_to_before_the_crash(tmp_path: Path) -> None:
    """A seat is taken, the server is SIGKILLed before the first deal, restarted on the same store, and the
    last seat is taken: the game's every deal follows from the commitment read before the crash and both
    seats' seeds (the first one given to the server that crashed)."""
    server = LiveServer(port=free_port(), db=str(tmp_path / "fair.db"), log=tmp_path / "server.log")

    async def before_crash() -> tuple[pb.Table, Seat]:
        async with aio.insecure_channel(server.address) as channel:
            stub = pb_grpc.TableServiceStub(channel)
            table = (await stub.CreateTable(table_request([OPEN, OPEN, GREEDY]))).table
            first = await Seat.join(stub, table.table_id, 0, seed_of("before the crash"))
            return table, first

    async def after_restart(table: pb.Table, first: Seat) -> None:
        async with aio.insecure_channel(server.address) as channel:
            stub = pb_grpc.TableServiceStub(channel)
            again = (await stub.GetTable(pb.GetTableRequest(table_id=table.table_id))).table
            assert again.fairness == table.fairness and again.status == pb.TABLE_STATUS_WAITING
            first.stub = stub
            second = await Seat.join(stub, table.table_id, 1, seed_of("after the restart"))
            await asyncio.wait_for(asyncio.gather(first.play(), second.play()), TIMEOUT)
            for seat in (first, second):
                checker = _checked(Witness(table.fairness.commitment, seat.seat, seat.seed), seat.events())
                assert checker.problems == [] and checker.secret_checked and 1 in checker.verified
            deal = revealed(first.events())[0]
            assert deal.client_seeds == (first.seed, second.seed, "")

    server.start()
    try:
        table, first = run(before_crash())
        server.kill()
        server.start()
        run(after_restart(table, first))
    finally:
        server.stop()
