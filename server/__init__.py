"""The gRPC game server: the TableService over the Thousand engine."""
