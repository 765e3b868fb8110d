"""Clients of the Thousand server: bots (:mod:`clients.bots`), the client library (:mod:`clients.session`,
:mod:`clients.tracker`) and the terminal client (:mod:`clients.cli`, the `thousand` command)."""
