"""The search's speed-ups (bench/ismcts_speed.py) agree with the plain definitions they replace.

``bench/ismcts_speed.py --games 3 --check FILE`` holds whole games' decisions to a recording; these tests tie
the rewritten helpers to their straightforward versions, so that a later edit to either cannot drift.
"""

from __future__ import annotations

import random

import pytest

from bots.card_play import (
    _ABOVE,
    Knowledge,
    _fallback_lead,
    _highest_dump,
    _keep_value,
    _lowest,
    choose_play,
    knowledge_from_deal,
    make_knowledge,
)
from bots.cardlib import CARD_POINTS, MARRIAGE_MASKS, indices, marriage_cards
from bots.heuristic import TUNING, _give_order, give_order, rollout_action
from bots.ismcts import rollout
from bots.valuation import estimate, estimate_declarer_points, model_for
from engine import Action, DemandRedeal, Phase, PlayCard, Rules, TwoPlayerDeal
from engine.actions import PLAY, PLAY_MARRIAGE
from engine.cards import FULL_MASK, points_of
from engine.deal import Deal
from tests.randomplay import first_deal, turns


def test_marriage_cards_are_the_whole_marriages_kings_and_queens() -> None:
    rng = random.Random(3)
    for hand in [0, FULL_MASK, *(rng.getrandbits(24) for _ in range(3000))]:
        whole = [m for m in MARRIAGE_MASKS if hand & m == m]
        assert marriage_cards(hand) == sum(whole)


def _plain_rollout_action(deal: Deal, relative: float) -> Action:
    """The rollout's card play as it was written, from the legal list (bots/heuristic.py before the masks)."""
    legal = deal.legal_actions()
    if len(legal) == 1:
        return legal[0]
    plain = marriage = 0
    for a in legal:
        if type(a) is PlayCard:
            if a.marriage:
                marriage |= 1 << a.card.index
            else:
                plain |= 1 << a.card.index
        elif type(a) is DemandRedeal and relative >= 0.3:
            return a
    seat = deal.to_act
    assert seat is not None
    index, declare = choose_play(knowledge_from_deal(deal, seat), plain | marriage, marriage)
    return PLAY_MARRIAGE[index] if declare else PLAY[index]


def _fields(k: Knowledge) -> dict[str, object]:
    """Every data attribute of ``k`` by name (the interpreted class's slots, the compiled one's fields)."""
    names = [n for n in dir(k) if not n.startswith("_") and not callable(getattr(k, n))]
    return {name: getattr(k, name) for name in names}


def _plain_knowledge(deal: Deal, seat: int) -> Knowledge:
    """knowledge_from_deal as it was written, through the constructor."""
    played = 0
    for m in deal.won:
        played |= m
    taken = points_of(played)
    trick = [(s, c.index) for s, c in deal.trick_cards()]
    for _, i in trick:
        played |= 1 << i
    assert deal.declarer is not None
    return make_knowledge(
        seat=seat,
        active=deal.active,
        declarer=deal.declarer,
        hand=deal.hands[seat],
        trick=trick,
        trump=None if deal.trump is None else int(deal.trump),
        played=played & FULL_MASK,
        voids={},
        rules=deal.rules,
        declarer_points=deal.deal_points(deal.declarer),
        taken_points=taken,
        contract=deal.contract,
        trickless=deal.tricks_won[seat] == 0,
    )


@pytest.mark.parametrize(
    "rules", [Rules(players=3), Rules(players=2), Rules(players=4, golden_deals=True), Rules(must_beat=True)]
)
@pytest.mark.parametrize("relative", [0.0, 0.5])
def test_rollout_card_play_is_the_legal_lists(rules: Rules, relative: float) -> None:
    """In card play ``rollout_action`` (which reads ``Deal.play_masks``) picks what the legal list gave,
    ``knowledge_from_deal`` is what the constructor makes of the deal, ``after_me`` (remembered by seating)
    the seats after this one, and ``_lowest`` is the ``min`` by (keep value, index) it replaces."""
    rng = random.Random(5)
    plays = 0
    for seed in range(25):
        deal = first_deal(rules, seed)
        for seat in turns(deal):
            if deal.phase is Phase.PLAY:
                before = _plain_rollout_action(deal.copy(), relative)
                assert rollout_action(deal, rng, relative) is before
                k = knowledge_from_deal(deal, seat)
                plain = _plain_knowledge(deal, seat)
                fields = _fields(plain)
                assert len(fields) == 14
                assert fields == _fields(k)
                start = deal.active.index(deal.trick[0][0] if deal.trick else seat)
                n = len(deal.active)
                after = tuple(deal.active[(start + j) % n] for j in range(len(deal.trick) + 1, n))
                assert k.after_me() == after
                legal, _ = deal.play_masks()
                assert _lowest(k, legal) == min(indices(legal), key=lambda i: (_keep_value(k, i), i))
                plays += 1
            deal.apply(seat, rollout_action(deal, rng, relative))
    assert plays > 300


