"""The full-screen UI (Textual): the table, your hand, the legal actions, the score sheet and the event log.

Keys: the legal actions are numbered; type the number (Enter when more digits could follow), or move with
the arrow keys and press Enter. The cards of your hand carry letters: a letter plays (or gives) that card.
``?`` or F1 shows the table's rules, ``q`` quits.
"""

from __future__ import annotations

from typing import ClassVar, Final

from rich.console import RenderableType
from rich.table import Table
from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import OptionList, Static

from clients.cli import table_app
from clients.cli.follow import Follower
from clients.cli.table_app import TableApp
from clients.cli.text import (
    action_card,
    action_label,
    auction_text,
    contract_text,
    deal_line,
    seat_name,
    sorted_hand,
    standings_lines,
    talon_text,
    trick_text,
    trump_text,
)
from clients.errors import ServerError
from clients.games import THOUSAND
from clients.messages import ConnectionLost, Reconnected, StreamItem
from clients.session import TableSession
from engine import Action, Phase, Rules, View
from engine.cards import Card, Suit

CARD_KEYS: Final = "abcdefghijklmnop"
"""The letters of the hand's cards, in order (q, for quit, comes after the largest hand)."""
RED_SUITS: Final = frozenset({Suit.HEARTS, Suit.DIAMONDS})
RESYNC_REASONS: Final = frozenset({"STALE_SEQUENCE", "NOT_YOUR_TURN", "GAME_OVER", "GAME_NOT_STARTED"})
SUIT_PATTERN: Final = r"(?:10|[9JQKA])?[♥♦]"


def card_text(card: Card, *, bold: bool = True, dim: bool = False) -> Text:
    style = "red" if card.suit in RED_SUITS else ""
    if bold:
        style += " bold"
    if dim:
        style += " dim"
    return Text(str(card), style=style.strip())


def coloured(line: str) -> Text:
    """A line of words with the red suits in red."""
    text = Text(line)
    text.highlight_regex(SUIT_PATTERN, "red")
    return text


