"""``thousand-bot`` in the players' languages (issue #29): its help (every command's), its refusals of bad
options, a ladder set's lines and the bots' names come from the catalogues; run in Russian, no English word is
on the screen but the names a person types (commands, strategies, options, metavariables)."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from clients.bots.ladder import _print_set, member_name
from clients.i18n import Translator, use
from tests.test_i18n_cli import ASCII_WORD
from thousand.v1 import ladder_service_pb2 as ladder_pb
from thousand.v1.ratings_pb2 import Rating

TYPED = frozenset(
    {"thousand", "blagogo", "greedy", "heuristic", "ismcts", "expert", "random", "example", "play", "ladder",
     "register", "match", "tournament", "watch", "login", "gRPC", "sigma", "mu", "usage", "planner"}
)  # fmt: skip
"""What a person types or reads as a name, in every language ("usage" is checked apart: it must not show)."""


def english(text: str) -> set[str]:
    """ASCII words of a Russian text that are neither typed names nor metavariables (KEY, $THOUSAND_*)."""
    words = {w for w in ASCII_WORD.findall(text) if not w.isupper() and w not in TYPED}
    return words | ({"usage"} if re.search(r"\busage\b", text) else set())


def bot(*args: str, lang: str = "ru_RU.UTF-8") -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "LANG": lang, "LC_ALL": "", "LANGUAGE": ""}
    command = [sys.executable, "-m", "clients.bots.cli", *args]
    return subprocess.run(command, capture_output=True, text=True, env=env, check=False, timeout=60)


@pytest.mark.parametrize("command", ["", "play", "ladder", "register", "match", "tournament"])
def test_every_commands_help_in_russian(command: str) -> None:
    shown = bot(*([command] if command else []), "--help")
    assert shown.returncode == 0, shown.stderr
    assert shown.stdout.startswith("использование: thousand-bot"), shown.stdout
    assert not english(shown.stdout), (english(shown.stdout), shown.stdout)


def test_refusals_of_bad_options_in_russian() -> None:
    no_key = bot("ladder", "--strategy", "greedy")
    assert no_key.returncode == 2 and "нужен ключ бота --key" in no_key.stderr, no_key.stderr
    unknown = bot("match", "--strategies", "greedy,nosuch")
    assert unknown.returncode == 2 and "неизвестная стратегия 'nosuch'" in unknown.stderr, unknown.stderr
    too_many = bot("tournament", "--strategies", "greedy,greedy", "--players", "5")
    assert too_many.returncode == 2 and "В тысячу играют от 2 до 4 игроков" in too_many.stderr
    for shown in (no_key, unknown, too_many):
        assert not english(shown.stderr.replace("nosuch", "")), shown.stderr
    polish = bot("ladder", "--strategy", "greedy", lang="pl_PL.UTF-8")
    assert "ladder potrzebuje klucza bota --key" in polish.stderr and "błąd" in polish.stderr, polish.stderr


def test_a_ladder_sets_lines_in_russian_with_plurals() -> None:
    found = ladder_pb.LadderSet(
        set_id="s1",
        tables=[ladder_pb.LadderSetTable(table_id="t1"), ladder_pb.LadderSetTable(table_id="t2")],
        disconnected=True,
        results=[
            ladder_pb.LadderSetResult(display_name="Мой", total_score=21, rank=1, timeouts=2,
                                      before=Rating(ordinal=1.5), after=Rating(ordinal=3.25)),
            ladder_pb.LadderSetResult(member_id="bot:greedy", display_name="greedy", total_score=5, rank=2,
                                      timeouts=0, before=Rating(ordinal=2), after=Rating(ordinal=1)),
        ],
    )  # fmt: skip
    lines: list[str] = []
    use("ru")
    try:
        _print_set(found, lines.append, as_json=False)
    finally:
        use("en")
    assert lines == [
        "серия s1 окончена (участник отключился), столы t1, t2:",
        "  1. Мой: 21 очко, 2 просрочки, рейтинг 1,50 → 3,25",
        "  2. Жадный бот: 5 очков, 0 просрочек, рейтинг 2,00 → 1,00",
    ]


@pytest.mark.parametrize(
    ("lang", "name"),
    [("en", "Search bot"), ("ru", "Поисковый бот"), ("uk", "Пошуковий бот"), ("be", "Пошукавы бот"),
     ("pl", "Bot szukający")],
)  # fmt: skip
def test_a_reference_bot_is_named_as_the_web_bots_page_names_it(lang: str, name: str) -> None:
    """Issue 27: ``thousand-bot ladder``'s set lines and standings name a reference bot (``bot:ismcts``) in
    the words of the web's Bots page (web.bots.reference_name of bot.strategy, capitalised), not by its
    strategy's id; a registered bot keeps its own name."""
    use(lang)
    try:
        assert member_name("bot:ismcts", "ismcts") == name
        assert member_name("p-1", "MyBot") == "MyBot"
    finally:
        use("en")


@pytest.mark.parametrize(
    ("lang", "names"),
    [
        ("en", ["greedy bot (seat 2)", "heuristic bot (seat 2)", "MyBot bot (seat 2)"]),
        ("ru", ["жадный бот (место 2)", "эвристический бот (место 2)", "MyBot бот (место 2)"]),
        ("uk", ["жадібний бот (місце 2)", "евристичний бот (місце 2)", "MyBot бот (місце 2)"]),
        ("be", ["прагны бот (месца 2)", "эўрыстычны бот (месца 2)", "MyBot бот (месца 2)"]),
        ("pl", ["bot chciwy (miejsce 2)", "bot heurystyczny (miejsce 2)", "bot MyBot (miejsce 2)"]),
    ],
)
def test_bot_names_come_from_the_catalogue(lang: str, names: list[str]) -> None:
    tr = Translator(lang)
    shown = [
        tr("seat.bot", name=tr("bot.strategy", strategy=s), seat=2) for s in ("greedy", "heuristic", "MyBot")
    ]
    assert shown == names


def test_every_strategy_of_every_game_has_its_name_in_every_language() -> None:
    """A strategy added to a game's registry plays everywhere at once (bots.strategy.GameStrategies), so its
    name must be in the catalogues at once too: without a branch of its own, the select's `other` shows the
    registry's English id to a Russian player (1000 Blagogo's planner did)."""
    from clients.i18n import LANGUAGES  # noqa: PLC0415
    from games import GAMES  # noqa: PLC0415

    catalogues = Path(__file__).resolve().parent.parent / "clients" / "i18n" / "messages"
    names = sorted({name for game in GAMES for name in game.strategies.names()})
    missing = []
    for lang in LANGUAGES:
        messages = json.loads((catalogues / f"{lang}.json").read_text(encoding="utf-8"))
        for key in ("bot.strategy", "web.create.strategy"):
            missing += [f"{lang} {key} {n}" for n in names if not re.search(rf"[ ,]{n} \{{", messages[key])]
        if lang != "en":
            tr = Translator(lang)
            missing += [f"{lang} shows {n}" for n in names if tr("bot.strategy", strategy=n) == n]
    assert not missing, missing
