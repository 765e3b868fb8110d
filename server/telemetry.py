"""What tables report as they change: lifecycle log lines and the game's metrics.

Tables, the registry and the service call a :class:`Telemetry` at a few points (a table created or started,
events published, an action applied, replayed or refused, a bot's decision, a stream resynchronized). It
writes the lifecycle lines (table created, started, finished; deal or round finished; game over) and, when the
server has metrics, counts. Every count carries the table's game (its adapter's name). What a deal or round
scored, and so its ``thousand_deals_finished`` labels and its log line, is the game's adapter's to say
(:meth:`~server.games.GameAdapter.scored`): nothing here names a game's events or actions.

Nothing secret is ever passed on: no seat token, no card, no hand, and not the table's seed (the seed
determines every deal's cards).
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, Final

from server.games import GAMES, Scored
from server.logs import bind_request, get_logger

if TYPE_CHECKING:
    from server.metrics import GameMetrics
    from server.table import Table
    from server.table_state import StopReason
    from thousand.v1 import table_service_pb2 as pb

log = get_logger("thousand.table")
stalled = get_logger("thousand.server")
STALL_WARNING_SECONDS: Final = 1.0
"""Stalls this long or longer are logged; a busy machine delays the loop by a few tenths now and then."""

__all__ = ["GAMES", "Telemetry", "action_kind", "game_label", "requested_kind", "table_status"]

_ACTION_KINDS: dict[type, str] = {}


def game_label(table: Table) -> str:
    """The table's game as a metric label: one of :data:`GAMES`."""
    name: str = table.adapter.name
    return name


def action_kind(table: Table, action: object) -> str:
    """The action's name in the contract (``bid``, ``play_card``, ``discard``, …): a small closed set."""
    kind = _ACTION_KINDS.get(type(action))
    if kind is None:
        try:
            kind = table.adapter.action_kind(action)
        except Exception:
            kind = "unknown"
        _ACTION_KINDS[type(action)] = kind
    return kind


def requested_kind(action: pb.Action) -> tuple[str, str]:
    """The game and the kind of an action a client sent, as the labels name them."""
    game = action.WhichOneof("game")
    if game is None:
        return GAMES[0], "unknown"
    kind = getattr(action, game).WhichOneof("action")
    return game, kind or "unknown"


