"""The engine's speed-ups agree with the plain definitions they replace (see bench/README.md).

The hot path of the engine uses lookup tables and hand-inlined library code; each is checked here against
the straightforward version, so a later edit to either side cannot drift silently.
"""

from __future__ import annotations

import random

import pytest

from engine.actions import PLAY, PLAY_MARRIAGE, PlayCard
from engine.cards import (
    CARDS,
    FULL_MASK,
    MARRIAGE_MASKS,
    MARRIAGE_POINTS,
    Card,
    Rank,
    Suit,
    cards_of,
    marriage_points_in,
    mask_of,
)
from engine.deal import Deal
from engine.errors import IllegalActionError, InvalidActionError
from engine.layout import DealSetup, _cut, dealt_masks
from engine.legal_tables import play_actions as _play_actions
from engine.phases import Phase
from engine.rules import Rules
from engine.seeds import derive_seed, seeded_shuffle
from tests.randomplay import first_deal, turns


def _masks(count: int) -> list[int]:
    rng = random.Random(1000)
    return [0, FULL_MASK, *(rng.getrandbits(24) for _ in range(count))]


def test_seeded_shuffle_is_random_shuffle_draw_for_draw() -> None:
    for seed in range(300):
        for number in (1, 2, 7, 50):
            order = list(CARDS)
            random.Random(derive_seed(seed, f"deal:{number}")).shuffle(order)
            assert seeded_shuffle(seed, number).order == tuple(order)


def test_cards_of_and_mask_of_agree_with_the_bits() -> None:
    for mask in _masks(5000):
        expected = tuple(CARDS[i] for i in range(24) if mask >> i & 1)
        assert cards_of(mask) == expected
        assert mask_of(expected) == mask


def test_mask_of_accepts_equal_cards_that_are_not_the_interned_ones() -> None:
    fresh = [Card(Suit.HEARTS, Rank.ACE), Card(Suit.SPADES, Rank.NINE)]
    assert mask_of(fresh) == 1 << CARDS.index(fresh[0]) | 1 << CARDS.index(fresh[1])


def test_marriage_points_in_sums_the_whole_marriages() -> None:
    for mask in _masks(5000):
        expected = sum(MARRIAGE_POINTS[s] for s in range(4) if mask & MARRIAGE_MASKS[s] == MARRIAGE_MASKS[s])
        assert marriage_points_in(mask) == expected


def _plain_play_actions(mask: int, marriage_mask: int) -> tuple[PlayCard, ...]:
    actions: list[PlayCard] = []
    for i in range(24):
        if mask >> i & 1:
            actions.append(PLAY[i])
            if marriage_mask >> i & 1:
                actions.append(PLAY_MARRIAGE[i])
    return tuple(actions)


def test_play_actions_table_matches_the_card_by_card_list() -> None:
    for mask in _masks(3000):
        queens = mask & mask >> 1 & sum(1 << (6 * s + Rank.QUEEN) for s in range(4))
        for marriage_mask in (0, queens | queens << 1):
            assert _play_actions(mask, marriage_mask) == _plain_play_actions(mask, marriage_mask)


@pytest.mark.parametrize(
    "order",
    [
        CARDS[:23],
        (*CARDS[:23], CARDS[0]),
        (*CARDS, CARDS[0]),
        (),
    ],
    ids=["short", "repeated card", "long", "empty"],
)
def test_a_shuffle_that_is_not_the_deck_is_rejected(order: tuple[Card, ...]) -> None:
    with pytest.raises(InvalidActionError):
        Deal(Rules(), DealSetup(1, 0), order)


@pytest.mark.parametrize("players", [2, 3, 4])
def test_deal_hands_and_talons_follow_the_dealing_order(players: int) -> None:
    order = seeded_shuffle(5, 1).order
    deal = Deal(Rules(players=players), DealSetup(1, 0), order)
    hand = 9 if players == 2 else 7
    for k, seat in enumerate(deal.active):
        assert deal.dealt[seat] == mask_of(order[k * hand : (k + 1) * hand])
    assert sum(m.bit_count() for m in deal.dealt) + sum(m.bit_count() for m in deal.dealt_talons) == 24


def _attributes(deal: Deal) -> list[str]:
    """Every attribute of a deal: ``__slots__`` when interpreted, mypyc's attribute list when compiled."""
    names = getattr(Deal, "__mypyc_attrs__", None) or Deal.__slots__
    return [name for name in names if not name.startswith("__")]


@pytest.mark.parametrize("players", [2, 3, 4])
def test_deal_copy_copies_every_attribute_and_shares_no_container(players: int) -> None:
    """``Deal.copy`` spells its attributes out; one added to Deal and not to copy() fails here."""
    rng = random.Random(players)
    for seed in range(6):
        deal = first_deal(Rules(players=players), seed)
        for _ in range(rng.randrange(30)):
            if deal.is_over:
                break
            seat = deal.to_act
            assert seat is not None
            deal.apply(seat, rng.choice(deal.legal_actions()))
        twin = deal.copy()
        names = _attributes(deal)
        assert len(names) >= 45
        for name in names:
            mine, theirs = getattr(deal, name), getattr(twin, name)
            assert theirs == mine, name
            if isinstance(mine, list | dict | set):
                assert theirs is not mine, f"{name} is shared between a deal and its copy"


