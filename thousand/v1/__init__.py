"""``thousand.v1``: messages, enums and service stubs generated from ``proto/thousand/v1``."""
