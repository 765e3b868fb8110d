"""Thousand as an OpenSpiel Python game, registered as ``python_thousand``.

``pyspiel.load_game("python_thousand", {"players": 4, "dark": True, "max_deals": 3})`` after importing this
module: every variant of :class:`engine.Rules` is a game parameter (an enum by its value's string), with the
episode's own ``max_deals`` (deals to play, 0 for the whole game to 1000) and ``first_dealer``
(:mod:`bots.envs.episode`). Chance nodes are explicit: the deck is dealt card by card, 24 chance nodes a
deal, each drawing one of the cards left uniformly, and the game deals them in that order
(:meth:`engine.Game.apply_chance` with the stacked :class:`engine.Shuffle`); a redeal deals 24 more.

Actions are :mod:`engine.encoding`'s fixed ids; the observation tensor is its :func:`~engine.encoding.
observation` of the player's view, and so is the information-state tensor (the view holds the whole auction
and every trick); the information-state string is :func:`~engine.encoding.information_state` (the player's
events without the deck's commitment, so it is the same for every deal the player cannot tell apart).
Returns are each seat's score on the sheet at the end of the episode (general-sum).
"""

from __future__ import annotations

from typing import Any, Final

import numpy as np
import pyspiel

from bots.envs.episode import PARAMETERS, Episode, rules_from
from engine import Shuffle, view
from engine.actions import describe
from engine.cards import CARDS
from engine.encoding import (
    NUM_ACTIONS,
    OBSERVATION_SIZE,
    action_of,
    information_state,
    legal_ids,
    observation,
)

SHORT_NAME: Final = "python_thousand"
DEAL_LENGTH: Final = 24 + 400
"""A bound on one deal's nodes: 24 chance nodes and its decisions (the auction's bids at most)."""
WHOLE_GAME_DEALS: Final = 500
"""The deals ``max_game_length`` allows for with ``max_deals=0`` (a game of Thousand is played in dozens)."""

_GAME_TYPE: Final = pyspiel.GameType(
    short_name=SHORT_NAME,
    long_name="Thousand (Тысяча)",
    dynamics=pyspiel.GameType.Dynamics.SEQUENTIAL,
    chance_mode=pyspiel.GameType.ChanceMode.EXPLICIT_STOCHASTIC,
    information=pyspiel.GameType.Information.IMPERFECT_INFORMATION,
    utility=pyspiel.GameType.Utility.GENERAL_SUM,
    reward_model=pyspiel.GameType.RewardModel.TERMINAL,
    max_num_players=4,
    min_num_players=2,
    provides_information_state_string=True,
    provides_information_state_tensor=True,
    provides_observation_string=True,
    provides_observation_tensor=True,
    provides_factored_observation_string=False,
    parameter_specification=PARAMETERS,
)


def _info(players: int, max_deals: int) -> Any:
    deals = max_deals or WHOLE_GAME_DEALS
    return pyspiel.GameInfo(
        num_distinct_actions=NUM_ACTIONS,
        max_chance_outcomes=len(CARDS),
        num_players=players,
        min_utility=-1300.0 * deals,
        max_utility=1000.0 * deals,
        utility_sum=None,
        max_game_length=DEAL_LENGTH * deals * 4,  # redeals (T-11 to T-13) deal the same deal again
    )


class ThousandGame(pyspiel.Game):  # type: ignore[misc]
    """The game's description: its rules and the episode's length, from the parameters."""

    def __init__(self, params: dict[str, Any] | None = None) -> None:
        given = dict(params or {})
        episode = {k: given.pop(k) for k in ("max_deals", "first_dealer") if k in given}
        self.rules = rules_from(given)
        self.max_deals = int(episode.get("max_deals", 1))
        self.first_dealer = int(episode.get("first_dealer", 0))
        super().__init__(_GAME_TYPE, _info(self.rules.players, self.max_deals), params or {})

    def new_initial_state(self) -> ThousandState:
        return ThousandState(self)

    def make_py_observer(self, iig_obs_type: Any = None, params: Any = None) -> ThousandObserver:
        if params:
            raise ValueError(f"observation parameters are not supported; got {params}")
        perfect_recall = iig_obs_type is not None and iig_obs_type.perfect_recall
        return ThousandObserver(perfect_recall)


