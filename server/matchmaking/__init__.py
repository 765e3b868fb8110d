"""Quick play and rematches (MatchmakingService): the cluster's one queue, kept in the database beside the
tables (:mod:`server.matchmaking.queue_store`), grouped by a pure matcher
(:mod:`server.matchmaking.matching`), placed and streamed by each node's
:class:`~server.matchmaking.service.Matchmaker`."""
