"""How a client reaches its server, as a person meets it: a wrong address, a server that is not running, a
TLS server asked in plaintext (and the reverse), a certificate not trusted: each is said in words within
seconds (it hung for about five minutes, then said "failed to connect"), and a client with --tls plays."""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path

import grpc
import pytest

from clients.backoff import Backoff
from clients.connection import Connection, in_words
from clients.errors import ServerError
from clients.i18n import t, use
from clients.session import TableSession
from scripts.ports import free_port
from server.app import Server
from server.settings import Settings
from tests.tls_files import self_signed

QUICK = 2.0
"""The connect timeout of these tests: every failure must be said within it, and a little more."""


@asynccontextmanager
async def tls_server(directory: Path) -> AsyncIterator[tuple[int, Path]]:
    cert, key = self_signed(directory)
    server = Server(Settings(host="127.0.0.1", port=0, tls_cert=str(cert), tls_key=str(key)))
    await server.start()
    try:
        yield server.port, cert
    finally:
        await server.stop(grace=0)


async def failure(connection: Connection) -> tuple[str, float]:
    """The words of a lobby call's failure and how long it took to hear them."""
    started = time.monotonic()
    async with TableSession(connection, backoff=Backoff(give_up_after=300)) as session:
        with pytest.raises(ServerError) as caught:
            await session.list_tables()
    return caught.value.message, time.monotonic() - started


def test_a_server_that_is_not_running_is_said_within_seconds() -> None:
    address = f"127.0.0.1:{free_port()}"
    message, took = asyncio.run(failure(Connection(address, connect_timeout=QUICK)))
    assert took < QUICK + 3
    assert message == f"cannot reach the server at {address}: nothing answers at that address " + (
        "(connection refused): is the server running?"
    )


@pytest.mark.parametrize("lang", ["be", "pl"])
def test_a_server_not_running_is_said_in_the_players_language(lang: str) -> None:
    """Issue #29: the whole sentence is in the player's language, the address and what to try with it (the
    terminal client said "cannot reach the server at ..." in English before the Belarusian reason)."""
    address = f"127.0.0.1:{free_port()}"
    use(lang)
    try:
        message, _ = asyncio.run(failure(Connection(address, connect_timeout=QUICK)))
        expected = t("connection.cannot_reach", address=address, why=t("connection.refused_first"))
    finally:
        use("en")
    assert message == expected
    assert "cannot" not in message and "server at" not in message


def test_an_unknown_host_is_said_within_seconds() -> None:
    message, took = asyncio.run(failure(Connection("no-such-host.invalid:50051", connect_timeout=QUICK)))
    assert took < QUICK + 3
    assert "the server's host name is not known" in message


def test_tls_and_plaintext_mismatches_are_said_and_a_trusting_tls_client_plays(tmp_path: Path) -> None:
    async def scenario() -> None:
        plain = Server(Settings(host="127.0.0.1", port=0))
        await plain.start()
        try:
            async with tls_server(tmp_path) as (port, cert):
                message, took = await failure(Connection(f"127.0.0.1:{port}", connect_timeout=QUICK))
                assert took < QUICK + 3
                assert "it may speak TLS only (try --tls)" in message
                message, _ = await failure(Connection(f"127.0.0.1:{port}", tls=True, connect_timeout=QUICK))
                assert "certificate is not trusted: pass the certificate (or its CA) with --tls-ca" in message
                trusted = Connection(f"127.0.0.1:{port}", ca_file=str(cert))
                async with TableSession(trusted) as session:
                    assert await session.list_tables() == []
            message, _ = await failure(Connection(f"127.0.0.1:{plain.port}", tls=True, connect_timeout=QUICK))
            assert "the server may not speak TLS (try without --tls)" in message
        finally:
            await plain.stop(grace=0)

    asyncio.run(scenario())


def test_a_missing_ca_file_is_said() -> None:
    with pytest.raises(ServerError, match="cannot read the certificates to trust"):
        Connection("127.0.0.1:1", ca_file="/no/such/ca.pem").channel()


def test_the_environment_names_the_server_and_its_tls() -> None:
    env = {"THOUSAND_SERVER": "h:1", "THOUSAND_TLS": "1", "THOUSAND_TLS_CA": "ca.pem"}
    assert Connection.from_env(env=env) == Connection("h:1", tls=True, ca_file="ca.pem")
    assert Connection.from_env("other:2", tls=False, env=env).address == "other:2"
    assert Connection.from_env(env={}) == Connection()


def test_a_refusal_keeps_the_servers_own_words() -> None:
    refusal = ServerError(grpc.StatusCode.NOT_FOUND, "no table 'x'", "TABLE_NOT_FOUND")
    assert in_words(refusal) == "no table 'x'"
