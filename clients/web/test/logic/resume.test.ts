// Resume: a seat's page closed mid-game and opened again from what it saved comes back to the same seat and
// reads on right after the last event it had; dropped connections are resumed; each event is applied once.
import assert from "node:assert/strict";
import { test } from "node:test";
import { TableSession } from "../../src/session";
import { SeatStore, memoryStorage } from "../../src/seats";
import { assertContiguous, client, nodes, play, rng, thousandTable, until } from "./harness";

test("a page closed mid-game and reopened from its saved state resumes after its last sequence", async () => {
  const c = client();
  const seated = await thousandTable(c, 21n);
  const store = new SeatStore(memoryStorage());
  store.keep({ ...seated, name: "tester" });
  const first = new TableSession(nodes(), seated.tableId, { seat: seated.seat, token: seated.token, watchdogMs: 0 });
  await first.start();
  const random = rng(21);
  let acted = 0;
  await play(first, random, () => acted++ >= 6);
  first.stop();
  const saved = first.save();
  assert.ok(saved);
  store.saveState(seated.tableId, String(seated.seat), saved);
  const lastSeen = first.lastSeen!;
  assertContiguous(first.applied, 0n, lastSeen);

  const record = store.seat(seated.tableId)!;
  const second = new TableSession(nodes(), seated.tableId, {
    seat: record.seat,
    token: record.token,
    saved: store.state(seated.tableId, String(record.seat)),
    watchdogMs: 0,
  });
  await second.start();
  await until(second, () => second.status.state === "live");
  assert.equal(second.seat, seated.seat);
  await play(second, random, () => second.status.state === "ended");
  const end = second.lastSeen!;
  assertContiguous(second.applied, lastSeen, end);
  assert.deepEqual(second.trackerMisses, []);
  // The log holds every line once: sequences never repeat and never go back.
  const sequences = second.log.map((l) => BigInt(l.sequence));
  sequences.forEach((s, i) => i === 0 || assert.ok(s >= sequences[i - 1]!));
  second.stop();
});

test("dropped connections are resumed without losing or repeating an event", async () => {
  const c = client();
  const seated = await thousandTable(c, 22n);
  const session = new TableSession(nodes(), seated.tableId, { seat: seated.seat, token: seated.token, watchdogMs: 0 });
  await session.start();
  const random = rng(22);
  let actions = 0;
  let drops = 0;
  const statuses: string[] = [];
  session.onChange(() => statuses.push(session.status.state));
  await play(session, random, () => {
    // Cut a live connection every fifth action (one still reconnecting is left alone).
    if (++actions % 5 === 0 && drops < 10 && session.status.state === "live") {
      drops += 1;
      session.reconnect();
    }
    return session.status.state === "ended";
  });
  assert.ok(drops >= 3, `only ${drops} drops`);
  assert.equal(session.reconnects, drops, "one reconnection per dropped connection");
  assert.ok(statuses.includes("retrying"), "the page said the connection was lost");
  assertContiguous(session.applied, 0n, session.lastSeen!);
  assert.deepEqual(session.trackerMisses, []);
  session.stop();
});
