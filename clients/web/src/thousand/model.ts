// What a Thousand table's page knows: the tracked view, the score sheet deal by deal, the deal checks and the
// last deal's summary. Plain data beside the view, so the whole of it is saved with the seat and a reload
// resumes from the last sequence seen.
import { fromBinary, toBinary } from "@bufbuild/protobuf";
import type { ThousandEvent } from "../gen/thousand/v1/thousand_events_pb";
import { Mark, Outcome, DealKind } from "../gen/thousand/v1/thousand_events_pb";
import { ThousandViewSchema, type ThousandView } from "../gen/thousand/v1/thousand_views_pb";
import { DealVerifier, type DealCheck, type Seat } from "../verify";
import { cardCode, cardOf } from "../cards";
import { TwoPlayerDeal } from "../gen/thousand/v1/thousand_rules_pb";
import { ThousandTracker, plainMark, type ThousandExtras } from "./tracker";
import { eventLine, type Names } from "./words";
import { fromBase64, toBase64 } from "../base64";

/** One line of the score sheet: a scored deal, or an annulled one (a redeal). */
export interface SheetRow {
  number: number;
  kind: DealKind;
  declarer?: number;
  contract?: number;
  outcome?: Outcome;
  doubled?: boolean;
  /** A redeal: who demanded it and why (RedealReason). */
  redeal?: { seat: number; reason: number };
  dealPoints: number[];
  deltas: number[];
  totals: number[];
  marks: { seat: number; mark: Mark; points: number }[];
  check?: DealCheck;
}

interface Saved {
  view?: string;
  extras: ThousandExtras;
  sheet: SheetRow[];
  verifier: ReturnType<DealVerifier["save"]>;
  marks: SheetRow["marks"];
  summary?: number;
  ending?: DealCheck;
}

/** The canonical deck's codes (T-1 order: S C D H, each 9 J Q K 10 A), as the fair shuffle takes it. */
export const THOUSAND_DECK = Array.from({ length: 24 }, (_, i) => cardCode(cardOf(i)));

export class ThousandModel {
  readonly tracker: ThousandTracker;
  readonly verifier: DealVerifier;
  /** The game's check once GameOver disclosed the table's secret. */
  ending: DealCheck | undefined;
  sheet: SheetRow[] = [];
  /** The deal number whose summary waits to be read (set when a deal is scored). */
  summary: number | undefined;
  private marks: SheetRow["marks"] = [];
  /** The trick just taken and when (performance.now()): the table shows it a moment before its winner takes
   * it. Not saved: a reloaded page shows the table as it is. */
  taken: { plays: ThousandView["trick"]; winner: number; points: number; number: number; at: number } | undefined;
  /** The last card played and when, so that it lands on the table once (not at every re-render). */
  played: { seat: number; at: number } | undefined;

  constructor(
    readonly viewer: number | undefined,
    seat: Seat = {},
  ) {
    this.tracker = new ThousandTracker(viewer);
    this.verifier = new DealVerifier("thousand", "thousand.deal.v1", THOUSAND_DECK, { ...seat, seat: viewer });
  }

  get view(): ThousandView | undefined {
    return this.tracker.view;
  }

  reset(view: ThousandView): void {
    this.tracker.reset(view);
  }

  /** What the deal's check keeps of a deal's first events (the deal started, its commitment, our hand): from
   * the stream, or from a snapshot's deal in progress (Snapshot.deal) as if they had come on it. */
  dealing(event: ThousandEvent, sequence: bigint): void {
    const e = event.event;
    if (e.case === "dealStarted") {
      const rules = this.tracker.view?.rules;
      const players = rules?.players ?? 3;
      const talons = players === 2 ? (rules?.twoPlayerDeal === TwoPlayerDeal.TEN_AND_TWO_TALONS_OF_2 ? 4 : 6) : 3;
      const size = (24 - talons) / e.value.active.length;
      this.verifier.started(e.value.number, sequence, [...e.value.active], e.value.active.map(() => size));
    } else if (e.case === "handDealt" && !e.value.cardsHidden) this.verifier.dealt(e.value.seat, e.value.cards.map(cardCode));
    else if (e.case === "deckShuffled") this.verifier.shuffled(e.value.number, e.value.commitment);
  }