class ThousandState(pyspiel.State):  # type: ignore[misc]
    """A position: the episode's game, and the cards of the deal being dealt so far."""

    def __init__(self, game: ThousandGame) -> None:
        super().__init__(game)
        self.episode = Episode(game.rules, game.max_deals, game.first_dealer)
        self.dealing: list[int] = []
        """Card indices dealt so far at the current deal's chance nodes."""

    def current_player(self) -> int:
        episode = self.episode
        if episode.is_over:
            return int(pyspiel.PlayerId.TERMINAL)
        game = episode.game
        if game.is_chance_node:
            return int(pyspiel.PlayerId.CHANCE)
        seat = game.to_act
        assert seat is not None
        return seat

    def _legal_actions(self, player: int) -> list[int]:
        game = self.episode.game
        if player != game.to_act:
            return []
        return legal_ids(game.legal_actions())

    def chance_outcomes(self) -> list[tuple[int, float]]:
        dealt = set(self.dealing)
        left = [i for i in range(len(CARDS)) if i not in dealt]
        p = 1.0 / len(left)
        return [(i, p) for i in left]

    def _apply_action(self, action: int) -> None:
        game = self.episode.game
        if game.is_chance_node:
            if action in self.dealing or not 0 <= action < len(CARDS):
                raise ValueError(f"card {action} cannot be dealt now")
            self.dealing.append(action)
            if len(self.dealing) == len(CARDS):
                game.apply_chance(Shuffle(tuple(CARDS[i] for i in self.dealing)))
                self.dealing = []
            return
        seat = game.to_act
        assert seat is not None
        game.apply(seat, action_of(action))

    def _action_to_string(self, player: int, action: int) -> str:
        if player == pyspiel.PlayerId.CHANCE:
            return f"deal {CARDS[action]}"
        return describe(action_of(action))

    def is_terminal(self) -> bool:
        return self.episode.is_over

    def returns(self) -> list[float]:
        """The scores on the sheet at the end; zeros before it (a terminal reward model)."""
        if not self.episode.is_over:
            return [0.0] * self.episode.rules.players
        return self.episode.returns()

    def __str__(self) -> str:
        game = self.episode.game
        deal = game.deal
        scores = " ".join(str(r.score) for r in game.records)
        if deal is None:
            return f"scores {scores}; dealing {len(self.dealing)}/24"
        hands = " | ".join(" ".join(str(c) for c in deal.hand(s)) for s in range(game.rules.players))
        dealing = len(self.dealing)
        return f"deal {deal.number} {deal.phase.value}; scores {scores}; hands {hands}; dealing {dealing}"


class ThousandObserver:
    """OpenSpiel's Python observer: the :func:`engine.encoding.observation` tensor of a player's view, and
    the information-state key (perfect recall) or a short observation string."""

    def __init__(self, perfect_recall: bool) -> None:
        self.perfect_recall = perfect_recall
        self.tensor = np.zeros(OBSERVATION_SIZE, np.float32)
        self.dict = {"observation": self.tensor}

    def set_from(self, state: ThousandState, player: int) -> None:
        self.tensor[:] = observation(view(state.episode.game, player))

    def string_from(self, state: ThousandState, player: int) -> str:
        game = state.episode.game
        if self.perfect_recall:
            return f"{information_state(game, player)}\ndealing {len(state.dealing)}"
        v = view(game, player)
        hand = " ".join(str(c) for c in v.hand)
        trick = " ".join(f"{s}:{c}" for s, c in v.trick)
        phase = "-" if v.phase is None else v.phase.value
        return (
            f"p{player} deal {v.deal_number} {phase}; hand {hand}; trick {trick}; bid {v.high_bid}; "
            f"contract {v.contract}; points {v.trick_points}; scores {[s.score for s in v.scores]}; "
            f"dealing {len(state.dealing)}"
        )


pyspiel.register_game(_GAME_TYPE, ThousandGame)
