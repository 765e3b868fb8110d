"""Scenario tests for 1000 Blagogo from stacked decks, named by rule ID (B-1 to B-23).

Most scenarios have two players with seat 0 dealing, so seat 1 starts with 13 cards and seat 0 holds 12
(B-5). Hands are written by face; :func:`engine.blagogo.stacking.stack` picks the copies (``'`` is the second
deck's copy) and :func:`engine.blagogo.stacking.pick` finds them in a hand again.
"""

from __future__ import annotations

from typing import TypeVar

import pytest

from engine.blagogo import (
    SPECTATOR,
    AddToMeld,
    BlagogoIllegalActionError,
    BlagogoReason,
    BlagogoRules,
    Card,
    Discard,
    DrawFromDeck,
    End,
    Game,
    LayMelds,
    LayoffScores,
    MeldKind,
    MeldSpec,
    Phase,
    Rank,
    Round,
    Stands,
    Suit,
    SwapJoker,
    TakeFromBridge,
    events_for,
    view,
)
from engine.blagogo.actions import Shuffle, take
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
from engine.blagogo.events import (
    BridgeStarted,
    BridgeTaken,
    BridgeTurnedOver,
    CardDrawn,
    DeckExhausted,
    Discarded,
    Event,
    GameOver,
    HandDealt,
    JokerSwapped,
    MeldClosed,
    MeldExtended,
    MeldsLaid,
    RoundRevealed,
    RoundScored,
    RoundStarted,
    WentOut,
)
from engine.blagogo.randomplay import play
from engine.blagogo.round_state import deal_order
from engine.blagogo.scoring import meld_points
from engine.blagogo.stacking import pick, stack
from engine.errors import ActionError, InvalidActionError, Reason, RulesError

LOW0 = "2♦ 4♦ 6♦ 8♦ 3♠ 5♣ 7♠ 9♣ J♣ K♣ 3♥ 9♥"
"""Seat 0's default 12 cards: not one meld among them."""

Q = Stands(Rank.QUEEN)
T = TypeVar("T")


# ---------------------------------------------------------------------------------------------- helpers


def deal(seat1: str, seat0: str = LOW0, bridge: str = "8♣", deck: str = "", **variants: object) -> Game:
    """A two-player game (seat 0 deals) whose first round is dealt from the stacked hands."""
    rules = BlagogoRules(players=2, **variants)  # type: ignore[arg-type]
    game = Game(rules, seed=0, first_dealer=0)
    game.apply_chance(stack(2, 0, {1: seat1, 0: seat0}, bridge, deck))
    return game


def rnd(game: Game) -> Round:
    assert game.round is not None
    return game.round


def held(game: Game, seat: int, text: str) -> tuple[Card, ...]:
    return pick(rnd(game).hand(seat), text)


def spec(game: Game, seat: int, text: str, *jokers: Stands) -> MeldSpec:
    return MeldSpec(held(game, seat, text), jokers)


def lay(game: Game, seat: int, *specs: MeldSpec) -> list[Event]:
    return game.apply(seat, LayMelds(specs))


def discard(game: Game, seat: int, text: str) -> list[Event]:
    return game.apply(seat, Discard(held(game, seat, text)[0]))


def draw(game: Game, seat: int) -> list[Event]:
    return game.apply(seat, DrawFromDeck())


def of_type(events: list[Event], kind: type[T]) -> list[T]:
    return [e for e in events if isinstance(e, kind)]


def rule_of(error: ActionError) -> object:
    return error.rule if isinstance(error, BlagogoIllegalActionError) else error.reason


def fingerprint(game: Game) -> str:
    r = game.round
    inner = (
        ()
        if r is None
        else (r.hands, r.deck, r.bridge, r.melds, r.opened, r.phase, r.to_act, r.must_meld, r.known, r.turns)
    )
    views = [view(game, v) for v in (None, *range(game.rules.players))]
    return repr((views, inner, len(game.events), len(game.history), game.scores))


def refused(game: Game, seat: int, action: object, reason: object) -> None:
    """The action is rejected with ``reason``, by both apply and validate, and nothing changes."""
    before = fingerprint(game)
    with pytest.raises(ActionError) as info:
        game.apply(seat, action)  # type: ignore[arg-type]
    assert rule_of(info.value) is reason, info.value.message
    with pytest.raises(ActionError) as again:
        game.validate(seat, action)
    assert rule_of(again.value) is reason
    assert not game.is_legal(seat, action)
    assert fingerprint(game) == before


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


