"""What the two games' Gymnasium single-seat environments share: one learning seat against bots of the
game's registry, the observation and legal mask of the game's codec, rewards as the learner's score change
on the sheet, an illegal action that changes nothing and costs ``illegal_penalty``, and decks and bots'
choices from the generator ``reset(seed=...)`` seeds. A game's environment says how to start an episode,
deal, list and apply its action ids, encode the learner's view, let a bot move and show every bot its view
(:class:`SingleSeatBase`'s abstract methods).
"""

from __future__ import annotations

import random
from abc import abstractmethod
from typing import Any

import gymnasium as gym
import numpy as np
from gymnasium import spaces


class SingleSeatBase(gym.Env[np.ndarray[Any, Any], int]):
    """One seat of a card game of the family as a Gymnasium environment (see the module docstring)."""

    metadata = {"render_modes": ["ansi"]}  # noqa: RUF012 - an instance variable of gymnasium.Env

    def __init__(
        self,
        seat: int,
        players: int,
        *,
        num_actions: int,
        observation_size: int,
        illegal_penalty: float,
        render_mode: str | None,
    ) -> None:
        if not 0 <= seat < players:
            raise ValueError(f"seat {seat} is not a seat of {players} players")
        self.seat = seat
        self.num_actions = num_actions
        self.illegal_penalty = illegal_penalty
        self.render_mode = render_mode
        self.observation_space = spaces.Box(-np.inf, np.inf, (observation_size,), np.float32)
        self.action_space = spaces.Discrete(num_actions)  # type: ignore[assignment]
        self._rng = random.Random()
        self._score = 0

    # ------------------------------------------------------------------ what a game says

    @abstractmethod
    def _start(self) -> None:
        """A new episode (no deal yet) and fresh bots for the other seats."""

    @abstractmethod
    def _over(self) -> bool: ...

    @abstractmethod
    def _chance(self) -> bool: ...

    @abstractmethod
    def _deal(self, rng: random.Random) -> None:
        """Deal the next deal (round) from a deck shuffled by ``rng``."""

    @abstractmethod
    def _to_act(self) -> int | None: ...

    @abstractmethod
    def _legal_ids(self) -> list[int]:
        """The acting seat's legal action ids."""

    @abstractmethod
    def _apply(self, chosen: int) -> None:
        """Apply the learner's action of id ``chosen``."""

    @abstractmethod
    def _bot_move(self, seat: int, rng: random.Random) -> None:
        """Let ``seat``'s bot choose from its view and apply its action."""

    @abstractmethod
    def _observe_all(self) -> None:
        """Show every bot its seat's view (as a table does after each action)."""

    @abstractmethod
    def _observation(self) -> list[float]:
        """The learner's view, encoded."""

    @abstractmethod
    def _learner_score(self) -> int:
        """The learner's score on the sheet."""

    # ------------------------------------------------------------------ Gymnasium

    def _obs(self) -> np.ndarray[Any, Any]:
        return np.asarray(self._observation(), np.float32)

    def _info(self, illegal: bool = False) -> dict[str, Any]:
        mask = np.zeros(self.num_actions, np.int8)
        if self._to_act() == self.seat and not self._over():
            mask[self._legal_ids()] = 1
        return {"action_mask": mask, "illegal": illegal}

    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[np.ndarray[Any, Any], dict[str, Any]]:
        super().reset(seed=seed)
        if seed is not None:
            self._rng = random.Random(seed)
        self._start()
        self._score = 0
        self._play_others()
        return self._obs(), self._info()

    def _play_others(self) -> None:
        """Deal and let the bots act until the learner must decide or the episode ends."""
        while not self._over():
            if self._chance():
                self._deal(self._rng)
            elif self._to_act() == self.seat:
                return
            else:
                actor = self._to_act()
                assert actor is not None
                self._bot_move(actor, self._rng)
            self._observe_all()

    def step(self, action: int) -> tuple[np.ndarray[Any, Any], float, bool, bool, dict[str, Any]]:
        if self._over():
            raise RuntimeError("the episode is over: call reset()")
        if int(action) not in self._legal_ids():
            return self._obs(), -self.illegal_penalty, False, False, self._info(illegal=True)
        self._apply(int(action))
        self._observe_all()
        self._play_others()
        score = self._learner_score()
        reward = float(score - self._score)
        self._score = score
        return self._obs(), reward, self._over(), False, self._info()
