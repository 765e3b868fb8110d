"""A Thousand view (``thousand.v1.ThousandView``) serialized by hand, straight from the engine's ``View``.

The acting seat's Turn carries its whole view at every action. Building it as a protobuf message
(``codec.view_to_proto``: dozens of message objects in the middle of a deal, a card copied into each) and then
serializing it cost about a tenth of the server's CPU per action under load. Most of a view repeats from one
action to the next, so here each repeating piece is serialized once, as the complete field it becomes (tag,
length and payload), and a view is the concatenation of its fields' bytes: the table's rules (one object for
a whole game: cached by identity, then by value), the 24 cards in each list that holds cards, a trick's play
for each seat and card, each (interned) legal action, and each auction entry, exchange entry, score line and
packed list of counts seen; small integers are prebuilt per field. The rest (bids, contracts, taken tricks
from their prebuilt plays, the final standings) is written with :mod:`server.protobuf_wire`'s primitives.

The bytes are protobuf's own, not merely equivalent: fields are written in field-number order, as protobuf's
serializer writes them, and with proto3's rules of presence (an ``int32``, enum or bool at its default is left
out unless the field is ``optional`` and set; repeated ``int32`` fields are packed; a negative ``int32`` is a
ten-byte varint; a present but empty submessage is its tag and a zero length). That equality is not argued
but tested: tests/test_view_wire.py compares :func:`view_bytes` with
``codec.view_to_proto(view).SerializeToString()`` for every seat's and the spectator's view at every step of
seeded games under many rule sets, to the end of the game (winner, standings, revealed hands, negative scores
and payouts). A field added to ThousandView and set by the codec makes that test fail until it is written
here too.

Only the Turn's view is written here: the codec stays the one mapping of the engine's values to messages for
everything else (snapshots, bots, clients), and the pieces here that are not plain integers (cards, rules,
actions) are serialized by the codec itself, once each, so the two cannot disagree on an enum number.
"""

from __future__ import annotations

import functools
from collections.abc import Iterable, Mapping
from enum import Enum
from operator import attrgetter
from typing import Final, TypeVar

from codec import thousand as codec
from codec.common import enum_table
from engine import Action, Rules, View
from engine.cards import CARDS, Card, Suit
from engine.events import DealKind, Standing
from engine.observer import Exchange, TakenTrick
from engine.phases import Phase
from server import protobuf_wire as wire
from server.protobuf_wire import field_number
from thousand.v1 import cards_pb2, thousand_events_pb2, thousand_views_pb2

_E = TypeVar("_E", bound=Enum)


# Every field number here is read by name from the generated descriptors (thousand_views.proto and the
# messages it uses), once, at import. ThousandView's fields:
_View: Final = thousand_views_pb2.ThousandView
_VIEWER: Final = field_number(_View, "viewer")
_RULES: Final = field_number(_View, "rules")
_DEAL_NUMBER: Final = field_number(_View, "deal_number")
_DEALER: Final = field_number(_View, "dealer")
_KIND: Final = field_number(_View, "kind")
_PHASE: Final = field_number(_View, "phase")
_ACTIVE: Final = field_number(_View, "active")
_SITTER: Final = field_number(_View, "sitter")
_HAND: Final = field_number(_View, "hand")
_CARD_COUNTS: Final = field_number(_View, "card_counts")
_AUCTION: Final = field_number(_View, "auction")
_HIGH_BID: Final = field_number(_View, "high_bid")
_HIGH_BIDDER: Final = field_number(_View, "high_bidder")
_DARK_SEAT: Final = field_number(_View, "dark_seat")
_DECLARER: Final = field_number(_View, "declarer")
_BID: Final = field_number(_View, "bid")
_CONTRACT: Final = field_number(_View, "contract")
_DOUBLED: Final = field_number(_View, "doubled")
_TALON: Final = field_number(_View, "talon")
_TALON_COUNTS: Final = field_number(_View, "talon_counts")
_EXCHANGE: Final = field_number(_View, "exchange")
_TRICK: Final = field_number(_View, "trick")
_TRUMP: Final = field_number(_View, "trump")
_MARRIAGES: Final = field_number(_View, "marriages")
_TRICKS_WON: Final = field_number(_View, "tricks_won")
_TRICK_POINTS: Final = field_number(_View, "trick_points")
_SCORES: Final = field_number(_View, "scores")
_TO_ACT: Final = field_number(_View, "to_act")
_LEGAL_ACTIONS: Final = field_number(_View, "legal_actions")
_REVEALED_HANDS: Final = field_number(_View, "revealed_hands")
_WINNER: Final = field_number(_View, "winner")
_STANDINGS: Final = field_number(_View, "standings")
_TRICKS: Final = field_number(_View, "tricks")

