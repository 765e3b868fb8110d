// The Thousand table: opponents round the table (cards held, points taken this deal, bids), the trick or the
// auction in the middle, the talon and the exchange, trump and marriages, the contract, your hand and your
// choices, the last trick and the deal's tricks, the score sheet deal by deal, the deal checks, the clock,
// and the summary of each deal before the next auction.
import type { ThousandView } from "../gen/thousand/v1/thousand_views_pb";
import { DealPhase } from "../gen/thousand/v1/thousand_views_pb";
import { cardLabel, suitSymbol } from "../cards";
import { h, type Child } from "../dom";
import type { TableLike } from "../session";
import type { Ui } from "../ui/tablepage";
import { backs, cardBack, cardFace } from "../ui/cardviews";
import { clockOf, seatOrder, standingsPanel } from "../ui/common";
import { controls } from "./controls";
import type { ThousandModel } from "./model";
import { KIND_WORDS, PHASE_WORDS } from "./words";
import { sheetTable, summaryDialog } from "./sheet";

function seatPanel(session: TableLike, view: ThousandView, seat: number, where: string): HTMLElement {
  const score = view.scores[seat];
  const inDeal = view.active.includes(seat);
  const spoken = view.auction.filter((a) => a.seat === seat);
  const last = spoken[spoken.length - 1];
  const bidText = last === undefined ? "" : last.bid === undefined ? "passed" : `bid ${last.bid}`;
  const badges: Child[] = [];
  if (view.dealer === seat) badges.push(h("span", { class: "badge", title: "dealer" }, "D"));
  if (view.declarer === seat) badges.push(h("span", { class: "badge decl", title: "declarer" }, `★ ${view.contract ?? view.bid ?? ""}`));
  if (view.sitter === seat) badges.push(h("span", { class: "badge" }, "sits out"));
  if (score?.onBarrel) badges.push(h("span", { class: "badge barrel", title: "on the barrel" }, `barrel ${Math.min(score.barrelDeals + 1, 3)}/3`));
  if (score?.bolts) badges.push(h("span", { class: "badge", title: "bolts" }, "•".repeat(score.bolts)));
  const toAct = view.toAct === seat;
  const seatInfo = session.table?.seats[seat];
  const count = view.cardCounts[seat] ?? 0;
  return h(
    "div",
    {
      class: `seat ${where}${toAct ? " to-act" : ""}${inDeal ? "" : " out"}`,
      "data-seat": seat,
      "aria-label": `${session.names(seat)}: ${score?.score ?? 0} points, ${count} cards${toAct ? ", to act" : ""}`,
    },
    h("div", { class: "name" }, session.names(seat), seatInfo?.takenOver ? " (bot plays)" : "", ...badges),
    h("div", { class: "score" }, `${score?.score ?? 0}`),
    where === "me" ? null : backs(count, `${count} cards`),
    h(
      "div",
      { class: "deal-stats" },
      `${count} cards · ${view.tricksWon[seat] ?? 0} tricks · ${view.trickPoints[seat] ?? 0} pts`,
      bidText ? ` · ${bidText}` : "",
    ),
    toAct ? clockOf(session) : null,
  );
}

function infoBar(session: TableLike, view: ThousandView): HTMLElement {
  const kind = KIND_WORDS[view.kind];
  const parts: Child[] = [
    h("span", {}, `Deal ${view.dealNumber}${kind ? ` · ${kind}` : ""} · ${PHASE_WORDS[view.phase] ?? ""}`),
  ];
  if (view.declarer !== undefined) {
    const what = view.contract !== undefined ? `plays ${view.contract}` : view.bid !== undefined ? `won at ${view.bid}` : "declares";
    parts.push(h("span", { class: "contract" }, `${session.names(view.declarer)} ${what}${view.doubled ? " (doubled)" : ""}`));
  } else if (view.highBid !== undefined) parts.push(h("span", {}, `High bid ${view.highBid} by ${session.names(view.highBidder)}`));
  parts.push(
    h(
      "span",
      { class: `trump${view.trump === 1 || view.trump === 2 || view.trump === undefined ? "" : " red"}` },
      view.trump === undefined ? "No trump" : `Trump ${suitSymbol(view.trump)}`,
    ),
  );
  if (view.marriages.length)
    parts.push(h("span", {}, "Marriages: " + view.marriages.map((m) => `${session.names(m.seat)} ${suitSymbol(m.suit)}`).join(", ")));
  return h("div", { class: "info", role: "status" }, parts);
}

function auctionPanel(session: TableLike, view: ThousandView): HTMLElement {
  return h(
    "div",
    { class: "auction", "aria-label": "The auction" },
    h("h3", {}, "Auction"),
    view.auction.length === 0
      ? h("p", {}, view.phase === DealPhase.DARK ? "The opener decides on dark." : "No bids yet.")
      : h(
          "ol",
          { class: "bids" },
          view.auction.map((a) => h("li", { class: a.bid === undefined ? "pass" : "bid" }, `${session.names(a.seat)}: ${a.bid ?? "pass"}`)),
        ),
  );
}

