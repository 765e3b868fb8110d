"""``thousand play``: the terminal client finds people to play with (quick play) and plays the seat it is
given, in the line mode (pipes) and in the full-screen UI (a real terminal: tmux)."""

from __future__ import annotations

import asyncio
import os
import re
import shutil
import subprocess
import time
from pathlib import Path

import pytest

from tests.cli_harness import run, serving
from tests.identity_harness import ADMIN_TOKEN, Served, bearer, served
from tests.test_cli_plain import command, converse
from thousand.v1 import admin_service_pb2 as admin_pb


def test_play_with_bots_allowed_seats_a_lone_player_after_the_wait(tmp_path: Path) -> None:
    """T-1: three seats; a lone player who allows bots sits with two after the wait, plays, and ``thousand
    join TABLE`` takes them back to the kept seat."""

    async def scenario() -> tuple[list[str], list[str]]:
        async with serving() as address:
            argv = ["play", "--plain", "--server", address, "--bots", "--wait", "1", "--name", "Ann"]
            code, lines = await converse(argv, [], answers=3, state=tmp_path)
            assert code != 0  # its input ended mid-game: the seat is kept
            found = next(line for line in lines if line.startswith("Found!"))
            table_id = re.search(r"table (\w+)\.", found)
            assert table_id is not None
            _, again = await converse(
                ["join", table_id.group(1), "--plain", "--server", address], [], answers=1, state=tmp_path
            )
            return lines, again

    lines, again = run(scenario())
    text = "\n".join(lines)
    assert lines[0] == "Looking for a game of Thousand for 3 players…"
    assert re.search(r"^Waiting: 1 of 3 players here, \d+ secs? so far", text, re.MULTILINE)
    assert re.search(r"^Found! You sit in seat \d of table \w+\.$", text, re.MULTILINE)
    assert "2 bots of the server fill the empty seats." in text
    assert re.search(r"Ann \(seat \d\) is dealt 7 cards: ", text)
    assert again[0].startswith("You are back in seat ")


async def until_dealt(argv: list[str], state: Path) -> list[str]:
    """Run the command until it shows its own hand dealt (it sits and plays), then stop it (by its pid)."""
    env = {**os.environ, "PYTHONUNBUFFERED": "1", "XDG_STATE_HOME": str(state)}
    process = await asyncio.create_subprocess_exec(
        *command(), *argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env
    )
    assert process.stdout is not None
    lines: list[str] = []
    try:
        while raw := await asyncio.wait_for(process.stdout.readline(), timeout=60):
            lines.append(raw.decode().rstrip("\n"))
            if re.search(r"\(seat \d\) is dealt \d+ cards: ", lines[-1]):
                return lines
        raise AssertionError(lines)
    finally:
        if process.returncode is None:
            process.kill()
            await process.wait()


def test_two_terminal_clients_asking_for_a_two_player_game_meet(tmp_path: Path) -> None:
    """T-1 (two players): two ``thousand play --players 2`` without bots sit at one table, each its seat,
    and each sees its own hand dealt."""

    async def scenario() -> list[list[str]]:
        async with serving() as address:
            plays = [
                until_dealt(
                    ["play", "--plain", "--server", address, "--players", "2", "--name", name],
                    tmp_path / name,
                )
                for name in ("Ann", "Bob")
            ]
            return list(await asyncio.gather(*plays))

    outputs = run(scenario())
    found = [
        re.search(r"^Found! You sit in seat (\d) of table (\w+)\.$", "\n".join(o), re.MULTILINE)
        for o in outputs
    ]
    seats = [(f.group(1), f.group(2)) for f in found if f is not None]
    assert len(seats) == 2
    assert len({table for _, table in seats}) == 1
    assert sorted(seat for seat, _ in seats) == [
        "1",
        "2",
    ]  # seats counted from 1, as the terminal client counts them
    assert all("bots of the server" not in "\n".join(o) for o in outputs)
    assert any("Ann (seat" in line and "is dealt" in line for line in outputs[0])
    assert any("Bob (seat" in line and "is dealt" in line for line in outputs[1])


