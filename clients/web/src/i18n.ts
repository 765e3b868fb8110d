// The page's language: the very catalogues the terminal client reads (clients/i18n: ICU MessageFormat, one
// JSON file per language, the game's words in the glossary as `term.<id>`), formatted by @formatjs/intl with
// the browser's own plural rules, numbers and dates (Intl). The build compiles each catalogue to ICU ASTs
// (catalogues.mjs: only the messages these sources name), so the page ships no ICU parser. English is bundled
// (the reference, and what a language falls back to); the others are fetched from the web port
// (dist/i18n/<lang>.json) before the first screen. The language is the player's choice kept in this browser,
// else the first of navigator.languages with a catalogue, else English.
import { createIntl, createIntlCache, type IntlShape } from "@formatjs/intl";
import { TYPE, type MessageFormatElement } from "@formatjs/icu-messageformat-parser";
import english from "page-catalogue:en";
import type englishMessages from "../../i18n/messages/en.json";
import type englishGlossary from "../../i18n/glossary/en.json";

export const LANGUAGES = ["en", "ru", "uk", "be", "pl"] as const;
export type Lang = (typeof LANGUAGES)[number];
export const DEFAULT_LANG: Lang = "en";

/** Each language by its own name, as a language menu shows it (the same in every language). */
export const LANGUAGE_NAMES: Record<Lang, string> = {
  en: "English",
  ru: "Русский",
  uk: "Українська",
  be: "Беларуская",
  pl: "Polski",
};

/** The locale each language formats numbers and dates with (clients/i18n LOCALES). */
const LOCALES: Record<Lang, string> = { en: "en-GB", ru: "ru-RU", uk: "uk-UA", be: "be-BY", pl: "pl-PL" };

/** A locale whose numbers, dates and plurals a language shares, for a browser that lacks the language's own
 * (Chromium's reduced ICU has no Belarusian numbers): Belarusian writes numbers as Russian does (12 345,5)
 * and its plural rules are Russian's. */
const FORMAT_FALLBACK: Partial<Record<Lang, string>> = { be: "ru-RU" };

/** The locale the page formats `lang` with: its own when the browser has its data, else its fallback. */
export function formattingLocale(lang: Lang): string {
  const own = LOCALES[lang];
  const fallback = FORMAT_FALLBACK[lang];
  if (fallback === undefined || Intl.NumberFormat.supportedLocalesOf(own).length > 0) return own;
  return fallback;
}

/** Where this browser keeps the player's choice. */
export const LANG_KEY = "thousand.lang.v1";

type Messages = Omit<typeof englishMessages, "$comment">;
type Terms = Omit<typeof englishGlossary, "$comment">;
/** A message of the catalogues, checked by tsc: a key no catalogue has does not compile. */
export type Key = keyof Messages | `term.${keyof Terms & string}`;
export type Values = Record<string, string | number | Date | undefined>;

/** A compiled catalogue (catalogues.mjs): each message its AST, or its text when it is nothing but text. */
export type Catalogue = Record<string, string | MessageFormatElement[]>;

const cache = createIntlCache();
let current: Lang = DEFAULT_LANG;
let messages: Catalogue = english;
let intl: IntlShape<string> = make(DEFAULT_LANG, messages);

function make(lang: Lang, catalogue: Catalogue): IntlShape<string> {
  const ast = (m: string | MessageFormatElement[]): MessageFormatElement[] => (typeof m === "string" ? [{ type: TYPE.literal, value: m }] : m);
  return createIntl(
    {
      locale: formattingLocale(lang),
      defaultLocale: LOCALES.en,
      messages: Object.fromEntries(Object.entries(catalogue).map(([k, v]) => [k, ast(v)])),
      onError: (error) => console.error(error.message),
    },
    cache,
  );
}

/** The compiled catalogue of `lang` becomes the page's language. */
export function useCatalogue(lang: Lang, catalogue: Catalogue): void {
  current = lang;
  messages = catalogue;
  intl = make(lang, catalogue);
  if (typeof document !== "undefined") document.documentElement.lang = lang;
}

export function language(): Lang {
  return current;
}

/** The language for a stored choice and the browser's preferences (navigator.languages, in order). */
export function chooseLanguage(stored: string | null, preferred: readonly string[]): Lang {
  const known = (tag: string): Lang | undefined => LANGUAGES.find((l) => l === tag.toLowerCase().split(/[-_]/)[0]);
  if (stored && known(stored)) return known(stored)!;
  for (const tag of preferred) {
    const lang = known(tag);
    if (lang) return lang;
  }
  return DEFAULT_LANG;
}

