"""``thousand-bot`` as a bot author meets it: their own class from their own file, a table of the server's
bots and theirs without ``buf curl``, every seat named in the standings, a match of players that never win
stopped after a number of deals (it ran silently for ever), and THOUSAND_SERVER honoured."""

from __future__ import annotations

from pathlib import Path

import grpc
import pytest

from bots.loading import BotLoadError, load_bot
from bots.strategy import StrategyOptions
from clients.bots.cli import main
from tests.live_server import live_server
from thousand.v1 import table_service_pb2 as pb
from thousand.v1 import table_service_pb2_grpc as pb_grpc

MY_BOT = """
import random

class Discarder:
    \"\"\"A 1000 Blagogo bot of the author's own: the draw, else the first meld offered, else a discard.\"\"\"

    def choose(self, view, actions, rng: random.Random):
        melds = [a for a in actions if type(a).__name__ == "LayMelds"]
        discards = [a for a in actions if type(a).__name__ == "Discard"]
        return (melds or discards or list(actions))[0]
"""


def test_an_authors_bot_from_its_own_file_plays_the_servers_bots(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    bot = tmp_path / "mybot.py"
    bot.write_text(MY_BOT)
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "state"))
    # The server's own default pace (a second a bot move where an open seat is) is for people; the open
    # seat of the table `play` creates is a bot's, so its bots move at once (a game took half an hour).
    with live_server(tmp_path, ":memory:", "--bot-pace", "1") as server:
        code = main(
            [
                "play", "--server", server.address, "--game", "blagogo", "--strategy", f"{bot}:Discarder",
                "--against", "random,random", "--target", "60", "--turnover-limit", "1", "--seed", "3",
            ]
        )  # fmt: skip
        captured = capsys.readouterr()
        table_id = captured.err.split("table ", 1)[1].split(":", 1)[0]
        with grpc.insecure_channel(server.address) as channel:
            table = pb_grpc.TableServiceStub(channel).GetTable(pb.GetTableRequest(table_id=table_id)).table
    assert code == 0, captured.err
    assert not table.HasField("time_control"), table.time_control  # no clock, no pace
    assert "your bot against random, random (watch it: thousand watch " in captured.err
    assert "Discarder sits in seat 0 of table " in captured.err
    lines = captured.out.splitlines()
    assert lines[0] == "Final standings:"
    assert {line.split(": ")[0].split(". ", 1)[1] for line in lines[1:]} == {
        "seat 0 Discarder",
        "seat 1 random (server bot)",
        "seat 2 random (server bot)",
    }


def test_a_match_that_nobody_wins_stops_after_its_deals_and_says_how_it_went(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    with live_server(tmp_path) as server:
        monkeypatch.setenv("THOUSAND_SERVER", server.address)  # no --server: the environment's
        code = main(["match", "--strategies", "random,random,random", "--seed", "1", "--max-deals", "4"])
    captured = capsys.readouterr()
    assert code == 1
    assert "after 1 deal: random " in captured.err  # progress as it goes
    out = captured.out.splitlines()
    assert out[0] == "The game did not finish: stopped after 4 deals (--max-deals 4)."
    assert len(out) == 4 and all(line.startswith(f"  seat {i} random: ") for i, line in enumerate(out[1:]))


def test_a_bot_that_cannot_be_loaded_says_why(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    options = StrategyOptions()
    with pytest.raises(BotLoadError, match="no bot file"):
        load_bot(f"{tmp_path}/absent.py:Bot", options)
    broken = tmp_path / "broken.py"
    broken.write_text("def oops(:\n")
    with pytest.raises(BotLoadError, match="failed to load: SyntaxError"):
        load_bot(f"{broken}:Bot", options)
    two = tmp_path / "two.py"
    two.write_text("class Thinker:\n    def choose(self, view, rng): ...\n\nclass Mute:\n    pass\n")
    with pytest.raises(BotLoadError, match=r"has no class Bot \(classes with choose there: Thinker\)"):
        load_bot(f"{two}:Bot", options)
    with pytest.raises(BotLoadError, match=r"Mute of .* has no choose method"):
        load_bot(f"{two}:Mute", options)
    thinker = load_bot(f"{two}:Thinker", options)
    assert thinker.name == "Thinker"
    assert load_bot("clients.bots.example:CautiousBot", options).name == "example"
    assert main(["play", "--table", "t", "--strategy", f"{two}:Mute", "--server", "127.0.0.1:1"]) == 2
    assert "has no choose method" in capsys.readouterr().err
