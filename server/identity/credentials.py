"""Who is calling: the player (or operator) a call's ``authorization: Bearer <credential>`` names.

A credential is a player token (``thp_`` and 43 characters of base64url, drawn by CreateGuest; the store
keeps its SHA-256) or a JWT of a trusted OpenID Connect issuer (three dot-separated parts). A call without
one is anonymous, as every call was before players. Whoever presents a credential is resolved the same way
on every call, and refused the same way: PLAYER_TOKEN_INVALID with metadata ``problem``, or PLAYER_BANNED
for a banned player, whichever service the call is for.

Resolving hits the store, so its answers are kept briefly (``CACHE_SECONDS``): a ban made on another node of
a cluster is in force here within that time (one made here, at once).
"""

from __future__ import annotations

import asyncio
import datetime
import hmac
import secrets
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, Final, TypeVar

from server.errors import ErrorReason, ServiceError
from server.identity.oidc import IssuerUnavailableError, OidcVerifier, TokenRefusedError, VerifiedToken
from server.identity.store import PlayerStore
from server.identity.values import OPERATOR_TOKEN_NAME, Ban, Player, secret_hash
from server.logs import get_logger
from server.requests import Context

AUTHORIZATION: Final = "authorization"
PLAYER_TOKEN_PREFIX: Final = "thp_"
BOT_KEY_PREFIX: Final = "thb_"
"""A ladder bot's key (:mod:`server.ladder`): looked up as a player token is, the player being the bot."""
CACHE_SECONDS: Final = 2.0
MAX_CACHED: Final = 50_000
log = get_logger("thousand.identity")
T = TypeVar("T")


def new_player_token() -> str:
    """A player token: 32 random bytes in base64url behind a prefix that tells it from a JWT or seat token."""
    return PLAYER_TOKEN_PREFIX + secrets.token_urlsafe(32)


def credential_of(context: Context) -> str | None:
    """The credential of the call's ``authorization: Bearer <credential>``; None when there is none.

    :raises ServiceError: PLAYER_TOKEN_INVALID (``malformed``) for another scheme or an empty credential.
    """
    for key, value in context.invocation_metadata() or ():
        if key == AUTHORIZATION:
            text = value if isinstance(value, str) else value.decode(errors="replace")
            scheme, _, credential = text.strip().partition(" ")
            if scheme.lower() != "bearer" or not credential.strip():
                raise refused("malformed", "authorization must be 'Bearer <player token or OIDC token>'")
            return credential.strip()
    return None


def refused(problem: str, message: str) -> ServiceError:
    return ServiceError(ErrorReason.PLAYER_TOKEN_INVALID, message, problem=problem)


def banned(ban: Ban) -> ServiceError:
    until = (
        ""
        if ban.expire_time is None
        else datetime.datetime.fromtimestamp(ban.expire_time, datetime.UTC).isoformat().replace("+00:00", "Z")
    )
    return ServiceError(
        ErrorReason.PLAYER_BANNED,
        f"this player is banned: {ban.reason}" + (f" (until {until})" if until else ""),
        until=until,
    )


async def stored(call: Callable[..., T], *args: Any) -> T:
    """A store call off the event loop; STORE_UNAVAILABLE when the database fails it."""
    try:
        return await asyncio.to_thread(call, *args)
    except ServiceError:
        raise  # a refusal the call made itself (a bad page token)
    except Exception as error:
        log.warning("players' store failed", error=str(error), call=getattr(call, "__name__", "?"))
        raise ServiceError(
            ErrorReason.STORE_UNAVAILABLE, "the players' store is unavailable; retry"
        ) from None


@dataclass(frozen=True, slots=True)
class OperatorPolicy:
    """What makes a call an operator's: the operator token (its hash), or an OIDC role."""

    token_hash: bytes | None = None
    claim: str = "roles"
    role: str = ""