# ---------------------------------------------------------------------------------------------- B-4 to B-8


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


def test_b6_the_bridge_keeps_every_card_in_order_for_everyone() -> None:
    """B-6: discards go to the end of the bridge; every seat and spectators see it in order."""
    game = deal(OPENING_HAND, deck="4♣ 7♦")
    discard(game, 1, "K♥")
    draw(game, 0)
    discard(game, 0, "2♦")
    draw(game, 1)
    discard(game, 1, "5♣")
    expected = parse_cards("8♣ K♥ 2♦ 5♣")
    for viewer in (SPECTATOR, 0, 1):
        assert tuple(c.face_text for c in view(game, viewer).bridge) == tuple(c.face_text for c in expected)


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


# ---------------------------------------------------------------------------------------------- B-9, B-10

BRIDGE_HAND = "10♠ J♠ Q♠ 3♦ 4♦ 6♣ 8♥ 2♠ 4♠ 6♥ 10♣ A♣ K♥"


def bridge_of_three(must_meld: bool = False) -> Game:
    """Seat 1 opens and discards K♥; seat 0 (not open) draws 4♣ and discards 2♦: the bridge is 8♣ K♥ 2♦."""
    game = deal(BRIDGE_HAND, deck="4♣ 7♦ 9♠", bridge_take_must_meld=must_meld)
    lay(game, 1, spec(game, 1, "10♠ J♠ Q♠"))
    discard(game, 1, "K♥")
    draw(game, 0)
    discard(game, 0, "2♦")
    return game


def bridge_faces(game: Game) -> list[str]:
    return [c.face_text for c in view(game, SPECTATOR).bridge]


def test_b9_take_refused_before_opening() -> None:
    """B-9: only a player with an opening may take from the bridge."""
    game = deal(BRIDGE_HAND, deck="4♣")
    lay(game, 1, spec(game, 1, "10♠ J♠ Q♠"))
    discard(game, 1, "K♥")
    assert game.legal_actions() == (DrawFromDeck(),)
    refused(game, 0, TakeFromBridge(1), BlagogoReason.NOT_OPENED)
    refused(game, 0, TakeFromBridge(0), BlagogoReason.NOT_OPENED)


def test_b9_take_the_last_card_of_the_bridge() -> None:
    """B-9: an opened player may take the last card instead of drawing; everyone sees it."""
    game = bridge_of_three()
    assert game.legal_actions() == (DrawFromDeck(), TakeFromBridge(0), TakeFromBridge(1), TakeFromBridge(2))
    two = rnd(game).bridge[2]
    events = game.apply(1, TakeFromBridge(2))
    assert events == [BridgeTaken(1, 2, (CARDS[two],))]
    assert bridge_faces(game) == ["8♣", "K♥"]
    assert CARDS[two] in rnd(game).hand(1)
    for viewer in (SPECTATOR, 0, 1):
        assert view(game, viewer).known_cards[1] == (CARDS[two],)
    assert rnd(game).phase is Phase.PLAY


@pytest.mark.parametrize("position", [-1, -3, 3, 107, 108, 10**9])
def test_b9_take_from_a_position_the_bridge_does_not_have(position: int) -> None:
    """B-9: a position off the bridge is refused (``take`` neither indexes from the end nor grows a table)."""
    game = bridge_of_three()
    action = take(position)
    assert action == TakeFromBridge(position)
    refused(game, 1, action, BlagogoReason.NO_SUCH_POSITION)


def test_b9_take_a_deeper_card_with_every_card_after_it() -> None:
    """B-9: taking an earlier card takes every card laid after it, so the bridge has no gaps."""
    game = bridge_of_three()
    events = game.apply(1, TakeFromBridge(1))
    taken = of_type(events, BridgeTaken)[0]
    assert [c.face_text for c in taken.cards] == ["K♥", "2♦"]
    assert bridge_faces(game) == ["8♣"]
    game2 = bridge_of_three()
    game2.apply(1, TakeFromBridge(0))
    assert bridge_faces(game2) == []
    discard(game2, 1, "8♣")
    assert bridge_faces(game2) == ["8♣"]


