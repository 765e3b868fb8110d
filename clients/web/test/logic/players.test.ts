// The players' logic of the web client (issue #25), without a server: invite links, which credential a call
// carries (the page's player, a seat's owner, none), when an account's token is renewed, the pages of "My
// games", the words of a game's result, seats held for a player. Pure logic: no server, no browser.
import assert from "node:assert/strict";
import { test } from "node:test";
import { create } from "@bufbuild/protobuf";
import { bearer, currentPlayerId, useCredentials } from "../../src/api";
import { GameResult } from "../../src/gen/thousand/v1/player_service_pb";
import { SeatKind, SeatSchema } from "../../src/gen/thousand/v1/table_service_pb";
import { Identity, REFRESH_MARGIN_MS, bearerOf } from "../../src/players/identity";
import { inviteLink, newInviteCode, parseInvite } from "../../src/players/invite";
import { defaultName } from "../../src/players/players";
import { PLAYER_WORDS } from "../../src/players/words";
import { memoryStorage, type SeatRecord } from "../../src/seats";
import { Pages } from "../../src/ui/games";
import { heldText, seatFreeFor } from "../../src/ui/invite";


test("an invite code is 16 random bytes in base64url, as the server asks (16 to 128 of A-Z a-z 0-9 - _)", () => {
  const codes = new Set(Array.from({ length: 50 }, () => newInviteCode()));
  assert.equal(codes.size, 50);
  for (const code of codes) assert.match(code, /^[A-Za-z0-9_-]{22}$/);
});

test("an invite link carries the table and the code in the hash, and reads back; a broken one is refused", () => {
  const invite = { tableId: "t-123", code: newInviteCode() };
  const link = inviteLink("https://cards.example/play/?x=1#/table/old", invite);
  assert.equal(link, `https://cards.example/play/?x=1#/invite/t-123/${invite.code}`);
  assert.deepEqual(parseInvite(new URL(link).hash), invite);
  assert.equal(parseInvite("#/invite/t-123"), undefined);
  assert.equal(parseInvite("#/invite/t-123/short"), undefined);
  assert.equal(parseInvite(`#/invite/t-123/${invite.code}/more`), undefined);
  assert.equal(parseInvite(`#/invite/t 1/${invite.code}`), undefined);
  assert.equal(parseInvite(`#/table/t-123/${invite.code}`), undefined);
});

function identity(): Identity {
  return new Identity(memoryStorage(), memoryStorage());
}

test("a guest's token is the credential; an account's access token once signed in, and none once it expired", () => {
  const id = identity();
  assert.equal(id.credential(0), undefined);
  id.setGuest({ playerId: "g1", token: "thp_guest" });
  assert.equal(id.playerId(), "g1");
  assert.equal(id.credential(0), "thp_guest");
  assert.equal(id.needsRefresh(0), false, "a guest's token does not expire");
  id.setAccount({ issuer: "https://id.example", audience: "aud", playerId: "a1", refreshToken: "r1" });
  assert.equal(id.playerId(), "a1");
  assert.equal(id.needsRefresh(0), true, "an account without an access token renews first");
  assert.equal(id.credential(0), undefined, "never the guest's token for the account");
  id.setAccess({ token: "jwt", expiresAt: 1_000_000 });
  assert.equal(id.credential(0), "jwt");
  assert.equal(id.needsRefresh(1_000_000 - REFRESH_MARGIN_MS - 1), false);
  assert.equal(id.needsRefresh(1_000_000 - REFRESH_MARGIN_MS + 1), true, "renewed a margin before it ends");
  assert.equal(id.credential(1_000_000), undefined);
  id.setAccount(undefined);
  assert.equal(id.access(), undefined, "signing out drops the access token");
  assert.equal(id.credential(0), "thp_guest", "signing out comes back to the guest");
});

test("the access token lives in the tab's storage, the guest's token and the refresh token in the browser's", () => {
  const local = memoryStorage();
  const session = memoryStorage();
  const id = new Identity(local, session);
  id.setGuest({ playerId: "g1", token: "thp_guest" });
  id.setAccount({ issuer: "https://id.example", audience: "aud", playerId: "a1", refreshToken: "r1" });
  id.setAccess({ token: "the-access-token", expiresAt: 5 });
  assert.match(session.getItem("thousand.access.v1") ?? "", /the-access-token/);
  assert.doesNotMatch(`${local.getItem("thousand.account.v1")}${local.getItem("thousand.guest.v1")}`, /the-access-token/);
});

