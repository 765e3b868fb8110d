"""A real OpenID Connect provider for the tests: npm ``oidc-provider`` (tests/oidc/provider.mjs), on
loopback, with RSA keys the test generates, stopped by its PID. ``make oidc`` (and ``make test``) install it
with ``npm ci`` from tests/oidc/package-lock.json; a test that needs it fails, never skips, when it is not.

Tokens come from the provider's token endpoint by the client credentials grant: each client is a player
(its id the token's ``sub``), with the roles the test gives it (``roles`` claim).
"""

from __future__ import annotations

import base64
import html
import http.cookiejar
import json
import os
import re
import signal
import subprocess
import time
import urllib.parse
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from joserfc.jwk import RSAKey

from tests.live_server import ROOT

OIDC_DIR = ROOT / "tests" / "oidc"
PROVIDER = OIDC_DIR / "provider.mjs"
AUDIENCE = "https://thousand.test"
SECRET = "a-client-secret-for-the-tests-only-0123456789"
NO_PROXY = urllib.request.build_opener(urllib.request.ProxyHandler({}))


def new_key(kid: str) -> RSAKey:
    """An RS256 signing key of the test's own."""
    return RSAKey.generate_key(2048, parameters={"kid": kid, "alg": "RS256", "use": "sig"})


@dataclass
class Provider:
    """A running provider; ``issuer`` is its URL (with the port it listens on)."""

    directory: Path
    keys: list[RSAKey]
    clients: dict[str, list[str]] = field(default_factory=dict)
    """client id (the player's subject) -> roles."""
    device_clients: tuple[str, ...] = ()
    """Public clients of the device authorization grant (people signing in on the provider's pages)."""
    browser_clients: dict[str, list[str]] = field(default_factory=dict)
    """Public clients of the authorization code grant with PKCE (the web client): id -> redirect URIs."""
    issuer: str = ""
    process: subprocess.Popen[str] | None = None

    def start(self, port: int = 0) -> None:
        node_modules = OIDC_DIR / "node_modules" / "oidc-provider"
        assert node_modules.is_dir(), "oidc-provider is not installed: run `make oidc` (npm ci in tests/oidc)"
        config = {
            "port": port,
            "audience": AUDIENCE,
            "jwks": {"keys": [key.as_dict(private=True) for key in self.keys]},
            "clients": [
                {"client_id": client, "client_secret": SECRET, "roles": roles}
                for client, roles in self.clients.items()
            ],
            "device_clients": list(self.device_clients),
            "browser_clients": [
                {"client_id": client, "redirect_uris": uris} for client, uris in self.browser_clients.items()
            ],
        }
        path = self.directory / "oidc-config.json"
        path.write_text(json.dumps(config), encoding="utf-8")
        path.chmod(0o600)
        self.process = subprocess.Popen(
            ["node", str(PROVIDER), str(path)],
            cwd=OIDC_DIR,
            stdout=subprocess.PIPE,
            stderr=open(self.directory / "oidc-provider.log", "a"),  # noqa: SIM115 - the child keeps it
            text=True,
            env={**os.environ, "NODE_ENV": "test"},
        )
        assert self.process.stdout is not None
        line = self.process.stdout.readline()
        if not line:
            self.stop()
            log = (self.directory / "oidc-provider.log").read_text(encoding="utf-8")
            raise AssertionError(f"oidc-provider did not start: {log}")
        self.issuer = json.loads(line)["issuer"]

    def stop(self) -> None:
        if self.process is not None and self.process.poll() is None:
            os.kill(self.process.pid, signal.SIGTERM)
            try:
                self.process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                os.kill(self.process.pid, signal.SIGKILL)
                self.process.wait()
        self.process = None

    def restart_with(self, keys: list[RSAKey]) -> None:
        """The same issuer (the same port) with other keys: the keys rotated."""
        port = int(self.issuer.rpartition(":")[2])
        self.stop()
        self.keys = keys
        for _ in range(50):
            try:
                self.start(port)
                return
            except AssertionError:
                time.sleep(0.1)  # the port not free again yet
        raise AssertionError(f"oidc-provider could not listen on {port} again")

    def token(self, client: str) -> str:
        """A JWT access token of ``client`` for the test audience, from the provider's token endpoint."""
        discovery = self._get(self.issuer + "/.well-known/openid-configuration")
        body = urllib.parse.urlencode(
            {"grant_type": "client_credentials", "resource": AUDIENCE, "scope": "play"}
        ).encode()
        basic = base64.b64encode(f"{client}:{SECRET}".encode()).decode()
        request = urllib.request.Request(
            discovery["token_endpoint"],
            data=body,
            headers={"authorization": f"Basic {basic}", "content-type": "application/x-www-form-urlencoded"},
        )
        with NO_PROXY.open(request, timeout=10) as response:
            return str(json.loads(response.read())["access_token"])

    def approve_device(self, user_code: str, login: str, *, verification_uri: str = "") -> str:
        """What a person does in a browser for the device flow (RFC 8628), through the provider's own pages:
        enter the user code, sign in as ``login`` (the account, the token's ``sub``), consent. Each page's one
        form is read and sent as a browser would (its hidden fields, its cookies). Returns the last page."""
        jar = http.cookiejar.CookieJar()
        person = urllib.request.build_opener(
            urllib.request.ProxyHandler({}), urllib.request.HTTPCookieProcessor(jar)
        )
        filled = {"user_code": user_code, "login": login, "password": "any", "confirm": "yes"}
        with person.open(verification_uri or self.issuer + "/device", timeout=10) as response:
            page = str(response.read().decode())
        for _ in range(8):
            form = _form(page)
            if form is None:
                return page
            action, fields = form
            for name in fields:
                fields[name] = filled.get(name, fields[name])
            body = urllib.parse.urlencode(fields).encode()
            with person.open(action, data=body, timeout=10) as response:
                page = str(response.read().decode())
        raise AssertionError(f"the provider's pages never ended: {page[:500]}")

    def _get(self, url: str) -> Any:
        with NO_PROXY.open(url, timeout=10) as response:
            return json.loads(response.read())


def _form(page: str) -> tuple[str, dict[str, str]] | None:
    """The page's first form: its action and its named inputs with their values (empty when none)."""
    found = re.search(r'<form[^>]*action="([^"]+)"[^>]*>(.*?)</form>', page, re.S)
    if found is None:
        return None
    fields: dict[str, str] = {}
    for tag in re.findall(r"<input[^>]*>", found.group(2), re.S):
        name = re.search(r'name="([^"]+)"', tag)
        value = re.search(r'value="([^"]*)"', tag)
        if name:
            fields[name.group(1)] = html.unescape(value.group(1)) if value else ""
    return html.unescape(found.group(1)), fields


@contextmanager
def oidc_provider(
    directory: Path,
    clients: dict[str, list[str]],
    device_clients: tuple[str, ...] = (),
    browser_clients: dict[str, list[str]] | None = None,
) -> Iterator[Provider]:
    """A provider with one fresh key and these clients (``device_clients``: public ones of the device flow,
    people signing in on its pages; ``browser_clients``: web pages signing people in with the code grant,
    by client id -> redirect URIs), stopped after."""
    provider = Provider(
        directory, [new_key("key-1")], dict(clients), device_clients, dict(browser_clients or {})
    )
    provider.start()
    try:
        yield provider
    finally:
        provider.stop()
