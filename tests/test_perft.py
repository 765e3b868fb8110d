"""Perft for Thousand (as chess engines count move paths): every line of play from fixed positions, counted.

``perft(deal, depth)`` walks every sequence of legal actions ``depth`` decisions deep (on ``Deal.copy()``s)
and counts the lines. The counts are pinned: any change to which actions the engine offers (T-34) changes a
count and fails here, in the interpreted engine and in the compiled one alike (tests/test_compiled_engine.py
runs this file on it). At every card-play decision on the way the engine's legal cards are also compared with
an independent reading of T-18 and T-20 (:func:`expected_plays`, over card objects rather than the engine's
bit masks), and every offered action must apply; every line that ends the deal must conserve the 24 cards
and the 120 card points (T-1).
"""

from __future__ import annotations

import random
from dataclasses import dataclass

import pytest

from bots.strategy import greedy_player
from engine import Card, Concede, DemandRedeal, Game, Phase, PlayCard, Rules, Suit
from engine.cards import CARDS
from engine.deal import Deal
from engine.observer import view


def expected_plays(deal: Deal, seat: int) -> set[tuple[Card, bool]]:
    """The (card, declares a marriage) plays T-18 and T-20 allow ``seat`` now, worked out from the cards."""
    hand = list(deal.hand(seat))
    trick = deal.trick_cards()
    trump = deal.trump
    if not trick:
        plays = {(card, False) for card in hand}
        if deal.tricks_played or deal.rules.marriage_on_first_trick:
            for card in hand:
                partner = {Card(card.suit, r) for r in (card.rank.QUEEN, card.rank.KING)} - {card}
                if card.rank in (card.rank.QUEEN, card.rank.KING) and partner <= set(hand):
                    plays.add((card, True))
        return plays
    return {(card, False) for card in _following(hand, trick, trump, deal.rules.must_beat)}


def _following(
    hand: list[Card], trick: tuple[tuple[int, Card], ...], trump: Suit | None, beat: bool
) -> list[Card]:
    lead = trick[0][1].suit
    same = [card for card in hand if card.suit == lead]
    if same:
        trumped = trump is not None and trump != lead and any(card.suit == trump for _, card in trick)
        if beat and not trumped:
            best = max(card.rank for _, card in trick if card.suit == lead)
            higher = [card for card in same if card.rank > best]
            if higher:
                return higher
        return same
    trumps = [card for card in hand if trump is not None and card.suit == trump]
    if trumps:
        played = [card.rank for _, card in trick if card.suit == trump]
        if beat and played:
            higher = [card for card in trumps if card.rank > max(played)]
            if higher:
                return higher
        return trumps
    return hand


@dataclass
class Walk:
    nodes: int = 0
    plays_checked: int = 0
    deals_ended: int = 0


def perft(deal: Deal, depth: int, walk: Walk) -> int:
    """The number of lines ``depth`` decisions deep from ``deal`` (a line that ends the deal earlier: one)."""
    walk.nodes += 1
    if deal.is_over:
        walk.deals_ended += 1
        _check_conserved(deal)
        return 1
    if depth == 0:
        return 1
    seat = deal.to_act
    assert seat is not None
    legal = deal.legal_actions()
    assert legal and len(set(legal)) == len(legal), legal
    if deal.phase is Phase.PLAY:
        plays = {(a.card, a.marriage) for a in legal if isinstance(a, PlayCard)}
        assert plays == expected_plays(deal, seat), (deal.hand(seat), deal.trick_cards(), deal.trump)
        walk.plays_checked += 1
    lines = 0
    for action in legal:
        if isinstance(action, Concede | DemandRedeal) and depth > 1:
            # Both end the deal at once: counted, not walked (they would only repeat the end-of-deal checks).
            lines += 1
            continue
        child = deal.copy()
        child.apply(seat, action)
        lines += perft(child, depth - 1, walk)
    return lines


def _check_conserved(deal: Deal) -> None:
    """T-1 at the end of a deal: every card somewhere exactly once; a played deal's tricks hold 120 points."""
    where = [c for seat in range(deal.rules.players) for c in deal.hand(seat)]
    won = [CARDS[i] for m in deal.won for i in range(24) if m >> i & 1]
    talons = [CARDS[i] for m in deal.talons for i in range(24) if m >> i & 1]
    assert sorted(c.index for c in where + won + talons) == list(range(24))
    if deal.redeal is None and not any(deal.hand(seat) for seat in range(deal.rules.players)):
        assert sum(c.rank.points for c in won) == 120


def start(rules: Rules, seed: int, *, to_play: bool, skip: int = 0) -> Deal:
    """The first deal of a seeded game, at its first decision or (``to_play``) at its first card, reached
    by greedy play, then ``skip`` more greedy decisions on."""
    game = Game(rules, seed)
    game.apply_chance()
    rng = random.Random(seed)
    deal = game.deal
    assert deal is not None
    while (to_play and deal.phase is not Phase.PLAY) or skip > 0:
        if deal.phase is Phase.PLAY:
            skip -= 1
        seat = game.to_act
        assert seat is not None
        game.apply(seat, greedy_player(view(game, seat), rng))
        deal = game.deal
        assert deal is not None and not deal.is_over, "greedy play ended the deal: pick another seed"
    return deal.copy()


POSITIONS = {
    # name: (rules, seed, from the first card?, greedy plays skipped, depth, lines)
    "3p-auction": (Rules(players=3), 1, False, 0, 6, 21299),
    "3p-dark-auction": (Rules(players=3, dark=True), 5, False, 0, 5, 1765),
    "3p-play": (Rules(players=3), 1, True, 0, 9, 20449),
    "3p-must-beat-play": (
        Rules(players=3, must_beat=True, marriage_on_first_trick=True),
        2,
        True,
        0,
        8,
        44330,
    ),
    "3p-endgame": (Rules(players=3), 1, True, 9, 15, 14064),
    "2p-play": (Rules(players=2), 3, True, 0, 7, 75925),
    "2p-endgame": (Rules(players=2), 3, True, 8, 16, 32184),
    "4p-play": (Rules(players=4), 4, True, 0, 6, 127473),
}


@pytest.mark.parametrize("name", sorted(POSITIONS))
def test_perft(name: str) -> None:
    """T-34 (with T-18, T-20, T-1): the number of lines from each position is pinned, and every card-play
    decision on the way offers exactly the plays T-18 and T-20 allow."""
    rules, seed, to_play, skip, depth, lines = POSITIONS[name]
    walk = Walk()
    counted = perft(start(rules, seed, to_play=to_play, skip=skip), depth, walk)
    assert counted == lines, f"{name}: {counted} lines ({walk})"
    if to_play:
        assert walk.plays_checked > 100
    if name.endswith("endgame"):
        assert walk.deals_ended == lines  # every line plays the deal out (T-1 checked at each end)
