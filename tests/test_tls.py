"""Optional TLS (`--tls-cert`, `--tls-key`): a client that trusts the certificate plays over TLS; a plaintext
client is refused."""

from __future__ import annotations

import asyncio
import shutil
import subprocess
from pathlib import Path

import grpc
import pytest
from grpc import aio

from server.app import Server
from server.settings import Settings, parse_settings
from thousand.v1 import table_service_pb2 as pb
from thousand.v1 import table_service_pb2_grpc as pb_grpc


def make_certificate(directory: Path) -> tuple[Path, Path]:
    """A self-signed certificate for localhost and 127.0.0.1, and its key (PEM files in ``directory``)."""
    cert, key = directory / "cert.pem", directory / "key.pem"
    subprocess.run(
        [
            "openssl",
            "req",
            "-x509",
            "-newkey",
            "rsa:2048",
            "-nodes",
            "-days",
            "1",
            "-subj",
            "/CN=localhost",
            "-addext",
            "subjectAltName=DNS:localhost,IP:127.0.0.1",
            "-keyout",
            str(key),
            "-out",
            str(cert),
        ],
        check=True,
        capture_output=True,
    )
    return cert, key


@pytest.mark.skipif(shutil.which("openssl") is None, reason="openssl makes the test certificate")
def test_tls_serves_trusting_clients_only(tmp_path: Path) -> None:
    cert, key = make_certificate(tmp_path)

    async def scenario() -> None:
        server = Server(Settings(host="127.0.0.1", port=0, tls_cert=str(cert), tls_key=str(key)))
        await server.start()
        try:
            credentials = grpc.ssl_channel_credentials(root_certificates=cert.read_bytes())
            async with aio.secure_channel(f"localhost:{server.port}", credentials) as channel:
                reply = await pb_grpc.TableServiceStub(channel).ListTables(pb.ListTablesRequest())
                assert list(reply.tables) == []
            async with aio.insecure_channel(f"127.0.0.1:{server.port}") as plain:
                with pytest.raises(aio.AioRpcError) as refused:
                    await pb_grpc.TableServiceStub(plain).ListTables(pb.ListTablesRequest(), timeout=5)
                assert refused.value.code() in (
                    grpc.StatusCode.UNAVAILABLE,
                    grpc.StatusCode.DEADLINE_EXCEEDED,
                )
        finally:
            await server.stop(grace=0.1)

    asyncio.run(scenario())


def test_tls_flags_go_together(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        parse_settings(["--tls-cert", "c.pem"], {})
    assert "go together" in capsys.readouterr().err
    settings = parse_settings([], {"THOUSAND_TLS_CERT": "c.pem", "THOUSAND_TLS_KEY": "k.pem"})
    assert (settings.tls_cert, settings.tls_key) == ("c.pem", "k.pem")
