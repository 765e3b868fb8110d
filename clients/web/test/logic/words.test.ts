// What the table says in words (issue #28): a third bolt is one sign on the sheet and the legend explains
// every sign; a refusal reads in words, without its code or rule ID; the lobby shows a clock only for a table
// that has one. Pure logic: no server.
import assert from "node:assert/strict";
import { test } from "node:test";
import { create } from "@bufbuild/protobuf";
import { Code } from "@connectrpc/connect";
import { DealKind, Mark } from "../../src/gen/thousand/v1/thousand_events_pb";
import { TableSchema } from "../../src/gen/thousand/v1/table_service_pb";
import { marksOf } from "../../src/thousand/sheet";
import { MARK_SIGNS, TABLE_WORDS, markLegend } from "../../src/thousand/words";
import { t } from "../../src/i18n";
import { refusalText } from "../../src/ui/refusal";
import { perMoveSeconds } from "../../src/ui/lobby";

test("a third bolt is one sign (•••), not a bolt's and the penalty's (••••); the legend explains every sign", () => {
  const row = {
    number: 9,
    kind: DealKind.NORMAL,
    dealPoints: [],
    deltas: [],
    totals: [],
    marks: [
      { seat: 0, mark: Mark.BOLT, points: 0 },
      { seat: 0, mark: Mark.BOLT_PENALTY, points: -120 },
      { seat: 1, mark: Mark.BOLT, points: 0 },
    ],
  };
  assert.equal(marksOf(row, 0).map((m) => m.sign).join(""), "•••");
  assert.deepEqual(marksOf(row, 0).map((m) => m.words), ["third bolt"]);
  assert.equal(marksOf(row, 1).map((m) => m.sign).join(""), "•");
  const legend = markLegend();
  for (const sign of new Set(Object.values(MARK_SIGNS))) assert.ok(legend.includes(`${sign} `), `the legend does not explain ${sign}`);
});

test("a refusal reads in words: no reason code, no rule ID, no setting name", () => {
  const text = refusalText({
    code: Code.FailedPrecondition,
    reason: "ILLEGAL_ACTION",
    message: "an opening must be worth at least 300; these melds are worth 60 (B-11)",
    metadata: { rule: "OPENING_TOO_LOW" },
  } as Parameters<typeof refusalText>[0]);
  assert.equal(text, "the opening melds are worth too little: an opening must be worth at least 300; these melds are worth 60");
  const other = refusalText({
    code: Code.FailedPrecondition,
    reason: "ILLEGAL_ACTION",
    message: "an opening needs one meld worth at least 300 on its own (opening_one_meld); NOT_OPENED first",
    metadata: { rule: "SOME_NEW_RULE" },
  } as Parameters<typeof refusalText>[0]);
  assert.doesNotMatch(other, /[A-Z]{2,}_[A-Z]|[a-z]+_[a-z]+|[TB]-\d/, other);
});

test("the lobby's clock: only for a table with a turn clock, never 0s/move", () => {
  assert.equal(perMoveSeconds(create(TableSchema, {})), 0);
  assert.equal(perMoveSeconds(create(TableSchema, { timeControl: { perMove: { seconds: 0n } } })), 0);
  assert.equal(perMoveSeconds(create(TableSchema, { timeControl: { perMove: { seconds: 30n } } })), 30);
});

test("one card, one trick, one point: singular for one, never \"1 tricks\"", () => {
  assert.equal(TABLE_WORDS.tricksCards(1, 1), "1 card · 1 trick");
  assert.equal(TABLE_WORDS.tricksCards(7, 0), "7 cards · 0 tricks");
  // The catalogues' plurals (ICU): every language's forms, English's singular for one.
  assert.equal(t("web.seat_label", { name: "Ann", points: 1, cards: 2, acts: "no" }), "Ann: 1 point, 2 cards");
  assert.equal(TABLE_WORDS.takes("Ann", 1), "Ann takes the trick (1 point)");
});
