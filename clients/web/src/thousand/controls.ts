// A Thousand seat's choices, from its Turn's legal actions (T-34: the complete list): the bid or contract
// control (typed or stepped, only legal values accepted), the hand's cards (played with one click, or in the
// exchange picked and then given), and the buttons for everything else.
import { create } from "@bufbuild/protobuf";
import type { Card } from "../gen/thousand/v1/cards_pb";
import { ThousandActionSchema, type ThousandAction } from "../gen/thousand/v1/thousand_actions_pb";
import { cardIndex, cardLabel, displayOrder, cardName, MARRIAGE_POINTS, suitSymbol } from "../cards";
import { arrowKeys, h, type Child } from "../dom";
import type { TableLike } from "../session";
import type { Ui } from "../ui/tablepage";
import { cardButton } from "../ui/cardviews";
import { TABLE_WORDS, actionLabel } from "./words";
import { t } from "../i18n";
import type { ThousandView } from "../gen/thousand/v1/thousand_views_pb";

export function thousandActions(session: TableLike): ThousandAction[] {
  return session.legalActions().flatMap((a) => (a.game.case === "thousand" ? [a.game.value] : []));
}

function button(ui: Ui, key: string, action: ThousandAction, label: string, cls = ""): HTMLButtonElement {
  return h(
    "button",
    { class: `action ${cls}`.trim(), "data-key": key, "data-action": key, disabled: !ui.armed, onclick: () => ui.thousand(action) },
    label,
  );
}

/** A value picker over the legal values: type it, or step it with − and + (or the arrow keys). */
function valueControl(ui: Ui, values: number[], verb: "bid" | "contract", make: (v: number) => ThousandAction, key: string): HTMLElement {
  const sorted = [...new Set(values)].sort((a, b) => a - b);
  const current = ui.value !== undefined && sorted.includes(ui.value) ? ui.value : sorted[0]!;
  const legal = ui.value === undefined || sorted.includes(ui.value);
  const step = (delta: number): void => {
    const at = sorted.indexOf(current);
    ui.value = sorted[Math.max(0, Math.min(sorted.length - 1, at + delta))];
    ui.rerender();
  };
  const input = h("input", {
    type: "number",
    inputmode: "numeric",
    class: "value",
    "data-key": `${key}-input`,
    "data-testid": `${key}-input`,
    "aria-label": t("web.thousand.value_input", { verb, low: sorted[0], high: sorted[sorted.length - 1] }),
    min: sorted[0],
    max: sorted[sorted.length - 1],
    value: ui.value ?? current,
    oninput: (event: Event) => {
      const v = Number((event.target as HTMLInputElement).value);
      ui.value = Number.isFinite(v) ? v : undefined;
      ui.rerender();
    },
    onkeydown: (event: Event) => {
      const e = event as KeyboardEvent;
      if (e.key === "ArrowUp" || e.key === "ArrowDown") {
        e.preventDefault();
        step(e.key === "ArrowUp" ? 1 : -1);
      } else if (e.key === "Enter" && legal) ui.thousand(make(current));
    },
  });
  const chosen = legal ? current : undefined;
  return h(
    "div",
    { class: "value-control", role: "group", "aria-label": t("web.thousand.value_verb", { verb }) },
    h("button", { class: "step", "data-key": `${key}-down`, "aria-label": t("web.lower"), onclick: () => step(-1), disabled: current === sorted[0] }, "−"),
    input,
    h("button", { class: "step", "data-key": `${key}-up`, "aria-label": t("web.higher"), onclick: () => step(1), disabled: current === sorted[sorted.length - 1] }, "+"),
    h(
      "button",
      {
        class: "action primary",
        "data-key": key,
        "data-action": key,
        disabled: chosen === undefined || !ui.armed,
        onclick: () => chosen !== undefined && ui.thousand(make(chosen)),
      },
      chosen === undefined ? t("web.thousand.not_allowed_value", { value: ui.value ?? 0 }) : t("web.thousand.value_button", { verb, value: chosen }),
    ),
  );
}

function cardOf(action: ThousandAction): Card | undefined {
  const a = action.action;
  if (a.case === "playCard" || a.case === "giveCard" || a.case === "discardCard") return a.value.card;
  return undefined;
}

