// The server's TableService over Connect (or gRPC-Web) from a browser, and its errors in words.
//
// One origin: the page is served by the server, so the transport's base URL is the page's own and no CORS is
// needed. The seat token travels as the `x-seat-token` header, as in gRPC metadata. Every refusal carries a
// google.rpc.ErrorInfo detail whose `reason` the client branches on (docs/protocol.md, "Errors"); it is read
// here with protobuf's wire reader, the contract's .proto files not including google/rpc.
import { Code, ConnectError, createClient, type Client, type Interceptor, type Transport } from "@connectrpc/connect";
import { createConnectTransport, createGrpcWebTransport } from "@connectrpc/connect-web";
import { BinaryReader } from "@bufbuild/protobuf/wire";
import { TableService } from "./gen/thousand/v1/table_service_pb";

export type TableClient = Client<typeof TableService>;

export type Protocol = "connect" | "grpc-web";

export const SEAT_TOKEN_HEADER = "x-seat-token";

export const AUTHORIZATION_HEADER = "authorization";

/** Whose credential a call carries (docs/protocol.md, "Players"): the player signed in on this page, or for a
 * seat's calls the credential of the player who took that seat, when this page still holds it (a guest's seat
 * after signing in with an account), else none (the seat token alone: an anonymous seat). players/ sets it;
 * without it every call is anonymous, as before players. */
export interface Credentials {
  /** The page's player's bearer credential (refreshed first when it is about to expire), if any. */
  current(): Promise<string | undefined>;
  /** The credential to send beside this seat token. */
  forSeat(seatToken: string): Promise<string | undefined>;
  /** The page's player's id, if any: the owner recorded with a seat it takes. */
  playerId(): string | undefined;
}

const ANONYMOUS: Credentials = { current: async () => undefined, forSeat: async () => undefined, playerId: () => undefined };
let credentials: Credentials = ANONYMOUS;

export function useCredentials(source: Credentials | undefined): void {
  credentials = source ?? ANONYMOUS;
}

export function currentPlayerId(): string | undefined {
  return credentials.playerId();
}

/** The page's player's credential, if any: sent beside a finished seat's token that the page's player took
 * (a rematch: the new seat is theirs too), when storage no longer names the seat's player. */
export function playerCredential(): Promise<string | undefined> {
  return credentials.current();
}

/** Adds `authorization: Bearer ...` to every call that has none (see Credentials). */
export const bearer: Interceptor = (next) => async (req) => {
  if (!req.header.has(AUTHORIZATION_HEADER)) {
    const seat = req.header.get(SEAT_TOKEN_HEADER);
    const credential = seat ? await credentials.forSeat(seat) : await credentials.current();
    if (credential) req.header.set(AUTHORIZATION_HEADER, `Bearer ${credential}`);
  }
  return next(req);
};

export function transport(baseUrl: string, protocol: Protocol = "connect"): Transport {
  // Binary protobuf: smaller than JSON, and 64-bit sequence numbers stay exact (bigint).
  const interceptors = [bearer];
  return protocol === "grpc-web"
    ? createGrpcWebTransport({ baseUrl, useBinaryFormat: true, interceptors })
    : createConnectTransport({ baseUrl, useBinaryFormat: true, interceptors });
}

export function tableClient(baseUrl: string, protocol: Protocol = "connect"): TableClient {
  return createClient(TableService, transport(baseUrl, protocol));
}

export function seatHeaders(token: string | undefined): Record<string, string> {
  return token ? { [SEAT_TOKEN_HEADER]: token } : {};
}

/** A refusal or failure of a call, as the client acts on it. */
export interface Failure {
  code: Code;
  /** The ErrorInfo reason (TABLE_NOT_FOUND, ILLEGAL_ACTION, ...); "" for a transport failure. */
  reason: string;
  message: string;
  /** ErrorInfo metadata: `rule` for ILLEGAL_ACTION, `field` for INVALID_ARGUMENT. */
  metadata: Record<string, string>;
  /** RATE_LIMITED: the RetryInfo delay, in milliseconds. */
  retryDelayMs?: number;
}

const ERROR_INFO = "google.rpc.ErrorInfo";
const RETRY_INFO = "google.rpc.RetryInfo";