class HelpScreen(ModalScreen[None]):
    """The table's rules in words (engine ``Rules.describe()``) and the keys."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape,q,question_mark,f1", "dismiss", "Close"),
    ]
    DEFAULT_CSS = """
    HelpScreen { align: center middle; }
    HelpScreen > VerticalScroll { width: 90; height: 90%; border: thick $accent; background: $surface;
                                  padding: 1 2; }
    """

    def __init__(self, rules: Rules | None) -> None:
        super().__init__()
        self.rules = rules

    def compose(self) -> ComposeResult:
        lines = ["[b]The table's rules[/b]", ""]
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
            "a, b, c …  play (or give) the card with that letter",
            "Escape     forget the digits typed so far",
            "? or F1    this help",
            "q          quit (before the end, your seat is given up: `thousand join` it again)",
            "",
            "Press Escape to close.",
        ]
        with VerticalScroll():
            yield Static("\n".join(lines))

    async def action_dismiss(self, result: None = None) -> None:
        self.dismiss(result)


class ThousandApp(TableApp[Action]):
    """One table, played (a seat) or watched (a spectator), over a :class:`TableSession`."""

    TITLE = "Thousand"
    CSS = table_app.CSS + "#sheet { height: auto; border: round $primary; }"
    BINDINGS: ClassVar[list[BindingType]] = [
        *table_app.BINDINGS,
        Binding("escape", "clear_number", "Clear", show=False),
        *[Binding(k, f"card('{k}')", k, show=False) for k in CARD_KEYS],
    ]
    TITLES: ClassVar[dict[str, str]] = {
        "#actions": "Actions",
        "#log": "Events",
        "#sheet": "Score sheet",
        "#table": "Table",
    }

    LEFT: ClassVar[tuple[str, ...]] = ("table", "hand")
    RIGHT: ClassVar[tuple[str, ...]] = ("sheet",)

    follower: Follower

    def __init__(self, session: TableSession) -> None:
        super().__init__(session)
        self.follower = Follower(session.seat, session.table, session.deals.witness)
        self.error: ServerError | None = None

    # ------------------------------------------------------------------ the stream

    def take(self, item: StreamItem) -> None:
        self.log_lines(self.follower.feed(item))
        if self.follower.batch_ended or isinstance(item, ConnectionLost | Reconnected):
            self.refresh_panels()

    def colour(self, line: str) -> Text:
        return coloured(line)

    # ------------------------------------------------------------------ drawing

    def refresh_panels(self) -> None:
        self.refresh_table()
        self.refresh_hand()
        self.refresh_sheet()
        self.refresh_actions()

    @property
    def view(self) -> View | None:
        return self.follower.view

    def refresh_table(self) -> None:
        self.query_one("#table", Static).update(self.table_text())

    def table_text(self) -> RenderableType:
        f = self.follower
        v = self.view
        names = f.names
        text = Text()
        if not f.connected:
            text.append("Connection lost — reconnecting…\n", style="bold red")
        if v is None or v.phase is None:
            text.append("Waiting for the game to start (every seat must be taken).\n")
            if f.table is not None:
                for seat in f.table.seats:
                    text.append(f"  {seat_name(names, seat.seat)}: {'taken' if seat.taken else 'free'}\n")
            return text
        text.append(deal_line(v, names) + "\n", style="bold")
        if v.phase in (Phase.DARK, Phase.AUCTION) or v.auction:
            high = "" if v.high_bid is None else f"  (high bid {v.high_bid})"
            text.append(f"Auction: {auction_text(v, names)}{high}\n")
        contract = contract_text(v, names)
        if contract:
            text.append(contract + "\n")
        text.append_text(coloured(trump_text(v, names) + "\n"))
        talon = talon_text(v)
        if talon:
            text.append_text(coloured(talon + "\n"))
        if v.phase is Phase.PLAY or v.trick:
            text.append("Trick: ")
            text.append_text(coloured(trick_text(v.trick, names) + "\n"))
        if f.tracker.last_trick and v.phase is Phase.PLAY:
            text.append("Last trick: ", style="dim")
            text.append_text(coloured(trick_text(f.tracker.last_trick, names) + "\n"))
        if f.finished:
            text.append("Game over.\n", style="bold green")
        elif v.to_act is not None:
            who = "You" if v.to_act == f.seat else seat_name(names, v.to_act)
            text.append(f"To act: {who}", style="bold yellow" if v.to_act == f.seat else "bold")
            turn = f.turn
            left = turn.seconds_left() if turn is not None else None
            if left is not None:
                text.append(f"  ({max(0, round(left))} s left)", style="bold red" if left < 10 else "")
            text.append("\n")
        return text

    def hand_cards(self) -> list[Card]:
        v = self.view
        return sorted_hand(v.hand) if v is not None else []

    def refresh_hand(self) -> None:
        v = self.view
        hand = Text()
        if self.follower.seat is None:
            if v is not None and v.card_counts:
                counts = ", ".join(
                    f"{seat_name(self.follower.names, s)} {v.card_counts[s]}" for s in v.active
                )
                hand.append(f"Cards held: {counts}")
        else:
            playable = {action_card(a) for a in self.offered} - {None}
            cards = self.hand_cards()
            if not cards:
                hand.append("(no cards)" if v is not None and v.phase is not Phase.DARK else "(not seen yet)")
            for i, card in enumerate(cards):
                if i and cards[i - 1].suit != card.suit:
                    hand.append("  ")
                hand.append(f" {CARD_KEYS[i]}:", style="dim")
                hand.append_text(card_text(card, dim=bool(playable) and card not in playable))
        self.query_one("#hand", Static).update(hand)

    def refresh_sheet(self) -> None:
        v = self.view
        f = self.follower
        table = Table(box=None, expand=True, pad_edge=False)
        for title in ("seat", "score", "bolts", "barrel", "falls"):
            table.add_column(title, justify="left" if title == "seat" else "right")
        if v is not None:
            for s in v.scores:
                barrel = f"on, deal {min(s.barrel_deals + 1, 3)}/3" if s.on_barrel else "-"
                if s.barrel_visits:
                    barrel += f" (visit {s.barrel_visits})"
                name = seat_name(f.names, s.seat) + (" ← you" if s.seat == f.seat else "")
                table.add_row(name, str(s.score), str(s.bolts), barrel, str(s.falls))
        if f.finished and f.standings:
            table.add_row("", "", "", "", "")
            for line in standings_lines(f.standings, f.names):
                table.add_row(line, "", "", "", "")
        self.query_one("#sheet", Static).update(table)

    def refresh_actions(self) -> bool:
        changed = super().refresh_actions()
        if changed:
            self.refresh_hand()
        return changed

    def action_text(self, action: Action) -> str:
        return action_label(action, self.follower.names)

    def nothing_offered(self) -> None:
        if self.error is None:
            super().nothing_offered()

    def prompt(self) -> Text:
        n = len(self.offered)
        keys = "1" if n == 1 else f"1-{n}"
        text = Text("Your turn: ", style="bold yellow")
        text.append(f"type {keys} (or ↑↓ and Enter)")
        if any(action_card(a) for a in self.offered):
            text.append(", or a card's letter")
        if self.error is not None:
            text.append(f"\nRejected: {self.error.message}", style="bold red")
        return text

    def show_over(self) -> None:
        f = self.follower
        text = Text("Game over. ", style="bold green")
        text.append("Final standings: " + "; ".join(standings_lines(f.standings, f.names)))
        text.append("\nPress q to quit.")
        self.show_status(text)
        self.refresh_panels()

    # ------------------------------------------------------------------ choosing

    def choose(self, index: int) -> None:
        if self.submitting or not 0 <= index < len(self.offered):
            return
        action = self.offered[index]
        self.submitting = True
        self.error = None
        self.log_lines([f"(you choose: {action_label(action, self.follower.names)})"])
        self.refresh_actions()
        self.run_worker(self.submit(action), group="submit", exclusive=True, exit_on_error=False)

    async def submit(self, action: Action) -> None:
        try:
            await self.session.submit(action)
        except ServerError as error:
            self.error = error
            self.log_lines([f"(rejected: {error.message})"])
            if error.reason in RESYNC_REASONS:
                self.follower.turn = None  # the stream brings the table's new state and turn
        finally:
            self.submitting = False
        self.offered_at = None  # offer again (after a rejection) or clear (the stream brings the next turn)
        self.refresh_actions()
        if self.error is not None and not self.offered:
            self.show_status(Text(f"Rejected: {self.error.message}", style="bold red"))

    def action_clear_number(self) -> None:
        self.number = ""
        if self.offered:
            self.show_status(self.prompt())

    def action_card(self, key: str) -> None:
        if not self.offered or self.submitting:
            return
        cards = self.hand_cards()
        index = CARD_KEYS.index(key)
        if index >= len(cards):
            return
        card = cards[index]
        matching = [i for i, a in enumerate(self.offered) if action_card(a) == card]
        if not matching:
            self.show_status(Text(f"{card} cannot be chosen now.", style="bold red"))
            return
        if len(matching) == 1:
            self.choose(matching[0])
            return
        self.query_one("#actions", OptionList).highlighted = matching[0]
        self.show_status(Text(f"{len(matching)} actions with {card}: move with ↑↓ and press Enter."))

    def action_help(self) -> None:
        v = self.view
        rules = (
            v.rules
            if v is not None
            else (THOUSAND.rules_of(self.follower.table) if self.follower.table else None)
        )
        self.push_screen(HelpScreen(rules))
