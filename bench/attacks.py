"""The attacks of ``bench/abuse.py``: each one the issue measured, from outside, with the contract alone.

Each attack is an async function of a :class:`Run` (which tree, how big) returning its figures; it starts
its own server(s) and stops them. Flags the server before the limits does not know are passed to the
working tree's server only (``after_flags``).
"""

from __future__ import annotations

import asyncio
import json
import os
import signal
import socket
import sys
import time
import urllib.request
from collections.abc import AsyncIterator, Awaitable, Callable, Coroutine, Sequence
from contextlib import asynccontextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Final

from grpc import aio
from prometheus_client.parser import text_string_to_metric_families

from bench import procs
from thousand.v1 import blagogo_actions_pb2 as bg_pb
from thousand.v1 import blagogo_cards_pb2 as bg_cards
from thousand.v1 import blagogo_rules_pb2 as bg_rules
from thousand.v1 import cards_pb2
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
        port, metrics_port = procs.free_port(), procs.free_port()
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


# ------------------------------------------------------------------------------------------------ 1 unread


async def unread(run: Run) -> Figures:
    """Issue: a Play stream sending 600,000 actions without reading grew RSS from 60 to 230 MB."""
    async with run.server() as served, served.channel(SMALL_WINDOW) as channel:
        stub = pb_grpc.TableServiceStub(channel)
        table_id, tokens = await seated(stub, pb.CreateTableRequest(game=pb.GAME_KIND_THOUSAND))
        before = served.rss_mb()
        call = play_call(channel, tokens[0])
        await call.write(start(table_id))
        sent = 0
        ends = time.monotonic() + run.seconds(15)
        try:
            while sent < run.sized(600_000) and time.monotonic() < ends:
                await asyncio.wait_for(call.write(play_action(f"{sent:0128d}")), 2.0)
                sent += 1
        except TimeoutError:
            pass  # the server stopped reading: the client's writes block
        await asyncio.sleep(1.0)
        grown = round(served.rss_mb() - before, 1)
        labels = {"grpc_method": "Play", "grpc_type": "BIDI_STREAM"}
        read = int(await asyncio.to_thread(served.metric, "grpc_server_msg_received_total", **labels))
        call.cancel()
        spectator = play_call(channel, None)
        await spectator.write(start(table_id))
        refusals, ended = 0, "still open after 10 s"

        async def watch_and_act() -> None:
            for i in range(run.sized(2000)):
                await spectator.write(play_action(f"w{i}"))

        acting = asyncio.create_task(watch_and_act())
        try:
            async with asyncio.timeout(10):
                while isinstance(response := await spectator.read(), pb.PlayResponse):
                    refusals += response.HasField("result")
        except aio.AioRpcError:
            # The server ends it with SPECTATOR_CANNOT_ACT; grpc-python's client reports INTERNAL instead
            # when its own writes fail on the ended call first.
            ended = "ended"
        except TimeoutError:
            pass
        acting.cancel()
        await asyncio.gather(acting, return_exceptions=True)  # its writes fail once the call ended
        spectator.cancel()
    return {
        "seat_actions_sent": sent,
        "server_read": read,
        "server_rss_growth_mb": grown,
        "spectator_refusals_sent_back": refusals,
        "spectator_stream": ended,
    }


# ------------------------------------------------------------------------------------------------ 2 resume


async def long_history(stub: pb_grpc.TableServiceAsyncStub, run: Run) -> tuple[str, int]:
    """A finished table of eight random 1000 Blagogo bots with a long history (the issue's had 9,499)."""
    # Seed 7 to 2,500: about 10,700 events, a game that ends on both sides of the limits (some seeds play a
    # round whose cards left are all dead, which never ends).
    rules = pb.Rules(blagogo=bg_rules.BlagogoRules(players=8, target=run.sized(2500, least=100)))
    request = pb.CreateTableRequest(game=pb.GAME_KIND_BLAGOGO, rules=rules, seats=[bot("random")] * 8, seed=7)
    table_id = (await stub.CreateTable(request)).table.table_id
    ends = time.monotonic() + 180
    while time.monotonic() < ends:
        table = (await stub.GetTable(pb.GetTableRequest(table_id=table_id))).table
        if table.status == pb.TABLE_STATUS_FINISHED:
            return table_id, table.sequence
        await asyncio.sleep(0.5)
    raise SystemExit("bench: the history table did not finish within 180 s")


