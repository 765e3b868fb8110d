// A spectator's page, and a seat's page reloaded mid-deal: the same seat comes back and reads on right after
// the last event it had, each event shown once.
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import type { Browser } from "playwright-core";
import { GameKind, SeatKind, TableStatus } from "../../src/gen/thousand/v1/table_service_pb";
import { TableSession } from "../../src/session";
import { nodes, play, rng, thousandTable } from "../logic/harness";
import { randomToken, tableClient } from "../../src/api";
import { BASE_URL, clickIf, joinFromLobby, launch, open, pageErrors, screenshot, state } from "./browser";

let browser: Browser;
before(async () => {
  browser = await launch();
});
after(async () => {
  await browser?.close();
});

test("a spectator watches a table: public information only, deals verified", { timeout: 120000 }, async () => {
  const c = tableClient(BASE_URL);
  const seated = await thousandTable(c, undefined); // fair deals: the spectator checks them too
  const { page } = await open(browser);
  await page.goto(`${BASE_URL}/#/table/${seated.tableId}`);
  await page.locator(".board.thousand").waitFor({ timeout: 15000 });
  assert.match(await page.locator(".table-header .who").innerText(), /spectator/);
  // Someone else plays seat 1 (from Node, over the same transport), a little slower than a bot.
  const player = new TableSession(nodes(), seated.tableId, { seat: seated.seat, token: seated.token, watchdogMs: 0 });
  await player.start();
  const random = rng(9);
  let stop = false;
  const playing = play(player, random, () => stop || player.status.state === "ended", 110000, 30);
  await page.locator('[data-testid="deal-check"]').first().waitFor({ timeout: 90000 });
  assert.match(await page.locator('[data-testid="deal-check"]').first().innerText(), /verified/);
  await screenshot(page, "spectator");
  assert.equal(await page.locator(".hand button.card").count(), 0, "a spectator sees no hand");
  assert.equal(await page.locator(".actions button").count(), 0, "a spectator has no actions");
  assert.equal((await state(page)).seat, undefined);
  stop = true;
  await playing;
  player.stop();
  assert.deepEqual(pageErrors(page), []);
  await page.close();
});

test("a finished game: its record from the lobby, and a step-through replay", { timeout: 120000 }, async () => {
  const c = tableClient(BASE_URL);
  const { table } = await c.createTable({
    game: GameKind.THOUSAND,
    seed: 9n,
    seats: ["greedy", "greedy", "random"].map((strategy) => ({ kind: SeatKind.BOT, strategy })),
    requestId: randomToken(12),
  });
  const tableId = table!.tableId;
  for (let i = 0; i < 200 && (await c.getTable({ tableId })).table?.status !== TableStatus.FINISHED; i++) await new Promise((r) => setTimeout(r, 100));
  const { page } = await open(browser);
  await page.goto(`${BASE_URL}/#/`);
  await page.locator(`[data-key="replay-${tableId}"]`).waitFor({ timeout: 15000 });
  await page.locator("details", { hasText: "Rules (" }).locator("summary").click();
  await screenshot(page, "lobby");
  await page.locator(`[data-key="replay-${tableId}"]`).click();
  await page.locator('[data-testid="replay-position"]').waitFor({ timeout: 15000 });
  const total = Number((await page.locator('[data-testid="replay-position"]').innerText()).match(/of (\d+)/)![1]);
  assert.ok(total > 100);
  await page.locator('[data-key="r-start"]').click();
  await page.locator('[data-testid="replay-next-deal"]').click();
  await page.locator('[data-testid="replay-next-deal"]').click();
  for (let i = 0; i < 12; i++) await page.locator('[data-testid="replay-next"]').click();
  const position = await page.locator('[data-testid="replay-position"]').innerText();
  assert.match(position, /^event \d+ of /);
  assert.ok(await page.locator(".board.thousand").isVisible());
  assert.match(await page.locator('[data-testid="replay-line"]').innerText(), /\S/);
  assert.equal(await page.locator(".all-hands li").count(), 3);
  await screenshot(page, "replay");
  await page.locator('[data-testid="replay-prev"]').click();
  assert.notEqual(await page.locator('[data-testid="replay-position"]').innerText(), position);
  assert.deepEqual(pageErrors(page), []);
  await page.close();
});

test("a reload mid-deal comes back to the same seat and resumes after the last event seen", { timeout: 120000 }, async () => {
  const c = tableClient(BASE_URL);
  const { table } = await c.createTable({
    game: GameKind.THOUSAND,
    seed: 4n,
    practice: true,
    firstDealer: 0,
    seats: [{ kind: SeatKind.OPEN }, { kind: SeatKind.BOT, strategy: "greedy" }, { kind: SeatKind.BOT, strategy: "greedy" }],
    requestId: randomToken(12),
  });
  const { page } = await open(browser);
  await joinFromLobby(page, table!.tableId, "Dan");
  await page.locator(".board.thousand").waitFor({ timeout: 15000 });
  // Play until a few cards are on the table (mid-deal), then reload.
  let actions = 0;
  while (actions < 4) {
    if (await clickIf(page, '[data-testid="next-deal"]')) continue;
    if ((await clickIf(page, ".hand button.card.playable")) || (await clickIf(page, '[data-action^="passBid"]')) || (await clickIf(page, '[data-action="pick-0"]')) || (await clickIf(page, '[data-action="contract"]'))) actions += 1;
    else await page.waitForTimeout(40);
  }
  await page.waitForFunction(() => !(window as any).thousandSession.pending); // eslint-disable-line
  const before = await state(page);
  assert.ok(before.lastSeen);
  const seenBefore = BigInt(before.lastSeen);
  const logBefore = await page.locator(".log li").count();
  await page.reload();
  await page.locator(".board.thousand").waitFor({ timeout: 15000 });
  await page.waitForFunction(() => (window as any).thousandSession?.status.state === "live"); // eslint-disable-line
  const afterReload = await state(page);
  assert.equal(afterReload.seat, before.seat, "the same seat");
  assert.match(await page.locator(".table-header .who").innerText(), /You play Dan \(you\)/);
  // Resumed: the first event applied after the reload is the one right after the last seen before it.
  if (afterReload.applied.length) assert.equal(BigInt(afterReload.applied[0]!), seenBefore + 1n);
  afterReload.applied.forEach((s, i) => assert.equal(BigInt(s), seenBefore + 1n + BigInt(i)));
  // The log: what was shown before is still there, and no event's line appears twice.
  const seqs = await page.locator(".log li").evaluateAll((els) => els.map((e) => (e as HTMLElement).dataset["seq"] ?? ""));
  assert.ok(seqs.length >= Math.min(logBefore, 60));
  const lines = await page.locator(".log li").allInnerTexts();
  const keyed = lines.map((l, i) => `${seqs[i]}|${l}`);
  assert.equal(new Set(keyed).size, keyed.length, "a line appears twice");
  await screenshot(page, "reloaded");
  // And the seat still plays.
  const deadline = Date.now() + 30000;
  let acted = false;
  while (!acted && Date.now() < deadline) {
    if (await clickIf(page, '[data-testid="next-deal"]')) continue;
    acted = (await clickIf(page, ".hand button.card.playable")) || (await clickIf(page, '[data-action^="passBid"]')) || (await clickIf(page, '[data-action="pick-0"]')) || (await clickIf(page, '[data-action="contract"]'));
    if (!acted) await page.waitForTimeout(40);
  }
  assert.ok(acted, "the reloaded page could act");
  assert.deepEqual(pageErrors(page), []);
  await page.close();
});
