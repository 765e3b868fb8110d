// The Bots page (issue 27) in Chromium, against a real server whose ladder has played real sets
// (tests/test_web_ladder.py: registered bots on the SDK's ladder loop, as `thousand-bot ladder` runs them, with
// the server's reference bots): reached from the leaderboard, each game's standings exactly as
// LadderService.GetLadderStandings gives them (order, names, owners, the reference bots marked, rating with its
// interval, sets and games), the latest sets linking to their tables' replays, the page in Russian too, at a
// laptop's and a phone's size with axe-core finding nothing serious.
import assert from "node:assert/strict";
import { createRequire } from "node:module";
import { isDeepStrictEqual } from "node:util";
import { after, before, test } from "node:test";
import { createClient } from "@connectrpc/connect";
import type { Browser, Page } from "playwright-core";
import { tableClient, transport } from "../../src/api";
import { LadderService, type LadderStanding } from "../../src/gen/thousand/v1/ladder_service_pb";
import { GameKind, TableStatus } from "../../src/gen/thousand/v1/table_service_pb";
import { BASE_URL, launch, openSized, pageErrors, PHONE, screenshot } from "./browser";

const OWNERS = (process.env["BOT_OWNERS"] ?? "").split(",").filter(Boolean);
assert.ok(OWNERS.length, "tests/test_web_ladder.py sets BOT_OWNERS");
const LAPTOP = { width: 1280, height: 800 };
const AXE = createRequire(import.meta.url).resolve("axe-core/axe.min.js");
const ladder = createClient(LadderService, transport(BASE_URL));

let browser: Browser;
before(async () => {
  browser = await launch();
});
after(async () => {
  await browser?.close();
});

async function axe(page: Page, where: string): Promise<void> {
  await page.addScriptTag({ path: AXE });
  const grave = await page.evaluate(async () => {
    const run = (window as unknown as { axe: { run: (c: Document, o: object) => Promise<{ violations: { id: string; impact: string | null; nodes: { target: string[] }[] }[] }> } }).axe.run;
    const result = await run(document, { resultTypes: ["violations"] });
    return result.violations.filter((v) => v.impact === "serious" || v.impact === "critical").map((v) => `${v.id} at ${v.nodes.map((n) => n.target.join(" ")).join(", ")}`);
  });
  assert.deepEqual(grave, [], `${where}: serious or critical axe violations`);
}

async function look(page: Page, name: string): Promise<void> {
  for (const [size, viewport] of [["laptop", LAPTOP], ["phone", PHONE]] as const) {
    await page.setViewportSize(viewport);
    await page.waitForTimeout(150);
    const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
    assert.ok(overflow <= 1, `${name} at ${size} size is ${overflow}px wider than the screen`);
    // Nor clipped inside a box that scrolls sideways: every cell of the standings within the window.
    const outside = await page.evaluate(() =>
      [...document.querySelectorAll('[data-testid="bots-standings"] th, [data-testid="bots-standings"] td')]
        .map((cell) => ({ text: (cell as HTMLElement).innerText, right: cell.getBoundingClientRect().right }))
        .filter((cell) => cell.right > window.innerWidth + 1)
        .map((cell) => `${cell.text} ends at ${Math.round(cell.right)}`),
    );
    assert.deepEqual(outside, [], `${name} at ${size} size: cells off the screen`);
    await screenshot(page, `${name}-${size}`);
    await axe(page, `${name} at ${size} size`);
  }
  await page.setViewportSize(LAPTOP);
}

const one = (n: number): string => n.toFixed(1);

/** What the page shows of each row, and what the server's standings say it must show (English). */
async function rowsOf(page: Page): Promise<{ member: string; reference: boolean; name: string; who: string; ordinal: string; interval: string; played: string }[]> {
  return page.locator('[data-testid="bots-standings"] tbody tr').evaluateAll((rows) =>
    rows.map((row) => ({
      member: row.getAttribute("data-member") ?? "",
      reference: row.querySelector('[data-testid="reference"]') !== null,
      name: row.querySelector(".bot-name")?.textContent ?? "",
      who: (row.querySelector(".owner, .reference")?.textContent ?? "").trim(),
      ordinal: row.querySelector(".ordinal")?.textContent ?? "",
      interval: row.querySelector(".interval")?.textContent ?? "",
      played: row.querySelector(".played")?.textContent ?? "",
    })),
  );
}

/** How many times the page's container has its children replaced (a render, dom.ts) within `ms`: a page with
 * nothing new to show is drawn no more. Longer than the table's hold of a taken trick (seats.ts,
 * DEFAULT_TRICK_MS, 1.1 s), the longest timer a page sets before drawing again. */
async function redraws(page: Page, ms: number): Promise<number> {
  return page.evaluate(
    (wait) =>
      new Promise<number>((done) => {
        let count = 0;
        const observer = new MutationObserver((records) => (count += records.filter((r) => r.removedNodes.length > 0).length));
        observer.observe(document.getElementById("app")!, { childList: true });
        setTimeout(() => {
          observer.disconnect();
          done(count);
        }, wait);
      }),
    ms,
  );
}

function expected(s: LadderStanding) {
  const strategy = s.memberId.replace(/^bot:/, "");
  return {
    member: s.memberId,
    reference: s.reference,
    name: s.reference ? `${strategy.charAt(0).toUpperCase()}${strategy.slice(1)} bot` : s.displayName,
    who: s.reference ? "reference bot" : `by ${s.ownerName}`,
    ordinal: one(s.rating?.ordinal ?? 0),
    interval: `μ ${one(s.rating?.mu ?? 0)}: ${one(s.intervalLow)} to ${one(s.intervalHigh)}`,
    played: `${s.sets} ${s.sets === 1 ? "set" : "sets"} · ${s.games} ${s.games === 1 ? "game" : "games"}`,
  };
}

