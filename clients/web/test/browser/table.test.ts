// The table as a player meets it, at two laptop sizes and a phone: whole seeded games of both games clicked
// through, with every actionable element checked against the window at every decision (nothing to act on
// below the fold, nothing wider than the screen); the finished trick shown a moment and then taken; a click
// on a card that cannot be played answered in words; no "add" offered before opening; a spectator joining
// mid-deal sees the deal, not the last one's summary; the lobby's clock; the favicon. Screenshots of each
// phase go to artifacts/web/ (window-sized: what the player sees).
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { create } from "@bufbuild/protobuf";
import type { Browser, Page } from "playwright-core";
import { BlagogoCardSchema } from "../../src/gen/thousand/v1/blagogo_cards_pb";
import { BlagogoMeldSchema } from "../../src/gen/thousand/v1/blagogo_events_pb";
import { GameKind, RulesSchema, SeatKind } from "../../src/gen/thousand/v1/table_service_pb";
import { randomToken, tableClient } from "../../src/api";
import { additionReadings } from "../../src/blagogo/compose";
import { TableSession } from "../../src/session";
import { ThousandModel } from "../../src/thousand/model";
import { nodes, play, rng, shortThousandTable, thousandTable, until } from "../logic/harness";
import {
  BASE_URL,
  LAPTOP,
  PHONE,
  WIDE,
  assertOnScreen,
  clickFirst,
  joinFromLobby,
  launch,
  openSized,
  pageErrors,
  setName,
  settled,
  trickStats,
  watchTricks,
} from "./browser";
import { mkdirSync } from "node:fs";
import { join } from "node:path";

const ARTIFACTS = process.env["ARTIFACTS"] ?? join(process.cwd(), "artifacts");

let browser: Browser;
before(async () => {
  browser = await launch();
});
after(async () => {
  await browser?.close();
});

/** What the player sees: the window, not the whole page. */
async function shot(page: Page, name: string): Promise<void> {
  mkdirSync(ARTIFACTS, { recursive: true });
  await page.screenshot({ path: join(ARTIFACTS, `${name}.png`) });
}

/** The whole games' trick hold (a player's setting; the default, 1.1 s, has a test of its own): short, so
 * that three whole games stay quick, yet long enough to be seen in the page. */
const HOLD_MS = 80;

const SIZES = [
  { name: "laptop", size: LAPTOP },
  { name: "wide", size: WIDE },
  { name: "phone", size: PHONE },
];

const THOUSAND_MOVES = [
  '[data-testid="next-deal"]',
  '[data-action="pick-0"]',
  ".hand button.card.playable",
  '[data-action^="passBid"]',
  '[data-action="contract"]',
  ".actions button.action",
];

