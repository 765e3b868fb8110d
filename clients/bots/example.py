"""An example bot, to copy: a whole Thousand player in a few dozen lines.

It plays safe: it never bids beyond its sure points, gives away its cheapest cards, names the lowest
contract, and in play wins a trick as cheaply as it can or else throws its cheapest card. Run it against a
live table with::

    thousand-bot play --server 127.0.0.1:50051 --table TABLE --strategy example

or from Python: ``asyncio.run(run_bot(CautiousBot(), server=..., table_id=...))`` (:mod:`clients.bots.sdk`).
"""

from __future__ import annotations

import random

from engine import Action, Bid, GiveCard, NameContract, Pass, PlayCard, View
from engine.cards import marriage_points_in, mask_of, points_of


class CautiousBot:
    """The SDK needs only ``name``, ``choose`` and ``observe`` (see :mod:`bots.strategy`)."""

    name = "example"

    def choose(self, view: View, rng: random.Random) -> Action:
        """Return one of ``view.legal_actions``: the SDK calls this on each of the seat's turns."""
        legal = view.legal_actions
        hand = mask_of(view.hand)
        bids = [a for a in legal if isinstance(a, Bid)]
        if bids or Pass() in legal:
            sure = points_of(hand) + marriage_points_in(hand)  # what the hand holds before the talon
            affordable = [b for b in bids if b.value <= sure]
            return affordable[0] if affordable else (Pass() if Pass() in legal else bids[0])
        gives = [a for a in legal if isinstance(a, GiveCard)]
        if gives:
            return min(gives, key=lambda a: a.card.points)
        contracts = [a for a in legal if isinstance(a, NameContract)]
        if contracts:
            return contracts[0]
        plays = [a for a in legal if isinstance(a, PlayCard)]
        if not plays:
            return rng.choice(legal)  # anything else (a discard with two players, a talon choice)
        if view.trick:
            led = view.trick[0][1]
            best = max((c for _, c in view.trick if c.suit == led.suit), key=lambda c: c.rank)
            winners = [a for a in plays if a.card.suit == led.suit and a.card.rank > best.rank]
            if winners and not any(c.suit == view.trump and led.suit != view.trump for _, c in view.trick):
                return min(winners, key=lambda a: a.card.rank)
            return min(plays, key=lambda a: (a.card.points, a.card.rank))
        marriages = [a for a in plays if a.marriage]
        return marriages[0] if marriages else max(plays, key=lambda a: a.card.rank)

    def observe(self, view: View) -> None:
        """This bot keeps no memory; a counting bot would note the cards played here."""
