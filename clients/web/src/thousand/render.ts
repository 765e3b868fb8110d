// The Thousand table: opponents round the table (cards held, points taken this deal, bids), the trick or the
// auction in the middle, the talon and the exchange, trump and marriages, the contract, your hand and your
// choices, the last trick and the deal's tricks, the score sheet deal by deal, the deal checks, the clock,
// and the summary of each deal before the next auction.
import type { ThousandView } from "../gen/thousand/v1/thousand_views_pb";
import { DealPhase } from "../gen/thousand/v1/thousand_views_pb";
import { MARRIAGE_POINTS, cardLabel, cardPoints, suitSymbol } from "../cards";
import { h, type Child } from "../dom";
import type { TableLike } from "../session";
import type { Ui } from "../ui/tablepage";
import { backs, cardBack, cardFace } from "../ui/cardviews";
import { clockOf, seatOrder, standingsPanel } from "../ui/common";
import { controls } from "./controls";
import type { ThousandModel } from "./model";
import { TABLE_WORDS, kindWords, phaseWords } from "./words";
import { capital, t } from "../i18n";

import { sheetTable, summaryDialog } from "./sheet";

function seatPanel(session: TableLike, view: ThousandView, seat: number, where: string): HTMLElement {
  const score = view.scores[seat];
  const inDeal = view.active.includes(seat);
  const spoken = view.auction.filter((a) => a.seat === seat);
  const last = spoken[spoken.length - 1];
  const bidText = last === undefined ? "" : last.bid === undefined ? t("web.thousand.passed") : t("web.thousand.bid", { value: last.bid });
  const badges: Child[] = [];
  if (view.dealer === seat) badges.push(h("span", { class: "badge", title: t("term.dealer") }, t("web.dealer_badge")));
  if (view.declarer === seat) badges.push(h("span", { class: "badge decl", title: t("term.declarer") }, `★ ${view.contract ?? view.bid ?? ""}`));
  if (view.sitter === seat) badges.push(h("span", { class: "badge" }, t("web.thousand.sits_out")));
  if (score?.onBarrel) badges.push(h("span", { class: "badge barrel", title: t("term.mark_barrel_on") }, t("web.thousand.barrel_deal", { n: Math.min(score.barrelDeals + 1, 3) })));
  if (score?.bolts) badges.push(h("span", { class: "badge", title: t("web.thousand.bolts", { n: score.bolts }) }, "•".repeat(score.bolts)));
  const toAct = view.toAct === seat;
  const seatInfo = session.table?.seats[seat];
  const count = view.cardCounts[seat] ?? 0;
  return h(
    "div",
    {
      class: `seat ${where}${toAct ? " to-act" : ""}${inDeal ? "" : " out"}`,
      "data-seat": seat,
      "aria-label": t("web.seat_label", { name: session.names(seat), points: score?.score ?? 0, cards: count, acts: toAct ? "yes" : "no" }),
    },
    h("div", { class: "name" }, session.names(seat), seatInfo?.takenOver ? ` ${t("web.bot_plays")}` : "", ...badges),
    h("div", { class: "score" }, `${score?.score ?? 0}`),
    where === "me" ? null : backs(count, t("web.cards", { n: count })),
    h(
      "div",
      { class: "deal-stats" },
      TABLE_WORDS.tricksCards(count, view.tricksWon[seat] ?? 0),
      bidText ? ` · ${bidText}` : "",
    ),
    dealPoints(view, seat),
    toAct ? clockOf(session) : null,
  );
}

/** The seat's points this deal, its declared marriages included, and for the declarer what is still needed. */
function dealPoints(view: ThousandView, seat: number): Child {
  if (![DealPhase.PLAY, DealPhase.OVER].includes(view.phase) && !view.tricks.length) return null;
  const points = view.trickPoints[seat] ?? 0;
  const marriages = view.marriages.filter((m) => m.seat === seat).map((m) => `${suitSymbol(m.suit)} ${MARRIAGE_POINTS[m.suit] ?? ""}`);
  const declarer = view.declarer === seat && view.contract !== undefined;
  return h(
    "div",
    { class: "points", "data-testid": `points-${seat}` },
    h("strong", {}, TABLE_WORDS.points(points)),
    marriages.length ? TABLE_WORDS.marriagePoints(marriages.join(", ")) : "",
    declarer ? h("span", { class: "needs" }, ` · ${TABLE_WORDS.needs((view.contract ?? 0) - points)}`) : null,
  );
}