# The fields of the nested messages, each named by its message.
_SeatScore: Final = thousand_views_pb2.SeatScore
_Standing: Final = thousand_events_pb2.Standing
_ENTRY_SEAT: Final = field_number(_View.AuctionEntry, "seat")
_ENTRY_BID: Final = field_number(_View.AuctionEntry, "bid")
_EXCHANGE_GIVER: Final = field_number(_View.Exchange, "giver")
_EXCHANGE_TO_SEAT: Final = field_number(_View.Exchange, "to_seat")
_EXCHANGE_CARD: Final = field_number(_View.Exchange, "card")
_TRICK_CARD_SEAT: Final = field_number(_View.TrickCard, "seat")
_TRICK_CARD_CARD: Final = field_number(_View.TrickCard, "card")
_TAKEN_WINNER: Final = field_number(_View.TakenTrick, "winner")
_TAKEN_PLAYS: Final = field_number(_View.TakenTrick, "plays")
_TAKEN_POINTS: Final = field_number(_View.TakenTrick, "points")
_MARRIAGE_SEAT: Final = field_number(_View.DeclaredMarriage, "seat")
_MARRIAGE_SUIT: Final = field_number(_View.DeclaredMarriage, "suit")
_SCORE_SEAT: Final = field_number(_SeatScore, "seat")
_SCORE_SCORE: Final = field_number(_SeatScore, "score")
_SCORE_BOLTS: Final = field_number(_SeatScore, "bolts")
_SCORE_ON_BARREL: Final = field_number(_SeatScore, "on_barrel")
_SCORE_BARREL_DEALS: Final = field_number(_SeatScore, "barrel_deals")
_SCORE_BARREL_VISITS: Final = field_number(_SeatScore, "barrel_visits")
_SCORE_FALLS: Final = field_number(_SeatScore, "falls")
_LIST_CARDS: Final = field_number(cards_pb2.CardList, "cards")
_STANDING_SEAT: Final = field_number(_Standing, "seat")
_STANDING_PLACE: Final = field_number(_Standing, "place")
_STANDING_SCORE: Final = field_number(_Standing, "score")
_STANDING_PAYOUT: Final = field_number(_Standing, "payout")


_SEATS: Final = 4
"""The most seats a table of Thousand has: the prebuilt plays cover seats 0 to 3."""
_PREBUILT: Final = 128
"""Integer fields are prebuilt for the values 0 to 127 (seats, counts, a trick's points); bids, contracts and
scores are written as they come."""


# --------------------------------------------------------------------------------------------------- integers


def _implicit(number: int) -> tuple[bytes, ...]:
    """An ``int32`` field without presence, for each value below :data:`_PREBUILT`: 0 is left out."""
    return (b"", *(wire.int_field(number, value) for value in range(1, _PREBUILT)))


def _explicit(number: int) -> tuple[bytes, ...]:
    """An ``optional int32`` field, for each value below :data:`_PREBUILT`: 0 is written (it is set)."""
    return tuple(wire.int_field(number, value) for value in range(_PREBUILT))


def _int(prebuilt: tuple[bytes, ...], number: int, value: int) -> bytes:
    """Field ``number`` holding ``value``: prebuilt when it can be (never a negative index), else written."""
    return prebuilt[value] if 0 <= value < _PREBUILT else wire.int_field(number, value)


