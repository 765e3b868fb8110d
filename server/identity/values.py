"""The identity package's values: players, bans, audit entries, a player's seats and a table's privacy."""

from __future__ import annotations

import hashlib
import time
from dataclasses import dataclass, field
from enum import Enum
from typing import Final

from google.protobuf.timestamp_pb2 import Timestamp

from thousand.v1 import admin_service_pb2 as admin_pb
from thousand.v1 import player_service_pb2 as player_pb

OPERATOR_TOKEN_NAME: Final = "token"
"""The audit log's name for an operator who used the operator token file."""


def secret_hash(secret: str) -> bytes:
    """The SHA-256 of a bearer secret (player token, invite code): what the store keeps instead of it."""
    return hashlib.sha256(secret.encode()).digest()


def timestamp(seconds: float) -> Timestamp:
    stamp = Timestamp()
    stamp.FromNanoseconds(int(seconds * 1e9))
    return stamp


class PlayerKind(Enum):
    """How a player signs in; the value is the store's name."""

    GUEST = "guest"
    OIDC = "oidc"
    BOT = "bot"
    """A bot a player registered for the ladder (:mod:`server.ladder`): its key is its token."""


_KIND_PROTO: Final = {
    PlayerKind.GUEST: player_pb.PLAYER_KIND_GUEST,
    PlayerKind.OIDC: player_pb.PLAYER_KIND_OIDC,
    PlayerKind.BOT: player_pb.PLAYER_KIND_BOT,
}


@dataclass(frozen=True, slots=True)
class Player:
    player_id: str
    kind: PlayerKind
    display_name: str
    locale: str
    create_time: float
    issuer: str = ""
    subject: str = ""
    owner_id: str = ""
    """A bot's owner (the player who registered it); "" for people."""

    def to_proto(self) -> player_pb.Player:
        return player_pb.Player(
            player_id=self.player_id,
            kind=_KIND_PROTO[self.kind],
            owner_id=self.owner_id,
            display_name=self.display_name,
            locale=self.locale,
            issuer=self.issuer,
            subject=self.subject,
            create_time=timestamp(self.create_time),
        )


@dataclass(frozen=True, slots=True)
class Ban:
    player_id: str
    reason: str
    operator: str
    create_time: float
    expire_time: float | None = None
    """When it ends by itself (Unix time); None: never."""

    def in_force(self, now: float | None = None) -> bool:
        return self.expire_time is None or self.expire_time > (time.time() if now is None else now)

    def to_proto(self) -> admin_pb.Ban:
        ban = admin_pb.Ban(
            reason=self.reason, operator=self.operator, create_time=timestamp(self.create_time)
        )
        if self.expire_time is not None:
            ban.expire_time.CopyFrom(timestamp(self.expire_time))
        return ban


@dataclass(frozen=True, slots=True)
class AuditEntry:
    """One operator action; ``entry_id`` 0 before it is stored."""

    operator: str
    action: str
    reason: str
    table_id: str = ""
    seat: int = -1
    player_id: str = ""
    create_time: float = field(default_factory=time.time)
    entry_id: int = 0

    def to_proto(self) -> admin_pb.AuditEntry:
        return admin_pb.AuditEntry(
            entry_id=self.entry_id,
            create_time=timestamp(self.create_time),
            operator=self.operator,
            action=self.action,
            table_id=self.table_id,
            seat=self.seat,
            player_id=self.player_id,
            reason=self.reason,
        )


class Outcome(Enum):
    """How a game ended for a seat, once known; the value is the store's name."""

    WON = "won"
    LOST = "lost"
    STOPPED = "stopped"
    UNKNOWN = "unknown"

    def to_proto(self) -> player_pb.GameResult.ValueType:
        return _RESULTS[self]


_RESULTS: Final = {
    Outcome.WON: player_pb.GAME_RESULT_WON,
    Outcome.LOST: player_pb.GAME_RESULT_LOST,
    Outcome.STOPPED: player_pb.GAME_RESULT_STOPPED,
    Outcome.UNKNOWN: player_pb.GAME_RESULT_UNKNOWN,
}


@dataclass(frozen=True, slots=True)
class SeatResult:
    """A finished game's result for one seat (kept once known: it never changes)."""

    outcome: Outcome
    score: int = 0
    place: int = 0


@dataclass(frozen=True, slots=True)
class PlayerSeat:
    """A seat a player took (JoinTable with the player's credential) or claimed (ClaimSeats)."""

    player_id: str
    table_id: str
    seat: int
    token_hash: bytes
    join_time: float
    game: str = ""
    """The game's name ("thousand", "blagogo"); "" when not known yet."""
    result: SeatResult | None = None
    """None while the game is played (or its result not read yet)."""


@dataclass(frozen=True, slots=True)
class Privacy:
    """What makes a table private (CreateTableRequest): kept beside the table, keyed by its id."""

    table_id: str
    unlisted: bool = False
    invite_hash: bytes = b""
    """The SHA-256 of the invite code; empty: none needed."""
    reservations: dict[int, str] = field(default_factory=dict)
    """Seat -> the player it is held for."""
    creator: str = ""
    """The player who created the table ("" for an anonymous creator)."""

    def member(self, player_id: str) -> bool:
        """Whether the player is one the table was made for (its creator, or a seat is held for them)."""
        return player_id == self.creator or player_id in self.reservations.values()
