"""The ladder's calls (docs/protocol.md, "The ladder"): register a bot, its JoinLadder stream, the standings
and a set. ``async with LadderClient(connection) as ladder:``; the connection's credential is the player's
token to register bots, or the bot's key to join the ladder."""

from __future__ import annotations

from collections.abc import AsyncIterator

from clients.calls import ServiceClient
from thousand.v1 import ladder_service_pb2 as ladder_pb
from thousand.v1 import ladder_service_pb2_grpc as ladder_grpc
from thousand.v1 import table_service_pb2 as pb


class LadderClient(ServiceClient):
    """The ladder calls of one connection."""

    @property
    def _stub(self) -> ladder_grpc.LadderServiceAsyncStub:
        return ladder_grpc.LadderServiceStub(self.route.channel)

    async def register_bot(self, display_name: str) -> ladder_pb.RegisterBotResponse:
        """A new bot of the signed-in player; the response's key is shown this once."""
        request = ladder_pb.RegisterBotRequest(display_name=display_name)
        response: ladder_pb.RegisterBotResponse = await self._calls(
            lambda: self._stub.RegisterBot(request, timeout=self._calls.timeout), retry=False
        )
        return response

    async def standings(
        self, game: pb.GameKind.ValueType, players: int = 3, recent_sets: int = 5
    ) -> ladder_pb.GetLadderStandingsResponse:
        request = ladder_pb.GetLadderStandingsRequest(game=game, players=players, recent_sets=recent_sets)
        response: ladder_pb.GetLadderStandingsResponse = await self._calls(
            lambda: self._stub.GetLadderStandings(request, timeout=self._calls.timeout), retry=True
        )
        return response

    async def get_set(self, set_id: str) -> ladder_pb.LadderSet:
        request = ladder_pb.GetLadderSetRequest(set_id=set_id)
        response: ladder_pb.GetLadderSetResponse = await self._calls(
            lambda: self._stub.GetLadderSet(request, timeout=self._calls.timeout), retry=True
        )
        return response.set

    async def join(self, games: list[pb.GameKind.ValueType]) -> AsyncIterator[ladder_pb.JoinLadderResponse]:
        """The bot's JoinLadder stream (the connection's credential: its key); aio.AioRpcError when it ends
        with an error (the caller connects again)."""
        call = self._stub.JoinLadder(ladder_pb.JoinLadderRequest(games=games))
        try:
            async for message in call:
                yield message
        finally:
            call.cancel()
