"""The one place where 1000 Blagogo's engine values become protobuf messages of ``thousand.v1``, and back.

The Blagogo counterpart of :mod:`codec.thousand` (Thousand), written the same way, a module each as in the
engine: :mod:`~codec.blagogo.cards`, :mod:`~codec.blagogo.rules`, :mod:`~codec.blagogo.actions`,
:mod:`~codec.blagogo.melds`, :mod:`~codec.blagogo.events` and :mod:`~codec.blagogo.views`. This package is
what the server's and the clients' game entries use (``from codec import blagogo``). Enumerations are mapped
by name (engine ``Rank.ACE`` is ``BLAGOGO_RANK_ACE``), so a member missing on either side fails at import
time.

The direction from protobuf is the one clients control, so it validates: :func:`rules_from_proto` raises
:class:`~engine.errors.RulesError` naming the field, :func:`action_from_proto` raises
:class:`~engine.errors.InvalidActionError` saying what is malformed (a card without a suit, a joker meaning
without a rank, an unknown enum value, an empty action). Whether a well-formed action is legal now (the
meld, the meld id, the bridge position, the run's end) is the engine's exact validator's business (B-22).
:func:`event_from_proto` and :func:`view_from_proto` decode what the server sent (for Python clients, bots
and tests) and raise ``ValueError`` on a message the server would never send.

Hidden information (B-21) is already blanked by the engine's observer (``event_for``, ``view``) before it
gets here: a hidden hand becomes an empty list with ``cards_hidden``, a hidden drawn card an absent field.
"""

from codec.blagogo.actions import action_from_proto, action_to_proto, stands_from_proto, stands_to_proto
from codec.blagogo.cards import card_from_proto, card_to_proto
from codec.blagogo.events import event_from_proto, event_to_proto
from codec.blagogo.melds import meld_from_proto, meld_to_proto
from codec.blagogo.rules import rules_from_proto, rules_to_proto
from codec.blagogo.views import view_from_proto, view_to_proto

__all__ = [
    "action_from_proto",
    "action_to_proto",
    "card_from_proto",
    "card_to_proto",
    "event_from_proto",
    "event_to_proto",
    "meld_from_proto",
    "meld_to_proto",
    "rules_from_proto",
    "rules_to_proto",
    "stands_from_proto",
    "stands_to_proto",
    "view_from_proto",
    "view_to_proto",
]
