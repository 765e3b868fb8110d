"""1000 Blagogo as an OpenSpiel Python game, registered as ``python_blagogo``.

``pyspiel.load_game("python_blagogo", {"players": 4, "max_rounds": 2})`` after importing this module: every
variant of ``BlagogoRules`` is a game parameter (``turnover_limit`` defaults to
:data:`~bots.envs.blagogo_episode.TURNOVER_LIMIT` here, so random play ends), with ``max_rounds`` (0: the
whole game) and ``first_dealer``. Chance nodes are explicit: the 108 cards are dealt one by one in the order
the round deals them. Actions are :mod:`engine.blagogo.encoding`'s ids (the turn's simple actions and its
candidate melds, B-22); the observation tensor its observation of the player's view, the
information-state tensor :mod:`engine.blagogo.recall`'s (the round's latest moves: not strictly perfect
recall); the information-state string its key without the deck's commitment (perfect recall). Returns are
the scores on the sheet.
"""

from __future__ import annotations

from typing import Any, Final

import pyspiel

from bots.envs.blagogo_episode import PARAMETERS, BlagogoEpisode, blagogo_rules_from
from bots.envs.spiel_base import CardGameState, CardObserver, game_type
from engine.blagogo import CARDS, Shuffle, view
from engine.blagogo.actions import describe
from engine.blagogo.encoding import NUM_ACTIONS, OBSERVATION_SIZE, action_of, information_state, legal_ids
from engine.blagogo.encoding import observation as encode_view
from engine.blagogo.recall import INFORMATION_STATE_SIZE, information_state_tensor

SHORT_NAME: Final = "python_blagogo"
ROUND_LENGTH: Final = 108 + 6000
"""A bound on one round's nodes: 108 chance nodes and its turns (a round with a turnover limit ends)."""

_GAME_TYPE: Final = game_type(SHORT_NAME, "1000 Blagogo (Тысяча Благого)", 8, PARAMETERS)


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
        recall = iig_obs_type is not None and iig_obs_type.perfect_recall
        return BlagogoObserver(recall, INFORMATION_STATE_SIZE if recall else OBSERVATION_SIZE)


class BlagogoState(CardGameState):
    """A position of an episode of 1000 Blagogo."""

    cards = CARDS
    shuffle = Shuffle

    def __init__(self, game: BlagogoGame) -> None:
        super().__init__(game)
        self.episode = BlagogoEpisode(game.rules, game.max_rounds, game.first_dealer)

    def _legal_ids(self) -> list[int]:
        game = self.episode.game
        return legal_ids(game.legal_actions(), game.candidate_melds())

    def _apply_id(self, seat: int, chosen: int) -> None:
        game = self.episode.game
        game.apply(seat, action_of(chosen, game.legal_actions(), game.candidate_melds()))

    def _describe(self, chosen: int) -> str:
        game = self.episode.game
        try:
            return describe(action_of(chosen, game.legal_actions(), game.candidate_melds()))
        except ValueError:
            return f"action {chosen}"

    def __str__(self) -> str:
        game = self.episode.game
        return f"round {game.rounds_dealt}; scores {game.scores}; dealing {len(self.dealing)}"


class BlagogoObserver(CardObserver):
    """:mod:`engine.blagogo.encoding` for OpenSpiel's observer."""

    def encode(self, state: BlagogoState, player: int) -> list[float]:
        return encode_view(view(state.episode.game, player))

    def recall(self, state: BlagogoState, player: int) -> list[float]:
        return information_state_tensor(state.episode.game, player)

    def key(self, state: BlagogoState, player: int) -> str:
        return information_state(state.episode.game, player)

    def short(self, state: BlagogoState, player: int) -> str:
        v = view(state.episode.game, player)
        return (
            f"p{player} round {v.round_number}; hand {' '.join(map(str, v.hand))}; "
            f"bridge {' '.join(map(str, v.bridge))}; melds {len(v.melds)}; scores {list(v.scores)}"
        )


pyspiel.register_game(_GAME_TYPE, BlagogoGame)
