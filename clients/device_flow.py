"""Signing a person in with an OpenID Connect issuer from a terminal: the OAuth 2.0 device authorization grant
(RFC 8628). The client asks the issuer for a device code and a short user code, the person opens the
verification page on any device with a browser, enters the code and signs in there; meanwhile the client
polls the token endpoint (at the interval the issuer asks, slower on ``slow_down``) until the person approved
or refused, or the code expired.

The token asked for is for the game server: the ``resource`` (RFC 8707; ``audience`` too, which Auth0 reads)
is the audience the server names in its sign-in options (``IdentityProvider.audience``), and so is the client
id unless the person names another (``thousand login --client-id``). What the server is then sent is the
access token when the issuer made it a JWT, else the ID token (whose audience is the client id).
"""

from __future__ import annotations

import asyncio
import json
import time
import urllib.error
import urllib.parse
import urllib.request
from dataclasses import dataclass, replace
from typing import Any, Final

from clients.i18n import t

GRANT_TYPE: Final = "urn:ietf:params:oauth:grant-type:device_code"
SCOPE: Final = "openid offline_access"
"""``offline_access``: a refresh token too, so that the client renews the short-lived token by itself
(:meth:`DeviceFlow.refresh`) instead of asking the person to sign in again every hour."""
HTTP_TIMEOUT: Final = 10.0


class DeviceFlowError(Exception):
    """The sign-in did not happen; the message says why, in words for the person (in the process's language:
    clients.i18n)."""


@dataclass(frozen=True, slots=True)
class DeviceCode:
    """What the issuer answered the device authorization request with (RFC 8628, 3.2)."""

    device_code: str
    user_code: str
    verification_uri: str
    verification_uri_complete: str
    expires_at: float
    """time.monotonic() when the codes expire."""
    interval: float

    def __repr__(self) -> str:  # the device code is a secret until it is exchanged
        return f"DeviceCode(user_code={self.user_code!r}, verification_uri={self.verification_uri!r})"


@dataclass(frozen=True, slots=True)
class Tokens:
    """The issuer's answer once the person approved: the credential for the server and when it expires."""

    credential: str
    expires: float
    """time.time() when the credential stops being valid (0: the issuer did not say)."""
    refresh_token: str = ""
    """What renews the credential (:meth:`DeviceFlow.refresh`); empty when the issuer gave none."""

    def __repr__(self) -> str:
        return f"Tokens(expires={self.expires!r})"


