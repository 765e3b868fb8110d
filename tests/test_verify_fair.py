"""Fair deals (thousand.fair.v1) in the engine: every deal follows from the table's secret, every seat's seed
and the deal's number, and a seat's own check (engine.verify) passes on honest deals and catches a tampered
deck, a tampered commitment, a dropped seed and a deal secret chosen after the fact.
"""

from __future__ import annotations

import dataclasses
import hashlib
import hmac
import random
from collections.abc import Callable, Iterable, Iterator, Sequence
from pathlib import Path
from typing import Any

import pytest

from bots.strategy import greedy_player
from engine import Game, Rules, blagogo, events_for, view
from engine.blagogo import randomplay
from engine.blagogo.verify import BLAGOGO
from engine.blagogo.verify import card_code as blagogo_code
from engine.blagogo.verify import commitment as blagogo_commitment
from engine.cards import CARDS
from engine.events import DealRevealed, DeckShuffled, GameOver
from engine.seeds import (
    FairDeals,
    fair_deal_secret,
    fair_mix,
    fair_shuffle,
    table_commitment,
    valid_client_seed,
)
from engine.verify import THOUSAND, DealChecker, Scheme, Witness, card_code, commitment

SEEDS = ("seat-zero-seed-0123456789", "", "Seat_Two_Seed_abcdefghij")
"""Seat 1 gives no seed (a bot seat, or a client that contributes nothing)."""


def fair_thousand(secret: bytes, seeds: Sequence[str] = SEEDS) -> Game:
    fair = FairDeals("thousand", secret, len(seeds))
    for seat, seed in enumerate(seeds):
        fair.seat(seat, seed)
    return Game(Rules(players=len(seeds)), 1, first_dealer=0, fair=fair)


def play_thousand(game: Game, until: Callable[[Game], bool] = lambda g: g.is_over) -> Game:
    rng = random.Random(5)
    while not until(game):
        if game.is_chance_node:
            game.apply_chance()
        else:
            seat = game.to_act
            assert seat is not None
            game.apply(seat, greedy_player(view(game, seat), rng))
    return game


def play_blagogo(secret: bytes, seeds: Sequence[str] = SEEDS) -> blagogo.Game:
    fair = FairDeals("blagogo", secret, len(seeds))
    for seat, seed in enumerate(seeds):
        fair.seat(seat, seed)
    game = blagogo.Game(blagogo.BlagogoRules(players=len(seeds), target=500), 1, fair=fair)
    rng = random.Random(3)
    while not game.is_over:
        randomplay.step(game, rng)
    return game


GAMES: dict[str, tuple[Callable[[bytes], Any], Callable[[Any, int | None], list[Any]], Scheme]] = {
    "thousand": (lambda s: play_thousand(fair_thousand(s)), events_for, THOUSAND),
    "blagogo": (play_blagogo, blagogo.events_for, BLAGOGO),
}


def table_secret(name: str) -> bytes:
    """A fixed table secret per test, so that every run plays the same games."""
    return hashlib.sha256(f"test table {name}".encode()).digest()


def witness(secret: bytes, seat: int | None) -> Witness:
    return Witness(table_commitment(secret), seat, SEEDS[seat] if seat is not None else "")


def check(events: Iterable[object], witness: Witness, scheme: Scheme = THOUSAND) -> DealChecker:
    checker = DealChecker(witness, scheme)
    for event in events:
        checker.see(event)
    return checker


@pytest.mark.parametrize("name", sorted(GAMES))
def test_every_seat_and_a_spectator_verify_every_deal_and_the_secret(name: str) -> None:
    play, events_of, scheme = GAMES[name]
    secret = table_secret("1")
    game = play(secret)
    over = [e for e in game.events if type(e).__name__ == "GameOver"]
    assert over and over[0].table_secret == secret.hex()
    dealt = game.deals_dealt if name == "thousand" else game.rounds_dealt
    assert dealt >= 2
    for seat in (0, 1, 2, None):
        checker = check(events_of(game, seat), witness(secret, seat), scheme)
        assert checker.problems == []
        assert checker.verified == list(range(1, dealt + 1))
        assert checker.secret_checked


