"""The Thousand engine: pure, synchronous, typed rules of the card game Thousand (Тысяча).

Start with :class:`Game` (a whole game), :class:`Rules` (every variant), the actions in
:mod:`engine.actions`, and :func:`view` for what one seat may see.
"""

from engine import deal as _deal
from engine.actions import (
    Action,
    Bid,
    ChooseTalon,
    Concede,
    DeclareDark,
    DeclineDark,
    DemandRedeal,
    DiscardCard,
    GiveCard,
    NameContract,
    Pass,
    PlayCard,
    RedealReason,
    Shuffle,
)
from engine.cards import Card, Rank, Suit
from engine.deal import Deal
from engine.errors import ActionError, IllegalActionError, InvalidActionError, Reason, RulesError
from engine.events import DealKind, Event, Mark, Outcome
from engine.game import Game
from engine.layout import DealSetup
from engine.observer import SPECTATOR, TakenTrick, View, event_for, events_for, view
from engine.phases import Phase
from engine.rules import BidCap, OpeningBid, Rules, SitterScores, TwoPlayerDeal, WeakTalon

COMPILED: bool = not (_deal.__file__ or "").endswith(".py")
"""Whether this engine is the mypyc-compiled build of these sources (scripts/compiled_engine.py), which
behaves the same, faster; benchmarks and the server's startup log say which one runs."""

__all__ = [
    "COMPILED",
    "SPECTATOR",
    "Action",
    "ActionError",
    "Bid",
    "BidCap",
    "Card",
    "ChooseTalon",
    "Concede",
    "Deal",
    "DealKind",
    "DealSetup",
    "DeclareDark",
    "DeclineDark",
    "DemandRedeal",
    "DiscardCard",
    "Event",
    "Game",
    "GiveCard",
    "IllegalActionError",
    "InvalidActionError",
    "Mark",
    "NameContract",
    "OpeningBid",
    "Outcome",
    "Pass",
    "Phase",
    "PlayCard",
    "Rank",
    "Reason",
    "RedealReason",
    "Rules",
    "RulesError",
    "Shuffle",
    "SitterScores",
    "Suit",
    "TakenTrick",
    "TwoPlayerDeal",
    "View",
    "WeakTalon",
    "event_for",
    "events_for",
    "view",
]