_VIEWER_FIELDS: Final = _explicit(_VIEWER)
_DEAL_NUMBER_FIELDS: Final = _implicit(_DEAL_NUMBER)
_DEALER_FIELDS: Final = _implicit(_DEALER)
_SITTER_FIELDS: Final = _explicit(_SITTER)
_HIGH_BIDDER_FIELDS: Final = _explicit(_HIGH_BIDDER)
_DARK_SEAT_FIELDS: Final = _explicit(_DARK_SEAT)
_DECLARER_FIELDS: Final = _explicit(_DECLARER)
_TO_ACT_FIELDS: Final = _explicit(_TO_ACT)
_WINNER_FIELDS: Final = _explicit(_WINNER)
_DOUBLED_FIELD: Final = wire.bool_field(_DOUBLED, True)

_ENTRY_SEAT_FIELDS: Final = _implicit(_ENTRY_SEAT)
_GIVER_FIELDS: Final = _implicit(_EXCHANGE_GIVER)
_TRICK_CARD_SEAT_FIELDS: Final = _implicit(_TRICK_CARD_SEAT)
_TAKEN_WINNER_FIELDS: Final = _implicit(_TAKEN_WINNER)
_TAKEN_POINTS_FIELDS: Final = _implicit(_TAKEN_POINTS)
_MARRIAGE_SEAT_FIELDS: Final = _implicit(_MARRIAGE_SEAT)
_SCORE_SEAT_FIELDS: Final = _implicit(_SCORE_SEAT)
_SCORE_SMALL_FIELDS: Final = tuple(
    _implicit(number) for number in (_SCORE_BARREL_DEALS, _SCORE_BARREL_VISITS, _SCORE_FALLS)
)  # barrel_deals, barrel_visits, falls: 0 to 3 in practice
_BOLTS_FIELDS: Final = _implicit(_SCORE_BOLTS)
_ON_BARREL_FIELD: Final = wire.bool_field(_SCORE_ON_BARREL, True)


# ------------------------------------------------------------------------------------------------------ enums


def _enum_fields(number: int, numbers: Mapping[_E, int]) -> dict[_E, bytes]:
    """An enum field without presence for each engine member (the codec's mapping by name)."""
    return {member: wire.int_field(number, value) if value else b"" for member, value in numbers.items()}


_KIND_FIELDS: Final = _enum_fields(
    _KIND, enum_table(DealKind, thousand_events_pb2.DealKind.Value, "DEAL_KIND_")
)
_PHASE_FIELDS: Final = _enum_fields(
    _PHASE, enum_table(Phase, thousand_views_pb2.DealPhase.Value, "DEAL_PHASE_")
)
_SUIT_NUMBERS: Final = enum_table(Suit, cards_pb2.Suit.Value, "SUIT_")
_TRUMP_FIELDS: Final = tuple(wire.int_field(_TRUMP, _SUIT_NUMBERS[s]) for s in Suit)
"""``optional Suit trump``, by suit: written whenever set."""
_MARRIAGE_SUIT_FIELDS: Final = tuple(
    wire.int_field(_MARRIAGE_SUIT, _SUIT_NUMBERS[s]) if _SUIT_NUMBERS[s] else b"" for s in Suit
)


# ------------------------------------------------------------------------------------------------------ cards

_CARD_PAYLOADS: Final = tuple(codec.card_to_proto(c).SerializeToString() for c in CARDS)
"""Each card's serialized ``Card``, by :attr:`Card.index`, as the codec writes it."""


def _card_fields(number: int) -> tuple[bytes, ...]:
    """Each of the 24 cards as field ``number`` of a message, by :attr:`Card.index`.

    By index, because the index is stored on the card: an attribute load and a tuple index cost half of an
    ``id`` call and a dict lookup (the tables were keyed by ``id`` while the index was a computed property),
    and an equal card that is not the interned instance finds its bytes too.
    """
    return tuple(wire.message_field(number, payload) for payload in _CARD_PAYLOADS)


def _cards(fields: tuple[bytes, ...], cards: Iterable[Card]) -> bytes:
    return b"".join([fields[c.index] for c in cards])


_HAND_CARDS: Final = _card_fields(_HAND)
_TALON_CARDS: Final = _card_fields(_TALON)
_LISTED_CARDS: Final = _card_fields(_LIST_CARDS)


