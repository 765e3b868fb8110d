// A page that starts from a snapshot (here: its saved state is ahead of the table, so the server refuses the
// resume and the stream starts afresh from a snapshot) checks the deal in progress all the same: the
// snapshot's Snapshot.deal gives the deal's check its first events, so the deal is verified when it is
// revealed, the seat's own seed included (the join that took the last seat dealt it), in both games.
import assert from "node:assert/strict";
import { create, toBinary } from "@bufbuild/protobuf";
import { test } from "node:test";
import { randomToken } from "../../src/api";
import { toBase64 } from "../../src/base64";
import { takeSeat } from "../../src/join";
import { SeatStore, memoryStorage } from "../../src/seats";
import { TableSession } from "../../src/session";
import { GameKind, RulesSchema, SeatKind, TableSchema } from "../../src/gen/thousand/v1/table_service_pb";
import { client, nodes, play, rng, until } from "./harness";

async function fromSnapshot(game: GameKind, bot: string, rules?: ReturnType<typeof create<typeof RulesSchema>>): Promise<TableSession> {
  const c = client();
  const { table } = await c.createTable({
    game,
    rules,
    seats: [{ kind: SeatKind.OPEN }, { kind: SeatKind.BOT, strategy: bot }],
    requestId: randomToken(12),
  });
  assert.ok(table && !table.seeded && table.fairness?.commitment, "a fair table");
  const record = await takeSeat(nodes(), new SeatStore(memoryStorage()), table.tableId);
  const { table: now } = await c.getTable({ tableId: table.tableId });
  // A saved page whose last event the table never reached: the resume is refused (after_sequence) and the
  // stream starts again from a snapshot, taken while the first deal is being played.
  const saved = { lastSeen: "1000000", table: toBase64(toBinary(TableSchema, now!)), model: undefined, log: [] };
  const session = new TableSession(nodes(), table.tableId, { ...record, saved, watchdogMs: 0 });
  await session.start();
  return session;
}

async function checksTheFirstDeal(session: TableSession, seed: number): Promise<void> {
  await until(session, () => session.log.some((l) => l.text === "Caught up with the table."));
  assert.ok(session.applied.length === 0 || session.applied[0]! > 1n, "it did not replay the table's history");
  const checks = () => session.model?.verifier.checks ?? [];
  await play(session, rng(seed), () => checks().length > 0 || session.status.state === "ended");
  const first = checks()[0];
  assert.ok(first, "the deal in progress at the snapshot was checked");
  assert.equal(first.number, 1);
  assert.ok(first.ok, first.text);
  assert.match(first.text, /verified: committed before it was dealt, .*\(yours included\) gives the cards dealt/);
  session.stop();
}

test("a Thousand page that starts from a snapshot checks the deal in progress", async () => {
  const session = await fromSnapshot(GameKind.THOUSAND, "greedy", create(RulesSchema, { game: { case: "thousand", value: { players: 2 } } }));
  await checksTheFirstDeal(session, 31);
});

test("a 1000 Blagogo page that starts from a snapshot checks the round in progress", async () => {
  const rules = create(RulesSchema, { game: { case: "blagogo", value: { players: 2, target: 150, turnoverLimit: 1 } } });
  const session = await fromSnapshot(GameKind.BLAGOGO, "random", rules);
  await checksTheFirstDeal(session, 32);
});
