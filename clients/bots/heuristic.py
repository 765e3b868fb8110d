"""``heuristic``: a rule-based player of Thousand that sees only its seat's view (T-33).

- **Auction**: the hand is valued by :func:`estimate_declarer_points`, a linear model of the points the
  declarer takes with this player's own exchange and card play (fitted offline by self-play, see
  ``MODELS``), which covers sure tricks, marriages and the expected talon. It bids on while the next bid
  stays below the estimate less a safety margin; the bid cap of T-9 is the engine's (the legal list).
- **Redeals**: a weak hand, four nines or a weak talon are given back when the deal is worth less than
  nothing to this seat (``relative`` > 0 counts the opponents' gain), or when the contract looks lost.
- **Exchange**: keeps marriages, masters (aces, guarded tens) and the trump suit; gives away cards that
  cannot win, preferably making a void, and never a king or queen that could complete an opponent's marriage.
- **Contract**: raises to what the hand after the talon clearly makes; concedes (rospis) only a hopeless
  contract that would hand the opponents more than their rospis share.
- **Card play**: declares marriages as soon as allowed (the biggest first), draws trumps as declarer, cashes
  masters, wins tricks cheaply, banks points that could be lost later, and defends as a team: a defender
  gives points to a partner who holds the trick and starves the declarer of them.

The same decisions drive the ISMCTS rollouts (:func:`rollout_action`), computed straight from a live
``engine.Deal`` with only what the acting seat could know.
"""

from __future__ import annotations

import math
import random
from dataclasses import dataclass

from clients.bots.belief import Belief
from clients.bots.cardlib import (
    ACE,
    CARD_POINTS,
    KING,
    MARRIAGE_MASKS,
    MARRIAGE_POINTS,
    QUEEN,
    SUIT_MASKS,
    TEN,
    above,
    beats,
    best_in,
    indices,
    lowest_in,
    trick_winner,
)
from clients.bots.strategy import StrategyOptions
from engine import (
    Action,
    Bid,
    ChooseTalon,
    Concede,
    DeclareDark,
    DeclineDark,
    DemandRedeal,
    DiscardCard,
    GiveCard,
    NameContract,
    Pass,
    Phase,
    PlayCard,
    RedealReason,
    Rules,
    TwoPlayerDeal,
    View,
)
from engine.actions import PLAY, PLAY_MARRIAGE
from engine.cards import FULL_MASK, Card, points_of
from engine.deal import Deal

# ---------------------------------------------------------------------------------------- valuation


@dataclass(frozen=True, slots=True)
class Model:
    """A linear model of the declarer's deal points from features of its hand."""

    intercept: float
    weights: tuple[float, ...]
    sigma: float
    """Standard deviation of the residual: how far the deal usually lands from the estimate."""


# Fitted by self-play of this module's own exchange and card play (scripts kept out of the package; see the
# report in the repository history). Features: see :func:`hand_features`.
MODELS: dict[str, Model] = {
    "3:bid": Model(25.57, (-0.677, 25.956, 14.293, 0.803, 4.037, -0.96, 2.52, 0.131, 11.078, -3.005), 47.3),
    "3:play": Model(-42.56, (0.682, 19.137, 9.323, 0.924, 4.888, 7.375, 6.773, 0.03, -1.845, -19.534), 31.7),
    "2:bid": Model(31.48, (0.084, 12.412, 9.525, 1.014, 1.88, -2.703, 1.54, 0.172, 6.822, -12.749), 48.7),
    "2:play": Model(-31.98, (0.973, 8.214, 4.144, 1.032, 3.157, 5.521, 2.623, 0.034, 0.652, -13.077), 33.0),
    "2:polish:bid": Model(
        27.86, (0.372, 10.154, 7.826, 0.844, -0.057, 5.719, 2.287, 0.102, 4.328, -9.301), 43.1
    ),
    "2:polish:play": Model(
        -24.28, (0.731, 10.292, 7.691, 0.916, 2.577, 1.596, 2.923, 0.035, 2.871, -10.183), 32.5
    ),
}


