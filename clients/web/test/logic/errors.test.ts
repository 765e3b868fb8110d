// Decoding: refusals arrive over connect-web with their ErrorInfo reason and metadata, as over gRPC; the
// deal commitment is recomputed exactly as the server makes it.
import assert from "node:assert/strict";
import { test } from "node:test";
import { create } from "@bufbuild/protobuf";
import { Code } from "@connectrpc/connect";
import { failure, randomToken, seatHeaders } from "../../src/api";
import { ActionSchema, GameKind, SeatKind } from "../../src/gen/thousand/v1/table_service_pb";
import { sha256Hex } from "../../src/sha256";
import { cardCode, cardOf } from "../../src/cards";
import { refusalText } from "../../src/ui/refusal";
import { client, thousandTable } from "./harness";

async function refusal(call: Promise<unknown>): Promise<ReturnType<typeof failure>> {
  try {
    await call;
  } catch (error) {
    return failure(error);
  }
  assert.fail("the call was not refused");
}

test("an unknown table is TABLE_NOT_FOUND, with its code and words", async () => {
  const f = await refusal(client().getTable({ tableId: "nosuchtable" }));
  assert.equal(f.code, Code.NotFound);
  assert.equal(f.reason, "TABLE_NOT_FOUND");
  assert.match(refusalText(f), /no such table/);
});

test("an unknown bot strategy is UNKNOWN_STRATEGY", async () => {
  const f = await refusal(
    client().createTable({ game: GameKind.THOUSAND, seats: [{ kind: SeatKind.BOT, strategy: "psychic" }, { kind: SeatKind.OPEN }, { kind: SeatKind.OPEN }] }),
  );
  assert.equal(f.code, Code.InvalidArgument);
  assert.equal(f.reason, "UNKNOWN_STRATEGY");
});

test("an illegal action is ILLEGAL_ACTION with the engine's rule; a wrong token SEAT_TOKEN_INVALID", async () => {
  const c = client();
  const seated = await thousandTable(c, 7n);
  const bid = create(ActionSchema, { game: { case: "thousand", value: { action: { case: "bid", value: { value: 103 } } } } });
  const f = await refusal(c.submitAction({ tableId: seated.tableId, requestId: randomToken(12), action: bid }, { headers: seatHeaders(seated.token) }));
  assert.equal(f.code, Code.FailedPrecondition);
  assert.ok(["ILLEGAL_ACTION", "NOT_YOUR_TURN"].includes(f.reason), f.reason);
  if (f.reason === "ILLEGAL_ACTION") assert.ok(f.metadata["rule"], "the rule is named");
  const g = await refusal(c.submitAction({ tableId: seated.tableId, requestId: randomToken(12), action: bid }, { headers: seatHeaders(randomToken(32)) }));
  assert.equal(g.reason, "SEAT_TOKEN_INVALID");
  const h = await refusal(c.submitAction({ tableId: seated.tableId, requestId: randomToken(12), action: bid }));
  assert.equal(h.reason, "SPECTATOR_CANNOT_ACT");
});

test("SHA-256, and the card codes of the commitment text", () => {
  assert.equal(sha256Hex(""), "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
  assert.equal(sha256Hex("abc"), "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
  const long = "a".repeat(1000);
  assert.equal(sha256Hex(long), "41edece42d63e8d9bf515a9ba6932e1c20cbc9f5a5d134645adb5db1b9737ea3");
  assert.deepEqual([0, 7, 14, 21, 4, 5].map(cardOf).map(cardCode), ["9S", "JC", "QD", "KH", "10S", "AS"]);
});
