// After a finished game (issue 26): the Rematch panel under the standings seats the same players at a new
// table once both accepted (MatchmakingService.Rematch, the server's own flow), and says so in words when one
// of them declines; a rated table's ratings panel stays after the page is reloaded. Two players' seats of a
// short 2-player 1000 Blagogo game (target 1: one round) are played to the end by the client's own
// TableSession in Node; each browser then holds its seat as a page that joined would (the seat record in
// localStorage). Screenshots at 1280x800 and 390x844.
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { create } from "@bufbuild/protobuf";
import type { Browser, BrowserContext, Page } from "playwright-core";
import { randomToken } from "../../src/api";
import { GameKind, RulesSchema, SeatKind, TableStatus } from "../../src/gen/thousand/v1/table_service_pb";
import { TableSession } from "../../src/session";
import { client, nodes, play, rng, until, type Seated } from "../logic/harness";
import { BASE_URL, launch, openSized, pageErrors, PHONE, screenshot, state } from "./browser";

const LAPTOP = { width: 1280, height: 800 };

let browser: Browser;
before(async () => {
  browser = await launch();
});
after(async () => {
  await browser?.close();
});

interface Player {
  name: string;
  /** A guest's player token: the seat is the player's, and the table may be rated. */
  credential?: string;
}

/** A 2-player 1000 Blagogo table of one round, both seats taken by `players` and played to the game's end by
 * TableSessions in Node (random legal actions); its seats. */
async function finishedTable(players: Player[], rated = false, seed = 7): Promise<Seated[]> {
  const c = client();
  const { table } = await c.createTable({
    game: GameKind.BLAGOGO,
    rated,
    rules: create(RulesSchema, { game: { case: "blagogo", value: { players: 2, target: 1, turnoverLimit: 1 } } }),
    seats: players.map(() => ({ kind: SeatKind.OPEN })),
    requestId: randomToken(12),
  });
  const tableId = table!.tableId;
  const seated: Seated[] = [];
  for (const p of players) {
    const headers = p.credential ? { authorization: `Bearer ${p.credential}` } : undefined;
    const joined = await c.joinTable({ tableId, playerName: p.name, seatToken: randomToken(32) }, { headers });
    seated.push({ tableId, seat: joined.seat, token: joined.seatToken });
  }
  const sessions = seated.map((s) => new TableSession(nodes(), tableId, { seat: s.seat, token: s.token }));
  await Promise.all(sessions.map((s) => s.start()));
  const over = (s: TableSession) => () => s.table?.status === TableStatus.FINISHED;
  await Promise.all(sessions.map((s, i) => play(s, rng(seed + i), over(s), 120000)));
  await Promise.all(sessions.map((s) => until(s, () => s.status.state === "ended", 30000)));
  for (const s of sessions) s.stop();
  return seated;
}

/** A browser at the lobby, its guest made: the page and the guest's credential (what the page keeps). */
async function visitor(): Promise<{ context: BrowserContext; page: Page; guest: { playerId: string; token: string } }> {
  const opened = await openSized(browser, LAPTOP);
  await opened.page.goto(`${BASE_URL}/#/`);
  await opened.page.locator('[data-testid="player-kind"]').waitFor({ timeout: 15000 });
  const guest = await opened.page.evaluate(() => JSON.parse(localStorage.getItem("thousand.guest.v1") ?? "null") as { playerId: string; token: string } | null);
  assert.ok(guest?.token, "the first visit made a guest");
  return { ...opened, guest };
}

/** A browser holding `seat` as the page that joined it would, opened at its table (`at`: an open page). */
async function holding(seat: Seated, name: string, at?: { context: BrowserContext; page: Page; player?: string }): Promise<{ context: BrowserContext; page: Page }> {
  const opened = at ?? (await visitor());
  const { page } = opened;
  await page.evaluate((record) => {
    const all = JSON.parse(localStorage.getItem("thousand.seats.v1") ?? "{}") as Record<string, unknown>;
    all[record.tableId] = record;
    localStorage.setItem("thousand.seats.v1", JSON.stringify(all));
  }, { tableId: seat.tableId, seat: seat.seat, token: seat.token, name, player: at?.player });
  await page.goto(`${BASE_URL}/#/table/${seat.tableId}`);
  await page.locator('[data-testid="standings"]').waitFor({ timeout: 30000 });
  await dismissSummary(page);
  return opened;
}

