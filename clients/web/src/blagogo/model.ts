// What a 1000 Blagogo table's page knows: the tracked view and the score sheet round by round.
import { fromBinary, toBinary } from "@bufbuild/protobuf";
import type { BlagogoEvent } from "../gen/thousand/v1/blagogo_events_pb";
import { BlagogoViewSchema, type BlagogoView } from "../gen/thousand/v1/blagogo_views_pb";
import { fromBase64, toBase64 } from "../base64";
import type { Names } from "../thousand/words";
import { BlagogoTracker } from "./tracker";
import { DealVerifier, type DealCheck, type Seat } from "../verify";
import { cardOf, rankLabel } from "./cards";
import type { BlagogoCard } from "../gen/thousand/v1/blagogo_cards_pb";

/** A card's code in the fair scheme: rank, suit letter, copy ("10H1", "AS0"); a joker "X" and its copy. */
export function cardCode(card: BlagogoCard): string {
  return card.joker ? `X${card.copy}` : `${rankLabel(card.rank)}${"SCDH"[card.suit - 1] ?? "?"}${card.copy}`;
}

/** The canonical deck's codes (B-1: S C D H, each 2 to A, each rank's two copies, then X0 to X3). */
export const BLAGOGO_DECK = Array.from({ length: 108 }, (_, i) => cardCode(cardOf(i)));
import { eventLine } from "./words";

export interface RoundRow {
  number: number;
  winner?: number;
  kantrame: boolean;
  meldPoints: number[];
  handPenalties: number[];
  deltas: number[];
  totals: number[];
  check?: DealCheck;
}

interface Saved {
  view?: string;
  sheet: RoundRow[];
  summary?: number;
  verifier: ReturnType<DealVerifier["save"]>;
  ending?: DealCheck;
}

export class BlagogoModel {
  readonly tracker: BlagogoTracker;
  readonly verifier: DealVerifier;
  sheet: RoundRow[] = [];
  summary: number | undefined;
  ending: DealCheck | undefined;

  constructor(
    readonly viewer: number | undefined,
    seat: Seat = {},
  ) {
    this.tracker = new BlagogoTracker(viewer);
    this.verifier = new DealVerifier("blagogo", "blagogo.round.v1", BLAGOGO_DECK, { ...seat, seat: viewer });
  }

  get view(): BlagogoView | undefined {
    return this.tracker.view;
  }

  reset(view: BlagogoView): void {
    this.tracker.reset(view);
  }

  /** What the round's check keeps of a round's first events (the round started, its commitment, our hand):
   * from the stream, or from a snapshot's round in progress (Snapshot.deal) as if they had come on it. */
  dealing(event: BlagogoEvent, sequence: bigint): void {
    const e = event.event;
    if (e.case === "roundStarted") {
      const n = this.tracker.view?.cardCounts.length ?? 0;
      const dealing = Array.from({ length: n }, (_, i) => (e.value.first + i) % n);
      this.verifier.started(e.value.number, sequence, dealing, dealing.map((_, i) => (i === 0 ? 13 : 12)));
    } else if (e.case === "deckShuffled") this.verifier.shuffled(e.value.number, e.value.commitment);
    else if (e.case === "handDealt" && !e.value.cardsHidden) this.verifier.dealt(e.value.seat, e.value.cards.map(cardCode));
  }

  /** A page that replayed the table's history drops the summary of a round it did not see end live (after
   * the game's end: the final standings show, the last round's summary a click away). */
  forgetPastSummary(): void {
    const view = this.tracker.view;
    if (this.summary !== undefined && view !== undefined && (view.roundNumber > this.summary || view.winner !== undefined)) this.summary = undefined;
  }

  apply(event: BlagogoEvent, names: Names, sequence = 0n): string | undefined {
    const e = event.event;
    let extra: string | undefined;
    this.dealing(event, sequence);
    if (e.case === "roundRevealed") {
      const r = e.value;
      extra = this.verifier.revealed({ number: r.number, order: r.order.map(cardCode), salt: r.salt, clientSeeds: r.clientSeeds })?.text;
    } else if (e.case === "gameOver") {
      this.ending = this.verifier.gameOver(e.value.tableSecret);
      extra = this.ending?.text;
    }
    if (e.case === "roundScored") {
      const r = e.value;
      this.sheet.push({
        number: r.number,
        winner: r.winner,
        kantrame: r.kantrame,
        meldPoints: [...r.meldPoints],
        handPenalties: [...r.handPenalties],
        deltas: [...r.deltas],
        totals: [...r.totals],
        check: this.verifier.checks.find((c) => c.number === r.number),
      });
      this.summary = r.number;
    }
    this.tracker.apply(event);
    const line = eventLine(event, names);
    return extra ? `${line ?? ""} ${extra}`.trim() : line;
  }

  row(number: number | undefined): RoundRow | undefined {
    return this.sheet.find((r) => r.number === number);
  }

  save(): Saved {
    const view = this.tracker.view;
    return {
      view: view ? toBase64(toBinary(BlagogoViewSchema, view)) : undefined,
      sheet: this.sheet,
      summary: this.summary,
      verifier: this.verifier.save(),
      ending: this.ending,
    };
  }

  restore(data: unknown): void {
    const saved = data as Saved;
    if (saved.view) this.tracker.view = fromBinary(BlagogoViewSchema, fromBase64(saved.view));
    this.sheet = saved.sheet;
    this.summary = saved.summary;
    this.verifier.restore(saved.verifier);
    this.ending = saved.ending;
  }
}
