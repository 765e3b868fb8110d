"""clients.games: one entry per game of the contract, found by GameKind, rules type and action type."""

from __future__ import annotations

import pytest

from clients.games import BLAGOGO, GAMES, THOUSAND, encode_action, game_of_action, game_of_kind, game_of_rules
from clients.messages import GAME_CASES
from codec import thousand as codec
from engine import Bid, Rules, blagogo
from engine.events import Passed
from thousand.v1 import table_service_pb2 as pb


def test_every_game_of_the_contract_has_one_entry_named_by_its_case() -> None:
    kinds = {v.number for v in pb.GameKind.DESCRIPTOR.values if v.number != pb.GAME_KIND_UNSPECIFIED}
    assert {game.kind for game in GAMES} == kinds
    assert {game.name for game in GAMES} == GAME_CASES
    for wrapper in (pb.Rules, pb.Action, pb.View):
        assert {f.name for f in wrapper.DESCRIPTOR.oneofs_by_name["game"].fields} == GAME_CASES
    assert {f.name for f in pb.Event.DESCRIPTOR.oneofs_by_name["event"].fields} >= GAME_CASES
    assert all(game_of_kind(game.kind) is game for game in GAMES)


def test_rules_and_actions_name_their_game() -> None:
    assert game_of_rules(Rules()) is THOUSAND and game_of_rules(blagogo.BlagogoRules()) is BLAGOGO
    assert game_of_action(Bid(120)) is THOUSAND and game_of_action(blagogo.DrawFromDeck()) is BLAGOGO
    assert encode_action(Bid(120)) == THOUSAND.encode_action(Bid(120))
    assert encode_action(blagogo.DrawFromDeck()).WhichOneof("game") == "blagogo"
    encoded = THOUSAND.encode_rules(Rules(players=4))
    table = pb.Table(table_id="t", game=pb.GAME_KIND_THOUSAND, rules=encoded)
    assert THOUSAND.rules_of(table) == Rules(players=4)


def test_what_names_no_game_is_refused_with_a_specific_error() -> None:
    with pytest.raises(ValueError, match="does not know"):
        game_of_kind(pb.GAME_KIND_UNSPECIFIED)
    with pytest.raises(TypeError, match="no game's rules"):
        game_of_rules(object())
    with pytest.raises(TypeError, match="no game's action"):
        game_of_action("bid 120")
    with pytest.raises(ValueError, match="a thousand event at a table of 1000 Blagogo"):
        BLAGOGO.decode_event(pb.Event(thousand=codec.event_to_proto(Passed(1))))
