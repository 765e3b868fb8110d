"""The learning environments (bots.envs, the ``rl`` extra) pass their frameworks' own checks: OpenSpiel's
random_sim_test, PettingZoo's api_test and seed_test, Gymnasium's check_env; and the codec they share
(engine.encoding) gives every legal action of any variant its one id, and its layout adds up."""

from __future__ import annotations

import random
import warnings
from typing import Any

import numpy as np
import pyspiel
import pytest
from gymnasium.utils.env_checker import check_env
from pettingzoo.test import api_test, seed_test

import bots.envs.spiel
import bots.envs.spiel_blagogo
from bots.envs.aec import env
from bots.envs.aec_blagogo import env as blagogo_env
from bots.envs.single import SingleSeatEnv
from bots.envs.single_blagogo import BlagogoSingleSeatEnv
from clients.bots.learning import decode, encode
from engine import Game, Rules, Shuffle, view
from engine.actions import GiveCard
from engine.blagogo import BlagogoRules
from engine.blagogo import Game as BlagogoGame
from engine.blagogo import encoding as blagogo_encoding
from engine.blagogo import recall as blagogo_recall
from engine.blagogo import view as blagogo_view
from engine.blagogo.events import CardDrawn
from engine.encoding import (
    ACTIONS,
    LAYOUT,
    NUM_ACTIONS,
    OBSERVATION_SIZE,
    EncodingError,
    action_id,
    action_of,
    information_state,
    legal_mask,
    observation,
)
from engine.recall import INFORMATION_STATE_SIZE, MAX_MOVES, deal_moves, information_state_tensor
from engine.seeds import seeded_shuffle

VARIANTS: list[dict[str, Any]] = [
    {},
    {"players": 2, "max_deals": 2},
    {"players": 4, "dark": True, "max_deals": 2},
    {"golden_deals": True, "must_beat": True, "opening_bid": "at_least_100", "max_deals": 2},
    {"bid_cap": "none", "two_player_deal": "ten_and_two_talons_of_2", "players": 2},
]


def test_every_id_stands_for_one_action_and_back() -> None:
    assert len(ACTIONS) == NUM_ACTIONS == 283
    for i, action in enumerate(ACTIONS):
        assert action_id(action) == i
        assert action_of(i) == action
    with pytest.raises(EncodingError):
        action_of(NUM_ACTIONS)
    offset = 0
    for start, size in LAYOUT.values():
        assert start == offset
        offset += size
    assert offset == OBSERVATION_SIZE


@pytest.mark.parametrize("params", VARIANTS)
def test_the_codec_covers_every_legal_action_of_random_games(params: dict[str, Any]) -> None:
    rules = bots.envs.episode.rules_from({k: v for k, v in params.items() if k != "max_deals"})
    rng = random.Random(1)
    game = Game(rules, 3)
    for _ in range(1500):
        if game.is_over:
            break
        if game.is_chance_node:
            game.apply_chance()
            continue
        seat = game.to_act
        assert seat is not None
        v = view(game, seat)
        mask = legal_mask(v.legal_actions)
        assert sum(mask) == len(v.legal_actions)
        assert len(observation(v)) == OBSERVATION_SIZE
        game.apply(seat, rng.choice(v.legal_actions))


def test_information_state_keys_ignore_what_tells_hidden_decks_apart() -> None:
    """Two deals that give seat 0 the same hand (the others' cards swapped) get one key for seat 0 until
    the deal is revealed, though their DeckShuffled commitments differ."""
    order = list(seeded_shuffle(5, 1).order)
    swapped = order[:]
    swapped[7], swapped[14] = swapped[14], swapped[7]  # seat 1's first card and seat 2's, with 3 players
    keys = []
    for deck in (order, swapped):
        game = Game(Rules(players=3), 5, first_dealer=2)
        game.apply_chance(Shuffle(tuple(deck)))
        keys.append(information_state(game, 0))
    assert keys[0] == keys[1]
    assert "commitment=''" in keys[0]


@pytest.mark.parametrize("params", VARIANTS)
def test_openspiel_random_sim_test(params: dict[str, Any]) -> None:
    game = pyspiel.load_game(bots.envs.spiel.SHORT_NAME, params)
    pyspiel.random_sim_test(game, num_sims=3, serialize=False, verbose=False)


