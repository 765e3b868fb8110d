"""``thousand-bot``: play bots against live tables, run matches over gRPC, and local duplicate tournaments.

- ``thousand-bot play --server ADDR --table ID [--seat N] --strategy S``: one bot joins a live table; without
  ``--table`` it sits at a new table against the server's bots (``--against greedy,heuristic``). ``S`` is a
  strategy's name or the author's own class, ``path/to/mybot.py:MyBot`` (:mod:`bots.loading`). Its
  seat is kept (:mod:`clients.seats`): started again after a crash, it takes the seat back.
- ``thousand-bot match --server ADDR --game thousand --strategies a,b,c [--seed S] [--json]``: creates a table
  on that server, runs one bot client per strategy (real gRPC clients), plays the whole game and prints the
  final standings; with ``--json`` the last line is ``{"finished": true, "standings": [...]}``. It says the
  scores as it goes, and stops after ``--max-deals`` deals (default 2000) if nobody has won by then.
- ``thousand-bot tournament --game thousand --strategies a,b,c --deals N [--seed S] [--budget-ms M]
  [--json]``: duplicate deals played locally with the engine (see :mod:`games.tournament`); with
  ``--games N`` whole games in duplicate instead, scored by games won, final scores and points per deal.

``--game blagogo`` plays 1000 Blagogo with its strategies (:mod:`bots.blagogo`) and 2 to 8 players:
``match`` creates a Blagogo table (``--target``, ``--turnover-limit`` for short games), ``play`` sits a
Blagogo bot at a Blagogo table, and ``tournament`` plays duplicate rounds locally (``--rounds`` N,
``--players`` P) or whole games (``--games`` N): the same driver for every game.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import sys
from collections.abc import Awaitable, Sequence
from typing import Any, Final

from bots.loading import BotLoadError, is_bot_spec, load_bot
from bots.registry import BLAGOGO_STRATEGIES, STRATEGIES, make_blagogo_strategy, make_strategy
from bots.strategy import Strategy, StrategyOptions
from clients.bots.example import CautiousBot
from clients.bots.ladder import print_standings, register, run_ladder
from clients.bots.options import build_parser
from clients.bots.progress import Progress, follow_match, seat_names
from clients.bots.sdk import AnyStrategy, BotResult, Placed, run_bot
from clients.connection import Connection
from clients.errors import ServerError, error_words
from clients.games import GameRules
from clients.i18n import language_from_env, t, use
from clients.seats import SeatKeeper
from clients.session import TableSession
from clients.table_calls import invite_attached
from engine import Rules
from engine.blagogo import BlagogoRules
from engine.events import Standing
from games import tournament_cli
from thousand.v1 import table_service_pb2 as pb

MAX_DEALS: Final = 2000
"""``match`` stops after this many deals by default: random players never reach 1000 (5000 deals and more)."""


def connection_from_args(args: argparse.Namespace) -> Connection:
    return Connection.from_env(
        args.server,
        tls=True if args.tls else None,
        ca_file=args.tls_ca,
        connect_timeout=args.connect_timeout,
        credential=args.player_token,
    )


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
    if is_bot_spec(name):
        bot: AnyStrategy = load_bot(name, options)
        return bot
    if game == "blagogo":
        return make_blagogo_strategy(name, options)
    return strategy_named(name, options)


def _label(name: str) -> str:
    """A strategy's name at the table: a bot file's class name, not its path."""
    return name.rpartition(":")[2] if is_bot_spec(name) else name


def _rules(args: argparse.Namespace, players: int) -> GameRules:
    if args.game == "blagogo":
        return BlagogoRules(players=players, target=args.target, turnover_limit=args.turnover_limit)
    return Rules(players=players)


def _pace(seconds: float) -> pb.TimeControl:
    """The new table's clocks: no turn clock, and the server's bots at ``seconds`` a move. The server's
    default pace (a second at tables with an open seat) is for people to follow; the open seat here is a
    bot's, which needs none: at that pace a whole game took half an hour."""
    control = pb.TimeControl()
    control.bot_pace.FromNanoseconds(round(seconds * 1e9))  # set even at 0: unset is the server's default
    return control


def _say(line: str) -> None:
    print(line, file=sys.stderr, flush=True)


