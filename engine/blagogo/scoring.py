"""What a finished round is worth (B-2, B-3, B-17, B-18, B-19).

Every player adds the value of the melds they own, open and closed (B-17: with ``layoff_scores_for=
CONTRIBUTOR`` each card scores for the player who put it on the table instead), and subtracts the cards left
in their hand (B-3). The player who went out adds 30 (B-18). After kantrame the losers' hand penalties are
doubled (B-19). A round that ended without a winner (B-10) is scored the same way without the 30.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from engine.blagogo.cards import WIN_BONUS, hand_penalty
from engine.blagogo.melds import TableMeld
from engine.blagogo.round import Round
from engine.blagogo.rules import BlagogoRules, LayoffScores


@dataclass(frozen=True, slots=True)
class RoundValue:
    winner: int | None
    kantrame: bool
    meld_points: tuple[int, ...]
    """B-2, B-17: what each seat's melds (or contributed cards) are worth."""
    hand_penalties: tuple[int, ...]
    """B-3, B-19: what each seat's hand costs, doubled for the losers after kantrame (positive numbers)."""
    deltas: tuple[int, ...]
    """What the round adds to each seat's score."""


def meld_points(rules: BlagogoRules, melds: Sequence[TableMeld]) -> list[int]:
    """B-17: each seat's points from the melds on the table."""
    points = [0] * rules.players
    by_contributor = rules.layoff_scores_for is LayoffScores.CONTRIBUTOR
    for m in melds:
        if by_contributor:
            for seat, value in zip(m.contributors, m.card_values(), strict=True):
                points[seat] += value
        else:
            points[m.owner] += m.points
    return points


def value_round(rules: BlagogoRules, rnd: Round) -> RoundValue:
    """The value of a finished round."""
    assert rnd.is_over
    n = rules.players
    winner = rnd.winner
    melds = meld_points(rules, rnd.melds)
    factor = 2 if rnd.kantrame else 1
    penalties = [
        hand_penalty(rnd.hands[s], rules.ace_in_hand) * (1 if s == winner else factor) for s in range(n)
    ]
    deltas = [melds[s] - penalties[s] + (WIN_BONUS if s == winner else 0) for s in range(n)]
    return RoundValue(winner, rnd.kantrame, tuple(melds), tuple(penalties), tuple(deltas))
