"""What the full-screen table UIs of every game share (Textual): following the stream, drawing, and how a
player chooses.

**Drawing keeps up with any burst.** The stream is read as fast as it comes and fed to the follower (no
drawing there); a frame, a few times a second, draws the latest state once: the log lines that came, every
panel, the actions. A burst of thousands of events costs one frame, not one redraw an event, and every panel
of a frame shows the same moment of the game.

**One deliberate gesture per action.** Nothing is highlighted when actions are offered, so a stray Enter
chooses nothing. A number typed is only a number until Enter, and is read as the game reads it: a line's
number, or a bid's amount (``120`` bids 120; it is never the 12th line). A card's letter picks the card (the
game says what that means), Enter then makes the action. Escape drops what was typed or picked, or goes back
from a second question (a card given: to whom?).
"""

from __future__ import annotations

import asyncio
import time
from collections import deque
from collections.abc import Callable
from typing import Any, ClassVar, Final

from rich.text import Text
from textual.app import App, ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical
from textual.widgets import Footer, Header, OptionList, RichLog, Static
from textual.widgets.option_list import Option

from clients.cli.entry import Choice, Typed
from clients.cli.follow import Follower
from clients.cli.letters import CardLetters
from clients.cli.plain import RESYNC_REASONS, numbers
from clients.cli.rules_text import clock_lines, rules_lines
from clients.cli.screens import AskScreen, SummaryScreen, TextScreen, coloured, localize_bindings
from clients.cli.text import numbered_seat, seat_name
from clients.errors import ServerError, error_words
from clients.i18n import current, t
from clients.session import TableSession

FRAME_SECONDS: Final = 0.05
"""How often the screen is drawn when something changed."""
LOG_LINES: Final = 2000
"""The event log keeps this many lines (a burst beyond it is drawn from its end)."""
YIELD_EVERY: Final = 64
"""Stream items read between two chances for the keyboard and the screen."""

BINDINGS: Final[list[BindingType]] = [
    Binding("question_mark,f1", "help", "cli.key_help"),
    Binding("q", "quit", "cli.key_quit"),
    Binding("enter", "confirm", "cli.key_choose", show=False, priority=True),
    Binding("escape", "drop", "cli.key_back", show=False, priority=True),
    *[Binding(d, f"digit('{d}')", d, show=False, priority=True) for d in "0123456789"],
    *[
        Binding(key, f"move('{move}')", show=False, priority=True)
        for key, move in (("up", "up"), ("down", "down"), ("home", "first"), ("end", "last"))
    ],
    Binding("pageup", "move('page_up')", show=False, priority=True),
    Binding("pagedown", "move('page_down')", show=False, priority=True),
]
"""The keys of every table UI: help, quit, Enter, Escape, the digits and the moves in the list. The keys that
choose are the app's own, taken in the order typed: a number and Enter arriving together ("1\r", a paste, a
fast typist) must not see the Enter first (a widget's keys are handled after the app's)."""

CSS: Final = """
#main { height: 1fr; }
#left { width: 3fr; min-width: 46; }
#right { width: 2fr; min-width: 30; }
#table { height: auto; border: round $primary; padding: 0 1; }
#hand { height: auto; border: round $primary; padding: 0 1; }
#actions { height: 1fr; min-height: 3; border: round $accent; }
#status { height: auto; min-height: 1; padding: 0 1; }
#log { height: 1fr; min-height: 4; border: round $primary; }
"""
"""The panels every table UI has; each game adds its own."""


def keys_help() -> tuple[str, ...]:
    """The keys of every table UI, for the help page."""
    return tuple(t(f"cli.keys_{key}") for key in ("digits", "arrows", "escape", "help", "quit"))


