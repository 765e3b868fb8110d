"""The PlayerService: guests, who am I, a player's name and locale, their games, and claims of old seats.

Every call but GetSignInOptions and CreateGuest needs the caller's credential
(:mod:`server.identity.credentials`); ``tables`` is the tables' store, where a claim looks a seat token up
and a game's result is read. A claim of a seat at a table this node holds is also written into the table's
own log (a ``player`` step), so the table's description, its replays and its record name the seat's player.
"""

from __future__ import annotations

import asyncio
import re
import time
import unicodedata
from typing import Any, Final

import grpc

from server.errors import ErrorReason, ServiceError
from server.identity.credentials import (
    PLAYER_TOKEN_PREFIX,
    Identities,
    new_player_token,
    refused,
    stored,
)
from server.identity.handlers import method
from server.identity.history import games_page, page_size, seat_results
from server.identity.store import PlayerStore
from server.identity.values import Player, PlayerKind, PlayerSeat, SeatResult, secret_hash
from server.logs import get_logger
from server.ratelimit import RateLimiter
from server.registry import Registry
from server.requests import Context, client_of, table_id_of
from server.store import Store
from server.table import Table
from thousand.v1 import player_service_pb2 as player_pb

SERVICE_NAME: Final = "thousand.v1.PlayerService"
MAX_NAME_LENGTH: Final = 64
MAX_LOCALE_LENGTH: Final = 35
LOCALE_FORMAT: Final = re.compile(r"[A-Za-z]{2,3}(-[A-Za-z0-9]{1,8})*")
MAX_CLAIMS: Final = 100
CLAIMED_TOKEN_FORMAT: Final = re.compile(r"[A-Za-z0-9_-]{16,128}")
log = get_logger("thousand.identity")


def display_name(name: str) -> str:
    """A display name checked: 1 to 64 characters, no control characters, spaces at its ends trimmed.

    :raises ServiceError: INVALID_ARGUMENT, field ``display_name``.
    """
    name = name.strip()
    if not 0 < len(name) <= MAX_NAME_LENGTH or any(unicodedata.category(c).startswith("C") for c in name):
        raise ServiceError(
            ErrorReason.INVALID_ARGUMENT,
            f"display_name must be 1 to {MAX_NAME_LENGTH} characters without control characters",
            field="display_name",
        )
    return name


def locale(tag: str) -> str:
    """A BCP 47 language tag checked (empty: none chosen).

    :raises ServiceError: INVALID_ARGUMENT, field ``locale``.
    """
    if tag and (len(tag) > MAX_LOCALE_LENGTH or not LOCALE_FORMAT.fullmatch(tag)):
        raise ServiceError(
            ErrorReason.INVALID_ARGUMENT,
            "locale must be a BCP 47 tag such as en, uk or pt-BR",
            field="locale",
        )
    return tag


