// The players' languages in Chromium, 1000 Blagogo and the language menu (issue #29; Thousand: languages.test.ts): a browser whose locale is Russian or Polish (set on the
// context, so navigator.languages says it) gets the page in that language with no choice made; a whole seeded
// Thousand game is clicked through to the final standings and a 1000 Blagogo round to its summary, both on a
// phone (390x844, where long words would overflow first), with no English word met on the way (the text on
// screen, every aria-label and title, the tab's title) and every choice on the screen. Screenshots per language
// go to ARTIFACTS (languages-<lang>-*.png). The language menu then switches the page and is remembered.
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { create } from "@bufbuild/protobuf";
import type { Browser } from "playwright-core";
import { GameKind, RulesSchema, SeatKind } from "../../src/gen/thousand/v1/table_service_pb";
import { randomToken, tableClient } from "../../src/api";
import { BASE_URL, assertOnScreen, clickIf, joinFromLobby, launch, pageErrors, screenshot, settled } from "./browser";
import { LANGS, NAMES, assertNoEnglish, phone } from "./languages";

let browser: Browser;
before(async () => {
  browser = await launch();
});
after(async () => {
  await browser?.close();
});

for (const { locale, lang } of LANGS)
  test(`1000 Blagogo in ${lang}: a round on a phone to its summary, no English word`, { timeout: 300000 }, async () => {
    const c = tableClient(BASE_URL);
    const { table } = await c.createTable({
      game: GameKind.BLAGOGO,
      seed: 3n,
      practice: true,
      firstDealer: 1,
      rules: create(RulesSchema, { game: { case: "blagogo", value: { players: 2, openingMinPoints: 0, turnoverLimit: 1 } } }),
      seats: [{ kind: SeatKind.OPEN }, { kind: SeatKind.BOT, strategy: "random" }],
      requestId: randomToken(12),
    });
    const page = await phone(browser, locale);
    await joinFromLobby(page, table!.tableId, "Bea");
    await page.locator(".board.blagogo").waitFor({ timeout: 15000 });
    let turns = 0;
    let shot = false;
    const deadline = Date.now() + 280000;
    while ((await page.locator('[data-testid="round-summary"]').count()) === 0) {
      assert.ok(Date.now() < deadline, `no round's end in time (${turns} turns)`);
      // A turn as a person plays it: draw (the first player of a round starts without), lay a proposed meld
      // when one is offered, discard the first card.
      const drew = await clickIf(page, '[data-action="draw"]');
      const mine = (await page.locator(".hand button.card.playable").count()) > 0;
      if (!mine) {
        if (!drew) await page.waitForTimeout(40);
        continue;
      }
      turns += 1;
      if (await clickIf(page, '[data-action="propose-0"]')) {
        await page.waitForFunction(() => !(window as any).thousandSession.pending); // eslint-disable-line
        await settled(page);
      }
      const first = page.locator(".hand button.card.playable").first();
      if ((await first.count()) > 0) {
        await first.click().catch(() => undefined);
        await settled(page);
        await clickIf(page, '[data-action="discard"]');
        await page.waitForFunction(() => !(window as any).thousandSession.pending); // eslint-disable-line
      }
      if (!shot && (await page.locator(".meld").count()) > 0) {
        await screenshot(page, `languages-${lang}-blagogo-play`);
        await assertNoEnglish(page, `turn ${turns}`, NAMES);
        await assertOnScreen(page, `${lang} Blagogo turn ${turns}`);
        shot = true;
      }
      if (turns % 5 === 0) await assertNoEnglish(page, `turn ${turns}`, NAMES);
    }
    console.log(`# ${lang}: the round ended after ${turns} turns`);
    await screenshot(page, `languages-${lang}-blagogo-summary`);
    await assertNoEnglish(page, "the round's summary", NAMES);
    assert.deepEqual(pageErrors(page), []);
    await page.context().close();
  });

test("the language menu switches the page, and the choice is remembered over the browser's", { timeout: 60000 }, async () => {
  const page = await phone(browser, "ru-RU");
  await page.goto(`${BASE_URL}/#/`);
  await page.locator('[data-testid="create"]').waitFor();
  assert.equal(await page.locator("h1").innerText(), "Тысяча");
  await page.selectOption('[data-testid="language"]', "uk");
  await page.waitForFunction(() => document.documentElement.lang === "uk");
  assert.equal(await page.locator("h1").innerText(), "Тисяча");
  await page.reload();
  await page.waitForFunction(() => document.documentElement.lang === "uk");
  assert.equal(await page.locator('[data-testid="create"]').innerText(), "Створити стіл");
  await page.selectOption('[data-testid="language"]', "be");
  await page.waitForFunction(() => document.documentElement.lang === "be");
  await assertNoEnglish(page, "the Belarusian lobby", NAMES);
  await screenshot(page, "languages-be-lobby");
  assert.deepEqual(pageErrors(page), []);
  await page.context().close();
});
