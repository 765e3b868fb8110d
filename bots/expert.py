"""``expert``: Thousand's strongest strategy here: ISMCTS with card play solved exactly over sampled worlds
near the end, the contract by expectation, and an equity that reads the score sheet.

- **Auction**: ISMCTS's (the heuristic's bid, overridden by paired rollouts when clearly worse) except where
  the score sheet decides (T-25 to T-29): on the barrel only a contract that reaches 1000 wins anything (and
  the game), so it bids that at once or passes; an opponent on the barrel who bid what he needs is outbid
  while that costs less than the game. Those bids are valued exactly over the talons: the bidder faces
  C(17, 3) = 680 of them, and for each the hand with the talon, less the two cards
  :func:`~bots.heuristic.give_order` gives away, is valued by the play model of :mod:`bots.valuation`; the
  value of declaring at a bid is the mean over the 680 of the best contract then (or rospis, T-16). Bidding
  to that value everywhere (:func:`bid_limit` with :data:`PASS_VALUE`) measured worse than ISMCTS's auction.
- **Contract**: the contract with the best expectation for the hand after the exchange, with the same
  equity (a higher contract only while its chance pays for it; a contract that would leave the score at 555
  is worth the score it would lose; the barrel as above).
- **Card play**: ISMCTS (:mod:`bots.ismcts`) while many cards remain; once the seat holds at most
  :data:`SOLVE_CARDS` cards (more with a bigger budget) every sampled world is solved exactly
  (:mod:`bots.solver`) and the card with the best mean utility over the worlds is played (perfect
  information Monte Carlo). The worlds are sampled consistent with everything seen (:mod:`bots.worlds`) and
  weighed by how well the heuristic's bidding explains the others' bids (ISMCTS's plausibility filter).
- **Exchange, redeals, rospis, two players**: ISMCTS's paired rollouts, as ``ismcts`` plays them.
- **Utility**: every search (the card play's tree, the paired rollouts, the solved endgame) values a deal
  by what it writes on the score sheet (:mod:`bots.sheet_utility`): on the barrel a made contract that
  reaches 1000 is the game, landing on 555 loses the score, reaching 1000 ends the game (T-26 to T-29).
"""

from __future__ import annotations

import itertools
import math
import random
import time

from bots.cardlib import marriage_points_of
from bots.heuristic import TUNING, Tuning, give_order
from bots.inference import PlayModel
from bots.ismcts import MAX_WORLDS, IsmctsStrategy, _Search, search_deadline
from bots.sheet_utility import WIN_VALUE, Sheet, Utility, declarer_stake, sheet_utility_of
from bots.solver import SolverTimeoutError, move_values
from bots.strategy import StrategyOptions
from bots.valuation import chance_at_least, estimate_declarer_points
from bots.worlds import WorldSampler
from engine import Action, Bid, Concede, NameContract, Pass, Phase, PlayCard, Rules, View
from engine.actions import PLAY, PLAY_MARRIAGE
from engine.deal import Deal
from engine.events import DealKind
from engine.rules import GOAL, SAMOSVAL

SOLVE_CARDS = 5
"""Cards in hand from which card play is solved exactly over sampled worlds (at a 50 ms budget; one more
from 150 ms): with five cards a solve takes about 3 ms (bench/solver.py), so about ten worlds fit."""
PASS_VALUE = 10.0
"""What passing is worth to a seat's utility on average (a defender's points less its share of the
declarer's gain, at ``relative`` 0.5): a bid must beat it."""


def _contract_ev(rules: Rules, c: int, p: float, score: int, on_barrel: bool) -> float:
    """The equity of declaring contract ``c`` made with chance ``p``, for a seat with ``score``."""
    if on_barrel:
        made = WIN_VALUE if score + c >= GOAL else 0.0
        return p * made - (1.0 - p) * c
    gain = float(c)
    if rules.samosval and score + c == SAMOSVAL:
        gain = -float(score)  # T-29: landing on 555 resets the score
    elif rules.samosval and score - c == SAMOSVAL:
        return p * gain + (1.0 - p) * -float(score)
    return p * gain - (1.0 - p) * c


