// The 1000 Blagogo table: the other players (cards held, cards known to be there, opened or not, scores),
// the deck and the bridge in order with its positions, every meld with its owner, your hand, and the turn's
// choices: draw, take from the bridge at a position, meld selected cards (a joker's meaning asked only when it
// has more than one reading), add to a meld, swap a joker, discard; the score sheet round by round.
import { create, type MessageInitShape } from "@bufbuild/protobuf";
import { BlagogoActionSchema, type BlagogoAction } from "../gen/thousand/v1/blagogo_actions_pb";
import type { BlagogoCard } from "../gen/thousand/v1/blagogo_cards_pb";
import type { BlagogoMeld } from "../gen/thousand/v1/blagogo_events_pb";
import { BlagogoPhase, type BlagogoView } from "../gen/thousand/v1/blagogo_views_pb";
import { arrowKeys, h, type Child } from "../dom";
import type { TableLike } from "../session";
import type { Ui } from "../ui/tablepage";
import { backs, blagogoButton, blagogoFaceNode } from "../ui/cardviews";
import { clockOf, seatOrder, standingsPanel } from "../ui/common";
import { cardIndex, cardLabel, cardName, cardOf } from "./cards";
import { additionReadings, meldReadings, readingText, type Reading } from "./compose";
import type { BlagogoModel } from "./model";
import { TABLE_WORDS, actionLabel, meaningLabel } from "./words";
import { roundSheet, roundSummary } from "./sheet";
import { t } from "../i18n";

function legalOf(session: TableLike): BlagogoAction[] {
  return session.legalActions().flatMap((a) => (a.game.case === "blagogo" ? [a.game.value] : []));
}

function act(action: MessageInitShape<typeof BlagogoActionSchema>["action"]): BlagogoAction {
  return create(BlagogoActionSchema, { action });
}

function button(ui: Ui, key: string, label: string, onclick: () => void, cls = "", disabled = false): HTMLButtonElement {
  return h("button", { class: `action ${cls}`.trim(), "data-key": key, "data-action": key, disabled: disabled || !ui.armed, onclick }, label);
}

function seatPanel(session: TableLike, view: BlagogoView, seat: number, where: string): HTMLElement {
  const count = view.cardCounts[seat] ?? 0;
  const known = view.knownCards[seat]?.cards ?? [];
  const toAct = view.toAct === seat;
  return h(
    "div",
    { class: `seat ${where}${toAct ? " to-act" : ""}`, "data-seat": seat, "aria-label": t("web.seat_label", { name: session.names(seat), points: view.scores[seat] ?? 0, cards: count, acts: "no" }) },
    h(
      "div",
      { class: "name" },
      session.names(seat),
      view.dealer === seat ? h("span", { class: "badge", title: t("term.dealer") }, t("web.dealer_badge")) : null,
      view.opened[seat] ? h("span", { class: "badge", title: t("web.blagogo.has_opened") }, t("web.blagogo.opened")) : null,
    ),
    h("div", { class: "score" }, String(view.scores[seat] ?? 0)),
    where === "me" ? null : backs(count, t("web.cards", { n: count })),
    h("div", { class: "deal-stats" }, t("web.cards", { n: count })),
    known.length && where !== "me"
      ? h("div", { class: "known", "aria-label": t("web.blagogo.known_label") }, `${t("web.blagogo.known")} `, known.map((c) => blagogoFaceNode(c, "mini")))
      : null,
    toAct ? clockOf(session) : null,
  );
}

function bridgePanel(view: BlagogoView, ui: Ui, legal: BlagogoAction[]): HTMLElement {
  const takes = new Map<number, BlagogoAction>();
  for (const a of legal) if (a.action.case === "takeFromBridge") takes.set(a.action.value.position, a);
  const draw = legal.find((a) => a.action.case === "drawFromDeck");
  const cards = view.bridge.map((card, position) => {
    const take = takes.get(position);
    const count = view.bridge.length - position;
    const wrap = (node: HTMLElement): HTMLElement =>
      h("div", { class: "bridge-slot" }, h("span", { class: "pos", "aria-hidden": "true" }, String(position + 1)), node);
    if (!take) return wrap(blagogoFaceNode(card));
    return wrap(
      blagogoButton(card, {
        key: `take-${position}`,
        label: t("web.blagogo.take_label", { position: position + 1, cards: view.bridge.slice(position).map(cardLabel).join(" "), n: count }),
        enabled: ui.armed,
        onClick: () => ui.blagogo(take),
        extraClass: "takeable",
      }),
    );
  });
  return h(
    "section",
    { class: "bridge-area", "aria-label": t("web.blagogo.deck_and_bridge") },
    h(
      "div",
      { class: "deck" },
      h("span", { class: "card back", role: "img", "aria-label": t("web.blagogo.deck_label", { n: view.deckCount }) }),
      h("span", { class: "deck-count" }, t("web.blagogo.in_deck", { n: view.deckCount })),
      draw ? button(ui, "draw", actionLabel(draw), () => ui.blagogo(draw), "primary") : null,
    ),
    h("div", { class: "bridge-wrap" }, h("h3", {}, t("web.blagogo.bridge_title", { n: view.bridge.length })), arrowKeys(h("div", { class: "bridge", role: "toolbar", "aria-label": t("web.blagogo.bridge_label") }, cards))),
    view.mustMeld ? h("p", { class: "hint" }, t("web.blagogo.must_meld", { card: cardLabel(view.mustMeld) })) : null,
  );
}

