"""The terminal client in the players' languages (issue #29): a whole seeded Thousand game at 80x24 in
Ukrainian and Belarusian, chosen from LANG as the command does, by key presses (Textual's pilot): every panel
fits, no panel line is cut or wrapped, and no English word is on the screen; the line mode in Russian and
Polish through a real ``thousand new --plain`` process with LANG set."""

from __future__ import annotations

import asyncio
import io
import os
import re
import subprocess

from rich.console import Console
from textual.pilot import Pilot
from textual.widgets import Footer, OptionList, Static

from clients.cli.tui import ThousandApp
from clients.i18n import Translator, catalogue, language_from_env, use
from clients.session import OPEN, TableSession
from engine import Rules
from tests.cli_harness import run, serving
from tests.test_cli_plain import command
from tests.test_cli_tui import play_with_keys
from tests.tui_harness import assert_layout_fits, log_text, read_summary, static_text, wait_for

SMALL = (80, 24)
ASCII_WORD = re.compile(r"(?<![\w-])[A-Za-z]{3,}(?![\w-])")
NOT_ENGLISH = frozenset(
    {"Ann", "Bob", "greedy", "random", "Enter", "Escape", "thousand", "join", "leave", "high", "low"}
)
"""ASCII words that are no English on a translated screen: names, key names, commands typed as they are."""


def english_words(text: str) -> set[str]:
    """The ASCII words of a translated text that are not names, keys or commands: English that slipped
    (for a language not written in Latin letters)."""
    return {w for w in ASCII_WORD.findall(text) if w not in NOT_ENGLISH}


def english_only(lang: str) -> set[str]:
    """The words of the English catalogue that the catalogue of ``lang`` never uses: seeing one of them on a
    screen in ``lang`` means English slipped through (for a language written in Latin letters)."""

    def words(lang: str) -> set[str]:
        return {w.lower() for m in catalogue(lang).values() for w in ASCII_WORD.findall(m)}

    return words("en") - words(lang) - {w.lower() for w in NOT_ENGLISH} - ICU_WORDS


ICU_WORDS = frozenset(
    {"select", "plural", "other", "one", "few", "many", "number", "none", "yes", "group", "min"}
)
"""ICU's own syntax words, in every catalogue."""


def panel_lines(app: ThousandApp, selector: str) -> tuple[list[str], list[str]]:
    """A panel's lines as written, and as drawn at the panel's own width (wrapped where they are longer)."""
    widget = app.query_one(selector, Static)
    width = widget.content_region.width
    wide = Console(width=1000, file=io.StringIO(), record=True, color_system=None)
    wide.print(widget.content)
    narrow = Console(width=width, file=io.StringIO(), record=True, color_system=None)
    narrow.print(widget.content)
    return wide.export_text().rstrip("\n").split("\n"), narrow.export_text().rstrip("\n").split("\n")


class Screens:
    """At each deal: the layout fits, the table's and hand's lines are all shown and no word is split across
    two lines (a long line wraps between words), no English word shows."""

    def __init__(self) -> None:
        self.deals = 0
        self.seen: set[str] = set()

    async def __call__(self, app: ThousandApp, pilot: Pilot[int]) -> bool:
        view = app.view
        assert view is not None
        if view.deal_number == self.deals:
            return False
        self.deals = view.deal_number
        assert_layout_fits(app)
        for selector in ("#table", "#hand"):
            written, drawn = panel_lines(app, selector)
            shown = app.query_one(selector, Static).content_region.height
            assert len(drawn) <= shown, (selector, "cut", drawn)  # every line on the screen
            words = [w for line in written for w in line.split()]
            assert [w for line in drawn for w in line.split()] == words, (selector, "a word split", drawn)
        text = "\n".join(
            static_text(app, s, width=SMALL[0]) for s in ("#table", "#hand", "#status", "#sheet")
        )
        actions = app.query_one("#actions", OptionList)
        prompts = (actions.get_option_at_index(i).prompt for i in range(actions.option_count))
        text += "\n" + "\n".join(str(prompt) for prompt in prompts)
        self.seen |= english_words(text)
        return False


def whole_game_at_80x24(lang_env: str, expected: str) -> tuple[str, str, set[str]]:
    """A seeded game against two greedy bots in the language LANG names; the footer, the log, English seen."""
    lang = language_from_env({"LANG": lang_env})
    assert lang == expected
    use(lang)

    async def scenario() -> tuple[str, str, set[str]]:
        async with serving() as address, TableSession(address) as session:
            table = await session.create_table(
                Rules(barrel_at=0), [OPEN, "greedy", "greedy"], seed=52, practice=True, first_dealer=0
            )
            await session.join(table.table_id, name="Ann")
            app = ThousandApp(session)
            screens = Screens()
            async with app.run_test(size=SMALL) as pilot:
                await wait_for(lambda: bool(app.offered))
                await pilot.press("question_mark")
                page = static_text(app.screen, "Static")
                screens.seen |= english_words(page)
                await pilot.press("escape")
                summaries: list[str] = []
                await play_with_keys(app, pilot, timeout=150, hook=screens, summaries=summaries)
                await wait_for(lambda: app.follower.finished and not app._dirty)  # and drawn
                await pilot.pause()
                summaries.append(await read_summary(app, pilot) or "")
                assert len(summaries) > 5  # each deal's summary waited for a key, in the player's language
                screens.seen |= english_words("\n".join(summaries))
                assert_layout_fits(app)
                footer = " ".join(
                    b.binding.description for b in app.active_bindings.values() if b.binding.show
                )
                assert app.query_one(Footer).display
                screens.seen |= english_words(static_text(app, "#status", width=SMALL[0]))
                return footer, log_text(app), screens.seen

    return run(scenario(), timeout=300)


