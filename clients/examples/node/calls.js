// Calling the service and calling it again: a unary call with its deadline, the retry of a request that is
// safe to send twice, a redirect or a move followed to the node that serves the table, and the waits in
// between (exponential backoff with jitter, or the delay the server asked for).
'use strict';

const crypto = require('node:crypto');
const grpc = require('@grpc/grpc-js');
const { errorInfo, retryDelayMs, describeError, durationMs, TRANSIENT } = require('./contract');

/** The client ran out of the time it was given (--max-seconds): it reports the game unfinished. */
class GiveUp extends Error {}

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

/** Exponential backoff with full jitter: 0.1 s, 0.2 s, ... capped at 5 s. */
function backoff(attempt) {
  const ceiling = Math.min(5000, 100 * 2 ** Math.min(attempt, 10));
  return ceiling / 2 + Math.random() * (ceiling / 2);
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
 * Whether a failed call is to be sent again on the node the route now points to (a redirect, a move), after
 * the delay it waits for here. The same request: it changed nothing where it was refused.
 */
async function followed(route, error) {
  const delay = route.follow(error, errorInfo(error), retryDelayMs(error), TRANSIENT.has(error.code));
  if (delay === null) return false;
  await sleep(delay);
  return true;
}

/** How long to wait before sending a request refused with a TRY_AGAIN reason once more, in ms. */
function tryAgainIn(refusal, attempt) {
  const delay = durationMs(refusal.retry_delay); // RATE_LIMITED, TABLE_MOVING: when to send it again
  return delay !== null ? delay : backoff(attempt); // STORE_UNAVAILABLE: the server's store failed; back off
}

module.exports = { GiveUp, sleep, backoff, unary, retried, followed, tryAgainIn };
