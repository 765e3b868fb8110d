"""Property tests over random games and random rules (T-1, T-22, T-33, T-34, T-35).

Every game is driven by seeded, uniformly random players (:mod:`tests.randomplay`): hypothesis draws the rules
and a seed; the seed seeds both the game and the players' ``random.Random``. Random players almost never
finish a game, so each example is capped at a few deals.
"""

from __future__ import annotations

import contextlib
import dataclasses
import random
import re
from collections.abc import Iterator
from functools import cache
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from engine import (
    Action,
    ActionError,
    Bid,
    BidCap,
    Card,
    ChooseTalon,
    Concede,
    DeclareDark,
    DeclineDark,
    DemandRedeal,
    DiscardCard,
    Game,
    GiveCard,
    NameContract,
    OpeningBid,
    Pass,
    Phase,
    PlayCard,
    Reason,
    RedealReason,
    Rules,
    RulesError,
    Shuffle,
    SitterScores,
    TwoPlayerDeal,
    WeakTalon,
    events_for,
    view,
)
from engine.cards import CARDS, cards_of
from engine.events import (
    AuctionWon,
    CardGiven,
    CardPlayed,
    DarkDeclared,
    DealKind,
    DealScored,
    DealStarted,
    Event,
    LastTalonTaken,
    MarriageDeclared,
    Outcome,
    TalonTaken,
    TrickTaken,
)
from engine.rules import LOWEST_BARREL_WITHOUT_OBLIGATORY, SAMOSVAL
from tests.randomplay import play, random_action, states

MAX_DEALS = 6
"""Deals per example (redeals included)."""

SEEDS = st.integers(min_value=0, max_value=2**64 - 1)

property_settings = settings(max_examples=50, deadline=None, suppress_health_check=[HealthCheck.too_slow])
heavy_settings = settings(property_settings, max_examples=40)
"""For the test that tries ~350 actions at every decision."""


# ---------------------------------------------------------------------------------------------- strategies


@st.composite
def any_rules(draw: st.DrawFn) -> Rules:
    """Valid rules across every variant and 2, 3 or 4 players."""
    players = draw(st.sampled_from((2, 3, 4)))
    # A low barrel is reached within a few deals, so the barrel's marks get exercised too.
    barrel_at = draw(st.sampled_from((0, 880)) | st.integers(25, 199).map(lambda k: 5 * k))
    return Rules(
        players=players,
        two_player_deal=draw(st.sampled_from(TwoPlayerDeal)),
        sitter_scores=draw(st.sampled_from(SitterScores)),
        opening_bid=draw(st.sampled_from(OpeningBid)),
        bid_step=draw(st.sampled_from((5, 5, 10, 15, 20, 25, 50))),
        bid_cap=draw(st.sampled_from(BidCap)),
        closed_talon_on_uncontested_100=draw(st.booleans()),
        redeal_four_nines=draw(st.booleans()),
        weak_talon=draw(st.sampled_from(WeakTalon)),
        weak_talon_below_points=draw(st.integers(0, 32)),
        weak_hand_max_points=draw(st.sampled_from((0, 13)) | st.integers(0, 60)),
        must_beat=draw(st.booleans()),
        marriage_on_first_trick=draw(st.booleans()),
        round_defenders=draw(st.booleans()),
        barrel_at=barrel_at,
        barrel_bumped_by_newcomer=draw(st.booleans()),
        barrel_simultaneous_both_fall=draw(st.booleans()),
        # T-27: below 600 only the obligatory game leaves the barrel, and a barrel at 555 is a samosval.
        obligatory_game=draw(st.booleans()) or 0 < barrel_at < LOWEST_BARREL_WITHOUT_OBLIGATORY,
        samosval=draw(st.booleans()) and barrel_at != SAMOSVAL,
        golden_deals=draw(st.booleans()),
        dark=players != 2 and draw(st.booleans()),
        bank=draw(st.sampled_from((0, 0, 10, 100))),
    )


RULES = st.one_of(st.sampled_from((2, 3, 4)).map(lambda p: Rules(players=p)), any_rules())
"""Default rules for each player count, or random rules."""


