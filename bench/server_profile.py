"""``--profile``: the game server recorded by py-spy during the measured rounds, and where its time went.

py-spy samples the server's stacks (it is idle during the echo's slices); the summary counts the busy
samples by the component of their innermost frame and, inclusively, by the project's functions.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
from collections import Counter
from collections.abc import Callable
from pathlib import Path
from typing import Final

from bench import procs


def start_profiler(pid: int, path: Path, logs: Path, *, native: bool) -> subprocess.Popen[bytes] | None:
    py_spy = shutil.which("py-spy") or str(Path(sys.executable).parent / "py-spy")
    if not Path(py_spy).exists():
        print("bench: py-spy is not installed (pip install py-spy); --profile is ignored", file=sys.stderr)
        return None
    argv = [py_spy, "record", "--pid", str(pid), "--rate", "250", "--format", "raw", "--output", str(path)]
    # --native reads C frames (gRPC's Cython, protobuf, system calls), which needs the process paused for
    # every sample; without it py-spy samples without stopping the server.
    argv.append("--native" if native else "--nonblocking")
    return procs.start(argv, logs / "py-spy.log")


IDLE_LEAVES: Final = ("epoll_wait", "EpollSelector.select", "Thread.run (threading.py")
"""Frames a waiting thread sits in: the event loop's select, and gRPC's poller thread (blocked in C)."""
COMPONENTS: Final = (
    ("server/", "server/*.py"),
    ("engine/", "engine/*.py"),
    ("thousand/", "generated protobuf code"),
    ("_message", "protobuf (upb, C)"),
    ("cygrpc", "gRPC core and its Cython layer"),
    ("grpc/", "grpc Python layer"),
    ("structlog/", "logging (structlog)"),
    ("logging/", "logging (stdlib)"),
    ("sqlite", "SQLite store"),
    ("asyncio/", "asyncio (Python)"),
    ("_asynciomodule", "asyncio (C)"),
    ("libpython", "CPython runtime"),
)


def _component(leaf: str) -> str:
    name, _, where = leaf.partition(" (")
    if name == "Handle._run":
        return "C called from the event loop: gRPC's Cython layer, system calls (--native tells)"
    if where.startswith("libc"):
        return f"system call or libc: {name}"
    for marker, component in COMPONENTS:
        if marker in where:
            return component
    return "other"


def print_profile(path: Path, out: Callable[[str], None], top: int = 20) -> None:
    """Where the busy samples were: by component (of the innermost frame) and by function (inclusive)."""
    if not path.exists():
        out(f"no profile was written to {path}")
        return
    inclusive: Counter[str] = Counter()
    components: Counter[str] = Counter()
    busy = idle = 0
    for line in path.read_text().splitlines():
        stack, _, count_text = line.rpartition(" ")
        if not stack or not count_text.isdigit():
            continue
        count = int(count_text)
        frames = stack.split(";")
        if frames[-1].startswith(IDLE_LEAVES):
            idle += count
            continue
        busy += count
        components[_component(frames[-1])] += count
        for frame in {_short(f) for f in frames}:
            inclusive[frame] += count
    if not busy:
        out(f"the profile in {path} has no busy sample")
        return
    out(f"\nprofile of the game server ({busy} busy samples, {idle} waiting left out; {path}):")
    out("  by component of the innermost frame (without --native, C code counts as its Python caller):")
    for component, count in components.most_common(top):
        out(f"  {100 * count / busy:6.1f} %  {component}")
    out("  by function, inclusive (the project's code, and the event loop's callback runner):")
    shown = [
        (f, c)
        for f, c in inclusive.most_common()
        if (f.startswith(PROFILED) and not f.startswith("server/app.py")) or "Handle._run" in f
    ]
    for frame, count in shown[:top]:
        out(f"  {100 * count / busy:6.1f} %  {frame}")


PROFILED: Final = ("server/", "engine/")


def _short(frame: str) -> str:
    """``path/from/the/package.py:function`` (the line left out)."""
    name, _, where = frame.partition(" (")
    where = where.rstrip(")").rpartition(":")[0] or where.rstrip(")")
    for marker in ("site-packages/", "lib/python3.11/"):
        if marker in where:
            where = where.split(marker, 1)[1]
    for marker in PROFILED:
        if f"/{marker}" in where:
            where = marker + where.split(f"/{marker}", 1)[1]
    return f"{where}:{name}"
