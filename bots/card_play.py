"""The heuristic's card play (T-18 to T-20), from what the acting seat knows (T-33).

:class:`Knowledge` is the seat's view of a card-play decision as masks: its hand, the cards out of play, the
voids the other seats have shown, the trump and the trick. It is built from a live view and the seat's
:class:`~bots.belief.Belief` (a real game), or straight from a simulated ``engine.Deal`` with only what that
seat could know (the ISMCTS rollouts). :func:`choose_play` picks the card: marriages declared as soon as
allowed (the biggest first), trumps drawn as declarer, masters cashed, tricks won cheaply, points banked that
could be lost later, and a defence played as a team, giving points to a partner who holds the trick and
starving the declarer of them, for as long as that can still decide the contract (T-23): once it is made or
out of reach, a point given to the other defender is a point to a rival (T-24), and each defender plays for
itself (:attr:`Knowledge.settled`). A defender still without a trick tries for one with its highest winner
rather than throwing its cheapest card (:attr:`Knowledge.trickless`: a bolt, T-25). Against a declarer who
bids far beyond its hand (``random``) this was where the heuristic lost most to greedy, who never gives a
point away.
"""

from __future__ import annotations

from bots.belief import Belief
from bots.cardlib import (
    CARD_POINTS,
    KING,
    MARRIAGE_MASKS,
    MARRIAGE_POINTS,
    QUEEN,
    SUIT_MASKS,
    TEN,
    above,
    best_in,
    indices,
    lowest_in,
    marriage_cards,
    trick_winner,
)
from engine import Rules, View
from engine.cards import CARD_POINTS_TOTAL, FULL_MASK, QUEENS_MASK, marriage_points_in, points_of
from engine.deal import Deal


class Knowledge:
    """What the acting seat knows at a card-play decision, as masks."""

    __slots__ = (
        "active",
        "declarer",
        "friends",
        "hand",
        "married",
        "out",
        "played",
        "rules",
        "seat",
        "settled",
        "trick",
        "trickless",
        "trump",
        "voids",
    )

    def __init__(  # noqa: PLR0917  # every field, in order: built at every card of a rollout
        self,
        seat: int,
        active: tuple[int, ...],
        declarer: int,
        hand: int,
        trick: list[tuple[int, int]],
        trump: int | None,
        played: int,
        voids: dict[int, int],
        rules: Rules,
        out: int,
        married: int,
        trickless: bool,
        settled: bool,
        friends: tuple[int, ...],
    ) -> None:
        """Every field as given (:func:`make_knowledge` derives the last five): the search builds one at every
        card of every rollout (:func:`knowledge_from_deal`), so the constructor only stores."""
        self.seat = seat
        self.active = active
        self.declarer = declarer
        self.hand = hand
        self.trick = trick
        self.trump = trump
        self.played = played
        """Cards known to be out of play (taken tricks and the trick on the table)."""
        self.voids = voids
        """Cards each seat is known not to hold (from its plays)."""
        self.rules = rules
        self.out = out
        """Cards the other seats may hold (or a hidden talon)."""
        self.married = married
        """The seat's own marriages' cards."""
        self.trickless = trickless
        """A defender without a trick yet this deal: a bolt (T-25) is coming, a third of 120 points."""
        self.settled = settled
        """Whether the contract's fate is sealed (made already, or out of the declarer's reach)."""
        self.friends = friends
        """The other defender, while defending as a team can still decide the contract. Once it cannot
        (:attr:`settled`), each defender writes only its own points (T-24), and a point given to the other
        defender is a point to a rival: the defenders then play each for itself."""

    def out_for(self, seat: int) -> int:
        return self.out & ~self.voids.get(seat, 0)

    def after_me(self) -> tuple[int, ...]:
        """Seats still to play in this trick after this seat."""
        trick = self.trick
        return _after(self.active, trick[0][0] if trick else self.seat, len(trick))


def make_knowledge(
    seat: int,
    active: tuple[int, ...],
    declarer: int,
    hand: int,
    *,
    trick: list[tuple[int, int]],
    trump: int | None,
    played: int,
    voids: dict[int, int],
    rules: Rules,
    declarer_points: int = 0,
    taken_points: int = 0,
    contract: int | None = None,
    trickless: bool = False,
) -> Knowledge:
    """A seat's :class:`Knowledge` from what it saw: the cards still out, its marriages, whether the contract
    is settled (from the declarer's points so far and all the points taken) and who its friend is."""
    out = FULL_MASK & ~hand & ~played
    settled = contract is not None and _settled(out, declarer_points, taken_points, contract)
    return Knowledge(
        seat,
        active,
        declarer,
        hand,
        trick,
        trump,
        played,
        voids,
        rules,
        out,
        marriage_cards(hand),
        trickless and seat != declarer,
        settled,
        _friends(seat, active, declarer, settled),
    )


