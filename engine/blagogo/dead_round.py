"""B-10, the project's reading: a round that nobody can go out of any more ends with no winner.

Going out is discarding one's last card (B-18), and a turn never shrinks a hand without a meld action: the
draw adds a card and the discard removes one, a take adds at least one. So whoever goes out puts a card on
the table in that very turn. Two checks follow from that, both made where B-10 already looks (a draw is due
and the deck is empty: at most once per pass through the deck), both ending the round like B-10's empty
bridge (event ``DeckExhausted`` with reason ``NO_ONE_CAN_GO_OUT``, scored without the 30):

1. **Dead** (:func:`is_dead`): no card in circulation (the hands, the deck and the bridge) can be put on the
   table by anyone, in any hand. The cards in circulation only move between hands, deck and bridge while
   nobody places one, and the table changes only when somebody does; so then no card ever can again and
   nobody can ever go out. The check is generous: it pools every card in circulation as if one opened
   player held them all with no limit of hand size, and asks whether any card could join a meld on the
   table (an addition at a run's end or into a set, or a joker swap) or any three could form a new meld (a
   longer meld always holds a legal three-card one). Only the opening minimum is respected: if nobody has
   opened and the twelve best cards in circulation are worth less, no opening can ever be laid.

2. **Stalled** (:func:`is_stalled`): a whole pass through the deck went by without a card placed, at least a
   full circle of turns has passed since the last one, and nobody can go out on their next turn by their
   own means: with their hand, the table as it is and one card drawn from the bridge being turned over into
   the deck, whichever it is. Their own means: the bridge they could take from is turned over at this very
   moment, so on their next turn it holds only what the others chose to discard, and a card in another
   player's hand reaches them only if that player gives it up. Judged by search (every card they could
   draw, every way to put all their cards but one on the table, the opening minimum aside), after a quick
   answer: two cards of the hand that could not be placed even with any one more card make it impossible.

Why the second check, when the first alone never ends a round that could still be won? Because players who
could cooperate but do not loop for ever: with five players, the deck and the bridge holding two cards,
seat 2 holding K♣ A♣ while 2♣ and 3♣ go round, seat 2 could go out if another player discarded 2♣ and one
more card for it to take, and the heuristic and random bots never do (issue 33's match). No rule can make
every round finite without ending some round that a sequence of moves could still win (players who all
just draw and discard can repeat a winnable position for ever); this one ends a round only when nobody
could go out on their next turn without another player's help, after a pass of the deck and a circle in
which nobody placed anything. Seeded games of 2 to 8 bots showed the other kind too: a player who has not
opened could go out with a 7♠ that another player holds and never discards.
"""

from __future__ import annotations

import contextlib
from collections.abc import Sequence
from itertools import combinations
from typing import Final

from engine.blagogo.actions import STANDS_RUN, STANDS_SET, End, Stands
from engine.blagogo.cards import (
    CARD_FACE,
    CARD_RANK,
    CARD_SUIT,
    CARDS,
    FIRST_JOKER,
    JOKER_COUNT,
    RANKS,
    RUN_VALUE,
    SET_VALUE,
    indices_of,
)
from engine.blagogo.melds import (
    MAX_SET,
    MeldKind,
    TableMeld,
    extend_meld,
    form_meld,
    natural_faces,
    swap_joker,
)
from engine.blagogo.round_state import RoundState
from engine.errors import IllegalActionError, InvalidActionError

__all__ = ["can_go_out_alone", "circulating", "is_dead", "is_stalled"]

SUITS: Final = 4
OPENING_CARDS: Final = 12
"""The most cards an opening lays: a player who has not opened holds 13 in the play phase and keeps one."""
BEST_CARD: Final = 25
"""A joker's best value in a meld (standing for an ace in a set)."""
ANY_FACE: Final = -1
"""In ``RoundState.go_out_draws``: no drawn card at all could help (the quick answer)."""
SEARCH_BUDGET: Final = 400
"""Steps the search may take for one drawn card before it answers a generous yes."""
QUIET_TURNS: Final = 3 * 108
"""3. **Quiet** (:func:`is_quiet`): turns in a row without a card placed after which the round ends with no
winner whatever the deck holds (issue 31). The two checks above are made only when the deck runs out, and
the stalled one is generous (the opening minimum aside, a search that gives up says yes); so players who
could go out but do not (an unopened hand short of the minimum, a bot that never finds the meld), or who
take the last discard back from the bridge turn after turn (the deck never runs out without
``bridge_take_must_meld``), could loop for ever. Every card placed stays on the table but a joker swapped
out, whose place a natural card takes for good, so a round holds at most about 216 placements; with at most
this many quiet turns between two of them, every round ends. Three passes of a full deck without a card
placed: no round that anyone means to win is that quiet."""


