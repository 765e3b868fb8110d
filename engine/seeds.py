"""Where the games' chance comes from: a seed, or a fair table's secret and its seats' seeds.

A seeded game derives one independent 64-bit key per use (a deal, a round, the dealer choice) from its seed,
each game under its own namespace, so no two uses of one seed share a random stream and no game's keys
collide with another's. Whoever knows the seed knows every card: that is for practice, tests and replays.

A fair game (:class:`FairDeals`, scheme ``thousand.fair.v1``) deals from a secret the server drew and
committed to before any seat was taken, mixed with every seat's own seed and the deal's number, so that no
one party can choose or predict a deal and every seat can check each one (:mod:`engine.verify`).

Thousand's deals are derived here in full (the key, the salt and the shuffle of each deal), so that
:mod:`engine.game`, which deals them, and :mod:`engine.verify`, which checks a revealed deal, both depend on
this module and not on each other.
"""

from __future__ import annotations

import hashlib
import hmac
import random
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Final, TypeVar

from engine.actions import Shuffle
from engine.cards import CARDS


def derive_key(namespace: str, seed: int, label: str) -> int:
    """The key for ``label`` under ``namespace`` ("thousand", "blagogo") of the game seeded with ``seed``."""
    digest = hashlib.sha256(f"{namespace}:{seed}:{label}".encode()).digest()
    return int.from_bytes(digest[:8], "big")


# ---------------------------------------------------------------------- Thousand's deals


def derive_seed(seed: int, label: str) -> int:
    """A 64-bit key for one use of a Thousand seed, so deals and the dealer choice never share a stream."""
    return derive_key("thousand", seed, label)


_SHUFFLE_STEPS: Final = tuple((i, i + 1, (i + 1).bit_length()) for i in reversed(range(1, len(CARDS))))
"""(position, bound, bits) of each swap of a Fisher-Yates shuffle of the deck."""


def seeded_shuffle(seed: int, deal_number: int) -> Shuffle:
    """The deal's deck order, from the game's seed and the deal's number."""
    return shuffle_from_key(deal_key(seed, deal_number))


def deal_key(seed: int, deal_number: int) -> int:
    """The key one deal is shuffled from; revealed with the deal (:class:`~engine.events.DealRevealed`)."""
    return derive_seed(seed, f"deal:{deal_number}")


def deal_salt(seed: int, deal_number: int) -> str:
    """The secret that keeps a deal's commitment unguessable until the deal is revealed (128 bits, hex)."""
    return hashlib.sha256(f"thousand:{seed}:salt:{deal_number}".encode()).hexdigest()[:32]


def shuffle_from_key(key: int) -> Shuffle:
    """The deck order of a deal key: ``random.Random(key).shuffle`` of the deck, spelled out.

    This is CPython's ``Random.shuffle`` and ``Random._randbelow`` inlined (a swap per position from the
    top, each index drawn with ``getrandbits`` and rejection), so it gives the same order draw for draw
    without a method call per card, and the engine's deals no longer depend on how a Python version
    implements ``shuffle``.
    """
    order = list(CARDS)
    getrandbits = random.Random(key).getrandbits
    for i, bound, bits in _SHUFFLE_STEPS:
        j = getrandbits(bits)
        while j >= bound:
            j = getrandbits(bits)
        order[i], order[j] = order[j], order[i]
    return Shuffle(tuple(order))


# ---------------------------------------------------------------------- fair deals (thousand.fair.v1)
#
# A table that is not seeded deals from a secret of its own and its seats' seeds (docs/protocol.md,
# "Verifiable deals"). Every step is SHA-256 or HMAC-SHA256 over UTF-8 text, so that a client in any language
# can redo it; engine.verify checks a seat's view of it.

FAIR_SCHEME: Final = "thousand.fair.v1"
SECRET_BYTES: Final = 32
"""The table's secret: 32 bytes from the operating system's generator (drawn by the server, not here)."""
SEED_MIN: Final = 16
SEED_MAX: Final = 128
_SEED_ALPHABET: Final = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_")

T = TypeVar("T")


def valid_client_seed(seed: str) -> bool:
    """Whether a seat's seed is one the scheme takes: 16 to 128 characters of A-Z a-z 0-9 - _ (so that the
    text the seeds are joined into, with "|", reads back one way only)."""
    return SEED_MIN <= len(seed) <= SEED_MAX and all(c in _SEED_ALPHABET for c in seed)


def table_commitment(secret: bytes) -> str:
    """What the table publishes before any seat is taken: the SHA-256 (hex) of its secret."""
    return hashlib.sha256(secret).hexdigest()


