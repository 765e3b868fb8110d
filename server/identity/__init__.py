"""Who plays: players (guests and OpenID Connect accounts), private tables, bans and the audit log.

Kept apart from the tables: the table core knows seats and their tokens; this package knows players, and the
service layer (``server.service``'s handlers, ``PlayerService``, ``AdminService``) joins the two. Its store
lives beside the tables' (the same SQLite file or PostgreSQL database) with tables and migrations of its own.
"""
