// The Rematch panel under a finished game's standings (match/rematch.ts): play again with the same players,
// decline, or withdraw while the others are asked; once everyone accepted the page goes to the new table with
// the seat the rematch took (kept as quick play's match is).
import { h } from "../dom";
import { currentPlayerId } from "../api";
import { keepMatch } from "../match/quickplay";
import { Rematch } from "../match/rematch";
import { MATCH_WORDS as W } from "../match/words";
import type { Nodes } from "../route";
import { FINISHED_TOKEN_MS, type FinishedToken, type SeatRecord, type SeatStore } from "../seats";
import type { TableSession } from "../session";
import { refusalText } from "./refusal";

/** Who may ask for the rematch on this page: the seat it played (its token, while the page holds it); after
 * a reload, a seat taken anonymously by the token the store keeps for it a while (`kept`, SeatStore.finished),
 * or the page's player's seat at the table (their credential names it). */
export function rematchSeat(session: TableSession, record: SeatRecord | undefined, kept?: FinishedToken): RematchSeat | undefined {
  const table = session.table;
  if (!table) return undefined;
  const me = currentPlayerId();
  if (session.seat !== undefined && record?.token) {
    const seat = table.seats[session.seat];
    return { token: record.token, name: seat?.playerName || record.name, asPlayer: !!me && (record.player === me || seat?.playerId === me) };
  }
  if (session.seat !== undefined && kept && "token" in kept && kept.seat === session.seat)
    return { token: kept.token, name: table.seats[kept.seat]?.playerName || kept.name, asPlayer: false };
  const mine = me ? table.seats.find((s) => s.playerId === me) : undefined;
  return mine ? { token: undefined, name: mine.playerName, asPlayer: true } : undefined;
}

/** Whether this page played an anonymous seat at the finished table whose kept token has expired (and no
 * credential names the seat): it says so, rather than offering a rematch it cannot ask for. */
export function rematchTooLate(session: TableSession, kept: FinishedToken | undefined): boolean {
  return session.seat !== undefined && kept !== undefined && "expired" in kept && kept.seat === session.seat;
}

export interface RematchSeat {
  token: string | undefined;
  name: string;
  asPlayer: boolean;
}

/** The rematch of the table the session shows, for the seat `rematchSeat` found: the page redraws on each
 * step, and goes to the new table once everyone accepted, its seat kept as quick play's match is. */
export function rematchFor(session: TableSession, seat: RematchSeat, nodes: Nodes, store: SeatStore, rerender: () => void): Rematch {
  const rematch: Rematch = new Rematch(session.tableId, seat.token, seat.asPlayer, () => session.route.origin, () => {
    const s = rematch.state;
    if (s.kind !== "matched") return rerender();
    store.dropFinishedToken(session.tableId); // the finished seat's token has had its one use
    const record = keepMatch(store, nodes, s.match, seat.name, rematch.clientSeed, currentPlayerId());
    window.location.hash = `#/table/${record.tableId}`;
  });
  return rematch;
}

export function rematchPanel(rematch: Rematch): HTMLElement {
  const s = rematch.state;
  const button = (key: string, text: string, onclick: () => void, primary = false): HTMLElement =>
    h("button", { type: "button", class: primary ? "primary" : "quiet", "data-key": key, "data-testid": key, onclick }, text);
  let status: string | undefined;
  let actions: HTMLElement[] = [];
  switch (s.kind) {
    case "idle":
      actions = [button("rematch-accept", W.rematchAccept, () => void rematch.accept(), true), button("rematch-decline", W.rematchDecline, () => void rematch.decline())];
      break;
    case "asking":
      status = W.rematchAsking;
      actions = [button("rematch-withdraw", W.rematchWithdraw, () => rematch.withdraw())];
      break;
    case "waiting":
      status = W.rematchWaiting(s.accepted, s.needed);
      actions = [button("rematch-withdraw", W.rematchWithdraw, () => rematch.withdraw())];
      break;
    case "declined":
      status = W.rematchDeclined(s.why, s.mine);
      break;
    case "failed":
      status = W.rematchFailed(refusalText(s.failure));
      actions = [button("rematch-accept", W.rematchAccept, () => void rematch.accept(), true)];
      break;
    case "matched":
      status = W.rematchAsking;
      break;
  }
  return h(
    "section",
    { class: "rematch", "aria-labelledby": "rematch-title", "data-testid": "rematch", "data-state": s.kind },
    h("h3", { id: "rematch-title" }, W.rematchTitle),
    s.kind === "idle" ? h("p", { class: "small" }, W.rematchIntro) : null,
    status ? h("p", { role: "status", "data-testid": "rematch-status" }, status) : null,
    actions.length ? h("div", { class: "rematch-actions" }, actions) : null,
  );
}

/** The panel's place for a seat whose rematch can no longer be asked from this page (rematchTooLate). */
export function rematchTooLatePanel(): HTMLElement {
  return h(
    "section",
    { class: "rematch", "aria-labelledby": "rematch-title", "data-testid": "rematch", "data-state": "too-late" },
    h("h3", { id: "rematch-title" }, W.rematchTitle),
    h("p", { role: "status", "data-testid": "rematch-status" }, W.rematchTooLate(Math.round(FINISHED_TOKEN_MS / 60000))),
  );
}