def test_b9_no_such_bridge_position() -> None:
    """B-9: a position past either end of the bridge is refused with its reason."""
    game = bridge_of_three()
    refused(game, 1, TakeFromBridge(3), BlagogoReason.NO_SUCH_POSITION)
    refused(game, 1, TakeFromBridge(-1), BlagogoReason.NO_SUCH_POSITION)
    with pytest.raises(InvalidActionError):
        game.apply(1, TakeFromBridge("2"))  # type: ignore[arg-type]


def test_b9_variant_bridge_take_must_meld() -> None:
    """B-9 ``bridge_take_must_meld``: the deepest card taken must be melded this turn before discarding."""
    game = bridge_of_three(must_meld=True)
    # K♥ (and 8♣) cannot be melded from this hand; 2♦ goes with 3♦ 4♦.
    assert game.legal_actions() == (DrawFromDeck(), TakeFromBridge(2))
    refused(game, 1, TakeFromBridge(1), BlagogoReason.BRIDGE_CARD_NOT_MELDABLE)
    refused(game, 1, TakeFromBridge(0), BlagogoReason.BRIDGE_CARD_NOT_MELDABLE)
    game.apply(1, TakeFromBridge(2))
    assert view(game, 0).must_meld == held(game, 1, "2♦")[0]
    refused(game, 1, Discard(held(game, 1, "6♣")[0]), BlagogoReason.MUST_MELD_BRIDGE_CARD)
    refused(game, 1, Discard(held(game, 1, "2♦")[0]), BlagogoReason.MUST_MELD_BRIDGE_CARD)
    assert not any(isinstance(a, Discard) for a in game.legal_actions())
    run = LayMelds((spec(game, 1, "2♦ 3♦ 4♦"),))
    assert run in game.candidate_melds()
    game.apply(1, run)
    assert rnd(game).must_meld is None
    discard(game, 1, "6♣")
    assert game.to_act == 0


def test_b10_deck_exhausted_the_bridge_turns_over_earliest_card_on_top() -> None:
    """B-10: when a draw is due and the deck is empty the bridge becomes the deck, its first card on top."""
    game = Game(BlagogoRules(players=8), seed=0, first_dealer=0)
    game.apply_chance(stack(8, 0, {}, "A♥", fill=True))
    r = rnd(game)
    start = CARDS[r.bridge[0]]
    assert len(r.deck) == 10
    laid: list[Card] = [start]
    turned: list[BridgeTurnedOver] = []
    while not turned:
        seat = game.to_act
        assert seat is not None
        if r.phase is Phase.DRAW:
            draw(game, seat)
        card = r.hand(seat)[0]
        laid.append(card)
        turned = of_type(game.apply(seat, Discard(card)), BridgeTurnedOver)
    assert turned == [BridgeTurnedOver(12)]
    assert len(laid) == 12
    assert view(game, SPECTATOR).bridge == () and view(game, SPECTATOR).deck_count == 12
    seat = game.to_act
    assert seat == 4
    assert draw(game, seat) == [CardDrawn(seat, start)]
    assert draw_order(r) == laid[1:]
    game.apply(seat, Discard(start))
    assert view(game, SPECTATOR).bridge == (start,)
    r.check_invariants()


def test_b10_variant_turnover_limit_ends_the_round_with_no_winner() -> None:
    """B-10 with ``turnover_limit=1``: the second time the deck runs out the round ends, nobody gets 30."""
    game = Game(BlagogoRules(players=8, turnover_limit=1), seed=0, first_dealer=0)
    game.apply_chance(stack(8, 0, {}, "A♥", fill=True))
    r = rnd(game)
    events: list[Event] = []
    while not r.is_over:
        seat = game.to_act
        assert seat is not None
        if r.phase is Phase.DRAW:
            events += draw(game, seat)
        events += game.apply(seat, Discard(r.hand(seat)[0]))
    assert len(of_type(events, BridgeTurnedOver)) == 1
    assert of_type(events, DeckExhausted) == [DeckExhausted(1)]
    assert not of_type(events, WentOut)
    scored = of_type(events, RoundScored)[0]
    assert scored.winner is None and not scored.kantrame
    penalties = tuple(hand_penalty(h, 10) for h in r.hands)
    assert scored.hand_penalties == penalties and scored.meld_points == (0,) * 8
    assert scored.deltas == tuple(-p for p in penalties)
    assert game.is_chance_node and game.dealer == 1


