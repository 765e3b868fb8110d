"""Property tests of 1000 Blagogo over random games and rules (B-1, B-4, B-10, B-11, B-13, B-14, B-17-B-23).

Games are driven by the seeded random player of :mod:`engine.blagogo.randomplay` (random simple actions and
random candidate melds); hypothesis draws the rules and the seed. Checks that need the whole state at every
step (views of every seat, the exact validator against every simple action) run on a sample of steps.
"""

from __future__ import annotations

import dataclasses
import random
from collections.abc import Iterator
from functools import cache
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from engine.blagogo import (
    SPECTATOR,
    AddToMeld,
    BlagogoRules,
    Card,
    CompletedSetKeeper,
    Discard,
    DrawFromDeck,
    End,
    Game,
    LayMelds,
    LayoffScores,
    MeldKind,
    MeldSpec,
    Phase,
    Rank,
    Round,
    Shuffle,
    Stands,
    Suit,
    SwapJoker,
    TakeFromBridge,
    event_for,
    view,
)
from engine.blagogo.actions import Action
from engine.blagogo.cards import CARDS, RUN_VALUE, SET_VALUE, WIN_BONUS, hand_penalty
from engine.blagogo.events import (
    BridgeStarted,
    BridgeTaken,
    CardDrawn,
    Discarded,
    HandDealt,
    JokerSwapped,
    MeldExtended,
    MeldsLaid,
    RoundRevealed,
    RoundScored,
    RoundStarted,
)
from engine.blagogo.randomplay import play, random_action, states
from engine.blagogo.scoring import meld_points
from engine.errors import ActionError, RulesError

SEEDS = st.integers(min_value=0, max_value=2**64 - 1)
MAX_ROUNDS = 2
MAX_ACTIONS = 3000
"""Per example: random rounds usually end within a few hundred actions; a dead round is cut off here."""

property_settings = settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
light_settings = settings(property_settings, max_examples=15)


@st.composite
def any_rules(draw: st.DrawFn, players: int | None = None) -> BlagogoRules:
    return BlagogoRules(
        players=players if players is not None else draw(st.integers(2, 8)),
        ace_in_hand=draw(st.sampled_from((10, 25)) | st.integers(0, 50)),
        bridge_take_must_meld=draw(st.booleans()),
        opening_min_points=draw(st.sampled_from((30, 0)) | st.integers(0, 80)),
        layoff_scores_for=draw(st.sampled_from(LayoffScores)),
        kantrame_first_turn_only=draw(st.booleans()),
        target=draw(st.sampled_from((1000, 100)) | st.integers(1, 2000)),
        turnover_limit=draw(st.sampled_from((0, 1, 3))),
        opening_one_meld=draw(st.booleans()),
        completed_set_keeper=draw(st.sampled_from(CompletedSetKeeper)),
        play_on_own_melds=draw(st.booleans()),
        max_jokers_per_meld=draw(st.sampled_from((0, 0, 1, 2))),
    )


RULES = st.one_of(st.integers(2, 8).map(lambda p: BlagogoRules(players=p)), any_rules())


# ---------------------------------------------------------------------------------------------- helpers


def rnd(game: Game) -> Round:
    assert game.round is not None
    return game.round


def round_start(game: Game) -> int:
    """Index in ``game.events`` of the current round's RoundStarted."""
    for i in range(len(game.events) - 1, -1, -1):
        if isinstance(game.events[i], RoundStarted):
            return i
    raise AssertionError("no round has started")


@cache
def _fields(cls: type) -> tuple[str, ...]:
    return tuple(f.name for f in dataclasses.fields(cls))


def cards_in(obj: object, found: set[Card]) -> set[Card]:
    """Every Card anywhere inside ``obj`` (dataclasses, tuples, lists)."""
    if isinstance(obj, Card):
        found.add(obj)
    elif isinstance(obj, (tuple, list, set, frozenset)):
        for item in obj:
            cards_in(item, found)
    elif dataclasses.is_dataclass(obj) and not isinstance(obj, type):
        for name in _fields(type(obj)):
            cards_in(getattr(obj, name), found)
    return found


def may_see(game: Game, viewer: int | None) -> set[Card]:
    """B-21, written independently of the observer: the cards ``viewer`` may know in the current round.

    Everything that was ever face up (the bridge's first card, discards, cards taken from the bridge, melds,
    jokers swapped out), the viewer's own dealt hand and draws; and once the round is over, everything.
    """
    if rnd(game).is_over:
        return set(CARDS)
    seen: set[Card] = set()
    for event in game.events[round_start(game) :]:
        match event:
            case HandDealt(seat, _, cards) if seat == viewer:
                assert cards is not None
                seen.update(cards)
            case CardDrawn(seat, card) if seat == viewer:
                assert card is not None
                seen.add(card)
            case BridgeStarted(card, _) | Discarded(_, card):
                seen.add(card)
            case BridgeTaken(_, _, cards):
                seen.update(cards)
            case MeldsLaid(_, melds, _, _):
                for m in melds:
                    seen.update(m.cards)
            case MeldExtended(_, meld, _, _):
                seen.update(meld.cards)
            case JokerSwapped(_, meld, _, joker):
                seen.update(meld.cards)
                seen.add(joker)
            case _:
                pass
    return seen


