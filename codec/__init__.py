"""The mapping between the engine's values and the protobuf messages of ``thousand.v1``, one module a game.

:mod:`codec.thousand` maps Thousand (:mod:`engine`), :mod:`codec.blagogo` maps 1000 Blagogo
(:mod:`engine.blagogo`), and :mod:`codec.common` holds what both share (enum tables, specific errors). The
server encodes with it what it sends and decodes what clients send; the clients (:mod:`clients`) do the
opposite with the very same functions, so each field is mapped once for both sides.

That is why this package sits beside them, not inside either: it imports only the engine and the generated
``thousand`` package, never :mod:`server` or :mod:`clients`, and a client can be shipped without the server.
"""