def draw_order(r: Round) -> list[Card]:
    """The deck from the top down."""
    return [CARDS[i] for i in reversed(r.deck)]


# ---------------------------------------------------------------------------------------------- B-11 to B-13

OPENING_HAND = "9♦ 10♦ J♦ 10♠ J♠ Q♠ 2♥ 3♥ 4♥ 5♣ 5♦ 5♠ K♥"


def test_b11_opening_of_30_is_accepted() -> None:
    """B-11: 10♠ J♠ Q♠ is worth 30, enough to open."""
    game = deal(OPENING_HAND)
    events = lay(game, 1, spec(game, 1, "10♠ J♠ Q♠"))
    laid = of_type(events, MeldsLaid)[0]
    assert (laid.points, laid.opening) == (30, True)
    assert view(game, 0).opened == (False, True)


def test_b11_opening_of_25_is_refused() -> None:
    """B-11: 9♦ 10♦ J♦ is worth 25 and 2♥ 3♥ 4♥ 15: neither opens; the state is unchanged."""
    game = deal(OPENING_HAND)
    refused(game, 1, LayMelds((spec(game, 1, "9♦ 10♦ J♦"),)), BlagogoReason.OPENING_TOO_LOW)
    refused(game, 1, LayMelds((spec(game, 1, "2♥ 3♥ 4♥"),)), BlagogoReason.OPENING_TOO_LOW)


def test_b11_opening_melds_count_together_in_one_action() -> None:
    """B-11: 2♥ 3♥ 4♥ (15) and three fives (15) laid together open with 30."""
    game = deal(OPENING_HAND)
    events = lay(game, 1, spec(game, 1, "2♥ 3♥ 4♥"), spec(game, 1, "5♣ 5♦ 5♠"))
    laid = of_type(events, MeldsLaid)[0]
    assert (laid.points, laid.opening, len(laid.melds)) == (30, True, 2)


@pytest.mark.parametrize(("minimum", "meld", "ok"), [(25, "9♦ 10♦ J♦", True), (40, "10♠ J♠ Q♠", False)])
def test_b11_variant_opening_min_points(minimum: int, meld: str, ok: bool) -> None:
    """B-11 ``opening_min_points``: the minimum is a variant."""
    game = deal(OPENING_HAND, opening_min_points=minimum)
    action = LayMelds((spec(game, 1, meld),))
    if ok:
        game.apply(1, action)
    else:
        refused(game, 1, action, BlagogoReason.OPENING_TOO_LOW)


def test_b12_after_opening_melds_of_any_value_and_additions_in_the_same_turn() -> None:
    """B-12: once open (the same turn included) a player lays melds of any value and adds to melds."""
    game = deal(OPENING_HAND)
    refused(game, 1, AddToMeld(0, held(game, 1, "K♥")), BlagogoReason.NO_SUCH_MELD)
    lay(game, 1, spec(game, 1, "10♠ J♠ Q♠"))
    for meld, points in (("9♦ 10♦ J♦", 25), ("2♥ 3♥ 4♥", 15)):
        laid = of_type(lay(game, 1, spec(game, 1, meld)), MeldsLaid)[0]
        assert (laid.points, laid.opening) == (points, False)


def test_b12_no_additions_or_swaps_before_opening() -> None:
    """B-12: a player without an opening may not add to melds nor swap jokers, not even their own later."""
    game = deal(RUN_HAND, LOW0_WITH_SIX, deck="K♣")
    lay(game, 1, spec(game, 1, "5♥ ★ 7♥", Stands(Rank.SIX, Suit.HEARTS)), spec(game, 1, "K♠ A♠ 2♠"))
    discard(game, 1, "9♣")
    draw(game, 0)
    refused(game, 0, AddToMeld(0, held(game, 0, "8♥"), (), End.HIGH), BlagogoReason.NOT_OPENED)
    refused(game, 0, SwapJoker(0, held(game, 0, "6♥")[0]), BlagogoReason.NOT_OPENED)
    assert not any(isinstance(a, (AddToMeld, SwapJoker)) for a in game.legal_actions())


