"""Free TCP ports on loopback for the servers the tests and benchmarks start.

A port the kernel picks with ``bind(port 0)`` is free only until the probe closes; the server that is then
told to listen on it binds it a moment later. Two things can take it in between, and both failed clean
runs: the next call in the same process, which the kernel may answer with the same port (a node's gRPC and
metrics ports came out equal), and any outgoing connection of the machine, which takes its local port from
the same ephemeral range. So ports here come from below that range, where no outgoing connection lands;
each process of the suite (pytest-xdist's workers) draws from a band of its own, from a start its process
id chooses, and never hands out one port twice.

>>> a, b = free_port(), free_port()
>>> a != b
True
"""

from __future__ import annotations

import os
import random
import socket
from collections.abc import Iterator
from pathlib import Path
from typing import Final

HOST: Final = "127.0.0.1"
FLOOR: Final = 20000
"""The lowest port handed out: above the registered services most machines run."""
BAND: Final = 3000
"""Ports in one process's band."""
BANDS: Final = 4
"""Bands below the ephemeral range: pytest-xdist's workers gw0..gw2 and one for every other process."""
EPHEMERAL_RANGE: Final = Path("/proc/sys/net/ipv4/ip_local_port_range")

_given: set[int] = set()


def free_port() -> int:
    """A TCP port on 127.0.0.1 that no socket holds now and that this process has not handed out before.

    :raises RuntimeError: when every port of this process's band is taken or given.
    """
    for port in _candidates():
        if port not in _given and _bindable(port):
            _given.add(port)
            return port
    raise RuntimeError(f"no free port left for this process ({len(_given)} handed out)")


def _candidates() -> Iterator[int]:
    band = _band()
    if band is None:  # no room below the ephemeral range: the kernel's choice, never a repeat
        while True:
            yield _kernel_port()
    start = random.Random(os.getpid()).randrange(len(band))
    for step in range(len(band)):
        yield band[(start + step) % len(band)]


def _band() -> range | None:
    if _ephemeral_low() < FLOOR + BAND * BANDS:
        return None
    worker = os.environ.get("PYTEST_XDIST_WORKER", "")
    index = int(worker[2:]) % (BANDS - 1) if worker.startswith("gw") and worker[2:].isdigit() else BANDS - 1
    return range(FLOOR + index * BAND, FLOOR + (index + 1) * BAND)


def _ephemeral_low() -> int:
    try:
        return int(EPHEMERAL_RANGE.read_text().split()[0])
    except (OSError, ValueError, IndexError):
        return 32768  # Linux's default; elsewhere the range starts higher still


def _bindable(port: int) -> bool:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
        try:
            probe.bind((HOST, port))
        except OSError:
            return False
        return True


def _kernel_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
        probe.bind((HOST, 0))
        port: int = probe.getsockname()[1]
        return port
