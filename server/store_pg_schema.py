"""The PostgreSQL store's schema (:mod:`server.store_pg`): its migrations, in order, each applied once by
whichever node starts first on a database of an older version (additive changes only: the nodes still
running the version before keep working beside it)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Final

from server.ratings.schema import ratings_schema

MIGRATIONS: Final[Sequence[str]] = (
    # 1: tables, their records, the nodes of the cluster and the history of table ownership.
    """
    CREATE TABLE thousand.nodes (
        node_id TEXT PRIMARY KEY,
        generation BIGINT NOT NULL,
        endpoint TEXT NOT NULL,
        web_endpoint TEXT NOT NULL DEFAULT '',
        lock_key INTEGER NOT NULL UNIQUE,
        lease_seconds DOUBLE PRECISION NOT NULL,
        heartbeat TIMESTAMPTZ NOT NULL,
        started TIMESTAMPTZ NOT NULL,
        state TEXT NOT NULL
    );
    CREATE SEQUENCE thousand.table_serial;
    CREATE SEQUENCE thousand.node_lock_key;
    CREATE TABLE thousand.tables (
        table_id TEXT PRIMARY KEY,
        serial BIGINT NOT NULL UNIQUE,
        create_time DOUBLE PRECISION NOT NULL,
        config TEXT NOT NULL,
        finished BOOLEAN NOT NULL DEFAULT FALSE,
        finish_time DOUBLE PRECISION,
        expire_time DOUBLE PRECISION,
        owner TEXT,
        epoch BIGINT NOT NULL DEFAULT 1,
        next_number BIGINT NOT NULL DEFAULT 0,
        game TEXT NOT NULL DEFAULT '',
        open_seats INTEGER NOT NULL DEFAULT 0,
        summary BYTEA
    );
    CREATE INDEX tables_owner ON thousand.tables (owner) WHERE NOT finished AND expire_time IS NULL;
    CREATE TABLE thousand.records (
        table_id TEXT NOT NULL REFERENCES thousand.tables (table_id),
        number BIGINT NOT NULL,
        kind TEXT NOT NULL,
        seat INTEGER NOT NULL,
        text TEXT NOT NULL,
        data BYTEA,
        PRIMARY KEY (table_id, number)
    );
    CREATE TABLE thousand.claims (
        table_id TEXT NOT NULL,
        epoch BIGINT NOT NULL,
        node_id TEXT NOT NULL,
        generation BIGINT NOT NULL,
        reason TEXT NOT NULL,
        claimed TIMESTAMPTZ NOT NULL DEFAULT now(),
        PRIMARY KEY (table_id, epoch)
    );
    CREATE FUNCTION thousand.append_records(
        p_table TEXT, p_epoch BIGINT, p_first BIGINT,
        p_kinds TEXT[], p_seats INTEGER[], p_texts TEXT[], p_datas BYTEA[]
    ) RETURNS VOID LANGUAGE plpgsql AS $$
    DECLARE
        held_epoch BIGINT;
        held_next BIGINT;
    BEGIN
        UPDATE thousand.tables SET next_number = next_number + cardinality(p_kinds)
            WHERE table_id = p_table AND epoch = p_epoch AND next_number = p_first;
        IF NOT FOUND THEN
            SELECT epoch, next_number INTO held_epoch, held_next
                FROM thousand.tables WHERE table_id = p_table;
            RAISE EXCEPTION USING ERRCODE = 'TF001', MESSAGE = format(
                'table %s is held at epoch %s with %s records; this node wrote at epoch %s after %s',
                p_table, held_epoch, held_next, p_epoch, p_first);
        END IF;
        INSERT INTO thousand.records (table_id, number, kind, seat, text, data)
            SELECT p_table, p_first + r.n - 1, r.kind, r.seat, r.text, r.data
            FROM unnest(p_kinds, p_seats, p_texts, p_datas) WITH ORDINALITY AS r (kind, seat, text, data, n);
    END $$;
    """,
    # 2: CreateTable's request_id, so that its retry on another node finds the table (not unique: a client
    # may reuse one after the window).
    """
    ALTER TABLE thousand.tables ADD COLUMN request_id TEXT;
    CREATE INDEX tables_request ON thousand.tables (request_id) WHERE request_id IS NOT NULL;
    """,
    # 3: who created each table and whether bots only play it, so that the node a client asks counts the
    # client's tables on every node against its quotas (server.quotas).
    """
    ALTER TABLE thousand.tables ADD COLUMN creator TEXT NOT NULL DEFAULT '';
    ALTER TABLE thousand.tables ADD COLUMN bots_only BOOLEAN NOT NULL DEFAULT FALSE;
    CREATE INDEX tables_creator ON thousand.tables (creator) WHERE NOT finished AND expire_time IS NULL;
    """,
    # 4: ratings (server.ratings): each player's rating per pool, and each rated seat's before and after.
    ratings_schema(prefix="thousand.", real="DOUBLE PRECISION"),
    # 5: when each record was stored (Unix time, the database's clock), so that the node taking a table over
    # goes on with the turn clock of the seat to act instead of starting it afresh. Records stored before
    # have none (their clock starts afresh).
    """
    ALTER TABLE thousand.records ADD COLUMN stored_at DOUBLE PRECISION;
    ALTER TABLE thousand.records ALTER COLUMN stored_at SET DEFAULT extract(epoch FROM clock_timestamp());
    """,
    # 6: each table's latest snapshot (server.snapshots): the state after its first ``records`` records, so
    # that a takeover or a restart replays only the records after it. Older nodes ignore the table.
    """
    CREATE TABLE thousand.snapshots (
        table_id TEXT PRIMARY KEY REFERENCES thousand.tables (table_id),
        records BIGINT NOT NULL,
        fingerprint TEXT NOT NULL,
        checksum BYTEA NOT NULL,
        data BYTEA NOT NULL
    );
    """,
)
