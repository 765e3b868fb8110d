// The shared catalogues as the browser reads them (issue #29): every language has exactly English's keys, each
// message parses as ICU MessageFormat with the browser's parser (@formatjs) and has English's arguments, the
// files the build writes for the page are the catalogues themselves (compiled, the keys the page names),
// plurals follow each language's rules, and the language is chosen from the player's choice, then the
// browser's languages.
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { TYPE, parse, type MessageFormatElement } from "@formatjs/icu-messageformat-parser";
import { compileMessage, flatten, keysNamed, pageCatalogue, pageSources } from "../../catalogues.mjs";
import { LANGUAGES, chooseLanguage, t, useCatalogue, withoutRuleIds, type Catalogue, type Lang } from "../../src/i18n";

const I18N = join(process.cwd(), "..", "i18n");

/** A language's whole catalogue (the terminal's messages too), as text. */
function catalogue(lang: Lang): Record<string, string> {
  const read = (kind: string): Record<string, unknown> => JSON.parse(readFileSync(join(I18N, kind, `${lang}.json`), "utf8")) as Record<string, unknown>;
  return flatten(read("messages") as Record<string, string>, read("glossary"));
}

/** A language's whole catalogue compiled as the build compiles the page's. */
function compiled(lang: Lang): Catalogue {
  return Object.fromEntries(Object.entries(catalogue(lang)).map(([key, text]) => [key, compileMessage(text)]));
}

/** The argument names of a parsed message, branches of plural and select included. */
function argumentsOf(elements: MessageFormatElement[], into = new Set<string>()): Set<string> {
  for (const el of elements) {
    if (el.type === TYPE.literal || el.type === TYPE.pound || el.type === TYPE.tag) continue;
    into.add(el.value);
    if (el.type === TYPE.plural || el.type === TYPE.select) for (const option of Object.values(el.options)) argumentsOf(option.value, into);
  }
  return into;
}

test("every language has English's keys, and each message parses with English's arguments", () => {
  const english = catalogue("en");
  for (const lang of LANGUAGES) {
    const other = catalogue(lang);
    assert.deepEqual(Object.keys(other).sort(), Object.keys(english).sort(), `${lang}: keys differ from English`);
    for (const [key, message] of Object.entries(english)) {
      const mine = [...argumentsOf(parse(other[key]!, { ignoreTag: true }))].sort();
      assert.deepEqual(mine, [...argumentsOf(parse(message, { ignoreTag: true }))].sort(), `${lang} ${key}: arguments differ from English`);
    }
  }
});

test("the page fetches the catalogues themselves (dist/i18n: the messages its sources name, compiled)", async () => {
  const sources = await pageSources(join(process.cwd(), "src"));
  const named = keysNamed(sources, Object.keys(catalogue("en")));
  for (const key of ["web.cards", "error.unknown", "error.NOT_YOUR_TURN", "action.thousand.bid", "term.marriage", "notice.table_stopped_move_limit", "web.match.reason_QUICKPLAY_ALREADY_WAITING"])
    assert.ok(named.has(key), key);
  // Whatever the pattern, a key the sources quote whole is on the page (a reason's capitals once fell out).
  for (const key of Object.keys(catalogue("en")))
    if ([`"${key}"`, `'${key}'`, `\`${key}\``].some((quoted) => sources.includes(quoted))) assert.ok(named.has(key), `${key}: quoted by the page but not in its catalogue`);
  for (const key of Object.keys(catalogue("en")))
    if (/^(cli|help|device|connection)\./.test(key)) assert.ok(!named.has(key), `${key}: the terminal's own message named by the page`);
  for (const lang of LANGUAGES.filter((l) => l !== "en")) {
    const built = JSON.parse(readFileSync(join(process.cwd(), "dist", "i18n", `${lang}.json`), "utf8")) as Catalogue;
    assert.deepEqual(built, await pageCatalogue(I18N, lang, named), `dist/i18n/${lang}.json is not clients/i18n's ${lang} for the page`);
  }
});

test("a message that is nothing but text is compiled to its text, the others to their AST", () => {
  assert.equal(compileMessage("Pass"), "Pass");
  assert.equal(compileMessage("it's '{'literal'}'"), "it's {literal}");
  const ast = compileMessage("{n, plural, one {# card} other {# cards}}");
  assert.ok(Array.isArray(ast) && ast[0]?.type === TYPE.plural);
});

test("plurals follow each language: 1 card, 2 cards, 5 cards, 21 cards", () => {
  const expected: Record<Lang, string[]> = {
    en: ["1 card", "2 cards", "5 cards", "21 cards", "22 cards"],
    ru: ["1 карта", "2 карты", "5 карт", "21 карта", "22 карты"],
    uk: ["1 карта", "2 карти", "5 карт", "21 карта", "22 карти"],
    be: ["1 карта", "2 карты", "5 карт", "21 карта", "22 карты"],
    pl: ["1 karta", "2 karty", "5 kart", "21 kart", "22 karty"],
  };
  try {
    for (const lang of LANGUAGES) {
      useCatalogue(lang, compiled(lang));
      assert.deepEqual([1, 2, 5, 21, 22].map((n) => t("web.cards", { n })), expected[lang], lang);
    }
    // Game points: no separator below 10 000 (::group-min2), as players write scores.
    useCatalogue("ru", compiled("ru"));
    assert.equal(t("web.blagogo.sheet_title", { target: 1000 }), "Запись (до 1000)");
    assert.equal(t("web.blagogo.sheet_title", { target: 10000 }).replace(/\s/g, " "), "Запись (до 10 000)");
    assert.equal(t("web.standing", { name: "Аня", score: 1000, payout: 30 }), "Аня: 1000 (банк +30)");
  } finally {
    useCatalogue("en", compiled("en"));
  }
});

test("the language: the player's choice, else the browser's first known language, else English", () => {
  assert.equal(chooseLanguage("pl", ["ru-RU"]), "pl");
  assert.equal(chooseLanguage(null, ["de-DE", "uk-UA", "ru"]), "uk");
  assert.equal(chooseLanguage("xx", ["be"]), "be");
  assert.equal(chooseLanguage(null, ["de", "fr"]), "en");
});

test("rule references are taken out of a catalogue text for the page", () => {
  assert.equal(withoutRuleIds("you must follow the suit led (T-18)"), "you must follow the suit led");
  assert.equal(withoutRuleIds("A hand is weak at most (points, T-13)"), "A hand is weak at most (points)");
  assert.equal(withoutRuleIds("you must open first (B-9, B-12)"), "you must open first");
  assert.equal(withoutRuleIds("a bid (a note)"), "a bid (a note)");
});