def test_b13_discard_ends_the_turn_and_the_last_card_must_be_discarded() -> None:
    """B-13: one discard ends the turn; melding or adding away the last card is refused."""
    game = deal(SCORE_HAND, SCORE0, bridge="10♥", deck="7♣ 5♣")
    lay(game, 1, spec(game, 1, "A♠ A♣ A♦"), spec(game, 1, "Q♥ K♥ A♥"))
    events = discard(game, 1, "9♠")
    assert of_type(events, Discarded)[0].seat == 1 and game.to_act == 0
    draw(game, 0)
    discard(game, 0, "7♣")
    draw(game, 1)
    everything = LayMelds((spec(game, 1, "2♣ 3♣ 4♣ 5♣"), spec(game, 1, "7♦ 7♠ 7♥")))
    refused(game, 1, everything, BlagogoReason.LAST_CARD_MUST_BE_DISCARDED)
    lay(game, 1, spec(game, 1, "2♣ 3♣ 4♣"), spec(game, 1, "7♦ 7♠ 7♥"))
    last = held(game, 1, "5♣")
    assert rnd(game).hand(1) == last
    refused(game, 1, AddToMeld(2, last, (), End.HIGH), BlagogoReason.LAST_CARD_MUST_BE_DISCARDED)
    assert game.legal_actions() == (Discard(last[0]),)
    events = game.apply(1, Discard(last[0]))
    assert of_type(events, WentOut) == [WentOut(1, False)]


# ---------------------------------------------------------------------------------------------- B-14 to B-16

JOKERS_HAND = "Q♥ ★ ★ ★ 5♠ 5♠ 6♠ 7♥ 5♥ 5♦ 5♣ K♦ A♦"
NOT_CONSECUTIVE = BlagogoReason.RUN_NOT_CONSECUTIVE
JOKER_MEANING = BlagogoReason.JOKER_MEANING


@pytest.mark.parametrize(
    ("cards", "meanings", "reason"),
    [
        ("Q♥ ★ ★", (Stands(Rank.KING, Suit.HEARTS), Stands(Rank.ACE, Suit.HEARTS)), None),
        ("Q♥ ★ ★", (Q, Q), None),
        ("★ Q♥ ★", (Stands(Rank.JACK, Suit.HEARTS), Stands(Rank.KING, Suit.HEARTS)), None),
        ("Q♥ ★ ★", (Stands(Rank.KING, Suit.HEARTS), Q), BlagogoReason.JOKER_MEANING),
        ("Q♥ ★ ★", (Q, Stands(Rank.JACK)), BlagogoReason.JOKER_MEANING),
        ("Q♥ ★ ★", (Stands(Rank.KING, Suit.SPADES), Stands(Rank.ACE, Suit.SPADES)), JOKER_MEANING),
        ("★ ★ ★", (Q, Q, Q), BlagogoReason.MELD_NEEDS_NATURAL),
        ("5♠ 6♠", (), BlagogoReason.MELD_TOO_SHORT),
        ("5♠ 5♠' 6♠", (), BlagogoReason.RUN_REPEATS_RANK),
        ("5♠ 6♠ ★", (Stands(Rank.SIX, Suit.SPADES),), BlagogoReason.RUN_REPEATS_RANK),
        ("5♠ 5♠' 5♥", (), BlagogoReason.DOUBLES_IN_SET),
        ("5♠ 5♥ 5♦ 5♣ ★", (Stands(Rank.FIVE),), BlagogoReason.SET_TOO_LONG),
        ("5♠ 6♠ 7♥", (), BlagogoReason.NOT_A_MELD),
        ("5♠ 7♥ ★", (Stands(Rank.FIVE),), BlagogoReason.NOT_A_MELD),
        ("5♠ 5♥ ★", (Stands(Rank.FIVE, Suit.CLUBS),), JOKER_MEANING),
        ("5♠ ★ ★", (Stands(Rank.SEVEN, Suit.SPADES), Stands(Rank.NINE, Suit.SPADES)), NOT_CONSECUTIVE),
        ("5♠ 5♥ 5♦ 5♣", (), None),
    ],
)
def test_b14_meld_shapes(cards: str, meanings: tuple[Stands, ...], reason: object) -> None:
    """B-14: sets of 3-4 different suits, runs of one suit in a row, jokers with a stated meaning."""
    game = deal(JOKERS_HAND, opening_min_points=0)
    action = LayMelds((spec(game, 1, cards, *meanings),))
    if reason is None:
        game.validate(1, action)
        assert game.is_legal(1, action)
    else:
        refused(game, 1, action, reason)