async def _play(args: argparse.Namespace) -> int:
    """One bot at a live table, or (without --table) at a new table against the server's bots."""
    connection = connection_from_args(args)
    table_id = args.table
    if table_id is None:
        against = [n.strip() for n in args.against.split(",") if n.strip()]
        async with TableSession(connection) as lobby:
            table = await lobby.create_table(
                _rules(args, len(against) + 1),
                [None, *against],
                seed=args.seed,
                first_dealer=None if args.seed is None else 0,
                practice=args.seed is not None,
                time_control=_pace(args.bot_pace),
            )
        table_id = table.table_id
        _say(t("bot.table", table=table_id, against=", ".join(against)))
    result = await run_bot(
        _strategy(args.game, args.strategy, _options(args)),
        server=connection,
        table_id=table_id,
        seat=args.seat,
        name=args.name or _label(args.strategy),
        seed=args.seed or 0,
        log=_say,
        game=args.game,
        keeper=SeatKeeper(),
        invite_code=args.invite,
    )
    async with TableSession(connection) as lobby:
        names = seat_names(await lobby.get_table(table_id))
    _print_result(result.standings, result.finished, names, args.json)
    return 0 if result.finished else 1


async def _match(args: argparse.Namespace) -> int:
    """Create a table with one open seat per strategy and play it to the end, one gRPC client a seat, while a
    spectator says the scores and stops the match after --max-deals deals."""
    connection = connection_from_args(args)
    strategies = [n.strip() for n in args.strategies.split(",") if n.strip()]
    names = [_label(n) for n in strategies]
    async with TableSession(connection) as lobby:
        table = await lobby.create_table(
            _rules(args, len(strategies)),
            [None] * len(strategies),
            seed=args.seed,
            first_dealer=None if args.seed is None else 0,
            practice=args.seed is not None,  # a reproducible match is a practice table, marked seeded
        )
    log = _say if args.verbose else None

    def bot(seat: int, name: str) -> Awaitable[BotResult]:
        return run_bot(
            _strategy(args.game, name, _options(args, seat)),
            server=connection,
            table_id=table.table_id,
            seat=seat,
            name=_label(name),
            seed=(args.seed or 0) + seat,
            log=log,
            game=args.game,
        )

    bots: asyncio.Future[list[BotResult]] = asyncio.gather(
        *(bot(seat, name) for seat, name in enumerate(strategies))
    )
    watcher = asyncio.ensure_future(
        follow_match(connection, table.table_id, None if args.quiet else _say, args.max_deals, names)
    )
    either: list[asyncio.Future[Any]] = [bots, watcher]
    await asyncio.wait(either, return_when=asyncio.FIRST_COMPLETED)
    if watcher.done() and not watcher.result().finished and not bots.done():
        bots.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await bots
        progress = watcher.result()
        _print_stopped(progress, names, args.max_deals, args.json)
        return 1
    results = await bots
    watcher.cancel()
    with contextlib.suppress(asyncio.CancelledError):
        await watcher
    _print_result(results[0].standings, all(r.finished for r in results), names, args.json)
    return 0 if all(r.finished for r in results) else 1


def _print_result(standings: Sequence[Placed], finished: bool, names: Sequence[str], as_json: bool) -> None:
    def name(seat: int) -> str:
        return names[seat] if 0 <= seat < len(names) else t("seat.numbered", seat=seat)

    print(t("bot.final_standings") if finished else t("bot.not_finished"))
    for s in standings:
        bank = s.payout if isinstance(s, Standing) else 0
        print(t("bot.standing", place=s.place, seat=s.seat, name=name(s.seat), score=s.score, payout=bank))
    if as_json:
        rows = [
            {
                "seat": s.seat,
                "strategy": name(s.seat),
                "place": s.place,
                "score": s.score,
                "payout": s.payout if isinstance(s, Standing) else 0,
            }
            for s in standings
        ]
        print(json.dumps({"finished": finished, "standings": rows}))


