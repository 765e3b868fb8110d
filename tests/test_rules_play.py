"""Thousand from stacked decks: the play of the tricks (T-17 to T-20).

The declarer leads without trump (T-17); follow suit, else trump, else anything, and the ``must_beat``
variant (T-18); who wins a trick and leads the next (T-19); marriages declared on lead set the trump and
score (T-20); and the reference deal's eight tricks, all legal.
The reference deal, its stacked hands and the moves to its contract: :mod:`tests.scenario`.
"""

from __future__ import annotations

import pytest

from engine import (
    SPECTATOR,
    Concede,
    GiveCard,
    IllegalActionError,
    NameContract,
    Pass,
    PlayCard,
    Reason,
    Rules,
    Suit,
    view,
)
from engine.events import MarriageDeclared, TrickTaken
from tests.scenario import TRICKS, cards, dealt_game, of_type, play, reference_game, to_contract
from tests.scenario import card as c

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


def test_trick_script_of_the_reference_deal_is_all_legal() -> None:
    """T-18, T-19: the reference deal's eight tricks as scripted in tests/scenario.py."""
    game = reference_game()
    to_contract(game)
    events = play(game, TRICKS)
    assert [t.seat for t in of_type(events, TrickTaken)] == [1, 1, 1, 0, 2, 0, 0, 0]
    assert sum(t.points for t in of_type(events, TrickTaken)) == 120
