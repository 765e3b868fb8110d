"""The ladder's pure parts: pairings, the rotations of a set, a set's standings from its game records, the
ladder's pool, and the players' store's bots (a version-1 database migrated)."""

from __future__ import annotations

import random
import sqlite3
import time
from collections import Counter
from pathlib import Path

import pytest

from server.games import adapter_for_name
from server.identity.store_sqlite import SqlitePlayerStore
from server.identity.values import PlayerKind, secret_hash
from server.ladder.flags import references_of
from server.ladder.ladder import LadderSettings
from server.ladder.pairing import PoolState, plan_sets, rotation_seats
from server.ladder.results import member_of, outcome_of, set_results
from server.ratings.model import Pool
from server.settings import Settings
from thousand.v1 import table_service_pb2 as pb

REFS = ("bot:random", "bot:greedy", "bot:heuristic", "bot:ismcts")


def test_every_member_holds_every_seat_once_over_a_sets_rotations() -> None:
    members = ("a", "b", "c")
    tables = [rotation_seats(members, r) for r in range(3)]
    assert tables[0] == members
    for seat in range(3):
        assert sorted(t[seat] for t in tables) == sorted(members)
    for member in members:
        assert sorted(t.index(member) for t in tables) == [0, 1, 2]


def test_every_idle_bot_is_placed_with_registered_bots_first() -> None:
    state = PoolState(3, ["a", "b", "c", "d"], REFS, {}, 0)
    planned = plan_sets(state, max_same=10, reference_sets=0, rng=random.Random(1))
    placed = [m for s in planned for m in s if not m.startswith("bot:")]
    assert sorted(placed) == ["a", "b", "c", "d"]  # each once: one set of a pool at a time
    assert len(planned) == 2
    assert sum(1 for m in planned[0] if not m.startswith("bot:")) == 3  # registered companions first


def test_pairings_spread_and_stop_at_the_days_bound() -> None:
    played: Counter[frozenset[str]] = Counter()
    rng = random.Random(7)
    for _ in range(40):
        state = PoolState(3, ["a"], REFS, dict(played), 0)
        for members in plan_sets(state, max_same=10, reference_sets=0, rng=rng):
            played[frozenset(members)] += 1
    # "a" with two of four reference bots: six pairings, spread evenly, none above the bound
    assert len(played) == 6
    assert max(played.values()) - min(played.values()) <= 1
    full = {frozenset(("a", *pair)): 10 for pair in __import__("itertools").combinations(REFS, 2)}
    assert plan_sets(PoolState(3, ["a"], REFS, full, 0), max_same=10, reference_sets=0, rng=rng) == []


def test_reference_sets_fill_the_room_left() -> None:
    state = PoolState(3, [], REFS, {}, 1)
    assert len(plan_sets(state, max_same=5, reference_sets=3, rng=random.Random(2))) == 2
    assert (
        plan_sets(PoolState(3, [], REFS[:2], {}, 0), max_same=5, reference_sets=1, rng=random.Random(2)) == []
    )


def _record(table_id: str, seats: list[str], scores: list[int], timed_out: list[int]) -> dict[str, object]:
    return {
        "table_id": table_id,
        "finished": True,
        "seats": [
            {"seat": i, "strategy": m[4:]} if m.startswith("bot:") else {"seat": i, "player_id": m}
            for i, m in enumerate(seats)
        ],
        "standings": [{"seat": i, "place": 1, "score": s} for i, s in enumerate(scores)],
        "events": [{"sequence": 1, "turnTimedOut": {"seat": s} if s else {}} for s in timed_out],
    }


