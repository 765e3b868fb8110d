"""``thousand new --game blagogo --plain``: a whole short game of 1000 Blagogo against server-side random
bots with numbers piped in; a meld composed with ``m`` (jokers' meanings answered) is accepted, a bad one is
refused with its reason shown and the question asked again; ``thousand tables`` names the game."""

from __future__ import annotations

import asyncio
import io
import os
import re
import subprocess

import pytest

from clients.cli.blagogo_text import parse_stands
from clients.cli.main import main
from clients.cli.plain import EXIT_INPUT_ENDED
from engine.blagogo import Rank, Stands, Suit
from tests.cli_harness import run, serving
from tests.test_cli_plain import command

OPTION = re.compile(r"^  (\d+)\. (.+)$")
HAND = re.compile(r"(\d+):(\S+)")
JOKER = re.compile(r"(★\d)\(=([^)]+)\)")


def compose(label: str, hand: dict[str, str]) -> tuple[str, list[str]]:
    """``m`` with the hand numbers of a proposed meld's cards (``lay 2♠ ★1(=3♠) 4♠``), and the jokers'
    meanings to answer."""
    numbers, meanings = [], []
    for part in label.removeprefix("lay ").split():
        if part == "|":
            numbers.append("|")
            continue
        joker = JOKER.match(part)
        if joker:
            meanings.append(joker.group(2))
        numbers.append(hand[joker.group(1) if joker else part])
    return "m " + " ".join(numbers), meanings


async def converse(argv: list[str]) -> tuple[int, list[str], list[str]]:
    """Play with pipes: the first proposed meld is composed with ``m`` (after one refused meld), then every
    proposed meld is taken by its number, else a discard, else the first action; a joker's meaning, when
    asked, is the first one offered. Returns the code, the output lines and what was typed."""
    process = await asyncio.create_subprocess_exec(
        *command(), *argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
        env={**os.environ, "PYTHONUNBUFFERED": "1"},
    )  # fmt: skip
    assert process.stdin is not None and process.stdout is not None and process.stderr is not None
    lines: list[str] = []
    typed: list[str] = []
    options: list[str] = []
    hand: dict[str, str] = {}
    composed = refused = False

    async def send(text: str) -> None:
        typed.append(text)
        assert process.stdin is not None
        process.stdin.write(f"{text}\n".encode())
        await process.stdin.drain()

    try:
        while raw := await asyncio.wait_for(process.stdout.readline(), timeout=30):
            line = raw.decode().rstrip("\n")
            lines.append(line)
            if line.startswith("Your turn"):
                options = []
            elif line.startswith("Your hand: "):
                hand = {card: number for number, card in HAND.findall(line)}
            elif match := OPTION.match(line):
                options.append(match.group(2))
            elif line.startswith("What does "):
                await send(line.rsplit(": ", 1)[-1].split(" or ")[0].rstrip("?"))
            elif line.startswith("Your choice (1-"):
                melds = [i for i, o in enumerate(options, 1) if o.startswith("lay ")]
                if melds and not refused:
                    refused = True
                    await send(f"m {' '.join(sorted(hand.values(), key=int)[:2])}")  # two cards: no meld
                elif melds and not composed:
                    composed = True
                    text, _ = compose(options[melds[0] - 1], hand)
                    await send(text)
                elif melds:
                    await send(str(melds[0]))
                else:
                    discards = [i for i, o in enumerate(options, 1) if o.startswith("discard ")]
                    await send(str(discards[0] if discards else 1))
        code = await asyncio.wait_for(process.wait(), timeout=10)
    finally:
        if process.returncode is None:
            process.kill()
    err = (await process.stderr.read()).decode()
    assert code in (0, EXIT_INPUT_ENDED), (code, err, lines[-30:])
    return code, lines, typed