_AFTER: dict[tuple[tuple[int, ...], int, int], tuple[int, ...]] = {}
""":func:`_after`'s answers: a few dozen seatings, asked at every card a rollout's heuristic follows to."""


def _after(active: tuple[int, ...], leader: int, played: int) -> tuple[int, ...]:
    """The seats of ``active`` still to play after the one to play now, ``played`` cards into a trick led by
    ``leader``."""
    key = (active, leader, played)
    found = _AFTER.get(key)
    if found is None:
        n = len(active)
        # In turn order from the trick's leader, the seats after the acting seat's place.
        start = active.index(leader)
        found = _AFTER[key] = tuple([active[(start + k) % n] for k in range(played + 1, n)])
    return found


def _friends(seat: int, active: tuple[int, ...], declarer: int, settled: bool) -> tuple[int, ...]:
    """:attr:`Knowledge.friends`."""
    if seat == declarer or len(active) < 3 or settled:
        return ()
    return tuple([s for s in active if s not in (seat, declarer)])


def _settled(out: int, declarer_points: int, taken_points: int, contract: int) -> bool:
    """T-23: the declarer has made the contract, or cannot make it with every card point still to be taken
    and every marriage it could still declare (both cards in ``out``, unseen by the seat)."""
    if declarer_points >= contract:
        return True
    reach = declarer_points + CARD_POINTS_TOTAL - taken_points + marriage_points_in(out)
    return reach < contract


def knowledge_from_view(view: View, belief: Belief) -> Knowledge:
    assert view.viewer is not None and view.declarer is not None
    hand = 0
    for c in view.hand:
        hand |= 1 << c.index
    declarer = view.declarer
    marriages = sum(MARRIAGE_POINTS[int(suit)] for seat, suit in view.marriages if seat == declarer)
    return make_knowledge(
        seat=view.viewer,
        active=view.active,
        declarer=view.declarer,
        hand=hand,
        trick=[(s, c.index) for s, c in view.trick],
        trump=None if view.trump is None else int(view.trump),
        played=belief.played_mask(),
        voids=belief.voids(view.rules.must_beat),
        rules=view.rules,
        declarer_points=view.trick_points[declarer] + marriages,
        taken_points=sum(view.trick_points),
        contract=view.contract if view.contract is not None else view.bid,
        trickless=view.tricks_won[view.viewer] == 0,
    )


def knowledge_from_deal(deal: Deal, seat: int) -> Knowledge:
    """The acting seat's knowledge in a simulated deal (its own cards and the public plays only).

    What :func:`make_knowledge` would make of the deal, its derived fields computed inline: this runs at every
    card of every rollout of a search (tests/test_bots_search_speed.py holds it to :func:`make_knowledge`).
    """
    won = deal.won
    played = 0
    for m in won:
        played |= m
    taken = points_of(played)
    trick = deal.trick.copy()  # (seat, card index) in play order
    for _, i in trick:
        played |= 1 << i
    declarer = deal.declarer
    assert declarer is not None
    hand = deal.hands[seat]
    trump = deal.trump
    active = deal.active
    played &= FULL_MASK
    out = FULL_MASK & ~hand & ~played
    queens = hand & hand >> 1 & QUEENS_MASK  # marriage_cards: a king's bit sits right above its queen's
    contract = deal.contract
    settled = False
    if contract is not None:  # _settled, with deal_points(declarer) read off the deal
        points = points_of(won[declarer]) + deal.marriage_points[declarer]
        reach = points + CARD_POINTS_TOTAL - taken + marriage_points_in(out)
        settled = points >= contract or reach < contract
    if seat == declarer or len(active) < 3 or settled:  # _friends
        friends: tuple[int, ...] = ()
    elif len(active) == 3:  # the one seat that is neither
        friends = (active[0] + active[1] + active[2] - seat - declarer,)
    else:
        friends = tuple([s for s in active if s not in (seat, declarer)])
    return Knowledge(
        seat,
        active,
        declarer,
        hand,
        trick,
        None if trump is None else int(trump),
        played,
        {},
        deal.rules,
        out,
        queens | queens << 1,
        deal.tricks_won[seat] == 0 and seat != declarer,
        settled,
        friends,
    )


def _master(k: Knowledge, index: int) -> bool:
    """No card that may be in another hand is higher in the card's suit."""
    return not (_ABOVE[index] & k.out)


