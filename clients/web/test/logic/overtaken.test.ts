// An action chosen on a view that was already out of date (another move came first: here the same seat's
// other tab) is refused as late, which is no error of the player's: the page shows nothing, closes the Turn it
// was chosen on and catches up with the table, even over a stream that stalled without a word. A refusal
// that is the player's to read (an illegal bid) is kept, with its Turn still open. Against a real server.
import assert from "node:assert/strict";
import { test } from "node:test";
import { create } from "@bufbuild/protobuf";
import { Code, ConnectError } from "@connectrpc/connect";
import { overtaken, randomToken, seatHeaders, tableClient, type Failure, type TableClient } from "../../src/api";
import { ActionSchema, type StreamEventsResponse } from "../../src/gen/thousand/v1/table_service_pb";
import { Nodes } from "../../src/route";
import { TableSession } from "../../src/session";
import { BASE_URL, assertContiguous, client, nodes, play, rng, thousandTable, until } from "./harness";

function refused(reason: string, metadata: Record<string, string> = {}): Failure {
  return { code: Code.FailedPrecondition, reason, message: "", metadata };
}

test("only the refusals that say the table moved on are the page being late; the rest are the player's", () => {
  for (const reason of ["STALE_SEQUENCE", "NOT_YOUR_TURN", "GAME_OVER"]) assert.ok(overtaken(refused(reason)), reason);
  for (const reason of ["ILLEGAL_ACTION", "SEAT_FORFEITED", "INVALID_ARGUMENT", "SEAT_TOKEN_INVALID", "GAME_NOT_STARTED", "TABLE_MOVING", ""])
    assert.ok(!overtaken(refused(reason, { rule: "WRONG_PHASE" })), reason);
});

/** The server's client, whose next `holds` streams stall: each brings its first message (a resumed stream's
 * is the current Turn), then nothing until the page drops it: a connection that died without a word, as a
 * dead one looks to fetch. */
class Stalling {
  holds = 0;
  held = 0;
  dropped = 0;
  readonly client: TableClient;

  constructor(url: string) {
    const real = tableClient(url);
    this.client = new Proxy(real, {
      get: (target, name, receiver) => {
        if (name !== "streamEvents") return Reflect.get(target, name, receiver);
        return (request: Parameters<TableClient["streamEvents"]>[0], options?: Parameters<TableClient["streamEvents"]>[1]) => {
          if (this.holds === 0) return target.streamEvents(request, options);
          this.holds -= 1;
          this.held += 1;
          return this.stalled(target.streamEvents(request, options), options?.signal);
        };
      },
    });
  }

  private async *stalled(messages: AsyncIterable<StreamEventsResponse>, signal: AbortSignal | undefined): AsyncGenerator<StreamEventsResponse> {
    for await (const message of messages) {
      yield message;
      break; // and the connection stalls
    }
    await new Promise<void>((resolve) => signal?.addEventListener("abort", () => resolve(), { once: true }));
    this.dropped += 1;
    throw new ConnectError("the page dropped the stalled stream", Code.Canceled);
  }
}

test("an action on a stale view is dropped without an error, its Turn closed, and the stalled stream caught up", { timeout: 60000 }, async () => {
  const c = client();
  const seated = await thousandTable(c, 31n);
  const stalling = new Stalling(BASE_URL);
  const session = new TableSession(new Nodes(BASE_URL, () => stalling.client), seated.tableId, {
    seat: seated.seat,
    token: seated.token,
    watchdogMs: 0, // no watchdog: the catching up alone must find the stall
  });
  await session.start();
  await until(session, () => session.isMyTurn());
  const decidedOn = session.turnSequence;
  const [action] = session.legalActions();
  assert.ok(action);

  // The stream stalls (a live connection that brings nothing more); the same seat acts from elsewhere (its other tab), and the table moves on.
  stalling.holds = 1;
  session.reconnect();
  await until(session, () => stalling.held === 1 && session.status.state === "live", 5000);
  await c.submitAction({ tableId: seated.tableId, requestId: randomToken(12), lastSeenSequence: decidedOn, action }, { headers: seatHeaders(seated.token) });
  assert.ok(session.isMyTurn(), "the page still shows the Turn it had");

  const late = await session.act(action);
  assert.equal(late?.reason, "STALE_SEQUENCE");
  assert.equal(session.refusal, undefined, "nothing to show the player");
  assert.deepEqual(session.overtakenBy, ["STALE_SEQUENCE"]);
  assert.deepEqual(session.legalActions(), [], "the stale Turn takes no second click");

  const { table } = await c.getTable({ tableId: seated.tableId });
  const current = table!.sequence;
  assert.ok(current > decidedOn);
  const started = Date.now();
  await until(session, () => session.lastSeen !== undefined && session.lastSeen >= current && session.status.state === "live", 5000);
  console.log(`caught up from ${decidedOn} to ${session.lastSeen} in ${Date.now() - started} ms`);
  assert.equal(stalling.dropped, 1, "the stalled stream was dropped and resumed");
  assert.equal(session.refusal, undefined);
  assertContiguous(session.applied, 0n, session.lastSeen!);

  // And the game goes on from the current Turn.
  let acted = 0;
  await play(session, rng(31), () => acted++ >= 5);
  assert.deepEqual(session.trackerMisses, []);
  assert.deepEqual(session.overtakenBy, ["STALE_SEQUENCE"]);
  session.stop();
});

test("a refusal the player should read is kept with its reason, and its Turn stays open", { timeout: 60000 }, async () => {
  const c = client();
  const seated = await thousandTable(c, 32n);
  const session = new TableSession(nodes(), seated.tableId, { seat: seated.seat, token: seated.token, watchdogMs: 0 });
  await session.start();
  await until(session, () => session.isMyTurn());
  assert.ok(session.legalActions().some((a) => a.game.value?.action.case === "bid"), "the seat's first Turn is a bid");
  const bid = create(ActionSchema, { game: { case: "thousand", value: { action: { case: "bid", value: { value: 103 } } } } });
  const refusal = await session.act(bid);
  assert.equal(refusal?.reason, "ILLEGAL_ACTION");
  assert.equal(session.refusal?.reason, "ILLEGAL_ACTION");
  assert.ok(session.refusal?.metadata["rule"], "with the engine's rule");
  assert.deepEqual(session.overtakenBy, []);
  assert.ok(session.isMyTurn(), "the player chooses again");
  session.stop();
});

test("a server that is not part of a cluster lists no other node; an unreachable one changes nothing", async () => {
  const known = new Nodes(BASE_URL);
  await known.discover();
  assert.deepEqual(known.known, [new URL(BASE_URL).origin]);
  await known.discover("http://127.0.0.1:9"); // nothing listens there
  assert.deepEqual(known.known, [new URL(BASE_URL).origin]);
});