def test_a_whole_game_in_ukrainian_at_80x24() -> None:
    footer, log, seen = whole_game_at_80x24("uk_UA.UTF-8", "uk")
    assert "Правила й клавіші" in footer and "Вихід" in footer
    assert "Роздача 1 — здає: Ann (місце 1)" in log and "Гру закінчено — переможець: " in log
    assert "взятка 1: " in log and "прикуп" in log
    assert not seen, seen
    assert not english_words(log.replace("SEEDED", "")), english_words(log)


def test_a_whole_game_in_belarusian_at_80x24() -> None:
    footer, log, seen = whole_game_at_80x24("be_BY.UTF-8", "be")
    assert "Правілы і клавішы" in footer and "Выхад" in footer
    assert "Раздача 1 — здае: Ann (месца 1)" in log and "Гульня скончана — пераможца: " in log
    assert "узятка 1: " in log and "прыкуп" in log
    assert not seen, seen
    assert not english_words(log), english_words(log)


async def plain_game(address: str, lang_env: str) -> list[str]:
    """``thousand new --plain`` in LANG=``lang_env`` against two greedy bots, always answering the first
    action (a pass when the auction offers it, so bots play most deals); its output lines."""
    env = {**os.environ, "PYTHONUNBUFFERED": "1", "LANG": lang_env, "LC_ALL": "", "LANGUAGE": ""}
    argv = ["new", "--plain", "--server", address, "--bots", "2", "--strategy", "greedy", "--barrel-at", "0",
            "--seed", "5", "--first-dealer", "1", "--name", "Ann"]  # fmt: skip
    process = await asyncio.create_subprocess_exec(
        *command(), *argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env
    )
    assert process.stdin is not None and process.stdout is not None
    tr = Translator(language_from_env({"LANG": lang_env}))
    choice = tr("cli.your_choice", count=9, words="no").split("(")[0]  # "Your choice " in that language
    second = tr("cli.second_question", question="\x00").split("\x00")[1]  # " (type its number, 0 …):"
    lines: list[str] = []
    options: list[str] = []
    try:
        while raw := await asyncio.wait_for(process.stdout.readline(), timeout=60):
            line = raw.decode().rstrip("\n")
            lines.append(line)
            if match := re.match(r"^  (\d+)\. (.+)$", line):
                options.append(match.group(2))
            elif line.startswith(choice) or line.endswith(second):
                passes = [i for i, o in enumerate(options, 1) if o == tr("action.thousand.pass")]
                process.stdin.write(f"{passes[0] if passes else 1}\n".encode())
                await process.stdin.drain()
                options = []
        assert await asyncio.wait_for(process.wait(), timeout=10) == 0
    finally:
        if process.returncode is None:
            process.kill()
    return lines


def test_plain_mode_in_russian_and_polish() -> None:
    async def scenario() -> tuple[list[str], list[str]]:
        async with serving() as address:
            return await plain_game(address, "ru_RU.UTF-8"), await plain_game(address, "pl_PL.UTF-8")

    russian, polish = run(scenario(), timeout=280)
    text = "\n".join(russian)
    assert russian[0].startswith("Стол ") and "вы на месте 1" in russian[0]
    assert "Игра в тысячу — игроков: 3" in text and "Раздача 1 — сдаёт: Ann (место 1)" in text
    assert "Ваш ход. Выберите действие (номер, затем Enter):" in text and "Итоги" in russian
    assert re.search(r"^Раздача \d+: .+ играл \d+ и (сыграл|не сыграл|расписал)", text, re.MULTILINE)
    assert re.search(r"раздача 1: проверено по обязательству", text)
    assert not english_words(text.replace("SEEDED", "")), english_words(text)
    text = "\n".join(polish)
    english = english_only("pl")  # once: computed per word, it took four minutes of the suite
    slipped = {w for w in ASCII_WORD.findall(text) if w.lower() in english}
    assert not slipped, slipped
    assert polish[0].startswith("Stół ") and "siedzisz na miejscu 1" in polish[0]
    assert "Gra w Tysiąca — graczy: 3" in text and "musik" in text
    assert "Twój ruch. Wybierz akcję (wpisz numer, potem Enter):" in text and "Wyniki końcowe" in polish
    assert re.search(r"lewa \d+: .+ \(\d+ punkt", text)


def test_help_and_argument_errors_in_the_players_language() -> None:
    """argparse's own words (usage, the groups' titles, -h, the error line) come from the catalogues too, and
    ``thousand login --locale`` takes only a language there is a catalogue for (issue #29)."""
    env = {**os.environ, "LANG": "C.UTF-8", "LC_ALL": ""}
    shown = subprocess.run(
        [*command(), "--lang", "ru", "--help"], capture_output=True, text=True, env=env, check=True
    ).stdout
    assert shown.startswith("использование: thousand") and "параметры:" in shown
    assert "показать эту справку и выйти" in shown
    assert not re.search(r"\b(usage|options|positional arguments|show this help)\b", shown), shown
    login = subprocess.run(
        [*command(), "--lang", "pl", "login", "--help"], capture_output=True, text=True, env=env, check=True
    ).stdout
    assert login.startswith("użycie: thousand login") and "--locale {en,ru,uk,be,pl}" in login
    refused = subprocess.run(
        [*command(), "--lang", "uk", "login", "--locale", "xx"],
        check=False,
        capture_output=True,
        text=True,
        env=env,
    )
    assert refused.returncode == 2 and "thousand login: помилка: argument --locale" in refused.stderr
