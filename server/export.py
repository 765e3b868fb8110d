"""Game records: a stored table written out as one documented JSON document, and replayed from it.

The record holds everything needed to replay the game exactly with the engine (T-35) and everything that
happened, in words a reader can check:

```json
{
  "format": "thousand.game-record/1",
  "table_id": "…", "created": "2026-11-29T20:00:00Z",
  "rules": { every field of engine.Rules by name, enums by value },
  "seed": "123", "first_dealer": 0,
  "seats": [{"seat": 0, "kind": "open" | "bot", "strategy": "", "player_name": "ann"}, …],
  "actions": [{"seat": 1, "action": {"kind": "bid", "value": 105}}, …],
  "events": [{"sequence": 1, "type": "SeatTaken", …}, …],
  "finished": true, "winner": 2,
  "standings": [{"seat": 2, "place": 1, "score": 1001, "payout": 0}, …]
}
```

``actions`` are the engine actions in the order applied (the shuffles are not listed: they follow from the
seed); ``events`` are every event of the table, unfiltered (the game is over, or the record is for the
operator), as ``google.protobuf.json_format`` renders the ``thousand.v1.Event`` message.
"""

from __future__ import annotations

import argparse
import datetime
import json
import os
import sys
from dataclasses import fields
from enum import Enum
from pathlib import Path
from typing import Any, Final

from google.protobuf import json_format

from engine import (
    Action,
    Bid,
    ChooseTalon,
    Concede,
    DeclareDark,
    DeclineDark,
    DemandRedeal,
    DiscardCard,
    Game,
    GiveCard,
    NameContract,
    Pass,
    PlayCard,
    RedealReason,
    Rules,
)
from engine.cards import Card
from server import codec
from server.store import Store, StoredTable
from server.table import SeatReleasedEvent, SeatState, SeatTakenEvent, Table, TableEvent
from thousand.v1 import table_service_pb2 as pb
from thousand.v1.thousand_actions_pb2 import ThousandAction
from thousand.v1.thousand_rules_pb2 import ThousandRules

FORMAT: Final = "thousand.game-record/1"


def record_of(stored: StoredTable) -> dict[str, Any]:
    """The game record of a stored table, finished or not, rebuilt by the table's own replay."""
    rules = codec.rules_from_proto(ThousandRules.FromString(stored.config.rules))
    table = Table(
        stored.table_id,
        serial=stored.serial,
        rules=rules,
        seats=[SeatState(bot=bot, strategy=strategy) for bot, strategy in stored.config.seats],
        seed=stored.config.seed,
        first_dealer=stored.config.first_dealer,
        strategies={},
        create_time=stored.create_time,
    )
    table.replay(stored.records)
    game = table.game
    actions = [
        {"seat": r.seat, "action": action_json(codec.action_from_proto(ThousandAction.FromString(r.data)))}
        for r in stored.records
        if r.kind == "action"
    ]
    return {
        "format": FORMAT,
        "table_id": stored.table_id,
        "created": datetime.datetime.fromtimestamp(stored.create_time, datetime.UTC).isoformat(),
        "rules": rules_json(rules),
        "seed": str(stored.config.seed),
        "first_dealer": game.first_dealer,
        "seats": [
            {
                "seat": seat,
                "kind": "bot" if state.bot else "open",
                "strategy": state.strategy,
                "player_name": state.strategy if state.bot else state.player_name,
            }
            for seat, state in enumerate(table.seats)
        ],
        "actions": actions,
        "events": [_event_json(i + 1, e) for i, e in enumerate(table.log)],
        "finished": game.is_over,
        "winner": game.winner,
        "standings": [
            {"seat": s.seat, "place": s.place, "score": s.score, "payout": s.payout} for s in game.standings
        ],
    }


