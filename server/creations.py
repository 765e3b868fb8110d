"""CreateTable requests, and the request_id that makes a retry of one get the table the first attempt made.

A client that lost CreateTable's reply cannot tell whether the table was made, so it sends the same request
again with the same ``request_id`` (the client library always does). For :data:`CREATE_REQUEST_WINDOW`
seconds that request_id names the table it created, or the one being created while its commit is awaited,
and the retry gets that table instead of a second one. What the request asked for is hashed
(:func:`creation_digest`): the same request_id with another request is REQUEST_ID_REUSED, as for
SubmitAction. The registry keeps this node's request_ids (:class:`CreateRequests`); in a cluster the
directory finds those of the other nodes in the database, and checks them the same way
(:func:`check_same_request`).
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import time
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Final

from server.errors import ErrorReason, ServiceError
from server.games import adapter_for_rules
from server.identity.values import Privacy
from server.time_control import TimeControl

if TYPE_CHECKING:
    from server.table import Table

CREATE_REQUEST_WINDOW: Final = 600.0
"""Seconds during which a CreateTable request_id names the table it created (a retry gets that table)."""


@dataclass(frozen=True, slots=True)
class SeatSpec:
    """One seat as CreateTable asks for it: open, or a bot playing ``strategy``."""

    bot: bool
    strategy: str = ""


@dataclass(frozen=True, slots=True)
class Creation:
    """One CreateTable request, as the registry was given it."""

    rules: object
    seats: list[SeatSpec]
    seed: int | None
    first_dealer: int | None
    time_control: TimeControl | None
    request_id: str
    client: str
    privacy: Privacy | None = None
    """A private table's settings (stored with the table, in its config)."""
    rated: bool = False
    secret: bytes | None = None
    """The fair table's secret when the creator gives one (the ladder: a set's tables deal the same deals);
    None: drawn for the table."""

    def digest(self) -> str:
        return creation_digest(
            self.rules,
            self.seats,
            self.seed,
            self.first_dealer,
            self.time_control,
            rated=self.rated,
            privacy=self.privacy,
        )


def creation_digest(
    rules: object,
    seats: list[SeatSpec],
    seed: int | None,
    first_dealer: int | None,
    time_control: TimeControl | None,
    *,
    rated: bool = False,
    privacy: Privacy | None = None,
) -> str:
    """What a CreateTable request asked for, hashed: the same for a retry of it, different for any other
    request (the request_id and the client left out: a retry may come over another connection, or node).

    A private table's settings count too (unlisted, the invite's hash, the reserved seats): a retry that
    asks for another invite or other reservations would otherwise get the first table, whose settings are
    not the ones it asked for (issue 25)."""
    adapter = adapter_for_rules(rules)
    content = {
        "game": adapter.name,
        "rules": adapter.rules_to_bytes(rules).hex(),
        "seats": [[s.bot, s.strategy] for s in seats],
        "seed": seed,
        "first_dealer": first_dealer,
        "time_control": None if time_control is None else time_control.to_json(),
    }
    if rated:  # absent when not rated: the digests of earlier requests stay what they were
        content["rated"] = True
    if privacy is not None:  # absent for a public table, likewise
        content["private"] = {
            "unlisted": privacy.unlisted,
            "invite": privacy.invite_hash.hex(),
            "reservations": sorted([seat, player] for seat, player in privacy.reservations.items()),
        }
    return hashlib.sha256(json.dumps(content, sort_keys=True).encode()).hexdigest()[:32]


def check_same_request(request_id: str, known: str, digest: str) -> None:
    """REQUEST_ID_REUSED when a request_id that made a table comes with a different request ("": a table
    stored before digests were, taken as the same)."""
    if known and known != digest:
        raise ServiceError(
            ErrorReason.REQUEST_ID_REUSED,
            f"request_id {request_id!r} was already used for a different CreateTable request (its game,"
            " rules, seats, seed, clock, rating or private settings differ): nothing was created or"
            " changed; use a new request_id for a new table",
            field="request_id",
        )


class CreateRequests:
    """This node's CreateTable request_ids of the last :data:`CREATE_REQUEST_WINDOW` seconds: the tables
    they created, and those being created."""

    def __init__(self) -> None:
        self._created_by: dict[str, tuple[str, float, str]] = {}
        """request_id -> (table id, Unix creation time, request digest)."""
        self._creating_for: dict[str, tuple[asyncio.Future[Table], str]] = {}
        """request_ids whose table is being created (waiting for its commit), with the request's digest."""

    def remember(self, request_id: str, table_id: str, create_time: float, digest: str) -> None:
        self._created_by[request_id] = (table_id, create_time, digest)

    def created_before(self, request_id: str, digest: str, tables: Mapping[str, Table]) -> Table | None:
        """The table a CreateTable with this request_id made within the window, if ``tables`` still holds
        it; REQUEST_ID_REUSED when that request was not this one."""
        now = time.time()
        for stale in [k for k, (_, at, _) in self._created_by.items() if now - at >= CREATE_REQUEST_WINDOW]:
            del self._created_by[stale]
        known = self._created_by.get(request_id)
        if known is None or known[0] not in tables:
            return None
        check_same_request(request_id, known[2], digest)
        return tables[known[0]]

    async def once(self, request_id: str, digest: str, create: Callable[[], Awaitable[Table]]) -> Table:
        """The table ``create`` makes, made once for a request_id however many retries of it arrive while
        it is being made: they wait for it (and fail as it fails)."""
        pending = self._creating_for.get(request_id)
        if pending is not None:
            check_same_request(request_id, pending[1], digest)
            return await asyncio.shield(pending[0])
        done: asyncio.Future[Table] = asyncio.get_running_loop().create_future()
        self._creating_for[request_id] = (done, digest)
        try:
            table = await create()
        except Exception as error:
            done.set_exception(error)  # a retry waiting on it fails the same way
            done.exception()  # and with none waiting, the error counts as seen
            raise
        except BaseException:
            done.cancel()
            raise
        finally:
            del self._creating_for[request_id]
        done.set_result(table)
        self.remember(request_id, table.table_id, table.create_time, digest)
        return table
