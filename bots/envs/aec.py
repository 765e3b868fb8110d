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

import numpy as np
from gymnasium import spaces
from pettingzoo import AECEnv
from pettingzoo.utils import wrappers

from bots.envs.episode import Episode, rules_from
from engine import Shuffle, view
from engine.cards import CARDS
from engine.encoding import NUM_ACTIONS, OBSERVATION_SIZE, action_of, legal_ids, observation


def shuffled(rng: random.Random) -> Shuffle:
    """A deck shuffled by the environment's generator."""
    order = list(CARDS)
    rng.shuffle(order)
    return Shuffle(tuple(order))


class ThousandEnv(AECEnv):  # type: ignore[misc]
    """See the module docstring."""

    metadata: ClassVar[dict[str, Any]] = {
        "name": "thousand_v0",
        "render_modes": ["ansi"],
        "is_parallelizable": False,
    }

    def __init__(self, render_mode: str | None = None, **params: Any) -> None:
        super().__init__()
        self.max_deals = int(params.pop("max_deals", 1))
        self.first_dealer = int(params.pop("first_dealer", 0))
        self.rules = rules_from(params)
        self.render_mode = render_mode
        self.possible_agents = [f"player_{s}" for s in range(self.rules.players)]
        self.agents = self.possible_agents[:]
        space = spaces.Dict(
            {
                "observation": spaces.Box(-np.inf, np.inf, (OBSERVATION_SIZE,), np.float32),
                "action_mask": spaces.Box(0, 1, (NUM_ACTIONS,), np.int8),
            }
        )
        self.observation_spaces = dict.fromkeys(self.possible_agents, space)
        self.action_spaces = {a: spaces.Discrete(NUM_ACTIONS) for a in self.possible_agents}
        self._rng = random.Random()
        self.episode = Episode(self.rules, self.max_deals, self.first_dealer)

    def observation_space(self, agent: str) -> spaces.Space[Any]:
        return self.observation_spaces[agent]

    def action_space(self, agent: str) -> spaces.Space[Any]:
        return self.action_spaces[agent]

    def observe(self, agent: str) -> dict[str, np.ndarray[Any, Any]]:
        seat = self.possible_agents.index(agent)
        game = self.episode.game
        mask = np.zeros(NUM_ACTIONS, np.int8)
        if game.to_act == seat and not self.episode.is_over:
            mask[legal_ids(game.legal_actions())] = 1
        obs = np.asarray(observation(view(game, seat)), np.float32)
        return {"observation": obs, "action_mask": mask}

    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None) -> None:
        if seed is not None:
            self._rng = random.Random(seed)
        self.episode = Episode(self.rules, self.max_deals, self.first_dealer)
        self.agents = self.possible_agents[:]
        self.rewards = dict.fromkeys(self.agents, 0.0)
        self._cumulative_rewards = dict.fromkeys(self.agents, 0.0)
        self.terminations = dict.fromkeys(self.agents, False)
        self.truncations = dict.fromkeys(self.agents, False)
        self.infos: dict[str, dict[str, Any]] = {a: {} for a in self.agents}
        self._scores = [0] * self.rules.players
        self._advance()

    def _advance(self) -> None:
        """Deal while the game is at a chance node and the episode goes on; then select the agent to act."""
        episode = self.episode
        while not episode.is_over and episode.game.is_chance_node:
            episode.game.apply_chance(shuffled(self._rng))
        if episode.is_over:
            self.terminations = dict.fromkeys(self.agents, True)
            return
        seat = episode.game.to_act
        assert seat is not None
        self.agent_selection = self.possible_agents[seat]

    def step(self, action: int) -> None:
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        game = self.episode.game
        seat = self.possible_agents.index(agent)
        if action not in legal_ids(game.legal_actions()):
            raise ValueError(f"action {action} is not legal for {agent} (see the observation's action_mask)")
        self._cumulative_rewards[agent] = 0.0
        game.apply(seat, action_of(int(action)))
        self._advance()
        scores = [r.score for r in game.records]
        for s, a in enumerate(self.possible_agents):
            self.rewards[a] = float(scores[s] - self._scores[s])
        self._scores = scores
        self._accumulate_rewards()
        if self.terminations[agent]:
            # Every agent is done: PettingZoo then steps each of them once with None; start with the first.
            self.agent_selection = self.possible_agents[0]

    def render(self) -> str | None:
        if self.render_mode != "ansi":
            return None
        game = self.episode.game
        deal = game.deal
        lines = [f"scores {[r.score for r in game.records]}"]
        if deal is not None:
            lines += [
                f"seat {s}: {' '.join(str(c) for c in deal.hand(s))}" for s in range(self.rules.players)
            ]
        return "\n".join(lines)

    def close(self) -> None:
        return None


def env(**kwargs: Any) -> Any:
    """A :class:`ThousandEnv` wrapped as PettingZoo's classic environments are (order enforcing, an
    out-of-bounds check)."""
    wrapped: Any = ThousandEnv(**kwargs)
    wrapped = wrappers.AssertOutOfBoundsWrapper(wrapped)
    return wrappers.OrderEnforcingWrapper(wrapped)
