"""Scenario tests from stacked decks for the cards, the deal and the play: T-1 to T-21."""

from __future__ import annotations

import pytest

from engine import (
    SPECTATOR,
    Action,
    Bid,
    ChooseTalon,
    Concede,
    DeclareDark,
    DeclineDark,
    DemandRedeal,
    DiscardCard,
    Game,
    GiveCard,
    IllegalActionError,
    InvalidActionError,
    NameContract,
    Pass,
    Phase,
    PlayCard,
    Reason,
    RedealReason,
    Rules,
    RulesError,
    Shuffle,
    Suit,
    events_for,
    view,
)
from engine.cards import CARD_POINTS_TOTAL, CARDS, Rank, marriage_points_in, mask_of, points_of
from engine.events import (
    BidMade,
    CardGiven,
    DealScored,
    HandDealt,
    LastTalonTaken,
    MarriageDeclared,
    TalonTaken,
    TrickTaken,
)
from engine.rules import BidCap, OpeningBid, SitterScores, TwoPlayerDeal, WeakTalon
from tests.scenario import AUCTION_TO_110, DEALER, HANDS, TALON, TRICKS, cards, dealt_game, of_type, play, run
from tests.scenario import card as c


def reference_game(rules: Rules | None = None) -> Game:
    game, _ = dealt_game(rules or Rules(), DEALER, HANDS, [TALON])
    return game


def to_contract(game: Game, contract: int = 120) -> None:
    """Auction 100-105-pass-110-pass, seat 1 takes the talon, gives 9♦ to seat 2 and 9♥ to seat 0."""
    game.apply(2, Bid(105))
    game.apply(0, Pass())
    game.apply(1, Bid(110))
    game.apply(2, Pass())
    game.apply(1, GiveCard(c("9♦"), 2))
    game.apply(1, GiveCard(c("9♥"), 0))
    game.apply(1, NameContract(contract))


# ---------------------------------------------------------------- cards


def test_t1_deck_has_24_cards_and_120_points() -> None:
    """T-1: 24 cards, four suits of 9 J Q K 10 A, card points summing to 120."""
    assert len(CARDS) == 24
    assert len(set(CARDS)) == 24
    assert [r.label for r in Rank] == ["9", "J", "Q", "K", "10", "A"]
    assert [r.points for r in Rank] == [0, 2, 3, 4, 10, 11]
    assert sum(x.points for x in CARDS) == CARD_POINTS_TOTAL == 120
    assert points_of(mask_of(CARDS)) == 120


def test_t1_rank_order_decides_tricks() -> None:
    """T-1, T-19: the ten beats the king; the ace beats the ten."""
    game = reference_game()
    to_contract(game)
    events = play(game, "A♠ 9♠ 9♣")
    assert of_type(events, TrickTaken)[0].seat == 1


def test_t2_marriage_values() -> None:
    """T-2: ♠ 40, ♣ 60, ♦ 80, ♥ 100 for the king and queen of one suit."""
    assert [s.marriage_points for s in Suit] == [40, 60, 80, 100]
    assert marriage_points_in(mask_of(cards("K♠ Q♠ K♥ Q♥ K♦"))) == 140
    assert marriage_points_in(mask_of(cards("K♣ Q♦"))) == 0


def test_card_parsing_accepts_symbols_and_letters() -> None:
    assert c("10♥") == c("10H") == c("TH") == c("th")
    assert str(c("qs")) == "Q♠"
    with pytest.raises(ValueError, match="not a card"):
        c("11X")


# ---------------------------------------------------------------- seats and dealing


def test_t3_first_dealer_from_seed_or_creator_and_rotation() -> None:
    """T-3: the first dealer comes from the seed (or the creator); the deal passes to the left."""
    dealers = {Game(Rules(), seed).first_dealer for seed in range(30)}
    assert dealers == {0, 1, 2}
    assert Game(Rules(), 7).first_dealer == Game(Rules(), 7).first_dealer
    game = reference_game()
    assert game.dealer == 0
    game.apply(2, Pass())
    game.apply(0, Pass())
    game.apply(1, Concede())
    assert game.is_chance_node
    assert game.dealer == 1


