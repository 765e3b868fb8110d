"""engine.transcript: every event class has a readable line, seat-filtered events included."""

from __future__ import annotations

import re
from typing import get_args

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from engine import DealKind, Mark, Outcome, RedealReason, Rules, Suit, events_for
from engine.cards import parse_cards
from engine.events import (
    AuctionWon,
    BidMade,
    CardGiven,
    CardPlayed,
    Conceded,
    ContractNamed,
    DarkDeclared,
    DarkDeclined,
    DealRevealed,
    DealScored,
    DealStarted,
    DeckShuffled,
    Event,
    GameOver,
    GameStarted,
    HandDealt,
    LastTalonTaken,
    MarriageDeclared,
    Passed,
    RedealDemanded,
    SheetMarked,
    Standing,
    TalonChosen,
    TalonTaken,
    TrickTaken,
)
from engine.transcript import render, render_lines
from tests.randomplay import play

C = parse_cards


def line(event: Event) -> str:
    (only,) = render_lines([event])
    return only


def test_one_line_per_event_with_cards_as_text() -> None:
    rules = Rules(players=3, dark=True)
    events: list[Event] = [
        GameStarted(rules, 1),
        DealStarted(3, 1, DealKind.NORMAL, (2, 0, 1), None),
        DeckShuffled(3),
        HandDealt(2, 7, C("9♠ J♠ 9♣ 10♣ 9♦ 9♥ Q♥")),
        BidMade(2, 100, forced=True),
        BidMade(0, 105),
        Passed(1),
        AuctionWon(0, 105),
        TalonTaken(0, True, C("A♥ 9♣ K♠")),
        CardGiven(0, 2, C("9♠")[0]),
        ContractNamed(0, 110),
        CardPlayed(0, C("K♠")[0]),
        CardPlayed(2, C("9♠")[0]),
        CardPlayed(1, C("A♠")[0]),
        TrickTaken(1, 1, C("K♠ 9♠ A♠"), 15),
        CardPlayed(1, C("10♥")[0]),
    ]
    assert render(events).splitlines() == [
        "Game of Thousand — 3 players — first dealer: seat 1 — rules changed: dark: True",
        "Deal 3 — dealer: seat 1 — normal",
        "  the deck is shuffled",
        "  seat 2 is dealt 7 cards: 9♠ J♠ 9♣ 10♣ 9♦ 9♥ Q♥",
        "  seat 2 bids 100 (forced)",
        "  seat 0 bids 105",
        "  seat 1 passes",
        "  seat 0 wins the auction at 105",
        "  seat 0 takes the talon face up: A♥ 9♣ K♠",
        "  seat 0 gives 9♠ to seat 2",
        "  seat 0 names the contract: 110",
        "  seat 0 leads K♠",
        "  seat 2 plays 9♠",
        "  seat 1 plays A♠",
        "  trick 1 to seat 1 (15 points)",
        "  seat 1 leads 10♥",
    ]


def test_a_marriage_is_read_with_the_lead_that_declares_it() -> None:
    king = C("K♥")[0]
    events: list[Event] = [MarriageDeclared(2, Suit.HEARTS, 100), CardPlayed(2, king)]
    assert render_lines(events) == ["  seat 2 leads K♥ declaring the ♥ marriage (100)"]
    # On its own (a stream cut between the two events) it still reads.
    assert render_lines(events[:1]) == ["  seat 2 declares the ♥ marriage (100)"]
    assert render_lines([MarriageDeclared(2, Suit.HEARTS, 100), DeckShuffled(1)]) == [
        "  seat 2 declares the ♥ marriage (100)",
        "  the deck is shuffled",
    ]


def test_hidden_cards_of_filtered_events() -> None:
    """T-33: what events_for blanks reads as 'a card' or without the cards."""
    assert line(HandDealt(1, 7, None)) == "  seat 1 is dealt 7 cards"
    assert line(TalonTaken(0, False, None)) == "  seat 0 takes the talon face down"
    assert line(TalonTaken(0, False, C("9♠ J♠ Q♠"))) == "  seat 0 takes the talon face down: 9♠ J♠ Q♠"
    assert line(CardGiven(1, 2, None)) == "  seat 1 gives a card to seat 2"
    assert line(CardGiven(1, None, None)) == "  seat 1 puts a card into the other talon"
    assert line(CardGiven(1, None, C("Q♥")[0])) == "  seat 1 puts Q♥ into the other talon"


def test_deal_headers() -> None:
    assert line(DealStarted(1, 0, DealKind.GOLDEN, (1, 2, 0), 1)) == (
        "Deal 1 — dealer: seat 0 — golden — declarer: seat 1"
    )
    assert line(DealStarted(7, 3, DealKind.OBLIGATORY, (0, 1, 2), 2)) == (
        "Deal 7 — dealer: seat 3 — obligatory — declarer: seat 2 — seat 3 sits out"
    )
    assert line(GameStarted(Rules(players=4), 0)) == (
        "Game of Thousand — 4 players — first dealer: seat 0 — default rules"
    )


