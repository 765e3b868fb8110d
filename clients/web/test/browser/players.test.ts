// Players in the web client (issue #25), in Chromium against a server that trusts the tests' real OpenID
// provider (tests/test_web_players.py starts both): a guest made at the first visit; signing in through the
// provider's own pages with the authorization code flow and PKCE, the browser's earlier seats claimed, the
// access token renewed with the rotated refresh token, signing out (the refresh token revoked, the provider's
// end-session page) back to the guest; "My games" 20 a page
// with a seat resumed from a second browser by the player's credential alone and a finished game's replay;
// a private table joined by its invite link from another browser, never listed to others; a seat held for a
// player shown as such and kept for them. Screenshots of the new screens at a laptop's and a phone's size.
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { createClient } from "@connectrpc/connect";
import type { Browser, BrowserContext, Page } from "playwright-core";
import { failure, randomToken, tableClient, transport } from "../../src/api";
import { GameResult, PlayerKind, PlayerService } from "../../src/gen/thousand/v1/player_service_pb";
import { GameKind, SeatKind, TableStatus, TimeoutPolicy } from "../../src/gen/thousand/v1/table_service_pb";
import { BASE_URL, LAPTOP, PHONE, clickFirst, openSized, pageErrors, screenshot, state } from "./browser";

const ISSUER = process.env["OIDC_ISSUER"] ?? "";
const AUDIENCE = process.env["OIDC_AUDIENCE"] ?? "";
assert.ok(ISSUER && AUDIENCE, "OIDC_ISSUER and OIDC_AUDIENCE name the tests' provider (tests/test_web_players.py)");

const players = createClient(PlayerService, transport(BASE_URL));
const tables = tableClient(BASE_URL);
const auth = (credential: string) => ({ headers: { authorization: `Bearer ${credential}` } });

let browser: Browser;
before(async () => {
  browser = await (await import("./browser")).launch();
});
after(async () => {
  await browser?.close();
});

async function firstVisit(size = LAPTOP): Promise<{ context: BrowserContext; page: Page }> {
  const opened = await openSized(browser, size);
  await opened.page.goto(`${BASE_URL}/#/`);
  await opened.page.locator('[data-testid="player-kind"]').waitFor({ timeout: 15000 });
  return opened;
}

async function stored(page: Page, key: string, where: "local" | "session" = "local"): Promise<Record<string, string> | undefined> {
  const raw = await page.evaluate(([k, w]) => (w === "local" ? localStorage : sessionStorage).getItem(k!), [key, where]);
  return raw ? (JSON.parse(raw) as Record<string, string>) : undefined;
}

async function guestOf(page: Page): Promise<{ playerId: string; token: string }> {
  const guest = await stored(page, "thousand.guest.v1");
  assert.ok(guest?.["playerId"] && guest["token"], "the page keeps its guest");
  return { playerId: guest["playerId"], token: guest["token"] };
}

async function accessOf(page: Page): Promise<string> {
  const access = await stored(page, "thousand.access.v1", "session");
  assert.ok(access?.["token"], "the tab keeps its access token");
  return access["token"];
}

/** What a person does on the provider's own pages: sign in as `login` (any password), then consent. */
async function signInAtProvider(page: Page, login: string): Promise<void> {
  await page.locator('[data-testid="sign-in"]').click();
  await page.waitForURL(`${ISSUER}/**`);
  await page.fill('input[name="login"]', login);
  await page.fill('input[name="password"]', "any password");
  await page.locator('button[type="submit"]').click();
  for (let i = 0; i < 5 && page.url().startsWith(ISSUER); i++) {
    await page.waitForLoadState();
    if (!page.url().startsWith(ISSUER)) break;
    const consent = page.locator('button[type="submit"]');
    if (await consent.count()) await consent.first().click();
    await page.waitForTimeout(200);
  }
  await page.waitForURL(`${BASE_URL}/**`);
  await page.locator('[data-testid="player-kind"]', { hasText: "signed in" }).waitFor({ timeout: 15000 });
}

/** Screenshots at a laptop's size and a phone's, the page laid out again for each. */
async function bothSizes(page: Page, name: string): Promise<void> {
  for (const [size, viewport] of [["laptop", LAPTOP], ["phone", PHONE]] as const) {
    await page.setViewportSize(viewport);
    await page.waitForTimeout(100);
    const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
    assert.ok(overflow <= 1, `${name} at ${size} size is ${overflow}px wider than the screen`);
    console.log(`# screenshot ${await screenshot(page, `players-${name}-${size}`)}`);
  }
  await page.setViewportSize(LAPTOP);
}