_INVALID: tuple[tuple[str, dict[str, Any]], ...] = (
    ("players", {"players": 1}),
    ("players", {"players": 5}),
    ("players", {"players": 0}),
    ("players", {"players": "3"}),
    ("players", {"players": True}),
    ("bid_step", {"bid_step": 7}),
    ("bid_step", {"bid_step": 0}),
    ("bid_step", {"bid_step": -5}),
    ("bid_step", {"bid_step": 12}),
    ("bid_step", {"bid_step": 5.0}),
    ("dark", {"players": 2, "dark": True}),
    ("dark", {"dark": 1}),
    ("two_player_deal", {"two_player_deal": "nine_and_two_talons_of_3"}),
    ("weak_talon", {"weak_talon": None}),
    ("weak_talon_below_points", {"weak_talon_below_points": -1}),
    ("weak_talon_below_points", {"weak_talon_below_points": 33}),
    ("weak_hand_max_points", {"weak_hand_max_points": -1}),
    ("barrel_at", {"barrel_at": 120}),
    ("barrel_at", {"barrel_at": 1000}),
    ("barrel_at", {"barrel_at": 883}),
    ("barrel_at", {"barrel_at": -5}),
    ("barrel_at", {"barrel_at": 595, "obligatory_game": False}),
    ("barrel_at", {"barrel_at": 555, "samosval": True}),
    ("bank", {"bank": -1}),
    ("samosval", {"samosval": "yes"}),
)


# ---------------------------------------------------------------------------------------------- helpers


def deal_start(game: Game) -> int:
    """Index in ``game.events`` of the current deal's :class:`DealStarted`."""
    events = game.events
    for i in range(len(events) - 1, -1, -1):
        if isinstance(events[i], DealStarted):
            return i
    raise AssertionError("no deal has started")


def deals(events: list[Event]) -> Iterator[list[Event]]:
    """The events of each deal, from its DealStarted to the event before the next one."""
    current: list[Event] | None = None
    for event in events:
        if isinstance(event, DealStarted):
            if current is not None:
                yield current
            current = []
        if current is not None:
            current.append(event)
    if current is not None:
        yield current


def talon_shown(game: Game, bid: int | None, dark_win: bool) -> bool:
    """T-5, T-10, T-28, T-31: whether the taken talon is shown to every seat, from the rules alone."""
    deal = game.deal
    assert deal is not None
    if game.rules.players == 2 or deal.kind is not DealKind.NORMAL:
        return True  # T-5 revealed to both; T-28 face up (golden deals: the engine shows it too)
    if dark_win:
        return False  # T-31: an unchallenged dark player takes the talon face down
    return not (bid == 100 and game.rules.closed_talon_on_uncontested_100)  # T-10


def may_see(game: Game, viewer: int | None) -> frozenset[Card]:
    """T-33, written independently of engine.observer: the cards ``viewer`` may know in the current deal.

    Own hand as dealt (once looked at: not while deciding on dark), cards given or received in the exchange,
    the taken talon when it is shown (or to the declarer), and every card played. A spectator (None) sees
    the public cards only.
    """
    deal = game.deal
    assert deal is not None
    public: set[Card] = set()
    own: set[Card] = set()
    bid: int | None = None
    dark_seat: int | None = None
    for event in game.events[deal_start(game) :]:
        match event:
            case DarkDeclared(seat):
                dark_seat = seat
            case AuctionWon(_, value):
                bid = value
            case TalonTaken(seat, face_up, cards):
                assert cards is not None
                shown = talon_shown(game, bid, dark_win=seat == dark_seat and bid == 120)
                assert face_up == shown, f"talon taken face_up={face_up}, rules say {shown} (T-10)"
                if shown:
                    public.update(cards)
                elif viewer == seat:
                    own.update(cards)
            case CardGiven(seat, to, card):
                assert card is not None
                if viewer is not None and viewer in (seat, to):
                    own.add(card)
            case CardPlayed(_, card):
                public.add(card)
            case TrickTaken(_, _, cards, _) | LastTalonTaken(_, cards, _):
                public.update(cards)
            case _:
                pass
    looking = not (deal.phase is Phase.DARK and viewer == deal.active[0])
    if viewer is not None and looking:
        own.update(cards_of(deal.dealt[viewer]))
    return frozenset(public | own)


@cache
def _fields(cls: type) -> tuple[str, ...]:
    return tuple(f.name for f in dataclasses.fields(cls))


def cards_in(obj: object, found: set[Card]) -> set[Card]:
    """Every Card anywhere inside ``obj`` (dataclasses, tuples, lists, dicts)."""
    if isinstance(obj, Card):
        found.add(obj)
    elif isinstance(obj, (tuple, list, set, frozenset)):
        for item in obj:
            cards_in(item, found)
    elif isinstance(obj, dict):
        for key, item in obj.items():
            cards_in(key, found)
            cards_in(item, found)
    elif dataclasses.is_dataclass(obj) and not isinstance(obj, type):
        for name in _fields(type(obj)):
            cards_in(getattr(obj, name), found)
    return found


