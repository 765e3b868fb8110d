"""Thousand's rule defects and readings found by re-computing live games from their events alone (issue 20).

Each defect is tested twice where a game reproduces it: on the reported server game (its seed and bots,
replayed by tests/replay.py) and on a stacked deal that shows the rule alone.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Final

import pytest

from engine import (
    Bid,
    Concede,
    DemandRedeal,
    Game,
    GiveCard,
    NameContract,
    Pass,
    PlayCard,
    RedealReason,
    Rules,
    RulesError,
    events_for,
)
from engine.events import DealKind, DealScored, Mark, SheetMarked, TalonTaken
from engine.rules import LOWEST_BARREL_WITHOUT_OBLIGATORY, SitterScores
from tests.replay import replay_bots, replay_choices
from tests.scenario import (
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
from tests.test_rules_scoring import Setup, marks, reference_played, scored, sweep, sweep_game

FOUR_NINES = DemandRedeal(RedealReason.FOUR_NINES)


REPORTED: Final[dict[str, list[int]]] = json.loads(
    (Path(__file__).parent / "data" / "reported_thousand_choices.json").read_text()
)
"""The decisions of the two reported T-29 games, recorded with ``replay_bots(..., record=...)`` from their
seeds and bots at be9c449 (the bots have since changed, and would play other games)."""


def deal_scored(game: Game, number: int) -> DealScored:
    return next(e for e in of_type(game.events, DealScored) if e.number == number)


def marks_of_deal(game: Game, number: int) -> list[tuple[int, Mark, int]]:
    """The sheet marks written when deal ``number`` was scored (they come just before its DealScored)."""
    found: list[tuple[int, Mark, int]] = []
    for event in game.events:
        if isinstance(event, SheetMarked):
            found.append((event.seat, event.mark, event.points))
        elif isinstance(event, DealScored):
            if event.number == number:
                return found
            found = []
    raise AssertionError(f"deal {number} was not scored")


# ---------------------------------------------------------------- T-29 after the barrel (defect 1)


def test_t29_a_bump_onto_555_is_a_samosval() -> None:
    """T-29: a seat bumped off a barrel at 675 (T-27) lands on 555 and is reset to 0 with the mark."""
    setup: Setup = {0: {"score": 600}, 2: {"score": 675, "on_barrel": True}}
    game = reference_played(Rules(barrel_at=675), setup=setup)
    assert [r.score for r in game.records] == [675, -120, 0]
    assert marks(game)[-2:] == [(2, Mark.BARREL_BUMPED, -120), (2, Mark.SAMOSVAL, -555)]
    assert scored(game).totals == (675, -120, 0)


def test_t29_falling_together_onto_555_is_a_samosval() -> None:
    """T-29: two seats climbing a barrel at 675 together both fall (T-27) to 555, and both are reset."""
    setup: Setup = {0: {"score": 600}, 2: {"score": 660}}
    game = reference_played(Rules(barrel_at=675), setup=setup)
    assert [game.records[s].score for s in (0, 2)] == [0, 0]
    for seat in (0, 2):
        assert (seat, Mark.BARREL_BOTH_FALL, -120) in marks(game)
        assert (seat, Mark.SAMOSVAL, -555) in marks(game)


def test_t29_reported_bump_seed_112204804119374() -> None:
    """T-29 on the reported game: deal 81 from [610, 594, 675]; seat 0 climbs, seat 2 is bumped to 555."""
    rules = Rules(
        players=3,
        barrel_at=675,
        barrel_simultaneous_both_fall=False,
        marriage_on_first_trick=True,
        round_defenders=False,
        dark=True,
    )
    # its bots were ("greedy", "heuristic", "heuristic")
    game = replay_choices(
        rules, 112204804119374, REPORTED["112204804119374"], until=lambda g: g.deals_played >= 81
    )
    result = deal_scored(game, 81)
    assert tuple(t - d for t, d in zip(result.totals, result.deltas, strict=True)) == (610, 594, 675)
    assert result.totals == (675, 659, 0)
    assert (2, Mark.SAMOSVAL, -555) in marks_of_deal(game, 81)


def test_t29_reported_both_fall_seed_236897214730813() -> None:
    """T-29 on the reported game: deal 135 left [555, 0, -117] (seat 0 fell with seat 1, who fell a third
    time); seat 0 is reset."""
    rules = Rules(players=3, barrel_at=675, bank=50, round_defenders=False)
    # its bots were ("greedy", "heuristic", "greedy")
    game = replay_choices(
        rules, 236897214730813, REPORTED["236897214730813"], 0, until=lambda g: g.deals_played >= 135
    )
    assert deal_scored(game, 135).totals == (0, 0, -117)
    assert (0, Mark.SAMOSVAL, -555) in marks_of_deal(game, 135)


# ---------------------------------------------------------------- T-11 without an auction (defect 2)


def test_t11_a_defender_dealt_four_nines_in_a_golden_deal_may_demand_the_redeal() -> None:
    """T-11: in a golden deal (no auction) a defender dealt all four nines may demand the redeal at their
    first turn, as one who received the fourth nine may."""
    game, _ = dealt_game(Rules(golden_deals=True), 0, FOUR_NINES_HANDS, [FOUR_NINES_TALON])
    assert game.deal is not None and game.deal.kind is DealKind.GOLDEN and game.deal.declarer == 1
    game.apply(1, GiveCard(c("J♣"), 2))
    game.apply(1, GiveCard(c("Q♦"), 0))
    assert FOUR_NINES not in game.legal_actions()  # the declarer has no four nines
    game.apply(1, PlayCard(c("A♠")))
    assert game.to_act == 2 and FOUR_NINES in game.legal_actions()
    game.apply(2, FOUR_NINES)
    assert game.is_chance_node and game.dealer == 0 and game.deals_played == 0
    # Once the defender has played a card the chance is gone.
    late, _ = dealt_game(Rules(golden_deals=True), 0, FOUR_NINES_HANDS, [FOUR_NINES_TALON])
    late.apply(1, GiveCard(c("J♣"), 2))
    late.apply(1, GiveCard(c("Q♦"), 0))
    late.apply(1, PlayCard(c("A♠")))
    late.apply(2, PlayCard(c("9♠")))
    late.apply(0, PlayCard(c("A♥")))
    assert FOUR_NINES not in late.legal_actions()
    off, _ = dealt_game(
        Rules(golden_deals=True, redeal_four_nines=False), 0, FOUR_NINES_HANDS, [FOUR_NINES_TALON]
    )
    off.apply(1, GiveCard(c("J♣"), 2))
    off.apply(1, GiveCard(c("Q♦"), 0))
    off.apply(1, PlayCard(c("A♠")))
    assert FOUR_NINES not in off.legal_actions()


def test_t11_t28_a_defender_dealt_four_nines_in_an_obligatory_deal() -> None:
    """T-11 in an obligatory deal (T-28, no auction either): the defender's first card offers the redeal."""
    game = Game(Rules(), 0, first_dealer=0)
    rec = game.records[1]
    rec.score, rec.on_barrel, rec.barrel_visits, rec.barrel_deals = 880, True, 3, 2
    game.apply_chance(stack(game.rules, 0, FOUR_NINES_HANDS, [FOUR_NINES_TALON]))
    assert game.deal is not None and game.deal.kind is DealKind.OBLIGATORY
    game.apply(1, GiveCard(c("J♣"), 2))
    game.apply(1, GiveCard(c("Q♦"), 0))
    game.apply(1, PlayCard(c("A♠")))
    assert FOUR_NINES in game.legal_actions()


