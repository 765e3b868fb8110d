// Quick play from the browser (MatchmakingService, docs/protocol.md "Quick play"): the wish (game, players,
// rated, bots, wait) in the page's address, one QuickPlay stream that says where the player stands and ends
// with the seat. The seat token and the deals' seed are drawn once per wish and sent unchanged with every
// call, so a stream that breaks (a node died, the network blinked) is called again, on the next node the page
// knows, and keeps its place in the queue; closing the stream (Cancel, leaving the page) leaves the queue.
import { createClient, type Client } from "@connectrpc/connect";
import { durationFromMs } from "@bufbuild/protobuf/wkt";
import { MatchmakingService, type QuickPlayMatch, type QuickPlayWaiting } from "../gen/thousand/v1/matchmaking_pb";
import { GameKind } from "../gen/thousand/v1/table_service_pb";
import { backoffMs, failure, randomToken, retryable, sleep, transport, type Failure } from "../api";
import type { Nodes } from "../route";
import type { SeatRecord, SeatStore } from "../seats";

export type MatchClient = Client<typeof MatchmakingService>;

/** How long a broken stream is called again: within the minute the server keeps the place. */
export const KEEP_PLACE_MS = 50000;
export const WAITS_S = [30, 60, 120, 300] as const;

export interface Wish {
  game: GameKind;
  players: number;
  rated: boolean;
  botsMayFill: boolean;
  maxWaitS: number;
}

export const DEFAULT_WISH: Wish = { game: GameKind.THOUSAND, players: 3, rated: false, botsMayFill: false, maxWaitS: 60 };

/** The wish as the waiting page's address: `#/play/GAME/PLAYERS/RATED/BOTS/WAIT`. */
export function wishHash(w: Wish): string {
  return `#/play/${w.game}/${w.players}/${w.rated ? 1 : 0}/${w.botsMayFill ? 1 : 0}/${w.maxWaitS}`;
}

/** The wish in an address (the parts after `#/play/`); the defaults for what is missing or not a number. */
export function parseWish(parts: readonly string[]): Wish {
  const n = (i: number, fallback: number): number => {
    const v = Number(parts[i]);
    return parts[i] !== undefined && parts[i] !== "" && Number.isInteger(v) ? v : fallback;
  };
  return {
    game: n(0, DEFAULT_WISH.game) as GameKind,
    players: n(1, DEFAULT_WISH.players),
    rated: n(2, 0) === 1,
    botsMayFill: n(3, 0) === 1,
    maxWaitS: n(4, DEFAULT_WISH.maxWaitS),
  };
}

/** Where the caller stands, in the units a page shows. */
export interface Standing {
  waiting: number;
  needed: number;
  waitedS: number;
  /** Seconds left as the server estimates them; undefined when it cannot tell. */
  estimateS: number | undefined;
  ratingWindow: number;
}

function seconds(d: { seconds: bigint; nanos: number } | undefined): number {
  return d ? Number(d.seconds) + d.nanos / 1e9 : 0;
}

export function standing(w: QuickPlayWaiting): Standing {
  return {
    waiting: w.playersWaiting,
    needed: w.playersNeeded,
    waitedS: seconds(w.waited),
    estimateS: w.estimatedWait ? seconds(w.estimatedWait) : undefined,
    ratingWindow: w.ratingWindow,
  };
}

/** What the page hears while it waits. */
export interface Listener {
  waiting(s: Standing): void;
  /** The stream broke and is called again (the place kept). */
  reconnecting(f: Failure): void;
}

/** A place in the queue as the tab keeps it, so that a reload within the server's minute keeps it too. */
export interface Place {
  hash: string;
  seatToken: string;
  clientSeed: string;
  /** When the page last heard from its stream (ms since the epoch). */
  at: number;
}

/** One wish's place in the queue: its seat token and seed, the same on every call. */
export class QuickPlay {
  readonly seatToken: string;
  readonly clientSeed: string;
  private readonly clients = new Map<string, MatchClient>();

  constructor(
    readonly wish: Wish,
    readonly playerName: string,
    private readonly nodes: Nodes,
    private readonly make: (origin: string) => MatchClient = (origin) => createClient(MatchmakingService, transport(origin)),
    kept?: Place,
  ) {
    this.seatToken = kept?.seatToken ?? randomToken(32);
    this.clientSeed = kept?.clientSeed ?? randomToken(32);
  }

  private client(origin: string): MatchClient {
    let client = this.clients.get(origin);
    if (!client) this.clients.set(origin, (client = this.make(origin)));
    return client;
  }

  request() {
    const w = this.wish;
    return {
      game: w.game,
      players: w.players,
      preset: "standard",
      rated: w.rated,
      botsMayFill: w.botsMayFill,
      maxWait: durationFromMs(w.maxWaitS * 1000),
      seatToken: this.seatToken,
      playerName: this.playerName,
      clientSeed: this.clientSeed,
    };
  }

  /** Wait in the queue until matched (the match), cancelled (undefined) or refused (throws the refusal). */
  async run(listener: Listener, signal: AbortSignal): Promise<QuickPlayMatch | undefined> {
    let origin = this.nodes.home;
    let brokeAt: number | undefined;
    for (let attempt = 0; !signal.aborted; ) {
      try {
        for await (const message of this.client(origin).quickPlay(this.request(), { signal })) {
          if (signal.aborted) return undefined; // cancelled while this message was on its way
          brokeAt = undefined;
          attempt = 0;
          if (message.update.case === "waiting") listener.waiting(standing(message.update.value));
          else if (message.update.case === "matched") return message.update.value;
        }
        throw new Error("the stream ended without a seat");
      } catch (error) {
        if (signal.aborted) return undefined;
        const f = failure(error);
        brokeAt ??= Date.now();
        if (!retryable(f) || Date.now() - brokeAt > KEEP_PLACE_MS) throw error;
        listener.reconnecting(f);
        origin = this.nodes.after(origin);
        await sleep(backoffMs(attempt++, 200, 2000), signal);
      }
    }
    return undefined;
  }
}

/** The seat a match gave, kept as a joined seat is (join.ts), so that the table page plays it. */
export function keepMatch(store: SeatStore, nodes: Nodes, match: QuickPlayMatch, name: string, clientSeed: string, player?: string): SeatRecord {
  const table = match.table;
  nodes.learn(table?.webEndpoint ?? "");
  const record: SeatRecord = {
    tableId: table?.tableId ?? "",
    seat: match.seat,
    token: match.seatToken,
    name,
    clientSeed: table?.seeded ? undefined : clientSeed,
    commitment: table?.fairness?.commitment || undefined,
    joinedAt: table?.sequence.toString(),
  };
  if (player) record.player = player;
  if (match.note) record.matchNote = match.note;
  store.keep(record);
  store.dropState(record.tableId);
  return record;
}
