"""The full-screen UI (Textual) at a Thousand table: the deal, every seat's cards, tricks and points, your
hand, the actions, the score sheet deal by deal and the event log; it fits 80×24.

Keys (and :mod:`clients.cli.table_app`'s): a card's letter picks it (the letters stay with the cards while
they are in the hand), Enter then plays (or gives) it; a card that cannot be played says why. ``t`` shows
the deal's tricks, ``s`` the whole score sheet, ``r`` takes your seat back from the server's bot.
"""

from __future__ import annotations

from typing import ClassVar, Final

from rich.table import Table
from rich.text import Text
from textual.binding import Binding, BindingType
from textual.widgets import OptionList, Static

from clients.cli import table_app
from clients.cli.plain import sheet_lines
from clients.cli.screens import TextScreen, coloured
from clients.cli.table_app import TableApp
from clients.cli.text import (
    action_card,
    auction_text,
    contract_text,
    deal_line,
    seat_name,
    short_names,
    sorted_hand,
    talon_text,
    trick_text,
    tricks_lines,
    trump_text,
)
from clients.cli.thousand_cli import sheet_legend, why_not
from clients.i18n import t
from clients.session import TableSession
from engine import Bid, Phase, View
from engine.cards import Card, Suit

CARD_KEYS: Final = "abcdefghijklmnopuvwxyz"
"""The letters of the hand's cards (q, r, s and t are commands)."""
RED_SUITS: Final = frozenset({Suit.HEARTS, Suit.DIAMONDS})
TYPING: Final = (3, 0.6)
"""Three letters in a row within 0.6 s (no other key between them) are someone typing words, not picking a
card: nothing is picked."""
SHEET_ROWS: Final = (4, 14)
"""Deals the sheet panel shows: at 24 lines, and on a tall screen."""


def card_text(card: Card, *, dim: bool = False) -> Text:
    style = "red bold" if card.suit in RED_SUITS else "bold"
    return Text(str(card), style=style + (" dim" if dim else ""))


