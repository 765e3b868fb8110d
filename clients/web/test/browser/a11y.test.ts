// Accessibility: axe-core (npm axe-core, the maintained rules engine) run in Chromium on the lobby (with its
// player bar), "My games", an invite to a private table, a Thousand table in play, a 1000 Blagogo table and a
// finished game's replay, at a laptop's size and a phone's. No
// serious or critical violation is allowed; lesser ones are printed.
import assert from "node:assert/strict";
import { createRequire } from "node:module";
import { after, before, test } from "node:test";
import type { Browser, Page } from "playwright-core";
import { GameKind, SeatKind, TableStatus } from "../../src/gen/thousand/v1/table_service_pb";
import { randomToken, tableClient } from "../../src/api";
import { newInviteCode } from "../../src/players/invite";
import { BASE_URL, LAPTOP, PHONE, atRest, clickFirst, joinFromLobby, launch, openSized, pageErrors, setName } from "./browser";

const AXE = createRequire(import.meta.url).resolve("axe-core/axe.min.js");

let browser: Browser;
before(async () => {
  browser = await launch();
});
after(async () => {
  await browser?.close();
});

interface Violation {
  id: string;
  impact: string | null;
  help: string;
  nodes: { target: string[]; summary?: string }[];
}

async function axe(page: Page, where: string): Promise<void> {
  // Colours are judged still: a bot's card landing while axe runs was measured half faded in (4.48:1).
  await page.emulateMedia({ reducedMotion: "reduce" });
  await atRest(page);
  await page.addScriptTag({ path: AXE });
  const violations = await page.evaluate(async () => {
    const run = (window as unknown as { axe: { run: (context: Document, options: object) => Promise<{ violations: Violation[] }> } }).axe.run;
    const result = await run(document, { resultTypes: ["violations"] });
    return result.violations.map((v) => ({ id: v.id, impact: v.impact, help: v.help, nodes: v.nodes.slice(0, 3).map((n) => ({ target: n.target, summary: (n as unknown as { failureSummary?: string }).failureSummary ?? "" })) }));
  });
  const grave = violations.filter((v) => v.impact === "serious" || v.impact === "critical");
  for (const v of violations)
    console.log(`# axe ${where}: ${v.impact} ${v.id} (${v.help}) at ${v.nodes.map((n) => `${n.target.join(" ")}${n.summary ? ` [${n.summary.replace(/\s+/g, " ").slice(0, 160)}]` : ""}`).join(", ")}`);
  assert.deepEqual(grave.map((v) => `${v.id}: ${v.help} at ${v.nodes.map((n) => n.target.join(" ")).join(", ")}`), [], `${where}: serious or critical violations`);
}

for (const [name, size] of [["laptop", LAPTOP], ["phone", PHONE]] as const)
  test(`axe-core at ${name} size: the lobby, both tables and a replay have no serious or critical violation`, { timeout: 180000 }, async () => {
    const c = tableClient(BASE_URL);
    const { page } = await openSized(browser, size);
    await setName(page, "Ada");
    await page.locator(".table-list").waitFor();
    await axe(page, `${name} lobby`);
    await page.goto(`${BASE_URL}/#/games`);
    await page.locator('[data-testid="no-games"]').waitFor({ timeout: 15000 });
    await axe(page, `${name} my games`);
    const code = newInviteCode();
    const hidden = await c.createTable({ game: GameKind.THOUSAND, unlisted: true, inviteCode: code, seats: [1, 2, 3].map(() => ({ kind: SeatKind.OPEN })), requestId: randomToken(12) });
    await page.goto(`${BASE_URL}/#/invite/${hidden.table!.tableId}/${code}`);
    await page.locator('[data-testid="invited"]').waitFor({ timeout: 15000 });
    await axe(page, `${name} invite`);

    const thousand = await c.createTable({
      game: GameKind.THOUSAND,
      seed: 7n,
      practice: true,
      seats: [{ kind: SeatKind.OPEN }, { kind: SeatKind.BOT, strategy: "greedy" }, { kind: SeatKind.BOT, strategy: "greedy" }],
      requestId: randomToken(12),
    });
    await joinFromLobby(page, thousand.table!.tableId, "Ada", 2000);
    await page.locator(".board.thousand").waitFor({ timeout: 15000 });
    // Into the play: click until a card is on the table.
    const deadline = Date.now() + 60000;
    while (!(await page.locator(".trick .played").count())) {
      assert.ok(Date.now() < deadline, "no trick started");
      if (!(await clickFirst(page, ['[data-action="pick-0"]', ".hand button.card.playable", '[data-action^="passBid"]', '[data-action="contract"]', ".actions button.action"])))
        await page.waitForTimeout(20);
    }
    await axe(page, `${name} Thousand table`);

    const blagogo = await c.createTable({
      game: GameKind.BLAGOGO,
      seed: 3n,
      practice: true,
      firstDealer: 1,
      seats: [{ kind: SeatKind.OPEN }, { kind: SeatKind.BOT, strategy: "heuristic" }, { kind: SeatKind.BOT, strategy: "heuristic" }],
      requestId: randomToken(12),
    });
    await joinFromLobby(page, blagogo.table!.tableId, "Ada");
    await page.locator(".board.blagogo .hand button.card").first().waitFor({ timeout: 15000 });
    await axe(page, `${name} 1000 Blagogo table`);

    const done = await c.createTable({
      game: GameKind.THOUSAND,
      seed: 9n,
      seats: ["greedy", "greedy", "random"].map((strategy) => ({ kind: SeatKind.BOT, strategy })),
      requestId: randomToken(12),
    });
    const tableId = done.table!.tableId;
    for (let i = 0; i < 300 && (await c.getTable({ tableId })).table?.status !== TableStatus.FINISHED; i++) await new Promise((r) => setTimeout(r, 100));
    await page.goto(`${BASE_URL}/#/replay/${tableId}`);
    await page.locator('[data-testid="replay-position"]').waitFor({ timeout: 15000 });
    await page.locator('[data-testid="replay-next-deal"]').click();
    await axe(page, `${name} replay`);
    assert.deepEqual(pageErrors(page), []);
    await page.close();
  });
