"""One description per game (issue 24), registered once in ``games.GAMES``: every layer's game is that one.

The server's adapters and the clients' entries are the registered games, in the same order, each naming the
very description object; the ``games`` package imports only what sits below it (the engine, the codec, the
bots and the generated contract), so that the server and the clients can both import it.
"""

from __future__ import annotations

from pathlib import Path

import clients.games
import games
import server.games
from tests.test_engine_imports import ROOT, imports
from thousand.v1 import table_service_pb2 as pb

BELOW_GAMES = ("engine", "codec", "bots", "thousand", "games")
"""What ``games`` may import of the project's packages."""
ABOVE_GAMES = ("server", "clients", "tests", "bench", "scripts")


def test_the_server_and_the_clients_play_the_registered_games_by_their_one_description() -> None:
    assert [a.description for a in server.games.ADAPTERS] == list(games.GAMES)
    assert [g.description for g in clients.games.GAMES] == list(games.GAMES)
    for game, adapter, entry in zip(games.GAMES, server.games.ADAPTERS, clients.games.GAMES, strict=True):
        assert (adapter.kind, adapter.name, adapter.title) == (game.kind, game.name, game.title)
        assert (entry.kind, entry.name, entry.title) == (game.kind, game.name, game.title)
        assert adapter.strategy_names() == game.strategies.names()
        assert adapter.rules_type is entry.rules_type is game.rules_type
        rules = game.default_rules(3)
        assert game.players(rules) == 3
        assert adapter.rules_from_bytes(adapter.rules_to_bytes(rules)) == rules
        assert entry.rules_of(_table(adapter.rules_to_proto(rules), game.kind)) == rules
    assert games.game_named("blagogo") is games.BLAGOGO


def _table(rules: pb.Rules, kind: pb.GameKind.ValueType) -> pb.Table:
    return pb.Table(table_id="t", game=kind, rules=rules)


def test_the_games_package_imports_only_what_sits_below_it() -> None:
    for path in Path(ROOT / "games").rglob("*.py"):
        project = {"server", "clients", "tests", "bench", "scripts", *BELOW_GAMES}
        above = {
            m for m in imports(path) if m.split(".")[0] in project and m.split(".")[0] not in BELOW_GAMES
        }
        assert not above, f"{path.relative_to(ROOT)} imports {sorted(above)}"
