"""Property tests over random 1000 Blagogo games: legal actions and the validator (B-11, B-13, B-14, B-22).

The legal list is exactly the legal simple actions and a rejected action changes nothing (B-22); the exact
validator of LayMelds agrees with a reference written from B-2, B-11, B-13 and B-14 on random melds,
candidates mutated and near-melds.
Games are played by the seeded random player of :mod:`engine.blagogo.randomplay`; the rules, seeds and
settings they share: :mod:`tests.blagogo_property_helpers`.
"""

from __future__ import annotations

import random
from collections.abc import Iterator

import pytest
from hypothesis import given

from engine.blagogo import (
    AddToMeld,
    BlagogoRules,
    Card,
    Discard,
    DrawFromDeck,
    End,
    Game,
    LayMelds,
    MeldSpec,
    Phase,
    Rank,
    Stands,
    Suit,
    SwapJoker,
    TakeFromBridge,
)
from engine.blagogo.actions import Action
from engine.blagogo.cards import CARDS, RUN_VALUE, SET_VALUE
from engine.blagogo.randomplay import states
from engine.errors import ActionError
from tests.blagogo_helpers import rnd
from tests.blagogo_property_helpers import (
    MAX_ACTIONS,
    MAX_ROUNDS,
    RULES,
    SEEDS,
    light_settings,
    property_settings,
)


def fingerprint(game: Game) -> str:
    r = game.round
    inner = (
        ()
        if r is None
        else (
            r.hands,
            r.deck,
            r.bridge,
            r.melds,
            r.opened,
            r.phase,
            r.to_act,
            r.must_meld,
            r.known,
            r.turns,
            r.opened_on_turn,
            r.turnovers,
        )
    )
    return repr((inner, len(game.events), len(game.history), game.scores, game.winner, game.dealer))


def sampled_states(rules: BlagogoRules, seed: int, every: int) -> Iterator[Game]:
    """Every ``every``-th state of a random game, decision points only."""
    for i, game in enumerate(states(rules, seed, MAX_ROUNDS, MAX_ACTIONS)):
        if i % every == 0 and game.to_act is not None:
            yield game


# ---------------------------------------------------------------------------------------------- B-22


def simple_universe(game: Game) -> list[Action]:
    """Every simple action worth trying now (legal or not): every draw, position, discard, swap, and every
    single-card addition of a card in hand, with every joker meaning of its rank, at every end."""
    r = rnd(game)
    seat = game.to_act
    assert seat is not None
    actions: list[Action] = [DrawFromDeck()]
    actions += [TakeFromBridge(p) for p in range(-1, len(r.bridge) + 2)]
    actions += [Discard(c) for c in CARDS]
    hand = r.hand(seat)
    for m in r.melds:
        for c in hand:
            actions.append(SwapJoker(m.id, c))
            if not c.is_joker:
                actions += [AddToMeld(m.id, (c,), (), end) for end in (None, End.LOW, End.HIGH)]
                continue
            for rank in Rank:
                suit = m.suit if m.suit is not None else Suit.HEARTS
                for meaning in (Stands(rank), Stands(rank, suit), Stands(rank, Suit((suit + 1) % 4))):
                    actions += [AddToMeld(m.id, (c,), (meaning,), end) for end in (None, End.LOW, End.HIGH)]
        actions.append(SwapJoker(m.id, CARDS[0]))
    return actions


@light_settings
@given(rules=RULES, seed=SEEDS)
def test_b22_legal_actions_are_exactly_the_legal_simple_actions(rules: BlagogoRules, seed: int) -> None:
    """B-22: every listed action passes the validator, and of every simple action one could try, the
    validator accepts exactly the listed ones; every candidate meld passes the validator too. (No action
    listed twice, and something to do at every decision: tests/test_engine_conformance.py.)"""
    for game in sampled_states(rules, seed, every=9):
        seat = game.to_act
        assert seat is not None
        legal = set(game.legal_actions())
        accepted = {a for a in simple_universe(game) if game.is_legal(seat, a)}
        assert accepted == legal
        for candidate in game.candidate_melds():
            assert isinstance(candidate, LayMelds)
            game.validate(seat, candidate)


