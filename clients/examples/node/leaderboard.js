#!/usr/bin/env node
// A rating pool's leaderboard (thousand.v1.RatingService, docs/protocol.md "Ratings"), read page by page with
// the contract loaded from the .proto files at run time, as play.js does. Prints a line per player, best
// first, and as its last line one JSON object: {"pool": ..., "min_games": N, "entries": [...]}. With
// --profile ID it prints that player's profile instead (ratings per pool, latest rated games) as JSON.
'use strict';

const path = require('node:path');
const grpc = require('@grpc/grpc-js');
const protoLoader = require('@grpc/proto-loader');
const { describeError } = require('./contract');

const PROTO_ROOT = path.resolve(__dirname, '..', '..', '..', 'proto');
const definition = protoLoader.loadSync('thousand/v1/rating_service.proto', {
  keepCase: true, longs: String, enums: String, defaults: true, oneofs: true, includeDirs: [PROTO_ROOT],
});
const { RatingService } = grpc.loadPackageDefinition(definition).thousand.v1;

const USAGE = `usage: node leaderboard.js [options]

  --server ADDR     the server, host:port (default: $THOUSAND_SERVER or 127.0.0.1:50051)
  --game GAME       thousand or blagogo (default: thousand)
  --players N       the pool's number of players (default: 3)
  --bots            the bots' pool instead of the people's
  --page-size N     entries asked for per page (default: 20); every page is read
  --profile ID      print this player's profile instead (a player id, or bot:<strategy>)
  --help            this text`;

function parseArgs(argv) {
  const options = {
    server: process.env.THOUSAND_SERVER || '127.0.0.1:50051', game: 'thousand', players: 3, bots: false,
    pageSize: 20, profile: null,
  };
  const fail = (message) => { console.error(`${message}\n\n${USAGE}`); process.exit(64); };
  const value = (i, flag) => (i + 1 < argv.length ? argv[i + 1] : fail(`${flag} needs a value`));
  const integer = (text, flag) => (/^\d+$/.test(text) ? Number(text) : fail(`${flag} must be a number`));
  for (let i = 0; i < argv.length; i++) {
    const flag = argv[i];
    switch (flag) {
      case '--server': options.server = value(i++, flag); break;
      case '--game': options.game = value(i++, flag); break;
      case '--players': options.players = integer(value(i++, flag), flag); break;
      case '--bots': options.bots = true; break;
      case '--page-size': options.pageSize = integer(value(i++, flag), flag); break;
      case '--profile': options.profile = value(i++, flag); break;
      case '--help': console.log(USAGE); process.exit(0); break;
      default: fail(`unknown option ${flag}`);
    }
  }
  if (!['thousand', 'blagogo'].includes(options.game)) fail('--game is thousand or blagogo');
  return options;
}

/** A unary call as a promise. */
function call(client, method, request) {
  return new Promise((resolve, reject) => {
    client[method](request, { deadline: Date.now() + 10_000 }, (error, response) =>
      (error ? reject(error) : resolve(response)));
  });
}

async function main() {
  const options = parseArgs(process.argv.slice(2));
  const client = new RatingService(options.server, grpc.credentials.createInsecure());
  try {
    if (options.profile !== null) {
      const profile = await call(client, 'GetPlayerProfile', { player_id: options.profile });
      for (const pool of profile.ratings) {
        console.log(`${pool.pool.pool_id}: ${pool.rating.ordinal.toFixed(2)} (mu ${pool.rating.mu.toFixed(2)},`
          + ` sigma ${pool.rating.sigma.toFixed(2)}, ${pool.rating.games} games), place ${pool.place || '-'}`);
      }
      console.log(JSON.stringify(profile));
      return;
    }
    const entries = [];
    let pool = null;
    let minGames = 0;
    let token = '';
    do { // every page, following next_page_token until it is empty
      const page = await call(client, 'GetLeaderboard', {
        game: `GAME_KIND_${options.game.toUpperCase()}`, players: options.players, bots: options.bots,
        page_size: options.pageSize, page_token: token,
      });
      pool = page.pool;
      minGames = page.min_games;
      for (const entry of page.entries) {
        entries.push(entry);
        console.log(`${String(entry.place).padStart(4)}. ${(entry.display_name || entry.player_id).padEnd(24)}`
          + ` ${entry.rating.ordinal.toFixed(2)} (${entry.rating.games} games)`);
      }
      token = page.next_page_token;
    } while (token);
    console.log(JSON.stringify({ pool, min_games: minGames, entries }));
  } catch (error) {
    console.error(`leaderboard: ${describeError(error)}`);
    process.exitCode = 1;
  } finally {
    client.close();
  }
}

main();
