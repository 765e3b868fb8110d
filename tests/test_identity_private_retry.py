"""Issue 25, private tables: a CreateTable retried with the same request_id gets the table its first attempt
made only when it asks for the same table, private settings included. The same request_id with another
invite, no invite, other reserved seats, or listed instead of unlisted (or the other way round) is
REQUEST_ID_REUSED with a reason that says so, and nothing is made or changed: the first table keeps the
settings it was made with, on one server (also after a restart: the request's digest is stored with the
table) and on the other node of a cluster (the digest read from PostgreSQL)."""

from __future__ import annotations

import asyncio
import secrets
from collections.abc import Callable
from pathlib import Path

import grpc
from grpc import aio

from tests.cluster_harness import cluster
from tests.identity_harness import Served, bearer, served
from tests.server_harness import expect_error, run, thousand_table
from thousand.v1 import player_service_pb2 as player_pb
from thousand.v1 import player_service_pb2_grpc as player_grpc
from thousand.v1 import table_service_pb2 as pb
from thousand.v1 import table_service_pb2_grpc as table_grpc

Metadata = tuple[tuple[str, str], ...]


def private(
    request_id: str, invite: str, reserved: dict[int, str], *, unlisted: bool = True
) -> pb.CreateTableRequest:
    request = thousand_table(players=3)
    request.request_id = request_id
    request.unlisted = unlisted
    request.invite_code = invite
    for seat, player_id in sorted(reserved.items()):
        request.reservations.add(seat=seat, player_id=player_id)
    return request


def changed_settings(
    request_id: str, invite: str, bob: str, cid: str
) -> list[tuple[str, pb.CreateTableRequest]]:
    """Retries of ``private(request_id, invite, {1: bob})`` each changing one private setting."""
    return [
        ("listed", private(request_id, invite, {1: bob}, unlisted=False)),
        ("another invite", private(request_id, secrets.token_urlsafe(16), {1: bob})),
        ("no invite", private(request_id, "", {1: bob})),
        ("the seat held for another player", private(request_id, invite, {1: cid})),
        ("another seat held", private(request_id, invite, {2: bob})),
        ("a seat more held", private(request_id, invite, {1: bob, 2: cid})),
        ("no seat held", private(request_id, invite, {})),
        ("no private setting", private(request_id, "", {}, unlisted=False)),
    ]


async def refused_alike(
    create: Callable[[pb.CreateTableRequest], object], retries: list[tuple[str, pb.CreateTableRequest]]
) -> None:
    for what, retry in retries:
        info = await expect_error(create(retry), "REQUEST_ID_REUSED", grpc.StatusCode.INVALID_ARGUMENT)  # type: ignore[arg-type]
        assert info.metadata["field"] == "request_id", what


async def guest(players: player_grpc.PlayerServiceAsyncStub, name: str) -> tuple[str, Metadata]:
    made = await players.CreateGuest(player_pb.CreateGuestRequest(display_name=name))
    return made.player.player_id, bearer(made.player_token)


async def unchanged(
    tables: table_grpc.TableServiceAsyncStub,
    table: pb.Table,
    bob: str,
    as_ann: Metadata,
    owner: table_grpc.TableServiceAsyncStub | None = None,
) -> None:
    """The first table as it was made: the only table its creator sees, unlisted, invite-only, seat 1 held
    for bob, nobody seated, and another invite than its own refused."""
    mine = (await tables.ListTables(pb.ListTablesRequest(), metadata=as_ann)).tables
    assert [t.table_id for t in mine] == [table.table_id]
    assert not (await tables.ListTables(pb.ListTablesRequest())).tables
    got = (await tables.GetTable(pb.GetTableRequest(table_id=table.table_id))).table
    for _ in range(100):  # another node describes it by its owner's first published summary
        if got.seats:
            break
        await asyncio.sleep(0.1)
        got = (await tables.GetTable(pb.GetTableRequest(table_id=table.table_id))).table
    assert got.unlisted and got.invite_required and got.open_seats == 3
    assert [s.reserved_for for s in got.seats] == ["", bob, ""]
    assert got.sequence == table.sequence
    wrong = pb.JoinTableRequest(
        table_id=table.table_id, player_name="x", invite_code=secrets.token_urlsafe(16)
    )
    await expect_error(
        (owner or tables).JoinTable(wrong), "INVITE_INVALID", grpc.StatusCode.PERMISSION_DENIED
    )


