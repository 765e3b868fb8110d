// The node that served the page, and owns its table, is killed (SIGKILL, by its PID) mid-deal: the page can
// neither reach its own origin nor the table's owner. It knows the cluster's other node from its node's
// /cluster.json (no table of b's is listed for it to learn b from), goes on to it, waits out TABLE_MOVING
// while b takes the table over, resumes the stream after the last event it had and plays on: nothing lost,
// nothing shown twice, no error shown, and its calls go to the live node from then on, the lobby's too.
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import type { Browser } from "playwright-core";
import { BASE_URL, joinFromLobby, launch, open, pageErrors, playThousand, screenshot } from "../browser/browser";
import { HOME_PID, OWNER_URL, assertEveryEventOnce, followed, ownerOf, recordStatuses, statuses, tableOn } from "./cluster";

const NODE_B = OWNER_URL; // the node that lives on: it owns nothing yet

let browser: Browser;
before(async () => {
  browser = await launch();
});
after(async () => {
  await browser?.close();
});

test("the node that served the page is killed mid-deal and the page plays on through the other node", { timeout: 300000 }, async () => {
  assert.ok(HOME_PID > 0, "THOUSAND_HOME_PID names node a's process");
  const tableId = await tableOn(BASE_URL, 11n);
  const { page } = await open(browser);
  const toA: { at: number; url: string }[] = [];
  page.on("request", (r) => r.url().startsWith(BASE_URL) && toA.push({ at: Date.now(), url: r.url() }));
  await joinFromLobby(page, tableId, "Noor");
  await page.locator(".board.thousand").waitFor({ timeout: 15000 });
  await page
    .waitForFunction((b) => (window as any).thousandSession.route.nodes.known.includes(b), NODE_B, { timeout: 10000 }) // eslint-disable-line
    .catch(async () => {
      const known = await page.evaluate(() => (window as any).thousandSession.route.nodes.known); // eslint-disable-line
      assert.fail(`the page did not learn node b (${NODE_B}) from ${BASE_URL}/cluster.json: it knows ${JSON.stringify(known)}`);
    });
  await recordStatuses(page);
  const first = await playThousand(page, 120000, (c) => (c["card"] ?? 0) >= 4); // mid-deal
  assert.equal(first["summary"] ?? 0, 0, JSON.stringify(first));
  assert.equal((await followed(page)).origin, BASE_URL, "the table is played on node a, the page's own");

  process.kill(HOME_PID, "SIGKILL");
  const killedAt = Date.now();
  const killedAtEvent = Number((await followed(page)).lastSeen);
  const lateToA: typeof toA = [];
  const describe = async (): Promise<string> => {
    const { applied, ...figures } = await followed(page);
    const header = await page.locator(".table-header").innerText();
    const went = (await statuses(page)).statuses.join(", ");
    return `${JSON.stringify(figures)}, ${applied.length} events applied; page ${BASE_URL} (killed), node b ${NODE_B}; header ${JSON.stringify(header)}; ${went}`;
  };
  // The deal under way to its end, a whole deal, then into the next one, on node b.
  const afterKill = await playThousand(page, 200000, (c) => (c["summary"] ?? 0) >= 2 && (c["card"] ?? 0) >= 12).catch(async (error: Error) => {
    await screenshot(page, "cluster-home-killed");
    return assert.fail(`${error.message} since node a was killed: ${await describe()}`);
  });
  const playedFor = Date.now() - killedAt;
  await screenshot(page, "cluster-home-killed");
  const seen = await followed(page);
  lateToA.push(...toA.filter((r) => r.at > killedAt));
  const context = await describe();
  console.log(
    `killed at event ${killedAtEvent}, then ${JSON.stringify(afterKill)} in ${(playedFor / 1000).toFixed(1)} s, ` +
      `${lateToA.length} calls to the dead node: ${context}`,
  );
  assert.equal(seen.origin, NODE_B, `the table's calls go to node b now: ${context}`);
  assert.ok(seen.reconnects >= 1, `the stream was resumed: ${context}`);
  assert.ok(Number(seen.lastSeen) > killedAtEvent + 20, `${seen.lastSeen} after ${killedAtEvent}: ${context}`);
  assert.equal(seen.status, "live", context);
  assertEveryEventOnce(seen);
  assert.equal(seen.trackerMisses, 0, context);
  assert.equal(await ownerOf(NODE_B, tableId), new URL(NODE_B).host, "node b took the table over");
  // Once live on node b, the page leaves the dead node alone.
  const { liveAt } = await statuses(page);
  const onB = liveAt.find((l) => l.at > killedAt && l.origin === NODE_B)?.at;
  assert.ok(onB !== undefined, `the stream went live on node b: ${context}`);
  const stray = lateToA.filter((r) => r.at > onB);
  assert.deepEqual(stray, [], `calls to the dead node a after the page was live on b (${onB - killedAt} ms after the kill)`);
  assert.equal(await page.locator('[data-testid="refusal"]').count(), 0, "no refusal shown");
  // Back in the lobby, which node b answers now: the table is listed, with this browser's seat.
  await page.click('[data-key="back"]');
  await page
    .locator(`[data-key="back-${tableId}"]`)
    .waitFor({ timeout: 10000 })
    .catch(async () => assert.fail(`the lobby did not list the table: ${await page.locator("main, body").first().innerText()}`));
  assert.equal(await page.locator('[role="alert"]').count(), 0, "the lobby shows no error");
  await screenshot(page, "cluster-home-killed-lobby");
  assert.deepEqual(pageErrors(page), []);
  await page.close();
});