def test_t11_reported_golden_deal_seed_235518724284831() -> None:
    """T-11 on the reported game: deal 1 is golden, seat 0 declares and seat 1 holds 9♠ 9♣ 9♦ 9♥."""
    game = replay_bots(
        Rules(players=3, golden_deals=True),
        235518724284831,
        ("greedy", "greedy", "greedy"),
        2,
        until=lambda g: g.to_act == 1,
    )
    assert game.deal is not None and game.deal.kind is DealKind.GOLDEN and game.deal.declarer == 0
    assert FOUR_NINES in game.legal_actions()


# ---------------------------------------------------------------- T-27: a game that never ends (defect 3)


def test_t27_rules_refuse_a_barrel_nobody_could_leave() -> None:
    """T-27: below 600 only the obligatory game (T-28) wins from the barrel; without it Rules refuse."""
    assert LOWEST_BARREL_WITHOUT_OBLIGATORY == 600
    for barrel_at in (125, 500, 595):
        with pytest.raises(RulesError) as raised:
            Rules(barrel_at=barrel_at, obligatory_game=False)
        assert raised.value.field == "barrel_at"
        assert raised.value.fields == ("barrel_at", "obligatory_game")
        assert str(raised.value).startswith("barrel_at and obligatory_game: ")
        assert f"contract of {1000 - barrel_at}" in str(raised.value)
        Rules(barrel_at=barrel_at)  # with the obligatory game the barrel can be won
    Rules(barrel_at=600, obligatory_game=False)  # a contract of 400 leaves it
    Rules(barrel_at=0, obligatory_game=False)


def test_t27_t29_rules_refuse_a_barrel_at_555_with_samosval() -> None:
    """T-27, T-29: a barrel at 555 would reset everyone who climbs it, so nobody could win."""
    with pytest.raises(RulesError) as raised:
        Rules(barrel_at=555)
    assert raised.value.fields == ("barrel_at", "samosval")
    Rules(barrel_at=555, samosval=False)