def test_a_deal_follows_from_the_secret_the_seeds_and_its_number_only() -> None:
    secret = bytes(range(32))
    first = fair_thousand(secret).apply_chance()
    again = fair_thousand(secret).apply_chance()
    assert first == again  # a restarted server, from the same secret and seeds, deals the same cards
    other_seed = fair_thousand(secret, (SEEDS[0], "another-seed-of-seat-1", SEEDS[2])).apply_chance()
    other_secret = fair_thousand(bytes(32)).apply_chance()
    commitment = next(e for e in first if isinstance(e, DeckShuffled)).commitment
    for events in (other_seed, other_secret):
        assert next(e for e in events if isinstance(e, DeckShuffled)).commitment != commitment
    fair = fair_thousand(secret).fair
    assert fair is not None
    orders = {fair_shuffle(CARDS, fair.deal(number).mix) for number in range(1, 6)}
    assert len(orders) == 5


def test_the_derivation_is_the_documented_one() -> None:
    """Step by step as docs/protocol.md spells it, with nothing of the engine's but the canonical deck."""
    secret = bytes(range(32))
    game = fair_thousand(secret)
    play_thousand(game, lambda g: g.deals_played >= 1)
    revealed = next(e for e in game.events if isinstance(e, DealRevealed))
    s1 = hmac.new(secret, b"thousand.fair.v1|deal|1", hashlib.sha256).digest()
    assert revealed.salt == s1.hex() == fair_deal_secret(secret, 1).hex()
    text = "thousand.fair.v1|thousand|1|" + "|".join(SEEDS)
    mix = hmac.new(s1, text.encode(), hashlib.sha256).digest()
    assert mix == fair_mix("thousand", s1, 1, SEEDS)
    assert revealed.order == fair_shuffle(_canonical_thousand(), mix)
    assert revealed.client_seeds == SEEDS and revealed.deal_seed is None


def _canonical_thousand() -> tuple[Any, ...]:
    from engine.cards import Card, Rank, Suit  # noqa: PLC0415

    return tuple(Card(suit, rank) for suit in Suit for rank in Rank)


def _tampered(events: Sequence[object], change: Callable[[object], object]) -> Iterator[object]:
    for event in events:
        yield change(event)


def test_a_tampered_deck_fails_the_seats_check() -> None:
    secret = table_secret("2")
    game = play_thousand(fair_thousand(secret))

    def swap_two(event: object) -> object:
        if isinstance(event, DealRevealed) and event.number == 2:
            order = event.order
            return dataclasses.replace(event, order=(order[1], order[0], *order[2:]))
        return event

    checker = check(_tampered(events_for(game, 0), swap_two), witness(secret, 0))
    assert checker.problems == ["deal 2: the revealed order does not match the commitment"]
    assert 2 not in checker.verified and 1 in checker.verified


def test_a_tampered_commitment_fails_the_seats_check() -> None:
    secret = table_secret("3")
    game = play_thousand(fair_thousand(secret))

    def other_commitment(event: object) -> object:
        if isinstance(event, DeckShuffled) and event.number == 1:
            return dataclasses.replace(event, commitment=hashlib.sha256(b"another deal").hexdigest())
        return event

    checker = check(_tampered(events_for(game, 2), other_commitment), witness(secret, 2))
    assert checker.problems == ["deal 1: the revealed order does not match the commitment"]


def test_a_deck_that_is_not_the_secrets_fails_even_when_committed_to() -> None:
    """A server that deals a deck of its choosing, and commits to it honestly, is caught at the reveal."""
    secret = table_secret("4")
    game = fair_thousand(secret)
    rigged = tuple(reversed(fair_thousand(secret).chance_outcome().order))
    from engine.actions import Shuffle  # noqa: PLC0415

    game.apply_chance(Shuffle(rigged))
    play_thousand(game)
    checker = check(events_for(game, 0), witness(secret, 0))
    assert checker.problems[0] == (
        "deal 1: the order is not the one the deal's secret and the seats' seeds give"
    )


