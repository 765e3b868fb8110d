"""Verifiable deals: a commitment before the first card, checked against the revealed deal (T-33, T-35)."""

from __future__ import annotations

import dataclasses
import random

from engine import Game, Rules, events_for
from engine.events import DealRevealed, DeckShuffled
from engine.verify import DealChecker, commitment, order_from_seed, problem
from tests.scenario import DEALER, HANDS, TALON, dealt_game, of_type


def played(seed: int, deals: int) -> Game:
    game, rng = Game(Rules(), seed), random.Random(seed)
    while game.deals_dealt < deals or not game.is_chance_node:
        if game.is_chance_node:
            game.apply_chance()
        else:
            game.apply(game.to_act or 0, rng.choice(game.legal_actions()))
    return game


def test_every_seat_can_verify_every_deal() -> None:
    game = played(4, 12)
    for viewer in (0, 1, 2, None):
        checker = DealChecker()
        for event in events_for(game, viewer):
            checker.see(event)
        assert checker.problems == []
        assert len(checker.verified) == 12


def test_the_commitment_is_sent_before_any_card_and_hides_the_order() -> None:
    game = Game(Rules(), 9)
    events = game.apply_chance()
    shuffled = of_type(events, DeckShuffled)[0]
    assert events.index(shuffled) < min(i for i, e in enumerate(events) if type(e).__name__ == "HandDealt")
    assert len(shuffled.commitment) == 64
    deal = game.deal
    assert deal is not None and deal.deal_seed is not None
    assert shuffled.commitment == commitment(deal.salt, deal.deal_seed, deal.order)
    assert shuffled.commitment != commitment("", deal.deal_seed, deal.order)  # the salt matters
    assert order_from_seed(deal.deal_seed) == deal.order


def test_a_changed_deal_fails_verification() -> None:
    game = played(6, 2)
    shuffled = of_type(game.events, DeckShuffled)[0]
    revealed = of_type(game.events, DealRevealed)[0]
    assert problem(shuffled, revealed) is None
    swapped = (revealed.order[1], revealed.order[0], *revealed.order[2:])
    assert "does not match" in (problem(shuffled, dataclasses.replace(revealed, order=swapped)) or "")
    assert "does not match" in (problem(shuffled, dataclasses.replace(revealed, salt="00")) or "")


def test_a_stacked_deck_is_committed_without_a_seed() -> None:
    game, events = dealt_game(Rules(), DEALER, HANDS, [TALON])
    assert game.deal is not None and game.deal.deal_seed is None
    shuffled = of_type(events, DeckShuffled)[0]
    assert shuffled.commitment == commitment(game.deal.salt, None, game.deal.order)
