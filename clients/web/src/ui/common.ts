// Pieces both tables share: where each seat sits on screen, the turn clock, the final standings.
import { h, icon, type Child } from "../dom";
import type { RatingsUpdated } from "../gen/thousand/v1/ratings_pb";
import { MATCH_WORDS } from "../match/words";
import type { TableLike } from "../session";
import { t } from "../i18n";

/** The seats in screen order, the viewer's (or seat 0 for a spectator) first, then clockwise. */
export function seatOrder(players: number, seat: number | undefined): number[] {
  const first = seat ?? 0;
  return Array.from({ length: players }, (_, i) => (first + i) % players);
}

/** The acting seat's clock, when the table has one (Turn.deadline); counted down by the page's ticker. */
export function clockOf(session: TableLike): Child {
  const deadline = session.turn?.deadline;
  if (!deadline) return null;
  const ms = Number(deadline.seconds) * 1000 + deadline.nanos / 1e6;
  const bank = session.turn?.bankRemaining;
  const bankMs = bank ? Number(bank.seconds) * 1000 + bank.nanos / 1e6 : 0;
  const left = ms - Date.now();
  return h(
    "span",
    { class: `clock${left < 10000 ? " low" : ""}`, "data-deadline": ms, "data-bank": bankMs, role: "timer", "aria-label": t("web.time_left") },
    icon("stopwatch"),
    " ",
    h("span", { class: "clock-time" }, clockLabel(left, bankMs)),
  );
}

/** "0:42 + bank 2:00" (after a stopwatch, drawn: dom.ts icon): the per-move time left, then the bank; only the
 * bank once the move's time is gone. */
export function clockLabel(leftMs: number, bankMs: number): string {
  const left = Math.max(0, leftMs);
  const move = Math.max(0, left - bankMs);
  return `${move > 0 ? clockText(move) + (bankMs > 0 ? ` + ${t("web.bank_time", { time: clockText(bankMs) })}` : "") : t("web.bank_time", { time: clockText(left) })}`;
}

export function clockText(ms: number): string {
  const s = Math.ceil(ms / 1000);
  return `${Math.floor(s / 60)}:${String(s % 60).padStart(2, "0")}`;
}

export interface StandingLine {
  seat: number;
  place: number;
  score: number;
  payout?: number;
}

/** The final standings; `last`: the last deal's (round's) summary to open again, once it was put away. */
export function standingsPanel(session: TableLike, standings: StandingLine[], check?: { ok: boolean; text: string }, last?: { label: string; open: () => void }): HTMLElement {
  return h(
    "section",
    { class: "standings", "data-testid": "standings", "aria-label": t("web.final_standings") },
    h("h2", {}, t("web.game_over_standings")),
    h(
      "ol",
      {},
      standings.map((s) =>
        h(
          "li",
          { class: s.place === 1 ? "winner" : "" },
          t("web.standing", { name: session.names(s.seat), score: s.score, payout: s.payout ?? 0 }),
        ),
      ),
    ),
    session.ratings ? ratingsPanel(session, session.ratings) : null,
    check ? h("p", { class: check.ok ? "check ok" : "check bad", "data-testid": "game-check" }, check.text) : null,
    h("a", { href: `#/replay/${session.tableId}`, class: "button", "data-key": "see-record" }, t("web.see_record")),
    " ",
    last ? h("button", { type: "button", "data-key": "last-summary", "data-testid": "last-summary", onclick: last.open }, last.label) : null,
    last ? " " : null,
    h("a", { href: "#/", class: "button", "data-key": "to-lobby" }, t("web.back_to_lobby")),
  );
}

/** Each seat's rating before → after (RatingsUpdated, the table's last event of a rated game). */
export function ratingsPanel(session: TableLike, update: RatingsUpdated): HTMLElement {
  return h(
    "section",
    { class: "ratings-change", "data-testid": "ratings-updated", "aria-label": MATCH_WORDS.tableRatings },
    h("h3", {}, MATCH_WORDS.tableRatings),
    update.notRated
      ? h("p", {}, MATCH_WORDS.tableNotRated(update.notRated))
      : h(
          "ul",
          {},
          update.seats.map((s) =>
            h("li", { "data-seat": s.seat }, MATCH_WORDS.tableRatingLine(session.names(s.seat), s.before?.ordinal ?? 0, s.after?.ordinal ?? 0)),
          ),
        ),
  );
}