def circulating(state: RoundState) -> int:
    """The mask of the round's cards off the table: the hands, the deck and the bridge."""
    mask = 0
    for hand in state.hands:
        mask |= hand
    for index in (*state.deck, *state.bridge):
        mask |= 1 << index
    return mask


# ---------------------------------------------------------------------------------------------- dead


def is_dead(state: RoundState) -> bool:
    """True when no card in circulation can ever be put on the table, so nobody can ever go out."""
    mask = circulating(state)
    cap = state.rules.max_jokers_per_meld or JOKER_COUNT
    jokers = (mask >> FIRST_JOKER).bit_count()
    faces = natural_faces(mask)
    opened = [seat for seat, done in enumerate(state.opened) if done]
    if (opened or _opening_reachable(faces, jokers, state.rules.opening_min_points)) and _new_meld(
        faces, min(jokers, cap)
    ):
        return False
    return not any(_fits(meld, faces, jokers, cap) for meld in _playable_by_any(state, opened))


def _playable_by_any(state: RoundState, seats: Sequence[int]) -> list[TableMeld]:
    """The melds some of ``seats`` may add to (B-12, ``play_on_own_melds``)."""
    ids: set[int] = set()
    for seat in seats:
        ids.update(m.id for m in state.playable(seat, state.melds))
    return [m for m in state.melds if m.id in ids]


def _new_meld(faces: Sequence[int], jokers: int) -> bool:
    """Could three of these cards (``jokers`` of them usable as jokers) form a meld (B-14)?"""
    for rank in range(RANKS):
        suits = sum(1 for suit in range(SUITS) if faces[suit * RANKS + rank])
        if suits and suits + jokers >= 3:
            return True
    for suit in range(SUITS):
        base = suit * RANKS
        for low in range(RANKS):
            present = sum(1 for d in range(3) if faces[base + (low + d) % RANKS])
            if present and present + jokers >= 3:
                return True
    return False


def _opening_reachable(faces: Sequence[int], jokers: int, minimum: int) -> bool:
    """Could an opening of ``minimum`` points be laid from these cards? An upper bound: the twelve best."""
    values: list[int] = [BEST_CARD] * jokers
    for face, count in enumerate(faces):
        rank = face % RANKS
        values.extend([max(SET_VALUE[rank], RUN_VALUE[rank])] * count)
    return sum(sorted(values, reverse=True)[:OPENING_CARDS]) >= minimum


def _fits(meld: TableMeld, faces: Sequence[int], jokers: int, cap: int) -> bool:
    """Could one card of these join ``meld``: added (B-15) or swapped for a joker (B-16)?"""
    if meld.closed:
        return False
    length = len(meld.cards)
    if meld.kind is MeldKind.SET:
        suits = {CARD_SUIT[c.index] for c in meld.cards if c.index < FIRST_JOKER}
        missing = [s for s in range(SUITS) if s not in suits and faces[s * RANKS + meld.rank]]
        if length < MAX_SET:
            return bool(missing) or (jokers > 0 and meld.jokers < cap)
        return len(suits) == MAX_SET - 1 and bool(missing)  # the fourth suit frees the joker
    assert meld.suit is not None
    base = meld.suit * RANKS
    if any(faces[base + meld.rank_at(i)] for i, c in enumerate(meld.cards) if c.index >= FIRST_JOKER):
        return True  # a swap
    if length >= RANKS:
        return False
    if jokers > 0 and meld.jokers < cap:
        return True
    return bool(faces[base + (meld.high + 1) % RANKS] or faces[base + (meld.rank - 1) % RANKS])


# ---------------------------------------------------------------------------------------------- stalled


def is_quiet(state: RoundState) -> bool:
    """:data:`QUIET_TURNS` turns begun in a row without a card placed on the table."""
    return state.quiet_turns >= QUIET_TURNS


def is_stalled(state: RoundState, quiet_turns: int, placed_since_turnover: bool) -> bool:
    """At an empty deck: no card placed since the last turnover nor for a full circle, and nobody can go out
    on their next turn alone (:func:`can_go_out_alone`). ``quiet_turns``: turns begun since a card was last
    placed."""
    if state.turnovers == 0 or placed_since_turnover or quiet_turns < state.rules.players:
        return False
    return not any(can_go_out_alone(state, seat) for seat in range(state.rules.players))