/** The controls beside the hand, and the hand's cards with what clicking each does. */
export function controls(session: TableLike, view: ThousandView, ui: Ui): { hand: Child; actions: Child } {
  const legal = thousandActions(session);
  const names = session.names;
  const byCase = (c: ThousandAction["action"]["case"]): ThousandAction[] => legal.filter((a) => a.action.case === c);
  const plays = byCase("playCard");
  const gives = [...byCase("giveCard"), ...byCase("discardCard")];
  const selected = ui.selected[0];
  const hand = displayOrder(view.hand, view.trump);
  const actions: Child[] = [];

  const cards = hand.map((card) => {
    const index = cardIndex(card);
    const mine = plays.filter((a) => cardOf(a) && cardIndex(cardOf(a)!) === index);
    const give = gives.some((a) => cardIndex(cardOf(a)!) === index);
    const key = `card-${cardLabel(card)}`;
    if (mine.length === 1)
      return cardButton(card, {
        key,
        label: actionLabel(mine[0]!, names),
        enabled: ui.armed,
        onClick: () => ui.thousand(mine[0]!),
      });
    if (mine.length > 1 || give)
      return cardButton(card, {
        key,
        label: mine.length > 1 ? t("web.thousand.choose_marriage", { card: cardName(card) }) : t("web.thousand.pick_to_give", { card: cardName(card) }),
        enabled: ui.armed,
        selected: selected === index,
        onClick: () => ui.toggle(index, true),
      });
    return cardButton(card, {
      key,
      label: cardName(card),
      enabled: false,
      onClick: () => undefined,
      refuse: ui.armed && session.seat !== undefined ? () => ui.explain(TABLE_WORDS.cannotPlay(cardLabel(card), whyNot(session, view, plays, gives, card))) : undefined,
    });
  });

  if (selected !== undefined) {
    const forCard = legal.filter((a) => cardOf(a) && cardIndex(cardOf(a)!) === selected);
    const picked = forCard.map((a, i) => button(ui, `pick-${i}`, a, actionLabel(a, names), "primary"));
    if (picked.length) actions.push(h("div", { class: "picked", role: "group", "aria-label": t("web.thousand.what_with_card") }, picked));
  } else if (gives.length) actions.push(h("p", { class: "hint" }, t("web.thousand.exchange_hint")));
  if (plays.length && !gives.length) actions.push(h("p", { class: "hint" }, t("web.thousand.play_hint")));

  const bids = byCase("bid").map((a) => (a.action.case === "bid" ? a.action.value.value : 0));
  if (bids.length)
    actions.push(valueControl(ui, bids, "bid", (value) => create(ThousandActionSchema, { action: { case: "bid", value: { value } } }), "bid"));
  const contracts = byCase("nameContract").map((a) => (a.action.case === "nameContract" ? a.action.value.value : 0));
  if (contracts.length)
    actions.push(
      valueControl(
        ui,
        contracts,
        "contract",
        (value) => create(ThousandActionSchema, { action: { case: "nameContract", value: { value } } }),
        "contract",
      ),
    );
  const others = legal.filter((a) => !["bid", "nameContract", "playCard", "giveCard", "discardCard"].includes(a.action.case ?? ""));
  others.forEach((a, i) => actions.push(button(ui, `${a.action.case}-${i}`, a, actionLabel(a, names), a.action.case === "passBid" ? "" : "")));
  const marriages = marriagesHeld(view);
  if (marriages) actions.push(h("p", { class: "hint" }, t("web.thousand.marriages_held", { list: marriages })));

  return {
    hand: arrowKeys(h("div", { class: "hand", role: "toolbar", "aria-label": t("web.your_hand") }, cards)),
    actions: h("div", { class: "actions", role: "group", "aria-label": t("web.your_choices") }, actions),
  };
}

/** Why a card of the hand cannot be chosen now, in the words a player at a real table would hear. */
export function whyNot(session: TableLike, view: ThousandView, plays: ThousandAction[], gives: ThousandAction[], card: Card): string {
  if (session.seat === undefined) return TABLE_WORDS.spectator();
  if (!plays.length && !gives.length)
    return view.toAct !== undefined && view.toAct !== session.seat ? TABLE_WORDS.notYourTurn(session.names(view.toAct)) : TABLE_WORDS.notNow();
  if (!plays.length) return TABLE_WORDS.notAllowed();
  const legal = plays.flatMap((a) => (cardOf(a) ? [cardOf(a)!] : []));
  const lead = view.trick[0]?.card?.suit;
  const suits = new Set(legal.map((c) => c.suit));
  if (lead !== undefined && card.suit !== lead && suits.size === 1 && suits.has(lead)) return TABLE_WORDS.followSuit(suitSymbol(lead));
  if (lead !== undefined && view.trump !== undefined && card.suit !== view.trump && suits.size === 1 && suits.has(view.trump))
    return TABLE_WORDS.playTrump(suitSymbol(view.trump));
  if (lead !== undefined && card.suit === lead && suits.has(lead)) return TABLE_WORDS.beat(suitSymbol(lead));
  return TABLE_WORDS.notAllowed();
}

function marriagesHeld(view: ThousandView): string {
  const suits = [1, 2, 3, 4].filter((suit) => view.hand.some((c) => c.suit === suit && c.rank === 3) && view.hand.some((c) => c.suit === suit && c.rank === 4));
  return suits.map((s) => `${suitSymbol(s)} ${MARRIAGE_POINTS[s]}`).join(", ");
}
