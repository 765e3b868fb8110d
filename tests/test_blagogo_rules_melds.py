"""1000 Blagogo from stacked decks: opening, melds and jokers (B-11 to B-16).

The opening of 30 points and its variant (B-11); melds of any value and additions once open, and nothing
before (B-12); the discard that ends a turn and the last card that must be discarded (B-13); the shapes of
sets and runs, round-the-corner runs and jokers with a stated meaning (B-14); melds that grow and sets that
close (B-15); jokers swapped out of a meld (B-16), in another player's meld too (with B-17's scoring).
Hands and moves: :mod:`tests.blagogo_helpers`.
"""

from __future__ import annotations

import pytest

from engine.blagogo import (
    AddToMeld,
    BlagogoReason,
    BlagogoRules,
    Discard,
    End,
    LayMelds,
    LayoffScores,
    MeldKind,
    MeldSpec,
    Rank,
    Stands,
    Suit,
    SwapJoker,
    view,
)
from engine.blagogo.cards import JOKERS, natural
from engine.blagogo.events import Discarded, JokerSwapped, MeldClosed, MeldExtended, MeldsLaid, WentOut
from engine.blagogo.scoring import meld_points
from engine.errors import InvalidActionError, Reason
from tests.blagogo_helpers import (
    LOW0_WITH_SIX,
    OPENING_HAND,
    RUN_HAND,
    SCORE0,
    SCORE_HAND,
    SET_HAND,
    SIX_HEARTS,
    Q,
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

# ---------------------------------------------------------------------------------------------- B-11 to B-13


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
