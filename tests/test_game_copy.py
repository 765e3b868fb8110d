"""``Game.copy`` of every game (a state copy without replaying history, issue #31), one check parametrized
over :data:`tests.conformance_games.GAMES`: every attribute copied, no container and no mutable part shared,
and a copy plays on exactly as the original would while leaving it alone (T-35, B-23: a game is a function of
its seed and its actions, so two copies given the same actions give the same events), through the deal's or
round's end and the next deal, a fair table's record of its deals untouched."""

from __future__ import annotations

import dataclasses
import random
from collections.abc import Mapping
from typing import Any

import pytest

from engine.seeds import FairDeals
from tests.conformance_games import GAMES, ConformanceGame

ROWS = {row.name: row for row in GAMES}
PLAYERS = {"thousand": (2, 3, 4), "blagogo": (2, 4, 6)}
"""Player counts of the attribute check: each game's smallest, one between and its largest or a larger one."""
ATTRIBUTES = {"thousand": 13, "blagogo": 12}
"""How many attributes a game has at the least: the attributes are read, not assumed."""


def _played(row: ConformanceGame, players: int, seed: int, moves: int, fair: bool = False) -> Any:
    """A game ``moves`` steps into a random playout (rounds ended by the tournament's rules: B-10)."""
    game_description = row.description
    rng = random.Random(seed)
    table = FairDeals(row.name, bytes(range(32)), players) if fair else None
    rules = row.default(players)
    rules = dataclasses.replace(rules, **game_description.duplicate.tournament_rules)
    game = game_description.new_game(rules, seed, None, table)
    for _ in range(moves):
        if game.is_over:
            break
        if game.is_chance_node:
            game.apply_chance()
            continue
        seat = game.to_act
        assert seat is not None
        game.apply(seat, row.choose(game, rng))
    return game


def _attributes(obj: object) -> list[str]:
    """Every attribute an object sets: its ``__dict__``, its slots, or mypyc's list (compiled)."""
    names = getattr(type(obj), "__mypyc_attrs__", None)
    if names is None:
        names = list(getattr(obj, "__dict__", {}))
        names += [n for cls in type(obj).__mro__ for n in getattr(cls, "__slots__", ())]
    return sorted({name for name in names if not name.startswith("__")})


def _mutable(value: object) -> bool:
    return isinstance(value, list | dict | set) or type(value).__hash__ is None


def _not_shared(name: str, mine: object, theirs: object) -> None:
    """A container and every mutable thing in it are the copy's own."""
    if _mutable(mine):
        assert theirs is not mine, f"{name} is shared between a game and its copy"
    if isinstance(mine, list) and isinstance(theirs, list):
        for m, t in zip(mine, theirs, strict=True):
            if _mutable(m):
                assert t is not m, f"an item of {name} is shared between a game and its copy"


def _cases(table: Mapping[str, tuple[int, ...]]) -> list[tuple[str, int]]:
    return [(name, players) for name in ROWS for players in table[name]]


@pytest.mark.parametrize(("game", "players"), _cases(PLAYERS))
def test_copy_copies_every_attribute_and_shares_no_container(game: str, players: int) -> None:
    row = ROWS[game]
    # the game's deal (round) in progress: ``game.deal``, ``game.round``
    unit = row.description.duplicate.unit
    for seed in range(5):
        original = _played(row, players, seed, 30 + 70 * seed, fair=seed % 2 == 1)
        twin = original.copy()
        names = _attributes(original)
        assert len(names) >= ATTRIBUTES[game] and names == _attributes(twin)
        for name in names:
            mine, theirs = getattr(original, name), getattr(twin, name)
            if name == unit:
                assert mine is not None and theirs is not mine
                fields = _attributes(mine)
                assert fields and fields == _attributes(theirs)
                for key in fields:
                    assert getattr(theirs, key) == getattr(mine, key), f"{unit}.{key}"
                    _not_shared(f"{unit}.{key}", getattr(mine, key), getattr(theirs, key))
            elif name == "fair":
                assert (mine is None) == (theirs is None)
                if mine is not None:
                    assert theirs is not mine and theirs.dealt == mine.dealt
                    assert theirs.dealt is not mine.dealt
            else:
                assert theirs == mine, name
                _not_shared(name, mine, theirs)


@pytest.mark.parametrize(("game", "players"), _cases({name: (2, 3, 4) for name in ROWS}))
def test_a_copy_plays_on_as_the_original_does_and_leaves_it_alone(game: str, players: int) -> None:
    """Two copies given the same actions produce the same events, through the deal's (round's) end and the
    next deal; the copies' moves reach neither the original nor a fair table's record of its deals."""
    row = ROWS[game]
    parts = row.description.duplicate
    unit = parts.unit

    def state(g: Any) -> tuple[int, int, int, list[int]]:
        return len(g.history), len(g.events), parts.dealt(g), [parts.score(g, s) for s in range(players)]

    for seed in range(4):
        original = _played(row, players, seed, 20 + 60 * seed, fair=seed % 2 == 0)
        before = state(original)
        current = getattr(original, unit)
        hands = None if current is None else list(current.hands)
        fair_dealt = None if original.fair is None else len(original.fair.dealt)
        twin, other = original.copy(), original.copy()
        rng_a, rng_b = random.Random(seed), random.Random(seed)
        dealt = parts.dealt(twin)
        for _ in range(3000):
            if twin.is_over or parts.dealt(twin) > dealt + 1:
                break
            if twin.is_chance_node:
                assert twin.apply_chance() == other.apply_chance()
                continue
            seat = twin.to_act
            assert seat is not None and seat == other.to_act
            action = row.choose(twin, rng_a)
            assert action == row.choose(other, rng_b)
            assert twin.apply(seat, action) == other.apply(seat, action)
        assert twin.history == other.history and state(twin) == state(other)
        assert len(twin.history) > before[0]
        assert state(original) == before
        after = getattr(original, unit)
        assert hands is None or (after is not None and list(after.hands) == hands)
        assert fair_dealt is None or (original.fair is not None and len(original.fair.dealt) == fair_dealt)
        check = getattr(after, "check_invariants", None)
        if check is not None:
            check()
