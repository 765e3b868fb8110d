// "Play now": the lobby's first form (game, players, rated, bots, the wait) and the waiting screen that
// follows (#/play/...): the players waiting for the same game, the estimated wait, and Cancel, which closes
// the stream and so leaves the queue. Matched, the page goes straight to the table with the seat the match
// took (as joining does).
import { languageMenu } from "./language";
import { GameKind } from "../gen/thousand/v1/table_service_pb";
import { currentPlayerId, failure } from "../api";
import { h, render } from "../dom";
import { DEFAULT_WISH, KEEP_PLACE_MS, QuickPlay, WAITS_S, keepMatch, parseWish, wishHash, type Place, type Standing, type Wish } from "../match/quickplay";
import { MATCH_WORDS as W } from "../match/words";
import type { Nodes } from "../route";
import { GAMES, gameInfo, gameName } from "../rules";
import type { SeatStore } from "../seats";
import { refusalText } from "./refusal";

const WISH_KEY = "thousand.wish.v1";
/** The tab's place in the queue (sessionStorage): a reload of the waiting page keeps it. */
const PLACE_KEY = "thousand.place.v1";

function keptPlace(hash: string, now: number): Place | undefined {
  try {
    const place = JSON.parse(window.sessionStorage.getItem(PLACE_KEY) ?? "null") as Place | null;
    return place && place.hash === hash && now - place.at < KEEP_PLACE_MS ? place : undefined;
  } catch {
    return undefined;
  }
}

/** The last wish of this browser, so that the form opens as the player left it. */
function lastWish(store: Storage): Wish {
  try {
    const raw = store.getItem(WISH_KEY);
    return raw ? { ...DEFAULT_WISH, ...(JSON.parse(raw) as Partial<Wish>) } : DEFAULT_WISH;
  } catch {
    return DEFAULT_WISH;
  }
}

/** The lobby's "Play now" form; submitting it opens the waiting screen. */
export function playForm(go: (hash: string) => void): HTMLElement {
  let wish = lastWish(window.localStorage);
  const section = h("section", { class: "play-now", "aria-labelledby": "play-now-title" });

  function set(change: Partial<Wish>): void {
    wish = { ...wish, ...change };
    const range = gameInfo(wish.game).players;
    wish.players = Math.min(range.max, Math.max(range.min, wish.players));
    draw();
  }

  function draw(): void {
    const range = gameInfo(wish.game).players;
    const counts = Array.from({ length: range.max - range.min + 1 }, (_, i) => range.min + i);
    section.replaceChildren(
      h("h2", { id: "play-now-title" }, W.playTitle),
      h("p", { class: "small" }, W.playIntro),
      h(
        "form",
        {
          class: "play-form",
          onsubmit: (e: Event) => {
            e.preventDefault();
            window.localStorage.setItem(WISH_KEY, JSON.stringify(wish));
            go(wishHash(wish));
          },
        },
        h(
          "label",
          {},
          `${W.game} `,
          h(
            "select",
            { "data-key": "play-game", "data-testid": "play-game", onchange: (e: Event) => set({ game: Number((e.target as HTMLSelectElement).value) as GameKind }) },
            GAMES.map((g) => h("option", { value: g.kind, selected: g.kind === wish.game }, gameName(g))),
          ),
        ),
        h(
          "label",
          {},
          `${W.players} `,
          h(
            "select",
            { "data-key": "play-players", "data-testid": "play-players", onchange: (e: Event) => set({ players: Number((e.target as HTMLSelectElement).value) }) },
            counts.map((n) => h("option", { value: n, selected: n === wish.players }, String(n))),
          ),
        ),
        h(
          "label",
          { title: W.ratedHint },
          h("input", { type: "checkbox", "data-key": "play-rated", "data-testid": "play-rated", checked: wish.rated, onchange: (e: Event) => set({ rated: (e.target as HTMLInputElement).checked }) }),
          ` ${W.rated}`,
        ),
        h(
          "label",
          {},
          h("input", { type: "checkbox", "data-key": "play-bots", "data-testid": "play-bots", checked: wish.botsMayFill, onchange: (e: Event) => set({ botsMayFill: (e.target as HTMLInputElement).checked }) }),
          ` ${W.botsMayFill}`,
        ),
        h(
          "label",
          {},
          `${W.maxWait} `,
          h(
            "select",
            { "data-key": "play-wait", "data-testid": "play-wait", onchange: (e: Event) => set({ maxWaitS: Number((e.target as HTMLSelectElement).value) }) },
            WAITS_S.map((s) => h("option", { value: s, selected: s === wish.maxWaitS }, W.seconds(s))),
          ),
        ),
        h("button", { type: "submit", class: "primary", "data-key": "play-now", "data-testid": "play-now" }, W.playNow),
      ),
    );
  }

  draw();
  return section;
}

