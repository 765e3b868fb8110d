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
//
// The last line printed is one JSON object: {"finished": true, "standings": [...], "stopped": null, ...}.
// The contract is read from the .proto files in ../../../proto at run time; nothing is generated.
'use strict';

const crypto = require('node:crypto');
const path = require('node:path');
const grpc = require('@grpc/grpc-js');
const protoLoader = require('@grpc/proto-loader');
const protobuf = require('protobufjs');
const { DealVerifier, newClientSeed } = require('./fair');
const { Route } = require('./route');

const PROTO_ROOT = path.resolve(__dirname, '..', '..', '..', 'proto');

const USAGE = `usage: node play.js [options]

  --server ADDR          the server, host:port, or several nodes of a cluster: a:port,b:port (default:
                         $THOUSAND_SERVER or 127.0.0.1:50051); redirects and takeovers are followed
  --table ID             join seat 0 of this existing table instead of creating one
  --strategy NAME        the two bots' strategy (default: greedy)
  --seed N               a practice table dealt from seed N (marked seeded for everyone), and the seed of
                         this client's random choices (default: fair deals, random choices)
  --name NAME            this player's display name (default: node)
  --max-seconds S        give up after S seconds: print {"finished": false, ...} and exit 2 (default: none)
  --drop-every N         cancel the stream after every N messages and resume it (exercises resumption)
  --unary                stream with StreamEvents and act with SubmitAction instead of one Play stream
  --snapshot             start from a snapshot of the table as it is (the deal in progress checked from
                         the snapshot's Snapshot.deal) instead of the table's first event
  --quiet                print only the standings and the JSON line, not a line per deal
  --help                 this text`;

// ---------------------------------------------------------------- arguments

function parseArgs(argv) {
  const options = {
    server: process.env.THOUSAND_SERVER || '127.0.0.1:50051',
    strategy: 'greedy',
    seed: null,
    name: 'node',
    maxSeconds: 0,
    dropEvery: 0,
    quiet: false,
    unary: false,
    snapshot: false,
    table: null,
  };
  const value = (i, flag) => {
    if (i + 1 >= argv.length) fail(`${flag} needs a value`);
    return argv[i + 1];
  };
  const integer = (text, flag) => {
    if (!/^\d+$/.test(text)) fail(`${flag} must be a non-negative integer, not ${JSON.stringify(text)}`);
    return Number(text);
  };
  for (let i = 0; i < argv.length; i++) {
    const flag = argv[i];
    switch (flag) {
      case '--server': options.server = value(i++, flag); break;
      case '--strategy': options.strategy = value(i++, flag); break;
      case '--seed': options.seed = integer(value(i++, flag), flag); break;
      case '--name': options.name = value(i++, flag); break;
      case '--max-seconds': {
        const s = Number(value(i++, flag));
        if (!(s >= 0)) fail('--max-seconds must be a number of seconds');
        options.maxSeconds = s;
        break;
      }
      case '--drop-every': options.dropEvery = integer(value(i++, flag), flag); break;
      case '--quiet': options.quiet = true; break;
      case '--unary': options.unary = true; break;
      case '--snapshot': options.snapshot = true; break;
      case '--table': options.table = value(i++, flag); break;
      case '--help': case '-h': console.log(USAGE); process.exit(0); break;
      default: fail(`unknown argument ${JSON.stringify(flag)}\n\n${USAGE}`);
    }
  }
  return options;
}

function fail(message) {
  console.error(`play.js: ${message}`);
  process.exit(64);
}

// ---------------------------------------------------------------- the contract

// Decoding choices, each one a rule of docs/protocol.md for clients:
// - keepCase: field names exactly as in the .proto files (table_id, legal_actions, pass_bid).
// - longs: String: uint64 sequence numbers arrive as decimal strings (compared here as BigInt).
// - enums: String: enum values by name; a value this client does not know stays a number (tolerated).
// - defaults: true: proto3 leaves zeros off the wire; they read as 0, "", false and []. Fields marked
//   `optional` (Turn.seat, ...) stay undefined when unset: that is how "nobody must act" differs from
//   "seat 0 must act".
// - oneofs: true: each oneof's case is named in a virtual field (payload, event, action); an unknown case
//   reads as undefined and is skipped.
const LOAD_OPTIONS = { keepCase: true, longs: String, enums: String, defaults: true, oneofs: true };
const definition = protoLoader.loadSync('thousand/v1/table_service.proto', {
  ...LOAD_OPTIONS,
  includeDirs: [PROTO_ROOT],
});
const thousand = grpc.loadPackageDefinition(definition).thousand.v1;

