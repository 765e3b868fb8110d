// The page of one table, for both games: header, connection line, refusals in words, the game's own view,
// the log. The game's part comes from its renderer; everything else is shared.
import { create } from "@bufbuild/protobuf";
import { ActionSchema, GameKind, TableStatus, TakeoverReason, type Action } from "../gen/thousand/v1/table_service_pb";
import type { Nodes } from "../route";
import { h, icon, render, type Child } from "../dom";
import { changedRules, gameInfo, gameName } from "../rules";
import { DEFAULT_ARMING_MS, DEFAULT_TRICK_MS, type SeatStore } from "../seats";
import { TableSession, type TableLike } from "../session";
import { streamWhy } from "../stream";
import { BlagogoModel } from "../blagogo/model";
import { ThousandModel } from "../thousand/model";
import { renderThousand } from "../thousand/render";
import { renderBlagogo } from "../blagogo/render";
import { refusalText } from "./refusal";
import { clockLabel } from "./common";
import { capital, language, t } from "../i18n";
import { languageMenu } from "./language";
import { heldText, invitePanel } from "./invite";
import { currentPlayerId } from "../api";
import { Sounds, cueOf } from "./sounds";
import type { ThousandAction } from "../gen/thousand/v1/thousand_actions_pb";
import type { BlagogoAction, BlagogoJokerMeaning } from "../gen/thousand/v1/blagogo_actions_pb";
import { MATCH_WORDS } from "../match/words";
import type { Rematch } from "../match/rematch";
import { rematchFor, rematchPanel, rematchSeat, rematchTooLate, rematchTooLatePanel } from "./rematch";

/** The words this page shows that are used more than once (the catalogues' `web.*`). */
export const TEXT = {
  yourTurn: () => t("web.your_turn"),
  appTitle: () => t("term.game_thousand"),
} as const;

const NOTE_MS = 4000;
/** How long the cards of a new hand take to arrive, the last one included (app.css, .hand.dealing). */
const DEAL_MS = 1200;

/** What the page remembers between renders that the server does not know: selections, a typed bid. */
export class Ui {
  selected: number[] = [];
  value: number | undefined;
  /** 1000 Blagogo: melds put aside for an opening laid in one go, and the reading chosen for a selection. */
  staged: { cards: number[]; jokers: BlagogoJokerMeaning[] }[] = [];
  choice: number | undefined;
  note: string | undefined;
  private armedFor = -1n;
  private armedAt = 0;

  constructor(
    readonly session: TableLike,
    readonly rerender: () => void,
    private readonly armingMs = DEFAULT_ARMING_MS,
    readonly trickMs = DEFAULT_TRICK_MS,
  ) {}

  /** Until when (performance.now()) a finished trick is on show: the hand waits for it to be taken. */
  heldUntil = 0;
  /** The table's sounds (off unless the player turned them on). */
  sounds = new Sounds(false);
  /** When the cards of the hand now held were dealt to it (performance.now()), for their motion; a deal that
   * came while a summary was up waits for it to be read ({@link dealPending}). */
  dealtAt = -Infinity;
  dealPending = false;

  /** The moments (performance.now(), whole ms) a redraw is already set for (redrawAt). */
  private readonly wakes = new Set<number>();

  /** Draw the page again at `at` (performance.now()), when a motion or a held trick ends: once for that
   * moment, however many renders ask for it before it comes (each render of a held trick asks again), so that
   * the page is not drawn over and over with nothing changed. */
  redrawAt(at: number): void {
    const when = Math.ceil(at);
    if (this.wakes.has(when)) return;
    this.wakes.add(when);
    setTimeout(() => {
      this.wakes.delete(when);
      this.rerender();
    }, Math.max(0, when - performance.now()));
  }

  /** Called at each render: a new Turn re-arms the delay, clears what was picked for the old one. */
  arm(): void {
    if (this.session.turnSequence !== this.armedFor) {
      this.armedFor = this.session.turnSequence;
      this.armedAt = performance.now() + this.armingMs;
      this.selected = [];
      this.value = undefined;
      this.staged = [];
      this.choice = undefined;
      if (this.armingMs > 0) setTimeout(this.rerender, this.armingMs + 10);
    }
  }

