// The 24 cards of Thousand (T-1) as the contract sends them: names, points, order and identity.
import { create } from "@bufbuild/protobuf";
import { CardSchema, Rank, Suit, type Card } from "./gen/thousand/v1/cards_pb";
import { t } from "./i18n";

export const SUIT_SYMBOLS: Record<number, string> = {
  [Suit.SPADES]: "♠",
  [Suit.CLUBS]: "♣",
  [Suit.DIAMONDS]: "♦",
  [Suit.HEARTS]: "♥",
};
/** The suits' ids in the catalogues (`term.suit_<id>`, and the `suit` of `web.card_name`). */
export const SUIT_IDS: Record<number, string> = {
  [Suit.SPADES]: "spades",
  [Suit.CLUBS]: "clubs",
  [Suit.DIAMONDS]: "diamonds",
  [Suit.HEARTS]: "hearts",
};
const RANK_LABELS: Record<number, string> = {
  [Rank.NINE]: "9",
  [Rank.JACK]: "J",
  [Rank.QUEEN]: "Q",
  [Rank.KING]: "K",
  [Rank.TEN]: "10",
  [Rank.ACE]: "A",
};
/** The ranks' ids in the catalogues (the `rank` of `web.card_name`). */
const RANK_IDS: Record<number, string> = {
  [Rank.NINE]: "nine",
  [Rank.JACK]: "jack",
  [Rank.QUEEN]: "queen",
  [Rank.KING]: "king",
  [Rank.TEN]: "ten",
  [Rank.ACE]: "ace",
};
/** T-1: A 11, 10 10, K 4, Q 3, J 2, 9 0. */
const RANK_POINTS: Record<number, number> = {
  [Rank.NINE]: 0,
  [Rank.JACK]: 2,
  [Rank.QUEEN]: 3,
  [Rank.KING]: 4,
  [Rank.TEN]: 10,
  [Rank.ACE]: 11,
};
/** T-2: ♠ 40, ♣ 60, ♦ 80, ♥ 100. */
export const MARRIAGE_POINTS: Record<number, number> = {
  [Suit.SPADES]: 40,
  [Suit.CLUBS]: 60,
  [Suit.DIAMONDS]: 80,
  [Suit.HEARTS]: 100,
};
const SUIT_LETTERS = "SCDH";

export function isRed(suit: Suit): boolean {
  return suit === Suit.HEARTS || suit === Suit.DIAMONDS;
}

export function suitSymbol(suit: Suit): string {
  return SUIT_SYMBOLS[suit] ?? "?";
}

export function cardLabel(card: Card): string {
  return `${RANK_LABELS[card.rank] ?? "?"}${suitSymbol(card.suit)}`;
}

/** For screen readers: "king of hearts", "король червей". */
export function cardName(card: Card): string {
  return t("web.card_name", { rank: RANK_IDS[card.rank], suit: SUIT_IDS[card.suit] });
}

export function cardPoints(card: Card): number {
  return RANK_POINTS[card.rank] ?? 0;
}

/** The card's code in a deal's commitment text (docs/protocol.md, "Verifiable deals"): "10H", "9S". */
export function cardCode(card: Card): string {
  return `${RANK_LABELS[card.rank] ?? "?"}${SUIT_LETTERS[card.suit - 1] ?? "?"}`;
}

/** The engine's order (by suit, then ascending rank): the order of View.hand. */
export function cardIndex(card: Card): number {
  return (card.suit - 1) * 6 + (card.rank - 1);
}

export function cardOf(index: number): Card {
  return create(CardSchema, { suit: Math.floor(index / 6) + 1, rank: (index % 6) + 1 });
}

export function sameCard(a: Card | undefined, b: Card | undefined): boolean {
  return a !== undefined && b !== undefined && a.suit === b.suit && a.rank === b.rank;
}

export function byIndex(cards: readonly Card[]): Card[] {
  return [...cards].sort((a, b) => cardIndex(a) - cardIndex(b));
}

/** How a hand is shown: suits alternating black and red (♠ ♥ ♣ ♦), trump first, high cards left. */
export function displayOrder(cards: readonly Card[], trump?: Suit): Card[] {
  const suitOrder = [Suit.SPADES, Suit.HEARTS, Suit.CLUBS, Suit.DIAMONDS];
  const place = (s: Suit): number => (s === trump ? -1 : suitOrder.indexOf(s));
  return [...cards].sort((a, b) => place(a.suit) - place(b.suit) || b.rank - a.rank);
}
