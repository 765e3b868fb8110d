"""The full-screen UI (Textual) at a 1000 Blagogo table: the bridge in order, every meld with its owner, your
hand, the players, the Turn's actions and the event log.

Keys (and :mod:`clients.cli.table_app`'s): the Turn's actions (the simple actions, then the melds the server
proposes) are numbered. Or compose (B-22): the cards of your hand carry letters (kept while a card stays in
the hand); press them to select cards (again to drop one), then ``m`` lays them as a meld, or ``a`` adds them
to a meld (its id is asked). A joker's meaning is asked only when more than one fits
(:mod:`clients.cli.blagogo_compose`). Escape drops the selection. Words come from
:mod:`clients.cli.blagogo_text`.
"""

from __future__ import annotations

from typing import Any, ClassVar, Final

from rich.table import Table
from rich.text import Text
from textual.binding import Binding, BindingType
from textual.widgets import Static

from clients.cli import table_app
from clients.cli.blagogo_cli import ENDS, addition, can_compose, meld_meanings
from clients.cli.blagogo_text import bridge_text, cards_text, meld_text, seat_name, sorted_hand, stands_text
from clients.cli.screens import TextScreen, coloured
from clients.cli.table_app import TableApp
from clients.cli.text import counted, short_names, typed_index
from clients.i18n import t
from clients.session import TableSession
from engine.blagogo import actions as ba
from engine.blagogo.cards import Card, Suit
from engine.blagogo.melds import TableMeld
from engine.blagogo.observer import View

CARD_KEYS: Final = "bcdefghijklnoprstuvwxyzBCDEFGHIJKLNOPRSTUVWXYZ"
"""The letters of the hand's cards (``a``, ``m`` and ``q`` are commands)."""
RED_SUITS: Final = frozenset({Suit.HEARTS, Suit.DIAMONDS})
MELD_LINES: Final = (3, 10)
"""Melds the panel shows at 24 lines, and on a tall screen."""


def last_of(line: str, width: int) -> str:
    """The end of a long line (the bridge's newest cards), ``…`` where it was cut."""
    return line if len(line) <= width else "… " + line[-(width - 2) :].split(" ", 1)[-1]


def short_meld(meld: TableMeld, names: list[str]) -> str:
    """A meld in a narrow panel: ``#3 Ann: 9♥ ★1(=10♥) J♥ (30)``."""
    owner = seat_name(short_names(names), meld.owner)
    parts = [
        str(c) if s is None else f"{c}(={stands_text(s)})"
        for c, s in zip(meld.cards, meld.stands(), strict=True)
    ]
    return f"#{counted(meld.id)} {owner}: {' '.join(parts)} ({meld.points})"


def card_text(card: Card, *, selected: bool = False) -> Text:
    style = "red" if card.suit in RED_SUITS else ("magenta" if card.is_joker else "")
    style += " bold"
    if selected:
        style += " reverse"
    return Text(str(card), style=style.strip())