class Identities:
    """Resolves callers against the players' store and the OIDC verifier, with a short cache."""

    def __init__(
        self,
        store: PlayerStore,
        verifier: OidcVerifier,
        operators: OperatorPolicy = OperatorPolicy(),
        *,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.store = store
        self.verifier = verifier
        self.operators = operators
        self._clock = clock
        self._players: dict[bytes, tuple[Player, float]] = {}
        """The SHA-256 of a credential -> its player, until when."""
        self._bans: dict[str, tuple[Ban | None, float]] = {}

    async def caller(self, context: Context) -> Player | None:
        """The calling player; None for an anonymous call.

        :raises ServiceError: PLAYER_TOKEN_INVALID, PLAYER_BANNED, IDENTITY_UNAVAILABLE, STORE_UNAVAILABLE.
        """
        credential = credential_of(context)
        if credential is None:
            return None
        player = await self._player(credential)
        await self.check_ban(player.player_id)
        return player

    async def player(self, context: Context) -> Player:
        """The calling player, required: PLAYER_TOKEN_INVALID (``missing``) for an anonymous call."""
        player = await self.caller(context)
        if player is None:
            raise refused("missing", "this call needs a player: send authorization: Bearer <credential>")
        return player

    async def check_ban(self, player_id: str) -> None:
        """PLAYER_BANNED when the player is banned."""
        now = self._clock()
        cached = self._bans.get(player_id)
        if cached is None or cached[1] <= now:
            ban = await stored(self.store.ban_of, player_id)
            self._remember(self._bans, player_id, (ban, now + CACHE_SECONDS))
        else:
            ban = cached[0]
        if ban is not None and ban.in_force():
            raise banned(ban)

    def forget_player(self, player_id: str) -> None:
        """The player changed (UpdateMe): their next call reads them again."""
        self._players = {
            key: value for key, value in self._players.items() if value[0].player_id != player_id
        }

    def forget_ban(self, player_id: str) -> None:
        """A ban or unban made here: in force at once on this node."""
        self._bans.pop(player_id, None)

    async def operator(self, context: Context) -> str:
        """The calling operator's name for the audit log.

        :raises ServiceError: OPERATOR_REQUIRED, whatever else is wrong (no credential, a player's).
        """
        try:
            credential = credential_of(context)
        except ServiceError:
            credential = None
        policy = self.operators
        if credential is not None:
            if policy.token_hash is not None and hmac.compare_digest(
                secret_hash(credential), policy.token_hash
            ):
                return OPERATOR_TOKEN_NAME
            if policy.role and credential.count(".") == 2:
                try:
                    token = await self.verifier.verify(credential)
                except (TokenRefusedError, IssuerUnavailableError):
                    token = None
                if token is not None and policy.role in roles_of(token, policy.claim):
                    return f"{token.issuer}#{token.subject}"
        raise ServiceError(ErrorReason.OPERATOR_REQUIRED, "this call needs an operator credential")

    async def _player(self, credential: str) -> Player:
        key = secret_hash(credential)
        now = self._clock()
        cached = self._players.get(key)
        if cached is not None and cached[1] > now:
            return cached[0]
        if credential.count(".") == 2:
            token = await self._verified(credential)
            player = await stored(
                self.store.player_for_subject, token.issuer, token.subject, token.display_name
            )
            expires = float(token.claims.get("exp", 0)) - time.time()
            self._remember(self._players, key, (player, now + min(CACHE_SECONDS, max(0.0, expires))))
            return player
        if not credential.startswith((PLAYER_TOKEN_PREFIX, BOT_KEY_PREFIX)):
            raise refused("malformed", "the credential is neither a player token nor a JWT")
        found = await stored(self.store.player_by_token, key)
        if found is None:
            raise refused("unknown_token", "no player has this player token")
        self._remember(self._players, key, (found, now + CACHE_SECONDS))
        return found

    async def _verified(self, credential: str) -> VerifiedToken:
        if not self.verifier.enabled:
            raise refused("issuer", "this server trusts no OpenID Connect issuer")
        try:
            return await self.verifier.verify(credential)
        except TokenRefusedError as error:
            raise refused(error.problem, error.message) from None
        except IssuerUnavailableError as error:
            log.warning("identity provider unavailable", error=str(error))
            raise ServiceError(
                ErrorReason.IDENTITY_UNAVAILABLE,
                "the identity provider's keys cannot be read; retry",
                retry_delay=1.0,
            ) from None

    def _remember(self, cache: dict[Any, Any], key: object, value: object) -> None:
        if len(cache) >= MAX_CACHED:
            now = self._clock()
            for stale in [k for k, (_, until) in cache.items() if until <= now]:
                del cache[stale]
            if len(cache) >= MAX_CACHED:
                cache.clear()
        cache[key] = value


def roles_of(token: VerifiedToken, claim: str) -> frozenset[str]:
    """The roles a token's claim lists: the claim of that name (an Auth0 namespaced claim, dots and all), else
    a dotted path (``realm_access.roles``), to a list or a space-separated string."""
    value: object = token.claims.get(claim)
    if value is None:
        value = token.claims
        for part in claim.split("."):
            value = value.get(part) if isinstance(value, Mapping) else None
    if isinstance(value, str):
        return frozenset(value.split())
    if isinstance(value, list):
        return frozenset(v for v in value if isinstance(v, str))
    return frozenset()