export interface WaitingOptions {
  nodes: Nodes;
  store: SeatStore;
  container: HTMLElement;
  go: (hash: string) => void;
}

/** The waiting screen of the wish in the address (`#/play/...`). */
export function openWaiting(opts: WaitingOptions, parts: readonly string[]): () => void {
  const wish = parseWish(parts);
  const name = opts.store.playerName() || "Player";
  const hash = window.location.hash;
  const play = new QuickPlay(wish, name, opts.nodes, undefined, keptPlace(hash, Date.now()));
  const keep = (): void => window.sessionStorage.setItem(PLACE_KEY, JSON.stringify({ hash, seatToken: play.seatToken, clientSeed: play.clientSeed, at: Date.now() } satisfies Place));
  const forget = (): void => window.sessionStorage.removeItem(PLACE_KEY);
  keep();
  const controller = new AbortController();
  let where: Standing | undefined;
  let note: string = W.connecting;
  let error: string | undefined;
  let ended = false;
  const game = gameName(gameInfo(wish.game));

  function draw(): void {
    if (controller.signal.aborted && !ended) return;
    render(
      opts.container,
      h("header", { class: "lobby-header" }, h("a", { href: "#/", class: "back" }, W.toLobby), languageMenu()),
      h(
        "main",
        { class: "waiting-room", "aria-labelledby": "waiting-title", "data-testid": "waiting" },
        h("h1", { id: "waiting-title" }, W.waitingTitle(game, wish.players)),
        wish.rated ? h("p", { class: "badge rated" }, W.rated) : null,
        error
          ? [
              h("p", { class: "refusal", role: "alert", "data-testid": "waiting-error" }, error),
              h("button", { type: "button", class: "primary", "data-key": "try-again", onclick: () => opts.go(`${wishHash(wish)}/${Date.now()}`) }, W.tryAgain),
              " ",
              h("a", { href: "#/", class: "button" }, W.toLobby),
            ]
          : [
              h(
                "div",
                { class: "waiting-status", role: "status", "aria-live": "polite" },
                where
                  ? [
                      h("p", { class: "waiting-count", "data-testid": "waiting-count" }, W.waitingCount(where.waiting, where.needed)),
                      h("p", { "data-testid": "waiting-estimate" }, W.estimate(where.estimateS)),
                      h("p", { class: "small" }, W.waited(Math.floor(where.waitedS)), wish.rated && where.ratingWindow > 0 ? ` · ${W.ratingWindow(where.ratingWindow)}` : ""),
                    ]
                  : null,
                note ? h("p", { class: "small", "data-testid": "waiting-note" }, note) : null,
              ),
              h("div", { class: "spinner", "aria-hidden": "true" }),
              h("button", { type: "button", "data-key": "cancel", "data-testid": "cancel-wait", onclick: () => cancel() }, W.cancel),
            ],
      ),
    );
  }

  function cancel(): void {
    forget();
    controller.abort();
    opts.go("#/");
  }

  draw();
  void play
    .run(
      {
        waiting: (s) => {
          keep();
          where = s;
          note = "";
          draw();
        },
        reconnecting: () => {
          note = W.reconnecting;
          draw();
        },
      },
      controller.signal,
    )
    .then((match) => {
      if (!match || controller.signal.aborted) return;
      forget();
      const record = keepMatch(opts.store, opts.nodes, match, name, play.clientSeed, currentPlayerId());
      ended = true;
      opts.go(`#/table/${record.tableId}`);
    })
    .catch((e: unknown) => {
      if (controller.signal.aborted) return;
      forget();
      const f = failure(e);
      error = f.reason === "QUICKPLAY_NO_MATCH" ? W.noMatch : W.failed(W.reasons[f.reason] ?? refusalText(f));
      ended = true;
      draw();
    });
  return () => controller.abort();
}
