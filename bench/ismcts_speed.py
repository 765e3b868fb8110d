"""ISMCTS iterations per second at a fixed iteration count, on a fixed set of seeded decision positions, with
its decisions checked: a faster search must decide exactly as before.

Usage::

    python bench/ismcts_speed.py [--iterations 16,100] [--deals 6] [--seed 1] [--rounds 1] [--tree DIR]
    python bench/ismcts_speed.py --against DIR [--rounds 2]        # this tree and DIR, alternating, one run
    python bench/ismcts_speed.py --games 3 --record FILE           # whole games' decisions, written to FILE
    python bench/ismcts_speed.py --games 3 --check FILE            # ... compared with FILE (exit 1 if not)

**Positions.** Seeded three-player games are played by the heuristic in every seat for ``--deals`` deals;
beside each seat an ``ismcts`` (``iterations`` fixed, no time budget, seeded: reproducible) is shown the
seat's views as they come and asked for its decision at every turn with more than one legal action. Its
decision is recorded but the heuristic's is played, so the positions do not depend on the search: two trees
measure the very same positions, whatever they decide. Every kind of decision comes up (auction, exchange,
contract, card play). The figure is iterations per CPU second (``time.process_time``) over the ``choose``
calls that searched, the heuristic's default and the world sampling included: what a decision costs. The
decisions' digest (sha256 of their reprs) says whether two trees decided alike.

``--against DIR`` (a reference tree: ``git archive <commit> | tar -x -C DIR``) runs this tree and DIR in
fresh interpreters, alternating (ABBA) ``--rounds`` times, and prints each tree's best and the ratio of this
tree's iterations/s to DIR's, measured in the same run because the machine is noisy, and whether the
decisions' digests are equal.

``--games N`` plays N whole seeded games in which ``ismcts`` (and ``expert``, which shares its search) really
play against other bots, at ``--game-iterations`` (16), and records every decision of every seat; ``--record``
writes them, ``--check`` compares them with a recording (the first difference is printed). The last line
printed is always one JSON object.
"""

from __future__ import annotations

import sys
from pathlib import Path

_BENCH_DIR = Path(__file__).resolve().parent
sys.path[:] = [p for p in sys.path if Path(p or ".").resolve() != _BENCH_DIR]


def _tree(argv: list[str]) -> Path:
    """The source tree to measure: ``--tree DIR``, else this one."""
    if "--tree" in argv:
        return Path(argv[argv.index("--tree") + 1]).resolve()
    return _BENCH_DIR.parent


sys.path.insert(0, str(_tree(sys.argv)))

import argparse  # noqa: E402
import hashlib  # noqa: E402
import json  # noqa: E402
import random  # noqa: E402
import subprocess  # noqa: E402
import time  # noqa: E402
from typing import Any  # noqa: E402

from bots.registry import make_strategy  # noqa: E402
from bots.strategy import StrategyOptions  # noqa: E402
from engine import Game, Rules, view  # noqa: E402

GAMES: tuple[tuple[Rules, tuple[str, ...]], ...] = (
    (Rules(players=3), ("ismcts", "heuristic", "heuristic")),
    (Rules(players=2), ("ismcts", "expert")),
    (Rules(players=4, dark=True, golden_deals=True), ("ismcts", "greedy", "heuristic", "ismcts")),
)
"""The whole games of ``--games``, in turn: rules and the strategy in each seat."""
MAX_DEALS = 60
"""A whole game stops after this many deals if nobody has won."""


def measure(iterations: int, deals: int, seed: int) -> dict[str, Any]:
    """Shadow ``ismcts`` decisions on heuristic games (see the module docstring): iterations/s and digest."""
    options = StrategyOptions(budget_ms=0, iterations=iterations, seed=seed)
    game = Game(Rules(players=3), seed)
    players = [make_strategy("heuristic") for _ in range(3)]
    shadows = [make_strategy("ismcts", options) for _ in range(3)]
    rng = random.Random(seed)
    digest = hashlib.sha256()
    decisions = searched = total_iterations = 0
    cpu = 0.0
    while not game.is_over and game.deals_dealt <= deals:
        if game.is_chance_node:
            if game.deals_dealt == deals:
                break
            game.apply_chance()
        else:
            seat = game.to_act
            assert seat is not None
            v = view(game, seat)
            if len(v.legal_actions) > 1:
                start = time.process_time()
                choice = shadows[seat].choose(v, random.Random(decisions))
                spent = time.process_time() - start
                done = shadows[seat].stats.iterations  # type: ignore[attr-defined]
                decisions += 1
                digest.update(f"{seat}:{choice!r};".encode())
                if done:
                    searched += 1
                    total_iterations += done
                    cpu += spent
            game.apply(seat, players[seat].choose(v, rng))
        for s in range(3):
            seen = view(game, s)
            players[s].observe(seen)
            shadows[s].observe(seen)
    return {
        "iterations": iterations,
        "decisions": decisions,
        "searched": searched,
        "total_iterations": total_iterations,
        "cpu_s": round(cpu, 3),
        "iterations_per_s": round(total_iterations / cpu, 1) if cpu else 0.0,
        "ms_per_decision": round(cpu / searched * 1000.0, 2) if searched else 0.0,
        "digest": digest.hexdigest()[:16],
    }


