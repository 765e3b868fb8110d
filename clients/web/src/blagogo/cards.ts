// The 108 cards of 1000 Blagogo (B-1) as the contract sends them: two decks told apart by `copy`, and four
// jokers. Names as the engine prints them: "A♠", "A♠'" for the second deck's copy, "★1" to "★4".
import { create } from "@bufbuild/protobuf";
import { BlagogoCardSchema, BlagogoRank, type BlagogoCard } from "../gen/thousand/v1/blagogo_cards_pb";
import { Suit } from "../gen/thousand/v1/cards_pb";
import { SUIT_IDS, suitSymbol } from "../cards";
import { t } from "../i18n";

export const RANKS = 13;
const LABELS = ["2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K", "A"];
/** The ranks' ids in the catalogues (the `rank` of `web.card_name`). */
const RANK_IDS = ["two", "three", "four", "five", "six", "seven", "eight", "nine", "ten", "jack", "queen", "king", "ace"];

export function rankLabel(rank: BlagogoRank): string {
  return LABELS[rank - 1] ?? "?";
}

export function cardLabel(card: BlagogoCard): string {
  if (card.joker) return `★${card.copy + 1}`;
  return `${rankLabel(card.rank)}${suitSymbol(card.suit)}${card.copy === 1 ? "'" : ""}`;
}

/** The face alone: "A♠" for both aces of spades, "★" for a joker. */
export function faceLabel(card: BlagogoCard): string {
  return card.joker ? "★" : `${rankLabel(card.rank)}${suitSymbol(card.suit)}`;
}

/** For screen readers: "king of hearts, second deck", "joker 2". */
export function cardName(card: BlagogoCard): string {
  if (card.joker) return t("web.joker_name", { number: card.copy + 1 });
  const name = t("web.card_name", { rank: RANK_IDS[card.rank - 1], suit: SUIT_IDS[card.suit] });
  return card.copy === 1 ? t("web.second_deck", { card: name }) : name;
}

/** The engine's card order (by suit, then rank, then copy; jokers last): the order of BlagogoView.hand. */
export function cardIndex(card: BlagogoCard): number {
  if (card.joker) return 104 + card.copy;
  return 2 * ((card.suit - 1) * RANKS + (card.rank - 1)) + card.copy;
}

export function cardOf(index: number): BlagogoCard {
  if (index >= 104) return create(BlagogoCardSchema, { joker: true, copy: index - 104 });
  const face = index >> 1;
  return create(BlagogoCardSchema, { suit: Math.floor(face / RANKS) + 1, rank: (face % RANKS) + 1, copy: index & 1 });
}

export function sameCard(a: BlagogoCard | undefined, b: BlagogoCard | undefined): boolean {
  return a !== undefined && b !== undefined && cardIndex(a) === cardIndex(b);
}

export function byIndex(cards: readonly BlagogoCard[]): BlagogoCard[] {
  return [...cards].sort((a, b) => cardIndex(a) - cardIndex(b));
}

export function without(cards: readonly BlagogoCard[], gone: readonly BlagogoCard[]): BlagogoCard[] {
  const out = new Set(gone.map(cardIndex));
  return cards.filter((c) => !out.has(cardIndex(c)));
}

export function isRedSuit(suit: Suit): boolean {
  return suit === Suit.HEARTS || suit === Suit.DIAMONDS;
}

/** B-3: what a card left in hand costs. */
export function handValue(card: BlagogoCard, aceInHand: number): number {
  if (card.joker) return 25;
  if (card.rank === BlagogoRank.ACE) return aceInHand;
  return card.rank <= BlagogoRank.NINE ? 5 : 10;
}

/** B-2: what a card of this rank (or a joker standing for it) is worth in a meld. */
export function meldValue(rank: BlagogoRank, inSet: boolean): number {
  if (rank === BlagogoRank.ACE) return inSet ? 25 : 10;
  return rank <= BlagogoRank.NINE ? 5 : 10;
}

/** The rank `steps` after `rank`, round the corner (K, A, 2): B-14. */
export function rankAfter(rank: BlagogoRank, steps: number): BlagogoRank {
  return ((((rank - 1 + steps) % RANKS) + RANKS) % RANKS) + 1;
}
