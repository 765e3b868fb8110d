"""The bot SDK: connect any strategy of either game to a live table (:mod:`bots.strategy` for
Thousand, :mod:`bots.blagogo` for 1000 Blagogo).

A bot author writes one class with a ``choose`` method (see ``clients/bots/example.py``); :func:`run_bot` does
the rest through :class:`clients.session.TableSession`, the same way for every game: it joins a seat (or takes
a seat token it is given), streams the seat's events, resumes after a dropped connection from the last
sequence number it saw, keeps the seat's view current between turns (the game's tracker,
:mod:`clients.tracker`) so ``observe`` sees every change, thinks in a worker thread (a search bot never stalls
the connection), submits with an idempotent request id, and surfaces the server's refusals as
:class:`~clients.errors.ServerError` with their reason. On a fair table it checks every deal, the one in
progress when it sat down included (from the snapshot it starts with), says each verdict in its log and
returns them in :class:`BotResult`.

The one thing that differs by game is how a strategy is asked (:data:`ASK`): a Thousand strategy chooses from
its view, whose ``legal_actions`` are complete (T-34); a 1000 Blagogo strategy is also handed the Turn's
actions, the simple ones and then the server's candidate melds (B-22).
"""

from __future__ import annotations

import asyncio
import random
import time
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from typing import Any, Final, NoReturn, Protocol

from bots.blagogo import BlagogoStrategy, decide_blagogo
from bots.strategy import Strategy, decide
from clients.connection import Connection
from clients.errors import ServerError
from clients.games import BLAGOGO, THOUSAND, AnyGame, GameAction, game_of
from clients.messages import SEAT_EVENTS, ConnectionLost, EventMessage, Reconnected, Snapshot, Turn
from clients.seats import SeatKeeper
from clients.session import TableSession
from clients.tracker import Tracker
from thousand.v1 import table_service_pb2 as pb

Log = Callable[[str], None]
AnyStrategy = Strategy | BlagogoStrategy
"""A strategy of any game."""

Ask = Callable[[Any, Any, tuple[Any, ...], random.Random, float | None], Any]
"""How a game's strategies decide: ``ask(strategy, view, the Turn's actions, rng, deadline)`` returns the
action; ``deadline`` is the Turn's (``time.monotonic()``, less :data:`NETWORK_MARGIN`), None: no clock."""

ASK: Final[dict[str, Ask]] = {
    THOUSAND.name: lambda strategy, view, _actions, rng, deadline: decide(strategy, view, rng, deadline),
    BLAGOGO.name: decide_blagogo,
}
"""By game name: how its strategies are asked for a decision (a strategy that takes a deadline,
:class:`bots.strategy.TimedStrategy` or :class:`bots.blagogo.TimedBlagogoStrategy`, is handed the Turn's)."""

NETWORK_MARGIN: Final = 0.25
"""Seconds kept from a Turn's deadline for the action's trip to the server and the clocks' difference."""


def turn_deadline(turn: Turn[Any, Any]) -> float | None:
    """The Turn's deadline as a ``time.monotonic()`` instant, less :data:`NETWORK_MARGIN` (None: no clock)."""
    left = turn.seconds_left()
    return None if left is None else time.monotonic() + max(0.0, left - NETWORK_MARGIN)


class Placed(Protocol):
    """A seat's place at the end of a game (the standings of either game's GameOver)."""

    @property
    def seat(self) -> int: ...

    @property
    def place(self) -> int: ...

    @property
    def score(self) -> int: ...


@dataclass
class BotResult:
    """How a bot's game went, and its deals' checks (docs/protocol.md, "Verifiable deals")."""

    seat: int
    decisions: int = 0
    refused: int = 0
    reconnects: int = 0
    finished: bool = False
    standings: tuple[Placed, ...] = field(default_factory=tuple)
    verified_deals: tuple[int, ...] = ()
    """The deals (rounds) checked and found fair, the one in progress when the bot sat down included."""
    deal_problems: tuple[str, ...] = ()
    """Why a deal (or the table's secret) failed its check; empty when every check passed."""
    secret_checked: bool = False
    """Whether the game's end disclosed the table's secret and it matched the commitment read before
    joining (a fair table played to its end)."""