def test_openspiel_deals_card_by_card_and_gives_tensors() -> None:
    game = pyspiel.load_game(bots.envs.spiel.SHORT_NAME, {"players": 3})
    state = game.new_initial_state()
    chance = 0
    while state.is_chance_node():
        outcomes = state.chance_outcomes()
        assert len(outcomes) == 24 - chance
        state.apply_action(outcomes[-1][0])
        chance += 1
    assert chance == 24
    player = state.current_player()
    assert len(state.information_state_tensor(player)) == INFORMATION_STATE_SIZE
    assert len(state.observation_tensor(player)) == OBSERVATION_SIZE
    assert state.legal_actions() == sorted(action_id(a) for a in state.episode.game.legal_actions())
    assert "HandDealt" in state.information_state_string(player)


@pytest.mark.parametrize("params", VARIANTS[:3])
def test_pettingzoo_api_test(params: dict[str, Any]) -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # api_test's advice on Dict observation spaces
        api_test(env(**params), num_cycles=300)


def test_pettingzoo_seed_test() -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        seed_test(lambda render_mode=None: env(players=3, max_deals=2), num_cycles=300)


@pytest.mark.parametrize(
    ("opponents", "params"),
    [
        (("heuristic", "heuristic"), {}),
        (("greedy", "heuristic", "random"), {"players": 4, "first_dealer": 2}),
    ],
)
def test_gymnasium_check_env(opponents: tuple[str, ...], params: dict[str, Any]) -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # check_env's advice on unbounded Box spaces
        check_env(SingleSeatEnv(opponents=opponents, **params))


def test_gymnasium_episode_scores_what_the_sheet_says() -> None:
    environment = SingleSeatEnv(max_deals=3)
    _, info = environment.reset(seed=7)
    total, rng, done = 0.0, np.random.default_rng(7), False
    while not done:
        legal = np.flatnonzero(info["action_mask"])
        _, reward, done, _, info = environment.step(int(rng.choice(legal)))
        total += reward
    assert total == environment.episode.game.records[0].score
    assert environment.episode.game.deals_played == 3


def test_the_sdk_encodes_a_view_and_decodes_a_legal_id() -> None:
    game = Game(Rules(players=3), 11)
    game.apply_chance()
    seat = game.to_act
    assert seat is not None
    obs, mask = encode(view(game, seat))
    assert len(obs) == OBSERVATION_SIZE and sum(mask) == len(game.legal_actions())
    chosen = mask.index(1)
    assert decode(view(game, seat), chosen) in game.legal_actions()
    with pytest.raises(EncodingError):
        decode(view(game, seat), action_id(ACTIONS[-1]))


# ---------------------------------------------------------------------------------------- 1000 Blagogo


def test_blagogo_ids_stand_for_every_simple_action_and_candidate_of_random_rounds() -> None:
    rng = random.Random(2)
    for players in (2, 4, 8):
        game = BlagogoGame(BlagogoRules(players=players, turnover_limit=1), players)
        for _ in range(600):
            if game.is_over:
                break
            if game.is_chance_node:
                game.apply_chance()
                continue
            seat = game.to_act
            assert seat is not None
            legal, candidates = game.legal_actions(), game.candidate_melds()
            ids = blagogo_encoding.legal_ids(legal, candidates)
            for action in (*legal, *candidates):
                chosen = blagogo_encoding.action_id(action, candidates)
                assert chosen is not None, action
                again = blagogo_encoding.action_of(chosen, legal, candidates)
                assert blagogo_encoding.action_id(again, candidates) == chosen
            v = blagogo_view(game, seat)
            assert len(blagogo_encoding.observation(v)) == blagogo_encoding.OBSERVATION_SIZE
            game.apply(seat, blagogo_encoding.action_of(rng.choice(ids), legal, candidates))


def test_openspiel_blagogo_random_sim_test() -> None:
    game = pyspiel.load_game(bots.envs.spiel_blagogo.SHORT_NAME, {"players": 3, "turnover_limit": 1})
    pyspiel.random_sim_test(game, num_sims=1, serialize=False, verbose=False)


def test_pettingzoo_blagogo_api_and_seed_tests() -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        api_test(blagogo_env(players=3), num_cycles=200)
        seed_test(lambda render_mode=None: blagogo_env(players=2), num_cycles=200)


@pytest.mark.parametrize(
    ("opponents", "params"),
    [(("heuristic", "heuristic"), {}), (("random", "heuristic", "random"), {"max_rounds": 2})],
)
def test_gymnasium_blagogo_check_env(opponents: tuple[str, ...], params: dict[str, Any]) -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        check_env(BlagogoSingleSeatEnv(opponents=opponents, **params))


