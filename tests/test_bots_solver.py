"""The exact open-card solver (bots.solver) against a plain minimax over the engine's own deals
(scripts.solver_reference, the reference bench/solver.py times it against too), and the expert strategy's
auction equity (bots.expert): the barrel, 555, the talons."""

from __future__ import annotations

import random
import time

import pytest

from bots.expert import _contract_ev, bid_limit, declaring_value, talon_estimates
from bots.registry import make_strategy
from bots.solver import move_values
from bots.strategy import StrategyOptions, decide
from engine import Game, PlayCard, Rules, view
from scripts.solver_reference import endings, minimax


@pytest.mark.parametrize(
    "rules",
    [Rules(players=3), Rules(players=3, must_beat=True), Rules(players=2), Rules(players=4)],
    ids=["three", "must-beat", "two", "four"],
)
def test_the_solver_agrees_with_minimax_over_the_engine(rules: Rules) -> None:
    for deal in endings(rules, 3, 6):
        values = move_values(deal)
        best = max(values.values()) if deal.to_act == deal.declarer else min(values.values())
        assert best == minimax(deal)
        for (index, marriage), value in values.items():
            twin = deal.copy()
            seat = twin.to_act
            assert seat is not None
            action = next(
                a
                for a in deal.legal_actions()
                if isinstance(a, PlayCard) and a.card.index == index and a.marriage == marriage
            )
            twin.apply(seat, action)
            assert value == minimax(twin)


def test_on_the_barrel_only_a_contract_reaching_1000_is_worth_bidding() -> None:
    rules = Rules()
    rng = random.Random(4)
    for _ in range(6):
        hand = sum(1 << i for i in rng.sample(range(24), 7))
        limit = bid_limit(rules, hand, 900, on_barrel=True)
        assert limit in (99, 100)
        assert bid_limit(rules, hand, 885, on_barrel=True) in (99, 115)
    assert _contract_ev(rules, 100, 0.9, 900, True) > 300  # made from 900: the game
    assert _contract_ev(rules, 100, 0.9, 890, True) < 0  # made short of 1000: nothing; failed: a fall


def test_landing_on_555_is_worth_the_score_it_resets() -> None:
    rules = Rules()
    assert _contract_ev(rules, 120, 1.0, 435, False) == -435.0
    assert _contract_ev(rules, 125, 1.0, 435, False) == 125.0
    assert _contract_ev(Rules(samosval=False), 120, 1.0, 435, False) == 120.0


def test_the_auction_weighs_all_680_talons_and_a_stronger_hand_bids_higher() -> None:
    rules = Rules()
    weak = sum(1 << i for i in (0, 1, 6, 7, 12, 13, 18))  # nines and jacks
    strong = sum(1 << i for i in (2, 3, 4, 5, 20, 21, 23))  # ♠ Q K 10 A (a marriage), ♥ Q K A
    assert len(talon_estimates(rules, strong)) == 680
    assert bid_limit(rules, weak, 0, False) == 99
    assert bid_limit(rules, strong, 0, False) >= 150
    assert declaring_value(rules, strong, 120, 0, False) > declaring_value(rules, strong, 200, 0, False)


@pytest.mark.parametrize("name", ["ismcts", "expert"])
def test_a_searching_strategy_answers_by_the_deadline_it_is_handed(name: str) -> None:
    """``decide`` hands the Turn's deadline to a strategy that takes one: with a budget of ten seconds and a
    deadline 40 ms away, every decision returns long before the budget (a loose bound: the machine is
    shared; bench/search.py measures p50/p99)."""
    strategy = make_strategy(name, StrategyOptions(budget_ms=10_000))
    others = [make_strategy("heuristic") for _ in range(2)]
    game = Game(Rules(players=3), 21)
    rng = random.Random(1)
    slowest = 0.0
    while game.deals_dealt < 2 or not game.is_chance_node:
        if game.is_chance_node:
            game.apply_chance()
        else:
            seat = game.to_act
            assert seat is not None
            v = view(game, seat)
            if seat == 0:
                start = time.perf_counter()
                action = decide(strategy, v, rng, time.monotonic() + 0.04)
                slowest = max(slowest, time.perf_counter() - start)
            else:
                action = others[seat - 1].choose(v, rng)
            game.apply(seat, action)
        strategy.observe(view(game, 0))
        for s, bot in enumerate(others, start=1):
            bot.observe(view(game, s))
    assert slowest < 2.0
