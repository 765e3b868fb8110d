"""Game records: a stored table written out as one documented JSON document, and replayed from it.

The record holds everything needed to replay the game exactly with the engine (T-35) and everything that
happened, in words a reader can check:

```json
{
  "format": "thousand.game-record/1", "game": "thousand" | "blagogo",
  "table_id": "…", "created": "2026-11-29T20:00:00Z",
  "rules": { every field of the game's rules (engine.Rules, BlagogoRules) by name, enums by value },
  "seed": "123", "seeded": false, "first_dealer": 0,
  "fair": {"scheme": "thousand.fair.v1", "commitment": "…", "secret": "…", "deal_seeds": [["…", "", "…"], …]},
  "seats": [{"seat": 0, "kind": "open" | "bot", "strategy": "", "player_name": "ann"}, …],
  "actions": [{"seat": 1, "action": {"kind": "bid", "value": 105}}, …],
  "events": [{"sequence": 1, "type": "SeatTaken", …}, …],
  "finished": true, "winner": 2,
  "standings": [{"seat": 2, "place": 1, "score": 1001, "payout": 0}, …]
}
```

``game`` names the game (a record without it is Thousand's: they were written before 1000 Blagogo).
``seeded`` says whether the creator chose ``seed`` (then the deals follow from it). ``fair``, for a table that
is not seeded, holds the table's secret and, for each deal in order, the seats' seeds it was dealt from
(docs/protocol.md, "Verifiable deals"); ``seed`` then seeds only the bots and the first dealer. A record
without either is from before fair deals: its deals follow ``seed``.
``actions`` are the engine actions in the order applied (the shuffles are not listed: they follow from the
seed), ``kind`` being the action's case in the game's action message; cards are written as the engines print
and parse them ("10♥"; for Blagogo "A♠", "A♠'" for the second deck's copy, "★1" to "★4" for the jokers), a
Blagogo joker meaning as ``{"rank": "K", "suit": "♠"}`` (``"suit": null`` in a set) and a run's end as
``"low"``/``"high"`` (null for a set). ``events`` are every event of the table, unfiltered (the game is over,
or the record is for the operator), as ``google.protobuf.json_format`` renders the ``thousand.v1.Event``
message. Blagogo standings have no ``payout``.
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
    blagogo,
)
from engine.cards import Card
from engine.seeds import FAIR_SCHEME, FairDeals
from server import codec
from server.games import THOUSAND, AnyAdapter, adapter_for_name
from server.store import DEFAULT_GAME, Store, StoredTable
from server.table import (
    AnyTable,
    SeatReclaimedEvent,
    SeatReleasedEvent,
    SeatState,
    SeatTakenEvent,
    SeatTakenOverEvent,
    Table,
    TurnTimedOutEvent,
    seat_event_proto,
)

FORMAT: Final = "thousand.game-record/1"

EngineGame = Game | blagogo.Game


def record_of(stored: StoredTable) -> dict[str, Any]:
    """The game record of a stored table, finished or not, rebuilt by the table's own replay."""
    adapter = adapter_for_name(stored.config.game)
    table: AnyTable = Table(
        stored.table_id,
        serial=stored.serial,
        adapter=adapter,
        rules=adapter.rules_from_bytes(stored.config.rules),
        seats=[SeatState(bot=bot, strategy=strategy) for bot, strategy in stored.config.seats],
        seed=stored.config.seed,
        first_dealer=stored.config.first_dealer,
        create_time=stored.create_time,
        time_control=stored.config.time_control,
        seeded=stored.config.seeded,
        secret=stored.config.secret,
    )
    table.replay(stored.records)
    game: EngineGame = table.game
    actions = [
        {"seat": r.seat, "action": action_json(adapter.action_from_bytes(r.data))}
        for r in stored.records
        if r.kind == "action"
    ]
    fair = game.fair
    return {
        "format": FORMAT,
        "game": adapter.name,
        "table_id": stored.table_id,
        "created": datetime.datetime.fromtimestamp(stored.create_time, datetime.UTC).isoformat(),
        "rules": rules_json(table.rules),
        "seed": str(stored.config.seed),
        "seeded": stored.config.seeded,
        **({} if fair is None else {"fair": _fair_json(fair)}),
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
        "events": [_event_json(adapter, i + 1, e) for i, e in enumerate(table.log)],
        "finished": game.is_over,
        "winner": game.winner,
        "standings": [{f.name: getattr(s, f.name) for f in fields(s)} for s in game.standings],
    }


