"""The table's rules for 1000 Blagogo: every variant of ../shared/rules/blagogo.md as one immutable object.

Like Thousand's :class:`engine.rules.Rules`, the object is validated once when it is built, and
:class:`engine.errors.RulesError` names the first field that is wrong, so an impossible table never reaches a
round.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum
from typing import Final

from engine.blagogo.cards import JOKER_COUNT
from engine.errors import RulesError
from engine.variants import check_field_types, describe

MIN_PLAYERS: Final = 2
MAX_PLAYERS: Final = 8
MAX_OPENING: Final = 12 * 25
"""No opening can be worth more: a player who has not opened holds at most 13 cards (nobody takes from the
bridge before opening), keeps one to discard (B-13), and lays 12 at most, 25 each (the eight aces in sets and
the four jokers standing for aces)."""
MAX_ONE_MELD: Final = 4 * 25
"""No single meld is worth more than a set of four aces (a run of twelve is worth 85 at most)."""
MAX_TARGET: Final = 10_000
"""The highest ``target`` a table may set: ten games' worth, so a game ends in a bounded number of rounds of
real play. The server refuses more when a table is created, as for every invalid rule."""
MAX_ACE_IN_HAND: Final = 100


class CompletedSetKeeper(Enum):
    """B-15: who keeps a set of four suits that another player's addition completes."""

    OWNER = "owner"
    """The player who laid it (B-16's reading: the set "stays with its owner")."""
    COMPLETER = "completer"
    """The player whose addition completes it: the source has them turn it over and lay it "рядом с собой"
    (beside themselves). A set completed by a joker swap stays with its owner either way (B-16)."""


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
    this many times, the round ends with no winner (scored as B-10 says). 0, the default, sets no limit: a
    round nobody can go out of ends by itself anyway (:mod:`engine.blagogo.dead_round`)."""
    opening_one_meld: bool = False
    """B-11: the opening needs one meld worth ``opening_min_points`` on its own (the source's "выложенная
    комбинация общей суммой не менее 30" read as one combination); by default the opening's melds, laid in
    one action, count together."""
    completed_set_keeper: CompletedSetKeeper = CompletedSetKeeper.OWNER
    """B-15: who keeps a set that another player's addition completes; its cards then score as
    ``layoff_scores_for`` says, for the keeper as the meld's owner."""
    play_on_own_melds: bool = True
    """B-12: a player may add to, and swap jokers out of, their own melds; false: only other players' melds
    (the source names "выкладки партнеров", partners' melds, for both)."""
    max_jokers_per_meld: int = 0
    """B-14: the most jokers one meld may hold, 0 for no limit but its natural card (the source's "допустимо
    использовать двух джокеров в одной выкладке" read as a limit is 2)."""

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
                f"must be between 0 and {MAX_OPENING} (12 cards at 25: no opening is worth more, so nobody "
                f"could go out), got {self.opening_min_points}",
            )
        if not 0 < self.target <= MAX_TARGET:
            raise RulesError("target", f"must be between 1 and {MAX_TARGET}, got {self.target}")
        if self.turnover_limit < 0:
            raise RulesError("turnover_limit", f"must be 0 (no limit) or more, got {self.turnover_limit}")
        if not 0 <= self.max_jokers_per_meld <= JOKER_COUNT:
            raise RulesError(
                "max_jokers_per_meld",
                f"must be 0 (no limit) to {JOKER_COUNT}, got {self.max_jokers_per_meld}",
            )
        if self.opening_one_meld and self.opening_min_points > MAX_ONE_MELD:
            raise RulesError(
                "opening_min_points",
                f"no single meld is worth more than {MAX_ONE_MELD} (four aces), so with opening_one_meld an "
                f"opening of {self.opening_min_points} could never be laid and nobody could go out (B-11)",
                "opening_one_meld",
            )

    def describe(self) -> list[str]:
        """The variants in words, for rules screens and transcripts."""
        notes = {}
        if self.bridge_take_must_meld:
            notes["bridge_take_must_meld"] = (
                "the deepest card taken must be on the table before the turn's discard; any sequence of the "
                "turn's actions may put it there"
            )
        if not self.max_jokers_per_meld:
            notes["max_jokers_per_meld"] = "no limit"
        return describe(self, notes)
