// Verifiable deals (docs/protocol.md, "Verifiable deals"; engine/verify.py): each deal's DeckShuffled carries
// the SHA-256 of "thousand.deal.v1|<salt>|<deal_seed or empty>|<order>" before a card is seen, and its
// DealRevealed discloses salt, seed and order once it is over. Recomputing the hash shows the deal was fixed
// before it began and never changed. (Checking that the order is the seed's needs CPython's shuffle; the
// terminal client does that, a browser checks the commitment.)
import type { Card } from "./gen/thousand/v1/cards_pb";
import { cardCode } from "./cards";
import { sha256Hex } from "./sha256";

export const FORMAT = "thousand.deal.v1";

export function commitmentText(salt: string, dealSeed: bigint | undefined, order: readonly Card[]): string {
  const seed = dealSeed === undefined ? "" : dealSeed.toString();
  return `${FORMAT}|${salt}|${seed}|${order.map(cardCode).join(" ")}`;
}

export function commitment(salt: string, dealSeed: bigint | undefined, order: readonly Card[]): string {
  return sha256Hex(commitmentText(salt, dealSeed, order));
}

/** One deal's check, as the table shows it. */
export interface DealCheck {
  number: number;
  ok: boolean;
  text: string;
}

/** Feed it a seat's DeckShuffled and DealRevealed events in order; it checks each revealed deal. */
export class DealVerifier {
  /** Commitments seen and not yet revealed, by deal number (plain data: saved with the seat). */
  pending: Record<number, string> = {};
  checks: DealCheck[] = [];

  shuffled(number: number, commitmentHex: string): void {
    this.pending[number] = commitmentHex;
  }

  revealed(number: number, salt: string, dealSeed: bigint | undefined, order: readonly Card[]): DealCheck | undefined {
    const expected = this.pending[number];
    delete this.pending[number];
    if (expected === undefined) return undefined; // joined mid-deal: the commitment was never seen
    const ok = commitment(salt, dealSeed, order) === expected.toLowerCase();
    const check: DealCheck = {
      number,
      ok,
      text: ok
        ? `Deal ${number} verified: the dealt order matches the commitment sent before the deal.`
        : `Deal ${number} FAILED verification: the revealed order does not match its commitment.`,
    };
    this.checks.push(check);
    return check;
  }
}
