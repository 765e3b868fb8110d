"""Smoke tests of the benchmarks (``make bench``): a tiny run of each ends with one JSON line of its figures.

The server benchmarks start real processes (the game server, the echo server, a client) on 127.0.0.1 for a
couple of seconds.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from scripts.compiled_engine import RERUN_MARK, build

ROOT = Path(__file__).resolve().parent.parent
TIMEOUT = 90


def last_json(*argv: str) -> dict[str, Any]:
    done = subprocess.run(
        [sys.executable, *argv], cwd=ROOT, capture_output=True, text=True, timeout=TIMEOUT, check=False
    )
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]
    lines = done.stdout.strip().splitlines()
    result: dict[str, Any] = json.loads(lines[-1])
    return result


@pytest.mark.parametrize("engine", ["compiled", "python"])
def test_engine_benchmark_prints_its_figures_as_json_last(engine: str) -> None:
    if engine == "compiled":
        # Built (or found in its cache) first, outside the benchmark's time limit: on a clean clone the
        # mypyc build alone takes a good part of it on a loaded machine (the cached build is reused below).
        build()
    result = last_json("bench/engine.py", "--seconds", "1", "--engine", engine)
    assert result["engine"] == engine
    assert result["deals_per_s"] > 0
    assert result["actions_per_s"] > 0


@pytest.mark.parametrize("argv", [("bench/engine.py", "--seconds", "1"), ("bench/ladder.py", "--sets", "1")])
def test_a_compiled_rerun_that_imports_the_interpreted_engine_stops_naming_the_file(
    argv: tuple[str, ...],
) -> None:
    # The rerun's mark without the build on the path: what a rerun sees when an engine was imported ahead
    # of the build. It must stop with the file's name (no build is attempted), not rerun itself again.
    env = {**os.environ, RERUN_MARK: "1"}
    done = subprocess.run(
        [sys.executable, *argv, "--engine", "compiled"],
        cwd=ROOT, env=env, capture_output=True, text=True, timeout=TIMEOUT, check=False,
    )  # fmt: skip
    assert done.returncode == 2, done.stdout[-2000:] + done.stderr[-2000:]
    interpreted = str(ROOT / "engine" / "__init__.py")
    assert f"the compiled build was built but {interpreted} was imported ahead of it" in done.stderr
    assert "building the compiled engine" not in done.stdout


def test_server_benchmark_prints_its_figures_as_json_last() -> None:
    result = last_json("bench/server.py", "--seconds", "1.5", "--tables", "3", "--fanout")
    for key in ("actions_per_s", "p50_ms", "p99_ms", "echo_calls_per_s", "echo_p50_ms", "echo_p99_ms"):
        assert result[key] > 0, key
    for key in ("throughput_ratio", "p99_ratio", "fanout_acts_per_s", "server_cpu_ms_per_action"):
        assert result[key] > 0, key
    assert result["errors"] == 0
    assert result["tables"] == 3
    assert result["stream_messages_per_action"] >= 3  # every seat sees every action's events


def test_capacity_benchmark_prints_its_figures_as_json_last() -> None:
    result = last_json(
        "bench/capacity.py", "--tables", "4", "--idle-seconds", "0.3", "--settle-seconds", "0.2"
    )
    assert result["tables"] == 4
    assert result["streams"] == 12
    assert isinstance(result["bytes_per_table"], int)  # a few tables may not move RSS by a page
    assert result["idle_cpu_percent"] >= 0
    assert isinstance(result["bytes_per_table_met"], bool)
    assert isinstance(result["idle_cpu_met"], bool)


@pytest.mark.parametrize("db", [":memory:", "file"])
def test_soak_benchmark_prints_its_figures_as_json_last(db: str) -> None:
    result = last_json("bench/soak.py", "--seconds", "3", "--tables", "4", "--db", db)
    assert result["errors"] == 0, result["error_kinds"]
    assert result["tables_finished"] >= 0
    assert result["actions_per_s"] > 0
    assert 0 < result["events_delivered_per_s"] <= result["actions_per_s"]
    assert result["resyncs"] >= 0
    assert result["rss_start_bytes"] > 0
    assert result["rss_end_bytes"] > 0
    assert result["rss_samples_mib"]
    assert (result.get("db_bytes", 0) > 0) == (db == "file")


def test_web_benchmark_prints_its_figures_as_json_last() -> None:
    result = last_json("bench/web.py", "--seconds", "1.5", "--tables", "2", "--rounds", "1")
    for transport in ("grpc", "connect", "grpc_web"):
        assert result[f"{transport}_actions"] > 0, transport
        assert result[f"{transport}_errors"] == 0, transport
        assert result[f"{transport}_server_cpu_ms_per_action"] > 0, transport
    assert result["connect_cpu_ratio"] > 0 and result["grpc_web_cpu_ratio"] > 0


def test_abuse_benchmark_prints_its_figures_as_json_last() -> None:
    result = last_json("bench/abuse.py", "--attacks", "small,unread,never", "--scale", "0.01")
    small, unread, never = result["small"]["after"], result["unread"]["after"], result["never"]["after"]
    assert small["seat_kind_99"] == "INVALID_ARGUMENT"
    assert small["request_id_reused"] == "REQUEST_ID_REUSED"
    assert small["lay_melds_outcome"] == "INVALID_ARGUMENT"
    assert unread["seat_actions_sent"] > 0, unread
    # The server refuses the spectator's first action and ends its stream; under load grpc-python's client may
    # see its own writes fail on the ended call before it reads that one refusal (bench/attacks_streams.py).
    assert unread["spectator_stream"] == "ended" and unread["spectator_refusals_sent_back"] <= 1, unread
    assert never["huge_target"].startswith("INVALID_RULES")
    assert never["random_bots_table"] == "TABLE_STATUS_FINISHED"


def test_search_benchmark_prints_its_figures_as_json_last() -> None:
    tiny = ("--deals", "3", "--decisions", "4", "--copy-seconds", "0.05", "--strategies", "expert")
    result = last_json("bench/search.py", *tiny)
    assert result["copy"]["after_3_deals"]["replay_over_copy"] > 0
    assert result["decisions"][0]["decisions"] == 4 and result["decisions"][0]["p99_ms"] > 0


def test_environments_benchmark_prints_its_figures_as_json_last() -> None:
    result = last_json("bench/envs.py", "--seconds", "0.2")
    assert set(result) >= {"openspiel_thousand_steps_per_s", "gymnasium_thousand_steps_per_s"}
    assert all(rate > 0 for rate in result.values())


def test_my_games_benchmark_prints_its_figures_as_json_last() -> None:
    result = last_json("bench/my_games.py", "--tables", "3", "--moves", "30", "--calls", "2")
    assert result["tables"] == 3 and result["events"] > 0
    assert result["before_ms"] > 0 and result["now_ms"] > 0 and result["ratio"] > 0


def test_person_actions_benchmark_prints_its_figures_as_json_last() -> None:
    """bench/person_actions.py: a person's action in process, and the ratio to a reference tree (here this
    tree itself, so both sides play the very same seeded games)."""
    result = last_json("bench/person_actions.py", "--tables", "3", "--actions", "60", "--rounds", "1")
    assert result["actions"] == 60 and result["us_per_action"] > 0
    tiny = ("--tables", "2", "--actions", "20", "--rounds", "1")
    against = last_json("bench/person_actions.py", "--against", str(ROOT), *tiny)
    assert against["us_per_action"] > 0 and against["reference_us_per_action"] > 0 and against["ratio"] > 0


def test_quickplay_benchmark_prints_its_figures_as_json_last() -> None:
    result = last_json(
        "bench/quickplay.py", "--waiting", "24", "--rounds", "2", "--no-postgres", "--arrivals", "30",
        "--rates", "6,60",
    )  # fmt: skip
    assert result["matcher"]["spread"]["matches_per_round"] > 0
    assert result["matcher"]["spread_round_ratio"] > 0
    seating = result["seating"]["sqlite_1"]
    # 72 players, 12 a pool: 4 + 4 three-player, 3 + 3 four-player and 6 + 6 two-player tables, all full.
    assert (seating["players"], seating["tables"]) == (72, 26) and seating["matches_per_s"] > 0
    assert set(result["wait"]) == {"6_per_min", "60_per_min"}


def test_ratings_benchmark_prints_its_figures_as_json_last() -> None:
    result = last_json("bench/ratings.py", "--updates", "20", "--skip-postgres")
    assert result["model_us"] > 0
    assert result["sqlite"]["update_ms"] > 0 and result["sqlite"]["reference_ms"] > 0
    assert result["sqlite"]["ratio"] == result["sqlite"]["update_ms"] / result["sqlite"]["reference_ms"]


def test_solver_benchmark_prints_its_figures_as_json_last() -> None:
    result = last_json("bench/solver.py", "--positions", "2", "--cards", "4")
    assert result["solver"][0]["cards"] == 4 and result["solver"][0]["p50_ms"] > 0
    assert result["reference"]["minimax_over_solver"] > 0


def test_blagogo_copy_benchmark_prints_its_figures_as_json_last() -> None:
    """bench/blagogo_copy.py (issue 31): Game.copy against deepcopy in one run, a ratio per position."""
    result = last_json("bench/blagogo_copy.py", "--rounds", "0,1", "--seconds", "0.05")
    assert [row["rounds"] for row in result["copies"]] == [0, 1]
    assert all(row["ratio"] > 1 for row in result["copies"])


def test_blagogo_bots_benchmark_prints_its_figures_as_json_last() -> None:
    """bench/blagogo_bots.py (issue 31): whole Blagogo games in duplicate, planner against heuristic."""
    result = last_json(
        "bench/blagogo_bots.py", "--games", "1", "--players", "2", "--target", "60", "--budget-ms", "5"
    )
    assert result["sets"] == 1 and set(result["won"]) >= {"planner", "heuristic", "planner - heuristic"}
    assert result["decision_ms"]["planner"]["p99"] > 0


def test_thousand_screens_benchmark_prints_its_figures_as_json_last() -> None:
    """bench/thousand_screens.py (issue 31): one decision varied at a time, against the heuristic."""
    result = last_json(
        "bench/thousand_screens.py",
        "--deals",
        "3",
        "--games",
        "1",
        "--only",
        "contract",
        "--only",
        "score-sheet",
    )
    screens = result["screens"]
    assert set(screens) == {"contract", "score-sheet"}
    assert screens["contract"]["sets"] == 3 and screens["contract"]["ci95"] >= 0
    assert screens["score-sheet"]["sets"] == 1 and "won" in screens["score-sheet"]


def test_ismcts_speed_benchmark_prints_its_figures_as_json_last(tmp_path: Path) -> None:
    """bench/ismcts_speed.py: iterations/s on seeded positions, against a reference tree (here this tree
    itself, so both sides decide alike), and whole games' decisions recorded and checked."""
    result = last_json("bench/ismcts_speed.py", "--iterations", "4", "--deals", "1")
    row = result["rows"][0]
    assert row["iterations"] == 4 and row["searched"] > 0 and row["iterations_per_s"] > 0
    assert row["total_iterations"] >= row["searched"]  # a flat search may finish its first world past 4
    against = last_json("bench/ismcts_speed.py", "--against", str(ROOT), "--iterations", "2", "--deals", "1")
    assert against["results"][0]["decisions_identical"] is True and against["results"][0]["ratio"] > 0
    recorded = tmp_path / "decisions.json"
    games = ("--games", "1", "--game-iterations", "2")
    assert last_json("bench/ismcts_speed.py", *games, "--record", str(recorded))["decisions"] > 0
    assert last_json("bench/ismcts_speed.py", *games, "--check", str(recorded))["identical"] is True


def test_ladder_power_benchmark_prints_its_figures_as_json_last() -> None:
    """bench/ladder_power.py (issue 27): the ladder's scheduler and rating update on simulated sets; a pair
    whose stronger member almost always ranks above is clear within a hundred sets, a coin flip is not."""
    result = last_json(
        "bench/ladder_power.py", "--members", "a,b,c", "--rates", "0.5,0.99", "--sets", "100",
        "--every", "50", "--runs", "4",
    )  # fmt: skip
    (pairs,) = result["figures"]
    assert pairs["c>b"]["clear"] == {"50": 1.0, "100": 1.0}
    assert pairs["b>a"]["clear"] == {"50": 0.0, "100": 0.0}


def test_ladder_power_refuses_rates_that_are_not_shares() -> None:
    done = subprocess.run(
        [sys.executable, "bench/ladder_power.py", "--members", "a,b,c", "--rates", "0.5,1.0"],
        cwd=ROOT, capture_output=True, text=True, timeout=TIMEOUT, check=False,
    )  # fmt: skip
    assert done.returncode == 2 and "strictly between 0 and 1, not 1.0" in done.stderr
