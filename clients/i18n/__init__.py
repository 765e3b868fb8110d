"""The players' languages: message catalogues in ICU MessageFormat, one per language, shared by every client.

The catalogues are plain JSON files beside this module (``messages/<lang>.json``: key → ICU message;
``glossary/<lang>.json``: the game's own words, each with where it comes from), so the web client, the Node
reference client and any third-party client read the very same files (docs/protocol.md, "Languages").
Keys come from the contract, never from the server's English ``details``: ``error.<ErrorInfo.reason>``,
``rule.<rule>`` for the rule an ILLEGAL_ACTION cites, ``event.<game>.<event>`` from an event's type and
fields; the glossary's terms are the messages ``term.<id>``.

Messages are formatted by ICU4C itself (icu4py): CLDR plurals ("1 взятка, 2 взятки, 5 взяток"), numbers,
dates and durations as each locale writes them. One language is chosen per process (:func:`use`), from
``--lang`` or the environment (:func:`language_from_env`); :func:`t` formats a message in it.
"""

from __future__ import annotations

import json
import os
from collections.abc import Mapping
from datetime import date, datetime
from decimal import Decimal
from functools import cache
from pathlib import Path
from typing import Final, TypeAlias

from icu4py.messageformat import MessageFormat

HERE: Final = Path(__file__).resolve().parent
LANGUAGES: Final = ("en", "ru", "uk", "be", "pl")
"""Every language with a complete catalogue; English is the reference the others are checked against."""
DEFAULT: Final = "en"
LOCALES: Final = {"en": "en_GB", "ru": "ru_RU", "uk": "uk_UA", "be": "be_BY", "pl": "pl_PL"}
"""The ICU locale each language formats numbers and dates with."""
NAMES: Final = {"en": "English", "ru": "Русский", "uk": "Українська", "be": "Беларуская", "pl": "Polski"}

Arg: TypeAlias = int | float | str | Decimal | date | datetime


class UnknownLanguageError(ValueError):
    """A language with no catalogue here (the message names the known ones)."""


def messages_path(lang: str) -> Path:
    return HERE / "messages" / f"{lang}.json"


def glossary_path(lang: str) -> Path:
    return HERE / "glossary" / f"{lang}.json"


@cache
def glossary(lang: str) -> dict[str, dict[str, str]]:
    """The game's words in ``lang``: term id → {"text", "source"} (``source``: where the word comes from)."""
    data: dict[str, dict[str, str]] = json.loads(glossary_path(lang).read_text(encoding="utf-8"))
    data.pop("$comment", None)
    return data


@cache
def catalogue(lang: str) -> dict[str, str]:
    """Every message of ``lang``: its messages file, and its glossary's terms as ``term.<id>``."""
    if lang not in LANGUAGES:
        raise UnknownLanguageError(f"no catalogue for {lang!r} (known: {', '.join(LANGUAGES)})")
    messages: dict[str, str] = json.loads(messages_path(lang).read_text(encoding="utf-8"))
    messages.pop("$comment", None)
    terms = {f"term.{key}": entry["text"] for key, entry in glossary(lang).items()}
    return {**messages, **terms}


@cache
def _compiled(lang: str, key: str) -> MessageFormat:
    return MessageFormat(catalogue(lang)[key], LOCALES[lang])


def language_of(tag: str) -> str | None:
    """The catalogue for a POSIX locale or language tag (``uk_UA.UTF-8``, ``pl-PL``, ``ru``), or None."""
    base = tag.split(".", 1)[0].split("@", 1)[0].replace("-", "_").split("_", 1)[0].lower()
    return base if base in LANGUAGES else None


def language_from_env(environ: Mapping[str, str] | None = None) -> str:
    """The language of the environment, as gettext reads it: LANGUAGE (a list, when a locale is set), then
    LC_ALL, LC_MESSAGES, LANG; the first one with a catalogue here; English otherwise (and for C/POSIX)."""
    env = os.environ if environ is None else environ
    locale = next((env[k] for k in ("LC_ALL", "LC_MESSAGES", "LANG") if env.get(k)), "")
    candidates: list[str] = []
    if env.get("LANGUAGE") and locale not in ("", "C", "POSIX"):
        candidates += env["LANGUAGE"].split(":")
    candidates.append(locale)
    for tag in candidates:
        lang = language_of(tag) if tag else None
        if lang is not None:
            return lang
    return DEFAULT


class Translator:
    """Messages of one language, formatted by ICU."""

    def __init__(self, lang: str = DEFAULT) -> None:
        if lang not in LANGUAGES:
            raise UnknownLanguageError(f"no catalogue for {lang!r} (known: {', '.join(LANGUAGES)})")
        self.lang = lang

    def __call__(self, key: str, **args: Arg | None) -> str:
        """The message ``key`` with its arguments; KeyError for a key no catalogue has. An argument that is
        None or "" is passed as the word ``none``: an optional part, which a message selects on
        (``{cards, select, none {} other {: {cards}}}``)."""
        params = {name: ("none" if value is None or value == "" else value) for name, value in args.items()}
        return _compiled(self.lang, key).format(params)

    def has(self, key: str) -> bool:
        return key in catalogue(self.lang)


_chosen: list[Translator] = [Translator()]
"""The process's language (one element: replaced by :func:`use`)."""


def use(lang: str) -> Translator:
    """Make ``lang`` the language of this process's texts (the terminal client: once, at start)."""
    _chosen[0] = Translator(lang)
    return _chosen[0]


def current() -> Translator:
    return _chosen[0]


def t(key: str, **args: Arg | None) -> str:
    """The message ``key`` in the language chosen with :func:`use`."""
    return _chosen[0](key, **args)
