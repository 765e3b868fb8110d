"""Players in the terminal client, as people use it: real server processes, the ``thousand`` command run as a
process per device (each device its own state directory), and the real OpenID provider (npm oidc-provider).

A guest signs in, plays, finds the game in ``thousand games`` and, on a second device, from the Python
library and from the terminal client; seats taken before signing in are claimed into the history. The device
flow signs the terminal client in against the test provider, the person approving on the provider's own
pages. A private table is listed only to its players and cannot be joined from the terminal client without
its invite."""

from __future__ import annotations

import os
import queue
import re
import signal
import stat
import subprocess
import threading
import time
from dataclasses import replace
from pathlib import Path

import grpc

from clients.connection import Connection
from clients.logins import LoginKeeper
from clients.players import PlayerClient
from tests.cli_harness import run
from tests.identity_harness import ADMIN_TOKEN, bearer
from tests.live_server import live_server
from tests.oidc_harness import AUDIENCE, oidc_provider
from tests.test_cli_plain import command
from thousand.v1 import admin_service_pb2 as admin_pb
from thousand.v1 import admin_service_pb2_grpc as admin_grpc
from thousand.v1 import player_service_pb2 as player_pb

QUICK = ("--bots", "2", "--bot-pace", "0", "--plain")
"""A table with two server bots that play at once, the terminal client in line mode."""


class Device:
    """One machine of the user: the ``thousand`` command with a state directory of its own."""

    def __init__(self, home: Path, server: str) -> None:
        self.home = home
        self.server = server
        self.running: list[subprocess.Popen[str]] = []

    @property
    def env(self) -> dict[str, str]:
        env = {k: v for k, v in os.environ.items() if not k.startswith("THOUSAND_")}
        return {**env, "XDG_STATE_HOME": str(self.home), "THOUSAND_SERVER": self.server, "LANG": "C"}

    def run(self, *args: str, ok: bool = True) -> subprocess.CompletedProcess[str]:
        done = subprocess.run(
            [*command(), *args],
            env=self.env,
            stdin=subprocess.DEVNULL,
            capture_output=True,
            text=True,
            timeout=90,
            check=False,
        )
        if ok:
            assert done.returncode == 0, f"thousand {args}: {done.returncode}\n{done.stdout}\n{done.stderr}"
        return done

    def start(self, *args: str) -> Lines:
        process = subprocess.Popen(
            [*command(), *args],
            env=self.env,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
        )
        self.running.append(process)
        return Lines(process)

    def stop(self) -> None:
        for process in self.running:
            if process.poll() is None:
                os.kill(process.pid, signal.SIGINT)
                try:
                    process.wait(timeout=10)
                except subprocess.TimeoutExpired:
                    os.kill(process.pid, signal.SIGKILL)
                    process.wait()


class Lines:
    """A running command's output, line by line, waited for with a deadline."""

    def __init__(self, process: subprocess.Popen[str]) -> None:
        self.process = process
        self.seen: list[str] = []
        self._lines: queue.Queue[str | None] = queue.Queue()
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self) -> None:
        assert self.process.stdout is not None
        for line in self.process.stdout:
            self._lines.put(line)
        self._lines.put(None)

    def until(self, pattern: str, timeout: float = 60) -> re.Match[str]:
        deadline = time.monotonic() + timeout
        while True:
            left = deadline - time.monotonic()
            line = self._lines.get(timeout=max(left, 0.01)) if left > 0 else None
            if line is None:
                raise AssertionError(f"no line matched {pattern!r}; output:\n{''.join(self.seen)}")
            self.seen.append(line)
            found = re.search(pattern, line)
            if found:
                return found

    def wait(self, timeout: float = 60) -> str:
        """The rest of the output once the command ended."""
        self.process.wait(timeout=timeout)
        while (line := self._lines.get(timeout=10)) is not None:
            self.seen.append(line)
        return "".join(self.seen)


def table_of(output: str) -> str:
    found = re.search(r"Table (\S+) created", output)
    assert found, output
    return found.group(1)