class DeviceFlow:
    """One issuer's device flow for one client id (:meth:`start` is blocking HTTP: run it in a thread
    from async code)."""

    def __init__(self, issuer: str, client_id: str, *, resource: str = "") -> None:
        self.issuer = issuer.rstrip("/")
        self.client_id = client_id
        self.resource = resource
        self._endpoints: dict[str, Any] | None = None

    def endpoints(self) -> dict[str, Any]:
        """The issuer's discovery document (OpenID Connect Discovery), read once."""
        if self._endpoints is None:
            url = self.issuer + "/.well-known/openid-configuration"
            document = _json(_open(urllib.request.Request(url), self.issuer))
            if not isinstance(document, dict) or "token_endpoint" not in document:
                raise DeviceFlowError(t("device.no_discovery", issuer=self.issuer))
            if "device_authorization_endpoint" not in document:
                raise DeviceFlowError(t("device.no_device_endpoint", issuer=self.issuer))
            self._endpoints = document
        return self._endpoints

    def start(self) -> DeviceCode:
        """Asks for a device code and the user code to show."""
        form = {"client_id": self.client_id, "scope": SCOPE}
        if self.resource:
            form["resource"] = self.resource  # RFC 8707
            form["audience"] = self.resource  # what Auth0 reads instead
        answer = self._post(self.endpoints()["device_authorization_endpoint"], form)
        if "error" in answer:
            raise DeviceFlowError(t("device.start_refused", why=_described(answer)))
        try:
            return DeviceCode(
                device_code=str(answer["device_code"]),
                user_code=str(answer["user_code"]),
                verification_uri=str(answer["verification_uri"]),
                verification_uri_complete=str(answer.get("verification_uri_complete", "")),
                expires_at=time.monotonic() + float(answer.get("expires_in", 600)),
                interval=float(answer.get("interval", 5)),
            )
        except (KeyError, TypeError, ValueError):
            raise DeviceFlowError(t("device.incomplete")) from None

    async def wait(self, code: DeviceCode) -> Tokens:
        """Polls the token endpoint until the person approved (the tokens), refused or let the code expire
        (:class:`DeviceFlowError`). Each request runs in a thread; the waits between are the event loop's,
        so that Ctrl+C (a cancelled task) ends the wait at once."""
        interval = code.interval
        form = {"grant_type": GRANT_TYPE, "device_code": code.device_code, "client_id": self.client_id}
        while True:
            if time.monotonic() >= code.expires_at:
                raise DeviceFlowError(t("device.code_expired"))
            await asyncio.sleep(interval)
            answer = await asyncio.to_thread(self._post, self.endpoints()["token_endpoint"], form)
            match answer.get("error"):
                case None:
                    return _tokens(answer)
                case "authorization_pending":
                    continue
                case "slow_down":
                    interval += 5  # RFC 8628, 3.5
                case "access_denied":
                    raise DeviceFlowError(t("device.denied"))
                case "expired_token":
                    raise DeviceFlowError(t("device.code_expired"))
                case _:
                    raise DeviceFlowError(t("device.refused", why=_described(answer)))

    def refresh(self, refresh_token: str) -> Tokens:
        """A new credential for a refresh token (RFC 6749, 6), blocking; the same refresh token is kept when
        the issuer does not rotate it. :class:`DeviceFlowError` when it was refused (revoked, expired)."""
        form = {"grant_type": "refresh_token", "refresh_token": refresh_token, "client_id": self.client_id}
        if self.resource:
            form["resource"] = self.resource
        answer = self._post(self.endpoints()["token_endpoint"], form)
        if "error" in answer:
            raise DeviceFlowError(t("device.not_renewed", why=_described(answer)))
        tokens = _tokens(answer)
        return tokens if tokens.refresh_token else replace(tokens, refresh_token=refresh_token)

    def _post(self, url: str, form: dict[str, str]) -> dict[str, Any]:
        request = urllib.request.Request(
            url,
            data=urllib.parse.urlencode(form).encode(),
            headers={"content-type": "application/x-www-form-urlencoded", "accept": "application/json"},
        )
        answer = _json(_open(request, self.issuer, errors_have_bodies=True))
        if not isinstance(answer, dict):
            raise DeviceFlowError(t("device.not_json", issuer=self.issuer))
        return answer


def _tokens(answer: dict[str, Any]) -> Tokens:
    access = str(answer.get("access_token", ""))
    credential = access if access.count(".") == 2 else str(answer.get("id_token", ""))
    if not credential:
        raise DeviceFlowError(t("device.no_token"))
    expires_in = answer.get("expires_in")
    expires = time.time() + float(expires_in) if isinstance(expires_in, int | float) else 0.0
    return Tokens(credential, expires, str(answer.get("refresh_token", "")))


def _described(answer: dict[str, Any]) -> str:
    error = str(answer.get("error", "unknown error"))
    description = str(answer.get("error_description", "")).strip()
    return f"{error} ({description})" if description else error


def _open(request: urllib.request.Request, issuer: str, *, errors_have_bodies: bool = False) -> bytes:
    try:
        with urllib.request.urlopen(request, timeout=HTTP_TIMEOUT) as response:
            body: bytes = response.read()
            return body
    except urllib.error.HTTPError as error:
        if errors_have_bodies and error.code in (400, 401, 403):
            return error.read()  # OAuth errors are JSON bodies of a 400 (RFC 6749 5.2)
        raise DeviceFlowError(
            t("device.http_error", issuer=issuer, code=str(error.code), why=str(error.reason))
        ) from None
    except (urllib.error.URLError, OSError) as error:
        reason = getattr(error, "reason", error)
        words = getattr(reason, "strerror", None) or str(reason)
        raise DeviceFlowError(t("device.unreachable", issuer=issuer, why=words.lower())) from None


def _json(body: bytes) -> Any:
    try:
        return json.loads(body)
    except ValueError:
        raise DeviceFlowError(t("device.not_json", issuer="")) from None
