"""Thousand from stacked decks: the cards, the seats and the deal (T-1 to T-6).

The 24 cards and their points (T-1), the marriages (T-2), the dealer and its rotation, redeals included
(T-3), the deal to three (T-4), to two with the talon chosen, a card given and one discarded (T-5), and to
four with the dealer sitting out and what the sitter scores (T-6).
The reference deal, its stacked hands and the moves to its contract: :mod:`tests.scenario`.
"""

from __future__ import annotations

import pytest

from engine import (
    ChooseTalon,
    Concede,
    DemandRedeal,
    DiscardCard,
    Game,
    GiveCard,
    NameContract,
    Pass,
    Phase,
    PlayCard,
    RedealReason,
    Rules,
    RulesError,
    Suit,
    events_for,
    view,
)
from engine.cards import CARD_POINTS_TOTAL, CARDS, Rank, marriage_points_in, mask_of, points_of
from engine.events import DealScored, HandDealt, LastTalonTaken, TalonTaken, TrickTaken
from engine.rules import SitterScores, TwoPlayerDeal
from tests.scenario import (
    FOUR_NINES_HANDS,
    FOUR_NINES_TALON,
    HANDS,
    TALON,
    cards,
    dealt_game,
    of_type,
    play,
    reference_game,
    to_contract,
)
from tests.scenario import card as c

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
