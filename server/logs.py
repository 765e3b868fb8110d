"""Structured logs: JSON lines in production, a readable console format on a terminal.

Every line, the server's own (structlog) and the standard library's (grpc's included), goes through one
stdlib handler whose :class:`structlog.stdlib.ProcessorFormatter` renders it, so an operator sees one format.
Request context (request id, method, table id, seat) lives in contextvars: whatever is logged while a call is
handled carries it.

What is never logged: seat tokens, cards, hands, views or requests. Code that logs passes explicit,
public fields only; tracebacks are rendered without local variables.
"""

from __future__ import annotations

import logging
import sys
from collections.abc import Mapping, MutableMapping
from typing import Any, Final, Literal, TextIO

import structlog
from structlog.typing import Processor

LogFormat = Literal["json", "console", "auto"]
LOG_FORMATS: Final[tuple[str, ...]] = ("json", "console", "auto")
LOG_LEVELS: Final[tuple[str, ...]] = ("debug", "info", "warning", "error")

_HANDLER_MARK: Final = "_thousand_handler"

_SHARED: Final[list[Processor]] = [
    structlog.contextvars.merge_contextvars,
    structlog.stdlib.add_log_level,
    structlog.stdlib.add_logger_name,
    structlog.processors.TimeStamper(fmt="iso", utc=True),
]
"""Applied to every line: structlog's (at the call) and the standard library's (in the formatter)."""

_CHAIN: Final[list[Processor]] = [
    structlog.stdlib.filter_by_level,
    *_SHARED,
    structlog.stdlib.PositionalArgumentsFormatter(),
    structlog.processors.StackInfoRenderer(),
    structlog.stdlib.ProcessorFormatter.wrap_for_formatter,
]


def get_logger(name: str) -> structlog.stdlib.BoundLogger:
    """A structlog logger that always routes through the standard library logger ``name``.

    It does not depend on :func:`structlog.configure`, so the server's lines take the one format set by
    :func:`configure_logging` (or whatever handlers a test harness installs) and nothing is printed on its
    own.
    """
    logger: structlog.stdlib.BoundLogger = structlog.wrap_logger(
        logging.getLogger(name), processors=_CHAIN, wrapper_class=structlog.stdlib.BoundLogger
    )
    return logger


def resolve_format(log_format: str, stream: TextIO) -> Literal["json", "console"]:
    """``auto`` is the console format on a terminal and JSON lines otherwise."""
    if log_format == "json":
        return "json"
    if log_format == "console":
        return "console"
    if log_format != "auto":
        raise ValueError(f"unknown log format {log_format!r}; use one of {', '.join(LOG_FORMATS)}")
    isatty = getattr(stream, "isatty", None)
    return "console" if callable(isatty) and isatty() else "json"


_FIRST: Final = ("timestamp", "level", "logger", "msg")


def _json_shape(_: Any, __: str, event_dict: MutableMapping[str, Any]) -> Mapping[str, Any]:
    """The message as ``msg`` (``event`` would read as a game event), and the common fields first."""
    if "event" in event_dict:
        event_dict["msg"] = event_dict.pop("event")
    first = {key: event_dict.pop(key) for key in _FIRST if key in event_dict}
    return {**first, **event_dict}


def make_formatter(fmt: Literal["json", "console"], *, colors: bool = False) -> logging.Formatter:
    renderer: Processor
    final: list[Processor]
    if fmt == "json":
        renderer = structlog.processors.JSONRenderer(sort_keys=False)
        final = [structlog.processors.format_exc_info, _json_shape, renderer]
    else:
        renderer = structlog.dev.ConsoleRenderer(
            colors=colors, exception_formatter=structlog.dev.plain_traceback, sort_keys=False
        )
        final = [renderer]
    return structlog.stdlib.ProcessorFormatter(
        foreign_pre_chain=_SHARED,
        processors=[structlog.stdlib.ProcessorFormatter.remove_processors_meta, *final],
    )


def configure_logging(
    log_format: str = "auto", level: str = "info", stream: TextIO | None = None
) -> logging.Handler:
    """Send every log line of the process to ``stream`` (stderr) in one format; returns the handler.

    Calling it again replaces the handler it installed before (and only that one).
    """
    stream = sys.stderr if stream is None else stream
    fmt = resolve_format(log_format, stream)
    isatty = getattr(stream, "isatty", None)
    handler = logging.StreamHandler(stream)
    handler.setFormatter(make_formatter(fmt, colors=fmt == "console" and callable(isatty) and isatty()))
    setattr(handler, _HANDLER_MARK, True)
    root = logging.getLogger()
    for old in [h for h in root.handlers if getattr(h, _HANDLER_MARK, False)]:
        root.removeHandler(old)
    root.addHandler(handler)
    root.setLevel(level.upper())
    # structlog.get_logger() users elsewhere in the process take the same route.
    structlog.configure(
        processors=_CHAIN,
        logger_factory=structlog.stdlib.LoggerFactory(),
        wrapper_class=structlog.stdlib.BoundLogger,
        cache_logger_on_first_use=False,
    )
    return handler


def unconfigure_logging(handler: logging.Handler) -> None:
    """Remove a handler installed by :func:`configure_logging` (tests)."""
    logging.getLogger().removeHandler(handler)
    structlog.reset_defaults()


# ---------------------------------------------------------------- request context


def bind_request(**fields: object) -> None:
    """Add fields to the current request's context (and so to every line logged while handling it)."""
    structlog.contextvars.bind_contextvars(**fields)


def clear_request() -> None:
    structlog.contextvars.clear_contextvars()
