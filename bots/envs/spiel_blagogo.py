"""1000 Blagogo as an OpenSpiel Python game, registered as ``python_blagogo``.

``pyspiel.load_game("python_blagogo", {"players": 4, "max_rounds": 2})`` after importing this module: every
variant of ``BlagogoRules`` is a game parameter (``turnover_limit`` defaults to
:data:`~bots.envs.blagogo_episode.TURNOVER_LIMIT` here, so random play ends), with ``max_rounds`` (0: the
whole game) and ``first_dealer``. Chance nodes are explicit: the 108 cards are dealt one by one in the order
the round deals them. Actions are :mod:`engine.blagogo.encoding`'s ids (the turn's simple actions and its
candidate melds, B-22); the observation and information-state tensors its observation of the player's view;
the information-state string its key without the deck's commitment. Returns are the scores on the sheet.
"""

from __future__ import annotations

from typing import Any, Final

import numpy as np
import pyspiel

from bots.envs.blagogo_episode import PARAMETERS, BlagogoEpisode, blagogo_rules_from
from engine.blagogo import CARDS, Shuffle, view
from engine.blagogo.actions import describe
from engine.blagogo.encoding import NUM_ACTIONS, OBSERVATION_SIZE, action_of, information_state, legal_ids
from engine.blagogo.encoding import observation as encode_view

SHORT_NAME: Final = "python_blagogo"
ROUND_LENGTH: Final = 108 + 6000
"""A bound on one round's nodes: 108 chance nodes and its turns (a round with a turnover limit ends)."""

_GAME_TYPE: Final = pyspiel.GameType(
    short_name=SHORT_NAME,
    long_name="1000 Blagogo (Тысяча Благого)",
    dynamics=pyspiel.GameType.Dynamics.SEQUENTIAL,
    chance_mode=pyspiel.GameType.ChanceMode.EXPLICIT_STOCHASTIC,
    information=pyspiel.GameType.Information.IMPERFECT_INFORMATION,
    utility=pyspiel.GameType.Utility.GENERAL_SUM,
    reward_model=pyspiel.GameType.RewardModel.TERMINAL,
    max_num_players=8,
    min_num_players=2,
    provides_information_state_string=True,
    provides_information_state_tensor=True,
    provides_observation_string=True,
    provides_observation_tensor=True,
    provides_factored_observation_string=False,
    parameter_specification=PARAMETERS,
)


class BlagogoGame(pyspiel.Game):  # type: ignore[misc]
    """The game's description: its rules and the episode's length, from the parameters."""

    def __init__(self, params: dict[str, Any] | None = None) -> None:
        given = dict(params or {})
        episode = {k: given.pop(k) for k in ("max_rounds", "first_dealer") if k in given}
        self.rules = blagogo_rules_from(given)
        self.max_rounds = int(episode.get("max_rounds", 1))
        self.first_dealer = int(episode.get("first_dealer", 0))
        rounds = self.max_rounds or 200
        info = pyspiel.GameInfo(
            num_distinct_actions=NUM_ACTIONS,
            max_chance_outcomes=len(CARDS),
            num_players=self.rules.players,
            min_utility=-2000.0 * rounds,
            max_utility=2000.0 * rounds,
            utility_sum=None,
            max_game_length=ROUND_LENGTH * rounds,
        )
        super().__init__(_GAME_TYPE, info, params or {})

    def new_initial_state(self) -> BlagogoState:
        return BlagogoState(self)

    def make_py_observer(self, iig_obs_type: Any = None, params: Any = None) -> BlagogoObserver:
        if params:
            raise ValueError(f"observation parameters are not supported; got {params}")
        return BlagogoObserver(iig_obs_type is not None and iig_obs_type.perfect_recall)


class BlagogoState(pyspiel.State):  # type: ignore[misc]
    """A position: the episode's game, and the cards of the round being dealt so far."""

    def __init__(self, game: BlagogoGame) -> None:
        super().__init__(game)
        self.episode = BlagogoEpisode(game.rules, game.max_rounds, game.first_dealer)
        self.dealing: list[int] = []

    def current_player(self) -> int:
        if self.episode.is_over:
            return int(pyspiel.PlayerId.TERMINAL)
        game = self.episode.game
        if game.is_chance_node:
            return int(pyspiel.PlayerId.CHANCE)
        seat = game.to_act
        assert seat is not None
        return seat

    def _legal_actions(self, player: int) -> list[int]:
        game = self.episode.game
        if player != game.to_act:
            return []
        return legal_ids(game.legal_actions(), game.candidate_melds())

    def chance_outcomes(self) -> list[tuple[int, float]]:
        dealt = set(self.dealing)
        left = [i for i in range(len(CARDS)) if i not in dealt]
        return [(i, 1.0 / len(left)) for i in left]

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
        game.apply(seat, action_of(action, game.legal_actions(), game.candidate_melds()))

    def _action_to_string(self, player: int, action: int) -> str:
        if player == pyspiel.PlayerId.CHANCE:
            return f"deal {CARDS[action]}"
        game = self.episode.game
        try:
            return describe(action_of(action, game.legal_actions(), game.candidate_melds()))
        except ValueError:
            return f"action {action}"

    def is_terminal(self) -> bool:
        return self.episode.is_over

    def returns(self) -> list[float]:
        if not self.episode.is_over:
            return [0.0] * self.episode.rules.players
        return self.episode.returns()

    def __str__(self) -> str:
        game = self.episode.game
        return f"round {game.rounds_dealt}; scores {game.scores}; dealing {len(self.dealing)}"


class BlagogoObserver:
    """OpenSpiel's Python observer over :mod:`engine.blagogo.encoding`."""

    def __init__(self, perfect_recall: bool) -> None:
        self.perfect_recall = perfect_recall
        self.tensor = np.zeros(OBSERVATION_SIZE, np.float32)
        self.dict = {"observation": self.tensor}

    def set_from(self, state: BlagogoState, player: int) -> None:
        self.tensor[:] = encode_view(view(state.episode.game, player))

    def string_from(self, state: BlagogoState, player: int) -> str:
        game = state.episode.game
        if self.perfect_recall:
            return f"{information_state(game, player)}\ndealing {len(state.dealing)}"
        v = view(game, player)
        return (
            f"p{player} round {v.round_number}; hand {' '.join(map(str, v.hand))}; "
            f"bridge {' '.join(map(str, v.bridge))}; melds {len(v.melds)}; scores {list(v.scores)}; "
            f"dealing {len(state.dealing)}"
        )


pyspiel.register_game(_GAME_TYPE, BlagogoGame)