def test_a_dropped_seed_fails_the_seats_check() -> None:
    """The server deals as if seat 0 gave no seed: seat 0 notices (the others cannot: their seeds are in)."""
    secret = table_secret("5")
    game = play_thousand(fair_thousand(secret, ("", *SEEDS[1:])))
    checker = check(events_for(game, 0), witness(secret, 0))
    assert checker.problems[0] == "deal 1: your seed is not the one the deal was dealt from"
    assert check(events_for(game, 2), witness(secret, 2)).problems == []


def test_a_deal_secret_chosen_after_the_seeds_fails_at_the_games_end() -> None:
    """Grinding: the server deals deal 2 from a secret it picked after seeing the seeds. The deal is
    consistent in itself (committed, and following from its revealed secret and seeds), so it passes the
    deal's own check; the table's secret, disclosed at the end, shows it was not the one committed to."""
    secret = table_secret("6")
    game = fair_thousand(secret)
    honest = game.fair
    play_thousand(game, lambda g: g.deals_dealt == 1 and g.is_chance_node)
    chosen = fair_thousand(table_secret("7")).fair
    game.fair = chosen
    game.apply_chance()
    game.fair = honest
    play_thousand(game)
    checker = check(events_for(game, 0), witness(secret, 0))
    assert 2 in checker.verified
    assert checker.problems == ["deal 2's secret does not derive from the table's secret"]
    assert not checker.secret_checked


def test_a_secret_that_is_not_the_committed_one_fails() -> None:
    secret = table_secret("8")
    game = play_thousand(fair_thousand(secret))
    checker = check(events_for(game, 1), Witness(table_commitment(table_secret("9")), 1, ""))
    assert checker.problems == ["the table's secret does not match the commitment published before the game"]
    hidden = [dataclasses.replace(e, table_secret="") if isinstance(e, GameOver) else e for e in game.events]
    assert check(hidden, witness(secret, 1)).problems == [
        "the table's secret does not match the commitment published before the game"
    ]


def test_client_seeds_are_checked() -> None:
    assert valid_client_seed("A" * 16) and valid_client_seed("aZ09-_" * 21 + "ab")
    for bad in ("", "short", "x" * 129, "has space in it here", "pipe|pipe|pipe|pipe", "ünïcödé-seed-here"):
        assert not valid_client_seed(bad)
    with pytest.raises(ValueError):
        FairDeals("thousand", bytes(32), 3).seat(0, "bad seed")
    with pytest.raises(ValueError):
        FairDeals("thousand", bytes(31), 3)


def test_the_worked_example_of_the_protocol_guide_is_what_the_engine_deals() -> None:
    """docs/protocol.md's worked example, line by line, so that a client developer can trust it."""
    guide = (Path(__file__).resolve().parent.parent / "docs" / "protocol.md").read_text()
    example = guide[guide.index("**Worked example**") :]
    lines = dict(
        line.split(None, 1) for line in example[example.index("```text") :].splitlines()[1:8] if line.strip()
    )
    secret = bytes.fromhex(example.split("table secret\n`")[1].split("`")[0])
    assert secret == bytes(range(32))
    deal_secret = fair_deal_secret(secret, 1)
    mix = fair_mix("thousand", deal_secret, 1, SEEDS)
    order = fair_shuffle(CARDS, mix)
    assert lines["commitment"].strip() == table_commitment(secret)
    assert lines["deal_secret"].strip() == deal_secret.hex()
    assert lines["mix"].strip() == mix.hex()
    assert lines["block_0"].strip() == hashlib.sha256(mix + bytes(4)).hexdigest()
    assert lines["order"].strip() == " ".join(card_code(c) for c in order)
    assert lines["deal"].strip() == "commitment " + commitment(deal_secret.hex(), None, order)
    mix_text = "|".join(("thousand.fair.v1", "thousand", "1", *SEEDS))
    assert lines["mix"] and f"mix text     {mix_text}" in example
    blagogo_mix = fair_mix("blagogo", deal_secret, 1, SEEDS)
    blagogo_order = fair_shuffle(BLAGOGO.deck, blagogo_mix)
    assert blagogo_mix.hex() in example
    assert " ".join(blagogo_code(c) for c in blagogo_order[:10]) in example
    assert blagogo_commitment(deal_secret.hex(), None, blagogo_order) in example