  get armed(): boolean {
    const now = performance.now();
    return now >= this.armedAt && now >= this.heldUntil;
  }

  toggle(index: number, single = false): void {
    if (this.selected.includes(index)) this.selected = this.selected.filter((i) => i !== index);
    else this.selected = single ? [index] : [...this.selected, index];
    this.choice = undefined;
    this.rerender();
  }

  /** Say in words why a click did nothing (a card that cannot be played now); gone after a few seconds. */
  explain(text: string): void {
    this.note = text;
    this.rerender();
    setTimeout(() => {
      if (this.note !== text) return;
      this.note = undefined;
      this.rerender();
    }, NOTE_MS);
  }

  thousand(action: ThousandAction): void {
    this.send(create(ActionSchema, { game: { case: "thousand", value: action } }));
  }

  blagogo(action: BlagogoAction): void {
    this.send(create(ActionSchema, { game: { case: "blagogo", value: action } }));
  }

  private send(action: Action): void {
    if (!this.armed || this.session.pending) return;
    this.note = undefined;
    void this.session.act(action).then(() => this.rerender());
  }
}

function statusLine(session: TableSession): Child {
  const s = session.status;
  if (session.handedOver) return h("span", { class: "conn ended" }, t("web.handover_status"));
  switch (s.state) {
    case "connecting":
      return h("span", { class: "conn connecting" }, t("web.connecting"));
    case "live":
      return h("span", { class: "conn live" }, `● ${t("web.live")}`);
    case "retrying":
      return h(
        "span",
        { class: "conn retrying", role: "status" },
        t("web.reconnecting", { why: streamWhy(s.why), seconds: s.inMs / 1000, attempt: s.attempt }),
      );
    case "ended":
      return h("span", { class: "conn ended" }, t("web.stream_ended"));
    case "failed":
      return h("span", { class: "conn failed", role: "alert" }, t("web.cannot_follow", { why: refusalText(s.failure) }));
  }
}

export interface TablePageOptions {
  nodes: Nodes;
  store: SeatStore;
  tableId: string;
  container: HTMLElement;
  onLeave: () => void;
  /** Open the table's page again (after the seat was handed to a bot: the page then watches). */
  reopen: () => void;
}