class ThousandApp(TableApp):
    """One Thousand table, played (a seat) or watched (a spectator), over a TableSession."""

    CSS = table_app.CSS + "#sheet { height: auto; border: round $primary; }"
    LETTERS = CARD_KEYS
    BINDINGS: ClassVar[list[BindingType]] = [
        *table_app.BINDINGS,
        Binding("t", "tricks", "cli.key_tricks"),
        Binding("s", "sheet", "cli.key_sheet"),
        Binding("r", "reclaim", "cli.key_reclaim", show=False),
        *[Binding(k, f"letter('{k}')", k, show=False, priority=True) for k in CARD_KEYS],
    ]
    TITLES: ClassVar[dict[str, str]] = {
        "#actions": "cli.panel_actions",
        "#log": "cli.panel_events",
        "#sheet": "cli.panel_sheet",
        "#table": "cli.panel_table",
    }
    LEFT: ClassVar[tuple[str, ...]] = ("table", "hand")
    RIGHT: ClassVar[tuple[str, ...]] = ("sheet",)
    KEYS: ClassVar[tuple[str, ...]] = (
        "cli.keys_letters",
        "cli.keys_tricks",
        "cli.keys_sheet",
        "cli.keys_reclaim",
    )

    def __init__(self, session: TableSession) -> None:
        super().__init__(session)
        self._deal = -1

    @property
    def view(self) -> View | None:
        view: View | None = self.follower.view
        return view

    # ------------------------------------------------------------------ drawing

    def draw_panels(self) -> None:
        self.query_one("#table", Static).update(self.table_text())
        self.draw_hand()
        self.draw_sheet()

    def table_text(self) -> Text:
        f = self.follower
        v = self.view
        names = f.names if self.size.width >= 120 else short_names(f.names)
        text = Text()
        if not f.connected:
            text.append(t("cli.reconnecting") + "\n", style="bold red")
        if v is None or v.phase is None:
            text.append(t("cli.waiting_start") + "\n")
            if self.session.invite_code:
                text.append(t("cli.private_invite_code", code=self.session.invite_code) + "\n")
            for seat in f.table.seats:
                taken = "yes" if seat.taken else "no"
                text.append(
                    "  " + t("cli.seat_taken_or_free", name=seat_name(names, seat.seat), taken=taken) + "\n"
                )
            return text
        text.append(deal_line(v, names) + "\n", style="bold")
        if v.phase in (Phase.DARK, Phase.AUCTION):
            bids = auction_text(v, names)
            high = v.high_bid
            text.append(
                (t("cli.auction", bids=bids) if high is None else t("cli.auction_high", bids=bids, high=high))
                + "\n"
            )
        contract = contract_text(v, names)
        trump = trump_text(v, names)
        if contract:
            text.append_text(coloured(f"{contract}; {trump[0].lower()}{trump[1:]}\n"))
        elif v.trump is not None or v.marriages:
            text.append_text(coloured(trump + "\n"))
        talon = talon_text(v)
        if talon:
            text.append_text(coloured(talon + "\n"))
        self.seat_rows(v, text)
        if v.phase is Phase.PLAY:
            text.append_text(coloured(t("cli.trick", cards=trick_text(v.trick, names)) + "\n"))
            if v.tricks:
                last = v.tricks[-1]
                text.append(t("cli.last_short", name=seat_name(names, last.winner)) + " ", style="dim")
                text.append_text(coloured(" ".join(str(card) for _, card in last.plays)))
                text.append("  " + t("cli.t_every_trick") + "\n", style="dim")
        if f.finished:
            text.append(t("cli.game_over") + "\n", style="bold green")
        text.rstrip()
        return text

    def seat_rows(self, v: View, text: Text) -> None:
        """A line per seat of the deal: cards held, tricks and points taken, and who plays it; with the short
        names when the full ones would not fit the panel (longer words in some languages)."""
        f = self.follower
        rows = self.rows_named(v, f.names)
        room = self.query_one("#table").content_region.width
        if room and max((len(row) for row, _ in rows), default=0) > room:
            rows = self.rows_named(v, short_names(f.names))
        for row, style in rows:
            text.append(row + "\n", style=style)

    def rows_named(self, v: View, names: list[str]) -> list[tuple[str, str]]:
        f = self.follower
        width = max((len(seat_name(names, s)) for s in v.active), default=0)
        rows = []
        for s in sorted(v.active):  # in seat order every deal (the order of play turns with the dealer)
            mark = "▶ " if s == v.to_act and not f.finished else "  "
            name = seat_name(names, s).ljust(width)
            tricks = v.tricks_won[s]
            count = v.card_counts[s]
            row = mark + name + " " + t("cli.seat_row", cards=f"{count:>2}", tricks=f"{tricks:>2}",
                                        points=f"{v.trick_points[s]:>3}", count=count)  # fmt: skip
            score = v.scores[s]
            if score.on_barrel:
                row += "  " + t("cli.seat_row_barrel", deal=min(score.barrel_deals + 1, 3))
            if s in f.away:
                row += "  " + t("cli.seat_row_bot")
            rows.append((row, "bold" if s == f.seat else ""))
        return rows

    def hand(self) -> list[Card]:
        v = self.view
        return sorted_hand(v.hand) if v is not None else []

    def draw_hand(self) -> None:
        v = self.view
        f = self.follower
        hand = Text()
        if f.seat is None:
            if v is not None and v.card_counts:
                counts = ", ".join(f"{seat_name(f.names, s)} {v.card_counts[s]}" for s in sorted(v.active))
                hand.append(t("cli.cards_held", counts=counts))
        else:
            cards = self.hand()
            if v is not None and v.deal_number != self._deal:
                self._deal = v.deal_number
                self.letters.reset()
            self.letters.update(cards)
            playable = {action_card(a) for a in self.offered} - {None}
            if not cards:
                unseen = v is None or v.phase is Phase.DARK
                hand.append(t("cli.not_seen_yet") if unseen else t("cli.no_cards"))
            for i, card in enumerate(cards):
                if i and cards[i - 1].suit != card.suit:
                    hand.append(" ")
                hand.append(f" {self.letters.letter(card) or '·'}:", style="dim")
                hand.append_text(card_text(card, dim=bool(playable) and card not in playable))
        self.query_one("#hand", Static).update(hand)

    def draw_sheet(self) -> None:
        f = self.follower
        v = self.view
        seats = len(f.names)
        table = Table(box=None, expand=True, pad_edge=False, show_edge=False)
        table.add_column(t("cli.sheet_deal"), justify="right")
        for seat in range(seats):
            you = "*" if seat == f.seat else ""
            table.add_column(short_names(f.names)[seat][:8] + you, justify="right")
        rows = SHEET_ROWS[0] if self.size.height < 30 else SHEET_ROWS[1]
        for row in f.sheet[-rows:]:
            table.add_row(str(row.number), *row.cells)
        if not f.sheet and v is not None:
            table.add_row("", *(str(s.score) for s in v.scores))
        self.query_one("#sheet", Static).update(table)

    def typing_hint(self) -> str:
        if any(isinstance(a, Bid) for a in self.offered):
            return t("cli.hint_bid")
        if any(action_card(a) for a in self.offered):
            return t("cli.hint_letter")
        return "."

    # ------------------------------------------------------------------ cards

    def pick(self, card: Card) -> None:
        """A card's letter: its line is highlighted for Enter, or the reason it cannot be chosen is said."""
        if not self.can_choose():
            return
        run = self.letter_run
        count, within = TYPING
        option_list = self.query_one("#actions", OptionList)
        if len(run) == count and run[-1] - run[0] < within:
            option_list.highlighted = None
            self.mistake(t("cli.looked_like_typing"))
            return
        lines = [i for i, c in enumerate(self.lines()) if any(action_card(a) == card for a in c.actions())]
        if not lines:
            option_list.highlighted = None
            self.mistake(t("cli.card_not_chosen", card=str(card), why=why_not(card, self.view)))
            return
        option_list.highlighted = lines[0]
        self.number = ""
        self.problem = None
        if len(lines) == 1:
            self.note = t("cli.picked_one", card=str(card), action=self.lines()[lines[0]].label)
        else:
            self.note = t("cli.picked_many", card=str(card), ways=len(lines))
        self.show_status()

    # ------------------------------------------------------------------ pages

    def action_tricks(self) -> None:
        v = self.view
        lines = tricks_lines(v, self.follower.names) if v is not None else []
        self.push_screen(TextScreen(t("cli.tricks_title"), lines or [t("cli.no_trick_yet")]))

    def action_sheet(self) -> None:
        f = self.follower
        lines = [*sheet_lines(f.sheet, f.names), "", sheet_legend()]
        lines += [t("cli.sheet_row_title", number=row.number, title=row.title) for row in f.sheet]
        self.push_screen(TextScreen(t("cli.sheet_title_page"), lines))