def test_a_sets_standings_sum_each_members_scores_over_its_tables() -> None:
    members = ("x", "bot:greedy", "bot:random")
    records = [
        _record("t0", list(rotation_seats(members, 0)), [500, 1000, -100], [0]),
        _record("t1", list(rotation_seats(members, 1)), [1000, 200, 300], []),
        _record("t2", list(rotation_seats(members, 2)), [400, 400, 1000], [2, 2]),
    ]
    outcomes = [outcome_of(r) for r in records]
    assert outcomes[0].timeouts == (1, 0, 0)  # seat 0, left out of the JSON as proto3 does
    results = {r.member_id: r for r in set_results(members, outcomes)}
    # x: 500 + 300 + 400; greedy: 1000 + 1000 + 1000; random: -100 + 200 + 400
    assert [results[m].total_score for m in members] == [1200, 3000, 500]
    assert [results[m].rank for m in members] == [2, 1, 3]
    assert results["x"].timeouts == 1 and results["bot:greedy"].timeouts == 2


def test_equal_totals_share_the_better_rank() -> None:
    members = ("a", "b", "c")
    outcomes = [outcome_of(_record("t", ["a", "b", "c"], [100, 100, 50], []))]
    assert [r.rank for r in set_results(members, outcomes)] == [1, 1, 3]


def test_a_table_without_standings_is_refused() -> None:
    record = _record("t", ["a", "b", "c"], [1, 2, 3], [])
    record["standings"] = []
    with pytest.raises(ValueError, match="no final standings"):
        outcome_of(record)
    assert member_of({"seat": 0, "strategy": "ismcts"}) == "bot:ismcts"


def test_the_ladders_pool_is_apart_from_people_and_bots() -> None:
    pool = Pool("thousand", 3, ladder=True)
    assert pool.pool_id == "thousand-3-ladder"
    assert Pool.parse("thousand-3-ladder") == pool
    assert Pool.parse("thousand-3-bots") != pool and Pool.parse("thousand-3") != pool


def test_bots_are_players_owned_by_a_player_in_a_migrated_store(tmp_path: Path) -> None:
    db = tmp_path / "players.db"
    with sqlite3.connect(db) as old:  # a version-1 players' schema, with a guest in it
        from server.identity.store import SCHEMA_1  # noqa: PLC0415

        old.execute("CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL)")
        schema = SCHEMA_1.format(
            t="", real="REAL", blob="BLOB", serial="INTEGER", autoincrement=" AUTOINCREMENT", bool="INTEGER"
        )
        old.executescript(schema)
        old.execute("INSERT INTO meta VALUES ('players_schema', '1')")
        old.execute("INSERT INTO players VALUES ('p1', 'guest', 'Ann', 'en', 1.0, '', 'p1', x'01')")
    store = SqlitePlayerStore(db)
    try:
        ann = store.player("p1")
        assert ann is not None and ann.owner_id == ""
        bot = store.create_bot("p1", "Bot one", secret_hash("thb_key"))
        assert bot.kind is PlayerKind.BOT and bot.owner_id == "p1"
        assert store.player_by_token(secret_hash("thb_key")) == bot  # its key signs it in
        assert store.bots_of("p1") == [bot]
        assert bot.to_proto().owner_id == "p1"
    finally:
        store.close()


def test_each_game_has_at_least_three_reference_bots_that_decide_as_bot_seats() -> None:
    """Issue 27 ("reference bots ... each at a fixed budget, anchoring the scale"): by default Thousand's are
    random, greedy, heuristic, ismcts and expert, 1000 Blagogo's random, heuristic and planner, the server's
    flag and the ladder agreeing; each, made as the server makes a bot seat (the registry's default options,
    one budget for all), decides a legal action at the start of a 3-player game within the ladder's clock."""
    references = LadderSettings().references
    assert references == references_of(Settings().ladder_references)
    assert references["thousand"] == ("random", "greedy", "heuristic", "ismcts", "expert")
    assert references["blagogo"] == ("random", "heuristic", "planner")
    for game, names in references.items():
        adapter = adapter_for_name(game)
        rules = adapter.rules_from_request(pb.Rules(), 3)
        for name in names:
            engine_game = adapter.new_game(rules, 7, 0)
            while engine_game.is_chance_node:  # the first deal, as the table deals it
                engine_game.apply_chance()
            seat = engine_game.to_act
            assert seat is not None
            action = adapter.new_bot(name).decide(engine_game, seat, random.Random(7), time.monotonic() + 2.0)
            assert action in list(adapter.turn_actions(engine_game, seat)), (game, name)
