// What a 1000 Blagogo table's page knows: the tracked view and the score sheet round by round.
import { fromBinary, toBinary } from "@bufbuild/protobuf";
import type { BlagogoEvent } from "../gen/thousand/v1/blagogo_events_pb";
import { BlagogoViewSchema, type BlagogoView } from "../gen/thousand/v1/blagogo_views_pb";
import { fromBase64, toBase64 } from "../base64";
import type { Names } from "../thousand/words";
import { BlagogoTracker } from "./tracker";
import { eventLine } from "./words";

export interface RoundRow {
  number: number;
  winner?: number;
  kantrame: boolean;
  meldPoints: number[];
  handPenalties: number[];
  deltas: number[];
  totals: number[];
}

interface Saved {
  view?: string;
  sheet: RoundRow[];
  summary?: number;
}

export class BlagogoModel {
  readonly tracker: BlagogoTracker;
  sheet: RoundRow[] = [];
  summary: number | undefined;

  constructor(readonly viewer: number | undefined) {
    this.tracker = new BlagogoTracker(viewer);
  }

  get view(): BlagogoView | undefined {
    return this.tracker.view;
  }

  reset(view: BlagogoView): void {
    this.tracker.reset(view);
  }

  apply(event: BlagogoEvent, names: Names): string | undefined {
    const e = event.event;
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
      });
      this.summary = r.number;
    }
    this.tracker.apply(event);
    return eventLine(event, names);
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
    };
  }

  restore(data: unknown): void {
    const saved = data as Saved;
    if (saved.view) this.tracker.view = fromBinary(BlagogoViewSchema, fromBase64(saved.view));
    this.sheet = saved.sheet;
    this.summary = saved.summary;
  }
}