def test_t3_redeal_is_dealt_by_the_same_dealer() -> None:
    """T-3, T-13: a redeal is dealt again by the same dealer."""
    game, _ = dealt_game(Rules(), 0, FOUR_NINES_HANDS, [FOUR_NINES_TALON])
    assert DemandRedeal(RedealReason.FOUR_NINES) in game.legal_actions()
    events = game.apply(2, DemandRedeal(RedealReason.FOUR_NINES))
    assert not of_type(events, DealScored)
    assert game.is_chance_node
    assert game.dealer == 0
    assert game.next_setup().dealer == 0
    assert [r.score for r in game.records] == [0, 0, 0]


def test_t4_three_players_get_seven_cards_and_a_talon_of_three() -> None:
    """T-4: 7 cards each, 3 in the talon."""
    game = Game(Rules(), 1)
    events = game.apply_chance()
    assert [e.count for e in of_type(events, HandDealt)] == [7, 7, 7]
    v = view(game, 0)
    assert v.card_counts == (7, 7, 7)
    assert v.talon_counts == (3,)


def test_t5_two_players_choose_a_talon_give_one_and_discard_one() -> None:
    """T-5, T-21: 9 cards and two talons of 3; choose one (shown), give one card, discard one; 10 each."""
    rules = Rules(players=2)
    hands = {1: "A♠ 10♠ K♠ Q♠ J♠ 9♠ A♣ 10♣ K♣", 0: "A♥ 10♥ K♥ Q♥ J♥ 9♥ A♦ 10♦ K♦"}
    game, events = dealt_game(rules, 0, hands, ["Q♣ J♣ 9♣", "Q♦ J♦ 9♦"])
    assert [e.count for e in of_type(events, HandDealt)] == [9, 9]
    assert view(game, 1).talon_counts == (3, 3)
    game.apply(0, Pass())  # seat 1 opened with the forced 100
    assert game.legal_actions() == (ChooseTalon(0), ChooseTalon(1))
    events = game.apply(1, ChooseTalon(1))
    taken = of_type(events, TalonTaken)[0]
    assert taken.face_up  # T-5: revealed to both
    assert events_for(game, 0)[-1] == taken
    assert view(game, 1).card_counts == (9, 12)
    game.apply(1, GiveCard(c("9♠"), 0))
    game.apply(1, DiscardCard(c("J♠")))
    assert view(game, 0).card_counts == (10, 10)
    assert view(game, 0).talon_counts == (4, 0)
    game.apply(1, NameContract(100))
    # Seat 1 leads ten rounds; the winner of the last trick takes the other talon with its points.
    seat1 = "A♠ 10♠ K♠ Q♠ A♣ 10♣ K♣ Q♦ J♦ 9♦"
    for card_text in seat1.split():
        game.apply(1, PlayCard(c(card_text)))
        game.apply(0, game.legal_actions()[0])
    last = of_type(game.events, LastTalonTaken)
    assert len(last) == 1
    assert set(last[0].cards) == set(cards("Q♣ J♣ 9♣ J♠"))
    assert last[0].points == 3 + 2 + 0 + 2


def test_t5_polish_two_player_deal() -> None:
    """T-5: TEN_AND_TWO_TALONS_OF_2: 10 cards each and two talons of 2; the declarer discards two."""
    rules = Rules(players=2, two_player_deal=TwoPlayerDeal.TEN_AND_TWO_TALONS_OF_2)
    game = Game(rules, 3, first_dealer=0)
    events = game.apply_chance()
    assert [e.count for e in of_type(events, HandDealt)] == [10, 10]
    game.apply(0, Pass())
    game.apply(1, ChooseTalon(0))
    hand = view(game, 1).hand
    assert len(hand) == 12
    assert not any(isinstance(a, GiveCard) for a in game.legal_actions())
    game.apply(1, DiscardCard(hand[0]))
    game.apply(1, DiscardCard(hand[1]))
    assert view(game, 0).card_counts == (10, 10)
    assert game.deal is not None and game.deal.phase is Phase.CONTRACT


