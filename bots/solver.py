"""An exact open-card solver of Thousand's card play (T-17 to T-21): the declarer's points under best play.

Given every hand (one sampled world: :mod:`bots.worlds`), the declarer plays to take as many deal points as
it can and the defenders, as one side, to leave it as few as they can: the declarer's final deal points are
then the minimax value of the position, which :func:`solve` computes by alpha-beta search with a
transposition table at trick boundaries (the future of a position depends on the hands, the leader and the
trump alone, packed in one int, so the table stores the points still to come, as bounds, and the best lead
found, tried first when the position comes again). The trick under way is carried in plain arguments (its
lead suit, winning card and points) rather than a list, which with the packed keys makes a solve about four
times faster than a list-based search (bench/solver.py): about 0.5 ms with four cards in hand, 3 ms with
five and 15 ms with six. Marriages are declared when a king
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
_ORDERS: dict[int, tuple[int, ...]] = {}


def _high_first(mask: int) -> tuple[int, ...]:
    """The cards of ``mask``, highest index first (stronger cards first: better cut-offs), memoized."""
    order = _ORDERS.get(mask)
    if order is None:
        if len(_ORDERS) > 1 << 16:
            _ORDERS.clear()
        bits = []
        m = mask
        while m:
            low = m & -m
            bits.append(low.bit_length() - 1)
            m ^= low
        bits.reverse()
        order = _ORDERS[mask] = tuple(bits)
    return order


class Position:
    """A card-play position as plain masks: what the solver searches."""

    __slots__ = (
        "deadline",
        "declarer",
        "following",
        "hands",
        "last_bonus",
        "marriage_below",
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
        self.tricks_left = deal.trick_count - deal.tricks_played
        self.marriage_below = deal.trick_count + (
            deal.rules.marriage_on_first_trick or deal.tricks_played > 0
        )
        """Marriages may be declared while fewer tricks than this are left (T-20: not in the first trick
        unless the rules allow it)."""
        self.table: dict[int, tuple[int, int, int]] = {}
        """Trick-boundary positions (hands, leader, trump packed in one int) to (lower bound, upper bound,
        best card) of the declarer's points still to come."""
        bonus = 0
        if deal.rules.players == 2:
            bonus = points_of(deal.talons[1 - (deal.talon_index or 0)])
        self.last_bonus = bonus
        """The other talon's points, taken with the last trick (two players, T-21)."""


