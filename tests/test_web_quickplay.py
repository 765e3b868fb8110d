"""Quick play, the leaderboard and the profile in the web client (issue 26), in Chromium:
clients/web/test/browser/quickplay.test.ts against a real ``thousand-server --web-port`` of its own.

Before the browsers come, twelve guests play six rated 2-player games to their end (the bot SDK plays
their seats), so that the people's pool of 2-player Thousand has a leaderboard of two pages, and the
terminal client ``thousand play`` (a real subprocess, line mode) waits in the queue for 3-player Thousand.
Then "Play now" in two browser contexts must seat both of them at the terminal player's table: the
terminal's own output names the same table. The screenshots go to ``artifacts/web/``.
"""

from __future__ import annotations

import asyncio
import os
import re
import subprocess
import time
from pathlib import Path

from grpc import aio

from scripts.ports import free_port
from tests.ratings_harness import finished, guests, play_as, rated_request
from tests.test_cli_plain import command
from tests.test_web_client import CHROMIUM, run_node_test, web_server
from tests.web_build import WEB
from thousand.v1 import table_service_pb2_grpc as table_grpc

TERMINAL = "Terminal"
RATED_GAMES = 6


async def rated_games(address: str) -> list[str]:
    """RATED_GAMES rated 2-player games, each between two new guests, played to their end: their tables."""
    people = await guests(address, *(f"Rated {i:02}" for i in range(2 * RATED_GAMES)))
    async with aio.insecure_channel(address) as channel:
        stub = table_grpc.TableServiceStub(channel)
        table_ids = []
        for _ in range(RATED_GAMES):
            table_ids.append((await stub.CreateTable(rated_request(2))).table.table_id)

        async def play(i: int) -> None:
            tokens = [people[2 * i].player_token, people[2 * i + 1].player_token]
            await play_as(address, table_ids[i], tokens)
            await finished(stub, table_ids[i])

        await asyncio.gather(*(play(i) for i in range(RATED_GAMES)))
    return table_ids


def read_until(process: subprocess.Popen[str], pattern: str, timeout: float) -> re.Match[str]:
    """The terminal client's output, line by line, until a line matches ``pattern``."""
    assert process.stdout is not None
    deadline = time.monotonic() + timeout
    seen: list[str] = []
    while time.monotonic() < deadline:
        line = process.stdout.readline()
        if not line:
            break
        seen.append(line.rstrip("\n"))
        if found := re.search(pattern, line):
            return found
    raise AssertionError(f"the terminal client never said {pattern!r}:\n" + "\n".join(seen[-30:]))


def test_quick_play_leaderboard_and_profile_in_chromium(tmp_path: Path) -> None:
    assert Path(CHROMIUM).exists(), f"no Chromium at {CHROMIUM}: apt-get install chromium"
    port = free_port()
    with web_server(tmp_path, port, "--max-tables-per-client", "0", "--rating-min-games", "1") as server:
        table_ids = asyncio.run(rated_games(server.address))
        env = {**os.environ, "PYTHONUNBUFFERED": "1", "XDG_STATE_HOME": str(tmp_path / "state")}
        argv = ["play", "--plain", "--server", server.address, "--players", "3", "--wait", "300"]
        terminal = subprocess.Popen(
            [*command(), *argv, "--name", TERMINAL],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
            env=env,
        )
        try:
            read_until(terminal, r"^Waiting: 1 of 3 players here", timeout=30)
            out = tmp_path / "table.txt"
            run_node_test(
                WEB / "build" / "test" / "browser" / "quickplay.test.mjs",
                f"http://127.0.0.1:{port}",
                timeout=600,
                env={"TERMINAL_NAME": TERMINAL, "RATED_TABLE": table_ids[0], "QUICKPLAY_OUT": str(out)},
            )
            found = read_until(terminal, r"^Found! You sit in seat \d of table (\w+)\.$", timeout=30)
            assert found.group(1) == out.read_text(), "the terminal player sits at the browsers' table"
        finally:
            terminal.kill()
            terminal.wait(timeout=10)
