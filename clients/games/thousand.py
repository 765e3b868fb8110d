"""Thousand (``../shared/rules/thousand.md``) for the clients: :mod:`engine`, :mod:`codec.thousand`,
:mod:`clients.tracker.thousand`."""

from __future__ import annotations

from typing import Final, get_args

import engine
from clients.games.entry import ClientGame
from clients.tracker.thousand import ViewTracker
from codec import thousand as codec
from engine import verify
from engine.events import GameOver
from thousand.v1 import table_service_pb2 as pb

THOUSAND: Final[ClientGame[engine.Rules, engine.View, engine.Action, engine.Event]] = ClientGame(
    kind=pb.GAME_KIND_THOUSAND,
    name="thousand",
    title="Thousand",
    codec=codec,
    rules_type=engine.Rules,
    action_types=get_args(engine.Action),
    game_over=GameOver,
    tracker=ViewTracker,
    deals=verify.THOUSAND,
)