FEATURES = (
    "card points",
    "aces",
    "guarded tens",
    "marriage points",
    "longest suit",
    "voids",
    "length of the best marriage suit",
    "half marriages (value of suits with one of K, Q)",
    "unguarded tens",
    "marriages",
)


def hand_features(hand: int) -> tuple[float, ...]:
    """The features of :data:`FEATURES` for a hand (a mask)."""
    points = points_of(hand)
    aces = tens = bare_tens = longest = voids = 0
    marriages = count = 0
    halves = 0
    best = -1
    for s in range(4):
        suit = hand & SUIT_MASKS[s]
        n = suit.bit_count()
        longest = max(longest, n)
        if not n:
            voids += 1
        ace = suit >> (6 * s + ACE) & 1
        ten = suit >> (6 * s + TEN) & 1
        aces += ace
        tens += ace & ten
        bare_tens += ten & (1 - ace)
        pair = suit & MARRIAGE_MASKS[s]
        if pair == MARRIAGE_MASKS[s]:
            marriages += MARRIAGE_POINTS[s]
            count += 1
            best = s
        elif pair:
            halves += MARRIAGE_POINTS[s]
    trumps = (hand & SUIT_MASKS[best]).bit_count() if best >= 0 else 0
    return (
        float(points),
        float(aces),
        float(tens),
        float(marriages),
        float(longest),
        float(voids),
        float(trumps),
        float(halves),
        float(bare_tens),
        float(count),
    )


def estimate(model: Model, hand: int) -> float:
    f = hand_features(hand)
    return model.intercept + sum(w * x for w, x in zip(model.weights, f, strict=True))


def model_for(rules: Rules, stage: str) -> Model:
    if rules.players != 2:
        return MODELS[f"3:{stage}"]
    polish = rules.two_player_deal is TwoPlayerDeal.TEN_AND_TWO_TALONS_OF_2
    return MODELS[f"2:polish:{stage}" if polish else f"2:{stage}"]


def estimate_declarer_points(rules: Rules, hand: int, stage: str = "bid") -> tuple[float, float]:
    """(expected deal points as declarer, their standard deviation) for a hand before or after the talon."""
    model = model_for(rules, stage)
    return estimate(model, hand), model.sigma


def estimate_after_exchange(rules: Rules, hand: int) -> tuple[float, float]:
    """The declarer's expected points with the talon taken, once it has given away its worst cards."""
    kept = hand
    for i in give_order(hand)[:2]:  # two cards leave the declarer's hand in every variant
        kept &= ~(1 << i)
    return estimate_declarer_points(rules, kept, "play")


def chance_at_least(mean: float, sigma: float, target: float) -> float:
    """P(points >= target) under a normal approximation."""
    z = (mean - target + 2.5) / sigma
    return 0.5 * (1.0 + math.erf(z / math.sqrt(2.0)))


# ---------------------------------------------------------------------------------------- knowledge


_MARRIED = tuple(sum(MARRIAGE_MASKS[s] for s in range(4) if (pattern >> s) & 1) for pattern in range(16))


def _marriage_cards(hand: int) -> int:
    """The kings and queens of the marriages in a hand."""
    pattern = 0
    for s in range(4):
        if hand & MARRIAGE_MASKS[s] == MARRIAGE_MASKS[s]:
            pattern |= 1 << s
    return _MARRIED[pattern]


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
        "trick",
        "trump",
        "voids",
    )

    def __init__(
        self,
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
    ) -> None:
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
        self.out = FULL_MASK & ~hand & ~played
        """Cards the other seats may hold (or a hidden talon)."""
        self.married = _marriage_cards(hand)
        self.friends: tuple[int, ...] = (
            ()
            if seat == declarer or len(active) < 3
            else tuple(s for s in active if s not in (seat, declarer))
        )

    def out_for(self, seat: int) -> int:
        return self.out & ~self.voids.get(seat, 0)

    def after_me(self) -> tuple[int, ...]:
        """Seats still to play in this trick after this seat."""
        n = len(self.active)
        if not self.trick:
            start = self.active.index(self.seat)
            return tuple(self.active[(start + k) % n] for k in range(1, n))
        leader = self.trick[0][0]
        start = self.active.index(leader)
        order = [self.active[(start + k) % n] for k in range(n)]
        return tuple(order[len(self.trick) + 1 :])


