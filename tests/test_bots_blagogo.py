"""1000 Blagogo bots: legal choices from the seat's view (B-22), the local tournament, a match over gRPC."""

from __future__ import annotations

import json
import random
import subprocess
import sys
from pathlib import Path

import pytest

from bots.blagogo import BLAGOGO_STRATEGIES, BlagogoStrategy, make_blagogo_strategy
from bots.registry import STRATEGIES, strategies_for
from clients.bots.cli import main
from engine.blagogo import BlagogoRules, Game, view
from games.tournament import tournament
from games.tournament_cli import to_json
from tests.live_server import live_server

ROOT = Path(__file__).resolve().parent.parent


def last_json(out: str) -> dict[str, object]:
    parsed: dict[str, object] = json.loads(out.strip().splitlines()[-1])
    return parsed


@pytest.mark.parametrize("players", [2, 5, 8])
@pytest.mark.parametrize("name", sorted(BLAGOGO_STRATEGIES))
def test_strategies_always_choose_a_valid_action(players: int, name: str) -> None:
    """B-22: over whole rounds, every choice passes the engine's exact validator; the rounds end."""
    rules = BlagogoRules(players=players, turnover_limit=2)
    decisions = 0
    for seed in range(3):
        game = Game(rules, seed)
        # The strategy under test in every other seat, the other strategy elsewhere: varied tables.
        other = "random" if name != "random" else "heuristic"
        bots: list[BlagogoStrategy] = [
            make_blagogo_strategy(name if s % 2 == 0 else other) for s in range(players)
        ]
        rng = random.Random(seed)
        game.apply_chance()
        rnd = game.round
        assert rnd is not None
        while not rnd.is_over:
            seat = game.to_act
            assert seat is not None
            choices = (*game.legal_actions(), *game.candidate_melds())
            action = bots[seat].choose(view(game, seat), choices, rng)
            game.validate(seat, action)  # raises with the reason if illegal
            assert action in choices
            game.apply(seat, action)
            decisions += 1
            assert decisions < 20_000, "a round did not end"
    assert decisions > 0


def test_registry_by_game() -> None:
    assert strategies_for("thousand") is STRATEGIES
    assert set(strategies_for("blagogo")) == {"random", "heuristic", "planner"}
    with pytest.raises(KeyError):
        strategies_for("skat")


def test_tournament_runs_and_heuristic_beats_random() -> None:
    result = tournament("blagogo", ["heuristic", "random"], 8, seed=1, players=3, progress=None)
    assert len(result.sets) == 8
    assert result.difference("heuristic", "random").mean > 0
    data = to_json(result)["results"]
    assert isinstance(data, dict) and set(data) == {"heuristic", "random"}


def test_tournament_command(capsys: pytest.CaptureFixture[str]) -> None:
    code = main(
        [
            "tournament",
            "--game",
            "blagogo",
            "--strategies",
            "heuristic,random",
            "--rounds",
            "2",
            "--players",
            "8",
            "--seed",
            "4",
            "--quiet",
            "--json",
        ]
    )
    out = capsys.readouterr().out
    assert code == 0
    result = last_json(out)
    assert result["game"] == "blagogo"
    assert result["players"] == 8
    assert "duplicate rounds of 1000 Blagogo, 8 players" in out


def test_match_plays_a_whole_blagogo_game_over_grpc(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    with live_server(tmp_path) as server:
        code = main(
            [
                "match",
                "--game",
                "blagogo",
                "--server",
                server.address,
                "--strategies",
                "heuristic,random,heuristic",
                "--seed",
                "5",
                "--target",
                "60",
                "--turnover-limit",
                "1",
                "--json",
            ]
        )
    out = capsys.readouterr().out
    assert code == 0, out
    result = last_json(out)
    assert result["finished"] is True
    standings = result["standings"]
    assert isinstance(standings, list) and len(standings) == 3
    assert sorted(s["strategy"] for s in standings) == ["heuristic", "heuristic", "random"]


def test_unknown_blagogo_strategy_is_a_usage_error(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as stop:
        main(["play", "--game", "blagogo", "--table", "t", "--strategy", "greedy"])
    assert stop.value.code == 2
    assert "unknown strategy 'greedy'" in capsys.readouterr().err


def test_engine_benchmark_blagogo_prints_rounds_per_s_last() -> None:
    done = subprocess.run(
        [sys.executable, "bench/engine.py", "--game", "blagogo", "--seconds", "0.5", "--players", "5"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    lines = done.stdout.strip().splitlines()
    assert any("1000 Blagogo (5 players)" in line for line in lines)
    result = json.loads(lines[-1])
    assert result["game"] == "blagogo"
    assert result["rounds_per_s"] > 0