class PlayerService:
    """The handlers. ``guest_limiter``: how many guests one client may create (by its address)."""

    def __init__(
        self,
        identities: Identities,
        tables: Store | None,
        *,
        guests: bool = True,
        guest_limiter: RateLimiter | None = None,
        limiter: RateLimiter | None = None,
        registry: Registry | None = None,
    ) -> None:
        self.identities = identities
        self.players: PlayerStore = identities.store
        self.tables = tables
        self.registry = registry
        """The tables this node holds: a claim of a seat at one of them is written into its log."""
        self.guests = guests
        self.guest_limiter = guest_limiter if guest_limiter is not None else RateLimiter(0, 0)
        self.limiter = limiter if limiter is not None else RateLimiter(0, 0)
        """The server's request rate (``--rate-limit``): ClaimSeats counts one request per claim, since each
        reads a table from the store."""
        self._writing: set[asyncio.Task[None]] = set()
        if registry is not None:  # the tables it holds now (restored), and those it makes or adopts later
            registry.on_finish = self.table_finished
            for table in registry.all():
                table.on_finish = self.table_finished

    def table_finished(self, table: Table) -> None:
        """A table's game ended here: its players' seats keep their results (in a task: the table goes on
        at once; without the write, the history reads the result from the table's record once)."""
        results = seat_results(table)
        if not results:
            return
        task = asyncio.get_running_loop().create_task(
            self._keep_results(table.table_id, table.adapter.name, results)
        )
        self._writing.add(task)
        task.add_done_callback(self._writing.discard)

    async def written(self) -> None:
        """Wait for the results being kept (the server is stopping: its store closes next)."""
        if self._writing:
            await asyncio.gather(*self._writing, return_exceptions=True)

    async def _keep_results(self, table_id: str, game: str, results: list[tuple[bytes, SeatResult]]) -> None:
        try:
            await stored(self.players.set_results, table_id, game, results)
        except ServiceError as error:
            log.warning("results not kept in the players' store", table_id=table_id, error=str(error))

    async def get_sign_in_options(
        self, request: player_pb.GetSignInOptionsRequest
    ) -> player_pb.GetSignInOptionsResponse:
        providers = [
            player_pb.IdentityProvider(issuer=issuer.url, audience=issuer.audience)
            for issuer in self.identities.verifier.issuers.values()
        ]
        return player_pb.GetSignInOptionsResponse(guests=self.guests, providers=providers)

    async def create_guest(
        self, request: player_pb.CreateGuestRequest, client: str
    ) -> player_pb.CreateGuestResponse:
        if not self.guests:
            raise ServiceError(
                ErrorReason.GUESTS_DISABLED, "this server signs players in by OpenID Connect only"
            )
        self.guest_limiter.check(f"guest:{client}", "CreateGuest")
        name, tag = display_name(request.display_name), locale(request.locale)
        token = new_player_token()
        player = await stored(self.players.create_guest, name, tag, secret_hash(token))
        return player_pb.CreateGuestResponse(player=player.to_proto(), player_token=token)

    async def get_me(self, player: Player) -> player_pb.GetMeResponse:
        return player_pb.GetMeResponse(player=player.to_proto())

    async def update_me(
        self, request: player_pb.UpdateMeRequest, player: Player
    ) -> player_pb.UpdateMeResponse:
        name = display_name(request.display_name) if request.HasField("display_name") else None
        tag = locale(request.locale) if request.HasField("locale") else None
        updated = await stored(self.players.update_player, player.player_id, name, tag)
        if updated is None:  # removed meanwhile: the credential names nobody now
            raise ServiceError(ErrorReason.PLAYER_NOT_FOUND, "the player no longer exists")
        self.identities.forget_player(player.player_id)
        return player_pb.UpdateMeResponse(player=updated.to_proto())

    async def list_my_games(
        self, request: player_pb.ListMyGamesRequest, player: Player
    ) -> player_pb.ListMyGamesResponse:
        size = page_size(request.page_size)
        games, token = await stored(
            games_page, self.players, self.tables, player.player_id, size, request.page_token
        )
        return player_pb.ListMyGamesResponse(games=games, next_page_token=token)

    async def claim_seats(
        self, request: player_pb.ClaimSeatsRequest, player: Player, client: str = ""
    ) -> player_pb.ClaimSeatsResponse:
        claims = list(request.claims)
        if not 0 < len(claims) <= MAX_CLAIMS:
            raise ServiceError(
                ErrorReason.INVALID_ARGUMENT, f"claims must hold 1 to {MAX_CLAIMS} seats", field="claims"
            )
        self.limiter.check(f"ClaimSeats:peer:{client}", "ClaimSeats", len(claims))
        for claim in claims:
            table_id_of(claim.table_id)
            if not CLAIMED_TOKEN_FORMAT.fullmatch(claim.seat_token):
                raise ServiceError(
                    ErrorReason.INVALID_ARGUMENT, "claims: a seat_token is not a seat token", field="claims"
                )
        guest = await self._guest(request.guest_player_token, player)
        outcomes = []
        for claim in claims:
            outcome = await asyncio.to_thread(self._claim, claim, player, guest)
            if outcome.status in (player_pb.CLAIM_STATUS_CLAIMED, player_pb.CLAIM_STATUS_ALREADY_YOURS):
                await self._into_log(claim, outcome.seat, player)
            outcomes.append(outcome)
        return player_pb.ClaimSeatsResponse(outcomes=outcomes)

    async def _guest(self, token: str, player: Player) -> str:
        """The guest player whose seats the caller may claim too (``guest_player_token``), "" for none.

        :raises ServiceError: PLAYER_TOKEN_INVALID (field ``guest_player_token``) for a token of no guest.
        """
        if not token:
            return ""
        found = None
        if token.startswith(PLAYER_TOKEN_PREFIX) and len(token) <= 128:
            found = await stored(self.players.player_by_token, secret_hash(token))
        if found is None or found.kind is not PlayerKind.GUEST:
            raise refused("unknown_token", "guest_player_token is not a guest player's token")
        if found.player_id != player.player_id:
            await self.identities.check_ban(found.player_id)  # a banned guest's seats stay theirs
        return found.player_id

    async def _into_log(self, claim: player_pb.SeatClaim, seat: int, player: Player) -> None:
        """The claimed seat's player into the table's own log, when this node holds the table and the token
        still holds the seat (a seat given up since is someone else's now). A table held by another node
        of a cluster is told to its owner, which writes it (:meth:`claimed_into_log`); one no longer in
        memory (finished long ago) keeps the claim in the players' store."""
        if self.registry is None:
            return
        table = self.registry.find(claim.table_id)
        directory = self.registry.directory
        if directory is not None and (table is None or not directory.vouches()):
            await directory.tell_owner_claimed(claim.table_id)  # its owner writes it (claimed_into_log)
            return
        if table is None:
            return
        async with table.lock:
            if table.seat_holding(claim.seat_token) != seat:
                return
            try:
                await table.claim(seat, player.player_id)
            except ServiceError as error:  # the claim stands in the players' store; the log misses it
                log.warning("claim not stored in the table's log", table_id=table.table_id, error=str(error))

    async def claimed_into_log(self, table_id: str) -> None:
        """Another node of the cluster took claims of this table's seats (it told this node, the owner, by
        NOTIFY): each seat still held by the token a player claimed, and not yet that player's in the log,
        becomes the player's in the table's own log, as :meth:`_into_log` does on the owner."""
        table = None if self.registry is None else self.registry.find(table_id)
        if table is None:
            return
        for seat, state in enumerate(table.core.seats):
            token_hash = state.token_hash
            if token_hash is None or state.player_id:
                continue
            try:
                owner = await stored(self.players.seat_owner, table_id, token_hash)
                if not owner:
                    continue
                async with table.lock:
                    now = table.core.seats[seat]
                    if now.token_hash == token_hash and not now.player_id:  # not given up nor claimed since
                        await table.claim(seat, owner)
            except ServiceError as error:  # the claim stands in the players' store
                log.warning("claim not stored in the table's log", table_id=table_id, error=str(error))

    def _claim(self, claim: player_pb.SeatClaim, player: Player, guest: str = "") -> player_pb.ClaimOutcome:
        """One claim (blocking): the seat whose join record carries the token's hash becomes the player's;
        ``guest``: a guest player whose seats become the player's too."""
        outcome = player_pb.ClaimOutcome(table_id=claim.table_id)
        table = None if self.tables is None else self.tables.get(claim.table_id)
        if table is None:
            outcome.status = player_pb.CLAIM_STATUS_TABLE_NOT_FOUND
            return outcome
        token_hash = secret_hash(claim.seat_token)
        joins = [r for r in table.records if r.kind == "join" and r.data == token_hash]
        if not joins:
            outcome.status = player_pb.CLAIM_STATUS_TOKEN_NOT_FOUND
            return outcome
        outcome.seat = joins[-1].seat
        seat = PlayerSeat(
            player.player_id, table.table_id, outcome.seat, token_hash, time.time(), table.config.game
        )
        owner, new = self.players.add_seat(seat)
        if guest and owner == guest and owner != player.player_id:
            new = self.players.move_seat(table.table_id, token_hash, guest, player.player_id)
            owner = player.player_id if new else self.players.seat_owner(table.table_id, token_hash) or ""
        if owner != player.player_id:
            outcome.status = player_pb.CLAIM_STATUS_OTHER_PLAYER
        else:
            outcome.status = player_pb.CLAIM_STATUS_CLAIMED if new else player_pb.CLAIM_STATUS_ALREADY_YOURS
        return outcome


