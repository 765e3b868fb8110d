"""An operator's handover shown in the web client (issues 25 and 29), in Chromium:
clients/web/test/browser/handover.test.ts against a real ``thousand-server --web-port`` with an operator token
file. The browser test opens two players' pages at a Thousand table and writes the table and seat to a file;
this test then hands that seat to the server's bot with ``AdminService.HandSeatToBot`` over gRPC (the
AdminService is not on the web port), as an operator would, and the browser test checks what each page says.
The screenshots go to ``artifacts/web/``.
"""

from __future__ import annotations

import json
import threading
from pathlib import Path

import grpc

from scripts.ports import free_port
from tests.identity_harness import ADMIN_TOKEN, bearer
from tests.test_web_client import CHROMIUM, run_node_test, web_server
from tests.web_build import WEB
from thousand.v1 import admin_service_pb2 as admin_pb
from thousand.v1 import admin_service_pb2_grpc as admin_grpc


def hand_over_when_ready(address: str, ready: Path, done: list[str], stop: threading.Event) -> None:
    """Wait for the browser test's file, then hand its seat to the bot (with a reason, for the audit)."""
    while not ready.exists() or not ready.read_text():
        if stop.wait(0.1):
            done.append("the browser test never said its pages were open")
            return
    asked = json.loads(ready.read_text())
    with grpc.insecure_channel(address) as channel:
        request = admin_pb.HandSeatToBotRequest(
            table_id=asked["tableId"], seat=asked["seat"], reason="left the game for good"
        )
        admin_grpc.AdminServiceStub(channel).HandSeatToBot(request, metadata=bearer(ADMIN_TOKEN), timeout=10)
    done.append("handed over")


def test_an_operators_handover_is_shown_at_the_table_in_chromium(tmp_path: Path) -> None:
    assert Path(CHROMIUM).exists(), f"no Chromium at {CHROMIUM}: apt-get install chromium"
    token_file = tmp_path / "admin-token"
    token_file.write_text(ADMIN_TOKEN + "\n", encoding="utf-8")
    ready = tmp_path / "ready.json"
    port = free_port()
    with web_server(tmp_path, port, "--admin-token-file", str(token_file)) as server:
        done: list[str] = []
        stop = threading.Event()
        operator = threading.Thread(target=hand_over_when_ready, args=(server.address, ready, done, stop))
        operator.start()
        try:
            run_node_test(
                WEB / "build" / "test" / "browser" / "handover.test.mjs",
                f"http://127.0.0.1:{port}",
                timeout=300,
                env={"HANDOVER_READY": str(ready)},
            )
        finally:
            stop.set()  # never leave the operator waiting
            operator.join(timeout=30)
        assert done == ["handed over"], done
