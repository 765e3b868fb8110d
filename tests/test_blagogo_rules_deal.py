"""1000 Blagogo from stacked decks: the cards and their values, the deal and the turn (B-1 to B-5, B-7, B-8).

The deck of 108 cards (B-1), what cards are worth in a meld (B-2) and in hand (B-3), the rules a table is
made with and the dealer (B-4), the deal of 13 and 12 cards and the bridge card (B-5), who starts and
who may act (B-7), and the draw that begins every turn but the first (B-8). Hands and moves:
:mod:`tests.blagogo_helpers`.
"""

from __future__ import annotations

import pytest

from engine.blagogo import BlagogoRules, Card, Discard, DrawFromDeck, Game, LayMelds, Phase, Rank, Suit
from engine.blagogo.actions import Shuffle
from engine.blagogo.cards import (
    CARDS,
    DECK_SIZE,
    JOKERS,
    RUN_VALUE,
    SET_VALUE,
    hand_penalty,
    hand_value,
    mask_of,
    natural,
    parse_cards,
)
from engine.blagogo.events import BridgeStarted, CardDrawn, HandDealt, RoundStarted
from engine.blagogo.round_state import deal_order
from engine.errors import InvalidActionError, Reason, RulesError
from tests.blagogo_helpers import (
    OPENING_HAND,
    SCORE0,
    SCORE_HAND,
    deal,
    discard,
    draw,
    held,
    of_type,
    refused,
    rnd,
    score_round_without_kantrame,
    spec,
)

# ---------------------------------------------------------------------------------------------- B-1 to B-3


def test_b1_deck_has_108_distinguishable_cards() -> None:
    """B-1: two 52-card decks and four jokers; the two copies of a face are different cards, same face."""
    assert len(CARDS) == DECK_SIZE == 108
    assert len(set(CARDS)) == 108
    assert len(JOKERS) == 4 and all(j.is_joker for j in JOKERS)
    naturals = [c for c in CARDS if not c.is_joker]
    assert len({c.face for c in naturals}) == 52
    first, second = natural(Rank.ACE, Suit.SPADES, 0), natural(Rank.ACE, Suit.SPADES, 1)
    assert first != second and first.same_face(second)
    assert (first.deck, second.deck) == (0, 1)
    assert str(first) == "A♠" and str(second) == "A♠'" and first.face_text == second.face_text == "A♠"
    for c in CARDS:
        assert Card.parse(str(c)) == c
    assert parse_cards("10♥ TH' ★3 JK4") == (
        natural(Rank.TEN, Suit.HEARTS),
        natural(Rank.TEN, Suit.HEARTS, 1),
        JOKERS[2],
        JOKERS[3],
    )
    with pytest.raises(ValueError):
        Card.parse("1♠")


def test_b2_meld_values_aces_25_in_a_set_and_10_in_a_run() -> None:
    """B-2: 2-9 are 5, 10-K are 10, an ace 25 in a set of aces and 10 in a run."""
    assert [SET_VALUE[r] for r in Rank] == [5] * 8 + [10] * 4 + [25]
    assert [RUN_VALUE[r] for r in Rank] == [5] * 8 + [10] * 4 + [10]


def test_b3_hand_penalties_and_ace_in_hand_variant() -> None:
    """B-3: 2-9 cost 5, 10-K 10, a joker 25; an ace costs ``ace_in_hand`` (default 10)."""
    hand = mask_of(parse_cards("2♠ 9♥ 10♦ K♣ ★1 A♠"))
    assert BlagogoRules().ace_in_hand == 10
    assert hand_penalty(hand, 10) == 5 + 5 + 10 + 10 + 25 + 10
    assert hand_penalty(hand, 25) == 5 + 5 + 10 + 10 + 25 + 25
    assert hand_value(JOKERS[0].index, 10) == 25


# ----------------------------------------------------------------------------------------- B-4, B-5, B-7, B-8


@pytest.mark.parametrize(
    ("field", "value"),
    [
        ("players", 1),
        ("players", 9),
        ("players", True),
        ("players", "4"),
        ("ace_in_hand", -5),
        ("opening_min_points", -1),
        ("opening_min_points", 1000),
        ("layoff_scores_for", "meld_owner"),
        ("kantrame_first_turn_only", 1),
        ("target", 0),
        ("bridge_take_must_meld", None),
        ("turnover_limit", -1),
    ],
)
def test_b4_invalid_rules_name_the_field(field: str, value: object) -> None:
    """B-4 (2 to 8 players) and every other variant: an invalid value raises RulesError naming the field."""
    with pytest.raises(RulesError) as info:
        BlagogoRules(**{field: value})  # type: ignore[arg-type]
    assert info.value.field == field


