"""docs/protocol.md's ``buf curl`` walkthrough, run as written against a live server.

Every block marked ```` ```sh buf-walkthrough=NAME ```` is taken from the guide, in order, into one bash
script (``set -euo pipefail``; each block's stdout and stderr go to files named after it), and run with
``ADDR`` set to a fresh ``thousand-server`` process. Each step's output is then checked here. Where a step's
output depends only on the contract, the ```` ```text ```` block that follows it in the guide must match it
too (table ids aside; a line ``...`` stands for any lines); the game-dependent outputs are checked for their
meaning, so that a change of the engine or the bots does not make the guide wrong, only its examples dated.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from tests.live_server import ROOT, live_server

GUIDE = ROOT / "docs" / "protocol.md"
BUF = Path(sys.executable).parent / "buf"
BLOCK = re.compile(
    r"^```sh buf-walkthrough=(?P<name>[\w-]+)\n(?P<body>.*?)^```\n(?:\n```text\n(?P<expected>.*?)^```\n)?",
    re.MULTILINE | re.DOTALL,
)
TABLE_ID = re.compile(r'"tableId":"[0-9a-f]{12}"')


@dataclass(frozen=True)
class Step:
    name: str
    body: str
    expected: str | None


def steps() -> list[Step]:
    return [
        Step(m["name"], m["body"], m["expected"]) for m in BLOCK.finditer(GUIDE.read_text(encoding="utf-8"))
    ]


def script(walkthrough: list[Step]) -> str:
    lines = ["set -euo pipefail"]
    for step in walkthrough:
        lines.append(f'{{\n{step.body}}} > "$OUT/{step.name}.out" 2> "$OUT/{step.name}.err"')
    return "\n".join(lines) + "\n"


def json_lines(text: str) -> list[Any]:
    return [json.loads(line) for line in text.splitlines() if line.strip()]


def json_documents(text: str) -> list[Any]:
    """Concatenated JSON documents, as buf prints one message after another."""
    decoder = json.JSONDecoder()
    documents, index = [], 0
    while index < len(text):
        if text[index].isspace():
            index += 1
            continue
        document, index = decoder.raw_decode(text, index)
        documents.append(document)
    return documents


def same_lines(expected: str, actual: str) -> bool:
    """Whether ``actual`` has the lines of ``expected`` (table ids aside); ``...`` there matches any lines."""
    expected, actual = (TABLE_ID.sub('"tableId":"ID"', text) for text in (expected, actual))
    pattern = "".join(
        r"(?:.*\n)*?" if line == "..." else re.escape(line) + r"\n" for line in expected.splitlines()
    )
    return re.fullmatch(pattern, actual) is not None


Outputs = dict[str, str]


def check_services(out: Outputs) -> None:
    assert out["services"].split() == [
        "grpc.health.v1.Health",
        "grpc.reflection.v1alpha.ServerReflection",
        "thousand.v1.AdminService",
        "thousand.v1.LadderService",
        "thousand.v1.MatchmakingService",
        "thousand.v1.PlayerService",
        "thousand.v1.RatingService",
        "thousand.v1.TableService",
    ]


def check_methods(out: Outputs) -> None:
    methods = {line.rsplit("/", 1)[1] for line in out["methods"].split()}
    assert methods == {
        "CreateTable",
        "ListTables",
        "GetTable",
        "JoinTable",
        "LeaveTable",
        "SubmitAction",
        "StreamEvents",
        "ReclaimSeat",
        "ExportTable",
        "StreamTableRecord",
        "Play",
    }


def check_describe(out: Outputs) -> None:
    lines = out["describe"].splitlines()
    assert (
        "StreamEvents(.thousand.v1.StreamEventsRequest) returns (stream .thousand.v1.StreamEventsResponse)"
        in lines
    )
    assert (
        "SubmitAction(.thousand.v1.SubmitActionRequest) returns (.thousand.v1.SubmitActionResponse)" in lines
    )
    assert "Play(stream .thousand.v1.PlayRequest) returns (stream .thousand.v1.PlayResponse)" in lines
    assert "2 pass_bid .thousand.v1.ThousandAction.Pass" in lines
    assert "11 play_card .thousand.v1.ThousandAction.PlayCard" in lines


def check_create(out: Outputs) -> None:
    (table,) = json_lines(out["create"])
    assert table["status"] == "TABLE_STATUS_WAITING"
    assert table["openSeats"] == 1
    assert [s.get("kind") for s in table["seats"]] == ["SEAT_KIND_OPEN", "SEAT_KIND_BOT", "SEAT_KIND_BOT"]


def check_join(out: Outputs) -> None:
    assert json_lines(out["join"]) == [{"seat": 0, "status": "TABLE_STATUS_PLAYING", "openSeats": 0}]


def check_stream(out: Outputs) -> None:
    *summary, hand, legal_actions = out["stream"].splitlines()
    messages = [json.loads(line) for line in summary]
    legal = json.loads(legal_actions)
    assert messages[0]["payload"] == "snapshot"
    sequences = [int(m["sequence"]) for m in messages]
    assert sequences == list(range(sequences[0], sequences[0] + len(sequences))), "gap-free"
    assert messages[-1]["turn"] == 0, "seat 0 must act, after the bots"
    assert len(hand.split(", ")) == 7
    assert {"thousand": {"passBid": {}}} in legal
    assert "deadline_exceeded" in out["stream.err"]


def last_stream_sequence(out: Outputs) -> int:
    return int(json.loads(out["stream"].splitlines()[-3])["sequence"])


def check_act(out: Outputs) -> None:
    (reply,) = json_documents(out["act"])
    assert int(reply["sequence"]) == last_stream_sequence(out) + 1, "the pass is the next event"


def check_retry(out: Outputs) -> None:
    *replies, error_info = out["retry"].splitlines()
    retried, refused = json_documents("\n".join(replies))
    assert retried == json_documents(out["act"])[0], "a retry returns the first outcome"
    assert refused["code"] == "aborted"
    assert "resync" in refused["message"]
    assert error_info.split() == ["STALE_SEQUENCE", "thousand.v1"]


def check_resume(out: Outputs) -> None:
    rows = json_lines(out["resume"])
    sequences = [int(row[0]) for row in rows]
    first = last_stream_sequence(out) + 1
    assert sequences == list(range(first, first + len(rows))), "exactly the events after after_sequence"
    assert rows[0][1] == "passed", "our own pass first"
    assert all(row[1] is not None for row in rows), "events only: no snapshot"
    assert rows[-1][2] == 0, "the Turn is seat 0's again"


def check_leave(out: Outputs) -> None:
    assert json_lines(out["leave"]) == [{"status": "TABLE_STATUS_PLAYING", "openSeats": 1}]


def check_watch(out: Outputs) -> None:
    *dealt, standings = json_lines(out["watch"])
    assert len(dealt) == 3
    for hand in dealt:
        assert hand["cardsHidden"] is True and "cards" not in hand and hand["count"] == 7
    assert sorted(s.get("seat", 0) for s in standings) == [0, 1, 2]
    assert [s["place"] for s in standings] == [1, 2, 3]
    assert standings[0]["score"] >= 1000


CHECKS: dict[str, Callable[[Outputs], None]] = {
    "services": check_services,
    "methods": check_methods,
    "describe": check_describe,
    "create": check_create,
    "join": check_join,
    "stream": check_stream,
    "act": check_act,
    "retry": check_retry,
    "resume": check_resume,
    "leave": check_leave,
    "watch": check_watch,
}
EXAMPLES_MUST_MATCH = {"services", "methods", "describe", "create", "join", "leave"}
"""Steps whose output depends on the contract only: the guide's example output must be exactly it."""


