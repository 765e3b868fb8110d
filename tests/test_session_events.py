"""The client library tolerates every table event: clock events in words, and kinds it does not know yet."""

from __future__ import annotations

from clients.cli.follow import notice_words
from clients.games import BLAGOGO, THOUSAND
from clients.i18n import LANGUAGES, use
from clients.messages import TableNotice
from thousand.v1 import table_service_pb2 as pb


def test_clock_events_become_notices() -> None:
    timed_out = pb.Event(turn_timed_out=pb.TurnTimedOut(seat=1))
    taken = pb.Event(seat_taken_over=pb.SeatTakenOver(seat=2, forfeited=True))
    once = pb.Event(seat_taken_over=pb.SeatTakenOver(seat=1, one_turn=True))
    back = pb.Event(seat_reclaimed=pb.SeatReclaimed(seat=0))
    assert THOUSAND.decode_event(timed_out) == TableNotice(1, "seat 1 ran out of time", "turn_timed_out")
    assert THOUSAND.decode_event(taken) == TableNotice(
        2, "seat 2 forfeits on time: the server's bot plays it to the end", "seat_taken_over"
    )
    assert THOUSAND.decode_event(once) == TableNotice(
        1, "seat 1 is played by the server's bot for this one move", "seat_taken_over"
    )
    assert BLAGOGO.decode_event(back) == TableNotice(
        0, "seat 0 is played by its player again", "seat_reclaimed"
    )


def test_an_empty_or_unknown_event_is_a_notice_not_a_crash() -> None:
    notice = THOUSAND.decode_event(pb.Event())
    assert isinstance(notice, TableNotice) and "does not know" in notice.text


def test_an_operators_handover_is_told_apart_from_a_forfeit_in_every_language() -> None:
    handed = pb.Event(
        seat_taken_over=pb.SeatTakenOver(seat=2, forfeited=True, reason=pb.TAKEOVER_REASON_OPERATOR_HANDOVER)
    )
    notice = THOUSAND.decode_event(handed)
    assert isinstance(notice, TableNotice) and notice.detail == "handed_over"
    assert notice.text == "seat 2 was handed to the server's bot by an operator: the bot plays it to the end"
    timed = THOUSAND.decode_event(pb.Event(seat_taken_over=pb.SeatTakenOver(seat=2, forfeited=True)))
    assert isinstance(timed, TableNotice) and timed.detail == "forfeited"
    for lang in LANGUAGES:
        use(lang)
        try:
            words = notice_words(notice, "Ann")
            assert "Ann" in words and words != notice_words(timed, "Ann"), lang
        finally:
            use("en")