def test_a_whole_blagogo_game_in_plain_mode() -> None:
    async def scenario() -> tuple[int, list[str], list[str], str]:
        async with serving() as address:
            code, lines, typed = await converse(
                [
                    "new", "--game", "blagogo", "--plain", "--server", address, "--players", "3",
                    "--bots", "2", "--target", "60", "--turnover-limit", "1", "--opening-min-points", "0",
                    "--seed", "3", "--first-dealer", "1", "--name", "Ann", "--strategy", "random",
                ]
            )  # fmt: skip
            out = io.StringIO()
            assert await asyncio.to_thread(main, ["tables", "--server", address], None, out) == 0
            return code, lines, typed, out.getvalue()

    code, lines, typed, tables = run(scenario(), timeout=90)
    assert code == 0
    text = "\n".join(lines)
    assert lines[0].startswith("Table ") and "you sit in seat 1" in lines[0]
    assert "Game of 1000 Blagogo — 3 players, to 60; rules changed: " in text
    assert re.search(r"^Ann \(seat 1\) is dealt 1[23] cards: ", text, re.MULTILINE)
    assert re.search(r"^random bot \(seat 2\) is dealt 1[23] cards$", text, re.MULTILINE)
    assert "Bridge (position:card, the newest last): 1:" in text
    assert re.search(r"^Your hand: 1:\S+  2:\S+", text, re.MULTILINE)
    assert re.search(r"^  #\d+ (set|run of .) by .+: .+ \(\d+ points\)$", text, re.MULTILINE)
    # the refused meld: its reason in words, and the question asked again
    refused = typed.index(next(t for t in typed if t.startswith("m ")))
    assert re.search(r"^Rejected: .+ \[[A-Z_]+\]$", text, re.MULTILINE)
    composed = next(t for t in typed[refused + 1 :] if t.startswith("m "))
    assert "You chose: lay " in text and composed
    assert re.search(r"^Ann \(seat 1\) (opens with|lays) \d+ points:$", text, re.MULTILINE)
    assert "Game over — winner: " in text
    final = lines.index("Final standings")
    standings = lines[final + 1 :]
    assert len(standings) == 3 and [s[0] for s in standings] == ["1", "2", "3"]
    assert "  1000 Blagogo  3 players  " in tables and "the game ends at: 60 points" in tables
    assert "finished" in tables


def test_joker_meanings_are_parsed() -> None:
    assert parse_stands("Q") == Stands(Rank.QUEEN)
    assert parse_stands("k♥") == Stands(Rank.KING, Suit.HEARTS)
    assert parse_stands("10S") == Stands(Rank.TEN, Suit.SPADES)
    try:
        parse_stands("zz")
    except ValueError as error:
        assert "rank" in str(error)
    else:
        raise AssertionError("zz is no meaning")


def test_blagogo_rule_options() -> None:
    from clients.cli.main import build_parser, rules_from_args  # noqa: PLC0415
    from engine.blagogo import BlagogoRules, LayoffScores  # noqa: PLC0415
    from engine.errors import RulesError  # noqa: PLC0415

    args = build_parser().parse_args(
        [
            "new", "--game", "blagogo", "--players", "6", "--target", "500", "--turnover-limit", "2",
            "--bridge-take-must-meld", "--layoff-scores-for", "contributor", "--ace-in-hand", "25",
        ]
    )  # fmt: skip
    assert rules_from_args(args) == BlagogoRules(
        players=6, target=500, turnover_limit=2, bridge_take_must_meld=True,
        layoff_scores_for=LayoffScores.CONTRIBUTOR, ace_in_hand=25,
    )  # fmt: skip
    wrong = build_parser().parse_args(["new", "--game", "blagogo", "--dark"])
    try:
        rules_from_args(wrong)
    except RulesError as error:
        assert "--dark is a rule of thousand" in str(error)
    else:
        raise AssertionError("--dark is no Blagogo rule")


def test_blagogo_options_for_the_readings_of_the_source(capsys: pytest.CaptureFixture[str]) -> None:
    """B-11, B-12, B-14, B-15: ``thousand new --help`` has an option for every variant, the readings of
    issue 20 included, and they reach the rules."""
    from clients.cli.main import build_parser, rules_from_args  # noqa: PLC0415
    from engine.blagogo import BlagogoRules, CompletedSetKeeper  # noqa: PLC0415

    args = build_parser().parse_args(
        [
            "new", "--game", "blagogo", "--opening-one-meld", "--completed-set-keeper", "completer",
            "--no-play-on-own-melds", "--max-jokers-per-meld", "2",
        ]
    )  # fmt: skip
    assert rules_from_args(args) == BlagogoRules(
        players=3, opening_one_meld=True, completed_set_keeper=CompletedSetKeeper.COMPLETER,
        play_on_own_melds=False, max_jokers_per_meld=2,
    )  # fmt: skip
    with pytest.raises(SystemExit):
        main(["new", "--help"])
    help_text = capsys.readouterr().out
    for field in BlagogoRules.__dataclass_fields__:
        if field != "players":
            assert "--" + field.replace("_", "-") in help_text, field