def can_go_out_alone(state: RoundState, seat: int) -> bool:
    """Could ``seat`` go out on its next turn with its hand, the table as it is and one card drawn from the
    deck or the bridge (the cards no player holds)?

    First the quick answer: going out places every card of the hand but one, so two cards that could not be
    placed even with any one more card make it impossible. Otherwise searched: every card the player could
    draw (any face in the deck or the bridge), then every way to put all the cards but one on the
    table, one card at a time (the opening minimum aside: generous). A search that grows past
    ``SEARCH_BUDGET`` steps for one drawn card answers yes, so the answer may be a generous yes, never a
    wrong no.
    """
    hand = state.hands[seat]
    known = state.go_out_draws.get((seat, hand))
    if known is None:
        known = state.go_out_draws[seat, hand] = {}
        cap = state.rules.max_jokers_per_meld or JOKER_COUNT
        if _hopeless(hand, _open_melds(state, seat), cap) >= 2:
            known[ANY_FACE] = False  # the quick answer: two cards that no one more card could place
    if ANY_FACE in known:
        return False
    for index in (*state.deck, *state.bridge):
        face = CARD_FACE[index]
        wins = known.get(face)
        if wins is None:
            cards = tuple(sorted((*indices_of(hand), index)))
            cap = state.rules.max_jokers_per_meld or JOKER_COUNT
            wins = known[face] = _place_all(cards, _open_melds(state, seat), cap, True, [SEARCH_BUDGET])
        if wins:
            return True
    return False


def _open_melds(state: RoundState, seat: int) -> tuple[TableMeld, ...]:
    return tuple(m for m in state.playable(seat, state.melds) if not m.closed)


def _hopeless(hand: int, melds: Sequence[TableMeld], cap: int) -> int:
    """How many natural cards of ``hand`` (two at most) could not be placed this turn even with any one more
    card, each judged alone (generously: the extra card is whatever that card needs)."""
    jokers = (hand >> FIRST_JOKER).bit_count()
    faces = natural_faces(hand)
    count = 0
    naturals = hand & ((1 << FIRST_JOKER) - 1)
    while naturals and count < 2:
        low = naturals & -naturals
        naturals ^= low
        if not _placeable_with_one_more(low.bit_length() - 1, faces, jokers, melds, cap):
            count += 1
    return count


def _placeable_with_one_more(
    index: int, faces: Sequence[int], jokers: int, melds: Sequence[TableMeld], cap: int
) -> bool:
    """Could natural card ``index`` reach the table this turn, given the hand's ``faces`` and ``jokers`` and
    one more card of any face (a joker too)?"""
    rank, suit = CARD_RANK[index], CARD_SUIT[index]
    spare = min(jokers + 1, cap)  # the hand's jokers and the extra card, as wild as it needs to be
    for meld in melds:
        length = len(meld.cards)
        if meld.kind is MeldKind.SET:
            if meld.rank != rank:
                continue
            suits = {CARD_SUIT[c.index] for c in meld.cards if c.index < FIRST_JOKER}
            if suit not in suits and (length < MAX_SET or len(suits) == MAX_SET - 1):
                return True
            continue
        if meld.suit != suit:
            continue
        at = (rank - meld.rank) % RANKS
        if at < length:
            if meld.cards[at].index >= FIRST_JOKER:
                return True  # a swap
            continue
        for start, step in ((meld.high, 1), (meld.rank, -1)):
            gap = (step * (rank - start)) % RANKS - 1
            if length + gap + 1 > RANKS:
                continue
            between = (suit * RANKS + (start + step * j) % RANKS for j in range(1, gap + 1))
            if sum(1 for face in between if not faces[face]) <= spare:
                return True
    other_suits = sum(1 for s in range(SUITS) if s != suit and faces[s * RANKS + rank])
    if other_suits + spare >= 2:
        return True
    for low in range(rank - 2, rank + 1):
        others = ((low + d) % RANKS for d in range(3))
        if sum(1 for r in others if r != rank and faces[suit * RANKS + r]) + spare >= 2:
            return True
    return False


# ---------------------------------------------------------------------------------------------- search


