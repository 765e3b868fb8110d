"""Scenario tests for scoring and the game: T-21 to T-32, with exact expected scores."""

from __future__ import annotations

import pytest

from engine import (
    SPECTATOR,
    Bid,
    BidCap,
    Concede,
    DeclareDark,
    DeclineDark,
    Game,
    GiveCard,
    NameContract,
    Pass,
    Phase,
    PlayCard,
    Rules,
    RulesError,
    events_for,
    view,
)
from engine.events import (
    BidMade,
    ContractNamed,
    DealKind,
    DealScored,
    Event,
    GameOver,
    HandDealt,
    Mark,
    Outcome,
    SheetMarked,
    Standing,
    TalonTaken,
)
from engine.scoring import rospis_share, round_to_5
from tests.scenario import (
    AUCTION_TO_110,
    DEALER,
    FOUR_NINES_HANDS,
    FOUR_NINES_TALON,
    HANDS,
    TALON,
    TRICKS,
    dealt_game,
    of_type,
    play,
    run,
    stack,
)
from tests.scenario import card as c

# Seat 1 holds every ace and ten; with the talon's K♥ Q♥ it can also declare the ♥ marriage.
SWEEP_HANDS = {
    1: "A♠ 10♠ A♣ 10♣ A♦ 10♦ A♥",
    2: "9♠ J♠ Q♠ K♠ 9♣ J♣ Q♣",
    0: "K♣ 9♦ J♦ Q♦ K♦ 9♥ J♥",
}
SWEEP_TALON = "10♥ K♥ Q♥"


def follow_first(game: Game, leads: str) -> list[Event]:
    """The leader plays each card of ``leads``; the others play their first legal card."""
    events: list[Event] = []
    for token in leads.split():
        seat = game.to_act
        assert seat is not None
        events += game.apply(seat, PlayCard(c(token.rstrip("*")), token.endswith("*")))
        while game.deal is not None and game.deal.trick and game.to_act is not None:
            first = next(a for a in game.legal_actions() if isinstance(a, PlayCard))
            events += game.apply(game.to_act, first)
    return events


def sweep(game: Game, *, marriage: bool, contract: int | None = 120) -> list[Event]:
    """Seat 1 (declarer) takes every trick: 120 card points, plus the ♥ marriage when ``marriage``."""
    if marriage:
        game.apply(1, GiveCard(c("10♠"), 2))
        game.apply(1, GiveCard(c("10♣"), 0))
    else:
        game.apply(1, GiveCard(c("K♥"), 2))
        game.apply(1, GiveCard(c("Q♥"), 0))
    if contract is not None:
        game.apply(1, NameContract(contract))
    if marriage:
        return follow_first(game, "A♠ K♥* Q♥ A♥ 10♥ A♣ A♦ 10♦")
    return follow_first(game, "A♠ 10♠ A♣ 10♣ A♦ 10♦ A♥ 10♥")


def sweep_game(rules: Rules | None = None) -> Game:
    game, _ = dealt_game(rules or Rules(), 0, SWEEP_HANDS, [SWEEP_TALON])
    if game.deal is not None and game.deal.phase is Phase.AUCTION:
        game.apply(2, Pass())
        game.apply(0, Pass())
    return game


Setup = dict[int, dict[str, int | bool]]


def reference_played(rules: Rules | None = None, setup: Setup | None = None) -> Game:
    """The reference deal of tests/scenario.py played out: seat 1 fails 120 with 81; seat 0 154, seat 2 25."""
    game, _ = dealt_game(rules or Rules(), DEALER, HANDS, [TALON])
    for seat, fields in (setup or {}).items():
        for name, value in fields.items():
            setattr(game.records[seat], name, value)
    if game.deal is not None and game.deal.phase is Phase.AUCTION:
        run(game, AUCTION_TO_110)
    game.apply(1, GiveCard(c("9♦"), 2))
    game.apply(1, GiveCard(c("9♥"), 0))
    if game.deal is not None and game.deal.phase is Phase.CONTRACT:
        game.apply(1, NameContract(120))
    play(game, TRICKS)
    return game


def scored(game: Game) -> DealScored:
    return of_type(game.events, DealScored)[-1]


