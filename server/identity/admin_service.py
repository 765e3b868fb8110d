"""The AdminService: what operators do (close a table, remove a player, ban, look up, read the audit log).

Every call first proves the caller is an operator (:meth:`Identities.operator`): without the credential it
is refused with OPERATOR_REQUIRED before its request is even read, so nothing changes. Every action is then
written to the audit log with who did it and why; an action on a table is also in the table's own records
(CloseTable's stop carries the reason, RemovePlayer's seat released, HandSeatToBot's ``handover`` step names
the operator and the reason, so a replay, on a restart or another node's takeover, gives the seat to the bot
again).
"""

from __future__ import annotations

import asyncio
import time
from typing import Any, Final

import grpc

from server.errors import ErrorReason, ServiceError
from server.identity.credentials import Identities, stored
from server.identity.handlers import method
from server.identity.history import games_page, page_size
from server.identity.values import AuditEntry, Ban, Player
from server.registry import Registry
from server.requests import Context, table_id_of
from server.table_state import StopReason
from thousand.v1 import admin_service_pb2 as admin_pb
from thousand.v1 import table_service_pb2 as pb

SERVICE_NAME: Final = "thousand.v1.AdminService"
MAX_REASON_LENGTH: Final = 500
RECENT_GAMES: Final = 20


def reason_of(reason: str) -> str:
    """An operator's reason checked: 1 to 500 characters.

    :raises ServiceError: INVALID_ARGUMENT, field ``reason``.
    """
    reason = reason.strip()
    if not 0 < len(reason) <= MAX_REASON_LENGTH:
        raise ServiceError(
            ErrorReason.INVALID_ARGUMENT,
            f"reason must be 1 to {MAX_REASON_LENGTH} characters",
            field="reason",
        )
    return reason


class AdminService:
    """The handlers; ``registry`` holds the tables this node serves."""

    def __init__(self, identities: Identities, registry: Registry) -> None:
        self.identities = identities
        self.store = identities.store
        self.registry = registry

    async def _audit(self, entry: AuditEntry) -> None:
        await stored(self.store.audit, entry)

    async def close_table(
        self, request: admin_pb.CloseTableRequest, operator: str
    ) -> admin_pb.CloseTableResponse:
        reason = reason_of(request.reason)
        table = await self.registry.owned(table_id_of(request.table_id))
        async with table.lock:
            if table.finished:
                raise ServiceError(ErrorReason.GAME_OVER, f"table {table.table_id} is finished already")
            await table.stop(StopReason.CLOSED_BY_OPERATOR, reason)
            described = table.describe()
        await self._audit(AuditEntry(operator, "CloseTable", reason, table_id=table.table_id))
        return admin_pb.CloseTableResponse(table=described)

    async def hand_seat_to_bot(
        self, request: admin_pb.HandSeatToBotRequest, operator: str
    ) -> admin_pb.HandSeatToBotResponse:
        reason = reason_of(request.reason)
        table = await self.registry.owned(table_id_of(request.table_id))
        async with table.lock:
            # SEAT_NOT_OPEN, GAME_OVER, INVALID_ARGUMENT (no such seat, nobody there), SEAT_FORFEITED.
            await table.hand_over(request.seat, operator, reason)
            described = table.describe()
        table.ensure_bots_running()  # the bot moves at once when it is the seat's turn
        await self._audit(
            AuditEntry(operator, "HandSeatToBot", reason, table_id=table.table_id, seat=request.seat)
        )
        return admin_pb.HandSeatToBotResponse(table=described)

    async def remove_player(
        self, request: admin_pb.RemovePlayerRequest, operator: str
    ) -> admin_pb.RemovePlayerResponse:
        reason = reason_of(request.reason)
        table = await self.registry.owned(table_id_of(request.table_id))
        async with table.lock:
            seats = table.describe().seats
            if not 0 <= request.seat < len(seats):
                raise ServiceError(
                    ErrorReason.INVALID_ARGUMENT, f"the table has no seat {request.seat}", field="seat"
                )
            seat = seats[request.seat]
            if seat.kind != pb.SEAT_KIND_OPEN:
                raise ServiceError(ErrorReason.SEAT_NOT_OPEN, f"seat {request.seat} is a bot seat")
            if not seat.taken:
                raise ServiceError(
                    ErrorReason.INVALID_ARGUMENT, f"nobody sits in seat {request.seat}", field="seat"
                )
            await table.leave(request.seat)
            described = table.describe()
        await self._audit(
            AuditEntry(operator, "RemovePlayer", reason, table_id=table.table_id, seat=request.seat)
        )
        return admin_pb.RemovePlayerResponse(table=described)

    async def ban_player(
        self, request: admin_pb.BanPlayerRequest, operator: str
    ) -> admin_pb.BanPlayerResponse:
        reason = reason_of(request.reason)
        player = await self._player(request.player_id)
        expires = request.expire_time.ToNanoseconds() / 1e9 if request.HasField("expire_time") else None
        now = time.time()
        if expires is not None and expires <= now:
            raise ServiceError(
                ErrorReason.INVALID_ARGUMENT, "expire_time is in the past", field="expire_time"
            )
        ban = Ban(player.player_id, reason, operator, now, expires)
        await stored(
            self.store.ban, ban, AuditEntry(operator, "BanPlayer", reason, player_id=player.player_id)
        )
        self.identities.forget_ban(player.player_id)
        return admin_pb.BanPlayerResponse(player=player.to_proto(), ban=ban.to_proto())

    async def unban_player(
        self, request: admin_pb.UnbanPlayerRequest, operator: str
    ) -> admin_pb.UnbanPlayerResponse:
        reason = reason_of(request.reason)
        player = await self._player(request.player_id)
        await stored(
            self.store.unban,
            player.player_id,
            AuditEntry(operator, "UnbanPlayer", reason, player_id=player.player_id),
        )
        self.identities.forget_ban(player.player_id)
        return admin_pb.UnbanPlayerResponse(player=player.to_proto())

    async def get_player(self, request: admin_pb.GetPlayerRequest) -> admin_pb.GetPlayerResponse:
        if request.player_id:
            player = await self._player(request.player_id)
        elif request.issuer and request.subject:
            found = await stored(self._by_subject, request.issuer, request.subject)
            if found is None:
                raise ServiceError(ErrorReason.PLAYER_NOT_FOUND, "no player has that issuer and subject")
            player = found
        else:
            raise ServiceError(
                ErrorReason.INVALID_ARGUMENT, "give player_id, or issuer and subject", field="player_id"
            )
        ban = await stored(self.store.ban_of, player.player_id)
        tables = self.registry.store
        games, _ = await asyncio.to_thread(games_page, self.store, tables, player.player_id, RECENT_GAMES, "")
        response = admin_pb.GetPlayerResponse(player=player.to_proto(), recent_games=games)
        if ban is not None:
            response.ban.CopyFrom(ban.to_proto())
        return response

    def _by_subject(self, issuer: str, subject: str) -> Player | None:
        return next((p for p in self.store.players_by_subject(issuer, subject)), None)

    async def list_audit_entries(
        self, request: admin_pb.ListAuditEntriesRequest
    ) -> admin_pb.ListAuditEntriesResponse:
        size = page_size(request.page_size)
        before = None
        if request.page_token:
            try:
                before = int(request.page_token)
            except ValueError:
                raise ServiceError(
                    ErrorReason.INVALID_ARGUMENT,
                    "page_token is not one this server issued",
                    field="page_token",
                ) from None
        entries = await stored(
            self.store.audit_entries, size + 1, before, request.player_id, request.table_id
        )
        token = str(entries[size - 1].entry_id) if len(entries) > size else ""
        return admin_pb.ListAuditEntriesResponse(
            entries=[e.to_proto() for e in entries[:size]], next_page_token=token
        )

    async def _player(self, player_id: str) -> Player:
        if not player_id or len(player_id) > 64:
            raise ServiceError(ErrorReason.INVALID_ARGUMENT, "player_id is required", field="player_id")
        player = await stored(self.store.player, player_id)
        if player is None:
            raise ServiceError(ErrorReason.PLAYER_NOT_FOUND, f"no player {player_id!r}")
        return player


