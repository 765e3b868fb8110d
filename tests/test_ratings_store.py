"""The ratings' rows in both stores (SQLite and a real PostgreSQL): an update and its ``rating`` record
commit together, a leaderboard lists only players with the minimum of games, best ordinal first, page by
page with places that run on, and a player's profile and current rating read the same rows."""

from __future__ import annotations

import math

import pytest

from server.errors import ServiceError
from server.matchmaking.ratings import RatingLookup
from server.ratings.model import Pool, RatingValue, rate
from server.ratings.service import RatingService
from server.ratings.store import RatingReader, update_ratings
from server.store import Record, Sql, Store, TableConfig
from server.store_select import open_store
from tests.server_harness import run
from thousand.v1 import rating_service_pb2 as rating_pb
from thousand.v1 import table_service_pb2 as pb

POOL = Pool("thousand", 2)
CONFIG = TableConfig(rules=b"", seats=[(False, "")] * 2, seed=1, first_dealer=0, rated=True)


def play(store: Store, table_id: str, players: list[str], seat_ranks: list[int]) -> None:
    """One rated table's update, as a table's end stores it: rows and record in one transaction."""
    run(store.create_table(table_id, 0, 0.0, CONFIG))

    def work(sql: Sql) -> list[Record]:
        update_ratings(sql, table_id, POOL, players, seat_ranks, now=1.0)
        return [Record("rating", -1, "", table_id.encode())]

    store.transact(table_id, work)


@pytest.fixture
def store(db: str) -> Store:
    return open_store(db)


def test_an_update_and_its_record_commit_together(store: Store) -> None:
    play(store, "t1", ["ann", "bob"], [1, 2])
    stored = store.get("t1")
    assert stored is not None and [r.kind for r in stored.records] == ["rating"]
    reader = RatingReader(store)
    expected = rate([RatingValue(), RatingValue()], [1, 2])
    assert reader.ratings(POOL, ["ann", "bob", "cid"]) == {
        "ann": expected[0],
        "bob": expected[1],
        "cid": RatingValue(),
    }

    def failing(sql: Sql) -> list[Record]:
        update_ratings(sql, "t2", POOL, ["ann", "bob"], [2, 1], now=2.0)
        raise RuntimeError("the work fails after changing the rows")

    run(store.create_table("t2", 0, 0.0, CONFIG))
    with pytest.raises(Exception, match="fails after"):
        store.transact("t2", failing)
    assert reader.ratings(POOL, ["ann", "bob"]) == {"ann": expected[0], "bob": expected[1]}  # rolled back
    stored = store.get("t2")
    assert stored is not None and stored.records == []
    store.close()


def test_leaderboard_pages_and_minimum_games(store: Store) -> None:
    # ann beats everyone twice, bob beats cid and dan, eve plays once: with a minimum of 2, eve is left out.
    games = [
        (["ann", "bob"], [1, 2]), (["ann", "cid"], [1, 2]), (["bob", "cid"], [1, 2]),
        (["bob", "dan"], [1, 2]), (["cid", "dan"], [1, 2]), (["dan", "eve"], [2, 1]),
    ]  # fmt: skip
    for number, (players, seat_ranks) in enumerate(games):
        play(store, f"t{number}", players, seat_ranks)
    reader = RatingReader(store, min_games=2)
    service = RatingService(reader, None)

    async def pages() -> list[rating_pb.GetLeaderboardResponse]:
        found, token = [], ""
        while True:
            request = rating_pb.GetLeaderboardRequest(
                game=pb.GAME_KIND_THOUSAND, players=2, page_size=2, page_token=token
            )
            page = await service.get_leaderboard(request)
            found.append(page)
            token = page.next_page_token
            if not token:
                return found

    got = run(pages())
    entries = [e for page in got for e in page.entries]
    assert [len(page.entries) for page in got] == [2, 2]
    assert {e.player_id for e in entries} == {"ann", "bob", "cid", "dan"}  # eve: one game only
    assert [e.place for e in entries] == [1, 2, 3, 4]
    ordinals = [e.rating.ordinal for e in entries]
    assert ordinals == sorted(ordinals, reverse=True)
    assert all(math.isclose(e.rating.ordinal, e.rating.mu - 3 * e.rating.sigma) for e in entries)
    assert all(e.rating.games >= 2 for e in entries) and got[0].min_games == 2
    for entry in entries:  # the profile's place is the leaderboard's
        rating = RatingValue.from_proto(entry.rating)
        assert reader.place(POOL, entry.player_id, rating) == entry.place
    assert reader.place(POOL, "eve", reader.rating(POOL, "eve")) == 0
    everyone = RatingService(RatingReader(store, min_games=0), None)
    request = rating_pb.GetLeaderboardRequest(game=pb.GAME_KIND_THOUSAND, players=2, page_size=10)
    assert len(run(everyone.get_leaderboard(request)).entries) == 5
    with pytest.raises(ServiceError) as refused:
        run(
            service.get_leaderboard(
                rating_pb.GetLeaderboardRequest(game=pb.GAME_KIND_THOUSAND, players=2, page_token="bad")
            )
        )
    assert refused.value.metadata["field"] == "page_token"
    lookup: RatingLookup = reader  # what the matchmaker reads: a player's ordinal, None before any game
    assert lookup.ordinal("thousand", 2, "ann") == reader.rating(POOL, "ann").ordinal
    assert lookup.ordinal("thousand", 2, "zed") is None and lookup.ordinal("thousand", 3, "ann") is None
    recent = reader.recent_games("dan", 10)
    assert sorted(g.table_id for g in recent) == ["t3", "t4", "t5"]
    store.close()
