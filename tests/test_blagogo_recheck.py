"""1000 Blagogo's rule defects and readings found by re-computing live games from their events (issue 20).

Scenarios use the two-player stacked deals of tests/blagogo_helpers.py (seat 0 deals, seat 1 starts with
13 cards); a defect seen in a reported server game is also checked on that game, replayed by tests/replay.py.
"""

from __future__ import annotations

import copy
import dataclasses
import random
from itertools import combinations, product

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from engine.blagogo import (
    Action,
    AddToMeld,
    BlagogoReason,
    BlagogoRules,
    Card,
    CompletedSetKeeper,
    Discard,
    End,
    Game,
    LayMelds,
    LayoffScores,
    MeldSpec,
    Phase,
    Rank,
    Round,
    Stands,
    Suit,
    SwapJoker,
    TakeFromBridge,
    view,
)
from engine.blagogo.candidates import candidate_melds
from engine.blagogo.cards import CARDS, indices_of
from engine.blagogo.events import Event, MeldClosed, MeldExtended, MeldsLaid
from engine.blagogo.randomplay import states
from engine.blagogo.rules import MAX_ONE_MELD, MAX_OPENING, MAX_TARGET
from engine.blagogo.scoring import meld_points
from engine.errors import RulesError
from tests.blagogo_helpers import deal, discard, draw, held, lay, of_type, refused, rnd, spec
from tests.replay import replay_bots

SIX_HEARTS = Stands(Rank.SIX, Suit.HEARTS)
JACK_CLUBS = Stands(Rank.JACK, Suit.CLUBS)
KING = Stands(Rank.KING)
Q = Stands(Rank.QUEEN)


# ------------------------------------------------------------------------------------ B-15 (defect 4)


def test_b15_a_set_of_four_suits_laid_at_once_is_closed() -> None:
    """B-15: four natural suits laid in one LayMelds are complete: closed, MeldClosed, and an addition is
    refused as MELD_CLOSED (not SET_TOO_LONG)."""
    game = deal("Q♠ Q♥ Q♦ Q♣ ★ 2♣ 4♣ 6♣ 8♣ 10♥ 8♠ 6♥ 3♦")
    events = lay(game, 1, spec(game, 1, "Q♠ Q♥ Q♦ Q♣"))
    laid = of_type(events, MeldsLaid)[0].melds[0]
    assert laid.closed
    assert of_type(events, MeldClosed) == [MeldClosed(0, 1)]
    assert view(game, 0).melds[0].closed
    refused(game, 1, AddToMeld(0, held(game, 1, "★"), (Stands(Rank.QUEEN),)), BlagogoReason.MELD_CLOSED)
    assert not any(getattr(a, "meld_id", None) == 0 for a in game.legal_actions())
    # Three suits and a joker are not complete: the fourth suit may still free the joker (B-16).
    open_set = deal("Q♠ Q♥ Q♦ Q♣ ★ 2♣ 4♣ 6♣ 8♣ 10♥ 8♠ 6♥ 3♦")
    events = lay(open_set, 1, spec(open_set, 1, "Q♠ Q♥ Q♦ ★", Stands(Rank.QUEEN)))
    assert not of_type(events, MeldsLaid)[0].melds[0].closed and not of_type(events, MeldClosed)


def test_b15_reported_set_laid_whole_seed_992746589899() -> None:
    """B-15 on the reported game: seat 1's opening of round 1 holds 5♠' 5♣' 5♦ 5♥, now closed."""
    rules = BlagogoRules(players=2, bridge_take_must_meld=True, turnover_limit=1, target=300)
    game = replay_bots(rules, 992746589899, ("random", "random"), until=lambda g: g.rounds_dealt > 1)
    opening = next(e for e in game.events if isinstance(e, MeldsLaid) and e.seat == 1 and e.opening)
    fives = next(m for m in opening.melds if m.rank is Rank.FIVE)
    assert len(fives.cards) == 4 and fives.closed
    after = game.events[game.events.index(opening) + 1 :]
    assert MeldClosed(fives.id, 1) in after[: len(opening.melds) + 1]


# ------------------------------------------------------------------------------------- B-9 (defect 5)

SWAP_HAND = "5♥ ★ 7♥ 10♠ J♠ Q♠ 6♥ 10♣ 10♦ 10♥ 4♠ K♦ 8♠"
"""Seat 1 opens with 5♥ ★(6♥) 7♥ and 10♠ J♠ Q♠ and keeps 6♥ 10♣ 10♦ 10♥ 4♠ K♦."""