function talonPanel(view: ThousandView): Child {
  if (view.talon.length) {
    const shown = view.phase === DealPhase.OVER ? "the talon" : "talon";
    return h("div", { class: "talon", "aria-label": "The talon" }, h("h3", {}, `Talon`), h("div", { class: "cards" }, view.talon.map((c) => cardFace(c))), h("span", { class: "sr" }, shown));
  }
  if ([DealPhase.DARK, DealPhase.AUCTION, DealPhase.TALON_CHOICE].includes(view.phase))
    return h(
      "div",
      { class: "talon", "aria-label": "The talon, face down" },
      h("h3", {}, view.talonCounts.length > 1 ? "Talons" : "Talon"),
      view.talonCounts.map((n, i) => h("div", { class: "cards", "aria-label": `talon ${i + 1}: ${n} cards` }, Array.from({ length: n }, () => cardBack())) ),
    );
  return null;
}

function exchangePanel(session: TableLike, view: ThousandView): Child {
  if (!view.exchange.length) return null;
  return h(
    "div",
    { class: "exchange" },
    h("h3", {}, "Exchange"),
    h(
      "ul",
      {},
      view.exchange.map((x) =>
        h(
          "li",
          {},
          `${session.names(x.giver)} → ${x.toSeat === undefined ? "the other talon" : session.names(x.toSeat)}: `,
          x.card ? cardFace(x.card, "mini") : "a card face down",
        ),
      ),
    ),
  );
}

function trickPanel(session: TableLike, view: ThousandView, order: number[]): HTMLElement {
  const where = (seat: number): string => ["me", "left", "top", "right"][order.indexOf(seat)] ?? "top";
  return h(
    "div",
    { class: "trick", "aria-label": "The trick", "data-testid": "trick" },
    view.trick.length === 0 ? h("p", { class: "empty" }, view.toAct !== undefined ? `${session.names(view.toAct)} leads.` : "") : null,
    view.trick.map((t) =>
      h("div", { class: `played ${where(t.seat)}` }, t.card ? cardFace(t.card) : null, h("span", { class: "by" }, session.names(t.seat))),
    ),
  );
}

function tricksPanel(session: TableLike, model: ThousandModel, view: ThousandView): Child {
  const last = model.tracker.lastTrick();
  return h(
    "details",
    { class: "tricks", open: true },
    h("summary", {}, `Tricks this deal (${view.tricks.length})`),
    last.length
      ? h("div", { class: "last-trick", "aria-label": "The last trick" }, h("span", {}, "Last trick: "), last.map((t) => (t.card ? cardFace(t.card, "mini") : null)))
      : null,
    h(
      "ol",
      {},
      view.tricks.map((t) =>
        h("li", {}, `${session.names(t.winner)} (${t.points}): `, t.plays.map((p) => (p.card ? cardLabel(p.card) : "")).join(" ")),
      ),
    ),
  );
}

export function renderThousand(session: TableLike, model: ThousandModel, ui: Ui): Child {
  const view = model.view!;
  const n = view.cardCounts.length;
  const order = seatOrder(n, session.seat);
  const places = n === 2 ? ["me", "top"] : n === 3 ? ["me", "left", "right"] : ["me", "left", "top", "right"];
  const others = order.slice(1).map((seat, i) => seatPanel(session, view, seat, places[i + 1]!));
  const me = order[0]!;
  const gameOver = view.winner !== undefined;
  const { hand, actions } = controls(session, view, ui);
  const playing = view.phase === DealPhase.PLAY || view.trick.length > 0;
  const middle = h(
    "div",
    { class: "centre" },
    infoBar(session, view),
    playing ? trickPanel(session, view, order) : auctionPanel(session, view),
    talonPanel(view),
    exchangePanel(session, view),
  );
  const summary = model.summary !== undefined ? summaryDialog(session, model, () => {
    model.summary = undefined;
    ui.rerender();
  }, gameOver) : null;
  return h(
    "main",
    { class: `board thousand players-${n}` },
    h("div", { class: "opponents" }, others),
    middle,
    h(
      "section",
      { class: "mine", "aria-label": session.seat === undefined ? "Seat at the bottom" : "Your hand and choices" },
      seatPanel(session, view, me, "me"),
      session.seat === undefined ? backs(view.cardCounts[me] ?? 0, "cards") : hand,
      gameOver ? standingsPanel(session, view.standings.map((s) => ({ ...s })), model.ending) : summary ? null : actions,
    ),
    h(
      "aside",
      { class: "side" },
      sheetTable(session, model, view),
      tricksPanel(session, model, view),
    ),
    summary,
  );
}
