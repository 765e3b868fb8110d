"""Thousand as an OpenSpiel Python game, registered as ``python_thousand``.

``pyspiel.load_game("python_thousand", {"players": 4, "dark": True, "max_deals": 3})`` after importing this
module: every variant of :class:`engine.Rules` is a game parameter (an enum by its value's string), with the
episode's own ``max_deals`` (deals to play, 0 for the whole game to 1000) and ``first_dealer``
(:mod:`bots.envs.episode`). Chance nodes are explicit: the deck is dealt card by card, 24 chance nodes a
deal, each drawing one of the cards left uniformly, and the game deals them in that order
(:meth:`engine.Game.apply_chance` with the stacked :class:`engine.Shuffle`); a redeal deals 24 more.

Actions are :mod:`engine.encoding`'s fixed ids; the observation tensor is its
:func:`~engine.encoding.observation` of the player's view; the information-state tensor
:mod:`engine.recall`'s (the observation and the deal's actions in order, hidden gifts blanked: perfect
recall within a deal, earlier deals summed up by the sheet); the information-state string is
:func:`~engine.encoding.information_state` (the player's events without the deck's commitment, so it is the
same for every deal the player cannot tell apart). Returns are each seat's score on the sheet at the end of
the episode (general-sum). A state is cloned with ``Game.copy`` (:class:`~bots.envs.episode.Episode`).
"""

from __future__ import annotations

from typing import Any, Final

import pyspiel

from bots.envs.episode import PARAMETERS, Episode, rules_from
from bots.envs.spiel_base import CardGameState, CardObserver, game_type
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
from engine.recall import INFORMATION_STATE_SIZE, information_state_tensor

SHORT_NAME: Final = "python_thousand"
DEAL_LENGTH: Final = 24 + 400
"""A bound on one deal's nodes: 24 chance nodes and its decisions (the auction's bids at most)."""
WHOLE_GAME_DEALS: Final = 500
"""The deals ``max_game_length`` allows for with ``max_deals=0`` (a game of Thousand is played in dozens)."""

_GAME_TYPE: Final = game_type(SHORT_NAME, "Thousand (Тысяча)", 4, PARAMETERS)


class ThousandGame(pyspiel.Game):  # type: ignore[misc]
    """The game's description: its rules and the episode's length, from the parameters."""

    def __init__(self, params: dict[str, Any] | None = None) -> None:
        given = dict(params or {})
        episode = {k: given.pop(k) for k in ("max_deals", "first_dealer") if k in given}
        self.rules = rules_from(given)
        self.max_deals = int(episode.get("max_deals", 1))
        self.first_dealer = int(episode.get("first_dealer", 0))
        deals = self.max_deals or WHOLE_GAME_DEALS
        info = pyspiel.GameInfo(
            num_distinct_actions=NUM_ACTIONS,
            max_chance_outcomes=len(CARDS),
            num_players=self.rules.players,
            min_utility=-1300.0 * deals,
            max_utility=1000.0 * deals,
            utility_sum=None,
            max_game_length=DEAL_LENGTH * deals * 4,  # redeals (T-11 to T-13) deal the same deal again
        )
        super().__init__(_GAME_TYPE, info, params or {})

    def new_initial_state(self) -> ThousandState:
        return ThousandState(self)

    def make_py_observer(self, iig_obs_type: Any = None, params: Any = None) -> ThousandObserver:
        if params:
            raise ValueError(f"observation parameters are not supported; got {params}")
        recall = iig_obs_type is not None and iig_obs_type.perfect_recall
        return ThousandObserver(recall, INFORMATION_STATE_SIZE if recall else OBSERVATION_SIZE)


class ThousandState(CardGameState):
    """A position of an episode of Thousand."""

    cards = CARDS
    shuffle = Shuffle

    def __init__(self, game: ThousandGame) -> None:
        super().__init__(game)
        self.episode = Episode(game.rules, game.max_deals, game.first_dealer)

    def _legal_ids(self) -> list[int]:
        return legal_ids(self.episode.game.legal_actions())

    def _apply_id(self, seat: int, chosen: int) -> None:
        self.episode.game.apply(seat, action_of(chosen))

    def _describe(self, chosen: int) -> str:
        return describe(action_of(chosen))

    def __str__(self) -> str:
        game = self.episode.game
        deal = game.deal
        scores = " ".join(str(r.score) for r in game.records)
        if deal is None:
            return f"scores {scores}; dealing {len(self.dealing)}/24"
        hands = " | ".join(" ".join(str(c) for c in deal.hand(s)) for s in range(game.rules.players))
        dealing = len(self.dealing)
        return f"deal {deal.number} {deal.phase.value}; scores {scores}; hands {hands}; dealing {dealing}"


class ThousandObserver(CardObserver):
    """:mod:`engine.encoding` for OpenSpiel's observer."""

    def encode(self, state: ThousandState, player: int) -> list[float]:
        return observation(view(state.episode.game, player))

    def recall(self, state: ThousandState, player: int) -> list[float]:
        return information_state_tensor(state.episode.game, player)

    def key(self, state: ThousandState, player: int) -> str:
        return information_state(state.episode.game, player)

    def short(self, state: ThousandState, player: int) -> str:
        v = view(state.episode.game, player)
        hand = " ".join(str(c) for c in v.hand)
        trick = " ".join(f"{s}:{c}" for s, c in v.trick)
        phase = "-" if v.phase is None else v.phase.value
        return (
            f"p{player} deal {v.deal_number} {phase}; hand {hand}; trick {trick}; bid {v.high_bid}; "
            f"contract {v.contract}; points {v.trick_points}; scores {[s.score for s in v.scores]}"
        )


pyspiel.register_game(_GAME_TYPE, ThousandGame)
