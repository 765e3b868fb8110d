// One table as a page follows it, for a seat or a spectator: the stream, the table and its seats, the game's
// model (the tracked view and its history), whose turn it is, the log, and the seat's actions.
//
// A fresh page replays the table's history from its first event (after_sequence 0), so the score sheet, the
// log and every deal's check are complete; a page that saved its state resumes right after the last event it
// had. Either way each event is applied, and logged, exactly once. A stream that has to start again from a
// snapshot (a gap, a resume the table refuses) hands the snapshot's deal in progress (Snapshot.deal) to the
// deal's check, which then checks that deal as if it had seen it begin. In a cluster the table's calls and its
// stream go to its owner, wherever it moves (route.ts).
import { create, equals, fromBinary, toBinary, type MessageShape } from "@bufbuild/protobuf";
import { ThousandViewSchema, type ThousandView } from "./gen/thousand/v1/thousand_views_pb";
import { BlagogoViewSchema, type BlagogoView } from "./gen/thousand/v1/blagogo_views_pb";
import {
  GameKind,
  SeatKind,
  SeatSchema,
  TableSchema,
  TableStatus,
  type Action,
  type DealInProgress,
  type Event,
  type Snapshot,
  type Table,
  type Turn,
} from "./gen/thousand/v1/table_service_pb";
import { failure, overtaken, randomToken, seatHeaders, type Failure } from "./api";
import { fromBase64, toBase64 } from "./base64";
import { BlagogoModel } from "./blagogo/model";
import { Route, type Nodes } from "./route";
import { EventStream, type StreamStatus } from "./stream";
import { ThousandModel } from "./thousand/model";
import { botName, capital, t } from "./i18n";
import { StopReason, TakeoverReason } from "./gen/thousand/v1/table_service_pb";
import { RatingsUpdatedSchema, type RatingsUpdated } from "./gen/thousand/v1/ratings_pb";
import { MATCH_WORDS } from "./match/words";

export type GameModel = ThousandModel | BlagogoModel;

/** What a table's renderers read: a live table (TableSession) or a step of a replay. */
export interface TableLike {
  readonly tableId: string;
  readonly seat: number | undefined;
  readonly table: Table | undefined;
  readonly turn: Turn | undefined;
  readonly turnSequence: bigint;
  readonly pending: boolean;
  names(seat: number | undefined): string;
  legalActions(): Action[];
  isMyTurn(): boolean;
  act(action: Action): Promise<Failure | undefined>;
  /** A rated table's RatingsUpdated, once its game ended (the table's last event). */
  readonly ratings?: RatingsUpdated | undefined;
}

/** How seats are named to people, in one place: the terminal client names them the same way
 * (clients/cli/follow.py), seats counted from 1. */
export const SEAT_WORDS = {
  nobody: () => t("web.nobody"),
  bot: (strategy: string, seat: number) => t("seat.bot", { name: botName(strategy), seat: seat + 1 }),
  open: (seat: number) => capital(t("seat.numbered", { seat: seat + 1 })),
  you: (name: string) => t("web.you", { name }),
} as const;

/** A seat's display name: the player's, the bot's strategy, or its number; "(you)" for the viewer's own. */
export function seatName(table: Table | undefined, seat: number | undefined, me: number | undefined): string {
  if (seat === undefined) return SEAT_WORDS.nobody();
  const s = table?.seats[seat];
  const base = s?.kind === SeatKind.BOT ? SEAT_WORDS.bot(s.strategy, seat) : s?.playerName || SEAT_WORDS.open(seat);
  return seat === me ? SEAT_WORDS.you(base) : base;
}

/** Why the server stopped a table, from its reason: a bots' table at the move limit, or an operator, whose own
 * words (the only text not from the catalogues: a person wrote it for the players) follow. */
export function stoppedWords(reason: StopReason, message: string): string {
  if (reason === StopReason.MOVE_LIMIT) return t("notice.table_stopped_move_limit");
  if (reason === StopReason.CLOSED_BY_OPERATOR) return t("notice.table_stopped_closed_by_operator", { message });
  return t("notice.table_stopped", { message });
}

export interface LogLine {
  sequence: string;
  text: string;
}

