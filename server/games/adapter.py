"""The interface every game offers the server: :class:`GameAdapter`, and the engine game it creates.

An adapter is stateless and does, for its game:

- **rules**: decode CreateTable's ``Rules`` (the oneof case must be the game's; the seat count fills an unset
  ``players``), encode them for the ``Table`` message, and to and from bytes for the store;
- **the engine game**: create it from rules, seed, first dealer and a fair table's deals; its events; what
  an event scored (a deal's or a round's outcome, for the metrics and the log);
- **the wire**: actions, events (filtered for the audience: T-33, B-21) and views to and from the wrapper
  messages ``Action``, ``Event`` and ``View``; the actions a Turn lists for the acting seat;
- **records**: actions to and from the JSON of a game record (:mod:`server.export`);
- **bots**: its registry of strategies (:mod:`bots.registry`), and a bot for a seat
  (:class:`SeatBot`): one strategy object kept for the whole game, deciding from its seat's view (and, in
  Blagogo, the Turn's actions) and observing the seat's view after every change.

What the game is (kind, names, engine, codec, strategies) is read from its one description
(:class:`games.description.GameDescription`): an adapter names it (``description``) and gets, from the base
class, everything that is the codec's or the engine's alike for every game; a game's module holds only what is
its own (what a Turn lists, what an event scored, the record's JSON, the fast wire paths).

Both engines' ``Game`` classes share what a table calls directly (:class:`EngineGame`: whose turn, chance
nodes, game over, the winner and standings, and one legal-action contract: ``validate`` refuses exactly what
``apply`` would, changing nothing); everything typed per game goes through the adapter.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Hashable, Sequence
from typing import Any, Final, Generic, Protocol, TypeVar

from bots.strategy import GameStrategies, StrategyOptions
from engine.seeds import FairDeals
from engine.verify import Scheme
from games.description import GameDescription, Scored
from server import protobuf_wire as wire
from server.errors import ErrorReason, ServiceError
from thousand.v1 import table_service_pb2 as pb

__all__ = ["ActionT", "EngineGame", "EventT", "GameAdapter", "GameT", "RulesT", "Scored", "SeatBot"]


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

    @property
    def standings(self) -> Sequence[Any]:
        """The final standings (frozen dataclasses: seat, place, score, …) once the game is over."""

    @property
    def fair(self) -> FairDeals | None:
        """A fair table's deals (engine.seeds); None when they follow the seed."""

    def apply_chance(self) -> Sequence[object]:
        """Deal from the fair or seeded shuffle (the one chance step of both games, T-35, B-23)."""

    def validate(self, seat: int, action: Any) -> None:
        """Raise the engine's ActionError when ``seat`` may not take ``action`` now, changing nothing (the
        one legal-action contract of both engines: Thousand's T-34, 1000 Blagogo's B-22)."""

    def apply(self, seat: int, action: Any) -> Sequence[object]:
        """Apply a seat's action and return its events (raising, unchanged, for an illegal one)."""


RulesT = TypeVar("RulesT")
GameT = TypeVar("GameT", bound=EngineGame)
ActionT = TypeVar("ActionT", bound=Hashable)
EventT = TypeVar("EventT")


class SeatBot(Generic[GameT, ActionT]):
    """A server-run seat's player: one strategy object of the game's registry, kept for the whole game, so
    that a strategy with memory (the Thousand heuristic's and ISMCTS's beliefs) is shown every change. It
    decides from what its seat may see (the game's view and what its Turn lists), as a client's bot does."""

    __slots__ = ("_game", "observes", "player", "searching", "strategy")

    def __init__(self, strategy: str, game: GameDescription, options: StrategyOptions | None = None) -> None:
        self.strategy = strategy
        self._game = game
        self.player = game.strategies.make(strategy, options)
        """The registry's strategy at its default options (one fixed budget), unless ``options`` are given
        (an offline ladder run at a fixed iteration count: ``bench/ladder.py --iterations``)."""
        self.searching = strategy in game.strategies.searching
        """It thinks for a while: the server runs its decisions off the event loop."""
        self.observes = strategy not in game.strategies.stateless
        """It keeps memory between views: it is shown its seat's view after every change."""

    def decide(self, game: GameT, seat: int, rng: random.Random, deadline: float | None = None) -> ActionT:
        """The seat's action, from what the seat may see; ``deadline`` (``time.monotonic()``, None for
        none) is the decision's, handed to a strategy that can take one (:func:`bots.strategy.decide`)."""
        described = self._game
        view, actions = described.view(game, seat), described.turn_actions(game, seat)
        action: ActionT = described.choose(self.player, view, actions, rng, deadline)
        return action

    def observe(self, game: GameT, seat: int) -> None:
        """Show the strategy its seat's view as it is now."""
        self.player.observe(self._game.view(game, seat))


