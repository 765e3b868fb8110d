"""What the two games' PettingZoo AEC environments share: agents as seats, an observation dict of the
game's tensor and its legal mask, rewards as score changes, decks from the generator ``reset`` seeds, and
PettingZoo's end of an episode. What differs between the games is their observer
(:class:`bots.envs.observers.GameObserver`): how an episode starts, deals, lists and applies its action ids,
and encodes a seat's view; a game's environment is its observer and its constructor."""

from __future__ import annotations

import random
from typing import Any

import numpy as np
from gymnasium import spaces
from pettingzoo import AECEnv

from bots.envs.observers import GameObserver


class CardGameAEC(AECEnv):  # type: ignore[misc]
    """A turn-based card game of the family as a PettingZoo AEC environment. Keyword arguments are the
    variants of the game's rules and the episode's length (``max_deals``/``max_rounds``) and
    ``first_dealer``."""

    def __init__(self, observer: GameObserver, render_mode: str | None, params: dict[str, Any]) -> None:
        super().__init__()
        self.observer = observer
        self.length = int(params.pop(observer.length, 1))
        """The episode's deals or rounds (0: the whole game)."""
        self.first_dealer = int(params.pop("first_dealer", 0))
        self.rules = observer.rules_from(params)
        self.render_mode = render_mode
        self.num_actions = observer.num_actions
        self.possible_agents = [f"player_{s}" for s in range(self.rules.players)]
        self.agents = self.possible_agents[:]
        space = spaces.Dict(
            {
                "observation": spaces.Box(-np.inf, np.inf, (observer.observation_size,), np.float32),
                "action_mask": spaces.Box(0, 1, (self.num_actions,), np.int8),
            }
        )
        self.observation_spaces = dict.fromkeys(self.possible_agents, space)
        self.action_spaces = {a: spaces.Discrete(self.num_actions) for a in self.possible_agents}
        self._rng = random.Random()
        self._scores: list[int] = [0] * self.rules.players
        self.episode = self._new_episode()

    def _new_episode(self) -> Any:
        return self.observer.episode(self.rules, self.length, self.first_dealer)

    # ------------------------------------------------------------------ PettingZoo

    def observation_space(self, agent: str) -> spaces.Space[Any]:
        return self.observation_spaces[agent]

    def action_space(self, agent: str) -> spaces.Space[Any]:
        return self.action_spaces[agent]

    def observe(self, agent: str) -> dict[str, np.ndarray[Any, Any]]:
        seat = self.possible_agents.index(agent)
        game = self.episode.game
        mask = np.zeros(self.num_actions, np.int8)
        if game.to_act == seat and not self.episode.is_over:
            mask[self.observer.legal_ids(game)] = 1
        observation = self.observer.observation(game, seat)
        return {"observation": np.asarray(observation, np.float32), "action_mask": mask}

    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None) -> None:
        if seed is not None:
            self._rng = random.Random(seed)
        self.episode = self._new_episode()
        self.agents = self.possible_agents[:]
        self.rewards = dict.fromkeys(self.agents, 0.0)
        self._cumulative_rewards = dict.fromkeys(self.agents, 0.0)
        self.terminations = dict.fromkeys(self.agents, False)
        self.truncations = dict.fromkeys(self.agents, False)
        self.infos: dict[str, dict[str, Any]] = {a: {} for a in self.agents}
        self._scores = [0] * len(self.possible_agents)
        self._advance()

    def _advance(self) -> None:
        """Deal while at a chance node and the episode goes on; then select the agent to act."""
        while not self.episode.is_over and self.episode.game.is_chance_node:
            self.observer.deal(self.episode.game, self._rng)
        if self.episode.is_over:
            self.terminations = dict.fromkeys(self.agents, True)
            return
        seat = self.episode.game.to_act
        assert seat is not None
        self.agent_selection = self.possible_agents[seat]

    def step(self, action: int) -> None:
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        seat = self.possible_agents.index(agent)
        if int(action) not in self.observer.legal_ids(self.episode.game):
            raise ValueError(f"action {action} is not legal for {agent} (see the observation's action_mask)")
        self._cumulative_rewards[agent] = 0.0
        self.observer.apply(self.episode.game, seat, int(action))
        self._advance()
        scores = self.observer.sheet(self.episode.game)
        for s, a in enumerate(self.possible_agents):
            self.rewards[a] = float(scores[s] - self._scores[s])
        self._scores = scores
        self._accumulate_rewards()
        if self.terminations[agent]:
            # Every agent is done: PettingZoo then steps each of them once with None; start with the first.
            self.agent_selection = self.possible_agents[0]

    def close(self) -> None:
        return None
