"""Whole games in duplicate (games.tournament): the same decks deal by deal in every seating, games
won, final scores and points per deal with their intervals, and the command line."""

from __future__ import annotations

import json

import pytest

from bots.strategy import StrategyOptions
from engine import Rules
from engine.events import DealStarted, HandDealt
from games import THOUSAND
from games.tournament import Setup, play, seatings, tournament
from games.tournament import game_deck as deck_of
from games.tournament_cli import main, to_json


def game_deck(seed: int, game: int, deal: int) -> object:
    return deck_of(THOUSAND, seed, game, deal)


def test_every_seating_is_dealt_the_same_decks_deal_by_deal() -> None:
    setup = Setup("thousand", ("heuristic", "greedy"), 3, Rules(), StrategyOptions(), max_units=6)
    hands = []
    for seating in seatings(("heuristic", "greedy"), 3)[:3]:
        game = play(setup, 0, seating).game
        dealt = [e.cards for e in game.events if isinstance(e, HandDealt)]
        hands.append(dealt[:6])  # the first two deals (3 hands each) are dealt before any choice differs
        assert sum(isinstance(e, DealStarted) for e in game.events) >= 6
    assert hands[0] == hands[1] == hands[2]
    assert game_deck(3, 0, 1) == game_deck(3, 0, 1) != game_deck(3, 0, 2) != game_deck(3, 1, 2)


def test_a_stronger_strategy_wins_more_games_with_its_interval() -> None:
    result = tournament(
        "thousand", ["heuristic", "random"], 3, seed=5, progress=None, max_units=60, whole_games=True
    )
    won = result.difference("won", "heuristic", "random")
    assert won.mean > 0 and result.score("won", "random").mean <= 0.2
    assert result.difference("per_deal", "heuristic", "random").mean > 10
    data = to_json(result)
    assert data["sets"] == 3 and set(data) >= {"won", "score", "per_deal", "cut_games"}


def test_the_command_line(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["heuristic", "greedy", "--games", "1", "--max-deals", "8", "--quiet", "--json"]) == 0
    out = capsys.readouterr().out.splitlines()
    assert "games won" in "\n".join(out) and json.loads(out[-1])["sets"] == 1