/** The last round's summary, when the page shows it over the standings: read, then dismissed. */
async function dismissSummary(page: Page): Promise<void> {
  await page.waitForTimeout(300);
  const next = page.locator('[data-testid="next-round"]');
  if (await next.count()) await next.click();
}

/** Screenshots at a laptop's and a phone's size; nothing wider than the screen, `what` in view at both. */
async function look(page: Page, name: string, what: string): Promise<void> {
  for (const [size, viewport] of [["laptop", LAPTOP], ["phone", PHONE]] as const) {
    await page.setViewportSize(viewport);
    await page.waitForTimeout(150);
    const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
    assert.ok(overflow <= 1, `${name} at ${size} size is ${overflow}px wider than the screen`);
    await page.locator(what).scrollIntoViewIfNeeded();
    assert.ok(await page.locator(what).isVisible(), `${what} is visible at ${size} size`);
    await screenshot(page, `${name}-${size}`);
  }
  await page.setViewportSize(LAPTOP);
}

test("Rematch: both players accept and sit at a new table at their seats; the first waits for the other", { timeout: 300000 }, async () => {
  const [ann, bob] = await finishedTable([{ name: "Ann" }, { name: "Bob" }]);
  const a = await holding(ann!, "Ann");
  const b = await holding(bob!, "Bob");
  const panel = a.page.locator('[data-testid="rematch"]');
  await panel.waitFor({ timeout: 15000 });
  assert.match(await panel.innerText(), /Play again\?/);
  await look(a.page, "rematch-offer", '[data-testid="rematch"]');
  await a.page.locator('[data-testid="rematch-accept"]').click();
  const status = a.page.locator('[data-testid="rematch-status"]', { hasText: "1 of 2 players accepted" });
  await status.waitFor({ timeout: 15000 });
  await look(a.page, "rematch-waiting", '[data-testid="rematch"]');
  await b.page.locator('[data-testid="rematch-accept"]').click();
  const away = (p: Page) => p.waitForURL((url) => url.hash.startsWith("#/table/") && !url.hash.endsWith(ann!.tableId), { timeout: 30000 });
  await Promise.all([away(a.page), away(b.page)]);
  const newId = a.page.url().split("/").pop() ?? "";
  assert.equal(b.page.url().split("/").pop(), newId, "both players are at one new table");
  const { table } = await client().getTable({ tableId: newId });
  assert.ok(table);
  assert.deepEqual(
    table.seats.map((s) => [s.taken, s.playerName]),
    [[true, "Ann"], [true, "Bob"]],
    "the same players at their old seats",
  );
  assert.equal(table.rules?.game.case, "blagogo");
  assert.equal(table.rules?.game.value?.target, 1, "the same rules");
  for (const [p, seat] of [[a.page, ann!.seat], [b.page, bob!.seat]] as const) {
    await p.locator(".board.blagogo, .waiting").first().waitFor({ timeout: 30000 });
    await p.waitForFunction(() => (window as unknown as { thousandSession?: { seat?: number } }).thousandSession?.seat !== undefined);
    assert.equal((await state(p)).seat, seat, "the page plays its seat at the new table");
  }
  await screenshot(a.page, "rematch-new-table-laptop");
  assert.deepEqual([...pageErrors(a.page), ...pageErrors(b.page)], []);
  await a.context.close();
  await b.context.close();
});

test("Rematch declined: the one who asked is told in words, and so is the one who declined", { timeout: 300000 }, async () => {
  const [ann, bob] = await finishedTable([{ name: "Ann" }, { name: "Bob" }], false, 11);
  const a = await holding(ann!, "Ann");
  const b = await holding(bob!, "Bob");
  await a.page.locator('[data-testid="rematch-accept"]').click();
  await a.page.locator('[data-testid="rematch-status"]', { hasText: "1 of 2 players accepted" }).waitFor({ timeout: 15000 });
  await b.page.locator('[data-testid="rematch-decline"]').click();
  await a.page.locator('[data-testid="rematch-status"]', { hasText: "A player declined the rematch." }).waitFor({ timeout: 15000 });
  await b.page.locator('[data-testid="rematch-status"]', { hasText: "You declined the rematch." }).waitFor({ timeout: 15000 });
  assert.equal(await a.page.locator('[data-testid="rematch-accept"]').count(), 0, "nothing more to ask");
  await look(a.page, "rematch-declined", '[data-testid="rematch"]');
  assert.ok(a.page.url().endsWith(ann!.tableId), "still at the finished table");
  assert.deepEqual([...pageErrors(a.page), ...pageErrors(b.page)], []);
  await a.context.close();
  await b.context.close();
});

