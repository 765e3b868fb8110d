// The score sheet in the side panel, measured in Chromium: at a laptop's 1280x800 a table of up to five
// players fits whole (no column cut at the panel's edge, no sideways scrolling); from six players on the sheet
// scrolls sideways inside the panel, its first column (the rounds) stuck at the left while every other column
// can be brought into view, and a re-render keeps the place scrolled to (the sheet's sideways, the side
// column's downwards). On a phone every column can be brought into view the same way. Finished tables of
// bots, watched: every round is on the sheet. The last round's melds stay on the board: every card of every
// meld lies within the screen's width (a run of ten on a phone of eight players was cut at the right edge).
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { create } from "@bufbuild/protobuf";
import type { Browser, Page } from "playwright-core";
import { GameKind, RulesSchema, SeatKind, TableStatus } from "../../src/gen/thousand/v1/table_service_pb";
import { randomToken, tableClient } from "../../src/api";
import { BASE_URL, PHONE, launch, openSized, pageErrors, screenshot, settled } from "./browser";

let browser: Browser;
before(async () => {
  browser = await launch();
});
after(async () => {
  await browser?.close();
});

const DESKTOP = { width: 1280, height: 800 };

/** A finished table of bots: 1000 Blagogo of `players`, or Thousand. */
async function finishedTable(game: GameKind, players: number): Promise<string> {
  const c = tableClient(BASE_URL);
  const rules =
    game === GameKind.BLAGOGO
      ? create(RulesSchema, { game: { case: "blagogo", value: { players, turnoverLimit: 2 } } })
      : undefined;
  const { table } = await c.createTable({
    game,
    seed: BigInt(players),
    ...(rules ? { rules } : {}),
    seats: Array.from({ length: players }, () => ({ kind: SeatKind.BOT, strategy: game === GameKind.BLAGOGO ? "heuristic" : "greedy" })),
    requestId: randomToken(12),
  });
  const tableId = table!.tableId;
  for (let i = 0; i < 1200 && (await c.getTable({ tableId })).table?.status !== TableStatus.FINISHED; i++) await new Promise((r) => setTimeout(r, 100));
  assert.equal((await c.getTable({ tableId })).table?.status, TableStatus.FINISHED, `the bots' ${players}-player table did not finish`);
  return tableId;
}

interface Measure {
  /** Player columns (the rounds' column aside). */
  columns: number;
  rows: number;
  /** Whether the sheet's own area scrolls sideways (its scroll width beyond its width). */
  scrolls: boolean;
  /** The side panel's own sideways overflow, px (the whole panel scrolling sideways cuts the sheet). */
  panelOverflow: number;
  /** Each header cell not wholly inside the panel's box, as the page first shows it. */
  cutAtFirst: string[];
  /** Each column that cannot be brought wholly into view (right of the stuck first column) by scrolling the
   * sheet's own area; and each scroll position at which the first column left its place. */
  unreachable: string[];
}

/** Measure the sheet as the page shows it. The area that scrolls is found by its computed style (the
 * nearest ancestor of the table that scrolls sideways), not by a class name, so that a sheet scrolling with
 * the whole panel counts as cut. */
async function measure(page: Page): Promise<Measure> {
  return page.evaluate(() => {
    const table = document.querySelector<HTMLElement>(".sheet table")!;
    const side = document.querySelector<HTMLElement>(".board .side")!;
    const sheet = table.closest<HTMLElement>(".sheet")!;
    let scroller: HTMLElement | null = table.parentElement;
    while (scroller && scroller !== sheet && !["auto", "scroll"].includes(getComputedStyle(scroller).overflowX)) scroller = scroller.parentElement;
    const own = scroller && scroller !== sheet ? scroller : undefined; // a scroller inside the sheet
    const heads = [...table.querySelectorAll<HTMLElement>("thead th")];
    const box = (el: Element): DOMRect => el.getBoundingClientRect();
    const label = (el: HTMLElement, b: DOMRect): string => `"${el.textContent}" at ${Math.round(b.left)}-${Math.round(b.right)}`;
    const panel = box(side);
    const inner = { left: panel.left + side.clientLeft, right: panel.left + side.clientLeft + side.clientWidth };
    const cutAtFirst = heads.filter((th) => box(th).left < inner.left - 1 || box(th).right > inner.right + 1).map((th) => `${label(th, box(th))} of the panel's ${Math.round(inner.left)}-${Math.round(inner.right)}`);
    const unreachable: string[] = [];
    const first = heads[0]!;
    if (own) {
      const area = (): { left: number; right: number } => ({ left: box(own).left + own.clientLeft, right: box(own).left + own.clientLeft + own.clientWidth });
      if (area().left < inner.left - 1 || area().right > inner.right + 1) unreachable.push(`the sheet's area ${Math.round(area().left)}-${Math.round(area().right)} is wider than the panel`);
      for (const th of heads.slice(1)) {
        // Bring the column just right of the stuck first column, as far as the area scrolls.
        own.scrollLeft = 0;
        own.scrollLeft = box(th).left - box(own).left - own.clientLeft - box(first).width;
        const a = area();
        if (Math.abs(box(first).left - a.left) > 1) unreachable.push(`the first column left its place: ${label(first, box(first))} in ${Math.round(a.left)}-${Math.round(a.right)}`);
        const b = box(th);
        if (b.left < box(first).right - 1 || b.right > a.right + 1) unreachable.push(`${label(th, b)} scrolled to ${own.scrollLeft}, in ${Math.round(a.left)}-${Math.round(a.right)}`);
      }
      own.scrollLeft = 0;
    } else unreachable.push(...cutAtFirst);
    return {
      columns: heads.length - 1,
      rows: table.querySelectorAll("tbody tr").length,
      scrolls: own !== undefined && own.scrollWidth > own.clientWidth + 1,
      panelOverflow: side.scrollWidth - side.clientWidth,
      cutAtFirst,
      unreachable,
    };
  });
}

