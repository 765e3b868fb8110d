"""Identity's flags (``--oidc-issuer``, ``--oidc-audience``, the operator credential, guests) and the
settings they make: what ``thousand-server`` adds to its command line (docs/operations.md, "Identity")."""

from __future__ import annotations

import argparse
import ipaddress
from dataclasses import dataclass
from pathlib import Path
from typing import Final
from urllib.parse import urlsplit

from server.identity.oidc import Issuer

GUESTS_PER_HOUR: Final = 30.0
GUEST_BURST: Final = 5.0
DEFAULT_ADMIN_CLAIM: Final = "roles"


@dataclass(frozen=True, slots=True)
class IdentitySettings:
    issuers: tuple[Issuer, ...] = ()
    """The OpenID Connect issuers trusted, each with the audience its tokens must name."""
    admin_token_file: str = ""
    """A file holding the operator token (AdminService with ``authorization: Bearer <it>``); "": none."""
    admin_claim: str = DEFAULT_ADMIN_CLAIM
    """The claim of an OIDC token that lists its roles (a dotted path: ``realm_access.roles``)."""
    admin_role: str = ""
    """The role in ``admin_claim`` that makes an OIDC token an operator's; "": no OIDC operators."""
    guests: bool = True
    """Whether PlayerService.CreateGuest creates players."""
    guests_per_hour: float = GUESTS_PER_HOUR
    """Guests one client (its address) may create an hour, sustained; 0: no limit."""
    guest_burst: float = GUEST_BURST
    """Guests one client may create at once before ``guests_per_hour`` applies."""

    def admin_token(self) -> str | None:
        """The operator token the file holds (its first line); None without a file.

        :raises SystemExit: the file cannot be read or holds too short a token.
        """
        if not self.admin_token_file:
            return None
        try:
            token = Path(self.admin_token_file).read_text(encoding="utf-8").strip()
        except OSError as error:
            raise SystemExit(f"thousand-server: cannot read --admin-token-file: {error}") from None
        if len(token) < 32:
            raise SystemExit("thousand-server: the --admin-token-file token must be at least 32 characters")
        return token


def add_identity_arguments(parser: argparse.ArgumentParser, env: dict[str, str]) -> None:
    group = parser.add_argument_group("identity and moderation: docs/operations.md")
    group.add_argument(
        "--oidc-issuer",
        action="append",
        default=None,
        help="an OpenID Connect issuer URL whose tokens sign players in (repeat for several; https, or http"
        " on a loopback address); THOUSAND_OIDC_ISSUER: a comma-separated list",
    )
    group.add_argument(
        "--oidc-audience",
        action="append",
        default=None,
        help="the audience (aud) tokens must name: one for every issuer, or one per --oidc-issuer in order"
        " (THOUSAND_OIDC_AUDIENCE: a comma-separated list)",
    )
    group.add_argument(
        "--admin-token-file",
        default=env.get("THOUSAND_ADMIN_TOKEN_FILE", ""),
        help="a file holding the operator token that AdminService accepts (at least 32 characters)",
    )
    group.add_argument(
        "--oidc-admin-claim",
        default=env.get("THOUSAND_OIDC_ADMIN_CLAIM", DEFAULT_ADMIN_CLAIM),
        help="the token claim listing its roles (a dotted path, e.g. realm_access.roles for Keycloak)",
    )
    group.add_argument(
        "--oidc-admin-role",
        default=env.get("THOUSAND_OIDC_ADMIN_ROLE", ""),
        help="the role that makes an OIDC token an operator's (empty: operators use --admin-token-file)",
    )
    group.add_argument(
        "--no-guests",
        action="store_true",
        default=env.get("THOUSAND_NO_GUESTS", "").lower() in ("1", "true", "yes"),
        help="refuse PlayerService.CreateGuest (players sign in by OIDC)",
    )
    group.add_argument(
        "--guests-per-hour",
        type=float,
        default=float(env.get("THOUSAND_GUESTS_PER_HOUR", GUESTS_PER_HOUR)),
        help="guest players one client address may create an hour (a burst of 5 at once); 0: no limit",
    )


def identity_settings(
    args: argparse.Namespace, parser: argparse.ArgumentParser, env: dict[str, str]
) -> IdentitySettings:
    urls = args.oidc_issuer
    if urls is None:
        urls = [u.strip() for u in env.get("THOUSAND_OIDC_ISSUER", "").split(",") if u.strip()]
    audiences = args.oidc_audience
    if audiences is None:
        audiences = [a.strip() for a in env.get("THOUSAND_OIDC_AUDIENCE", "").split(",") if a.strip()]
    for url in urls:
        if not _trusted_url(url):
            parser.error(f"--oidc-issuer {url!r} must be an https URL (http only on a loopback address)")
    if urls and len(audiences) not in (1, len(urls)):
        parser.error("--oidc-audience: give one for every issuer, or one per --oidc-issuer")
    if len(set(urls)) != len(urls):
        parser.error("--oidc-issuer: each issuer once")
    if args.oidc_admin_role and not urls:
        parser.error("--oidc-admin-role needs an --oidc-issuer")
    if args.guests_per_hour < 0:
        parser.error("--guests-per-hour must be 0 (no limit) or positive")
    issuers = tuple(
        Issuer(url, audiences[index] if len(audiences) > 1 else audiences[0])
        for index, url in enumerate(urls)
    )
    return IdentitySettings(
        issuers=issuers,
        admin_token_file=args.admin_token_file,
        admin_claim=args.oidc_admin_claim,
        admin_role=args.oidc_admin_role,
        guests=not args.no_guests,
        guests_per_hour=args.guests_per_hour,
    )


def _trusted_url(url: str) -> bool:
    """https, or http to a loopback address (a provider on the same machine, as the tests run one)."""
    parts = urlsplit(url)
    if not parts.hostname or parts.query or parts.fragment:
        return False
    if parts.scheme == "https":
        return True
    if parts.scheme != "http":
        return False
    if parts.hostname == "localhost":
        return True
    try:
        return ipaddress.ip_address(parts.hostname).is_loopback
    except ValueError:
        return False
