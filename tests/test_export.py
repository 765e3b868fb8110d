"""Game records (`thousand-export`): a stored game written as JSON replays exactly in the engine (T-35)."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import pytest

from codec import thousand as codec
from engine import Action, Bid, DemandRedeal, Game, GiveCard, Pass, PlayCard, RedealReason, Rules, events_for
from engine.cards import Card
from server.creations import SeatSpec
from server.export import FORMAT, action_from_json, action_json, main, record_of, replay
from server.registry import Registry
from server.store_select import open_store
from tests.table_driving import bot_to_act, play_bot


def finished_game(db: Path) -> str:
    async def play() -> str:
        registry = Registry(open_store(db))
        table = await registry.create(
            Rules(golden_deals=True), [SeatSpec(True, "greedy")] * 3, seed=5, first_dealer=1
        )
        while (seat := bot_to_act(table)) is not None:
            await play_bot(table, seat)
        assert table.finished
        return table.table_id

    return asyncio.run(play())


def test_record_replays_exactly(tmp_path: Path) -> None:
    db = tmp_path / "r.db"
    table_id = finished_game(db)
    stored = open_store(db).get(table_id)
    assert stored is not None
    record = json.loads(json.dumps(record_of(stored)))  # survives JSON as is
    assert record["format"] == FORMAT
    assert record["finished"] is True
    assert record["rules"]["golden_deals"] is True
    assert record["game"] == "thousand"
    game = replay(record)
    assert isinstance(game, Game)
    assert game.is_over
    assert game.winner == record["winner"]
    assert [[s.seat, s.place, s.score, s.payout] for s in game.standings] == [
        [s["seat"], s["place"], s["score"], s["payout"]] for s in record["standings"]
    ]
    engine_events = [e for e in record["events"] if "thousand" in e]
    assert len(engine_events) == len(game.events)
    assert [e["sequence"] for e in record["events"]] == list(range(1, len(record["events"]) + 1))
    assert engine_events[-1]["thousand"]["gameOver"]["winner"] == game.winner
    assert codec.event_to_proto(events_for(game, None)[-1]).HasField("game_over")


def test_actions_round_trip_through_json() -> None:
    actions: list[Action] = [
        Bid(105),
        Pass(),
        GiveCard(Card.parse("10♥"), 2),
        PlayCard(Card.parse("K♠"), True),
        DemandRedeal(RedealReason.WEAK_TALON),
    ]
    for action in actions:
        assert action_from_json(json.loads(json.dumps(action_json(action)))) == action
    with pytest.raises(ValueError, match="unknown action kind"):
        action_from_json({"kind": "fold"})


def test_export_command(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    db = tmp_path / "c.db"
    table_id = finished_game(db)
    out = tmp_path / "game.json"
    assert main([table_id, "--db", str(db), "--out", str(out)]) == 0
    assert json.loads(out.read_text(encoding="utf-8"))["table_id"] == table_id
    assert main(["nope", "--db", str(db)]) == 2
    assert "no table 'nope'" in capsys.readouterr().err
    assert main([table_id, "--db", str(tmp_path / "missing.db")]) == 2


def live_game(db: Path, moves: int) -> tuple[str, bytes, list[tuple[str, ...]]]:
    """A fair table of bots ``moves`` bot moves into its first deal: (its id, secret, seeds dealt)."""

    async def play() -> tuple[str, bytes, list[tuple[str, ...]]]:
        registry = Registry(open_store(db))
        table = await registry.create(Rules(), [SeatSpec(True, "greedy")] * 3, seed=None, first_dealer=1)
        for _ in range(moves):
            seat = bot_to_act(table)
            assert seat is not None
            await play_bot(table, seat)
        assert not table.finished
        fair = table.game.fair
        assert fair is not None
        assert registry.store is not None
        registry.store.close()
        return table.table_id, fair.secret, list(fair.dealt)

    return asyncio.run(play())


def test_a_live_games_export_holds_no_future_deal(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Issue #30, 3: a table still in play is refused by thousand-export, or with --unfinished written
    without its secret, its seeds or a hidden card, and marked unfinished (ExportTable refuses it too:
    tests/test_retries_and_export.py)."""
    db = tmp_path / "live.db"
    table_id, secret, dealt = live_game(db, moves=5)
    out = tmp_path / "live.json"
    assert main([table_id, "--db", str(db), "--out", str(out)]) == 3
    assert "still being played" in capsys.readouterr().err
    assert not out.exists()

    assert main([table_id, "--db", str(db), "--out", str(out), "--unfinished"]) == 0
    assert "written without seed, fair.secret" in capsys.readouterr().err
    text = out.read_text(encoding="utf-8")
    record = json.loads(text)
    assert record["finished"] is False
    assert record["withheld"] == ["seed", "fair.secret", "fair.deal_seeds", "hidden cards in events"]
    assert secret.hex() not in text
    assert dealt and all(seed not in text for seeds in dealt for seed in seeds if seed)
    assert record["seed"] == ""
    assert set(record["fair"]) == {"scheme", "commitment"}
    assert record["actions"] == []  # a discard names the cards given
    dealt_hands = [
        e["thousand"]["handDealt"] for e in record["events"] if "handDealt" in e.get("thousand", {})
    ]
    assert dealt_hands and all(hand.get("cardsHidden") and "cards" not in hand for hand in dealt_hands)
    with pytest.raises(ValueError, match="cannot be replayed"):
        replay(record)
