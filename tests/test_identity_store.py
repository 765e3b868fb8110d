"""The players' store, in both kinds (a SQLite file, a PostgreSQL database): players, bans and the audit
log, players' seats and private tables; its schema beside the tables' and migrated on its own."""

from __future__ import annotations

import sqlite3
import time
from collections.abc import Iterator

import psycopg
import pytest

from server.identity.store import SCHEMA_KEY, PlayerStore
from server.identity.stores import open_player_store
from server.identity.values import AuditEntry, Ban, Outcome, PlayerKind, PlayerSeat, Privacy, SeatResult
from server.store_select import is_postgres, open_store


def schema_version(db: str) -> str:
    if is_postgres(db):
        with psycopg.connect(db) as connection:
            row = connection.execute(
                "SELECT value FROM thousand.meta WHERE key = %s", (SCHEMA_KEY,)
            ).fetchone()
    else:
        with sqlite3.connect(db) as connection:
            row = connection.execute("SELECT value FROM meta WHERE key = ?", (SCHEMA_KEY,)).fetchone()
    assert row is not None
    return str(row[0])


def test_players_live_beside_the_tables_with_a_schema_of_their_own(db: str) -> None:
    tables = open_store(db)  # the tables' store first, as the server opens them
    players = open_player_store(db)
    try:
        assert schema_version(db) == "2"  # 2: bots (their owners)
        guest = players.create_guest("ann", "uk", b"h" * 32)
        assert tables.count() == 0
    finally:
        players.close()
        tables.close()
    again = open_player_store(db)  # a restart: nothing migrated twice, nothing lost
    try:
        assert again.player(guest.player_id) == guest
    finally:
        again.close()


def test_a_newer_players_schema_is_refused(db: str) -> None:
    open_player_store(db).close()
    if is_postgres(db):
        with psycopg.connect(db, autocommit=True) as connection:
            connection.execute("UPDATE thousand.meta SET value = '99' WHERE key = %s", (SCHEMA_KEY,))
    else:
        with sqlite3.connect(db) as connection:
            connection.execute("UPDATE meta SET value = '99' WHERE key = ?", (SCHEMA_KEY,))
    with pytest.raises(RuntimeError, match="players schema 99"):
        open_player_store(db)


@pytest.fixture
def players(db: str) -> Iterator[PlayerStore]:
    store = open_player_store(db)
    yield store
    store.close()


def test_guests_by_token_hash_and_oidc_players_by_issuer_and_subject(players: PlayerStore) -> None:
    guest = players.create_guest("ann", "", b"a" * 32)
    assert players.player_by_token(b"a" * 32) == guest
    assert players.player_by_token(b"b" * 32) is None
    assert guest.kind is PlayerKind.GUEST and guest.issuer == "" and guest.subject == ""
    first = players.player_for_subject("https://id.example", "u1", "Bob")
    assert players.player_for_subject("https://id.example", "u1", "Other name") == first  # created once
    assert players.player_for_subject("https://other.example", "u1", "Bob") != first  # keyed by both
    assert players.players_by_subject("https://id.example", "u1") == [first]
    assert players.players_by_subject("", guest.player_id) == []  # a guest is no OIDC subject
    updated = players.update_player(first.player_id, None, "pl")
    assert updated is not None and updated.display_name == "Bob" and updated.locale == "pl"
    assert players.update_player("nobody", "x", None) is None
    assert set(players.players([guest.player_id, first.player_id, "nobody"])) == {
        guest.player_id,
        first.player_id,
    }


def test_a_ban_is_audited_in_the_same_transaction_and_an_expired_ban_is_none(players: PlayerStore) -> None:
    player = players.create_guest("ann", "", b"a" * 32)
    players.ban(
        Ban(player.player_id, "cheating", "token", time.time()),
        AuditEntry("token", "BanPlayer", "cheating", player_id=player.player_id),
    )
    ban = players.ban_of(player.player_id)
    assert ban is not None and ban.reason == "cheating" and ban.expire_time is None
    players.ban(
        Ban(player.player_id, "short", "token", time.time() - 10, time.time() - 1),
        AuditEntry("token", "BanPlayer", "short", player_id=player.player_id),
    )
    assert players.ban_of(player.player_id) is None  # replaced by one that has ended
    players.unban(player.player_id, AuditEntry("token", "UnbanPlayer", "appeal", player_id=player.player_id))
    players.audit(AuditEntry("iss#op", "CloseTable", "spam", table_id="t1"))
    entries = players.audit_entries(10)
    assert [e.action for e in entries] == ["CloseTable", "UnbanPlayer", "BanPlayer", "BanPlayer"]
    assert [e.action for e in players.audit_entries(10, player_id=player.player_id)] == [
        "UnbanPlayer",
        "BanPlayer",
        "BanPlayer",
    ]
    assert [e.reason for e in players.audit_entries(10, table_id="t1")] == ["spam"]
    assert [e.reason for e in players.audit_entries(2, before=entries[1].entry_id)] == ["short", "cheating"]


def test_a_seat_belongs_to_its_first_player_and_pages_come_newest_first(players: PlayerStore) -> None:
    ann = players.create_guest("ann", "", b"a" * 32)
    bob = players.create_guest("bob", "", b"b" * 32)
    seats = [
        PlayerSeat(ann.player_id, f"t{i}", i % 3, bytes([i]) * 32, 1000.0 + i, "thousand") for i in range(5)
    ]
    for seat in seats:
        assert players.add_seat(seat) == (ann.player_id, True)
    assert players.add_seat(seats[0]) == (ann.player_id, False)  # a retry
    stolen = PlayerSeat(bob.player_id, "t0", 0, seats[0].token_hash, 2000.0, "thousand")
    assert players.add_seat(stolen) == (ann.player_id, False)
    first = players.seats(ann.player_id, 2)
    assert [s.table_id for s in first] == ["t4", "t3"]
    last = first[-1]
    rest = players.seats(ann.player_id, 10, (last.join_time, last.table_id, last.seat))
    assert [s.table_id for s in rest] == ["t2", "t1", "t0"]
    assert players.seats(bob.player_id, 10) == []
    players.set_result(seats[2], "thousand", SeatResult(Outcome.WON, 1010, 1))
    kept = next(s for s in players.seats(ann.player_id, 10) if s.table_id == "t2")
    assert kept.result == SeatResult(Outcome.WON, 1010, 1)
    assert players.seats_at(["t1", "t9"], ann.player_id) == {"t1"}


def test_a_seats_owner_is_found_by_table_and_token_hash(players: PlayerStore) -> None:
    ann = players.create_guest("ann", "", b"a" * 32)
    players.add_seat(PlayerSeat(ann.player_id, "t1", 0, b"s" * 32, 1000.0, "thousand"))
    assert players.seat_owner("t1", b"s" * 32) == ann.player_id
    assert players.seat_owner("t2", b"s" * 32) is None  # the same token at another table is no seat of hers
    assert players.seat_owner("t1", b"x" * 32) is None


def test_a_private_table_keeps_its_invite_hash_and_reservations(players: PlayerStore) -> None:
    privacy = Privacy(
        "t1", unlisted=True, invite_hash=b"i" * 32, reservations={0: "p1", 2: "p2"}, creator="p0"
    )
    players.put_privacy(privacy)
    players.put_privacy(Privacy("t1"))  # a retry of the creation never changes it
    assert players.privacy(["t1", "t2"]) == {"t1": privacy}
    assert players.privacy([]) == {}
