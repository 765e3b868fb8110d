// A player's profile (#/profile/ID; the page's own player without an ID): their rating in each pool they
// played (RatingService.GetPlayerProfile) with their place on its leaderboard, and their recent rated games,
// each with the rating before and after and a way to its record.
import { languageMenu } from "./language";
import type { GetPlayerProfileResponse, RatedGame, RatingPool } from "../gen/thousand/v1/rating_service_pb";
import { failure } from "../api";
import { h, render } from "../dom";
import { MATCH_WORDS as W } from "../match/words";
import type { Players } from "../players/players";
import type { Route } from "../route";
import { gameInfo, gameName } from "../rules";
import { poolHash, ratingClient } from "./leaderboard";
import { refusalText } from "./refusal";

export const RECENT_GAMES = 20;

function poolName(pool: RatingPool | undefined): string {
  return pool ? W.poolName(gameName(gameInfo(pool.game)), pool.players, pool.bots) : "";
}

function when(game: RatedGame): string {
  return game.time ? new Date(Number(game.time.seconds) * 1000).toISOString().slice(0, 16).replace("T", " ") : "";
}

export function openProfile(anyNode: Route, players: Players, container: HTMLElement, id: string | undefined): () => void {
  const playerId = id ? decodeURIComponent(id) : players.me?.playerId;
  const client = ratingClient(anyNode);
  let profile: GetPlayerProfileResponse | undefined;
  let error: string | undefined = playerId ? undefined : W.profileNone;
  let closed = false;

  function draw(): void {
    if (closed) return;
    const pools = new Map((profile?.ratings ?? []).map((r) => [r.pool?.poolId ?? "", r.pool]));
    render(
      container,
      h(
        "header",
        { class: "lobby-header" },
        h("a", { href: "#/", class: "back" }, W.toLobby),
        h("h1", {}, W.profileTitle(profile?.displayName || playerId || "")),
        h("a", { href: "#/leaderboard", class: "button" }, W.leaderboard),
        languageMenu(),
      ),
      h(
        "main",
        { class: "profile", "data-testid": "profile" },
        error ? h("p", { class: "refusal", role: "alert" }, error) : null,
        !profile && !error ? h("p", { class: "loading" }, W.loading) : null,
        profile
          ? [
              h("h2", {}, W.ratingsTitle),
              profile.ratings.length
                ? h(
                    "div",
                    { class: "scroll" },
                    h(
                      "table",
                      { class: "rank-list", "aria-label": W.ratingsTitle, "data-testid": "profile-ratings" },
                      h("thead", {}, h("tr", {}, W.ratingsHead.map((t, i) => h("th", { scope: "col", class: i >= 1 ? "num" : undefined }, t)))),
                      h(
                        "tbody",
                        {},
                        profile.ratings.map((r) =>
                          h(
                            "tr",
                            {},
                            h("td", {}, r.pool ? h("a", { href: poolHash({ game: r.pool.game, players: r.pool.players, bots: r.pool.bots }) }, poolName(r.pool)) : ""),
                            h("td", { class: "num" }, (r.rating?.ordinal ?? 0).toFixed(1)),
                            h("td", { class: "num" }, (r.rating?.mu ?? 0).toFixed(2)),
                            h("td", { class: "num" }, (r.rating?.sigma ?? 0).toFixed(2)),
                            h("td", { class: "num" }, String(r.rating?.games ?? 0)),
                            h("td", { class: "num" }, r.place > 0 ? String(r.place) : W.noPlace),
                          ),
                        ),
                      ),
                    ),
                  )
                : h("p", { "data-testid": "no-ratings" }, W.noRatings),
              h("h2", {}, W.recentTitle),
              profile.recentGames.length
                ? h(
                    "div",
                    { class: "scroll" },
                    h(
                      "table",
                      { class: "rank-list", "aria-label": W.recentTitle, "data-testid": "profile-games" },
                      h("thead", {}, h("tr", {}, W.recentHead.map((t, i) => h("th", { scope: "col", class: i === 2 || i === 3 ? "num" : undefined }, t)))),
                      h(
                        "tbody",
                        {},
                        profile.recentGames.map((g) =>
                          h(
                            "tr",
                            { "data-game": g.tableId },
                            h("td", {}, h("a", { href: `#/replay/${g.tableId}`, title: W.replay }, h("code", {}, g.tableId))),
                            h("td", {}, poolName(pools.get(g.poolId)) || g.poolId),
                            h("td", { class: "num" }, String(g.rank)),
                            h("td", { class: "num" }, W.change(g.before?.ordinal ?? 0, g.after?.ordinal ?? 0)),
                            h("td", {}, when(g)),
                          ),
                        ),
                      ),
                    ),
                  )
                : h("p", {}, W.noRatings),
            ]
          : null,
      ),
    );
  }

  async function load(): Promise<void> {
    if (!playerId) return draw();
    draw();
    try {
      profile = await client.getPlayerProfile({ playerId, recentGames: RECENT_GAMES });
    } catch (e) {
      error = W.profileFailed(refusalText(failure(e)));
    }
    draw();
  }

  void load();
  return () => {
    closed = true;
  };
}
