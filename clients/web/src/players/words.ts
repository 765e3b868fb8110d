// Every word the players' screens say (the player bar, "My games", invites, held seats, signing in), each from
// the shared catalogues (`web.players.*` and the lobby's own words) in the page's language. Getters, so that a
// word is looked up when a screen is drawn, after the language is loaded or changed.
import { GameResult } from "../gen/thousand/v1/player_service_pb";
import { botName, t } from "../i18n";

const RESULTS: Partial<Record<GameResult, string>> = {
  [GameResult.PLAYING]: "playing",
  [GameResult.WON]: "won",
  [GameResult.LOST]: "lost",
  [GameResult.STOPPED]: "stopped",
};

export const PLAYER_WORDS = {
  defaultName: (digits: string) => t("web.players.default_name", { digits }),
  get yourName() {
    return `${t("web.lobby.your_name")} `;
  },
  get namePlaceholder() {
    return t("web.lobby.name_placeholder");
  },
  get guest() {
    return t("web.players.guest");
  },
  signedInAt: (host: string) => t("web.players.signed_in_at", { host }),
  signIn: (host: string) => t("web.players.sign_in", { host }),
  get signOut() {
    return t("web.players.sign_out");
  },
  signInFailed: (why: string) => t("web.players.sign_in_failed", { why }),
  signOutFailed: (why: string) => t("web.players.sign_out_failed", { why }),
  noPlayer: (why: string) => t("web.players.no_player", { why }),
  get myGames() {
    return t("web.players.my_games");
  },
  /** The player bar's name for assistive technology. */
  get player() {
    return t("web.players.player");
  },
  get playerId() {
    return t("web.players.player_id");
  },
  get playerIdHint() {
    return t("web.players.player_id_hint");
  },
  claimed: (n: number) => t("web.players.claimed", { n }),
  // My games
  get gamesTitle() {
    return t("web.players.my_games");
  },
  get gamesEmpty() {
    return t("web.players.games_empty");
  },
  get gamesLoading() {
    return t("web.players.games_loading");
  },
  gamesFailed: (why: string) => t("web.players.games_failed", { why }),
  get gamesHead() {
    return [t("web.table"), t("web.lobby.game"), t("web.players.joined"), t("web.players.result"), ""];
  },
  gameSeat: (game: string, seat: number) => `${game}, ${t("seat.numbered", { seat })}`,
  get newer() {
    return `← ${t("web.players.newer")}`;
  },
  get older() {
    return `${t("web.players.older")} →`;
  },
  page: (n: number) => t("web.players.page", { n }),
  get resume() {
    return t("web.players.resume");
  },
  get replay() {
    return t("web.lobby.record");
  },
  result: (result: GameResult, place: number, score: number): string =>
    t("web.players.game_result", { result: RESULTS[result] ?? "unknown", place, score }),
  get toLobby() {
    return `← ${t("web.lobby")}`;
  },
  // Private tables and invites
  get privateTable() {
    return t("web.players.private_table");
  },
  heldFor: (seat: number) => `${t("web.players.held_for", { seat })} `,
  get inviteTitle() {
    return t("web.players.invite_title");
  },
  get inviteText() {
    return t("web.players.invite_text");
  },
  get inviteLink() {
    return t("web.players.invite_link");
  },
  get copy() {
    return t("web.players.copy");
  },
  get copied() {
    return t("web.players.copied");
  },
  invitedTitle: (game: string) => t("web.players.invited_title", { game }),
  invitedSeats: (free: number) => t("web.players.invited_seats", { free }),
  get invitedNoSeat() {
    return t("web.players.invited_no_seat");
  },
  invitedSeat: (seat: number, who: string) => `${seat}: ${who}`,
  bot: (strategy: string) => t("web.lobby.bot", { strategy: botName(strategy) }),
  get free() {
    return t("web.lobby.free");
  },
  get invitedJoin() {
    return t("web.players.invited_join");
  },
  get invitedWatch() {
    return t("web.players.invited_watch");
  },
  invitedFailed: (why: string) => t("web.players.invited_failed", { why }),
  get invitedBad() {
    return t("web.players.invited_bad");
  },
  // Held (reserved) seats
  get heldForYou() {
    return t("web.players.held_for_you");
  },
  get heldForOther() {
    return t("web.players.held_for_other");
  },
  get privateBadge() {
    return t("web.players.private_badge");
  },
};
