// The lobby asks for the table list every few seconds (lobby.ts, 4 s). A reply that shows what the page
// shows already draws nothing: a redraw replaces every element, the one under the pointer and the one with
// the keyboard's focus too. A table that appears is drawn.
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import type { Browser, Page } from "playwright-core";
import { randomToken, tableClient } from "../../src/api";
import { GameKind, SeatKind } from "../../src/gen/thousand/v1/table_service_pb";
import { BASE_URL, launch, open, pageErrors } from "./browser";

let browser: Browser;
before(async () => {
  browser = await launch();
});
after(async () => {
  await browser?.close();
});

/** Start counting the page's draws: each render (dom.ts) empties the page's container (#app) and fills it
 * again; the count is read by drawsSince(). */
async function countDraws(page: Page): Promise<void> {
  await page.evaluate(() => {
    const w = window as unknown as { draws: number };
    w.draws = 0;
    new MutationObserver((records) => (w.draws += records.filter((r) => r.removedNodes.length > 0).length)).observe(document.getElementById("app")!, {
      childList: true,
    });
  });
}

async function draws(page: Page): Promise<number> {
  return page.evaluate(() => (window as unknown as { draws: number }).draws);
}

/** Wait until the page has had `n` more answers to its ListTables calls (and a moment to draw them). */
async function answers(page: Page, n: number, listed: () => number): Promise<void> {
  const until = listed() + n;
  const deadline = Date.now() + 20000;
  while (listed() < until) {
    assert.ok(Date.now() < deadline, `the lobby asked for the table list ${listed()} times, not ${until}`);
    await page.waitForTimeout(100);
  }
  await page.waitForTimeout(300);
}

/** What the lobby shows, as the page's text. */
async function shown(page: Page): Promise<string> {
  return page.evaluate(() => document.getElementById("app")!.innerText);
}

/** Two more refreshes, counting the draws; other tests' tables share this server (a clocked table left by an
 * earlier test may still time out and change what the lobby shows), so a window in which what is shown
 * changed is tried again. Returns the draws of a window in which nothing shown changed. */
async function quietDraws(page: Page, listed: () => number): Promise<number> {
  for (let attempt = 0; attempt < 5; attempt++) {
    const before = await shown(page);
    const start = await draws(page);
    await answers(page, 2, listed);
    if ((await shown(page)) === before) return (await draws(page)) - start;
  }
  throw new Error("what the lobby shows changed in each of five windows of two refreshes");
}

test("the lobby's refreshes draw nothing when nothing changed, and a table that appears is drawn", { timeout: 180000 }, async () => {
  const { context, page } = await open(browser);
  let listed = 0;
  page.on("response", (r) => {
    if (r.url().endsWith("/ListTables")) listed += 1;
  });
  await page.goto(`${BASE_URL}/#/`);
  await page.locator("table.table-list tbody tr").first().waitFor({ timeout: 15000 });
  await answers(page, 1, () => listed); // the first reply drawn
  await countDraws(page);

  assert.equal(await quietDraws(page, () => listed), 0, "two refreshes with nothing changed drew the lobby again");

  const before = await draws(page);
  const { table } = await tableClient(BASE_URL).createTable({
    game: GameKind.THOUSAND,
    seats: [{ kind: SeatKind.OPEN }, { kind: SeatKind.OPEN }, { kind: SeatKind.BOT, strategy: "greedy" }],
    requestId: randomToken(12),
  });
  const id = table!.tableId;
  await page.locator(`tr[data-table="${id}"]`).waitFor({ timeout: 15000 });
  assert.ok((await draws(page)) > before, "the new table was drawn");

  assert.equal(await quietDraws(page, () => listed), 0, "the refreshes after it drew nothing more");
  assert.deepEqual(pageErrors(page), []);
  await context.close();
});
