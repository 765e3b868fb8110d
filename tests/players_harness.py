"""What the client tests of players share (tests/test_bots_players.py, tests/test_node_client.py): a guest's
private table, made through the Python library, and a player's history read back through it."""

from __future__ import annotations

from dataclasses import dataclass

from clients.connection import Connection
from clients.players import PlayerClient
from clients.session import TableSession, new_invite_code
from engine import Rules
from thousand.v1 import player_service_pb2 as player_pb


@dataclass(frozen=True)
class PrivateTable:
    token: str
    """The guest's player token (the table's creator)."""
    table_id: str
    invite: str


async def guest_private_table(address: str, name: str, seed: int) -> PrivateTable:
    """A new guest creates an unlisted table with an invite: seat 0 open, two greedy bots, seeded."""
    async with PlayerClient(address) as players:
        guest = await players.create_guest(name, "en")
    invite = new_invite_code()
    async with TableSession(Connection(address, credential=guest.player_token)) as lobby:
        table = await lobby.create_table(
            Rules(), [None, "greedy", "greedy"], seed=seed, practice=True, first_dealer=0,
            unlisted=True, invite_code=invite,
        )  # fmt: skip
    return PrivateTable(guest.player_token, table.table_id, invite)


async def history(address: str, token: str) -> list[player_pb.PlayerGame]:
    """Every game of the player, newest first."""
    async with PlayerClient(Connection(address, credential=token)) as players:
        return [game async for game in players.games()]
