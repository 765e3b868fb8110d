// The fair-deal derivation against docs/protocol.md's worked example (tests/test_verify_fair.py checks the
// same numbers in Python): the web client computes exactly what the server deals from.
import assert from "node:assert/strict";
import { test } from "node:test";
import { commitmentOf, dealSecret, mix, shuffled } from "../../src/fair";
import { fromHex, hex, hmacSha256, sha256, sha256Hex, utf8 } from "../../src/sha256";
import { THOUSAND_DECK } from "../../src/thousand/model";
import { BLAGOGO_DECK } from "../../src/blagogo/model";

const SECRET = fromHex("000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f")!;
const SEEDS = ["seat-zero-seed-0123456789", "", "Seat_Two_Seed_abcdefghij"];

test("HMAC-SHA256 matches RFC 4231's test case 2", () => {
  assert.equal(
    hex(hmacSha256(utf8("Jefe"), utf8("what do ya want for nothing?"))),
    "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843",
  );
});

test("the worked example, Thousand: commitment, deal secret, mix, first block, order, deal commitment", () => {
  assert.equal(commitmentOf(SECRET), "630dcd2966c4336691125448bbb25b4ff412a49c732db2c8abc1b8581bd710dd");
  const secret = dealSecret(SECRET, 1);
  assert.equal(hex(secret), "191060afc92e0e73654652c2fb241d12013b4939cbdd50a8af188d35c555c534");
  const m = mix(secret, "thousand", 1, SEEDS);
  assert.equal(hex(m), "cde0f6063f6c8d420c9360d875cc6722732c6649878b1f414413d292d7262aa9");
  const first = new Uint8Array(36);
  first.set(m);
  assert.equal(hex(sha256(first)), "2231808503c051d3ef3a574e85cd8b6ec383dbe56e3b2961c278aaea7768128a");
  const order = shuffled(THOUSAND_DECK, m);
  assert.equal(order.join(" "), "KS AD 10D QS JD JH 9H QD KH 9C QC 9D KD 9S JC JS QH 10S AC 10H AH 10C KC AS");
  assert.equal(
    sha256Hex(`thousand.deal.v1|${hex(secret)}||${order.join(" ")}`),
    "8f1e3ef318dd7ce5f48c3d9cfef712041d029198eb6762f44d389ba1259971d9",
  );
});

test("the worked example, 1000 Blagogo: mix, the order's start, the round's commitment", () => {
  const secret = dealSecret(SECRET, 1);
  const m = mix(secret, "blagogo", 1, SEEDS);
  assert.equal(hex(m), "d247ac3f47e482ca612e5e84002c7081f7ee90664aae81a6e7536d9fcf68fa4f");
  const order = shuffled(BLAGOGO_DECK, m);
  assert.equal(order.slice(0, 10).join(" "), "10C0 JD1 7H1 4H0 AH1 5D1 2S1 9C0 9D0 9S0");
  assert.equal(
    sha256Hex(`blagogo.round.v1|${hex(secret)}||${order.join(" ")}`),
    "9a50fe4b69076ecab708bcd84b0d42dcf83af1f8083989d3e309a502ad38a75f",
  );
  assert.equal(BLAGOGO_DECK.length, 108);
  assert.deepEqual([BLAGOGO_DECK[0], BLAGOGO_DECK[1], BLAGOGO_DECK[103], BLAGOGO_DECK[104]], ["2S0", "2S1", "AH1", "X0"]);
});
