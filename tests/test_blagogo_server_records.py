"""1000 Blagogo tables in the store: a server restarted on the same database mid-game serves the same table,
the game finishes, and its record (``thousand-export``, ExportTable) replays exactly; Blagogo actions in the
record's JSON, and tables stored before Blagogo existed read as Thousand's.
"""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import pytest
from grpc import aio

from codec import blagogo as codec_blagogo
from engine import blagogo as bg
from server.app import Server
from server.export import action_from_json, action_json, record_of, replay
from server.games import BLAGOGO
from server.settings import Settings
from server.store import TableConfig
from server.store_select import open_store
from tests.blagogo_players import (
    TARGET,
    TIMEOUT,
    Player,
    assert_gap_free,
    blagogo_events,
    blagogo_table,
    seated,
)
from thousand.v1 import table_service_pb2 as pb
from thousand.v1 import table_service_pb2_grpc as pb_grpc


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