test("a seat's calls carry its owner's credential while the page holds it, else none (the seat token alone)", () => {
  const id = identity();
  const seat = (player?: string): SeatRecord => ({ tableId: "t", seat: 0, token: "s", name: "Ann", ...(player ? { player } : {}) });
  id.setGuest({ playerId: "g1", token: "thp_guest" });
  assert.equal(id.credentialForSeat(seat("g1"), 0), "thp_guest");
  assert.equal(id.credentialForSeat(seat(), 0), undefined, "an anonymous seat");
  assert.equal(id.credentialForSeat(undefined, 0), undefined);
  id.setAccount({ issuer: "https://id.example", audience: "aud", playerId: "a1", refreshToken: "r1" });
  id.setAccess({ token: "jwt", expiresAt: 10 });
  assert.equal(id.credentialForSeat(seat("a1"), 0), "jwt");
  assert.equal(id.credentialForSeat(seat("g1"), 0), "thp_guest", "the guest's seats keep working behind the account");
  assert.equal(id.credentialForSeat(seat("other"), 0), undefined, "never another player's credential");
  assert.deepEqual(
    Identity.claimable([seat(), seat("g1"), { ...seat(), token: "" }]).map((s) => s.player ?? "anonymous"),
    ["anonymous"],
    "only anonymous seats with a token are claimed",
  );
});

test("the bearer is the access token when it is a JWT, else the ID token", () => {
  assert.equal(bearerOf("a.b.c", "i.d.t"), "a.b.c");
  assert.equal(bearerOf("opaque", "i.d.t"), "i.d.t");
  assert.equal(bearerOf("opaque", undefined), "opaque");
});

test("the interceptor adds the player's credential, or the seat owner's beside a seat token, and keeps one set", async () => {
  const sent: (string | null)[] = [];
  const next = async (req: { header: Headers }) => {
    sent.push(req.header.get("authorization"));
    return {} as never;
  };
  const call = (headers: Record<string, string>) => bearer(next as never)({ header: new Headers(headers) } as never);
  useCredentials({ current: async () => "mine", forSeat: async (token) => (token === "owned" ? "owner" : undefined), playerId: () => "p1" });
  try {
    await call({});
    await call({ "x-seat-token": "owned" });
    await call({ "x-seat-token": "anonymous" });
    await call({ authorization: "Bearer explicit" });
    assert.deepEqual(sent, ["Bearer mine", "Bearer owner", null, "Bearer explicit"]);
    assert.equal(currentPlayerId(), "p1");
  } finally {
    useCredentials(undefined);
  }
  sent.length = 0;
  await call({});
  assert.deepEqual(sent, [null], "without a player every call is anonymous, as before players");
});

test("My games goes page by page with the server's tokens, back to the newest", () => {
  const pages = new Pages();
  assert.equal(pages.token, "");
  assert.equal(pages.newer(), false);
  pages.read("p2");
  assert.equal(pages.older(), true);
  assert.equal(pages.token, "p2");
  assert.equal(pages.number, 2);
  pages.read("");
  assert.equal(pages.older(), false, "the last page");
  assert.equal(pages.newer(), true);
  assert.equal(pages.token, "");
  assert.equal(pages.number, 1);
});

test("a game's result in words, and a guest's default name", () => {
  assert.equal(PLAYER_WORDS.result(GameResult.PLAYING, 0, 0), "playing");
  assert.equal(PLAYER_WORDS.result(GameResult.WON, 1, 1005), "won with 1005");
  assert.equal(PLAYER_WORDS.result(GameResult.LOST, 2, 640), "lost: place 2, 640");
  assert.equal(PLAYER_WORDS.result(GameResult.STOPPED, 0, 0), "stopped");
  assert.equal(defaultName(() => 0.0421), "Guest 0421");
});

test("a seat held for a player is free for that player alone, and says for whom", () => {
  const held = create(SeatSchema, { kind: SeatKind.OPEN, reservedFor: "p1" });
  const open = create(SeatSchema, { kind: SeatKind.OPEN });
  const bot = create(SeatSchema, { kind: SeatKind.BOT, strategy: "greedy" });
  assert.equal(seatFreeFor(held, "p1"), true);
  assert.equal(seatFreeFor(held, "p2"), false);
  assert.equal(seatFreeFor(held, undefined), false);
  assert.equal(seatFreeFor(open, undefined), true);
  assert.equal(seatFreeFor(bot, "p1"), false);
  assert.equal(heldText(held, "p1"), PLAYER_WORDS.heldForYou);
  assert.equal(heldText(held, "p2"), PLAYER_WORDS.heldForOther);
  assert.equal(heldText(open, "p1"), undefined);
  assert.equal(heldText(create(SeatSchema, { kind: SeatKind.OPEN, reservedFor: "p1", taken: true }), "p2"), undefined);
});
