"""``thousand-selfplay``: one seeded game between simple built-in players, printed deal by deal.

This is the engine's own demonstration (``make run`` before the server exists) and a smoke test of a whole
game. Its players are deliberately simple: ``random`` picks a uniformly random legal action (such players
almost never make a contract, so their games rarely end), ``greedy`` bids what its cards are worth and plays
the cheapest winning card. The real bots live in ``clients/bots``.
"""

from __future__ import annotations

import argparse
import random
import sys
from collections.abc import Callable, Sequence

from engine.actions import (
    Action,
    Bid,
    DeclineDark,
    DiscardCard,
    GiveCard,
    NameContract,
    Pass,
    PlayCard,
)
from engine.cards import MARRIAGE_MASKS, Card, marriage_points_in, mask_of, points_of
from engine.events import DealScored, GameOver, SheetMarked
from engine.game import Game
from engine.observer import View, view
from engine.rules import Rules

Player = Callable[[View, random.Random], Action]


def random_player(v: View, rng: random.Random) -> Action:
    """A uniformly random legal action."""
    return rng.choice(v.legal_actions)


def greedy_player(v: View, rng: random.Random) -> Action:
    """Bid what the hand is worth, give away the cheapest cards, take tricks as cheaply as possible."""
    legal = v.legal_actions
    hand = mask_of(v.hand)
    kinds = {type(a) for a in legal}
    if DeclineDark in kinds:
        return next(a for a in legal if isinstance(a, DeclineDark))
    if Bid in kinds or Pass in kinds:
        worth = points_of(hand) + marriage_points_in(hand) + 25
        bids = [a for a in legal if isinstance(a, Bid) and a.value <= worth]
        return bids[0] if bids else next((a for a in legal if isinstance(a, Pass)), legal[0])
    if GiveCard in kinds or DiscardCard in kinds:
        gives = [a for a in legal if isinstance(a, GiveCard | DiscardCard)]

        def cost(a: GiveCard | DiscardCard) -> tuple[bool, int]:
            pair = MARRIAGE_MASKS[a.card.suit]
            return (hand & pair == pair, a.card.points)

        return min(gives, key=cost)
    if NameContract in kinds:
        return next(a for a in legal if isinstance(a, NameContract))
    plays = [a for a in legal if isinstance(a, PlayCard)]
    if not plays:
        return rng.choice(legal)
    if not v.trick:
        marriages = [a for a in plays if a.marriage]
        if marriages:
            return max(marriages, key=lambda a: a.card.suit)
        return max(plays, key=lambda a: (a.card.rank, -a.card.suit))
    winning = [a for a in plays if _wins(v, a)]
    if winning:
        return min(winning, key=lambda a: a.card.rank)
    return min(plays, key=lambda a: (a.card.points, a.card.rank))


def _wins(v: View, action: PlayCard) -> bool:
    """Whether ``action`` would beat every card now in the trick."""
    best = v.trick[0][1]
    for _, c in v.trick[1:]:
        if _beats(c, best, v):
            best = c
    return _beats(action.card, best, v)


def _beats(card: Card, best: Card, v: View) -> bool:
    if card.suit == best.suit:
        return card.rank > best.rank
    return card.suit == v.trump


PLAYERS: dict[str, Player] = {"random": random_player, "greedy": greedy_player}


def play_game(
    rules: Rules, seed: int, players: Sequence[Player], max_deals: int, out: Callable[[str], None]
) -> Game:
    """Play one game; each seat's player gets only its own view (T-33). Prints one line per deal."""
    game = Game(rules, seed)
    rngs = [random.Random(f"{seed}:{seat}") for seat in range(rules.players)]
    out(f"Thousand, {rules.players} players, seed {seed}; first dealer: seat {game.first_dealer}")
    while not game.is_over and game.deals_dealt < max_deals:
        if game.is_chance_node:
            game.apply_chance()
            continue
        seat = game.to_act
        assert seat is not None
        events = game.apply(seat, players[seat](view(game, seat), rngs[seat]))
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
    if not game.is_over:
        out(f"No winner after {game.deals_dealt} deals. Standings so far:")
        for seat in sorted(range(rules.players), key=lambda s: -game.records[s].score):
            out(f"  seat {seat}: {game.records[seat].score}")
    return game


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="thousand-selfplay", description=__doc__.splitlines()[0])
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--players", type=int, default=3, choices=(2, 3, 4))
    parser.add_argument("--player", choices=sorted(PLAYERS), default="greedy", help="who plays every seat")
    parser.add_argument("--max-deals", type=int, default=500)
    parser.add_argument("--golden-deals", action="store_true")
    parser.add_argument("--dark", action="store_true")
    parser.add_argument("--bank", type=int, default=0)
    args = parser.parse_args(argv)
    rules = Rules(players=args.players, golden_deals=args.golden_deals, dark=args.dark, bank=args.bank)
    game = play_game(rules, args.seed, [PLAYERS[args.player]] * args.players, args.max_deals, print)
    return 0 if game.is_over else 1


if __name__ == "__main__":
    sys.exit(main())
