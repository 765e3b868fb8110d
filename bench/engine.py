"""The engine benchmark: random self-play through the public API, with OpenSpiel's skat as a yardstick.

Usage::

    python bench/engine.py --game thousand --seconds 20 [--players 3] [--seed 1]
    python bench/engine.py --game blagogo --seconds 20 [--players 4] [--seed 1]

Thousand is played through :class:`engine.Game` exactly as a server would drive it: ``apply_chance()`` at a
chance node; otherwise ``legal_actions()`` (computed afresh at every decision), one ``random.Random.choice``
and ``apply(seat, action)``. Uniformly random players almost never finish a game, so the unit is the deal: a
new game is started when one ends or after :data:`DEALS_PER_GAME` deals. A redeal counts as a deal dealt;
deals played (scored) are reported beside it.

If ``pyspiel`` (the ``open-spiel`` package, the ``bench`` extra) is importable, OpenSpiel's ``skat`` is played
the same way in the same run: a random legal action at each decision, a chance outcome drawn from
``chance_outcomes()`` with the same kind of seeded ``random.Random``. The two measurements alternate in
several short rounds, so that machine noise falls on both alike, and ``ratio`` is Thousand's deals per second
over skat's games per second.

``--game blagogo`` times 1000 Blagogo instead (2 to 8 players, default 4): random rounds played to the end
through :class:`engine.blagogo.Game`, measured by :mod:`bench.blagogo_engine` (the same warm-up and
measurement as its ``play_random_rounds``), with ``rounds_per_s`` in the JSON.

The last line printed is one JSON object with the figures.
"""

from __future__ import annotations

import sys
from pathlib import Path

# Run as ``python bench/engine.py``, Python puts bench/ first on sys.path, where this very file would shadow
# the ``engine`` package. The repository goes last instead: an engine on PYTHONPATH (the compiled build that
# ``--engine compiled`` puts there) or installed comes first, and the working tree's otherwise.
_BENCH_DIR = Path(__file__).resolve().parent
sys.path[:] = [p for p in sys.path if Path(p or ".").resolve() != _BENCH_DIR]
sys.path.append(str(_BENCH_DIR.parent))

import argparse  # noqa: E402
import json  # noqa: E402
import platform  # noqa: E402
import random  # noqa: E402
import time  # noqa: E402
from collections.abc import Callable  # noqa: E402
from dataclasses import dataclass, field  # noqa: E402
from typing import Any  # noqa: E402

import engine  # noqa: E402

DEALS_PER_GAME = 50
"""Deals dealt before a game that has not ended is replaced by a fresh one (keeps its history small)."""
WARMUP_SECONDS = 0.3
"""Unmeasured play before the first round, so caches and the interpreter's specialisations are warm."""
MIN_ROUND_SECONDS = 0.5
MAX_ROUNDS = 10


@dataclass(slots=True)
class Tally:
    """What one measured side did in its time slices."""

    seconds: float = 0.0
    deals: int = 0
    """Thousand: deals dealt (redeals included). Skat: games played."""
    played: int = 0
    """Thousand: deals played to the end or conceded (not redeals). Skat: equal to ``deals``."""
    games_finished: int = 0
    """Thousand only: games that reached a winner."""
    actions: int = 0
    """Decisions taken (chance steps not included)."""
    chance: int = 0
    """Chance steps taken."""
    rounds: list[float] = field(default_factory=list)
    """Deals (games) per second in each round, to show the spread."""

    def add_round(self, seconds: float, deals: int) -> None:
        self.seconds += seconds
        self.rounds.append(deals / seconds if seconds else 0.0)

    def per_second(self, count: int) -> float:
        return count / self.seconds if self.seconds else 0.0


