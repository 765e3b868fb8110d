"""Property tests over random 1000 Blagogo games: scores and the end (B-17 to B-20).

Every round is scored by the rules (B-17 to B-19), the totals are the running sums, and whole games end with
the winner at the top (B-20). That each of the 108 cards is in one place at every step (B-1) is checked for
every game in tests/test_engine_conformance.py (1000 Blagogo's check:
:func:`tests.blagogo_property_helpers.cards_conserved`).
Games are played by the seeded random player of :mod:`engine.blagogo.randomplay`; the rules, seeds and
settings they share: :mod:`tests.blagogo_property_helpers`.
"""

from __future__ import annotations

import pytest
from hypothesis import given

from engine.blagogo import BlagogoRules, MeldKind
from engine.blagogo.cards import WIN_BONUS, hand_penalty
from engine.blagogo.events import RoundScored, RoundStarted
from engine.blagogo.randomplay import play, states
from engine.blagogo.scoring import meld_points
from tests.blagogo_helpers import rnd
from tests.blagogo_property_helpers import MAX_ACTIONS, MAX_ROUNDS, RULES, SEEDS, property_settings

# ---------------------------------------------------------------------------------------------- B-17 to B-20


@property_settings
@given(rules=RULES, seed=SEEDS)
def test_b17_b18_b19_every_round_is_scored_by_the_rules(rules: BlagogoRules, seed: int) -> None:
    """B-17 to B-19: each RoundScored adds melds (by owner or contributor), subtracts hands (doubled for the
    losers after kantrame), gives 30 to the player who went out; totals are the running sums (B-20)."""
    totals = [0] * rules.players
    seen = 0
    for game in states(rules, seed, MAX_ROUNDS, MAX_ACTIONS):
        new = game.events[seen:]
        seen = len(game.events)
        r = game.round
        scored = next((e for e in new if isinstance(e, RoundScored)), None)
        if scored is None:
            continue
        assert r is not None and r.is_over and scored.number == r.number
        assert scored.meld_points == tuple(meld_points(rules, r.melds))
        factor = 2 if r.kantrame else 1
        for seat in range(rules.players):
            penalty = hand_penalty(r.hands[seat], rules.ace_in_hand)
            won = seat == r.winner
            assert scored.hand_penalties[seat] == (penalty if won else penalty * factor)
            assert scored.deltas[seat] == (
                scored.meld_points[seat] - scored.hand_penalties[seat] + (WIN_BONUS if won else 0)
            )
            totals[seat] += scored.deltas[seat]
        assert scored.totals == tuple(totals) == tuple(game.scores)
        if r.winner is not None:
            assert r.hands[r.winner] == 0
        owned = sum(m.points for m in r.melds)
        assert sum(scored.meld_points) == owned
        assert all(m.kind is MeldKind.RUN or len(m.cards) <= 4 for m in r.melds)


@pytest.mark.parametrize("players", [2, 5, 8])
def test_b20_random_games_terminate_or_stay_well_formed(players: int) -> None:
    """B-20 with random players driven by candidate melds: whole games to 1000 end with a winner at the top
    (ties aside) and the dealer passed each round; a game cut off by the action cap is still well formed."""
    rules = BlagogoRules(players=players)
    finished = 0
    for seed in range(4):
        game = play(rules, seed, max_rounds=60, max_actions=20_000)
        r = rnd(game)
        r.check_invariants()
        rounds = [e for e in game.events if isinstance(e, RoundStarted)]
        assert [e.dealer for e in rounds] == [(game.first_dealer + i) % players for i in range(len(rounds))]
        if game.is_over:
            finished += 1
            assert game.winner is not None and max(game.scores) >= rules.target
            assert game.scores[game.winner] == max(game.scores)
            assert game.standings[0].seat == game.winner
        else:
            assert not r.is_over or game.rounds_dealt == 60
            assert game.to_act is not None or game.is_chance_node
    assert finished >= 2