/** Open a table's page: the seat kept in the browser plays, anyone else watches. Returns a closer. */
export function openTable(opts: TablePageOptions): () => void {
  const { nodes, store, tableId, container } = opts;
  const record = store.seat(tableId);
  // A finished game's seat is still ours after its token is gone (its saved state says so too).
  const seat = record?.seat ?? store.endedSeat(tableId);
  // The saved page is in the language it was saved in (its log, its checks): another language reads the
  // table's history again, in its own words.
  const viewer = `${seat ?? "spectator"}@${language()}`;
  const session = new TableSession(nodes, tableId, {
    seat,
    token: record?.token,
    clientSeed: record?.clientSeed,
    commitment: record?.commitment,
    joinedAt: record?.joinedAt,
    saved: store.state(tableId, viewer),
  });
  let scheduled = false;
  let closed = false;
  const ui = new Ui(session, () => schedule(), store.armingMs(), store.trickMs());
  ui.sounds = new Sounds(store.sounds());
  let heardTurn = -1n;
  /** The rematch offered once the game is over (the seat's token kept in memory; in storage only an
   * anonymous seat's, for a while: SeatStore.finished), or "too-late" when that while has passed. */
  let rematch: Rematch | "too-late" | undefined;
  /** Whether the finished game's standings were brought into view (once: the player may scroll away). */
  let standingsShown = false;
  session.onEvent((event) => {
    const cue = cueOf(event);
    if (cue) ui.sounds.play(cue);
    const e = event.event;
    const game = e.case === "thousand" || e.case === "blagogo" ? e.value.event : undefined;
    if (game?.case === "handDealt" && game.value.seat === session.seat && game.value.cards.length) ui.dealPending = true;
  });
  function schedule(): void {
    if (scheduled || closed) return; // closed: another page has the container now
    scheduled = true;
    requestAnimationFrame(() => {
      scheduled = false;
      if (!closed) draw();
    });
  }
  function draw(): void {
    ui.arm();
    if (session.isMyTurn() && session.turnSequence !== heardTurn) {
      heardTurn = session.turnSequence;
      ui.sounds.play("turn");
    }
    if (!rematch && session.table?.status === TableStatus.FINISHED) {
      const kept = store.finishedToken(tableId);
      const seat = rematchSeat(session, record, kept);
      if (seat) rematch = rematchFor(session, seat, nodes, store, schedule);
      else if (rematchTooLate(session, kept)) rematch = "too-late";
    }
    render(container, page(session, ui, opts, rematch));
    dealing(container, ui);
    const standings = standingsShown ? null : container.querySelector<HTMLElement>('[data-testid="standings"]');
    if (standings) {
      standingsShown = true;
      standings.scrollIntoView({ block: "nearest" });
    }
    const saved = session.save();
    if (session.status.state === "ended" && record) {
      // The game is over: the seat's token and seed are of no more use (a bearer secret). The seat and the
      // page's state stay for a reload, unless the seat was handed to a bot (the page then watches).
      if (session.table?.status !== TableStatus.FINISHED || session.handedOver) return store.forget(tableId);
      if (saved) store.saveState(tableId, viewer, saved);
      return store.finished(tableId, record.seat);
    }
    if (saved) store.saveState(tableId, viewer, saved);
  }
  session.onChange(schedule);
  document.body.classList.add("at-table");
  const clock = setInterval(() => tickClocks(container), 250);
  render(container, h("p", { class: "loading" }, t("web.opening_table")));
  session.start().catch((error: unknown) => {
    if (!closed) render(container, h("p", { class: "conn failed", role: "alert" }, t("web.cannot_open", { table: tableId, why: String(error) })));
  });
  (window as unknown as { thousandSession?: TableSession }).thousandSession = session;
  (window as unknown as { thousandSounds?: Sounds }).thousandSounds = ui.sounds;
  return () => {
    closed = true;
    clearInterval(clock);
    if (rematch !== "too-late") rematch?.stop();
    document.body.classList.remove("at-table");
    document.title = TEXT.appTitle();
    session.stop();
  };
}

/** What quick play said of the table it seated this browser at (bots filling seats; rated or not). */
function matchNote(note: string | undefined): Child {
  return note ? h("span", { class: "match-note small", "data-testid": "match-note" }, `${MATCH_WORDS.matchNote}: ${note}`) : null;
}