def test_a_guest_plays_and_finds_the_game_on_a_second_device_and_claims_old_seats(tmp_path: Path) -> None:
    with live_server(tmp_path, str(tmp_path / "thousand.db")) as server:
        laptop, phone = (
            Device(tmp_path / "laptop", server.address),
            Device(tmp_path / "phone", server.address),
        )
        assert "Not signed in" in laptop.run("whoami", ok=False).stdout
        anonymous = table_of(laptop.run("new", *QUICK, ok=False).stdout)  # played before signing in

        login = laptop.run("login", "--name", "Ann", "--locale", "pl")
        assert f"Signed in on {server.address} as Ann (a guest player)." in login.stdout
        kept = tmp_path / "laptop" / "thousand" / "players.json"
        assert stat.S_IMODE(kept.stat().st_mode) == 0o600
        assert stat.S_IMODE(kept.parent.stat().st_mode) == 0o700
        refused = laptop.run("login", "--name", "Bob", ok=False)
        assert refused.returncode == 1 and "`thousand logout` first" in refused.stderr
        whoami = laptop.run("whoami").stdout
        assert "Ann (guest player)" in whoami and "language:  pl" in whoami and "thp_" not in whoami

        played = table_of(laptop.run("new", *QUICK, ok=False).stdout)
        games = laptop.run("games").stdout
        assert re.search(rf"^\S+ \S+  {played}\s+Thousand\s+1  playing$", games, re.M), games
        assert anonymous not in games  # not the player's until claimed

        claimed = laptop.run("claim").stdout
        assert f"table {anonymous}, seat 1: now yours" in claimed
        assert f"table {played}, seat 1: yours already" in claimed
        assert "1 seat joined your history" in claimed
        assert anonymous in laptop.run("games").stdout

        # The second device: the Python library with the player's token, which the user carried over.
        token = re.search(r"player token \(secret\): (\S+)", laptop.run("whoami", "--show-token").stdout)
        assert token is not None
        login_kept = LoginKeeper(kept).find(server.address)
        assert login_kept is not None and login_kept.credential == token.group(1)

        async def from_the_library() -> tuple[player_pb.Player, list[str]]:
            async with PlayerClient(Connection(server.address, credential=token.group(1))) as players:
                return await players.me(), [game.table_id async for game in players.games(page_size=1)]

        me, tables = run(from_the_library())
        assert (me.display_name, me.locale, me.kind) == ("Ann", "pl", player_pb.PLAYER_KIND_GUEST)
        assert sorted(tables) == sorted([anonymous, played])  # page by page, one game a page

        # ... and the terminal client on that device, signed in with the same token.
        assert "not signed in" in phone.run("games", ok=False).stderr
        assert "as Ann (guest player)" in phone.run("login", "--token", token.group(1)).stdout
        phone_games = phone.run("games", "--limit", "1").stdout
        assert "Older games: thousand games --page " in phone_games
        older = re.search(r"--page (\S+)", phone_games)
        assert older is not None
        both = phone_games + phone.run("games", "--page", older.group(1)).stdout
        assert anonymous in both and played in both

        out = phone.run("logout").stdout
        assert "Signed out" in out and "player token" in out
        assert "Not signed in" in phone.run("whoami", ok=False).stdout
        forged = phone.run("games", "--player-token", "thp_" + "x" * 43, ok=False)
        assert "no longer knows your player" in forged.stderr and "[PLAYER_TOKEN_INVALID]" in forged.stderr


def test_the_device_flow_signs_the_terminal_client_in_with_the_test_provider(tmp_path: Path) -> None:
    with (
        oidc_provider(tmp_path, {}, device_clients=(AUDIENCE,)) as provider,
        live_server(
            tmp_path,
            str(tmp_path / "thousand.db"),
            "--oidc-issuer",
            provider.issuer,
            "--oidc-audience",
            AUDIENCE,
        ) as server,
    ):
        laptop = Device(tmp_path / "laptop", server.address)
        try:
            login = laptop.start("login", "--name", "Carol")
            page = login.until(r"^\s+(http\S+)")
            code = login.until(r"enter the code\s+(\S+)")
            assert page.group(1).startswith(provider.issuer + "/device")
            done = provider.approve_device(code.group(1), "carol-account", verification_uri=page.group(1))
            assert "Sign-in Success" in done
            out = login.wait()
            assert login.process.returncode == 0, out
            assert f"as Carol (with {provider.issuer})" in out
        finally:
            laptop.stop()
        whoami = laptop.run("whoami").stdout
        assert f"Carol (signed in with {provider.issuer})" in whoami and "signed in until" in whoami
        played = table_of(laptop.run("new", *QUICK, ok=False).stdout)
        assert played in laptop.run("games").stdout

        # The sign-in is renewed with its refresh token once it is about to expire, without the person.
        keeper = LoginKeeper(tmp_path / "laptop" / "thousand" / "players.json")
        signed = keeper.find(server.address)
        assert signed is not None and signed.kind == "oidc" and signed.refresh_token
        keeper.keep(replace(signed, expires=time.time() + 5))
        assert played in laptop.run("games").stdout
        renewed = keeper.find(server.address)
        assert renewed is not None and renewed.credential != signed.credential
        assert renewed.expires > time.time() + 300 and renewed.player_id == signed.player_id

        # A person who gives up waiting (Ctrl+C) is not signed in, and sees no traceback.
        other = Device(tmp_path / "other", server.address)
        try:
            waiting = other.start("login")
            waiting.until(r"enter the code")
            os.kill(waiting.process.pid, signal.SIGINT)
            out = waiting.wait()
            assert "Traceback" not in out
        finally:
            other.stop()
        assert "Not signed in" in other.run("whoami", ok=False).stdout


