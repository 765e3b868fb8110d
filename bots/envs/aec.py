"""Thousand as a PettingZoo AEC environment: :class:`ThousandEnv` (``env()`` for the wrapped one).

Agents ``player_0`` .. ``player_{n-1}`` are the seats. Each agent's observation is a dict of
``observation`` (:func:`engine.encoding.observation` of its view: float32, seats relative to the agent) and
``action_mask`` (int8 over :data:`engine.encoding.NUM_ACTIONS`, ones only for the agent to act); actions are
:mod:`engine.encoding`'s ids. The deck of every deal is shuffled by the environment's generator, seeded by
``reset(seed=...)``, so an episode is a function of its seed and the actions. Rewards are the score changes
on the sheet after each action (T-23 to T-29), so an agent's cumulative reward is its score; an episode
lasts ``max_deals`` deals (0: the whole game to 1000). Keyword arguments are the variants of
:class:`engine.Rules` and the episode's parameters (:mod:`bots.envs.episode`).
"""

from __future__ import annotations

import random
from typing import Any, ClassVar

from pettingzoo.utils import wrappers

from bots.envs.aec_base import CardGameAEC
from bots.envs.episode import Episode, rules_from
from engine import Shuffle, view
from engine.cards import CARDS
from engine.encoding import NUM_ACTIONS, OBSERVATION_SIZE, action_of, legal_ids, observation


def shuffled(rng: random.Random) -> Shuffle:
    """A deck shuffled by the environment's generator."""
    order = list(CARDS)
    rng.shuffle(order)
    return Shuffle(tuple(order))


class ThousandEnv(CardGameAEC):
    """See the module docstring."""

    metadata: ClassVar[dict[str, Any]] = {
        "name": "thousand_v0",
        "render_modes": ["ansi"],
        "is_parallelizable": False,
    }

    def __init__(self, render_mode: str | None = None, **params: Any) -> None:
        self.max_deals = int(params.pop("max_deals", 1))
        self.first_dealer = int(params.pop("first_dealer", 0))
        self.rules = rules_from(params)
        super().__init__(self.rules.players, NUM_ACTIONS, OBSERVATION_SIZE, render_mode)
        self.episode = Episode(self.rules, self.max_deals, self.first_dealer)

    def _start(self) -> None:
        self.episode = Episode(self.rules, self.max_deals, self.first_dealer)

    def _over(self) -> bool:
        return self.episode.is_over

    def _chance(self) -> bool:
        return self.episode.game.is_chance_node

    def _deal(self, rng: random.Random) -> None:
        self.episode.game.apply_chance(shuffled(rng))

    def _to_act(self) -> int | None:
        return self.episode.game.to_act

    def _legal_ids(self) -> list[int]:
        return legal_ids(self.episode.game.legal_actions())

    def _apply(self, seat: int, chosen: int) -> None:
        self.episode.game.apply(seat, action_of(chosen))

    def _observation(self, seat: int) -> list[float]:
        return observation(view(self.episode.game, seat))

    def _sheet(self) -> list[int]:
        return [r.score for r in self.episode.game.records]

    def render(self) -> str | None:
        if self.render_mode != "ansi":
            return None
        game = self.episode.game
        deal = game.deal
        lines = [f"scores {[r.score for r in game.records]}"]
        if deal is not None:
            for s in range(self.rules.players):
                lines.append(f"seat {s}: {' '.join(str(c) for c in deal.hand(s))}")
        return "\n".join(lines)


def env(**kwargs: Any) -> Any:
    """A :class:`ThousandEnv` wrapped as PettingZoo's classic environments are (order enforcing, an
    out-of-bounds check)."""
    wrapped: Any = ThousandEnv(**kwargs)
    wrapped = wrappers.AssertOutOfBoundsWrapper(wrapped)
    return wrappers.OrderEnforcingWrapper(wrapped)
