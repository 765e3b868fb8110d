"""Generated code of the protobuf contract in ``proto/`` (``make proto``); do not edit."""
