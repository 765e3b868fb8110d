"""The reference the exact open-card solver (:mod:`bots.solver`) is measured against, and the positions it is
measured on: written once for the test that checks the solver (``tests/test_bots_solver.py``) and the
benchmark that times it (``bench/solver.py``), so both judge the solver by the same reference.

It lives here, in the developer package both already import (as ``scripts.postgres``), rather than in
``bots`` (the shipped package: a slow brute force only tests and benchmarks call has no place beside the
strategies) or in ``tests`` (a benchmark would then import the test suite). It imports only the engine and
``bots``, below tests and bench, so imports keep running one way.
"""

from __future__ import annotations

import random

from bots.heuristic import rollout_action
from engine import Game, PlayCard, Rules
from engine.deal import Deal
from engine.phases import Phase


def minimax(deal: Deal) -> int:
    """The declarer's final deal points under best play, by the engine's rules: every legal card tried on a
    copy of the engine's deal, a K or Q of a marriage led declaring it (the solver's model). Deliberately
    plain, sharing no code with the solver, so an agreement between the two means something."""
    if deal.is_over:
        assert deal.declarer is not None
        return deal.deal_points(deal.declarer)
    plays = [a for a in deal.legal_actions() if isinstance(a, PlayCard)]
    declaring = {a.card.index for a in plays if a.marriage}
    values = []
    for action in plays:
        if action.card.index in declaring and not action.marriage:
            continue
        twin = deal.copy()
        seat = twin.to_act
        assert seat is not None
        twin.apply(seat, action)
        values.append(minimax(twin))
    return max(values) if deal.to_act == deal.declarer else min(values)


def endings(rules: Rules, cards: int, count: int) -> list[Deal]:
    """``count`` seeded deals in card play with ``cards`` cards (or fewer) in the hand of the seat to act:
    each seed's first deal played by the heuristic's rollout policy until it gets there (a deal that never
    does is passed over)."""
    rng = random.Random(rules.players * 100 + cards)
    found: list[Deal] = []
    seed = 0
    while len(found) < count:
        seed += 1
        game = Game(rules, seed)
        game.apply_chance()
        deal = game.deal
        assert deal is not None
        while not deal.is_over:
            seat = deal.to_act
            assert seat is not None
            if deal.phase is Phase.PLAY and deal.hands[seat].bit_count() <= cards:
                found.append(deal)
                break
            deal.apply(seat, rollout_action(deal, rng, 0.5))
    return found
