"""Thousand from stacked decks: the talon, the exchange and the contract (T-10, T-14 to T-16).

The talon taken face up after a contest or closed on an uncontested 100 (T-10), one card given face down to
each opponent (T-14), the contract named within the cap (T-15), and the rospis that concedes it (T-16).
Redeals (T-11 to T-13) are in tests/test_rules_redeals.py.
The reference deal, its stacked hands and the moves to its contract: :mod:`tests.scenario`.
"""

from __future__ import annotations

import pytest

from engine import (
    SPECTATOR,
    Bid,
    Concede,
    GiveCard,
    IllegalActionError,
    NameContract,
    Pass,
    PlayCard,
    Reason,
    Rules,
    events_for,
    view,
)
from engine.events import CardGiven, DealScored, TalonTaken, TrickTaken
from tests.scenario import AUCTION_TO_110, cards, of_type, reference_game, run, to_contract
from tests.scenario import card as c

# ---------------------------------------------------------------- talon


def test_t10_talon_face_up_after_a_contest() -> None:
    """T-10: the declarer takes the talon face up; every seat sees it."""
    game = reference_game()
    game.apply(2, Bid(105))
    game.apply(0, Pass())
    game.apply(1, Bid(110))
    game.apply(2, Pass())
    for seat in (0, 2, SPECTATOR):
        assert view(game, seat).talon == cards("J♣ 9♥ 10♥")
        taken = of_type(events_for(game, seat), TalonTaken)[0]
        assert taken.face_up and taken.cards == cards("J♣ 9♥ 10♥")


def test_t10_uncontested_100_takes_the_talon_closed() -> None:
    """T-10: with an uncontested 100 only the declarer sees the talon."""
    game = reference_game()
    game.apply(2, Pass())
    game.apply(0, Pass())
    assert view(game, 1).talon == cards("J♣ 9♥ 10♥")
    for seat in (0, 2, SPECTATOR):
        assert view(game, seat).talon is None
        taken = of_type(events_for(game, seat), TalonTaken)[0]
        assert not taken.face_up and taken.cards is None
    open_game = reference_game(Rules(closed_talon_on_uncontested_100=False))
    open_game.apply(2, Pass())
    open_game.apply(0, Pass())
    assert view(open_game, 0).talon == cards("J♣ 9♥ 10♥")


# ---------------------------------------------------------------- exchange and contract


def test_t14_exchange_one_card_to_each_opponent_seen_by_giver_and_receiver_only() -> None:
    """T-14: the declarer gives one card face down to each opponent; each then holds 8."""
    game = reference_game()
    game.apply(2, Bid(105))
    game.apply(0, Pass())
    game.apply(1, Bid(110))
    game.apply(2, Pass())
    assert view(game, 1).card_counts == (7, 10, 7)
    game.apply(1, GiveCard(c("9♦"), 2))
    with pytest.raises(IllegalActionError) as err:
        game.apply(1, GiveCard(c("J♣"), 2))
    assert err.value.reason is Reason.ALREADY_GIVEN
    with pytest.raises(IllegalActionError) as err:
        game.apply(1, GiveCard(c("K♥"), 0))
    assert err.value.reason is Reason.NO_SUCH_CARD
    game.apply(1, GiveCard(c("9♥"), 0))
    assert view(game, 0).card_counts == (8, 8, 8)
    given = {seat: [e.card for e in of_type(events_for(game, seat), CardGiven)] for seat in (0, 1, 2)}
    assert given[1] == [c("9♦"), c("9♥")]
    assert given[2] == [c("9♦"), None]
    assert given[0] == [None, c("9♥")]
    assert [e.card for e in of_type(events_for(game, SPECTATOR), CardGiven)] == [None, None]
    assert c("9♥") in view(game, 0).hand


def test_t15_contract_at_least_the_bid_within_the_cap() -> None:
    """T-15: the contract is at least the winning bid, a multiple of 5, within the cap of the hand held."""
    game = reference_game()
    game.apply(2, Bid(105))
    game.apply(0, Pass())
    game.apply(1, Bid(110))
    game.apply(2, Pass())
    game.apply(1, GiveCard(c("9♦"), 2))
    game.apply(1, GiveCard(c("9♥"), 0))
    contracts = [a.value for a in game.legal_actions() if isinstance(a, NameContract)]
    assert contracts == list(range(110, 165, 5))
    for value, reason in [
        (105, Reason.CONTRACT_TOO_LOW),
        (112, Reason.CONTRACT_NOT_MULTIPLE_OF_5),
        (165, Reason.CONTRACT_ABOVE_CAP),
    ]:
        with pytest.raises(IllegalActionError) as err:
            game.apply(1, NameContract(value))
        assert err.value.reason is reason
    game.apply(1, NameContract(150))
    assert game.deal is not None and game.deal.contract == 150


def test_t16_rospis_after_the_contract_until_the_first_card() -> None:
    """T-16: the declarer may concede after naming the contract, until the first card is played."""
    game = reference_game()
    to_contract(game, 115)
    assert Concede() in game.legal_actions()
    game.apply(1, PlayCard(c("A♠")))
    with pytest.raises(IllegalActionError) as err:
        game.apply(2, Concede())
    assert err.value.reason is Reason.WRONG_PHASE
    conceding = reference_game()
    to_contract(conceding, 115)
    events = conceding.apply(1, Concede())
    assert of_type(events, DealScored)[0].deltas == (60, -115, 60)


def test_t16_rospis_scores() -> None:
    """T-16: rospis of 115 gives -115 and +60 to each opponent; nobody gets a bolt; no tricks are played."""
    game = reference_game()
    run(game, AUCTION_TO_110)
    game.apply(1, GiveCard(c("9♦"), 2))
    game.apply(1, GiveCard(c("9♥"), 0))
    assert Concede() in game.legal_actions()
    events = game.apply(1, Concede())
    scored = of_type(events, DealScored)[0]
    assert scored.contract == 110
    assert scored.deltas == (55, -110, 55)
    assert not of_type(events, TrickTaken)
    assert [r.bolts for r in game.records] == [0, 0, 0]
