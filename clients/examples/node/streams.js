// The seat's stream, the two ways the contract offers: one bidirectional Play call (the seat's updates in,
// its actions out, each action's result back), or one StreamEvents call with the actions sent through
// SubmitAction. Each call reads until the server ends it, the game ends, --drop-every cancels it or
// --max-seconds runs out, and hands every message to the seat (seat.js) one event at a time: `receive`
// takes a message in and returns the Turn this seat must act on, `decide` turns a Turn into a request,
// `settle` reads a Play result, `act` decides and submits. Resuming a stream that ended is the seat's.
'use strict';

const { GiveUp, sleep } = require('./calls');

/** A stream skipped an event: never expected from the server; the seat starts over from a snapshot. */
class GapError extends Error {}

/**
 * One Play call: the seat's updates in, its actions out on the same stream, each action's result back.
 * Returns the number of messages received when the server ends it.
 */
async function playOnce(seat) {
  const call = seat.route.client().Play(seat.metadata());
  const timer = deadlineTimer(seat, call);
  const start = { table_id: seat.tableId };
  if (seat.lastSeen !== null) start.after_sequence = seat.lastSeen.toString();
  call.write({ start }); // the first message, and only the first
  let received = 0;
  try {
    for await (const response of call) {
      received += 1;
      let decision = null; // the message whose Turn asks this seat to act, and that Turn
      if (response.update) {
        for (const message of unbatched(response.update)) {
          const turn = seat.receive(message);
          if (turn) decision = [message, turn];
        }
      }
      // A result comes after the events its action produced: in the same message as their update, or later.
      if (response.result) {
        const again = seat.settle(response.result);
        if (again) {
          await sleep(again.delay); // nothing was applied: the same request again, on this stream
          const { request_id, last_seen_sequence, action } = again.request;
          call.write({ action: { request_id, last_seen_sequence, action } });
        }
      }
      if (seat.finished) {
        if (!seat.unanswered.size) break;
        continue; // the server ends the stream once the result of the action in hand is out
      }
      if (decision) {
        const request = seat.decide(...decision);
        if (request) {
          seat.unanswered.set(request.request_id, request);
          const { request_id, last_seen_sequence, action } = request;
          call.write({ action: { request_id, last_seen_sequence, action } });
        }
      }
      if (seat.options.dropEvery > 0 && received % seat.options.dropEvery === 0) {
        seat.dropping = true; // a deliberate drop, to exercise resumption (often with an action unanswered)
        break;
      }
    }
  } catch (error) {
    if (seat.timeLeft() <= 0) throw new GiveUp('--max-seconds reached');
    throw error;
  } finally {
    if (timer) clearTimeout(timer);
    stop(call); // a no-op when the server ended the stream; otherwise frees it at once
  }
  return received;
}

/** One StreamEvents call (batched), actions through SubmitAction: the messages received when it ends. */
async function streamOnce(seat) {
  const request = { table_id: seat.tableId, batch_events: true };
  if (seat.lastSeen !== null) request.after_sequence = seat.lastSeen.toString();
  const call = seat.route.client().StreamEvents(request, seat.metadata());
  const timer = deadlineTimer(seat, call);
  let received = 0;
  try {
    for await (const batch of call) {
      received += 1;
      for (const message of unbatched(batch)) {
        const turn = seat.receive(message);
        if (seat.finished) break;
        if (turn) await seat.act(message, turn);
      }
      if (seat.finished) break;
      if (seat.options.dropEvery > 0 && received % seat.options.dropEvery === 0) {
        seat.dropping = true; // a deliberate drop, to exercise resumption
        break;
      }
    }
  } catch (error) {
    if (seat.timeLeft() <= 0) throw new GiveUp('--max-seconds reached');
    throw error;
  } finally {
    if (timer) clearTimeout(timer);
    stop(call); // a no-op when the server ended the stream; otherwise frees it at once
  }
  return received;
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

/** Cancel `call` when --max-seconds runs out; returns the timer to clear, or null. */
function deadlineTimer(seat, call) {
  if (!Number.isFinite(seat.deadline)) return null;
  return setTimeout(() => call.cancel(), Math.max(0, seat.timeLeft()));
}

/** End a stream this client no longer reads (its CANCELLED status is then expected, not an error). */
function stop(call) {
  call.on('error', () => {});
  call.cancel();
}

module.exports = { GapError, playOnce, streamOnce };
