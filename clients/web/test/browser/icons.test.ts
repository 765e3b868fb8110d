// The symbols the page shows are drawn, in Chromium: the fair deals' "details" mark and the turn clock's
// stopwatch are the page's own icons (inline SVG: Debian's Chromium has no glyph for ⓘ or ⏱ and drew a box),
// with their words for assistive technology; and every other character of the page's text has a glyph in the
// browser's fonts (none is drawn as the font's "missing glyph" box).
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import type { Browser, Page } from "playwright-core";
import { GameKind, SeatKind } from "../../src/gen/thousand/v1/table_service_pb";
import { randomToken, tableClient } from "../../src/api";
import { BASE_URL, joinFromLobby, launch, open, pageErrors, screenshot } from "./browser";

let browser: Browser;
before(async () => {
  browser = await launch();
});
after(async () => {
  await browser?.close();
});

/** The characters no font of this system may have: the page draws them itself. */
const DRAWN = ["\u24d8", "\u23f1"];

/** Every character beyond ASCII in the page's visible text that Chromium draws as the missing-glyph box: each
 * is drawn on a canvas in the font of an element that shows it and compared, pixel for pixel, with code
 * points no font has (U+0378, U+0379: unassigned), which are drawn as that box. */
async function missingGlyphs(page: Page): Promise<{ missing: string[]; checked: number }> {
  return page.evaluate(() => {
    const canvas = document.createElement("canvas");
    canvas.width = 64;
    canvas.height = 64;
    const g = canvas.getContext("2d", { willReadFrequently: true })!;
    const draw = (text: string, font: string): string => {
      g.clearRect(0, 0, 64, 64);
      g.font = font;
      g.fillStyle = "#000";
      g.textBaseline = "middle";
      g.fillText(text, 8, 32);
      return Array.from(g.getImageData(0, 0, 64, 64).data.filter((_, i) => i % 4 === 3)).join(",");
    };
    // Each character beyond ASCII, with the font of a text node that shows it.
    const fonts = new Map<string, string>();
    const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
    for (let node = walker.nextNode(); node; node = walker.nextNode()) {
      const parent = node.parentElement;
      if (!parent || parent.getClientRects().length === 0) continue; // not shown
      const style = getComputedStyle(parent);
      if (style.visibility === "hidden") continue;
      for (const ch of node.textContent ?? "") if (ch.codePointAt(0)! > 0x7e && !/\s/.test(ch) && !fonts.has(ch)) fonts.set(ch, `${style.fontWeight} 32px ${style.fontFamily}`);
    }
    const missing: string[] = [];
    for (const [ch, font] of fonts) {
      const box = draw("\u0378", font);
      if (box !== draw("\u0379", font) || box === draw("A", font)) throw new Error(`no missing-glyph box to compare with in ${font}`);
      if (draw(ch, font) === box) missing.push(`${ch} U+${ch.codePointAt(0)!.toString(16).toUpperCase().padStart(4, "0")} in ${font}`);
    }
    return { missing, checked: fonts.size };
  });
}

test("the fair deals' mark and the turn clock are drawn icons with their words; every character of the page has a glyph", { timeout: 120000 }, async () => {
  const c = tableClient(BASE_URL);
  const { table } = await c.createTable({
    game: GameKind.THOUSAND, // fair deals (no seed): the header's "Fair deals ✓" with its details
    timeControl: { perMove: { seconds: 120n } },
    seats: [{ kind: SeatKind.OPEN }, ...["greedy", "greedy"].map((strategy) => ({ kind: SeatKind.BOT, strategy }))],
    requestId: randomToken(12),
  });
  const { page } = await open(browser);
  await joinFromLobby(page, table!.tableId, "Ivy");
  // The seat's own turn comes in the first auction: its clock runs.
  await page.locator(".seat .clock").first().waitFor({ timeout: 30000 });
  await screenshot(page, "icons-table");

  const fair = page.locator(".table-header .fair summary");
  assert.equal(await fair.getAttribute("aria-label"), "Fair deals: how each deal is checked");
  assert.equal(await fair.getAttribute("title"), "Fair deals: how each deal is checked");
  const info = await fair.locator("svg.icon-info").boundingBox();
  assert.ok(info && info.width > 4 && info.height > 4, `the info icon is drawn: ${JSON.stringify(info)}`);
  assert.equal(await fair.locator("svg.icon-info").getAttribute("aria-hidden"), "true");
  assert.match(await fair.innerText(), /^Fair deals ✓\s*$/);

  const clock = page.locator(".seat .clock").first();
  assert.equal(await clock.getAttribute("role"), "timer");
  assert.equal(await clock.getAttribute("aria-label"), "time left");
  const watch = await clock.locator("svg.icon-stopwatch").boundingBox();
  assert.ok(watch && watch.width > 4 && watch.height > 4, `the stopwatch is drawn: ${JSON.stringify(watch)}`);
  assert.match(await clock.innerText(), /^\s*\d+:\d\d\s*$/);
  // The clock counts down without losing its icon (the ticker rewrites only the time).
  const first = await clock.locator(".clock-time").innerText();
  await page.waitForFunction((was) => document.querySelector(".seat .clock .clock-time")?.textContent !== was, first, { timeout: 5000 });
  assert.equal(await page.locator(".seat .clock svg.icon-stopwatch").count(), 1);

  const text = await page.evaluate(() => document.body.innerText + document.title);
  for (const ch of DRAWN) assert.ok(!text.includes(ch), `U+${ch.codePointAt(0)!.toString(16)} is still in the page's text`);
  const glyphs = await missingGlyphs(page);
  console.log(`# ${glyphs.checked} characters beyond ASCII on the table's page, each with a glyph`);
  assert.ok(glyphs.checked >= 3, `the page shows symbols (suits, ✓): ${glyphs.checked}`);
  assert.deepEqual(glyphs.missing, [], "characters drawn as the missing-glyph box");
  assert.deepEqual(pageErrors(page), []);
  await page.context().close();
});
