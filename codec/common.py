"""What both games' codecs share about fields: enums mapped by name, optional fields, oneofs, the errors.

The generated enums number their values by name (``SUIT_HEARTS``); the engine's enums are Python enums. Each
codec builds its tables once with these helpers, so an unknown or unspecified value from a client always gets
the same kind of message, naming the field. A field with presence (``optional`` in the contract) that a client
left unset means the engine's default, the same way in both games' rules.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from enum import Enum
from typing import TypeVar

from google.protobuf.message import Message

from engine.errors import RulesError

_E = TypeVar("_E", bound=Enum)
_V = TypeVar("_V", bound=int)
_T = TypeVar("_T")


def enum_table(members: type[_E], value_of: Callable[[str], _V], prefix: str) -> dict[_E, _V]:
    """Engine member -> proto value, by name (``prefix`` + member name); a missing name fails at import."""
    return {member: value_of(prefix + member.name) for member in members}


def reverse(table: Mapping[_E, _V]) -> dict[int, _E]:
    return {int(value): member for member, value in table.items()}


def enum_problem(name_of: Callable[[_V], str], value: _V) -> str:
    if value == 0:
        return f"is unset ({name_of(value)})"
    return f"{value} is not a known value"


def known(table: Mapping[int, _E], value: int, field: str) -> _E:
    member = table.get(value)
    if member is None:
        raise ValueError(f"{field}: {value} is not a known value")
    return member


def rule_enum(value: int, table: Mapping[_E, int], field: str, default: _E) -> _E:
    """An enum rule: UNSPECIFIED (0) is the default; a value the contract does not define is a RulesError."""
    if value == 0:
        return default
    for member, proto in table.items():
        if proto == value:
            return member
    raise RulesError(field, f"{value} is not a known value")


def optional(present: bool, value: int) -> int | None:
    """An ``optional int32`` field as the engine's ``int | None``."""
    return value if present else None


def or_default(message: Message, field: str, default: _T) -> _T:
    """A field with presence as the engine's value: the field's when it is set, ``default`` when it is not."""
    if not message.HasField(field):
        return default
    value: _T = getattr(message, field)
    return value


def oneof_names(message: type[Message], oneof: str) -> str:
    """The cases of a oneof, in words (for the error that says an action set none of them)."""
    return ", ".join(f.name for f in message.DESCRIPTOR.oneofs_by_name[oneof].fields)
