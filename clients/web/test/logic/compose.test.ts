// Meld readings (B-14, B-15): a joker's meaning is asked only when a selection has more than one reading,
// and an addition offers the run's ends that fit. Pure logic: no server.
import assert from "node:assert/strict";
import { test } from "node:test";
import { create } from "@bufbuild/protobuf";
import { BlagogoRunEnd } from "../../src/gen/thousand/v1/blagogo_actions_pb";
import { BlagogoCardSchema, BlagogoRank as R, type BlagogoCard } from "../../src/gen/thousand/v1/blagogo_cards_pb";
import { BlagogoMeldKind, BlagogoMeldSchema } from "../../src/gen/thousand/v1/blagogo_events_pb";
import { Suit as S } from "../../src/gen/thousand/v1/cards_pb";
import { additionReadings, meldReadings } from "../../src/blagogo/compose";

const c = (rank: R, suit: S, copy = 0): BlagogoCard => create(BlagogoCardSchema, { rank, suit, copy });
const joker = (copy = 0): BlagogoCard => create(BlagogoCardSchema, { joker: true, copy });

test("natural melds have one reading and nothing to ask; non-melds none", () => {
  assert.equal(meldReadings([c(R.SEVEN, S.HEARTS), c(R.EIGHT, S.HEARTS), c(R.NINE, S.HEARTS)]).length, 1);
  assert.equal(meldReadings([c(R.FIVE, S.SPADES), c(R.FIVE, S.CLUBS), c(R.FIVE, S.HEARTS)])[0]?.kind, "set");
  assert.equal(meldReadings([c(R.KING, S.HEARTS), c(R.ACE, S.HEARTS), c(R.TWO, S.HEARTS)])[0]?.kind, "run", "round the corner");
  assert.deepEqual(meldReadings([c(R.FIVE, S.SPADES), c(R.FIVE, S.SPADES, 1), c(R.FIVE, S.HEARTS)]), [], "doubles in a set");
  assert.deepEqual(meldReadings([c(R.SEVEN, S.HEARTS), c(R.NINE, S.HEARTS), c(R.TEN, S.HEARTS)]), [], "a gap");
  assert.deepEqual(meldReadings([c(R.SEVEN, S.HEARTS), c(R.EIGHT, S.HEARTS)]), [], "too short");
  assert.deepEqual(meldReadings([joker(0), joker(1), joker(2)]), [], "no natural card");
});

test("a joker with one reading is not asked about; with several, every reading is offered", () => {
  const gap = meldReadings([c(R.SEVEN, S.HEARTS), joker(), c(R.NINE, S.HEARTS)]);
  assert.equal(gap.length, 1);
  assert.deepEqual(gap[0]!.jokers.map((m) => [m.rank, m.suit]), [[R.EIGHT, S.HEARTS]]);
  // Q♠ ★ ★: the run Q K A, J Q K, 10 J Q, or three queens.
  const open = meldReadings([c(R.QUEEN, S.SPADES), joker(0), joker(1)]);
  assert.deepEqual(open.map((r) => r.text).sort(), ["10♠ J♠ Q♠", "J♠ Q♠ K♠", "Q Q Q", "Q♠ K♠ A♠"]);
  const set = open.find((r) => r.kind === "set")!;
  assert.deepEqual(set.jokers.map((m) => [m.rank, m.suit]), [[R.QUEEN, S.UNSPECIFIED], [R.QUEEN, S.UNSPECIFIED]]);
});

test("additions: a set takes its rank's missing suits; a run says which end, asked when both fit", () => {
  const set = create(BlagogoMeldSchema, {
    kind: BlagogoMeldKind.SET,
    rank: R.FIVE,
    cards: [c(R.FIVE, S.SPADES), c(R.FIVE, S.CLUBS), c(R.FIVE, S.HEARTS)],
  });
  assert.equal(additionReadings(set, [c(R.FIVE, S.DIAMONDS)]).length, 1);
  assert.deepEqual(additionReadings(set, [c(R.FIVE, S.SPADES, 1)]), [], "a suit already there");
  assert.deepEqual(additionReadings(set, [c(R.SIX, S.DIAMONDS)]), []);
  const run = create(BlagogoMeldSchema, {
    kind: BlagogoMeldKind.RUN,
    rank: R.SIX,
    suit: S.HEARTS,
    cards: [c(R.SIX, S.HEARTS), c(R.SEVEN, S.HEARTS), c(R.EIGHT, S.HEARTS)],
  });
  assert.deepEqual(additionReadings(run, [c(R.NINE, S.HEARTS)]).map((r) => r.end), [BlagogoRunEnd.HIGH]);
  assert.deepEqual(additionReadings(run, [c(R.FIVE, S.HEARTS)]).map((r) => r.end), [BlagogoRunEnd.LOW]);
  assert.deepEqual(additionReadings(run, [joker()]).map((r) => r.end), [BlagogoRunEnd.LOW, BlagogoRunEnd.HIGH]);
  assert.deepEqual(additionReadings(run, [c(R.NINE, S.SPADES)]), [], "another suit");
  assert.deepEqual(additionReadings(create(BlagogoMeldSchema, { ...set, closed: true }), [c(R.FIVE, S.DIAMONDS)]), [], "closed");
});
