"""``thousand-bot``: play bots against live tables, run matches over gRPC, and local duplicate tournaments.

- ``thousand-bot play --server ADDR --table ID [--seat N] --strategy S``: one bot joins a live table.
- ``thousand-bot match --server ADDR --game thousand --strategies a,b,c [--seed S] [--json]``: creates a table
  on that server, runs one bot client per strategy (real gRPC clients), plays the whole game and prints the
  final standings; with ``--json`` the last line is ``{"finished": true, "standings": [...]}``.
- ``thousand-bot tournament --game thousand --strategies a,b,c --deals N [--seed S] [--budget-ms M]
  [--json]``: duplicate deals played locally with the engine (see :mod:`clients.bots.tournament`).

``--game blagogo`` plays 1000 Blagogo with its strategies (:mod:`clients.bots.blagogo`) and 2 to 8 players:
``match`` creates a Blagogo table (``--target``, ``--turnover-limit`` for short games), ``play`` sits a
Blagogo bot at a Blagogo table, and ``tournament`` plays duplicate rounds locally (``--rounds`` N,
``--players`` P; see :mod:`clients.bots.blagogo_tournament`).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
from collections.abc import Awaitable, Sequence

from clients.bots import blagogo_tournament, tournament
from clients.bots.example import CautiousBot
from clients.bots.registry import BLAGOGO_STRATEGIES, GAMES, STRATEGIES, make_blagogo_strategy, make_strategy
from clients.bots.sdk import AnyStrategy, BotResult, run_bot
from clients.bots.strategy import Strategy, StrategyOptions
from clients.errors import ServerError
from clients.games import GameRules
from clients.session import DEFAULT_SERVER, TableSession
from engine import Rules
from engine.blagogo import BlagogoRules
from engine.events import Standing


def strategy_named(name: str, options: StrategyOptions) -> Strategy:
    if name == CautiousBot.name:
        return CautiousBot()
    return make_strategy(name, options)


def known(game: str = "thousand") -> str:
    if game == "blagogo":
        return ", ".join(sorted(BLAGOGO_STRATEGIES))
    return ", ".join(sorted([*STRATEGIES, CautiousBot.name]))


def _names(game: str) -> set[str]:
    return set(BLAGOGO_STRATEGIES) if game == "blagogo" else {*STRATEGIES, CautiousBot.name}


def _options(args: argparse.Namespace, seat: int = 0) -> StrategyOptions:
    seed = None if args.seed is None else args.seed * 31 + seat
    return StrategyOptions(budget_ms=args.budget_ms, seed=seed)


def _strategy(game: str, name: str, options: StrategyOptions) -> AnyStrategy:
    if game == "blagogo":
        return make_blagogo_strategy(name, options)
    return strategy_named(name, options)


async def _play(args: argparse.Namespace) -> int:
    result = await run_bot(
        _strategy(args.game, args.strategy, _options(args)),
        server=args.server,
        table_id=args.table,
        seat=args.seat,
        name=args.name or args.strategy,
        seed=args.seed or 0,
        log=lambda line: print(line, file=sys.stderr),
        game=args.game,
    )
    _print_result([result], args.json, [args.strategy])
    return 0 if result.finished else 1


async def _match(args: argparse.Namespace) -> int:
    """Create a table with one open seat per strategy and play it to the end, one gRPC client a seat."""
    names = [n.strip() for n in args.strategies.split(",") if n.strip()]
    blagogo = args.game == "blagogo"
    rules: GameRules = (
        BlagogoRules(players=len(names), target=args.target, turnover_limit=args.turnover_limit)
        if blagogo
        else Rules(players=len(names))
    )
    async with TableSession(args.server) as lobby:
        table = await lobby.create_table(
            rules,
            [None] * len(names),
            seed=args.seed,
            first_dealer=None if args.seed is None else 0,
            practice=args.seed is not None,  # a reproducible match is a practice table, marked seeded
        )
    log = (lambda line: print(line, file=sys.stderr)) if args.verbose else None

    def bot(seat: int, name: str) -> Awaitable[BotResult]:
        return run_bot(
            _strategy(args.game, name, _options(args, seat)),
            server=args.server,
            table_id=table.table_id,
            seat=seat,
            name=name,
            seed=(args.seed or 0) + seat,
            log=log,
            game=args.game,
        )

    results = await asyncio.gather(*(bot(seat, name) for seat, name in enumerate(names)))
    _print_result(list(results), args.json, names)
    return 0 if all(r.finished for r in results) else 1


def _print_result(results: list[BotResult], as_json: bool, names: list[str]) -> None:
    standings = results[0].standings
    finished = all(r.finished for r in results)
    names_by_seat = {r.seat: n for r, n in zip(results, names, strict=True)}
    print("Final standings:" if finished else "The game did not finish.")
    for s in standings:
        who = names_by_seat.get(s.seat, "")
        bank = s.payout if isinstance(s, Standing) else 0
        payout = f" (bank {bank:+})" if bank else ""
        print(f"  {s.place}. seat {s.seat} {who}: {s.score}{payout}")
    if as_json:
        print(
            json.dumps(
                {
                    "finished": finished,
                    "standings": [
                        {
                            "seat": s.seat,
                            "strategy": names_by_seat.get(s.seat),
                            "place": s.place,
                            "score": s.score,
                            "payout": s.payout if isinstance(s, Standing) else 0,
                        }
                        for s in standings
                    ],
                }
            )
        )


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="thousand-bot", description=__doc__.splitlines()[0])
    commands = parser.add_subparsers(dest="command", required=True)

    play = commands.add_parser("play", help="one bot joins a live table")
    play.add_argument("--table", required=True)
    play.add_argument("--seat", type=int)
    play.add_argument("--name", default="")

    match = commands.add_parser("match", help="a whole game between bots over gRPC")
    match.add_argument(
        "--strategies", required=True, help="comma-separated, one per seat (2 to 4; blagogo 2 to 8)"
    )
    match.add_argument("--verbose", action="store_true")
    match.add_argument("--target", type=int, default=1000, help="blagogo: the score that ends the game")
    match.add_argument(
        "--turnover-limit",
        type=int,
        default=0,
        help="blagogo: end a round after this many turnovers (0: never)",
    )

    tour = commands.add_parser("tournament", help="duplicate deals played locally")
    tour.add_argument("--strategies", required=True, help="comma-separated strategy names")
    tour.add_argument("--deals", "--rounds", type=int, default=100, help="duplicate deals (blagogo: rounds)")
    tour.add_argument(
        "--players",
        type=int,
        default=None,
        choices=range(2, 9),
        metavar="{2..8}",
        help="default 3 (blagogo 4)",
    )
    tour.add_argument(
        "--turnover-limit",
        type=int,
        default=blagogo_tournament.DEFAULT_TURNOVER_LIMIT,
        help="blagogo: end a round with no winner after this many turnovers of the deck (0: never)",
    )
    tour.add_argument("--workers", type=int, default=1)
    tour.add_argument("--quiet", action="store_true")

    for sub in (play, match, tour):
        sub.add_argument("--game", choices=GAMES, default="thousand")
        sub.add_argument("--seed", type=int)
        sub.add_argument("--budget-ms", type=int, default=50, help="thinking time per decision of searchers")
        sub.add_argument("--json", action="store_true", help="a JSON object as the last line")
    for sub in (play, match):
        sub.add_argument("--server", default=DEFAULT_SERVER)
    play.add_argument("--strategy", required=True, help=f"one of: {known()} (blagogo: {known('blagogo')})")
    args = parser.parse_args(argv)

    if args.command == "tournament" and args.game == "blagogo":
        forwarded = [*args.strategies.split(","), "--rounds", str(args.deals)]
        forwarded += ["--players", str(args.players or 4), "--turnover-limit", str(args.turnover_limit)]
        forwarded += ["--seed", str(args.seed if args.seed is not None else 1)]
        forwarded += ["--json"] if args.json else []
        forwarded += ["--quiet"] if args.quiet else []
        return blagogo_tournament.main(forwarded)
    if args.command == "tournament":
        args.players = 3 if args.players is None else args.players
        if args.players > 4:
            parser.error("Thousand is played by 2 to 4 players")
        forwarded = [
            *args.strategies.split(","),
            "--deals",
            str(args.deals),
            "--budget-ms",
            str(args.budget_ms),
        ]
        forwarded += ["--players", str(args.players), "--workers", str(args.workers)]
        forwarded += ["--seed", str(args.seed if args.seed is not None else 1)]
        forwarded += ["--json"] if args.json else []
        forwarded += ["--quiet"] if args.quiet else []
        return tournament.main(forwarded)
    names = [args.strategy] if args.command == "play" else args.strategies.split(",")
    unknown = [n for n in names if n.strip() not in _names(args.game)]
    if unknown:
        parser.error(f"unknown strategy {unknown[0]!r} (known: {known(args.game)})")
    most = 8 if args.game == "blagogo" else 4
    if args.command == "match" and not 2 <= len(names) <= most:
        parser.error(f"a {args.game} match needs 2 to {most} strategies")
    try:
        return asyncio.run(_play(args) if args.command == "play" else _match(args))
    except ServerError as error:
        print(f"thousand-bot: {error.reason}: {error.message}", file=sys.stderr)
        return 2
    except ValueError as error:  # a table of another game than --game
        print(f"thousand-bot: {error}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
