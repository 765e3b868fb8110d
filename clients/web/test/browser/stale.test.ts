// A click that races the table: a player has the table open in two tabs (one seat: the browser's stored
// token), the second tab's stream has stalled without a word, the seat plays in the first, and the player then
// clicks the same move in the second, on a view the table has left behind. The server refuses it as late
// (STALE_SEQUENCE), which is no error of the player's: the second tab shows no error at any moment and, at
// once rather than at its watchdog's next checks, shows the table as it is, the same as the first tab.
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import type { Browser, Page, Route } from "playwright-core";
import { randomToken, tableClient } from "../../src/api";
import { GameKind, SeatKind } from "../../src/gen/thousand/v1/table_service_pb";
import { BASE_URL, joinFromLobby, launch, newPage, open, pageErrors, screenshot, settled } from "./browser";

let browser: Browser;
before(async () => {
  browser = await launch();
});
after(async () => {
  await browser?.close();
});

/** What a seat's tab shows and follows, as plain data. */
interface Seen {
  lastSeen: string;
  turnSequence: string;
  mine: boolean;
  status: string;
  overtakenBy: string[];
  hand: string[];
  trick: string;
}

async function seen(page: Page): Promise<Seen> {
  return page.evaluate(() => {
    const s = (window as any).thousandSession; // eslint-disable-line
    return {
      lastSeen: String(s.lastSeen),
      turnSequence: String(s.turnSequence),
      mine: s.isMyTurn() as boolean,
      status: s.status.state as string,
      overtakenBy: [...(s.overtakenBy as string[])],
      hand: [...document.querySelectorAll<HTMLElement>(".hand button.card")].map((b) => b.dataset["key"] ?? ""),
      trick: document.querySelector<HTMLElement>('[data-testid="trick"]')?.innerText ?? "",
    };
  });
}

/** Every error the page shows, at any moment: a refusal, or anything in an alert role. */
const RECORD_ALERTS = `
  window.alertsShown = [];
  new MutationObserver(() => {
    for (const el of document.querySelectorAll('[role="alert"], [data-testid="refusal"]'))
      if (!window.alertsShown.includes(el.textContent)) window.alertsShown.push(el.textContent);
  }).observe(document, { subtree: true, childList: true, characterData: true });
`;

test("a click on a view the table has left behind shows no error, and the page shows the table as it is", { timeout: 120000 }, async () => {
  const { table } = await tableClient(BASE_URL).createTable({
    game: GameKind.THOUSAND,
    seed: 9n,
    practice: true,
    firstDealer: 0,
    seats: [{ kind: SeatKind.OPEN }, { kind: SeatKind.BOT, strategy: "greedy" }, { kind: SeatKind.BOT, strategy: "greedy" }],
    requestId: randomToken(12),
  });
  const tableId = table!.tableId;
  const { context, page: first } = await open(browser);
  await joinFromLobby(first, tableId, "Lee");
  await first.waitForFunction(() => (window as any).thousandSession?.isMyTurn()); // eslint-disable-line

  const second = await newPage(context);
  await second.addInitScript(RECORD_ALERTS);
  await second.goto(`${BASE_URL}/#/table/${tableId}`);
  const decidedOn = (await seen(first)).turnSequence;
  await second.waitForFunction((s) => (window as any).thousandSession?.isMyTurn() && String((window as any).thousandSession.turnSequence) === s, decidedOn); // eslint-disable-line
  assert.equal((await seen(second)).status, "live");

  // The second tab's stream stalls: its connection is lost and the next one opened hangs, unanswered.
  let stalled: Route | undefined;
  await second.route("**/thousand.v1.TableService/StreamEvents", async (route) => {
    if (stalled === undefined) stalled = route; // left unanswered
    else await route.continue();
  });
  await second.evaluate(() => (window as any).thousandSession.reconnect()); // eslint-disable-line
  for (const deadline = Date.now() + 10000; stalled === undefined; await second.waitForTimeout(20))
    assert.ok(Date.now() < deadline, "the second tab did not open its stream again");

  // The seat plays in the first tab; the table moves on.
  const move = await first.evaluate(() => {
    const choices = document.querySelectorAll<HTMLButtonElement>('[data-action^="passBid"], .hand button.card.playable, .actions button.action');
    return [...choices].find((b) => !b.disabled)?.dataset["key"];
  });
  assert.ok(move, "the seat's Turn offers a move");
  await first.locator(`[data-key="${move}"]`).click();
  await first.waitForFunction((s) => BigInt((window as any).thousandSession.lastSeen) > BigInt(s), decidedOn); // eslint-disable-line
  const stale = await seen(second);
  assert.equal(stale.turnSequence, decidedOn, "the second tab still shows the Turn the move was made on");
  assert.ok(stale.mine, "and offers it");

  // The player clicks the same move in the second tab: refused as late, shown as nothing.
  const clickedAt = Date.now();
  await second.locator(`[data-key="${move}"]`).click();
  const answered = () => { const t = (window as any).thousandSession; return t.overtakenBy.length > 0 || t.refusal !== undefined; }; // eslint-disable-line
  await second.waitForFunction(answered, undefined, { timeout: 10000 });
  await settled(second);
  const refusal = await second.evaluate(() => (window as any).thousandSession.refusal); // eslint-disable-line
  assert.equal(refusal, undefined, `the late click was taken for the player's error: ${JSON.stringify(refusal)}`);
  assert.deepEqual((await seen(second)).overtakenBy, ["STALE_SEQUENCE"]);
  const { table: now } = await tableClient(BASE_URL).getTable({ tableId });
  await second
    .waitForFunction(
      (s) => { const t = (window as any).thousandSession; return t.status.state === "live" && BigInt(t.lastSeen) >= BigInt(s); }, // eslint-disable-line
      String(now!.sequence),
      { timeout: 5000 },
    )
    .catch(async () => assert.fail(`the second tab did not catch up with event ${now!.sequence} within 5 s: ${JSON.stringify(await seen(second))}`));
  const caughtUp = Date.now() - clickedAt;

  // Both tabs at the same point of the table show the same thing.
  const lastSeen = (await seen(first)).lastSeen;
  await second.waitForFunction((s) => String((window as any).thousandSession.lastSeen) === s, lastSeen, { timeout: 5000 }); // eslint-disable-line
  await first.waitForFunction((s) => String((window as any).thousandSession.lastSeen) === s, (await seen(second)).lastSeen, { timeout: 5000 }); // eslint-disable-line
  await settled(first);
  await settled(second);
  const [a, b] = [await seen(first), await seen(second)];
  await screenshot(second, "stale-click");
  console.log(`the late click: caught up in ${caughtUp} ms, from event ${decidedOn} to ${b.lastSeen}`);
  assert.deepEqual({ ...b, overtakenBy: [] }, { ...a, overtakenBy: [] }, "the second tab shows the table as the first does");
  assert.ok(Number(b.lastSeen) > Number(decidedOn));
  const alerts = await second.evaluate(() => (window as any).alertsShown as string[]); // eslint-disable-line
  assert.deepEqual(alerts, [], "no error was shown");
  assert.equal(await second.locator('[data-testid="refusal"]').count(), 0);
  assert.deepEqual(pageErrors(first), []);
  assert.deepEqual(pageErrors(second), []);
  await stalled.continue().catch(() => undefined); // the page dropped it long ago
  await context.close();
});