def solve(  # noqa: PLR0917 - the recursion's hot signature
    pos: Position, seat: int, trick: list[tuple[int, int]], trump: int, alpha: int, beta: int
) -> int:
    """The declarer's points still to come from this position (``seat`` to play to ``trick``) under best
    play of both sides, searched within the window (``alpha``, ``beta``)."""
    if not trick:
        return _node(pos, seat, 0, -1, -1, -1, 0, trump, alpha, beta)
    lead = trick[0][1] // 6
    best_seat, best = trick[0]
    points = 0
    for s, i in trick:
        points += _POINTS[i]
        if (i // 6 == best // 6 and i > best) or (i // 6 == trump and best // 6 != trump):
            best_seat, best = s, i
    return _node(pos, seat, len(trick), lead, best, best_seat, points, trump, alpha, beta)


def _node(  # noqa: PLR0917 - the recursion's hot signature, kept flat for speed
    pos: Position,
    seat: int,
    n: int,
    lead: int,
    best: int,
    best_seat: int,
    points: int,
    trump: int,
    alpha: int,
    beta: int,
) -> int:
    """The declarer's points still to come, ``seat`` to play the ``n``-th card of a trick led in suit
    ``lead`` whose winning card so far is ``best`` (of ``best_seat``) and holding ``points``."""
    pos.nodes += 1
    if not pos.nodes & 1023 and time.perf_counter() > pos.deadline:
        raise SolverTimeoutError
    hands = pos.hands
    hand = hands[seat]
    maximizing = seat == pos.declarer
    key = 0
    first = -1
    marriages = 0
    if n == 0:
        if pos.tricks_left == 0:
            return 0
        key = seat | (trump + 1) << 2
        shift = 5
        for h in hands:
            key |= h << shift
            shift += 24
        entry = pos.table.get(key)
        if entry is not None:
            low, high, first = entry
            if low >= beta:
                return low
            if high <= alpha:
                return high
            if low == high:
                return low
            alpha = max(alpha, low)
            beta = min(beta, high)
        options = hand
        if pos.tricks_left < pos.marriage_below:
            queens = hand & hand >> 1 & QUEENS_MASK
            marriages = queens | queens << 1
    else:
        follow = hand & SUIT_MASKS[lead]
        if follow:
            options = follow
            if pos.must_beat and best // 6 == lead:
                higher = follow & _ABOVE[best]
                if higher:
                    options = higher
        elif trump >= 0 and hand & SUIT_MASKS[trump]:
            options = hand & SUIT_MASKS[trump]
            if pos.must_beat and best // 6 == trump:
                higher = options & _ABOVE[best]
                if higher:
                    options = higher
        else:
            options = hand
    order = _high_first(options)
    if first >= 0 and options >> first & 1:
        order = (first, *(c for c in order if c != first))
    value = -_INF if maximizing else _INF
    best_move = -1
    a, b = alpha, beta
    declarer = pos.declarer
    nxt = pos.following[seat]
    last = n + 1 == pos.n_active
    for card in order:
        hands[seat] = hand ^ (1 << card)
        if n == 0:
            new_trump = trump
            gain = 0
            if marriages >> card & 1:
                new_trump = card // 6
                if maximizing:
                    gain = MARRIAGE_POINTS[new_trump]
            if last:  # a lone active seat (never in Thousand, kept for safety)
                v = gain
            else:
                v = gain + _node(
                    pos, nxt, 1, card // 6, card, seat, _POINTS[card], new_trump, a - gain, b - gain
                )
        else:
            suit = card // 6
            top = best // 6
            if (suit == top and card > best) or (suit == trump and top != trump):
                win_card, win_seat = card, seat
            else:
                win_card, win_seat = best, best_seat
            pts = points + _POINTS[card]
            if not last:
                v = _node(pos, nxt, n + 1, lead, win_card, win_seat, pts, trump, a, b)
            else:
                pos.tricks_left -= 1
                if pos.tricks_left == 0:
                    pts += pos.last_bonus
                take = pts if win_seat == declarer else 0
                v = take + _node(pos, win_seat, 0, -1, -1, -1, 0, trump, a - take, b - take)
                pos.tricks_left += 1
        if maximizing:
            if v > value:
                value, best_move = v, card
                a = max(a, v)
        elif v < value:
            value, best_move = v, card
            b = min(b, v)
        if a >= b:
            break
    hands[seat] = hand
    if n == 0:
        entry = pos.table.get(key)
        low, high = (-_INF, _INF) if entry is None else (entry[0], entry[1])
        if value <= alpha:
            high = min(high, value)
        elif value >= beta:
            low = max(low, value)
        else:
            low = high = value
        pos.table[key] = (low, high, best_move)
    return value


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
    plays = [a for a in deal.legal_actions() if isinstance(a, PlayCard)]
    declaring = {a.card.index for a in plays if a.marriage}
    # The strongest first, as inside the search: its bounds in the table then cut the others' searches.
    plays.sort(key=lambda a: (-a.card.index, not a.marriage))
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
        if len(trick) < pos.n_active:
            value = gain + solve(pos, pos.following[seat], trick, new_trump, -_INF, _INF)
        else:
            winner = trick[trick_winner(trick, new_trump if new_trump >= 0 else None)][0]
            points = sum(_POINTS[i] for _, i in trick)
            pos.tricks_left -= 1
            if pos.tricks_left == 0:
                points += pos.last_bonus
            take = points if winner == deal.declarer else 0
            value = gain + take + solve(pos, winner, [], new_trump, -_INF, _INF)
            pos.tricks_left += 1
        trick.pop()
        pos.hands[seat] ^= 1 << index
        out[(index, marriage)] = so_far + value
    return out
