// The node that owns a table is killed (SIGKILL, by its PID) while a page plays it: the page's stream and its
// action in flight fail, it goes on to the node it knows (the one it came from), waits out TABLE_MOVING
// while that node takes the table over, and carries on from the last event it had: nothing lost, nothing
// shown twice, the game played on to the next deals.
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import type { Browser } from "playwright-core";
import { BASE_URL, joinFromLobby, launch, open, pageErrors, playThousand, screenshot } from "../browser/browser";
import { OWNER_PID, OWNER_URL, assertEveryEventOnce, followed, ownerOf, recordStatuses, statuses, tableOnTheOwner } from "./cluster";

let browser: Browser;
before(async () => {
  browser = await launch();
});
after(async () => {
  await browser?.close();
});

test("the owning node is killed mid-deal and the page carries on with the node that takes the table over", { timeout: 300000 }, async () => {
  const tableId = await tableOnTheOwner(7n);
  const { page } = await open(browser);
  await joinFromLobby(page, tableId, "Kai");
  await page.locator(".board.thousand").waitFor({ timeout: 15000 });
  await recordStatuses(page);
  const first = await playThousand(page, 120000, (c) => (c["card"] ?? 0) >= 4); // mid-deal
  assert.equal(first["summary"] ?? 0, 0, JSON.stringify(first));
  assert.equal((await followed(page)).origin, OWNER_URL);
  process.kill(OWNER_PID, "SIGKILL");
  const killedAt = Number((await followed(page)).lastSeen);

  // The deal under way, then a whole one, on the node that took the table over.
  const afterKill = await playThousand(page, 200000, (c) => (c["summary"] ?? 0) >= 2 && (c["card"] ?? 0) >= 8);
  await screenshot(page, "cluster-takeover");
  const seen = await followed(page);
  const { applied, ...figures } = seen;
  const context = `${JSON.stringify(figures)}; page ${BASE_URL}, owner ${OWNER_URL}; ${(await statuses(page)).statuses.join(", ")}`;
  console.log(`killed at event ${killedAt}, then ${JSON.stringify(afterKill)}, ${applied.length} events applied: ${context}`);
  assert.equal(seen.origin, BASE_URL, `the table's calls go to node a now: ${context}`);
  assert.ok(seen.reconnects >= 1, `the stream was resumed: ${context}`);
  assert.ok(Number(seen.lastSeen) > killedAt + 20, `${seen.lastSeen} after ${killedAt}`);
  assert.equal(seen.status, "live");
  assertEveryEventOnce(seen);
  assert.equal(seen.trackerMisses, 0);
  assert.equal(await ownerOf(BASE_URL, tableId), new URL(BASE_URL).host);
  assert.ok((afterKill["card"] ?? 0) >= 8, JSON.stringify(afterKill));
  assert.deepEqual(pageErrors(page), []);
  await page.close();
});