for (const { name, size } of SIZES)
  test(`Thousand at ${size.width}x${size.height}: ${name === "laptop" ? "a whole game" : "four deals"}, every choice on screen, tricks shown then taken`, { timeout: 300000 }, async () => {
    const tableId = await shortThousandTable();
    const { page } = await openSized(browser, size);
    await joinFromLobby(page, tableId, "Ann", HOLD_MS);
    await page.locator(".board.thousand").waitFor({ timeout: 15000 });
    await watchTricks(page);
    const shots = new Set<string>();
    const once = async (what: string, when: boolean): Promise<void> => {
      if (!when || shots.has(what)) return;
      shots.add(what);
      await shot(page, `thousand-${name}-${what}`);
    };
    let decisions = 0;
    let summaries = 0;
    let explained = "";
    const deadline = Date.now() + 280000;
    for (;;) {
      assert.ok(Date.now() < deadline, `not done in time after ${decisions} decisions`);
      // One look at the page a turn of the loop (each look is a round trip to the browser).
      const look = await page.evaluate(() => ({
        over: !!document.querySelector('[data-testid="standings"]'),
        mine: !!(window as any).thousandSession?.isMyTurn(), // eslint-disable-line
        summary: !!document.querySelector('[data-testid="next-deal"]'),
        played: document.querySelectorAll(".trick:not(.taking) .played").length,
        taking: !!document.querySelector(".trick.taking"),
        unplayable: document.querySelectorAll(".hand button.card.unplayable").length,
        playable: document.querySelectorAll(".hand button.card.playable").length,
      }));
      if (look.over && !look.summary) break;
      // Four deals at the other sizes keep the suite's time down: the wide screen's layout is the laptop's, and
      // the same seeded game is played whole on a phone to its final standings, on screen, in
      // languages.test.ts (in Russian and Polish, whose longer words overflow first).
      if (name !== "laptop" && summaries >= 4) break;
      await once("mid-trick", look.played >= 2);
      await once("trick-taken", look.taking);
      if (!look.mine && !look.summary) {
        await page.waitForTimeout(15);
        continue;
      }
      await settled(page);
      await assertOnScreen(page, `decision ${decisions}`);
      await once("summary", look.summary);
      if (!explained && look.mine && look.playable && look.unplayable) {
        // A click on a card that cannot be played says why, in words.
        // aria-disabled: playwright would wait for it to be "enabled"; a person just clicks it.
        await page.locator(".hand button.card.unplayable").first().click({ force: true });
        const note = page.locator('[data-testid="note"]');
        await note.waitFor({ timeout: 5000 });
        explained = await note.innerText();
        assert.match(explained, /cannot be played now: you must (follow|play a trump|beat)/);
        assert.doesNotMatch(explained, /[A-Z]{3,}_|T-\d/);
        await once("refused-click", true);
      }
      const clicked = await clickFirst(page, THOUSAND_MOVES);
      if (clicked === THOUSAND_MOVES[0]) summaries += 1;
      if (clicked) decisions += 1;
      else await page.waitForTimeout(15);
    }
    await shot(page, `thousand-${name}-final`);
    const tricks = await trickStats(page);
    // Each trick was on the table whole, its last card included, for the player's setting (HOLD_MS here).
    const taken = await page.evaluate(() => (window as any).thousandSession.log.filter((l: { text: string }) => /^Trick \d+ to /.test(l.text)).length); // eslint-disable-line
    assert.ok(tricks.full >= 15 && tricks.full >= taken * 0.9, `${tricks.full} whole tricks shown of the last ${taken} taken`);
    const median = medianOf(tricks.spans);
    assert.ok(median >= HOLD_MS * 0.6 && median <= 1000, `a taken trick stayed ${median.toFixed(0)} ms`);
    // The whole game (laptop) always holds a turn that must follow suit with other cards in hand; four deals
    // at the other sizes sometimes hold none (the bots' game differs between runs), so there it is tried when
    // it comes and not required.
    assert.ok(explained || name !== "laptop", "no refused click was tried");
    console.log(`# Thousand ${name}: ${decisions} decisions on screen; ${tricks.spans.length} tricks held a median ${median.toFixed(0)} ms`);
    assert.deepEqual(pageErrors(page), []);
    await page.close();
  });

function medianOf(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] ?? 0;
}

test("a finished trick stays about a second (the default), then goes to its winner; the hand waits for it", { timeout: 120000 }, async () => {
  const tableId = await shortThousandTable();
  const { page } = await openSized(browser, LAPTOP);
  await joinFromLobby(page, tableId, "Hal", 1100);
  await page.locator(".board.thousand").waitFor({ timeout: 15000 });
  await watchTricks(page);
  const deadline = Date.now() + 100000;
  let tookShot = false;
  while ((await trickStats(page)).spans.length < 5) {
    assert.ok(Date.now() < deadline, "five tricks were not taken in time");
    if (!tookShot && (await page.locator(".trick.taking").count())) {
      await shot(page, "thousand-laptop-trick-taken-default");
      assert.match(await page.locator(".trick.taking .caption").innerText(), /takes the trick/);
      // While it is on show the hand waits: no card can be played into the next trick yet.
      assert.equal(await page.locator(".hand button.card.playable:enabled").count(), 0, "the hand did not wait for the trick");
      tookShot = true;
    }
    if (!(await clickFirst(page, THOUSAND_MOVES))) await page.waitForTimeout(15);
  }
  const median = medianOf((await trickStats(page)).spans);
  assert.ok(median >= 900 && median <= 2500, `a taken trick stayed ${median.toFixed(0)} ms`);
  assert.deepEqual(pageErrors(page), []);
  await page.close();
});

