"""What every attack of ``bench/abuse.py`` shares: the :class:`Run` (which tree, how big) that starts a
server and the :class:`Served` it measures, the bystander whose latencies are the attack's cost to
everyone else, and the requests and error reasons the attacks send and read."""

from __future__ import annotations

import asyncio
import json
import os
import signal
import sys
import urllib.request
from collections.abc import AsyncIterator, Awaitable, Sequence
from contextlib import asynccontextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Final

from grpc import aio
from prometheus_client.parser import text_string_to_metric_families

from bench import procs
from scripts.ports import free_port
from thousand.v1 import table_service_pb2 as pb
from thousand.v1 import table_service_pb2_grpc as pb_grpc

TOKEN: Final = "x-seat-token"
SMALL_WINDOW: Final = [("grpc.http2.bdp_probe", 0)]
"""A client that leaves HTTP/2's receive window at 64 KiB, so that not reading blocks the server soon."""
OPEN: Final = pb.SeatConfig(kind=pb.SEAT_KIND_OPEN)
Figures = dict[str, Any]


def bot(strategy: str) -> pb.SeatConfig:
    return pb.SeatConfig(kind=pb.SEAT_KIND_BOT, strategy=strategy)


@dataclass(frozen=True)
class Served:
    process: Any
    port: int
    metrics_port: int
    host: str = procs.HOST

    def metric(self, name: str, **labels: str) -> float:
        """The sum of the server's samples ``name`` whose labels include ``labels``, from its /metrics."""
        with urllib.request.urlopen(f"http://{self.host}:{self.metrics_port}/metrics", timeout=10) as page:
            text = page.read().decode()
        return sum(
            sample.value
            for family in text_string_to_metric_families(text)
            for sample in family.samples
            if sample.name == name and labels.items() <= sample.labels.items()
        )

    @property
    def address(self) -> str:
        return f"{self.host}:{self.port}"

    def rss_mb(self) -> float:
        return round(procs.rss_bytes(self.process.pid) / 2**20, 1)

    def channel(self, options: Sequence[tuple[str, Any]] = (), address: str | None = None) -> aio.Channel:
        # A local subchannel pool: equal channels would otherwise share one connection.
        return aio.insecure_channel(
            address or self.address, options=[("grpc.use_local_subchannel_pool", 1), *options]
        )


@dataclass(frozen=True)
class Run:
    label: str
    tree: str | None
    """The server's source tree; None: the working tree (the limits)."""
    workdir: Path
    scale: float

    @property
    def after(self) -> bool:
        return self.tree is None

    def sized(self, n: float, least: int = 1) -> int:
        return max(least, int(n * self.scale))

    def seconds(self, seconds: float, least: float = 0.5) -> float:
        return max(least, seconds * min(1.0, self.scale * 10))

    @asynccontextmanager
    async def server(self, *flags: str, after_flags: Sequence[str] = ()) -> AsyncIterator[Served]:
        port, metrics_port = free_port(), free_port()
        log = self.workdir / f"server-{self.label}-{port}.log"
        argv = [
            *procs.server_argv(port),
            *("--metrics-port", str(metrics_port)),
            *flags,
            *(after_flags if self.after else ()),
        ]
        process = procs.start(argv, log, cwd=self.tree)
        try:
            procs.wait_for_port(port, process, log)
            await asyncio.sleep(0.3)
            yield Served(process, port, metrics_port)
        finally:
            if process.poll() is None:
                os.kill(process.pid, signal.SIGCONT)  # in case an attack left it stopped
            procs.stop(process)


async def bystander(served: Served, seconds: float) -> Figures:
    """Another process's GetTable latencies over ``seconds`` (see ``bench/abuse.py``)."""
    script = str(Path(__file__).resolve().parent / "abuse.py")
    child = await asyncio.create_subprocess_exec(
        sys.executable,
        script,
        "--bystander",
        served.address,
        "--seconds",
        str(seconds),
        stdout=asyncio.subprocess.PIPE,
    )
    out, _ = await child.communicate()
    figures: Figures = json.loads(out.decode().strip().splitlines()[-1])
    return figures


async def while_bystanding(served: Served, seconds: float, attack: Awaitable[Any]) -> tuple[Figures, Any]:
    """The bystander's figures over ``seconds`` with ``attack`` started 0.3 s in, and the attack's result."""
    watching = asyncio.create_task(bystander(served, seconds))
    await asyncio.sleep(0.3)
    result = await attack
    return await watching, result


async def seated(
    stub: pb_grpc.TableServiceAsyncStub, request: pb.CreateTableRequest
) -> tuple[str, list[str]]:
    table = (await stub.CreateTable(request)).table
    tokens = [
        (await stub.JoinTable(pb.JoinTableRequest(table_id=table.table_id))).seat_token
        for _ in range(table.open_seats)
    ]
    return table.table_id, tokens


def play_call(channel: aio.Channel, token: str | None) -> Any:
    method = channel.stream_stream(
        "/thousand.v1.TableService/Play",
        request_serializer=pb.PlayRequest.SerializeToString,
        response_deserializer=pb.PlayResponse.FromString,
    )
    return method(metadata=((TOKEN, token),) if token else None)


def start(table_id: str) -> pb.PlayRequest:
    request = pb.PlayRequest()
    request.start.table_id = table_id
    return request


def play_action(request_id: str, action: pb.Action | None = None) -> pb.PlayRequest:
    request = pb.PlayRequest()
    request.action.request_id = request_id
    if action is not None:
        request.action.action.CopyFrom(action)
    return request


def code_of(error: BaseException) -> str:
    return error.code().name if isinstance(error, aio.AioRpcError) else type(error).__name__


def reason_of(error: aio.AioRpcError) -> str:
    """The ErrorInfo reason (and ``limit``, when there is one), else the status code."""
    from google.rpc import error_details_pb2  # noqa: PLC0415
    from grpc_status import rpc_status  # noqa: PLC0415

    status = rpc_status.from_call(error)  # type: ignore[arg-type]
    for detail in status.details if status is not None else ():
        info = error_details_pb2.ErrorInfo()
        if detail.Unpack(info):
            limit = info.metadata.get("limit")
            return f"{info.reason}({limit})" if limit else info.reason
    return error.code().name