function page(session: TableSession, ui: Ui, opts: TablePageOptions, rematch: Rematch | "too-late" | undefined): Child {
  const table = session.table;
  const game = table ? gameInfo(table.game) : undefined;
  const changed = table ? changedRules(table.game, table.rules) : [];
  const me = session.seat;
  const mySeat = me === undefined ? undefined : table?.seats[me];
  const header = h(
    "header",
    { class: "table-header" },
    h("a", { href: "#/", class: "back", "data-key": "back" }, `← ${t("web.lobby")}`),
    h("h1", {}, `${game ? gameName(game) : t("web.table")} · ${opts.tableId}`),
    h("span", { class: "who" }, me === undefined ? t("web.watching") : t("web.you_play", { name: session.names(me) })),
    statusLine(session),
    session.isMyTurn() ? h("span", { class: "your-turn", role: "status", "data-testid": "your-turn" }, TEXT.yourTurn()) : null,
    h(
      "span",
      { class: "changed" },
      changed.length ? t("web.rules_changed", { rules: changed.join("; ") }) : t("web.standard_rules"),
      table?.seeded ? h("strong", { class: "seeded" }, ` · ${t("web.seeded_table")}`) : null,
    ),
    matchNote(opts.store.seat(opts.tableId)?.matchNote),
    table?.fairness && !table.seeded
      ? h(
          "details",
          { class: "fair" },
          h("summary", { "aria-label": t("web.fair_label"), title: t("web.fair_label") }, `${t("web.fair_short")} ✓ `, icon("info")),
          h("p", { class: "fair-details" }, t("web.fair_details", { scheme: table.fairness.scheme, commitment: table.fairness.commitment })),
        )
      : null,
    h(
      "button",
      {
        class: "quiet sounds",
        "data-key": "sounds",
        "aria-pressed": ui.sounds.on ? "true" : "false",
        // The name holds the visible words ("Sounds: off"), as axe (label-content-name-mismatch) asks.
        "aria-label": `${t("web.sounds")}: ${ui.sounds.on ? t("web.on") : t("web.off")}`,
        title: t("web.sounds_title"),
        onclick: () => {
          ui.sounds.set(!ui.sounds.on);
          opts.store.setSounds(ui.sounds.on);
          ui.rerender();
        },
      },
      "♪ ",
      h("span", { class: "sounds-word" }, `${t("web.sounds")}: `), // a phone shows "♪ on": the header stays short
      ui.sounds.on ? t("web.on") : t("web.off"),
    ),
    me !== undefined && mySeat?.takenOver && !mySeat.forfeited && table?.status !== TableStatus.FINISHED
      ? h("button", { class: "primary", "data-key": "reclaim", onclick: () => void session.reclaim() }, t("web.reclaim"))
      : null,
    me !== undefined && table?.status !== TableStatus.FINISHED && !session.handedOver
      ? h(
          "button",
          {
            class: "quiet",
            "data-key": "leave",
            onclick: () => {
              if (!confirm(t("web.leave_confirm"))) return;
              void session.leave().then(() => {
                opts.store.forget(opts.tableId);
                opts.onLeave();
              });
            },
          },
          t("web.leave"),
        )
      : null,
    languageMenu(),
  );
  const status = session.status;
  const lost =
    status.state === "failed" && me !== undefined && ["SEAT_TOKEN_INVALID", "TABLE_NOT_FOUND"].includes(status.failure.reason)
      ? h(
          "button",
          {
            class: "primary",
            "data-key": "forget",
            onclick: () => {
              opts.store.forget(opts.tableId);
              opts.onLeave();
            },
          },
          t("web.forget_seat"),
        )
      : null;
  // Refusals and notes float over the table (a toast): they never push the board down.
  const refusal = session.refusal
    ? h(
        "div",
        { class: "refusal", role: "alert", "data-testid": "refusal", "data-reason": session.refusal.reason, "data-rule": session.refusal.metadata["rule"] ?? "" },
        t("web.refused", { why: refusalText(session.refusal) }),
      )
    : null;
  const note = ui.note ? h("div", { class: "note", role: "status", "data-testid": "note" }, ui.note) : null;
  const mine = session.isMyTurn();
  const title = game ? gameName(game) : t("web.table");
  document.title = mine ? `▶ ${TEXT.yourTurn()} · ${title}` : `${title} · ${opts.tableId}`;
  let body: Child = h("p", { class: "waiting" }, t("web.waiting_start"));
  const model = session.model;
  if (table?.status === TableStatus.WAITING || model?.view === undefined) body = waiting(session, opts.store.seat(opts.tableId)?.invite);
  else if (table?.game === GameKind.THOUSAND && model instanceof ThousandModel) body = renderThousand(session, model, ui);
  else if (table?.game === GameKind.BLAGOGO && model instanceof BlagogoModel) body = renderBlagogo(session, model, ui);
  const log = h(
    "section",
    { class: "log", "aria-label": t("web.log_label"), tabindex: 0, "data-key": "log", "data-keep-scroll": true },
    h("h2", {}, t("web.log_title")),
    h(
      "ul",
      { "aria-live": "polite", "aria-relevant": "additions" },
      session.log.slice(-80).reverse().map((l) => h("li", { "data-seq": l.sequence }, l.text)),
    ),
  );
  const toasts = h("div", { class: "toasts", "aria-live": "polite" }, refusal, note);
  const handed = handovers(session, opts);
  // A finished game's standings offer to play again with the same players.
  const offer = rematch === "too-late" ? rematchTooLatePanel() : rematch ? rematchPanel(rematch) : null;
  if (offer && body instanceof HTMLElement) body.querySelector('[data-testid="standings"] [data-key="see-record"]')?.before(offer);
  // The log goes in the board's side column (beside the score sheet): the table keeps one screen.
  const side = body instanceof HTMLElement ? body.querySelector(":scope > .side") : null;
  if (side) {
    side.append(log);
    return [header, handed, lost, toasts, body];
  }
  return [header, handed, lost, toasts, body, log];
}

