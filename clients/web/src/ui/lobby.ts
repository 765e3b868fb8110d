// The lobby: your name, your seats, every table with its status, players and changed rules (join a free
// seat, watch, or open a finished game's record and replay), and the form that creates a table.
import { GameKind, SeatKind, TableStatus, type Table } from "../gen/thousand/v1/table_service_pb";
import { currentPlayerId, failure } from "../api";
import { takeSeat } from "../join";
import type { Nodes, Route } from "../route";
import { h, render, type Child } from "../dom";
import { changedRules, gameInfo, gameName } from "../rules";
import type { SeatRecord, SeatStore } from "../seats";
import { seatName } from "../session";
import type { Players } from "../players/players";
import { PLAYER_WORDS } from "../players/words";
import { createForm } from "./create";
import { heldText, seatFreeFor } from "./invite";
import { playerBar } from "./playerbar";
import { playForm } from "./quickplay";
import { refusalText } from "./refusal";
import { botName, t } from "../i18n";

const STATUS: Record<number, string> = {
  [TableStatus.WAITING]: "waiting",
  [TableStatus.PLAYING]: "playing",
  [TableStatus.FINISHED]: "finished",
};

export interface LobbyOptions {
  /** Where the lobby's calls go: any node of a cluster answers them (the page's own first, then whichever
   * answered last: the page's own may be gone). */
  anyNode: Route;
  /** The cluster's nodes, where a table's seat is taken (its owner). */
  nodes: Nodes;
  store: SeatStore;
  /** The page's player: the bar above the lobby, and the credential of its calls. */
  players: Players;
  container: HTMLElement;
  go: (hash: string) => void;
}

/** Take a seat (a free one, or the one chosen), then open its table. */
export async function join(opts: LobbyOptions, tableId: string, seat?: number, invite?: string): Promise<void> {
  await takeSeat(opts.nodes, opts.store, tableId, seat, invite);
  opts.go(`#/table/${tableId}`);
}

/** The lobby's words used more than once or tested alone (the catalogues' `web.lobby.*`). */
export const TEXT = {
  clock: (seconds: number) => ` · ${t("web.lobby.clock", { seconds })}`,
} as const;

/** The table's turn clock per move in seconds; 0 without a clock (a pace for the bots alone is no clock). */
export function perMoveSeconds(table: Table): number {
  const d = table.timeControl?.perMove;
  return d ? Number(d.seconds) + d.nanos / 1e9 : 0;
}

function seatsText(table: Table, me: string | undefined): string {
  return table.seats
    .map((s, i) => (s.kind === SeatKind.BOT ? t("web.lobby.bot", { strategy: botName(s.strategy) }) : s.taken ? seatName(table, i, undefined) : (heldText(s, me) ?? t("web.lobby.free"))))
    .join(", ");
}

/** What the lobby shows of one table, and nothing else: the row is drawn from this alone, so that two
 * replies that show the same compare equal (a table in play changes its sequence with each move, which the
 * lobby does not show). */
export interface Row {
  tableId: string;
  game: string;
  private: boolean;
  seats: string;
  status: TableStatus;
  rules: string[];
  /** The turn clock per move in seconds; 0 without one. */
  clock: number;
  seeded: boolean;
  /** Whether this browser holds a seat at the table. */
  mine: boolean;
  /** The seats the page's player may take. */
  free: number[];
}

export function rowOf(table: Table, store: SeatStore, me: string | undefined): Row {
  return {
    tableId: table.tableId,
    game: gameName(gameInfo(table.game)),
    private: table.unlisted || table.inviteRequired,
    seats: `${table.seats.length}: ${seatsText(table, me)}`,
    status: table.status,
    rules: changedRules(table.game, table.rules),
    clock: perMoveSeconds(table),
    seeded: table.seeded,
    mine: store.seat(table.tableId) !== undefined,
    free: table.seats.flatMap((s, i) => (seatFreeFor(s, me) ? [i] : [])),
  };
}

/** A stable string of what a view shows (a seat's token is no part of what is shown). */
function key(view: { rows: Row[]; mine: SeatRecord[] }): string {
  return JSON.stringify({ ...view, mine: view.mine.map((m) => [m.tableId, m.seat, m.name]) });
}

