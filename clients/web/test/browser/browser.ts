// What the browser tests share: Debian's Chromium (CHROMIUM, installed by `make web` through apt-get when
// missing; never downloaded at run time) driven by playwright-core, headless with a fresh profile; the
// server's page (THOUSAND_WEB_URL); screenshots kept in ARTIFACTS; and helpers to read the page's session.
import assert from "node:assert/strict";
import { existsSync, mkdirSync } from "node:fs";
import { join } from "node:path";
import { chromium, type Browser, type BrowserContext, type Page } from "playwright-core";

export const BASE_URL = process.env["THOUSAND_WEB_URL"] ?? "";
const CHROMIUM = process.env["CHROMIUM"] ?? "/usr/bin/chromium";
const ARTIFACTS = process.env["ARTIFACTS"] ?? join(process.cwd(), "artifacts");
assert.ok(BASE_URL, "THOUSAND_WEB_URL must name the server's web port");
assert.ok(existsSync(CHROMIUM), `no Chromium at ${CHROMIUM}: run \`make web\` (installs Debian's chromium as root)`);

export async function launch(): Promise<Browser> {
  return chromium.launch({
    executablePath: CHROMIUM,
    headless: true,
    args: [
      "--no-sandbox",
      "--disable-gpu",
      "--disable-quic",
      "--no-first-run",
      "--disable-background-networking",
      "--disable-component-update",
      "--disable-sync",
    ],
  });
}

export async function open(browser: Browser, phone = false): Promise<{ context: BrowserContext; page: Page }> {
  return openSized(browser, phone ? PHONE : { width: 1280, height: 900 });
}

/** The screens the table is checked at: two common laptop sizes and a phone. */
export const LAPTOP = { width: 1280, height: 720 };
export const WIDE = { width: 1366, height: 768 };
export const PHONE = { width: 390, height: 844 };

export async function openSized(browser: Browser, size: { width: number; height: number }): Promise<{ context: BrowserContext; page: Page }> {
  const phone = size.width < 600;
  const context = await browser.newContext(
    phone ? { viewport: size, deviceScaleFactor: 2, isMobile: true, hasTouch: true } : { viewport: size },
  );
  return { context, page: await newPage(context) };
}

/** What a player may have to act on: playable cards, the choices, the summary's button, the bridge. */
const ACTIONABLE = [
  ".hand button.card.playable",
  ".actions button:not([disabled])",
  ".actions input",
  '[data-testid="next-deal"]',
  '[data-testid="next-round"]',
  ".bridge button.takeable",
  '[data-action="draw"]',
  '[data-key="reclaim"]',
  '[data-testid="standings"] a',
];

/** Every actionable element whose box is not wholly inside the window as it is now (no scrolling), and how
 * much wider than the window the page is. Buttons inside the melds' own scrolling area count by that area.
 * A hand being dealt is measured where its cards land: they fly in from above the table (app.css, "deal"),
 * so mid-flight boxes lie above the window by design. */
export async function offscreen(page: Page): Promise<{ outside: string[]; overflow: number }> {
  return page.evaluate(async (selectors) => {
    const flying = document
      .getAnimations()
      .filter((a) => a instanceof CSSAnimation && a.animationName === "deal" && a.playState === "running");
    await Promise.race([Promise.all(flying.map((a) => a.finished.catch(() => undefined))), new Promise((done) => setTimeout(done, 3000))]);
    const outside: string[] = [];
    const w = window.innerWidth;
    const hgt = window.innerHeight;
    for (const selector of selectors)
      for (const el of document.querySelectorAll<HTMLElement>(selector)) {
        const scroller = el.closest<HTMLElement>(".melds");
        const box = (scroller ?? el).getBoundingClientRect();
        if (box.width === 0 && box.height === 0) continue;
        const inside = box.left >= -1 && box.right <= w + 1 && (scroller ? box.top < hgt && box.bottom > 0 : box.top >= -1 && box.bottom <= hgt + 1);
        if (!inside)
          outside.push(`${selector} "${(el.getAttribute("aria-label") ?? el.textContent ?? "").slice(0, 60)}" at ${Math.round(box.left)},${Math.round(box.top)}-${Math.round(box.right)},${Math.round(box.bottom)} of ${w}x${hgt}`);
      }
    const overflow = document.documentElement.scrollWidth - w;
    if (overflow > 1)
      for (const el of document.querySelectorAll<HTMLElement>("body *")) {
        const box = el.getBoundingClientRect();
        if (box.right > w + 1 && outside.length < 12) outside.push(`wider than the screen: ${el.tagName.toLowerCase()}.${el.className} ${Math.round(box.left)}-${Math.round(box.right)}`);
      }
    return { outside, overflow };
  }, ACTIONABLE);
}