def knowledge_from_view(view: View, belief: Belief) -> Knowledge:
    assert view.viewer is not None and view.declarer is not None
    hand = 0
    for c in view.hand:
        hand |= 1 << c.index
    return Knowledge(
        seat=view.viewer,
        active=view.active,
        declarer=view.declarer,
        hand=hand,
        trick=[(s, c.index) for s, c in view.trick],
        trump=None if view.trump is None else int(view.trump),
        played=belief.played_mask(),
        voids=belief.voids(view.rules.must_beat),
        rules=view.rules,
    )


def knowledge_from_deal(deal: Deal, seat: int) -> Knowledge:
    """The acting seat's knowledge in a simulated deal (its own cards and the public plays only)."""
    played = 0
    for m in deal.won:
        played |= m
    trick = [(s, c.index) for s, c in deal.trick_cards()]
    for _, i in trick:
        played |= 1 << i
    declarer = deal.declarer
    assert declarer is not None
    return Knowledge(
        seat=seat,
        active=deal.active,
        declarer=declarer,
        hand=deal.hands[seat],
        trick=trick,
        trump=None if deal.trump is None else int(deal.trump),
        played=played & FULL_MASK,
        voids={},
        rules=deal.rules,
    )


# ---------------------------------------------------------------------------------------- card play


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
    return min(indices(legal), key=lambda i: (_keep_value(k, i), i))


