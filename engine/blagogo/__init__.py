"""1000 Blagogo (Тысяча Благого): the rules engine of the rummy of the "1000" family.

Same shape as the Thousand engine in :mod:`engine`: start with :class:`Game` (a whole game),
:class:`BlagogoRules` (every variant), the actions in :mod:`engine.blagogo.actions`, and :func:`view` for what
one seat may see. ``../shared/rules/blagogo.md`` is the specification; rule IDs B-1 to B-23 are cited
throughout.

```python
from engine.blagogo import BlagogoRules, Game, view

game = Game(BlagogoRules(players=4), seed=42)
game.apply_chance()                        # the shuffle: an explicit, seeded chance step
seat = game.to_act
game.legal_actions()                       # every simple action: draw, takes, discards, swaps, single adds
game.candidate_melds()                     # some legal LayMelds (non-exhaustive)
game.validate(seat, action)                # the exact validator for any action (raises with the reason)
game.apply(seat, game.legal_actions()[0])  # returns the events; a bad action raises, state unchanged
view(game, seat).hand                      # what that seat may see, and nothing more (B-21)
```
"""

from engine.blagogo.actions import (
    Action,
    AddToMeld,
    Discard,
    DrawFromDeck,
    End,
    LayMelds,
    MeldSpec,
    Shuffle,
    Stands,
    SwapJoker,
    TakeFromBridge,
)
from engine.blagogo.candidates import candidate_melds
from engine.blagogo.cards import CARDS, Card, Rank, Suit
from engine.blagogo.errors import BlagogoIllegalActionError, BlagogoReason
from engine.blagogo.game import Game
from engine.blagogo.melds import MeldKind, TableMeld
from engine.blagogo.observer import SPECTATOR, View, event_for, events_for, view
from engine.blagogo.round import Phase, Round
from engine.blagogo.rules import BlagogoRules, CompletedSetKeeper, LayoffScores

__all__ = [
    "CARDS",
    "SPECTATOR",
    "Action",
    "AddToMeld",
    "BlagogoIllegalActionError",
    "BlagogoReason",
    "BlagogoRules",
    "Card",
    "CompletedSetKeeper",
    "Discard",
    "DrawFromDeck",
    "End",
    "Game",
    "LayMelds",
    "LayoffScores",
    "MeldKind",
    "MeldSpec",
    "Phase",
    "Rank",
    "Round",
    "Shuffle",
    "Stands",
    "Suit",
    "SwapJoker",
    "TableMeld",
    "TakeFromBridge",
    "View",
    "candidate_melds",
    "event_for",
    "events_for",
    "view",
]
