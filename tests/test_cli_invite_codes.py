"""Invite codes on the command line (docs/protocol.md, "Private tables").

A base64url invite code begins with "-" one time in 64. The clean run of 2026-12-07 failed
``test_cli_players``'s private table on exactly that: the CLI drew "-…", printed
``thousand join TABLE --invite -…`` and argparse answered "argument --invite: expected one argument". The
terminal client no longer draws such a code, and both command lines take one (the web client draws them).
"""

from __future__ import annotations

from clients.bots.cli import MAX_DEALS
from clients.bots.options import build_parser as bot_parser
from clients.cli.options import build_parser
from clients.table_calls import invite_attached, new_invite_code

DASHED = "-Zk3xQ9_bT0wLm2RvY7aPc"


def test_the_terminal_client_never_draws_a_code_that_begins_with_a_dash() -> None:
    # Unfixed, 3,000 draws hold one with a chance of 1 - (63/64) ** 3000, above 1 - 1e-20.
    codes = [new_invite_code() for _ in range(3000)]
    assert not [c for c in codes if c.startswith("-")]
    assert all(len(c) == 32 for c in codes) and len(set(codes)) == len(codes)


def test_thousand_join_takes_a_code_that_begins_with_a_dash() -> None:
    args = build_parser().parse_args(invite_attached(["join", "t1", "--invite", DASHED, "--plain"]))
    assert args.invite == DASHED and args.table == "t1" and args.plain


def test_thousand_bot_play_takes_a_code_that_begins_with_a_dash() -> None:
    parser = bot_parser("random", "random", MAX_DEALS)
    args = parser.parse_args(
        invite_attached(["play", "--strategy", "random", "--table", "t1", "--invite", DASHED])
    )
    assert args.invite == DASHED


def test_only_the_invite_option_is_attached_and_nothing_after_a_double_dash() -> None:
    argv = ["join", "--name", "-x", "t1", "--", "--invite", "-y"]
    assert invite_attached(argv) == argv
    dangling = ["join", "t1", "--invite"]  # left as it is: argparse says what is missing
    assert invite_attached(dangling) == dangling
