"""What the two games' PettingZoo AEC environments share: agents as seats, an observation dict of the
game's tensor and its legal mask, rewards as score changes, decks from the generator ``reset`` seeds, and
PettingZoo's end of an episode. A game's environment says how to start an episode, deal, list and apply
its action ids, and encode a seat's view (:class:`CardGameAEC`'s abstract methods)."""

from __future__ import annotations

import random
from abc import abstractmethod
from typing import Any

import numpy as np
from gymnasium import spaces
from pettingzoo import AECEnv


class CardGameAEC(AECEnv):  # type: ignore[misc]
    """A turn-based card game of the family as a PettingZoo AEC environment."""

    def __init__(
        self, players: int, num_actions: int, observation_size: int, render_mode: str | None
    ) -> None:
        super().__init__()
        self.render_mode = render_mode
        self.num_actions = num_actions
        self.possible_agents = [f"player_{s}" for s in range(players)]
        self.agents = self.possible_agents[:]
        space = spaces.Dict(
            {
                "observation": spaces.Box(-np.inf, np.inf, (observation_size,), np.float32),
                "action_mask": spaces.Box(0, 1, (num_actions,), np.int8),
            }
        )
        self.observation_spaces = dict.fromkeys(self.possible_agents, space)
        self.action_spaces = {a: spaces.Discrete(num_actions) for a in self.possible_agents}
        self._rng = random.Random()
        self._scores: list[int] = [0] * players

    # ------------------------------------------------------------------ what a game says

    @abstractmethod
    def _start(self) -> None:
        """Start a new episode (no deal yet)."""

    @abstractmethod
    def _over(self) -> bool:
        """Whether the episode is over."""

    @abstractmethod
    def _chance(self) -> bool:
        """Whether the game is at a chance node."""

    @abstractmethod
    def _deal(self, rng: random.Random) -> None:
        """Deal the next deal (round) from a deck shuffled by ``rng``."""

    @abstractmethod
    def _to_act(self) -> int | None: ...

    @abstractmethod
    def _legal_ids(self) -> list[int]:
        """The acting seat's legal action ids."""

    @abstractmethod
    def _apply(self, seat: int, chosen: int) -> None: ...

    @abstractmethod
    def _observation(self, seat: int) -> list[float]: ...

    @abstractmethod
    def _sheet(self) -> list[int]:
        """Each seat's score on the sheet."""

    # ------------------------------------------------------------------ PettingZoo

    def observation_space(self, agent: str) -> spaces.Space[Any]:
        return self.observation_spaces[agent]

    def action_space(self, agent: str) -> spaces.Space[Any]:
        return self.action_spaces[agent]

    def observe(self, agent: str) -> dict[str, np.ndarray[Any, Any]]:
        seat = self.possible_agents.index(agent)
        mask = np.zeros(self.num_actions, np.int8)
        if self._to_act() == seat and not self._over():
            mask[self._legal_ids()] = 1
        return {"observation": np.asarray(self._observation(seat), np.float32), "action_mask": mask}

    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None) -> None:
        if seed is not None:
            self._rng = random.Random(seed)
        self._start()
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
        while not self._over() and self._chance():
            self._deal(self._rng)
        if self._over():
            self.terminations = dict.fromkeys(self.agents, True)
            return
        seat = self._to_act()
        assert seat is not None
        self.agent_selection = self.possible_agents[seat]

    def step(self, action: int) -> None:
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        seat = self.possible_agents.index(agent)
        if int(action) not in self._legal_ids():
            raise ValueError(f"action {action} is not legal for {agent} (see the observation's action_mask)")
        self._cumulative_rewards[agent] = 0.0
        self._apply(seat, int(action))
        self._advance()
        scores = self._sheet()
        for s, a in enumerate(self.possible_agents):
            self.rewards[a] = float(scores[s] - self._scores[s])
        self._scores = scores
        self._accumulate_rewards()
        if self.terminations[agent]:
            # Every agent is done: PettingZoo then steps each of them once with None; start with the first.
            self.agent_selection = self.possible_agents[0]

    def close(self) -> None:
        return None
