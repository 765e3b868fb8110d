"""An episode of 1000 Blagogo for the learning environments: a game played for ``max_rounds`` rounds (0: to
its target), its variants as flat parameters. A round of random play may never end by the rules alone (B-10:
a deck of dead cards goes on being turned over), so the environments default ``turnover_limit`` to
:data:`TURNOVER_LIMIT` (the rules' own variant: the round then ends with no winner) unless it is given.
Returns are each seat's score on the sheet (B-20)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Final

from bots.envs.episode import episode_length, episode_over, rule_kwargs, rule_parameters
from engine.blagogo import BlagogoRules, Game

TURNOVER_LIMIT: Final = 2
EPISODE_PARAMETERS: Final[dict[str, int | bool | str]] = {"max_rounds": 1, "first_dealer": 0}
PARAMETERS: Final = {**rule_parameters(BlagogoRules), "turnover_limit": TURNOVER_LIMIT, **EPISODE_PARAMETERS}
"""Every parameter of a 1000 Blagogo environment, with its default."""


def blagogo_rules_from(params: Mapping[str, object]) -> BlagogoRules:
    """The rules a parameter mapping names (``turnover_limit`` :data:`TURNOVER_LIMIT` unless given).

    :raises ValueError: for an unknown parameter or a value of the wrong kind.
    :raises engine.RulesError: for variants the rules refuse.
    """
    unknown = set(params) - set(PARAMETERS)
    if unknown:
        raise ValueError(f"unknown parameters {sorted(unknown)} (known: {sorted(PARAMETERS)})")
    kwargs = {"turnover_limit": TURNOVER_LIMIT, **rule_kwargs(BlagogoRules, params)}
    return BlagogoRules(**kwargs)  # type: ignore[arg-type]


class BlagogoEpisode:
    """A game played until ``max_rounds`` rounds were played (0: to its end)."""

    def __init__(
        self, rules: BlagogoRules, max_rounds: int = 1, first_dealer: int = 0, seed: int = 0
    ) -> None:
        self.max_rounds = episode_length("max_rounds", max_rounds)
        self.rules = rules
        self.game = Game(rules, seed, first_dealer=first_dealer)

    @property
    def is_over(self) -> bool:
        return episode_over(self.game, self.max_rounds, self.game.rounds_dealt)

    def returns(self) -> list[float]:
        return [float(s) for s in self.game.scores]

    def copy(self) -> BlagogoEpisode:
        """An independent copy (:meth:`engine.blagogo.Game.copy`, no replay)."""
        twin = BlagogoEpisode.__new__(BlagogoEpisode)
        twin.rules = self.rules
        twin.max_rounds = self.max_rounds
        twin.game = self.game.copy()
        return twin

    def __deepcopy__(self, memo: dict[int, object]) -> BlagogoEpisode:
        """What OpenSpiel's clone of a Python state calls (a deep copy of the state's attributes)."""
        return self.copy()
