"""A search's utility that reads the score sheet (issue #31): what a deal's scores are worth to each seat
once the sheet has had its say (T-26 to T-29), not only the deal's own points.

``ismcts`` values a finished deal by :func:`engine.scoring.value_deal` alone (a seat's points minus
``relative`` times the others' mean). That is blind to what the measurements in clients/bots/README.md
found the points to be in: on the barrel (T-27) a made contract that reaches 1000 wins the game and any
other made contract writes nothing, a defender on the barrel writes nothing, a failed contract there falls
off; a score landing exactly on 555 is reset to 0 (T-29); without a barrel the first to 1000 wins (T-26).
Here a deal's scores are first written on a copy of the sheet the search saw (:class:`Sheet`, a frozen
value), each seat's *change* of score is what counts, and a deal that ends the game is worth
:data:`WIN_VALUE` more to the winner and that much less to every other seat (losing the game).

Left out on purpose (small or rare next to the above, and they would need the whole sheet's history): the
bolts' penalties (T-25), the three deals' timeout on the barrel, a newcomer bumping a seat off the barrel
and the third fall's reset. A seat climbing onto the barrel is credited up to the barrel's score only.

The functions are pure: a search is handed one as ``utility`` (see :class:`bots.ismcts._Search`); ``expert``
passes :func:`sheet_utility`'s for the sheet of its view, ``ismcts`` keeps the deal's points.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

from engine import View
from engine.deal import Deal
from engine.events import DealKind, Outcome
from engine.rules import GOAL, SAMOSVAL, Rules
from engine.scoring import value_deal

WIN_VALUE = 400.0
"""What winning the game (or stopping an opponent's win) is worth in deal points to a seat's utility."""

Utility = Callable[[Deal], list[float]]
"""Each seat's utility of a finished deal (a redeal: all 0), as a search backs it up."""


@dataclass(frozen=True, slots=True)
class Sheet:
    """What the score sheet says before the deal: each seat's score and whether it is on the barrel, and
    the rules that read it (``barrel_at`` 0: no barrel, T-27; ``samosval``, T-29)."""

    scores: tuple[int, ...]
    on_barrel: tuple[bool, ...]
    barrel_at: int
    samosval: bool
    win_value: float = WIN_VALUE

    @classmethod
    def of(cls, rules: Rules, view: View) -> Sheet:
        """The sheet a seat's view shows."""
        lines = sorted(view.scores, key=lambda line: line.seat)
        return cls(
            tuple(line.score for line in lines),
            tuple(line.on_barrel for line in lines),
            rules.barrel_at if rules.barrel else 0,
            rules.samosval,
        )


@dataclass(frozen=True, slots=True)
class DealScores:
    """A finished deal's own scores (:func:`engine.scoring.value_deal`) and what the sheet needs of it."""

    base: tuple[int, ...]
    active: tuple[int, ...]
    declarer: int
    contract: int
    made: bool
    obligatory: bool = False


def written(sheet: Sheet, scores: DealScores) -> tuple[list[int], int | None]:
    """(each seat's change of score once the deal is written on the sheet, the seat that wins the game or
    None): T-26, T-27, T-28, T-29 as :meth:`engine.game.Game._settle` writes them (less what the module
    docstring leaves out)."""
    n = len(sheet.scores)
    change = [0] * n
    winner: int | None = None
    goal: int | None = None
    best = -1
    for s in range(n):
        score = sheet.scores[s]
        if sheet.on_barrel[s]:
            if s != scores.declarer:
                continue  # T-27: nothing as a defender (or sitter) on the barrel
            if scores.made:
                if scores.obligatory or score + scores.contract >= GOAL:
                    change[s], winner = scores.base[s], s  # T-27, T-28: the game
            elif scores.obligatory:
                change[s] = -score  # T-28: failing the obligatory game falls to 0
            else:
                change[s] = scores.base[s]  # T-27: a failed contract costs it (a fall)
            continue
        new = score + scores.base[s]
        if sheet.barrel_at:
            new = min(new, sheet.barrel_at)  # T-27: reaching it sets the score to it
        elif new >= GOAL and (new > best or (new == best and s == scores.declarer)):
            best, goal = new, s  # T-26: without a barrel the highest over 1000 (the declarer on a tie)
        if sheet.samosval and new == SAMOSVAL:
            new = 0  # T-29
        change[s] = new - score
    return change, winner if winner is not None else goal


def sheet_utility(sheet: Sheet, scores: DealScores, relative: float) -> list[float]:
    """Each seat's utility of a deal's scores read on ``sheet``: its change of score minus ``relative``
    times the mean change of the other seats that play the deal; a game won is worth ``win_value`` to the
    winner and minus that to every other seat. On a fresh sheet far from 555 and 1000 this is exactly
    :func:`bots.ismcts.utilities`."""
    change, winner = written(sheet, scores)
    n = len(sheet.scores)
    out = [0.0] * n
    active = scores.active
    total = sum(change[s] for s in active)
    k = len(active) - 1
    for s in active:
        out[s] = change[s] - relative * (total - change[s]) / k
    if winner is not None:
        for s in range(n):
            out[s] += sheet.win_value if s == winner else -sheet.win_value
    return out


def deal_scores(deal: Deal) -> DealScores | None:
    """The scores of a finished deal (None for a redeal, which nobody scores)."""
    if deal.outcome is None:
        return None
    value = value_deal(deal.rules, deal)
    return DealScores(
        value.base,
        tuple(deal.active),
        value.declarer,
        value.contract,
        value.outcome is Outcome.MADE,
        deal.kind is DealKind.OBLIGATORY,
    )


def sheet_utility_of(sheet: Sheet, relative: float) -> Utility:
    """The search's ``utility`` for ``sheet``: a finished deal's :func:`sheet_utility`."""

    def utility(deal: Deal) -> list[float]:
        scores = deal_scores(deal)
        if scores is None:
            return [0.0] * deal.rules.players
        return sheet_utility(sheet, scores, relative)

    return utility


def declarer_stake(
    sheet: Sheet, declarer: int, contract: int, active: Sequence[int], obligatory: bool = False
) -> tuple[float, float]:
    """(the declarer's utility if the contract is made, if it fails), the defenders' scores left at 0: what
    the exact endgame (:mod:`bots.solver`, declarer against defenders on the declarer's points) plays for.
    On a fresh sheet (contract, -contract)."""
    n = len(sheet.scores)
    out: list[float] = []
    for made in (True, False):
        base = [0] * n
        base[declarer] = contract if made else (0 if obligatory else -contract)
        scores = DealScores(tuple(base), tuple(active), declarer, contract, made, obligatory)
        out.append(sheet_utility(sheet, scores, 0.0)[declarer])
    return out[0], out[1]
