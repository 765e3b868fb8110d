"""OpenID Connect players against a real provider (npm oidc-provider on loopback, tests/oidc_harness.py):
a token the provider issued signs a player in, keyed by (issuer, subject); every forged or stale token is
refused with PLAYER_TOKEN_INVALID and the problem named, and creates no player; a rotated key is accepted
once the server reads the issuer's keys again; an OIDC operator role opens the AdminService."""

from __future__ import annotations

import base64
import hashlib
import hmac
import json
import time
from pathlib import Path
from typing import Any

import grpc
import pytest
from grpc import aio
from joserfc import jwt
from joserfc.jwk import RSAKey

from server.identity.credentials import roles_of
from server.identity.oidc import Issuer, VerifiedToken
from server.settings import parse_settings
from tests.identity_harness import Served, bearer, served
from tests.oidc_harness import AUDIENCE, Provider, new_key, oidc_provider
from tests.server_harness import error_info, expect_error, run
from tests.test_rate_limits import retry_delay
from thousand.v1 import admin_service_pb2 as admin_pb
from thousand.v1 import player_service_pb2 as player_pb

ROLE = "thousand-admin"


def b64(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def claims(provider: Provider, subject: str, **changes: Any) -> dict[str, Any]:
    now = int(time.time())
    base: dict[str, Any] = {
        "iss": provider.issuer,
        "aud": AUDIENCE,
        "sub": subject,
        "iat": now,
        "exp": now + 300,
    }
    base.update(changes)
    return {k: v for k, v in base.items() if v is not None}


def signed(key: RSAKey, payload: dict[str, Any]) -> str:
    return jwt.encode({"alg": "RS256", "kid": key.kid}, payload, key)


async def refused(s: Served, token: str, problem: str, subject: str, provider: Provider) -> None:
    info = await expect_error(
        s.players.GetMe(player_pb.GetMeRequest(), metadata=bearer(token)),
        "PLAYER_TOKEN_INVALID",
        grpc.StatusCode.UNAUTHENTICATED,
    )
    assert info.metadata["problem"] == problem
    assert s.server.identity.store.players_by_subject(provider.issuer, subject) == []  # nothing made


def test_provider_tokens_sign_players_in_and_every_forgery_is_refused(tmp_path: Path) -> None:
    with oidc_provider(tmp_path, {"ann": [], "bob": []}) as provider:

        async def scenario() -> None:
            async with served(tmp_path, issuers=(Issuer(provider.issuer, AUDIENCE),)) as s:
                s.server.identity.identities.verifier.min_refresh_seconds = (
                    0.0  # each unknown kid reads the keys
                )
                me = (
                    await s.players.GetMe(player_pb.GetMeRequest(), metadata=bearer(provider.token("ann")))
                ).player
                assert (me.kind, me.issuer, me.subject) == (
                    player_pb.PLAYER_KIND_OIDC,
                    provider.issuer,
                    "ann",
                )
                again = await s.players.GetMe(
                    player_pb.GetMeRequest(), metadata=bearer(provider.token("ann"))
                )
                assert again.player.player_id == me.player_id  # (issuer, subject): one player, any token
                other = await s.players.GetMe(
                    player_pb.GetMeRequest(), metadata=bearer(provider.token("bob"))
                )
                assert other.player.player_id != me.player_id

                key = provider.keys[0]
                header_none = b64(json.dumps({"alg": "none", "typ": "JWT"}).encode())
                body = b64(json.dumps(claims(provider, "mallory-none")).encode())
                await refused(s, f"{header_none}.{body}.", "algorithm", "mallory-none", provider)

                public_pem = key.as_pem(private=False)  # the attack: an HMAC keyed with the public key
                header_hs = b64(json.dumps({"alg": "HS256", "kid": key.kid, "typ": "JWT"}).encode())
                body = b64(json.dumps(claims(provider, "mallory-hs")).encode())
                mac = hmac.new(public_pem, f"{header_hs}.{body}".encode(), hashlib.sha256).digest()
                await refused(s, f"{header_hs}.{body}.{b64(mac)}", "algorithm", "mallory-hs", provider)

                now = int(time.time())
                expired = claims(provider, "mallory-old", iat=now - 7200, exp=now - 3600)
                await refused(s, signed(key, expired), "expired", "mallory-old", provider)
                early = claims(provider, "mallory-early", nbf=now + 3600)
                await refused(s, signed(key, early), "not_yet_valid", "mallory-early", provider)
                audience = claims(provider, "mallory-aud", aud="https://another.service")
                await refused(s, signed(key, audience), "audience", "mallory-aud", provider)
                issuer = claims(provider, "mallory-iss", iss="http://127.0.0.1:1")
                await refused(s, signed(key, issuer), "issuer", "mallory-iss", provider)
                rogue = new_key("rogue")
                await refused(
                    s, signed(rogue, claims(provider, "mallory-kid")), "unknown_key", "mallory-kid", provider
                )
                genuine = provider.token("ann").split(".")
                tampered = json.loads(base64.urlsafe_b64decode(genuine[1] + "=="))
                tampered["sub"] = "mallory-sig"
                forged = ".".join([genuine[0], b64(json.dumps(tampered).encode()), genuine[2]])
                await refused(s, forged, "signature", "mallory-sig", provider)
                await refused(s, "not.a.jwt", "malformed", "mallory", provider)
                info = await expect_error(
                    s.players.GetMe(player_pb.GetMeRequest(), metadata=(("authorization", "Basic abc"),)),
                    "PLAYER_TOKEN_INVALID",
                    grpc.StatusCode.UNAUTHENTICATED,
                )
                assert info.metadata["problem"] == "malformed"

                # Rotation: the provider signs with a new key; the server reads the keys again on its kid.
                provider.restart_with([new_key("key-2")])
                rotated = provider.token("ann")
                assert json.loads(base64.urlsafe_b64decode(rotated.split(".")[0] + "=="))["kid"] == "key-2"
                after = await s.players.GetMe(player_pb.GetMeRequest(), metadata=bearer(rotated))
                assert after.player.player_id == me.player_id
                # ... and the old key is gone from the issuer, so a token it signed is no longer accepted.
                await refused(
                    s,
                    signed(key, claims(provider, "mallory-retired")),
                    "unknown_key",
                    "mallory-retired",
                    provider,
                )

        run(scenario())


def test_an_oidc_role_opens_the_admin_service_and_nothing_else_does(tmp_path: Path) -> None:
    with oidc_provider(tmp_path, {"op": [ROLE], "ann": ["player"]}) as provider:

        async def scenario() -> None:
            issuers = (Issuer(provider.issuer, AUDIENCE),)
            async with served(tmp_path, issuers=issuers, admin_role=ROLE) as s:
                ann = (
                    await s.players.GetMe(player_pb.GetMeRequest(), metadata=bearer(provider.token("ann")))
                ).player
                look_up = admin_pb.GetPlayerRequest(issuer=provider.issuer, subject="ann")
                for metadata in ((), bearer(provider.token("ann")), bearer("thp_" + "x" * 43)):
                    await expect_error(
                        s.admin.GetPlayer(look_up, metadata=metadata),
                        "OPERATOR_REQUIRED",
                        grpc.StatusCode.PERMISSION_DENIED,
                    )
                found = await s.admin.GetPlayer(look_up, metadata=bearer(provider.token("op")))
                assert found.player.player_id == ann.player_id and not found.HasField("ban")
                ban = admin_pb.BanPlayerRequest(player_id=ann.player_id, reason="abuse in chat")
                await s.admin.BanPlayer(ban, metadata=bearer(provider.token("op")))
                entries = await s.admin.ListAuditEntries(
                    admin_pb.ListAuditEntriesRequest(), metadata=bearer(provider.token("op"))
                )
                assert [(e.action, e.operator) for e in entries.entries] == [
                    ("BanPlayer", f"{provider.issuer}#op")
                ]
                await expect_error(
                    s.players.GetMe(player_pb.GetMeRequest(), metadata=bearer(provider.token("ann"))),
                    "PLAYER_BANNED",
                    grpc.StatusCode.PERMISSION_DENIED,
                )

        run(scenario())


@pytest.mark.parametrize("flags", [["--oidc-issuer", "http://example.com"], ["--oidc-issuer", "ftp://x"]])
def test_an_issuer_must_be_https_unless_on_loopback(flags: list[str]) -> None:
    with pytest.raises(SystemExit):
        parse_settings([*flags, "--oidc-audience", "a"], env={})


def test_unknown_key_ids_read_the_issuers_keys_at_most_once_in_a_while(tmp_path: Path) -> None:
    with oidc_provider(tmp_path, {"ann": []}) as provider:

        async def scenario() -> None:
            async with served(tmp_path, issuers=(Issuer(provider.issuer, AUDIENCE),)) as s:
                verifier = s.server.identity.identities.verifier
                await s.players.GetMe(player_pb.GetMeRequest(), metadata=bearer(provider.token("ann")))
                assert verifier.refreshes == 1
                for number in range(5):  # made-up key ids cannot make the server hammer the issuer
                    rogue = new_key(f"rogue-{number}")
                    subject = f"mallory-{number}"
                    await refused(
                        s, signed(rogue, claims(provider, subject)), "unknown_key", subject, provider
                    )
                assert verifier.refreshes == 1

        run(scenario())


def test_roles_come_from_a_claim_by_name_or_by_a_dotted_path() -> None:
    def token(claims: dict[str, Any]) -> VerifiedToken:
        return VerifiedToken("https://id.example", "u1", claims)

    assert roles_of(token({"roles": ["a", "b"]}), "roles") == {"a", "b"}
    assert roles_of(token({"scope": "a b"}), "scope") == {"a", "b"}
    assert roles_of(token({"realm_access": {"roles": ["admin"]}}), "realm_access.roles") == {"admin"}
    namespaced = "https://thousand.example.com/roles"
    assert roles_of(token({namespaced: ["admin"]}), namespaced) == {"admin"}
    assert roles_of(token({"roles": [1, None, "x"]}), "roles") == {"x"}
    assert roles_of(token({"roles": {"admin": True}}), "roles") == frozenset()
    assert roles_of(token({}), "realm_access.roles") == frozenset()


def test_an_issuer_that_cannot_be_reached_is_identity_unavailable_with_a_retry_delay(tmp_path: Path) -> None:
    with oidc_provider(tmp_path, {"ann": []}) as provider:
        token = provider.token("ann")
        issuer = provider.issuer
    # The provider is stopped: its address answers nothing now.

    async def scenario() -> None:
        async with served(tmp_path, issuers=(Issuer(issuer, AUDIENCE),)) as s:
            for _ in range(2):  # the second within the least time between two reads of the keys
                try:
                    await s.players.GetMe(player_pb.GetMeRequest(), metadata=bearer(token))
                    raise AssertionError("a token was accepted without the issuer's keys")
                except aio.AioRpcError as error:
                    assert error.code() == grpc.StatusCode.UNAVAILABLE
                    assert error_info(error).reason == "IDENTITY_UNAVAILABLE"
                    assert retry_delay(error) > 0
            assert s.server.identity.store.players_by_subject(issuer, "ann") == []

    run(scenario())