def test_t5_t31_dark_is_never_played_by_two() -> None:
    """T-5, T-31: dark is not allowed with two players."""
    with pytest.raises(RulesError, match="dark"):
        Rules(players=2, dark=True)


def test_t6_four_players_dealer_sits_out() -> None:
    """T-6: with four players the dealer sits the deal out."""
    game = Game(Rules(players=4), 2, first_dealer=3)
    game.apply_chance()
    v = view(game, 3)
    assert v.active == (0, 1, 2)
    assert v.sitter == 3
    assert v.hand == ()
    assert v.card_counts == (7, 7, 7, 0)
    assert game.to_act == 1  # seat 0 opened with the forced 100


def test_t6_sitter_scores_talon_aces_and_marriage() -> None:
    """T-6: TALON_ACES_AND_MARRIAGE: the sitter scores 50 per ace and the marriage lying in the talon."""
    rules = Rules(players=4, sitter_scores=SitterScores.TALON_ACES_AND_MARRIAGE)
    hands = {1: HANDS[1], 2: HANDS[2], 3: HANDS[0]}
    game, _ = dealt_game(rules, 0, hands, [TALON])
    game.apply(2, Pass())
    game.apply(3, Pass())
    events = game.apply(1, Concede())
    assert of_type(events, DealScored)[0].deltas == (0, -100, 50, 50)
    # A talon with A♥ A♦ and no marriage: 100.
    hands = {1: HANDS[1], 2: "10♥ J♥ K♦ Q♦ 10♣ 9♠ J♠", 3: "K♥ Q♥ 9♥ 10♦ K♣ Q♣ 9♣"}
    game, _ = dealt_game(rules, 0, hands, ["J♣ A♥ A♦"])
    game.apply(2, Pass())
    game.apply(3, Pass())
    events = game.apply(1, Concede())
    assert of_type(events, DealScored)[0].deltas[0] == 100
    # A talon holding K♠ Q♠ ... (marriage 40) and A♠: 90.
    hands = {1: "10♠ 9♠ J♠ A♣ 9♦ J♦ 10♥", 2: "A♥ J♥ K♦ Q♦ 10♣ 9♥ J♣", 3: "K♥ Q♥ A♦ 10♦ K♣ Q♣ 9♣"}
    game, _ = dealt_game(rules, 0, hands, ["K♠ Q♠ A♠"])
    game.apply(2, Pass())
    game.apply(3, Pass())
    events = game.apply(1, Concede())
    assert of_type(events, DealScored)[0].deltas[0] == 90


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


# ---------------------------------------------------------------- talon and redeals


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


FOUR_NINES_HANDS = {
    1: "A♠ 10♠ K♠ Q♠ A♣ J♦ 10♥",
    2: "9♠ J♠ 9♥ J♥ 9♦ K♦ 9♣",
    0: "K♥ Q♥ A♦ 10♦ K♣ Q♣ A♥",
}
FOUR_NINES_TALON = "J♣ Q♦ 10♣"


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


# ---------------------------------------------------------------- play


def test_t17_declarer_leads_without_trump() -> None:
    """T-17: the declarer leads the first trick; no trump at the start."""
    game = reference_game()
    to_contract(game)
    assert game.to_act == 1
    assert view(game, 1).trump is None
    plays = [a for a in game.legal_actions() if isinstance(a, PlayCard)]
    assert len(plays) == 8  # any card, and no marriage on the first lead
    assert set(game.legal_actions()) - set(plays) == {Concede()}


