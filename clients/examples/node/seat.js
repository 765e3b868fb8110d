// One seat played to the end of its game: its stream resumed after every end that is not the game's (after
// the last event seen, with backoff), every message read once and in order, every Turn decided once with
// a fresh request_id, and every action sent until its outcome is known, always with that request_id. The
// stream calls themselves are in streams.js, what is particular to Thousand in thousand.js.
'use strict';

const crypto = require('node:crypto');
const grpc = require('@grpc/grpc-js');
const { Refused, errorInfo, describeError, TRANSIENT, MOVED_ON, TRY_AGAIN } = require('./contract');
const { GiveUp, sleep, backoff, unary, followed, tryAgainIn } = require('./calls');
const { GapError, playOnce, streamOnce } = require('./streams');
const { snapshotView, gameEvent, knownActions, dealLine } = require('./thousand');

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
        received = this.usePlay ? await playOnce(this) : await streamOnce(this);
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
        const view = snapshotView(message.snapshot);
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
    const e = gameEvent(event);
    if (e === null) return; // seat_taken, seat_released, or a case this client does not know
    this.verdict(this.verifier.see(e, sequence));
    switch (e.event) {
      case 'deal_scored': {
        this.deals += 1;
        if (!this.options.quiet) console.log(dealLine(e.deal_scored));
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
    const known = knownActions(turn); // only actions this client understands
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

module.exports = { Seat };