async def read_history(channel: aio.Channel, table_id: str) -> float:
    """Milliseconds to read a finished table's whole history from sequence 0 (as bytes: the client's
    parsing would otherwise be slower than the server's sending)."""
    method: aio.UnaryStreamMultiCallable[pb.StreamEventsRequest, bytes] = channel.unary_stream(
        "/thousand.v1.TableService/StreamEvents", request_serializer=pb.StreamEventsRequest.SerializeToString
    )
    began = time.perf_counter()
    async for _ in method(pb.StreamEventsRequest(table_id=table_id, after_sequence=0)):
        pass
    return (time.perf_counter() - began) * 1000


async def resumes_refused(run: Run, many: int) -> str:
    """Of ``many`` resumes of the whole history at once from one client, with the server's default limits:
    how many were refused, and why."""
    async with run.server() as served, served.channel() as channel:
        table_id, _ = await long_history(pb_grpc.TableServiceStub(channel), run)
        outcomes = await asyncio.gather(
            *(read_history(channel, table_id) for _ in range(many)), return_exceptions=True
        )
        refused = [reason_of(o) for o in outcomes if isinstance(o, aio.AioRpcError)]
        return f"{len(refused)} of {many}" + (f" ({refused[0]})" if refused else "")


async def resume(run: Run) -> Figures:
    """Issue: one resume of 9,499 events stalled others for 392 ms, 20 froze the server for 6.4 s, 300 unread
    resumes of 4,807 events held 53 MB beyond the stream bound. Measured without a rate limit (the 20 on one
    connection), then how many of 20 resumes at once one client gets with the default limits."""
    async with run.server("--rate-limit", "0") as served, served.channel() as channel:
        stub = pb_grpc.TableServiceStub(channel)
        table_id, events = await long_history(stub, run)
        idle = await bystander(served, 1.5)
        one, one_ms = await while_bystanding(served, 2.5, read_history(channel, table_id))
        many = run.sized(20, least=2)
        twenty, _ = await while_bystanding(
            served, 8.0, asyncio.gather(*(read_history(channel, table_id) for _ in range(many)))
        )
        before = served.rss_mb()
        async with served.channel(SMALL_WINDOW) as slow:
            quiet = pb_grpc.TableServiceStub(slow)
            calls = [
                quiet.StreamEvents(pb.StreamEventsRequest(table_id=table_id, after_sequence=0))
                for _ in range(run.sized(100, least=3))
            ]
            failed: dict[str, int] = {}
            for call in calls:
                try:
                    await call.wait_for_connection()
                except aio.AioRpcError as error:
                    failed[code_of(error)] = failed.get(code_of(error), 0) + 1
            await asyncio.sleep(3.0)
            held = round(served.rss_mb() - before, 1)
            for call in calls:
                call.cancel()
    limited = await resumes_refused(run, many)
    return {
        "events": events,
        "idle_p50_ms": idle["p50_ms"],
        "one_resume_ms": round(one_ms, 1),
        "one_bystander_p99_max_ms": f"{one['p99_ms']} {one['max_ms']}",
        f"{many}_resumes_bystander_p50_p99_max_ms": " ".join(
            str(twenty[k]) for k in ("p50_ms", "p99_ms", "max_ms")
        ),
        f"{len(calls)}_unread_resumes_rss_mb": held,
        "unread_resumes_failed": failed or 0,
        f"{many}_resumes_at_once_refused_by_default": limited,
    }


# -------------------------------------------------------------------------------------------------- 3 bots