/** Each meld card not wholly inside the window's width or its melds area's visible width (a card cut at the
 * right edge, out of reach: the area scrolls only downwards), and how far the page itself scrolls sideways. */
async function meldsCut(page: Page): Promise<{ melds: number; cut: string[]; pageOverflow: number }> {
  return page.evaluate(() => {
    const area = document.querySelector<HTMLElement>(".board .melds")!;
    const a = area.getBoundingClientRect();
    const left = Math.max(0, a.left + area.clientLeft);
    const right = Math.min(window.innerWidth, a.left + area.clientLeft + area.clientWidth);
    const cut: string[] = [];
    for (const meld of document.querySelectorAll<HTMLElement>(".board .melds .meld"))
      for (const card of [meld, ...meld.querySelectorAll<HTMLElement>(".card")]) {
        const b = card.getBoundingClientRect();
        if (b.left < left - 1 || b.right > right + 1) cut.push(`meld ${meld.dataset["meld"]}: ${card === meld ? "its box" : `"${card.textContent}"`} at ${Math.round(b.left)}-${Math.round(b.right)} of ${Math.round(left)}-${Math.round(right)}`);
      }
    const root = document.scrollingElement!;
    return { melds: document.querySelectorAll(".board .melds .meld").length, cut, pageOverflow: root.scrollWidth - root.clientWidth };
  });
}

/** Each opponent panel whose name or badges are cut by the panel's edge (a word wider than the panel, a badge
 * past its right edge). */
async function namesCut(page: Page): Promise<string[]> {
  return page.evaluate(() => {
    const cut: string[] = [];
    for (const seat of document.querySelectorAll<HTMLElement>(".board .opponents > .seat")) {
      const name = seat.querySelector<HTMLElement>(".name")!;
      const right = seat.getBoundingClientRect().right;
      if (name.scrollWidth > name.clientWidth + 1) cut.push(`seat ${seat.dataset["seat"]}: its name is ${name.scrollWidth}px in ${name.clientWidth}px`);
      for (const badge of name.querySelectorAll<HTMLElement>(".badge"))
        if (badge.getBoundingClientRect().right > right + 1) cut.push(`seat ${seat.dataset["seat"]}: "${badge.textContent}" past the panel's edge`);
    }
    return cut;
  });
}

async function openSheet(size: { width: number; height: number }, tableId: string, game: string): Promise<Page> {
  const { page } = await openSized(browser, size);
  await page.goto(`${BASE_URL}/#/table/${tableId}`);
  await page.locator(`.board.${game} .sheet table tfoot`).waitFor({ timeout: 15000 });
  await page.locator('[data-testid="standings"]').waitFor({ timeout: 15000 });
  await settled(page);
  return page;
}

