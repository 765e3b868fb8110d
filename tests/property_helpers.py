"""Strategies and observers for the Thousand property tests over random games (tests/test_properties_*).

Every game is driven by seeded, uniformly random players (:mod:`tests.randomplay`): hypothesis draws the rules
and a seed; the seed seeds both the game and the players' ``random.Random``. Random players almost never
finish a game, so each example is capped at a few deals. What a seat may see (:func:`may_see`) is written
here from the rules, independently of the engine's observer, for the tests of T-33 and T-34.
"""

from __future__ import annotations

from collections.abc import Iterable

from hypothesis import HealthCheck, settings
from hypothesis import strategies as st

from engine import (
    Action,
    BidCap,
    Card,
    Game,
    OpeningBid,
    Phase,
    Rules,
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
    DealStarted,
    LastTalonTaken,
    TalonTaken,
    TrickTaken,
)
from engine.rules import LOWEST_BARREL_WITHOUT_OBLIGATORY, SAMOSVAL
from tests.instances import instances_in

MAX_DEALS = 6
"""Deals per example (redeals included)."""

SEEDS = st.integers(min_value=0, max_value=2**64 - 1)

property_settings = settings(max_examples=50, deadline=None, suppress_health_check=[HealthCheck.too_slow])


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


# ---------------------------------------------------------------------------------------------- helpers


def deal_start(game: Game) -> int:
    """Index in ``game.events`` of the current deal's :class:`DealStarted`."""
    events = game.events
    for i in range(len(events) - 1, -1, -1):
        if isinstance(events[i], DealStarted):
            return i
    raise AssertionError("no deal has started")


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


def viewers(game: Game) -> tuple[int | None, ...]:
    return (None, *range(game.rules.players))


def replay(
    rules: Rules,
    seed: int,
    history: list[tuple[int | None, Action | Shuffle]],
    first_dealer: int | None = None,
) -> Game:
    """A new game with the same rules, seed and first dealer, fed the recorded chance outcomes and actions
    (T-35)."""
    game = Game(rules, seed, first_dealer)
    for seat, action in history:
        if seat is None:
            assert isinstance(action, Shuffle)
            game.apply_chance(action)
        else:
            assert not isinstance(action, Shuffle)
            game.apply(seat, action)
    return game


# ------------------------------------------------------------------ the conformance suite's per-game checks


def cards_conserved(game: Game) -> None:
    """T-1: hands + talons + the trick on the table + cards won are always the 24 cards, each once
    (:func:`tests.test_engine_conformance.test_t1_b1_every_card_is_in_one_place_at_every_step`)."""
    deal = game.deal
    if deal is None:
        return
    where: list[Card] = []
    for seat in range(game.rules.players):
        where += deal.hand(seat)
        where += cards_of(deal.won[seat])
    for talon in deal.talons:
        where += cards_of(talon)
    where += [card for _, card in deal.trick_cards()]
    assert len(where) == 24, sorted(where, key=lambda c: c.index)
    assert set(where) == set(CARDS)


def no_hidden_card(states: Iterable[Game]) -> None:
    """T-33 (with T-5, T-10, T-14, T-31): while a deal is in play, no card a viewer may not see appears
    anywhere in that viewer's view or in its filtered events of the deal; a spectator sees only public cards
    (:func:`tests.test_engine_conformance.test_t33_b21_no_viewer_is_shown_a_card_it_may_not_see`)."""
    for game in states:
        deal = game.deal
        if deal is None or deal.is_over:
            continue
        start = deal_start(game)
        for viewer in viewers(game):
            allowed = may_see(game, viewer)
            seen = view(game, viewer)
            leaked = instances_in(seen, Card, set()) - allowed
            assert not leaked, f"view of {viewer} shows {leaked} in phase {deal.phase}"
            if viewer is not None:
                looking = not (deal.phase is Phase.DARK and viewer == deal.active[0])
                assert seen.hand == (deal.hand(viewer) if looking else ()), "a seat sees its own hand"
            leaked = instances_in(events_for(game, viewer, start), Card, set()) - allowed
            assert not leaked, f"events for {viewer} show {leaked} in phase {deal.phase}"