@light_settings
@given(rules=RULES, seed=SEEDS)
def test_b22_rejected_actions_leave_the_game_unchanged(rules: BlagogoRules, seed: int) -> None:
    """B-22: an illegal action raises with a reason and leaves the whole game exactly as it was."""
    rng = random.Random(seed)
    for game in sampled_states(rules, seed, every=11):
        seat = game.to_act
        assert seat is not None
        illegal = [a for a in simple_universe(game) if not game.is_legal(seat, a)]
        illegal += [a for a in random_lays(game, rng, 10) if not game.is_legal(seat, a)]
        before = fingerprint(game)
        for action in rng.sample(illegal, min(15, len(illegal))):
            with pytest.raises(ActionError) as info:
                game.apply(seat, action)
            assert info.value.message
            assert fingerprint(game) == before
        other = (seat + 1) % rules.players
        with pytest.raises(ActionError):
            game.apply(other, game.legal_actions()[0] if game.legal_actions() else DrawFromDeck())
        assert fingerprint(game) == before


# -- the exact validator of LayMelds against a reference written from B-2, B-11, B-13 and B-14


def reference_points(cards: tuple[Card, ...], jokers: tuple[Stands, ...]) -> int | None:
    """The meld's value (B-2) if the cards with these joker meanings are a meld (B-14), else None."""
    naturals = [c for c in cards if not c.is_joker]
    if len(cards) < 3 or not naturals or len(jokers) != len(cards) - len(naturals):
        return None
    if all(j.suit is None for j in jokers):
        ranks = {c.rank for c in naturals} | {j.rank for j in jokers}
        suits = [c.suit for c in naturals]
        if len(ranks) == 1 and len(set(suits)) == len(suits) and len(cards) <= 4:
            rank = ranks.pop()
            assert rank is not None
            return SET_VALUE[rank] * len(cards)
    if all(j.suit is not None for j in jokers):
        suits_all = {c.suit for c in naturals} | {j.suit for j in jokers}
        ranks_list = [int(c.rank) for c in naturals if c.rank is not None] + [int(j.rank) for j in jokers]
        if len(suits_all) == 1 and len(set(ranks_list)) == len(cards):
            for low in range(13):
                if {(low + i) % 13 for i in range(len(cards))} == set(ranks_list):
                    return sum(RUN_VALUE[r] for r in ranks_list)
    return None


def reference_legal(game: Game, seat: int, action: LayMelds) -> bool:
    r = rnd(game)
    if r.phase is not Phase.PLAY or seat != game.to_act or r.must_meld is not None:
        raise AssertionError("only compared in the meld phase without a pending bridge card")
    hand = set(r.hand(seat))
    rules = game.rules
    used: list[Card] = []
    worth: list[int] = []
    for spec in action.melds:
        points = reference_points(spec.cards, spec.jokers)
        if points is None:
            return False
        if rules.max_jokers_per_meld and sum(c.is_joker for c in spec.cards) > rules.max_jokers_per_meld:
            return False
        used += spec.cards
        worth.append(points)
    if len(set(used)) != len(used) or not set(used) <= hand or len(used) >= len(hand):
        return False
    opening = max(worth) if rules.opening_one_meld else sum(worth)  # B-11 and its variant
    return r.opened[seat] or opening >= rules.opening_min_points


def random_lays(game: Game, rng: random.Random, count: int) -> list[LayMelds]:
    """Random LayMelds from the hand: candidate melds, as they are or mutated (a card dropped, added or
    replaced by another, a joker given another meaning), near-melds (one rank, or one suit close together)
    with random joker meanings, some arbitrary cards, and now and then two melds in one action."""
    seat = game.to_act
    assert seat is not None
    hand = list(rnd(game).hand(seat))
    naturals = [c for c in hand if not c.is_joker]
    jokers = [c for c in hand if c.is_joker]
    whole = [lay for lay in game.candidate_melds() if isinstance(lay, LayMelds)]
    candidates = [m for lay in whole for m in lay.melds]
    out: list[LayMelds] = []
    for _ in range(count):
        if whole and rng.random() < 0.4:
            melds = list(rng.choice(whole).melds)
            i = rng.randrange(len(melds))
            melds[i] = mutate(rng, melds[i], hand)
            out.append(LayMelds(tuple(melds)))
            continue
        specs: list[MeldSpec] = []
        for _ in range(rng.choice((1, 1, 1, 2, 3))):
            if candidates and rng.random() < 0.5:
                specs.append(mutate(rng, rng.choice(candidates), hand))
            else:
                specs.append(random_spec(rng, hand, naturals, jokers))
        out.append(LayMelds(tuple(specs)))
    return out