def test_b14_cards_not_in_hand() -> None:
    """B-14 (and B-13): a meld is laid from one's own hand."""
    game = deal(JOKERS_HAND, opening_min_points=0)
    seven = natural(Rank.SEVEN, Suit.SPADES)
    action = LayMelds((MeldSpec((*held(game, 1, "5♠ 6♠"), seven)),))
    refused(game, 1, action, Reason.NO_SUCH_CARD)


def test_b14_q_joker_joker_is_read_as_the_player_says() -> None:
    """B-14: Q♥ ★ ★ is Q♥ K♥ A♥ or three queens, as declared; the meld records what each joker is."""
    game = deal(JOKERS_HAND)
    king, ace = Stands(Rank.KING, Suit.HEARTS), Stands(Rank.ACE, Suit.HEARTS)
    events = lay(game, 1, spec(game, 1, "★ Q♥ ★", king, ace))
    meld = of_type(events, MeldsLaid)[0].melds[0]
    assert meld.kind is MeldKind.RUN and meld.rank is Rank.QUEEN and meld.suit is Suit.HEARTS
    assert meld.stands() == (None, king, ace) and meld.points == 30
    game2 = deal(JOKERS_HAND)
    meld2 = of_type(lay(game2, 1, spec(game2, 1, "Q♥ ★ ★", Q, Q)), MeldsLaid)[0].melds[0]
    assert meld2.kind is MeldKind.SET and meld2.stands() == (None, Q, Q) and meld2.points == 30


def test_b14_malformed_meld_actions() -> None:
    """B-14: a joker without a meaning, or a meaning too many, is malformed (not merely illegal)."""
    game = deal(JOKERS_HAND, opening_min_points=0)
    with pytest.raises(InvalidActionError):
        game.apply(1, LayMelds((spec(game, 1, "Q♥ ★ ★", Q),)))
    with pytest.raises(InvalidActionError):
        game.apply(1, LayMelds((spec(game, 1, "5♠ 5♥ 5♦", Q),)))
    with pytest.raises(InvalidActionError):
        game.apply(1, LayMelds(()))
    five = spec(game, 1, "5♠ 5♥ 5♦")
    refused(game, 1, LayMelds((five, five)), BlagogoReason.CARD_USED_TWICE)


RUN_HAND = "5♥ ★ 7♥ 6♥ K♠ A♠ 2♠ Q♠ 3♠ A♦ 2♦ 3♦ 9♣"
LOW0_WITH_SIX = "10♦ J♦ Q♦ 8♥ 6♥ 2♣ 4♣ 6♣ 9♠ J♣ 3♥ 4♠"
SIX_HEARTS = Stands(Rank.SIX, Suit.HEARTS)


def test_b14_round_the_corner_runs_k_a_2_and_a_2_3() -> None:
    """B-14: K-A-2 and A-2-3 are runs; aces count 10 in them (B-2)."""
    game = deal(RUN_HAND)
    events = lay(game, 1, spec(game, 1, "A♠ 2♠ K♠"), spec(game, 1, "3♦ A♦ 2♦"))
    kaa, a23 = of_type(events, MeldsLaid)[0].melds
    assert [c.face_text for c in kaa.cards] == ["K♠", "A♠", "2♠"] and kaa.rank is Rank.KING
    assert [c.face_text for c in a23.cards] == ["A♦", "2♦", "3♦"] and a23.rank is Rank.ACE
    assert (kaa.points, a23.points) == (25, 20)
    gap = LayMelds((spec(game, 1, "Q♠ 3♠ ★", Stands(Rank.FOUR, Suit.SPADES)),))
    refused(game, 1, gap, NOT_CONSECUTIVE)