class TableApp(App[int]):
    """One table, played (a seat) or watched (a spectator), over a :class:`TableSession`.

    A game's app names its text panels (:data:`LEFT`, :data:`RIGHT`; the actions, status line and event log
    are always there), draws them in :meth:`draw_panels` and says what a card's letter does
    (:meth:`pick`)."""

    TITLES: ClassVar[dict[str, str]] = {}
    """The panels' titles: a catalogue key each."""
    LEFT: ClassVar[tuple[str, ...]] = ("table", "hand")
    RIGHT: ClassVar[tuple[str, ...]] = ()
    LETTERS: ClassVar[str] = ""
    """The keys that name the cards of the hand (none of them a command)."""
    KEYS: ClassVar[tuple[str, ...]] = ()
    """The game's own keys, for the help page: a catalogue key each."""

    def __init__(self, session: TableSession) -> None:
        super().__init__()
        localize_bindings(self)
        self.use_command_palette = current().lang == "en"
        """Textual's command palette speaks English only: offered in English alone."""
        assert session.table is not None, "join or watch the table first"
        self.session = session
        self.follower: Follower[Any, Any, Any] = Follower(session.seat, session.table, session.deals.witness)
        self.entry = self.follower.entry
        self.offered: tuple[Any, ...] = ()
        """The Turn's actions offered now (none while another seat acts, or while one is being sent)."""
        self.offered_at: int | None = None
        """The sequence number of the Turn whose actions are offered (None: nothing offered)."""
        self.menu: tuple[Choice[Any], ...] = ()
        self.level: Choice[Any] | None = None
        """The line whose second question is asked now (to whom a card goes), or None."""
        self.submitting = False
        self.number = ""
        """Digits typed so far."""
        self.problem: str | None = None
        """The last refusal or mistake, in words; shown until the next action."""
        self.note: str | None = None
        """What was picked and what Enter will do with it."""
        self.letters: CardLetters[Any] = CardLetters(self.LETTERS)
        self.letter_run: deque[float] = deque(maxlen=3)
        """When the letters typed since the last other key came (several in a row, fast, are a word)."""
        self._pending: list[str] = []
        self.written: deque[str] = deque(maxlen=LOG_LINES)
        """The event log's lines as written (before the log wraps them to its width)."""
        self._dirty = True
        self.frames = 0
        """Frames drawn (a burst of events is one frame)."""
        self.live_from = session.table.sequence
        """The table's last event when this client came: a deal scored after it is shown to a player and waits
        for a key (:class:`SummaryScreen`); the deals of the history read on joining are in the log and sheet
        only, and so is every deal for a spectator (a game of bots would hold the screen at every deal)."""
        self._summary: list[str] | None = None
        """The lines of the deal scored since the last frame, to show over the table."""

    # ------------------------------------------------------------------ what each game's app provides

    def draw_panels(self) -> None:
        raise NotImplementedError

    def hand(self) -> list[Any]:
        """The cards of the hand in the order shown."""
        raise NotImplementedError

    def pick(self, card: Any) -> None:
        """What a card's letter does."""
        raise NotImplementedError

    def deal_number(self) -> int:
        """The deal (round) now: the letters start over with each."""
        return 0

    # ------------------------------------------------------------------ layout and the stream

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
                yield RichLog(id="log", wrap=True, min_width=20, max_lines=LOG_LINES)
        yield Footer(show_command_palette=self.use_command_palette)

    def on_mount(self) -> None:
        self.title = t(f"term.game_{self.entry.game.name}")
        seat = self.session.seat
        who = t("cli.spectator") if seat is None else numbered_seat(seat)
        table = self.session.table
        seeded = "yes" if table is not None and table.seeded else "no"
        self.sub_title = t("cli.sub_title", table=self.session.table_id, who=who, seeded=seeded)
        titles = {**self.TITLES, "#hand": "cli.panel_hand" if seat is not None else "cli.panel_hands"}
        for selector, key in titles.items():
            self.query_one(selector).border_title = t(key)
        self.query_one("#actions", OptionList).focus()
        self.run_worker(self.follow(), group="stream", exit_on_error=False)
        self.set_interval(FRAME_SECONDS, self.frame)
        self.set_interval(1.0, self.tick)

    async def follow(self) -> None:
        """Read the table's stream to its end (the game's) into the follower; the frames draw it."""
        read = 0
        try:
            async for item in self.session.stream(from_start=True):
                lines = self.follower.feed(item)
                self._pending += lines
                seated = self.follower.seat is not None  # a spectator's screen is not held: the log says it
                if seated and self.follower.scored and getattr(item, "sequence", 0) > self.live_from:
                    self._summary = list(self.follower.sheet[-1].summary) or lines
                self._dirty = True
                read += 1
                if read % YIELD_EVERY == 0:
                    await asyncio.sleep(0)  # the keyboard and the frames get their turn in a burst
        except ServerError as error:
            self._pending.append(t("cli.stream_ended", why=error_words(error)))
            self.problem = t("cli.table_lost", why=error_words(error))
        self._dirty = True

    def frame(self) -> None:
        """Draw the latest state, once, if anything changed since the last frame."""
        if not self._dirty:
            return
        self._dirty = False
        self.frames += 1
        lines, self._pending = self._pending[-LOG_LINES:], []
        log = self.query_one("#log", RichLog)
        for line in lines:
            log.write(coloured(line))
        self.written.extend(lines)
        self.draw_panels()
        self.refresh_actions()
        if self._summary:
            self.show_summary(self._summary)
        self._summary = None

    def show_summary(self, lines: list[str]) -> None:
        """A deal just scored: its summary over the table until a key is pressed (one at a time: a later
        deal's replaces it)."""
        title, rest = lines[0], lines[1:]
        if isinstance(self.screen, SummaryScreen):
            self.screen.show(title, rest)
        else:
            self.push_screen(SummaryScreen(title, rest))

    def tick(self) -> None:
        """Once a second: the turn clock's seconds left."""
        turn = self.follower.turn
        if turn is not None and turn.deadline is not None:
            self.show_status()

    def on_resize(self) -> None:
        """At 24 lines every line counts: the header (the table's id, also on the help page) goes."""
        self.query_one(Header).display = self.size.height >= 30

    def redraw(self) -> None:
        """Something the player did changes the screen: draw it at the next frame."""
        self._dirty = True

    # ------------------------------------------------------------------ the actions

    def refresh_actions(self) -> None:
        """Offer the Turn's actions (the game's menu of them), or say whose turn it is."""
        f = self.follower
        actions = f.legal_actions if not self.submitting else ()
        at = f.sequence if actions else None
        if (actions, at) != (self.offered, self.offered_at):
            self.offered, self.offered_at = actions, at
            self.menu = self.entry.menu(actions, f.view, f.names)
            self.level = None
            self.number = ""
            self.note = None
            self.show_menu()
        self.show_status()

    def lines(self) -> tuple[Choice[Any], ...]:
        """The lines of the list now: the menu, or the second question's answers."""
        return self.level.then if self.level is not None else self.menu

    def show_menu(self) -> None:
        option_list = self.query_one("#actions", OptionList)
        option_list.clear_options()
        option_list.add_options([Option(coloured(f"{i}. {c.label}")) for i, c in enumerate(self.lines(), 1)])
        option_list.highlighted = None  # nothing chosen until the player says so

    def show_status(self) -> None:
        self.query_one("#status", Static).update(self.status_text())

    def status_text(self) -> Text:
        f = self.follower
        problem = Text(f"\n{self.problem}" if self.problem else "", style="bold red")
        if self.note:
            problem.append(f"\n{self.note}", style="bold yellow")
        if self.submitting:
            return Text(t("cli.sending"))
        if f.finished:
            text = Text(t("cli.game_over") + " ", style="bold green")
            standings = "; ".join(self.entry.standings_lines(f.standings, f.names))
            text.append(t("cli.final_standings_line", standings=standings))
            text.append("\n" + t("cli.press_q"))
            return text
        if self.offered:
            if self.level is not None:
                text = Text(f"{self.level.question} ", style="bold yellow")
                text.append(t("cli.answer_hint", numbers=numbers(len(self.level.then))))
            else:
                text = Text(t("cli.your_turn", left=self.seconds_left()) + ": ", style="bold yellow")
                text.append(t("cli.turn_hint"))
                text.append(self.typing_hint())
            if self.number:
                text.append("  " + t("cli.typed_number", number=self.number), style="bold")
            return text + problem
        if f.seat is not None and f.seat in f.handed:  # for good: nothing to take back
            return Text(t("cli.seat_handed_over"), style="bold red")
        if f.seat is not None and f.seat in f.away:
            text = Text(t("cli.bot_plays_you") + " ", style="bold red")
            return text + Text(t("cli.press_r")) + problem
        return self.waiting_text() + problem

    def typing_hint(self) -> str:
        words = self.entry.typing_help(self.follower.view, self.offered)
        return f". {words}" if words else "."

    def seconds_left(self) -> int:
        """The whole seconds left on the turn's clock; -1 without a clock (the messages say nothing then)."""
        turn = self.follower.turn
        left = turn.seconds_left() if turn is not None else None
        return -1 if left is None else max(0, round(left))

    def waiting_text(self) -> Text:
        f = self.follower
        if f.seat is None:
            return Text(t("cli.watching"))
        to_act = getattr(f.view, "to_act", None)
        if to_act is not None and to_act != f.seat:
            bot = "yes" if to_act in f.away else "no"
            return Text(
                t("cli.waiting_for", name=seat_name(f.names, to_act), bot=bot, left=self.seconds_left())
            )
        return Text(t("cli.waiting"))

    def can_choose(self) -> bool:
        return bool(self.offered) and not self.submitting

    def mistake(self, text: str) -> None:
        self.problem = text
        self.note = None
        self.show_status()

    # ------------------------------------------------------------------ keys

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        """The table's keys work on the table only: over a pop-up, Enter is the pop-up's."""
        return not (len(self.screen_stack) > 1 and action in ("confirm", "digit", "letter", "drop", "move"))

    def action_move(self, move: str) -> None:
        """A move in the list of actions (the list's own, taken in the order typed)."""
        option_list = self.query_one("#actions", OptionList)
        moves: dict[str, Callable[[], object]] = {
            "up": option_list.action_cursor_up,
            "down": option_list.action_cursor_down,
            "first": option_list.action_first,
            "last": option_list.action_last,
            "page_up": option_list.action_page_up,
            "page_down": option_list.action_page_down,
        }
        moves[move]()
        self.number = ""
        self.letter_run.clear()

    def action_digit(self, digit: str) -> None:
        self.letter_run.clear()
        if not self.can_choose():
            return
        self.number += digit
        value = int(self.number)
        option_list = self.query_one("#actions", OptionList)
        option_list.highlighted = value - 1 if 1 <= value <= len(self.lines()) else None
        self.problem = None
        self.show_status()

    def action_confirm(self) -> None:
        """Enter: the number typed, else the line highlighted; nothing without one or the other."""
        self.letter_run.clear()
        if not self.can_choose():
            return
        if self.number:
            text, self.number = self.number, ""
            self.resolve(text)
            return
        highlighted = self.query_one("#actions", OptionList).highlighted
        if highlighted is None:
            self.mistake(t("cli.nothing_chosen"))
            return
        self.choose_line(highlighted)

    def resolve(self, text: str) -> None:
        """A number typed: a line's, or what the game reads it as (a bid's amount)."""
        lines = self.lines()
        if 1 <= int(text) <= len(lines):
            self.choose_line(int(text) - 1)
            return
        if self.level is not None:
            self.mistake(t("cli.no_such_answer", text=text, numbers=numbers(len(lines))))
            return
        self.run_worker(self.read_typed(text), group="typed", exclusive=True, exit_on_error=False)

    async def read_typed(self, text: str) -> None:
        f = self.follower
        try:
            action = await self.entry.read(Typed(text, self.offered, f.view, f.names, self.ask))
        except ValueError as error:
            self.mistake(str(error))
            return
        if action is None:
            count = len(self.lines())
            self.mistake(t("cli.no_such_action", text=text, count=count, numbers=numbers(count)))
            return
        self.send(action)

    async def ask(self, question: str) -> str | None:
        """One more question in a pop-up (a joker's meaning)."""
        answer: str | None = await self.push_screen_wait(AskScreen(question))
        return answer

    def choose_line(self, index: int) -> None:
        lines = self.lines()
        if not 0 <= index < len(lines):
            return
        choice = lines[index]
        if choice.action is not None:
            self.send(choice.action)
            return
        self.level = choice
        self.problem = None
        self.note = None
        self.show_menu()
        self.show_status()

    def on_option_list_option_selected(self, message: OptionList.OptionSelected) -> None:
        """A click on a line (Enter is the app's own key)."""
        if self.can_choose():
            self.choose_line(message.option_index)

    def action_drop(self) -> None:
        self.letter_run.clear()
        self.number = ""
        self.problem = None
        self.note = None
        self.query_one("#actions", OptionList).highlighted = None
        if self.level is not None:
            self.level = None
            self.show_menu()
        self.dropped()
        self.show_status()

    def dropped(self) -> None:
        """Escape: the game's app forgets what was picked."""

    def action_letter(self, letter: str) -> None:
        self.letter_run.append(time.monotonic())
        card = self.letters.card(letter)
        if card is not None and self.follower.seat is not None:
            self.pick(card)

    def action_reclaim(self) -> None:
        f = self.follower
        if f.seat is not None and f.seat in f.away and f.seat not in f.handed:
            self.run_worker(self.reclaim(), group="reclaim", exclusive=True, exit_on_error=False)

    async def reclaim(self) -> None:
        try:
            await self.session.reclaim()
        except ServerError as error:
            self.mistake(t("cli.reclaim_failed", why=error_words(error)))

    # ------------------------------------------------------------------ sending

    def send(self, action: Any) -> None:
        self.submitting = True
        self.problem = None
        self.note = None
        self._pending.append(t("cli.you_choose", action=self.entry.label(action, self.follower.names)))
        self.redraw()
        self.run_worker(self.submit(action), group="submit", exclusive=True, exit_on_error=False)

    async def submit(self, action: Any) -> None:
        try:
            await self.session.submit(action)
        except ServerError as error:
            code = error.rule or ""
            self.problem = t("cli.rejected", why=error_words(error), code=code)
            self._pending.append(t("cli.rejected_log", why=error_words(error), code=code))
            if error.reason in RESYNC_REASONS:
                self.follower.turn = None  # the stream brings the table's new state and turn
        else:
            self.sent()
        finally:
            self.submitting = False
        self.offered_at = None  # offer again (after a refusal) or clear (the stream brings the next turn)
        self.redraw()

    def sent(self) -> None:
        """An action was accepted: the game's app forgets what was picked for it."""

    # ------------------------------------------------------------------ pages

    def help_lines(self) -> list[str]:
        f = self.follower
        rules = getattr(f.view, "rules", None) or self.entry.game.rules_of(f.table)
        return [
            *(t(key) for key in self.entry.rules_in_words),
            *([""] if self.entry.rules_in_words else []),
            t("cli.table_rules"),
            *rules_lines(rules),
            *clock_lines(f.table),
            "",
            t("cli.keys"),
            *(t(key) for key in self.KEYS),
            *keys_help(),
        ]

    def action_help(self) -> None:
        game = t(f"term.game_{self.entry.game.name}")
        self.push_screen(TextScreen(t("cli.help_title", game=game), self.help_lines()))

    async def action_quit(self) -> None:
        self.exit(0)
