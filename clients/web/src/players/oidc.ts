// Signing in with an OpenID Connect issuer the server trusts (GetSignInOptions): the authorization code flow
// with PKCE (RFC 7636) in the browser, by oauth4webapi (a maintained, certified client library), as a public
// client whose id is the server's audience for that issuer, asking for that audience as its `resource` (RFC
// 8707), as the terminal client does with the device flow (docs/protocol.md, "Players"). The verifier and
// state live in sessionStorage for the round trip only; plain http is allowed for a loopback issuer alone
// (the tests' provider), never elsewhere. The page loads this module (and oauth4webapi) only when it signs in
// or renews a token: a guest's page does without it.
import * as oauth from "oauth4webapi";
import type { KeyValue } from "../seats";
import { FLOW, bearerOf, type Access } from "./identity";

export interface Issuer {
  issuer: string;
  audience: string;
}

/** What a finished sign-in or a refresh gives. */
export interface SignedIn {
  access: Access;
  refreshToken: string;
  /** The ID token's name, if any: the account's display name at the provider. */
  name?: string;
}

/** The round trip's secrets, in sessionStorage from the start to the callback. */
interface Flow extends Issuer {
  verifier: string;
  state: string;
  redirectUri: string;
  /** The page's hash to go back to afterwards. */
  back: string;
}

/** The OpenID scopes asked for (protocol words, not text a person reads). */
export const SCOPE = ["openid", "profile", "offline_access"].join(" ");

function loopback(url: URL): boolean {
  return url.protocol === "http:" && ["127.0.0.1", "localhost", "[::1]"].includes(url.hostname);
}

function options(issuer: string): { [oauth.allowInsecureRequests]: boolean } {
  return { [oauth.allowInsecureRequests]: loopback(new URL(issuer)) };
}

async function discover(issuer: string): Promise<oauth.AuthorizationServer> {
  const url = new URL(issuer);
  const response = await oauth.discoveryRequest(url, { algorithm: "oidc", ...options(issuer) });
  return oauth.processDiscoveryResponse(url, response);
}

/** The address to send the browser to for signing in; `redirectUri` is this page (origin and path). */
export async function signInUrl(issuer: Issuer, redirectUri: string, back: string, session: KeyValue): Promise<string> {
  const as = await discover(issuer.issuer);
  if (!as.authorization_endpoint) throw new Error("the issuer has no authorization endpoint");
  const verifier = oauth.generateRandomCodeVerifier();
  const state = oauth.generateRandomState();
  const flow: Flow = { ...issuer, verifier, state, redirectUri, back };
  session.setItem(FLOW, JSON.stringify(flow));
  const url = new URL(as.authorization_endpoint);
  const params: Record<string, string> = {
    client_id: issuer.audience,
    redirect_uri: redirectUri,
    response_type: "code",
    scope: SCOPE,
    state,
    code_challenge: await oauth.calculatePKCECodeChallenge(verifier),
    code_challenge_method: "S256",
    resource: issuer.audience,
    audience: issuer.audience, // what Auth0 reads instead of `resource`
    prompt: "consent", // a refresh token (offline_access) is granted only with the person's consent
  };
  for (const [key, value] of Object.entries(params)) url.searchParams.set(key, value);
  return url.href;
}

/** Finish a sign-in at its callback: check the state, trade the code (with the PKCE verifier) for tokens. */
export async function finishSignIn(url: URL, session: KeyValue, now: number): Promise<{ issuer: Issuer; back: string; tokens: SignedIn }> {
  const raw = session.getItem(FLOW);
  session.removeItem(FLOW); // one use, whatever happens
  if (!raw) throw new Error("no sign-in was started in this tab");
  const flow = JSON.parse(raw) as Flow;
  const as = await discover(flow.issuer);
  const client: oauth.Client = { client_id: flow.audience };
  const params = oauth.validateAuthResponse(as, client, url, flow.state);
  const response = await oauth.authorizationCodeGrantRequest(as, client, oauth.None(), params, flow.redirectUri, flow.verifier, {
    additionalParameters: { resource: flow.audience },
    ...options(flow.issuer),
  });
  const result = await oauth.processAuthorizationCodeResponse(as, client, response);
  return { issuer: { issuer: flow.issuer, audience: flow.audience }, back: flow.back, tokens: tokensOf(result, "", now) };
}

/** New tokens for a refresh token (which the provider may rotate: the new one replaces it). */
export async function refresh(issuer: Issuer, refreshToken: string, now: number): Promise<SignedIn> {
  const as = await discover(issuer.issuer);
  const client: oauth.Client = { client_id: issuer.audience };
  const response = await oauth.refreshTokenGrantRequest(as, client, oauth.None(), refreshToken, {
    additionalParameters: { resource: issuer.audience },
    ...options(issuer.issuer),
  });
  const result = await oauth.processRefreshTokenResponse(as, client, response);
  return tokensOf(result, refreshToken, now);
}

function tokensOf(result: oauth.TokenEndpointResponse, previousRefresh: string, now: number): SignedIn {
  const claims = oauth.getValidatedIdTokenClaims(result);
  const name = claims && typeof claims["name"] === "string" ? claims["name"] : undefined;
  const signedIn: SignedIn = {
    access: { token: bearerOf(result.access_token, result.id_token), expiresAt: now + (result.expires_in ?? 300) * 1000 },
    refreshToken: result.refresh_token ?? previousRefresh,
  };
  if (name) signedIn.name = name;
  return signedIn;
}

/** Sign out at the provider: its refresh token revoked (RFC 7009), so that nobody who copied it can renew
 * it; then the provider's end-session endpoint (OpenID Connect RP-Initiated Logout), which ends the person's
 * session there and comes back to `redirectUri` (this page). Undefined when the provider has no such endpoint
 * (the page stays, signed out here). */
export async function signOutAt(issuer: Issuer, refreshToken: string, redirectUri: string): Promise<string | undefined> {
  const as = await discover(issuer.issuer);
  const client: oauth.Client = { client_id: issuer.audience };
  if (refreshToken && as.revocation_endpoint) {
    const response = await oauth.revocationRequest(as, client, oauth.None(), refreshToken, {
      additionalParameters: { token_type_hint: "refresh_token" },
      ...options(issuer.issuer),
    });
    await oauth.processRevocationResponse(response);
  }
  if (!as.end_session_endpoint) return undefined;
  const url = new URL(as.end_session_endpoint);
  url.searchParams.set("client_id", issuer.audience);
  url.searchParams.set("post_logout_redirect_uri", redirectUri);
  return url.href;
}
