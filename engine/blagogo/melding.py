"""The meld actions of a turn on the table: laying melds, adding to them, swapping jokers (B-11 to B-16).

Each ``plan_*`` function checks a meld action completely against a :class:`RoundState` and returns the change
as a :data:`Commit`; nothing is touched until it runs (the planner of :class:`engine.blagogo.round.Round`).
:func:`table_actions` lists the simple ones (single-card additions and swaps) for the legal list.

Choices where the specification leaves room (all of them are listed in this package's README.md):

- The opening (B-11) is one :class:`LayMelds` action holding every opening meld; adding to other players'
  melds does not count towards it. In the same turn, after it, the player may lay, add and swap freely.
- B-9 ``bridge_take_must_meld``: until the deepest card taken from the bridge is on the table, a meld action
  after which no sequence of the turn's meld actions could meld it any more is refused.
- A joker swapped out of a meld goes to the hand with no obligation to use it this turn (B-16 says no more).
- A set with two jokers among four cards can never free its jokers: a swap frees one joker for the fourth
  natural suit once three natural suits are there, and such a set is already full.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Final

from engine.blagogo.actions import STANDS_RUN, STANDS_SET, Action, AddToMeld, End, MeldSpec, SwapJoker
from engine.blagogo.cards import CARD_FACE, CARD_SUIT, CARDS, FIRST_JOKER, RANKS, Card, indices_of
from engine.blagogo.errors import BlagogoReason, illegal
from engine.blagogo.events import Event, JokerSwapped, MeldClosed, MeldExtended, MeldsLaid
from engine.blagogo.melds import (
    MAX_SET,
    MeldKind,
    TableMeld,
    check_cards,
    check_meanings,
    extend_meld,
    form_meld,
    swap_joker,
)
from engine.blagogo.round_state import Commit, RoundState
from engine.blagogo.rules import CompletedSetKeeper
from engine.errors import IllegalActionError, InvalidActionError, Reason

_COMPLETER: Final = CompletedSetKeeper.COMPLETER


def table_actions(state: RoundState, seat: int, hand: int) -> list[Action]:
    """Every joker swap and single-card addition ``seat`` can make (it has opened)."""
    by_face: dict[int, list[Card]] = {}
    jokers: list[Card] = []
    for i in indices_of(hand):
        if i >= FIRST_JOKER:
            jokers.append(CARDS[i])
        else:
            by_face.setdefault(CARD_FACE[i], []).append(CARDS[i])
    may_add = hand.bit_count() >= 2  # B-13: never add away the last card
    limit = state.rules.max_jokers_per_meld
    actions: list[Action] = []
    for m in state.playable(seat, state.melds):
        if m.closed:
            continue
        length = len(m.cards)
        room = not limit or m.jokers < limit  # B-14 variant: another joker fits
        if m.kind is MeldKind.SET:
            suits = 0
            for c in m.cards:
                if c.index < FIRST_JOKER:
                    suits |= 1 << CARD_SUIT[c.index]
            missing = [s for s in range(4) if not suits >> s & 1]
            if length < MAX_SET and may_add:
                for s in missing:
                    for c in by_face.get(s * RANKS + m.rank, ()):
                        actions.append(AddToMeld(m.id, (c,)))
                for j in jokers if room else ():
                    actions.append(AddToMeld(m.id, (j,), (STANDS_SET[m.rank],)))
            if length == MAX_SET and len(missing) == 1:  # three natural suits and a joker (B-16)
                for c in by_face.get(missing[0] * RANKS + m.rank, ()):
                    actions.append(SwapJoker(m.id, c))
            continue
        suit = m.suit
        assert suit is not None
        base = suit * RANKS
        for pos, c in enumerate(m.cards):
            if c.index >= FIRST_JOKER:
                for natural in by_face.get(base + (m.rank + pos) % RANKS, ()):
                    actions.append(SwapJoker(m.id, natural))
        if length < RANKS and may_add:
            high = base + (m.high + 1) % RANKS
            low = base + (m.rank - 1) % RANKS
            for c in by_face.get(high, ()):
                actions.append(AddToMeld(m.id, (c,), (), End.HIGH))
            for c in by_face.get(low, ()):
                actions.append(AddToMeld(m.id, (c,), (), End.LOW))
            for j in jokers if room else ():
                actions.append(AddToMeld(m.id, (j,), (STANDS_RUN[high],), End.HIGH))
                actions.append(AddToMeld(m.id, (j,), (STANDS_RUN[low],), End.LOW))
    return actions


def plan_lay(state: RoundState, seat: int, specs: object) -> Commit:
    if not isinstance(specs, tuple) or not specs:
        raise InvalidActionError(f"LayMelds needs a non-empty tuple of MeldSpec, got {specs!r}")
    for spec in specs:
        if not isinstance(spec, MeldSpec):
            raise InvalidActionError(f"{spec!r} is not a MeldSpec")
    state.need_play_phase("meld")
    used = 0
    new: list[TableMeld] = []
    next_id = len(state.melds)
    for spec in specs:
        cards = check_cards(spec.cards, "a meld")
        jokers = check_meanings(spec.jokers, cards)
        used |= _in_hand(state, seat, cards, used)
        meld = form_meld(next_id + len(new), seat, cards, jokers)
        _check_jokers(state, meld)
        new.append(meld)
    points = sum(m.points for m in new)
    opening = not state.opened[seat]
    minimum = state.rules.opening_min_points
    if opening and state.rules.opening_one_meld:
        best = max(m.points for m in new)
        if best < minimum:
            raise illegal(
                BlagogoReason.OPENING_TOO_LOW,
                f"an opening needs one meld worth at least {minimum} on its own (opening_one_meld); "
                f"the best of these is worth {best} (B-11)",
            )
    elif opening and points < minimum:
        raise illegal(
            BlagogoReason.OPENING_TOO_LOW,
            f"an opening must be worth at least {minimum}; these melds are worth {points} (B-11)",
        )
    left = _check_left(state, seat, used)
    melds_after = state.melds + new
    placed = _check_pending(state, seat, left, melds_after)
    laid = tuple(new)

    def commit(events: list[Event]) -> None:
        state.melds.extend(laid)
        state.hands[seat] = left
        state.known[seat] &= ~used
        if opening:
            state.opened[seat] = True
            state.opened_on_turn[seat] = state.turns[seat]
        if placed:
            state.must_meld = None
        events.append(MeldsLaid(seat, laid, points, opening))
        events.extend(MeldClosed(m.id, m.owner) for m in laid if m.closed)  # B-15

    return commit


def plan_add(state: RoundState, seat: int, action: AddToMeld) -> Commit:
    cards = check_cards(action.cards, "the cards added")
    jokers = check_meanings(action.jokers, cards)
    end = action.end
    if end is not None and not isinstance(end, End):
        raise InvalidActionError(f"end {end!r} is not End.LOW, End.HIGH or None")
    meld = _meld(state, action.meld_id)
    state.need_play_phase("add to a meld")
    _need_opened(state, seat, "add to melds")
    _need_others(state, seat, meld, "add to")
    used = _in_hand(state, seat, cards)
    after = extend_meld(meld, seat, cards, jokers, end)
    _check_jokers(state, after)
    if after.closed and seat != meld.owner and state.rules.completed_set_keeper is _COMPLETER:
        after = replace(after, owner=seat)  # B-15: laid "рядом с собой", beside the one who completed it
    left = _check_left(state, seat, used)
    melds_after = list(state.melds)
    melds_after[meld.id] = after
    placed = _check_pending(state, seat, left, melds_after)

    def commit(events: list[Event]) -> None:
        state.melds[meld.id] = after
        state.hands[seat] = left
        state.known[seat] &= ~used
        if placed:
            state.must_meld = None
        events.append(MeldExtended(seat, after, cards, end))
        if after.closed:
            events.append(MeldClosed(after.id, after.owner))

    return commit


def plan_swap(state: RoundState, seat: int, meld_id: object, card: object) -> Commit:
    if not isinstance(card, Card):
        raise InvalidActionError(f"{card!r} is not a card")
    meld = _meld(state, meld_id)
    state.need_play_phase("swap a joker")
    _need_opened(state, seat, "swap jokers")
    _need_others(state, seat, meld, "swap a joker out of")
    used = _in_hand(state, seat, (card,))
    after, joker = swap_joker(meld, seat, card)
    hand = (state.hands[seat] & ~used) | joker.bit
    melds_after = list(state.melds)
    melds_after[meld.id] = after
    placed = _check_pending(state, seat, hand, melds_after)

    def commit(events: list[Event]) -> None:
        state.melds[meld.id] = after
        state.hands[seat] = hand
        state.known[seat] = (state.known[seat] & ~used) | joker.bit
        if placed:
            state.must_meld = None
        events.append(JokerSwapped(seat, after, card, joker))
        if after.closed:
            events.append(MeldClosed(after.id, after.owner))

    return commit


def _in_hand(state: RoundState, seat: int, cards: tuple[Card, ...], used: int = 0) -> int:
    hand = state.hands[seat]
    mask = 0
    for c in cards:
        bit = 1 << c.index
        if used & bit or mask & bit:
            raise illegal(BlagogoReason.CARD_USED_TWICE, f"{c} is named twice")
        if not hand & bit:
            raise IllegalActionError(Reason.NO_SUCH_CARD, f"{c} is not in your hand")
        mask |= bit
    return mask


def _check_left(state: RoundState, seat: int, removed: int) -> int:
    left = state.hands[seat] & ~removed
    if not left:
        raise illegal(
            BlagogoReason.LAST_CARD_MUST_BE_DISCARDED,
            "you may not meld or add away your last card: it must be discarded (B-13)",
        )
    return left


def _check_pending(state: RoundState, seat: int, hand: int, melds: list[TableMeld]) -> bool:
    """B-9 variant: whether the pending bridge card is now on the table (True) or can still be melded this
    turn (False); an action after which no sequence of the turn could meld it is refused."""
    pending = state.must_meld
    if pending is None:
        return False
    if not hand >> pending & 1:
        return True
    if not state.can_meld(seat, pending, hand, melds):
        raise illegal(
            BlagogoReason.MUST_MELD_BRIDGE_CARD,
            f"after this {CARDS[pending]}, taken from the bridge, could no longer be melded this turn",
        )
    return False


def _meld(state: RoundState, meld_id: object) -> TableMeld:
    if not isinstance(meld_id, int) or isinstance(meld_id, bool):
        raise InvalidActionError(f"meld id {meld_id!r} is not a number")
    if not 0 <= meld_id < len(state.melds):
        raise illegal(BlagogoReason.NO_SUCH_MELD, f"there is no meld {meld_id} on the table")
    return state.melds[meld_id]


def _need_opened(state: RoundState, seat: int, what: str) -> None:
    if not state.opened[seat]:
        raise illegal(BlagogoReason.NOT_OPENED, f"only a player who has opened may {what} (B-12)")


def _need_others(state: RoundState, seat: int, meld: TableMeld, what: str) -> None:
    if meld.owner == seat and not state.rules.play_on_own_melds:
        raise illegal(
            BlagogoReason.OWN_MELD,
            f"meld {meld.id} is your own; at this table you {what} other players' melds only "
            "(play_on_own_melds, B-12)",
        )


def _check_jokers(state: RoundState, meld: TableMeld) -> None:
    limit = state.rules.max_jokers_per_meld
    if limit and meld.jokers > limit:
        raise illegal(
            BlagogoReason.TOO_MANY_JOKERS,
            f"a meld holds at most {limit} joker(s) at this table, not {meld.jokers} "
            "(max_jokers_per_meld, B-14)",
        )
