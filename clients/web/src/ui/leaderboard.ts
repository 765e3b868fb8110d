// The leaderboard (#/leaderboard/GAME/PLAYERS/BOTS): one rating pool (a game, a number of players, people or
// bots; RatingService.GetLeaderboard), best first by OpenSkill's ordinal, PAGE_SIZE a page, each player a link
// to their profile.
import { languageMenu } from "./language";
import { createClient, type Client } from "@connectrpc/connect";
import { RatingService, type GetLeaderboardResponse, type LeaderboardEntry } from "../gen/thousand/v1/rating_service_pb";
import { GameKind } from "../gen/thousand/v1/table_service_pb";
import { failure, transport } from "../api";
import { h, render } from "../dom";
import { MATCH_WORDS as W } from "../match/words";
import type { Route } from "../route";
import { GAMES, gameInfo, gameName } from "../rules";
import { Pages } from "./games";
import { refusalText } from "./refusal";
import { botsHash } from "./bots";
import { t } from "../i18n";

export const PAGE_SIZE = 10;

export type RatingClient = Client<typeof RatingService>;

export function ratingClient(route: Route): RatingClient {
  return createClient(RatingService, transport(route.origin));
}

export interface PoolChoice {
  game: GameKind;
  players: number;
  bots: boolean;
}

export function parsePool(parts: readonly string[]): PoolChoice {
  const game = Number(parts[0]) === GameKind.BLAGOGO ? GameKind.BLAGOGO : GameKind.THOUSAND;
  const range = gameInfo(game).players;
  const asked = Number(parts[1]);
  const players = Number.isInteger(asked) && asked >= range.min && asked <= range.max ? asked : range.fallback;
  return { game, players, bots: parts[2] === "bots" };
}

export function poolHash(p: PoolChoice): string {
  return `#/leaderboard/${p.game}/${p.players}/${p.bots ? "bots" : "people"}`;
}

export function openLeaderboard(anyNode: Route, container: HTMLElement, parts: readonly string[]): () => void {
  const client = ratingClient(anyNode);
  const pool = parsePool(parts);
  const pages = new Pages();
  let board: GetLeaderboardResponse | undefined;
  let error: string | undefined;
  let closed = false;
  const go = (change: Partial<PoolChoice>): void => {
    const next = { ...pool, ...change };
    if (change.game !== undefined) next.players = gameInfo(next.game).players.fallback;
    window.location.hash = poolHash(next);
  };

  function row(e: LeaderboardEntry): HTMLElement {
    return h(
      "tr",
      { "data-player": e.playerId },
      h("td", {}, String(e.place)),
      h("td", {}, h("a", { href: `#/profile/${encodeURIComponent(e.playerId)}` }, e.displayName || e.playerId)),
      h("td", { class: "num" }, (e.rating?.ordinal ?? 0).toFixed(1)),
      h("td", { class: "num" }, String(e.rating?.games ?? 0)),
    );
  }

  function picker(): HTMLElement {
    const range = gameInfo(pool.game).players;
    return h(
      "div",
      { class: "tables-head pool-picker" },
      h(
        "label",
        {},
        `${W.game} `,
        h(
          "select",
          { "data-key": "board-game", "data-testid": "board-game", onchange: (e: Event) => go({ game: Number((e.target as HTMLSelectElement).value) as GameKind }) },
          GAMES.map((g) => h("option", { value: g.kind, selected: g.kind === pool.game }, gameName(g))),
        ),
      ),
      h(
        "label",
        {},
        `${W.players} `,
        h(
          "select",
          { "data-key": "board-players", "data-testid": "board-players", onchange: (e: Event) => go({ players: Number((e.target as HTMLSelectElement).value) }) },
          Array.from({ length: range.max - range.min + 1 }, (_, i) => range.min + i).map((n) => h("option", { value: n, selected: n === pool.players }, String(n))),
        ),
      ),
      h(
        "label",
        {},
        `${W.pool} `,
        h(
          "select",
          { "data-key": "board-bots", "data-testid": "board-bots", onchange: (e: Event) => go({ bots: (e.target as HTMLSelectElement).value === "bots" }) },
          h("option", { value: "people", selected: !pool.bots }, W.people),
          h("option", { value: "bots", selected: pool.bots }, W.bots),
        ),
      ),
    );
  }

  function draw(): void {
    if (closed) return;
    const entries = board?.entries ?? [];
    render(
      container,
      h(
        "header",
        { class: "lobby-header" },
        h("a", { href: "#/", class: "back" }, W.toLobby),
        h("h1", {}, W.boardTitle),
        // The bots' own ladder (its sets of duplicate deals) is a page of its own.
        h("a", { href: botsHash(pool.game), class: "button", "data-testid": "bots-link" }, t("web.bots.link")),
        languageMenu(),
      ),
      h(
        "main",
        { class: "leaderboard" },
        picker(),
        error ? h("p", { class: "refusal", role: "alert" }, error) : null,
        !board && !error ? h("p", { class: "loading" }, W.loading) : null,
        board && entries.length === 0 && pages.number === 1 ? h("p", { "data-testid": "board-empty" }, W.boardEmpty) : null,
        entries.length
          ? h(
              "div",
              { class: "scroll" },
              h(
                "table",
                { class: "rank-list", "aria-label": W.poolName(gameName(gameInfo(pool.game)), pool.players, pool.bots), "data-testid": "leaderboard" },
                h("thead", {}, h("tr", {}, W.boardHead.map((t, i) => h("th", { scope: "col", class: i >= 2 ? "num" : undefined }, t)))),
                h("tbody", {}, entries.map(row)),
              ),
            )
          : null,
        board ? h("p", { class: "small" }, W.minGames(board.minGames)) : null,
        h(
          "nav",
          { class: "pager", "aria-label": W.boardTitle },
          h("button", { type: "button", "data-key": "newer", "data-testid": "board-prev", disabled: pages.number <= 1, onclick: () => pages.newer() && void load() }, W.better),
          h("span", { class: "small", "data-testid": "board-page" }, W.page(pages.number)),
          h("button", { type: "button", "data-key": "older", "data-testid": "board-next", disabled: !pages.next, onclick: () => pages.older() && void load() }, W.worse),
        ),
      ),
    );
  }

  async function load(): Promise<void> {
    board = undefined;
    draw();
    try {
      board = await client.getLeaderboard({ game: pool.game, players: pool.players, bots: pool.bots, pageSize: PAGE_SIZE, pageToken: pages.token });
      pages.read(board.nextPageToken);
      error = undefined;
    } catch (e) {
      error = W.boardFailed(refusalText(failure(e)));
    }
    draw();
  }

  void load();
  return () => {
    closed = true;
  };
}