export function openLobby(opts: LobbyOptions): () => void {
  const { anyNode, store, container } = opts;
  let tables: Table[] = [];
  let more = false;
  let error: string | undefined;
  let filter: GameKind = GameKind.UNSPECIFIED;
  let onlyOpen = false;
  let stopped = false;
  let shown: string | undefined; // key(view()) when last drawn
  const play = playForm(opts.go); // built once: its choices survive the lobby's refreshes
  const form = createForm(opts, (message) => {
    error = message;
    draw();
  });

  function row(r: Row): HTMLElement {
    const act = (what: () => Promise<void>): void => {
      what().catch((e: unknown) => {
        error = refusalText(failure(e));
        draw();
      });
    };
    const actions: Child[] = [];
    const finished = r.status === TableStatus.FINISHED;
    if (r.mine && !finished)
      actions.push(h("a", { class: "button primary", href: `#/table/${r.tableId}`, "data-key": `back-${r.tableId}` }, t("web.lobby.back_to_seat")));
    else if (!finished)
      for (const seat of r.free)
        actions.push(
          h(
            "button",
            { class: "primary", "data-key": `join-${r.tableId}-${seat}`, "data-testid": `join-${r.tableId}`, onclick: () => act(() => join(opts, r.tableId, seat)) },
            r.free.length > 1 ? t("web.lobby.join_seat", { seat: seat + 1 }) : t("web.lobby.join"),
          ),
        );
    if (finished) actions.push(h("a", { class: "button", href: `#/replay/${r.tableId}`, "data-key": `replay-${r.tableId}` }, t("web.lobby.record")));
    else if (!r.mine) actions.push(h("a", { class: "button", href: `#/table/${r.tableId}`, "data-key": `watch-${r.tableId}`, "data-testid": `watch-${r.tableId}` }, t("web.lobby.watch")));
    return h(
      "tr",
      { "data-table": r.tableId },
      h("td", {}, h("code", {}, r.tableId)),
      h("td", {}, r.game, r.private ? h("span", { class: "badge private" }, ` ${PLAYER_WORDS.privateBadge}`) : null),
      h("td", {}, r.seats),
      h("td", { class: `status s${r.status}` }, t("web.lobby.status", { status: STATUS[r.status] })),
      h(
        "td",
        { class: "small" },
        r.rules.length ? r.rules.join("; ") : t("web.lobby.standard"),
        r.clock > 0 ? TEXT.clock(r.clock) : "",
        r.seeded ? h("span", { class: "badge seeded", title: t("web.lobby.seeded_title") }, ` ${t("web.lobby.seeded")}`) : "",
      ),
      h("td", { class: "row-actions" }, actions),
    );
  }

  /** Everything the page draws besides the player bar (drawn again on its own change) and the two forms
   * (built once). */
  function view(): { rows: Row[]; mine: SeatRecord[]; more: boolean; error: string | undefined; filter: GameKind; onlyOpen: boolean } {
    const me = currentPlayerId();
    return { rows: tables.map((table) => rowOf(table, store, me)), mine: Object.values(store.seats()), more, error, filter, onlyOpen };
  }

  /** Draw the page unless it shows this already (compared as one string): a refresh mostly brings the same. */
  function drawIfChanged(): void {
    if (key(view()) !== shown) draw();
  }

  function draw(): void {
    const shows = view();
    shown = key(shows);
    const { rows, mine } = shows;
    render(
      container,
      h("header", { class: "lobby-header" }, playerBar(opts.players)),
      error ? h("div", { class: "refusal", role: "alert" }, error) : null,
      play,
      mine.length
        ? h(
            "section",
            { class: "mine-list" },
            h("h2", {}, t("web.lobby.your_seats")),
            h("ul", {}, mine.map((m) => h("li", {}, h("a", { href: `#/table/${m.tableId}` }, t("web.lobby.my_seat", { table: m.tableId, seat: m.seat + 1, name: m.name }))))),
          )
        : null,
      h(
        "section",
        { class: "tables" },
        h(
          "div",
          { class: "tables-head" },
          h("h2", {}, t("web.lobby.tables")),
          h(
            "select",
            {
              "aria-label": t("web.lobby.game"),
              "data-key": "filter-game",
              onchange: (e: Event) => {
                filter = Number((e.target as HTMLSelectElement).value) as GameKind;
                void refresh();
              },
            },
            h("option", { value: 0, selected: filter === GameKind.UNSPECIFIED }, t("web.lobby.both_games")),
            h("option", { value: GameKind.THOUSAND, selected: filter === GameKind.THOUSAND }, t("term.game_thousand")),
            h("option", { value: GameKind.BLAGOGO, selected: filter === GameKind.BLAGOGO }, t("term.game_blagogo")),
          ),
          h(
            "label",
            {},
            h("input", {
              type: "checkbox",
              "data-key": "only-open",
              checked: onlyOpen,
              onchange: (e: Event) => {
                onlyOpen = (e.target as HTMLInputElement).checked;
                void refresh();
              },
            }),
            ` ${t("web.lobby.only_free")}`,
          ),
        ),
        h(
          "div",
          { class: "scroll" },
          h(
            "table",
            { class: "table-list", "aria-label": t("web.lobby.tables") },
            h("thead", {}, h("tr", {}, [t("web.table"), t("web.lobby.game"), t("web.lobby.seats"), t("web.lobby.status_column"), t("web.lobby.rules"), ""].map((c) => h("th", { scope: "col" }, c)))),
            h("tbody", {}, rows.length ? rows.map(row) : h("tr", {}, h("td", { colspan: 6 }, t("web.lobby.no_tables")))),
          ),
        ),
        more ? h("p", { class: "small" }, t("web.lobby.more")) : null,
      ),
      form,
    );
  }

  async function refresh(): Promise<void> {
    try {
      // A node that cannot be reached is left for the next one, asked at once; the next refresh tries on.
      const reply = await anyNode.call((c) => c.listTables({ game: filter, onlyOpenSeats: onlyOpen, pageSize: 100 }), 2);
      tables = reply.tables;
      for (const table of tables) opts.nodes.learn(table.webEndpoint); // other nodes, should this one fail
      more = reply.nextPageToken !== "";
      error = undefined;
    } catch (e) {
      error = t("web.lobby.unreachable", { why: refusalText(failure(e)) });
    }
    // The list is asked for every few seconds and mostly says the same: drawing it again each time would
    // replace every element under the pointer and the keyboard's focus for nothing.
    if (!stopped) drawIfChanged();
  }

  const unlisten = opts.players.onChange(() => !stopped && draw());
  draw();
  void refresh();
  const timer = setInterval(() => {
    if (document.visibilityState === "visible" && !form.contains(document.activeElement) && !play.contains(document.activeElement)) void refresh();
  }, 4000);
  return () => {
    stopped = true;
    unlisten();
    clearInterval(timer);
  };
}