def test_b15_runs_grow_at_either_end_round_the_corner() -> None:
    """B-15: a run grows at either end: Q♠ before K-A-2, 3♠ after it; not at the wrong end."""
    game = deal(RUN_HAND)
    lay(game, 1, spec(game, 1, "5♥ ★ 7♥", SIX_HEARTS), spec(game, 1, "K♠ A♠ 2♠"))
    refused(game, 1, AddToMeld(1, held(game, 1, "3♠"), (), End.LOW), BlagogoReason.RUN_NOT_CONSECUTIVE)
    refused(game, 1, AddToMeld(1, held(game, 1, "Q♠"), (), End.HIGH), BlagogoReason.RUN_NOT_CONSECUTIVE)
    refused(game, 1, AddToMeld(1, held(game, 1, "A♦"), (), End.HIGH), BlagogoReason.NOT_A_MELD)
    with pytest.raises(InvalidActionError):
        game.apply(1, AddToMeld(1, held(game, 1, "3♠")))
    game.apply(1, AddToMeld(1, held(game, 1, "Q♠"), (), End.LOW))
    events = game.apply(1, AddToMeld(1, held(game, 1, "3♠"), (), End.HIGH))
    meld = of_type(events, MeldExtended)[0].meld
    assert [c.face_text for c in meld.cards] == ["Q♠", "K♠", "A♠", "2♠", "3♠"]
    assert meld.rank is Rank.QUEEN and meld.points == 10 + 10 + 10 + 5 + 5


def test_b15_set_completion_closes_the_set() -> None:
    """B-15: a set grows to four; four natural suits close it; it takes no more cards, stays its owner's."""
    game = deal(SET_HAND)
    lay(game, 1, spec(game, 1, "Q♠ Q♥ Q♦"))
    events = game.apply(1, AddToMeld(0, held(game, 1, "Q♣")))
    assert of_type(events, MeldClosed) == [MeldClosed(0, 1)]
    meld = rnd(game).melds[0]
    assert meld.closed and meld.owner == 1 and meld.points == 40
    refused(game, 1, AddToMeld(0, held(game, 1, "★"), (Q,)), BlagogoReason.MELD_CLOSED)
    assert not any(getattr(a, "meld_id", None) == 0 for a in game.legal_actions())


SET_HAND = "Q♠ Q♥ ★ Q♦ Q♣ Q♦ 2♣ 4♣ 6♣ 8♣ 10♥ 8♠ 6♥"


def test_b14_doubles_refused_in_sets() -> None:
    """B-14: two queens of diamonds may not be in one set, whether laid or added."""
    game = deal(SET_HAND)
    refused(game, 1, LayMelds((spec(game, 1, "Q♦ Q♦' Q♣"),)), BlagogoReason.DOUBLES_IN_SET)
    lay(game, 1, spec(game, 1, "Q♠ Q♥ Q♦"))
    refused(game, 1, AddToMeld(0, held(game, 1, "Q♦'")), BlagogoReason.DOUBLES_IN_SET)


def test_b16_joker_swap_in_a_set_needs_the_third_suit_then_the_fourth_frees_it() -> None:
    """B-16: in Q♠ Q♥ ★ the joker is freed only by the fourth suit once the third is there; the set closes."""
    game = deal(SET_HAND)
    lay(game, 1, spec(game, 1, "Q♠ Q♥ ★", Q))
    refused(game, 1, SwapJoker(0, held(game, 1, "Q♣")[0]), BlagogoReason.SET_NEEDS_THIRD_SUIT)
    game.apply(1, AddToMeld(0, held(game, 1, "Q♦")))
    assert not rnd(game).melds[0].closed
    refused(game, 1, AddToMeld(0, held(game, 1, "Q♣")), BlagogoReason.SET_TOO_LONG)
    refused(game, 1, SwapJoker(0, held(game, 1, "Q♦'")[0]), BlagogoReason.DOUBLES_IN_SET)
    refused(game, 1, SwapJoker(0, held(game, 1, "2♣")[0]), BlagogoReason.NO_JOKER_FOR_CARD)
    queen_of_clubs = held(game, 1, "Q♣")[0]
    assert SwapJoker(0, queen_of_clubs) in game.legal_actions()
    events = game.apply(1, SwapJoker(0, queen_of_clubs))
    joker = JOKERS[0]
    assert of_type(events, JokerSwapped)[0].joker == joker
    assert of_type(events, MeldClosed) == [MeldClosed(0, 1)]
    assert joker in rnd(game).hand(1) and joker in view(game, 0).known_cards[1]
    meld = rnd(game).melds[0]
    assert meld.closed and meld.jokers == 0 and meld.owner == 1
    refused(game, 1, AddToMeld(0, held(game, 1, "Q♦'")), BlagogoReason.MELD_CLOSED)