def test_t18_follow_suit_then_trump_then_anything() -> None:
    """T-18: follow suit; if unable, trump if set and held; otherwise any card. No duty to beat."""
    game = reference_game()
    to_contract(game)
    game.apply(1, PlayCard(c("A♠")))
    assert set(game.legal_actions()) == {PlayCard(c("9♠")), PlayCard(c("J♠"))}
    with pytest.raises(IllegalActionError) as err:
        game.apply(2, PlayCard(c("A♥")))
    assert err.value.reason is Reason.MUST_FOLLOW_SUIT
    game.apply(2, PlayCard(c("9♠")))
    assert len(game.legal_actions()) == 8  # seat 0 has no spade and there is no trump: anything
    game.apply(0, PlayCard(c("9♣")))
    play(game, "K♠* J♠ 9♥")  # ♠ trump now
    play(game, "A♣ 10♣ Q♣ | J♦ K♦ A♦ | K♥* 10♥ A♥")  # ♥ trump now
    game.apply(2, PlayCard(c("Q♦")))
    game.apply(0, PlayCard(c("10♦")))
    # Seat 1 holds no ♦ and no ♥: anything.
    assert {a.card for a in game.legal_actions() if isinstance(a, PlayCard)} == set(cards("J♣ 10♠ Q♠"))


def test_t18_must_trump_when_void() -> None:
    """T-18: a player who cannot follow must play a trump when one is set and held."""
    hands = {1: "A♠ 10♠ K♠ Q♠ A♣ 9♦ J♦", 2: "A♥ 10♥ K♦ Q♦ J♣ 9♠ J♠", 0: "K♥ Q♥ A♦ 10♦ K♣ Q♣ 9♣"}
    game, _ = dealt_game(Rules(), 0, hands, ["10♣ 9♥ J♥"])
    game.apply(2, Pass())
    game.apply(0, Pass())
    game.apply(1, GiveCard(c("9♦"), 2))
    game.apply(1, GiveCard(c("J♦"), 0))
    game.apply(1, NameContract(100))
    play(game, "A♣ J♣ 9♣")  # seat 1 wins
    play(game, "K♠* 9♠ Q♣")  # ♠ trump; seat 1 wins
    game.apply(1, PlayCard(c("J♥")))  # seat 2 must follow ♥
    game.apply(2, PlayCard(c("10♥")))
    # Seat 0 holds K♥ Q♥: must follow; now make seat 0 void: play on.
    game.apply(0, PlayCard(c("Q♥")))
    # seat 2 won with 10♥ and leads ♦; seat 0 follows ♦; seat 1 has no ♦ and holds trumps A♠ 10♠ Q♠.
    game.apply(2, PlayCard(c("K♦")))
    game.apply(0, PlayCard(c("A♦")))
    assert {a.card for a in game.legal_actions() if isinstance(a, PlayCard)} == set(cards("A♠ 10♠ Q♠"))
    with pytest.raises(IllegalActionError) as err:
        game.apply(1, PlayCard(c("10♣")))
    assert err.value.reason is Reason.MUST_TRUMP


def test_t18_must_beat_variant() -> None:
    """T-18 must_beat: a follower must beat the trick when they can."""
    game = reference_game(Rules(must_beat=True))
    to_contract(game)
    game.apply(1, PlayCard(c("Q♠")))
    assert {a.card for a in game.legal_actions() if isinstance(a, PlayCard)} == {c("9♠"), c("J♠")}
    game.apply(2, PlayCard(c("J♠")))
    game.apply(0, PlayCard(c("9♣")))
    # Seat 1 won; lead A♣: seat 2 has 10♣ only, seat 0 must play a club: K♣ or Q♣ (cannot beat A♣).
    game.apply(1, PlayCard(c("J♦")))
    # Seat 2 holds K♦ Q♦ 9♦: must beat J♦ with K♦ or Q♦, not 9♦.
    assert {a.card for a in game.legal_actions() if isinstance(a, PlayCard)} == {c("K♦"), c("Q♦")}
    with pytest.raises(IllegalActionError) as err:
        game.apply(2, PlayCard(c("9♦")))
    assert err.value.reason is Reason.MUST_BEAT


def test_t19_highest_trump_or_highest_of_the_suit_led_wins_and_leads() -> None:
    """T-19: the highest trump wins, else the highest card of the suit led; the winner leads next."""
    game = reference_game()
    to_contract(game)
    play(game, "A♠ 9♠ 9♣ | K♠* J♠ 9♥ | A♣ 10♣ Q♣")
    events = play(game, "J♦ K♦ A♦")
    assert of_type(events, TrickTaken)[0].seat == 0
    assert game.to_act == 0


