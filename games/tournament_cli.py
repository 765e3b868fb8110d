"""The duplicate tournament's report and command line (``thousand-bot tournament``, :func:`main`), the same
for every game of :data:`games.GAMES`: the game is an option, its rules are options over its defaults.

Printed: each strategy's mean per deal or round (or, with ``--games N``, games won, final score and points per
deal or round) with its 95% interval, best first, and every pair's paired difference with which is better, if
either is, with 95% confidence; ``--json`` adds one JSON line of the figures last. The loop:
:mod:`games.tournament`.
"""

from __future__ import annotations

import argparse
import itertools
import json
import sys
from collections.abc import Sequence

from bots.strategy import StrategyOptions
from games import GAMES, game_named
from games.tournament import (
    TournamentResult,
    measures,
    seatings,
    stderr_progress,
    tournament,
    tournament_rules,
)


def score_lines(result: TournamentResult, unit: str) -> list[str]:
    """Each strategy's mean score per ``unit`` (a deal, a round) with its 95% interval, best first, then
    every pair's paired difference and which is better, if either is, with 95% confidence."""
    lines = []
    width = max(len(n) for n in result.strategies)
    for name in sorted(result.strategies, key=lambda n: -result.score(n).mean):
        st = result.score(name)
        lines.append(f"  {name:<{width}}  {st.mean:8.2f} ± {st.ci95:6.2f} points per {unit}")
    for a, b in itertools.combinations(result.strategies, 2):
        d = result.difference(a, b)
        verdict = a if d.mean - d.ci95 > 0 else b if d.mean + d.ci95 < 0 else "neither (not significant)"
        lines.append(f"  {a} - {b}: {d.mean:+.2f} ± {d.ci95:.2f}; better with 95% confidence: {verdict}")
    return lines


def format_result(result: TournamentResult) -> list[str]:
    """The report, one line a figure."""
    return format_games(result) if result.whole_games else format_units(result)


def format_units(result: TournamentResult) -> list[str]:
    game = result.description
    unit = game.duplicate.unit
    lines = [
        f"{len(result.sets)} duplicate {unit}s of {game.title}, {result.players} players, "
        f"{len(seatings(result.strategies, result.players))} seatings each, {result.seconds:.1f} s",
        *score_lines(result, unit),
    ]
    if game.duplicate.stalls:
        out = ", ".join(f"{n} {k}" for n, k in sorted(result.went_out().items()))
        lines.append(
            f"  {unit}s played {result.total('units')}, stalled {result.total('stalled')}, "
            f"actions {result.total('actions')}; went out: {out or 'nobody'}"
        )
    return lines


_UNITS = {"won": "games won (share)", "score": "final score"}


def format_games(result: TournamentResult) -> list[str]:
    game = result.description
    unit = game.duplicate.unit
    per_set = len(seatings(result.strategies, result.players))
    lines = [
        f"{len(result.sets)} duplicate games of {game.title} x {per_set} seatings"
        f" ({len(result.sets) * per_set} games, {result.total('units')} {unit}s, {result.total('cut')} cut),"
        f" {result.players} players, {result.seconds:.0f} s"
    ]
    for measure in measures(game):
        lines.append(f" {_UNITS.get(measure, f'points per {unit}')}:")
        for name in sorted(result.strategies, key=lambda n: -result.score(measure, n).mean):
            st = result.score(measure, name)
            lines.append(f"  {name:<10} {st.mean:9.3f} ± {st.ci95:.3f}")
        for a, b in itertools.combinations(result.strategies, 2):
            d = result.difference(measure, a, b)
            verdict = a if d.mean - d.ci95 > 0 else b if d.mean + d.ci95 < 0 else "neither (not significant)"
            lines.append(f"  {a} - {b}: {d.mean:+.3f} ± {d.ci95:.3f}; better with 95% confidence: {verdict}")
    for name in result.strategies:
        t = result.timing(name)
        lines.append(f" decision time {name}: p50 {t['p50']} ms, p99 {t['p99']} ms, max {t['max']} ms")
    return lines


def to_json(result: TournamentResult) -> dict[str, object]:
    """The figures: ``results`` by strategy (one deal or round a set), or each measure (whole games)."""
    return _games_json(result) if result.whole_games else _units_json(result)


