"""1000 Blagogo as a Gymnasium environment for one seat against chosen bots: :class:`BlagogoSingleSeatEnv`.

As :mod:`bots.envs.single` for Thousand (one base, :mod:`bots.envs.single_base`): the learner plays
``seat``; the other seats are played by strategies of :data:`bots.blagogo.BLAGOGO` (by name, ``opponents``),
each choosing from its view and its Turn's actions (the simple legal actions, then the candidate melds,
B-22) as at a table. An observation is :func:`engine.blagogo.encoding.observation` of the learner's view;
``info["action_mask"]`` holds the legal ids (:mod:`engine.blagogo.encoding`). The reward of a step is the
learner's score change on the sheet, so an episode's return is its score over ``max_rounds`` rounds (0: the
whole game). ``turnover_limit`` defaults to :data:`~bots.envs.blagogo_episode.TURNOVER_LIMIT` so that every
round ends.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from typing import Any

from bots.blagogo import BlagogoStrategy, make_blagogo_strategy
from bots.envs.blagogo_episode import BlagogoEpisode, blagogo_rules_from
from bots.envs.single_base import SingleSeatBase
from bots.strategy import StrategyOptions
from engine.blagogo import CARDS, Shuffle, view
from engine.blagogo.encoding import NUM_ACTIONS, OBSERVATION_SIZE, action_of, legal_ids, observation


class BlagogoSingleSeatEnv(SingleSeatBase):
    """See the module docstring. Keyword arguments besides these are the variants of ``BlagogoRules`` and the
    episode's ``max_rounds`` and ``first_dealer`` (:mod:`bots.envs.blagogo_episode`)."""

    def __init__(
        self,
        opponents: Sequence[str] = ("heuristic", "heuristic"),
        seat: int = 0,
        options: StrategyOptions | None = None,
        illegal_penalty: float = 10.0,
        render_mode: str | None = None,
        **params: Any,
    ) -> None:
        self.max_rounds = int(params.pop("max_rounds", 1))
        self.first_dealer = int(params.pop("first_dealer", 0))
        params.setdefault("players", len(opponents) + 1)
        self.rules = blagogo_rules_from(params)
        if len(opponents) != self.rules.players - 1:
            raise ValueError(f"{self.rules.players} players need {self.rules.players - 1} opponents")
        super().__init__(
            seat,
            self.rules.players,
            num_actions=NUM_ACTIONS,
            observation_size=OBSERVATION_SIZE,
            illegal_penalty=illegal_penalty,
            render_mode=render_mode,
        )
        self.opponent_names = tuple(opponents)
        self.options = options or StrategyOptions()
        self.episode = BlagogoEpisode(self.rules, self.max_rounds, self.first_dealer)
        self._bots: dict[int, BlagogoStrategy] = {}

    def _start(self) -> None:
        self.episode = BlagogoEpisode(self.rules, self.max_rounds, self.first_dealer)
        others = [s for s in range(self.rules.players) if s != self.seat]
        self._bots = {
            s: make_blagogo_strategy(n, self.options)
            for s, n in zip(others, self.opponent_names, strict=True)
        }

    def _over(self) -> bool:
        return self.episode.is_over

    def _chance(self) -> bool:
        return self.episode.game.is_chance_node

    def _deal(self, rng: random.Random) -> None:
        order = list(CARDS)
        rng.shuffle(order)
        self.episode.game.apply_chance(Shuffle(tuple(order)))

    def _to_act(self) -> int | None:
        return self.episode.game.to_act

    def _legal_ids(self) -> list[int]:
        game = self.episode.game
        return legal_ids(game.legal_actions(), game.candidate_melds())

    def _apply(self, chosen: int) -> None:
        game = self.episode.game
        game.apply(self.seat, action_of(chosen, game.legal_actions(), game.candidate_melds()))

    def _bot_move(self, seat: int, rng: random.Random) -> None:
        game = self.episode.game
        actions = (*game.legal_actions(), *game.candidate_melds())
        game.apply(seat, self._bots[seat].choose(view(game, seat), actions, rng))

    def _observe_all(self) -> None:
        game = self.episode.game
        for s, bot in self._bots.items():
            bot.observe(view(game, s))

    def _observation(self) -> list[float]:
        return observation(view(self.episode.game, self.seat))

    def _learner_score(self) -> int:
        return self.episode.game.scores[self.seat]

    def render(self) -> str | None:
        if self.render_mode != "ansi":
            return None
        v = view(self.episode.game, self.seat)
        return f"round {v.round_number}; hand {' '.join(str(c) for c in v.hand)}; scores {list(v.scores)}"
