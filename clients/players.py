"""A player's calls (``thousand.v1.PlayerService``, docs/protocol.md "Players") over ``grpc.aio``: the ways
to sign in, a guest created, who am I, a new name or locale, my games page by page, old seats claimed.

The credential is the connection's (:attr:`clients.connection.Connection.credential`): every call carries it
as ``authorization: Bearer``, and :class:`~clients.session.TableSession` calls made over a connection with
the same credential are the player's too (a seat taken is in their history, an unlisted table of theirs is
in their list). Refusals are :class:`~clients.errors.ServerError`, with their reason: PLAYER_TOKEN_INVALID
(its ``problem`` metadata says why: ``expired``, ``unknown_token``...), PLAYER_BANNED, RATE_LIMITED.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Sequence
from dataclasses import dataclass
from typing import Final

from clients.calls import ServiceClient
from thousand.v1 import player_service_pb2 as player_pb
from thousand.v1 import player_service_pb2_grpc as player_grpc

MAX_CLAIMS: Final = 100
"""Claims one ClaimSeats call carries at most (ClaimSeatsRequest.claims)."""


@dataclass(frozen=True, slots=True)
class GamesPage:
    """One page of a player's games, newest first, and the token of the next (empty on the last)."""

    games: tuple[player_pb.PlayerGame, ...]
    next_page_token: str


class PlayerClient(ServiceClient):
    """The player calls of one connection: ``async with PlayerClient(connection) as players:``."""

    @property
    def _stub(self) -> player_grpc.PlayerServiceAsyncStub:
        return player_grpc.PlayerServiceStub(self.route.channel)

    async def sign_in_options(self) -> player_pb.GetSignInOptionsResponse:
        """Whether the server makes guests, and the OpenID Connect issuers it trusts (no credential)."""
        request = player_pb.GetSignInOptionsRequest()
        return await self._calls(
            lambda: self._stub.GetSignInOptions(request, timeout=self._calls.timeout), retry=True
        )

    async def create_guest(self, display_name: str, locale: str = "") -> player_pb.CreateGuestResponse:
        """A new guest player and its player token (returned this once: keep it, :mod:`clients.logins`).
        Not retried after a lost reply: a second call would make a second player."""
        request = player_pb.CreateGuestRequest(display_name=display_name, locale=locale)
        return await self._calls(
            lambda: self._stub.CreateGuest(request, timeout=self._calls.timeout), retry=False
        )

    async def me(self) -> player_pb.Player:
        """The calling player (the connection's credential)."""
        request = player_pb.GetMeRequest()
        response = await self._calls(
            lambda: self._stub.GetMe(request, timeout=self._calls.timeout), retry=True
        )
        return response.player

    async def update_me(
        self, *, display_name: str | None = None, locale: str | None = None
    ) -> player_pb.Player:
        """Changes the name and/or the locale (None: unchanged; an empty locale clears it)."""
        request = player_pb.UpdateMeRequest()
        if display_name is not None:
            request.display_name = display_name
        if locale is not None:
            request.locale = locale
        response = await self._calls(
            lambda: self._stub.UpdateMe(request, timeout=self._calls.timeout), retry=True
        )
        return response.player

    async def games_page(self, page_size: int = 20, page_token: str = "") -> GamesPage:
        """One page of the player's games, newest first, each with its result and table id."""
        request = player_pb.ListMyGamesRequest(page_size=page_size, page_token=page_token)
        response = await self._calls(
            lambda: self._stub.ListMyGames(request, timeout=self._calls.timeout), retry=True
        )
        return GamesPage(tuple(response.games), response.next_page_token)

    async def games(self, *, page_size: int = 50) -> AsyncIterator[player_pb.PlayerGame]:
        """Every game of the player, newest first, page after page."""
        token = ""
        while True:
            page = await self.games_page(page_size, token)
            for game in page.games:
                yield game
            token = page.next_page_token
            if not token:
                return

    async def claim(
        self, seats: Sequence[tuple[str, str]], guest_token: str = ""
    ) -> list[player_pb.ClaimOutcome]:
        """Makes seats taken anonymously the player's: (table_id, seat_token) each; one outcome per seat, in
        order (sent :data:`MAX_CLAIMS` at a time). Safe to repeat: a seat claimed already is ALREADY_YOURS.
        ``guest_token``: the player token of a guest the player was before (signing in with an account):
        that guest's seats among them become the player's too."""
        outcomes: list[player_pb.ClaimOutcome] = []
        for start in range(0, len(seats), MAX_CLAIMS):
            request = player_pb.ClaimSeatsRequest(
                claims=[
                    player_pb.SeatClaim(table_id=table_id, seat_token=token)
                    for table_id, token in seats[start : start + MAX_CLAIMS]
                ],
                guest_player_token=guest_token,
            )
            outcomes.extend(await self._claim_page(request))
        return outcomes

    async def _claim_page(self, request: player_pb.ClaimSeatsRequest) -> list[player_pb.ClaimOutcome]:
        response = await self._calls(
            lambda: self._stub.ClaimSeats(request, timeout=self._calls.timeout), retry=True
        )
        return list(response.outcomes)
