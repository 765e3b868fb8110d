// The thousand.v1 contract as this client reads it: the TableService loaded from the .proto files in
// ../../../proto at run time (nothing is generated), the error details the server sends with a failed call
// (google.rpc.ErrorInfo and RetryInfo), and what each status code and refusal reason asks a client to do.
'use strict';

const path = require('node:path');
const grpc = require('@grpc/grpc-js');
const protoLoader = require('@grpc/proto-loader');
const protobuf = require('protobufjs');

const PROTO_ROOT = path.resolve(__dirname, '..', '..', '..', 'proto');

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
const { TableService } = grpc.loadPackageDefinition(definition).thousand.v1;

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
    this.retryDelayMs = durationMs(refusal.retry_delay);
  }
}

/** A google.protobuf.Duration (an ActionRefusal's retry_delay) in ms, or null when it is unset or zero. */
function durationMs(delay) {
  return delay && (delay.seconds || delay.nanos) ? Number(delay.seconds) * 1000 + delay.nanos / 1e6 : null;
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

function describeError(error) {
  const info = errorInfo(error);
  const code = grpc.status[error.code] || error.code;
  return info ? `${code} ${info.reason}: ${error.details}` : `${code}: ${error.details}`;
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

/** Refusals that only mean the table moved on without this action: read on to this seat's next Turn. */
const MOVED_ON = new Set(['STALE_SEQUENCE', 'NOT_YOUR_TURN', 'GAME_OVER']);

/** Refusals after which the same request (the same request_id) is sent again later: nothing was applied. */
const TRY_AGAIN = new Set(['RATE_LIMITED', 'STORE_UNAVAILABLE', 'TABLE_MOVING']);

module.exports = {
  TableService,
  Refused,
  errorInfo,
  retryDelayMs,
  durationMs,
  describeError,
  TRANSIENT,
  MOVED_ON,
  TRY_AGAIN,
};
