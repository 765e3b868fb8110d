"""1000 Blagogo: a round nobody can go out of ends with no winner (B-10, the project's reading; issue 33).

- The match of issue 33 (five players, heuristic and random bots, seed 5) and seeded games of 2 to 8
  random and heuristic players finish with the default rules.
- Every round the rule ends is checked by an independent search through the engine's own actions: in the
  position the round would have gone on from (the bridge turned over), no player, whatever card they drew
  and whatever they did with it, could have gone out on their next turn. A dead round (no card could ever be
  placed) is checked the same way.
"""

from __future__ import annotations

import copy
import random
from collections.abc import Iterator
from itertools import combinations, product

import pytest

from bots.blagogo import make_blagogo_strategy
from bots.strategy import StrategyOptions
from clients.cli.blagogo_text import event_lines
from codec.blagogo.events import event_from_proto, event_to_proto
from engine.blagogo import BlagogoRules, Game, LayMelds, MeldSpec, dead_round, view
from engine.blagogo.actions import DRAW, STANDS_RUN, STANDS_SET, Action, Discard, Stands, TakeFromBridge
from engine.blagogo.cards import CARDS, FIRST_JOKER, cards_of, indices_of
from engine.blagogo.events import DeckExhausted, Event, Exhaustion, WentOut
from engine.blagogo.round import Round
from thousand.v1 import blagogo_events_pb2

MAX_ROUND_ACTIONS = 5000
"""Far above a real round (a few hundred actions); a round beyond it is a round that would not end."""


class RoundGoesOnError(AssertionError):
    """A round went on far longer than any real round does."""


def play(
    game: Game, names: list[str], seed: int, on_end: list[Event] | None = None, *, as_cli: bool = True
) -> Iterator[Game]:
    """Play ``game`` with the named bots to its end, yielding the game before every action. ``as_cli``:
    the bots seeded as ``thousand-bot match --seed`` seeds them; else by their own random keys."""
    n = game.rules.players
    if as_cli:
        options = [StrategyOptions(seed=seed * 31 + s) for s in range(n)]
        rngs = [random.Random(seed + s) for s in range(n)]
    else:
        options = [StrategyOptions() for _ in range(n)]
        rngs = [random.Random(f"{seed}:{s}") for s in range(n)]
    seats = [make_blagogo_strategy(name, options[s]) for s, name in enumerate(names)]
    in_round = 0
    while not game.is_over:
        if game.is_chance_node:
            game.apply_chance()
            in_round = 0
            continue
        seat = game.to_act
        assert seat is not None
        yield game
        action = seats[seat].choose(
            view(game, seat), (*game.legal_actions(), *game.candidate_melds()), rngs[seat]
        )
        events = game.apply(seat, action)
        if on_end is not None:
            on_end.extend(e for e in events if isinstance(e, DeckExhausted))
        in_round += 1
        if in_round >= MAX_ROUND_ACTIONS:
            raise RoundGoesOnError(f"round {game.rounds_dealt} does not end")


def test_issue_33_match_finishes() -> None:
    """B-10: the five-player match that never finished (heuristic, heuristic, random, random, heuristic)."""
    game = Game(BlagogoRules(players=5), 5, first_dealer=0)
    ended: list[Event] = []
    for _ in play(game, ["heuristic", "heuristic", "random", "random", "heuristic"], 5, ended):
        pass
    assert game.is_over
    assert any(isinstance(e, DeckExhausted) and e.reason is Exhaustion.NO_ONE_CAN_GO_OUT for e in ended)


