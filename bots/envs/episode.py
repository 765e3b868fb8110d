"""An episode of Thousand for the learning environments: a :class:`engine.Game` played for a number of
deals (or to its end), and its variants as flat parameters (what OpenSpiel's game parameters and the other
environments' keyword arguments hold).

A redeal (T-11 to T-13) is not a deal played: the same deal is dealt again, and the episode goes on.
Returns are each seat's change on the score sheet over the episode (T-23 to T-29: bolts, the barrel, 555
included), which is what a seat's play is worth in points.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from enum import Enum
from typing import Any, Final

from engine import Game, Rules

EPISODE_PARAMETERS: Final[dict[str, int | bool | str]] = {"max_deals": 1, "first_dealer": 0}
"""The episode's own parameters: deals to play (0: the whole game, to 1000), and the first dealer."""


def rule_parameters(rules_type: type = Rules) -> dict[str, int | bool | str]:
    """Every variant of the rules (:class:`engine.Rules` or ``BlagogoRules``) as a parameter and its
    default (an enum by its value)."""
    out: dict[str, int | bool | str] = {}
    for f in dataclasses.fields(rules_type):
        default = f.default
        if isinstance(default, Enum):
            out[f.name] = str(default.value)
        elif isinstance(default, bool | int):
            out[f.name] = default
    return out


PARAMETERS: Final = {**rule_parameters(), **EPISODE_PARAMETERS}
"""Every parameter of a Thousand environment, with its default."""


def rules_from(params: Mapping[str, object]) -> Rules:
    """The rules a parameter mapping names (others at their defaults).

    :raises ValueError: for an unknown parameter name or a value of the wrong kind.
    :raises engine.RulesError: for a combination of variants the rules refuse.
    """
    unknown = set(params) - set(PARAMETERS)
    if unknown:
        raise ValueError(f"unknown parameters {sorted(unknown)} (known: {sorted(PARAMETERS)})")
    return Rules(**rule_kwargs(Rules, params))  # type: ignore[arg-type]


def rule_kwargs(rules_type: type, params: Mapping[str, object]) -> dict[str, object]:
    """The keyword arguments of ``rules_type`` that ``params`` names, each of its field's kind.

    :raises ValueError: for a value of the wrong kind.
    """
    kwargs: dict[str, object] = {}
    for f in dataclasses.fields(rules_type):
        if f.name not in params:
            continue
        value = params[f.name]
        default = f.default
        if isinstance(default, Enum):
            kwargs[f.name] = type(default)(value)
        elif isinstance(default, bool):
            if not isinstance(value, bool | int):
                raise ValueError(f"{f.name} takes a boolean, not {value!r}")
            kwargs[f.name] = bool(value)
        else:
            if type(value) is not int:
                raise ValueError(f"{f.name} takes an integer, not {value!r}")
            kwargs[f.name] = value
    return kwargs


def episode_length(name: str, value: int) -> int:
    """An episode's length parameter (``max_deals``, ``max_rounds``): 0 for the whole game, or more."""
    if value < 0:
        raise ValueError(f"{name} must be 0 (the whole game) or more, not {value}")
    return value


def episode_over(game: Any, limit: int, played: int) -> bool:
    """Whether an episode of ``limit`` deals or rounds (0: the whole game) is over, ``played`` of them played:
    the game ended, or the last one is over and the next not dealt yet (a chance node)."""
    return bool(game.is_over) or (bool(limit) and bool(game.is_chance_node) and played >= limit)


class Episode:
    """A game played until ``max_deals`` deals were played (0: to its end)."""

    def __init__(self, rules: Rules, max_deals: int = 1, first_dealer: int = 0, seed: int = 0) -> None:
        self.max_deals = episode_length("max_deals", max_deals)
        self.rules = rules
        self.game = Game(rules, seed, first_dealer=first_dealer)

    @property
    def is_over(self) -> bool:
        return episode_over(self.game, self.max_deals, self.game.deals_played)

    def returns(self) -> list[float]:
        """Each seat's score on the sheet now (it started at 0)."""
        return [float(r.score) for r in self.game.records]

    def copy(self) -> Episode:
        """An independent copy (``Game.copy``, no replay)."""
        twin = Episode.__new__(Episode)
        twin.rules = self.rules
        twin.max_deals = self.max_deals
        twin.game = self.game.copy()
        return twin

    def __deepcopy__(self, memo: dict[int, object]) -> Episode:
        """What OpenSpiel's clone of a Python state calls (a deep copy of the state's attributes)."""
        return self.copy()
