"""Per-client rate limits: a token bucket per seat token (SubmitAction) or peer host (CreateTable, JoinTable),
refused with RATE_LIMITED, RESOURCE_EXHAUSTED and a google.rpc.RetryInfo delay."""

from __future__ import annotations

import asyncio

import grpc
import pytest
from google.rpc import error_details_pb2
from grpc import aio
from grpc_status import rpc_status

from server.app import Server
from server.ratelimit import RateLimiter
from server.settings import Settings, parse_settings
from tests.server_harness import expect_error, thousand_table, token_md
from thousand.v1 import table_service_pb2 as pb
from thousand.v1 import table_service_pb2_grpc as pb_grpc


def retry_delay(error: aio.AioRpcError) -> float:
    status = rpc_status.from_call(error)  # type: ignore[arg-type]
    assert status is not None
    for detail in status.details:
        info = error_details_pb2.RetryInfo()
        if detail.Unpack(info):
            return float(info.retry_delay.ToNanoseconds()) / 1e9
    raise AssertionError("no RetryInfo")


def test_token_bucket_refills_at_its_rate() -> None:
    now = [0.0]
    limiter = RateLimiter(2, 3, clock=lambda: now[0])
    assert [limiter.delay("a") for _ in range(3)] == [0.0, 0.0, 0.0]
    assert limiter.delay("a") == pytest.approx(0.5)
    assert limiter.delay("b") == 0.0  # another client's bucket
    now[0] += 0.5
    assert limiter.delay("a") == 0.0
    assert limiter.delay("a") == pytest.approx(0.5)
    assert RateLimiter(0, 0).delay("a") == 0.0  # off


def test_idle_full_buckets_are_forgotten() -> None:
    now = [0.0]
    limiter = RateLimiter(10, 2, clock=lambda: now[0], max_buckets=3)
    for key in "abc":
        limiter.delay(key)
    now[0] += 1.0  # every bucket has refilled
    limiter.delay("d")
    assert len(limiter._buckets) == 1


def test_refusals_carry_rate_limited_and_retry_info() -> None:
    async def scenario() -> None:
        server = Server(Settings(host="127.0.0.1", port=0, rate_limit=2, rate_burst=3))
        # The server's own limiter on a clock this test moves: no bucket refills while the calls run,
        # however slowly a loaded machine runs them.
        now = [0.0]
        server.service.limiter = RateLimiter(2, 3, clock=lambda: now[0])
        await server.start()
        try:
            async with aio.insecure_channel(f"127.0.0.1:{server.port}") as channel:
                stub = pb_grpc.TableServiceStub(channel)
                request = thousand_table(3, bots=1)
                tables = [(await stub.CreateTable(request)).table for _ in range(3)]
                with pytest.raises(aio.AioRpcError) as caught:
                    await stub.CreateTable(request)
                assert caught.value.code() == grpc.StatusCode.RESOURCE_EXHAUSTED
                assert 0 < retry_delay(caught.value) <= 0.5
                await expect_error(
                    stub.CreateTable(request), "RATE_LIMITED", grpc.StatusCode.RESOURCE_EXHAUSTED
                )
                assert len(server.registry) == 3  # refused before anything was done
                # JoinTable has its own bucket; after the delay the client may call again.
                table_id = tables[0].table_id
                first = await stub.JoinTable(pb.JoinTableRequest(table_id=table_id))
                second = await stub.JoinTable(pb.JoinTableRequest(table_id=table_id))
                now[0] += 0.6  # after the delay it was told
                await stub.CreateTable(request)
                # SubmitAction: per seat token, so two seats on one host do not share a bucket.
                for joined in (first, second):
                    md = token_md(joined.seat_token)
                    for i in range(3):  # refused by the game, but each took a token
                        await expect_error(
                            stub.SubmitAction(
                                pb.SubmitActionRequest(table_id=table_id, request_id=f"r{i}"), metadata=md
                            ),
                            "INVALID_ARGUMENT",
                            grpc.StatusCode.INVALID_ARGUMENT,
                        )
                    info = await expect_error(
                        stub.SubmitAction(
                            pb.SubmitActionRequest(table_id=table_id, request_id="r9"), metadata=md
                        ),
                        "RATE_LIMITED",
                        grpc.StatusCode.RESOURCE_EXHAUSTED,
                    )
                    assert info.domain == "thousand.v1"
                # Reads are never limited.
                for _ in range(10):
                    await stub.GetTable(pb.GetTableRequest(table_id=table_id))
        finally:
            await server.stop(grace=0.2)

    asyncio.run(scenario())


def test_rate_settings_from_flags_and_environment() -> None:
    defaults = parse_settings([], {})
    assert defaults.rate_limit > 0 and defaults.rate_burst >= defaults.rate_limit
    env = {"THOUSAND_RATE_LIMIT": "5", "THOUSAND_RATE_BURST": "7"}
    assert (parse_settings([], env).rate_limit, parse_settings([], env).rate_burst) == (5, 7)
    flags = parse_settings(["--rate-limit", "0", "--rate-burst", "9"], env)
    assert (flags.rate_limit, flags.rate_burst) == (0, 9)
