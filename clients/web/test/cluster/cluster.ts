// What the cluster's browser tests share (tests/test_web_cluster.py starts two real server processes, nodes a
// and b, on one PostgreSQL): the page comes from node a (THOUSAND_WEB_URL, its process THOUSAND_HOME_PID),
// the table is created on node b (THOUSAND_OWNER_WEB_URL, its process THOUSAND_OWNER_PID) or on a, and the
// page's session is read as plain data.
import assert from "node:assert/strict";
import type { Page } from "playwright-core";
import { randomToken, tableClient } from "../../src/api";
import { GameKind, SeatKind } from "../../src/gen/thousand/v1/table_service_pb";
import { Nodes, Route } from "../../src/route";

export const OWNER_URL = process.env["THOUSAND_OWNER_WEB_URL"] ?? "";
export const OWNER_PID = Number(process.env["THOUSAND_OWNER_PID"] ?? "0");
export const HOME_PID = Number(process.env["THOUSAND_HOME_PID"] ?? "0");
assert.ok(OWNER_URL && OWNER_PID > 0, "THOUSAND_OWNER_WEB_URL and THOUSAND_OWNER_PID name node b");

/** A seeded Thousand table with two greedy bots, created on node b (which keeps it: placement local). */
export async function tableOnTheOwner(seed: bigint): Promise<string> {
  return tableOn(OWNER_URL, seed);
}

/** A seeded Thousand table with two greedy bots, created on the node at `url`, which keeps it. */
export async function tableOn(url: string, seed: bigint): Promise<string> {
  const { table } = await tableClient(url).createTable({
    game: GameKind.THOUSAND,
    seed,
    practice: true,
    firstDealer: 0,
    seats: [{ kind: SeatKind.OPEN }, { kind: SeatKind.BOT, strategy: "greedy" }, { kind: SeatKind.BOT, strategy: "greedy" }],
    requestId: randomToken(12),
  });
  assert.ok(table);
  assert.equal(table.webEndpoint, new URL(url).host, `the table is ${url}'s`);
  return table.tableId;
}

/** Where the table is served, as node `url` says (GetTable on any node names the owner's web port). */
export async function ownerOf(url: string, tableId: string): Promise<string> {
  const route = new Route(new Nodes(url));
  const { table } = await route.call((c) => c.getTable({ tableId }));
  return table?.webEndpoint ?? "";
}

export interface Followed {
  origin: string;
  reconnects: number;
  applied: string[];
  lastSeen: string;
  trackerMisses: number;
  trackerChecks: number;
  status: string;
}

/** Where the page's session sends its table's calls, and what it applied. */
export async function followed(page: Page): Promise<Followed> {
  return page.evaluate(() => {
    const s = (window as any).thousandSession; // eslint-disable-line
    return {
      origin: s.route.origin as string,
      reconnects: s.reconnects as number,
      applied: (s.applied as bigint[]).map(String),
      lastSeen: String(s.lastSeen),
      trackerMisses: (s.trackerMisses as unknown[]).length,
      trackerChecks: s.trackerChecks as number,
      status: s.status.state as string,
    };
  });
}

/** From now on, keep each status the page's session goes through, with where its calls go
 * (`connecting @origin`, `retrying (why) @origin`, ...), and when it went live where. */
export async function recordStatuses(page: Page): Promise<void> {
  await page.evaluate(() => {
    const s = (window as any).thousandSession; // eslint-disable-line
    const seen: string[] = ((window as any).statuses = []); // eslint-disable-line
    const live: { at: number; origin: string }[] = ((window as any).liveAt = []); // eslint-disable-line
    s.onChange(() => {
      const now = `${s.status.state}${s.status.why ? ` (${s.status.why})` : ""} @${s.route.origin}`;
      if (seen[seen.length - 1] === now) return;
      seen.push(now);
      if (s.status.state === "live") live.push({ at: Date.now(), origin: s.route.origin });
    });
  });
}

/** What recordStatuses() kept: the statuses in order, and when the stream went live where. */
export async function statuses(page: Page): Promise<{ statuses: string[]; liveAt: { at: number; origin: string }[] }> {
  return page.evaluate(() => ({ statuses: (window as any).statuses, liveAt: (window as any).liveAt })); // eslint-disable-line
}

/** Every event from the first to the last seen applied once, in order: no gap, no repeat. */
export function assertEveryEventOnce(f: Followed): void {
  const applied = f.applied.map(Number);
  assert.ok(applied.length > 0);
  assert.deepEqual(applied, Array.from({ length: Number(f.lastSeen) }, (_, i) => i + 1));
}