@pytest.mark.skipif(shutil.which("tmux") is None, reason="needs tmux")
def test_play_in_the_full_screen_ui_in_tmux(tmp_path: Path) -> None:
    """The full-screen client, in a real terminal: it waits, is seated with bots, and shows the table."""
    socket = str(tmp_path / "tmux.sock")

    def tmux(*args: str) -> str:
        return subprocess.run(
            ["tmux", "-S", socket, *args], check=True, capture_output=True, text=True, timeout=20
        ).stdout

    async def scenario() -> str:
        async with serving() as address:
            env = f"XDG_STATE_HOME={tmp_path} TERM=xterm-256color"
            line = " ".join(
                [*command(), "play", "--server", address, "--bots", "--wait", "1", "--name", "Ann"]
            )
            await asyncio.to_thread(
                tmux, "new-session", "-d", "-x", "140", "-y", "45", f"env {env} {line}; sleep 30"
            )
            try:
                deadline = time.monotonic() + 60
                screen = ""
                while time.monotonic() < deadline:
                    screen = await asyncio.to_thread(tmux, "capture-pane", "-p")
                    if "Ann" in screen and "greedy" in screen:
                        return screen
                    await asyncio.sleep(0.5)
                raise AssertionError(f"the table never showed:\n{screen}")
            finally:
                subprocess.run(["tmux", "-S", socket, "kill-server"], check=False, timeout=20)

    screen = run(scenario())
    assert "Ann" in screen
    (tmp_path / "screen.txt").write_text(screen, encoding="utf-8")
    assert os.path.exists(tmp_path / "thousand" / "seats.json")


def test_thousand_rematch_seats_both_players_again_and_decline_ends_it(tmp_path: Path) -> None:
    """Two players met by ``thousand play --players 2``; their table closed (finished); ``thousand rematch
    TABLE`` from both sits them at a new table; a second rematch declined by one ends the other's wait."""

    async def scenario() -> None:
        async with served(tmp_path) as s:
            address = f"127.0.0.1:{s.server.port}"
            names = ("Ann", "Bob")

            def argv(*words: str) -> list[str]:
                return [*words, "--plain", "--server", address]

            first = await asyncio.gather(
                *(until_dealt(argv("play", "--players", "2", "--name", n), tmp_path / n) for n in names)
            )
            table = table_of(first[0])
            await close(s, table)
            again = await asyncio.gather(*(until_dealt(argv("rematch", table), tmp_path / n) for n in names))
            new_table = table_of(again[0])
            assert new_table != table and table_of(again[1]) == new_table
            await close(s, new_table)
            waiting = asyncio.create_task(until_ended(argv("rematch", new_table), tmp_path / "Ann"))
            await asyncio.sleep(1.0)
            declined = await until_ended(argv("rematch", new_table, "--decline"), tmp_path / "Bob")
            assert declined[0] == (0, f"You declined the rematch of table {new_table}.")
            (code, first_line), err = await waiting
            assert first_line == "Rematch: 1 of 2 players accepted…"
            assert code == 1 and "[REMATCH_DECLINED]" in err

    run(scenario())


def table_of(lines: list[str]) -> str:
    found = next(re.search(r"of table (\w+)\.$", line) for line in lines if line.startswith("Found!"))
    assert found is not None
    return found.group(1)


async def close(s: Served, table_id: str) -> None:
    await s.admin.CloseTable(
        admin_pb.CloseTableRequest(table_id=table_id, reason="the test ends it"), metadata=bearer(ADMIN_TOKEN)
    )


async def until_ended(argv: list[str], state: Path) -> tuple[tuple[int, str], str]:
    """Run the command to its end: (its exit status, its first line), and its standard error."""
    env = {**os.environ, "PYTHONUNBUFFERED": "1", "XDG_STATE_HOME": str(state)}
    process = await asyncio.create_subprocess_exec(
        *command(), *argv, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env
    )
    out, err = await asyncio.wait_for(process.communicate(), 60)
    first = out.decode().splitlines()[0] if out else ""
    return (process.returncode or 0, first), err.decode()
