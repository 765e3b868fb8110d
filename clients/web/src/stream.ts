// One table's StreamEvents, kept open: batches expanded into events, the last sequence seen kept, duplicates
// skipped, a gap resynchronized from a snapshot, and every end without GameOver resumed with after_sequence
// after a backoff (docs/protocol.md, "Streams"). A page holds one such stream (a browser allows six HTTP/1.1
// connections per origin). A quiet stream cannot notice a dead connection by itself (fetch has no keepalive),
// so a watchdog asks GetTable now and then: a failure, or a table that moved on without the stream, reopens it.
// In a cluster the stream goes to the table's owner (route.ts): a TABLE_ELSEWHERE reopens it there at once,
// a TABLE_MOVING (the owner died or left, and another node is taking the table over) after its delay, and a
// node that cannot be reached is left for another; each time it resumes after the last event seen.
// When the page learns it is behind (its player's action refused because the table had moved on), it asks
// where the table is and, unless the stream gets there at once, resumes it without waiting for the watchdog.
import { Code } from "@connectrpc/connect";
import type { Event, Snapshot, Turn, StreamEventsResponse } from "./gen/thousand/v1/table_service_pb";
import { TableStatus } from "./gen/thousand/v1/table_service_pb";
import { backoffMs, failure, seatHeaders, sleep, type Failure } from "./api";
import type { Route } from "./route";
import { t } from "./i18n";

/** Why the stream was lost: it ended without the game's end, the connection was dropped or lost, or the
 * table is moving to another server (TABLE_MOVING). */
export type LostWhy = "ended" | "dropped" | "lost" | "moving";

/** Why the stream was lost, in words. */
export function streamWhy(why: LostWhy): string {
  return t("web.lost", { why });
}

export type StreamStatus =
  | { state: "connecting" }
  | { state: "live" }
  | { state: "retrying"; attempt: number; inMs: number; why: LostWhy }
  | { state: "ended" }
  | { state: "failed"; failure: Failure };

export interface StreamSink {
  /** A full picture: replaces whatever the client had. */
  snapshot(sequence: bigint, snapshot: Snapshot): void;
  /** The next event, exactly once, in order. */
  event(sequence: bigint, event: Event): void;
  /** Whose turn it is after the message (called for every message that carries a Turn, and turn-only ones). */
  turn(sequence: bigint, turn: Turn | undefined): void;
  status(status: StreamStatus): void;
}

export function isGameOver(event: Event): boolean {
  const e = event.event;
  return (
    (e.case === "thousand" && e.value.event.case === "gameOver") ||
    (e.case === "blagogo" && e.value.event.case === "gameOver") ||
    e.case === "tableStopped" // the server stopped the table: its last event, as a game's end is
  );
}

/** The reasons after which reopening the same stream cannot help (TABLE_ELSEWHERE: when it could not be
 * followed, an owner without a web port or redirects in circles). */
const FATAL = new Set(["TABLE_NOT_FOUND", "SEAT_TOKEN_INVALID", "SPECTATOR_CANNOT_ACT", "TABLE_ELSEWHERE"]);

class Resync extends Error {}

/** How long catchUp() lets the open stream bring the events the table is known to have, before it resumes. */
export const CATCH_UP_MS = 800;

export interface StreamOptions {
  token?: string;
  /** Resume after this sequence (no snapshot); unset: start with a snapshot. */
  lastSeen?: bigint;
  watchdogMs?: number;
}

export class EventStream {
  lastSeen: bigint | undefined;
  gameOver = false;
  /** How many times the stream was reopened after a loss (for the tests and the status line). */
  reconnects = 0;
  private stopped = false;
  private current: AbortController | undefined;
  private watchdog: ReturnType<typeof setInterval> | undefined;
  private seenAtCheck: bigint | undefined;
  /** The open connection has answered: a stream that has not, or is waiting to reconnect, is resumed at once. */
  private live = false;
  /** resume() asked for the connection to be dropped: reopen it at once, as no loss. */
  private resuming = false;
  /** Cuts a backoff short (resume()). */
  private wake = new AbortController();

  constructor(
    private readonly route: Route,
    readonly tableId: string,
    private readonly sink: StreamSink,
    private readonly options: StreamOptions = {},
  ) {
    this.lastSeen = options.lastSeen;
  }

  start(): void {
    void this.route.nodes.discover(this.route.origin); // the cluster's nodes, to go on with should this one die
    void this.run();
    const every = this.options.watchdogMs ?? 15000;
    if (every > 0) this.watchdog = setInterval(() => void this.check(), every);
  }

  stop(): void {
    this.stopped = true;
    if (this.watchdog !== undefined) clearInterval(this.watchdog);
    this.current?.abort();
  }

  /** Drop the current connection and resume (as after a network loss). */
  reconnect(): void {
    this.current?.abort();
  }

  /** Reopen the stream now, after the last event seen: no backoff, and no "connection lost" (nothing was). */
  resume(): void {
    if (this.stopped) return;
    this.resuming = true;
    this.current?.abort();
    this.wake.abort();
  }

