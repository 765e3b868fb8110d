"""Where a Thousand bot wins points a deal: each decision outside card play varied alone (issue 31).

Usage::

    python bench/thousand_screens.py [--deals 1500] [--games 150] [--seed 5] [--workers 1] [--only NAME]

Issue 31 supposed that the auction, the exchange and the contract are where points a deal are won. This
screens that cheaply: every variant below is the heuristic with one decision made otherwise, its card play
the heuristic's (no search, so thousands of duplicate deals a minute), played against the plain heuristic
by :func:`games.tournament.tournament` (one deal a set, six seatings; ``score-sheet`` in whole games, where
barrel, bolts and 555 count). Printed: each variant's paired difference in points a deal with its 95%
interval; the last line one JSON object with the figures.

- ``margin-N``: the heuristic's bid margin (:attr:`bots.heuristic.Tuning.bid_margin`, 35) set to N.
- ``talons-N``: bidding to the talons' exact expectation (:func:`bots.expert.bid_limit`: the mean over
  the 680 talons of the best contract after the exchange) while declaring beats passing by N points.
- ``contract``: the contract by expectation with the score sheet (:func:`bots.expert.best_contract`).
- ``exchange``: the two cards given away that leave the hand the play model values most
  (:func:`bots.valuation.estimate_declarer_points` over all 45 pairs), instead of :func:`give_order`'s.
- ``score-sheet``: ``expert``'s auction and contract (the barrel, 555, an opponent's barrel bid) without
  its searches and solver, in whole games.

The variants are added to the process's registry (:data:`bots.registry.STRATEGIES`) under ``screen:...``
names, so that the tournament's worker processes (forked) build them as any strategy.
"""

from __future__ import annotations

import sys
from pathlib import Path

# Run as ``python bench/thousand_screens.py``: measure the working tree's packages, not bench/ shadowing them.
_BENCH_DIR = Path(__file__).resolve().parent
sys.path[:] = [p for p in sys.path if Path(p or ".").resolve() != _BENCH_DIR]
sys.path.insert(0, str(_BENCH_DIR.parent))

import argparse  # noqa: E402
import itertools  # noqa: E402
import json  # noqa: E402
import random  # noqa: E402
import time  # noqa: E402
from collections.abc import Callable, Sequence  # noqa: E402
from dataclasses import replace  # noqa: E402

from bots.cardlib import CARD_POINTS, KING, QUEEN  # noqa: E402
from bots.expert import ExpertStrategy, best_contract, bid_limit  # noqa: E402
from bots.heuristic import TUNING, HeuristicStrategy, give_order  # noqa: E402
from bots.registry import STRATEGIES  # noqa: E402
from bots.strategy import Strategy, StrategyOptions  # noqa: E402
from bots.valuation import estimate_declarer_points  # noqa: E402
from engine import Action, Bid, GiveCard, NameContract, Pass, Phase, View  # noqa: E402
from games.tournament import tournament  # noqa: E402


def _mask(view: View) -> int:
    return sum(1 << c.index for c in view.hand)


class TalonBidder(HeuristicStrategy):
    """The heuristic bidding to the talons' exact expectation (``margin``: what passing is worth)."""

    margin = 10.0

    def choose(self, view: View, rng: random.Random) -> Action:
        legal = view.legal_actions
        bids = [a for a in legal if isinstance(a, Bid)]
        if view.phase is Phase.AUCTION and view.rules.players != 2 and bids and view.viewer is not None:
            self.observe(view)
            line = view.scores[view.viewer]
            limit = bid_limit(view.rules, _mask(view), line.score, line.on_barrel, self.margin)
            if bids[0].value <= limit:
                return bids[0]
            return next((a for a in legal if isinstance(a, Pass)), bids[0])
        return super().choose(view, rng)


class ContractByExpectation(HeuristicStrategy):
    """The heuristic naming the contract of :func:`bots.expert.best_contract`."""

    def choose(self, view: View, rng: random.Random) -> Action:
        contracts = [a for a in view.legal_actions if isinstance(a, NameContract)]
        if view.phase is Phase.CONTRACT and contracts and view.viewer is not None:
            self.observe(view)
            line = view.scores[view.viewer]
            mean, sigma = estimate_declarer_points(view.rules, _mask(view), "play")
            low, cap = contracts[0].value, contracts[-1].value
            best, _ = best_contract(view.rules, mean, sigma, low, cap, line.score, line.on_barrel)
            if best is not None:
                return next(a for a in contracts if a.value == best)
        return super().choose(view, rng)


