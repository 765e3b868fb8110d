"""Shared by the tests of the terminal client (tests/test_cli_*.py): an in-process server on a free loopback
port, and a TCP proxy on loopback whose connections a test can cut to drop a client's connection."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator, Awaitable
from contextlib import asynccontextmanager
from typing import TypeVar

from server.app import Server
from server.settings import Settings

T = TypeVar("T")


def run(coro: Awaitable[T], timeout: float = 150) -> T:
    """Run a test's scenario; one that has not finished after ``timeout`` seconds fails instead of hanging."""

    async def main() -> T:
        return await asyncio.wait_for(coro, timeout)

    return asyncio.run(main())


@asynccontextmanager
async def serving() -> AsyncIterator[str]:
    """A server on 127.0.0.1 and a free port; yields its address."""
    server = Server(Settings(host="127.0.0.1", port=0))
    await server.start()
    try:
        yield f"127.0.0.1:{server.port}"
    finally:
        await server.stop(grace=0.5)


class Proxy:
    """Forwards TCP connections from its own loopback port to ``target``; :meth:`cut` aborts them all, and
    while ``blocked`` new connections are closed at once (the server looks unreachable)."""

    def __init__(self, target: str) -> None:
        host, port = target.rsplit(":", 1)
        self.target = (host, int(port))
        self.blocked = False
        self.frozen = False
        """While set, open connections stay open but nothing passes either way (a peer that vanished
        without closing its connection: a pulled cable, a dead NAT)."""
        self.cuts = 0
        self.connections = 0
        self._writers: set[asyncio.StreamWriter] = set()
        self._server: asyncio.Server | None = None
        self._tasks: set[asyncio.Task[None]] = set()
        self.port = 0

    @property
    def address(self) -> str:
        return f"127.0.0.1:{self.port}"

    async def start(self) -> None:
        self._server = await asyncio.start_server(self._accept, "127.0.0.1", 0)
        self.port = self._server.sockets[0].getsockname()[1]

    async def stop(self) -> None:
        self.cut()
        if self._server is not None:
            self._server.close()
            await self._server.wait_closed()
        for task in list(self._tasks):
            task.cancel()

    def cut(self) -> None:
        """Abort every open connection, both ways (the client sees its connection drop)."""
        self.cuts += 1
        for writer in list(self._writers):
            writer.transport.abort()
        self._writers.clear()

    async def _accept(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        if self.blocked:
            writer.transport.abort()
            return
        try:
            up_reader, up_writer = await asyncio.open_connection(*self.target)
        except OSError:
            writer.transport.abort()
            return
        self.connections += 1
        self._writers |= {writer, up_writer}
        for source, sink in ((reader, up_writer), (up_reader, writer)):
            task = asyncio.get_running_loop().create_task(self._pump(source, sink))
            self._tasks.add(task)
            task.add_done_callback(self._tasks.discard)

    async def _pump(self, source: asyncio.StreamReader, sink: asyncio.StreamWriter) -> None:
        try:
            while data := await source.read(65536):
                if self.frozen:
                    continue  # swallowed: the other side hears nothing, not even a close
                sink.write(data)
                await sink.drain()
        except (ConnectionError, OSError):
            pass
        finally:
            self._writers.discard(sink)
            with contextlib.suppress(Exception):
                sink.transport.abort()