def test_auction_talon_and_contract_lines() -> None:
    assert render_lines([DarkDeclared(1), BidMade(1, 120, forced=True)]) == [
        "  seat 1 declares dark: 120 without looking at the cards",
        "  seat 1 bids 120 (dark)",
    ]
    assert line(DarkDeclined(1)) == "  seat 1 declines to play dark and looks at the cards"
    assert line(TalonChosen(0, 1)) == "  seat 0 chooses talon 1"
    assert line(Conceded(2, 120)) == "  seat 2 concedes (rospis) at 120"
    assert line(LastTalonTaken(1, C("Q♠ 10♠ Q♥ A♥"), 27)) == (
        "  seat 1 takes the other talon: Q♠ 10♠ Q♥ A♥ (27 points)"
    )


@pytest.mark.parametrize(
    ("reason", "words"),
    [
        (RedealReason.FOUR_NINES, "four nines"),
        (RedealReason.WEAK_TALON, "weak talon"),
        (RedealReason.WEAK_HAND, "weak hand"),
    ],
)
def test_redeal_reasons(reason: RedealReason, words: str) -> None:
    """T-11 to T-13."""
    assert line(RedealDemanded(0, reason)) == f"  seat 0 demands a redeal: {words}"


def test_deal_revealed_and_scored() -> None:
    # Shortened hands (the renderer does not count them); seat 1 sat out, so its hand is empty.
    revealed = DealRevealed(2, (), (C("9♠ J♠"), (), C("A♥")), (C("K♠ 9♣"), C("10♣ Q♦")))
    assert line(revealed) == (
        "  deal 2 revealed — seat 0: 9♠ J♠; seat 2: A♥; talon 0: K♠ 9♣; talon 1: 10♣ Q♦"
    )
    played = DealScored(
        4, DealKind.NORMAL, 2, 120, Outcome.FAILED, False, (45, 60, 15), (45, 60, -120), (45, 60, -120)
    )
    assert line(played) == (
        "  deal 4 scored: seat 2 failed 120 — points: seat 0 45, seat 1 60, seat 2 15"
        " — scores: seat 0 +45 → 45, seat 1 +60 → 60, seat 2 -120 → -120"
    )
    conceded = DealScored(
        5, DealKind.GOLDEN, 0, 120, Outcome.CONCEDED, True, (0, 0, 0), (-240, 120, 120), (0, 0, 0)
    )
    assert line(conceded) == (
        "  deal 5 (golden) scored: seat 0 conceded 120 (doubled) — scores: seat 0 -240 → 0, seat 1 +120 → 0,"
        " seat 2 +120 → 0"
    )


@pytest.mark.parametrize("mark", list(Mark))
def test_every_sheet_mark_reads(mark: Mark) -> None:
    """T-25 to T-29: each mark has its own words; a mark that costs points shows them."""
    points = 0 if mark is Mark.BOLT else -120
    text = line(SheetMarked(1, mark, points))
    assert text.startswith("  seat 1 ")
    assert ("(-120)" in text) == (mark is not Mark.BOLT)
    other = {line(SheetMarked(1, m, points)) for m in Mark if m is not mark}
    assert text not in other


def test_game_over_with_and_without_bank() -> None:
    """T-26, T-32."""
    standings = (Standing(1, 1, 1005, 0), Standing(0, 2, 340, 0), Standing(2, 3, -120, 0))
    assert line(GameOver(1, standings)) == (
        "Game over — winner: seat 1 — standings: 1. seat 1 1005, 2. seat 0 340, 3. seat 2 -120"
    )
    banked = (Standing(1, 1, 1005, 50), Standing(0, 2, 340, 0), Standing(2, 3, -120, -50))
    assert line(GameOver(1, banked)) == (
        "Game over — winner: seat 1 — standings: 1. seat 1 1005 (bank +50), 2. seat 0 340,"
        " 3. seat 2 -120 (bank -50)"
    )


def test_seat_names() -> None:
    assert render([BidMade(1, 110)], names=("Ann", "Bob", "Cy")) == "  Bob bids 110"


def test_every_event_class_is_rendered() -> None:
    """Each class of the Event union appears in a test above; mypy's assert_never checks the module itself."""
    covered = {
        GameStarted, DealStarted, DeckShuffled, HandDealt, DarkDeclared, DarkDeclined, BidMade, Passed,
        AuctionWon, RedealDemanded, TalonChosen, TalonTaken, CardGiven, ContractNamed, Conceded,
        MarriageDeclared, CardPlayed, TrickTaken, LastTalonTaken, DealRevealed, DealScored, SheetMarked,
        GameOver,
    }  # fmt: skip
    assert covered == set(get_args(Event))


@settings(max_examples=30, deadline=None)
@given(
    players=st.sampled_from((2, 3, 4)),
    seed=st.integers(0, 2**32 - 1),
    viewer=st.sampled_from((None, 0, 1, "all")),
)
def test_random_games_render_for_every_viewer(players: int, seed: int, viewer: int | str | None) -> None:
    """Full and seat-filtered (T-33) events of random games render, one line per event but the folded
    marriages; a seat's transcript names no card its filtered events do not carry."""
    rules = Rules(players=players, dark=players != 2, golden_deals=seed % 2 == 0)
    game = play(rules, seed, 4)
    events = game.events if viewer == "all" else events_for(game, viewer if isinstance(viewer, int) else None)
    lines = render_lines(events)
    marriages = sum(isinstance(e, MarriageDeclared) for e in events)
    assert len(lines) == len(events) - marriages
    if viewer != "all":
        hidden = sum(isinstance(e, HandDealt) and e.cards is None for e in events)
        assert sum(re.search(r" is dealt \d+ cards$", line) is not None for line in lines) == hidden