_CARD_TEXT = re.compile(r"(?:10|[9JQKA])[♠♣♦♥]")


def cards_named(text: str) -> set[Card]:
    return {Card.parse(m) for m in _CARD_TEXT.findall(text)}


def viewers(game: Game) -> tuple[int | None, ...]:
    return (None, *range(game.rules.players))


def internal_state(obj: object, skip: frozenset[str] = frozenset()) -> str:
    """The repr of an object's public attributes (private ones are caches), with or without ``__slots__``."""
    names = set(getattr(obj, "__dict__", ()))
    for cls in type(obj).__mro__:
        slots = getattr(cls, "__slots__", ())
        names.update((slots,) if isinstance(slots, str) else slots)
    public = sorted(n for n in names if not n.startswith("_") and n not in skip)
    return repr([(n, getattr(obj, n, None)) for n in public])


_GAME_SKIP = frozenset({"deal", "events", "history", "rules"})


def fingerprint(game: Game) -> tuple[object, ...]:
    """The state: every seat's and the spectator's view, the event and history counts, and (to catch a change
    no view shows, such as who has spoken in the auction) the game's and the deal's own attributes."""
    return (
        tuple(repr(view(game, v)) for v in viewers(game)),
        len(game.events),
        len(game.history),
        internal_state(game, _GAME_SKIP),
        internal_state(game.deal),
    )


@cache
def candidate_actions(players: int) -> tuple[Action, ...]:
    """One or more actions of every type, legal or not, for the illegal-action test."""
    values = (*range(-5, 410, 5), 1, 99, 101, 102, 103, 104, 106, 119, 121, 122, 999)
    actions: list[Action] = [PlayCard(c, marriage) for c in CARDS for marriage in (False, True)]
    actions += [Bid(v) for v in values]
    actions += [NameContract(v) for v in values]
    actions += [GiveCard(c, to) for c in CARDS for to in range(players)]
    actions += [DiscardCard(c) for c in CARDS]
    actions += [ChooseTalon(i) for i in range(3)]
    actions += [DemandRedeal(r) for r in RedealReason]
    actions += [Pass(), DeclareDark(), DeclineDark(), Concede()]
    return tuple(actions)


def replay(rules: Rules, seed: int, history: list[tuple[int | None, Action | Shuffle]]) -> Game:
    """A new game with the same rules and seed, fed the recorded chance outcomes and actions (T-35)."""
    game = Game(rules, seed)
    for seat, action in history:
        if seat is None:
            assert isinstance(action, Shuffle)
            game.apply_chance(action)
        else:
            assert not isinstance(action, Shuffle)
            game.apply(seat, action)
    return game


# ---------------------------------------------------------------------------------------------- rules


def test_invalid_rules_examples_raise_rules_error() -> None:
    """T-31 (dark never with two players) and T-8 (bids are multiples of 5): rejected when building rules."""
    with pytest.raises(RulesError) as dark:
        Rules(players=2, dark=True)
    assert dark.value.field == "dark"
    with pytest.raises(RulesError) as step:
        Rules(bid_step=7)
    assert step.value.field == "bid_step"


@property_settings
@given(rules=any_rules(), invalid=st.sampled_from(_INVALID))
def test_invalid_rules_raise_rules_error(rules: Rules, invalid: tuple[str, dict[str, Any]]) -> None:
    """T-4 to T-6, T-8, T-12, T-13, T-27, T-31, T-32: one invalid setting in valid rules is a RulesError."""
    field, change = invalid
    kwargs = {f.name: getattr(rules, f.name) for f in dataclasses.fields(rules)}
    kwargs.update(change)
    with pytest.raises(RulesError) as error:
        Rules(**kwargs)
    assert error.value.field == field


# ---------------------------------------------------------------------------------------------- T-1, T-22


@property_settings
@given(rules=RULES, seed=SEEDS)
def test_t1_cards_conserved_at_every_step(rules: Rules, seed: int) -> None:
    """T-1: hands + talons + the trick on the table + cards won are always the 24 cards, each once."""
    for game in states(rules, seed, MAX_DEALS):
        deal = game.deal
        if deal is None:
            continue
        where: list[Card] = []
        for seat in range(rules.players):
            where += deal.hand(seat)
            where += cards_of(deal.won[seat])
        for talon in deal.talons:
            where += cards_of(talon)
        where += [card for _, card in deal.trick_cards()]
        assert len(where) == 24, sorted(where, key=lambda c: c.index)
        assert set(where) == set(CARDS)