function infoBar(session: TableLike, view: ThousandView): HTMLElement {
  const kind = kindWords(view.kind);
  const parts: Child[] = [
    h("span", {}, [t("web.thousand.deal", { number: view.dealNumber }), kind, phaseWords(view.phase)].filter(Boolean).join(" · ")),
  ];
  if (view.declarer !== undefined) {
    const what = view.contract !== undefined ? "plays" : view.bid !== undefined ? "won" : "declares";
    const value = view.contract ?? view.bid ?? 0;
    parts.push(h("span", { class: "contract" }, t("web.thousand.declarer", { name: session.names(view.declarer), what, value, doubled: view.doubled ? "yes" : "no" })));
  } else if (view.highBid !== undefined) parts.push(h("span", {}, t("web.thousand.high_bid", { value: view.highBid, name: session.names(view.highBidder) })));
  parts.push(
    h(
      "span",
      { class: `trump${view.trump === 1 || view.trump === 2 || view.trump === undefined ? "" : " red"}` },
      view.trump === undefined ? t("web.thousand.no_trump") : t("web.thousand.trump", { suit: suitSymbol(view.trump) }),
    ),
  );
  if (view.marriages.length)
    parts.push(h("span", {}, t("web.thousand.marriages", { list: view.marriages.map((m) => `${session.names(m.seat)} ${suitSymbol(m.suit)}`).join(", ") })));
  return h("div", { class: "info", role: "status" }, parts);
}

function auctionPanel(session: TableLike, view: ThousandView): HTMLElement {
  return h(
    "div",
    { class: "auction", "aria-label": t("term.auction") },
    h("h3", {}, capital(t("term.auction"))),
    view.auction.length === 0
      ? h("p", {}, view.phase === DealPhase.DARK ? t("web.thousand.dark_decision") : t("web.thousand.no_bids"))
      : h(
          "ol",
          { class: "bids" },
          view.auction.map((a) => h("li", { class: a.bid === undefined ? "pass" : "bid" }, `${session.names(a.seat)}: ${a.bid ?? t("term.pass")}`)),
        ),
  );
}

function talonPanel(view: ThousandView): Child {
  if (view.talon.length) {
    return h("div", { class: "talon", "aria-label": capital(t("term.talon")) }, h("h3", {}, capital(t("term.talon"))), h("div", { class: "cards" }, view.talon.map((c) => cardFace(c))));
  }
  if ([DealPhase.DARK, DealPhase.AUCTION, DealPhase.TALON_CHOICE].includes(view.phase))
    return h(
      "div",
      { class: "talon", "aria-label": t("web.thousand.talon_face_down") },
      h("h3", {}, t("web.thousand.talons", { n: view.talonCounts.length })),
      view.talonCounts.map((n, i) => h("div", { class: "cards", "aria-label": t("web.thousand.talon_cards", { index: i + 1, n }) }, Array.from({ length: n }, () => cardBack())) ),
    );
  return null;
}

function exchangePanel(session: TableLike, view: ThousandView): Child {
  if (!view.exchange.length) return null;
  return h(
    "div",
    { class: "exchange" },
    h("h3", {}, capital(t("term.phase_exchange"))),
    h(
      "ul",
      {},
      view.exchange.map((x) =>
        h(
          "li",
          {},
          `${session.names(x.giver)} → ${x.toSeat === undefined ? t("web.thousand.other_talon") : session.names(x.toSeat)}: `,
          x.card ? cardFace(x.card, "mini") : t("web.card_face_down"),
        ),
      ),
    ),
  );
}

const LAND_MS = 260;

/** The card winning the trick so far: the highest trump, else the highest card of the suit led (T-7). */
export function winningSoFar(trick: ThousandView["trick"], trump: number | undefined): number | undefined {
  let best: ThousandView["trick"][number] | undefined;
  for (const t of trick) {
    if (!t.card) continue;
    if (!best?.card) best = t;
    else {
      const b = best.card;
      // The card points rise with the rank (9 0, J 2, Q 3, K 4, 10 10, A 11): they order a suit too.
      const beats = t.card.suit === b.suit ? cardPoints(t.card) > cardPoints(b) : t.card.suit === trump && b.suit !== trump;
      if (beats) best = t;
    }
  }
  return best?.seat;
}