def marks(game: Game) -> list[tuple[int, Mark, int]]:
    return [(m.seat, m.mark, m.points) for m in of_type(game.events, SheetMarked)]


# ---------------------------------------------------------------- a deal's score


def test_t22_t23_t24_failed_contract_and_rounded_defenders() -> None:
    """T-22: points are tricks plus marriages; T-23: the declarer fails 120 with 81 and writes -120;
    T-24: defenders write their points rounded to 5 (154 -> 155, 25 -> 25)."""
    game = reference_played()
    result = scored(game)
    assert result.outcome is Outcome.FAILED
    assert result.deal_points == (154, 81, 25)
    assert result.deltas == (155, -120, 25)
    assert result.totals == (155, -120, 25)
    assert game.is_chance_node and game.dealer == 1  # T-3: the deal passes to the left


def test_t24_rounding_variant_and_rule() -> None:
    """T-24: remainders 1-2 round down, 3-4 up; round_defenders false writes the exact points."""
    samples = (0, 1, 2, 3, 4, 5, 12, 13, 154, 118)
    assert [round_to_5(x) for x in samples] == [0, 0, 0, 5, 5, 5, 10, 15, 155, 120]
    game = reference_played(Rules(round_defenders=False))
    assert scored(game).deltas == (154, -120, 25)


def test_t16_rospis_share_rounds_half_up_to_5() -> None:
    """T-16: half the contract rounded up to a multiple of 5."""
    assert [rospis_share(x) for x in (100, 105, 110, 115, 120, 125)] == [50, 55, 55, 60, 60, 65]


def test_t23_made_contract_scores_the_contract_not_the_points() -> None:
    """T-23: the declarer writes plus the contract, whatever they took above it; T-25: bolts for the rest."""
    game = sweep_game()
    sweep(game, marriage=False, contract=105)
    result = scored(game)
    assert result.outcome is Outcome.MADE
    assert result.deal_points == (0, 120, 0)
    assert result.deltas == (0, 105, 0)
    assert marks(game) == [(0, Mark.BOLT, 0), (2, Mark.BOLT, 0)]
    assert [r.bolts for r in game.records] == [1, 0, 1]


def test_t25_third_bolt_costs_120_and_restarts_the_count() -> None:
    """T-25: on the third bolt the player loses 120 and the count restarts."""
    game = sweep_game()
    game.records[2].bolts = 2
    game.records[2].score = 300
    sweep(game, marriage=False)
    assert (2, Mark.BOLT_PENALTY, -120) in marks(game)
    assert game.records[2].score == 180
    assert game.records[2].bolts == 0
    assert game.records[0].bolts == 1


# ---------------------------------------------------------------- the game


def test_t26_without_barrel_first_to_1000_wins() -> None:
    """T-26 with barrel_at 0: the first to reach 1000 wins; standings rank every seat."""
    rules = Rules(barrel_at=0)
    game, _ = dealt_game(rules, DEALER, HANDS, [TALON])
    game.records[0].score = 900
    game.records[2].score = 400
    reference_from_dealt(game)
    assert game.is_over and game.winner == 0
    over = of_type(game.events, GameOver)[0]
    assert over.standings == (Standing(0, 1, 1055, 0), Standing(2, 2, 425, 0), Standing(1, 3, -120, 0))
    assert game.legal_actions() == ()


def test_t26_highest_of_several_wins_and_ties_go_to_the_declarer() -> None:
    """T-26: several at 1000 in one deal: the highest wins; a tie goes to the declarer."""
    game, _ = dealt_game(Rules(barrel_at=0), DEALER, HANDS, [TALON])
    game.records[0].score = 850  # 1005
    game.records[2].score = 990  # 1015
    reference_from_dealt(game)
    assert game.winner == 2
    tie = sweep_game(Rules(barrel_at=0))
    tie.records[1].score = 900  # +120 -> 1020
    tie.records[0].score = 1020  # already there (as if by a table's agreement), defender with 0
    sweep(tie, marriage=False)
    assert tie.winner == 1


def reference_from_dealt(game: Game) -> None:
    run(game, AUCTION_TO_110)
    game.apply(1, GiveCard(c("9♦"), 2))
    game.apply(1, GiveCard(c("9♥"), 0))
    game.apply(1, NameContract(120))
    play(game, TRICKS)


