"""How many points a hand makes as declarer: the heuristic's linear valuation models (T-9, T-15, T-22).

The auction, the redeals, the contract and rospis all ask one question of a hand, before or after the talon:
how many deal points will the declarer take with it, and how surely. The answer is a linear model over a
few features of the hand, fitted by self-play of the heuristic's own exchange and card play
(``python -m bots.calibrate`` refits :data:`MODELS`), with the spread of its residuals.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from bots.cardlib import ACE, MARRIAGE_MASKS, MARRIAGE_POINTS, SUIT_MASKS, TEN
from engine import Rules, TwoPlayerDeal
from engine.cards import points_of


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
    return model.intercept + sum([w * x for w, x in zip(model.weights, f, strict=True)])


def model_for(rules: Rules, stage: str) -> Model:
    if rules.players != 2:
        return MODELS[f"3:{stage}"]
    polish = rules.two_player_deal is TwoPlayerDeal.TEN_AND_TWO_TALONS_OF_2
    return MODELS[f"2:polish:{stage}" if polish else f"2:{stage}"]


_ESTIMATES: dict[tuple[int, int], tuple[Model, float]] = {}
"""The means :func:`estimate_declarer_points` worked out, by (``id`` of the model, hand), with the model they
came from (held, so its ``id`` cannot be reused while the entry lives): a search values the same hands over
and over (every candidate of a flat search plays the same worlds). Emptied when it reaches
:data:`_ESTIMATES_MAX` entries."""
_ESTIMATES_MAX = 1 << 12


def estimate_declarer_points(rules: Rules, hand: int, stage: str = "bid") -> tuple[float, float]:
    """(expected deal points as declarer, their standard deviation) for a hand before or after the talon."""
    model = model_for(rules, stage)
    key = (id(model), hand)
    known = _ESTIMATES.get(key)
    if known is not None:
        return known[1], model.sigma
    if len(_ESTIMATES) >= _ESTIMATES_MAX:
        _ESTIMATES.clear()
    mean = estimate(model, hand)
    _ESTIMATES[key] = (model, mean)
    return mean, model.sigma


def chance_at_least(mean: float, sigma: float, target: float) -> float:
    """P(points >= target) under a normal approximation."""
    z = (mean - target + 2.5) / sigma
    return 0.5 * (1.0 + math.erf(z / math.sqrt(2.0)))
