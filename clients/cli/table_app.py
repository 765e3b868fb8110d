"""What the two full-screen table UIs (Thousand's and 1000 Blagogo's) share.

Both follow one table's stream into an event log, keep a status line under a numbered list of actions, and
let the player choose an action by typing its number. The games differ in their panels, their cards and how
an action is made, which each app (:mod:`clients.cli.tui`, :mod:`clients.cli.blagogo_tui`) adds.
"""

from __future__ import annotations

from typing import ClassVar, Generic, Protocol, TypeVar

from rich.text import Text
from textual.app import App, ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical
from textual.widgets import Footer, Header, OptionList, RichLog, Static
from textual.widgets.option_list import Option

from clients.cli.text import seat_name
from clients.errors import ServerError
from clients.messages import StreamItem
from clients.session import TableSession

BINDINGS: list[BindingType] = [
    Binding("question_mark,f1", "help", "Rules & keys"),
    Binding("q", "quit", "Quit"),
    *[Binding(d, f"digit('{d}')", d, show=False) for d in "0123456789"],
]
"""The keys of both apps: help, quit and the digits that choose an action by its number."""

CSS = """
#main { height: 1fr; }
#left { width: 3fr; }
#right { width: 2fr; }
#table { height: auto; border: round $primary; padding: 0 1; }
#hand { height: auto; border: round $primary; padding: 0 1; }
#actions { height: 1fr; min-height: 5; border: round $accent; }
#status { height: auto; min-height: 1; padding: 0 1; }
#log { height: 1fr; border: round $primary; }
"""
"""The panels both apps have; each adds its own."""

A = TypeVar("A")
"""The game's action type."""
A_co = TypeVar("A_co", covariant=True)


class Follows(Protocol[A_co]):
    """What the shared parts read of an app's follower (what the UI knows of the table, from the stream)."""

    @property
    def seat(self) -> int | None: ...

    @property
    def legal_actions(self) -> tuple[A_co, ...]:
        """The seat's actions at the Turn now (none when it is not the seat's turn)."""
        ...

    @property
    def sequence(self) -> int | None: ...

    @property
    def names(self) -> list[str]: ...

    @property
    def finished(self) -> bool: ...


class Viewed(Protocol):
    """What the shared parts read of a game's view."""

    @property
    def to_act(self) -> int | None: ...


