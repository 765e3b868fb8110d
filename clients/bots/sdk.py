"""The bot SDK: connect any :class:`~clients.bots.strategy.Strategy` to a live table.

A bot author writes one class with a ``choose(view, rng)`` method (see ``clients/bots/example.py``); the SDK
does the rest through :class:`clients.session.TableSession`: it joins a seat (or takes a seat token it is
given), streams the seat's events, resumes after a dropped connection from the last sequence number it saw,
keeps the seat's view current between turns so ``observe`` sees every change, thinks in a worker thread (a
search bot never stalls the connection), submits with an idempotent request id, and surfaces the server's
refusals as :class:`~clients.session.ServerError` with their reason.
"""

from __future__ import annotations

import asyncio
import random
from collections.abc import Callable
from dataclasses import dataclass, field

from clients.bots.blagogo import BlagogoStrategy
from clients.bots.strategy import Strategy
from clients.session import (
    SEAT_EVENTS,
    BlagogoEventMessage,
    BlagogoSnapshot,
    BlagogoTurn,
    ConnectionLost,
    EventMessage,
    GameAction,
    Reconnected,
    ServerError,
    Snapshot,
    TableSession,
    Turn,
    rules_of,
)
from clients.tracker import ViewTracker
from engine.blagogo.events import GameOver as BlagogoGameOver
from engine.blagogo.events import Standing as BlagogoStanding
from engine.events import GameOver, Standing

Log = Callable[[str], None]


@dataclass
class BotResult:
    """How a bot's game went."""

    seat: int
    decisions: int = 0
    refused: int = 0
    reconnects: int = 0
    finished: bool = False
    standings: tuple[Standing | BlagogoStanding, ...] = field(default_factory=tuple)


async def run_bot(
    strategy: Strategy,
    *,
    server: str,
    table_id: str,
    seat: int | None = None,
    seat_token: str | None = None,
    name: str = "",
    seed: int = 0,
    log: Log | None = None,
) -> BotResult:
    """Play ``strategy`` in a seat of ``table_id`` until the game ends; returns what happened.

    With ``seat_token`` (and its ``seat``) the bot takes over a seat already joined; otherwise it joins
    ``seat``, or any free open seat.
    """
    say = log or (lambda _: None)
    rng = random.Random(seed)
    async with TableSession(server) as session:
        result = BotResult(seat=await _sit(session, table_id, seat, seat_token, name or strategy.name))
        say(f"{strategy.name} sits in seat {result.seat} of table {table_id}")
        tracker = ViewTracker(result.seat)

        def observe(turn: Turn | None) -> None:
            if turn is not None and turn.view is not None:
                tracker.reset(turn.view)  # the server's own view of this decision is authoritative
            if tracker.view is not None:
                strategy.observe(tracker.view)

        async def act(turn: Turn | None) -> None:
            if turn is None or turn.seat != result.seat or turn.view is None or not turn.legal_actions:
                return
            # Think in a worker thread: a search never stalls the stream.
            action = await asyncio.to_thread(strategy.choose, turn.view, rng)
            await _submit(session, action, result, say)

        async for item in session.stream():
            match item:
                case Snapshot(view=view, turn=turn, table=table):
                    tracker = ViewTracker(result.seat, rules_of(table))
                    if view is not None:
                        tracker.reset(view)
                    observe(turn)
                    await act(turn)
                case EventMessage(event=event, turn=turn):
                    if not isinstance(event, SEAT_EVENTS):
                        tracker.apply(event)
                        if isinstance(event, GameOver):
                            result.finished = True
                            result.standings = event.standings
                    if turn is not None:
                        observe(turn)
                        await act(turn)
                case ConnectionLost() | Reconnected():
                    _note_connection(item, result, say)
        return result


async def run_blagogo_bot(
    strategy: BlagogoStrategy,
    *,
    server: str,
    table_id: str,
    seat: int | None = None,
    seat_token: str | None = None,
    name: str = "",
    seed: int = 0,
    log: Log | None = None,
) -> BotResult:
    """Play a 1000 Blagogo ``strategy`` in a seat of ``table_id`` until the game ends (as :func:`run_bot`).

    The strategy is given the view and the actions of the seat's :class:`~clients.session.BlagogoTurn` (the
    simple legal actions, then the server's candidate melds: B-22), and ``observe`` sees the view each Turn
    carries for the seat.
    """
    say = log or (lambda _: None)
    rng = random.Random(seed)
    async with TableSession(server) as session:
        result = BotResult(seat=await _sit(session, table_id, seat, seat_token, name or strategy.name))
        say(f"{strategy.name} sits in seat {result.seat} of table {table_id} (1000 Blagogo)")

        async def act(turn: BlagogoTurn | None) -> None:
            if turn is None or turn.view is None:
                return
            strategy.observe(turn.view)
            if turn.seat != result.seat or not turn.legal_actions:
                return
            action = await asyncio.to_thread(strategy.choose, turn.view, turn.legal_actions, rng)
            await _submit(session, action, result, say)

        async for item in session.stream():
            match item:
                case BlagogoSnapshot(turn=turn):
                    await act(turn)
                case BlagogoEventMessage(event=event, turn=turn):
                    if isinstance(event, BlagogoGameOver):
                        result.finished = True
                        result.standings = event.standings
                    await act(turn)
                case Snapshot() | EventMessage():
                    raise ValueError(f"table {table_id} does not play 1000 Blagogo")
                case ConnectionLost() | Reconnected():
                    _note_connection(item, result, say)
        return result


def _note_connection(item: ConnectionLost | Reconnected, result: BotResult, say: Log) -> None:
    """Say that the stream dropped or came back (the session resumes it by itself), and count reconnects."""
    if isinstance(item, ConnectionLost):
        say(f"connection lost ({item.error.message}); retrying in {item.retry_in:.1f} s")
    else:
        result.reconnects += 1
        say("reconnected; resuming after the last event seen")


async def _sit(
    session: TableSession, table_id: str, seat: int | None, seat_token: str | None, name: str
) -> int:
    """Take over a joined seat with its token, or join ``seat`` (any free open seat when None)."""
    if seat_token is not None:
        if seat is None:
            raise ValueError("a seat token goes with its seat number")
        session.attach(table_id, seat, seat_token)
        return seat
    return await session.join(table_id, seat, name)


async def _submit(session: TableSession, action: GameAction, result: BotResult, say: Log) -> None:
    result.decisions += 1
    try:
        await session.submit(action)
    except ServerError as error:
        # Stale or out of turn: the table moved on, and the next Turn says what to do now.
        result.refused += 1
        say(f"action refused: {error.reason}: {error.message}")
        if error.reason not in ("STALE_SEQUENCE", "NOT_YOUR_TURN"):
            raise