async function until<T>(what: string, probe: () => Promise<T | undefined>, timeoutMs = 30000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const found = await probe();
    if (found !== undefined) return found;
    assert.ok(Date.now() < deadline, `not in time: ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

test("a guest at the first visit: made once, renamed by the person, the same after a reload", { timeout: 60000 }, async () => {
  const { context, page } = await firstVisit();
  assert.equal(await page.locator('[data-testid="player-kind"]').textContent(), "guest");
  const guest = await guestOf(page);
  assert.match(guest.token, /^thp_[A-Za-z0-9_-]{43}$/);
  const me = await players.getMe({}, auth(guest.token));
  assert.equal(me.player?.playerId, guest.playerId);
  assert.equal(me.player?.kind, PlayerKind.GUEST);
  await page.fill("#player-name", "Ann");
  await page.press("#player-name", "Tab");
  await until("the new name is the player's", async () => ((await players.getMe({}, auth(guest.token))).player?.displayName === "Ann" ? true : undefined));
  await page.reload();
  await page.locator('[data-testid="player-kind"]').waitFor();
  assert.equal((await guestOf(page)).playerId, guest.playerId, "no second guest for the same browser");
  assert.equal(await page.inputValue("#player-name"), "Ann");
  await bothSizes(page, "lobby-guest");
  assert.deepEqual(pageErrors(page), []);
  await context.close();
});

test("sign in through the provider (code + PKCE), claim the earlier seats, renew the token, sign out", { timeout: 120000 }, async () => {
  const { context, page } = await firstVisit();
  const guest = await guestOf(page);
  // A seat this browser took before it had a player (an older page): anonymous, kept in localStorage.
  const old = await tables.createTable({ game: GameKind.THOUSAND, seats: [1, 2, 3].map(() => ({ kind: SeatKind.OPEN })), requestId: randomToken(12) });
  const oldId = old.table!.tableId;
  const oldToken = randomToken(32);
  const oldSeat = (await tables.joinTable({ tableId: oldId, seatToken: oldToken, playerName: "Old me" })).seat;
  await page.evaluate(([tableId, seat, token]) => {
    const all = JSON.parse(localStorage.getItem("thousand.seats.v1") ?? "{}") as Record<string, unknown>;
    all[tableId!] = { tableId, seat: Number(seat), token, name: "Old me" };
    localStorage.setItem("thousand.seats.v1", JSON.stringify(all));
  }, [oldId, String(oldSeat), oldToken]);
  const seen: string[] = [];
  page.on("request", (r) => r.url().startsWith(ISSUER) && seen.push(`${r.method()} ${r.url()} ${r.postData() ?? ""}`));

  await signInAtProvider(page, "carol");
  assert.match(await page.locator('[data-testid="player-notice"]').textContent() ?? "", /1 earlier seat of this browser is now yours/);
  // The code flow with PKCE, as a public client: the challenge out, the verifier back, no secret.
  const authorize = new URL(seen.find((r) => r.startsWith("GET ") && r.includes("code_challenge="))!.split(" ")[1]!);
  assert.equal(authorize.searchParams.get("response_type"), "code");
  assert.equal(authorize.searchParams.get("code_challenge_method"), "S256");
  assert.match(authorize.searchParams.get("code_challenge") ?? "", /^[A-Za-z0-9_-]{43}$/);
  assert.equal(authorize.searchParams.get("client_id"), AUDIENCE);
  assert.equal(authorize.searchParams.get("resource"), AUDIENCE);
  const exchange = seen.find((r) => r.startsWith("POST ") && r.includes("grant_type=authorization_code"));
  assert.ok(exchange, `no code exchange among ${seen.join("\n")}`);
  assert.match(exchange, /code_verifier=[A-Za-z0-9_-]{43}/);
  assert.doesNotMatch(exchange, /client_secret/);
  // Nothing secret in localStorage beyond the refresh token (the guest's own token aside); the access token is
  // the tab's.
  const access = await accessOf(page);
  assert.equal(access.split(".").length, 3, "a JWT access token for the server's audience");
  const local = await page.evaluate(() => Object.values({ ...localStorage }).join("\n"));
  assert.ok(!local.includes(access), "the access token is not in localStorage");
  const account = (await stored(page, "thousand.account.v1"))!;
  assert.equal(account["issuer"], ISSUER);
  const me = (await players.getMe({}, auth(access))).player!;
  assert.equal(me.kind, PlayerKind.OIDC);
  assert.equal(me.subject, "carol");
  assert.equal(me.playerId, account["playerId"]);
  assert.notEqual(me.playerId, guest.playerId);
  const claimed = (await players.listMyGames({}, auth(access))).games.map((g) => g.tableId);
  assert.deepEqual(claimed, [oldId], "the claimed seat's game is the account's");
  assert.equal((await stored(page, "thousand.seats.v1"))![oldId] !== undefined, true);

  // A seat taken now is the account's at once.
  const next = await tables.createTable({ game: GameKind.THOUSAND, seats: [1, 2, 3].map(() => ({ kind: SeatKind.OPEN })), requestId: randomToken(12) });
  const nextId = next.table!.tableId;
  await page.locator(`[data-testid="join-${nextId}"]`).first().click({ timeout: 15000 });
  await page.waitForURL(`**/#/table/${nextId}`);
  await page.locator(".waiting").waitFor();
  const mine = (await players.listMyGames({}, auth(access))).games.map((g) => g.tableId);
  assert.deepEqual(mine, [nextId, oldId], "newest first");
  await page.goto(`${BASE_URL}/#/`);
  await bothSizes(page, "lobby-signed-in");

  // An access token at its end is renewed with the refresh token, which the provider rotates.
  await page.evaluate(() => {
    const a = JSON.parse(sessionStorage.getItem("thousand.access.v1")!) as { expiresAt: number };
    a.expiresAt = Date.now();
    sessionStorage.setItem("thousand.access.v1", JSON.stringify(a));
  });
  await page.reload();
  await page.locator('[data-testid="player-kind"]', { hasText: "signed in" }).waitFor({ timeout: 15000 });
  const renewed = await accessOf(page);
  assert.notEqual(renewed, access);
  assert.notEqual((await stored(page, "thousand.account.v1"))!["refreshToken"], account["refreshToken"], "the refresh token was rotated");
  assert.equal((await players.getMe({}, auth(renewed))).player?.playerId, me.playerId);

  // Signing out revokes the refresh token at the provider, goes through the provider's end-session endpoint
  // (the person confirms on its page) and comes back to the browser's guest.
  const lastRefresh = (await stored(page, "thousand.account.v1"))!["refreshToken"]!;
  seen.length = 0;
  await page.locator('[data-testid="sign-out"]').click();
  await page.waitForURL(`${ISSUER}/**`);
  const endSession = new URL(page.url());
  assert.equal(endSession.searchParams.get("client_id"), AUDIENCE);
  assert.equal(endSession.searchParams.get("post_logout_redirect_uri"), `${BASE_URL}/`);
  await page.locator('button[type="submit"], button[name="logout"]').first().click();
  await page.waitForURL(`${BASE_URL}/**`);
  await page.locator('[data-testid="player-kind"]', { hasText: "guest" }).waitFor({ timeout: 15000 });
  const revoked = seen.find((r) => r.startsWith("POST ") && r.includes("token_type_hint=refresh_token"));
  assert.ok(revoked, `no revocation among ${seen.join("\n")}`);
  assert.ok(seen.indexOf(revoked) < seen.findIndex((r) => r.includes("post_logout_redirect_uri=")), "revoked before the end-session page");
  const discovery = (await (await fetch(`${ISSUER}/.well-known/openid-configuration`)).json()) as { token_endpoint: string };
  const renewal = await fetch(discovery.token_endpoint, {
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded" },
    body: new URLSearchParams({ grant_type: "refresh_token", refresh_token: lastRefresh, client_id: AUDIENCE }),
  });
  assert.equal(renewal.status, 400, "the revoked refresh token renews nothing");
  assert.equal(((await renewal.json()) as { error: string }).error, "invalid_grant");
  assert.equal(await stored(page, "thousand.account.v1"), undefined);
  assert.equal(await stored(page, "thousand.access.v1", "session"), undefined);
  assert.equal((await guestOf(page)).playerId, guest.playerId);
  assert.deepEqual(pageErrors(page), []);
  await context.close();
});