def test_t26_t27_reaching_1000_from_below_only_climbs_the_barrel() -> None:
    """T-26, T-27: with the barrel on, a score of 880 or more is set to 880 on the barrel; no win."""
    game = reference_played(setup={0: {"score": 900}})
    assert not game.is_over
    assert game.records[0].score == 880 and game.records[0].on_barrel
    assert (0, Mark.BARREL_ON, 880 - 1055) in marks(game)
    assert view(game, SPECTATOR).scores[0].on_barrel


def test_t27_barrel_contract_to_1000_wins() -> None:
    """T-27: on the barrel, a made contract that takes the player to 1000 wins the game."""
    game = sweep_game()
    game.records[1].score = 880
    game.records[1].on_barrel = True
    game.records[1].barrel_visits = 1
    sweep(game, marriage=False, contract=120)
    assert game.winner == 1
    assert game.records[1].score == 1000


def test_t27_barrel_made_below_1000_stays_and_counts_a_deal() -> None:
    """T-27: a made contract short of 1000 leaves the player on the barrel with one deal used."""
    game = sweep_game()
    game.records[1].score = 880
    game.records[1].on_barrel = True
    sweep(game, marriage=False, contract=100)
    assert not game.is_over
    assert game.records[1].score == 880 and game.records[1].barrel_deals == 1


def test_t27_defender_on_the_barrel_scores_nothing_and_failed_contract_falls() -> None:
    """T-27: nothing as a defender on the barrel; a failed contract on the barrel costs the contract."""
    game = reference_played(setup={0: {"score": 880, "on_barrel": True}})
    assert game.records[0].score == 880 and game.records[0].barrel_deals == 1
    assert scored(game).deltas == (0, -120, 25)
    falling = reference_played(setup={1: {"score": 880, "on_barrel": True}})
    assert falling.records[1].score == 760 and not falling.records[1].on_barrel
    assert (1, Mark.BARREL_FALL, -120) in marks(falling)
    assert falling.records[1].falls == 1


def test_t27_three_deals_without_winning_cost_120() -> None:
    """T-27: not winning within three deals on the barrel costs 120."""
    game = reference_played(setup={0: {"score": 880, "on_barrel": True, "barrel_deals": 2}})
    assert game.records[0].score == 760 and not game.records[0].on_barrel
    assert (0, Mark.BARREL_TIMEOUT, -120) in marks(game)


def test_t27_third_bolt_on_the_barrel_falls() -> None:
    """T-27: a third bolt on the barrel costs 120 and the barrel."""
    game = sweep_game()
    game.records[2].score = 880
    game.records[2].on_barrel = True
    game.records[2].bolts = 2
    sweep(game, marriage=False)
    assert game.records[2].score == 760 and not game.records[2].on_barrel
    assert (2, Mark.BOLT_PENALTY, -120) in marks(game)


def test_t27_newcomer_bumps_the_one_on_the_barrel() -> None:
    """T-27 barrel_bumped_by_newcomer: a climber knocks the one already there off with -120."""
    setup: Setup = {0: {"score": 800}, 2: {"score": 880, "on_barrel": True}}
    game = reference_played(setup=setup)
    assert game.records[0].score == 880 and game.records[0].on_barrel
    assert game.records[2].score == 760 and not game.records[2].on_barrel
    assert (2, Mark.BARREL_BUMPED, -120) in marks(game)
    kept = reference_played(Rules(barrel_bumped_by_newcomer=False), setup=setup)
    assert kept.records[0].on_barrel and kept.records[2].on_barrel


def test_t27_simultaneous_climbers_both_fall() -> None:
    """T-27 barrel_simultaneous_both_fall: two players climbing in one deal both fall with -120."""
    setup: Setup = {0: {"score": 800}, 2: {"score": 860}}
    game = reference_played(setup=setup)
    assert [game.records[s].score for s in (0, 2)] == [760, 760]
    assert (0, Mark.BARREL_BOTH_FALL, -120) in marks(game)
    assert (2, Mark.BARREL_BOTH_FALL, -120) in marks(game)
    both = reference_played(Rules(barrel_simultaneous_both_fall=False), setup=setup)
    assert both.records[0].on_barrel and both.records[2].on_barrel


