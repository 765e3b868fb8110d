// Quick play (docs/protocol.md, "Quick play"): wait in the server's queue for a game of Thousand, and take
// the seat a match gives (already taken: its table, seat number and seat token come at the stream's end).
//
// The seat token and the client's seed are drawn here once and sent with every call: a stream that breaks
// (its node died, the connection was cut) is called again with the same request, on the next known node,
// and the server gives back the same place in its queue (it keeps it a minute), or the seat a match gave it
// meanwhile. Closing the stream leaves the queue.
'use strict';

const crypto = require('node:crypto');
const path = require('node:path');
const grpc = require('@grpc/grpc-js');
const protoLoader = require('@grpc/proto-loader');
const { errorInfo, retryDelayMs, describeError, TRANSIENT } = require('./contract');
const { newClientSeed } = require('./fair');
const { Route } = require('./route');

const PROTO_ROOT = path.resolve(__dirname, '..', '..', '..', 'proto');
const definition = protoLoader.loadSync('thousand/v1/matchmaking.proto', {
  keepCase: true,
  longs: String,
  enums: String,
  defaults: true,
  oneofs: true,
  includeDirs: [PROTO_ROOT],
});
const { MatchmakingService } = grpc.loadPackageDefinition(definition).thousand.v1;
const KEEP_PLACE_MS = 50_000; // calling again after a break, within the server's minute

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

/** The QuickPlay request: 3-player Thousand (--players), bots filling after --wait seconds. */
function quickPlayRequest(options) {
  return {
    game: 'GAME_KIND_THOUSAND',
    players: options.players,
    preset: 'standard',
    bots_may_fill: true,
    max_wait: { seconds: options.wait, nanos: 0 },
    seat_token: crypto.randomBytes(32).toString('base64url'),
    player_name: options.name,
    client_seed: newClientSeed(),
  };
}

/** One QuickPlay stream: resolves with the match, or rejects with the stream's error. */
function once(client, request, metadata, onWait) {
  return new Promise((resolve, reject) => {
    const call = client.QuickPlay(request, metadata);
    let matched = null;
    call.on('data', (update) => {
      if (update.update === 'matched') {
        matched = update.matched;
        call.cancel();
        resolve(matched);
      } else if (onWait) {
        onWait(update.waiting);
      }
    });
    call.on('error', (error) => {
      if (!matched) reject(error);
    });
    call.on('end', () => {
      const ended = new Error('the stream ended without a seat');
      if (!matched) reject(Object.assign(ended, { code: grpc.status.UNAVAILABLE }));
    });
  });
}

/**
 * Wait for a seat: {table, seat, seat_token, match_id, bots, note} and the request (its client_seed). A
 * refusal (QUICKPLAY_NO_MATCH, INVALID_ARGUMENT, ...) rejects; a broken stream is called again.
 */
async function quickPlay(options, interceptors, onWait) {
  const request = quickPlayRequest(options);
  const route = new Route(
    options.server,
    (address) => new MatchmakingService(address, grpc.credentials.createInsecure(), { interceptors }),
  );
  let failingSince = null;
  try {
    for (let attempt = 0; ; attempt += 1) {
      try {
        const match = await once(route.client(), request, new grpc.Metadata(), onWait);
        return { match, request, followed: route.followed };
      } catch (error) {
        const info = errorInfo(error);
        const transient = TRANSIENT.has(error.code) && !info;
        const delay = route.follow(error, info, retryDelayMs(error), transient);
        failingSince = failingSince === null ? Date.now() : failingSince;
        if ((delay === null && !transient) || Date.now() - failingSince > KEEP_PLACE_MS) throw error;
        if (!options.quiet) console.error(`play.js: QuickPlay broke (${describeError(error)}); calling again`);
        await sleep(delay !== null ? delay : Math.min(2000, 200 * 2 ** Math.min(attempt, 4)));
      }
    }
  } finally {
    route.close();
  }
}

module.exports = { quickPlay };
