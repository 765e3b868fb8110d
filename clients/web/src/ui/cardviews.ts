// Cards on screen, for both games: a face with its rank and suit in the suit's colour, a back, a button.
import type { Card } from "../gen/thousand/v1/cards_pb";
import type { BlagogoCard } from "../gen/thousand/v1/blagogo_cards_pb";
import { cardLabel, cardName, isRed, suitSymbol } from "../cards";
import * as bc from "../blagogo/cards";
import { h } from "../dom";
import { t } from "../i18n";

function face(rank: string, suit: string, red: boolean, extra = ""): HTMLElement[] {
  return [
    h("span", { class: "corner", "aria-hidden": "true" }, rank, h("br"), suit),
    h("span", { class: `pip${red ? " red" : ""}`, "aria-hidden": "true" }, suit),
    extra ? h("span", { class: "copy", "aria-hidden": "true" }, extra) : null,
  ].filter((x): x is HTMLElement => x !== null);
}

function rankText(card: Card): string {
  return cardLabel(card).replace(suitSymbol(card.suit), "");
}

/** A Thousand card, face up (not interactive). */
export function cardFace(card: Card, extraClass = ""): HTMLElement {
  const red = isRed(card.suit);
  return h(
    "span",
    { class: `card${red ? " red" : ""} ${extraClass}`.trim(), role: "img", "aria-label": cardName(card), title: cardLabel(card) },
    face(rankText(card), suitSymbol(card.suit), red),
  );
}

export interface CardButtonOptions {
  key: string;
  label: string;
  enabled: boolean;
  selected?: boolean;
  onClick: () => void;
  extraClass?: string;
  /** A card that cannot be chosen now but says why when clicked: dimmed, aria-disabled, still focusable. */
  refuse?: () => void;
}

function buttonAttrs(cls: string[], opts: CardButtonOptions, short: string): Record<string, string | boolean | undefined | ((event: Event) => void)> {
  const refusing = !opts.enabled && opts.refuse !== undefined;
  // The name starts with what the card shows ("10♥"), so that speech input and screen readers agree.
  const label = opts.label.includes(short) ? opts.label : `${short}, ${opts.label}`;
  return {
    class: [...cls, opts.enabled ? "playable" : "", refusing ? "unplayable" : "", opts.selected ? "selected" : "", opts.extraClass ?? ""].filter(Boolean).join(" "),
    "data-key": opts.key,
    "aria-label": label,
    "aria-pressed": opts.selected === undefined ? undefined : String(opts.selected),
    "aria-disabled": refusing ? "true" : undefined,
    title: label,
    disabled: !opts.enabled && !refusing,
    onclick: () => (opts.enabled ? opts.onClick() : opts.refuse?.()),
  };
}

/** A Thousand card as a button. */
export function cardButton(card: Card, opts: CardButtonOptions): HTMLButtonElement {
  const red = isRed(card.suit);
  return h(
    "button",
    buttonAttrs(["card", red ? "red" : ""], opts, cardLabel(card)),
    face(rankText(card), suitSymbol(card.suit), red),
  );
}

export function cardBack(label?: string): HTMLElement {
  return h("span", { class: "card back", role: "img", "aria-label": label ?? t("web.card_face_down") });
}

/** A row of n backs, overlapped, for an opponent's hand. */
export function backs(count: number, label: string): HTMLElement {
  return h(
    "span",
    { class: "backs", role: "img", "aria-label": label },
    Array.from({ length: Math.min(count, 13) }, () => h("span", { class: "card back mini", "aria-hidden": "true" })),
  );
}

function blagogoFace(card: BlagogoCard): { rank: string; suit: string; red: boolean; copy: string } {
  if (card.joker) return { rank: "★", suit: "★", red: false, copy: String(card.copy + 1) };
  return {
    rank: bc.rankLabel(card.rank),
    suit: suitSymbol(card.suit),
    red: bc.isRedSuit(card.suit),
    copy: card.copy === 1 ? "'" : "",
  };
}

export function blagogoFaceNode(card: BlagogoCard, extraClass = "", standsFor = ""): HTMLElement {
  const f = blagogoFace(card);
  const label = standsFor ? t("web.blagogo.standing_for", { card: bc.cardName(card), meaning: standsFor }) : bc.cardName(card);
  return h(
    "span",
    {
      class: `card${f.red ? " red" : ""}${card.joker ? " joker" : ""}${card.copy === 1 ? " second-deck" : ""} ${extraClass}`.trim(),
      role: "img",
      "aria-label": label,
      title: bc.cardLabel(card) + (standsFor ? ` = ${standsFor}` : ""),
    },
    face(f.rank, f.suit, f.red, f.copy),
    standsFor ? h("span", { class: "stands", "aria-hidden": "true" }, standsFor) : null,
  );
}

export function blagogoButton(card: BlagogoCard, opts: CardButtonOptions): HTMLButtonElement {
  const f = blagogoFace(card);
  return h(
    "button",
    buttonAttrs(["card", f.red ? "red" : "", card.joker ? "joker" : "", card.copy === 1 ? "second-deck" : ""], opts, f.rank + (card.joker ? "" : f.suit)),
    face(f.rank, f.suit, f.red, f.copy),
  );
}