def test_gymnasium_blagogo_episode_scores_what_the_sheet_says() -> None:
    """B-18 to B-20: the rewards of an episode add up to the learner's score on the sheet."""
    environment = BlagogoSingleSeatEnv(opponents=("heuristic", "heuristic"), max_rounds=2)
    _, info = environment.reset(seed=3)
    total, rng, done, steps = 0.0, np.random.default_rng(3), False, 0
    while not done:
        legal = np.flatnonzero(info["action_mask"])
        _, reward, done, _, info = environment.step(int(rng.choice(legal)))
        total += reward
        steps += 1
    assert steps > 10
    assert total == environment.episode.game.scores[0]
    assert environment.episode.game.rounds_dealt == 2
    again = BlagogoSingleSeatEnv()
    _, info = again.reset(seed=3)
    illegal = int(np.flatnonzero(info["action_mask"] == 0)[0])
    _, reward, _, _, info = again.step(illegal)
    assert reward == -10.0 and info["illegal"]


# ------------------------------------------------------------------------------- information-state tensors


def test_thousand_information_state_tensor_recalls_the_deal_and_hides_gifts() -> None:
    """T-33: the tensor holds the deal's actions in order (two auctions ending in the same view differ) and a
    card given to another seat stays hidden from the third."""
    tensors: dict[int, list[list[float]]] = {0: [], 1: [], 2: []}
    game = Game(Rules(players=3), 4)
    rng = random.Random(4)
    gave = False
    for _ in range(400):
        if game.is_over or game.deals_played >= 1:
            break
        if game.is_chance_node:
            game.apply_chance()
            continue
        seat = game.to_act
        assert seat is not None
        for s, kept in tensors.items():
            tensor = information_state_tensor(game, s)
            assert len(tensor) == INFORMATION_STATE_SIZE
            kept.append(tensor)
        action = rng.choice(game.legal_actions())
        if isinstance(action, GiveCard):
            third = next(s for s in range(3) if s not in (seat, action.to))
            game.apply(seat, action)
            slot = len(deal_moves(game)) - 1
            hidden = information_state_tensor(game, third)
            base = OBSERVATION_SIZE + slot * (4 + NUM_ACTIONS + 5)
            assert sum(hidden[base + 4 : base + 4 + NUM_ACTIONS]) == 0.0
            assert sum(hidden[base + 4 + NUM_ACTIONS :]) == 1.0
            seen = information_state_tensor(game, action.to)
            assert seen[base + 4 + action_id(action)] == 1.0
            gave = True
            continue
        game.apply(seat, action)
    assert gave and len(deal_moves(game)) <= MAX_MOVES
    assert len({tuple(t) for t in tensors[0]}) == len(tensors[0])  # every position of the deal told apart


def test_blagogo_information_state_tensor_has_its_size_and_the_seat_s_own_draws() -> None:
    game = BlagogoGame(BlagogoRules(players=3, turnover_limit=1), 5)
    game.apply_chance()
    rng = random.Random(5)
    for _ in range(60):
        if game.is_chance_node:
            break
        seat = game.to_act
        assert seat is not None
        legal, candidates = game.legal_actions(), game.candidate_melds()
        ids = blagogo_encoding.legal_ids(legal, candidates)
        game.apply(seat, blagogo_encoding.action_of(rng.choice(ids), legal, candidates))
        for s in range(3):
            tensor = blagogo_recall.information_state_tensor(game, s)
            assert len(tensor) == blagogo_recall.INFORMATION_STATE_SIZE
    drawn = [e for e in game.events if isinstance(e, CardDrawn)]
    assert drawn
    last = drawn[-1]
    mine = blagogo_recall.information_state_tensor(game, last.seat)
    other = blagogo_recall.information_state_tensor(game, (last.seat + 1) % 3)
    assert mine != other


@pytest.mark.parametrize("name", ["python_thousand", "python_blagogo"])
def test_openspiel_information_state_tensor_is_the_recall_tensor(name: str) -> None:
    params = {"players": 3} if name == "python_thousand" else {"players": 3, "turnover_limit": 1}
    game = pyspiel.load_game(name, params)
    state = game.new_initial_state()
    while state.is_chance_node():
        state.apply_action(state.chance_outcomes()[0][0])
    player = state.current_player()
    size = INFORMATION_STATE_SIZE if name == "python_thousand" else blagogo_recall.INFORMATION_STATE_SIZE
    assert len(state.information_state_tensor(player)) == size
    assert game.information_state_tensor_size() == size