const MOVES = ['[data-action="pick-0"]', ".hand button.card.playable", '[data-action^="passBid"]', '[data-action="contract"]', ".actions button.action"];

test("My games: 20 a page, newest first; a seat resumed from another browser; a finished game's replay", { timeout: 300000 }, async () => {
  const first = await firstVisit();
  await signInAtProvider(first.page, "dave");
  const access = await accessOf(first.page);
  const me = auth(access);
  // A finished game: the seat forfeits on time (1 s a move), a bot plays it to the end.
  const finished = await tables.createTable({
    game: GameKind.THOUSAND,
    seats: [{ kind: SeatKind.OPEN }, { kind: SeatKind.BOT, strategy: "greedy" }, { kind: SeatKind.BOT, strategy: "greedy" }],
    timeControl: { perMove: { seconds: 1n }, bank: { seconds: 0n }, onTimeout: TimeoutPolicy.FORFEIT },
    requestId: randomToken(12),
  });
  const finishedId = finished.table!.tableId;
  await tables.joinTable({ tableId: finishedId, seatToken: randomToken(32) }, me);
  // 21 tables waiting for players, then a game in play: 23 games.
  for (let i = 0; i < 21; i++) {
    const waiting = await tables.createTable({ game: GameKind.BLAGOGO, seats: [1, 2].map(() => ({ kind: SeatKind.OPEN })), requestId: randomToken(12) });
    await tables.joinTable({ tableId: waiting.table!.tableId, seatToken: randomToken(32) }, me);
  }
  const playing = await tables.createTable({
    game: GameKind.THOUSAND,
    seats: [{ kind: SeatKind.OPEN }, { kind: SeatKind.BOT, strategy: "greedy" }, { kind: SeatKind.BOT, strategy: "greedy" }],
    requestId: randomToken(12),
  });
  const playingId = playing.table!.tableId;
  await tables.joinTable({ tableId: playingId, seatToken: randomToken(32) }, me);
  await until("the forfeited game finished", async () => ((await tables.getTable({ tableId: finishedId })).table?.status === TableStatus.FINISHED ? true : undefined), 180000);

  // Another browser: the same account, signed in there too; no seat token of these games in it.
  const second = await firstVisit();
  await signInAtProvider(second.page, "dave");
  const page = second.page;
  await page.locator('[data-testid="my-games"]').click();
  await page.locator('[data-testid="my-games-list"] tbody tr').first().waitFor();
  const rows = page.locator('[data-testid="my-games-list"] tbody tr');
  assert.equal(await rows.count(), 20, "20 games a page");
  assert.equal(await rows.first().getAttribute("data-game"), playingId, "newest first");
  assert.match((await rows.first().textContent()) ?? "", /playing/);
  await bothSizes(page, "my-games");
  await page.locator('[data-testid="older"]').click();
  await page.locator(`[data-testid="my-games-list"] tr[data-game="${finishedId}"]`).waitFor();
  assert.equal(await rows.count(), 3, "the second page holds the rest");
  assert.equal(await page.locator('[data-testid="older"]').isDisabled(), true);
  const last = rows.last();
  assert.equal(await last.getAttribute("data-game"), finishedId);
  const result = (await players.listMyGames({ pageSize: 100 }, me)).games.find((g) => g.tableId === finishedId)!;
  assert.ok([GameResult.WON, GameResult.LOST].includes(result.result), `the forfeited game ended: ${result.result}`);
  await page.locator('[data-testid="newer"]').click();
  await page.locator(`[data-testid="resume-${playingId}"]`).waitFor();
  assert.equal(await rows.count(), 20, "back to the newest page");
  const accepted: number[] = [];
  page.on("response", (r) => r.url().endsWith("/thousand.v1.TableService/SubmitAction") && accepted.push(r.status()));
  await page.locator(`[data-testid="resume-${playingId}"]`).click();
  await page.waitForURL(`**/#/table/${playingId}`);
  // The seat's own view (its hand) from this browser, by the account's credential alone, and it plays.
  await page.locator(".board.thousand .hand button.card").first().waitFor({ timeout: 20000 });
  assert.equal((await state(page)).seat, 0);
  const deadline = Date.now() + 60000;
  while (!accepted.includes(200)) {
    assert.ok(Date.now() < deadline, `the resumed seat never played a move: ${JSON.stringify(accepted)}`);
    if (!(await clickFirst(page, MOVES))) await page.waitForTimeout(50);
  }
  assert.equal(await page.locator('[data-testid="refusal"]').count(), 0);
  // A finished game's record and replay, from the second page.
  await page.goto(`${BASE_URL}/#/games`);
  await page.locator('[data-testid="older"]:not([disabled])').click();
  await page.locator(`[data-testid="replay-${finishedId}"]`).click();
  await page.locator('[data-testid="replay-position"]').waitFor({ timeout: 15000 });
  assert.deepEqual([...pageErrors(first.page), ...pageErrors(page)], []);
  await first.context.close();
  await second.context.close();
});