// google.rpc.Status and google.rpc.ErrorInfo, to read the error reason the server sends in the trailer
// `grpc-status-details-bin` (their field numbers are fixed by googleapis; declared here to need no download).
const rpcTypes = protobuf.Root.fromJSON({
  nested: {
    google: {
      nested: {
        rpc: {
          nested: {
            Status: {
              fields: {
                code: { type: 'int32', id: 1 },
                message: { type: 'string', id: 2 },
                details: { rule: 'repeated', type: 'Any', id: 3 },
              },
            },
            Any: { fields: { type_url: { type: 'string', id: 1 }, value: { type: 'bytes', id: 2 } } },
            Duration: { fields: { seconds: { type: 'int64', id: 1 }, nanos: { type: 'int32', id: 2 } } },
            RetryInfo: { fields: { retry_delay: { type: 'Duration', id: 1 } } },
            ErrorInfo: {
              fields: {
                reason: { type: 'string', id: 1 },
                domain: { type: 'string', id: 2 },
                metadata: { keyType: 'string', type: 'string', id: 3 },
              },
            },
          },
        },
      },
    },
  },
});
const Status = rpcTypes.lookupType('google.rpc.Status');
const ErrorInfo = rpcTypes.lookupType('google.rpc.ErrorInfo');
const RetryInfo = rpcTypes.lookupType('google.rpc.RetryInfo');

/**
 * An action refused on a Play stream: its ActionRefusal (code, reason, message, metadata) made to look like
 * the error a SubmitAction call throws, so that it is read and reported the same way.
 */
class Refused extends Error {
  constructor(refusal) {
    super(refusal.message);
    this.code = refusal.code; // the status code SubmitAction would have returned
    this.details = refusal.message;
    this.info = { reason: refusal.reason, domain: 'thousand.v1', metadata: refusal.metadata || {} };
    const delay = refusal.retry_delay;
    this.retryDelayMs = delay && (delay.seconds || delay.nanos) ? Number(delay.seconds) * 1000 + delay.nanos / 1e6 : null;
  }
}

/** The ErrorInfo of a failed call, as {reason, domain, metadata}, or null when the call carried none. */
function errorInfo(error) {
  if (error instanceof Refused) return error.info;
  const details = error && error.metadata ? error.metadata.get('grpc-status-details-bin') : [];
  for (const bytes of details) {
    const status = Status.decode(bytes);
    for (const any of status.details) {
      if (any.type_url.endsWith('/google.rpc.ErrorInfo')) {
        return ErrorInfo.toObject(ErrorInfo.decode(any.value), { defaults: true });
      }
    }
  }
  return null;
}

/** The RetryInfo delay of a failed call in ms (RATE_LIMITED, TABLE_MOVING), or null. */
function retryDelayMs(error) {
  if (error instanceof Refused) return error.retryDelayMs;
  const details = error && error.metadata ? error.metadata.get('grpc-status-details-bin') : [];
  for (const bytes of details) {
    for (const any of Status.decode(bytes).details) {
      if (any.type_url.endsWith('/google.rpc.RetryInfo')) {
        const delay = RetryInfo.decode(any.value).retry_delay || {};
        return Number(delay.seconds || 0) * 1000 + (delay.nanos || 0) / 1e6;
      }
    }
  }
  return null;
}

/**
 * Whether a failed call is to be sent again on the node the route now points to (a redirect, a move), after
 * the delay it waits for here. The same request: it changed nothing where it was refused.
 */
async function followed(route, error) {
  const delay = route.follow(error, errorInfo(error), retryDelayMs(error), TRANSIENT.has(error.code));
  if (delay === null) return false;
  await sleep(delay);
  return true;
}

function describeError(error) {
  const info = errorInfo(error);
  const code = grpc.status[error.code] || error.code;
  return info ? `${code} ${info.reason}: ${error.details}` : `${code}: ${error.details}`;
}

// ---------------------------------------------------------------- small tools

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

/** Exponential backoff with full jitter: 0.1 s, 0.2 s, ... capped at 5 s. */
function backoff(attempt) {
  const ceiling = Math.min(5000, 100 * 2 ** Math.min(attempt, 10));
  return ceiling / 2 + Math.random() * (ceiling / 2);
}

