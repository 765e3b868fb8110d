"""The documentation as a new user meets it (issue 18, items 11 and 12): the README's claims hold when run,
every path a document links to exists in a clone, the commands it shows are on the PATH it says to set, and
the operator's guide says what the server does (TLS, the games in the metrics, every setting)."""

from __future__ import annotations

import asyncio
import re
import subprocess
from pathlib import Path

import pytest

from clients.session import TableSession
from server.settings import parse_settings
from tests.cli_harness import run, serving
from tests.live_server import ROOT
from tests.test_cli_plain import command
from thousand.v1 import table_service_pb2 as pb

DOCUMENTS = sorted(
    p
    for p in ROOT.rglob("*.md")
    if not any(part in {".venv", "node_modules", ".git", "build"} for part in p.parts)
)
LINK = re.compile(r"\]\(([^)#\s]+)(?:#[^)]*)?\)")


def test_every_path_a_document_links_to_exists_in_the_repository() -> None:
    assert ROOT / "README.md" in DOCUMENTS and ROOT / "docs" / "operations.md" in DOCUMENTS
    for document in DOCUMENTS:
        text = document.read_text(encoding="utf-8")
        prose = re.sub(r"`[^`\n]*`", "", re.sub(r"```.*?```", "", text, flags=re.S))  # code is not a link
        for target in LINK.findall(prose):
            if re.match(r"[a-z]+:", target):
                continue  # a web address
            resolved = (document.parent / target).resolve()
            assert resolved.exists(), f"{document.relative_to(ROOT)} links to {target}, which a clone lacks"
            assert ROOT in resolved.parents or resolved == ROOT, f"{document.name}: {target} leaves the clone"
        assert "../shared/rules" not in text, f"{document.relative_to(ROOT)} names a path outside the clone"


def test_the_readme_says_to_put_the_venv_on_the_path_before_any_command_of_it() -> None:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    path = readme.index('export PATH="$PWD/.venv/bin:$PATH"')
    for shown in ("buf curl", "thousand tables", "thousand-bot play"):
        assert readme.index(shown) > path, shown


def test_the_readmes_four_players_two_bots_leaves_the_seats_it_says(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    line = next(x for x in readme.splitlines() if x.startswith("thousand new --players 4 --bots 2"))
    said = re.search(r"(\w+) seats? stays? open", line)
    assert said is not None, line
    words = {"no": 0, "one": 1, "two": 2, "three": 3}
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path))

    async def scenario() -> tuple[str, pb.Table]:
        async with serving() as address:
            argv = ["new", "--players", "4", "--bots", "2", "--plain", "--server", address]
            process = await asyncio.create_subprocess_exec(
                *command(), *argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL
            )
            assert process.stdout is not None
            try:
                first = await asyncio.wait_for(process.stdout.readline(), 30)
                second = await asyncio.wait_for(process.stdout.readline(), 30)
                async with TableSession(address) as session:
                    (table,) = await session.list_tables()
            finally:
                process.kill()  # it waits for the open seat's player; this test is not one
                await process.wait()
            return (first + second).decode(), table

    out, table = run(scenario())
    assert table.open_seats == words[said.group(1)]
    assert "Waiting for another player: thousand join " in out


def test_the_operators_guide_says_what_the_server_does() -> None:
    guide = (ROOT / "docs" / "operations.md").read_text(encoding="utf-8")
    assert "TLS is not terminated by the server" not in guide
    assert "The server terminates TLS itself" in guide
    label = next(line for line in guide.splitlines() if line.startswith("Labels: `game`"))
    for kind in pb.GameKind.keys():  # noqa: SIM118 (an enum wrapper: keys() gives the names)
        if kind != "GAME_KIND_UNSPECIFIED":
            assert f"`{kind.removeprefix('GAME_KIND_').lower()}`" in label, kind


def test_the_operators_guide_has_every_setting_of_the_server(capsys: pytest.CaptureFixture[str]) -> None:
    guide = (ROOT / "docs" / "operations.md").read_text(encoding="utf-8")
    with pytest.raises(SystemExit):
        parse_settings(["--help"], {})
    text = " ".join(capsys.readouterr().out.split())
    settings = re.findall(r"(--[a-z][a-z-]+) [A-Z_{][^\[]*\[default: [^;\]]+; env (THOUSAND_[A-Z_]+)\]", text)
    flags = dict(settings)
    assert "--bot-pace" in flags and "--tls-cert" in flags and len(flags) > 15
    for flag, variable in sorted(flags.items()):
        assert f"| `{flag}` | `{variable}` |" in guide, flag