def nine_of_clubs_on_the_bridge(hand: str, *melds: tuple[str, tuple[Stands, ...]]) -> Game:
    """Seat 1 opens with ``melds`` (text, joker meanings) and discards 8♠; seat 0 draws 2♣ and discards
    9♣, which is now the last card of the bridge (position 2)."""
    game = deal(hand, deck="2♣", bridge_take_must_meld=True)
    lay(game, 1, *(spec(game, 1, text, *jokers) for text, jokers in melds))
    discard(game, 1, "8♠")
    draw(game, 0)
    discard(game, 0, "9♣")
    return game


def test_b9_a_take_meldable_after_a_joker_swap_is_accepted() -> None:
    """B-9 ``bridge_take_must_meld``: "melded in the same turn" admits a sequence: 9♣ cannot be melded by
    one action, but swapping 6♥ for the joker and laying 9♣ 10♣ ★ melds it, so the take is legal and listed;
    the discard waits for it, and an action after which it could no longer be melded is refused."""
    game = nine_of_clubs_on_the_bridge(SWAP_HAND, ("5♥ ★ 7♥", (SIX_HEARTS,)), ("10♠ J♠ Q♠", ()))
    assert TakeFromBridge(2) in game.legal_actions()
    game.apply(1, TakeFromBridge(2))
    nine = held(game, 1, "9♣")[0]
    assert view(game, 1).must_meld == nine
    refused(game, 1, Discard(held(game, 1, "K♦")[0]), BlagogoReason.MUST_MELD_BRIDGE_CARD)
    refused(game, 1, LayMelds((spec(game, 1, "10♣ 10♦ 10♥"),)), BlagogoReason.MUST_MELD_BRIDGE_CARD)
    swap = SwapJoker(0, held(game, 1, "6♥")[0])
    assert swap in game.legal_actions()
    game.apply(1, swap)
    game.apply(1, LayMelds((spec(game, 1, "9♣ 10♣ ★", JACK_CLUBS),)))
    assert rnd(game).must_meld is None
    discard(game, 1, "K♦")
    assert game.to_act == 0
    # The rules screen (BlagogoRules.describe) says which reading the table plays.
    line = next(x for x in game.rules.describe() if x.startswith("bridge_take_must_meld"))
    assert "any sequence of the turn's actions" in line


def test_b9_a_set_completed_to_free_its_joker_counts_too() -> None:
    """B-9 ``bridge_take_must_meld``: K♦ K♣ ★ takes K♥ (the third suit), K♠ then frees the joker, and the
    joker melds 9♣ with 10♣: three actions of one turn."""
    hand = "K♦ K♣ ★ K♥ K♠ 10♣ 2♦ 4♠ 6♥ 8♠ 3♥ 5♦ 7♦"
    game = nine_of_clubs_on_the_bridge(hand, ("K♦ K♣ ★", (KING,)))
    assert TakeFromBridge(2) in game.legal_actions()
    game.apply(1, TakeFromBridge(2))
    game.apply(1, AddToMeld(0, held(game, 1, "K♥")))
    game.apply(1, SwapJoker(0, held(game, 1, "K♠")[0]))
    game.apply(1, LayMelds((spec(game, 1, "9♣ 10♣ ★", JACK_CLUBS),)))
    assert rnd(game).must_meld is None
    # Without the fourth king the joker stays in the set: the take is refused, as before.
    short = nine_of_clubs_on_the_bridge(hand.replace("K♠", "J♥"), ("K♦ K♣ ★", (KING,)))
    assert TakeFromBridge(2) not in short.legal_actions()
    refused(short, 1, TakeFromBridge(2), BlagogoReason.BRIDGE_CARD_NOT_MELDABLE)


# ---------------------------------------------------------------------------------------------- B-9 exactness


def clone(r: Round, **variants: object) -> Round:
    """An independent copy of the round, its rules changed by ``variants``, for trying futures of a turn."""
    new = copy.copy(r)
    new.rules = dataclasses.replace(r.rules, **variants)  # type: ignore[arg-type]
    for name in ("hands", "deck", "bridge", "melds", "opened", "turns", "opened_on_turn", "known"):
        setattr(new, name, list(getattr(r, name)))
    new._legal = None
    return new