test("a rated game's ratings panel is there again after reloads; a rematch by the player's credential alone", { timeout: 300000 }, async () => {
  const ann = await visitor();
  const bob = await visitor();
  const [annSeat, bobSeat] = await finishedTable([{ name: "Ann", credential: ann.guest.token }, { name: "Bob", credential: bob.guest.token }], true, 23);
  const { table } = await client().getTable({ tableId: annSeat!.tableId });
  assert.ok(table?.rated, "a rated table");
  await holding(annSeat!, "Ann", { ...ann, player: ann.guest.playerId });
  await holding(bobSeat!, "Bob", { ...bob, player: bob.guest.playerId });
  const panel = ann.page.locator('[data-testid="ratings-updated"]');
  await panel.waitFor({ timeout: 30000 });
  // The lines name the viewer's own seat "(you)", before and after the reloads alike.
  const read = async (): Promise<string[]> => (await panel.locator("li").allInnerTexts()).map((l) => l.replace(" (you)", ""));
  const lines = await read();
  assert.equal(lines.length, 2);
  for (const line of lines) assert.match(line, /: -?\d+\.\d → -?\d+\.\d \([+-]\d+\.\d\)$/);
  // The first load forgets the finished seat; the second reads the whole history and keeps the page's state;
  // the third resumes from that state, after the table's last event: the panel must come from the state.
  for (const reload of [1, 2, 3]) {
    await ann.page.reload();
    await ann.page.locator('[data-testid="standings"]').waitFor({ timeout: 30000 });
    await dismissSummary(ann.page);
    await panel.waitFor({ timeout: 15000 });
    assert.deepEqual(await read(), lines, `the same ratings after reload ${reload}`);
  }
  await look(ann.page, "ratings-after-reload", '[data-testid="ratings-updated"]');
  // The page no longer holds Ann's seat token (a player's seat: nothing kept for the rematch either): her
  // rematch is asked with her credential alone.
  assert.equal((await keptToken(ann.page, annSeat!)).anywhere, false, "the player's finished seat's token is forgotten");
  await ann.page.locator('[data-testid="rematch-accept"]').click();
  await ann.page.locator('[data-testid="rematch-status"]', { hasText: "1 of 2 players accepted" }).waitFor({ timeout: 15000 });
  await bob.page.locator('[data-testid="rematch-accept"]').click();
  const away = (p: Page) => p.waitForURL((url) => url.hash.startsWith("#/table/") && !url.hash.endsWith(annSeat!.tableId), { timeout: 30000 });
  await Promise.all([away(ann.page), away(bob.page)]);
  const { table: again } = await client().getTable({ tableId: ann.page.url().split("/").pop() ?? "" });
  assert.deepEqual(again?.seats.map((s) => s.playerId), [ann.guest.playerId, bob.guest.playerId], "the new seats are the players'");
  assert.deepEqual([...pageErrors(ann.page), ...pageErrors(bob.page)], []);
  await ann.context.close();
  await bob.context.close();
});

/** What the table's page says of its viewer: the header's words and the seats the standings call "(you)". */
async function viewerOf(page: Page): Promise<{ who: string; mine: string[] }> {
  const who = await page.locator(".table-header .who").innerText();
  const mine = (await page.locator('[data-testid="standings"] li').allInnerTexts()).filter((l) => l.includes("(you)"));
  return { who, mine };
}

/** What the page keeps of a finished seat's token: in the live seats (never, after the end), and among the
 * finished anonymous seats' (the rematch's), with the time it goes. */
async function keptToken(page: Page, seat: Seated): Promise<{ live: boolean; finished: boolean; until: number | undefined; anywhere: boolean }> {
  return page.evaluate(({ tableId, token }) => {
    const kept = (JSON.parse(localStorage.getItem("thousand.finished-tokens.v1") ?? "{}") as Record<string, { token?: string; until?: number }>)[tableId];
    return {
      live: (localStorage.getItem("thousand.seats.v1") ?? "").includes(token),
      finished: kept?.token === token,
      until: kept?.until,
      anywhere: JSON.stringify(localStorage).includes(token),
    };
  }, { tableId: seat.tableId, token: seat.token });
}

