"""The letters the full-screen UI shows before the cards of a hand, kept while each card stays in the hand.

A card's letter used to be its place in the sorted hand, so every card that left the hand moved the letters of
those after it: a letter read a moment ago named another card when it was typed. Here a card keeps its
letter until it leaves; a card that comes in takes the first free letter; a new deal starts over.
"""

from __future__ import annotations

from collections.abc import Hashable, Sequence
from typing import Generic, TypeVar

C = TypeVar("C", bound=Hashable)


class CardLetters(Generic[C]):
    """Letters for the cards of one hand, from ``alphabet`` (the keys that are not commands)."""

    def __init__(self, alphabet: str) -> None:
        self.alphabet = alphabet
        self._letters: dict[C, str] = {}

    def update(self, hand: Sequence[C]) -> None:
        """The hand now: cards gone free their letters, new cards take the first free ones, in hand order."""
        held = set(hand)
        self._letters = {card: letter for card, letter in self._letters.items() if card in held}
        used = set(self._letters.values())
        free = (letter for letter in self.alphabet if letter not in used)
        for card in hand:
            if card not in self._letters:
                letter = next(free, None)
                if letter is None:
                    break  # more cards than letters: the rest have none
                self._letters[card] = letter

    def reset(self) -> None:
        """A new deal: the hand's letters start from the alphabet's first again."""
        self._letters = {}

    def letter(self, card: C) -> str | None:
        return self._letters.get(card)

    def card(self, letter: str) -> C | None:
        return next((card for card, mine in self._letters.items() if mine == letter), None)
