// A finished game's record (StreamTableRecord: the JSON document "thousand.game-record/1") and a step-through
// replay of it: event by event or deal by deal, seen from any seat (every hand is known in a record), on
// the same table the game was played on.
import { create, fromJson, type JsonValue } from "@bufbuild/protobuf";
import { EventSchema, GameKind, SeatKind, TableSchema, TableStatus, type Event as TableEvent, type Table } from "../gen/thousand/v1/table_service_pb";
import { failure, type TableClient } from "../api";
import type { Route } from "../route";
import { h, render, type Child } from "../dom";
import { gameInfo, gameName } from "../rules";
import { seatName, type TableLike } from "../session";
import { BlagogoModel } from "../blagogo/model";
import { ThousandModel } from "../thousand/model";
import { renderThousand } from "../thousand/render";
import { renderBlagogo } from "../blagogo/render";
import { refusalText } from "./refusal";
import { languageMenu } from "./language";
import { capital, formatDateTime, t } from "../i18n";
import { Ui } from "./tablepage";
import { cardFace, blagogoFaceNode } from "./cardviews";
import { displayOrder } from "../cards";
import { eventLine as thousandLine } from "../thousand/words";
import { eventLine as blagogoLine } from "../blagogo/words";

interface GameRecord {
  format: string;
  game?: string;
  table_id: string;
  created: string;
  seed: string;
  seats: { seat: number; kind: string; strategy: string; player_name: string }[];
  events: ({ sequence: number } & Record<string, JsonValue>)[];
  standings: { seat: number; place: number; score: number; payout?: number }[];
}

/** The table the record describes, as the renderers read it. */
class ReplayTable implements TableLike {
  readonly turn = undefined;
  readonly turnSequence = 0n;
  readonly pending = false;
  constructor(
    readonly tableId: string,
    readonly table: Table,
    public seat: number | undefined,
  ) {}
  names = (seat: number | undefined): string => seatName(this.table, seat, undefined);
  legalActions(): [] {
    return [];
  }
  isMyTurn(): boolean {
    return false;
  }
  act(): Promise<undefined> {
    return Promise.resolve(undefined);
  }
}

export function parseRecord(json: string): { record: GameRecord; events: TableEvent[]; table: Table } {
  const record = JSON.parse(json) as GameRecord;
  if (!record.format?.startsWith("thousand.game-record/")) throw new Error(`not a game record (${record.format})`);
  const events = record.events.map(({ sequence: _sequence, ...event }) => fromJson(EventSchema, event, { ignoreUnknownFields: true }));
  const game = record.game === "blagogo" ? GameKind.BLAGOGO : GameKind.THOUSAND;
  const table = create(TableSchema, {
    tableId: record.table_id,
    game,
    status: TableStatus.FINISHED,
    seats: record.seats.map((s) => ({
      seat: s.seat,
      kind: s.kind === "bot" ? SeatKind.BOT : SeatKind.OPEN,
      strategy: s.strategy,
      taken: true,
      playerName: s.kind === "bot" ? "" : s.player_name,
    })),
  });
  return { record, events, table };
}

type Model = ThousandModel | BlagogoModel;

function modelsAt(table: Table, events: TableEvent[], upTo: number): Model[] {
  const models: Model[] = table.seats.map((_, seat) => (table.game === GameKind.BLAGOGO ? new BlagogoModel(seat) : new ThousandModel(seat)));
  const names = (s: number | undefined): string => seatName(table, s, undefined);
  for (const event of events.slice(0, upTo)) {
    const e = event.event;
    for (const m of models) {
      if (e.case === "thousand" && m instanceof ThousandModel) m.apply(e.value, names);
      else if (e.case === "blagogo" && m instanceof BlagogoModel) m.apply(e.value, names);
    }
  }
  for (const m of models) m.summary = undefined;
  return models;
}

function lineOf(table: Table, event: TableEvent | undefined): string {
  if (!event) return t("web.replay.start");
  const names = (s: number | undefined): string => seatName(table, s, undefined);
  const e = event.event;
  if (e.case === "thousand") return thousandLine(e.value, names) ?? "";
  if (e.case === "blagogo") return blagogoLine(e.value, names) ?? "";
  if (e.case === "seatTaken") return capital(t("notice.sits_down", { name: names(e.value.seat) }));
  return "";
}

/** When the game was played, as the language writes dates ("created" is an ISO 8601 time). */
function playedAt(created: string): string {
  const when = new Date(created);
  return Number.isNaN(when.getTime()) ? created : formatDateTime(when);
}

/** A finished game's record, read in parts (StreamTableRecord: a long game's record is more than one
 * message of ExportTable carries; any node answers, `anyNode` tries them in turn), joined and decoded. */
async function readRecord(client: TableClient, tableId: string): Promise<string> {
  const parts: Uint8Array[] = [];
  for await (const { recordPart } of client.streamTableRecord({ tableId })) parts.push(recordPart);
  const joined = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const part of parts) {
    joined.set(part, at);
    at += part.length;
  }
  return new TextDecoder().decode(joined); // the whole: a part may end inside a character
}

