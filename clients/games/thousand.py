"""Thousand (``../shared/rules/thousand.md``) for the clients: its description (:mod:`games.thousand`) and
its view tracker (:mod:`clients.tracker.thousand`)."""

from __future__ import annotations

from typing import Final

import engine
import games
from clients.games.entry import ClientGame
from clients.tracker.thousand import ViewTracker

THOUSAND: Final[ClientGame[engine.Rules, engine.View, engine.Action, engine.Event]] = ClientGame(
    description=games.THOUSAND, tracker=ViewTracker
)