def _print_stopped(progress: Progress, names: Sequence[str], max_deals: int, as_json: bool) -> None:
    print(t("bot.stopped", deals=progress.deals, max=max_deals))
    for seat, (name, total) in enumerate(zip(names, progress.totals, strict=False)):
        print(t("bot.seat_total", seat=seat, name=name, total=total))
    if as_json:
        scores = [
            {"seat": i, "strategy": n, "score": t}
            for i, (n, t) in enumerate(zip(names, progress.totals, strict=False))
        ]
        print(json.dumps({"finished": False, "deals": progress.deals, "scores": scores}))


def _ladder(parser: argparse.ArgumentParser, args: argparse.Namespace) -> int:
    """``thousand-bot ladder``: stay on the ladder with --strategy, or print --standings."""
    connection = connection_from_args(args)
    try:
        if args.standings:
            return asyncio.run(print_standings(connection, args.game, args.json))
        key = args.key or os.environ.get("THOUSAND_BOT_KEY", "")
        if not key:
            parser.error(t("bot.need_key"))
        if args.strategy is None:
            parser.error(t("bot.need_strategy"))
        if args.strategy not in _names(args.game) and not is_bot_spec(args.strategy):
            parser.error(t("bot.unknown_strategy", name=repr(args.strategy), known=known(args.game)))
        load_check = _strategy(args.game, args.strategy, _options(args))  # a bot file that fails, now
        del load_check
        return asyncio.run(
            run_ladder(
                connection,
                key,
                lambda game: _strategy(game, args.strategy, _options(args)),
                [args.game],
                say=_say,
                as_json=args.json,
                max_sets=args.max_sets,
            )
        )
    except KeyboardInterrupt:
        return 0
    except ServerError as error:
        print(t("bot.failed", error=error_words(error)), file=sys.stderr)
        return 2
    except BotLoadError as error:
        print(t("bot.failed", error=str(error)), file=sys.stderr)
        return 2


def _tournament_argv(args: argparse.Namespace) -> list[str]:
    """``thousand-bot tournament``'s options as :func:`games.tournament_cli.main` takes them (one command
    line for every game: what is not given, the game's tournament defaults)."""
    forwarded = [*args.strategies.split(","), "--game", args.game, "--deals", str(args.deals)]
    forwarded += [
        "--games",
        str(args.games),
        "--budget-ms",
        str(args.budget_ms),
        "--workers",
        str(args.workers),
    ]
    forwarded += ["--seed", str(args.seed if args.seed is not None else 1)]
    forwarded += [] if args.players is None else ["--players", str(args.players)]
    forwarded += [] if args.turnover_limit is None else ["--turnover-limit", str(args.turnover_limit)]
    forwarded += ["--json"] if args.json else []
    forwarded += ["--quiet"] if args.quiet else []
    return forwarded


def main(argv: Sequence[str] | None = None) -> int:
    use(language_from_env())  # every line and the options' help in the player's language
    parser = build_parser(known(), known("blagogo"), MAX_DEALS)
    args = parser.parse_args(invite_attached(sys.argv[1:] if argv is None else argv))

    if args.command == "tournament":
        if args.game == "thousand" and (args.players or 3) > 4:
            parser.error(t("bot.thousand_players"))
        return tournament_cli.main(_tournament_argv(args))
    if args.command == "ladder":
        return _ladder(parser, args)
    if args.command == "register":
        try:
            return asyncio.run(register(connection_from_args(args), args.name, args.json))
        except ServerError as error:
            print(t("bot.failed", error=error_words(error)), file=sys.stderr)
            return 2
    names = [args.strategy] if args.command == "play" else args.strategies.split(",")
    unknown = [n for n in names if n.strip() not in _names(args.game) and not is_bot_spec(n)]
    if unknown:
        parser.error(t("bot.unknown_strategy", name=repr(unknown[0]), known=known(args.game)))
    most = 8 if args.game == "blagogo" else 4
    if args.command == "match" and not 2 <= len(names) <= most:
        parser.error(t("bot.match_size", game=args.game, most=most))
    try:
        return asyncio.run(_play(args) if args.command == "play" else _match(args))
    except ServerError as error:
        print(t("bot.failed", error=error_words(error)), file=sys.stderr)
        return 2
    except BotLoadError as error:
        print(t("bot.failed", error=str(error)), file=sys.stderr)
        return 2
    except ValueError as error:  # a table of another game than --game
        print(t("bot.failed", error=str(error)), file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