def test_t27_third_fall_resets_to_zero() -> None:
    """T-27: the third fall from the barrel resets the score to 0."""
    game = reference_played(setup={1: {"score": 880, "on_barrel": True, "falls": 2, "barrel_visits": 3}})
    assert game.records[1].score == 0
    assert (1, Mark.THIRD_FALL_RESET, -760) in marks(game)


def test_t27_barrel_off_variant() -> None:
    """T-27 barrel_at 0 disables the barrel; other values must be multiples of 5 between 125 and 995."""
    game = reference_played(Rules(barrel_at=0), setup={0: {"score": 700}})
    assert game.records[0].score == 855 and not game.records[0].on_barrel
    for bad in (100, 1000, 883, -5):
        with pytest.raises(RulesError, match="barrel_at"):
            Rules(barrel_at=bad)


def obligatory_game(rules: Rules | None = None) -> Game:
    game = Game(rules or Rules(), 0, first_dealer=0)
    rec = game.records[1]
    rec.score, rec.on_barrel, rec.barrel_visits, rec.barrel_deals = 880, True, 3, 2
    return game


def test_t28_obligatory_game_won() -> None:
    """T-28: on the third barrel, in the last barrel deal, the talon comes face up without an auction;
    taking 121 or more wins."""
    game = obligatory_game()
    assert game.next_setup().kind is DealKind.OBLIGATORY
    events = game.apply_chance(stack(game.rules, 0, SWEEP_HANDS, [SWEEP_TALON]))
    assert not of_type(events, BidMade)
    assert of_type(events, TalonTaken)[0].face_up
    game.apply(1, GiveCard(c("10♠"), 2))
    events = game.apply(1, GiveCard(c("10♣"), 0))
    assert of_type(events, ContractNamed) == [ContractNamed(1, 121)]
    follow_first(game, "A♠ K♥* Q♥ A♥ 10♥ A♣ A♦ 10♦")
    assert game.winner == 1
    assert scored(game).deal_points[1] == 220


def test_t28_obligatory_game_lost_falls_to_zero() -> None:
    """T-28: short of 121 in the obligatory game, the player falls to 0."""
    game = obligatory_game()
    game.apply_chance(stack(game.rules, 0, HANDS, [TALON]))
    game.apply(1, GiveCard(c("9♦"), 2))
    game.apply(1, GiveCard(c("9♥"), 0))
    play(game, TRICKS)
    assert not game.is_over
    assert game.records[1].score == 0 and not game.records[1].on_barrel
    assert (1, Mark.OBLIGATORY_FAILED, -880) in marks(game)
    off = obligatory_game(Rules(obligatory_game=False))
    assert off.next_setup().kind is DealKind.NORMAL


def test_t29_samosval() -> None:
    """T-29: exactly 555 after a deal resets to 0 (variant samosval)."""
    game = reference_played(setup={2: {"score": 530}})
    assert game.records[2].score == 0
    assert (2, Mark.SAMOSVAL, -555) in marks(game)
    off = reference_played(Rules(samosval=False), setup={2: {"score": 530}})
    assert off.records[2].score == 555


def test_t30_golden_deals() -> None:
    """T-30: each player in turn plays a golden deal: no auction, contract 120, doubled but marriages."""
    rules = Rules(golden_deals=True)
    game = Game(rules, 5, first_dealer=0)
    events = game.apply_chance(stack(rules, 0, HANDS, [TALON]))
    assert of_type(events, BidMade) == []
    assert game.deal is not None and game.deal.kind is DealKind.GOLDEN and game.deal.declarer == 1
    game.apply(1, GiveCard(c("9♦"), 2))
    events = game.apply(1, GiveCard(c("9♥"), 0))
    assert of_type(events, ContractNamed) == [ContractNamed(1, 120)]
    play(game, TRICKS)
    result = scored(game)
    assert result.doubled
    # seat 0: 54 card points doubled + the 100 marriage = 208 -> 210; seat 2: 50; seat 1: -240.
    assert result.deltas == (210, -240, 50)
    kinds: list[DealKind] = []
    while len(kinds) < 4:
        kinds.append(game.next_setup().kind)
        game.apply_chance()
        # Concede each remaining golden deal as quickly as possible.
        while game.deal is not None and not game.deal.is_over:
            seat = game.to_act
            assert seat is not None
            action = Concede() if Concede() in game.legal_actions() else game.legal_actions()[0]
            game.apply(seat, action)
    assert kinds == [DealKind.GOLDEN, DealKind.GOLDEN, DealKind.NORMAL, DealKind.NORMAL]