class ThousandRunner:
    """Random play of Thousand through ``engine.Game``."""

    def __init__(self, players: int, seed: int) -> None:
        self.rules = engine.Rules(players=players)
        self.rng = random.Random(seed)
        self.game = self._new_game()

    def _new_game(self) -> engine.Game:
        return engine.Game(self.rules, self.rng.getrandbits(32))

    def run(self, seconds: float, tally: Tally) -> None:
        """Play for about ``seconds``, stopping at a deal boundary, and add what was done to ``tally``."""
        choice = self.rng.choice
        perf_counter = time.perf_counter
        game = self.game
        deals = actions = 0
        played_before = game.deals_played
        played = finished = 0
        start = perf_counter()
        deadline = start + seconds
        while True:
            legal = game.legal_actions()
            if legal:  # a decision
                seat = game.to_act
                assert seat is not None
                game.apply(seat, choice(legal))
                actions += 1
                continue
            # No legal action: a chance node, or the end of the game.
            if game.is_over or game.deals_dealt >= DEALS_PER_GAME:
                played += game.deals_played - played_before
                finished += game.is_over
                game = self._new_game()
                played_before = 0
            if perf_counter() >= deadline:
                break
            game.apply_chance()
            deals += 1
        elapsed = perf_counter() - start
        played += game.deals_played - played_before
        self.game = game
        tally.add_round(elapsed, deals)
        tally.deals += deals
        tally.chance += deals
        tally.played += played
        tally.games_finished += finished
        tally.actions += actions


class SkatRunner:
    """Random play of OpenSpiel's skat through pyspiel."""

    def __init__(self, pyspiel: Any, seed: int) -> None:
        self.game = pyspiel.load_game("skat")
        self.rng = random.Random(seed)

    def run(self, seconds: float, tally: Tally) -> None:
        choice = self.rng.choice
        perf_counter = time.perf_counter
        new_state = self.game.new_initial_state
        games = actions = chance = 0
        start = perf_counter()
        deadline = start + seconds
        while perf_counter() < deadline:
            state = new_state()
            while not state.is_terminal():
                if state.is_chance_node():
                    # Skat's chance outcomes (the cards dealt one by one) are equally likely, so a uniform
                    # choice among them samples them exactly.
                    outcome, _probability = choice(state.chance_outcomes())
                    state.apply_action(outcome)
                    chance += 1
                else:
                    state.apply_action(choice(state.legal_actions()))
                    actions += 1
            games += 1
        elapsed = perf_counter() - start
        tally.add_round(elapsed, games)
        tally.deals += games
        tally.played += games
        tally.actions += actions
        tally.chance += chance


def _load_pyspiel() -> Any | None:
    try:
        import pyspiel  # noqa: PLC0415
    except ImportError:
        return None
    return pyspiel


def _check_skat_uniform(pyspiel: Any) -> None:
    """The uniform draw in :class:`SkatRunner` is exact only if skat's chance outcomes are equally likely."""
    state = pyspiel.load_game("skat").new_initial_state()
    probabilities = {p for _, p in state.chance_outcomes()}
    if max(probabilities) - min(probabilities) > 1e-9:
        raise SystemExit("bench: skat's chance outcomes are not uniform; the sampling here would be wrong")


