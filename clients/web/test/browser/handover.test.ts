// An operator hands a seat to the server's bot (AdminService.HandSeatToBot, issue 25), and the table says so
// to its players, in their language, from the event's fields (SeatTakenOver's reason, Seat.takeover_reason):
// the player whose seat it was is told it is no longer theirs (no error, no reconnecting with a dead token)
// and may watch on; the other player (here reading Russian) reads whose seat the bot now plays. Run by
// tests/test_web_handover.py, which starts a server with an operator token and makes the handover once this
// test says the pages are open (the file HANDOVER_READY). Screenshots at 1280x800 and 390x844.
import assert from "node:assert/strict";
import { writeFileSync } from "node:fs";
import { after, before, test } from "node:test";
import type { Browser, BrowserContext, Page } from "playwright-core";
import { randomToken } from "../../src/api";
import { GameKind, SeatKind, TakeoverReason } from "../../src/gen/thousand/v1/table_service_pb";
import { client } from "../logic/harness";
import { BASE_URL, launch, openSized, pageErrors, PHONE, screenshot, state } from "./browser";

const READY = process.env["HANDOVER_READY"] ?? "";
assert.ok(READY, "tests/test_web_handover.py sets HANDOVER_READY");
const LAPTOP = { width: 1280, height: 800 };

let browser: Browser;
before(async () => {
  browser = await launch();
});
after(async () => {
  await browser?.close();
});

/** A browser (in `lang`) holding a seat as the page that joined it would, opened at its table. */
async function holding(tableId: string, seat: number, token: string, name: string, lang: string): Promise<{ context: BrowserContext; page: Page }> {
  const opened = await openSized(browser, LAPTOP);
  const { page } = opened;
  await page.goto(`${BASE_URL}/#/`);
  await page.locator('[data-testid="player-kind"]').waitFor({ timeout: 15000 });
  await page.evaluate(([record, language]) => {
    const all = JSON.parse(localStorage.getItem("thousand.seats.v1") ?? "{}") as Record<string, unknown>;
    all[(record as { tableId: string }).tableId] = record;
    localStorage.setItem("thousand.seats.v1", JSON.stringify(all));
    localStorage.setItem("thousand.lang.v1", language as string);
  }, [{ tableId, seat, token, name }, lang] as const);
  await page.goto(`${BASE_URL}/#/table/${tableId}`);
  await page.reload(); // the language chosen is loaded before the first page
  await page.locator(".board.thousand").waitFor({ timeout: 30000 });
  return opened;
}

async function look(page: Page, name: string): Promise<void> {
  for (const [size, viewport] of [["laptop", LAPTOP], ["phone", PHONE]] as const) {
    await page.setViewportSize(viewport);
    await page.waitForTimeout(200);
    const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
    assert.ok(overflow <= 1, `${name} at ${size} size is ${overflow}px wider than the screen`);
    assert.ok(await page.locator('[data-testid="handover"]').isVisible(), `the handover is in view at ${size} size`);
    await screenshot(page, `${name}-${size}`);
  }
  await page.setViewportSize(LAPTOP);
}

test("a seat handed to the server's bot by an operator is said to its player and to the others, in their language", { timeout: 240000 }, async () => {
  const c = client();
  const { table } = await c.createTable({
    game: GameKind.THOUSAND,
    seats: [{ kind: SeatKind.OPEN }, { kind: SeatKind.OPEN }, { kind: SeatKind.BOT, strategy: "greedy" }],
    requestId: randomToken(12),
  });
  const tableId = table!.tableId;
  const ann = await c.joinTable({ tableId, playerName: "Ann", seatToken: randomToken(32) });
  const bob = await c.joinTable({ tableId, playerName: "Bob", seatToken: randomToken(32) });
  const a = await holding(tableId, ann.seat, ann.seatToken, "Ann", "en");
  const b = await holding(tableId, bob.seat, bob.seatToken, "Bob", "ru");
  assert.equal(await a.page.locator('[data-testid="handover"]').count(), 0, "nothing handed over yet");
  writeFileSync(READY, JSON.stringify({ tableId, seat: ann.seat }));

  // Ann's page: her seat is the bot's now, said once, in words; the page does not try her dead token again.
  const mine = a.page.locator('[data-testid="handover-you"]');
  await mine.waitFor({ timeout: 60000 });
  assert.equal(
    await mine.innerText(),
    "An operator handed your seat to the server's bot for the rest of the game: it is no longer yours. You can go on watching the table.",
  );
  assert.match(await a.page.locator(".table-header").innerText(), /Your seat is the bot's now/);
  await a.page.waitForTimeout(2000);
  const after = await state(a.page);
  assert.equal(after.status, "ended", "the seat's stream is not reopened with a token that works no more");
  assert.equal(await a.page.locator('[data-key="forget"], .conn.failed').count(), 0, "no failure shown");
  assert.deepEqual(after.legal, [], "nothing to play: the seat is the bot's");
  assert.equal(await a.page.locator('[data-testid="your-turn"], .actions button:not([disabled]), [data-key="leave"]').count(), 0, "no turn, no move, no leaving");
  await look(a.page, "handover-own-seat");

  // Bob's page, in Russian: whose seat the bot plays, from the event's reason, in the log too.
  const told = b.page.locator(`[data-testid="handover"] [data-seat="${ann.seat}"]`);
  await told.waitFor({ timeout: 30000 });
  assert.equal(await told.innerText(), "Ann: оператор передал место боту сервера, бот доигрывает до конца");
  assert.ok((await b.page.locator(".log li").allInnerTexts()).some((l) => l.includes("оператор передал место боту сервера")));
  assert.equal((await state(b.page)).seat, bob.seat, "Bob still plays his seat");
  await look(b.page, "handover-other-seat-ru");

  // Ann watches on: the page opens as a spectator's, the handover still said (Seat.takeover_reason).
  await a.page.locator('[data-testid="handover-watch"]').click();
  await a.page.locator(".table-header", { hasText: "Watching as a spectator" }).waitFor({ timeout: 15000 });
  await a.page.locator(`[data-testid="handover"] [data-seat="${ann.seat}"]`).waitFor({ timeout: 15000 });
  assert.equal(await a.page.locator(`[data-testid="handover"] [data-seat="${ann.seat}"]`).innerText(), "Ann was handed to the server's bot by an operator: the bot plays it to the end");
  const { table: now } = await c.getTable({ tableId });
  assert.equal(now?.seats[ann.seat]?.takeoverReason, TakeoverReason.OPERATOR_HANDOVER);
  await look(a.page, "handover-watching");
  assert.deepEqual([...pageErrors(a.page), ...pageErrors(b.page)], []);
  await a.context.close();
  await b.context.close();
});
