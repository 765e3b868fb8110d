"""What the ratings tests share: guests, rated tables, games played to their end by the bot SDK as those
guests, and a table's events read back."""

from __future__ import annotations

import asyncio

from bots.registry import STRATEGIES
from bots.strategy import StrategyOptions
from clients.bots.sdk import BotResult, run_bot
from clients.players import PlayerClient
from thousand.v1 import player_service_pb2 as player_pb
from thousand.v1 import table_service_pb2 as pb
from thousand.v1 import table_service_pb2_grpc as table_grpc


async def guests(address: str, *names: str) -> list[player_pb.CreateGuestResponse]:
    async with PlayerClient(address) as players:
        return [await players.create_guest(name, "en") for name in names]


def rated_request(players: int = 2, **rules: object) -> pb.CreateTableRequest:
    """A rated Thousand table, every seat open."""
    request = pb.CreateTableRequest(
        game=pb.GAME_KIND_THOUSAND, rated=True, seats=[pb.SeatConfig(kind=pb.SEAT_KIND_OPEN)] * players
    )
    request.rules.thousand.players = players
    for name, value in rules.items():
        setattr(request.rules.thousand, name, value)
    return request


async def play_as(
    address: str, table_id: str, tokens: list[str], strategy: str = "greedy"
) -> list[BotResult]:
    """Each player (by player token) takes a seat in order and plays ``strategy`` to the game's end."""
    return list(
        await asyncio.gather(
            *(
                run_bot(
                    STRATEGIES[strategy](StrategyOptions()),
                    server=address,
                    table_id=table_id,
                    seat=seat,
                    seed=seat,
                    player_token=token,
                )
                for seat, token in enumerate(tokens)
            )
        )
    )


async def events(stub: table_grpc.TableServiceAsyncStub, table_id: str) -> list[pb.Event]:
    """Every event of the table, from its first (a spectator's view), up to its last: the stream ends."""
    found: list[pb.Event] = []
    async for message in stub.StreamEvents(pb.StreamEventsRequest(table_id=table_id, after_sequence=0)):
        if message.HasField("event"):
            found.append(message.event)
        found.extend(message.more_events)
    return found


async def finished(stub: table_grpc.TableServiceAsyncStub, table_id: str, timeout: float = 120) -> pb.Table:
    """The table once it is finished (its ratings' update stored)."""
    deadline = asyncio.get_running_loop().time() + timeout
    while True:
        table = (await stub.GetTable(pb.GetTableRequest(table_id=table_id))).table
        if table.status == pb.TABLE_STATUS_FINISHED:
            return table
        assert asyncio.get_running_loop().time() < deadline, f"table {table_id} did not finish"
        await asyncio.sleep(0.05)