def test_remembered_give_orders_and_estimates_are_the_computed_ones() -> None:
    """``give_order`` and ``estimate_declarer_points`` remember what they worked out: the remembered answer is
    the computed one, and a caller that changes the list it got does not change the next answer."""
    rng = random.Random(9)
    for rules in (
        Rules(players=3),
        Rules(players=2),
        Rules(players=2, two_player_deal=TwoPlayerDeal.TEN_AND_TWO_TALONS_OF_2),
    ):
        for _ in range(300):
            hand = sum(1 << i for i in rng.sample(range(24), 10))
            first = give_order(hand)
            assert first == _give_order(hand)
            first.reverse()
            assert give_order(hand) == _give_order(hand)
            for stage in ("bid", "play"):
                mean, sigma = estimate_declarer_points(rules, hand, stage)
                model = model_for(rules, stage)
                assert (mean, sigma) == (estimate(model, hand), model.sigma)
                assert estimate_declarer_points(rules, hand, stage) == (mean, sigma)


@pytest.mark.parametrize(
    "rules", [Rules(players=3), Rules(players=2), Rules(players=4, golden_deals=True), Rules(must_beat=True)]
)
def test_the_search_s_rollout_plays_what_rollout_action_plays(rules: Rules) -> None:
    """``bots.ismcts.rollout`` chooses the cards itself, without ``rollout_action``: from every position of
    seeded deals it plays the deal to the same end, card by card, with the same draws from its generator."""
    finished = 0
    for seed in range(12):
        deal = first_deal(rules, seed)
        for seat in turns(deal):
            for relative in (0.0, 0.5):
                fast, plain = deal.copy(), deal.copy()
                fast_rng, plain_rng = random.Random(seed), random.Random(seed)
                rollout(fast, fast_rng, relative, TUNING)
                while not plain.is_over:
                    to_act = plain.to_act
                    assert to_act is not None
                    plain.apply(to_act, rollout_action(plain, plain_rng, relative))
                assert fast.taken_tricks == plain.taken_tricks
                assert (fast.outcome, fast.marriages, fast.won) == (plain.outcome, plain.marriages, plain.won)
                assert fast_rng.getstate() == plain_rng.getstate()
                finished += 1
            deal.apply(seat, rollout_action(deal, random.Random(seed), 0.5))
    assert finished > 300


def _plain_highest_dump(k: Knowledge, legal: int) -> int:
    """card_play._highest_dump as it was written, with a ``max`` by (points, -index)."""
    cards = indices(legal)
    plain = [
        i
        for i in cards
        if (_ABOVE[i] & k.out) and not k.married >> i & 1 and i // 6 != k.trump  # not a master
    ]
    if plain:
        return max(plain, key=lambda i: (CARD_POINTS[i], -i))
    return _lowest(k, legal)


def _plain_fallback_lead(k: Knowledge, hand: int, declarer: bool) -> int:
    """The end of card_play._lead as it was written: ``max`` and ``min`` with key functions."""
    cards = indices(hand)
    if not declarer:
        plain = [i for i in cards if not k.married >> i & 1] or cards
        return max(plain, key=lambda i: (i % 6, -(i // 6)))

    def lead_cost(i: int) -> tuple[float, int]:
        cost = _keep_value(k, i)
        rank = i % 6
        if rank == 4 and (k.out >> (i + 1) & 1):  # a ten while the ace is out
            cost += 15.0
        if rank in (3, 2) and (k.out & MARRIAGE_MASKS[i // 6]):  # a king or queen
            cost += 3.0
        return cost, i

    return min(cards, key=lead_cost)


def test_rewritten_card_choices_are_the_max_and_min_they_replace() -> None:
    """``_highest_dump`` and ``_fallback_lead`` scan the mask once instead of ``max``/``min`` with keys: the
    same card for random hands, cards out, trumps and marriages."""
    rng = random.Random(11)
    for _ in range(4000):
        cards = rng.sample(range(24), 14)
        hand = sum(1 << i for i in cards[:7])
        played = sum(1 << i for i in cards[7 : rng.randrange(7, 15)])
        trump = rng.choice([None, 0, 1, 2, 3])
        k = make_knowledge(
            0,
            (0, 1, 2),
            rng.randrange(3),
            hand,
            trick=[],
            trump=trump,
            played=played,
            voids={},
            rules=Rules(),
        )
        legal = hand & rng.getrandbits(24) or hand
        assert _highest_dump(k, legal) == _plain_highest_dump(k, legal)
        for declarer in (False, True):
            assert _fallback_lead(k, legal, declarer) == _plain_fallback_lead(k, legal, declarer)


def test_indices_by_suit_tables_are_the_bit_walk() -> None:
    """``indices`` reads a deck mask's indices from per-suit tables: the set bits, lowest first, as a list the
    caller may change; a mask beyond the deck still walks its bits."""
    rng = random.Random(12)
    for mask in [0, FULL_MASK, 1 << 24 | 5, *(rng.getrandbits(rng.choice([24, 30])) for _ in range(3000))]:
        got = indices(mask)
        assert got == [i for i in range(mask.bit_length()) if mask >> i & 1]
        got.append(99)
        assert 99 not in indices(mask)
