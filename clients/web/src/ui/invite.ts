// Private tables in the page: the invite panel (the link to copy, for whoever holds the table's invite
// code), the page an invite link opens (#/invite/ID/CODE: the table, its free seats, "Take a seat"), and the
// words for seats held for a player (Seat.reserved_for).
import { languageMenu } from "./language";
import { SeatKind, TableStatus, type Seat, type Table } from "../gen/thousand/v1/table_service_pb";
import { currentPlayerId, failure } from "../api";
import { h, render } from "../dom";
import { takeSeat } from "../join";
import type { Nodes, Route } from "../route";
import { gameInfo, gameName } from "../rules";
import type { SeatStore } from "../seats";
import { inviteLink, type Invite } from "../players/invite";
import { PLAYER_WORDS as W } from "../players/words";
import { refusalText } from "./refusal";

/** Whether a seat is one a person may take now: open, free, and held for nobody or for `me`. */
export function seatFreeFor(seat: Seat, me: string | undefined): boolean {
  return seat.kind !== SeatKind.BOT && !seat.taken && (!seat.reservedFor || seat.reservedFor === me);
}

/** "held for you" or "held for a player" for a free seat held for someone; undefined otherwise. */
export function heldText(seat: Seat, me: string | undefined): string | undefined {
  if (!seat.reservedFor || seat.taken) return undefined;
  return seat.reservedFor === me ? W.heldForYou : W.heldForOther;
}

/** The link to send, with a button that copies it. */
export function invitePanel(invite: Invite): HTMLElement {
  const link = inviteLink(window.location.href, invite);
  const status = h("span", { class: "small", role: "status", "data-testid": "invite-copied" });
  return h(
    "section",
    { class: "invite", "aria-label": W.inviteTitle, "data-testid": "invite" },
    h("h2", {}, W.inviteTitle),
    h("p", { class: "small" }, W.inviteText),
    h("label", { for: "invite-link" }, W.inviteLink),
    h("input", { id: "invite-link", type: "text", readonly: true, value: link, "data-testid": "invite-link", onfocus: (e: Event) => (e.target as HTMLInputElement).select() }),
    h(
      "button",
      {
        type: "button",
        "data-key": "copy-invite",
        onclick: () =>
          void navigator.clipboard?.writeText(link).then(
            () => (status.textContent = W.copied),
            () => (status.textContent = ""),
          ),
      },
      W.copy,
    ),
    " ",
    status,
  );
}

export interface InviteOptions {
  anyNode: Route;
  nodes: Nodes;
  store: SeatStore;
  container: HTMLElement;
  go: (hash: string) => void;
}

/** The page of an invite link: what the table is, its free seats, and "Take a seat" with the invite. */
export function openInvite(opts: InviteOptions, invite: Invite | undefined): () => void {
  const { container } = opts;
  let closed = false;
  if (!invite) {
    render(container, h("a", { href: "#/", class: "back" }, W.toLobby), h("p", { class: "refusal", role: "alert" }, W.invitedBad));
    return () => undefined;
  }
  const { tableId, code } = invite;
  if (opts.store.seat(tableId)) {
    opts.go(`#/table/${tableId}`); // already seated: the link only brings them back
    return () => undefined;
  }
  let table: Table | undefined;
  let error: string | undefined;
  let busy = false;

  function draw(): void {
    if (closed) return;
    const me = currentPlayerId();
    const free = table ? table.seats.filter((s) => seatFreeFor(s, me)).length : 0;
    render(
      container,
      h("header", { class: "lobby-header" }, h("a", { href: "#/", class: "back" }, W.toLobby), h("h1", {}, table ? W.invitedTitle(gameName(gameInfo(table.game))) : W.inviteTitle), languageMenu()),
      error ? h("p", { class: "refusal", role: "alert", "data-testid": "invite-error" }, error) : null,
      table
        ? h(
            "section",
            { class: "invited", "data-testid": "invited" },
            h("p", {}, h("code", {}, tableId), " · ", table.status === TableStatus.WAITING && free > 0 ? W.invitedSeats(free) : W.invitedNoSeat),
            h(
              "ul",
              {},
              table.seats.map((s, i) =>
                h("li", {}, W.invitedSeat(i + 1, s.kind === SeatKind.BOT ? W.bot(s.strategy) : s.taken ? s.playerName : (heldText(s, me) ?? W.free))),
              ),
            ),
            free > 0 && table.status !== TableStatus.FINISHED
              ? h("button", { type: "button", class: "primary", "data-testid": "invite-join", disabled: busy, onclick: () => void join() }, W.invitedJoin)
              : null,
            " ",
            h("a", { class: "button", href: `#/table/${tableId}` }, W.invitedWatch),
          )
        : null,
    );
  }

  async function join(): Promise<void> {
    busy = true;
    draw();
    try {
      await takeSeat(opts.nodes, opts.store, tableId, undefined, code);
      opts.go(`#/table/${tableId}`);
    } catch (e) {
      error = W.invitedFailed(refusalText(failure(e)));
      busy = false;
      draw();
    }
  }

  opts.anyNode
    .call((c) => c.getTable({ tableId }))
    .then(
      (reply) => {
        table = reply.table;
        draw();
      },
      (e: unknown) => {
        error = W.invitedFailed(refusalText(failure(e)));
        draw();
      },
    );
  draw();
  return () => {
    closed = true;
  };
}
