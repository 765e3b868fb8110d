"""A fingerprint of the engine's behaviour: one hash over seeded random games under many rule sets.

Everything a client can observe goes into it: the repr of every event, every legal list, every seat's and the
spectator's view at every step, and the reason and message of probe actions the engine rejects. Two builds of
the engine (interpreted, compiled by scripts/compiled_engine.py) are the same engine when their fingerprints
are equal; tests/test_compiled_engine.py compares them. Run it as a script to print the fingerprint.
"""

from __future__ import annotations

import hashlib
import random
import sys

from engine import (
    SPECTATOR,
    ActionError,
    Bid,
    BidCap,
    Game,
    NameContract,
    OpeningBid,
    PlayCard,
    Rules,
    TwoPlayerDeal,
    view,
)
from engine.cards import CARDS

RULE_SETS: tuple[Rules, ...] = (
    Rules(players=2),
    Rules(players=2, two_player_deal=TwoPlayerDeal.TEN_AND_TWO_TALONS_OF_2),
    Rules(players=3),
    Rules(players=3, golden_deals=True, dark=True),
    Rules(players=3, must_beat=True, marriage_on_first_trick=True, bid_cap=BidCap.NONE),
    Rules(players=3, opening_bid=OpeningBid.AT_LEAST_100, bid_step=10, round_defenders=False),
    Rules(players=4),
    Rules(players=4, golden_deals=True, samosval=False, obligatory_game=False),
)
STEPS_PER_GAME = 400
"""Steps (decisions and chance) per game: enough for several deals, scoring and a barrel now and then."""
_PROBES = (
    Bid(999),
    Bid(-5),
    NameContract(7),
    PlayCard(CARDS[0], True),
    PlayCard(CARDS[0], 1),  # type: ignore[arg-type]  # malformed on purpose: not a bool
    PlayCard(CARDS[0], "yes"),  # type: ignore[arg-type]
    PlayCard("x"),  # type: ignore[arg-type]
    "junk",
)
"""Actions the engine must reject at every turn, with the same reason in both builds (9♠ never declares a
marriage; the malformed ones met a TypeError in the compiled engine's play phase before its fields were read
untyped)."""


def fingerprint(games_per_rules: int = 6) -> str:
    """The hash of ``games_per_rules`` seeded random games under each of :data:`RULE_SETS`."""
    digest = hashlib.sha256()
    for index, rules in enumerate(RULE_SETS):
        for seed in range(games_per_rules):
            _play(rules, 1000 * index + seed, digest)
    return digest.hexdigest()


def _play(rules: Rules, seed: int, digest: hashlib._Hash) -> None:
    rng = random.Random(seed)
    game = Game(rules, seed)
    seen = 0
    for _ in range(STEPS_PER_GAME):
        if game.winner is not None:
            break
        if game.is_chance_node:
            game.apply_chance()
        else:
            seat = game.to_act
            legal = game.legal_actions()
            digest.update(repr((seat, legal)).encode())
            for probe in _PROBES:
                try:
                    game.apply(seat, probe)  # type: ignore[arg-type]  # "junk" on purpose
                except ActionError as error:
                    digest.update(f"{error.reason} {error}".encode())
                else:
                    digest.update(b"accepted " + repr(probe).encode())
            game.apply(seat, rng.choice(legal))
        for event in game.events[seen:]:
            digest.update(repr(event).encode())
        seen = len(game.events)
        for who in (*range(rules.players), SPECTATOR):
            digest.update(repr(view(game, who)).encode())


if __name__ == "__main__":
    print(fingerprint(int(sys.argv[1]) if len(sys.argv) > 1 else 6))
