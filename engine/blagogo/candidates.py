"""Candidate meld actions for bots (B-22): a useful, **non-exhaustive** list of legal :class:`LayMelds`.

Laying melds has too many combinations to list (every subset of a hand, every copy of a card, every meaning
of every joker), so :meth:`Round.legal_actions` leaves it out and :meth:`Round.validate` checks any one
exactly. This module proposes some that are always legal, for random and heuristic players:

- every natural set (all the suits held of a rank, one copy each) and every maximal natural run;
- with a joker in hand, a set from each pair of suits of a rank plus the joker, a run from two cards of a
  suit in a row plus the joker after them, and a run of two stretches of a suit one rank apart (a card or
  more each) joined by the joker in the gap (``7♥ ★ 9♥ 10♥``);
- for a player who has not opened, openings: combinations of disjoint melds from that list, greedily from the
  most valuable, worth at least ``opening_min_points`` together; for a player who has opened, each meld alone.

Every proposal leaves at least one card to discard (B-13); under the variants that narrow what a meld or an
opening may be (``max_jokers_per_meld``, ``opening_one_meld``) they are filtered through the exact
validator. Under ``bridge_take_must_meld``, while a card taken from the bridge waits to be melded, the
proposals use that very card where its face is wanted, add every 3-card meld holding it, and are filtered
through the exact validator: with the listed additions and swaps (a swap that frees a joker first, B-9 over
the turn) they always include a way to place it. Single-card additions and joker swaps are simple actions,
listed by ``legal_actions()``.
"""

from __future__ import annotations

from engine.blagogo.actions import STANDS_RUN, STANDS_SET, Action, LayMelds, MeldSpec, Stands
from engine.blagogo.cards import (
    CARD_FACE,
    CARD_RANK,
    CARD_SUIT,
    CARDS,
    FIRST_JOKER,
    RANKS,
    RUN_VALUE,
    SET_VALUE,
    indices_of,
)
from engine.blagogo.round import Phase, Round

_Basic = tuple[tuple[int, ...], tuple[Stands, ...], int]
"""(card indices, joker meanings, points)"""


def _basic_melds(hand: int, prefer: int | None = None) -> list[_Basic]:
    by_face: list[list[int]] = [[] for _ in range(52)]
    jokers: list[int] = []
    for i in indices_of(hand):
        if i >= FIRST_JOKER:
            jokers.append(i)
        else:
            by_face[CARD_FACE[i]].append(i)
    if prefer is not None:  # use this very card where its face is wanted
        if prefer >= FIRST_JOKER:
            jokers.remove(prefer)
            jokers.insert(0, prefer)
        else:
            by_face[CARD_FACE[prefer]].sort(key=lambda i: i != prefer)
    melds: list[_Basic] = []
    for rank in range(RANKS):
        held = [by_face[s * RANKS + rank][0] for s in range(4) if by_face[s * RANKS + rank]]
        if len(held) >= 3:
            melds.append((tuple(held), (), SET_VALUE[rank] * len(held)))
        elif len(held) == 2 and jokers:
            melds.append(((*held, jokers[0]), (STANDS_SET[rank],), SET_VALUE[rank] * 3))
    for suit in range(4):
        base = suit * RANKS
        present = [bool(by_face[base + r]) for r in range(RANKS)]
        if all(present):
            cards = tuple(by_face[base + r][0] for r in range(RANKS))
            melds.append((cards, (), sum(RUN_VALUE)))
            continue
        for start in range(RANKS):
            if not present[start] or present[(start - 1) % RANKS]:
                continue
            length = 1
            while present[(start + length) % RANKS]:
                length += 1
            ranks = [(start + k) % RANKS for k in range(length)]
            if length >= 3:
                cards = tuple(by_face[base + r][0] for r in ranks)
                melds.append((cards, (), sum(RUN_VALUE[r] for r in ranks)))
            if not jokers:
                continue
            after = (start + length) % RANKS
            if length == 2:  # two in a row and the joker after them
                cards = (*(by_face[base + r][0] for r in ranks), jokers[0])
                points = sum(RUN_VALUE[r] for r in ranks) + RUN_VALUE[after]
                melds.append((cards, (STANDS_RUN[base + after],), points))
            following = []  # the run after a gap of one rank: the joker in the gap joins both (7 ★ 9 10)
            rank = (after + 1) % RANKS
            while present[rank] and rank != start:
                following.append(rank)
                rank = (rank + 1) % RANKS
            if following:
                cards = (
                    *(by_face[base + r][0] for r in ranks),
                    jokers[0],
                    *(by_face[base + r][0] for r in following),
                )
                points = sum(RUN_VALUE[r] for r in (*ranks, after, *following))
                melds.append((cards, (STANDS_RUN[base + after],), points))
    return melds


def _three_card_melds(card: int, hand: int) -> list[_Basic]:
    """Every 3-card meld holding ``card`` with two other cards of the hand, each reading of its jokers."""
    others = [i for i in indices_of(hand) if i != card]
    melds: list[_Basic] = []
    for a in range(len(others)):
        for b in range(a + 1, len(others)):
            trio = (card, others[a], others[b])
            naturals = [i for i in trio if i < FIRST_JOKER]
            jokers = len(trio) - len(naturals)
            if not naturals:
                continue
            ranks = {CARD_RANK[i] for i in naturals}
            if len(ranks) == 1:
                rank = next(iter(ranks))
                melds.append((trio, (STANDS_SET[rank],) * jokers, 0))
            suits = {CARD_SUIT[i] for i in naturals}
            if len(suits) != 1 or len(ranks) != len(naturals):
                continue
            suit = next(iter(suits))
            for low in range(RANKS):
                window = [(low + k) % RANKS for k in range(3)]
                if not ranks <= set(window):
                    continue
                missing = [r for r in window if r not in ranks]
                melds.append((trio, tuple(STANDS_RUN[suit * RANKS + r] for r in missing), 0))
    return melds


def _spec(basic: _Basic) -> MeldSpec:
    return MeldSpec(tuple(CARDS[i] for i in basic[0]), basic[1])


def candidate_melds(rnd: Round) -> tuple[Action, ...]:
    """Some legal :class:`LayMelds` actions for the seat to act (empty outside the meld phase)."""
    seat = rnd.to_act
    if seat is None or rnd.phase is not Phase.PLAY:
        return ()
    hand = rnd.hands[seat]
    size = hand.bit_count()
    if size < 4:
        return ()
    pending = rnd.must_meld
    basics = _basic_melds(hand, pending)
    if pending is not None:
        basics += _three_card_melds(pending, hand)
    if not basics:
        return ()
    found: dict[LayMelds, None] = {}
    if rnd.opened[seat]:
        for b in basics:
            if len(b[0]) < size:
                found[LayMelds((_spec(b),))] = None
    else:
        minimum = rnd.rules.opening_min_points
        ranked = sorted(basics, key=lambda b: -b[2])
        for first in range(len(ranked)):
            chosen = [ranked[first]]
            used = set(ranked[first][0])
            total = ranked[first][2]
            for other in ranked:
                if total >= minimum:
                    break
                if used.isdisjoint(other[0]) and len(used) + len(other[0]) < size:
                    chosen.append(other)
                    used.update(other[0])
                    total += other[2]
            if total >= minimum and len(used) < size:
                found[LayMelds(tuple(_spec(b) for b in chosen))] = None
    actions: tuple[Action, ...] = tuple(found)
    rules = rnd.rules
    if rnd.must_meld is not None or rules.max_jokers_per_meld or rules.opening_one_meld:
        actions = tuple(a for a in actions if rnd.is_legal(seat, a))
    return actions
