"""The TableService's method handlers: the wiring of a call to :class:`server.service.TableService`.

One set of handlers serves both transports: the gRPC server registers :func:`generic_handler`, the web port
(:mod:`server.web_service`) runs :func:`method_handlers` behind Connect and gRPC-Web. Each handler finds the
caller, applies the client's rate limit before any work, and turns a :class:`ServiceError` into a status with
its ``ErrorInfo``; StreamEvents and Play send bytes the table serialized once per audience.
"""

from __future__ import annotations

import functools
import inspect
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import aclosing
from typing import Any, TypeVar

import grpc

from server.errors import ServiceError
from server.play import play
from server.requests import Context, Malformed, client_of, parse, token_of
from server.service import SERVICE_NAME, TableService
from thousand.v1 import table_service_pb2 as pb

Req = TypeVar("Req")
Resp = TypeVar("Resp")


def unary(
    fn: Callable[[Req, Context], Awaitable[Resp]],
    screen: Callable[[Any, Context], Awaitable[object]] | None = None,
) -> Callable[[Req, Context], Awaitable[Resp]]:
    """``fn`` with its refusals sent as statuses; ``screen``: a check of the caller made first."""

    async def handle(request: Req, context: Context) -> Resp:
        try:
            if isinstance(request, Malformed):
                raise request.refuse()
            if screen is not None:
                await screen(request, context)
            return await fn(request, context)
        except ServiceError as error:
            await context.abort_with_status(error.to_status())
            raise AssertionError("unreachable") from None

    return handle


async def limited(
    service: TableService, method: str, context: Context, token: str | None, call: Awaitable[Resp]
) -> Resp:
    """``call``, once the client's rate limit for ``method`` allows it (else RATE_LIMITED, ``call`` unrun)."""
    try:
        service.limit(method, client_of(context), token)
    except ServiceError:
        if inspect.iscoroutine(call):
            call.close()
        raise
    return await call


def generic_handler(service: TableService) -> grpc.GenericRpcHandler:
    """The service for a gRPC server."""
    return grpc.method_handlers_generic_handler(SERVICE_NAME, method_handlers(service))


