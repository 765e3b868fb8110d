"""The one place where Thousand's engine values become protobuf messages of ``thousand.v1``, and back.

Everything the server sends about a game passes through here, so the mapping of each engine type is written
once, a module each as in the engine: :mod:`~codec.thousand.cards`, :mod:`~codec.thousand.rules`,
:mod:`~codec.thousand.actions`, :mod:`~codec.thousand.events` and :mod:`~codec.thousand.views`. This package
is what the server's and the clients' game entries use (``from codec import thousand as codec``).
Enumerations are mapped by name (engine ``Suit.SPADES`` is ``SUIT_SPADES``); a proto enum value the engine
does not know, or an engine member the contract lacks, fails loudly at import time or with a specific error,
never silently.

The direction from protobuf is the one clients control, so it validates: :func:`rules_from_proto` raises
:class:`~engine.RulesError` naming the field, :func:`action_from_proto` raises
:class:`~engine.InvalidActionError` with a message saying what is malformed. Whether a well-formed action is
legal right now is the engine's business, not the codec's. :func:`event_from_proto` and
:func:`view_from_proto` decode what the server sent (for Python clients, bots and tests) and raise
``ValueError`` on a message the server would never send.

Hidden information (T-33) is already blanked by the engine's observer (``events_for``, ``view``) before it
gets here; a blanked field (``None``) becomes an absent field or an explicit ``cards_hidden`` flag.
"""

from codec.thousand.actions import action_from_proto, action_message, action_to_proto
from codec.thousand.cards import card_from_proto, card_to_proto
from codec.thousand.events import event_from_proto, event_to_proto
from codec.thousand.rules import rules_from_proto, rules_to_proto
from codec.thousand.views import view_from_proto, view_to_proto

__all__ = [
    "action_from_proto",
    "action_message",
    "action_to_proto",
    "card_from_proto",
    "card_to_proto",
    "event_from_proto",
    "event_to_proto",
    "rules_from_proto",
    "rules_to_proto",
    "view_from_proto",
    "view_to_proto",
]