interface Saved {
  lastSeen: string;
  table: string;
  model: unknown;
  log: LogLine[];
  /** The table's RatingsUpdated (base64 of its bytes), once seen: a page resumed after it still shows it. */
  ratings?: string;
}

const LOG_KEPT = 300;

export interface SessionOptions {
  seat?: number;
  token?: string;
  /** The seed this browser sent with JoinTable, and the commitment it read before (verify.ts). */
  clientSeed?: string;
  commitment?: string;
  joinedAt?: string;
  /** What save() returned before (a reload): resume after its last sequence. */
  saved?: unknown;
  watchdogMs?: number;
}

export class TableSession implements TableLike {
  table: Table | undefined;
  model: GameModel | undefined;
  turn: Turn | undefined;
  ratings: RatingsUpdated | undefined;
  /** The sequence of the message whose Turn is `turn`: what an action's last_seen_sequence says. */
  turnSequence = 0n;
  log: LogLine[] = [];
  status: StreamStatus = { state: "connecting" };
  /** The last refusal of this seat's action, in words, until the next action or Turn: one the player should
   * read (never one that only says the table had moved on: see `overtakenBy`). */
  refusal: Failure | undefined;
  /** The reasons of the actions refused because the table had moved on before they arrived (api.ts
   * `overtaken`): dropped without a word, the page catching up instead; for the tests and the console. */
  readonly overtakenBy: string[] = [];
  /** An operator handed this page's seat to the server's bot (SeatTakenOver, TAKEOVER_REASON_OPERATOR_HANDOVER). */
  handedOver = false;
  /** An action is on its way: nothing else may be sent until it is answered. */
  pending = false;
  /** Sequences of events applied, for the tests: each exactly once. */
  readonly applied: bigint[] = [];
  /** Own Turns whose view differed from the tracked one (a tracker bug; the Turn's view wins), with the
   * first difference's fields, for the tests and the console. */
  trackerMisses: { sequence: bigint; fields: string[] }[] = [];
  /** Own Turns whose view was compared with the tracked one. */
  trackerChecks = 0;
  /** Where the table's calls go: its owner, in a cluster. */
  readonly route: Route;
  private stream: EventStream | undefined;
  private listeners: (() => void)[] = [];
  private eventListeners: ((event: Event) => void)[] = [];
  private actedOn: bigint | undefined;
  /** A fresh page's history: the table's sequence when it opened (undefined once read, or when resumed). */
  private historyUntil: bigint | undefined;

  constructor(
    nodes: Nodes,
    readonly tableId: string,
    private readonly options: SessionOptions = {},
  ) {
    this.route = new Route(nodes);
  }

  get seat(): number | undefined {
    return this.options.seat;
  }

  get lastSeen(): bigint | undefined {
    return this.stream?.lastSeen;
  }

  get reconnects(): number {
    return this.stream?.reconnects ?? 0;
  }

  onChange(listener: () => void): void {
    this.listeners.push(listener);
  }

  /** Each event as it happens, not the history a fresh page reads first (the sounds, the deal's motion). */
  onEvent(listener: (event: Event) => void): void {
    this.eventListeners.push(listener);
  }

  async start(): Promise<void> {
    let lastSeen: bigint | undefined;
    if (this.options.saved !== undefined && this.restore(this.options.saved)) lastSeen = BigInt((this.options.saved as Saved).lastSeen);
    else {
      const { table } = await this.route.call((c) => c.getTable({ tableId: this.tableId }));
      this.setTable(table);
      if (this.seat !== undefined && table?.seats[this.seat]?.takeoverReason === TakeoverReason.OPERATOR_HANDOVER) {
        this.lostSeat(); // handed over while the page was away: its token works no more
        this.changed();
        return;
      }
      lastSeen = 0n; // the whole history: the sheet and the log from the first deal
      this.historyUntil = table?.sequence ?? 0n;
    }
    this.route.go(this.table?.webEndpoint ?? ""); // its owner, as last described
    if (lastSeen !== 0n && this.table?.status === TableStatus.FINISHED) {
      // Saved after the game's end: nothing more will come (a stream resumed after a finished table's last
      // event ends at once, without the end to recognise, and would be reopened again and again). The page
      // opens on the final standings, not on the last deal's summary saved with it.
      this.model?.forgetPastSummary();
      this.status = { state: "ended" };
      this.changed();
      return;
    }
    this.stream = new EventStream(
      this.route,
      this.tableId,
      {
        snapshot: (sequence, snapshot) => this.snapshot(sequence, snapshot),
        event: (sequence, event) => this.event(sequence, event),
        turn: (sequence, turn) => this.setTurn(sequence, turn),
        status: (status) => {
          this.status = status;
          this.changed();
        },
      },
      { token: this.options.token, lastSeen, watchdogMs: this.options.watchdogMs },
    );
    this.stream.start();
  }

