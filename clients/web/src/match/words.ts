// Every word of quick play, the leaderboard, the profile and a table's rating change, each from the shared
// catalogues (`web.match.*` and the lobby's own words) in the page's language. Getters, so that a word is
// looked up when a screen is drawn, after the language is loaded or changed.
import { formatNumber, t } from "../i18n";

/** A rating as the language writes it, one decimal. */
function one(n: number, signed = false): string {
  return formatNumber(n, { minimumFractionDigits: 1, maximumFractionDigits: 1, signDisplay: signed ? "exceptZero" : "auto" });
}

/** The quick-play refusals said for the web (the catalogues' `error.*` words speak of the terminal's flags). */
const REASONS = {
  QUICKPLAY_ALREADY_WAITING: "web.match.reason_QUICKPLAY_ALREADY_WAITING",
  QUICKPLAY_TICKET_MISMATCH: "web.match.reason_QUICKPLAY_TICKET_MISMATCH",
  QUICKPLAY_UNKNOWN_PRESET: "web.match.reason_QUICKPLAY_UNKNOWN_PRESET",
} as const;

export const MATCH_WORDS = {
  // Play now (the lobby's first form)
  get playTitle() {
    return t("web.match.play_title");
  },
  get playIntro() {
    return t("web.match.play_intro");
  },
  get game() {
    return t("web.lobby.game");
  },
  get players() {
    return t("web.match.players");
  },
  get rated() {
    return t("web.match.rated");
  },
  get ratedHint() {
    return t("web.match.rated_hint");
  },
  get botsMayFill() {
    return t("web.match.bots_may_fill");
  },
  get maxWait() {
    return t("web.match.max_wait");
  },
  seconds: (s: number) => t("web.match.seconds", { s }),
  get playNow() {
    return t("web.match.play_title");
  },
  // The waiting screen
  waitingTitle: (game: string, players: number) => t("web.match.waiting_title", { game, players }),
  waitingCount: (waiting: number, needed: number) => t("web.match.waiting_count", { waiting, needed }),
  waited: (s: number) => t("web.match.waited", { s: Math.round(s) }),
  estimate: (s: number | undefined) =>
    t("web.match.estimate", { state: s === undefined ? "unknown" : s < 1 ? "soon" : "more", s: s === undefined ? 0 : Math.ceil(s) }),
  ratingWindow: (w: number) => t("web.match.rating_window", { w: one(w) }),
  get connecting() {
    return t("web.match.connecting");
  },
  get reconnecting() {
    return t("web.match.reconnecting");
  },
  get cancel() {
    return t("web.match.cancel");
  },
  found: (seat: number) => t("web.match.found", { seat }),
  get noMatch() {
    return t("web.match.no_match");
  },
  get tryAgain() {
    return t("web.match.try_again");
  },
  failed: (why: string) => t("web.match.failed", { why }),
  /** The server's refusals of QuickPlay, by ErrorInfo reason (the others: ui/refusal.ts). */
  get reasons(): Record<string, string> {
    return Object.fromEntries(Object.entries(REASONS).map(([reason, key]) => [reason, t(key)]));
  },
  get toLobby() {
    return `← ${t("web.lobby")}`;
  },
  get matchNote() {
    return t("web.match.match_note");
  },
  // Header links
  get leaderboard() {
    return t("web.match.leaderboard");
  },
  get myRating() {
    return t("web.match.my_rating");
  },
  // The leaderboard
  get boardTitle() {
    return t("web.match.leaderboard");
  },
  get pool() {
    return t("web.match.pool");
  },
  get people() {
    return t("web.match.people");
  },
  get bots() {
    return t("web.match.bots");
  },
  poolName: (game: string, players: number, bots: boolean) => t("web.match.pool_name", { game, players, bots: bots ? "yes" : "no" }),
  get boardHead() {
    return [t("web.match.place"), t("web.match.player"), t("web.match.rating_ordinal"), t("web.match.games")];
  },
  get better() {
    return `← ${t("web.match.better")}`;
  },
  get worse() {
    return `${t("web.match.worse")} →`;
  },
  page: (n: number) => t("web.players.page", { n }),
  get boardEmpty() {
    return t("web.match.board_empty");
  },
  minGames: (n: number) => t("web.match.min_games", { n }),
  get loading() {
    return t("web.match.loading");
  },
  boardFailed: (why: string) => t("web.match.board_failed", { why }),
  // The profile
  profileTitle: (name: string) => t("web.match.profile_title", { name }),
  get profileNone() {
    return t("web.match.profile_none");
  },
  profileFailed: (why: string) => t("web.match.profile_failed", { why }),
  get ratingsTitle() {
    return t("web.match.ratings");
  },
  get ratingsHead() {
    return [t("web.match.pool"), t("web.match.rating_ordinal"), "μ", "σ", t("web.match.games"), t("web.match.place")];
  },
  get noRatings() {
    return t("web.match.no_ratings");
  },
  get recentTitle() {
    return t("web.match.recent_title");
  },
  get recentHead() {
    return [t("web.table"), t("web.match.pool"), t("web.match.place_at_table"), t("web.match.rating"), t("web.match.when")];
  },
  noPlace: "—",
  change: (before: number, after: number) => `${one(before)} → ${one(after)}`,
  get replay() {
    return t("web.lobby.record");
  },
  // A table's RatingsUpdated
  get tableRatings() {
    return t("web.match.ratings");
  },
  tableRatingLine: (who: string, before: number, after: number) => `${who}: ${one(before)} → ${one(after)} (${one(after - before, true)})`,
  tableNotRated: (why: string) => t("web.match.not_rated", { why }),
  get ratingsLog() {
    return t("web.match.ratings_log");
  },
  // A finished table's rematch
  get rematchTitle() {
    return t("web.match.rematch_title");
  },
  get rematchIntro() {
    return t("web.match.rematch_intro");
  },
  get rematchAccept() {
    return t("web.match.rematch_accept");
  },
  get rematchDecline() {
    return t("web.match.rematch_decline");
  },
  get rematchWithdraw() {
    return t("web.match.rematch_withdraw");
  },
  get rematchAsking() {
    return t("web.match.rematch_asking");
  },
  rematchWaiting: (accepted: number, needed: number) => t("web.match.rematch_waiting", { accepted, needed }),
  /** `why`: REMATCH_DECLINED's metadata (`declined`, `timeout`); `mine`: this seat declined. */
  rematchDeclined: (why: string, mine: boolean) => t("web.match.rematch_declined", { why: mine ? "mine" : why }),
  rematchFailed: (why: string) => t("web.match.rematch_failed", { why }),
  rematchTooLate: (minutes: number) => t("web.match.rematch_too_late", { minutes }),
};
