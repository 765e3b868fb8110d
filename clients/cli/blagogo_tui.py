"""The full-screen UI (Textual) at a 1000 Blagogo table: the bridge in order, every meld with its owner, your
hand, the players, the Turn's actions and the event log.

Keys: the Turn's actions (the simple actions, then the melds the server proposes) are numbered; type the
number (Enter when more digits could follow), or move with the arrow keys and press Enter. Or compose (B-22):
the cards of your hand carry letters; press them to select cards (again to drop one), then ``m`` lays them as
a meld (for each joker a prompt asks what it stands for: ``Q`` in a set, ``K♥`` or ``KH`` in a run), or ``a``
adds them to a meld (a prompt asks its id, and ``low``/``high`` for a run's end). Escape drops the selection,
``?`` or F1 shows the rules in words, ``q`` quits. Words come from :mod:`clients.cli.blagogo_text`.
"""

from __future__ import annotations

from typing import ClassVar, Final

from rich.console import RenderableType
from rich.table import Table
from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical, VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Input, Static

from clients.cli import table_app
from clients.cli.blagogo_plain import RESYNC_REASONS, BlagogoPlainClient
from clients.cli.blagogo_text import (
    action_label,
    bridge_text,
    cards_text,
    meld_text,
    parse_stands,
    seat_name,
    sorted_hand,
    standings_lines,
)
from clients.cli.follow import display_names
from clients.cli.table_app import TableApp
from clients.errors import ServerError
from clients.games import BLAGOGO
from clients.messages import (
    SEAT_EVENTS,
    ConnectionLost,
    EventMessage,
    Reconnected,
    Snapshot,
    StreamItem,
    Turn,
)
from clients.session import TableSession
from clients.tracker.blagogo import BlagogoViewTracker
from engine.blagogo import actions as ba
from engine.blagogo import events as be
from engine.blagogo.cards import Card, Suit
from engine.blagogo.observer import View
from engine.blagogo.round import Phase
from engine.blagogo.rules import BlagogoRules

CARD_KEYS: Final = "bcdefghijklnoprstuvwxyzBCDEFGHIJKLNOPRSTUVWXYZ"
"""The letters of the hand's cards, in order (``a``, ``m`` and ``q`` are commands)."""
RED_SUITS: Final = frozenset({Suit.HEARTS, Suit.DIAMONDS})
SUIT_PATTERN: Final = r"(?:10|[2-9JQKA])?[♥♦]"
ENDS: Final = {"low": ba.End.LOW, "high": ba.End.HIGH, "l": ba.End.LOW, "h": ba.End.HIGH}
RULES_IN_WORDS: Final = (
    "Each round: 13 cards each (the first player 13, and starts by melding or discarding). A turn is: draw "
    "(from the deck, or, once you have opened, take the bridge from a position: that card and every card "
    "laid after it), then meld as often as you like, then discard one card onto the bridge.",
    "Melds: a set is 3 or 4 cards of one rank, every suit different (closed once it has all four suits); a "
    "run is 3 to 13 cards of one suit in consecutive rank, round the corner allowed. A joker stands for any "
    "card: say a rank (Q) in a set, a rank and suit (K♥ or KH) in a run.",
    "Opening: your first melds must be laid in one go and be worth the opening minimum; after that you may "
    "add cards to anyone's meld, or put a card in place of a joker and take the joker.",
    "Going out: meld or discard your last card. Melds on the table score for you, cards left in hand count "
    "against you. The game ends when someone reaches the target score.",
)


def card_text(card: Card, *, selected: bool = False) -> Text:
    style = "red" if card.suit in RED_SUITS else ("magenta" if card.is_joker else "")
    style += " bold"
    if selected:
        style += " reverse"
    return Text(str(card), style=style.strip())


def coloured(line: str) -> Text:
    """A line of words with the red suits in red."""
    text = Text(line)
    text.highlight_regex(SUIT_PATTERN, "red")
    return text


class _Transcript(BlagogoPlainClient):
    """The line mode's handling of the events (seat names, standings), its lines kept instead of printed."""

    def __init__(self, session: TableSession) -> None:
        super().__init__(session, None, None)  # type: ignore[arg-type]
        self.lines: list[str] = []

    def say(self, line: str = "") -> None:
        self.lines.append(line)

    def feed(self, event: EventMessage[View, ba.Action, be.Event]) -> list[str]:
        self.lines = []
        self._event(event.event, event.sequence)
        return self.lines