def _run(args: argparse.Namespace, out: Callable[[str], None]) -> dict[str, Any]:
    pyspiel = _load_pyspiel()
    thousand = ThousandRunner(args.players, args.seed)
    skat = SkatRunner(pyspiel, args.seed) if pyspiel is not None else None
    if pyspiel is not None:
        _check_skat_uniform(pyspiel)

    sides = 2 if skat is not None else 1
    rounds = max(1, min(MAX_ROUNDS, int(args.seconds / (sides * MIN_ROUND_SECONDS))))
    if skat is not None:
        rounds = max(rounds, 2)
    slice_seconds = args.seconds / (sides * rounds)

    python = f"{platform.python_implementation()} {platform.python_version()}"
    kind = "compiled (mypyc)" if engine.COMPILED else "interpreted"
    out(f"{python}, {kind} engine imported from {Path(engine.__file__).parent}")
    if skat is None:
        out("pyspiel is not importable: the OpenSpiel skat reference is skipped (pip install open-spiel)")
    out(
        f"thousand, {args.players} players, seed {args.seed}: {rounds} round(s) of {slice_seconds:.2f} s"
        + (" alternating with OpenSpiel skat" if skat is not None else "")
    )

    warm = Tally()
    thousand.run(WARMUP_SECONDS, warm)
    if skat is not None:
        skat.run(WARMUP_SECONDS, Tally())

    t_tally = Tally()
    s_tally = Tally()
    for r in range(rounds):
        # ABBA order, so that a drift in machine speed does not favour either side.
        if skat is not None and r % 2:
            skat.run(slice_seconds, s_tally)
            thousand.run(slice_seconds, t_tally)
        else:
            thousand.run(slice_seconds, t_tally)
            if skat is not None:
                skat.run(slice_seconds, s_tally)

    result: dict[str, Any] = {
        "game": "thousand",
        "players": args.players,
        "engine": "compiled" if engine.COMPILED else "python",
        "seed": args.seed,
        "seconds": round(t_tally.seconds, 3),
        "deals": t_tally.deals,
        "deals_played": t_tally.played,
        "games_finished": t_tally.games_finished,
        "actions": t_tally.actions,
        "deals_per_s": round(t_tally.per_second(t_tally.deals), 1),
        "deals_played_per_s": round(t_tally.per_second(t_tally.played), 1),
        "actions_per_s": round(t_tally.per_second(t_tally.actions), 1),
        "actions_per_deal": round(t_tally.actions / t_tally.deals, 2) if t_tally.deals else 0.0,
    }
    out("")
    out(f"Thousand ({args.players} players), {t_tally.seconds:.2f} s measured:")
    out(f"  deals dealt      {t_tally.deals:>10}   {result['deals_per_s']:>12,.1f} /s  (redeals included)")
    out(f"  deals played     {t_tally.played:>10}   {result['deals_played_per_s']:>12,.1f} /s")
    out(f"  decisions        {t_tally.actions:>10}   {result['actions_per_s']:>12,.1f} /s")
    out(f"  games finished   {t_tally.games_finished:>10}   (else a new game after {DEALS_PER_GAME} deals)")
    out(f"  deals/s by round {_spread(t_tally.rounds)}")
    if skat is not None:
        skat_games = s_tally.per_second(s_tally.deals)
        ratio = result["deals_per_s"] / skat_games if skat_games else 0.0
        result.update(
            {
                "skat_seconds": round(s_tally.seconds, 3),
                "skat_games": s_tally.deals,
                "skat_games_per_s": round(skat_games, 1),
                "skat_actions_per_s": round(s_tally.per_second(s_tally.actions), 1),
                "skat_chance_per_s": round(s_tally.per_second(s_tally.chance), 1),
                "ratio": round(ratio, 3),
                "ratio_median_of_rounds": round(_median_ratio(t_tally.rounds, s_tally.rounds), 3),
            }
        )
        out(f"OpenSpiel skat, {s_tally.seconds:.2f} s measured:")
        out(f"  games            {s_tally.deals:>10}   {skat_games:>12,.1f} /s")
        out(f"  decisions        {s_tally.actions:>10}   {result['skat_actions_per_s']:>12,.1f} /s")
        out(f"  chance steps     {s_tally.chance:>10}   {result['skat_chance_per_s']:>12,.1f} /s")
        out(f"  games/s by round {_spread(s_tally.rounds)}")
        out(f"ratio (thousand deals/s over skat games/s): {ratio:.3f}")
        out(f"  median of the rounds' ratios: {result['ratio_median_of_rounds']:.3f} (steadier under load)")
    return result


