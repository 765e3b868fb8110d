"""Follow one table from a session's stream: the current view, the seat names, the transcript, the turn.

Both front ends (the full-screen UI and the line mode) feed every :data:`~clients.messages.StreamItem` to a
:class:`Follower` and draw from it; it holds no I/O of its own.
"""

from __future__ import annotations

from clients.fairness import deals_label
from clients.games import THOUSAND
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
from clients.tracker.thousand import ViewTracker
from engine import Action, Event, View
from engine.events import DealScored, DealStarted, GameOver, GameStarted, Standing
from engine.transcript import render_lines
from engine.verify import DealChecker, Witness
from thousand.v1 import table_service_pb2 as pb


def display_names(table: pb.Table) -> list[str]:
    return [
        _display_name(s.seat, s.kind == pb.SEAT_KIND_BOT, s.strategy or s.player_name, s.taken)
        for s in table.seats
    ]


def _display_name(seat: int, bot: bool, name: str, taken: bool) -> str:
    if bot:
        return f"seat {seat} ({name} bot)"
    if taken and name:
        return f"{name} (seat {seat})"
    return f"seat {seat}"


class Follower:
    """What a client knows of one table, kept from the stream."""

    def __init__(
        self, seat: int | None, table: pb.Table | None = None, witness: Witness | None = None
    ) -> None:
        self.seat = seat
        self.table = table
        self.names: list[str] = display_names(table) if table is not None else []
        rules = THOUSAND.rules_of(table) if table is not None else None
        self.tracker = ViewTracker(seat, rules)
        self.turn: Turn[View, Action] | None = None
        self.sequence: int | None = None
        self.finished = False
        self.standings: tuple[Standing, ...] = ()
        self.lines: list[str] = []
        """Every transcript line so far."""
        self.connected = True
        self.scored = False
        """Whether the last item fed scored a deal (the score sheet changed)."""
        self.batch_ended = False
        """Whether the last item fed ended a batch (a snapshot, or an event carrying the Turn)."""
        self._segment: list[Event] = []
        """Engine events since the last game or deal header, rendered together (the transcript's context)."""
        self._segment_lines = 0
        self.deals = DealChecker(witness)
        """Checks every revealed deal against the commitment sent when it was dealt and, on a fair table,
        against this seat's seed and the table's secret (engine.verify; ``witness``: the session's)."""
        self._announced = False
        """Whether the table's kind of deals (seeded or fair) was said."""

    # ------------------------------------------------------------------ queries

    @property
    def view(self) -> View | None:
        return self.tracker.view

    @property
    def my_turn(self) -> bool:
        """Whether this seat must act now (the Turn named it and carried its legal actions)."""
        turn = self.turn
        return (
            turn is not None and self.seat is not None and turn.seat == self.seat and bool(turn.legal_actions)
        )

    @property
    def legal_actions(self) -> tuple[Action, ...]:
        return self.turn.legal_actions if self.my_turn and self.turn is not None else ()

    def name(self, seat: int) -> str:
        return self.names[seat] if 0 <= seat < len(self.names) else f"seat {seat}"

    # ------------------------------------------------------------------ feeding

    def feed(self, item: StreamItem) -> list[str]:
        """Take one stream item; returns the new transcript lines."""
        out: list[str] = []
        self.batch_ended = False
        self.scored = False
        table = item.table if isinstance(item, Snapshot) else self.table
        if not self._announced and table is not None:
            self._announced = True
            out.append(f"({deals_label(table)})")
        match item:
            case Snapshot(sequence, table, view, turn):
                self.table = table
                self.names = display_names(table)
                self.sequence = sequence
                self._flush(out)
                self._segment, self._segment_lines = [], 0
                if view is not None:
                    self.tracker.reset(view)
                elif self.tracker.view is None:
                    self.tracker = ViewTracker(self.seat, THOUSAND.rules_of(table))
                self._take_turn(turn)
                if table.status == pb.TABLE_STATUS_FINISHED:
                    self.finished = True
                    if view is not None:
                        self.standings = view.standings
                out.append(f"(joined the table at event {sequence})")
                self.batch_ended = True
            case EventMessage(sequence, event, turn):
                self.sequence = sequence
                self._event(event, out, sequence)
                if turn is not None:
                    self._flush(out)
                    self._take_turn(turn)
                    self.batch_ended = True
            case ConnectionLost(error, attempt, retry_in):
                self.connected = False
                out.append(
                    f"(connection lost: {error.message}; reconnecting in {retry_in:.1f} s, attempt {attempt})"
                )
            case Reconnected(after):
                self.connected = True
                out.append(f"(reconnected; resuming after event {after})")
        self.lines.extend(out)
        return out

    def _event(self, event: TableEvent[Event], out: list[str], sequence: int) -> None:
        if isinstance(event, TableNotice):
            self._flush(out)
            out.append(event.text)
            return
        if isinstance(event, SeatTaken | SeatReleased):
            self._flush(out)
            if isinstance(event, SeatTaken):
                self.deals.seat_taken(event.seat, sequence)
                self._rename(event.seat, _display_name(event.seat, event.bot, event.player_name, True))
                who = "a bot" if event.bot else "a player"
                out.append(f"{self.name(event.seat)} takes seat {event.seat} ({who})")
            else:
                self._rename(event.seat, f"seat {event.seat}")
                out.append(f"seat {event.seat} is free again")
            return
        if isinstance(event, GameStarted | DealStarted):
            self._flush(out)
            self._segment, self._segment_lines = [], 0
        self._segment.append(event)
        self.tracker.apply(event)
        verdict = self.deals.see(event, sequence)
        if verdict is not None:
            self._flush(out)
            out.append(verdict)
        if isinstance(event, DealScored):
            self.scored = True
        if isinstance(event, GameOver):
            self.finished = True
            self.standings = event.standings
            self._flush(out)

    def _rename(self, seat: int, name: str) -> None:
        while len(self.names) <= seat:
            self.names.append(f"seat {len(self.names)}")
        self.names[seat] = name

    def _flush(self, out: list[str]) -> None:
        """Render the current segment and emit the lines not emitted yet."""
        if not self._segment:
            return
        lines = render_lines(self._segment, self.names)
        out.extend(lines[self._segment_lines :])
        self._segment_lines = len(lines)

    def _take_turn(self, turn: Turn[View, Action] | None) -> None:
        self.turn = turn
        if turn is None:
            return
        if turn.view is not None:
            self.tracker.reset(turn.view)
        self.tracker.set_turn(turn.seat, turn.legal_actions if turn.seat == self.seat else ())
