// A person's whole seeded game of Thousand against two server bots, played in Chromium by clicking the
// page's actions (the lobby's create form, then cards, passes, the exchange, the contract) through to the
// final standings; screenshots of the table mid-game, on a phone, and at the end.
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import type { Browser } from "playwright-core";
import { BASE_URL, clickIf, launch, open, pageErrors, screenshot, setName, state } from "./browser";

let browser: Browser;
before(async () => {
  browser = await launch();
});
after(async () => {
  await browser?.close();
});

test("a whole seeded game against two greedy bots, clicked through to the final standings", { timeout: 420000 }, async () => {
  const { page } = await open(browser);
  await setName(page, "Ann");
  await page.locator("details", { hasText: "Turn clock and seed" }).locator("summary").click();
  await page.fill('[data-testid="seed"]', "5");
  await page.click('[data-testid="create"]');
  await page.waitForURL(/#\/table\//);
  await page.locator(".board.thousand").waitFor({ timeout: 15000 });
  assert.match(await page.locator(".table-header .who").innerText(), /You play Ann \(you\)/);

  const counts: Record<string, number> = {};
  const count = (what: string): void => void (counts[what] = (counts[what] ?? 0) + 1);
  let shotMid = false;
  let summaries = 0;
  const deadline = Date.now() + 400000;
  while (!(await page.locator('[data-testid="standings"]').isVisible())) {
    assert.ok(Date.now() < deadline, `no end in time: ${JSON.stringify(counts)}`);
    if (await clickIf(page, '[data-testid="next-deal"]')) {
      summaries += 1;
      if (summaries === 2) {
        assert.match(await page.locator(".sheet").innerText(), /Score sheet/);
      }
      count("summary");
      continue;
    }
    if (!shotMid && (await page.locator(".trick .played").count()) >= 2) {
      await screenshot(page, "thousand-table");
      shotMid = true;
    }
    if (await clickIf(page, '[data-action="pick-0"]')) count("give");
    else if (await clickIf(page, ".hand button.card.playable")) count("card");
    else if (await clickIf(page, '[data-action^="passBid"]')) count("pass");
    else if (await clickIf(page, '[data-action="contract"]')) count("contract");
    else if (await clickIf(page, ".actions button.action")) count("other");
    else await page.waitForTimeout(40);
  }
  await screenshot(page, "thousand-final");
  const standings = await page.locator('[data-testid="standings"]').innerText();
  assert.match(standings, /final standings/i);
  assert.match(standings, /1\. /);
  const s = await state(page);
  assert.ok(s.gameOver);
  assert.ok((counts["card"] ?? 0) > 20, JSON.stringify(counts));
  assert.ok(summaries >= 3, `${summaries} deal summaries`);
  // Every deal's commitment was checked, and none failed.
  const sheet = await page.locator(".sheet").innerText();
  assert.ok(!sheet.includes("✗"), "a deal failed its check");
  assert.ok(sheet.includes("✓"), "deals are marked verified");
  assert.deepEqual(pageErrors(page), []);
  await page.close();
});

test("the table on a phone-sized screen: nothing wider than the screen", { timeout: 120000 }, async () => {
  const { page } = await open(browser, true);
  await setName(page, "Phone");
  await page.click('[data-testid="create"]');
  await page.waitForURL(/#\/table\//);
  await page.locator(".board.thousand").waitFor({ timeout: 15000 });
  await page.locator(".hand button.card").first().waitFor();
  const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
  assert.ok(overflow <= 1, `the page is ${overflow}px wider than the screen`);
  await screenshot(page, "thousand-phone");
  assert.deepEqual(pageErrors(page), []);
  await page.close();
  void BASE_URL;
});