/** The seats an operator handed to the server's bot (SeatTakenOver's reason, Seat.takeover_reason), said to
 * everyone at the table; the page whose seat it was is told it is no longer theirs, and may watch on. */
function handovers(session: TableSession, opts: TablePageOptions): Child {
  const seats = (session.table?.seats ?? []).filter((s) => s.takeoverReason === TakeoverReason.OPERATOR_HANDOVER);
  if (!seats.length && !session.handedOver) return null;
  return h(
    "section",
    { class: "handover", role: "status", "aria-labelledby": "handover-title", "data-testid": "handover" },
    h("h2", { id: "handover-title" }, t("web.handover_title")),
    session.handedOver
      ? [
          h("p", { "data-testid": "handover-you" }, t("web.handover_you")),
          h("button", { type: "button", class: "primary", "data-key": "handover-watch", "data-testid": "handover-watch", onclick: () => { opts.store.forget(opts.tableId); opts.reopen(); } }, t("web.handover_watch")),
        ]
      : null,
    seats
      .filter((s) => s.seat !== session.seat || !session.handedOver)
      .map((s) => h("p", { "data-seat": s.seat }, capital(t("notice.seat_taken_over_handed_over", { name: session.names(s.seat) })))),
  );
}

/** `invite`: the table's invite code, when this browser holds it (a private table): its link to share. */
function waiting(session: TableSession, invite: string | undefined): Child {
  const table = session.table;
  if (!table) return h("p", {}, t("web.opening_table"));
  const me = currentPlayerId();
  // A private table's link is its invite (shown below), never the page's address.
  const free = invite || table.inviteRequired ? "private" : "open";
  const state = (s: (typeof table.seats)[number]): string => (s.taken ? "yes" : heldText(s, me) !== undefined ? "held" : free);
  return h(
    "section",
    { class: "waiting" },
    h("h2", {}, t("web.waiting_players")),
    h(
      "ul",
      {},
      table.seats.map((s, i) =>
        h("li", { "data-seat": i }, t("web.waiting_seat", { name: session.names(i), taken: state(s), held: heldText(s, me) ?? "" })),
      ),
    ),
    invite ? invitePanel({ tableId: table.tableId, code: invite }) : null,
  );
}

/** A new hand's cards arrive one after another from the table's centre (CSS, off under
 * prefers-reduced-motion): the hand just drawn is marked, each card with its place, and the motion's clock
 * shifted by the time already gone, so that a re-render in the middle carries it on rather than restarting it.
 * A hand dealt under a deal's summary starts moving once the summary is read. */
function dealing(container: HTMLElement, ui: Ui): void {
  if (ui.dealPending && !container.querySelector('[data-testid="deal-summary"], [data-testid="round-summary"]')) {
    ui.dealPending = false;
    ui.dealtAt = performance.now();
  }
  const gone = performance.now() - ui.dealtAt;
  if (gone >= DEAL_MS) return;
  const hand = container.querySelector<HTMLElement>(".hand");
  if (!hand) return;
  hand.classList.add("dealing");
  hand.style.setProperty("--deal-shift", `-${Math.round(gone)}ms`);
  hand.querySelectorAll<HTMLElement>(":scope > *").forEach((card, i) => card.style.setProperty("--i", String(i)));
  ui.redrawAt(ui.dealtAt + DEAL_MS + 20);
}

/** Turn clocks count down between renders: every element with data-deadline (ms since the epoch), its time
 * beside its stopwatch. */
function tickClocks(container: HTMLElement): void {
  for (const el of container.querySelectorAll<HTMLElement>("[data-deadline]")) {
    const left = Number(el.dataset["deadline"]) - Date.now();
    const time = el.querySelector(".clock-time");
    if (time) time.textContent = clockLabel(left, Number(el.dataset["bank"] ?? 0));
    el.classList.toggle("low", left < 10000);
  }
}