def _highest_dump(k: Knowledge, legal: int) -> int:
    """The most points worth giving to a partner's trick (not a master nor a marriage card, if possible)."""
    cards = indices(legal)
    marriage = k.married
    plain = [i for i in cards if not _master(k, i) and not marriage >> i & 1 and i // 6 != k.trump]
    if plain:
        return max(plain, key=lambda i: (CARD_POINTS[i], -i))
    return _lowest(k, legal)


def _could_beat(k: Knowledge, seat: int, index: int, lead_suit: int) -> bool:
    """Whether ``seat`` (still to play) might beat ``index``, the best card of the trick so far."""
    out = k.out_for(seat)
    suit = index // 6
    if above(index) & out:
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
    enemies = [s for s in k.active if s != k.seat and s not in k.friends]
    for s in range(4):
        mine = hand & SUIT_MASKS[s]
        if not mine or s == trump:
            continue
        top = best_in(mine)
        if not _master(k, top):
            continue
        left = (out & SUIT_MASKS[s]).bit_count()
        risky = False
        if trump is not None and out & SUIT_MASKS[trump]:
            for e in enemies:
                if k.voids.get(e, 0) & SUIT_MASKS[s] == SUIT_MASKS[s] and k.out_for(e) & SUIT_MASKS[trump]:
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
    cards = indices(hand)
    if not declarer:
        # A defender without a sure winner leads high (not from a marriage): it makes the declarer spend
        # its high cards, and a partner behind the declarer may win the trick.
        plain = [i for i in cards if not k.married >> i & 1] or cards
        return max(plain, key=lambda i: (i % 6, -(i // 6))), False
    # The declarer without a sure winner loses the lead cheaply, from a short suit, keeping marriages,
    # masters and tens.

    def lead_cost(i: int) -> tuple[float, int]:
        cost = _keep_value(k, i)
        rank = i % 6
        if rank == TEN and (out >> (i + 1) & 1):
            cost += 15.0  # a ten led while the ace is out is usually lost
        if rank in (KING, QUEEN) and (out & MARRIAGE_MASKS[i // 6]):
            cost += 3.0
        return cost, i

    return min(cards, key=lead_cost), False


def _follow(k: Knowledge, legal: int) -> int:
    trick = k.trick
    trump = k.trump
    lead_suit = trick[0][1] // 6
    pos = trick_winner(trick, trump)
    win_seat, best = trick[pos]
    after = k.after_me()
    friends = k.friends
    enemies_after = [s for s in after if s not in friends]
    friend_winning = win_seat in friends
    cards = indices(legal)
    winners = [i for i in cards if beats(i, best, trump)]

    if friend_winning:
        holds = not any(_could_beat(k, s, best, lead_suit) for s in enemies_after)
        if holds:
            # Overtake only by following suit (it banks the points for this seat), else give points.
            own = [i for i in winners if i // 6 == lead_suit and i // 6 != trump]
            if own and not enemies_after:
                return max(own, key=lambda i: (CARD_POINTS[i], -i))
            return _highest_dump(k, legal)
        if not enemies_after:
            return _highest_dump(k, legal)
    safe = [i for i in winners if not any(_could_beat(k, s, i, lead_suit) for s in enemies_after)]
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
        return min(safe, key=lambda i: (i // 6 == trump, i % 6))
    # Cannot win for sure: lose as little as possible.
    return _lowest(k, legal)


# ---------------------------------------------------------------------------------------- bidding


@dataclass(frozen=True, slots=True)
class Tuning:
    """Thresholds of the heuristic (tuned by duplicate tournaments between variants)."""

    bid_margin: float = 35.0
    """How far below the estimated points the last bid must stay."""
    contract_margin: float = 12.0
    raise_confidence: float = 0.9
    redeal_below: float = 0.5
    """A declarer demands an available redeal when its chance to make the contract is below this."""
    rospis: bool = True
    """Concede (T-16) a hopeless contract when that hands the opponents less (see :func:`rospis_pays`)."""
    weak_hand_redeal: bool = True
    """Demand the weak-hand redeal (T-13) when the opponents' gain counts (``relative`` >= 0.3)."""


TUNING = Tuning()


def max_bid(rules: Rules, hand: int, tuning: Tuning = TUNING) -> int:
    mean, _ = estimate_declarer_points(rules, hand, "bid")
    return int((mean - tuning.bid_margin) // 5 * 5)


def choose_auction(
    rules: Rules,
    hand: int,
    legal: tuple[Action, ...],
    relative: float,
    tuning: Tuning = TUNING,
) -> Action:
    bids = [a for a in legal if isinstance(a, Bid)]
    passes = [a for a in legal if isinstance(a, Pass)]
    redeals = [a for a in legal if isinstance(a, DemandRedeal)]
    limit = max_bid(rules, hand, tuning)
    if redeals and relative >= 0.3 and tuning.weak_hand_redeal and limit < 90:
        return redeals[0]
    if bids and bids[0].value <= limit:
        return bids[0]
    if passes:
        return passes[0]
    return bids[0] if bids else legal[0]


# ---------------------------------------------------------------------------------------- exchange


def give_order(hand: int) -> list[int]:
    """The declarer's cards from the first to give away to the last (T-14, T-5)."""
    marriages = _marriage_cards(hand)
    best_suit = -1
    for s in range(4):
        if marriages & MARRIAGE_MASKS[s]:
            best_suit = s
    out = FULL_MASK & ~hand

    def keep(i: int) -> float:
        s = i // 6
        rank = i % 6
        value = float(CARD_POINTS[i])
        if marriages >> i & 1:
            value += 100.0
        if not above(i) & out:
            value += 30.0 if rank >= TEN else 8.0
        if s == best_suit:
            value += 20.0
        if rank in (KING, QUEEN) and not marriages >> i & 1:
            partner = 6 * s + (QUEEN if rank == KING else KING)
            if out >> partner & 1:
                value += 18.0  # it could complete an opponent's marriage
        n = (hand & SUIT_MASKS[s]).bit_count()
        if n == 1 and rank < TEN:
            value -= 4.0  # giving a singleton makes a void
        value += n * 0.8
        return value

    return sorted(indices(hand), key=lambda i: (keep(i), i))


def choose_exchange(
    hand: int, legal: tuple[Action, ...], auction: tuple[tuple[int, int | None], ...]
) -> Action:
    """The next card to give (T-14) or discard (T-5): the least useful first.

    Of two opponents, the weaker one (by its last bid: it passed early or bid little) gets the card that
    could help (points, a king or queen), the stronger one a harmless nine or jack. With two players the
    card given to the opponent goes first and the discard (to the talon the last trick takes) second.
    """
    order = give_order(hand)
    gives = [a for a in legal if isinstance(a, GiveCard)]
    discards = [a for a in legal if isinstance(a, DiscardCard)]
    card = order[0]
    if gives:
        receivers = sorted({a.to for a in gives})
        to = receivers[0]
        if len(receivers) > 1:
            strength = {r: max((b or 0 for s, b in auction if s == r), default=0) for r in receivers}
            weak, strong = sorted(receivers, key=lambda r: (strength[r], r))
            to = strong if CARD_POINTS[card] <= 2 and card % 6 not in (KING, QUEEN) else weak
        for g in gives:
            if g.card.index == card and g.to == to:
                return g
    for d in discards:
        if d.card.index == card:
            return d
    return legal[0]


# ---------------------------------------------------------------------------------------- contract


def rospis_pays(mean: float, sigma: float, contract: int, relative: float) -> bool:
    """T-16: whether conceding beats playing a contract that is as good as lost.

    Either way the declarer writes minus the contract; conceding hands each opponent half of it (rounded up
    to 5) instead of the points they would take, and spares a bolt. It pays when the contract is hopeless
    and the opponents would take more than that half (the declarer takes little, they have marriages).
    """
    if relative <= 0 or chance_at_least(mean, sigma, contract) > 0.02:
        return False
    share = -(-contract // 10) * 5
    opponents = (120 - mean) / 2 + 10  # the card points left, plus what their marriages add on average
    return opponents > share


def choose_contract(
    rules: Rules, hand: int, bid: int, legal: tuple[Action, ...], *, relative: float, tuning: Tuning = TUNING
) -> Action:
    contracts = [a for a in legal if isinstance(a, NameContract)]
    redeals = [a for a in legal if isinstance(a, DemandRedeal)]
    mean, sigma = estimate_declarer_points(rules, hand, "play")
    if redeals and chance_at_least(mean, sigma, bid) < tuning.redeal_below:
        return redeals[0]
    concede = next((a for a in legal if isinstance(a, Concede)), None)
    if concede is not None and tuning.rospis and rospis_pays(mean, sigma, bid, relative):
        return concede
    if not contracts:
        return legal[0]
    best = contracts[0]
    for a in contracts:
        if chance_at_least(mean, sigma, a.value) >= tuning.raise_confidence and a.value > best.value:
            best = a
    return best


# ---------------------------------------------------------------------------------------- the strategy


def _mask(cards: tuple[Card, ...]) -> int:
    mask = 0
    for c in cards:
        mask |= 1 << c.index
    return mask


def _play_masks(legal: tuple[Action, ...]) -> tuple[int, int]:
    plain = 0
    marriage = 0
    for a in legal:
        if isinstance(a, PlayCard):
            if a.marriage:
                marriage |= 1 << a.card.index
            else:
                plain |= 1 << a.card.index
    return plain, marriage


def _play_action(index: int, marriage: bool) -> PlayCard:
    return PLAY_MARRIAGE[index] if marriage else PLAY[index]


def decide(
    rules: Rules,
    phase: Phase,
    hand: int,
    legal: tuple[Action, ...],
    *,
    bid: int,
    auction: tuple[tuple[int, int | None], ...],
    knowledge: Knowledge | None,
    relative: float,
    rng: random.Random,
    tuning: Tuning = TUNING,
) -> Action:
    """The heuristic's action at any decision, from the seat's hand and (in play) what it knows."""
    if len(legal) == 1:
        return legal[0]
    first = legal[0]
    if isinstance(first, DeclareDark | DeclineDark):
        return next(a for a in legal if isinstance(a, DeclineDark))
    if isinstance(first, ChooseTalon):
        return rng.choice(legal)
    if phase is Phase.AUCTION:
        return choose_auction(rules, hand, legal, relative, tuning)
    if phase is Phase.EXCHANGE:
        redeals = [a for a in legal if isinstance(a, DemandRedeal)]
        if bid:
            mean, sigma = estimate_after_exchange(rules, hand)
            if redeals and chance_at_least(mean, sigma, bid) < tuning.redeal_below:
                return redeals[0]
            concede = next((a for a in legal if isinstance(a, Concede)), None)
            if concede is not None and tuning.rospis and rospis_pays(mean, sigma, bid, relative):
                return concede
        return choose_exchange(hand, legal, auction)
    if phase is Phase.CONTRACT:
        return choose_contract(rules, hand, bid, legal, relative=relative, tuning=tuning)
    # Play.
    plain, marriage = _play_masks(legal)
    if not plain and not marriage:
        return legal[0]
    redeal = next((a for a in legal if isinstance(a, DemandRedeal)), None)
    if redeal is not None and redeal.reason is RedealReason.FOUR_NINES and relative >= 0.3:
        return redeal
    assert knowledge is not None
    index, declare = choose_play(knowledge, plain | marriage, marriage)
    return _play_action(index, declare)


class HeuristicStrategy:
    """The rule-based player; see the module docstring."""

    name = "heuristic"

    def __init__(self, options: StrategyOptions | None = None, tuning: Tuning = TUNING) -> None:
        self.options = options or StrategyOptions()
        self._rng = random.Random(self.options.seed) if self.options.seed is not None else None
        self._belief: Belief | None = None
        self.tuning = tuning

    def observe(self, view: View) -> None:
        if view.viewer is None:
            return
        if self._belief is None or self._belief.seat != view.viewer:
            self._belief = Belief(view.viewer)
        self._belief.update(view)

    def choose(self, view: View, rng: random.Random) -> Action:
        self.observe(view)
        assert self._belief is not None and view.phase is not None and view.viewer is not None
        legal = view.legal_actions
        knowledge = knowledge_from_view(view, self._belief) if view.phase is Phase.PLAY else None
        return decide(
            view.rules,
            view.phase,
            _mask(view.hand),
            legal,
            bid=view.bid or 0,
            auction=view.auction,
            knowledge=knowledge,
            relative=self.options.relative,
            rng=self._rng or rng,
            tuning=self.tuning,
        )


def rollout_action(deal: Deal, rng: random.Random, relative: float, tuning: Tuning = TUNING) -> Action:
    """The heuristic's action for the seat to act in a simulated deal (it uses that seat's knowledge only)."""
    seat = deal.to_act
    assert seat is not None
    legal = deal.legal_actions()
    if len(legal) == 1:
        return legal[0]
    phase = deal.phase
    if phase is Phase.PLAY:
        plain = marriage = 0
        for a in legal:
            if type(a) is PlayCard:
                if a.marriage:
                    marriage |= 1 << a.card.index
                else:
                    plain |= 1 << a.card.index
            elif type(a) is DemandRedeal and relative >= 0.3:
                return a
        index, declare = choose_play(knowledge_from_deal(deal, seat), plain | marriage, marriage)
        return PLAY_MARRIAGE[index] if declare else PLAY[index]
    return decide(
        deal.rules,
        phase,
        deal.hands[seat],
        legal,
        bid=deal.bid,
        auction=tuple(deal.auction),
        knowledge=None,
        relative=relative,
        rng=rng,
        tuning=tuning,
    )
