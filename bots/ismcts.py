"""``ismcts``: information-set Monte Carlo tree search over determinized engine deals.

Every decision samples *worlds*, complete deals consistent with everything the seat knows
(:mod:`bots.worlds`, from a :class:`~bots.belief.Belief` fed by the seat's views), each one a
live ``engine.Deal`` rebuilt by replaying the deal's public history, so the simulated rules are the engine's.
A world is also weighed by how well it explains the other seats' bids: a world in which the heuristic would
not have made their bids and passes is mostly rejected (soft, so a surprising bidder is still covered).

- **Card play**: single-observer ISMCTS (Cowling, Powley & Whitehouse 2012). One tree over action histories
  from the seat's information set; each iteration takes a world, descends by UCB1 among the children
  compatible with that world (with availability counts), expands one action (the heuristic's choice first),
  finishes the deal with the heuristic as rollout policy and backs up each seat's utility at the nodes where
  that seat chose.
- **Auction, exchange, contract, rospis, redeals**: the few sensible candidates (the heuristic's choice, pass
  or the lowest bid, the best cards to give, a few contracts, conceding, a redeal) are each played out on the
  same worlds with heuristic rollouts (paired comparisons), and the search overrides the heuristic only when
  its advantage is clear against the noise.

A utility is the deal's score for a seat (:func:`engine.scoring.value_deal`) minus ``relative`` times the
mean score of the other seats that play it. ``budget_ms`` bounds the time of a decision, ``iterations`` the
number of iterations (a rollout each); with ``budget_ms <= 0`` and an iteration cap the search depends only on
its random generator, so it is reproducible.
"""

from __future__ import annotations

import math
import random
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import partial
from typing import Final

from bots.belief import Belief
from bots.card_play import choose_play, knowledge_from_deal
from bots.heuristic import (
    TUNING,
    HeuristicStrategy,
    Tuning,
    give_order,
    max_bid,
    needed_to_leave_barrel,
    rollout_action,
)
from bots.strategy import StrategyOptions
from bots.world_facts import voluntary_auction
from bots.worlds import WorldSampler, clone_deal
from engine import (
    Action,
    Bid,
    Concede,
    DemandRedeal,
    DiscardCard,
    GiveCard,
    NameContract,
    Pass,
    Phase,
    PlayCard,
    View,
)
from engine.actions import PLAY, PLAY_MARRIAGE
from engine.deal import Deal
from engine.scoring import value_deal

EXPLORATION = 0.7
"""UCB1 exploration constant, for utilities in units of :data:`SCALE` points."""
SCALE = 100.0
MAX_WORLDS = 48
"""Worlds sampled per decision; later iterations reuse them in turn."""
_PLAY: Final = Phase.PLAY
_OVER: Final = Phase.OVER
"""The phases as module constants: cheaper to read than the enum's members at every card of a rollout."""
OVERRIDE_Z = 1.5
"""Outside card play the search overrides the heuristic only when ahead by this many standard errors."""


@dataclass(slots=True)
class SearchStats:
    """What the last decision's search did (for benchmarks and tests)."""

    iterations: int = 0
    worlds: int = 0
    seconds: float = 0.0
    fallback: bool = False


def _key(action: Action) -> object:
    """A cheap dictionary key for an action (card plays hash slowly as dataclasses)."""
    if type(action) is PlayCard:
        return action.card.index * 2 + action.marriage
    return action


@dataclass(slots=True)
class Node:
    """A node of the single-observer tree: reached by ``action`` chosen by ``seat``."""

    seat: int
    action: Action | None
    children: dict[object, Node] = field(default_factory=dict)
    visits: int = 0
    avail: int = 1
    total: float = 0.0


def utilities(deal: Deal, relative: float) -> list[float]:
    """Each seat's utility of a finished deal, in points."""
    n = deal.rules.players
    if deal.outcome is None:  # a redeal: nobody scores
        return [0.0] * n
    base = value_deal(deal.rules, deal).base
    active = deal.active
    total = sum(base[s] for s in active)
    k = len(active) - 1
    out = [0.0] * n
    for s in active:
        out[s] = base[s] - relative * (total - base[s]) / k
    return out