test("a player who reloads the page after the game's end is still shown at their own seat; an anonymous seat's token is kept for the rematch only", { timeout: 300000 }, async () => {
  const [annSeat] = await finishedTable([{ name: "Ann" }, { name: "Bob" }], false, 31);
  const ann = await holding(annSeat!, "Ann");
  const before = await viewerOf(ann.page);
  assert.match(before.who, /Ann \(you\)/, "the page that held the seat plays it");
  assert.equal(before.mine.length, 1, "one standing is the viewer's");
  // The first reload finds the seat no longer live (the game is over); the second resumes from the saved state.
  for (const reload of [1, 2]) {
    await ann.page.reload();
    await ann.page.locator('[data-testid="standings"]').waitFor({ timeout: 30000 });
    await dismissSummary(ann.page);
    assert.deepEqual(await viewerOf(ann.page), before, `the same seat, "(you)", after reload ${reload}`);
  }
  // The seat was taken anonymously (no player's credential names it): its token stays, apart from the live
  // seats, until about 15 minutes after the end, for the rematch; nothing else of the seat's secrets stays.
  const kept = await keptToken(ann.page, annSeat!);
  assert.equal(kept.live, false, "no longer a live seat");
  assert.equal(kept.finished, true, "kept for the rematch");
  const left = (kept.until ?? 0) - Date.now();
  assert.ok(left > 800000 && left <= 900000, `kept for 15 minutes from the end: ${left} ms left`);
  await look(ann.page, "finished-reloaded-seat", '[data-testid="standings"]');
  // Another language reads the table's history again (no saved state in it, no token): still Ann's seat.
  await ann.page.selectOption('[data-testid="language"]', "pl");
  await ann.page.waitForFunction(() => document.documentElement.lang === "pl");
  await ann.page.locator(".table-header .who", { hasText: "Grasz jako Ann (ty)" }).waitFor({ timeout: 15000 });
  await ann.page.locator('[data-testid="standings"] li', { hasText: "Ann (ty)" }).waitFor({ timeout: 15000 });
  assert.deepEqual(pageErrors(ann.page), []);
  await ann.context.close();
});