def placements(r: Round, card: int) -> list[Action]:
    """Actions that might put ``card`` on the table: listed ones naming it, and every 3-card meld with it."""
    seat = r.to_act
    assert seat is not None
    named = [a for a in r.legal_actions() if CARDS[card] in _cards_of(a)]
    others = [CARDS[i] for i in indices_of(r.hands[seat]) if i != card]
    lays: list[Action] = []
    for a, b in combinations(others, 2):
        trio = (CARDS[card], a, b)
        jokers = sum(1 for c in trio if c.is_joker)
        meanings: list[tuple[Stands, ...]] = [()]
        if jokers:
            each = [Stands(rank) for rank in Rank] + [Stands(rank, suit) for rank in Rank for suit in Suit]
            meanings = list(product(each, repeat=jokers))
        lays += [LayMelds((MeldSpec(trio, m),)) for m in meanings]
    return named + [a for a in lays if r.is_legal(seat, a)]


def _cards_of(action: Action) -> tuple[Card, ...]:
    if isinstance(action, AddToMeld):
        return action.cards
    if isinstance(action, SwapJoker):
        return (action.card,)
    return ()


def found_by_search(r: Round, card: int, depth: int) -> bool:
    """Whether up to ``depth`` simple actions (swaps, additions) and then one placement meld ``card``."""
    if placements(r, card):
        return True
    if depth == 0:
        return False
    seat = r.to_act
    assert seat is not None
    for action in r.legal_actions():
        if isinstance(action, (SwapJoker, AddToMeld)) and CARDS[card] not in _cards_of(action):
            after = clone(r)
            after.apply(seat, action)
            if found_by_search(after, card, depth - 1):
                return True
    return False


def walk_to_placement(r: Round, rng: random.Random) -> None:
    """Random legal actions (listed, or candidate melds) until the pending card is on the table."""
    seat = r.to_act
    for _ in range(200):
        if r.must_meld is None:
            return
        choices = [*r.legal_actions(), *candidate_melds(r)]
        assert choices, "an accepted take left the turn with nothing to do"
        r.apply(seat, rng.choice(choices))  # type: ignore[arg-type]
    raise AssertionError("the pending card was never melded")


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    players=st.integers(2, 4),
    seed=st.integers(0, 2**64 - 1),
    own=st.booleans(),
    jokers=st.sampled_from((0, 0, 1, 2)),
)
def test_b9_takes_accepted_are_exactly_those_some_sequence_can_meld(
    players: int, seed: int, own: bool, jokers: int
) -> None:
    """B-9 ``bridge_take_must_meld``: a take the engine accepts leads, by legal listed actions and candidate
    melds alone, to the card on the table (never a turn with nothing to do); a take it refuses could not be
    melded by a search of up to two swaps or additions and a placement (a check that shares no code with the
    engine's), with or without the variants that narrow what may be played (B-12, B-14)."""
    rules = BlagogoRules(
        players=players, bridge_take_must_meld=True, play_on_own_melds=own, max_jokers_per_meld=jokers
    )
    rng = random.Random(seed)
    checked = 0
    for game in states(rules, seed, max_rounds=1, max_actions=1500):
        r = game.round
        if r is None or r.phase is not Phase.DRAW or r.to_act is None or not r.opened[r.to_act]:
            continue
        seat = r.to_act
        for position in range(len(r.bridge)):
            deepest = r.bridge[position]
            if r.is_legal(seat, TakeFromBridge(position)):
                accepted = clone(r)
                accepted.apply(seat, TakeFromBridge(position))
                walk_to_placement(accepted, rng)
            else:
                tried = clone(r, bridge_take_must_meld=False)
                tried.apply(seat, TakeFromBridge(position))
                assert not found_by_search(tried, deepest, 2), f"{CARDS[deepest]} could be melded"
            checked += 1
        if checked > 60:
            break


# ---------------------------------------------------------------------------------------------- readings

QUEENS1 = "Q♠ Q♥ Q♦ 2♣ 4♣ 6♣ 8♣ 10♥ 8♠ 6♥ 3♦ 5♦ 7♠"
QUEENS0 = "10♦ J♦ Q♦ Q♣ 2♥ 4♥ 9♠ J♣ 3♥ 4♠ 6♦ 8♦"
"""Seat 1 opens with three queens; seat 0 opens with 10♦ J♦ Q♦ and holds the fourth suit, Q♣."""


