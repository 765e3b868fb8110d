"""Follow one table from a session's stream, whatever its game: the current view, the seat names, the
transcript, the score sheet, the turn.

Both front ends (the full-screen UI and the line mode) feed every :data:`~clients.messages.StreamItem` to a
:class:`Follower` and draw from it; it holds no I/O of its own. What is particular to the game comes from its
entries: the view tracker of :mod:`clients.games`, the words and sheet of :mod:`clients.cli.games`.
"""

from __future__ import annotations

from typing import Any, Generic, TypeVar

from clients.cli.entry import CliGame, SheetRow
from clients.cli.games import cli_game_of
from clients.cli.rules_text import clock_lines
from clients.cli.text import counted, numbered_seat
from clients.connection import in_words
from clients.fairness import catch_up, checker_for, deals_label, verdict_words
from clients.games import game_of
from clients.i18n import current, t
from clients.messages import (
    ConnectionLost,
    EventMessage,
    Reconnected,
    SeatReleased,
    SeatTaken,
    Snapshot,
    StreamItem,
    TableEvent,
    TableNotice,
    Turn,
)
from clients.tracker import Tracker
from engine.verify import DealChecker, Witness
from thousand.v1 import table_service_pb2 as pb

V = TypeVar("V")
A = TypeVar("A")
E = TypeVar("E")


def notice_words(notice: TableNotice, name: str) -> str:
    """A table's notice in words, from its case in the contract (``notice.<kind>``) and the seat's name; a
    case this client does not know yet is named as such."""
    key = f"notice.{notice.kind}{'_' + notice.detail if notice.detail else ''}"
    if notice.kind and current().has(key):
        return t(key, name=name, message=notice.message)
    return t("notice.unknown", kind=notice.kind or notice.text)


def display_names(table: pb.Table) -> list[str]:
    return [
        display_name(s.seat, s.kind == pb.SEAT_KIND_BOT, s.strategy or s.player_name, s.taken)
        for s in table.seats
    ]


def display_name(seat: int, bot: bool, name: str, taken: bool) -> str:
    """``Ann (seat 1)``, ``greedy bot (seat 2)``, or ``seat 3`` while nobody sits there: seats counted from 1,
    as the web client names them (``SEAT_WORDS`` in clients/web/src/session.ts)."""
    if bot:
        return t("seat.bot", name=t("bot.strategy", strategy=name), seat=counted(seat))
    if taken and name:
        return t("seat.player", name=name, seat=counted(seat))
    return numbered_seat(seat)


