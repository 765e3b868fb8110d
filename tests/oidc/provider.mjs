// A real OpenID Connect provider for the tests (tests/oidc_harness.py starts it, stops it by its PID).
//
// node provider.mjs CONFIG.json: {"port": 0 or a port, "audience": "...", "jwks": {"keys": [private JWKs]},
// "clients": [{"client_id": "...", "client_secret": "...", "roles": ["..."]}]}. It listens on 127.0.0.1 and
// prints one JSON line {"issuer": "http://127.0.0.1:PORT"} once it serves. Each client gets JWT access tokens
// for the audience by the client credentials grant (RFC 6749 4.4, with a resource indicator, RFC 8707): the
// token's `sub` is the client's id, `roles` its roles. The keys are the test's own, so that it can rotate
// them (a restart on the same port with other keys).
//
// With "device_clients": ["..."] it also serves people: each is a public client (no secret) of the device
// authorization grant (RFC 8628), as the terminal client (`thousand login`) is, and the provider's own pages
// sign a person in (devInteractions: any login name is the account, i.e. the token's `sub`) and ask their
// consent; the device's access token is a JWT for the audience too.
//
// With "browser_clients": [{"client_id": "...", "redirect_uris": ["..."]}] it serves pages too: each is a
// public web client of the authorization code grant with PKCE (the web client's "Sign in"), with refresh
// tokens (rotated at each use, as for any public client, and revoked at sign-out, RFC 7009), signing people
// in on the same pages and out through its end-session endpoint (RP-Initiated Logout) back to those pages.
// A client id may be both a device and a browser client (the terminal and the web client of one server).
import { createServer } from 'node:http';
import { readFileSync } from 'node:fs';
import Provider from 'oidc-provider';

const config = JSON.parse(readFileSync(process.argv[2], 'utf8'));
const roles = new Map(config.clients.map((client) => [client.client_id, client.roles ?? []]));
const deviceClients = config.device_clients ?? [];
const browserClients = new Map((config.browser_clients ?? []).map((client) => [client.client_id, client.redirect_uris]));
const people = deviceClients.length > 0 || browserClients.size > 0;

/** A public client (no secret) of people: the device grant, the code grant from pages, or both. */
function publicClient(clientId) {
  const device = deviceClients.includes(clientId);
  const redirects = browserClients.get(clientId) ?? [];
  return {
    client_id: clientId,
    token_endpoint_auth_method: 'none',
    application_type: 'web',
    grant_types: [
      ...(device ? ['urn:ietf:params:oauth:grant-type:device_code'] : []),
      ...(redirects.length ? ['authorization_code'] : []),
      'refresh_token',
    ],
    redirect_uris: redirects,
    post_logout_redirect_uris: redirects,
    response_types: redirects.length ? ['code'] : [],
  };
}
const server = createServer();

server.listen(config.port, '127.0.0.1', () => {
  const issuer = `http://127.0.0.1:${server.address().port}`;
  const provider = new Provider(issuer, {
    jwks: config.jwks,
    clients: [
      ...config.clients.map((client) => ({
        client_id: client.client_id,
        client_secret: client.client_secret,
        grant_types: ['client_credentials'],
        redirect_uris: [],
        response_types: [],
      })),
      ...[...new Set([...deviceClients, ...browserClients.keys()])].map(publicClient),
    ],
    features: {
      devInteractions: { enabled: people },
      deviceFlow: { enabled: deviceClients.length > 0 },
      clientCredentials: { enabled: true },
      revocation: { enabled: true },
      rpInitiatedLogout: { enabled: people },
      resourceIndicators: {
        enabled: true,
        defaultResource: () => config.audience,
        useGrantedResource: () => true,
        getResourceServerInfo: () => ({
          audience: config.audience,
          scope: 'play',
          accessTokenFormat: 'jwt',
          accessTokenTTL: 600,
          jwt: { sign: { alg: config.jwks.keys[0].alg } },
        }),
      },
    },
    extraTokenClaims: (ctx, token) => ({ roles: roles.get(token.clientId) ?? [] }),
  });
  server.on('request', provider.callback());
  process.stdout.write(`${JSON.stringify({ issuer })}\n`);
});

for (const signal of ['SIGTERM', 'SIGINT']) {
  process.on(signal, () => server.close(() => process.exit(0)));
}
