"""1000 Blagogo (``../shared/rules/blagogo.md``) for the clients: its description (:mod:`games.blagogo`),
:mod:`clients.tracker.blagogo`; and the two halves of a Blagogo Turn's actions.

A Blagogo Turn lists every *simple* action of the seat (draw, takes, discards, joker swaps, single-card
additions: the complete list), then some candidate melds the server proposes (B-22): not every legal meld, so
any :class:`~engine.blagogo.LayMelds` or :class:`~engine.blagogo.AddToMeld` may be submitted, and the server
validates it exactly.
"""

from __future__ import annotations

from typing import Any, Final

import games
from clients.games.entry import ClientGame
from clients.messages import Turn
from clients.tracker.blagogo import BlagogoViewTracker
from engine import blagogo
from engine.blagogo import events

BLAGOGO: Final[ClientGame[blagogo.BlagogoRules, blagogo.View, blagogo.Action, events.Event]] = ClientGame(
    description=games.BLAGOGO, tracker=BlagogoViewTracker
)


def simple_actions(turn: Turn[Any, blagogo.Action]) -> tuple[blagogo.Action, ...]:
    """The complete list of simple actions (everything but the candidate melds)."""
    return tuple(a for a in turn.legal_actions if not isinstance(a, blagogo.LayMelds))


def candidate_melds(turn: Turn[Any, blagogo.Action]) -> tuple[blagogo.LayMelds, ...]:
    """The melds the server proposes (some legal LayMelds, not all)."""
    return tuple(a for a in turn.legal_actions if isinstance(a, blagogo.LayMelds))