/** What the helpers' code run in the page (page.evaluate) shares, as window.thousandTest. A function handed to
 * page.evaluate is sent to the page as its own source alone, so whatever it calls must already be there:
 * newPage installs this in every page before the page's own scripts, and on every navigation. */
interface InPage {
  thousandTest: {
    /** Whether an animation moves boxes: a transform, translate or scale among its keyframes. What "still
     * moving" means to atRest (the motions waited for) and to clickFirst (a target not clicked yet): a glow
     * or a fade changes no box, and waiting for one took seconds a game. */
    moves(a: Animation): boolean;
  };
}

/** Installed by newPage (page.addInitScript): sent as its source and run in the page, so it refers to nothing
 * outside itself. */
function installInPage(): void {
  const shared: InPage["thousandTest"] = {
    moves: (a) =>
      a.effect instanceof KeyframeEffect && a.effect.getKeyframes().some((frame) => "transform" in frame || "translate" in frame || "scale" in frame),
  };
  (window as unknown as InPage).thousandTest = shared;
}

/** Wait until the page's motions that end have ended (a new hand's cards flying in from the table), so that
 * what is looked at is where it stays. Endless ones are not waited for, nor those that move nothing: the
 * turn badge's glow (a box-shadow pulsing for 3.2 s) came with every turn, and waiting it out took about 3 s
 * of each decision of a whole game. Given ``around`` (selectors), only the motions on an element matching one
 * or holding one are waited for: a box moves with its own transform and its ancestors' and with nothing
 * else's, so a bot's card landing in the trick (0.26 s, at nearly every decision of a whole game) leaves
 * every box assertOnScreen measures where it is; waiting it out took about 0.1 s a decision. */
export async function atRest(page: Page, around?: string[]): Promise<void> {
  await page.evaluate(async (selectors) => {
    const { moves } = (window as unknown as InPage).thousandTest;
    const holds = (a: Animation): boolean => {
      if (selectors === null) return true;
      const target = a.effect instanceof KeyframeEffect ? a.effect.target : null;
      const any = selectors.join(", ");
      return target !== null && (target.matches(any) || target.querySelector(any) !== null);
    };
    const ending = document.getAnimations().filter((a) => Number.isFinite(a.effect?.getComputedTiming().endTime ?? Infinity) && moves(a) && holds(a));
    await Promise.race([Promise.allSettled(ending.map((a) => a.finished)), new Promise((done) => setTimeout(done, 3000))]);
  }, around ?? null);
}

/** Fails when anything the player may act on is off the screen (once the page is at rest), or the page is
 * wider than the screen. */
export async function assertOnScreen(page: Page, where: string): Promise<void> {
  // The page at rest where it is measured: the motions that end and move what the player may act on (a new
  // hand flying in, a card lifting) are waited for, and a card lifted or a hand re-laid by the last event may
  // take a frame or a transition to settle, so a box outside is looked at again for up to 2 s before it counts
  // (a real overflow stays).
  await atRest(page, ACTIONABLE);
  let { outside, overflow } = await offscreen(page);
  for (let look = 0; look < 10 && (outside.length > 0 || overflow > 1); look++) {
    await page.waitForTimeout(200);
    ({ outside, overflow } = await offscreen(page));
  }
  assert.ok(overflow <= 1, `${where}: the page is ${overflow}px wider than the screen: ${outside.join("; ")}`);
  assert.deepEqual(outside, [], `${where}: actionable elements off the screen`);
}

/** Watch the trick in the page: how often a full trick was on the table, and how long each taken trick
 * stayed before it went to its winner. */
export async function watchTricks(page: Page): Promise<void> {
  await page.evaluate(() => {
    const w = window as unknown as { tricks: { full: number; spans: number[] } };
    w.tricks = { full: 0, spans: [] };
    let shown: string | undefined;
    let since = 0;
    new MutationObserver(() => {
      const trick = document.querySelector(".trick");
      const active = Number(trick?.getAttribute("data-active") ?? 3);
      // A taken trick on show, by its identity (deal and number): one span per trick however often redrawn.
      const taken = trick?.classList.contains("taking") && (trick.querySelectorAll(".played").length ?? 0) >= active ? (trick.getAttribute("data-taken") ?? "?") : undefined;
      if (taken === shown) return;
      if (shown !== undefined) w.tricks.spans.push(performance.now() - since);
      if (taken !== undefined) w.tricks.full += 1;
      shown = taken;
      since = performance.now();
    }).observe(document.body, { subtree: true, childList: true, attributes: true, attributeFilter: ["class"] });
  });
}

