#!/usr/bin/env node
// A reference client of the thousand.v1 gRPC contract in Node.js (see docs/protocol.md).
//
// It creates a table of Thousand with two server-run bots and one open seat, joins the open seat, and plays
// it with uniformly random legal actions, taken from the Turn that the seat's own stream carries, until the
// game is over. It plays over one Play stream (the seat's updates in, its actions out, each action's result
// back on the stream); with --unary, or against a server without Play, over StreamEvents and SubmitAction.
// A dropped stream is resumed with after_sequence (reconnecting with exponential backoff), and an action
// whose result never came is sent again with the same request_id, so nothing is missed, repeated or played
// twice. It adds a random seed of its own to the deals when it takes its seat and checks every deal, and at
// the end the table's secret, against the table's commitment (fair.js; docs/protocol.md, "Verifiable
// deals"): its first stream starts at the table's first event (after_sequence 0), not a snapshot, so that
// it also sees the commitment of the deal its joining started; with --snapshot it starts from a snapshot,
// whose deal in progress (Snapshot.deal) carries that commitment instead. The game ends with GameOver, or with
// TableStopped when the server stops the table before its game ends (a table of bots only at the server's
// move limit: this seat taken over on time, say): no winner then, and the JSON line says why ("stopped").
//
//   npm ci
//   node play.js --server 127.0.0.1:50051
//   node play.js --table ID --invite CODE --player-token TOKEN     a private table, as a player
//   node play.js --quick-play --players 3 --wait 5                  quick play: whoever else waits, or bots
//
// The last line printed is one JSON object: {"finished": true, "standings": [...], "stopped": null, ...}.
// The contract is read from the .proto files in ../../../proto at run time; nothing is generated.
//
// Its modules, in the order to read them:
//   play.js      this file: the table created and joined, the seat played, the result printed
//   seat.js      one seat played to the end: resumption, each message once, each Turn decided once,
//                each action sent until its outcome is known
//   streams.js   the seat's stream: one Play call, or StreamEvents with SubmitAction
//   calls.js     unary calls, retries of the same request, redirects followed, backoff
//   contract.js  the TableService from the .proto files, ErrorInfo and RetryInfo, what each reason asks
//   thousand.js  what is particular to Thousand: the table, its view, events and actions, a deal's line
//   fair.js      the check of every deal against the table's commitment
//   route.js     which node of a cluster serves the table
//   quickplay.js quick play: the server's queue, and the seat a match gives
//   options.js   the command line
'use strict';

const crypto = require('node:crypto');
const grpc = require('@grpc/grpc-js');
const { TableService, describeError } = require('./contract');
const { GiveUp, retried } = require('./calls');
const { DealVerifier, newClientSeed } = require('./fair');
const { parseArgs } = require('./options');
const { Route } = require('./route');
const { quickPlay } = require('./quickplay');
const { Seat } = require('./seat');
const { tableRequest } = require('./thousand');

