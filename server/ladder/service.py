"""LadderService: registering bots, a bot's JoinLadder stream, the standings and a set.

A bot is a player of kind ``bot`` in the players' store, owned by the player who registered it; its key
(``thb_`` and 32 random bytes, shown once) is looked up as a player token is, so the key is the bot's
credential everywhere (``authorization: Bearer``), and the seat token of its ladder seats (a table keeps a
seat token's SHA-256, which is the key's hash the store keeps): the server never holds the key itself.
"""

from __future__ import annotations

import asyncio
import secrets
import time
from collections.abc import AsyncIterator
from typing import Any, Final

import grpc

from server.errors import ErrorReason, ServiceError
from server.games import adapter_for_kind, adapter_for_name
from server.identity.credentials import BOT_KEY_PREFIX, credential_of, stored
from server.identity.handlers import method
from server.identity.store import PlayerStore
from server.identity.values import Player, PlayerKind, secret_hash
from server.ladder.ladder import FRESH_SECONDS, Ladder, pool_message, set_message
from server.ladder.store import LadderSetRow
from server.ratings.model import BOT_PREFIX, Pool
from server.ratings.store import RatingReader
from server.requests import Context, parse
from server.service import MAX_NAME_LENGTH
from thousand.v1 import ladder_service_pb2 as ladder_pb

SERVICE_NAME: Final = "thousand.v1.LadderService"
MAX_BOTS: Final = 20
"""Bots one player may register."""
DEFAULT_RECENT_SETS: Final = 5
MAX_RECENT_SETS: Final = 20
MAX_STANDINGS: Final = 500
INTERVAL_SIGMAS: Final = 2.0
"""The standings' interval: mu within this many sigmas (about 95 %)."""


def new_bot_key() -> str:
    return BOT_KEY_PREFIX + secrets.token_urlsafe(32)


