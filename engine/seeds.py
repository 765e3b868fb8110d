"""Keys derived from a game's seed: one independent 64-bit key per use (a deal, a round, the dealer choice).

Both games derive their chance this way, each under its own namespace, so no two uses of one seed share a
random stream and no game's keys collide with another's.
"""

from __future__ import annotations

import hashlib


def derive_key(namespace: str, seed: int, label: str) -> int:
    """The key for ``label`` under ``namespace`` ("thousand", "blagogo") of the game seeded with ``seed``."""
    digest = hashlib.sha256(f"{namespace}:{seed}:{label}".encode()).digest()
    return int.from_bytes(digest[:8], "big")
