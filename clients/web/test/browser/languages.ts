// What the language tests share (issue #29): the languages played, a check that no English word is on the
// page, and a phone in a locale (set on the context, so navigator.languages says it).
import assert from "node:assert/strict";
import type { Browser, Page } from "playwright-core";
import { PHONE, newPage } from "./browser";

export const LANGS = [
  { locale: "ru-RU", lang: "ru" },
  { locale: "pl-PL", lang: "pl" },
];

/** English words the page would show if a text were left untranslated (words that are Polish or Russian
 * too, or names, are not listed: bank, bolt, joker, lobby, to, no). */
const ENGLISH =
  /\b(the|and|you|your|cards?|deals?|bids?|pass(es|ed)?|tricks?|talons?|score|sheet|round|melds?|seats?|table|plays?|takes?|wins?|points?|pts|turn|game|over|with|from|of|is|are|yes|barrel|dealer|draw|discard|bridge|deck|leave|watch|join|next|log|rules|standard|trump|marriages?|auction|exchange|contract|live|connecting|waiting|verified|made|failed|final|standings|known|opened|hand|change|now)\b/i;

/** Every text the page shows or says now: its visible text, aria-labels, titles and the tab's title. */
async function texts(page: Page): Promise<string[]> {
  return page.evaluate(() => [
    document.title,
    document.body.innerText,
    ...[...document.querySelectorAll("[aria-label]")].map((el) => el.getAttribute("aria-label") ?? ""),
    ...[...document.querySelectorAll("[title]")].map((el) => el.getAttribute("title") ?? ""),
    ...[...document.querySelectorAll("input[placeholder]")].map((el) => el.getAttribute("placeholder") ?? ""),
  ]);
}

/** Fails on an English word anywhere on the page (the players' names and the bots' strategy names aside). */
export async function assertNoEnglish(page: Page, where: string, names: string[]): Promise<void> {
  const found: string[] = [];
  for (const text of await texts(page))
    for (const line of text.split("\n")) {
      let plain = line;
      for (const name of names) plain = plain.replaceAll(name, "");
      const m = ENGLISH.exec(plain);
      if (m) found.push(`"${m[0]}" in "${line.slice(0, 120)}"`);
    }
  assert.deepEqual(found, [], `${where}: English on the page`);
}

/** A phone (390x844) whose browser speaks `locale`. */
export async function phone(browser: Browser, locale: string): Promise<Page> {
  const context = await browser.newContext({ locale, viewport: PHONE, deviceScaleFactor: 2, isMobile: true, hasTouch: true });
  return newPage(context);
}

export const NAMES = ["Ann", "Bea", "greedy", "random"];

