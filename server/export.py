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
  "seats": [{"seat": 0, "kind": "open" | "bot", "strategy": "", "player_name": "ann", "player_id": "…"}, …],
  "actions": [{"seat": 1, "action": {"kind": "bid", "value": 105}}, …],
  "events": [{"sequence": 1, "type": "SeatTaken", …}, …],
  "finished": true, "stopped": {"reason": "move_limit", "message": "…"}, "winner": 2,
  "standings": [{"seat": 2, "place": 1, "score": 1001, "payout": 0}, …]
}
```

A seat's ``player_id`` is there only when a player sits in it (joined with a player's credential, or
claimed the seat since): PlayerService's id, not a secret.
``game`` names the game (a record without it is Thousand's: they were written before 1000 Blagogo).
``seeded`` says whether the creator chose ``seed`` (then the deals follow from it). ``fair``, for a table that
is not seeded, holds the table's secret and, for each deal in order, the seats' seeds it was dealt from
(docs/protocol.md, "Verifiable deals"); ``seed`` then seeds only the bots and the first dealer. A record
without either is from before fair deals: its deals follow ``seed``.
``actions`` are the engine actions in the order applied (the shuffles are not listed: they follow from the
seed), ``kind`` being the action's case in the game's action message (each game's adapter writes and reads
its actions: :meth:`~server.games.GameAdapter.action_to_json`); cards are written as the engines print
and parse them ("10♥"; for Blagogo "A♠", "A♠'" for the second deck's copy, "★1" to "★4" for the jokers), a
Blagogo joker meaning as ``{"rank": "K", "suit": "♠"}`` (``"suit": null`` in a set) and a run's end as
``"low"``/``"high"`` (null for a set). ``events`` are every event of the table, unfiltered (the game is over,
or the record is for the operator), as ``google.protobuf.json_format`` renders the ``thousand.v1.Event``
message. Blagogo standings have no ``payout``. ``stopped`` is there only for a table the server stopped before
its game ended (a table of bots only at the limit of moves): ``finished`` is then true, with no winner and
no standings, and the replay ends where the table stopped.

A table still being played (``"finished": false``) is written without what would tell its future: no
``seed`` (``""``), no ``fair`` secret or deal seeds (its commitment stays), and its
``events`` as a spectator sees them (no hand but those already shown), and ``"withheld"`` lists what was
left out. Such a record cannot be replayed (:func:`replay` refuses it): it is the operator's look at a game
in progress, handed out without handing out the coming deals. ``thousand-export`` writes one only with
``--unfinished``; ExportTable refuses an unfinished table (TABLE_NOT_FINISHED).

Over the wire the record is this document written compact (about 360 bytes a move, with no bound on a
game's length): ExportTable sends it in one message only up to ``server.service.EXPORT_MAX_BYTES`` (below
a default client's 4 MiB; RECORD_TOO_LARGE above), StreamTableRecord in parts of any record's bytes.
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

from engine.seeds import FAIR_SCHEME, FairDeals
from server.games import AnyAdapter, EngineGame, adapter_for_action, adapter_for_name
from server.rendering import seen_by
from server.store import DEFAULT_GAME, StoredTable
from server.store_select import is_postgres, open_store
from server.table_changes import step_of
from server.table_core import TableCore
from server.table_state import SeatEvent, SeatState, TableStoppedEvent, seat_event_proto

FORMAT: Final = "thousand.game-record/1"
WITHHELD: Final = ("seed", "fair.secret", "fair.deal_seeds", "hidden cards in events")
"""What the record of an unfinished table leaves out (its ``withheld``): all that tells the coming deals."""


def record_of(stored: StoredTable) -> dict[str, Any]:
    """The game record of a stored table, finished or not, rebuilt by the table's core alone (pure: no
    lock, streams, clock or bots): its stored steps applied again, as a live table applied them."""
    adapter = adapter_for_name(stored.config.game)
    table = TableCore(
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
        rated=stored.config.rated,
    )
    table.replay(step_of(r, adapter.action_from_bytes) for r in stored.records)
    if not table.finished:
        return _unfinished_record(stored, table)
    game: EngineGame = table.game
    actions = [
        {"seat": r.seat, "action": adapter.action_to_json(adapter.action_from_bytes(r.data))}
        for r in stored.records
        if r.kind == "action"
    ]
    fair = game.fair
    return {
        **_heading(stored, table),
        "seed": str(stored.config.seed),
        "seeded": stored.config.seeded,
        **({} if fair is None else {"fair": _fair_json(fair)}),
        "first_dealer": game.first_dealer,
        "seats": _seats_json(table),
        "actions": actions,
        "events": [_event_json(adapter, i + 1, e) for i, e in enumerate(table.log)],
        "finished": table.finished,
        **(
            {}
            if table.stopped is None
            else {"stopped": {"reason": table.stopped.value, "message": _stop_message(table)}}
        ),
        "winner": game.winner,
        "standings": [{f.name: getattr(s, f.name) for f in fields(s)} for s in game.standings],
    }


def _heading(stored: StoredTable, table: TableCore) -> dict[str, Any]:
    """What every record starts with: its format, the game, the table and its rules."""
    return {
        "format": FORMAT,
        "game": table.adapter.name,
        "table_id": stored.table_id,
        "created": datetime.datetime.fromtimestamp(stored.create_time, datetime.UTC).isoformat(),
        "rules": rules_json(table.rules),
    }


def _unfinished_record(stored: StoredTable, table: TableCore) -> dict[str, Any]:
    """A game still in play as anyone watching it may see it: nothing that tells a coming card."""
    adapter = table.adapter
    fair = table.game.fair
    return {
        **_heading(stored, table),
        "seed": "",
        "seeded": stored.config.seeded,
        **({} if fair is None else {"fair": {"scheme": FAIR_SCHEME, "commitment": fair.commitment}}),
        "first_dealer": table.game.first_dealer,
        "seats": _seats_json(table),
        "actions": [],
        "events": [
            _event_json(adapter, i + 1, seen_by(table.adapter, e, None)) for i, e in enumerate(table.log)
        ],
        "finished": False,
        "withheld": list(WITHHELD),
        "winner": None,
        "standings": [],
    }


def _seats_json(table: TableCore) -> list[dict[str, Any]]:
    return [
        {
            "seat": seat,
            "kind": "bot" if state.bot else "open",
            "strategy": state.strategy,
            "player_name": state.strategy if state.bot else state.player_name,
            **({"player_id": state.player_id} if state.player_id else {}),
        }
        for seat, state in enumerate(table.seats)
    ]


def _stop_message(table: TableCore) -> str:
    """What the server said when it stopped the table: its last event says it."""
    last = table.log[-1] if table.log else None
    return last.message if isinstance(last, TableStoppedEvent) else ""


def replay(record: dict[str, Any]) -> EngineGame:
    """The engine game a record describes, replayed from its rules, seed (or fair secret and seeds) and
    actions."""
    if record.get("format") != FORMAT:
        raise ValueError(f"not a {FORMAT} record")
    if "withheld" in record:
        raise ValueError(
            "the record of an unfinished game withholds its seed and deals: it cannot be replayed"
        )
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
        game.apply(entry["seat"], adapter.action_from_json(entry["action"]))
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


def rules_from_json(raw: dict[str, Any], rules_type: type) -> Any:
    """The rules of ``rules_type`` (a game's engine rules class) from :func:`rules_json`'s form."""
    defaults = rules_type()
    kwargs: dict[str, Any] = {}
    for f in fields(defaults):
        if f.name not in raw:
            continue
        default = getattr(defaults, f.name)
        value = raw[f.name]
        kwargs[f.name] = type(default)(value) if isinstance(default, Enum) else value
    return rules_type(**kwargs)


def action_json(action: object) -> dict[str, Any]:
    """An action of either game as ``{"kind": its case in the game's action message, …its fields}``, cards as
    text (its adapter's :meth:`~server.games.GameAdapter.action_to_json`)."""
    json: dict[str, Any] = adapter_for_action(action).action_to_json(action)
    return json


def action_from_json(raw: dict[str, Any], game: str = DEFAULT_GAME) -> Any:
    """The engine action of ``game`` (a stored game's name) from :func:`action_json`'s form."""
    return adapter_for_name(game).action_from_json(raw)


def _plain(value: object) -> object:
    return value.value if isinstance(value, Enum) else value


def _event_json(adapter: AnyAdapter, sequence: int, event: object) -> dict[str, Any]:
    # A game's event unfiltered: the operator's full record.
    message = seat_event_proto(event) if isinstance(event, SeatEvent) else adapter.event_message(event)
    return {"sequence": sequence, **json_format.MessageToDict(message)}


def main(argv: list[str] | None = None) -> int:
    """``thousand-export TABLE [--db PATH] [--out FILE] [--unfinished]``: write a table's game record as
    JSON; a game still in play only with ``--unfinished``, and then without its secrets."""
    parser = argparse.ArgumentParser(
        prog="thousand-export", description="Write a table's game record (JSON)."
    )
    parser.add_argument("table")
    parser.add_argument("--db", default=os.environ.get("THOUSAND_DB", "thousand.db"))
    parser.add_argument("--out", default="-", help="file to write ('-': standard output)")
    parser.add_argument(
        "--unfinished",
        action="store_true",
        help="write a game still in play too, as a spectator sees it: without its seed, secret and deal "
        "seeds (it cannot be replayed)",
    )
    args = parser.parse_args(argv)
    if not is_postgres(args.db) and not Path(args.db).exists():
        print(f"thousand-export: no database at {args.db}", file=sys.stderr)
        return 2
    stored = open_store(args.db).get(args.table)
    if stored is None:
        print(f"thousand-export: no table {args.table!r} in {args.db}", file=sys.stderr)
        return 2
    record = record_of(stored)
    if not record["finished"]:
        if not args.unfinished:
            print(
                f"thousand-export: table {args.table!r} is still being played; its record would tell the "
                "coming deals, so it is written once the game is over (--unfinished: now, without them)",
                file=sys.stderr,
            )
            return 3
        print(
            f"thousand-export: table {args.table!r} is still being played: written without "
            f"{', '.join(WITHHELD)}",
            file=sys.stderr,
        )
    text = json.dumps(record, ensure_ascii=False, indent=2)
    if args.out == "-":
        print(text)
    else:
        Path(args.out).write_text(text + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
