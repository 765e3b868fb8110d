"""OpenID Connect tokens: a JWT of an issuer the operator trusts, checked against the issuer's own keys.

The issuer's discovery document (``/.well-known/openid-configuration``) names its JWK set; both are read on
the first token of the issuer and kept (``KEYS_MAX_AGE``), and read again when a token names a key id the set
does not have (the issuer rotated its keys), at most once every ``MIN_REFRESH_SECONDS`` so that tokens with
made-up key ids cannot make the server hammer the issuer. Signatures and claims are checked by joserfc;
this module only chooses what to accept:

- asymmetric algorithms only (``ALGORITHMS``): ``none`` and HMACs are refused before any key is looked at, so
  an HS256 "signed" with the issuer's public key is never even tried;
- only keys of the issuer's set, by ``kid`` (or its only key when the token names none);
- ``iss`` one of the configured issuers (exactly), ``aud`` naming that issuer's audience, ``sub`` present,
  ``exp`` required, and ``exp``/``nbf``/``iat`` checked with ``CLOCK_SKEW_SECONDS`` of leeway.

Every refusal is a :class:`TokenRefusedError` whose ``problem`` the service sends as metadata.
"""

from __future__ import annotations

import asyncio
import json
import time
import urllib.error
import urllib.parse
import urllib.request
from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Final

from joserfc import jws, jwt
from joserfc.errors import (
    BadSignatureError,
    ExpiredTokenError,
    InvalidClaimError,
    JoseError,
    MissingClaimError,
)
from joserfc.jwk import ECKey, KeySet, OKPKey, RSAKey

ALGORITHMS: Final = frozenset(
    {"RS256", "RS384", "RS512", "PS256", "PS384", "PS512", "ES256", "ES384", "ES512", "EdDSA"}
)
"""The signature algorithms accepted: asymmetric ones, whose verification key is public."""
CLOCK_SKEW_SECONDS: Final = 60
KEYS_MAX_AGE: Final = 3600.0
"""An issuer's keys are read again after this long even without an unknown ``kid``."""
MIN_REFRESH_SECONDS: Final = 5.0
FETCH_TIMEOUT_SECONDS: Final = 5.0
MAX_DOCUMENT_BYTES: Final = 1 << 20
MAX_TOKEN_CHARS: Final = 16_384

LOOPBACK_HOSTS: Final = frozenset({"127.0.0.1", "::1", "localhost"})
_DIRECT: Final = urllib.request.build_opener(urllib.request.ProxyHandler({}))
_PROXIED: Final = urllib.request.build_opener()

AsymmetricKey = RSAKey | ECKey | OKPKey
Fetch = Callable[[str], Awaitable[Mapping[str, Any]]]


class TokenRefusedError(Exception):
    """A token that is not accepted; ``problem`` is one of the documented names (``expired``, ...)."""

    def __init__(self, problem: str, message: str) -> None:
        super().__init__(message)
        self.problem = problem
        self.message = message


class IssuerUnavailableError(Exception):
    """The issuer's discovery document or keys could not be read (and none are known yet)."""


@dataclass(frozen=True, slots=True)
class Issuer:
    """An issuer the operator trusts, and the audience its tokens must name for this server."""

    url: str
    audience: str


@dataclass(frozen=True, slots=True)
class VerifiedToken:
    issuer: str
    subject: str
    claims: Mapping[str, Any]

    @property
    def display_name(self) -> str:
        """What the token says the person is called (a first call names the new player so)."""
        for claim in ("name", "preferred_username", "nickname", "given_name"):
            value = self.claims.get(claim)
            if isinstance(value, str) and value.strip():
                return value.strip()[:64]
        return "player"


@dataclass(slots=True)
class _Keys:
    keys: dict[str, AsymmetricKey] = field(default_factory=dict)
    read_at: float = -float("inf")
    lock: asyncio.Lock = field(default_factory=asyncio.Lock)


async def fetch_json(url: str) -> Mapping[str, Any]:
    """GET a JSON document (off the event loop): IssuerUnavailableError when it cannot be had."""

    def get() -> Mapping[str, Any]:
        request = urllib.request.Request(url, headers={"accept": "application/json"})
        host = urllib.parse.urlsplit(url).hostname or ""
        opener = _DIRECT if host in LOOPBACK_HOSTS else _PROXIED  # a proxy never sees a loopback address
        try:
            with opener.open(request, timeout=FETCH_TIMEOUT_SECONDS) as response:
                body = response.read(MAX_DOCUMENT_BYTES + 1)
        except (urllib.error.URLError, OSError, ValueError) as error:
            raise IssuerUnavailableError(f"cannot read {url}: {error}") from None
        if len(body) > MAX_DOCUMENT_BYTES:
            raise IssuerUnavailableError(f"{url} is larger than {MAX_DOCUMENT_BYTES} bytes")
        try:
            document = json.loads(body)
        except ValueError:
            raise IssuerUnavailableError(f"{url} is not JSON") from None
        if not isinstance(document, dict):
            raise IssuerUnavailableError(f"{url} is not a JSON object")
        return document

    return await asyncio.to_thread(get)


