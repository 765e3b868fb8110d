"""1000 Blagogo as a PettingZoo AEC environment: :class:`BlagogoEnv` (``env()`` for the wrapped one).

As :mod:`bots.envs.aec` for Thousand: agents ``player_0`` .. are the seats; an observation is a dict of
``observation`` (:func:`engine.blagogo.encoding.observation` of the agent's view) and ``action_mask``
(the turn's simple actions and candidate melds, B-22, as :mod:`engine.blagogo.encoding` ids); rewards are the
score changes on the sheet; the deck of every round is shuffled by the generator ``reset(seed=...)`` seeds;
an episode lasts ``max_rounds`` rounds (0: the game), with ``turnover_limit`` defaulting to
:data:`~bots.envs.blagogo_episode.TURNOVER_LIMIT` so that every round ends.
"""

from __future__ import annotations

import random
from typing import Any, ClassVar

from pettingzoo.utils import wrappers

from bots.envs.aec_base import CardGameAEC
from bots.envs.blagogo_episode import BlagogoEpisode, blagogo_rules_from
from engine.blagogo import CARDS, Shuffle, view
from engine.blagogo.encoding import NUM_ACTIONS, OBSERVATION_SIZE, action_of, legal_ids, observation


class BlagogoEnv(CardGameAEC):
    """See the module docstring."""

    metadata: ClassVar[dict[str, Any]] = {
        "name": "blagogo_v0",
        "render_modes": ["ansi"],
        "is_parallelizable": False,
    }

    def __init__(self, render_mode: str | None = None, **params: Any) -> None:
        self.max_rounds = int(params.pop("max_rounds", 1))
        self.first_dealer = int(params.pop("first_dealer", 0))
        self.rules = blagogo_rules_from(params)
        super().__init__(self.rules.players, NUM_ACTIONS, OBSERVATION_SIZE, render_mode)
        self.episode = BlagogoEpisode(self.rules, self.max_rounds, self.first_dealer)

    def _start(self) -> None:
        self.episode = BlagogoEpisode(self.rules, self.max_rounds, self.first_dealer)

    def _over(self) -> bool:
        return self.episode.is_over

    def _chance(self) -> bool:
        return self.episode.game.is_chance_node

    def _deal(self, rng: random.Random) -> None:
        order = list(CARDS)
        rng.shuffle(order)
        self.episode.game.apply_chance(Shuffle(tuple(order)))

    def _to_act(self) -> int | None:
        return self.episode.game.to_act

    def _legal_ids(self) -> list[int]:
        game = self.episode.game
        return legal_ids(game.legal_actions(), game.candidate_melds())

    def _apply(self, seat: int, chosen: int) -> None:
        game = self.episode.game
        game.apply(seat, action_of(chosen, game.legal_actions(), game.candidate_melds()))

    def _observation(self, seat: int) -> list[float]:
        return observation(view(self.episode.game, seat))

    def _sheet(self) -> list[int]:
        return list(self.episode.game.scores)

    def render(self) -> str | None:
        if self.render_mode != "ansi":
            return None
        game = self.episode.game
        return f"round {game.rounds_dealt}; scores {game.scores}"


def env(**kwargs: Any) -> Any:
    """A :class:`BlagogoEnv` wrapped as PettingZoo's classic environments are."""
    wrapped: Any = BlagogoEnv(**kwargs)
    wrapped = wrappers.AssertOutOfBoundsWrapper(wrapped)
    return wrappers.OrderEnforcingWrapper(wrapped)
