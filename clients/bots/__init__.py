"""The bot authors' side of the client: the SDK (:mod:`clients.bots.sdk`) that seats a strategy at a live
table, the ``thousand-bot`` command (:mod:`clients.bots.cli`) and an example strategy to start from.

The strategies themselves live in the top-level package :mod:`bots`, which the server imports too.
"""
