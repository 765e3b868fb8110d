"""The games a table can play, behind one small interface: a :class:`GameAdapter` per game.

A table, the registry, the service, the store and the exporter never name Thousand or 1000 Blagogo: they hold
an adapter, found by the contract's ``GameKind`` (:func:`adapter_for_kind`), by the name stored with a table
(:func:`adapter_for_name`) or by the engine rules' type (:func:`adapter_for_rules`), and the engine game it
created. An adapter is stateless and does, for its game:

- **rules**: decode CreateTable's ``Rules`` (the oneof case must be the game's; the seat count fills an unset
  ``players``), encode them for the ``Table`` message, and to and from bytes for the store;
- **the engine game**: create it from rules, seed and first dealer; its events; check an action (raising the
  engine's :class:`~engine.ActionError`, the game unchanged) and apply it;
- **the wire**: actions, events (filtered for the audience: T-33, B-21) and views to and from the wrapper
  messages ``Action``, ``Event`` and ``View``; the actions a Turn lists for the acting seat;
- **bots**: its registry of strategies (:mod:`clients.bots.registry`), and a bot for a seat
  (:class:`SeatBot`): one strategy object kept for the whole game, deciding from its seat's view (and, in
  Blagogo, the Turn's actions) and observing the seat's view after every change.

Both engines' ``Game`` classes already share what a table reads directly (:class:`EngineGame`: whose turn,
chance nodes, game over); everything typed per game goes through the adapter.

The one difference in legality (B-22): Thousand lists every legal action (T-34), so an action outside the list
is refused by applying it (the engine raises, unchanged); Blagogo's list holds the simple actions and some
candidate melds, and every action, listed or not, is checked by the engine's exact validator.
"""

from __future__ import annotations

import random
from abc import ABC, abstractmethod
from collections.abc import Callable, Hashable, Sequence
from typing import Any, ClassVar, Final, Generic, Protocol, TypeVar

import engine
from clients.bots.blagogo import BLAGOGO as BLAGOGO_BOTS
from clients.bots.blagogo import BlagogoStrategy
from clients.bots.registry import THOUSAND as THOUSAND_BOTS
from clients.bots.strategy import GameStrategies, Strategy
from engine import blagogo
from engine import events as thousand_events
from engine.blagogo import events as blagogo_events
from server import codec, codec_blagogo, view_wire, wire
from server.errors import ErrorReason, ServiceError
from thousand.v1 import table_service_pb2 as pb
from thousand.v1.blagogo_actions_pb2 import BlagogoAction
from thousand.v1.blagogo_rules_pb2 import BlagogoRules
from thousand.v1.thousand_actions_pb2 import ThousandAction
from thousand.v1.thousand_rules_pb2 import ThousandRules


class EngineGame(Protocol):
    """What every engine's ``Game`` offers and a table reads directly."""

    @property
    def is_over(self) -> bool: ...

    @property
    def is_chance_node(self) -> bool: ...

    @property
    def to_act(self) -> int | None:
        """The seat that must decide; None at a chance node or once the game is over."""

    @property
    def first_dealer(self) -> int: ...

    @property
    def winner(self) -> int | None: ...

    def apply_chance(self) -> Sequence[object]:
        """Deal from the seeded shuffle (the one chance step of both games, T-35, B-23)."""


RulesT = TypeVar("RulesT")
GameT = TypeVar("GameT", bound=EngineGame)
ActionT = TypeVar("ActionT", bound=Hashable)
EventT = TypeVar("EventT")


class SeatBot(ABC, Generic[GameT, ActionT]):
    """A server-run seat's player: one strategy object of the game's registry, kept for the whole game, so
    that a strategy with memory (the Thousand heuristic's and ISMCTS's beliefs) is shown every change."""

    def __init__(self, strategy: str, registry: GameStrategies[Any]) -> None:
        self.strategy = strategy
        self.searching = strategy in registry.searching
        """It thinks for a while: the server runs its decisions off the event loop."""
        self.observes = strategy not in registry.stateless
        """It keeps memory between views: it is shown its seat's view after every change."""

    @abstractmethod
    def decide(self, game: GameT, seat: int, rng: random.Random) -> ActionT:
        """The seat's action, from what the seat may see."""

    @abstractmethod
    def observe(self, game: GameT, seat: int) -> None:
        """Show the strategy its seat's view as it is now."""