def rollout(deal: Deal, rng: random.Random, relative: float, tuning: Tuning) -> None:
    """Play the deal to its end with the heuristic in every seat (:func:`bots.heuristic.rollout_action`).

    A card of a seat that may not demand a redeal is chosen here as ``rollout_action`` chooses it, without a
    call to it per card: the rollouts' card play is most of a search.
    """
    while True:
        phase = deal.phase
        if phase is _OVER:
            return
        seat = deal.to_act
        assert seat is not None
        action: Action
        if phase is _PLAY and not deal.four_nines_receivers >> seat & 1:
            plays, marriages = deal.play_masks()
            if not marriages and not plays & (plays - 1) and (deal.tricks_played or deal.trick):
                action = PLAY[plays.bit_length() - 1]  # the only legal action
            else:
                index, declare = choose_play(knowledge_from_deal(deal, seat), plays, marriages)
                action = PLAY_MARRIAGE[index] if declare else PLAY[index]
        else:
            action = rollout_action(deal, rng, relative, tuning)
        deal.apply_legal(seat, action, events=False)


RESERVE = 0.25
"""The share of a decision's budget kept back from the search: an iteration under way when the search's
deadline passes is finished, and the rest of the decision (the heuristic's default, sampling the last
world) takes time too; bench/search.py measures the decision time's p99 against the budget."""


def search_deadline(begun: float, budget_ms: float, due: float | None) -> float:
    """The ``perf_counter()`` instant a search begun at ``begun`` stops: the budget's end or the Turn's
    deadline (``due``, a ``time.monotonic()`` instant), whichever is first, less :data:`RESERVE`."""
    allowed = budget_ms / 1000.0 if budget_ms > 0 else math.inf
    if due is not None:
        allowed = min(allowed, max(0.0, due - time.monotonic() + (time.perf_counter() - begun)))
    return begun + allowed * (1.0 - RESERVE) if allowed != math.inf else math.inf


_SHEET_PHASES = frozenset({Phase.AUCTION, Phase.CONTRACT})
"""On the barrel (T-27) the heuristic's bid and contract stand: a search whose rollouts value a deal by its
points (a made 100 worth 100, a defence worth its points) would undo the rule that only a contract reaching
1000 counts there (:func:`bots.heuristic.barrel_limit`)."""


class IsmctsStrategy:
    """Information-set MCTS with heuristic rollouts; see the module docstring."""

    name = "ismcts"

    def __init__(
        self,
        options: StrategyOptions | None = None,
        tuning: Tuning = TUNING,
        phases: frozenset[Phase] = frozenset(Phase),
    ) -> None:
        self.options = options or StrategyOptions()
        self.tuning = tuning
        self.phases = phases
        """The phases in which to search; elsewhere the heuristic decides alone."""
        self._rng = random.Random(self.options.seed) if self.options.seed is not None else None
        self._belief: Belief | None = None
        self._heuristic = HeuristicStrategy(self.options, tuning)
        self.stats = SearchStats()
        self._due: float | None = None
        """The Turn's deadline (``time.monotonic()``) while ``choose_by`` runs."""

    def observe(self, view: View) -> None:
        if view.viewer is None:
            return
        if self._belief is None or self._belief.seat != view.viewer:
            self._belief = Belief(view.viewer)
        self._belief.update(view)
        self._heuristic.observe(view)

    def choose_by(self, view: View, rng: random.Random, deadline: float) -> Action:
        """``choose``, ready by ``deadline`` (``time.monotonic()``) or within the budget, if sooner."""
        self._due = deadline
        try:
            return self.choose(view, rng)
        finally:
            self._due = None

    def choose(self, view: View, rng: random.Random) -> Action:
        begun = time.perf_counter()
        self.observe(view)
        rng = self._rng or rng
        self.stats = SearchStats()
        legal = view.legal_actions
        default = self._heuristic.choose(view, rng)
        if len(legal) == 1 or view.phase is Phase.TALON_CHOICE or view.phase not in self.phases:
            return default
        if view.phase in _SHEET_PHASES and needed_to_leave_barrel(view) is not None:
            return default  # the rollouts score the deal, not what the barrel writes: the heuristic's rule
        assert self._belief is not None and view.phase is not None
        if self._belief.degraded:  # joined mid-deal: who led the tricks it missed is unknown
            self.stats.fallback = True
            return default
        start = time.perf_counter()
        sampler = WorldSampler(view, self._belief)
        search = self._search(view, sampler, rng, begun)
        search.deadline = min(search.deadline, search_deadline(begun, self.options.budget_ms, self._due))
        if view.phase is Phase.PLAY:
            action = search.tree(default)
        else:
            action = search.flat(self._candidates(view, default), default)
        self.stats = search.stats
        self.stats.seconds = time.perf_counter() - start
        if action is None:
            self.stats.fallback = True
            return default
        return action

    def _search(self, view: View, sampler: WorldSampler, rng: random.Random, begun: float) -> _Search:
        """One decision's search (a subclass may sample its worlds otherwise)."""
        return _Search(view, sampler, rng, self.options, tuning=self.tuning, start=begun)

    def _candidates(self, view: View, default: Action) -> list[Action]:
        """The few actions worth comparing outside card play (the heuristic's choice first)."""
        legal = view.legal_actions
        out: list[Action] = [default]

        def add(action: Action | None) -> None:
            if action is not None and action in legal and action not in out:
                out.append(action)

        for a in legal:
            if isinstance(a, DemandRedeal | Concede):
                add(a)
        phase = view.phase
        if phase is Phase.DARK:
            for a in legal:
                add(a)
        elif phase is Phase.AUCTION:
            add(next((a for a in legal if isinstance(a, Pass)), None))
            add(next((a for a in legal if isinstance(a, Bid)), None))
        elif phase is Phase.EXCHANGE:
            hand = 0
            for c in view.hand:
                hand |= 1 << c.index
            order = give_order(hand)[:3]
            for a in legal:
                if isinstance(a, GiveCard | DiscardCard) and a.card.index in order:
                    add(a)
        elif phase is Phase.CONTRACT:
            contracts = [a for a in legal if isinstance(a, NameContract)]
            if isinstance(default, NameContract):
                for step in (-10, -5, 5, 10):
                    add(next((a for a in contracts if a.value == default.value + step), None))
            add(contracts[0] if contracts else None)
        return out


