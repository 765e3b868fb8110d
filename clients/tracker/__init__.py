"""Follow a table from its events: the viewer's view kept current between the views the server sends.

The server sends a full view in two places only: the stream's snapshot, and the Turn of the seat that must act
(on that seat's own stream). A client that shows the table all the time (a spectator, or a player while the
others think) applies each event it receives to the last view it had. Every game has a tracker of its own
(:mod:`clients.tracker.thousand`, :mod:`clients.tracker.blagogo`), found through the game's entry in
:mod:`clients.games`; each is a :class:`Tracker`, so what follows a table needs not know the game.
"""

from __future__ import annotations

from typing import Protocol, TypeVar

V = TypeVar("V")
A_contra = TypeVar("A_contra", contravariant=True)
E_contra = TypeVar("E_contra", contravariant=True)


class Tracker(Protocol[V, A_contra, E_contra]):
    """The current view of one viewer (a seat, or None for a spectator) of a game with view ``V``, actions
    ``A_contra`` and events ``E_contra``: fed the server's views and every event after them, in order."""

    @property
    def view(self) -> V | None:
        """None before the game's first event (or a snapshot) when the rules were not known."""
        ...

    def reset(self, view: V) -> None:
        """Start again from a view the server sent (a snapshot, or a Turn's view)."""
        ...

    def apply(self, event: E_contra) -> None:
        """Apply one event of the game (as the viewer received it) to the view."""
        ...

    def set_turn(self, seat: int | None, legal_actions: tuple[A_contra, ...]) -> None:
        """Whose turn it is now (a Turn said so), and the viewer's legal actions if it is theirs."""
        ...
