"""``thousand-cluster``: an operator's look at a cluster and switch over its rebalancing, through the database
its nodes share (no node needs to be reachable, none is restarted).

- ``thousand-cluster status``: each node (state, generation, address, seconds since its last heartbeat by
  the database's clock, unfinished tables it owns), the unfinished tables nobody serves, and whether
  rebalancing is paused.
- ``thousand-cluster rebalancing pause`` / ``resume``: stop or restart every node's rebalancing
  (:mod:`server.rebalancing`) at once, from its next turn: during an incident, a load test, or before a
  maintenance that should leave tables where they are. Takeovers and placement are unaffected.

The database comes from ``--db`` or THOUSAND_DB, as the server's; it is never printed (it may hold a
password).
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Sequence
from typing import Any

import psycopg

from server.cluster_db import PAUSED, REBALANCING_KEY
from server.store_pg import SCHEMA, connect


def status(db: psycopg.Connection[Any]) -> str:
    """The cluster as a few lines of text."""
    nodes = db.execute(
        f"SELECT n.node_id, n.state, n.generation, n.endpoint,"
        " extract(epoch FROM now() - n.heartbeat)::float8,"
        f" (SELECT count(*) FROM {SCHEMA}.tables t WHERE t.owner = n.node_id AND NOT t.finished"
        " AND t.expire_time IS NULL)"
        f" FROM {SCHEMA}.nodes n ORDER BY n.node_id"
    ).fetchall()
    lines = [f"{'node':<16} {'state':<7} {'gen':>4} {'address':<24} {'heartbeat':>10} {'tables':>6}"]
    for node_id, state, generation, endpoint, age, tables in nodes:
        lines.append(f"{node_id:<16} {state:<7} {generation:>4} {endpoint:<24} {age:>9.1f}s {tables:>6}")
    (unserved,) = db.execute(
        f"SELECT count(*) FROM {SCHEMA}.tables t WHERE NOT t.finished AND t.expire_time IS NULL"
        f" AND (t.owner IS NULL OR NOT EXISTS (SELECT 1 FROM {SCHEMA}.nodes n"
        " WHERE n.node_id = t.owner AND n.state = 'active'))"
    ).fetchone() or (0,)
    lines.append(f"unfinished tables without an active owner: {unserved}")
    lines.append(f"rebalancing: {'paused' if paused(db) else 'on'}")
    return "\n".join(lines)


def paused(db: psycopg.Connection[Any]) -> bool:
    row = db.execute(
        f"SELECT value = %s FROM {SCHEMA}.meta WHERE key = %s", (PAUSED, REBALANCING_KEY)
    ).fetchone()
    return bool(row and row[0])


def set_rebalancing(db: psycopg.Connection[Any], *, pause: bool) -> None:
    if pause:
        db.execute(
            f"INSERT INTO {SCHEMA}.meta (key, value) VALUES (%s, %s)"
            " ON CONFLICT (key) DO UPDATE SET value = EXCLUDED.value",
            (REBALANCING_KEY, PAUSED),
        )
    else:
        db.execute(f"DELETE FROM {SCHEMA}.meta WHERE key = %s", (REBALANCING_KEY,))


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="thousand-cluster", description="Look at a cluster, and pause or resume its rebalancing."
    )
    parser.add_argument(
        "--db", default=os.environ.get("THOUSAND_DB", ""), help="the cluster's PostgreSQL URL (THOUSAND_DB)"
    )
    commands = parser.add_subparsers(dest="command", required=True)
    commands.add_parser("status", help="the nodes, their tables, and whether rebalancing is paused")
    rebalancing = commands.add_parser("rebalancing", help="pause or resume rebalancing on every node")
    rebalancing.add_argument("switch", choices=("pause", "resume"))
    args = parser.parse_args(argv)
    if not args.db.startswith(("postgresql://", "postgres://")):
        parser.error("--db (or THOUSAND_DB) must be the cluster's PostgreSQL URL")
    try:
        with connect(args.db) as db:
            if db.execute("SELECT to_regclass(%s)", (f"{SCHEMA}.nodes",)).fetchone() in (None, (None,)):
                print(
                    "thousand-cluster: no cluster in this database (no node ever started on it)",
                    file=sys.stderr,
                )
                return 2
            if args.command == "rebalancing":
                set_rebalancing(db, pause=args.switch == "pause")
                print(f"rebalancing {'paused' if args.switch == 'pause' else 'on'} on every node")
            else:
                print(status(db))
    except psycopg.Error as error:
        print(f"thousand-cluster: the database cannot be reached: {error}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