def _median_ratio(thousand: list[float], skat: list[float]) -> float:
    """The median over rounds of each round's ratio: a burst of load on the machine moves it less."""
    ratios = sorted(t / s for t, s in zip(thousand, skat, strict=True) if s)
    if not ratios:
        return 0.0
    mid = len(ratios) // 2
    return ratios[mid] if len(ratios) % 2 else (ratios[mid - 1] + ratios[mid]) / 2


def _spread(values: list[float]) -> str:
    if not values:
        return "-"
    return f"min {min(values):,.0f}  max {max(values):,.0f}  ({len(values)} rounds)"


def _run_blagogo(args: argparse.Namespace, out: Callable[[str], None]) -> dict[str, Any]:
    """1000 Blagogo: random rounds to the end, measured as ``blagogo_engine.play_random_rounds`` does."""
    from bench import blagogo_engine  # noqa: PLC0415 - only this path needs it

    python = f"{platform.python_implementation()} {platform.python_version()}"
    out(f"{python}, engine imported from {Path(engine.__file__).parent}")
    out(f"blagogo, {args.players} players, seed {args.seed}: random rounds played to the end")
    blagogo_engine.measure(min(blagogo_engine.WARMUP_SECONDS, args.seconds), args.players, args.seed + 1)
    r = blagogo_engine.measure(args.seconds, args.players, args.seed)
    result: dict[str, Any] = {
        "game": "blagogo",
        "players": r.players,
        "seed": args.seed,
        "seconds": r.seconds,
        "rounds": r.rounds,
        "actions": r.actions,
        "stalled": r.stalled,
        "games_finished": r.games_finished,
        "rounds_per_s": r.rounds_per_s,
        "actions_per_s": r.actions_per_s,
        "actions_per_round": round(r.actions / r.rounds, 1) if r.rounds else 0.0,
    }
    out("")
    out(f"1000 Blagogo ({r.players} players), {r.seconds:.2f} s measured:")
    out(f"  rounds played    {r.rounds:>10}   {r.rounds_per_s:>12,.1f} /s  (to the end: someone went out)")
    out(f"  decisions        {r.actions:>10}   {r.actions_per_s:>12,.1f} /s")
    out(f"  decisions/round  {result['actions_per_round']:>10}")
    out(f"  games finished   {r.games_finished:>10}")
    limit = blagogo_engine.MAX_ACTIONS_PER_ROUND
    out(f"  stalled rounds   {r.stalled:>10}   (dead rounds abandoned after {limit} actions)")
    return result


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="bench/engine.py", description=__doc__.splitlines()[0])
    parser.add_argument("--game", choices=("thousand", "blagogo"), default="thousand")
    parser.add_argument("--seconds", type=float, default=10.0, help="total measured time (default 10)")
    parser.add_argument(
        "--players",
        type=int,
        choices=range(2, 9),
        default=None,
        metavar="{2..8}",
        help="thousand: 2 to 4 (default 3); blagogo: 2 to 8 (default 4)",
    )
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument(
        "--engine",
        choices=("compiled", "python"),
        default="compiled",
        help="thousand: compiled (default) is the engine compiled by mypyc as production runs it "
        "(scripts/compiled_engine.py, needs a C compiler); python is the interpreted sources",
    )
    args = parser.parse_args(argv)
    if args.seconds <= 0:
        parser.error("--seconds must be positive")
    if args.game == "thousand" and args.engine == "compiled" and not engine.COMPILED:
        from scripts.compiled_engine import rerun_compiled  # noqa: PLC0415  (only this path)

        return rerun_compiled(Path(__file__).resolve(), argv, imported=engine.__file__)
    if args.game == "blagogo":
        args.players = 4 if args.players is None else args.players
        result = _run_blagogo(args, print)
        print(json.dumps(result, sort_keys=True))
        return 0
    args.players = 3 if args.players is None else args.players
    if args.players > 4:
        parser.error("thousand is played by 2 to 4 players")
    result = _run(args, print)
    print(json.dumps(result, sort_keys=True))
    return 0


if __name__ == "__main__":
    sys.exit(main())