function trickPanel(session: TableLike, model: ThousandModel, view: ThousandView, order: number[], ui: Ui): HTMLElement {
  const where = (seat: number): string => (order.length === 2 ? ["me", "top"] : order.length === 3 ? ["me", "left", "right"] : ["me", "left", "top", "right"])[order.indexOf(seat)] ?? "top";
  const now = performance.now();
  const taken = model.taken;
  const holding = taken !== undefined && taken.plays.length > 0 && now < taken.at + ui.trickMs;
  if (holding) ui.redrawAt(taken.at + ui.trickMs + 15);
  const plays = holding ? taken.plays : view.trick;
  const winner = holding ? taken.winner : winningSoFar(view.trick, view.trump);
  const landing = model.played && now - model.played.at < LAND_MS ? model.played : undefined;
  if (landing) ui.redrawAt(landing.at + LAND_MS + 15);
  const cards = plays.map((t, i) => {
    const marks = [i === 0 ? TABLE_WORDS.leader() : "", t.seat === winner && plays.length > 1 ? TABLE_WORDS.winning() : ""].filter(Boolean);
    const lands = !holding && landing?.seat === t.seat && i === plays.length - 1;
    return h(
      "div",
      {
        class: `played ${where(t.seat)}${i === 0 ? " leader" : ""}${t.seat === winner && plays.length > 1 ? " winning" : ""}${lands ? " lands" : ""}`,
        "data-seat": t.seat,
        style: lands ? `animation-delay: -${Math.round(now - landing!.at)}ms` : undefined,
      },
      t.card ? cardFace(t.card) : null,
      h("span", { class: "by" }, session.names(t.seat), marks.length ? h("span", { class: "mark" }, ` · ${marks.join(", ")}`) : null),
    );
  });
  const points = holding ? taken.points : 0;
  return h(
    "div",
    {
      class: `trick${holding ? ` taking to-${where(taken.winner)}` : ""}`,
      "aria-label": capital(t("term.trick")),
      "data-testid": "trick",
      "data-active": view.active.length || order.length,
      "data-taken": holding ? `${view.dealNumber}-${taken.number}` : undefined,
      style: holding ? `--taking-delay: -${Math.round(now - taken.at)}ms; --taking-ms: ${ui.trickMs}ms` : undefined,
    },
    cards,
    holding
      ? h("p", { class: "caption", role: "status" }, TABLE_WORDS.takes(session.names(taken.winner), points))
      : view.trick.length === 0
        ? h("p", { class: "caption empty" }, view.toAct !== undefined ? TABLE_WORDS.leads(session.names(view.toAct)) : "")
        : null,
  );
}

function tricksPanel(session: TableLike, model: ThousandModel, view: ThousandView): Child {
  const last = model.tracker.lastTrick();
  return h(
    "details",
    { class: "tricks", open: true },
    h("summary", {}, t("web.thousand.tricks_this_deal", { n: view.tricks.length })),
    last.length
      ? h("div", { class: "last-trick", "aria-label": t("web.thousand.last_trick") }, h("span", {}, `${t("web.thousand.last_trick")}: `), last.map((p) => (p.card ? cardFace(p.card, "mini") : null)))
      : null,
    h(
      "ol",
      {},
      view.tricks.map((trick) =>
        h("li", {}, `${session.names(trick.winner)} (${trick.points}): `, trick.plays.map((p) => (p.card ? cardLabel(p.card) : "")).join(" ")),
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
  // A finished trick on show holds the hand back until its winner has taken it.
  const holding = model.taken !== undefined && performance.now() < model.taken.at + ui.trickMs;
  ui.heldUntil = holding ? model.taken!.at + ui.trickMs : 0;
  const { hand, actions } = controls(session, view, ui);
  const playing = view.phase === DealPhase.PLAY || view.trick.length > 0 || holding;
  // Once play starts the talon and the exchange fold away: the trick and the hand keep the screen.
  const talon = talonPanel(view);
  const exchange = exchangePanel(session, view);
  const folded =
    playing && (talon || exchange)
      ? h("details", { class: "talon-exchange" }, h("summary", {}, TABLE_WORDS.talonAndExchange()), talon, exchange)
      : [talon, exchange];
  const middle = h(
    "div",
    { class: "centre", "data-key": "centre", "data-keep-scroll": true },
    infoBar(session, view),
    playing ? trickPanel(session, model, view, order, ui) : auctionPanel(session, view),
    folded,
  );
  const summary = model.summary !== undefined ? summaryDialog(session, model, () => {
    model.summary = undefined;
    ui.rerender();
  }, gameOver) : null;
  // Once the game is over its standings show; the last deal's summary opens again from them.
  const lastDeal = [...model.sheet].reverse().find((r) => r.redeal === undefined)?.number;
  const last = lastDeal === undefined ? undefined : { label: t("web.thousand.last_deal_summary"), open: () => ((model.summary = lastDeal), ui.rerender()) };
  return h(
    "main",
    { class: `board thousand players-${n}${gameOver ? " over" : ""}` },
    h("h2", { class: "sr" }, t("web.board")), // the headings go h1, h2, h3
    h("div", { class: "opponents" }, others),
    middle,
    h(
      "section",
      { class: "mine", "aria-label": session.seat === undefined ? t("web.seat_at_bottom") : t("web.your_hand_and_choices") },
      seatPanel(session, view, me, "me"),
      session.seat === undefined ? backs(view.cardCounts[me] ?? 0, t("web.cards", { n: view.cardCounts[me] ?? 0 })) : hand,
      gameOver ? standingsPanel(session, view.standings.map((s) => ({ ...s })), model.ending, last) : summary ? null : actions,
    ),
    h(
      "aside",
      { class: "side", "data-key": "side", "data-keep-scroll": true },
      sheetTable(session, model, view),
      tricksPanel(session, model, view),
    ),
    summary,
  );
}