def replay(record: dict[str, Any]) -> Game:
    """The engine game a record describes, replayed from its rules, seed and actions."""
    if record.get("format") != FORMAT:
        raise ValueError(f"not a {FORMAT} record")
    game = Game(rules_from_json(record["rules"]), int(record["seed"]), record["first_dealer"])
    while game.is_chance_node:
        game.apply_chance()
    for entry in record["actions"]:
        game.apply(entry["seat"], action_from_json(entry["action"]))
        while game.is_chance_node:
            game.apply_chance()
    return game


def rules_json(rules: Rules) -> dict[str, Any]:
    return {f.name: _plain(getattr(rules, f.name)) for f in fields(rules)}


def rules_from_json(raw: dict[str, Any]) -> Rules:
    kwargs: dict[str, Any] = {}
    for f in fields(Rules):
        if f.name not in raw:
            continue
        default = getattr(Rules(), f.name)
        value = raw[f.name]
        kwargs[f.name] = type(default)(value) if isinstance(default, Enum) else value
    return Rules(**kwargs)


def action_json(action: Action) -> dict[str, Any]:
    """An action as ``{"kind": its ThousandAction oneof name, …its fields}``, cards as text like "10♥"."""
    kind = codec.action_to_proto(action).WhichOneof("action")
    return {"kind": kind, **{f.name: _plain(getattr(action, f.name)) for f in fields(action)}}


def action_from_json(raw: dict[str, Any]) -> Action:
    kind = raw.get("kind")
    cls = _ACTIONS.get(str(kind))
    if cls is None:
        raise ValueError(f"unknown action kind {kind!r}")
    args: dict[str, Any] = {}
    for f in fields(cls):
        value = raw[f.name]
        if f.name == "card":
            value = Card.parse(value)
        elif f.name == "reason":
            value = RedealReason(value)
        args[f.name] = value
    action: Action = cls(**args)
    return action


_ACTIONS: Final[dict[str, type[Action]]] = {
    "bid": Bid,
    "pass_bid": Pass,
    "declare_dark": DeclareDark,
    "decline_dark": DeclineDark,
    "demand_redeal": DemandRedeal,
    "choose_talon": ChooseTalon,
    "give_card": GiveCard,
    "discard_card": DiscardCard,
    "name_contract": NameContract,
    "concede": Concede,
    "play_card": PlayCard,
}


def _plain(value: object) -> object:
    if isinstance(value, Enum):
        return value.value
    if isinstance(value, Card):
        return str(value)
    return value


def _event_json(sequence: int, event: TableEvent) -> dict[str, Any]:
    match event:
        case SeatTakenEvent(seat, name, bot):
            message = pb.Event(seat_taken=pb.SeatTaken(seat=seat, player_name=name, bot=bot))
        case SeatReleasedEvent(seat):
            message = pb.Event(seat_released=pb.SeatReleased(seat=seat))
        case _:
            message = pb.Event(thousand=codec.event_to_proto(event))
    return {"sequence": sequence, **json_format.MessageToDict(message)}


def main(argv: list[str] | None = None) -> int:
    """``thousand-export TABLE [--db PATH] [--out FILE]``: write a table's game record as JSON."""
    parser = argparse.ArgumentParser(
        prog="thousand-export", description="Write a table's game record (JSON)."
    )
    parser.add_argument("table")
    parser.add_argument("--db", default=os.environ.get("THOUSAND_DB", "thousand.db"))
    parser.add_argument("--out", default="-", help="file to write ('-': standard output)")
    args = parser.parse_args(argv)
    if not Path(args.db).exists():
        print(f"thousand-export: no database at {args.db}", file=sys.stderr)
        return 2
    stored = Store(args.db).get(args.table)
    if stored is None:
        print(f"thousand-export: no table {args.table!r} in {args.db}", file=sys.stderr)
        return 2
    text = json.dumps(record_of(stored), ensure_ascii=False, indent=2)
    if args.out == "-":
        print(text)
    else:
        Path(args.out).write_text(text + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
