"""Who plays a deal and where its cards go: the seats in turn order and the hands and talons (T-4 to T-6).

The game decides these before a deal (its number, dealer, kind) and the deal, its replays and the bots'
sampled worlds all lay the shuffle out the same way, so the layout lives apart from the deal's state machine.
Seatings are cached per (players, dealer): every deal asks for one.
"""

from __future__ import annotations

from dataclasses import dataclass

from engine.cards import DECK_SIZE, FULL_MASK, Card
from engine.errors import InvalidActionError
from engine.events import DealKind
from engine.rules import Rules, TwoPlayerDeal


@dataclass(frozen=True, slots=True)
class DealSetup:
    """What the game decides before a deal: its number, the dealer, its kind, a fixed declarer."""

    number: int
    dealer: int
    kind: DealKind = DealKind.NORMAL
    declarer: int | None = None


_ACTIVE_SEATS: dict[tuple[int, int], tuple[int, ...]] = {}


def active_seats(players: int, dealer: int) -> tuple[int, ...]:
    """Seats that play, in turn order from the dealer's left; with four the dealer sits out (T-6)."""
    seats = _ACTIVE_SEATS.get((players, dealer))
    if seats is None:
        seats = tuple((dealer + i) % players for i in range(1, players + 1))
        if players == 4:
            seats = seats[:3]
        _ACTIVE_SEATS[(players, dealer)] = seats
    return seats


_SEATING: dict[tuple[int, int], tuple[tuple[int, ...], tuple[int, ...]]] = {}


def seating(players: int, dealer: int) -> tuple[tuple[int, ...], tuple[int, ...]]:
    """The active seats and, indexed by seat, the next active seat in turn order (-1 for a sitter)."""
    found = _SEATING.get((players, dealer))
    if found is None:
        active = active_seats(players, dealer)
        following = [-1] * players
        for i, seat in enumerate(active):
            following[seat] = active[(i + 1) % len(active)]
        found = _SEATING[(players, dealer)] = (active, tuple(following))
    return found


def deal_layout(rules: Rules) -> tuple[int, tuple[int, ...]]:
    """Cards per hand and the talon sizes (T-4, T-5, T-6)."""
    if rules.players != 2:
        return 7, (3,)
    if rules.two_player_deal is TwoPlayerDeal.TEN_AND_TWO_TALONS_OF_2:
        return 10, (2, 2)
    return 9, (3, 3)


_DEALT: dict[int, tuple[tuple[Card, ...], Rules, int, tuple[int, ...]]] = {}
""":func:`dealt_masks`'s recent answers by the identity of the order (kept in the entry, so that identity is
not reused while the entry lives): a search copies one deal again and again (``Deal.copy`` deals the copy from
the very same order), and cutting 24 cards is most of a copy's dealing. Emptied when it reaches
:data:`_DEALT_LIMIT` entries; an entry only answers for the same order, rules object and number of hands."""
_DEALT_LIMIT = 256


def dealt_masks(rules: Rules, hands: int, order: tuple[Card, ...]) -> list[int]:
    """The masks of ``hands`` hands and then the talons, cut from ``order`` in dealing order.

    Raises InvalidActionError unless ``order`` holds each of the 24 cards exactly once.
    """
    found = _DEALT.get(id(order))
    if found is not None and found[0] is order and found[1] is rules and found[2] == hands:
        return list(found[3])
    masks = _cut(rules, hands, order)
    if len(_DEALT) >= _DEALT_LIMIT:
        _DEALT.clear()
    _DEALT[id(order)] = (order, rules, hands, tuple(masks))
    return masks


def _cut(rules: Rules, hands: int, order: tuple[Card, ...]) -> list[int]:
    """:func:`dealt_masks` worked out."""
    hand_size, talon_sizes = deal_layout(rules)
    masks: list[int] = []
    full = 0
    if len(order) == DECK_SIZE:
        pos = 0
        for size in (hand_size,) * hands + talon_sizes:
            mask = 0
            for c in order[pos : pos + size]:
                mask |= 1 << c.index
            masks.append(mask)
            full |= mask
            pos += size
        # A repeated card leaves some card out, so the union falls short of the full deck.
    if full != FULL_MASK:
        raise InvalidActionError("a shuffle must order each of the 24 cards exactly once")
    return masks
