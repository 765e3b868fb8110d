"""The web client (clients/web) against a real ``thousand-server --web-port``, over the Connect transport
the browser uses.

- The client's logic (``clients/web/test/logic``: decoding, view tracking against the server's own views,
  resume and reconnection) runs under ``node --test`` with connect-web on Node's fetch.
- The browser tests (``clients/web/test/browser``) drive Debian's Chromium (installed by ``make test``
  through apt-get when missing and running as root; never downloaded) with playwright-core: a whole seeded
  Thousand game clicked to the final standings, a 1000 Blagogo round with a meld, an addition and a bridge
  take, a refused action shown with its reason, a click on a view the table has left behind shown as no
  error (the tab catching up), a spectator, a finished game's record and replay, a reload mid-deal. A
  missing browser fails them. Their screenshots are kept in ``artifacts/web/`` (gitignored).
- The built client stays under its size budget (150 KB gzipped; bench/web_client.py prints the figures).
"""

from __future__ import annotations

import contextlib
import gzip
import os
import re
import shutil
import socket
import subprocess
import time
from collections.abc import Iterator, Mapping
from pathlib import Path

import pytest

from scripts.ports import free_port
from tests.live_server import ROOT, LiveServer, live_server
from tests.web_build import WEB, built

ARTIFACTS = ROOT / "artifacts" / "web"
CHROMIUM = "/usr/bin/chromium"
BUDGET_GZIP_BYTES = 150 * 1024
TAP = re.compile(r"# (Subtest: |(tests|suites|pass|fail|cancelled|skipped|todo|duration_ms) )")
"""node --test's own comment lines, beside those a test printed."""


OWN_SERVER = {"browser/players", "browser/quickplay", "browser/handover", "browser/bots"}
"""Tests with a server of their own: tests/test_web_players.py (an identity provider beside it),
tests/test_web_quickplay.py (a terminal player and rated games in it), tests/test_web_handover.py (an
operator's token, and the operator's call between the test's steps), tests/test_web_ladder.py (a ladder with
real bots)."""


def node_tests(kind: str) -> list[str]:
    names = (p.name.removesuffix(".test.ts") for p in (WEB / "test" / kind).glob("*.test.ts"))
    return sorted(name for name in names if f"{kind}/{name}" not in OWN_SERVER)


@pytest.fixture(scope="module")
def web_url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    port = free_port()
    with web_server(tmp_path_factory.mktemp("web-server"), port):
        yield f"http://127.0.0.1:{port}"


@contextlib.contextmanager
def web_server(directory: Path, port: int, *args: str) -> Iterator[LiveServer]:
    """A server (``args``: more of its options) whose web port ``port`` serves the built client, once it
    listens. Every browser context is a first visit, which makes a guest: from one address, so no limit on
    them."""
    built()
    web = ("--web-port", str(port), "--web-root", str(WEB / "dist"), "--guests-per-hour", "0")
    with live_server(directory, ":memory:", *web, *args) as server:
        wait_listening(server, port)
        yield server


def wait_listening(server: LiveServer, port: int, timeout: float = 30) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=0.2):
                return
        except OSError:
            time.sleep(0.05)
    raise AssertionError(f"the web port did not listen within {timeout} s:\n{server.log.read_text()[-3000:]}")


def run_node_test(path: Path, web_url: str, timeout: float, env: Mapping[str, str] | None = None) -> None:
    """``node --test`` of one built test file, against the web port at ``web_url`` (``env``: more variables
    the test reads)."""
    node = shutil.which("node")
    assert node, "node is needed for the web client's tests"
    env = {
        **os.environ,
        "THOUSAND_WEB_URL": web_url,
        "CHROMIUM": CHROMIUM,
        "ARTIFACTS": str(ARTIFACTS),
        **(env or {}),
    }
    done = subprocess.run(
        [node, "--test", "--test-concurrency=1", str(path)],
        cwd=WEB,
        env=env,
        capture_output=True,
        text=True,
        timeout=timeout,
        check=False,
    )
    output = done.stdout + done.stderr
    assert done.returncode == 0, f"{path.name} failed:\n{output[-8000:]}"
    assert "# fail 0" in output and "# pass 0" not in output, output[-3000:]
    # What the tests said (their figures: `pytest -rP` shows them), without TAP's own counts.
    said = [line for line in done.stdout.splitlines() if line.startswith("# ") and not TAP.match(line)]
    print("\n".join(said))


@pytest.mark.parametrize("name", node_tests("logic"))
def test_client_logic(name: str, web_url: str) -> None:
    run_node_test(WEB / "build" / "test" / "logic" / f"{name}.test.mjs", web_url, timeout=300)


@pytest.mark.parametrize("name", node_tests("browser"))
def test_in_chromium(name: str, web_url: str) -> None:
    assert Path(CHROMIUM).exists(), (
        f"no Chromium at {CHROMIUM}: `make test` installs Debian's chromium when run as root "
        "(scripts/system-packages.sh); install it with apt-get install chromium"
    )
    # table.test.ts plays whole games (884 s in a busy clean run once, when 900 s was the bound; 484 s since).
    run_node_test(WEB / "build" / "test" / "browser" / f"{name}.test.mjs", web_url, timeout=1800)


def test_the_built_client_is_under_its_size_budget() -> None:
    dist = built() / "dist"
    files = sorted(p for p in dist.iterdir() if p.is_file())
    assert {p.name for p in files} >= {"index.html", "app.js", "app.css"}
    # The page fetches one language besides the English it bundles: the largest counts.
    languages = [len(gzip.compress(p.read_bytes(), 9)) for p in (dist / "i18n").glob("*.json")]
    assert len(languages) == 4, "dist/i18n holds ru, uk, be and pl"
    total = sum(len(gzip.compress(p.read_bytes(), 9)) for p in files) + max(languages)
    assert total < BUDGET_GZIP_BYTES, f"the built client is {total / 1024:.1f} KB gzipped (budget 150 KB)"
