"""1000 Blagogo (``../shared/rules/blagogo.md``): :mod:`engine.blagogo`, :mod:`codec.blagogo`,
:mod:`bots.blagogo`."""

from __future__ import annotations

from typing import Final, get_args

from bots.blagogo import BLAGOGO as BLAGOGO_BOTS
from codec import blagogo as codec
from engine import blagogo
from engine.blagogo.events import GameOver
from engine.blagogo.verify import BLAGOGO as BLAGOGO_DEALS
from engine.seeds import FairDeals
from games.description import GameDescription
from thousand.v1 import table_service_pb2 as pb


def _new_game(
    rules: blagogo.BlagogoRules, seed: int, first_dealer: int | None, fair: FairDeals | None
) -> blagogo.Game:
    return blagogo.Game(rules, seed, first_dealer, fair=fair)


BLAGOGO: Final = GameDescription(
    kind=pb.GAME_KIND_BLAGOGO,
    name="blagogo",
    title="1000 Blagogo",
    rules_type=blagogo.BlagogoRules,
    default_rules=lambda players: blagogo.BlagogoRules(players=players),
    new_game=_new_game,
    action_types=get_args(blagogo.Action),
    game_over=GameOver,
    codec=codec,
    deals=BLAGOGO_DEALS,
    strategies=BLAGOGO_BOTS,
    takeover_strategy="random",
)
