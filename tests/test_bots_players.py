"""A bot that plays as a player: ``thousand-bot play --player-token`` (and the SDK's ``player_token``) on a
private table, joined with its invite; the finished game is in the player's history, with its result, from
the Python library and from ``thousand games``."""

from __future__ import annotations

import io
import re
from pathlib import Path

import pytest

from clients.bots.cli import main as bot_main
from clients.cli.main import main as cli_main
from clients.errors import ServerError
from clients.session import TableSession
from tests.cli_harness import run
from tests.live_server import live_server
from tests.players_harness import PrivateTable, guest_private_table, history
from thousand.v1 import player_service_pb2 as player_pb


def test_a_bot_plays_a_private_table_as_a_player_and_the_game_joins_its_history(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "state"))
    with live_server(tmp_path, str(tmp_path / "thousand.db")) as server:

        async def private_table() -> PrivateTable:
            private = await guest_private_table(server.address, "Robo", seed=5)
            async with TableSession(server.address) as stranger:
                with pytest.raises(ServerError) as refused:
                    await stranger.join(private.table_id, name="stranger")
                assert refused.value.reason == "INVITE_INVALID"
                listed = await stranger.list_tables()
                assert private.table_id not in {t.table_id for t in listed}
            return private

        private = run(private_table())
        token, table_id, invite = private.token, private.table_id, private.invite
        argv = ["play", "--server", server.address, "--table", table_id, "--strategy", "greedy"]
        code = bot_main([*argv, "--player-token", token, "--invite", invite, "--seed", "5", "--json"])
        assert code == 0, capsys.readouterr()

        games = run(history(server.address, token))
        assert [game.table_id for game in games] == [table_id]
        assert games[0].result in (player_pb.GAME_RESULT_WON, player_pb.GAME_RESULT_LOST)
        assert games[0].place >= 1 and games[0].seat == 0

        out = io.StringIO()
        assert cli_main(["games", "--server", server.address, "--player-token", token], None, out) == 0
        line = out.getvalue().splitlines()[1]  # under the header
        assert re.search(
            rf"{table_id}\s+Thousand\s+1  (won|lost) \(place {games[0].place}, -?\d+ points\)$", line
        )
