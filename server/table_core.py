"""One table's state and rules of change, pure: synchronous, no I/O, no asyncio, no clock.

A :class:`TableCore` holds the seats, the event log, the engine game and the memory of recent requests. It
changes in two moves, like an event-sourced aggregate:

- :meth:`TableCore.decide` reads a command (:mod:`server.table_changes`) against the state and returns a
  :class:`~server.table_changes.Change`: the steps to store, or a refusal with its reason. It changes nothing.
- :meth:`TableCore.apply` makes a change's steps, yielding after each one the events it logged with the
  :class:`~server.table_changes.Frame` after it (what the shell publishes). It refuses nothing: a step was
  decided, stored, and is now a fact.

Rebuilding a table from its store is :meth:`replay`: the stored steps applied in order, nothing else, so a
rebuilt table has the same events with the same sequence numbers. The shell around it
(:class:`server.table.Table`) owns the lock, the store, the streams, the turn clock and the bots.
"""

from __future__ import annotations

import dataclasses
import secrets
from collections.abc import Iterable, Iterator, Sequence
from typing import Any

from engine import ActionError
from engine.seeds import FairDeals
from server.errors import ErrorReason, ServiceError, from_action_error
from server.games import AnyAdapter
from server.table_changes import (
    Act,
    Acted,
    Away,
    BankCharged,
    BotMove,
    Change,
    Claim,
    Command,
    Frame,
    HandedOver,
    HandOver,
    Join,
    Joined,
    Leave,
    Left,
    Owned,
    Published,
    Rated,
    Reclaim,
    Reclaimed,
    Seeded,
    Step,
    Stop,
    Stopped,
    TimedOut,
    TimeOut,
    WentAway,
    refuse,
)
from server.table_state import (
    RatingsUpdatedEvent,
    RequestMemory,
    SeatReclaimedEvent,
    SeatReleasedEvent,
    SeatState,
    SeatTakenEvent,
    SeatTakenOverEvent,
    StopReason,
    TableEvent,
    TableStoppedEvent,
    TurnTimedOutEvent,
    seat_holding,
    seat_holding_hash,
)
from server.time_control import TimeControl, TimeoutPolicy