def _trick_card(number: int, seat: int, card: Card) -> bytes:
    """A ``TrickCard`` as field ``number``: in the view's current trick, or in a taken trick's plays."""
    payload = _int(_TRICK_CARD_SEAT_FIELDS, _TRICK_CARD_SEAT, seat) + wire.message_field(
        _TRICK_CARD_CARD, _CARD_PAYLOADS[card.index]
    )
    return wire.message_field(number, payload)


def _play_fields(number: int) -> tuple[tuple[bytes, ...], ...]:
    """Every seat's play of every card as field ``number``: by seat, then by :attr:`Card.index`."""
    return tuple(tuple(_trick_card(number, seat, c) for c in CARDS) for seat in range(_SEATS))


_TRICK_PLAYS: Final = _play_fields(_TRICK)
_TAKEN_PLAYS_FIELDS: Final = _play_fields(_TAKEN_PLAYS)


def _plays(fields: tuple[tuple[bytes, ...], ...], number: int, plays: Iterable[tuple[int, Card]]) -> bytes:
    return b"".join(
        [
            fields[seat][card.index] if 0 <= seat < _SEATS else _trick_card(number, seat, card)
            for seat, card in plays
        ]
    )


def _taken_trick(trick: TakenTrick) -> bytes:
    """Written afresh for each view, from the prebuilt plays. A cache keyed by the trick's value would take a
    third of the time on a hit, but a busy server has more tricks in play (up to ten a table, on thousands of
    tables) than a bounded cache holds, so lookups would mostly miss and pay for both."""
    payload = _plays(_TAKEN_PLAYS_FIELDS, _TAKEN_PLAYS, trick.plays)
    winner, points = trick.winner, trick.points
    if winner:
        payload = _int(_TAKEN_WINNER_FIELDS, _TAKEN_WINNER, winner) + payload
    if points:
        payload += _int(_TAKEN_POINTS_FIELDS, _TAKEN_POINTS, points)
    return wire.message_field(_TRICKS, payload)


# ----------------------------------------------------------------------------------------------------- caches

_MAX_CACHED: Final = 4096
"""A bound on each cache below that a server never reaches in practice (it is emptied when reached)."""

_K = TypeVar("_K")


def _kept(cache: dict[_K, bytes], key: _K, data: bytes) -> bytes:
    """``data``, stored in ``cache`` under ``key`` (the cache emptied first when full)."""
    if len(cache) >= _MAX_CACHED:
        cache.clear()
    cache[key] = data
    return data


class ByIdentity:
    """Bytes by the ``id`` of an object, which the cache keeps alive so that no other object can take its id
    while the entry lives: a hit is that very object, with no comparison. Cheaper than a key by value where
    hashing the object is a Python call (a dataclass's hash, a card's within), and right where the same
    objects come back: the engine interns its legal actions, and a game holds one ``Rules`` for its life.
    Emptied when full (then it only costs the objects' bytes again). Not for threads: filling and emptying
    are two steps each, and the server writes views on its event loop only."""

    __slots__ = ("_bytes", "_kept", "get")

    def __init__(self) -> None:
        self._bytes: dict[int, bytes] = {}
        self._kept: list[object] = []
        self.get = self._bytes.get
        """The bytes of an object by its ``id``; None when not cached."""

    def put(self, thing: object, data: bytes) -> bytes:
        if len(self._kept) >= _MAX_CACHED:
            self._bytes.clear()
            self._kept.clear()
        self._bytes[id(thing)] = data
        self._kept.append(thing)
        return data


_RULES_BY_ID: Final = ByIdentity()
"""The ``rules`` field by the rules object."""


@functools.lru_cache(maxsize=256)
def _rules_by_value(rules: Rules) -> bytes:
    """Equal rules (tables created alike) share their bytes, serialized by the codec."""
    return wire.message_field(_RULES, codec.rules_to_proto(rules).SerializeToString())


def _rules_field(rules: Rules) -> bytes:
    return _RULES_BY_ID.get(id(rules)) or _RULES_BY_ID.put(rules, _rules_by_value(rules))


_ACTIONS_BY_ID: Final = ByIdentity()
"""Each legal action as a ``legal_actions`` field, by the action object (serialized by the codec)."""