export async function trickStats(page: Page): Promise<{ full: number; spans: number[] }> {
  return page.evaluate(() => (window as unknown as { tricks: { full: number; spans: number[] } }).tricks);
}

/** A new tab in `context` (the same browser profile: the same localStorage, so the same seats), its script
 * errors and console errors kept for pageErrors(), the helpers' in-page code installed (InPage). */
export async function newPage(context: BrowserContext): Promise<Page> {
  const page = await context.newPage();
  await page.addInitScript(installInPage);
  const errors: string[] = [];
  page.on("pageerror", (error) => errors.push(String(error)));
  page.on("console", (m) => m.type() === "error" && !m.text().includes("Failed to load resource") && errors.push(m.text()));
  (page as unknown as { errors: string[] }).errors = errors;
  return page;
}

export function pageErrors(page: Page): string[] {
  return (page as unknown as { errors: string[] }).errors;
}

export async function screenshot(page: Page, name: string): Promise<string> {
  mkdirSync(ARTIFACTS, { recursive: true });
  const path = join(ARTIFACTS, `${name}.png`);
  await page.screenshot({ path, fullPage: true });
  return path;
}

/** The first of the selectors that matches a visible, enabled element now (one look at the page), or
 * undefined; then click it as a person would (real pointer events). An element that is on the screen, not
 * moving (no motion on it or on what holds it) and the topmost thing at its centre is clicked there with the
 * mouse: what playwright's click would check before its own press, seen in the same look (a motion that
 * ends soon, a card lifting, is waited for first). Its checks and their waits (scrolled into view, still for
 * two frames, nothing covering it) took about 0.25 s a click, and a whole game is some 240 clicks; anything
 * else (below the fold, still moving, covered, gone) is left to them. */
export async function clickFirst(page: Page, selectors: string[]): Promise<string | undefined> {
  const found = await page.evaluate(async (list) => {
    const { moves } = (window as unknown as InPage).thousandTest;
    const motions = (el: Element): Animation[] => {
      const found: Animation[] = [];
      for (let at: Element | null = el; at; at = at.parentElement)
        for (const a of at.getAnimations())
          if (a.playState === "running" && moves(a)) found.push(a);
      return found;
    };
    for (const selector of list)
      for (const el of document.querySelectorAll<HTMLElement>(selector)) {
        let box = el.getBoundingClientRect();
        if (box.width > 0 && box.height > 0 && !(el as HTMLButtonElement).disabled) {
          // A card lifting (0.08 s) or flying in ends soon: its end is waited for here, briefly.
          const moving = motions(el);
          if (moving.length > 0) {
            await Promise.race([Promise.allSettled(moving.map((a) => a.finished)), new Promise((done) => setTimeout(done, 500))]);
            box = el.getBoundingClientRect();
          }
          const x = box.left + box.width / 2;
          const y = box.top + box.height / 2;
          const seen = x >= 0 && y >= 0 && x < window.innerWidth && y < window.innerHeight ? document.elementFromPoint(x, y) : null;
          const clear = el.isConnected && seen !== null && el.contains(seen) && motions(el).length === 0;
          return { selector, at: clear ? { x, y } : undefined };
        }
      }
    return undefined;
  }, selectors);
  if (found === undefined) return undefined;
  try {
    if (found.at) await page.mouse.click(found.at.x, found.at.y);
    else await page.locator(found.selector).first().click({ timeout: 2000 });
    await settled(page);
    return found.selector;
  } catch {
    return undefined; // re-rendered under the click: look again
  }
}

/** Wait until the page has drawn what the last click changed. The page draws in an animation frame; a look
 * taken before it sees the old page, and a loop that clicks what it saw there can lock into step with the
 * drawing (a card selected by one click, unselected by the next, its "give" button never seen). */
export async function settled(page: Page): Promise<void> {
  await page.evaluate(() => new Promise<void>((done) => requestAnimationFrame(() => requestAnimationFrame(() => done()))));
}