  stop(): void {
    this.stream?.stop();
  }

  /** Drop the connection and resume (the tests' way of cutting the network). */
  reconnect(): void {
    this.stream?.reconnect();
  }

  names = (seat: number | undefined): string => seatName(this.table, seat, this.options.seat);

  /** The legal actions this seat may choose now (empty when it is not its turn, or an action is pending). */
  legalActions(): Action[] {
    const turn = this.turn;
    if (this.seat === undefined || turn === undefined || turn.seat !== this.seat || this.pending || this.handedOver) return [];
    if (this.actedOn === this.turnSequence) return [];
    return turn.legalActions;
  }

  isMyTurn(): boolean {
    return this.legalActions().length > 0;
  }

  /** Submit an action, retried unchanged (the same request_id) on transport failures. Returns its refusal
   * (undefined: applied). A refusal the player should read is kept in `refusal`; one that only says the
   * view was out of date when the player chose (another move came first, the turn or the game was over) is
   * not an error: the Turn it was chosen on is closed and the page catches up with the table. */
  async act(action: Action): Promise<Failure | undefined> {
    if (this.pending) return undefined;
    this.pending = true;
    this.refusal = undefined;
    this.changed();
    const request = { tableId: this.tableId, requestId: randomToken(18), lastSeenSequence: this.turnSequence, action };
    const decidedOn = this.turnSequence;
    try {
      await this.route.call((c) => c.submitAction(request, { headers: seatHeaders(this.options.token), timeoutMs: 15000 }), 9);
      this.actedOn = decidedOn;
      return undefined;
    } catch (error) {
      const f = failure(error);
      if (!overtaken(f)) return (this.refusal = f);
      this.actedOn = decidedOn;
      this.overtakenBy.push(f.reason);
      void this.stream?.catchUp();
      return f;
    } finally {
      this.pending = false;
      this.changed();
    }
  }

  /** An operator handed this page's seat to the server's bot: the seat's token works no more and the server
   * ends its stream after the event, so the page stops following as the seat (reopened, it watches). */
  private lostSeat(): void {
    this.handedOver = true;
    this.turn = undefined; // its Turn is the bot's now
    this.stream?.stop();
    this.status = { state: "ended" };
  }

  /** Take the seat back from the bot that plays it since its time ran out. */
  async reclaim(): Promise<Failure | undefined> {
    try {
      const headers = seatHeaders(this.options.token);
      const { table } = await this.route.call((c) => c.reclaimSeat({ tableId: this.tableId }, { headers }));
      this.setTable(table);
      return undefined;
    } catch (error) {
      return (this.refusal = failure(error));
    } finally {
      this.changed();
    }
  }

  async leave(): Promise<void> {
    const headers = seatHeaders(this.options.token);
    await this.route.call((c) => c.leaveTable({ tableId: this.tableId }, { headers }), 1);
    this.stop();
  }

  save(): Saved | undefined {
    const lastSeen = this.lastSeen;
    if (lastSeen === undefined || this.table === undefined) return undefined;
    return {
      lastSeen: lastSeen.toString(),
      table: toBase64(toBinary(TableSchema, this.table)),
      model: this.model?.save(),
      log: this.log,
      ratings: this.ratings ? toBase64(toBinary(RatingsUpdatedSchema, this.ratings)) : undefined,
    };
  }

