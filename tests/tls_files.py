"""A self-signed certificate for localhost and 127.0.0.1, made with openssl (a test dependency of the
system: scripts/system-packages.sh), for the tests of TLS servers and clients."""

from __future__ import annotations

import subprocess
from pathlib import Path


def self_signed(directory: Path) -> tuple[Path, Path]:
    """(certificate, key) PEM files in ``directory``."""
    cert, key = directory / "cert.pem", directory / "key.pem"
    subprocess.run(
        [
            *("openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "1"),
            *("-subj", "/CN=localhost", "-addext", "subjectAltName=DNS:localhost,IP:127.0.0.1"),
            *("-keyout", str(key), "-out", str(cert)),
        ],
        check=True,
        capture_output=True,
    )
    return cert, key


def ca_issued(directory: Path, name: str) -> tuple[Path, Path, Path]:
    """(CA certificate, certificate, key) PEM files in ``directory``: a certificate for ``name`` only (no
    loopback address in it) issued by a CA of its own, as a real deployment's is."""
    ca_cert, ca_key = directory / "ca.crt", directory / "ca.key"
    cert, key, request = directory / "tls.crt", directory / "tls.key", directory / "tls.csr"
    extensions = directory / "san.ext"
    extensions.write_text(f"subjectAltName=DNS:{name}\n")
    for command in (
        [
            *("openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "1"),
            *("-subj", "/CN=Thousand test CA", "-keyout", str(ca_key), "-out", str(ca_cert)),
        ],
        [
            *("openssl", "req", "-newkey", "rsa:2048", "-nodes", "-subj", f"/CN={name}"),
            *("-keyout", str(key), "-out", str(request)),
        ],
        [
            *("openssl", "x509", "-req", "-in", str(request), "-CA", str(ca_cert), "-CAkey", str(ca_key)),
            *("-CAcreateserial", "-days", "1", "-extfile", str(extensions), "-out", str(cert)),
        ],
    ):
        subprocess.run(command, check=True, capture_output=True)
    return ca_cert, cert, key
