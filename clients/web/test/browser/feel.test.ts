// Issue #28, what makes the web table feel like one: sounds (off by default, one click in the header turns
// them on, kept for the next table) and a new hand's cards dealt one by one, with no motion for a player
// whose system asks for less (prefers-reduced-motion).
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import type { Browser, Page } from "playwright-core";
import { shortThousandTable } from "../logic/harness";
import { LAPTOP, PHONE, joinFromLobby, launch, newPage, openSized, pageErrors, playThousand, screenshot } from "./browser";

let browser: Browser;
before(async () => {
  browser = await launch();
});
after(async () => {
  await browser?.close();
});

type Made = Record<"card" | "trick" | "deal" | "turn", number>;

async function made(page: Page): Promise<Made | undefined> {
  return page.evaluate(() => (window as unknown as { thousandSounds?: { made: Made } }).thousandSounds?.made);
}

type Dealt = { dealing: boolean; moving: number; cards: number };

/** The next deal's new hand as it is first marked as being dealt, once a deal's summary has been shown:
 * whether it is marked, how many of its cards are moving then, and how many it holds. Recorded in the page
 * by a MutationObserver at the moment the hand is marked, not sampled afterwards, since the motion lasts
 * 1.2 s and a loaded machine's round trips can take longer (a clean run saw it already over); a hand never
 * marked is sampled once it is shown. */
async function nextDeal(page: Page): Promise<Dealt> {
  await page.evaluate(() => {
    const state = window as unknown as { dealtSeen?: Dealt; summarySeen?: boolean };
    state.dealtSeen = undefined;
    state.summarySeen = false;
    const observer = new MutationObserver(() => {
      if (document.querySelector('[data-testid="deal-summary"]')) state.summarySeen = true;
      const hand = document.querySelector(".hand.dealing");
      if (!state.summarySeen || state.dealtSeen || !hand || document.querySelector('[data-testid="deal-summary"]')) return;
      const cards = [...hand.children];
      state.dealtSeen = {
        dealing: true,
        moving: cards.filter((c) => c.getAnimations().some((a) => a.playState === "running")).length,
        cards: cards.length,
      };
      observer.disconnect();
    });
    observer.observe(document.body, { subtree: true, childList: true, attributes: true, attributeFilter: ["class"] });
  });
  await playThousand(page, 120000, (counts) => (counts["summary"] ?? 0) >= 1);
  await page.locator(".hand button.card").first().waitFor({ timeout: 15000 });
  return page.evaluate(() => {
    const seen = (window as unknown as { dealtSeen?: Dealt }).dealtSeen;
    if (seen) return seen;
    const hand = document.querySelector(".hand");
    const cards = [...(hand?.children ?? [])];
    return {
      dealing: hand?.classList.contains("dealing") ?? false,
      moving: cards.filter((c) => c.getAnimations().some((a) => a.playState === "running")).length,
      cards: cards.length,
    };
  });
}

test("sounds are off by default, one click turns them on for this table and the next, and play on the game's events", { timeout: 240000 }, async () => {
  const { context, page } = await openSized(browser, LAPTOP);
  await joinFromLobby(page, await shortThousandTable(), "Sia");
  const toggle = page.locator('[data-key="sounds"]');
  await toggle.waitFor({ timeout: 15000 });
  assert.equal(await toggle.getAttribute("aria-pressed"), "false");
  assert.match(await toggle.innerText(), /Sounds:\s*off/);
  await playThousand(page, 60000, (counts) => (counts["card"] ?? 0) >= 3);
  assert.deepEqual(await made(page), { card: 0, trick: 0, deal: 0, turn: 0 }, "a sound while they were off");
  await toggle.click();
  assert.equal(await toggle.getAttribute("aria-pressed"), "true");
  assert.match(await toggle.innerText(), /Sounds:\s*on/);
  assert.equal(await page.evaluate(() => localStorage.getItem("thousand.sounds.v1")), "on");
  await playThousand(page, 120000, (counts) => (counts["summary"] ?? 0) >= 1);
  await playThousand(page, 60000, (counts) => (counts["card"] ?? 0) >= 2);
  const heard = await made(page);
  assert.ok(heard && heard.card > 3 && heard.trick > 0 && heard.turn > 0 && heard.deal > 0, JSON.stringify(heard));
  const next = await newPage(context); // another table, same browser: still on
  await joinFromLobby(next, await shortThousandTable(), "Sia");
  await next.locator('[data-key="sounds"][aria-pressed="true"]').waitFor({ timeout: 15000 });
  await next.locator('[data-key="sounds"]').click();
  assert.equal(await next.evaluate(() => localStorage.getItem("thousand.sounds.v1")), "off");
  assert.deepEqual(pageErrors(page), []);
  assert.deepEqual(pageErrors(next), []);
  await context.close();
});

for (const { name, size } of [
  { name: "laptop", size: LAPTOP },
  { name: "phone", size: PHONE },
])
  test(`a new hand is dealt card by card at ${name} size, and not at all under prefers-reduced-motion`, { timeout: 240000 }, async () => {
    const { context, page } = await openSized(browser, size);
    await joinFromLobby(page, await shortThousandTable(), "Dee");
    await page.locator(".hand button.card").first().waitFor({ timeout: 15000 });
    const dealt = await nextDeal(page);
    assert.ok(dealt.dealing && dealt.cards >= 7 && dealt.moving > 0, JSON.stringify(dealt));
    await screenshot(page, `thousand-${name}-dealing`);
    await page.waitForTimeout(1400);
    assert.equal(await page.locator(".hand.dealing").count(), 0, "the hand is still marked as dealt");
    await context.close();

    const calm = await browser.newContext({ viewport: size, reducedMotion: "reduce" });
    const still = await newPage(calm);
    await joinFromLobby(still, await shortThousandTable(), "Rue");
    await still.locator(".hand button.card").first().waitFor({ timeout: 15000 });
    const quiet = await nextDeal(still);
    assert.ok(quiet.cards >= 7 && quiet.moving === 0, JSON.stringify(quiet));
    assert.deepEqual(pageErrors(still), []);
    await calm.close();
  });
