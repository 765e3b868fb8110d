"""Thousand from stacked decks: actions the engine refuses (T-34).

A rejected action changes nothing; only the seat to act may act; a value that only compares equal to a
legal one is recorded as the engine's own; a shuffle of things that are not cards is malformed.
The reference deal, its stacked hands and the moves to its contract: :mod:`tests.scenario`.
"""

from __future__ import annotations

import pytest

from engine import (
    Action,
    Bid,
    Concede,
    DeclareDark,
    DeclineDark,
    DemandRedeal,
    Game,
    IllegalActionError,
    InvalidActionError,
    Pass,
    PlayCard,
    Reason,
    RedealReason,
    Rules,
    Shuffle,
    view,
)
from engine.events import BidMade
from tests.property_helpers import replay
from tests.scenario import card as c
from tests.scenario import of_type, reference_game, to_contract

# ---------------------------------------------------------------- refusals


def test_illegal_actions_leave_the_game_unchanged() -> None:
    """T-34: a rejected action changes nothing."""
    game = reference_game()
    to_contract(game)
    before = (repr(view(game, 0)), repr(view(game, 1)), repr(view(game, 2)), len(game.events))
    rejected: list[tuple[int, Action]] = [
        (2, PlayCard(c("9♠"))),
        (1, PlayCard(c("K♥"))),
        (1, Bid(130)),
        (1, DeclareDark()),
        (1, DeclineDark()),
        (2, Concede()),
        (1, DemandRedeal(RedealReason.WEAK_HAND)),
    ]
    for seat, action in rejected:
        with pytest.raises(IllegalActionError):
            game.apply(seat, action)
    after = (repr(view(game, 0)), repr(view(game, 1)), repr(view(game, 2)), len(game.events))
    assert before == after


def test_not_your_turn() -> None:
    """T-34: only the seat to act may act."""
    game = reference_game()
    with pytest.raises(IllegalActionError) as err:
        game.apply(0, Pass())
    assert err.value.reason is Reason.NOT_YOUR_TURN
    with pytest.raises(IllegalActionError) as err:
        game.apply(5, Pass())
    assert err.value.reason is Reason.INVALID_SEAT


def test_values_that_only_compare_equal_are_applied_as_the_engines_own() -> None:
    """T-34: Bid(105.0) equals the legal Bid(105); what is recorded is the legal, well-typed action."""
    game = reference_game()
    events = game.apply(2, Bid(105.0))  # type: ignore[arg-type]
    bid = of_type(events, BidMade)[0]
    assert bid.value == 105 and type(bid.value) is int
    with pytest.raises(IllegalActionError) as err:
        game.apply(True, Pass())
    assert err.value.reason is Reason.INVALID_SEAT


def test_a_malformed_card_play_is_refused_and_one_that_only_compares_equal_is_played_as_the_engines() -> None:
    """T-34, in card play (the engine's fast path): PlayCard("x") is not a card, PlayCard(card, 1) asks for a
    marriage the seat cannot declare, PlayCard(card, 0) equals the legal play and is recorded as it."""
    game = reference_game()
    to_contract(game)
    seat = game.to_act
    assert seat is not None
    before = repr(view(game, seat))
    with pytest.raises(InvalidActionError):
        game.apply(seat, PlayCard("x"))  # type: ignore[arg-type]
    legal = next(a for a in game.legal_actions() if isinstance(a, PlayCard) and not a.marriage)
    with pytest.raises(IllegalActionError):
        game.apply(seat, PlayCard(legal.card, 1))  # type: ignore[arg-type]
    assert repr(view(game, seat)) == before
    events = game.apply(seat, PlayCard(legal.card, 0))  # type: ignore[arg-type]
    assert events and all(type(getattr(e, "marriage", False)) is bool for e in events)
    recorded = game.history[-1][1]
    assert recorded == legal and type(recorded) is PlayCard and recorded.marriage is False


def test_the_history_records_the_engines_own_action_and_replays_to_the_same_game() -> None:
    """T-34, T-35: Game.history holds the legal Bid(105), an int, for a Bid(105.0) given, as the events do;
    the history replayed into a new game gives the same game, records included."""
    game = reference_game()
    game.apply(2, Bid(105.0))  # type: ignore[arg-type]
    game.apply(0, Pass())
    game.apply(1, Bid(110.0))  # type: ignore[arg-type]
    bids = [action for seat, action in game.history if isinstance(action, Bid)]
    assert bids == [Bid(105), Bid(110)]
    assert all(type(bid.value) is int for bid in bids)
    again = replay(game.rules, game.seed, game.history, game.first_dealer)
    assert repr(again.history) == repr(game.history)
    assert repr(again.events) == repr(game.events)
    assert [repr(view(again, s)) for s in range(3)] == [repr(view(game, s)) for s in range(3)]


def test_a_shuffle_of_non_cards_is_malformed() -> None:
    with pytest.raises(InvalidActionError):
        Game(Rules(), 1).apply_chance(Shuffle(("x",) * 24))  # type: ignore[arg-type]
