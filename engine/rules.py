"""The table's rules: every variant of ../shared/rules/thousand.md as one typed, immutable object.

A table's rules are fixed when it is created and visible to every client, so they are validated once, here,
and an impossible combination never reaches a deal.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum
from typing import Final

from engine.errors import RulesError
from engine.variants import check_field_types, describe

MAX_POSSIBLE_POINTS: Final = 400
"""120 card points plus all four marriages: no bid or contract can exceed it, so it bounds the legal list."""

GOAL: Final = 1000
"""T-26: the game is won by reaching 1000 points."""

SAMOSVAL: Final = 555
"""T-29: the score that resets to 0."""

LOWEST_BARREL_WITHOUT_OBLIGATORY: Final = GOAL - MAX_POSSIBLE_POINTS
"""T-27: leaving the barrel needs a contract of ``GOAL - barrel_at``; none exceeds 400, so without the
obligatory game (T-28, won on 121 whatever the score) a lower barrel could never be left."""


class TwoPlayerDeal(Enum):
    """T-5: how two players deal."""

    NINE_AND_TWO_TALONS_OF_3 = "nine_and_two_talons_of_3"
    TEN_AND_TWO_TALONS_OF_2 = "ten_and_two_talons_of_2"


class SitterScores(Enum):
    """T-6: what the dealer who sits the deal out scores with four players."""

    NOTHING = "nothing"
    TALON_ACES_AND_MARRIAGE = "talon_aces_and_marriage"


class OpeningBid(Enum):
    """T-7: what the player left of the dealer says first."""

    FORCED_100 = "forced_100"
    AT_LEAST_100 = "at_least_100"


class BidCap(Enum):
    """T-9: the most a player may bid."""

    MARRIAGES_IN_HAND = "marriages_in_hand"
    NONE = "none"


class WeakTalon(Enum):
    """T-12: when the declarer may call the talon weak and demand a redeal."""

    OFF = "off"
    TWO_NINES_OR_TWO_JACKS_AND_NINE = "two_nines_or_two_jacks_and_nine"
    BELOW_POINTS = "below_points"


@dataclass(frozen=True, slots=True)
class Rules:
    """Every variant of Thousand with the specification's defaults.

    Build with keyword arguments; :class:`RulesError` names the first invalid setting.
    """

    players: int = 3
    two_player_deal: TwoPlayerDeal = TwoPlayerDeal.NINE_AND_TWO_TALONS_OF_3
    sitter_scores: SitterScores = SitterScores.NOTHING
    opening_bid: OpeningBid = OpeningBid.FORCED_100
    bid_step: int = 5
    bid_cap: BidCap = BidCap.MARRIAGES_IN_HAND
    closed_talon_on_uncontested_100: bool = True
    """T-10; it does not apply to two players, whose chosen talon is always shown (T-5)."""
    redeal_four_nines: bool = True
    weak_talon: WeakTalon = WeakTalon.TWO_NINES_OR_TWO_JACKS_AND_NINE
    weak_talon_below_points: int = 10
    """With ``weak_talon=BELOW_POINTS``: the talon is weak when its card points are below this."""
    weak_hand_max_points: int = 13
    must_beat: bool = False
    marriage_on_first_trick: bool = False
    round_defenders: bool = True
    barrel_at: int = 880
    barrel_bumped_by_newcomer: bool = True
    barrel_simultaneous_both_fall: bool = True
    obligatory_game: bool = True
    samosval: bool = True
    golden_deals: bool = False
    dark: bool = False
    bank: int = 0

    def __post_init__(self) -> None:
        check_field_types(self)
        if self.players not in (2, 3, 4):
            raise RulesError("players", f"Thousand is played by 2, 3 or 4 players, not {self.players}")
        if self.bid_step <= 0 or self.bid_step % 5:
            raise RulesError("bid_step", f"must be a positive multiple of 5, got {self.bid_step}")
        if self.dark and self.players == 2:
            raise RulesError("dark", "dark (T-31) is never played with two players")
        if self.weak_talon_below_points < 0 or self.weak_talon_below_points > 32:
            raise RulesError(
                "weak_talon_below_points", f"must be between 0 and 32, got {self.weak_talon_below_points}"
            )
        if self.weak_hand_max_points < 0:
            raise RulesError(
                "weak_hand_max_points", f"must be 0 (off) or more, got {self.weak_hand_max_points}"
            )
        if self.barrel_at and not (120 < self.barrel_at < GOAL and self.barrel_at % 5 == 0):
            raise RulesError(
                "barrel_at", f"must be 0 (off) or a multiple of 5 between 125 and 995, got {self.barrel_at}"
            )
        if self.bank < 0:
            raise RulesError("bank", f"must not be negative, got {self.bank}")
        self._check_winnable()

    def _check_winnable(self) -> None:
        """Refuse a barrel nobody could ever win from (T-27): such a game would never end."""
        if self.barrel and not self.obligatory_game and self.barrel_at < LOWEST_BARREL_WITHOUT_OBLIGATORY:
            raise RulesError(
                "barrel_at",
                f"a barrel at {self.barrel_at} is left only by a contract of {GOAL - self.barrel_at}, and no "
                f"contract can exceed {MAX_POSSIBLE_POINTS} (120 and every marriage), so nobody could ever "
                f"win (T-27): set barrel_at to {LOWEST_BARREL_WITHOUT_OBLIGATORY} or more, or 0 (no barrel), "
                "or keep obligatory_game on (T-28)",
                "obligatory_game",
            )
        if self.barrel_at == SAMOSVAL and self.samosval:
            raise RulesError(
                "barrel_at",
                f"a barrel at {SAMOSVAL} with samosval resets everyone who climbs it to 0 (T-29), so nobody "
                "could ever win: choose another barrel_at or turn samosval off",
                "samosval",
            )

    @property
    def barrel(self) -> bool:
        return self.barrel_at > 0

    def describe(self) -> list[str]:
        """The variants in words, for rules screens and transcripts."""
        notes = {}
        if self.players == 2:
            notes["closed_talon_on_uncontested_100"] = "does not apply to two players: T-5 shows the talon"
        return describe(self, notes)
