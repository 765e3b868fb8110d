"""1000 Blagogo from stacked decks: the round's score and the game's end (B-3, B-18 to B-20).

Going out scores 30 plus one's melds, the others lose their hands (B-18, with B-2 and B-3's
``ace_in_hand``); kantrame doubles the losers' hands (B-19); the game ends when a score reaches the
target, and ties go to the player who went out, then to the earliest seat after the dealer (B-20).
Who scores a meld laid off on another's (B-17) is in tests/test_blagogo_rules_melds.py. Hands and moves:
:mod:`tests.blagogo_helpers`.
"""

from __future__ import annotations

import pytest

from engine.blagogo import BlagogoRules, DrawFromDeck, Game
from engine.blagogo.cards import hand_penalty
from engine.blagogo.events import GameOver, MeldsLaid, RoundScored, WentOut
from engine.blagogo.stacking import stack
from engine.errors import ActionError, Reason
from tests.blagogo_helpers import (
    SCORE0,
    SCORE_HAND,
    deal,
    discard,
    draw,
    lay,
    of_type,
    refused,
    rnd,
    score_round_without_kantrame,
    spec,
)

# ---------------------------------------------------------------------------------------------- B-18 to B-20


def test_b18_going_out_scores_30_plus_melds_minus_hands_with_aces_25_in_a_set_and_10_in_a_run() -> None:
    """B-18 with B-2 and B-3: the set of aces is 75, Q-K-A 30; seat 0 loses its hand's 100."""
    game = deal(SCORE_HAND, SCORE0, bridge="10♥", deck="7♣ 5♣")
    events = score_round_without_kantrame(game)
    assert of_type(events, MeldsLaid)[0].points == 75 + 30
    assert of_type(events, WentOut) == [WentOut(1, False)]
    scored = of_type(events, RoundScored)[0]
    assert scored.winner == 1 and not scored.kantrame
    assert scored.meld_points == (0, 75 + 30 + 15 + 15)
    assert scored.hand_penalties == (100, 0)
    assert scored.deltas == (-100, 135 + 30)
    assert scored.totals == (-100, 165) and game.scores == [-100, 165]
    assert rnd(game).is_over and game.to_act is None and game.legal_actions() == ()
    refused(game, 0, DrawFromDeck(), Reason.CHANCE_NODE)


def test_b3_b18_ace_in_hand_variant_at_scoring() -> None:
    """B-3 ``ace_in_hand``: an ace left in hand costs what the table says."""
    game = deal(SCORE_HAND, SCORE0, bridge="10♥", deck="7♣ 5♣", ace_in_hand=25)
    scored = of_type(score_round_without_kantrame(game), RoundScored)[0]
    assert scored.hand_penalties == (115, 0)


def test_b19_kantrame_doubles_the_losers_hands() -> None:
    """B-19: seat 1 lays twelve cards and discards the thirteenth in its first turn: kantrame."""
    game = deal(SCORE_HAND, SCORE0, bridge="10♥")
    melds = ("A♠ A♣ A♦", "Q♥ K♥ A♥", "2♣ 3♣ 4♣", "7♦ 7♠ 7♥")
    lay(game, 1, *(spec(game, 1, m) for m in melds))
    events = discard(game, 1, "9♠")
    assert of_type(events, WentOut) == [WentOut(1, True)]
    scored = of_type(events, RoundScored)[0]
    assert scored.kantrame and scored.hand_penalties == (200, 0)
    assert scored.deltas == (-200, 135 + 30)