class GameAdapter(ABC, Generic[RulesT, GameT, ActionT, EventT]):
    """One game as the server sees it. Subclasses are stateless singletons (:data:`ADAPTERS`)."""

    kind: ClassVar[pb.GameKind.ValueType]
    """The contract's GameKind."""
    name: ClassVar[str]
    """The oneof case of the wrapper messages, the store's game name and the metric label."""
    title: ClassVar[str]
    """The game's name in messages."""
    rules_type: ClassVar[type]
    """The engine's rules class."""
    takeover_strategy: ClassVar[str]
    """The strategy that plays a seat taken over when its time ran out (TimeoutPolicy)."""

    # ------------------------------------------------------------------ rules

    @abstractmethod
    def rules_from_request(self, message: pb.Rules, seats: int) -> RulesT:
        """CreateTable's rules: the case must be this game's (or unset: every default); ``seats`` (when not 0)
        fills an unset player count. ServiceError for another game's rules, RulesError for invalid ones."""

    @abstractmethod
    def rules_to_proto(self, rules: RulesT) -> pb.Rules:
        """Every field set explicitly, for the Table message."""

    @abstractmethod
    def players(self, rules: RulesT) -> int: ...

    @abstractmethod
    def rules_to_bytes(self, rules: RulesT) -> bytes:
        """The game's rules message (ThousandRules, BlagogoRules) serialized, for the store."""

    @abstractmethod
    def rules_from_bytes(self, data: bytes) -> RulesT: ...

    def _check_rules_case(self, message: pb.Rules) -> None:
        if message.WhichOneof("game") not in (None, self.name):
            raise ServiceError(
                ErrorReason.INVALID_ARGUMENT, f"rules must be {self.title} rules", field="rules"
            )

    # ------------------------------------------------------------------ the engine game

    @abstractmethod
    def new_game(self, rules: RulesT, seed: int, first_dealer: int | None) -> GameT: ...

    @abstractmethod
    def events(self, game: GameT) -> Sequence[EventT]:
        """Every event of the game so far, unfiltered."""

    @abstractmethod
    def check(self, game: GameT, seat: int, action: ActionT) -> None:
        """Raise the engine's ActionError when ``seat`` may not take ``action`` now; the game is unchanged."""

    @abstractmethod
    def apply(self, game: GameT, seat: int, action: ActionT) -> None:
        """Apply a checked action."""

    @abstractmethod
    def is_game_over(self, event: object) -> bool:
        """Whether ``event`` is the game's last (its GameOver)."""

    # ------------------------------------------------------------------ the wire

    @abstractmethod
    def action_to_proto(self, action: ActionT) -> pb.Action: ...

    @abstractmethod
    def action_from_proto(self, message: pb.Action) -> ActionT:
        """SubmitAction's action: ServiceError for another game's, InvalidActionError for a malformed one."""

    @abstractmethod
    def action_to_bytes(self, action: ActionT) -> bytes:
        """The game's action message (ThousandAction, BlagogoAction) serialized, for the store."""

    @abstractmethod
    def action_from_bytes(self, data: bytes) -> ActionT: ...

    @abstractmethod
    def action_kind(self, action: ActionT) -> str:
        """The action's oneof case in its game's action message (``bid``, ``discard``, ...): a label."""

    @abstractmethod
    def event_for(self, event: EventT, audience: int | None) -> EventT:
        """The event as ``audience`` (a seat, or None for spectators) may see it: hidden cards blanked."""

    @abstractmethod
    def event_message(self, event: EventT) -> pb.Event:
        """The event as it is (already filtered by :meth:`event_for`, or the operator's full record)."""

    def event_to_proto(self, event: EventT, audience: int | None) -> pb.Event:
        """The event as ``audience`` may see it, on the wire."""
        return self.event_message(self.event_for(event, audience))

    @abstractmethod
    def view_to_proto(self, game: GameT, audience: int | None) -> pb.View: ...

    def view_bytes(self, game: GameT, audience: int | None) -> bytes:
        """The view as a serialized ``View``: what the acting seat's Turn carries, built for every action."""
        return self.view_to_proto(game, audience).SerializeToString()

    def action_bytes(self, action: ActionT) -> bytes:
        """The action as a serialized ``Action``: what a Turn lists, for every action."""
        return self.action_to_proto(action).SerializeToString()

    @abstractmethod
    def turn_actions(self, game: GameT, seat: int) -> Sequence[ActionT]:
        """The actions the acting seat's Turn lists (its stream only)."""

    # ------------------------------------------------------------------ bots

    strategies: ClassVar[GameStrategies[Any]]
    """The game's registry of strategies (:mod:`clients.bots.registry`): every one can play a bot seat."""

    def strategy_names(self) -> list[str]:
        return self.strategies.names()

    @abstractmethod
    def new_bot(self, strategy: str) -> SeatBot[GameT, ActionT]:
        """A new player of the named strategy (one of :meth:`strategy_names`) for one seat and game."""

    def _action_case(self, message: pb.Action) -> None:
        if message.WhichOneof("game") != self.name:
            raise ServiceError(
                ErrorReason.INVALID_ARGUMENT, f"action must be a {self.title} action", field="action"
            )


