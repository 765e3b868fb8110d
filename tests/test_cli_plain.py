"""The ``thousand`` command: its options, ``tables``, and a whole game in ``--plain`` line mode with numbers
piped to its standard input."""

from __future__ import annotations

import asyncio
import io
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from clients.cli.main import build_parser, main, rules_from_args
from clients.cli.plain import EXIT_INPUT_ENDED
from clients.session import OPEN, TableSession
from engine import Rules
from engine.rules import BidCap, OpeningBid, WeakTalon
from tests.cli_harness import run, serving

THOUSAND = Path(sys.executable).parent / "thousand"
OPTION = re.compile(r"^  (\d+)\. (.+)$")
STANDING = re.compile(r"^(\d)\. .+: -?\d+( \(bank [+-]\d+\))?$")


def command() -> list[str]:
    """The installed console script, or the module when the project is not installed."""
    return [str(THOUSAND)] if THOUSAND.exists() else [sys.executable, "-m", "clients.cli"]


def test_every_rules_field_has_an_option(capsys: pytest.CaptureFixture[str]) -> None:
    args = build_parser().parse_args(
        [
            "new",
            "--players", "4", "--dark", "--golden-deals", "--bid-step", "10", "--barrel-at", "0",
            "--no-samosval", "--bid-cap", "none", "--opening-bid", "at_least_100",
            "--weak-talon", "below_points", "--weak-talon-below-points", "12", "--bank", "50", "--must-beat",
            "--no-round-defenders",
        ]
    )  # fmt: skip
    assert rules_from_args(args) == Rules(
        players=4,
        dark=True,
        golden_deals=True,
        bid_step=10,
        barrel_at=0,
        samosval=False,
        bid_cap=BidCap.NONE,
        opening_bid=OpeningBid.AT_LEAST_100,
        weak_talon=WeakTalon.BELOW_POINTS,
        weak_talon_below_points=12,
        bank=50,
        must_beat=True,
        round_defenders=False,
    )
    assert rules_from_args(build_parser().parse_args(["new"])) == Rules()
    with pytest.raises(SystemExit):
        main(["new", "--help"])
    help_text = capsys.readouterr().out
    for field in Rules.__dataclass_fields__:
        if field != "players":
            assert "--" + field.replace("_", "-") in help_text, field


def test_impossible_rules_are_refused_naming_the_rule(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["new", "--players", "2", "--dark", "--server", "127.0.0.1:1"]) == 2
    assert "dark" in capsys.readouterr().err
    # T-27: a barrel nobody could leave is refused before any server is asked, naming both rules.
    assert main(["new", "--barrel-at", "500", "--no-obligatory-game", "--server", "127.0.0.1:1"]) == 2
    assert "barrel_at and obligatory_game" in capsys.readouterr().err


def test_tables_lists_id_rules_seats_and_status() -> None:
    async def scenario() -> None:
        async with serving() as address, TableSession(address) as session:
            waiting = await session.create_table(
                Rules(dark=True, bid_step=10), [OPEN, OPEN, "greedy"], seed=1, practice=True
            )
            out = io.StringIO()
            assert await asyncio.to_thread(main, ["tables", "--server", address], None, out) == 0
            line = out.getvalue().strip()
            assert line.startswith(waiting.table_id)
            assert "3 players" in line and "1/3 taken, 2 free (1 bots)" in line
            assert "waiting for players" in line and "bid_step: 10" in line and "dark: True" in line
            err = io.StringIO()
            code = await asyncio.to_thread(main, ["join", "nope", "--plain", "--server", address], None, err)
            assert code == 1

    run(scenario())


async def converse(
    argv: list[str], bad_inputs: list[str], answers: int | None = None
) -> tuple[int, list[str]]:
    """Run the command with pipes and answer each question: first ``bad_inputs``, then pass when allowed,
    else the first action; after ``answers`` answers, close its standard input."""
    process = await asyncio.create_subprocess_exec(
        *command(),
        *argv,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env={**os.environ, "PYTHONUNBUFFERED": "1"},
    )
    assert process.stdin is not None and process.stdout is not None and process.stderr is not None
    lines: list[str] = []
    options: list[str] = []
    bad = iter(bad_inputs)
    given = 0
    try:
        while raw := await asyncio.wait_for(process.stdout.readline(), timeout=60):
            line = raw.decode().rstrip("\n")
            lines.append(line)
            if line.startswith("Your turn"):
                options = []
            elif match := OPTION.match(line):
                options.append(match.group(2))
            elif line.startswith("Your choice (1-"):
                if answers is not None and given >= answers:
                    process.stdin.close()
                    continue
                answer = next(bad, None)
                if answer is None:
                    given += 1
                    answer = f"{options.index('pass') + 1 if 'pass' in options else 1}\n"
                process.stdin.write(answer.encode())
                await process.stdin.drain()
        code = await asyncio.wait_for(process.wait(), timeout=10)
    finally:
        if process.returncode is None:
            process.kill()
    err = (await process.stderr.read()).decode()
    assert code in (0, EXIT_INPUT_ENDED), (code, err, lines[-20:])
    return code, lines


