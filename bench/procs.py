"""Helpers the server benchmarks share: child processes with their output in files, and /proc readings.

Everything here is Linux-specific (``/proc``) and talks to 127.0.0.1 only.
"""

from __future__ import annotations

import math
import os
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Final

ROOT: Final = Path(__file__).resolve().parent.parent
"""The repository: child processes run here, so ``python -m server.app`` is the working tree's server."""
HOST: Final = "127.0.0.1"
CLOCK_TICKS: Final = os.sysconf("SC_CLK_TCK")


SERVER_TREE_HELP: Final = (
    "run the game server from this source tree (say, a commit exported with `git archive`) instead of the"
    " working tree"
)


NO_TABLE_QUOTAS: Final = {
    "THOUSAND_MAX_TABLES_PER_CLIENT": "0",
    "THOUSAND_MAX_BOT_TABLES": "0",
    "THOUSAND_MAX_BOT_TABLES_PER_CLIENT": "0",
}
"""The environment of a game server a load generator drives: one client, this one, creates every table, so
the per-client and bot-only table quotas (docs/operations.md, Limits) are lifted. By environment, not by
flags: a server tree from before the quotas (``--server-tree``) ignores what it does not know."""


def start(
    argv: Sequence[str],
    log: Path,
    cwd: str | Path | None = None,
    env: dict[str, str] | None = None,
    *,
    quotas: bool = True,
) -> subprocess.Popen[bytes]:
    """Start a child process (in the repository, or ``cwd``) with its output going to ``log``, not a pipe;
    ``quotas=False``: a game server without table quotas (:data:`NO_TABLE_QUOTAS`).

    ``python -m`` puts the working directory first on ``sys.path``, so ``cwd`` chooses the source tree the
    server is imported from (unless ``env`` is a :class:`ServerPlace`'s, which sets the path itself).
    """
    if not quotas:
        env = {**(env if env is not None else os.environ), **NO_TABLE_QUOTAS}
    with log.open("wb") as out:
        return subprocess.Popen(
            list(argv),
            cwd=cwd or ROOT,
            env=env,
            stdin=subprocess.DEVNULL,
            stdout=out,
            stderr=subprocess.STDOUT,
        )


ENGINE_HELP: Final = (
    "the engine the game server runs: compiled (default), the engine's sources compiled by mypyc, as the"
    " production image runs it (scripts/compiled_engine.py; needs a C compiler); python: the sources as they"
    " are, as `make run` runs them"
)


class ServerPlace:
    """Where to start the game server, and with which environment, so that it runs the chosen engine.

    For ``compiled``, the compiled copy of the working tree's engine goes first on ``PYTHONPATH`` and the
    server starts in ``workdir`` (``python -m`` would otherwise put the repository, and its interpreted
    engine, first); :meth:`check` then asks that very interpreter which engine it imports.
    """

    def __init__(self, engine: str, tree: str | None, workdir: Path) -> None:
        self.engine = engine
        self.cwd: str | Path | None = tree
        self.env: dict[str, str] | None = None
        if engine == "compiled":
            if tree is not None:
                raise SystemExit("--engine compiled builds the working tree's engine: use python with that")
            from scripts.compiled_engine import build  # noqa: PLC0415  (only this path needs the build script)

            where = build()
            path = [str(where), str(ROOT), os.environ.get("PYTHONPATH", "")]
            self.env = {**os.environ, "PYTHONPATH": os.pathsep.join(p for p in path if p)}
            self.cwd = workdir

    def check(self) -> None:
        """Stop the benchmark if the server's interpreter would not import the engine asked for."""
        probe = [sys.executable, "-c", "import engine; print(engine.COMPILED)"]
        answer = subprocess.run(
            probe, cwd=self.cwd or ROOT, env=self.env, capture_output=True, text=True, check=False
        ).stdout.strip()
        if answer != str(self.engine == "compiled"):
            raise SystemExit(
                f"the server would not run the {self.engine} engine (engine.COMPILED says {answer!r})"
            )


def server_argv(port: int, db: str = ":memory:", *, fast_bots: bool = True) -> list[str]:
    """The game server as an operator would start it, quiet, its store in memory unless ``db`` says a file;
    ``fast_bots=False``: the server's own bots at its default pace."""
    argv = [
        sys.executable,
        "-m",
        "server.app",
        "--host",
        HOST,
        "--port",
        str(port),
        "--db",
        db,
        "--log-level",
        "warning",
    ]
    if fast_bots:  # the bots as fast as they can: a benchmark measures the server, not a person's patience
        argv += ["--bot-pace", "0"]
    return argv


def wait_for_port(port: int, process: subprocess.Popen[bytes], log: Path, timeout: float = 30.0) -> None:
    """Return once ``port`` accepts connections; fail if the process exits or ``timeout`` passes."""
    deadline = time.monotonic() + timeout
    for _ in range(int(timeout / 0.05) + 1):
        if process.poll() is not None:
            raise SystemExit(f"bench: {process.args!r} exited with {process.returncode}; see {log}")
        try:
            with socket.create_connection((HOST, port), timeout=0.5):
                return
        except OSError:
            pass
        if time.monotonic() >= deadline:
            break
        time.sleep(0.05)
    raise SystemExit(f"bench: nothing listens on {HOST}:{port} after {timeout:.0f} s; see {log}")


def stop(process: subprocess.Popen[bytes] | subprocess.Popen[str], timeout: float = 10.0) -> None:
    """SIGTERM (a graceful drain for the server), then SIGKILL if it has not exited within ``timeout``."""
    if process.poll() is not None:
        return
    process.send_signal(signal.SIGTERM)
    try:
        process.wait(timeout)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait(timeout)


def cpu_seconds(pid: int) -> float:
    """User plus system CPU time the process (all its threads) has used, from ``/proc/<pid>/stat``."""
    data = Path(f"/proc/{pid}/stat").read_text()
    fields = data[data.rindex(")") + 2 :].split()  # after "pid (comm) "; comm may contain spaces
    utime, stime = int(fields[11]), int(fields[12])  # fields 14 and 15 of proc(5)
    return (utime + stime) / CLOCK_TICKS


def thread_cpu_seconds(pid: int) -> dict[str, float]:
    """CPU time of the process's threads, summed by thread name (``/proc/<pid>/task/*/comm``).

    Python's threads keep the name ``python``; gRPC core names its own (``event_engine``, ``grpc_global_tim``,
    ...). A thread that ends between the listing and the reading is left out.
    """
    times: dict[str, float] = {}
    for task in Path(f"/proc/{pid}/task").iterdir():
        try:
            name = (task / "comm").read_text().strip()
            data = (task / "stat").read_text()
        except OSError:
            continue
        fields = data[data.rindex(")") + 2 :].split()
        times[name] = times.get(name, 0.0) + (int(fields[11]) + int(fields[12])) / CLOCK_TICKS
    return times


def rss_bytes(pid: int) -> int:
    """The process's resident set size, from ``VmRSS`` in ``/proc/<pid>/status``."""
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) * 1024
    raise RuntimeError(f"no VmRSS for process {pid}")


def load_average() -> tuple[float, float, float]:
    one, five, fifteen = os.getloadavg()
    return one, five, fifteen


def percentile(values: Sequence[float], fraction: float) -> float:
    """The ``fraction`` quantile (0 to 1) of ``values``, interpolated between the nearest ranks."""
    if not values:
        return 0.0
    ordered = sorted(values)
    position = fraction * (len(ordered) - 1)
    low = math.floor(position)
    high = min(low + 1, len(ordered) - 1)
    return ordered[low] + (ordered[high] - ordered[low]) * (position - low)