def queens_completed_by_seat_0(**variants: object) -> tuple[Game, list[Event]]:
    """Seat 0 completes seat 1's set of queens with Q♣ (an addition); returns the game and its events."""
    game = deal(QUEENS1, QUEENS0, "8♣", "K♣", **variants)
    lay(game, 1, spec(game, 1, "Q♠ Q♥ Q♦"))
    discard(game, 1, "7♠")
    draw(game, 0)
    lay(game, 0, spec(game, 0, "10♦ J♦ Q♦"))
    return game, game.apply(0, AddToMeld(0, held(game, 0, "Q♣")))


def test_b15_variant_completed_set_keeper() -> None:
    """B-15 ``completed_set_keeper``: by default a set completed by another player's addition stays with its
    owner; with COMPLETER it goes to the player who completed it ("сложить карты рядом с собой") and scores
    for them as the meld's owner (B-17)."""
    game, events = queens_completed_by_seat_0()
    assert of_type(events, MeldClosed) == [MeldClosed(0, 1)]
    assert meld_points(game.rules, rnd(game).melds) == [30, 40]
    game, events = queens_completed_by_seat_0(completed_set_keeper=CompletedSetKeeper.COMPLETER)
    assert of_type(events, MeldClosed) == [MeldClosed(0, 0)]
    assert of_type(events, MeldExtended)[0].meld.owner == 0
    assert view(game, 1).melds[0].owner == 0 and view(game, 1).melds[0].closed
    assert meld_points(game.rules, rnd(game).melds) == [30 + 40, 0]
    # Each card still scores for whoever put it there when that is the table's B-17 variant.
    contributor = dataclasses.replace(game.rules, layoff_scores_for=LayoffScores.CONTRIBUTOR)
    assert meld_points(contributor, rnd(game).melds) == [30 + 10, 30]


def test_b15_b16_a_set_completed_by_a_swap_stays_with_its_owner_under_completer() -> None:
    """B-16: a set whose joker is freed by the fourth suit stays with its owner, whatever the keeper."""
    hand1 = "Q♠ Q♥ ★ 2♣ 4♣ 6♣ 8♣ 10♥ 8♠ 6♥ 3♦ 5♦ 7♠"
    game = deal(
        hand1, "10♦ J♦ Q♦ Q♣ Q♦ 4♥ 9♠ J♣ 3♥ 4♠ 6♦ 8♦", deck="K♣",
        completed_set_keeper=CompletedSetKeeper.COMPLETER,
    )  # fmt: skip
    lay(game, 1, spec(game, 1, "Q♠ Q♥ ★", Stands(Rank.QUEEN)))
    discard(game, 1, "7♠")
    draw(game, 0)
    lay(game, 0, spec(game, 0, "10♦ J♦ Q♦"))
    game.apply(0, AddToMeld(0, held(game, 0, "Q♦")))
    events = game.apply(0, SwapJoker(0, held(game, 0, "Q♣")[0]))
    assert of_type(events, MeldClosed) == [MeldClosed(0, 1)]


def test_b12_variant_play_on_own_melds() -> None:
    """B-12 ``play_on_own_melds`` off: additions and joker swaps go to other players' melds only (the source's
    "в выкладках партнеров"); refused with OWN_MELD and never listed."""
    hand = "5♥ ★ 7♥ 6♥ 10♠ J♠ Q♠ K♠ 2♦ 4♣ 8♦ 9♣ 3♥"
    game = deal(hand, play_on_own_melds=False)
    lay(game, 1, spec(game, 1, "5♥ ★ 7♥", SIX_HEARTS), spec(game, 1, "10♠ J♠ Q♠"))
    refused(game, 1, AddToMeld(1, held(game, 1, "K♠"), (), End.HIGH), BlagogoReason.OWN_MELD)
    refused(game, 1, SwapJoker(0, held(game, 1, "6♥")[0]), BlagogoReason.OWN_MELD)
    assert not any(isinstance(a, (AddToMeld, SwapJoker)) for a in game.legal_actions())
    default = deal(hand)
    lay(default, 1, spec(default, 1, "5♥ ★ 7♥", SIX_HEARTS), spec(default, 1, "10♠ J♠ Q♠"))
    assert SwapJoker(0, held(default, 1, "6♥")[0]) in default.legal_actions()
    # Another player's meld is open to them as before.
    _, events = queens_completed_by_seat_0(play_on_own_melds=False)
    assert of_type(events, MeldClosed) == [MeldClosed(0, 1)]