  private restore(data: unknown): boolean {
    try {
      const saved = data as Saved;
      this.setTable(fromBinary(TableSchema, fromBase64(saved.table)));
      if (saved.model !== undefined) this.model?.restore(saved.model);
      this.log = saved.log;
      this.ratings = saved.ratings ? fromBinary(RatingsUpdatedSchema, fromBase64(saved.ratings)) : undefined;
      return true;
    } catch {
      this.table = undefined;
      this.model = undefined;
      this.log = [];
      this.ratings = undefined;
      return false;
    }
  }

  private setTable(table: Table | undefined): void {
    if (table === undefined) return;
    const sameGame = this.table?.game === table.game;
    this.table = table;
    if (this.model === undefined || !sameGame) {
      const o = this.options;
      const seat = { clientSeed: o.clientSeed, commitment: o.commitment ?? table.fairness?.commitment, joinedAt: o.joinedAt };
      this.model = table.game === GameKind.BLAGOGO ? new BlagogoModel(this.seat, seat) : new ThousandModel(this.seat, seat);
    }
  }

  private snapshot(sequence: bigint, snapshot: Snapshot): void {
    this.setTable(snapshot.table);
    const view = snapshot.view?.game;
    if (view?.case === "thousand" && this.model instanceof ThousandModel) this.model.reset(view.value);
    else if (view?.case === "blagogo" && this.model instanceof BlagogoModel) this.model.reset(view.value);
    this.catchUp(snapshot.deal);
    this.addLog(sequence, t("web.caught_up"));
  }

  /** A fair table's deal in progress (Snapshot.deal): its first events, our SeatTaken among them, to the deal's
   * check as if they had come on the stream, so that the deal is checked when it is revealed. */
  private catchUp(deal: DealInProgress | undefined): void {
    for (const { sequence, event } of deal?.events ?? []) {
      const e = event?.event;
      if (e?.case === "seatTaken") this.model?.verifier.seatTaken(e.value.seat, sequence);
      else if (e?.case === "thousand" && this.model instanceof ThousandModel) this.model.dealing(e.value, sequence);
      else if (e?.case === "blagogo" && this.model instanceof BlagogoModel) this.model.dealing(e.value, sequence);
    }
  }

  private event(sequence: bigint, event: Event): void {
    this.applied.push(sequence);
    if (this.historyUntil === undefined || sequence > this.historyUntil) for (const listener of this.eventListeners) listener(event);

    const e = event.event;
    const table = this.table;
    let line: string | undefined;
    switch (e.case) {
      case "seatTaken":
        this.updateSeat(e.value.seat, { taken: true, playerName: e.value.playerName });
        this.model?.verifier.seatTaken(e.value.seat, sequence);
        line = capital(t("notice.sits_down", { name: this.names(e.value.seat) }));
        break;
      case "seatReleased":
        line = capital(t("notice.leaves", { name: this.names(e.value.seat), seat: e.value.seat + 1 }));
        this.updateSeat(e.value.seat, { taken: false, playerName: "", takenOver: false });
        break;
      case "turnTimedOut":
        line = capital(t("notice.turn_timed_out", { name: this.names(e.value.seat) }));
        break;
      case "seatTakenOver":
        this.updateSeat(e.value.seat, { takenOver: true, forfeited: e.value.forfeited, takeoverReason: e.value.reason });
        if (e.value.reason === TakeoverReason.OPERATOR_HANDOVER && e.value.seat === this.seat) this.lostSeat();
        line = capital(
          e.value.reason === TakeoverReason.OPERATOR_HANDOVER
            ? t("notice.seat_taken_over_handed_over", { name: this.names(e.value.seat) })
            : e.value.forfeited
            ? t("notice.seat_taken_over_forfeited", { name: this.names(e.value.seat) })
            : e.value.oneTurn
              ? t("notice.seat_taken_over_one_turn", { name: this.names(e.value.seat) })
              : t("notice.seat_taken_over_until_back", { name: this.names(e.value.seat) }),
        );
        break;
      case "seatReclaimed":
        this.updateSeat(e.value.seat, { takenOver: false });
        line = capital(t("notice.seat_reclaimed", { name: this.names(e.value.seat) }));
        break;
      case "thousand":
        if (this.model instanceof ThousandModel) line = this.model.apply(e.value, this.names, sequence);
        if (e.value.event.case === "gameStarted" && table) table.status = TableStatus.PLAYING;
        if (e.value.event.case === "gameOver" && table) table.status = TableStatus.FINISHED;
        break;
      case "blagogo":
        if (this.model instanceof BlagogoModel) line = this.model.apply(e.value, this.names, sequence);
        if (e.value.event.case === "gameStarted" && table) table.status = TableStatus.PLAYING;
        if (e.value.event.case === "gameOver" && table) table.status = TableStatus.FINISHED;
        break;
      case "ratingsUpdated":
        this.ratings = e.value;
        line = e.value.notRated ? MATCH_WORDS.tableNotRated(e.value.notRated) : MATCH_WORDS.ratingsLog;
        break;
      case "tableStopped":
        if (table) table.status = TableStatus.FINISHED;
        line = capital(stoppedWords(e.value.reason, e.value.message));
        break;
      default:
        break; // an event this client does not know: counted, skipped
    }
    if (table) table.sequence = sequence;
    if (line) this.addLog(sequence, line);
    if (this.historyUntil !== undefined && sequence >= this.historyUntil) {
      // The history the page opened on is read: a summary from it was not seen live.
      this.historyUntil = undefined;
      this.model?.forgetPastSummary();
    }
  }