class GameAdapter(Generic[RulesT, GameT, ActionT, EventT]):
    """One game as the server sees it, made from its description (:data:`ADAPTERS`: one per game, stateless
    but for caches). A game whose Turns are sent often may write them faster in a subclass (Thousand's)."""

    def __init__(self, description: GameDescription) -> None:
        game = self.description = description
        """The game, as every layer knows it (:mod:`games`); the attributes below are read from it."""
        self.kind: pb.GameKind.ValueType = game.kind
        """The contract's GameKind."""
        self.name = game.name
        """The oneof case of the wrapper messages, the store's game name and the metric label."""
        self.title = game.title
        """The game's name in messages."""
        self.rules_type = game.rules_type
        """The engine's rules class."""
        self.action_types = game.action_types
        """The engine's action classes."""
        self.takeover_strategy = game.takeover_strategy
        """The strategy that plays a seat taken over when its time ran out (TimeoutPolicy)."""
        self.deals: Scheme = game.deals
        """How the game's deals are checked (engine.verify): which of its events a snapshot's deal in
        progress holds (:mod:`server.deal_progress`)."""
        self.strategies: GameStrategies[Any] = game.strategies
        """The game's registry of strategies (:mod:`bots.registry`): every one can play a bot seat."""
        self.scored: Callable[[object], Scored | None] = game.scored
        """What an event scored when it ends a deal or round (for the metrics and the log); else None."""
        self.action_to_json: Callable[[ActionT], dict[str, Any]] = game.action_to_json
        """The action in a game record (:mod:`server.export`)."""
        self.action_from_json: Callable[[dict[str, Any]], ActionT] = game.action_from_json
        """The action of :attr:`action_to_json`'s form; ValueError for one that is not this game's."""
        self.event_for: Callable[[EventT, int | None], EventT] = game.event_for
        """The event as ``audience`` (a seat, or None for spectators) may see it: hidden cards blanked."""
        self.turn_actions: Callable[[GameT, int], Sequence[ActionT]] = game.turn_actions
        """The actions the acting seat's Turn lists (its stream only)."""
        self._rules_message: type[Any] = type(getattr(pb.Rules(), game.name))
        self._action_message: type[Any] = type(getattr(pb.Action(), game.name))
        self._view_field = wire.field_number(pb.View, game.name)
        self._action_field = wire.field_number(pb.Action, game.name)
        self._event_field = wire.field_number(pb.Event, game.name)

    # ------------------------------------------------------------------ rules

    def rules_from_request(self, message: pb.Rules, seats: int) -> RulesT:
        """CreateTable's rules: the case must be this game's (or unset: every default); ``seats`` (when not 0)
        fills an unset player count. ServiceError for another game's rules, RulesError for invalid ones."""
        self._check_rules_case(message)
        rules = self._rules_message()
        rules.CopyFrom(getattr(message, self.name))
        if not rules.HasField("players") and seats:
            rules.players = seats
        decoded: RulesT = self.description.codec.rules_from_proto(rules)
        return decoded

    def rules_to_proto(self, rules: RulesT) -> pb.Rules:
        """Every field set explicitly, for the Table message."""
        message = pb.Rules()
        getattr(message, self.name).CopyFrom(self.description.codec.rules_to_proto(rules))
        return message

    def players(self, rules: RulesT) -> int:
        return self.description.players(rules)

    def rules_to_bytes(self, rules: RulesT) -> bytes:
        """The game's rules message (ThousandRules, BlagogoRules) serialized, for the store."""
        data: bytes = self.description.codec.rules_to_proto(rules).SerializeToString()
        return data

    def rules_from_bytes(self, data: bytes) -> RulesT:
        rules: RulesT = self.description.codec.rules_from_proto(self._rules_message.FromString(data))
        return rules

    def _check_rules_case(self, message: pb.Rules) -> None:
        if message.WhichOneof("game") not in (None, self.name):
            raise ServiceError(
                ErrorReason.INVALID_ARGUMENT, f"rules must be {self.title} rules", field="rules"
            )

    # ------------------------------------------------------------------ the engine game

    def new_game(
        self, rules: RulesT, seed: int, first_dealer: int | None, fair: FairDeals | None = None
    ) -> GameT:
        game: GameT = self.description.new_game(rules, seed, first_dealer, fair)
        return game

    def events(self, game: GameT) -> Sequence[EventT]:
        """Every event of the game so far, unfiltered."""
        events: Sequence[EventT] = game.events  # type: ignore[attr-defined]  # both engines' Game have it
        return events

    def is_game_over(self, event: object) -> bool:
        """Whether ``event`` is the game's last (its GameOver)."""
        return isinstance(event, self.description.game_over)

    # ------------------------------------------------------------------ the wire

    def action_to_proto(self, action: ActionT) -> pb.Action:
        message = pb.Action()
        getattr(message, self.name).CopyFrom(self.description.codec.action_to_proto(action))
        return message

    def action_from_proto(self, message: pb.Action) -> ActionT:
        """SubmitAction's action: ServiceError for another game's, InvalidActionError for a malformed one."""
        self._action_case(message)
        action: ActionT = self.description.codec.action_from_proto(getattr(message, self.name))
        return action

    def action_to_bytes(self, action: ActionT) -> bytes:
        """The game's action message (ThousandAction, BlagogoAction) serialized, for the store: written for
        every decision, so kept per action (frozen values; a game's are a small set in practice)."""
        data = _STORED_ACTIONS.get(action)
        if data is None:
            data = self.description.codec.action_to_proto(action).SerializeToString()
            _keep(_STORED_ACTIONS, action, data)
        return data

    def action_from_bytes(self, data: bytes) -> ActionT:
        action: ActionT = self.description.codec.action_from_proto(self._action_message.FromString(data))
        return action

    def action_kind(self, action: ActionT) -> str:
        """The action's oneof case in its game's action message (``bid``, ``discard``, ...): a label."""
        return self.description.action_kinds.get(type(action), "unknown")

    def event_message(self, event: EventT) -> pb.Event:
        """The event as it is (already filtered by :meth:`event_for`, or the operator's full record)."""
        message = pb.Event()
        getattr(message, self.name).CopyFrom(self.description.codec.event_to_proto(event))
        return message

    def event_bytes(self, event: EventT) -> bytes:
        """:meth:`event_message` serialized, written around the game's own event message (the same bytes, no
        wrapper built and copied): every event logged is serialized for the streams."""
        data: bytes = self.description.codec.event_to_proto(event).SerializeToString()
        return wire.message_field(self._event_field, data)

    def event_to_proto(self, event: EventT, audience: int | None) -> pb.Event:
        """The event as ``audience`` may see it, on the wire."""
        return self.event_message(self.event_for(event, audience))

    def view_to_proto(self, game: GameT, audience: int | None) -> pb.View:
        """The view of ``audience`` (a seat, or None for spectators) in the ``View`` wrapper."""
        message = pb.View()
        described = self.description
        getattr(message, self.name).CopyFrom(described.codec.view_to_proto(described.view(game, audience)))
        return message

    def view_bytes(self, game: GameT, audience: int | None) -> bytes:
        """The view as a serialized ``View``: what the acting seat's Turn carries, built for every action."""
        return self.view_to_proto(game, audience).SerializeToString()

    def action_bytes(self, action: ActionT) -> bytes:
        """The action as a serialized ``Action``: what a Turn lists, for every action."""
        return self.action_to_proto(action).SerializeToString()

    def turn_actions_bytes(self, game: GameT, seat: int) -> bytes:
        """:meth:`turn_actions` as the Turn's serialized ``legal_actions`` fields, in order: written for every
        action, so a game whose actions are a small set writes each field once (Thousand's)."""
        field, action_bytes = _TURN_LEGAL_ACTIONS, self.action_bytes
        return b"".join([wire.message_field(field, action_bytes(a)) for a in self.turn_actions(game, seat)])

    # ------------------------------------------------------------------ bots

    def strategy_names(self) -> list[str]:
        return self.strategies.names()

    def new_bot(self, strategy: str) -> SeatBot[GameT, ActionT]:
        """A new player of the named strategy (one of :meth:`strategy_names`) for one seat and game."""
        return SeatBot(strategy, self.description)

    def _action_case(self, message: pb.Action) -> None:
        if message.WhichOneof("game") != self.name:
            raise ServiceError(
                ErrorReason.INVALID_ARGUMENT, f"action must be a {self.title} action", field="action"
            )


_TURN_LEGAL_ACTIONS: Final = wire.field_number(pb.Turn, "legal_actions")
_MAX_STORED_ACTIONS: Final = 8192
"""A bound on :data:`_STORED_ACTIONS`: cleared when reached (Thousand's actions are a few hundred in all;
1000 Blagogo's melds are many more, and the rare ones are cheap to write again)."""
_STORED_ACTIONS: dict[Hashable, bytes] = {}
"""Each game's action as the store keeps it, by the action (both games' actions are frozen values)."""


def _keep(cache: dict[Hashable, bytes], key: Hashable, data: bytes) -> None:
    if len(cache) >= _MAX_STORED_ACTIONS:
        cache.clear()
    cache[key] = data
