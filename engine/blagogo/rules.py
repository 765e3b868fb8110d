"""The table's rules for 1000 Blagogo: every variant of ../shared/rules/blagogo.md as one immutable object.

Like Thousand's :class:`engine.rules.Rules`, the object is validated once when it is built, and
:class:`engine.errors.RulesError` names the first field that is wrong, so an impossible table never reaches a
round.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum
from typing import Final

from engine.errors import RulesError
from engine.variants import check_field_types, describe

MIN_PLAYERS: Final = 2
MAX_PLAYERS: Final = 8
MAX_OPENING: Final = 13 * 25
"""No opening can be worth more: at most 13 cards are laid in one turn (one must be discarded), 25 each."""
MAX_ACE_IN_HAND: Final = 100


class LayoffScores(Enum):
    """B-17: who scores the cards added to a meld."""

    MELD_OWNER = "meld_owner"
    """The player who laid the meld (the source: a completed set "stays with its owner")."""
    CONTRIBUTOR = "contributor"
    """Each card scores for the player who put it on the table."""


@dataclass(frozen=True, slots=True)
class BlagogoRules:
    """Every variant of 1000 Blagogo with the specification's defaults.

    Build with keyword arguments; :class:`RulesError` names the first invalid setting.
    """

    players: int = 4
    """B-4: 2 to 8."""
    ace_in_hand: int = 10
    """B-3: what an ace left in hand costs (the source does not say)."""
    bridge_take_must_meld: bool = False
    """B-9: the deepest card taken from the bridge must be melded in the same turn."""
    opening_min_points: int = 30
    """B-11: the least an opening may be worth."""
    layoff_scores_for: LayoffScores = LayoffScores.MELD_OWNER
    """B-17: who scores cards added to a meld."""
    kantrame_first_turn_only: bool = False
    """B-19: kantrame counts only on the player's first turn of the round."""
    target: int = 1000
    """B-20: the score that ends the game."""
    turnover_limit: int = 0
    """B-10 extension, not in the source: when the deck runs out again after the bridge has been turned over
    this many times, the round ends with no winner (scored as B-10 says). 0, the default, never ends it: a
    round in which every card left is dead then goes on for ever, so a server may want a limit."""

    def __post_init__(self) -> None:
        check_field_types(self)
        if not MIN_PLAYERS <= self.players <= MAX_PLAYERS:
            raise RulesError("players", f"1000 Blagogo is played by 2 to 8 players, not {self.players}")
        if not 0 <= self.ace_in_hand <= MAX_ACE_IN_HAND:
            raise RulesError(
                "ace_in_hand", f"must be between 0 and {MAX_ACE_IN_HAND}, got {self.ace_in_hand}"
            )
        if not 0 <= self.opening_min_points <= MAX_OPENING:
            raise RulesError(
                "opening_min_points",
                f"must be between 0 and {MAX_OPENING} (13 cards at 25), got {self.opening_min_points}",
            )
        if self.target <= 0:
            raise RulesError("target", f"must be positive, got {self.target}")
        if self.turnover_limit < 0:
            raise RulesError("turnover_limit", f"must be 0 (no limit) or more, got {self.turnover_limit}")

    def describe(self) -> list[str]:
        """The variants in words, for rules screens and transcripts."""
        return describe(self)