def _action_field(action: Action) -> bytes:
    data = wire.message_field(_LEGAL_ACTIONS, codec.action_message(action).SerializeToString())
    return _ACTIONS_BY_ID.put(action, data)


_AUCTION_ENTRIES: dict[tuple[int, int | None], bytes] = {}
"""Each auction entry (seat, bid or None for a pass) as an ``auction`` field: a few hundred at most."""


def _auction_entry(entry: tuple[int, int | None]) -> bytes:
    data = _AUCTION_ENTRIES.get(entry)
    if data is None:
        seat, bid = entry
        payload = _int(_ENTRY_SEAT_FIELDS, _ENTRY_SEAT, seat)
        if bid is not None:
            payload += wire.int_field(_ENTRY_BID, bid)
        data = _kept(_AUCTION_ENTRIES, entry, wire.message_field(_AUCTION, payload))
    return data


# --------------------------------------------------------------------------------------------------- the rest


_EXCHANGES: dict[tuple[int, int | None, Card | None], bytes] = {}
"""Each exchange entry seen (giver, receiver, card or None) as an ``exchange`` field: a few hundred."""


def _exchange(exchange: Exchange) -> bytes:
    key = (exchange.giver, exchange.to, exchange.card)
    data = _EXCHANGES.get(key)
    if data is None:
        payload = _int(_GIVER_FIELDS, _EXCHANGE_GIVER, exchange.giver)
        if exchange.to is not None:
            payload += wire.int_field(_EXCHANGE_TO_SEAT, exchange.to)
        if exchange.card is not None:
            payload += wire.message_field(_EXCHANGE_CARD, _CARD_PAYLOADS[exchange.card.index])
        data = _kept(_EXCHANGES, key, wire.message_field(_EXCHANGE, payload))
    return data


def _marriage(seat: int, suit: Suit) -> bytes:
    payload = _int(_MARRIAGE_SEAT_FIELDS, _MARRIAGE_SEAT, seat) + _MARRIAGE_SUIT_FIELDS[suit]
    return wire.message_field(_MARRIAGES, payload)


def _implicit_int(number: int, value: int) -> bytes:
    return wire.int_field(number, value) if value else b""


_SCORE_KEY: Final = attrgetter(
    "seat", "score", "bolts", "on_barrel", "barrel_deals", "barrel_visits", "falls"
)
"""A seat's score line as a plain tuple (read in C): the key of :data:`_SEAT_SCORES`."""
_SEAT_SCORES: dict[tuple[int, int, int, bool, int, int, int], bytes] = {}
"""Each score line seen as a ``scores`` field: the lines change once a deal, and every view carries them."""


def _seat_score(line: tuple[int, int, int, bool, int, int, int]) -> bytes:
    seat, score, bolts, on_barrel, barrel_deals, barrel_visits, falls = line
    deals, visits, fell = _SCORE_SMALL_FIELDS
    payload = b"".join(
        (
            _int(_SCORE_SEAT_FIELDS, _SCORE_SEAT, seat),
            _implicit_int(_SCORE_SCORE, score),
            _int(_BOLTS_FIELDS, _SCORE_BOLTS, bolts),
            _ON_BARREL_FIELD if on_barrel else b"",
            _int(deals, _SCORE_BARREL_DEALS, barrel_deals),
            _int(visits, _SCORE_BARREL_VISITS, barrel_visits),
            _int(fell, _SCORE_FALLS, falls),
        )
    )
    return _kept(_SEAT_SCORES, line, wire.message_field(_SCORES, payload))


_PACKED: dict[tuple[int, tuple[int, ...]], bytes] = {}
"""Each packed list seen (the seats in play, card and trick counts, points), with its field number."""


def _packed(number: int, values: tuple[int, ...]) -> bytes:
    key = (number, values)
    data = _PACKED.get(key)
    if data is None:
        data = _kept(_PACKED, key, wire.packed_field(number, values))
    return data


