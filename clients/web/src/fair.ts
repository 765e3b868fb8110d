// Fair deals, scheme thousand.fair.v1 (docs/protocol.md, "Verifiable deals"; engine/seeds.py, engine/verify.py):
// every deal follows from the table's secret (committed to before any seat is taken), every seat's own seed
// and the deal's number. Here, for both games: the derivation (HMAC-SHA256, the byte stream, the unbiased
// shuffle of the canonical deck), the card codes, and the cut of an order into the hands dealt.
import { hex, hmacSha256, sha256, utf8 } from "./sha256";

export const SCHEME = "thousand.fair.v1";

export type GameName = "thousand" | "blagogo";

/** A deal's secret from the table's: HMAC(table_secret, "thousand.fair.v1|deal|" + n). */
export function dealSecret(tableSecret: Uint8Array, number: number): Uint8Array {
  return hmacSha256(tableSecret, utf8(`${SCHEME}|deal|${number}`));
}

/** The deal's mix: HMAC(deal_secret, "thousand.fair.v1|" + game + "|" + n + "|" + seed_0 + "|" + ...). */
export function mix(secret: Uint8Array, game: GameName, number: number, seeds: readonly string[]): Uint8Array {
  return hmacSha256(secret, utf8(`${SCHEME}|${game}|${number}|${seeds.join("|")}`));
}

/** The canonical deck shuffled by the mix's byte stream: SHA256(mix || uint32be(j)) for j = 0, 1, ... */
export function shuffled<T>(deck: readonly T[], mixBytes: Uint8Array): T[] {
  const out = [...deck];
  let block = 0;
  let buffer = new Uint8Array(0);
  let at = 0;
  const next32 = (): number => {
    if (at + 4 > buffer.length) {
      const input = new Uint8Array(mixBytes.length + 4);
      input.set(mixBytes);
      new DataView(input.buffer).setUint32(mixBytes.length, block++);
      const rest = buffer.slice(at);
      buffer = new Uint8Array(rest.length + 32);
      buffer.set(rest);
      buffer.set(sha256(input), rest.length);
      at = 0;
    }
    const x = new DataView(buffer.buffer, buffer.byteOffset + at, 4).getUint32(0);
    at += 4;
    return x;
  };
  for (let i = out.length - 1; i >= 1; i--) {
    const bound = i + 1;
    const limit = 2 ** 32 - (2 ** 32 % bound);
    let x = next32();
    while (x >= limit) x = next32();
    const j = x % bound;
    [out[i], out[j]] = [out[j]!, out[i]!];
  }
  return out;
}

/** hex(SHA256(bytes)): the table's commitment from its secret. */
export function commitmentOf(secret: Uint8Array): string {
  return hex(sha256(secret));
}

/** Where each seat's hand lies in a dealing order: [seat, first index, count], in dealing order. */
export function cuts(dealing: readonly number[], handSizes: readonly number[]): [number, number, number][] {
  let at = 0;
  return dealing.map((seat, i) => {
    const cut: [number, number, number] = [seat, at, handSizes[i] ?? 0];
    at += handSizes[i] ?? 0;
    return cut;
  });
}
