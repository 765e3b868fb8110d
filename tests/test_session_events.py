"""The client library tolerates every table event: clock events in words, and kinds it does not know yet."""

from __future__ import annotations

from clients.games import BLAGOGO, THOUSAND
from clients.messages import TableNotice
from thousand.v1 import table_service_pb2 as pb


def test_clock_events_become_notices() -> None:
    timed_out = pb.Event(turn_timed_out=pb.TurnTimedOut(seat=1))
    taken = pb.Event(seat_taken_over=pb.SeatTakenOver(seat=2, forfeited=True))
    back = pb.Event(seat_reclaimed=pb.SeatReclaimed(seat=0))
    assert THOUSAND.decode_event(timed_out) == TableNotice(1, "seat 1 ran out of time")
    assert THOUSAND.decode_event(taken) == TableNotice(2, "seat 2 forfeited: a bot plays it to the end")
    assert BLAGOGO.decode_event(back) == TableNotice(0, "seat 0 is played by its player again")


def test_an_empty_or_unknown_event_is_a_notice_not_a_crash() -> None:
    notice = THOUSAND.decode_event(pb.Event())
    assert isinstance(notice, TableNotice) and "does not know" in notice.text
