"""Private tables at the service layer: who may list a table and who may join it.

A table created unlisted, with an invite code or with reserved seats has its :class:`~server.identity.values.
Privacy` stored with the table itself (its config: private from its first moment, on every node), and a row in
the players' store, keyed by its id, written just after (it tells ListTables who created it; for a table made
before settings were stored with the table, it is all there is). A table with neither is public.
ListTables leaves an unlisted table out for everyone but its players (its creator, the players its seats are
held for, those who took a seat there); JoinTable needs the invite code, unless the seat is reserved for the
caller, and never gives a seat reserved for another player. The checks are made before the table's own
JoinTable, which then takes the very seat they chose.
"""

from __future__ import annotations

import hmac
import re
import time
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Final

from server.errors import ErrorReason, ServiceError
from server.identity.credentials import Identities, stored
from server.identity.values import Player, PlayerSeat, Privacy, secret_hash
from thousand.v1 import table_service_pb2 as pb

INVITE_FORMAT: Final = re.compile(r"[A-Za-z0-9_-]{16,128}")
MIN_INVITE_SYMBOLS: Final = 8
"""Different characters an invite code has at least: 16 random bytes in base64url have about 18."""
MAX_PLAYER_ID_LENGTH: Final = 64
MAX_CACHED_OWNERS: Final = 100_000
"""Seats whose player :meth:`TableAccess.check_seat` remembers (emptied when full)."""


@dataclass(frozen=True, slots=True)
class JoinGate:
    """What JoinTable may do at one private table, for one caller."""

    privacy: Privacy
    player_id: str
    """The caller's player ("" when anonymous)."""
    invited: bool
    """Whether the call carried the table's invite code (or the table needs none)."""

    def seat(self, table: pb.Table, requested: int | None) -> int | None:
        """The seat to take: the one asked for, else the caller's reserved seat, else a free one not held
        for another; None when no open seat is free (the table then says TABLE_FULL).

        :raises ServiceError: SEAT_RESERVED, INVITE_INVALID.
        """
        reserved = self.privacy.reservations
        if requested is not None:
            self._check(reserved.get(requested))
            return requested
        free = [s.seat for s in table.seats if s.kind == pb.SEAT_KIND_OPEN and not s.taken]
        mine = [seat for seat in free if self.player_id and reserved.get(seat) == self.player_id]
        if mine:
            return mine[0]
        unreserved = [seat for seat in free if seat not in reserved]
        if not free:
            return None
        if not unreserved:
            raise ServiceError(ErrorReason.SEAT_RESERVED, "every free seat is reserved for another player")
        self._check(None)
        return unreserved[0]

    def _check(self, holder: str | None) -> None:
        if holder is not None:
            if holder != self.player_id:
                raise ServiceError(ErrorReason.SEAT_RESERVED, "the seat is reserved for another player")
            return
        if not self.invited:
            raise ServiceError(ErrorReason.INVITE_INVALID, "the table needs its invite code (invite_code)")