  /** Apply one event; returns its line for the log. */
  apply(event: ThousandEvent, names: Names, sequence = 0n): string | undefined {
    const e = event.event;
    const dealKind = this.tracker.view?.kind ?? DealKind.NORMAL;
    this.dealing(event, sequence);
    switch (e.case) {
      case "redealDemanded":
        this.sheet.push({
          number: this.tracker.view?.dealNumber ?? 0,
          kind: dealKind,
          redeal: { seat: e.value.seat, reason: e.value.reason },
          dealPoints: [],
          deltas: [],
          totals: this.tracker.view?.scores.map((s) => s.score) ?? [],
          marks: [],
        });
        break;
      case "sheetMarked":
        this.marks.push(plainMark(e.value));
        break;
      case "dealScored": {
        const d = e.value;
        this.sheet.push({
          number: d.number,
          kind: d.kind,
          declarer: d.declarer,
          contract: d.contract,
          outcome: d.outcome,
          doubled: d.doubled,
          dealPoints: [...d.dealPoints],
          deltas: [...d.deltas],
          totals: [...d.totals],
          marks: this.marks,
          check: this.verifier.checks.find((c) => c.number === d.number),
        });
        this.marks = [];
        this.summary = d.number;
        break;
      }
      default:
        break;
    }
    if (e.case === "trickTaken") this.taken = { plays: [...(this.tracker.view?.trick ?? [])], winner: e.value.seat, points: e.value.points, number: e.value.number, at: performance.now() };
    if (e.case === "cardPlayed") this.played = { seat: e.value.seat, at: performance.now() };
    // A card played on an empty trick leads it (the view is still the one before the event).
    let line = eventLine(event, names, (this.tracker.view?.trick.length ?? 0) === 0);
    if (e.case === "gameOver") {
      this.ending = this.verifier.gameOver(e.value.tableSecret);
      if (this.ending) line = `${line ?? ""} ${this.ending.text}`.trim();
    }
    if (e.case === "dealRevealed") {
      const r = e.value;
      const check = this.verifier.revealed({ number: r.number, order: r.order.map(cardCode), salt: r.salt, dealSeed: r.dealSeed, clientSeeds: r.clientSeeds });
      const row = this.sheet.find((r) => r.number === e.value.number && r.redeal !== undefined);
      if (row && check) row.check = check;
      line = check?.text;
    }
    this.tracker.apply(event);
    return line;
  }

  /** A page that replayed the table's history drops the summary of a deal it did not see end live: a
   * spectator (or a seat on a new device) joining mid-deal sees the deal in play, not the last one's box; a
   * page opened after the game's end sees the final standings (the last deal's summary a click away). */
  forgetPastSummary(): void {
    const view = this.tracker.view;
    if (this.summary !== undefined && view !== undefined && (view.dealNumber > this.summary || view.winner !== undefined)) this.summary = undefined;
    this.taken = undefined;
  }

  /** The sheet row of a deal (for its summary). */
  row(number: number | undefined): SheetRow | undefined {
    return this.sheet.find((r) => r.number === number && r.redeal === undefined);
  }

  save(): Saved {
    const view = this.tracker.view;
    return {
      view: view ? toBase64(toBinary(ThousandViewSchema, view)) : undefined,
      extras: this.tracker.extras,
      sheet: this.sheet,
      verifier: this.verifier.save(),
      marks: this.marks,
      summary: this.summary,
      ending: this.ending,
    };
  }

  restore(data: unknown): void {
    const saved = data as Saved;
    if (saved.view) this.tracker.view = fromBinary(ThousandViewSchema, fromBase64(saved.view));
    this.tracker.extras = saved.extras;
    this.sheet = saved.sheet;
    this.verifier.restore(saved.verifier);
    this.marks = saved.marks;
    this.summary = saved.summary;
    this.ending = saved.ending;
  }
}