@pytest.mark.parametrize("as_cli", [True, False], ids=["cli-seeding", "own-keys"])
def test_seeded_games_of_2_to_8_players_finish(as_cli: bool) -> None:
    """B-10, issue 31: random and heuristic players, 2 to 8 of them, default rules, 40 seeded games each way
    of seeding the bots: every round ends within MAX_ROUND_ACTIONS actions. Seeded by their own keys, game 24
    looped before the quiet bound (dead_round.QUIET_TURNS): a heuristic seat that has not opened could go out
    on its own with the Q♣ that goes round the deck (open with 6♣ ★ 8♣ and Q♣ K♣ A♣, swap 5♠ for a joker,
    add 7♠ and 8♠ and 10♠, lay 3♦ ★ 5♦ and add ★ 7♦), the heuristic never finds that turn, and the stalled
    check (rightly) leaves such a round alone; now it ends as a quiet one."""
    quiet = []
    for seed in range(40):
        r = random.Random(seed)
        n = r.randint(2, 8)
        names = [r.choice(["heuristic", "random"]) for _ in range(n)]
        game = Game(BlagogoRules(players=n), seed)
        rounds: list[Round] = []
        for _ in play(game, names, seed, as_cli=as_cli):
            if not rounds or rounds[-1] is not game.round:
                assert game.round is not None
                rounds.append(game.round)
        assert game.is_over, f"seed {seed}"
        if any(rnd.quiet_turns >= dead_round.QUIET_TURNS for rnd in rounds):
            quiet.append(seed)
    assert quiet == ([] if as_cli else [24])


def _exhausted(events: list[Event]) -> list[DeckExhausted]:
    return [e for e in events if isinstance(e, DeckExhausted)]


def test_a_round_of_players_who_never_place_a_card_ends_when_quiet() -> None:
    """Issue 31: players who take the last discard back from the bridge and throw it again (B-9 without
    ``bridge_take_must_meld``: the deck never runs out, so B-10's checks never run) or only draw and discard
    end the round with no winner after dead_round.QUIET_TURNS turns without a card placed."""
    for seed in range(3):
        game = Game(BlagogoRules(players=3), seed)
        for _ in play(game, ["heuristic"] * 3, seed, as_cli=False):  # until two seats have opened
            rnd = game.round
            assert rnd is not None
            if sum(rnd.opened) >= 2:
                break
        rnd = game.round
        assert rnd is not None and not rnd.is_over
        ended: list[Event] = []
        turns = 0
        while not rnd.is_over:
            seat = game.to_act
            assert seat is not None
            legal = game.legal_actions()
            takes = [a for a in legal if isinstance(a, TakeFromBridge)]
            if takes:
                game.apply(seat, takes[-1])  # the last discard back
                turns += 1
            elif DRAW in legal:
                game.apply(seat, DRAW)
                turns += 1
            else:
                held = rnd.hands[seat]
                discard = next(a for a in legal if isinstance(a, Discard))
                ended.extend(game.apply(seat, discard))
                assert rnd.hands[seat] != held
            assert turns <= dead_round.QUIET_TURNS + 1
        assert _exhausted(ended) and _exhausted(ended)[-1].reason is Exhaustion.NO_ONE_CAN_GO_OUT
        assert rnd.winner is None


# ------------------------------------------------------------------------------- the search that checks it


def _meanings(cards: tuple[int, ...]) -> Iterator[tuple[Stands, ...]]:
    jokers = sum(1 for i in cards if i >= FIRST_JOKER)
    every = (*STANDS_SET, *STANDS_RUN)
    yield from product(every, repeat=jokers)


def _moves(game: Game, seat: int) -> list[Action]:
    """Every action of the play phase for a small hand: the listed ones and every single new meld."""
    rnd = game.round
    assert rnd is not None
    moves = list(game.legal_actions())
    hand = tuple(indices_of(rnd.hands[seat]))
    for size in range(3, len(hand)):
        for chosen in combinations(hand, size):
            for meanings in _meanings(chosen):
                action = LayMelds((MeldSpec(tuple(CARDS[i] for i in chosen), meanings),))
                if game.is_legal(seat, action):
                    moves.append(action)
    return moves


def _goes_out(game: Game, seat: int, depth: int = 0) -> bool:
    """Can ``seat``, in its play phase, go out by some sequence of actions? (exhaustive for small hands)"""
    for action in _moves(game, seat):
        if type(action) is Discard and game.round is not None and game.round.hands[seat].bit_count() > 1:
            continue
        branch = copy.deepcopy(game)
        events = branch.apply(seat, action)
        if any(isinstance(e, WentOut) for e in events):
            return True
        if type(action) is not Discard and depth < 8 and _goes_out(branch, seat, depth + 1):
            return True
    return False