def method_handlers(service: TableService) -> dict[str, grpc.RpcMethodHandler[Any, Any]]:
    """The service's method handlers by method name: the gRPC server's and the web port's (server/web.py).
    StreamEvents and StreamTableRecord send pre-serialized bytes."""

    async def stream(request: pb.StreamEventsRequest, context: Context) -> AsyncIterator[bytes]:
        try:
            if isinstance(request, Malformed):
                raise request.refuse()
            player = await service.seat_caller(request.table_id, context)
            responses = await service.stream_events(request, token_of(context), client_of(context), player)
        except ServiceError as error:
            await context.abort_with_status(error.to_status())
            return
        async with aclosing(responses):  # the table's stream unsubscribes as soon as the call ends
            try:
                async for data in responses:
                    yield data
            except ServiceError as error:  # the table moved to another node while streaming
                await context.abort_with_status(error.to_status())

    async def record(request: pb.StreamTableRecordRequest, context: Context) -> AsyncIterator[bytes]:
        """StreamTableRecord: ExportTable's checks and record, sent in parts (each already serialized)."""
        try:
            if isinstance(request, Malformed):
                raise request.refuse()
            await screen(request, context)
            call = service.stream_table_record(request)
            parts = await limited(service, "StreamTableRecord", context, None, call)
        except ServiceError as error:
            await context.abort_with_status(error.to_status())
            return
        for part in parts:
            yield pb.StreamTableRecordResponse(record_part=part).SerializeToString()

    async def create(request: pb.CreateTableRequest, context: Context) -> pb.CreateTableResponse:
        player = await service.caller(context)
        creation = service.create_table(request, client_of(context), player)
        return await limited(service, "CreateTable", context, None, creation)

    async def listing(request: pb.ListTablesRequest, context: Context) -> pb.ListTablesResponse:
        return await service.list_tables(request, await service.caller(context))

    async def join(request: pb.JoinTableRequest, context: Context) -> pb.JoinTableResponse:
        player = await service.caller(context)
        return await limited(service, "JoinTable", context, None, service.join_table(request, player))

    async def screen(request: Any, context: Context) -> None:
        await service.caller(context)

    async def leave(request: pb.LeaveTableRequest, context: Context) -> pb.LeaveTableResponse:
        player = await service.seat_caller(request.table_id, context)
        return await service.leave_table(request, token_of(context), player)

    async def reclaim(request: pb.ReclaimSeatRequest, context: Context) -> pb.ReclaimSeatResponse:
        player = await service.seat_caller(request.table_id, context)
        return await service.reclaim_seat(request, token_of(context), player)

    async def submit(request: pb.SubmitActionRequest, context: Context) -> pb.SubmitActionResponse:
        player = await service.seat_caller(request.table_id, context)
        token = token_of(context)
        return await limited(
            service, "SubmitAction", context, token, service.submit_action(request, token, player)
        )

    handlers: dict[str, grpc.RpcMethodHandler[Any, Any]] = {
        "CreateTable": grpc.unary_unary_rpc_method_handler(
            unary(create),
            request_deserializer=parse(pb.CreateTableRequest),
            response_serializer=pb.CreateTableResponse.SerializeToString,
        ),
        "ListTables": grpc.unary_unary_rpc_method_handler(
            unary(listing),
            request_deserializer=parse(pb.ListTablesRequest),
            response_serializer=pb.ListTablesResponse.SerializeToString,
        ),
        "GetTable": grpc.unary_unary_rpc_method_handler(
            unary(lambda r, c: service.get_table(r), screen),
            request_deserializer=parse(pb.GetTableRequest),
            response_serializer=pb.GetTableResponse.SerializeToString,
        ),
        "JoinTable": grpc.unary_unary_rpc_method_handler(
            unary(join),
            request_deserializer=parse(pb.JoinTableRequest),
            response_serializer=pb.JoinTableResponse.SerializeToString,
        ),
        "LeaveTable": grpc.unary_unary_rpc_method_handler(
            unary(leave),
            request_deserializer=parse(pb.LeaveTableRequest),
            response_serializer=pb.LeaveTableResponse.SerializeToString,
        ),
        "SubmitAction": grpc.unary_unary_rpc_method_handler(
            unary(submit),
            request_deserializer=parse(pb.SubmitActionRequest),
            response_serializer=pb.SubmitActionResponse.SerializeToString,
        ),
        "ReclaimSeat": grpc.unary_unary_rpc_method_handler(
            unary(reclaim),
            request_deserializer=parse(pb.ReclaimSeatRequest),
            response_serializer=pb.ReclaimSeatResponse.SerializeToString,
        ),
        "ExportTable": grpc.unary_unary_rpc_method_handler(
            unary(lambda r, c: limited(service, "ExportTable", c, None, service.export_table(r)), screen),
            request_deserializer=parse(pb.ExportTableRequest),
            response_serializer=pb.ExportTableResponse.SerializeToString,
        ),
        "StreamTableRecord": grpc.unary_stream_rpc_method_handler(
            record,
            request_deserializer=parse(pb.StreamTableRecordRequest),
            response_serializer=None,  # as StreamEvents: bytes, which the web port sends as they are
        ),
        "StreamEvents": grpc.unary_stream_rpc_method_handler(
            stream,
            request_deserializer=parse(pb.StreamEventsRequest),
            response_serializer=None,  # the table already serialized each message, once per audience
        ),
        "Play": grpc.stream_stream_rpc_method_handler(
            functools.partial(play, service),  # a partial of an async generator function is one too
            request_deserializer=parse(pb.PlayRequest),
            response_serializer=None,  # as StreamEvents: assembled from the table's serialized messages
        ),
    }
    return handlers