# ------------------------------------------------------------------------------------------------ Thousand


class ThousandAdapter(GameAdapter[engine.Rules, engine.Game, engine.Action, engine.Event]):
    """Thousand (``../shared/rules/thousand.md``): :mod:`engine`, :mod:`server.codec`."""

    kind = pb.GAME_KIND_THOUSAND
    name = "thousand"
    title = "Thousand"
    rules_type = engine.Rules
    takeover_strategy = "greedy"
    strategies = THOUSAND_BOTS

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

    def new_game(self, rules: engine.Rules, seed: int, first_dealer: int | None) -> engine.Game:
        return engine.Game(rules, seed, first_dealer)

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


_VIEW_THOUSAND: Final = pb.View.DESCRIPTOR.fields_by_name["thousand"].number
_ACTION_THOUSAND: Final = pb.Action.DESCRIPTOR.fields_by_name["thousand"].number
_MAX_CACHED_ACTIONS: Final = 4096
"""A bound the cache never reaches in practice (bids, contracts, cards given, discarded and played)."""
_THOUSAND_ACTION_BYTES: dict[engine.Action, bytes] = {}


# ---------------------------------------------------------------------------------------------------- Blagogo


class BlagogoAdapter(GameAdapter[blagogo.BlagogoRules, blagogo.Game, blagogo.Action, blagogo_events.Event]):
    """1000 Blagogo (``../shared/rules/blagogo.md``): :mod:`engine.blagogo`, :mod:`server.codec_blagogo`.

    A Turn lists the engine's simple legal actions (complete: draw, takes, discards, swaps, single-card
    additions), then its candidate melds (some legal LayMelds, not all: B-22). Any action is checked by the
    engine's exact validator, so a LayMelds or AddToMeld the list does not hold is accepted when legal.
    """

    kind = pb.GAME_KIND_BLAGOGO
    name = "blagogo"
    title = "1000 Blagogo"
    rules_type = blagogo.BlagogoRules
    takeover_strategy = "random"
    strategies = BLAGOGO_BOTS

    def rules_from_request(self, message: pb.Rules, seats: int) -> blagogo.BlagogoRules:
        self._check_rules_case(message)
        rules = BlagogoRules()
        rules.CopyFrom(message.blagogo)
        if not rules.HasField("players") and seats:
            rules.players = seats
        return codec_blagogo.rules_from_proto(rules)

    def rules_to_proto(self, rules: blagogo.BlagogoRules) -> pb.Rules:
        return pb.Rules(blagogo=codec_blagogo.rules_to_proto(rules))

    def players(self, rules: blagogo.BlagogoRules) -> int:
        return rules.players

    def rules_to_bytes(self, rules: blagogo.BlagogoRules) -> bytes:
        return codec_blagogo.rules_to_proto(rules).SerializeToString()

    def rules_from_bytes(self, data: bytes) -> blagogo.BlagogoRules:
        return codec_blagogo.rules_from_proto(BlagogoRules.FromString(data))

    def new_game(self, rules: blagogo.BlagogoRules, seed: int, first_dealer: int | None) -> blagogo.Game:
        return blagogo.Game(rules, seed, first_dealer)

    def events(self, game: blagogo.Game) -> Sequence[blagogo_events.Event]:
        return game.events

    def check(self, game: blagogo.Game, seat: int, action: blagogo.Action) -> None:
        game.validate(seat, action)  # B-22: exact for every action, listed or not

    def apply(self, game: blagogo.Game, seat: int, action: blagogo.Action) -> None:
        game.apply(seat, action)

    def is_game_over(self, event: object) -> bool:
        return isinstance(event, blagogo_events.GameOver)

    def action_to_proto(self, action: blagogo.Action) -> pb.Action:
        return pb.Action(blagogo=codec_blagogo.action_to_proto(action))

    def action_from_proto(self, message: pb.Action) -> blagogo.Action:
        self._action_case(message)
        return codec_blagogo.action_from_proto(message.blagogo)

    def action_to_bytes(self, action: blagogo.Action) -> bytes:
        return codec_blagogo.action_to_proto(action).SerializeToString()

    def action_from_bytes(self, data: bytes) -> blagogo.Action:
        return codec_blagogo.action_from_proto(BlagogoAction.FromString(data))

    def action_kind(self, action: blagogo.Action) -> str:
        return _BLAGOGO_ACTION_KINDS.get(type(action), "unknown")

    def event_for(self, event: blagogo_events.Event, audience: int | None) -> blagogo_events.Event:
        return blagogo.event_for(event, audience)

    def event_message(self, event: blagogo_events.Event) -> pb.Event:
        return pb.Event(blagogo=codec_blagogo.event_to_proto(event))

    def view_to_proto(self, game: blagogo.Game, audience: int | None) -> pb.View:
        return pb.View(blagogo=codec_blagogo.view_to_proto(blagogo.view(game, audience)))

    def turn_actions(self, game: blagogo.Game, seat: int) -> Sequence[blagogo.Action]:
        if game.to_act != seat:
            return ()
        return (*game.legal_actions(), *game.candidate_melds())

    def new_bot(self, strategy: str) -> SeatBot[blagogo.Game, blagogo.Action]:
        return BlagogoBot(strategy, self.strategies, self.turn_actions)


