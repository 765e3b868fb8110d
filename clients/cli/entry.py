"""One game as the terminal client shows and asks it: a :class:`CliGame` holds what is particular to the game
in words and questions, nothing else.

The follower (:mod:`clients.cli.follow`), the line mode (:mod:`clients.cli.plain`) and the shared parts of
the full-screen UI (:mod:`clients.cli.table_app`) are written once for every game: they follow the table
through the game's :class:`~clients.games.entry.ClientGame` and say it through its :class:`CliGame`, which
knows its transcript, its score sheet, how its actions read, how a turn's actions are offered
(:class:`Choice`, a second question where one action is two decisions: a card, then who gets it) and what a
player may type besides a number. The entries are listed in :mod:`clients.cli.games`.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, Generic, Protocol, TypeVar

from clients.games.entry import ClientGame

V = TypeVar("V")
"""The game's view."""
A = TypeVar("A")
"""The game's action."""
E = TypeVar("E")
"""The game's event."""
E_contra = TypeVar("E_contra", contravariant=True)
V_contra = TypeVar("V_contra", contravariant=True)

Names = Callable[[], Sequence[str]]
"""The seats' names as they are now (a seat taken by a new player is renamed)."""
Ask = Callable[[str], Awaitable[str | None]]
"""Ask the player one more question (a joker's meaning); their answer, or None when they gave up."""


@dataclass(frozen=True)
class Choice(Generic[A]):
    """One line of the actions offered: it makes ``action``, or asks ``question`` with the choices ``then``
    (one action that is two decisions: a card, then who gets it)."""

    label: str
    action: A | None = None
    then: tuple[Choice[A], ...] = ()
    question: str = ""

    def actions(self) -> tuple[A, ...]:
        """Every action this line leads to."""
        if self.action is not None:
            return (self.action,)
        return tuple(a for c in self.then for a in c.actions())


@dataclass(frozen=True)
class SheetRow:
    """One deal (or round) on the score sheet: what it was, each seat's cell, its summary in words."""

    number: int
    title: str
    """``Ann 120: made``."""
    cells: tuple[str, ...]
    """Per seat: the total after the deal and its marks (``340``, ``120 •``)."""
    summary: tuple[str, ...] = ()
    """Lines said when the deal is scored (who made what, each seat's points and marks)."""


class Transcript(Protocol[E_contra]):
    """The event log of one viewer in words; some games render a line only once its context is complete."""

    def add(self, event: E_contra) -> list[str]:
        """Take one event of the game; the lines now complete."""
        ...

    def flush(self) -> list[str]:
        """Every line not said yet (at the end of a batch, or before a line of the table's own)."""
        ...


class Scorer(Protocol[V_contra, E_contra]):
    """The score sheet, kept from the events: a row when a deal (a round) is scored."""

    def see(self, event: E_contra, view: V_contra | None) -> SheetRow | None: ...


@dataclass(frozen=True)
class Typed(Generic[V, A]):
    """What a player's typed words are read against: the Turn's actions, the seat's view, the names."""

    text: str
    actions: tuple[A, ...]
    view: V | None
    names: Sequence[str]
    ask: Ask


@dataclass(frozen=True, eq=False)
class CliGame(Generic[V, A, E]):
    """A game for the terminal client: view ``V``, action ``A``, event ``E``."""

    game: ClientGame[Any, V, A, E]
    transcript: Callable[[Names], Transcript[E]]
    """A new transcript for one viewer."""
    scorer: Callable[[Names], Scorer[V, E]]
    """A new score sheet."""
    label: Callable[[A, Sequence[str]], str]
    """What choosing an action does, in words."""
    state_lines: Callable[[V, Sequence[str], int | None], list[str]]
    """The table as text for a viewer (the line mode prints it at each turn)."""
    score_lines: Callable[[V, Sequence[str]], list[str]]
    """Each seat's score now, one a line."""
    standings_lines: Callable[[Sequence[Any], Sequence[str]], list[str]]
    """The final standings (the game-over event's), one seat a line."""
    menu: Callable[[tuple[A, ...], V | None, Sequence[str]], tuple[Choice[A], ...]]
    """The Turn's actions as offered, in the Turn's order."""
    read: Callable[[Typed[V, A]], Awaitable[A | None]]
    """An action typed in words (a bid's amount, a meld composed); None when the words are not the game's;
    ValueError says what to type instead."""
    typing_help: Callable[[V | None, tuple[A, ...]], str]
    """What a player may type besides a number now ("" when nothing)."""
    default_bot: str
    """The strategy of the server-run bots ``thousand new`` seats when none is named: the game's strongest
    that answers at the table's pace (the web form's default too, ``clients/web/src/rules.ts``)."""
    rules_in_words: tuple[str, ...] = field(default=())
    """The game's rules in a few paragraphs, for the help screen: catalogue keys."""
    app: str = ""
    """``module:Class`` of the game's full-screen UI (imported when it runs: Textual is heavy)."""
