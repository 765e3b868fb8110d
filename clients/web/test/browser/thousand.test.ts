// A person's whole seeded game of Thousand against two server bots, played in Chromium by clicking the
// page's actions (the lobby's create form, then cards, passes, the exchange, the contract) through to the
// final standings; screenshots of the table mid-game, on a phone, and at the end.
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import type { Browser } from "playwright-core";
import { BASE_URL, launch, open, pageErrors, playThousand, screenshot, setName, state } from "./browser";

let browser: Browser;
before(async () => {
  browser = await launch();
});
after(async () => {
  await browser?.close();
});

test("a whole seeded game against the form's default bots, clicked through to the final standings", { timeout: 420000 }, async () => {
  const { page } = await open(browser);
  await setName(page, "Ann");
  await page.locator("details", { hasText: "Turn clock and seed" }).locator("summary").click();
  await page.fill('[data-testid="seed"]', "5");
  // Without the barrel the first to 1000 wins (T-26, T-27): a shorter game.
  await page.locator("details", { hasText: "Rules (" }).locator("summary").click();
  await page.fill("#rule-barrelAt", "0");
  await page.click('[data-testid="create"]');
  await page.waitForURL(/#\/table\//);
  await page.locator(".board.thousand").waitFor({ timeout: 15000 });
  assert.match(await page.locator(".table-header .who").innerText(), /You play Ann \(you\)/);
  assert.match(await page.locator(".table-header .changed").innerText(), /The barrel at: off \(the first to 1000 wins\)/);
  const started = Date.now();

  let shotMid = false;
  const counts = await playThousand(page, 400000, undefined, async (seen) => {
    if (!shotMid && (seen["summary"] ?? 0) >= 1 && (await page.locator(".trick .played").count()) >= 2) {
      await screenshot(page, "thousand-table");
      shotMid = true;
    }
  });
  const summaries = counts["summary"] ?? 0;
  await screenshot(page, "thousand-final");
  console.log(`the game: ${JSON.stringify(counts)} in ${((Date.now() - started) / 1000).toFixed(1)} s`);
  const standings = await page.locator('[data-testid="standings"]').innerText();
  assert.match(standings, /final standings/i);
  const scores = [...standings.matchAll(/: (-?\d+)/g)].map((m) => Number(m[1]));
  assert.equal(scores.length, 3);
  assert.ok(scores[0]! >= 1000 && scores[0]! >= scores[1]! && scores[1]! >= scores[2]!, standings);
  const s = await state(page);
  assert.ok(s.gameOver);
  assert.ok((counts["card"] ?? 0) > 20, JSON.stringify(counts));
  assert.ok(summaries >= 3, `${summaries} deal summaries`);
  // Every deal's commitment was checked, and none failed.
  const sheet = await page.locator(".sheet").innerText();
  assert.ok(!sheet.includes("✗"), "a deal failed its check");
  assert.ok(sheet.includes("✓"), "deals are marked verified");
  // The last deal's summary opens again from the standings; a reload after the end shows the standings (not
  // the summary saved open) at Ann's own seat, its token forgotten.
  await page.locator('[data-testid="last-summary"]').click();
  await page.locator('[data-testid="deal-summary"]').waitFor({ timeout: 5000 });
  await page.reload();
  await page.locator('[data-testid="standings"]').waitFor({ timeout: 30000 });
  await page.waitForTimeout(300);
  assert.equal(await page.locator('[data-testid="deal-summary"]').count(), 0, "the reloaded page opened on the last deal's summary");
  assert.match(await page.locator(".table-header .who").innerText(), /You play Ann \(you\)/);
  assert.match(await page.locator('[data-testid="standings"]').innerText(), /Ann \(you\)/);
  await screenshot(page, "thousand-final-reloaded");
  assert.deepEqual(pageErrors(page), []);
  await page.close();
});

test("a click in the first moments of a new Turn is ignored (no stray click plays)", { timeout: 60000 }, async () => {
  const { page } = await open(browser);
  await setName(page, "Eve", 1500);
  await page.click('[data-testid="create"]');
  await page.waitForURL(/#\/table\//);
  // The opener's forced 100 leaves the next seat (ours, when the first dealer is the bot before us) to bid;
  // wait for any Turn of ours, then click at once, and again once the guard is over.
  await page.waitForFunction(() => (window as any).thousandSession?.isMyTurn()); // eslint-disable-line
  const before = await state(page);
  const early = page.locator(".actions button.action, .hand button.card").first();
  assert.equal(await early.isEnabled(), false, "the actions are not armed yet");
  await early.click({ force: true, timeout: 1000 }).catch(() => undefined);
  await page.waitForTimeout(200);
  assert.equal((await state(page)).lastSeen, before.lastSeen, "the early click did nothing");
  await page.waitForTimeout(1500);
  assert.ok(await page.locator(".actions button.action:enabled, .hand button.card.playable:enabled").first().isEnabled());
  assert.deepEqual(pageErrors(page), []);
  await page.close();
});

test("keyboard play: Tab to a highlighted card or an action, Enter plays it; the turn clock runs", { timeout: 120000 }, async () => {
  const { page } = await open(browser);
  await setName(page, "Kim");
  await page.locator("details", { hasText: "Turn clock and seed" }).locator("summary").click();
  await page.fill("#per-move", "90");
  await page.click('[data-testid="create"]');
  await page.waitForURL(/#\/table\//);
  await page.locator(".board.thousand").waitFor({ timeout: 15000 });
  let played = 0;
  const deadline = Date.now() + 100000;
  while (played < 4) {
    assert.ok(Date.now() < deadline, `only ${played} actions by keyboard`);
    if (await page.locator('[data-testid="next-deal"]').count()) {
      await page.locator('[data-testid="next-deal"]').focus();
      await page.keyboard.press("Enter");
      continue;
    }
    const mine = await page.evaluate(() => (window as any).thousandSession?.isMyTurn()); // eslint-disable-line
    if (!mine || !(await page.locator(".actions button.action:enabled, .hand button.card.playable:enabled").count())) {
      await page.waitForTimeout(30);
      continue;
    }
    // The clock: a drawn stopwatch (no font needed for ⏱) before the time left.
    assert.match(await page.locator(".seat.to-act .clock").innerText(), /^\s*\d+:\d\d/);
    assert.equal(await page.locator(".seat.to-act .clock svg.icon-stopwatch").count(), 1);
    const before = (await state(page)).lastSeen;
    const tabTo = async (matches: string): Promise<string> => {
      await page.locator("a.back").focus();
      for (let i = 0; i < 80; i++) {
        await page.keyboard.press("Tab");
        const key = await page.evaluate((sel) => {
          const el = document.activeElement as HTMLElement | null;
          return el?.matches(sel) ? (el.dataset["key"] ?? "") : "";
        }, matches);
        if (key) return key;
      }
      return "";
    };
    const target = await tabTo(".hand button.card.playable, .actions button.action");
    assert.ok(target, "Tab reached a choice");
    if (target.startsWith("card-")) {
      await page.keyboard.press("ArrowRight"); // moves along the hand's playable cards
      await page.keyboard.press("ArrowLeft");
    }
    await page.keyboard.press("Enter");
    const moved = (seen: string | undefined): Promise<unknown> =>
      page.waitForFunction((s) => (window as any).thousandSession.lastSeen?.toString() !== s || !!document.querySelector('[data-action="pick-0"]'), seen, { timeout: 10000 }); // eslint-disable-line
    await moved(before);
    if ((await state(page)).lastSeen === before) {
      // The exchange: the card is picked; now who gets it, by keyboard too.
      assert.ok(await tabTo('[data-action="pick-0"]'), "Tab reached the recipient");
      await page.keyboard.press("Enter");
      await page.waitForFunction((s) => (window as any).thousandSession.lastSeen?.toString() !== s, before, { timeout: 10000 }); // eslint-disable-line
    }
    played += 1;
  }
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
