// Quick play, the leaderboard and the profile in Chromium (issue 26), against a server of their own
// (tests/test_web_quickplay.py starts it, a terminal client `thousand play` already waiting in its queue for
// 3-player Thousand, and rated 2-player games already played by guests): "Play now" from two browser
// contexts seats both at the terminal player's table, the three of them at one table of three; a waiting
// screen's Cancel leaves the queue; the leaderboard of the people's 2-player pool pages 10 at a time to its
// players' profiles; a rated table's last event shows each seat's rating before and after. axe-core finds no
// serious or critical violation on the new pages, and each is looked at at a laptop's and a phone's size.
import assert from "node:assert/strict";
import { writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { after, before, test } from "node:test";
import type { Browser, BrowserContext, Page } from "playwright-core";
import { tableClient } from "../../src/api";
import { GameKind } from "../../src/gen/thousand/v1/table_service_pb";
import { BASE_URL, LAPTOP, PHONE, launch, newPage, openSized, pageErrors, screenshot } from "./browser";

const TERMINAL = process.env["TERMINAL_NAME"] ?? "";
const RATED_TABLE = process.env["RATED_TABLE"] ?? "";
const OUT = process.env["QUICKPLAY_OUT"] ?? "";
assert.ok(TERMINAL && RATED_TABLE && OUT, "tests/test_web_quickplay.py sets TERMINAL_NAME, RATED_TABLE and QUICKPLAY_OUT");
const AXE = createRequire(import.meta.url).resolve("axe-core/axe.min.js");
const tables = tableClient(BASE_URL);

let browser: Browser;
before(async () => {
  browser = await launch();
});
after(async () => {
  await browser?.close();
});

/** axe-core on the page, or on `within` only (a new part of a page whose rest a11y.test.ts checks). */
async function axe(page: Page, where: string, within?: string): Promise<void> {
  await page.addScriptTag({ path: AXE });
  const grave = await page.evaluate(async (selector) => {
    const run = (window as unknown as { axe: { run: (c: Document | string, o: object) => Promise<{ violations: { id: string; impact: string | null; nodes: { target: string[] }[] }[] }> } }).axe.run;
    const result = await run(selector ?? document, { resultTypes: ["violations"] });
    return result.violations.filter((v) => v.impact === "serious" || v.impact === "critical").map((v) => `${v.id} at ${v.nodes.map((n) => n.target.join(" ")).join(", ")}`);
  }, within);
  assert.deepEqual(grave, [], `${where}: serious or critical axe violations`);
}

/** Screenshots at a laptop's and a phone's size, nothing wider than the screen; axe at both. */
async function look(page: Page, name: string, within?: string): Promise<void> {
  for (const [size, viewport] of [["laptop", LAPTOP], ["phone", PHONE]] as const) {
    await page.setViewportSize(viewport);
    await page.waitForTimeout(150);
    const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
    assert.ok(overflow <= 1, `${name} at ${size} size is ${overflow}px wider than the screen`);
    await screenshot(page, `quickplay-${name}-${size}`);
    await axe(page, `${name} at ${size} size`, within);
  }
  await page.setViewportSize(LAPTOP);
}

async function visit(name: string): Promise<{ context: BrowserContext; page: Page }> {
  const opened = await openSized(browser, LAPTOP);
  await opened.page.goto(`${BASE_URL}/#/`);
  await opened.page.locator('[data-testid="player-kind"]').waitFor({ timeout: 15000 });
  await opened.page.fill("#player-name", name);
  await opened.page.locator("#player-name").blur();
  return opened;
}

/** Choose a game in the lobby's "Play now" form and press it: the waiting screen opens. */
async function playNow(page: Page, game: GameKind, players: number): Promise<void> {
  await page.selectOption('[data-testid="play-game"]', String(game));
  await page.selectOption('[data-testid="play-players"]', String(players));
  await page.selectOption('[data-testid="play-wait"]', "300");
  await page.locator('[data-testid="play-now"]').click();
  await page.locator('[data-testid="waiting-count"]').waitFor({ timeout: 15000 });
}

test("Play now is the lobby's first form; a waiting screen's Cancel leaves the queue", { timeout: 120000 }, async () => {
  const { context, page } = await visit("Canceller");
  const first = await page.evaluate(() => document.querySelector("main, section, form")?.closest("section")?.className ?? "");
  assert.equal(first, "play-now", "the lobby's first section is Play now");
  await look(page, "lobby");
  await playNow(page, GameKind.BLAGOGO, 2);
  assert.equal(await page.locator('[data-testid="waiting-count"]').innerText(), "1 of 2 players here");
  await look(page, "waiting");
  // A reload of the waiting page calls again with the tab's seat token: the same place, not a second one.
  const place = async () => (JSON.parse((await page.evaluate(() => sessionStorage.getItem("thousand.place.v1"))) ?? "{}") as { seatToken?: string }).seatToken;
  const token = await place();
  assert.ok(token);
  await page.reload();
  await page.locator('[data-testid="waiting-count"]').waitFor({ timeout: 15000 });
  assert.equal(await place(), token);
  assert.equal(await page.locator('[data-testid="waiting-count"]').innerText(), "1 of 2 players here");
  // The same player in another tab, asking for another game meanwhile: one place at a time, said in words.
  const tab = await newPage(context);
  await tab.goto(`${BASE_URL}/#/play/${GameKind.THOUSAND}/4/0/0/300`);
  const refused = tab.locator('[data-testid="waiting-error"]');
  await refused.waitFor({ timeout: 15000 });
  assert.match(await refused.innerText(), /already waiting for a game/);
  await tab.close();
  await page.locator('[data-testid="cancel-wait"]').click();
  await page.waitForURL(`${BASE_URL}/#/`);
  assert.equal(await place(), undefined, "Cancel forgets the place");
  // Left the queue: another player asking for the same game is alone in it.
  const other = await visit("Second");
  await playNow(other.page, GameKind.BLAGOGO, 2);
  await other.page.waitForTimeout(2500); // a waiting update at least every two seconds
  assert.equal(await other.page.locator('[data-testid="waiting-count"]').innerText(), "1 of 2 players here");
  assert.match(other.page.url(), /#\/play\//, "not matched with the player who cancelled");
  await other.page.locator('[data-testid="cancel-wait"]').click();
  assert.deepEqual([...pageErrors(page), ...pageErrors(other.page)], []);
  await other.context.close();
  await context.close();
});

test("Play now from two browsers seats both with the terminal player at one 3-player table (T-1)", { timeout: 180000 }, async () => {
  const ann = await visit("Ann");
  const bob = await visit("Bob");
  await playNow(ann.page, GameKind.THOUSAND, 3);
  await playNow(bob.page, GameKind.THOUSAND, 3);
  await Promise.all([ann.page.waitForURL(/#\/table\//, { timeout: 60000 }), bob.page.waitForURL(/#\/table\//, { timeout: 60000 })]);
  const tableId = ann.page.url().split("/").pop() ?? "";
  assert.equal(bob.page.url().split("/").pop(), tableId, "both browsers are at one table");
  const { table } = await tables.getTable({ tableId });
  assert.ok(table);
  const names = table.seats.map((s) => s.playerName).sort();
  assert.deepEqual(names, ["Ann", "Bob", TERMINAL].sort(), "the three players hold the table's three seats");
  for (const { page } of [ann, bob]) {
    const seats = await page.evaluate(() => JSON.parse(localStorage.getItem("thousand.seats.v1") ?? "{}") as Record<string, { seat: number }>);
    assert.ok(seats[tableId], "the page keeps the seat the match took, as a join does");
    await page.locator(".table-header").first().waitFor({ timeout: 30000 });
  }
  await screenshot(ann.page, "quickplay-table-laptop");
  writeFileSync(OUT, tableId);
  assert.deepEqual([...pageErrors(ann.page), ...pageErrors(bob.page)], []);
  await ann.context.close();
  await bob.context.close();
});

test("the leaderboard pages 10 at a time through real rated games, to a player's profile", { timeout: 120000 }, async () => {
  const { context, page } = await visit("Reader");
  await page.locator('[data-testid="leaderboard-link"]').click();
  await page.selectOption('[data-testid="board-players"]', "2");
  await page.locator('[data-testid="leaderboard"] tbody tr').first().waitFor({ timeout: 15000 });
  const places = async () => page.locator('[data-testid="leaderboard"] tbody tr td:first-child').allInnerTexts();
  assert.deepEqual(await places(), ["1", "2", "3", "4", "5", "6", "7", "8", "9", "10"]);
  const ordinals = (await page.locator('[data-testid="leaderboard"] tbody tr td:nth-child(3)').allInnerTexts()).map(Number);
  assert.deepEqual([...ordinals].sort((a, b) => b - a), ordinals, "best first");
  await look(page, "leaderboard");
  await page.locator('[data-testid="board-next"]').click();
  await page.locator('[data-testid="board-page"]', { hasText: "Page 2" }).waitFor();
  await page.locator('[data-testid="leaderboard"] tbody tr').first().waitFor();
  assert.deepEqual(await places(), ["11", "12"]);
  assert.ok(await page.locator('[data-testid="board-next"]').isDisabled(), "the last page");
  await page.locator('[data-testid="leaderboard"] tbody tr a').first().click();
  await page.locator('[data-testid="profile-ratings"]').waitFor({ timeout: 15000 });
  assert.match(await page.locator('[data-testid="profile-ratings"] tbody').innerText(), /Thousand, 2 players, people/);
  assert.equal(await page.locator('[data-testid="profile-games"] tbody tr').count(), 1);
  await look(page, "profile");
  // The page's own player has played no rated game: their profile says so.
  await page.goto(`${BASE_URL}/#/`);
  await page.locator('[data-testid="my-rating"]').click();
  await page.locator('[data-testid="no-ratings"]').waitFor({ timeout: 15000 });
  assert.deepEqual(pageErrors(page), []);
  await context.close();
});

test("a rated table's end shows each seat's rating before and after", { timeout: 60000 }, async () => {
  const { context, page } = await visit("Watcher");
  await page.goto(`${BASE_URL}/#/table/${RATED_TABLE}`);
  const panel = page.locator('[data-testid="ratings-updated"]');
  await panel.waitFor({ timeout: 30000 });
  const lines = await panel.locator("li").allInnerTexts();
  assert.equal(lines.length, 2);
  for (const line of lines) assert.match(line, /: -?\d+\.\d → -?\d+\.\d \([+-]\d+\.\d\)$/);
  await look(page, "rated-table-end", '[data-testid="ratings-updated"]');
  assert.deepEqual(pageErrors(page), []);
  await context.close();
});

test("after the wait the server's bots fill the empty seats, and the table says the game is unrated", { timeout: 120000 }, async () => {
  const { context, page } = await visit("Lonely");
  await page.selectOption('[data-testid="play-game"]', String(GameKind.BLAGOGO));
  await page.selectOption('[data-testid="play-players"]', "2");
  await page.check('[data-testid="play-rated"]');
  await page.check('[data-testid="play-bots"]');
  await page.selectOption('[data-testid="play-wait"]', "30");
  await page.locator('[data-testid="play-now"]').click();
  await page.locator('[data-testid="waiting-estimate"]', { hasText: /about \d+ seconds? more/ }).waitFor({ timeout: 15000 });
  await page.waitForURL(/#\/table\//, { timeout: 60000 });
  const note = page.locator('[data-testid="match-note"]');
  await note.waitFor({ timeout: 15000 });
  assert.match(await note.innerText(), /bot.*unrated/);
  const tableId = page.url().split("/").pop() ?? "";
  const { table } = await tables.getTable({ tableId });
  assert.equal(table?.seats.filter((s) => s.strategy !== "").length, 1, "one seat is the server's bot");
  await screenshot(page, "quickplay-bots-filled-laptop");
  assert.deepEqual(pageErrors(page), []);
  await context.close();
});