def fair_deal_secret(secret: bytes, number: int) -> bytes:
    """Deal ``number``'s secret, revealed with the deal: HMAC-SHA256 under the table's secret, so revealing it
    tells nothing of the next deal's, and the table's secret (revealed at the game's end) proves each."""
    return hmac.new(secret, f"{FAIR_SCHEME}|deal|{number}".encode(), hashlib.sha256).digest()


def fair_mix(game: str, deal_secret: bytes, number: int, seeds: Sequence[str]) -> bytes:
    """The 32 bytes deal ``number`` of ``game`` ("thousand", "blagogo") is shuffled from: the deal's secret
    keyed over every seat's seed in seat order ("" for none), so that no one input alone decides it."""
    text = "|".join((FAIR_SCHEME, game, str(number), *seeds))
    return hmac.new(deal_secret, text.encode(), hashlib.sha256).digest()


def fair_shuffle(deck: Sequence[T], mix: bytes) -> tuple[T, ...]:
    """``deck`` (in its canonical order) shuffled from ``mix``: a Fisher-Yates shuffle from the last position
    down, position i swapping with j uniform in [0, i], each j drawn from the byte stream SHA-256(mix ||
    block), block a 4-byte big-endian counter from 0, read 4 bytes at a time as a big-endian integer x and
    taken as x mod (i + 1) unless x falls in the incomplete last interval (then the next 4 bytes)."""
    order = list(deck)
    stream = b""
    block = 0
    at = 0
    for i in range(len(order) - 1, 0, -1):
        bound = i + 1
        limit = (1 << 32) - (1 << 32) % bound
        while True:
            if at + 4 > len(stream):
                stream = stream[at:] + hashlib.sha256(mix + block.to_bytes(4, "big")).digest()
                block += 1
                at = 0
            x = int.from_bytes(stream[at : at + 4], "big")
            at += 4
            if x < limit:
                break
        j = x % bound
        order[i], order[j] = order[j], order[i]
    return tuple(order)


@dataclass(frozen=True, slots=True)
class FairDeal:
    """One fair deal: what it is shuffled from (:func:`fair_shuffle` of the game's deck) and what is revealed
    with it."""

    mix: bytes
    salt: str
    """The deal's secret (hex): it keeps the deal's commitment unguessable and, revealed, gives the order."""
    client_seeds: tuple[str, ...]


class FairDeals:
    """Where a fair table's deals come from: the table's secret and the seed each seat holds now.

    The table sets a seat's seed when a player takes the seat (and clears it when they leave); each deal
    takes the seeds held when it is dealt.
    """

    __slots__ = ("_held", "dealt", "game", "secret", "seeds")

    def __init__(self, game: str, secret: bytes, players: int) -> None:
        if len(secret) != SECRET_BYTES:
            raise ValueError(f"a table's secret is {SECRET_BYTES} bytes, not {len(secret)}")
        self.game = game
        self.secret = secret
        self.seeds: list[str] = [""] * players
        """Each seat's seed now; set through :meth:`seat`."""
        self.dealt: list[tuple[str, ...]] = []
        """The seeds each deal was dealt from, in order: what a game record needs to replay the game."""
        self._held: tuple[str, ...] = tuple(self.seeds)
        """The seeds as one tuple, made anew only when a seat's changes: the deals share it."""

    @property
    def commitment(self) -> str:
        return table_commitment(self.secret)

    def seat(self, seat: int, seed: str) -> None:
        """The seed the player now in ``seat`` gave ("" for none, or for a seat left free)."""
        if seed and not valid_client_seed(seed):
            raise ValueError(f"seat {seat}: a client seed is {SEED_MIN} to {SEED_MAX} of A-Z a-z 0-9 - _")
        self.seeds[seat] = seed
        self._held = tuple(self.seeds)

    def copy(self) -> FairDeals:
        """An independent copy (the secret and seeds shared, the list of dealt seeds not), for
        :meth:`engine.Game.copy`: a copy that deals must not write its deals into the original's record."""
        twin = FairDeals(self.game, self.secret, len(self.seeds))
        twin.seeds = self.seeds.copy()
        twin._held = self._held
        twin.dealt = self.dealt.copy()
        return twin

    def deal(self, number: int) -> FairDeal:
        """Deal ``number`` from the seeds held now (the game notes the ones it deals: :attr:`dealt`)."""
        secret = fair_deal_secret(self.secret, number)
        seeds = self._held
        return FairDeal(fair_mix(self.game, secret, number, seeds), secret.hex(), seeds)
