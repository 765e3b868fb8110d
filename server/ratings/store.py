"""The ratings' rows: an update in one transaction with its event, and the reads of leaderboards, profiles
and of a player's current rating (:class:`RatingReader`, what matchmaking reads too).

An update runs inside :meth:`server.store.Store.transact`, on the tables' store's own connection, so that the
ratings' rows and the table's ``rating`` record (its RatingsUpdated event) commit together or not at all.
It first makes sure every rated player has a row (a first game inserts the initial rating; two first games
at once insert it once), then reads the rows with ``FOR UPDATE`` in player id order: on PostgreSQL a game of
the same player ending at that moment on another node waits for this one's commit and then reads its
result, so both games count (no lost update), and two transactions never lock the same rows in opposite
orders. SQLite's BEGIN IMMEDIATE holds the whole database for the transaction.
"""

from __future__ import annotations

import base64
import binascii
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Final

from server.errors import ErrorReason, ServiceError
from server.ratings.model import BOT_PREFIX, Pool, RatingValue, rate
from server.store import Sql, Store

MAX_PAGE_SIZE: Final = 100
DEFAULT_PAGE_SIZE: Final = 20


@dataclass(frozen=True, slots=True)
class SeatUpdate:
    """One seat's part in an update: its player, rank, and rating before and after."""

    seat: int
    player_id: str
    rank: int
    before: RatingValue
    after: RatingValue


@dataclass(frozen=True, slots=True)
class RatedGameRow:
    """One of a player's rated games, as their profile lists it."""

    table_id: str
    pool_id: str
    seat: int
    rank: int
    before: RatingValue
    after: RatingValue
    time: float


def update_ratings(
    sql: Sql, table_id: str, pool: Pool, player_ids: Sequence[str], seat_ranks: Sequence[int], *, now: float
) -> list[SeatUpdate]:
    """Rate one game inside an open transaction: every seat's rating read (locked), rated, written, and each
    seat's before and after kept for the player's profile. Seats in seat order; player ids distinct."""
    pool_id = pool.pool_id
    fresh = RatingValue()
    ids = sorted(player_ids)
    for player_id in ids:  # in id order, as the locks below: no two updates wait for each other in a cycle
        sql(
            "INSERT INTO {t}ratings (pool_id, player_id, mu, sigma, ordinal, games, update_time)"
            " VALUES (?, ?, ?, ?, ?, 0, ?) ON CONFLICT (pool_id, player_id) DO NOTHING",
            (pool_id, player_id, fresh.mu, fresh.sigma, fresh.ordinal, now),
        )
    marks = ", ".join("?" for _ in ids)
    rows = sql(
        "SELECT player_id, mu, sigma, games FROM {t}ratings"
        f" WHERE pool_id = ? AND player_id IN ({marks}) ORDER BY player_id{sql.for_update}",
        (pool_id, *ids),
    )
    current = {str(p): RatingValue(float(mu), float(sigma), int(games)) for p, mu, sigma, games in rows}
    before = [current[player_id] for player_id in player_ids]
    after = rate(before, seat_ranks)
    updates = []
    for seat, (player_id, rank, old, new) in enumerate(
        zip(player_ids, seat_ranks, before, after, strict=True)
    ):
        sql(
            "UPDATE {t}ratings SET mu = ?, sigma = ?, ordinal = ?, games = ?, update_time = ?"
            " WHERE pool_id = ? AND player_id = ?",
            (new.mu, new.sigma, new.ordinal, new.games, now, pool_id, player_id),
        )
        sql(
            "INSERT INTO {t}rated_games (table_id, seat, pool_id, player_id, rank, mu_before, sigma_before,"
            " games_before, mu_after, sigma_after, update_time) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            (table_id, seat, pool_id, player_id, rank, old.mu, old.sigma, old.games, new.mu, new.sigma, now),
        )
        updates.append(SeatUpdate(seat, player_id, rank, old, new))
    return updates


def encode_page(offset: int) -> str:
    return base64.urlsafe_b64encode(f"o{offset}".encode()).decode().rstrip("=")


def decode_page(token: str) -> int:
    """The offset a page token names; INVALID_ARGUMENT (field page_token) for anything else."""
    if not token:
        return 0
    try:
        text = base64.urlsafe_b64decode(token + "=" * (-len(token) % 4)).decode()
        if text.startswith("o") and text[1:].isdigit():
            return int(text[1:])
    except (binascii.Error, UnicodeDecodeError):
        pass
    raise ServiceError(
        ErrorReason.INVALID_ARGUMENT, "page_token is not one this server gave", field="page_token"
    )


