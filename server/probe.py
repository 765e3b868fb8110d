"""``python -m server.probe``: a gRPC health check for containers (exit 0 when SERVING, else 1).

It asks the server's ``grpc.health.v1.Health/Check`` for a service ("" is the whole server; the readiness
of the game service is ``thousand.v1.TableService``) and prints the answer. The address defaults to the
server's own settings from the environment (``THOUSAND_HOST``, ``THOUSAND_PORT``), with a wildcard host
probed on loopback, so in the container image it needs no arguments.

TLS follows the server's settings too: when ``THOUSAND_TLS_CERT`` is set the server speaks TLS only, so the
probe does. It trusts ``--tls-ca`` (``THOUSAND_TLS_CA``: the CA that issued the certificate), or, without
one, the server's certificate itself (right for a self-signed one); and it checks the certificate against
``--tls-server-name`` (``THOUSAND_TLS_SERVER_NAME``: a name the certificate holds), else against the host of
the node's advertised address (``THOUSAND_ADVERTISE_ADDRESS``, a cluster node's own name), else against the
host it dials. Kubernetes' own gRPC probes cannot speak TLS: with TLS on, the manifests run this
module instead (deploy/k8s/tls).
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import grpc
from grpc_health.v1 import health_pb2, health_pb2_grpc

_WILDCARDS = ("", "0.0.0.0", "::", "[::]")


@dataclass(frozen=True, slots=True)
class Tls:
    """How the probe speaks TLS: the roots it trusts (PEM) and the name the certificate must hold."""

    roots: bytes
    server_name: str = ""
    """"": the host of the address dialled."""


def default_address(env: dict[str, str]) -> str:
    host = env.get("THOUSAND_HOST", "127.0.0.1")
    port = env.get("THOUSAND_PORT", "50051")
    if host in _WILDCARDS:
        host = "127.0.0.1"
    elif ":" in host and not host.startswith("["):
        host = f"[{host}]"  # an IPv6 address
    return f"{host}:{port}"


def default_server_name(env: dict[str, str]) -> str:
    """The name the server's certificate is checked against ("": the host dialled)."""
    named = env.get("THOUSAND_TLS_SERVER_NAME", "")
    if named:
        return named
    advertised = env.get("THOUSAND_ADVERTISE_ADDRESS", "")
    return advertised.rpartition(":")[0].strip("[]") if ":" in advertised else advertised


def _channel(address: str, tls: Tls | None) -> grpc.Channel:
    if tls is None:
        return grpc.insecure_channel(address)
    options = [("grpc.ssl_target_name_override", tls.server_name)] if tls.server_name else []
    return grpc.secure_channel(address, grpc.ssl_channel_credentials(tls.roots), options)


def check(address: str, service: str, timeout: float, tls: Tls | None = None) -> tuple[bool, str]:
    """(serving, what to print)."""
    with _channel(address, tls) as channel:
        stub: Any = health_pb2_grpc.HealthStub(channel)
        try:
            reply = stub.Check(health_pb2.HealthCheckRequest(service=service), timeout=timeout)
        except grpc.RpcError as error:
            code = error.code() if isinstance(error, grpc.Call) else None
            name = code.name if code is not None else "ERROR"
            return False, f"{address} {service or '(server)'}: {name}"
    status = health_pb2.HealthCheckResponse.ServingStatus.Name(reply.status)
    return (
        reply.status == health_pb2.HealthCheckResponse.SERVING,
        f"{address} {service or '(server)'}: {status}",
    )


def main(argv: Sequence[str] | None = None, env: dict[str, str] | None = None) -> int:
    env = dict(os.environ) if env is None else env
    parser = argparse.ArgumentParser(prog="python -m server.probe", description=__doc__.splitlines()[0])
    parser.add_argument("--address", default=default_address(env), help="host:port of the gRPC server")
    parser.add_argument("--service", default="", help='the health service name ("": the whole server)')
    parser.add_argument("--timeout", type=float, default=2.0, help="seconds to wait for the answer")
    parser.add_argument(
        "--tls",
        action=argparse.BooleanOptionalAction,
        default=bool(env.get("THOUSAND_TLS_CERT")),
        help="speak TLS (default: when THOUSAND_TLS_CERT is set, as the server does then)",
    )
    parser.add_argument(
        "--tls-ca",
        default=env.get("THOUSAND_TLS_CA") or env.get("THOUSAND_TLS_CERT", ""),
        help="PEM roots to trust (THOUSAND_TLS_CA; default: the server's own THOUSAND_TLS_CERT)",
    )
    parser.add_argument(
        "--tls-server-name",
        default=default_server_name(env),
        help="a name the server's certificate holds (THOUSAND_TLS_SERVER_NAME; default: the host of "
        "THOUSAND_ADVERTISE_ADDRESS, else the address's)",
    )
    args = parser.parse_args(argv)
    tls = None
    if args.tls:
        if not args.tls_ca:
            parser.error("--tls needs --tls-ca (or THOUSAND_TLS_CA, THOUSAND_TLS_CERT)")
        try:
            roots = Path(args.tls_ca).read_bytes()
        except OSError as error:
            print(f"cannot read the TLS roots: {error}", file=sys.stderr)
            return 1
        tls = Tls(roots, args.tls_server_name)
    serving, text = check(args.address, args.service, args.timeout, tls)
    print(text, file=sys.stdout if serving else sys.stderr)
    return 0 if serving else 1


if __name__ == "__main__":
    sys.exit(main())