def viewers(game: Game) -> tuple[int | None, ...]:
    return (SPECTATOR, *range(game.rules.players))


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


# ---------------------------------------------------------------------------------------------- B-1, B-4


@property_settings
@given(rules=RULES, seed=SEEDS)
def test_b1_all_108_cards_are_conserved_at_every_step(rules: BlagogoRules, seed: int) -> None:
    """B-1: after every step each of the 108 cards is in exactly one place: a hand, the deck, the bridge or
    a meld, and the public counts add up to 108."""
    for game in states(rules, seed, MAX_ROUNDS, MAX_ACTIONS):
        r = game.round
        if r is None:
            continue
        r.check_invariants()
        v = view(game, SPECTATOR)
        assert sum(v.card_counts) + v.deck_count + len(v.bridge) + sum(len(m.cards) for m in v.melds) == 108


_INVALID: tuple[tuple[str, Any], ...] = (
    ("players", 1),
    ("players", 9),
    ("players", 0),
    ("players", "2"),
    ("players", True),
    ("ace_in_hand", -1),
    ("ace_in_hand", 101),
    ("ace_in_hand", 10.0),
    ("opening_min_points", -5),
    ("opening_min_points", 301),
    ("layoff_scores_for", None),
    ("bridge_take_must_meld", "no"),
    ("kantrame_first_turn_only", 0),
    ("target", 0),
    ("target", -1000),
    ("target", 10_001),
    ("turnover_limit", -1),
    ("opening_one_meld", 1),
    ("completed_set_keeper", "owner"),
    ("play_on_own_melds", None),
    ("max_jokers_per_meld", 5),
    ("max_jokers_per_meld", -1),
)


@property_settings
@given(rules=any_rules(), invalid=st.sampled_from(_INVALID))
def test_b4_an_invalid_setting_raises_rules_error_naming_it(
    rules: BlagogoRules, invalid: tuple[str, Any]
) -> None:
    """B-4 and every variant: one invalid setting in otherwise valid rules is a RulesError naming it."""
    field, value = invalid
    kwargs = {f.name: getattr(rules, f.name) for f in dataclasses.fields(rules)}
    kwargs[field] = value
    with pytest.raises(RulesError) as info:
        BlagogoRules(**kwargs)
    assert info.value.field == field


# ---------------------------------------------------------------------------------------------- B-21


