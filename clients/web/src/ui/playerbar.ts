// The player bar above the lobby: the name played under, who that is (a guest, or an account of an issuer),
// "Sign in" with each issuer the server trusts, "Sign out", "My games", and the player id a friend needs to
// hold a seat for this player; and the language menu.
import { PlayerKind } from "../gen/thousand/v1/player_service_pb";
import { h } from "../dom";
import type { Players } from "../players/players";
import { PLAYER_WORDS as W } from "../players/words";
import { t } from "../i18n";
import { languageMenu } from "./language";
import { MATCH_WORDS } from "../match/words";

function host(issuer: string): string {
  try {
    return new URL(issuer).host;
  } catch {
    return issuer;
  }
}

export function playerBar(players: Players): HTMLElement {
  const me = players.me;
  const account = players.identity.account();
  const nameInput = h("input", {
    type: "text",
    id: "player-name",
    "data-key": "player-name",
    "data-testid": "player-name",
    maxlength: 64,
    value: me?.displayName ?? players.store.playerName(),
    placeholder: W.namePlaceholder,
    oninput: (e: Event) => players.store.setPlayerName((e.target as HTMLInputElement).value.trim()),
    onchange: (e: Event) => void players.rename((e.target as HTMLInputElement).value.trim()),
  });
  const who = me ? (me.kind === PlayerKind.OIDC ? W.signedInAt(host(me.issuer)) : W.guest) : null;
  const signIns = account
    ? []
    : (players.options?.providers ?? []).map((p) =>
        h(
          "button",
          { type: "button", "data-key": `sign-in-${p.issuer}`, "data-testid": "sign-in", onclick: () => void players.signIn(p, window.location, window.sessionStorage) },
          W.signIn(host(p.issuer)),
        ),
      );
  return h(
    "nav",
    { class: "playerbar", "aria-label": W.player },
    h("h1", {}, t("term.game_thousand")),
    languageMenu(),
    h("label", { for: "player-name" }, W.yourName),
    nameInput,
    who ? h("span", { class: "who small", "data-testid": "player-kind" }, who) : null,
    me ? h("a", { class: "button", href: "#/games", "data-key": "my-games", "data-testid": "my-games" }, W.myGames) : null,
    h("a", { class: "button", href: "#/leaderboard", "data-key": "leaderboard", "data-testid": "leaderboard-link" }, MATCH_WORDS.leaderboard),
    me ? h("a", { class: "button", href: `#/profile/${encodeURIComponent(me.playerId)}`, "data-key": "my-rating", "data-testid": "my-rating" }, MATCH_WORDS.myRating) : null,
    signIns,
    account ? h("button", { type: "button", class: "quiet", "data-key": "sign-out", "data-testid": "sign-out", onclick: () => void players.signOut(window.location) }, W.signOut) : null,
    me
      ? h(
          "details",
          { class: "player-id small" },
          h("summary", {}, W.playerId),
          h("code", { "data-testid": "player-id" }, me.playerId),
          h("span", {}, ` (${W.playerIdHint})`),
        )
      : null,
    players.notice ? h("p", { class: "notice small", role: "status", "data-testid": "player-notice" }, players.notice) : null,
  );
}
