"""B-22: the melds the server proposes include the easy runs with a joker: two stretches of a suit one rank
apart joined by the joker in the gap (``7♥ ★ 9♥ 10♥`` was missed; only ``7♥ ★ 9♥`` and ``9♥ 10♥ ★`` were
offered), each legal."""

from __future__ import annotations

from engine.blagogo import LayMelds, Rank, Stands, Suit
from engine.blagogo.candidates import candidate_melds
from tests.blagogo_helpers import deal, rnd


def proposed(hand: str) -> list[tuple[str, tuple[Stands, ...]]]:
    game = deal(hand, opening_min_points=0)
    found = []
    for action in candidate_melds(rnd(game)):
        assert isinstance(action, LayMelds)
        assert rnd(game).is_legal(1, action)
        for spec in action.melds:
            found.append((" ".join(str(c).rstrip("'") for c in spec.cards), spec.jokers))
    return found


def test_a_joker_in_a_one_rank_gap_joins_the_stretches_on_both_sides() -> None:
    melds = proposed("7♥ 9♥ 10♥ ★ 2♠ 4♠ 6♠ 8♣ Q♣ 3♦ 5♦ 9♦ K♦")
    eight = (Stands(Rank.EIGHT, Suit.HEARTS),)
    assert ("7♥ ★1 9♥ 10♥", eight) in melds


def test_two_stretches_of_two_with_the_joker_between_them() -> None:
    melds = proposed("5♣ 6♣ 8♣ 9♣ ★ 2♠ 4♠ J♠ K♥ 3♦ 5♦ 9♦ K♦")
    assert ("5♣ 6♣ ★1 8♣ 9♣", (Stands(Rank.SEVEN, Suit.CLUBS),)) in melds