class BlagogoApp(TableApp):
    """One 1000 Blagogo table, played (a seat) or watched (a spectator), over a :class:`TableSession`."""

    CSS = (
        table_app.CSS
        + "#melds { height: auto; border: round $primary; padding: 0 1; }"
        + "#players { height: auto; border: round $primary; }"
    )
    LETTERS = CARD_KEYS
    BINDINGS: ClassVar[list[BindingType]] = [
        *table_app.BINDINGS,
        Binding("m", "lay", "cli.key_meld"),
        Binding("a", "add", "cli.key_add"),
        Binding("number_sign", "melds", "cli.key_melds", show=False),
        *[Binding(k, f"letter('{k}')", k, show=False, priority=True) for k in CARD_KEYS],
    ]
    TITLES: ClassVar[dict[str, str]] = {
        "#table": "cli.panel_table",
        "#melds": "blagogo.panel_melds",
        "#players": "blagogo.panel_players",
        "#log": "cli.panel_events",
        "#actions": "cli.panel_actions",
    }
    LEFT: ClassVar[tuple[str, ...]] = ("table", "melds", "hand")
    RIGHT: ClassVar[tuple[str, ...]] = ("players",)
    KEYS: ClassVar[tuple[str, ...]] = (
        "blagogo.keys_letters",
        "blagogo.keys_meld",
        "blagogo.keys_add",
        "blagogo.keys_melds",
    )

    def __init__(self, session: TableSession) -> None:
        super().__init__(session)
        self.selected: list[Card] = []
        self.composing = False
        self._round = -1

    @property
    def view(self) -> View | None:
        view: View | None = self.follower.view
        return view

    # ------------------------------------------------------------------ drawing

    def draw_panels(self) -> None:
        self.query_one("#table", Static).update(self.table_text())
        self.draw_melds()
        self.draw_players()
        self.draw_hand()

    def table_text(self) -> Text:
        f = self.follower
        v = self.view
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
                    "  " + t("cli.seat_taken_or_free", name=seat_name(f.names, seat.seat), taken=taken) + "\n"
                )
            return text
        text.append(
            t(
                "blagogo.round_short",
                number=v.round_number,
                dealer=seat_name(f.names, v.dealer),
                deck=v.deck_count,
            )
            + "\n",
            style="bold",
        )
        text.append(t("blagogo.bridge_label_long") if self.size.width >= 100 else t("blagogo.bridge_label"))
        text.append(" ")
        room = max(10, self.query_one("#table").content_region.width - 8)
        text.append_text(coloured(last_of(bridge_text(v.bridge), room) + "\n"))
        if v.must_meld is not None:
            text.append_text(coloured(t("blagogo.must_meld", card=str(v.must_meld)) + "\n"))
        if f.finished:
            text.append(t("cli.game_over") + "\n", style="bold green")
        elif v.to_act is not None and v.to_act == f.seat and v.phase is not None:
            text.append(t("blagogo.you_do", phase=t(f"blagogo.phase_{v.phase.value}")), style="bold yellow")
        text.rstrip()
        return text

    def draw_melds(self) -> None:
        """The melds, the newest last; on a small screen the newest that fit, and how many more (``#``)."""
        v = self.view
        names = self.follower.names
        text = Text()
        melds = list(v.melds) if v is not None else []
        room = MELD_LINES[0] if self.size.height < 30 else MELD_LINES[1]
        shown = melds if len(melds) <= room else melds[-(room - 1) :]
        if not melds:
            text.append(t("blagogo.none_yet"))
        if len(shown) < len(melds):
            text.append(t("blagogo.more_melds", count=len(melds) - len(shown)) + "\n", style="dim")
        width = self.query_one("#melds").content_region.width or 80
        for i, meld in enumerate(shown):
            line = meld_text(meld, names) if width >= 60 else short_meld(meld, names)
            text.append_text(coloured(("\n" if i else "") + line))
        self.query_one("#melds", Static).update(text)

    def action_melds(self) -> None:
        v = self.view
        lines = [meld_text(m, self.follower.names) for m in v.melds] if v is not None else []
        self.push_screen(TextScreen(t("blagogo.every_meld"), lines or [t("blagogo.none_yet_paren")]))

    def draw_players(self) -> None:
        v = self.view
        f = self.follower
        # Narrow (the panel is 30 columns at 80): short names, "#" for the cards, a mark for opened, your
        # own row in bold, and the target in the panel's title, so that no row wraps.
        wide = self.size.width >= 120
        table = Table(box=None, expand=True, pad_edge=False)
        for column in ("seat", "cards", "opened", "score") if wide else ("seat", "count", "op", "score"):
            title = t(f"blagogo.column_{column}")
            table.add_column(title, justify="left" if column == "seat" else "right")
        names = f.names if wide else short_names(f.names)
        panel = self.query_one("#players", Static)
        if v is not None:
            panel.border_title = t("blagogo.players_to", target=v.rules.target)
            for s, score in enumerate(v.scores):
                name = (
                    ("▶ " if v.to_act == s else "")
                    + seat_name(names, s)
                    + (" ←" if wide and s == f.seat else "")
                )
                known = v.known_cards[s] if s < len(v.known_cards) and s != f.seat else ()
                cards = f"{v.card_counts[s]}" + (
                    " " + t("blagogo.known", cards=cards_text(known)) if known and wide else ""
                )
                opened = (
                    (t("cli.yes") if v.opened[s] else t("cli.no")) if wide else ("✓" if v.opened[s] else "·")
                )
                mine = "bold" if s == f.seat else ""
                bot = " " + t("blagogo.bot_mark") if s in f.away else ""
                table.add_row(name, cards, opened, str(score) + bot, style=mine)
                if known and not wide:  # the cards known to be in that hand, on a line of their own
                    table.add_row("  " + t("blagogo.has", cards=cards_text(known)), "", "", "", style="dim")
        panel.update(table)

    def hand(self) -> list[Card]:
        v = self.view
        return sorted_hand(v.hand) if v is not None else []

    def draw_hand(self) -> None:
        v = self.view
        f = self.follower
        text = Text()
        cards = self.hand()
        if v is not None and v.round_number != self._round:
            self._round = v.round_number
            self.letters.reset()
        self.letters.update(cards)
        self.selected = [c for c in self.selected if c in cards]
        if f.seat is None:
            if v is not None:
                counts = ", ".join(f"{seat_name(f.names, s)} {c}" for s, c in enumerate(v.card_counts))
                text.append(t("cli.cards_held", counts=counts))
        else:
            if not cards:
                text.append(t("cli.no_cards"))
            for i, card in enumerate(cards):
                if i and cards[i - 1].suit != card.suit:
                    text.append(" ")
                text.append(f" {self.letters.letter(card) or '·'}:", style="dim")
                text.append_text(card_text(card, selected=card in self.selected))
            if self.selected:
                text.append("\n" + t("blagogo.selected") + " ", style="bold")
                text.append_text(coloured(cards_text(self.selected)))
                text.append("  " + t("blagogo.selected_keys"), style="dim")
        self.query_one("#hand", Static).update(text)

    def typing_hint(self) -> str:
        if can_compose(self.view, self.offered):
            return t("blagogo.hint_compose")
        return "."

    def can_choose(self) -> bool:
        return super().can_choose() and not self.composing

    # ------------------------------------------------------------------ composing

    def pick(self, card: Card) -> None:
        if self.composing:
            return
        if card in self.selected:
            self.selected.remove(card)
        else:
            self.selected.append(card)
        self.draw_hand()

    def dropped(self) -> None:
        self.selected = []
        self.draw_hand()

    def sent(self) -> None:
        self.selected = []

    def chosen_cards(self) -> tuple[Card, ...] | None:
        """The selected cards in the hand's order; None (the reason shown) when none can be composed now."""
        if not self.can_choose():
            self.mistake(
                t("blagogo.not_your_turn_to_meld") if not self.offered else t("blagogo.wait_sending")
            )
            return None
        if not can_compose(self.view, self.offered):
            self.mistake(t("blagogo.draw_first"))
            return None
        if not self.selected:
            self.mistake(t("blagogo.select_first"))
            return None
        hand = self.hand()
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
            jokers = await meld_meanings(cards, self.ask)
        except ValueError as error:
            jokers = None
            self.mistake(str(error))
        finally:
            self.composing = False
        if jokers is not None:
            self.send(ba.LayMelds((ba.MeldSpec(cards, jokers),)))

    async def add(self, cards: tuple[Card, ...]) -> None:
        action: Any = None
        try:
            where = await self.which_meld(cards)
            if where is not None and self.view is not None:
                action = await addition(self.view, where[0], cards, where[1], self.ask)
        except ValueError as error:
            self.mistake(str(error))
        finally:
            self.composing = False
        if action is not None:
            self.send(action)

    async def which_meld(self, cards: tuple[Card, ...]) -> tuple[int, ba.End | None] | None:
        """Ask which meld to add ``cards`` to (and, if the player says, at which end of a run)."""
        ids = [counted(m.id) for m in self.view.melds] if self.view is not None else []
        which = t("blagogo.which_meld", cards=cards_text(cards), ids=", ".join(map(str, ids)))
        question = which
        while True:
            answer = await self.ask(question)
            if answer is None:
                return None
            words = answer.split()
            end = ENDS.get(words[1].lower()) if len(words) == 2 else None
            try:
                meld_id = typed_index(words[0], t("blagogo.no_meld_zero")) if words else None
            except ValueError as zero:  # melds are counted from 1: #0 is none of them
                question = f"{zero} {which}"
                continue
            if meld_id is not None and (len(words) == 1 or end is not None):
                return meld_id, end
            question = t("blagogo.not_a_meld", text=answer.strip())