/** Click the first visible, enabled match of a selector; false when there is none right now. */
export async function clickIf(page: Page, selector: string): Promise<boolean> {
  const target = page.locator(selector).first();
  try {
    if ((await target.count()) === 0 || !(await target.isVisible()) || !(await target.isEnabled())) return false;
    await target.click({ timeout: 2000 });
    await settled(page);
    return true;
  } catch {
    return false; // re-rendered under the click: look again
  }
}

export interface PageState {
  status: string;
  seat: number | undefined;
  lastSeen: string | undefined;
  applied: string[];
  legal: string[];
  phase: number | undefined;
  gameOver: boolean;
}

/** The page's TableSession (window.thousandSession), as plain data. */
export async function state(page: Page): Promise<PageState> {
  return page.evaluate(() => {
    const s = (window as unknown as { thousandSession?: Record<string, unknown> }).thousandSession as
      | {
          status: { state: string };
          seat: number | undefined;
          lastSeen: bigint | undefined;
          applied: bigint[];
          legalActions(): { game: { value: { action: { case: string } } } }[];
          model?: { view?: { phase: number; winner?: number } };
        }
      | undefined;
    if (!s) return { status: "none", seat: undefined, lastSeen: undefined, applied: [], legal: [], phase: undefined, gameOver: false };
    return {
      status: s.status.state,
      seat: s.seat,
      lastSeen: s.lastSeen?.toString(),
      applied: s.applied.map(String),
      legal: s.legalActions().map((a) => a.game.value.action.case),
      phase: s.model?.view?.phase,
      gameOver: s.model?.view?.winner !== undefined,
    };
  });
}

/** Open the lobby and type a name; `armingMs` shortens the guard against stray clicks and `trickMs` the
 * time a finished trick stays on show (a player's settings) so that a long game is clicked through quickly. */
export async function setName(page: Page, name: string, armingMs = 40, trickMs = 0): Promise<void> {
  await page.goto(`${BASE_URL}/#/`);
  await page.evaluate(([arming, trick]) => {
    localStorage.setItem("thousand.arming-ms.v1", String(arming));
    localStorage.setItem("thousand.trick-ms.v1", String(trick));
  }, [armingMs, trickMs]);
  await page.fill("#player-name", name);
}

/** Join a table from the lobby's list (as a person would). */
export async function joinFromLobby(page: Page, tableId: string, name: string, trickMs = 0): Promise<void> {
  await setName(page, name, 40, trickMs);
  await page.locator(`[data-testid="join-${tableId}"]`).first().click({ timeout: 15000 });
  await page.waitForURL(`**/#/table/${tableId}`);
}

/** What a Thousand seat's page offers to click, most urgent first, and what each click counts as. */
const THOUSAND_MOVES: [string, string][] = [
  ['[data-testid="next-deal"]', "summary"],
  ['[data-action="pick-0"]', "give"],
  [".hand button.card.playable", "card"],
  ['[data-action^="passBid"]', "pass"],
  ['[data-action="contract"]', "contract"],
  [".actions button.action", "other"],
];

/** Click a Thousand seat's moves as a person would (the first choice offered) until the final standings, or
 * until `enough` says so after a click; `between` runs before each look at the page. Returns what was
 * clicked, by kind (card, pass, give, contract, summary: a deal's summary dismissed, other). */
export async function playThousand(
  page: Page,
  timeoutMs: number,
  enough: (counts: Record<string, number>) => boolean | Promise<boolean> = () => false,
  between: (counts: Record<string, number>) => Promise<void> = async () => undefined,
): Promise<Record<string, number>> {
  const counts: Record<string, number> = {};
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    assert.ok(Date.now() < deadline, `not done in time: ${JSON.stringify(counts)}`);
    await between(counts);
    // The final standings with no deal's summary over them, in one look (a round trip to the browser).
    const done = await page.evaluate(() => !!document.querySelector('[data-testid="standings"]') && !document.querySelector('[data-testid="next-deal"]'));
    if (done) return counts;
    const clicked = await clickFirst(page, THOUSAND_MOVES.map(([selector]) => selector));
    const what = THOUSAND_MOVES.find(([selector]) => selector === clicked)?.[1];
    if (what === undefined) {
      await page.waitForTimeout(20);
      continue;
    }
    counts[what] = (counts[what] ?? 0) + 1;
    if (await enough(counts)) return counts;
  }
}
