"""``heuristic``: a rule-based player of Thousand that sees only its seat's view (T-33).

- **Auction**: the hand is valued by :func:`~bots.valuation.estimate_declarer_points`, a linear model
  of the points the declarer takes with this player's own exchange and card play (fitted offline by
  self-play, see :mod:`bots.valuation`), which covers sure tricks, marriages and the expected talon.
  It bids on while the next bid stays below the estimate less a safety margin; the bid cap of T-9 is the
  engine's (the legal list).
- **The score sheet** (what a whole game adds to a deal; read from the seat's view, absent in a simulated
  deal): on the barrel (T-27) only a made contract that reaches 1000 counts, a failed one is a fall, and every
  deal spent defending there is one of three. So there the bot bids on from the contract that leaves the
  barrel to the highest one the hand makes often enough (:func:`barrel_limit`,
  :attr:`Tuning.barrel_confidence`: far below the usual margin, since making it wins the game), passes with a
  hand that does not reach it, and as declarer names at least that contract rather than a smaller one which
  would score nothing. Bidding as elsewhere, it sat on the barrel until it fell: over whole games in
  duplicate with greedy and random (80 sets), this alone took its final score from 687 to 827 a game and
  greedy's from 867 down to 760.
- **Redeals**: a weak hand, four nines or a weak talon are given back when the deal is worth less than
  nothing to this seat (``relative`` > 0 counts the opponents' gain), or when the contract looks lost.
- **Exchange**: keeps marriages, masters (aces, guarded tens) and the trump suit; gives away cards that
  cannot win, preferably making a void, and never a king or queen that could complete an opponent's marriage.
- **Contract**: raises to what the hand after the talon clearly makes; concedes (rospis) only a hopeless
  contract that would hand the opponents more than their rospis share.
- **Card play** (:mod:`bots.card_play`): declares marriages as soon as allowed (the biggest first),
  draws trumps as declarer, cashes masters, wins tricks cheaply, banks points that could be lost later, and
  defends as a team while the contract is open: a defender gives points to a partner who holds the trick and
  starves the declarer of them. Once the contract is settled (made, or out of the declarer's reach) each
  defender writes only its own points (T-24), so the defenders play each for itself; a defender without a
  trick yet tries for one (a bolt, T-25).

This module holds the bidding, exchange and contract decisions and the strategy that joins them. The same
decisions drive the ISMCTS rollouts (:func:`rollout_action`), computed straight from a live
``engine.Deal`` with only what the acting seat could know.
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from typing import Final

from bots.belief import Belief
from bots.card_play import Knowledge, choose_play, knowledge_from_deal, knowledge_from_view
from bots.cardlib import (
    CARD_POINTS,
    KING,
    MARRIAGE_MASKS,
    QUEEN,
    SUIT_MASKS,
    TEN,
    above,
    indices,
    marriage_cards,
)
from bots.strategy import StrategyOptions
from bots.valuation import chance_at_least, estimate_declarer_points
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
    View,
)
from engine.actions import PLAY, PLAY_MARRIAGE
from engine.cards import FULL_MASK, Card
from engine.deal import Deal
from engine.legal_tables import REDEAL_FOUR_NINES
from engine.rules import GOAL

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
    barrel_confidence: float = 0.2
    """On the barrel (T-27), the chance of making a contract (from the one that leaves it up) at which the bot
    still bids it: making it wins the game, failing costs the contract (a fall), and not declaring costs a
    barrel deal of three. Of 0.15 to 0.4, measured in whole games with greedy and random, 0.2 or less won."""


TUNING = Tuning()


def max_bid(rules: Rules, hand: int, tuning: Tuning = TUNING) -> int:
    mean, _ = estimate_declarer_points(rules, hand, "bid")
    return int((mean - tuning.bid_margin) // 5 * 5)


def barrel_limit(rules: Rules, hand: int, needed: int, tuning: Tuning = TUNING) -> int:
    """The highest bid worth making on the barrel (T-27), where only a made contract of ``needed`` or more
    counts (it wins the game) and any failed one is a fall: the highest from ``needed`` up that the hand
    makes often enough (:attr:`Tuning.barrel_confidence`), else nothing (0: pass). Outbidding an opponent
    beyond ``needed`` is worth the same risk, since a deal spent defending on the barrel scores nothing."""
    mean, sigma = estimate_declarer_points(rules, hand, "bid")
    limit = 0
    bid = needed
    while chance_at_least(mean, sigma, bid) >= tuning.barrel_confidence:
        limit = bid
        bid += 5
    return limit


def choose_auction(
    rules: Rules,
    hand: int,
    legal: tuple[Action, ...],
    relative: float,
    tuning: Tuning = TUNING,
    *,
    needed: int | None = None,
) -> Action:
    """Bid the next bid while it stays within the hand's limit, else pass (or demand a weak-hand redeal).

    ``needed`` is the contract that takes the seat off the barrel to the goal (None: not on the barrel);
    there the limit is :func:`barrel_limit`'s, since a smaller contract scores nothing even when made.
    """
    bids = [a for a in legal if isinstance(a, Bid)]
    passes = [a for a in legal if isinstance(a, Pass)]
    redeals = [a for a in legal if isinstance(a, DemandRedeal)]
    limit = max_bid(rules, hand, tuning) if needed is None else barrel_limit(rules, hand, needed, tuning)
    if redeals and relative >= 0.3 and tuning.weak_hand_redeal and limit < 90:
        return redeals[0]
    if bids and bids[0].value <= limit:
        return bids[0]
    if passes:
        return passes[0]
    return bids[0] if bids else legal[0]


# ---------------------------------------------------------------------------------------- exchange


_GIVE_ORDERS: dict[int, tuple[int, ...]] = {}
""":func:`give_order` by hand, already worked out (a search sorts the same hands over and over); emptied when
it reaches :data:`_GIVE_ORDERS_MAX` entries."""
_GIVE_ORDERS_MAX = 1 << 12


def give_order(hand: int) -> list[int]:
    """The declarer's cards from the first to give away to the last (T-14, T-5)."""
    order = _GIVE_ORDERS.get(hand)
    if order is None:
        if len(_GIVE_ORDERS) >= _GIVE_ORDERS_MAX:
            _GIVE_ORDERS.clear()
        order = _GIVE_ORDERS[hand] = tuple(_give_order(hand))
    return list(order)


