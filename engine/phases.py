"""A deal's phases and the auction's fixed numbers, shared by the deal and the explanation of its rejections.

They live apart from :mod:`engine.deal` so that :mod:`engine.rejections`, which the deal asks why an action
was refused, needs nothing from the deal's module: the two import one way only.
"""

from __future__ import annotations

from enum import Enum
from typing import Final

OPENING_BID: Final = 100
DARK_BID: Final = 120
GOLDEN_CONTRACT: Final = 120
OBLIGATORY_CONTRACT: Final = 121
"""T-28: the obligatory game is won with at least 121 points."""
CONTRACT_STEP: Final = 5


class Phase(Enum):
    DARK = "dark"
    AUCTION = "auction"
    TALON_CHOICE = "talon_choice"
    EXCHANGE = "exchange"
    CONTRACT = "contract"
    PLAY = "play"
    OVER = "over"
