// What the browser keeps of a finished seat (src/seats.ts): the seat's number always (the standings say
// "(you)"), its token only when the seat was taken anonymously, for its rematch, and only until
// FINISHED_TOKEN_MS after the end; a player's seat keeps no token (the player's credential names it).
import assert from "node:assert/strict";
import { test } from "node:test";
import { FINISHED_TOKEN_MS, SeatStore, memoryStorage, type KeyValue } from "../../src/seats";

const T0 = Date.now(); // the store also looks at the clock itself (every look at the seats drops what is out of date)

function stored(storage: KeyValue): string {
  return ["thousand.seats.v1", "thousand.ended.v1", "thousand.finished-tokens.v1"].map((k) => storage.getItem(k) ?? "").join("\n");
}

test("an anonymous seat's token is kept after the end for its rematch, then goes at its time", () => {
  const storage = memoryStorage();
  const store = new SeatStore(storage);
  store.keep({ tableId: "t1", seat: 1, token: "secret-1", name: "Ann", clientSeed: "seed-1" });
  store.finished("t1", 1, T0);
  assert.equal(store.seat("t1"), undefined, "no longer a live seat (the lobby does not list it)");
  assert.equal(store.endedSeat("t1"), 1);
  assert.deepEqual(store.finishedToken("t1", T0 + 1000), { seat: 1, name: "Ann", token: "secret-1", until: T0 + FINISHED_TOKEN_MS });
  assert.ok(!stored(storage).includes("seed-1"), "the deals' seed goes at the end");
  // A later call (the page draws again) does not make it last longer.
  store.finished("t1", 1, T0 + 60000);
  assert.equal((store.finishedToken("t1", T0) as { until: number }).until, T0 + FINISHED_TOKEN_MS);
  // At its time the token goes from storage; that it expired stays (the page says so).
  assert.deepEqual(store.finishedToken("t1", T0 + FINISHED_TOKEN_MS), { seat: 1, name: "Ann", expired: true });
  assert.ok(!stored(storage).includes("secret-1"), "the token is gone from storage");
  assert.equal(store.endedSeat("t1"), 1, "the seat is still ours");
});

test("a look at the seats drops the tokens out of date; forget, a rematch's use and old tables drop them too", () => {
  const storage = memoryStorage();
  const store = new SeatStore(storage);
  store.keep({ tableId: "t1", seat: 0, token: "secret-1", name: "Ann" });
  store.keep({ tableId: "t2", seat: 2, token: "secret-2", name: "Ann" });
  store.keep({ tableId: "t3", seat: 1, token: "secret-3", name: "Ann" });
  const past = Date.now() - FINISHED_TOKEN_MS - 1;
  store.finished("t1", 0, past);
  store.finished("t2", 2);
  store.finished("t3", 1);
  store.seats();
  assert.ok(!stored(storage).includes("secret-1"), "out of date: gone at the next look");
  assert.ok(stored(storage).includes("secret-2") && stored(storage).includes("secret-3"));
  store.dropFinishedToken("t2"); // the rematch seated us: its use is over
  assert.equal(store.finishedToken("t2"), undefined);
  store.forget("t3");
  assert.equal(store.finishedToken("t3"), undefined);
  assert.ok(!stored(storage).includes("secret-"), "no finished seat's token is left");
  // A table that leaves the ended ones (the newest 50 are kept) takes its entry along.
  store.keep({ tableId: "old", seat: 0, token: "secret-old", name: "Ann" });
  store.finished("old", 0);
  for (let i = 0; i < 50; i++) store.finished(`n${i}`, 0);
  assert.equal(store.endedSeat("old"), undefined);
  assert.equal(store.finishedToken("old"), undefined);
  assert.ok(!stored(storage).includes("secret-old"));
});

test("a player's seat keeps no token after the end: the player's credential names it", () => {
  const storage = memoryStorage();
  const store = new SeatStore(storage);
  store.keep({ tableId: "t1", seat: 1, token: "secret-1", name: "Ann", player: "p-1" });
  store.finished("t1", 1);
  assert.equal(store.finishedToken("t1"), undefined);
  assert.ok(!stored(storage).includes("secret-1"));
  assert.equal(store.endedSeat("t1"), 1);
});

test("storage that holds no valid JSON reads as nothing kept", () => {
  const storage = memoryStorage();
  storage.setItem("thousand.finished-tokens.v1", "{not json");
  const store = new SeatStore(storage);
  assert.equal(store.finishedToken("t1"), undefined);
  assert.deepEqual(store.seats(), {});
});
