"""Who the user is signed in as, per server, kept on their machine beside their seats (:mod:`clients.seats`).

A player token (a guest's) is the only proof of a guest player, and the server returns it once: losing it
loses the player's history. An OpenID Connect token is short-lived, but a bearer secret all the same. Each is
kept in ``$XDG_STATE_HOME/thousand/players.json`` (``~/.local/state/thousand`` without it), by server, with
the seats' care: the directory 0700, the file 0600, written whole under a lock.
"""

from __future__ import annotations

import json
import time
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any, Final

from clients.seats import locked, state_dir, write_private

FORMAT: Final = "thousand.players/1"
GUEST: Final = "guest"
OIDC: Final = "oidc"


@dataclass(frozen=True, slots=True)
class Login:
    """The credential of one server's player, and what the user is told about it."""

    server: str
    """The server as :attr:`clients.connection.Connection.key` names it."""
    kind: str
    """:data:`GUEST` (a player token) or :data:`OIDC` (a token of an issuer the server trusts)."""
    credential: str
    """What goes in ``authorization: Bearer``: secret."""
    player_id: str = ""
    display_name: str = ""
    issuer: str = ""
    """For :data:`OIDC`: the issuer that signed the credential."""
    expires: float = 0.0
    """time.time() when the credential stops being valid; 0: it does not expire (a player token)."""
    refresh_token: str = ""
    """For :data:`OIDC`: what renews the credential at the issuer (secret too); empty: none."""
    client_id: str = ""
    """For :data:`OIDC`: the client id the credential was issued to (a refresh needs it)."""
    audience: str = ""
    """For :data:`OIDC`: the resource the credential is for (the server's audience)."""

    def expired(self, now: float | None = None, *, margin: float = 0.0) -> bool:
        """Whether the credential is no longer valid (or will not be in ``margin`` seconds)."""
        return bool(self.expires) and (time.time() if now is None else now) + margin >= self.expires

    def __repr__(self) -> str:  # never the credential, in a log or a traceback
        return f"Login({self.server!r}, {self.kind!r}, player_id={self.player_id!r})"


class LoginKeeper:
    """The user's logins, one per server, in one file (see the module's docstring)."""

    def __init__(self, path: Path | None = None) -> None:
        self.path = path if path is not None else state_dir() / "players.json"

    def find(self, server: str) -> Login | None:
        return self._read().get(server)

    def keep(self, login: Login) -> None:
        with locked(self.path):
            logins = self._read()
            logins[login.server] = login
            self._write(logins)

    def forget(self, server: str) -> Login | None:
        """Forgets the server's login; returns it (None when there was none)."""
        with locked(self.path):
            logins = self._read()
            gone = logins.pop(server, None)
            if gone is not None:
                self._write(logins)
            return gone

    def _read(self) -> dict[str, Login]:
        try:
            raw = json.loads(self.path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return {}
        entries = raw.get("players") if isinstance(raw, dict) else None
        logins: dict[str, Login] = {}
        for entry in entries if isinstance(entries, list) else []:
            login = _login(entry)
            if login is not None:
                logins[login.server] = login
        return logins

    def _write(self, logins: dict[str, Login]) -> None:
        document = {"format": FORMAT, "players": [asdict(login) for login in logins.values()]}
        write_private(self.path, json.dumps(document, indent=1))


def _login(entry: Any) -> Login | None:
    """One entry of the file, or None for one this version cannot read."""
    if not isinstance(entry, dict):
        return None
    try:
        return Login(
            server=str(entry["server"]),
            kind=str(entry["kind"]),
            credential=str(entry["credential"]),
            player_id=str(entry.get("player_id", "")),
            display_name=str(entry.get("display_name", "")),
            issuer=str(entry.get("issuer", "")),
            expires=float(entry.get("expires", 0.0)),
            refresh_token=str(entry.get("refresh_token", "")),
            client_id=str(entry.get("client_id", "")),
            audience=str(entry.get("audience", "")),
        )
    except (KeyError, TypeError, ValueError):
        return None
