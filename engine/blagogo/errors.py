"""Rejection reasons of 1000 Blagogo.

The shared :class:`engine.errors.Reason` names Thousand's reasons; the rummy needs its own. Until the shared
enum gains them, a Blagogo rejection is a :class:`BlagogoIllegalActionError`, a subclass of
:class:`engine.errors.IllegalActionError` (so ``except IllegalActionError`` and the server's mapping keep
working):

- ``error.rule`` is the precise reason, typed ``BlagogoReason | Reason``;
- ``error.reason`` is the shared :class:`Reason` when there is one (``NOT_YOUR_TURN``, ``GAME_OVER``,
  ``WRONG_PHASE``, ``NO_SUCH_CARD``, ...), otherwise the :class:`BlagogoReason` itself. Its ``.value`` is in
  both cases the stable upper-case identifier the server forwards to clients.

Malformed actions (not an action of this game, a value of the wrong type) raise the shared
:class:`engine.errors.InvalidActionError`, reason ``MALFORMED``.
"""

from __future__ import annotations

from enum import Enum
from typing import cast

from engine.errors import IllegalActionError, Reason


class BlagogoReason(Enum):
    """Why a Blagogo action was refused. Values are stable identifiers shown to clients."""

    NOT_OPENED = "NOT_OPENED"
    """B-9, B-12: taking from the bridge, adding to melds and swapping jokers need an opening first."""
    OPENING_TOO_LOW = "OPENING_TOO_LOW"
    """B-11: the opening melds are worth less than ``opening_min_points``."""
    NO_SUCH_POSITION = "NO_SUCH_POSITION"
    """B-9: there is no card at that position of the bridge."""
    BRIDGE_CARD_NOT_MELDABLE = "BRIDGE_CARD_NOT_MELDABLE"
    """B-9 ``bridge_take_must_meld``: the deepest card taken could not be melded this turn."""
    MUST_MELD_BRIDGE_CARD = "MUST_MELD_BRIDGE_CARD"
    """B-9 ``bridge_take_must_meld``: the card taken from the bridge must be melded before discarding."""
    LAST_CARD_MUST_BE_DISCARDED = "LAST_CARD_MUST_BE_DISCARDED"
    """B-13: melding or adding away the last card in hand."""
    CARD_USED_TWICE = "CARD_USED_TWICE"
    """One card named twice in one action."""
    NO_SUCH_MELD = "NO_SUCH_MELD"
    MELD_CLOSED = "MELD_CLOSED"
    """B-15: a completed set of four takes no more cards."""
    MELD_TOO_SHORT = "MELD_TOO_SHORT"
    """B-14: a meld has at least 3 cards."""
    MELD_NEEDS_NATURAL = "MELD_NEEDS_NATURAL"
    """B-14: a meld holds at least one natural card."""
    NOT_A_MELD = "NOT_A_MELD"
    """B-14: the cards are neither one rank (a set) nor one suit (a run)."""
    DOUBLES_IN_SET = "DOUBLES_IN_SET"
    """B-14: two cards of the same suit in a set."""
    SET_TOO_LONG = "SET_TOO_LONG"
    """B-14, B-15: a set has at most 4 cards."""
    RUN_NOT_CONSECUTIVE = "RUN_NOT_CONSECUTIVE"
    """B-14, B-15: a run's ranks must follow each other (round the corner allowed)."""
    RUN_REPEATS_RANK = "RUN_REPEATS_RANK"
    """B-14: a run holds each rank at most once (so at most 13 cards)."""
    JOKER_MEANING = "JOKER_MEANING"
    """B-14: what a joker is said to stand for does not fit the meld."""
    NO_JOKER_FOR_CARD = "NO_JOKER_FOR_CARD"
    """B-16: no joker of that meld stands for this card."""
    SET_NEEDS_THIRD_SUIT = "SET_NEEDS_THIRD_SUIT"
    """B-16: a set's joker is freed only by the fourth natural suit, once the third is there."""
    SWAP_NEEDS_NATURAL = "SWAP_NEEDS_NATURAL"
    """B-16: a joker is swapped for a natural card."""
    TOO_MANY_JOKERS = "TOO_MANY_JOKERS"
    """B-14 ``max_jokers_per_meld``: the meld would hold more jokers than the table allows."""
    OWN_MELD = "OWN_MELD"
    """B-12 ``play_on_own_melds`` off: additions and joker swaps go to other players' melds only."""


class BlagogoIllegalActionError(IllegalActionError):
    """A well-formed Blagogo action the rules do not allow now; ``rule`` is the precise reason."""

    def __init__(self, reason: BlagogoReason | Reason, message: str) -> None:
        # See the module docstring: ``reason`` carries the Blagogo reason until the shared enum has it. The
        # attributes are set here, not by ActionError.__init__: in the compiled engine (mypyc, the production
        # build) that method takes only instances of its own compiled classes, and this class is interpreted.
        Exception.__init__(self, message)
        self.reason = cast(Reason, reason)
        self.message = message
        self.rule: BlagogoReason | Reason = reason


def illegal(reason: BlagogoReason | Reason, message: str) -> BlagogoIllegalActionError:
    return BlagogoIllegalActionError(reason, message)
