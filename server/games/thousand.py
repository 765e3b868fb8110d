"""Thousand (``../shared/rules/thousand.md``) as the server plays it: :mod:`engine`, :mod:`codec.thousand`.

Thousand lists every legal action (T-34); the engine's ``validate`` refuses any other (the table's core calls
it). The acting seat's view and its legal actions go out with every action, so both are
written the fast way: the view by :mod:`server.thousand_view_bytes`, each action's bytes cached.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import fields
from enum import Enum
from typing import Any, Final

import engine
from bots.strategy import GameStrategies, Strategy, decide
from codec import thousand as codec
from engine import events as thousand_events
from engine.cards import Card
from games import THOUSAND as THOUSAND_GAME
from server import protobuf_wire as wire
from server import thousand_view_bytes as view_wire
from server.games.adapter import GameAdapter, Scored, SeatBot
from thousand.v1 import table_service_pb2 as pb


class ThousandAdapter(GameAdapter[engine.Rules, engine.Game, engine.Action, engine.Event]):
    """Thousand (``../shared/rules/thousand.md``): :mod:`engine`, :mod:`codec.thousand`."""

    description = THOUSAND_GAME

    def scored(self, event: object) -> Scored | None:
        if not isinstance(event, thousand_events.DealScored):
            return None
        kind, outcome = event.kind.value, event.outcome.value
        details = {
            "deal": event.number,
            "kind": kind,
            "declarer": event.declarer,
            "contract": event.contract,
            "outcome": outcome,
            "totals": list(event.totals),
        }
        return Scored("deal", kind, outcome, details)

    def action_kind(self, action: engine.Action) -> str:
        return codec.action_to_proto(action).WhichOneof("action") or "unknown"

    def action_to_json(self, action: engine.Action) -> dict[str, Any]:
        return {
            "kind": self.action_kind(action),
            **{f.name: _plain(getattr(action, f.name)) for f in fields(action)},
        }

    def action_from_json(self, raw: dict[str, Any]) -> engine.Action:
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
                value = engine.RedealReason(value)
            args[f.name] = value
        action: engine.Action = cls(**args)
        return action

    def event_for(self, event: engine.Event, audience: int | None) -> engine.Event:
        return engine.event_for(event, audience)

    def view_to_proto(self, game: engine.Game, audience: int | None) -> pb.View:
        return pb.View(thousand=codec.view_to_proto(engine.view(game, audience)))

    def view_bytes(self, game: engine.Game, audience: int | None) -> bytes:
        """Written by hand (:mod:`server.thousand_view_bytes`, the same bytes as serializing
        :meth:`view_to_proto`): the acting seat's view is sent with every action; no View wrapper built around
        it and copied either."""
        return wire.message_field(_VIEW_THOUSAND, view_wire.view_bytes(engine.view(game, audience)))

    def action_bytes(self, action: engine.Action) -> bytes:
        """Cached: Thousand's actions are a small closed set (T-34 lists at most a few dozen at a time)."""
        data = _THOUSAND_ACTION_BYTES.get(action)
        if data is None:
            if len(_THOUSAND_ACTION_BYTES) >= _MAX_CACHED_ACTIONS:
                _THOUSAND_ACTION_BYTES.clear()
            data = wire.message_field(_ACTION_THOUSAND, codec.action_message(action).SerializeToString())
            _THOUSAND_ACTION_BYTES[action] = data
        return data

    def turn_actions(self, game: engine.Game, seat: int) -> Sequence[engine.Action]:
        return game.legal_actions()

    def turn_actions_bytes(self, game: engine.Game, seat: int) -> bytes:
        """Each legal action's whole ``legal_actions`` field kept by the action object: the engine interns
        its legal actions (T-34), so a field is found by identity, without hashing the action."""
        fields = _TURN_FIELDS.get
        return b"".join([fields(id(a)) or self._turn_field(a) for a in game.legal_actions()])

    def _turn_field(self, action: engine.Action) -> bytes:
        return _TURN_FIELDS.put(action, wire.message_field(_TURN_LEGAL_ACTIONS, self.action_bytes(action)))

    def new_bot(self, strategy: str) -> SeatBot[engine.Game, engine.Action]:
        return ThousandBot(strategy, self.strategies)


class ThousandBot(SeatBot[engine.Game, engine.Action]):
    """A Thousand strategy in a seat: it sees the seat's view, its legal actions included (T-33, T-34)."""

    def __init__(self, strategy: str, registry: GameStrategies[Strategy]) -> None:
        super().__init__(strategy, registry)
        self.player = registry.make(strategy)

    def decide(
        self, game: engine.Game, seat: int, rng: random.Random, deadline: float | None = None
    ) -> engine.Action:
        return decide(self.player, engine.view(game, seat), rng, deadline)

    def observe(self, game: engine.Game, seat: int) -> None:
        self.player.observe(engine.view(game, seat))


_VIEW_THOUSAND: Final = wire.field_number(pb.View, "thousand")
_ACTION_THOUSAND: Final = wire.field_number(pb.Action, "thousand")
_TURN_LEGAL_ACTIONS: Final = wire.field_number(pb.Turn, "legal_actions")
_TURN_FIELDS: Final = view_wire.ByIdentity()
"""Each legal action's ``legal_actions`` field of a Turn, by the action object."""
_MAX_CACHED_ACTIONS: Final = 4096
"""A bound the cache never reaches in practice (bids, contracts, cards given, discarded and played)."""
_THOUSAND_ACTION_BYTES: dict[engine.Action, bytes] = {}


_ACTIONS: Final[dict[str, type[engine.Action]]] = {
    "bid": engine.Bid,
    "pass_bid": engine.Pass,
    "declare_dark": engine.DeclareDark,
    "decline_dark": engine.DeclineDark,
    "demand_redeal": engine.DemandRedeal,
    "choose_talon": engine.ChooseTalon,
    "give_card": engine.GiveCard,
    "discard_card": engine.DiscardCard,
    "name_contract": engine.NameContract,
    "concede": engine.Concede,
    "play_card": engine.PlayCard,
}
"""Each action class by its case in ThousandAction: the ``kind`` of a game record's action."""


def _plain(value: object) -> object:
    """An action's field in JSON: an enum by its value, a card as the engine prints it."""
    if isinstance(value, Enum):
        return value.value
    if isinstance(value, Card):
        return str(value)
    return value
