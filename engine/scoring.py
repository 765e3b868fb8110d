"""What a finished deal is worth before the score sheet has its say (T-16, T-22 to T-25, T-30, T-31, T-6).

These are the deal's own values: the declarer's plus or minus the contract, the defenders' rounded points,
the rospis halves, the sitter's talon, the bolts earned. The barrel, bolt penalties, 555 and the end of the
game depend on the whole sheet and are applied by :mod:`engine.game` on top of this.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final

from engine.cards import ACES_MASK, marriage_points_in, points_of
from engine.deal import Deal
from engine.events import DealKind, Outcome
from engine.rules import Rules, SitterScores

_MADE: Final = Outcome.MADE
_CONCEDED: Final = Outcome.CONCEDED


def round_to_5(points: int) -> int:
    """T-24: to the nearest multiple of 5; remainders 1-2 round down, 3-4 up."""
    return (points + 2) // 5 * 5


def rospis_share(contract: int) -> int:
    """T-16: half of the contract rounded up to a multiple of 5."""
    return -(-contract // 10) * 5


@dataclass(frozen=True, slots=True)
class DealValue:
    declarer: int
    contract: int
    outcome: Outcome
    doubled: bool
    deal_points: tuple[int, ...]
    base: tuple[int, ...]
    """Points each seat's line gets from the deal itself (T-16, T-23, T-24, T-6)."""
    bolts: tuple[int, ...]
    """Bolts earned per seat: 1, or 2 in a doubled deal (T-25, T-30)."""


def value_deal(rules: Rules, deal: Deal) -> DealValue:
    """The value of a played or conceded deal (not of a redeal, which nobody scores)."""
    declarer, contract, outcome = deal.declarer, deal.contract, deal.outcome
    assert declarer is not None and contract is not None and outcome is not None
    n = rules.players
    factor = 2 if deal.doubled else 1
    won = deal.won
    marriage_points = deal.marriage_points
    points = tuple([points_of(won[s]) + marriage_points[s] for s in range(n)])  # deal.deal_points(s)
    base = [0] * n
    bolts = [0] * n
    made = outcome is _MADE
    conceded = outcome is _CONCEDED
    base[declarer] = contract * factor if made else -contract * factor
    for seat in deal.active:
        if seat == declarer:
            continue
        if conceded:
            base[seat] = rospis_share(contract) * factor
        else:
            raw = points_of(won[seat]) * factor + marriage_points[seat]  # T-30: marriages are never doubled
            base[seat] = round_to_5(raw) if rules.round_defenders else raw
    if not conceded:
        tricks_won = deal.tricks_won
        for seat in deal.active:
            if tricks_won[seat] == 0:
                bolts[seat] = factor
    sitter = deal.sitter
    if sitter is not None and rules.sitter_scores is SitterScores.TALON_ACES_AND_MARRIAGE:
        talon = deal.dealt_talons[0]
        # T-30 (and T-31) double every score of the deal but marriages: the sitter's aces too.
        base[sitter] = 50 * (talon & ACES_MASK).bit_count() * factor + marriage_points_in(talon)
    if deal.kind is DealKind.OBLIGATORY:
        base[declarer] = contract if made else 0
    return DealValue(declarer, contract, outcome, deal.doubled, points, tuple(base), tuple(bolts))