@property_settings
@given(rules=RULES, seed=SEEDS)
def test_t1_t22_played_deal_trick_points_sum_to_120(rules: Rules, seed: int) -> None:
    """T-1, T-22 (and T-21): in a played deal the tricks (and the last talon) hold 120 card points, every
    card once; each seat's deal points are its card points plus its declared marriages."""
    game = play(rules, seed, MAX_DEALS)
    for events in deals(game.events):
        scored = [e for e in events if isinstance(e, DealScored)]
        if not scored or scored[0].outcome is Outcome.CONCEDED:
            continue  # a redeal or a rospis: no tricks
        (result,) = scored
        card_points = [0] * rules.players
        seen: list[Card] = []
        for event in events:
            if isinstance(event, (TrickTaken, LastTalonTaken)):
                assert event.points == sum(c.points for c in event.cards)
                card_points[event.seat] += event.points
                seen += event.cards
        assert sum(card_points) == 120
        assert len(seen) == 24 and set(seen) == set(CARDS)
        marriages = [0] * rules.players
        for event in events:
            if isinstance(event, MarriageDeclared):
                marriages[event.seat] += event.points
        expected = tuple(p + m for p, m in zip(card_points, marriages, strict=True))
        assert result.deal_points == expected


# ---------------------------------------------------------------------------------------------- T-34


@property_settings
@given(rules=RULES, seed=SEEDS)
def test_t34_legal_actions_nonempty_until_the_game_ends(rules: Rules, seed: int) -> None:
    """T-34: a seat is to act exactly when there is a non-empty legal list (no duplicates); chance nodes and
    the end of the game have neither. Only the acting seat's view lists legal actions."""
    for game in states(rules, seed, MAX_DEALS):
        legal = game.legal_actions()
        if game.is_over or game.is_chance_node:
            assert game.to_act is None and legal == ()
        else:
            assert game.to_act is not None, "a deal in progress with nobody to act"
            assert legal, f"seat {game.to_act} has no legal action in phase {view(game, None).phase}"
            assert len(set(legal)) == len(legal), "duplicate legal actions"
            for seat in range(rules.players):
                shown = view(game, seat).legal_actions
                assert shown == (legal if seat == game.to_act else ())


def _find_mutation(
    rules: Rules, seed: int, steps: int, attempts: list[tuple[int, Action]], before: tuple[object, ...]
) -> str:
    """Which rejected attempt changed the state: replay to the same point and retry each alone."""
    for seat, action in attempts:
        game = replay(rules, seed, play_history(rules, seed, steps))
        assert fingerprint(game) == before
        with contextlib.suppress(ActionError):
            game.apply(seat, action)
        if fingerprint(game) != before:
            return f"seat {seat} {action!r} was rejected but changed the state"
    return "the state changed, but no single rejected action changes it on its own"


def play_history(rules: Rules, seed: int, steps: int) -> list[tuple[int | None, Action | Shuffle]]:
    for game in states(rules, seed, MAX_DEALS):
        if len(game.history) == steps:
            return list(game.history)
    raise AssertionError("history too short")


@heavy_settings
@given(rules=RULES, seed=SEEDS)
def test_t34_t33_every_other_action_is_rejected_and_changes_nothing(rules: Rules, seed: int) -> None:
    """T-34: at every decision, every action outside the legal list (of every action type), and every action
    by a seat not to act, raises ActionError and leaves the state unchanged. T-33: no rejection message names
    a card the seat may not see."""
    candidates = candidate_actions(rules.players)
    for game in states(rules, seed, MAX_DEALS):
        if game.is_over:
            for seat in range(rules.players):
                with pytest.raises(ActionError) as over:
                    game.apply(seat, Pass())
                assert over.value.reason is Reason.GAME_OVER
            break
        before = fingerprint(game)
        counts = len(game.events), len(game.history)
        attempts: list[tuple[int, Action]] = []
        if game.is_chance_node:
            attempts += [(s, Pass()) for s in range(rules.players)]
        else:
            actor = game.to_act
            assert actor is not None
            legal = set(game.legal_actions())
            attempts += [(actor, a) for a in candidates if a not in legal]
            attempts += [(other, a) for other in range(rules.players) if other != actor for a in legal]
            with pytest.raises(ActionError) as chance:
                game.apply_chance()
            assert chance.value.reason is Reason.WRONG_PHASE
        known = {v: may_see(game, v) for v in range(rules.players)} if game.deal is not None else {}
        for seat, action in attempts:
            try:
                game.apply(seat, action)
            except ActionError as error:
                if game.to_act is not None and seat != game.to_act:
                    assert error.reason is Reason.NOT_YOUR_TURN
                mentioned = cards_named(str(error)) - cards_in(action, set())
                leaked = mentioned - known.get(seat, frozenset())
                assert not leaked, f"seat {seat} {action!r}: message {error!s} names hidden {leaked} (T-33)"
            else:
                raise AssertionError(f"seat {seat} {action!r} was accepted but is not legal")
            assert (len(game.events), len(game.history)) == counts, f"seat {seat} {action!r} changed state"
        if fingerprint(game) != before:
            raise AssertionError(_find_mutation(rules, seed, counts[1], attempts, before))