def test_b4_first_dealer_from_the_seed_and_the_deal_passes_clockwise() -> None:
    """B-4: the first dealer comes from the seed (or is given); each round the deal passes to the left."""
    rules = BlagogoRules(players=5)
    dealers = {Game(rules, seed).first_dealer for seed in range(40)}
    assert dealers == set(range(5))
    assert Game(rules, 7).first_dealer == Game(rules, 7).first_dealer
    game = deal(SCORE_HAND, SCORE0, bridge="10♥", deck="7♣ 5♣")
    score_round_without_kantrame(game)
    assert game.is_chance_node and game.dealer == 1
    events = game.apply_chance()
    assert of_type(events, RoundStarted) == [RoundStarted(2, 1, 0)]
    assert rnd(game).hands[0].bit_count() == 13 and game.to_act == 0


@pytest.mark.parametrize("players", [2, 5, 8])
def test_b5_deal_13_to_the_left_of_the_dealer_12_to_the_others_and_one_bridge_card(players: int) -> None:
    """B-5: 13 cards to the dealer's left, 12 to every other player, one card face up: the bridge."""
    game = Game(BlagogoRules(players=players), seed=3)
    events = game.apply_chance()
    r = rnd(game)
    counts = [h.bit_count() for h in r.hands]
    first = (game.dealer + 1) % players
    assert counts[first] == 13
    assert all(c == 12 for s, c in enumerate(counts) if s != first)
    assert len(r.bridge) == 1
    assert len(r.deck) == 108 - 13 - 12 * (players - 1) - 1
    started = of_type(events, BridgeStarted)
    assert started == [BridgeStarted(CARDS[r.bridge[0]], len(r.deck))]
    assert [e.seat for e in of_type(events, HandDealt)] == list(deal_order(players, game.dealer))
    r.check_invariants()


def test_b5_a_shuffle_must_hold_each_of_the_108_cards_once() -> None:
    """B-5, B-1: a stacked deck that is not the 108 cards is malformed; the game stays at its chance node."""
    game = Game(BlagogoRules(players=3), seed=0)
    good = game.chance_outcome().order
    for bad in (good[:-1], (*good[:-1], good[0]), (*good[:-1], Card(500)), list(good)):
        with pytest.raises(InvalidActionError):
            game.apply_chance(Shuffle(bad))  # type: ignore[arg-type]
        assert game.is_chance_node and game.rounds_dealt == 0 and game.history == []
    game.apply_chance(Shuffle(good))
    assert game.rounds_dealt == 1


def test_b7_the_player_left_of_the_dealer_starts_and_nobody_acts_out_of_turn() -> None:
    """B-7: seat 1 (left of dealer 0) starts; acting out of turn is refused; play goes clockwise."""
    game = deal(OPENING_HAND)
    assert game.to_act == 1
    refused(game, 0, DrawFromDeck(), Reason.NOT_YOUR_TURN)
    refused(game, 5, DrawFromDeck(), Reason.INVALID_SEAT)
    discard(game, 1, "K♥")
    assert game.to_act == 0


def test_b8_first_turn_has_no_draw_and_every_other_turn_starts_with_one() -> None:
    """B-8: the first player holds 13 cards and does not draw; later turns start with a draw."""
    game = deal(OPENING_HAND, deck="4♣")
    assert rnd(game).phase is Phase.PLAY
    assert DrawFromDeck() not in game.legal_actions()
    refused(game, 1, DrawFromDeck(), Reason.WRONG_PHASE)
    discard(game, 1, "K♥")
    assert rnd(game).phase is Phase.DRAW
    assert game.legal_actions() == (DrawFromDeck(),)
    refused(game, 0, Discard(held(game, 0, "2♦")[0]), Reason.WRONG_PHASE)
    refused(game, 0, LayMelds((spec(game, 0, "2♦ 4♦ 6♦"),)), Reason.WRONG_PHASE)
    events = draw(game, 0)
    assert events == [CardDrawn(0, natural(Rank.FOUR, Suit.CLUBS))]
    assert rnd(game).hands[0].bit_count() == 13
    refused(game, 0, DrawFromDeck(), Reason.WRONG_PHASE)