class _Search:
    """One decision's search."""

    def __init__(
        self,
        view: View,
        sampler: WorldSampler,
        rng: random.Random,
        options: StrategyOptions,
        *,
        tuning: Tuning,
        start: float,
        utility: Callable[[Deal], list[float]] | None = None,
    ) -> None:
        self.view = view
        self.sampler = sampler
        self.rng = rng
        self.relative = options.relative
        self.utility = utility or partial(utilities, relative=options.relative)
        """Each seat's utility of a finished deal, for the tree and ``flat``: the deal's points by default
        (``ismcts``); ``expert`` passes one that reads the score sheet (:mod:`bots.sheet_utility`)."""
        self.tuning = tuning
        self.cap = options.iterations
        self.deadline = start + options.budget_ms / 1000.0 if options.budget_ms > 0 else math.inf
        self.worlds: list[Deal] = []
        self.failures = 0
        self.stats = SearchStats()
        self.seat = view.viewer
        self._bidding = self._auction_checks()

    # ------------------------------------------------------------------ worlds

    def _auction_checks(self) -> list[tuple[int, int, bool]]:
        """(seat, bid, passed) of the other seats' spoken auction actions, to weigh worlds with."""
        view = self.view
        checks: list[tuple[int, int, bool]] = []
        lowest = 100
        high: int | None = None
        auction = list(view.auction)
        spoken = voluntary_auction(view)
        skipped = len(auction) - len(spoken)
        for _, bid in auction[:skipped]:
            high = bid
        on_barrel = {line.seat for line in view.scores if line.on_barrel}  # they bid by the sheet (T-27)
        for seat, bid in spoken:
            lowest = 100 if high is None else high + view.rules.bid_step
            if seat != self.seat and seat not in on_barrel:
                checks.append((seat, bid if bid is not None else lowest, bid is None))
            if bid is not None:
                high = bid
        return checks

    def _plausible(self, deal: Deal) -> bool:
        """Whether the heuristic, holding this world's dealt hands, would have bid as the others did."""
        if not self._bidding:
            return True
        rules = deal.rules
        for seat, bid, passed in self._bidding:
            limit = max_bid(rules, deal.dealt[seat], self.tuning)
            if passed and limit >= bid + 10:
                return False
            if not passed and limit < bid - 10:
                return False
        return True

    def accept(self, deal: Deal, attempt: int) -> bool:
        """Whether a sampled world is kept (its bids plausible); the last of four attempts always is."""
        return attempt >= 3 or self._plausible(deal)

    def world(self, i: int, *, copy: bool = True) -> Deal | None:
        """The ``i``-th iteration's world: a copy of a sampled one (the first :data:`MAX_WORLDS` are sampled
        in turn, later ones reuse them), or the stored world itself with ``copy=False``, for a caller that
        only copies it; None when no world could be sampled."""
        if i < MAX_WORLDS and len(self.worlds) <= i:
            for attempt in range(4):
                deal = self.sampler.sample(self.rng, attempts=8)
                if deal is None:
                    self.failures += 1
                    continue
                if not self.accept(deal, attempt):
                    continue
                self.worlds.append(deal)
                break
            if len(self.worlds) <= i and not self.worlds:
                return None
        if not self.worlds:
            return None
        self.stats.worlds = len(self.worlds)
        world = self.worlds[i % len(self.worlds)]
        return clone_deal(world) if copy else world

    def more(self, i: int) -> bool:
        if self.cap is not None and i >= self.cap:
            return False
        return time.perf_counter() < self.deadline or i == 0

    # ------------------------------------------------------------------ flat, paired evaluation

    def flat(self, candidates: list[Action], default: Action) -> Action | None:
        if len(candidates) == 1:
            return candidates[0]
        seat = self.seat
        assert seat is not None
        totals = [0.0] * len(candidates)
        squares = [0.0] * len(candidates)
        n = 0
        i = 0
        while self.more(i):
            world = self.world(n, copy=False)  # every candidate plays a copy of it
            if world is None:
                return None if n == 0 else self._pick(candidates, totals, squares, n)
            base = [0.0] * len(candidates)
            for k, action in enumerate(candidates):
                if k and n and not self.more(i):
                    break  # out of time mid-world: this world's comparison is left out
                deal = clone_deal(world)
                deal.apply(seat, action)
                rollout(deal, self.rng, self.relative, self.tuning)
                base[k] = self.utility(deal)[seat]
                i += 1
            else:
                self._tally(base, totals, squares)
                n += 1
                continue
            break
        self.stats.iterations = i
        return self._pick(candidates, totals, squares, n)

    @staticmethod
    def _tally(base: list[float], totals: list[float], squares: list[float]) -> None:
        for k in range(len(base)):
            totals[k] += base[k]
            d = base[k] - base[0]
            squares[k] += d * d

    def _pick(self, candidates: list[Action], totals: list[float], squares: list[float], n: int) -> Action:
        """The best candidate if it beats the heuristic's (candidate 0) clearly, else the heuristic's."""
        if n < 2:
            return candidates[0]
        best = max(range(len(candidates)), key=lambda k: totals[k])
        if best == 0:
            return candidates[0]
        diff = (totals[best] - totals[0]) / n
        var = max(squares[best] / n - diff * diff, 0.0)
        se = math.sqrt(var / (n - 1)) if n > 1 else math.inf
        return candidates[best] if diff > OVERRIDE_Z * se else candidates[0]

    # ------------------------------------------------------------------ the tree

    def tree(self, default: Action) -> Action | None:
        seat = self.seat
        assert seat is not None
        root = Node(seat, None)
        legal_root = self.view.legal_actions
        i = 0
        while self.more(i):
            deal = self.world(i)
            if deal is None:
                if i == 0:
                    return None
                break
            self._iterate(root, deal, default)
            i += 1
        self.stats.iterations = i
        if not root.children:
            return None
        best = max(root.children.values(), key=lambda c: (c.visits, c.total / max(c.visits, 1)))
        assert best.action is not None
        return best.action if best.action in legal_root else None

    def _iterate(self, root: Node, deal: Deal, default: Action) -> None:
        rng = self.rng
        relative = self.relative
        sqrt, log = math.sqrt, math.log
        path: list[Node] = []
        node = root
        expanded = False
        while not deal.is_over:
            seat = deal.to_act
            assert seat is not None
            legal: list[Action] = list(deal.legal_actions())
            if node is not root:  # (the engine's actions are of these very classes: no subclass to match)
                legal = [a for a in legal if type(a) is not DemandRedeal and type(a) is not Concede]
            if not legal:
                break
            children = node.children
            keys = list(map(_key, legal))
            untried = [a for a, key in zip(legal, keys, strict=True) if key not in children]
            if untried:
                if node is root and default in untried:
                    action = default
                else:
                    guess = rollout_action(deal, rng, relative, self.tuning)
                    action = guess if guess in untried else rng.choice(untried)
                for key in keys:
                    child = children.get(key)
                    if child is not None:
                        child.avail += 1
                child = Node(seat, action)
                children[_key(action)] = child
                deal.apply_legal(seat, action, events=False)
                path.append(child)
                expanded = True
                break
            best: Node | None = None
            best_score = -math.inf
            for key in keys:
                child = children[key]
                child.avail += 1
                score = child.total / (child.visits * SCALE) + EXPLORATION * sqrt(
                    log(child.avail) / child.visits
                )
                if score > best_score:
                    best, best_score = child, score
            assert best is not None and best.action is not None
            deal.apply_legal(seat, best.action, events=False)
            path.append(best)
            node = best
        if expanded or not deal.is_over:
            rollout(deal, rng, relative, self.tuning)
        u = self.utility(deal)
        for n in path:
            n.visits += 1
            n.total += u[n.seat]