  /** The page is behind the table (an action of its seat was refused as late): ask the table's owner where
   * the table is, give the open stream CATCH_UP_MS to get there (it usually has the events on their way),
   * and resume it otherwise (a stream that stalled without a word, which the watchdog would find only after
   * two of its checks). A stream not live, and a table that cannot be asked, are resumed at once. */
  async catchUp(): Promise<void> {
    if (this.stopped) return;
    if (!this.live) return this.resume();
    let sequence: bigint | undefined;
    try {
      const { table } = await this.route.call((c) => c.getTable({ tableId: this.tableId }, { timeoutMs: 5000 }), 2);
      sequence = table?.sequence;
    } catch {
      sequence = undefined;
    }
    for (const until = Date.now() + CATCH_UP_MS; sequence !== undefined && Date.now() < until; ) {
      if (this.lastSeen !== undefined && this.lastSeen >= sequence) return;
      await sleep(20);
    }
    if (sequence === undefined || this.lastSeen === undefined || this.lastSeen < sequence) this.resume();
  }

  private async run(): Promise<void> {
    let attempt = 0;
    while (!this.stopped) {
      const controller = new AbortController();
      this.current = controller;
      this.live = false;
      this.sink.status({ state: "connecting" });
      let why: LostWhy = "ended";
      let wait: number | undefined;
      const origin = this.route.origin;
      try {
        const messages = this.route.nodes.client(origin).streamEvents(
          { tableId: this.tableId, batchEvents: true, afterSequence: this.lastSeen },
          { headers: seatHeaders(this.options.token), signal: controller.signal },
        );
        for await (const message of messages) {
          if (!this.live) {
            this.live = true;
            attempt = 0;
            this.route.answered();
            this.sink.status({ state: "live" });
          }
          this.take(message);
        }
        if (this.gameOver) {
          this.stop();
          this.sink.status({ state: "ended" });
          return;
        }
        if (this.resumed()) continue;
      } catch (error) {
        if (this.stopped) return;
        if (this.resumed()) continue;
        if (error instanceof Resync) {
          this.lastSeen = undefined;
          continue;
        }
        const f = failure(error);
        wait = this.route.follow(f, origin);
        if (wait === 0) continue; // served elsewhere: resume there at once, after the last event seen
        if (f.reason === "INVALID_ARGUMENT" && f.metadata["field"] === "after_sequence") {
          this.lastSeen = undefined; // a sequence the table never reached: start afresh from a snapshot
          continue;
        }
        if (FATAL.has(f.reason)) {
          this.stop();
          this.sink.status({ state: "failed", failure: f });
          return;
        }
        why = f.reason === "TABLE_MOVING" ? "moving" : f.code === Code.Canceled ? "dropped" : "lost";
      }
      if (this.stopped) return;
      this.live = false; // lost: waiting to reconnect
      const inMs = Math.max(retryDelay(attempt), wait ?? 0);
      this.reconnects += 1;
      this.sink.status({ state: "retrying", attempt: attempt + 1, inMs, why });
      await sleep(inMs, this.wake.signal);
      if (this.resumed()) continue;
      attempt += 1;
    }
  }

  /** Whether resume() asked for the connection just lost; the request is taken. */
  private resumed(): boolean {
    if (!this.resuming) return false;
    this.resuming = false;
    this.wake = new AbortController();
    this.reconnects += 1;
    return true;
  }

  private take(message: StreamEventsResponse): void {
    const payload = message.payload;
    if (payload.case === "snapshot") {
      this.lastSeen = message.sequence;
      this.sink.snapshot(message.sequence, payload.value);
      if (payload.value.table?.status === TableStatus.FINISHED) this.gameOver = true;
    } else if (payload.case === "event") {
      const events = [payload.value, ...message.moreEvents];
      events.forEach((event, i) => {
        const sequence = message.sequence + BigInt(i);
        if (this.lastSeen !== undefined && sequence <= this.lastSeen) return; // seen already
        if (this.lastSeen !== undefined && sequence !== this.lastSeen + 1n) throw new Resync();
        this.lastSeen = sequence;
        this.sink.event(sequence, event);
        if (isGameOver(event)) this.gameOver = true;
      });
    } else if (this.lastSeen === undefined || message.sequence > this.lastSeen) {
      this.lastSeen = message.sequence; // a turn-only message
    }
    if (message.turn !== undefined || payload.case === undefined) this.sink.turn(this.lastSeen ?? 0n, message.turn);
  }

  private async check(): Promise<void> {
    if (this.stopped) return;
    void this.route.nodes.discover(this.route.origin); // the cluster's nodes as they are now, should this one die
    try {
      const { table } = await this.route.client.getTable({ tableId: this.tableId }, { timeoutMs: 5000 });
      const stuck = this.lastSeen !== undefined && this.lastSeen === this.seenAtCheck;
      this.seenAtCheck = this.lastSeen;
      // The table moved on while the stream said nothing since the last check: the connection is dead.
      if (stuck && table !== undefined && table.sequence > (this.lastSeen ?? 0n)) this.reconnect();
    } catch {
      this.reconnect();
    }
  }
}

function retryDelay(attempt: number): number {
  return attempt === 0 ? 50 : backoffMs(attempt);
}
