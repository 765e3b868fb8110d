"""Protocol Buffers wire encoding by hand, for the few messages the server sends most often.

A stream message (StreamEventsResponse) is its sequence number, one event and, on the last message of an
action, a Turn. The same event goes to every seat that may see it unchanged, and the Turn differs only on the
acting seat's stream, so the server serializes each event once per action (not once per audience) and
assembles each audience's messages from the pieces: a message's serialization is the concatenation of its
fields' encodings, so ``field(3, event) + field(4, turn)`` is exactly what building the message (copying the
event and the Turn into it) and serializing it would give, without the copies. The pieces are written in
field-number order, as protobuf's own serializer writes them, so the bytes are the same too (a test checks
both against ``SerializeToString``).

Only what those messages need is here: non-negative integers (``uint64``, non-negative ``int32``) and
length-delimited fields (submessages, already serialized).
"""

from __future__ import annotations

from typing import Final

_SMALL: Final[tuple[bytes, ...]] = tuple(bytes((n,)) for n in range(128))
"""One-byte varints, prebuilt: most lengths and every seat number."""


def varint(value: int) -> bytes:
    """``value`` (non-negative) as a base-128 varint."""
    if value < 128:
        return _SMALL[value]
    out = bytearray()
    while value >= 128:
        out.append((value & 0x7F) | 0x80)
        value >>= 7
    out.append(value)
    return bytes(out)


def tag(number: int, wire_type: int) -> bytes:
    return varint(number << 3 | wire_type)


_VARINT_TAGS: Final = tuple(tag(n, 0) for n in range(16))
_LENGTH_TAGS: Final = tuple(tag(n, 2) for n in range(16))
"""The tags of fields 0 to 15 (one byte each), prebuilt: a Turn lists a dozen actions, each a field."""


def int_field(number: int, value: int) -> bytes:
    """A varint field (``uint64``, or an ``int32`` that is never negative), present even when 0."""
    head = _VARINT_TAGS[number] if number < 16 else tag(number, 0)
    return head + (_SMALL[value] if value < 128 else varint(value))


def message_field(number: int, payload: bytes) -> bytes:
    """A length-delimited field: a submessage given serialized (empty for an empty but present one)."""
    size = len(payload)
    head = _LENGTH_TAGS[number] if number < 16 else tag(number, 2)
    return head + (_SMALL[size] if size < 128 else varint(size)) + payload