class RatingReader:
    """Current ratings, leaderboards and profiles, read from the tables' store (blocking calls: run them in
    a thread). A player without a rating in a pool has the model's initial one there."""

    def __init__(self, store: Store, min_games: int = 0) -> None:
        self.store = store
        self.min_games = min_games
        """Rated games a player needs to appear on a leaderboard (``--rating-min-games``)."""

    def ratings(self, pool: Pool, player_ids: Sequence[str]) -> dict[str, RatingValue]:
        """Each player's current rating in the pool (the initial one for a player who has none yet)."""
        ids = sorted(set(player_ids))
        found: dict[str, RatingValue] = {}
        if ids:
            marks = ", ".join("?" for _ in ids)
            rows = self.store.read(
                "SELECT player_id, mu, sigma, games FROM {t}ratings"
                f" WHERE pool_id = ? AND player_id IN ({marks})",
                (pool.pool_id, *ids),
            )
            found = {str(p): RatingValue(float(mu), float(sigma), int(g)) for p, mu, sigma, g in rows}
        return {player_id: found.get(player_id, RatingValue()) for player_id in ids}

    def rating(self, pool: Pool, player_id: str) -> RatingValue:
        """One player's current rating in the pool (the initial one when they have none yet)."""
        return self.ratings(pool, [player_id])[player_id]

    def ordinal(self, game: str, players: int, player_id: str) -> float | None:
        """The player's ordinal in the people's pool of ``game`` at ``players``; None when they have played
        no rated game there (:class:`server.matchmaking.ratings.RatingLookup`, what the matcher reads); a
        bot's, ``bot_id(strategy)``, in the bots' pool."""
        pool = Pool(game, players, bots=player_id.startswith(BOT_PREFIX))
        rating = self.rating(pool, player_id)
        return rating.ordinal if rating.games else None

    def leaderboard(self, pool: Pool, offset: int, limit: int) -> tuple[list[tuple[str, RatingValue]], bool]:
        """A page of the pool's leaderboard from ``offset``: (player id, rating), best ordinal first (ties by
        player id), only players with at least ``min_games``; and whether more follow."""
        rows = self.store.read(
            "SELECT player_id, mu, sigma, games FROM {t}ratings WHERE pool_id = ? AND games >= ?"
            " ORDER BY ordinal DESC, player_id LIMIT ? OFFSET ?",
            (pool.pool_id, self.min_games, limit + 1, offset),
        )
        entries = [(str(p), RatingValue(float(mu), float(sigma), int(g))) for p, mu, sigma, g in rows]
        return entries[:limit], len(entries) > limit

    def place(self, pool: Pool, player_id: str, rating: RatingValue) -> int:
        """The player's place on the pool's leaderboard; 0 when they have fewer games than it needs."""
        if rating.games < self.min_games:
            return 0
        rows = self.store.read(
            "SELECT COUNT(*) FROM {t}ratings WHERE pool_id = ? AND games >= ?"
            " AND (ordinal > ? OR (ordinal = ? AND player_id < ?))",
            (pool.pool_id, self.min_games, rating.ordinal, rating.ordinal, player_id),
        )
        return int(rows[0][0]) + 1

    def pools_of(self, player_id: str) -> list[tuple[str, RatingValue]]:
        """The player's rating in every pool they played in, the most games first."""
        rows = self.store.read(
            "SELECT pool_id, mu, sigma, games FROM {t}ratings WHERE player_id = ? AND games > 0"
            " ORDER BY games DESC, pool_id",
            (player_id,),
        )
        return [(str(p), RatingValue(float(mu), float(sigma), int(g))) for p, mu, sigma, g in rows]

    def recent_games(self, player_id: str, limit: int) -> list[RatedGameRow]:
        """The player's latest rated games, newest first."""
        rows = self.store.read(
            "SELECT table_id, pool_id, seat, rank, mu_before, sigma_before, games_before, mu_after,"
            " sigma_after, update_time FROM {t}rated_games WHERE player_id = ?"
            " ORDER BY update_time DESC, table_id LIMIT ?",
            (player_id, limit),
        )
        return [
            RatedGameRow(
                str(table_id),
                str(pool_id),
                int(seat),
                int(rank),
                RatingValue(float(mu0), float(s0), int(g0)),
                RatingValue(float(mu1), float(s1), int(g0) + 1),
                float(when),
            )
            for table_id, pool_id, seat, rank, mu0, s0, g0, mu1, s1, when in rows
        ]