/** Fetch and use the page's language (English is already here). A language that cannot be fetched leaves
 * English in place: the page still works. */
export async function loadLanguage(lang: Lang): Promise<void> {
  if (lang === DEFAULT_LANG) return useCatalogue(DEFAULT_LANG, english);
  try {
    const response = await fetch(`i18n/${lang}.json`);
    if (!response.ok) throw new Error(`${response.status}`);
    useCatalogue(lang, (await response.json()) as Catalogue);
  } catch (error) {
    console.warn(`the ${lang} catalogue could not be loaded (${String(error)}): English instead`);
  }
}

let keepWithPlayer: ((lang: Lang) => Promise<void>) | undefined;

/** Where a choice is kept beyond this browser: the player's profile (PlayerService.UpdateMe's locale), so that
 * the language follows the player to another browser or device. */
export function onLanguageChosen(keep: (lang: Lang) => Promise<void>): void {
  keepWithPlayer = keep;
}

/** The language of a profile's locale (a BCP 47 tag), when there is a catalogue for it. */
export function languageOfLocale(locale: string | undefined): Lang | undefined {
  return LANGUAGES.find((l) => l === (locale ?? "").toLowerCase().split(/[-_]/)[0]);
}

/** Keep the player's choice (in this browser, and with the player) and show the page in it (a reload: every
 * screen and the saved logs anew). A profile that cannot be updated leaves the choice in this browser. */
export function switchLanguage(lang: Lang, storage: Pick<Storage, "setItem">): void {
  storage.setItem(LANG_KEY, lang);
  const kept = keepWithPlayer ? keepWithPlayer(lang).catch((error: unknown) => console.warn(`the language was not kept with the player: ${String(error)}`)) : Promise.resolve();
  void kept.finally(() => window.location.reload());
}

function args(values: Values | undefined): Record<string, string | number | Date> | undefined {
  if (values === undefined) return undefined;
  // An absent argument is the word `none`, on which messages select (as in clients/i18n).
  return Object.fromEntries(Object.entries(values).map(([k, v]) => [k, v === undefined || v === "" ? "none" : v]));
}

/** The message `key` with its arguments, in the page's language. */
export function t(key: Key, values?: Values): string {
  return intl.formatMessage({ id: key }, args(values));
}

/** A message whose key is made from the contract's values (a reason, a rule, a variant), or undefined when no
 * catalogue has it (a reason newer than this client). */
export function tMaybe(key: string, values?: Values): string | undefined {
  return key in messages ? intl.formatMessage({ id: key }, args(values)) : undefined;
}

/** A bot's name from its strategy, as the catalogue says it ("greedy", "жадный", "chciwy"); a strategy the
 * catalogue does not know (a newer server's, a bot author's own) keeps the name the server gives it. */
export function botName(strategy: string): string {
  return t("bot.strategy", { strategy });
}

/** A sentence's first letter in upper case, as the language writes it (catalogue phrases are lower case where
 * they also stand inside a sentence). */
export function capital(text: string): string {
  return text.charAt(0).toLocaleUpperCase(LOCALES[current]) + text.slice(1);
}

/** A number as the language writes it (grouping, decimal sign). */
export function formatNumber(n: number, options?: Intl.NumberFormatOptions): string {
  return intl.formatNumber(n, options);
}

/** A date and time as the language writes it. */
export function formatDateTime(date: Date): string {
  return intl.formatDate(date, { dateStyle: "short", timeStyle: "short" });
}

/** A list ("a, b and c") as the language writes it. */
export function formatList(items: string[]): string {
  return intl.formatList(items, { type: "conjunction" }) as string;
}

/** A catalogue text without the rule references it carries for the terminal ("(T-18)", "(points, T-13)",
 * "(B-9, B-12)"): the page names rules in words, never by their IDs. */
export function withoutRuleIds(text: string): string {
  return text
    .replace(/\s*\(([^()]*)\)/g, (whole, inner: string) => {
      const kept = inner.split(/\s*[,;]\s*/).filter((part) => !/\b[TB]-\d+[a-z]?\b/.test(part));
      if (kept.length === inner.split(/\s*[,;]\s*/).length) return whole;
      return kept.length ? ` (${kept.join(", ")})` : "";
    })
    .trim();
}
