"""Keys derived from a game's seed: one independent 64-bit key per use (a deal, a round, the dealer choice).

Both games derive their chance this way, each under its own namespace, so no two uses of one seed share a
random stream and no game's keys collide with another's. Thousand's deals are derived here in full (the key,
the salt and the shuffle of each deal), so that :mod:`engine.game`, which deals them, and
:mod:`engine.verify`, which checks a revealed deal against its seed, both depend on this module and not on
each other.
"""

from __future__ import annotations

import hashlib
import random
from typing import Final

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