# ---------------------------------------------------------------------------------------------- T-33


@property_settings
@given(rules=RULES, seed=SEEDS)
def test_t33_views_and_events_reveal_no_hidden_card(rules: Rules, seed: int) -> None:
    """T-33 (with T-5, T-10, T-14, T-31): while a deal is in play, no card a viewer may not see appears
    anywhere in that viewer's view or in its filtered events of the deal; a spectator sees only public cards.
    """
    for game in states(rules, seed, MAX_DEALS):
        deal = game.deal
        if deal is None or deal.is_over:
            continue
        start = deal_start(game)
        for viewer in viewers(game):
            allowed = may_see(game, viewer)
            seen = view(game, viewer)
            leaked = cards_in(seen, set()) - allowed
            assert not leaked, f"view of {viewer} shows {leaked} in phase {deal.phase}"
            if viewer is not None:
                looking = not (deal.phase is Phase.DARK and viewer == deal.active[0])
                assert seen.hand == (deal.hand(viewer) if looking else ()), "a seat sees its own hand"
            leaked = cards_in(events_for(game, viewer, start), set()) - allowed
            assert not leaked, f"events for {viewer} show {leaked} in phase {deal.phase}"


@property_settings
@given(rules=RULES, seed=SEEDS)
def test_t33_every_view_lists_the_deals_taken_tricks_as_played(rules: Rules, seed: int) -> None:
    """T-33: tricks are public; every viewer's ``view.tricks`` is the deal's CardPlayed events grouped by the
    TrickTaken events that closed them, with the same winner and points."""
    for game in states(rules, seed, MAX_DEALS):
        if game.deal is None:
            continue
        expected: list[tuple[int, tuple[tuple[int, Card], ...], int]] = []
        plays: list[tuple[int, Card]] = []
        for event in game.events[deal_start(game) :]:
            if isinstance(event, CardPlayed):
                plays.append((event.seat, event.card))
            elif isinstance(event, TrickTaken):
                assert tuple(card for _, card in plays) == event.cards
                expected.append((event.seat, tuple(plays), event.points))
                plays = []
        for viewer in viewers(game):
            seen = view(game, viewer)
            assert [(t.winner, t.plays, t.points) for t in seen.tricks] == expected
            assert seen.trick == tuple(plays)


# ---------------------------------------------------------------------------------------------- T-35


@property_settings
@given(rules=RULES, seed=SEEDS)
def test_t35_replaying_the_history_gives_the_same_game(rules: Rules, seed: int) -> None:
    """T-35: replaying game.history (chance entries as Shuffles) on a new game with the same rules and seed,
    or driving a new game with the same seeded players, gives identical events, history and scores."""
    game = play(rules, seed, MAX_DEALS)
    again = replay(rules, seed, game.history)
    assert again.events == game.events
    assert [r.score for r in again.records] == [r.score for r in game.records]
    assert again.records == game.records
    assert [repr(view(again, v)) for v in viewers(again)] == [repr(view(game, v)) for v in viewers(game)]

    rerun = play(rules, seed, MAX_DEALS)
    assert rerun.events == game.events
    assert rerun.history == game.history
    assert rerun.records == game.records


def test_random_action_uses_only_the_given_generator() -> None:
    """T-35 for the test players themselves: the same seeded generator gives the same choices."""
    a, b = Game(Rules(), 7), Game(Rules(), 7)
    a.apply_chance()
    b.apply_chance()
    ra, rb = random.Random(3), random.Random(3)
    random.seed(0)  # the global generator must not matter
    first = random_action(a, ra)
    random.seed(1)
    assert random_action(b, rb) == first
