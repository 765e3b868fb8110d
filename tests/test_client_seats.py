"""Seats kept on the user's machine (clients/seats.py): a client that closed or crashed comes back to its seat
with ``join`` (it used to find the table full, the seat lost for good), the file is the user's alone, and a
seat that is someone else's now is forgotten."""

from __future__ import annotations

import asyncio
import os
import stat
from pathlib import Path

import pytest

from clients.seats import KeptSeat, SeatKeeper, state_dir
from clients.session import OPEN, TableSession
from engine import Rules
from tests.cli_harness import run, serving


def test_the_file_lives_in_the_users_state_directory_and_is_theirs_alone(tmp_path: Path) -> None:
    assert state_dir({"XDG_STATE_HOME": str(tmp_path)}) == tmp_path / "thousand"
    assert state_dir({}) == Path.home() / ".local" / "state" / "thousand"
    keeper = SeatKeeper(tmp_path / "state" / "thousand" / "seats.json")
    keeper.keep(KeptSeat("127.0.0.1:1", "t1", 2, "secret-token", "Ann"))
    assert stat.S_IMODE(os.stat(keeper.path).st_mode) == 0o600
    assert stat.S_IMODE(os.stat(keeper.path.parent).st_mode) == 0o700
    found = keeper.find("127.0.0.1:1", "t1")
    assert found is not None and (found.seat, found.token, found.name) == (2, "secret-token", "Ann")
    assert keeper.find("127.0.0.1:2", "t1") is None and keeper.find("127.0.0.1:1", "t1", seat=1) is None
    assert keeper.last_name() == "Ann"
    keeper.forget("127.0.0.1:1", "t1", 2)
    assert keeper.find("127.0.0.1:1", "t1") is None


def test_a_file_it_cannot_read_is_no_seat_kept(tmp_path: Path) -> None:
    path = tmp_path / "seats.json"
    path.write_text("not json")
    assert SeatKeeper(path).find("a", "b") is None
    path.write_text(
        '{"seats": [{"server": "a"}, 3, {"server": "a", "table_id": "b", "seat": 0, "token": "t"}]}'
    )
    kept = SeatKeeper(path).find("a", "b")
    assert kept is not None and kept.token == "t"


def test_a_closed_client_comes_back_to_its_seat_at_a_full_table(tmp_path: Path) -> None:
    keeper = SeatKeeper(tmp_path / "seats.json")

    async def scenario() -> None:
        async with serving() as address:
            async with TableSession(address, keeper=keeper) as first:
                table = await first.create_table(Rules(), [OPEN, "greedy", "greedy"], seed=3, practice=True)
                assert await first.join(table.table_id, name="Ann") == 0
                assert not first.resumed
                token = first.seat_token
            # The terminal closed without a word: the table is full now, and a stranger is turned away.
            async with TableSession(address) as stranger:
                with pytest.raises(Exception, match="no free seat"):
                    await stranger.join(table.table_id)
            async with TableSession(address, keeper=keeper) as back:
                assert await back.join(table.table_id) == 0
                assert back.resumed and back.seat_token == token
                described = await back.get_table()
                assert described.seats[0].player_name == "Ann"  # no name given: the seat's own is kept
                await back.leave()
            assert keeper.find(f"{address}", table.table_id) is None  # given up: nothing to come back to

    run(scenario())


def test_a_kept_seat_someone_else_took_since_is_forgotten_and_a_free_one_taken(tmp_path: Path) -> None:
    keeper = SeatKeeper(tmp_path / "seats.json")

    async def scenario() -> None:
        async with serving() as address:
            async with TableSession(address, keeper=keeper) as ann:
                table = await ann.create_table(Rules(), [OPEN, OPEN, "greedy"], seed=3, practice=True)
                await ann.join(table.table_id, name="Ann")
                async with TableSession(address) as elsewhere:  # the seat given up from another machine
                    elsewhere.attach(table.table_id, 0, ann.seat_token)
                    await elsewhere.leave()
            async with TableSession(address) as bob:
                assert await bob.join(table.table_id, 0, "Bob") == 0
            async with TableSession(address, keeper=keeper) as back:
                assert await back.join(table.table_id, name="Ann") == 1
                assert not back.resumed
            kept = keeper.find(address, table.table_id)
            assert kept is not None and kept.seat == 1

    run(scenario())


def test_two_clients_of_one_user_keep_both_seats(tmp_path: Path) -> None:
    path = tmp_path / "seats.json"

    async def keep(seat: int) -> None:
        await asyncio.to_thread(SeatKeeper(path).keep, KeptSeat("s", "t", seat, f"token{seat}"))

    async def both() -> None:
        await asyncio.gather(*(keep(seat) for seat in range(8)))

    asyncio.run(both())
    assert {SeatKeeper(path).find("s", "t", seat).token for seat in range(8)} == {  # type: ignore[union-attr]
        f"token{seat}" for seat in range(8)
    }
