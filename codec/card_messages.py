"""A game's cards as messages, built once, and the repeated fields of them that both games' codecs write.

Each game numbers its cards (:attr:`Card.index`) and has a message for one card (``Card``, ``BlagogoCard``)
and one for a list of them (``CardList``, ``BlagogoCardList``, where a field is a list of lists: every hand of
a deal). How one card is written and checked is the game's (its ``cards`` module); a hand, a trick, a talon or
a deal's hands are then written and read the same way in both, here, with the card's message built once per
card instead of once per field it is set in.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from typing import Any, Generic, Protocol, TypeVar

from google.protobuf.message import Message

from engine.errors import InvalidActionError


class Indexed(Protocol):
    """An engine card: its index is its place in the game's deck."""

    @property
    def index(self) -> int: ...


class CardList(Protocol):
    """A list-of-cards message (``CardList``, ``BlagogoCardList``)."""

    @property
    def cards(self) -> Sequence[Any]: ...


C = TypeVar("C", bound=Indexed)
M = TypeVar("M", bound=Message)
L = TypeVar("L", bound=CardList)


class CardMessages(Generic[C, M, L]):
    """One game's card messages by card index, and its cards' lists written and read through them.

    The messages are shared: they are only ever set into a field (protobuf copies them), never handed out.
    """

    __slots__ = ("_decode", "_list", "_messages")

    def __init__(
        self, messages: Sequence[M], decode: Callable[[M, str], C], card_list: Callable[[list[M]], L]
    ) -> None:
        self._messages = tuple(messages)
        self._decode = decode
        """The game's ``card_from_proto``: the engine's card, or InvalidActionError naming the field."""
        self._list = card_list

    def of(self, card: C) -> M:
        return self._messages[card.index]

    def optional(self, card: C | None) -> M | None:
        """For a message field: the card's message, or None to leave the field absent (a hidden card)."""
        return None if card is None else self._messages[card.index]

    def many(self, cards: Iterable[C]) -> list[M]:
        return [self._messages[c.index] for c in cards]

    def lists(self, lists: Iterable[Iterable[C]]) -> list[L]:
        return [self._list(self.many(cards)) for cards in lists]

    def required(self, present: bool, message: M, field: str) -> C:
        """A card field an action must set: InvalidActionError when it is missing (``present`` False)."""
        if not present:
            raise InvalidActionError(f"{field} is missing")
        return self._decode(message, field)

    def decode_many(self, messages: Iterable[M], field: str) -> tuple[C, ...]:
        return tuple(self._decode(m, field) for m in messages)

    def decode_lists(self, messages: Iterable[L], field: str) -> tuple[tuple[C, ...], ...]:
        return tuple(self.decode_many(m.cards, field) for m in messages)
