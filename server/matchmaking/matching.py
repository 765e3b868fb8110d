"""Who plays with whom: a pure function of the waiting tickets and the time, so that it is tested (and
benchmarked) without a server or a database.

Tickets are grouped by *pool*: the same game, number of players, rules (their bytes, so exact rules and the
preset that names them are one pool) and rated or not. Within a pool the oldest ticket is served first:

- unrated: it plays with the next oldest of its pool;
- rated: with those nearest to it in rating, as long as the group's spread (highest rating less the lowest)
  stays within the narrowest *window* of its members; a window starts at :data:`WINDOW_START` ordinal
  points, widens by :data:`WINDOW_GROWTH` a second of waiting and stops at :data:`WINDOW_CAP`, so a player
  far from the others waits longer but does not wait for ever;
- once a ticket has waited the time it accepted and no full group formed, if it allows bots it sits with the
  others of its group that allow them too, and bots of a strength near the group's (the mean rating,
  :func:`server.matchmaking.ratings.bot_for`) fill the seats left; such a game is never rated.
"""

from __future__ import annotations

import hashlib
import secrets
from collections import defaultdict
from collections.abc import Callable, Sequence
from typing import Final

from server.matchmaking.queue_store import Match, PlannedSeat, Ticket

WINDOW_START: Final = 3.0
WINDOW_GROWTH: Final = 0.25
WINDOW_CAP: Final = 25.0
DEFAULT_NAME: Final = "Player"
_RANDOM: Final = secrets.SystemRandom()


def pool_of(game: str, players: int, rules: bytes, rated: bool) -> str:
    """The pool of a request: who may be seated together."""
    digest = hashlib.sha256(rules).hexdigest()[:16]
    return f"{game}/{players}/{'rated' if rated else 'casual'}/{digest}"


def window(waited: float) -> float:
    """The rating window of a ticket that has waited ``waited`` seconds (ordinal units)."""
    return min(WINDOW_START + WINDOW_GROWTH * max(0.0, waited), WINDOW_CAP)


def form_matches(
    tickets: Sequence[Ticket],
    now: float,
    bot_for: Callable[[str, int, float], str],
    new_id: Callable[[], str] = lambda: secrets.token_hex(12),
    shuffle: Callable[[list[PlannedSeat]], None] = _RANDOM.shuffle,
) -> list[Match]:
    """The matches the waiting ``tickets`` form now (each ticket in one at most). ``bot_for(game, players,
    rating)`` names the bot strategy for a group of that mean rating; ``new_id`` draws match ids; ``shuffle``
    orders a match's seats."""
    pools: dict[str, list[Ticket]] = defaultdict(list)
    for ticket in sorted(tickets, key=lambda t: (t.enqueue_time, t.ticket_id)):
        pools[ticket.pool].append(ticket)
    matches: list[Match] = []
    for pool in pools.values():
        matches.extend(_pool_matches(pool, now, bot_for, new_id, shuffle))
    return matches


def _pool_matches(
    pool: list[Ticket],
    now: float,
    bot_for: Callable[[str, int, float], str],
    new_id: Callable[[], str],
    shuffle: Callable[[list[PlannedSeat]], None],
) -> list[Match]:
    left = list(pool)  # oldest first
    matches: list[Match] = []
    while left:
        first = left[0]
        group = _group(first, left[1:], now)
        needed = first.players
        if len(group) == needed:
            matches.append(_match(group, now, 0, bot_for, new_id, shuffle))
        elif first.bots_ok and now - first.enqueue_time >= first.max_wait:
            with_bots = [t for t in group if t.bots_ok]
            matches.append(_match(with_bots, now, needed - len(with_bots), bot_for, new_id, shuffle))
            group = with_bots
        else:
            group = [first]  # it waits on; the younger ones may still group without it
            left.remove(first)
            continue
        for ticket in group:
            left.remove(ticket)
    return matches


def _group(first: Ticket, others: list[Ticket], now: float) -> list[Ticket]:
    """``first`` and the others it plays with: the oldest (unrated), or the nearest in rating within every
    member's window (rated)."""
    needed = first.players
    if not first.rated:
        return [first, *others[: needed - 1]]
    group = [first]
    nearest = sorted(others, key=lambda t: (abs(t.rating - first.rating), t.enqueue_time))
    for candidate in nearest:
        if len(group) == needed:
            break
        trial = [*group, candidate]
        ratings = [t.rating for t in trial]
        narrowest = min(window(now - t.enqueue_time) for t in trial)
        if max(ratings) - min(ratings) <= narrowest:
            group = trial
    return group


def _match(  # noqa: PLR0917  # the pool's helpers, passed on
    group: list[Ticket],
    now: float,
    bots: int,
    bot_for: Callable[[str, int, float], str],
    new_id: Callable[[], str],
    shuffle: Callable[[list[PlannedSeat]], None],
) -> Match:
    first = group[0]
    seats = [
        PlannedSeat(t.ticket_id, t.player_name or DEFAULT_NAME, t.client_seed, player_id=t.player_id)
        for t in group
    ]
    if bots:
        strength = sum(t.rating for t in group) / len(group)
        seats += [PlannedSeat(strategy=bot_for(first.game, first.players, strength)) for _ in range(bots)]
    shuffle(seats)
    return Match(
        match_id=f"qp-{new_id()}",
        pool=first.pool,
        game=first.game,
        rules=first.rules,
        rated=first.rated and not bots,
        seats=tuple(seats),
        wait_seconds=sum(now - t.enqueue_time for t in group) / len(group),
    )
