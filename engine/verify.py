"""Verifiable deals: every deal is committed to before a card is seen, and can be checked once revealed.

When a deal starts, :class:`~engine.events.DeckShuffled` carries a commitment: the SHA-256 (hex) of the text

    thousand.deal.v1|<salt>|<deal seed, or nothing>|<the 24 cards in dealing order>

with cards written rank then suit letter (``9S JC QD KH 10S AS``: ranks 9 J Q K 10 A, suits S C D H). When the
deal is over, :class:`~engine.events.DealRevealed` discloses the order, the salt and, on a seeded table, the
deal seed. Any client then recomputes the hash: if it matches, the deal was fixed before it began and never
changed. The salt, a secret until then, keeps anyone from guessing the order from the commitment. With a deal
seed, a client can also check the order came from it (:func:`order_from_seed`: CPython's
``random.Random(seed)`` shuffle); whoever knows a seeded table's seed knows its deals, which is why such a
table is marked seeded.

On a fair table (``thousand.fair.v1``, :mod:`engine.seeds`) the salt is the deal's secret and the revealed
deal lists every seat's seed: a seat checks that its own seed is there, that the deal's secret and the seeds
give the order, that the order cut into hands gives the cards it was dealt, and at the game's end (GameOver
discloses the table's secret) that the secret matches the commitment it read before taking its seat and
that every deal's secret derives from it. :class:`DealChecker` does all of it from a seat's events, for
either game (:class:`Scheme`; 1000 Blagogo's is :data:`engine.blagogo.verify.BLAGOGO`).
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

from engine.cards import CARDS, Card
from engine.events import DealRevealed, DealStarted, DeckShuffled, GameOver, HandDealt
from engine.seeds import (
    FAIR_SCHEME,
    fair_deal_secret,
    fair_mix,
    fair_shuffle,
    shuffle_from_key,
    table_commitment,
)

FORMAT = "thousand.deal.v1"


def card_code(card: Card) -> str:
    return f"{card.rank.label}{card.suit.letter}"


def commitment_of(prefix: str, salt: str, deal_seed: int | None, codes: Iterable[str]) -> str:
    """The commitment text ``<prefix>|<salt>|<seed or nothing>|<codes>`` hashed (either game's format)."""
    seed = "" if deal_seed is None else str(deal_seed)
    return hashlib.sha256(f"{prefix}|{salt}|{seed}|{' '.join(codes)}".encode()).hexdigest()


def commitment(salt: str, deal_seed: int | None, order: Iterable[Card]) -> str:
    """A Thousand deal's commitment."""
    return commitment_of(FORMAT, salt, deal_seed, (card_code(c) for c in order))


def order_from_seed(deal_seed: int) -> tuple[Card, ...]:
    return shuffle_from_key(deal_seed).order


@dataclass(frozen=True, slots=True)
class Revealed:
    """A revealed deal (or round), as the checker reads it from either game's event."""

    number: int
    order: tuple[Any, ...]
    hands: tuple[tuple[Any, ...], ...]
    """Each seat's cards as dealt, indexed by seat."""
    talons: tuple[tuple[Any, ...], ...]
    salt: str
    deal_seed: int | None
    client_seeds: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class Scheme:
    """What the checker needs of one game: its name and deck, its commitment, and how to read its events."""

    game: str
    """The name fair_mix takes ("thousand", "blagogo")."""
    deck: tuple[Any, ...]
    """The cards in the canonical order a fair shuffle starts from."""
    commitment: Callable[[str, int | None, Sequence[Any]], str]
    seeded_order: Callable[[int], tuple[Any, ...]] | None
    """The order a seeded deal's key gives; None for a game whose seeded deals reveal no key."""
    started: Callable[[object], int | None]
    """The number of a deal's first event (which :attr:`blocks` reads)."""
    blocks: Callable[[object, Revealed], list[tuple[Any, ...]]]
    """What the order is cut into, in dealing order (each hand, then the talons), from the deal's first event
    and its reveal."""
    shuffled: Callable[[object], tuple[int, str] | None]
    """(number, commitment) of the chance step; a commitment of "" means none was sent."""
    dealt: Callable[[object], tuple[int, tuple[Any, ...]] | None]
    """(seat, cards) of a hand as this seat was dealt it (None when the cards are not shown)."""
    revealed: Callable[[object], Revealed | None]
    over: Callable[[object], str | None]
    """The table secret the game's end discloses ("" on a seeded table)."""
    unit: str = "deal"
    """What the game calls a deal, in the checker's lines ("round" for 1000 Blagogo)."""


@dataclass(frozen=True, slots=True)
class EventReaders:
    """The four readers every game's events answer alike, built from the game's event classes (both games'
    classes carry the same fields): :attr:`Scheme.started`, ``shuffled``, ``dealt`` and ``over``."""

    started: Callable[[object], int | None]
    shuffled: Callable[[object], tuple[int, str] | None]
    dealt: Callable[[object], tuple[int, tuple[Any, ...]] | None]
    over: Callable[[object], str | None]


def event_readers(started: type[Any], shuffled: type[Any], dealt: type[Any], over: type[Any]) -> EventReaders:
    """Readers of a game whose deal (round) starts with ``started`` (``number``), whose chance step is
    ``shuffled`` (``number``, ``commitment``), whose hands are ``dealt`` (``seat``, ``cards`` or None) and
    whose end is ``over`` (``table_secret``)."""

    def read_started(event: object) -> int | None:
        return int(event.number) if isinstance(event, started) else None

    def read_shuffled(event: object) -> tuple[int, str] | None:
        return (int(event.number), str(event.commitment)) if isinstance(event, shuffled) else None

    def read_dealt(event: object) -> tuple[int, tuple[Any, ...]] | None:
        if isinstance(event, dealt) and event.cards is not None:
            return int(event.seat), tuple(event.cards)
        return None

    def read_over(event: object) -> str | None:
        return str(event.table_secret) if isinstance(event, over) else None

    return EventReaders(read_started, read_shuffled, read_dealt, read_over)


def _blocks(start: object, revealed: Revealed) -> list[tuple[Any, ...]]:
    """T-4 to T-6: each active seat's hand in turn from the dealer's left, then the talons."""
    assert isinstance(start, DealStarted)
    hands = revealed.hands
    return [hands[s] if 0 <= s < len(hands) else () for s in start.active] + list(revealed.talons)


def _revealed(event: object) -> Revealed | None:
    if not isinstance(event, DealRevealed):
        return None
    e = event
    return Revealed(e.number, e.order, e.hands, e.talons, e.salt, e.deal_seed, e.client_seeds)


_READERS = event_readers(DealStarted, DeckShuffled, HandDealt, GameOver)
THOUSAND = Scheme(
    "thousand",
    CARDS,
    commitment,
    order_from_seed,
    _READERS.started,
    _blocks,
    _READERS.shuffled,
    _READERS.dealt,
    _revealed,
    _READERS.over,
)


@dataclass(frozen=True, slots=True)
class Witness:
    """What a seat itself knows of a fair table, to check the deals against: the commitment it read before
    taking its seat (Table.fairness.commitment) and the seed it sent (JoinTableRequest.client_seed).

    A spectator, or a seat that gave no seed, has ``seat`` None: everything else is still checked."""

    commitment: str
    seat: int | None = None
    client_seed: str = ""
    joined_at: int | None = None
    """The table's sequence number in JoinTable's reply, when the checker is given sequence numbers: the
    seat's seed is in the deals revealed after it that started after the seat's own SeatTaken event (the
    last one for its seat up to then), not in those of an earlier player of the seat. None: in every deal."""


def _holds_seed(witness: Witness | None, started_at: int | None, revealed_at: int | None, taken: int) -> bool:
    """Whether a deal started at ``started_at`` and revealed at ``revealed_at`` was dealt with the seat's own
    seed, the seat's SeatTaken event being at ``taken`` (-1: not seen)."""
    if witness is None or witness.seat is None:
        return False
    joined = witness.joined_at
    if joined is None or started_at is None or revealed_at is None:
        return True
    if revealed_at <= joined:
        return False  # over before the join was: no deal of the seat's new player ends within the join
    return started_at > joined or started_at > taken >= 0


@dataclass
class _Deal:
    number: int
    start: object = None
    """The deal's first event (DealStarted), when it was seen."""
    commitment: str = ""
    mine: tuple[Any, ...] | None = None
    started_at: int | None = None
    """The sequence number of its first event, when the checker is given them."""


def problem(
    shuffled: DeckShuffled,
    revealed: DealRevealed,
    witness: Witness | None = None,
    started: DealStarted | None = None,
) -> str | None:
    """Why a revealed Thousand deal does not match its commitment (and, with ``witness``, the fair scheme),
    or None when it does; ``started``: the deal's DealStarted, to check the hands against the order."""
    deal = _Deal(shuffled.number, started, shuffled.commitment)
    found = _revealed(revealed)
    assert found is not None
    return _problem(THOUSAND, deal, found, witness, own_seed=witness is not None and witness.seat is not None)


def _problem(
    scheme: Scheme, deal: _Deal, revealed: Revealed, witness: Witness | None, *, own_seed: bool
) -> str | None:
    """Why a revealed deal fails; ``own_seed``: whether the seat's own seed must be among its seeds."""
    number, unit = revealed.number, scheme.unit
    if deal.number != number:
        return f"{unit} {number} was revealed against the commitment of {unit} {deal.number}"
    if scheme.commitment(revealed.salt, revealed.deal_seed, revealed.order) != deal.commitment:
        return f"{unit} {number}: the revealed order does not match the commitment"
    if len(revealed.order) != len(scheme.deck) or set(revealed.order) != set(scheme.deck):
        return f"{unit} {number}: the revealed order is not the deck, each card once"
    if deal.start is not None and _cut(scheme.blocks(deal.start, revealed), revealed.order):
        return f"{unit} {number}: the revealed hands are not the order dealt out"
    if deal.mine is not None and witness is not None and witness.seat is not None:
        hands = revealed.hands
        if witness.seat >= len(hands) or set(hands[witness.seat]) != set(deal.mine):
            return f"{unit} {number}: the revealed hands are not the cards you were dealt"
    if witness is None or not witness.commitment:
        key, seeded = revealed.deal_seed, scheme.seeded_order
        if key is not None and seeded is not None and seeded(key) != revealed.order:
            return f"{unit} {number}: the order is not the one its seed gives"
        return None
    return _fair_problem(scheme, revealed, witness, own_seed)


def _cut(blocks: list[tuple[Any, ...]], order: tuple[Any, ...]) -> bool:
    """Whether the order, cut in turn into ``blocks``' sizes, fails to give each block's cards."""
    at = 0
    for block in blocks:
        if set(order[at : at + len(block)]) != set(block):
            return True
        at += len(block)
    return False


def _fair_problem(scheme: Scheme, revealed: Revealed, witness: Witness, own_seed: bool) -> str | None:
    number, seeds, unit = revealed.number, revealed.client_seeds, scheme.unit
    if revealed.deal_seed is not None:
        return f"{unit} {number}: a fair deal came with a seed"
    seat = witness.seat
    if own_seed and seat is not None and (seat >= len(seeds) or seeds[seat] != witness.client_seed):
        return f"{unit} {number}: your seed is not the one the deal was dealt from"
    try:
        secret = bytes.fromhex(revealed.salt)
    except ValueError:
        return f"{unit} {number}: the deal's secret is not hex"
    if len(secret) != 32:
        return f"{unit} {number}: the deal's secret is not 32 bytes"
    if fair_shuffle(scheme.deck, fair_mix(scheme.game, secret, number, seeds)) != revealed.order:
        return f"{unit} {number}: the order is not the one the deal's secret and the seats' seeds give"
    return None


@dataclass
class DealChecker:
    """Feed it a seat's events in order; it checks every revealed deal against its commitment and, given a
    :class:`Witness`, against the fair scheme, and at the game's end the table's secret."""

    witness: Witness | None = None
    scheme: Scheme = THOUSAND
    verified: list[int] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)
    secret_checked: bool = False
    """Whether the table's secret was disclosed and matched (a fair table's game is over)."""
    _deal: _Deal | None = None
    _pending: dict[int, _Deal] = field(default_factory=dict)
    _salts: dict[int, str] = field(default_factory=dict)
    _taken: int = -1
    """The sequence number of the seat's own SeatTaken event (-1: not seen)."""

    @property
    def fair(self) -> bool:
        return self.witness is not None and bool(self.witness.commitment)

    def seat_taken(self, seat: int, sequence: int) -> None:
        """A SeatTaken event (a table event, not the game's): the seat's own tells from which deal on the
        seat's seed is in the deals (see :attr:`Witness.joined_at`)."""
        witness = self.witness
        if witness is None or seat != witness.seat:
            return
        if witness.joined_at is None or sequence <= witness.joined_at:
            self._taken = sequence

    def see(self, event: object, sequence: int | None = None) -> str | None:
        """Take one event (with its sequence number, when known); returns a line to show when a deal (or
        the table's secret) was just checked."""
        scheme = self.scheme
        if (started := scheme.started(event)) is not None:
            self._deal = _Deal(started, event, started_at=sequence)
        elif (shuffled := scheme.shuffled(event)) is not None:
            deal = self._deal if self._deal is not None and self._deal.number == shuffled[0] else None
            deal = deal or _Deal(shuffled[0])
            deal.commitment = shuffled[1]
            self._pending[deal.number] = deal
        elif (dealt := scheme.dealt(event)) is not None:
            deal = self._deal
            if deal is not None and self.witness is not None and dealt[0] == self.witness.seat:
                deal.mine = dealt[1]
        elif (revealed := scheme.revealed(event)) is not None:
            return self._check(revealed, sequence)
        elif (secret := scheme.over(event)) is not None and self.fair:
            return self._check_secret(secret)
        return None

    def _check(self, revealed: Revealed, sequence: int | None) -> str | None:
        unit = self.scheme.unit
        deal = self._pending.pop(revealed.number, None)
        if deal is None or (not deal.commitment and not self.fair):
            return None  # joined mid-deal: the commitment was never seen (or a game that sends none)
        mine = _holds_seed(self.witness, deal.started_at, sequence, self._taken)
        trouble = _problem(self.scheme, deal, revealed, self.witness, own_seed=mine)
        if trouble is not None:
            return self._fail(trouble)
        self.verified.append(revealed.number)
        if not self.fair:
            return f"{unit} {revealed.number} verified against its commitment"
        self._salts[revealed.number] = revealed.salt
        yours = " (yours included)" if mine else ""
        return (
            f"{unit} {revealed.number} verified: committed before it was dealt, and its secret with the"
            f" {len(revealed.client_seeds)} seats' seeds{yours} gives the cards dealt"
        )

    def _check_secret(self, secret: str) -> str:
        witness = self.witness
        assert witness is not None
        try:
            raw = bytes.fromhex(secret)
        except ValueError:
            raw = b""
        if not secret or table_commitment(raw) != witness.commitment:
            return self._fail("the table's secret does not match the commitment published before the game")
        unit = self.scheme.unit
        for number, salt in sorted(self._salts.items()):
            if fair_deal_secret(raw, number).hex() != salt:
                return self._fail(f"{unit} {number}'s secret does not derive from the table's secret")
        self.secret_checked = True
        return (
            f"the table's secret matches its commitment ({FAIR_SCHEME}): the {len(self._salts)} {unit}s"
            " checked were fixed before any seat was taken"
        )

    def _fail(self, trouble: str) -> str:
        self.problems.append(trouble)
        return f"FAILED verification: {trouble}"