_MASK_RULES = (
    Rules(players=3),
    Rules(players=3, must_beat=True),
    Rules(players=2),
    Rules(players=4, golden_deals=True),
    Rules(players=3, marriage_on_first_trick=True),
)


@pytest.mark.parametrize("rules", _MASK_RULES, ids=lambda r: f"{r.players}p-beat{r.must_beat}")
def test_play_masks_are_the_legal_lists_plays(rules: Rules) -> None:
    """``Deal.play_masks`` (the plays without building the legal list) holds exactly the cards of the legal
    list's plain plays and of its marriage plays, at every decision of seeded random deals; (0, 0) outside
    card play. A card applied before the list is built is accepted or refused as with the list built."""
    rng = random.Random(7)
    plays_seen = 0
    for seed in range(40):
        deal = first_deal(rules, seed)
        for seat in turns(deal):
            masks = deal.play_masks()  # before legal_actions(): computed from the state alone
            if deal.phase is Phase.PLAY:
                probe = deal.copy()
                wrong = [c for c in range(24) if not masks[0] >> c & 1]
                if wrong:  # refused by the fast path as by the list, with the deal left as it was
                    card = rng.choice(wrong)
                    with pytest.raises(IllegalActionError) as refused:
                        probe.apply(seat, PLAY[card])
                    listed = deal.copy()
                    listed.legal_actions()
                    with pytest.raises(IllegalActionError) as refused_too:
                        listed.apply(seat, PlayCard(CARDS[card]))
                    assert refused.value.reason is refused_too.value.reason
                    assert probe.hands == deal.hands and probe.trick == deal.trick
            legal = deal.legal_actions()
            plain = marriage = 0
            for a in legal:
                if type(a) is PlayCard:
                    if a.marriage:
                        marriage |= 1 << a.card.index
                    else:
                        plain |= 1 << a.card.index
            assert masks == (plain, marriage)
            plays_seen += bool(plain)
            deal.apply(seat, rng.choice(legal))
        assert deal.play_masks() == (0, 0)
    assert plays_seen > 200


@pytest.mark.parametrize("rules", _MASK_RULES, ids=lambda r: f"{r.players}p-beat{r.must_beat}")
def test_apply_legal_changes_a_deal_as_apply_does(rules: Rules) -> None:
    """``Deal.apply_legal`` (a search's apply of an action it took from the deal) gives the same events and
    the same state as ``apply`` at every step of seeded random deals, and the same state without events
    (``events=False``); out of turn it is refused alike."""
    rng = random.Random(11)
    for seed in range(30):
        deal = first_deal(rules, seed)
        twin, quiet = deal.copy(), deal.copy()
        for seat in turns(deal):
            if rng.random() < 0.2:
                with pytest.raises(IllegalActionError):
                    twin.copy().apply_legal((seat + 1) % rules.players, rng.choice(deal.legal_actions()))
            action = rng.choice(deal.legal_actions())
            assert twin.apply_legal(seat, action) == deal.apply(seat, action)
            assert quiet.apply_legal(seat, action, events=False) == []
            for name in _attributes(deal):
                if name not in ("_legal", "_play_mask", "_marriage_mask"):  # caches of the legal list
                    assert getattr(twin, name) == getattr(deal, name), name
                    assert getattr(quiet, name) == getattr(deal, name), name
            assert twin.legal_actions() == deal.legal_actions() == quiet.legal_actions()
        with pytest.raises(IllegalActionError):
            twin.apply_legal(0, PLAY[0])


@pytest.mark.parametrize("rules", [Rules(players=3), Rules(players=2), Rules(players=4)])
def test_remembered_dealt_masks_are_the_cut_ones(rules: Rules) -> None:
    """``dealt_masks`` remembers its answers by the order's identity (T-4 to T-6: hands, then talons): the
    answer is the cut one for the same order again, for an equal order that is another object, after the
    caller changed the list it got; a bad order still fails."""
    rng = random.Random(4)
    hands = 2 if rules.players == 2 else 3
    for _ in range(600):
        order = tuple(rng.sample(CARDS, len(CARDS)))
        first = dealt_masks(rules, hands, order)
        assert first == _cut(rules, hands, order)
        first[0] = -1
        assert dealt_masks(rules, hands, order) == _cut(rules, hands, order)
        assert dealt_masks(rules, hands, tuple(list(order))) == _cut(rules, hands, order)
    with pytest.raises(InvalidActionError):
        dealt_masks(rules, hands, (CARDS[0],) * 24)
