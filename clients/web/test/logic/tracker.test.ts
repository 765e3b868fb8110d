// View tracking against a real server: whole games played through TableSession over connect-web, with the
// view tracked from the events compared with the server's own at every Turn of the seat (the Turn's view),
// and a spectator's, followed from the first event, compared with a fresh spectator snapshot at the end.
import assert from "node:assert/strict";
import { test } from "node:test";
import { create } from "@bufbuild/protobuf";
import { ThousandViewSchema } from "../../src/gen/thousand/v1/thousand_views_pb";
import { TableSession, differences } from "../../src/session";
import { EventStream } from "../../src/stream";
import type { Snapshot } from "../../src/gen/thousand/v1/table_service_pb";
import { blagogoTable, client, nodes, play, rng, thousandTable, until } from "./harness";
import { Route } from "../../src/route";
import { GameKind, RulesSchema, SeatKind } from "../../src/gen/thousand/v1/table_service_pb";
import { SeatStore, memoryStorage } from "../../src/seats";
import { takeSeat } from "../../src/join";

async function spectatorSnapshot(tableId: string): Promise<Snapshot> {
  return new Promise((resolve, reject) => {
    const stream = new EventStream(new Route(nodes()), tableId, {
      snapshot: (_s, snapshot) => {
        stream.stop();
        resolve(snapshot);
      },
      event: () => undefined,
      turn: () => undefined,
      status: (s) => s.state === "failed" && reject(new Error(JSON.stringify(s))),
    }, { watchdogMs: 0 });
    stream.start();
  });
}

test("differences() names the fields in which two views differ, but toAct and legalActions", () => {
  const a = create(ThousandViewSchema, { cardCounts: [7, 7, 7], toAct: 1 });
  const b = create(ThousandViewSchema, { cardCounts: [7, 6, 7], toAct: 2, dealNumber: 3 });
  assert.deepEqual(differences(a, b).sort(), ["cardCounts", "dealNumber"]);
  assert.deepEqual(differences(a, create(ThousandViewSchema, { cardCounts: [7, 7, 7] })), []);
});

for (const seed of [11n, 12n]) {
  test(`Thousand seed ${seed}: the tracked view equals the server's at every own Turn, to the end`, async () => {
    const c = client();
    const seated = await thousandTable(c, seed);
    const player = new TableSession(nodes(), seated.tableId, { seat: seated.seat, token: seated.token, watchdogMs: 0 });
    const watcher = new TableSession(nodes(), seated.tableId, { watchdogMs: 0 });
    await Promise.all([player.start(), watcher.start()]);
    const actions = await play(player, rng(Number(seed)), () => player.status.state === "ended");
    await until(watcher, () => watcher.status.state === "ended");
    assert.ok(actions > 20, `only ${actions} actions`);
    assert.ok(player.trackerChecks >= actions, `${player.trackerChecks} checks for ${actions} actions`);
    assert.deepEqual(player.trackerMisses, []);
    const view = player.model?.view;
    assert.ok(view?.$typeName === "thousand.v1.ThousandView" && view.winner !== undefined, "the game has a winner");
    const final = await spectatorSnapshot(seated.tableId);
    const received = final.view?.game.value;
    assert.ok(received && watcher.model?.view);
    assert.deepEqual(differences(watcher.model.view, received), []);
    // The score sheet has a row per scored deal, and every deal dealt after the watcher came was verified.
    const model = watcher.model;
    assert.ok("verifier" in model);
    assert.ok(model.sheet.length > 0);
    assert.ok(model.verifier.checks.length >= model.sheet.length);
    assert.ok(model.verifier.checks.every((check) => check.ok), JSON.stringify(model.verifier.checks.filter((c) => !c.ok)));
    player.stop();
    watcher.stop();
  });
}

test("1000 Blagogo: the tracked view equals the server's at every own Turn, to the end", async () => {
  const c = client();
  const seated = await blagogoTable(c, 5n);
  const player = new TableSession(nodes(), seated.tableId, { seat: seated.seat, token: seated.token, watchdogMs: 0 });
  const watcher = new TableSession(nodes(), seated.tableId, { watchdogMs: 0 });
  await Promise.all([player.start(), watcher.start()]);
  const actions = await play(player, rng(5), () => player.status.state === "ended", 120000);
  await until(watcher, () => watcher.status.state === "ended");
  assert.ok(actions > 10);
  assert.ok(player.trackerChecks >= actions);
  assert.deepEqual(player.trackerMisses, []);
  const final = await spectatorSnapshot(seated.tableId);
  const received = final.view?.game.value;
  assert.ok(received && watcher.model?.view);
  assert.deepEqual(differences(watcher.model.view, received), []);
  player.stop();
  watcher.stop();
});

for (const game of ["thousand", "blagogo"] as const) {
  test(`a fair ${game} table (no seed): every deal verified with our own seed, and the table's secret at the end`, async () => {
    const c = client();
    const bots = game === "thousand" ? ["greedy", "greedy"] : ["random"];
    const rules = game === "blagogo" ? create(RulesSchema, { game: { case: "blagogo", value: { players: 2, target: 150, turnoverLimit: 1 } } }) : undefined;
    const { table } = await c.createTable({
      game: game === "thousand" ? GameKind.THOUSAND : GameKind.BLAGOGO,
      rules,
      seats: [{ kind: SeatKind.OPEN }, ...bots.map((strategy) => ({ kind: SeatKind.BOT, strategy }))],
    });
    assert.ok(table?.fairness?.commitment && !table.seeded, "a fair table publishes its commitment");
    const store = new SeatStore(memoryStorage());
    const seat = await takeSeat(nodes(), store, table.tableId);
    assert.ok(seat.clientSeed && seat.commitment === table.fairness.commitment);
    const player = new TableSession(nodes(), table.tableId, { ...seat, watchdogMs: 0 });
    await player.start();
    await play(player, rng(31), () => player.status.state === "ended", 120000);
    const model = player.model!;
    const checks = model.verifier.checks;
    assert.ok(checks.length >= 2, `${checks.length} checks`);
    assert.deepEqual(checks.filter((ch) => !ch.ok), []);
    assert.ok(checks.some((ch) => /yours included/.test(ch.text)), "our seed was checked");
    assert.ok(model.ending?.ok && /matches the commitment read before joining/.test(model.ending.text), model.ending?.text);
    player.stop();
  });
}