def _could_go_out_next_turn(before: Round, seat: int) -> bool:
    """Search: from the position the round would have gone on from, ``seat`` draws any card in circulation
    (put on top of the deck) and plays its turn; can it go out?"""
    for drawn in indices_of(dead_round.circulating(before) & ~before.hands[seat]):
        game = Game(before.rules, 0)
        rnd = copy.deepcopy(before)
        rnd.to_act = seat
        rnd.hands[seat] |= 1 << drawn
        if drawn in rnd.deck:
            rnd.deck.remove(drawn)
        if drawn in rnd.bridge:
            rnd.bridge.remove(drawn)
        for other in range(before.rules.players):
            if other != seat:
                rnd.hands[other] &= ~(1 << drawn)
        rnd.phase = type(rnd.phase).PLAY
        rnd.must_meld = None
        rnd._legal = None
        game.round = rnd
        if _goes_out(game, seat):
            return True
    return False


def _ending_positions(limit: int, max_hand: int) -> Iterator[Round]:
    """Rounds the rule ended (in five-player bot games), as they stood just before; small hands only."""
    found = 0
    for seed in range(5, 60):
        names = ["heuristic", "heuristic", "random", "random", "heuristic"]
        game = Game(BlagogoRules(players=5), seed, first_dealer=0)
        for state in play(game, names, seed):
            rnd = state.round
            assert rnd is not None
            if rnd.deck or rnd.phase.value != "play" or max(h.bit_count() for h in rnd.hands) > max_hand:
                continue
            before = copy.deepcopy(rnd)
            seat = rnd.to_act
            assert seat is not None
            probe = copy.deepcopy(state)
            moves = [a for a in probe.legal_actions() if type(a) is Discard]
            if not moves:
                continue
            events = probe.apply(seat, moves[0])
            if not any(
                isinstance(e, DeckExhausted) and e.reason is Exhaustion.NO_ONE_CAN_GO_OUT for e in events
            ):
                continue
            # the position after that discard had the round gone on: the discard on the bridge
            before.hands[seat] &= ~(1 << moves[0].card.index)
            before.bridge.append(moves[0].card.index)
            yield before
            found += 1
            if found >= limit:
                return
            break


def test_no_ended_round_could_have_been_won_on_the_next_turn() -> None:
    """B-10: every round the rule ended (small hands, so the search is exhaustive) was lost to everyone:
    no player could have gone out on their next turn, whatever card they drew and whatever they did."""
    checked = 0
    for before in _ending_positions(limit=6, max_hand=4):
        for seat in range(before.rules.players):
            assert not _could_go_out_next_turn(before, seat), (
                f"seat {seat} could go out: hand {cards_of(before.hands[seat])}, melds {before.melds}"
            )
        checked += 1
    assert checked >= 1, "no ended round to check"


# ------------------------------------------------------------------------------- what clients are told


@pytest.mark.parametrize("reason", list(Exhaustion))
def test_the_reason_round_trips_through_the_codec(reason: Exhaustion) -> None:
    """B-10: DeckExhausted carries why the round ended (BlagogoExhaustion, an additive field)."""
    event = DeckExhausted(3, reason)
    assert event_from_proto(event_to_proto(event)) == event


def test_an_event_without_a_reason_reads_as_nothing_to_draw() -> None:
    """An event sent before the reason existed (the field unset) reads as the engine's old only reason."""
    ev = blagogo_events_pb2.BlagogoEvent
    message = ev(deck_exhausted=ev.DeckExhausted(turnovers=2))
    assert event_from_proto(message) == DeckExhausted(2, Exhaustion.NOTHING_TO_DRAW)


def test_the_terminal_client_says_no_one_could_go_out() -> None:
    """Clients say what happened: 'the round ended: no one could go out'."""
    names = ["Ann", "Bob"]
    assert event_lines(DeckExhausted(4, Exhaustion.NO_ONE_CAN_GO_OUT), names) == [
        "The round ended: no one could go out (no winner)"
    ]
    assert "limit" in event_lines(DeckExhausted(2, Exhaustion.TURNOVER_LIMIT), names)[0]
    old = event_lines(DeckExhausted(1, Exhaustion.NOTHING_TO_DRAW), names)
    assert old[0].startswith("Nothing left to draw")
