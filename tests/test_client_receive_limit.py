"""The clients keep gRPC's default receive limit (4 MiB a message): no answer a client asks for can be larger.

Most answers are small by construction: a view or a Turn holds one deal (a Blagogo round: its one deck), a
stream batches at most ``server.rendering.MAX_BATCH`` events, lists come in pages of at most 100, a game
record comes by StreamTableRecord in parts of at most 1 MiB (tests/test_export_size.py reads one over 4 MiB
with ``thousand export``). The one answer that grows with the server's data up to a cap near the limit is
GetLadderStandings: every member (at most ``MAX_STANDINGS``) with its latest sets, drawn from the pool's
``MAX_STANDINGS`` latest, each set shown once for each of its members. Its worst case is measured here from
the service's own code, so that raising a cap or adding to a set's message cannot silently cross the limit.
"""

from __future__ import annotations

import asyncio
import secrets
from types import SimpleNamespace
from typing import Any, cast

from clients.connection import CHANNEL_OPTIONS
from server.identity.values import Player, PlayerKind
from server.ladder.ladder import LadderSettings
from server.ladder.results import MemberResult
from server.ladder.service import MAX_RECENT_SETS, MAX_STANDINGS, LadderService
from server.ladder.store import LadderSetRow, RatedMember, SetTable
from server.ratings.model import Pool, RatingValue
from server.requests import Context
from server.service import MAX_NAME_LENGTH
from thousand.v1 import ladder_service_pb2 as ladder_pb
from thousand.v1 import table_service_pb2 as pb

DEFAULT_CLIENT_LIMIT = 4 * 1024 * 1024
"""gRPC's default largest message a client receives (``grpc.max_receive_message_length``)."""
LONGEST_NAME = "\N{GRINNING FACE}" * MAX_NAME_LENGTH
"""A display name at its longest in bytes: MAX_NAME_LENGTH characters of four UTF-8 bytes each."""


def test_the_clients_channels_keep_grpcs_default_receive_limit() -> None:
    options = dict(CHANNEL_OPTIONS)
    assert options.get("grpc.max_receive_message_length", DEFAULT_CLIENT_LIMIT) <= DEFAULT_CLIENT_LIMIT


def test_the_largest_ladder_standings_fit_a_default_clients_message() -> None:
    """More members and sets than the caps, every name at its longest, every member's owner named, the
    most recent sets asked for: the answer holds MAX_STANDINGS members and three showings of each of the
    MAX_STANDINGS latest sets, and still fits 4 MiB."""
    settings = LadderSettings()
    pool = Pool("thousand", settings.players, ladder=True)
    members = [secrets.token_hex(8) for _ in range(MAX_STANDINGS + 50)]
    owner = secrets.token_hex(8)
    people = {m: Player(m, PlayerKind.BOT, LONGEST_NAME, "", 0.0, owner_id=owner) for m in members}
    people[owner] = Player(owner, PlayerKind.GUEST, LONGEST_NAME, "", 0.0)
    rating = RatingValue(25.123456789, 8.123456789, 12_345)
    rows = []
    for number in range(MAX_STANDINGS + 50):  # each member in the sets of three neighbours' turns
        seated = tuple(members[(number + k * 167) % MAX_STANDINGS] for k in range(settings.players))
        rows.append(
            LadderSetRow(
                f"set-{secrets.token_hex(8)}",
                pool.pool_id,
                seated,
                "rated",
                1_800_000_000.123456,
                1_800_000_900.654321,
                tables=tuple(
                    SetTable(secrets.token_hex(6), r, seated[r:] + seated[:r]) for r in range(len(seated))
                ),
                results=tuple(RatedMember(MemberResult(m, -123_456, 3, 99), rating, rating) for m in seated),
                disconnected=seated,
            )
        )
    fake = SimpleNamespace(
        ladder=SimpleNamespace(
            settings=settings,
            store=SimpleNamespace(connected=lambda since: [], recent=lambda pool, limit: rows[:limit]),
        ),
        reader=SimpleNamespace(
            leaderboard=lambda pool, offset, limit: ([(m, rating) for m in members][offset:limit], True)
        ),
        players=SimpleNamespace(players=lambda ids: {i: people[i] for i in ids}),
    )
    fake._names = LadderService._names.__get__(fake)
    request = ladder_pb.GetLadderStandingsRequest(game=pb.GAME_KIND_THOUSAND, recent_sets=MAX_RECENT_SETS)
    response = asyncio.run(LadderService.get_standings(cast(Any, fake), request, cast(Context, None)))

    assert len(response.standings) == MAX_STANDINGS
    shown = sum(len(standing.recent_sets) for standing in response.standings)
    assert shown == MAX_STANDINGS * settings.players  # every set of the latest MAX_STANDINGS, once a member
    assert response.standings[0].owner_name == LONGEST_NAME
    assert response.standings[0].recent_sets[0].member_names[0] == LONGEST_NAME
    assert response.ByteSize() < DEFAULT_CLIENT_LIMIT