@property_settings
@given(rules=RULES, seed=SEEDS)
def test_b21_no_hidden_card_leaks_in_views_or_events(rules: BlagogoRules, seed: int) -> None:
    """B-21: a view holds only cards the viewer may know; a filtered event shows dealt and drawn cards only
    to their seat; the viewer's own hand is exact; legal actions are only shown to the seat to act."""
    seen_events = 0
    for step, game in enumerate(states(rules, seed, MAX_ROUNDS, MAX_ACTIONS)):
        r = game.round
        if r is None:
            continue
        new = game.events[seen_events:]
        seen_events = len(game.events)
        check_views = step % 7 == 0 or r.is_over
        for viewer in viewers(game):
            allowed = may_see(game, viewer) if check_views else None
            for event in new:
                filtered = event_for(event, viewer)
                if isinstance(filtered, HandDealt) and filtered.seat != viewer:
                    assert filtered.cards is None
                if isinstance(filtered, CardDrawn) and filtered.seat != viewer:
                    assert filtered.card is None
                if allowed is not None and not isinstance(filtered, RoundRevealed):
                    leaked = cards_in(filtered, set()) - allowed
                    assert not leaked, f"{event} shows {leaked} to {viewer}"
            if allowed is None:
                continue
            v = view(game, viewer)
            leaked = cards_in(v, set()) - allowed
            assert not leaked, f"view of {viewer} shows {leaked}"
            if viewer is not None:
                assert v.hand == r.hand(viewer)
                assert set(v.known_cards[viewer]) <= set(v.hand)
            else:
                assert v.hand == ()
            assert v.legal_actions == (game.legal_actions() if viewer == game.to_act else ())


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
    validator accepts exactly the listed ones; every candidate meld passes the validator too."""
    for game in sampled_states(rules, seed, every=9):
        seat = game.to_act
        assert seat is not None
        legal = set(game.legal_actions())
        assert len(legal) == len(game.legal_actions()), "an action is listed twice"
        accepted = {a for a in simple_universe(game) if game.is_legal(seat, a)}
        assert accepted == legal
        for candidate in game.candidate_melds():
            assert isinstance(candidate, LayMelds)
            game.validate(seat, candidate)
        assert legal or game.candidate_melds(), "a decision with nothing to do"


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


# ---------------------------------------------------------------------------------------------- B-17 to B-20


@property_settings
@given(rules=RULES, seed=SEEDS)
def test_b17_b18_b19_every_round_is_scored_by_the_rules(rules: BlagogoRules, seed: int) -> None:
    """B-17 to B-19: each RoundScored adds melds (by owner or contributor), subtracts hands (doubled for the
    losers after kantrame), gives 30 to the player who went out; totals are the running sums (B-20)."""
    totals = [0] * rules.players
    seen = 0
    for game in states(rules, seed, MAX_ROUNDS, MAX_ACTIONS):
        new = game.events[seen:]
        seen = len(game.events)
        r = game.round
        scored = next((e for e in new if isinstance(e, RoundScored)), None)
        if scored is None:
            continue
        assert r is not None and r.is_over and scored.number == r.number
        assert scored.meld_points == tuple(meld_points(rules, r.melds))
        factor = 2 if r.kantrame else 1
        for seat in range(rules.players):
            penalty = hand_penalty(r.hands[seat], rules.ace_in_hand)
            won = seat == r.winner
            assert scored.hand_penalties[seat] == (penalty if won else penalty * factor)
            assert scored.deltas[seat] == (
                scored.meld_points[seat] - scored.hand_penalties[seat] + (WIN_BONUS if won else 0)
            )
            totals[seat] += scored.deltas[seat]
        assert scored.totals == tuple(totals) == tuple(game.scores)
        if r.winner is not None:
            assert r.hands[r.winner] == 0
        owned = sum(m.points for m in r.melds)
        assert sum(scored.meld_points) == owned
        assert all(m.kind is MeldKind.RUN or len(m.cards) <= 4 for m in r.melds)


@pytest.mark.parametrize("players", [2, 5, 8])
def test_b20_random_games_terminate_or_stay_well_formed(players: int) -> None:
    """B-20 with random players driven by candidate melds: whole games to 1000 end with a winner at the top
    (ties aside) and the dealer passed each round; a game cut off by the action cap is still well formed."""
    rules = BlagogoRules(players=players)
    finished = 0
    for seed in range(4):
        game = play(rules, seed, max_rounds=60, max_actions=20_000)
        r = rnd(game)
        r.check_invariants()
        rounds = [e for e in game.events if isinstance(e, RoundStarted)]
        assert [e.dealer for e in rounds] == [(game.first_dealer + i) % players for i in range(len(rounds))]
        if game.is_over:
            finished += 1
            assert game.winner is not None and max(game.scores) >= rules.target
            assert game.scores[game.winner] == max(game.scores)
            assert game.standings[0].seat == game.winner
        else:
            assert not r.is_over or game.rounds_dealt == 60
            assert game.to_act is not None or game.is_chance_node
    assert finished >= 2


# ---------------------------------------------------------------------------------------------- B-23


@property_settings
@given(rules=RULES, seed=SEEDS)
def test_b23_same_rules_seed_and_actions_give_the_same_game(rules: BlagogoRules, seed: int) -> None:
    """B-23: the same seed plays the same game, and replaying the history reproduces every event."""
    first = play(rules, seed, MAX_ROUNDS, MAX_ACTIONS)
    second = play(rules, seed, MAX_ROUNDS, MAX_ACTIONS)
    assert first.events == second.events and first.history == second.history
    replay = Game(rules, seed)
    for seat, action in first.history:
        if seat is None:
            assert isinstance(action, Shuffle)
            replay.apply_chance(action)
        else:
            assert not isinstance(action, Shuffle)
            replay.apply(seat, action)
    assert replay.events == first.events and replay.scores == first.scores


@light_settings
@given(rules=RULES, seed=SEEDS)
def test_b23_the_random_player_only_plays_legal_actions(rules: BlagogoRules, seed: int) -> None:
    """B-22, B-23: the driver's choices always validate (so tests and benchmarks exercise legal play)."""
    rng = random.Random(seed)
    game = Game(rules, seed)
    for _ in range(400):
        if game.is_over:
            break
        if game.is_chance_node:
            game.apply_chance()
            continue
        seat = game.to_act
        assert seat is not None
        action = random_action(game, rng)
        game.validate(seat, action)
        game.apply(seat, action)