def test_the_guide_has_every_step_of_the_walkthrough_in_order() -> None:
    assert [s.name for s in steps()] == list(CHECKS)
    for step in steps():
        assert step.expected is not None, f"step {step.name}: no ```text example output follows"


@pytest.mark.skipif(
    not BUF.exists() or shutil.which("jq") is None or shutil.which("bash") is None,
    reason="the walkthrough needs buf (a dev dependency, in .venv/bin), jq and bash",
)
def test_the_walkthrough_runs_as_written(tmp_path: Path) -> None:
    walkthrough = steps()
    results = tmp_path / "out"
    results.mkdir()
    (tmp_path / "walkthrough.sh").write_text(script(walkthrough), encoding="utf-8")
    with live_server(tmp_path) as server:
        env = {
            **os.environ,
            "PATH": f"{BUF.parent}{os.pathsep}{os.environ.get('PATH', '')}",
            "ADDR": server.address,
            "OUT": str(results),
            "TMPDIR": str(tmp_path),
        }
        done = subprocess.run(
            ["bash", str(tmp_path / "walkthrough.sh")],
            cwd=tmp_path,
            env=env,
            capture_output=True,
            text=True,
            timeout=120,
            check=False,
        )
    out: Outputs = {}
    for step in walkthrough:
        for kind, suffix in (("", ".out"), (".err", ".err")):
            path = results / f"{step.name}{suffix}"
            out[step.name + kind] = path.read_text(encoding="utf-8") if path.exists() else ""
    ran = [s.name for s in walkthrough if (results / f"{s.name}.out").exists()]
    assert done.returncode == 0, (
        f"the walkthrough stopped in step {ran[-1] if ran else '?'} (exit {done.returncode}):\n"
        f"{out.get(ran[-1] + '.err', '') if ran else ''}{done.stderr}"
    )
    for step in walkthrough:
        try:
            CHECKS[step.name](out)
        except AssertionError as error:
            raise AssertionError(
                f"step {step.name}: {error}\n--- output:\n{out[step.name]}"
                f"--- stderr:\n{out[step.name + '.err']}"
            ) from error
        if step.name in EXAMPLES_MUST_MATCH:
            assert step.expected is not None
            assert same_lines(step.expected, out[step.name]), (
                f"step {step.name}: the guide's example output is not what the server says:\n"
                f"--- guide:\n{step.expected}--- actual:\n{out[step.name]}"
            )
