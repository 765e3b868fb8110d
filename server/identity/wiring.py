"""Identity as a server runs it: the players' store beside the tables, the credentials' checks, the private
tables' checks the TableService makes, and the PlayerService and AdminService handlers, from the settings."""

from __future__ import annotations

import grpc

from server.identity import admin_service, player_service
from server.identity.access import TableAccess
from server.identity.credentials import Identities, OperatorPolicy
from server.identity.flags import IdentitySettings
from server.identity.oidc import OidcVerifier
from server.identity.stores import open_player_store
from server.identity.values import secret_hash
from server.ratelimit import RateLimiter
from server.registry import Registry

SERVICE_NAMES = (player_service.SERVICE_NAME, admin_service.SERVICE_NAME)


class Identity:
    """Everything of players a server holds; ``close`` once the server stopped."""

    def __init__(
        self, settings: IdentitySettings, db: str, registry: Registry, limiter: RateLimiter | None = None
    ) -> None:
        token = settings.admin_token()
        self.store = open_player_store(db)
        self.identities = Identities(
            self.store,
            OidcVerifier(settings.issuers),
            OperatorPolicy(
                token_hash=secret_hash(token) if token is not None else None,
                claim=settings.admin_claim,
                role=settings.admin_role,
            ),
        )
        self.access = TableAccess(self.identities)
        self.players = player_service.PlayerService(
            self.identities,
            registry.store,
            guests=settings.guests,
            guest_limiter=RateLimiter(settings.guests_per_hour / 3600, settings.guest_burst),
            limiter=limiter,
            registry=registry,
        )
        self.admin = admin_service.AdminService(self.identities, registry)

    def handlers(self) -> tuple[grpc.GenericRpcHandler, ...]:
        return (player_service.generic_handler(self.players), admin_service.generic_handler(self.admin))

    def close(self) -> None:
        self.store.close()
