"""Every message with a plural, in every language, at 1, 2, 5, 21, 22 and 0 (issue #29): numbers of the same
CLDR plural category read the same but for the number itself (1 and 21 in Russian, Ukrainian and Belarusian:
"1 взятка, 21 взятка"; 2 and 22: "взятки"; 0 and 5: "взяток"; Polish 21 with 5: "21 lew"), so a message that
puts a Russian "few" form where "many" belongs, or misses a category, fails. Every number argument is given
the number, every other one a word (a select falls to its ``other`` branch)."""

from __future__ import annotations

import re

import pytest

from clients.i18n import LANGUAGES, Translator, catalogue
from tests.test_i18n_catalogues import placeholders

CATEGORIES = {
    "en": [[1], [0, 2, 5, 21, 22]],
    "ru": [[1, 21], [2, 22], [0, 5]],
    "uk": [[1, 21], [2, 22], [0, 5]],
    "be": [[1, 21], [2, 22], [0, 5]],
    "pl": [[1], [2, 22], [0, 5, 21]],
}
"""CLDR's plural categories of the numbers tried (one; few; many/other), per language."""
PLURAL = re.compile(r"\{\s*[a-z_]+\s*,\s*plural\s*,")
EXACT = re.compile(r"=\s*(-?\d+)\s*\{")
NUMERIC = re.compile(r"\{\s*([a-z_]+)\s*,\s*(?:plural|number|selectordinal)\b")


def plural_keys(lang: str) -> list[str]:
    return sorted(key for key, message in catalogue(lang).items() if PLURAL.search(message))


@pytest.mark.parametrize("lang", LANGUAGES)
def test_every_plural_agrees_within_each_category(lang: str) -> None:
    tr = Translator(lang)
    checked = 0
    for key in plural_keys(lang):
        message = catalogue(lang)[key]
        exact = {int(n) for n in EXACT.findall(message)}  # "=0 {}": a number said apart, not a category
        numeric = set(NUMERIC.findall(message))
        words = {name: "x" for name in placeholders(message) - numeric}
        for group in CATEGORIES[lang]:
            # a number the message writes itself ("2 to {most}") cannot be told from the argument's
            numbers = [n for n in group if n not in exact and not re.search(rf"(?<!\d){n}(?!\d)", message)]
            shown = {n: tr(key, **words, **dict.fromkeys(numeric, n)) for n in numbers}
            forms = {re.sub(rf"(?<!\d){n}(?!\d)", "N", text) for n, text in shown.items()}
            assert len(forms) <= 1, f"{lang} {key}: {shown}"
        checked += 1
    assert checked > 20


def test_the_russian_forms_are_the_three_of_cldr() -> None:
    tr = Translator("ru")
    shown = [
        tr("bot.ladder_set_row", rank=1, name="A", points=n, timeouts=0, before="1", after="2")
        for n in (1, 2, 5)
    ]
    assert ["1 очко" in shown[0], "2 очка" in shown[1], "5 очков" in shown[2]] == [True, True, True], shown