async def person_decisions(stub: pb_grpc.TableServiceAsyncStub, seconds: float) -> float:
    """Decisions per second of a person (scripted: the first legal action) playing two greedy bots."""
    request = pb.CreateTableRequest(game=pb.GAME_KIND_THOUSAND, seats=[OPEN, bot("greedy"), bot("greedy")])
    table_id, (token,) = await seated(stub, request)
    metadata = ((TOKEN, token),)
    decisions = 0
    ends = time.monotonic() + seconds
    stream = stub.StreamEvents(pb.StreamEventsRequest(table_id=table_id), metadata=metadata)
    async for message in stream:
        if time.monotonic() >= ends:
            break
        turn = message.turn
        if turn.HasField("seat") and turn.seat == 0 and turn.legal_actions:
            last = message.sequence + len(message.more_events)
            try:
                await stub.SubmitAction(
                    pb.SubmitActionRequest(
                        table_id=table_id,
                        request_id=f"p{decisions}",
                        last_seen_sequence=last,
                        action=turn.legal_actions[0],
                    ),
                    metadata=metadata,
                )
                decisions += 1
            except aio.AioRpcError:
                pass
        if message.event.HasField("thousand") and message.event.thousand.HasField("game_over"):
            break
    stream.cancel()
    return round(decisions / seconds, 1)


async def bot_tables(run: Run, served: Served) -> Figures:
    async with served.channel() as channel:
        stub = pb_grpc.TableServiceStub(channel)
        before = served.rss_mb()
        baseline, calm = await while_bystanding(served, 3.0, person_decisions(stub, 2.5))
        request = pb.CreateTableRequest(game=pb.GAME_KIND_THOUSAND, seats=[bot("random")] * 3)
        wanted = run.sized(300, least=4)
        refused: dict[str, int] = {}
        began = time.perf_counter()

        async def create() -> None:
            try:
                await stub.CreateTable(request)
            except aio.AioRpcError as error:
                refused[reason_of(error)] = refused.get(reason_of(error), 0) + 1

        await asyncio.gather(*(create() for _ in range(wanted)))
        created_s = time.perf_counter() - began
        loaded, busy = await while_bystanding(served, 5.0, person_decisions(stub, 4.5))
        return {
            "asked": wanted,
            "created": wanted - sum(refused.values()),
            "refused": refused or 0,
            "create_s": round(created_s, 2),
            "bystander_p50_ms": f"{baseline['p50_ms']} -> {loaded['p50_ms']}",
            "bystander_p99_ms": f"{baseline['p99_ms']} -> {loaded['p99_ms']}",
            "person_decisions_per_s": f"{calm} -> {busy}",
            "rss_growth_mb": round(served.rss_mb() - before, 1),
        }


async def bots(run: Run) -> Figures:
    """Issue: 300 tables of three bots from one client: bystander p50 2.6 -> 96 ms, a person's game three
    times slower, RSS 61 -> 184 MB. After: the default quotas, then the quotas lifted (pacing alone)."""
    async with run.server() as served:
        figures = await bot_tables(run, served)
    if not run.after:
        return figures
    lifted = ["--max-bot-tables", "0", "--max-bot-tables-per-client", "0", "--max-tables-per-client", "0"]
    async with run.server(after_flags=lifted) as served:
        unlimited = await bot_tables(run, served)
    return {**figures, **{f"no_quota_{k}": v for k, v in unlimited.items()}}


# ------------------------------------------------------------------------------------------------- 4 never


async def never(run: Run) -> Figures:
    """Issue: a Blagogo table of 8 random bots with target 2147483647 was accepted and played for ever;
    tables of bots that cannot finish (three random Thousand bots rarely do) played on without end."""
    moves = run.sized(20_000, least=300)
    flags = ["--bot-table-max-moves", str(moves)]
    async with run.server(after_flags=flags) as served, served.channel() as channel:
        stub = pb_grpc.TableServiceStub(channel)
        rules = pb.Rules(blagogo=bg_rules.BlagogoRules(players=8, target=2**31 - 1))
        huge = pb.CreateTableRequest(game=pb.GAME_KIND_BLAGOGO, rules=rules, seats=[bot("random")] * 8)
        try:
            await stub.CreateTable(huge)
            target = "accepted"
        except aio.AioRpcError as error:
            target = reason_of(error)
        request = pb.CreateTableRequest(game=pb.GAME_KIND_THOUSAND, seats=[bot("random")] * 3, seed=11)
        table_id = (await stub.CreateTable(request)).table.table_id
        began = time.monotonic()
        limit = run.seconds(60, least=20)
        while time.monotonic() - began < limit:
            table = (await stub.GetTable(pb.GetTableRequest(table_id=table_id))).table
            if table.status == pb.TABLE_STATUS_FINISHED:
                break
            await asyncio.sleep(0.25)
        status = pb.TableStatus.Name(table.status)
        return {
            "huge_target": target,
            "random_bots_table": status,
            "after_s": round(time.monotonic() - began, 1),
            "events": table.sequence,
        }


