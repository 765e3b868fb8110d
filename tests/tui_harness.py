"""Shared by the tests of the full-screen UIs (tests/test_cli_tui*.py, tests/test_cli_blagogo_tui.py): what a
panel shows as plain text, the event log, waiting for the app, and that the layout fits the terminal."""

from __future__ import annotations

import asyncio
import io
import time
from collections.abc import Callable

from rich.console import Console
from textual.app import App
from textual.dom import DOMNode
from textual.pilot import Pilot
from textual.widgets import RichLog, Static

from clients.cli.screens import SummaryScreen
from clients.cli.table_app import TableApp


def static_text(app: DOMNode, selector: str, width: int = 200) -> str:
    """What a Static of an app (or a screen) shows, as plain text."""
    console = Console(width=width, file=io.StringIO(), record=True, color_system=None)
    console.print(app.query_one(selector, Static).content)
    return console.export_text()


def log_text(app: TableApp) -> str:
    """The event log's lines as written (the log itself wraps them to its width)."""
    assert app.query_one("#log", RichLog).lines or not app.written
    return "\n".join(app.written)


async def read_summary(app: App[int], pilot: Pilot[int]) -> str | None:
    """A deal's summary waiting over the table for a key (:class:`SummaryScreen`), read and dismissed as a
    person does (any key); None when none is up."""
    screen = app.screen
    if not isinstance(screen, SummaryScreen):
        return None
    text = "\n".join([screen.title_text, *screen.lines])
    await pilot.press("space")
    await wait_for(lambda: app.screen is not screen, what="the summary goes at a key")
    return text


async def quit_app(app: App[int], pilot: Pilot[int]) -> None:
    """``q``, as a person presses it: a deal's summary up at that moment takes the key first."""
    while app.return_code is None:
        await read_summary(app, pilot)
        await pilot.press("q")
        await pilot.pause()


async def wait_for(condition: Callable[[], bool], timeout: float = 20, what: str = "") -> None:
    """Let the app work until ``condition()`` holds."""
    deadline = time.monotonic() + timeout
    while not condition():
        assert time.monotonic() < deadline, f"timed out{': ' + what if what else ''}"
        await asyncio.sleep(0.005)


def assert_layout_fits(app: App[int]) -> None:
    """Every panel of the table is on the screen, none squeezed away, none pushed below the footer; the
    table's own lines are not cut (a Static of auto height shows all of its content)."""
    width, height = app.size
    for widget in app.screen.query("#main Static, #main OptionList, #main RichLog"):
        region = widget.region
        name = widget.id or type(widget).__name__
        assert region.width > 0 and region.height > 0, f"{name} is not shown at {width}x{height}"
        assert region.right <= width and region.bottom <= height - 1, (name, region, (width, height))
        if name != "status":
            assert region.height >= 3, f"{name} is squeezed to {region.height} lines at {width}x{height}"
    status = app.screen.query_one("#status")
    assert status.region.bottom <= height - 1, f"the status line is below the footer: {status.region}"
