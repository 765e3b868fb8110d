"""A small typed client of the Thousand server (``thousand.v1.TableService``) over ``grpc.aio``.

:class:`TableSession` is one connection to a server and, once it has joined (or is watching) a table, one seat
at it. It speaks the engine's language of the table's game, whichever it is: events come as the engine's
events, views as its views, legal actions and submitted actions as its actions, decoded by the game's entry
in :mod:`clients.games` with the mapping the server uses too (:mod:`codec`). Its stream yields
:class:`~clients.messages.Snapshot` and :class:`~clients.messages.EventMessage` carrying a
:class:`~clients.messages.Turn`, typed by the game's values (:mod:`engine` for Thousand,
:mod:`engine.blagogo` for 1000 Blagogo). :meth:`TableSession.create_table` takes any game's rules,
:meth:`TableSession.submit` any game's action, and :meth:`TableSession.list_tables` lists every game unless
asked for one.

What it takes care of:

- **Streams** (:meth:`TableSession.stream`): a snapshot, then every event with its sequence number and, on the
  last message of each batch, the Turn. It remembers the last sequence seen, and when the connection drops
  (or the server restarts its streams) it reconnects with exponential backoff and resumes with
  ``after_sequence``, so no event is lost or repeated. A mid-stream snapshot (the server's resync of a lagging
  stream) is turned into a resume too, so a client sees every event.
- **Actions** (:meth:`TableSession.submit`): a fresh ``request_id`` per action and the ``last_seen_sequence``;
  a call that fails with UNAVAILABLE (or times out) is retried with the same ``request_id``, which the server
  applies at most once.
- **Clusters** (:mod:`clients.routing`): ``address`` may name several of a cluster's nodes
  (``"a:50051,b:50051"``). A refusal that says the table is served elsewhere (TABLE_ELSEWHERE) is followed to
  the owner's endpoint, one that says it is moving (TABLE_MOVING) is retried after its delay, and an
  unreachable node is left for the next known one; streams resume on the new owner after the last sequence
  seen, actions are retried with the same ``request_id``.
- **Fair deals**: :meth:`TableSession.join` adds a seed of the seat's own to the deals, after reading the
  table's commitment, and :attr:`TableSession.deals` checks every deal the stream reveals against them
  (:mod:`clients.fairness`, :mod:`engine.verify`), the deal in progress when the stream started from a
  snapshot included (``Snapshot.deal``); :meth:`TableSession.deal_news` says what was checked.
- **Errors**: every refusal is a :class:`~clients.errors.ServerError` carrying the gRPC code, the
  ``ErrorInfo`` reason (e.g. ``ILLEGAL_ACTION``), its ``rule`` metadata (e.g. ``MUST_FOLLOW_SUIT``) and the
  server's message.
"""

from __future__ import annotations

import asyncio
import time
import uuid
from collections.abc import AsyncGenerator, AsyncIterable

import grpc
from grpc import aio

from clients.connection import CHANNEL_OPTIONS, DEFAULT_SERVER, Connection, in_words
from clients.errors import TRY_AGAIN, ServerError, StreamGaveUpError, refusal_error
from clients.games import GameAction, encode_action
from clients.messages import ConnectionLost, EventMessage, Reconnected, Snapshot, StreamItem
from clients.place import ResyncError
from clients.streams import PlayCall, PlayLostError, play_updates, unbatched
from clients.table_calls import OPEN, TOKEN_METADATA, TableCalls, new_invite_code
from thousand.v1 import table_service_pb2 as pb

__all__ = [
    "CHANNEL_OPTIONS",
    "DEFAULT_SERVER",
    "OPEN",
    "TOKEN_METADATA",
    "Connection",
    "TableSession",
    "new_invite_code",
]


