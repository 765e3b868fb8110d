"""Every value of one type anywhere inside an object: what the no-hidden-card checks of both games (T-33,
B-21) look for inside events, views and actions, whatever their shape."""

from __future__ import annotations

import dataclasses
from functools import cache
from typing import TypeVar

T = TypeVar("T")


def instances_in(obj: object, kind: type[T], found: set[T]) -> set[T]:
    """Every ``kind`` inside ``obj`` (dataclasses, tuples, lists, sets, dicts' keys and values), added to
    ``found``.

    >>> from engine.cards import Card
    >>> sorted(map(str, instances_in({"hand": (Card.parse("A♠"),)}, Card, set())))
    ['A♠']
    """
    if isinstance(obj, kind):
        found.add(obj)
    elif isinstance(obj, (tuple, list, set, frozenset)):
        for item in obj:
            instances_in(item, kind, found)
    elif isinstance(obj, dict):
        for key, item in obj.items():
            instances_in(key, kind, found)
            instances_in(item, kind, found)
    elif dataclasses.is_dataclass(obj) and not isinstance(obj, type):
        for name in _fields(type(obj)):
            instances_in(getattr(obj, name), kind, found)
    return found


@cache
def _fields(cls: type) -> tuple[str, ...]:
    return tuple(f.name for f in dataclasses.fields(cls))
