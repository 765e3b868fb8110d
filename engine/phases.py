"""A deal's phases and the auction's fixed numbers, shared by the deal and the explanation of its rejections.

They live apart from :mod:`engine.deal`, :mod:`engine.deal_auction` and :mod:`engine.deal_state` so that
every module of the deal, and :mod:`engine.rejections`, which the deal asks why an action was refused, import
them one way only.
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


# The members as module constants, for the deal's hot path: a module constant is one global load (in the
# compiled engine a static), a member looked up on its Enum class several times that.
DARK_PHASE: Final = Phase.DARK
AUCTION_PHASE: Final = Phase.AUCTION
TALON_CHOICE_PHASE: Final = Phase.TALON_CHOICE
EXCHANGE_PHASE: Final = Phase.EXCHANGE
CONTRACT_PHASE: Final = Phase.CONTRACT
PLAY_PHASE: Final = Phase.PLAY
OVER_PHASE: Final = Phase.OVER
