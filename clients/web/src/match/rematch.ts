// A rematch from the browser (MatchmakingService.Rematch, docs/protocol.md "Rematch"): after a finished game a
// seat asks to play again with the same players; the stream says how many of the seats played by people have
// accepted and ends with the seat at the new table (QuickPlayMatch, as quick play's), or with REMATCH_DECLINED
// when someone declined or the wait passed. The call goes to the finished table's owner (its votes are kept
// there), as the seat's: with the finished seat's token, or with the player's credential alone when the page
// no longer holds the token (a reload after the game: the seat's player is the page's player). Closing the
// stream withdraws the acceptance. Nothing is decided here: how many must accept, and who, is the server's.
import { createClient } from "@connectrpc/connect";
import { durationFromMs } from "@bufbuild/protobuf/wkt";
import { MatchmakingService, type QuickPlayMatch } from "../gen/thousand/v1/matchmaking_pb";
import { AUTHORIZATION_HEADER, failure, playerCredential, randomToken, seatHeaders, transport, type Failure } from "../api";
import type { MatchClient } from "./quickplay";

/** How long a seat waits for the others (the server's bound is 600 s). */
export const REMATCH_WAIT_MS = 120000;

export type RematchState =
  | { kind: "idle" }
  | { kind: "asking" }
  | { kind: "waiting"; accepted: number; needed: number }
  /** Someone declined (`declined`: this seat did when `mine`), or not everyone accepted in time (`timeout`). */
  | { kind: "declined"; why: string; mine: boolean }
  | { kind: "failed"; failure: Failure }
  | { kind: "matched"; match: QuickPlayMatch };

/** One finished seat's rematch: ask (accept), decline, or withdraw; `changed` after each step. */
export class Rematch {
  state: RematchState = { kind: "idle" };
  /** The new seat's token and seed, drawn once: an acceptance asked again (a broken stream) is the same. */
  readonly seatToken = randomToken(32);
  readonly clientSeed = randomToken(32);
  private controller: AbortController | undefined;

  constructor(
    readonly tableId: string,
    /** The finished seat's token; undefined: the player's credential names the seat. */
    private readonly token: string | undefined,
    /** The seat was taken by the page's player: their credential goes with the token, so the new seat is theirs. */
    private readonly asPlayer: boolean,
    private readonly origin: () => string,
    private readonly changed: () => void,
    private readonly make: (origin: string) => MatchClient = (o) => createClient(MatchmakingService, transport(o)),
  ) {}

  get busy(): boolean {
    return this.state.kind === "asking" || this.state.kind === "waiting";
  }

  accept(): Promise<void> {
    return this.run(true);
  }

  decline(): Promise<void> {
    return this.run(false);
  }

  /** Close the stream: the acceptance is withdrawn, and the panel offers the rematch again. */
  withdraw(): void {
    this.controller?.abort();
    this.controller = undefined;
    this.set({ kind: "idle" });
  }

  /** The page is closing: the stream goes with it (withdrawing an acceptance still open). */
  stop(): void {
    this.controller?.abort();
  }

  private async run(accept: boolean): Promise<void> {
    if (this.busy) return;
    const controller = new AbortController();
    this.controller = controller;
    this.set({ kind: "asking" });
    const request = {
      tableId: this.tableId,
      accept,
      seatToken: this.seatToken,
      clientSeed: this.clientSeed,
      maxWait: durationFromMs(REMATCH_WAIT_MS),
    };
    try {
      const headers = seatHeaders(this.token);
      const credential = this.token && this.asPlayer ? await playerCredential() : undefined;
      if (credential) headers[AUTHORIZATION_HEADER] = `Bearer ${credential}`;
      const messages = this.make(this.origin()).rematch(request, { headers, signal: controller.signal });
      for await (const message of messages) {
        if (controller.signal.aborted) return;
        const update = message.update;
        if (update.case === "waiting") this.set({ kind: "waiting", accepted: update.value.acceptedSeats.length, needed: update.value.seatsNeeded });
        else if (update.case === "matched") return this.set({ kind: "matched", match: update.value });
      }
      throw new Error("the rematch stream ended without a seat");
    } catch (error) {
      if (controller.signal.aborted) return;
      const f = failure(error);
      if (f.reason === "REMATCH_DECLINED") this.set({ kind: "declined", why: f.metadata["why"] ?? "declined", mine: !accept });
      else this.set({ kind: "failed", failure: f });
    } finally {
      if (this.controller === controller) this.controller = undefined;
    }
  }

  private set(state: RematchState): void {
    this.state = state;
    this.changed();
  }
}
