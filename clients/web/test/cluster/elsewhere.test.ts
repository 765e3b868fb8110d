// A page served by node a plays a table node b owns: it joins from a's lobby (a lists every node's tables),
// its JoinTable refused by a with TABLE_ELSEWHERE is sent to b, and its stream and actions go to b's web
// port directly (b allows a's pages: CORS between the nodes of a cluster), deal after deal.
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import type { Browser } from "playwright-core";
import { failure, randomToken, tableClient } from "../../src/api";
import { BASE_URL, joinFromLobby, launch, open, pageErrors, playThousand, screenshot } from "../browser/browser";
import { OWNER_URL, assertEveryEventOnce, followed, tableOnTheOwner } from "./cluster";

let browser: Browser;
before(async () => {
  browser = await launch();
});
after(async () => {
  await browser?.close();
});

test("a page of node a plays two deals at a table node b owns", { timeout: 300000 }, async () => {
  const tableId = await tableOnTheOwner(5n);
  // Node a does not serve the table: it says where it is.
  const refused = await tableClient(BASE_URL)
    .joinTable({ tableId, seatToken: randomToken(32), playerName: "probe" })
    .then(() => undefined, failure);
  assert.equal(refused?.reason, "TABLE_ELSEWHERE");
  assert.equal(refused?.metadata["web_endpoint"], new URL(OWNER_URL).host);

  const { page } = await open(browser);
  await joinFromLobby(page, tableId, "Ann");
  await page.locator(".board.thousand").waitFor({ timeout: 15000 });
  assert.equal(new URL(page.url()).origin, BASE_URL, "the page stays on node a");
  const counts = await playThousand(page, 240000, (c) => (c["summary"] ?? 0) >= 2);
  await screenshot(page, "cluster-elsewhere");
  const seen = await followed(page);
  assert.equal(seen.origin, OWNER_URL, "the table's calls go to node b");
  assert.equal(seen.status, "live");
  assert.equal(seen.reconnects, 0);
  assertEveryEventOnce(seen);
  assert.equal(seen.trackerMisses, 0);
  assert.ok(seen.trackerChecks > 10 && (counts["card"] ?? 0) > 10, JSON.stringify(counts));
  assert.deepEqual(pageErrors(page), []);
  await page.close();
});