def best_contract(  # noqa: PLR0917 - one contract question, its seven facts
    rules: Rules, mean: float, sigma: float, low: int, cap: int, score: int, on_barrel: bool
) -> tuple[int | None, float]:
    """(the contract with the best equity from ``low`` to ``cap``, or None for rospis; its equity)."""
    best: int | None = None
    value = -float(low)  # rospis: the declarer writes minus the bid (T-16)
    for c in range(low, max(low, cap) + 1, 5):
        ev = _contract_ev(rules, c, chance_at_least(mean, sigma, c), score, on_barrel)
        if ev > value:
            best, value = c, ev
    return best, value


TalonRow = tuple[float, float, int, int, float]
_TALONS: dict[tuple[Rules, int], tuple[TalonRow, ...]] = {}
_TALONS_KEPT = 256


class OutOfTimeError(Exception):
    """The decision's deadline passed before every talon was valued (the caller falls back)."""


def talon_estimates(rules: Rules, hand: int, deadline: float = math.inf) -> tuple[TalonRow, ...]:
    """For each talon the bidder may find (every 3 of the cards it does not hold): the declarer's expected
    points and their spread after the exchange, its contract cap (T-9) with the cards it keeps, and the
    contract with the best plain expectation (2p - 1) c from 100 with that expectation. Kept for the next
    decisions of the auction; computing them (about 30 ms) stops at ``deadline`` (``perf_counter``).

    :raises OutOfTimeError: when ``deadline`` passes first.
    """
    known = _TALONS.get((rules, hand))
    if known is not None:
        return known
    unseen = [i for i in range(24) if not hand >> i & 1]
    out: list[TalonRow] = []
    for k, talon in enumerate(itertools.combinations(unseen, 3)):
        if not k % 64 and time.perf_counter() > deadline:
            raise OutOfTimeError
        full = hand | (1 << talon[0]) | (1 << talon[1]) | (1 << talon[2])
        kept = full
        for i in give_order(full)[:2]:
            kept &= ~(1 << i)
        mean, sigma = estimate_declarer_points(rules, kept, "play")
        cap = 120 + marriage_points_of(kept)
        best, value = 100, -100.0
        for c in range(100, cap + 1, 5):
            ev = (2.0 * chance_at_least(mean, sigma, c) - 1.0) * c
            if ev > value:
                best, value = c, ev
            elif c > mean + 2 * sigma:
                break
        out.append((mean, sigma, cap, best, value))
    if len(_TALONS) >= _TALONS_KEPT:
        _TALONS.clear()
    result = _TALONS[(rules, hand)] = tuple(out)
    return result


def declaring_value(rules: Rules, hand: int, bid: int, score: int, on_barrel: bool) -> float:
    """The mean equity over every talon of declaring at ``bid`` (then naming the best contract; on the
    barrel, the contract that reaches 1000)."""
    total = 0.0
    estimates = talon_estimates(rules, hand)
    for mean, sigma, cap, best, value in estimates:
        if on_barrel:
            p = chance_at_least(mean, sigma, bid)
            ev = _contract_ev(rules, bid, p, score, True) if bid <= cap else -float(bid)
            total += max(ev, -float(bid))
        elif bid <= best:
            total += value
        elif bid <= cap:
            total += max((2.0 * chance_at_least(mean, sigma, bid) - 1.0) * bid, -float(bid))
        else:
            total -= bid  # a bid above what the kept cards allow to contract: rospis at best
    return total / len(estimates)