class TableAccess:
    """Private tables' rows in the players' store, and the checks made of them."""

    def __init__(self, identities: Identities) -> None:
        self.identities = identities
        self.store = identities.store
        self._owners: dict[tuple[str, bytes], str] = {}
        """(table id, seat token hash) -> the player the seat belongs to."""

    async def prepare(
        self, request: pb.CreateTableRequest, open_seats: Sequence[bool], creator: Player | None
    ) -> Privacy | None:
        """The privacy a CreateTable asks for (its table id not known yet), checked; None for a public table.

        :raises ServiceError: INVALID_ARGUMENT (fields ``invite_code``, ``reservations``), PLAYER_NOT_FOUND.
        """
        invite = request.invite_code
        if invite and not INVITE_FORMAT.fullmatch(invite):
            raise ServiceError(
                ErrorReason.INVALID_ARGUMENT,
                "invite_code must be 16 to 128 characters of A-Z a-z 0-9 - _ (or empty: no invite)",
                field="invite_code",
            )
        if invite and len(set(invite)) < MIN_INVITE_SYMBOLS:
            raise ServiceError(
                ErrorReason.INVALID_ARGUMENT,
                "invite_code does not look random: draw it from a secure source (16 bytes in base64url)",
                field="invite_code",
            )
        reservations: dict[int, str] = {}
        for reservation in request.reservations:
            seat, player_id = reservation.seat, reservation.player_id
            if not 0 <= seat < len(open_seats) or not open_seats[seat]:
                raise ServiceError(
                    ErrorReason.INVALID_ARGUMENT,
                    f"reservations: seat {seat} is not an open seat",
                    field="reservations",
                )
            if seat in reservations:
                raise ServiceError(
                    ErrorReason.INVALID_ARGUMENT,
                    f"reservations: seat {seat} is reserved twice",
                    field="reservations",
                )
            if not player_id or len(player_id) > MAX_PLAYER_ID_LENGTH:
                raise ServiceError(
                    ErrorReason.INVALID_ARGUMENT, "reservations: player_id is required", field="reservations"
                )
            reservations[seat] = player_id
        if not (request.unlisted or invite or reservations):
            return None
        known = await stored(self.store.players, reservations.values())
        for player_id in reservations.values():
            if player_id not in known:
                raise ServiceError(ErrorReason.PLAYER_NOT_FOUND, f"reservations: no player {player_id!r}")
        return Privacy(
            "",
            unlisted=request.unlisted,
            invite_hash=secret_hash(invite) if invite else b"",
            reservations=reservations,
            creator=creator.player_id if creator is not None else "",
        )

    async def created(self, privacy: Privacy, table: pb.Table) -> pb.Table:
        """Keep a new table's privacy in the players' store too (its creator, for ListTables); the table as
        its creator sees it."""
        kept = Privacy(
            table.table_id, privacy.unlisted, privacy.invite_hash, privacy.reservations, privacy.creator
        )
        await stored(self.store.put_privacy, kept)
        return decorated(table, kept)

    async def gate(
        self, table_id: str, player: Player | None, invite: str, kept: Privacy | None = None
    ) -> JoinGate | None:
        """JoinTable's checks at a private table; None at a public one. ``kept``: the privacy stored with the
        table (None: read the players' store, for a table made before it was stored there)."""
        privacy = kept if kept is not None else (await stored(self.store.privacy, [table_id])).get(table_id)
        if privacy is None or not (privacy.invite_hash or privacy.reservations):
            return None
        invited = not privacy.invite_hash or (
            bool(invite) and hmac.compare_digest(secret_hash(invite), privacy.invite_hash)
        )
        return JoinGate(privacy, player.player_id if player is not None else "", invited)

    async def joined(self, player: Player, table: pb.Table, seat: int, token: str, game: str) -> None:
        """A player took a seat: it is theirs (their history, their way back to it)."""
        record = PlayerSeat(player.player_id, table.table_id, seat, secret_hash(token), time.time(), game)
        await stored(self.store.add_seat, record)  # a seat already a player's stays theirs

    async def seat_hashes(self, table_id: str, player_id: str) -> list[bytes]:
        """The token hashes of the player's seats at the table (read from the store on every call: a join
        on another device may have added one)."""
        return await stored(self.store.seat_hashes, table_id, player_id)

    async def check_seat(self, table_id: str, token: str, caller: Player | None) -> None:
        """A seat token is used: SEAT_RESERVED when the seat is another player's than the caller's (a
        player's seat is theirs, not whoever holds its token beside their own credential), PLAYER_BANNED when
        it is a banned player's and the caller sends no credential (a ban also holds for the seats the player
        took before it). An anonymous seat, or a token of no seat here, is left to the table's own check."""
        key = (table_id, secret_hash(token))
        owner = self._owners.get(key)
        if owner is None:
            try:
                owner = await stored(self.store.seat_owner, *key)
            except ServiceError as error:
                if error.reason is not ErrorReason.STORE_UNAVAILABLE or caller is not None:
                    raise
                # The players' store is away: an anonymous seat token is left to the table's own check, so a
                # live table keeps serving its seats from memory (a ban learnt since waits for the store).
                return
            if owner is None:
                return  # not cached: a claim may make it a player's later
            if len(self._owners) >= MAX_CACHED_OWNERS:
                self._owners.clear()
            self._owners[key] = owner  # read again when it is not the caller's: a guest's seat may move
        if caller is not None and caller.player_id != owner:  # a guest's seat may have moved since
            owner = await stored(self.store.seat_owner, *key) or owner
            self._owners[key] = owner
        if caller is None:
            await self.identities.check_ban(owner)
        elif caller.player_id != owner:
            raise ServiceError(
                ErrorReason.SEAT_RESERVED,
                "this seat token is of another player's seat; a signed-in player acts only in their own",
                field="x-seat-token",
            )

    async def visible(self, tables: Sequence[pb.Table], player: Player | None) -> list[pb.Table]:
        """ListTables' page without the unlisted tables the caller is not a player of, each described with
        its privacy."""
        private = await stored(self.store.privacy, [t.table_id for t in tables])
        if not private and not any(t.unlisted for t in tables):
            return list(tables)
        seated: set[str] = set()
        if player is not None:
            unlisted = [
                t.table_id
                for t in tables
                if _unlisted(t, private.get(t.table_id)) and not _member(t, private.get(t.table_id), player)
            ]
            seated = await stored(self.store.seats_at, unlisted, player.player_id)
        shown = []
        for table in tables:
            privacy = private.get(table.table_id)
            if _unlisted(table, privacy):
                member = player is not None and (_member(table, privacy, player) or table.table_id in seated)
                if not member:
                    continue
            shown.append(decorated(table, privacy) if privacy is not None else table)
        return shown

    async def describe(self, table: pb.Table) -> pb.Table:
        """A table described with its privacy."""
        privacy = (await stored(self.store.privacy, [table.table_id])).get(table.table_id)
        return table if privacy is None else decorated(table, privacy)


def _unlisted(table: pb.Table, privacy: Privacy | None) -> bool:
    """Unlisted by the settings stored with the table (its description says so) or by the players' store."""
    return table.unlisted or (privacy is not None and privacy.unlisted)


def _member(table: pb.Table, privacy: Privacy | None, player: Player) -> bool:
    """One of the table's players: its creator, one its seats are held for, or one who sits there."""
    player_id = player.player_id
    if privacy is not None and privacy.member(player_id):
        return True
    return any(player_id in (seat.reserved_for, seat.player_id) for seat in table.seats)


def decorated(table: pb.Table, privacy: Privacy) -> pb.Table:
    """The table's description with what its privacy adds (Table.unlisted, invite_required, reserved_for)."""
    table.unlisted = privacy.unlisted
    table.invite_required = bool(privacy.invite_hash)
    for seat in table.seats:
        seat.reserved_for = privacy.reservations.get(seat.seat, "")
    return table