def test_a_private_table_is_listed_to_its_players_only_and_needs_its_invite(tmp_path: Path) -> None:
    with live_server(tmp_path, str(tmp_path / "thousand.db")) as server:
        ann, bob = Device(tmp_path / "ann", server.address), Device(tmp_path / "bob", server.address)
        try:
            ann.run("login", "--name", "Ann")
            created = ann.start(
                "new", "--private", "--players", "3", "--bots", "1", "--bot-pace", "0", "--plain"
            )
            table = created.until(r"Table (\S+) created").group(1)
            invite = created.until(r"Invite code: (\S+)").group(1)
            created.until(rf"thousand join {table} --invite {invite}")
            assert len(invite) >= 16

            assert table in ann.run("tables").stdout  # its creator's player sees it
            assert table not in bob.run("tables").stdout  # anonymous: not listed
            bob.run("login", "--name", "Bob")
            assert table not in bob.run("tables").stdout  # another player: not listed either

            without = bob.run("join", table, "--plain", ok=False)
            assert without.returncode == 1
            assert "this table is private: ask its players for the invite code" in without.stderr
            assert "[INVITE_INVALID]" in without.stderr
            wrong = bob.run("join", table, "--invite", "x" * 24, "--plain", ok=False)
            assert "the invite code is not this table's" in wrong.stderr
            assert table not in bob.run("games").stdout  # nothing taken

            joined = bob.start("join", table, "--invite", invite, "--plain")
            joined.until(rf"You sit in seat \d of table {table}")
            assert table in bob.run("tables").stdout  # a player of it now
            assert table in bob.run("games").stdout
        finally:
            ann.stop()
            bob.stop()


def test_the_terminal_client_says_already_seated_and_an_operators_handover_in_words(tmp_path: Path) -> None:
    """A player joining again from a second device is told they sit there already (and where), in English and
    in Ukrainian; an operator's handover of their seat is a line every watcher reads, not a bare code."""
    token_file = tmp_path / "admin-token"
    token_file.write_text(ADMIN_TOKEN, encoding="utf-8")
    db = str(tmp_path / "thousand.db")
    with live_server(tmp_path, db, "--admin-token-file", str(token_file)) as server:
        laptop, phone, tv = (Device(tmp_path / name, server.address) for name in ("laptop", "phone", "tv"))
        try:
            laptop.run("login", "--name", "Ann")
            created = laptop.start("new", "--players", "3", "--bots", "1", "--bot-pace", "0", "--plain")
            table = created.until(r"Table (\S+) created; you sit in seat 1").group(1)  # seats count from 1
            token = re.search(r"player token \(secret\): (\S+)", laptop.run("whoami", "--show-token").stdout)
            assert token is not None
            phone.run("login", "--token", token.group(1))

            again = phone.run("join", table, "--plain", ok=False)
            assert again.returncode == 1
            assert "you already sit at this table, in seat 1: play that seat [ALREADY_SEATED]" in again.stderr
            in_ukrainian = phone.run("join", table, "--plain", "--lang", "uk", ok=False)
            assert "ви вже сидите за цим столом, на місці 1" in in_ukrainian.stderr

            watching = tv.start("watch", table, "--plain")
            watching.until(table)
            with grpc.insecure_channel(server.address) as channel:
                request = admin_pb.HandSeatToBotRequest(table_id=table, seat=0, reason="left for good")
                admin_grpc.AdminServiceStub(channel).HandSeatToBot(request, metadata=bearer(ADMIN_TOKEN))
            watching.until(r"Ann \(seat 1\) was handed to the server.s bot by an operator: the bot plays it")
            # Ann's own terminal is told, and stops following a seat that is not hers any more.
            created.until(r"An operator handed your seat to the server.s bot for the rest of the game")
            assert created.process.wait(timeout=30) == 0
        finally:
            for device in (laptop, phone, tv):
                device.stop()


def test_a_guests_seats_are_claimed_by_the_player_signed_in_after_it(tmp_path: Path) -> None:
    """A guest's seats are another player's to the player who signs in next on the device, until the guest's
    own player token proves they were theirs (``thousand claim --guest-token``)."""
    with live_server(tmp_path, str(tmp_path / "thousand.db")) as server:
        laptop = Device(tmp_path / "laptop", server.address)
        laptop.run("login", "--name", "Ann")
        played = table_of(laptop.run("new", *QUICK, ok=False).stdout)
        token = re.search(r"player token \(secret\): (\S+)", laptop.run("whoami", "--show-token").stdout)
        assert token is not None
        laptop.run("logout")
        laptop.run("login", "--name", "Ann at home")  # another player: an account, in real life

        plain = laptop.run("claim").stdout
        assert re.search(rf"table {played}, seat \d: it belongs to another player", plain), plain
        assert played not in laptop.run("games").stdout
        proven = laptop.run("claim", "--guest-token", token.group(1)).stdout
        assert re.search(rf"table {played}, seat \d: now yours", proven), proven
        assert "1 seat joined your history" in proven
        assert played in laptop.run("games").stdout
        wrong = laptop.run("claim", "--guest-token", "thp_" + "x" * 43, ok=False)
        assert wrong.returncode == 1 and "[PLAYER_TOKEN_INVALID]" in wrong.stderr
