"""The 1000 Blagogo match of issue 33, timed: five bots against a default server, seed 5, to the end.

Usage::

    python bench/blagogo_match.py [--strategies heuristic,heuristic,random,random,heuristic] [--seed 5]
                                  [--timeout 600]

A game server is started as ``make run`` starts it (``python -m server.app``, the engine's sources, its
store in memory, on 127.0.0.1) and ``thousand-bot match --game blagogo --strategies ... --seed 5 --json``
plays a whole game against it, one gRPC client per seat, as a bot author would run it. Before the project
read B-10 as "a round nobody can go out of ends" (``engine/blagogo/dead_round.py``) this match never
finished: its sixth round looped, draw and discard, for ever. The figures: whether it finished, its wall
time, the client's CPU seconds, the server's CPU seconds; the last line printed is one JSON object.
"""

from __future__ import annotations

import sys
from pathlib import Path

# Run as ``python bench/blagogo_match.py``: measure the working tree's packages, not bench/ shadowing them.
_BENCH_DIR = Path(__file__).resolve().parent
sys.path[:] = [p for p in sys.path if Path(p or ".").resolve() != _BENCH_DIR]
sys.path.insert(0, str(_BENCH_DIR.parent))

import argparse  # noqa: E402
import json  # noqa: E402
import resource  # noqa: E402
import subprocess  # noqa: E402
import tempfile  # noqa: E402
import time  # noqa: E402
from typing import Any  # noqa: E402

from bench.procs import (  # noqa: E402
    HOST,
    ROOT,
    cpu_seconds,
    server_argv,
    start,
    stop,
    wait_for_port,
)
from scripts.ports import free_port  # noqa: E402

ISSUE_33 = "heuristic,heuristic,random,random,heuristic"


def run(strategies: str, seed: int, timeout: float) -> dict[str, Any]:
    port = free_port()
    with tempfile.TemporaryDirectory(prefix="bench-blagogo-") as work:
        log = Path(work) / "server.log"
        server = start(server_argv(port, fast_bots=False), log)  # the defaults, as `make run`
        try:
            wait_for_port(port, server, log)
            argv = [
                sys.executable,
                "-m",
                "clients.bots.cli",
                "match",
                "--server",
                f"{HOST}:{port}",
                "--game",
                "blagogo",
                "--strategies",
                strategies,
                "--seed",
                str(seed),
                "--quiet",
                "--json",
            ]
            before = resource.getrusage(resource.RUSAGE_CHILDREN)
            began = time.monotonic()
            try:
                done = subprocess.run(
                    argv, cwd=ROOT, capture_output=True, text=True, timeout=timeout, check=False
                )
                finished = done.returncode == 0
                tail = done.stdout.strip().splitlines()[-1:] or [""]
            except subprocess.TimeoutExpired:
                finished, tail = False, ["timed out"]
            wall = time.monotonic() - began
            after = resource.getrusage(resource.RUSAGE_CHILDREN)
            server_cpu = cpu_seconds(server.pid)
        finally:
            stop(server)
    client_cpu = (after.ru_utime + after.ru_stime) - (before.ru_utime + before.ru_stime)
    return {
        "strategies": strategies,
        "seed": seed,
        "finished": finished,
        "wall_s": round(wall, 2),
        "client_cpu_s": round(client_cpu, 2),
        "server_cpu_s": round(server_cpu, 2),
        "result": tail[0][:500],
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--strategies", default=ISSUE_33)
    parser.add_argument("--seed", type=int, default=5)
    parser.add_argument("--timeout", type=float, default=600.0, help="seconds until it counts as hung")
    args = parser.parse_args(argv)
    result = run(args.strategies, args.seed, args.timeout)
    print(
        f"thousand-bot match --game blagogo --strategies {result['strategies']} --seed {result['seed']}: "
        f"{'finished' if result['finished'] else 'DID NOT FINISH'} in {result['wall_s']} s "
        f"(client CPU {result['client_cpu_s']} s, server CPU {result['server_cpu_s']} s)"
    )
    print(json.dumps(result))
    return 0 if result["finished"] else 1


if __name__ == "__main__":
    raise SystemExit(main())