def replay(record: dict[str, Any]) -> EngineGame:
    """The engine game a record describes, replayed from its rules, seed (or fair secret and seeds) and
    actions."""
    if record.get("format") != FORMAT:
        raise ValueError(f"not a {FORMAT} record")
    name = record.get("game", DEFAULT_GAME)
    adapter = adapter_for_name(name)
    rules = rules_from_json(record["rules"], adapter.rules_type)
    raw = record.get("fair")
    fair = None if raw is None else FairDeals(name, bytes.fromhex(raw["secret"]), adapter.players(rules))
    seeds = iter([] if raw is None else raw["deal_seeds"])
    game: EngineGame = adapter.new_game(rules, int(record["seed"]), record["first_dealer"], fair)

    def deal() -> None:
        while game.is_chance_node:
            if fair is not None:
                for seat, seed in enumerate(next(seeds)):
                    fair.seat(seat, seed)
            game.apply_chance()

    deal()
    for entry in record["actions"]:
        adapter.apply(game, entry["seat"], action_from_json(entry["action"], name))
        deal()
    return game


def _fair_json(fair: FairDeals) -> dict[str, Any]:
    """A fair table's secret and the seats' seeds each deal was dealt from: the game is over (or the record
    is for the operator), so they are no longer secret, and the replay needs them."""
    return {
        "scheme": FAIR_SCHEME,
        "commitment": fair.commitment,
        "secret": fair.secret.hex(),
        "deal_seeds": [list(seeds) for seeds in fair.dealt],
    }


def rules_json(rules: object) -> dict[str, Any]:
    """Either game's rules (a dataclass): every field by name, enums by value."""
    return {f.name: _plain(getattr(rules, f.name)) for f in fields(rules)}  # type: ignore[arg-type]


def rules_from_json(raw: dict[str, Any], rules_type: type = Rules) -> Any:
    """The rules of ``rules_type`` (engine.Rules or BlagogoRules) from :func:`rules_json`'s form."""
    defaults = rules_type()
    kwargs: dict[str, Any] = {}
    for f in fields(defaults):
        if f.name not in raw:
            continue
        default = getattr(defaults, f.name)
        value = raw[f.name]
        kwargs[f.name] = type(default)(value) if isinstance(default, Enum) else value
    return rules_type(**kwargs)


def action_json(action: Action | blagogo.Action) -> dict[str, Any]:
    """An action as ``{"kind": its case in the game's action message, …its fields}``, cards as text."""
    if isinstance(action, _BLAGOGO_ACTION_TYPES):
        return _blagogo_action_json(action)
    kind = codec.action_to_proto(action).WhichOneof("action")
    return {"kind": kind, **{f.name: _plain(getattr(action, f.name)) for f in fields(action)}}


def action_from_json(raw: dict[str, Any], game: str = DEFAULT_GAME) -> Any:
    """The engine action of ``game`` ("thousand" or "blagogo") from :func:`action_json`'s form."""
    if game == "blagogo":
        return _blagogo_action_from_json(raw)
    if game != THOUSAND.name:
        raise ValueError(f"unknown game {game!r}")
    return _thousand_action_from_json(raw)


def _thousand_action_from_json(raw: dict[str, Any]) -> Action:
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


# ------------------------------------------------------------------------------------- 1000 Blagogo actions

_BLAGOGO_ACTION_TYPES: Final = (
    blagogo.DrawFromDeck,
    blagogo.TakeFromBridge,
    blagogo.LayMelds,
    blagogo.AddToMeld,
    blagogo.SwapJoker,
    blagogo.Discard,
)


