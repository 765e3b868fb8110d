"""The engine's demonstration game (``make run``): whole games to the end, T-26 and T-32."""

from __future__ import annotations

import pytest

from bots.registry import make_strategy
from bots.selfplay import main, play_game
from engine import Rules


@pytest.mark.parametrize("players", [2, 3, 4])
def test_greedy_players_finish_a_whole_game(players: int) -> None:
    """T-26: a game ends with a winner and every seat ranked; T-32: the bank is settled."""
    lines: list[str] = []
    rules = Rules(players=players, bank=10)
    game = play_game(rules, 2, [make_strategy("greedy") for _ in range(players)], 1000, lines.append)
    assert game.is_over
    assert "Final standings:" in lines
    places = [s.place for s in game.standings]
    assert places == list(range(1, players + 1))
    assert game.standings[0].seat == game.winner
    assert sum(s.payout for s in game.standings) == 0
    assert game.standings[0].payout == 10 and game.standings[-1].payout == -10


def test_selfplay_command_exit_code(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["--seed", "1", "--players", "3"]) == 0
    out = capsys.readouterr().out
    assert out.splitlines()[0].startswith("Thousand, 3 players, seed 1")
    assert "Final standings:" in out
    assert main(["--seed", "1", "--player", "random", "--max-deals", "3"]) == 1
    assert "No winner after 3 deals" in capsys.readouterr().out
