"""Where a session is at its table: the seat and its token, the last event its stream delivered, the table as
last described, the latest Turn; and the reading of each stream message from there.

:meth:`Place.accept` decodes a message with the table's game (:mod:`clients.games`), drops one already
delivered, and turns a gap (or a lagging stream's snapshot) into :class:`ResyncError`, on which the session
resumes after the last event it saw: so a client sees every event once, in order.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from clients.games import AnyGame, game_of
from clients.messages import EventMessage, Snapshot, StreamItem, Turn
from thousand.v1 import table_service_pb2 as pb


class ResyncError(Exception):
    """The stream skipped events (a gap, or a lagging stream's snapshot): resume after the last one seen."""


@dataclass
class Place:
    """A session's place at one table (a seat with its token, or a spectator's)."""

    table_id: str | None = None
    seat: int | None = None
    token: str | None = None
    last_sequence: int | None = None
    table: pb.Table | None = None
    """The table as last described by the server (join, watch, a snapshot)."""
    turn: Turn[Any, Any] | None = None
    """The latest Turn the stream carried (of the table's game)."""
    finished: bool = False
    """Whether the game's GameOver event has been seen (the stream then ends)."""
    handed_over: bool = False
    """Whether an operator handed this seat to the server's bot (the stream then ends: the seat is no longer
    this client's, and its token acts for nothing)."""

    @property
    def game(self) -> AnyGame:
        if self.table is None:
            raise RuntimeError("the table is not known yet: join or watch it (or stream it after attach)")
        return game_of(self.table)

    def accept(self, message: pb.StreamEventsResponse) -> StreamItem | None:
        """Decode one message with the table's game; drop a repeat, turn a gap into a resume; remember the
        sequence."""
        last = self.last_sequence
        if message.HasField("snapshot"):
            if last is not None:
                if message.sequence > last:
                    raise ResyncError  # a lagging stream's snapshot: fetch the events it skipped instead
                return None  # nothing this client has not seen
            self.last_sequence = message.sequence
            snapshot = message.snapshot
            self.table = snapshot.table
            if snapshot.table.status == pb.TABLE_STATUS_FINISHED:
                self.finished = True
            game = self.game
            turn = game.decode_turn(message.turn) if message.HasField("turn") else None
            view = game.decode_view(snapshot.view) if snapshot.HasField("view") else None
            self.turn = turn
            return Snapshot(message.sequence, snapshot.table, view, turn, game.decode_deal(snapshot))
        if not message.HasField("event"):
            return None
        if last is not None and message.sequence <= last:
            return None  # already delivered
        if last is not None and message.sequence != last + 1:
            raise ResyncError
        game = self.game
        event = game.decode_event(message.event)
        turn = game.decode_turn(message.turn) if message.HasField("turn") else None
        self.last_sequence = message.sequence
        if turn is not None:
            self.turn = turn
        over = message.event.seat_taken_over
        if message.event.HasField("seat_taken_over") and over.seat == self.seat and self.seat is not None:
            self.handed_over = over.reason == pb.TAKEOVER_REASON_OPERATOR_HANDOVER
        if game.is_game_over(event) or message.event.HasField("table_stopped"):
            self.finished = True  # the game's end, or the server stopped the table (its last event)
        return EventMessage(message.sequence, event, turn)
