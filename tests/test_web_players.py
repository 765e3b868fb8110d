"""The web client's players (issue #25) in Chromium: clients/web/test/browser/players.test.ts against a
real ``thousand-server --web-port`` that trusts a real OpenID provider (tests/oidc, npm ``oidc-provider``)
with the web page registered as a public client of the authorization code grant with PKCE.

The page makes a guest at the first visit; signs in through the provider's own login and consent pages
and claims the seats the browser took before; renews its access token with the rotated refresh token;
signs out back to its guest; lists "My games" 20 a page with a way back to each game (resume a seat from
another browser by the player's credential alone, a finished game's replay); makes a private table whose
invite link seats a player of a second browser; and shows a seat held for a player as such, to them and
to others. The provider's key is the test's own (tests/oidc_harness.py); the screenshots go to
``artifacts/web/``.
"""

from __future__ import annotations

from pathlib import Path

from scripts.ports import free_port
from tests.oidc_harness import AUDIENCE, oidc_provider
from tests.test_web_client import CHROMIUM, run_node_test, web_server
from tests.web_build import WEB


def test_players_in_chromium(tmp_path: Path) -> None:
    assert Path(CHROMIUM).exists(), f"no Chromium at {CHROMIUM}: apt-get install chromium"
    port = free_port()
    web_url = f"http://127.0.0.1:{port}"
    with (
        oidc_provider(tmp_path, {}, browser_clients={AUDIENCE: [web_url + "/"]}) as provider,
        web_server(
            tmp_path,
            port,
            *("--oidc-issuer", provider.issuer, "--oidc-audience", AUDIENCE),
            *("--max-tables-per-client", "0"),
        ),
    ):
        run_node_test(
            WEB / "build" / "test" / "browser" / "players.test.mjs",
            web_url,
            timeout=600,
            env={"OIDC_ISSUER": provider.issuer, "OIDC_AUDIENCE": AUDIENCE},
        )