def method_handlers(service: PlayerService) -> dict[str, grpc.RpcMethodHandler[Any, Any]]:
    """The service's handlers by method name."""
    identities = service.identities

    async def options(request: player_pb.GetSignInOptionsRequest, context: Context) -> Any:
        await identities.caller(context)  # a credential sent is checked, as on every call
        return await service.get_sign_in_options(request)

    async def guest(request: player_pb.CreateGuestRequest, context: Context) -> Any:
        await identities.caller(context)
        return await service.create_guest(request, client_of(context))

    async def me(request: player_pb.GetMeRequest, context: Context) -> Any:
        return await service.get_me(await identities.player(context))

    async def update(request: player_pb.UpdateMeRequest, context: Context) -> Any:
        return await service.update_me(request, await identities.player(context))

    async def games(request: player_pb.ListMyGamesRequest, context: Context) -> Any:
        return await service.list_my_games(request, await identities.player(context))

    async def claim(request: player_pb.ClaimSeatsRequest, context: Context) -> Any:
        return await service.claim_seats(request, await identities.player(context), client_of(context))

    return {
        "GetSignInOptions": method(
            options, player_pb.GetSignInOptionsRequest, player_pb.GetSignInOptionsResponse
        ),
        "CreateGuest": method(guest, player_pb.CreateGuestRequest, player_pb.CreateGuestResponse),
        "GetMe": method(me, player_pb.GetMeRequest, player_pb.GetMeResponse),
        "UpdateMe": method(update, player_pb.UpdateMeRequest, player_pb.UpdateMeResponse),
        "ListMyGames": method(games, player_pb.ListMyGamesRequest, player_pb.ListMyGamesResponse),
        "ClaimSeats": method(claim, player_pb.ClaimSeatsRequest, player_pb.ClaimSeatsResponse),
    }


def generic_handler(service: PlayerService) -> grpc.GenericRpcHandler:
    return grpc.method_handlers_generic_handler(SERVICE_NAME, method_handlers(service))
