"""The matcher and the queue's store without a server: who plays with whom (pools, rating windows, bots after
the wait), and the store's guarantees on SQLite and PostgreSQL (one place per player, each ticket in one
match, one matching round at a time across the cluster)."""

from __future__ import annotations

import dataclasses
import itertools
import threading
import time
from collections.abc import Iterator

import pytest

from server.matchmaking.matching import WINDOW_CAP, form_matches, pool_of, window
from server.matchmaking.queue_store import (
    AlreadyWaitingError,
    Match,
    QueueStore,
    Ticket,
    open_queue_store,
)
from server.matchmaking.ratings import bot_for

RULES = b"\x08\x03"
_ids = itertools.count()


def ticket(
    rating: float = 0.0,
    *,
    at: float = 0.0,
    rated: bool = False,
    bots: bool = False,
    wait: float = 60.0,
    players: int = 3,
    player: str = "",
    rules: bytes = RULES,
) -> Ticket:
    number = next(_ids)
    return Ticket(
        ticket_id=f"{number:064x}",
        pool=pool_of("thousand", players, rules, rated),
        digest="d",
        game="thousand",
        players=players,
        rules=rules,
        rated=rated,
        bots_ok=bots,
        max_wait=wait,
        rating=rating,
        player_id=player,
        player_name=f"p{number}",
        client_seed="",
        enqueue_time=at,
        seen_time=at,
    )


def matches(tickets: list[Ticket], now: float) -> list[Match]:
    return form_matches(tickets, now, lambda g, p, r: bot_for(g, r), shuffle=lambda seats: None)


def members(match: Match) -> list[str]:
    return [s.ticket_id for s in match.seats if not s.bot]


def test_the_window_starts_at_3_widens_a_quarter_a_second_and_stops_at_25() -> None:
    assert window(0) == 3.0
    assert window(4) == 4.0
    assert window(88) == 25.0 == WINDOW_CAP
    assert window(1000) == WINDOW_CAP


def test_unrated_players_are_seated_oldest_first_and_pools_never_mix() -> None:
    """T-1: a table of three (or four: its own pool); other rules are another pool."""
    old = [ticket(at=t) for t in (1.0, 2.0, 3.0)]
    young = ticket(at=4.0)
    four = [ticket(at=0.5, players=4) for _ in range(3)]
    other_rules = [ticket(at=0.1, rules=b"\x08\x03\x28\x01") for _ in range(2)]
    found = matches([young, *old, *four, *other_rules], now=10.0)
    assert [members(m) for m in found] == [[t.ticket_id for t in old]]
    assert found[0].bots == 0 and not found[0].rated


def test_rated_players_far_apart_wait_until_their_windows_meet() -> None:
    low, high = ticket(0.0, at=0.0, rated=True, players=2), ticket(10.0, at=0.0, rated=True, players=2)
    assert matches([low, high], now=27.0) == []  # windows of 9.75: not yet
    (match,) = matches([low, high], now=28.0)  # 10: they meet
    assert match.rated and sorted(members(match)) == sorted([low.ticket_id, high.ticket_id])


def test_a_rated_group_takes_the_nearest_ratings() -> None:
    first = ticket(5.0, at=0.0, rated=True)
    near = [ticket(6.0, at=1.0, rated=True), ticket(4.5, at=2.0, rated=True)]
    far = ticket(20.0, at=0.5, rated=True)
    (match,) = matches([first, far, *near], now=3.0)
    assert sorted(members(match)) == sorted([first.ticket_id, *(t.ticket_id for t in near)])


def test_after_the_wait_bots_near_the_group_fill_and_the_game_is_unrated() -> None:
    strong = ticket(9.0, at=0.0, rated=True, bots=True, wait=5.0)
    assert matches([strong], now=4.9) == []
    (match,) = matches([strong], now=5.0)
    assert match.bots == 2 and not match.rated
    assert [s.strategy for s in match.seats if s.bot] == ["heuristic", "heuristic"]
    (casual,) = matches([ticket(at=0.0, bots=True, wait=5.0)], now=6.0)
    assert [s.strategy for s in casual.seats if s.bot] == ["greedy", "greedy"]


def test_a_player_who_refuses_bots_is_never_seated_with_them() -> None:
    willing = ticket(at=0.0, bots=True, wait=5.0)
    unwilling = ticket(at=1.0, bots=False, wait=60.0)
    (match,) = matches([willing, unwilling], now=6.0)
    assert members(match) == [willing.ticket_id] and match.bots == 2


