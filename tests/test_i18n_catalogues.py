"""The shared catalogues (clients/i18n): every language has exactly English's keys and placeholders, every key
is used, every contract reason and rule has its message, and plurals are right (issue #29)."""

from __future__ import annotations

import json
import re
from dataclasses import fields
from enum import Enum
from pathlib import Path

import pytest

from clients.i18n import LANGUAGES, Translator, catalogue, glossary, language_from_env, messages_path
from engine import Rules
from engine.actions import RedealReason
from engine.blagogo import BlagogoRules
from engine.blagogo.errors import BlagogoReason
from engine.blagogo.round_state import Phase as BlagogoPhase
from engine.errors import Reason
from engine.events import DealKind, Mark
from engine.phases import Phase
from server.errors import ErrorReason

ROOT = Path(__file__).resolve().parent.parent
PLACEHOLDER = re.compile(r"\{\s*([a-z_]+)\s*[,}]")
DYNAMIC = (
    "error.",
    "rule.",
    "term.",
    "variant.",
    "variant_value.",
    "variant_zero.",
    "notice.",
    "cli.keys_",
    "cli.status_",
    "cli.policy_",
    "cli.key_",
    "cli.panel_",
)
"""Keys made from the contract's values (a reason, a rule, a variant, a glossary term), not written out."""


def placeholders(message: str) -> set[str]:
    """The argument names of an ICU message (branch bodies of select and plural searched too)."""
    names: set[str] = set()

    def body(i: int) -> int:  # parse until the closing brace of this message; returns the index after it
        while i < len(message):
            c = message[i]
            if c == "'" and i + 1 < len(message) and message[i + 1] == "'":
                i += 2
            elif c == "{":
                i = argument(i + 1)
            elif c == "}":
                return i + 1
            else:
                i += 1
        return i

    def argument(i: int) -> int:
        m = re.match(r"\s*([a-z_]+)\s*(?:,\s*([a-z]+)\s*)?", message[i:])
        assert m is not None, message
        names.add(m.group(1))
        i += m.end()
        if m.group(2) in ("select", "plural"):
            i += 1  # the comma before the branches
            while i < len(message) and message[i] != "}":
                if message[i] == "{":
                    i = body(i + 1)
                else:
                    i += 1
            return i + 1
        depth = 0
        while i < len(message):  # a simple argument, or a number with a skeleton
            if message[i] == "}" and depth == 0:
                return i + 1
            i += 1
        return i

    body(0)
    return names


@pytest.mark.parametrize("lang", LANGUAGES)
def test_every_language_has_englishs_keys_and_placeholders(lang: str) -> None:
    english, other = catalogue("en"), catalogue(lang)
    assert set(other) == set(english), (
        f"{lang}: missing {set(english) - set(other)}, extra {set(other) - set(english)}"
    )
    for key, message in english.items():
        assert placeholders(other[key]) == placeholders(message), (lang, key)
        Translator(lang)  # compiles on use: every message must be valid ICU
    tr = Translator(lang)
    for key in english:
        if not placeholders(english[key]):
            assert tr(key)


@pytest.mark.parametrize("lang", LANGUAGES)
def test_the_glossary_says_where_each_word_comes_from(lang: str) -> None:
    words = glossary(lang)
    assert set(words) == set(glossary("en"))
    for term, entry in words.items():
        assert entry["text"] and entry["source"], (lang, term)


def test_the_contract_reasons_and_rules_all_have_messages() -> None:
    english = catalogue("en")
    assert {f"error.{r.value}" for r in ErrorReason} <= set(english)
    assert {f"rule.{r.value}" for r in [*Reason, *BlagogoReason]} <= set(english)
    for kind in (Rules, BlagogoRules):
        for f in fields(kind):
            assert f"variant.{f.name}" in english
            value = getattr(kind(), f.name)
            if isinstance(value, Enum):
                assert {f"variant_value.{m.value}" for m in type(value)} <= set(english)