def _give_order(hand: int) -> list[int]:
    marriages = marriage_cards(hand)
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


def estimate_after_exchange(rules: Rules, hand: int) -> tuple[float, float]:
    """The declarer's expected points with the talon taken, once it has given away its worst cards."""
    kept = hand
    for i in give_order(hand)[:2]:  # two cards leave the declarer's hand in every variant
        kept &= ~(1 << i)
    return estimate_declarer_points(rules, kept, "play")


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
    rules: Rules,
    hand: int,
    bid: int,
    legal: tuple[Action, ...],
    *,
    relative: float,
    tuning: Tuning = TUNING,
    needed: int | None = None,
) -> Action:
    """The contract to name (T-15): the highest the hand clearly makes, at least the bid.

    On the barrel (``needed``: the contract that reaches the goal) a smaller contract scores nothing when
    made and falls when failed, so the declarer names ``needed`` when it may (a forced 100 included): failing
    it costs little more than failing the bid, and making it wins the game.
    """
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
    if needed is not None and best.value < needed:
        best = next((a for a in contracts if a.value >= needed), best)
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
    needed: int | None = None,
) -> Action:
    """The heuristic's action at any decision, from the seat's hand and (in play) what it knows.

    ``needed`` is what the score sheet adds (None in a simulated deal, which has no sheet): the contract that
    takes this seat off the barrel (:func:`needed_to_leave_barrel`)."""
    if len(legal) == 1:
        return legal[0]
    first = legal[0]
    if isinstance(first, DeclareDark | DeclineDark):
        return next(a for a in legal if isinstance(a, DeclineDark))
    if isinstance(first, ChooseTalon):
        return rng.choice(legal)
    if phase is Phase.AUCTION:
        return choose_auction(rules, hand, legal, relative, tuning, needed=needed)
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
        return choose_contract(rules, hand, bid, legal, relative=relative, tuning=tuning, needed=needed)
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
            needed=needed_to_leave_barrel(view),
        )


def needed_to_leave_barrel(view: View) -> int | None:
    """The contract that takes the viewer from the barrel to the goal (T-26, T-27), a multiple of 5; None
    when the viewer is not on the barrel (or the table plays without one)."""
    if view.viewer is None or not view.rules.barrel:
        return None
    line = next((s for s in view.scores if s.seat == view.viewer), None)
    if line is None or not line.on_barrel:
        return None
    return -(-(GOAL - line.score) // 5) * 5


_PLAY: Final = Phase.PLAY
"""A module constant: cheaper to read than the enum's member at every card of every rollout."""


def rollout_action(deal: Deal, rng: random.Random, relative: float, tuning: Tuning = TUNING) -> Action:
    """The heuristic's action for the seat to act in a simulated deal (it uses that seat's knowledge only)."""
    seat = deal.to_act
    assert seat is not None
    phase = deal.phase
    if phase is _PLAY:
        # The cards by their masks (Deal.play_masks), without building the legal list: it holds a play of
        # each card of ``plays``, a marriage play of each card of ``marriages``, the concession before the
        # first card (T-16) and the redeal of a defender whose fourth nine came in the exchange (T-11).
        plays, marriages = deal.play_masks()
        redeal = deal.four_nines_receivers >> seat & 1
        if plays.bit_count() + marriages.bit_count() + redeal == 1 and (deal.tricks_played or deal.trick):
            return PLAY[plays.bit_length() - 1]  # the only legal action
        if redeal and relative >= 0.3:
            return REDEAL_FOUR_NINES
        index, declare = choose_play(knowledge_from_deal(deal, seat), plays, marriages)
        return PLAY_MARRIAGE[index] if declare else PLAY[index]
    legal = deal.legal_actions()
    if len(legal) == 1:
        return legal[0]
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