def model_give(view: View) -> int:
    """The card to give now: of the cards still to give, the set whose loss the play model minds least."""
    hand = _mask(view)
    cards = [c.index for c in view.hand]
    k = len(cards) - 8  # three players: the declarer keeps eight
    best: tuple[int, ...] = ()
    value = -1e9
    for combo in itertools.combinations(cards, k):
        kept = hand & ~sum(1 << c for c in combo)
        mean, _ = estimate_declarer_points(view.rules, kept, "play")
        if mean > value:
            best, value = combo, mean
    order = give_order(hand)
    return min(best, key=order.index)


class ModelExchange(HeuristicStrategy):
    """The heuristic giving away the cards the play model minds least (receivers as the heuristic's)."""

    def choose(self, view: View, rng: random.Random) -> Action:
        gives = [a for a in view.legal_actions if isinstance(a, GiveCard)]
        if view.phase is Phase.EXCHANGE and view.rules.players == 3 and gives and len(view.hand) > 8:
            self.observe(view)
            card = model_give(view)
            receivers = sorted({a.to for a in gives})
            to = receivers[0]
            if len(receivers) > 1:  # the heuristic's rule: a harmless card to the stronger bidder
                strength = {r: max((b or 0 for s, b in view.auction if s == r), default=0) for r in receivers}
                weak, strong = sorted(receivers, key=lambda r: (strength[r], r))
                to = strong if CARD_POINTS[card] <= 2 and card % 6 not in (KING, QUEEN) else weak
            return next(a for a in gives if a.card.index == card and a.to == to)
        return super().choose(view, rng)


def _margin(margin: float) -> Callable[[StrategyOptions], Strategy]:
    return lambda options: HeuristicStrategy(options, replace(TUNING, bid_margin=margin))


def _talons(margin: float) -> Callable[[StrategyOptions], Strategy]:
    def make(options: StrategyOptions) -> Strategy:
        bot = TalonBidder(options)
        bot.margin = margin
        return bot

    return make


def _score_sheet(options: StrategyOptions) -> Strategy:
    """``expert``'s auction and contract alone: no search (``phases`` empty), no solved card play."""
    bot = ExpertStrategy(replace(options, budget_ms=2000.0))
    bot.phases = frozenset()
    bot.solve_cards = -1
    return bot


SCREENS: dict[str, tuple[Callable[[StrategyOptions], Strategy], bool]] = {
    **{f"margin-{m}": (_margin(float(m)), False) for m in (20, 25, 30, 40, 45, 50)},
    **{f"talons-{m}": (_talons(float(m)), False) for m in (-10, 0, 10, 20, 30, 40)},
    "contract": (ContractByExpectation, False),
    "exchange": (ModelExchange, False),
    "score-sheet": (_score_sheet, True),
}
"""Variant name: (its factory, whether it is screened in whole games)."""


def _finite(x: float) -> float:
    """An interval for the JSON line (one set has none: -1 stands for it, JSON has no infinity)."""
    return round(x, 3) if x != float("inf") else -1.0


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--deals", type=int, default=1500, help="duplicate deals a one-deal screen")
    parser.add_argument("--games", type=int, default=150, help="duplicate games a whole-game screen")
    parser.add_argument("--seed", type=int, default=5)
    parser.add_argument("--workers", type=int, default=1)
    parser.add_argument("--only", action="append", choices=sorted(SCREENS), help="screen only these")
    args = parser.parse_args(argv)
    for name, (factory, _) in SCREENS.items():
        STRATEGIES[f"screen:{name}"] = factory
    figures: dict[str, dict[str, float]] = {}
    for name in args.only or list(SCREENS):
        whole = SCREENS[name][1]
        begun = time.monotonic()
        result = tournament(
            "thousand",
            [f"screen:{name}", "heuristic"],
            args.games if whole else args.deals,
            args.seed,
            progress=None,
            whole_games=whole,
            workers=args.workers,
        )
        measure = "per_deal" if whole else "score"
        d = result.difference(measure, f"screen:{name}", "heuristic")
        figures[name] = {"diff": round(d.mean, 2), "ci95": _finite(d.ci95), "sets": float(d.n)}
        line = f"{name:<12} {d.mean:+6.2f} ± {d.ci95:5.2f} points a deal against heuristic ({d.n} sets"
        if whole:
            won = result.difference("won", f"screen:{name}", "heuristic")
            figures[name]["won"] = round(won.mean, 3)
            figures[name]["won_ci95"] = _finite(won.ci95)
            line += f" of whole games; games won {won.mean:+.3f} ± {won.ci95:.3f}"
        print(f"{line}, {time.monotonic() - begun:.0f} s)", flush=True)
    print(json.dumps({"screens": figures}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