_ABOVE = tuple(above(i) for i in range(24))


def _keep_value(k: Knowledge, index: int) -> float:
    """How much the seat would rather keep a card: low values are thrown first."""
    value = float(CARD_POINTS[index])
    if not _ABOVE[index] & k.out:
        value += 12.0
    if k.married >> index & 1:
        value += 25.0
    suit = index // 6
    if suit == k.trump:
        value += 8.0 + index % 6
    # Short suits are thrown first (towards a void).
    return value + 0.5 * (k.hand & SUIT_MASKS[suit]).bit_count()


def _lowest(k: Knowledge, legal: int) -> int:
    """The card the seat would most rather lose: the lowest keep value, the lowest index among equals."""
    best = -1
    least = 0.0
    out = k.out
    married = k.married
    trump = k.trump
    hand = k.hand
    m = legal
    while m:  # lowest index first: a later card replaces it only with a strictly lower value
        low = m & -m
        i = low.bit_length() - 1
        # _keep_value(k, i), the same sums in the same order (the same float)
        value = float(CARD_POINTS[i])
        if not _ABOVE[i] & out:
            value += 12.0
        if married >> i & 1:
            value += 25.0
        suit = i // 6
        if suit == trump:
            value += 8.0 + i % 6
        value = value + 0.5 * (hand & SUIT_MASKS[suit]).bit_count()
        if best < 0 or value < least:
            best, least = i, value
        m ^= low
    return best


def _highest_dump(k: Knowledge, legal: int) -> int:
    """The most points worth giving to a partner's trick (not a master nor a marriage card, if possible)."""
    marriage = k.married
    out = k.out
    trump = k.trump
    dump = -1  # max by (points, -index): the most points, the lowest index among equals
    m = legal
    while m:
        low = m & -m
        i = low.bit_length() - 1
        m ^= low
        plain = _ABOVE[i] & out and not marriage >> i & 1 and i // 6 != trump  # not a master either
        if plain and (dump < 0 or CARD_POINTS[i] > CARD_POINTS[dump]):
            dump = i
    if dump >= 0:
        return dump
    return _lowest(k, legal)


def _could_beat(k: Knowledge, seat: int, index: int, lead_suit: int) -> bool:
    """Whether ``seat`` (still to play) might beat ``index``, the best card of the trick so far."""
    out = k.out & ~k.voids.get(seat, 0)
    suit = index // 6
    if _ABOVE[index] & out:
        return True
    trump = k.trump
    if trump is None or suit == trump:
        return False
    if not out & SUIT_MASKS[trump]:
        return False
    # A trump beats it if the seat has none of the suit led: likely when few of that suit are left out.
    if k.voids.get(seat, 0) & SUIT_MASKS[lead_suit] == SUIT_MASKS[lead_suit]:
        return True
    return (k.out & SUIT_MASKS[lead_suit]).bit_count() <= 1


def choose_play(k: Knowledge, legal: int, marriages: int) -> tuple[int, bool]:
    """The card to play (and whether it declares a marriage) from the legal ``legal`` mask."""
    if not k.trick:
        return _lead(k, legal, marriages)
    return _follow(k, legal), False


def _lead(k: Knowledge, legal: int, marriages: int) -> tuple[int, bool]:
    if marriages:
        suit = max(range(4), key=lambda s: MARRIAGE_POINTS[s] if marriages & MARRIAGE_MASKS[s] else -1)
        king = 6 * suit + KING
        queen = 6 * suit + QUEEN
        return (king if not (above(king) & k.out) else queen), True
    out = k.out
    trump = k.trump
    declarer = k.seat == k.declarer
    hand = legal
    if trump is not None:
        trumps = hand & SUIT_MASKS[trump]
        out_trumps = out & SUIT_MASKS[trump]
        if declarer and trumps and out_trumps:
            top = best_in(trumps)
            if _master(k, top):
                return top, False
            if trumps.bit_count() > out_trumps.bit_count() + 1:
                return lowest_in(trumps), False
    # Cash masters in side suits, aces first; a suit the opponents still hold is safer from trumps.
    best: tuple[float, int] | None = None
    voids = k.voids  # none known in a rollout's knowledge (knowledge_from_deal): no enemy to look at then
    for s in range(4):
        mine = hand & SUIT_MASKS[s]
        if not mine or s == trump:
            continue
        top = mine.bit_length() - 1  # best_in(mine)
        if _ABOVE[top] & out:  # not _master(k, top)
            continue
        left = (out & SUIT_MASKS[s]).bit_count()
        risky = False
        if trump is not None and out & SUIT_MASKS[trump]:
            if voids:
                for e in [e for e in k.active if e != k.seat and e not in k.friends]:  # the enemies
                    if voids.get(e, 0) & SUIT_MASKS[s] == SUIT_MASKS[s] and k.out_for(e) & SUIT_MASKS[trump]:
                        risky = True
            if left <= 1:
                risky = True
        if risky:
            continue
        score = CARD_POINTS[top] + min(left, 3) * 2.0
        if best is None or score > best[0]:
            best = (score, top)
    if best is not None:
        return best[1], False
    if trump is not None and declarer:
        trumps = hand & SUIT_MASKS[trump]
        if trumps and out & SUIT_MASKS[trump] and trumps.bit_count() >= 3:
            return best_in(trumps), False
    return _fallback_lead(k, hand, declarer), False