def test_t30_golden_bolt_counts_two() -> None:
    """T-30: in a golden deal a bolt counts as two."""
    game, _ = dealt_game(Rules(golden_deals=True), 0, SWEEP_HANDS, [SWEEP_TALON])
    sweep(game, marriage=False, contract=None)
    assert [r.bolts for r in game.records] == [2, 0, 2]
    assert marks(game) == [(0, Mark.BOLT, 0), (0, Mark.BOLT, 0), (2, Mark.BOLT, 0), (2, Mark.BOLT, 0)]
    assert scored(game).deltas == (0, 240, 0)


def test_t31_dark_declared_and_unchallenged_plays_doubled_with_a_closed_talon() -> None:
    """T-31: left of the dealer, before looking, 120 dark; unchallenged: closed talon, doubled scores."""
    rules = Rules(dark=True)
    game, events = dealt_game(rules, DEALER, HANDS, [TALON])
    assert [e.seat for e in of_type(events, HandDealt)] == [2, 0]  # seat 1 has not looked yet
    assert game.to_act == 1 and game.legal_actions() == (DeclareDark(), DeclineDark())
    assert view(game, 1).hand == ()
    events = game.apply(1, DeclareDark())
    assert of_type(events, BidMade) == [BidMade(1, 120, True)]
    assert len(view(game, 1).hand) == 7
    game.apply(2, Pass())
    events = game.apply(0, Pass())
    taken = of_type(events, TalonTaken)[0]
    assert not taken.face_up
    assert of_type(events_for(game, 0), TalonTaken)[0].cards is None
    game.apply(1, GiveCard(c("9♦"), 2))
    game.apply(1, GiveCard(c("9♥"), 0))
    play(game, TRICKS)
    assert scored(game).deltas == (210, -240, 50)


def test_t31_only_a_marriage_outbids_dark() -> None:
    """T-31: opponents may outbid the dark 120 only when they hold a marriage; then the deal is normal."""
    rules = Rules(dark=True, bid_cap=BidCap.NONE)
    game, _ = dealt_game(rules, 0, FOUR_NINES_HANDS, [FOUR_NINES_TALON])
    game.apply(1, DeclareDark())
    assert not any(isinstance(a, Bid) for a in game.legal_actions())  # seat 2 holds no marriage
    game.apply(2, Pass())
    assert Bid(125) in game.legal_actions()  # seat 0 holds ♥ and ♣
    game.apply(0, Bid(125))
    game.apply(1, Pass())
    assert game.deal is not None and not game.deal.doubled and game.deal.talon_face_up


def test_t31_declined_dark_is_a_normal_deal() -> None:
    """T-31: declining dark shows the opener's hand and opens the auction as usual."""
    game, _ = dealt_game(Rules(dark=True), DEALER, HANDS, [TALON])
    events = game.apply(1, DeclineDark())
    assert of_type(events, HandDealt)[0].seat == 1
    assert of_type(events, BidMade) == [BidMade(1, 100, True)]
    assert game.to_act == 2


def test_t32_bank_payouts() -> None:
    """T-32: the winner takes the bank, second gets nothing, third pays."""
    game = sweep_game(Rules(bank=50))
    game.records[1].score = 880
    game.records[1].on_barrel = True
    game.records[0].score = 300
    game.records[2].score = 200
    sweep(game, marriage=False, contract=120)
    over = of_type(game.events, GameOver)[0]
    assert [(s.seat, s.place, s.payout) for s in over.standings] == [(1, 1, 50), (0, 2, 0), (2, 3, -50)]
    with pytest.raises(RulesError, match="bank"):
        Rules(bank=-1)