type PlainCard = { rank: number; suit: number; copy: number; joker: boolean };

for (const { name, size } of SIZES)
  test(`1000 Blagogo at ${size.width}x${size.height}: a whole game, every choice on screen, no addition before opening`, { timeout: 300000 }, async () => {
    const c = tableClient(BASE_URL);
    const { table } = await c.createTable({
      game: GameKind.BLAGOGO,
      seed: 11n,
      practice: true,
      firstDealer: 1,
      rules: create(RulesSchema, { game: { case: "blagogo", value: { players: 2, target: 200, turnoverLimit: 1 } } }),
      seats: [{ kind: SeatKind.OPEN }, { kind: SeatKind.BOT, strategy: "heuristic" }],
      requestId: randomToken(12),
    });
    const { page } = await openSized(browser, size);
    await joinFromLobby(page, table!.tableId, "Bea");
    await page.locator(".board.blagogo").waitFor({ timeout: 15000 });
    let decisions = 0;
    let checkedNoAdd = 0;
    const shots = new Set<string>();
    const deadline = Date.now() + 280000;
    for (;;) {
      assert.ok(Date.now() < deadline, `not done in time after ${decisions} decisions`);
      const over = (await page.locator('[data-testid="standings"]').count()) > 0;
      if (over && (await page.locator('[data-testid="next-round"]').count()) === 0) break;
      const s = await page.evaluate(() => {
        const session = (window as any).thousandSession; // eslint-disable-line
        const v = session.model.view;
        const plain = (c: PlainCard): PlainCard => ({ rank: c.rank, suit: c.suit, copy: c.copy, joker: c.joker });
        return {
          mine: session.isMyTurn() as boolean,
          phase: v.phase as number,
          opened: !!v.opened[session.seat],
          hand: v.hand.map(plain) as PlainCard[],
          melds: v.melds.map((m: any) => ({ id: m.id, kind: m.kind, rank: m.rank, suit: m.suit, closed: m.closed, cards: m.cards.map(plain), jokers: m.jokers })) as { id: number; kind: number; rank: number; suit: number; closed: boolean; cards: PlainCard[] }[], // eslint-disable-line
          summary: !!document.querySelector('[data-testid="next-round"]'),
        };
      });
      if (!s.mine && !s.summary) {
        await page.waitForTimeout(15);
        continue;
      }
      await settled(page);
      await assertOnScreen(page, `decision ${decisions}`);
      if (s.summary) {
        if (!shots.has("summary")) {
          shots.add("summary");
          await shot(page, `blagogo-${name}-summary`);
        }
        await clickFirst(page, ['[data-testid="next-round"]']);
        continue;
      }
      if (s.phase === 1) {
        if (await clickFirst(page, ['[data-action="draw"]'])) decisions += 1;
        continue;
      }
      if (!s.opened && s.melds.length) {
        // A card that would fit a meld on the table: before opening, no "add" is offered for it (B-12).
        const fit = s.hand.findIndex((h) =>
          s.melds.some((m) => additionReadings(create(BlagogoMeldSchema, { ...m, jokers: [], cards: m.cards.map((x) => create(BlagogoCardSchema, x)) }), [create(BlagogoCardSchema, h)]).length > 0),
        );
        if (fit >= 0 && s.hand.length > 1) {
          await page.locator(".hand button.card").nth(fit).click();
          await settled(page);
          assert.equal(await page.locator('.meld button.action[data-action^="add-"]').count(), 0, "an addition offered before opening");
          await assertOnScreen(page, `decision ${decisions}, a card selected`);
          checkedNoAdd += 1;
          if (!shots.has("selected")) {
            shots.add("selected");
            await shot(page, `blagogo-${name}-selected`);
          }
          await page.locator(".hand button.card").nth(fit).click();
          await settled(page);
        }
      }
      if (s.melds.length >= 2 && !shots.has("melds")) {
        shots.add("melds");
        await shot(page, `blagogo-${name}-melds`);
      }
      // Lay what the page proposes (an opening, more melds), else discard the first card.
      if (await clickFirst(page, ['[data-action^="propose-"]'])) {
        decisions += 1;
        await page.waitForFunction(() => !(window as any).thousandSession.pending); // eslint-disable-line
        continue;
      }
      await page.locator(".hand button.card").first().click();
      await settled(page);
      if (await clickFirst(page, ['[data-action="discard"]'])) decisions += 1;
      await page.waitForFunction(() => !(window as any).thousandSession.pending); // eslint-disable-line
    }
    await shot(page, `blagogo-${name}-final`);
    assert.ok(checkedNoAdd > 0, "never held a card that fits a meld before opening");
    console.log(`# 1000 Blagogo ${name}: ${decisions} decisions on screen; ${checkedNoAdd} selections checked for no addition before opening`);
    assert.deepEqual(pageErrors(page), []);
    await page.close();
  });