test("an anonymous seat's rematch after a reload: asked with the kept token; too late once it expired, said in words", { timeout: 300000 }, async () => {
  const [annSeat, bobSeat] = await finishedTable([{ name: "Ann" }, { name: "Bob" }], false, 41);
  const a = await holding(annSeat!, "Ann");
  const b = await holding(bobSeat!, "Bob");
  // Ann reloads the finished game's page: her seat is not live any more, and her page's guest is not the
  // seat's player, yet the Rematch is offered and works.
  await a.page.reload();
  await a.page.locator('[data-testid="standings"]').waitFor({ timeout: 30000 });
  await dismissSummary(a.page);
  assert.equal((await keptToken(a.page, annSeat!)).live, false);
  await a.page.locator('[data-testid="rematch-accept"]').click();
  await a.page.locator('[data-testid="rematch-status"]', { hasText: "1 of 2 players accepted" }).waitFor({ timeout: 15000 });
  await b.page.locator('[data-testid="rematch-accept"]').click();
  const away = (p: Page) => p.waitForURL((url) => url.hash.startsWith("#/table/") && !url.hash.endsWith(annSeat!.tableId), { timeout: 30000 });
  await Promise.all([away(a.page), away(b.page)]);
  const { table } = await client().getTable({ tableId: a.page.url().split("/").pop() ?? "" });
  assert.deepEqual(table?.seats.map((s) => [s.taken, s.playerName]), [[true, "Ann"], [true, "Bob"]], "both at the new table");
  assert.equal((await keptToken(a.page, annSeat!)).anywhere, false, "the rematch used the kept token: it is gone");
  assert.deepEqual([...pageErrors(a.page), ...pageErrors(b.page)], []);
  await a.context.close();
  await b.context.close();

  // Another finished game, reloaded once the kept token's time has passed (set back in storage): the panel
  // says it is too late, in words, with no button that cannot work; and the token is gone.
  const [carlSeat] = await finishedTable([{ name: "Carl" }, { name: "Dora" }], false, 43);
  const c = await holding(carlSeat!, "Carl");
  await c.page.locator('[data-testid="rematch-accept"]').waitFor({ timeout: 15000 });
  await c.page.evaluate((tableId) => {
    const kept = JSON.parse(localStorage.getItem("thousand.finished-tokens.v1") ?? "{}") as Record<string, { until: number }>;
    kept[tableId]!.until = Date.now() - 1;
    localStorage.setItem("thousand.finished-tokens.v1", JSON.stringify(kept));
  }, carlSeat!.tableId);
  await c.page.reload();
  await c.page.locator('[data-testid="standings"]').waitFor({ timeout: 30000 });
  await dismissSummary(c.page);
  const panel = c.page.locator('[data-testid="rematch"][data-state="too-late"]');
  await panel.waitFor({ timeout: 15000 });
  assert.match(await panel.innerText(), /Too late for a rematch from this page: it could ask for one within 15 minutes of the game's end\./);
  assert.equal(await c.page.locator('[data-testid="rematch-accept"]').count(), 0, "no Rematch button that cannot work");
  assert.equal((await keptToken(c.page, carlSeat!)).anywhere, false, "the expired token is gone from storage");
  assert.equal((await viewerOf(c.page)).mine.length, 1, "still Carl's seat");
  await look(c.page, "rematch-too-late", '[data-testid="rematch"]');
  await c.page.selectOption('[data-testid="language"]', "ru");
  await c.page.locator('[data-testid="rematch"][data-state="too-late"]', { hasText: "Просить реванш с этой страницы уже поздно: это можно было сделать в течение 15 минут после конца партии." }).waitFor({ timeout: 15000 });
  assert.deepEqual(pageErrors(c.page), []);
  await c.context.close();
});

/** Whether the last round's summary box is on the page (once the page has settled). */
async function summaryShown(page: Page): Promise<boolean> {
  await page.waitForTimeout(300);
  return (await page.locator('[data-testid="round-summary"]').count()) > 0;
}

test("a page opened or reloaded after the game's end shows the final standings; the last round's summary opens from them", { timeout: 300000 }, async () => {
  const [annSeat] = await finishedTable([{ name: "Ann" }, { name: "Bob" }], false, 37);
  // A spectator opening the finished table: the standings, not the round's box over them.
  const watcher = await visitor();
  await watcher.page.goto(`${BASE_URL}/#/table/${annSeat!.tableId}`);
  await watcher.page.locator('[data-testid="standings"]').waitFor({ timeout: 30000 });
  assert.equal(await summaryShown(watcher.page), false, "a spectator's page opened on the last round's summary");
  // The summary is a click away, and put away again to the standings.
  await watcher.page.locator('[data-testid="last-summary"]').click();
  await watcher.page.locator('[data-testid="round-summary"]').waitFor({ timeout: 5000 });
  await look(watcher.page, "finished-last-summary", '[data-testid="round-summary"]');
  await watcher.page.locator('[data-testid="next-round"]').click();
  assert.equal(await summaryShown(watcher.page), false, "the summary was put away");
  await look(watcher.page, "finished-opened-standings", '[data-testid="standings"]');
  // The seat's own page: opened after the end, then reloaded with the summary open (saved so in its state).
  const ann = await visitor();
  await ann.page.evaluate((record) => {
    localStorage.setItem("thousand.seats.v1", JSON.stringify({ [record.tableId]: record }));
  }, { tableId: annSeat!.tableId, seat: annSeat!.seat, token: annSeat!.token, name: "Ann" });
  await ann.page.goto(`${BASE_URL}/#/table/${annSeat!.tableId}`);
  await ann.page.locator('[data-testid="standings"]').waitFor({ timeout: 30000 });
  assert.equal(await summaryShown(ann.page), false, "the seat's page opened on the last round's summary");
  await ann.page.locator('[data-testid="last-summary"]').click();
  assert.equal(await summaryShown(ann.page), true, "the last round's summary opens");
  await ann.page.reload();
  await ann.page.locator('[data-testid="standings"]').waitFor({ timeout: 30000 });
  assert.equal(await summaryShown(ann.page), false, "the reloaded page opened on the last round's summary");
  assert.deepEqual([...pageErrors(watcher.page), ...pageErrors(ann.page)], []);
  await watcher.context.close();
  await ann.context.close();
});
