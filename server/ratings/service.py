"""The RatingService: a pool's leaderboard and a player's profile, read from the ratings' rows.

Needs no credential: ratings are public, as the tables whose ends made them are. A player's display name
comes from the players' store (a bot's is its strategy's name).
"""

from __future__ import annotations

from typing import Any, Final

import grpc

from server.errors import ErrorReason, ServiceError
from server.games import adapter_for_kind, adapter_for_name
from server.identity.credentials import stored
from server.identity.handlers import method
from server.identity.store import PlayerStore
from server.identity.values import timestamp
from server.ratings.model import BOT_PREFIX, Pool
from server.ratings.store import DEFAULT_PAGE_SIZE, MAX_PAGE_SIZE, RatingReader, decode_page, encode_page
from server.requests import Context
from thousand.v1 import rating_service_pb2 as rating_pb

SERVICE_NAME: Final = "thousand.v1.RatingService"
MIN_PLAYERS: Final = 2
MAX_PLAYERS: Final = 8
MAX_RECENT_GAMES: Final = 50
DEFAULT_RECENT_GAMES: Final = 10
MAX_PLAYER_ID_LENGTH: Final = 64


def pool_proto(pool: Pool) -> rating_pb.RatingPool:
    return rating_pb.RatingPool(
        pool_id=pool.pool_id, game=adapter_for_name(pool.game).kind, players=pool.players, bots=pool.bots
    )


class RatingService:
    """The handlers over a :class:`RatingReader` and, for display names, the players' store (None: ids)."""

    def __init__(self, reader: RatingReader, players: PlayerStore | None) -> None:
        self.reader = reader
        self.players = players

    async def get_leaderboard(
        self, request: rating_pb.GetLeaderboardRequest
    ) -> rating_pb.GetLeaderboardResponse:
        adapter = adapter_for_kind(request.game)
        if adapter is None:
            raise ServiceError(ErrorReason.INVALID_ARGUMENT, "game must be a GameKind", field="game")
        if not MIN_PLAYERS <= request.players <= MAX_PLAYERS:
            raise ServiceError(
                ErrorReason.INVALID_ARGUMENT,
                f"players must be {MIN_PLAYERS} to {MAX_PLAYERS}: the pool's number of players",
                field="players",
            )
        if not 0 <= request.page_size <= MAX_PAGE_SIZE:
            raise ServiceError(
                ErrorReason.INVALID_ARGUMENT, f"page_size must be 0 to {MAX_PAGE_SIZE}", field="page_size"
            )
        size = request.page_size or DEFAULT_PAGE_SIZE
        offset = decode_page(request.page_token)
        pool = Pool(adapter.name, request.players, request.bots)
        entries, more = await stored(self.reader.leaderboard, pool, offset, size)
        names = await self._names([player_id for player_id, _ in entries])
        return rating_pb.GetLeaderboardResponse(
            pool=pool_proto(pool),
            entries=[
                rating_pb.LeaderboardEntry(
                    place=offset + index + 1,
                    player_id=player_id,
                    display_name=names.get(player_id, ""),
                    rating=rating.to_proto(),
                )
                for index, (player_id, rating) in enumerate(entries)
            ],
            next_page_token=encode_page(offset + size) if more else "",
            min_games=self.reader.min_games,
        )

    async def get_player_profile(
        self, request: rating_pb.GetPlayerProfileRequest
    ) -> rating_pb.GetPlayerProfileResponse:
        player_id = request.player_id
        if not 0 < len(player_id) <= MAX_PLAYER_ID_LENGTH:
            raise ServiceError(
                ErrorReason.INVALID_ARGUMENT,
                f"player_id must be 1 to {MAX_PLAYER_ID_LENGTH} characters",
                field="player_id",
            )
        if not 0 <= request.recent_games <= MAX_RECENT_GAMES:
            raise ServiceError(
                ErrorReason.INVALID_ARGUMENT,
                f"recent_games must be 0 to {MAX_RECENT_GAMES}",
                field="recent_games",
            )
        pools = await stored(self.reader.pools_of, player_id)
        names = await self._names([player_id])
        if player_id not in names and not pools:
            raise ServiceError(ErrorReason.PLAYER_NOT_FOUND, f"no player {player_id!r} has played here")
        recent = await stored(
            self.reader.recent_games, player_id, request.recent_games or DEFAULT_RECENT_GAMES
        )
        ratings = []
        for pool_id, rating in pools:
            pool = Pool.parse(pool_id)
            place = await stored(self.reader.place, pool, player_id, rating)
            ratings.append(rating_pb.PoolRating(pool=pool_proto(pool), rating=rating.to_proto(), place=place))
        return rating_pb.GetPlayerProfileResponse(
            player_id=player_id,
            display_name=names.get(player_id, ""),
            ratings=ratings,
            recent_games=[
                rating_pb.RatedGame(
                    table_id=game.table_id,
                    pool_id=game.pool_id,
                    seat=game.seat,
                    rank=game.rank,
                    before=game.before.to_proto(),
                    after=game.after.to_proto(),
                    time=timestamp(game.time),
                )
                for game in recent
            ],
        )

    async def _names(self, player_ids: list[str]) -> dict[str, str]:
        """Display names: a bot's is its strategy's name; a player's from the players' store."""
        names = {p: p.removeprefix(BOT_PREFIX) for p in player_ids if p.startswith(BOT_PREFIX)}
        people = [p for p in player_ids if not p.startswith(BOT_PREFIX)]
        if people and self.players is not None:
            found = await stored(self.players.players, people)
            names.update({p: player.display_name for p, player in found.items()})
        return names


def method_handlers(service: RatingService) -> dict[str, grpc.RpcMethodHandler[Any, Any]]:
    async def leaderboard(request: rating_pb.GetLeaderboardRequest, context: Context) -> Any:
        return await service.get_leaderboard(request)

    async def profile(request: rating_pb.GetPlayerProfileRequest, context: Context) -> Any:
        return await service.get_player_profile(request)

    return {
        "GetLeaderboard": method(
            leaderboard, rating_pb.GetLeaderboardRequest, rating_pb.GetLeaderboardResponse
        ),
        "GetPlayerProfile": method(
            profile, rating_pb.GetPlayerProfileRequest, rating_pb.GetPlayerProfileResponse
        ),
    }


def generic_handler(service: RatingService) -> grpc.GenericRpcHandler:
    return grpc.method_handlers_generic_handler(SERVICE_NAME, method_handlers(service))
