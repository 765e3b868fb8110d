"""The learning environments' speed (bots.envs, the ``rl`` extra): steps per second of random play in the
OpenSpiel games (chance nodes included, as a step each), the PettingZoo AEC envs (observation and mask built
every step) and the Gymnasium single-seat env (against two heuristic bots, whose decisions are in its steps).

Usage::

    python bench/envs.py [--seconds 5]

The last line printed is one JSON object with the figures.
"""

from __future__ import annotations

import sys
from pathlib import Path

# Run as ``python bench/envs.py``: measure the working tree's packages, not bench/ shadowing them.
_BENCH_DIR = Path(__file__).resolve().parent
sys.path[:] = [p for p in sys.path if Path(p or ".").resolve() != _BENCH_DIR]
sys.path.insert(0, str(_BENCH_DIR.parent))

import argparse  # noqa: E402
import json  # noqa: E402
import random  # noqa: E402
import time  # noqa: E402
from collections.abc import Callable  # noqa: E402
from typing import Any  # noqa: E402

import numpy as np  # noqa: E402
import pyspiel  # noqa: E402

import bots.envs.spiel  # noqa: E402 - registers python_thousand
import bots.envs.spiel_blagogo  # noqa: E402, F401 - registers python_blagogo
from bots.envs import aec, aec_blagogo  # noqa: E402
from bots.envs.single import SingleSeatEnv  # noqa: E402


def rate(seconds: float, episode: Callable[[int], int]) -> float:
    steps, k, start = 0, 0, time.perf_counter()
    while time.perf_counter() - start < seconds:
        steps += episode(k)
        k += 1
    return steps / (time.perf_counter() - start)


def spiel_episode(name: str, params: dict[str, Any]) -> Callable[[int], int]:
    game = pyspiel.load_game(name, params)

    def run(k: int) -> int:
        rng = random.Random(k)
        state = game.new_initial_state()
        steps = 0
        while not state.is_terminal():
            if state.is_chance_node():
                outcomes = state.chance_outcomes()
                state.apply_action(outcomes[rng.randrange(len(outcomes))][0])
            else:
                state.apply_action(rng.choice(state.legal_actions()))
            steps += 1
        return steps

    return run


def aec_episode(make: Callable[[], Any]) -> Callable[[int], int]:
    env = make()

    def run(k: int) -> int:
        env.reset(seed=k)
        rng = np.random.default_rng(k)
        steps = 0
        for agent in env.agent_iter():
            _, _, terminated, truncated, _ = env.last()
            if terminated or truncated:
                env.step(None)
                continue
            mask = env.observe(agent)["action_mask"]
            env.step(int(rng.choice(np.flatnonzero(mask))))
            steps += 1
        return steps

    return run


_GYM = SingleSeatEnv()


def gym_episode(k: int) -> int:
    env = _GYM
    _, info = env.reset(seed=k)
    rng = np.random.default_rng(k)
    done, steps = False, 0
    while not done:
        _, _, done, _, info = env.step(int(rng.choice(np.flatnonzero(info["action_mask"]))))
        steps += 1
    return steps


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=5.0)
    args = parser.parse_args()
    s = args.seconds
    figures = {
        "openspiel_thousand_steps_per_s": rate(s, spiel_episode("python_thousand", {})),
        "openspiel_blagogo_steps_per_s": rate(s, spiel_episode("python_blagogo", {"turnover_limit": 1})),
        "pettingzoo_thousand_steps_per_s": rate(s, aec_episode(aec.env)),
        "pettingzoo_blagogo_steps_per_s": rate(s, aec_episode(lambda: aec_blagogo.env(turnover_limit=1))),
        "gymnasium_thousand_steps_per_s": rate(s, gym_episode),
    }
    for name, value in figures.items():
        print(f"{name}: {value:,.0f}")
    print(json.dumps({k: round(v, 1) for k, v in figures.items()}))


if __name__ == "__main__":
    main()
