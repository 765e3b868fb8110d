"""One game described once: what every layer (server, clients, bots, export, tests) reads to play it.

In the way OpenSpiel registers a game (``pyspiel.register_game(GameType, ...)``: a game's type and
parameters, declared once, that every tool reads), a :class:`GameDescription` names the game and points at
its parts: the contract's ``GameKind``, its name in the wrapper messages and the store, its title in
sentences, its engine (rules type, rules for a number of players, a new game, action and game-over types),
its codec module (:mod:`codec`), how its deals are checked (:mod:`engine.verify`), its bot strategies
(:mod:`bots`) and how a strategy is asked, what each seat may see, what a Turn lists, what an event scored,
its actions' labels and their JSON in a game record. Each layer then keeps only what is its own: the
server's adapter (Thousand's fast wire paths), the clients' entry (its view tracker). The descriptions
are listed once in :data:`games.GAMES`.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from types import ModuleType
from typing import Any

from bots.strategy import GameStrategies
from engine.seeds import FairDeals
from engine.verify import Scheme
from thousand.v1 import table_service_pb2 as pb


@dataclass(frozen=True, slots=True)
class Scored:
    """A deal or round just scored, as the server reports it: counted in ``thousand_deals_finished_total``
    by ``kind`` and ``outcome`` (the game's own small, closed sets of labels), and logged as "``noun``
    finished" with ``details`` (no card, no hand: nothing secret)."""

    noun: str
    kind: str
    outcome: str
    details: Mapping[str, object]
    deltas: tuple[int, ...]
    """Each seat's points of the deal or round (what a duplicate tournament scores)."""


@dataclass(frozen=True, slots=True)
class Duplicate:
    """What a duplicate tournament (:mod:`games.tournament`) needs of a game beyond the rest of its
    description: how to stack its deck from a seed, and how to read a game's deals or rounds and scores.
    Everything else (the loop, the seatings, the statistics, the command line) is the same for every game."""

    unit: str
    """What one chance node deals: ``deal`` (Thousand) or ``round`` (1000 Blagogo); the results' unit."""
    cards: tuple[Any, ...]
    """The deck, in the order a seeded shuffle starts from."""
    stacked: Callable[[tuple[Any, ...]], Any]
    """The chance outcome that deals the deck in this order (the engine's ``Shuffle``)."""
    derive_seed: Callable[[int, str], int]
    """The engine's derivation of a key from the seed and a label, so tournament decks follow the seed."""
    games_label: str
    """The label of a whole-game set's decks and dealer in :attr:`derive_seed` (kept as each game first
    drew them, so a seed plays the same games as before)."""
    playing: Callable[[Any], Sequence[int]]
    """The seats that play the deal or round just dealt (Thousand's four-player sitter does not: T-6)."""
    played: Callable[[Any], int]
    """The deals or rounds a game has scored (Thousand's redeals are not scored)."""
    dealt: Callable[[Any], int]
    """The deals or rounds a game has dealt."""
    score: Callable[[Any, int], int]
    """A seat's score in a game."""
    unit_players: int
    """The players of a deal-by-deal (round-by-round) tournament unless told."""
    tournament_rules: Mapping[str, Any]
    """The tournament's own rules over :attr:`GameDescription.default_rules` (1000 Blagogo: a round ends
    after two turnovers of the deck, so none goes on without end)."""
    max_units: int
    """A whole game not over after this many scored deals or rounds is cut (counted, won by nobody)."""
    stalls: bool
    """Whether a round may go on without end (1000 Blagogo, B-10): the tournament then abandons one after
    too many actions, counts the stalled rounds and who went out, and reports them."""


@dataclass(frozen=True, eq=False)
class GameDescription:
    """A game, as every layer knows it."""

    kind: pb.GameKind.ValueType
    """The contract's GameKind, as a Table names its game."""
    name: str
    """The game's case in the wrapper messages (Rules, Action, View, Event), its store and metric name."""
    title: str
    """The game's name in sentences."""
    rules_type: type
    """The engine's rules class."""
    default_rules: Callable[[int], Any]
    """The engine's default rules for a number of players (every variant at its default)."""
    new_game: Callable[[Any, int, int | None, FairDeals | None], Any]
    """The engine's game: ``new_game(rules, seed, first_dealer, fair)``."""
    action_types: tuple[type, ...]
    """The engine's action classes, which tell an action's game."""
    game_over: type
    """The engine's event that ends the game (it carries the standings)."""
    codec: ModuleType
    """The engine <-> protobuf mapping (a package of :mod:`codec`)."""
    deals: Scheme
    """How the game's deals are checked (engine.verify)."""
    strategies: GameStrategies[Any]
    """The game's bot strategies (:mod:`bots.registry`): every one can play a server's bot seat."""
    takeover_strategy: str
    """The strategy that plays a seat taken over when its time ran out."""
    view: Callable[[Any, int | None], Any]
    """The engine's view of a seat (None: a spectator's): all it may see (T-33, B-21)."""
    event_for: Callable[[Any, int | None], Any]
    """An engine event as a seat (None: spectators) may see it: hidden cards blanked (T-33, B-21)."""
    turn_actions: Callable[[Any, int], Sequence[Any]]
    """The actions the acting seat's Turn lists: Thousand's complete legal list (T-34), 1000 Blagogo's
    simple legal actions and some candidate melds (B-22)."""
    choose: Callable[[Any, Any, Sequence[Any], random.Random, float | None], Any]
    """A strategy's decision: ``choose(strategy, view, turn_actions, rng, deadline)`` (``deadline``:
    ``time.monotonic()`` or None), as the strategies of the game's registry take it."""
    scored: Callable[[object], Scored | None]
    """What an event scored when it ends a deal or round (for the metrics and the log); else None."""
    action_kinds: Mapping[type, str]
    """Each action class by its case in the game's action message (``bid``, ``discard``, ...): a label."""
    action_to_json: Callable[[Any], dict[str, Any]]
    """An action in a game record: ``{"kind": its case, ...its fields}``, cards as the engine prints them."""
    action_from_json: Callable[[dict[str, Any]], Any]
    """The action of :attr:`action_to_json`'s form; ValueError for one that is not this game's."""
    duplicate: Duplicate
    """How the duplicate tournament plays the game (:mod:`games.tournament`)."""

    def players(self, rules: Any) -> int:
        """The number of players the rules are for."""
        players: int = rules.players
        return players
