"""The web client in a cluster (issue 17): two real server processes with web ports, sharing one real
PostgreSQL (tests/conftest.py), and the page in Chromium (clients/web/test/cluster, run by ``node --test``).

- The page is served by node a and plays a table node b owns: its calls go to b's web port, which allows
  a's pages (CORS between the cluster's nodes, without configuration).
- Node b is SIGKILLed, by its PID, mid-deal: the page goes on with node a, which took the table over, from
  the last event it had.
- Node a, which served the page and owns its table, is SIGKILLed mid-deal: the page, which learned of node b
  from a's ``/cluster.json``, goes on with b, which took the table over, from the last event it had.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.cluster_harness import Cluster, cluster
from tests.test_web_client import CHROMIUM, run_node_test, wait_listening
from tests.web_build import WEB, built
from tests.web_harness import http_request

TESTS = WEB / "build" / "test" / "cluster"


@pytest.fixture
def nodes(tmp_path: Path, pg_url: str) -> Iterator[Cluster]:
    built()
    assert Path(CHROMIUM).exists(), (
        f"no Chromium at {CHROMIUM}: `make test` installs Debian's chromium as root"
    )
    with cluster(tmp_path, pg_url, ["a", "b"], web=True, flags=("--web-root", str(WEB / "dist"))) as found:
        for name, node in found.nodes.items():
            wait_listening(node, found.web_ports[name])
        yield found


def owner_env(nodes: Cluster) -> dict[str, str]:
    process = nodes.nodes["b"].process
    assert process is not None
    return {
        "THOUSAND_OWNER_WEB_URL": f"http://{nodes.web_address('b')}",
        "THOUSAND_OWNER_PID": str(process.pid),
    }


def test_the_page_plays_a_table_another_node_owns(nodes: Cluster) -> None:
    run_node_test(TESTS / "elsewhere.test.mjs", f"http://{nodes.web_address('a')}", 360, owner_env(nodes))
    assert nodes.rows("SELECT node_id, reason FROM {S}.claims") == []  # the table never moved


def test_the_page_carries_on_when_the_owning_node_is_killed(nodes: Cluster) -> None:
    run_node_test(TESTS / "takeover.test.mjs", f"http://{nodes.web_address('a')}", 360, owner_env(nodes))
    b = nodes.nodes["b"].process
    assert b is not None and b.poll() == -9, "node b was killed by the test"
    ((table_id,),) = nodes.rows("SELECT table_id FROM {S}.tables")
    claims = nodes.rows("SELECT node_id, reason FROM {S}.claims WHERE table_id = %s ORDER BY epoch", table_id)
    assert ("a", "takeover") in claims
    assert nodes.owners() == {table_id: "a"}
    epochs = [e for (e,) in nodes.rows("SELECT epoch FROM {S}.claims WHERE table_id = %s", table_id)]
    assert len(epochs) == len(set(epochs))


def test_the_page_plays_on_when_the_node_that_served_it_is_killed(nodes: Cluster) -> None:
    a = nodes.nodes["a"].process
    assert a is not None
    env = {**owner_env(nodes), "THOUSAND_HOME_PID": str(a.pid)}
    run_node_test(TESTS / "home.test.mjs", f"http://{nodes.web_address('a')}", 300, env)
    assert a.poll() == -9, "node a was killed by the test"
    ((table_id,),) = nodes.rows("SELECT table_id FROM {S}.tables")
    claims = nodes.rows("SELECT node_id, reason FROM {S}.claims WHERE table_id = %s ORDER BY epoch", table_id)
    assert ("b", "takeover") in claims, claims
    assert nodes.owners() == {table_id: "b"}
    # b lists itself alone as a node to go to, and still serves the pages a served (CORS).
    b_port, a_page = nodes.web_ports["b"], f"http://{nodes.web_address('a')}"
    listed = asyncio.run(http_request(b_port, "GET", "/cluster.json", headers={"origin": a_page}))
    assert json.loads(listed.body) == {"web_endpoints": [nodes.web_address("b")]}
    assert listed.headers.get("access-control-allow-origin") == a_page