def _place_all(
    cards: tuple[int, ...], melds: tuple[TableMeld, ...], cap: int, may_keep: bool, budget: list[int]
) -> bool:
    """Can every one of ``cards`` reach the table in one turn (freed jokers included), but one kept to
    discard if ``may_keep``? ``budget`` counts the steps left; at 0 the answer is a generous yes."""
    if not cards:
        return True
    budget[0] -= 1
    if budget[0] <= 0:
        return True
    first = cards[0]
    rest = cards[1:]
    if may_keep and _place_all(rest, melds, cap, False, budget):
        return True
    for i, meld in enumerate(melds):
        for changed, back in _joined(meld, first, cap):
            after = (*melds[:i], changed, *melds[i + 1 :])
            if _place_all(tuple(sorted((*rest, *back))), after, cap, may_keep, budget):
                return True
    partners = [
        c
        for c in rest
        if c >= FIRST_JOKER
        or first >= FIRST_JOKER
        or CARD_RANK[c] == CARD_RANK[first]
        or CARD_SUIT[c] == CARD_SUIT[first]
    ]
    for size in range(2, min(len(partners), RANKS - 1) + 1):
        for chosen in combinations(partners, size):
            formed = _formed((first, *chosen), cap)
            if formed is None:
                continue
            left = list(rest)
            for c in chosen:
                left.remove(c)
            if _place_all(tuple(left), (*melds, formed), cap, may_keep, budget):
                return True
    return False


def _joined(meld: TableMeld, index: int, cap: int) -> list[tuple[TableMeld, tuple[int, ...]]]:
    """The ways card ``index`` joins ``meld``: each meld after it and the joker it freed, if any."""
    card = CARDS[index]
    out: list[tuple[TableMeld, tuple[int, ...]]] = []
    if meld.closed:
        return out
    if meld.kind is MeldKind.SET:
        as_set: tuple[Stands, ...] = (STANDS_SET[meld.rank],) if index >= FIRST_JOKER else ()
        tries: list[tuple[tuple[Stands, ...], End | None]] = [(as_set, None)]
    else:
        assert meld.suit is not None
        tries = []
        for end, rank in ((End.HIGH, (meld.high + 1) % RANKS), (End.LOW, (meld.rank - 1) % RANKS)):
            meaning = (STANDS_RUN[meld.suit * RANKS + rank],) if index >= FIRST_JOKER else ()
            tries.append((meaning, end))
    for meanings, at_end in tries:
        if index >= FIRST_JOKER and meld.jokers >= cap:
            continue
        with contextlib.suppress(IllegalActionError, InvalidActionError):
            out.append((extend_meld(meld, meld.owner, (card,), meanings, at_end), ()))
    if index < FIRST_JOKER:
        try:
            swapped, joker = swap_joker(meld, meld.owner, card)
            out.append((swapped, (joker.index,)))
        except (IllegalActionError, InvalidActionError):
            pass
    return out


def _formed(cards: tuple[int, ...], cap: int) -> TableMeld | None:
    """A new meld of exactly these cards (its jokers placed one way), or None if they make none."""
    naturals = [i for i in cards if i < FIRST_JOKER]
    jokers = len(cards) - len(naturals)
    if not naturals or jokers > cap:
        return None
    rank = CARD_RANK[naturals[0]]
    options: list[tuple[Stands, ...]] = []
    if all(CARD_RANK[i] == rank for i in naturals):
        options.append((STANDS_SET[rank],) * jokers)
    suit = CARD_SUIT[naturals[0]]
    if all(CARD_SUIT[i] == suit for i in naturals) and len(cards) <= RANKS:
        present = {CARD_RANK[i] for i in naturals}
        for low in present:  # from each natural: jokers filling the gaps, else all above or all below
            holes = [r for r in ((low + d) % RANKS for d in range(len(cards))) if r not in present]
            if len(holes) == jokers:
                options.append(tuple(STANDS_RUN[suit * RANKS + r] for r in holes))
            above = [(low + len(cards) - jokers + d) % RANKS for d in range(jokers)]
            below = [(low - 1 - d) % RANKS for d in range(jokers)]
            for spread in (above, below):
                if len(holes) == 0 and spread:
                    options.append(tuple(STANDS_RUN[suit * RANKS + r] for r in spread))
    ordered = tuple(CARDS[i] for i in (*naturals, *(i for i in cards if i >= FIRST_JOKER)))
    for meanings in options:
        try:
            return form_meld(-1, -1, ordered, meanings)
        except (IllegalActionError, InvalidActionError):
            continue
    return None