def mutate(rng: random.Random, spec: MeldSpec, hand: list[Card]) -> MeldSpec:
    cards = list(spec.cards)
    meanings = list(spec.jokers)
    roll = rng.random()
    if roll < 0.3:
        return spec
    if roll < 0.45 and len(cards) > 1:
        i = rng.randrange(len(cards))
        if cards[i].is_joker:
            meanings.pop(sum(1 for c in cards[:i] if c.is_joker))
        cards.pop(i)
    elif roll < 0.6:
        extra = rng.choice(hand)
        cards.insert(rng.randrange(len(cards) + 1), extra)
        if extra.is_joker:
            meanings = [*meanings, Stands(Rank(rng.randrange(13)), rng.choice((None, *Suit)))]
            cards.remove(extra)
            cards.append(extra)
    elif roll < 0.75 and meanings:
        i = rng.randrange(len(meanings))
        meanings[i] = Stands(Rank(rng.randrange(13)), rng.choice((None, meanings[i].suit)))
    else:
        i = rng.randrange(len(cards))
        twins = [c for c in hand if c != cards[i] and (c.same_face(cards[i]) or rng.random() < 0.1)]
        if twins and not cards[i].is_joker:
            cards[i] = rng.choice(twins)
            if cards[i].is_joker:
                meanings.insert(
                    sum(1 for c in cards[:i] if c.is_joker),
                    Stands(Rank(rng.randrange(13)), rng.choice((None, *Suit))),
                )
    return MeldSpec(tuple(cards), tuple(meanings))


def random_spec(rng: random.Random, hand: list[Card], naturals: list[Card], jokers: list[Card]) -> MeldSpec:
    if not naturals or rng.random() < 0.15:
        cards = rng.sample(hand, min(len(hand), rng.randint(2, 5)))
    else:
        pivot = rng.choice(naturals)
        assert pivot.rank is not None and pivot.suit is not None
        if rng.random() < 0.5:
            pool = [c for c in naturals if c.rank == pivot.rank and c != pivot]
        else:
            pool = [
                c
                for c in naturals
                if c.suit == pivot.suit
                and c != pivot
                and c.rank is not None
                and (c.rank - pivot.rank) % 13 <= 4
            ]
        picked = rng.sample(pool, min(len(pool), rng.randint(1, 4)))
        cards = [pivot, *picked, *rng.sample(jokers, rng.randint(0, len(jokers)))]
        rng.shuffle(cards)
    meanings: list[Stands] = []
    anchor = next((c for c in cards if not c.is_joker), None)
    for c in cards:
        if not c.is_joker:
            continue
        if anchor is None or anchor.rank is None or anchor.suit is None or rng.random() < 0.1:
            meanings.append(Stands(Rank(rng.randrange(13)), rng.choice((None, *Suit))))
        elif rng.random() < 0.5:
            meanings.append(Stands(anchor.rank))
        else:
            meanings.append(Stands(Rank((anchor.rank + rng.randint(-3, 3)) % 13), anchor.suit))
    return MeldSpec(tuple(cards), tuple(meanings))


@property_settings
@given(rules=RULES, seed=SEEDS)
def test_b14_b11_b13_lay_melds_validator_matches_the_reference(rules: BlagogoRules, seed: int) -> None:
    """B-14 (shapes, jokers), B-11 (the opening's minimum), B-13 (a card left): the exact validator accepts
    a random LayMelds exactly when a reference written from the rules does."""
    rng = random.Random(seed ^ 0x5EED)
    for game in sampled_states(rules, seed, every=3):
        r = rnd(game)
        seat = game.to_act
        assert seat is not None
        if r.phase is not Phase.PLAY or r.must_meld is not None:
            continue
        for action in random_lays(game, rng, 12):
            expected = reference_legal(game, seat, action)
            assert game.is_legal(seat, action) == expected, action
