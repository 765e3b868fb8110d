"""What every game's rules object shares: field type checks and a description in words.

A rules object is a frozen dataclass whose fields are the table's variants. Both games validate the types
of their fields the same way (so a client's ``True`` never passes for an ``int``) and describe themselves
the same way on rules screens and in transcripts; this module is that one way.
"""

from __future__ import annotations

import typing
from collections.abc import Mapping
from dataclasses import fields
from enum import Enum
from functools import cache
from typing import Any

from engine.errors import RulesError


@cache
def _field_types(cls: type) -> dict[str, type]:
    hints = typing.get_type_hints(cls)
    return {f.name: hints[f.name] for f in fields(cls)}


def check_field_types(rules: Any) -> None:
    """Raise RulesError naming the first field whose value is not of its declared type."""
    cls: type = type(rules)
    for name, expected in _field_types(cls).items():
        value = getattr(rules, name)
        # bool is an int subclass: an int field must not silently accept True.
        if not isinstance(value, expected) or (expected is int and isinstance(value, bool)):
            raise RulesError(name, f"must be {expected.__name__}, got {value!r}")


def describe(rules: Any, notes: Mapping[str, str] | None = None) -> list[str]:
    """The variants in words, one line each, the ones changed from the default marked.

    ``notes`` says in words what a field's value means at this table where the value alone would mislead (an
    option that does not apply to this number of players, a reading of the rule), in brackets after it.
    """
    defaults = type(rules)()
    notes = notes or {}
    lines = [f"players: {rules.players}"]
    for f in fields(rules):
        if f.name == "players":
            continue
        value = getattr(rules, f.name)
        shown = value.value if isinstance(value, Enum) else value
        note = f" ({notes[f.name]})" if f.name in notes else ""
        marker = "" if value == getattr(defaults, f.name) else "  (changed)"
        lines.append(f"{f.name}: {shown}{note}{marker}")
    return lines