class Follower(Generic[V, A, E]):
    """What a client knows of one table, kept from the stream."""

    def __init__(
        self,
        seat: int | None,
        table: pb.Table,
        witness: Witness | None = None,
        entry: CliGame[V, A, E] | None = None,
    ) -> None:
        self.entry: CliGame[V, A, E] = entry if entry is not None else cli_game_of(game_of(table))
        game = self.entry.game
        self.seat = seat
        self.table = table
        self.names: list[str] = display_names(table)
        self.tracker: Tracker[V, A, E] = game.tracker(seat, game.rules_of(table))
        self.transcript = self.entry.transcript(lambda: self.names)
        self.scorer = self.entry.scorer(lambda: self.names)
        self.sheet: list[SheetRow] = []
        """The score sheet, a row per deal (round) scored."""
        self.turn: Turn[V, A] | None = None
        self.sequence: int | None = None
        self.finished = False
        self.standings: tuple[Any, ...] = ()
        self.lines: list[str] = []
        """Every transcript line so far."""
        self.connected = True
        self.scored = False
        """Whether the last item fed scored a deal (the score sheet has a new row)."""
        self.batch_ended = False
        """Whether the last item fed ended a batch (a snapshot, or an event carrying the Turn)."""
        self.away: set[int] = set()
        """Seats the server's bot plays since their time ran out (until they are handed back)."""
        self.handed: set[int] = set()
        """Seats an operator handed to the server's bot for the rest of the game (never handed back)."""
        self.deals: DealChecker = checker_for(table, witness)
        """Checks every revealed deal against the commitment sent when it was dealt and, on a fair table,
        against this seat's seed and the table's secret (engine.verify; ``witness``: the session's)."""
        self._announced = False
        """Whether the table's kind of deals (seeded or fair) was said."""

    # ------------------------------------------------------------------ queries

    @property
    def view(self) -> V | None:
        return self.tracker.view

    @property
    def my_turn(self) -> bool:
        """Whether this seat must act now (the Turn named it and carried its legal actions)."""
        turn = self.turn
        return (
            turn is not None
            and self.seat is not None
            and turn.seat == self.seat
            and bool(turn.legal_actions)
            and not self.finished
        )

    @property
    def legal_actions(self) -> tuple[A, ...]:
        return self.turn.legal_actions if self.my_turn and self.turn is not None else ()

    def name(self, seat: int) -> str:
        return self.names[seat] if 0 <= seat < len(self.names) else numbered_seat(seat)

    # ------------------------------------------------------------------ feeding

    def feed(self, item: StreamItem) -> list[str]:
        """Take one stream item; returns the new transcript lines."""
        out: list[str] = []
        self.batch_ended = False
        self.scored = False
        if not self._announced:
            self._announced = True
            table = item.table if isinstance(item, Snapshot) else self.table
            out.append(t("cli.aside", text=deals_label(table)))
            if table.HasField("time_control"):  # the clocks are the table's rules, for every seat alike
                out += [t("cli.aside", text=line) for line in clock_lines(table)]
        match item:
            case Snapshot(sequence, table, view, turn, deal):
                self.table = table
                self.names = display_names(table)
                self.away = {s.seat for s in table.seats if s.taken_over}
                handed = pb.TAKEOVER_REASON_OPERATOR_HANDOVER
                self.handed = {s.seat for s in table.seats if s.takeover_reason == handed}
                self.sequence = sequence
                out += self.transcript.flush()
                if view is not None:
                    self.tracker.reset(view)
                    self.standings = tuple(getattr(view, "standings", ()))
                self._take_turn(turn)
                self.finished = table.status == pb.TABLE_STATUS_FINISHED
                out.append(t("cli.joined_at", sequence=sequence))
                out += catch_up(self.deals, deal)  # the deal in progress is checked when it is revealed
                self.batch_ended = True
            case EventMessage(sequence, event, turn):
                self.sequence = sequence
                self._event(event, out, sequence)
                if turn is not None:
                    out += self.transcript.flush()
                    self._take_turn(turn)
                    self.batch_ended = True
            case ConnectionLost(error, attempt):
                self.connected = False
                if attempt & (attempt - 1) == 0:  # the 1st, 2nd, 4th, 8th... attempt: not a line a second
                    out.append(t("cli.connection_lost", why=in_words(error), attempt=attempt))
            case Reconnected():
                self.connected = True
                out.append(t("cli.reconnected"))
        self.lines.extend(out)
        return out

    def _event(self, event: TableEvent[E], out: list[str], sequence: int) -> None:
        if isinstance(event, TableNotice | SeatTaken | SeatReleased):
            if isinstance(event, SeatTaken):
                self.deals.seat_taken(event.seat, sequence)
            out += self.transcript.flush()
            out.append(self._seat_news(event))
            return
        self.tracker.apply(event)
        out += self.transcript.add(event)
        verdict = self.deals.see(event, sequence)
        if verdict is not None:
            out += self.transcript.flush()
            out.append(verdict_words(verdict))
        row = self.scorer.see(event, self.tracker.view)
        if row is not None:
            out += self.transcript.flush()
            self.sheet.append(row)
            self.scored = True
            out += row.summary
        if self.entry.game.is_game_over(event):
            self.finished = True
            self.standings = tuple(getattr(event, "standings", ()))
            out += self.transcript.flush()

    def _seat_news(self, event: TableNotice | SeatTaken | SeatReleased) -> str:
        """A seat's news in words, with the seat's name."""
        if isinstance(event, SeatTaken):
            self._rename(event.seat, display_name(event.seat, event.bot, event.player_name, True))
            return t("notice.sits_down", name=self.name(event.seat))
        if isinstance(event, SeatReleased):
            left = self.name(event.seat)
            free = numbered_seat(event.seat)
            self._rename(event.seat, free)
            if left == free:
                return t("notice.seat_free_again", seat=counted(event.seat))
            return t("notice.leaves", name=left, seat=counted(event.seat))
        seat = event.seat
        if event.kind == "seat_reclaimed" and seat is not None:
            self.away.discard(seat)
        elif event.kind == "seat_taken_over" and seat is not None:
            self.away.add(seat)
            if event.detail == "handed_over":
                self.handed.add(seat)
        return notice_words(event, "" if seat is None else self.name(seat))

    def _rename(self, seat: int, name: str) -> None:
        while len(self.names) <= seat:
            self.names.append(numbered_seat(len(self.names)))
        self.names[seat] = name

    def _take_turn(self, turn: Turn[V, A] | None) -> None:
        self.turn = turn
        if turn is None:
            return
        if turn.view is not None:
            self.tracker.reset(turn.view)
        self.tracker.set_turn(turn.seat, turn.legal_actions if turn.seat == self.seat else ())
