// What the logic tests share: the server under test (THOUSAND_WEB_URL, its web port: started by
// tests/test_web_client.py), a client over the browser's own transport (connect-web on Node's fetch), and
// a loop that plays a seat through a TableSession with seeded random legal actions.
import assert from "node:assert/strict";
import { create } from "@bufbuild/protobuf";
import { tableClient, randomToken, type TableClient } from "../../src/api";
import { GameKind, RulesSchema, SeatKind, type Action } from "../../src/gen/thousand/v1/table_service_pb";
import { Nodes } from "../../src/route";
import { TableSession } from "../../src/session";

export const BASE_URL = process.env["THOUSAND_WEB_URL"] ?? "";
assert.ok(BASE_URL, "THOUSAND_WEB_URL must name the server's web port (tests/test_web_client.py sets it)");

export function client(): TableClient {
  return tableClient(BASE_URL);
}

/** The server as a page knows it (one node; in a cluster, the one the page came from). */
export function nodes(): Nodes {
  return new Nodes(BASE_URL);
}

/** A small seeded generator (mulberry32), so a failing game can be played again. */
export function rng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export interface Seated {
  tableId: string;
  seat: number;
  token: string;
}

/** A Thousand table with two bots, its open seat taken; seeded (a practice table) unless `seed` is undefined. */
export async function thousandTable(c: TableClient, seed: bigint | undefined, bots = ["greedy", "greedy"]): Promise<Seated> {
  const { table } = await c.createTable({
    game: GameKind.THOUSAND,
    seed,
    practice: seed !== undefined,
    firstDealer: 0,
    seats: [{ kind: SeatKind.OPEN }, ...bots.map((strategy) => ({ kind: SeatKind.BOT, strategy }))],
    requestId: randomToken(12),
  });
  return joinFirst(c, table!.tableId);
}

/** The short seeded Thousand game the browser tests click through (a whole game, or its first deals), its
 * table id: seed 5 on a practice table, the third seat dealing first, no barrel (the first to 1000 wins,
 * T-26, T-27: a shorter game), two greedy bots and the open seat left for the page to take from the lobby. */
export async function shortThousandTable(): Promise<string> {
  const { table } = await client().createTable({
    game: GameKind.THOUSAND,
    seed: 5n,
    practice: true,
    firstDealer: 2,
    rules: create(RulesSchema, { game: { case: "thousand", value: { barrelAt: 0 } } }),
    seats: [{ kind: SeatKind.OPEN }, { kind: SeatKind.BOT, strategy: "greedy" }, { kind: SeatKind.BOT, strategy: "greedy" }],
    requestId: randomToken(12),
  });
  return table!.tableId;
}

export async function blagogoTable(c: TableClient, seed: bigint, target = 150): Promise<Seated> {
  const { table } = await c.createTable({
    game: GameKind.BLAGOGO,
    seed,
    practice: true,
    firstDealer: 1,
    rules: create(RulesSchema, { game: { case: "blagogo", value: { players: 2, target, turnoverLimit: 1 } } }),
    seats: [{ kind: SeatKind.OPEN }, { kind: SeatKind.BOT, strategy: "random" }],
    requestId: randomToken(12),
  });
  return joinFirst(c, table!.tableId);
}

export async function joinFirst(c: TableClient, tableId: string): Promise<Seated> {
  const token = randomToken(32);
  const joined = await c.joinTable({ tableId, playerName: "tester", seatToken: token });
  return { tableId, seat: joined.seat, token: joined.seatToken };
}

export function until(session: TableSession, done: () => boolean, timeoutMs = 60000): Promise<void> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`timed out; status ${JSON.stringify(session.status)}`)), timeoutMs);
    const check = (): void => {
      if (done()) {
        clearTimeout(timer);
        resolve();
      }
    };
    session.onChange(check);
    check();
  });
}

/** Play the session's seat with random legal actions (Blagogo: the simple ones) until `stop` says so. */
export async function play(session: TableSession, random: () => number, stop: () => boolean, timeoutMs = 90000, pauseMs = 0): Promise<number> {
  let actions = 0;
  const deadline = Date.now() + timeoutMs;
  while (!stop()) {
    assert.ok(Date.now() < deadline, `the game did not end in time (${actions} actions; ${JSON.stringify(session.status)})`);
    if (session.status.state === "failed") assert.fail(`the stream failed: ${JSON.stringify(session.status)}`);
    const legal: Action[] = session.legalActions();
    if (legal.length === 0) {
      await new Promise((r) => setTimeout(r, 5));
      continue;
    }
    if (pauseMs) await new Promise((r) => setTimeout(r, pauseMs));
    if (stop()) break;
    const simple = legal.filter((a) => !(a.game.case === "blagogo" && a.game.value.action.case === "layMelds") || random() < 0.5);
    const pool = simple.length ? simple : legal;
    const refusal = await session.act(pool[Math.floor(random() * pool.length)]!);
    assert.equal(refusal, undefined, `a legal action was refused: ${JSON.stringify(refusal)}`);
    actions += 1;
  }
  return actions;
}

export function assertContiguous(applied: bigint[], from: bigint, to: bigint): void {
  assert.equal(applied.length, Number(to - from), `expected events ${from + 1n}..${to}, got ${applied.length}`);
  applied.forEach((s, i) => assert.equal(s, from + 1n + BigInt(i), `event ${i} is ${s}`));
}
