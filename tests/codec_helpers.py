"""What the codec tests of both games share: a message's trip over the wire, and how an engine enum and its
proto enum must match.

Every conversion is checked as a round trip through the wire format (``SerializeToString`` and back), so a
field the codec forgets, or a value the contract cannot carry, shows up as an inequality.
"""

from __future__ import annotations

from enum import Enum
from typing import TypeVar

from google.protobuf.descriptor import EnumDescriptor
from google.protobuf.message import Message

_M = TypeVar("_M", bound=Message)


def wire(message: _M) -> _M:
    """The message after a trip over the wire."""
    return type(message).FromString(message.SerializeToString())


def assert_enum_matches(engine_enum: type[Enum], descriptor: EnumDescriptor, prefix: str) -> None:
    """The proto enum is the engine enum one to one, each value named ``prefix`` + the member's name, plus
    ``prefix`` + ``UNSPECIFIED`` at 0 (buf's STANDARD lint). The codec maps them by that name
    (:func:`codec.common.enum_table`), so a value on one side only is one the other side cannot say."""
    proto_names = {v.name for v in descriptor.values} - {prefix + "UNSPECIFIED"}
    assert proto_names == {prefix + m.name for m in engine_enum}
    assert descriptor.values_by_number[0].name == prefix + "UNSPECIFIED"
