"""The ports the suite's servers are started on (scripts/ports.py): two clean runs failed when a port was
handed out twice (a node's gRPC and metrics ports came out equal) or taken by an outgoing connection."""

from __future__ import annotations

import socket

import pytest

from scripts import ports


def test_ports_are_never_handed_out_twice_and_lie_below_the_ephemeral_range() -> None:
    given = [ports.free_port() for _ in range(200)]
    assert len(set(given)) == len(given)
    assert all(ports.FLOOR <= port < ports._ephemeral_low() for port in given)


def test_a_port_a_socket_holds_is_skipped() -> None:
    band = ports._band()
    assert band is not None  # Linux's ephemeral range starts at 32768: room for every band below it
    with socket.socket() as holder:
        nxt = next(p for p in ports._candidates() if p not in ports._given and ports._bindable(p))
        holder.bind((ports.HOST, nxt))
        assert ports.free_port() != nxt


def test_each_xdist_worker_draws_from_a_band_of_its_own(monkeypatch: pytest.MonkeyPatch) -> None:
    bands = []
    for worker in ("gw0", "gw1", "gw2", ""):
        monkeypatch.setenv("PYTEST_XDIST_WORKER", worker)
        bands.append(ports._band())
    assert all(band is not None for band in bands)
    assert len({band.start for band in bands if band is not None}) == 4
