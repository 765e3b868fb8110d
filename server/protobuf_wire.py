"""Protocol Buffers wire encoding by hand, for the few messages the server sends most often.

A stream message (StreamEventsResponse) is its sequence number, one event and, on the last message of an
action, a Turn. The same event goes to every seat that may see it unchanged, and the Turn differs only on the
acting seat's stream, so the server serializes each event once per action (not once per audience) and
assembles each audience's messages from the pieces: a message's serialization is the concatenation of its
fields' encodings, so ``field(3, event) + field(4, turn)`` is exactly what building the message (copying the
event and the Turn into it) and serializing it would give, without the copies. The pieces are written in
field-number order, as protobuf's own serializer writes them, so the bytes are the same too (a test checks
both against ``SerializeToString``).

The field numbers come from the generated descriptors (:func:`field_number`, read once at import by the
modules that write fields by hand), so that a number cannot disagree with the ``.proto``.

Only what those messages need is here: integers (``uint64``; ``int32``, a negative one as protobuf writes it,
sign-extended to ten bytes), bools, packed repeated ``int32`` and length-delimited fields (submessages,
already serialized). A Turn's view (ThousandView) is written from such pieces too:
:mod:`server.thousand_view_bytes`.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Final

from google.protobuf.message import Message


def field_number(message: type[Message], name: str) -> int:
    """The number of field ``name`` of ``message`` (a generated class), from its descriptor; KeyError for a
    field the message does not have (renamed in the ``.proto``: the importing module fails at once)."""
    number: int = message.DESCRIPTOR.fields_by_name[name].number
    return number


_SMALL: Final[tuple[bytes, ...]] = tuple(bytes((n,)) for n in range(128))
"""One-byte varints, prebuilt: most lengths and every seat number."""


def varint(value: int) -> bytes:
    """``value`` (non-negative) as a base-128 varint."""
    if value < 128:
        return _SMALL[value]
    if value < 16_384:  # two bytes: bids, contracts, scores, most lengths
        return bytes((value & 0x7F | 0x80, value >> 7))
    out = bytearray()
    while value >= 128:
        out.append((value & 0x7F) | 0x80)
        value >>= 7
    out.append(value)
    return bytes(out)


_UINT64: Final = (1 << 64) - 1


def int32(value: int) -> bytes:
    """An ``int32`` (or enum) value as a varint: a negative one sign-extended to 64 bits (always 10 bytes), as
    protobuf writes it (scores and payouts go below zero)."""
    if 0 <= value < 128:
        return _SMALL[value]
    return varint(value & _UINT64)


def tag(number: int, wire_type: int) -> bytes:
    return varint(number << 3 | wire_type)


_PREBUILT_TAGS: Final = 64
_VARINT_TAGS: Final = tuple(tag(n, 0) for n in range(_PREBUILT_TAGS))
_LENGTH_TAGS: Final = tuple(tag(n, 2) for n in range(_PREBUILT_TAGS))
"""The tags of fields 0 to 63 (one byte each up to 15, two beyond), prebuilt: a Turn lists a dozen actions,
each a field, and a view has 33 fields."""


def int_field(number: int, value: int) -> bytes:
    """A varint field (``uint64``, ``int32`` of either sign, an enum), present even when 0."""
    head = _VARINT_TAGS[number] if number < _PREBUILT_TAGS else tag(number, 0)
    return head + (_SMALL[value] if 0 <= value < 128 else int32(value))


def bool_field(number: int, value: bool) -> bytes:
    """A ``bool`` field (one byte), present even when false."""
    return int_field(number, 1 if value else 0)


def message_field(number: int, payload: bytes) -> bytes:
    """A length-delimited field: a submessage given serialized (empty for an empty but present one)."""
    size = len(payload)
    head = _LENGTH_TAGS[number] if number < _PREBUILT_TAGS else tag(number, 2)
    return head + (_SMALL[size] if size < 128 else varint(size)) + payload


def packed_field(number: int, values: Sequence[int]) -> bytes:
    """A packed repeated ``int32`` field (proto3 packs repeated scalars); empty, so absent, for no values, as
    protobuf writes nothing for an empty repeated field."""
    if not values:
        return b""
    if min(values) >= 0 and max(values) < 128:
        payload = bytes(values)  # every value a one-byte varint: the usual case (seats, counts, points)
    else:
        payload = b"".join([int32(v) for v in values])
    return message_field(number, payload)
