"""clients.routing: where a session's calls go in a cluster, decided from each failed call alone."""

from __future__ import annotations

import grpc
import pytest

from clients.errors import ServerError
from clients.routing import MAX_REDIRECTS, Route, addresses


def elsewhere(endpoint: str) -> ServerError:
    return ServerError(
        grpc.StatusCode.FAILED_PRECONDITION, "owned by another", "TABLE_ELSEWHERE", {"endpoint": endpoint}
    )


def test_a_server_spec_names_one_node_or_several() -> None:
    assert addresses("a:1") == ["a:1"]
    assert addresses(" a:1, b:2 ,") == ["a:1", "b:2"]
    with pytest.raises(ValueError, match="no server address"):
        addresses(" , ")


def test_table_elsewhere_moves_to_the_owner_at_once_and_learns_its_address() -> None:
    route = Route("a:1")
    assert route.follow(elsewhere("c:3")) == 0.0
    assert route.address == "c:3" and route.known == ["a:1", "c:3"]


def test_redirects_going_round_in_circles_stop() -> None:
    route = Route("a:1,b:2")
    for i in range(MAX_REDIRECTS):
        assert route.follow(elsewhere("b:2" if i % 2 == 0 else "a:1")) == 0.0
    assert route.follow(elsewhere("b:2")) is None  # the nodes disagree: the caller fails
    route.answered()
    assert route.follow(elsewhere("b:2")) == 0.0


def test_table_moving_waits_its_retry_delay_on_the_same_node() -> None:
    route = Route("a:1,b:2")
    moving = ServerError(grpc.StatusCode.UNAVAILABLE, "moving", "TABLE_MOVING", retry_delay=0.4)
    assert route.follow(moving) == 0.4 and route.address == "a:1"
    without = ServerError(grpc.StatusCode.UNAVAILABLE, "moving", "TABLE_MOVING")
    assert route.follow(without) == 0.25


def test_an_unreachable_node_is_left_for_the_next_known_one_with_the_caller_s_backoff() -> None:
    route = Route("a:1,b:2")
    unreachable = ServerError(grpc.StatusCode.UNAVAILABLE, "connection refused")
    assert route.follow(unreachable) is None  # not a redirect: retried with backoff
    assert route.address == "b:2"
    assert route.follow(unreachable) is None and route.address == "a:1"
    alone = Route("a:1")
    assert alone.follow(unreachable) is None and alone.address == "a:1"


def test_other_refusals_are_not_about_where_the_table_is() -> None:
    route = Route("a:1,b:2")
    illegal = ServerError(grpc.StatusCode.FAILED_PRECONDITION, "no", "ILLEGAL_ACTION", {"rule": "X"})
    assert route.follow(illegal) is None and route.address == "a:1"