test("a private table: its invite link seats a player of another browser; never listed to others; a held seat", { timeout: 120000 }, async () => {
  const host = await firstVisit();
  const friend = await firstVisit(); // the player the host holds a seat for
  const guest = await firstVisit(PHONE); // whoever the host sends the link to
  const stranger = await firstVisit();
  const friendId = (await guestOf(friend.page)).playerId;
  await host.page.fill("#player-name", "Host");
  await host.page.locator('[data-testid="new-private"]').check();
  await host.page.locator('[data-testid="seat-1"]').selectOption("open");
  await host.page.locator('[data-testid="seat-2"]').selectOption("open");
  await host.page.fill('[data-testid="held-1"]', friendId);
  await host.page.locator('[data-testid="create"]').click();
  await host.page.waitForURL("**/#/table/*");
  const tableId = host.page.url().split("/").pop()!;
  const link = await host.page.locator('[data-testid="invite-link"]').inputValue();
  const code = link.split("/").pop()!;
  assert.equal(link, `${BASE_URL}/#/invite/${tableId}/${code}`);
  assert.match(code, /^[A-Za-z0-9_-]{22}$/);
  assert.match((await host.page.locator('.waiting li[data-seat="1"]').textContent()) ?? "", /held for a player/);
  await bothSizes(host.page, "invite-panel");

  // Listed to its players only: the friend it holds a seat for sees it, "held for you"; a stranger does not.
  await stranger.page.locator(".table-list").waitFor();
  await friend.page.reload();
  const row = friend.page.locator(`tr[data-table="${tableId}"]`);
  await row.waitFor({ timeout: 15000 });
  assert.match((await row.textContent()) ?? "", /held for you/);
  assert.match((await row.textContent()) ?? "", /private/);
  await stranger.page.reload();
  await stranger.page.locator(".table-list").waitFor();
  await stranger.page.waitForTimeout(500);
  assert.equal(await stranger.page.locator(`tr[data-table="${tableId}"]`).count(), 0, "a private table is not listed to others");
  // Without the invite, or on the held seat, a join is refused, in words, and nothing changes.
  const refused = await tables.joinTable({ tableId, seatToken: randomToken(32) }).catch((e: unknown) => failure(e));
  assert.equal("reason" in refused ? refused.reason : "", "INVITE_INVALID");
  const held = await tables.joinTable({ tableId, seat: 1, seatToken: randomToken(32), inviteCode: code }).catch((e: unknown) => failure(e));
  assert.equal("reason" in held ? held.reason : "", "SEAT_RESERVED");
  await stranger.page.goto(`${BASE_URL}/#/invite/${tableId}/${"x".repeat(22)}`);
  await stranger.page.locator('[data-testid="invite-join"]').click();
  assert.match((await stranger.page.locator('[data-testid="invite-error"]').textContent()) ?? "", /needs an invite code/);

  // The guest opens the link on a phone and takes the free seat that is held for nobody.
  await guest.page.goto(link);
  await guest.page.locator('[data-testid="invited"]').waitFor();
  assert.match((await guest.page.locator('[data-testid="invited"]').textContent()) ?? "", /held for a player/);
  await bothSizes(guest.page, "invited");
  await guest.page.locator('[data-testid="invite-join"]').click();
  await guest.page.waitForURL(`**/#/table/${tableId}`);
  // The friend takes the seat held for them, without the invite, from the lobby.
  await row.locator("button").first().click();
  await friend.page.waitForURL(`**/#/table/${tableId}`);
  const table = (await tables.getTable({ tableId })).table!;
  assert.deepEqual(table.seats.map((s) => s.taken), [true, true, true]);
  assert.equal(table.seats[1]!.reservedFor, friendId);
  await host.page.locator(".board.thousand").waitFor({ timeout: 20000 });
  for (const opened of [host, friend, guest, stranger]) {
    assert.deepEqual(pageErrors(opened.page), []);
    await opened.context.close();
  }
});
