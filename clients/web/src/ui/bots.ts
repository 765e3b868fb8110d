// The Bots page (#/bots/GAME, GAME: thousand or blagogo; issue 27): the bots' ladder of a game
// (LadderService.GetLadderStandings), best first by the rating's ordinal: each bot's name, its owner (or the
// mark of the server's reference bots), its rating with its interval (μ ± 2σ), the sets and games it played,
// whether it is connected, and its latest sets with a link to each table's replay. Four columns, so that a
// phone reads it as a table too.
import { createClient } from "@connectrpc/connect";
import { LadderService, type GetLadderStandingsResponse, type LadderSet, type LadderStanding } from "../gen/thousand/v1/ladder_service_pb";
import { GameKind } from "../gen/thousand/v1/table_service_pb";
import { failure, transport } from "../api";
import { h, render, type Child } from "../dom";
import { botName, capital, formatNumber, t } from "../i18n";
import type { Route } from "../route";
import { GAMES, gameInfo, gameName } from "../rules";
import { languageMenu } from "./language";
import { refusalText } from "./refusal";

/** The games' names in the page's address. */
const SLUGS: Record<string, GameKind> = { thousand: GameKind.THOUSAND, blagogo: GameKind.BLAGOGO };

/** The ladder's pools are of 3 players (the server's own default for GetLadderStandings). */
const PLAYERS = 3;
/** How many of each bot's latest sets the page lists. */
const RECENT = 3;

export function botsHash(game: GameKind): string {
  return `#/bots/${Object.entries(SLUGS).find(([, kind]) => kind === game)?.[0] ?? "thousand"}`;
}

export function parseBotsGame(part: string | undefined): GameKind {
  return SLUGS[part ?? ""] ?? GameKind.THOUSAND;
}

const one = (n: number): string => formatNumber(n, { minimumFractionDigits: 1, maximumFractionDigits: 1 });

/** A ladder member's name: a registered bot's own, a reference bot's strategy in the page's words. */
export function memberName(s: { reference: boolean; displayName: string; memberId: string }): string {
  return s.reference ? capital(t("web.bots.reference_name", { name: botName(s.memberId.replace(/^bot:/, "") || s.displayName) })) : s.displayName || s.memberId;
}

function recentSets(row: LadderStanding): Child {
  if (!row.recentSets.length) return null;
  const line = (set: LadderSet): HTMLElement => {
    const mine = set.results.find((r) => r.memberId === row.memberId);
    return h(
      "li",
      { "data-set": set.setId },
      mine ? t("web.bots.set_line", { rank: mine.rank, total: formatNumber(mine.totalScore) }) : "",
      set.tables.map((table, i) => [" · ", h("a", { href: `#/replay/${table.tableId}` }, t("web.bots.set_table", { n: i + 1 }))]),
    );
  };
  return h("details", { class: "recent-sets" }, h("summary", {}, t("web.bots.recent")), h("ul", {}, row.recentSets.map(line)));
}

function standingRow(row: LadderStanding): HTMLElement {
  const rating = row.rating;
  return h(
    "tr",
    { "data-member": row.memberId, "data-reference": row.reference ? "yes" : "no" },
    h("td", {}, String(row.place)),
    h(
      "td",
      { class: "bot-cell" },
      h("strong", { class: "bot-name" }, memberName(row)),
      " ",
      row.reference
        ? h("span", { class: "badge reference", title: t("web.bots.reference_hint"), "data-testid": "reference" }, t("web.bots.reference"))
        : h("span", { class: "small owner" }, t("web.bots.owner", { owner: row.ownerName })),
      row.connected && !row.reference ? h("span", { class: "small connected" }, ` ● ${t("web.bots.connected")}`) : null,
      recentSets(row),
    ),
    h(
      "td",
      { class: "num" },
      h("span", { class: "ordinal" }, one(rating?.ordinal ?? 0)),
      h("br", {}),
      h("span", { class: "small interval" }, t("web.bots.interval", { mu: one(rating?.mu ?? 0), low: one(row.intervalLow), high: one(row.intervalHigh) })),
    ),
    h("td", { class: "num played" }, t("web.bots.counts", { sets: row.sets, games: row.games })),
  );
}

export function openBots(anyNode: Route, container: HTMLElement, part: string | undefined): () => void {
  const client = createClient(LadderService, transport(anyNode.origin));
  const game = parseBotsGame(part);
  const name = gameName(gameInfo(game));
  let ladder: GetLadderStandingsResponse | undefined;
  let error: string | undefined;
  let closed = false;

  function draw(): void {
    if (closed) return;
    const rows = ladder?.standings ?? [];
    const perMove = ladder?.perMove ? Number(ladder.perMove.seconds) + ladder.perMove.nanos / 1e9 : undefined;
    render(
      container,
      h("header", { class: "lobby-header" }, h("a", { href: "#/leaderboard", class: "back" }, `← ${t("web.match.leaderboard")}`), h("h1", {}, t("web.bots.title")), languageMenu()),
      h(
        "main",
        { class: "leaderboard bots" },
        h(
          "div",
          { class: "tables-head pool-picker" },
          h(
            "label",
            {},
            `${t("web.lobby.game")} `,
            h(
              "select",
              { "data-key": "bots-game", "data-testid": "bots-game", onchange: (e: Event) => (window.location.hash = botsHash(Number((e.target as HTMLSelectElement).value) as GameKind)) },
              GAMES.map((g) => h("option", { value: g.kind, selected: g.kind === game }, gameName(g))),
            ),
          ),
        ),
        perMove !== undefined ? h("p", { class: "small", "data-testid": "bots-intro" }, t("web.bots.intro", { seconds: perMove })) : null,
        error ? h("p", { class: "refusal", role: "alert" }, error) : null,
        !ladder && !error ? h("p", { class: "loading" }, t("web.match.loading")) : null,
        ladder && rows.length === 0 ? h("p", { "data-testid": "bots-empty" }, t("web.bots.empty")) : null,
        rows.length
          ? h(
              "div",
              { class: "scroll" },
              h(
                "table",
                { class: "rank-list", "aria-label": t("web.bots.pool", { game: name, players: ladder?.pool?.players || PLAYERS }), "data-testid": "bots-standings" },
                h(
                  "thead",
                  {},
                  h(
                    "tr",
                    {},
                    h("th", { scope: "col" }, t("web.match.place")),
                    h("th", { scope: "col" }, t("web.bots.bot")),
                    h("th", { scope: "col", class: "num" }, t("web.match.rating")),
                    h("th", { scope: "col", class: "num" }, t("web.bots.played")),
                  ),
                ),
                h("tbody", {}, rows.map(standingRow)),
              ),
            )
          : null,
        rows.length ? h("p", { class: "small" }, t("web.bots.order_note")) : null,
      ),
    );
  }

  async function load(): Promise<void> {
    draw();
    try {
      ladder = await client.getLadderStandings({ game, players: PLAYERS, recentSets: RECENT });
      error = undefined;
    } catch (e) {
      error = t("web.bots.failed", { why: refusalText(failure(e)) });
    }
    draw();
  }

  void load();
  return () => {
    closed = true;
  };
}
