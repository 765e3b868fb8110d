"""The attacks of ``bench/abuse.py`` by name: each one the issue measured, from outside, with the contract
alone.

Each attack is an async function of a :class:`~bench.attacks_shared.Run` (which tree, how big) returning its
figures; it starts its own server(s) and stops them. Flags the server before the limits does not know are
passed to the working tree's server only (``after_flags``). They live by what they load: streams
(``bench/attacks_streams.py``), tables (``bench/attacks_tables.py``) and single requests
(``bench/attacks_requests.py``); what they share is in ``bench/attacks_shared.py``.
"""

from __future__ import annotations

from collections.abc import Callable, Coroutine
from typing import Any, Final

from bench.attacks_requests import freeze, small
from bench.attacks_shared import Figures, Run
from bench.attacks_streams import resume, unread
from bench.attacks_tables import bots, never, quota

ATTACKS: Final[dict[str, Callable[[Run], Coroutine[Any, Any, Figures]]]] = {
    "unread": unread,
    "resume": resume,
    "bots": bots,
    "never": never,
    "quota": quota,
    "freeze": freeze,
    "small": small,
}
