"""Issue #31: the searches' utility that reads the score sheet (bots.sheet_utility), rules T-26 to T-29."""

from __future__ import annotations

import random

import pytest

from bots.expert import ExpertStrategy
from bots.heuristic import TUNING
from bots.ismcts import IsmctsStrategy, rollout, utilities
from bots.sheet_utility import (
    WIN_VALUE,
    DealScores,
    Sheet,
    declarer_stake,
    sheet_utility,
    sheet_utility_of,
    written,
)
from bots.strategy import StrategyOptions
from bots.worlds import WorldSampler, clone_deal
from engine import Game, Rules, view
from engine.events import Outcome

FRESH = Sheet((0, 0, 0), (False, False, False), 880, True)


def _scores(base: tuple[int, int, int], contract: int = 120, *, made: bool = True) -> DealScores:
    """Seat 0 declares ``contract`` among three seats."""
    declarer = 0
    return DealScores(base, (0, 1, 2), declarer, contract, made)


@pytest.mark.parametrize("seed", range(6))
def test_fresh_sheet_is_the_deals_points(seed: int) -> None:
    """Far from 555, the barrel and 1000 the sheet changes nothing: ismcts's utility exactly."""
    game = Game(Rules(players=3), seed)
    game.apply_chance()
    deal = game.deal
    assert deal is not None
    rollout(deal, random.Random(seed), 0.5, TUNING)
    assert sheet_utility_of(FRESH, 0.5)(deal) == pytest.approx(utilities(deal, 0.5))
    assert sheet_utility_of(FRESH, 0.0)(deal) == pytest.approx(utilities(deal, 0.0))


def test_barrel_made_contract_reaching_1000_is_the_game() -> None:
    """T-27: on the barrel (880) a made 120 reaches 1000 and wins: the game to him, its loss to the others."""
    sheet = Sheet((880, 300, 200), (True, False, False), 880, True)
    u = sheet_utility(sheet, _scores((120, 40, 0)), 0.0)
    assert u[0] == pytest.approx(120 + WIN_VALUE)
    assert u[1] == pytest.approx(40 - WIN_VALUE)
    assert u[2] == pytest.approx(-WIN_VALUE)
    assert written(sheet, _scores((120, 40, 0)))[1] == 0


def test_barrel_contract_short_of_1000_writes_nothing_and_a_failed_one_falls() -> None:
    """T-27: a made contract that does not reach 1000 writes nothing; a failed one costs the contract."""
    sheet = Sheet((880, 300, 200), (True, False, False), 880, True)
    assert written(sheet, _scores((100, 40, 0), contract=100)) == ([0, 40, 0], None)
    assert written(sheet, _scores((-120, 60, 30), made=False)) == ([-120, 60, 30], None)


def test_defender_on_the_barrel_scores_nothing() -> None:
    """T-27: a defender on the barrel writes nothing, whatever he took."""
    sheet = Sheet((300, 880, 0), (False, True, False), 880, True)
    assert written(sheet, _scores((120, 60, 0)))[0] == [120, 0, 0]


def test_landing_on_555_loses_the_score() -> None:
    """T-29: a defender at 455 who takes 100 lands on 555 and falls to 0: worth minus his score."""
    sheet = Sheet((0, 455, 0), (False, False, False), 880, True)
    u = sheet_utility(sheet, _scores((-120, 100, 20), made=False), 0.0)
    assert u[1] == pytest.approx(-455.0)
    no_samosval = Sheet((0, 455, 0), (False, False, False), 880, False)
    assert sheet_utility(no_samosval, _scores((-120, 100, 20), made=False), 0.0)[1] == pytest.approx(100.0)


def test_climbing_the_barrel_counts_up_to_it() -> None:
    """T-27: a score that reaches 880 or more is set to 880."""
    sheet = Sheet((800, 0, 0), (False, False, False), 880, True)
    assert written(sheet, _scores((120, 0, 0)))[0][0] == 80


def test_without_a_barrel_reaching_1000_wins() -> None:
    """T-26: with the barrel off the first to 1000 (the highest) wins the game."""
    sheet = Sheet((900, 950, 0), (False, False, False), 0, True)
    change, winner = written(sheet, _scores((120, 60, 0)))
    assert (change, winner) == ([120, 60, 0], 0)
    assert sheet_utility(sheet, _scores((120, 60, 0)), 0.5)[1] < -WIN_VALUE + 60


def test_failed_obligatory_game_falls_to_zero() -> None:
    """T-28: failing the obligatory game on the barrel falls to 0; making it wins."""
    sheet = Sheet((880, 300, 0), (True, False, False), 880, True)
    failed = DealScores((0, 60, 40), (0, 1, 2), 0, 120, False, True)
    assert written(sheet, failed) == ([-880, 60, 40], None)
    assert declarer_stake(sheet, 0, 120, (0, 1, 2), obligatory=True) == (120 + WIN_VALUE, -880.0)


def test_declarer_stake() -> None:
    """The solved endgame's stakes: +-contract on a fresh sheet; the game on the barrel (T-27); a made
    contract landing on 555 worth minus the score (T-29)."""
    assert declarer_stake(FRESH, 0, 120, (0, 1, 2)) == (120.0, -120.0)
    barrel = Sheet((880, 0, 0), (True, False, False), 880, True)
    assert declarer_stake(barrel, 0, 120, (0, 1, 2)) == (120 + WIN_VALUE, -120.0)
    at_435 = Sheet((435, 0, 0), (False, False, False), 880, True)
    assert declarer_stake(at_435, 0, 120, (0, 1, 2)) == (-435.0, -120.0)


@pytest.mark.parametrize("seed", range(4))
def test_expert_searches_read_the_sheet_and_ismcts_does_not(seed: int) -> None:
    """Issue #31: expert's searches are handed the sheet's utility (seat 0 on the barrel, T-27); ismcts's
    (and expert's with ``read_sheet`` off) keep the deal's points."""
    game = Game(Rules(players=3), seed)
    game.records[0].score = 880
    game.records[0].on_barrel = True
    game.apply_chance()
    deal = game.deal
    assert deal is not None
    seat = deal.to_act
    assert seat is not None
    seen = view(game, seat)
    finished = clone_deal(deal)
    rollout(finished, random.Random(seed), 0.5, TUNING)
    sheet = Sheet((880, 0, 0), (True, False, False), 880, True)
    expert = ExpertStrategy(StrategyOptions(iterations=4, budget_ms=0, seed=seed))
    expert.observe(seen)
    assert expert._belief is not None
    search = expert._search(seen, WorldSampler(seen, expert._belief), random.Random(seed), 0.0)
    assert search.utility(finished) == pytest.approx(sheet_utility_of(sheet, 0.5)(finished))
    if finished.outcome is Outcome.MADE or (finished.outcome and finished.declarer != 0):  # no fall, redeal
        assert search.utility(finished) != pytest.approx(utilities(finished, 0.5))  # the barrel tells
    expert.read_sheet = False
    plain = expert._search(seen, WorldSampler(seen, expert._belief), random.Random(seed), 0.0)
    assert plain.utility(finished) == pytest.approx(utilities(finished, 0.5))
    ismcts = IsmctsStrategy(StrategyOptions(iterations=4, budget_ms=0, seed=seed))
    ismcts.observe(seen)
    assert ismcts._belief is not None
    reference = ismcts._search(seen, WorldSampler(seen, ismcts._belief), random.Random(seed), 0.0)
    assert reference.utility(finished) == pytest.approx(utilities(finished, 0.5))
