// "My games" (#/games): the player's games, newest first, 20 a page (ListMyGames), each with its result and
// a way back to it: resume a seat still in play (from any device: the player's credential names the seat),
// or a finished game's record and replay.
import { languageMenu } from "./language";
import { GameResult, type PlayerGame } from "../gen/thousand/v1/player_service_pb";
import { failure } from "../api";
import { h, render } from "../dom";
import { gameInfo, gameName } from "../rules";
import { formatDateTime } from "../i18n";
import type { Players } from "../players/players";
import { PLAYER_WORDS as W } from "../players/words";
import { refusalText } from "./refusal";

export const PAGE_SIZE = 20;

/** Where a page of games goes back and forth: the tokens of the pages seen (the first's is ""). */
export class Pages {
  private tokens: string[] = [""];
  next = "";

  get number(): number {
    return this.tokens.length;
  }

  get token(): string {
    return this.tokens[this.tokens.length - 1] ?? "";
  }

  /** After reading a page: the token of the one after it ("" on the last). */
  read(nextPageToken: string): void {
    this.next = nextPageToken;
  }

  older(): boolean {
    if (!this.next) return false;
    this.tokens.push(this.next);
    this.next = "";
    return true;
  }

  newer(): boolean {
    if (this.tokens.length <= 1) return false;
    this.tokens.pop();
    return true;
  }
}

function when(game: PlayerGame): string {
  const joined = game.joinTime;
  return joined ? formatDateTime(new Date(Number(joined.seconds) * 1000)) : "";
}

/** Open a game of the list: a seat in play is taken up again by the player's credential alone, on a device
 * that has no seat token for it (the server acts for the player's one seat at that table). */
function resume(players: Players, game: PlayerGame): void {
  const held = players.store.seat(game.tableId);
  if (!held && players.me)
    players.store.keep({ tableId: game.tableId, seat: game.seat, token: "", name: players.me.displayName, player: players.me.playerId });
  window.location.hash = `#/table/${game.tableId}`;
}

export function openGames(players: Players, container: HTMLElement): () => void {
  const pages = new Pages();
  let games: PlayerGame[] | undefined;
  let error: string | undefined;
  let closed = false;

  function row(game: PlayerGame): HTMLElement {
    const playing = game.result === GameResult.PLAYING;
    const finished = game.result === GameResult.WON || game.result === GameResult.LOST;
    return h(
      "tr",
      { "data-game": game.tableId },
      h("td", {}, h("code", {}, game.tableId)),
      h("td", {}, W.gameSeat(gameName(gameInfo(game.game)), game.seat + 1)),
      h("td", {}, when(game)),
      h("td", { class: `result r${game.result}` }, W.result(game.result, game.place, game.score)),
      h(
        "td",
        { class: "row-actions" },
        playing ? h("button", { type: "button", class: "primary", "data-testid": `resume-${game.tableId}`, onclick: () => resume(players, game) }, W.resume) : null,
        finished ? h("a", { class: "button", href: `#/replay/${game.tableId}`, "data-testid": `replay-${game.tableId}` }, W.replay) : null,
      ),
    );
  }

  function draw(): void {
    if (closed) return;
    render(
      container,
      h("header", { class: "lobby-header" }, h("a", { href: "#/", class: "back" }, W.toLobby), h("h1", {}, W.gamesTitle), languageMenu()),
      error ? h("p", { class: "refusal", role: "alert" }, error) : null,
      games === undefined && !error ? h("p", { class: "loading" }, W.gamesLoading) : null,
      games?.length === 0 && pages.number === 1 ? h("p", { "data-testid": "no-games" }, W.gamesEmpty) : null,
      games?.length
        ? h(
            "section",
            { class: "games" },
            h(
              "div",
              { class: "scroll" },
              h(
                "table",
                { class: "table-list", "aria-label": W.gamesTitle, "data-testid": "my-games-list" },
                h("thead", {}, h("tr", {}, W.gamesHead.map((t) => h("th", { scope: "col" }, t)))),
                h("tbody", {}, games.map(row)),
              ),
            ),
          )
        : null,
      h(
        "nav",
        { class: "pager", "aria-label": W.page(pages.number) },
        h("button", { type: "button", "data-testid": "newer", disabled: pages.number <= 1, onclick: () => pages.newer() && void load() }, W.newer),
        h("span", { class: "small" }, W.page(pages.number)),
        h("button", { type: "button", "data-testid": "older", disabled: !pages.next, onclick: () => pages.older() && void load() }, W.older),
      ),
    );
  }

  async function load(): Promise<void> {
    games = undefined;
    draw();
    try {
      const reply = await players.client.listMyGames({ pageSize: PAGE_SIZE, pageToken: pages.token });
      games = reply.games;
      pages.read(reply.nextPageToken);
      error = undefined;
    } catch (e) {
      error = W.gamesFailed(refusalText(failure(e)));
    }
    draw();
  }

  void load();
  return () => {
    closed = true;
  };
}
