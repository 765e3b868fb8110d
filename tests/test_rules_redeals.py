"""Thousand from stacked decks: the redeals (T-11 to T-13).

Four nines in hand, before bidding, after the talon or from the exchange (T-11); a weak talon and its
variants (T-12); a weak hand (T-13). That the same dealer deals again is T-3's, in
tests/test_rules_dealing.py.
The reference deal, its stacked hands and the moves to its contract: :mod:`tests.scenario`.
"""

from __future__ import annotations

import pytest

from engine import (
    Bid,
    DemandRedeal,
    GiveCard,
    IllegalActionError,
    NameContract,
    Pass,
    PlayCard,
    Reason,
    RedealReason,
    Rules,
)
from engine.events import DealScored
from engine.rules import WeakTalon
from tests.scenario import FOUR_NINES_HANDS, FOUR_NINES_TALON, dealt_game, of_type
from tests.scenario import card as c

# ---------------------------------------------------------------- redeals


def test_t11_four_nines_before_bidding_only() -> None:
    """T-11: the holder of four nines may demand a redeal before taking part in the auction."""
    game, _ = dealt_game(Rules(), 0, FOUR_NINES_HANDS, [FOUR_NINES_TALON])
    assert DemandRedeal(RedealReason.FOUR_NINES) in game.legal_actions()
    game.apply(2, Bid(105))
    game.apply(0, Pass())
    game.apply(1, Bid(110))
    assert game.to_act == 2
    assert DemandRedeal(RedealReason.FOUR_NINES) not in game.legal_actions()
    with pytest.raises(IllegalActionError) as err:
        game.apply(2, DemandRedeal(RedealReason.FOUR_NINES))
    assert err.value.reason is Reason.REDEAL_NOT_ALLOWED
    off, _ = dealt_game(Rules(redeal_four_nines=False), 0, FOUR_NINES_HANDS, [FOUR_NINES_TALON])
    assert DemandRedeal(RedealReason.FOUR_NINES) not in off.legal_actions()


def test_t11_four_nines_for_the_declarer_after_the_talon() -> None:
    """T-11: the declarer whose talon completes four nines may demand a redeal."""
    hands = {1: "A♠ 10♠ K♠ Q♠ 9♠ 9♥ 10♥", 2: "A♥ J♥ K♦ Q♦ 10♣ J♠ J♦", 0: "K♥ Q♥ A♦ 10♦ K♣ Q♣ J♣"}
    game, _ = dealt_game(Rules(), 0, hands, ["9♦ 9♣ A♣"])
    game.apply(2, Pass())
    game.apply(0, Pass())
    assert DemandRedeal(RedealReason.FOUR_NINES) in game.legal_actions()
    events = game.apply(1, DemandRedeal(RedealReason.FOUR_NINES))
    assert not of_type(events, DealScored)
    assert game.is_chance_node and game.dealer == 0


def test_t11_four_nines_received_in_the_exchange() -> None:
    """T-11: a card given in the exchange that makes a fourth nine lets the receiver demand a redeal."""
    hands = {1: "A♠ 10♠ K♠ Q♠ A♣ 9♠ 10♥", 2: "J♠ 9♥ J♥ 9♦ K♦ 9♣ Q♦", 0: "K♥ Q♥ A♦ 10♦ K♣ Q♣ A♥"}
    game, _ = dealt_game(Rules(), 0, hands, ["J♣ J♦ 10♣"])
    game.apply(2, Pass())
    game.apply(0, Pass())
    game.apply(1, GiveCard(c("9♠"), 2))
    game.apply(1, GiveCard(c("J♣"), 0))
    game.apply(1, NameContract(100))
    game.apply(1, PlayCard(c("A♠")))
    assert game.to_act == 2
    assert DemandRedeal(RedealReason.FOUR_NINES) in game.legal_actions()
    game.apply(2, DemandRedeal(RedealReason.FOUR_NINES))
    assert game.is_chance_node and game.dealer == 0


def test_t12_weak_talon() -> None:
    """T-12: two nines, or two jacks and a nine, in the talon let the declarer demand a redeal."""
    hands = {1: "A♠ 10♠ K♠ Q♠ A♣ 9♠ 10♥", 2: "J♠ 10♣ J♥ K♦ Q♦ 9♣ A♥", 0: "K♥ Q♥ A♦ 10♦ K♣ Q♣ J♣"}
    for rules, talon, weak in [
        (Rules(), "9♥ 9♦ J♦", True),
        (Rules(weak_talon=WeakTalon.OFF), "9♥ 9♦ J♦", False),
        (Rules(weak_talon=WeakTalon.BELOW_POINTS, weak_talon_below_points=5), "9♥ 9♦ J♦", True),
        (Rules(weak_talon=WeakTalon.BELOW_POINTS, weak_talon_below_points=2), "9♥ 9♦ J♦", False),
    ]:
        game, _ = dealt_game(rules, 0, hands, [talon])
        game.apply(2, Pass())
        game.apply(0, Pass())
        assert (DemandRedeal(RedealReason.WEAK_TALON) in game.legal_actions()) is weak, (rules, talon)


def test_t12_two_jacks_and_a_nine() -> None:
    """T-12: two jacks and a nine make a weak talon by default."""
    hands = {1: "A♠ 10♠ K♠ Q♠ A♣ 9♠ 10♥", 2: "J♠ 10♣ 9♥ K♦ Q♦ 9♣ A♥", 0: "K♥ Q♥ A♦ 10♦ K♣ Q♣ J♣"}
    game, _ = dealt_game(Rules(), 0, hands, ["J♥ 9♦ J♦"])
    game.apply(2, Pass())
    game.apply(0, Pass())
    assert DemandRedeal(RedealReason.WEAK_TALON) in game.legal_actions()


def test_t13_weak_hand() -> None:
    """T-13: a hand worth 13 points or less may demand a redeal before the auction; 0 disables it."""
    hands = {1: "A♠ 10♠ K♠ Q♠ A♣ 10♣ 10♥", 2: "9♠ J♠ 9♥ J♥ 9♦ K♦ Q♦", 0: "K♥ Q♥ A♦ 10♦ K♣ Q♣ A♥"}
    talon = "J♣ 9♣ J♦"
    game, _ = dealt_game(Rules(), 0, hands, [talon])  # seat 2: 0+2+0+2+0+4+3 = 11
    assert DemandRedeal(RedealReason.WEAK_HAND) in game.legal_actions()
    off, _ = dealt_game(Rules(weak_hand_max_points=0), 0, hands, [talon])
    assert DemandRedeal(RedealReason.WEAK_HAND) not in off.legal_actions()
    strict, _ = dealt_game(Rules(weak_hand_max_points=10), 0, hands, [talon])
    assert DemandRedeal(RedealReason.WEAK_HAND) not in strict.legal_actions()
