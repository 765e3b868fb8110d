"""Who plays the next sets: a pure function of the members, what they play now and the day's pairings, so
that it is tested (and benchmarked) without a server or a database.

A set's members are one *pairing* (the set of them, seats aside). Every idle registered bot is placed at once,
the one idle longest first, with the companions whose pairing has been played the fewest times today (other
registered bots before reference bots, then at random): pairings spread over every connected bot, and none is
played more than ``max_same`` times a day (a bot whose every pairing reached it waits for the next day's).
Reference bots (the server's strategies, ``bot:<strategy>``) are members at any number of sets at once; a
registered bot at one set of a pool at a time. With room left (``reference_sets``), the reference bots play
sets among themselves too, so that the scale they anchor is always measured.
"""

from __future__ import annotations

import itertools
import random
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

Pairing = frozenset[str]


@dataclass(frozen=True, slots=True)
class PoolState:
    """One pool as the scheduler sees it now."""

    players: int
    idle: Sequence[str]
    """Registered bots connected for the pool and in none of its sets, idle longest first."""
    references: Sequence[str]
    """The reference bots' member ids (``bot:<strategy>``)."""
    pairings_today: Mapping[Pairing, int]
    """How many sets each pairing started in the last day."""
    reference_sets_playing: int
    """Sets of reference bots only playing now."""


def plan_sets(
    state: PoolState, *, max_same: int, reference_sets: int, rng: random.Random
) -> list[tuple[str, ...]]:
    """The sets to start now, each its members in the seat order of the set's first table."""
    counts = dict(state.pairings_today)
    idle = list(state.idle)
    planned: list[tuple[str, ...]] = []
    while idle:
        first = idle.pop(0)
        others = [*idle, *state.references]
        group = _least_played(first, others, state.players - 1, counts, max_same, set(idle), rng)
        if group is None:
            continue  # every pairing of this bot is used up today: it waits
        planned.append(_seated((first, *group), rng))
        counts[frozenset((first, *group))] = counts.get(frozenset((first, *group)), 0) + 1
        idle = [bot for bot in idle if bot not in group]
    for _ in range(max(0, reference_sets - state.reference_sets_playing)):
        group = _least_played(None, list(state.references), state.players, counts, max_same, set(), rng)
        if group is None:
            break
        planned.append(_seated(group, rng))
        counts[frozenset(group)] = counts.get(frozenset(group), 0) + 1
    return planned


def _least_played(  # noqa: PLR0917  # the pool's state, passed on
    first: str | None,
    others: list[str],
    size: int,
    counts: Mapping[Pairing, int],
    max_same: int,
    registered: set[str],
    rng: random.Random,
) -> tuple[str, ...] | None:
    """The ``size`` of ``others`` whose pairing with ``first`` was played the fewest times today (below
    ``max_same``), the most registered bots among equals, then at random; None when none is left."""
    best: list[tuple[str, ...]] = []
    best_key: tuple[int, int] | None = None
    for group in itertools.combinations(others, size):
        members = frozenset(group) | ({first} if first is not None else set())
        played = counts.get(members, 0)
        if played >= max_same:
            continue
        key = (played, -sum(1 for m in group if m in registered))
        if best_key is None or key < best_key:
            best, best_key = [group], key
        elif key == best_key:
            best.append(group)
    return rng.choice(best) if best else None


def _seated(members: Sequence[str], rng: random.Random) -> tuple[str, ...]:
    order = list(members)
    rng.shuffle(order)
    return tuple(order)


def rotation_seats(members: Sequence[str], rotation: int) -> tuple[str, ...]:
    """Each seat's member at the set's table ``rotation``: seat s holds member (s + rotation) mod n, so over
    the set's n tables every member sits in every seat once, and so holds every hand of the deals once."""
    n = len(members)
    return tuple(members[(seat + rotation) % n] for seat in range(n))