def dynamic_keys() -> set[str]:
    """The keys code makes from the contract's values (a reason, a rule, a variant, an enum)."""
    keys = {f"error.{r.value}" for r in ErrorReason} | {f"rule.{r.value}" for r in [*Reason, *BlagogoReason]}
    for kind in (Rules, BlagogoRules):
        for f in fields(kind):
            keys.add(f"variant.{f.name}")
            keys.add(f"variant_zero.{f.name}")
            value = getattr(kind(), f.name)
            if isinstance(value, Enum):
                keys |= {f"variant_value.{m.value}" for m in type(value)}
    keys |= {f"term.{term}" for term in glossary("en")}
    keys |= {f"blagogo.phase_{p.value}" for p in BlagogoPhase}
    keys |= {f"blagogo.column_{c}" for c in ("seat", "cards", "opened", "score", "count", "op")}
    keys |= {f"blagogo.rules_{i}" for i in range(1, 6)}
    keys |= {f"cli.keys_{k}" for k in ("digits", "arrows", "escape", "help", "quit")}
    kinds = ("turn_timed_out", "seat_reclaimed", "table_stopped", "ratings_updated")
    keys |= {f"notice.{k}" for k in kinds} | {
        f"notice.seat_taken_over_{d}" for d in ("handed_over", "forfeited", "one_turn", "until_back")
    }
    keys |= {f"notice.table_stopped_{d}" for d in ("move_limit", "closed_by_operator")}
    keys.add("notice.ratings_updated_not_rated")
    assert {f"term.phase_{p.value}" for p in Phase} | {f"term.deal_{k.value}" for k in DealKind} <= keys
    assert {f"term.mark_{m.value}" for m in Mark} | {f"term.redeal_{r.value}" for r in RedealReason} <= keys
    return keys


def client_code() -> str:
    """Every client's code that reads the catalogues: the Python clients and the web client's TypeScript
    (its generated protobuf code aside)."""
    web = ROOT / "clients" / "web" / "src"
    paths = [*(ROOT / "clients").rglob("*.py"), *(p for p in web.rglob("*.ts") if "gen" not in p.parts)]
    return "\n".join(p.read_text(encoding="utf-8") for p in paths)


def test_no_key_is_unused() -> None:
    code = client_code()
    dynamic = dynamic_keys()
    for key in catalogue("en"):
        used = f'"{key}"' in code or f"'{key}'" in code
        assert used or key in dynamic, f"{key} is in the catalogue but no code uses it"


def test_the_made_keys_all_exist() -> None:
    english = catalogue("en")
    missing = {key for key in dynamic_keys() if key not in english and not key.startswith("variant_zero.")}
    assert not missing


@pytest.mark.parametrize(
    ("lang", "expected"),
    [
        ("ru", ["1 взятка", "2 взятки", "5 взяток", "21 взятка"]),
        ("uk", ["1 взятка", "2 взятки", "5 взяток", "21 взятка"]),
        ("be", ["1 узятка", "2 узяткі", "5 узятак", "21 узятка"]),
        ("pl", ["1 lewa", "2 lewy", "5 lew", "22 lewy"]),
        ("en", ["1 trick", "2 tricks", "5 tricks", "21 tricks"]),
    ],
)
def test_plurals(lang: str, expected: list[str]) -> None:
    tr = Translator(lang)
    counts = [1, 2, 5, 22 if lang == "pl" else 21]
    lines = [tr("cli.seat_line", name="A", you="no", cards=1, tricks=n, points=0) for n in counts]
    for line, words in zip(lines, expected, strict=True):
        assert words in line, line


def test_the_language_comes_from_the_environment() -> None:
    assert language_from_env({"LANG": "uk_UA.UTF-8"}) == "uk"
    assert language_from_env({"LANG": "be_BY.UTF-8"}) == "be"
    assert language_from_env({"LC_ALL": "pl_PL.UTF-8", "LANG": "ru_RU.UTF-8"}) == "pl"
    assert language_from_env({"LANG": "C"}) == "en"
    assert language_from_env({"LANG": "de_DE.UTF-8"}) == "en"


def test_catalogues_are_plain_json() -> None:
    for lang in LANGUAGES:
        assert isinstance(json.loads(messages_path(lang).read_text(encoding="utf-8")), dict)