function readErrorInfo(bytes: Uint8Array): { reason: string; metadata: Record<string, string> } {
  const reader = new BinaryReader(bytes);
  let reason = "";
  const metadata: Record<string, string> = {};
  while (reader.pos < reader.len) {
    const [field, wireType] = reader.tag();
    if (field === 1) reason = reader.string();
    else if (field === 3) {
      const entry = new BinaryReader(reader.bytes());
      let key = "";
      let value = "";
      while (entry.pos < entry.len) {
        const [f, w] = entry.tag();
        if (f === 1) key = entry.string();
        else if (f === 2) value = entry.string();
        else entry.skip(w);
      }
      metadata[key] = value;
    } else reader.skip(wireType);
  }
  return { reason, metadata };
}

function readRetryDelayMs(bytes: Uint8Array): number | undefined {
  const reader = new BinaryReader(bytes);
  while (reader.pos < reader.len) {
    const [field, wireType] = reader.tag();
    if (field !== 1) {
      reader.skip(wireType);
      continue;
    }
    const duration = new BinaryReader(reader.bytes());
    let seconds = 0;
    let nanos = 0;
    while (duration.pos < duration.len) {
      const [f, w] = duration.tag();
      if (f === 1) seconds = Number(duration.int64());
      else if (f === 2) nanos = duration.int32();
      else duration.skip(w);
    }
    return seconds * 1000 + nanos / 1e6;
  }
  return undefined;
}

/** Any thrown value as a Failure: a ConnectError's code, reason and details, or a transport failure. */
export function failure(error: unknown): Failure {
  const e = ConnectError.from(error);
  const result: Failure = { code: e.code, reason: "", message: e.rawMessage, metadata: {} };
  for (const detail of e.details) {
    if (!("type" in detail) || !(detail.value instanceof Uint8Array)) continue;
    const type = detail.type.replace(/^type\.googleapis\.com\//, "");
    if (type === ERROR_INFO) Object.assign(result, readErrorInfo(detail.value));
    else if (type === RETRY_INFO) {
      const delay = readRetryDelayMs(detail.value);
      if (delay !== undefined) result.retryDelayMs = delay;
    }
  }
  return result;
}

/** A failure worth retrying unchanged: the server away or the connection lost, a store or rate hiccup. */
export function retryable(f: Failure): boolean {
  if (f.reason === "RATE_LIMITED" || f.reason === "STORE_UNAVAILABLE") return true;
  if (f.reason !== "") return false;
  return [Code.Unavailable, Code.Unknown, Code.DeadlineExceeded, Code.Internal, Code.Aborted].includes(f.code);
}

/** The refusals that only say the page was behind the table when its player acted: another move came first
 * (STALE_SEQUENCE: the view the decision was made on is out of date), the turn had passed (NOT_YOUR_TURN),
 * or the game ended (GAME_OVER). The player did nothing wrong, so a page shows no error for them: it drops
 * the attempt and catches up with the table (docs/protocol.md, "From a browser"). Every other refusal
 * (ILLEGAL_ACTION with its rule, SEAT_FORFEITED, ...) is the player's to read, in words. */
const OVERTAKEN = new Set(["STALE_SEQUENCE", "NOT_YOUR_TURN", "GAME_OVER"]);

/** Whether an action's refusal only says the table moved on before it arrived (see OVERTAKEN). */
export function overtaken(f: Failure): boolean {
  return OVERTAKEN.has(f.reason);
}

/** Exponential backoff with jitter, capped (docs/protocol.md, "Durability"). */
export function backoffMs(attempt: number, baseMs = 100, capMs = 5000): number {
  const ceiling = Math.min(capMs, baseMs * 2 ** Math.min(attempt, 16));
  return ceiling / 2 + Math.random() * (ceiling / 2);
}

export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal?.aborted) return resolve();
    const timer = setTimeout(done, ms);
    function done(): void {
      clearTimeout(timer);
      signal?.removeEventListener("abort", done);
      resolve();
    }
    signal?.addEventListener("abort", done, { once: true });
  });
}

/** A secret from the platform's CSPRNG, base64url: a seat token (32 bytes: 43 characters) or request id. */
export function randomToken(bytes = 32): string {
  const raw = new Uint8Array(bytes);
  crypto.getRandomValues(raw);
  let text = "";
  for (const b of raw) text += String.fromCharCode(b);
  return btoa(text).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
}
