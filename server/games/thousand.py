"""Thousand (``../shared/rules/thousand.md``) as the server plays it: :mod:`engine`, :mod:`codec.thousand`.

Thousand lists every legal action (T-34), so an action outside the list is refused by applying it (the engine
raises, unchanged). The acting seat's view and its legal actions go out with every action, so both are
written the fast way: the view by :mod:`server.view_wire`, each action's bytes cached.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import fields
from enum import Enum
from typing import Any, Final, get_args

import engine
from bots.registry import THOUSAND as THOUSAND_BOTS
from bots.strategy import GameStrategies, Strategy
from codec import thousand as codec
from engine import events as thousand_events
from engine.cards import Card
from engine.seeds import FairDeals
from engine.verify import THOUSAND as THOUSAND_DEALS
from server import view_wire, wire
from server.games.adapter import GameAdapter, Scored, SeatBot
from thousand.v1 import table_service_pb2 as pb
from thousand.v1.thousand_actions_pb2 import ThousandAction
from thousand.v1.thousand_rules_pb2 import ThousandRules


class ThousandAdapter(GameAdapter[engine.Rules, engine.Game, engine.Action, engine.Event]):
    """Thousand (``../shared/rules/thousand.md``): :mod:`engine`, :mod:`codec.thousand`."""

    kind = pb.GAME_KIND_THOUSAND
    name = "thousand"
    title = "Thousand"
    rules_type = engine.Rules
    action_types = get_args(engine.Action)
    takeover_strategy = "greedy"
    strategies = THOUSAND_BOTS
    deals = THOUSAND_DEALS

    def rules_from_request(self, message: pb.Rules, seats: int) -> engine.Rules:
        self._check_rules_case(message)
        rules = ThousandRules()
        rules.CopyFrom(message.thousand)
        if not rules.HasField("players") and seats:
            rules.players = seats
        return codec.rules_from_proto(rules)

    def rules_to_proto(self, rules: engine.Rules) -> pb.Rules:
        return pb.Rules(thousand=codec.rules_to_proto(rules))

    def players(self, rules: engine.Rules) -> int:
        return rules.players

    def rules_to_bytes(self, rules: engine.Rules) -> bytes:
        return codec.rules_to_proto(rules).SerializeToString()

    def rules_from_bytes(self, data: bytes) -> engine.Rules:
        return codec.rules_from_proto(ThousandRules.FromString(data))

    def new_game(
        self, rules: engine.Rules, seed: int, first_dealer: int | None, fair: FairDeals | None = None
    ) -> engine.Game:
        return engine.Game(rules, seed, first_dealer, fair=fair)

    def events(self, game: engine.Game) -> Sequence[engine.Event]:
        return game.events

    def check(self, game: engine.Game, seat: int, action: engine.Action) -> None:
        if game.to_act == seat and action in game.legal_actions():
            return
        game.apply(seat, action)  # not in the complete list (T-34): the engine raises and changes nothing
        raise AssertionError(f"the engine accepted {action!r} outside its legal list")

    def apply(self, game: engine.Game, seat: int, action: engine.Action) -> None:
        game.apply(seat, action)

    def is_game_over(self, event: object) -> bool:
        return isinstance(event, thousand_events.GameOver)

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

    def action_to_proto(self, action: engine.Action) -> pb.Action:
        return pb.Action(thousand=codec.action_to_proto(action))

    def action_from_proto(self, message: pb.Action) -> engine.Action:
        self._action_case(message)
        return codec.action_from_proto(message.thousand)

    def action_to_bytes(self, action: engine.Action) -> bytes:
        return codec.action_to_proto(action).SerializeToString()

    def action_from_bytes(self, data: bytes) -> engine.Action:
        return codec.action_from_proto(ThousandAction.FromString(data))

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

    def event_message(self, event: engine.Event) -> pb.Event:
        return pb.Event(thousand=codec.event_to_proto(event))

    def view_to_proto(self, game: engine.Game, audience: int | None) -> pb.View:
        return pb.View(thousand=codec.view_to_proto(engine.view(game, audience)))

    def view_bytes(self, game: engine.Game, audience: int | None) -> bytes:
        """Written by hand (:mod:`server.view_wire`, the same bytes as serializing :meth:`view_to_proto`): the
        acting seat's view is sent with every action; no View wrapper built around it and copied either."""
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

    def new_bot(self, strategy: str) -> SeatBot[engine.Game, engine.Action]:
        return ThousandBot(strategy, self.strategies)


class ThousandBot(SeatBot[engine.Game, engine.Action]):
    """A Thousand strategy in a seat: it sees the seat's view, its legal actions included (T-33, T-34)."""

    def __init__(self, strategy: str, registry: GameStrategies[Strategy]) -> None:
        super().__init__(strategy, registry)
        self.player = registry.make(strategy)

    def decide(self, game: engine.Game, seat: int, rng: random.Random) -> engine.Action:
        return self.player.choose(engine.view(game, seat), rng)

    def observe(self, game: engine.Game, seat: int) -> None:
        self.player.observe(engine.view(game, seat))


_VIEW_THOUSAND: Final = wire.field_number(pb.View, "thousand")
_ACTION_THOUSAND: Final = wire.field_number(pb.Action, "thousand")
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