@pytest.mark.parametrize(("first_turn_only", "kantrame"), [(False, True), (True, False)])
def test_b19_kantrame_on_a_later_turn_and_the_first_turn_only_variant(
    first_turn_only: bool, kantrame: bool
) -> None:
    """B-19: going out in the turn of one's opening is kantrame, unless the variant wants the first turn."""
    game = deal(SCORE_HAND, SCORE0, bridge="10♥", deck="7♣ 5♣", kantrame_first_turn_only=first_turn_only)
    discard(game, 1, "9♠")
    draw(game, 0)
    discard(game, 0, "7♣")
    draw(game, 1)
    melds = ("A♠ A♣ A♦", "Q♥ K♥ A♥", "2♣ 3♣ 4♣", "7♦ 7♠ 7♥")
    lay(game, 1, *(spec(game, 1, m) for m in melds))
    events = discard(game, 1, "5♣")
    assert of_type(events, WentOut) == [WentOut(1, kantrame)]
    assert of_type(events, RoundScored)[0].hand_penalties == (200 if kantrame else 100, 0)


def test_b19_no_kantrame_with_a_meld_already_on_the_table() -> None:
    """B-19: seat 1 opened in an earlier turn, so going out is an ordinary win (penalties not doubled)."""
    game = deal(SCORE_HAND, SCORE0, bridge="10♥", deck="7♣ 5♣")
    events = score_round_without_kantrame(game)
    assert of_type(events, WentOut) == [WentOut(1, False)]


def test_b20_the_game_ends_when_a_score_reaches_the_target() -> None:
    """B-20: after the round in which a score reaches ``target``, the highest score wins."""
    game = deal(SCORE_HAND, SCORE0, bridge="10♥", deck="7♣ 5♣", target=150)
    events = score_round_without_kantrame(game)
    over = of_type(events, GameOver)
    assert len(over) == 1 and over[0].winner == 1 and game.is_over
    assert [(s.seat, s.place, s.score) for s in over[0].standings] == [(1, 1, 165), (0, 2, -100)]
    refused(game, 0, DrawFromDeck(), Reason.GAME_OVER)
    with pytest.raises(ActionError):
        game.apply_chance()


def test_b20_below_the_target_the_game_goes_on() -> None:
    """B-20: 165 is short of 1000: no winner, next round at a chance node."""
    game = deal(SCORE_HAND, SCORE0, bridge="10♥", deck="7♣ 5♣")
    score_round_without_kantrame(game)
    assert not game.is_over and game.is_chance_node


def test_b20_a_tie_goes_to_the_player_who_went_out() -> None:
    """B-20: equal top scores: the player who went out in the last round wins."""
    rules = BlagogoRules(players=2, target=100)
    game = Game(rules, seed=0, first_dealer=0)
    game.scores[0] = 365  # the sheet before this round: seat 0 will lose 200 to kantrame, seat 1 win 165
    game.apply_chance(stack(2, 0, {1: SCORE_HAND, 0: SCORE0}, "10♥"))
    melds = ("A♠ A♣ A♦", "Q♥ K♥ A♥", "2♣ 3♣ 4♣", "7♦ 7♠ 7♥")
    lay(game, 1, *(spec(game, 1, m) for m in melds))
    discard(game, 1, "9♠")
    assert game.scores == [165, 165] and game.winner == 1


def test_b20_a_tie_between_others_goes_to_the_earlier_seat_after_the_dealer() -> None:
    """B-20: when the player who went out is not among the tied, the earliest seat after the dealer wins."""
    rules = BlagogoRules(players=3, target=1000)
    game = Game(rules, seed=0, first_dealer=0)
    shuffle = stack(3, 0, {1: SCORE_HAND, 2: SCORE0}, "10♥", fill=True)
    game.apply_chance(shuffle)
    r = rnd(game)
    for seat in (0, 2):
        game.scores[seat] = 1000 + 2 * hand_penalty(r.hands[seat], rules.ace_in_hand)
    melds = ("A♠ A♣ A♦", "Q♥ K♥ A♥", "2♣ 3♣ 4♣", "7♦ 7♠ 7♥")
    lay(game, 1, *(spec(game, 1, m) for m in melds))
    discard(game, 1, "9♠")
    assert game.scores == [1000, 165, 1000]
    assert game.winner == 2  # seats after dealer 0: 1, 2, 0
