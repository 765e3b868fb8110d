"""The full-screen UI's pop-ups, the same for every game: a page of text (the rules and keys, the score sheet,
the deal's tricks), a deal's summary that waits for a key, and a question with a line to answer it (a
joker's meaning, a meld's number)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from typing import ClassVar

from rich.text import Text
from textual import events
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical, VerticalScroll
from textual.dom import DOMNode
from textual.screen import ModalScreen
from textual.widgets import Input, Static

from clients.i18n import t

SUIT_PATTERN = r"(?:10|[2-9JQKA])?[♥♦]'?"


def localize_bindings(node: DOMNode) -> None:
    """Put the descriptions of a screen's or app's keys (catalogue keys in ``BINDINGS``, as ``cli.key_quit``)
    into the chosen language: the footer shows them. ``BINDINGS`` are read when the class is made, before the
    player's language is known, so each instance translates its own copy of them."""
    bindings = node._bindings.key_to_bindings
    for key, listed in bindings.items():
        bindings[key] = [
            replace(b, description=t(b.description)) if b.description.startswith("cli.") else b
            for b in listed
        ]


def coloured(line: str) -> Text:
    """A line of words with the red suits in red."""
    text = Text(line)
    text.highlight_regex(SUIT_PATTERN, "red")
    return text


class TextScreen(ModalScreen[None]):
    """A page of text over the table, scrolled with the arrow keys; Escape (or its key again) closes it."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape,q,question_mark,f1,s,t", "close", "cli.key_close")
    ]
    DEFAULT_CSS = """
    TextScreen { align: center middle; }
    TextScreen > VerticalScroll { width: 100%; max-width: 100; height: 90%; border: thick $accent;
                                  background: $surface; padding: 0 1; }
    """

    def __init__(self, title: str, lines: Sequence[str]) -> None:
        super().__init__()
        localize_bindings(self)
        self.title_text = title
        self.lines = list(lines)

    def compose(self) -> ComposeResult:
        text = Text(self.title_text + "\n\n", style="bold")
        for line in [*self.lines, "", t("cli.escape_closes")]:
            text.append_text(coloured(line + "\n"))
        with VerticalScroll():
            yield Static(text)

    def action_close(self) -> None:
        self.dismiss(None)


class SummaryScreen(ModalScreen[None]):
    """A deal's (round's) summary over the table until the player presses any key or clicks: the next deal
    starts beneath it at once, but who made what and the points are not scrolled away in the log before
    they are read. The table's keys do nothing meanwhile (:meth:`TableApp.check_action`), so a key meant for
    the summary never plays a card. A later deal scored while it is up replaces its text."""

    DEFAULT_CSS = """
    SummaryScreen { align: center middle; }
    SummaryScreen > Vertical { width: 100%; max-width: 90; height: auto; max-height: 90%;
                               border: thick $accent; background: $surface; padding: 0 1; }
    SummaryScreen Static { height: auto; }
    """

    def __init__(self, title: str, lines: Sequence[str]) -> None:
        super().__init__()
        self.title_text = title
        self.lines = list(lines)

    def compose(self) -> ComposeResult:
        with Vertical():
            yield Static(self.page(), id="summary")

    def page(self) -> Text:
        text = Text(self.title_text + "\n\n", style="bold")
        for line in self.lines:
            text.append_text(coloured(line + "\n"))
        text.append("\n" + t("cli.any_key"), style="dim")
        return text

    def show(self, title: str, lines: Sequence[str]) -> None:
        self.title_text, self.lines = title, list(lines)
        self.query_one("#summary", Static).update(self.page())

    def on_key(self, event: events.Key) -> None:
        event.stop()
        self.dismiss(None)

    def on_click(self, event: events.Click) -> None:
        event.stop()
        self.dismiss(None)


class AskScreen(ModalScreen[str | None]):
    """A small question with a line to type the answer in; Escape gives up (None)."""

    BINDINGS: ClassVar[list[BindingType]] = [Binding("escape", "give_up", "cli.key_cancel")]
    DEFAULT_CSS = """
    AskScreen { align: center middle; }
    AskScreen > Vertical { width: 100%; max-width: 80; height: auto; border: thick $accent;
                           background: $surface; padding: 0 1; }
    AskScreen Static { height: auto; }
    """

    def __init__(self, question: str) -> None:
        super().__init__()
        localize_bindings(self)
        self.question = question

    def compose(self) -> ComposeResult:
        with Vertical():
            yield Static(coloured(self.question + "  " + t("cli.escape_cancels")), id="question")
            yield Input(id="answer")

    def on_mount(self) -> None:
        self.query_one(Input).focus()

    def on_input_submitted(self, message: Input.Submitted) -> None:
        self.dismiss(message.value)

    def action_give_up(self) -> None:
        self.dismiss(None)
