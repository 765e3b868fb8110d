"""The ``thousand`` command as people meet it: the server named before or after the command (and the
environment), a closed pipe, the clocks of ``new``, ``leave``, and the name a rejoin sits down with."""

from __future__ import annotations

import asyncio
import io
import os
import subprocess
from pathlib import Path

import pytest

from clients.cli.main import main
from clients.cli.options import build_parser, connection_from_args
from clients.session import OPEN, TableSession
from engine import Rules
from scripts.ports import free_port
from tests.cli_harness import run, serving
from tests.test_cli_plain import command


def test_the_server_flag_wins_before_or_after_the_command(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("THOUSAND_SERVER", "from-env:1")
    for argv in (["--server", "flag:2", "tables"], ["tables", "--server", "flag:2"]):
        assert connection_from_args(build_parser().parse_args(argv)).address == "flag:2", argv
    assert connection_from_args(build_parser().parse_args(["tables"])).address == "from-env:1"
    both = build_parser().parse_args(["--server", "before:3", "tables", "--server", "after:4"])
    assert connection_from_args(both).address == "after:4"
    monkeypatch.delenv("THOUSAND_SERVER")
    assert connection_from_args(build_parser().parse_args(["tables"])).address == "127.0.0.1:50051"
    tls = build_parser().parse_args(["--tls", "tables", "--tls-ca", "ca.pem"])
    connection = connection_from_args(tls)
    assert connection.tls and connection.ca_file == "ca.pem"


def test_tables_reaches_the_server_named_before_the_command_whatever_the_environment(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("THOUSAND_SERVER", f"127.0.0.1:{free_port()}")  # nothing there

    async def scenario() -> str:
        async with serving() as address:
            out = io.StringIO()
            code = await asyncio.to_thread(main, ["--server", address, "tables"], None, out)
            assert code == 0
            return out.getvalue()

    assert "No tables" in run(scenario())


def test_a_closed_pipe_ends_the_listing_quietly(tmp_path: Path) -> None:
    """``thousand tables | head -1``: the reader has gone before the listing is written (its end of the pipe
    closed first, so the write fails every time); no traceback, exit 0."""

    async def scenario() -> subprocess.CompletedProcess[bytes]:
        async with serving() as address:
            async with TableSession(address) as session:
                for seed in range(3):
                    await session.create_table(Rules(), [OPEN, "greedy", "greedy"], seed=seed, practice=True)
            reader, writer = os.pipe()
            os.close(reader)
            try:
                return await asyncio.to_thread(
                    subprocess.run,
                    [*command(), "tables", "--server", address],
                    stdout=writer,
                    stderr=subprocess.PIPE,
                    timeout=60,
                    check=False,
                    env={**os.environ, "XDG_STATE_HOME": str(tmp_path)},
                )
            finally:
                os.close(writer)

    done = run(scenario())
    assert done.returncode == 0, done.stderr.decode()
    assert b"Traceback" not in done.stderr and b"BrokenPipeError" not in done.stderr


def test_new_takes_a_clock_a_timeout_policy_and_a_bot_pace(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path))

    async def scenario() -> str:
        async with serving() as address:
            argv = [
                "new", "--plain", "--server", address, "--clock", "30", "--time-bank", "60",
                "--on-timeout", "until-back", "--bot-pace", "0.5", "--name", "Ann",
            ]  # fmt: skip
            out = io.StringIO()
            code = await asyncio.to_thread(main, argv, io.StringIO(""), out)
            assert code == 3  # the input ended at the first question: the seat is kept
            said = out.getvalue()
            assert "(Turn clock: 30 seconds a move, plus a bank of 60 seconds for the whole game)" in said
            assert (
                "(When a move's time runs out: the server's bot plays the seat until its player is back)"
                in said
            )
            async with TableSession(address) as session:
                (table,) = await session.list_tables()
            control = table.time_control
            assert control.per_move.seconds == 30 and control.bank.seconds == 60
            assert control.on_timeout == 1  # TIMEOUT_POLICY_BOT_PLAYS
            assert control.bot_pace.nanos == 500_000_000
            listing = io.StringIO()
            await asyncio.to_thread(main, ["tables", "--server", address], None, listing)
            return listing.getvalue()

    assert "clock 30 secs a move" in run(scenario())


def test_leave_gives_the_kept_seat_up_and_a_rejoin_without_a_name_keeps_the_name(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path))
    monkeypatch.delenv("USER", raising=False)
    monkeypatch.delenv("USERNAME", raising=False)

    async def scenario() -> None:
        async with serving() as address, TableSession(address) as lobby:
            table = await lobby.create_table(Rules(), [OPEN, "greedy", "greedy"], seed=1, practice=True)
            quiet = io.StringIO("")
            args = ["--plain", "--server", address]
            assert (
                await asyncio.to_thread(
                    main, ["join", table.table_id, *args, "--name", "Ann"], quiet, io.StringIO()
                )
                == 3
            )
            out = io.StringIO()
            assert (
                await asyncio.to_thread(main, ["leave", table.table_id, "--server", address], None, out) == 0
            )
            assert out.getvalue() == f"You left seat 1 of table {table.table_id}.\n"
            assert (await lobby.get_table(table.table_id)).seats[0].taken is False
            again = io.StringIO()
            code = await asyncio.to_thread(main, ["join", table.table_id, *args], io.StringIO(""), again)
            assert code == 3 and f"You sit in seat 1 of table {table.table_id}." in again.getvalue()
            described = await lobby.get_table(table.table_id)
            assert described.seats[0].player_name == "Ann"  # the name last used, not "player"
            err = io.StringIO()
            assert await asyncio.to_thread(main, ["leave", "nope", "--server", address], None, err) == 1

    run(scenario())


def test_seats_are_typed_as_people_count_them_and_seat_0_is_refused_in_words(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """Issue #28: seats are counted from 1 in the terminal as on the web; ``--seat 1`` is the wire's seat 0,
    and a ``0`` typed from habit is refused with the reason rather than taken for another seat."""
    assert build_parser().parse_args(["join", "T", "--seat", "1"]).seat == 0
    assert build_parser().parse_args(["new", "--first-dealer", "3"]).first_dealer == 2
    for argv in (["join", "T", "--seat", "0"], ["new", "--first-dealer", "0"]):
        with pytest.raises(SystemExit):
            build_parser().parse_args(argv)
        assert "seats are counted from 1: there is no seat 0" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        build_parser().parse_args(["join", "T", "--seat", "first"])
    assert "'first' is not a seat: type its number, 1 for the first" in capsys.readouterr().err