# ------------------------------------------------------------------------------------------------- 5 quota


def ipv6_loopback() -> bool:
    try:
        with socket.socket(socket.AF_INET6, socket.SOCK_STREAM) as probe:
            probe.bind(("::1", 0))
    except OSError:
        return False
    return True


async def quota(run: Run) -> Figures:
    """Issue: one client created 10,000 waiting tables in 67 s; every other client got TOO_MANY_TABLES. Here
    the server holds at most 2,000 tables (scaled) and listens on 127.0.0.1 and ::1: two clients."""
    total = run.sized(2000, least=120)
    if not ipv6_loopback():
        return {"skipped": "no IPv6 loopback here: the second client needs another address"}
    async with (
        run.server("--max-tables", str(total), "--host", "localhost") as served,
        served.channel() as channel,
        served.channel(address=f"[::1]:{served.port}") as other,
    ):
        stub = pb_grpc.TableServiceStub(channel)
        before = served.rss_mb()
        created = 0
        refusal = "none"
        began = time.perf_counter()
        limit = asyncio.Semaphore(16)

        async def create() -> bool:
            nonlocal created, refusal
            async with limit:
                try:
                    await stub.CreateTable(pb.CreateTableRequest(game=pb.GAME_KIND_THOUSAND))
                    created += 1
                    return True
                except aio.AioRpcError as error:
                    refusal = reason_of(error)
                    return False

        for _ in range(0, total + 16, 64):
            if not all(await asyncio.gather(*(create() for _ in range(64)))):
                break
        seconds = time.perf_counter() - began
        try:
            await pb_grpc.TableServiceStub(other).CreateTable(
                pb.CreateTableRequest(game=pb.GAME_KIND_THOUSAND)
            )
            second = "created"
        except aio.AioRpcError as error:
            second = reason_of(error)
        return {
            "server_max_tables": total,
            "first_client_created": created,
            "first_client_refused_with": refusal,
            "seconds": round(seconds, 2),
            "other_client": second,
            "rss_growth_mb": round(served.rss_mb() - before, 1),
        }


# ------------------------------------------------------------------------------------------------ 6 freeze


async def freeze(run: Run) -> Figures:
    """Issue: with a 10 s clock, SIGSTOP for 30 s one second after seat 0 sent its action: on SIGCONT the
    clock fired first and the seat was taken over. Here: 1 s a move and a 2 s bank, the action sent while
    the server is stopped, SIGCONT after 4.5 s; twice, since the race may go either way."""
    outcomes: list[str] = []
    banks: list[float] = []
    async with run.server() as served, served.channel() as channel:
        stub = pb_grpc.TableServiceStub(channel)
        for seed in (1, 2):
            request = pb.CreateTableRequest(
                game=pb.GAME_KIND_THOUSAND, seed=seed, first_dealer=0, practice=True
            )
            request.time_control.per_move.FromSeconds(1)
            request.time_control.bank.FromSeconds(2)
            table_id, tokens = await seated(stub, request)
            watch = stub.StreamEvents(pb.StreamEventsRequest(table_id=table_id))
            snapshot = await watch.read()
            assert isinstance(snapshot, pb.StreamEventsResponse)
            seat = snapshot.turn.seat
            watch.cancel()
            call = play_call(channel, tokens[seat])
            await call.write(start(table_id))
            first = await call.read()
            action = first.update.turn.legal_actions[0]
            os.kill(served.process.pid, signal.SIGSTOP)
            try:
                await call.write(play_action("frozen", action))
                await asyncio.sleep(4.5)
            finally:
                os.kill(served.process.pid, signal.SIGCONT)
            timed_out, outcome = False, "no result"
            async with asyncio.timeout(15):
                while isinstance(response := await call.read(), pb.PlayResponse):
                    update = response.update
                    for event in (update.event, *update.more_events):
                        timed_out |= event.HasField("turn_timed_out")
                    if response.HasField("result"):
                        result = response.result
                        outcome = result.refusal.reason if result.HasField("refusal") else "applied"
                        break
            call.cancel()
            outcomes.append(("timed out, then " if timed_out else "") + outcome)
            table = (await stub.GetTable(pb.GetTableRequest(table_id=table_id))).table
            banks.append(round(table.seats[seat].bank_remaining.ToNanoseconds() / 1e9, 2))
    return {"the_seats_action": " / ".join(outcomes), "bank_left_of_2_s": banks}


