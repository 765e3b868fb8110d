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

import numpy as np
from gymnasium import spaces
from pettingzoo import AECEnv
from pettingzoo.utils import wrappers

from bots.envs.blagogo_episode import BlagogoEpisode, blagogo_rules_from
from engine.blagogo import CARDS, Shuffle, view
from engine.blagogo.encoding import NUM_ACTIONS, OBSERVATION_SIZE, action_of, legal_ids, observation


class BlagogoEnv(AECEnv):  # type: ignore[misc]
    """See the module docstring."""

    metadata: ClassVar[dict[str, Any]] = {
        "name": "blagogo_v0",
        "render_modes": ["ansi"],
        "is_parallelizable": False,
    }

    def __init__(self, render_mode: str | None = None, **params: Any) -> None:
        super().__init__()
        self.max_rounds = int(params.pop("max_rounds", 1))
        self.first_dealer = int(params.pop("first_dealer", 0))
        self.rules = blagogo_rules_from(params)
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
        self.episode = BlagogoEpisode(self.rules, self.max_rounds, self.first_dealer)

    def observation_space(self, agent: str) -> spaces.Space[Any]:
        return self.observation_spaces[agent]

    def action_space(self, agent: str) -> spaces.Space[Any]:
        return self.action_spaces[agent]

    def _legal(self) -> list[int]:
        game = self.episode.game
        return legal_ids(game.legal_actions(), game.candidate_melds())

    def observe(self, agent: str) -> dict[str, np.ndarray[Any, Any]]:
        seat = self.possible_agents.index(agent)
        game = self.episode.game
        mask = np.zeros(NUM_ACTIONS, np.int8)
        if game.to_act == seat and not self.episode.is_over:
            mask[self._legal()] = 1
        obs = np.asarray(observation(view(game, seat)), np.float32)
        return {"observation": obs, "action_mask": mask}

    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None) -> None:
        if seed is not None:
            self._rng = random.Random(seed)
        self.episode = BlagogoEpisode(self.rules, self.max_rounds, self.first_dealer)
        self.agents = self.possible_agents[:]
        self.rewards = dict.fromkeys(self.agents, 0.0)
        self._cumulative_rewards = dict.fromkeys(self.agents, 0.0)
        self.terminations = dict.fromkeys(self.agents, False)
        self.truncations = dict.fromkeys(self.agents, False)
        self.infos: dict[str, dict[str, Any]] = {a: {} for a in self.agents}
        self._scores = [0] * self.rules.players
        self._advance()

    def _advance(self) -> None:
        episode = self.episode
        while not episode.is_over and episode.game.is_chance_node:
            order = list(CARDS)
            self._rng.shuffle(order)
            episode.game.apply_chance(Shuffle(tuple(order)))
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
        legal, candidates = game.legal_actions(), game.candidate_melds()
        if int(action) not in legal_ids(legal, candidates):
            raise ValueError(f"action {action} is not legal for {agent} (see the observation's action_mask)")
        self._cumulative_rewards[agent] = 0.0
        game.apply(seat, action_of(int(action), legal, candidates))
        self._advance()
        scores = list(game.scores)
        for s, a in enumerate(self.possible_agents):
            self.rewards[a] = float(scores[s] - self._scores[s])
        self._scores = scores
        self._accumulate_rewards()
        if self.terminations[agent]:
            self.agent_selection = self.possible_agents[0]

    def render(self) -> str | None:
        if self.render_mode != "ansi":
            return None
        game = self.episode.game
        return f"round {game.rounds_dealt}; scores {game.scores}"

    def close(self) -> None:
        return None


def env(**kwargs: Any) -> Any:
    """A :class:`BlagogoEnv` wrapped as PettingZoo's classic environments are."""
    wrapped: Any = BlagogoEnv(**kwargs)
    wrapped = wrappers.AssertOutOfBoundsWrapper(wrapped)
    return wrappers.OrderEnforcingWrapper(wrapped)
