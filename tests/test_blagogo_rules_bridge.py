"""1000 Blagogo from stacked decks: the bridge (B-6, B-9, B-10).

The bridge keeps every discard in order for everyone (B-6); an opened player takes its last card or a
deeper one with every card after it, instead of drawing, and the ``bridge_take_must_meld`` variant (B-9);
when the deck runs out the bridge turns over into a new deck, and ``turnover_limit`` ends the round (B-10).
Hands and moves: :mod:`tests.blagogo_helpers`.
"""

from __future__ import annotations

import pytest

from engine.blagogo import (
    SPECTATOR,
    BlagogoReason,
    BlagogoRules,
    Card,
    Discard,
    DrawFromDeck,
    Game,
    LayMelds,
    Phase,
    Round,
    TakeFromBridge,
    view,
)
from engine.blagogo.actions import take
from engine.blagogo.cards import CARDS, hand_penalty, parse_cards
from engine.blagogo.events import (
    BridgeTaken,
    BridgeTurnedOver,
    CardDrawn,
    DeckExhausted,
    Event,
    Exhaustion,
    RoundScored,
    WentOut,
)
from engine.blagogo.stacking import stack
from engine.errors import InvalidActionError
from tests.blagogo_helpers import OPENING_HAND, deal, discard, draw, held, lay, of_type, refused, rnd, spec

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


def draw_order(r: Round) -> list[Card]:
    """The deck from the top down."""
    return [CARDS[i] for i in reversed(r.deck)]


# ---------------------------------------------------------------------------------------------- B-6


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


# ---------------------------------------------------------------------------------------------- B-9, B-10


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
    assert of_type(events, DeckExhausted) == [DeckExhausted(1, Exhaustion.TURNOVER_LIMIT)]
    assert not of_type(events, WentOut)
    scored = of_type(events, RoundScored)[0]
    assert scored.winner is None and not scored.kantrame
    penalties = tuple(hand_penalty(h, 10) for h in r.hands)
    assert scored.hand_penalties == penalties and scored.meld_points == (0,) * 8
    assert scored.deltas == tuple(-p for p in penalties)
    assert game.is_chance_node and game.dealer == 1