class TableSession(TableCalls):
    """One connection to a server and, after :meth:`join` or :meth:`watch`, one seat (or a spectator's place).

    Use as ``async with TableSession(address) as session:``. Lobby calls (:meth:`create_table`,
    :meth:`list_tables`, :meth:`get_table`) need no table; :meth:`stream`, :meth:`submit` and :meth:`leave`
    work on the table joined or watched. The calls of one request and one reply are
    :class:`~clients.table_calls.TableCalls`'; here are the stream and the actions, which share it: a seated
    session sends its actions on the stream it reads (Play).
    """

    use_play: bool = True
    """A seated session streams over Play and sends its actions on that stream while it is open (one
    message each instead of a SubmitAction call); off for a server that has no Play (UNIMPLEMENTED)."""
    _play: PlayCall | None = None
    """The Play stream open now, if any (:meth:`stream` opens it, :meth:`submit` sends on it)."""

    # ------------------------------------------------------------------ actions

    async def submit(
        self, action: GameAction, *, last_seen_sequence: int | None = None, check: bool = True
    ) -> int:
        """Submit the seat's action (of the table's game); returns the sequence of the last event it produced.

        The action is sent with a fresh ``request_id`` and, when ``check`` is set, the ``last_seen_sequence``
        (by default the last one the stream delivered), so an action meant for a state the table has left is
        refused with STALE_SEQUENCE. While :meth:`stream` runs over Play it goes on that stream; otherwise,
        or when that stream drops before the result comes, as a SubmitAction call, whose transport failures
        are retried with the same ``request_id``. A refusal that applied nothing and asks to try again
        (RATE_LIMITED, after its retry delay; STORE_UNAVAILABLE, with backoff) is retried the same way.
        """
        started = time.monotonic()
        delays = self.backoff.delays()
        request = self._action_request(action, last_seen_sequence, check)
        while True:
            try:
                return await self._submit(request)
            except ServerError as error:
                if error.reason not in TRY_AGAIN or self._calls.given_up(started):
                    raise
                delay = next(delays)
                await asyncio.sleep(max(delay, error.retry_delay or 0.0))

    def _action_request(
        self, action: GameAction, last_seen_sequence: int | None, check: bool
    ) -> pb.SubmitActionRequest:
        request = pb.SubmitActionRequest(
            table_id=self._table_id(),
            request_id=uuid.uuid4().hex,
            action=encode_action(action),
        )
        seen = last_seen_sequence if last_seen_sequence is not None else self._at.last_sequence
        if check and seen is not None:
            request.last_seen_sequence = seen
        return request

    async def _submit(self, request: pb.SubmitActionRequest) -> int:
        """One attempt: on the Play stream while one is open, else (or when it drops) SubmitAction."""
        play = self._play
        if play is not None:
            seen = request.last_seen_sequence if request.HasField("last_seen_sequence") else None
            try:
                result = await play.act(request.request_id, seen, request.action)
            except PlayLostError:
                pass  # the stream dropped meanwhile: the same request_id through SubmitAction, applied once
            else:
                if result.HasField("refusal"):
                    raise refusal_error(result.refusal)
                return result.sequence
        metadata = self._metadata()
        response = await self._calls(
            lambda: self._stub.SubmitAction(request, metadata=metadata, timeout=self._calls.timeout),
            retry=True,
        )
        return response.sequence

    # ------------------------------------------------------------------ the stream

    async def stream(self, *, from_start: bool = False) -> AsyncGenerator[StreamItem, None]:
        """The table's messages for this seat (or spectator), resumed across dropped connections.

        The first message is a :class:`Snapshot`, unless ``from_start`` asks for every event of the table from
        the first one instead (filtered for this seat, T-33), or the session resumes (:meth:`attach`). Ends
        after the game's GameOver event (or TableStopped, when the server stopped the table). Raises
        :class:`ServerError` for a refusal (an unknown table, a revoked seat token) and
        :class:`StreamGaveUpError` when the server stays unreachable longer than the backoff allows.
        """
        if self.table is None or self.table.table_id != self._table_id():
            self._at.table = await self.get_table()  # after attach: its game says how to read its events
        if from_start and self._at.last_sequence is None:
            self._at.last_sequence = 0
        attempt = 0
        failing_since: float | None = None
        delays = self.backoff.delays()
        reconnecting = False
        while True:
            resumed_after = self._at.last_sequence
            call, batches = self._open_stream(resumed_after)
            error: ServerError
            moved: float | None = None
            try:
                await call.wait_for_connection()
                self._calls.reached = True
                if reconnecting:
                    attempt, failing_since, delays = 0, None, self.backoff.delays()
                    reconnecting = False
                    yield Reconnected(resumed_after)
                async for batch in batches:
                    for message in unbatched(batch):
                        item = self._at.accept(message)
                        if isinstance(item, EventMessage):
                            self._deals.see(item.event, item.sequence)
                        elif isinstance(item, Snapshot):
                            self._deals.caught_up(item.deal)  # the deal in progress, checked all the same
                        if item is not None:
                            yield item
                if self.finished or self.handed_over:
                    return
                error = ServerError(grpc.StatusCode.UNAVAILABLE, "the server ended the stream")
            except ResyncError:
                continue
            except aio.AioRpcError as rpc_error:
                error = ServerError.from_rpc(rpc_error)
                if error.code is grpc.StatusCode.UNIMPLEMENTED and self._play is not None:
                    self.use_play = False  # a server without Play: StreamEvents and SubmitAction
                    continue
                moved = self.route.follow(error)
                if moved is not None:  # served elsewhere now: resume there, after the last event seen
                    if moved == 0.0:
                        reconnecting = True
                        continue
                elif not error.retryable:
                    raise error from None
            finally:
                call.cancel()
                self._play = None
            if self.finished:
                return
            now = time.monotonic()
            failing_since = now if failing_since is None else failing_since
            if self._calls.given_up(failing_since):
                words = in_words(error, self.connection)
                raise StreamGaveUpError(
                    error.code, f"could not reconnect to {self.address}: {words}", error.reason
                )
            attempt += 1
            delay = max(next(delays), moved or 0.0)
            reconnecting = True
            yield ConnectionLost(error, attempt, delay)
            await asyncio.sleep(delay)

    def _open_stream(self, after: int | None) -> tuple[aio.Call, AsyncIterable[pb.StreamEventsResponse]]:
        """The call the stream runs on and its messages: Play for a seat (see :attr:`use_play`), else
        StreamEvents with batches; resuming after ``after`` when set."""
        if self.use_play and self._at.token is not None:
            play = self._play = PlayCall()
            start = pb.PlayRequest()
            start.start.table_id = self._table_id()
            if after is not None:
                start.start.after_sequence = after
            call = self._stub.Play(play.requests(start), metadata=self._metadata())
            return call, play_updates(call, play)
        request = pb.StreamEventsRequest(table_id=self._table_id(), batch_events=True)
        if after is not None:
            request.after_sequence = after
        events = self._stub.StreamEvents(request, metadata=self._metadata())
        return events, events
