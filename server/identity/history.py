"""A player's games: their seats (the players' store's index, newest first), each with its result.

A finished game's result never changes, so it is kept with the seat: written when the table finishes on the
node that plays it (:func:`seat_results`, from the table in memory), or else read once, the first time the
history shows the seat after the game ended (a replay of the stored table, off the event loop, as ExportTable
does). Whether a game ended is the tables' store's finish time, read for a whole page in one query: a game
still being played costs no reading of its records, however often the history is asked for.
"""

from __future__ import annotations

import base64
import binascii
from typing import Final

from server.errors import ErrorReason, ServiceError
from server.export import record_of
from server.games import adapter_for_name
from server.identity.store import PlayerStore
from server.identity.values import Outcome, PlayerSeat, SeatResult, timestamp
from server.store import Store
from server.table import Table
from thousand.v1 import player_service_pb2 as player_pb
from thousand.v1 import table_service_pb2 as pb

DEFAULT_PAGE_SIZE: Final = 20
MAX_PAGE_SIZE: Final = 100


def page_size(size: int) -> int:
    """A request's page_size checked (0: the default).

    :raises ServiceError: INVALID_ARGUMENT, field ``page_size``.
    """
    if not 0 <= size <= MAX_PAGE_SIZE:
        raise ServiceError(
            ErrorReason.INVALID_ARGUMENT,
            f"page_size must be 0 to {MAX_PAGE_SIZE}, got {size}",
            field="page_size",
        )
    return size or DEFAULT_PAGE_SIZE


def encode_cursor(seat: PlayerSeat) -> str:
    return base64.urlsafe_b64encode(f"g1:{seat.join_time!r}:{seat.table_id}:{seat.seat}".encode()).decode()


def decode_cursor(token: str) -> tuple[float, str, int]:
    try:
        version, join_time, table_id, seat = base64.urlsafe_b64decode(token.encode()).decode().split(":")
        if version != "g1":
            raise ValueError(version)
        return float(join_time), table_id, int(seat)
    except (ValueError, binascii.Error, UnicodeDecodeError):
        raise ServiceError(
            ErrorReason.INVALID_ARGUMENT, "page_token is not one this server issued", field="page_token"
        ) from None


def games_page(
    players: PlayerStore, tables: Store | None, player_id: str, size: int, token: str
) -> tuple[list[player_pb.PlayerGame], str]:
    """One page of the player's games, newest first, and the next page's token (blocking: run in a thread)."""
    seats = players.seats(player_id, size + 1, decode_cursor(token) if token else None)
    more = len(seats) > size
    seats = seats[:size]
    unknown = [seat.table_id for seat in seats if seat.result is None]
    finished = {} if tables is None or not unknown else tables.finish_times(unknown)
    games = [_game(players, tables, seat, finished) for seat in seats]
    return games, encode_cursor(seats[-1]) if more else ""


def seat_results(table: Table) -> list[tuple[bytes, SeatResult]]:
    """The result of each player's seat at a finished table (by its token's hash), from the table in memory:
    what the history keeps for its players' seats when the game ends. An anonymous seat has none to keep (a
    seat claimed where the table's log did not learn it is read from the record once, when shown)."""
    if not table.finished:
        return []
    standings = {s.seat: s for s in getattr(table.game, "standings", ())}
    results = []
    for seat, state in enumerate(table.seats):
        if state.token_hash is None or not state.player_id:
            continue
        standing = standings.get(seat)
        if table.stopped is not None:
            result = SeatResult(Outcome.STOPPED)
        elif standing is None:
            result = SeatResult(Outcome.UNKNOWN)
        else:
            outcome = Outcome.WON if standing.place == 1 else Outcome.LOST
            result = SeatResult(outcome, int(standing.score), int(standing.place))
        results.append((state.token_hash, result))
    return results


def _game(
    players: PlayerStore, tables: Store | None, seat: PlayerSeat, finished: dict[str, float | None]
) -> player_pb.PlayerGame:
    game, result = seat.game, seat.result
    if result is None and seat.table_id not in finished:
        result = SeatResult(Outcome.UNKNOWN)  # not in the tables' store (a store of another server)
        players.set_result(seat, game, result)
    elif result is None and finished[seat.table_id] is not None:  # ended: read once, kept from now on
        game, result = _read_result(tables, seat)
        if result is not None:
            players.set_result(seat, game, result)
    kind = adapter_for_name(game).kind if game else pb.GAME_KIND_UNSPECIFIED
    return player_pb.PlayerGame(
        table_id=seat.table_id,
        game=kind,
        seat=seat.seat,
        join_time=timestamp(seat.join_time),
        result=player_pb.GAME_RESULT_PLAYING if result is None else result.outcome.to_proto(),
        score=0 if result is None else result.score,
        place=0 if result is None else result.place,
    )


def _read_result(tables: Store | None, seat: PlayerSeat) -> tuple[str, SeatResult | None]:
    """The game's name and the seat's result; None while the game goes on."""
    stored = None if tables is None else tables.get(seat.table_id)
    if stored is None:
        return seat.game, SeatResult(Outcome.UNKNOWN)
    if stored.finish_time is None:
        return stored.config.game, None
    record = record_of(stored)
    if not record["finished"]:
        return stored.config.game, None
    if record.get("stopped"):
        return stored.config.game, SeatResult(Outcome.STOPPED)
    for standing in record.get("standings", []):
        if standing["seat"] == seat.seat:
            place = int(standing["place"])
            outcome = Outcome.WON if place == 1 else Outcome.LOST
            return stored.config.game, SeatResult(outcome, int(standing["score"]), place)
    return stored.config.game, SeatResult(Outcome.UNKNOWN)