class BlagogoBot(SeatBot[blagogo.Game, blagogo.Action]):
    """A 1000 Blagogo strategy in a seat: it sees the seat's view and the actions its Turn lists (B-22)."""

    def __init__(
        self,
        strategy: str,
        registry: GameStrategies[BlagogoStrategy],
        turn_actions: Callable[[blagogo.Game, int], Sequence[blagogo.Action]],
    ) -> None:
        super().__init__(strategy, registry)
        self.player = registry.make(strategy)
        self._turn_actions = turn_actions

    def decide(self, game: blagogo.Game, seat: int, rng: random.Random) -> blagogo.Action:
        return self.player.choose(blagogo.view(game, seat), self._turn_actions(game, seat), rng)

    def observe(self, game: blagogo.Game, seat: int) -> None:
        self.player.observe(blagogo.view(game, seat))


_BLAGOGO_ACTION_KINDS: Final[dict[type, str]] = {
    blagogo.DrawFromDeck: "draw_from_deck",
    blagogo.TakeFromBridge: "take_from_bridge",
    blagogo.LayMelds: "lay_melds",
    blagogo.AddToMeld: "add_to_meld",
    blagogo.SwapJoker: "swap_joker",
    blagogo.Discard: "discard",
}


# ---------------------------------------------------------------------------------------------------- finding

AnyAdapter = GameAdapter[Any, Any, Any, Any]

THOUSAND: Final = ThousandAdapter()
BLAGOGO: Final = BlagogoAdapter()
ADAPTERS: Final[tuple[AnyAdapter, ...]] = (THOUSAND, BLAGOGO)
"""Every game the server plays, in GameKind order."""
GAMES: Final = tuple(a.name for a in ADAPTERS)
"""The games' names: the store's game names and the ``game`` metric label's values."""


def adapter_for_kind(kind: int) -> AnyAdapter | None:
    """The game of a GameKind; None for GAME_KIND_UNSPECIFIED or a kind this server does not know."""
    return next((a for a in ADAPTERS if a.kind == kind), None)


def adapter_for_name(name: str) -> AnyAdapter:
    for adapter in ADAPTERS:
        if adapter.name == name:
            return adapter
    raise ValueError(f"unknown game {name!r} (known: {', '.join(GAMES)})")


def adapter_for_rules(rules: object) -> AnyAdapter:
    """The game whose engine rules ``rules`` are."""
    for adapter in ADAPTERS:
        if isinstance(rules, adapter.rules_type):
            return adapter
    raise TypeError(f"{rules!r} are no game's rules")
