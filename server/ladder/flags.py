"""The ladder's flags (``--ladder`` and ``--ladder-per-move``, ``--ladder-reference-sets``,
``--ladder-max-same``, ``--ladder-references``, ``--ladder-seed``): what ``thousand-server`` adds to its
command line for the bots' ladder, their checks, and the reference bots they name (:func:`references_of`).
A module of its own so that the server's settings (:mod:`server.settings`) stay one module an operator reads,
and the ladder (:mod:`server.ladder.ladder`) reads its default references without the server's settings.
"""

from __future__ import annotations

import argparse
from typing import Final

LADDER_REFERENCES: Final = "thousand=random,greedy,heuristic,ismcts,expert blagogo=random,heuristic,planner"
"""Each ladder game's reference bots by default (``--ladder-references``): every strategy the game's registry
ships, each at the registry's one budget (StrategyOptions' 50 ms of search a decision for the searching
ones, within the ladder's clock), so that the scale runs from random to the strongest."""


def add_ladder_arguments(
    parser: argparse.ArgumentParser,
    env: dict[str, str],
    *,
    per_move: float,
    reference_sets: int,
    max_same: int,
    references: str,
) -> None:
    """The ladder's flags, each defaulting to its ``THOUSAND_`` variable, else to the value given."""
    parser.add_argument(
        "--ladder",
        action="store_true",
        default=env.get("THOUSAND_LADDER", "") not in ("", "0"),
        help="run the bots' ladder (scheduling sets of registered and reference bots, rating them)",
    )
    parser.add_argument(
        "--ladder-per-move",
        type=float,
        default=float(env.get("THOUSAND_LADDER_PER_MOVE", per_move)),
        help="seconds every ladder decision has",
    )
    parser.add_argument(
        "--ladder-reference-sets",
        type=int,
        default=int(env.get("THOUSAND_LADDER_REFERENCE_SETS", reference_sets)),
        help="sets of reference bots only a ladder pool plays at once",
    )
    parser.add_argument(
        "--ladder-max-same",
        type=int,
        default=int(env.get("THOUSAND_LADDER_MAX_SAME", max_same)),
        help="sets one ladder pairing may start within a day",
    )
    parser.add_argument(
        "--ladder-references",
        default=env.get("THOUSAND_LADDER_REFERENCES", references),
        help="each ladder game's reference bots: game=strategy,... joined by spaces (the games offered)",
    )
    parser.add_argument(
        "--ladder-seed",
        type=int,
        default=int(env["THOUSAND_LADDER_SEED"]) if env.get("THOUSAND_LADDER_SEED") else None,
        help="seed of the ladder's pairing draws (tests); unset: the system's generator",
    )


def check_ladder_arguments(parser: argparse.ArgumentParser, args: argparse.Namespace) -> None:
    """The ladder's flags' values in range (``parser.error`` otherwise: the usage and exit status 2);
    ``--ladder-reference-sets`` is checked with the server's other counts, 0 or more."""
    if not 0.01 <= args.ladder_per_move <= 600:
        parser.error("--ladder-per-move must be 0.01 to 600 seconds")
    try:
        references_of(args.ladder_references)
    except ValueError as error:
        parser.error(f"--ladder-references: {error}")
    if args.ladder_max_same < 1:
        parser.error("--ladder-max-same must be 1 or more")


def references_of(text: str) -> dict[str, tuple[str, ...]]:
    """``--ladder-references`` read: each game's reference strategies (ValueError for a game or strategy
    the server does not know, or fewer than one)."""
    from bots.registry import strategies_for  # noqa: PLC0415  # the settings module stays light to import

    found: dict[str, tuple[str, ...]] = {}
    for part in text.split():
        game, _, names = part.partition("=")
        game = game.strip()
        if game not in ("thousand", "blagogo"):
            raise ValueError(f"no game {game!r} (thousand, blagogo)")
        strategies = tuple(n.strip() for n in names.split(",") if n.strip())
        unknown = [n for n in strategies if n not in strategies_for(game)]
        if unknown or not strategies:
            raise ValueError(f"{game}: unknown strategy {unknown[0] if unknown else '(none)'}")
        found[game] = strategies
    if not found:
        raise ValueError("no game")
    return found
