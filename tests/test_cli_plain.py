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
            assert "Thousand  3 players" in line and "1/3 taken, 2 free (1 bots)" in line
            assert "waiting for players" in line and "bids rise in steps of: 10" in line
            assert "dark bids, 120 unseen: yes" in line
            err = io.StringIO()
            code = await asyncio.to_thread(main, ["join", "nope", "--plain", "--server", address], None, err)
            assert code == 1

    run(scenario())


async def converse(
    argv: list[str], bad_inputs: list[str], answers: int | None = None, state: Path | None = None
) -> tuple[int, list[str]]:
    """Run the command with pipes and answer each question: first ``bad_inputs``, then pass when allowed,
    else the first action (the first card, then the first recipient, in the exchange); after ``answers``
    answers, close its standard input. ``state``: the user's state directory (where seats are kept)."""
    env = {**os.environ, "PYTHONUNBUFFERED": "1"}
    if state is not None:
        env["XDG_STATE_HOME"] = str(state)
    process = await asyncio.create_subprocess_exec(
        *command(),
        *argv,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env=env,
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
            elif line.startswith("Who gets "):
                process.stdin.write(b"1\n")
                await process.stdin.drain()
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


def test_a_whole_game_in_plain_mode_with_piped_numbers(tmp_path: Path) -> None:
    """``thousand new --plain``: events and state as text, numbered actions, one number a line; bad input is
    answered and asked again. When the input ends the seat is kept: ``thousand join TABLE`` (no seat, no
    name) takes the same user back to it, under their name, and the game ends with "Final standings", one
    seat a line."""

    async def scenario() -> tuple[list[str], list[str]]:
        async with serving() as address:
            code, first = await converse(
                [
                    "new", "--plain", "--server", address, "--bots", "2", "--strategy", "greedy",
                    "--barrel-at", "0", "--seed", "5", "--first-dealer", "1", "--name", "Ann",
                ],
                ["hello\n", "0\n", "99\n"],
                answers=10,
                state=tmp_path,
            )  # fmt: skip
            assert code == EXIT_INPUT_ENDED
            table_id = first[0].split()[1]
            assert first[-1] == (
                f"Your seat 1 is kept: `thousand join {table_id}` takes you back to it "
                f"(`thousand leave {table_id}` gives it up)."
            )
            rejoin = ["join", table_id, "--plain", "--server", address]
            code, second = await converse(rejoin, [], state=tmp_path)
            assert code == 0
            return first, second

    first, lines = run(scenario())
    text = "\n".join(first)
    assert first[0].startswith("Table ") and "you sit in seat 1" in first[0]
    assert "Game of Thousand — 3 players" in text
    assert "rules changed: the barrel at: off (the first to 1000 wins)" in text
    assert "Ann (seat 1) is dealt 7 cards: " in text  # the own hand, and only that one
    assert re.search(r"greedy bot \(seat 2\) is dealt 7 cards$", text, re.MULTILINE)
    assert "greedy bot (seat 2) sits down" in text and "takes seat" not in text
    assert "Your hand: " in text and "Scores: " in text and "Seats: " in text
    assert "'hello' is not something this game reads: type a number from 1 to" in text
    assert "There is no bid of 0 now: bids go from " in text and "There is no bid of 99 now" in text
    assert "Input ended: leaving the game." in text
    text = "\n".join(lines)
    assert lines[0].startswith("You are back in seat 1 of table ")
    assert "Ann (seat 1) is dealt 7 cards: " in text  # the whole game again, from its first event
    assert "is free" not in text  # nobody left the seat: it was kept
    assert re.search(r"^Deal 1: .+ played \d+ and (made|failed|conceded)", text, re.MULTILINE)
    assert re.search(r"^  Ann \(seat 1\): [+-]\d+, -?\d+ in all", text, re.MULTILINE)
    assert "Game over — winner: " in text
    assert "deal 1 verified against its commitment" in text  # every deal is checked as it is revealed
    assert "FAILED verification" not in text
    final = lines.index("Final standings")
    standings = lines[final + 1 :]
    assert len(standings) == 3 and all(STANDING.match(s) for s in standings), standings
    assert [s[0] for s in standings] == ["1", "2", "3"]
    assert any(s.endswith(tuple("0123456789")) and "Ann (seat 1)" in s for s in standings)


def test_a_fair_table_in_plain_mode_checks_every_deal_with_the_players_own_seed(tmp_path: Path) -> None:
    """Without ``--seed`` the table deals fairly: the client says so, adds a seed of its own when it takes
    the seat, and prints each deal's verdict; a player who takes the seat mid-game (Ann gave it up, Bob on
    another machine takes it) checks the earlier player's deals too (without their seed) and, at the end,
    the table's secret."""
    ann, bob = tmp_path / "ann", tmp_path / "bob"

    async def scenario() -> tuple[list[str], list[str]]:
        async with serving() as address:
            code, first = await converse(
                ["new", "--plain", "--server", address, "--bots", "2", "--name", "Ann"], [], 12, ann
            )
            assert code == EXIT_INPUT_ENDED
            table_id = first[0].split()[1]
            gone = await converse(["leave", table_id, "--server", address], [], state=ann)
            assert gone == (0, [f"You left seat 1 of table {table_id}."])
            code, second = await converse(
                ["join", table_id, "--seat", "1", "--plain", "--server", address, "--name", "Bob"],
                [],
                None,
                bob,
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
