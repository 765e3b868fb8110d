"""Who a rated table admits: CreateTable's checks of ``rated`` and JoinTable's of the player who sits down.

A rating means something only when the deals were fair and every seat's player is known: so a rated table is
never seeded, seats people only (each seat open, each taken by a signed-in player, each player once) or bots
only (the bots' pool), and an anonymous join is refused with a reason a client can act on: sign in. A
player sits once at any table (ALREADY_SEATED, the table's own check). A registered bot (a player of kind
bot, signed in with its ``thb_`` key) plays on the bots' ladder only (issue 27): its key never takes a seat of
a rated people's table (BOT_NOT_ALLOWED), so no bot is rated in a people's pool.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from server.errors import ErrorReason, ServiceError
from server.identity.values import PlayerKind
from thousand.v1 import table_service_pb2 as pb

if TYPE_CHECKING:
    from server.identity.values import Player
    from server.table import Table


def check_rated(request: pb.CreateTableRequest, bots: Sequence[bool]) -> None:
    """A rated table deals fairly, and seats people only or bots only: INVALID_ARGUMENT, field ``rated``,
    otherwise."""
    if request.HasField("seed"):
        raise ServiceError(
            ErrorReason.INVALID_ARGUMENT,
            "a rated table deals fairly: leave seed unset (a seeded table's cards are known in advance)",
            field="rated",
        )
    if any(bots) and not all(bots):
        raise ServiceError(
            ErrorReason.INVALID_ARGUMENT,
            "a rated table is of people only (every seat open, each taken by a signed-in player) or of bots"
            " only: people and bots are rated in separate pools",
            field="rated",
        )


def check_rated_join(table: Table, player: Player | None) -> None:
    """A rated table seats signed-in people only: PLAYER_TOKEN_INVALID (problem ``missing``) for an
    anonymous join, BOT_NOT_ALLOWED for a registered bot's key. (A player's second seat is the table's own
    refusal, ALREADY_SEATED, at any table.)"""
    if all(state.bot for state in table.seats):
        return  # a bots' table has no seat to join: the table says so
    if player is None:
        raise ServiceError(
            ErrorReason.PLAYER_TOKEN_INVALID,
            "a rated table seats signed-in players only: send your player credential"
            " (authorization: Bearer ...; PlayerService.CreateGuest makes one)",
            problem="missing",
        )
    if player.kind is PlayerKind.BOT:
        raise ServiceError(
            ErrorReason.BOT_NOT_ALLOWED,
            "a bot's key plays on the bots' ladder only (LadderService.JoinLadder): a rated table seats"
            " people; sign in as the bot's owner to play here yourself",
            where="rated_table",
        )