def _standing(s: Standing) -> bytes:
    payload = b"".join(
        (
            _implicit_int(_STANDING_SEAT, s.seat),
            _implicit_int(_STANDING_PLACE, s.place),
            _implicit_int(_STANDING_SCORE, s.score),
            _implicit_int(_STANDING_PAYOUT, s.payout),
        )
    )
    return wire.message_field(_STANDINGS, payload)


# --------------------------------------------------------------------------------------------------- the view


def view_bytes(view: View) -> bytes:
    """``view`` as a serialized ``ThousandView``: ``codec.view_to_proto(view).SerializeToString()``, byte for
    byte, in a fraction of the time. Fields in field-number order, each left out as protobuf leaves it out:
    an unset optional (None), a non-optional 0 or False, an empty repeated field."""
    parts: list[bytes] = []
    add = parts.append
    if view.viewer is not None:
        add(_int(_VIEWER_FIELDS, _VIEWER, view.viewer))
    add(_RULES_BY_ID.get(id(view.rules)) or _rules_field(view.rules))
    if view.deal_number:
        add(_int(_DEAL_NUMBER_FIELDS, _DEAL_NUMBER, view.deal_number))
    if view.dealer:
        add(_int(_DEALER_FIELDS, _DEALER, view.dealer))
    if view.kind is not None:
        add(_KIND_FIELDS[view.kind])
    if view.phase is not None:
        add(_PHASE_FIELDS[view.phase])
    if view.active:
        add(_packed(_ACTIVE, view.active))
    if view.sitter is not None:
        add(_int(_SITTER_FIELDS, _SITTER, view.sitter))
    if view.hand:
        add(_cards(_HAND_CARDS, view.hand))
    if view.card_counts:
        add(_packed(_CARD_COUNTS, view.card_counts))
    if view.auction:
        entries = _AUCTION_ENTRIES.get
        parts += [entries(entry) or _auction_entry(entry) for entry in view.auction]
    if view.high_bid is not None:
        add(wire.int_field(_HIGH_BID, view.high_bid))
    if view.high_bidder is not None:
        add(_int(_HIGH_BIDDER_FIELDS, _HIGH_BIDDER, view.high_bidder))
    if view.dark_seat is not None:
        add(_int(_DARK_SEAT_FIELDS, _DARK_SEAT, view.dark_seat))
    if view.declarer is not None:
        add(_int(_DECLARER_FIELDS, _DECLARER, view.declarer))
    if view.bid is not None:
        add(wire.int_field(_BID, view.bid))
    if view.contract is not None:
        add(wire.int_field(_CONTRACT, view.contract))
    if view.doubled:
        add(_DOUBLED_FIELD)
    if view.talon:
        add(_cards(_TALON_CARDS, view.talon))
    if view.talon_counts:
        add(_packed(_TALON_COUNTS, view.talon_counts))
    if view.exchange:
        parts += [_exchange(x) for x in view.exchange]
    if view.trick:
        add(_plays(_TRICK_PLAYS, _TRICK, view.trick))
    if view.trump is not None:
        add(_TRUMP_FIELDS[view.trump])
    if view.marriages:
        parts += [_marriage(seat, suit) for seat, suit in view.marriages]
    if view.tricks_won:
        add(_packed(_TRICKS_WON, view.tricks_won))
    if view.trick_points:
        add(_packed(_TRICK_POINTS, view.trick_points))
    if view.scores:
        lines = _SEAT_SCORES.get
        parts += [lines(line) or _seat_score(line) for line in map(_SCORE_KEY, view.scores)]
    if view.to_act is not None:
        add(_int(_TO_ACT_FIELDS, _TO_ACT, view.to_act))
    if view.legal_actions:
        actions = _ACTIONS_BY_ID.get
        parts += [actions(id(action)) or _action_field(action) for action in view.legal_actions]
    if view.revealed_hands:
        parts += [
            wire.message_field(_REVEALED_HANDS, _cards(_LISTED_CARDS, hand)) for hand in view.revealed_hands
        ]
    if view.winner is not None:
        add(_int(_WINNER_FIELDS, _WINNER, view.winner))
    if view.standings:
        parts += [_standing(s) for s in view.standings]
    if view.tricks:
        parts += [_taken_trick(t) for t in view.tricks]
    return b"".join(parts)