class TableApp(App[int], Generic[A]):
    """One table, played (a seat) or watched (a spectator), over a :class:`TableSession`.

    A subclass names its text panels (:data:`LEFT`, :data:`RIGHT`; the actions, status line and event log
    are always there), draws them in :meth:`refresh_panels`, takes each stream item in :meth:`take` and
    makes the chosen action in :meth:`choose`.
    """

    TITLES: ClassVar[dict[str, str]] = {}
    """Border titles by panel selector; ``#hand`` is named by :meth:`on_mount` (yours, or every hand)."""
    LEFT: ClassVar[tuple[str, ...]] = ("table", "hand")
    """The ids of the text panels above the actions, top to bottom."""
    RIGHT: ClassVar[tuple[str, ...]] = ()
    """The ids of the text panels above the event log."""

    follower: Follows[A]
    """Set by the subclass: its follower of the stream."""

    def __init__(self, session: TableSession) -> None:
        super().__init__()
        self.session = session
        self.offered: tuple[A, ...] = ()
        """The actions in the list now (the Turn's, in order)."""
        self.offered_at: int | None = None
        """The sequence number of the Turn whose actions are offered (None: nothing offered)."""
        self.submitting = False
        self.number = ""
        """Digits typed so far."""

    # ------------------------------------------------------------------ what each app provides

    def take(self, item: StreamItem) -> None:
        raise NotImplementedError

    def refresh_panels(self) -> None:
        raise NotImplementedError

    def refresh_table(self) -> None:
        raise NotImplementedError

    def choose(self, index: int) -> None:
        raise NotImplementedError

    def show_over(self) -> None:
        raise NotImplementedError

    @property
    def view(self) -> Viewed | None:
        """The view of the table now (the seat's, or a spectator's)."""
        raise NotImplementedError

    def action_text(self, action: A) -> str:
        """An action as the list names it."""
        raise NotImplementedError

    def prompt(self) -> Text:
        """The status line when actions are offered: how to choose."""
        raise NotImplementedError

    def nothing_offered(self) -> None:
        """The status line when no action is offered (the Turn is another seat's, or the game is over)."""
        if not self.follower.finished:
            self.show_status(self.waiting_text())

    def colour(self, line: str) -> Text:
        """A log line as shown (the game's red suits in red)."""
        return Text(line)

    def can_choose(self) -> bool:
        """Whether a number typed now chooses an action."""
        return bool(self.offered) and not self.submitting

    def show_mistake(self, text: str) -> None:
        """Say what was wrong with what the player typed."""
        self.show_status(Text(text, style="bold red"))

    # ------------------------------------------------------------------ shared

    def compose(self) -> ComposeResult:
        yield Header()
        with Horizontal(id="main"):
            with Vertical(id="left"):
                for panel in self.LEFT:
                    yield Static(id=panel)
                yield OptionList(id="actions")
                yield Static(id="status")
            with Vertical(id="right"):
                for panel in self.RIGHT:
                    yield Static(id=panel)
                yield RichLog(id="log", wrap=True, min_width=20, max_lines=5000)
        yield Footer()

    def on_mount(self) -> None:
        seat = self.session.seat
        who = "spectator" if seat is None else f"seat {seat}"
        table = self.session.table
        seeded = " — SEEDED practice table" if table is not None and table.seeded else ""
        self.sub_title = f"table {self.session.table_id} — you: {who}{seeded}"
        titles = {**self.TITLES, "#hand": "Your hand" if seat is not None else "Hands"}
        for selector, title in titles.items():
            self.query_one(selector).border_title = title
        self.query_one("#actions", OptionList).focus()
        self.refresh_panels()
        self.run_worker(self.follow(), group="stream", exit_on_error=False)
        self.set_interval(1.0, self.refresh_table)

    async def follow(self) -> None:
        """Take the table's stream to its end (the game's), or say the table is lost."""
        try:
            async for item in self.session.stream(from_start=True):
                self.take(item)
        except ServerError as error:
            self.show_status(Text(f"The table is lost: {error.message}", style="bold red"))
            self.log_lines([f"(stream ended: {error.message})"])
            return
        self.show_over()

    def log_lines(self, lines: list[str]) -> None:
        log = self.query_one("#log", RichLog)
        for line in lines:
            log.write(self.colour(line))

    def show_status(self, text: Text) -> None:
        self.query_one("#status", Static).update(text)

    def refresh_actions(self) -> bool:
        """Offer the Turn's actions as a numbered list; False when the list already shows them."""
        f = self.follower
        actions = f.legal_actions if not self.submitting else ()
        at = f.sequence if actions else None
        if actions == self.offered and at == self.offered_at:
            return False
        self.offered, self.offered_at = actions, at
        self.number = ""
        option_list = self.query_one("#actions", OptionList)
        option_list.clear_options()
        option_list.add_options(
            [Option(self.colour(f"{i}. {self.action_text(a)}")) for i, a in enumerate(actions, 1)]
        )
        if actions:
            option_list.highlighted = 0
            self.show_status(self.prompt())
        else:
            self.nothing_offered()
        return True

    def waiting_text(self) -> Text:
        f = self.follower
        v = self.view
        if self.submitting:
            return Text("Sending…")
        if f.seat is None:
            return Text("Watching (spectator).")
        if v is not None and v.to_act is not None and v.to_act != f.seat:
            return Text(f"Waiting for {seat_name(f.names, v.to_act)}…")
        return Text("Waiting…")

    def on_option_list_option_selected(self, message: OptionList.OptionSelected) -> None:
        self.choose(message.option_index)

    def action_digit(self, digit: str) -> None:
        """A digit of an action's number: chosen at once when no more digits could follow, else highlighted
        until Enter (or the next digit)."""
        n = len(self.offered)
        if not self.can_choose():
            return
        self.number += digit
        value = int(self.number)
        if value < 1 or value > n:
            self.number = ""
            self.show_mistake(f"There is no action {value}: type 1 to {n}.")
            return
        if value * 10 > n:
            self.number = ""
            self.choose(value - 1)
            return
        self.query_one("#actions", OptionList).highlighted = value - 1
        self.show_status(Text(f"{self.number}… press Enter to choose {value}, or type another digit."))

    async def action_quit(self) -> None:
        self.exit(0)