def test_a_whole_game_in_plain_mode_with_piped_numbers() -> None:
    """``thousand new --plain``: events and state as text, numbered actions, one number a line; bad input is
    answered and asked again. When the input ends the seat is given up; ``thousand join --seat`` takes it
    again and plays on, and the game ends with "Final standings", one seat a line."""

    async def scenario() -> tuple[list[str], list[str]]:
        async with serving() as address:
            code, first = await converse(
                [
                    "new", "--plain", "--server", address, "--bots", "2", "--strategy", "greedy",
                    "--barrel-at", "0", "--seed", "5", "--first-dealer", "0", "--name", "Ann",
                ],
                ["pass\n", "0\n", "99\n"],
                answers=10,
            )  # fmt: skip
            assert code == EXIT_INPUT_ENDED
            table_id = first[0].split()[1]
            assert first[-1] == f"You left seat 0; take it again with: thousand join {table_id} --seat 0"
            code, second = await converse(
                ["join", table_id, "--seat", "0", "--plain", "--server", address, "--name", "Bob"], []
            )
            assert code == 0
            return first, second

    first, lines = run(scenario())
    text = "\n".join(first)
    assert first[0].startswith("Table ") and "you sit in seat 0" in first[0]
    assert "Game of Thousand — 3 players" in text and "rules changed: barrel_at: 0" in text
    assert "Ann (seat 0) is dealt 7 cards: " in text  # the own hand, and only that one
    assert re.search(r"seat 1 \(greedy bot\) is dealt 7 cards$", text, re.MULTILINE)
    assert "Your hand: " in text and "Scores: " in text
    assert "'pass' is not one of the actions: type a number from 1 to" in text
    assert "'0' is not one of the actions" in text and "'99' is not one of the actions" in text
    assert "Input ended: leaving the game." in text
    text = "\n".join(lines)
    assert lines[0].startswith("You sit in seat 0 of table ")
    assert "Ann (seat 0) is dealt 7 cards: " in text  # the whole game again, from its first event
    assert "seat 0 is free again" in text and "Bob (seat 0) takes seat 0 (a player)" in text
    assert "Score sheet:" in text and "Game over — winner: " in text
    assert "deal 1 verified against its commitment" in text  # every deal is checked as it is revealed
    assert "FAILED verification" not in text
    final = lines.index("Final standings")
    standings = lines[final + 1 :]
    assert len(standings) == 3 and all(STANDING.match(s) for s in standings), standings
    assert [s[0] for s in standings] == ["1", "2", "3"]


def test_a_fair_table_in_plain_mode_checks_every_deal_with_the_players_own_seed() -> None:
    """Without ``--seed`` the table deals fairly: the client says so, adds a seed of its own when it takes
    the seat, and prints each deal's verdict; a player who takes the seat mid-game checks the earlier
    player's deals too (without their seed) and, at the end, the table's secret."""

    async def scenario() -> tuple[list[str], list[str]]:
        async with serving() as address:
            code, first = await converse(
                ["new", "--plain", "--server", address, "--bots", "2", "--name", "Ann"], [], answers=12
            )
            assert code == EXIT_INPUT_ENDED
            table_id = first[0].split()[1]
            code, second = await converse(
                ["join", table_id, "--seat", "0", "--plain", "--server", address, "--name", "Bob"], []
            )
            assert code == 0
            return first, second

    first, second = run(scenario())
    for lines in (first, second):
        text = "\n".join(lines)
        assert "(fair deals (thousand.fair.v1, commitment " in text
        assert "FAILED" not in text and "SEEDED" not in text
    assert any(line.startswith("deal 1 verified: ") and "(yours included)" in line for line in first)
    verdicts = [line for line in second if re.match(r"deal \d+ verified: ", line)]
    assert any("(yours included)" not in v for v in verdicts)  # Ann's deals, seen again from the start
    assert "(yours included)" in verdicts[-1]  # Bob's own
    assert any(line.startswith("the table's secret matches its commitment") for line in second)
