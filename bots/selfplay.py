"""``thousand-selfplay``: one seeded game between bots of the registry, printed deal by deal.

This is the project's demonstration (``make demo``) and a smoke test of a whole game: no server, just the
engine and one strategy object per seat, each seeing only its own seat's view (T-33). ``greedy`` (the
default) bids what its cards are worth and plays the cheapest winning card; ``random`` picks a uniformly
random legal action (such players almost never make a contract, so their games rarely end); ``heuristic``
and ``ismcts`` are the real bots (:mod:`bots.registry`).
"""

from __future__ import annotations

import argparse
import random
import sys
from collections.abc import Callable, Sequence

from bots.registry import STRATEGIES, make_strategy
from bots.strategy import Strategy
from engine import Game, Rules, view
from engine.events import DealScored, GameOver, SheetMarked


def play_game(
    rules: Rules, seed: int, players: Sequence[Strategy], max_deals: int, out: Callable[[str], None]
) -> Game:
    """Play one game, ``players[seat]`` deciding for each seat from its own view (one strategy object a
    seat); every seat observes its view after each change. Prints one line per deal."""
    game = Game(rules, seed)
    rngs = [random.Random(f"{seed}:{seat}") for seat in range(rules.players)]
    out(f"Thousand, {rules.players} players, seed {seed}; first dealer: seat {game.first_dealer}")
    while not game.is_over and game.deals_dealt < max_deals:
        if game.is_chance_node:
            game.apply_chance()
        else:
            seat = game.to_act
            assert seat is not None
            events = game.apply(seat, players[seat].choose(view(game, seat), rngs[seat]))
            _print_deal(rules, events, out)
        for s, player in enumerate(players):
            player.observe(view(game, s))
    if not game.is_over:
        out(f"No winner after {game.deals_dealt} deals. Standings so far:")
        for seat in sorted(range(rules.players), key=lambda s: -game.records[s].score):
            out(f"  seat {seat}: {game.records[seat].score}")
    return game


def _print_deal(rules: Rules, events: Sequence[object], out: Callable[[str], None]) -> None:
    for event in events:
        if isinstance(event, DealScored):
            marks = [e for e in events if isinstance(e, SheetMarked)]
            notes = ", ".join(f"seat {m.seat} {m.mark.value}" for m in marks)
            out(
                f"deal {event.number:3}: seat {event.declarer} {event.outcome.value} {event.contract}"
                f"{' (doubled)' if event.doubled else ''}; deltas {list(event.deltas)}; "
                f"totals {list(event.totals)}{'; ' + notes if notes else ''}"
            )
        elif isinstance(event, GameOver):
            out("Final standings:")
            for s in event.standings:
                payout = f" (bank {s.payout:+})" if rules.bank else ""
                out(f"  {s.place}. seat {s.seat}: {s.score}{payout}")


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="thousand-selfplay", description=__doc__.splitlines()[0])
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--players", type=int, default=3, choices=(2, 3, 4))
    parser.add_argument("--player", choices=sorted(STRATEGIES), default="greedy", help="who plays every seat")
    parser.add_argument("--max-deals", type=int, default=500)
    parser.add_argument("--golden-deals", action="store_true")
    parser.add_argument("--dark", action="store_true")
    parser.add_argument("--bank", type=int, default=0)
    args = parser.parse_args(argv)
    rules = Rules(players=args.players, golden_deals=args.golden_deals, dark=args.dark, bank=args.bank)
    players = [make_strategy(args.player) for _ in range(args.players)]
    game = play_game(rules, args.seed, players, args.max_deals, print)
    return 0 if game.is_over else 1


if __name__ == "__main__":
    sys.exit(main())