class OidcVerifier:
    """Checks tokens of the configured issuers; ``fetch`` reads a JSON document by URL."""

    def __init__(
        self,
        issuers: Sequence[Issuer],
        *,
        fetch: Fetch = fetch_json,
        clock: Callable[[], float] = time.time,
        monotonic: Callable[[], float] = time.monotonic,
        min_refresh_seconds: float = MIN_REFRESH_SECONDS,
    ) -> None:
        self.issuers = {issuer.url: issuer for issuer in issuers}
        self._fetch = fetch
        self._clock = clock
        self._monotonic = monotonic
        self._keys = {url: _Keys() for url in self.issuers}
        self.min_refresh_seconds = min_refresh_seconds
        self.refreshes = 0
        """How many times keys were read (first reads included): for tests and metrics."""

    @property
    def enabled(self) -> bool:
        return bool(self.issuers)

    async def verify(self, token: str) -> VerifiedToken:
        """The token's issuer, subject and claims.

        :raises TokenRefusedError: the token is not accepted (its ``problem`` says why).
        :raises IssuerUnavailableError: the issuer's keys cannot be read.
        """
        if len(token) > MAX_TOKEN_CHARS:
            raise TokenRefusedError("malformed", f"the token is longer than {MAX_TOKEN_CHARS} characters")
        try:
            compact = jws.extract_compact(token.encode())
            header = compact.headers()
            unverified = json.loads(compact.payload)
        except (JoseError, ValueError, UnicodeDecodeError):
            raise TokenRefusedError("malformed", "the token is not a signed JWT (JWS compact form)") from None
        if not isinstance(unverified, dict):
            raise TokenRefusedError("malformed", "the token's payload is not a JSON object")
        algorithm = header.get("alg")
        if algorithm not in ALGORITHMS:
            raise TokenRefusedError(
                "algorithm",
                f"the token's algorithm {algorithm!r} is not accepted: only {', '.join(sorted(ALGORITHMS))}",
            )
        issuer = self.issuers.get(str(unverified.get("iss", "")))
        if issuer is None:
            raise TokenRefusedError("issuer", "the token's issuer (iss) is not one this server trusts")
        key = await self._key(issuer, header.get("kid"))
        try:
            verified = jwt.decode(token, key, algorithms=[str(algorithm)])
        except BadSignatureError:
            raise TokenRefusedError("signature", "the token's signature does not verify") from None
        except JoseError as error:
            raise TokenRefusedError("malformed", f"the token cannot be read: {error.description}") from None
        self._check_claims(verified.claims, issuer)
        return VerifiedToken(issuer.url, str(verified.claims["sub"]), verified.claims)

    def _check_claims(self, claims: Mapping[str, Any], issuer: Issuer) -> None:
        registry = jwt.JWTClaimsRegistry(
            now=lambda: int(self._clock()),
            leeway=CLOCK_SKEW_SECONDS,
            iss={"essential": True, "value": issuer.url},
            aud={"essential": True, "value": issuer.audience},
            sub={"essential": True},
            exp={"essential": True},
        )
        try:
            registry.validate(dict(claims))
        except ExpiredTokenError:
            raise TokenRefusedError("expired", "the token has expired (exp)") from None
        except MissingClaimError as error:
            raise TokenRefusedError("malformed", f"the token has no {error.claim!r} claim") from None
        except InvalidClaimError as error:
            problem = {"aud": "audience", "iss": "issuer", "nbf": "not_yet_valid", "iat": "not_yet_valid"}
            raise TokenRefusedError(
                problem.get(error.claim, "malformed"), f"the token's {error.claim!r} claim is not accepted"
            ) from None

    async def _key(self, issuer: Issuer, kid: object) -> AsymmetricKey:
        held = self._keys[issuer.url]
        now = self._monotonic()
        if now - held.read_at > KEYS_MAX_AGE:
            await self._refresh(issuer, held, stale=True)
        found = _pick(held.keys, kid)
        if found is None and self._monotonic() - held.read_at >= self.min_refresh_seconds:
            await self._refresh(issuer, held, stale=False)  # a key the issuer added since (rotation)
            found = _pick(held.keys, kid)
        if found is None and not held.keys:  # none read yet: the issuer is down, not the token wrong
            raise IssuerUnavailableError(f"no key of {issuer.url} could be read yet")
        if found is None:
            raise TokenRefusedError("unknown_key", "no key of the token's issuer has its key id (kid)")
        return found

    async def _refresh(self, issuer: Issuer, held: _Keys, *, stale: bool) -> None:
        async with held.lock:
            if self._monotonic() - held.read_at < (KEYS_MAX_AGE if stale else self.min_refresh_seconds):
                return  # another call read them meanwhile
            try:
                held.keys = await self._read_keys(issuer)
            except IssuerUnavailableError:
                if not held.keys:
                    raise
                return  # keep the keys known: the issuer may be down for a moment
            finally:
                held.read_at = self._monotonic()
            self.refreshes += 1

    async def _read_keys(self, issuer: Issuer) -> dict[str, AsymmetricKey]:
        discovery = await self._fetch(issuer.url.rstrip("/") + "/.well-known/openid-configuration")
        if discovery.get("issuer") != issuer.url:
            raise IssuerUnavailableError(f"the discovery document of {issuer.url} names another issuer")
        jwks_uri = discovery.get("jwks_uri")
        if not isinstance(jwks_uri, str):
            raise IssuerUnavailableError(f"the discovery document of {issuer.url} has no jwks_uri")
        document = await self._fetch(jwks_uri)
        keys: dict[str, AsymmetricKey] = {}
        for entry in document.get("keys", []):
            if not isinstance(entry, dict) or entry.get("use", "sig") != "sig":
                continue
            try:
                key = KeySet.import_key_set({"keys": [entry]}).keys[0]
            except (JoseError, ValueError, KeyError, TypeError):
                continue  # a key this library cannot read is no key to verify with
            if isinstance(key, RSAKey | ECKey | OKPKey):  # never a symmetric key from a public document
                keys[str(entry.get("kid", ""))] = key
        return keys


def _pick(keys: Mapping[str, AsymmetricKey], kid: object) -> AsymmetricKey | None:
    if isinstance(kid, str) and kid:
        return keys.get(kid)
    return next(iter(keys.values())) if len(keys) == 1 else None
