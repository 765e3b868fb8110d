"""1000 Blagogo from stacked decks: what each seat is shown, what it may do, and replay (B-21 to B-23).

Views and events hide hands and drawn cards until the round is over (B-21); the legal list holds the simple
actions and the validator is exact for melds (B-22); the same rules, seed and actions give the same
events (B-23). Hands and moves: :mod:`tests.blagogo_helpers`.
"""

from __future__ import annotations

import pytest

from engine.blagogo import (
    SPECTATOR,
    AddToMeld,
    BlagogoReason,
    BlagogoRules,
    Discard,
    End,
    Game,
    LayMelds,
    Rank,
    Suit,
    SwapJoker,
    events_for,
    view,
)
from engine.blagogo.actions import Shuffle
from engine.blagogo.cards import natural
from engine.blagogo.events import CardDrawn, HandDealt, RoundRevealed
from engine.blagogo.randomplay import play
from engine.errors import InvalidActionError
from tests.blagogo_helpers import (
    RUN_HAND,
    SCORE0,
    SCORE_HAND,
    SIX_HEARTS,
    deal,
    discard,
    draw,
    held,
    lay,
    of_type,
    refused,
    rnd,
    spec,
)

# ---------------------------------------------------------------------------------------------- B-21 to B-23


def test_b21_views_and_events_hide_hands_and_drawn_cards() -> None:
    """B-21: own hand only; a drawn card only to the drawer; bridge takes public; all revealed after."""
    game = deal(SCORE_HAND, SCORE0, bridge="10♥", deck="7♣ 5♣")
    start = 0
    assert view(game, 1).hand == rnd(game).hand(1)
    assert view(game, 0).hand == rnd(game).hand(0)
    assert view(game, SPECTATOR).hand == ()
    assert view(game, 0).card_counts == (12, 13)
    dealt = [e for e in events_for(game, 0, start) if isinstance(e, HandDealt)]
    assert {e.seat: e.cards is not None for e in dealt} == {0: True, 1: False}
    lay(game, 1, spec(game, 1, "A♠ A♣ A♦"), spec(game, 1, "Q♥ K♥ A♥"))
    discard(game, 1, "9♠")
    mark = len(game.events)
    draw(game, 0)
    seven = natural(Rank.SEVEN, Suit.CLUBS)
    assert events_for(game, 0, mark) == [CardDrawn(0, seven)]
    assert events_for(game, 1, mark) == [CardDrawn(0, None)]
    assert events_for(game, SPECTATOR, mark) == [CardDrawn(0, None)]
    assert "7♣" not in repr(view(game, 1)) and "7♣" not in repr(events_for(game, 1, mark))
    assert view(game, 1).revealed_hands is None
    discard(game, 0, "7♣")
    draw(game, 1)
    lay(game, 1, spec(game, 1, "2♣ 3♣ 4♣"), spec(game, 1, "7♦ 7♠ 7♥"))
    discard(game, 1, "5♣")
    revealed = view(game, 0)
    assert revealed.revealed_hands is not None and revealed.final_hands is not None
    assert revealed.final_hands[0] == rnd(game).hand(0)
    assert of_type(events_for(game, SPECTATOR), RoundRevealed)[0].order == rnd(game).order


def test_b22_legal_actions_list_the_simple_actions_and_validate_is_exact() -> None:
    """B-22: draws, takes, discards, swaps and single additions are listed; melds are validated."""
    game = deal(RUN_HAND)
    legal = game.legal_actions()
    assert set(legal) == {Discard(c) for c in rnd(game).hand(1)}
    for candidate in game.candidate_melds():
        game.validate(1, candidate)
    assert LayMelds((spec(game, 1, "Q♠ K♠ A♠ 2♠ 3♠"),)) in game.candidate_melds()
    lay(game, 1, spec(game, 1, "5♥ ★ 7♥", SIX_HEARTS), spec(game, 1, "K♠ A♠ 2♠"))
    legal = game.legal_actions()
    q, three, six = held(game, 1, "Q♠")[0], held(game, 1, "3♠")[0], held(game, 1, "6♥")[0]
    assert AddToMeld(1, (q,), (), End.LOW) in legal
    assert AddToMeld(1, (three,), (), End.HIGH) in legal
    assert SwapJoker(0, six) in legal
    assert not [a for a in legal if isinstance(a, LayMelds)]
    for action in legal:
        game.validate(1, action)
    game.validate(1, LayMelds((spec(game, 1, "A♦ 2♦ 3♦"),)))  # legal at any value once open: no exception
    refused(game, 1, AddToMeld(7, (q,), (), End.LOW), BlagogoReason.NO_SUCH_MELD)
    with pytest.raises(InvalidActionError):
        game.apply(1, "discard")  # type: ignore[arg-type]


def test_b23_same_rules_seed_and_actions_give_the_same_events() -> None:
    """B-23: a seeded game replayed from its history gives identical events and scores."""
    rules = BlagogoRules(players=3)
    first = play(rules, seed=11, max_rounds=2)
    second = play(rules, seed=11, max_rounds=2)
    assert first.events == second.events and first.scores == second.scores
    replay = Game(rules, 11)
    for seat, action in first.history:
        if seat is None:
            assert isinstance(action, Shuffle)
            replay.apply_chance(action)
        else:
            assert not isinstance(action, Shuffle)
            replay.apply(seat, action)
    assert replay.events == first.events
    assert Game(rules, 12).chance_outcome() != Game(rules, 11).chance_outcome()
