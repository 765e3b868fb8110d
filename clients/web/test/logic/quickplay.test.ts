// match/quickplay.ts: the web client's quick play without a server (a MatchClient of the test's own, made per
// node): the wish in the page's address, the waiting updates in a page's units, a stream that breaks called
// again on the next node with the same request and seat token (the place in the queue kept, docs/protocol.md
// "Quick play"), a refusal given to the page, Cancel ending the wait, and the seat a match took kept as a
// joined seat is. The browser and the real server: test/browser/quickplay.test.ts.
import assert from "node:assert/strict";
import { test } from "node:test";
import { create } from "@bufbuild/protobuf";
import { Code, ConnectError } from "@connectrpc/connect";
import { QuickPlayMatchSchema, QuickPlayResponseSchema, QuickPlayWaitingSchema, type QuickPlayRequest, type QuickPlayResponse } from "../../src/gen/thousand/v1/matchmaking_pb";
import { GameKind, TableSchema } from "../../src/gen/thousand/v1/table_service_pb";
import { Nodes } from "../../src/route";
import { QuickPlay, keepMatch, parseWish, standing, wishHash, type MatchClient, type Standing } from "../../src/match/quickplay";
import { SeatStore, memoryStorage } from "../../src/seats";

const waiting = (n: number): QuickPlayResponse =>
  create(QuickPlayResponseSchema, { update: { case: "waiting", value: create(QuickPlayWaitingSchema, { playersWaiting: n, playersNeeded: 3, waited: { seconds: 4n, nanos: 5e8 }, estimatedWait: { seconds: 10n, nanos: 0 } }) } });
const matched = create(QuickPlayResponseSchema, {
  update: { case: "matched", value: create(QuickPlayMatchSchema, { table: create(TableSchema, { tableId: "t1", sequence: 3n, webEndpoint: "c:8080" }), seat: 2, seatToken: "tok", note: "2 bots of the server fill the empty seats" }) },
});

/** Per node, what each call does: the messages it sends, then an error (the stream breaks) or its end. */
function cluster(script: Record<string, { messages: QuickPlayResponse[]; error?: Error }[]>, calls: { origin: string; request: QuickPlayRequest }[]) {
  return (origin: string): MatchClient =>
    ({
      quickPlay: (request: QuickPlayRequest) =>
        (async function* () {
          calls.push({ origin, request });
          const step = script[origin]?.shift() ?? { messages: [], error: new ConnectError("no more", Code.Unavailable) };
          for (const m of step.messages) yield m;
          if (step.error) throw step.error;
        })(),
    }) as unknown as MatchClient;
}

test("a wish goes into the waiting page's address and back, defaults for what is missing", () => {
  const wish = { game: GameKind.BLAGOGO, players: 4, rated: true, botsMayFill: false, maxWaitS: 120 };
  assert.equal(wishHash(wish), "#/play/2/4/1/0/120");
  assert.deepEqual(parseWish(wishHash(wish).split("/").slice(2)), wish);
  assert.deepEqual(parseWish(["x"]), { game: GameKind.THOUSAND, players: 3, rated: false, botsMayFill: false, maxWaitS: 60 });
});

test("waiting updates in seconds; no estimate when the server cannot tell", () => {
  assert.deepEqual(standing(waiting(2).update.value as never), { waiting: 2, needed: 3, waitedS: 4.5, estimateS: 10, ratingWindow: 0 });
  assert.equal(standing(create(QuickPlayWaitingSchema, { playersWaiting: 1 })).estimateS, undefined);
});

test("a broken stream is called again on the next node with the same request and seat token: the place is kept", async () => {
  const calls: { origin: string; request: QuickPlayRequest }[] = [];
  const nodes = new Nodes("http://a:8080");
  nodes.learn("b:8080");
  const script = {
    "http://a:8080": [{ messages: [waiting(1)], error: new ConnectError("network", Code.Unavailable) }],
    "http://b:8080": [{ messages: [waiting(2), matched] }],
  };
  const play = new QuickPlay(parseWish([]), "Ann", nodes, cluster(script, calls));
  const seen: Standing[] = [];
  let reconnects = 0;
  const match = await play.run({ waiting: (s) => seen.push(s), reconnecting: () => reconnects++ }, new AbortController().signal);
  assert.equal(match?.seat, 2);
  assert.deepEqual(seen.map((s) => s.waiting), [1, 2]);
  assert.equal(reconnects, 1);
  assert.deepEqual(calls.map((c) => c.origin), ["http://a:8080", "http://b:8080"]);
  const [first, second] = calls.map((c) => c.request);
  assert.equal(first?.seatToken.length, 43);
  assert.equal(second?.seatToken, first?.seatToken, "the same seat token: the same place");
  assert.equal(second?.clientSeed, first?.clientSeed);
  assert.equal(first?.playerName, "Ann");
  assert.equal(Number(first?.maxWait?.seconds), 60);
});

test("a refusal is the page's to show; Cancel ends the wait without one", async () => {
  const nodes = new Nodes("http://a:8080");
  const calls: { origin: string; request: QuickPlayRequest }[] = [];
  const failing = new QuickPlay(parseWish([]), "Ann", nodes, cluster({ "http://a:8080": [{ messages: [], error: new ConnectError("bad", Code.InvalidArgument) }] }, calls));
  await assert.rejects(failing.run({ waiting: () => {}, reconnecting: () => {} }, new AbortController().signal), /bad/);
  assert.equal(calls.length, 1, "a refusal is not called again");
  const controller = new AbortController();
  const forever = (origin: string): MatchClient =>
    ({
      quickPlay: (_: QuickPlayRequest, options: { signal: AbortSignal }) =>
        (async function* () {
          void origin;
          yield waiting(1);
          await new Promise((_, reject) => {
            if (options.signal.aborted) reject(new ConnectError("aborted", Code.Canceled));
            options.signal.addEventListener("abort", () => reject(new ConnectError("aborted", Code.Canceled)));
          });
        })(),
    }) as unknown as MatchClient;
  const waiter = new QuickPlay(parseWish([]), "Ann", nodes, forever);
  const done = waiter.run({ waiting: () => controller.abort(), reconnecting: () => assert.fail("no reconnect after Cancel") }, controller.signal);
  assert.equal(await done, undefined);
});

test("the seat a match took is kept as a joined seat, its table's node learned", () => {
  const store = new SeatStore(memoryStorage());
  const nodes = new Nodes("http://a:8080");
  const record = keepMatch(store, nodes, matched.update.value as never, "Ann", "seed", "player-1");
  assert.equal(record.tableId, "t1");
  assert.deepEqual(store.seat("t1"), { tableId: "t1", seat: 2, token: "tok", name: "Ann", clientSeed: "seed", joinedAt: "3", player: "player-1", matchNote: "2 bots of the server fill the empty seats" });
  assert.ok(nodes.known.includes("http://c:8080"));
});
