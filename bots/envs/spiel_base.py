"""What the two games' OpenSpiel Python games share: the game type (sequential, explicit chance, imperfect
information, general-sum, terminal rewards, every tensor and string), a state whose chance nodes deal the
deck card by card from the episode's game, and an observer over a game's encoding. A game names its deck
and shuffle, lists, applies and names its action ids, and encodes a player's view (:class:`CardGameState`'s
and :class:`CardObserver`'s abstract methods)."""

from __future__ import annotations

from abc import abstractmethod
from collections.abc import Callable, Sequence
from typing import Any, Protocol

import numpy as np
import pyspiel


def game_type(short_name: str, long_name: str, max_players: int, parameters: dict[str, Any]) -> Any:
    """The OpenSpiel game type of a card game of the family."""
    return pyspiel.GameType(
        short_name=short_name,
        long_name=long_name,
        dynamics=pyspiel.GameType.Dynamics.SEQUENTIAL,
        chance_mode=pyspiel.GameType.ChanceMode.EXPLICIT_STOCHASTIC,
        information=pyspiel.GameType.Information.IMPERFECT_INFORMATION,
        utility=pyspiel.GameType.Utility.GENERAL_SUM,
        reward_model=pyspiel.GameType.RewardModel.TERMINAL,
        max_num_players=max_players,
        min_num_players=2,
        provides_information_state_string=True,
        provides_information_state_tensor=True,
        provides_observation_string=True,
        provides_observation_tensor=True,
        provides_factored_observation_string=False,
        parameter_specification=parameters,
    )


class CardEpisode(Protocol):
    """What a state reads of its episode (:mod:`bots.envs.episode`, :mod:`bots.envs.blagogo_episode`)."""

    @property
    def game(self) -> Any:
        """The engine game: ``is_chance_node``, ``to_act``, ``apply_chance(Shuffle)``..."""

    @property
    def is_over(self) -> bool: ...

    def returns(self) -> list[float]:
        """Each seat's score on the sheet now."""


class CardGameState(pyspiel.State):  # type: ignore[misc]
    """A position: the episode's game, and the cards of the deal (round) being dealt so far."""

    cards: Sequence[Any]
    """The game's deck, by card index (the chance outcomes)."""
    shuffle: Callable[[tuple[Any, ...]], Any]
    """The engine's stacked shuffle of the deck, in an order of cards."""
    episode: CardEpisode

    def __init__(self, game: Any) -> None:
        super().__init__(game)
        self.dealing: list[int] = []
        """Card indices dealt so far at the current deal's chance nodes."""

    @property
    def deck_size(self) -> int:
        return len(self.cards)

    def _over(self) -> bool:
        return self.episode.is_over

    def _chance(self) -> bool:
        return bool(self.episode.game.is_chance_node)

    def _to_act(self) -> int | None:
        seat: int | None = self.episode.game.to_act
        return seat

    def _deal(self, order: list[int]) -> None:
        """Deal the deck in this order of card indices (``apply_chance`` with a stacked shuffle)."""
        cards = self.cards
        self.episode.game.apply_chance(self.shuffle(tuple(cards[i] for i in order)))

    def _sheet(self) -> list[float]:
        """Each seat's score on the sheet."""
        return self.episode.returns()

    @abstractmethod
    def _legal_ids(self) -> list[int]: ...

    @abstractmethod
    def _apply_id(self, seat: int, chosen: int) -> None: ...

    @abstractmethod
    def _describe(self, chosen: int) -> str: ...

    def current_player(self) -> int:
        if self._over():
            return int(pyspiel.PlayerId.TERMINAL)
        if self._chance():
            return int(pyspiel.PlayerId.CHANCE)
        seat = self._to_act()
        assert seat is not None
        return seat

    def _legal_actions(self, player: int) -> list[int]:
        return self._legal_ids() if player == self._to_act() else []

    def chance_outcomes(self) -> list[tuple[int, float]]:
        dealt = set(self.dealing)
        left = [i for i in range(self.deck_size) if i not in dealt]
        return [(i, 1.0 / len(left)) for i in left]

    def _apply_action(self, action: int) -> None:
        if self._chance():
            if action in self.dealing or not 0 <= action < self.deck_size:
                raise ValueError(f"card {action} cannot be dealt now")
            self.dealing.append(action)
            if len(self.dealing) == self.deck_size:
                self._deal(self.dealing)
                self.dealing = []
            return
        seat = self._to_act()
        assert seat is not None
        self._apply_id(seat, action)

    def _action_to_string(self, player: int, action: int) -> str:
        if player == pyspiel.PlayerId.CHANCE:
            return f"deal card {action}"
        return self._describe(action)

    def is_terminal(self) -> bool:
        return self._over()

    def returns(self) -> list[float]:
        """The scores on the sheet at the end; zeros before it (a terminal reward model)."""
        sheet = self._sheet()
        return sheet if self._over() else [0.0] * len(sheet)


class CardObserver:
    """OpenSpiel's Python observer: for an information state (``perfect_recall``) a game's
    information-state tensor and key, otherwise its observation tensor and a short observation string."""

    def __init__(self, perfect_recall: bool, size: int) -> None:
        self.perfect_recall = perfect_recall
        self.tensor = np.zeros(size, np.float32)
        self.dict = {"observation": self.tensor}

    @abstractmethod
    def encode(self, state: Any, player: int) -> list[float]:
        """The observation tensor."""

    @abstractmethod
    def recall(self, state: Any, player: int) -> list[float]:
        """The information-state tensor."""

    @abstractmethod
    def key(self, state: Any, player: int) -> str:
        """The information-state key."""

    @abstractmethod
    def short(self, state: Any, player: int) -> str:
        """The observation string."""

    def set_from(self, state: Any, player: int) -> None:
        self.tensor[:] = self.recall(state, player) if self.perfect_recall else self.encode(state, player)

    def string_from(self, state: Any, player: int) -> str:
        text = self.key(state, player) if self.perfect_recall else self.short(state, player)
        return f"{text}\ndealing {len(state.dealing)}"