def _stands_json(stands: blagogo.Stands) -> dict[str, Any]:
    return {"rank": stands.rank.label, "suit": None if stands.suit is None else stands.suit.symbol}


def _stands_from_json(raw: dict[str, Any]) -> blagogo.Stands:
    rank = next((r for r in blagogo.Rank if r.label == raw["rank"]), None)
    if rank is None:
        raise ValueError(f"not a rank: {raw['rank']!r}")
    if raw.get("suit") is None:
        return blagogo.Stands(rank)
    suit = next((s for s in blagogo.Suit if s.symbol == raw["suit"]), None)
    if suit is None:
        raise ValueError(f"not a suit: {raw['suit']!r}")
    return blagogo.Stands(rank, suit)


def _blagogo_cards(cards: tuple[blagogo.Card, ...]) -> list[str]:
    return [str(c) for c in cards]


def _blagogo_cards_from(raw: list[str]) -> tuple[blagogo.Card, ...]:
    return tuple(blagogo.Card.parse(text) for text in raw)


def _blagogo_action_json(action: blagogo.Action) -> dict[str, Any]:
    match action:
        case blagogo.DrawFromDeck():
            return {"kind": "draw_from_deck"}
        case blagogo.TakeFromBridge(position):
            return {"kind": "take_from_bridge", "position": position}
        case blagogo.LayMelds(melds):
            return {
                "kind": "lay_melds",
                "melds": [
                    {"cards": _blagogo_cards(m.cards), "jokers": [_stands_json(s) for s in m.jokers]}
                    for m in melds
                ],
            }
        case blagogo.AddToMeld(meld_id, cards, jokers, end):
            return {
                "kind": "add_to_meld",
                "meld_id": meld_id,
                "cards": _blagogo_cards(cards),
                "jokers": [_stands_json(s) for s in jokers],
                "end": None if end is None else end.value,
            }
        case blagogo.SwapJoker(meld_id, card):
            return {"kind": "swap_joker", "meld_id": meld_id, "card": str(card)}
        case blagogo.Discard(card):
            return {"kind": "discard", "card": str(card)}


def _blagogo_action_from_json(raw: dict[str, Any]) -> blagogo.Action:
    match raw.get("kind"):
        case "draw_from_deck":
            return blagogo.DrawFromDeck()
        case "take_from_bridge":
            return blagogo.TakeFromBridge(int(raw["position"]))
        case "lay_melds":
            return blagogo.LayMelds(
                tuple(
                    blagogo.MeldSpec(
                        _blagogo_cards_from(m["cards"]), tuple(_stands_from_json(s) for s in m["jokers"])
                    )
                    for m in raw["melds"]
                )
            )
        case "add_to_meld":
            end = raw.get("end")
            return blagogo.AddToMeld(
                int(raw["meld_id"]),
                _blagogo_cards_from(raw["cards"]),
                tuple(_stands_from_json(s) for s in raw["jokers"]),
                None if end is None else blagogo.End(end),
            )
        case "swap_joker":
            return blagogo.SwapJoker(int(raw["meld_id"]), blagogo.Card.parse(raw["card"]))
        case "discard":
            return blagogo.Discard(blagogo.Card.parse(raw["card"]))
        case kind:
            raise ValueError(f"unknown action kind {kind!r}")


def _plain(value: object) -> object:
    if isinstance(value, Enum):
        return value.value
    if isinstance(value, Card):
        return str(value)
    return value


def _event_json(adapter: AnyAdapter, sequence: int, event: object) -> dict[str, Any]:
    match event:
        case (
            SeatTakenEvent()
            | SeatReleasedEvent()
            | TurnTimedOutEvent()
            | SeatTakenOverEvent()
            | SeatReclaimedEvent()
        ):
            message = seat_event_proto(event)
        case _:
            message = adapter.event_message(event)  # unfiltered: the operator's full record
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
