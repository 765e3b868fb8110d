"""An exact open-card solver of Thousand's card play (T-17 to T-21): the declarer's points under best play.

Given every hand (one sampled world: :mod:`bots.worlds`), the declarer plays to take as many deal points as
it can and the defenders, as one side, to leave it as few as they can: the declarer's final deal points are
then the minimax value of the position, which :func:`solve` computes by alpha-beta search with a
transposition table at trick boundaries (the future of a position depends on the hands, the leader and the
trump alone, so the table stores the points still to come, as bounds). Marriages are declared when a king
or queen of one is led (T-20: the biggest gain, and what every strategy here does); a declared marriage's
points count for the declarer when it declares, and the trump it names counts for everybody. With two
players the winner of the last trick takes the other talon (T-21).

It is exact for that model of the game: both sides see all cards. Search over sampled worlds (perfect
information Monte Carlo) turns it into decisions: :func:`move_values` gives the value of each legal card
in one world.
"""

from __future__ import annotations

import math
import time
from typing import Final

from engine.actions import PlayCard
from engine.cards import MARRIAGE_POINTS, QUEENS_MASK, SUIT_MASKS, points_of
from engine.deal import Deal, trick_winner

_ABOVE: Final = tuple(SUIT_MASKS[i // 6] & ~((1 << (i + 1)) - 1) for i in range(24))
_POINTS: Final = tuple(points_of(1 << i) for i in range(24))
_INF: Final = 10_000


class Position:
    """A card-play position as plain masks: what the solver searches."""

    __slots__ = (
        "deadline",
        "declarer",
        "following",
        "hands",
        "last_bonus",
        "marriage_ok",
        "must_beat",
        "n_active",
        "nodes",
        "table",
        "tricks_left",
    )

    def __init__(self, deal: Deal) -> None:
        self.hands = list(deal.hands)
        self.declarer = deal.declarer
        self.following = deal._following
        self.n_active = len(deal.active)
        self.deadline = math.inf
        """``perf_counter()`` instant after which the search gives up (:class:`SolverTimeoutError`)."""
        self.nodes = 0
        self.must_beat = deal.rules.must_beat
        self.marriage_ok = deal.tricks_played > 0 or deal.rules.marriage_on_first_trick
        self.tricks_left = deal.trick_count - deal.tricks_played
        self.table: dict[tuple[int, ...], tuple[int, int]] = {}
        bonus = 0
        if deal.rules.players == 2:
            bonus = points_of(deal.talons[1 - (deal.talon_index or 0)])
        self.last_bonus = bonus
        """The other talon's points, taken with the last trick (two players, T-21)."""

    def options(self, seat: int, trick: list[tuple[int, int]], trump: int) -> int:
        """The cards ``seat`` may play to ``trick`` (T-18): as the engine's legal list says."""
        hand = self.hands[seat]
        if not trick:
            return hand
        lead = trick[0][1] // 6
        follow = hand & SUIT_MASKS[lead]
        must_beat = self.must_beat
        if follow:
            if must_beat:
                trumped = trump >= 0 and trump != lead and any(i // 6 == trump for _, i in trick)
                if not trumped:
                    best = max(i for _, i in trick if i // 6 == lead)
                    higher = follow & _ABOVE[best]
                    if higher:
                        return higher
            return follow
        if trump >= 0:
            trumps = hand & SUIT_MASKS[trump]
            if trumps:
                if must_beat:
                    played = [i for _, i in trick if i // 6 == trump]
                    if played:
                        higher = trumps & _ABOVE[max(played)]
                        if higher:
                            return higher
                return trumps
        return hand


def solve(  # noqa: PLR0917 - the recursion's hot signature
    pos: Position, seat: int, trick: list[tuple[int, int]], trump: int, alpha: int, beta: int
) -> int:
    """The declarer's points still to come from this position (``seat`` to play to ``trick``) under best
    play of both sides, searched within the window (``alpha``, ``beta``)."""
    pos.nodes += 1
    if not pos.nodes & 511 and time.perf_counter() > pos.deadline:
        raise SolverTimeoutError
    key: tuple[int, ...] | None = None
    if not trick:
        if pos.tricks_left == 0:
            return 0
        key = (*pos.hands, seat, trump)
        bounds = pos.table.get(key)
        if bounds is not None:
            low, high = bounds
            if low >= beta:
                return low
            if high <= alpha:
                return high
            if low == high:
                return low
            alpha, beta = max(alpha, low), min(beta, high)
    maximizing = seat == pos.declarer
    options = pos.options(seat, trick, trump)
    lead_marriages = 0
    if not trick and pos.marriage_ok:
        hand = pos.hands[seat]
        queens = hand & hand >> 1 & QUEENS_MASK
        lead_marriages = queens | queens << 1
    best = -_INF if maximizing else _INF
    a, b = alpha, beta
    bit_list = []
    m = options
    while m:
        low = m & -m
        bit_list.append(low.bit_length() - 1)
        m ^= low
    bit_list.reverse()  # stronger cards first: better cut-offs
    for card in bit_list:
        gain = 0
        new_trump = trump
        if lead_marriages >> card & 1:
            new_trump = card // 6
            if maximizing:
                gain = MARRIAGE_POINTS[new_trump]
        bit = 1 << card
        pos.hands[seat] ^= bit
        trick.append((seat, card))
        if len(trick) < pos.n_active:
            value = gain + solve(pos, pos.following[seat], trick, new_trump, a - gain, b - gain)
        else:
            winner = trick[trick_winner(trick, new_trump if new_trump >= 0 else None)][0]
            points = _POINTS[trick[0][1]] + sum(_POINTS[i] for _, i in trick[1:])
            played = trick[:]
            trick.clear()
            pos.tricks_left -= 1
            if pos.tricks_left == 0:
                points += pos.last_bonus
            take = points if winner == pos.declarer else 0
            value = gain + take + solve(pos, winner, trick, new_trump, a - gain - take, b - gain - take)
            pos.tricks_left += 1
            trick.extend(played)
        trick.pop()
        pos.hands[seat] ^= bit
        if maximizing:
            best = max(best, value)
            a = max(a, best)
        else:
            best = min(best, value)
            b = min(b, best)
        if a >= b:
            break
    if key is not None:
        low, high = pos.table.get(key, (-_INF, _INF))
        if best <= alpha:
            high = min(high, best)
        elif best >= beta:
            low = max(low, best)
        else:
            low = high = best
        pos.table[key] = (low, high)
    return best


class SolverTimeoutError(Exception):
    """The solve ran past its deadline."""


def move_values(deal: Deal, deadline: float = math.inf) -> dict[tuple[int, bool], int]:
    """In one world (a live deal in the play phase), each legal card of the seat to act, with whether it
    declares a marriage, to the declarer's final deal points under best play after it.

    :raises SolverTimeoutError: once ``deadline`` (``perf_counter()``) has passed.
    """
    seat = deal.to_act
    assert seat is not None and deal.declarer is not None
    pos = Position(deal)
    pos.deadline = deadline
    trump = -1 if deal.trump is None else int(deal.trump)
    trick = list(deal.trick)
    so_far = deal.deal_points(deal.declarer)
    out: dict[tuple[int, bool], int] = {}
    n_active = len(deal.active)
    plays = [a for a in deal.legal_actions() if isinstance(a, PlayCard)]
    declaring = {a.card.index for a in plays if a.marriage}
    for action in plays:
        index = action.card.index
        marriage = action.marriage
        if index in declaring and not marriage:
            continue  # a K or Q of a marriage is led declaring it, as the solver's own play does
        gain = 0
        new_trump = trump
        if marriage:
            new_trump = index // 6
            if seat == deal.declarer:
                gain = MARRIAGE_POINTS[new_trump]
        pos.hands[seat] ^= 1 << index
        trick.append((seat, index))
        if len(trick) < n_active:
            value = gain + solve(pos, pos.following[seat], trick, new_trump, -_INF, _INF)
        else:
            winner = trick[trick_winner(trick, new_trump if new_trump >= 0 else None)][0]
            points = sum(_POINTS[i] for _, i in trick)
            played = trick[:]
            trick.clear()
            pos.tricks_left -= 1
            if pos.tricks_left == 0:
                points += pos.last_bonus
            take = points if winner == deal.declarer else 0
            value = gain + take + solve(pos, winner, trick, new_trump, -_INF, _INF)
            pos.tricks_left += 1
            trick.extend(played)
        trick.pop()
        pos.hands[seat] ^= 1 << index
        out[(index, marriage)] = so_far + value
    return out