async function standings(game: GameKind): Promise<LadderStanding[]> {
  const { standings } = await ladder.getLadderStandings({ game, players: 3, recentSets: 3 });
  assert.ok(standings.length >= 3, `the ladder of game ${game} has played sets`);
  assert.ok(standings.some((s) => s.reference) && standings.some((s) => !s.reference), "registered and reference bots");
  for (const s of standings) {
    const mu = s.rating?.mu ?? 0;
    assert.ok(s.intervalLow < mu && mu < s.intervalHigh, "an interval around mu");
    assert.ok(s.sets >= 1 && s.games >= s.sets);
    if (!s.reference) assert.ok(OWNERS.includes(s.ownerName), `${s.displayName}'s owner is one of ${OWNERS.join(", ")}`);
  }
  return standings;
}

test("the Bots page: each game's ladder as the server ranks it, from the leaderboard, on a laptop and a phone", { timeout: 180000 }, async () => {
  let thousand = await standings(GameKind.THOUSAND);
  const blagogo = await standings(GameKind.BLAGOGO);
  const { context, page } = await openSized(browser, LAPTOP);
  await page.goto(`${BASE_URL}/#/`);
  await page.locator('[data-testid="leaderboard-link"]').click();
  // The leaderboard's header links to the Bots page, on a phone too.
  await page.setViewportSize(PHONE);
  await page.locator('[data-testid="bots-link"]').waitFor();
  assert.ok((await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth)) <= 1, "the leaderboard fits a phone");
  await screenshot(page, "leaderboard-bots-link-phone");
  await page.setViewportSize(LAPTOP);
  await page.locator('[data-testid="bots-link"]').click();
  await page.waitForURL(`${BASE_URL}/#/bots/thousand`);
  await page.locator('[data-testid="bots-standings"] tbody tr').first().waitFor({ timeout: 30000 });
  // A set the ladder rated after the standings were read (tests/test_web_ladder.py waits for the ladder to
  // settle, yet a clean run once saw one set more on the page than in the standings read before it) makes
  // the page right and the expectation old: the standings are read again and the page reloaded, a few times.
  for (let look = 1; look < 4 && !isDeepStrictEqual(await rowsOf(page), thousand.map(expected)); look++) {
    thousand = await standings(GameKind.THOUSAND);
    await page.reload();
    await page.locator('[data-testid="bots-standings"] tbody tr').first().waitFor({ timeout: 30000 });
  }
  assert.deepEqual(await rowsOf(page), thousand.map(expected));
  assert.match(await page.locator('[data-testid="bots-intro"]').innerText(), /the same time \(0\.1 s(ecs?)?\)/);
  await look(page, "bots-thousand");

  // A registered bot's latest sets link to their tables' replays.
  const bot = thousand.find((s) => !s.reference)!;
  const row = page.locator(`tr[data-member="${bot.memberId}"]`);
  await row.locator("details.recent-sets summary").click();
  const links = await row.locator("details.recent-sets a").evaluateAll((as) => as.map((a) => a.getAttribute("href")));
  const tables = bot.recentSets.flatMap((set) => set.tables.map((t) => `#/replay/${t.tableId}`));
  assert.deepEqual(links, tables);
  const { table } = await tableClient(BASE_URL).getTable({ tableId: bot.recentSets[0]!.tables[0]!.tableId });
  assert.equal(table?.status, TableStatus.FINISHED);
  assert.match(await row.locator("details.recent-sets li").first().innerText(), /^place \d+, -?[\d,]+ points · table 1 · table 2 · table 3$/);
  await screenshot(page, "bots-recent-sets-laptop");
  await row.locator("details.recent-sets a").first().click();
  await page.locator('[data-testid="replay-position"]').waitFor({ timeout: 15000 });

  // Straight back from the replay: once the standings are drawn the page holds still. A page left behind
  // draws no more (the replay's last trick is held on show for a while, then drawn again: that late draw
  // once replaced these standings with the replay, a flaky failure of this test).
  await page.goto(`${BASE_URL}/#/bots/thousand`);
  await page.locator('[data-testid="bots-standings"] tbody tr').first().waitFor({ timeout: 30000 });
  assert.equal(await redraws(page, 2000), 0, "the Bots page, shown and loaded, is drawn again with nothing changed");
  assert.deepEqual((await rowsOf(page)).map((r) => r.member).sort(), thousand.map((s) => s.memberId).sort(), "the standings still shown");

  // The other game, chosen on the page.
  await page.selectOption('[data-testid="bots-game"]', String(GameKind.BLAGOGO));
  await page.waitForURL(`${BASE_URL}/#/bots/blagogo`);
  await page.locator('[data-testid="bots-standings"] tbody tr').first().waitFor({ timeout: 30000 });
  assert.deepEqual(await rowsOf(page), blagogo.map(expected));
  await look(page, "bots-blagogo");

  // In Russian: the catalogues' words, plurals and all.
  await page.evaluate(() => localStorage.setItem("thousand.lang.v1", "ru"));
  await page.reload();
  await page.locator('[data-testid="bots-standings"] tbody tr').first().waitFor({ timeout: 30000 });
  const ru = await rowsOf(page);
  for (const [i, s] of blagogo.entries()) {
    assert.equal(ru[i]!.who, s.reference ? "эталонный бот" : `владелец: ${s.ownerName}`);
    assert.match(ru[i]!.played, /^\d+ сери(я|и|й) · \d+ (игра|игры|игр)$/);
  }
  assert.equal(await page.locator("h1").innerText(), "Лестница ботов");
  await look(page, "bots-blagogo-ru");
  assert.deepEqual(pageErrors(page), []);
  await context.close();
});
