"""Errors the engine raises, each carrying a stable machine-readable reason.

Like python-chess, a malformed request (:class:`InvalidActionError`: not an action of this game, a value out
of any possible range) is kept apart from a well-formed action the rules forbid right now
(:class:`IllegalActionError`). The server maps both to gRPC statuses; the reason strings are part of the
public contract and never change meaning.
"""

from __future__ import annotations

from enum import Enum


class Reason(Enum):
    """Why an action was rejected. Values are stable identifiers shown to clients."""

    GAME_OVER = "GAME_OVER"
    NOT_YOUR_TURN = "NOT_YOUR_TURN"
    CHANCE_NODE = "CHANCE_NODE"
    WRONG_PHASE = "WRONG_PHASE"
    INVALID_SEAT = "INVALID_SEAT"
    BID_TOO_LOW = "BID_TOO_LOW"
    BID_ABOVE_CAP = "BID_ABOVE_CAP"
    BID_NOT_MULTIPLE_OF_STEP = "BID_NOT_MULTIPLE_OF_STEP"
    BID_NEEDS_MARRIAGE = "BID_NEEDS_MARRIAGE"
    MUST_BID = "MUST_BID"
    REDEAL_NOT_ALLOWED = "REDEAL_NOT_ALLOWED"
    NO_SUCH_TALON = "NO_SUCH_TALON"
    NO_SUCH_CARD = "NO_SUCH_CARD"
    ALREADY_GIVEN = "ALREADY_GIVEN"
    NOT_AN_OPPONENT = "NOT_AN_OPPONENT"
    CONTRACT_TOO_LOW = "CONTRACT_TOO_LOW"
    CONTRACT_ABOVE_CAP = "CONTRACT_ABOVE_CAP"
    CONTRACT_NOT_MULTIPLE_OF_5 = "CONTRACT_NOT_MULTIPLE_OF_5"
    MUST_FOLLOW_SUIT = "MUST_FOLLOW_SUIT"
    MUST_TRUMP = "MUST_TRUMP"
    MUST_BEAT = "MUST_BEAT"
    MARRIAGE_NOT_ON_LEAD = "MARRIAGE_NOT_ON_LEAD"
    MARRIAGE_NOT_HELD = "MARRIAGE_NOT_HELD"
    MARRIAGE_NOT_ALLOWED_ON_FIRST_TRICK = "MARRIAGE_NOT_ALLOWED_ON_FIRST_TRICK"
    MALFORMED = "MALFORMED"


class ThousandError(Exception):
    """Base class of every error the engine raises on purpose."""


class RulesError(ThousandError, ValueError):
    """A rules object with an invalid setting or combination of settings.

    ``field`` is the one setting to change (what a form highlights); a combination names the others it clashes
    with in ``fields`` too, and the message names them all, so nobody has to guess which pair is meant.
    """

    def __init__(self, field: str, message: str, *others: str) -> None:
        super().__init__(f"{' and '.join((field, *others))}: {message}")
        self.field = field
        self.fields: tuple[str, ...] = (field, *others)


class ActionError(ThousandError):
    """An action was rejected; the state is unchanged."""

    def __init__(self, reason: Reason, message: str) -> None:
        super().__init__(message)
        self.reason = reason
        self.message = message


class InvalidActionError(ActionError, ValueError):
    """The action is malformed: not an action of this game, or a value outside every possible range."""

    def __init__(self, message: str) -> None:
        super().__init__(Reason.MALFORMED, message)


class IllegalActionError(ActionError):
    """A well-formed action the rules do not allow at this point, with the specific reason."""
