"""``python -m server.probe``: a gRPC health check for containers (exit 0 when SERVING, else 1).

It asks the server's ``grpc.health.v1.Health/Check`` for a service ("" is the whole server; the readiness
of the game service is ``thousand.v1.TableService``) and prints the answer. The address defaults to the
server's own settings from the environment (``THOUSAND_HOST``, ``THOUSAND_PORT``), with a wildcard host
probed on loopback, so in the container image it needs no arguments.
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Sequence
from typing import Any

import grpc
from grpc_health.v1 import health_pb2, health_pb2_grpc

_WILDCARDS = ("", "0.0.0.0", "::", "[::]")


def default_address(env: dict[str, str]) -> str:
    host = env.get("THOUSAND_HOST", "127.0.0.1")
    port = env.get("THOUSAND_PORT", "50051")
    if host in _WILDCARDS:
        host = "127.0.0.1"
    elif ":" in host and not host.startswith("["):
        host = f"[{host}]"  # an IPv6 address
    return f"{host}:{port}"


def check(address: str, service: str, timeout: float) -> tuple[bool, str]:
    """(serving, what to print)."""
    with grpc.insecure_channel(address) as channel:
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
    args = parser.parse_args(argv)
    serving, text = check(args.address, args.service, args.timeout)
    print(text, file=sys.stdout if serving else sys.stderr)
    return 0 if serving else 1


if __name__ == "__main__":
    sys.exit(main())
