// Melds composed from selected cards (B-14, B-15): the readings a selection allows, so that a joker's meaning
// is asked only when it has more than one, and where added cards may go on a meld. The server validates
// what is sent exactly (B-22); this only offers what could be meant, and says when nothing could.
import { create } from "@bufbuild/protobuf";
import {
  BlagogoJokerMeaningSchema,
  BlagogoRunEnd,
  type BlagogoJokerMeaning,
} from "../gen/thousand/v1/blagogo_actions_pb";
import type { BlagogoCard } from "../gen/thousand/v1/blagogo_cards_pb";
import { BlagogoMeldKind, type BlagogoMeld } from "../gen/thousand/v1/blagogo_events_pb";
import { Suit } from "../gen/thousand/v1/cards_pb";
import { suitSymbol } from "../cards";
import { RANKS, rankAfter, rankLabel } from "./cards";
import { t } from "../i18n";

export interface Reading {
  kind: "set" | "run";
  /** One meaning per joker, in the order the jokers appear in the selection. */
  jokers: BlagogoJokerMeaning[];
  /** The cards as they would lie: "Q♠ K♠ A♠", "Q Q Q" (readingText says it with the end, in words). */
  text: string;
  /** For an addition to a run: the end the cards go to. */
  end?: BlagogoRunEnd;
}

function meaning(rank: number, suit: Suit = Suit.UNSPECIFIED): BlagogoJokerMeaning {
  return create(BlagogoJokerMeaningSchema, { rank, suit });
}

function label(rank: number, suit: Suit): string {
  return `${rankLabel(rank)}${suit ? suitSymbol(suit) : ""}`;
}

/** Jokers take the ranks the naturals leave, in order; undefined when the naturals do not fit the ranks. */
function fill(ranks: number[], naturals: BlagogoCard[], jokers: number, suit: Suit): BlagogoJokerMeaning[] | undefined {
  const have = naturals.map((c) => c.rank);
  if (new Set(have).size !== have.length || !have.every((r) => ranks.includes(r))) return undefined;
  const missing = ranks.filter((r) => !have.includes(r));
  return missing.length === jokers ? missing.map((r) => meaning(r, suit)) : undefined;
}

/** Every way a selection of cards may be laid as one new meld. */
export function meldReadings(cards: BlagogoCard[]): Reading[] {
  const naturals = cards.filter((c) => !c.joker);
  const jokers = cards.length - naturals.length;
  if (cards.length < 3 || naturals.length === 0) return [];
  const readings: Reading[] = [];
  const rank = naturals[0]!.rank;
  const suits = naturals.map((c) => c.suit);
  if (cards.length <= 4 && naturals.every((c) => c.rank === rank) && new Set(suits).size === suits.length)
    readings.push({ kind: "set", jokers: Array.from({ length: jokers }, () => meaning(rank)), text: Array(cards.length).fill(rankLabel(rank)).join(" ") });
  const suit = naturals[0]!.suit;
  if (cards.length <= RANKS && naturals.every((c) => c.suit === suit)) {
    const seen = new Set<string>();
    for (let start = 1; start <= RANKS; start++) {
      const ranks = Array.from({ length: cards.length }, (_, i) => rankAfter(start, i));
      const filled = fill(ranks, naturals, jokers, suit);
      if (!filled) continue;
      const key = filled.map((m) => m.rank).join(",");
      if (seen.has(key)) continue;
      seen.add(key);
      readings.push({ kind: "run", jokers: filled, text: ranks.map((r) => label(r, suit)).join(" ") });
    }
  }
  return readings;
}

/** Every way cards may be added to a meld on the table: one for a set, an end (or two) for a run. */
export function additionReadings(meld: BlagogoMeld, cards: BlagogoCard[]): Reading[] {
  if (meld.closed || cards.length === 0) return [];
  const naturals = cards.filter((c) => !c.joker);
  const jokers = cards.length - naturals.length;
  if (meld.kind === BlagogoMeldKind.SET) {
    const present = new Set(meld.cards.filter((c) => !c.joker).map((c) => c.suit));
    const fits =
      meld.cards.length + cards.length <= 4 &&
      naturals.every((c) => c.rank === meld.rank && !present.has(c.suit)) &&
      new Set(naturals.map((c) => c.suit)).size === naturals.length;
    return fits ? [{ kind: "set", jokers: Array.from({ length: jokers }, () => meaning(meld.rank)), text: rankLabel(meld.rank) }] : [];
  }
  if (meld.cards.length + cards.length > RANKS || !naturals.every((c) => c.suit === meld.suit)) return [];
  const k = cards.length;
  const ends: [BlagogoRunEnd, number[]][] = [
    [BlagogoRunEnd.LOW, Array.from({ length: k }, (_, i) => rankAfter(meld.rank, i - k))],
    [BlagogoRunEnd.HIGH, Array.from({ length: k }, (_, i) => rankAfter(meld.rank, meld.cards.length + i))],
  ];
  return ends.flatMap(([end, ranks]) => {
    const filled = fill(ranks, naturals, jokers, meld.suit);
    if (!filled) return [];
    const text = ranks.map((r) => label(r, meld.suit)).join(" ");
    return [{ kind: "run" as const, jokers: filled, text, end }];
  });
}

/** A reading as the player reads it: the cards, and for an addition to a run the end they go to. */
export function readingText(r: Reading): string {
  if (r.end === undefined) return r.text;
  return t("web.blagogo.at_end", { end: r.end === BlagogoRunEnd.LOW ? "low" : "high", cards: r.text });
}