class LadderService:
    """The service's calls over the node's :class:`Ladder` and the players' store."""

    def __init__(self, ladder: Ladder, players: PlayerStore | None, reader: RatingReader) -> None:
        self.ladder = ladder
        self.players = players
        self.reader = RatingReader(reader.store, 0)  # every member with a set, whatever the people's minimum
        ladder.names = self.display_names

    async def display_names(self, members: list[str]) -> dict[str, str]:
        return (await self._names(members))[0]

    async def _person(self, context: Context) -> tuple[Player, PlayerStore]:
        player = await self.ladder.tables.caller(context)
        if player is None or self.players is None:
            raise ServiceError(
                ErrorReason.PLAYER_TOKEN_INVALID,
                "registering a bot needs a signed-in player: send authorization: Bearer <credential>",
                problem="missing",
            )
        if player.kind is PlayerKind.BOT:
            raise ServiceError(ErrorReason.PLAYER_TOKEN_INVALID, "a bot cannot register bots; its owner can")
        return player, self.players

    async def register_bot(self, request: ladder_pb.RegisterBotRequest, context: Context) -> Any:
        owner, players = await self._person(context)
        name = request.display_name.strip()
        if not 1 <= len(name) <= MAX_NAME_LENGTH:
            raise ServiceError(
                ErrorReason.INVALID_ARGUMENT,
                f"display_name must be 1 to {MAX_NAME_LENGTH} characters",
                field="display_name",
            )
        if len(await stored(players.bots_of, owner.player_id)) >= MAX_BOTS:
            raise ServiceError(
                ErrorReason.INVALID_ARGUMENT,
                f"a player registers {MAX_BOTS} bots at most",
                field="display_name",
            )
        key = new_bot_key()
        bot = await stored(players.create_bot, owner.player_id, name, secret_hash(key))
        return ladder_pb.RegisterBotResponse(bot=bot.to_proto(), key=key)

    async def list_my_bots(self, request: ladder_pb.ListMyBotsRequest, context: Context) -> Any:
        owner, players = await self._person(context)
        return ladder_pb.ListMyBotsResponse(
            bots=[b.to_proto() for b in await stored(players.bots_of, owner.player_id)]
        )

    async def join_ladder(
        self, request: ladder_pb.JoinLadderRequest, context: Context
    ) -> AsyncIterator[ladder_pb.JoinLadderResponse]:
        if not self.ladder.running:
            raise ServiceError(
                ErrorReason.INVALID_ARGUMENT, "this server runs no ladder (thousand-server --ladder)"
            )
        bot = await self.ladder.tables.caller(context)
        credential = credential_of(context)
        if bot is None or credential is None or bot.kind is not PlayerKind.BOT:
            raise ServiceError(
                ErrorReason.PLAYER_TOKEN_INVALID,
                "JoinLadder needs a bot's key (LadderService.RegisterBot) as authorization: Bearer <key>",
                problem="missing" if bot is None else "not_a_bot",
            )
        games = []
        for kind in request.games or [adapter_for_name("thousand").kind]:
            adapter = adapter_for_kind(kind)
            if adapter is None or adapter.name not in self.ladder.settings.references:
                raise ServiceError(
                    ErrorReason.INVALID_ARGUMENT,
                    "games names a game the ladder does not offer",
                    field="games",
                )
            games.append(adapter.name)
        async for message in self.ladder.join(bot, secret_hash(credential), games):
            yield message

    async def get_standings(self, request: ladder_pb.GetLadderStandingsRequest, context: Context) -> Any:
        adapter = adapter_for_kind(request.game)
        players = request.players or self.ladder.settings.players
        if adapter is None:
            raise ServiceError(ErrorReason.INVALID_ARGUMENT, "game must be a GameKind", field="game")
        pool = Pool(adapter.name, players, ladder=True)
        if pool not in self.ladder.settings.pools:
            raise ServiceError(
                ErrorReason.INVALID_ARGUMENT, f"the ladder has no pool {pool.pool_id}", field="players"
            )
        if not 0 <= request.recent_sets <= MAX_RECENT_SETS:
            raise ServiceError(
                ErrorReason.INVALID_ARGUMENT, f"recent_sets is 0 to {MAX_RECENT_SETS}", field="recent_sets"
            )
        recent_count = request.recent_sets or DEFAULT_RECENT_SETS
        entries, _ = await stored(self.reader.leaderboard, pool, 0, MAX_STANDINGS)
        store = self.ladder.store
        connected = {p.bot_id for p in await asyncio.to_thread(store.connected, time.time() - FRESH_SECONDS)}
        recent = await asyncio.to_thread(store.recent, pool, MAX_STANDINGS)
        names, owners = await self._names([member for member, _ in entries])
        response = ladder_pb.GetLadderStandingsResponse(pool=pool_message(pool))
        response.per_move.FromMilliseconds(int(self.ladder.settings.per_move * 1000))
        for place, (member, rating) in enumerate(entries, start=1):
            reference = member.startswith(BOT_PREFIX)
            mine = [row for row in recent if member in row.members][:recent_count]
            response.standings.append(
                ladder_pb.LadderStanding(
                    place=place,
                    member_id=member,
                    display_name=names.get(member, member),
                    reference=reference,
                    owner_name=owners.get(member, ""),
                    rating=rating.to_proto(),
                    interval_low=rating.mu - INTERVAL_SIGMAS * rating.sigma,
                    interval_high=rating.mu + INTERVAL_SIGMAS * rating.sigma,
                    games=rating.games * pool.players,
                    sets=rating.games,
                    connected=reference or member in connected,
                    recent_sets=[set_message(row, names) for row in mine],
                )
            )
        return response

    async def get_set(self, request: ladder_pb.GetLadderSetRequest, context: Context) -> Any:
        row: LadderSetRow | None = None
        if request.set_id:
            row = await asyncio.to_thread(self.ladder.store.get, request.set_id[:64])
        if row is None:
            raise ServiceError(
                ErrorReason.INVALID_ARGUMENT, f"no ladder set {request.set_id[:64]!r}", field="set_id"
            )
        names, _ = await self._names(list(row.members))
        return ladder_pb.GetLadderSetResponse(set=set_message(row, names))

    async def _names(self, members: list[str]) -> tuple[dict[str, str], dict[str, str]]:
        """Display names (a reference bot's is its strategy's) and registered bots' owners' names."""
        names = {m: m.removeprefix(BOT_PREFIX) for m in members if m.startswith(BOT_PREFIX)}
        owners: dict[str, str] = {}
        bots = [m for m in members if not m.startswith(BOT_PREFIX)]
        if bots and self.players is not None:
            found = await stored(self.players.players, bots)
            names.update({m: p.display_name for m, p in found.items()})
            owner_ids = {p.owner_id for p in found.values() if p.owner_id}
            people = await stored(self.players.players, list(owner_ids)) if owner_ids else {}
            owners = {m: people[p.owner_id].display_name for m, p in found.items() if p.owner_id in people}
        return names, owners


def method_handlers(service: LadderService) -> dict[str, grpc.RpcMethodHandler[Any, Any]]:
    async def join(request: Any, context: Context) -> AsyncIterator[ladder_pb.JoinLadderResponse]:
        try:
            if not isinstance(request, ladder_pb.JoinLadderRequest):
                raise request.refuse()
            async for message in service.join_ladder(request, context):
                yield message
        except ServiceError as error:
            await context.abort_with_status(error.to_status())

    return {
        "RegisterBot": method(
            service.register_bot, ladder_pb.RegisterBotRequest, ladder_pb.RegisterBotResponse
        ),
        "ListMyBots": method(service.list_my_bots, ladder_pb.ListMyBotsRequest, ladder_pb.ListMyBotsResponse),
        "JoinLadder": grpc.unary_stream_rpc_method_handler(
            join,
            request_deserializer=parse(ladder_pb.JoinLadderRequest),
            response_serializer=ladder_pb.JoinLadderResponse.SerializeToString,
        ),
        "GetLadderStandings": method(
            service.get_standings, ladder_pb.GetLadderStandingsRequest, ladder_pb.GetLadderStandingsResponse
        ),
        "GetLadderSet": method(
            service.get_set, ladder_pb.GetLadderSetRequest, ladder_pb.GetLadderSetResponse
        ),
    }


def generic_handler(service: LadderService) -> grpc.GenericRpcHandler:
    return grpc.method_handlers_generic_handler(SERVICE_NAME, method_handlers(service))