# ------------------------------------------------------------------------------------------------- 7 small


async def timed(call: Awaitable[Any]) -> tuple[float, str]:
    """Milliseconds the call took, and how it ended."""
    began = time.perf_counter()
    try:
        await call
        outcome = "OK"
    except aio.AioRpcError as error:
        outcome = reason_of(error)
    return (time.perf_counter() - began) * 1000, outcome


async def small(run: Run) -> Figures:
    """Issue: SeatKind 3/99/-5 accepted as OPEN; a 4 KB table_id made the client see RESOURCE_EXHAUSTED; a
    reused CreateTable request_id with another request returned the first table; a 50 KB LayMelds cost 63 ms
    of the event loop."""
    async with run.server() as served, served.channel() as channel:
        stub = pb_grpc.TableServiceStub(channel)
        odd = pb.CreateTableRequest(game=pb.GAME_KIND_THOUSAND, seats=[OPEN, OPEN, pb.SeatConfig(kind=99)])  # type: ignore[arg-type]
        _, seat_kind = await timed(stub.CreateTable(odd))
        long_id = "x" * 6000
        try:
            await stub.GetTable(pb.GetTableRequest(table_id=long_id))
            table_id_seen = "OK"
        except aio.AioRpcError as error:
            table_id_seen = f"{code_of(error)} ({len(error.details() or '')} chars)"
        first = pb.CreateTableRequest(game=pb.GAME_KIND_THOUSAND, request_id="same-id")
        other = pb.CreateTableRequest(game=pb.GAME_KIND_BLAGOGO, request_id="same-id")
        made = (await stub.CreateTable(first)).table.table_id
        try:
            again = (await stub.CreateTable(other)).table
            reused = "the first table" if again.table_id == made else "another table"
        except aio.AioRpcError as error:
            reused = reason_of(error)
        blagogo = pb.CreateTableRequest(game=pb.GAME_KIND_BLAGOGO, seats=[OPEN, OPEN], seed=3, practice=True)
        table_id, tokens = await seated(stub, blagogo)
        card = bg_cards.BlagogoCard(rank=bg_cards.BLAGOGO_RANK_FIVE, suit=cards_pb2.SUIT_SPADES)
        melds = bg_pb.BlagogoAction.LayMelds(melds=[bg_pb.BlagogoMeldSpec(cards=[card])] * 5000)
        action = pb.Action(blagogo=bg_pb.BlagogoAction(lay_melds=melds))
        times = []
        outcome = ""
        for i in range(run.sized(10, least=3)):
            submit = pb.SubmitActionRequest(table_id=table_id, request_id=f"m{i}", action=action)
            elapsed, outcome = await timed(stub.SubmitAction(submit, metadata=((TOKEN, tokens[i % 2]),)))
            times.append(elapsed)
        return {
            "seat_kind_99": seat_kind,
            "table_id_6000_chars": table_id_seen,
            "request_id_reused": reused,
            f"lay_melds_{action.ByteSize() // 1000}kb_ms": round(procs.percentile(times, 0.5), 1),
            "lay_melds_outcome": outcome,
        }


ATTACKS: Final[dict[str, Callable[[Run], Coroutine[Any, Any, Figures]]]] = {
    "unread": unread,
    "resume": resume,
    "bots": bots,
    "never": never,
    "quota": quota,
    "freeze": freeze,
    "small": small,
}
