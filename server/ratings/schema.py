"""The ratings' tables, beside the tables' records in the tables' store (so that an update and its event
commit in one transaction): created with the SQLite store's schema, and by the PostgreSQL store's migration 4.
"""

from __future__ import annotations


def ratings_schema(*, prefix: str, real: str) -> str:
    """The statements creating the ratings' tables: ``prefix`` before each name (a PostgreSQL schema),
    ``real`` the dialect's name of a double.

    - ``ratings``: each player's current rating per pool, ``ordinal`` (mu - 3 sigma) kept for the
      leaderboard's order;
    - ``rated_games``: each seat of each rated table, its rating before and after (a player's profile).
    """
    return f"""
CREATE TABLE IF NOT EXISTS {prefix}ratings (
    pool_id TEXT NOT NULL,
    player_id TEXT NOT NULL,
    mu {real} NOT NULL,
    sigma {real} NOT NULL,
    ordinal {real} NOT NULL,
    games INTEGER NOT NULL,
    update_time {real} NOT NULL,
    PRIMARY KEY (pool_id, player_id)
);
CREATE INDEX IF NOT EXISTS ratings_board ON {prefix}ratings (pool_id, games, ordinal DESC, player_id);
CREATE INDEX IF NOT EXISTS ratings_by_player ON {prefix}ratings (player_id);
CREATE TABLE IF NOT EXISTS {prefix}rated_games (
    table_id TEXT NOT NULL,
    seat INTEGER NOT NULL,
    pool_id TEXT NOT NULL,
    player_id TEXT NOT NULL,
    rank INTEGER NOT NULL,
    mu_before {real} NOT NULL,
    sigma_before {real} NOT NULL,
    games_before INTEGER NOT NULL,
    mu_after {real} NOT NULL,
    sigma_after {real} NOT NULL,
    update_time {real} NOT NULL,
    PRIMARY KEY (table_id, seat)
);
CREATE INDEX IF NOT EXISTS rated_games_by_player ON {prefix}rated_games (player_id, update_time DESC);
"""
