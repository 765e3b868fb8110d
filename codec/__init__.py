"""The mapping between the engine's values and the protobuf messages of ``thousand.v1``, one package a game.

:mod:`codec.thousand` maps Thousand (:mod:`engine`), :mod:`codec.blagogo` maps 1000 Blagogo
(:mod:`engine.blagogo`), each a module per engine module (cards, rules, actions, events, views). What both
write the same way is here once: :mod:`codec.common` (enum tables, optional fields, specific errors) and
:mod:`codec.card_messages` (each card's message built once, the lists of them). The server encodes with it
what it sends and decodes what clients send; the clients (:mod:`clients`) do the opposite with the very same
functions, so each field is mapped once for both sides. A third game is one more package beside these two.

That is why this package sits beside them, not inside either: it imports only the engine and the generated
``thousand`` package, never :mod:`server` or :mod:`clients`, and a client can be shipped without the server.
"""
