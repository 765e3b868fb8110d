"""The Python library's player credential: where it comes from, that it never shows in a repr (a log, a
traceback), and how the logins are kept on the user's machine (mode 0600, one per server)."""

from __future__ import annotations

import stat
import time
from pathlib import Path

import pytest

from clients.cli.options import build_parser, connection_from_args
from clients.connection import Connection
from clients.device_flow import DeviceCode, Tokens
from clients.logins import GUEST, OIDC, Login, LoginKeeper

SECRET = "thp_" + "s3cr3t" * 7


def test_the_credential_comes_from_the_argument_else_the_environment_and_never_shows() -> None:
    assert Connection.from_env("h:1", env={}).credential is None
    assert Connection.from_env("h:1", env={"THOUSAND_PLAYER_TOKEN": SECRET}).credential == SECRET
    given = Connection.from_env("h:1", credential="thp_given", env={"THOUSAND_PLAYER_TOKEN": SECRET})
    assert given.credential == "thp_given"
    assert SECRET not in repr(Connection("h:1", credential=SECRET))
    assert SECRET not in repr(Login("h:1", GUEST, SECRET, "p1", "Ann"))
    assert SECRET not in repr(Tokens(SECRET, 0.0, SECRET))
    assert SECRET not in repr(DeviceCode(SECRET, "ABCD-EFGH", "http://i/device", "", 0.0, 5.0))


def test_logins_are_kept_per_server_privately(tmp_path: Path) -> None:
    keeper = LoginKeeper(tmp_path / "state" / "thousand" / "players.json")
    assert keeper.find("a:1") is None
    keeper.keep(Login("a:1", GUEST, SECRET, "p1", "Ann"))
    keeper.keep(Login("b:2", OIDC, "jwt", "p2", "Bob", "http://issuer", time.time() - 1, "rt"))
    assert stat.S_IMODE(keeper.path.stat().st_mode) == 0o600
    assert stat.S_IMODE(keeper.path.parent.stat().st_mode) == 0o700
    a, b = keeper.find("a:1"), keeper.find("b:2")
    assert a is not None and a.credential == SECRET and not a.expired()
    assert b is not None and b.expired() and b.refresh_token == "rt"
    assert keeper.forget("a:1") == a and keeper.find("a:1") is None and keeper.find("b:2") == b
    assert keeper.forget("a:1") is None
    keeper.path.write_text("not json", encoding="utf-8")
    assert keeper.find("b:2") is None  # a damaged file: nothing kept, no crash


def test_every_command_sends_the_login_kept_for_its_server(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path))
    monkeypatch.delenv("THOUSAND_PLAYER_TOKEN", raising=False)
    LoginKeeper().keep(Login("a:1", GUEST, SECRET, "p1", "Ann"))
    parse = build_parser().parse_args
    assert connection_from_args(parse(["--server", "a:1", "tables"])).credential == SECRET
    assert connection_from_args(parse(["--server", "b:2", "tables"])).credential is None
    flagged = parse(["tables", "--server", "a:1", "--player-token", "thp_other"])
    assert connection_from_args(flagged).credential == "thp_other"
    assert connection_from_args(parse(["--server", "a:1", "tables"]), signed_in=False).credential is None
    monkeypatch.setenv("THOUSAND_PLAYER_TOKEN", "thp_env")
    assert connection_from_args(parse(["--server", "a:1", "tables"])).credential == "thp_env"
    assert connection_from_args(parse(["--server", "a:1", "tables"]), signed_in=False).credential is None
