// route.ts: where a page sends a table's calls in a cluster, decided from each failure alone (no server: the
// clients are made but never called), as tests/test_client_routing.py checks the Python client's.
import assert from "node:assert/strict";
import { test } from "node:test";
import { BinaryWriter, WireType } from "@bufbuild/protobuf/wire";
import { Code, ConnectError } from "@connectrpc/connect";
import { failure, type Failure, type TableClient } from "../../src/api";
import { MAX_REDIRECTS, MOVING_DELAY_MS, Nodes, Route } from "../../src/route";

function nodes(home = "http://a:8080"): Nodes {
  return new Nodes(home, () => ({}) as TableClient);
}

function elsewhere(webEndpoint: string): Failure {
  return { code: Code.FailedPrecondition, reason: "TABLE_ELSEWHERE", message: "", metadata: { endpoint: "x:1", web_endpoint: webEndpoint } };
}

const unreachable: Failure = { code: Code.Unavailable, reason: "", message: "Failed to fetch", metadata: {} };

test("TABLE_ELSEWHERE moves to the owner's web port at once, in the page's scheme, and learns it", () => {
  const route = new Route(nodes("https://a"));
  assert.equal(route.follow(elsewhere("b:8443")), 0);
  assert.equal(route.origin, "https://b:8443");
  assert.deepEqual(route.nodes.known, ["https://a", "https://b:8443"]);
  route.go("b:443"); // the default port is no part of an origin
  assert.equal(route.origin, "https://b");
});

test("an owner without a web port cannot be followed, nor redirects going round in circles", () => {
  const route = new Route(nodes());
  assert.equal(route.follow(elsewhere("")), undefined);
  for (let i = 0; i < MAX_REDIRECTS - 1; i++) assert.equal(route.follow(elsewhere(i % 2 ? "a:8080" : "b:8080")), 0);
  assert.equal(route.follow(elsewhere("b:8080")), undefined); // the nodes disagree
  route.answered();
  assert.equal(route.follow(elsewhere("b:8080")), 0);
});

test("TABLE_MOVING waits its retry delay on the same node", () => {
  const route = new Route(nodes(), "b:8080");
  const moving: Failure = { code: Code.Unavailable, reason: "TABLE_MOVING", message: "", metadata: {}, retryDelayMs: 400 };
  assert.equal(route.follow(moving), 400);
  assert.equal(route.origin, "http://b:8080");
  assert.equal(route.follow({ ...moving, retryDelayMs: undefined }), MOVING_DELAY_MS);
});

test("a node that cannot be reached is left for the next known one; other refusals change nothing", () => {
  const route = new Route(nodes(), "b:8080");
  assert.equal(route.follow(unreachable), undefined); // the caller's backoff decides when
  assert.equal(route.origin, "http://a:8080");
  assert.equal(route.follow(unreachable), undefined);
  assert.equal(route.origin, "http://b:8080");
  const illegal: Failure = { code: Code.FailedPrecondition, reason: "ILLEGAL_ACTION", message: "", metadata: { rule: "X" } };
  assert.equal(route.follow(illegal), undefined);
  assert.equal(route.origin, "http://b:8080");
  route.follow(unreachable, "http://a:8080"); // another call moved already: it stays
  assert.equal(route.origin, "http://b:8080");
  const alone = new Route(nodes());
  alone.follow(unreachable);
  assert.equal(alone.origin, "http://a:8080");
});

/** A refusal as connect-web hands it over: a ConnectError with its google.rpc.ErrorInfo detail. */
function refusal(code: Code, reason: string, metadata: Record<string, string>): ConnectError {
  const info = new BinaryWriter().tag(1, WireType.LengthDelimited).string(reason);
  for (const [key, value] of Object.entries(metadata)) {
    info.tag(3, WireType.LengthDelimited).fork();
    info.tag(1, WireType.LengthDelimited).string(key).tag(2, WireType.LengthDelimited).string(value);
    info.join();
  }
  const error = new ConnectError(reason, code);
  error.details.push({ type: "google.rpc.ErrorInfo", value: info.finish() });
  return error;
}

test("a call is sent again, unchanged, where the refusal points; another refusal ends it", async () => {
  const route = new Route(nodes());
  const seen: string[] = [];
  const result = await route.call(async () => {
    seen.push(route.origin);
    if (seen.length === 1) throw refusal(Code.FailedPrecondition, "TABLE_ELSEWHERE", { web_endpoint: "b:8080" });
    return "done";
  });
  assert.equal(result, "done");
  assert.deepEqual(seen, ["http://a:8080", "http://b:8080"]);
  const refused = await route
    .call(async () => {
      throw refusal(Code.FailedPrecondition, "NOT_YOUR_TURN", {});
    })
    .then(() => undefined, failure);
  assert.equal(refused?.reason, "NOT_YOUR_TURN");
});
