"""The heuristic's score-sheet and defence rules (issue 27: its strength over whole games): bidding on the
barrel (T-27), naming the contract that leaves it, and defending each for itself once the contract is settled
(T-23, T-24)."""

from __future__ import annotations

import dataclasses

from bots.card_play import Knowledge, choose_play, make_knowledge
from bots.heuristic import barrel_limit, choose_auction, choose_contract, max_bid, needed_to_leave_barrel
from engine import Bid, Card, Game, NameContract, Pass, Rules
from engine.cards import mask_of, parse_cards
from engine.observer import view

RULES = Rules()
MIDDLING = mask_of(parse_cards("AH 10H AS KS QS JC 9D JD"))
"""About 111 points expected as declarer: too few to bid 100 elsewhere, often enough for 120 (T-27)."""
WEAK = mask_of(parse_cards("9S JS 9C JC 9D JD QH KS"))


def test_on_the_barrel_a_middling_hand_bids_the_contract_that_leaves_it() -> None:
    """T-27: only a made contract reaching 1000 counts there, and passing spends one of three barrel deals."""
    assert max_bid(RULES, MIDDLING) < 100
    limit = barrel_limit(RULES, MIDDLING, 120)
    assert limit >= 120
    legal = (Bid(115), Bid(120), Pass())
    assert choose_auction(RULES, MIDDLING, legal, 0.5) == Pass()
    assert choose_auction(RULES, MIDDLING, legal, 0.5, needed=120) == Bid(115)
    assert choose_auction(RULES, MIDDLING, (Bid(limit), Pass()), 0.5, needed=120) == Bid(limit)
    assert choose_auction(RULES, MIDDLING, (Bid(limit + 5), Pass()), 0.5, needed=120) == Pass()


def test_on_the_barrel_a_weak_hand_passes() -> None:
    assert barrel_limit(RULES, WEAK, 120) == 0
    assert choose_auction(RULES, WEAK, (Bid(105), Pass()), 0.5, needed=120) == Pass()


def test_on_the_barrel_the_declarer_names_what_leaves_it() -> None:
    """T-27: a made 100 scores nothing on the barrel and a failed one falls, so a forced 100 is raised."""
    legal = tuple(NameContract(v) for v in range(100, 165, 5))
    assert choose_contract(RULES, WEAK, 100, legal, relative=0.5) == NameContract(100)
    assert choose_contract(RULES, WEAK, 100, legal, relative=0.5, needed=120) == NameContract(120)


def test_needed_to_leave_the_barrel_reads_the_viewers_line() -> None:
    game = Game(RULES, seed=3, first_dealer=0)
    game.apply_chance()
    seen = view(game, 1)
    assert needed_to_leave_barrel(seen) is None
    barrel = {1: 880}
    lines = tuple(
        dataclasses.replace(line, score=barrel[line.seat], on_barrel=True) if line.seat in barrel else line
        for line in seen.scores
    )
    assert needed_to_leave_barrel(dataclasses.replace(seen, scores=lines)) == 120
    assert needed_to_leave_barrel(dataclasses.replace(seen, scores=lines, viewer=2)) is None


def _defender(declarer_points: int, taken_points: int, contract: int) -> Knowledge:
    hand = mask_of(parse_cards("9S JS 9C"))
    return make_knowledge(
        0,
        (0, 1, 2),
        1,
        hand,
        trick=[],
        trump=None,
        played=0,
        voids={},
        rules=RULES,
        declarer_points=declarer_points,
        taken_points=taken_points,
        contract=contract,
    )


def test_defenders_play_as_a_team_only_while_the_contract_is_open() -> None:
    """T-23, T-24: once the declarer has made the contract or cannot reach it, a defender writes only its own
    points, and one given to the other defender is given to a rival."""
    assert _defender(60, 80, 120).friends == (2,)
    assert _defender(120, 110, 120).friends == ()  # made
    # 20 card points left, and every marriage still possible (both cards unseen): 60 + 20 + 240 reaches it.
    assert _defender(60, 100, 120).friends == (2,)
    assert _defender(60, 100, 400).friends == ()  # out of reach


def test_a_defender_without_a_trick_tries_for_one() -> None:
    """T-25: a bolt costs a third of 120, so a defender with no trick yet plays its highest winner where one
    with a trick throws its cheapest card (none wins surely: the declarer, after it, may hold the ace)."""
    hand = mask_of(parse_cards("10S QS JS"))
    trick = [(2, Card.parse("9S").index)]  # the other defender led; the declarer (seat 1) plays last

    def knowledge(bare: bool) -> Knowledge:
        return make_knowledge(
            0, (0, 1, 2), 1, hand, trick=trick, trump=None, played=0, voids={}, rules=RULES, trickless=bare
        )

    ten = Card.parse("10S").index
    assert choose_play(knowledge(True), hand, 0) == (ten, False)
    assert choose_play(knowledge(False), hand, 0)[0] != ten