async def run_bot(
    strategy: AnyStrategy,
    *,
    server: str | Connection,
    table_id: str,
    seat: int | None = None,
    seat_token: str | None = None,
    name: str = "",
    seed: int = 0,
    log: Log | None = None,
    game: str | None = None,
    keeper: SeatKeeper | None = None,
    player_token: str | None = None,
    invite_code: str = "",
) -> BotResult:
    """Play ``strategy`` in a seat of ``table_id`` until the game ends; returns what happened.

    With ``seat_token`` (and its ``seat``) the bot takes over a seat already joined; otherwise it joins
    ``seat``, or any free open seat. ``game`` names the strategy's game (``thousand``, ``blagogo``): a table
    of another game is then refused with ValueError (a seat joined for it is given up again); by default the
    table's game is taken to be the strategy's. ``server`` is an address or a
    :class:`~clients.connection.Connection` (TLS, a connect timeout). With a ``keeper`` (:mod:`clients.seats`)
    the seat's token is kept, and a bot started again after a crash takes its seat back instead of a new one.
    ``player_token`` plays as that player (docs/protocol.md, "Players"): every call carries it, so the game is
    in the player's history (a bot ladder's account), a seat reserved for it can be taken, and
    ``invite_code`` joins a private table.
    """
    say = log or (lambda _: None)
    rng = random.Random(seed)
    connection = server if isinstance(server, Connection) else Connection(server)
    if player_token:
        connection = replace(connection, credential=player_token)
    async with TableSession(connection, keeper=keeper) as session:
        sat = await _sit(session, table_id, seat, seat_token, name or strategy.name, invite_code=invite_code)
        result = BotResult(seat=sat)
        joined = session.table  # known once joined; with a seat token, from the stream's snapshot
        if joined is not None and game is not None and session.game.name != game:
            await session.leave()
            _refuse(joined, game)
        title = "" if joined is None else f" ({session.game.title})"
        back = "is back in" if session.resumed else "sits in"
        say(f"{strategy.name} {back} seat {result.seat} of table {table_id}{title}")
        playing: AnyGame | None = None
        tracker: Tracker[Any, Any, Any] | None = None

        async def take(turn: Turn[Any, Any] | None) -> None:
            """Observe the seat's view as it is now, and decide if the Turn is the seat's."""
            assert playing is not None and tracker is not None
            if turn is not None and turn.view is not None:
                tracker.reset(turn.view)  # the server's own view of this decision is authoritative
            if tracker.view is not None:
                strategy.observe(tracker.view)
            if turn is None or turn.seat != result.seat or turn.view is None or not turn.legal_actions:
                return
            ask = ASK[playing.name]
            # Think in a worker thread: a search never stalls the stream.
            due = turn_deadline(turn)
            action = await asyncio.to_thread(ask, strategy, turn.view, turn.legal_actions, rng, due)
            await _submit(session, action, result, say)

        async for item in session.stream():  # a snapshot first: its deal in progress is checked too
            match item:
                case Snapshot(view=view, turn=turn, table=table):
                    playing = game_of(table)
                    if game is not None and playing.name != game:
                        _refuse(table, game)
                    tracker = playing.tracker(result.seat, playing.rules_of(table))
                    if view is not None:
                        tracker.reset(view)
                    await take(turn)
                case EventMessage(event=event, turn=turn):
                    assert playing is not None and tracker is not None
                    if not isinstance(event, SEAT_EVENTS):
                        tracker.apply(event)
                        if playing.is_game_over(event):
                            result.finished = True
                            result.standings = event.standings
                    if turn is not None:
                        await take(turn)
                case ConnectionLost() | Reconnected():
                    _note_connection(item, result, say)
            for line in session.deal_news():
                say(line)  # "deal 2 verified: …", or "FAILED verification: …"
        checks = session.deals
        result.verified_deals = tuple(checks.verified)
        result.deal_problems = tuple(checks.problems)
        result.secret_checked = checks.secret_checked
        return result


def _refuse(table: pb.Table, game: str) -> NoReturn:
    raise ValueError(f"table {table.table_id} plays {game_of(table).title}, not {game}")


def _note_connection(item: ConnectionLost | Reconnected, result: BotResult, say: Log) -> None:
    """Say that the stream dropped or came back (the session resumes it by itself), and count reconnects."""
    if isinstance(item, ConnectionLost):
        say(f"connection lost ({item.error.message}); retrying in {item.retry_in:.1f} s")
    else:
        result.reconnects += 1
        say("reconnected; resuming after the last event seen")


async def _sit(
    session: TableSession,
    table_id: str,
    seat: int | None,
    seat_token: str | None,
    name: str,
    *,
    invite_code: str,
) -> int:
    """Take over a joined seat with its token, or join ``seat`` (any free open seat when None)."""
    if seat_token is not None:
        if seat is None:
            raise ValueError("a seat token goes with its seat number")
        session.attach(table_id, seat, seat_token)
        return seat
    return await session.join(table_id, seat, name, invite_code=invite_code)


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
