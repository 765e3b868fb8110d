"""Each game as the learning environments see it, once: :class:`GameObserver`, one per game
(:data:`THOUSAND`, :data:`BLAGOGO`), shared by the PettingZoo (:mod:`bots.envs.aec_base`) and Gymnasium
(:mod:`bots.envs.single_base`) environments.

An observer says how an episode starts (its rules from flat parameters, its length), how a deal or round is
dealt from the environment's generator, which action ids are legal and what an id does, how a seat's view is
encoded, each seat's score on the sheet, and how a bot of the game's registry chooses (from its view alone,
or from its view and the Turn's actions). The environments hold everything else once for every game.
"""

from __future__ import annotations

import random
from abc import ABC, abstractmethod
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

import engine
from bots.blagogo import BLAGOGO as BLAGOGO_BOTS
from bots.envs.blagogo_episode import BlagogoEpisode, blagogo_rules_from
from bots.envs.episode import Episode, rules_from
from bots.registry import THOUSAND as THOUSAND_BOTS
from bots.strategy import GameStrategies, StrategyOptions
from engine import blagogo
from engine import encoding as thousand_encoding
from engine.blagogo import encoding as blagogo_encoding
from engine.cards import CARDS


@dataclass(frozen=True, eq=False)
class GameObserver(ABC):
    """One game for the learning environments (see the module docstring)."""

    name: str
    num_actions: int
    observation_size: int
    length: str
    """The episode's length parameter: ``max_deals`` (Thousand) or ``max_rounds`` (1000 Blagogo)."""
    cards: tuple[Any, ...]
    shuffle: Callable[[tuple[Any, ...]], Any]
    """The chance outcome dealing a deck in a given order."""
    view: Callable[[Any, int], Any]
    encode: Callable[[Any], list[float]]
    """A seat's view as the observation tensor."""
    bots: GameStrategies[Any]

    @abstractmethod
    def rules_from(self, params: Mapping[str, object]) -> Any:
        """The rules the flat parameters name (ValueError for one the game does not have)."""

    @abstractmethod
    def episode(self, rules: Any, length: int, first_dealer: int) -> Any:
        """A new episode (``.game``, ``.is_over``) of ``length`` deals or rounds (0: the whole game)."""

    @abstractmethod
    def legal_ids(self, game: Any) -> list[int]:
        """The acting seat's legal action ids."""

    @abstractmethod
    def apply(self, game: Any, seat: int, chosen: int) -> None:
        """Apply ``seat``'s action of id ``chosen``."""

    @abstractmethod
    def sheet(self, game: Any) -> list[int]:
        """Each seat's score on the sheet."""

    @abstractmethod
    def bot_move(self, game: Any, seat: int, bot: Any, rng: random.Random) -> None:
        """Let ``seat``'s bot choose as at a table and apply its action."""

    def deal(self, game: Any, rng: random.Random) -> None:
        """Deal the next deal (round) from a deck shuffled by ``rng``."""
        order = list(self.cards)
        rng.shuffle(order)
        game.apply_chance(self.shuffle(tuple(order)))

    def observation(self, game: Any, seat: int) -> list[float]:
        return self.encode(self.view(game, seat))

    def make_bot(self, name: str, options: StrategyOptions) -> Any:
        return self.bots.make(name, options)


class ThousandObserver(GameObserver):
    """Thousand: the complete legal list is the Turn's (T-34), a bot decides from its view alone."""

    def rules_from(self, params: Mapping[str, object]) -> engine.Rules:
        return rules_from(params)

    def episode(self, rules: engine.Rules, length: int, first_dealer: int) -> Episode:
        return Episode(rules, length, first_dealer)

    def legal_ids(self, game: engine.Game) -> list[int]:
        return thousand_encoding.legal_ids(game.legal_actions())

    def apply(self, game: engine.Game, seat: int, chosen: int) -> None:
        game.apply(seat, thousand_encoding.action_of(chosen))

    def sheet(self, game: engine.Game) -> list[int]:
        return [r.score for r in game.records]

    def bot_move(self, game: engine.Game, seat: int, bot: Any, rng: random.Random) -> None:
        game.apply(seat, bot.choose(engine.view(game, seat), rng))


class BlagogoObserver(GameObserver):
    """1000 Blagogo: the Turn's actions are the simple legal ones, then the candidate melds (B-22); the
    rounds end after :data:`~bots.envs.blagogo_episode.TURNOVER_LIMIT` turnovers unless told."""

    def rules_from(self, params: Mapping[str, object]) -> blagogo.BlagogoRules:
        return blagogo_rules_from(params)

    def episode(self, rules: blagogo.BlagogoRules, length: int, first_dealer: int) -> BlagogoEpisode:
        return BlagogoEpisode(rules, length, first_dealer)

    def legal_ids(self, game: blagogo.Game) -> list[int]:
        return blagogo_encoding.legal_ids(game.legal_actions(), game.candidate_melds())

    def apply(self, game: blagogo.Game, seat: int, chosen: int) -> None:
        game.apply(seat, blagogo_encoding.action_of(chosen, game.legal_actions(), game.candidate_melds()))

    def sheet(self, game: blagogo.Game) -> list[int]:
        return list(game.scores)

    def bot_move(self, game: blagogo.Game, seat: int, bot: Any, rng: random.Random) -> None:
        actions = (*game.legal_actions(), *game.candidate_melds())
        game.apply(seat, bot.choose(blagogo.view(game, seat), actions, rng))


THOUSAND = ThousandObserver(
    name="thousand",
    num_actions=thousand_encoding.NUM_ACTIONS,
    observation_size=thousand_encoding.OBSERVATION_SIZE,
    length="max_deals",
    cards=CARDS,
    shuffle=engine.Shuffle,
    view=engine.view,
    encode=thousand_encoding.observation,
    bots=THOUSAND_BOTS,
)
BLAGOGO = BlagogoObserver(
    name="blagogo",
    num_actions=blagogo_encoding.NUM_ACTIONS,
    observation_size=blagogo_encoding.OBSERVATION_SIZE,
    length="max_rounds",
    cards=blagogo.CARDS,
    shuffle=blagogo.Shuffle,
    view=blagogo.view,
    encode=blagogo_encoding.observation,
    bots=BLAGOGO_BOTS,
)