class TableCore:
    """A table of one game (its ``adapter``'s): seats, log, engine game, request memory."""

    __slots__ = (
        "_engine_cursor",
        "_requests",
        "adapter",
        "commitment",
        "create_time",
        "decisions",
        "endpoints",
        "fair",
        "game",
        "log",
        "opening",
        "rated",
        "rating_done",
        "rules",
        "seats",
        "seed",
        "seeded",
        "serial",
        "started",
        "stopped",
        "table_id",
        "time_control",
    )

    def __init__(
        self,
        table_id: str,
        *,
        serial: int,
        adapter: AnyAdapter,
        rules: Any,
        seats: list[SeatState],
        seed: int,
        first_dealer: int | None,
        create_time: float,
        time_control: TimeControl | None = None,
        seeded: bool = False,
        secret: bytes = b"",
        rated: bool = False,
    ) -> None:
        self.table_id = table_id
        self.serial = serial
        self.adapter = adapter
        self.rules = rules
        self.seed = seed
        self.seeded = seeded
        """The creator chose ``seed``: the deals follow from it (a practice table, Table.seeded)."""
        self.fair = FairDeals(adapter.name, secret, len(seats)) if secret else None
        """A fair table's deals (engine.seeds): its secret and the seed each seat's player gave."""
        self.commitment = "" if self.fair is None else self.fair.commitment
        """A fair table's commitment to its secret (Table.fairness), hashed once."""
        self.game: Any = adapter.new_game(rules, seed, first_dealer, self.fair)
        self.create_time = create_time
        self.time_control = time_control
        bank = time_control.bank if time_control is not None else 0.0
        self.seats = [dataclasses.replace(s, bank=bank) for s in seats]
        self.started = False
        self.stopped: StopReason | None = None
        """Why the server stopped the table before its game ended; None: it did not."""
        self.rated = rated
        """Its end changes its players' ratings (:mod:`server.ratings`): it finishes with RatingsUpdated."""
        self.rating_done = False
        """The rated table's RatingsUpdated is logged."""
        self.decisions = 0
        """Decisions applied so far, by anyone."""
        self.endpoints = ("", "")
        """The owning node's gRPC and web addresses, in a cluster (Table.endpoint, Table.web_endpoint)."""
        self.log: list[TableEvent[Any]] = [
            SeatTakenEvent(i, s.strategy, True) for i, s in enumerate(seats) if s.bot
        ]
        self._engine_cursor = 0
        self._requests: RequestMemory[Any] = RequestMemory()
        self.opening: list[Published] = list(self._start_if_full())
        """What the table logged as it was made: a table of bots only starts (deals) at once."""

    # ------------------------------------------------------------------ queries

    @property
    def sequence(self) -> int:
        return len(self.log)

    @property
    def finished(self) -> bool:
        """The game ended (and a rated table's ratings changed), or the server stopped the table."""
        return self.stopped is not None or (bool(self.game.is_over) and not self.awaiting_rating)

    @property
    def awaiting_rating(self) -> bool:
        """A rated table's game ended and its ratings' update is not logged yet: the table is not finished
        (its streams stay open) until the update's event ends it."""
        return self.rated and not self.rating_done and self.stopped is None and bool(self.game.is_over)

    @property
    def to_act(self) -> int | None:
        """The seat that must decide now; None before the start and once the table is finished."""
        if not self.started or self.stopped is not None:
            return None
        seat: int | None = self.game.to_act  # None once the game is over
        return seat

    def bot_to_act(self) -> int | None:
        """The seat to act when a server-run bot plays it (a bot seat, or one taken over on time)."""
        seat = self.to_act
        return seat if seat is not None and self.seats[seat].played_by_bot else None

    def played_by_bots_only(self) -> bool:
        """Every seat is played by a server-run bot: a bot seat, or one taken over on time."""
        return all(s.played_by_bot for s in self.seats)

    def open_seats(self) -> int:
        return sum(1 for s in self.seats if not s.taken)

    def seat_holding(self, token: str) -> int | None:
        """The seat this token holds, if any (:func:`server.table_state.seat_holding`)."""
        return seat_holding(self.seats, token)

    def frame(self) -> Frame:
        """The table as it is now, as a value."""
        finished = self.finished
        return Frame(len(self.log), self.decisions, self.to_act, self.started, finished, tuple(self.seats))

    # ------------------------------------------------------------------ deciding

    def decide(self, command: Command) -> Change:
        """What ``command`` does to the table now: the steps to store and apply, or a refusal."""
        match command:
            case Act():
                return self._decide_act(command)
            case BotMove(seat, action):
                if (refusal := self._illegal(seat, action)) is not None:
                    return refuse(refusal)
                acted = Acted(seat, "", action, self.adapter.action_to_bytes(action))
                return Change((acted, Reclaimed(seat)) if self.seats[seat].one_turn else (acted,))
            case Join():
                return self._decide_join(command)
            case Leave(seat):
                return Change((Left(seat),))
            case Reclaim(seat):
                state = self.seats[seat]
                if state.forfeited:
                    return refuse(_forfeited(seat))
                if not state.taken_over:
                    return Change()
                return Change((Reclaimed(seat),), reclaimed=True)
            case TimeOut(seat, policy):
                return Change((TimedOut(seat, policy),))
            case Away(seat):
                state = self.seats[seat]
                playing = self.started and not self.finished and state.token_hash is not None
                if not playing or state.bot or state.forfeited or (state.taken_over and not state.one_turn):
                    return Change()
                return Change((WentAway(seat),))
            case Stop(reason, message):
                return Change((Stopped(reason, message),))
            case Claim(seat, player_id):
                if self.seats[seat].player_id == player_id:
                    return Change()
                return Change((Owned(seat, player_id),))
            case HandOver(seat, operator, reason):
                return self._decide_handover(seat, operator, reason)

    def _decide_handover(self, seat: int, operator: str, reason: str) -> Change:
        if not 0 <= seat < len(self.seats):
            return refuse(
                ServiceError(ErrorReason.INVALID_ARGUMENT, f"the table has no seat {seat}", field="seat")
            )
        state = self.seats[seat]
        if state.bot:
            return refuse(ServiceError(ErrorReason.SEAT_NOT_OPEN, f"seat {seat} is a bot seat"))
        if self.finished:
            return refuse(ServiceError(ErrorReason.GAME_OVER, f"table {self.table_id} is finished already"))
        if state.handed_over:
            return refuse(ServiceError(ErrorReason.SEAT_FORFEITED, f"seat {seat} is a bot's already"))
        if state.token_hash is None and not state.forfeited:
            return refuse(
                ServiceError(ErrorReason.INVALID_ARGUMENT, f"nobody sits in seat {seat}", field="seat")
            )
        return Change((HandedOver(seat, operator, reason),))

    def _decide_act(self, act: Act) -> Change:
        seat, request_id, action = act.seat, act.request_id, act.action
        remembered = self._requests.recall(seat, request_id)
        if remembered is not None:
            if remembered[0] != action:
                return refuse(
                    ServiceError(
                        ErrorReason.REQUEST_ID_REUSED,
                        f"request_id {request_id!r} was already used for a different action",
                        field="request_id",
                    )
                )
            return Change(sequence=remembered[1])
        state = self.seats[seat]
        if state.forfeited:
            return refuse(_forfeited(seat))
        # The player is back: whatever becomes of this action, the seat is theirs again.
        back: tuple[Step, ...] = (Reclaimed(seat),) if state.taken_over else ()
        refusal: ServiceError | None = None
        if not self.started:
            refusal = ServiceError(ErrorReason.GAME_NOT_STARTED, "the game starts when every seat is taken")
        elif self.finished or self.game.is_over:
            ended = "the game is over" if self.stopped is None else "the server stopped the table"
            refusal = ServiceError(ErrorReason.GAME_OVER, ended)
        elif act.last_seen is not None and act.last_seen != self.sequence:
            refusal = ServiceError(
                ErrorReason.STALE_SEQUENCE,
                f"you last saw event {act.last_seen} but the table is at {self.sequence}; resync and retry",
            )
        else:
            refusal = self._illegal(seat, action)
        if refusal is not None:
            return Change(back, refusal=refusal)
        # The time the decision took from the bank, if any, and the decision itself: in one commit.
        bank = (BankCharged(seat, act.bank),) if act.bank is not None and not back else ()
        acted = Acted(seat, request_id, action, self.adapter.action_to_bytes(action))
        return Change((*back, *bank, acted))

    def _illegal(self, seat: int, action: Any) -> ServiceError | None:
        """Why ``seat`` may not take ``action`` now (the engine's specific reason); None: it may."""
        try:
            self.game.validate(seat, action)  # exact for every action, listed or not (T-34, B-22)
        except ActionError as error:
            return from_action_error(error)
        return None

    def _decide_join(self, join: Join) -> Change:
        held = seat_holding_hash(self.seats, join.token_hash)
        if held is not None:  # the client's retry of a join whose reply it lost: no second seat
            return Change(seat=held)
        if join.player_id:  # a player has one seat at a table: the second join is not a second seat
            mine = [i for i, s in enumerate(self.seats) if s.player_id == join.player_id]
            if mine:
                return refuse(
                    ServiceError(
                        ErrorReason.ALREADY_SEATED,
                        f"you sit in seat {mine[0]} of table {self.table_id} already",
                        seat=str(mine[0]),
                    )
                )
        seat = join.seat
        if seat is None:
            free = [i for i, s in enumerate(self.seats) if not s.taken]
            if not free:
                return refuse(ServiceError(ErrorReason.TABLE_FULL, f"table {self.table_id} has no free seat"))
            seat = free[0]
        elif not 0 <= seat < len(self.seats):
            return refuse(
                ServiceError(
                    ErrorReason.INVALID_ARGUMENT,
                    f"seat {seat} does not exist; seats are 0 to {len(self.seats) - 1}",
                    field="seat",
                )
            )
        state = self.seats[seat]
        if state.bot:
            return refuse(ServiceError(ErrorReason.SEAT_NOT_OPEN, f"seat {seat} is a bot seat"))
        if state.taken:
            if self.open_seats() == 0:
                return refuse(ServiceError(ErrorReason.TABLE_FULL, f"table {self.table_id} has no free seat"))
            return refuse(ServiceError(ErrorReason.SEAT_TAKEN, f"seat {seat} is taken"))
        seed = join.client_seed if self.fair is not None else ""
        # The seed before the join: applied first, it is in place when the join starts the game and deals.
        steps: list[Step] = [Seeded(seat, seed)] if seed else []
        steps.append(Joined(seat, join.player_name, join.token_hash))
        if join.player_id:
            steps.append(Owned(seat, join.player_id))
        if state.taken_over:  # a player sitting down in a seat the bot took over plays it from now on
            steps.append(Reclaimed(seat))
        return Change(tuple(steps), seat=seat)

    # ------------------------------------------------------------------ applying

    def apply(self, change: Change) -> Iterator[Published]:
        """Make the change's steps, in order; after each one that logged events, yield them with the frame
        after them (the caller publishes them before the next step is made). Consume it whole."""
        for step in change.steps:
            yield from self._apply(step)

    def replay(self, steps: Iterable[Step]) -> None:
        """Rebuild the table from its stored steps: the same events with the same sequence numbers."""
        for step in steps:
            for _ in self._apply(step):
                pass

    def _apply(self, step: Step) -> Iterator[Published]:
        if type(step) is Acted:  # nearly every step: without the match's pattern lookups
            self.game.apply(step.seat, step.action)  # the engine's own call: both games' Game.apply
            self.decisions += 1
            yield from self._advance()
            if step.request_id:
                self._requests.remember(step.seat, step.request_id, step.action, len(self.log))
            return
        match step:
            case Joined(seat, player_name, token_hash):
                self._set(seat, token_hash=token_hash, player_name=player_name)
                yield self._log([SeatTakenEvent(seat, player_name, False)])
                yield from self._start_if_full()
            case Owned(seat, player_id):
                self._set(seat, player_id=player_id)
            case HandedOver(seat):
                self._set(
                    seat,
                    token_hash=None,
                    player_id="",
                    taken_over=True,
                    forfeited=True,
                    one_turn=False,
                    handed_over=True,
                )
                yield self._log([SeatTakenOverEvent(seat, True, False, True)])
            case Left(seat):
                self._set(seat, token_hash=None, player_name="", player_id="")
                self._seed(seat, "")
                yield self._log([SeatReleasedEvent(seat)])
            case Seeded(seat, seed):
                self._seed(seat, seed)
            case TimedOut(seat, policy):
                state = self._set(
                    seat,
                    bank=0.0,
                    taken_over=True,
                    forfeited=policy is TimeoutPolicy.FORFEIT,
                    one_turn=policy is TimeoutPolicy.BOT_PLAYS_TURN,
                )
                over = SeatTakenOverEvent(seat, state.forfeited, state.one_turn)
                yield self._log([TurnTimedOutEvent(seat, policy), over])
            case WentAway(seat):
                self._set(seat, taken_over=True, one_turn=False, away=True)
                yield self._log([SeatTakenOverEvent(seat, False, False, away=True)])
            case Reclaimed(seat):
                self._set(seat, taken_over=False, one_turn=False, away=False)
                yield self._log([SeatReclaimedEvent(seat)])
            case BankCharged(seat, left):
                self._set(seat, bank=left)
            case Stopped(reason, message):
                self.stopped = reason
                yield self._log([TableStoppedEvent(reason, message)])
            case Rated(data):
                self.rating_done = True
                yield self._log([RatingsUpdatedEvent(data)])

    def _set(self, seat: int, **changes: Any) -> SeatState:
        state = self.seats[seat] = dataclasses.replace(self.seats[seat], **changes)
        return state

    def _seed(self, seat: int, seed: str) -> None:
        """The seed of the player now in ``seat`` ("" once it is free) enters the deals dealt from now on."""
        if self.fair is not None:
            self.fair.seat(seat, seed)

    def _start_if_full(self) -> Iterator[Published]:
        """The game starts (its first deal is dealt) once every seat is taken."""
        if not self.started and self.open_seats() == 0:
            self.started = True
            yield from self._advance()

    def _advance(self) -> Iterator[Published]:
        """Deal whenever the game is at a chance node; the game's new events are logged."""
        game = self.game
        while game.is_chance_node:
            game.apply_chance()
        events = self.adapter.events(game)
        new = events[self._engine_cursor :]
        self._engine_cursor = len(events)
        if new:
            yield self._log(new, moved=True)

    def _log(self, events: Sequence[TableEvent[Any]], moved: bool = False) -> Published:
        first = len(self.log) + 1
        self.log.extend(events)
        return Published(events, first, self.frame(), moved)


def _forfeited(seat: int) -> ServiceError:
    return ServiceError(ErrorReason.SEAT_FORFEITED, f"seat {seat} forfeited on time; the bot plays it")


def new_token() -> str:
    """A seat token the server draws for a player who brought none."""
    return secrets.token_urlsafe(32)
