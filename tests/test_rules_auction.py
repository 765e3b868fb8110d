"""Thousand from stacked decks: the auction (T-7 to T-9).

The opening bid and its variants (T-7), bids in steps, final passes and the declarer (T-8), and the cap of
120 plus the marriages in hand (T-9).
The reference deal, its stacked hands and the moves to its contract: :mod:`tests.scenario`.
"""

from __future__ import annotations

import pytest

from engine import Bid, IllegalActionError, Pass, Reason, Rules, RulesError
from engine.events import BidMade, TalonTaken
from engine.rules import BidCap, OpeningBid
from tests.scenario import DEALER, HANDS, TALON, dealt_game, of_type, reference_game

# ---------------------------------------------------------------- auction


def test_t7_forced_opening_100() -> None:
    """T-7 FORCED_100: the player left of the dealer says 100 automatically."""
    game, events = dealt_game(Rules(), DEALER, HANDS, [TALON])
    assert of_type(events, BidMade) == [BidMade(1, 100, True)]
    assert game.to_act == 2
    assert Bid(105) in game.legal_actions()
    assert Pass() in game.legal_actions()
    assert Bid(100) not in game.legal_actions()


def test_t7_opening_at_least_100_may_not_pass() -> None:
    """T-7 AT_LEAST_100: the opener bids 100 or more and may not pass."""
    game, _ = dealt_game(Rules(opening_bid=OpeningBid.AT_LEAST_100), DEALER, HANDS, [TALON])
    assert game.to_act == 1
    legal = game.legal_actions()
    assert Pass() not in legal
    assert legal[0] == Bid(100)
    assert Bid(160) in legal and Bid(165) not in legal  # cap 120 + ♠ 40
    with pytest.raises(IllegalActionError) as err:
        game.apply(1, Pass())
    assert err.value.reason is Reason.MUST_BID
    game.apply(1, Bid(115))
    assert game.legal_actions()[0] == Bid(120)


def test_t8_bids_rise_in_steps_passes_are_final_and_the_last_bidder_declares() -> None:
    """T-8: each bid beats the last in steps of bid_step; a pass is final; the last one left declares."""
    game = reference_game()
    with pytest.raises(IllegalActionError) as err:
        game.apply(2, Bid(100))
    assert err.value.reason is Reason.BID_TOO_LOW
    with pytest.raises(IllegalActionError) as err:
        game.apply(2, Bid(107))
    assert err.value.reason is Reason.BID_NOT_MULTIPLE_OF_STEP
    game.apply(2, Bid(105))
    game.apply(0, Pass())
    assert game.to_act == 1
    game.apply(1, Bid(110))
    assert game.to_act == 2  # seat 0 passed and is skipped
    events = game.apply(2, Pass())
    assert game.deal is not None
    assert (game.deal.declarer, game.deal.bid) == (1, 110)
    assert of_type(events, TalonTaken)[0].seat == 1


def test_t8_bid_step_variant() -> None:
    """T-8: bid_step 10."""
    game, _ = dealt_game(Rules(bid_step=10), DEALER, HANDS, [TALON])
    bids = [a.value for a in game.legal_actions() if isinstance(a, Bid)]
    assert bids == [110, 120, 130, 140, 150, 160, 170, 180, 190, 200]
    for step in (0, -5, 7, 12):
        with pytest.raises(RulesError, match="bid_step"):
            Rules(bid_step=step)


def test_t9_bid_cap_is_120_plus_marriages_in_hand() -> None:
    """T-9: nobody bids above 120 without a marriage; the cap is 120 + the marriages held."""
    hands = dict(HANDS)
    hands[2] = "A♥ J♥ K♦ J♦ 10♣ 9♠ J♠"  # no marriage
    hands[1] = "A♠ 10♠ K♠ Q♠ A♣ 9♦ Q♦"
    game, _ = dealt_game(Rules(), DEALER, hands, [TALON])
    bids = [a.value for a in game.legal_actions() if isinstance(a, Bid)]
    assert bids == [105, 110, 115, 120]
    with pytest.raises(IllegalActionError) as err:
        game.apply(2, Bid(125))
    assert err.value.reason is Reason.BID_ABOVE_CAP
    assert "120" in err.value.message
    game.apply(2, Pass())
    bids = [a.value for a in game.legal_actions() if isinstance(a, Bid)]
    assert bids[-1] == 280  # seat 0 holds ♥ and ♣: 120 + 100 + 60


def test_t9_no_bid_cap_variant() -> None:
    """T-9 bid_cap NONE: bids up to the 400 points a deal can hold."""
    game, _ = dealt_game(Rules(bid_cap=BidCap.NONE), DEALER, HANDS, [TALON])
    bids = [a.value for a in game.legal_actions() if isinstance(a, Bid)]
    assert bids[-1] == 400
