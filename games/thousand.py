"""Thousand (``../shared/rules/thousand.md``): :mod:`engine`, :mod:`codec.thousand`, :mod:`bots.registry`."""

from __future__ import annotations

from typing import Final, get_args

import engine
from bots.registry import THOUSAND as THOUSAND_BOTS
from codec import thousand as codec
from engine.events import GameOver
from engine.seeds import FairDeals
from engine.verify import THOUSAND as THOUSAND_DEALS
from games.description import GameDescription
from thousand.v1 import table_service_pb2 as pb


def _new_game(
    rules: engine.Rules, seed: int, first_dealer: int | None, fair: FairDeals | None
) -> engine.Game:
    return engine.Game(rules, seed, first_dealer, fair=fair)


THOUSAND: Final = GameDescription(
    kind=pb.GAME_KIND_THOUSAND,
    name="thousand",
    title="Thousand",
    rules_type=engine.Rules,
    default_rules=lambda players: engine.Rules(players=players),
    new_game=_new_game,
    action_types=get_args(engine.Action),
    game_over=GameOver,
    codec=codec,
    deals=THOUSAND_DEALS,
    strategies=THOUSAND_BOTS,
    takeover_strategy="greedy",
)