def test_b14_variant_max_jokers_per_meld() -> None:
    """B-14 ``max_jokers_per_meld``: with 1, Q♥ ★ ★ is refused as TOO_MANY_JOKERS, and so is (unlisted) a
    joker added to a meld that holds one; 0, the default, has no limit but the natural card."""
    hand = "Q♥ ★ ★ ★ 5♠ 5♠ 6♠ 7♥ 5♥ 5♦ 5♣ K♦ A♦"
    game = deal(hand, opening_min_points=0, max_jokers_per_meld=1)
    refused(game, 1, LayMelds((spec(game, 1, "Q♥ ★ ★", Q, Q),)), BlagogoReason.TOO_MANY_JOKERS)
    lay(game, 1, spec(game, 1, "5♠ 6♠ ★", Stands(Rank.SEVEN, Suit.SPADES)))
    eight = Stands(Rank.EIGHT, Suit.SPADES)
    refused(game, 1, AddToMeld(0, held(game, 1, "★"), (eight,), End.HIGH), BlagogoReason.TOO_MANY_JOKERS)
    assert not any(isinstance(a, AddToMeld) and a.cards[0].is_joker for a in game.legal_actions())
    lays = [a for a in game.candidate_melds() if isinstance(a, LayMelds)]
    assert lays and all(sum(c.is_joker for c in m.cards) <= 1 for a in lays for m in a.melds)
    free = deal(hand, opening_min_points=0)
    lay(free, 1, spec(free, 1, "Q♥ ★ ★", Q, Q))


def test_b11_variant_opening_one_meld() -> None:
    """B-11 ``opening_one_meld``: the opening needs one meld worth the minimum on its own (the source's
    "выложенная комбинация" read as one combination); others may be laid with it."""
    hand = "9♦ 10♦ J♦ 10♠ J♠ Q♠ 2♥ 3♥ 4♥ 5♣ 5♦ 5♠ K♥"
    game = deal(hand, opening_one_meld=True)
    together = LayMelds((spec(game, 1, "2♥ 3♥ 4♥"), spec(game, 1, "5♣ 5♦ 5♠")))
    refused(game, 1, together, BlagogoReason.OPENING_TOO_LOW)
    assert together not in game.candidate_melds()
    events = lay(game, 1, spec(game, 1, "10♠ J♠ Q♠"), spec(game, 1, "2♥ 3♥ 4♥"))
    assert of_type(events, MeldsLaid)[0].opening
    default = deal(hand)
    default.apply(1, LayMelds((spec(default, 1, "2♥ 3♥ 4♥"), spec(default, 1, "5♣ 5♦ 5♠"))))


def test_b4_b11_b20_rules_refuse_games_that_could_never_end() -> None:
    """B-11: no opening is worth more than 12 cards at 25 (300), and with ``opening_one_meld`` no meld more
    than four aces (100); B-20: a target is at most MAX_TARGET. Beyond these a game could not end."""
    assert (MAX_OPENING, MAX_ONE_MELD, MAX_TARGET) == (300, 100, 10_000)
    BlagogoRules(opening_min_points=300)
    with pytest.raises(RulesError) as raised:
        BlagogoRules(opening_min_points=301)
    assert raised.value.fields == ("opening_min_points",)
    BlagogoRules(opening_min_points=100, opening_one_meld=True)
    with pytest.raises(RulesError) as raised:
        BlagogoRules(opening_min_points=105, opening_one_meld=True)
    assert raised.value.fields == ("opening_min_points", "opening_one_meld")
    BlagogoRules(target=MAX_TARGET)
    with pytest.raises(RulesError) as raised:
        BlagogoRules(target=MAX_TARGET + 1)
    assert raised.value.field == "target"


def test_b9_the_turn_check_follows_the_other_variants() -> None:
    """B-9 with B-12's variant: when the joker sits in the player's own run and own melds are closed to
    them, no sequence can free it, so the take of 9♣ is refused."""
    melds = (("5♥ ★ 7♥", (SIX_HEARTS,)), ("10♠ J♠ Q♠", ()))
    game = deal(SWAP_HAND, deck="2♣", bridge_take_must_meld=True, play_on_own_melds=False)
    lay(game, 1, *(spec(game, 1, text, *jokers) for text, jokers in melds))
    discard(game, 1, "8♠")
    draw(game, 0)
    discard(game, 0, "9♣")
    refused(game, 1, TakeFromBridge(2), BlagogoReason.BRIDGE_CARD_NOT_MELDABLE)