test("a spectator joining mid-deal sees the deal in play, not the last deal's summary", { timeout: 120000 }, async () => {
  const c = tableClient(BASE_URL);
  const seated = await thousandTable(c, 21n);
  const player = new TableSession(nodes(), seated.tableId, { seat: seated.seat, token: seated.token, watchdogMs: 0 });
  await player.start();
  const model = (): ThousandModel => player.model as ThousandModel;
  // The seat plays (from Node) until the second deal is under way.
  await play(player, rng(3), () => (model().view?.dealNumber ?? 0) >= 2, 60000);
  await until(player, () => (model().view?.dealNumber ?? 0) >= 2);
  const { page } = await openSized(browser, LAPTOP);
  await page.goto(`${BASE_URL}/#/table/${seated.tableId}`);
  await page.locator(".board.thousand").waitFor({ timeout: 15000 });
  await page.waitForFunction(() => (window as any).thousandSession?.model?.view?.dealNumber >= 2); // eslint-disable-line
  await settled(page);
  assert.equal(await page.locator('[data-testid="deal-summary"]').count(), 0, "the previous deal's summary was shown");
  assert.ok((await page.locator(".sheet tbody tr").count()) >= 1, "the sheet still has the deal");
  player.stop();
  assert.deepEqual(pageErrors(page), []);
  await page.close();
});

test("the lobby: no clock shown for a table without one; Join and Watch on a phone's screen; the favicon", { timeout: 60000 }, async () => {
  const c = tableClient(BASE_URL);
  const { table } = await c.createTable({
    game: GameKind.BLAGOGO,
    seats: [{ kind: SeatKind.OPEN }, { kind: SeatKind.OPEN }, { kind: SeatKind.BOT, strategy: "heuristic" }],
    timeControl: { perMove: { seconds: 0n }, botPace: { seconds: 1n } },
    requestId: randomToken(12),
  });
  const tableId = table!.tableId;
  const { page } = await openSized(browser, PHONE);
  await setName(page, "Lou");
  const row = page.locator(`tr[data-table="${tableId}"]`);
  await row.waitFor({ timeout: 15000 });
  assert.doesNotMatch(await row.innerText(), /clock/, "a table without a turn clock shows none");
  for (const selector of [`[data-testid="join-${tableId}"]`, `[data-testid="watch-${tableId}"]`]) {
    // Where it is with nothing scrolled sideways (a person does not look for buttons to the right).
    const box = await page.locator(selector).first().evaluate((el) => {
      const r = el.getBoundingClientRect();
      return { left: r.left, right: r.right };
    });
    assert.ok(box.left >= 0 && box.right <= PHONE.width, `${selector} is off the screen at x ${box.left}-${box.right}`);
  }
  assert.ok((await page.evaluate(() => document.documentElement.scrollWidth)) <= PHONE.width + 1, "the lobby is wider than the phone");
  await shot(page, "lobby-phone");
  const icon = await page.request.get(`${BASE_URL}/favicon.ico`);
  assert.equal(icon.status(), 200);
  assert.match(icon.headers()["content-type"] ?? "", /icon|image/);
  assert.deepEqual(pageErrors(page), []);
  await page.close();
});
