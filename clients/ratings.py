"""Ratings (``thousand.v1.RatingService``, docs/protocol.md "Ratings") over ``grpc.aio``: a pool's
leaderboard page by page, a player's profile; and the client's own check of a rated table's update.

A rated table's last event, RatingsUpdated, carries each seat's rating before the game, its rank, the model
and every parameter of it: :func:`recompute` runs the same update with the ``openskill`` package and
:func:`check_update` says where the server's numbers differ from it (nothing, for an honest server), as
:mod:`clients.fairness` checks the deals. Calls need no credential; refusals are
:class:`~clients.errors.ServerError` (INVALID_ARGUMENT, PLAYER_NOT_FOUND).
"""

from __future__ import annotations

import math
from collections.abc import AsyncIterator
from dataclasses import dataclass
from typing import Final

from openskill.models import PlackettLuce

from clients.calls import ServiceClient
from thousand.v1 import rating_service_pb2 as rating_pb
from thousand.v1 import rating_service_pb2_grpc as rating_grpc
from thousand.v1 import ratings_pb2 as ratings_pb
from thousand.v1 import table_service_pb2 as pb

MODEL_NAME: Final = "openskill.PlackettLuce"
TOLERANCE: Final = 1e-9
"""The largest difference between the server's mu or sigma and the client's that is no difference (the same
package computes both; the numbers travel as doubles)."""


@dataclass(frozen=True, slots=True)
class LeaderboardPage:
    """One page of a pool's leaderboard, best first, and the token of the next (empty on the last)."""

    pool: rating_pb.RatingPool
    entries: tuple[rating_pb.LeaderboardEntry, ...]
    next_page_token: str
    min_games: int


def recompute(update: ratings_pb.RatingsUpdated) -> list[tuple[float, float]]:
    """Each seat's (mu, sigma) after the game, in the update's seat order, computed here from the seats'
    ratings before it and their ranks with the update's own model and parameters.

    :raises ValueError: a model this client does not know.
    """
    model = update.model
    if model.name != MODEL_NAME:
        raise ValueError(f"rating model {model.name!r}: this client checks {MODEL_NAME} only")
    rater = PlackettLuce(
        mu=model.mu,
        sigma=model.sigma,
        beta=model.beta,
        kappa=model.kappa,
        tau=model.tau,
        limit_sigma=model.limit_sigma,
        balance=model.balance,
    )
    teams = [[rater.create_rating([seat.before.mu, seat.before.sigma])] for seat in update.seats]
    rated = rater.rate(teams, ranks=[float(seat.rank) for seat in update.seats])
    return [(float(team[0].mu), float(team[0].sigma)) for team in rated]


def check_update(update: ratings_pb.RatingsUpdated, standings: dict[int, int] | None = None) -> list[str]:
    """What is wrong with a RatingsUpdated, in words; empty when it is exactly what the model gives.

    ``standings``: each seat's place in the table's GameOver, to check the ranks too (a seat that forfeited
    on time ranks below every other; ``SeatRating.forfeited``)."""
    if update.not_rated:
        return []
    problems: list[str] = []
    if standings is not None:
        keys = {s.seat: (s.forfeited, standings.get(s.seat, 0)) for s in update.seats}
        for seat in update.seats:
            expected = 1 + sum(1 for k in keys.values() if k < keys[seat.seat])
            if seat.rank != expected:
                problems.append(f"seat {seat.seat}: rank {seat.rank}, the standings give {expected}")
    try:
        after = recompute(update)
    except ValueError as error:
        return [*problems, str(error)]
    for seat, (mu, sigma) in zip(update.seats, after, strict=True):
        if not (
            math.isclose(seat.after.mu, mu, abs_tol=TOLERANCE)
            and math.isclose(seat.after.sigma, sigma, abs_tol=TOLERANCE)
        ):
            problems.append(
                f"seat {seat.seat}: the server says mu {seat.after.mu:.6f} sigma {seat.after.sigma:.6f},"
                f" the model gives mu {mu:.6f} sigma {sigma:.6f}"
            )
        if seat.after.games != seat.before.games + 1:
            problems.append(f"seat {seat.seat}: {seat.after.games} games after {seat.before.games} before")
    return problems


class RatingClient(ServiceClient):
    """The rating calls of one connection: ``async with RatingClient(connection) as ratings:``."""

    @property
    def _stub(self) -> rating_grpc.RatingServiceAsyncStub:
        return rating_grpc.RatingServiceStub(self.route.channel)

    async def leaderboard_page(
        self, game: pb.GameKind.ValueType, players: int, *, bots: bool = False, page_size: int = 20,
        page_token: str = "",
    ) -> LeaderboardPage:  # fmt: skip
        """One page of the pool's leaderboard (the people's, or with ``bots`` the bots')."""
        request = rating_pb.GetLeaderboardRequest(
            game=game, players=players, bots=bots, page_size=page_size, page_token=page_token
        )
        response = await self._calls(
            lambda: self._stub.GetLeaderboard(request, timeout=self._calls.timeout), retry=True
        )
        return LeaderboardPage(
            response.pool, tuple(response.entries), response.next_page_token, response.min_games
        )

    async def leaderboard(
        self, game: pb.GameKind.ValueType, players: int, *, bots: bool = False, page_size: int = 50
    ) -> AsyncIterator[rating_pb.LeaderboardEntry]:
        """The whole leaderboard, best first, page after page."""
        token = ""
        while True:
            page = await self.leaderboard_page(
                game, players, bots=bots, page_size=page_size, page_token=token
            )
            for entry in page.entries:
                yield entry
            token = page.next_page_token
            if not token:
                return

    async def profile(self, player_id: str, recent_games: int = 10) -> rating_pb.GetPlayerProfileResponse:
        """A player's ratings per pool (with their places) and latest rated games."""
        request = rating_pb.GetPlayerProfileRequest(player_id=player_id, recent_games=recent_games)
        response: rating_pb.GetPlayerProfileResponse = await self._calls(
            lambda: self._stub.GetPlayerProfile(request, timeout=self._calls.timeout), retry=True
        )
        return response