# ---------------------------------------------------------------- T-10 with two players (defect 6)


def test_t10_t5_the_closed_talon_variant_does_not_apply_to_two_players() -> None:
    """T-10, T-5: with two players the chosen talon is shown even after an uncontested 100, and the rules
    say so in words (the rules screen shows Rules.describe())."""
    game = Game(Rules(players=2), 1, first_dealer=0)
    game.apply_chance()
    game.apply(0, Pass())  # seat 1's forced 100 is uncontested
    assert game.deal is not None and game.deal.bid == 100 and game.to_act == 1
    game.apply(1, game.legal_actions()[0])  # choose a talon
    taken = of_type(events_for(game, 0), TalonTaken)[0]
    assert taken.face_up and taken.cards is not None
    line = next(x for x in Rules(players=2).describe() if x.startswith("closed_talon_on_uncontested_100"))
    assert "does not apply to two players" in line
    three = next(x for x in Rules().describe() if x.startswith("closed_talon_on_uncontested_100"))
    assert three == "closed_talon_on_uncontested_100: True"


# ---------------------------------------------------------------- readings


def test_t25_a_bolt_beyond_the_third_stays_on_the_sheet() -> None:
    """T-25: a doubled bolt (T-30) taking two bolts to four costs 120 and crosses out three: one stays."""
    game = sweep_game(Rules(golden_deals=True))
    game.records[2].bolts = 2
    game.records[2].score = 300
    sweep(game, marriage=False, contract=None)
    assert game.records[2].bolts == 1
    assert game.records[2].score == 180
    assert (2, Mark.BOLT_PENALTY, -120) in marks(game)
    assert game.records[0].bolts == 2


def test_t30_t6_a_sitters_talon_aces_are_doubled_in_a_golden_deal() -> None:
    """T-30 doubles every score of a golden deal but marriages: the sitter's 50 per ace too (T-6)."""
    rules = Rules(players=4, sitter_scores=SitterScores.TALON_ACES_AND_MARRIAGE, golden_deals=True)
    hands = {1: "10♠ 9♠ J♠ A♣ 9♦ J♦ 10♥", 2: "A♥ J♥ K♦ Q♦ 10♣ 9♥ J♣", 3: "K♥ Q♥ A♦ 10♦ K♣ Q♣ 9♣"}
    game, _ = dealt_game(rules, 0, hands, ["K♠ Q♠ A♠"])
    assert game.deal is not None and game.deal.kind is DealKind.GOLDEN and game.deal.sitter == 0
    events = game.apply(1, Concede())
    # The sitter: one ace, 50 doubled, and the ♠ marriage, 40 not doubled; the rospis halves doubled too.
    assert of_type(events, DealScored)[0].deltas == (140, -240, 120, 120)


def four_players_with_the_sitter_on_the_barrel(rules: Rules) -> Game:
    """The reference deal with four players: seat 0 deals and sits on the barrel, seats 2 and 3 climb."""
    game, _ = dealt_game(rules, 0, {1: HANDS[1], 2: HANDS[2], 3: HANDS[0]}, [TALON])
    records = game.records
    records[0].score, records[0].on_barrel = 880, True
    records[2].score, records[3].score = 860, 800
    run(game, [(2, Bid(105)), (3, Pass()), (1, Bid(110)), (2, Pass())])
    game.apply(1, GiveCard(c("9♦"), 2))
    game.apply(1, GiveCard(c("9♥"), 3))
    game.apply(1, NameContract(120))
    play(game, TRICKS)  # seat 1 fails 120, seat 3 (the reference's seat 0) takes 154 and seat 2 25
    return game


def test_t27_falling_together_leaves_the_one_on_the_barrel_there() -> None:
    """T-27: two seats climbing together fall at once (barrel_simultaneous_both_fall); neither got onto the
    barrel, so the one already on it (here the four-player sitter, T-6) stays: a bump needs a newcomer."""
    game = four_players_with_the_sitter_on_the_barrel(Rules(players=4))
    assert [r.score for r in game.records] == [880, -120, 760, 760]
    assert [r.on_barrel for r in game.records] == [True, False, False, False]
    assert marks(game) == [(2, Mark.BARREL_BOTH_FALL, -120), (3, Mark.BARREL_BOTH_FALL, -120)]
    # Without the both-fall variant both climb, and as newcomers they bump the one who was there.
    climbing = four_players_with_the_sitter_on_the_barrel(
        Rules(players=4, barrel_simultaneous_both_fall=False)
    )
    assert [r.score for r in climbing.records] == [760, -120, 880, 880]
    assert [r.on_barrel for r in climbing.records] == [False, False, True, True]
    assert (0, Mark.BARREL_BUMPED, -120) in marks(climbing)
