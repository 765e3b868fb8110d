"""Clients of the Thousand server: the client library, the bots (:mod:`clients.bots`) and the terminal client
(:mod:`clients.cli`, the `thousand` command).

The library is one layer for every game, reading top-down: :mod:`clients.session` (:class:`TableSession`, the
resumed stream and the actions) over :mod:`clients.table_calls` (the calls of one reply),
:mod:`clients.streams` (the Play and StreamEvents calls), :mod:`clients.messages` (what a stream brings, typed
by the game), :mod:`clients.errors` and :mod:`clients.backoff`; :mod:`clients.games` holds one entry per game
(its decoders, through :mod:`codec`), and :mod:`clients.tracker` a view tracker per game. Nothing here imports
the server."""