/** A seeded generator (mulberry32) when --seed is given, so a game can be replayed; Math.random otherwise. */
function randomSource(seed) {
  if (seed === null) return Math.random;
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Call a unary method; resolves with the response, rejects with the grpc-js error. */
function unary(client, method, request, metadata, deadlineSeconds = 15) {
  const md = metadata || new grpc.Metadata();
  md.set('x-request-id', crypto.randomUUID()); // optional: lets the server's log lines be correlated
  return new Promise((resolve, reject) => {
    client[method](
      request,
      md,
      { deadline: Date.now() + deadlineSeconds * 1000, waitForReady: true },
      (error, response) => (error ? reject(error) : resolve(response)),
    );
  });
}

/** Codes after which the same call may succeed later: the server was away, or the connection was cut. */
const TRANSIENT = new Set([
  grpc.status.UNAVAILABLE,
  grpc.status.DEADLINE_EXCEEDED,
  grpc.status.CANCELLED,
  grpc.status.INTERNAL,
  grpc.status.UNKNOWN,
  grpc.status.RESOURCE_EXHAUSTED,
]);

class GapError extends Error {}
class GiveUp extends Error {}

/**
 * Call a unary method that is safe to retry (CreateTable with a request_id, JoinTable with a seat_token of
 * our own), retrying the identical request on transport errors with backoff for up to `seconds`.
 */
async function retried(route, method, request, seconds = 30) {
  const until = Date.now() + seconds * 1000;
  for (let attempt = 0; ; attempt += 1) {
    try {
      const response = await unary(route.client(), method, request);
      route.answered();
      return response;
    } catch (error) {
      if (Date.now() < until && (await followed(route, error))) continue;
      const reason = (errorInfo(error) || {}).reason;
      if (!TRANSIENT.has(error.code) || reason !== undefined || Date.now() > until) throw error;
      console.error(`play.js: ${method} failed (${describeError(error)}); retrying the same request`);
      await sleep(backoff(attempt));
    }
  }
}

/**
 * One message of a stream as the one-event messages it stands for. A batched message (StreamEvents with
 * batch_events, and every update of a Play stream) holds the first event of a batch in `event` and the
 * others in `more_events`, numbered sequence + 1, sequence + 2, ...; its turn belongs after the last. Any
 * other message (a snapshot, a turn-only message, a single event) stands for itself.
 */
function unbatched(message) {
  if (message.payload !== 'event' || !message.more_events || !message.more_events.length) return [message];
  const first = BigInt(message.sequence);
  const events = [message.event, ...message.more_events];
  return events.map((event, i) => ({
    sequence: (first + BigInt(i)).toString(),
    payload: 'event',
    event,
    turn: i === events.length - 1 ? message.turn : null,
  }));
}

/** Refusals that only mean the table moved on without this action: read on to this seat's next Turn. */
const MOVED_ON = new Set(['STALE_SEQUENCE', 'NOT_YOUR_TURN', 'GAME_OVER']);

/** Refusals after which the same request (the same request_id) is sent again later: nothing was applied. */
const TRY_AGAIN = new Set(['RATE_LIMITED', 'STORE_UNAVAILABLE', 'TABLE_MOVING']);

/** How long to wait before sending a request refused with a TRY_AGAIN reason once more, in ms. */
function tryAgainIn(refusal, attempt) {
  const delay = refusal.retry_delay; // RATE_LIMITED, TABLE_MOVING: when to send it again
  if (delay && (delay.seconds || delay.nanos)) return Number(delay.seconds) * 1000 + delay.nanos / 1e6;
  return backoff(attempt); // STORE_UNAVAILABLE: the server's store failed; back off
}

// ---------------------------------------------------------------- one seat

class Seat {
  constructor(route, tableId, seat, token, options, verifier) {
    this.route = route; // the node that serves the table, among those known
    this.verifier = verifier; // checks every deal this seat's stream reveals (fair.js)
    this.tableId = tableId;
    this.seat = seat;
    this.token = token;
    this.options = options;
    this.random = randomSource(options.seed);
    this.deadline = options.maxSeconds > 0 ? Date.now() + options.maxSeconds * 1000 : Infinity;
    this.usePlay = !options.unary; // false: StreamEvents + SubmitAction (--unary, or a server without Play)
    // BigInt: the sequence number of the last message received. The first stream starts after 0, at the
    // table's first event: it then holds the commitment of the deal in progress when the seat was taken.
    // With --snapshot (null) it starts from a snapshot, whose Snapshot.deal holds what that check needs.
    this.lastSeen = options.snapshot ? null : 0n;
    this.decided = null; // BigInt: the sequence number of the last Turn this seat acted on
    this.unanswered = new Map(); // request_id -> the action's request: sent on a Play stream, no result yet
    this.finished = false;
    this.winner = null;
    this.standings = [];
    this.stopped = null; // {reason, message}: the server stopped the table before its game ended
    this.forfeited = false; // the seat forfeited on time (SEAT_FORFEITED): the server's bot plays it now
    this.actions = 0;
    this.events = 0;
    this.deals = 0;
    this.reconnects = 0;
    this.snapshots = 0;
    this.snapshotSequence = 0n; // where this client's log starts: the first event, or a resync's snapshot
    this.staleTurns = 0;
    this.resubmitted = 0;
    this.dropping = false; // set while this client cancels its own stream on purpose (--drop-every)
  }

  metadata() {
    const md = new grpc.Metadata();
    md.set('x-seat-token', this.token);
    return md;
  }

  timeLeft() {
    return this.deadline - Date.now();
  }

  /** Stream and play until the game is over, resuming the stream whenever it drops. */
  async play() {
    let failures = 0;
    while (!this.finished) {
      if (this.timeLeft() <= 0) throw new GiveUp('--max-seconds reached');
      let received = 0;
      let fellBack = false;
      try {
        received = this.usePlay ? await this.playOnce() : await this.streamOnce();
      } catch (error) {
        if (error instanceof GiveUp || error instanceof Refused) throw error;
        if (!(error instanceof GapError) && (await followed(this.route, error))) {
          // Served elsewhere now (or soon): resume there, after the last message seen, at once.
          console.error(`play.js: ${describeError(error)}; resuming at ${this.route.address}`);
          await this.resubmitUnanswered();
          this.reconnects += 1;
          continue;
        }
        if (error instanceof GapError) {
          // Never expected from this server: start over from a fresh snapshot rather than guess.
          console.error(`play.js: ${error.message}; resynchronizing from a snapshot`);
          this.lastSeen = null;
        } else if (error.code === grpc.status.UNIMPLEMENTED && this.usePlay) {
          // A server older than Play: stream and act the way it knows. Not a lost connection.
          console.error('play.js: the server has no Play method; using StreamEvents and SubmitAction');
          this.usePlay = false;
          fellBack = true;
        } else if (error.code === undefined || !TRANSIENT.has(error.code)) {
          throw error; // TABLE_NOT_FOUND, SEAT_TOKEN_INVALID, ...: retrying cannot help
        } else if (!(error.code === grpc.status.CANCELLED && this.dropping)) {
          console.error(`play.js: stream dropped (${describeError(error)}); resuming`);
        }
      }
      // Actions sent on a Play stream that ended before their results came: the same requests again.
      await this.resubmitUnanswered();
      if (this.finished || fellBack) continue;
      // The stream ended (or dropped) before the game did: resume after the last message seen.
      failures = received > 0 ? 1 : failures + 1;
      this.reconnects += 1;
      if (!this.dropping) await sleep(Math.min(backoff(failures), Math.max(0, this.timeLeft())));
      this.dropping = false;
    }
  }

  /** Cancel `call` when --max-seconds runs out; returns the timer to clear, or null. */
  deadlineTimer(call) {
    if (!Number.isFinite(this.deadline)) return null;
    return setTimeout(() => call.cancel(), Math.max(0, this.timeLeft()));
  }

  /**
   * One Play call: the seat's updates in, its actions out on the same stream, each action's result back.
   * Returns the number of messages received when the server ends it.
   */
  async playOnce() {
    const call = this.route.client().Play(this.metadata());
    const timer = this.deadlineTimer(call);
    const start = { table_id: this.tableId };
    if (this.lastSeen !== null) start.after_sequence = this.lastSeen.toString();
    call.write({ start }); // the first message, and only the first
    let received = 0;
    try {
      for await (const response of call) {
        received += 1;
        let decision = null; // the message whose Turn asks this seat to act, and that Turn
        if (response.update) {
          for (const message of unbatched(response.update)) {
            const turn = this.receive(message);
            if (turn) decision = [message, turn];
          }
        }
        // A result comes after the events its action produced: in the same message as their update, or later.
        if (response.result) {
          const again = this.settle(response.result);
          if (again) {
            await sleep(again.delay); // nothing was applied: the same request again, on this stream
            const { request_id, last_seen_sequence, action } = again.request;
            call.write({ action: { request_id, last_seen_sequence, action } });
          }
        }
        if (this.finished) {
          if (!this.unanswered.size) break;
          continue; // the server ends the stream once the result of the action in hand is out
        }
        if (decision) {
          const request = this.decide(...decision);
          if (request) {
            this.unanswered.set(request.request_id, request);
            const { request_id, last_seen_sequence, action } = request;
            call.write({ action: { request_id, last_seen_sequence, action } });
          }
        }
        if (this.options.dropEvery > 0 && received % this.options.dropEvery === 0) {
          this.dropping = true; // a deliberate drop, to exercise resumption (often with an action unanswered)
          break;
        }
      }
    } catch (error) {
      if (this.timeLeft() <= 0) throw new GiveUp('--max-seconds reached');
      throw error;
    } finally {
      if (timer) clearTimeout(timer);
      this.stop(call); // a no-op when the server ended the stream; otherwise frees it at once
    }
    return received;
  }

  /** One StreamEvents call (batched), actions through SubmitAction: the messages received when it ends. */
  async streamOnce() {
    const request = { table_id: this.tableId, batch_events: true };
    if (this.lastSeen !== null) request.after_sequence = this.lastSeen.toString();
    const call = this.route.client().StreamEvents(request, this.metadata());
    const timer = this.deadlineTimer(call);
    let received = 0;
    try {
      for await (const batch of call) {
        received += 1;
        for (const message of unbatched(batch)) {
          const turn = this.receive(message);
          if (this.finished) break;
          if (turn) await this.act(message, turn);
        }
        if (this.finished) break;
        if (this.options.dropEvery > 0 && received % this.options.dropEvery === 0) {
          this.dropping = true; // a deliberate drop, to exercise resumption
          break;
        }
      }
    } catch (error) {
      if (this.timeLeft() <= 0) throw new GiveUp('--max-seconds reached');
      throw error;
    } finally {
      if (timer) clearTimeout(timer);
      this.stop(call); // a no-op when the server ended the stream; otherwise frees it at once
    }
    return received;
  }

  /** End a stream this client no longer reads (its CANCELLED status is then expected, not an error). */
  stop(call) {
    call.on('error', () => {});
    call.cancel();
  }

  /** Take one (one-event) message in; returns the Turn when this seat must act on it, else null. */
  receive(message) {
    const sequence = BigInt(message.sequence);
    switch (message.payload) {
      case 'snapshot': {
        // The first message of a fresh stream, or a resynchronization of a lagging one: start over from it.
        // On a fair table its deal in progress goes to the check first, as if its start had been seen.
        if (this.events === 0) this.snapshotSequence = sequence;
        this.snapshots += 1;
        this.lastSeen = sequence;
        for (const line of this.verifier.catchUp(message.snapshot.deal)) this.verdict(line);
        const table = message.snapshot.table;
        const view = message.snapshot.view && message.snapshot.view.thousand;
        if (table && table.status === 'TABLE_STATUS_FINISHED') {
          if (table.stop_reason && table.stop_reason !== 'STOP_REASON_UNSPECIFIED') {
            this.tableStopped(table.stop_reason, 'the server stopped the table');
          } else if (view) {
            this.gameOver(view.winner, view.standings);
          }
        }
        break;
      }
      case 'event': {
        if (this.lastSeen !== null && sequence <= this.lastSeen) return null; // already seen: never twice
        if (this.lastSeen !== null && sequence !== this.lastSeen + 1n) {
          throw new GapError(`expected event ${this.lastSeen + 1n}, got ${sequence}`);
        }
        this.lastSeen = sequence;
        this.events += 1;
        this.onEvent(message.event, sequence);
        break;
      }
      default:
        // No payload: a resumed stream that missed nothing starts with the turn alone, at the current
        // sequence number. (A payload case newer than this client would read the same way, and is skipped.)
        if (this.lastSeen === null || sequence > this.lastSeen) this.lastSeen = sequence;
    }
    const turn = message.turn;
    if (!turn || turn.seat === undefined || turn.seat !== this.seat) return null;
    if (!turn.legal_actions.length) return null; // not this seat's own stream: no actions to choose from
    return turn;
  }

  /** A deal check's line: a failure on stderr, always; a deal verified on stdout unless --quiet. */
  verdict(line) {
    if (line && line.startsWith('FAILED')) console.error(`play.js: ${line}`);
    else if (line && !this.options.quiet) console.log(line);
  }

  onEvent(event, sequence) {
    if (event.event === 'seat_taken') this.verifier.seatTaken(event.seat_taken.seat, sequence);
    if (event.event === 'table_stopped') {
      this.tableStopped(event.table_stopped.reason, event.table_stopped.message);
      return;
    }
    if (event.event !== 'thousand') return; // seat_taken, seat_released, or a case this client does not know
    const e = event.thousand;
    this.verdict(this.verifier.see(e, sequence));
    switch (e.event) {
      case 'deal_scored': {
        this.deals += 1;
        if (!this.options.quiet) {
          const d = e.deal_scored;
          const outcome =
            typeof d.outcome === 'string' ? d.outcome.replace('OUTCOME_', '').toLowerCase() : d.outcome;
          console.log(
            `deal ${d.number}: seat ${d.declarer} ${outcome} ${d.contract}; scores ${d.totals.join(' / ')}`,
          );
        }
        break;
      }
      case 'game_over':
        this.gameOver(e.game_over.winner, e.game_over.standings);
        break;
      default:
        break; // every other event (and any unknown one) needs nothing from a player that reads Turns
    }
  }

  /** The server stopped the table (TableStopped): the end of the game as GameOver is, without a winner. */
  tableStopped(reason, message) {
    this.finished = true;
    this.stopped = { reason, message };
  }

  gameOver(winner, standings) {
    this.finished = true;
    this.winner = winner;
    this.standings = standings.map((s) => ({
      seat: s.seat,
      place: s.place,
      score: s.score,
      payout: s.payout,
    }));
  }

  /**
   * This seat's decision on a Turn: a random legal action in a request with a fresh request_id, or null for
   * a Turn already decided on (a resumed stream repeats the current Turn): one decision, one request_id.
   */
  decide(message, turn) {
    if (this.forfeited) return null; // the bot plays the seat to the end; this client only watches
    const sequence = BigInt(message.sequence);
    if (this.decided !== null && sequence <= this.decided) return null;
    // Only actions this client understands: one of a newer contract would decode here without its case,
    // and re-encode as an empty (malformed) action.
    const known = turn.legal_actions.filter((a) => a.game === 'thousand' && a.thousand.action !== undefined);
    if (!known.length) throw new Error(`no legal action this client knows at sequence ${message.sequence}`);
    this.decided = sequence;
    return {
      table_id: this.tableId,
      request_id: crypto.randomUUID(),
      last_seen_sequence: message.sequence,
      action: known[Math.floor(this.random() * known.length)],
    };
  }

  /** An action's outcome, from a Play result or a SubmitAction call: counted, or the end of the client. */
  outcome(refusal) {
    if (!refusal) {
      this.actions += 1;
    } else if (MOVED_ON.has(refusal.reason)) {
      // The table moved on (this turn was acted on already, e.g. by a retry whose reply was lost): the
      // stream brings the next Turn.
      this.staleTurns += 1;
    } else if (refusal.reason === 'SEAT_FORFEITED') {
      // This client was away past its turn clock (TIMEOUT_POLICY_FORFEIT): watch the rest of the game.
      if (!this.forfeited) console.error('play.js: the seat forfeited on time; watching the rest of the game');
      this.forfeited = true;
    } else {
      throw new Refused(refusal); // ILLEGAL_ACTION, REQUEST_ID_REUSED, ...: a bug of this client
    }
  }

  /**
   * A Play stream's ActionResult: the outcome of the unanswered action with its request_id. Returns the
   * request to send again and when, for a refusal that asks for that (RATE_LIMITED, STORE_UNAVAILABLE).
   */
  settle(result) {
    const request = this.unanswered.get(result.request_id);
    if (!request) {
      // Not an action this client is waiting for (never expected; an unreadable request's result has no id):
      // a refusal of it is a bug of this client all the same.
      if (result.refusal) throw new Refused(result.refusal);
      return null;
    }
    if (result.refusal && TRY_AGAIN.has(result.refusal.reason)) {
      request.attempts = (request.attempts || 0) + 1;
      console.error(`play.js: ${result.refusal.reason}: ${result.refusal.message}; sending it again`);
      return { request, delay: tryAgainIn(result.refusal, request.attempts) };
    }
    this.unanswered.delete(result.request_id);
    this.outcome(result.refusal);
    return null;
  }

  /** SubmitAction for each action a Play stream took but did not answer before it ended: the same request. */
  async resubmitUnanswered() {
    for (const [requestId, request] of this.unanswered) {
      this.unanswered.delete(requestId);
      if (!this.dropping) {
        console.error(`play.js: no result for action ${requestId}; submitting it again (same request_id)`);
      }
      this.resubmitted += 1;
      await this.submit(request);
    }
  }

  /** Decide on a Turn and submit the action (the StreamEvents + SubmitAction way). */
  async act(message, turn) {
    const request = this.decide(message, turn);
    if (request) await this.submit(request);
  }

  /** SubmitAction, retried with the same request (the same request_id) on transport errors: applied once. */
  async submit(request) {
    for (let attempt = 1; ; attempt++) {
      try {
        await unary(this.route.client(), 'SubmitAction', request, this.metadata(), 10);
        this.route.answered();
        this.outcome(null);
        return;
      } catch (error) {
        const info = errorInfo(error);
        if (info && info.reason === 'TABLE_ELSEWHERE' && (await followed(this.route, error))) continue;
        if (info && TRY_AGAIN.has(info.reason) && this.timeLeft() > 0) {
          // Nothing was applied (the limit, or the store): the same request again, after a while.
          console.error(`play.js: SubmitAction: ${describeError(error)}; retrying the same request_id`);
          await sleep(backoff(attempt));
          continue;
        }
        if (info) {
          const { reason, metadata } = info;
          this.outcome({ code: error.code, reason, message: error.details, metadata });
          return;
        }
        if (!TRANSIENT.has(error.code)) throw error;
        if (this.timeLeft() <= 0) throw new GiveUp('--max-seconds reached');
        console.error(`play.js: SubmitAction failed (${describeError(error)}); retrying the same request_id`);
        await sleep(backoff(attempt));
      }
    }
  }
}

// ---------------------------------------------------------------- main

async function main() {
  const options = parseArgs(process.argv.slice(2));
  const started = Date.now();
  const route = new Route(
    options.server,
    (address) => new thousand.TableService(address, grpc.credentials.createInsecure()),
  );

  const create = {
    game: 'GAME_KIND_THOUSAND',
    seats: [
      { kind: 'SEAT_KIND_OPEN' },
      { kind: 'SEAT_KIND_BOT', strategy: options.strategy },
      { kind: 'SEAT_KIND_BOT', strategy: options.strategy },
    ],
  };
  if (options.seed !== null) {
    create.seed = String(options.seed);
    create.practice = true; // a seed makes every card known to whoever knows it: a practice table
  }
  // A request_id and a seat token of our own make CreateTable and JoinTable safe to retry: a retry after a
  // lost reply gets the same table and the same seat back, never a second one.
  create.request_id = crypto.randomUUID();
  const table = options.table
    ? (await retried(route, 'GetTable', { table_id: options.table })).table
    : (await retried(route, 'CreateTable', create)).table;
  route.go(table.endpoint); // in a cluster: the node that serves the table
  // The table's commitment, read before this seat's seed is sent: every deal is checked against both.
  const commitment = table.fairness ? table.fairness.commitment : '';
  const join = {
    table_id: table.table_id,
    seat: 0,
    player_name: options.name,
    seat_token: crypto.randomBytes(32).toString('base64url'),
    client_seed: newClientSeed(), // the same on a retry of this join
  };
  const joined = await retried(route, 'JoinTable', join);
  const verifier = new DealVerifier(commitment, joined.seat, join.client_seed, BigInt(joined.table.sequence));
  if ((joined.table.fairness ? joined.table.fairness.commitment : '') !== commitment) {
    verifier.fail("the table's commitment changed when the seat was taken");
  }
  if (!options.quiet) {
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
  };
  console.log(JSON.stringify(result));
  return seat.finished ? 0 : 2;
}

main().then(
  (code) => process.exit(code),
  (error) => {
    console.error(`play.js: ${error.code !== undefined ? describeError(error) : error.stack || error}`);
    process.exit(1);
  },
);
