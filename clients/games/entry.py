"""One game as the clients see it: a :class:`ClientGame` is the game's one description (:mod:`games`) and
its view tracker.

The client library (:class:`~clients.session.TableSession`), the bot SDK and the terminal client are written
once for every game: they decode the stream's wrapper messages (``Rules``, ``Action``, ``View``, ``Event``,
``Turn``) through the entry of the table's game, which knows the case its messages take in each wrapper, its
mapping to the engine's values (a module of :mod:`codec`), its engine's rules and action types, the event that
ends its game, its view tracker (:mod:`clients.tracker`) and how its deals are checked
(:mod:`engine.verify`). The entries are listed in :mod:`clients.games`.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Generic, Protocol, TypeVar

from clients.messages import DealInProgress, EventMessage, TableEvent, Turn, deadline, seat_event
from clients.tracker import Tracker
from engine.verify import Scheme
from games.description import GameDescription
from thousand.v1 import table_service_pb2 as pb

R = TypeVar("R")
"""The game's engine rules."""
V = TypeVar("V")
"""The game's engine view."""
A = TypeVar("A")
"""The game's engine action."""
E = TypeVar("E")
"""The game's engine event."""
V_co = TypeVar("V_co", covariant=True)
E_co = TypeVar("E_co", covariant=True)


class GameCodec(Protocol[R, V_co, A, E_co]):
    """What the clients use of a game's :mod:`codec` module (``codec.thousand``, ``codec.blagogo``)."""

    def rules_to_proto(self, rules: R, /) -> Any: ...

    def rules_from_proto(self, message: Any, /) -> R: ...

    def action_to_proto(self, action: A, /) -> Any: ...

    def action_from_proto(self, message: Any, /) -> A: ...

    def event_from_proto(self, message: Any, /) -> E_co: ...

    def view_from_proto(self, message: Any, /) -> V_co: ...


@dataclass(frozen=True, eq=False)
class ClientGame(Generic[R, V, A, E]):
    """A game of the server, for clients: rules ``R``, view ``V``, action ``A``, event ``E`` of its engine."""

    description: GameDescription
    """The game, as every layer knows it (:mod:`games`): kind, names, engine types, codec, deals."""
    tracker: Callable[[int | None, R | None], Tracker[V, A, E]]
    """A new view tracker for a viewer; given the rules, it starts from the view before the first deal."""

    @property
    def kind(self) -> pb.GameKind.ValueType:
        """The contract's GameKind, as a Table names its game."""
        return self.description.kind

    @property
    def name(self) -> str:
        """The game's case in the wrapper messages (Rules, Action, View, Event), and its name in words."""
        return self.description.name

    @property
    def title(self) -> str:
        """The game's name in sentences."""
        return self.description.title

    @property
    def codec(self) -> GameCodec[R, V, A, E]:
        codec: GameCodec[R, V, A, E] = self.description.codec
        return codec

    @property
    def rules_type(self) -> type[R]:
        rules_type: type[R] = self.description.rules_type
        return rules_type

    @property
    def action_types(self) -> tuple[type, ...]:
        """The engine's action classes, which tell an action's game."""
        return self.description.action_types

    @property
    def game_over(self) -> type:
        """The engine's event that ends the game (it carries the standings)."""
        return self.description.game_over

    @property
    def deals(self) -> Scheme:
        """How a seat checks the game's deals (engine.verify: the commitment, the fair scheme)."""
        return self.description.deals

    # ------------------------------------------------------------------ to the server

    def encode_rules(self, rules: R) -> pb.Rules:
        message = pb.Rules()
        getattr(message, self.name).CopyFrom(self.codec.rules_to_proto(rules))
        return message

    def encode_action(self, action: A) -> pb.Action:
        message = pb.Action()
        getattr(message, self.name).CopyFrom(self.codec.action_to_proto(action))
        return message

    # ------------------------------------------------------------------ from the server

    def plays(self, table: pb.Table) -> bool:
        """Whether ``table`` plays this game."""
        return table.game == self.kind

    def rules_of(self, table: pb.Table) -> R:
        """The table's rules as the engine's; ValueError for a table of another game."""
        if not self.plays(table):
            game = pb.GameKind.Name(table.game).removeprefix("GAME_KIND_").capitalize()
            raise ValueError(
                f"table {table.table_id} plays {game}, not {self.title} (see clients.games.game_of)"
            )
        return self.codec.rules_from_proto(getattr(table.rules, self.name))

    def decode_view(self, message: pb.View) -> V | None:
        """The engine's view; None when the message holds no view of this game."""
        if not message.HasField(self.name):  # type: ignore[arg-type]  # the game's case, by name
            return None
        return self.codec.view_from_proto(getattr(message, self.name))

    def decode_turn(self, message: pb.Turn) -> Turn[V, A]:
        """The Turn, its actions in the server's order (actions and views of another game are left out)."""
        name = self.name
        return Turn(
            seat=message.seat if message.HasField("seat") else None,
            legal_actions=tuple(
                self.codec.action_from_proto(getattr(a, name))
                for a in message.legal_actions
                if a.HasField(name)  # type: ignore[arg-type]
            ),
            view=self.decode_view(message.view) if message.HasField("view") else None,
            deadline=deadline(message),
        )

    def decode_event(self, message: pb.Event) -> TableEvent[E]:
        """A seat's or the game's event; ValueError for an event of another game (the server sends none)."""
        table_event = seat_event(message)
        if table_event is not None:
            return table_event
        kind = message.WhichOneof("event")
        if kind != self.name:
            raise ValueError(f"a {kind} event at a table of {self.title}")
        return self.codec.event_from_proto(getattr(message, kind))

    def decode_deal(self, message: pb.Snapshot) -> DealInProgress | None:
        """A snapshot's deal in progress, its events decoded as the stream's are; None when it has none."""
        if not message.HasField("deal"):
            return None
        deal = message.deal
        events: tuple[EventMessage[V, A, E], ...] = tuple(
            EventMessage(e.sequence, self.decode_event(e.event), None) for e in deal.events
        )
        return DealInProgress(deal.number, deal.commitment, events)

    def is_game_over(self, event: object) -> bool:
        return isinstance(event, self.game_over)
