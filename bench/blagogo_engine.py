"""The 1000 Blagogo engine benchmark: random rounds through the public API, per second.

Usage::

    python bench/blagogo_engine.py --seconds 10 [--players 4] [--seed 1]

Rounds are played through :class:`engine.blagogo.Game` as a server with bots would drive it:
``apply_chance()`` at a chance node, otherwise the seeded random player of :mod:`engine.blagogo.randomplay`
(``legal_actions()`` and ``candidate_melds()`` computed afresh at every decision, one weighted random choice)
and ``apply(seat, action)``. The rules are the defaults for the number of players.

The unit is the round played to its end (someone went out). A game is replaced by a fresh one when it ends.
Random play now and then reaches a dead round (every card left unplaceable, so nobody can go out; the rules
give it no end, see ``turnover_limit``): after :data:`MAX_ACTIONS_PER_ROUND` actions such a round is
abandoned with its game, counted as ``stalled`` and not as a round; its time still counts.

:func:`play_random_rounds` is the measurement; run as a script, the last line printed is one JSON object,
``{"rounds_per_s": ...}``, after a line with the details.
"""

from __future__ import annotations

import sys
from pathlib import Path

# Run as ``python bench/blagogo_engine.py``, Python puts bench/ first on sys.path, where bench/engine.py would
# shadow the ``engine`` package; measure the working tree's engine instead.
_BENCH_DIR = Path(__file__).resolve().parent
sys.path[:] = [p for p in sys.path if Path(p or ".").resolve() != _BENCH_DIR]
sys.path.insert(0, str(_BENCH_DIR.parent))

import argparse  # noqa: E402
import json  # noqa: E402
import random  # noqa: E402
import time  # noqa: E402
from dataclasses import asdict, dataclass  # noqa: E402

from engine.blagogo import BlagogoRules, Game  # noqa: E402
from engine.blagogo.randomplay import random_action  # noqa: E402

MAX_ACTIONS_PER_ROUND = 3000
"""A random round not over after this many actions is taken to be dead and abandoned (live random rounds
end within ~150 actions typically, ~2000 at the very most with 8 players)."""
WARMUP_SECONDS = 0.3


@dataclass(slots=True)
class Result:
    players: int
    seconds: float
    rounds: int
    """Rounds played to the end (someone went out)."""
    actions: int
    stalled: int
    """Dead rounds abandoned after MAX_ACTIONS_PER_ROUND actions."""
    games_finished: int
    rounds_per_s: float
    actions_per_s: float


def measure(seconds: float, players: int = 4, seed: int = 1) -> Result:
    """Play random rounds for about ``seconds`` (stopping at a round boundary) and count them."""
    rules = BlagogoRules(players=players)
    rng = random.Random(seed)
    game = Game(rules, rng.getrandbits(32))
    rounds = actions = stalled = finished = 0
    in_round = 0
    perf_counter = time.perf_counter
    start = perf_counter()
    deadline = start + seconds
    while True:
        if game.is_over or in_round >= MAX_ACTIONS_PER_ROUND:
            finished += game.is_over
            stalled += not game.is_over
            game = Game(rules, rng.getrandbits(32))
            in_round = 0
        if game.is_chance_node:
            if game.round is not None:
                rounds += 1
            if perf_counter() >= deadline:
                break
            game.apply_chance()
            in_round = 0
            continue
        seat = game.to_act
        assert seat is not None
        game.apply(seat, random_action(game, rng))
        actions += 1
        in_round += 1
    elapsed = perf_counter() - start
    return Result(
        players=players,
        seconds=round(elapsed, 3),
        rounds=rounds,
        actions=actions,
        stalled=stalled,
        games_finished=finished,
        rounds_per_s=round(rounds / elapsed, 1),
        actions_per_s=round(actions / elapsed, 1),
    )


def play_random_rounds(seconds: float, players: int = 4, seed: int = 1) -> float:
    """Random rounds of 1000 Blagogo played to the end per second, after a short warm-up."""
    measure(min(WARMUP_SECONDS, seconds), players, seed + 1)
    return measure(seconds, players, seed).rounds_per_s


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seconds", type=float, default=10.0)
    parser.add_argument("--players", type=int, default=4)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args(argv)
    measure(min(WARMUP_SECONDS, args.seconds), args.players, args.seed + 1)
    result = measure(args.seconds, args.players, args.seed)
    print(json.dumps({"blagogo": asdict(result)}))
    print(json.dumps({"rounds_per_s": result.rounds_per_s}))


if __name__ == "__main__":
    main()