def test_b16_joker_swap_in_a_run() -> None:
    """B-16: in 5♥ ★ 7♥ the 6♥ takes the joker's place and the joker goes to the hand."""
    game = deal(RUN_HAND)
    lay(game, 1, spec(game, 1, "5♥ ★ 7♥", SIX_HEARTS), spec(game, 1, "K♠ A♠ 2♠"))
    refused(game, 1, SwapJoker(0, held(game, 1, "A♦")[0]), BlagogoReason.NO_JOKER_FOR_CARD)
    refused(game, 1, SwapJoker(1, held(game, 1, "Q♠")[0]), BlagogoReason.NO_JOKER_FOR_CARD)
    six = held(game, 1, "6♥")[0]
    assert SwapJoker(0, six) in game.legal_actions()
    events = game.apply(1, SwapJoker(0, six))
    swapped = of_type(events, JokerSwapped)[0]
    assert swapped.joker.is_joker and swapped.card == six
    assert [c.face_text for c in swapped.meld.cards] == ["5♥", "6♥", "7♥"]
    assert swapped.joker in rnd(game).hand(1)
    # The freed joker may go straight back on the table, e.g. after 7♥.
    eight = Stands(Rank.EIGHT, Suit.HEARTS)
    assert AddToMeld(0, (swapped.joker,), (eight,), End.HIGH) in game.legal_actions()


def test_b15_b16_b17_another_players_meld() -> None:
    """B-15/B-16: an opened player adds to and swaps in another player's meld; B-17: who scores it."""
    game = deal(RUN_HAND, LOW0_WITH_SIX, deck="K♣")
    lay(game, 1, spec(game, 1, "5♥ ★ 7♥", SIX_HEARTS), spec(game, 1, "K♠ A♠ 2♠"))
    discard(game, 1, "9♣")
    draw(game, 0)
    lay(game, 0, spec(game, 0, "10♦ J♦ Q♦"))
    game.apply(0, AddToMeld(0, held(game, 0, "8♥"), (), End.HIGH))
    events = game.apply(0, SwapJoker(0, held(game, 0, "6♥")[0]))
    meld = of_type(events, JokerSwapped)[0].meld
    assert meld.owner == 1 and meld.contributors == (1, 0, 1, 0)
    assert JOKERS[0] in rnd(game).hand(0)
    melds = rnd(game).melds
    owner = BlagogoRules(players=2)
    contributor = BlagogoRules(players=2, layoff_scores_for=LayoffScores.CONTRIBUTOR)
    assert meld_points(owner, melds) == [30, 20 + 25]
    assert meld_points(contributor, melds) == [30 + 10, 10 + 25]


# ---------------------------------------------------------------------------------------------- B-17 to B-20

SCORE_HAND = "A♠ A♣ A♦ Q♥ K♥ A♥ 2♣ 3♣ 4♣ 7♦ 7♠ 7♥ 9♠"
SCORE0 = "A♠ ★ 10♣ J♦ K♠ 2♦ 3♠ 4♦ 5♥ 6♦ 8♣ 9♥"
"""Seat 0's hand: ace 10 (B-3 default), joker 25, three tens and faces 30, seven low cards 35: 100."""


def score_round_without_kantrame(game: Game) -> list[Event]:
    """Seat 1 opens with aces and Q-K-A, then goes out on its second turn (no kantrame)."""
    events = lay(game, 1, spec(game, 1, "A♠ A♣ A♦"), spec(game, 1, "Q♥ K♥ A♥"))
    events += discard(game, 1, "9♠")
    events += draw(game, 0)
    events += discard(game, 0, "7♣")
    events += draw(game, 1)
    events += lay(game, 1, spec(game, 1, "2♣ 3♣ 4♣"), spec(game, 1, "7♦ 7♠ 7♥"))
    events += discard(game, 1, "5♣")
    return events


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