async function main() {
  const options = parseArgs(process.argv.slice(2));
  const started = Date.now();
  // A player's credential goes on every call, streams included (docs/protocol.md, "Players").
  const interceptors = options.playerToken ? [bearer(options.playerToken)] : [];
  const route = new Route(
    options.server,
    (address) => new TableService(address, grpc.credentials.createInsecure(), { interceptors }),
  );

  const { table, join, joined, matched } = options.quickPlay
    ? await seatByQuickPlay(options, interceptors, route)
    : await createAndJoin(options, route);
  // The table's commitment, read before this seat's seed was sent: every deal is checked against both.
  const commitment = table.fairness ? table.fairness.commitment : '';
  const verifier = new DealVerifier(commitment, joined.seat, join.client_seed, BigInt(joined.table.sequence));
  if ((joined.table.fairness ? joined.table.fairness.commitment : '') !== commitment) {
    verifier.fail("the table's commitment changed when the seat was taken");
  }
  if (!options.quiet && matched) {
    const note = matched.note ? ` (${matched.note})` : '';
    console.log(`table ${table.table_id}: seat ${joined.seat} given by quick play${note}`);
  } else if (!options.quiet) {
    console.log(`table ${table.table_id}: seat ${joined.seat} joined, against two ${options.strategy} bots`);
    console.log(
      table.seeded
        ? 'a SEEDED practice table: whoever knows the seed knows every card'
        : `fair deals (${table.fairness.scheme}), commitment ${commitment}`,
    );
  }

  const seat = new Seat(route, table.table_id, joined.seat, joined.seat_token, options, verifier);
  let gaveUp = null;
  try {
    await seat.play();
  } catch (error) {
    if (!(error instanceof GiveUp)) throw error;
    gaveUp = error.message;
  } finally {
    route.close();
  }

  const names = new Map(
    joined.table.seats.map((s) => [s.seat, s.kind === 'SEAT_KIND_BOT' ? s.strategy : 'you']),
  );
  if (seat.stopped) {
    console.log(`The server stopped the table (${seat.stopped.reason}): ${seat.stopped.message}`);
  } else if (seat.finished) {
    console.log('Final standings:');
    for (const s of seat.standings) {
      console.log(`  ${s.place}. seat ${s.seat} (${names.get(s.seat)}) ${s.score}`);
    }
  } else {
    console.log(`Not finished: ${gaveUp}`);
  }
  const result = {
    finished: seat.finished,
    table_id: table.table_id,
    seat: seat.seat,
    winner: seat.winner,
    standings: seat.standings,
    stopped: seat.stopped ? seat.stopped.reason : null,
    forfeited: seat.forfeited,
    actions: seat.actions,
    deals: seat.deals,
    events: seat.events,
    snapshot_sequence: seat.snapshotSequence === null ? null : seat.snapshotSequence.toString(),
    sequence: seat.lastSeen === null ? null : seat.lastSeen.toString(),
    reconnects: seat.reconnects,
    snapshots: seat.snapshots,
    stale_turns: seat.staleTurns,
    play: seat.usePlay,
    resubmitted: seat.resubmitted,
    seconds: Math.round((Date.now() - started) / 100) / 10,
    seeded: table.seeded,
    verified_deals: verifier.verified.length,
    verification_problems: verifier.problems,
    secret_verified: verifier.secretVerified,
    followed: route.followed,
    served_by: route.address,
    quick_play: matched ? { match_id: matched.match_id, bots: matched.bots, note: matched.note } : null,
  };
  console.log(JSON.stringify(result));
  return seat.finished ? 0 : 2;
}

/** A new table of Thousand with two bots (or --table's), and its seat 0 taken. */
async function createAndJoin(options, route) {
  const create = tableRequest(options); // with --seed, a practice table
  // A request_id and a seat token of our own make CreateTable and JoinTable safe to retry: a retry after a
  // lost reply gets the same table and the same seat back, never a second one.
  create.request_id = crypto.randomUUID();
  const table = options.table
    ? (await retried(route, 'GetTable', { table_id: options.table })).table
    : (await retried(route, 'CreateTable', create)).table;
  route.go(table.endpoint); // in a cluster: the node that serves the table
  const join = {
    table_id: table.table_id,
    seat: 0,
    player_name: options.name,
    seat_token: crypto.randomBytes(32).toString('base64url'),
    client_seed: newClientSeed(), // the same on a retry of this join
    invite_code: options.invite, // a private table's invite (empty: none)
  };
  const joined = await retried(route, 'JoinTable', join);
  return { table, join, joined, matched: null };
}

/** The seat quick play gives: taken already, with the seed the request carried (quickplay.js). */
async function seatByQuickPlay(options, interceptors, route) {
  const onWait = options.quiet
    ? null
    : (w) => console.log(`waiting: ${w.players_waiting} of ${w.players_needed} players`);
  const { match, request } = await quickPlay(options, interceptors, onWait);
  route.go(match.table.endpoint); // in a cluster: the node that serves the table
  const join = { table_id: match.table.table_id, client_seed: request.client_seed };
  const joined = { seat: match.seat, seat_token: match.seat_token, table: match.table };
  return { table: match.table, join, joined, matched: match };
}

/** A grpc-js interceptor that adds `authorization: Bearer <credential>` to every call. */
function bearer(credential) {
  return (callOptions, nextCall) =>
    new grpc.InterceptingCall(nextCall(callOptions), {
      start(metadata, listener, next) {
        metadata.set('authorization', `Bearer ${credential}`);
        next(metadata, listener);
      },
    });
}

main().then(
  (code) => process.exit(code),
  (error) => {
    console.error(`play.js: ${error.code !== undefined ? describeError(error) : error.stack || error}`);
    process.exit(1);
  },
);
