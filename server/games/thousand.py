"""Thousand's fast wire paths: what the server writes for every action, written by hand.

Thousand (its description: :mod:`games.thousand`) lists every legal action in the acting seat's Turn (T-34),
and that Turn carries the seat's view, so both go out with every action: the view is written by
:mod:`server.thousand_view_bytes` (the same bytes as protobuf's, several times faster), each action's bytes
and each Turn's ``legal_actions`` field are kept, and so are the bytes of the events that are a small closed
set (a card played, a bid, a pass: most of a deal's events). Everything else is the description's, through
:class:`~server.games.adapter.GameAdapter`.
"""

from __future__ import annotations

from typing import Final

import engine
from codec import thousand as codec
from server import protobuf_wire as wire
from server import thousand_view_bytes as view_wire
from server.games.adapter import GameAdapter
from thousand.v1 import table_service_pb2 as pb


class ThousandAdapter(GameAdapter[engine.Rules, engine.Game, engine.Action, engine.Event]):
    """Thousand, its Turns and views written the fast way."""

    def view_bytes(self, game: engine.Game, audience: int | None) -> bytes:
        """Written by hand (:mod:`server.thousand_view_bytes`, the same bytes as serializing
        :meth:`view_to_proto`): the acting seat's view is sent with every action; no View wrapper built around
        it and copied either."""
        return wire.message_field(self._view_field, view_wire.view_bytes(engine.view(game, audience)))

    def action_bytes(self, action: engine.Action) -> bytes:
        """Cached: Thousand's actions are a small closed set (T-34 lists at most a few dozen at a time)."""
        data = _THOUSAND_ACTION_BYTES.get(action)
        if data is None:
            if len(_THOUSAND_ACTION_BYTES) >= _MAX_CACHED_ACTIONS:
                _THOUSAND_ACTION_BYTES.clear()
            data = wire.message_field(self._action_field, codec.action_message(action).SerializeToString())
            _THOUSAND_ACTION_BYTES[action] = data
        return data

    def event_bytes(self, event: engine.Event) -> bytes:
        """Kept for the events of a small closed set (:data:`_KEPT_EVENTS`: 96 cards played, a few hundred
        bids), found by value: the same bytes as the description's, without building two messages for
        every card played (about 5 us each, against under 1 us to hash and find the event)."""
        if type(event) not in _KEPT_EVENTS:
            return super().event_bytes(event)
        data = _THOUSAND_EVENT_BYTES.get(event)
        if data is None:
            if len(_THOUSAND_EVENT_BYTES) >= _MAX_CACHED_ACTIONS:
                _THOUSAND_EVENT_BYTES.clear()
            data = _THOUSAND_EVENT_BYTES[event] = super().event_bytes(event)
        return data

    def turn_actions_bytes(self, game: engine.Game, seat: int) -> bytes:
        """Each legal action's whole ``legal_actions`` field kept by the action object: the engine interns
        its legal actions (T-34), so a field is found by identity, without hashing the action."""
        fields = _TURN_FIELDS.get
        return b"".join([fields(id(a)) or self._turn_field(a) for a in game.legal_actions()])

    def _turn_field(self, action: engine.Action) -> bytes:
        return _TURN_FIELDS.put(action, wire.message_field(_TURN_LEGAL_ACTIONS, self.action_bytes(action)))


_TURN_LEGAL_ACTIONS: Final = wire.field_number(pb.Turn, "legal_actions")
_TURN_FIELDS: Final = view_wire.ByIdentity()
"""Each legal action's ``legal_actions`` field of a Turn, by the action object."""
_MAX_CACHED_ACTIONS: Final = 4096
"""A bound the cache never reaches in practice (bids, contracts, cards given, discarded and played)."""
_THOUSAND_ACTION_BYTES: dict[engine.Action, bytes] = {}
_KEPT_EVENTS: Final = frozenset(
    {
        engine.events.CardPlayed,
        engine.events.BidMade,
        engine.events.Passed,
        engine.events.AuctionWon,
        engine.events.DarkDeclared,
        engine.events.DarkDeclined,
        engine.events.TalonChosen,
        engine.events.MarriageDeclared,
    }
)
"""Event types whose values are a small closed set (seats, cards, bids, suits): their bytes are kept."""
_THOUSAND_EVENT_BYTES: dict[engine.Event, bytes] = {}