def test_each_ticket_is_in_one_match_at_most() -> None:
    crowd = [ticket(at=float(i)) for i in range(100)]
    found = matches(crowd, now=200.0)
    seated = [t for m in found for t in members(m)]
    assert len(seated) == len(set(seated)) == 99 and len(found) == 33


def test_bot_strength_follows_the_ladder() -> None:
    assert bot_for("thousand", -10.0) == "random"
    assert bot_for("thousand", 0.0) == "greedy"
    assert bot_for("thousand", 30.0) == "ismcts"
    assert bot_for("blagogo", 3.0) == "heuristic"
    assert bot_for("blagogo", 20.0) == "planner"  # the strongest Blagogo bot for a strong group
    # The bots' own ratings (their pool's ordinals) when two or more have some; else the ladder's.
    assert bot_for("thousand", 10.0, {"greedy": 2.0, "heuristic": 30.0}) == "greedy"
    assert bot_for("thousand", 10.0, {"greedy": 2.0}) == "heuristic"


# ---------------------------------------------------------------------------------------------- the store


@pytest.fixture
def store(db: str) -> Iterator[QueueStore]:
    opened = open_queue_store(db)
    yield opened
    opened.close()


def test_one_place_per_player_and_a_reconnect_keeps_it(store: QueueStore) -> None:
    first = ticket(player="ann", at=1.0)
    assert store.enqueue(first) == first
    again = store.enqueue(dataclasses.replace(first, enqueue_time=50.0, seen_time=50.0))
    assert again.enqueue_time == 1.0  # the same place
    with pytest.raises(AlreadyWaitingError):
        store.enqueue(ticket(player="ann", at=2.0))
    assert store.leave(first.ticket_id)
    assert not store.leave(first.ticket_id)
    store.enqueue(ticket(player="ann", at=3.0))  # out of the queue: a new place


def test_a_round_matches_each_ticket_once_and_a_revert_puts_them_back(store: QueueStore) -> None:
    now = time.time()
    waiting = [ticket(at=now - 3 + i) for i in range(4)]
    for t in waiting:
        store.enqueue(t)

    def form(tickets: list[Ticket]) -> list[Match]:
        return matches(tickets, now)

    found = store.round(now, now - 10, now - 60, form)
    assert found is not None and len(found) == 1
    (match,) = found
    assert store.round(now, now - 10, now - 60, form) == []  # the three are matched: one left, alone
    states = store.tickets([t.ticket_id for t in waiting])
    assert sorted(t.seat or 0 for t, _ in states.values() if t.match_id is not None) == [0, 1, 2]
    assert [t.match_id for t, _ in states.values()].count(None) == 1
    store.revert(match.match_id)
    assert all(t.match_id is None for t, _ in store.tickets([t.ticket_id for t in waiting]).values())
    (again,) = store.round(now, now - 10, now - 60, form) or []
    store.placed(again.match_id, "table1")
    assert {table for _, table in store.tickets(members(again)).values()} == {"table1"}
    assert store.unplaced(time.time() + 1) == []


def test_a_stale_ticket_is_not_matched_and_then_forgotten(store: QueueStore) -> None:
    now = time.time()
    stale = [ticket(at=now - 30) for _ in range(3)]
    for t in stale:
        store.enqueue(t)
    assert store.round(now, now - 10, now - 60, lambda ts: matches(ts, now)) == []
    assert len(store.tickets([t.ticket_id for t in stale])) == 3  # kept: their players may come back
    assert store.round(now + 40, now + 30, now, lambda ts: matches(ts, now)) == []
    assert store.tickets([t.ticket_id for t in stale]) == {}  # a minute unseen: gone


def test_one_matching_round_at_a_time_across_the_cluster(pg_url: str) -> None:
    """Two nodes' stores on one PostgreSQL: while one runs a round (holding the matcher's lock), the
    other's round is skipped, not run beside it."""
    first, second = open_queue_store(pg_url), open_queue_store(pg_url)
    inside, release = threading.Event(), threading.Event()

    def slow(tickets: list[Ticket]) -> list[Match]:
        inside.set()
        release.wait(10)
        return []

    now = time.time()
    worker = threading.Thread(target=lambda: first.round(now, now - 10, now - 60, slow))
    worker.start()
    try:
        assert inside.wait(10)
        assert second.round(now, now - 10, now - 60, lambda ts: []) is None
    finally:
        release.set()
        worker.join(10)
    assert second.round(now, now - 10, now - 60, lambda ts: []) == []
    first.close()
    second.close()