  private setTurn(sequence: bigint, turn: Turn | undefined): void {
    this.turn = this.handedOver ? undefined : turn;
    this.turnSequence = sequence;
    const view = turn?.view?.game;
    if (view?.case !== undefined && this.model?.view !== undefined) this.compare(sequence, view.value);
    if (view?.case === "thousand" && this.model instanceof ThousandModel) this.model.reset(view.value);
    else if (view?.case === "blagogo" && this.model instanceof BlagogoModel) this.model.reset(view.value);
    const toAct = turn?.seat;
    const v = this.model?.view;
    if (v) v.toAct = toAct;
    this.changed();
  }

  private compare(sequence: bigint, received: ThousandView | BlagogoView): void {
    const tracked = this.model?.view;
    if (tracked === undefined || tracked.$typeName !== received.$typeName) return;
    this.trackerChecks += 1;
    const fields = differences(tracked, received);
    if (fields.length) {
      this.trackerMisses.push({ sequence, fields });
      console.warn(`the view tracked up to ${sequence} differs from the server's in`, fields.join(", "));
    }
  }

  private updateSeat(seat: number, change: Partial<Table["seats"][number]>): void {
    const table = this.table;
    if (!table) return;
    const current = table.seats[seat] ?? create(SeatSchema, { seat });
    table.seats[seat] = Object.assign(current, change);
    table.openSeats = table.seats.filter((s) => !s.taken && s.kind !== SeatKind.BOT).length;
  }

  private addLog(sequence: bigint, text: string): void {
    this.log.push({ sequence: sequence.toString(), text });
    if (this.log.length > LOG_KEPT) this.log.splice(0, this.log.length - LOG_KEPT);
  }

  private changed(): void {
    for (const listener of this.listeners) listener();
  }
}

const UNTRACKED = new Set(["toAct", "legalActions"]);

/** The fields in which a tracked view differs from the server's, but those only a Turn says. */
export function differences(tracked: ThousandView | BlagogoView, received: ThousandView | BlagogoView): string[] {
  if (tracked.$typeName === "thousand.v1.ThousandView" && received.$typeName === "thousand.v1.ThousandView") {
    return fieldsDiffering(ThousandViewSchema, tracked, received);
  }
  if (tracked.$typeName === "thousand.v1.BlagogoView" && received.$typeName === "thousand.v1.BlagogoView") {
    return fieldsDiffering(BlagogoViewSchema, tracked, received);
  }
  return ["$typeName"];
}

function fieldsDiffering<D extends typeof ThousandViewSchema | typeof BlagogoViewSchema>(
  schema: D,
  a: MessageShape<D>,
  b: MessageShape<D>,
): string[] {
  const out: string[] = [];
  for (const field of schema.fields) {
    if (UNTRACKED.has(field.localName)) continue;
    const x = create(schema, { [field.localName]: (a as Record<string, unknown>)[field.localName] } as never);
    const y = create(schema, { [field.localName]: (b as Record<string, unknown>)[field.localName] } as never);
    if (!equals(schema, x, y)) out.push(field.localName);
  }
  return out;
}
