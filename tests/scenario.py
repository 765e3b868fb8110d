"""Stacked decks and scripted play for the rule scenario tests.

A scenario names each seat's hand and the talons; :func:`stack` turns that into the one card order the engine
deals those hands from, so a test reads like a deal written on paper.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TypeVar

from engine import Action, Bid, Game, GiveCard, NameContract, Pass, PlayCard, Rules, Shuffle
from engine.cards import CARDS, Card, parse_cards
from engine.events import Event
from engine.layout import active_seats, deal_layout


def stack(rules: Rules, dealer: int, hands: Mapping[int, str], talons: Sequence[str]) -> Shuffle:
    """The shuffle that deals ``hands`` (by seat) and ``talons`` with this dealer."""
    hand_size, talon_sizes = deal_layout(rules)
    active = active_seats(rules.players, dealer)
    assert sorted(hands) == sorted(active), f"hands for seats {sorted(active)} expected"
    order: list[Card] = []
    for seat in active:
        cards = parse_cards(hands[seat])
        assert len(cards) == hand_size, f"seat {seat} needs {hand_size} cards, got {len(cards)}"
        order += cards
    assert len(talons) == len(talon_sizes)
    for text, size in zip(talons, talon_sizes, strict=True):
        cards = parse_cards(text)
        assert len(cards) == size, f"talon needs {size} cards"
        order += cards
    seen = [c for c in order]
    missing = [str(c) for c in CARDS if c not in seen]
    twice = sorted({str(c) for c in seen if seen.count(c) > 1})
    assert not missing and not twice, f"each card exactly once: missing {missing}, twice {twice}"
    return Shuffle(tuple(order))


def dealt_game(
    rules: Rules,
    dealer: int,
    hands: Mapping[int, str],
    talons: Sequence[str],
    seed: int = 0,
) -> tuple[Game, list[Event]]:
    """A new game whose first deal is dealt from the stacked deck; returns the game and the deal's events."""
    game = Game(rules, seed, first_dealer=dealer)
    events = game.apply_chance(stack(rules, dealer, hands, talons))
    return game, events


def play(game: Game, script: str) -> list[Event]:
    """Play cards in turn order: tricks separated by ``|``, a ``*`` after a K or Q declares its marriage."""
    events: list[Event] = []
    for token in script.replace("|", " ").split():
        marriage = token.endswith("*")
        card = Card.parse(token.rstrip("*"))
        seat = game.to_act
        assert seat is not None, f"nobody to play {token}"
        events += game.apply(seat, PlayCard(card, marriage))
    return events


def cards(text: str) -> tuple[Card, ...]:
    return parse_cards(text)


def card(text: str) -> Card:
    return Card.parse(text)


T = TypeVar("T")


def of_type(events: Sequence[object], kind: type[T]) -> list[T]:
    return [e for e in events if isinstance(e, kind)]


ALL_CARDS = CARDS

# The reference deal of the scenarios (3 players, dealer 0, seat 1 opens):
# seat 1 holds the ♠ marriage, seat 2 the ♦ marriage, seat 0 the ♥ and ♣ marriages.
DEALER = 0
HANDS = {
    1: "A♠ 10♠ K♠ Q♠ A♣ 9♦ J♦",
    2: "A♥ J♥ K♦ Q♦ 10♣ 9♠ J♠",
    0: "K♥ Q♥ A♦ 10♦ K♣ Q♣ 9♣",
}
TALON = "J♣ 9♥ 10♥"
# After seat 1 takes the talon and gives 9♦ to seat 2 and 9♥ to seat 0, the eight tricks below give
# seat 1: 11 + 6 + 24 = 41 card points plus the ♠ marriage (40) = 81; seat 0: 17 + 15 + 15 + 7 = 54 plus the
# ♥ marriage (100) = 154; seat 2: 25. 41 + 54 + 25 = 120.
TRICKS = "A♠ 9♠ 9♣ | K♠* J♠ 9♥ | A♣ 10♣ Q♣ | J♦ K♦ A♦ | K♥* 10♥ A♥ | Q♦ 10♦ J♣ | Q♥ 10♠ J♥ | K♣ Q♠ 9♦"

AUCTION_TO_110: list[tuple[int, Action]] = [(2, Bid(105)), (0, Pass()), (1, Bid(110)), (2, Pass())]
"""The reference deal's auction: seat 1 opens 100, seat 2 105, seat 0 passes, seat 1 110, seat 2 passes."""


def run(game: Game, steps: Sequence[tuple[int, Action]]) -> list[Event]:
    events: list[Event] = []
    for seat, action in steps:
        events += game.apply(seat, action)
    return events


def reference_game(rules: Rules | None = None) -> Game:
    game, _ = dealt_game(rules or Rules(), DEALER, HANDS, [TALON])
    return game


def to_contract(game: Game, contract: int = 120) -> None:
    """Auction 100-105-pass-110-pass, seat 1 takes the talon, gives 9♦ to seat 2 and 9♥ to seat 0."""
    game.apply(2, Bid(105))
    game.apply(0, Pass())
    game.apply(1, Bid(110))
    game.apply(2, Pass())
    game.apply(1, GiveCard(card("9♦"), 2))
    game.apply(1, GiveCard(card("9♥"), 0))
    game.apply(1, NameContract(contract))


# A deal in which seat 2 holds four nines (T-11) and may demand a redeal before it bids.
FOUR_NINES_HANDS = {
    1: "A♠ 10♠ K♠ Q♠ A♣ J♦ 10♥",
    2: "9♠ J♠ 9♥ J♥ 9♦ K♦ 9♣",
    0: "K♥ Q♥ A♦ 10♦ K♣ Q♣ A♥",
}
FOUR_NINES_TALON = "J♣ Q♦ 10♣"