def test_a_retry_with_other_private_settings_is_refused_and_changes_nothing(tmp_path: Path) -> None:
    db = str(tmp_path / "thousand.db")
    invite = secrets.token_urlsafe(16)

    async def scenario() -> tuple[str, str, str, Metadata]:
        async with served(tmp_path, db=db) as s:
            _, as_ann = await guest(s.players, "ann")
            bob, _ = await guest(s.players, "bob")
            cid, _ = await guest(s.players, "cid")
            first = private("made-once", invite, {1: bob})
            table = (await s.tables.CreateTable(first, metadata=as_ann)).table
            again = (await s.tables.CreateTable(first, metadata=as_ann)).table  # the lost reply's retry
            assert again.table_id == table.table_id

            def create(request: pb.CreateTableRequest) -> object:
                return s.tables.CreateTable(request, metadata=as_ann)

            await refused_alike(create, changed_settings("made-once", invite, bob, cid))
            assert "private settings" in await details_of(s, private("made-once", "", {1: bob}), as_ann)
            await unchanged(s.tables, table, bob, as_ann)
            assert len(s.server.registry.all()) == 1

            # A public table's request_id cannot make a private table either, nor the other way round.
            public = thousand_table(players=3)
            public.request_id = "made-public"
            listed = (await s.tables.CreateTable(public, metadata=as_ann)).table
            await refused_alike(create, [("unlisted now", private("made-public", "", {}, unlisted=True))])
            got = (await s.tables.GetTable(pb.GetTableRequest(table_id=listed.table_id))).table
            assert not got.unlisted and not got.invite_required
            assert len(s.server.registry.all()) == 2
            return table.table_id, bob, cid, as_ann

    table_id, bob, cid, as_ann = run(scenario())

    async def restarted() -> None:
        """The digest is stored with the table: a restarted server refuses the changed retries alike."""
        async with served(tmp_path, db=db) as s:

            def create(request: pb.CreateTableRequest) -> object:
                return s.tables.CreateTable(request, metadata=as_ann)

            await refused_alike(create, changed_settings("made-once", invite, bob, cid))
            same = (await s.tables.CreateTable(private("made-once", invite, {1: bob}), metadata=as_ann)).table
            assert same.table_id == table_id
            assert len(s.server.registry.all()) == 2

    run(restarted())


async def details_of(s: Served, request: pb.CreateTableRequest, metadata: Metadata) -> str:
    """The refusal's words, for a person reading them."""
    try:
        await s.tables.CreateTable(request, metadata=metadata)
    except aio.AioRpcError as error:
        return error.details() or ""
    raise AssertionError("the changed retry was accepted")


def test_a_retry_on_the_other_node_with_other_private_settings_is_refused(
    tmp_path: Path, pg_url: str
) -> None:
    """In a cluster the retry may reach another node: it finds the first request's digest in PostgreSQL."""
    invite = secrets.token_urlsafe(16)
    with cluster(tmp_path, pg_url, ["a", "b"]) as nodes:

        async def scenario() -> None:
            async with (
                aio.insecure_channel(nodes.address("a")) as on_a,
                aio.insecure_channel(nodes.address("b")) as on_b,
            ):
                tables_a, tables_b = table_grpc.TableServiceStub(on_a), table_grpc.TableServiceStub(on_b)
                _, as_ann = await guest(player_grpc.PlayerServiceStub(on_a), "ann")
                bob, _ = await guest(player_grpc.PlayerServiceStub(on_a), "bob")
                cid, _ = await guest(player_grpc.PlayerServiceStub(on_b), "cid")
                first = private("made-once-in-a-cluster", invite, {1: bob})
                table = (await tables_a.CreateTable(first, metadata=as_ann)).table
                again = (await tables_b.CreateTable(first, metadata=as_ann)).table
                assert again.table_id == table.table_id

                stubs = {"a": tables_a, "b": tables_b}
                owner = stubs[str(nodes.owners()[table.table_id])]
                for stub in (tables_b, tables_a):

                    def create(
                        request: pb.CreateTableRequest, stub: table_grpc.TableServiceAsyncStub = stub
                    ) -> object:
                        return stub.CreateTable(request, metadata=as_ann)

                    await refused_alike(create, changed_settings("made-once-in-a-cluster", invite, bob, cid))
                    await unchanged(stub, table, bob, as_ann, owner)
                assert len(nodes.rows("SELECT table_id FROM {S}.tables")) == 1

        run(scenario())