def bid_limit(rules: Rules, hand: int, score: int, on_barrel: bool, margin: float = PASS_VALUE) -> int:
    """The highest bid whose declaring value beats passing (99: none)."""
    cap = 120 + marriage_points_of(hand) if rules.bid_cap.value != "none" else 400
    if on_barrel:
        need = -(-(GOAL - score) // 5) * 5
        if need > cap:
            return 99
        return need if declaring_value(rules, hand, need, score, True) > margin else 99
    limit = 99
    lo, hi = 100, cap
    # The value falls as the bid rises: find the highest bid that still pays by bisection on the 5s.
    while lo <= hi:
        mid = (lo + hi) // 2 // 5 * 5
        mid = max(mid, lo)
        if declaring_value(rules, hand, mid, score, False) > margin:
            limit = mid
            lo = mid + 5
        else:
            hi = mid - 5
    return limit


class ExpertStrategy(IsmctsStrategy):
    """See the module docstring."""

    name = "expert"

    def __init__(self, options: StrategyOptions | None = None, tuning: Tuning = TUNING) -> None:
        super().__init__(options, tuning)
        self._begun = 0.0
        self._now_rng = random.Random(0)
        self.infer = True
        """Whether solved worlds are weighed by how likely they make the others' plays (bots.inference)."""
        self.infer_tree = False
        """Whether card play's worlds are sampled in proportion to that likelihood (by rejection), for the
        tree search and the solved worlds alike (the solved worlds then weigh 1 each)."""
        self.solve_cards = SOLVE_CARDS
        self.read_sheet = True
        """Whether the searches value a deal by the score sheet (:mod:`bots.sheet_utility`) rather than by
        the deal's points alone, as ``ismcts`` does."""

    def choose(self, view: View, rng: random.Random) -> Action:
        begun = self._begun = time.perf_counter()
        self._now_rng = self._rng or rng
        legal = view.legal_actions
        if len(legal) == 1:
            self.observe(view)
            return legal[0]
        me = view.viewer
        assert me is not None
        record = view.scores[me]
        if view.phase is Phase.AUCTION and view.rules.players != 2 and any(isinstance(a, Bid) for a in legal):
            self.observe(view)
            action = self._auction(view, record.score, record.on_barrel)
            if action is not None:
                return action
        if view.phase is Phase.CONTRACT:
            self.observe(view)
            action = self._contract(view, record.score, record.on_barrel)
            if action is not None:
                return action
        if view.phase is Phase.PLAY and len(view.hand) <= self._solve_cards():
            self.observe(view)
            action = self._solved_play(view, rng, begun)
            if action is not None:
                return action
        return super().choose(view, rng)

    def _sheet(self, view: View) -> Sheet | None:
        """The score sheet the searches read, or None to value deals by their points (``read_sheet`` off)."""
        return Sheet.of(view.rules, view) if self.read_sheet else None

    def _utility(self, view: View) -> Utility | None:
        sheet = self._sheet(view)
        return sheet_utility_of(sheet, self.options.relative) if sheet is not None else None

    def _search(self, view: View, sampler: WorldSampler, rng: random.Random, begun: float) -> _Search:
        utility = self._utility(view)
        if self.infer_tree and view.phase is Phase.PLAY:
            model = PlayModel(sampler.facts)
            if model.events:
                return _InferringSearch(
                    view,
                    sampler,
                    rng,
                    self.options,
                    tuning=self.tuning,
                    start=begun,
                    model=model,
                    utility=utility,
                )
        return _Search(view, sampler, rng, self.options, tuning=self.tuning, start=begun, utility=utility)

    def _grace(self) -> float:
        """Extra seconds the first world's solve may take past the search's deadline (a fifth of the
        budget's reserve): without one solved world the decision falls back to ISMCTS."""
        budget = self.options.budget_ms
        return budget / 1000.0 * 0.05 if budget > 0 else math.inf

    def _solve_cards(self) -> int:
        budget = self.options.budget_ms
        return self.solve_cards + (1 if budget >= 150 or budget <= 0 else 0)

    # ------------------------------------------------------------------ auction and contract

    def _auction(self, view: View, score: int, on_barrel: bool) -> Action | None:
        """The score sheet's auction: on the barrel, bid what leaving it needs or pass; against an opponent
        on the barrel who bid what he needs, outbid him while that costs less than the game. Elsewhere None:
        ISMCTS's auction (the heuristic's bid, overridden by paired rollouts when clearly worse), which
        measured better than bidding to the talons' expectation alone (see clients/bots/README.md)."""
        deny = self._deny_barrel(view)
        if not on_barrel and deny == 99:
            return None
        legal = view.legal_actions
        hand = sum(1 << c.index for c in view.hand)
        try:
            talon_estimates(view.rules, hand, search_deadline(self._begun, self.options.budget_ms, self._due))
        except OutOfTimeError:  # a short deadline: the heuristic's bid, from its one-line valuation
            return self._heuristic.choose(view, self._now_rng)
        limit = max(bid_limit(view.rules, hand, score, on_barrel), deny)
        bids = [a for a in legal if isinstance(a, Bid)]
        passes = [a for a in legal if isinstance(a, Pass)]
        if on_barrel and bids and limit >= bids[0].value:
            # Jump straight to what leaving the barrel needs: a lower contract wins nothing (T-27).
            return next((b for b in bids if b.value >= limit), bids[-1])
        if bids and bids[0].value <= limit:
            return bids[0]
        if passes:
            return passes[0]
        return bids[0] if bids else legal[0]

    def _deny_barrel(self, view: View) -> int:
        """A bid worth making to stop an opponent on the barrel who bid what he needs to win (T-27)."""
        if view.high_bidder is None or view.high_bidder == view.viewer or view.high_bid is None:
            return 99
        line = view.scores[view.high_bidder]
        if line.on_barrel and line.score + view.high_bid >= GOAL:
            hand = sum(1 << c.index for c in view.hand)
            me = view.scores[view.viewer or 0]
            bid = view.high_bid + view.rules.bid_step
            # Worth it when declaring costs less than the game the opponent would likely win.
            if declaring_value(view.rules, hand, bid, me.score, me.on_barrel) > -WIN_VALUE / 2:
                return bid
        return 99

    def _contract(self, view: View, score: int, on_barrel: bool) -> Action | None:
        legal = view.legal_actions
        contracts = [a for a in legal if isinstance(a, NameContract)]
        if not contracts:
            return None
        hand = sum(1 << c.index for c in view.hand)
        mean, sigma = estimate_declarer_points(view.rules, hand, "play")
        low, cap = contracts[0].value, contracts[-1].value
        best, _ = best_contract(view.rules, mean, sigma, low, cap, score, on_barrel)
        if best is None:
            concede = next((a for a in legal if isinstance(a, Concede)), None)
            if concede is not None and chance_at_least(mean, sigma, low) < 0.02:
                return concede
            return None  # let the search weigh it (redeals, rospis) as ismcts does
        return next((a for a in contracts if a.value == best), contracts[0])

    # ------------------------------------------------------------------ card play solved over worlds

    def _solved_play(self, view: View, rng: random.Random, begun: float) -> Action | None:
        assert self._belief is not None and view.viewer is not None
        if self._belief.degraded or view.declarer is None or view.contract is None:
            return None
        rng = self._rng or rng
        sampler = WorldSampler(view, self._belief)
        search = self._search(view, sampler, rng, begun)
        deadline = min(search.deadline, search_deadline(begun, self.options.budget_ms, self._due))
        me = view.viewer
        declarer = view.declarer
        contract = view.contract
        model = PlayModel(sampler.facts) if self.infer and not self.infer_tree else None
        # What the declarer's side plays for, made or not: +-contract on a fresh sheet, the game on the
        # barrel, a lost score on 555 (bots.sheet_utility); the solver's points break ties in proportion.
        sheet = self._sheet(view)
        if sheet is not None:
            obligatory = view.kind is DealKind.OBLIGATORY
            won, lost = declarer_stake(sheet, declarer, contract, view.active, obligatory)
        else:
            won, lost = float(contract), -float(contract)
        tie = 0.05 * (won - lost) / (2 * contract)
        totals: dict[tuple[int, bool], float] = {}
        worlds = 0
        while worlds < MAX_WORLDS and (worlds == 0 or time.perf_counter() < deadline):
            if self.options.iterations is not None and worlds >= self.options.iterations:
                break
            deal = search.world(worlds)
            if deal is None:
                break
            try:
                values = move_values(deal, deadline if worlds else deadline + self._grace())
            except SolverTimeoutError:
                break
            w = model.weight(deal) if model is not None else 1.0
            for move, v in values.items():
                u = w * ((won if v >= contract else lost) + tie * v)
                totals[move] = totals.get(move, 0.0) + (u if me == declarer else -u)
            worlds += 1
        self.stats.worlds = worlds
        self.stats.iterations = worlds
        self.stats.seconds = time.perf_counter() - begun
        if not totals:
            return None
        index, marriage = max(totals, key=lambda m: (totals[m], m))
        action: PlayCard = (PLAY_MARRIAGE if marriage else PLAY)[index]
        return action if action in view.legal_actions else None


class _InferringSearch(_Search):
    """A search whose worlds are kept with the chance the play model gives them (rejection sampling)."""

    def __init__(
        self,
        view: View,
        sampler: WorldSampler,
        rng: random.Random,
        options: StrategyOptions,
        *,
        tuning: Tuning,
        start: float,
        model: PlayModel,
        utility: Utility | None = None,
    ) -> None:
        super().__init__(view, sampler, rng, options, tuning=tuning, start=start, utility=utility)
        self.model = model

    def accept(self, deal: Deal, attempt: int) -> bool:
        if attempt >= 3:
            return True
        if not self._plausible(deal):
            return False
        return self.rng.random() < self.model.weight(deal)