class BlagogoFollower:
    """What the UI knows of a 1000 Blagogo table, kept from the stream."""

    def __init__(self, session: TableSession) -> None:
        self.seat = session.seat
        self.table = session.table
        self.transcript = _Transcript(session)
        self.tracker = BlagogoViewTracker(self.seat)
        self.turn: Turn[View, ba.Action] | None = None
        self.sequence: int | None = None
        self.finished = False
        self.connected = True

    @property
    def view(self) -> View | None:
        return self.tracker.view

    @property
    def names(self) -> list[str]:
        return self.transcript.names

    @property
    def standings(self) -> tuple[be.Standing, ...]:
        return self.transcript.standings

    @property
    def legal_actions(self) -> tuple[ba.Action, ...]:
        turn = self.turn
        if turn is None or self.seat is None or turn.seat != self.seat or self.finished:
            return ()
        return turn.legal_actions

    def feed(self, item: StreamItem) -> list[str]:
        """Take one stream item; returns the log lines it adds."""
        match item:
            case Snapshot(sequence, table, view, turn):
                self.sequence, self.table = sequence, table
                self.transcript.names = display_names(table)
                if view is not None:
                    self.tracker.reset(view)
                    self.transcript.standings = view.standings or self.transcript.standings
                    self.finished = view.winner is not None
                self._turn(turn)
                return [f"(joined the table at event {sequence})"]
            case EventMessage(sequence, event, turn):
                self.sequence = sequence
                lines = self.transcript.feed(item)
                if not isinstance(event, SEAT_EVENTS):
                    self.tracker.apply(event)
                if isinstance(event, be.GameOver):
                    self.finished = True
                self._turn(turn)
                return lines
            case ConnectionLost(error, attempt, retry_in):
                self.connected = False
                return [
                    f"(connection lost: {error.message}; reconnecting in {retry_in:.1f} s, attempt {attempt})"
                ]
            case Reconnected(after):
                self.connected = True
                return [f"(reconnected; resuming after event {after})"]
        return []

    def _turn(self, turn: Turn[View, ba.Action] | None) -> None:
        if turn is None:
            return
        self.turn = turn
        if turn.view is not None:
            self.tracker.reset(turn.view)
        self.tracker.set_turn(turn.seat, turn.legal_actions if turn.seat == self.seat else ())


class AskScreen(ModalScreen[str | None]):
    """A small question with a line to type the answer in; Escape gives up (None)."""

    BINDINGS: ClassVar[list[BindingType]] = [Binding("escape", "give_up", "Cancel")]
    DEFAULT_CSS = """
    AskScreen { align: center middle; }
    AskScreen > Vertical { width: 80; height: auto; border: thick $accent; background: $surface;
                           padding: 1 2; }
    AskScreen Static { height: auto; }
    """

    def __init__(self, question: str, problem: str = "") -> None:
        super().__init__()
        self.question = question
        self.problem = problem

    def compose(self) -> ComposeResult:
        with Vertical():
            if self.problem:
                yield Static(Text(self.problem, style="bold red"), id="problem")
            yield Static(coloured(self.question), id="question")
            yield Input(id="answer")

    def on_mount(self) -> None:
        self.query_one(Input).focus()

    def on_input_submitted(self, message: Input.Submitted) -> None:
        self.dismiss(message.value)

    def action_give_up(self) -> None:
        self.dismiss(None)


class BlagogoHelpScreen(ModalScreen[None]):
    """The rules of 1000 Blagogo in words, this table's variants, and the keys."""

    BINDINGS: ClassVar[list[BindingType]] = [Binding("escape,q,question_mark,f1", "close", "Close")]
    DEFAULT_CSS = """
    BlagogoHelpScreen { align: center middle; }
    BlagogoHelpScreen > VerticalScroll { width: 100; height: 90%; border: thick $accent; background: $surface;
                                         padding: 1 2; }
    """

    def __init__(self, rules: BlagogoRules | None) -> None:
        super().__init__()
        self.rules = rules

    def compose(self) -> ComposeResult:
        lines = ["[b]1000 Blagogo[/b]", "", *RULES_IN_WORDS, "", "[b]The table's rules[/b]", ""]
        if self.rules is None:
            lines.append("(not known yet)")
        else:
            lines += [line.replace("  (changed)", "   ← changed") for line in self.rules.describe()]
        lines += [
            "",
            "[b]Keys[/b]",
            "",
            "1-9, 0     choose an action by its number (Enter when more digits could follow)",
            "↑ ↓ Enter  move through the actions and choose one",
            "b, c, d …  select (or drop) the card of your hand with that letter",
            "m          lay the selected cards as a meld (you are asked what each joker stands for)",
            "a          add the selected cards to a meld (you are asked its id, and low/high for a run)",
            "Escape     drop the selection and the digits typed so far",
            "? or F1    this help",
            "q          quit (before the end, your seat is given up: `thousand join` it again)",
            "",
            "Press Escape to close.",
        ]
        with VerticalScroll():
            yield Static("\n".join(lines))

    def action_close(self) -> None:
        self.dismiss(None)