def _units_json(result: TournamentResult) -> dict[str, object]:
    results: dict[str, object] = {}
    for name in result.strategies:
        st = result.score(name)
        vs = {}
        for other in result.strategies:
            if other != name:
                d = result.difference(name, other)
                vs[other] = {"mean_diff": round(d.mean, 2), "ci95": round(d.ci95, 2)}
        results[name] = {"mean_score": round(st.mean, 2), "ci95": round(st.ci95, 2), "deals": st.n, "vs": vs}
    out: dict[str, object] = {"results": results}
    if result.description.duplicate.stalls:
        out |= {
            "game": result.game,
            "players": result.players,
            f"{result.description.duplicate.unit}s": result.total("units"),
            "stalled": result.total("stalled"),
            "went_out": result.went_out(),
        }
    return out


def _games_json(result: TournamentResult) -> dict[str, object]:
    game = result.description
    out: dict[str, object] = {
        "game": result.game,
        "players": result.players,
        "sets": len(result.sets),
        "cut_games": result.total("cut"),
        f"{game.duplicate.unit}s": result.total("units"),
        "seconds": round(result.seconds, 1),
    }
    for measure in measures(game):
        row: dict[str, object] = {}
        for name in result.strategies:
            st = result.score(measure, name)
            row[name] = {"mean": round(st.mean, 3), "ci95": round(st.ci95, 3)}
        for a, b in itertools.combinations(result.strategies, 2):
            d = result.difference(measure, a, b)
            row[f"{a} - {b}"] = {"mean": round(d.mean, 3), "ci95": round(d.ci95, 3)}
        out[measure] = row
    out["decision_ms"] = {name: result.timing(name) for name in result.strategies}
    return out


def parser() -> argparse.ArgumentParser:
    names = [g.name for g in GAMES]
    p = argparse.ArgumentParser(prog="thousand-bot tournament", description=__doc__.splitlines()[0])
    p.add_argument("strategies", nargs="+", help="strategy names (the game's registry)")
    p.add_argument("--game", choices=names, default=names[0])
    p.add_argument(
        "--deals", "--rounds", dest="sets", type=int, default=100, help="duplicate deals or rounds"
    )
    p.add_argument("--games", type=int, default=0, help="whole games in duplicate instead (sets to play)")
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--budget-ms", type=float, default=50.0, help="thinking time per decision of searchers")
    p.add_argument("--iterations", type=int, default=None, help="iteration cap per decision of searchers")
    p.add_argument("--relative", type=float, default=StrategyOptions().relative)
    p.add_argument("--players", type=int, default=None, choices=range(2, 9), metavar="{2..8}")
    p.add_argument("--workers", type=int, default=1, help="processes to play the sets in")
    p.add_argument("--max-deals", "--max-rounds", dest="max_units", type=int, default=None,
                   help="whole games: cut a game after this many deals or rounds")  # fmt: skip
    rules = p.add_argument_group("rules (over the game's defaults)")
    rules.add_argument("--dark", action="store_const", const=True, help="Thousand: play with dark (T-31)")
    rules.add_argument("--golden", dest="golden_deals", action="store_const", const=True,
                       help="Thousand: every deal is golden (T-30)")  # fmt: skip
    rules.add_argument("--target", type=int, help="1000 Blagogo: the score that wins (B-20)")
    rules.add_argument(
        "--turnover-limit", type=int, help="1000 Blagogo: end a round after this many turnovers"
    )
    p.add_argument("--json", action="store_true", help="print one JSON line of results last")
    p.add_argument("--quiet", action="store_true", help="no progress bar")
    return p


def main(argv: Sequence[str] | None = None) -> int:
    """``thousand-bot tournament``: a duplicate tournament between named strategies of one game."""
    p = parser()
    args = p.parse_args(argv)
    game = game_named(args.game)
    whole = args.games > 0
    try:
        players = args.players or (3 if whole else game.duplicate.unit_players)
        given = {k: getattr(args, k) for k in ("dark", "golden_deals", "target", "turnover_limit")}
        result = tournament(
            game,
            args.strategies,
            args.games if whole else args.sets,
            args.seed,
            players=players,
            rules=tournament_rules(game, players, **given),
            options=StrategyOptions(
                budget_ms=args.budget_ms, iterations=args.iterations, relative=args.relative
            ),
            max_units=args.max_units,
            whole_games=whole,
            progress=None if args.quiet else stderr_progress,
            workers=args.workers,
        )
    except (KeyError, ValueError) as e:
        p.error(str(e))
    for line in format_result(result):
        print(line)
    if args.json:
        print(json.dumps(to_json(result)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
