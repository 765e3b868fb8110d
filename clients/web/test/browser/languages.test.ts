// The players' languages in Chromium (issue #29): a browser whose locale is Russian or Polish (set on the
// context, so navigator.languages says it) gets the page in that language with no choice made; a whole seeded
// Thousand game is clicked through to the final standings and a 1000 Blagogo round to its summary, both on a
// phone (390x844, where long words would overflow first), with no English word met on the way (the text on
// screen, every aria-label and title, the tab's title) and every choice on the screen. Screenshots per language
// go to ARTIFACTS (languages-<lang>-*.png). The language menu then switches the page and is remembered.
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import type { Browser } from "playwright-core";
import { shortThousandTable } from "../logic/harness";
import { assertOnScreen, joinFromLobby, launch, pageErrors, playThousand, screenshot, settled } from "./browser";
import { LANGS, NAMES, assertNoEnglish, phone } from "./languages";

let browser: Browser;
before(async () => {
  browser = await launch();
});
after(async () => {
  await browser?.close();
});

for (const { locale, lang } of LANGS)
  test(`Thousand in ${lang}: a whole seeded game on a phone, to the final standings, no English word`, { timeout: 480000 }, async () => {
    const tableId = await shortThousandTable();
    const page = await phone(browser, locale);
    await joinFromLobby(page, tableId, "Ann");
    await page.locator(".board.thousand").waitFor({ timeout: 15000 });
    assert.equal(await page.evaluate(() => document.documentElement.lang), lang);
    let looked = 0;
    let shotPlay = false;
    let shotSummary = false;
    const counts = await playThousand(page, 440000, undefined, async (seen) => {
      const clicks = Object.values(seen).reduce((a, b) => a + b, 0);
      if (!shotSummary && (await page.locator('[data-testid="deal-summary"]').count()) > 0) {
        await assertNoEnglish(page, "a deal's summary", NAMES);
        await screenshot(page, `languages-${lang}-thousand-summary`);
        shotSummary = true;
      }
      if (clicks < looked + 15) return;
      looked = clicks;
      await settled(page);
      await assertNoEnglish(page, `after ${clicks} clicks`, NAMES);
      if ((await page.locator('[data-testid="deal-summary"]').count()) === 0) await assertOnScreen(page, `${lang} after ${clicks} clicks`);
      if (!shotPlay && (await page.locator(".trick .played").count()) >= 2) {
        await screenshot(page, `languages-${lang}-thousand-play`);
        shotPlay = true;
      }
    });
    await screenshot(page, `languages-${lang}-thousand-final`);
    await assertNoEnglish(page, "the final standings", NAMES);
    await assertOnScreen(page, `${lang} at the final standings`);
    assert.ok((counts["card"] ?? 0) > 20 && (counts["summary"] ?? 0) >= 3, JSON.stringify(counts));
    assert.ok(shotPlay && shotSummary);
    const standings = await page.locator('[data-testid="standings"]').innerText();
    assert.equal([...standings.matchAll(/: (-?\d+)/g)].length, 3, standings);
    const sheet = await page.locator(".sheet").innerText();
    assert.ok(sheet.includes("✓") && !sheet.includes("✗"), "every deal verified");
    assert.deepEqual(pageErrors(page), []);
    await page.context().close();
  });