class BlagogoApp(TableApp[ba.Action]):
    """One 1000 Blagogo table, played (a seat) or watched (a spectator), over a :class:`TableSession`."""

    TITLE = "1000 Blagogo"
    CSS = (
        table_app.CSS
        + "#melds { height: auto; max-height: 14; border: round $primary; padding: 0 1; }"
        + "#players { height: auto; border: round $primary; }"
    )
    BINDINGS: ClassVar[list[BindingType]] = [
        *table_app.BINDINGS,
        Binding("m", "lay", "Meld"),
        Binding("a", "add", "Add to meld"),
        Binding("escape", "clear", "Clear", show=False),
        *[Binding(k, f"card('{k}')", k, show=False) for k in CARD_KEYS],
    ]
    TITLES: ClassVar[dict[str, str]] = {
        "#table": "Table",
        "#melds": "Melds",
        "#players": "Players",
        "#log": "Events",
        "#actions": "Actions",
    }

    LEFT: ClassVar[tuple[str, ...]] = ("table", "melds", "hand")
    RIGHT: ClassVar[tuple[str, ...]] = ("players",)

    follower: BlagogoFollower

    def __init__(self, session: TableSession) -> None:
        super().__init__(session)
        self.follower = BlagogoFollower(session)
        self.selected: list[Card] = []
        self.composing = False
        self.problem: str | None = None
        """The last rejection (or mistake), in words; shown until the next action."""

    # ------------------------------------------------------------------ the stream

    def take(self, item: StreamItem) -> None:
        self.log_lines(self.follower.feed(item))
        turn = getattr(item, "turn", None)
        if turn is not None or isinstance(item, ConnectionLost | Reconnected | Snapshot):
            self.refresh_panels()

    # ------------------------------------------------------------------ drawing

    @property
    def view(self) -> View | None:
        return self.follower.view

    def refresh_panels(self) -> None:
        self.refresh_table()
        self.refresh_melds()
        self.refresh_players()
        self.refresh_actions()
        self.refresh_hand()

    def refresh_table(self) -> None:
        self.query_one("#table", Static).update(self.table_text())

    def table_text(self) -> RenderableType:
        f = self.follower
        v = self.view
        text = Text()
        if not f.connected:
            text.append("Connection lost — reconnecting…\n", style="bold red")
        if v is None or v.phase is None:
            text.append("Waiting for the game to start (every seat must be taken).\n")
            if f.table is not None:
                for seat in f.table.seats:
                    text.append(f"  {seat_name(f.names, seat.seat)}: {'taken' if seat.taken else 'free'}\n")
            return text
        text.append(
            f"Round {v.round_number}, dealer {seat_name(f.names, v.dealer)}; "
            f"{v.deck_count} cards in the deck\n",
            style="bold",
        )
        text.append("Bridge (position:card, the newest last): ")
        text.append_text(coloured(bridge_text(v.bridge) + "\n"))
        if v.must_meld is not None:
            text.append_text(coloured(f"{v.must_meld} from the bridge must be melded this turn\n"))
        if f.finished:
            text.append("Game over.\n", style="bold green")
        elif v.to_act is not None:
            mine = v.to_act == f.seat
            text.append(
                f"To act: {'You' if mine else seat_name(f.names, v.to_act)}",
                style="bold yellow" if mine else "bold",
            )
            if mine and v.phase is not None:
                text.append(" — " + ("draw" if v.phase is Phase.DRAW else "meld or discard"))
            left = f.turn.seconds_left() if f.turn is not None else None
            if left is not None:
                text.append(f"  ({max(0, round(left))} s left)", style="bold red" if left < 10 else "")
            text.append("\n")
        return text

    def refresh_melds(self) -> None:
        v = self.view
        text = Text()
        if v is None or not v.melds:
            text.append("none yet")
        else:
            for i, meld in enumerate(v.melds):
                text.append_text(coloured(("\n" if i else "") + meld_text(meld, self.follower.names)))
        self.query_one("#melds", Static).update(text)

    def refresh_players(self) -> None:
        v = self.view
        f = self.follower
        table = Table(box=None, expand=True, pad_edge=False)
        for title in ("seat", "cards", "opened", "score"):
            table.add_column(title, justify="left" if title == "seat" else "right")
        if v is not None:
            for s, score in enumerate(v.scores):
                name = seat_name(f.names, s) + (" ← you" if s == f.seat else "")
                if v.to_act == s:
                    name = "▶ " + name
                count = v.card_counts[s] if s < len(v.card_counts) else 0
                known = v.known_cards[s] if s < len(v.known_cards) and s != f.seat else ()
                cards = f"{count}" + (f" (known: {cards_text(known)})" if known else "")
                opened = "yes" if s < len(v.opened) and v.opened[s] else "no"
                table.add_row(name, cards, opened, str(score))
            table.add_row("", "", "", f"target {v.rules.target}")
        if f.finished and f.standings:
            table.add_row("", "", "", "")
            for line in standings_lines(f.standings, f.names):
                table.add_row(line, "", "", "")
        self.query_one("#players", Static).update(table)

    def hand_cards(self) -> list[Card]:
        v = self.view
        return sorted_hand(v.hand) if v is not None else []

    def refresh_hand(self) -> None:
        v = self.view
        hand = Text()
        cards = self.hand_cards()
        self.selected = [c for c in self.selected if c in cards]
        if self.follower.seat is None:
            if v is not None:
                hand.append("Cards held: " + ", ".join(
                    f"{seat_name(self.follower.names, s)} {c}" for s, c in enumerate(v.card_counts)
                ))  # fmt: skip
        else:
            if not cards:
                hand.append("(no cards)")
            for i, card in enumerate(cards):
                if i and cards[i - 1].suit != card.suit:
                    hand.append("  ")
                key = CARD_KEYS[i] if i < len(CARD_KEYS) else "·"
                hand.append(f" {key}:", style="dim")
                hand.append_text(card_text(card, selected=card in self.selected))
            if self.selected:
                hand.append("\nSelected: ", style="bold")
                hand.append_text(coloured(cards_text(self.selected)))
                hand.append("  (m: lay as a meld, a: add to a meld, Escape: drop)", style="dim")
        self.query_one("#hand", Static).update(hand)

    def action_text(self, action: ba.Action) -> str:
        return action_label(action, self.follower.names)

    def nothing_offered(self) -> None:
        if self.follower.finished:
            self.show_over()
        elif self.problem is None:
            self.show_status(self.waiting_text())

    def can_meld(self) -> bool:
        v = self.view
        return bool(self.offered) and v is not None and v.phase is Phase.PLAY

    def prompt(self) -> Text:
        n = len(self.offered)
        text = Text("Your turn: ", style="bold yellow")
        text.append(f"type {'1' if n == 1 else f'1-{n}'} (or ↑↓ and Enter)")
        if self.can_meld():
            text.append("; or select cards by their letters, then m (meld) or a (add to a meld)")
        if self.problem is not None:
            text.append(f"\n{self.problem}", style="bold red")
        return text

    def show_problem(self, problem: str) -> None:
        self.problem = problem
        self.show_status(self.prompt() if self.offered else Text(problem, style="bold red"))

    def colour(self, line: str) -> Text:
        return coloured(line)

    def can_choose(self) -> bool:
        return super().can_choose() and not self.composing

    def show_mistake(self, text: str) -> None:
        self.show_problem(text)

    def show_over(self) -> None:
        self.follower.finished = True
        f = self.follower
        text = Text("Game over. ", style="bold green")
        text.append("Final standings: " + "; ".join(standings_lines(f.standings, f.names)))
        text.append("\nPress q to quit.")
        self.show_status(text)

    # ------------------------------------------------------------------ choosing

    def choose(self, index: int) -> None:
        if self.submitting or self.composing or not 0 <= index < len(self.offered):
            return
        self.send(self.offered[index])

    def send(self, action: ba.Action) -> None:
        self.submitting = True
        self.problem = None
        self.log_lines([f"(you choose: {action_label(action, self.follower.names)})"])
        self.refresh_actions()
        self.show_status(self.waiting_text())
        self.run_worker(self.submit(action), group="submit", exclusive=True, exit_on_error=False)

    async def submit(self, action: ba.Action) -> None:
        try:
            await self.session.submit(action)
        except ServerError as error:
            why = f" [{error.rule}]" if error.rule else f" [{error.reason}]" if error.reason else ""
            self.problem = f"Rejected: {error.message}{why}"
            self.log_lines([f"(rejected: {error.message}{why})"])
            if error.reason in RESYNC_REASONS:
                self.follower.turn = None  # the stream brings the table's new state and turn
        else:
            self.selected = []
        finally:
            self.submitting = False
        self.offered_at = None  # offer again (after a rejection) or clear (the stream brings the next turn)
        self.refresh_actions()
        self.refresh_hand()
        if self.problem is not None:
            self.show_problem(self.problem)

    def action_clear(self) -> None:
        self.number = ""
        self.selected = []
        self.problem = None
        self.refresh_hand()
        if self.offered:
            self.show_status(self.prompt())

    def action_card(self, key: str) -> None:
        cards = self.hand_cards()
        index = CARD_KEYS.index(key)
        if self.follower.seat is None or index >= len(cards) or self.composing:
            return
        card = cards[index]
        if card in self.selected:
            self.selected.remove(card)
        else:
            self.selected.append(card)
        self.refresh_hand()

    def chosen_cards(self) -> tuple[Card, ...] | None:
        """The selected cards in the hand's order; None (the reason shown) when none can be composed now."""
        if not self.offered or self.submitting or self.composing:
            self.show_problem("It is not your turn to meld." if not self.offered else "Wait: sending…")
            return None
        if not self.selected:
            self.show_problem("Select cards first: press the letters shown before them in your hand.")
            return None
        hand = self.hand_cards()
        return tuple(sorted(self.selected, key=hand.index))

    def action_lay(self) -> None:
        cards = self.chosen_cards()
        if cards is not None:
            self.composing = True
            self.run_worker(self.lay(cards), group="compose", exclusive=True, exit_on_error=False)

    def action_add(self) -> None:
        cards = self.chosen_cards()
        if cards is not None:
            self.composing = True
            self.run_worker(self.add(cards), group="compose", exclusive=True, exit_on_error=False)

    async def lay(self, cards: tuple[Card, ...]) -> None:
        try:
            jokers = await self.meanings(cards)
        finally:
            self.composing = False
        if jokers is not None:
            self.send(ba.LayMelds((ba.MeldSpec(cards, jokers),)))

    async def add(self, cards: tuple[Card, ...]) -> None:
        try:
            where = await self.which_meld(cards)
            jokers = await self.meanings(cards) if where is not None else None
        finally:
            self.composing = False
        if where is not None and jokers is not None:
            self.send(ba.AddToMeld(where[0], cards, jokers, where[1]))

    async def which_meld(self, cards: tuple[Card, ...]) -> tuple[int, ba.End | None] | None:
        """Ask which meld to add ``cards`` to (and at which end of a run); None when the user gives up."""
        ids = [m.id for m in self.view.melds] if self.view is not None else []
        question = (
            f"Add {cards_text(cards)} to which meld? Type its id ({', '.join(map(str, ids)) or 'none yet'}), "
            "and low or high for a run's end, e.g. 4 high. Escape cancels."
        )
        problem = ""
        while True:
            answer = await self.push_screen_wait(AskScreen(question, problem))
            if answer is None:
                return None
            words = answer.split()
            end = ENDS.get(words[1].lower()) if len(words) == 2 else None
            if words and words[0].lstrip("#").isdigit() and (len(words) == 1 or end is not None):
                return int(words[0].lstrip("#")), end
            problem = (
                f"{answer.strip()!r} is not a meld: type its id, then low or high for a run (e.g. 4 high)."
            )

    async def meanings(self, cards: tuple[Card, ...]) -> tuple[ba.Stands, ...] | None:
        """Ask what each joker among ``cards`` stands for, in order; None when the user gives up."""
        found: list[ba.Stands] = []
        for card in cards:
            if not card.is_joker:
                continue
            question = (
                f"What does {card} stand for? A rank like Q in a set, "
                "a rank and suit like K♥ or KH in a run. "
                "Escape cancels."
            )
            problem = ""
            while True:
                answer = await self.push_screen_wait(AskScreen(question, problem))
                if answer is None:
                    return None
                try:
                    found.append(parse_stands(answer))
                    break
                except ValueError as error:
                    problem = str(error)
        return tuple(found)

    def action_help(self) -> None:
        v = self.view
        table = self.follower.table
        rules = v.rules if v is not None else (BLAGOGO.rules_of(table) if table is not None else None)
        self.push_screen(BlagogoHelpScreen(rules))