class Telemetry:
    """One server's table reporting; ``metrics`` is None when the server exposes no metrics.

    A ``quiet`` one writes no log lines (a table being rebuilt from the store, tables made by tests).
    """

    def __init__(self, metrics: GameMetrics | None = None, *, quiet: bool = False) -> None:
        self.metrics = metrics
        self.quiet = quiet

    def last_progress(self, table: Table) -> float:
        """When the table last logged an event (its creation time before that, its restart's time after
        one), as a Unix time: the table keeps it (:attr:`server.table.Table.progress`), and nothing here
        holds a table."""
        return table.progress

    # ------------------------------------------------------------------ table lifecycle

    def table_created(self, table_id: str, players: int, bots: int, *, game: str = GAMES[0]) -> None:
        """Called just before the table is built (a table of bots starts as it is built)."""
        bind_request(table_id=table_id)
        if self.metrics is not None:
            self.metrics.tables_created.labels(game).inc()
        if not self.quiet:
            log.info("table created", table_id=table_id, game=game, players=players, bots=bots)

    def table_restored(self, table: Table) -> None:
        """A table rebuilt from the store on start; its idle time counts from now."""
        table.progress = time.time()
        if not self.quiet:
            log.debug(
                "table restored", table_id=table.table_id, status=table_status(table), sequence=table.sequence
            )

    def table_stopped(self, table: Table, reason: StopReason, message: str) -> None:
        """The server stopped the table before its game ended (``server.pacing``'s limit of moves)."""
        if self.metrics is not None:
            self.metrics.tables_stopped.labels(game_label(table), reason.value).inc()
        if not self.quiet:
            log.warning(
                "table stopped",
                table_id=table.table_id,
                game=game_label(table),
                reason=reason.value,
                detail=message,
                sequence=table.sequence,
            )

    def loop_stalled(self, seconds: float) -> None:
        """The event loop did not run for ``seconds`` (the process was stopped, or the loop blocked)."""
        if self.metrics is not None:
            self.metrics.loop_stalls.inc()
            self.metrics.loop_stalled_seconds.inc(seconds)
        if not self.quiet and seconds >= STALL_WARNING_SECONDS:  # shorter ones: counted, not logged
            stalled.warning("event loop stalled", seconds=round(seconds, 3))

    def table_started(self, table: Table) -> None:
        if not self.quiet:
            log.info("table started", table_id=table.table_id, game=game_label(table))

    def events_published(self, table: Table, events: Sequence[object]) -> None:
        """``events`` were logged and queued to every stream: a deal scored, or the game over, is reported."""
        adapter = table.adapter
        for event in events:
            scored = adapter.scored(event)
            if scored is not None:
                self._scored(table, scored)
            elif adapter.is_game_over(event):
                self._game_over(table, event)

    def _scored(self, table: Table, scored: Scored) -> None:
        """A deal or round was scored."""
        if self.metrics is not None:
            self.metrics.deals_finished.labels(game_label(table), scored.kind, scored.outcome).inc()
        if not self.quiet:
            log.info(f"{scored.noun} finished", table_id=table.table_id, **scored.details)

    def _game_over(self, table: Table, event: Any) -> None:
        """Either game's GameOver: a winner and standings (seat, place, score)."""
        if self.metrics is not None:
            self.metrics.games_finished.labels(game_label(table)).inc()
        if not self.quiet:
            log.info(
                "game over",
                table_id=table.table_id,
                winner=event.winner,
                scores=[s.score for s in sorted(event.standings, key=lambda s: s.seat)],
            )
            log.info(
                "table finished",
                table_id=table.table_id,
                game=game_label(table),
                sequence=table.sequence,
                duration_s=round(time.time() - table.create_time, 3),
            )

    def ratings_updated(self, game: str, pool_id: str, outcome: str, seconds: float) -> None:
        """A rated table's update was stored (``outcome``: ``rated``, or ``not_rated`` when it changed no
        rating), ``seconds`` from reading its players to its commit."""
        if self.metrics is not None:
            self.metrics.rating_updates.labels(game, outcome).inc()
            self.metrics.rating_update_seconds.labels(game).observe(seconds)

    # ------------------------------------------------------------------ actions

    def action_applied(self, table: Table, action: object, seconds: float) -> None:
        """An action was applied; ``seconds`` from applying it until its events were queued to all streams."""
        if self.metrics is not None:
            game = game_label(table)
            self.metrics.actions.labels(game, action_kind(table, action), "applied").inc()
            self.metrics.delivery_seconds.labels(game).observe(seconds)

    def action_replayed(self, table: Table, action: object) -> None:
        """An idempotent retry: the first outcome was returned, nothing was applied."""
        if self.metrics is not None:
            self.metrics.actions.labels(game_label(table), action_kind(table, action), "replayed").inc()

    def action_rejected(self, game: str, kind: str, reason: str) -> None:
        """A SubmitAction refused with ErrorInfo ``reason`` (the table, if any, is unchanged)."""
        if self.metrics is not None:
            self.metrics.actions.labels(game, kind, "rejected").inc()
            self.metrics.rejected.labels(game, reason).inc()

    def limit_refused(self, limit: str) -> None:
        """A request refused by a server limit: ``rate``, a table quota (``tables``, ``tables_per_client``,
        ``bot_tables``, ``bot_tables_per_client``), ``play_spectator_action``, ``resume``…"""
        if self.metrics is not None:
            self.metrics.limit_refusals.labels(limit).inc()

    def bot_decided(self, strategy: str, seconds: float) -> None:
        if self.metrics is not None:
            self.metrics.bot_decision_seconds.labels(strategy).observe(seconds)

    # ------------------------------------------------------------------ streams

    def stream_resynced(self, table: Table, audience: int | None) -> None:
        if self.metrics is not None:
            self.metrics.resyncs.labels(game_label(table)).inc()
        if self.quiet:
            return
        log.info(
            "stream resynchronized",
            table_id=table.table_id,
            audience="spectator" if audience is None else f"seat {audience}",
        )


def table_status(table: Table) -> str:
    """``waiting``, ``playing`` or ``finished``: the contract's TableStatus as a label."""
    return "finished" if table.finished else "playing" if table.started else "waiting"