def _fallback_lead(k: Knowledge, hand: int, declarer: bool) -> int:
    """The lead from ``hand`` of a seat without a sure winner to cash."""
    out = k.out
    married = k.married
    if not declarer:
        # A defender without a sure winner leads high (not from a marriage): it makes the declarer spend
        # its high cards, and a partner behind the declarer may win the trick. The highest rank, of the
        # lowest suit among equals: max by (rank, -suit), scanning the cards in index order.
        plain = hand & ~married or hand
        lead = -1
        m = plain
        while m:
            low = m & -m
            i = low.bit_length() - 1
            if lead < 0 or i % 6 > lead % 6:
                lead = i
            m ^= low
        return lead
    # The declarer without a sure winner loses the lead cheaply, from a short suit, keeping marriages,
    # masters and tens: the least lead cost, the lowest index among equals.
    lead = -1
    least = 0.0
    m = hand
    while m:
        low = m & -m
        i = low.bit_length() - 1
        cost = _keep_value(k, i)
        rank = i % 6
        if rank == TEN and (out >> (i + 1) & 1):
            cost += 15.0  # a ten led while the ace is out is usually lost
        if rank in (KING, QUEEN) and (out & MARRIAGE_MASKS[i // 6]):
            cost += 3.0
        if lead < 0 or cost < least:
            lead, least = i, cost
        m ^= low
    return lead


def _follow(k: Knowledge, legal: int) -> int:
    trick = k.trick
    trump = k.trump
    lead_suit = trick[0][1] // 6
    pos = trick_winner(trick, trump)
    win_seat, best = trick[pos]
    after = _after(k.active, trick[0][0], len(trick))  # k.after_me()
    friends = k.friends
    enemies_after = [s for s in after if s not in friends] if friends else after
    friend_winning = win_seat in friends
    # The cards that beat ``best`` (cardlib.beats): higher in its suit, or trumps when it is not one.
    beating = legal & _ABOVE[best]
    if trump is not None and best // 6 != trump:
        beating |= legal & SUIT_MASKS[trump]
    winners = indices(beating)

    if friend_winning:
        holds = True
        for s in enemies_after:
            if _could_beat(k, s, best, lead_suit):
                holds = False
                break
        if holds:
            # Overtake only by following suit (it banks the points for this seat), else give points.
            own = [i for i in winners if i // 6 == lead_suit and i // 6 != trump]
            if own and not enemies_after:
                return max(own, key=lambda i: (CARD_POINTS[i], -i))
            return _highest_dump(k, legal)
        if not enemies_after:
            return _highest_dump(k, legal)
    safe = []
    for i in winners:
        for s in enemies_after:
            if _could_beat(k, s, i, lead_suit):
                break
        else:
            safe.append(i)
    if safe:
        if not enemies_after:
            follow = [i for i in safe if i // 6 != trump]
            if follow:
                plain = [i for i in follow if not _master(k, i)]
                if plain:
                    return max(plain, key=lambda i: (CARD_POINTS[i], -i))
                return min(follow)
            return min(safe)
        # Still others to play: the lowest sure winner keeps the higher cards as masters.
        # min by (is a trump, rank), the first among equals
        pick = safe[0]
        least_key = (pick // 6 == trump) * 6 + pick % 6
        for i in safe:
            key = (i // 6 == trump) * 6 + i % 6
            if key < least_key:
                pick, least_key = i, key
        return pick
    # Cannot win for sure: lose as little as possible, unless this seat has no trick yet: then its best
    # chance of one (the highest winner) is worth more than the card's points, since a bolt costs a third of
    # 120 (T-25).
    if winners and k.trickless:
        return max(winners, key=lambda i: (i // 6 == trump, i % 6, -CARD_POINTS[i]))
    return _lowest(k, legal)