test("1000 Blagogo at 1280x800: up to five players the sheet fits the panel; more scroll sideways with the rounds stuck", { timeout: 300000 }, async () => {
  for (const players of [4, 5, 6, 8]) {
    const tableId = await finishedTable(GameKind.BLAGOGO, players);
    const page = await openSheet(DESKTOP, tableId, "blagogo");
    const m = await measure(page);
    console.log(`# ${players} players at 1280x800: ${m.rows} rounds, ${m.scrolls ? "scrolls sideways" : "fits"}, cut at first: ${m.cutAtFirst.length}`);
    await screenshot(page, `sheet-blagogo-${players}-desktop`);
    assert.equal(m.columns, players);
    assert.ok(m.rows >= 3, `a whole game has rounds: ${m.rows}`);
    assert.ok(m.panelOverflow <= 1, `${players} players: the side panel itself is ${m.panelOverflow}px too wide (the sheet cut at its edge)`);
    assert.deepEqual(m.unreachable, [], `${players} players: columns out of reach`);
    assert.deepEqual((await meldsCut(page)).cut, [], `${players} players at 1280x800: meld cards cut at the right edge`);
    if (players <= 5) {
      assert.deepEqual(m.cutAtFirst, [], `${players} players: columns cut at the panel's edge`);
      assert.equal(m.scrolls, false, `${players} players fit without scrolling`);
    } else assert.equal(m.scrolls, true, `${players} players: the sheet scrolls sideways`);
    if (players === 8) {
      // A re-render (the sounds button redraws the page) keeps the place the sheet was scrolled to, and the
      // side column's place scrolled down (a whole game's rounds are taller than the laptop's window).
      const scrolled = await page.evaluate(() => {
        const area = document.querySelector<HTMLElement>(".sheet-scroll")!;
        area.scrollLeft = area.scrollWidth;
        return area.scrollLeft;
      });
      assert.ok(scrolled > 0);
      const down = await page.evaluate(() => {
        const side = document.querySelector<HTMLElement>(".board .side")!;
        side.scrollTop = Math.round((side.scrollHeight - side.clientHeight) / 2);
        return side.scrollTop;
      });
      assert.ok(down > 0, "the side column scrolls down");
      await page.locator('[data-key="sounds"]').click();
      await settled(page);
      assert.equal(await page.locator('[data-key="sounds"]').getAttribute("aria-pressed"), "true", "the page was drawn again");
      assert.equal(await page.evaluate(() => document.querySelector<HTMLElement>(".sheet-scroll")!.scrollLeft), scrolled, "the sheet stays scrolled across a re-render");
      assert.equal(await page.evaluate(() => document.querySelector<HTMLElement>(".board .side")!.scrollTop), down, "the side column stays scrolled down across a re-render");
      await screenshot(page, "sheet-blagogo-8-desktop-scrolled");
    }
    assert.deepEqual(pageErrors(page), []);
    await page.context().close();
  }
});

test("on a phone, and Thousand at 1280x800: every column within reach, the first stuck", { timeout: 300000 }, async () => {
  for (const players of [4, 8]) {
    const page = await openSheet(PHONE, await finishedTable(GameKind.BLAGOGO, players), "blagogo");
    const m = await measure(page);
    console.log(`# ${players} players on a phone: ${m.rows} rounds, ${m.scrolls ? "scrolls sideways" : "fits"}`);
    await page.evaluate(() => document.querySelector(".sheet")?.scrollIntoView({ block: "start" }));
    await screenshot(page, `sheet-blagogo-${players}-phone`);
    assert.equal(m.columns, players);
    assert.deepEqual(m.unreachable, [], `${players} players on a phone: columns out of reach`);
    // The last round's melds stay on the board: every card of every meld within the screen's width.
    const melds = await meldsCut(page);
    console.log(`# ${players} players on a phone: ${melds.melds} melds down, ${melds.cut.length} cut`);
    assert.ok(melds.melds > 0, `${players} players: the last round left melds on the board`);
    assert.deepEqual(melds.cut, [], `${players} players on a phone: meld cards cut at the right edge`);
    assert.ok(melds.pageOverflow <= 1, `${players} players on a phone: the page scrolls sideways by ${melds.pageOverflow}px`);
    if (players === 4) assert.deepEqual(m.cutAtFirst, [], "4 players fit a phone's panel");
    // Every opponent's name and badges whole: at most four panels a row.
    await page.evaluate(() => document.querySelector(".board .opponents")?.scrollIntoView({ block: "start" }));
    await screenshot(page, `sheet-blagogo-${players}-phone-opponents`);
    assert.deepEqual(await namesCut(page), [], `${players} players on a phone: opponents' names or badges cut`);
    assert.deepEqual(pageErrors(page), []);
    await page.context().close();
  }
  const page = await openSheet(DESKTOP, await finishedTable(GameKind.THOUSAND, 4), "thousand");
  const m = await measure(page);
  await screenshot(page, "sheet-thousand-4-desktop");
  assert.equal(m.columns, 4);
  assert.deepEqual(m.cutAtFirst, [], "Thousand of four: columns cut at the panel's edge");
  assert.equal(m.scrolls, false);
  assert.deepEqual(pageErrors(page), []);
  await page.context().close();
});