def whole_games(count: int, iterations: int, seed: int) -> list[list[str]]:
    """``count`` whole seeded games (:data:`GAMES` in turn): every decision, as ``seat:repr(action)``."""
    out: list[list[str]] = []
    for index in range(count):
        rules, names = GAMES[index % len(GAMES)]
        game_seed = seed + index
        options = StrategyOptions(budget_ms=0, iterations=iterations, seed=game_seed)
        players = [make_strategy(name, options) for name in names]
        rngs = [random.Random(f"{game_seed}:{seat}") for seat in range(rules.players)]
        game = Game(rules, game_seed)
        decisions: list[str] = []
        while not game.is_over and game.deals_dealt <= MAX_DEALS:
            if game.is_chance_node:
                if game.deals_dealt == MAX_DEALS:
                    break
                game.apply_chance()
            else:
                seat = game.to_act
                assert seat is not None
                action = players[seat].choose(view(game, seat), rngs[seat])
                decisions.append(f"{seat}:{action!r}")
                game.apply(seat, action)
            for s, player in enumerate(players):
                player.observe(view(game, s))
        out.append(decisions)
    return out


def _games(args: argparse.Namespace) -> int:
    start = time.process_time()
    games = whole_games(args.games, args.game_iterations, args.seed)
    spent = time.process_time() - start
    figures: dict[str, Any] = {
        "games": len(games),
        "decisions": sum(len(g) for g in games),
        "cpu_s": round(spent, 2),
    }
    print(f"{len(games)} whole games, {figures['decisions']} decisions, {spent:.1f} s CPU")
    if args.record:
        Path(args.record).write_text(json.dumps(games))
        print(f"recorded in {args.record}")
    status = 0
    if args.check:
        recorded = json.loads(Path(args.check).read_text())
        same = recorded == games
        figures["identical"] = same
        if same:
            print(f"identical to {args.check}")
        else:
            status = 1
            for g, (old, new) in enumerate(zip(recorded, games, strict=False)):
                at = next((k for k, (a, b) in enumerate(zip(old, new, strict=False)) if a != b), None)
                if at is not None or len(old) != len(new):
                    where = at if at is not None else min(len(old), len(new))
                    was, now = old[where : where + 1], new[where : where + 1]
                    print(f"game {g} differs at decision {where}: {was} before, {now} now")
                    break
            else:
                print(f"{len(recorded)} games recorded, {len(games)} played")
    print(json.dumps(figures))
    return status


def _measure(args: argparse.Namespace) -> None:
    rows = []
    for iterations in (int(n) for n in args.iterations.split(",")):
        best: dict[str, Any] | None = None
        for _ in range(args.rounds):
            row = measure(iterations, args.deals, args.seed)
            if best is None or row["iterations_per_s"] > best["iterations_per_s"]:
                best = row
        assert best is not None
        rows.append(best)
        print(
            f"{iterations} iterations: {best['searched']} searched decisions of {best['decisions']},"
            f" {best['iterations_per_s']:,.0f} iterations/s, {best['ms_per_decision']} ms a decision"
            f" (CPU), decisions {best['digest']}",
            file=sys.stderr,
        )
    print(json.dumps({"tree": str(_tree(sys.argv)), "rows": rows}))


def _against(args: argparse.Namespace) -> None:
    """This tree and ``--against``'s, alternating (ABBA), each in a fresh interpreter."""
    here = str(_BENCH_DIR.parent)
    trees = {"this": here, "reference": str(Path(args.against).resolve())}
    runs: dict[str, list[list[dict[str, Any]]]] = {"this": [], "reference": []}
    order = ["this", "reference", "reference", "this"]
    for index in range(args.rounds * 2):
        name = order[index % 4]
        argv = [sys.executable, __file__, "--tree", trees[name], "--rounds", "1"]
        argv += ["--iterations", args.iterations, "--deals", str(args.deals), "--seed", str(args.seed)]
        out = subprocess.run(argv, check=True, capture_output=True, text=True).stdout
        rows = json.loads(out.strip().splitlines()[-1])["rows"]
        runs[name].append(rows)
        figures = ", ".join(f"{r['iterations']}: {r['iterations_per_s']:,.0f}/s" for r in rows)
        print(f"{name:9} {figures}", file=sys.stderr)
    results = []
    for k, iterations in enumerate(int(n) for n in args.iterations.split(",")):
        this = max(run[k]["iterations_per_s"] for run in runs["this"])
        reference = max(run[k]["iterations_per_s"] for run in runs["reference"])
        digests = {run[k]["digest"] for name in runs for run in runs[name]}
        same = len(digests) == 1
        results.append(
            {
                "iterations": iterations,
                "iterations_per_s": this,
                "reference_iterations_per_s": reference,
                "ratio": round(this / reference, 3),
                "decisions_identical": same,
            }
        )
        print(
            f"{iterations} iterations: this {this:,.0f}/s, reference {reference:,.0f}/s, ratio"
            f" {this / reference:.2f}; decisions {'identical' if same else 'DIFFER'}"
        )
    print(json.dumps({"tree": here, "reference": trees["reference"], "results": results}))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--iterations", default="16,100", help="iteration counts, comma-separated")
    parser.add_argument("--deals", type=int, default=6, help="deals of the positions' heuristic game")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--rounds", type=int, default=1, help="repeat the measure, report the best")
    parser.add_argument("--tree", help="the source tree to measure (default: this one)")
    parser.add_argument("--against", help="a reference tree, measured alternately with this one")
    parser.add_argument("--games", type=int, default=0, help="whole games to play and record or check")
    parser.add_argument("--game-iterations", type=int, default=16)
    parser.add_argument("--record", help="write the whole games' decisions to this file")
    parser.add_argument("--check", help="compare the whole games' decisions with this file")
    args = parser.parse_args()
    if args.games:
        return _games(args)
    if args.against:
        _against(args)
    else:
        _measure(args)
    return 0


if __name__ == "__main__":
    sys.exit(main())
