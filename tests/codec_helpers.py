"""What the codec tests of both games share: a message's trip over the wire.

Every conversion is checked as a round trip through the wire format (``SerializeToString`` and back), so a
field the codec forgets, or a value the contract cannot carry, shows up as an inequality.
"""

from __future__ import annotations

from typing import TypeVar

from google.protobuf.message import Message

_M = TypeVar("_M", bound=Message)


def wire(message: _M) -> _M:
    """The message after a trip over the wire."""
    return type(message).FromString(message.SerializeToString())