def test_t20_marriage_sets_trump_and_scores() -> None:
    """T-20: leading K or Q of a held marriage declares it: its points and trump for the rest of the deal."""
    game = reference_game()
    to_contract(game)
    play(game, "A♠ 9♠ 9♣")
    events = play(game, "K♠* J♠ 9♥")
    assert of_type(events, MarriageDeclared) == [MarriageDeclared(1, Suit.SPADES, 40)]
    assert view(game, 0).trump is Suit.SPADES
    play(game, "A♣ 10♣ Q♣ | J♦ K♦ A♦")
    events = play(game, "K♥* 10♥ A♥")
    assert view(game, 2).trump is Suit.HEARTS  # re-declared ("перехвалить")
    assert [m.points for m in of_type(game.events, MarriageDeclared)] == [40, 100]
    assert view(game, SPECTATOR).marriages == ((1, Suit.SPADES), (0, Suit.HEARTS))


def test_t20_no_marriage_on_the_first_lead_unless_the_variant_allows() -> None:
    """T-20: not on the declarer's first lead (variant marriage_on_first_trick)."""
    game = reference_game()
    to_contract(game)
    assert PlayCard(c("K♠"), marriage=True) not in game.legal_actions()
    with pytest.raises(IllegalActionError) as err:
        game.apply(1, PlayCard(c("K♠"), marriage=True))
    assert err.value.reason is Reason.MARRIAGE_NOT_ALLOWED_ON_FIRST_TRICK
    allowed = reference_game(Rules(marriage_on_first_trick=True))
    to_contract(allowed)
    assert PlayCard(c("K♠"), marriage=True) in allowed.legal_actions()
    assert PlayCard(c("Q♠"), marriage=True) in allowed.legal_actions()


def test_t20_leading_k_without_declaring_changes_nothing_and_needs_both_cards() -> None:
    """T-20: a K or Q may be led plainly; a marriage needs both cards in hand, and only on lead."""
    game = reference_game()
    to_contract(game)
    play(game, "A♠ 9♠ 9♣")
    play(game, "K♠ J♠ 9♥")
    assert view(game, 0).trump is None
    with pytest.raises(IllegalActionError) as err:
        game.apply(1, PlayCard(c("Q♠"), marriage=True))
    assert err.value.reason is Reason.MARRIAGE_NOT_HELD
    game.apply(1, PlayCard(c("A♣")))
    with pytest.raises(IllegalActionError) as err:
        game.apply(2, PlayCard(c("10♣"), marriage=True))
    assert err.value.reason is Reason.MARRIAGE_NOT_ON_LEAD


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


def test_trick_script_of_the_reference_deal_is_all_legal() -> None:
    """T-18, T-19: the reference deal's eight tricks as scripted in tests/scenario.py."""
    game = reference_game()
    to_contract(game)
    events = play(game, TRICKS)
    assert [t.seat for t in of_type(events, TrickTaken)] == [1, 1, 1, 0, 2, 0, 0, 0]
    assert sum(t.points for t in of_type(events, TrickTaken)) == 120


def test_values_that_only_compare_equal_are_applied_as_the_engines_own() -> None:
    """T-34: Bid(105.0) equals the legal Bid(105); what is recorded is the legal, well-typed action."""
    game = reference_game()
    events = game.apply(2, Bid(105.0))  # type: ignore[arg-type]
    bid = of_type(events, BidMade)[0]
    assert bid.value == 105 and type(bid.value) is int
    with pytest.raises(IllegalActionError) as err:
        game.apply(True, Pass())
    assert err.value.reason is Reason.INVALID_SEAT


def test_a_shuffle_of_non_cards_is_malformed() -> None:
    with pytest.raises(InvalidActionError):
        Game(Rules(), 1).apply_chance(Shuffle(("x",) * 24))  # type: ignore[arg-type]
