"""clients.session.TableSession at 1000 Blagogo tables: created, listed beside Thousand tables, streamed as
Blagogo events, views and Turns (simple actions, then candidate melds), and played to the end by submitting
Blagogo actions; a composed meld the server refuses comes back with its rule."""

from __future__ import annotations

import random

import pytest

from clients.errors import ServerError
from clients.games import BLAGOGO, THOUSAND, game_of, table_rules
from clients.games.blagogo import candidate_melds, simple_actions
from clients.messages import EventMessage, Snapshot, StreamItem, Turn
from clients.session import OPEN, TableSession
from codec import blagogo as codec_blagogo
from engine import Rules
from engine import blagogo as bg
from engine.blagogo import events as be
from engine.blagogo.cards import CARDS
from tests.cli_harness import run, serving
from thousand.v1 import table_service_pb2 as pb

SHORT = bg.BlagogoRules(players=3, target=60, turnover_limit=1, opening_min_points=0)


def test_a_whole_blagogo_game_streamed_and_played_through_the_session() -> None:
    async def scenario() -> tuple[list[StreamItem], TableSession]:
        async with serving() as address, TableSession(address) as lobby:
            table = await lobby.create_table(
                SHORT, [OPEN, "random", "random"], seed=3, practice=True, first_dealer=0
            )
            assert table.game == pb.GAME_KIND_BLAGOGO and game_of(table).name == "blagogo"
            assert BLAGOGO.rules_of(table) == SHORT and table_rules(table) == SHORT
            with pytest.raises(ValueError, match="Blagogo"):
                THOUSAND.rules_of(table)
            await lobby.create_table(Rules(), [OPEN, "greedy", "greedy"])
            listed = await lobby.list_tables()
            assert {game_of(t).name for t in listed} == {"blagogo", "thousand"}
            only = await lobby.list_tables(game=pb.GAME_KIND_BLAGOGO)
            assert [t.table_id for t in only] == [table.table_id]

            async with TableSession(address) as session:
                seat = await session.join(table.table_id, name="Ann")
                rng = random.Random(1)
                items: list[StreamItem] = []
                refused = False
                async for item in session.stream(from_start=True):
                    items.append(item)
                    turn = item.turn if isinstance(item, EventMessage | Snapshot) else None
                    if turn is None or turn.seat != seat or not turn.legal_actions:
                        continue
                    assert isinstance(turn, Turn) and turn.view is not None
                    assert turn.view.viewer == seat and turn.view.hand
                    assert simple_actions(turn) + candidate_melds(turn) == turn.legal_actions
                    if not refused and turn.view.phase is bg.Phase.PLAY:
                        refused = True
                        bad = bg.LayMelds((bg.MeldSpec(turn.view.hand[:1]),))  # one card is no meld
                        with pytest.raises(ServerError) as error:
                            await session.submit(bad)
                        assert error.value.reason == "ILLEGAL_ACTION" and error.value.message
                    await session.submit(rng.choice(turn.legal_actions))
                assert session.finished and refused
                return items, session

    items, _ = run(scenario(), timeout=60)
    events = [i.event for i in items if isinstance(i, EventMessage)]
    assert isinstance(events[-1], be.GameOver)
    assert any(isinstance(e, be.GameStarted) for e in events)
    dealt = [e for e in events if isinstance(e, be.HandDealt)]
    assert dealt and all((e.cards is not None) == (e.seat == 0) for e in dealt)  # B-21: only the own hand
    assert any(isinstance(e, be.Discarded) for e in events)
    sequences = [i.sequence for i in items if isinstance(i, EventMessage)]
    assert sequences == list(range(1, len(sequences) + 1))


def test_a_blagogo_turn_decodes_actions_candidates_and_view() -> None:
    game = bg.Game(SHORT, seed=1, first_dealer=0)
    game.apply_chance()
    seat = game.to_act
    assert seat is not None
    meld = bg.LayMelds((bg.MeldSpec((CARDS[0], CARDS[2], CARDS[4])),))
    actions = (*game.legal_actions(), meld)
    message = pb.Turn(
        seat=seat,
        legal_actions=[pb.Action(blagogo=codec_blagogo.action_to_proto(a)) for a in actions],
        view=pb.View(blagogo=codec_blagogo.view_to_proto(bg.view(game, seat))),
    )
    turn = BLAGOGO.decode_turn(message)
    assert turn.seat == seat and turn.legal_actions == actions
    assert candidate_melds(turn) == (meld,) and simple_actions(turn) == tuple(game.legal_actions())
    assert turn.view == bg.view(game, seat)
