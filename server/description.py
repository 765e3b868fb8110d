"""A table as the contract's ``Table`` message: what GetTable, ListTables and CreateTable answer, what a
stream's snapshot and JoinTable's reply carry, and what a cluster node publishes of every table it holds.

It is read from the table's state each time it is asked for, so it is never behind; only a fair table's
commitment is kept by the table (it hashes the secret). The secret itself is shown once the game is over,
never before: it would tell every deal to come.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from google.protobuf.timestamp_pb2 import Timestamp

from engine.seeds import FAIR_SCHEME, table_commitment
from server.time_control import duration
from thousand.v1 import table_service_pb2 as pb

if TYPE_CHECKING:
    from server.games import AnyAdapter
    from server.identity.values import Privacy
    from server.store import TableConfig
    from server.table_core import TableCore
    from server.table_state import SeatState


def describe(table: TableCore) -> pb.Table:
    clocked = table.time_control is not None and table.time_control.clocked
    created = Timestamp()
    created.FromNanoseconds(int(table.create_time * 1e9))
    return pb.Table(
        table_id=table.table_id,
        game=table.adapter.kind,
        rules=table.adapter.rules_to_proto(table.rules),
        status=status(table),
        seats=[
            pb.Seat(
                seat=i,
                kind=pb.SEAT_KIND_BOT if s.bot else pb.SEAT_KIND_OPEN,
                strategy=s.strategy,
                taken=s.taken,
                player_name=s.player_name,
                taken_over=s.taken_over or s.forfeited,
                forfeited=s.forfeited,
                bank_remaining=duration(s.bank) if clocked else None,
                player_id=s.player_id,
                takeover_reason=_takeover_reason(s),
            )
            for i, s in enumerate(table.seats)
        ],
        open_seats=table.open_seats(),
        sequence=table.sequence,
        create_time=created,
        time_control=table.time_control.to_proto() if table.time_control is not None else None,
        seeded=table.seeded,
        rated=table.rated,
        fairness=_fairness(table),
        stop_reason=table.stopped.to_proto() if table.stopped is not None else pb.STOP_REASON_UNSPECIFIED,
        endpoint=table.endpoints[0],
        web_endpoint=table.endpoints[1],
    )


def from_config(
    table_id: str, adapter: AnyAdapter, config: TableConfig, open_seats: int, create_time: float
) -> pb.Table:
    """A table its owner has not published yet (in a cluster, created a moment ago on another node), as
    its stored config describes it: never less than a client needs to join it safely (a seeded table says
    so, a fair one shows its commitment before anyone sends a seed: a client that saw neither would take a
    fair table for a seeded one, or the reverse)."""
    created = Timestamp()
    created.FromNanoseconds(int(create_time * 1e9))
    return pb.Table(
        table_id=table_id,
        game=adapter.kind,
        rules=adapter.rules_to_proto(adapter.rules_from_bytes(config.rules)),
        status=pb.TABLE_STATUS_WAITING if open_seats else pb.TABLE_STATUS_PLAYING,
        seats=[
            pb.Seat(seat=i, kind=pb.SEAT_KIND_BOT if bot else pb.SEAT_KIND_OPEN, strategy=strategy, taken=bot)
            for i, (bot, strategy) in enumerate(config.seats)
        ],
        open_seats=open_seats,
        create_time=created,
        time_control=config.time_control.to_proto() if config.time_control is not None else None,
        seeded=config.seeded,
        rated=config.rated,
        fairness=(
            pb.Fairness(scheme=FAIR_SCHEME, commitment=table_commitment(config.secret))
            if config.secret
            else None
        ),
    )


def _promised(secret: bytes) -> pb.Fairness | None:
    """A fair table's commitment to its secret, from the secret (never the secret itself)."""
    return pb.Fairness(scheme=FAIR_SCHEME, commitment=table_commitment(secret)) if secret else None


def _takeover_reason(seat: SeatState) -> pb.TakeoverReason.ValueType:
    if seat.handed_over:
        return pb.TAKEOVER_REASON_OPERATOR_HANDOVER
    if seat.away and seat.taken_over:
        return pb.TAKEOVER_REASON_DISCONNECTED
    if seat.taken_over or seat.forfeited:
        return pb.TAKEOVER_REASON_TIMEOUT
    return pb.TAKEOVER_REASON_UNSPECIFIED


def private(table: pb.Table, privacy: Privacy) -> pb.Table:
    """The table's description with what its privacy adds (Table.unlisted, invite_required, reserved_for);
    never the invite code or its hash."""
    table.unlisted = privacy.unlisted
    table.invite_required = bool(privacy.invite_hash)
    for seat in table.seats:
        seat.reserved_for = privacy.reservations.get(seat.seat, "")
    return table


def status(table: TableCore) -> pb.TableStatus.ValueType:
    if table.finished:
        return pb.TABLE_STATUS_FINISHED
    return pb.TABLE_STATUS_PLAYING if table.started else pb.TABLE_STATUS_WAITING


def _fairness(table: TableCore) -> pb.Fairness | None:
    """Table.fairness: the commitment from the start, the secret too once the game is over."""
    if table.fair is None:
        return None
    secret = table.fair.secret.hex() if table.game.is_over else ""
    return pb.Fairness(scheme=FAIR_SCHEME, commitment=table.commitment, secret=secret)