/** A finished game's record (StreamTableRecord, any node) and its replay. */
export function openReplay(anyNode: Route, tableId: string, container: HTMLElement): () => void {
  render(container, h("p", { class: "loading" }, t("web.replay.fetching")));
  let closed = false;
  anyNode
    .call((c) => readRecord(c, tableId))
    .then((recordJson) => {
      if (!closed) show(recordJson);
    })
    .catch((error: unknown) => {
      if (!closed) render(container, h("a", { href: "#/" }, `← ${t("web.lobby")}`), h("p", { class: "refusal", role: "alert" }, t("web.replay.no_record", { why: refusalText(failure(error)) })));
    });

  function show(json: string): void {
    const { record, events, table } = parseRecord(json);
    const info = gameInfo(table.game);
    const starts = events.flatMap((e, i) =>
      (e.event.case === "thousand" && e.event.value.event.case === "dealStarted") ||
      (e.event.case === "blagogo" && e.event.value.event.case === "roundStarted")
        ? [i + 1]
        : [],
    );
    const replay = new ReplayTable(tableId, table, 0);
    let position = events.length;
    let models = modelsAt(table, events, position);
    const ui = new Ui(replay, () => draw());
    const go = (to: number): void => {
      position = Math.max(0, Math.min(events.length, to));
      models = modelsAt(table, events, position);
      draw();
    };
    const download = URL.createObjectURL(new Blob([JSON.stringify(JSON.parse(json), null, 2)], { type: "application/json" }));
    function draw(): void {
      // Once another page has the container, this one draws no more: the board's own timers (a taken trick
      // held on show, a card landing: thousand/render.ts) call back after the page is left, and a late draw
      // put the replay over the next page (tests/test_web_ladder.py: the Bots page's standings gone).
      if (closed) return;
      const model = models[replay.seat ?? 0]!;
      const prevDeal = [...starts].reverse().find((s) => s < position) ?? 0;
      const nextDeal = starts.find((s) => s > position) ?? events.length;
      let board: Child = h("p", {}, t("web.replay.before_first"));
      if (model.view && model instanceof ThousandModel) board = renderThousand(replay, model, ui);
      else if (model.view && model instanceof BlagogoModel) board = renderBlagogo(replay, model, ui);
      const hands = models.map((m, seat) => {
        const v = m.view;
        const cards =
          v === undefined ? [] : m instanceof ThousandModel && m.view ? displayOrder(m.view.hand, m.view.trump).map((c) => cardFace(c, "mini")) : m instanceof BlagogoModel && m.view ? m.view.hand.map((c) => blagogoFaceNode(c, "mini")) : [];
        return h("li", {}, h("strong", {}, `${replay.names(seat)}: `), cards.length ? cards : t("web.replay.no_cards"));
      });
      const key = (event: Event): void => {
        const e = event as KeyboardEvent;
        if (e.key === "ArrowRight") go(position + 1);
        else if (e.key === "ArrowLeft") go(position - 1);
        else return;
        e.preventDefault();
      };
      render(
        container,
        h(
          "header",
          { class: "table-header" },
          h("a", { href: "#/", class: "back" }, `← ${t("web.lobby")}`),
          h("h1", {}, t("web.replay.title", { game: gameName(info), table: tableId })),
          h("span", {}, t("web.replay.played", { when: playedAt(record.created), seed: record.seed })),
          h("a", { class: "button", href: download, download: `thousand-${tableId}.json` }, t("web.replay.download")),
          languageMenu(),
        ),
        h(
          "section",
          { class: "replay-controls", role: "group", "aria-label": t("web.replay.controls"), onkeydown: key },
          h("button", { "data-key": "r-start", onclick: () => go(0), "aria-label": t("web.replay.to_start") }, `|◀ ${t("web.replay.start_button")}`),
          h("button", { "data-key": "r-prev-deal", onclick: () => go(prevDeal === position ? prevDeal - 1 : prevDeal), "aria-label": t("web.replay.previous_deal", { unit: info.id }) }, `◀◀ ${t("web.replay.deal_button", { unit: info.id })}`),
          h("button", { "data-key": "r-prev", "data-testid": "replay-prev", onclick: () => go(position - 1), "aria-label": t("web.replay.back") }, "◀"),
          h("input", { type: "range", min: 0, max: events.length, value: position, "data-key": "r-slider", "aria-label": t("web.replay.event"), oninput: (e: Event) => go(Number((e.target as HTMLInputElement).value)) }),
          h("button", { "data-key": "r-next", "data-testid": "replay-next", onclick: () => go(position + 1), "aria-label": t("web.replay.on") }, "▶"),
          h("button", { "data-key": "r-next-deal", "data-testid": "replay-next-deal", onclick: () => go(nextDeal), "aria-label": t("web.replay.next_deal", { unit: info.id }) }, `${t("web.replay.deal_button", { unit: info.id })} ▶▶`),
          h("button", { "data-key": "r-end", onclick: () => go(events.length), "aria-label": t("web.replay.to_end") }, `${t("web.replay.end_button")} ▶|`),
          h("span", { class: "position", "data-testid": "replay-position", "data-position": position, "data-events": events.length }, t("web.replay.position", { position, count: events.length })),
          h(
            "label",
            {},
            ` ${t("web.replay.view_as")} `,
            h(
              "select",
              { "data-key": "r-seat", onchange: (e: Event) => { replay.seat = Number((e.target as HTMLSelectElement).value); draw(); } },
              table.seats.map((_, s) => h("option", { value: s, selected: s === replay.seat }, replay.names(s))),
            ),
          ),
        ),
        h("p", { class: "replay-line", role: "status", "data-testid": "replay-line" }, lineOf(table, events[position - 1])),
        board,
        h("section", { class: "all-hands" }, h("h2", {}, t("web.replay.every_hand")), h("ul", {}, hands)),
        h(
          "section",
          { class: "standings" },
          h("h2", {}, t("web.final_standings")),
          h("ol", {}, record.standings.map((s) => h("li", {}, t("web.standing", { name: replay.names(s.seat), score: s.score, payout: s.payout ?? 0 })))),
        ),
      );
    }
    draw();
  }
  return () => {
    closed = true;
  };
}
