"""What a QuickPlay request asks for, checked: the game, its rules (a preset or exact rules), the wait, the
seat token that names the caller's place. Every refusal is a :class:`ServiceError` with its field."""

from __future__ import annotations

import hashlib
import json
import secrets
from dataclasses import dataclass
from typing import Final

from engine import RulesError
from engine.seeds import valid_client_seed
from server.errors import ErrorReason, ServiceError
from server.games import AnyAdapter, adapter_for_kind
from server.service import MAX_NAME_LENGTH, MIN_TOKEN_SYMBOLS, SEAT_TOKEN_FORMAT
from server.time_control import TimeControl, TimeoutPolicy
from thousand.v1 import matchmaking_pb2 as mm
from thousand.v1 import table_service_pb2 as pb

DEFAULT_WAIT: Final = 60.0
MAX_WAIT: Final = 600.0
MIN_WAIT: Final = 1.0
QUICKPLAY_CLOCK: Final = TimeControl(per_move=60.0, bank=180.0, policy=TimeoutPolicy.BOT_PLAYS_TURN)
"""Every quick-play table's clock: nobody waits for ever on a stranger who left (the server's bot makes the
move that ran out; the seat stays its player's)."""
PRESETS: Final[dict[str, dict[str, dict[str, object]]]] = {
    "thousand": {"standard": {}, "dark": {"dark": True}, "golden": {"golden_deals": True}},
    "blagogo": {"standard": {}},
}
"""Each game's named rules presets: the fields they set over the specification's defaults."""


@dataclass(frozen=True, slots=True)
class Ask:
    """A checked QuickPlay request."""

    adapter: AnyAdapter
    players: int
    rules: bytes
    """The game's rules message, serialized (every default explicit): equal rules, equal bytes."""
    rated: bool
    bots_ok: bool
    max_wait: float
    seat_token: str
    player_name: str
    client_seed: str

    @property
    def ticket_id(self) -> str:
        return hashlib.sha256(self.seat_token.encode()).hexdigest()

    @property
    def digest(self) -> str:
        """What was asked, hashed (not the token, the name or the seed): a reconnect must ask the same."""
        asked = [self.adapter.name, self.players, self.rules.hex(), self.rated, self.bots_ok, self.max_wait]
        return hashlib.sha256(json.dumps(asked).encode()).hexdigest()[:32]


def seconds(duration: object, field: str, default: float) -> float:
    """A Duration field in seconds, MIN_WAIT to MAX_WAIT; ``default`` when unset."""
    assert hasattr(duration, "ToNanoseconds")
    value = duration.ToNanoseconds() / 1e9 or default
    if not MIN_WAIT <= value <= MAX_WAIT:
        raise ServiceError(
            ErrorReason.INVALID_ARGUMENT,
            f"{field} must be {MIN_WAIT:.0f} to {MAX_WAIT:.0f} seconds",
            field=field,
        )
    return value


def seat_token(chosen: str) -> str:
    """The client's seat token checked (as JoinTable checks it), or one drawn for it."""
    if not chosen:
        return secrets.token_urlsafe(32)
    if not SEAT_TOKEN_FORMAT.fullmatch(chosen) or len(set(chosen)) < MIN_TOKEN_SYMBOLS:
        raise ServiceError(
            ErrorReason.INVALID_ARGUMENT,
            "seat_token must be 32 to 128 random characters of A-Z a-z 0-9 - _ (or empty: the server draws"
            " one)",
            field="seat_token",
        )
    return chosen


def client_seed(seed: str) -> str:
    if seed and not valid_client_seed(seed):
        raise ServiceError(
            ErrorReason.INVALID_ARGUMENT,
            "client_seed must be 16 to 128 characters of A-Z a-z 0-9 - _ (or empty: none)",
            field="client_seed",
        )
    return seed


def player_name(name: str) -> str:
    if len(name) > MAX_NAME_LENGTH:
        raise ServiceError(
            ErrorReason.INVALID_ARGUMENT,
            f"player_name is longer than {MAX_NAME_LENGTH} characters",
            field="player_name",
        )
    return name


def ask_of(request: mm.QuickPlayRequest, display_name: str, signed_in: bool) -> Ask:
    """The request checked; ``display_name``: the caller's when signed in (the default name)."""
    adapter = adapter_for_kind(request.game)
    if adapter is None:
        raise ServiceError(ErrorReason.INVALID_ARGUMENT, "game must be a GameKind", field="game")
    if request.rated and not signed_in:
        raise ServiceError(
            ErrorReason.INVALID_ARGUMENT,
            "a rated game needs a signed-in player (PlayerService: authorization metadata)",
            field="rated",
        )
    rules_message = _rules_message(adapter, request)
    try:
        rules = adapter.rules_from_request(rules_message, request.players)
    except RulesError as error:
        raise ServiceError(ErrorReason.INVALID_RULES, str(error), field=error.field) from None
    players = adapter.players(rules)
    if players != request.players:
        raise ServiceError(
            ErrorReason.INVALID_ARGUMENT,
            f"players is {request.players} but the rules are for {players}",
            field="players",
        )
    return Ask(
        adapter=adapter,
        players=players,
        rules=adapter.rules_to_bytes(rules),
        rated=request.rated,
        bots_ok=request.bots_may_fill,
        max_wait=seconds(request.max_wait, "max_wait", DEFAULT_WAIT),
        seat_token=seat_token(request.seat_token),
        player_name=player_name(request.player_name) or display_name,
        client_seed=client_seed(request.client_seed),
    )


def _rules_message(adapter: AnyAdapter, request: mm.QuickPlayRequest) -> pb.Rules:
    if request.players <= 0:
        raise ServiceError(ErrorReason.INVALID_ARGUMENT, "players must be set", field="players")
    if request.HasField("rules"):
        if request.preset:
            raise ServiceError(
                ErrorReason.INVALID_ARGUMENT, "give a preset or exact rules, not both", field="preset"
            )
        return request.rules
    presets = PRESETS[adapter.name]
    chosen = presets.get(request.preset or "standard")
    if chosen is None:
        raise ServiceError(
            ErrorReason.QUICKPLAY_UNKNOWN_PRESET,
            f"{adapter.title} has no rules preset {request.preset[:64]!r} (known: {', '.join(presets)})",
            field="preset",
            known=",".join(presets),
        )
    message = pb.Rules()
    getattr(message, adapter.name).MergeFrom(type(getattr(message, adapter.name))(**chosen))
    return message
