"""1000 Blagogo (``../shared/rules/blagogo.md``) for the clients: :mod:`engine.blagogo`, :mod:`codec.blagogo`,
:mod:`clients.tracker.blagogo`; and the two halves of a Blagogo Turn's actions.

A Blagogo Turn lists every *simple* action of the seat (draw, takes, discards, joker swaps, single-card
additions: the complete list), then some candidate melds the server proposes (B-22): not every legal meld, so
any :class:`~engine.blagogo.LayMelds` or :class:`~engine.blagogo.AddToMeld` may be submitted, and the server
validates it exactly.
"""

from __future__ import annotations

from typing import Any, Final, get_args

from clients.games.entry import ClientGame
from clients.messages import Turn
from clients.tracker.blagogo import BlagogoViewTracker
from codec import blagogo as codec
from engine import blagogo
from engine.blagogo import events
from engine.blagogo.verify import BLAGOGO as BLAGOGO_DEALS
from thousand.v1 import table_service_pb2 as pb

BLAGOGO: Final[ClientGame[blagogo.BlagogoRules, blagogo.View, blagogo.Action, events.Event]] = ClientGame(
    kind=pb.GAME_KIND_BLAGOGO,
    name="blagogo",
    title="1000 Blagogo",
    codec=codec,
    rules_type=blagogo.BlagogoRules,
    action_types=get_args(blagogo.Action),
    game_over=events.GameOver,
    tracker=BlagogoViewTracker,
    deals=BLAGOGO_DEALS,
)


def simple_actions(turn: Turn[Any, blagogo.Action]) -> tuple[blagogo.Action, ...]:
    """The complete list of simple actions (everything but the candidate melds)."""
    return tuple(a for a in turn.legal_actions if not isinstance(a, blagogo.LayMelds))


def candidate_melds(turn: Turn[Any, blagogo.Action]) -> tuple[blagogo.LayMelds, ...]:
    """The melds the server proposes (some legal LayMelds, not all)."""
    return tuple(a for a in turn.legal_actions if isinstance(a, blagogo.LayMelds))