function selectedCards(ui: Ui): BlagogoCard[] {
  return ui.selected.map(cardOf);
}

function additions(meld: BlagogoMeld, ui: Ui, session: TableLike, view: BlagogoView): Child {
  // Adding to a meld needs the player to have opened (B-12): not offered before.
  const me = session.seat;
  if (!ui.selected.length || !session.isMyTurn() || me === undefined || !view.opened[me] || view.phase !== BlagogoPhase.PLAY) return null;
  const readings = additionReadings(meld, selectedCards(ui));
  return readings.map((r, i) =>
    button(ui, `add-${meld.id}-${i}`, readings.length > 1 ? TABLE_WORDS.addReading(readingText(r)) : TABLE_WORDS.addHere(), () =>
      ui.blagogo(act({ case: "addToMeld", value: { meldId: meld.id, cards: selectedCards(ui), jokers: r.jokers, runEnd: r.end ?? 0 } })),
    ),
  );
}

function meldNode(session: TableLike, view: BlagogoView, meld: BlagogoMeld, ui: Ui, legal: BlagogoAction[]): HTMLElement {
  let joker = 0;
  const cards = meld.cards.map((c) => blagogoFaceNode(c, "", c.joker ? meaningLabel(meld.jokers[joker++] ?? { rank: 0, suit: 0, $typeName: "thousand.v1.BlagogoJokerMeaning" }) : ""));
  const swaps = legal.filter((a) => a.action.case === "swapJoker" && a.action.value.meldId === meld.id);
  return h(
    "div",
    { class: `meld${meld.closed ? " closed" : ""}`, "data-meld": meld.id, "aria-label": t("web.blagogo.meld_label", { id: meld.id + 1, name: session.names(meld.owner), points: meld.points }) },
    h("div", { class: "meld-head" }, t("web.blagogo.meld_head", { id: meld.id + 1, name: session.names(meld.owner), points: meld.points, closed: meld.closed ? "yes" : "no" })),
    h("div", { class: "cards" }, cards),
    additions(meld, ui, session, view),
    swaps.map((a, i) => button(ui, `swap-${meld.id}-${i}`, actionLabel(a), () => ui.blagogo(a))),
  );
}

function readingChoice(ui: Ui, readings: Reading[]): Child {
  if (readings.length <= 1) return null;
  return h(
    "fieldset",
    { class: "readings" },
    h("legend", {}, t("web.blagogo.jokers_question")),
    readings.map((r, i) =>
      h(
        "label",
        {},
        h("input", {
          type: "radio",
          name: "reading",
          "data-key": `reading-${i}`,
          checked: ui.choice === i,
          onchange: () => {
            ui.choice = i;
            ui.rerender();
          },
        }),
        ` ${t("web.blagogo.reading", { kind: r.kind, text: readingText(r) })}`,
      ),
    ),
  );
}

function choices(session: TableLike, view: BlagogoView, ui: Ui, legal: BlagogoAction[]): Child {
  if (!legal.length) return h("p", { class: "hint" }, session.seat === undefined ? "" : view.toAct === undefined ? "" : t("web.waiting_for", { name: session.names(view.toAct) }));
  const out: Child[] = [];
  const selected = selectedCards(ui);
  if (view.phase === BlagogoPhase.DRAW) out.push(h("p", { class: "hint" }, t("web.blagogo.draw_hint")));
  else {
    const readings = meldReadings(selected);
    const reading = readings.length === 1 ? readings[0] : ui.choice !== undefined ? readings[ui.choice] : undefined;
    const staged = ui.staged.map((s) => ({ cards: s.cards.map(cardOf), jokers: s.jokers }));
    if (selected.length >= 3) {
      if (!readings.length) out.push(h("p", { class: "hint" }, t("web.blagogo.no_meld")));
      out.push(readingChoice(ui, readings));
      const melds = reading ? [...staged, { cards: selected, jokers: reading.jokers }] : staged;
      out.push(
        button(ui, "lay", staged.length ? t("web.blagogo.lay_these", { n: melds.length }) : t("web.blagogo.lay_selection"), () => ui.blagogo(act({ case: "layMelds", value: { melds } })), "primary", !reading),
        button(ui, "stage", t("web.blagogo.put_aside"), () => {
          if (!reading) return;
          ui.staged = [...ui.staged, { cards: [...ui.selected], jokers: reading.jokers }];
          ui.selected = [];
          ui.choice = undefined;
          ui.rerender();
        }, "", !reading),
      );
    } else if (staged.length) out.push(button(ui, "lay", t("web.blagogo.lay_put_aside", { n: staged.length }), () => ui.blagogo(act({ case: "layMelds", value: { melds: staged } })), "primary"));
    if (ui.staged.length)
      out.push(
        h("div", { class: "staged" }, `${t("web.blagogo.put_aside_list")} `, ui.staged.map((s) => s.cards.map((c) => cardLabel(cardOf(c))).join(" ")).join(" | ")),
        button(ui, "unstage", t("web.blagogo.take_back"), () => {
          ui.staged = [];
          ui.rerender();
        }),
      );
    const discard = selected.length === 1 ? legal.find((a) => a.action.case === "discard" && a.action.value.card && cardIndex(a.action.value.card) === ui.selected[0]) : undefined;
    if (discard) out.push(button(ui, "discard", actionLabel(discard), () => ui.blagogo(discard), "primary"));
    else if (!selected.length) out.push(h("p", { class: "hint" }, t("web.blagogo.select_hint")));
    const proposals = legal.filter((a) => a.action.case === "layMelds");
    if (proposals.length)
      out.push(h("div", { class: "proposals" }, h("span", {}, `${t("web.blagogo.proposals")} `), proposals.slice(0, 6).map((a, i) => button(ui, `propose-${i}`, actionLabel(a), () => ui.blagogo(a)))));
  }
  return h("div", { class: "actions", role: "group", "aria-label": t("web.your_choices") }, out);
}