def method_handlers(service: AdminService) -> dict[str, grpc.RpcMethodHandler[Any, Any]]:
    """The service's handlers by method name: each proves the operator before anything else."""
    identities = service.identities

    async def close(request: admin_pb.CloseTableRequest, context: Context) -> Any:
        return await service.close_table(request, await identities.operator(context))

    async def hand_over(request: admin_pb.HandSeatToBotRequest, context: Context) -> Any:
        return await service.hand_seat_to_bot(request, await identities.operator(context))

    async def remove(request: admin_pb.RemovePlayerRequest, context: Context) -> Any:
        return await service.remove_player(request, await identities.operator(context))

    async def ban(request: admin_pb.BanPlayerRequest, context: Context) -> Any:
        return await service.ban_player(request, await identities.operator(context))

    async def unban(request: admin_pb.UnbanPlayerRequest, context: Context) -> Any:
        return await service.unban_player(request, await identities.operator(context))

    async def look_up(request: admin_pb.GetPlayerRequest, context: Context) -> Any:
        await identities.operator(context)
        return await service.get_player(request)

    async def audit(request: admin_pb.ListAuditEntriesRequest, context: Context) -> Any:
        await identities.operator(context)
        return await service.list_audit_entries(request)

    return {
        "CloseTable": method(close, admin_pb.CloseTableRequest, admin_pb.CloseTableResponse),
        "HandSeatToBot": method(hand_over, admin_pb.HandSeatToBotRequest, admin_pb.HandSeatToBotResponse),
        "RemovePlayer": method(remove, admin_pb.RemovePlayerRequest, admin_pb.RemovePlayerResponse),
        "BanPlayer": method(ban, admin_pb.BanPlayerRequest, admin_pb.BanPlayerResponse),
        "UnbanPlayer": method(unban, admin_pb.UnbanPlayerRequest, admin_pb.UnbanPlayerResponse),
        "GetPlayer": method(look_up, admin_pb.GetPlayerRequest, admin_pb.GetPlayerResponse),
        "ListAuditEntries": method(
            audit, admin_pb.ListAuditEntriesRequest, admin_pb.ListAuditEntriesResponse
        ),
    }


def generic_handler(service: AdminService) -> grpc.GenericRpcHandler:
    return grpc.method_handlers_generic_handler(SERVICE_NAME, method_handlers(service))
