"""Fit the heuristic's hand-valuation models (:data:`bots.valuation.MODELS`) by self-play.

``python -m bots.calibrate --deals 20000`` deals seeded deals, makes each active seat in turn the
declarer of an uncontested 100 (the others pass), lets the heuristic exchange and play every seat, and
regresses the declarer's deal points (T-22) on the features of its hand as dealt (``bid``: the talon is
still to come) and after its exchange (``play``). It prints the models as Python literals to paste into
``MODELS``. Least squares by the normal equations, in plain Python.
"""

from __future__ import annotations

import argparse
import math
import random
import sys
from collections.abc import Sequence

from bots.heuristic import rollout_action
from bots.valuation import FEATURES, Model, hand_features
from engine import Action, Bid, Concede, DealSetup, DemandRedeal, Pass, Phase, Rules, TwoPlayerDeal
from engine.cards import CARDS
from engine.deal import Deal


def collect(rules: Rules, deals: int, seed: int) -> tuple[list[tuple[tuple[float, ...], float]], ...]:
    """(features, declarer points) samples for the bid model and the play model."""
    rng = random.Random(seed)
    bid_samples: list[tuple[tuple[float, ...], float]] = []
    play_samples: list[tuple[tuple[float, ...], float]] = []
    n = rules.players
    for _ in range(deals):
        order = list(CARDS)
        rng.shuffle(order)
        for dealer in range(n if n != 4 else 3):
            deal = Deal(rules, DealSetup(1, dealer), tuple(order))
            deal.start()
            opener = deal.active[0]
            dealt = deal.hands[opener]
            after_exchange: int | None = None
            while not deal.is_over:
                seat = deal.to_act
                assert seat is not None
                legal: list[Action] = [
                    a for a in deal.legal_actions() if not isinstance(a, DemandRedeal | Concede)
                ]
                action: Action
                if deal.phase is Phase.AUCTION:
                    action = next((a for a in legal if isinstance(a, Pass)), None) or next(
                        a for a in legal if isinstance(a, Bid)
                    )
                elif len(legal) == 1:
                    action = legal[0]
                else:
                    action = rollout_action(deal, rng, 0.5)
                    if action not in legal:
                        action = legal[0]
                if deal.phase is Phase.CONTRACT or (deal.phase is Phase.PLAY and after_exchange is None):
                    after_exchange = deal.hands[opener]
                deal.apply(seat, action)
            assert deal.declarer == opener and after_exchange is not None
            points = float(deal.deal_points(opener))
            bid_samples.append((hand_features(dealt), points))
            play_samples.append((hand_features(after_exchange), points))
    return bid_samples, play_samples


def fit(samples: Sequence[tuple[tuple[float, ...], float]], ridge: float = 1e-3) -> Model:
    """Least squares with an intercept (a tiny ridge keeps constant features harmless)."""
    k = len(samples[0][0]) + 1
    xtx = [[0.0] * k for _ in range(k)]
    xty = [0.0] * k
    for features, y in samples:
        x = (1.0, *features)
        for i in range(k):
            xi = x[i]
            xty[i] += xi * y
            row = xtx[i]
            for j in range(k):
                row[j] += xi * x[j]
    for i in range(1, k):
        xtx[i][i] += ridge * len(samples)
    beta = _solve(xtx, xty)
    residuals = [y - (beta[0] + sum(b * f for b, f in zip(beta[1:], x, strict=True))) for x, y in samples]
    sigma = math.sqrt(sum(r * r for r in residuals) / max(1, len(samples) - k))
    return Model(round(beta[0], 2), tuple(round(b, 3) for b in beta[1:]), round(sigma, 1))


def _solve(a: list[list[float]], b: list[float]) -> list[float]:
    n = len(b)
    m = [[*row, b[i]] for i, row in enumerate(a)]
    for col in range(n):
        pivot = max(range(col, n), key=lambda r: abs(m[r][col]))
        m[col], m[pivot] = m[pivot], m[col]
        if abs(m[col][col]) < 1e-12:
            continue
        for r in range(n):
            if r != col:
                f = m[r][col] / m[col][col]
                for c in range(col, n + 1):
                    m[r][c] -= f * m[col][c]
    return [m[i][n] / m[i][i] if abs(m[i][i]) > 1e-12 else 0.0 for i in range(n)]


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--deals", type=int, default=5000)
    parser.add_argument("--seed", type=int, default=7)
    args = parser.parse_args(argv)
    for players, rules in (
        (3, Rules(players=3)),
        (2, Rules(players=2)),
        (2, Rules(players=2, two_player_deal=TwoPlayerDeal.TEN_AND_TWO_TALONS_OF_2)),
    ):
        bid, play = collect(rules, args.deals, args.seed)
        label = f"{players}" + (
            ":polish" if rules.two_player_deal is TwoPlayerDeal.TEN_AND_TWO_TALONS_OF_2 else ""
        )
        for stage, samples in (("bid", bid), ("play", play)):
            model = fit(samples)
            print(f'    "{label}:{stage}": {model!r},  # {len(samples)} samples')
    print("# features:", ", ".join(FEATURES), file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