/** Why the hand's cards cannot be chosen now, in words. */
function whyNot(session: TableLike, view: BlagogoView): string {
  if (session.seat === undefined) return TABLE_WORDS.spectator();
  if (view.toAct !== undefined && view.toAct !== session.seat) return TABLE_WORDS.notYourTurn(session.names(view.toAct));
  if (view.phase === BlagogoPhase.DRAW) return TABLE_WORDS.drawFirst();
  return TABLE_WORDS.roundOver();
}

export function renderBlagogo(session: TableLike, model: BlagogoModel, ui: Ui): Child {
  const view = model.view!;
  const n = view.cardCounts.length;
  const order = seatOrder(n, session.seat);
  const legal = legalOf(session);
  const canSelect = legal.length > 0 && view.phase === BlagogoPhase.PLAY;
  const staged = new Set(ui.staged.flatMap((s) => s.cards));
  const hand = view.hand.filter((c) => !staged.has(cardIndex(c))).map((card) => {
    const index = cardIndex(card);
    const selected = ui.selected.includes(index);
    return blagogoButton(card, {
      key: `hand-${index}`,
      label: t("web.blagogo.select_card", { selected: selected ? "yes" : "no", card: cardName(card) }),
      enabled: canSelect,
      selected,
      onClick: () => ui.toggle(index),
      refuse: ui.armed ? () => ui.explain(TABLE_WORDS.cannotSelect(cardLabel(card), whyNot(session, view))) : undefined,
    });
  });
  const byOwner = order.map((seat) => ({ seat, melds: view.melds.filter((m) => m.owner === seat) })).filter((g) => g.melds.length);
  const gameOver = view.winner !== undefined;
  const summary = model.summary !== undefined ? roundSummary(session, model, () => {
    model.summary = undefined;
    ui.rerender();
  }, gameOver) : null;
  // Once the game is over its standings show; the last round's summary opens again from them.
  const lastRound = model.sheet.at(-1)?.number;
  const last = lastRound === undefined ? undefined : { label: t("web.blagogo.last_round_summary"), open: () => ((model.summary = lastRound), ui.rerender()) };
  return h(
    "main",
    { class: `board blagogo players-${n}${gameOver ? " over" : ""}` },
    h("h2", { class: "sr" }, t("web.board")), // the headings go h1, h2, h3
    h("div", { class: "opponents" }, order.slice(1).map((seat) => seatPanel(session, view, seat, "other"))),
    h(
      "div",
      { class: "centre", "data-key": "centre", "data-keep-scroll": true },
      h("div", { class: "info", role: "status" }, TABLE_WORDS.round(view.roundNumber), view.toAct !== undefined ? TABLE_WORDS.toPlay(session.names(view.toAct)) : ""),
      bridgePanel(view, ui, legal),
      h(
        "section",
        { class: "melds", "aria-label": t("web.blagogo.melds_label"), tabindex: 0, "data-key": "melds", "data-keep-scroll": true },
        h("h3", {}, TABLE_WORDS.meldsTitle(view.melds.length)),
        byOwner.map((g) => h("div", { class: "owner" }, h("h4", {}, session.names(g.seat)), g.melds.map((m) => meldNode(session, view, m, ui, legal)))),
      ),
    ),
    h(
      "section",
      { class: "mine", "aria-label": t("web.your_hand_and_choices") },
      seatPanel(session, view, order[0]!, "me"),
      session.seat === undefined ? null : arrowKeys(h("div", { class: "hand", role: "toolbar", "aria-label": t("web.your_hand") }, hand)),
      gameOver ? standingsPanel(session, view.standings.map((s) => ({ ...s })), model.ending, last) : summary ? null : choices(session, view, ui, legal),
    ),
    h("aside", { class: "side", "data-key": "side", "data-keep-scroll": true }, roundSheet(session, model, view)),
    summary,
  );
}
